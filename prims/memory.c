/* memory.c: the materialisation in an address space, and scatter (PF_MEMORY).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

const PrimOps prims_memory[P_COUNT] = {
};
