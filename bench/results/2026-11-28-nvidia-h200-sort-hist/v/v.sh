#!/bin/bash
# stop 61: the histogram in 16-byte vectors (sortHistScanV, sortHistV) on the GPU: sorts
# checked by tests/gpu/sort_check.c (aligned: the vector kernels; back-to-back sorts at
# every offset and odd portions: both), the example kernels against the interpreter,
# the sanitizers, then bench/sort_run.sh. Run from the repository root, OUT set.
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
d=$(mktemp -d)
cc -std=c11 -O2 -Iruntime -o $d/sort_check tests/gpu/sort_check.c build/runtime/libpatrt.a -ldl -lm -lpthread || exit 1
log=$OUT/checks.txt
run() { local o; o=$("$@" 2>&1); local rc=$?; echo "rc=$rc | $* | $(echo "$o" | grep -m1 -E 'sort_check: |max relative error|ERROR SUMMARY|RACECHECK SUMMARY' )" >> $log; [ $rc = 0 ] || echo "$o" | tail -5 >> $OUT/fail.txt; }
t0=$(date +%s)
# one process first, so the kernels' compiles are cached for the rest
run $d/sort_check u32 100003 uniform
jobs4() { while [ $(jobs -r | wc -l) -ge 6 ]; do sleep 0.2; done; }
for f in u32 i32 f32 u64 i64 f64 "--pairs=u32 f32" "--desc --pairs=u32 f32" "--pairs=u64 f64" "--desc u32"; do
  for n in 8193 100003 1048583; do
    for k in uniform sorted few; do jobs4; run $d/sort_check $f $n $k & done
  done
done
wait
for f in u32 f32 "--pairs=u32 f32" "--pairs=u64 --bits=0:40 i64"; do jobs4; run $d/sort_check $f many 300 100000 & done
jobs4; run $d/sort_check --portion=4000037 f32 16777219 uniform &
jobs4; run $d/sort_check --portion=3001 f32 20000 special &
jobs4; run $d/sort_check f32 16777219 sorted &
jobs4; run $d/sort_check u32 16777219 few &
for t in U32 F32; do for n in 4097 1048583; do
  jobs4; run build/cli/patc run examples/radixsort.rise --kernel rsHistScanV$t --input random:0:2000000000 --check-against-cpu -D n=$n -D g=264 --bins-in-result &
  jobs4; run build/cli/patc run examples/radixsort.rise --kernel rsHistScanV$t --input random:0:2000000000 --check-against-cpu -D n=$n -D g=264 &
done; done
wait
echo "checks: $(( $(date +%s) - t0 )) s" >> $log
for tool in memcheck racecheck synccheck; do
  run compute-sanitizer --tool $tool --error-exitcode 1 $d/sort_check i32 100003 few &
  run compute-sanitizer --tool $tool --error-exitcode 1 $d/sort_check u32 many 4 40000 &
done
wait
echo "sanitizers: $(( $(date +%s) - t0 )) s" >> $log
grep -c '^rc=0' $log; grep -v '^rc=0' $log
timeout 200 bash bench/sort_run.sh $OUT/b --types f32,u32,f32+u32 16777219 268435456 > $OUT/bench.log 2>&1
echo "bench: $(( $(date +%s) - t0 )) s" >> $log
tail -2 $OUT/bench.log
