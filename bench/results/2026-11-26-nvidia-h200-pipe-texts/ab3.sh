#!/bin/bash
L=$PWD/build/runtime/libpatrt.so
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/pab bench/pipe_ab_bench.cu build/runtime/libpatrt.a -ldl -lm -lpthread || exit 3
D=$PWD/build/exp/d
run() { mkdir -p /tmp/ab/$1; echo "=== $1: before $2, after $3"; PIPE_AB_ONLY=$4 PIPE_AB_BEFORE_CUDA=$D/$2 PIPE_AB_AFTER_CUDA=$D/$3 /tmp/pab /tmp/ab/$1 $L $L examples 16777216 67108864 2>&1 | grep "n="; }
run old-cur old cur scan_excl
for v in hx_prod hx_agg hx_lb hx_cmp; do run cur-$v cur $v scan_excl; done
