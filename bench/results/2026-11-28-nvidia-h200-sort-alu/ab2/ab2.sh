#!/bin/bash
cd "$(dirname "$0")/../../.."
export PATC_CACHE_DIR=/tmp/pc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
X=bench/tmp/x XV=$PWD/bench/tmp/xv
one() { echo "$1 $(env $6 $X/$2 --root $PWD $3 $4 $5 21 2>/dev/null | tail -1)"; }
{
for r in 1 2; do
for n in 268435456 67108864; do
  one old sk_old f32+u32 uniform $n
  one new sk_new f32+u32 uniform $n
  for v in p_nounroll p_oldmatch; do one $v sk_new f32+u32 uniform $n PATC_XSRC=sortPassB2=$XV/$v.cu; done
done
for n in 16777219 8388617; do
  one old sk_old f32 uniform $n
  one new sk_new f32 uniform $n
  for v in f_nounroll f_oldmatch; do one $v sk_new f32 uniform $n PATC_XSRC=sortPassB1=$XV/$v.cu; done
done
done
} 2>&1 | tee $OUT/ab2.txt
