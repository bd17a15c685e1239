#!/usr/bin/env python3
"""Rewrite the look-back of a patc-generated single-pass kernel (packed 32-bit state,
one value, the operator +) into a variant, for timing with `patc run --cuda`:

  gen.py IN.cu OUT.cu W EARLY

W      tiles read per lane and window step: the window is 32*W tiles (W = 1 is patc's).
EARLY  1: stop waiting once every tile newer than the nearest inclusive prefix (flag P)
       has published, instead of waiting for the whole window (0: patc's rule).

A lane reads W consecutive tiles (its newest first), folds them from the newest P among
them (or from the oldest) into one value, and counts as P when one of them was; the
lanes are then combined as patc does. Not a patc feature: an experiment (README.md)."""
import re
import sys

src, dst, w, early = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
text = open(src).read()

pat = re.compile(
    r"(?P<ind>[ ]*)const long long patc_j = patc_end - patc_ln;\n"
    r"[ ]*unsigned int patc_st;\n"
    r"[ ]*(?P<ct>[a-z ]+) patc_v0;\n"
    r"[ ]*for \(;;\) \{\n"
    r"[ ]*const unsigned long long patc_sw = patc_j >= 0 \? patc_peek\(&(?P<st>\w+)\[patc_j\]\) : 0ull;\n"
    r"[ ]*const unsigned int patc_hi = \(unsigned int\)\(patc_sw >> 32\);\n"
    r"[ ]*patc_v0 = (?P<conv>[^;]+);\n"
    r"[ ]*patc_st = [^\n]*\n"
    r"[ ]*if \(__all_sync\(0xffffffffu, patc_st != 0u\)\) break;\n"
    r"[ ]*__nanosleep\(32\);\n"
    r"[ ]*\}\n")
m = pat.search(text)
if not m:
    sys.exit("gen.py: no packed look-back window found")
ind, ct, st, conv = m["ind"], m["ct"], m["st"], m["conv"]
conv_r = conv.replace("patc_sw", "patc_sws[patc_r]")

lines = [
    f"const long long patc_j = patc_end - {w}ll * patc_ln;",
    "unsigned int patc_st;",
    f"{ct} patc_v0;",
    f"unsigned long long patc_sws[{w}];",
    "for (;;) {",
    "    /* per lane: 0 a tile not yet published before any P, 1 all published without a P, 2 a P */",
    "    unsigned int patc_ls = 1u;",
    "    #pragma unroll",
    f"    for (int patc_r = 0; patc_r < {w}; patc_r++) {{",
    "        const long long patc_jr = patc_j - patc_r;",
    f"        patc_sws[patc_r] = patc_jr >= 0 ? patc_peek(&{st}[patc_jr]) : 0ull;",
    "        const unsigned int patc_hr = (unsigned int)(patc_sws[patc_r] >> 32);",
    "        const unsigned int patc_s = patc_jr < 0 ? 2u : (patc_hr >> 2) == patc_epoch ? (patc_hr & 3u) : 0u;",
    "        if (patc_ls == 1u && patc_s != 1u) patc_ls = patc_s;",
    "    }",
]
if early:
    lines += [
        "    const unsigned int patc_xm = __ballot_sync(0xffffffffu, patc_ls == 0u);",
        "    const unsigned int patc_p1 = __ballot_sync(0xffffffffu, patc_ls == 2u);",
        "    if (!patc_xm || (patc_p1 && __ffs(patc_p1) < __ffs(patc_xm))) { patc_st = patc_ls; break; }",
    ]
else:
    lines += [
        "    if (__all_sync(0xffffffffu, patc_ls != 0u)) { patc_st = patc_ls; break; }",
    ]
lines += [
    "    __nanosleep(32);",
    "}",
    "/* fold the lane's tiles from its newest P (or its oldest) to its newest */",
    "{",
    "    int patc_r0 = " + str(w - 1) + ";",
    f"    for (int patc_r = 0; patc_r < {w}; patc_r++) {{",
    "        const unsigned int patc_hr = (unsigned int)(patc_sws[patc_r] >> 32);",
    "        if (patc_j - patc_r < 0 || (patc_hr & 3u) == 2u) { patc_r0 = patc_r; break; }",
    "    }",
    f"    patc_v0 = ({ct})0;",
    "    for (int patc_r = patc_r0; patc_r >= 0; patc_r--) {",
    f"        const {ct} patc_x = patc_j - patc_r < 0 ? ({ct})0 : {conv_r};",
    "        patc_v0 = patc_x + patc_v0;",
    "    }",
    "}",
]
rep = "".join(ind + l + "\n" for l in lines)
text = text[:m.start()] + rep + text[m.end():]
text, k = re.subn(r"patc_end -= 32;", f"patc_end -= {32 * w};", text)
if k != 1:
    sys.exit("gen.py: no window step found")
open(dst, "w").write(text)
