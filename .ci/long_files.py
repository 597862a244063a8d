#!/usr/bin/env python3
"""Fails when a tracked Rust source file has more lines than the limit
(generated code, the Thrift bindings under `thrift/` and expansion
snapshots, excepted), naming each one. Usage: long_files.py LIMIT"""
import os
import subprocess
import sys

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
files = subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard', '*.rs'], capture_output=True, text=True, check=True).stdout.split()
long = []
for f in files:
    if '/thrift/' in f or f.endswith('.expanded.rs') or not os.path.exists(f):
        continue
    with open(f, encoding='utf-8') as src:
        n = sum(1 for _ in src)
    if n > limit:
        long.append((n, f))
for n, f in sorted(long, reverse=True):
    print(f'{f}: {n} lines, over {limit}')
if long:
    sys.exit(1)
print(f'{len(files)} Rust files, none over {limit} lines (generated code aside)')
