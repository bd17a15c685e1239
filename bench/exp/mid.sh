#!/usr/bin/env bash
# Experiment: the single-launch grid reduction at n = 2^16..2^22, the generated kernel
# against hand-written variants of its hand-over (see mid.cu), alone and queued.
# usage (on the GPU machine, with build/ carried): bash bench/exp/mid.sh OUT [N...]
# What it showed on an H200 (2026-11-21, f32 sum, 2048/128, g = 264, n = 2^20, alone):
# CUB 8.45 us; the ticket after the writes 6.94; block g-1 polling flagged words 6.18
# (6.14 with a barrier in every block first); the block that drew the last ticket at
# its start polling instead 6.56; that with the partials staged in shared memory 6.75;
# the generated kernel (flagged words, last block waits as it reads) 6.21. Issuing
# every load of a thread first (hoist) gained 0.1-0.2 us at 2^22 and nothing at 2^20.
set -eu
cd "$(dirname "$0")"
export PATH=/usr/local/cuda/bin:$PATH
../../build/cli/patc --emit-cuda --kernel reduceSumF32 -D elemsBlock=2048 -D elemsWarp=128 \
  ../../examples/reduce_fast.rise > "$1/gen_mid.cuh"
nvcc -DGEN -I"$1" -O3 -std=c++17 -arch=sm_90 -I/usr/local/cuda/include/cccl mid.cu -o "$1/mid" && "$1/mid" "${@:2}"
