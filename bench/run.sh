#!/usr/bin/env bash
# run.sh: build bench_main with nvcc and run the whole reduction benchmark.
#   bash bench/run.sh [OUTDIR] [bench_main options...]
# OUTDIR defaults to bench/results/<YYYY-MM-DD>-<gpu-name-slug>.
# Example with patc kernels:  bash bench/run.sh /tmp/res --patc-dir path/to/patc-out
# Env: CUDA_HOME (default: from nvcc on PATH, else /usr/local/cuda), BENCH_BUILD (build dir).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
if command -v nvcc >/dev/null 2>&1; then NVCC=$(command -v nvcc); else NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc; fi
CUDA_HOME=${CUDA_HOME:-$(cd "$(dirname "$NVCC")/.." && pwd)}
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
SLUG=$(printf '%s' "${GPU:-unknown-gpu}" | tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
OUTDIR=${1:-$HERE/results/$(date -u +%F)-$SLUG}
[ $# -gt 0 ] && shift
mkdir -p "$OUTDIR" || exit 2
BUILD=${BENCH_BUILD:-/tmp/patc-bench-build}
mkdir -p "$BUILD"

echo "== build ($NVCC)"
"$NVCC" -O3 -arch=sm_90 -std=c++17 -diag-suppress 177 -DBENCH_CUDA_INCLUDE="\"$CUDA_HOME/include\"" \
    -o "$BUILD/bench_main" "$HERE/bench_main.cu" "$HERE/baselines.cu" \
    -L"$CUDA_HOME/lib64" -L"$CUDA_HOME/lib64/stubs" -Xlinker -rpath="$CUDA_HOME/lib64" -lnvrtc -lcuda || { echo "build failed"; exit 3; }

echo "== run"
"$BUILD/bench_main" --out "$OUTDIR" "$@" 2>&1 | tee "$OUTDIR/log.txt"
rc=${PIPESTATUS[0]}

{
    echo "run.sh: bash $0 $OUTDIR $*"
    echo "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null | head -1)"
    echo "nvcc: $("$NVCC" --version | tail -1)"
    echo "build: $NVCC -O3 -arch=sm_90 -std=c++17 bench_main.cu baselines.cu -lnvrtc -lcuda"
    echo "bench_main exit status: $rc"
} >> "$OUTDIR/command.txt"

echo "== plot"
python3 "$HERE/plot.py" "$OUTDIR/results.csv" "$OUTDIR/plot.png" || echo "plot failed (matplotlib missing?)"
echo "results in $OUTDIR"
exit $rc
