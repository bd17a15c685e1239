#!/usr/bin/env bash
# cli_test.sh PATC SRCDIR [FAKECUDA_DIR]: `patc run` without a GPU (ctest registers it
# from cli/CMakeLists.txt). Checks the CPU interpreter path on every example, output
# files, input and usage errors, the one-line no-driver error and the CPU reduction
# against an independent double-precision sum; with FAKECUDA_DIR (the directory of
# tests/fakecuda's stand-in libcuda.so.1, which runs no kernel), that the GPU path's
# checks catch a device that computes nothing. Exit 0 when all pass, 1 otherwise.
set -u
PATC=${1:?usage: cli_test.sh PATC SRCDIR [FAKECUDA_DIR]}
SRC=${2:?usage: cli_test.sh PATC SRCDIR [FAKECUDA_DIR]}
FAKE=${3:-}
cd "$SRC" || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
# the interpreter itself where there is one, not pyenv's shim (a shell script that took
# 0.2 s a call)
if PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -n "$PY" ]; then
    python3() { "$PY" "$@"; }
fi
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; fails=$((fails + 1)); }

# expect NAME RC CMD...: CMD exits with RC; stdout/stderr kept in $TMP/out, $TMP/err
expect() {
    local name=$1 want=$2
    shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ "$rc" = "$want" ]; then pass "$name"; else
        fail "$name (exit $rc, want $want)"; sed 's/^/    /' "$TMP/err" | head -5
    fi
}
# has NAME FILE REGEX
has() { if grep -Eq -- "$3" "$2"; then pass "$1"; else fail "$1 (no /$3/ in $2)"; sed 's/^/    /' "$2" | head -5; fi; }

# --check runs every pass (an error the shared-memory layout finds is found) and prints
# nothing on success
expect "--check: a pass after type checking fails" 1 "$PATC" --check tests/err/smem_over_budget.rise
has "--check: its message" "$TMP/err" 'error: shared memory over budget'
expect "--check: a good program" 0 "$PATC" --check examples/saxpy.rise
if [ -s "$TMP/out" ]; then fail "--check printed something on success"; else pass "--check prints nothing"; fi

# 0. --min-blocks: __launch_bounds__'s second argument, a count from 1 to 32
expect "--min-blocks 4" 0 "$PATC" --emit-cuda --min-blocks 4 examples/scan_device.rise -D nt=512 -D ipt=25
has "--min-blocks 4: launch bounds" "$TMP/out" '__launch_bounds__\(512, 4\) inclSumF32\('
expect "--min-blocks 0 is bad usage" 2 "$PATC" --emit-cuda --min-blocks 0 examples/scan_device.rise -D nt=512 -D ipt=25
has "--min-blocks 0: message" "$TMP/err" "--min-blocks expects a count from 1 to 32, got '0'"
expect "patc run --min-blocks 33 is bad usage" 2 "$PATC" run examples/scan_device.rise --kernel inclSumF32 -D nt=512 -D ipt=25 -D n=100 --input random --cpu --min-blocks 33
# --evict-first: a look-back kernel's input loads and output stores are __ldcs/__stcs
expect "--evict-first" 0 "$PATC" --emit-cuda --evict-first examples/scan_device.rise -D nt=512 -D ipt=25 --kernel inclSumF32
has "--evict-first: loads" "$TMP/out" '= __ldcs\(&xs\['
has "--evict-first: stores" "$TMP/out" '__stcs\(&out\['
expect "patc run --evict-first" 0 "$PATC" run examples/scan_device.rise --kernel inclSumF32 -D nt=128 -D ipt=25 -D n=100 --input random --cpu --evict-first
# --bins-in-result: the histogram adds into its output (no bins among its scratch), which
# the comment block says the runtime zeroes; the CPU run is unchanged
expect "--bins-in-result" 0 "$PATC" --emit-cuda --bins-in-result examples/histogram.rise --kernel histU32
has "--bins-in-result: atomics into out" "$TMP/out" 'atomicAdd\(&out\['
has "--bins-in-result: the comment block" "$TMP/out" 'zeroed by the runtime before each launch'
if grep -q 'bins0' "$TMP/out"; then fail "--bins-in-result: scratch bins left"; else pass "--bins-in-result: no scratch bins"; fi
expect "patc run --bins-in-result" 0 "$PATC" run examples/histogram.rise --kernel histU32 -D n=1000 -D g=3 --input random:0:299 --cpu --bins-in-result

# 0b. patc's own patterns by name from a directory that holds none: the build tree has
# no share/patc/patterns beside patc, so these are the copies built into libpatrt; a
# diagnostic inside one names <patc>/patterns/scan.rise and shows its line. A user's own
# scan.rise in a -I directory wins over the built-in one.
mkdir -p "$TMP/away" "$TMP/mine"
printf 'import "scan.rise"\nkernel inclSum = nFun((n, nt, ipt) => fun(n.f32)(xs => xs |> scanDevice(n, add, 0.0f, nt, ipt)))\n' \
    >"$TMP/away/sum.rise"
printf 'import "scan.rise"\nkernel k = nFun(n => fun(n.f32)(xs => xs |> scanDevice(n, add, 0.0f, 100, 25)))\n' \
    >"$TMP/away/bad.rise"
printf 'import "scan.rise"\nkernel twice = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(mine)))\n' >"$TMP/away/mine.rise"
printf -- '-- not patc'"'"'s scan.rise\ndef mine = fun(x => x * 3.0f)\n' >"$TMP/mine/scan.rise"
cd "$TMP/away" || exit 1
expect "built-in scan.rise" 0 "$PATC" --emit-cuda -D nt=128 -D ipt=25 sum.rise
has "built-in scan.rise: the look-back scan" "$TMP/out" 'inclSum\('
expect "built-in scan.rise, run --cpu" 0 "$PATC" run sum.rise -D nt=128 -D ipt=25 -D n=1000 --input random --cpu
expect "an error inside built-in scan.rise" 1 "$PATC" --check bad.rise
has "built-in scan.rise: the error's place" "$TMP/err" '^<patc>/patterns/scan\.rise:[0-9]+:[0-9]+: error: split\(32\)'
line=$(sed -n 's|^<patc>/patterns/scan\.rise:\([0-9]*\):.*error.*|\1|p' "$TMP/err" | head -n 1)
if [ -n "$line" ] && grep -qF -- "$(printf '%5d | %s' "$line" "$(sed -n "${line}p" "$SRC/patterns/scan.rise")")" "$TMP/err"; then
    pass "built-in scan.rise: the error's source line"
else fail "built-in scan.rise: the error's source line"; sed 's/^/    /' "$TMP/err" | head -5; fi
expect "-I scan.rise wins over the built-in one" 0 "$PATC" --emit-cuda -I "$TMP/mine" mine.rise
has "-I scan.rise: its definition" "$TMP/out" '\* 3\.0f'
expect "without -I, the built-in scan.rise has no 'mine'" 1 "$PATC" --check mine.rise
cd "$SRC" || exit 1

# 1. every example on the CPU, small sizes: exit 0 and a finite sum
while read -r name args; do
    # shellcheck disable=SC2086
    expect "cpu $name" 0 "$PATC" run $args --cpu
    has "cpu $name: summary" "$TMP/out" '^sum: [0-9.e+-]+$'
    has "cpu $name: type" "$TMP/out" '^output: f32, [0-9]+ elements?$'
done <<'T'
scale examples/scale.rise --kernel scale -D n=33 --input random
stencil3 examples/stencil3.rise --kernel stencil3 -D n=31 --input random
dot examples/dot.rise --kernel dotPartial -D n=1000 --input random --input random
transpose examples/transpose_tiled.rise --kernel transposeTiled -D mt=2 -D nt=1 --input random
reduce_naive examples/reduce_device_naive.rise --kernel reduceNaive -D n=5000 --input random
reduce_tree examples/reduce_device_tree.rise --kernel reduceTree -D n=5000 --input random
scale_n1 examples/scale.rise --kernel scale -D n=1 --input random
reduce_n1 examples/reduce_device_naive.rise --kernel reduceNaive -D n=1 --input random
T
expect "reduction is announced" 0 "$PATC" run examples/reduce_device_naive.rise --kernel reduceNaive -D n=5000 --input random --cpu --reduce
has "reduction is announced: text" "$TMP/out" 'relaunched until one element is left'
has "reduction: one value" "$TMP/out" '^value: '
expect "no --reduce: the pass's partials" 0 "$PATC" run examples/reduce_device_naive.rise --kernel reduceNaive -D n=5000 --input random --cpu
has "no --reduce: 5 partials" "$TMP/out" '^output: f32, 5 elements$'
if grep -q relaunched "$TMP/out"; then fail "no --reduce: nothing relaunched"; else pass "no --reduce: nothing relaunched"; fi

# 2. --output writes exactly count * size bytes
while read -r name bytes args; do
    rm -f "$TMP/o.bin"
    # shellcheck disable=SC2086
    expect "output $name" 0 "$PATC" run $args --cpu --output "$TMP/o.bin"
    size=$(stat -c %s "$TMP/o.bin" 2>/dev/null || echo none)
    if [ "$size" = "$bytes" ]; then pass "output $name: $bytes bytes"; else fail "output $name: $size bytes, want $bytes"; fi
done <<'T'
scale 40 examples/scale.rise --kernel scale -D n=10 --input random
transpose 8192 examples/transpose_tiled.rise --kernel transposeTiled -D mt=1 -D nt=2 --input random
dot 16 examples/dot.rise --kernel dotPartial -D n=1000 --input random --input random
reduce 4 examples/reduce_device_naive.rise --kernel reduceNaive -D n=3000 --input random --reduce
partials 12 examples/reduce_device_naive.rise --kernel reduceNaive -D n=3000 --input random
T

# 3. input errors (exit 1) and usage errors (exit 2), each one line
head -c 12 /dev/zero >"$TMP/short.bin"
expect "wrong input size" 1 "$PATC" run examples/scale.rise --kernel scale -D n=10 --input "$TMP/short.bin" --cpu
has "wrong input size: message" "$TMP/err" '^patc: error: input 1 .*expected 40 bytes.*has 12 bytes$'
head -c 44 /dev/zero >"$TMP/long.bin"
expect "input too long" 1 "$PATC" run examples/scale.rise --kernel scale -D n=10 --input "$TMP/long.bin" --cpu
has "input too long: message" "$TMP/err" 'expected 40 bytes'
expect "missing input file" 1 "$PATC" run examples/scale.rise --kernel scale -D n=10 --input "$TMP/none.bin" --cpu
expect "missing -D" 2 "$PATC" run examples/scale.rise --kernel scale --input random --cpu
has "missing -D: names it" "$TMP/err" '^patc: error: .*-D n='
expect "missing -D of a reduction" 2 "$PATC" run examples/reduce_device_naive.rise --kernel reduceNaive --input random --cpu
has "missing -D of a reduction: names it" "$TMP/err" '-D n='
expect "missing -D of two" 2 "$PATC" run examples/transpose_tiled.rise --kernel transposeTiled -D mt=1 --input random --cpu
has "missing -D of two: names nt" "$TMP/err" '-D nt='
# a -D that names no nat parameter is a program error, as with patc --check (the compiler says so)
expect "unknown -D" 1 "$PATC" run examples/scale.rise --kernel scale -D n=3 -D q=1 --input random --cpu
has "unknown -D: names it" "$TMP/err" "-D q: no selected kernel has a nat parameter named 'q'"
expect "unknown -D with --reduce" 2 "$PATC" run examples/reduce_device_naive.rise -D n=3 -D q=1 --input random --cpu --reduce
has "unknown -D with --reduce: names it" "$TMP/err" '^patc: error: -D q: kernel reduceNaive has no nat parameter'
expect "too few inputs" 2 "$PATC" run examples/dot.rise --kernel dotPartial -D n=10 --input random --cpu
expect "too many inputs" 2 "$PATC" run examples/scale.rise --kernel scale -D n=10 --input random --input random --cpu
expect "unknown option" 2 "$PATC" run examples/scale.rise --kernel scale -D n=10 --input random --frobnicate
expect "no --kernel, one kernel" 0 "$PATC" run examples/scale.rise -D n=10 --input random --cpu
expect "no --kernel, several kernels" 2 "$PATC" run examples/reduce_warp.rise -D n=1 --input random --cpu
expect "bad --repeat" 2 "$PATC" run examples/scale.rise --kernel scale -D n=10 --input random --cpu --repeat 0
expect "bad --tolerance" 2 "$PATC" run examples/scale.rise --kernel scale -D n=10 --input random --check-against-cpu --tolerance 0
has "bad --tolerance: says the range" "$TMP/err" "^patc: error: --tolerance expects a relative error between 0 and 1, got '0'$"
expect "--tolerance without a check" 2 "$PATC" run examples/scale.rise --kernel scale -D n=10 --input random --cpu --tolerance 1e-3
has "--tolerance without a check: says so" "$TMP/err" '^patc: error: --tolerance is the tolerance of --check-against-cpu; give both$'
# --input random:LO:HI: integers uniform in LO..HI, both ends drawn (scale doubles them)
expect "random:-3:3" 0 "$PATC" run examples/scale.rise -D n=1000 --input random:-3:3 --cpu --output "$TMP/r.bin"
od -An -v -f "$TMP/r.bin" | tr -s ' ' '\n' | grep . | sort -un >"$TMP/r.txt"
if [ "$(tr '\n' ' ' <"$TMP/r.txt")" = "-6 -4 -2 0 2 4 6 " ]; then pass "random:-3:3: values -3..3, each drawn"; else
    fail "random:-3:3: values -3..3, each drawn (got $(tr '\n' ' ' <"$TMP/r.txt"))"; fi
expect "random:LO:HI is bad usage with LO > HI" 2 "$PATC" run examples/scale.rise -D n=10 --input random:3:-3 --cpu
has "random:3:-3: message" "$TMP/err" "^patc: error: input 1: 'random:3:-3' is not LO:HI, two integers LO <= HI within f32's exact range$"
expect "random:LO:HI past f32's exact integers" 2 "$PATC" run examples/scale.rise -D n=10 --input random:0:16777217 --cpu
expect "random:LO:HI, not integers" 2 "$PATC" run examples/scale.rise -D n=10 --input random:0:1.5 --cpu
expect "random:LO:HI, one number" 2 "$PATC" run examples/scale.rise -D n=10 --input random:5 --cpu
expect "random:LO:HI, negative for u32" 2 "$PATC" run tests/programs/scan_types.rise --kernel inclSumU32 -D n=10 -D nt=32 -D ipt=1 --input random:-1:5 --cpu
expect "no such kernel" 1 "$PATC" run examples/scale.rise --kernel nope -D n=10 --input random --cpu
expect "--reduce on a map" 1 "$PATC" run examples/scale.rise --kernel scale -D n=10 --input random --cpu --reduce
has "--reduce on a map: says why" "$TMP/err" '^patc: error: .*kernel scale maps 10 elements to 10: not a reduction pass$'
expect "--reduce on two inputs" 1 "$PATC" run examples/dot.rise --kernel dotPartial -D n=10 --input random --input random --cpu --reduce
has "--reduce on two inputs: says why" "$TMP/err" '^patc: error: --reduce: kernel dotPartial is not a device-level reduction pass'
printf 'kernel divz = nFun(n => fun(n.i32)(xs => xs |> mapGlobal(fun(x => x / (x - x)))))\n' >"$TMP/divz.rise"
expect "interpreter run-time error" 1 "$PATC" run "$TMP/divz.rise" -D n=4 --input random --cpu
has "interpreter run-time error: one line" "$TMP/err" '^patc: error: divz: interpreter: .*divz.rise:1:[0-9]+: division by zero$'
expect "run --help" 0 "$PATC" run --help
expect "patc --help mentions run" 0 "$PATC" --help
has "patc --help: --check-against-cpu" "$TMP/out" '--check-against-cpu'

# 3b. a nat parameter that shapes the code and that no -D fixes (nt, ipt, elemsBlock, ...):
# the error gets a note naming it and the -D that fixes it, with values, and followed,
# those values compile (for each example whose golden needs -D)
hint_values() { sed -n 's/.*e\.g\. with \(.*\) \(the program\|kernel .*\) compiles$/\1/p' "$1"; }
while read -r ex nat fact; do
    expect "-D note: $ex" 1 "$PATC" --check "examples/$ex.rise"
    has "-D note: $ex names $nat" "$TMP/err" "^examples/$ex\.rise:[0-9]+:[0-9]+: note: ($nat|.* and $nat|$nat and .*) (is a nat parameter|are nat parameters) of kernel '[A-Za-z0-9]+' that no -D fixes, and this check needs $fact: fix (it|them) with .*-D $nat=VALUE"
    vals=$(hint_values "$TMP/err")
    has "-D note: $ex gives values" "$TMP/err" "e\.g\. with -D "
    # shellcheck disable=SC2086
    expect "-D note: $ex, followed ($vals), compiles" 0 "$PATC" --emit-cuda $vals "examples/$ex.rise"
done <<'T'
scan_device nt 32 to divide nt
scan_rows nt 32 to divide nt
reduce_fast elemsWarp elemsWarp to divide elemsBlock
filter nt 4 to divide nt \* ipt
softmax_rows m 32 to divide m
scan_pipe w w to be a constant in 1\.\.29
T
# the next one of scanDevice's once nt is fixed; with --kernel the note says which kernel compiles
expect "-D note: ipt" 1 "$PATC" --check -D nt=128 --kernel exclSumI32 examples/scan_device.rise
has "-D note: ipt names it" "$TMP/err" "note: ipt is a nat parameter of kernel 'exclSumI32' that no -D fixes, and this check needs ipt to be a constant: fix it with -D ipt=VALUE; e\.g\. with -D ipt=[0-9]+ kernel 'exclSumI32' compiles$"
# shellcheck disable=SC2046
expect "-D note: ipt, followed, compiles" 0 "$PATC" --emit-cuda -D nt=128 --kernel exclSumI32 $(hint_values "$TMP/err") examples/scan_device.rise
# patc run's compile says the same; the run with the values works
expect "-D note: patc run" 1 "$PATC" run examples/scan_device.rise --kernel inclSumF32 -D n=1000 --input random --cpu
has "-D note: patc run names nt" "$TMP/err" "note: nt is a nat parameter of kernel 'inclSumF32' that no -D fixes, .*-D nt=VALUE; e\.g\. with"
# shellcheck disable=SC2046
expect "-D note: patc run, followed, runs" 0 "$PATC" run examples/scan_device.rise --kernel inclSumF32 -D n=1000 $(hint_values "$TMP/err") --input random --cpu
# fixed, but wrong: the error names the value; no note offers a -D
expect "-D nt=100: error" 1 "$PATC" --check -D nt=100 -D ipt=25 examples/scan_device.rise
has "-D nt=100: names 100" "$TMP/err" "cannot show that 32 divides the array length 100"
if grep -q "no -D fixes" "$TMP/err"; then fail "-D nt=100: no -D note"; else pass "-D nt=100: no -D note"; fi

# 4. without a GPU driver: exit 1, one line naming the driver (skipped where there is one)
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
    echo "SKIP: no-driver checks (this machine has libcuda.so.1)"
else
    for extra in "" "--check-against-cpu" "--time"; do
        # shellcheck disable=SC2086
        expect "no driver $extra" 1 "$PATC" run examples/scale.rise --kernel scale -D n=10 --input random $extra
        lines=$(wc -l <"$TMP/err")
        if [ "$lines" = 1 ]; then pass "no driver $extra: one line"; else fail "no driver $extra: $lines lines"; fi
        has "no driver $extra: names the driver" "$TMP/err" '^patc: error: .*(driver|libcuda)'
    done
    expect "no driver: tune --scan" 1 "$PATC" tune examples/scan_device.rise --scan inclSumF32 --out "$TMP/t.conf"
    has "no driver: tune --scan names the driver" "$TMP/err" '^patc tune: error: .*(driver|libcuda)'
    expect "no driver: tune --algo" 1 "$PATC" tune --algo inclusive_scan --out "$TMP/t.conf"
    has "no driver: tune --algo names the driver" "$TMP/err" '^patc tune: error: .*(driver|libcuda)'
fi
# patc tune's usage errors (no device needed to reach them)
expect "tune without a kernel" 2 "$PATC" tune examples/scan_device.rise
has "tune without a kernel: says --scan" "$TMP/err" 'at least one --kernel or --scan'
expect "tune --scan without its value" 2 "$PATC" tune examples/scan_device.rise --scan
# Files that are not regular, for each kind of file patc opens here (--input, --output,
# -o; sources and imports are in limits_test.sh): refused at once, with the file and its
# kind named. Each runs under a timeout, so a hang fails: a FIFO without a writer used
# to block --input forever, /dev/zero was "a file of 0 bytes", and -o or --output on a
# FIFO that nothing reads waited for a reader.
mkfifo "$TMP/fifo"
ln -s loop "$TMP/loop"
mkdir "$TMP/adir"
kinds="fifo:a FIFO, not a regular file
/dev/zero:a character device, not a regular file
adir:a directory, not a regular file
loop:Too many levels of symbolic links"
if command -v python3 >/dev/null && python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/sock"; then
    kinds="$kinds
sock:a socket, not a regular file"
else
    echo "SKIP: a socket as a file (no python3 to make one)"
fi
blk=$(find /dev -maxdepth 1 -type b -readable 2>/dev/null | head -1)
if [ -n "$blk" ]; then kinds="$kinds
$blk:a block device, not a regular file"; fi
while IFS=: read -r f why; do
    case $f in /*) path=$f ;; *) path=$TMP/$f ;; esac
    expect "input $f refused" 1 timeout 10 "$PATC" run examples/scale.rise -D n=10 --input "$path" --cpu
    has "input $f: says why" "$TMP/err" "^patc: error: input 1: cannot open '$path': $why\$"
done <<<"$kinds"
# an output may be /dev/null, /dev/stdout or a pipe that a process reads; a directory,
# a FIFO that nothing reads, a socket or a loop of links is refused (a block device too,
# though not tried here: a mistake would write on a disk)
outs="fifo:a FIFO that no process has open for reading
adir:a directory, not a regular file
loop:Too many levels of symbolic links"
[ -S "$TMP/sock" ] && outs="$outs
sock:a socket, not a regular file"
while IFS=: read -r f why; do
    expect "--output $f refused" 1 timeout 10 "$PATC" run examples/scale.rise -D n=10 --input random --cpu --output "$TMP/$f"
    has "--output $f: says why" "$TMP/err" "^patc: error: cannot write '$TMP/$f': $why\$"
    expect "-o $f refused" 1 timeout 10 "$PATC" --emit-cuda examples/scale.rise -o "$TMP/$f"
    has "-o $f: says why" "$TMP/err" "^patc: error: cannot write '$TMP/$f': $why\$"
done <<<"$outs"
[ -d "$TMP/adir" ] && [ -p "$TMP/fifo" ] && pass "refused outputs left as they were" || fail "refused outputs left as they were"
expect "--output /dev/null" 0 timeout 10 "$PATC" run examples/scale.rise -D n=10 --input random --cpu --output /dev/null
expect "-o /dev/null" 0 timeout 10 "$PATC" --emit-cuda examples/scale.rise -o /dev/null
expect "-o /dev/stdout" 0 timeout 10 "$PATC" --emit-cuda examples/scale.rise -o /dev/stdout
has "-o /dev/stdout: the CUDA C on stdout" "$TMP/out" '__global__ void scale\('
# a regular output file is emptied first: what was longer is not left with a tail
head -c 100000 /dev/zero >"$TMP/long.out"
expect "-o over a longer file" 0 "$PATC" --emit-cuda examples/scale.rise -o "$TMP/long.out"
"$PATC" --emit-cuda examples/scale.rise >"$TMP/want.out"
if cmp -s "$TMP/long.out" "$TMP/want.out"; then pass "-o over a longer file: exactly the output"; else fail "-o over a longer file: exactly the output"; fi
head -c 100000 /dev/zero >"$TMP/long.bin"
expect "--output over a longer file" 0 "$PATC" run examples/scale.rise -D n=10 --input random --cpu --output "$TMP/long.bin"
size=$(stat -c %s "$TMP/long.bin")
if [ "$size" = 40 ]; then pass "--output over a longer file: 40 bytes"; else fail "--output over a longer file: $size bytes, want 40"; fi
# a FIFO with a reader (this shell, read and write so that its open does not wait)
exec 3<>"$TMP/fifo"
expect "--output to a FIFO with a reader" 0 timeout 10 "$PATC" run examples/scale.rise -D n=10 --input value:1.5 --cpu --output "$TMP/fifo"
if [ "$(timeout 5 head -c 40 <&3 | od -An -v -f | tr -s ' \n' ' ')" = " 3 3 3 3 3 3 3 3 3 3 " ]; then
    pass "--output to a FIFO: the reader gets ten 3s"; else fail "--output to a FIFO: the reader gets ten 3s"; fi
expect "-o to a FIFO with a reader" 0 timeout 10 "$PATC" --emit-cuda examples/scale.rise -o "$TMP/fifo"
timeout 5 head -c "$(stat -c %s "$TMP/want.out")" <&3 >"$TMP/got.out"
if cmp -s "$TMP/got.out" "$TMP/want.out"; then pass "-o to a FIFO: the reader gets the CUDA C"; else fail "-o to a FIFO: the reader gets the CUDA C"; fi
exec 3<&-
# stdout that cannot be written (a full disk) is an error, as -o FILE's is
if [ -w /dev/full ]; then
    for args in "--emit-cuda examples/scale.rise" "--emit-ir examples/scale.rise" \
                "run examples/scale.rise -D n=10 --input random --cpu"; do
        # shellcheck disable=SC2086
        "$PATC" $args >/dev/full 2>"$TMP/err"
        rc=$?
        if [ $rc = 1 ] && grep -q 'cannot write to standard output' "$TMP/err"; then pass "stdout full: $args"
        else fail "stdout full: $args (exit $rc)"; fi
    done
else
    echo "SKIP: stdout write errors (no /dev/full)"
fi
# patc tune --algo: the ready-made algorithms' tuner
expect "tune --algo unknown" 2 "$PATC" tune --algo sort
has "tune --algo unknown: lists the names" "$TMP/err" 'inclusive_scan, exclusive_scan, filter'
expect "tune --algo with a FILE" 2 "$PATC" tune examples/scan_device.rise --algo reduce
has "tune --algo with a FILE: says why" "$TMP/err" 'no FILE, --kernel or --scan with it'
expect "tune --type without --algo" 2 "$PATC" tune --type f32
expect "tune --algo bad type" 2 "$PATC" tune --algo reduce --type f16

# 5. --random is deterministic
"$PATC" run examples/scale.rise --kernel scale -D n=1000 --input random --cpu >"$TMP/a" 2>&1
"$PATC" run examples/scale.rise --kernel scale -D n=1000 --input random --cpu >"$TMP/b" 2>&1
if cmp -s "$TMP/a" "$TMP/b"; then pass "random input is reproducible"; else fail "random input differs between runs"; fi

# 6. --reduce --cpu against an independent double sum of the same file
if command -v python3 >/dev/null; then
    for n in 1 1000 100003; do
        want=$(python3 - "$TMP/in.bin" "$n" <<'PY'
import random, struct, sys
random.seed(7)
xs = [struct.unpack('<f', struct.pack('<f', random.random()))[0] for _ in range(int(sys.argv[2]))]
open(sys.argv[1], 'wb').write(struct.pack('<%df' % len(xs), *xs))
print(repr(sum(xs)))
PY
)
        # without --reduce the partials add up to the same total
        for flag in --reduce ""; do
            # shellcheck disable=SC2086
            expect "reduce n=$n $flag" 0 "$PATC" run examples/reduce_device_naive.rise --kernel reduceNaive -D n=$n --input "$TMP/in.bin" --cpu $flag
            got=$(sed -n 's/^sum: //p' "$TMP/out")
            if python3 -c "import sys; g, w = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(g - w) / max(abs(w), 1e-30) > 1e-5)" "$got" "$want"; then
                pass "reduce n=$n $flag: $got ~ $want"
            else fail "reduce n=$n $flag: $got vs $want"; fi
        done
    done
else
    echo "SKIP: reduction reference (no python3)"
fi

# 6a. a scalar parameter by value (saxpy) and a kernel of two outputs (minmax_pair),
# against python; the --input value:X and per-output --output forms
expect "saxpy value" 0 "$PATC" run examples/saxpy.rise -D n=3 --input value:2.5 --input value:2 --input value:-1 --cpu
has "saxpy value: 2.5*2-1" "$TMP/out" '^first: 4 4 4$'
expect "value: not a number" 2 "$PATC" run examples/saxpy.rise -D n=3 --input value:x2 --input random --input random --cpu
has "value: message" "$TMP/err" "^patc: error: input 1: 'value:x2' is not a f32 value$"
expect "value: empty" 2 "$PATC" run examples/saxpy.rise -D n=3 --input value: --input random --input random --cpu
expect "value: i32 range" 2 "$PATC" run examples/reduce_block_shfl.rise --kernel reduceShflI32 -D n=3 --input value:4294967296 --cpu
expect "value: i32 fills an array" 0 "$PATC" run examples/reduce_block_shfl.rise --kernel reduceShflI32 -D n=5 --input value:-7 --cpu
has "value: i32 sum" "$TMP/out" '^value: -35$'
expect "scalar input too short" 1 "$PATC" run examples/saxpy.rise -D n=3 --input "$TMP/short.bin" --input random --input random --cpu
expect "two outputs, one --output" 2 "$PATC" run tests/programs/minmax_pair.rise -D m=2 --input random --cpu --output "$TMP/o0.bin"
has "two outputs, one --output: message" "$TMP/err" 'kernel minmaxPair has 2 outputs but 1 --output option was given'
expect "two outputs: summaries" 0 "$PATC" run tests/programs/minmax_pair.rise -D m=2 --input random --cpu
has "two outputs: out0" "$TMP/out" '^out0: output: f32, 2 elements$'
has "two outputs: out1" "$TMP/out" '^out1: sum: '
# the fixes the errors for an array-of-pairs result suggest (tests/err/result_pair_array*.rise) compile and run
expect "array-of-pairs result: the suggested fix runs" 0 "$PATC" run tests/programs/pair_outputs_fix.rise --kernel fixed -D n=5 --input random --cpu
has "the suggested fix: three outputs" "$TMP/out" 'out2'
expect "array-of-nested-pairs result: the suggested fix runs" 0 "$PATC" run tests/programs/pair_outputs_fix.rise --kernel fixedMaps -D n=5 --input random --cpu
has "the suggested fix (maps): three outputs" "$TMP/out" 'out2'
if command -v python3 >/dev/null; then
    for n in 1 31 1000 4097; do
        python3 - "$TMP" "$n" <<'PY'
import random, struct, sys
d, n = sys.argv[1], int(sys.argv[2])
random.seed(n)
f = lambda v: struct.unpack('<f', struct.pack('<f', v))[0]
a = f(random.uniform(-4, 4))
xs = [f(random.uniform(-10, 10)) for _ in range(n)]
ys = [f(random.uniform(-10, 10)) for _ in range(n)]
open(d + '/a.bin', 'wb').write(struct.pack('<f', a))
open(d + '/x.bin', 'wb').write(struct.pack('<%df' % n, *xs))
open(d + '/y.bin', 'wb').write(struct.pack('<%df' % n, *ys))
open(d + '/want.bin', 'wb').write(struct.pack('<%df' % n, *[f(f(a * x) + y) for x, y in zip(xs, ys)]))
m = (n + 255) // 256
zs = [f(random.uniform(-10, 10)) for _ in range(m * 256)]
open(d + '/z.bin', 'wb').write(struct.pack('<%df' % len(zs), *zs))
rows = [zs[i * 256:(i + 1) * 256] for i in range(m)]
open(d + '/min.bin', 'wb').write(struct.pack('<%df' % m, *[min(r) for r in rows]))
open(d + '/max.bin', 'wb').write(struct.pack('<%df' % m, *[max(r) for r in rows]))
PY
        expect "saxpy n=$n" 0 "$PATC" run examples/saxpy.rise -D n=$n --input "$TMP/a.bin" --input "$TMP/x.bin" --input "$TMP/y.bin" --cpu --output "$TMP/got.bin"
        if cmp -s "$TMP/got.bin" "$TMP/want.bin"; then pass "saxpy n=$n: a * x + y"; else fail "saxpy n=$n: a * x + y"; fi
        m=$(( (n + 255) / 256 ))
        expect "minmax m=$m" 0 "$PATC" run tests/programs/minmax_pair.rise -D m=$m --input "$TMP/z.bin" --cpu --output "$TMP/o0.bin" --output "$TMP/o1.bin"
        if cmp -s "$TMP/o0.bin" "$TMP/min.bin" && cmp -s "$TMP/o1.bin" "$TMP/max.bin"; then
            pass "minmax m=$m: out0 min, out1 max"; else fail "minmax m=$m: out0 min, out1 max"; fi
    done
else
    echo "SKIP: saxpy and minmax references (no python3)"
fi

# 6b. patc run never changes what a kernel means: a kernel with one input and a shorter
# output is run once without --reduce (its partials), checked against python
if command -v python3 >/dev/null; then
    cat >"$TMP/blockmax.rise" <<EOF
import "$PWD/patterns/reduce.rise"
-- per-block maximum: 256 elements per block, one partial per block
kernel blockMax = nFun(n =>
  fun(n.f32)(xs =>
    xs |> reduceDevice(n, 256, reduceBlockNaive(max, 0.0f, 1), 0.0f)))
EOF
    cat >"$TMP/usum.rise" <<'EOF'
-- per-thread unrolled sum (seed 003): thread j sums xs[j + t*i] for i < uf, t = n / uf
kernel unrolledSum = nFun(uf => nFun(n =>
  fun(n.f32)(xs =>
    xs |> take(uf * (n / uf)) |> split(n / uf) |> transpose
       |> mapGlobal(fun(col => col |> reduceSeq(add)(0.0f))))))
EOF
    mkin() { python3 - "$1" "$2" <<'PY'
import random, struct, sys
random.seed(11)
n = int(sys.argv[2])
xs = [struct.unpack('<f', struct.pack('<f', random.random()))[0] for _ in range(n)]
open(sys.argv[1], 'wb').write(struct.pack('<%df' % n, *xs))
PY
    }
    # outcmp NAME FILE PYEXPR: the --output file holds exactly the f32 list PYEXPR of xs
    outcmp() {
        if python3 - "$TMP/in.bin" "$2" "$3" <<'PY'
import struct, sys
raw = open(sys.argv[1], 'rb').read()
xs = list(struct.unpack('<%df' % (len(raw) // 4), raw))
def f32(v): return struct.unpack('<f', struct.pack('<f', v))[0]
def fsum(vs):
    acc = 0.0
    for v in vs: acc = f32(acc + v)
    return acc
want = [f32(w) for w in eval(sys.argv[3])]
got_raw = open(sys.argv[2], 'rb').read()
got = list(struct.unpack('<%df' % (len(got_raw) // 4), got_raw))
if got != want: print('    got', got, 'want', want)
sys.exit(0 if got == want else 1)
PY
        then pass "$1"; else fail "$1"; fi
    }
    mkin "$TMP/in.bin" 1000
    expect "blockMax without --reduce" 0 "$PATC" run "$TMP/blockmax.rise" -D n=1000 --input "$TMP/in.bin" --cpu --output "$TMP/o.bin"
    outcmp "blockMax: its 4 per-block maxima" "$TMP/o.bin" '[max(xs[b*256:(b+1)*256]) for b in range(4)]'
    expect "blockMax summary" 0 "$PATC" run "$TMP/blockmax.rise" -D n=1000 --input "$TMP/in.bin" --cpu
    has "blockMax summary: 4 elements" "$TMP/out" '^output: f32, 4 elements$'
    expect "blockMax --reduce" 0 "$PATC" run "$TMP/blockmax.rise" -D n=1000 --input "$TMP/in.bin" --cpu --reduce --output "$TMP/o.bin"
    outcmp "blockMax --reduce: the maximum" "$TMP/o.bin" '[max(xs)]'
    mkin "$TMP/in.bin" 19
    expect "unrolled sum uf=8 n=19" 0 "$PATC" run "$TMP/usum.rise" -D uf=8 -D n=19 --input "$TMP/in.bin" --cpu --output "$TMP/o.bin"
    outcmp "unrolled sum uf=8 n=19: its 2 partials" "$TMP/o.bin" '[fsum(xs[j + 2*i] for i in range(8)) for j in range(2)]'
    expect "unrolled sum --reduce" 1 "$PATC" run "$TMP/usum.rise" -D uf=8 -D n=19 --input "$TMP/in.bin" --cpu --reduce
    has "unrolled sum --reduce: not a pass" "$TMP/err" '^patc: error: .*maps 2 elements to 0: not a reduction pass$'
else
    echo "SKIP: kernels whose output is shorter than their input (no python3)"
fi

# 6c. -D rules and modes (patc run and patc --emit-cuda)
expect "run -D twice" 2 "$PATC" run examples/scale.rise -D n=5 -D n=6 --input random --cpu
has "run -D twice: message" "$TMP/err" '^patc: error: -D n is given twice \(5 and 6\)$'
expect "emit -D twice" 2 "$PATC" --emit-cuda -D n=5 -D n=6 examples/scale.rise
has "emit -D twice: message" "$TMP/err" '^patc: -D n is given twice'
expect "run -D n=0" 2 "$PATC" run examples/scale.rise -D n=0 --input random --cpu
has "run -D n=0: message" "$TMP/err" 'nat parameters are at least 1'
expect "emit -D n=0" 2 "$PATC" --emit-cuda -D n=0 examples/scale.rise
has "emit -D n=0: message" "$TMP/err" 'nat parameters are at least 1'
expect "check -D n=2^62" 0 "$PATC" --check -D n=4611686018427387904 examples/scale.rise
expect "check -D n=2^62+1" 2 "$PATC" --check -D n=4611686018427387905 examples/scale.rise
has "check -D n=2^62+1: message" "$TMP/err" 'above 2\^62'
expect "check -D n=huge" 2 "$PATC" --check -D n=99999999999999999999999 examples/scale.rise
expect "run -D n=2^62+1" 2 "$PATC" run examples/scale.rise -D n=4611686018427387905 --input random --cpu
# at most 64 of each repeated option, and the message says so
many() { for i in $(seq 1 65); do printf '%s\n' "$1" "$2$i${3-}"; done; }
mapfile -t manyI < <(many -I "$TMP/inc")
mapfile -t manyD < <(many -D m =1)
mapfile -t manyIn < <(many --input value:)
mapfile -t manyOut < <(many --output "$TMP/o")
expect "65 -I" 2 "$PATC" --check "${manyI[@]}" examples/scale.rise
has "65 -I: message" "$TMP/err" '^patc: too many -I options \(at most 64\)$'
expect "65 -D" 2 "$PATC" --check "${manyD[@]}" examples/scale.rise
has "65 -D: message" "$TMP/err" 'too many -D options \(at most 64\)'
expect "run: 65 -I" 2 "$PATC" run examples/scale.rise "${manyI[@]}" -D n=4 --input random --cpu
has "run: 65 -I: message" "$TMP/err" '^patc: error: too many -I options \(at most 64\)$'
expect "run: 65 --input" 2 "$PATC" run examples/scale.rise -D n=4 "${manyIn[@]}" --cpu
has "run: 65 --input: message" "$TMP/err" '^patc: error: too many --input options \(at most 64\)$'
expect "run: 65 --output" 2 "$PATC" run examples/scale.rise -D n=4 --input random "${manyOut[@]}" --cpu
has "run: 65 --output: message" "$TMP/err" '^patc: error: too many --output options \(at most 64\)$'
for modes in "--emit-cuda --check" "--emit-ir --emit-cuda" "--check --emit-ir" "--emit-cuda --emit-ir"; do
    # shellcheck disable=SC2086
    expect "modes $modes" 2 "$PATC" $modes examples/scale.rise
    has "modes $modes: message" "$TMP/err" 'exclude each other'
    if [ -s "$TMP/out" ]; then fail "modes $modes: nothing on stdout"; else pass "modes $modes: nothing on stdout"; fi
done
expect "the same mode twice" 0 "$PATC" --check --check examples/scale.rise

# 6d. the Hillis-Steele warp scan on the CPU: each warp's 32 outputs are the inclusive
# prefix sums of its 32 inputs, computed here sequentially (exact for i32)
if command -v python3 >/dev/null; then
    for nk in "1 scanUp i" "7 scanUp i" "7 scanTake i" "3 scanTakeWritten i" "5 scanUpF32 f"; do
        set -- $nk
        python3 - "$TMP/scan_in.bin" "$1" "$3" <<'PY'
import random, struct, sys
random.seed(5)
n = 32 * int(sys.argv[2])
xs = [random.randint(-1000, 1000) for _ in range(n)] if sys.argv[3] == 'i' else [random.random() for _ in range(n)]
open(sys.argv[1], 'wb').write(struct.pack('<%d%s' % (n, sys.argv[3]), *xs))
PY
        rm -f "$TMP/o.bin"
        expect "warp scan $2 n=$1" 0 "$PATC" run tests/programs/scan_warp_hs.rise --kernel "$2" -D n="$1" \
            --input "$TMP/scan_in.bin" --cpu --output "$TMP/o.bin"
        if python3 - "$TMP/scan_in.bin" "$TMP/o.bin" "$3" <<'PY'
import struct, sys
t = sys.argv[3]
raw, out = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
xs = struct.unpack('<%d%s' % (len(raw) // 4, t), raw)
got = struct.unpack('<%d%s' % (len(out) // 4, t), out)
want, acc = [], 0
for i, x in enumerate(xs):
    acc = x if i % 32 == 0 else acc + x
    want.append(acc)
ok = len(got) == len(want) and all(g == w if t == 'i' else abs(g - w) <= 1e-5 * max(abs(w), 1) for g, w in zip(got, want))
if not ok: print('    got', list(got[:40]), 'want', want[:40])
sys.exit(0 if ok else 1)
PY
        then pass "warp scan $2 n=$1: prefix sums of each warp"; else fail "warp scan $2 n=$1: prefix sums of each warp"; fi
    done
else
    echo "SKIP: warp scan reference (no python3)"
fi
# 6e. sequential scans and a reduceSeq with an array accumulator on the CPU, against an
# independent computation: each thread scans its 8 elements (inclusive or exclusive),
# or folds 8 rows of 4 columns into 4 sums (colSums4) or into new[c] = old[c-1] + row[c]
# (shiftSums4)
if command -v python3 >/dev/null; then
    for nk in "1 scanInclI32 i 8" "5 scanInclI32 i 8" "5 scanInclF32 f 8" "3 scanExclI32 i 8" "6 scanExclF32 f 8" \
              "4 scanMaxPrivate i 8" "3 colSums4 f 32" "7 shiftSums4 i 32"; do
        set -- $nk
        python3 - "$TMP/sseq_in.bin" "$(( $1 * $4 ))" "$3" <<'PY'
import random, struct, sys
random.seed(11)
n = int(sys.argv[2])
xs = [random.randint(-1000, 1000) for _ in range(n)] if sys.argv[3] == 'i' else [random.random() for _ in range(n)]
open(sys.argv[1], 'wb').write(struct.pack('<%d%s' % (n, sys.argv[3]), *xs))
PY
        rm -f "$TMP/o.bin"
        expect "scanseq $2 n=$1" 0 "$PATC" run tests/programs/scanseq.rise --kernel "$2" -D n="$1" \
            --input "$TMP/sseq_in.bin" --cpu --output "$TMP/o.bin"
        if python3 - "$TMP/sseq_in.bin" "$TMP/o.bin" "$3" "$2" <<'PY'
import struct, sys
t, k = sys.argv[3], sys.argv[4]
raw, out = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
xs = struct.unpack('<%d%s' % (len(raw) // 4, t), raw)
got = struct.unpack('<%d%s' % (len(out) // 4, t), out)
want = []
if k.startswith('scan'):
    for b in range(0, len(xs), 8):
        acc = -2147483647 if k == 'scanMaxPrivate' else 0
        for x in xs[b:b + 8]:
            if k.startswith('scanExcl'):
                want.append(acc); acc += x
            elif k == 'scanMaxPrivate':
                acc = max(acc, x); want.append(2 * acc)
            else:
                acc += x; want.append(acc)
else:
    for b in range(0, len(xs), 32):
        acc = [0, 0, 0, 0]
        for r in range(b, b + 32, 4):
            row = xs[r:r + 4]
            acc = [a + x for a, x in zip(acc, row)] if k == 'colSums4' else [(acc[c - 1] if c else 0) + row[c] for c in range(4)]
        want += acc
ok = len(got) == len(want) and all(g == w if t == 'i' else abs(g - w) <= 1e-5 * max(abs(w), 1) for g, w in zip(got, want))
if not ok: print('    got', list(got[:40]), 'want', want[:40])
sys.exit(0 if ok else 1)
PY
        then pass "scanseq $2 n=$1: values"; else fail "scanseq $2 n=$1: values"; fi
    done
else
    echo "SKIP: scanseq reference (no python3)"
fi
expect "scanseq random input" 0 "$PATC" run tests/programs/scanseq.rise --kernel scanInclF32 -D n=100 --input random --cpu
has "scanseq random input: output" "$TMP/out" '^output: f32, 800 elements$'
# shared memory past 48 KiB runs (here on the CPU; tests/gpu/all.sh on the device), past
# sm_90's opt-in maximum it is the compiler's error at the toShared
expect "smem at the maximum" 0 "$PATC" run tests/programs/big_shared.rise --kernel transposeTile -D n=2 -D r=227 -D c=256 --input random --cpu
has "smem at the maximum: output" "$TMP/out" '^output: f32, 116224 elements$'
expect "smem two live" 0 "$PATC" run tests/programs/big_shared.rise --kernel twoLive -D n=2 -D m=29056 --input random --cpu
expect "smem over the maximum" 1 "$PATC" run tests/programs/big_shared.rise --kernel twoLive -D n=2 -D m=29057 --input random --cpu
has "smem over the maximum: message" "$TMP/err" 'big_shared.rise:15:43: error: shared memory over budget: .* 232480 bytes, .* 232448 bytes'

# gather and scatter by a permutation (examples/gather_scatter.rise) against python3:
# permute gives ys[i] = xs[p[i]] exactly, unpermute gives xs back exactly; then the
# interpreter's errors for an index outside the array and two writes to one position
if command -v python3 >/dev/null; then
    for n in 1 31 33 1000 4097; do
        python3 - "$n" "$TMP" <<'PY'
import random, struct, sys
n, d = int(sys.argv[1]), sys.argv[2]
r = random.Random(n)
p = list(range(n)); r.shuffle(p)
xs = [r.uniform(-1, 1) for _ in range(n)]
open(d + "/p.bin", "wb").write(struct.pack("<%di" % n, *p))
open(d + "/xs.bin", "wb").write(struct.pack("<%df" % n, *xs))
xs32 = struct.unpack("<%df" % n, struct.pack("<%df" % n, *xs))
open(d + "/ys_ref.bin", "wb").write(struct.pack("<%df" % n, *[xs32[p[i]] for i in range(n)]))
PY
        expect "gather n=$n" 0 "$PATC" run examples/gather_scatter.rise --kernel permute -D n="$n" --input "$TMP/p.bin" --input "$TMP/xs.bin" --cpu --output "$TMP/ys.bin"
        if cmp -s "$TMP/ys.bin" "$TMP/ys_ref.bin"; then pass "gather n=$n: ys[i] = xs[p[i]]"; else fail "gather n=$n: ys[i] = xs[p[i]]"; fi
        expect "scatter n=$n" 0 "$PATC" run examples/gather_scatter.rise --kernel unpermute -D n="$n" --input "$TMP/p.bin" --input "$TMP/ys.bin" --cpu --output "$TMP/back.bin"
        if cmp -s "$TMP/back.bin" "$TMP/xs.bin"; then pass "scatter n=$n: the input back"; else fail "scatter n=$n: the input back"; fi
    done
    python3 -c "import struct; open('$TMP/bad.bin','wb').write(struct.pack('<5i', 0, 1, 5, 2, 3))"
    expect "idx out of range" 1 "$PATC" run tests/programs/idx_pick.rise --kernel pick -D n=5 --input "$TMP/bad.bin" --input random --cpu
    has "idx out of range: message" "$TMP/err" 'idx_pick.rise:2:[0-9]+: idx: index 5 is outside the array of length 5'
    expect "gather out of range" 1 "$PATC" run examples/gather_scatter.rise --kernel permute -D n=5 --input "$TMP/bad.bin" --input random --cpu
    has "gather out of range: message" "$TMP/err" 'gather: index 5 \(element 2 of the indices\) is outside the array of length 5'
    python3 -c "import struct; open('$TMP/dup.bin','wb').write(struct.pack('<5i', 0, 1, 1, 2, 3))"
    expect "scatter twice" 1 "$PATC" run examples/gather_scatter.rise --kernel unpermute -D n=5 --input "$TMP/dup.bin" --input random --cpu
    has "scatter twice: message" "$TMP/err" 'scatter: elements 1 and 2 of the indices both write position 1'
    python3 -c "import struct; open('$TMP/sel.bin','wb').write(struct.pack('<4f', 0.9, 0.1, 0.8, 0.7))"
    expect "compactTo with a wrong count" 1 "$PATC" run tests/programs/compact_wrong_count.rise --kernel wrongCount -D n=4 --input "$TMP/sel.bin" --cpu
    has "compactTo with a wrong count: message" "$TMP/err" 'compactTo: record 1 says 0 selected records come before it, but 1 do'
    expect "partitionStableTo with a wrong count" 1 "$PATC" run tests/programs/compact_wrong_count.rise --kernel wrongGiven -D n=4 --input "$TMP/sel.bin" --cpu
    has "partitionStableTo with a wrong count: message" "$TMP/err" 'partitionStableTo: the count given is 3, but 2 of the 4 records are selected'
    expect "partitionStablePipe with a wrong count" 1 "$PATC" run tests/programs/partition_given.rise --kernel givenPipeF32 -D n=4 --input value:0.5 --input value:2 --input "$TMP/sel.bin" --cpu
    has "partitionStablePipe with a wrong count: message" "$TMP/err" 'partitionStablePipe: the count given is 2, but the predicate selects 3 of the 4 elements'
    # two others, so that their order shows (partitionPipe's reversed order would be 0.2, 0.1)
    python3 -c "import struct; open('$TMP/two.bin','wb').write(struct.pack('<4f', 0.9, 0.1, 0.8, 0.2))"
    expect "partitionStablePipe with the right count" 0 "$PATC" run tests/programs/partition_given.rise --kernel givenPipeF32 -D n=4 --input value:0.5 --input value:2 --input "$TMP/two.bin" --cpu --output "$TMP/c.bin" --output "$TMP/p.bin"
    python3 -c "import struct; v = struct.unpack('<4f', open('$TMP/p.bin','rb').read()); exit(0 if [round(x, 3) for x in v] == [0.9, 0.8, 0.1, 0.2] else 1)" \
        && pass "partitionStablePipe: the others in order" || fail "partitionStablePipe: the others in order"
else
    echo "SKIP: gather/scatter reference (no python3)"
fi

# 7. no leaks on the CPU path (still-reachable blocks are libnvrtc's static initialisers).
# Not in a sanitizer build: valgrind cannot run an AddressSanitizer binary (it stops at
# once, which must not pass for a clean run), and ASan checks those runs there anyway.
valgrind_ok=
if grep -q __asan_init "$PATC"; then
    echo "SKIP: valgrind (a sanitizer build: AddressSanitizer checks instead)"
elif command -v valgrind >/dev/null; then
    valgrind_ok=1
else
    echo "SKIP: valgrind (not installed)"
fi
# RC ARGS: the exit status each run must have (valgrind's own, on an error, is 99)
valgrind_runs() {
    local env=$1 what=$2 want args rc
    while read -r want args; do
        # shellcheck disable=SC2086
        env $env valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 "$PATC" run $args >/dev/null 2>"$TMP/vg"
        rc=$?
        if [ "$rc" = "$want" ]; then pass "valgrind$what: $args"; else
            fail "valgrind$what: $args (exit $rc, want $want)"; sed 's/^/    /' "$TMP/vg" | head -20
        fi
    done
}
if [ -n "$valgrind_ok" ]; then
    valgrind_runs "" "" <<RUNS
0 examples/scale.rise --kernel scale -D n=100 --input random --cpu --time
0 examples/reduce_device_naive.rise --kernel reduceNaive -D n=3000 --input random --cpu --reduce
1 examples/scale.rise --kernel scale -D n=10 --input $TMP/short.bin --cpu
0 tests/programs/minmax_pair.rise -D m=3 --input random --cpu
0 examples/saxpy.rise -D n=3 --input value:2 --input random --input random --cpu
1 examples/scale.rise -D n=10 --input $TMP/fifo --cpu
1 examples/scale.rise -D n=10 --input random --cpu --output $TMP/fifo
0 examples/scale.rise -D n=10 --input random --cpu --output /dev/null
RUNS
fi

# 8. the GPU path against a driver that runs nothing (its memory holds 0xa5 bytes):
# --check-against-cpu must fail, a count past the output must be refused, and the
# launch path must be free of leaks and bad accesses
if [ -n "$FAKE" ]; then
    fake() { LD_LIBRARY_PATH="$FAKE" "$@"; }
    expect "fake driver: a wrong result fails the check" 1 fake "$PATC" run examples/scale.rise -D n=1000 --input random --check-against-cpu
    has "fake driver: the check's verdict" "$TMP/out" 'max relative error: 1 \(tolerance 1e-05\): FAIL'
    expect "fake driver: --tolerance" 1 fake "$PATC" run examples/scale.rise -D n=1000 --input random --check-against-cpu --tolerance 0.5
    has "fake driver: --tolerance's verdict" "$TMP/out" 'max relative error: 1 \(tolerance 0.5\): FAIL'
    expect "fake driver: a count past the output is refused" 1 fake "$PATC" run examples/filter.rise --kernel filterGtF32 -D nt=128 -D ipt=16 -D n=1000 --input value:0.5 --input random
    has "fake driver: the count's message" "$TMP/err" 'the GPU: out0 says 2779096485 elements of out1 are the result, but it has room for 1000'
    expect "fake driver: --time" 0 fake "$PATC" run examples/scale.rise -D n=1000 --input random --time --repeat 5
    has "fake driver: --time's line" "$TMP/out" '^kernel time: [0-9.]+ ms \(median of 5 runs after 3 warm-up runs\)'
    # NVRTC's message names the --cuda file and the line in it (with --reduce the 32-bit
    # build has PATC_INDEX32 defined ahead of the text, which once shifted it by one)
    printf '// line 1\n// line 2\nextern "C" __global__ void k(float *out) { out[0] = oops; }\n' >"$TMP/third.cu"
    expect "fake driver: --cuda with an error" 1 fake "$PATC" run examples/reduce_device_naive.rise --reduce -D n=1000 --input random --cuda "$TMP/third.cu"
    has "fake driver: --cuda's error at its file and line" "$TMP/err" 'third\.cu\(3\): error: identifier "oops" is undefined'
    # patc tune --out: refused at once, before any tuning, when it cannot take the lines
    # (a FIFO that nothing reads waited for a reader); /dev/null takes them
    tune_algo() { timeout 60 env LD_LIBRARY_PATH="$FAKE" "$PATC" tune --algo reduce --type f32 --min-log 10 --max-log 10 --reps 2 --out "$@"; }
    expect "fake driver: tune --out a directory" 1 tune_algo "$TMP/adir"
    has "fake driver: tune --out a directory: says why" "$TMP/err" "^patc tune: error: cannot write $TMP/adir: a directory, not a regular file\$"
    expect "fake driver: tune --out a FIFO" 1 tune_algo "$TMP/fifo"
    has "fake driver: tune --out a FIFO: says why" "$TMP/err" "^patc tune: error: cannot write $TMP/fifo: a FIFO that no process has open for reading\$"
    expect "fake driver: tune --out /dev/null" 0 tune_algo /dev/null
    if [ -n "$valgrind_ok" ]; then
        valgrind_runs "LD_LIBRARY_PATH=$FAKE" ", fake driver" <<'RUNS'
1 examples/scale.rise -D n=1000 --input random --check-against-cpu --time
0 examples/scan_device.rise --kernel exclSumI32 -D nt=128 -D ipt=9 -D n=5000 --input random
1 examples/filter.rise --kernel filterGtF32 -D nt=128 -D ipt=16 -D n=1000 --input value:0.5 --input random
RUNS
    fi
else
    echo "SKIP: the fake driver (no FAKECUDA_DIR)"
fi

echo "$fails failure(s)"
[ "$fails" = 0 ]
