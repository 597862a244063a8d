#!/usr/bin/env python3
"""The house's one-way imports, checked in CI: no circle between the files
of any crate of the workspace.

Usage: layers.py CRATE_SRC_DIR...   (e.g. rowkey-core/src rowkey-derive/src)

For each crate it reads every `.rs` file below the folder (a file is a
module: `a/b.rs` and `a/b/mod.rs` are `a::b`, `lib.rs` and `main.rs` the
root) and finds the files each one names: `use` trees (braces, `self`,
`super`, `crate`, a child module's name) and `crate::`/`super::`/`self::`
paths in code, comments and strings left out. A path is followed down the
module files while they exist; an item named in a module file that the
file does not define but re-exports (`pub use child::Item`) is followed to
where it is defined. A facade's own re-exports (`pub use` in `lib.rs` or a
`mod.rs`) are not edges: they are how a crate shows its names, not a use.
Generated code (a `thrift/` folder) is left out.

The same holds between a crate's top-level modules (its folders: in
rowkey-core, format < layout < key < scan < dynamic, store, hbase).

Exit status 1, printing each circle's files or modules, when any crate has
one; 0 otherwise.
"""
import os
import re
import sys

ITEM = re.compile(
    r'^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+fn|async\s+fn|unsafe\s+fn|fn|struct|enum|trait|type|const|static|union|macro_rules!)\s+([A-Za-z_][A-Za-z0-9_]*)',
    re.M)
MOD_DECL = re.compile(r'^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;', re.M)
USE = re.compile(r'^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);', re.M)
PATH = re.compile(r'\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)')


def strip(src):
    """The source without comments and string or char literals."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('//', i):
            j = src.find('\n', i)
            i = n if j < 0 else j
        elif src.startswith('/*', i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith('/*', i):
                    depth, i = depth + 1, i + 2
                elif src.startswith('*/', i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == 'r' and re.match(r'r#*"', src[i:i + 10]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == '_')):
            m = re.match(r'r(#*)"', src[i:])
            end = '"' + m.group(1)
            j = src.find(end, i + len(m.group(0)))
            i = n if j < 0 else j + len(end)
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and src[i] != '"':
                i += 2 if src[i] == '\\' else 1
            i += 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", src[i:i + 4] + src[i + 4:i + 12]):
            m = re.match(r"'(\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'])'", src[i:])
            if m:
                i += len(m.group(0))
                out.append("' '")
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


INLINE_MOD = re.compile(r'\bmod\s+[a-z_][a-z0-9_]*\s*\{')


def inline_mods(src):
    """The source with `super::` inside an inline module (`mod tests {
    use super::*; }`) read as `self::`: there it names the file's own
    module, as `self::` does outside it (one level of nesting)."""
    out, i = [], 0
    for m in INLINE_MOD.finditer(src):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while j < len(src) and depth:
            depth += {'{': 1, '}': -1}.get(src[j], 0)
            j += 1
        out.append(src[i:m.end()])
        out.append(re.sub(r'\bsuper::', 'self::', src[m.end():j]))
        i = j
    out.append(src[i:])
    return ''.join(out)


def use_paths(tree):
    """The paths of a `use` tree: `a::{b, c::{d as e}, self}` -> a::b, a::c::d, a."""
    tree = re.sub(r'\s+', '', tree)

    def expand(prefix, t):
        if not t:
            return [prefix]
        if t.startswith('{'):
            depth, items, cur = 0, [], ''
            for ch in t[1:-1]:
                if ch == ',' and depth == 0:
                    items.append(cur)
                    cur = ''
                    continue
                depth += ch == '{'
                depth -= ch == '}'
                cur += ch
            if cur:
                items.append(cur)
            out = []
            for it in items:
                out += expand(prefix, it)
            return out
        head, sep, rest = t.partition('::')
        head = head.split('as')[0] if re.fullmatch(r'[A-Za-z_0-9]+as[A-Za-z_0-9]+', head) else head
        if head == 'self':
            return expand(prefix, rest) if rest else [prefix]
        if head == '*':
            return [prefix]
        return expand(prefix + [head], rest) if sep else [prefix + [head]]

    return expand([], tree)


class Crate:
    def __init__(self, root):
        self.root = root
        self.files = {}  # module path tuple -> file
        for d, dirs, fs in os.walk(root):
            dirs[:] = [x for x in dirs if x != 'thrift' and x != 'bin']
            for f in fs:
                if not f.endswith('.rs'):
                    continue
                rel = os.path.relpath(os.path.join(d, f), root)[:-3].split(os.sep)
                if rel[-1] in ('mod', 'lib', 'main'):
                    rel = rel[:-1]
                self.files[tuple(rel)] = os.path.join(d, f)
        self.src = {m: inline_mods(strip(open(p).read())) for m, p in self.files.items()}
        self.defs = {m: set(ITEM.findall(s)) for m, s in self.src.items()}
        self.children = {m: set(MOD_DECL.findall(s)) for m, s in self.src.items()}
        # Re-exports of a module file: name -> the path it names.
        self.reexports = {}
        for m, s in self.src.items():
            r = {}
            for vis, tree in USE.findall(s):
                if not vis:
                    continue
                for p in use_paths(tree):
                    if p:
                        r[p[-1]] = self.absolute(m, p)
            self.reexports[m] = r

    def facade(self, m):
        p = self.files[m]
        return os.path.basename(p) in ('mod.rs', 'lib.rs', 'main.rs')

    def absolute(self, m, path):
        """`path` as named in module `m`, from the crate root (or None for
        another crate's)."""
        path = list(path)
        if not path:
            return None
        base = list(m)
        if path[0] == 'crate':
            base, path = [], path[1:]
        elif path[0] in ('super', 'self'):
            while path and path[0] in ('super', 'self'):
                if path[0] == 'super':
                    base = base[:-1]
                path = path[1:]
        elif path[0] in self.children.get(m, ()):
            pass
        else:
            return None
        return tuple(base + path)

    def target(self, path, depth=0):
        """The file that defines what `path` (from the root) names."""
        mod = ()
        for seg in path:
            if mod + (seg,) in self.files:
                mod = mod + (seg,)
                continue
            # An item of `mod`: defined there, or re-exported from elsewhere.
            if seg not in self.defs[mod] and seg in self.reexports[mod] and depth < 8:
                again = self.reexports[mod][seg]
                if again and again != path:
                    return self.target(again, depth + 1)
            return mod
        return mod

    def edges(self):
        g = {m: set() for m in self.files}
        for m, s in self.src.items():
            named = []
            for vis, tree in USE.findall(s):
                if vis and self.facade(m):
                    continue
                named += [p for p in use_paths(tree) if p]
            # Paths in code (use lines removed, they were read above).
            code = USE.sub('', s)
            named += [[k] + p.split('::')[1:] for k, p in PATH.findall(code)]
            # A child module named in code: `child::item`.
            for child in self.children.get(m, ()):
                for rest in re.findall(r'(?<![A-Za-z0-9_:])' + child + r'((?:::[A-Za-z_][A-Za-z0-9_]*)+)', code):
                    named.append([child] + rest.split('::')[1:])
            for p in named:
                a = self.absolute(m, p)
                if a is None:
                    continue
                t = self.target(a)
                if t in self.files and t != m:
                    g[m].add(t)
        return g


def circles(g):
    """Every strongly connected set of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def main(roots):
    bad = False
    for root in roots:
        crate = Crate(root)
        edges = crate.edges()
        found = circles(edges)
        name = lambda m: os.path.relpath(crate.files[m], root)
        for comp in found:
            print(f'{root}: a circle between {len(comp)} files: ' + ', '.join(name(m) for m in comp))
        # The layers: the crate's top-level modules (folders), one way too.
        tops = {m[0] for m in crate.files if m}
        layers = {t: set() for t in tops}
        for m, targets in edges.items():
            for t in targets:
                if m and t and m[0] != t[0]:
                    layers[m[0]].add(t[0])
        found_layers = circles(layers)
        for comp in found_layers:
            print(f'{root}: a circle between {len(comp)} top-level modules: ' + ', '.join(comp))
        if found or found_layers:
            bad = True
        else:
            print(f'{root}: {len(crate.files)} files in {len(tops)} top-level modules, no circle')
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main(sys.argv[1:] or ['rowkey-core/src'])
