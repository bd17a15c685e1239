#!/bin/bash
# small n: libpatrt base/new/new2/new3 against CUB, each in its own process, one after another
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in base new new2 new3; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v bash bench/sort_run.sh $R/$v --types u32,f32,f32+u32,u64 1000 2048 4096 4097 4500 4864 4992 5120 8192 > $R/log_$v 2>&1 || tail -3 $R/log_$v
done
for v in base new new2 new3; do echo "== $v"; grep -E "uniform" $R/$v/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}'; done
cd $R && tar czf small.tgz base new new2 new3 log_* && rm -rf base new new2 new3 log_*
