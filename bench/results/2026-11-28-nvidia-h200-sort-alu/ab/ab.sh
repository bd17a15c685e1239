#!/bin/bash
# EXPERIMENT: old (806e913) against new (this tree) libpatrt, each sort by events beside CUB
cd "$(dirname "$0")/../../.."
export PATC_CACHE_DIR=/tmp/pc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
X=bench/tmp/x
one() { # LABEL LIB-BIN TYPE INPUT N [ENV]
  echo "$1 $(env $6 $X/$2 --root $PWD $3 $4 $5 21 2>/dev/null | tail -1)"
}
{
for c in "f32 uniform 268435456" "f32 few 268435456" "u32 uniform 268435456" "f32+u32 uniform 268435456" "f32+u32 few 268435456" \
         "f32 uniform 67108864" "f32 few 67108864" "f32+u32 uniform 67108864" "u32 uniform 67108864" \
         "f32 uniform 16777219" "f32 few 16777219" "u32 uniform 16777219" "f32+u32 uniform 16777219" "f32 uniform 8388617" "f32+u32 uniform 1048583"; do
  one old sk_old $c
  one new sk_new $c
done
for c in "u32 uniform 268435456" "u32 few 268435456" "u32 uniform 67108864"; do one new-u32-512x24x3 sk_new $c PATC_XTILE=512,24,3; done
for c in "f32 uniform 16777219" "f32 few 16777219" "f32 uniform 8388617"; do one new-f32-512x24x3 sk_new $c PATC_XTILE=512,24,3; done
} 2>&1 | tee $OUT/ab.txt
