#!/bin/bash
# ncu of the pairs pass and the small sort against CUB's (H100), 2026-11-27
set -x
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/sb bench/sort_bench.cu bench/tmp/base/runtime/libpatrt.a -ldl -lm -lpthread || exit 3
/tmp/sb --root . /tmp/o1 --types f32+u32,u32 16777216 4096 4097 > $OUT/bench.txt 2>&1
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section InstructionStats --section WarpStateStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section SourceCounters"
ncu --kernel-name regex:"Onesweep|sortPass" --launch-count 12 $S -o /tmp/pairs /tmp/sb --root . /tmp/o2 --types f32+u32 16777216 > /tmp/ncu1.log 2>&1
ncu --kernel-name regex:"SingleTile|sortSmall" --launch-count 6 $S -o /tmp/small /tmp/sb --root . /tmp/o3 --types u32 4097 > /tmp/ncu2.log 2>&1
tail -5 /tmp/ncu1.log /tmp/ncu2.log
ncu --import /tmp/pairs.ncu-rep --page details > $OUT/ncu_pairs.txt 2>&1
ncu --import /tmp/small.ncu-rep --page details > $OUT/ncu_small.txt 2>&1
for k in pairs small; do
  ncu --import /tmp/$k.ncu-rep --page source --csv --print-source sass > /tmp/${k}_src.csv 2>&1
  ls -la /tmp/${k}_src.csv; head -c 600 /tmp/${k}_src.csv
done
tar czf $OUT/src.tgz -C /tmp pairs_src.csv small_src.csv
cp /tmp/pairs.ncu-rep /tmp/small.ncu-rep $OUT/ 2>/dev/null
ls -la $OUT
