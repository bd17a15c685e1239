#!/bin/sh
# nvrtc_test.sh PATC SOURCE_DIR
# patc starts and emits CUDA without NVRTC: nothing links libnvrtc, --emit-cuda never
# loads it, and works with NVRTC unavailable (PATC_NVRTC_PATH naming no library);
# `patc run` then fails with the loader's clear error. An unusable cache directory is
# one warning line.
set -u
patc=$1 src=$2
cd "$src" || exit 1
tmp=$(mktemp -d /tmp/patc-nvrtc-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

if ldd "$patc" | grep -q libnvrtc; then fail "patc links libnvrtc: $(ldd "$patc" | grep libnvrtc)"; else ok "patc does not link libnvrtc"; fi

# the dynamic loader's own record of what it opened
LD_DEBUG=files "$patc" --emit-cuda examples/reduce_device_naive.rise >/dev/null 2>"$tmp/ld.log"
if grep -q "libnvrtc" "$tmp/ld.log"; then fail "--emit-cuda loads NVRTC"; else ok "--emit-cuda does not load NVRTC"; fi

PATC_NVRTC_PATH=/nonexistent/libnvrtc.so.13 "$patc" --emit-cuda examples/reduce_device_naive.rise >"$tmp/out.cu" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] || ! cmp -s "$tmp/out.cu" examples/reduce_device_naive.cu; then
    fail "--emit-cuda without NVRTC: exit $rc, $(head -c 300 "$tmp/err")"
else ok "--emit-cuda without NVRTC gives the golden CUDA"; fi

PATC_NVRTC_PATH=/nonexistent/libnvrtc.so.13 "$patc" run examples/scale.rise --kernel scale -D n=10 --input random \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q "no NVIDIA driver\|no CUDA device\|no usable NVIDIA GPU" "$tmp/err"; then
    echo "skipped: patc run without NVRTC (no GPU here: the device check comes first)"
elif [ $rc -eq 1 ] && grep -q "cannot load NVRTC" "$tmp/err" && grep -q "PATC_NVRTC_PATH" "$tmp/err"; then
    ok "patc run without NVRTC: $(cat "$tmp/err")"
else fail "patc run without NVRTC: exit $rc, $(cat "$tmp/err")"; fi

: >"$tmp/file"
PATC_CACHE_DIR=$tmp/file "$patc" run examples/scale.rise --kernel scale -D n=10 --input random >/dev/null 2>"$tmp/err"
n=$(grep -c "^patc: warning: cache directory $tmp/file is unusable" "$tmp/err")
if [ "$n" -ne 1 ]; then fail "cache directory that is a file: $n warnings in: $(cat "$tmp/err")"
else ok "cache directory that is a file: one warning"; fi
PATC_CACHE_DIR=$tmp/fine "$patc" run examples/scale.rise --kernel scale -D n=10 --input random >/dev/null 2>"$tmp/err"
if grep -q "warning" "$tmp/err"; then fail "a usable cache directory warns: $(cat "$tmp/err")"; else ok "a usable cache directory does not warn"; fi

[ $fails -eq 0 ]
