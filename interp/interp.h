/* interp.h: the CPU interpreter of the typed functional IR (interp/interp.c), the
 * reference semantics generated kernels are checked against: a second back end of the
 * KernelDefs that compiler/ produces (the first is lower.c + codegen/). */
#ifndef PATC_INTERP_H
#define PATC_INTERP_H

#include "../compiler/compiler.h"

/* Interpret kernel `k` on host buffers. inputs[i] holds the flattened elements of data
 * parameter i (its innermost scalar type, little-endian, packed); nat values are given
 * in `nats` in the order of k->nats. The flattened output is written to `out`, which
 * must hold the output's element count. Returns false and fills `err` on a run-time
 * error (an index out of bounds in a shuffle pattern, say). */
bool interp_kernel(const KernelDef *k, const int64_t *nats, const void *const *inputs,
                   void *out, char *err, size_t errlen);
/* The same for a kernel of several outputs: output j (leaf j of the result's pairs, left
 * to right) is written to outs[j]. */
bool interp_kernel_outs(const KernelDef *k, const int64_t *nats, const void *const *inputs,
                        void *const *outs, char *err, size_t errlen);
/* The error text of a run that stopped because memory ran out (a host error, not the
 * program's). */
#define INTERP_NO_MEMORY "out of memory"


#endif
