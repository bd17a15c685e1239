#!/usr/bin/env bash
# The relay-scan prototype (README.md): builds relay.cu against libpatrt and runs it
# (checks against CUB, then timing beside CUB, a copy and patc's generated scan). On the
# GPU machine, from the repository root with build/ carried:
#   bash bench/exp/relay/run.sh > run.txt        SAN=1: also racecheck and synccheck, small n
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
T=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -1
nvcc -O3 -arch=sm_90 -std=c++17 -diag-suppress 177 -Iruntime -Ibench -Xptxas -v -o $T/relay bench/exp/relay/relay.cu \
    -Lbuild/runtime -lpatrt -Xlinker -rpath=$PWD/build/runtime 2>&1 | grep -E "error|spill|registers" | grep -B1 -E "error|registers"
[ -x $T/relay ] || { echo "build failed"; exit 1; }
$T/relay examples/scan_device.rise; echo "relay exit status $?"
if [ "${SAN:-0}" = 1 ]; then
    for tool in memcheck racecheck synccheck; do
        timeout 200 compute-sanitizer --tool $tool $T/relay --check-small 2>&1 | tail -n 4
        echo "$tool exit status ${PIPESTATUS[0]}"
    done
fi
