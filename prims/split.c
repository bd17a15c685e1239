/* split.c: multisplit (PF_SPLIT), the stable k-way partition of issue 35: each element
 * goes to the bucket a function of it names, the buckets one after another in the
 * output, the elements of a bucket in input order. One launch, given where each bucket
 * starts (an exclusive scan of the buckets' counts from an earlier launch, as
 * partitionStableTo is given its count); the tiles hand their per-bucket counts to one
 * another through a look-back over k counters. */
#include "prims.h"

#include <string.h>

/* The most buckets: the kernel keeps a count per warp and bucket in shared memory
 * ((w + 1) * k words), and the tile words of the look-back are k per tile. */
#define MS_KMAX 4096
/* A launch's elements are fewer: the tile words' inclusive counts are 30 bits (ms_word) */
#define MS_NMAX ((int64_t)1 << 30)

/* ---------------------------------------------------------------- the type rule */

/* multisplit(k, nt, ipt)(bucket)(offs)(xs) : (t -> u32) -> k.w -> n.t -> n.t, t a
 * scalar (f32 i32 u32 f64 i64 u64) or a pair of them (a key and the value it carries,
 * zip(keys)(values): the sort of pairs, issue 35 item 2; the bucket function of the
 * pair, the result an array of pairs, two outputs), w u32 or u64: element xs[i] goes to
 * offs[b] + (the number of j < i with bucket(xs[j]) = b), b = bucket(xs[i]) in 0..k-1;
 * offs must be the exclusive scan of the buckets' counts (an earlier launch's result: a
 * histogram, then a scan). k (1 to MS_KMAX buckets), nt (threads a block, a multiple of
 * 32 up to 1024) and ipt (items a thread, 1 to 32) are constants: the kernel's tiles
 * are nt*ipt elements. It is a kernel (the last launch) of its own: outside every map
 * and function.
 *
 * multisplitTo(k, nt, ipt, m) is the same placing into a result of m elements (m any
 * nat), of which xs fills only the places it is sent to: a part of a longer sort, one
 * launch per part of the input (issue 35 item 4: a pass over more than 2^32 keys in
 * parts, each with its own offsets). Its offsets need only leave each bucket room:
 * offs[b] + count(b) <= offs[b + 1] and offs[k - 1] + count(k - 1) <= m. The kernel
 * leaves the other places of its output as they were; the interpreter, which has no
 * output before the launch, gives 0 there: a program must not read them.
 *
 * multisplitToNext(k, nt, ipt, m) places as multisplitTo and also gives, per bucket b,
 * offs[b] + count(b): where bucket b of the next part starts, which the last tile
 * writes once its look-back has every tile's count. Its result is the pair of those
 * (k.w, the first output) and the elements (m.t; for elements that are pairs the pair
 * of arrays m.a, m.b, as unzip makes, since an array of pairs is no output): the
 * offsets of a sort's part p + 1 are part p's result, so the parts of a pass chain
 * without a histogram of each (CUB's Onesweep chains its portions so, Adinets and
 * Merrill 2022). */
static bool ms_part(Prim p) { return p == P_MULTISPLIT_TO || p == P_MULTISPLIT_NEXT; }

static bool ms_elem_ok(Type *ty)
{
    ScalarKind sk = ty->kind == T_SCALAR ? tc_num_kind(ty) : SK_COUNT;
    return sk == SK_F32 || sk == SK_I32 || sk == SK_U32 || sk == SK_F64 || sk == SK_I64 || sk == SK_U64;
}

static Expr *infer_multisplit(Tc *t, const TcApp *ap)
{
    Arena *a = t->a;
    Ast **arg = ap->arg;
    if (t->ctx.n || t->fdepth)
        diag_error(t->d, ap->sp, "multisplit is a kernel of its own (a block per tile and a look-back between "
                   "them): it must be the kernel's whole result, outside every map and function");
    static const char *const what[3] = {"number of buckets", "number of threads a block", "number of items a thread"};
    const int64_t lo[3] = {1, 32, 1}, hi[3] = {MS_KMAX, 1024, 32};
    const char *name = prim_info[ap->p].name;
    Nat *ns[4];
    if (ms_part(ap->p)) ns[3] = tc_nat_of(t, ap->nat[3], ap->sc);
    for (int i = 0; i < 3; i++) {
        ns[i] = tc_nat_of(t, ap->nat[i], ap->sc);
        int64_t v;
        if (!nat_is_const(ns[i], &v) || v < lo[i] || v > hi[i] || (i == 1 && v % 32)) {
            hint_const(t->d, t->a, ns[i], lo[i], hi[i]);
            diag_error(t->d, ap->nat[i]->sp, "%s: the %s must be a constant in %lld..%lld%s", name, what[i],
                       (long long)lo[i], (long long)hi[i], i == 1 ? ", a multiple of 32 (whole warps)" : "");
        }
    }
    Type *u32 = ty_scalar(a, SK_U32);
    Expr *offs = tc_infer(t, arg[1], ap->sc, NULL);
    Type *want = ty_array(a, ns[0], u32), *want64 = ty_array(a, ns[0], ty_scalar(a, SK_U64));
    if (!ty_equal(offs->ty, want) && !ty_equal(offs->ty, want64))
        diag_error(t->d, offs->sp, "%s's second argument is where each of the %s buckets starts, of type %s or %s "
                   "(an exclusive scan of the buckets' counts, from an earlier launch), but this has type %s", name,
                   nat_str(a, ns[0]), tc_tstr(t, want), tc_tstr(t, want64), tc_tstr(t, offs->ty));
    Expr *x = tc_infer(t, arg[2], ap->sc, NULL);
    Type *tx = tc_want_array(t, x, name);
    Type *ty = tx->arr.elem;
    if (!ms_elem_ok(ty) && !(ty->kind == T_PAIR && ms_elem_ok(ty->pair.a) && ms_elem_ok(ty->pair.b)))
        diag_error(t->d, x->sp, "%s of %s: the elements must be scalars (f32, i32, u32, f64, i64 or u64) or "
                   "pairs of them (a key and its value, zip(keys)(values))", name, tc_tstr(t, tx));
    Type *ps[1] = {ty};
    Expr *f = tc_check_fun(t, arg[0], ps, 1, ap->sc, u32, ap->sp);
    Type *rt = tc_fun_result(f, 1);
    if (!ty_equal(rt, u32))
        diag_error(t->d, arg[0]->sp, "%s: the bucket function returns %s, not u32 (a bucket 0..%s; convert "
                   "with u32(...))", name, tc_tstr(t, rt), nat_str(a, nat_sub(a, ns[0], nat_cst(a, 1))));
    Type *rty = ms_part(ap->p) ? ty_array(a, ns[3], ty) : tx;
    if (ap->p == P_MULTISPLIT_NEXT) {
        Type *els = ty->kind == T_PAIR ? ty_pair(a, ty_array(a, ns[3], ty->pair.a), ty_array(a, ns[3], ty->pair.b)) : rty;
        rty = ty_pair(a, offs->ty, els);
    }
    Expr *e = tc_prim_expr(t, ap->p, rty, ap->sp);
    for (int i = 0; i < prim_info[ap->p].nnats; i++) e->prim.nats[i] = ns[i];
    e->prim.args[0] = f;
    e->prim.args[1] = offs;
    e->prim.args[2] = x;
    return e;
}

/* ---------------------------------------------------------------- the interpreter */

/* bucket(xs[i]) in the interpreter, checked against k */
static uint64_t ms_bucket(IpCtx *c, const Code *e, const IpVal *xs, int64_t i)
{
    const Code *f = e->args[0];
    IpVal x, r;
    ip_val_sel(c, xs, i, xs->ty->elem, &x);
    ip_val_set(&c->env[f->slot], &x);
    ip_eval(c, f->args[0], &r);
    if (r.s.u >= (uint64_t)e->k[0])
        ip_fail(c, e->sp, "multisplit: the bucket function gives %llu for element %lld, but there are %lld buckets "
                "(0..%lld)", (unsigned long long)r.s.u, (long long)i, (long long)e->k[0], (long long)e->k[0] - 1);
    return r.s.u;
}

/* The buckets' counts first (each bucket checked to be below k), then offs checked to be
 * their exclusive scan (multisplitTo: to leave each bucket room in its m places), then
 * each element placed at its bucket's next place, in order (multisplitTo: into m places
 * that start as 0); multisplitToNext: paired with each bucket's next place after its
 * elements, offs[b] + count(b), and pairs as a pair of arrays (unzip's view). */
static void eval_multisplit(IpCtx *c, const Code *e, IpVal *res)
{
    int64_t k = e->k[0];
    IpVal xs, ov, o;
    ip_eval(c, e->args[1], &ov);
    ip_eval(c, e->args[2], &xs);
    int64_t n = xs.ty->n;
    int64_t *cnt = ip_pool_alloc(c, sizeof *cnt * (size_t)k, true), *at = ip_pool_alloc(c, sizeof *at * (size_t)k, false);
    for (int64_t i = 0; i < n; i++) {
        Mark mk = ip_pool_mark(c);
        cnt[ms_bucket(c, e, &xs, i)]++;
        ip_pool_release(c, mk);
    }
    bool part = ms_part(e->p), next = e->p == P_MULTISPLIT_NEXT;
    const RType *et = e->ty; /* the elements': an array of xs's element type */
    if (next) {
        RType *t = ip_pool_alloc(c, sizeof *t, true);
        *t = *xs.ty;
        t->n = e->ty->b->kind == T_PAIR ? e->ty->b->a->n : e->ty->b->n;
        et = t;
    }
    int64_t m = et->n; /* the places: n, or multisplitTo's m */
    uint64_t sum = 0;
    for (int64_t b = 0; b < k; b++) {
        ip_val_sel(c, &ov, b, ov.ty->elem, &o);
        if (!part && o.s.u != sum)
            ip_fail(c, e->sp, "multisplit: the offsets given are not the exclusive scan of the buckets' counts: "
                    "bucket %lld's is %llu, but the buckets before it hold %lld elements", (long long)b,
                    (unsigned long long)o.s.u, (long long)sum);
        if (part && (o.s.u < sum || o.s.u > (uint64_t)m || (uint64_t)cnt[b] > (uint64_t)m - o.s.u))
            ip_fail(c, e->sp, "multisplitTo: bucket %lld starts at %llu, %s (its %lld elements, in %lld places)",
                    (long long)b, (unsigned long long)o.s.u,
                    o.s.u < sum ? "inside the bucket before it" : "and does not fit", (long long)cnt[b], (long long)m);
        at[b] = (int64_t)o.s.u;
        sum = o.s.u + (uint64_t)cnt[b];
    }
    Node *out = ip_store_new(c, et, NULL);
    if (part)
        for (int i = 0; i < et->nleaves; i++)
            memset(out->store.leaves[i].data, 0, (size_t)out->store.leaves[i].count * scalar_info[out->store.leaves[i].sk].size);
    for (int64_t i = 0; i < n; i++) {
        Mark mk = ip_pool_mark(c);
        IpVal x;
        uint64_t b = ms_bucket(c, e, &xs, i);
        ip_val_sel(c, &xs, i, xs.ty->elem, &x);
        ip_store_put(c, out, at[b]++, &x);
        ip_pool_release(c, mk);
    }
    if (!next) {
        ip_val_node(res, e->ty, out);
        return;
    }
    /* at[b] is now offs[b] + count(b) */
    Node *nx = ip_store_new(c, e->ty->a, NULL);
    for (int64_t b = 0; b < k; b++) {
        IpVal v;
        ip_val_scalar(&v, e->ty->a->elem, (Scalar){.u = (uint64_t)at[b]});
        ip_store_put(c, nx, b, &v);
    }
    IpVal nv, ev;
    ip_val_node(&nv, e->ty->a, nx);
    ip_val_node(&ev, et, out);
    if (e->ty->b->kind == T_PAIR) {
        IpVal zv;
        ip_val_node(&zv, e->ty->b, ip_node_new(c, N_UNZIP, &ev, NULL));
        ev = zv;
    }
    ip_val_node(res, e->ty, ip_node_new(c, N_PAIR, &nv, &ev));
}

/* ---------------------------------------------------------------- the kernel as kernel IR */

/* Read rather than written to the kernel's output: an error */
static LwVal *lower_multisplit_read(Lw *w, Expr *e)
{
    diag_error(w->d, e->sp, "multisplit is a kernel of its own: its result must be written to the kernel's output "
               "as it is (the kernel's whole result), not read");
}

/* What the parts of the kernel share: the shape (k buckets, W warps of IPT items a
 * lane, tiles of TILE = 32*W*IPT elements), n, the tile this block drew, the launch's
 * parity and the buffers: hist (shared: a count per warp and bucket, then the warp's
 * offset in the tile's bucket-ordered part, then, during ranking, where its next
 * element of the bucket goes), base (shared, per bucket: the tile's count of it, then
 * where place 0 of the tile would go in the output), val and info (each thread's IPT
 * elements in registers, and per element its bucket, or NULL where ms_rank computes the
 * buckets again, ms_keep_buckets; for pairs, after ranking, its place in the tile),
 * tstart and sval (below). */
typedef struct Ms {
    Lw *w;
    Arena *a;
    int64_t K, W, IPT, TILE, NT;
    int bits;      /* the bits of a bucket 0..K-1 the warp votes on */
    Nat *n, *tile, *tiles;
    Nat *places;   /* the output's length: n, or multisplitTo's m */
    ScalarKind osk;/* the offsets' (u32 or u64), and base's */
    Buffer *par;   /* the launch's epoch & 1 (a u32 register) */
    Buffer *hist, *base, *val, *info;
    Buffer *tstart;          /* per bucket: the tile's count of it, then where its part
                                starts in the tile */
    Buffer *wsum;            /* ms_tile_scan_par's: per warp of buckets, its buckets' count;
                                NULL: ms_tile_scan, then ms_add_starts */
    Buffer *sval;            /* the tile in bucket order (ms_scatter applies the bucket
                                function again rather than keep each element's bucket) */
    Expr *f;       /* the bucket function */
    ScalarKind sk; /* the elements' (the keys' where they are pairs) */
    bool pairs;    /* elements (key, value): the values go through sval2 */
    ScalarKind sk2;          /* the values' */
    Buffer *in2, *sval2;     /* the values' input; as sval, the values */
    Buffer *val2;            /* pairs: each thread's IPT values in registers (ms_read_values) */
    bool by_key;             /* pairs: the bucket function reads the key alone (ms_scatter
                                stores the keys before the values are in sval2) */
    Buffer *next;            /* multisplitToNext's first output (k offsets, osk); else NULL */
} Ms;

static Nat *mc(Ms *m, int64_t v) { return nat_cst(m->a, v); }
/* A thread's IPT elements in registers, declared at the block's level so that they live
 * from counting (ms_count) to ranking (ms_rank): the thread loops between are one trip
 * each (the block is nt threads), and the loops over the IPT elements unroll (loops.c) */
static Buffer *mprivate(Ms *m, const char *prefix, ScalarKind sk)
{
    return lw_private_array(m->w, prefix, sk, m->IPT);
}
/* Where round r's element is in such an array: index r, or 0 where IPT is 1 and the
 * array is a scalar (printed without an index, so r must not be mentioned: nvcc would
 * warn of the loop's unused variable) */
static Nat *mreg_at(Ms *m, Nat *r) { return m->IPT == 1 ? mc(m, 0) : r; }
static X *mlit(Ms *m, ScalarKind sk, uint64_t v) { return lw_xlit(m->w, sk, v); }
/* a u32 count in the offsets' type (u32 or u64) */
static X *mwide(Ms *m, X *x) { return m->osk == SK_U32 ? x : lw_xun(m->w, X_CAST, m->osk, x); }
static X *mbin(Ms *m, BinOp op, ScalarKind sk, X *l, X *r) { return lw_xbin(m->w, op, sk, l, r); }
static X *msel(Ms *m, X *c, X *p, X *q) { return lw_xsel(m->w, c, p, q); }
static X *mreg(Ms *m, Buffer *b) { return lw_xload(m->w, b, mc(m, 0)); }
static X *mnat_lt(Ms *m, Nat *l, Nat *r) { return lw_xbin(m->w, OP_LT, SK_BOOL, lw_xnat(m->w, l), lw_xnat(m->w, r)); }
/* Whether this tile publishes tile words: every tile but the last, which no tile reads,
 * so a launch of T tiles keeps T - 1 rows of k words (mrows): a row of temporary memory
 * fewer, which lets rt_sort.c take tiles a little smaller than CUB's within CUB's memory. */
static X *mnotlast(Ms *m) { return mnat_lt(m, nat_add(m->a, m->tile, mc(m, 1)), m->tiles); }
/* The rows of tile words a launch writes: tiles - 1 */
static Nat *mrows(Ms *m) { return nat_sub(m->a, m->tiles, mc(m, 1)); }
static X *mballot(Ms *m, X *v) { return lw_xballot(m->w, v); }
static X *mpopc(Ms *m, X *v) { return lw_xpopc(m->w, v); }
static X *mdecl(Ms *m, const char *prefix, ScalarKind sk, X *init, Buffer **b)
{
    lw_emit(m->w, lw_scalar_decl(m->w, prefix, sk, init, b));
    return mreg(m, *b);
}
static void mbarrier(Ms *m, Level l) { lw_barrier(m->w, l); }
static void mjump(Ms *m, JumpKind k)
{
    Stmt *s = lw_snew(m->w, S_JUMP);
    s->jump.k = k;
    lw_emit(m->w, s);
}
/* a loop over the block's nt threads (one trip each: the launch rule's block is nt) */
static Nat *mthreads(Ms *m, Stmt **loop, Stmt **saved)
{
    NatVar *iv;
    *loop = lw_open_loop(m->w, LVL_THREADS, 0, mc(m, m->NT), &iv, saved);
    return nat_var(m->a, iv);
}
static Nat *mseq(Ms *m, int64_t trips, Stmt **loop, Stmt **saved)
{
    NatVar *iv;
    *loop = lw_open_loop(m->w, LVL_SEQ, 0, mc(m, trips), &iv, saved);
    return nat_var(m->a, iv);
}
/* Where round r of lane `lane` in warp `warp` reads its element: tile*TILE + warp*32*IPT
 * + r*32 + lane (r left out where IPT is 1: mreg_at), in ms_count, ms_rank and ms_values */
static Nat *mplace(Ms *m, Nat *warp, Nat *lane, Nat *r)
{
    Arena *a = m->a;
    Nat *p = nat_add(a, nat_add(a, nat_mul(a, warp, mc(m, 32 * m->IPT)), nat_mul(a, mreg_at(m, r), mc(m, 32))), lane);
    return nat_add(a, nat_mul(a, m->tile, mc(m, m->TILE)), p);
}

/* The loops a part of the kernel opens: the block's threads (one trip each) and a
 * sequence inside them; in, where a part opened an if of its own for the whole trip
 * (mbuckets'), the statement to go back to. mclose closes them. */
typedef struct {
    Stmt *tl, *ts, *sl, *ss, *in;
} Mloops;
static void mclose(Ms *m, Mloops *l)
{
    if (l->in) m->w->cur = l->in;
    lw_close_loop(m->w, l->sl, l->ss);
    lw_close_loop(m->w, l->tl, l->ts);
}
/* The rounds of a warp's part of the tile (ms_count, ms_rank, ms_values): *r the
 * round, the result where the lane reads its element (mplace) */
static Nat *mrounds(Ms *m, Mloops *l, Nat **r)
{
    *l = (Mloops){0};
    mthreads(m, &l->tl, &l->ts);
    Nat *warp = nat_var(m->a, m->w->k->hw.warp), *lane = nat_var(m->a, m->w->k->hw.lane);
    *r = mseq(m, m->IPT, &l->sl, &l->ss);
    return mplace(m, warp, lane, *r);
}
/* The buckets, one a thread (bucket b is thread b % nt's, in trip b / nt), inside an if
 * b < k (ms_counts, ms_add_starts, ms_walk): the result b */
static Nat *mbuckets(Ms *m, Mloops *l)
{
    *l = (Mloops){0};
    Nat *tid = mthreads(m, &l->tl, &l->ts);
    Nat *j = mseq(m, (m->K + m->NT - 1) / m->NT, &l->sl, &l->ss);
    Nat *b = nat_add(m->a, nat_mul(m->a, j, mc(m, m->NT)), tid);
    lw_open_if(m->w, mnat_lt(m, b, mc(m, m->K)), &l->in);
    return b;
}

/* bucket(x): the user's function inlined, capped at K - 1 (an out-of-range bucket is
 * the interpreter's error; the kernel puts the element in the last bucket rather than
 * index past its counts) */
static X *mbucket(Ms *m, X *x, X *y)
{
    LwVal *v = lw_scalar(m->w, x);
    lw_bind(m->w, m->f->lam.param, y ? lw_pairv(m->w, v, lw_scalar(m->w, y)) : v);
    X *b = lw_lower_exp(m->w, m->f->lam.body)->x;
    X *mn = lw_xnew(m->w, X_MINMAX, SK_U32);
    mn->bin.op = OP_LT;
    mn->bin.l = b;
    mn->bin.r = mlit(m, SK_U32, (uint64_t)m->K - 1);
    return mn;
}

/* An element's bucket where it is in the input (valid), else 0 (ms_count, and ms_rank
 * where it computes the buckets again) */
static X *mbucket_in(Ms *m, X *valid, X *x, X *y) { return msel(m, valid, mbucket(m, x, y), mlit(m, SK_U32, 0)); }

/* 0. The first lanes of warp 0 bring the input's tile MS_AHEAD tiles on into L2, a lane
 * a unit of MS_PREFETCH_BYTES, where that tile is in the launch (S_PREFETCH: not waited
 * for, and it changes nothing). The tiles are drawn in launch order, so that tile is
 * drawn by a block that starts a little later and reads it from L2, while this block
 * is counting and ranking. On an H100, with 512 x 24 tiles of u32 keys (two blocks an
 * SM, 264 at once), the sort of 2^28 keys took 4843-4890 us with 16 to 90 tiles ahead
 * against 4965-4989 without, f32 keys 4860-4891 against 4987-4997; 264 tiles ahead
 * made it slower (u32 5083, f32 5053), 396 slower still. For pairs only the keys: their
 * keys ahead made the sort neither faster nor slower, the values of the tile itself made
 * it slower (2312 us against 2245 at 2^26), and the values ahead too (2410-2419 against
 * 2241-2254) (bench/results/2026-11-28-nvidia-h100-sort-prefetch, x2, x3 and x5; the
 * H200's pairs were 1-4 % faster with the keys ahead, -h200-sort-prefetch). */
enum { MS_AHEAD = 64, MS_PREFETCH_BYTES = 8192 };
static void ms_prefetch(Ms *m, Buffer *in)
{
    Arena *a = m->a;
    Stmt *tl, *ts, *is;
    int64_t chunk = MS_PREFETCH_BYTES / scalar_info[m->sk].size;
    if (chunk > m->TILE) chunk = m->TILE;
    int64_t lanes = (m->TILE + chunk - 1) / chunk; /* under 32: the tile fits shared memory, 227 KiB */
    Nat *tid = mthreads(m, &tl, &ts);
    Nat *start = nat_mul(a, nat_add(a, m->tile, mc(m, MS_AHEAD)), mc(m, m->TILE));
    Nat *lo = nat_add(a, start, nat_mul(a, tid, mc(m, chunk)));
    X *go = mbin(m, OP_AND, SK_BOOL, mnat_lt(m, tid, mc(m, lanes)), mnat_lt(m, lo, m->n));
    lw_open_if(m->w, go, &is);
    Stmt *s = lw_snew(m->w, S_PREFETCH);
    s->prefetch.src = in;
    s->prefetch.lo = lo;
    s->prefetch.hi = nat_min(a, nat_min(a, nat_add(a, lo, mc(m, chunk)), nat_add(a, start, mc(m, m->TILE))), m->n);
    lw_emit(m->w, s);
    m->w->cur = is;
    lw_close_loop(m->w, tl, ts);
}

/* 1. Every warp's counts start at 0. */
static void ms_clear(Ms *m)
{
    Stmt *tl, *ts, *sl, *ss, *is;
    Nat *tid = mthreads(m, &tl, &ts);
    int64_t words = m->W * m->K;
    Nat *j = mseq(m, (words + m->NT - 1) / m->NT, &sl, &ss);
    Nat *i = nat_add(m->a, nat_mul(m->a, j, mc(m, m->NT)), tid);
    lw_open_if(m->w, mnat_lt(m, i, mc(m, words)), &is);
    lw_store(m->w, m->hist, i, mlit(m, SK_U32, 0));
    m->w->cur = is;
    lw_close_loop(m->w, sl, ss);
    lw_close_loop(m->w, tl, ts);
}

/* 2. Each warp counts its part of the tile, elements v*32*IPT .. (v+1)*32*IPT - 1 for
 * warp v, 32 at a time in order (lane l the element r*32 + l of round r): each lane
 * reads its element (a pair's key), computes its bucket and adds 1 to its warp's count
 * of the bucket (hist, the warp's own row; a shared atomic, which the lanes of one
 * bucket share). The element and its bucket stay in the thread's registers (val, info)
 * for ms_rank, so that the bucket function runs once an element. The reads are a loop
 * of their own, before the counting, so that they are in flight together: read and
 * counted in one loop, a sort whose passes ended in a half-full tile was slower than one
 * of whole tiles (12288 u32 keys in 512 x 16 tiles: 49.5-50.1 us against 40.8-42.1 for
 * 16384 on an H200); apart, 40.8-43.2 us against 51.0-52.8 on an H100, and f32 keys
 * and f32 keys with u32 values 13-16 % faster there too
 * (bench/results/2026-11-28-nvidia-h100-sort-stop57). The
 * guarded reads of the partial tile waiting on the atomics between them would explain
 * it; the SASS was not examined. Counting before
 * ranking lets the tile publish its counts (ms_counts) before it ranks, so that the
 * look-back of the tiles after it seldom waits for them (CUB's Onesweep counts early
 * too, Adinets and Merrill 2022), and lets ranking give each element its place in the
 * tile at once (ms_rank), with no lookup of its bucket's start afterwards. The atomic
 * adds the constant 1: nvcc makes that ATOMS.POPC.INC, one update for all the lanes on
 * an address (sorted input puts most of a warp's lanes on one). An add of anything
 * else is an ATOMS.ADD, lane by lane: u16 counts two to a word made a sort of 2^28
 * sorted f32 keys 1.05-1.07 ms slower on an H200
 * (bench/results/2026-11-28-nvidia-h200-sort-stop64, c2). */
static void ms_count(Ms *m, Buffer *in, Buffer *in2)
{
    Lw *w = m->w;
    Arena *a = m->a;
    Stmt *is;
    Mloops l;
    Nat *r, *gi = mrounds(m, &l, &r);
    Buffer *xb, *bb;
    X *valid = lw_materialise(w, mnat_lt(m, gi, m->n), "msok");
    X *x = mdecl(m, "msx", m->sk, mlit(m, m->sk, 0), &xb);
    lw_open_if(w, valid, &is);
    lw_store(w, xb, mc(m, 0), lw_xload(w, in, gi));
    w->cur = is;
    lw_store(w, m->val, mreg_at(m, r), x);
    mclose(m, &l);
    gi = mrounds(m, &l, &r);
    Nat *warp = nat_var(a, w->k->hw.warp);
    valid = lw_materialise(w, mnat_lt(m, gi, m->n), "msok");
    x = lw_xload(w, m->val, mreg_at(m, r));
    /* the value read only where the bucket function reads it (below the select on
     * valid); ms_read_values reads it again to place it */
    X *y = m->pairs ? lw_xload(w, in2, gi) : NULL;
    X *b = mdecl(m, "msb", SK_U32, mbucket_in(m, valid, x, y), &bb);
    lw_open_if(w, valid, &is);
    Stmt *s = lw_snew(w, S_STORE);
    s->store.buf = m->hist;
    s->store.index = nat_add(a, nat_mul(a, warp, mc(m, m->K)), lw_data_index(w, b, mc(m, m->K)));
    s->store.val = mlit(m, SK_U32, 1);
    s->store.atom = ATOM_ADD;
    lw_emit(w, s);
    w->cur = is;
    if (m->info) lw_store(w, m->info, mreg_at(m, r), b); /* read only where valid (ms_rank) */
    mclose(m, &l);
}

/* 5. Warp v ranks its part of the tile again in the same order: the lanes of one bucket
 * find one another by voting on the bucket's bits (SHFL_MATCH: a ballot per bit), each
 * lane's place is its warp's offset in the bucket (hist: the bucket's start in the tile
 * plus the counts of the warps before, ms_counts and the tile scan) plus the lanes of
 * its bucket below it, and the bucket's highest lane adds the round's count to the
 * offset (between two __syncwarp). The element goes to its place in the tile in bucket
 * order, in shared memory (sval); for pairs the place stays in info for ms_values, which
 * reads the values from global memory (not kept in registers since ms_count: ptxas
 * spilled the pairs' pass at 512x18 and 256x32 with them there). Why ballots, from
 * sorts of 2^28 f32 keys on an H200 (bench/results/2026-11-28-nvidia-h200-sort-stop64):
 * - a shared atomicOr of each lane's bit into a mask per bucket (CUB's
 *   WARP_MATCH_ATOMIC_OR) was 1.7-3.8 ms slower (m1; its count lost POPC.INC too);
 * - ballots only on the bits that differ across the warp (redux) were 19-24 us faster
 *   on sorted keys but 236-681 us slower on the others (r1);
 * - the top lane alone reading the offset and shuffling it to the others was 50-120 us
 *   slower (l1). */
static void ms_rank(Ms *m)
{
    Lw *w = m->w;
    Arena *a = m->a;
    Stmt *is;
    Mloops l;
    Nat *r, *gi = mrounds(m, &l, &r);
    Nat *warp = nat_var(a, w->k->hw.warp), *lane = nat_var(a, w->k->hw.lane);
    Buffer *pm, *hb;
    X *test = mnat_lt(m, gi, m->n);
    X *valid = lw_materialise(w, test, "msok");
    X *b = lw_materialise(w, m->info ? lw_xload(w, m->info, mreg_at(m, r))
                                     : mbucket_in(m, valid, lw_xload(w, m->val, mreg_at(m, r)), NULL), "msb");
    /* the ballot of the test itself, not of msok: version.c decides it in a full tile,
     * where the vote folds away (one ALU instruction an element fewer) */
    X *peers = mdecl(m, "mspm", SK_U32, mbin(m, OP_BAND, SK_U32, mballot(m, test), lw_xmatch(w, b, m->bits)), &pm);
    X *below = mbin(m, OP_SUB, SK_U32, mbin(m, OP_SHL, SK_U32, mlit(m, SK_U32, 1), lw_xnat(w, lane)), mlit(m, SK_U32, 1));
    X *rk = lw_materialise(w, mpopc(m, mbin(m, OP_BAND, SK_U32, peers, below)), "msrk");
    X *ct = lw_materialise(w, mpopc(m, peers), "msct");
    Nat *hi = nat_add(a, nat_mul(a, warp, mc(m, m->K)), lw_data_index(w, b, mc(m, m->K)));
    X *h = mdecl(m, "msh", SK_U32, mlit(m, SK_U32, 0), &hb);
    lw_open_if(w, valid, &is);
    lw_store(w, hb, mc(m, 0), lw_xload(w, m->hist, hi));
    w->cur = is;
    mbarrier(m, LVL_WARP);
    X *top = mbin(m, OP_AND, SK_BOOL, valid, mbin(m, OP_EQ, SK_BOOL, mbin(m, OP_ADD, SK_U32, rk, mlit(m, SK_U32, 1)), ct));
    lw_open_if(w, top, &is);
    lw_store(w, m->hist, hi, mbin(m, OP_ADD, SK_U32, h, ct));
    w->cur = is;
    mbarrier(m, LVL_WARP);
    lw_open_if(w, valid, &is);
    X *q = lw_materialise(w, mbin(m, OP_ADD, SK_U32, h, rk), "msq");
    lw_store(w, m->sval, lw_data_index(w, q, mc(m, m->TILE)), lw_xload(w, m->val, mreg_at(m, r)));
    if (m->pairs) lw_store(w, m->info, mreg_at(m, r), q);
    w->cur = is;
    mclose(m, &l);
}

/* 5b. Pairs: each thread reads its values from global memory into registers (val2),
 * after ranking and before the look-back, so that the reads are in flight while the
 * tile walks back and (by_key) stores its keys; ms_values puts them in the tile after.
 * Read in ms_rank, between the ranking's warp votes, the sort of pairs was 3-9 % slower
 * at 2^22 and 2^24 keys (one read a round in flight). On an H100 at 512x20, f32 keys
 * with u32 values: read after the look-back and stored with the keys in one loop,
 * 2241-2251 us at 2^26 and 8762-8775 at 2^28; read here, 2238-2241 and 8721-8728;
 * read here and stored after the keys (ms_scatter twice), 2148-2153 and 8345-8349
 * (bench/results/2026-11-28-nvidia-h100-sort-split, x1). Not kept in registers since
 * ms_count: ptxas spilled the pass at 512x18 and 256x32 with the keys and values both
 * there through the ranking. */
static void ms_read_values(Ms *m)
{
    Lw *w = m->w;
    Stmt *is;
    Mloops l;
    Nat *r, *gi = mrounds(m, &l, &r);
    lw_open_if(w, mnat_lt(m, gi, m->n), &is);
    lw_store(w, m->val2, mreg_at(m, r), lw_xload(w, m->in2, gi));
    w->cur = is;
    mclose(m, &l);
}

/* 6b. Pairs: each value (val2) at its key's place in the tile (sval2; the place ms_rank
 * left in info). */
static void ms_values(Ms *m)
{
    Lw *w = m->w;
    Stmt *is;
    Mloops l;
    Nat *r, *gi = mrounds(m, &l, &r);
    lw_open_if(w, mnat_lt(m, gi, m->n), &is);
    Nat *qi = lw_data_index(w, lw_xload(w, m->info, mreg_at(m, r)), mc(m, m->TILE));
    lw_store(w, m->sval2, qi, lw_xload(w, m->val2, mreg_at(m, r)));
    w->cur = is;
    mclose(m, &l);
}

/* A tile word, 32 bits: 0 unset; 01p (bits 31..29) and the count in bits 28..0 the
 * tile's own count of the bucket (aggregate, st 1: at most a tile, under 2^29); 1p (bits
 * 31..30) and the count in bits 29..0 the count of this and every earlier tile
 * (inclusive prefix, st 2: under 2^30, as n is). p is the launch's parity: a word left by
 * the launch before reads as unset, and ms_sweep leaves no older word (CUB's words are
 * 32 bits too, cleared by a memset before each launch; these need none). */
static X *ms_word(Ms *m, int st, X *count)
{
    X *tag = mbin(m, OP_SHL, SK_U32, mbin(m, OP_BOR, SK_U32, mlit(m, SK_U32, 2), mreg(m, m->par)),
                  mlit(m, SK_U32, st == 2 ? 30 : 29));
    return mbin(m, OP_BOR, SK_U32, tag, count);
}
static void ms_publish(Ms *m, Buffer *state, Nat *at, int st, X *count)
{
    Stmt *s = lw_snew(m->w, S_STORE);
    s->store.buf = state;
    s->store.index = at;
    s->store.val = ms_word(m, st, count);
    s->store.order = MO_RELAXED;
    lw_emit(m->w, s);
}

/* n below MS_NMAX (the tile words' inclusive counts are 30 bits): shown from n's
 * bounds, or made n's bound, which the runtime checks at every launch ("nat n = ... must
 * be below 1073741824"), where n is a nat parameter; an error otherwise. */
static void ms_limit(Ms *m, Span sp)
{
    Nat *lim = mc(m, MS_NMAX);
    if (nat_prove_lt(m->a, m->n, lim)) return;
    if (m->n->kind == N_VAR && m->n->var->param) {
        NatVar *v = m->n->var;
        v->ub = v->ub ? nat_min(m->a, v->ub, lim) : lim;
        return;
    }
    diag_error(m->w->d, sp, "multisplit: its input's length must be below 2^30 (a launch's look-back counts are 30 "
               "bits), and patc cannot show that of this one; make the length a nat parameter (the runtime then "
               "checks it at each launch)");
}

/* 3. Per bucket b (thread b % nt): the warps' counts become their offsets in the tile's
 * part of b (an exclusive scan over the warps), and the tile's count c of b is
 * published in its tile word at once (tile 0: as its prefix), before the tile ranks;
 * tstart[b] and base[b] keep c (the tile scan makes tstart the bucket's start, ms_walk
 * reads base). */
static void ms_counts(Ms *m, Buffer *state)
{
    Lw *w = m->w;
    Arena *a = m->a;
    Stmt *vl, *vs, *t0;
    Mloops l;
    Nat *b = mbuckets(m, &l);
    Buffer *run;
    X *rx = mdecl(m, "msrun", SK_U32, mlit(m, SK_U32, 0), &run);
    Nat *v = mseq(m, m->W, &vl, &vs);
    Nat *hv = nat_add(a, nat_mul(a, v, mc(m, m->K)), b);
    X *c = lw_materialise(w, lw_xload(w, m->hist, hv), "msc");
    lw_store(w, m->hist, hv, rx);
    lw_store(w, run, mc(m, 0), mbin(m, OP_ADD, SK_U32, rx, c));
    lw_close_loop(w, vl, vs);
    Nat *mine = nat_add(a, nat_mul(a, m->tile, mc(m, m->K)), b);
    X *first = mnat_lt(m, m->tile, mc(m, 1));
    Stmt *tl;
    lw_open_if(w, mnotlast(m), &tl);
    lw_open_if(w, first, &t0);
    ms_publish(m, state, mine, 2, rx);
    w->cur = t0;
    lw_open_if(w, lw_xnot(m->w, first), &t0);
    ms_publish(m, state, mine, 1, rx);
    w->cur = tl;
    lw_store(w, m->tstart, b, rx);
    lw_store(w, m->base, b, mwide(m, rx));
    mclose(m, &l);
}

/* 6. Per bucket b (thread b % nt), after the tile has ranked: the single look-back of
 * lookback (prims/warp.c) but one thread per counter. The thread reads the words of the
 * tiles before it, nearest first, each polled (relaxed 32-bit loads, __nanosleep(32)
 * between) until it holds this launch's parity (ms_word), adding their counts until one
 * holds a prefix; it publishes prefix + c as this tile's prefix (c, the tile's count of
 * b, from base[b]) and sets base[b] = offs[b] + prefix - start (start, the bucket's start
 * in the tile: tstart[b]; modulo 2^32 or 2^64, as the offsets' type), where place 0 of
 * the tile would go, so that the scatter adds the place alone; multisplitToNext's last
 * tile also writes offs[b] + prefix + c, where bucket b of the next part starts. Count
 * and flag are one word, so no fence orders them. A tile waits only for tiles drawn
 * before it (the draw is in launch order), which do not wait for it. */
static void ms_walk(Ms *m, Buffer *offs, Buffer *state)
{
    Lw *w = m->w;
    Arena *a = m->a;
    Stmt *t0, *wl, *pl, *ib;
    Mloops l;
    Nat *b = mbuckets(m, &l);
    Buffer *pre, *wd, *hi;
    X *rx = lw_xload(w, m->base, b);
    rx = lw_materialise(w, m->osk == SK_U32 ? rx : lw_xun(m->w, X_CAST, SK_U32, rx), "msc");
    X *px = mdecl(m, "mspre", SK_U32, mlit(m, SK_U32, 0), &pre);
    Nat *mine = nat_add(a, nat_mul(a, m->tile, mc(m, m->K)), b);
    lw_open_if(w, lw_xnot(m->w, mnat_lt(m, m->tile, mc(m, 1))), &t0);
    NatVar *dv = nat_newvar(a, arena_printf(a, "msd%d", w->names++), 0, m->tiles);
    lw_open_while(w, dv, &wl);
    /* the tile d + 1 before this one */
    Nat *at = nat_add(a, nat_mul(a, nat_sub(a, m->tile, nat_add(a, nat_var(a, dv), mc(m, 1))), mc(m, m->K)), b);
    X *wx = mdecl(m, "msw", SK_U32, NULL, &wd);
    X *hx = mdecl(m, "msfull", SK_BOOL, NULL, &hi);
    lw_open_while(w, NULL, &pl);
    X *ld = lw_xload(w, state, at);
    ld->load.order = MO_RELAXED;
    lw_store(w, wd, mc(m, 0), ld);
    X *mark = mbin(m, OP_BOR, SK_U32, mlit(m, SK_U32, 2), mreg(m, m->par));
    lw_store(w, hi, mc(m, 0), mbin(m, OP_EQ, SK_BOOL, mbin(m, OP_SHR, SK_U32, wx, mlit(m, SK_U32, 30)), mark));
    X *agg = mbin(m, OP_EQ, SK_BOOL, mbin(m, OP_SHR, SK_U32, wx, mlit(m, SK_U32, 29)), mark);
    lw_open_if(w, mbin(m, OP_OR, SK_BOOL, hx, agg), &ib);
    mjump(m, JK_BREAK);
    w->cur = ib;
    Stmt *sl2 = lw_snew(w, S_SLEEP);
    sl2->sleep.ns = 32;
    lw_emit(w, sl2);
    w->cur = pl;
    X *cnt = mbin(m, OP_BAND, SK_U32, wx, msel(m, hx, mlit(m, SK_U32, 0x3fffffffu), mlit(m, SK_U32, 0x1fffffffu)));
    lw_store(w, pre, mc(m, 0), mbin(m, OP_ADD, SK_U32, px, cnt));
    lw_open_if(w, hx, &ib);
    mjump(m, JK_BREAK);
    w->cur = wl;
    Stmt *tl; /* closed with the if around it (t0) */
    lw_open_if(w, mnotlast(m), &tl);
    ms_publish(m, state, mine, 2, mbin(m, OP_ADD, SK_U32, px, rx));
    w->cur = t0;
    X *ob = mbin(m, OP_ADD, m->osk, lw_xload(w, offs, b), mwide(m, px));
    if (m->next) ob = lw_materialise(w, ob, "msob"); /* read twice */
    X *st = lw_xload(w, m->tstart, b);
    lw_store(w, m->base, b, mbin(m, OP_SUB, m->osk, ob, mwide(m, st)));
    if (m->next) {
        lw_open_if(w, lw_xnot(w, mnotlast(m)), &t0); /* the launch's last tile */
        lw_store(w, m->next, b, mbin(m, OP_ADD, m->osk, ob, mwide(m, rx)));
        w->cur = t0;
    }
    mclose(m, &l);
}

/* 4. Where each bucket's part starts in the tile: the exclusive scan of the tile's k
 * counts (tstart, which ms_counts left holding the counts) by warp 0, lane l over the
 * buckets l*C .. l*C + C - 1 (C = ceil(k / 32)): its sum, the warp's scan of the sums
 * (shuffles up), then its buckets' starts in order; then ms_add_starts. */
static void ms_tile_scan(Ms *m)
{
    Lw *w = m->w;
    Arena *a = m->a;
    Stmt *tl, *ts, *sl, *ss, *is, *ws, *gs;
    mthreads(m, &tl, &ts);
    Nat *warp = nat_var(a, w->k->hw.warp), *lane = nat_var(a, w->k->hw.lane);
    lw_open_if(w, lw_xbin(w, OP_EQ, SK_BOOL, lw_xnat(w, warp), lw_xnat(w, mc(m, 0))), &ws);
    int64_t C = (m->K + 31) / 32;
    Buffer *sum;
    X *sx = mdecl(m, "mssum", SK_U32, mlit(m, SK_U32, 0), &sum);
    Nat *j = mseq(m, C, &sl, &ss);
    Nat *b = nat_add(a, nat_mul(a, lane, mc(m, C)), j);
    lw_open_if(w, mnat_lt(m, b, mc(m, m->K)), &gs);
    lw_store(w, sum, mc(m, 0), mbin(m, OP_ADD, SK_U32, sx, lw_xload(w, m->tstart, b)));
    w->cur = gs;
    lw_close_loop(w, sl, ss);
    X *ix = lw_warp_scan_add(w, sx, 32, "msinc", "msup");
    Buffer *at;
    X *ax = mdecl(m, "msat", SK_U32, mbin(m, OP_SUB, SK_U32, ix, sx), &at);
    j = mseq(m, C, &sl, &ss);
    b = nat_add(a, nat_mul(a, lane, mc(m, C)), j);
    lw_open_if(w, mnat_lt(m, b, mc(m, m->K)), &is);
    X *cb = lw_materialise(w, lw_xload(w, m->tstart, b), "mscb");
    lw_store(w, m->tstart, b, ax);
    lw_store(w, at, mc(m, 0), mbin(m, OP_ADD, SK_U32, ax, cb));
    w->cur = is;
    lw_close_loop(w, sl, ss);
    w->cur = ws;
    lw_close_loop(w, tl, ts);
}

/* Whether each element's bucket stays in a register (info) from ms_count to ms_rank, or
 * ms_rank runs the bucket function again (info NULL): kept where the launch bounds leave
 * registers for the IPT elements, their IPT buckets and 16 more (65536 / (nt * min_blocks)
 * a thread on sm_90, 255 without a bound), and always for pairs (info holds the element's
 * place for ms_values). The pass of f32 keys at 512 x 24 (an H200, 2^28 keys): with two
 * blocks an SM it kept its buckets in 64 registers and the sort took 4.81-4.83 ms;
 * computing them again there cost 7 % (5.16-5.17); with three blocks an SM (40
 * registers, computed again) 4.79-4.81, and with ms_scatter's loop unrolled as well 4.67
 * against 5.10-5.13 with two (bench/results/2026-11-28-nvidia-h200-sort-alu). */
static bool ms_keep_buckets(const Ms *m, int min_blocks)
{
    if (m->pairs || min_blocks < 1) return true;
    int64_t words = (scalar_info[m->sk].size + 3) / 4;
    int64_t budget = 65536 / (m->NT * min_blocks);
    return m->IPT * (words + 1) + 16 <= (budget < 255 ? budget : 255);
}

/* Whether the tile scan is ms_tile_scan_par's: k <= nt and k a multiple of 32, for every
 * element type. When a tile ranked before it counted, u64 keys and pairs kept warp 0's
 * scan (with the other, ptxas gave u64 keys' pass fewer registers and two blocks an SM,
 * 25-33 % slower from 2^24 keys on an H100: bench/results/2026-11-27-nvidia-h100-sort-tilescan);
 * since it counts first, keeping that rule made u64 keys 7-14 % slower than before from
 * 2^24 keys on an H200 and the pairs no faster
 * (bench/results/2026-11-27-nvidia-h200-sort-count-first, new3). */
static bool ms_par_scan(const Ms *m)
{
    return m->K <= m->NT && m->K % 32 == 0;
}

/* 4, where k <= nt and k is a multiple of 32 (bucket b is thread b's, and warps hold
 * whole sets of 32 buckets): the same scan by the k threads at once. Each warp scans
 * its buckets' counts (lw_warp_scan_add), keeps each bucket's start among its own in
 * tstart[b] and puts its total in wsum; then thread b adds the totals of the warps
 * before its own, which gives its bucket's start in the tile, and adds that start to
 * the bucket's W warp offsets in hist (ms_add_starts' work, done here) and keeps it in
 * tstart[b] (for ms_walk), so that warp 0 does not scan all k alone. */
static void ms_tile_scan_par(Ms *m)
{
    Lw *w = m->w;
    Arena *a = m->a;
    Stmt *tl, *ts, *is, *ls, *vl, *vs, *ul, *us;
    Nat *warp = nat_var(a, w->k->hw.warp), *lane = nat_var(a, w->k->hw.lane);
    Nat *tid = mthreads(m, &tl, &ts);
    lw_open_if(w, mnat_lt(m, tid, mc(m, m->K)), &is);
    X *c = lw_materialise(w, lw_xload(w, m->tstart, tid), "mscnt");
    X *ix = lw_warp_scan_add(w, c, 32, "msinc", "msup");
    lw_store(w, m->tstart, tid, mbin(m, OP_SUB, SK_U32, ix, c));
    lw_open_if(w, lw_xbin(w, OP_EQ, SK_BOOL, lw_xnat(w, lane), lw_xnat(w, mc(m, 31))), &ls);
    lw_store(w, m->wsum, warp, ix);
    w->cur = is;
    lw_close_loop(w, tl, ts);
    tid = mthreads(m, &tl, &ts);
    lw_open_if(w, mnat_lt(m, tid, mc(m, m->K)), &is);
    Buffer *st;
    X *sx = mdecl(m, "msst", SK_U32, lw_xload(w, m->tstart, tid), &st);
    Nat *u = mseq(m, m->K / 32, &ul, &us);
    lw_open_if(w, mnat_lt(m, u, warp), &ls);
    lw_store(w, st, mc(m, 0), mbin(m, OP_ADD, SK_U32, sx, lw_xload(w, m->wsum, u)));
    w->cur = ls;
    lw_close_loop(w, ul, us);
    Nat *v = mseq(m, m->W, &vl, &vs);
    Nat *hv = nat_add(a, nat_mul(a, v, mc(m, m->K)), tid);
    lw_store(w, m->hist, hv, mbin(m, OP_ADD, SK_U32, lw_xload(w, m->hist, hv), sx));
    lw_close_loop(w, vl, vs);
    lw_store(w, m->tstart, tid, sx);
    w->cur = is;
    lw_close_loop(w, tl, ts);
}

/* 4, after ms_tile_scan: bucket b's start in the tile (tstart[b]) added to its W warp
 * offsets in hist, so that ms_rank's place is the offset plus the rank alone */
static void ms_add_starts(Ms *m)
{
    Lw *w = m->w;
    Arena *a = m->a;
    Stmt *vl, *vs;
    Mloops l;
    Nat *b = mbuckets(m, &l);
    X *st = lw_materialise(w, lw_xload(w, m->tstart, b), "msst");
    Nat *v = mseq(m, m->W, &vl, &vs);
    Nat *hv = nat_add(a, nat_mul(a, v, mc(m, m->K)), b);
    lw_store(w, m->hist, hv, mbin(m, OP_ADD, SK_U32, lw_xload(w, m->hist, hv), st));
    lw_close_loop(w, vl, vs);
    mclose(m, &l);
}

/* 7. The tile out, coalesced: thread t writes the tile's places t, t + nt, ... (those
 * below n - tile*TILE: the tile's elements), place q of bucket b to base[b] + q (base
 * less the bucket's start in the tile: ms_walk), so the threads of a warp write
 * consecutive words of a bucket's part. A place past the output's end, which only wrong
 * offsets give, is not written. The place is compared with the output's length in the
 * launch's index width (X_IDX): in a 32-bit build, m < 2^31, so one 32-bit add and
 * compare where u64 offsets took two of each and a 64-bit address (4 instructions a key
 * fewer in the radix sort's pass); a place past 2^32, which only wrong offsets give too,
 * wraps there, and the compare still keeps the store inside the output.
 * Pairs: out the keys' output, out2 the values'; either may be NULL. With the keys alone
 * (out2 NULL: the values are not in sval2 yet) the bucket function, which then reads the
 * key alone (by_key), is given 0 for the value. */
static void ms_scatter(Ms *m, Buffer *out, Buffer *out2)
{
    Lw *w = m->w;
    Arena *a = m->a;
    Stmt *tl, *ts, *sl, *ss, *is, *js;
    Nat *tid = mthreads(m, &tl, &ts);
    Nat *j = mseq(m, m->IPT, &sl, &ss);
    /* Unrolled fully where the buckets are computed again (no info): the f32 sort of 2^28
     * keys at 512 x 24, three blocks an SM, took 4.67 ms against 4.79-4.81 with nvcc's own
     * unrolling. Where they are kept it was slower: f32 keys at 384 x 19 (2^24 + 3) 373-374
     * us against 355-356, f32 keys with u32 values at 384 x 26 (2^28) 6922-6932 against
     * 6627-6638 (H200, bench/results/2026-11-28-nvidia-h200-sort-alu). */
    sl->loop.unroll = sl->loop.unroll_full = !m->info;
    Nat *q = nat_add(a, nat_mul(a, j, mc(m, m->NT)), tid);
    lw_open_if(w, mnat_lt(m, nat_add(a, nat_mul(a, m->tile, mc(m, m->TILE)), q), m->n), &is);
    X *v = lw_materialise(w, lw_xload(w, m->sval, q), "msv"), *v2 = NULL;
    if (out2) v2 = lw_materialise(w, lw_xload(w, m->sval2, q), "msv");
    X *b = lw_materialise(w, mbucket(m, v, m->pairs && !v2 ? mlit(m, m->sk2, 0) : v2), "msbk");
    Nat *bi = lw_data_index(w, b, mc(m, m->K));
    X *dst[2];
    for (int i = 0; i < 2; i++) /* the guard's and the index's (nvcc computes it once) */
        dst[i] = lw_xun(m->w, X_IDX, SK_U64, mbin(m, OP_ADD, m->osk, lw_xload(w, m->base, bi), lw_xun(m->w, X_CAST, m->osk, lw_xnat(w, q))));
    lw_open_if(w, mbin(m, OP_LT, SK_BOOL, dst[0], lw_xun(m->w, X_IDX, SK_U64, lw_xnat(w, m->places))), &js);
    Nat *di = lw_let(w, "msdst", dst[1], 0, m->places);
    if (out) lw_store(w, out, di, v);
    if (out2) lw_store(w, out2, di, v2);
    w->cur = is; /* out of both ifs */
    lw_close_loop(w, sl, ss);
    lw_close_loop(w, tl, ts);
}

/* 8. The tile words stay of this launch or the one before (ms_word's parity tells them
 * apart): a launch that writes R rows of words (T tiles, R = T - 1: mnotlast) after one
 * that wrote H > R clears words R*k .. H*k - 1, which it does not write and a later,
 * longer launch would read, spread over its blocks (a tile's threads a stride of T*nt
 * words apart), and records R for the next launch in its parity's slot of ctr (ctr[1 +
 * p]; the launch before wrote ctr[2 - p]). Clearing
 * costs at most the words a longer launch wrote, once. The index is a register (u32
 * where it stays below 2^32), so that the bound of the index arithmetic is that of the
 * words (a loop count times the stride would bound it by far more, taking every launch
 * to 64-bit indices). */
static void ms_sweep(Ms *m, Buffer *ctr, Buffer *state)
{
    Lw *w = m->w;
    Arena *a = m->a;
    Stmt *tl, *ts, *zl, *is;
    Nat *par = lw_let(m->w, "mspar", mreg(m, m->par), 0, mc(m, 2));
    /* n < MS_NMAX (ms_limit), so no launch has more tiles than hmax */
    Nat *hmax = mc(m, (MS_NMAX + m->TILE - 1) / m->TILE + 1);
    Nat *h = lw_let(m->w, "msh", lw_xun(m->w, X_CAST, SK_U32, lw_xload(w, ctr, nat_sub(a, mc(m, 2), par))), 0, hmax);
    Nat *tid = mthreads(m, &tl, &ts);
    lw_open_if(w, lw_xbin(w, OP_AND, SK_BOOL, mnat_lt(m, m->tile, mc(m, 1)), mnat_lt(m, tid, mc(m, 1))), &is);
    lw_store(w, ctr, nat_add(a, mc(m, 1), par), lw_xun(m->w, X_CAST, SK_U64, lw_xnat(w, mrows(m))));
    w->cur = is;
    /* the register's largest value: under h*k plus a stride */
    int64_t hm;
    nat_is_const(hmax, &hm);
    ScalarKind isk = hm * (m->K + m->NT) < ((int64_t)1 << 32) ? SK_U32 : SK_U64;
    Buffer *ib;
    Nat *start = nat_add(a, nat_mul(a, mrows(m), mc(m, m->K)), nat_add(a, nat_mul(a, m->tile, mc(m, m->NT)), tid));
    X *ix = mdecl(m, "mszi", isk, lw_xun(m->w, X_CAST, isk, lw_xnat(w, start)), &ib);
    lw_open_while(w, NULL, &zl);
    lw_open_if(w, lw_xbin(w, OP_GE, SK_BOOL, ix, lw_xun(m->w, X_CAST, isk, lw_xnat(w, nat_mul(a, h, mc(m, m->K))))), &is);
    mjump(m, JK_BREAK);
    w->cur = is;
    Nat *i = lw_let(m->w, "msz", ix, 0, nat_mul(a, hmax, mc(m, m->K)));
    lw_store(w, state, i, mlit(m, SK_U32, 0));
    lw_store(w, ib, mc(m, 0), mbin(m, OP_ADD, isk, ix, lw_xun(m->w, X_CAST, isk, lw_xnat(w, nat_mul(a, m->tiles, mc(m, m->NT))))));
    w->cur = zl;
    lw_close_loop(w, tl, ts);
}

/* An access visitor's test: the buffer read is ctx (the bucket function's value, by_key) */
static bool reads_buf(void *ctx, Buffer *b, bool write) { return !write && b == ctx; }
static const IrVisitor reads_buf_visit = {.access = reads_buf};

/* multisplit written to acc c: the kernel's output from element 0, the last launch
 * (earlier ones may compute offs), nothing else computed in it; xs and offs arrays in
 * global memory as they are (data parameters or earlier launches' results). A block per
 * tile, drawn in launch order (lw_draw_tile, as a mapBlock with a lookback), nt
 * threads: ms_prefetch, ms_clear, ms_count, ms_counts, the tile scan (ms_tile_scan_par,
 * or ms_tile_scan and ms_add_starts), ms_rank, ms_read_values (pairs), ms_walk,
 * ms_scatter, ms_sweep, the barrier pass putting the __syncthreads between them (none
 * between ms_rank, ms_read_values and ms_walk, which share no shared memory: a bucket's
 * thread walks as soon as it has ranked). Pairs whose bucket is the key's (by_key): the
 * keys' ms_scatter, ms_values, then the values' ms_scatter, so that the values' reads
 * are in flight while the keys are stored; else ms_values, then one ms_scatter of both.
 * Until the commit after 8533c60 a tile ranked first and published its counts after;
 * counting, publishing, then ranking, as CUB's Onesweep does, made the radix
 * sort 7-14 % faster from 2^22 keys for u32, f32 and u64 keys and 6-11 % from 2^24 for
 * f32 keys with u32 values on an H200, slower at 8193 keys for the pairs and u64 keys
 * and at 2^16 and 2^20 for some (bench/results/2026-11-27-nvidia-h200-sort-count-first). */
static void write_multisplit(Lw *w, Expr *e, Acc *c)
{
    Arena *a = w->a;
    Kernel *k = w->k;
    Expr **arg = e->prim.args;
    int64_t base;
    /* pairs: the output is two arrays (W_PAIRW of two W_MEM), the input zip(keys)(values)
     * of two arrays as they are (V_ZIP of two V_MEM) */
    Type *et = arg[2]->ty->arr.elem;
    bool pairs = et->kind == T_PAIR;
    /* multisplitToNext: the result is (next, elements), the elements' acceptor c, the
     * next offsets' output c->cnt */
    bool next = e->prim.p == P_MULTISPLIT_NEXT;
    Type *elt = next ? e->ty->pair.b : e->ty;
    Acc *c1 = pairs && c->kind == W_PAIRW ? c->in : c, *c2 = pairs && c->kind == W_PAIRW ? c->in2 : NULL;
    if (w->nloops || c1->kind != W_MEM || c1->buf->param != -1 || !nat_is_const(c1->base, &base) || base ||
        (pairs && (!c2 || c2->kind != W_MEM || c2->buf->param != -1 || !nat_is_const(c2->base, &base) || base)) ||
        k->main || k->body->seq.n || k->nouts != (pairs ? 2 : 1) + next)
        diag_error(w->d, e->sp, "multisplit is a kernel of its own: it must be the kernel's whole result (one "
                   "output, or for pairs two through unzip; its last launch, nothing else computed)");
    Buffer *bufs[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 2; i++) {
        LwVal *v = lw_lower_exp(w, arg[i + 1]);
        View *g = v->k == VAL_ARRAY ? v->v : NULL;
        View *g2 = NULL;
        if (i && pairs && g && g->kind == V_ZIP) {
            g2 = g->in2;
            g = g->in;
        }
        bool bad = !g || g->kind != V_MEM || g->buf->as != AS_GLOBAL || g->buf->scalar || !nat_is_const(g->base, &base) ||
                   base || k->body->seq.n;
        if (i && pairs)
            bad = bad || !g2 || g2->kind != V_MEM || g2->buf->as != AS_GLOBAL || g2->buf->scalar ||
                  !nat_is_const(g2->base, &base) || base;
        if (bad)
            diag_error(w->d, arg[i + 1]->sp, "multisplit: %s must be an array in global memory as it is (a data "
                       "parameter, or an earlier launch's result through toGlobal), not a view or a computed value",
                       i ? (pairs ? "the input (zip of the keys and the values)" : "the input") : "the offsets");
        bufs[i] = g->buf;
        if (g2) bufs[2] = g2->buf;
    }
    Ms m = {.w = w, .a = a, .f = arg[0], .sk = lw_sk_of(pairs ? et->pair.a : et), .n = arg[2]->ty->arr.n,
            .places = elt->kind == T_PAIR ? elt->pair.a->arr.n : elt->arr.n, .osk = lw_sk_of(arg[1]->ty->arr.elem), .pairs = pairs,
            .sk2 = pairs ? lw_sk_of(et->pair.b) : SK_U32, .next = next ? c->cnt : NULL};
    nat_is_const(e->prim.nats[0], &m.K);
    nat_is_const(e->prim.nats[1], &m.NT);
    nat_is_const(e->prim.nats[2], &m.IPT);
    m.W = m.NT / 32;
    m.TILE = m.NT * m.IPT;
    while ((int64_t)1 << m.bits < m.K) m.bits++;
    /* the shared buffers (below), each rounded up to 16 bytes by smem.c */
    int64_t bytes = (m.W + 1) * m.K * 4 + m.K * scalar_info[m.osk].size + m.TILE * scalar_info[m.sk].size + 8 * 16 +
                    (ms_par_scan(&m) ? m.K / 8 + 16 : 0) +
                    (pairs ? m.TILE * scalar_info[m.sk2].size + 16 : 0);
    if (bytes > smem_budget(k, SMEM_OPTIN_MAX))
        diag_error(w->d, e->sp, "multisplit(%lld, %lld, %lld): its counts (%lld a bucket: one per warp and two) and its "
                   "tile of %lld elements take %lld bytes of shared memory, more than the %lld "
                   "a block can have (227 KiB, the opt-in maximum on sm_90); give it fewer buckets, threads or items",
                   (long long)m.K, (long long)m.NT, (long long)m.IPT, (long long)(m.W + 2), (long long)m.TILE,
                   (long long)bytes, (long long)smem_budget(k, SMEM_OPTIN_MAX));
    /* Tiles of 18 or more items a thread, nt <= 512 and two blocks' shared memory within
     * an SM's (228 KiB, 1 KiB of it reserved a block): __launch_bounds__(nt, 2), so that
     * ptxas keeps to two blocks' registers (80 a thread at nt = 384, 64 at 512). Left to
     * itself it gave the pass of f32 keys with u32 values at 384 x 20 94 registers, one
     * block an SM, and 27-40 % slower passes on an H100; with the bound every pass of
     * libpatrt's larger tiles was as fast or faster (1 % slower for u64 keys at 2^24). At
     * 16 items it made spills and the small sorts slower, so it is not asked for there
     * (bench/results/2026-11-26-nvidia-h100-sort-stop45-bounds). */
    if (m.NT <= 512 && m.IPT >= 18 && 2 * (bytes + 1024) <= 233472) k->own_min_blocks = 2;
    /* the bucket function is inlined where it is used (mbucket): here it is lowered once,
     * to a list of its own, only to see that it is a function of scalars */
    Buffer *pa = lw_new_buffer(w, "pa", AS_PRIVATE, m.sk, nat_cst(a, 1)), *pb = NULL;
    pa->scalar = true;
    Stmt *saved = w->cur, *ops = w->cur = stmt_seq(a);
    LwVal *pv = lw_scalar(w, lw_xload(w, pa, nat_cst(a, 0)));
    if (pairs) {
        pb = lw_new_buffer(w, "pb", AS_PRIVATE, m.sk2, nat_cst(a, 1));
        pb->scalar = true;
        pv = lw_pairv(w, pv, lw_scalar(w, lw_xload(w, pb, nat_cst(a, 0))));
    }
    lw_bind(w, m.f->lam.param, pv);
    LwVal *r = lw_lower_exp(w, m.f->lam.body);
    w->cur = saved;
    for (int i = 0; i < ops->seq.n; i++)
        if (ops->seq.items[i]->kind != S_DECL)
            diag_error(w->d, arg[0]->sp, "multisplit: the bucket function must be a function of scalars without loops "
                       "or memory");
    if (r->k != VAL_SCALAR) die("multisplit: the type rule let a bucket function through that is not a scalar");
    if (pairs) m.by_key = !ir_walk(ops, &reads_buf_visit, pb) && !ir_walk_x(r->x, &reads_buf_visit, pb);
    m.tiles = nat_div(a, nat_add(a, m.n, nat_cst(a, m.TILE - 1)), nat_cst(a, m.TILE));
    ms_limit(&m, e->sp);
    Buffer *state = lw_scratch_buffer(w, "msstate", SK_U32, nat_mul(a, nat_max(a, mrows(&m), nat_cst(a, 1)), nat_cst(a, m.K)));
    Buffer *ctr = k->draw = lw_scratch_buffer(w, "msctr", SK_U64, nat_cst(a, 3));
    NatVar *bv;
    Stmt *bsaved, *blk = lw_open_loop(w, LVL_BLOCK, 0, m.tiles, &bv, &bsaved);
    m.tile = nat_var(a, bv);
    Buffer *epoch;
    lw_draw_tile(w, blk, ctr, e->sp, &epoch);
    lw_emit(w, lw_scalar_decl(w, "mspar", SK_U32, mbin(&m, OP_BAND, SK_U32, mreg(&m, epoch), mlit(&m, SK_U32, 1)), &m.par));
    m.hist = lw_shared_buffer(w, "mshist", SK_U32, nat_cst(a, m.W * m.K), e->sp);
    m.base = lw_shared_buffer(w, "msbase", m.osk, nat_cst(a, m.K), e->sp);
    m.val = mprivate(&m, "msval", m.sk);
    if (ms_keep_buckets(&m, kernel_min_blocks(k))) m.info = mprivate(&m, "msinfo", SK_U32);
    m.tstart = lw_shared_buffer(w, "mststart", SK_U32, nat_cst(a, m.K), e->sp);
    if (ms_par_scan(&m)) m.wsum = lw_shared_buffer(w, "mswsum", SK_U32, nat_cst(a, m.K / 32), e->sp);
    m.sval = lw_shared_buffer(w, "mssval", m.sk, nat_cst(a, m.TILE), e->sp);
    if (pairs) {
        m.in2 = bufs[2];
        m.sval2 = lw_shared_buffer(w, "mssval2", m.sk2, nat_cst(a, m.TILE), e->sp);
    }
    ms_prefetch(&m, bufs[1]);
    ms_clear(&m);
    ms_count(&m, bufs[1], bufs[2]);
    ms_counts(&m, state);
    if (m.wsum) {
        ms_tile_scan_par(&m);
    } else {
        ms_tile_scan(&m);
        ms_add_starts(&m);
    }
    ms_rank(&m);
    if (pairs) {
        m.val2 = mprivate(&m, "msval", m.sk2);
        ms_read_values(&m);
    }
    ms_walk(&m, bufs[0], state);
    if (pairs && m.by_key) {
        ms_scatter(&m, c1->buf, NULL);
        ms_values(&m);
        ms_scatter(&m, NULL, c2->buf);
    } else {
        if (pairs) ms_values(&m);
        ms_scatter(&m, c1->buf, pairs ? c2->buf : NULL);
    }
    ms_sweep(&m, ctr, state);
    lw_close_loop(w, blk, bsaved);
}

const PrimOps prims_split[P_COUNT] = {
    [P_MULTISPLIT] = {.infer = infer_multisplit, .lower = lower_multisplit_read, .eval = eval_multisplit,
                      .write = write_multisplit},
    [P_MULTISPLIT_TO] = {.infer = infer_multisplit, .lower = lower_multisplit_read, .eval = eval_multisplit,
                         .write = write_multisplit},
    [P_MULTISPLIT_NEXT] = {.infer = infer_multisplit, .lower = lower_multisplit_read, .eval = eval_multisplit,
                           .write = write_multisplit, .count_result = CR_NEXT},
};
