#!/bin/bash
# lanes small sort: sanitizers, sort_check at the tile edges, then base/new benchmark at small n
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SC=bench/tmp/new/sort_check
{
for tool in memcheck racecheck synccheck; do
  for a in "u32 1000 uniform" "u32 4097 uniform" "f32 5000 few" "--pairs=u32 f32 4097 few" "--pairs=u64 f32 5000 uniform" "--desc --pairs=i32 u32 2048 uniform" "i32 31 special"; do
    echo "== $tool $a"; compute-sanitizer --tool $tool --error-exitcode 9 $SC $a 2>&1 | tail -2
  done
done
} > $R/san.txt 2>&1
grep -c "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" $R/san.txt; grep -E "ERROR SUMMARY|HAZARD|hazard|failed|FAIL" $R/san.txt | sort | uniq -c
{
for t in u32 f32 i32 "--pairs=u32 f32" "--pairs=u64 f32" "--desc f32" "--pairs=f64 u32" u64 "--bits=0:20 u64"; do
  for n in 1 31 1000 1024 1025 2048 2049 4096 4097 4224 4225 5000 5120 5121 8192 8193; do
    for k in uniform special; do
      $SC $t $n $k > /tmp/o 2>&1 || { echo "FAIL $t $n $k"; tail -2 /tmp/o; }
    done
  done
done
for t in u32 "--pairs=u32 f32"; do $SC $t many 200 6000 > /tmp/o 2>&1 || { echo "FAIL many $t"; tail -2 /tmp/o; }; done
echo checks done
} > $R/check.txt 2>&1
tail -5 $R/check.txt
cd $R && tar czf res1.tgz san.txt check.txt && rm -f san.txt check.txt
