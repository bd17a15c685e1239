#!/usr/bin/env bash
# stop 57 run 1: the pass tile by type and size after count-first (XTILE hook, not committed)
R=$OUT/r1; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
S="8193 65536 1048576 4194304 16777216 67108864"
T0=$(date +%s)
PATC_BUILD=$PWD/bench/tmp/x BENCH_BUILD=/tmp/bb_x timeout 200 bash bench/sort_run.sh $R/default --types u32,f32,f32+u32,u64 $S > $R/default.log 2>&1
echo "default $(( $(date +%s) - T0 ))s" >> $R/times.txt
for t in 512,16 512,18 512,20 384,24 512,24 384,20 384,19,3 256,16 384,16 256,24; do
  [ $(( $(date +%s) - T0 )) -gt 520 ] && break
  PATC_XTILE=$t timeout 120 /tmp/bb_x/sort_bench --root $PWD $R/t$t --types u32,f32,f32+u32,u64 $S > $R/t$t.log 2>&1
  echo "$t rc=$? $(( $(date +%s) - T0 ))s" >> $R/times.txt
done
cd $OUT && tar czf r1.tgz r1 && rm -rf r1
