#!/bin/bash
B=$PWD/build/baseline/libpatrt-92709f6.so L=$PWD/build/runtime/libpatrt.so
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/pab bench/pipe_ab_bench.cu build/runtime/libpatrt.a -ldl -lm -lpthread || exit 3
D=$PWD/build/exp/d; mkdir -p /tmp/ab/x
echo "=== old lib + old text vs new lib + old text"
for r in 1 2; do PIPE_AB_ONLY=scan_excl PIPE_AB_AFTER_CUDA=$D/old /tmp/pab /tmp/ab/x $B $L examples 16777216 67108864 2>&1 | grep "n="; done
echo "=== old lib vs new lib, own texts"
PIPE_AB_ONLY=scan_excl /tmp/pab /tmp/ab/x $B $L examples 16777216 67108864 2>&1 | grep "n="
echo "=== ncu launch stats"
PIPE_AB_ONLY=scan_excl ncu --section LaunchStats --section Occupancy -k regex:exclSumI32 -c 2 /tmp/pab /tmp/ab/x $B $L examples 16777216 2>&1 | grep -v "^==PROF==\|^scan\|^device\|mismatch" | grep -i "exclSum\|size\|regist\|shared\|grid\|block\|thread\|waves\|occupancy\|cache" 
