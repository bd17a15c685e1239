#!/bin/bash
# stop 61 experiment 1: per-kernel times (ncu) of f32 uniform/sorted at 2^28; variants of sortHistScan and sortPassB2
cd "$(dirname "$0")/../.."
X=$PWD/bench/tmp/xv
SK=bench/tmp/x/sk
N=268435456
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
for inp in uniform sorted; do
  timeout 150 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv --print-units base \
    $SK --root $PWD f32 $inp $N 5 > $OUT/ncu-f32-$inp.csv 2> $OUT/ncu-f32-$inp.log || echo "ncu $inp rc $?"
done
xs() { case $1 in base) echo ;; p*) echo "sortPassB2=$X/$1.cu" ;; hp*) echo "sortHistScan=$X/${1#hp}.cu;sortPassB2=$X/p1.cu" ;; h*) echo "sortHistScan=$X/$1.cu" ;; esac; }
for v in h0 h1 h2 h3 h4 p1; do PATC_XSRC="$(xs $v)" $SK --root $PWD f32 uniform 1048583 1 2>&1 | tail -1 | sed "s/^/warm $v: /"; done
for r in 1 2; do
 for inp in uniform sorted few; do
  for v in base h1 h2 h3 h4 p1 hph3; do
    echo "$r $v $(PATC_XSRC="$(xs $v)" timeout 60 $SK --root $PWD f32 $inp $N 21 2>/dev/null | tail -1)"
  done
 done
done 2>&1 | tee $OUT/times.txt
