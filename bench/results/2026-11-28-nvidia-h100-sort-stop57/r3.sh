#!/usr/bin/env bash
# stop 57 run 3 (H100): base (x: main 365bb1d) against new2 (last tile publishes no word, new tile
# steps, multisplit's reads a loop of their own); multisplit's GPU checks and sanitizers
# (all.sh --quick --sections m); sort_check cases, sort_temp, sort_check under the sanitizers.
R=$OUT/r3; mkdir -p $R
rm -rf build && mv build-slim build
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
T0=$(date +%s)
S="8193 12288 16384 65536 98304 131072 1048583 4194304 16777219 33554432 67108864 268435456"
for v in new2 x; do
  cc -std=c11 -O2 -Iruntime -o bench/tmp/$v/sort_check tests/gpu/sort_check.c bench/tmp/$v/runtime/libpatrt.a -ldl -lm -lpthread
done
for v in x new2; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v timeout 220 bash bench/sort_run.sh $R/$v --types u32,f32,f32+u32,u64 $S > $R/$v.log 2>&1
  echo "$v rc=$? $(( $(date +%s) - T0 ))s" >> $R/times.txt
done
OUT=$R/m timeout 120 bash tests/gpu/all.sh --quick --no-bench --sections m > $R/m.log 2>&1; echo "m rc=$? $(tail -1 $R/m.log) $(( $(date +%s) - T0 ))s" >> $R/times.txt
C=bench/tmp/new2/sort_check
{
for ty in u32 f32 u64 i64; do for n in 8193 12288 12289 98303 98304 1048583 8388608 33554435; do for k in uniform few; do echo "$ty $n $k"; done; done; done
for n in 8193 12288 65537 98303 98305 1048583 8388609; do for k in uniform few; do echo "--pairs=u32 f32 $n $k"; echo "--pairs=u64 f64 $n $k"; done; done
echo "u32 many 300 100000"; echo "u64 many 300 100000"; echo "--pairs=u32 f32 many 300 120000"; echo "f32 many 200 3000000"; echo "--desc --pairs=f32 i64 many 200 200000"
} > $R/cases.txt
timeout 150 xargs -P 8 -L 1 sh -c "$C \$0 \"\$@\" > $R/chk_\$(echo \$0 \$@ | tr ' =' '__').txt 2>&1 || echo \"FAIL \$0 \$@\"" < $R/cases.txt > $R/check_fails.txt
echo "checks $(( $(date +%s) - T0 ))s: $(cat $R/chk_*.txt | grep -c ' 0 failed') ok of $(wc -l < $R/cases.txt)" >> $R/times.txt
nvcc -O2 -arch=sm_90 -std=c++17 -Iruntime -o /tmp/sort_temp tests/gpu/sort_temp.cu bench/tmp/new2/runtime/libpatrt.a -ldl -lm -lpthread && /tmp/sort_temp --root $PWD > $R/sort_temp.txt 2>&1; echo "sort_temp rc=$? $(tail -1 $R/sort_temp.txt)" >> $R/times.txt
{
for tool in memcheck racecheck synccheck; do
  echo "$tool u32 12288 uniform"; echo "$tool u64 8193 few"; echo "$tool --pairs=u32 f32 98303 uniform"; echo "$tool f32 20000 few"
done
} > $R/san_cases.txt
timeout 150 xargs -P 6 -L 1 sh -c "compute-sanitizer --tool \$0 --error-exitcode 1 $C \"\$@\" > $R/san_\$(echo \$0 \$@ | tr ' =' '__').txt 2>&1 || echo \"FAIL \$0 \$@\"" < $R/san_cases.txt > $R/san_fails.txt
echo "san $(( $(date +%s) - T0 ))s: $(grep -l 'ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards' $R/san_*.txt | wc -l) clean of $(wc -l < $R/san_cases.txt); fails: $(cat $R/san_fails.txt | wc -l)" >> $R/times.txt
cat $R/times.txt
cd $OUT && tar czf r3.tgz r3 && rm -rf r3
