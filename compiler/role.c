/* role.c: what a lowered kernel is to the runtime and the CLI, decided once here.
 *
 * A device-level reduction pass (KR_REDUCE_PASS) has exactly one data parameter whose
 * element count is a single nat parameter n, and an output of the same element type.
 * Only such a kernel may be relaunched on its own output (patc_reduce_to_one, `patc
 * run --reduce`); whether it shrinks n is a property of the values and is checked at
 * each pass. A -D that fixes n makes the kernel plain: its length is then no parameter.
 *
 * A pass is tunable (patc_reducer_*, rt_tune.c) when, besides n, it has either no other
 * nat and a constant grid of (G, 1, 1), or exactly one other nat g and a grid of
 * (g, 1, 1): the tuner chooses g.
 */
#include "compiler.h"

/* The index of v among k's nat parameters, or -1. */
static int nat_index(const KernelDef *d, const NatVar *v)
{
    for (int i = 0; i < d->nnats; i++)
        if (d->nats[i] == v) return i;
    return -1;
}

void kernel_set_role(Kernel *k)
{
    const KernelDef *d = k->def;
    k->role = KR_PLAIN;
    k->role_len_nat = k->role_grid_nat = -1;
    k->role_tunable = false;
    if (k->ninputs != 1 || k->nouts != 1 || k->inputs[0]->scalar || k->inputs[0]->count->kind != N_VAR || k->out->sk != k->inputs[0]->sk) return;
    int len = nat_index(d, k->inputs[0]->count->var);
    if (len < 0) return;
    k->role = KR_REDUCE_PASS;
    k->role_len_nat = len;

    if (!k->grid[0]) return;
    int64_t v;
    for (int i = 1; i < 3; i++)
        if (k->grid[i] && (!nat_is_const(k->grid[i], &v) || v != 1)) return;
    if (nat_is_const(k->grid[0], &v)) {
        k->role_tunable = d->nnats == 1;
    } else if (k->grid[0]->kind == N_VAR) {
        int g = nat_index(d, k->grid[0]->var);
        if (g >= 0 && g != len && d->nnats == 2) {
            k->role_grid_nat = g;
            k->role_tunable = true;
        }
    }
}
