#!/usr/bin/env bash
# Experiment: the single-launch grid reduction at n = 2^16..2^22, the generated kernel
# against hand-written variants of its hand-over (see mid.cu), alone and queued.
# usage (on the GPU machine, with build/ carried): bash bench/exp/mid.sh OUT [N...]
# What it showed on an H200 (2026-11-21, f32 sum, 2048/128, g = 264, n = 2^20, alone;
# bench/results/2026-11-21-nvidia-h200-run4/mid.txt, and the same within 0.1 us in a run
# before it): CUB 8.64 us; the ticket after the writes 7.04; block g-1 polling flagged
# words 6.40 (also 6.40 with a barrier in every block first); the block that drew the
# last ticket at its start polling instead 6.75; that with the partials staged in
# shared memory 6.88; the generated kernel (flagged words, the last block waits as it
# reads) 6.43. Issuing every load of a thread first (hoist) gained 0.26 us at 2^22
# (7.87 against 8.13) and nothing at 2^20.
set -eu
cd "$(dirname "$0")"
export PATH=/usr/local/cuda/bin:$PATH
../../build/cli/patc --emit-cuda --kernel reduceSumF32 -D elemsBlock=2048 -D elemsWarp=128 \
  ../../examples/reduce_fast.rise > "$1/gen_mid.cuh"
nvcc -DGEN -I"$1" -O3 -std=c++17 -arch=sm_90 -I/usr/local/cuda/include/cccl mid.cu -o "$1/mid" && "$1/mid" "${@:2}"
