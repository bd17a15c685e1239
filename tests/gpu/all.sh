#!/usr/bin/env bash
# Every GPU check in one call, for the GPU machine (which has nvcc, compute-sanitizer
# and Python, but no flex/bison/Check): build/ is built on a CPU machine and carried.
#
#   bash tests/gpu/all.sh [--no-bench] [--quick] [--sections LIST] [--scans | --no-scans]
#
# --sections 1, et, 2345, p, c, ... runs only those sections (default 1et2345pxycdahwmrs: section 1 is
# in three parts, 1, e (the examples of issue 11) and t (the rest); section c's largest
# size is section d; the benchmark, section 6, runs unless --no-bench). --scans is
# --sections 5p with only the scan benchmark; --no-scans is --sections 1et234. "1",
# "2345", "c" and "d" each fit one 10-minute call of the GPU machine, and so did "et"
# until matmulShared joined e (2026-11-23: "et" ran past 10 minutes, "e" and "t" fit
# apart). c took 231 s and d 511 s, most of it the interpreter's; since then every
# check against the interpreter runs in the background, GPU_JOBS (8) at a time: on an
# H200 (2026-11-23) "1et" took 295 s, "2345" 297 s, "3c" 155 s and "d" 62 s
# (tests/gpu/results/2026-11-23-nvidia-h200-emu-session). PATC_BIN=... runs another
# binary as patc.
#
# 1. correctness: every example kernel through `patc run --check-against-cpu` (GPU
#    result against the CPU interpreter) for many sizes, ragged ones included;
# 2. compute-sanitizer memcheck, racecheck and synccheck on each kernel;
# 3. the runtime's GPU tests and the host example;
# 4. the warm-cache compile time of `patc run --time`;
# 5. the device scans against the interpreter, their sanitizers and scan_stress;
# p. scanPipe (the warp-specialised scans) likewise;
# x. every device scan of every type at 2^28 against the interpreter (lookback: scan_device,
#    scan_types); y. scanPipe, the row scan and Blelloch's at 2^28 (3 and 4 minutes);
# c. filter and partition (the patterns and filterPipe/partitionPipe) against the
#    interpreter, their sanitizers (and quicksort, with its sample sort);
# d. filter and partition at 2^24+3 against the interpreter;
# a. the ready-made algorithms (patc_reduce, patc_inclusive_scan, patc_exclusive_scan,
#    patc_algo_* filter and partitions) of every type against CUB (tests/gpu/algo_check.cu),
#    aligned and unaligned, the pipe kernels through tuning files, 1000 back-to-back scans,
#    and the sanitizers;
# m. (issue 35 item 1) multisplit (examples/multisplit.rise: counts, offsets and the
#    one-pass multisplit with its look-back over k counters) of every element type
#    against the interpreter at 1 .. 2^24+3, and its sanitizers.
# r. (issue 35 items 2 and 4) the radix sort: libpatrt's patc_sort_keys (u32, i32, f32,
#    u64, i64, f64 keys; pairs; descending; bit ranges; digit widths)
#    through tests/gpu/sort_check.c at 1 .. 2^20+7 (section s: 2^24+3, 2^28, 2^28+1),
#    every element checked against a
#    stable reference sort (and qsort to 2^21), 1000 back-to-back sorts, the histogram
#    kernel of examples/radixsort.rise against the interpreter (also with its bins in
#    the output, --bins-in-result), the temporary memory against CUB's for the same call
#    (tests/gpu/sort_temp.cu), and the sanitizers.
#    The one-launch small sort (sortTiles, examples/sorttiles.rise) against the
#    interpreter and libpatrt's sorts around its thresholds (2048, 4096, 8192 keys), with sanitizers;
#    its 8-byte keys and values (u64, i64, f64, u64 orders) too.
# s. (issue 35) section r's sorts at 2^24+3 and 2^28 keys, and at 2^28+1 in the default
#    portions; r and s each fit one 10-minute call.
# 6. the benchmark (bench/run.sh): patc tune, then patc against CUB.
# w. (issue 36, in the default list) the Python package with PyTorch and CuPy:
#    python/tests/test_gpu.py (and test_cpu.py) under pytest, or the file alone without
#    pytest, and examples/python/*.py. PATC_WHEEL=path/to/patc-*.whl installs the wheel
#    built on the CPU machine (pip wheel ./python) into a temporary folder first
#    (pip install --no-deps --target); without it, `import patc` must already work
#    (PYTHONPATH). bench/python_run.sh is its benchmark.
# Logs and CSVs go to $OUT (or ./gpu-results). Exits non-zero if anything failed.
# Before carrying build/ there:  mkdir -p build/extra-libs && cp /usr/lib/x86_64-linux-gnu/libsubunit.so.0* build/extra-libs/
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-results}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
# the GPU machine lacks Check's libsubunit: the build carries a copy (see the note below)
export LD_LIBRARY_PATH=$PWD/build/extra-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PATC=${PATC_BIN:-$PWD/build/cli/patc} # PATC_BIN: another patc (tests of this script)
bench=1 quick=0 scans_only=0 sections=1et2345pxycdahwmrs want=
for a in "$@"; do
  if [ "$want" = sections ]; then sections=$a; want=; continue; fi
  case $a in
    --no-bench) bench=0 ;; --quick) quick=1 ;; --scans) scans_only=1; sections=5p ;; --no-scans) sections=1et234 ;;
    --sections) want=sections ;;
  esac
done
sec() { case $sections in *$1*) return 0 ;; esac; return 1; }
log=$OUT/gpu_tests.log csv=$OUT/gpu_tests.csv
: >"$log"
echo "check,example,kernel,size,result,detail" >"$csv"
pass=0 fail=0
export PATC_CACHE_DIR=$(mktemp -d)

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$log"

# record CHECK EXAMPLE KERNEL SIZE RC DETAIL
record() {
  local r=PASS
  [ "$5" = 0 ] || r=FAIL
  if [ $r = PASS ]; then pass=$((pass+1)); else fail=$((fail+1)); fi
  printf '%-10s %-28s %-24s %-12s %s %s\n' "$1" "$2" "$3" "$4" "$r" "$6" | tee -a "$log"
  echo "$1,$2,$3,$4,$r,\"$6\"" >>"$csv"
}

# The checks against the interpreter (run_case, ccase gpu) run in the background,
# $GPU_JOBS (8) at a time: most of their time is the CPU interpreter's, one core each,
# and the GPU machine has 16. collect waits for them and records them in the order they
# were started; each section calls it before it ends, and before anything it times.
Q=$(mktemp -d) nq=0
AM=$(mktemp -d) # argmax's inputs (am_inputs): not in $OUT, which comes back from the GPU machine
trap 'rm -rf "$Q" "$AM"' EXIT
bg_check() { # CHECK FILE KERNEL LABEL DETAIL-REGEX CMD...: CMD in the background
  local k=$nq
  nq=$((nq + 1))
  printf '%s\n' "$1" "$2" "$3" "$4" "$5" >"$Q/$k.label"
  shift 5
  while [ "$(jobs -rp | wc -l)" -ge "${BG_MAX:-${GPU_JOBS:-8}}" ]; do wait -n; done
  ( "$@" >"$Q/$k.out" 2>&1; echo $? >"$Q/$k.rc" ) &
}
# jobs_for N: how many jobs may run when a sort_check of N keys starts (BG_MAX for
# bg_check). One of 2^28 f32 keys with u32 values held 25 GB of host memory (its
# maximum resident set alone on an H100 machine of 128 GB: the input, the reference's
# and qsort's copies), and with eight jobs at a time one of them (2^28 sorted pairs,
# which then passed alone) ended with no output at all; three at a time keep them
# within the machine's memory.
jobs_for() { if [ "$1" -ge 268435456 ]; then echo 3; else echo "${GPU_JOBS:-8}"; fi; }
collect() {
  wait
  local k o l
  for ((k = 0; k < nq; k++)); do
    mapfile -t l <"$Q/$k.label"
    o=$(cat "$Q/$k.out")
    echo "$o" >>"$log"
    record "${l[0]}" "${l[1]}" "${l[2]}" "${l[3]}" "$(cat "$Q/$k.rc" 2>/dev/null || echo 1)" \
      "$(echo "$o" | grep -m1 -o -E "${l[4]}")"
  done
  nq=0
  rm -f "$Q"/*
}

# run_case CHECK FILE KERNEL SIZE-LABEL NINPUTS -D...
run_case() {
  local check=$1 file=$2 kernel=$3 size=$4 nin=$5; shift 5
  local ins=() i
  for ((i = 0; i < nin; i++)); do ins+=(--input random); done
  bg_check "$check" "$file" "$kernel" "$size" 'max relative error: [^ ]*' \
    "$PATC" run "examples/$file" --kernel "$kernel" "${ins[@]}" --check-against-cpu "$@"
}

san() { # TOOL FILE KERNEL NINPUTS -D...
  local tool=$1 file=$2 kernel=$3 nin=$4; shift 4
  local ins=() i
  for ((i = 0; i < nin; i++)); do ins+=(--input random); done
  local o rc
  o=$(compute-sanitizer --tool "$tool" --error-exitcode 1 "$PATC" run "examples/$file" --kernel "$kernel" "${ins[@]}" "$@" 2>&1); rc=$?
  echo "$o" >>"$OUT/sanitizer.log"
  record "$tool" "$file" "$kernel" "$*" $rc "$(echo "$o" | grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' )"
}

am_inputs() { # N: $AM/am_{rand,ties,ninf,nans,allnan}N.bin (issue 33 item 1, argmax)
  python3 - "$1" "$AM" <<'PY'
import array, random, sys
n, d = int(sys.argv[1]), sys.argv[2]
r = random.Random(n + 33)
nan, inf = float("nan"), float("inf")
gen = {"rand": lambda: r.uniform(-1, 1), "ties": lambda: float(r.randrange(4)), "ninf": lambda: -inf,
       "nans": lambda: nan if r.random() < 0.3 else r.uniform(-1, 1), "allnan": lambda: nan}
for k, f in gen.items():
    with open("%s/am_%s%d.bin" % (d, k, n), "wb") as fh:
        array.array("f", (f() for _ in range(n))).tofile(fh)
PY
}

sizes="1 31 32 33 1000 4097 65536 1048583 16777216"
[ $quick = 1 ] && sizes="1 33 1000 1048583"
if sec 1; then
# ---------------------------------------------------------------- 1. correctness
for n in $sizes; do
  run_case gpu scale.rise scale $n 1 -D n=$n
  run_case gpu stencil3.rise stencil3 $n 1 -D n=$n
  run_case gpu dot.rise dotPartial $n 2 -D n=$n
  run_case gpu saxpy.rise saxpy $n 3 -D n=$n # a by value: one random scalar
  m=$(( (n + 255) / 256 )) # two outputs, each checked: m chunks of 256, about n elements
  run_case gpu ../tests/programs/minmax_pair.rise minmaxPair "256*$m" 1 -D m=$m
  run_case gpu reduce_device_naive.rise reduceNaive $n 1 -D n=$n --reduce
  run_case gpu reduce_device_tree.rise reduceTree $n 1 -D n=$n --reduce
  for k in reduceShfl_1024_256 reduceShfl_256_32 reduceShfl_2048_64 reduceShflXor_1024_256 reduceShflI32 reduceShflMax; do
    run_case gpu reduce_block_shfl.rise $k $n 1 -D n=$n --reduce
  done
done
# the single-launch reductions (lastBlock): sizes, grids and settings, specialised by -D
for cfg in "1024 128" "4096 512" "16384 1024"; do
  set -- $cfg
  for ng in "1 1" "1000 1" "4097 2" "1048583 7" "1048583 264" "16777216 528"; do
    set -- $1 $2 $ng
    [ $quick = 1 ] && [ "$3" = 16777216 ] && continue
    for k in reduceSumF32 reduceSumI32 reduceMaxF32; do
      run_case gpu reduce_fast.rise $k "$3/g$4/E$1/W$2" 1 -D n=$3 -D g=$4 -D elemsBlock=$1 -D elemsWarp=$2
    done
    [ "$4" = 1 ] || [ "$3" = 1048583 ] && [ "$4" = 7 ] || continue # the one-block kernels: once per size
    for k in reduceSumF32OneBlock reduceSumI32OneBlock reduceMaxF32OneBlock; do
      run_case gpu reduce_fast.rise $k "$3/E$1/W$2" 1 -D n=$3 -D elemsBlock=$1 -D elemsWarp=$2
    done
  done
done
for mk in "1 1" "7 3" "264 1" "1000 2"; do # lastBlock on each scalar type: m partials of 256*k
  set -- $mk
  for k in sumF64 sumI64 sumU64 sumF32 minI32 sumU32; do
    run_case gpu ../tests/programs/lastblock_types.rise $k "m$1/k$2" 1 -D m=$1 -D k=$2
  done
done
for b in 1 3 1000 4096; do # the warp kernels take 256*b elements
  for k in reduceWarpDownK reduceWarpXorK reduceWarpUpK; do run_case gpu reduce_warp.rise $k "256*$b" 1 -D n=$b; done
  run_case gpu shfl_permute.rise permute "256*$b" 1 -D n=$b
done
for b in 1 7 1000; do # the shuffles on f64, i32, u32, i64 and u64 (64*b elements)
  for k in downF64 xorI32 upU32 downI64 xorU64 permuteF64 permuteI64 ballotRank shiftPadI32; do
    run_case gpu ../tests/programs/shfl_types.rise $k "64*$b" 1 -D n=$b
  done
done
for b in 1 7 1000; do # the Hillis-Steele warp scan: one warp per 32 elements (32*b elements)
  for k in scanUp scanTake scanTakeWritten scanUpF32; do
    run_case gpu ../tests/programs/scan_warp_hs.rise $k "32*$b" 1 -D n=$b
  done
done
collect
fi # section 1 (first part)
if sec e; then # the examples of issue 11 (warp scans, softmax, seed 003, matmul)
for b in 1 7 1000 32771; do # the warp scans of patterns/scan.rise (32*b elements)
  for k in scanInclI32 scanInclF32 scanExclI32 scanExclF32 scanMaxI32; do
    run_case gpu scan_warp.rise $k "32*$b" 1 -D n=$b
  done
done
for r in 1 31 33 1000 4097; do # softmax of r rows of m columns, one warp per row
  for m in 32 1024 4096; do run_case gpu softmax_rows.rise softmaxRows "${r}x$m" 1 -D r=$r -D m=$m; done
done
for n in $sizes; do # seed 003: ceil(n / uf) threads each add uf elements a[tid + t*i]
  for uf in 1 3 4 8 16; do run_case gpu unrolled_uf.rise unrolledUF "$n/uf$uf" 1 -D n=$n -D uf=$uf; done
done
for mnk in "1 1 1" "1 2 3" "3 2 1000" "16 16 1024" "7 5 257"; do # matmul (64m x k)(k x 64n)
  set -- $mnk
  run_case gpu matmul_tiled.rise matmulTiled "64*$1x64*$2xk$3" 2 -D m=$1 -D n=$2 -D k=$3
done
for mnk in "1 1 1" "1 2 3" "3 2 63" "8 8 32" "7 5 17"; do # shared tiles (64m x 16kt)(16kt x 64n)
  set -- $mnk
  run_case gpu matmul_tiled.rise matmulShared "64*$1x64*$2xk16*$3" 2 -D m=$1 -D n=$2 -D kt=$3
done
collect
fi # section e
if sec t; then # the rest of section 1: scalar forms, sequential scans, tiles, gather/scatter
for n in 1 31 33 1000 4097 1048583; do # the scalar forms: select, casts, math, operators as functions
  for k in mathF32 mathF64 castsF32 castsI32 selectF32 selectArrays opsI32 opsF32 bitsU32 bitsI32 bitsU64; do
    run_case gpu ../tests/programs/scalar_forms.rise $k $n 1 -D n=$n
  done
  run_case gpu count_if.rise countIf $n 1 -D n=$n -D g=132
done
for b in 1 31 33 1000 4097 1048583; do # sequential scans (8*b elements), array accumulators (32*b)
  for k in scanInclF32 scanInclI32 scanExclF32 scanExclI32 scanMaxPrivate; do
    run_case gpu ../tests/programs/scanseq.rise $k "8*$b" 1 -D n=$b
  done
  for k in colSums4 shiftSums4; do run_case gpu ../tests/programs/scanseq.rise $k "32*$b" 1 -D n=$b; done
done
for t in "1 1" "2 3" "17 5" "64 64"; do
  set -- $t
  run_case gpu transpose_tiled.rise transposeTiled "32*$1x32*$2" 1 -D mt=$1 -D nt=$2
done
# more than 48 KiB of shared memory per block (the runtime opts in): 49152 bytes, 200000,
# and sm_90's maximum 232448 (one tile, or two buffers live at once)
for t in "1 128 96" "33 128 96" "3 250 200" "1 227 256" "7 227 256"; do
  set -- $t
  run_case gpu ../tests/programs/big_shared.rise transposeTile "$1x$2x$3" 1 -D n=$1 -D r=$2 -D c=$3
done
for nm in "1 12289" "5 25000" "3 29056"; do
  set -- $nm
  run_case gpu ../tests/programs/big_shared.rise twoLive "$1x$2" 1 -D n=$1 -D m=$2
done
# gather and scatter by a permutation: the inputs are a permutation of 0..n-1 and
# floats, written by python3 (--input random gives integers 0..99, not a permutation)
perm_inputs() { # N: $OUT/perm.bin (n x i32), $OUT/vals.bin (n x f32)
  python3 - "$1" "$OUT" <<'PY'
import random, struct, sys
n, d = int(sys.argv[1]), sys.argv[2]
r = random.Random(n)
p = list(range(n)); r.shuffle(p)
open(d + "/perm.bin", "wb").write(struct.pack("<%di" % n, *p))
open(d + "/vals.bin", "wb").write(struct.pack("<%df" % n, *[r.uniform(-1, 1) for _ in range(n)]))
PY
}
gs_case() { # CHECK(gpu|memcheck|racecheck|synccheck) KERNEL N
  local o rc pre=()
  perm_inputs "$3"
  [ "$1" = gpu ] || pre=(compute-sanitizer --tool "$1" --error-exitcode 1)
  local post=(--check-against-cpu)
  [ "$1" = gpu ] || post=()
  o=$("${pre[@]}" "$PATC" run examples/gather_scatter.rise --kernel "$2" --input "$OUT/perm.bin" --input "$OUT/vals.bin" -D n="$3" "${post[@]}" 2>&1); rc=$?
  echo "$o" >>"$log"
  record "$1" gather_scatter.rise "$2" "$3" $rc "$(echo "$o" | grep -m1 -o -E 'max relative error: [^ ]*|ERROR SUMMARY.*|RACECHECK SUMMARY.*')"
}
for n in 1 31 33 1000 4097 1048583; do
  gs_case gpu permute $n
  gs_case gpu unpermute $n
done
# max over elements that are all -inf (issue 33): -inf on the GPU and in the interpreter
# (with -3.40282347e38f as max's neutral element it was -3.40282347e38)
inf_case() { # FILE KERNEL LABEL OPTIONS...: every element -inf; both results must be -inf
  local file=$1 kernel=$2 label=$3; shift 3
  # shellcheck disable=SC2016 # expanded by the inner bash
  bg_check gpu "$file" "$kernel" "$label" 'value: [^ ]*' bash -c \
    'o=$("$@" 2>&1); rc=$?; echo "$o"; [ $rc = 0 ] && grep -q "^value: -inf$" <<<"$o" && grep -q "^cpu sum: -inf$" <<<"$o"' \
    _ "$PATC" run "examples/$file" --kernel "$kernel" --input value:-inf --check-against-cpu "$@"
}
for n in 1 4097 1048583; do
  inf_case reduce_fast.rise reduceMaxF32 "$n/-inf" -D n=$n -D g=132 -D elemsBlock=4096 -D elemsWarp=512
  inf_case reduce_fast.rise reduceMaxF32OneBlock "$n/-inf" -D n=$n -D elemsBlock=4096 -D elemsWarp=512
  inf_case reduce_block_shfl.rise reduceShflMax "$n/-inf" -D n=$n --reduce
done
# maps past CUDA's launch limits (issue 33): 65535 rows along y fill the grid, 65536 and
# 70000 loop over a grid capped at 65535 (mapGlobal('y') over 70000 rows was
# CUDA_ERROR_INVALID_VALUE, grid 1x70000x1); planes along z; 128 threads along z on 64
for r in 65535 65536 70000; do
  for k in rowSums scaleRows blocksY; do
    run_case gpu ../tests/programs/grid_limits.rise $k "${r}x3" 1 -D r=$r -D c=3
  done
  run_case gpu ../tests/programs/grid_limits.rise planesZ "${r}x2" 1 -D p=$r -D c=2
done
run_case gpu ../tests/programs/grid_limits.rise deepZ "3x128" 1 -D n=3
# issue 33 item 6: reduceGrid's vector loads over an array an earlier launch stored
for n in 1 33 4097 1048583; do run_case gpu ../tests/programs/stored_vec.rise sumSquares $n 1 -D n=$n -D g=132; done
# issue 33 item 3, views of nested arrays: the Jacobi step with zero borders (padCst of
# each row, and of the grid with a row of zeros) and the tiled transpose of any m x n
# (take of both dimensions of the result, ragged edge tiles), m and n ragged, single
# rows and columns, exact tiles, and more rows than gridDim.y's 65535 tiles would take
for mn in "1 1" "1 31" "31 1" "31 33" "33 31" "33 1000" "1000 33" "1000 1000" "4097 31" "31 4097" \
          "4097 4097" "1 1048583" "1048583 1" "64 96" "2100007 3"; do
  set -- $mn
  run_case gpu jacobi.rise jacobi "${1}x$2" 1 -D m=$1 -D n=$2
  run_case gpu transpose_tiled.rise transposeTiledAny "${1}x$2" 1 -D m=$1 -D n=$2
done
# take, drop and padCst on inner dimensions of results, written through (views_nested)
for mn in "1 1" "31 33" "33 31" "1000 7" "4097 1000" "1 1048583" "1048583 3"; do
  set -- $mn
  for k in takeInner dropInner padInnerW padBothW padInnerR; do
    run_case gpu ../tests/programs/views_nested.rise $k "${1}x$2" 1 -D m=$1 -D n=$2
  done
done
for m in 1 33 70000; do run_case gpu ../tests/programs/views_nested.rise tileViews $m 1 -D m=$m; done

# issue 33 item 1: pairs as data. examples/argmax.rise (argmax and argmin in one launch)
# at ragged sizes on random data, many ties (values 0..3), all -inf, NaNs among numbers
# and all NaN (value and index against the interpreter); tests/programs/pairs_data.rise's
# pair accumulators, shuffles of pairs, stored arrays of pairs and reduce.rise's
# reductions with a pair operator
for n in 1 31 33 1000 4097 1048583 16777216; do
  am_inputs $n
  for d in rand ties ninf nans allnan; do
    for k in argmaxF32 argminF32; do
      bg_check gpu argmax.rise $k "$n/$d" 'max relative error: [^ ]*' \
        "$PATC" run examples/argmax.rise --kernel $k --input "$AM/am_$d$n.bin" --check-against-cpu \
        -D n=$n -D g=264 -D elemsBlock=4096 -D elemsWarp=512
      bg_check gpu argmax.rise ${k}OneBlock "$n/$d" 'max relative error: [^ ]*' \
        "$PATC" run examples/argmax.rise --kernel ${k}OneBlock --input "$AM/am_$d$n.bin" --check-against-cpu \
        -D n=$n -D elemsBlock=4096 -D elemsWarp=512
    done
  done
  for d in ties nans; do # i64 indices
    for k in argmaxF32I64 argminF32I64; do
      bg_check gpu argmax.rise $k "$n/$d" 'max relative error: [^ ]*' \
        "$PATC" run examples/argmax.rise --kernel $k --input "$AM/am_$d$n.bin" --check-against-cpu \
        -D n=$n -D g=264 -D elemsBlock=4096 -D elemsWarp=512
    done
  done
done
for n in 1 33 1000 4097; do
  m=$(( (n + 255) / 256 ))
  for k in argmaxRows minMaxSum runningMax runningMaxExcl privatePairs globalPairs rowPairs; do
    run_case gpu ../tests/programs/pairs_data.rise $k "$n" 1 -D n=$n
  done
  for k in warpDown warpXor warpUp sharedPairs nestedShared; do run_case gpu ../tests/programs/pairs_data.rise $k "$n" 1 -D n=$m; done
  run_case gpu ../tests/programs/pairs_data.rise warpReverse "$n" 1 -D n=$n
  run_case gpu ../tests/programs/pairs_data.rise gridArgmax "$n" 2 -D n=$n -D g=132
  run_case gpu ../tests/programs/pairs_data.rise oneBlockArgmin "$n" 2 -D n=$n
  run_case gpu ../tests/programs/pairs_data.rise gridArgmaxVec "$n" 2 -D n=$n -D g=132
  run_case gpu ../tests/programs/pairs_data.rise oneBlockArgminVec "$n" 2 -D n=$n
  for k in blockShflArgmax blockTreeArgmin; do run_case gpu ../tests/programs/pairs_data.rise $k "4096*$m" 2 -D m=$m; done
  run_case gpu ../tests/programs/pairs_data.rise blockNaiveArgmax "256*$m" 2 -D m=$m
done
run_case gpu ../tests/programs/pairs_data.rise gridArgmax 1048583 2 -D n=1048583 -D g=132
# issue 33 item 7a: the flagged lastBlock with no barrier in front of its body, and one
# whose body reuses the bytes of a tile other threads read just before (a barrier in it)
for m in 1 31 33 1000 4097; do
  run_case gpu ../tests/programs/lastblock_reuse.rise sumTwiceReuse "256*$m" 1 -D m=$m
done

collect
fi # section t
if sec 2; then
# ---------------------------------------------------------------- 2. sanitizers
: >"$OUT/sanitizer.log"
for tool in memcheck racecheck synccheck; do
  san $tool scale.rise scale 1 -D n=1000
  san $tool stencil3.rise stencil3 1 -D n=1000
  san $tool dot.rise dotPartial 2 -D n=1000
  san $tool saxpy.rise saxpy 3 -D n=1000
  san $tool ../tests/programs/minmax_pair.rise minmaxPair 1 -D m=33
  san $tool reduce_device_naive.rise reduceNaive 1 -D n=4097 --reduce
  san $tool reduce_device_tree.rise reduceTree 1 -D n=10007 --reduce
  for k in reduceShfl_1024_256 reduceShfl_256_32 reduceShfl_2048_64 reduceShflXor_1024_256 reduceShflI32 reduceShflMax; do
    san $tool reduce_block_shfl.rise $k 1 -D n=5000 --reduce
  done
  for k in reduceWarpDownK reduceWarpXorK reduceWarpUpK; do san $tool reduce_warp.rise $k 1 -D n=3; done
  san $tool shfl_permute.rise permute 1 -D n=3
  san $tool transpose_tiled.rise transposeTiled 1 -D mt=3 -D nt=2
  gs_case $tool permute 1000
  gs_case $tool unpermute 1000
  san $tool ../tests/programs/shfl_types.rise permuteF64 1 -D n=3
  san $tool ../tests/programs/shfl_types.rise upU32 1 -D n=3
  for k in scanUp scanTake scanTakeWritten scanUpF32; do san $tool ../tests/programs/scan_warp_hs.rise $k 1 -D n=7; done
  for k in scanInclI32 scanInclF32 scanExclI32 scanExclF32 scanMaxI32; do san $tool scan_warp.rise $k 1 -D n=7; done
  san $tool softmax_rows.rise softmaxRows 1 -D r=33 -D m=1024
  san $tool unrolled_uf.rise unrolledUF 1 -D n=100003 -D uf=8
  san $tool matmul_tiled.rise matmulTiled 2 -D m=3 -D n=2 -D k=100
  san $tool matmul_tiled.rise matmulShared 2 -D m=3 -D n=2 -D kt=5
  san $tool ../tests/programs/lastblock_types.rise sumF64 1 -D m=9 -D k=2
  san $tool ../tests/programs/lastblock_types.rise minI32 1 -D m=9 -D k=2
  for k in scanInclF32 scanInclI32 scanExclF32 scanExclI32 scanMaxPrivate colSums4 shiftSums4; do
    san $tool ../tests/programs/scanseq.rise $k 1 -D n=1000
  done
  san $tool ../tests/programs/big_shared.rise transposeTile 1 -D n=2 -D r=227 -D c=256
  san $tool ../tests/programs/big_shared.rise twoLive 1 -D n=2 -D m=29056
  for k in mathF32 mathF64 castsF32 castsI32 selectF32 selectArrays opsI32 opsF32 bitsU32 bitsI32 bitsU64; do
    san $tool ../tests/programs/scalar_forms.rise $k 1 -D n=1000
  done
  san $tool count_if.rise countIf 1 -D n=100003 -D g=9
  for k in rowSums scaleRows blocksY; do san $tool ../tests/programs/grid_limits.rise $k 1 -D r=70000 -D c=3; done
  san $tool ../tests/programs/grid_limits.rise deepZ 1 -D n=3
  san $tool ../tests/programs/stored_vec.rise sumSquares 1 -D n=100003 -D g=9
  # issue 33 item 3: ragged edge tiles and borders
  san $tool jacobi.rise jacobi 1 -D m=33 -D n=1000
  san $tool transpose_tiled.rise transposeTiledAny 1 -D m=1000 -D n=33
  san $tool transpose_tiled.rise transposeTiledAny 1 -D m=31 -D n=65
  for k in takeInner dropInner padInnerW padBothW padInnerR; do
    san $tool ../tests/programs/views_nested.rise $k 1 -D m=33 -D n=31
  done
  san $tool ../tests/programs/views_nested.rise tileViews 1 -D m=33
  for k in reduceSumF32 reduceSumI32 reduceMaxF32; do
    san $tool reduce_fast.rise $k 1 -D n=100003 -D g=9 -D elemsBlock=2048 -D elemsWarp=256
    san $tool reduce_fast.rise ${k}OneBlock 1 -D n=10003 -D elemsBlock=2048 -D elemsWarp=256
  done
  # issue 33 item 7a: the flagged lastBlock has no barrier in front of its body
  san $tool ../tests/programs/lastblock_reuse.rise sumTwiceReuse 1 -D m=33
  san $tool ../tests/programs/lastblock_types.rise sumF32 1 -D m=9 -D k=2
done

# issue 33 item 1: pairs as data under the sanitizers (argmax's pair partials handed
# over by the ticket; shuffles, shared and private arrays of pairs)
am_inputs 100003
for tool in memcheck racecheck synccheck; do
  for k in argmaxF32 argminF32; do
    san $tool argmax.rise $k 0 --input "$AM/am_ties100003.bin" -D n=100003 -D g=9 -D elemsBlock=4096 -D elemsWarp=512
    san $tool argmax.rise ${k}OneBlock 0 --input "$AM/am_nans100003.bin" -D n=100003 -D elemsBlock=4096 -D elemsWarp=512
  done
  san $tool argmax.rise argmaxF32I64 0 --input "$AM/am_ties100003.bin" -D n=100003 -D g=9 -D elemsBlock=4096 -D elemsWarp=512
  for k in argmaxRows runningMax privatePairs globalPairs rowPairs warpReverse; do
    san $tool ../tests/programs/pairs_data.rise $k 1 -D n=1000
  done
  for k in warpDown warpXor warpUp sharedPairs nestedShared; do san $tool ../tests/programs/pairs_data.rise $k 1 -D n=5; done
  san $tool ../tests/programs/pairs_data.rise gridArgmax 2 -D n=100003 -D g=9
  san $tool ../tests/programs/pairs_data.rise oneBlockArgmin 2 -D n=10003
  san $tool ../tests/programs/pairs_data.rise gridArgmaxVec 2 -D n=100003 -D g=9
  san $tool ../tests/programs/pairs_data.rise blockShflArgmax 2 -D m=3
done

# the acceptance command of the runtime issue, verbatim
o=$("$PATC" run examples/reduce_device_naive.rise --input random --check-against-cpu -D n=1000003 --reduce 2>&1); rc=$?
echo "$o" | tee -a "$log"
record accept reduce_device_naive.rise reduceNaive 1000003 $rc "$(echo "$o" | grep -m1 -o 'max relative error: [^ ]*')"

fi # section 2
if sec 3; then
# ---------------------------------------------------------------- 3. runtime GPU tests
for t in "build/runtime/test_runtime gpu" "build/runtime/reduce_host"; do
  o=$($t 2>&1); rc=$?
  echo "$o" >>"$log"
  record runtime "${t%% *}" "${t#* }" - $rc "$(echo "$o" | tail -1)"
done
# the same kernels sized at launch on their 64-bit builds, at small sizes, checked and
# under memcheck (the 32-bit builds are what runs below 2^31 everywhere else)
o=$(PATC_FORCE_INDEX64=1 build/runtime/test_runtime gpu 2>&1); rc=$?
echo "$o" >>"$log"
record index64 test_runtime gpu - $rc "$(echo "$o" | tail -1)"
o=$(PATC_FORCE_INDEX64=1 compute-sanitizer --tool memcheck --error-exitcode 1 build/runtime/test_runtime gpu 2>&1); rc=$?
echo "$o" >>"$OUT/sanitizer.log"
record memcheck test_runtime "gpu, 64-bit builds" - $rc "$(echo "$o" | grep -m1 'ERROR SUMMARY')"
# sizes past 2^31: scale, the single-launch reductions and the sort in portions at
# n = 2^32 + 7 (about 52 GB of device and 35 GB of host memory; tests/gpu/big.c)
o=$(build/runtime/big_test 2>&1); rc=$?
echo "$o" | tee -a "$log"
record big big_test "scale, reduceSum, sort" "2^32+7" $rc "$(echo "$o" | tail -1)"

fi # section 3
if sec 4; then
# ---------------------------------------------------------------- 4. warm cache
cache=$(mktemp -d)
for i in 1 2; do
  o=$(PATC_CACHE_DIR=$cache "$PATC" run examples/reduce_device_naive.rise --kernel reduceNaive --input random -D n=1000003 --reduce --time 2>&1)
  echo "run $i: $o" >>"$log"
done
echo "$o" | tee -a "$log"
ms=$(echo "$o" | grep -io 'compile[^0-9]*[0-9.]* *ms' | grep -o '[0-9.]*' | head -1)
hit=$(echo "$o" | grep -ci 'hit')
ok=1; awk -v m="${ms:-99}" 'BEGIN{exit !(m < 2.0)}' && [ "$hit" -ge 1 ] && ok=0
record cache reduce_device_naive.rise reduceNaive "warm" $ok "compile step ${ms:-?} ms, cache hit lines: $hit"
fi # section 4

if sec 5; then
# ---------------------------------------------------------------- 5. device scans
# the single-pass scans (lookback) and the row scan against the interpreter at ragged
# sizes, every type and operator, under the sanitizers, and 1000 back-to-back scans
# (tests/gpu/scan_stress.c)
ssizes="1 31 32 33 1000 4097 65536 1048583 16777219"
[ $quick = 1 ] && ssizes="1 33 4097 1048583"
for n in $ssizes; do
  for k in inclSumF32 exclSumF32 inclSumI32 exclSumI32; do
    run_case gpu scan_device.rise $k $n 1 -D n=$n -D nt=128 -D ipt=25
  done
  for k in inclSumF64 exclSumF64 inclSumU32 exclSumU32 inclSumI64 exclSumI64 inclSumU64 exclSumU64 inclMaxF32 \
           inclMinI32 inclMulU32 firstNonZeroI32; do
    run_case gpu ../tests/programs/scan_types.rise $k $n 1 -D n=$n -D nt=128 -D ipt=25
  done
done
for ti in "32 1" "64 7" "256 4" "1024 3" "512 25" "256 15"; do # other tile shapes
  set -- $ti
  run_case gpu scan_device.rise exclSumI32 "1048583/nt$1/ipt$2" 1 -D n=1048583 -D nt=$1 -D ipt=$2
done
for ti in "512 25 4" "256 25 8" "128 9 16"; do # shapes the tuner picks with a __launch_bounds__ minimum
  set -- $ti
  for n in 33 1048583; do
    run_case gpu scan_device.rise exclSumI32 "$n/nt$1/ipt$2/min$3" 1 -D n=$n -D nt=$1 -D ipt=$2 --min-blocks $3
  done
  run_case gpu scan_device.rise inclSumF32 "1048583/nt$1/ipt$2/min$3" 1 -D n=1048583 -D nt=$1 -D ipt=$2 --min-blocks $3
done
for n in 33 1048583 16777219; do # evict-first loads and stores (a tuning line's evict_first)
  [ $quick = 1 ] && [ "$n" = 16777219 ] && continue
  run_case gpu scan_device.rise inclSumF32 "$n/nt256/ipt25/ef" 1 -D n=$n -D nt=256 -D ipt=25 --evict-first
  run_case gpu scan_device.rise exclSumI32 "$n/nt512/ipt25/min4/ef" 1 -D n=$n -D nt=512 -D ipt=25 --min-blocks 4 --evict-first
done
# the row scan (three launches joined by toGlobal, a prefix carried along each row)
for n in $ssizes; do
  for k in inclSumF32 exclSumF32 inclSumI32 exclSumI32; do
    run_case gpu scan_rows.rise $k "$n/r264" 1 -D n=$n -D r=264 -D nt=128 -D ipt=25
  done
done
for r in 1 7 1000; do
  run_case gpu scan_rows.rise exclSumI32 "100003/r$r" 1 -D n=100003 -D r=$r -D nt=128 -D ipt=25
done
for m in 1 2 33 1000 100003; do # lookback over pairs with a non-commutative operator
  run_case gpu ../tests/programs/lookback_affine.rise affinePrefix "64*$m" 1 -D n=$m
done
for n in $ssizes; do # Blelloch's scan (seed 002): 512-element tiles joined by lookback
  for k in inclSumF32 exclSumF32 inclSumI32 exclSumI32 inclSumF32Unpadded fillForwardI32; do
    [ "$n" = 16777219 ] && case $k in inclSumF32Unpadded | fillForwardI32) continue ;; esac
    run_case gpu scan_blelloch.rise $k $n 1 -D n=$n
  done
done
for m in 1 3 2049; do run_case gpu scan_blelloch.rise tileExclSumI32 "512*$m" 1 -D m=$m; done
for n in 1 4097 1048583; do # Blelloch's scan at 64, 1024 and 2048 elements a tile (1024 threads)
  for k in incl64 excl64 incl1024 excl2048 fill2048; do
    run_case gpu ../tests/programs/blelloch_levels.rise $k $n 1 -D n=$n
  done
done
: >>"$OUT/sanitizer.log"
collect
for tool in memcheck racecheck synccheck; do
  for n in 1 33 100003; do
    for k in inclSumF32 exclSumI32; do san $tool scan_device.rise $k 1 -D n=$n -D nt=128 -D ipt=25; done
  done
  san $tool scan_device.rise exclSumF32 1 -D n=100003 -D nt=512 -D ipt=25
  san $tool scan_device.rise exclSumI32 1 -D n=100003 -D nt=512 -D ipt=25 --min-blocks 4
  san $tool scan_device.rise inclSumF32 1 -D n=100003 -D nt=256 -D ipt=25 --evict-first
  for k in exclSumF64 inclSumU64 firstNonZeroI32; do
    san $tool ../tests/programs/scan_types.rise $k 1 -D n=20011 -D nt=128 -D ipt=25
  done
  san $tool ../tests/programs/lookback_affine.rise affinePrefix 1 -D n=1000
  san $tool scan_rows.rise inclSumF32 1 -D n=100003 -D r=7 -D nt=128 -D ipt=25
  san $tool scan_rows.rise exclSumI32 1 -D n=33 -D r=3 -D nt=128 -D ipt=25
  for n in 1 33 100003; do
    for k in inclSumF32 exclSumI32; do san $tool scan_blelloch.rise $k 1 -D n=$n; done
  done
done
o=$(build/runtime/scan_stress 2>&1); rc=$?
echo "$o" | tee -a "$log"
record scan scan_stress "1000 back-to-back, 2^28" - $rc "$(echo "$o" | tail -1)"
fi # section 5

if sec p; then
# ---------------------------------------------------------------- p. scanPipe (issue 12)
# the pipelined, warp-specialised scans (examples/scan_pipe.rise) against the
# interpreter: the H200 shape (w16 ipt12 s9, tiles of 6144) at ragged sizes and tile
# edges; a small shape (w4 ipt4 s2, tiles of 512: many tiles per block, the ring
# wrapping) at a few; the non-commutative affine composition on random maps (a, b
# uniform in 0..65535) in both; the sanitizers; scan_stress --pipe (1000 back-to-back
# scans of varying n, and 2^28).
psizes="1 31 32 33 1000 4097 6143 6144 6145 65536 1048583 16777219"
[ $quick = 1 ] && psizes="1 33 6145 1048583"
wbig="-D w=16 -D ipt=12 -D s=9" wsmall="-D w=4 -D ipt=4 -D s=2"
# f32 sums within 1e-3 (--tolerance): the interpreter adds in order in f32, and its own
# error passes 1e-5 from 2^20 (1.6e-5 at 2^20+7, 1.3e-4 at 2^24+3 against the GPU on an
# H200, 2026-11-23), while scan_stress --pipe finds the GPU's within 3e-7 of a double
# prefix at 2^28; integers, max and min exact
for n in $psizes; do
  for k in inclSumF32 exclSumF32; do run_case gpu scan_pipe.rise $k "$n/w16" 1 -D n=$n $wbig --tolerance 1e-3; done
  for k in inclSumI32 exclSumI32 inclMaxI32 exclMinU32; do run_case gpu scan_pipe.rise $k "$n/w16" 1 -D n=$n $wbig; done
done
for n in 1 513 100003 1048583; do
  run_case gpu scan_pipe.rise inclSumF32 "$n/w4" 1 -D n=$n $wsmall --tolerance 1e-3
  for k in exclSumI32 inclMaxI32; do run_case gpu scan_pipe.rise $k "$n/w4" 1 -D n=$n $wsmall; done
done
for n in 1 33 6145 1048583 16777219; do
  f=$Q/maps$n.bin
  python3 -c 'import random, struct, sys
n = int(sys.argv[1]); random.seed(n)
sys.stdout.buffer.write(struct.pack("<%dI" % n, *[random.getrandbits(32) for _ in range(n)]))' $n >"$f"
  for k in affineU32 affineExclU32; do
    bg_check gpu scan_pipe.rise $k "$n/w16/maps" 'max relative error: [^ ]*' \
      "$PATC" run examples/scan_pipe.rise --kernel $k --input "$f" --check-against-cpu -D n=$n $wbig
  done
  bg_check gpu scan_pipe.rise affineU32 "$n/w4/maps" 'max relative error: [^ ]*' \
    "$PATC" run examples/scan_pipe.rise --kernel affineU32 --input "$f" --check-against-cpu -D n=$n $wsmall
done
collect
for tool in memcheck racecheck synccheck; do
  for n in 1 33 100003; do san $tool scan_pipe.rise inclSumF32 1 -D n=$n $wbig; done
  san $tool scan_pipe.rise exclSumI32 1 -D n=300007 $wsmall
done
o=$(build/runtime/scan_stress --pipe 2>&1); rc=$?
echo "$o" | tee -a "$log"
record scan "scan_stress --pipe" "1000 back-to-back, 2^28" - $rc "$(echo "$o" | tail -1)"
fi # section p

# issue 34 item 1 (pipeir): the pipe kernels are lowered as kernel IR, each part
# unrolled by the lowering; the shapes at their limits (ipt 64: sixteen 16-byte vectors a
# lane; 29 compute warps of 4) against the interpreter, and under the sanitizers
if sec p; then
for n in 1 33 2047 2049 100003 1048583; do
  run_case gpu scan_pipe.rise inclMaxI32 "$n/w1ipt64" 1 -D n=$n -D w=1 -D ipt=64 -D s=16
  run_case gpu scan_pipe.rise exclSumF32 "$n/w29" 1 -D n=$n -D w=29 -D ipt=4 -D s=2 --tolerance 1e-3
done
collect
for tool in memcheck racecheck synccheck; do
  san $tool scan_pipe.rise inclMaxI32 1 -D n=100003 -D w=1 -D ipt=64 -D s=16
  san $tool scan_pipe.rise affineExclU32 1 -D n=100003 -D w=29 -D ipt=4 -D s=2
done
fi # section p, pipeir

if sec x || sec y; then
# ---------------------------------------------------------------- x, y. the scans at 2^28 (issue 12)
# Each scan at n = 2^28 against the interpreter, inclusive and exclusive, every type.
# The inputs are integers in -49..49 (`random:-49:49`; u32 and u64 0..99, `random`): their
# prefix sums stay within 2^18 in magnitude (the stream's largest is 248956), so every
# partial sum is exact in f32 and the GPU's order of additions must give the
# interpreter's in-order result exactly (--tolerance 1e-12 for floats; integers are
# compared exactly). With `random`'s [0,1) floats an in-order f32 sum stops growing at
# 2^24 (16777216 at 2^28, 0.875 below the true sum), so no tolerance would say anything.
# The interpreter takes minutes a case (one core and a few GB each), so these run 12 at a
# time: on an H200 machine (16 cores) x took 171 s and y 244 s (2026-11-24,
# tests/gpu/results/2026-11-24-nvidia-h200-scan-2p28).
big=268435456
xcase() { # FILE KERNEL TYPE -D...: at 2^28
  local file=$1 kernel=$2 ty=$3 in=(--input random:-49:49) tol=(); shift 3
  case $ty in u*) in=(--input random) ;; f*) tol=(--tolerance 1e-12) ;; esac
  bg_check gpu "$file" "$kernel" "$big/${in[1]}" 'max relative error: [^ ]*' \
    "$PATC" run "examples/$file" --kernel "$kernel" "${in[@]}" --check-against-cpu -D n=$big "$@" "${tol[@]}"
}
jobs_before=${GPU_JOBS:-8}
GPU_JOBS=${GPU_JOBS_BIG:-12}
if sec x; then
  for k in inclSumF32 exclSumF32 inclSumI32 exclSumI32; do
    t=${k#*Sum}; xcase scan_device.rise $k ${t,,} -D nt=128 -D ipt=25
  done
  for k in inclSumF64 exclSumF64 inclSumU32 exclSumU32 inclSumI64 exclSumI64 inclSumU64 exclSumU64; do
    t=${k#*Sum}; xcase ../tests/programs/scan_types.rise $k ${t,,} -D nt=128 -D ipt=25
  done
  collect
fi
if sec y; then
  for k in inclSumF32 exclSumF32 inclSumI32 exclSumI32; do
    t=${k#*Sum}
    xcase scan_pipe.rise $k ${t,,} -D w=16 -D ipt=12 -D s=9
    xcase scan_rows.rise $k ${t,,} -D r=264 -D nt=128 -D ipt=25
    xcase scan_blelloch.rise $k ${t,,}
  done
  collect
fi
GPU_JOBS=$jobs_before
fi # sections x, y

if sec c || sec d; then
# ---------------------------------------------------------------- c. filter and partition (issue 13)
# against the interpreter at ragged sizes, selectivity 1%, 50% and 99% (random input:
# floats uniform in [0, 1), integers 0..99), none and all selected; the sanitizers.
# Section d is the largest size, 2^24+3, alone (about 4 minutes of interpreter time).
csizes=
sec c && csizes="1 31 33 1000 4097 1048583"
sec c && [ $quick = 1 ] && csizes="1 33 4097 1048583"
sec d && csizes="$csizes 16777219"
ccase() { # CHECK FILE KERNEL N T -D...: gpu, against the interpreter (in the background, bg_check); or a sanitizer
  local check=$1 file=$2 kernel=$3 n=$4 t=$5; shift 5
  local run=("$PATC" run "examples/$file" --kernel "$kernel" --input "value:$t" --input random -D n=$n "$@")
  local label="$n/t=$t"
  case " $* " in *" --evict-first "*) label="$label/ef" ;; esac
  if [ "$check" = gpu ]; then
    bg_check gpu "$file" "$kernel" "$label" '^out0: value.*' "${run[@]}" --check-against-cpu
    return
  fi
  local o rc
  o=$(compute-sanitizer --tool "$check" --error-exitcode 1 "${run[@]}" 2>&1); rc=$?
  echo "$o" >>"$OUT/sanitizer.log"
  record "$check" "$file" "$kernel" "$label" $rc "$(echo "$o" | grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY')"
}
for n in $csizes; do
  fts="0.99 0.5 0.01 1.0 -1.0" its="98 49 0 99 -1"
  for t in $fts; do
    ccase gpu filter.rise filterGtF32 $n $t -D nt=128 -D ipt=16
    ccase gpu partition.rise partitionGtF32 $n $t -D nt=128 -D ipt=16
    ccase gpu partition.rise partitionStableGtF32 $n $t -D nt=128 -D ipt=16 -D g=264
  done
  for t in $its; do
    ccase gpu filter.rise filterGtI32 $n $t -D nt=128 -D ipt=16
    ccase gpu partition.rise partitionGtI32 $n $t -D nt=128 -D ipt=16
    ccase gpu partition.rise partitionStableGtI32 $n $t -D nt=128 -D ipt=16 -D g=5
  done
  ccase gpu partition.rise partitionLtF32 $n 0.5 -D nt=64 -D ipt=7
  # the benchmark's larger tiles (bench/select_tuning.conf)
  for shape in "512 16" "256 32" "512 32"; do
    set -- $shape
    ccase gpu filter.rise filterGtF32 $n 0.5 -D nt=$1 -D ipt=$2
    ccase gpu partition.rise partitionGtI32 $n 49 -D nt=$1 -D ipt=$2
    ccase gpu partition.rise partitionStableGtF32 $n 0.5 -D nt=$1 -D ipt=$2 -D g=528
  done
  # evict-first loads and stores (bench/select_tuning.conf's middle range)
  ccase gpu filter.rise filterGtF32 $n 0.5 -D nt=256 -D ipt=32 --evict-first
  ccase gpu partition.rise partitionGtI32 $n 49 -D nt=256 -D ipt=32 --evict-first
done
# filterPipe, partitionPipe and partitionStablePipe (examples/filter_pipe.rise, partition_pipe.rise): the same
# sizes and selectivities, their tiles' edges (10240 and 6144 elements), and the small
# shapes (tiles of 512: many per block, the ring reused)
pedges=
sec c && pedges="6143 6144 6145 10239 10240 10241"
for n in $csizes $pedges; do
  fts="0.99 0.5 0.01 1.0 -1.0" its="98 49 0 99 -1"
  for t in $fts; do
    ccase gpu filter_pipe.rise filterGtF32 $n $t
    ccase gpu partition_pipe.rise partitionGtF32 $n $t
    ccase gpu partition_pipe.rise partitionStableGtF32 $n $t -D g=264
  done
  for t in $its; do
    ccase gpu filter_pipe.rise filterGtI32 $n $t
    ccase gpu partition_pipe.rise partitionGtI32 $n $t
    ccase gpu partition_pipe.rise partitionStableGtI32 $n $t -D g=5
  done
done
if sec c; then
for n in 1 513 100003 1048583; do
  for t in 0.5 0.01 -1.0; do
    ccase gpu filter_pipe.rise filterGtF32Small $n $t
    ccase gpu partition_pipe.rise partitionGtF32Small $n $t
    ccase gpu partition_pipe.rise partitionStableGtF32Small $n $t -D g=7
  done
done
fi
collect
if sec c; then
for tool in memcheck racecheck synccheck; do
  for n in 33 100003; do
    ccase $tool filter_pipe.rise filterGtF32 $n 0.5
    ccase $tool partition_pipe.rise partitionGtI32 $n 49
  done
  ccase $tool filter_pipe.rise filterGtF32Small 300007 0.5
  ccase $tool partition_pipe.rise partitionGtF32Small 300007 0.5
  ccase $tool partition_pipe.rise partitionStableGtI32 100003 49 -D g=7
  ccase $tool partition_pipe.rise partitionStableGtF32Small 300007 0.5 -D g=7
done
for tool in memcheck racecheck synccheck; do
  for n in 1 33 100003; do
    ccase $tool filter.rise filterGtF32 $n 0.5 -D nt=128 -D ipt=16
    ccase $tool partition.rise partitionGtI32 $n 49 -D nt=128 -D ipt=16
  done
  ccase $tool filter.rise filterGtF32 100003 0.5 -D nt=512 -D ipt=32
  ccase $tool partition.rise partitionGtI32 100003 49 -D nt=256 -D ipt=32
  ccase $tool filter.rise filterGtF32 100003 0.5 -D nt=256 -D ipt=32 --evict-first
  for n in 33 100003; do
    ccase $tool partition.rise partitionStableGtI32 $n 49 -D nt=128 -D ipt=16 -D g=7
  done
done
# a stable partition given a count too large (tests/programs/partition_given.rise): the
# stores must stay inside the output (the interpreter refuses such a count)
for m in 100003 4000000000; do
  for k in "givenTileF32 -D nt=128 -D ipt=16" givenPipeF32; do
    set -- $k
    o=$(compute-sanitizer --tool memcheck --error-exitcode 1 "$PATC" run tests/programs/partition_given.rise --kernel "$@" \
      -D n=100003 --input value:0.5 --input value:$m --input random 2>&1); rc=$?
    echo "$o" >>"$OUT/sanitizer.log"
    record memcheck partition_given.rise "$1" "100003/m=$m" $rc "$(echo "$o" | grep -m1 'ERROR SUMMARY')"
  done
done
# issue 34 item 2 (scanfix): partitionStablePipe given a count too small placed its others
# before the output (a negative place); they are clamped to it now (tests/emu checks the
# same under ASan). The stable partitions at 2^28 on 32-bit indices against the CPU.
for m in 0 1000; do
  o=$(compute-sanitizer --tool memcheck --error-exitcode 1 "$PATC" run tests/programs/partition_given.rise --kernel givenPipeF32 \
    -D n=100003 --input value:0.5 --input value:$m --input random 2>&1); rc=$?
  echo "$o" >>"$OUT/sanitizer.log"
  record memcheck partition_given.rise givenPipeF32 "100003/m=$m" $rc "$(echo "$o" | grep -m1 'ERROR SUMMARY')"
done
run_case gpu partition_pipe.rise partitionStableGtF32 "2^28+3" 0 -D n=268435459 -D g=264 --input value:0.5 --input random
run_case gpu partition_pipe.rise partitionGtF32 "2^28+3" 0 -D n=268435459 --input value:0.5 --input random
# quicksort (examples/quicksort): partition launches and one-block bitonic sorts driven
# from C, checked against qsort; its small sort against the interpreter.
# qsort_case LABEL N ARGS...: one sort (quicksort ARGS...) of N keys, logged and recorded
qsort_case() {
  local label=$1 n=$2; shift 2
  o=$(build/examples/quicksort/quicksort "$@" 2>&1); rc=$?
  echo "$o" >>"$log"
  record gpu quicksort "$label" $n $rc "$(echo "$o" | tail -1)"
}
for n in 1 1000 1048583 16777216; do
  for kind in random dup equal sorted reversed inf; do qsort_case $kind $n $n $kind; done
done
# the sort with the 1024-key small sort (quicksort --small 1024), at one size
for kind in random dup; do qsort_case "small1024 $kind" 1048583 --small 1024 1048583 $kind; done
for n in 1 1000 1024; do run_case gpu quicksort/sort_small.rise sortSmallF32 $n 1 -D n=$n; done
for n in 1 1000 4096 4097 12289; do run_case gpu quicksort/sort_small.rise sortSmall4096F32 $n 1 -D n=$n; done
for tool in memcheck racecheck synccheck; do
  san $tool quicksort/sort_small.rise sortSmallF32 1 -D n=1000
  san $tool quicksort/sort_small.rise sortSmall4096F32 1 -D n=4000
done
# the whole sort under memcheck (every partition, small sort and pivot pick of a sort)
for kind in random dup; do
  o=$(compute-sanitizer --tool memcheck --error-exitcode 1 build/examples/quicksort/quicksort 20011 $kind 1 2>&1); rc=$?
  echo "$o" >>"$OUT/sanitizer.log"
  record memcheck quicksort "$kind" 20011 $rc "$(echo "$o" | grep -m1 'ERROR SUMMARY')"
done
# issue 35 item 3 (samplesort): the sample sort (quicksort --sample, samplesort.rise: eight
# launches and one download whatever n is) against qsort at the sizes above, every kind;
# with --bucket-max 1024 (buckets of more than 1024 keys sorted by partitions, the
# fallback's path with small sorts) at 2^20+7; above its limit (4096 x 4352 keys) the
# partition sort, said so. Its kernels against the interpreter where random input is
# valid (the sample, the tile sort), and the whole sort under each sanitizer.
for n in 1 1000 1048583 16777216; do
  for kind in random dup equal sorted reversed inf; do qsort_case "sample $kind" $n --sample $n $kind; done
done
for kind in random dup sorted; do qsort_case "sample bmax1024 $kind" 1048583 --sample --bucket-max 1024 1048583 $kind; done
qsort_case "sample random (limit)" 20000003 --sample 20000003 random 1
run_case gpu quicksort/samplesort.rise ssSample 1048583 1 -D n=1048583 -D s=16384
for n in 1 16384 16385 1048583; do run_case gpu quicksort/samplesort.rise ssSortTiles $n 1 -D n=$n; done
for tool in memcheck racecheck synccheck; do
  san $tool quicksort/samplesort.rise ssSortTiles 1 -D n=40000
  for kind in random dup; do
    o=$(compute-sanitizer --tool $tool --error-exitcode 1 build/examples/quicksort/quicksort --sample 100003 $kind 1 2>&1); rc=$?
    echo "$o" >>"$OUT/sanitizer.log"
    record $tool "quicksort --sample" "$kind" 100003 $rc "$(echo "$o" | grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY')"
  done
done
fi
fi # sections c and d
collect

if sec a; then
# ---------------------------------------------------------------- a. ready-made algorithms
# tests/gpu/algo_check.cu, built here by nvcc against build/runtime/libpatrt.a: every
# ready-made algorithm (patc_reduce, patc_inclusive_scan and patc_exclusive_scan with sum,
# min and max; filter, partition and stable partition with x > t, t at about 50% and 1%
# selected, none and all) for f32 f64 i32 u32 i64 u64 at n = 1, 31, 33, 1000, 4097,
# 2^20+7, 2^24+3 against CUB computed in the same program (the stable partition against
# the host's order), bit for bit (the float inputs are integers, so every sum is exact in
# any order). One process per type (in the background, bg_check): with the built-in
# settings, then with input and output one element past a 256-byte aligned allocation
# (the unaligned variants); the pipe kernels and the grid and one-block reductions at
# every size, forced by tuning files; 1000 back-to-back patc_inclusive_scan calls of
# varying n on one stream, each checked (--stress); then memcheck, racecheck and
# synccheck at small sizes.
adir=$(mktemp -d)
o=$(nvcc -O3 -arch=sm_90 -std=c++17 -Iruntime -o "$adir/algo_check" tests/gpu/algo_check.cu build/runtime/libpatrt.a -ldl -lm -lpthread 2>&1); rc=$?
echo "$o" >>"$log"
record build algo_check.cu nvcc - $rc "$(echo "$o" | grep -m1 -i 'error')"
if [ $rc = 0 ]; then
  A=("$adir/algo_check" --root "$PWD")
  # the 4-byte types' pipe kernels at every n (the H200 shapes, and tiles of 512 so that
  # the ring wraps within a block), and the reductions' other kernel
  nmax=9223372036854775807
  printf '%s\n' "reduce 1 $nmax 2 kernel=grid elemsBlock=1024 elemsWarp=128" "reduce64 1 $nmax 2 kernel=grid elemsBlock=1024 elemsWarp=128" \
    "scan 1 $nmax 1 kernel=pipe w=16 ipt=12 s=9" "filter 1 $nmax 1 kernel=pipe w=16 ipt=20 s=5" \
    "partition 1 $nmax 1 kernel=pipe w=16 ipt=12 s=9" "partition_stable 1 $nmax 1 kernel=pipe w=16 ipt=12 s=9" >"$adir/pipe.conf"
  printf '%s\n' "reduce 1 $nmax 1 kernel=one elemsBlock=2048 elemsWarp=256" "reduce64 1 $nmax 1 kernel=one elemsBlock=2048 elemsWarp=256" \
    "scan 1 $nmax 1 kernel=pipe w=4 ipt=4 s=2" "filter 1 $nmax 1 kernel=pipe w=4 ipt=4 s=2" \
    "partition 1 $nmax 1 kernel=pipe w=4 ipt=4 s=2" "partition_stable 1 $nmax 1 kernel=pipe w=4 ipt=4 s=2" >"$adir/pipesmall.conf"
  asizes=1,31,33,1000,4097,1048583,16777219 alabel="1..2^24+3"
  [ $quick = 1 ] && asizes=1,33,4097,1048583 alabel="1..2^20+7"
  psizes_a=1,31,33,1000,4097,6143,6144,6145,10239,10240,10241,1048583
  are='algo_check: [0-9]+ passed, [0-9]+ failed'
  for ty in f32 f64 i32 u32 i64 u64; do
    bg_check algo algo_check.cu "$ty" "$alabel" "$are" "${A[@]}" --types $ty --sizes $asizes
    bg_check algo algo_check.cu "$ty unaligned" "$alabel" "$are" "${A[@]}" --types $ty --sizes $asizes --unaligned
  done
  for f in pipe pipesmall; do
    bg_check algo algo_check.cu "f32 i32 u32 $f.conf" "1..2^20+7" "$are" "${A[@]}" --types f32,i32,u32 --sizes $psizes_a --tuning "$adir/$f.conf"
  done
  bg_check algo algo_check.cu "1000 back-to-back scans" "1..2^22" "$are" "${A[@]}" --stress 1000
  collect
  # algo_san TOOL ARGS...: algo_check under the sanitizer, with a last line "== " giving
  # its count and the sanitizer's summary (the detail bg_check records)
  algo_san() {
    local o rc
    o=$(compute-sanitizer --tool "$1" --error-exitcode 1 "${A[@]}" "${@:2}" 2>&1); rc=$?
    echo "$o"
    echo "== $(echo "$o" | grep -m1 -oE "$are"); $(echo "$o" | grep -m1 -oE '(ERROR|RACECHECK) SUMMARY.*')"
    return $rc
  }
  for tool in memcheck racecheck synccheck; do
    bg_check $tool algo_check.cu "f32 u64" "33 4097" '^== .*' algo_san $tool --types f32,u64 --sizes 33,4097 --sel half
    for ty in u32 f64; do
      bg_check $tool algo_check.cu "$ty unaligned" "33 4097" '^== .*' algo_san $tool --types $ty --sizes 33,4097 --sel half --unaligned
    done
    bg_check $tool algo_check.cu "f32 pipe.conf" "33 6145" '^== .*' algo_san $tool --types f32 --sizes 33,6145 --sel half --tuning "$adir/pipe.conf"
    bg_check $tool algo_check.cu "u32 pipesmall.conf" "1000" '^== .*' algo_san $tool --types u32 --sizes 1000 --sel half --tuning "$adir/pipesmall.conf"
  done
  collect
fi
rm -rf "$adir"
fi # section a

# ---------------------------------------------------------------- h. histograms (issue 33 item 2)
# accumulate's shared atomics merged by global atomics (examples/histogram.rise) against
# the interpreter at ragged sizes: u32 keys uniform in 0..299 (those >= 256 dropped) and
# all in one bin (value:7, every thread's atomics on one shared address); f32 over
# [0.25, 0.75) of uniform [0, 1) samples (half out of range) and all in one bin; then
# memcheck, racecheck and synccheck
if sec h; then
for n in 1 31 33 1000 4097 1048583 16777216; do
  for g in 3 264; do
    bg_check gpu histogram.rise histU32 "$n g=$g uniform" 'max relative error: [^ ]*' \
      "$PATC" run examples/histogram.rise --kernel histU32 --input random:0:299 --check-against-cpu -D n=$n -D g=$g
    bg_check gpu histogram.rise histU32 "$n g=$g skewed" 'max relative error: [^ ]*' \
      "$PATC" run examples/histogram.rise --kernel histU32 --input value:7 --check-against-cpu -D n=$n -D g=$g
    bg_check gpu histogram.rise histF32 "$n g=$g range" 'max relative error: [^ ]*' \
      "$PATC" run examples/histogram.rise --kernel histF32 --input value:0.25 --input value:0.75 --input random \
      --check-against-cpu -D n=$n -D g=$g
    bg_check gpu histogram.rise histF32 "$n g=$g skewed" 'max relative error: [^ ]*' \
      "$PATC" run examples/histogram.rise --kernel histF32 --input value:0.0 --input value:1.0 --input value:0.5 \
      --check-against-cpu -D n=$n -D g=$g
  done
done
for g in 1 7 1000; do # each CUDA atomic accumulate lowers to (256*g elements)
  for k in addI32 minI32 orU32 xorI64 addI64 maxU64 andU64 addF32 addF64 globalMaxU32 globalAddI32; do
    run_case gpu ../tests/programs/accumulate_types.rise $k "256*$g" 1 -D g=$g
  done
done
collect
for tool in memcheck racecheck synccheck; do
  o=$(compute-sanitizer --tool $tool --error-exitcode 1 "$PATC" run examples/histogram.rise --kernel histU32 \
      --input random:0:299 -D n=100003 -D g=9 2>&1); rc=$?
  echo "$o" >>"$OUT/sanitizer.log"
  record $tool histogram.rise histU32 "-D n=100003 -D g=9" $rc "$(echo "$o" | grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY')"
  o=$(compute-sanitizer --tool $tool --error-exitcode 1 "$PATC" run examples/histogram.rise --kernel histF32 \
      --input value:0.25 --input value:0.75 --input random -D n=100003 -D g=9 2>&1); rc=$?
  echo "$o" >>"$OUT/sanitizer.log"
  record $tool histogram.rise histF32 "-D n=100003 -D g=9" $rc "$(echo "$o" | grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY')"
  o=$(compute-sanitizer --tool $tool --error-exitcode 1 "$PATC" run examples/histogram.rise --kernel histU32 \
      --input value:7 -D n=100003 -D g=9 2>&1); rc=$? # the warp-aggregated adds
  echo "$o" >>"$OUT/sanitizer.log"
  record $tool histogram.rise histU32 "skewed -D n=100003 -D g=9" $rc "$(echo "$o" | grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY')"
done
fi # section h

# issue 35 item 1: multisplit. The stable k-way partition (examples/multisplit.rise,
# three launches) of every element type against the interpreter: u32 keys over all 256
# buckets of their low byte and msWide's over 4096 (random:0:65535), the others `random`
# (integers 0..99, floats in [0, 1)) into 1 to 1000 buckets, pairs by the value's
# bucket and by the key's; then the sanitizers at several n.
if sec m; then
for n in 1 31 33 1000 4097 1048583 16777219; do
  for k in msU32 msWide; do
    bg_check gpu multisplit.rise $k "$n/0:65535" 'max relative error: [^ ]*' \
      "$PATC" run examples/multisplit.rise --kernel $k --input random:0:65535 --check-against-cpu -D n=$n -D g=264
  done
  for k in msI32 msF32 msU64 msI64 msF64 msOne; do
    [ $n = 16777219 ] && [ $k != msF32 ] && [ $k != msI32 ] && continue
    run_case gpu multisplit.rise $k $n 1 -D n=$n -D g=264
  done
  # pairs: a bucket of the value's (keys and values stored together), of the key's (the
  # keys stored first, then the values)
  for k in msPairsByValue msPairsByKey; do
    [ $n = 16777219 ] || run_case gpu multisplit.rise $k $n 2 -D n=$n -D g=264
  done
  # the sort's largest pass tile (512 x 24) for two blocks an SM, and for three, where each
  # element's bucket is computed again when it is ranked (prims/split.c, ms_keep_buckets)
  if [ $n != 16777219 ]; then
    run_case gpu multisplit.rise msTile $n 1 -D n=$n -D g=264
    bg_check gpu multisplit.rise "msTile --min-blocks 3" $n 'max relative error: [^ ]*' \
      "$PATC" run examples/multisplit.rise --kernel msTile --min-blocks 3 --input random --check-against-cpu -D n=$n -D g=264
  fi
done
collect
for tool in memcheck racecheck synccheck; do
  for n in 1 4097 100003; do san $tool multisplit.rise msU32 1 -D n=$n -D g=7; done
  san $tool multisplit.rise msI32 1 -D n=100003 -D g=7
  san $tool multisplit.rise msU64 1 -D n=100003 -D g=7
  san $tool multisplit.rise msF64 1 -D n=33 -D g=1
  san $tool multisplit.rise msWide 1 -D n=100003 -D g=7
  san $tool multisplit.rise msPairsByValue 2 -D n=100003 -D g=7
  san $tool multisplit.rise msPairsByKey 2 -D n=4097 -D g=7
  san $tool multisplit.rise msTile 1 --min-blocks 3 -D n=100003 -D g=7
done
fi # section m

# issue 35 items 2 and 4: the radix sort of keys (patterns/radixsort.rise, libpatrt's
# patc_sort_keys). tests/gpu/sort_check.c, built here by cc against libpatrt.a, sorts n
# keys on the GPU (five launches: the four-digit histogram and its scan in one, four
# multisplit passes), then sorts the result again in place, and checks every element of both bit
# for bit against a stable LSD radix sort of its own (and against qsort under the type's
# order up to 2^21 keys), and that the input is unchanged: u32, i32 and f32 keys, uniform
# random words (f32: every bit pattern, NaNs included), few unique values (the AND of 3
# random words) and sorted input at 1, 31, 1000, 4097, 2^20+7, 2^24+3 and 2^28; reverse,
# special values (extremes, +-0, +-inf, NaNs) and all-equal at 33 .. 2^20+7; 1000
# back-to-back sorts of 1..100000 keys on one stream per type; the histogram kernels
# (alone and with the scan) against the interpreter; then memcheck, racecheck and synccheck at a few n. Then the
# same for key-value pairs and descending sorts (issue 35 item 2, sortpairs).
# build_sort_check DIR: tests/gpu/sort_check.c built into DIR/sort_check against the
# carried libpatrt.a (sections r and s), the build recorded; false where it failed.
# rre: the line of its counts.
build_sort_check() {
  local o rc
  o=$(${CC:-cc} -std=c11 -O2 -Iruntime -o "$1/sort_check" tests/gpu/sort_check.c build/runtime/libpatrt.a -ldl -lm -lpthread 2>&1); rc=$?
  echo "$o" >>"$log"
  record build sort_check.c cc - $rc "$(echo "$o" | grep -m1 -i 'error')"
  return $rc
}
rre='sort_check: [0-9]+ passed, [0-9]+ failed'
if sec r; then
rdir=$(mktemp -d)
if build_sort_check "$rdir"; then
  # 2049, 4097, 5000: the small sort's 256 x 16, 384 x 13, 512 x 10 tiles (registers); 4096
  # the 256 x 16 one whole; 5121 its 1024 x 8 one (shared memory)
  rsizes="1 31 1000 2049 4096 4097 5000 5121 1048583" # 2^24+3 and 2^28: section s
  for ty in u32 i32 f32; do
    for n in $rsizes; do
      for k in uniform few sorted; do
        BG_MAX=$(jobs_for $n) bg_check sort sort_check.c "$ty $k" "$n" "$rre" "$rdir/sort_check" $ty $n $k
      done
    done
    for n in 33 4097 1048583; do
      for k in reverse special equal; do
        bg_check sort sort_check.c "$ty $k" "$n" "$rre" "$rdir/sort_check" $ty $n $k
      done
    done
    bg_check sort sort_check.c "$ty 1000 back-to-back" "1..100000" "$rre" "$rdir/sort_check" $ty many 1000 100000
  done
  for t in U32 I32 F32; do
    for n in 4097 1048583; do
      bg_check gpu radixsort.rise rsHist$t "$n/g=264" 'max relative error: [^ ]*' \
        "$PATC" run examples/radixsort.rise --kernel rsHist$t --input random:0:2000000000 --check-against-cpu -D n=$n -D g=264
      [ $t = I32 ] || bg_check gpu radixsort.rise rsHistScan$t "$n/g=264" 'max relative error: [^ ]*' \
        "$PATC" run examples/radixsort.rise --kernel rsHistScan$t --input random:0:2000000000 --check-against-cpu -D n=$n -D g=264
      # the bins in the output, zeroed by libpatrt before the launch (as the sorter's)
      [ $t = I32 ] || bg_check gpu radixsort.rise "rsHistScan$t bins-in-result" "$n/g=264" 'max relative error: [^ ]*' \
        "$PATC" run examples/radixsort.rise --kernel rsHistScan$t --input random:0:2000000000 --check-against-cpu -D n=$n -D g=264 --bins-in-result
      # in 16-byte vectors (libpatrt's sortHistScanV, where the keys are 16-byte aligned)
      [ $t = I32 ] || bg_check gpu radixsort.rise "rsHistScanV$t bins-in-result" "$n/g=264" 'max relative error: [^ ]*' \
        "$PATC" run examples/radixsort.rise --kernel rsHistScanV$t --input random:0:2000000000 --check-against-cpu -D n=$n -D g=264 --bins-in-result
    done
  done
  collect
  # the temporary memory against CUB's for the same call, every key type and value size
  # (tests/gpu/sort_temp.cu: a query on both sides, nothing sorted)
  o=$(nvcc -O2 -arch=sm_90 -std=c++17 -Iruntime -o "$rdir/sort_temp" tests/gpu/sort_temp.cu build/runtime/libpatrt.a -ldl -lm -lpthread 2>&1); rc=$?
  echo "$o" >>"$log"
  record build sort_temp.cu nvcc - $rc "$(echo "$o" | grep -m1 -i 'error')"
  if [ $rc = 0 ]; then
    o=$("$rdir/sort_temp" --root "$PWD" 2>&1); rc=$?
    echo "$o" >>"$log"
    record sort sort_temp.cu "temp bytes <= CUB's" "1..2^31-1" $rc "$(echo "$o" | tail -1)"
  fi
  # sort_san TOOL ARGS...: sort_check under the sanitizer, with a last line "== " giving
  # its count and the sanitizer's summary (the detail bg_check records)
  sort_san() {
    local o rc
    o=$(compute-sanitizer --tool "$1" --error-exitcode 1 "$rdir/sort_check" "${@:2}" 2>&1); rc=$?
    echo "$o"
    echo "== $(echo "$o" | grep -m1 -oE "$rre"); $(echo "$o" | grep -m1 -oE '(ERROR|RACECHECK) SUMMARY.*')"
    return $rc
  }
  for tool in memcheck racecheck synccheck; do
    bg_check $tool sort_check.c "u32 uniform" 1 '^== .*' sort_san $tool u32 1 uniform
    bg_check $tool sort_check.c "f32 special" 4097 '^== .*' sort_san $tool f32 4097 special
    bg_check $tool sort_check.c "u32 few" 4096 '^== .*' sort_san $tool u32 4096 few
    bg_check $tool sort_check.c "i32 few" 100003 '^== .*' sort_san $tool i32 100003 few
  done
  # issue 35 item 2 (sortpairs): sorts of key-value pairs and descending sorts, the same
  # checks (the values out bit for bit against the reference's, which carries each value
  # with its key, so equal keys must keep their values' input order; descending: the
  # reference by the complemented order bits, qsort by the reversed order). f32 keys
  # with u32 values (the benchmark's) and descending f32 pairs at every size and input
  # kind; the other key/value types and descending keys at up to 2^20+7; the pairs
  # kernels against the interpreter; the sanitizers on pairs and descending sorts.
  for f in "--pairs=u32 f32" "--desc --pairs=u32 f32"; do
    for n in $rsizes; do
      for k in uniform few sorted; do
        BG_MAX=$(jobs_for $n) bg_check sort sort_check.c "$f $k" "$n" "$rre" "$rdir/sort_check" $f $n $k
      done
    done
    for n in 33 4097 1048583; do
      for k in reverse special equal; do
        bg_check sort sort_check.c "$f $k" "$n" "$rre" "$rdir/sort_check" $f $n $k
      done
    done
    bg_check sort sort_check.c "$f 1000 back-to-back" "1..100000" "$rre" "$rdir/sort_check" $f many 1000 100000
  done
  # --pairs=VTYPE KTYPE: u32 keys with f32 values, i32 with i32 and u32, f32 with i32
  for f in "--pairs=f32 u32" "--pairs=i32 i32" "--pairs=u32 i32" "--pairs=i32 f32" "--desc u32" "--desc i32" \
           "--desc f32" "--desc --pairs=i32 u32"; do
    for n in 1 31 1000 4097 1048583; do
      for k in uniform few special equal; do
        bg_check sort sort_check.c "$f $k" "$n" "$rre" "$rdir/sort_check" $f $n $k
      done
    done
    bg_check sort sort_check.c "$f 200 back-to-back" "1..100000" "$rre" "$rdir/sort_check" $f many 200 100000
  done
  # sort_pairs_pass T N: rsPassPairsT (digit 1) on random keys and values against the
  # interpreter, the offsets from the interpreter's histogram and scan of the keys
  sort_pairs_pass() {
    local d="$rdir/pp_$1_$2"
    mkdir -p "$d"
    python3 -c "import os,sys; sys.stdout.buffer.write(os.urandom(4*$2))" >"$d/k.bin"
    python3 -c "import os,sys; sys.stdout.buffer.write(os.urandom(4*$2))" >"$d/v.bin"
    "$PATC" run examples/radixsort.rise --kernel "rsHist$1" --cpu -D n="$2" -D g=1 --input "$d/k.bin" --output "$d/h.bin" &&
      "$PATC" run examples/radixsort.rise --kernel rsScanAll --cpu --input "$d/h.bin" --output "$d/o.bin" &&
      dd if="$d/o.bin" of="$d/o1.bin" bs=1024 skip=1 count=1 2>/dev/null &&
      "$PATC" run examples/radixsort_pairs.rise --kernel "rsPassPairs$1" --input value:1 --input "$d/o1.bin" \
        --input "$d/k.bin" --input "$d/v.bin" --check-against-cpu -D n="$2"
  }
  for t in U32 I32 F32; do
    for n in 4097 1048583; do
      bg_check gpu radixsort_pairs.rise rsPassPairs$t "$n (d=1)" 'max relative error: [^ ]*' sort_pairs_pass $t $n
    done
  done
  for n in 4097 1048583; do
    bg_check gpu radixsort_pairs.rise rsHistF32Desc "$n/g=264" 'max relative error: [^ ]*' \
      "$PATC" run examples/radixsort_pairs.rise --kernel rsHistF32Desc --input random --check-against-cpu -D n=$n -D g=264
  done
  for tool in memcheck racecheck synccheck; do
    bg_check $tool sort_check.c "f32+u32 pairs special" 4097 '^== .*' sort_san $tool --pairs=u32 f32 4097 special
    bg_check $tool sort_check.c "i32+f32 pairs desc few" 100003 '^== .*' sort_san $tool --desc --pairs=f32 i32 100003 few
    bg_check $tool sort_check.c "u32 desc equal" 4097 '^== .*' sort_san $tool --desc u32 4097 equal
  done
  # issue 35 item 2 (wide): 8-byte keys (u64, i64, f64: eight passes) and values, bit
  # ranges and digit widths, the same checks (a bit range: the reference by those bits
  # of the order bits alone, keys equal there in input order; no qsort). The in-place
  # sort of an odd number of passes (five for bits 0..39, three for 11-bit digits of
  # u32 keys) ends with sortCopy. Then the sanitizers on each kind.
  for ty in u64 i64 f64; do
    for n in 1 31 1000 4097 9001 1048583; do # 2^24+3: section s
      for k in uniform few sorted; do
        BG_MAX=$(jobs_for $n) bg_check sort sort_check.c "$ty $k" "$n" "$rre" "$rdir/sort_check" $ty $n $k
      done
    done
    for k in reverse special equal; do
      bg_check sort sort_check.c "$ty $k" 4097 "$rre" "$rdir/sort_check" $ty 4097 $k
    done
    bg_check sort sort_check.c "$ty 300 back-to-back" "1..100000" "$rre" "$rdir/sort_check" $ty many 300 100000
  done
  for f in "--pairs=u64 f64" "--pairs=u32 u64" "--pairs=f64 i32" "--desc --pairs=u64 i64" "--desc f64" \
           "--bits=0:16 u32" "--bits=4:20 --pairs=u32 u32" "--bits=23:32 --desc f32" "--bits=0:40 --pairs=u64 i64" \
           "--bits=8:64 u64" "--digit=11 u32" "--digit=11 --pairs=u32 f32" "--digit=5 --bits=3:31 --desc u32" \
           "--digit=11 f64"; do
    for n in 1 31 1000 4097 9001 1048583; do
      for k in uniform few special; do
        bg_check sort sort_check.c "$f $k" "$n" "$rre" "$rdir/sort_check" $f $n $k
      done
    done
    bg_check sort sort_check.c "$f 100 back-to-back" "1..100000" "$rre" "$rdir/sort_check" $f many 100 100000
  done
  # issue 35 item 4: a sort in portions (each pass a launch a portion, multisplitToNext,
  # each portion's offsets the result of the portion before), as past 2^28 keys
  # (tests/gpu/big.c sorts 2^32 + 7), here with small portions: two to a few hundred
  for f in "--portion=100003 u32" "--portion=65536 --pairs=u32 f32" "--portion=1000000 --desc f64" \
           "--portion=12289 --digit=11 --pairs=u64 i32" "--portion=300007 --bits=0:40 i64"; do
    for n in 9001 100003 1048583; do
      for k in uniform few; do
        bg_check sort sort_check.c "$f $k" "$n" "$rre" "$rdir/sort_check" $f $n $k
      done
    done
    bg_check sort sort_check.c "$f 100 back-to-back" "1..300000" "$rre" "$rdir/sort_check" $f many 100 300000
  done
  # the passes' other tiles (rt_sort.c's tile_steps; the sizes above stop at 2^20 + 7),
  # each at its first size or last: f32 keys with 4-byte values
  # 512x18 to 2^23 - 1, 384x26 from 2^23; u64 keys 512x16 (from 2^20); f32 keys 512x16
  # at 2^21, 384x19 (three blocks an SM) from 2^23; u32 keys 512x20 from 2^23. The
  # 4-byte keys' 512x24 (three blocks, from 2^25 u32 and 2^26 f32 keys): section s's 2^28
  for f in "--pairs=u32 f32" "--pairs=i32 f32"; do
    for k in uniform few special; do
      bg_check sort sort_check.c "$f $k (512x18 tiles)" 8388607 "$rre" "$rdir/sort_check" $f 8388607 $k
      bg_check sort sort_check.c "$f $k (384x26 tiles)" 8388617 "$rre" "$rdir/sort_check" $f 8388617 $k
    done
  done
  for k in uniform few special; do
    bg_check sort sort_check.c "u64 $k (512x16 tiles)" 8388617 "$rre" "$rdir/sort_check" u64 8388617 $k
  done
  for k in uniform few special sorted; do
    bg_check sort sort_check.c "f32 $k (512x16 tiles)" 2097155 "$rre" "$rdir/sort_check" f32 2097155 $k
    bg_check sort sort_check.c "f32 $k (384x19 tiles)" 8388617 "$rre" "$rdir/sort_check" f32 8388617 $k
    bg_check sort sort_check.c "u32 $k (512x20 tiles)" 8388608 "$rre" "$rdir/sort_check" u32 8388608 $k
  done
  for tool in memcheck racecheck synccheck; do
    bg_check $tool sort_check.c "u64+f64 pairs special" 4097 '^== .*' sort_san $tool --pairs=f64 u64 4097 special
    bg_check $tool sort_check.c "i64+u64 bits 0:40 few" 100003 '^== .*' sort_san $tool --bits=0:40 --pairs=u64 i64 100003 few
    bg_check $tool sort_check.c "u32 digit 11 uniform" 100003 '^== .*' sort_san $tool --digit=11 u32 100003 uniform
    bg_check $tool sort_check.c "u32+u64 portions of 30011 few" 100003 '^== .*' sort_san $tool --portion=30011 --pairs=u64 u32 100003 few
    # the passes' tiles (rt_sort.c's tile_steps: u32 and f32 keys 512x16 at 2^20 and
    # 2^21, f32 keys 384x19 from 2^23; f32 keys with u32 values 512x18 at 2^20, 384x26
    # from 2^23; u64 keys 512x16 at 2^20; the 512x24 pass at three blocks an SM:
    # section m's msTile --min-blocks 3)
    bg_check $tool sort_check.c "u32 uniform (512x16 tiles)" 1048583 '^== .*' sort_san $tool u32 1048583 uniform
    bg_check $tool sort_check.c "f32 special (512x16 tiles)" 1048583 '^== .*' sort_san $tool f32 1048583 special
    bg_check $tool sort_check.c "f32 sorted (512x16 tiles)" 2097155 '^== .*' sort_san $tool f32 2097155 sorted
    bg_check $tool sort_check.c "f32 few (384x19 tiles)" 8388617 '^== .*' sort_san $tool f32 8388617 few
    bg_check $tool sort_check.c "f32+u32 pairs uniform (512x18 tiles)" 1048583 '^== .*' sort_san $tool --pairs=u32 f32 1048583 uniform
    bg_check $tool sort_check.c "f32+i32 pairs special (384x26 tiles)" 8388617 '^== .*' sort_san $tool --pairs=i32 f32 8388617 special
    bg_check $tool sort_check.c "u64 special (512x16 tiles)" 1048583 '^== .*' sort_san $tool u64 1048583 special
  done
  # issue 35 item 2 (sorttile): the one-launch small sort. The sortTiles primitive
  # (examples/sorttiles.rise: tiles of 1024 x 4 of every element type, pairs and
  # descending, and two small shapes) against the interpreter at 1, 31, 33, 1000, the
  # tile (4096) and multi-tile n (4097, 100003: each tile sorted on its own); the
  # examples' rsSmall kernels; libpatrt's sorts at its one-launch
  # thresholds (rt_sort.c's small_tiles: 2048, 4096 and 8192 keys, SMALL_MAX the last)
  # and their neighbours (each takes the first tile that holds it; 8193 the six
  # launches), in place too (sort_check sorts its result again); back-to-back sorts of
  # 1..16384 keys crossing the thresholds; the sanitizers on the primitive and on small
  # sorts.
  for k in stU32 stI32 stF32 stF32Desc stPairsI32 stPairsU32Desc stWarpI32 stTinyU32; do
    nin=1
    case $k in stPairs*) nin=2 ;; esac
    for n in 1 31 33 1000 4096 4097 100003; do
      run_case gpu sorttiles.rise $k $n $nin -D n=$n
    done
  done
  for k in rsSmallU32 rsSmallI32 rsSmallF32; do run_case gpu radixsort.rise $k 4096 1 -D n=4096; done
  for k in rsSmallPairsU32 rsSmallPairsI32 rsSmallPairsF32 rsSmallPairsF32Desc; do
    run_case gpu radixsort_pairs.rise $k 4095 2 -D n=4095
  done
  run_case gpu radixsort_pairs.rise rsSmallF32Desc 4096 1 -D n=4096
  for f in "u32" "i32" "f32" "--desc f32" "--pairs=u32 f32" "--desc --pairs=i32 u32"; do
    for n in 2047 2048 2049 4095 4096 4097 8191 8192 8193; do
      for k in uniform special equal few; do
        # shellcheck disable=SC2086
        bg_check sort sort_check.c "$f $k" "$n" "$rre" "$rdir/sort_check" $f $n $k
      done
    done
    # shellcheck disable=SC2086
    bg_check sort sort_check.c "$f 300 back-to-back" "1..16384" "$rre" "$rdir/sort_check" $f many 300 16384
  done
  collect
  for tool in memcheck racecheck synccheck; do
    san $tool sorttiles.rise stF32 1 -D n=4097
    san $tool sorttiles.rise stPairsI32 2 -D n=1000
    san $tool sorttiles.rise stWarpI32 1 -D n=200
    bg_check $tool sort_check.c "f32 small special" 4096 '^== .*' sort_san $tool f32 4096 special
    bg_check $tool sort_check.c "i32 small few" 2000 '^== .*' sort_san $tool i32 2000 few
    bg_check $tool sort_check.c "u32+f32 pairs small uniform" 8000 '^== .*' sort_san $tool --pairs=f32 u32 8000 uniform
    bg_check $tool sort_check.c "u32+f32 pairs small desc few" 33 '^== .*' sort_san $tool --desc --pairs=f32 u32 33 few
  done
  collect
fi
# sort64 (issue 35 item 2, 8-byte keys): sortTiles of u64, i64 and f64 keys (their
# rsOrd*64 orders, eight passes; one descending), pairs of 4- and 8-byte keys and
# values, and a u32 order of u64 keys, against the interpreter at 1, 31, 1000, the
# tile and one more (4097) and three tiles (12289): keys 0..99 (--input random: ties,
# the input order among them shows in the values), then keys over the whole 64-bit
# range (every digit of every pass); the sanitizers on a u64 key kernel and a pairs one.
w64="random:0:9223372036854775807" wi64="random:-9223372036854775808:9223372036854775807"
for k in stU64 stI64 stF64 stI64Desc stPairsU32U64 stPairsU64U32 stPairsF64I64 stPairsI32F64 stU64Lo; do
  nin=1
  case $k in stPairs*) nin=2 ;; esac
  for n in 1 31 1000 4097 12289; do
    run_case gpu sorttiles.rise $k $n $nin -D n=$n
  done
done
for kin in "stU64 $w64" "stI64 $wi64" "stF64 $w64" "stI64Desc $wi64" "stU64Lo $w64" "stPairsU64U32 $w64 random" \
           "stPairsF64I64 $w64 $wi64" "stPairsU32U64 random $w64"; do
  read -ra kw <<<"$kin"
  k=${kw[0]} ins=()
  for i in "${kw[@]:1}"; do ins+=(--input "$i"); done
  for n in 1000 12289; do
    bg_check gpu sorttiles.rise "$k wide" $n 'max relative error: [^ ]*' \
      "$PATC" run examples/sorttiles.rise --kernel $k "${ins[@]}" --check-against-cpu -D n=$n
  done
done
collect
for tool in memcheck racecheck synccheck; do
  san $tool sorttiles.rise stI64Desc 1 -D n=4097
  san $tool sorttiles.rise stPairsF64I64 2 -D n=1000
done
rm -rf "$rdir"
fi # section r
if sec s; then
# ---------------------------------------------------------------- s. the sort's large sizes
# Section r's sorts at 2^24 + 3 and 2^28 keys, apart so that r and s each fit one
# 10-minute call of the GPU machine (r in full with them did not: 702 passes in 600 s,
# tests/gpu/results/2026-11-27-nvidia-h200-stop51-r-full-partial). Every key type and
# input kind at both sizes, the benchmark's pairs (ascending and descending), 8-byte keys,
# values, digit widths and bit ranges at 2^24 + 3, and sorts in portions: small ones at
# 2^24 + 3, the default ones (2^28 keys) at 2^28 + 1 (two portions). --quick: u32 and f32
# uniform at 2^24 + 3 and u32 at 2^28 + 1.
sdir=$(mktemp -d)
if build_sort_check "$sdir"; then
  # big F N K: sort_check F N K in the background, as many at a time as N allows
  big() { BG_MAX=$(jobs_for "$2") bg_check sort sort_check.c "$1 $3" "$2" "$rre" "$sdir/sort_check" $1 "$2" "$3"; }
  if [ $quick = 1 ]; then
    big u32 16777219 uniform
    big f32 16777219 uniform
    big u32 268435457 uniform
  else
    for f in u32 i32 f32 "--pairs=u32 f32" "--desc --pairs=u32 f32"; do
      for n in 16777219 268435456; do
        for k in uniform few sorted; do big "$f" $n $k; done
      done
    done
    for f in u64 i64 f64; do
      for k in uniform few sorted; do big $f 16777219 $k; done
    done
    big u64 268435456 uniform
    big f64 268435456 special
    for f in "--pairs=u64 f64" "--digit=11 u32" "--bits=0:40 --pairs=u64 i64" "--portion=4000037 f32"; do
      big "$f" 16777219 uniform
    done
    big u32 268435457 uniform
    big "--pairs=u32 f32" 268435457 few
  fi
  collect
fi
rm -rf "$sdir"
fi # section s

if sec w; then # issue 36: the Python package (python/) on PyTorch and CuPy
  if [ -n "${PATC_WHEEL:-}" ]; then
    pyt=$(mktemp -d)
    o=$(python3 -m pip install --no-deps --no-index --target "$pyt" "$PATC_WHEEL" 2>&1); rc=$?
    echo "$o" >>"$log"
    record python wheel install "-" $rc "$(basename "$PATC_WHEEL")"
    export PYTHONPATH=$pyt${PYTHONPATH:+:$PYTHONPATH}
  fi
  o=$(python3 -c 'import patc, torch; print(patc.__file__, "torch", torch.__version__)' 2>&1); rc=$?
  echo "$o" >>"$log"
  record python import patc "-" $rc "$(echo "$o" | tail -1)"
  if python3 -c 'import pytest' 2>/dev/null; then
    o=$(cd python/tests && python3 -m pytest -q -s -p no:cacheprovider test_gpu.py test_cpu.py 2>&1); rc=$?
  else
    o=$(python3 python/tests/test_gpu.py 2>&1); rc=$?
  fi
  echo "$o" >>"$log"
  record python pytest test_gpu.py "-" $rc "$(echo "$o" | grep -E 'call overhead|passed|failed' | tr '\n' ' ')"
  for ex in examples/python/*.py; do
    o=$(python3 "$ex" 2>&1); rc=$?
    echo "$o" >>"$log"
    record python "$(basename "$ex")" "-" "-" $rc "$(echo "$o" | tail -1)"
  done
fi # section w

echo "== $pass passed, $fail failed" | tee -a "$log"

# ---------------------------------------------------------------- 6. benchmark
if [ $bench = 1 ] && [ $scans_only = 1 ]; then
  BENCH_ONLY=scan bash bench/run.sh "$OUT/bench" 2>&1 | tail -40 | tee -a "$log"
elif [ $bench = 1 ]; then
  # patc tune, then CUB, the baselines and patc (through libpatrt) in one process
  bash bench/run.sh "$OUT/bench" 2>&1 | tail -60 | tee -a "$log"
fi
[ $fail = 0 ]
