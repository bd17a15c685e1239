set -u
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/sk bench/sort_kernels.cu bench/tmp/xms/runtime/libpatrt.a -ldl -lm -lpthread || exit 1
{
for c in "f32+u32 uniform 16777216" "f32+u32 uniform 67108864" "f32+u32 few 67108864" "f32+u32 uniform 268435456"; do
  for rep in 1 2; do
    for x in 0 1 2; do
      echo "xms$x | $(PATC_XMS=$x /tmp/sk --root $PWD $c 21)"
    done
  done
done
} 2>&1 | tee $OUT/x1.txt
