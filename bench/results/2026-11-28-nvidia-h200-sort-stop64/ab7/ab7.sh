#!/bin/bash
# stop 64: rank by shared-memory atomicOr match masks (one ATOMS.OR a key, CUB's
# WARP_MATCH_ATOMIC_OR idea) instead of eight ballots; per-warp counts as u16 halves of
# words shared by warp pairs (the masks take the 16 KiB the u32 counts had, so three
# blocks still fit an SM). m1: f32 pass; m1u: u32 pass; p0u: u32 pass as generated
# (reconstructed from p0, to show it equals main); mh: m1 with stop 61's h3 histogram.
cd "$(dirname "$0")/../../.."
D=bench/tmp/x61
N=268435456
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export PATC_CACHE_DIR=/tmp/pc
X=$PWD/$D/xv
one() { # VARIANT TYPE INPUT N REPS
  local v=$1; shift
  case $v in
    main) timeout 90 $D/sk --root $PWD "$@" ;;
    mh) PATC_XSRC="sortHistScan=$X/h3.cu;sortPassB2=$X/m1.cu" timeout 90 $D/sk --root $PWD "$@" ;;
    *) PATC_XSRC="sortPassB2=$X/$v.cu" timeout 90 $D/sk --root $PWD "$@" ;;
  esac 2>&1 | tail -1
}
( cd /tmp && for v in p0 m1; do nvcc -cubin -arch=sm_90 -O3 $X/$v.cu -o $v.cubin && cuobjdump -sass $v.cubin > $OUT/$v.sass; done ) 2>&1 | tail -3
for v in main m1 mh; do echo "warm $v: $(one $v f32 sorted 1048583 1)"; done
for v in p0u m1u; do echo "warm $v: $(one $v u32 sorted 1048583 1)"; done
for c in "f32 uniform 67108865" "f32 few 67108867" "f32 sorted 100000007" "f32 uniform 268435455"; do echo "check m1: $(one m1 $c 1)"; done
for c in "u32 uniform 33554433" "u32 few 100000007" "u32 sorted 268435455"; do echo "check m1u: $(one m1u $c 1)"; done
for r in 1 2 3; do
  for c in "f32 sorted" "f32 uniform" "f32 few"; do
    for v in main m1 mh; do echo "$r $v $(one $v $c $N 21)"; done
  done
  [ "$QUICK" = 1 ] && continue
  for c in "u32 uniform" "u32 sorted"; do
    for v in main p0u m1u; do echo "$r $v $(one $v $c $N 21)"; done
  done
done 2>&1 | tee $OUT/ab7.txt
