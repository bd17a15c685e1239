#!/usr/bin/env python3
"""Rewrite a patc-generated device scan (inclSum*/exclSum* of examples/scan_device.rise,
packed look-back state) so that the tile's total is published (flag A, or P for tile 0)
right after the tile's load, from a sum each thread keeps of the elements it loads
(README.md). The generated kernel publishes it after the per-warp row scans, a second
barrier and the warps' totals. Only for a commutative operator: the loads are strided,
so the sum is in another order than the tile's. Not a patc feature: an experiment.

  gen.py IN.cu OUT.cu"""
import re
import sys

src, dst = sys.argv[1], sys.argv[2]
t = open(src).read()

m = re.search(r"\n    (\w+) \*s1 = \(\w+ \*\)\(patc_smem \+ 0\);", t)
if not m:
    sys.exit("gen.py: no tile buffer s1")
ty = m.group(1)
nt = int(re.search(r"__launch_bounds__\((\d+)", t).group(1))
nw = nt // 32

# 1. each load into the tile also adds to patc_ra (both versions: full tile and last tile)
load = re.compile(r"\n(?P<ind>[ ]*)s1\[\((?P<idx>t2 \+ \d+ \* i3)\)\] = (?P<e>[^\n]+);\n")
def add(mm):
    i = mm["ind"]
    return (f"\n{i}{{ const {ty} patc_v = {mm['e']}; s1[({mm['idx']})] = patc_v; patc_ra = patc_ra + patc_v; }}\n")
t, k = load.subn(add, t)
if k != 2:
    sys.exit(f"gen.py: {k} tile loads, want 2")
t = t.replace("const patc_int b0 = (unsigned int)patc_draw;\n",
              f"const patc_int b0 = (unsigned int)patc_draw;\n        {ty} patc_ra = 0;\n", 1)
t = t.replace("__shared__ unsigned long long patc_draw;",
              f"__shared__ unsigned long long patc_draw;\n    __shared__ {ty} patc_wa[{nw}];", 1)

# 2. the look-back's two publications of the total (A, and P for tile 0) move to after the load
look = t.index("/* look-back: warp 0 */")
pa = re.compile(r"\n[ ]*patc_poke\(&(?P<st>\w+)\[b0\], \(\(unsigned long long\)\(\(patc_epoch << 2\) \| (?P<f>[12])u\) << 32\) \| (?P<v>[^\n]*\((?P<agg>acc\d+)\)[^\n]*)\);\n")
found = [mm for mm in pa.finditer(t, look) if mm["agg"]][:2]
if len(found) != 2 or {mm["f"] for mm in found} != {"1", "2"}:
    sys.exit("gen.py: the look-back's publications of the total are not where expected")
st, agg = found[0]["st"], found[0]["agg"]
val = found[0]["v"].replace(agg, "patc_agg")
for mm in reversed(found):
    t = t[:mm.start()] + "\n" + t[mm.end():]

# 3. after the tile's barrier: the warps' sums, then thread 0 publishes
first_sync = t.index("__syncthreads();", t.index("patc_ra = patc_ra + patc_v"))
pre = (f"for (int patc_d = 16; patc_d > 0; patc_d >>= 1) patc_ra = patc_ra + __shfl_xor_sync(0xffffffffu, patc_ra, patc_d);\n"
       f"        if (lane == 0) patc_wa[warp] = patc_ra;\n        ")
post = ("__syncthreads();\n"
        f"        if (threadIdx.x == 0u) {{ {ty} patc_agg = 0; for (int patc_q = 0; patc_q < {nw}; patc_q++) patc_agg = patc_agg + patc_wa[patc_q];\n"
        f"            patc_poke(&{st}[b0], ((unsigned long long)((patc_epoch << 2) | (b0 == 0 ? 2u : 1u)) << 32) | {val}); }}")
t = t[:first_sync] + pre + post + t[first_sync + len("__syncthreads();"):]
open(dst, "w").write(t)
