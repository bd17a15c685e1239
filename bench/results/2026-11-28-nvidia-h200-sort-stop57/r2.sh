#!/usr/bin/env bash
# stop 57 run 2: base (main 365bb1d) against new (last tile publishes no word; new tile steps)
R=$OUT/r2; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt
T0=$(date +%s)
S="8193 12288 16384 65536 98304 131072 1048576 4194304 8388608 16777216 33554432 67108864 268435456"
for v in new x; do
  cc -std=c11 -O2 -Iruntime -o bench/tmp/$v/sort_check tests/gpu/sort_check.c bench/tmp/$v/runtime/libpatrt.a -ldl -lm -lpthread
done
for v in x new; do
  PATC_BUILD=$PWD/bench/tmp/$v BENCH_BUILD=/tmp/bb_$v timeout 240 bash bench/sort_run.sh $R/$v --types u32,f32,f32+u32,u64 $S > $R/$v.log 2>&1
  echo "$v rc=$? $(( $(date +%s) - T0 ))s" >> $R/times.txt
done
# correctness of new: sort_check cases in parallel, then the temporary memory against CUB's
C=bench/tmp/new/sort_check
{
for ty in u32 f32 u64 i64; do for n in 8193 12289 98303 98304 1048583 8388608 33554435; do for k in uniform few; do echo "$ty $n $k"; done; done; done
for n in 8193 65537 98303 98305 1048583 8388609; do for k in uniform few; do echo "--pairs=u32 f32 $n $k"; echo "--pairs=u64 f64 $n $k"; done; done
echo "u32 many 300 100000"; echo "u64 many 300 100000"; echo "--pairs=u32 f32 many 300 120000"; echo "f32 many 200 3000000"
} > $R/cases.txt
xargs -P 8 -L 1 sh -c "$C \$0 \"\$@\" > $R/chk_\$(echo \$0 \$@ | tr ' =' '__').txt 2>&1 || echo \"FAIL \$0 \$@\"" < $R/cases.txt > $R/check_fails.txt
echo "checks $(( $(date +%s) - T0 ))s: $(cat $R/chk_*.txt | grep -c ' 0 failed') ok of $(wc -l < $R/cases.txt)" >> $R/times.txt
nvcc -O2 -arch=sm_90 -std=c++17 -Iruntime -o /tmp/sort_temp tests/gpu/sort_temp.cu bench/tmp/new/runtime/libpatrt.a -ldl -lm -lpthread && /tmp/sort_temp --root $PWD > $R/sort_temp.txt 2>&1; echo "sort_temp rc=$? $(tail -1 $R/sort_temp.txt)" >> $R/times.txt
cat $R/times.txt
cd $OUT && tar czf r2.tgz r2 && rm -rf r2
