#!/bin/bash
# stop 61 A/B: libpatrt at f6089c5 (sk_old: the histogram key by key) against the tree
# with sortHistScanV (sk_new), a process each, interleaved, 2^28 keys, median of 21 sorts
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
N=268435456
for v in old new; do bench/tmp/sk_$v --root $PWD f32 sorted 1048583 1 | sed "s/^/warm $v: /"; done
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform" "u32 uniform"; do
    for v in old new; do echo "$r $v $(timeout 40 bench/tmp/sk_$v --root $PWD $c $N 21 2>/dev/null | tail -1)"; done
  done
done 2>&1 | tee $OUT/ab.txt
