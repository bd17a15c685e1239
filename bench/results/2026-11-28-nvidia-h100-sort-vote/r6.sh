#!/bin/bash
# the reload without tests: sanitizers and sort_check on fin, then prev (9171df6) and fin against CUB
cd "$(dirname "$0")/../.."
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
SC=$PWD/bench/tmp/fin/sort_check
{
for tool in memcheck racecheck synccheck; do
  for a in "f32 4500 special" "--pairs=u64 f64 4097 uniform" "u32 1000 few" "--pairs=u32 f32 31 uniform"; do echo "$tool $a"; done
done
} > $R/sans.txt
xargs -P 6 -L 1 -a $R/sans.txt sh -c "t=\$1; shift; o=\$(compute-sanitizer --tool \$t --error-exitcode 1 $SC \"\$@\" 2>&1); rc=\$?; echo \"rc=\$rc \$t \$* :: \$(echo \"\$o\" | grep -m1 -oE 'sort_check: [0-9]+ passed, [0-9]+ failed') :: \$(echo \"\$o\" | grep -m1 -oE '(ERROR|RACECHECK) SUMMARY.*')\"" sh > $R/san_results.txt
cat $R/san_results.txt
{
for f in "u32" "f32" "--pairs=u32 f32" "--pairs=u64 f64" "u64" "--desc i32"; do
  for n in 1 31 1000 2048 2049 4096 4097 4864 4992 4993 5120 5121; do
    for k in uniform special; do echo "$f $n $k"; done
  done
  echo "$f many 200 6000"
done
} > $R/checks.txt
xargs -P 8 -L 1 -a $R/checks.txt sh -c "$SC \"\$@\" > /dev/null 2>&1 && echo \"ok \$*\" || echo \"FAIL \$*\"" sh > $R/check_results.txt
echo "sort_check: $(grep -c ^ok $R/check_results.txt) ok, $(grep -c ^FAIL $R/check_results.txt) failed"; grep FAIL $R/check_results.txt | head
for v in new fin; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v bash bench/sort_run.sh $R/$v --types u32,f32,f32+u32,u64 1000 2048 4096 4097 4500 4864 > $R/log_$v 2>&1 || tail -3 $R/log_$v
done
for v in new fin; do echo "== $v"; grep -E "uniform" $R/$v/sort.txt | awk '{print $1, $2, $3, $10, $13, $16}'; done
cd $R && tar czf r6.tgz new fin log_* gpu.txt sans.txt san_results.txt checks.txt check_results.txt && rm -rf new fin log_*
