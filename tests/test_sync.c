/* test_sync.c: the synchronisation in each pattern's emitted code equals the minimum.
 * Each row says why that minimum is the minimum; the counts are taken from the CUDA
 * text patc prints, along the path a full tile takes: version.c's `else` branches (the
 * copies for a partial last tile, with the same synchronisation) are left out. */
#include "testutil.h"

typedef struct Row {
    const char *file, *kernel;
    int syncthreads, syncwarp, shuffles;
    const char *why;
} Row;

static const Row rows[] = {
    {"examples/scale.rise", "scale", 0, 0, 0, "each thread reads and writes only its own element"},
    {"examples/dot.rise", "dotPartial", 0, 0, 0, "each thread folds its own chunk in a register"},
    {"examples/stencil3.rise", "stencil3", 0, 0, 0, "reads of the read-only input need no barrier"},
    {"examples/reduce_device_naive.rise", "reduceNaive", 1, 0, 0,
     "thread 0 reads what the other threads wrote to shared memory: one block barrier"},
    {"examples/reduce_device_tree.rise", "reduceTree", 10, 0, 0,
     "ten halving steps each read what another thread wrote in the step before: one barrier per step, none after the last"},
    {"examples/transpose_tiled.rise", "transposeTiled", 2, 0, 0,
     "the tile is read transposed (other threads' writes), and the next trip of the grid-stride loop overwrites it"},
    {"examples/reduce_warp.rise", "reduceWarpDownK", 0, 0, 5, "a 32-lane shuffle reduction: 5 shuffles, registers only, no __syncwarp"},
    {"examples/reduce_warp.rise", "reduceWarpXorK", 0, 0, 5, "5 xor shuffles, no __syncwarp"},
    {"examples/reduce_warp.rise", "reduceWarpUpK", 0, 0, 5, "5 up shuffles, the result written by lane 31, no __syncwarp"},
    {"examples/reduce_block_shfl.rise", "reduceShfl_1024_256", 1, 0, 10,
     "Abbildung 4.7: warp results cross warps through shared memory once per block iteration: exactly one __syncthreads"},
    {"examples/reduce_block_shfl.rise", "reduceShfl_256_32", 1, 0, 10, "the same with 8 warps of 32 elements"},
    {"examples/reduce_block_shfl.rise", "reduceShfl_2048_64", 1, 0, 10, "the same with 32 warps of 64 elements"},
    {"examples/reduce_block_shfl.rise", "reduceShflXor_1024_256", 1, 0, 10, "the xor variant"},
    {"examples/shfl_permute.rise", "permute", 0, 0, 1, "one shuffle with the computed source lane, no barrier"},
    {"examples/scan_blelloch.rise", "tileExclSumI32", 16, 0, 0,
     "Blelloch's scan of 512 elements: the tile's load, 8 stored up-sweep levels (256 .. 2 sums; the root's total is "
     "combined by every thread) and 7 stored down-sweep levels (2 .. 256; the root's is a view, the last writes the "
     "output) each read what other threads wrote: 2*9 - 2 barriers"},
    /* issue 33, item 7a: the flagged lastBlock has no barrier of its own before its body */
    {"tests/programs/lastblock_types.rise", "sumF32", 3, 0, 20,
     "the warp totals cross warps through shared memory once in every block and once in the last block's reduction "
     "(a buffer of its own, so nothing pending before the body: no barrier in front of it; the partials are read "
     "through flag waits), and the flags are cleared only after every thread of the last block has read them"},
    {"tests/programs/lastblock_reuse.rise", "sumTwiceReuse", 5, 0, 10,
     "the tile crosses threads once in every block; the last block's column sums reuse the tile's bytes, which "
     "other threads may still read: one barrier where the body first writes them; the column sums and the warp "
     "totals cross threads once each; the flags are cleared after the last block's reads"},
};

/* s without the else branches ("} else { ... }" up to the matching brace). */
static char *drop_else(const char *s)
{
    char *r = malloc(strlen(s) + 1), *o = r;
    while (*s) {
        if (!strncmp(s, "} else {", 8)) {
            *o++ = '}';
            int depth = 1;
            for (s += 8; *s && depth; s++) depth += *s == '{' ? 1 : *s == '}' ? -1 : 0;
            continue;
        }
        *o++ = *s++;
    }
    *o = 0;
    return r;
}

START_TEST(minimal_sync)
{
    const Row *r = &rows[_i];
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PATC_SOURCE_DIR, r->file);
    TC *t = tc_compile_file(path);
    Kernel *k = NULL;
    for (int i = 0; i < t->c.nkernels; i++)
        if (!strcmp(t->c.kernels[i]->name, r->kernel)) k = t->c.kernels[i];
    ck_assert_msg(k != NULL, "no kernel %s", r->kernel);
    StrBuf b = {0};
    cu_emit_kernel(t->a, &b, k);
    char *fast = drop_else(b.s);
    int st = count_substr(fast, "__syncthreads()"), sw = count_substr(fast, "__syncwarp("), sh = count_substr(fast, "__shfl_");
    free(fast);
    ck_assert_msg(st == r->syncthreads, "%s: %d __syncthreads, minimum %d (%s)", r->kernel, st, r->syncthreads, r->why);
    ck_assert_msg(sw == r->syncwarp, "%s: %d __syncwarp, minimum %d (%s)", r->kernel, sw, r->syncwarp, r->why);
    ck_assert_msg(sh == r->shuffles, "%s: %d shuffles, expected %d (%s)", r->kernel, sh, r->shuffles, r->why);
    /* no kernel ends with a barrier */
    const char *last = strrchr(b.s, ';');
    ck_assert_ptr_nonnull(last);
    ck_assert_msg(!(last - b.s >= 15 && !strncmp(last - 15, "__syncthreads()", 15)), "%s ends with a barrier", r->kernel);
    sb_free(&b);
    tc_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sync");
    TCase *c = tcase_create("minimum");
    tcase_add_loop_test(c, minimal_sync, 0, (int)(sizeof rows / sizeof rows[0]));
    suite_add_tcase(s, c);
    return run_suite(s);
}
