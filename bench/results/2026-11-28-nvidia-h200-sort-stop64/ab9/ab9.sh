#!/bin/bash
# stop 64: rank with the group's last lane alone reading and advancing the warp's count of
# the digit, its value broadcast by a shuffle (one __syncwarp a round instead of two, one
# LDS a group instead of one a key). l1: that pass; lh: l1 with stop 61's histogram h3.
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
    lh) PATC_XSRC="sortHistScan=$X/h3.cu;sortPassB2=$X/l1.cu" timeout 90 $D/sk --root $PWD "$@" ;;
    *) PATC_XSRC="sortPassB2=$X/$v.cu" timeout 90 $D/sk --root $PWD "$@" ;;
  esac 2>&1 | tail -1
}
( cd /tmp && for v in l1; do nvcc -cubin -arch=sm_90 -O3 $X/$v.cu -o $v.cubin && cuobjdump -sass $v.cubin > $OUT/$v.sass; done ) 2>&1 | grep -v Remark | tail -3
V="main l1 h3 lh"
for v in $V; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for c in "f32 uniform 67108865" "f32 few 100000007" "f32 sorted 268435455"; do echo "check l1: $(one l1 $c 1)"; done
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform" "f32 few"; do
    for v in $V; do echo "$r $v $(one $v $c $N 21)"; done
  done
done 2>&1 | tee $OUT/ab9.txt
