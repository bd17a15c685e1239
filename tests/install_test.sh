#!/bin/sh
# install_test.sh BUILD_DIR SOURCE_DIR [CC]
# Installs the built tree to a temporary prefix, then builds examples/host against
# the installed tree twice: as a separate CMake project (find_package(patc)) and with
# pkg-config. Passes when both build.
set -eu
build=$1 src=$2 cc=${3:-cc}
tmp=$(mktemp -d /tmp/patc-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
test -f "$tmp/prefix/include/patc.h"
cmake -S "$src/examples/host" -B "$tmp/host" -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/cfg.log" 2>&1 ||
    { cat "$tmp/cfg.log"; exit 1; }
cmake --build "$tmp/host" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
test -x "$tmp/host/reduce_host"
test -x "$tmp/host/reduce_host_static"
echo "find_package(patc): built reduce_host and reduce_host_static"
pcdir=$(dirname "$(find "$tmp/prefix" -name patc.pc | head -n 1)")
export PKG_CONFIG_PATH="$pcdir"
"$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/reduce_host_pc" "$src/examples/host/reduce_host.c" \
    $(pkg-config --cflags patc) $(pkg-config --libs patc) -lm
echo "pkg-config: built reduce_host"
# Neither the installed library nor a program built on it needs NVRTC to start.
for f in "$tmp/host/reduce_host" "$tmp/host/reduce_host_static" "$tmp/reduce_host_pc"; do
    if ldd "$f" | grep -q libnvrtc; then echo "$f links libnvrtc:"; ldd "$f"; exit 1; fi
done
echo "no binary links libnvrtc"
# A static link next to a program that defines names the compiler uses internally
# (arena_new, sb_puts) links: libpatrt.a exports only patc_*.
cat >"$tmp/collide.c" <<'EOC'
void *arena_new(void) { return 0; }
void sb_puts(void *b, const char *s) { (void)b; (void)s; }
int nat_add;
EOC
"$cc" -std=c11 -o "$tmp/reduce_host_collide" "$src/examples/host/reduce_host.c" "$tmp/collide.c" \
    $(pkg-config --cflags patc) "$pcdir/../libpatrt.a" $(pkg-config --static --libs-only-l patc | sed 's/-lpatrt//') -lm
echo "static link beside a user's arena_new, sb_puts and nat_add: built"
