set -u
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/skx bench/sort_kernels.cu bench/tmp/xpf/runtime/libpatrt.a -ldl -lm -lpthread || exit 1
for c in "u32 uniform 268435456" "f32 uniform 268435456" "f32+u32 uniform 67108864" "f32+u32 uniform 268435456"; do
  for v in -1,-1 66,-1 132,-1 264,-1 396,-1 -1,0 264,0 132,0; do
    if [[ $c != f32+u32* && $v != *,-1 ]]; then continue; fi
    echo "XPF=$v $(PATC_XPF=$v /tmp/skx --root $PWD $c 21)"
  done
done 2>&1 | tee $OUT/xpf.txt
