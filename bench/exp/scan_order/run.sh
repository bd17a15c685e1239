#!/usr/bin/env bash
# The scan-order experiment (README.md): patterns/scan.rise as it is (A) against
# scan_localfirst.rise (B), each in a tree of its own with examples/scan_device.rise, timed
# by ab.cu through patc_scan with TUNING (default: the evict-first run's tuned settings).
# On the GPU machine, from the repository root with build/ carried:
#   bash bench/exp/scan_order/run.sh > run.txt
set -u
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATC_CACHE_DIR=$(mktemp -d)
D=bench/exp/scan_order T=$(mktemp -d)
TUNING=${TUNING:-bench/results/2026-11-23-nvidia-h200-evict-first/scan_tuning.conf}
for v in A B; do mkdir -p $T/$v/examples $T/$v/patterns; cp examples/scan_device.rise $T/$v/examples/; done
cp patterns/scan.rise $T/A/patterns/
cp ${B_PATTERN:-$D/scan_localfirst.rise} $T/B/patterns/scan.rise
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -O3 -arch=sm_90 -std=c++17 -diag-suppress 177 -Iruntime -Ibench -o $T/ab $D/ab.cu \
    -Lbuild/runtime -lpatrt -Xlinker -rpath=$PWD/build/runtime || exit 1
$T/ab $T/A/examples/scan_device.rise $T/B/examples/scan_device.rise "$TUNING"
