set -u
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt
PATC_BUILD=bench/tmp/cur bash bench/sort_kernels.sh $OUT/k u32:uniform:268435456 f32:uniform:268435456 f32+u32:uniform:268435456 f32+u32:uniform:67108864 f32+u32:uniform:16777216 f32:few:268435456 > $OUT/k.log 2>&1
echo rc=$?
tail -120 $OUT/k/kernels.txt
cd $OUT && tar czf k.tgz k && rm -rf k
