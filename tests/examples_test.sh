#!/usr/bin/env bash
# examples_test.sh PATC SRCDIR: the examples of issue 11 item 7 (scan_warp, softmax_rows,
# unrolled_uf, matmul_tiled), issue 12's scans (scan_device, scan_rows, scan_blelloch),
# issue 13's filter and partition, issue 33 item 3's Jacobi step and tiled transpose of
# any size, and the bitwise operators and warp vote of
# tests/programs (bitsU32, bitsI32, ballotRank) run on the CPU interpreter (`patc run
# --cpu`) and compared with an independent computation in Python on the same inputs, at
# ragged sizes. The GPU runs the same kernels against the interpreter
# (tests/gpu/all.sh). Exit 0 when all pass, 1 otherwise.
set -u
PATC=${1:?usage: examples_test.sh PATC SRCDIR}
SRC=${2:?usage: examples_test.sh PATC SRCDIR}
cd "$SRC" || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0 passes=0
# the interpreter itself, not pyenv's shim (a shell script that took 0.2 s a call: most of
# this test's time)
PY=$(python3 -c 'import sys; print(sys.executable)') || exit 1
python3() { "$PY" "$@"; }

# inputs KIND N NAME: $TMP/NAME.bin, N values: f32 uniform in [-2, 2), i32 in [-50, 50),
# sparse: i32 in [-50, 50), three in four of them 0, or nat: i32 in [0, 100)
inputs() {
    python3 - "$@" "$TMP" <<'PY'
import random, struct, sys
kind, n, name, d = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
r = random.Random(n * 7 + len(name))
if kind == "f32":
    v = struct.pack("<%df" % n, *[r.uniform(-2, 2) for _ in range(n)])
elif kind == "nat":
    v = struct.pack("<%di" % n, *[r.randrange(0, 100) for _ in range(n)])
elif kind == "sparse":
    v = struct.pack("<%di" % n, *[r.randrange(-50, 50) if r.random() < 0.25 else 0 for _ in range(n)])
else:
    v = struct.pack("<%di" % n, *[r.randrange(-50, 50) for _ in range(n)])
open("%s/%s.bin" % (d, name), "wb").write(v)
PY
}

# EXAMPLES_STRIDE=N (the sanitizer build's ctest sets 2: tests/CMakeLists.txt) runs one
# check in N, the interpreter's code paths under the sanitizers at half the cost
stride=${EXAMPLES_STRIDE:-1} seen=0 skipped=0

# check NAME CHECKER-ARGS -- PATC-RUN-ARGS: runs patc on the CPU into $TMP/out.bin, then
# tests/examples_check.py CHECKER-ARGS compares it with its own computation
check() {
    seen=$((seen + 1))
    if [ $(((seen - 1) % stride)) -ne 0 ]; then skipped=$((skipped + 1)); return; fi
    local name=$1; shift
    local cargs=()
    while [ "$1" != -- ]; do cargs+=("$1"); shift; done
    shift
    local outs=(--output "$TMP/out.bin")
    # filter and partition: out0 is the count, out1 the elements
    [ "${cargs[0]}" = compact ] && outs=(--output "$TMP/cnt.bin" --output "$TMP/out.bin")
    # argmax: out0 is the value, out1 its index
    [ "${cargs[0]}" = arg ] && outs=(--output "$TMP/out.bin" --output "$TMP/idx.bin")
    if ! "$PATC" run "$@" --cpu "${outs[@]}" >"$TMP/log" 2>&1; then
        echo "FAIL: $name (patc run)"; sed 's/^/    /' "$TMP/log" | head -5; fails=$((fails + 1)); return
    fi
    if python3 tests/examples_check.py "${cargs[@]}" "$TMP" >"$TMP/log" 2>&1; then
        echo "PASS: $name $(tail -1 "$TMP/log")"; passes=$((passes + 1))
    else
        echo "FAIL: $name"; sed 's/^/    /' "$TMP/log" | head -5; fails=$((fails + 1))
    fi
}

# ---- the bitwise operators and the warp vote (tests/programs): i32 in [0, 100), as
# the shift counts (x % 7, x % 31) must not be negative
for n in 1 64 1000; do
    inputs nat $n xb
    check "bitsU32 n=$n" bits bitsU32 xb -- tests/programs/scalar_forms.rise --kernel bitsU32 -D n=$n --input "$TMP/xb.bin"
    check "bitsI32 n=$n" bits bitsI32 xb -- tests/programs/scalar_forms.rise --kernel bitsI32 -D n=$n --input "$TMP/xb.bin"
done
for b in 1 3; do
    inputs nat $((64 * b)) xw
    check "ballotRank 64*$b" bits ballotRank xw -- tests/programs/shfl_types.rise --kernel ballotRank -D n=$b --input "$TMP/xw.bin"
done

# ---- scan_warp: 32 prefix sums per warp, inclusive and exclusive, a running maximum
for b in 1 3 37; do
    inputs i32 $((32 * b)) xi; inputs f32 $((32 * b)) xf
    check "scanInclI32 32*$b" scan i32 incl add 0 xi -- examples/scan_warp.rise --kernel scanInclI32 -D n=$b --input "$TMP/xi.bin"
    check "scanExclI32 32*$b" scan i32 excl add 0 xi -- examples/scan_warp.rise --kernel scanExclI32 -D n=$b --input "$TMP/xi.bin"
    check "scanMaxI32 32*$b" scan i32 incl max 50 xi -- examples/scan_warp.rise --kernel scanMaxI32 -D n=$b --input "$TMP/xi.bin"
    check "scanInclF32 32*$b" scan f32 incl add 0 xf -- examples/scan_warp.rise --kernel scanInclF32 -D n=$b --input "$TMP/xf.bin"
    check "scanExclF32 32*$b" scan f32 excl add 0 xf -- examples/scan_warp.rise --kernel scanExclF32 -D n=$b --input "$TMP/xf.bin"
done

# ---- scan_device: single-pass device scans (lookback), ragged sizes and several tiles
for n in 1 31 33 1000 3200 4097 20011; do
    inputs i32 $n xi; inputs f32 $n xf
    for k in InclSumI32:incl:xi:i32 ExclSumI32:excl:xi:i32 InclSumF32:incl:xf:f32 ExclSumF32:excl:xf:f32; do
        IFS=: read -r kn mode in kind <<<"$k"
        kn="$(echo "${kn:0:1}" | tr A-Z a-z)${kn:1}"
        check "$kn n=$n" dscan $kind $mode 0 $in -- examples/scan_device.rise --kernel "$kn" -D nt=128 -D ipt=25 -D n=$n --input "$TMP/$in.bin"
    done
done

# ---- scan_rows: reduce-then-scan over r rows (three launches), rows of several tiles,
# rows made only of padding (r above the tile count), one row
for nr in "1 1" "31 2" "1000 3" "4097 1" "4097 5" "20011 3" "20011 7"; do
    set -- $nr
    inputs i32 $1 xi; inputs f32 $1 xf
    for k in InclSumI32:incl:xi:i32 ExclSumI32:excl:xi:i32 InclSumF32:incl:xf:f32 ExclSumF32:excl:xf:f32; do
        IFS=: read -r kn mode in kind <<<"$k"
        kn="$(echo "${kn:0:1}" | tr A-Z a-z)${kn:1}"
        check "rows $kn n=$1 r=$2" dscan $kind $mode 0 $in -- examples/scan_rows.rise --kernel "$kn" -D nt=128 -D ipt=25 -D n=$1 -D r=$2 --input "$TMP/$in.bin"
    done
done

# ---- scan_blelloch: Blelloch's scan of 512-element tiles joined by lookback, ragged sizes
for n in 1 31 33 511 512 1000 4097 20011; do
    inputs i32 $n xi; inputs f32 $n xf; inputs sparse $n xz
    for k in InclSumI32:incl:xi:i32 ExclSumI32:excl:xi:i32 InclSumF32:incl:xf:f32 ExclSumF32:excl:xf:f32 InclSumF32Unpadded:incl:xf:f32; do
        IFS=: read -r kn mode in kind <<<"$k"
        kn="$(echo "${kn:0:1}" | tr A-Z a-z)${kn:1}"
        check "blelloch $kn n=$n" dscan $kind $mode 0 $in -- examples/scan_blelloch.rise --kernel "$kn" -D n=$n --input "$TMP/$in.bin"
    done
    check "blelloch fillForwardI32 n=$n" fill xz -- examples/scan_blelloch.rise --kernel fillForwardI32 -D n=$n --input "$TMP/xz.bin"
done
for n in 1 65 3000 4097; do # the other tile sizes (64, 1024, 2048 elements)
    inputs i32 $n xi; inputs sparse $n xz
    for k in incl64:incl excl64:excl incl1024:incl excl2048:excl; do
        check "blelloch_levels ${k%:*} n=$n" dscan i32 ${k#*:} 0 xi -- tests/programs/blelloch_levels.rise --kernel "${k%:*}" -D n=$n --input "$TMP/xi.bin"
    done
    check "blelloch_levels fill2048 n=$n" fill xz -- tests/programs/blelloch_levels.rise --kernel fill2048 -D n=$n --input "$TMP/xz.bin"
done
for m in 1 3; do
    inputs i32 $((512 * m)) xi
    check "blelloch tileExclSumI32 m=$m" tscan 512 xi -- examples/scan_blelloch.rise --kernel tileExclSumI32 -D m=$m --input "$TMP/xi.bin"
done

# ---- softmax_rows: r rows of m columns (m a multiple of 32), relative error 1e-4
for rm in "1 32" "3 64" "5 1024" "2 4096"; do
    set -- $rm
    inputs f32 $(($1 * $2)) xs
    check "softmaxRows r=$1 m=$2" softmax $2 xs -- examples/softmax_rows.rise --kernel softmaxRows -D r=$1 -D m=$2 --input "$TMP/xs.bin"
done

# ---- unrolled_uf: the ceil(n / uf) partial sums, n a multiple of uf or not
for nu in "1 4" "3 4" "4 4" "5 4" "1000 8" "1001 8" "1003 3" "4097 1" "65537 16"; do
    set -- $nu
    inputs f32 $1 xs
    check "unrolledUF n=$1 uf=$2" uf $2 xs -- examples/unrolled_uf.rise --kernel unrolledUF -D n=$1 -D uf=$2 --input "$TMP/xs.bin"
done

# ---- matmul_tiled: (64*m) x k times k x (64*n), relative error 1e-4
for mnk in "1 1 1" "1 2 3" "2 1 64" "1 1 257"; do
    set -- $mnk
    inputs f32 $((64 * $1 * $3)) A; inputs f32 $(($3 * 64 * $2)) B
    check "matmulTiled m=$1 n=$2 k=$3" matmul $((64 * $1)) $((64 * $2)) $3 A B -- examples/matmul_tiled.rise --kernel matmulTiled -D m=$1 -D n=$2 -D k=$3 --input "$TMP/A.bin" --input "$TMP/B.bin"
done
# matmulShared: K = 16*kt, shared tiles of 16 steps, the accumulator spread over the threads
for mnk in "1 1 1" "1 2 3" "2 1 4"; do
    set -- $mnk
    inputs f32 $((64 * $1 * 16 * $3)) A; inputs f32 $((16 * $3 * 64 * $2)) B
    check "matmulShared m=$1 n=$2 kt=$3" matmul $((64 * $1)) $((64 * $2)) $((16 * $3)) A B -- examples/matmul_tiled.rise --kernel matmulShared -D m=$1 -D n=$2 -D kt=$3 --input "$TMP/A.bin" --input "$TMP/B.bin"
done


# ---- filter and partition (issue 13): ragged sizes, several tiles, none, some and all selected
for n in 1 31 33 1000 4097 20011; do
    inputs i32 $n xi; inputs f32 $n xf
    for t in 100 0 -100; do
        check "filterGtI32 n=$n t=$t" compact i32 filter $t xi -- examples/filter.rise --kernel filterGtI32 -D nt=128 -D ipt=16 -D n=$n --input value:$t --input "$TMP/xi.bin"
        check "partitionGtI32 n=$n t=$t" compact i32 partition $t xi -- examples/partition.rise --kernel partitionGtI32 -D nt=128 -D ipt=16 -D n=$n --input value:$t --input "$TMP/xi.bin"
    done
    check "filterGtF32 n=$n" compact f32 filter 0.5 xf -- examples/filter.rise --kernel filterGtF32 -D nt=128 -D ipt=16 -D n=$n --input value:0.5 --input "$TMP/xf.bin"
    check "partitionGtF32 n=$n" compact f32 partition 0.5 xf -- examples/partition.rise --kernel partitionGtF32 -D nt=128 -D ipt=16 -D n=$n --input value:0.5 --input "$TMP/xf.bin"
    check "partitionStableGtF32 n=$n" compact f32 partition_stable 0.5 xf -- examples/partition.rise --kernel partitionStableGtF32 -D nt=128 -D ipt=16 -D g=3 -D n=$n --input value:0.5 --input "$TMP/xf.bin"
    check "partitionStableGtI32 n=$n (tile 32x4, g=1)" compact i32 partition_stable 0 xi -- examples/partition.rise --kernel partitionStableGtI32 -D nt=32 -D ipt=4 -D g=1 -D n=$n --input value:0 --input "$TMP/xi.bin"
    check "partitionLtF32 n=$n (tile 32x3)" compact f32 partition_lt 0.5 xf -- examples/partition.rise --kernel partitionLtF32 -D nt=32 -D ipt=3 -D n=$n --input value:0.5 --input "$TMP/xf.bin"
done
# ---- issue 33 item 3, views of nested arrays: the Jacobi step (padCst of rows and of
# the grid with a row of zeros) and the tiled transpose of any m x n (take of both
# dimensions of a result), ragged sizes, single rows and columns, exact tiles
for mn in "1 1" "1 31" "31 1" "31 33" "33 31" "64 32" "100 7" "7 1000" "1000 3"; do
    set -- $mn
    inputs f32 $(($1 * $2)) xg
    check "jacobi m=$1 n=$2" jacobi $1 $2 xg -- examples/jacobi.rise --kernel jacobi -D m=$1 -D n=$2 --input "$TMP/xg.bin"
    check "transposeTiledAny m=$1 n=$2" transpose $1 $2 xg -- examples/transpose_tiled.rise --kernel transposeTiledAny -D m=$1 -D n=$2 --input "$TMP/xg.bin"
done

# ---- argmax and argmin (issue 33): ragged sizes, random data, many ties, all -inf, NaNs
# among numbers, all NaN; the value and the first index holding it
for n in 1 31 33 1000 4097; do
    python3 - "$n" "$TMP" <<'PY'
import random, struct, sys
n, d = int(sys.argv[1]), sys.argv[2]
r = random.Random(n)
nan, inf = float("nan"), float("inf")
data = {"rand": [r.uniform(-2, 2) for _ in range(n)], "ties": [float(r.randrange(4)) for _ in range(n)],
        "ninf": [-inf] * n, "nans": [nan if r.random() < 0.3 else r.uniform(-2, 2) for _ in range(n)],
        "allnan": [nan] * n}
for k, v in data.items():
    open("%s/am_%s.bin" % (d, k), "wb").write(struct.pack("<%df" % n, *v))
PY
    for dk in rand ties ninf nans allnan; do
        check "argmaxF32 n=$n $dk" arg max am_$dk -- examples/argmax.rise --kernel argmaxF32 -D elemsBlock=1024 -D elemsWarp=128 -D g=3 -D n=$n --input "$TMP/am_$dk.bin"
        check "argminF32 n=$n $dk" arg min am_$dk -- examples/argmax.rise --kernel argminF32 -D elemsBlock=1024 -D elemsWarp=128 -D g=3 -D n=$n --input "$TMP/am_$dk.bin"
        check "argmaxF32OneBlock n=$n $dk" arg max am_$dk -- examples/argmax.rise --kernel argmaxF32OneBlock -D elemsBlock=4096 -D elemsWarp=512 -D n=$n --input "$TMP/am_$dk.bin"
        check "argminF32I64 n=$n $dk" arg min am_$dk i64 -- examples/argmax.rise --kernel argminF32I64 -D elemsBlock=1024 -D elemsWarp=128 -D g=2 -D n=$n --input "$TMP/am_$dk.bin"
    done
done
# ---- the radix sort's histogram (examples/radixsort.rise, issue 35): all four digits'
# counts of random words (and f32's special words: +-0, +-inf, NaNs of both signs) on 1
# to 7 blocks, the last trip padded (one key, a block and one, several trips)
for ng in "1 1" "5 1" "1024 1" "1025 1" "4097 3" "20011 2" "100003 7"; do
    set -- $ng
    python3 - "$1" "$TMP" <<'PY'
import random, struct, sys
n, d = int(sys.argv[1]), sys.argv[2]
r = random.Random(n + 35)
w = [r.getrandbits(32) & (r.getrandbits(32) if r.random() < 0.5 else 0xffffffff) for _ in range(n)]
for i, v in enumerate([0x80000000, 0, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000]):
    if i < n: w[(i * 7919) % n] = v
open("%s/rk.bin" % d, "wb").write(struct.pack("<%dI" % n, *w))
PY
    for t in U32 I32 F32; do
        check "rsHist$t n=$1 g=$2" rshist "$(echo $t | tr A-Z a-z)" rk -- examples/radixsort.rise --kernel rsHist$t -D n=$1 -D g=$2 --input "$TMP/rk.bin"
    done
done
echo "examples: $passes passed, $fails failed${EXAMPLES_STRIDE:+, $skipped left out (EXAMPLES_STRIDE=$stride)}"
[ "$fails" = 0 ]
