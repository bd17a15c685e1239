#!/usr/bin/env bash
# tests/fuzz/run.sh [SECONDS] [LIBFUZZER_FLAG...]: fuzz the front end, the CUDA emitter
# and the CPU interpreter (tests/fuzz/fuzz_frontend.c) for SECONDS, 60 by default, after
# a first pass over the seeds and the corpus; 0 stops after that pass (the ctest
# fuzz_seeds).
#
# It configures and builds build-fuzz/ with clang, libFuzzer, ASan and UBSan
# (-DPATC_FUZZ=ON), then runs the target with the language's dictionary (rise.dict) on
# the repository's .rise programs as seeds (read, never written) and its own corpus,
# build-fuzz/fuzz/corpus/, which keeps what earlier runs found. The exit status is
# nonzero on any crash, sanitizer report, leak, timeout (an input running 30 s) or
# memory blow-up (2 GB); the input that caused it is kept in build-fuzz/fuzz/crashes/
# (crash-*, leak-*, timeout-*, oom-*), and `build-fuzz/tests/fuzz/fuzz_frontend FILE`
# runs it again. An input of 5 s or more is kept there too (slow-unit-*, the slowest so
# far each time) without stopping the run.
#
# Environment: PATC_FUZZ_BUILD, the build directory (build-fuzz); PATC_FUZZ_JOBS, the
# build's parallelism (nproc); CC, the compiler (clang); PATC_FUZZ_BIN, a built
# fuzz_frontend to run instead of building one (the ctests), with PATC_FUZZ_DIR for
# the corpus and crashes (PATC_FUZZ_BUILD/fuzz).
set -euo pipefail
cd "$(dirname "$0")/../.."

secs=${1:-60}
[ $# -gt 0 ] && shift
if ! [[ $secs =~ ^[0-9]+$ ]]; then
    echo "usage: tests/fuzz/run.sh [SECONDS] [LIBFUZZER_FLAG...]" >&2
    exit 2
fi
build=${PATC_FUZZ_BUILD:-build-fuzz}
bin=${PATC_FUZZ_BIN:-}
if [ -z "$bin" ]; then
    cc=${CC:-clang}
    if ! command -v "$cc" >/dev/null; then
        echo "tests/fuzz/run.sh: no $cc: the fuzz target needs clang, whose libFuzzer it links" >&2
        exit 2
    fi
    gen=()
    command -v ninja >/dev/null && gen=(-G Ninja)
    cmake -S . -B "$build" "${gen[@]}" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DPATC_FUZZ=ON -DPATC_BUILD_TESTS=OFF -DPATC_EMBED_CUBINS=OFF >/dev/null
    cmake --build "$build" --target fuzz_frontend -j "${PATC_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"
    bin=$build/tests/fuzz/fuzz_frontend
fi
dir=${PATC_FUZZ_DIR:-$build/fuzz}
mkdir -p "$dir/corpus" "$dir/crashes"

# The seeds: every directory of .rise programs (other files in them are seeds too,
# rejected at once). libFuzzer writes new inputs to the first directory only.
seeds=(examples examples/quicksort patterns tests/programs tests/thesis tests/err bench/exp/scan_order)
# A program named fuzz.rise imports relative to the current directory first: run in an
# empty one, so that no input finds a corpus or crash file by its name.
root=$PWD
abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
bin=$(abs "$bin")
dir=$(abs "$dir")
mkdir -p "$dir/cwd"
cd "$dir/cwd"
echo "tests/fuzz/run.sh: $bin for ${secs}s; new inputs in $dir/corpus, failures in $dir/crashes," \
     "the output in $dir/last.log"
# The timeout is far above what an input takes (milliseconds; a second for the largest
# seeds) because the instrumented build is about ten times slower than a user's: a
# compile whose -D hint search runs its 64 recompiles takes half a second in a release
# build and 6 s here, which is slow, not hung.
flags=(-dict="$root/tests/fuzz/rise.dict" -max_len=4096 -timeout=30 -report_slow_units=5 -rss_limit_mb=2048
       -print_final_stats=1 -artifact_prefix="$dir/crashes/" "$@" "$dir/corpus" "${seeds[@]/#/$root/}")
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
log=$dir/last.log
if [ "$secs" = 0 ]; then
    "$bin" -runs=0 "${flags[@]}" 2>&1 | tee "$log" || status=$?
else
    # SECONDS of fuzzing count from the end of the first pass over the seeds and the
    # corpus: libFuzzer's -max_total_time counts from its start, which the first pass
    # over a grown corpus can use up entirely (two minutes for 1,900 inputs). SIGUSR1
    # asks it to stop after the input at hand, with its final statistics.
    "$bin" "${flags[@]}" >"$log" 2>&1 &
    pid=$!
    # a background job of a script ignores ^C: pass it on
    trap 'kill "$pid" 2>/dev/null; exit 130' INT TERM
    tail -n +1 -f --pid="$pid" "$log" &
    while kill -0 "$pid" 2>/dev/null && ! grep -q '[[:space:]]INITED[[:space:]]' "$log"; do sleep 1; done
    end=$((SECONDS + secs))
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do sleep 1; done
    kill -USR1 "$pid" 2>/dev/null || true
    wait "$pid" || status=$?
    wait
    trap - INT TERM
fi
if [ "$status" != 0 ]; then
    echo "tests/fuzz/run.sh: the fuzzer stopped with status $status; the input is in $dir/crashes/" >&2
fi
if [ -n "$(ls -A "$dir/crashes")" ]; then
    echo "tests/fuzz/run.sh: in $dir/crashes (from this run or earlier ones):" >&2
    ls -lt "$dir/crashes" | tail -n +2 >&2
fi
exit "$status"
