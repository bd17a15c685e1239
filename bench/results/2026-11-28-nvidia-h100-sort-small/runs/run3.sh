#!/bin/bash
# the lanes small sort with 64-bit orders too: sanitizers and checks of the 8-byte cases, then base/new at small n
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SC=bench/tmp/new/sort_check
{
for tool in memcheck racecheck synccheck; do
  for a in "u64 1000 uniform" "--pairs=u64 f64 4097 uniform" "--bits=0:40 i64 5000 special"; do
    echo "== $tool $a"; compute-sanitizer --tool $tool --error-exitcode 9 $SC $a 2>&1 | tail -2
  done
done
} > $R/san.txt 2>&1
grep -c "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" $R/san.txt; grep -E "ERROR SUMMARY|HAZARD|hazard|failed|FAIL" $R/san.txt | sort | uniq -c
{
for t in u64 i64 f64 "--pairs=u64 f64" "--pairs=u32 i64" "--desc f64" "--bits=0:40 i64" "--bits=8:60 u64"; do
  for n in 1 31 1000 1025 2049 4097 4225 5120 5121 8193; do
    for k in uniform special; do
      $SC $t $n $k > /tmp/o 2>&1 || { echo "FAIL $t $n $k"; tail -2 /tmp/o; }
    done
  done
done
for t in u64 "--pairs=u64 f64"; do $SC $t many 100 6000 > /tmp/o 2>&1 || { echo "FAIL many $t"; tail -2 /tmp/o; }; done
echo checks done
} > $R/check.txt 2>&1
tail -3 $R/check.txt
for v in base new; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v bash bench/sort_run.sh $R/$v --types u32,f32,f32+u32,u64 1000 2048 4096 4097 5000 8192 > /tmp/log_$v 2>&1 || tail -3 /tmp/log_$v
done
for v in base new; do echo "== $v"; grep -E "uniform" $R/$v/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}'; done
cd $R && tar czf res3.tgz base new san.txt check.txt && rm -rf base new san.txt check.txt
