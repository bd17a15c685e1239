// wspec.cuh: the device helpers of the warp-specialised prototypes (wspec.cu, the scan;
// wselect.cu, the filter and partition): tile words with a launch epoch, mbarriers, the
// bulk copy, per-role cycle counters, and the look-back warp's rule. Not part of patc.
#pragma once
#include <cuda_runtime.h>
#include <type_traits>

static __device__ __forceinline__ unsigned long long peek(const unsigned long long *p) {
    unsigned long long w; asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory"); return w;
}
static __device__ __forceinline__ void poke(unsigned long long *p, unsigned long long w) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(w) : "memory");
}
static __device__ __forceinline__ unsigned bits(float v) { return __float_as_uint(v); }
static __device__ __forceinline__ unsigned bits(int v) { return (unsigned)v; }
template <class T> static __device__ __forceinline__ T unbits(unsigned u);
template <> __device__ __forceinline__ float unbits<float>(unsigned u) { return __uint_as_float(u); }
template <> __device__ __forceinline__ int unbits<int>(unsigned u) { return (int)u; }
// a tile's word: (epoch << 2 | flag) in the high half (1: A, the tile's total; 2: P, its
// inclusive prefix), the value's bits in the low half; a word of another epoch is unset
template <class T> static __device__ __forceinline__ unsigned long long word(unsigned epoch, unsigned flag, T v) {
    return ((unsigned long long)((epoch << 2) | flag) << 32) | bits(v);
}

static __device__ __forceinline__ unsigned sa(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
static __device__ __forceinline__ void mb_init(unsigned long long *b, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sa(b)), "r"(count) : "memory");
}
static __device__ __forceinline__ void mb_arrive(unsigned long long *b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sa(b)) : "memory");
}
static __device__ __forceinline__ void mb_expect(unsigned long long *b, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sa(b)), "r"(bytes) : "memory");
}
// waits until the phase of parity par has completed
static __device__ __forceinline__ void mb_wait(unsigned long long *b, unsigned par) {
    unsigned ok;
    do {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok) : "r"(sa(b)), "r"(par) : "memory");
    } while (!ok);
}
// whether the phase of parity par has completed, without waiting
static __device__ __forceinline__ bool mb_test(unsigned long long *b, unsigned par) {
    unsigned ok;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(ok) : "r"(sa(b)), "r"(par) : "memory");
    return ok;
}
// bytes (a multiple of 16) from src (16-byte aligned) into dst, completing on mbarrier b;
// with hint, the source lines are marked evict-first in L2
static __device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes, unsigned long long *b, bool hint) {
    if (hint) {
        unsigned long long pol;
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
                     :: "r"(sa(dst)), "l"(src), "r"(bytes), "r"(sa(b)), "l"(pol) : "memory");
    } else {
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(sa(dst)), "l"(src), "r"(bytes), "r"(sa(b)) : "memory");
    }
}
// ins, when not null, gathers clock64 cycles per role (INS_*), summed over blocks
enum { INS_FULL, INS_PREF, INS_EMPTY, INS_AGG, INS_LOOK, INS_ROUNDS, INS_BLOCK, INS_TILES, INS_N };
static __device__ __forceinline__ void ins_add(unsigned long long *ins, int i, long long v) {
    if (ins) atomicAdd(&ins[i], (unsigned long long)v);
}

template <class T> using V4 = typename std::conditional<std::is_same<T, float>::value, float4, int4>::type;

// The look-back warp's rule: the sum of tiles 0 .. t-1 is the sum of the words of tiles
// stop+1 .. t-1 back to the newest P among them (included), or, if none is P, all of them
// plus p0, the inclusive prefix of tile stop (the block's own previous tile; 0 if stop is
// -1). Words are read U x 32 at a time, newest first; an unset word is read again.
template <class T, int U>
static __device__ T look_back(const unsigned long long *state, long long t, long long stop, T p0, unsigned epoch, int lane,
                              unsigned long long *ins) {
    T acc = 0;
    for (long long top = t - 1; top > stop; top -= 32 * U) {
        unsigned long long w[U];
        for (;;) {
            #pragma unroll
            for (int u = 0; u < U; u++) {
                const long long j = top - (u * 32 + lane);
                w[u] = j > stop ? peek(&state[j]) : 0ull;
            }
            bool unset = false;
            #pragma unroll
            for (int u = 0; u < U; u++)
                unset |= top - (u * 32 + lane) > stop && (unsigned)(w[u] >> 34) != epoch;
            ins_add(ins, INS_ROUNDS, 1);
            if (!__any_sync(0xffffffffu, unset)) break;
            __nanosleep(20);
        }
        unsigned near = 0xffffffffu;  // the smallest distance from top of a P in this lane's words
        #pragma unroll
        for (int u = 0; u < U; u++)
            if (top - (u * 32 + lane) > stop && ((unsigned)(w[u] >> 32) & 3u) == 2u) near = min(near, (unsigned)(u * 32 + lane));
        near = __reduce_min_sync(0xffffffffu, near);
        T v = 0;
        #pragma unroll
        for (int u = 0; u < U; u++)
            if (top - (u * 32 + lane) > stop && (unsigned)(u * 32 + lane) <= near) v += unbits<T>((unsigned)w[u]);
        for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
        acc += v;
        if (near != 0xffffffffu) return acc;
    }
    return acc + p0;
}

