#!/bin/bash
# stop 63: the pass is bound by the ALU pipe (stop 60, n1). Does taking the digit by two
# multiplies (IMAD, IMAD.HI: the FMA pipe) instead of a shift and a mask (SHF, LOP3: the
# ALU pipe) pay? i1: every digit of the pass (count, rank, scatter) as
# umulhi(o * 2^(24-8d), 256); i2: rank and scatter only; hi1: i1 with the hand-written
# histogram h3 (stop 61). Through PATC_XSRC in libpatrt at f6089c5 (sk). A process each,
# interleaved, median us of 21 sorts at 2^28, three rounds.
cd "$(dirname "$0")/../../.."
D=bench/tmp/x61
N=268435456
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
X=$PWD/$D/xv
one() { # VARIANT TYPE INPUT N REPS
  local v=$1; shift
  case $v in
    main) $D/sk --root $PWD "$@" ;;
    hi1) PATC_XSRC="sortHistScan=$X/h3.cu;sortPassB2=$X/i1.cu" $D/sk --root $PWD "$@" ;;
    *) PATC_XSRC="sortPassB2=$X/$v.cu" $D/sk --root $PWD "$@" ;;
  esac 2>&1 | tail -1
}
( cd /tmp && for v in p0 i1; do nvcc -cubin -arch=sm_90 -O3 $X/$v.cu -o $v.cubin && cuobjdump -sass $v.cubin > $OUT/$v.sass; done ) 2>&1 | tail -3
V="main i1 i2 hi1"
for v in $V; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for v in i1 i2; do for c in "f32 uniform 67108865" "f32 few 67108867" "f32 sorted 100000007" "f32 uniform 268435455"; do echo "check $v: $(one $v $c 1)"; done; done
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform" "f32 few"; do
    for v in $V; do echo "$r $v $(one $v $c $N 21)"; done
  done
done 2>&1 | tee $OUT/ab6.txt
