#!/usr/bin/env bash
# The look-back window experiment (README.md): for each kernel and size, patc's kernel
# and four rewritten look-backs (gen.py), each checked against the CPU interpreter (n <=
# 2^24) and timed with `patc run --time` (CUDA events, median of 200 after 3 warm-ups),
# the five variants taking turns, three rounds. Run from the repository root on the GPU
# machine with build/ carried:  bash bench/exp/lookback_window/run.sh > run.txt
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
P=$PWD/build/cli/patc
G=bench/exp/lookback_window/gen.py
T=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
variants="W1E0 W1E1 W2E0 W4E0 W4E1"
# CASE: file kernel n nt ipt min-blocks inputs...
cases=(
  "examples/filter.rise filterGtF32 262144 128 16 0 value:0.5 random"
  "examples/filter.rise filterGtF32 1048576 256 32 0 value:0.5 random"
  "examples/filter.rise filterGtF32 4194304 256 32 0 value:0.5 random"
  "examples/filter.rise filterGtF32 16777216 256 32 0 value:0.5 random"
  "examples/filter.rise filterGtF32 268435456 512 32 0 value:0.5 random"
  "examples/filter.rise filterGtF32 1048576 128 16 0 value:0.5 random"
  "examples/filter.rise filterGtF32 4194304 128 16 0 value:0.5 random"
  "examples/scan_device.rise inclSumF32 1048576 256 25 8 random"
  "examples/scan_device.rise inclSumF32 4194304 256 25 8 random"
  "examples/scan_device.rise inclSumF32 16777216 256 25 8 random"
  "examples/scan_device.rise inclSumF32 268435456 512 25 4 random"
)
ci=0
for c in "${cases[@]}"; do
  set -- $c
  f=$1 k=$2 n=$3 nt=$4 ipt=$5 mb=$6; shift 6
  ins=(); for i in "$@"; do ins+=(--input "$i"); done
  mbo=(); [ "$mb" != 0 ] && mbo=(--min-blocks "$mb")
  d=(-D n=$n -D nt=$nt -D ipt=$ipt)
  "$P" --emit-cuda "$f" --kernel "$k" "${d[@]}" "${mbo[@]}" > $T/$ci.W1E0.cu
  for v in $variants; do
    [ $v = W1E0 ] && continue
    w=${v:1:1} e=${v:3:1}
    python3 $G $T/$ci.W1E0.cu $T/$ci.$v.cu $w $e || exit 1
  done
  if [ $n -le 16777216 ]; then
    for v in $variants; do
      o=$("$P" run "$f" --kernel "$k" "${d[@]}" "${mbo[@]}" "${ins[@]}" --cuda $T/$ci.$v.cu --check-against-cpu 2>&1)
      echo "check $k n=$n ${nt}x$ipt $v rc=$? $(echo "$o" | grep -o 'max relative error: [^ ]*')"
    done
  fi
  for round in 1 2 3; do
    for v in $variants; do
      o=$("$P" run "$f" --kernel "$k" "${d[@]}" "${mbo[@]}" "${ins[@]}" --cuda $T/$ci.$v.cu --time --repeat 200 2>&1)
      echo "time $k n=$n ${nt}x$ipt $v round=$round $(echo "$o" | grep -o 'kernel time: [0-9.]* ms')"
    done
  done
  ci=$((ci+1))
done
