#!/usr/bin/env bash
# Experiment (issue 35), after bench/msvar/1: the multisplit pass with its look-back loading
# a window of W tile words at once (prims/split.c MS_WIN), W = 4 and 8, at tile shapes
# 256x16 (examples/radixsort.rise rsPassU32), 384x16, 512x16, 256x24 (bench/msvar/tiles.rise),
# and two with tighter __launch_bounds__ (*_lb3, *_lb5). One pass, digit 1 of 2^24 random
# u32 keys, `patc run --time`, median of 100. Run on the GPU machine from the repository
# root: bash bench/msvar/2/run.sh OUTDIR
set -u
out=$1; n=16777216
P=build/cli/patc
mkdir -p "$out"
d=$(mktemp -d)
python3 - "$d" "$n" <<'PY'
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
k = np.random.default_rng(35).integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
k.tofile(d + "/k.bin")
c = np.bincount((k >> 8) & 255, minlength=256).astype(np.uint64)
np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.uint32).tofile(d + "/o.bin")
PY
# lb FILE K: FILE with __launch_bounds__(T) made (T, K), written to the run's temp folder
lb() { local o="$d/$(basename "$1" .cu)_lb$2.cu"; sed -E "s/__launch_bounds__\(([0-9]+)\)/__launch_bounds__(\1, $2)/" "$1" >"$o"; echo "$o"; }
t() { # name, args...
  local name=$1; shift
  r=$("$P" run "$@" -D n=$n --input value:1 --input "$d/o.bin" --input "$d/k.bin" --time --repeat 100 2>&1)
  echo "$name: $(echo "$r" | grep -iE 'median|error|fail' | head -3 | tr '\n' ' ')" | tee -a "$out/msvar2.txt"
}
for rep in 1 2; do
  t B_regs examples/radixsort.rise --kernel rsPassU32 --cuda bench/msvar/1/B_regs.cu
  for W in 4 8; do
    t W${W}_256x16 examples/radixsort.rise --kernel rsPassU32 --cuda bench/msvar/2/W${W}_256x16.cu
    for k in p384x16 p512x16 p256x24; do t W${W}_$k bench/msvar/tiles.rise --kernel $k --cuda bench/msvar/2/W${W}_$k.cu; done
  done
  t W4_256x16_lb5 examples/radixsort.rise --kernel rsPassU32 --cuda $(lb bench/msvar/2/W4_256x16.cu 5)
  t W4_p384x16_lb3 bench/msvar/tiles.rise --kernel p384x16 --cuda $(lb bench/msvar/2/W4_p384x16.cu 3)
done
rm -rf "$d"
