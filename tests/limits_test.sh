#!/usr/bin/env bash
# limits_test.sh PATC: inputs that once crashed, aborted or hung patc end quickly with a
# clear error (or compile) through the CLI: import chains, definitions that blow up on
# expansion, deep nesting after expansion, 130,000 kernels, files that are not regular
# or too large, very long tokens. Every command runs under a timeout, so a hang fails
# (exit 124) instead of stalling the suite. The C API side is tests/test_limits.c.
# Exit 0 when all pass, 1 otherwise.
set -u
PATC=${1:?usage: limits_test.sh PATC}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; fails=$((fails + 1)); }

# expect NAME RC CMD...: CMD exits with RC within 60 s (ASan builds included)
expect() {
    local name=$1 want=$2
    shift 2
    local t0=$SECONDS
    timeout 60 "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    local rc=$?
    if [ "$rc" = "$want" ]; then pass "$name ($((SECONDS - t0)) s)"; else
        fail "$name (exit $rc, want $want)"; sed 's/^/    /' "$TMP/err" | head -5
    fi
}
# has NAME REGEX: the last command's stderr matches
has() { if grep -Eq -- "$2" "$TMP/err"; then pass "$1"; else fail "$1 (no /$2/ in stderr)"; sed 's/^/    /' "$TMP/err" | head -5; fi; }

KERNEL='kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2.0f))))'

# 1. 2000 files each importing the next: an error at the 64th import, no stack overflow
mkdir "$TMP/chain"
for i in $(seq 0 1999); do echo "import \"m$((i + 1)).rise\"" >"$TMP/chain/m$i.rise"; done
echo 'def d = 1.0f' >"$TMP/chain/m2000.rise"
echo "$KERNEL" >>"$TMP/chain/m0.rise"
expect "import chain of 2000" 1 "$PATC" --check "$TMP/chain/m0.rise"
has "import chain: message at the import line" 'm64\.rise:1:8: error: imports nested more than 64 deep'
expect "import chain, run --cpu" 1 "$PATC" run "$TMP/chain/m0.rise" -D n=4 --input random --cpu
has "import chain, run --cpu: message" 'imports nested more than 64 deep'
# 64 levels are fine
echo 'def d = 1.0f' >"$TMP/chain/m64.rise"
expect "import chain of 64" 0 "$PATC" --check "$TMP/chain/m0.rise"
# a cycle is read once per file
printf 'import "b.rise"\ndef fa = fun(x => x * 2.0f)\n%s\n' "$KERNEL" >"$TMP/a.rise"
printf 'import "a.rise"\ndef fb = 1.0f\n' >"$TMP/b.rise"
expect "import cycle" 0 "$PATC" --check "$TMP/a.rise"

# 2. each definition uses the previous one twice, 24 levels (2^24 copies)
{
    echo 'def g0 = fun(x => x + 1.0f)'
    for i in $(seq 1 24); do echo "def g$i = fun(x => g$((i - 1))(g$((i - 1))(x)))"; done
    echo 'kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(g24)))'
} >"$TMP/blow.rise"
expect "expansion blow-up" 1 "$PATC" --emit-cuda "$TMP/blow.rise"
has "expansion blow-up: message at the kernel" "blow\.rise:26:8: error: expanding kernel 'k' makes more than 1000000 nodes; definition 'g0' is used [0-9]+ times"
has "expansion blow-up: note at the definition" "blow\.rise:1:5: note: 'g0' is defined here"
expect "expansion blow-up, run --cpu" 1 "$PATC" run "$TMP/blow.rise" -D n=4 --input random --cpu
has "expansion blow-up, run --cpu: message" 'makes more than 1000000 nodes'

# 3. deep nesting after expansion: 14 levels nest the body 16384 deep through every
#    pass (typecheck, lower, codegen, the interpreter); a chain of 5000 is refused
sed -e '/^def g15 /,$d' "$TMP/blow.rise" >"$TMP/deep14.rise"
echo 'kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(g14)))' >>"$TMP/deep14.rise"
expect "16384 deep after expansion: --emit-cuda" 0 "$PATC" --emit-cuda "$TMP/deep14.rise"
expect "16384 deep after expansion: run --cpu" 0 "$PATC" run "$TMP/deep14.rise" -D n=4 --input random --cpu
{
    echo 'def g0 = fun(x => x + 1.0f)'
    for i in $(seq 1 5000); do echo "def g$i = fun(x => g$((i - 1))(x) + 1.0f)"; done
    echo 'kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(g5000)))'
} >"$TMP/chain5000.rise"
expect "5000 nested definitions" 1 "$PATC" --check "$TMP/chain5000.rise"
has "5000 nested definitions: message" 'error: (program too deeply nested after inlining definitions|expanding kernel .k. makes more than)'

# 4. 130,000 one-line kernels (10 MB): linear declaration handling
awk 'BEGIN { for (i = 1; i <= 130000; i++)
    printf "kernel k%d = fun(f32)(x => x * 2.0f) -- one of 130,000 kernels, padded to about 80 bytes\n", i }' \
    >"$TMP/many.rise"
expect "130,000 kernels" 0 "$PATC" --check "$TMP/many.rise"
echo 'def k7 = 1.0f' >>"$TMP/many.rise"
expect "130,000 kernels and a duplicate" 1 "$PATC" --check "$TMP/many.rise"
has "duplicate: message" "many\.rise:130001:5: error: 'k7' is defined twice"
has "duplicate: note" "many\.rise:7:8: note: first defined here"

# 5. only regular files, at most 64 MiB; each kind of file that is not regular is
#    named, as a source and as an import (the timeout catches a FIFO that blocks)
expect "/dev/zero" 1 "$PATC" --emit-cuda /dev/zero
has "/dev/zero: message" "cannot read '/dev/zero': a character device, not a regular file"
mkfifo "$TMP/fifo"
expect "a FIFO" 1 "$PATC" --check "$TMP/fifo"
has "a FIFO: message" "cannot read '.*/fifo': a FIFO, not a regular file"
expect "a FIFO, run --cpu" 1 "$PATC" run "$TMP/fifo" --cpu
has "a FIFO, run --cpu: message" "a FIFO, not a regular file"
expect "a directory" 1 "$PATC" --check "$TMP"
has "a directory: message" "cannot read '.*': a directory, not a regular file"
ln -s loop "$TMP/loop"
expect "a loop of symbolic links" 1 "$PATC" --check "$TMP/loop"
has "a loop of symbolic links: message" "cannot read '.*/loop': Too many levels of symbolic links"
if command -v python3 >/dev/null && python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/sock"; then
    expect "a socket" 1 "$PATC" --check "$TMP/sock"
    has "a socket: message" "cannot read '.*/sock': a socket, not a regular file"
    printf 'import "sock"\n%s\n' "$KERNEL" >"$TMP/ims.rise"
    expect "import a socket" 1 "$PATC" --check "$TMP/ims.rise"
    has "import a socket: message" "cannot find import \"sock\" \(looked for .*/sock \(a socket, not a regular file\)"
else
    echo "SKIP: a socket as a source (no python3 to make one)"
fi
truncate -s 65M "$TMP/big.rise"
expect "65 MiB file" 1 "$PATC" --check "$TMP/big.rise"
has "65 MiB file: message" "cannot read '.*big\.rise': larger than 64 MiB, the limit for source files"
printf 'import "/dev/zero"\n%s\n' "$KERNEL" >"$TMP/imz.rise"
expect "import /dev/zero" 1 "$PATC" --check "$TMP/imz.rise"
has "import /dev/zero: message" 'imz\.rise:1:8: error: cannot find import "/dev/zero" \(looked for /dev/zero \(a character device, not a regular file\)\)'
printf 'import "fifo"\n%s\n' "$KERNEL" >"$TMP/imf.rise"
expect "import a FIFO" 1 "$PATC" --check "$TMP/imf.rise"
has "import a FIFO: message" '\(a FIFO, not a regular file\)'
mkdir "$TMP/dir.rise"
printf 'import "dir.rise"\n%s\n' "$KERNEL" >"$TMP/imd.rise"
expect "import a directory" 1 "$PATC" --check "$TMP/imd.rise"
has "import a directory: message" '\(a directory, not a regular file\)'
printf 'import "loop"\n%s\n' "$KERNEL" >"$TMP/iml.rise"
expect "import a loop of symbolic links" 1 "$PATC" --check "$TMP/iml.rise"
has "import a loop of symbolic links: message" "iml\.rise:1:8: error: cannot open import '.*/loop': Too many levels of symbolic links"
printf 'import "big.rise"\n%s\n' "$KERNEL" >"$TMP/imb.rise"
expect "import 65 MiB" 1 "$PATC" --check "$TMP/imb.rise"
has "import 65 MiB: message" "imb\.rise:1:8: error: cannot read import '.*big\.rise': larger than 64 MiB"

# 6. a 10 MB identifier is one token (an unknown name), not a flex fatal error
{ printf 'kernel k = '; head -c 10000000 /dev/zero | tr '\0' a; echo; } >"$TMP/longtok.rise"
expect "10 MB token" 1 "$PATC" --check "$TMP/longtok.rise"
has "10 MB token: message" "longtok\.rise:1:12: error: unknown name 'aaaa"

echo "limits: $fails failure(s)"
[ "$fails" = 0 ]
