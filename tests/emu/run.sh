#!/usr/bin/env bash
# run.sh PATC FAKECUDA_DIR [QUICKSORT]: generated kernels run on the CPU (cuda_emu.h,
# through tests/fakecuda's stand-in driver and libpatrt's real launch path) against the
# interpreter, `patc run --check-against-cpu` at ragged sizes; with QUICKSORT (the
# binary of examples/quicksort), its GPU mode too, each sort checked against qsort.
# ctest emulated_kernels_1 and _2 (EMU_PART below).
#
# This is not the GPU: it runs blocks one after another (the pipe kernels' three at a
# time) and the threads of a block as fibers that meet at barriers, warp collectives
# and mbarriers, so it checks what a kernel computes, its indexing, guards, vector
# loads, tile draws and look-back, shuffles and votes, the pipe kernels' mbarrier
# phases, bulk copies and ring of slots, and its argument and scratch handling, but no
# memory ordering, no real race between blocks and no timing (cuda_emu.h's header).
# tests/gpu/all.sh runs the same kinds of checks on a GPU.
#
# The kernels are compiled with AddressSanitizer where the compiler has it, and the
# stand-in driver allocates device memory of exactly the size asked for, so a kernel
# reading or writing past a buffer stops with ASan's report (a vector load one element
# too far, say), which the results alone would not show.
#
# Exit 0 when every check passes, 1 otherwise. EMU_ONLY=REGEX runs the cases whose line
# matches. EMU_PART=I/N runs every N-th unit (a case line or a block below), from the
# I-th: ctest runs the emulator as two such tests side by side (tests/CMakeLists.txt),
# since it alone took 637 of a fresh clone's 1123 s of CI.
set -u
PATC=$(cd "$(dirname "${1:?usage: run.sh PATC FAKECUDA_DIR [QUICKSORT]}")" && pwd)/$(basename "$1")
FAKE=$(cd "${2:?usage: run.sh PATC FAKECUDA_DIR [QUICKSORT]}" && pwd)
QS=${3:+$(cd "$(dirname "$3")" && pwd)/$(basename "$3")}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0 passes=0
part_i=1 part_n=1
if [ -n "${EMU_PART:-}" ]; then
    part_i=${EMU_PART%/*} part_n=${EMU_PART#*/}
fi
unit=0
# part_ok: whether the next unit is this part's (counted in the shell that calls it)
part_ok() {
    unit=$((unit + 1))
    [ $(((unit - 1) % part_n)) -eq $((part_i - 1)) ]
}
asan=$(${CXX:-c++} -print-file-name=libasan.so 2>/dev/null)
if [ -n "$asan" ] && [ "${asan#/}" != "$asan" ] && [ -e "$asan" ]; then
    export CXX="${CXX:-c++} -fsanitize=address -fno-omit-frame-pointer"
    # ASan's fake stacks (use after return) are per thread, not per fiber: off
    preload=(env "LD_PRELOAD=$asan" "ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0")
else
    echo "note: no AddressSanitizer runtime for ${CXX:-c++}: out-of-bounds accesses are not checked"
    preload=()
fi
# what every build of this run shares, built once with the same compiler and flags
# (build.sh --prebuild says what, and what it saves); a run goes on without it, slower
if bash tests/emu/build.sh --prebuild "$TMP/prebuilt"; then
    export EMU_PREBUILT=$TMP/prebuilt
else
    echo "note: build.sh --prebuild failed: each build reads cuda_emu.h"
fi

# check FILE KERNEL "INPUTS" OPTIONS...: the kernels built for these options (once per
# FILE and OPTIONS: all of the file's, or this one alone where another does not compile
# with them), then the run against the interpreter
check() {
    local file=$1 kernel=$2 inputs=$3
    shift 3
    local so
    so="$TMP/$(printf '%s ' "$file" "$@" | md5sum | cut -c1-16).so"
    if [ -e "$so.bad" ] || { [ ! -e "$so" ] && ! bash tests/emu/build.sh "$PATC" "$so" "examples/$file" "$@" 2>/dev/null &&
                                touch "$so.bad"; }; then
        so="$TMP/$(printf '%s ' "$file" "$kernel" "$@" | md5sum | cut -c1-16).so"
        if [ ! -e "$so" ] && ! bash tests/emu/build.sh "$PATC" "$so" "examples/$file" --kernel "$kernel" "$@" 2>"$TMP/build.err"; then
            echo "FAIL: build $file $kernel $*"
            sed 's/^/    /' "$TMP/build.err" | head -20
            fails=$((fails + 1))
            return
        fi
    fi
    # shellcheck disable=SC2086
    if FAKECUDA_EMULATE=$so LD_LIBRARY_PATH=$FAKE "${preload[@]}" "$PATC" run "examples/$file" --kernel "$kernel" $inputs "$@" \
        --check-against-cpu >"$TMP/out" 2>&1; then
        passes=$((passes + 1))
    else
        echo "FAIL: $file $kernel $inputs $*"
        { grep -E 'ERROR|SUMMARY|cuda_emu|error|FAIL' "$TMP/out" || tail -5 "$TMP/out"; } | head -6 | sed 's/^/    /' 
        fails=$((fails + 1))
    fi
}
r1="--input random" r2="--input random --input random" r3="--input value:1.5 --input random --input random"

cases() {
# filter and partition (issue 13): selectivity 1%, 50%, 99%, none and all selected
# (random input: floats uniform in [0, 1), integers 0..99), 16-byte tile loads
for n in 1 33 4097 100003; do
    for t in 0.99 0.5 0.01 1.0 -1.0; do
        echo "filter.rise filterGtF32 --input value:${t} --input random -D nt=128 -D ipt=16 -D n=$n"
        echo "partition.rise partitionGtF32 --input value:${t} --input random -D nt=128 -D ipt=16 -D n=$n"
        echo "partition.rise partitionStableGtF32 --input value:${t} --input random -D nt=128 -D ipt=16 -D g=264 -D n=$n"
    done
    for t in 98 49 99 -1; do
        echo "filter.rise filterGtI32 --input value:${t} --input random -D nt=128 -D ipt=16 -D n=$n"
        echo "partition.rise partitionGtI32 --input value:${t} --input random -D nt=128 -D ipt=16 -D n=$n"
        echo "partition.rise partitionStableGtI32 --input value:${t} --input random -D nt=128 -D ipt=16 -D g=5 -D n=$n"
    done
    echo "partition.rise partitionLtF32 --input value:0.5 --input random -D nt=64 -D ipt=7 -D n=$n"
done
# the benchmark's tile shapes (bench/select_tuning.conf) at 2^20+7, about 6 s each
echo "filter.rise filterGtF32 --input value:0.5 --input random -D nt=256 -D ipt=32 -D n=1048583"
echo "partition.rise partitionGtI32 --input value:49 --input random -D nt=512 -D ipt=32 -D n=1048583"
echo "filter.rise filterGtF32 --input value:0.5 --input random -D nt=256 -D ipt=32 -D n=100003"
echo "partition.rise partitionStableGtF32 --input value:0.5 --input random -D nt=512 -D ipt=32 -D g=528 -D n=100003"
# device scans (issue 12): the look-back, tile shapes, launch bounds, other types
for n in 1 32 33 1000 4097 100003; do
    for k in inclSumF32 exclSumF32 inclSumI32 exclSumI32; do
        echo "scan_device.rise $k $r1 -D nt=128 -D ipt=25 -D n=$n"
    done
done
echo "scan_device.rise exclSumI32 $r1 -D nt=512 -D ipt=25 --min-blocks 4 -D n=100003"
echo "scan_device.rise inclSumF32 $r1 -D nt=256 -D ipt=9 -D n=100003"
echo "scan_device.rise inclSumF32 $r1 -D nt=512 -D ipt=25 --min-blocks 4 -D n=1048583"
# evict-first loads and stores (--evict-first, a tuning line's evict_first)
echo "scan_device.rise exclSumI32 $r1 -D nt=256 -D ipt=25 --evict-first -D n=100003"
echo "filter.rise filterGtF32 --input value:0.5 --input random -D nt=256 -D ipt=32 --evict-first -D n=100003"
echo "partition.rise partitionGtI32 --input value:49 --input random -D nt=256 -D ipt=32 --evict-first -D n=4097"
for k in $(grep -o '^kernel [A-Za-z0-9_]*' tests/programs/scan_types.rise | cut -d' ' -f2); do
    echo "../tests/programs/scan_types.rise $k $r1 -D nt=128 -D ipt=25 -D n=4097"
done
echo "../tests/programs/lookback_affine.rise affinePrefix $r1 -D n=33"
for k in inclSumF32 exclSumI32; do echo "scan_rows.rise $k $r1 -D r=8 -D nt=128 -D ipt=25 -D n=100003"; done
for k in $(grep -o '^kernel [A-Za-z0-9_]*' examples/scan_blelloch.rise | cut -d' ' -f2); do
    case $k in tileExclSumI32) echo "scan_blelloch.rise $k $r1 -D m=3" ;; *) echo "scan_blelloch.rise $k $r1 -D n=4097" ;; esac
done
for k in $(grep -o '^kernel [A-Za-z0-9_]*' examples/scan_warp.rise | cut -d' ' -f2); do echo "scan_warp.rise $k $r1 -D n=3"; done
# reductions, warp shuffles, the rest of the examples
for n in 1 1000 100003; do
    echo "reduce_device_naive.rise reduceNaive $r1 -D n=$n"
    echo "reduce_device_tree.rise reduceTree $r1 -D n=$n"
    echo "count_if.rise countIf $r1 -D g=132 -D n=$n"
done
for k in $(grep -o '^kernel [A-Za-z0-9_]*' examples/reduce_fast.rise | cut -d' ' -f2); do
    case $k in
    *OneBlock) echo "reduce_fast.rise $k $r1 -D elemsBlock=4096 -D elemsWarp=512 -D n=100003" ;;
    *) echo "reduce_fast.rise $k $r1 -D g=132 -D elemsBlock=4096 -D elemsWarp=512 -D n=1000003" ;;
    esac
done
for k in $(grep -o '^kernel [A-Za-z0-9_]*' examples/reduce_block_shfl.rise | cut -d' ' -f2); do echo "reduce_block_shfl.rise $k $r1 -D n=4"; done
for k in reduceWarpDownK reduceWarpXorK reduceWarpUpK; do echo "reduce_warp.rise $k $r1 -D n=3"; done
echo "shfl_permute.rise permute $r1 -D n=3"
echo "scale.rise scale $r1 -D n=1000"
echo "stencil3.rise stencil3 $r1 -D n=1000"
echo "dot.rise dotPartial $r2 -D n=1000"
echo "saxpy.rise saxpy $r3 -D n=1000"
echo "softmax_rows.rise softmaxRows $r1 -D r=3 -D m=1024"
echo "unrolled_uf.rise unrolledUF $r1 -D uf=8 -D n=1000"
echo "transpose_tiled.rise transposeTiled $r1 -D mt=2 -D nt=3"
echo "matmul_tiled.rise matmulTiled $r2 -D m=1 -D n=2 -D k=40"
echo "matmul_tiled.rise matmulShared $r2 -D m=1 -D n=2 -D kt=3"
echo "quicksort/sort_small.rise sortSmallF32 $r1 -D n=1000"
echo "quicksort/sort_small.rise sortSmall4096F32 $r1 -D n=5000"
echo "../tests/programs/minmax_pair.rise minmaxPair $r1 -D m=5"
for mk in "1 1" "7 3"; do # lastBlock on each scalar type
    set -- $mk
    for k in sumF64 sumI64 sumU64 sumF32 minI32 sumU32; do
        echo "../tests/programs/lastblock_types.rise $k $r1 -D m=$1 -D k=$2"
    done
done
for ng in "1 1" "1000 1" "4097 2"; do
    set -- $ng
    for k in reduceSumF32 reduceSumI32 reduceMaxF32; do
        echo "reduce_fast.rise $k $r1 -D g=$2 -D elemsBlock=1024 -D elemsWarp=128 -D n=$1"
    done
done
# max over elements all -inf (issue 33): the kernels' -inff padding printed as its bits
echo "reduce_fast.rise reduceMaxF32 --input value:-inf -D g=3 -D elemsBlock=1024 -D elemsWarp=128 -D n=4097"
echo "reduce_block_shfl.rise reduceShflMax --input value:-inf -D n=4"
for k in downF64 xorI32 upU32 downI64 xorU64 permuteF64 permuteI64 ballotRank shiftPadI32; do
    echo "../tests/programs/shfl_types.rise $k $r1 -D n=7"
done
for k in scanUp scanTake scanTakeWritten scanUpF32; do echo "../tests/programs/scan_warp_hs.rise $k $r1 -D n=7"; done
echo "softmax_rows.rise softmaxRows $r1 -D r=33 -D m=32"
echo "matmul_tiled.rise matmulTiled $r2 -D m=3 -D n=5 -D k=129"
echo "matmul_tiled.rise matmulShared $r2 -D m=3 -D n=5 -D kt=5"
for n in 33 1000; do
    for k in mathF32 mathF64 castsF32 castsI32 selectF32 selectArrays opsI32 opsF32 bitsU32 bitsI32 bitsU64; do
        echo "../tests/programs/scalar_forms.rise $k $r1 -D n=$n"
    done
done
for k in scanInclF32 scanInclI32 scanExclF32 scanExclI32 scanMaxPrivate colSums4 shiftSums4; do
    echo "../tests/programs/scanseq.rise $k $r1 -D n=33"
done
echo "transpose_tiled.rise transposeTiled $r1 -D mt=17 -D nt=5"
echo "../tests/programs/big_shared.rise transposeTile $r1 -D n=3 -D r=250 -D c=200"
echo "../tests/programs/big_shared.rise twoLive $r1 -D n=3 -D m=29056"
for n in 1 4097; do
    for k in incl64 excl64 incl1024 excl2048 fill2048; do echo "../tests/programs/blelloch_levels.rise $k $r1 -D n=$n"; done
done
# maps past CUDA's launch limits (issue 33): 65535 rows along y fill the grid, 65536 and
# 70000 loop over a grid capped at 65535; planes along z; 128 threads along z on 64.
# scaleRows's blocks of 256 threads take 28 s at 70000 rows: that size alone
for r in 65535 65536 70000; do
    for k in rowSums blocksY; do echo "../tests/programs/grid_limits.rise $k $r1 -D r=$r -D c=3"; done
    echo "../tests/programs/grid_limits.rise planesZ $r1 -D p=$r -D c=2"
done
echo "../tests/programs/grid_limits.rise scaleRows $r1 -D r=70000 -D c=3"
echo "../tests/programs/grid_limits.rise deepZ $r1 -D n=3"
# issue 33 item 6: reduceGrid's vector loads over an array stored by an earlier launch
for n in 1 33 4097 100003; do echo "../tests/programs/stored_vec.rise sumSquares $r1 -D n=$n -D g=3"; done
# issue 33 item 3, views of nested arrays: the Jacobi step with zero borders (padCst of
# rows and with a row of zeros) and the tiled transpose of any m x n (take of both
# dimensions of its result, ragged edge tiles), at ragged sizes and exact tiles
for mn in "1 1" "1 33" "31 1" "31 33" "33 31" "64 32" "100 1000" "1000 7"; do
    set -- $mn
    echo "jacobi.rise jacobi $r1 -D m=$1 -D n=$2"
    echo "transpose_tiled.rise transposeTiledAny $r1 -D m=$1 -D n=$2"
    for k in takeInner dropInner padInnerW padBothW padInnerR; do
        echo "../tests/programs/views_nested.rise $k $r1 -D m=$1 -D n=$2"
    done
done
for m in 1 33; do echo "../tests/programs/views_nested.rise tileViews $r1 -D m=$m"; done
# issue 33 item 1: pairs as data (pair accumulators, shuffles of pairs, arrays of pairs
# stored one array per side, unzip of a computed result, reduce.rise with a pair operator)
for k in argmaxRows minMaxSum runningMax runningMaxExcl privatePairs globalPairs rowPairs; do
    echo "../tests/programs/pairs_data.rise $k $r1 -D n=33"
done
for k in warpDown warpXor warpUp sharedPairs nestedShared; do echo "../tests/programs/pairs_data.rise $k $r1 -D n=3"; done
echo "../tests/programs/pairs_data.rise warpReverse $r1 -D n=5"
for ng in "1 1" "1000 1" "4097 2" "100003 3"; do
    set -- $ng
    echo "../tests/programs/pairs_data.rise gridArgmax $r2 -D n=$1 -D g=$2"
    echo "../tests/programs/pairs_data.rise oneBlockArgmin $r2 -D n=$1"
    echo "../tests/programs/pairs_data.rise gridArgmaxVec $r2 -D n=$1 -D g=$2"
    echo "../tests/programs/pairs_data.rise oneBlockArgminVec $r2 -D n=$1"
done
echo "../tests/programs/pairs_data.rise blockShflArgmax $r2 -D m=2"
echo "../tests/programs/pairs_data.rise blockNaiveArgmax $r2 -D m=3"
echo "../tests/programs/pairs_data.rise blockTreeArgmin $r2 -D m=2"
# issue 33 item 1: examples/argmax.rise at ragged sizes, on random data, data with many
# ties (values 0..3), all -inf, NaNs among numbers and all NaN (inputs written here)
for n in 1 31 33 1000 4097 100003; do
    python3 - "$n" "$TMP" <<'PY'
import random, struct, sys
n, d = int(sys.argv[1]), sys.argv[2]
r = random.Random(n + 33)
nan, inf = float("nan"), float("inf")
data = {"rand": [r.uniform(-1, 1) for _ in range(n)], "ties": [float(r.randrange(4)) for _ in range(n)],
        "ninf": [-inf] * n, "nans": [nan if r.random() < 0.3 else r.uniform(-1, 1) for _ in range(n)],
        "allnan": [nan] * n}
for k, v in data.items():
    open("%s/am_%s%d.bin" % (d, k, n), "wb").write(struct.pack("<%df" % n, *v))
PY
    for d in rand ties ninf nans allnan; do
        for k in argmaxF32 argminF32; do
            echo "argmax.rise $k --input $TMP/am_$d$n.bin -D elemsBlock=4096 -D elemsWarp=512 -D g=3 -D n=$n"
            echo "argmax.rise ${k}OneBlock --input $TMP/am_$d$n.bin -D elemsBlock=4096 -D elemsWarp=512 -D n=$n"
        done
    done
done
echo "argmax.rise argmaxF32 --input $TMP/am_ties100003.bin -D elemsBlock=1024 -D elemsWarp=128 -D g=132 -D n=100003"
for d in ties nans; do
    echo "argmax.rise argmaxF32I64 --input $TMP/am_${d}4097.bin -D elemsBlock=1024 -D elemsWarp=128 -D g=3 -D n=4097"
    echo "argmax.rise argminF32I64 --input $TMP/am_${d}100003.bin -D elemsBlock=4096 -D elemsWarp=512 -D g=5 -D n=100003"
done
# gather and scatter through a random permutation (its inputs written here)
for n in 1 33 4097; do
    python3 - "$n" "$TMP" <<'PY'
import random, struct, sys
n, d = int(sys.argv[1]), sys.argv[2]
r = random.Random(n)
p = list(range(n)); r.shuffle(p)
open("%s/perm%d.bin" % (d, n), "wb").write(struct.pack("<%di" % n, *p))
open("%s/vals%d.bin" % (d, n), "wb").write(struct.pack("<%df" % n, *[r.uniform(-1, 1) for _ in range(n)]))
PY
    for k in permute unpermute; do echo "gather_scatter.rise $k --input $TMP/perm$n.bin --input $TMP/vals$n.bin -D n=$n"; done
done
# issue 33 item 2: histograms with shared atomics (accumulate) merged by lastBlock; u32
# keys uniform in 0..299 (those >= 256 dropped) and all in one bin (value:7); f32 over
# [0.25, 0.75) of uniform [0, 1) samples (half of them out of range), and all in one bin
for n in 1 31 33 1000 4097 1048583; do
    echo "histogram.rise histU32 --input random:0:299 -D g=3 -D n=$n"
    echo "histogram.rise histU32 --input value:7 -D g=3 -D n=$n"
    echo "histogram.rise histF32 --input value:0.25 --input value:0.75 --input random -D g=3 -D n=$n"
    echo "histogram.rise histF32 --input value:0.0 --input value:1.0 --input value:0.5 -D g=3 -D n=$n"
done
for k in addI32 minI32 orU32 xorI64 addI64 maxU64 andU64 addF32 addF64 globalMaxU32 globalAddI32 lastSumsI32 lastScanU32; do # each CUDA atomic accumulate lowers to, and lastBlock over a global one
    echo "../tests/programs/accumulate_types.rise $k $r1 -D g=3"
done
# --bins-in-result: the bins are the output, zeroed by the runtime before the launch
# (lastScanU32, the histograms, the radix sort's); where init is not 0 (globalAddI32,
# lastSumsI32) they stay scratch
for k in globalAddI32 lastSumsI32 lastScanU32; do echo "../tests/programs/accumulate_types.rise $k $r1 -D g=3 --bins-in-result"; done
for n in 1 4097 1048583; do
    echo "histogram.rise histU32 --input random:0:299 -D g=3 -D n=$n --bins-in-result"
    echo "histogram.rise histF32 --input value:0.25 --input value:0.75 --input random -D g=3 -D n=$n --bins-in-result"
    echo "radixsort.rise rsHistScanU32 $r1 -D g=3 -D n=$n --bins-in-result"
    echo "radixsort.rise rsHistScanVF32 $r1 -D g=3 -D n=$n --bins-in-result"
done
# issue 33 item 7a: lastBlock's body with no barrier in front of it; one where its shared
# buffer reuses bytes other threads read just before (barrier.c puts one in the body)
for m in 1 3 33; do echo "../tests/programs/lastblock_reuse.rise sumTwiceReuse $r1 -D m=$m"; done
# issue 34 item 3: the pipe kernels (scanPipe, filterPipe, partitionPipe,
# partitionStablePipe: mbarriers, bulk copies, the ring of slots, the persistent grid of
# fakecuda's 132 SMs, three blocks at once sharing the tiles, so that the look-back reads
# and waits for other blocks' words) at ragged sizes: tests/programs/pipe_small.rise's
# small tiles (2 warps x 4 items, 2 slots: 256 elements, many per block, the ring
# wrapping), examples/scan_pipe.rise at such a shape, and the examples' large shapes at a
# few sizes. f32 sums of integer values (random:0:3) at 100003, where the interpreter's
# own rounding would pass 1e-5
for n in 1 31 33 1000 4097 100003; do
    for k in inclSumI32 inclMaxI32 exclMinU32 affineExclU32; do echo "../tests/programs/pipe_small.rise $k $r1 -D n=$n -D g=3"; done
    if [ $n = 100003 ]; then f=random:0:3; else f=random; fi
    echo "../tests/programs/pipe_small.rise exclSumF32 --input $f -D n=$n -D g=3"
    echo "../tests/programs/pipe_small.rise filterGtF32 --input value:0.5 --input random -D n=$n -D g=3"
    echo "../tests/programs/pipe_small.rise partitionGtI32 --input value:49 --input random -D n=$n -D g=3"
    echo "../tests/programs/pipe_small.rise partitionStableGtF32 --input value:0.5 --input random -D n=$n -D g=3"
done
for t in 0.01 1.0 -1.0; do # few, none and all selected
    echo "../tests/programs/pipe_small.rise filterGtF32 --input value:$t --input random -D n=4097 -D g=3"
    echo "../tests/programs/pipe_small.rise partitionStableGtF32 --input value:$t --input random -D n=4097 -D g=3"
done
for t in 99 -1; do echo "../tests/programs/pipe_small.rise partitionGtI32 --input value:$t --input random -D n=4097 -D g=3"; done
for k in inclSumI32 exclSumI32 inclSumF32 exclSumF32 inclMaxI32 exclMinU32 affineU32 affineExclU32; do
    echo "scan_pipe.rise $k $r1 -D w=2 -D ipt=4 -D s=2 -D n=1000"
done
echo "scan_pipe.rise inclSumF32 $r1 -D w=16 -D ipt=12 -D s=9 -D n=6145"
echo "scan_pipe.rise exclSumI32 $r1 -D w=16 -D ipt=12 -D s=9 -D n=100003"
for n in 33 100003; do
    echo "filter_pipe.rise filterGtI32 --input value:49 --input random -D n=$n"
    echo "partition_pipe.rise partitionStableGtI32 --input value:49 --input random -D n=$n -D g=7"
    echo "partition_pipe.rise partitionStableGtF32Small --input value:0.5 --input random -D n=$n -D g=7"
done
echo "filter_pipe.rise filterGtF32Small --input value:0.5 --input random -D n=100003"
echo "partition_pipe.rise partitionGtI32 --input value:49 --input random -D n=100003"
echo "partition_pipe.rise partitionGtF32Small --input value:0.5 --input random -D n=100003"
# issue 35 item 1: multisplit (three launches: counts on g blocks, offsets, the one-pass
# multisplit whose blocks run three at a time here, build.sh, so that tiles wait for one
# another's look-back words), every element type, k = 1, 2, 5, 7, 16, 256, 1000, 4096
for ng in "1 1" "31 2" "33 1" "1000 3" "4097 5" "100003 7"; do
    set -- $ng
    for k in msU32 msI32 msF32 msU64 msI64 msF64 msOne; do echo "multisplit.rise $k $r1 -D n=$1 -D g=$2"; done
    for k in msPairsByValue msPairsByKey; do echo "multisplit.rise $k $r2 -D n=$1 -D g=$2"; done
done
for n in 4097 100003; do echo "multisplit.rise msWide --input random:0:65535 -D n=$n -D g=3"; done
# the sort's 512 x 24 tile, at three blocks an SM too (its buckets computed again when ranked)
for n in 1000 100003; do
    echo "multisplit.rise msTile --input random -D n=$n -D g=3"
    echo "multisplit.rise msTile --input random --min-blocks 3 -D n=$n -D g=3"
done
}

echo "0 0" >"$TMP/counts"
cases | while read -r file kernel rest; do
    [ -n "${EMU_ONLY:-}" ] && ! [[ "$file $kernel $rest" =~ $EMU_ONLY ]] && continue
    part_ok || continue
    # the inputs are the --input words at the front of rest
    inputs=
    set -- $rest
    while [ $# -gt 0 ] && [ "$1" = --input ]; do inputs="$inputs $1 $2"; shift 2; done
    check "$file" "$kernel" "$inputs" "$@"
    echo "$fails $passes" >"$TMP/counts"
done
read -r fails passes <"$TMP/counts"

# the quicksort's GPU mode: its three programs' kernels, as examples/quicksort/quicksort.c
# compiles them (partition.rise with nt=128, ipt=16; n is a run-time nat there)
if [ -n "$QS" ] && { [ -z "${EMU_ONLY:-}" ] || [[ quicksort =~ $EMU_ONLY ]]; } && part_ok; then
    q=examples/quicksort
    if bash tests/emu/build.sh "$PATC" "$TMP/qpart.so" examples/partition.rise --kernel partitionLtF32 -D nt=128 -D ipt=16 &&
        bash tests/emu/build.sh "$PATC" "$TMP/qsmall.so" $q/sort_small.rise &&
        bash tests/emu/build.sh "$PATC" "$TMP/qpick.so" $q/pick.rise; then
        for n in 1 1000 5000; do
            for k in random dup equal sorted reversed inf; do
                if FAKECUDA_EMULATE="$TMP/qpart.so:$TMP/qsmall.so:$TMP/qpick.so" LD_LIBRARY_PATH=$FAKE "${preload[@]}" \
                    "$QS" $n $k 1 >"$TMP/out" 2>&1; then
                    passes=$((passes + 1))
                else
                    echo "FAIL: quicksort $n $k"
                    tail -5 "$TMP/out" | sed 's/^/    /'
                    fails=$((fails + 1))
                fi
            done
        done
    else
        echo "FAIL: building the quicksort's kernels"
        fails=$((fails + 1))
    fi
fi
# tests/emu/relaunch.c (several launches of one kernel on the same buffers, each against
# the interpreter), built once against the libpatrt beside PATC; relaunch_check NAME RISE
# "BUILD ARGS" "RUN ARGS" builds RISE's kernels with tests/emu/build.sh and runs it on
# them, counting a pass or a fail
relaunch_built=
relaunch_check() {
    local name=$1 rise=$2 bargs=$3 rargs=$4 rtlib
    rtlib=$(cd "$(dirname "$PATC")/../runtime" && pwd)
    if [ -z "$relaunch_built" ]; then
        if ${CC:-cc} -std=c11 -Iruntime -o "$TMP/relaunch" tests/emu/relaunch.c -L"$rtlib" -lpatrt 2>"$TMP/build.err"; then
            relaunch_built=ok
        else
            relaunch_built=failed
            echo "FAIL: building tests/emu/relaunch.c"
            sed 's/^/    /' "$TMP/build.err" | head -10
        fi
    fi
    if [ "$relaunch_built" != ok ]; then
        fails=$((fails + 1))
        return
    fi
    if bash tests/emu/build.sh "$PATC" "$TMP/rl.so" $rise $bargs 2>"$TMP/build.err" &&
        FAKECUDA_EMULATE="$TMP/rl.so" LD_LIBRARY_PATH="$FAKE:$rtlib" "${preload[@]}" \
            "$TMP/relaunch" $rise $rargs >"$TMP/out" 2>&1; then
        passes=$((passes + 1))
    else
        echo "FAIL: relaunch $name"
        cat "$TMP/build.err" "$TMP/out" | grep -v 'swapcontext' | tail -5 | sed 's/^/    /'
        fails=$((fails + 1))
    fi
}
# issue 33 item 2: the histogram's global bins are left zero for the next launch (three
# launches on the same buffers)
if { [ -z "${EMU_ONLY:-}" ] || [[ "histogram relaunch" =~ $EMU_ONLY ]]; } && part_ok; then
    for ng in "1 1" "4097 3" "100003 7"; do
        set -- $ng
        relaunch_check "histogram.rise histU32 -D n=$1 -D g=$2" examples/histogram.rise "-D n=$1 -D g=$2" "histU32 $1 $2"
    done
    # with the bins in the output: libpatrt zeroes it before each launch
    relaunch_check "histogram.rise histU32 -D n=4097 -D g=3 --bins-in-result" examples/histogram.rise \
        "-D n=4097 -D g=3 --bins-in-result" "histU32 4097 3 --bins-in-result"
fi
# issue 34 item 3: the emulated pipe kernels are checked, not merely run. A scanPipe
# kernel with one block at a time (EMU_RESIDENT=1: block 0's producer draws every tile,
# the other 131 blocks draw past the end and leave), then the same kernel with faults
# put in by hand (EMU_CUDA): each must fail the check (a wrong result) or stop the run
# (cuda_emu: a deadlock, a misused mbarrier, an invalid access) where the unedited
# kernel passes. The edits go through the helpers' names only (patc_mb_*), whatever
# the code around them.
if { [ -z "${EMU_ONLY:-}" ] || [[ "scan_pipe faults" =~ $EMU_ONLY ]]; } && part_ok; then
    pf=(examples/scan_pipe.rise --kernel inclSumI32 -D w=2 -D ipt=4 -D s=2 -D n=4097)
    run_pipe() { # in a subshell whose stderr is dropped: no "Aborted" from bash for a stopped run
        (FAKECUDA_EMULATE=$1 LD_LIBRARY_PATH=$FAKE "${preload[@]}" "$PATC" run "${pf[@]}" --input random \
            --check-against-cpu >"$TMP/out" 2>&1; exit $?) 2>/dev/null
    }
    "$PATC" --emit-cuda "${pf[@]}" >"$TMP/pipe.cu"
    if bash tests/emu/build.sh "$PATC" "$TMP/pipe.so" "${pf[@]}" 2>"$TMP/build.err" && EMU_RESIDENT=1 run_pipe "$TMP/pipe.so"; then
        passes=$((passes + 1))
    else
        echo "FAIL: ${pf[*]} one block at a time"
        cat "$TMP/build.err" "$TMP/out" | grep -v swapcontext | tail -5 | sed 's/^/    /'
        fails=$((fails + 1))
    fi
    # fault NAME EXPECT COMMAND...: the kernel edited by COMMAND (stdin to stdout) must
    # fail with output matching EXPECT (a grep -E pattern); the edit must change a line
    # of a kernel (the prelude's helpers are dropped by build.sh)
    fault() {
        local name=$1 expect=$2
        shift 2
        {
            echo 'static __device__ __forceinline__ bool patc_mb_test_flip(unsigned long long *b, unsigned int p) { return patc_mb_test(b, p ^ 1u); }'
            echo 'static __device__ __forceinline__ void patc_mb_wait_flip(unsigned long long *b, unsigned int p) { patc_mb_wait(b, p ^ 1u); }'
            echo 'static __device__ __forceinline__ void patc_mb_nowait(unsigned long long *, unsigned int) {}'
            echo 'static __device__ __forceinline__ void patc_mb_noarrive(unsigned long long *) {}'
            "$@" <"$TMP/pipe.cu"
        } >"$TMP/fault.cu"
        if [ "$(grep -v '^static __device__' "$TMP/fault.cu" | md5sum)" = "$(grep -v '^static __device__' "$TMP/pipe.cu" | md5sum)" ]; then
            echo "FAIL: fault $name: the edit changed nothing"
            fails=$((fails + 1))
        elif ! EMU_CUDA="$TMP/fault.cu" bash tests/emu/build.sh "$PATC" "$TMP/fault.so" "${pf[@]}" 2>"$TMP/build.err"; then
            echo "FAIL: fault $name: the edited kernel does not build"
            sed 's/^/    /' "$TMP/build.err" | head -5
            fails=$((fails + 1))
        elif run_pipe "$TMP/fault.so"; then
            echo "FAIL: fault $name: not caught (the check passed)"
            fails=$((fails + 1))
        elif ! grep -Eq "$expect" "$TMP/out"; then
            echo "FAIL: fault $name: caught, but not as expected ($expect)"
            grep -v swapcontext "$TMP/out" | tail -3 | sed 's/^/    /'
            fails=$((fails + 1))
        else
            echo "fault $name: caught: $(grep -Em1 "$expect" "$TMP/out")"
            passes=$((passes + 1))
        fi
    }
    # the N-th call of helper OLD in the kernels' text (not the prelude) made a call of NEW
    nth() { awk -v old="$1(" -v new="$2(" -v n="$3" '!/^static __device__/ && (i = index($0, old)) && ++seen == n {
                $0 = substr($0, 1, i - 1) new substr($0, i + length(old)) } { print }'; }
    fault "every test_wait's parity flipped" 'FAIL|cuda_emu' sed -e 's/patc_mb_test(/patc_mb_test_flip(/g'
    fault "every try_wait's parity flipped" 'FAIL|cuda_emu' sed -e 's/patc_mb_wait(/patc_mb_wait_flip(/g'
    # each wait and each arrival of the text in turn
    calls() { grep -v '^static __device__' "$TMP/pipe.cu" | grep -o "$1(" | wc -l; }
    nw=$(calls patc_mb_wait) na=$(calls patc_mb_arrive)
    for i in $(seq "$nw"); do fault "mbarrier wait $i of $nw left out" 'FAIL|cuda_emu' nth patc_mb_wait patc_mb_nowait "$i"; done
    for i in $(seq "$na"); do fault "arrival $i of $na left out" 'cuda_emu: deadlock' nth patc_mb_arrive patc_mb_noarrive "$i"; done
    if [ "$nw" = 0 ] || [ "$na" = 0 ]; then
        echo "FAIL: faults: no patc_mb_wait or patc_mb_arrive in the kernel's text"
        fails=$((fails + 1))
    fi
    fault "the bulk copy's bytes not expected" 'FAIL|cuda_emu' sed -e 's/patc_mb_expect(\([^,]*\), [^)]*)/patc_mb_arrive(\1)/g'
fi
# issue 34 item 3: the pipe kernels leave their tile counter at the next epoch, and a
# later launch on the same scratch takes the earlier launch's tile words for unset:
# three scanPipe launches on the same buffers
if { [ -z "${EMU_ONLY:-}" ] || [[ "scan_pipe relaunch" =~ $EMU_ONLY ]]; } && part_ok; then
    for kn in "exclMinU32 4097" "inclSumI32 100003"; do
        set -- $kn
        relaunch_check "scan_pipe.rise $1 -D n=$2 -D w=2 -D ipt=4 -D s=2" examples/scan_pipe.rise \
            "--kernel $1 -D n=$2 -D w=2 -D ipt=4 -D s=2" "$1 $2 0 w=2 ipt=4 s=2"
    done
fi
# issue 34 item 2 (scanfix): partitionStablePipe given a wrong count (the interpreter
# refuses one, so the kernel is only run): too small, its others' places went below the
# output (m - the later tiles' counts wrapped, the offset clamped to n, the place m + the
# elements before - n < 0), too large past its end. Under AddressSanitizer (the stand-in
# driver's buffers exactly as large as asked) each run must stop on nothing.
if { [ -z "${EMU_ONLY:-}" ] || [[ "partition_given wrong count" =~ $EMU_ONLY ]]; } && part_ok; then
    gk=(tests/programs/partition_given.rise --kernel givenPipeF32 -D n=100003)
    if bash tests/emu/build.sh "$PATC" "$TMP/given.so" "${gk[@]}" 2>"$TMP/build.err"; then
        for m in 0 1000 50000 100003 4000000000; do
            if FAKECUDA_EMULATE="$TMP/given.so" LD_LIBRARY_PATH=$FAKE "${preload[@]}" "$PATC" run "${gk[@]}" \
                --input value:0.5 --input value:$m --input random --output "$TMP/o0" --output "$TMP/o1" >"$TMP/out" 2>&1; then
                passes=$((passes + 1))
            else
                echo "FAIL: ${gk[*]} given m=$m: a write outside the output?"
                grep -E 'ERROR|SUMMARY|WRITE|cuda_emu' "$TMP/out" | head -3 | sed 's/^/    /'
                fails=$((fails + 1))
            fi
        done
    else
        echo "FAIL: building ${gk[*]}"
        sed 's/^/    /' "$TMP/build.err" | head -5
        fails=$((fails + 1))
    fi
fi
# issue 35 item 1: multisplit. Three launches on the same buffers (the tile counter and
# the look-back words move to the next epoch), and faults put in by hand: a tile that
# does not wait for the earlier tiles' words, ranks in a round reversed (not stable),
# a prefix that stops at an aggregate, a tile scan of the bucket starts without its
# first shuffle; each must fail the check where the unedited kernel passes.
if { [ -z "${EMU_ONLY:-}" ] || [[ "multisplit relaunch faults" =~ $EMU_ONLY ]]; } && part_ok; then
    for n in 4097 100003; do
        relaunch_check "multisplit.rise msU32 -D n=$n -D g=3" examples/multisplit.rise "--kernel msU32 -D n=$n -D g=3" "msU32 $n 3"
    done
    mf=(examples/multisplit.rise --kernel msI32 -D n=100003 -D g=7)
    "$PATC" --emit-cuda "${mf[@]}" >"$TMP/ms.cu"
    ms_fault() { # NAME SED-EXPRESSION EMU_SLOW
        sed -E -e "$2" "$TMP/ms.cu" >"$TMP/msf.cu"
        if cmp -s "$TMP/ms.cu" "$TMP/msf.cu"; then
            echo "FAIL: multisplit fault $1: the edit changed nothing"
            fails=$((fails + 1))
        elif ! EMU_CUDA="$TMP/msf.cu" bash tests/emu/build.sh "$PATC" "$TMP/msf.so" "${mf[@]}" 2>"$TMP/build.err"; then
            echo "FAIL: multisplit fault $1: the edited kernel does not build"
            fails=$((fails + 1))
        elif (FAKECUDA_EMULATE="$TMP/msf.so" EMU_SLOW=$3 LD_LIBRARY_PATH=$FAKE "${preload[@]}" "$PATC" run "${mf[@]}" --input random \
                --check-against-cpu >"$TMP/out" 2>&1; exit $?) 2>/dev/null; then
            echo "FAIL: multisplit fault $1: not caught (the check passed)"
            fails=$((fails + 1))
        else
            echo "multisplit fault $1: caught"
            passes=$((passes + 1))
        fi
    }
    # the unedited kernel with the blocks of even index slow (EMU_SLOW=100): tiles wait
    if EMU_CUDA="$TMP/ms.cu" bash tests/emu/build.sh "$PATC" "$TMP/mss.so" "${mf[@]}" 2>"$TMP/build.err" &&
        FAKECUDA_EMULATE="$TMP/mss.so" EMU_SLOW=100 LD_LIBRARY_PATH=$FAKE "${preload[@]}" "$PATC" run "${mf[@]}" \
            --input random --check-against-cpu >"$TMP/out" 2>&1; then
        passes=$((passes + 1))
    else
        echo "FAIL: multisplit with slow blocks (EMU_SLOW=100)"
        sed 's/^/    /' "$TMP/out" | head -5
        fails=$((fails + 1))
    fi
    # a tile publishes its counts before it ranks, so that the tiles before it have
    # published when it looks back unless some are slower (EMU_SLOW=100: the blocks of
    # even index run one pass in 100, a ranking being hundreds of passes of warp votes);
    # the unedited kernel passes so too (above)
    ms_fault "no wait for the earlier tiles' words" 's/if \(\(msfull([0-9]+) \|\| \(\(msw([0-9]+) >> 29u\) == \(2u \| mspar([0-9]+)\)\)\)\)/if (true)/' 100
    ms_fault "ranks in a round reversed" 's/\(msh([0-9]+) \+ msrk([0-9]+)\);/(msh\1 + 31u - msrk\2);/' 0
    ms_fault "the look-back stops at an aggregate" 's/if \(msfull([0-9]+)\) \{/if (true) {/' 0
    ms_fault "the tile's bucket starts not carried across lanes" 's/__shfl_up_sync\(0xffffffffu, (msinc[0-9]+), 1\)/0u/' 0
fi
# issue 35 item 2: the radix sort's kernels (examples/radixsort.rise). The histogram of
# all four digits on 1 to 3 blocks (several trips at the larger n) and the scan against
# the interpreter on random words, and the two in one launch (rsHistScan, rsHistScanV: in 16-byte
# vectors); each pass (digit d = 0..3) on one set of keys with
# digit d's offsets, which the interpreter computes from the same keys (a pass's
# offsets depend only on the keys' digit counts, so the unsorted keys serve every d).
if { [ -z "${EMU_ONLY:-}" ] || [[ "radixsort.rise" =~ $EMU_ONLY ]]; } && part_ok; then
    for t in U32 I32 F32; do
        for n in 1 31 1000 4097 100003; do
            python3 -c "import os,sys; sys.stdout.buffer.write(os.urandom(4*$n))" >"$TMP/rs_keys.bin"
            [ $t = F32 ] && python3 - "$TMP/rs_keys.bin" <<'PY'
import struct, sys
p = sys.argv[1]
w = list(struct.unpack("<%dI" % (len(open(p, "rb").read()) // 4), open(p, "rb").read()))
# f32 keys: a few of the special words in place (+-0, +-inf, NaNs of both signs)
for i, v in enumerate([0x80000000, 0, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000]):
    if i < len(w): w[(i * 7919) % len(w)] = v
open(p, "wb").write(struct.pack("<%dI" % len(w), *w))
PY
            g=$(( n > 4097 ? 3 : n > 31 ? 2 : 1 ))
            check radixsort.rise rsHist$t "--input $TMP/rs_keys.bin" -D n=$n -D g=$g
            [ $t = I32 ] || check radixsort.rise rsHistScan$t "--input $TMP/rs_keys.bin" -D n=$n -D g=$g
            # the same in 16-byte vectors (libpatrt's sortHistScanV)
            [ $t = I32 ] || check radixsort.rise rsHistScanV$t "--input $TMP/rs_keys.bin" -D n=$n -D g=$g
            if "$PATC" run examples/radixsort.rise --kernel rsHist$t --cpu -D n=$n -D g=$g --input "$TMP/rs_keys.bin" \
                    --output "$TMP/rs_hist.bin" >/dev/null 2>&1 &&
                "$PATC" run examples/radixsort.rise --kernel rsScanAll --cpu --input "$TMP/rs_hist.bin" \
                    --output "$TMP/rs_offs.bin" >/dev/null 2>&1; then
                [ $t = U32 ] && [ $n = 4097 ] && check radixsort.rise rsScanAll "--input $TMP/rs_hist.bin"
                for d in 0 1 2 3; do
                    dd if="$TMP/rs_offs.bin" of="$TMP/rs_offs$d.bin" bs=1024 skip=$d count=1 2>/dev/null
                    check radixsort.rise rsPass$t "--input value:$d --input $TMP/rs_offs$d.bin --input $TMP/rs_keys.bin" -D n=$n
                done
            else
                echo "FAIL: radixsort.rise rsHist$t/rsScanAll on the interpreter, n=$n"
                fails=$((fails + 1))
            fi
        done
    done
fi
# issue 35 item 4: libpatrt's patc_sort_keys through its real launch path on the
# emulated kernels: tests/gpu/sort_check.c (section r of tests/gpu/all.sh) built against
# the libpatrt.so beside PATC, the sorter's generated program (sort_check --source)
# built by build.sh (build_sorter), every result checked against a reference sort and
# qsort.
# build_sorter SO ARGS...: the sorter's program for sort_check ARGS built into SO as
# libpatrt compiles it (--bins-in-result: the histogram adds into its output, which the
# runtime zeroes; a build without it has another histogram kernel, with scratch bins
# among its parameters), for every block below; false, with a fail counted and
# build.sh's messages, where it cannot be built.
build_sorter() {
    local so=$1
    shift
    if LD_LIBRARY_PATH="$rtlib" "$TMP/sort_check" --source "$@" >"$so.rise" &&
        bash tests/emu/build.sh "$PATC" "$so" "$so.rise" --bins-in-result 2>"$TMP/build.err"; then
        return 0
    fi
    echo "FAIL: sort_check $*: building the sorter's kernels"
    sed 's/^/    /' "$TMP/build.err" | head -10
    fails=$((fails + 1))
    return 1
}
# sort_check_emu SO ARGS...: tests/gpu/sort_check ARGS on the kernels emulated from SO
# (through libpatrt's launches, the stand-in driver running them), a pass or a fail.
sort_check_emu() {
    local so=$1
    shift
    if FAKECUDA_EMULATE="$so" LD_LIBRARY_PATH="$FAKE:$rtlib" "${preload[@]}" "$TMP/sort_check" "$@" >"$TMP/out" 2>&1; then
        passes=$((passes + 1))
    else
        echo "FAIL: sort_check $*"
        grep -v swapcontext "$TMP/out" | tail -4 | sed 's/^/    /'
        fails=$((fails + 1))
    fi
}
if { [ -z "${EMU_ONLY:-}" ] || [[ "sort_check" =~ $EMU_ONLY ]]; } && part_ok; then
    rtlib=$(cd "$(dirname "$PATC")/../runtime" && pwd)
    if ${CC:-cc} -std=c11 -Iruntime -o "$TMP/sort_check" tests/gpu/sort_check.c -L"$rtlib" -lpatrt -lm 2>"$TMP/build.err"; then
        for t in u32 i32 f32; do
            build_sorter "$TMP/sort_$t.so" $t || continue
            runs=("1 uniform" "31 special" "1000 few" "4097 uniform" "4097 special" "4097 sorted" "4097 reverse"
                  "4097 equal" "100003 uniform" "many 40 5000")
            for r in "${runs[@]}"; do
                # shellcheck disable=SC2086
                sort_check_emu "$TMP/sort_$t.so" $t $r
            done
            # a sort in portions (issue 35 item 4): seven launches a pass, offsets each pass
            [ $t = f32 ] && sort_check_emu "$TMP/sort_$t.so" --portion=3001 $t 20000 special
        done
        # 8-byte keys and values, a bit range of five passes (odd: the in-place sort ends
        # in the second buffer and copies back with sortCopy)
        w=(--pairs=u64 --bits=0:40 i64)
        if build_sorter "$TMP/sort_w.so" "${w[@]}"; then
            sort_check_emu "$TMP/sort_w.so" "${w[@]}" 9001 uniform
            sort_check_emu "$TMP/sort_w.so" "${w[@]}" 33 special
            sort_check_emu "$TMP/sort_w.so" --portion=2500 "${w[@]}" 9001 few
            # back-to-back sorts of 1 to 4 tiles, five passes each: a launch after a
            # longer one clears the longer one's last tile words (multisplit's ms_sweep;
            # kept small: the emulated kernels are most of CI's time)
            sort_check_emu "$TMP/sort_w.so" "${w[@]}" many 8 24000
        fi
    else
        echo "FAIL: building tests/gpu/sort_check.c"
        sed 's/^/    /' "$TMP/build.err" | head -10
        fails=$((fails + 1))
    fi
fi
# issue 35 item 2 (sortpairs): the pairs' pass and the descending kernels of
# examples/radixsort_pairs.rise against the interpreter, on random keys and values, the
# offsets the interpreter's histogram and scan give (descending: of the complemented
# order bits); then libpatrt's patc_sort_pairs and descending sorts through
# tests/gpu/sort_check.c on the emulated kernels, as the block above.
if { [ -z "${EMU_ONLY:-}" ] || [[ "radixsort_pairs.rise" =~ $EMU_ONLY ]]; } && part_ok; then
    for n in 33 4097; do
        python3 -c "import os,sys; sys.stdout.buffer.write(os.urandom(4*$n))" >"$TMP/rp_keys.bin"
        python3 -c "import os,sys; sys.stdout.buffer.write(os.urandom(4*$n))" >"$TMP/rp_vals.bin"
        for t in U32 I32 F32 F32Desc; do
            hf=examples/radixsort.rise hk=rsHist$t
            [ $t = F32Desc ] && hf=examples/radixsort_pairs.rise && hk=rsHistF32Desc
            if "$PATC" run $hf --kernel $hk --cpu -D n=$n -D g=2 --input "$TMP/rp_keys.bin" \
                    --output "$TMP/rp_hist.bin" >/dev/null 2>&1 &&
                "$PATC" run examples/radixsort.rise --kernel rsScanAll --cpu --input "$TMP/rp_hist.bin" \
                    --output "$TMP/rp_offs.bin" >/dev/null 2>&1; then
                ds="1"
                [ $n = 4097 ] && [ $t = U32 ] && ds="0 1 2 3"
                [ $n = 4097 ] && [ $t = F32Desc ] && ds="0 3"
                for d in 0 1 2 3; do
                    dd if="$TMP/rp_offs.bin" of="$TMP/rp_offs$d.bin" bs=1024 skip=$d count=1 2>/dev/null
                done
                for d in $ds; do
                    check radixsort_pairs.rise rsPassPairs$t \
                        "--input value:$d --input $TMP/rp_offs$d.bin --input $TMP/rp_keys.bin --input $TMP/rp_vals.bin" -D n=$n
                done
                if [ $t = F32Desc ]; then
                    check radixsort_pairs.rise rsPassF32Desc "--input value:2 --input $TMP/rp_offs2.bin --input $TMP/rp_keys.bin" -D n=$n
                    check radixsort_pairs.rise rsHistF32Desc "--input $TMP/rp_keys.bin" -D n=$n -D g=2
                fi
            else
                echo "FAIL: radixsort_pairs.rise $hk/rsScanAll on the interpreter, n=$n"
                fails=$((fails + 1))
            fi
        done
    done
fi
if { [ -z "${EMU_ONLY:-}" ] || [[ "sort_check_pairs" =~ $EMU_ONLY ]]; } && part_ok; then
    rtlib=$(cd "$(dirname "$PATC")/../runtime" && pwd)
    if ${CC:-cc} -std=c11 -Iruntime -o "$TMP/sort_check" tests/gpu/sort_check.c -L"$rtlib" -lpatrt -lm 2>"$TMP/build.err"; then
        for f in "--pairs=u32 f32" "--pairs=f32 i32" "--desc f32" "--desc --pairs=i32 u32"; do
            tag=$(echo "$f" | tr -c 'a-z0-9\n' _)
            # shellcheck disable=SC2086
            build_sorter "$TMP/sortp_$tag.so" $f || continue
            # (kept short: about 40 s in all here)
            runs=("31 special" "4097 equal" "many 8 5000")
            case "$f" in *pairs=u32*) runs+=("4097 special") ;; esac
            for r in "${runs[@]}"; do
                # shellcheck disable=SC2086
                sort_check_emu "$TMP/sortp_$tag.so" $f $r
            done
        done
    else
        echo "FAIL: building tests/gpu/sort_check.c"
        sed 's/^/    /' "$TMP/build.err" | head -10
        fails=$((fails + 1))
    fi
fi
# issue 35 item 2 (sorttile): the one-launch small sort. The sortTiles primitive
# (examples/sorttiles.rise) against the interpreter: the 1024 x 4 tile of f32 keys at a
# partial tile (1000) and two tiles (4097), pairs at 33, and the one-warp shape at 97
# (two tiles); then libpatrt's sorts on the sorter's emulated kernels at its thresholds
# (2048 keys take the 256 x 8 launch, 4096 the 256 x 16 one, 4097 the 384 x 13 one, 5000 the 512 x 10 one, all
# ranked in registers; 5121 the 1024 x 8 one in shared memory, 8193 the six) through
# sort_check. Kept small (about
# 30 s here): every type and size runs in tests/gpu/all.sh's section r.
if { [ -z "${EMU_ONLY:-}" ] || [[ "sorttiles.rise sort_small" =~ $EMU_ONLY ]]; } && part_ok; then
    check sorttiles.rise stF32 "$r1" -D n=1000
    check sorttiles.rise stF32Desc "$r1" -D n=4097
    check sorttiles.rise stPairsI32 "$r2" -D n=33
    check sorttiles.rise stWarpI32 "$r1" -D n=97
    # sort64 (issue 35 item 2, 8-byte keys): a u64 order's eight passes on i64 keys over
    # the whole 64-bit range, descending, and pairs of 8-byte keys and values (f64 words,
    # i64 values) with ties; the sizes of the cases above, so no kernels built anew
    check sorttiles.rise stI64Desc "--input random:-9223372036854775808:9223372036854775807" -D n=33
    check sorttiles.rise stPairsF64I64 "$r2" -D n=1000
    # the 8-bit passes in shared memory (more than 16 items a thread): a partial tile and
    # two tiles
    check sorttiles.rise stSmemF32 "$r1" -D n=2000
    check sorttiles.rise stSmemPairsI64 "--input random:-9223372036854775808:9223372036854775807 --input random" -D n=1100
    # the checks above catch a wrong rank in the registers' ranking: stF32 edited so that
    # an element's rank in its round counts the lanes of its digit above it, not below
    sf=(examples/sorttiles.rise --kernel stF32 -D n=1000)
    "$PATC" --emit-cuda "${sf[@]}" >"$TMP/st.cu"
    sed -E 's/(__shfl_sync\(0xffffffffu, slm[0-9]+, sld[0-9]+\) \& )\(\(1u << lane\) - 1u\)/\1~((1u << lane) - 1u)/' \
        "$TMP/st.cu" >"$TMP/stf.cu"
    if cmp -s "$TMP/st.cu" "$TMP/stf.cu"; then
        echo "FAIL: sortTiles fault (ranks counted from above): the edit changed nothing"
        fails=$((fails + 1))
    elif ! EMU_CUDA="$TMP/stf.cu" bash tests/emu/build.sh "$PATC" "$TMP/stf.so" "${sf[@]}" 2>"$TMP/build.err"; then
        echo "FAIL: sortTiles fault (ranks counted from above): the edited kernel does not build"
        fails=$((fails + 1))
    elif FAKECUDA_EMULATE="$TMP/stf.so" LD_LIBRARY_PATH=$FAKE "${preload[@]}" "$PATC" run "${sf[@]}" --input random \
            --check-against-cpu >"$TMP/out" 2>&1; then
        echo "FAIL: sortTiles fault (ranks counted from above): not caught (the check passed)"
        fails=$((fails + 1))
    else
        echo "sortTiles fault ranks counted from above: caught"
        passes=$((passes + 1))
    fi
    rtlib=$(cd "$(dirname "$PATC")/../runtime" && pwd)
    if ${CC:-cc} -std=c11 -Iruntime -o "$TMP/sort_check" tests/gpu/sort_check.c -L"$rtlib" -lpatrt -lm 2>"$TMP/build.err"; then
        for f in "f32" "--desc --pairs=i32 u32"; do
            tag=$(echo "$f" | tr -c 'a-z0-9\n' _)
            # shellcheck disable=SC2086
            build_sorter "$TMP/sorts_$tag.so" $f || continue
            for r in "2048 uniform" "4096 few" "4097 special" "5000 uniform" "5121 few" "8193 few"; do
                # shellcheck disable=SC2086
                sort_check_emu "$TMP/sorts_$tag.so" $f $r
            done
        done
    else
        echo "FAIL: building tests/gpu/sort_check.c"
        sed 's/^/    /' "$TMP/build.err" | head -10
        fails=$((fails + 1))
    fi
fi
echo "emulated kernels: $passes passed, $fails failed"
[ "$fails" = 0 ]
