#!/bin/bash
# pipe_ab_bench on one library with hand-edited texts (build/exp/d/*), n = 2^24, 2^28
L=$PWD/build/runtime/libpatrt.so
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/pab bench/pipe_ab_bench.cu build/runtime/libpatrt.a -ldl -lm -lpthread || exit 3
D=$PWD/build/exp/d
run() { # label before after only
  mkdir -p /tmp/ab/$1
  echo "=== $1: before $2, after $3"
  PIPE_AB_ONLY=$4 PIPE_AB_BEFORE_CUDA=$D/$2 PIPE_AB_AFTER_CUDA=$D/$3 /tmp/pab /tmp/ab/$1 $L $L examples 4194304 16777216 268435456 2>&1 | grep -v "^device\|from /"
}
run old-new old new scan_
run old-new-part old new partition_f32
for v in v2 helper h_prod h_agg h_lb h_cmp; do run new-$v new $v scan_incl; done
