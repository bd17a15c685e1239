set -u
R=$OUT
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt
( PATC_BUILD=$PWD/bench/tmp/pf BENCH_BUILD=/tmp/bb_pf bash bench/sort_run.sh $R/new --types u32,f32,f32+u32 4097 8193 1048576 16777216 67108864 268435456 > $R/new.log 2>&1; echo "new rc=$?" )
( PATC_BUILD=$PWD/bench/tmp/cur BENCH_BUILD=/tmp/bb_cur bash bench/sort_run.sh $R/base --types u32,f32,f32+u32 16777216 67108864 268435456 > $R/base.log 2>&1; echo "base rc=$?" )
grep -h "2^2[68] " $R/new/sort.txt $R/base/sort.txt | awk '{print $1,$2,$3,$11,$14,$15,$16}'
cd $R && tar czf res.tgz new base *.log && rm -rf new base
