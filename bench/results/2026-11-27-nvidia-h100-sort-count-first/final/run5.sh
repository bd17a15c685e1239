#!/bin/bash
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name --format=csv,noheader
SC=bench/tmp/new2/sort_check
( time $SC u32 268435457 uniform ) 2>&1 | tail -4 | tee $OUT/p1.txt
( time $SC --pairs=u32 f32 268435457 few ) 2>&1 | tail -4 | tee $OUT/p2.txt
