#!/usr/bin/env bash
# stop 57 run 5 (H200): the final tree's benchmark at the default sizes (new2)
R=$OUT/r5; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
T0=$(date +%s)
PATC_BUILD=$PWD/bench/tmp/new2 BENCH_BUILD=/tmp/bb_new2 timeout 300 bash bench/sort_run.sh $R/full --types u32,f32,f32+u32,u64 > $R/full.log 2>&1
echo "full rc=$? $(( $(date +%s) - T0 ))s" >> $R/times.txt
cat $R/times.txt
cd $OUT && tar czf r5.tgz r5 && rm -rf r5
