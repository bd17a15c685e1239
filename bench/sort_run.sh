#!/usr/bin/env bash
# sort_run.sh: on the GPU machine, build bench/sort_bench.cu with nvcc against patc's
# build (build/runtime/libpatrt.a, carried from the CPU machine) and run it: libpatrt's
# radix sort (patc_sort_keys; patc_sort_pairs of f32 keys with u32 values, f64 keys
# with u64 values) against CUB's DeviceRadixSort::SortKeys and SortPairs (see
# sort_bench.cu's header).
#   bash bench/sort_run.sh [OUTDIR] [--types LIST] [--bits B:E] [--digit W] [--shrink] [n ...]
# OUTDIR: default $OUT when set, else bench/results/<YYYY-MM-DD>-<gpu-name-slug>-sort
# (also when the first argument is an option). The options and sizes go to sort_bench
# as they are: --types u32,f32,f32+u32,u64,f64,f64+u64 (the types run; default the
# first three), --bits B:E (adds u32 keys sorted by bits B..E-1), --digit W (patc's
# digit_bits), --shrink (also each n's first sort after one of the largest n, into
# shrink.csv); e.g. bash bench/sort_run.sh OUTDIR --types u64,f64,f64+u64 1024 1048576
# Writes OUTDIR/sort.csv, sort.md, sort.png (bench/plot.py --sort), sort.txt (the console)
# and command.txt (the exact commands, the GPU, driver and nvcc); the build and the
# environment are driver_run.sh's.
# Exit status: sort_bench's (1: a result differed from CUB's), 3 when the build fails.
. "$(dirname "$0")/driver_run.sh"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then OUTDIR=${1:-$(bench_outdir sort)}; shift; else OUTDIR=$(bench_outdir sort); fi
(bench_build_run sort "$OUTDIR" "$BUILD/sort_bench" --root "$ROOT" "$OUTDIR" "$@")
rc=$?
[ -s "$OUTDIR/sort.csv" ] && { python3 "$HERE/plot.py" --sort "$OUTDIR/sort.csv" "$OUTDIR/sort.png" || echo "sort plot failed (matplotlib missing?)"; }
exit $rc
