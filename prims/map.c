/* map.c: the maps and the sequential folds and scans (PF_MAP, PF_REDUCE).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

const PrimOps prims_map[P_COUNT] = {
};
