set -u
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
for v in pf pfv; do nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/sk_$v bench/sort_kernels.cu bench/tmp/$v/runtime/libpatrt.a -ldl -lm -lpthread || exit 1; done
{
for c in "f32+u32 uniform 67108864" "f32+u32 few 67108864" "f32+u32 uniform 268435456"; do
  for rep in 1 2; do
    echo "pf  | $(/tmp/sk_pf --root $PWD $c 21)"
    echo "pfv | $(PATC_XPFV=1 /tmp/sk_pfv --root $PWD $c 21)"
  done
done
} 2>&1 | tee $OUT/x5.txt
