#!/usr/bin/env bash
# The warp-specialised scan prototype (README.md): builds wspec.cu against libpatrt and
# runs it (checks against CUB, then timing beside CUB, a copy and patc_scan with TUNING).
# On the GPU machine, from the repository root with build/ carried:
#   bash bench/exp/wspec/run.sh > run.txt
# SAN=1: memcheck, racecheck and synccheck at small n first (SAN_LIMIT s each); INSTR=0: no
# per-role cycle counts at the end; PROG=wselect: the filter and partition (wselect.cu)
# instead, checked and timed beside CUB's DeviceSelect::If and DevicePartition::If
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
T=$(mktemp -d)
TUNING=${TUNING:-bench/results/2026-11-23-nvidia-h200-evict-first/scan_tuning.conf}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -1
P=${PROG:-wspec}
nvcc -O3 -arch=sm_90 -std=c++17 -diag-suppress 177 -Iruntime -Ibench -Xptxas -v -o $T/wspec bench/exp/wspec/$P.cu \
    -Lbuild/runtime -lpatrt -Xlinker -rpath=$PWD/build/runtime 2>&1 | grep -E "error|spill stores" | grep -v " 0 bytes spill"
[ -x $T/wspec ] || { echo "build failed"; exit 1; }
timeout 20 $T/wspec --check-small | grep -vE " ok$"; echo "check-small exit status ${PIPESTATUS[0]}"
if [ "${SAN:-0}" = 1 ]; then
    for tool in memcheck racecheck synccheck; do
        timeout ${SAN_LIMIT:-200} compute-sanitizer --tool $tool $T/wspec --check-small 2>&1 | tail -n 3
        echo "$tool exit status ${PIPESTATUS[0]}"
    done
fi
if [ $P = wselect ]; then timeout ${LIMIT:-300} $T/wspec; echo "wselect exit status $?"; exit; fi
timeout ${LIMIT:-300} $T/wspec examples/scan_device.rise "$TUNING"; echo "wspec exit status $?"
[ "${INSTR:-1}" = 1 ] && for n in 67108864 268435456; do timeout 60 $T/wspec --instr $n; done
