# driver_run.sh: what algo_run.sh, argmax_run.sh, histogram_run.sh and sort_run.sh share, sourced by
# each: build bench/NAME_bench.cu with nvcc against patc's build (build/runtime/libpatrt.a,
# carried from the CPU machine), run it with its console kept in OUTDIR/NAME.txt, and
# write OUTDIR/command.txt (the exact commands, the GPU, driver and nvcc).
# Env: PATC_BUILD (patc's CMake build, default build/), BENCH_BUILD (the binary's folder,
# default /tmp/patc-bench-build), OUT (the default OUTDIR).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
NVCC=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
SLUG=$(printf '%s' "${GPU:-unknown-gpu}" | tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
PB=${PATC_BUILD:-$ROOT/build} BUILD=${BENCH_BUILD:-/tmp/patc-bench-build}

# bench_outdir NAME: $OUT when set, else bench/results/<YYYY-MM-DD>-<gpu-name-slug>-NAME
bench_outdir() { echo "${OUT:-$HERE/results/$(date -u +%F)-$SLUG-$1}"; }

# bench_build_run NAME OUTDIR CMD...: build $BUILD/NAME_bench, run CMD, and exit with its
# status (2: OUTDIR cannot be made, 3: no libpatrt.a or the build failed)
bench_build_run() {
    local name=$1 outdir=$2 rc
    shift 2
    mkdir -p "$outdir" "$BUILD" || exit 2
    [ -e "$PB/runtime/libpatrt.a" ] || { echo "no $PB/runtime/libpatrt.a: build patc (and carry build/), or set PATC_BUILD"; exit 3; }
    local build=("$NVCC" -O3 -arch=sm_90 -std=c++17 -I"$ROOT/runtime" -I"$HERE" -o "$BUILD/${name}_bench"
                 "$HERE/${name}_bench.cu" "$PB/runtime/libpatrt.a" -ldl -lm -lpthread)
    echo "== build: ${build[*]}"
    "${build[@]}" || { echo "build failed"; exit 3; }
    echo "== run: $*"
    "$@" 2>&1 | tee "$outdir/$name.txt"
    rc=${PIPESTATUS[0]}
    {
        echo "date: $(date -u '+%F %T UTC'), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
        echo "build: ${build[*]}"
        echo "run: $*"
        echo "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null | head -1)"
        echo "nvcc: $("$NVCC" --version | tail -1)"
        echo "${name}_bench exit status: $rc"
    } >"$outdir/command.txt"
    echo "results in $outdir"
    exit "$rc"
}
