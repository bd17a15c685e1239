#!/bin/bash
# large n: libpatrt base/new3 against CUB
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in base new3; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v bash bench/sort_run.sh $R/$v --types u32,f32+u32,u64 1048576 16777216 268435456 > $R/log_$v 2>&1 || tail -3 $R/log_$v
done
for v in base new3; do echo "== $v"; grep -E "uniform|few" $R/$v/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}'; done
cd $R && tar czf large.tgz base new3 log_* && rm -rf base new3 log_*
