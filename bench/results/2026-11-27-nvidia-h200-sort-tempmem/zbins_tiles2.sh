#!/usr/bin/env bash
# zbins_tiles2.sh OUT: (1) bench/exp/zbins_ab.cu: the histogram's bins in the counts
# (memset), in scratch, and in the counts without the memset, interleaved in one
# process; (2) sort_bench with the tile steps of this change, every type; (3) the pairs'
# tile at 2^20..2^23 (PATC_XTILE=NT,IPT: that tile at every size; uncommitted hook).
set -uo pipefail
OUT=$1
mkdir -p "$OUT"
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/zab bench/exp/zbins_ab.cu build/runtime/libpatrt.a -ldl -lm -lpthread || exit 3
for t in u32 u64; do /tmp/zab $t 8193 16384 65536 262144 1048576; done 2>&1 | tee "$OUT/ab.txt"
bash bench/sort_run.sh "$OUT/steps" --types u32,f32,f32+u32,u64,f64,f64+u64 8193 16384 65536 262144 1048576 2097152 4194304 8388608 16777216 >/dev/null 2>&1; echo "steps rc $?"
B=/tmp/patc-bench-build/sort_bench
for t in 512,16 512,18 512,20 384,24; do
  PATC_XTILE=$t $B --root "$PWD" "$OUT/p$t" --types f32+u32 1048576 2097152 3145728 4194304 6291456 8388608 >"$OUT/p$t.txt" 2>&1; echo "pairs tile $t rc $?"
done
