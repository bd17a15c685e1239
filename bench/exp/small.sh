#!/usr/bin/env bash
# Experiment driver: generate kernel variants with patc (here), build + run small.cu (GPU).
# usage: bash bench/exp/small.sh gen                (on the build machine; writes
#                                                   gen.cuh, gen_calls.inc: not committed)
#        bash bench/exp/small.sh run OUT [N...]     (on the GPU machine)
# small.cu times an empty kernel, CUB and the variants of exp_small.rise at each N, alone
# (idle stream, host launch latency included) and queued (GPU time only). What it
# showed on an H200 (2026-11-21, two runs): an empty kernel costs 4.0-4.8 us alone and
# 2.7-3.1 us queued, so against CUB's single-tile 5.2 us at n = 2^10 no kernel can reach
# 1.25x; the one-block kernel beats the single-launch grid kernel up to
# n = 2^14; a one-warp last stage only helps for grids of at most ~128 blocks; folding
# lastBlock's fences into one acq_rel atomic saves 0.3 us (hand-edited variants of the
# generated code, measured before the code generator was changed).
set -eu
cd "$(dirname "$0")"
if [ "$1" = gen ]; then
  P=../../build/cli/patc
  : > gen.cuh; : > gen_calls.inc
  for cfg in "512 128" "1024 128" "1024 256" "2048 256" "4096 512" "4096 1024"; do
    set -- $cfg
    $P --emit-cuda -D elemsBlock=$1 -D elemsWarp=$2 exp_small.rise |
      sed "s/\b\(gridW\|gridB\|one\)\b/\1_$1_$2/g" >> gen.cuh
    echo "ONE(one_$1_$2, $1, $2)" >> gen_calls.inc
    case "$cfg" in "2048 256"|"4096 512"|"4096 1024")
      for b in 1 4 8; do echo "GRID(gridW_$1_$2, $1, $2, $b) GRID(gridB_$1_$2, $1, $2, $b)" >> gen_calls.inc; done;;
    esac
  done
else
  export PATH=/usr/local/cuda/bin:$PATH
  nvcc -O3 -std=c++17 -arch=sm_90 -I/usr/local/cuda/include/cccl small.cu -o "$2/small" && "$2/small" "${@:3}"
fi
