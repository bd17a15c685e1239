#!/usr/bin/env bash
# run_gpu.sh: the GPU acceptance run of `patc run`, one command on the GPU machine.
#
# Usage (from the repository root, with build/ built elsewhere and carried over; the
# GPU machine needs no flex, bison or check):
#     cmake -S . -B build -G Ninja && ninja -C build      # on the build machine
#     tests/gpu/run_gpu.sh                                 # on the GPU machine
# Environment: PATC (default build/cli/patc), OUT (results folder, default
# ./gpu-results), QUICK=1 (sizes 1, 33, 1000 only), SANITIZER (path of
# compute-sanitizer; default from PATH or /usr/local/cuda/bin).
#
# What it does:
#   1. every row of the CASES table below, for every -D set, runs
#      `patc run FILE --kernel K -D ... --input random... --check-against-cpu`
#      (GPU result against the CPU interpreter; reductions are relaunched to one value);
#   2. a subset (SAN_SIZES; the first three -D sets of fixed-size rows) again under
#      compute-sanitizer --tool memcheck / racecheck / synccheck --error-exitcode 1;
#   3. the warm-cache check: the reduction twice with --time and an empty cache dir;
#      the second run's compile step must be a cache hit below 2 ms.
# Writes $OUT/results.csv (step,case,defines,tool,status,time), $OUT/run.log (every
# command and its output) and $OUT/summary.txt (the table printed at the end).
# Exit status: 0 when everything passed, 1 otherwise. Takes about 2-4 minutes on an H100.
set -u
cd "$(dirname "$0")/../.." || exit 1
PATC=${PATC:-build/cli/patc}
OUT=${OUT:-./gpu-results}
mkdir -p "$OUT"
CSV=$OUT/results.csv
LOG=$OUT/run.log
SUM=$OUT/summary.txt
: >"$LOG"
echo "step,case,defines,tool,status,time" >"$CSV"

# Sizes for {N}; 2^20+7 = 1048583 exercises partial blocks and multi-pass reductions.
SIZES="1 31 33 1000 1048583"
SAN_SIZES="1 33 1000"
[ "${QUICK:-0}" = 1 ] && SIZES="1 33 1000"

# CASES: one line per kernel: id, file, kernel, number of data inputs, -D sets.
# -D sets are separated by ';', names within a set by ','; {N} expands to each of SIZES.
# A new pattern with an example is one more line here.
CASES='
scale        examples/scale.rise               scale           1  n={N}
stencil3     examples/stencil3.rise            stencil3        1  n={N}
dot          examples/dot.rise                 dotPartial      2  n={N}
reduceNaive  examples/reduce_device_naive.rise reduceNaive     1  n={N}
reduceTree   examples/reduce_device_tree.rise  reduceTree      1  n={N}
transpose    examples/transpose_tiled.rise     transposeTiled  1  mt=1,nt=1;mt=1,nt=2;mt=3,nt=2;mt=32,nt=32
'
# The warm-cache check uses this row's kernel with this -D set.
CACHE_CASE="examples/reduce_device_naive.rise reduceNaive n=1048583"

if [ ! -x "$PATC" ]; then echo "run_gpu.sh: no patc at $PATC (build it, or set PATC)" >&2; exit 1; fi
SAN=${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$SAN" ] || SAN=""

npass=0 nfail=0 nskip=0
declare -a ROWS=()

# record STEP CASE DEFINES TOOL STATUS TIME (with its unit)
record() {
    echo "$1,$2,\"$3\",$4,$5,$6" >>"$CSV"
    ROWS+=("$(printf '%-10s %-12s %-18s %-10s %-7s %8s' "$1" "$2" "$3" "$4" "$5" "$6")")
    case $5 in PASS) npass=$((npass + 1)) ;; SKIP) nskip=$((nskip + 1)) ;; *) nfail=$((nfail + 1)) ;; esac
}

# one STEP ID FILE KERNEL NINPUTS DEFSET TOOL: one run (TOOL: none or a sanitizer tool)
one() {
    local step=$1 id=$2 file=$3 kernel=$4 nin=$5 defset=$6 tool=$7
    local -a cmd=("$PATC" run "$file" --kernel "$kernel")
    local d
    IFS=',' read -ra ds <<<"$defset"
    for d in "${ds[@]}"; do cmd+=(-D "$d"); done
    for ((i = 0; i < nin; i++)); do cmd+=(--input random); done
    cmd+=(--check-against-cpu)
    if [ "$tool" != none ]; then
        if [ -z "$SAN" ]; then record "$step" "$id" "$defset" "$tool" SKIP -; return; fi
        cmd=("$SAN" --tool "$tool" --error-exitcode 1 "${cmd[@]}")
    fi
    local t0 t1 rc
    t0=$(date +%s.%N)
    { echo "### $step $id $defset $tool"; echo "\$ ${cmd[*]}"; } >>"$LOG"
    timeout 180 "${cmd[@]}" >>"$LOG" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    echo "### exit $rc" >>"$LOG"
    local secs
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if [ $rc = 0 ]; then record "$step" "$id" "$defset" "$tool" PASS "${secs}s"
    elif [ $rc = 124 ]; then record "$step" "$id" "$defset" "$tool" TIMEOUT "${secs}s"
    else record "$step" "$id" "$defset" "$tool" FAIL "${secs}s"; fi
}

# A private cache, so that runs share cubins with each other but not with earlier runs.
export PATC_CACHE_DIR
PATC_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$PATC_CACHE_DIR" "${COLD:-}"' EXIT

# expand DEFSETS SIZES: the -D sets, one per line, {N} replaced by each size
expand() {
    local set s
    IFS=';' read -ra sets <<<"$1"
    for set in "${sets[@]}"; do
        if [[ $set == *'{N}'* ]]; then for s in $2; do echo "${set//\{N\}/$s}"; done
        else echo "$set"; fi
    done
}

# 1. correctness against the interpreter
while read -r id file kernel nin defsets; do
    [ -z "$id" ] && continue
    while read -r ds; do one check "$id" "$file" "$kernel" "$nin" "$ds" none; done < <(expand "$defsets" "$SIZES")
done <<<"$CASES"

# 2. compute-sanitizer on a subset: the small sizes, the first three fixed -D sets
for tool in memcheck racecheck synccheck; do
    while read -r id file kernel nin defsets; do
        [ -z "$id" ] && continue
        while read -r ds; do one "$tool" "$id" "$file" "$kernel" "$nin" "$ds" "$tool"; done \
            < <(expand "$defsets" "$SAN_SIZES" | head -n 3)
    done <<<"$CASES"
done

# 3. warm cache: the second compile of the same program must come from the cache, < 2 ms
read -r cfile ckernel cdef <<<"$CACHE_CASE"
COLD=$(mktemp -d)
for pass in 1 2; do
    { echo "### cache run $pass"; } >>"$LOG"
    PATC_CACHE_DIR=$COLD "$PATC" run "$cfile" --kernel "$ckernel" -D "$cdef" --input random --time --repeat 20 \
        >"$OUT/cache$pass.tmp" 2>&1
    rc=$?
    cat "$OUT/cache$pass.tmp" >>"$LOG"
done
line=$(grep '^compile step:' "$OUT/cache2.tmp" || true)
ms=$(sed -n 's/^compile step: \([0-9.]*\) ms.*/\1/p' "$OUT/cache2.tmp")
kt=$(sed -n 's/^kernel time: \([0-9.]*\) ms.*/\1/p' "$OUT/cache2.tmp")
rm -f "$OUT/cache1.tmp" "$OUT/cache2.tmp"
if [ $rc = 0 ] && [[ $line == *"(cache hit"* ]] && awk -v m="${ms:-99}" 'BEGIN { exit !(m < 2) }'; then
    record cache "$ckernel" "$cdef" "--time" PASS "${ms}ms"
else
    record cache "$ckernel" "$cdef" "--time" FAIL "${ms:-?}ms"
fi

{
    echo "patc run GPU results ($(date -u +%Y-%m-%dT%H:%M:%SZ), $("$PATC" --version 2>/dev/null))"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
    [ -n "$SAN" ] || echo "compute-sanitizer not found: sanitizer rows SKIP"
    printf '%-10s %-12s %-18s %-10s %-7s %8s\n' step case defines tool status time
    printf '%s\n' "${ROWS[@]}"
    echo "warm-cache compile step: ${ms:-?} ms; reduction kernel time (median of 20, n=${cdef#*=}): ${kt:-?} ms"
    echo "total: $npass passed, $nfail failed, $nskip skipped"
} | tee "$SUM"
[ "$nfail" = 0 ]
