#!/usr/bin/env python3
# summary.py LOG: the last launch's per-block phases from instr.py's TL lines
import sys, statistics as st
rows = [l.split()[1:] for l in open(sys.argv[1]) if l.startswith('TL ')]
last = max(int(r[0]) for r in rows)
rows = [list(map(int, r)) for r in rows if int(r[0]) == last]
g0 = min(r[3] for r in rows)
def q(xs):
    xs = sorted(xs); n = len(xs)
    return f"med {xs[n//2]:7.0f} p90 {xs[int(n*0.9)]:7.0f} max {xs[-1]:7.0f}"
ph = {'draw': [], 'load': [], 'count': [], 'lookback': [], 'scatter': [], 'start': [], 'end': []}
for e, b, sm, a, z, t1, t2, t3, t4, t5 in rows:
    ns = (z - a) / t5 if t5 else 0  # ns per cycle
    ph['draw'].append(t1 * ns); ph['load'].append((t2 - t1) * ns); ph['count'].append((t3 - t2) * ns)
    ph['lookback'].append((t4 - t3) * ns); ph['scatter'].append((t5 - t4) * ns)
    ph['start'].append(a - g0); ph['end'].append(z - g0)
print(f"{sys.argv[1]}: {len(rows)} blocks, span {max(ph['end']):.0f} ns (first start to last end)")
for k, v in ph.items():
    print(f"  {k:9s} ns {q(v)}")
