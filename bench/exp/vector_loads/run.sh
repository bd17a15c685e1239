#!/usr/bin/env bash
# Scalar against 16-byte-vector tile loads (vec.py) in patc's look-back kernels, on the
# GPU machine with build/ carried:  bash bench/exp/vector_loads/run.sh > run.txt
# Each variant is checked against the CPU interpreter at a ragged n (the partial tile's
# scalar path) and timed with `patc run --time` (median of 200), variants taking turns,
# three rounds.
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
P=$PWD/build/cli/patc V=bench/exp/vector_loads/vec.py T=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# file kernel n nt ipt minblocks inputs
cases=(
  "examples/filter.rise filterGtF32 1048576 256 32 0 value:0.5 random"
  "examples/filter.rise filterGtF32 16777216 256 32 0 value:0.99 random"
  "examples/filter.rise filterGtF32 16777216 256 32 0 value:0.5 random"
  "examples/filter.rise filterGtF32 268435456 512 32 0 value:0.99 random"
  "examples/filter.rise filterGtF32 268435456 512 32 0 value:0.5 random"
  "examples/filter.rise filterGtF32 268435456 512 32 0 value:0.01 random"
  "examples/scan_device.rise inclSumF32 16777216 256 24 8 random"
  "examples/scan_device.rise inclSumF32 268435456 512 24 4 random"
  "examples/scan_device.rise inclSumF32 268435456 512 28 4 random"
)
emit() { # f k n nt ipt mb out
  local mbo=(); [ "$6" != 0 ] && mbo=(--min-blocks "$6")
  "$P" --emit-cuda "$1" --kernel "$2" -D n=$3 -D nt=$4 -D ipt=$5 "${mbo[@]}" > $7
}
for c in "${cases[@]}"; do
  set -- $c
  f=$1 k=$2 n=$3 nt=$4 ipt=$5 mb=$6; shift 6
  ins=(); for i in "$@"; do ins+=(--input "$i"); done
  # the vector path checked at a ragged size with the same shape
  rn=1000003
  emit $f $k $rn $nt $ipt $mb $T/r.cu && python3 $V $T/r.cu $T/rv.cu $rn || exit 1
  mbo=(); [ "$mb" != 0 ] && mbo=(--min-blocks "$mb")
  o=$("$P" run $f --kernel $k -D n=$rn -D nt=$nt -D ipt=$ipt "${mbo[@]}" "${ins[@]}" --cuda $T/rv.cu --check-against-cpu 2>&1)
  echo "check $k n=$rn ${nt}x$ipt vec rc=$? $(echo "$o" | grep -o 'max relative error: [^ ]*')"
  emit $f $k $n $nt $ipt $mb $T/s.cu && python3 $V $T/s.cu $T/v.cu $n || exit 1
  for round in 1 2 3; do
    for v in s v; do
      o=$("$P" run $f --kernel $k -D n=$n -D nt=$nt -D ipt=$ipt "${mbo[@]}" "${ins[@]}" --cuda $T/$v.cu --time --repeat 200 2>&1)
      echo "time $k n=$n ${nt}x$ipt $*  $v round=$round $(echo "$o" | grep -o 'kernel time: [0-9.]* ms')"
    done
  done
done
