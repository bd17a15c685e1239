#!/bin/bash
# stop 62: the histogram as branch hist-vec2's compiler makes it (g: two 16-byte loads a
# step, each loaded where it is counted; g3: the step's two vectors loaded into registers
# first, toPrivate, then counted; gu3: g3's u32 keys), the hand-written h3 and main, through
# PATC_XSRC in libpatrt at f6089c5 (sk). A process each, interleaved, median us of 21 sorts at 2^28.
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
V="main h3 g g3"
for v in $V; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for v in main gu3; do echo "warm $v: $(one $v u32 sorted 1048583 1)"; done
for c in "f32 uniform 100003" "f32 few 16777219" "f32 sorted 9000001"; do echo "check g3: $(one g3 $c 1)"; done
for c in "u32 uniform 100003" "u32 few 16777219"; do echo "check gu3: $(one gu3 $c 1)"; done
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform" "f32 few"; do
    for v in $V; do echo "$r $v $(one $v $c $N 21)"; done
  done
  for c in "u32 sorted" "u32 uniform"; do
    for v in main gu3; do echo "$r $v $(one $v $c $N 21)"; done
  done
done 2>&1 | tee $OUT/ab4.txt
