#!/usr/bin/env python3
"""vec.py IN.cu OUT.cu N: give a patc look-back kernel's tile load (the first loop that
copies xs into shared memory s1, one scalar per trip) a 16-byte-vector path for full
tiles: thread t copies float4 number t + nt*q, q < ipt/4, which fills s1 in the same
linear order. Partial tiles keep the scalar loop. An experiment (README.md)."""
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"(?P<ind>[ ]*)for \((?:patc_int|int) (?P<i>i\d+) = 0; (?P=i) < (?P<ipt>\d+); (?P=i) \+= 1\) \{\n"
              r"[ ]*s1\[\(t2 \+ (?P<nt>\d+) \* (?P=i)\)\] = [^\n]*xs\[[^\n]*\n"
              r"[ ]*\}\n", text)
if not m: sys.exit("vec.py: no tile load found")
nt, ipt, ind = int(m["nt"]), int(m["ipt"]), m["ind"]
if ipt % 4: sys.exit("vec.py: ipt must be a multiple of 4")
tile = nt * ipt
vec = (f"{ind}if ((long long)b0 * {tile} + {tile} <= {sys.argv[3]}LL) {{\n"
       f"{ind}    #pragma unroll\n"
       f"{ind}    for (int patc_q = 0; patc_q < {ipt // 4}; patc_q++)\n"
       f"{ind}        ((float4 *)s1)[t2 + {nt} * patc_q] = ((const float4 *)xs)[{tile // 4} * b0 + t2 + {nt} * patc_q];\n"
       f"{ind}}} else {{\n" + m.group(0) + f"{ind}}}\n")
text = text[:m.start()] + vec + text[m.end():]
open(sys.argv[2], "w").write(text)
