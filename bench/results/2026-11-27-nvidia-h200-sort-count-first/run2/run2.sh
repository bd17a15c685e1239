#!/bin/bash
# pairs' values after the look-back (new2), and new2 with the old tile-scan rule (new3), against base
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{
for v in new2 new3; do SC=bench/tmp/$v/sort_check
for n in 1 31 4097 8193 100003 1048583 16777219; do
  for k in uniform few sorted; do
    $SC --pairs=u32 f32 $n $k | tail -1 | sed "s/^/$v f32+u32 $n $k: /"
    $SC --pairs=u64 f64 $n $k | tail -1 | sed "s/^/$v f64+u64 $n $k: /"
    $SC --pairs=f32 --desc i64 $n $k | tail -1 | sed "s/^/$v i64+f32 desc $n $k: /"
    $SC u64 $n $k | tail -1 | sed "s/^/$v u64 $n $k: /"
  done
done
$SC --pairs=u32 f32 many 200 3000000 | tail -1 | sed "s/^/$v f32+u32 many: /"
done
} > $R/checks.txt 2>&1
echo "checks: $(grep -c ' 0 failed' $R/checks.txt) of $(wc -l < $R/checks.txt) passed"; grep -v " 0 failed" $R/checks.txt | head
S="8193 65536 1048576 4194304 16777216 268435456"
for v in base new2 new3; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/b_$v bash bench/sort_run.sh $R/$v --types f32+u32,u64 $S > /tmp/log_$v 2>&1 || tail -3 /tmp/log_$v
  grep -E "uniform|few" $R/$v/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}' > $R/$v.short
done
paste $R/base.short $R/new2.short $R/new3.short | awk '{printf "%-8s %-7s %-14s base %9s %9s %s | new2 %9s %9s %s | new3 %9s %9s %s\n", $1,$2,$3,$4,$5,$6,$10,$11,$12,$16,$17,$18}'
cd $R && tar czf res.tgz base new2 new3 checks.txt && rm -rf base new2 new3
