#!/usr/bin/env python3
"""gen.py IN.cu OUT.cu VARIANT: rewrite the scatter loop of a patc-generated filter or
partition (compactTile's walk over a warp's columns: vote, count, store) for timing with
`patc run --cuda`. An experiment (README.md), not a patc feature.

VARIANT  U1, U8, U32: `#pragma unroll N` on the loop (nvcc unrolls it by 4 without one:
         four vote.sync per loop in the PTX); C8: the loop in chunks of 8 columns, each
         chunk's 8 votes (shared-memory read, predicate, ballot) first, then its 8 columns'
         stores, so that no vote waits behind a store."""
import re
import sys

src, dst, var = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(src).read()
m = re.search(r"(?P<ind>[ ]*)for \((?P<it>int|patc_int) (?P<i>i\d+) = 0; (?P=i) < (?P<n>\d+); (?P=i) \+= 1\) \{\n"
              r"(?P<ind2>[ ]*)bool (?P<r>r\d+) = (?P<pred>[^\n]*);\n"
              r"[ ]*unsigned int (?P<v>vote\d+) = __ballot_sync\(0xffffffffu, (?P=r)\);\n", text)
if not m:
    sys.exit("gen.py: no scatter loop found")
ind, ind2, it, i, n = m["ind"], m["ind2"], m["it"], m["i"], int(m["n"])
if var in ("U1", "U8", "U32"):
    k = var[1:]
    pragma = f"{ind}#pragma unroll{'' if k == '32' else ' ' + k}\n"
    text = text[:m.start()] + pragma + text[m.start():]
elif var == "C8":
    if n % 8:
        sys.exit("gen.py: C8 needs a multiple of 8 columns")
    # the chunk loop around the original loop, whose votes come from the chunk's array
    pred = m["pred"].replace(i, "(patc_cb + patc_q)")
    head = (f"{ind}for ({it} patc_cb = 0; patc_cb < {n}; patc_cb += 8) {{\n"
            f"{ind}unsigned int patc_votes[8];\n"
            f"{ind}#pragma unroll\n"
            f"{ind}for (int patc_q = 0; patc_q < 8; patc_q++) patc_votes[patc_q] = __ballot_sync(0xffffffffu, {pred});\n"
            f"{ind}#pragma unroll\n"
            f"{ind}for ({it} patc_q = 0; patc_q < 8; patc_q += 1) {{\n"
            f"{ind2}const {it} {i} = patc_cb + patc_q;\n"
            f"{ind2}unsigned int {m['v']} = patc_votes[patc_q];\n")
    body_start = m.end()
    # the original loop's closing brace: match braces from the loop's opening one
    depth, j = 1, body_start
    while depth:
        c = text[j]
        depth += c == "{"
        depth -= c == "}"
        j += 1
    text = text[:m.start()] + head + text[body_start:j] + "\n" + ind + "}" + text[j:]
else:
    sys.exit("gen.py: VARIANT is U1, U8, U32 or C8")
open(dst, "w").write(text)
