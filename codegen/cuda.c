/* cuda.c: the CUDA C printer. It decides nothing: loop forms, guards, barriers and
 * shared offsets come from the passes in compiler/. */
#include "codegen.h"

#include <math.h>
#include <string.h>

/* reduceSeqUnroll unrolls a constant trip count fully up to this many trips. */
enum { MAX_FULL_UNROLL = 8 };
/* A loop indexing a private array unrolls fully up to this many trips (a reduceSeq's
 * array accumulator has at most 64 elements). */
enum { MAX_REG_UNROLL = 64 };

typedef struct Pr {
    Arena *a;
    StrBuf *o;
    const Kernel *k;
    int ind;
    const char *it;   /* the C type of index arithmetic (int, long long, patc_int) */
    const char *wide; /* it when wider than the hardware's unsigned ids, else NULL */
    bool stream;      /* a look-back kernel (it draws tiles: k->draw) compiled with evict_first */
} Pr;

static const char *const index_type[] = {[IW_32] = "int", [IW_64] = "long long", [IW_LAUNCH] = "patc_int"};
/* X_IDX's type: unsigned, of the index arithmetic's width (patc_uint: module.c's prelude) */
static const char *const uindex_type[] = {[IW_32] = "unsigned int", [IW_64] = "unsigned long long",
                                          [IW_LAUNCH] = "patc_uint"};

static void indent(Pr *p)
{
    for (int i = 0; i < p->ind; i++) sb_puts(p->o, "    ");
}

static void nat(Pr *p, const Nat *n) { nat_print_c_as(p->a, p->o, n, p->wide); }

/* A float literal that reads back to the same value and is never an integer literal.
 * Infinity and NaN have no literal in C, and NVRTC has no math.h for INFINITY and NAN:
 * they are their bits, f32's (the interpreter's NaN, C's NAN, is 0x7fc00000), widened
 * for f64, their sign a negation (which flips a NaN's sign bit as the interpreter's
 * does). */
static void print_float(StrBuf *o, double v, bool f32)
{
    if (!isfinite(v)) {
        sb_printf(o, "%s(%s__int_as_float(0x%s))", signbit(v) ? "-" : "", f32 ? "" : "(double)",
                  isinf(v) ? "7f800000" : "7fc00000");
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, f32 ? "%.9g" : "%.17g", v);
    sb_puts(o, buf);
    if (!strpbrk(buf, ".eEn")) sb_puts(o, ".0");
    if (f32) sb_putc(o, 'f');
}

static void expr(Pr *p, const X *x);
/* The memory cell b[i] as a C lvalue (a scalar private buffer, or a scalar parameter
 * passed by value, is a plain variable). */
static void cell(Pr *p, const Buffer *b, const Nat *i)
{
    if (b->scalar) {
        sb_puts(p->o, b->name);
        return;
    }
    sb_printf(p->o, "%s[", b->name);
    nat(p, i);
    sb_putc(p->o, ']');
}

/* A flagged word (lastBlock's partials) holds the value's bits in its low half. */
static const char *const unflag_pre[SK_COUNT] = {
    [SK_F32] = "__uint_as_float(", [SK_I32] = "(int)(", [SK_U32] = "(", [SK_BOOL] = "(0u != "};
static const char *const flag_pre[SK_COUNT] = {
    [SK_F32] = "__float_as_uint(", [SK_I32] = "(unsigned int)(", [SK_U32] = "(", [SK_BOOL] = "(unsigned int)("};

/* --evict-first (a tuned setting, docs/tuning.md): a look-back kernel (scan, filter,
 * partition) reads and writes each element once, and its loads of kernel inputs and
 * stores to outputs may be marked evict-first (__ldcs, __stcs: ld/st.global.cs). A
 * choice by size, not a rule: on an H200 it made the scans 4-7% faster at 2^24 and 4-5%
 * slower at 2^28 (bench/results/2026-11-23-nvidia-h200-cache-hints). Other kernels keep
 * plain accesses, and so does bool, which has no such overload. */
static bool streamed(const Pr *p, const Buffer *b)
{
    /* kernel inputs (param >= 0) and outputs (-1); scratch (-2: the tile state, flagged
     * partials) keeps its own accesses */
    return p->stream && b->as == AS_GLOBAL && b->param >= -1 && !b->scalar && b->sk != SK_BOOL;
}

/* The prelude helper of a gpu-scope access of order mo to a word of sk (compiler.h's
 * MemOrder): loads (store false) and stores; NULL where there is none. */
static const char *order_helper(MemOrder mo, ScalarKind sk, bool store)
{
    if (mo == MO_RELAXED && sk == SK_U64) return store ? "patc_poke" : "patc_peek";
    if (mo == MO_RELAXED && sk == SK_U32 && !store) return "patc_peek32";
    if (mo == MO_RELEASE && sk == SK_U32 && store) return "patc_poke32";
    if (mo == MO_RELAXED && sk == SK_U32 && store) return "patc_set32";
    return NULL;
}

static void load(Pr *p, const Buffer *b, const Nat *i, MemOrder mo)
{
    if (mo != MO_PLAIN) {
        const char *h = order_helper(mo, b->sk, false);
        if (!h) die("no %s load of %s", mo == MO_ACQUIRE ? "acquire" : "ordered", scalar_info[b->sk].name);
        sb_printf(p->o, "%s(&", h);
        cell(p, b, i);
        sb_putc(p->o, ')');
        return;
    }
    if (streamed(p, b)) {
        sb_puts(p->o, "__ldcs(&");
        cell(p, b, i);
        sb_putc(p->o, ')');
        return;
    }
    if (b->flagged) {
        sb_printf(p->o, "%spatc_wait(&", unflag_pre[b->sk]);
        cell(p, b, i);
        sb_puts(p->o, "))");
        return;
    }
    if (!b->coherent) {
        cell(p, b, i);
        return;
    }
    /* written by other blocks of this launch: through L2, never a stale L1 line */
    sb_puts(p->o, "__ldcg(&");
    cell(p, b, i);
    sb_putc(p->o, ')');
}

/* A math call's CUDA function: the float variant for f32 (expf), the double one for
 * f64 (exp); abs of an integer is abs (i32) or llabs (i64), the only integer row;
 * popc is __popc (u32) or __popcll (u64). */
static const char *math_name(Prim p, ScalarKind sk)
{
    if (p == P_POPC) return sk == SK_U32 ? "__popc" : "__popcll";
#define X(pr, n, f, d, ints)                                      \
    if (p == pr) {                                                \
        if (sk == SK_F32) return #f;                              \
        if (sk == SK_F64) return #d;                              \
        if (ints) return sk == SK_I32 ? "abs" : "llabs";          \
    }
    MATH_FNS(X)
#undef X
    die("math call of %s on %s", prim_info[p].name, scalar_info[sk].name);
}

static void expr(Pr *p, const X *x);

/* An atomic's old value: CUDA's atomic function (long long's add & co through unsigned
 * long long, as atomic_store below), or the prelude's helper of an ordered one. */
static void atomic_value(Pr *p, const X *x)
{
    StrBuf *o = p->o;
    AtomOp op = x->atomic.op;
    if (x->atomic.order != MO_PLAIN) {
        if (x->atomic.order != MO_ACQ_REL || op != ATOM_ADD || x->atomic.buf->sk != SK_U32)
            die("no ordered atomic %s of %s", atom_info[op].name, scalar_info[x->atomic.buf->sk].name);
        sb_puts(o, "patc_atom_add_acq_rel(&");
        cell(p, x->atomic.buf, x->atomic.index);
        sb_puts(o, ", ");
        expr(p, x->atomic.val);
        sb_putc(o, ')');
        return;
    }
    bool via_u64 = x->atomic.buf->sk == SK_I64 && op != ATOM_MIN && op != ATOM_MAX;
    sb_printf(o, "%s%s(%s&", via_u64 ? "(long long)" : "", atom_info[op].cuda, via_u64 ? "(unsigned long long *)" : "");
    cell(p, x->atomic.buf, x->atomic.index);
    sb_printf(o, ", %s", via_u64 ? "(unsigned long long)(" : "");
    expr(p, x->atomic.val);
    sb_puts(o, via_u64 ? "))" : ")");
}

/* An X_MBTEST: the prelude's test of an mbarrier's phase */
static void mbtest(Pr *p, const X *x)
{
    sb_printf(p->o, "patc_mb_test(&%s[", x->mbtest.buf->name);
    nat(p, x->mbtest.index);
    sb_puts(p->o, "], ");
    expr(p, x->mbtest.parity);
    sb_putc(p->o, ')');
}

/* A literal, typed by its scalar kind */
static void lit(StrBuf *o, const X *x)
{
    switch (x->sk) {
    case SK_F32: print_float(o, x->lit.f, true); return;
    case SK_F64: print_float(o, x->lit.f, false); return;
    case SK_I32: sb_printf(o, "%lld", (long long)(int32_t)x->lit.i); return;
    case SK_U32: sb_printf(o, "%lluu", (unsigned long long)(uint32_t)x->lit.u); return;
    case SK_I64:
        if (x->lit.i == INT64_MIN) sb_puts(o, "(-9223372036854775807ll - 1)");
        else sb_printf(o, "%lldll", (long long)x->lit.i);
        return;
    case SK_U64: sb_printf(o, "%lluull", (unsigned long long)x->lit.u); return;
    case SK_BOOL: sb_puts(o, x->lit.b ? "true" : "false"); return;
    case SK_COUNT: break;
    }
    unreachable();
}

static void expr(Pr *p, const X *x)
{
    StrBuf *o = p->o;
    switch (x->kind) {
    case X_LIT: lit(o, x); return;
    case X_NAT: nat(p, x->nat.n); return; /* in index width: padding guards compare indices */
    case X_LOAD: load(p, x->load.buf, x->load.index, x->load.order); return;
    case X_BIN:
        sb_putc(o, '(');
        expr(p, x->bin.l);
        sb_printf(o, " %s ", binop_spelling[x->bin.op]);
        expr(p, x->bin.r);
        sb_putc(o, ')');
        return;
    case X_UN:
        sb_printf(o, "(%s", unop_spelling[x->un.op]);
        expr(p, x->un.e);
        sb_putc(o, ')');
        return;
    case X_SELECT:
        sb_putc(o, '(');
        expr(p, x->sel.c);
        sb_puts(o, " ? ");
        expr(p, x->sel.a);
        sb_puts(o, " : ");
        expr(p, x->sel.b);
        sb_putc(o, ')');
        return;
    case X_MINMAX: {
        bool mx = x->bin.op == OP_GT;
        const char *f = x->sk == SK_F32 ? (mx ? "fmaxf" : "fminf") : x->sk == SK_F64 ? (mx ? "fmax" : "fmin") : (mx ? "max" : "min");
        sb_printf(o, "%s(", f);
        expr(p, x->bin.l);
        sb_puts(o, ", ");
        expr(p, x->bin.r);
        sb_putc(o, ')');
        return;
    }
    case X_SHFL: {
        static const char *const fn[] = {"__shfl_down_sync", "__shfl_up_sync", "__shfl_xor_sync", "__shfl_sync",
                                         "__ballot_sync", "__any_sync", "__all_sync", "__reduce_min_sync",
                                         "patc_match_bits", "patc_vote_bit"};
        /* patc_match_bits, patc_vote_bit: the prelude's helpers (codegen/module.c), the full warp implied */
        bool helper = x->shfl.k == SHFL_MATCH || x->shfl.k == SHFL_VOTEBIT;
        bool wide = x->shfl.k == SHFL_VOTEBIT && scalar_info[x->shfl.val->sk].size == 8; /* patc_vote_bit64 */
        sb_printf(o, helper ? "%s%s(" : "%s%s(0xffffffffu, ", fn[x->shfl.k], wide ? "64" : "");
        expr(p, x->shfl.val);
        if (x->shfl.arg) {
            sb_puts(o, ", ");
            expr(p, x->shfl.arg);
        }
        sb_putc(o, ')');
        return;
    }
    case X_BITCAST: { /* into a u32 word, or out of one */
        const char *pre = x->sk == SK_U32 ? flag_pre[x->un.e->sk] : unflag_pre[x->sk];
        if (!pre) die("bits of %s as %s", scalar_info[x->un.e->sk].name, scalar_info[x->sk].name);
        sb_puts(o, pre);
        expr(p, x->un.e);
        sb_putc(o, ')');
        return;
    }
    case X_CAST:
        sb_printf(o, "((%s)", scalar_info[x->sk].ctype);
        expr(p, x->un.e);
        sb_putc(o, ')');
        return;
    case X_IDX:
        sb_printf(o, "((%s)", uindex_type[p->k->iw]);
        expr(p, x->un.e);
        sb_putc(o, ')');
        return;
    case X_CALL:
        sb_printf(o, "%s(", math_name(x->call.p, x->sk));
        for (int i = 0; i < x->call.n; i++) {
            if (i) sb_puts(o, ", ");
            expr(p, x->call.args[i]);
        }
        sb_putc(o, ')');
        return;
    case X_MBTEST: mbtest(p, x); return;
    case X_ATOMIC: atomic_value(p, x); return;
    }
    unreachable();
}

/* An accumulate's update (S_STORE with atom): CUDA's atomic of the operator on the
 * cell. long long has atomicMin/Max of its own; its add, |, & and ^ go through
 * unsigned long long (the same bits: two's complement) */
static void atomic_store(Pr *p, const Stmt *s)
{
    StrBuf *o = p->o;
    AtomOp op = s->store.atom;
    bool via_u64 = s->store.buf->sk == SK_I64 && op != ATOM_MIN && op != ATOM_MAX;
    sb_printf(o, "%s(%s&", atom_info[op].cuda, via_u64 ? "(unsigned long long *)" : "");
    cell(p, s->store.buf, s->store.index);
    sb_printf(o, ", %s", via_u64 ? "(unsigned long long)(" : "");
    expr(p, s->store.val);
    sb_puts(o, via_u64 ? "));\n" : ");\n");
}

static void stmt(Pr *p, const Stmt *s);

/* The CUDA vector type of `width` elements of sk (asVector allows 8 and 16 bytes). */
static const char *vec_type(ScalarKind sk, int width)
{
    switch (sk) {
    case SK_F32: return width == 4 ? "float4" : "float2";
    case SK_I32: return width == 4 ? "int4" : "int2";
    case SK_U32: return width == 4 ? "uint4" : "uint2";
    case SK_F64: return "double2";
    case SK_I64: return "longlong2";
    case SK_U64: return "ulonglong2";
    case SK_BOOL: case SK_COUNT: break;
    }
    die("no vector type for %s x %d", scalar_info[sk].name, width);
}

static void block(Pr *p, const Stmt *body);

/* v = one width-wide load of src[index..); elementwise (bounds-tested) when guard holds */
static void vload(Pr *p, const Stmt *s)
{
    StrBuf *o = p->o;
    const char *vt = vec_type(s->vload.src->sk, s->vload.width);
    indent(p);
    if (s->vload.guard) {
        sb_puts(o, "if (");
        expr(p, s->vload.guard);
        sb_puts(o, ") {\n");
        p->ind++;
        for (int j = 0; j < s->vload.width; j++) {
            indent(p);
            sb_printf(o, "%s[%d] = ", s->vload.dst->name, j);
            expr(p, s->vload.fallback[j]);
            sb_puts(o, ";\n");
        }
        p->ind--;
        indent(p);
        sb_puts(o, "} else {\n");
        p->ind++;
        indent(p);
    }
    bool cs = streamed(p, s->vload.src);
    sb_printf(o, "*(%s *)%s = %s(const %s *)(%s + ", vt, s->vload.dst->name, cs ? "__ldcs(" : "*", vt, s->vload.src->name);
    nat(p, s->vload.index);
    sb_puts(o, cs ? "));\n" : ");\n");
    if (s->vload.guard) {
        p->ind--;
        indent(p);
        sb_puts(o, "}\n");
    }
}

/* One line of the kernel's text at the current indentation. */
static void __attribute__((format(printf, 2, 3))) line(Pr *p, const char *fmt, ...)
{
    indent(p);
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(p->o, fmt, ap);
    va_end(ap);
}

static void block(Pr *p, const Stmt *body)
{
    p->ind++;
    stmt(p, body);
    p->ind--;
}

/* The id a parallel loop's index starts from, and its stride. Where index arithmetic is
 * wider than 32 bits, the global id and the grid's strides are computed in that width
 * (the hardware's registers are 32-bit unsigned, and their products wrap). */
static void loop_id(Pr *p, const Stmt *s, StrBuf *id, StrBuf *stride)
{
    const Kernel *k = p->k;
    static const char xyz[] = "xyz";
    int d = s->loop.dim;
    int64_t b;
    bool cb = nat_is_const(k->block[d], &b) && k->block_fixed;
    switch (s->loop.level) {
    case LVL_THREADS:
        sb_printf(id, "threadIdx.%c", xyz[d]);
        if (cb) sb_printf(stride, "%lld", (long long)b);
        else sb_printf(stride, "blockDim.%c", xyz[d]);
        return;
    case LVL_BLOCK:
        sb_printf(id, "blockIdx.%c", xyz[d]);
        sb_printf(stride, "gridDim.%c", xyz[d]);
        return;
    case LVL_GLOBAL:
        if (p->wide) {
            sb_printf(id, "(%s)blockIdx.%c * blockDim.%c + threadIdx.%c", p->wide, xyz[d], xyz[d], xyz[d]);
            sb_printf(stride, "(%s)gridDim.%c * blockDim.%c", p->wide, xyz[d], xyz[d]);
        } else {
            sb_printf(id, "blockIdx.%c * blockDim.%c + threadIdx.%c", xyz[d], xyz[d], xyz[d]);
            sb_printf(stride, "gridDim.%c * blockDim.%c", xyz[d], xyz[d]);
        }
        return;
    case LVL_WARP:
        if (d == 0) {
            sb_puts(id, "warp");
            sb_puts(stride, "nwarps");
        } else {
            sb_printf(id, "threadIdx.%c", xyz[d]);
            sb_printf(stride, "blockDim.%c", xyz[d]);
        }
        return;
    case LVL_LANE:
        sb_puts(id, "lane");
        sb_puts(stride, "32");
        return;
    case LVL_SEQ: unreachable();
    }
}

static void print_loop(Pr *p, const Stmt *s)
{
    StrBuf *o = p->o;
    const char *v = s->loop.var->name;
    if (s->loop.level == LVL_SEQ) {
        if (s->loop.form == LF_ONCE) {
            indent(p);
            sb_puts(o, "{\n");
            if (s->loop.var_used) {
                p->ind++;
                indent(p);
                sb_printf(o, "const %s %s = 0;\n", p->it, v);
                p->ind--;
            }
        } else {
            if (s->loop.unroll || s->loop.regs) {
                indent(p);
                /* a small constant trip count unrolls fully; a larger one, or one known
                 * only at run time, by 4, so that four trips' independent loads can be
                 * in flight together. Fully unrolling thousands of trips (a length fixed
                 * with -D) makes NVRTC take minutes for no gain. A loop indexing a
                 * private array unrolls fully up to MAX_REG_UNROLL trips, else the array
                 * would go to local memory. */
                int64_t c;
                bool full = nat_is_const(s->loop.extent, &c) &&
                            (c <= MAX_FULL_UNROLL || ((s->loop.regs || s->loop.unroll_full) && c <= MAX_REG_UNROLL));
                sb_puts(o, full ? "#pragma unroll\n" : "#pragma unroll 4\n");
            }
            indent(p);
            sb_printf(o, "for (%s %s = 0; %s < ", p->it, v, v);
            nat(p, s->loop.extent);
            sb_printf(o, "; %s += 1) {\n", v);
        }
        block(p, s->loop.body);
        indent(p);
        sb_puts(o, "}\n");
        return;
    }
    StrBuf id = {.a = p->a}, stride = {.a = p->a};
    loop_id(p, s, &id, &stride);
    if (s->loop.draw) { /* the tile drawn in launch order (prims/warp.c) */
        sb_free(&id);
        sb_puts(&id, s->loop.draw->name);
    }
    indent(p);
    switch (s->loop.form) {
    case LF_ONCE:
        sb_puts(o, "{\n");
        break;
    case LF_GUARDED:
        sb_printf(o, "if (%s < ", id.s);
        nat(p, s->loop.extent);
        sb_puts(o, ") {\n");
        break;
    case LF_LOOP:
        sb_printf(o, "for (%s %s = %s; %s < ", p->it, v, id.s, v);
        nat(p, s->loop.extent);
        sb_printf(o, "; %s += %s) {\n", v, stride.s);
        break;
    }
    if (s->loop.form != LF_LOOP && s->loop.var_used) {
        indent(p);
        sb_printf(o, "    const %s %s = %s;\n", p->it, v, id.s);
    }
    sb_free(&id);
    sb_free(&stride);
    block(p, s->loop.body);
    indent(p);
    sb_puts(o, "}\n");
}

/* A private buffer's declaration: a scalar, an array, or a vector register (aligned) */
static void decl(Pr *p, const Stmt *s)
{
    StrBuf *o = p->o;
    const Buffer *b = s->decl.buf;
    indent(p);
    if (b->vec) sb_printf(o, "__align__(%d) ", b->vec * scalar_info[b->sk].size);
    if (b->scalar) {
        sb_printf(o, "%s %s", scalar_info[b->sk].ctype, b->name);
    } else {
        sb_printf(o, "%s %s[", scalar_info[b->sk].ctype, b->name);
        nat(p, b->count);
        sb_putc(o, ']');
    }
    if (s->decl.init) {
        sb_puts(o, " = ");
        expr(p, s->decl.init);
    }
    sb_puts(o, ";\n");
}

/* A store: an ordered one through the prelude's helper, a flagged partial with its flag,
 * a streamed one, an atomic, or a plain assignment */
static void store(Pr *p, const Stmt *s)
{
    StrBuf *o = p->o;
    indent(p);
    if (s->store.order != MO_PLAIN) {
        const char *h = order_helper(s->store.order, s->store.buf->sk, true);
        if (!h) die("no ordered store of %s", scalar_info[s->store.buf->sk].name);
        sb_printf(o, "%s(&", h);
        cell(p, s->store.buf, s->store.index);
        sb_puts(o, ", ");
        expr(p, s->store.val);
        sb_puts(o, ");\n");
        return;
    }
    if (s->store.buf->flagged) { /* value and flag in one single-copy-atomic store */
        if (!flag_pre[s->store.buf->sk]) die("flagged %s partials", scalar_info[s->store.buf->sk].name);
        sb_puts(o, "patc_poke(&");
        cell(p, s->store.buf, s->store.index);
        sb_printf(o, ", 0x100000000ull | %s", flag_pre[s->store.buf->sk]);
        expr(p, s->store.val);
        sb_puts(o, "));\n");
        return;
    }
    if (streamed(p, s->store.buf)) {
        sb_puts(o, "__stcs(&");
        cell(p, s->store.buf, s->store.index);
        sb_puts(o, ", ");
        expr(p, s->store.val);
        sb_puts(o, ");\n");
        return;
    }
    if (s->store.atom != ATOM_NONE) {
        atomic_store(p, s);
        return;
    }
    cell(p, s->store.buf, s->store.index);
    sb_puts(o, " = ");
    expr(p, s->store.val);
    sb_puts(o, ";\n");
}

/* An S_VSTORE: one vector store from a private vector register */
static void vstore(Pr *p, const Stmt *s)
{
    const char *vt = vec_type(s->vstore.dst->sk, s->vstore.width);
    line(p, "*(%s *)(%s + ", vt, s->vstore.dst->name);
    nat(p, s->vstore.index);
    sb_printf(p->o, ") = *(const %s *)%s;\n", vt, s->vstore.src->name);
}

/* An S_BULK: the prelude's bulk copy, completing on its mbarrier */
static void bulk(Pr *p, const Stmt *s)
{
    line(p, "patc_bulk_load(%s + ", s->bulk.dst->name);
    nat(p, s->bulk.dst_index);
    sb_printf(p->o, ", %s + ", s->bulk.src->name);
    nat(p, s->bulk.src_index);
    sb_puts(p->o, ", ");
    expr(p, s->bulk.bytes);
    sb_printf(p->o, ", &%s[", s->bulk.bar->name);
    nat(p, s->bulk.bar_index);
    sb_puts(p->o, "]);\n");
}

/* An S_PREFETCH: the prelude's bulk prefetch into L2 of the range's whole 16-byte units */
static void prefetch(Pr *p, const Stmt *s)
{
    line(p, "patc_prefetch_l2(%s + ", s->prefetch.src->name);
    nat(p, s->prefetch.lo);
    sb_printf(p->o, ", %s + ", s->prefetch.src->name);
    nat(p, s->prefetch.hi);
    sb_puts(p->o, ");\n");
}

/* An mbarrier operation: a call of the prelude's helper (prelude_pipe) */
static void mbar(Pr *p, const Stmt *s)
{
    static const char *const fn[] = {"patc_mb_init", "patc_mb_arrive", "patc_mb_expect", "patc_mb_wait",
                                     "patc_fence_proxy_async"};
    indent(p);
    sb_printf(p->o, "%s(", fn[s->mbar.op]);
    if (s->mbar.buf) {
        sb_printf(p->o, "&%s[", s->mbar.buf->name);
        nat(p, s->mbar.index);
        sb_putc(p->o, ']');
    }
    if (s->mbar.arg) {
        sb_puts(p->o, ", ");
        expr(p, s->mbar.arg);
    }
    sb_puts(p->o, ");\n");
}

static void stmt(Pr *p, const Stmt *s)
{
    StrBuf *o = p->o;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->seq.n; i++) stmt(p, s->seq.items[i]);
        return;
    case S_DECL: decl(p, s); return;
    case S_STORE: store(p, s); return;
    case S_FOR: print_loop(p, s); return;
    case S_IF:
        if (s->cond.c->kind == X_LIT && s->cond.c->lit.b) { /* a region every thread runs */
            indent(p);
            sb_puts(o, "{\n");
            block(p, s->cond.then);
            indent(p);
            sb_puts(o, "}\n");
            return;
        }
        indent(p);
        sb_puts(o, "if (");
        expr(p, s->cond.c);
        sb_puts(o, ") {\n");
        block(p, s->cond.then);
        if (s->cond.els) {
            indent(p);
            sb_puts(o, "} else {\n");
            block(p, s->cond.els);
        }
        indent(p);
        sb_puts(o, "}\n");
        return;
    case S_BARRIER:
        indent(p);
        sb_puts(o, s->barrier.level == LVL_WARP ? "__syncwarp();\n" : s->barrier.level == LVL_GLOBAL ? "__threadfence();\n" : "__syncthreads();\n");
        return;
    case S_COMMENT:
        indent(p);
        sb_printf(o, "/* %s */\n", s->comment.text);
        return;
    case S_VLOAD: vload(p, s); return;
    case S_WHILE:
        indent(p);
        if (s->wloop.var) sb_printf(o, "for (%s %s = 0; ", p->it, s->wloop.var->name);
        else sb_puts(o, "for (;");
        if (s->wloop.cond) expr(p, s->wloop.cond);
        if (s->wloop.var) sb_printf(o, "; %s += 1) {\n", s->wloop.var->name);
        else sb_puts(o, ";) {\n");
        block(p, s->wloop.body);
        indent(p);
        sb_puts(o, "}\n");
        return;
    case S_JUMP:
        indent(p);
        sb_puts(o, s->jump.k == JK_BREAK ? "break;\n" : s->jump.k == JK_CONTINUE ? "continue;\n" : "return;\n");
        return;
    case S_LET:
        indent(p);
        sb_printf(o, "const %s %s = ", p->it, s->let.var->name);
        expr(p, s->let.val);
        sb_puts(o, ";\n");
        return;
    case S_SLEEP:
        indent(p);
        sb_printf(o, "__nanosleep(%d);\n", s->sleep.ns);
        return;
    case S_MBAR: mbar(p, s); return;
    case S_VSTORE: vstore(p, s); return;
    case S_BULK: bulk(p, s); return;
    case S_PREFETCH: prefetch(p, s); return;
    }
}

static void dims(Pr *p, Nat *const d[3])
{
    sb_putc(p->o, '(');
    for (int i = 0; i < 3; i++) {
        if (i) sb_puts(p->o, ", ");
        nat_print(p->o, d[i]);
    }
    sb_putc(p->o, ')');
}

static int leaves(const Type *t) { return t->kind == T_PAIR ? leaves(t->pair.a) + leaves(t->pair.b) : 1; }

/* Leaf j of a result's pairs (left to right): the type of output j. */
static const Type *output_type(const Type *t, int j)
{
    while (t->kind == T_PAIR) {
        int na = leaves(t->pair.a);
        if (j < na) {
            t = t->pair.a;
        } else {
            j -= na;
            t = t->pair.b;
        }
    }
    return t;
}

/* The comment block: what a caller needs to launch the kernel. */
/* The comment block's first lines: the kernel, and which launch of its program it is. */
static void header_launch(Pr *p)
{
    const Kernel *k = p->k;
    StrBuf *o = p->o;
    sb_printf(o, "/* kernel %s\n", k->name);
    const Kernel *m = k->main ? k->main : k;
    if (m->npre) {
        int i = 0;
        while (i < m->npre && m->pre[i] != k) i++;
        sb_printf(o, " *   launch %d of %d:   ", i + 1, m->npre + 1);
        for (int j = 0; j < m->npre; j++) sb_printf(o, "%s, then ", m->pre[j]->name);
        sb_printf(o, "%s, on one stream, with the same arguments\n"
                     " *                    (the glob buffers carry the toGlobal results from one launch to the next)\n",
                  m->name);
    }
}

static void header(Pr *p)
{
    const Kernel *k = p->k;
    StrBuf *o = p->o;
    header_launch(p);
    sb_puts(o, " *   data parameters: ");
    if (!k->ninputs) sb_puts(o, "none");
    for (int i = 0; i < k->ninputs; i++) {
        if (i) sb_puts(o, ", ");
        sb_printf(o, "%s: ", k->inputs[i]->name);
        ty_print(o, k->def->params[i]->ty);
        if (k->inputs[i]->scalar) sb_puts(o, " (by value)");
        if (k->inputs[i]->align > 1)
            sb_printf(o, " (%d-byte aligned: %s)", k->inputs[i]->align, k->persistent ? "bulk copies" : "vector loads");
    }
    sb_puts(o, "\n *   nat parameters:  ");
    if (!k->def->nnats) sb_puts(o, "none");
    for (int i = 0; i < k->def->nnats; i++) sb_printf(o, "%s%s", i ? ", " : "", k->def->nats[i]->name);
    for (int j = 0; j < k->nouts; j++) {
        sb_printf(o, "\n *   %s%s: ", k->nouts == 1 ? "output:          " : j ? "                 " : "outputs:         ",
                  k->outs[j]->name);
        ty_print(o, k->nouts == 1 ? k->def->body->ty : output_type(k->def->body->ty, j));
        sb_puts(o, " (");
        nat_print(o, k->outs[j]->count);
        sb_printf(o, " x %s)", scalar_info[k->outs[j]->sk].ctype);
        if (k->outs[j]->counted_by) sb_printf(o, ", of which the first %s[0] are the result", k->outs[j]->counted_by->name);
        if (k->outs[j]->align > 1) sb_printf(o, " (%d-byte aligned: vector stores)", k->outs[j]->align);
        if (j == 0 && k->zero_out) sb_puts(o, ", zeroed by the runtime before each launch: the kernel adds into it");
    }
    sb_puts(o, "\n");
    if (k->nscratch) {
        sb_puts(o, " *   scratch:         ");
        for (int i = 0; i < k->nscratch; i++) {
            sb_printf(o, "%s%s: ", i ? ", " : "", k->scratch[i]->name);
            nat_print(o, k->scratch[i]->count);
            if (k->scratch[i]->flagged)
                sb_printf(o, " x unsigned long long (%s value, flag bit 32)", scalar_info[k->scratch[i]->sk].ctype);
            else
                sb_printf(o, " x %s", scalar_info[k->scratch[i]->sk].ctype);
        }
        sb_puts(o, "\n *                    (global, zeroed once by the runtime; the kernel leaves them reusable)\n");
    }
    sb_puts(o, " *   block size:      ");
    dims(p, k->block);
    sb_puts(o, k->block_fixed ? " threads, fixed: the code assumes exactly this many\n" : " threads\n");
    sb_puts(o, " *   grid size:       ");
    dims(p, k->grid);
    sb_puts(o, k->persistent ? " blocks, at most one per SM (the runtime caps grid.x at the\n"
                               " *                    SM count: the blocks loop over the tiles)\n *   shared memory:   "
                             : " blocks\n *   shared memory:   ");
    nat_print(o, k->shared_bytes);
    int64_t sh; /* past 48 KiB a launch needs cuFuncSetAttribute first (smem.c, rt_driver_launch) */
    if (!nat_is_const(k->shared_bytes, &sh))
        sb_puts(o, " bytes\n *                    (the runtime opts in above 48 KiB and refuses a launch above the "
                   "device's maximum)");
    else
        sb_puts(o, sh > SMEM_DEFAULT_MAX ? " bytes (above the 48 KiB default: the runtime opts in)" : " bytes");
    sb_puts(o, "\n *   index arithmetic: ");
    switch (k->iw) {
    case IW_32: sb_puts(o, "32-bit (int): every index stays below 2^31"); break;
    case IW_64: sb_puts(o, "64-bit (long long): indices reach 2^31 or more"); break;
    case IW_LAUNCH:
        sb_puts(o, "patc_int, int when compiled with -DPATC_INDEX32 (the runtime does so\n"
                   " *                    for a launch where ");
        nat_print(o, k->index_bound);
        sb_puts(o, " < 2^31), else long long");
        break;
    }
    sb_puts(o, "\n */\n");
}

/* Which warp ids the printed mapWarp('x') loops use, or'ed into *(int *)ctx: 1 = the
 * warp id (every form but an unused straight-line one), 2 = the number of warps
 * (stride loops). */
static WalkStep warp_loops(void *ctx, const Stmt *s)
{
    int *r = ctx;
    if (s->kind == S_FOR && s->loop.level == LVL_WARP && s->loop.dim == 0) {
        if (s->loop.form != LF_ONCE || s->loop.var_used) *r |= 1;
        if (s->loop.form == LF_LOOP) *r |= 2;
    }
    return WALK_ON;
}

void cu_emit_kernel(Arena *a, StrBuf *o, const Kernel *k)
{
    Pr p = {a, o, k, 0, index_type[k->iw], k->iw == IW_32 ? NULL : index_type[k->iw], k->evict_first && k->draw};
    header(&p);
    int64_t threads = 1, b;
    bool cb = true;
    for (int d = 0; d < 3; d++) {
        if (nat_is_const(k->block[d], &b)) threads *= b;
        else cb = false;
    }
    sb_puts(o, "extern \"C\" __global__ void ");
    if (cb && k->block_fixed) {
        sb_printf(o, "__launch_bounds__(%lld", (long long)threads);
        if (k->min_blocks > 0) sb_printf(o, ", %d", k->min_blocks);
        sb_puts(o, ") ");
    }
    sb_printf(o, "%s(", k->name);
    for (int j = 0; j < k->nouts; j++)
        sb_printf(o, "%s%s *__restrict__ %s", j ? ", " : "", scalar_info[k->outs[j]->sk].ctype, k->outs[j]->name);
    for (int i = 0; i < k->ninputs; i++)
        if (k->inputs[i]->scalar) /* by value */
            sb_printf(o, ", const %s %s", scalar_info[k->inputs[i]->sk].ctype, k->inputs[i]->name);
        else
            sb_printf(o, ", const %s *__restrict__ %s", scalar_info[k->inputs[i]->sk].ctype, k->inputs[i]->name);
    for (int i = 0; i < k->nscratch; i++)
        sb_printf(o, ", %s *__restrict__ %s", k->scratch[i]->flagged ? "unsigned long long" : scalar_info[k->scratch[i]->sk].ctype,
                  k->scratch[i]->name);
    for (int i = 0; i < k->def->nnats; i++) sb_printf(o, ", %s %s", p.it, k->def->nats[i]->name);
    sb_puts(o, ")\n{\n");
    p.ind = 1;
    if (k->nshared) {
        indent(&p);
        sb_puts(o, "extern __shared__ __align__(16) unsigned char patc_smem[];\n");
        for (int i = 0; i < k->nshared; i++) {
            const Buffer *s = k->shared[i];
            if (s->first < 0) continue; /* never accessed */
            indent(&p);
            sb_printf(o, "%s *%s = (%s *)(patc_smem + ", scalar_info[s->sk].ctype, s->name, scalar_info[s->sk].ctype);
            nat(&p, s->offset);
            sb_puts(o, ");\n");
        }
    }
    if (stmt_mentions_var(k->body, k->hw.lane)) {
        indent(&p);
        sb_puts(o, "const int lane = threadIdx.x & 31;\n");
    }
    static const IrVisitor warp_visit = {.stmt = warp_loops};
    int wforms = 0;
    ir_walk(k->body, &warp_visit, &wforms);
    if ((wforms & 1) || stmt_mentions_var(k->body, k->hw.warp)) {
        indent(&p);
        sb_puts(o, "const int warp = threadIdx.x >> 5;\n");
    }
    if ((wforms & 2) || stmt_mentions_var(k->body, k->hw.nwarps)) {
        indent(&p);
        sb_puts(o, "const int nwarps = blockDim.x >> 5;\n");
    }
    stmt(&p, k->body);
    sb_puts(o, "}\n");
}
