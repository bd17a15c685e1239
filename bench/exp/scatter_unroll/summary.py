#!/usr/bin/env python3
# summary.py run.txt: each case's median per variant and patc's over it (above 1: faster)
import collections, re, statistics, sys
d = collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    m = re.match(r'time (\S+) n=(\d+) (\S+) (\S+) round=\d kernel time: ([0-9.]+) ms', l)
    if m: d[(m[1], m[2], m[3])][m[4]].append(float(m[5]) * 1000)
for k, v in d.items():
    base = statistics.median(v['base'])
    print(*k, ' '.join(f"{x}={statistics.median(t):.1f}({base / statistics.median(t):.3f})" for x, t in v.items()))
