#!/bin/bash
# stop 64: rank's match by votes only on the digit bits that differ across the warp's 32
# keys (redux.or ^ redux.and). r1: loop over those bits, the eight unrolled votes where all
# differ; r2: the loop always; r3: eight unrolled votes each under a warp-uniform test.
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
    *) PATC_XSRC="sortPassB2=$X/$v.cu" timeout 90 $D/sk --root $PWD "$@" ;;
  esac 2>&1 | tail -1
}
( cd /tmp && for v in r1 r2 r3; do nvcc -cubin -arch=sm_90 -O3 $X/$v.cu -o $v.cubin && cuobjdump -sass $v.cubin > $OUT/$v.sass; done ) 2>&1 | grep -v Remark | tail -3
V="main r1 r2 r3"
for v in $V; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for v in r1 r3; do for c in "f32 uniform 67108865" "f32 few 100000007" "f32 sorted 268435455"; do echo "check $v: $(one $v $c 1)"; done; done
for r in 1 2; do
  for c in "f32 sorted" "f32 uniform" "f32 few"; do
    for v in $V; do echo "$r $v $(one $v $c $N 21)"; done
  done
done 2>&1 | tee $OUT/ab8.txt
