#!/usr/bin/env bash
# build.sh PATC OUT.so FILE.rise [patc options: -D..., --min-blocks ...]: the kernels of
# FILE.rise, as `patc --emit-cuda` prints them with these options, compiled for the CPU
# with cuda_emu.h into OUT.so, for tests/fakecuda's stand-in driver to run
# (FAKECUDA_EMULATE=OUT.so). The options must be those of the `patc run` that launches
# them (-D values are compiled in), and the launch must use 32-bit indices (below 2^31
# elements: the runtime then compiles with PATC_INDEX32, as this does). EMU_CUDA=EDITED.cu
# takes that CUDA C instead of patc's (a hand-edited kernel, as `patc run --cuda`).
#
# build.sh --prebuild DIR: what every build shares, built once with the compiler and flags
# a build uses (CXX from the environment, as run.sh sets it): cuda_emu.h's runtime (the
# scheduler, launch, the fault and deadlock reports) compiled into DIR/cuda_emu_rt.o, and
# the header precompiled (DIR/cuda_emu.h.gch), which then declares the runtime only. A
# build with EMU_PREBUILT=DIR in the environment compiles the kernels against these and
# links the object into OUT.so: the same code as without them. The header, not the
# kernels, is most of a build: with AddressSanitizer an empty kernel list took 0.47 s of
# CPU to compile (-c), 0.19 with the precompiled header, 0.07 with the runtime out of it
# as well; examples/scan_device.rise's four kernels 0.60, 0.35 and 0.20. Without
# EMU_PREBUILT the header is compiled with the kernels; with a precompiled header the
# compiler cannot use (another compiler or flags), it reads the header.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# -O0: the compile is most of the emulator's time now that a launch switches fibers without
# system calls (cuda_emu.h); at -O1 -g it took three times as long (4.3 s against 1.4 for
# examples/radixsort.rise's kernels with AddressSanitizer), more than the slower kernels cost
flags=(-std=c++17 -O0 -fPIC -w)
if [ "${1:-}" = --prebuild ]; then
    dir=${2:?usage: build.sh --prebuild DIR}
    mkdir -p "$dir"
    # the runtime at -O2 (still with AddressSanitizer): compiled once, its compile time does
    # not count, and the scheduler runs every launch of the run; a run of
    # tests/programs/pipe_small.rise's exclSumF32 at 100003 elements took 0.36 s of CPU
    # against 0.62 at -O0, multisplit.rise's msU32 at 100003 0.32 against 0.46
    ${CXX:-c++} "${flags[@]}" -O2 -DPATC_EMU_RUNTIME_OBJECT -x c++ -c "$here/cuda_emu.h" -o "$dir/cuda_emu_rt.o"
    # linked by gold where the compiler can: scan_device.rise's kernels in 0.03 s of CPU
    # against 0.12 with ld.bfd, which spent 0.08 of it on libasan.so (-fsanitize=address
    # links it); ten of run.sh's builds took 5.0 s against 5.4
    if ${CXX:-c++} "${flags[@]}" -shared -fuse-ld=gold "$dir/cuda_emu_rt.o" -o "$dir/probe.so" 2>/dev/null; then
        echo -fuse-ld=gold >"$dir/link_flags"
    else
        : >"$dir/link_flags"
    fi
    rm -f "$dir/probe.so"
    exec ${CXX:-c++} "${flags[@]}" -DPATC_EMU_RUNTIME_EXTERN -x c++-header "$here/cuda_emu.h" -o "$dir/cuda_emu.h.gch"
fi
# EMU_PREBUILT's directory ahead of the header's: the compiler takes cuda_emu.h.gch there
# for cuda_emu.h where it can
if [ -n "${EMU_PREBUILT:-}" ]; then
    flags+=(-DPATC_EMU_RUNTIME_EXTERN -I"$EMU_PREBUILT")
    # shellcheck disable=SC2207
    runtime=("$EMU_PREBUILT/cuda_emu_rt.o" $(cat "$EMU_PREBUILT/link_flags"))
else
    runtime=()
fi
PATC=${1:?usage: build.sh PATC OUT.so FILE.rise [options]}
OUT=${2:?usage: build.sh PATC OUT.so FILE.rise [options]}
FILE=${3:?usage: build.sh PATC OUT.so FILE.rise [options]}
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${EMU_CUDA:-}" ]; then cp "$EMU_CUDA" "$tmp/k.cu"; else "$PATC" --emit-cuda "$FILE" "$@" >"$tmp/k.cu"; fi
{
    # the header first, then the define (the precompiled header was built without it)
    echo '#include "cuda_emu.h"'
    echo '#define PATC_INDEX32'
    # the PTX helpers (cuda_emu.h has its own) out (patc_prefetch_l2's lines whole: its
    # body is in an #if on the arch), lastBlock's ticket an atomicAdd, the dynamic shared
    # memory pointed at the emulator's
    sed -e '/^static __device__ __forceinline__ .*asm/d' \
        -e '/^static __device__ __forceinline__ void patc_prefetch_l2(/,/^}$/d' \
        -e 's/asm volatile("atom\.acq_rel\.gpu\.global\.add\.u32 %0, \[%1\], 1;" : "=r"(\([A-Za-z0-9_]*\)) : "l"(\([A-Za-z0-9_]*\)) : "memory");/\1 = atomicAdd(\2, 1u);/' \
        -e 's/^\( *\)extern __shared__ __align__(16) unsigned char patc_smem\[\];/\1unsigned char *patc_smem = emu::block_smem();/' \
        "$tmp/k.cu"
    echo 'PATC_EMU_KERNELS_BEGIN'
    # each kernel with how many blocks run at once: 3 for one with mbarriers (the pipe
    # kernels' persistent blocks share the tiles, so their look-back waits for another
    # block's tiles) or with multisplit's look-back words among its parameters (msstate:
    # its tiles' look-back over k counters then waits for tiles still running; the
    # launches before it share the parameters, and run so too) and only dynamic shared
    # memory, 1 for the rest (a static __shared__ array is one copy, which blocks at once
    # would share)
    awk 'function emit() { if (k != "") print "PATC_EMU_KERNEL(" k ", " (mb && !st ? 3 : 1) ")" }
         /__global__ void/ { emit(); k = $0; sub(/__launch_bounds__\([0-9, ]*\)/, "", k); sub(/\(.*/, "", k); sub(/.* /, "", k); mb = st = 0 }
         /patc_mb_init\(/ && k != "" { mb = 1 }
         /__global__ void.*msstate[0-9]+,/ { mb = 1 }
         /__shared__/ && !/extern __shared__/ && k != "" { st = 1 }
         END { emit() }' "$tmp/k.cu"
    echo 'PATC_EMU_KERNELS_END'
} >"$tmp/k.cpp"
if grep -Eq '\basm( volatile)? *\(' "$tmp/k.cpp"; then
    echo "build.sh: inline PTX this script does not know: $(grep -m1 -E '\basm( volatile)? *\(' "$tmp/k.cpp")" >&2
    exit 1
fi
if grep -q 'extern __shared__' "$tmp/k.cpp"; then
    echo "build.sh: a dynamic shared array this script does not know: $(grep -m1 'extern __shared__' "$tmp/k.cpp")" >&2
    exit 1
fi
${CXX:-c++} "${flags[@]}" -shared -I"$here" "$tmp/k.cpp" "${runtime[@]}" -o "$OUT"
