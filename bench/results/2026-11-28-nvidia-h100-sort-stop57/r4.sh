#!/usr/bin/env bash
# stop 57 run 4 (H100): the final tree's benchmark at the default sizes (new2), then tiles for
# f32 keys with u32 values at 2^24..2^26 on the final kernels (y: new2 + the PATC_XTILE hook, not committed)
R=$OUT/r4; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
T0=$(date +%s)
PATC_BUILD=$PWD/bench/tmp/new2 BENCH_BUILD=/tmp/bb_new2 timeout 330 bash bench/sort_run.sh $R/full --types u32,f32,f32+u32,u64 > $R/full.log 2>&1
echo "full rc=$? $(( $(date +%s) - T0 ))s" >> $R/times.txt
PATC_BUILD=$PWD/bench/tmp/y BENCH_BUILD=/tmp/bb_y timeout 60 bash bench/sort_run.sh $R/pdefault --types f32+u32 16777216 33554432 67108864 > $R/pdefault.log 2>&1
echo "pdefault rc=$? $(( $(date +%s) - T0 ))s" >> $R/times.txt
for t in 384,23 448,20 512,18 384,22; do
  [ $(( $(date +%s) - T0 )) -gt 500 ] && break
  PATC_XTILE=$t timeout 45 /tmp/bb_y/sort_bench --root $PWD $R/t$t --types f32+u32 16777216 33554432 67108864 > $R/t$t.log 2>&1
  echo "$t rc=$? $(( $(date +%s) - T0 ))s" >> $R/times.txt
done
cat $R/times.txt
cd $OUT && tar czf r4.tgz r4 && rm -rf r4
