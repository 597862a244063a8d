#!/usr/bin/env python3
"""Fails on a broken link in the project's Markdown: every relative link of
README.md, FORMAT.md, BENCHMARKS.md, CHANGELOG.md and the guide's chapters
(docs/src) must name a file that exists, and a `#fragment` into a Markdown
file a heading of it (GitHub's and mdBook's ids: lowercase, punctuation
dropped, spaces as hyphens). Links inside code are not links."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose(path):
    """The file's lines outside fenced code, inline code blanked."""
    fence = False
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if not fence:
            yield n, re.sub(r"`[^`]*`", "", line)


def slug(heading):
    s = re.sub(r"`", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    out = set()
    for _, line in prose(path):
        m = re.match(r"#{1,6} (.*)", line)
        if m:
            out.add(slug(m.group(1)))
    return out


def main():
    files = [os.path.join(ROOT, f) for f in ("README.md", "FORMAT.md", "BENCHMARKS.md", "CHANGELOG.md")]
    src = os.path.join(ROOT, "docs", "src")
    files += sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".md"))
    broken = []
    count = 0
    for path in files:
        for n, line in prose(path):
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue
                count += 1
                file, _, fragment = target.partition("#")
                where = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
                rel = os.path.relpath(path, ROOT)
                if not os.path.exists(where):
                    broken.append(f"{rel}:{n}: {target}: no such file")
                elif fragment and where.endswith(".md") and fragment not in anchors(where):
                    broken.append(f"{rel}:{n}: {target}: no heading #{fragment}")
    for b in broken:
        print(b)
    print(f"{count} relative links checked, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
