set -u
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/sk bench/sort_kernels.cu bench/tmp/xms/runtime/libpatrt.a -ldl -lm -lpthread || exit 1
{
for c in "f32+u32 uniform 16777216" "f32+u32 uniform 67108864" "f32+u32 uniform 268435456"; do
  for rep in 1 2; do
    echo "xms0 512x20 | $(PATC_XMS=0 /tmp/sk --root $PWD $c 21)"
    for t in 512,20 512,21 512,22 448,22 384,24 384,26; do
      echo "xms2 $t | $(PATC_XMS=2 PATC_XTILE=$t /tmp/sk --root $PWD $c 21)"
    done
  done
done
} 2>&1 | tee $OUT/x2.txt
