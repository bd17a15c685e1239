/* module.c: a program's CUDA C translation unit: its kernels (cuda.c's cu_emit_kernel),
 * then, in front of them, the preludes: the helper functions the kernels' text calls
 * (floor division, index types, relaxed and release accesses of the look-back's words,
 * the pipe kernels' mbarriers and bulk copy), each printed only where used. The helpers
 * are the printer's vocabulary for the IR's ordered accesses and mbarrier statements;
 * tests/emu/cuda_emu.h defines the same names for the CPU emulator. */
#include "codegen.h"

#include <string.h>

static const char prelude_fdiv[] =
    "/* floor division and remainder for numerators that may be negative */\n"
    "static __device__ __forceinline__ int patc_fdiv(int a, int b) { int q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
    "static __device__ __forceinline__ int patc_fmod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n";

static const char prelude_fdiv64[] =
    "static __device__ __forceinline__ long long patc_fdiv(long long a, long long b) { long long q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
    "static __device__ __forceinline__ long long patc_fmod(long long a, long long b) { long long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n";

/* One text for both builds of a kernel whose index width is chosen at launch; without
 * the runtime's -DPATC_INDEX32 (nvcc on the emitted file) it is the 64-bit one, which is
 * right at every size. */
static const char prelude_index[] =
    "/* index arithmetic of kernels sized at launch: see \"index arithmetic\" below */\n"
    "#ifdef PATC_INDEX32\n"
    "typedef int patc_int;\n"
    "#else\n"
    "typedef long long patc_int;\n"
    "#endif\n";
/* X_IDX's type in such kernels, printed only where one uses it */
static const char prelude_uindex[] =
    "#ifdef PATC_INDEX32\n"
    "typedef unsigned int patc_uint;\n"
    "#else\n"
    "typedef unsigned long long patc_uint;\n"
    "#endif\n";

/* lastBlock's and lookback's flagged words, each helper printed only where the kernels call it
 * (a static helper never called is a warning under nvcc: "declared but never referenced") */
static const char prelude_flags[] =
    "/* lastBlock's flagged partials: one 64-bit word each, stored and loaded whole (single-copy atomic) */\n";
static const char prelude_peek[] =
    "static __device__ __forceinline__ unsigned long long patc_peek(const unsigned long long *p) { unsigned long long w; "
    "asm volatile(\"ld.relaxed.gpu.global.u64 %0, [%1];\" : \"=l\"(w) : \"l\"(p) : \"memory\"); return w; }\n";
static const char prelude_poke[] =
    "static __device__ __forceinline__ void patc_poke(unsigned long long *p, unsigned long long w) { "
    "asm volatile(\"st.relaxed.gpu.global.u64 [%0], %1;\" :: \"l\"(p), \"l\"(w) : \"memory\"); }\n";
static const char prelude_wait[] =
    "/* the value of a flagged word, once its flag is set: the first load is not volatile, so that the\n"
    " * compiler may issue several together; the loop re-reads until the flag is there */\n"
    "static __device__ __forceinline__ unsigned int patc_wait(const unsigned long long *p) { unsigned long long w; "
    "asm(\"ld.relaxed.gpu.global.u64 %0, [%1];\" : \"=l\"(w) : \"l\"(p)); "
    "while (!(w >> 32)) w = patc_peek(p); return (unsigned int)w; }\n";

static const char prelude_flags32[] =
    "/* lookback's flags of values wider than 32 bits, and multisplit's tile words: relaxed 32-bit words */\n";
static const char prelude_peek32[] =
    "static __device__ __forceinline__ unsigned int patc_peek32(const unsigned int *p) { unsigned int w; "
    "asm volatile(\"ld.relaxed.gpu.global.u32 %0, [%1];\" : \"=r\"(w) : \"l\"(p) : \"memory\"); return w; }\n";
static const char prelude_poke32[] =
    "/* the release orders the value stored before it ahead of the flag */\n"
    "static __device__ __forceinline__ void patc_poke32(unsigned int *p, unsigned int w) { "
    "asm volatile(\"st.release.gpu.global.u32 [%0], %1;\" :: \"l\"(p), \"r\"(w) : \"memory\"); }\n";

static const char prelude_set32[] =
    "static __device__ __forceinline__ void patc_set32(unsigned int *p, unsigned int w) { "
    "asm volatile(\"st.relaxed.gpu.global.u32 [%0], %1;\" :: \"l\"(p), \"r\"(w) : \"memory\"); }\n";

/* multisplit's and the block sort's ranking (SHFL_MATCH): the lanes whose x agrees with this
 * lane's in the low w bits, a ballot per bit (match.any.sync is slower for a few bits: the
 * f32 sort of 2^28 keys took 7.6 ms with it against 4.6 on an H200; CUB's MatchAny votes
 * per bit too). Each bit's test, vote and complement are PTX: written in C, NVVM tests
 * x & 2^i through a shift, an and and a compare with 1 before each vote (7 instructions a
 * bit in the pass at 512x18, 3 here); the predicate lives inside the asm only (a C select
 * on it left ptxas short of predicate registers in the block sort). The votes are ANDed two
 * at a time by one three-input LOP3 (ptxas chained a two-input AND a vote): the pass is
 * bound by the ALU pipe (68 % of its peak under ncu), and the f32 sort of 2^28 keys took
 * 3 % less time (bench/results/2026-11-28-nvidia-h200-sort-alu). */
static const char prelude_match[] =
    "static __device__ __forceinline__ unsigned int patc_vote_same(unsigned int t) { unsigned int v; "
    "asm(\"{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; @!q not.b32 %0, %0; }\" : \"=r\"(v) : \"r\"(t)); return v; }\n"
    "static __device__ __forceinline__ unsigned int patc_match_bits(unsigned int x, unsigned int w) { unsigned int m = 0xffffffffu; "
    "for (unsigned int i = 0; i < w; i += 2) { unsigned int a = patc_vote_same(x & (1u << i)), b; "
    "if (i + 1 == w) { m &= a; break; } b = patc_vote_same(x & (2u << i)); "
    "if (i == 0) m = a & b; else asm(\"lop3.b32 %0, %1, %2, %3, 0x80;\" : \"=r\"(m) : \"r\"(m), \"r\"(a), \"r\"(b)); } return m; }\n\n";

/* sortTiles' ranking in registers (SHFL_VOTEBIT): the warp's ballot of bit i of x (a u32;
 * patc_vote_bit64 a u64). The AND and the test are PTX so that ptxas sees them: from C,
 * NVVM turns x & 2^i != 0 into a shift, an AND with 1 and a compare (three ALU
 * instructions a vote, where ptxas makes one LOP3 to a predicate, or one R2P for several
 * bits): on an H200, a hand-written sort of 4096 u32 keys at 384 x 11 took 11.1-11.4 us of
 * GPU time with this and 13.8-14.0 with the C test, patc's kernel of the C test 13.8-14.1 in
 * the same run (uniform and few keys; CUB 12.3; bench/results/2026-11-28-nvidia-h200-sort-vote, p11) */
static const char prelude_votebit[] =
    "static __device__ __forceinline__ unsigned int patc_vote_bit(unsigned int x, unsigned int i) { unsigned int v; "
    "asm volatile(\"{ .reg .pred q; .reg .b32 t; and.b32 t, %1, %2; setp.ne.u32 q, t, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }\" "
    ": \"=r\"(v) : \"r\"(x), \"r\"(1u << i)); return v; }\n\n";
static const char prelude_votebit64[] =
    "static __device__ __forceinline__ unsigned int patc_vote_bit64(unsigned long long x, unsigned int i) { unsigned int v; "
    "asm volatile(\"{ .reg .pred q; .reg .b64 t; and.b64 t, %1, %2; setp.ne.u64 q, t, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }\" "
    ": \"=r\"(v) : \"l\"(x), \"l\"(1ull << i)); return v; }\n\n";

/* an atomic add of acq_rel order at gpu scope (X_ATOMIC of MO_ACQ_REL): lastBlock's ticket */
static const char prelude_acq_rel[] =
    "static __device__ __forceinline__ unsigned int patc_atom_add_acq_rel(unsigned int *p, unsigned int v) { unsigned int o; "
    "asm volatile(\"atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;\" : \"=r\"(o) : \"l\"(p), \"r\"(v) : \"memory\"); return o; }\n\n";

static const char prelude_pipe[] =
    "/* scanPipe's mbarriers (shared memory, CTA scope) and 1-D bulk copy (the TMA), sm_90 */\n"
    "static __device__ __forceinline__ unsigned int patc_sa(const void *p) { return (unsigned int)__cvta_generic_to_shared(p); }\n"
    "static __device__ __forceinline__ void patc_mb_init(unsigned long long *b, unsigned int count) { "
    "asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"(patc_sa(b)), \"r\"(count) : \"memory\"); }\n"
    "static __device__ __forceinline__ void patc_mb_arrive(unsigned long long *b) { "
    "asm volatile(\"mbarrier.arrive.shared::cta.b64 _, [%0];\" :: \"r\"(patc_sa(b)) : \"memory\"); }\n"
    "/* an arrival that also expects `bytes` of bulk copies to complete the phase */\n"
    "static __device__ __forceinline__ void patc_mb_expect(unsigned long long *b, unsigned int bytes) { "
    "asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\" :: \"r\"(patc_sa(b)), \"r\"(bytes) : \"memory\"); }\n"
    "/* whether the phase of parity par has completed (acquire), without waiting */\n"
    "static __device__ __forceinline__ bool patc_mb_test(unsigned long long *b, unsigned int par) { unsigned int ok; "
    "asm volatile(\"{ .reg .pred q; mbarrier.test_wait.parity.shared::cta.b64 q, [%1], %2; selp.u32 %0, 1, 0, q; }\" "
    ": \"=r\"(ok) : \"r\"(patc_sa(b)), \"r\"(par) : \"memory\"); return ok != 0u; }\n"
    "static __device__ __forceinline__ void patc_mb_wait(unsigned long long *b, unsigned int par) { unsigned int ok; "
    "do { asm volatile(\"{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%1], %2; selp.u32 %0, 1, 0, q; }\" "
    ": \"=r\"(ok) : \"r\"(patc_sa(b)), \"r\"(par) : \"memory\"); } while (!ok); }\n"
    "/* bytes (a multiple of 16) from src (16-byte aligned) to dst in shared memory, completing on b */\n"
    "static __device__ __forceinline__ void patc_bulk_load(void *dst, const void *src, unsigned int bytes, unsigned long long *b) { "
    "asm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\" "
    ":: \"r\"(patc_sa(dst)), \"l\"(src), \"r\"(bytes), \"r\"(patc_sa(b)) : \"memory\"); }\n"
    "/* orders the generic proxy's accesses to shared memory before the async proxy's (a bulk copy's) */\n"
    "static __device__ __forceinline__ void patc_fence_proxy_async(void) { asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\"); }\n\n";

/* S_PREFETCH (multisplit's next tiles): the whole 16-byte units of [p, e) into L2 by one
 * bulk prefetch, which needs a 16-byte aligned address and size; a hint, not waited for.
 * The bulk prefetch is sm_90's: for an older device (patc's kernels but the pipe's run
 * there, docs/api.md) the helper does nothing, so that the kernel still compiles */
static const char prelude_prefetch[] =
    "/* multisplit's tiles ahead into L2: the whole 16-byte units of [p, e), a hint (sm_90) */\n"
    "static __device__ __forceinline__ void patc_prefetch_l2(const void *p, const void *e) {\n"
    "#if __CUDA_ARCH__ >= 900\n"
    "    unsigned long long a = ((unsigned long long)p + 15u) & ~15ull, z = (unsigned long long)e & ~15ull;\n"
    "    if (a < z) asm volatile(\"cp.async.bulk.prefetch.L2.global [%0], %1;\" :: \"l\"(a), \"r\"((unsigned int)(z - a)) : \"memory\");\n"
    "#else\n"
    "    (void)p;\n"
    "    (void)e;\n"
    "#endif\n"
    "}\n\n";

void cu_emit_module(Arena *a, StrBuf *out, Kernel **ks, int n)
{
    /* the kernels straight into out (a program's text is not copied again), then the
     * header and the preludes they need in front of them */
    size_t at = out->len;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= ks[i]->npre; j++) { /* a kernel's launches, in order */
            if (i || j) sb_putc(out, '\n');
            cu_emit_kernel(a, out, j < ks[i]->npre ? ks[i]->pre[j] : ks[i]);
        }
    const char *body = sb_str(out) + at;
    StrBuf h = {.a = a};
    sb_printf(&h, "/* generated by patc %s; do not edit (or load an edited copy with patc run --cuda) */\n", PATC_VERSION);
    bool fdiv = strstr(body, "patc_fdiv(") || strstr(body, "patc_fmod(");
    bool wait = strstr(body, "patc_wait("), poke = strstr(body, "patc_poke("), peek = wait || strstr(body, "patc_peek(");
    bool flags = wait || poke || peek;
    bool peek32 = strstr(body, "patc_peek32("), poke32 = strstr(body, "patc_poke32("), set32 = strstr(body, "patc_set32(");
    bool flags32 = peek32 || poke32 || set32;
    bool launch = false, wide = false;
    for (int i = 0; i < n; i++) {
        launch |= ks[i]->iw == IW_LAUNCH;
        wide |= ks[i]->iw != IW_32;
    }
    if (launch) sb_puts(&h, prelude_index);
    if (launch && strstr(body, "patc_uint")) sb_puts(&h, prelude_uindex);
    size_t helpers = h.len; /* a blank line after the header where no helper follows */
    if (fdiv) {
        sb_puts(&h, prelude_fdiv);
        if (wide) sb_puts(&h, prelude_fdiv64);
        sb_putc(&h, '\n');
    }
    if (flags) {
        sb_puts(&h, prelude_flags);
        if (peek) sb_puts(&h, prelude_peek);
        if (poke) sb_puts(&h, prelude_poke);
        if (wait) sb_puts(&h, prelude_wait);
        sb_putc(&h, '\n');
    }
    if (flags32) {
        sb_puts(&h, prelude_flags32);
        if (peek32) sb_puts(&h, prelude_peek32);
        if (poke32) sb_puts(&h, prelude_poke32);
        if (set32) sb_puts(&h, prelude_set32);
        sb_putc(&h, '\n');
    }
    /* the helpers that stand alone, in this order, each where the kernels call it */
    static const struct {
        const char *call, *text;
    } alone[] = {{"patc_atom_add_acq_rel(", prelude_acq_rel}, {"patc_match_bits(", prelude_match},
                 {"patc_vote_bit(", prelude_votebit},        {"patc_vote_bit64(", prelude_votebit64},
                 {"patc_mb_", prelude_pipe},                 {"patc_prefetch_l2(", prelude_prefetch}};
    for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++)
        if (strstr(body, alone[i].call)) sb_puts(&h, alone[i].text);
    if (h.len == helpers) sb_putc(&h, '\n');
    sb_insert(out, at, sb_str(&h));
}
