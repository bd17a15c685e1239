#!/bin/bash
cd "$(dirname "$0")/../../.."
X=$PWD/bench/tmp/xv
export PATC_CACHE_DIR=/tmp/pc
for v in base v2 cub; do
 k=sortPassB2; x=
 [ $v = v2 ] && x="sortPassB2=$X/$v.cu"
 [ $v = cub ] && k=Onesweep
 PATC_XSRC=$x timeout 120 ncu --set full -k regex:$k --launch-skip 4 --launch-count 1 -o /tmp/ncu_$v bench/tmp/x/sk --root $PWD f32 uniform 67108864 2 > /tmp/ncu_$v.log 2>&1
 ncu --import /tmp/ncu_$v.ncu-rep --page details --csv > /tmp/det_$v.csv 2>/dev/null
 ncu --import /tmp/ncu_$v.ncu-rep --page raw --csv > /tmp/raw_$v.csv 2>/dev/null
done
tar czf $OUT/ncu_csv.tgz -C /tmp det_base.csv det_v2.csv det_cub.csv raw_base.csv raw_v2.csv raw_cub.csv ncu_base.log ncu_v2.log ncu_cub.log
