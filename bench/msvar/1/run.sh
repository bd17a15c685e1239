#!/usr/bin/env bash
# Experiment (issue 35): one multisplit pass (digit 1 of random u32 keys, 256 buckets) timed
# by `patc run --time` in variants of its CUDA text and tile shape. Run on the GPU machine
# from the repository root: bash bench/msvar/1/run.sh OUTDIR [n]
# The .cu files were emitted with -D n=16777216 (patc run --cuda needs the same -D values):
#   A_shared: main at cb192ea (the tile's elements and ranks in shared memory, 75 KB)
#   B_regs:   each thread's elements and ranks in registers (26 KB of shared memory)
#   C_match:  B with the eight ballots per element replaced by one __match_any_sync
#   *_lb4/5:  __launch_bounds__(256, 4 or 5)
# tiles.rise: B's lowering at other tile shapes (threads x items).
set -u
out=$1; n=${2:-16777216}
P=build/cli/patc
mkdir -p "$out"
d=$(mktemp -d)
python3 - "$d" "$n" <<'PY'
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(35)
k = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
k.tofile(d + "/k.bin")
c = np.bincount((k >> 8) & 255, minlength=256).astype(np.uint64)
o = np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.uint32)
o.tofile(d + "/o.bin")
PY
# lb FILE K: FILE with __launch_bounds__(T) made (T, K), written to the run's temp folder
lb() { local o="$d/$(basename "$1" .cu)_lb$2.cu"; sed -E "s/__launch_bounds__\(([0-9]+)\)/__launch_bounds__(\1, $2)/" "$1" >"$o"; echo "$o"; }
t() { # name, args...
  local name=$1; shift
  r=$("$P" run "$@" -D n=$n --input value:1 --input "$d/o.bin" --input "$d/k.bin" --time --repeat 100 2>&1)
  echo "$name: $(echo "$r" | grep -iE 'median|error|fail' | head -3 | tr '\n' ' ')" | tee -a "$out/msvar.txt"
}
for rep in 1 2; do
for v in A_shared B_regs B_regs_lb4 C_match C_match_lb4 C_match_lb5; do
  case $v in *_lb*) f=$(lb bench/msvar/1/${v%_lb*}.cu ${v##*_lb}) ;; *) f=bench/msvar/1/$v.cu ;; esac
  t $v examples/radixsort.rise --kernel rsPassU32 --cuda "$f"
done
for k in p256x8 p512x8 p256x24 p384x16 p512x16 p256x32; do
  t $k bench/msvar/tiles.rise --kernel $k
done
done
# correctness of C_match's change at a smaller n: its text for n = 2^20 against the interpreter
python3 - "$d" 1048583 <<'PY'
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
k = np.random.default_rng(7).integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
k.tofile(d + "/k1.bin")
c = np.bincount((k >> 8) & 255, minlength=256).astype(np.uint64)
np.concatenate([[0], np.cumsum(c)[:-1]]).astype(np.uint32).tofile(d + "/o1.bin")
PY
"$P" run examples/radixsort.rise --kernel rsPassU32 --cuda bench/msvar/1/C_match_n1048583.cu -D n=1048583 \
  --input value:1 --input "$d/o1.bin" --input "$d/k1.bin" --check-against-cpu 2>&1 | tail -2 | tee -a "$out/msvar.txt"
rm -rf "$d"
