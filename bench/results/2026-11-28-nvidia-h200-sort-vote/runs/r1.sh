#!/bin/bash
# (1) generated u32 tiles (new codegen) against CUB; (2) libpatrt base/new against CUB
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(cd bench/tmp/p9 && ./p12 > $R/p12.txt 2>&1; grep -c FAIL $R/p12.txt)
for v in base new; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v bash bench/sort_run.sh $R/$v --types u32,f32,f32+u32,u64 1000 2048 4096 4097 4864 5120 8192 > $R/log_$v 2>&1 || tail -3 $R/log_$v
done
for v in base new; do echo "== $v"; grep -E "uniform" $R/$v/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}'; done
