set -u
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
rm -rf build && mv build-slim build
( PATC_BUILD=$PWD/bench/tmp/pf BENCH_BUILD=/tmp/bb_pf bash bench/sort_run.sh $R/new --types u32,f32,f32+u32,u64 > $R/new.log 2>&1; echo "new rc=$?" )
( PATC_BUILD=$PWD/bench/tmp/cur BENCH_BUILD=/tmp/bb_cur bash bench/sort_run.sh $R/base --types u32,f32,f32+u32,u64 8193 1048576 16777216 67108864 268435456 > $R/base.log 2>&1; echo "base rc=$?" )
( PATC_BUILD=bench/tmp/pf bash bench/sort_kernels.sh $R/kern f32:uniform:268435456 f32+u32:uniform:67108864 > $R/kern.log 2>&1; echo "kern rc=$?" )
( OUT=$R/allm timeout 200 bash tests/gpu/all.sh --quick --no-bench --sections m > $R/allm.log 2>&1; echo "all m rc=$?" )
tail -3 $R/allm.log
grep -h "2^28 " $R/new/sort.txt | head -12
cd $R && tar czf res.tgz new base kern allm *.log && rm -rf new base kern allm
