#!/usr/bin/env bash
# argmax_run.sh: on the GPU machine, build bench/argmax_bench.cu with nvcc against patc's
# build (build/runtime/libpatrt.a, carried from the CPU machine) and run it: patc's
# examples/argmax.rise (argmax and argmin in one launch) against cub::DeviceReduce::ArgMax
# and ArgMin and a copy of the same bytes (see argmax_bench.cu's header), n = 2^10 .. 2^28
# step 2 and 1000, 1000003, 2^20+7, 2^28-5, uniform and tie-heavy data.
#   bash bench/argmax_run.sh [--no-sweep] [--tuning FILE] [OUTDIR] [n ...]
# By default argmax_bench first sweeps patc's settings (--sweep) and uses the fastest per
# n (written to OUTDIR/argmax_tuning.conf); --no-sweep uses the defaults (or --tuning
# FILE's lines).
# OUTDIR: default $OUT when set, else bench/results/<YYYY-MM-DD>-<gpu-name-slug>-argmax.
# Writes OUTDIR/argmax.csv, argmax.md, argmax.txt (the console) and command.txt (the exact
# commands, the GPU, driver and nvcc). Env: PATC_BUILD (patc's CMake build, default
# build/), BENCH_BUILD (the binary's folder, default /tmp/patc-bench-build). Exit status:
# argmax_bench's (1: a result differed from CUB's), 3 when the build fails.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
NVCC=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
SLUG=$(printf '%s' "${GPU:-unknown-gpu}" | tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
opts=(--sweep)
while [ $# -gt 0 ]; do
    case $1 in
        --no-sweep) opts=("${opts[@]/--sweep}"); shift ;;
        --tuning) opts+=(--tuning "$2"); shift 2 ;;
        *) break ;;
    esac
done
OUTDIR=${1:-${OUT:-$HERE/results/$(date -u +%F)-$SLUG-argmax}}
[ $# -gt 0 ] && shift
PB=${PATC_BUILD:-$ROOT/build} BUILD=${BENCH_BUILD:-/tmp/patc-bench-build}
mkdir -p "$OUTDIR" "$BUILD" || exit 2
[ -e "$PB/runtime/libpatrt.a" ] || { echo "no $PB/runtime/libpatrt.a: build patc (and carry build/), or set PATC_BUILD"; exit 3; }
BUILD_CMD=("$NVCC" -O3 -arch=sm_90 -std=c++17 -I"$ROOT/runtime" -I"$HERE" -o "$BUILD/argmax_bench" "$HERE/argmax_bench.cu"
           "$PB/runtime/libpatrt.a" -ldl -lm -lpthread)
args=()
for o in "${opts[@]}"; do [ -n "$o" ] && args+=("$o"); done
RUN_CMD=("$BUILD/argmax_bench" "${args[@]}" "$OUTDIR" "$ROOT/examples/argmax.rise" "$@")
echo "== build: ${BUILD_CMD[*]}"
"${BUILD_CMD[@]}" || { echo "build failed"; exit 3; }
echo "== run: ${RUN_CMD[*]}"
"${RUN_CMD[@]}" 2>&1 | tee "$OUTDIR/argmax.txt"
rc=${PIPESTATUS[0]}
{
    echo "date: $(date -u '+%F %T UTC'), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "build: ${BUILD_CMD[*]}"
    echo "run: ${RUN_CMD[*]}"
    echo "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null | head -1)"
    echo "nvcc: $("$NVCC" --version | tail -1)"
    echo "argmax_bench exit status: $rc"
} >"$OUTDIR/command.txt"
echo "results in $OUTDIR"
exit $rc
