/* memory.c: the materialisation in an address space, and scatter (PF_MEMORY).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

/* toGlobal, toShared, toPrivate : t -> t */
static Expr *infer_to_memory(Tc *t, const TcApp *ap)
{
    Prim p = ap->p;
    Ast **arg = ap->arg;
    Scope *sc = ap->sc;
    Type *expected = ap->expected;
    Span sp = ap->sp;
    Expr *e;
    Expr *x = tc_infer(t, arg[0], sc, expected);
    e = tc_prim_expr(t, p, x->ty, sp);
    e->prim.args[0] = x;
    return e;
}

/* toGlobal(x), toShared(x), toPrivate(x) = x: the address space is the GPU's concern */
static void eval_to_memory(IpCtx *c, const Code *e, IpVal *r)
{
    ip_eval(c, e->args[0], r);
    r->ty = e->ty;
}

const PrimOps prims_memory[P_COUNT] = {
    [P_TOGLOBAL] = {infer_to_memory, NULL, eval_to_memory},
    [P_TOSHARED] = {infer_to_memory, NULL, eval_to_memory},
    [P_TOPRIVATE] = {infer_to_memory, NULL, eval_to_memory},
};
