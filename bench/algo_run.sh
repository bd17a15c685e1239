#!/usr/bin/env bash
# algo_run.sh: on the GPU machine, build bench/algo_bench.cu with nvcc against patc's
# build (build/runtime/libpatrt.a, carried from the CPU machine) and run it: the
# ready-made algorithms with their built-in settings (PATC_TUNING unset) against CUB
# (see algo_bench.cu's header).
#   bash bench/algo_run.sh [OUTDIR] [n ...]
# OUTDIR: default $OUT when set, else bench/results/<YYYY-MM-DD>-<gpu-name-slug>-algo.
# Writes OUTDIR/algo.csv, algo.md, algo.txt (the console) and command.txt (the exact
# commands, the GPU, driver and nvcc); the build and the environment are driver_run.sh's.
# Exit status: algo_bench's (1: a result differed from CUB's), 3 when the build fails.
. "$(dirname "$0")/driver_run.sh"
OUTDIR=${1:-$(bench_outdir algo)}
[ $# -gt 0 ] && shift
bench_build_run algo "$OUTDIR" env -u PATC_TUNING "$BUILD/algo_bench" --root "$ROOT" "$OUTDIR" "$@"
