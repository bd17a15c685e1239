#!/usr/bin/env bash
# histogram_run.sh: on the GPU machine, build bench/histogram_bench.cu with nvcc against patc's
# build (build/runtime/libpatrt.a, carried from the CPU machine) and run it: the
# histograms of examples/histogram.rise against CUB DeviceHistogram::HistogramEven
# (see histogram_bench.cu's header; issue 33 item 2).
#   bash bench/histogram_run.sh [OUTDIR] [n ...]
# OUTDIR: default $OUT when set, else bench/results/<YYYY-MM-DD>-<gpu-name-slug>-histogram.
# Writes OUTDIR/histogram.csv, histogram.md, histogram.txt (the console) and command.txt (the exact
# commands, the GPU, driver and nvcc). Env: PATC_BUILD (patc's CMake build, default
# build/), BENCH_BUILD (the binary's folder, default /tmp/patc-bench-build). Exit status:
# histogram_bench's (1: a result differed from CUB's), 3 when the build fails.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
NVCC=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
SLUG=$(printf '%s' "${GPU:-unknown-gpu}" | tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
OUTDIR=${1:-${OUT:-$HERE/results/$(date -u +%F)-$SLUG-histogram}}
[ $# -gt 0 ] && shift
PB=${PATC_BUILD:-$ROOT/build} BUILD=${BENCH_BUILD:-/tmp/patc-bench-build}
mkdir -p "$OUTDIR" "$BUILD" || exit 2
[ -e "$PB/runtime/libpatrt.a" ] || { echo "no $PB/runtime/libpatrt.a: build patc (and carry build/), or set PATC_BUILD"; exit 3; }
BUILD_CMD=("$NVCC" -O3 -arch=sm_90 -std=c++17 -I"$ROOT/runtime" -I"$HERE" -o "$BUILD/histogram_bench" "$HERE/histogram_bench.cu"
           "$PB/runtime/libpatrt.a" -ldl -lm -lpthread)
RUN_CMD=("$BUILD/histogram_bench" "$OUTDIR" "$ROOT/examples/histogram.rise" "$@")
echo "== build: ${BUILD_CMD[*]}"
"${BUILD_CMD[@]}" || { echo "build failed"; exit 3; }
echo "== run: ${RUN_CMD[*]}"
"${RUN_CMD[@]}" 2>&1 | tee "$OUTDIR/histogram.txt"
rc=${PIPESTATUS[0]}
{
    echo "date: $(date -u '+%F %T UTC'), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "build: ${BUILD_CMD[*]}"
    echo "run: ${RUN_CMD[*]}"
    echo "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null | head -1)"
    echo "nvcc: $("$NVCC" --version | tail -1)"
    echo "histogram_bench exit status: $rc"
} >"$OUTDIR/command.txt"
echo "results in $OUTDIR"
exit $rc
