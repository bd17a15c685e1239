#!/usr/bin/env bash
# Experiment (issue 35): the one-launch small sort (sortTiles) at block shapes other than
# libpatrt's 1024 x 4 (bench/results/2026-11-26-nvidia-h100-sort-small: 14.9 us at n = 1000
# against CUB's 14.4, 20.6 at 4096 against 15.2), `patc run --time` (kernel time, median of
# 100) at n = 1000, 2048 and 4096 where the shape's tile holds n.
#   bash bench/msvar/7/run.sh OUTDIR       (on the GPU machine, from the repository root)
set -u
out=$1; P=build/cli/patc
mkdir -p "$out"
for rep in 1 2; do
  for n in 1000 2048 4096; do
    for k in s1024x4 s512x8 s256x16 s512x4 s256x8 s1024x2; do
      t=${k#s}; [ $(( ${t%x*} * ${t#*x} )) -ge $n ] || continue
      r=$("$P" run bench/msvar/7/small.rise --kernel $k -D n=$n --input random --time --repeat 100 2>&1)
      echo "$k n=$n: $(echo "$r" | grep -iE 'median|error|fail' | head -2 | tr '\n' ' ')" | tee -a "$out/msvar7.txt"
    done
  done
done
"$P" run bench/msvar/7/small.rise --kernel s512x8 -D n=4097 --input random --check-against-cpu 2>&1 | tail -1 | tee -a "$out/msvar7.txt"
