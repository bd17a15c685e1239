#!/bin/bash
# the 512 x 10 tile in registers (SL_MAX_TILE 5120): sanitizers, checks at its edges, base/new at 4097..5120
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SC=bench/tmp/new/sort_check
{
for tool in memcheck racecheck synccheck; do
  for a in "f32 5000 few" "--pairs=u64 f32 5100 uniform"; do
    echo "== $tool $a"; compute-sanitizer --tool $tool --error-exitcode 9 $SC $a 2>&1 | tail -2
  done
done
} > $R/san.txt 2>&1
grep -c "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" $R/san.txt; grep -E "ERROR SUMMARY|HAZARD|hazard|failed|FAIL" $R/san.txt | sort | uniq -c
{
for t in u32 f32 "--pairs=u32 f32" "--pairs=u64 f32" u64 "--desc --pairs=f64 i64"; do
  for n in 4225 4500 5000 5120 5121; do
    for k in uniform special; do
      $SC $t $n $k > /tmp/o 2>&1 || { echo "FAIL $t $n $k"; tail -2 /tmp/o; }
    done
  done
done
echo checks done
} > $R/check.txt 2>&1
tail -3 $R/check.txt
for v in base new; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v bash bench/sort_run.sh $R/$v --types u32,f32,f32+u32,u64 4097 5000 5120 > /tmp/log_$v 2>&1 || tail -3 /tmp/log_$v
done
for v in base new; do echo "== $v"; grep -E "uniform|few|sorted" $R/$v/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}'; done
cd $R && tar czf res5.tgz base new san.txt check.txt && rm -rf base new san.txt check.txt
