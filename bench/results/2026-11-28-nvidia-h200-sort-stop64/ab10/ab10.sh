#!/bin/bash
# stop 64: the pass's count in two copies (lanes 0-15 and 16-31, copy 1 sixteen banks over),
# u16 counts in words a warp pair shares; the rank reads u32 counts as before (the scan
# rebuilds them). Sorted input puts a warp's 32 atomics on one address; halving that.
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
    ch) PATC_XSRC="sortHistScan=$X/h3.cu;sortPassB2=$X/c2.cu" timeout 90 $D/sk --root $PWD "$@" ;;
    *) PATC_XSRC="sortPassB2=$X/$v.cu" timeout 90 $D/sk --root $PWD "$@" ;;
  esac 2>&1 | tail -1
}
( cd /tmp && for v in c2; do nvcc -cubin -arch=sm_90 -O3 $X/$v.cu -o $v.cubin && cuobjdump -sass $v.cubin > $OUT/$v.sass; done ) 2>&1 | grep -v Remark | tail -3
V="main c2 h3 ch"
for v in $V; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for c in "f32 uniform 67108865" "f32 few 100000007" "f32 sorted 268435455" "f32 sorted 67108867"; do echo "check c2: $(one c2 $c 1)"; done
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform" "f32 few"; do
    for v in $V; do echo "$r $v $(one $v $c $N 21)"; done
  done
done 2>&1 | tee $OUT/ab10.txt
