#!/usr/bin/env bash
# stop 57: ncu of the pairs' pass (patc sortPassB2, 512x20) and CUB's Onesweep pass at 2^24 f32 keys with u32 values
R=$OUT/ncu; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/sb bench/sort_bench.cu bench/tmp/new2/runtime/libpatrt.a -ldl -lm -lpthread
timeout 170 ncu --kernel-name regex:"sortPassB|Onesweep" --launch-skip 8 --launch-count 8 --set full -o $R/pairs24 -f /tmp/sb --root $PWD /tmp/sbout --types f32+u32 16777216 > $R/ncu.log 2>&1
echo "ncu rc=$?" >> $R/ncu.log
ncu --import $R/pairs24.ncu-rep --page details --csv > $R/details.csv 2>> $R/ncu.log
ncu --import $R/pairs24.ncu-rep --page raw --csv --metrics gpu__time_duration.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,dram__bytes.sum,smsp__average_warp_latency_issue_stalled_barrier,smsp__warps_issue_stalled_barrier_per_warp_active.pct,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active > $R/raw.csv 2>> $R/ncu.log
tail -3 $R/ncu.log
cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu
