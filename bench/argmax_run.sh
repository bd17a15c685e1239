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
# commands, the GPU, driver and nvcc); the build and the environment are driver_run.sh's.
# Exit status: argmax_bench's (1: a result differed from CUB's), 3 when the build fails.
. "$(dirname "$0")/driver_run.sh"
opts=()
sweep=--sweep
while [ $# -gt 0 ]; do
    case $1 in
        --no-sweep) sweep=; shift ;;
        --tuning) opts+=(--tuning "$2"); shift 2 ;;
        *) break ;;
    esac
done
OUTDIR=${1:-$(bench_outdir argmax)}
[ $# -gt 0 ] && shift
bench_build_run argmax "$OUTDIR" "$BUILD/argmax_bench" $sweep "${opts[@]}" "$OUTDIR" "$ROOT/examples/argmax.rise" "$@"
