#!/bin/bash
# stop 64: the look-back poll's sleep between polls: none (n0), 8 ns (n8), 128 ns (n128); main 32.
cd "$(dirname "$0")/../../.."
D=bench/tmp/x61
N=268435456
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
X=$PWD/$D/xv
one() { # VARIANT TYPE INPUT N REPS
  local v=$1; shift
  case $v in
    main) timeout 90 $D/sk --root $PWD "$@" ;;
    h3) PATC_XSRC="sortHistScan=$X/h3.cu" timeout 90 $D/sk --root $PWD "$@" ;;
    *) PATC_XSRC="sortPassB2=$X/$v.cu" timeout 90 $D/sk --root $PWD "$@" ;;
  esac 2>&1 | tail -1
}

V="main n0 n8 n128"
for v in $V; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for c in "f32 uniform 67108865" "f32 sorted 268435455"; do echo "check n0: $(one n0 $c 1)"; done
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform" "f32 few"; do
    for v in $V; do echo "$r $v $(one $v $c $N 21)"; done
  done
done 2>&1 | tee $OUT/ab11.txt
