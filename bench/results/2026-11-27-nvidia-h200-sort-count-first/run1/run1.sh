#!/bin/bash
# correctness of the new multisplit (count, publish, rank, walk) on the GPU, then base vs new
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SC=bench/tmp/new/sort_check
{
for n in 1 31 1000 4097 8193 100003 1048583 4194305 16777219; do
  for t in u32 f32 u64; do for k in uniform few sorted; do $SC $t $n $k | tail -1 | sed "s/^/$t $n $k: /"; done; done
  for k in uniform few; do
    $SC --pairs=u32 f32 $n $k | tail -1 | sed "s/^/f32+u32 $n $k: /"
    $SC --pairs=u64 f64 $n $k | tail -1 | sed "s/^/f64+u64 $n $k: /"
    $SC --desc i32 $n $k | tail -1 | sed "s/^/i32 desc $n $k: /"
    $SC --pairs=f32 --desc i64 $n $k | tail -1 | sed "s/^/i64+f32 desc $n $k: /"
  done
done
$SC u32 many 300 3000000 | tail -1 | sed "s/^/u32 many: /"
$SC --pairs=u32 f32 many 200 3000000 | tail -1 | sed "s/^/f32+u32 many: /"
} > $R/checks.txt 2>&1
grep -c " 0 failed" $R/checks.txt; grep -v " 0 failed" $R/checks.txt | head
S="8193 65536 1048576 4194304 16777216 67108864 268435456"
for v in base new; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/b_$v bash bench/sort_run.sh $R/$v --types u32,f32,f32+u32,u64 $S > /tmp/log_$v 2>&1 || tail -3 /tmp/log_$v
done
for v in base new; do grep -E "uniform|few" $R/$v/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}' > $R/$v.short; done
paste $R/base.short $R/new.short | awk '{printf "%-8s %-7s %-14s CUB %9s base %9s %s | CUB %9s new %9s %s\n", $1,$2,$3,$4,$5,$6,$10,$11,$12}'
cd $R && tar czf res.tgz base new checks.txt && rm -rf base new
