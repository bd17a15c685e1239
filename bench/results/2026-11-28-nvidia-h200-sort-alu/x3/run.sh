#!/bin/bash
# usage: run3.sh "v5 v7" "268435456 67108864" "uniform few" ROUNDS
cd "$(dirname "$0")/../../.."
X=$PWD/bench/tmp/xv
SK=bench/tmp/x/sk
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
for v in $1; do PATC_XSRC="sortPassB2=$X/$v.cu" $SK --root $PWD f32 uniform 67108864 1 2>&1 | tail -1; done
for n in $2; do
 for inp in $3; do
  for r in $(seq $4); do
   for v in base $1; do
    if [ $v = base ]; then x=; else x="sortPassB2=$X/$v.cu"; fi
    echo "$v $(PATC_XSRC=$x $SK --root $PWD f32 $inp $n 21 2>/dev/null | tail -1)"
   done
  done
 done
done 2>&1 | tee $OUT/times.txt
