/* warp.c: the warp shuffles and the grid-wide lastBlock (PF_WARP, PF_GRID).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

const PrimOps prims_warp[P_COUNT] = {
};
