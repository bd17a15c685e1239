#!/usr/bin/env bash
# Experiment (issue 35), after bench/msvar/3 (whose early counts were slower and are not
# kept): the pass with each thread's elements in registers and the bit tests written
# b & (1 << i) != 0 (F_*; no faster than B_regs's ((b >> i) & 1) == 1, so not kept),
# keys (u32) at tile shapes 256x16 (examples/radixsort.rise), 384x16, 512x16, 512x8,
# 256x24 and two with tighter __launch_bounds__; pairs (u32 keys, u32 values) at
# 256x16, 384x16, 512x16, 512x8 (bench/msvar/tiles.rise); msvar's B_regs beside them; and
# the new rsScan (a warp a digit) by itself. One pass, digit 1 of 2^24 random u32 keys,
# `patc run --time`, median of 100. Run on the GPU machine from the repository root:
#   bash bench/msvar/4/run.sh OUTDIR
set -u
out=$1; n=16777216
P=build/cli/patc
mkdir -p "$out"
d=$(mktemp -d)
python3 - "$d" "$n" <<'PY'
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(35)
k = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
k.tofile(d + "/k.bin")
rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32).tofile(d + "/v.bin")
c = np.bincount((k >> 8) & 255, minlength=256).astype(np.uint64)
np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.uint32).tofile(d + "/o.bin")
h = np.concatenate([np.bincount((k >> (8 * j)) & 255, minlength=256) for j in range(4)]).astype(np.uint32)
h.tofile(d + "/h.bin")
PY
# lb FILE K: FILE with __launch_bounds__(T) made (T, K), written to the run's temp folder
lb() { local o="$d/$(basename "$1" .cu)_lb$2.cu"; sed -E "s/__launch_bounds__\(([0-9]+)\)/__launch_bounds__(\1, $2)/" "$1" >"$o"; echo "$o"; }
t() { # name, args...
  local name=$1; shift
  r=$("$P" run "$@" --time --repeat 100 2>&1)
  echo "$name: $(echo "$r" | grep -iE 'median|error|fail' | head -3 | tr '\n' ' ')" | tee -a "$out/msvar4.txt"
}
K=(-D n=$n --input value:1 --input "$d/o.bin" --input "$d/k.bin")
for rep in 1 2; do
  t B_regs examples/radixsort.rise --kernel rsPassU32 --cuda bench/msvar/1/B_regs.cu "${K[@]}"
  t F_256x16 examples/radixsort.rise --kernel rsPassU32 --cuda bench/msvar/4/F_256x16.cu "${K[@]}"
  t F_256x16_lb4 examples/radixsort.rise --kernel rsPassU32 --cuda $(lb bench/msvar/4/F_256x16.cu 4) "${K[@]}"
  t F_p384x16_lb3 bench/msvar/tiles.rise --kernel p384x16 --cuda $(lb bench/msvar/4/F_p384x16.cu 3) "${K[@]}"
  for k in p384x16 p512x16 p512x8 p256x24; do t F_$k bench/msvar/tiles.rise --kernel $k --cuda bench/msvar/4/F_$k.cu "${K[@]}"; done
  for k in pp256x16 pp384x16 pp512x16 pp512x8; do
    t F_$k bench/msvar/tiles.rise --kernel $k --cuda bench/msvar/4/F_$k.cu "${K[@]}" --input "$d/v.bin"
  done
  t rsScanAll examples/radixsort.rise --kernel rsScanAll --input "$d/h.bin"
done
"$P" run examples/radixsort.rise --kernel rsScanAll --input "$d/h.bin" --check-against-cpu 2>&1 | tail -1 | tee -a "$out/msvar4.txt"
rm -rf "$d"
