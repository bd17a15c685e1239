#!/usr/bin/env bash
# The early-total experiment (README.md): for each scan kernel and size, the shape from
# TUNING (default: the evict-first run's tuned settings), the generated kernel and
# gen.py's rewrite, timed by early.cu. On the GPU machine, from the repository root with
# build/ carried:  bash bench/exp/early_agg/run.sh > run.txt
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
P=$PWD/build/cli/patc D=bench/exp/early_agg T=$(mktemp -d)
TUNING=${TUNING:-bench/results/2026-11-23-nvidia-h200-evict-first/scan_tuning.conf}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for k in inclSumF32 exclSumI32; do
  for n in 1048576 4194304 16777216 30000001 67108864 268435456; do
    # the first line of TUNING naming k whose range holds n (as patc_scan chooses)
    read -r bps ef nt ipt < <(awk -v k=$k -v n=$n '$1 == k && n >= $2 && n <= $3 {
        ef = 0; nt = 0; ipt = 0
        for (i = 5; i <= NF && $i !~ /^#/; i++) { if ($i == "evict_first") ef = 1; if ($i ~ /^nt=/) nt = substr($i, 4); if ($i ~ /^ipt=/) ipt = substr($i, 5) }
        print $4, ef, nt, ipt; exit }' "$TUNING")
    mb=0; [ "$bps" -gt 1 ] && mb=$bps
    o=(-D nt=$nt -D ipt=$ipt); [ $mb -gt 0 ] && o+=(--min-blocks $mb); [ $ef = 1 ] && o+=(--evict-first)
    "$P" --emit-cuda examples/scan_device.rise --kernel $k "${o[@]}" > $T/$k.$n.cu || exit 1
    python3 $D/gen.py $T/$k.$n.cu $T/$k.$n.early.cu || exit 1
    echo "$k $n $nt $ipt $mb $ef $T/$k.$n.early.cu" >> $T/cases.txt
  done
done
cat $T/cases.txt
nvcc -O3 -arch=sm_90 -std=c++17 -diag-suppress 177 -Iruntime -Ibench -o $T/early $D/early.cu \
    -Lbuild/runtime -lpatrt -Xlinker -rpath=$PWD/build/runtime || exit 1
$T/early examples/scan_device.rise $T/cases.txt
