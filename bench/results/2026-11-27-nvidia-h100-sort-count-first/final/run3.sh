#!/bin/bash
# new2 on an H100: sanitizers on the sort's kernels, then the benchmark against CUB
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SC=bench/tmp/new2/sort_check
{
for tool in memcheck racecheck synccheck; do
  for a in "u32 40003 uniform" "--pairs=u32 f32 40003 few" "u64 30011 uniform" "--desc --pairs=u64 f64 20011 uniform"; do
    echo "== $tool $a"; compute-sanitizer --tool $tool --error-exitcode 9 $SC $a 2>&1 | tail -2
  done
done
} > $R/san.txt 2>&1
grep -c "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" $R/san.txt; grep -E "ERROR SUMMARY|HAZARD|hazard|failed" $R/san.txt | sort | uniq -c
PATC_BUILD=$PWD/bench/tmp/new2 BENCH_BUILD=/tmp/b_new2 bash bench/sort_run.sh $R/h100 --types u32,f32,f32+u32,u64 8193 65536 1048576 4194304 16777216 268435456 > /tmp/log 2>&1 || tail -3 /tmp/log
grep -E "uniform|few|sorted" $R/h100/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}'
cd $R && tar czf res.tgz h100 san.txt && rm -rf h100
