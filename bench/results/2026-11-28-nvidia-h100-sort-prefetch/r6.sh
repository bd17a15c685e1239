set -u
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
rm -rf build && mv build-slim build
( OUT=$OUT/allrs timeout 585 bash tests/gpu/all.sh --quick --no-bench --sections rs > $OUT/allrs.log 2>&1; echo "all rs rc=$?" )
tail -4 $OUT/allrs.log
cd $OUT && tar czf rs.tgz allrs allrs.log && rm -rf allrs
