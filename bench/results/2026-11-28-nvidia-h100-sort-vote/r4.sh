#!/bin/bash
# final: base/new benchmark at small n, sort_check at the small tiles' edges, sanitizers
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
SC=$PWD/bench/tmp/new/sort_check
# sort_check at the tile edges (8 at a time)
{
for f in "u32" "f32" "--pairs=u32 f32" "--pairs=f64 u32" "--pairs=u64 f64" "u64" "--desc f32" "--pairs=u64 --bits=0:40 i64"; do
  for n in 1 31 1000 1024 1025 2048 2049 4096 4097 4500 4864 4992 4993 5120 5121 8192 8193; do
    for k in uniform special; do echo "$f $n $k"; done
  done
  echo "$f many 200 6000"
done
} > $R/checks.txt
xargs -P 8 -L 1 -a $R/checks.txt sh -c "$SC \"\$@\" > /dev/null 2>&1 && echo \"ok \$*\" || echo \"FAIL \$*\"" sh > $R/check_results.txt
echo "sort_check: $(grep -c ^ok $R/check_results.txt) ok, $(grep -c ^FAIL $R/check_results.txt) failed"; grep FAIL $R/check_results.txt | head
# sanitizers
{
for tool in memcheck racecheck synccheck; do
  for a in "u32 4096 uniform" "f32 4500 special" "--pairs=u32 f32 4864 few" "--pairs=u64 f64 4097 uniform" "u64 2049 special" "i32 1000 few"; do echo "$tool $a"; done
done
} > $R/sans.txt
xargs -P 6 -L 1 -a $R/sans.txt sh -c "t=\$1; shift; o=\$(compute-sanitizer --tool \$t --error-exitcode 1 $SC \"\$@\" 2>&1); rc=\$?; echo \"rc=\$rc \$t \$* :: \$(echo \"\$o\" | grep -m1 -oE 'sort_check: [0-9]+ passed, [0-9]+ failed') :: \$(echo \"\$o\" | grep -m1 -oE '(ERROR|RACECHECK) SUMMARY.*')\"" sh > $R/san_results.txt
cat $R/san_results.txt
for v in base new; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v bash bench/sort_run.sh $R/$v --types u32,f32,f32+u32,u64 1000 2048 4096 4097 4500 4864 4992 5120 8192 > $R/log_$v 2>&1 || tail -3 $R/log_$v
done
for v in base new; do echo "== $v"; grep -E "uniform" $R/$v/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}'; done
cd $R && tar czf final.tgz base new log_* checks.txt check_results.txt sans.txt san_results.txt gpu.txt && rm -rf base new log_*
