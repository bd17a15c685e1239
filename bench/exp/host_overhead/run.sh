#!/usr/bin/env bash
# run.sh BUILD_DIR [R]: host_overhead.c built against BUILD_DIR's libpatrt.a and run
# against BUILD_DIR's stand-in driver (tests/fakecuda), R calls a round (200000).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
B=$(cd "${1:?usage: run.sh BUILD_DIR [R]}" && pwd)
R=${2:-200000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -std=c11 -D_POSIX_C_SOURCE=199309L -I"$root/runtime" "$here/host_overhead.c" "$B/runtime/libpatrt.a" -lm -ldl -lpthread -o "$tmp/ho"
PATC_CACHE_DIR="$tmp/cache" LD_LIBRARY_PATH="$B/runtime/fakecuda" "$tmp/ho" "$root/examples/filter.rise" "$R"
