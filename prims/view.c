/* view.c: the views: reindexings of their argument (PF_VIEW).
 * For each primitive: its type rule, its lowering and its interpreter meaning. */
#include "prims.h"

const PrimOps prims_view[P_COUNT] = {
};
