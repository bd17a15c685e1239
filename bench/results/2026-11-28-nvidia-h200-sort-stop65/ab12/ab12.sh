#!/bin/bash
# stop 65: the compiler's 16-byte histogram (branch hist-vec2) with each trip versioned
# (compiler/version.c: a grid-stride trip loop's body gets if (C(trip)) untested else
# tested, so only the last trip is tested; whole-statement versioning had sent every
# block to the tested copy at 2^28). t1 (f32) and tu1 (u32): the texts libpatrt
# generates for sortHistScanV, renamed sortHistScan for the hook; h3: stop 61's
# hand-written histogram. Through PATC_XSRC in libpatrt at f6089c5 (sk). A process each,
# interleaved, median us of 21 sorts at 2^28 (101 at the smaller sizes), three rounds.
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
for v in main h3 t1; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for v in main tu1; do echo "warm $v: $(one $v u32 sorted 1048583 1)"; done
for c in "f32 uniform 8193" "f32 sorted 8195" "f32 few 100003" "f32 uniform 1048583" "f32 sorted 16777219" "f32 uniform 268435455"; do echo "check t1: $(one t1 $c 1)"; done 2>&1 | tee $OUT/checks.txt
for c in "u32 uniform 8193" "u32 few 100003" "u32 sorted 16777219" "u32 uniform 268435453"; do echo "check tu1: $(one tu1 $c 1)"; done 2>&1 | tee -a $OUT/checks.txt
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform" "f32 few"; do
    for v in main h3 t1; do echo "$r $v $(one $v $c $N 21)"; done
  done
  for c in "u32 sorted" "u32 uniform"; do
    for v in main tu1; do echo "$r $v $(one $v $c $N 21)"; done
  done
done 2>&1 | tee $OUT/ab12.txt
for r in 1 2; do
  for c in "f32 uniform 65536" "f32 uniform 1048583" "f32 sorted 16777219" "u32 uniform 16777219"; do
    for v in main t1; do
      w=$v; case "$c" in u32*) [ $v = t1 ] && w=tu1;; esac
      echo "$r $w $(one $w $c 101)"
    done
  done
done 2>&1 | tee $OUT/ab12s.txt
