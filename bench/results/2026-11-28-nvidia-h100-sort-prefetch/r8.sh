set -u
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
rm -rf build && mv build-slim build
export LD_LIBRARY_PATH=$PWD/build/extra-libs
cc -std=c11 -O2 -Iruntime -o /tmp/sc tests/gpu/sort_check.c build/runtime/libpatrt.a -ldl -lm -lpthread || exit 1
for c in "f32 268435456 few" "--pairs=u32 f32 268435456 uniform" "--desc --pairs=u32 f32 268435456 sorted" "i32 268435456 uniform" "f32 268435456 sorted"; do
  s=$(date +%s.%N); o=$(/tmp/sc $c 2>&1 | tail -1); e=$(date +%s.%N)
  echo "$c | $o | $(echo "$e - $s" | bc) s" | tee -a $OUT/s8.txt
done
