#!/usr/bin/env bash
# Tile shapes and look-back back-off (the __nanosleep in the wait loop) at mid sizes,
# `patc run --time` (median of 200), variants taking turns, three rounds:
#   bash bench/exp/timeline/sweep.sh
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
P=$PWD/build/cli/patc T=$(mktemp -d)
# ID file kernel n nt ipt minblocks sleep inputs
cases=()
for n in 262144 1048576 4194304; do
  for sh in "128 16" "256 32" "512 16" "1024 8" "512 8" "256 16"; do
    for z in 32 0 128 400; do cases+=("examples/filter.rise filterGtF32 $n $sh 0 $z value:0.5 random"); done
  done
done
for sh in "256 25 8" "512 25 4" "512 13 4" "1024 8 2"; do
  for z in 32 0 128 400; do cases+=("examples/scan_device.rise inclSumF32 1048576 $sh $z random"); done
done
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    set -- $c
    f=$1 k=$2 n=$3 nt=$4 ipt=$5 mb=$6 z=$7; shift 7
    ins=(); for i in "$@"; do ins+=(--input "$i"); done
    mbo=(); [ "$mb" != 0 ] && mbo=(--min-blocks "$mb")
    d=(-D n=$n -D nt=$nt -D ipt=$ipt)
    cu=$T/$k.$n.$nt.$ipt.$z.cu
    if [ ! -f $cu ]; then
      "$P" --emit-cuda "$f" --kernel "$k" "${d[@]}" "${mbo[@]}" > $cu.tmp
      if [ $z = 0 ]; then sed 's/__nanosleep(32);//' $cu.tmp > $cu; else sed "s/__nanosleep(32);/__nanosleep($z);/" $cu.tmp > $cu; fi
      [ $round = 1 ] && [ $n -le 1048576 ] && { o=$("$P" run "$f" --kernel "$k" "${d[@]}" "${mbo[@]}" "${ins[@]}" --cuda $cu --check-against-cpu 2>&1) || echo "CHECK FAILED $c: $o"; }
    fi
    o=$("$P" run "$f" --kernel "$k" "${d[@]}" "${mbo[@]}" "${ins[@]}" --cuda $cu --time --repeat 200 2>&1)
    echo "time $k n=$n ${nt}x$ipt mb=$mb sleep=$z round=$round $(echo "$o" | grep -o 'kernel time: [0-9.]* ms')"
  done
done
