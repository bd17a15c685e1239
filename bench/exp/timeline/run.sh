#!/usr/bin/env bash
# Per-block phase timelines of look-back kernels (instr.py), on the GPU machine:
#   bash bench/exp/timeline/run.sh OUTDIR
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
P=$PWD/build/cli/patc X=bench/exp/timeline O=$1
mkdir -p $O
cases=(
  "f18 examples/filter.rise filterGtF32 262144 128 16 0 value:0.5 random"
  "f20 examples/filter.rise filterGtF32 1048576 256 32 0 value:0.5 random"
  "f20s examples/filter.rise filterGtF32 1048576 128 16 0 value:0.5 random"
  "f24 examples/filter.rise filterGtF32 16777216 256 32 0 value:0.5 random"
  "s20 examples/scan_device.rise inclSumF32 1048576 256 25 8 random"
  "s24 examples/scan_device.rise inclSumF32 16777216 256 25 8 random"
)
for c in "${cases[@]}"; do
  set -- $c
  id=$1 f=$2 k=$3 n=$4 nt=$5 ipt=$6 mb=$7; shift 7
  ins=(); for i in "$@"; do ins+=(--input "$i"); done
  mbo=(); [ "$mb" != 0 ] && mbo=(--min-blocks "$mb")
  d=(-D n=$n -D nt=$nt -D ipt=$ipt)
  "$P" --emit-cuda "$f" --kernel "$k" "${d[@]}" "${mbo[@]}" > $O/$id.cu
  python3 $X/instr.py $O/$id.cu $O/$id.instr.cu
  "$P" run "$f" --kernel "$k" "${d[@]}" "${mbo[@]}" "${ins[@]}" --cuda $O/$id.cu --time --repeat 20 | grep "kernel time" | sed "s/^/$id plain /"
  "$P" run "$f" --kernel "$k" "${d[@]}" "${mbo[@]}" "${ins[@]}" --cuda $O/$id.instr.cu --time --repeat 2 > $O/$id.log 2>&1
  grep "kernel time" $O/$id.log | sed "s/^/$id instr /"
  python3 $X/summary.py $O/$id.log
done
