#!/usr/bin/env python3
"""Rewrite the look-back of a patc-generated single-pass kernel (scan, filter or
partition) into a variant that does not wait, for timing against the kernel as
generated (README.md). Not a patc feature: an experiment.

  gen.py VARIANT IN.cu OUT.cu

VARIANT
  nowait  warp 0 publishes the tile's aggregate and its inclusive value as generated, but
          reads no predecessor: the look-back window starts before tile 0, so the loop
          ends at its first test. The tile's exclusive prefix is an estimate (below).
  nolb    no look-back at all: warp 0 neither publishes nor reads; the prefix is the
          same estimate.
  stats   the look-back as generated, instrumented (a scan only): lane 0 of warp 0 writes
          8 words per tile to out[n + 8 * tile ..]: the poll rounds that found a tile not
          yet published, the window steps back, and %globaltimer's low 32 bits at the
          block's start, after the tile's count (look-back start), at the look-back's end
          and at the block's end. The output buffer must hold n + 8 * tiles elements.

The estimate: for a scan (a float value) the neutral element (the output values are wrong,
their addresses right); for a filter or partition (an unsigned count) b0 * c, with c the
tile's own count, so that the tiles' stores go to about where they would go (0 <= b0 * c
and b0 * c + c <= n, so in bounds) rather than all to the start of the output."""
import re
import sys

variant, src, dst = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(src).read()

start = text.find("if ((threadIdx.x) >> 5 == 0u) { /* look-back: warp 0 */")
if start < 0:
    sys.exit("gen.py: no look-back block in " + src)
# the block's extent, by brace matching from its opening brace
i = text.index("{", start)
depth = 0
for j in range(i, len(text)):
    if text[j] == "{":
        depth += 1
    elif text[j] == "}":
        depth -= 1
        if depth == 0:
            end = j + 1
            break
block = text[start:end]

agg = re.search(r"\| 1u\) << 32\) \| (?:__float_as_uint)?\((\w+)\)\);", block)
ex = re.search(r"\n([ ]*)(\w[\w ]*?) patc_ex0 = ([^;]+);", block)
out = re.search(r"if \(patc_ln == 0\) (\w+)\[0\] = patc_ex0;", block)
if not (agg and ex and out):
    sys.exit("gen.py: the look-back block is not the shape this script knows")
ctype = ex.group(2)
est = "patc_ex0" if "float" in ctype or "double" in ctype else f"({ctype})b0 * {agg.group(1)}"

if variant == "nowait":
    new = block.replace("const long long patc_j = patc_end - patc_ln;",
                        "const long long patc_j = -1ll - patc_ln; /* ceiling/gen.py nowait */", 1)
    new = new.replace(out.group(0), f"if (patc_ln == 0) {out.group(1)}[0] = {est};", 1)
    if new.count("ceiling/gen.py nowait") != 1:
        sys.exit("gen.py: no look-back window start found")
elif variant == "nolb":
    new = ("if ((threadIdx.x) >> 5 == 0u) { /* ceiling/gen.py nolb: no look-back */\n"
           f"            {ctype} patc_ex0 = {ex.group(3)};\n"
           f"            if (threadIdx.x == 0u) {out.group(1)}[0] = {est};\n"
           "        }")
elif variant == "stats":
    if "float *__restrict__ out," not in text or "patc_int n)" not in text:
        sys.exit("gen.py: stats needs a scan kernel (out, .., n)")
    gt = "patc_gt()"
    new = block.replace("long long patc_end = (long long)b0 - 1;",
                        "long long patc_end = (long long)b0 - 1; unsigned patc_np = 0, patc_ns = 0;", 1)
    new = new.replace("__nanosleep(32);", "patc_np++; __nanosleep(32);", 1)
    new = new.replace("patc_end -= 32;", "patc_end -= 32; patc_ns++;", 1)
    new = new.replace(out.group(0), out.group(0) + "\n            if (patc_ln == 0) { unsigned *patc_sx = (unsigned *)(out + n) + 8 * b0; "
                      "patc_sx[0] = patc_np; patc_sx[1] = patc_ns; patc_sx[2] = patc_t_start; patc_sx[3] = patc_t_lb; "
                      f"patc_sx[4] = (unsigned){gt}; }}", 1)
    new = new.replace("const int patc_ln = (int)(threadIdx.x);",
                      f"const int patc_ln = (int)(threadIdx.x); const unsigned patc_t_lb = (unsigned){gt}; unsigned patc_np = 0, patc_ns = 0;", 1)
    new = new.replace("long long patc_end = (long long)b0 - 1; unsigned patc_np = 0, patc_ns = 0;", "long long patc_end = (long long)b0 - 1;", 1)
    helper = ("static __device__ __forceinline__ unsigned long long patc_gt() { unsigned long long t; "
              "asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; }\n")
    k = text.index('extern "C" __global__')
    pre = text[:k] + helper + text[k:start]
    pre = pre.replace("__shared__ unsigned long long patc_draw;",
                      "__shared__ unsigned long long patc_draw; const unsigned patc_t_start = (unsigned)patc_gt();", 1)
    # the block's end: before the kernel body's last two closing braces
    post = text[end:]
    e = post.rstrip().rfind("}")
    e = post.rstrip()[:e].rstrip().rfind("}")
    post = post[:e] + "if (threadIdx.x == 0u) ((unsigned *)(out + n))[8 * b0 + 5] = (unsigned)patc_gt();\n    " + post[e:]
    open(dst, "w").write(pre + new + post)
    sys.exit(0)
else:
    sys.exit("gen.py: VARIANT is nowait, nolb or stats")
open(dst, "w").write(text[:start] + new + text[end:])
