set -u
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -Ibench -o /tmp/skx bench/sort_kernels.cu bench/tmp/xpf/runtime/libpatrt.a -ldl -lm -lpthread || exit 1
run() { echo "$1 | $(env $1 /tmp/skx --root $PWD $2 21)"; }
{
for ty in u32 f32; do
  c="$ty uniform 268435456"
  for v in -1,-1 16,-1 33,-1 48,-1 66,-1 90,-1; do run "PATC_XPF=$v" "$c"; done
  run "PATC_XPF=-1,-1 PATC_XLDCS=1" "$c"
  run "PATC_XPF=48,-1 PATC_XLDCS=1" "$c"
done
c="f32 uniform 268435456"
for v in -1,-1 48,-1 99,-1; do run "PATC_XPF=$v PATC_XTILE=384,20,3" "$c"; done
run "PATC_XPF=48,-1 PATC_XTILE=512,20" "$c"
for n in 67108864 268435456; do
  c="f32+u32 uniform $n"
  for v in -1,-1 16,-1 33,-1; do run "PATC_XPF=$v" "$c"; done
  run "PATC_XPF=-1,-1 PATC_XLDCS=1" "$c"
done
} 2>&1 | tee $OUT/x3.txt
