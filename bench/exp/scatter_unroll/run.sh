#!/usr/bin/env bash
# The scatter-loop experiment (gen.py): patc's filter and partition and four rewrites of
# their column walk, each checked against the CPU interpreter at a ragged size with the
# same shape, then timed with `patc run --time` (median of 200 after 3 warm-ups), the
# variants taking turns, three rounds. On the GPU machine, from the repository root with
# build/ carried:  bash bench/exp/scatter_unroll/run.sh > run.txt
# Written without a GPU (2026-11-23, none was lent); gen.py's rewrites compile with nvcc.
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
P=$PWD/build/cli/patc G=bench/exp/scatter_unroll/gen.py T=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
variants="base U1 U8 U32 C8"
# file kernel n nt ipt t
cases=(
  "filter.rise filterGtF32 262144 128 16 0.5"
  "filter.rise filterGtF32 1048576 256 32 0.5"
  "filter.rise filterGtF32 1048576 512 16 0.5"
  "filter.rise filterGtF32 4194304 256 32 0.5"
  "filter.rise filterGtF32 16777216 256 32 0.5"
  "filter.rise filterGtF32 268435456 512 32 0.5"
  "partition.rise partitionGtF32 1048576 256 32 0.5"
  "partition.rise partitionGtF32 268435456 512 32 0.5"
)
make() { # file kernel n nt ipt dir: the variants' .cu files for that n
  "$P" --emit-cuda examples/$1 --kernel $2 -D n=$3 -D nt=$4 -D ipt=$5 > $6/base.cu || return 1
  for v in $variants; do [ $v = base ] || python3 $G $6/base.cu $6/$v.cu $v || return 1; done
}
for c in "${cases[@]}"; do
  set -- $c
  f=$1 k=$2 n=$3 nt=$4 ipt=$5 t=$6
  rn=1000003
  mkdir -p $T/r $T/t
  make $f $k $rn $nt $ipt $T/r && make $f $k $n $nt $ipt $T/t || exit 1
  for v in $variants; do
    o=$("$P" run examples/$f --kernel $k -D n=$rn -D nt=$nt -D ipt=$ipt --input value:$t --input random \
         --cuda $T/r/$v.cu --check-against-cpu 2>&1)
    echo "check $k n=$rn ${nt}x$ipt $v rc=$? $(echo "$o" | grep -o 'max relative error: [^ ]*' | head -1)"
  done
  for round in 1 2 3; do
    for v in $variants; do
      o=$("$P" run examples/$f --kernel $k -D n=$n -D nt=$nt -D ipt=$ipt --input value:$t --input random \
           --cuda $T/t/$v.cu --time --repeat 200 2>&1)
      echo "time $k n=$n ${nt}x$ipt $v round=$round $(echo "$o" | grep -o 'kernel time: [0-9.]* ms')"
    done
  done
done
