/* interp.c: the CPU interpreter of the typed functional IR, the reference semantics
 * that generated kernels are checked against.
 *
 * Requires: a KernelDef from typecheck (every Expr typed, functions of primitives are
 * E_LAM, toPrivateFun/toSharedFun usually desugared by expand).
 * Ensures: the flattened output of the kernel for the given nat values and inputs, or
 * false with a message for a run-time error (division by zero, a shflWarp source out of
 * the warp, an undefined nat).
 *
 * Design. The Expr tree is first translated to a Code tree in which every nat (sizes,
 * primitive nat arguments) is already evaluated, so the inner loops never call nat_eval.
 * A value (Val) is a scalar, or a node plus a path prefix. Nodes are either stores
 * (packed scalar buffers, one per scalar leaf of the type: pairs are kept as a
 * structure of arrays) or lazy views (split, join, transpose, pad, drop, slide, zip,
 * unzip, pair, shuffles) that map an index path to the path of their operand, like
 * the index functions of lower.c. A path has one entry per array or pair level (0/1
 * selects a pair component). Only maps, generate and non-scalar accumulators
 * materialise. Memory of one map or reduce iteration lives on a LIFO pool and is
 * released when its result has been copied out, so memory stays proportional to the
 * largest materialised value, not to the work done.
 *
 * Inputs are read in place, never copied. Run-time errors longjmp out of the evaluator;
 * everything a run allocates is on its arena or its pool, so nothing leaks either way.
 *
 * No global mutable state: all state is in a Ctx allocated per call, so several
 * threads may interpret at once.
 */
#include "interp.h"
#include "../prims/prims.h"

#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef IpVal Val;
typedef IpCtx Ctx;

/* ---------------------------------------------------------------- pool */

enum { BLK_SIZE = 256 * 1024 };

/* Report a run-time error at sp and abandon the run (everything is freed by the caller). */
_Noreturn __attribute__((format(printf, 3, 4))) void ip_fail(Ctx *c, Span sp, const char *fmt, ...)
{
    if (c->err && c->errlen) {
        size_t off = 0;
        if (sp.file) {
            int w = snprintf(c->err, c->errlen, "%s:%d:%d: ", sp.file->path, sp.line, sp.col);
            off = w < 0 ? 0 : (size_t)w < c->errlen ? (size_t)w : c->errlen - 1;
        }
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err + off, c->errlen - off, fmt, ap);
        va_end(ap);
    }
    longjmp(c->fail, 1);
}

/* the position of errors that have none (internal ones, out of memory) */
static const Span nospan;

/* bump within the top block, else push a block of max(size, BLK_SIZE) */
void *ip_pool_alloc(Ctx *c, size_t size, bool zero)
{
    size = (size + 15) & ~(size_t)15;
    Blk *t = c->top;
    if (!t || t->cap - t->used < size) {
        if (size <= BLK_SIZE && c->spare) {
            t = c->spare;
            c->spare = NULL;
        } else {
            size_t cap = size > BLK_SIZE ? size : BLK_SIZE;
            t = lang_malloc(sizeof(Blk) + cap);
            if (!t) ip_fail(c, nospan, INTERP_NO_MEMORY);
            t->cap = cap;
        }
        t->used = 0;
        t->prev = c->top;
        c->top = t;
    }
    void *p = t->data + t->used;
    t->used += size;
    if (zero) memset(p, 0, size);
    return p;
}

/* the current top of the pool, to release back to */
Mark ip_pool_mark(Ctx *c) { return (Mark){c->top, c->top ? c->top->used : 0}; }

/* pop blocks pushed since the mark; keep one standard block as the spare */
void ip_pool_release(Ctx *c, Mark m)
{
    while (c->top != m.top) {
        Blk *t = c->top;
        c->top = t->prev;
        if (t->cap == BLK_SIZE && !c->spare)
            c->spare = t;
        else
            free(t);
    }
    if (c->top) c->top->used = m.used;
}

/* free every block, the spare included */
static void pool_free(Ctx *c)
{
    ip_pool_release(c, (Mark){NULL, 0});
    free(c->spare);
    c->spare = NULL;
}

/* ---------------------------------------------------------------- scalars */

/* The scalar of kind sk with integer value v (C conversion rules; bool is v != 0). */
Scalar ip_scalar_of_int(ScalarKind sk, int64_t v)
{
    Scalar s = {0};
    switch (sk) {
    case SK_F32: s.f = (float)v; break;
    case SK_F64: s.d = (double)v; break;
    case SK_I32: s.i = (int32_t)(uint32_t)v; break;
    case SK_U32: s.u = (uint32_t)v; break;
    case SK_I64: s.i = v; break;
    case SK_U64: s.u = (uint64_t)v; break;
    case SK_BOOL: s.b = v != 0; break;
    case SK_COUNT: unreachable();
    }
    return s;
}

/* Packed little-endian element i of a buffer of kind sk (idx is i32, bool one byte). */
static Scalar load(ScalarKind sk, const unsigned char *base, int64_t i)
{
    Scalar s = {0};
    switch (sk) {
    case SK_F32: memcpy(&s.f, base + 4 * i, 4); break;
    case SK_F64: memcpy(&s.d, base + 8 * i, 8); break;
    case SK_I32: { int32_t v; memcpy(&v, base + 4 * i, 4); s.i = v; break; }
    case SK_U32: { uint32_t v; memcpy(&v, base + 4 * i, 4); s.u = v; break; }
    case SK_I64: memcpy(&s.i, base + 8 * i, 8); break;
    case SK_U64: memcpy(&s.u, base + 8 * i, 8); break;
    case SK_BOOL: s.b = base[i] != 0; break;
    case SK_COUNT: unreachable();
    }
    return s;
}

/* store element i of a packed buffer of kind sk (the inverse of load) */
static void store1(ScalarKind sk, unsigned char *base, int64_t i, Scalar s)
{
    switch (sk) {
    case SK_F32: memcpy(base + 4 * i, &s.f, 4); break;
    case SK_F64: memcpy(base + 8 * i, &s.d, 8); break;
    case SK_I32: { int32_t v = (int32_t)s.i; memcpy(base + 4 * i, &v, 4); break; }
    case SK_U32: { uint32_t v = (uint32_t)s.u; memcpy(base + 4 * i, &v, 4); break; }
    case SK_I64: memcpy(base + 8 * i, &s.i, 8); break;
    case SK_U64: memcpy(base + 8 * i, &s.u, 8); break;
    case SK_BOOL: base[i] = s.b ? 1 : 0; break;
    case SK_COUNT: unreachable();
    }
}

/* Comparisons yield bool, compared in the operands' own kind (NaN compares false). */
bool ip_compare(BinOp op, ScalarKind sk, Scalar a, Scalar b)
{
#define CMP(x, y)                      \
    switch (op) {                      \
    case OP_LT: return (x) < (y);      \
    case OP_GT: return (x) > (y);      \
    case OP_LE: return (x) <= (y);     \
    case OP_GE: return (x) >= (y);     \
    case OP_EQ: return (x) == (y);     \
    case OP_NE: return (x) != (y);     \
    case OP_ADD: case OP_SUB: case OP_MUL: \
    case OP_DIV: case OP_MOD: case OP_AND: \
    case OP_OR: case OP_BAND: case OP_BOR: \
    case OP_BXOR: case OP_SHL: case OP_SHR: \
    case OP_COUNT: break; \
    }                                  \
    unreachable();
    switch (sk) {
    case SK_F32: CMP(a.f, b.f);
    case SK_F64: CMP(a.d, b.d);
    case SK_I32: case SK_I64: CMP(a.i, b.i);
    case SK_U32: case SK_U64: CMP(a.u, b.u);
    case SK_BOOL: CMP((int)a.b, (int)b.b);
    case SK_COUNT: break;
    }
    unreachable();
#undef CMP
}

/* An integer scalar's value in 64 bits: i32 sign-extended, u32 zero-extended. */
uint64_t ip_widen(ScalarKind sk, Scalar s)
{
    if (sk == SK_I32) return (uint64_t)(int64_t)(int32_t)(uint32_t)s.u;
    if (sk == SK_U32) return (uint32_t)s.u;
    return s.u;
}

/* Arithmetic with C semantics on the operand kind: f32 in float, f64 in double,
 * 32-bit integers wrap in 32 bits, unsigned wrap; integer / and % truncate, and a zero
 * divisor is a run-time error. INT_MIN / -1 wraps to INT_MIN (remainder 0), as on the
 * GPU, instead of being undefined. */
Scalar ip_binop(Ctx *c, Span sp, BinOp op, ScalarKind sk, Scalar a, Scalar b)
{
    Scalar r = {0};
    if (op >= OP_LT && op <= OP_NE) {
        r.b = ip_compare(op, sk, a, b);
        return r;
    }
    if (op == OP_AND || op == OP_OR) {
        r.b = op == OP_AND ? a.b && b.b : a.b || b.b;
        return r;
    }
    switch (sk) {
    case SK_F32:
        switch (op) {
        case OP_ADD: r.f = a.f + b.f; break;
        case OP_SUB: r.f = a.f - b.f; break;
        case OP_MUL: r.f = a.f * b.f; break;
        case OP_DIV: r.f = a.f / b.f; break;
        case OP_MOD: r.f = fmodf(a.f, b.f); break;
        case OP_BAND: case OP_BOR: case OP_BXOR: case OP_SHL: case OP_SHR:
        case OP_LT: case OP_GT: case OP_LE: case OP_GE: case OP_EQ: case OP_NE: case OP_AND: case OP_OR:
        case OP_COUNT: unreachable();
        }
        return r;
    case SK_F64:
        switch (op) {
        case OP_ADD: r.d = a.d + b.d; break;
        case OP_SUB: r.d = a.d - b.d; break;
        case OP_MUL: r.d = a.d * b.d; break;
        case OP_DIV: r.d = a.d / b.d; break;
        case OP_MOD: r.d = fmod(a.d, b.d); break;
        case OP_BAND: case OP_BOR: case OP_BXOR: case OP_SHL: case OP_SHR:
        case OP_LT: case OP_GT: case OP_LE: case OP_GE: case OP_EQ: case OP_NE: case OP_AND: case OP_OR:
        case OP_COUNT: unreachable();
        }
        return r;
    case SK_I32: case SK_U32: case SK_I64: case SK_U64: {
        /* 32-bit operands widened (i32 sign-, u32 zero-extended): +, -, * and the
         * truncating / and % in 64 bits give the 32-bit result once scalar_of_int
         * truncates it, and INT_MIN / -1 wraps in either width */
        uint64_t x = ip_widen(sk, a), y = ip_widen(sk, b), v = 0;
        bool sg = sk == SK_I32 || sk == SK_I64;
        switch (op) {
        case OP_ADD: v = x + y; break;
        case OP_SUB: v = x - y; break;
        case OP_MUL: v = x * y; break;
        case OP_DIV: case OP_MOD:
            if (y == 0) ip_fail(c, sp, "%s by zero", op == OP_DIV ? "division" : "remainder");
            if (sg && (int64_t)y == -1)
                v = op == OP_DIV ? 0u - x : 0u;
            else if (sg)
                v = (uint64_t)(op == OP_DIV ? (int64_t)x / (int64_t)y : (int64_t)x % (int64_t)y);
            else
                v = op == OP_DIV ? x / y : x % y;
            break;
        case OP_BAND: v = x & y; break;
        case OP_BOR: v = x | y; break;
        case OP_BXOR: v = x ^ y; break;
        case OP_SHL: case OP_SHR: {
            /* a count outside 0..width-1 is undefined in C: an error here. A left shift
             * wraps in the type (what the GPU computes), a right shift of a signed value
             * is arithmetic (nvcc's choice, which C leaves to the implementation) */
            int bits = scalar_info[sk].size * 8;
            if ((sg && (int64_t)y < 0) || y >= (uint64_t)bits)
                ip_fail(c, sp, "%s by %lld: the count must be in 0..%d for %s", op == OP_SHL ? "shl" : "shr",
                        sg ? (long long)(int64_t)y : (long long)y, bits - 1, scalar_info[sk].name);
            v = op == OP_SHL ? x << y : sg ? (uint64_t)((int64_t)x >> y) : x >> y;
            break;
        }
        case OP_LT: case OP_GT: case OP_LE: case OP_GE: case OP_EQ: case OP_NE: case OP_AND: case OP_OR:
        case OP_COUNT: unreachable();
        }
        return ip_scalar_of_int(sk, (int64_t)v);
    }
    case SK_BOOL: ip_fail(c, sp, "arithmetic operator '%s' on bool", binop_spelling[op]);
    case SK_COUNT: break;
    }
    unreachable();
}

/* -x with wrap-around for integers; !b on bool; ~x on integers. */
static Scalar unop(Ctx *c, Span sp, UnOp op, ScalarKind sk, Scalar a)
{
    Scalar r = {0};
    if (op == UOP_NOT) {
        if (sk != SK_BOOL) ip_fail(c, sp, "'!' on a non-bool value");
        r.b = !a.b;
        return r;
    }
    if (op == UOP_BNOT) {
        if (sk == SK_BOOL || scalar_info[sk].is_float) ip_fail(c, sp, "'~' on a non-integer value");
        return ip_scalar_of_int(sk, (int64_t)~ip_widen(sk, a));
    }
    switch (sk) {
    case SK_F32: r.f = -a.f; return r;
    case SK_F64: r.d = -a.d; return r;
    case SK_I32: case SK_U32: case SK_I64: case SK_U64: return ip_scalar_of_int(sk, (int64_t)(0u - a.u));
    case SK_BOOL: ip_fail(c, sp, "'-' on bool");
    case SK_COUNT: break;
    }
    unreachable();
}

/* ---------------------------------------------------------------- stores */

/* Leaves of type t in order (left before right of a pair); each holds one scalar per
 * combination of the array indices above it. */
static void leaves_fill(const RType *t, int64_t count, Leaf *out, int *k)
{
    switch (t->kind) {
    case T_SCALAR: out[*k].sk = t->sk; out[*k].count = count; ++*k; return;
    case T_ARRAY: leaves_fill(t->elem, count * t->n, out, k); return;
    case T_PAIR: leaves_fill(t->a, count, out, k); leaves_fill(t->b, count, out, k); return;
    case T_IDX: case T_FUN: unreachable();
    }
}

/* A store of type t over caller memory `data` (one leaf) or, when data is NULL, over
 * fresh pool memory. */
Node *ip_store_new(Ctx *c, const RType *t, unsigned char *data)
{
    Node *n = ip_pool_alloc(c, sizeof(Node), true);
    n->kind = N_STORE;
    n->store.ty = t;
    n->store.leaves = ip_pool_alloc(c, sizeof(Leaf) * (size_t)t->nleaves, true);
    int k = 0;
    leaves_fill(t, 1, n->store.leaves, &k);
    for (int i = 0; i < k; i++) {
        Leaf *l = &n->store.leaves[i];
        if (data) {
            l->data = data;
        } else {
            size_t bytes = (size_t)l->count * (size_t)scalar_info[l->sk].size;
            l->data = ip_pool_alloc(c, bytes ? bytes : 1, false);
        }
    }
    return n;
}

/* path p[0..len) of a store -> (leaf, row-major index over the arrays above the leaf) */
static Leaf *store_locate(Ctx *c, const Node *n, const int64_t *p, int len, int64_t *flat)
{
    const RType *t = n->store.ty;
    int leaf = 0;
    int64_t f = 0;
    for (int d = 0; d < len; d++) {
        if (t->kind == T_ARRAY) {
            if (p[d] < 0 || p[d] >= t->n) ip_fail(c, nospan, "internal: index %lld out of bounds %lld",
                                                (long long)p[d], (long long)t->n);
            f = f * t->n + p[d];
            t = t->elem;
        } else if (t->kind == T_PAIR) {
            if (p[d]) leaf += t->a->nleaves;
            t = p[d] ? t->b : t->a;
        } else {
            ip_fail(c, nospan, "internal: path too long for the stored type");
        }
    }
    if (t->kind != T_SCALAR) ip_fail(c, nospan, "internal: path too short for the stored type");
    *flat = f;
    return &n->store.leaves[leaf];
}

/* ---------------------------------------------------------------- reading through views */

/* Paths are a few entries long. A call of memcpy per copy was a tenth of the
 * interpreter's time, and GCC turns a plain loop back into that call, so the short
 * lengths are spelled out. */
static inline void copy_path(int64_t *d, const int64_t *s, int len)
{
    switch (len) {
    case 4: d[3] = s[3]; /* fall through */
    case 3: d[2] = s[2]; /* fall through */
    case 2: d[1] = s[1]; /* fall through */
    case 1: d[0] = s[0]; /* fall through */
    case 0: return;
    }
    memcpy(d, s, sizeof(int64_t) * (size_t)len);
}

/* Enter operand v: put its prefix in front of the path. The path is right-aligned in a
 * buffer of MAXD entries, so there is room in front (a path never exceeds the depth of
 * the type it indexes). Returns true when v is a scalar (the path is then empty). */
static inline bool enter(const Val *v, const Node **n, int64_t **p, int *len)
{
    if (!v->node) return true;
    *p -= v->plen;
    copy_path(*p, v->pre, v->plen);
    *len += v->plen;
    *n = v->node;
    return false;
}

/* The scalar at path p[0..len) of node n; p is right-aligned in a MAXD buffer and is
 * clobbered. Each view rewrites the front of the path as its index function says. */
static Scalar rd(Ctx *c, const Node *n, int64_t *p, int len)
{
    for (;;) {
        const Val *v = &n->a;
        switch (n->kind) {
        case N_STORE: {
            int64_t f;
            Leaf *l = store_locate(c, n, p, len, &f);
            return load(l->sk, l->data, f);
        }
        case N_SPLIT: /* split(k)(a)[i][j] = a[i*k + j] */
            p[1] = p[0] * n->k + p[1];
            p++, len--;
            break;
        case N_JOIN: /* join(a)[i] = a[i / m][i % m] */
            p--, len++;
            p[0] = p[1] / n->k;
            p[1] = p[1] % n->k;
            break;
        case N_TRANSPOSE: { /* transpose(a)[i][j] = a[j][i] */
            int64_t t = p[0];
            p[0] = p[1];
            p[1] = t;
            break;
        }
        case N_PADCST: /* l copies of b, then a, then copies of b */
            if (p[0] < n->k || p[0] >= n->k + n->n) {
                v = &n->b;
                p++, len--;
            } else {
                p[0] -= n->k;
            }
            break;
        case N_PADCLAMP: /* padClamp(l)(r)(a)[i] = a[clamp(i - l, 0, n - 1)] */
            p[0] -= n->k;
            if (p[0] < 0) p[0] = 0;
            if (p[0] >= n->n) p[0] = n->n - 1;
            break;
        case N_DROP: /* drop(k)(a)[i] = a[i + k] */
            p[0] += n->k;
            break;
        case N_SLIDE: /* slide(sz)(sp)(a)[i][j] = a[i*sp + j] */
            p[1] = p[0] * n->k + p[1];
            p++, len--;
            break;
        case N_ZIP: { /* zip(a, b)[i] = (a[i], b[i]) */
            int64_t i = p[0];
            if (p[1]) v = &n->b;
            p++, len--;
            p[0] = i;
            break;
        }
        case N_UNZIP: { /* unzip(z) = (z[.].0, z[.].1) : path [s, i] -> [i, s] */
            int64_t t = p[0];
            p[0] = p[1];
            p[1] = t;
            break;
        }
        case N_PAIR: /* pair(a, b) */
            if (p[0]) v = &n->b;
            p++, len--;
            break;
        case N_PERM: /* lane i reads lane perm[i] */
            p[0] = n->perm[p[0]];
            break;
        case N_CONCAT: /* concat(a)(b)[i] = i < k ? a[i] : b[i - k] */
            if (p[0] >= n->k) {
                p[0] -= n->k;
                v = &n->b;
            }
            break;
        case N_PADEMPTY:
            if (p[0] >= n->n)
                ip_fail(c, n->sp, "element %lld of padEmpty is read, but padEmpty's padding (elements %lld and up) "
                     "holds no value", (long long)p[0], (long long)n->n);
            break;
        case N_WRITTEN:
            if (n->perm[p[0]] < 0)
                ip_fail(c, n->sp, "element %lld of scatter's output is read, but no index wrote it", (long long)p[0]);
            break;
        }
        if (enter(v, &n, &p, &len)) return v->s;
    }
}

/* The scalar of v at sub-path sub[0..len). */
static Scalar val_read(Ctx *c, const Val *v, const int64_t *sub, int len)
{
    if (!v->node) return v->s;
    int64_t buf[MAXD];
    int64_t *p = buf + MAXD - len;
    copy_path(p, sub, len);
    const Node *n;
    if (enter(v, &n, &p, &len)) return v->s;
    return rd(c, n, p, len);
}

/* *d = *s, copying only the used part of the prefix (values are copied often). */
void ip_val_set(Val *d, const Val *s)
{
    d->ty = s->ty;
    d->node = s->node;
    d->s = s->s;
    d->plen = s->plen;
    copy_path(d->pre, s->pre, s->plen);
}

/* *v = the whole of node n, of type t */
void ip_val_node(Val *v, const RType *t, Node *n)
{
    v->ty = t;
    v->node = n;
    v->s.u = 0;
    v->plen = 0;
}

/* *v = the scalar s of type t */
void ip_val_scalar(Val *v, const RType *t, Scalar s)
{
    v->ty = t;
    v->node = NULL;
    v->s = s;
    v->plen = 0;
}

/* *r = component i (an array index, or 0/1 of a pair) of v; et is its type; r may be v.
 * Scalars are read at once, so a loop over an array of scalars allocates nothing. */
void ip_val_sel(Ctx *c, const Val *v, int64_t i, const RType *et, Val *r)
{
    if (et->kind == T_SCALAR) {
        ip_val_scalar(r, et, val_read(c, v, &i, 1));
        return;
    }
    if (r != v) ip_val_set(r, v);
    r->ty = et;
    r->pre[r->plen++] = i;
}

/* the type of generate's index (idx counts as i32) */
const RType ip_rt_i32 = {.kind = T_SCALAR, .sk = SK_I32, .nleaves = 1};

/* Copy every scalar of src (type t, at sub-path sp[0..slen)) into store dst at path
 * dp[0..dlen) + the same sub-path. */
static void copy_into(Ctx *c, Node *dst, int64_t *dp, int dlen, const Val *src, int64_t *sp, int slen,
                      const RType *t)
{
    switch (t->kind) {
    case T_SCALAR: {
        Scalar s = val_read(c, src, sp, slen);
        int64_t f;
        Leaf *l = store_locate(c, dst, dp, dlen, &f);
        store1(l->sk, l->data, f, s);
        return;
    }
    case T_ARRAY:
        if (t->n == 0) return;
        if (t->elem->kind == T_SCALAR && src->node) {
            /* the common case: a row of scalars, located once */
            int64_t f;
            dp[dlen] = 0;
            Leaf *l = store_locate(c, dst, dp, dlen + 1, &f);
            for (int64_t i = 0; i < t->n; i++) {
                sp[slen] = i;
                store1(l->sk, l->data, f + i, val_read(c, src, sp, slen + 1));
            }
            return;
        }
        for (int64_t i = 0; i < t->n; i++) {
            dp[dlen] = sp[slen] = i;
            copy_into(c, dst, dp, dlen + 1, src, sp, slen + 1, t->elem);
        }
        return;
    case T_PAIR:
        for (int i = 0; i < 2; i++) {
            dp[dlen] = sp[slen] = i;
            copy_into(c, dst, dp, dlen + 1, src, sp, slen + 1, i ? t->b : t->a);
        }
        return;
    case T_IDX: case T_FUN: unreachable();
    }
}

/* dst[i] (or the whole of dst when i < 0) = v */
void ip_store_put(Ctx *c, Node *dst, int64_t i, const Val *v)
{
    /* sp starts as an empty path; zeroed because gcc -O3 cannot see that a read of
     * length 0 reads none of it (-Wmaybe-uninitialized) */
    int64_t dp[MAXD], sp[MAXD] = {0};
    if (v->ty->kind == T_SCALAR && i >= 0) {
        int64_t f;
        Leaf *l = store_locate(c, dst, &i, 1, &f);
        store1(l->sk, l->data, f, v->s);
        return;
    }
    dp[0] = i;
    copy_into(c, dst, dp, i >= 0 ? 1 : 0, v, sp, 0, v->ty);
}

/* ---------------------------------------------------------------- preparation */

/* Type -> RType, evaluating sizes with the kernel's nat values. */
static const RType *rtype(Ctx *c, const Type *t, Span sp)
{
    RType *r = ANEW(c->arena, RType);
    r->kind = t->kind;
    switch (t->kind) {
    case T_SCALAR: r->sk = t->sk; r->nleaves = 1; break;
    case T_IDX: r->kind = T_SCALAR; r->sk = SK_I32; r->nleaves = 1; break;
    case T_ARRAY:
        if (!nat_eval(t->arr.n, &c->nenv, &r->n)) ip_fail(c, sp, "array size cannot be evaluated");
        if (r->n < 0) ip_fail(c, sp, "negative array size %lld", (long long)r->n);
        r->elem = rtype(c, t->arr.elem, sp);
        r->depth = 1 + r->elem->depth;
        r->nleaves = r->elem->nleaves;
        break;
    case T_PAIR:
        r->a = rtype(c, t->pair.a, sp);
        r->b = rtype(c, t->pair.b, sp);
        r->depth = 1 + (r->a->depth > r->b->depth ? r->a->depth : r->b->depth);
        r->nleaves = r->a->nleaves + r->b->nleaves;
        break;
    case T_FUN: break;
    }
    if (r->depth > MAXD) ip_fail(c, sp, "type nests deeper than %d levels", MAXD);
    return r;
}

/* a binder's slot in env is its dense id; env is sized after prep has seen them all */
static int slot_of(Ctx *c, const Binder *b)
{
    if (b->id < 0) die("binder %s without id", b->name);
    if (b->id >= c->nslots) c->nslots = b->id + 1;
    return b->id;
}

static Code *prep(Ctx *c, const Expr *e);

/* A function argument of a primitive: a lambda of `params` curried parameters. */
static Code *prep_fun(Ctx *c, const Expr *e, int params, Span sp)
{
    if (e->kind != E_LAM) ip_fail(c, sp, "a primitive's function argument is not a lambda");
    Code *k = prep(c, e);
    if (params > 1) {
        if (e->lam.body->kind != E_LAM) ip_fail(c, sp, "expected a function of %d parameters", params);
    }
    return k;
}

/* Expr -> Code: types and nat arguments evaluated once, functions checked to be lambdas */
static Code *prep(Ctx *c, const Expr *e)
{
    Code *k = ANEW(c->arena, Code);
    k->kind = e->kind;
    k->sp = e->sp;
    k->ty = e->ty ? rtype(c, e->ty, e->sp) : NULL;
    switch (e->kind) {
    case E_VAR: k->slot = slot_of(c, e->var.b); break;
    case E_LIT: {
        ScalarKind sk = k->ty->sk;
        if (e->ty->kind == T_IDX) k->lit = ip_scalar_of_int(SK_I32, e->lit.i);
        else if (sk == SK_F32) k->lit.f = (float)e->lit.f;
        else if (sk == SK_F64) k->lit.d = e->lit.f;
        else if (sk == SK_BOOL) k->lit.b = e->lit.b;
        else if (sk == SK_U32 || sk == SK_U64) k->lit = ip_scalar_of_int(sk, (int64_t)e->lit.u);
        else k->lit = ip_scalar_of_int(sk, e->lit.i);
        break;
    }
    case E_NAT: {
        int64_t v;
        if (!nat_eval(e->nat.n, &c->nenv, &v)) ip_fail(c, e->sp, "nat value cannot be evaluated");
        if (k->ty->kind != T_SCALAR) ip_fail(c, e->sp, "a nat used as a non-scalar value");
        k->lit = ip_scalar_of_int(k->ty->sk, v);
        break;
    }
    case E_PRIM: {
        Prim p = e->prim.p;
        k->p = p;
        for (int i = 0; i < prim_info[p].nnats; i++)
            if (!nat_eval(e->prim.nats[i], &c->nenv, &k->k[i]))
                ip_fail(c, e->sp, "nat argument of %s cannot be evaluated", prim_info[p].name);
        for (int i = 0; i < prim_info[p].nargs; i++) {
            const Expr *a = e->prim.args[i];
            int np = prim_info[p].fnarity[i];
            k->args[i] = np ? prep_fun(c, a, np, e->sp) : prep(c, a);
        }
        break;
    }
    case E_LAM:
        k->slot = slot_of(c, e->lam.param);
        k->args[0] = prep(c, e->lam.body);
        break;
    case E_LET:
        k->slot = slot_of(c, e->let.x);
        k->args[1] = prep(c, e->let.value);
        k->args[0] = prep(c, e->let.body);
        break;
    case E_BIN:
        k->op = e->bin.op;
        k->args[0] = prep(c, e->bin.l);
        k->args[1] = prep(c, e->bin.r);
        if (k->args[0]->ty->kind != T_SCALAR || k->args[1]->ty->kind != T_SCALAR)
            ip_fail(c, e->sp, "operator '%s' on a non-scalar", binop_spelling[k->op]);
        break;
    case E_UN:
        k->uop = e->un.op;
        k->args[0] = prep(c, e->un.e);
        if (k->args[0]->ty->kind != T_SCALAR) ip_fail(c, e->sp, "unary operator on a non-scalar");
        break;
    }
    return k;
}

/* ---------------------------------------------------------------- evaluation */

/* a view node of kind k over operands a (and b) */
Node *ip_node_new(Ctx *c, NodeKind k, const Val *a, const Val *b)
{
    Node *n = ip_pool_alloc(c, sizeof(Node), false);
    n->kind = k;
    n->k = n->n = 0;
    n->perm = NULL;
    ip_val_set(&n->a, a);
    if (b) ip_val_set(&n->b, b);
    return n;
}

/* *r = f(x) for a lambda f: bind the parameter, evaluate the body. */
void ip_apply(Ctx *c, const Code *f, const Val *x, Val *r)
{
    ip_val_set(&c->env[f->slot], x);
    ip_eval(c, f->args[0], r);
}

/* ---- index and data movement */

/* The index value s (of an index type: idx and i32 sign-extended, u32 zero-extended,
 * i64) checked against the length n: an index outside [0, n) is a run-time error at e,
 * naming the index, its position `at` in an index array (or -1), and the length. */
int64_t ip_check_index(Ctx *c, const Code *e, Scalar s, int64_t at, int64_t n)
{
    int64_t i = s.i;
    if (i < 0 || i >= n) {
        if (at >= 0)
            ip_fail(c, e->sp, "%s: index %lld (element %lld of the indices) is outside the array of length %lld",
                 prim_info[e->p].name, (long long)i, (long long)at, (long long)n);
        ip_fail(c, e->sp, "%s: index %lld is outside the array of length %lld", prim_info[e->p].name, (long long)i,
             (long long)n);
    }
    return i;
}

/* *r = the value of e */
void ip_eval(Ctx *c, const Code *e, Val *r)
{
    if (c->stack_floor && (const char *)__builtin_frame_address(0) < c->stack_floor)
        ip_fail(c, e->sp, "program nested too deeply to interpret");
    switch (e->kind) {
    case E_VAR: {
        const Val *v = &c->env[e->slot];
        if (!v->ty) ip_fail(c, e->sp, "internal: unbound variable");
        ip_val_set(r, v);
        r->ty = e->ty;
        return;
    }
    case E_LIT: case E_NAT: ip_val_scalar(r, e->ty, e->lit); return;
    case E_PRIM: /* its meaning (prims/) */
        if (!prim_ops(e->p)->eval) die("primitive %s has no interpreter meaning in prims/", prim_info[e->p].name);
        prim_ops(e->p)->eval(c, e, r);
        return;
    case E_LAM: ip_fail(c, e->sp, "a function where a value was expected");
    case E_LET:
        ip_eval(c, e->args[1], &c->env[e->slot]);
        ip_eval(c, e->args[0], r);
        return;
    case E_BIN: {
        const Code *l = e->args[0];
        Val x, y;
        ip_eval(c, l, &x);
        if (e->op == OP_AND || e->op == OP_OR) {
            /* short-circuit, as the generated C does */
            if (x.s.b == (e->op == OP_OR)) {
                ip_val_scalar(r, e->ty, x.s);
                return;
            }
            ip_eval(c, e->args[1], &y);
            ip_val_scalar(r, e->ty, y.s);
            return;
        }
        ip_eval(c, e->args[1], &y);
        ip_val_scalar(r, e->ty, ip_binop(c, e->sp, e->op, l->ty->sk, x.s, y.s));
        return;
    }
    case E_UN: {
        Val x;
        ip_eval(c, e->args[0], &x);
        ip_val_scalar(r, e->ty, unop(c, e->sp, e->uop, e->args[0]->ty->sk, x.s));
        return;
    }
    }
    unreachable();
}

/* ---------------------------------------------------------------- entry */

/* A parameter or output type must be nested arrays of one scalar kind (idx as i32). */
static bool flat_type(const RType *t)
{
    while (t->kind == T_ARRAY) t = t->elem;
    return t->kind == T_SCALAR;
}

bool interp_kernel(const KernelDef *k, const int64_t *nats, const void *const *inputs,
                   void *out, char *err, size_t errlen)
{
    void *outs[1] = {out};
    return interp_kernel_outs(k, nats, inputs, outs, err, errlen);
}

/* A store of a kernel result's type whose leaf j (output j) is caller memory outs[j]. */
static Node *store_outputs(Ctx *c, const RType *t, void *const *outs)
{
    Node *n = ip_store_new(c, t, (unsigned char *)outs[0]);
    for (int j = 1; j < t->nleaves; j++) n->store.leaves[j].data = outs[j];
    return n;
}

/* Results: scalars, arrays of scalars, and pairs of results (typecheck.c). */
static bool result_type(const RType *t)
{
    return t->kind == T_PAIR ? result_type(t->a) && result_type(t->b) : flat_type(t);
}

/* Bind nats and parameters, prepare, evaluate the body, write it out packed. */
bool interp_kernel_outs(const KernelDef *k, const int64_t *nats, const void *const *inputs,
                        void *const *outs, char *err, size_t errlen)
{
    /* on the heap: the context is modified between setjmp and longjmp */
    Ctx *c = lang_calloc(1, sizeof *c);
    if (!c || !(c->arena = arena_new())) {
        if (err && errlen) snprintf(err, errlen, INTERP_NO_MEMORY);
        free(c);
        return false;
    }
    c->err = err;
    c->errlen = errlen;
    if (err && errlen) err[0] = 0;
    c->stack_floor = lang_stack_floor();
    bool ok = false;
    arena_catch(c->arena, &c->fail);
    if (setjmp(c->fail) != 0) {
        if (arena_failed(c->arena) && err && errlen) snprintf(err, errlen, INTERP_NO_MEMORY);
    } else {
        /* the window of the kernel's nat ids, not 0..largest id (see NatEnv) */
        int lo = k->nnats ? k->nats[0]->id : 0, hi = lo - 1;
        for (int i = 0; i < k->nnats; i++) {
            if (k->nats[i]->id < lo) lo = k->nats[i]->id;
            if (k->nats[i]->id > hi) hi = k->nats[i]->id;
        }
        int nv = hi - lo + 1;
        int64_t *vals = ANEWN(c->arena, int64_t, nv + 1);
        bool *has = ANEWN(c->arena, bool, nv + 1);
        for (int i = 0; i < k->nnats; i++) {
            vals[k->nats[i]->id - lo] = nats[i];
            has[k->nats[i]->id - lo] = true;
        }
        c->nenv = (NatEnv){vals, has, nv, lo};

        const RType **pty = ANEWN(c->arena, const RType *, k->nparams + 1);
        for (int i = 0; i < k->nparams; i++) {
            slot_of(c, k->params[i]);
            pty[i] = rtype(c, k->params[i]->ty, k->params[i]->sp);
            if (!flat_type(pty[i]))
                ip_fail(c, k->params[i]->sp, "parameter %s: pair-typed parameters are not supported",
                     k->params[i]->name);
        }
        Code *body = prep(c, k->body);
        if (!result_type(body->ty)) ip_fail(c, k->sp, "kernel %s: an array of pairs is not an output", k->name);
        c->env = ANEWN(c->arena, Val, c->nslots + 1);

        for (int i = 0; i < k->nparams; i++) {
            /* inputs are only read, never written through this store */
            unsigned char *data = (unsigned char *)(uintptr_t)inputs[i];
            if (pty[i]->kind == T_SCALAR) {
                ip_val_scalar(&c->env[k->params[i]->id], pty[i], load(pty[i]->sk, data, 0));
            } else {
                ip_val_node(&c->env[k->params[i]->id], pty[i], ip_store_new(c, pty[i], data));
            }
        }
        Val r;
        ip_eval(c, body, &r);
        r.ty = body->ty;
        Node *o = store_outputs(c, body->ty, outs);
        void *out = outs[0];
        if (r.node && r.node->kind == N_STORE && r.plen == 0 && r.node->store.ty->nleaves == 1 &&
            o->store.ty->nleaves == 1 &&
            r.node->store.leaves[0].sk == o->store.leaves[0].sk &&
            r.node->store.leaves[0].count == o->store.leaves[0].count) {
            memcpy(out, r.node->store.leaves[0].data,
                   (size_t)o->store.leaves[0].count * (size_t)scalar_info[o->store.leaves[0].sk].size);
        } else if (r.node) {
            ip_store_put(c, o, -1, &r);
        } else {
            store1(body->ty->sk, out, 0, r.s);
        }
        ok = true;
    }
    pool_free(c);
    arena_free(c->arena);
    free(c);
    return ok;
}
