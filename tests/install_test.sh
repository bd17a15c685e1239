#!/bin/sh
# install_test.sh BUILD_DIR SOURCE_DIR [CC]
# Installs the built tree to a temporary prefix, then builds examples/host against
# the installed tree twice: as a separate CMake project (find_package(patc)) and with
# pkg-config. Passes when both build, and when patc's patterns are installed and found
# by name from another directory: by the installed patc and through the installed
# libpatrt.so, after the prefix is moved, and (built in) with the share directory gone.
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

# patc's patterns: installed to share/patc/patterns as they are in the source tree
for f in "$src"/patterns/*.rise; do
    cmp "$f" "$tmp/prefix/share/patc/patterns/$(basename "$f")"
done
echo "patterns installed to share/patc/patterns"
# ... and found by name from a directory that holds none, without -I: by the installed
# patc (beside bin/) and by a program on the installed libpatrt.so (beside lib/); a
# diagnostic inside one names the installed file. checkp PREFIX WHERE: WHERE is the
# directory the diagnostics must name.
mkdir "$tmp/elsewhere"
cat >"$tmp/elsewhere/sum.rise" <<'EOR'
import "reduce.rise"
kernel reduceNaive = nFun(n => fun(n.f32)(xs => xs |> reduceDevice(n, 1024, reduceBlockNaive(add, 0.0f, 4), 0.0f)))
EOR
cat >"$tmp/elsewhere/bad.rise" <<'EOR'
import "reduce.rise"
kernel reduceNaive = nFun(n => fun(n.f32)(xs => xs |> reduceDevice(n, 1000, reduceBlockNaive(add, 0.0f, 3), 0.0f)))
EOR
cat >"$tmp/compile_api.c" <<'EOC'
#include <patc.h>
#include <stdio.h>
/* compile_api FILE: the front end through libpatrt, no cubin; prints the diagnostics */
int main(int argc, char **argv)
{
    patc_ctx *c;
    patc_program *p;
    patc_compile_options o = {.no_cubin = 1};
    if (argc != 2 || patc_create(&c, 0, PATC_COMPILE_ONLY) != PATC_OK) return 2;
    patc_status s = patc_program_compile(c, argv[1], NULL, 0, &o, &p);
    if (s != PATC_OK) fputs(patc_last_error(c), stderr);
    patc_destroy(c);
    return s == PATC_OK ? 0 : 1;
}
EOC
"$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/compile_api" "$tmp/compile_api.c" $(pkg-config --cflags patc) \
    $(pkg-config --libs patc)
checkp() { # PREFIX WHERE
    (cd "$tmp/elsewhere" && "$1/bin/patc" --emit-cuda sum.rise >"$tmp/sum.cu")
    grep -q 'reduceNaive(' "$tmp/sum.cu"
    (cd "$tmp/elsewhere" && LD_LIBRARY_PATH="$1/$libdir" "$tmp/compile_api" sum.rise)
    for run in "$1/bin/patc --check" "$tmp/compile_api"; do
        if (cd "$tmp/elsewhere" && LD_LIBRARY_PATH="$1/$libdir" $run bad.rise 2>"$tmp/bad.err"); then
            echo "$run accepted bad.rise"; exit 1
        fi
        if ! grep -q "^$2/reduce\.rise:[0-9]*:[0-9]*: error: split(3)" "$tmp/bad.err"; then
            echo "$run: the error in reduce.rise does not name $2/reduce.rise:"; cat "$tmp/bad.err"; exit 1
        fi
    done
}
libdir=${pcdir%/pkgconfig}; libdir=${libdir#"$tmp/prefix/"}
real=$(cd "$tmp" && pwd -P)
checkp "$tmp/prefix" "$real/prefix/share/patc/patterns"
echo "import \"reduce.rise\" from another directory: the installed file, by patc and by libpatrt.so"
# a moved install finds its own patterns (they are found beside the binaries, not at a
# prefix fixed at build time)
mv "$tmp/prefix" "$tmp/moved"
checkp "$tmp/moved" "$real/moved/share/patc/patterns"
echo "moved prefix: its own share/patc/patterns"
# without the share directory, the copies built into libpatrt
rm -r "$tmp/moved/share/patc/patterns"
checkp "$tmp/moved" "<patc>/patterns"
echo "no share/patc/patterns: the built-in patterns"
