#!/bin/bash
# EXPERIMENT: variants of f32 keys' sortPassB2 (512x24) by PATC_XSRC
cd "$(dirname "$0")/../../.."
X=$PWD/bench/tmp/xv
SK=bench/tmp/x/sk
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
# warm compile of every variant
for v in v0 v1 v2 v3 v4; do PATC_XSRC="sortPassB2=$X/$v.cu" $SK --root $PWD f32 uniform 67108864 1 2>&1 | tail -1; done
for n in 268435456 67108864; do
 for inp in uniform few; do
  for r in 1 2; do
   for v in base v0 v1 v2 v3 v4; do
    if [ $v = base ]; then x=; else x="sortPassB2=$X/$v.cu"; fi
    echo "$v $(PATC_XSRC=$x $SK --root $PWD f32 $inp $n 21 2>/dev/null | tail -1)"
   done
  done
 done
done 2>&1 | tee $OUT/times.txt
