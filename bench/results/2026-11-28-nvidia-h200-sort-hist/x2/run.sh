#!/bin/bash
# stop 61 experiment 2: the digit by __byte_perm in sortPassB2 (q1 f32, u1 u32), with the histogram's uint4 loads (h3)
cd "$(dirname "$0")/../.."
X=$PWD/bench/tmp/xv
SK=bench/tmp/x/sk
N=268435456
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
xs() { case $1 in base) echo ;; q1|u1) echo "sortPassB2=$X/$1.cu" ;; h3q1) echo "sortHistScan=$X/h3.cu;sortPassB2=$X/q1.cu" ;; h3) echo "sortHistScan=$X/h3.cu" ;; esac; }
for v in q1 h3q1; do PATC_XSRC="$(xs $v)" $SK --root $PWD f32 uniform 1048583 1 2>&1 | tail -1 | sed "s/^/warm $v: /"; done
PATC_XSRC="$(xs u1)" $SK --root $PWD u32 uniform 1048583 1 2>&1 | tail -1 | sed "s/^/warm u1: /"
for r in 1 2; do
 for inp in uniform sorted few; do
  for v in base q1 h3 h3q1; do
    echo "$r $v $(PATC_XSRC="$(xs $v)" timeout 60 $SK --root $PWD f32 $inp $N 21 2>/dev/null | tail -1)"
  done
 done
 for inp in uniform sorted; do
  for v in base u1; do
    echo "$r $v $(PATC_XSRC="$(xs $v)" timeout 60 $SK --root $PWD u32 $inp $N 21 2>/dev/null | tail -1)"
  done
 done
done 2>&1 | tee $OUT/times.txt
