#!/usr/bin/env bash
# zbins_tiles.sh OUT: the sort's histogram with its bins in the counts (a memset before
# it) at every size, below 2^20 only (the default) and never; then the pass's tile below
# 2^20 keys (PATC_XTILE=NT,IPT: that tile from the first key on, up to the type's first
# step). Both hooks are environment variables of an uncommitted build (measurement only).
set -uo pipefail
OUT=$1
mkdir -p "$OUT"
S1="8193 16384 65536 262144 1048576 4194304 16777216"
bash bench/sort_run.sh "$OUT/zdefault" --types u32,f32,f32+u32,u64 $S1 >/dev/null 2>&1; echo "zdefault rc $?"
B=/tmp/patc-bench-build/sort_bench
PATC_ZBELOW=0 $B --root "$PWD" "$OUT/znever" --types u32,f32,f32+u32,u64 $S1 >"$OUT/znever.txt" 2>&1; echo "znever rc $?"
PATC_ZBELOW=1000000000000 $B --root "$PWD" "$OUT/zalways" --types u32,f32,f32+u32,u64 $S1 >"$OUT/zalways.txt" 2>&1; echo "zalways rc $?"
S2="8193 16384 32768 65536 131072 262144 524288 1048575"
for t in 384,16 384,20 512,16 512,18 384,24 512,20; do
  PATC_XTILE=$t $B --root "$PWD" "$OUT/t$t" --types u32,f32,f32+u32 $S2 >"$OUT/t$t.txt" 2>&1; echo "tile $t rc $?"
done
