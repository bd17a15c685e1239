// exp_util.cuh: the input and the comparison that the experiments under bench/exp share
// (ceiling, relay, early_agg, scan_order). Not part of patc.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include "patc.h"

// A libpatrt call that must succeed, else the program exits with its message (needs a
// patc_ctx *ctx in scope).
#define PK(x) do { patc_status s_ = (x); if (s_ != PATC_OK) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, patc_last_error(ctx)); exit(1); } } while (0)

// x[i] from a hash of i: with ints, an integer in 0..1023; else the bits of a float in [0, 1).
__global__ void fill(unsigned *x, long long n, int ints) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ (unsigned)(i >> 32) * 40503u;
        h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
        x[i] = ints ? (h & 1023u) : __float_as_uint((h >> 8) * (1.0f / 16777216.0f));
    }
}

// *bad += the elements where a and b differ: word for word when rel is 0 (integers, or
// floats compared bitwise), else as floats further apart than rel * max(1, |b|).
__global__ void differ(const unsigned *a, const unsigned *b, long long n, float rel, unsigned long long *bad) {
    unsigned long long c = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const float x = __uint_as_float(a[i]), y = __uint_as_float(b[i]);
        c += rel == 0.0f ? a[i] != b[i] : !(fabsf(x - y) <= rel * fmaxf(1.0f, fabsf(y)));
    }
    if (c) atomicAdd(bad, c);
}

// Kernel `kernel` of `file` compiled with -D nt, -D ipt, min_blocks minb, evict_first ef,
// and the CUDA in `cuda` (a file or text) instead of the generated one unless NULL.
static patc_kernel *compile(patc_ctx *ctx, const char *file, const char *kernel, int nt, int ipt, int minb, int ef,
                            const char *cuda) {
    patc_define d[2] = {{"nt", nt}, {"ipt", ipt}};
    patc_compile_options o = {};
    o.kernel = kernel; o.min_blocks = minb; o.evict_first = ef; o.cuda = cuda;
    patc_program *p;
    PK(patc_program_compile(ctx, file, d, 2, &o, &p));
    patc_kernel *k;
    PK(patc_get_kernel(p, kernel, &k));
    return k;
}
