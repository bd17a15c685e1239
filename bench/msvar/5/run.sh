#!/usr/bin/env bash
# Experiment (issue 35): why f32 keys sort slower than u32 (bench/results/2026-11-26-nvidia-h100-sort-384x16:
# 2^24 f32 644 us, u32 552). One pass (384x16, examples/radixsort.rise) by `patc run --time`, median
# of 100: rsPassU32 and rsPassF32 on the same random words (the order function's cost), and
# rsPassF32 on f32 keys uniform in [0, 1) at digits 0..3 (the skew of the high digits).
#   bash bench/msvar/5/run.sh OUTDIR       (on the GPU machine, from the repository root)
set -u
out=$1; n=16777216
P=build/cli/patc
mkdir -p "$out"
d=$(mktemp -d)
python3 - "$d" "$n" <<'PY'
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
r = np.random.default_rng(5)
u = r.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
f = r.random(n, dtype=np.float32).view(np.uint32)
def ordf(y):
    y = y.astype(np.uint64)
    o = np.where(y == 0x80000000, 0x80000000, np.where(y & 0x80000000, (~y) & 0xffffffff, y ^ 0x80000000))
    return o.astype(np.uint32)
def offs(o, dg, name):
    c = np.bincount((o >> (8 * dg)) & 255, minlength=256).astype(np.uint64)
    np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.uint32).tofile(d + "/" + name)
u.tofile(d + "/u.bin"); f.tofile(d + "/f.bin")
offs(u, 1, "ou1.bin"); offs(ordf(u), 1, "ouf1.bin")
for dg in range(4): offs(ordf(f), dg, "of%d.bin" % dg)
PY
t() { # name, kernel, digit, offsets, keys
  r=$("$P" run examples/radixsort.rise --kernel "$2" -D n=$n --input value:$3 --input "$d/$4" --input "$d/$5" --time --repeat 100 2>&1)
  echo "$1: $(echo "$r" | grep -iE 'median|error|fail' | head -3 | tr '\n' ' ')" | tee -a "$out/msvar5.txt"
}
for rep in 1 2; do
  t "u32 words, rsPassU32, digit 1" rsPassU32 1 ou1.bin u.bin
  t "u32 words, rsPassF32, digit 1" rsPassF32 1 ouf1.bin u.bin
  for dg in 0 1 2 3; do t "f32 [0,1), rsPassF32, digit $dg" rsPassF32 $dg of$dg.bin f.bin; done
done
rm -rf "$d"
