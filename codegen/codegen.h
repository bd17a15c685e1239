/* codegen.h: the CUDA C printer (the one header of codegen/).
 *
 * The printer performs no analysis: every decision (loop forms, barriers, shared
 * offsets, which ids are computed) was made by a pass in compiler/ and is recorded in
 * the kernel IR. */
#ifndef PATC_CODEGEN_H
#define PATC_CODEGEN_H

#include "../compiler/compiler.h"

/* Print the whole translation unit: a prelude (helpers such as patc_fdiv, only when
 * used) and one extern "C" __global__ function per kernel, each preceded by a comment
 * block naming its data parameters, nat parameters, output size, block-size rule and
 * shared-memory bytes. */
void cu_emit_module(Arena *a, StrBuf *out, Kernel **ks, int n);
/* Print one kernel (no prelude). */
void cu_emit_kernel(Arena *a, StrBuf *out, const Kernel *k);

/* The C parameter list order of every kernel: the output buffer, the data parameters
 * in declaration order, then the nat parameters (as int: sizes must stay below 2^31) in declaration order. */

#endif
