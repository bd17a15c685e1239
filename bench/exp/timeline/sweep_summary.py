#!/usr/bin/env python3
import re, sys, collections, statistics
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    m = re.match(r'time (\S+) n=(\d+) (\S+) mb=(\d+) sleep=(\d+) round=\d kernel time: ([0-9.]+) ms', l)
    if m: d[(m[1], int(m[2]), m[3], int(m[5]))].append(float(m[6]) * 1000)
rows = collections.defaultdict(dict)
for (k, n, sh, z), ts in d.items(): rows[(k, n, sh)][z] = statistics.median(ts)
for (k, n, sh), v in sorted(rows.items()):
    print(f"{k} n={n:<8} {sh:8s} " + " ".join(f"sleep{z}={t:5.2f}" for z, t in sorted(v.items())))
