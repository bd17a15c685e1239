#!/bin/bash
# u64 at 1000 and 2048: prev (9171df6) and fin, alternating processes
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name --format=csv,noheader
for i in 1 2; do for v in new fin; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v bash bench/sort_run.sh $R/$v$i --types u64,f64+u64 1000 2048 > $R/log_$v$i 2>&1 || tail -3 $R/log_$v$i
  echo "== $v$i"; grep -E "uniform|few|sorted" $R/$v$i/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}'
done; done
cd $R && tar czf r7.tgz new1 fin1 new2 fin2 && rm -rf new1 fin1 new2 fin2 log_*
