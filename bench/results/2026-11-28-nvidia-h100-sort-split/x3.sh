set -u
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/sk bench/sort_kernels.cu bench/tmp/xms/runtime/libpatrt.a -ldl -lm -lpthread || exit 1
{
for c in "f32+u32 uniform 16777216" "f32+u32 uniform 67108864" "f32+u32 few 67108864" "f32+u32 uniform 268435456"; do
  for rep in 1 2; do
    for t in 384,26 384,28 384,30 384,32 352,28 320,32; do
      echo "xms2 $t | $(PATC_XMS=2 PATC_XTILE=$t /tmp/sk --root $PWD $c 21)"
    done
  done
done
} 2>&1 | tee $OUT/x3.txt
# the sweep: the committed build and the split scatter (its tiles as committed) at the default sizes
PATC_BUILD=$PWD/bench/tmp/cur BENCH_BUILD=/tmp/bb_cur bash bench/sort_run.sh $OUT/cur --types f32+u32 > /dev/null 2>&1
PATC_XMS=2 PATC_BUILD=$PWD/bench/tmp/xms BENCH_BUILD=/tmp/bb_xms bash bench/sort_run.sh $OUT/xms2 --types f32+u32 > /dev/null 2>&1
tail -3 $OUT/cur/sort.txt $OUT/xms2/sort.txt
