#!/usr/bin/env python3
# The layer check of .ci/run: reads rowkey-core's `use crate::` paths (code,
# not comments) and fails on an import cycle between its top-level modules
# or between the files of one folder. Usage: layers.py rowkey-core/src
import os,re,sys,collections
root=sys.argv[1]
edges=collections.defaultdict(set); fedges=collections.defaultdict(set)
for d,_,fs in os.walk(root):
  for f in fs:
    if not f.endswith('.rs'): continue
    p=os.path.join(d,f); rel=os.path.relpath(p,root)
    if rel=='lib.rs': continue
    parts=rel[:-3].split('/'); top=parts[0]; 
    src=open(p).read()
    src=re.sub(r'//[^\n]*','',src)
    for m in re.finditer(r'crate::([a-z_]+)(?:::([a-z_]+))?',src):
      t=m.group(1)
      if t!=top: edges[top].add(t)
      elif len(parts)>1 and m.group(2):
        a=parts[1] if parts[1]!='mod' else top; b=m.group(2)
        if a!=b: fedges[(top,a)].add(b)
    for m in re.finditer(r'\bsuper::([a-z_]+)',src):
      if len(parts)>1 and parts[1]!='mod':
        fedges[(top,parts[1])].add(m.group(1))
for k in sorted(edges): print(k,'->',sorted(edges[k]))
def cyc(g):
  seen={};bad=[]
  def go(n,stack):
    seen[n]=1
    for m in g.get(n,()):
      if seen.get(m)==1: bad.append(stack+[m])
      elif m not in seen: go(m,stack+[m])
    seen[n]=2
  for n in list(g): 
    if n not in seen: go(n,[n])
  return bad
bad=cyc(edges)
folders=collections.defaultdict(dict)
for (top,a),bs in fedges.items(): folders[top][a]=bs
for top,g in folders.items():
  b=cyc(g)
  if b: print('cycle inside',top,b); bad+=b
if bad: print('CYCLES',bad); sys.exit(1)
print('no cycles')
