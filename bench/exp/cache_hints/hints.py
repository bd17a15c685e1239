#!/usr/bin/env python3
"""hints.py VARIANT IN.cu OUT.cu: give a patc look-back kernel's global loads of its
input xs and stores of its outputs cache hints. An experiment (README.md).
  base     unchanged
  ldcs     loads of xs with __ldcs (ld.global.cs: evict first)
  stcs     stores to out/out1 with __stcs (st.global.cs)
  cs       both
  pf       loads of xs as ld.global.nc.L2::256B (L2 fetches 256 bytes)
  pfstcs   pf and stcs"""
import re, sys
variant, src, dst = sys.argv[1:4]
text = open(src).read()
helpers = r'''
static __device__ __forceinline__ float patc_pf(const float *p) { float v; asm("ld.global.nc.L2::256B.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v; }
static __device__ __forceinline__ float4 patc_pf(const float4 *p) { float4 v; asm("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p)); return v; }
'''
ld = {"ldcs": "__ldcs", "cs": "__ldcs", "pf": "patc_pf", "pfstcs": "patc_pf"}.get(variant)
st = variant in ("stcs", "cs", "pfstcs")
if variant not in ("base", "ldcs", "stcs", "cs", "pf", "pfstcs"): sys.exit("hints.py: unknown variant")
n_ld = n_st = 0
if ld:
    # float4 tile loads, then scalar ones (index expressions hold no brackets)
    text, k1 = re.subn(r"\*\(const float4 \*\)\((xs \+ \([^()]*\))\)", rf"{ld}((const float4 *)(\1))", text)
    text, k2 = re.subn(r"(?<![&\w])xs\[([^\[\]]*)\]", rf"{ld}(xs + (\1))", text)
    n_ld = k1 + k2
if st:
    text, n_st = re.subn(r"(?<![\w])(out1?)\[([^\[\]]*)\] = ([^;]*);", r"__stcs(\1 + (\2), \3);", text)
if ld == "patc_pf":
    text = text.replace('extern "C" __global__', helpers + 'extern "C" __global__', 1)
if (ld and not n_ld) or (st and not n_st): sys.exit(f"hints.py: nothing to change ({n_ld} loads, {n_st} stores)")
open(dst, "w").write(text)
print(f"hints.py {variant}: {n_ld} loads, {n_st} stores", file=sys.stderr)
