#!/usr/bin/env bash
# The ceiling experiment (README.md): emits the generated kernels, rewrites their
# look-back (gen.py), builds ceiling.cu against libpatrt and runs it. On the GPU machine,
# from the repository root with build/ carried:  bash bench/exp/ceiling/run.sh > run.txt
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
P=$PWD/build/cli/patc D=bench/exp/ceiling T=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -1
"$P" --emit-cuda examples/scan_device.rise --kernel inclSumF32 -D nt=512 -D ipt=25 --min-blocks 4 > $T/scan.cu || exit 1
"$P" --emit-cuda examples/filter.rise --kernel filterGtF32 -D nt=512 -D ipt=32 > $T/filter.cu || exit 1
"$P" --emit-cuda examples/partition.rise --kernel partitionGtF32 -D nt=512 -D ipt=32 > $T/partition.cu || exit 1
for v in nowait nolb stats; do python3 $D/gen.py $v $T/scan.cu $T/scan.$v.cu || exit 1; done
python3 $D/gen.py nowait $T/filter.cu $T/filter.nowait.cu || exit 1
python3 $D/gen.py nowait $T/partition.cu $T/partition.nowait.cu || exit 1
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -diag-suppress 177 -Iruntime -Ibench -o $T/ceiling $D/ceiling.cu \
    -Lbuild/runtime -lpatrt -Xlinker -rpath=$PWD/build/runtime || exit 1
$T/ceiling examples/scan_device.rise examples/filter.rise examples/partition.rise $T
