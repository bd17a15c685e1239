#!/usr/bin/env bash
# histogram_run.sh: on the GPU machine, build bench/histogram_bench.cu with nvcc against patc's
# build (build/runtime/libpatrt.a, carried from the CPU machine) and run it: the
# histograms of examples/histogram.rise against CUB DeviceHistogram::HistogramEven
# (see histogram_bench.cu's header; issue 33 item 2).
#   bash bench/histogram_run.sh [OUTDIR] [n ...]
# OUTDIR: default $OUT when set, else bench/results/<YYYY-MM-DD>-<gpu-name-slug>-histogram.
# Writes OUTDIR/histogram.csv, histogram.md, histogram.txt (the console) and command.txt (the exact
# commands, the GPU, driver and nvcc); the build and the environment are driver_run.sh's.
# Exit status: histogram_bench's (1: a result differed from CUB's), 3 when the build fails.
. "$(dirname "$0")/driver_run.sh"
OUTDIR=${1:-$(bench_outdir histogram)}
[ $# -gt 0 ] && shift
bench_build_run histogram "$OUTDIR" "$BUILD/histogram_bench" "$OUTDIR" "$ROOT/examples/histogram.rise" "$@"
