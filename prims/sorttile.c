/* sorttile.c: sortTiles (PF_SORT), the one-launch block sort of issue 35 item 2 ("a
 * one-launch block sort for small n"): the input cut into tiles of nt*ipt elements,
 * each tile sorted stably by the order bits of its elements by one block, in one
 * launch: a small tile in the lanes' registers (LSD passes of 5 bits, st_in_lanes),
 * a larger one in shared memory (LSD passes of 8 bits: four over a u32 order, eight
 * over a u64 one). For n <= nt*ipt it is the whole sort in one launch of one block,
 * where the device-wide radix sort (patterns/radixsort.rise: a histogram with its scan,
 * and four multisplit launches) pays five launches. */
#include "prims.h"

#include <stdlib.h>

/* 8-bit digits (a pass each: 4 over u32 order bits, 8 over u64 ones); a warp's row of
 * counts is HS words long (256 and one: st_scan_counts) */
enum { ST_RADIX = 256, ST_HS = ST_RADIX + 1 };

/* ---------------------------------------------------------------- the type rule */

/* sortTiles(nt, ipt)(ord)(xs) : (t -> o) -> n.t -> n.t, t a 4- or 8-byte scalar (u32,
 * i32, f32, u64, i64, f64) or a pair of them (a key and its value, zip(keys)(values),
 * each of either size; the result then two outputs through unzip), o u32 or u64: xs |>
 * split(nt*ipt) |> map(stable sort by ord) |> join, the last tile partial, ord's value
 * compared unsigned. nt (threads a block, a multiple of 32 up to 1024) and ipt (items a
 * thread, 1 to 32) are constants. A kernel of its own (a block per tile): outside every
 * map and function. */
static bool st_elem_ok(Type *ty)
{
    ScalarKind sk = ty->kind == T_SCALAR ? tc_num_kind(ty) : SK_COUNT;
    return sk == SK_F32 || sk == SK_I32 || sk == SK_U32 || sk == SK_F64 || sk == SK_I64 || sk == SK_U64;
}

static Expr *infer_sorttiles(Tc *t, const TcApp *ap)
{
    Arena *a = t->a;
    Ast **arg = ap->arg;
    if (t->ctx.n || t->fdepth)
        diag_error(t->d, ap->sp, "sortTiles is a kernel of its own (a block per tile): it must be the kernel's whole "
                   "result, outside every map and function");
    static const char *const what[2] = {"number of threads a block", "number of items a thread"};
    const int64_t lo[2] = {32, 1}, hi[2] = {1024, 32};
    Nat *ns[2];
    for (int i = 0; i < 2; i++) {
        ns[i] = tc_nat_of(t, ap->nat[i], ap->sc);
        int64_t v;
        if (!nat_is_const(ns[i], &v) || v < lo[i] || v > hi[i] || (i == 0 && v % 32)) {
            hint_const(t->d, t->a, ns[i], lo[i], hi[i]);
            diag_error(t->d, ap->nat[i]->sp, "sortTiles: the %s must be a constant in %lld..%lld%s", what[i],
                       (long long)lo[i], (long long)hi[i], i == 0 ? ", a multiple of 32 (whole warps)" : "");
        }
    }
    Type *u32 = ty_scalar(a, SK_U32);
    Expr *x = tc_infer(t, arg[1], ap->sc, NULL);
    Type *tx = tc_want_array(t, x, "sortTiles");
    Type *ty = tx->arr.elem;
    if (!st_elem_ok(ty) && !(ty->kind == T_PAIR && st_elem_ok(ty->pair.a) && st_elem_ok(ty->pair.b)))
        diag_error(t->d, x->sp, "sortTiles of %s: the elements must be 4- or 8-byte numbers (u32, i32, f32, u64, "
                   "i64 or f64) or pairs of them (a key and its value, zip(keys)(values))", tc_tstr(t, tx));
    Type *ps[1] = {ty};
    Expr *f = tc_check_fun(t, arg[0], ps, 1, ap->sc, u32, ap->sp);
    Type *rt = tc_fun_result(f, 1);
    if (!ty_equal(rt, u32) && !ty_equal(rt, ty_scalar(a, SK_U64)))
        diag_error(t->d, arg[0]->sp, "sortTiles: the order function returns %s, not u32 or u64 (the key's order "
                   "bits, compared unsigned: rsOrdU32, rsOrdI32, rsOrdF32, rsOrdU64, rsOrdI64, rsOrdF64 of "
                   "patterns/radixsort.rise)", tc_tstr(t, rt));
    Expr *e = tc_prim_expr(t, ap->p, tx, ap->sp);
    for (int i = 0; i < 2; i++) e->prim.nats[i] = ns[i];
    e->prim.args[0] = f;
    e->prim.args[1] = x;
    return e;
}

/* ---------------------------------------------------------------- the interpreter */

/* an element's order value (u32 or u64) and its index in its tile */
typedef struct StKey {
    uint64_t o;
    int64_t i;
} StKey;

static int st_cmp_key(const void *pa, const void *pb)
{
    const StKey *a = pa, *b = pb;
    if (a->o != b->o) return a->o < b->o ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Each tile of T = nt*ipt elements on its own: its elements' (order value, index in the
 * tile) pairs sorted by the value (u32 or u64, unsigned), then the index, which is the
 * stable sort by the order value; then the elements put in that order. */
static void eval_sorttiles(IpCtx *c, const Code *e, IpVal *res)
{
    int64_t T = e->k[0] * e->k[1];
    const Code *f = e->args[0];
    IpVal xs;
    ip_eval(c, e->args[1], &xs);
    int64_t n = xs.ty->n;
    Node *out = ip_store_new(c, e->ty, NULL);
    StKey *key = ip_pool_alloc(c, sizeof *key * (size_t)(n < T ? n : T), false);
    for (int64_t t0 = 0; t0 < n; t0 += T) {
        int64_t m = n - t0 < T ? n - t0 : T;
        for (int64_t i = 0; i < m; i++) {
            Mark mk = ip_pool_mark(c);
            IpVal x, r;
            ip_val_sel(c, &xs, t0 + i, xs.ty->elem, &x);
            ip_val_set(&c->env[f->slot], &x);
            ip_eval(c, f->args[0], &r);
            key[i].o = r.ty->sk == SK_U32 ? (uint64_t)(uint32_t)r.s.u : r.s.u;
            key[i].i = i;
            ip_pool_release(c, mk);
        }
        qsort(key, (size_t)m, sizeof *key, st_cmp_key);
        for (int64_t i = 0; i < m; i++) {
            Mark mk = ip_pool_mark(c);
            IpVal x;
            ip_val_sel(c, &xs, t0 + key[i].i, xs.ty->elem, &x);
            ip_store_put(c, out, t0 + i, &x);
            ip_pool_release(c, mk);
        }
    }
    ip_val_node(res, e->ty, out);
}

/* ---------------------------------------------------------------- the kernel as kernel IR */

/* Read rather than written to the kernel's output: an error */
static LwVal *lower_sorttiles_read(Lw *w, Expr *e)
{
    diag_error(w->d, e->sp, "sortTiles is a kernel of its own: its result must be written to the kernel's output as "
               "it is (the kernel's whole result), not read");
}

/* What the parts of the kernel share: the shape (W warps of IPT items a lane, tiles of
 * TILE = 32*W*IPT = NT*IPT elements), n, the tile of this block, and the shared
 * buffers: key[2] and val[2] (the tile, and the tile after a pass: the passes go from
 * one to the other and back, so after the last (the fourth or the eighth) it is in
 * key[0] again; val only for pairs; each at its scalar's size, 4 or 8 bytes), info
 * (per element, in the order of the pass's input: its digit << 16 | its rank in its
 * warp's part of the digit; 0xffff0000 past n), hist (a row of counts per warp, a
 * count per digit, then their scan: st_scan_counts) and wsum (per warp of
 * st_scan_counts, the total of its entries, then their exclusive scan). */
typedef struct St {
    Lw *w;
    Arena *a;
    int64_t W, IPT, TILE, NT;
    Nat *n, *tile;
    Buffer *key[2], *val[2], *info, *hist, *wsum;
    Expr *f;       /* the order function */
    ScalarKind sk; /* the elements' (the keys' where they are pairs) */
    bool pairs;
    ScalarKind sk2; /* the values' */
    ScalarKind osk; /* the order function's result: u32 (4 passes) or u64 (8) */
    int passes;
    /* st_in_lanes: the thread's elements in registers (IPT each: the keys, the values,
     * each round's mask of lanes holding an element, and a pass's digit (in the low
     * bits of the order shifted down: a shuffle's source lane), rank in the round's
     * digit and the warp's count of the digit before the round); hist then has a row of
     * W+1 words per digit (st_lanes_rank), key[0] and val[0] the tile after a pass (0
     * past n from the load on) */
    Buffer *rkey, *rval, *rvm, *rdg, *rrk, *rrun;
} St;

static Nat *sc(St *s, int64_t v) { return nat_cst(s->a, v); }
static X *slit(St *s, uint64_t v) { return lw_xlit(s->w, SK_U32, v); }
static X *sbin(St *s, BinOp op, ScalarKind sk, X *l, X *r) { return lw_xbin(s->w, op, sk, l, r); }
static X *ssel(St *s, X *c, X *p, X *q) { return lw_xsel(s->w, c, p, q); }
static X *sballot(St *s, X *v) { return lw_xballot(s->w, v); }
static X *spopc(St *s, X *v) { return lw_xpopc(s->w, v); }
static X *sdecl(St *s, const char *prefix, ScalarKind sk, X *init, Buffer **b)
{
    lw_emit(s->w, lw_scalar_decl(s->w, prefix, sk, init, b));
    return lw_xload(s->w, *b, sc(s, 0));
}
static void ssyncwarp(St *s) { lw_barrier(s->w, LVL_WARP); }
/* a loop over the block's NT threads (one trip each: the launch's block is NT) */
static Nat *sthreads(St *s, Stmt **loop, Stmt **saved)
{
    NatVar *iv;
    *loop = lw_open_loop(s->w, LVL_THREADS, 0, sc(s, s->NT), &iv, saved);
    return nat_var(s->a, iv);
}
static Nat *sseq(St *s, int64_t trips, Stmt **loop, Stmt **saved)
{
    NatVar *iv;
    *loop = lw_open_loop(s->w, LVL_SEQ, 0, sc(s, trips), &iv, saved);
    return nat_var(s->a, iv);
}
/* element p of the tile (a place in it) is one of the input: tile*TILE + p < n */
static X *svalid(St *s, Nat *p)
{
    Nat *gi = nat_add(s->a, nat_mul(s->a, s->tile, sc(s, s->TILE)), p);
    return lw_xbin(s->w, OP_LT, SK_BOOL, lw_xnat(s->w, gi), lw_xnat(s->w, s->n));
}
/* A warp's round of 32 places from p0 on (p0 the same in all its lanes) is skipped
 * where it holds no element (p0 past n), by the whole warp: the round's ballots and
 * __syncwarp stay with all 32 lanes, and a small input (n = 31 in a tile of 4096) ranks
 * and moves one round of one warp, not 128. Returns the list to go back to after the
 * round. */
static Stmt *st_round_open(St *s, Nat *p0)
{
    Stmt *saved;
    lw_open_if(s->w, svalid(s, p0), &saved);
    return saved;
}
/* ord(x) (or ord((x, y)) for pairs): the user's function inlined */
static X *sorder(St *s, X *x, X *y)
{
    LwVal *v = lw_scalar(s->w, x);
    lw_bind(s->w, s->f->lam.param, y ? lw_pairv(s->w, v, lw_scalar(s->w, y)) : v);
    return lw_lower_exp(s->w, s->f->lam.body)->x;
}
/* digit d of the order (8 bits): a u64 order shifted in 64 bits, then its low word
 * taken, so that the digit's mask and all that follows are the u32 order's */
static X *sdigit(St *s, X *x, X *y, int d)
{
    X *o = sorder(s, x, y);
    if (s->osk == SK_U64) {
        if (d) o = sbin(s, OP_SHR, SK_U64, o, lw_xlit(s->w, SK_U64, (uint64_t)(8 * d)));
        o = lw_xun(s->w, X_CAST, SK_U32, o);
    } else if (d)
        o = sbin(s, OP_SHR, SK_U32, o, slit(s, (uint64_t)(8 * d)));
    return sbin(s, OP_BAND, SK_U32, o, slit(s, ST_RADIX - 1));
}

/* The tile in, coalesced: thread t loads the tile's places t, t + NT, ... below n into
 * key[0] (and val[0]). */
static void st_load(St *s, Buffer *in, Buffer *in2)
{
    Lw *w = s->w;
    Arena *a = s->a;
    Stmt *tl, *ts, *sl, *ss, *is;
    Nat *tid = sthreads(s, &tl, &ts);
    Nat *q = nat_add(a, nat_mul(a, sseq(s, s->IPT, &sl, &ss), sc(s, s->NT)), tid);
    Nat *gi = nat_add(a, nat_mul(a, s->tile, sc(s, s->TILE)), q);
    lw_open_if(w, svalid(s, q), &is);
    lw_store(w, s->key[0], q, lw_xload(w, in, gi));
    if (s->pairs) lw_store(w, s->val[0], q, lw_xload(w, in2, gi));
    w->cur = is;
    lw_close_loop(w, sl, ss);
    lw_close_loop(w, tl, ts);
}

/* A pass's counts start at 0. */
static void st_clear(St *s)
{
    Stmt *tl, *ts, *sl, *ss, *is;
    Nat *tid = sthreads(s, &tl, &ts);
    int64_t words = s->W * ST_HS;
    Nat *i = nat_add(s->a, nat_mul(s->a, sseq(s, (words + s->NT - 1) / s->NT, &sl, &ss), sc(s, s->NT)), tid);
    if (words % s->NT) lw_open_if(s->w, lw_xbin(s->w, OP_LT, SK_BOOL, lw_xnat(s->w, i), lw_xnat(s->w, sc(s, words))), &is);
    lw_store(s->w, s->hist, i, slit(s, 0));
    if (words % s->NT) s->w->cur = is;
    lw_close_loop(s->w, sl, ss);
    lw_close_loop(s->w, tl, ts);
}

/* Pass d, ranking: warp v takes the places v*32*IPT .. (v+1)*32*IPT - 1 of key[from],
 * 32 at a time in order (lane l the place r*32 + l of round r), so that places in order
 * are warps, then rounds, then lanes in order: a stable rank is the digit's count in the
 * warps before, plus the warp's count of it in the rounds before, plus the lanes below
 * with the same digit. The lanes of a digit find one another by eight ballots (one per
 * bit: SHFL_MATCH); the digit's highest lane adds the round's count to the warp's count (the warp's
 * own row of hist, between two __syncwarp). */
static void st_rank(St *s, int d, int from)
{
    Lw *w = s->w;
    Arena *a = s->a;
    Stmt *tl, *ts, *sl, *ss, *is;
    sthreads(s, &tl, &ts);
    Nat *warp = nat_var(a, w->k->hw.warp), *lane = nat_var(a, w->k->hw.lane);
    Nat *r = sseq(s, s->IPT, &sl, &ss);
    Nat *p0 = nat_add(a, nat_mul(a, warp, sc(s, 32 * s->IPT)), nat_mul(a, r, sc(s, 32)));
    Stmt *rs = st_round_open(s, p0);
    Nat *p = nat_add(a, p0, lane);
    X *valid = lw_materialise(w, svalid(s, p), "stok");
    Buffer *pm, *hb;
    /* the element read where the order function reads it (not at all if it ignores
     * it, as an order of the key ignores the value); past n, a place of the tile that
     * holds no element, whose digit the select drops */
    X *x = lw_xload(w, s->key[from], p), *y = s->pairs ? lw_xload(w, s->val[from], p) : NULL;
    X *b = lw_materialise(w, ssel(s, valid, sdigit(s, x, y, d), slit(s, 0)), "stb");
    X *peers = sdecl(s, "stpm", SK_U32, sbin(s, OP_BAND, SK_U32, sballot(s, valid), lw_xmatch(w, b, 8)), &pm);
    X *below = sbin(s, OP_SUB, SK_U32, sbin(s, OP_SHL, SK_U32, slit(s, 1), lw_xnat(w, lane)), slit(s, 1));
    X *rk = lw_materialise(w, spopc(s, sbin(s, OP_BAND, SK_U32, peers, below)), "strk");
    X *ct = lw_materialise(w, spopc(s, peers), "stct");
    Nat *hi = nat_add(a, nat_mul(a, warp, sc(s, ST_HS)), lw_data_index(w, b, sc(s, ST_RADIX)));
    X *h = sdecl(s, "sth", SK_U32, slit(s, 0), &hb);
    lw_open_if(w, valid, &is);
    lw_store(w, hb, sc(s, 0), lw_xload(w, s->hist, hi));
    w->cur = is;
    ssyncwarp(s);
    X *top = sbin(s, OP_AND, SK_BOOL, valid, sbin(s, OP_EQ, SK_BOOL, sbin(s, OP_ADD, SK_U32, rk, slit(s, 1)), ct));
    lw_open_if(w, top, &is);
    lw_store(w, s->hist, hi, sbin(s, OP_ADD, SK_U32, h, ct));
    w->cur = is;
    ssyncwarp(s);
    X *info = sbin(s, OP_BOR, SK_U32, sbin(s, OP_SHL, SK_U32, b, slit(s, 16)), sbin(s, OP_ADD, SK_U32, h, rk));
    lw_store(w, s->info, p, ssel(s, valid, info, slit(s, 0xffff0000u)));
    w->cur = rs;
    lw_close_loop(w, sl, ss);
    lw_close_loop(w, tl, ts);
}

/* Where each element goes is the exclusive scan of the W*256 counts in digit-major
 * order (digit b of warp v at b*W + v): the digits before b in every warp, then b in the
 * warps before v. Each thread takes 8 consecutive entries of that order (8*NT = 256*W):
 * their sum, the warp's scan of the sums (shuffles up), then its entries' exclusive
 * prefixes within the warp's part of the order, stored back in place; the warp's
 * total goes to wsum. The rows of hist are HS = 257 words apart, so the threads of a
 * warp, which read entries of a few digits in several warps' rows, hit distinct banks. */
static void st_scan_counts(St *s)
{
    Lw *w = s->w;
    Arena *a = s->a;
    Stmt *tl, *ts, *sl, *ss, *ls;
    Nat *tid = sthreads(s, &tl, &ts);
    Nat *lane = nat_var(a, w->k->hw.lane), *warp = nat_var(a, w->k->hw.warp);
    Buffer *sum, *at;
    X *sx = sdecl(s, "stsum", SK_U32, slit(s, 0), &sum);
    Nat *e = nat_add(a, nat_mul(a, tid, sc(s, 8)), sseq(s, 8, &sl, &ss));
    Nat *hi = nat_add(a, nat_mul(a, nat_mod(a, e, sc(s, s->W)), sc(s, ST_HS)), nat_div(a, e, sc(s, s->W)));
    lw_store(w, sum, sc(s, 0), sbin(s, OP_ADD, SK_U32, sx, lw_xload(w, s->hist, hi)));
    lw_close_loop(w, sl, ss);
    X *ix = lw_warp_scan_add(w, sx, 32, "stinc", "stup");
    X *ax = sdecl(s, "stat", SK_U32, sbin(s, OP_SUB, SK_U32, ix, sx), &at);
    e = nat_add(a, nat_mul(a, tid, sc(s, 8)), sseq(s, 8, &sl, &ss));
    hi = nat_add(a, nat_mul(a, nat_mod(a, e, sc(s, s->W)), sc(s, ST_HS)), nat_div(a, e, sc(s, s->W)));
    X *cb = lw_materialise(w, lw_xload(w, s->hist, hi), "stcb");
    lw_store(w, s->hist, hi, ax);
    lw_store(w, at, sc(s, 0), sbin(s, OP_ADD, SK_U32, ax, cb));
    lw_close_loop(w, sl, ss);
    lw_open_if(w, lw_xbin(w, OP_EQ, SK_BOOL, lw_xnat(w, lane), lw_xnat(w, sc(s, 31))), &ls);
    lw_store(w, s->wsum, warp, ix);
    w->cur = ls;
    lw_close_loop(w, tl, ts);
}

/* The warps' totals of st_scan_counts become their exclusive scan, by warp 0 (W <= 32:
 * a lane each). */
static void st_scan_warps(St *s)
{
    Lw *w = s->w;
    Arena *a = s->a;
    Stmt *tl, *ts, *ws, *ls;
    sthreads(s, &tl, &ts);
    Nat *warp = nat_var(a, w->k->hw.warp), *lane = nat_var(a, w->k->hw.lane);
    lw_open_if(w, lw_xbin(w, OP_EQ, SK_BOOL, lw_xnat(w, warp), lw_xnat(w, sc(s, 0))), &ws);
    X *mine = lw_xbin(w, OP_LT, SK_BOOL, lw_xnat(w, lane), lw_xnat(w, sc(s, s->W)));
    Buffer *v;
    X *vx = sdecl(s, "stw", SK_U32, slit(s, 0), &v);
    lw_open_if(w, mine, &ls);
    lw_store(w, v, sc(s, 0), lw_xload(w, s->wsum, lane));
    w->cur = ls;
    X *ix = lw_warp_scan_add(w, vx, (int)s->W, "stwinc", "stup");
    lw_open_if(w, mine, &ls);
    lw_store(w, s->wsum, lane, sbin(s, OP_SUB, SK_U32, ix, vx));
    w->cur = ls;
    w->cur = ws;
    lw_close_loop(w, tl, ts);
}

/* Pass d, moving: each element of key[from] (and val[from]) to key[1 - from] at the
 * scanned count of its digit b and warp v (in hist, plus the total of the warps before
 * the entry's owner, the thread (b*W + v) / 8: wsum[(b*W + v) / 256]), plus its rank
 * in the warp's part of the digit. The places past n keep no element (nothing reads
 * them). */
static void st_move(St *s, int from)
{
    Lw *w = s->w;
    Arena *a = s->a;
    Stmt *tl, *ts, *sl, *ss, *is;
    sthreads(s, &tl, &ts);
    Nat *warp = nat_var(a, w->k->hw.warp), *lane = nat_var(a, w->k->hw.lane);
    Nat *r = sseq(s, s->IPT, &sl, &ss);
    Nat *p0 = nat_add(a, nat_mul(a, warp, sc(s, 32 * s->IPT)), nat_mul(a, r, sc(s, 32)));
    Stmt *rs = st_round_open(s, p0);
    Nat *p = nat_add(a, p0, lane);
    X *info = lw_materialise(w, lw_xload(w, s->info, p), "sti");
    X *b = lw_materialise(w, sbin(s, OP_SHR, SK_U32, info, slit(s, 16)), "stbk");
    lw_open_if(w, sbin(s, OP_LT, SK_BOOL, b, slit(s, ST_RADIX)), &is);
    Nat *bi = lw_data_index(w, b, sc(s, ST_RADIX));
    Nat *owner = nat_div(a, nat_add(a, nat_mul(a, bi, sc(s, s->W)), warp), sc(s, 256));
    X *q = sbin(s, OP_ADD, SK_U32, lw_xload(w, s->wsum, owner),
                sbin(s, OP_ADD, SK_U32, lw_xload(w, s->hist, nat_add(a, nat_mul(a, warp, sc(s, ST_HS)), bi)),
                     sbin(s, OP_BAND, SK_U32, info, slit(s, 0xffff))));
    Nat *qi = lw_data_index(w, q, sc(s, s->TILE));
    lw_store(w, s->key[1 - from], qi, lw_xload(w, s->key[from], p));
    if (s->pairs) lw_store(w, s->val[1 - from], qi, lw_xload(w, s->val[from], p));
    w->cur = is;
    w->cur = rs;
    lw_close_loop(w, sl, ss);
    lw_close_loop(w, tl, ts);
}

/* The sorted tile out, coalesced: thread t stores the places t, t + NT, ... below n of
 * key[0] (and val[0]). */
static void st_store(St *s, Buffer *out, Buffer *out2)
{
    Lw *w = s->w;
    Arena *a = s->a;
    Stmt *tl, *ts, *sl, *ss, *is;
    Nat *tid = sthreads(s, &tl, &ts);
    Nat *q = nat_add(a, nat_mul(a, sseq(s, s->IPT, &sl, &ss), sc(s, s->NT)), tid);
    Nat *gi = nat_add(a, nat_mul(a, s->tile, sc(s, s->TILE)), q);
    lw_open_if(w, svalid(s, q), &is);
    lw_store(w, out, gi, lw_xload(w, s->key[0], q));
    if (s->pairs) lw_store(w, out2, gi, lw_xload(w, s->val[0], q));
    w->cur = is;
    lw_close_loop(w, sl, ss);
    lw_close_loop(w, tl, ts);
}

/* ---------------------------------------------------------------- ranking in the lanes */

/* A tile of at most SL_MAX_TILE elements, at most SL_MAX_IPT a thread, keeps its
 * elements in registers and sorts them by 5-bit digits (seven passes over a u32 order,
 * the last of 2 bits; thirteen over a u64 one), each digit's running count in the lane
 * of its number: a round's five ballots of the digit's bits give each lane the mask of
 * the lanes holding its digit, so that counting and ranking need no shared memory, and
 * a pass has two barriers (the counts' exchange, the tile's). On an H100, GPU time of
 * u32 keys (bench/results/2026-11-28-nvidia-h100-sort-small: these kernels, and
 * hand-written ones in the same scheme): 1000 keys 6.9 us at 256 x 4 against 11.5 for
 * the 8-bit passes in shared memory at 1024 x 4 (CUB's single-tile sort 11.3-11.4),
 * 2048 keys 9.3-9.6 at 256 x 8 by hand against 12.6-12.7 (11.8), 4096 keys 14.1-14.3 at
 * 384 x 11 against 14.8-15.1 (12.4-12.5); at 8192 the 8-bit passes were faster
 * (1024 x 8 22.6-23.2 us, 512 x 16 by hand 24.3-24.8), and 32 items a thread spilled
 * registers. The votes are SHFL_VOTEBIT (the printer's patc_vote_bit keeps each bit's
 * test one instruction): on an H200, a hand-written sort of 4096 keys at 384 x 11 took
 * 11.1-11.4 us with the test in PTX and 13.8-14.0 with it in C, in one run (p11; CUB
 * 12.3; bench/results/2026-11-28-nvidia-h200-sort-vote). */
enum { SL_BITS = 5, SL_MAX_TILE = 5120, SL_MAX_IPT = 16 };
static bool st_in_lanes(const St *s) { return s->TILE <= SL_MAX_TILE && s->IPT <= SL_MAX_IPT; }

/* a private array of IPT elements (one a round), declared at the block's level so that
 * every part of the kernel reads it */
static Buffer *sregs(St *s, const char *prefix, ScalarKind sk)
{
    return lw_private_array(s->w, prefix, sk, s->IPT);
}
/* round r's element in such an array (index 0 of a scalar where IPT is 1) */
static Nat *sreg_at(St *s, Nat *r) { return s->IPT == 1 ? sc(s, 0) : r; }
/* Where lane `lane` of warp `warp` keeps round r's element: place warp*32*IPT + r*32 +
 * lane of the tile (places in order are warps, rounds, lanes: the order the ranks
 * follow, so that equal digits keep their order) */
static Nat *slplace(St *s, Nat *warp, Nat *lane, Nat *r)
{
    Arena *a = s->a;
    return nat_add(a, nat_add(a, nat_mul(a, warp, sc(s, 32 * s->IPT)), nat_mul(a, r, sc(s, 32))), lane);
}
/* The loops over a thread's rounds (its threads' loop, then IPT rounds): *ri is round
 * r's index in the registers; the result its place in the tile (slplace). slclose closes
 * both. */
typedef struct {
    Stmt *tl, *ts, *sl, *ss;
} SlLoops;
static Nat *slrounds(St *s, SlLoops *l, Nat **ri)
{
    sthreads(s, &l->tl, &l->ts);
    Nat *warp = nat_var(s->a, s->w->k->hw.warp), *lane = nat_var(s->a, s->w->k->hw.lane);
    Nat *r = sseq(s, s->IPT, &l->sl, &l->ss);
    *ri = sreg_at(s, r);
    return slplace(s, warp, lane, r);
}
static void slclose(St *s, SlLoops *l)
{
    lw_close_loop(s->w, l->sl, l->ss);
    lw_close_loop(s->w, l->tl, l->ts);
}
/* the order value of an element (the user's function inlined), in a register */
static X *sord(St *s, X *x, X *y) { return lw_materialise(s->w, sorder(s, x, y), "slo"); }
static X *sshfl_idx(St *s, X *v, X *src) { return lw_xshfl(s->w, SHFL_IDX, SK_U32, v, src); }
/* the digit of pass d: its first bit and width */
static int sl_bit(int d) { return SL_BITS * d; }
static int sl_obits(const St *s) { return s->osk == SK_U64 ? 64 : 32; }
static int sl_width(const St *s, int d)
{
    return sl_obits(s) - sl_bit(d) < SL_BITS ? sl_obits(s) - sl_bit(d) : SL_BITS;
}

/* The tile into registers, coalesced (a round's 32 places are consecutive), with each
 * round's mask of the lanes whose place is below n; 0 where there is none. */
static void st_lanes_load(St *s, Buffer *in, Buffer *in2)
{
    Lw *w = s->w;
    Stmt *is;
    SlLoops l;
    Nat *ri, *p = slrounds(s, &l, &ri), *gi = nat_add(s->a, nat_mul(s->a, s->tile, sc(s, s->TILE)), p);
    X *valid = lw_materialise(w, svalid(s, p), "slok");
    lw_store(w, s->rvm, ri, sballot(s, valid));
    lw_store(w, s->rkey, ri, lw_xlit(w, s->sk, 0));
    if (s->pairs) lw_store(w, s->rval, ri, lw_xlit(w, s->sk2, 0));
    lw_open_if(w, valid, &is);
    lw_store(w, s->rkey, ri, lw_xload(w, in, gi));
    if (s->pairs) lw_store(w, s->rval, ri, lw_xload(w, in2, gi));
    w->cur = is;
    /* the tile's places past n hold 0 from here on (no pass places an element there), so
     * that each pass's reload reads every place without testing it against n */
    lw_open_if(w, lw_xnot(w, valid), &is);
    lw_store(w, s->key[0], p, lw_xlit(w, s->sk, 0));
    if (s->pairs) lw_store(w, s->val[0], p, lw_xlit(w, s->sk2, 0));
    w->cur = is;
    slclose(s, &l);
}

/* Pass d, counting and ranking in the lanes: for each round in order, the ballots of the
 * digit's bits (where the round's lanes hold an element) give lane l the mask of the
 * lanes whose digit is l (each ballot as it is where l has the bit, its complement where
 * not); lane l's running count `run` is the warp's count of digit l in the rounds before,
 * kept in rrun for the round, and an element's rank in its round is the count of the
 * lanes below it in its digit's mask (a shuffle from the lane of its digit). The warp's
 * counts go to hist, digit l's in row l at column warp (rows of W+1 words: where W is
 * even the lanes of a warp write distinct banks). */
static void st_lanes_rank(St *s, int d)
{
    Lw *w = s->w;
    Arena *a = s->a;
    int bit = sl_bit(d), bits = sl_width(s, d);
    ScalarKind osk = s->osk;
    Stmt *tl, *ts, *sl, *ss;
    sthreads(s, &tl, &ts);
    Nat *warp = nat_var(a, w->k->hw.warp), *lane = nat_var(a, w->k->hw.lane);
    X *lx = lw_xnat(w, lane);
    Buffer *rb, *mb;
    X *run = sdecl(s, "slrun", SK_U32, slit(s, 0), &rb);
    Nat *r = sseq(s, s->IPT, &sl, &ss), *ri = sreg_at(s, r);
    X *o = sord(s, lw_xload(w, s->rkey, ri), s->pairs ? lw_xload(w, s->rval, ri) : NULL);
    /* the digit in the low bits, the order's higher bits above it: the digit only picks a
     * shuffle's source lane, which takes its index modulo 32 (an AND a round fewer) */
    X *dg = sbin(s, OP_SHR, osk, o, lw_xlit(w, osk, (uint64_t)bit));
    if (osk != SK_U32) dg = lw_xun(w, X_CAST, SK_U32, dg); /* of a u64 order: its low word */
    dg = lw_materialise(w, dg, "sld");
    lw_store(w, s->rdg, ri, dg);
    X *m = sdecl(s, "slm", SK_U32, lw_xload(w, s->rvm, ri), &mb);
    for (int i = 0; i < bits; i++) {
        X *bl = lw_materialise(w, lw_xvotebit(w, o, bit + i), "slb");
        X *mine = sbin(s, OP_NE, SK_BOOL, sbin(s, OP_BAND, SK_U32, lx, slit(s, 1ull << i)), slit(s, 0));
        lw_store(w, mb, sc(s, 0), sbin(s, OP_BAND, SK_U32, m, ssel(s, mine, bl, lw_xbnot(w, bl))));
    }
    lw_store(w, s->rrun, ri, run);
    lw_store(w, rb, sc(s, 0), sbin(s, OP_ADD, SK_U32, run, spopc(s, m)));
    X *below = sbin(s, OP_SUB, SK_U32, sbin(s, OP_SHL, SK_U32, slit(s, 1), lx), slit(s, 1));
    lw_store(w, s->rrk, ri, spopc(s, sbin(s, OP_BAND, SK_U32, sshfl_idx(s, m, dg), below)));
    lw_close_loop(w, sl, ss);
    /* lanes past the digit's range (a narrower last digit) hold another lane's count */
    X *count = bits < SL_BITS ? ssel(s, sbin(s, OP_LT, SK_BOOL, lx, slit(s, 1ull << bits)), run, slit(s, 0)) : run;
    lw_store(w, s->hist, nat_add(a, nat_mul(a, lane, sc(s, s->W + 1)), warp), count);
    lw_close_loop(w, tl, ts);
}

/* A pass's placing: lane l of each warp reads digit l's counts of all the warps (its row
 * of hist), their sum and the sum over the warps before its own; a warp scan of the sums
 * gives the digits before l; so lane l's base is where its warp's elements of digit l
 * start. An element goes to key[0] at its digit lane's base plus the count before its
 * round (a shuffle from that lane) plus its rank in the round. */
static void st_lanes_place(St *s)
{
    Lw *w = s->w;
    Arena *a = s->a;
    Stmt *tl, *ts, *sl, *ss, *is;
    sthreads(s, &tl, &ts);
    Nat *warp = nat_var(a, w->k->hw.warp), *lane = nat_var(a, w->k->hw.lane);
    Buffer *tb, *pb;
    X *tot = sdecl(s, "sltot", SK_U32, slit(s, 0), &tb), *pre = sdecl(s, "slpre", SK_U32, slit(s, 0), &pb);
    Nat *v = sseq(s, s->W, &sl, &ss);
    X *c = lw_materialise(w, lw_xload(w, s->hist, nat_add(a, nat_mul(a, lane, sc(s, s->W + 1)), v)), "slc");
    lw_store(w, tb, sc(s, 0), sbin(s, OP_ADD, SK_U32, tot, c));
    X *before = lw_xbin(w, OP_LT, SK_BOOL, lw_xnat(w, v), lw_xnat(w, warp));
    lw_store(w, pb, sc(s, 0), sbin(s, OP_ADD, SK_U32, pre, ssel(s, before, c, slit(s, 0))));
    lw_close_loop(w, sl, ss);
    X *inc = lw_warp_scan_add(w, tot, 32, "slinc", "slup");
    X *base = lw_materialise(w, sbin(s, OP_ADD, SK_U32, sbin(s, OP_SUB, SK_U32, inc, tot), pre), "slbase");
    Nat *r = sseq(s, s->IPT, &sl, &ss), *ri = sreg_at(s, r);
    X *q = lw_materialise(w, sbin(s, OP_ADD, SK_U32, sshfl_idx(s, sbin(s, OP_ADD, SK_U32, base, lw_xload(w, s->rrun, ri)),
                                                             lw_xload(w, s->rdg, ri)),
                                  lw_xload(w, s->rrk, ri)), "slq");
    X *here = sbin(s, OP_NE, SK_BOOL,
                   sbin(s, OP_BAND, SK_U32, sbin(s, OP_SHR, SK_U32, lw_xload(w, s->rvm, ri), lw_xnat(w, lane)), slit(s, 1)),
                   slit(s, 0));
    lw_open_if(w, here, &is);
    Nat *qi = lw_data_index(w, q, sc(s, s->TILE));
    lw_store(w, s->key[0], qi, lw_xload(w, s->rkey, ri));
    if (s->pairs) lw_store(w, s->val[0], qi, lw_xload(w, s->rval, ri));
    w->cur = is;
    lw_close_loop(w, sl, ss);
    lw_close_loop(w, tl, ts);
}

/* The tile after a pass back into the registers, each lane its places again, all of
 * them: those past n hold the 0 st_lanes_load put there, so no test against n and no
 * branch (on an H100, 4097 to 4864 f32 keys at 384 x 13 took 12.3-13.0 us of GPU time
 * against 12.8-13.3 with a warp's test and each place's;
 * bench/results/2026-11-28-nvidia-h100-sort-vote/proto/p15.txt) */
static void st_lanes_reload(St *s)
{
    Lw *w = s->w;
    SlLoops l;
    Nat *ri, *p = slrounds(s, &l, &ri);
    lw_store(w, s->rkey, ri, lw_xload(w, s->key[0], p)); /* past n: the 0 st_lanes_load put there */
    if (s->pairs) lw_store(w, s->rval, ri, lw_xload(w, s->val[0], p));
    slclose(s, &l);
}

/* The sorted tile out of the registers, coalesced. */
static void st_lanes_store(St *s, Buffer *out, Buffer *out2)
{
    Lw *w = s->w;
    Stmt *is;
    SlLoops l;
    Nat *ri, *p = slrounds(s, &l, &ri), *gi = nat_add(s->a, nat_mul(s->a, s->tile, sc(s, s->TILE)), p);
    lw_open_if(w, svalid(s, p), &is);
    lw_store(w, out, gi, lw_xload(w, s->rkey, ri));
    if (s->pairs) lw_store(w, out2, gi, lw_xload(w, s->rval, ri));
    w->cur = is;
    slclose(s, &l);
}

/* The shared bytes of a tile: key and val twice (at their scalars' sizes), info, the W
 * rows of counts and the W warps' totals, each buffer rounded up to 16 bytes as smem.c
 * places them. */
static int64_t st_elem_bytes(const St *s)
{
    return scalar_info[s->sk].size + (s->pairs ? scalar_info[s->sk2].size : 0);
}
static int64_t st_smem_bytes(const St *s)
{
    int64_t key = (s->TILE * scalar_info[s->sk].size + 15) / 16 * 16;
    int64_t val = s->pairs ? (s->TILE * scalar_info[s->sk2].size + 15) / 16 * 16 : 0;
    if (st_in_lanes(s)) /* the tile once, the digits' rows of counts */
        return key + val + (32 * (s->W + 1) * 4 + 15) / 16 * 16;
    int64_t info = (s->TILE * 4 + 15) / 16 * 16;
    return 2 * key + 2 * val + info + (s->W * ST_HS * 4 + 15) / 16 * 16 + (s->W * 4 + 15) / 16 * 16;
}

/* sortTiles written to acc c: the kernel's output from element 0, its only launch's
 * whole result; xs (or the keys and values of zip(keys)(values)) arrays in global memory
 * as they are. A block per tile, NT threads: the tile loaded, the passes, the tile
 * stored; in the lanes (st_in_lanes) a pass ranks, places and reloads, in shared memory
 * it clears, ranks, scans the counts in two steps and moves (the barrier pass puts the
 * __syncthreads between them). */
static void write_sorttiles(Lw *w, Expr *e, Acc *c)
{
    Arena *a = w->a;
    Kernel *k = w->k;
    Expr **arg = e->prim.args;
    int64_t base;
    Type *et = arg[1]->ty->arr.elem;
    bool pairs = et->kind == T_PAIR;
    Acc *c1 = pairs && c->kind == W_PAIRW ? c->in : c, *c2 = pairs && c->kind == W_PAIRW ? c->in2 : NULL;
    if (w->nloops || c1->kind != W_MEM || c1->buf->param != -1 || !nat_is_const(c1->base, &base) || base ||
        (pairs && (!c2 || c2->kind != W_MEM || c2->buf->param != -1 || !nat_is_const(c2->base, &base) || base)) ||
        k->main || k->body->seq.n || k->nouts != (pairs ? 2 : 1))
        diag_error(w->d, e->sp, "sortTiles is a kernel of its own: it must be the kernel's whole result (one output, "
                   "or for pairs two through unzip; nothing else computed in its launch)");
    LwVal *v = lw_lower_exp(w, arg[1]);
    View *g = v->k == VAL_ARRAY ? v->v : NULL, *g2 = NULL;
    if (pairs && g && g->kind == V_ZIP) {
        g2 = g->in2;
        g = g->in;
    }
    bool bad = !g || g->kind != V_MEM || g->buf->as != AS_GLOBAL || g->buf->scalar || !nat_is_const(g->base, &base) ||
               base || k->body->seq.n;
    if (pairs)
        bad = bad || !g2 || g2->kind != V_MEM || g2->buf->as != AS_GLOBAL || g2->buf->scalar ||
              !nat_is_const(g2->base, &base) || base;
    if (bad)
        diag_error(w->d, arg[1]->sp, "sortTiles: %s must be %s in global memory as it is (a data parameter, or an "
                   "earlier launch's result through toGlobal), not a view or a computed value",
                   pairs ? "the input (zip of the keys and the values)" : "the input", pairs ? "two arrays" : "an array");
    St s = {.w = w, .a = a, .f = arg[0], .sk = lw_sk_of(pairs ? et->pair.a : et), .n = arg[1]->ty->arr.n,
            .pairs = pairs, .sk2 = pairs ? lw_sk_of(et->pair.b) : SK_U32,
            .osk = lw_sk_of(arg[0]->lam.body->ty)};
    s.passes = s.osk == SK_U64 ? 8 : 4;
    nat_is_const(e->prim.nats[0], &s.NT);
    nat_is_const(e->prim.nats[1], &s.IPT);
    s.W = s.NT / 32;
    s.TILE = s.NT * s.IPT;
    int64_t bytes = st_smem_bytes(&s);
    if (bytes > smem_budget(k, SMEM_OPTIN_MAX))
        diag_error(w->d, e->sp, "sortTiles(%lld, %lld): its tile of %lld %s of %lld bytes (twice, with a word of rank "
                   "each) and its %lld counts take %lld bytes of shared memory, more than the %lld a block can have "
                   "(227 KiB, the opt-in maximum on sm_90%s); give it fewer threads or items",
                   (long long)s.NT, (long long)s.IPT, (long long)s.TILE, pairs ? "pairs" : "elements",
                   (long long)st_elem_bytes(&s),
                   (long long)(s.W * ST_HS + s.W), (long long)bytes, (long long)smem_budget(k, SMEM_OPTIN_MAX),
                   smem_budget_note(k));
    /* the order function is inlined where it is used (sdigit): here it is lowered once,
     * to a list of its own, only to see that it is a function of scalars */
    Buffer *pa = lw_new_buffer(w, "pa", AS_PRIVATE, s.sk, nat_cst(a, 1));
    pa->scalar = true;
    Stmt *saved = w->cur, *ops = w->cur = stmt_seq(a);
    LwVal *pv = lw_scalar(w, lw_xload(w, pa, nat_cst(a, 0)));
    if (pairs) {
        Buffer *pb = lw_new_buffer(w, "pb", AS_PRIVATE, s.sk2, nat_cst(a, 1));
        pb->scalar = true;
        pv = lw_pairv(w, pv, lw_scalar(w, lw_xload(w, pb, nat_cst(a, 0))));
    }
    lw_bind(w, s.f->lam.param, pv);
    LwVal *r = lw_lower_exp(w, s.f->lam.body);
    w->cur = saved;
    for (int i = 0; i < ops->seq.n; i++)
        if (ops->seq.items[i]->kind != S_DECL)
            diag_error(w->d, arg[0]->sp, "sortTiles: the order function must be a function of scalars without loops "
                       "or memory");
    if (r->k != VAL_SCALAR) die("sortTiles: the type rule let an order function through that is not a scalar");
    Nat *tiles = nat_div(a, nat_add(a, s.n, nat_cst(a, s.TILE - 1)), nat_cst(a, s.TILE));
    NatVar *bv;
    Stmt *bsaved, *blk = lw_open_loop(w, LVL_BLOCK, 0, tiles, &bv, &bsaved);
    s.tile = nat_var(a, bv);
    if (st_in_lanes(&s)) {
        s.key[0] = lw_shared_buffer(w, "stkey", s.sk, nat_cst(a, s.TILE), e->sp);
        if (pairs) s.val[0] = lw_shared_buffer(w, "stval", s.sk2, nat_cst(a, s.TILE), e->sp);
        s.hist = lw_shared_buffer(w, "sthist", SK_U32, nat_cst(a, 32 * (s.W + 1)), e->sp);
        s.rkey = sregs(&s, "slkey", s.sk);
        if (pairs) s.rval = sregs(&s, "slval", s.sk2);
        s.rvm = sregs(&s, "slvm", SK_U32);
        s.rdg = sregs(&s, "sldg", SK_U32);
        s.rrk = sregs(&s, "slrk", SK_U32);
        s.rrun = sregs(&s, "slrun", SK_U32);
        st_lanes_load(&s, g->buf, pairs ? g2->buf : NULL);
        for (int d = 0; sl_bit(d) < sl_obits(&s); d++) {
            st_lanes_rank(&s, d);
            st_lanes_place(&s);
            st_lanes_reload(&s);
        }
        st_lanes_store(&s, c1->buf, pairs ? c2->buf : NULL);
        lw_close_loop(w, blk, bsaved);
        return;
    }
    for (int i = 0; i < 2; i++) {
        s.key[i] = lw_shared_buffer(w, "stkey", s.sk, nat_cst(a, s.TILE), e->sp);
        if (pairs) s.val[i] = lw_shared_buffer(w, "stval", s.sk2, nat_cst(a, s.TILE), e->sp);
    }
    s.info = lw_shared_buffer(w, "stinfo", SK_U32, nat_cst(a, s.TILE), e->sp);
    s.hist = lw_shared_buffer(w, "sthist", SK_U32, nat_cst(a, s.W * ST_HS), e->sp);
    s.wsum = lw_shared_buffer(w, "stwsum", SK_U32, nat_cst(a, s.W), e->sp);
    st_load(&s, g->buf, pairs ? g2->buf : NULL);
    for (int d = 0; d < s.passes; d++) {
        st_clear(&s);
        st_rank(&s, d, d % 2);
        st_scan_counts(&s);
        st_scan_warps(&s);
        st_move(&s, d % 2);
    }
    st_store(&s, c1->buf, pairs ? c2->buf : NULL);
    lw_close_loop(w, blk, bsaved);
}

const PrimOps prims_sorttile[P_COUNT] = {
    [P_SORTTILES] = {.infer = infer_sorttiles, .lower = lower_sorttiles_read, .eval = eval_sorttiles,
                     .write = write_sorttiles},
};
