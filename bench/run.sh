#!/usr/bin/env bash
# run.sh: the whole reduction benchmark in one command, on the GPU machine:
#   1. build bench_main with nvcc (CUB and the hand-written baselines) against libpatrt;
#   2. patc tune: search the single-launch reductions' settings on this GPU
#      (OUTDIR/tuning.conf, log in OUTDIR/tune.log);
#   3. bench_main: every implementation, timed the same way (interleaved; alone and
#      queued), patc through libpatrt with the settings of step 2;
#   4. matmul_bench: examples/matmul_tiled.rise against cuBLAS SGEMM (OUTDIR/matmul.txt,
#      matmul.csv);
#   5. patc tune --scan at every power of two from 2^10 to 2^28 (examples/scan_device.rise's
#      tile shapes, and examples/scan_pipe.rise's scanPipe shapes as an alternative), then
#      scan_bench: patc's single-pass scans (patc_scan with the tuned settings) against CUB
#      DeviceScan and a copy, with the row scan (examples/scan_rows.rise), Blelloch's
#      (examples/scan_blelloch.rise) and scanPipe alone at 16x12x9 as information
#      (OUTDIR/scan_tuning.conf, scan.txt, scan.csv, scan.png);
#   6. select_bench: patc's filter and partition (examples/filter.rise, partition.rise)
#      against CUB DeviceSelect::If / DevicePartition::If and a copy, f32 and i32, 1%, 50%
#      and 99% selected (OUTDIR/select.txt, select.csv, select.md, select.png); the tile
#      shapes from $SELECT_TUNING (default bench/select_tuning.conf; lines "KERNEL N_MIN N_MAX 1 nt=.. ipt=.."),
#      nt=128 ipt=16 where no line covers n;
#   7. plot.py: OUTDIR/plot.png.
#   bash bench/run.sh [OUTDIR] [bench_main options...]
# BENCH_ONLY=scan runs step 5 alone, BENCH_ONLY=matmul step 4, BENCH_ONLY=select step 6.
# OUTDIR defaults to bench/results/<YYYY-MM-DD>-<gpu-name-slug>.
# Env: CUDA_HOME (default: from nvcc on PATH, else /usr/local/cuda), BENCH_BUILD (bench
# build dir), PATC_BUILD (patc's CMake build dir with cli/patc and runtime/libpatrt.so;
# default: build/ next to this directory), TUNE_ARGS (extra patc tune options).
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
ROOT=$(cd "$HERE/.." && pwd)
PB=${PATC_BUILD:-$ROOT/build}
mkdir -p "$BUILD"
[ -x "$PB/cli/patc" ] && [ -e "$PB/runtime/libpatrt.so" ] || { echo "no patc build in $PB (set PATC_BUILD)"; exit 3; }

scan_bench() {
    echo "== scan: patc's examples/scan_device.rise beside CUB DeviceScan"
    "$NVCC" -O3 -arch=sm_90 -std=c++17 -diag-suppress 177 -I"$ROOT/runtime" -o "$BUILD/scan_bench" "$HERE/scan_bench.cu" \
        -L"$PB/runtime" -lpatrt -Xlinker -rpath="$PB/runtime" || { echo "scan build failed"; return 3; }
    # each scan's shapes, and scanPipe's (examples/scan_pipe.rise) as an alternative
    local tune=("$PB/cli/patc" tune "$ROOT/examples/scan_device.rise" --scan inclSumF32 --pipe scan_pipe.rise:inclSumF32
                --scan exclSumF32 --pipe scan_pipe.rise:exclSumF32 --scan inclSumI32 --pipe scan_pipe.rise:inclSumI32
                --scan exclSumI32 --pipe scan_pipe.rise:exclSumI32 --step-log 1 --out "$OUTDIR/scan_tuning.conf")
    "${tune[@]}" > "$OUTDIR/scan_tune.log" 2>&1 || { echo "patc tune --scan failed:"; tail -5 "$OUTDIR/scan_tune.log"; return 3; }
    grep -v '^#' "$OUTDIR/scan_tuning.conf"
    # the row scan (seed 000, three launches) as information: r rows chosen per size range
    { for k in inclSumF32 exclSumI32; do
        echo "$k 1 65536 1 nt=128 ipt=25 r=8"
        echo "$k 65537 1048576 1 nt=128 ipt=25 r=66"
        echo "$k 1048577 1099511627776 1 nt=128 ipt=25 r=264"
      done; } > "$OUTDIR/rows_tuning.conf"
    # Blelloch's scan (seed 002, 512-element tiles joined by lookback) has no settings
    printf 'inclSumF32 1 1099511627776 1\nexclSumI32 1 1099511627776 1\n' > "$OUTDIR/blelloch_tuning.conf"
    # scanPipe (the warp-specialised scan) at the shape that fills an H200's shared memory
    printf 'inclSumF32 1 1099511627776 1 w=16 ipt=12 s=9\nexclSumI32 1 1099511627776 1 w=16 ipt=12 s=9\n' > "$OUTDIR/pipe_tuning.conf"
    "$BUILD/scan_bench" "$OUTDIR" "$ROOT/examples/scan_device.rise" "$OUTDIR/scan_tuning.conf" \
        --extra rows "$ROOT/examples/scan_rows.rise" "$OUTDIR/rows_tuning.conf" \
        --extra blelloch "$ROOT/examples/scan_blelloch.rise" "$OUTDIR/blelloch_tuning.conf" \
        --extra pipe "$ROOT/examples/scan_pipe.rise" "$OUTDIR/pipe_tuning.conf" 2>&1 | tee "$OUTDIR/scan.txt"
    local r=${PIPESTATUS[0]}
    echo "scan: ${tune[*]}; $NVCC -O3 -arch=sm_90 -std=c++17 scan_bench.cu -lpatrt; $BUILD/scan_bench $OUTDIR examples/scan_device.rise $OUTDIR/scan_tuning.conf --extra rows examples/scan_rows.rise $OUTDIR/rows_tuning.conf --extra blelloch examples/scan_blelloch.rise $OUTDIR/blelloch_tuning.conf --extra pipe examples/scan_pipe.rise $OUTDIR/pipe_tuning.conf (exit $r)" >> "$OUTDIR/command.txt"
    python3 "$HERE/plot.py" --scan "$OUTDIR/scan.csv" "$OUTDIR/scan.png" || echo "scan plot failed"
    return $r
}
if [ "${BENCH_ONLY:-}" = scan ]; then
    scan_bench
    exit $?
fi
select_bench() {
    echo "== select: patc's examples/filter.rise and partition.rise beside CUB DeviceSelect / DevicePartition"
    "$NVCC" -O3 -arch=sm_90 -std=c++17 -diag-suppress 177 -I"$ROOT/runtime" -o "$BUILD/select_bench" "$HERE/select_bench.cu" \
        -L"$PB/runtime" -lpatrt -Xlinker -rpath="$PB/runtime" || { echo "select build failed"; return 3; }
    local tuning=${SELECT_TUNING:-$HERE/select_tuning.conf}
    "$BUILD/select_bench" "$OUTDIR" "$ROOT/examples/filter.rise" "$ROOT/examples/partition.rise" "$tuning" 2>&1 | tee "$OUTDIR/select.txt"
    local r=${PIPESTATUS[0]}
    echo "select: $NVCC -O3 -arch=sm_90 -std=c++17 select_bench.cu -lpatrt; $BUILD/select_bench $OUTDIR examples/filter.rise examples/partition.rise $tuning (exit $r)" >> "$OUTDIR/command.txt"
    python3 "$HERE/plot.py" --select "$OUTDIR/select.csv" "$OUTDIR/select.png" || echo "select plot failed"
    return $r
}
if [ "${BENCH_ONLY:-}" = select ]; then
    select_bench
    exit $?
fi
matmul_bench() {
    echo "== matmul: patc's examples/matmul_tiled.rise beside cuBLAS SGEMM"
    "$NVCC" -O3 -arch=sm_90 -std=c++17 -I"$ROOT/runtime" -o "$BUILD/matmul_bench" "$HERE/matmul_bench.cu" \
        -L"$PB/runtime" -lpatrt -lcublas -Xlinker -rpath="$PB/runtime" || { echo "matmul build failed"; return 3; }
    "$BUILD/matmul_bench" --rise "$ROOT/examples/matmul_tiled.rise" --out "$OUTDIR" 2>&1 | tee "$OUTDIR/matmul.txt"
    local r=${PIPESTATUS[0]}
    echo "matmul: $NVCC -O3 -arch=sm_90 -std=c++17 matmul_bench.cu -lpatrt -lcublas (exit $r)" >> "$OUTDIR/command.txt"
    return $r
}
if [ "${BENCH_ONLY:-}" = matmul ]; then
    matmul_bench
    exit $?
fi

echo "== build ($NVCC)"
"$NVCC" -O3 -arch=sm_90 -std=c++17 -diag-suppress 177 -I"$ROOT/runtime" \
    -o "$BUILD/bench_main" "$HERE/bench_main.cu" "$HERE/baselines.cu" \
    -L"$PB/runtime" -lpatrt -Xlinker -rpath="$PB/runtime" || { echo "build failed"; exit 3; }

echo "== tune"
TUNE_CMD=("$PB/cli/patc" tune "$ROOT/examples/reduce_fast.rise" --kernel reduceSumF32 --alt reduceSumF32OneBlock
          --kernel reduceSumI32 --alt reduceSumI32OneBlock --kernel reduceMaxF32 --alt reduceMaxF32OneBlock
          --out "$OUTDIR/tuning.conf" ${TUNE_ARGS:-})
"${TUNE_CMD[@]}" > "$OUTDIR/tune.log" 2>&1 || { echo "patc tune failed:"; tail -20 "$OUTDIR/tune.log"; exit 3; }
tail -1 "$OUTDIR/tune.log"

echo "== run"
"$BUILD/bench_main" --out "$OUTDIR" --rise "$ROOT/examples/reduce_fast.rise" --tuning "$OUTDIR/tuning.conf" \
    --multipass-rise "$ROOT/examples/reduce_block_shfl.rise" "$@" 2>&1 | tee "$OUTDIR/log.txt"
rc=${PIPESTATUS[0]}

{
    echo "run.sh: bash $0 $OUTDIR $*"
    echo "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null | head -1)"
    echo "nvcc: $("$NVCC" --version | tail -1)"
    echo "build: $NVCC -O3 -arch=sm_90 -std=c++17 bench_main.cu baselines.cu -lpatrt"
    echo "tune: ${TUNE_CMD[*]}"
    echo "bench_main exit status: $rc"
} >> "$OUTDIR/command.txt"

matmul_bench || rc=3
scan_bench || rc=3
select_bench || rc=3

echo "== plot"
python3 "$HERE/plot.py" "$OUTDIR/results.csv" "$OUTDIR/plot.png" || echo "plot failed (matplotlib missing?)"
echo "results in $OUTDIR"
exit $rc
