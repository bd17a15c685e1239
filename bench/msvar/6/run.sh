#!/usr/bin/env bash
# Experiment (issue 35), after bench/msvar/5 (the f32 order function costs a pass 17%): at
# 384x16, H_* is the pass as it is (ms_scatter applies the bucket function again),
# H_rsPassF32b has a cheaper f32 order function (ord.rise), and G (PATC_G: a patc built
# with prims/split.c keeping each element's bucket in a shared u32 array beside it, mssbk,
# stored by ms_order and read by ms_scatter: +24 KB a block) is timed against patc itself.
# (G's texts run with --cuda by patc failed, CUDA_ERROR_ILLEGAL_ADDRESS: the runtime launches
# an edited text with the shared memory of its own kernel's description, 24 KB short.) One pass, digit 1 of 2^24
# random words, `patc run --time`, median of 100.
#   bash bench/msvar/6/run.sh OUTDIR       (on the GPU machine, from the repository root)
set -u
out=$1; n=16777216
P=build/cli/patc
mkdir -p "$out"
d=$(mktemp -d)
python3 - "$d" "$n" <<'PY'
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
u = np.random.default_rng(6).integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
u.tofile(d + "/u.bin")
y = u.astype(np.uint64)
o = np.where(y == 0x80000000, 0x80000000, np.where(y & 0x80000000, (~y) & 0xffffffff, y ^ 0x80000000)).astype(np.uint32)
for name, k in (("ou.bin", u), ("of.bin", o)):
    c = np.bincount((k >> 8) & 255, minlength=256).astype(np.uint64)
    np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.uint32).tofile(d + "/" + name)
PY
t() { # name, file, kernel, cuda, offsets
  r=$("$P" run "$2" --kernel "$3" --cuda "$4" -D n=$n --input value:1 --input "$d/$5" --input "$d/u.bin" --time --repeat 100 2>&1)
  echo "$1: $(echo "$r" | grep -iE 'median|error|fail' | head -3 | tr '\n' ' ')" | tee -a "$out/msvar6.txt"
}
for rep in 1 2 3; do
  for v in H; do
    t "${v}_rsPassU32" examples/radixsort.rise rsPassU32 bench/msvar/6/${v}_rsPassU32.cu ou.bin
    t "${v}_rsPassF32" examples/radixsort.rise rsPassF32 bench/msvar/6/${v}_rsPassF32.cu of.bin
  done
  t H_rsPassF32b bench/msvar/6/ord.rise rsPassF32b bench/msvar/6/H_rsPassF32b.cu of.bin
done
# the cheaper order function against the interpreter, at a ragged n with special values
python3 -c "
import numpy as np
v = np.array([0x80000000, 0, 0x7f800000, 0xff800000, 0x7fc00001, 0xffc00001, 0xbf800000, 1, 0x80000001], np.uint32)
np.concatenate([v, np.random.default_rng(7).integers(0, 2**32, size=4088, dtype=np.uint64).astype(np.uint32)]).tofile('$d/s.bin')
k = np.fromfile('$d/s.bin', np.uint32).astype(np.uint64)
o = np.where(k == 0x80000000, 0x80000000, np.where(k & 0x80000000, (~k) & 0xffffffff, k ^ 0x80000000)).astype(np.uint32)
c = np.bincount((o >> 24) & 255, minlength=256).astype(np.uint64)
np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.uint32).tofile('$d/os.bin')"
"$P" run bench/msvar/6/ord.rise --kernel rsPassF32b -D n=4097 --input value:3 --input "$d/os.bin" --input "$d/s.bin" \
  --check-against-cpu 2>&1 | tail -1 | tee -a "$out/msvar6.txt"
rm -rf "$d"
# G, by a patc built with G's lowering (PATC_G=path: its texts and its launch agree)
if [ -n "${PATC_G:-}" ]; then
  d=$(mktemp -d)
  python3 - "$d" "$n" <<'PY'
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
u = np.random.default_rng(6).integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
u.tofile(d + "/u.bin")
y = u.astype(np.uint64)
o = np.where(y == 0x80000000, 0x80000000, np.where(y & 0x80000000, (~y) & 0xffffffff, y ^ 0x80000000)).astype(np.uint32)
for name, k in (("ou.bin", u), ("of.bin", o)):
    c = np.bincount((k >> 8) & 255, minlength=256).astype(np.uint64)
    np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.uint32).tofile(d + "/" + name)
PY
  for rep in 1 2 3; do
    for k in U32:ou F32:of; do
      for p in "$P" "$PATC_G"; do
        r=$("$p" run examples/radixsort.rise --kernel rsPass${k%:*} -D n=$n --input value:1 --input "$d/${k#*:}.bin" --input "$d/u.bin" --time --repeat 100 2>&1)
        echo "$(basename "$p") rsPass${k%:*}: $(echo "$r" | grep -iE 'median|error|fail' | head -3 | tr '\n' ' ')" | tee -a "$out/msvar6.txt"
      done
    done
  done
  rm -rf "$d"
fi
