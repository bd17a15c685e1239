#!/usr/bin/env bash
# build.sh PATC OUT.so FILE.rise [patc options: -D..., --min-blocks ...]: the kernels of
# FILE.rise, as `patc --emit-cuda` prints them with these options, compiled for the CPU
# with cuda_emu.h into OUT.so, for tests/fakecuda's stand-in driver to run
# (FAKECUDA_EMULATE=OUT.so). The options must be those of the `patc run` that launches
# them (-D values are compiled in), and the launch must use 32-bit indices (below 2^31
# elements: the runtime then compiles with PATC_INDEX32, as this does). EMU_CUDA=EDITED.cu
# takes that CUDA C instead of patc's (a hand-edited kernel, as `patc run --cuda`).
set -euo pipefail
PATC=${1:?usage: build.sh PATC OUT.so FILE.rise [options]}
OUT=${2:?usage: build.sh PATC OUT.so FILE.rise [options]}
FILE=${3:?usage: build.sh PATC OUT.so FILE.rise [options]}
shift 3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${EMU_CUDA:-}" ]; then cp "$EMU_CUDA" "$tmp/k.cu"; else "$PATC" --emit-cuda "$FILE" "$@" >"$tmp/k.cu"; fi
{
    echo '#define PATC_INDEX32'
    echo '#include "cuda_emu.h"'
    # the PTX helpers (cuda_emu.h has its own) out, lastBlock's ticket an atomicAdd,
    # the dynamic shared memory pointed at the emulator's
    sed -e '/^static __device__ __forceinline__ .*asm/d' \
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
# -O0: the compile is most of the emulator's time now that a launch switches fibers without
# system calls (cuda_emu.h); at -O1 -g it took three times as long (4.3 s against 1.4 for
# examples/radixsort.rise's kernels with AddressSanitizer), more than the slower kernels cost
${CXX:-c++} -std=c++17 -O0 -fPIC -shared -w -I"$here" "$tmp/k.cpp" -o "$OUT"
