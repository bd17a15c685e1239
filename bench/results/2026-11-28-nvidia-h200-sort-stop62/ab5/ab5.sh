#!/bin/bash
# stop 62: does counting the histogram's padding cost? The padded keys (copies of the
# last key, up to g x tb of them: 1.95 M at 2^28 for g3's 8192-key steps over 264 blocks,
# 0.82 M for h3's 4096) all add to the same four bins. g4: g3 with the keys past n
# skipped where the block's steps are not all whole (no padding counted, no correction);
# h5: h3 whose tail loop skips the keys past n. Through PATC_XSRC in libpatrt at f6089c5
# (sk). A process each, interleaved, median us of 21 sorts at 2^28, three rounds.
cd "$(dirname "$0")/../../.."
D=bench/tmp/x61
N=268435456
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
one() { # VARIANT TYPE INPUT N REPS
  local v=$1; shift
  case $v in
    main) $D/sk --root $PWD "$@" ;;
    *) PATC_XSRC="sortHistScan=$PWD/$D/xv/$v.cu" $D/sk --root $PWD "$@" ;;
  esac 2>&1 | tail -1
}
V="main h3 h5 g3 g4"
for v in $V; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for v in g4 h5; do for c in "f32 uniform 100003" "f32 few 16777219" "f32 sorted 9000001" "f32 uniform 268435455"; do echo "check $v: $(one $v $c 1)"; done; done
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform" "f32 few"; do
    for v in $V; do echo "$r $v $(one $v $c $N 21)"; done
  done
done 2>&1 | tee $OUT/ab5.txt
