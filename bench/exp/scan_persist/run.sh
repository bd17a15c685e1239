#!/bin/bash
# run.sh: builds and runs the persistent-scan experiment, then racecheck and synccheck on
# its small mode. Run from the repository root on the GPU machine (nvcc there, no network):
#   bash bench/exp/scan_persist/run.sh
# Everything goes to stdout. Takes about 1-6 minutes (each sanitizer run is cut at 150 s).
set -u
D=bench/exp/scan_persist
CUDA_BIN=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")
NVCC=${NVCC:-$CUDA_BIN/nvcc}
SAN=${SAN:-$CUDA_BIN/compute-sanitizer}
[ -x "$SAN" ] || SAN=$(command -v compute-sanitizer || echo compute-sanitizer)
B=$(mktemp -d)
echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null)"
echo "== $($NVCC --version | tail -1)"
echo "== build"
$NVCC -O3 -arch=sm_90 -std=c++17 -I bench -Xptxas -v -o $B/persist $D/persist.cu 2>&1 \
  | grep -E "warning|error|Compiling entry function '(_Z14persistScanF32|inclSumF32)|registers|spill" \
  | grep -A2 -E "warning|error|persistScanF32|inclSumF32'" | grep -v "^--$"
[ -x $B/persist ] || { echo "build failed"; exit 1; }
echo "== run (checks, then timing)"
timeout 300 $B/persist; echo "persist exit status $?"
echo "== racecheck (--check-small)"
timeout 150 $SAN --tool racecheck $B/persist --check-small 2>&1 | tail -n 40; echo "racecheck exit status ${PIPESTATUS[0]}"
echo "== synccheck (--check-small)"
timeout 150 $SAN --tool synccheck $B/persist --check-small 2>&1 | tail -n 40; echo "synccheck exit status ${PIPESTATUS[0]}"
rm -rf $B
