#!/usr/bin/env bash
# Cache hints on the look-back kernels' streaming loads and stores (hints.py), on the
# GPU machine with build/ carried:  bash bench/exp/cache_hints/run.sh > run.txt
# Each variant is checked against the CPU interpreter at a ragged n (partial last tile)
# and timed with `patc run --time` (median of 200 after warm-up), the variants taking
# turns, three rounds. patc run fixes every nat parameter (-D), n included, so each
# kernel is generated for its n.
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
P=$PWD/build/cli/patc H=bench/exp/cache_hints/hints.py T=$(mktemp -d)
VARIANTS=${VARIANTS:-"base ldcs stcs cs pf pfstcs"}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# file kernel n nt ipt minblocks inputs
cases=(
  "examples/scan_device.rise inclSumF32 268435456 512 25 4 random"
  "examples/filter.rise filterGtF32 268435456 512 32 0 value:0.5 random"
  "examples/partition.rise partitionGtF32 268435456 512 32 0 value:0.5 random"
  "examples/scan_device.rise inclSumF32 16777216 256 25 0 random"
  "examples/filter.rise filterGtF32 16777216 256 32 0 value:0.5 random"
)
for c in "${cases[@]}"; do
  set -- $c
  f=$1 k=$2 n=$3 nt=$4 ipt=$5 mb=$6; shift 6
  ins=(); for i in "$@"; do ins+=(--input "$i"); done
  mbo=(); [ "$mb" != 0 ] && mbo=(--min-blocks "$mb")
  "$P" --emit-cuda $f --kernel $k -D n=1000003 -D nt=$nt -D ipt=$ipt "${mbo[@]}" > $T/r.cu || exit 1
  "$P" --emit-cuda $f --kernel $k -D n=$n -D nt=$nt -D ipt=$ipt "${mbo[@]}" > $T/g.cu || exit 1
  for v in $VARIANTS; do
    python3 $H $v $T/r.cu $T/r$v.cu 2>/dev/null && python3 $H $v $T/g.cu $T/$v.cu 2>/dev/null || exit 1
    o=$("$P" run $f --kernel $k -D n=1000003 -D nt=$nt -D ipt=$ipt "${mbo[@]}" "${ins[@]}" --cuda $T/r$v.cu --check-against-cpu 2>&1)
    echo "check $k n=1000003 ${nt}x$ipt $v rc=$? $(echo "$o" | grep -o 'max relative error: [^ ]*\|mismatch[^\n]*' | head -1)"
  done
  for round in 1 2 3; do
    for v in $VARIANTS; do
      o=$("$P" run $f --kernel $k -D n=$n -D nt=$nt -D ipt=$ipt "${mbo[@]}" "${ins[@]}" --cuda $T/$v.cu --time --repeat 200 2>&1)
      echo "time $k n=$n ${nt}x$ipt $*  $v round=$round $(echo "$o" | grep -o 'kernel time: [0-9.]* ms')"
    done
  done
done
