/* describe.c: the launch descriptor (compiler.h, LdKernel) of a compiled kernel: its
 * launch rules, buffers and role with every Nat turned into a postfix rule over slots,
 * so that the runtime launches it without the compiler's structures (and frees the
 * arena they live in). Runs last, after role.c. */
#include "compiler.h"

#include <string.h>

/* What describing one kernel needs: the arena, the nat parameters (slot i is nats[i])
 * and the hardware variables of the launch being described (slots after them). */
typedef struct Ds {
    Arena *a;
    const KernelDef *def;
    const HwIds *hw;
    LdIns *code; /* the rule being built: NULL while its length is counted */
    int n, depth, maxdepth;
} Ds;

static void emit(Ds *s, LdOp op, int slot, int64_t cst, int push)
{
    if (s->code) s->code[s->n] = (LdIns){.op = op, .slot = slot, .cst = cst};
    s->n++;
    s->depth += push;
    if (s->depth > s->maxdepth) s->maxdepth = s->depth;
}

/* The slot of v: a nat parameter's index, nnats + the hardware variable's place, or -1
 * (bound by no launch: a rule that names it has no value, as under nat_eval). */
static int slot_of(const Ds *s, const NatVar *v)
{
    for (int i = 0; i < s->def->nnats; i++)
        if (s->def->nats[i] == v) return i;
    if (!s->hw) return -1;
    for (int d = 0; d < 3; d++) {
        if (s->hw->bdim[d] == v) return s->def->nnats + LD_SLOT_BDIM + d;
        if (s->hw->gdim[d] == v) return s->def->nnats + LD_SLOT_GDIM + d;
    }
    return s->hw->nwarps == v ? s->def->nnats + LD_SLOT_NWARPS : -1;
}

/* Postfix in nat_eval's order: a sum's terms added left to right from the first, a
 * product's factors multiplied into its coefficient (a coefficient of 1 is left out:
 * 1 * x neither overflows nor fails), so that every overflow nat_eval meets is met
 * here at the same step. */
static void rule_of(Ds *s, const Nat *x)
{
    switch (x->kind) {
    case N_CST: emit(s, LD_CST, 0, x->cst, 1); return;
    case N_VAR: emit(s, LD_SLOT, slot_of(s, x->var), 0, 1); return;
    case N_SUM:
        for (int i = 0; i < x->sum.n; i++) {
            rule_of(s, x->sum.terms[i]);
            if (i) emit(s, LD_ADD, 0, 0, -1);
        }
        if (!x->sum.n) emit(s, LD_CST, 0, 0, 1);
        return;
    case N_PROD: {
        bool one = x->prod.coef == 1 && x->prod.n > 0;
        if (!one) emit(s, LD_CST, 0, x->prod.coef, 1);
        for (int i = 0; i < x->prod.n; i++) {
            rule_of(s, x->prod.factors[i]);
            if (i || !one) emit(s, LD_MUL, 0, 0, -1);
        }
        return;
    }
    case N_DIV: case N_MIN: case N_MAX:
        rule_of(s, x->bin.l);
        rule_of(s, x->bin.r);
        emit(s, x->kind == N_DIV ? LD_DIV : x->kind == N_MIN ? LD_MIN : LD_MAX, 0, 0, -1);
        return;
    }
}

/* Two walks, the first counting: a kernel's rules take no more of the arena than
 * their code. */
static LdRule rule(Ds *s, const Nat *x)
{
    if (!x) return (LdRule){0};
    s->code = NULL;
    s->n = s->depth = s->maxdepth = 0;
    rule_of(s, x);
    s->code = ANEWN(s->a, LdIns, s->n);
    s->n = s->depth = s->maxdepth = 0;
    rule_of(s, x);
    return (LdRule){.code = s->code, .n = s->n, .depth = s->maxdepth};
}

static void buf_of(Ds *s, const Kernel *k, const Buffer *b, LdBuf *o)
{
    o->name = b->name;
    o->count = rule(s, b->count);
    o->sk = b->sk;
    o->elem_size = b->flagged ? 8 : scalar_info[b->sk].size; /* a flagged word is 64 bits */
    o->align = b->align;
    o->scalar = b->scalar;
    o->counted_by = -1;
    for (int c = 0; b->counted_by && c < k->nouts; c++)
        if (k->outs[c] == b->counted_by) o->counted_by = c;
}

LdKernel *ld_describe(Arena *a, const Kernel *k)
{
    Ds s = {.a = a, .def = k->def};
    LdKernel *d = ANEW(a, LdKernel);
    d->name = k->name;
    d->nnats = k->def->nnats;
    d->nats = ANEWN(a, LdNat, d->nnats + 1);
    for (int i = 0; i < d->nnats; i++) {
        d->nats[i].name = k->def->nats[i]->name;
        d->nats[i].lb = k->def->nats[i]->lb;
        d->nats[i].ub = rule(&s, k->def->nats[i]->ub);
    }
    d->ninputs = k->ninputs;
    d->nouts = k->nouts;
    d->nscratch = k->nscratch;
    d->inputs = ANEWN(a, LdBuf, d->ninputs + 1);
    d->outs = ANEWN(a, LdBuf, d->nouts + 1);
    d->scratch = ANEWN(a, LdBuf, d->nscratch + 1);
    for (int i = 0; i < d->ninputs; i++) buf_of(&s, k, k->inputs[i], &d->inputs[i]);
    for (int i = 0; i < d->nouts; i++) buf_of(&s, k, k->outs[i], &d->outs[i]);
    for (int i = 0; i < d->nscratch; i++) buf_of(&s, k, k->scratch[i], &d->scratch[i]);
    d->nlaunches = k->npre + 1;
    d->launches = ANEWN(a, LdLaunch, d->nlaunches);
    for (int l = 0; l < d->nlaunches; l++) {
        const Kernel *K = l < k->npre ? k->pre[l] : k;
        LdLaunch *L = &d->launches[l];
        s.hw = &K->hw;
        L->name = K->name;
        for (int i = 0; i < 3; i++) {
            L->block[i] = rule(&s, K->block[i]);
            L->grid[i] = rule(&s, K->grid[i]);
        }
        L->shared = rule(&s, K->shared_bytes);
        L->index_bound = rule(&s, K->index_bound);
        L->iw = K->iw;
        L->block_fixed = K->block_fixed;
        L->persistent = K->persistent;
        L->static_smem = (int)(SMEM_DEFAULT_MAX - smem_budget(K, SMEM_DEFAULT_MAX));
        L->static_note = smem_budget_note(K);
    }
    d->role = k->role;
    d->role_len_nat = k->role_len_nat;
    d->role_grid_nat = k->role_grid_nat;
    d->role_tunable = k->role_tunable;
    d->zero_out = k->zero_out;
    return d;
}

/* ---------------------------------------------------------------- ld_copy */

/* The copy is laid out in one block: the LdKernel, then its arrays, then the code of
 * every rule, then the strings. Copying twice over the same walk, once to measure
 * (base NULL) and once to fill, keeps the two in step. */
typedef struct Cp {
    char *base;
    size_t used;
} Cp;

static void *take(Cp *c, size_t bytes, const void *from)
{
    size_t at = (c->used + 15) & ~(size_t)15;
    c->used = at + bytes;
    if (!c->base) return NULL;
    if (from && bytes) memcpy(c->base + at, from, bytes);
    return c->base + at;
}

static const char *str(Cp *c, const char *s) { return s ? take(c, strlen(s) + 1, s) : NULL; }

static const LdIns *code(Cp *c, const LdRule *r) { return take(c, sizeof *r->code * (size_t)r->n, r->code); }

/* Reads only the original; writes only into the copy (NULL while measuring). */
static LdBuf *bufs(Cp *c, const LdBuf *b, int n)
{
    LdBuf *o = take(c, sizeof *o * (size_t)n, b);
    for (int i = 0; i < n; i++) {
        const char *name = str(c, b[i].name);
        const LdIns *cd = code(c, &b[i].count);
        if (o) {
            o[i].name = name;
            o[i].count.code = cd;
        }
    }
    return o;
}

static LdKernel *copy_all(Cp *c, const LdKernel *d)
{
    LdKernel *o = take(c, sizeof *o, d);
    const char *name = str(c, d->name);
    LdNat *nats = take(c, sizeof *nats * (size_t)d->nnats, d->nats);
    for (int i = 0; i < d->nnats; i++) {
        const char *nm = str(c, d->nats[i].name);
        const LdIns *cd = code(c, &d->nats[i].ub);
        if (nats) {
            nats[i].name = nm;
            nats[i].ub.code = cd;
        }
    }
    LdBuf *in = bufs(c, d->inputs, d->ninputs), *out = bufs(c, d->outs, d->nouts);
    LdBuf *scr = bufs(c, d->scratch, d->nscratch);
    LdLaunch *ls = take(c, sizeof *ls * (size_t)d->nlaunches, d->launches);
    for (int l = 0; l < d->nlaunches; l++) {
        const LdLaunch *L = &d->launches[l];
        LdLaunch t = *L;
        t.name = str(c, L->name);
        t.static_note = str(c, L->static_note);
        for (int i = 0; i < 3; i++) {
            t.block[i].code = code(c, &L->block[i]);
            t.grid[i].code = code(c, &L->grid[i]);
        }
        t.shared.code = code(c, &L->shared);
        t.index_bound.code = code(c, &L->index_bound);
        if (ls) ls[l] = t;
    }
    if (o) {
        o->name = name;
        o->nats = nats;
        o->inputs = in;
        o->outs = out;
        o->scratch = scr;
        o->launches = ls;
    }
    return o;
}

LdKernel *ld_copy(const LdKernel *d)
{
    Cp c = {0};
    copy_all(&c, d);
    size_t bytes = c.used;
    if (!(c.base = lang_malloc(bytes))) return NULL;
    c.used = 0;
    LdKernel *o = copy_all(&c, d);
    o->bytes = bytes;
    return o;
}
