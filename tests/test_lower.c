/* test_lower.c: lowering and the passes over the kernel IR (loops, smem, barrier). */
#include "testutil.h"
#include "../prims/prims.h"

#include <stdio.h>
typedef struct Count {
    StmtKind kind;
    int n, stop_at; /* stop_at > 0: stop the walk at the stop_at-th match */
    int x, nats, reads, writes;
} Count;

static WalkStep count_stmt(void *ctx, const Stmt *s)
{
    Count *c = ctx;
    c->n += s->kind == c->kind;
    return c->stop_at && c->n == c->stop_at ? WALK_STOP : WALK_ON;
}
static bool count_x(void *ctx, const X *x) { (void)x; ((Count *)ctx)->x++; return false; }
static bool count_nat(void *ctx, Nat *n) { (void)n; ((Count *)ctx)->nats++; return false; }
static bool count_access(void *ctx, Buffer *b, bool write)
{
    (void)b;
    Count *c = ctx;
    if (write) c->writes++;
    else c->reads++;
    return false;
}

static int count_stmts(const Stmt *s, StmtKind k)
{
    static const IrVisitor v = {.stmt = count_stmt};
    Count c = {.kind = k};
    ir_walk(s, &v, &c);
    return c.n;
}

static const Stmt *find_loop(const Stmt *s, Level l)
{
    if (s->kind == S_FOR && s->loop.level == l) return s;
    const Stmt *r = NULL;
    if (s->kind == S_SEQ)
        for (int i = 0; i < s->seq.n && !r; i++) r = find_loop(s->seq.items[i], l);
    if (s->kind == S_FOR) r = find_loop(s->loop.body, l);
    if (s->kind == S_IF) r = find_loop(s->cond.then, l);
    return r;
}


/* The statement vocabulary of issue 34 (S_WHILE, S_JUMP, S_LET, S_SLEEP, X_ATOMIC, the
 * votes, memory orders), built by hand in front of a compiled kernel's body: the walk
 * sees each part, the dump shows it, width.c bounds the counter and the let by their
 * ranges, and codegen prints each in its line (the ordered accesses through the
 * preludes' helpers, which the module then carries). */
static X *vx(Arena *a, XKind k, ScalarKind sk)
{
    X *x = ANEW(a, X);
    x->kind = k;
    x->sk = sk;
    return x;
}
static Stmt *vs(Arena *a, StmtKind k)
{
    Stmt *s = ANEW(a, Stmt);
    s->kind = k;
    return s;
}

START_TEST(statement_vocabulary)
{
    TC *t = tc_compile("kernel v = nFun(n => fun(n.u32)(xs => fun(n.u64)(ws => zip(xs)(ws) "
                       "|> mapGlobal(fun(p => pair(fst(p) + 1u)(snd(p)))) |> unzip)))");
    EXPECT_OK(t);
    Kernel *k = t->c.kernels[0];
    Arena *a = t->a;
    Buffer *xs = k->outs[0], *ws = k->outs[1]; /* written: the outputs */
    Nat *n = k->inputs[0]->count;
    NatVar *it = nat_newvar(a, "vt", 0, nat_cst(a, 8)), *j = nat_newvar(a, "vj", 0, n);
    Stmt *w = vs(a, S_WHILE), *body = stmt_seq(a);
    w->wloop.var = it;
    w->wloop.cond = x_bin(a, OP_LT, SK_BOOL, x_nat(a, nat_var(a, it)), x_nat(a, nat_cst(a, 8)));
    w->wloop.body = body;
    /* let vj = atomic add.acq_rel(out0[0], 1) % n */
    X *at = vx(a, X_ATOMIC, SK_U32);
    at->atomic.op = ATOM_ADD;
    at->atomic.buf = xs;
    at->atomic.index = nat_cst(a, 0);
    at->atomic.val = vx(a, X_LIT, SK_U32);
    at->atomic.val->lit.u = 1;
    at->atomic.order = MO_ACQ_REL;
    Stmt *let = vs(a, S_LET);
    let->let.var = j;
    let->let.val = x_bin(a, OP_MOD, SK_U32, at, x_nat(a, n));
    stmt_append(a, body, let);
    /* if (!all(relaxed out0[vj] != 0)) { sleep 32; continue } */
    X *ld = vx(a, X_LOAD, SK_U32);
    ld->load.buf = xs;
    ld->load.index = nat_var(a, j);
    ld->load.order = MO_RELAXED;
    X *all = vx(a, X_SHFL, SK_BOOL);
    all->shfl.k = SHFL_ALL;
    all->shfl.val = x_bin(a, OP_NE, SK_BOOL, ld, x_nat(a, nat_cst(a, 0)));
    X *no = vx(a, X_UN, SK_BOOL);
    no->un.op = UOP_NOT;
    no->un.e = all;
    Stmt *c = vs(a, S_IF), *then = stmt_seq(a), *sl = vs(a, S_SLEEP), *co = vs(a, S_JUMP);
    sl->sleep.ns = 32;
    co->jump.k = JK_CONTINUE;
    stmt_append(a, then, sl);
    stmt_append(a, then, co);
    c->cond.c = no;
    c->cond.then = then;
    stmt_append(a, body, c);
    /* out1[vj] := (relaxed) relaxed out1[vj]; out0[vj] := (release) redmin(out0[vj]); break */
    X *lw = vx(a, X_LOAD, SK_U64);
    lw->load.buf = ws;
    lw->load.index = nat_var(a, j);
    lw->load.order = MO_RELAXED;
    Stmt *st = vs(a, S_STORE);
    st->store.buf = ws;
    st->store.index = nat_var(a, j);
    st->store.val = lw;
    st->store.order = MO_RELAXED;
    stmt_append(a, body, st);
    X *rm = vx(a, X_SHFL, SK_U32), *lx = vx(a, X_LOAD, SK_U32);
    lx->load.buf = xs;
    lx->load.index = nat_var(a, j);
    rm->shfl.k = SHFL_REDMIN;
    rm->shfl.val = lx;
    Stmt *rel = vs(a, S_STORE), *br = vs(a, S_JUMP);
    rel->store.buf = xs;
    rel->store.index = nat_var(a, j);
    rel->store.val = rm;
    rel->store.order = MO_RELEASE;
    br->jump.k = JK_BREAK;
    stmt_append(a, body, rel);
    stmt_append(a, body, br);
    Stmt *seq = stmt_seq(a);
    stmt_append(a, seq, w);
    stmt_append(a, seq, k->body);
    k->body = seq;

    static const IrVisitor all_v = {.stmt = count_stmt, .x = count_x, .nat = count_nat, .access = count_access};
    Count cw = {.kind = S_JUMP};
    ir_walk(w, &all_v, &cw);
    ck_assert_int_eq(cw.n, 2);
    ck_assert_int_eq(cw.reads, 4);  /* the atomic's cell, two ordered loads, the plain one */
    ck_assert_int_eq(cw.writes, 3); /* the atomic's cell and two stores */
    ck_assert_int_eq(count_stmts(k->body, S_LET), 1);
    ck_assert(stmt_mentions_var(w, j) && stmt_mentions_var(w, it));

    StrBuf d = {0};
    kernel_print(&d, k);
    const char *ir = sb_str(&d);
    ck_assert_msg(strstr(ir, "while vt = 0, 1, ... while (vt < 8)\n"), "%s", ir);
    ck_assert_msg(strstr(ir, "let vj = (atomic add.acq_rel(out0[0], 1) % n)\n"), "%s", ir);
    ck_assert_msg(strstr(ir, "if !all((relaxed out0[vj] != 0))\n") && strstr(ir, "sleep 32 ns\n") &&
                  strstr(ir, "continue\n") && strstr(ir, "break\n"), "%s", ir);
    ck_assert_msg(strstr(ir, "out1[vj] (relaxed) := relaxed out1[vj]\n") && strstr(ir, "out0[vj] (release) := redmin(out0[vj])\n"), "%s", ir);
    sb_free(&d);

    width_decide(a, k);
    ck_assert_msg(k->iw != IW_64 && k->index_bound, "the counter and the let have bounds");

    char *cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "for (patc_int vt = 0; (vt < 8); vt += 1) {\n"), "%s", cu);
    ck_assert_msg(strstr(cu, "const patc_int vj = (patc_atom_add_acq_rel(&out0[0], 1u) % n);\n"), "%s", cu);
    ck_assert_msg(strstr(cu, "if ((!__all_sync(0xffffffffu, (patc_peek32(&out0[vj]) != 0)))) {\n"), "%s", cu);
    ck_assert_msg(strstr(cu, "__nanosleep(32);\n") && strstr(cu, "continue;\n") && strstr(cu, "break;\n"), "%s", cu);
    ck_assert_msg(strstr(cu, "patc_poke(&out1[vj], patc_peek(&out1[vj]));\n"), "%s", cu);
    ck_assert_msg(strstr(cu, "patc_poke32(&out0[vj], __reduce_min_sync(0xffffffffu, out0[vj]));\n"), "%s", cu);
    /* the helpers each printed once, ahead of the kernel */
    ck_assert_int_eq(count_substr(cu, "unsigned int patc_atom_add_acq_rel("), 1);
    ck_assert_int_eq(count_substr(cu, "unsigned int patc_peek32("), 1);
    ck_assert_int_eq(count_substr(cu, "unsigned long long patc_peek("), 1);
    ck_assert_int_eq(count_substr(cu, "void patc_poke("), 1);
    free(cu);
    tc_free(t);
}
END_TEST

/* The pipe kernels' vocabulary (issue 34 item 1, pipeir): the mbarriers and the bulk
 * copy as statements, the warp roles as S_IF with cond.role. Every shared buffer of the
 * pipe laid out by smem.c, apart (the roles use them all at once), mbarriers 8-byte and
 * the ring 16-byte aligned; one __syncthreads, in front of the first role (after the
 * mbarriers' initialisation), none inside a role; and each new kind printed. */
static const Stmt *first_role(const Stmt *body, int *at)
{
    for (int i = 0; i < body->seq.n; i++)
        if (body->seq.items[i]->kind == S_IF && body->seq.items[i]->cond.role) {
            *at = i;
            return body->seq.items[i];
        }
    return NULL;
}

START_TEST(pipe_roles_and_layout)
{
    TC *t = tc_compile("kernel s = nFun(n => fun(n.f32)(xs => xs |> scanPipe(4, 8, 3)(add)(0.0f)))");
    EXPECT_OK(t);
    Kernel *k = t->c.kernels[0];
    int at = -1;
    const Stmt *role = first_role(k->body, &at);
    ck_assert_msg(role && at > 0 && k->body->seq.items[at - 1]->kind == S_BARRIER, "a barrier in front of the roles");
    ck_assert_int_eq(count_stmts(role, S_BARRIER), 0);
    ck_assert_int_eq(count_stmts(k->body, S_BULK), 1);
    ck_assert_int_eq(count_stmts(role, S_BULK), 1);
    ck_assert_int_ge(count_stmts(k->body, S_MBAR), 5 + 4); /* five inits, wait, fence, expect, arrive */
    ck_assert_int_eq(count_stmts(k->body, S_BARRIER), 1 + 1); /* and the compute warps' __syncwarp */
    int64_t end[32], off[32];
    ck_assert_int_eq(k->nshared, 12); /* a scan's: all but the filter's counts */
    for (int i = 0; i < k->nshared; i++) {
        const Buffer *b = k->shared[i];
        int64_t c;
        ck_assert(nat_is_const(b->offset, &off[i]) && nat_is_const(b->count, &c));
        end[i] = off[i] + c * scalar_info[b->sk].size;
        if (b->sk == SK_U64) ck_assert_int_eq(off[i] % 8, 0);
        ck_assert_int_eq(off[i] % 16, 0); /* the ring is a bulk copy's target */
        for (int j = 0; j < i; j++) ck_assert_msg(end[i] <= off[j] || end[j] <= off[i], "%s and %s overlap", b->name, k->shared[j]->name);
    }
    StrBuf d = {0};
    kernel_print(&d, k);
    const char *ir = sb_str(&d);
    ck_assert_msg(strstr(ir, "role if (warp == 4)\n") && strstr(ir, "shfl.up(") && strstr(ir, "bits.u32"), "%s", ir);
    ck_assert_msg(strstr(ir, "role if (warp == 5)\n") && strstr(ir, "sleep 20 ns\n") && strstr(ir, "break\n"), "%s", ir);
    /* the compute warps: a role too, vector loads from and stores to the ring and out */
    ck_assert_msg(strstr(ir, "role if (warp < 4)\n") && strstr(ir, ":= vector ring") && strstr(ir, "vector ring") &&
                  strstr(ir, "vector out"), "%s", ir);
    ck_assert_msg(strstr(ir, "role if (warp == 6)\n") && strstr(ir, "mbar.init full") && strstr(ir, "fence.proxy.async\n") &&
                  strstr(ir, "bulk ring"), "%s", ir);
    sb_free(&d);

    /* an mbarrier test by hand: if (mbtest(full[0], 1)) arrive empty[0] */
    Arena *a = t->a;
    Buffer *full = NULL, *empty = NULL;
    for (int i = 0; i < k->nshared; i++) {
        if (!strncmp(k->shared[i]->name, "full", 4)) full = k->shared[i];
        if (!strncmp(k->shared[i]->name, "empty", 5)) empty = k->shared[i];
    }
    ck_assert(full && empty);
    X *tx = vx(a, X_MBTEST, SK_BOOL), *par = vx(a, X_LIT, SK_U32);
    par->lit.u = 1;
    tx->mbtest.buf = full;
    tx->mbtest.index = nat_cst(a, 0);
    tx->mbtest.parity = par;
    Stmt *c = vs(a, S_IF), *then = stmt_seq(a), *arr = vs(a, S_MBAR);
    arr->mbar.op = MB_ARRIVE;
    arr->mbar.buf = empty;
    arr->mbar.index = nat_cst(a, 0);
    stmt_append(a, then, arr);
    c->cond.c = tx;
    c->cond.then = then;
    static const IrVisitor all_v = {.stmt = count_stmt, .x = count_x, .nat = count_nat, .access = count_access};
    Count cw = {.kind = S_MBAR};
    ir_walk(c, &all_v, &cw);
    ck_assert_int_eq(cw.reads, 1);  /* the test reads full */
    ck_assert_int_eq(cw.writes, 1); /* the arrival changes empty */
    Stmt *seq = stmt_seq(a);
    stmt_append(a, seq, k->body);
    stmt_append(a, seq, c);
    k->body = seq;
    char *cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "if (patc_mb_test(&full"), "%s", cu);
    ck_assert_msg(strstr(cu, "[0], 1u)) {\n") && strstr(cu, "patc_mb_arrive(&empty"), "%s", cu);
    ck_assert_msg(strstr(cu, "patc_mb_init(&full") && strstr(cu, "patc_fence_proxy_async();\n") &&
                  strstr(cu, "patc_bulk_load(ring"), "%s", cu);
    ck_assert_msg(!strstr(cu, "asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\"); /*"), "no inline fence in a kernel body");
    free(cu);
    tc_free(t);
}
END_TEST

/* A stable partition's pipe (issue 34 item 1, pipeir): every role kernel IR like the
 * scan's, with the filter's count buffer (own) as a thirteenth shared buffer; the
 * compaction's positions a chain of lets; the finish's copies lane-strided loops; the
 * given count and the offsets it makes clamped to n (a wrong count writes nothing
 * outside the output); one __syncthreads, none in a role. */
START_TEST(pipe_partition_stable_lowering)
{
    TC *t = tc_compile("kernel p = nFun(n => fun(f32)(t => fun(1.u32)(ms => fun(n.f32)(xs =>\n"
                       "  xs |> partitionStablePipe(4, 4, 2)(fun(x => x > t))(ms)))))");
    EXPECT_OK(t);
    Kernel *k = t->c.kernels[0];
    ck_assert_int_eq(k->nshared, 13);
    int roles = 0, blocks = 0;
    for (int i = 0; i < k->body->seq.n; i++) {
        const Stmt *s = k->body->seq.items[i];
        if (s->kind == S_IF && s->cond.role) {
            roles++;
            ck_assert_int_eq(count_stmts(s, S_BULK), roles == 1);
            ck_assert_msg((count_stmts(s, S_FOR) == 2) == (roles == 4), "two lane-strided copies, in the compute warps' role");
        }
        if (s->kind == S_BARRIER) blocks++;
    }
    ck_assert_int_eq(roles, 4);
    ck_assert_int_eq(blocks, 1);
    StrBuf d = {0};
    kernel_print(&d, k);
    const char *ir = sb_str(&d);
    ck_assert_msg(strstr(ir, "let pq") && strstr(ir, "popc(") && strstr(ir, "min(ms[0], (u32)n)"), "%s", ir);
    sb_free(&d);
    char *cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "__popc(") && strstr(cu, "min(ms[0], ((unsigned int)n))") && !strstr(cu, "patc_pred"), "%s", cu);
    free(cu);
    tc_free(t);
}
END_TEST

/* barrier.c on the new kinds: a while loop in block-uniform code whose trips write and
 * read one shared buffer gets a barrier between the two and one at the start of every
 * trip but the first (its counter tells), like a sequential loop; a lowering's own __syncthreads orders what is
 * pending (no second one next to it, none in front of the next conflicting statement);
 * a fence (LVL_GLOBAL) orders nothing in shared memory. */
START_TEST(barriers_and_the_new_kinds)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((n*64).f32)(xs => xs |> split(64) |> mapBlock(fun(b => "
                       "b |> mapThreads(id) |> toShared |> reduceSeq(add)(0.0f)))))");
    EXPECT_OK(t);
    Kernel *k = t->c.kernels[0];
    Arena *a = t->a;
    ck_assert_int_ge(k->nshared, 1);
    Buffer *sh = k->shared[0];
    NatVar *r = nat_newvar(a, "vr", 0, nat_cst(a, 4));
    X *one = vx(a, X_LIT, SK_F32);
    one->lit.f = 1.0;
    /* while (vr) { sh[0] = 1; x = sh[1]; } */
    Stmt *w = vs(a, S_WHILE), *st = vs(a, S_STORE), *d = vs(a, S_DECL);
    w->wloop.var = r;
    w->wloop.body = stmt_seq(a);
    st->store.buf = sh;
    st->store.index = nat_cst(a, 0);
    st->store.val = one;
    X *ld = vx(a, X_LOAD, SK_F32);
    ld->load.buf = sh;
    ld->load.index = nat_cst(a, 1);
    Buffer *x;
    d = vs(a, S_DECL);
    x = ANEW(a, Buffer);
    x->name = "vx";
    x->as = AS_PRIVATE;
    x->sk = SK_F32;
    x->count = nat_cst(a, 1);
    x->scalar = true;
    d->decl.buf = x;
    d->decl.init = ld;
    stmt_append(a, w->wloop.body, st);
    stmt_append(a, w->wloop.body, d);
    /* then: fence; __syncthreads (the lowering's); sh[0] = 1 */
    Stmt *fence = vs(a, S_BARRIER), *bar = vs(a, S_BARRIER), *st2 = vs(a, S_STORE);
    fence->barrier.level = LVL_GLOBAL;
    bar->barrier.level = LVL_BLOCK;
    *st2 = *st;
    Stmt *body = stmt_seq(a);
    stmt_append(a, body, w);
    stmt_append(a, body, fence);
    stmt_append(a, body, bar);
    stmt_append(a, body, st2);
    k->body = body;
    barrier_place(a, t->c.diag, k);
    /* the trip barrier: the while's body starts with if (vr != 0) barrier */
    Stmt *first = w->wloop.body->seq.items[0];
    ck_assert_int_eq(w->wloop.body->seq.n, 4); /* trip barrier, store, barrier (RAW), load */
    ck_assert(w->wloop.body->seq.items[1] == st && w->wloop.body->seq.items[2]->kind == S_BARRIER);
    ck_assert(first->kind == S_IF && first->cond.then->seq.n == 1 && first->cond.then->seq.items[0]->kind == S_BARRIER);
    ck_assert(stmt_mentions_var(first, r));
    /* after the loop: the fence, the one __syncthreads, the store: nothing added */
    ck_assert_int_eq(body->seq.n, 4);
    ck_assert(body->seq.items[1] == fence && body->seq.items[2] == bar && body->seq.items[3] == st2);
    tc_free(t);
}
END_TEST

/* Pairs as data (issue 33 item 1): a pair accumulator is a register per leaf (no array),
 * a shuffle of a warp array of pairs is a shuffle per leaf, an array of pairs in shared
 * memory is one shared array per side, and unzip of a map as the result is the map's one
 * loop writing both outputs. */
START_TEST(pairs_as_data_lowering)
{
    TC *t = tc_compile("def amax = fun(a => fun(p => select(fst(p) > fst(a))(p)(a)))\n"
                       "def ids(n) = generate(fun(idx[n])(i => i32(i)))\n"
                       "kernel rows = nFun(n => fun((8*n).f32)(xs => zip(xs)(ids(8*n)) |> split(8) "
                       "|> mapGlobal(reduceSeq(amax)(pair(-inff)(0))) |> unzip))\n"
                       "kernel warps = nFun(n => fun((32*n).f32)(xs => zip(xs)(ids(32*n)) |> split(32) "
                       "|> mapWarp(fun(w => w |> mapLane(id) |> shflDownWarp(16) |> mapLane(id))) |> join |> unzip))\n"
                       "kernel blocks = nFun(n => fun((64*n).f32)(xs => zip(xs)(ids(64*n)) |> split(64) "
                       "|> mapBlock(fun(b => b |> mapThreads(id) |> toShared |> reduceSeq(amax)(pair(-inff)(0)))) |> unzip))");
    EXPECT_OK(t);
    ck_assert_int_eq(t->c.nkernels, 3);
    char *cu = tc_cuda(t);
    /* rows: two scalar registers, no private array, the choice computed once */
    ck_assert_msg(strstr(cu, "float acc1 = -(__int_as_float(0x7f800000));\n        int acc2 = 0;"), "%s", cu);
    ck_assert_msg(!strstr(cu, "acc1["), "%s", cu);
    ck_assert_msg(strstr(cu, "out0[g0] = acc1;") && strstr(cu, "out1[g0] = acc2;"), "%s", cu);
    /* warps: the value and the index each shuffled, each lane writing both sides */
    ck_assert_int_eq(count_substr(cu, "__shfl_down_sync"), 2);
    /* blocks: one shared array per side, both outputs written by the one block loop */
    Kernel *k = t->c.kernels[2];
    ck_assert_int_eq(k->nshared, 2);
    ck_assert(k->shared[0]->sk == SK_F32 && k->shared[1]->sk == SK_I32);
    ck_assert_int_eq(k->nouts, 2);
    ck_assert_int_eq(t->c.kernels[0]->nouts, 2);
    ck_assert_int_eq(count_stmts(t->c.kernels[0]->body, S_FOR), 2); /* the grid's loop and the fold */
    free(cu);
    tc_free(t);
    /* asVector(4) of (f32, i32) pairs of two inputs: a float4 and an int4 load; the padding's
     * i32(0) is a constant, not a load, so the padded tail group is read element by element */
    t = tc_compile("kernel v = nFun(n => fun((4*n).f32)(xs => fun((4*n).i32)(ks => zip(xs)(ks) |> padCst(0)(4)(pair(0.0f)(i32(0))) "
                   "|> asVector(4) |> mapGlobal(reduceSeq(fun(a => fun(p => pair(fst(a) + fst(p))(snd(a) + snd(p)))))(pair(0.0f)(i32(0)))) "
                   "|> unzip)))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_int_eq(count_substr(cu, "*(const float4 *)(xs + "), 1);
    ck_assert_int_eq(count_substr(cu, "*(const int4 *)(ks + "), 1);
    free(cu);
    tc_free(t);
}
END_TEST

/* Scalar forms: select computes both sides into registers, then ?:; a select of
 * arrays is a view (no copy, the condition computed once); math calls pick CUDA's
 * float or double function; casts are C casts; sub is the operator. */
START_TEST(scalar_forms_lowering)
{
    TC *t = tc_compile("kernel k = nFun(n => fun(n.f32)(xs => xs |> mapGlobal(fun(x => "
                       "select(x > 0.5f)(exp(x))(f32(i32(x)) + sub(x)(1.0f))))))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "float s1 = expf(xs[g0]);"), "%s", cu);
    ck_assert_msg(strstr(cu, "float s2 = (((float)((int)xs[g0])) + (xs[g0] - 1.0f));"), "%s", cu);
    ck_assert_msg(strstr(cu, "((xs[g0] > 0.5f) ? s1 : s2)"), "%s", cu);
    ck_assert_int_eq(count_stmts(t->c.kernels[0]->body, S_IF), 0);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun(n.f64)(xs => xs |> mapGlobal(fun(x => fma(x)(x)(sqrt(abs(x)))))))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "fma(xs[g0], xs[g0], sqrt(fabs(xs[g0])))"), "%s", cu);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun(n.f32)(a => fun(n.f32)(b => select(n > 9)(a)(b) |> mapGlobal(fun(x => x)))))");
    EXPECT_OK(t);
    ck_assert_int_eq(count_stmts(t->c.kernels[0]->body, S_DECL), 1); /* the condition only */
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "(c0 ? a[g1] : b[g1])"), "%s", cu);
    free(cu);
    tc_free(t);
}
END_TEST

/* Views are index functions: the scale kernel allocates nothing and has one store. */
START_TEST(views_copy_nothing)
{
    TC *t = tc_compile("kernel k = nFun((m, n) => fun(m.n.f32)(a => a |> transpose |> join |> mapGlobal(fun(x => x + 1.0f))))");
    EXPECT_OK(t);
    Kernel *k = t->c.kernels[0];
    ck_assert_int_eq(k->nshared, 0);
    ck_assert_int_eq(count_stmts(k->body, S_DECL), 0);
    ck_assert_int_eq(count_stmts(k->body, S_STORE), 1);
    char *cu = tc_cuda(t);
    /* element g of transpose(a) joined: a[(g % m) * n + g / m] */
    ck_assert_msg(strstr(cu, "a[") != NULL, "%s", cu);
    free(cu);
    tc_free(t);
}
END_TEST

/* The walker: statements before their parts, every expression node, nat and access,
 * WALK_STOP ends it (ir_walk returns true), WALK_SKIP skips one statement's parts. */
static WalkStep skip_loops(void *ctx, const Stmt *s)
{
    count_stmt(ctx, s);
    return s->kind == S_FOR ? WALK_SKIP : WALK_ON;
}

START_TEST(ir_walker)
{
    TC *t = tc_compile("kernel k = nFun(n => fun(n.f32)(a => a |> mapGlobal(fun(x => x * 2.0f + 1.0f))))");
    EXPECT_OK(t);
    const Stmt *body = t->c.kernels[0]->body;
    static const IrVisitor all = {.stmt = count_stmt, .x = count_x, .nat = count_nat, .access = count_access};
    Count c = {.kind = S_STORE};
    ck_assert(!ir_walk(body, &all, &c));
    ck_assert_int_eq(c.n, 1);
    ck_assert_int_eq(c.writes, 1);   /* out[i] = */
    ck_assert_int_eq(c.reads, 1);    /* a[i] */
    ck_assert_int_eq(c.x, 5);        /* (a[i] * 2) + 1: load, two literals, two operations */
    ck_assert_int_eq(c.nats, 3);     /* the loop extent, the store's and the load's index */
    Count stop = {.kind = S_FOR, .stop_at = 1};
    ck_assert(ir_walk(body, &all, &stop));
    ck_assert_int_eq(stop.x + stop.reads + stop.writes, 0); /* stopped before the loop's body */
    static const IrVisitor skip = {.stmt = skip_loops, .access = count_access};
    Count sk = {.kind = S_STORE};
    ck_assert(!ir_walk(body, &skip, &sk));
    ck_assert_int_eq(sk.n + sk.writes + sk.reads, 0);
    ck_assert(stmt_mentions_var(body, t->c.kernels[0]->def->nats[0]));
    tc_free(t);
}
END_TEST

/* Naive block reduction: one barrier, the block-level fold in a thread-0 region,
 * the thread loop straight-line (256 threads for 256 segments). */
START_TEST(naive_reduction_shape)
{
    TC *t = tc_compile_file(PATC_SOURCE_DIR "/examples/reduce_device_naive.rise");
    Kernel *k = t->c.kernels[0];
    ck_assert_int_eq(count_stmts(k->body, S_BARRIER), 1);
    /* the thread-0 region, and version.c's choice between a full tile and the last */
    ck_assert_int_eq(count_stmts(k->body, S_IF), 2);
    int64_t b;
    ck_assert(nat_is_const(k->block[0], &b));
    ck_assert_int_eq(b, 256);
    const Stmt *th = find_loop(k->body, LVL_THREADS);
    ck_assert_ptr_nonnull(th);
    ck_assert_int_eq(th->loop.form, LF_ONCE);
    const Stmt *bl = find_loop(k->body, LVL_BLOCK);
    ck_assert_int_eq(bl->loop.form, LF_ONCE);
    ck_assert(k->block_fixed);
    ck_assert(nat_is_const(k->shared_bytes, &b));
    ck_assert_int_eq(b, 1024);
    tc_free(t);
}
END_TEST

/* Tree reduction: exactly one __syncthreads per halving step (ten), none at the end,
 * and the ten shared buffers fit in 6656 bytes by lifetime reuse: the 4096- and
 * 2048-byte levels share space with later ones, the levels of at most 256 bytes, where
 * sharing saves at most 256 bytes, get their own (smem.c's REUSE_MIN). */
START_TEST(tree_reduction_barriers_and_reuse)
{
    TC *t = tc_compile_file(PATC_SOURCE_DIR "/examples/reduce_device_tree.rise");
    Kernel *k = t->c.kernels[0];
    ck_assert_int_eq(count_stmts(k->body, S_BARRIER), 10);
    ck_assert_int_eq(k->nshared, 10);
    int64_t b;
    ck_assert(nat_is_const(k->shared_bytes, &b));
    ck_assert_int_eq(b, 6656);
    ck_assert(nat_is_const(k->block[0], &b));
    ck_assert_int_eq(b, 1024);
    /* the last statement of the block body is the final store, not a barrier */
    const Stmt *bl = find_loop(k->body, LVL_BLOCK);
    const Stmt *last = bl->loop.body->seq.items[bl->loop.body->seq.n - 1];
    ck_assert_int_ne(last->kind, S_BARRIER);
    char *cu = tc_cuda(t);
    ck_assert_int_eq(count_substr(cu, "__syncthreads()"), 10);
    ck_assert_int_eq(count_substr(cu, "__syncwarp"), 0);
    /* steps with fewer threads than the block are guarded, not looped */
    ck_assert_ptr_nonnull(strstr(cu, "if (threadIdx.x < 512)"));
    ck_assert_ptr_null(strstr(cu, "threadIdx.x; t"));
    free(cu);
    tc_free(t);
}
END_TEST

/* No barrier for register-only code, and none when only private memory is used. */
START_TEST(no_barrier_without_shared)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((256*n).f32)(xs => xs |> split(256) |> mapBlock(fun(c => c |> "
                       "split(8) |> mapThreads(fun(s => s |> toPrivate |> reduceSeq(add)(0.0f)))))))");
    EXPECT_OK(t);
    ck_assert_int_eq(count_stmts(t->c.kernels[0]->body, S_BARRIER), 0);
    char *cu = tc_cuda(t);
    ck_assert_ptr_nonnull(strstr(cu, "float p"));
    ck_assert_ptr_nonnull(strstr(cu, "[8]"));
    free(cu);
    tc_free(t);
}
END_TEST

/* A one-element private array is a scalar; an unused loop index is not computed. */
START_TEST(scalarise_and_dead_index)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((32*n).f32)(xs => xs |> split(32) |> mapBlock(fun(c => c |> "
                       "split(1) |> mapThreads(fun(s => s |> toPrivate |> reduceSeq(add)(1.0f)))))))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_ptr_null(strstr(cu, "[1]"));
    free(cu);
    tc_free(t);
    /* the element is never read: no index variable is declared */
    t = tc_compile("kernel k = nFun(n => fun(n.f32)(xs => xs |> split(1) |> mapGlobal(fun(s => 1.0f))))");
    EXPECT_OK(t);
    const Stmt *g = find_loop(t->c.kernels[0]->body, LVL_GLOBAL);
    ck_assert(g->loop.var_used); /* the store out[g] needs it */
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun((32*n).f32)(xs => xs |> split(32) |> mapBlock(fun(c => c |> "
                   "mapThreads(fun(x => 1.0f)) |> toShared |> reduceSeq(add)(0.0f)))))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    const Stmt *th = find_loop(t->c.kernels[0]->body, LVL_THREADS);
    ck_assert(th->loop.var_used);
    ck_assert_ptr_null(strstr(cu, "xs["));
    free(cu);
    tc_free(t);
}
END_TEST

/* Block-level code writing global memory runs on one thread only. */
START_TEST(single_thread_region)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((64*n).f32)(xs => xs |> split(64) |> mapBlock(fun(c => c |> "
                       "mapThreads(fun(x => x * 2.0f)) |> toShared |> reduceSeq(max)(0.0f)))))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    /* the kernel's index width is chosen at launch, so the thread id is cast to patc_int */
    ck_assert_ptr_nonnull(strstr(cu, "if ((((patc_int)threadIdx.x) == 0))"));
    ck_assert_int_eq(count_substr(cu, "__syncthreads()"), 1);
    ck_assert_ptr_nonnull(strstr(cu, "fmaxf("));
    free(cu);
    tc_free(t);
}
END_TEST

/* A grid-stride mapBlock loop that reuses shared memory across trips needs a barrier
 * at the end of its body (the next trip overwrites what this one read). */
START_TEST(loop_carried_barrier)
{
    TC *t = tc_compile_file(PATC_SOURCE_DIR "/examples/transpose_tiled.rise");
    Kernel *k = t->c.kernels[0];
    const Stmt *by = NULL;
    const Stmt *bl = find_loop(k->body, LVL_BLOCK);
    ck_assert_ptr_nonnull(bl);
    by = find_loop(bl->loop.body, LVL_BLOCK);
    ck_assert_ptr_nonnull(by);
    ck_assert_int_eq(by->loop.form, LF_LOOP); /* grid y is capped at 65535 */
    ck_assert_int_eq(count_stmts(by->loop.body, S_BARRIER), 2);
    int64_t b;
    ck_assert(nat_is_const(k->block[0], &b) && b == 32);
    ck_assert(nat_is_const(k->block[1], &b) && b == 32);
    tc_free(t);
}
END_TEST

/* The launch rule within CUDA's limits: along y and z a grid that may pass 65535 is
 * capped there and the map strides over it; along x only one past 2^31 - 1 for every
 * size (fixed with -D); a block is at most 64 threads along z. */
static void expect_rule(const char *src, const Define *d, int nd, int dim, Level l, const char *grid, LoopForm form)
{
    TC *t = tc_compile_defs(src, d, nd);
    EXPECT_OK(t);
    Kernel *k = t->c.kernels[0];
    const char *g = nat_str(t->c.arena, k->grid[dim]);
    ck_assert_msg(strcmp(g, grid) == 0, "%s (%s): grid.%c is %s, want %s", src, nd ? d[0].name : "-", "xyz"[dim], g,
                  grid);
    const Stmt *s = find_loop(k->body, l);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(s->loop.form == form, "%s (%lld): form %d, want %d", src, nd ? (long long)d[0].value : 0LL,
                  (int)s->loop.form, (int)form);
    tc_free(t);
}

START_TEST(launch_rule_within_limits)
{
    const char *rows = "kernel k = nFun((r, c) => fun(r.c.f32)(a => a |> mapGlobal('y')(reduceSeq(add)(0.0f))))";
    const char *planes = "kernel k = nFun((p, c) => fun(p.c.f32)(a => a |> mapGlobal('z')(mapSeq(fun(x => x)))))";
    const char *blocks = "kernel k = nFun((r, c) => fun(r.c.f32)(a => a |> mapBlock('y')(mapThreads(fun(x => x)))))";
    const char *flat = "kernel k = nFun(n => fun(n.f32)(a => a |> mapGlobal(fun(x => x))))";
    const char *flatb = "kernel k = nFun(n => fun(n.f32)(a => a |> split(1) |> mapBlock(mapThreads(fun(x => x))) |> join))";
    expect_rule(rows, NULL, 0, 1, LVL_GLOBAL, "min(65535, r)", LF_LOOP);
    expect_rule(planes, NULL, 0, 2, LVL_GLOBAL, "min(65535, p)", LF_LOOP);
    expect_rule(blocks, NULL, 0, 1, LVL_BLOCK, "min(65535, r)", LF_LOOP);
    static const struct { int64_t r; const char *grid; LoopForm form; } at[] = {
        {100, "100", LF_ONCE}, {65535, "65535", LF_ONCE}, {65536, "65535", LF_LOOP}, {70000, "65535", LF_LOOP}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        Define d[2] = {{"r", at[i].r}, {"c", 3}};
        expect_rule(rows, d, 2, 1, LVL_GLOBAL, at[i].grid, at[i].form);
        expect_rule(blocks, d, 2, 1, LVL_BLOCK, at[i].grid, at[i].form);
        Define p[2] = {{"p", at[i].r}, {"c", 3}};
        expect_rule(planes, p, 2, 2, LVL_GLOBAL, at[i].grid, at[i].form);
    }
    /* along x: a size given at launch keeps its guard; the runtime checks the grid */
    expect_rule(flat, NULL, 0, 0, LVL_GLOBAL, "(n + 255) / 256", LF_GUARDED);
    expect_rule(flatb, NULL, 0, 0, LVL_BLOCK, "n", LF_ONCE);
    Define big = {"n", 1LL << 40}, edge = {"n", 2147483647LL * 256}, past = {"n", 2147483647LL * 256 + 1};
    expect_rule(flat, &big, 1, 0, LVL_GLOBAL, "2147483647", LF_LOOP);
    expect_rule(flat, &edge, 1, 0, LVL_GLOBAL, "2147483647", LF_ONCE);
    expect_rule(flat, &past, 1, 0, LVL_GLOBAL, "2147483647", LF_LOOP);
    Define blk = {"n", 2147483648LL};
    expect_rule(flatb, &blk, 1, 0, LVL_BLOCK, "2147483647", LF_LOOP);
    /* 128 threads along z: a block of 64 there, a loop over it */
    TC *t = tc_compile("kernel k = nFun(n => fun(n.128.f32)(a => a |> mapBlock(mapThreads('z')(fun(x => x)))))");
    EXPECT_OK(t);
    int64_t b;
    ck_assert(nat_is_const(t->c.kernels[0]->block[2], &b) && b == 64);
    ck_assert_int_eq(find_loop(t->c.kernels[0]->body, LVL_THREADS)->loop.form, LF_LOOP);
    tc_free(t);
}
END_TEST

/* Let binds once: a scalar let becomes one register, read twice. */
START_TEST(let_evaluates_once)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((4*n).f32)(xs => xs |> split(4) |> mapGlobal(fun(c => "
                       "(c |> reduceSeq(add)(0.0f)) |> fun(s => s * s)))))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_int_eq(count_substr(cu, "for (patc_int"), 1);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun((4*n).f32)(xs => xs |> split(4) |> mapGlobal(fun(c => "
                   "(c |> mapSeq(fun(x => x * 2.0f))) |> fun(d => (d |> reduceSeq(add)(0.0f)) + (d |> reduceSeq(max)(0.0f)))))))");
    EXPECT_ERR(t, "computed and used more than once");
    tc_free(t);
}
END_TEST

/* A block's shared memory: one toShared of `count` floats per block of a mapBlock. */
static char *one_buffer(const char *count)
{
    static char src[512];
    snprintf(src, sizeof src,
             "kernel k = nFun((n, m) => fun((n*m).f32)(xs => xs |> split(%s) |> mapBlock(fun(row =>\n"
             "  row |> mapThreads(fun(x => x * 2.0f)) |> toShared |> mapThreads(fun(x => x + 1.0f)))) |> join))",
             count);
    return src;
}

/* Between 48 KiB and sm_90's opt-in maximum (232448 bytes) compiles, and the comment
 * block says the runtime opts in; one float more than the maximum is an error at the
 * toShared naming both byte counts. */
START_TEST(shared_budget_boundary)
{
    Define m = {"m", 50000};
    TC *t = tc_compile_defs(one_buffer("m"), &m, 1);
    EXPECT_OK(t);
    int64_t b;
    ck_assert(nat_is_const(t->c.kernels[0]->shared_bytes, &b));
    ck_assert_int_eq(b, 200000);
    char *cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "shared memory:   200000 bytes (above the 48 KiB default: the runtime opts in)"), "%s", cu);
    free(cu);
    tc_free(t);
    m.value = 232448 / 4; /* exactly the maximum */
    t = tc_compile_defs(one_buffer("m"), &m, 1);
    EXPECT_OK(t);
    ck_assert(nat_is_const(t->c.kernels[0]->shared_bytes, &b));
    ck_assert_int_eq(b, 232448);
    tc_free(t);
    m.value = 232448 / 4 + 1;
    t = tc_compile_defs(one_buffer("m"), &m, 1);
    ck_assert(!t->ok);
    ck_assert_msg(strstr(tc_err(t), "t.rise:2:41: error: shared memory over budget: this toShared (232464 bytes)") &&
                      strstr(tc_err(t), "more than the 232448 bytes a block can have"),
                  "%s", tc_err(t));
    tc_free(t);
    /* 48 KiB or less says nothing about opting in */
    m.value = 12288;
    t = tc_compile_defs(one_buffer("m"), &m, 1);
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "shared memory:   49152 bytes\n"), "%s", cu);
    free(cu);
    tc_free(t);
}
END_TEST

/* Three buffers of 100000 bytes in a chain: each is dead once the next is written, so
 * two places suffice (200000 bytes) and the kernel fits only thanks to that reuse. */
START_TEST(shared_budget_counts_reuse)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((25000*n).f32)(xs => xs |> split(25000) |> mapBlock(fun(row =>\n"
                       "  row |> mapThreads(fun(x => x * 2.0f)) |> toShared |> mapThreads(fun(x => x + 1.0f)) |> toShared\n"
                       "      |> mapThreads(fun(x => x * 3.0f)) |> toShared |> mapThreads(fun(x => x - 1.0f)))) |> join))");
    EXPECT_OK(t);
    Kernel *k = t->c.kernels[0];
    ck_assert_int_eq(k->nshared, 3);
    int64_t b;
    ck_assert(nat_is_const(k->shared_bytes, &b));
    ck_assert_int_eq(b, 200000);
    tc_free(t);
}
END_TEST

/* A symbolic size that may fit is left to the runtime (the comment block says it checks);
 * fixed by -D past the maximum, it is the compile-time error. */
START_TEST(shared_budget_symbolic)
{
    TC *t = tc_compile(one_buffer("m"));
    EXPECT_OK(t);
    ck_assert(!nat_is_const(t->c.kernels[0]->shared_bytes, NULL));
    char *cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "(the runtime opts in above 48 KiB and refuses a launch above the device's maximum)"), "%s", cu);
    free(cu);
    tc_free(t);
    Define m = {"m", 60000};
    t = tc_compile_defs(one_buffer("m"), &m, 1);
    ck_assert(!t->ok);
    ck_assert_msg(strstr(tc_err(t), "this toShared (240000 bytes) brings the block's shared memory to 240000 bytes"), "%s",
                  tc_err(t));
    tc_free(t);
}
END_TEST

/* lastBlock's flag and lookback's tile draw are shared buffers of the layout
 * (prims/warp.c), no static variables: neither takes anything off the budget, and the
 * layout counts their bytes (16 each, aligned). */
START_TEST(shared_budget_static_flag)
{
    Buffer ticket = {0}, draw = {0};
    Kernel k = {0};
    ck_assert_int_eq(smem_budget(&k, SMEM_OPTIN_MAX), 232448);
    k.ticket = &ticket;
    k.draw = &draw;
    ck_assert_int_eq(smem_budget(&k, SMEM_OPTIN_MAX), 232448);
    ck_assert_int_eq(smem_budget(&k, SMEM_DEFAULT_MAX), 49152);
    /* they are in the layout: a look-back kernel's u64 draw word, a ticket kernel's bool */
    TC *t = tc_compile_file(PATC_SOURCE_DIR "/tests/programs/lookback_affine.rise");
    EXPECT_OK(t);
    const Kernel *lk = t->c.kernels[0];
    int found = 0;
    for (int i = 0; i < lk->nshared; i++)
        if (!strncmp(lk->shared[i]->name, "lbdraw", 6) && lk->shared[i]->sk == SK_U64 && lk->shared[i]->offset) found++;
    ck_assert_int_eq(found, 1);
    tc_free(t);
    t = tc_compile_file(PATC_SOURCE_DIR "/tests/programs/lastblock_types.rise");
    EXPECT_OK(t);
    found = 0;
    for (int j = 0; j < t->c.nkernels; j++)
        for (int i = 0; i < t->c.kernels[j]->nshared; i++)
            if (!strncmp(t->c.kernels[j]->shared[i]->name, "last", 4) && t->c.kernels[j]->shared[i]->sk == SK_BOOL)
                found++;
    ck_assert_int_eq(found, 3); /* sumF64, sumI64, sumU64: the ticket kernels */
    tc_free(t);
}
END_TEST

/* scanSeq: the accumulator is one register, updated and then stored per element
 * (inclusive), or stored and then updated (exclusive); its result is only ever
 * written, never read lazily. */
START_TEST(scan_lowering)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((8*n).f32)(xs => xs |> split(8) |> mapGlobal(scanSeq(add)(0.0f)) |> join))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    const char *upd = strstr(cu, "acc1 = (xs["), *st = strstr(cu, "] = acc1;");
    ck_assert_ptr_nonnull(strstr(cu, "float acc1 = 0.0f;"));
    ck_assert_ptr_nonnull(upd);
    ck_assert_ptr_nonnull(st);
    ck_assert(upd < st);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun((8*n).i32)(xs => xs |> split(8) |> mapGlobal(scanSeqExcl(add)(0)) |> join))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    upd = strstr(cu, "acc1 = (xs[");
    st = strstr(cu, "] = acc1;");
    ck_assert_ptr_nonnull(upd);
    ck_assert_ptr_nonnull(st);
    ck_assert(st < upd);
    free(cu);
    tc_free(t);
    /* stored in private memory and then read: fine */
    t = tc_compile("kernel k = nFun(n => fun((8*n).i32)(xs => xs |> split(8) |> mapGlobal(fun(r => r |> scanSeq(add)(0) "
                   "|> toPrivate |> mapSeq(fun(x => x * 2)))) |> join))");
    EXPECT_OK(t);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun((8*n).i32)(xs => xs |> split(8) |> mapGlobal(fun(r => r |> scanSeq(add)(0) "
                   "|> reduceSeq(add)(0)))))");
    EXPECT_ERR(t, "the result of scanSeq is read here without being stored");
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun((8*n).i32)(xs => xs |> split(8) |> mapGlobal(fun(r => r |> split(2) "
                   "|> scanSeq(fun(x => fun(a => a)))(generate(fun(i => 0))))) |> join |> join))");
    EXPECT_ERR(t, "scanSeq with an array accumulator is not supported");
    tc_free(t);
}
END_TEST

/* toGlobal at the top ends a launch: the kernel gets one Kernel per launch, all with
 * its parameters (the toGlobal result a scratch buffer); the next launch reads it. A
 * value computed before a later toGlobal, and toGlobal inside a map, are errors. */
START_TEST(launches)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((32*n).f32)(xs => xs |> split(32) |> mapBlock(fun(r => r |> "
                       "mapThreads(fun(x => x * 2.0f)))) |> join |> toGlobal |> fun(ys => ys |> split(16) |> "
                       "mapGlobal(reduceSeq(add)(0.0f)))))");
    EXPECT_OK(t);
    Kernel *k = t->c.kernels[0];
    ck_assert_int_eq(k->npre, 1);
    ck_assert_str_eq(k->pre[0]->name, "k_launch0");
    ck_assert_ptr_eq(k->pre[0]->main, k);
    ck_assert_int_eq(k->nscratch, 1);
    ck_assert_ptr_eq(k->pre[0]->scratch, k->scratch);
    ck_assert_int_eq(k->pre[0]->nouts, 1);
    char *cu = tc_cuda(t);
    const char *l0 = strstr(cu, "void __launch_bounds__(32) k_launch0("), *l1 = strstr(cu, "void k(");
    ck_assert_msg(l0 && l1 && l0 < l1, "%s", cu);
    ck_assert_msg(strstr(l0, "glob0[(32 * b1 + t2)] = (xs[(32 * b1 + t2)] * 2.0f);") != NULL, "%s", cu);
    ck_assert_msg(strstr(l1, "glob0[") != NULL, "%s", cu);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun((32*n).f32)(xs => xs |> split(32) |> mapGlobal(fun(r => r |> toGlobal "
                   "|> reduceSeq(add)(0.0f)))))");
    EXPECT_ERR(t, "toGlobal ends a launch, so it must be at the kernel's top level");
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun((32*n).f32)(xs => xs |> idx(0) |> fun(s => xs |> mapGlobal(fun(x => x + s)) "
                   "|> toGlobal |> fun(ys => ys |> mapGlobal(id)))))");
    EXPECT_ERR(t, "'s' is computed before a later toGlobal");
    tc_free(t);
}
END_TEST

/* lookback in a mapSeq of a block's code carries the prefix over the iterations in a
 * register declared before the loop: the iteration gets a copy made before the carry
 * moves on. A mapSeq read element by element elsewhere cannot carry it. */
START_TEST(carried_lookback)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((64*n).i32)(xs => xs |> split(64) |> mapBlock(fun(r => r |> split(32) "
                       "|> mapSeq(fun(c => c |> toShared |> fun(s => s |> reduceSeq(add)(0) |> fun(t => lookback(add)(7)(t) "
                       "|> fun(p => s |> mapThreads(fun(x => x + p))))))) |> join)) |> join))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    /* declared with init before the mapSeq's loop (the first for: the block's is straight
     * line), copied at each iteration before it moves on, and the copy is what is added */
    const char *d = strstr(cu, "int carry"), *f = strstr(cu, "for (");
    ck_assert_msg(d && f && d < f && !strncmp(strchr(d, '='), "= 7;", 4), "%s", cu);
    const char *pre = strstr(cu, "int pre"), *upd = strstr(cu, " = nxt");
    ck_assert_msg(pre && upd && f < pre && pre < upd, "%s", cu);
    ck_assert_msg(strstr(upd, "+ pre") != NULL, "%s", cu);
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun((64*n).i32)(xs => xs |> split(64) |> mapBlock(fun(r => r |> split(32) "
                   "|> mapSeq(fun(c => c |> reduceSeq(add)(0) |> fun(t => lookback(add)(0)(t)))) |> idx(1)))))");
    EXPECT_ERR(t, "lookback in a mapSeq carries a prefix over its iterations");
    tc_free(t);
}
END_TEST

/* reduceSeq with an array accumulator: a private array, updated in place when the
 * operator is element-wise, through a temporary otherwise; at most 64 elements, of a
 * size known at compile time. */
START_TEST(array_accumulator)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((n*32).f32)(xs => xs |> split(32) |> mapGlobal(fun(b => b |> split(4) "
                       "|> reduceSeq(fun(acc => fun(r => zip(acc)(r) |> mapSeqUnroll(fun(p => fst(p) + snd(p))))))"
                       "(generate(fun(i => 0.0f))))) |> join))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_ptr_nonnull(strstr(cu, "float acc1[4];"));
    ck_assert_ptr_null(strstr(cu, "nacc"));
    ck_assert_ptr_nonnull(strstr(cu, "] = (acc1["));
    /* every loop indexing acc1 is unrolled: the init, the update and the copy out */
    ck_assert_int_eq(count_substr(cu, "#pragma unroll\n"), 3);
    free(cu);
    tc_free(t);
    /* new[i] = acc[i-1] + r[i] reads an element the update has already written in place */
    t = tc_compile("kernel k = nFun(n => fun((n*32).i32)(xs => xs |> split(32) |> mapGlobal(fun(b => b |> split(4) "
                   "|> reduceSeq(fun(acc => fun(r => zip(acc |> take(3) |> padCst(1)(0)(0))(r) "
                   "|> mapSeqUnroll(fun(p => fst(p) + snd(p))))))(generate(fun(i => 0))))) |> join))");
    EXPECT_OK(t);
    cu = tc_cuda(t);
    ck_assert_ptr_nonnull(strstr(cu, "int nacc"));
    ck_assert_ptr_nonnull(strstr(cu, "acc1[i"));
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun((n*65).f32)(xs => xs |> split(65) |> reduceSeq(fun(acc => fun(r => "
                   "zip(acc)(r) |> mapSeq(fun(p => fst(p) + snd(p))))))(generate(fun(i => 0.0f)))))");
    EXPECT_ERR(t, "the array accumulator (65.f32) has 65 elements, more than the 64");
    tc_free(t);
    t = tc_compile("kernel k = nFun((n, m) => fun((n*m).f32)(xs => xs |> split(m) |> reduceSeq(fun(acc => fun(r => "
                   "zip(acc)(r) |> mapSeq(fun(p => fst(p) + snd(p))))))(generate(fun(i => 0.0f)))))");
    EXPECT_ERR(t, "needs a size known at compile time, but it has m elements");
    tc_free(t);
}
END_TEST

/* The buffers a kernel declares that are spread over the threads, and their counts */
typedef struct Spread {
    int n;
    int64_t count[8];
    int ndist[8];
} Spread;

static WalkStep spread_stmt(void *ctx, const Stmt *s)
{
    Spread *sp = ctx;
    int64_t c;
    if (s->kind == S_DECL && s->decl.buf->ndist && sp->n < 8 && nat_is_const(s->decl.buf->count, &c)) {
        sp->count[sp->n] = c;
        sp->ndist[sp->n++] = s->decl.buf->ndist;
    }
    return WALK_ON;
}

static Spread spread_bufs(const Stmt *body)
{
    static const IrVisitor v = {.stmt = spread_stmt};
    Spread sp = {0};
    ir_walk(body, &v, &sp);
    return sp;
}

/* toPrivate of a mapThreads at block level is spread over the threads: each thread
 * keeps only its own elements (one register here), across the barrier that the
 * shared array's permuted read needs; a block-level reduceSeq from such an initial
 * value folds each thread's part (4 elements) in registers, its operator's mapThreads
 * writing the thread's own part. */
START_TEST(spread_private)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((64*n).f32)(xs => xs |> split(64) |> mapBlock(fun(c => "
                       "c |> mapThreads(fun(x => x * 2.0f)) |> toPrivate |> fun(p => "
                       "c |> mapThreads(fun(x => x + 1.0f)) |> toShared |> fun(s => "
                       "zip(p)(s |> split(2) |> transpose |> join) |> mapThreads(fun(q => fst(q) * snd(q)))))))"
                       " |> join))");
    EXPECT_OK(t);
    Spread sp = spread_bufs(t->c.kernels[0]->body);
    ck_assert_int_eq(sp.n, 1);
    ck_assert_int_eq(sp.count[0], 1);
    ck_assert_int_eq(count_stmts(t->c.kernels[0]->body, S_BARRIER), 1);
    char *cu = tc_cuda(t);
    ck_assert_msg(strstr(cu, "float p1;"), "%s", cu);
    ck_assert_msg(strstr(cu, "p1 = (xs[(64 * b0 + t2)] * 2.0f);"), "%s", cu);
    ck_assert_msg(strstr(cu, "= (p1 * s3["), "%s", cu);
    ck_assert_ptr_null(strstr(cu, "for (")); /* every thread loop is one trip: straight-line */
    free(cu);
    tc_free(t);
    t = tc_compile("kernel k = nFun(n => fun((n*512).4.f32)(xs => xs |> split(512) |> mapBlock(fun(c => "
                   "c |> split(64) |> reduceSeq(fun(acc => fun(ch => zip(acc)(ch |> mapThreads(fun(r => r |> "
                   "mapSeq(fun(x => x)))) |> toShared) |> mapThreads(fun(q => zip(fst(q))(snd(q)) "
                   "|> mapSeq(fun(u => fst(u) + snd(u))))))))(generate(fun(idx[64])(i => generate(fun(idx[4])(j "
                   "=> 0.0f)))) |> mapThreads(fun(z => z)) |> toPrivate) |> mapThreads(fun(r => r |> mapSeq(fun(x "
                   "=> x)))))) |> join))");
    EXPECT_OK(t);
    sp = spread_bufs(t->c.kernels[0]->body);
    ck_assert_int_eq(sp.n, 3); /* the initial value, the accumulator and its new value */
    for (int i = 0; i < sp.n; i++) {
        ck_assert_int_eq(sp.count[i], 4);
        ck_assert_int_eq(sp.ndist[i], 1);
    }
    ck_assert_int_eq(t->c.kernels[0]->nshared, 1);
    ck_assert_int_eq(count_stmts(t->c.kernels[0]->body, S_BARRIER), 2); /* before and after the tile's write */
    tc_free(t);
    /* a fold over the spread array at block level would read other threads' elements */
    t = tc_compile("kernel k = nFun(n => fun((64*n).f32)(xs => xs |> split(64) |> mapBlock(fun(c => c |> "
                   "mapThreads(fun(x => x)) |> toPrivate |> reduceSeq(add)(0.0f)))))");
    EXPECT_ERR(t, "at an index other than the thread's own");
    tc_free(t);
}
END_TEST

/* A loop whose index addresses a private array unrolls fully (up to 64 trips), else the
 * array would live in local memory: here the scanSeq into toPrivate and the read of it,
 * 20 trips each, where a plain loop unrolls fully only up to 8. */
START_TEST(private_loops_unroll)
{
    TC *t = tc_compile("kernel k = nFun(n => fun((n*20).f32)(xs => xs |> split(20) |> mapGlobal(fun(r => r "
                       "|> scanSeq(fun(x => fun(a => a + x)))(0.0f) |> toPrivate |> mapSeq(fun(x => x * 2.0f)))) "
                       "|> join))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_int_eq(count_substr(cu, "#pragma unroll\n"), 2);
    ck_assert_ptr_null(strstr(cu, "#pragma unroll 4"));
    free(cu);
    tc_free(t);
}
END_TEST

/* What lower.c asks of a primitive is in its handler row (issue 34 item 4): the links of
 * view chains are exactly the ones lower.c's two switches listed before (join, split,
 * transpose, id, take, drop, padCst, mapSeq, mapSeqUnroll), padCst and mapSeq continue
 * in their second argument; the results of a data-dependent length are the compacts and
 * partitions, of which compactTo and filterPipe count their elements' output. And a
 * chain of every link is written through, with no copy: a mapSeq of it over a parallel
 * map's rows stores straight into the output. */
START_TEST(chain_links_by_row)
{
    static const Prim links[] = {P_JOIN, P_SPLIT, P_TRANSPOSE, P_ID, P_TAKE, P_DROP, P_PADCST, P_MAPSEQ,
                                 P_MAPSEQUNROLL};
    for (int p = 0; p < P_COUNT; p++) {
        bool link = false;
        for (size_t i = 0; i < sizeof links / sizeof *links; i++) link |= (int)links[i] == p;
        const PrimOps *o = prim_ops((Prim)p);
        ck_assert_msg((o->through != NULL) == link, "%s: through", prim_info[p].name);
        int second = p == P_PADCST || p == P_MAPSEQ || p == P_MAPSEQUNROLL;
        if (link) ck_assert_msg(o->chain_arg == second, "%s: chain_arg %d", prim_info[p].name, o->chain_arg);
        CountResult want = p == P_COMPACTTO || p == P_FILTERPIPE ? CR_PREFIX
                           : p == P_PARTITIONTO || p == P_PARTITIONSTABLETO || p == P_PARTITIONPIPE ||
                                   p == P_PARTITIONSTABLEPIPE
                               ? CR_SPLIT
                           : p == P_MULTISPLIT_NEXT ? CR_NEXT
                                                    : CR_NONE;
        ck_assert_msg(o->count_result == want, "%s: count_result %d", prim_info[p].name, o->count_result);
    }
    TC *t = tc_compile("kernel k = nFun(n => fun((n*8).f32)(xs => xs |> split(8) |> mapGlobal(fun(r => r "
                       "|> mapSeq(fun(x => x * 2.0f)))) |> mapSeq(fun(r => r |> split(4) |> transpose |> join "
                       "|> id |> take(8) |> drop(0))) |> join))");
    EXPECT_OK(t);
    char *cu = tc_cuda(t);
    ck_assert_msg(count_substr(cu, "out[") == 1, "one store, straight into out:\n%s", cu);
    free(cu);
    tc_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lower");
    TCase *c = tcase_create("core");
    tcase_add_test(c, views_copy_nothing);
    tcase_add_test(c, scalar_forms_lowering);
    tcase_add_test(c, naive_reduction_shape);
    tcase_add_test(c, tree_reduction_barriers_and_reuse);
    tcase_add_test(c, no_barrier_without_shared);
    tcase_add_test(c, scalarise_and_dead_index);
    tcase_add_test(c, single_thread_region);
    tcase_add_test(c, loop_carried_barrier);
    tcase_add_test(c, launch_rule_within_limits);
    tcase_add_test(c, let_evaluates_once);
    tcase_add_test(c, ir_walker);
    tcase_add_test(c, shared_budget_boundary);
    tcase_add_test(c, shared_budget_counts_reuse);
    tcase_add_test(c, shared_budget_symbolic);
    tcase_add_test(c, shared_budget_static_flag);
    tcase_add_test(c, scan_lowering);
    tcase_add_test(c, array_accumulator);
    tcase_add_test(c, spread_private);
    tcase_add_test(c, private_loops_unroll);
    tcase_add_test(c, launches);
    tcase_add_test(c, carried_lookback);
    tcase_add_test(c, pairs_as_data_lowering);
    tcase_add_test(c, statement_vocabulary);
    tcase_add_test(c, pipe_roles_and_layout);
    tcase_add_test(c, pipe_partition_stable_lowering);
    tcase_add_test(c, chain_links_by_row);
    tcase_add_test(c, barriers_and_the_new_kinds);
    suite_add_tcase(s, c);
    return run_suite(s);
}
