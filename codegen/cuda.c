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

static void expr(Pr *p, const X *x)
{
    StrBuf *o = p->o;
    switch (x->kind) {
    case X_LIT:
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
                                         "__ballot_sync", "__any_sync", "__all_sync", "__reduce_min_sync"};
        sb_printf(o, "%s(0xffffffffu, ", fn[x->shfl.k]);
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
    case X_CALL:
        sb_printf(o, "%s(", math_name(x->call.p, x->sk));
        for (int i = 0; i < x->call.n; i++) {
            if (i) sb_puts(o, ", ");
            expr(p, x->call.args[i]);
        }
        sb_putc(o, ')');
        return;
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
static void pipe_scan(Pr *p, const Stmt *s);

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
                            (c <= MAX_FULL_UNROLL || (s->loop.regs && c <= MAX_REG_UNROLL));
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

static void stmt(Pr *p, const Stmt *s)
{
    StrBuf *o = p->o;
    switch (s->kind) {
    case S_SEQ:
        for (int i = 0; i < s->seq.n; i++) stmt(p, s->seq.items[i]);
        return;
    case S_DECL: {
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
        return;
    }
    case S_STORE:
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
        return;
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
    case S_PIPE: pipe_scan(p, s); return;
    }
}

/* ---------------------------------------------------------------- scanPipe */

/* Lines of C text, each indented. */
static void lines(Pr *p, const char *const *ls)
{
    for (; *ls; ls++) line(p, "%s\n", *ls);
}

/* The head of the aggregator's and the look-back warp's loop over slot iterations k:
 * wait for the tile in slot k % S (its number t; -1: no more tiles, the warp returns), then
 * for the hand-over `bar` of that round. Opens the loop's body (one level). */
static void pipe_round(Pr *p, int S, const char *bar)
{
    line(p, "for (int k = 0;; k++) {\n");
    p->ind++;
    line(p, "const int sl = k %% %d;\n", S);
    line(p, "patc_mb_wait(&patc_full[sl], (k / %d) & 1);\n", S);
    line(p, "const long long t = patc_tid[sl];\n");
    line(p, "if (t < 0) return;\n");
    line(p, "patc_mb_wait(&%s[sl], (k / %d) & 1);\n", bar, S);
}

/* What every part of a pipe kernel's text needs: the shape (W compute warps, IPT items
 * per lane, S slots, TILE = W*32*IPT, CH = 32*IPT), whether it is a filter or partition
 * (sel, part; stable: partitionStablePipe's, given the count), the elements' type ek (et, v4: its C type and 16-byte vector) and the type
 * sk of the values handed over (ct), and the buffers' names. */
typedef struct PipeShape {
    int W, IPT, S, TILE, CH;
    bool sel, part, stable;
    ScalarKind ek, sk;
    const char *et, *ct, *v4, *in, *out, *st, *ctr;
} PipeShape;

/* cnt: how many of the tile's elements fall in compute warp patc_w's chunk (at most
 * CH; 0 or less past n), by which the last tile's chunks are bounded */
static void pipe_chunk_count(Pr *p, const PipeShape *c, const char *note)
{
    line(p, "const long long cnt = (patc_n - t * %d < %d ? patc_n - t * %d : %d) - (long long)patc_w * %d;%s\n", c->TILE,
         c->TILE, c->TILE, c->TILE, c->CH, note);
}

/* t: the tile in slot sl, for the compute warps (a stable partition draws them from the
 * end: patc_tid holds the draw, the aggregator's and look-back's order) */
static void pipe_tile(Pr *p, const PipeShape *c)
{
    if (c->stable) line(p, "const long long t = patc_tiles - 1 - patc_tid[sl];\n");
    else line(p, "const long long t = patc_tid[sl];\n");
}

/* A filter's or partition's chunk, in x (the lane's ipt elements; cnt of the chunk's
 * are elements): flagged by the predicate, numbered by a warp scan of the lanes' counts,
 * and written back compacted to the chunk's front (a partition's others from its end,
 * backwards; a stable partition's right after the selected, in order); the chunk's count
 * to own (for its warp) and wtot (the aggregator). */
static void pipe_select_scan(Pr *p, const PipeShape *c)
{
    line(p, "%s *const chw = patc_ring + sl * %d + patc_w * %d;\n", c->et, c->TILE, c->CH);
    line(p, "const int vc = (int)(cnt < 0 ? 0 : cnt > %d ? %d : cnt); /* the chunk's elements */\n", c->CH, c->CH);
    line(p, "unsigned int m = 0u;\n");
    line(p, "#pragma unroll\n");
    line(p, "for (int i = 0; i < %d; i++) m |= (unsigned int)(patc_l * %d + i < vc && patc_pred(x[i])) << i;\n", c->IPT, c->IPT);
    line(p, "const unsigned int c = (unsigned int)__popc(m);\n");
    line(p, "unsigned int v = c;\n");
    line(p, "#pragma unroll\n");
    line(p, "for (int d = 1; d < 32; d <<= 1) { const unsigned int o = __shfl_up_sync(0xffffffffu, v, d); if (patc_l >= d) v += o; }\n");
    line(p, "__syncwarp(); /* every lane has read its elements: the chunk's space is free */\n");
    line(p, "int q = (int)(v - c);\n");
    line(p, "#pragma unroll\n");
    line(p, "for (int i = 0; i < %d; i++) if (m >> i & 1u) chw[q++] = x[i];\n", c->IPT);
    if (c->part) {
        line(p, "q = min(patc_l * %d, vc) - (int)(v - c); /* the others of the lanes before */\n", c->IPT);
        if (c->stable) line(p, "const int sc = (int)__shfl_sync(0xffffffffu, v, 31); /* the chunk's selected */\n");
        line(p, "#pragma unroll\n");
        line(p, "for (int i = 0; i < %d; i++) if (patc_l * %d + i < vc && !(m >> i & 1u)) ", c->IPT, c->IPT);
        if (c->stable) sb_puts(p->o, "chw[sc + q++] = x[i];\n");
        else sb_printf(p->o, "chw[%d - 1 - q++] = x[i];\n", c->CH);
    }
    line(p, "if (patc_l == 31) patc_own[sl * %d + patc_w] = v;\n", c->W);
    line(p, "__syncwarp(); /* the compacted chunk and its count, before other lanes read them to finish it */\n");
    line(p, "if (patc_l == 31) { patc_wtot[sl * %d + patc_w] = v; patc_mb_arrive(&patc_tots[sl]); }\n", c->W);
}

/* A filter's or partition's chunk once its offset (the count selected before it) is
 * known: the selected to out[off ..], a partition's others to the end, backwards (a
 * stable partition's from the given count on, in order). */
static void pipe_select_finish(Pr *p, const PipeShape *c)
{
    const char *out = c->out;
    line(p, "const long long off = (long long)patc_off[sl * %d + patc_w];\n", c->W);
    line(p, "const int sc = (int)patc_own[sl * %d + patc_w];\n", c->W);
    line(p, "const %s *const chw = patc_ring + sl * %d + patc_w * %d;\n", c->et, c->TILE, c->CH);
    if (c->stable) /* the selected places come from the given count too (the tiles go from the end) */
        line(p, "for (int i = patc_l, e = (int)max(0ll, min((long long)sc, patc_n - off)); i < e; i += 32) %s[off + i] = chw[i];\n", out);
    else
        line(p, "for (int i = patc_l; i < sc; i += 32) %s[off + i] = chw[i];\n", out);
    if (c->part) {
        pipe_chunk_count(p, c, "");
        line(p, "const int r = (int)(cnt < 0 ? 0 : cnt > %d ? %d : cnt) - sc; /* the others */\n", c->CH, c->CH);
        if (c->stable) {
            line(p, "%s *const dst = %s + patc_m + (t * %d + (long long)patc_w * %d - off); /* after the others before */\n",
                 c->et, out, c->TILE, c->CH);
            line(p, "/* a count given wrongly (another predicate's) must not send the others past the output */\n");
            line(p, "const long long room = patc_n - (patc_m + (t * %d + (long long)patc_w * %d - off));\n", c->TILE, c->CH);
            line(p, "for (int i = patc_l, e = (int)max(0ll, min((long long)r, room)); i < e; i += 32) dst[i] = chw[sc + i];\n");
        } else {
            line(p, "%s *const dst = %s + patc_n - (t * %d + (long long)patc_w * %d - off) - r; /* after the others before */\n",
                 c->et, out, c->TILE, c->CH);
            line(p, "for (int i = patc_l; i < r; i += 32) dst[i] = chw[%d - r + i];\n", c->CH);
        }
    }
}

/* the declarations every warp uses: the shared memory carved (in the order, and to the
 * size, prims/warp.c's write_pipe reserves), the operator (or the predicate and a sum),
 * the barriers initialised */
static void pipe_setup(Pr *p, const Stmt *s, const PipeShape *c)
{
    static const char *const what[] = {[PIPE_SCAN] = "scanPipe", [PIPE_FILTER] = "filterPipe", [PIPE_PARTITION] = "partitionPipe"};
    line(p, "/* %s: %d compute warps x %d items per lane (tiles of %d), %d slots */\n",
         c->stable ? "partitionStablePipe" : what[s->pipe.kind], c->W, c->IPT, c->TILE, c->S);
    line(p, "const long long patc_n = (long long)(");
    nat(p, s->pipe.n);
    sb_puts(p->o, ");\n");
    line(p, "const long long patc_tiles = (patc_n + %d) / %d;\n", c->TILE - 1, c->TILE);
    if (c->stable) line(p, "const long long patc_m = (long long)%s[0]; /* the selected: the others go from here on */\n", s->pipe.given->name);
    line(p, "unsigned char *const patc_sm = (unsigned char *)%s;\n", s->pipe.ring->name);
    line(p, "%s *const patc_ring = (%s *)patc_sm;\n", c->et, c->et);
    line(p, "unsigned long long *const patc_full = (unsigned long long *)(patc_sm + %lld), *const patc_empty = "
            "patc_full + %d,\n", (long long)c->S * c->TILE * 4, c->S);
    line(p, "    *const patc_tots = patc_empty + %d, *const patc_aggb = patc_tots + %d, *const patc_pref = patc_aggb + %d;\n",
         c->S, c->S, c->S);
    line(p, "long long *const patc_tid = (long long *)(patc_pref + %d);\n", c->S);
    line(p, "unsigned int *const patc_ep = (unsigned int *)(patc_tid + %d);\n", c->S);
    line(p, "%s *const patc_agg = (%s *)(patc_ep + 2), *const patc_wtot = patc_agg + %d, *const patc_woff = patc_wtot + %d,\n",
         c->ct, c->ct, c->S, c->S * c->W);
    if (c->sel) line(p, "    *const patc_off = patc_woff + %d, *const patc_own = patc_off + %d; /* own: a chunk's count */\n",
                  c->S * c->W, c->S * c->W);
    else line(p, "    *const patc_off = patc_woff + %d;\n", c->S * c->W);
    line(p, "const int patc_w = (int)(threadIdx.x >> 5), patc_l = (int)(threadIdx.x & 31);\n");
    if (c->sel) {
        line(p, "const unsigned int patc_init = 0u;\n");
        line(p, "auto patc_op = [](const unsigned int a, const unsigned int b) -> unsigned int { return a + b; };\n");
        line(p, "auto patc_pred = [&](const %s %s) -> bool {\n", c->et, s->pipe.pa->name);
    } else {
        line(p, "const %s patc_init = ", c->ct);
        expr(p, s->pipe.init);
        sb_puts(p->o, ";\n");
        line(p, "auto patc_op = [&](const %s %s, const %s %s) -> %s {\n", c->ct, s->pipe.pa->name, c->ct, s->pipe.pb->name,
             c->ct);
    }
    p->ind++; /* the user's function (the operator op(pa)(pb), or the predicate pred(pa)) */
    stmt(p, s->pipe.ops);
    line(p, "return ");
    expr(p, s->pipe.op);
    sb_puts(p->o, ";\n");
    p->ind--;
    line(p, "};\n");
    line(p, "if (threadIdx.x == 0)\n");
    line(p, "    for (int i = 0; i < %d; i++) {\n", c->S);
    line(p, "        patc_mb_init(&patc_full[i], 1); patc_mb_init(&patc_empty[i], %d); patc_mb_init(&patc_tots[i], %d);\n", 32 * c->W, c->W);
    line(p, "        patc_mb_init(&patc_aggb[i], 32); patc_mb_init(&patc_pref[i], 32);\n");
    line(p, "    }\n");
    line(p, "__syncthreads();\n");
}

/* the producer (lane 0 of warp W + 2): draws tiles in launch order and bulk-copies
 * each into the next free slot; the draw of the launch's last ticket moves the counter
 * to the next epoch */
static void pipe_producer(Pr *p, const PipeShape *c)
{
    line(p, "if (patc_w == %d) { /* the producer */\n", c->W + 2);
    p->ind++;
    line(p, "if (patc_l != 0) return;\n");
    line(p, "for (int k = 0;; k++) {\n");
    p->ind++;
    line(p, "const int sl = k %% %d;\n", c->S);
    line(p, "if (k >= %d) patc_mb_wait(&patc_empty[sl], ((k / %d) - 1) & 1);\n", c->S, c->S);
    line(p, "const unsigned long long d = atomicAdd(%s, 1ull);\n", c->ctr);
    line(p, "if ((unsigned int)d == (unsigned int)(patc_tiles + gridDim.x - 1)) *%s = (d >> 32 << 32) + (1ull << 32);\n", c->ctr);
    line(p, "if (k == 0) *patc_ep = (unsigned int)(d >> 32) & 0x3fffffffu;\n");
    line(p, "const long long t = (long long)(unsigned int)d;\n");
    line(p, "if (t >= patc_tiles) {\n");
    line(p, "    patc_tid[sl] = -1;\n");
    line(p, "    patc_mb_arrive(&patc_full[sl]);\n");
    line(p, "    return;\n");
    line(p, "}\n");
    line(p, "patc_tid[sl] = t;\n");
    const char *tt = "t";
    if (c->stable) {
        line(p, "const long long tt = patc_tiles - 1 - t; /* drawn from the end: the count launch read it last */\n");
        tt = "tt";
    }
    line(p, "/* whole 16-byte vectors only: the compute warps read the last tile's last few from %s */\n", c->in);
    line(p, "const unsigned int bytes = (unsigned int)(((patc_n - %s * %d < %d ? patc_n - %s * %d : %d) * 4) & ~15ll);\n",
         tt, c->TILE, c->TILE, tt, c->TILE, c->TILE);
    line(p, "asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\"); /* after the slot's generic accesses */\n");
    line(p, "patc_mb_expect(&patc_full[sl], bytes);\n");
    line(p, "if (bytes) patc_bulk_load(patc_ring + sl * %d, %s + %s * %d, bytes, &patc_full[sl]);\n", c->TILE, c->in, tt, c->TILE);
    p->ind--;
    line(p, "}\n");
    p->ind--;
    line(p, "}\n");
}

/* the aggregator (warp W): the chunks' totals scanned into their offsets in the tile,
 * the tile's total published (A; P for tile 0) */
static void pipe_aggregator(Pr *p, const PipeShape *c)
{
    line(p, "if (patc_w == %d) { /* the aggregator */\n", c->W);
    p->ind++;
    pipe_round(p, c->S, "patc_tots");
    line(p, "const unsigned int ep = *patc_ep;\n");
    line(p, "const %s v = patc_l < %d ? patc_wtot[sl * %d + patc_l] : patc_init;\n", c->ct, c->W, c->W);
    line(p, "%s inc = v;\n", c->ct);
    line(p, "#pragma unroll\n");
    line(p, "for (int d = 1; d < 32; d <<= 1) { const %s o = __shfl_up_sync(0xffffffffu, inc, d); if (patc_l >= d) inc = patc_op(o, inc); }\n", c->ct);
    line(p, "const %s tot = __shfl_sync(0xffffffffu, inc, 31);\n", c->ct);
    line(p, "%s ex = __shfl_up_sync(0xffffffffu, inc, 1);\n", c->ct);
    line(p, "if (patc_l == 0) {\n");
    line(p, "    ex = patc_init;\n");
    line(p, "    patc_poke(&%s[t], ((unsigned long long)((ep << 2) | (t == 0 ? 2u : 1u)) << 32) | %stot));\n", c->st, flag_pre[c->sk]);
    line(p, "    patc_agg[sl] = tot;\n");
    line(p, "}\n");
    line(p, "if (patc_l < %d) patc_woff[sl * %d + patc_l] = ex;\n", c->W, c->W);
    line(p, "patc_mb_arrive(&patc_aggb[sl]); /* every lane: each releases what it read and wrote */\n");
    p->ind--;
    line(p, "}\n");
    p->ind--;
    line(p, "}\n");
}

/* the look-back warp (warp W + 1): each tile's exclusive prefix from the words before
 * it, P published, the chunks' offsets handed over */
static void pipe_lookback(Pr *p, const Stmt *s, const PipeShape *c)
{
    line(p, "if (patc_w == %d) { /* the look-back */\n", c->W + 1);
    p->ind++;
    line(p, "long long prev = -1; /* this block's previous tile, whose inclusive prefix is prevp */\n");
    line(p, "%s prevp = patc_init;\n", c->ct);
    pipe_round(p, c->S, "patc_aggb");
    line(p, "const unsigned int ep = *patc_ep;\n");
    line(p, "const %s tot = patc_agg[sl];\n", c->ct);
    line(p, "%s acc = patc_init;\n", c->ct);
    line(p, "bool found = t == 0 || prev == t - 1;\n");
    line(p, "/* lane l reads the words of tiles top - 32u - l, u = 0..3 (coalesced): older at higher l and u */\n");
    line(p, "for (long long top = t - 1; !found && top > prev; top -= 128) {\n");
    p->ind++;
    line(p, "unsigned long long wd[4];\n");
    line(p, "for (;;) {\n");
    line(p, "    bool unset = false;\n");
    line(p, "    #pragma unroll\n");
    line(p, "    for (int u = 0; u < 4; u++) {\n");
    line(p, "        const long long j = top - 32 * u - patc_l;\n");
    line(p, "        wd[u] = j > prev ? patc_peek(&%s[j]) : 0ull;\n", c->st);
    line(p, "        const unsigned int hi = (unsigned int)(wd[u] >> 32);\n");
    line(p, "        unset |= j > prev && ((hi >> 2) != ep || (hi & 3u) == 0u); /* a zeroed word is unset in epoch 0 */\n");
    line(p, "    }\n");
    line(p, "    if (!__any_sync(0xffffffffu, unset)) break;\n");
    line(p, "    __nanosleep(20);\n");
    line(p, "}\n");
    line(p, "unsigned int near = 0xffffffffu; /* the distance from top of the nearest P */\n");
    line(p, "#pragma unroll\n");
    line(p, "for (int u = 0; u < 4; u++)\n");
    line(p, "    if (top - 32 * u - patc_l > prev && ((unsigned int)(wd[u] >> 32) & 3u) == 2u) near = min(near, (unsigned int)(32 * u + patc_l));\n");
    line(p, "near = __reduce_min_sync(0xffffffffu, near);\n");
    line(p, "/* each group of 32 combined in order by a shuffle tree (lane l takes op(v[l + d], v[l])), then the groups */\n");
    line(p, "%s g[4];\n", c->ct);
    line(p, "#pragma unroll\n");
    line(p, "for (int u = 0; u < 4; u++)\n");
    line(p, "    g[u] = top - 32 * u - patc_l > prev && (unsigned int)(32 * u + patc_l) <= near ? %s(unsigned int)wd[u]) : patc_init;\n",
         unflag_pre[c->sk]);
    line(p, "#pragma unroll\n");
    line(p, "for (int d = 1; d < 32; d <<= 1)\n");
    line(p, "    #pragma unroll\n");
    line(p, "    for (int u = 0; u < 4; u++) { const %s o = __shfl_down_sync(0xffffffffu, g[u], d); if (patc_l + d < 32) g[u] = patc_op(o, g[u]); }\n", c->ct);
    line(p, "acc = patc_op(__shfl_sync(0xffffffffu, patc_op(patc_op(patc_op(g[3], g[2]), g[1]), g[0]), 0), acc);\n");
    line(p, "found = near != 0xffffffffu;\n");
    p->ind--;
    line(p, "}\n");
    line(p, "if (!found || prev == t - 1) acc = patc_op(prevp, acc); /* back to the previous tile: its prefix */\n");
    line(p, "if (t == 0) acc = patc_init;\n");
    line(p, "const %s inc = patc_op(acc, tot);\n", c->ct);
    line(p, "if (patc_l == 0 && t != 0) patc_poke(&%s[t], ((unsigned long long)((ep << 2) | 2u) << 32) | %sinc));\n", c->st, flag_pre[c->sk]);
    if (c->sel) line(p, "if (patc_l == 0 && t == patc_tiles - 1) %s[0] = inc; /* the count: every tile's */\n", s->pipe.count->name);
    if (c->stable) /* acc: the selected in the tiles after t; tot: t's own */
        line(p, "if (patc_l < %d) patc_off[sl * %d + patc_l] = (unsigned int)patc_m - acc - tot + patc_woff[sl * %d + patc_l];\n",
             c->W, c->W, c->W);
    else
        line(p, "if (patc_l < %d) patc_off[sl * %d + patc_l] = patc_op(acc, patc_woff[sl * %d + patc_l]);\n", c->W, c->W, c->W);
    line(p, "patc_mb_arrive(&patc_pref[sl]);\n");
    line(p, "prev = t;\n");
    line(p, "prevp = inc;\n");
    p->ind--;
    line(p, "}\n");
    p->ind--;
    line(p, "}\n");
}

/* the compute warps: scan (or flag and compact) a newly loaded tile's chunk, or finish
 * one whose offset is known, whichever is ready */
static void pipe_compute(Pr *p, const Stmt *s, const PipeShape *c)
{
    line(p, "/* compute warp patc_w: elements patc_w * %d .. + %d of each tile, %d per lane */\n", c->CH, c->CH - 1, c->IPT);
    line(p, "int next = 0, old = 0; /* the next tile to scan, the oldest to finish (slot iterations) */\n");
    line(p, "bool done = false;\n");
    line(p, "for (;;) {\n");
    p->ind++;
    line(p, "if (!done && next - old < %d && __all_sync(0xffffffffu, patc_mb_test(&patc_full[next %% %d], (next / %d) & 1))) {\n", c->S, c->S, c->S);
    p->ind++;
    line(p, "const int sl = next %% %d;\n", c->S);
    if (c->stable) {
        line(p, "if (patc_tid[sl] < 0) { done = true; continue; }\n");
        pipe_tile(p, c);
    } else {
        pipe_tile(p, c);
        line(p, "if (t < 0) { done = true; continue; }\n");
    }
    line(p, "next++;\n");
    pipe_chunk_count(p, c, " /* of this chunk */");
    line(p, "%s *const ch = (%s *)(patc_ring + sl * %d + patc_w * %d) + patc_l * %d;\n", c->v4, c->v4, c->TILE, c->CH, c->IPT / 4);
    line(p, "%s x[%d];\n", c->et, c->IPT);
    line(p, "#pragma unroll\n");
    line(p, "for (int q = 0; q < %d; q++) { const %s u = ch[q]; x[4 * q] = u.x; x[4 * q + 1] = u.y; x[4 * q + 2] = u.z; x[4 * q + 3] = u.w; }\n",
         c->IPT / 4, c->v4);
    line(p, "if (cnt < (long long)(patc_l + 1) * %d) { /* the last tile: past the copy, from %s; past n, %s */\n", c->IPT, c->in,
         c->sel ? "0 (not selected)" : "init");
    line(p, "    const long long copied = ((patc_n - t * %d) & ~3ll) - (long long)patc_w * %d;\n", c->TILE, c->CH);
    line(p, "    #pragma unroll\n");
    line(p, "    for (int i = 0; i < %d; i++) {\n", c->IPT);
    line(p, "        const long long j = (long long)patc_l * %d + i;\n", c->IPT);
    line(p, "        if (j >= copied) x[i] = j < cnt ? %s[t * %d + (long long)patc_w * %d + j] : %s;\n", c->in, c->TILE, c->CH,
         c->sel ? "0" : "patc_init");
    line(p, "    }\n");
    line(p, "}\n");
    if (c->sel) {
        pipe_select_scan(p, c);
    } else {
        line(p, "#pragma unroll\n");
        line(p, "for (int i = 1; i < %d; i++) x[i] = patc_op(x[i - 1], x[i]);\n", c->IPT);
        line(p, "%s v = x[%d];\n", c->ct, c->IPT - 1);
        line(p, "#pragma unroll\n");
        line(p, "for (int d = 1; d < 32; d <<= 1) { const %s o = __shfl_up_sync(0xffffffffu, v, d); if (patc_l >= d) v = patc_op(o, v); }\n", c->ct);
        line(p, "%s ex = __shfl_up_sync(0xffffffffu, v, 1);\n", c->ct);
        line(p, "if (patc_l == 0) ex = patc_init;\n");
        if (s->pipe.excl) {
            line(p, "/* exclusive: element i gets the prefix before it */\n");
            line(p, "#pragma unroll\n");
            line(p, "for (int i = %d; i > 0; i--) x[i] = patc_op(ex, x[i - 1]);\n", c->IPT - 1);
            line(p, "x[0] = ex;\n");
        } else {
            line(p, "#pragma unroll\n");
            line(p, "for (int i = 0; i < %d; i++) x[i] = patc_op(ex, x[i]);\n", c->IPT);
        }
        line(p, "#pragma unroll\n");
        line(p, "for (int q = 0; q < %d; q++) { %s u; u.x = x[4 * q]; u.y = x[4 * q + 1]; u.z = x[4 * q + 2]; u.w = x[4 * q + 3]; ch[q] = u; }\n",
             c->IPT / 4, c->v4);
        line(p, "__syncwarp(); /* the chunk written back, before other lanes read it to finish it */\n");
        line(p, "if (patc_l == 31) { patc_wtot[sl * %d + patc_w] = v; patc_mb_arrive(&patc_tots[sl]); }\n", c->W);
    }
    line(p, "continue;\n");
    p->ind--;
    line(p, "}\n");
    line(p, "if (old < next && __all_sync(0xffffffffu, patc_mb_test(&patc_pref[old %% %d], (old / %d) & 1))) {\n", c->S, c->S);
    p->ind++;
    line(p, "const int sl = old %% %d;\n", c->S);
    if (!c->sel || c->part) pipe_tile(p, c); /* a filter's finish does not need t (nvcc would warn) */
    if (c->sel) {
        pipe_select_finish(p, c);
    } else {
        line(p, "const %s off = patc_off[sl * %d + patc_w];\n", c->ct, c->W);
        pipe_chunk_count(p, c, "");
        line(p, "const %s *const ch = (const %s *)(patc_ring + sl * %d + patc_w * %d);\n", c->v4, c->v4, c->TILE, c->CH);
        line(p, "%s *const o = %s + t * %d + (long long)patc_w * %d;\n", c->et, c->out, c->TILE, c->CH);
        line(p, "#pragma unroll\n");
        line(p, "for (int q = 0; q < %d; q++) {\n", c->IPT / 4);
        line(p, "    const int i4 = q * 32 + patc_l;\n");
        line(p, "    %s u = ch[i4];\n", c->v4);
        line(p, "    u.x = patc_op(off, u.x); u.y = patc_op(off, u.y); u.z = patc_op(off, u.z); u.w = patc_op(off, u.w);\n");
        line(p, "    if (4ll * i4 + 4 <= cnt) {\n");
        line(p, "        ((%s *)o)[i4] = u;\n", c->v4);
        line(p, "    } else {\n");
        line(p, "        if (4ll * i4 < cnt) o[4 * i4] = u.x;\n");
        line(p, "        if (4ll * i4 + 1 < cnt) o[4 * i4 + 1] = u.y;\n");
        line(p, "        if (4ll * i4 + 2 < cnt) o[4 * i4 + 2] = u.z;\n");
        line(p, "    }\n");
        line(p, "}\n");
    }
    static const char *const free_slot[] = {
        "asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\"); /* before the slot's next bulk copy */",
        "patc_mb_arrive(&patc_empty[sl]); /* every lane: each releases its own reads and writes of the slot */", "old++;",
        "continue;", NULL};
    lines(p, free_slot);
    p->ind--;
    line(p, "}\n");
    line(p, "if (done && old == next) return;\n");
    line(p, "__nanosleep(20);\n");
    p->ind--;
    line(p, "}\n");
}

/* scanPipe, filterPipe, partitionPipe (prims/warp.c): the whole kernel, in five parts
 * (pipe_setup, pipe_producer, pipe_aggregator, pipe_lookback, pipe_compute; a filter's
 * compute warps flag and compact their chunks instead: pipe_select_scan and
 * pipe_select_finish, and hand counts on). A persistent grid (the runtime caps the
 * grid at the SM count) whose blocks each run four kinds of warps over a ring of S
 * shared-memory slots, one tile of W*32*IPT elements each:
 *   - the producer (warp W+2, lane 0) draws tile numbers in launch order from the
 *     counter {epoch, count} and bulk-copies each tile into the next free slot
 *     (cp.async.bulk, completing the slot's mbarrier `full`); the draw of the launch's
 *     last ticket (tiles + gridDim.x of them: every block draws once past the end) sets
 *     the counter to {epoch + 1, 0}, so no launch resets anything;
 *   - compute warp w scans its chunk of 32*IPT elements of a tile (IPT consecutive
 *     elements per lane in registers, then the lanes' totals with shuffles), writes the
 *     chunk's prefixes back into the slot and hands the chunk's total to the aggregator
 *     (barrier `tots`); once the look-back has given the chunk its offset (barrier
 *     `pref`), it applies it and stores the chunk to the output. It never waits: it takes
 *     whichever of the two is ready, holding at most S tiles, and frees a slot by
 *     arriving on `empty`;
 *   - the aggregator (warp W) scans the chunks' totals into their offsets in the tile
 *     and publishes the tile's total (flag A, or P for tile 0) in the tile's word;
 *   - the look-back warp (warp W+1) finds each tile's exclusive prefix from the words
 *     of the tiles before it (seed 001's decoupled look-back, 4 x 32 words a round,
 *     newest first, back to the nearest P, never past its own block's previous tile,
 *     whose prefix it knows), publishes P and hands each chunk its offset.
 * Every access to shared memory that another warp's later access depends on is ordered
 * by an mbarrier arrive of the lane that made it (release) and the other's wait
 * (acquire): so every lane of the aggregator, the look-back warp and the compute warps
 * arrives (compute-sanitizer's racecheck does not count one lane's arrive after a
 * __syncwarp for the others, and reported the slots' reuse). A word is
 * ((epoch << 2 | flag) << 32 | value bits); a word of another epoch, or with flag 0
 * (zeroed memory, in epoch 0), is unset.
 * The hand-written form of this design, and its measurements, are in bench/exp/wspec. */
static void pipe_scan(Pr *p, const Stmt *s)
{
    const int W = s->pipe.nw, IPT = s->pipe.ipt, S = s->pipe.slots, TILE = W * 32 * IPT, CH = 32 * IPT;
    const bool sel = s->pipe.kind != PIPE_SCAN, part = s->pipe.kind == PIPE_PARTITION, stable = s->pipe.given != NULL;
    /* ek: the elements' type; sk: the values the warps hand over and the tile words
     * carry (a filter's and partition's: counts) */
    ScalarKind ek = s->pipe.in->sk, sk = sel ? SK_U32 : ek;
    const char *et = scalar_info[ek].ctype, *ct = scalar_info[sk].ctype, *v4 = vec_type(ek, 4);
    const char *in = s->pipe.in->name, *out = s->pipe.out->name, *st = s->pipe.state->name, *ctr = s->pipe.ctr->name;
    const PipeShape c = {W, IPT, S, TILE, CH, sel, part, stable, ek, sk, et, ct, v4, in, out, st, ctr};
    pipe_setup(p, s, &c);
    pipe_producer(p, &c);
    pipe_aggregator(p, &c);
    pipe_lookback(p, s, &c);
    pipe_compute(p, s, &c);
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
static void header(Pr *p)
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
    "/* lookback's flags of values wider than 32 bits: relaxed 32-bit words */\n"
    "static __device__ __forceinline__ unsigned int patc_peek32(const unsigned int *p) { unsigned int w; "
    "asm volatile(\"ld.relaxed.gpu.global.u32 %0, [%1];\" : \"=r\"(w) : \"l\"(p) : \"memory\"); return w; }\n"
    "/* the release orders the value stored before it ahead of the flag */\n"
    "static __device__ __forceinline__ void patc_poke32(unsigned int *p, unsigned int w) { "
    "asm volatile(\"st.release.gpu.global.u32 [%0], %1;\" :: \"l\"(p), \"r\"(w) : \"memory\"); }\n\n";

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
    ":: \"r\"(patc_sa(dst)), \"l\"(src), \"r\"(bytes), \"r\"(patc_sa(b)) : \"memory\"); }\n\n";

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
    bool flags32 = strstr(body, "patc_poke32(") || strstr(body, "patc_peek32(");
    bool acq_rel = strstr(body, "patc_atom_add_acq_rel(");
    bool pipe = strstr(body, "patc_mb_");
    bool launch = false, wide = false;
    for (int i = 0; i < n; i++) {
        launch |= ks[i]->iw == IW_LAUNCH;
        wide |= ks[i]->iw != IW_32;
    }
    if (launch) sb_puts(&h, prelude_index);
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
    if (flags32) sb_puts(&h, prelude_flags32);
    if (acq_rel) sb_puts(&h, prelude_acq_rel);
    if (pipe) sb_puts(&h, prelude_pipe);
    if (!fdiv && !flags && !flags32 && !acq_rel && !pipe) sb_putc(&h, '\n');
    sb_insert(out, at, sb_str(&h));
}
