/* rt_sort.c: the ready-made radix sort of keys and of key-value pairs, ascending or
 * descending (patc_sorter_*, issue 35 items 2 and 4).
 *
 * The sort is patterns/radixsort.rise's (docs/language.md, "Radix sort"): a histogram
 * of all four 8-bit digits in one read of the keys and the scan of each digit's counts
 * in one launch (sortHistScan: rsHistScanD, the grid's last block scans the counts;
 * sortHistScanV, rsHistScanW in 16-byte vectors, where the keys are 16-byte aligned:
 * hist_kernel), then four multisplit passes, in -> tmp -> out -> tmp -> out. Its program is generated
 * for the key type (sortHistScan, sortPass and the other kernels below) and compiled once
 * per use: each kernel with a cubin, as a program of its own, on its first launch
 * (kernel_cubin); the whole text without one on the first CPU run or size query. Both
 * are compiled with bins_in_result: the histogram's bins are the offsets' own buffer,
 * which libpatrt zeroes before the launch, not 4 KiB of scratch of the kernel's own
 * (with them the temporary memory was above CUB's below 2^20 keys: 43,292 bytes against
 * 39,679 at 8193 u32 keys, bench/results/2026-11-27-nvidia-h100-sort-stop49; the memset
 * took 0 to 0.9 us of GPU time, interleaved on an
 * H200, bench/results/2026-11-27-nvidia-h200-sort-tempmem). The sorter owns its
 * temporary memory (the second buffer of keys, the counts and the offsets), allocated on
 * the first enqueue that needs more and kept until it is freed; the kernels own their
 * scratch (multisplit's look-back words), as every kernel does. patc_sorter_temp_bytes
 * states both. A sorter of pairs has a pass over
 * zip(keys)(values) (rsPassPairs) instead, its values moved as u32 words whatever their
 * type, and a second buffer of values; a descending sorter sorts by the complemented
 * order bits (rsOrd*Desc), which keeps equal keys in input order as the ascending one.
 *
 * Past a portion of keys (2^28, or patc_sort_spec.portion) the keys are cut into
 * portions of one length (portion_q) and each pass is a launch a portion (sortPassN,
 * multisplitToNext: each portion's offsets, u64, are the result of the portion before;
 * the first's come from sortHist on each portion and sortScan over them, once a sort:
 * offsets_dev).
 *
 * Up to small_max keys the sort is one launch instead (sortSmall0..5: rsSmall, the
 * sortTiles primitive, one block sorting the whole input, in the first of small_tiles
 * that holds it), which needs no temporary memory.
 */
#include "patc.h"
#include "rt_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pass's tile: 384 threads of 16 keys (multisplit's shape in examples/radixsort.rise):
 * on an H100, one pass over 2^24 keys took 161 us at 384x16, 170 at 256x16, 165 at 512x16
 * and 185 at 256x24; pairs 220 us at 384x16, 249 at 256x16 (bench/results/2026-11-26-nvidia-h100-msvar).
 * Other tiles for some types and sizes: tile_steps. */
enum { PASS_NT = 384, PASS_IPT = 16, HIST_KEYS_PER_THREAD = 16 };

/* The small sort's tiles: up to small_max keys one launch of one block (sortSmallK, the
 * first tile that holds n). Six launches cost 41-47 us on an H100 at n = 1000..4097
 * against CUB's 14-16 (bench/results/2026-11-26-nvidia-h100-sort and -sort-small2: CUB
 * sorts up to 4864 4-byte keys in one block). 256 threads of 4 keys up to 1024, 256 of 8
 * up to 2048, 256 of 16 up to 4096, 384 of 13 up to 4992 and 512 of 10 up to 5120 rank
 * in the lanes' registers (sortTiles' 5-bit passes, docs/language.md); 1024 of 8 up to
 * 8192 in shared memory. Among generated kernels of u32 keys on an H200, 256 x 16 and
 * 384 x 13 were the fastest tried where CUB sorts in one block: at 4096 keys 10.5-10.8 us
 * of GPU time against 11.1-11.5 for 384 x 11 (CUB 12.3), at 4864 12.1-12.5 against
 * 13.1-13.3 for 448 x 11 and 13.3 for 512 x 10 (CUB 12.5); 17 or more a thread were not
 * unrolled by nvcc and took about twice as long (bench/results/2026-11-28-nvidia-h200-sort-vote).
 * On an H100, CUB's time over patc's over uniform, few and sorted keys: 1.07-1.13 for u32
 * keys, 1.01-1.03 for f32 keys and 1.05-1.10 for f32 keys with u32 values from 4097 to
 * 4864, 1.12-1.18 at 4096 (bench/results/2026-11-28-nvidia-h100-sort-vote, r6). 1024 x 8
 * stays in shared memory: hand-written kernels ranking in registers at 512 x 16 took
 * 24.3-24.8 us of GPU time at 8192 keys against its 22.6-23.2
 * (bench/results/2026-11-28-nvidia-h100-sort-small). It keeps the tile twice in shared
 * memory, under the 227 KB a block can have: 131 KB for 4-byte keys, 197 KB for 4-byte
 * pairs or 8-byte keys; an element of 12 or 16 bytes (a pair with an 8-byte key or value)
 * stops at 5120 keys. */
typedef struct {
    int nt, ipt;
    int minb; /* the pass kernel's __launch_bounds__ minimum of blocks an SM
                 (patc_compile_options.min_blocks); 0: multisplit's own choice */
} Tile;
enum { NSMALL = 6, NSTEPS = 4 }; /* NSMALL: the most small tiles; NSTEPS: the most tile_steps rows of one sorter */
/* the kernels with a cubin: sortHistScan, sortHist, their V forms, sortScan, sortPass,
 * sortPassN, sortCopy, the steps' and the small sorts' */
enum { KPROG_MAX = 8 + NSTEPS + NSMALL };
/* sortPass's tile, below the first step and for the sorters without steps */
static const Tile pass_tile = {PASS_NT, PASS_IPT, 0};
typedef struct {
    int n; /* the tiles in use: t[0..n) */
    Tile t[NSMALL];
} SmallTiles;
/* by the element's bytes (up to 8, or 12-16) */
static const SmallTiles small_tiles[2] = {{6, {{256, 4, 0}, {256, 8, 0}, {256, 16, 0}, {384, 13, 0}, {512, 10, 0}, {1024, 8, 0}}},
                                          {5, {{256, 4, 0}, {256, 8, 0}, {256, 16, 0}, {384, 13, 0}, {512, 10, 0}}}};

/* The digit width: 8 bits by default (CUB's); 5 to 11 (rsScanP gives a lane r/32 >= 1
 * counts; 11 bits is 2048 buckets, a third pass fewer for u32 keys). At most 13 passes
 * (64 bits of 5). */
enum { DIGIT_MIN = 5, DIGIT_MAX = 11, DIGIT_DEFAULT = 8 };

/* A pass over more keys than a portion is one launch a portion (multisplitToNext), as
 * CUB's Onesweep runs portions of under 2^28 keys: a launch's look-back counts are 30
 * bits (multisplit's n is below 2^30), and its words, 4 bytes per bucket per tile, are
 * those of one portion, which the kernel keeps as its scratch. Portion p + 1 starts each
 * bucket where portion p's launch says its keys of it end (its first output), so the
 * keys are counted once a sort (a histogram launch a portion, each into its own row,
 * then rsScanP, whose portion 0 row is every pass's first offsets), not once a pass.
 * The portion is 2^28 keys (CUB's is the most whole tiles of its pass under 2^28), so
 * that the look-back words are at most CUB's where its tile is no larger (every type:
 * rt_sort's tiles are at least CUB's, tile_steps), and a sort of up to 2^28 keys is one
 * portion; patc_sort_spec.portion may set another, up to PORTION_MAX. Until 20b6905 the
 * portion was 2^30 - 1 keys and each pass took a histogram of every portion: at 2^30 - 1
 * keys the temporary memory was 1.65 % over CUB's (tests/gpu/sort_temp.cu), and at 2^30
 * keys (two portions) the sort 0.60 of CUB's speed
 * (bench/results/2026-11-26-nvidia-h100-sort-shrink-portions); now it is at or below
 * CUB's memory to 2^31 - 1 keys and 1.05-1.07 of its speed on u32 keys from 1.5 x 2^28
 * to 1.5 x 2^30 (bench/results/2026-11-27-nvidia-h100-sort-chain). MAX_KEYS bounds the
 * portions (rsScanP is one block over np*nd*r counts). */
#define PORTION_MAX 1073741823LL
#define PORTION_DEFAULT (1LL << 28)
#define MAX_KEYS (1LL << 40)

struct patc_sorter {
    patc_ctx *ctx;
    patc_type type;
    bool pairs, desc;
    patc_type vtype;       /* pairs: the values' type */
    int ks, vs;            /* the bytes of a key and of a value (0 for keys alone) */
    int nd, r;             /* the passes (digits) and the buckets of a pass (2^digit_bits) */
    long long portion;     /* the most keys a launch of a pass (or of the histogram) takes */
    int nsteps;            /* the pass's tiles by size (pass_steps): step[i] from step_from[i] keys */
    Tile step[NSTEPS];     /* the kernels sortPassB<i>, pass_big[i] */
    Tile ptile;            /* sortPassN's (portion_tile) */
    long long step_from[NSTEPS];
    const SmallTiles *tiles; /* the small sort's (small_tiles[0] or [1], by the element's bytes) */
    char *source;
    /* the kernels: [0] of the program without a cubin (interpreter, queries), made whole
     * on first use; [1] with a cubin, each a program of its own made on its first
     * launch (kernel_cubin), held in kprog */
    patc_program *prog0;
    patc_program *kprog[KPROG_MAX];
    int nkprog;
    patc_kernel *hscan[2];  /* sortHistScan: one portion's u32 offsets, one launch */
    patc_kernel *hist[2], *scan[2], *pass_n[2]; /* in portions: sortHist, sortScan (u64), sortPassN */
    patc_kernel *hscanv, *histv; /* sortHistScanV, sortHistV (with a cubin): 16-byte loads (hist_kernel) */
    patc_kernel *pass[2], *pass_big[NSTEPS][2], *small[NSMALL][2];
    patc_kernel *copy[2]; /* sortCopy: only for an odd number of passes (copy_back) */
    patc_buffer *tmp;      /* the second buffer of keys (then, for pairs, of values), tmp_bytes long */
    patc_buffer *counts;   /* one portion's offsets (nd*r u32); in portions, their histograms
                              (np*nd*r u32), then their offsets (np + 1 rows of nd*r u64:
                              rsScanP's, then each portion's launch writes the next row) */
    size_t tmp_bytes, counts_bytes;
    /* views of patc_sort_keys_ptr's addresses, never on a list */
    struct patc_buffer raw[4];
    patc_sorter *prev, *next; /* the context's list of live sorters (patc_destroy frees them) */
};

/* The order bits of the key type (patterns/radixsort.rise) and the kernels' key type:
 * f32 and f64 keys are sorted as the u32 and u64 words of their bits. */
static patc_status key_names(patc_type t, bool desc, const char **ord, const char **kt)
{
    switch (t) {
    case PATC_U32: *ord = desc ? "rsOrdU32Desc" : "rsOrdU32"; *kt = "u32"; return PATC_OK;
    case PATC_I32: *ord = desc ? "rsOrdI32Desc" : "rsOrdI32"; *kt = "i32"; return PATC_OK;
    case PATC_F32: *ord = desc ? "rsOrdF32Desc" : "rsOrdF32"; *kt = "u32"; return PATC_OK;
    case PATC_U64: *ord = desc ? "rsOrdU64Desc" : "rsOrdU64"; *kt = "u64"; return PATC_OK;
    case PATC_I64: *ord = desc ? "rsOrdI64Desc" : "rsOrdI64"; *kt = "i64"; return PATC_OK;
    case PATC_F64: *ord = desc ? "rsOrdF64Desc" : "rsOrdF64"; *kt = "u64"; return PATC_OK;
    case PATC_BOOL: break;
    }
    return PATC_ERR_INVALID;
}

/* The pass's tile by size (see PASS_NT), by key type and value bytes (0: keys alone),
 * with 8-bit digits: steps, each from a size on to the next step of its type; 384x16
 * (sortPass) below the first step and for the cases not here (other types and widths
 * were not timed in other shapes). Each step's tile is a kernel of its own, sortPassB0,
 * B1, ...; sortPassN (portions) takes the last step's.
 * The look-back words bound the tiles from below: 4 bytes a bucket a tile but the last
 * (multisplit's last tile publishes none), CUB's 4 bytes a bucket a tile. CUB's Onesweep
 * tiles on sm_90 are 7680 keys for u32 and i32, 7296 for f32 and 8832 for 4-byte keys
 * with 4-byte values (worked out from its temp_storage_bytes,
 * bench/results/2026-11-27-nvidia-h200-sort-tempmem), so a tile of fewer keys than
 * CUB's keeps the temporary memory at most CUB's only while its tiles are at most one
 * more than CUB's: the pairs' 512x16 up to 114688 pairs (tests/gpu/sort_temp.cu checks
 * every step at n = 1 .. 2^31 - 1).
 * Chosen on an H100 (bench/results/2026-11-28-nvidia-h100-sort-stop57, r1: eleven
 * shapes, each a run of its own, at 8193, 2^16, 2^20, 2^22, 2^24 and 2^26 keys, uniform
 * figures below) and checked on an H200 (-h200-sort-stop57, r2), after multisplit
 * counted its tiles before ranking them, which moved the best shapes:
 *  - u32 keys: 512x16 below 2^23 (62.0 us at 2^20 against 64.6 at 512x18), 512x20 from
 *    2^23, 512x24 from 2^25 (1333.7 us at 2^26 against 1384.8 at 512x20);
 *  - f32 keys: 512x16 below 2^23 (61.4 us at 2^20 against 70.8 at 384x24), 384x19 from
 *    2^23 at three blocks an SM (minb 3, 56 registers: CUB's own configuration for float
 *    keys; 396.3 us at 2^24, the fastest there), 512x24 from 2^26 (1324.6 us at 2^26
 *    against 1341.6; on the H200 at 2^25 699.1 against 685.5, so not from 2^25);
 *  - f32 keys with 4-byte values: 512x16 below 98304 (42.2 us at 8193 against 63.7 at
 *    512x18, 50.0 against 60.3 at 2^16), 512x18 to 2^23 (205.9 us at 2^22 against 223.9
 *    at 512x20), and from 2^23 512x20 until multisplit stored the keys and the values
 *    apart (split.c's ms_read_values), then 384x26 (80 registers, two blocks an SM: at
 *    2^28 8250-8276 us against 8333-8380 at 512x20, 8255-8269 at 384x30 and 384x32,
 *    8414-8596 at 384x28, 352x28, 320x32, 448x22 and 512x22; at 2^26 2122-2137 against
 *    2136-2154; bench/results/2026-11-28-nvidia-h100-sort-split, x2 and x3);
 *  - u64 keys: 512x16 at every size (77.4 us at 8193 against 90.2 at 384x16, 92.0 at
 *    2^16 against 102.1; slower where n is a multiple of 6144 keys: 82.4 us against 74.0
 *    at 12288, CUB/patc 1.07-1.12 there, r3).
 * With these against the tiles before, u32 keys were 3-8 % faster from 2^25 to 2^28
 * keys and f32 keys 1-4 % from 2^26 (r3 on the H100, r2 on the H200); u32 keys at 2^28
 * sort at 1.27-1.31 of CUB's speed (r4, r5). Since the ranking takes fewer ALU
 * instructions (stop 60), 512x24 for u32 keys from 2^25 and f32 keys from 2^26 is
 * compiled for three blocks an SM (minb 3, 40 registers: multisplit then computes each
 * key's digit again when it ranks it rather than keep it in a register): on an H200 at
 * 2^28, u32 keys 4371 us against 4677 at two blocks, f32 keys 4456 against 4812 before
 * (bench/results/2026-11-28-nvidia-h200-sort-alu, ab). Other tiles of 18 or
 * more items a thread are compiled for two blocks an SM (multisplit's own launch bound):
 * without it ptxas gave the pairs' pass at 384x20 94 registers and one block an SM,
 * 27-40 % slower (bench/results/2026-11-26-nvidia-h100-sort-stop45-bounds). */
static const struct {
    patc_type key;
    int vbytes;
    long long from;
    Tile t;
} tile_steps[] = {
    {PATC_U32, 0, 1, {512, 16, 0}},
    {PATC_U32, 0, 1LL << 23, {512, 20, 0}},
    {PATC_U32, 0, 1LL << 25, {512, 24, 3}},
    {PATC_F32, 0, 1, {512, 16, 0}},
    {PATC_F32, 0, 1LL << 23, {384, 19, 3}},
    {PATC_F32, 0, 1LL << 26, {512, 24, 3}},
    {PATC_F32, 4, 1, {512, 16, 0}},
    {PATC_F32, 4, 98304, {512, 18, 0}},
    {PATC_F32, 4, 1LL << 23, {384, 26, 0}},
    {PATC_U64, 0, 1, {512, 16, 0}},
};

/* The tile_steps rows of a sorter: i32 keys alone take u32's (the same pass but for the
 * sign bit in the order function), i64 and f64 keys alone u64's (likewise, the order
 * function that of the type), pairs of any 4-byte key with 4-byte values f32's (rows
 * "f32 with 4-byte values": the pass moves the keys' bits as u32 words). */
static patc_type step_key(const patc_sorter *s)
{
    if (s->ks == 4 && s->vs == 4) return PATC_F32;
    if (s->vs == 0 && s->type == PATC_I32) return PATC_U32;
    return s->vs == 0 && s->ks == 8 ? PATC_U64 : s->type;
}

/* The sorter's steps (tile_steps of its key type, value bytes and digit width 8) and
 * sortPassN's tile (the last step's) */
static void pass_steps(patc_sorter *s, int w)
{
    s->nsteps = 0;
    for (size_t i = 0; w == 8 && i < sizeof tile_steps / sizeof tile_steps[0]; i++)
        if (tile_steps[i].key == step_key(s) && tile_steps[i].vbytes == s->vs && s->nsteps < NSTEPS) {
            s->step_from[s->nsteps] = tile_steps[i].from;
            s->step[s->nsteps++] = tile_steps[i].t;
        }
    s->ptile = s->nsteps ? s->step[s->nsteps - 1] : pass_tile;
}

/* The kernel of step i: sortPassB<i> */
static char *step_name(char name[24], int i)
{
    snprintf(name, 24, "sortPassB%d", i);
    return name;
}

/* The kernel of small_tiles[i]: sortSmall<i> ("sortSmall" and any int: gcc -O1's
 * format-truncation check counts 11 digits, so 24 bytes). */
static char *small_name(char name[24], int i)
{
    snprintf(name, 24, "sortSmall%d", i);
    return name;
}

/* A pass kernel's text (sortPass, sortPassB<i>; sortPassN, next): one portion of the
 * keys (n of them, of m in all; for pairs zip(keys)(values)) placed by digit d with the
 * portion's offsets (ot: u32 for a sort of one portion, u64 in portions), in tiles of t;
 * next: also the next portion's offsets, its first output. kt, vt: the kernel's key and
 * value types. */
static void pass_text(StrBuf *b, const patc_sorter *s, const char *name, Tile t, const char *kt, const char *vt,
                      const char *ot, bool next)
{
    sb_printf(b, "kernel %s = nFun((n, m) => fun(u32)(d => fun(%d.%s)(offs => fun(n.%s)(", name, s->r, ot, kt);
    if (s->pairs)
        sb_printf(b, "ks => fun(n.%s)(vs => zip(ks)(vs) |> rsPassPairs%sD(%d, %d, %d, sortDig, d, m, offs))))))\n", vt,
                  next ? "Next" : "To", t.nt, t.ipt, s->r);
    else
        sb_printf(b, "xs => xs |> rsPass%sD(%d, %d, %d, sortDig, d, m, offs)))))\n", next ? "Next" : "To", t.nt, t.ipt,
                  s->r);
}

/* The order function of the sorter as .rise text: the key's order bits (ord), or for a
 * bit range [b, e) narrower than the key the range alone, shifted down:
 * shr(o)(b) & (2^(e-b) - 1), which sorts by bits b..e-1 and keeps the input order of
 * keys equal there (CUB's begin_bit, end_bit, on the same order bits). A range of at
 * most 32 bits of an 8-byte key is a u32 (four passes of the small sort, not eight). */
static void order_text(StrBuf *b, const char *ord, int bits, int lo, int hi)
{
    bool w64 = bits == 64, narrow = w64 && hi - lo <= 32;
    sb_printf(b, "def sortOrd = fun(x => ");
    if (lo == 0 && hi == bits) {
        sb_printf(b, "%s(x))\n", ord);
        return;
    }
    if (narrow) sb_puts(b, "u32(");
    if (w64) sb_printf(b, "shr(%s(x))(u64(%d))", ord, lo);
    else sb_printf(b, "shr(%s(x))(%du)", ord, lo);
    if (hi - lo < bits) {
        if (w64) sb_printf(b, " & (shl(u64(1))(u64(%d)) - 1)", hi - lo);
        else sb_printf(b, " & %uu", (unsigned)((1ull << (hi - lo)) - 1));
    }
    sb_puts(b, narrow ? "))\n" : ")\n");
}

patc_status patc_sorter_create_spec(patc_ctx *ctx, const patc_sort_spec *spec, patc_sorter **out)
{
    if (!ctx || !spec || !out)
        return ctx ? rt_fail(ctx, PATC_ERR_INVALID, "patc_sorter_create: a NULL argument") : PATC_ERR_INVALID;
    *out = NULL;
    const char *ord, *kt, *vt;
    patc_type type = spec->key_type;
    if ((unsigned)type > PATC_BOOL || key_names(type, spec->descending != 0, &ord, &kt) != PATC_OK)
        return rt_fail(ctx, PATC_ERR_INVALID, "patc_sorter_create: the keys must be u32, i32, f32, u64, i64 or f64");
    if (spec->values && ((unsigned)spec->value_type > PATC_BOOL || key_names(spec->value_type, false, &vt, &vt) != PATC_OK))
        return rt_fail(ctx, PATC_ERR_INVALID, "patc_sorter_create: the values must be u32, i32, f32, u64, i64 or f64");
    int ks = (int)patc_type_size(type), vs = spec->values ? (int)patc_type_size(spec->value_type) : 0;
    int bits = 8 * ks, lo = spec->begin_bit, hi = spec->end_bit;
    if (lo == 0 && hi == 0) hi = bits;
    if (lo < 0 || hi > bits || lo >= hi)
        return rt_fail(ctx, PATC_ERR_INVALID, "patc_sorter_create: the bit range [%d, %d) is not within the key's %d "
                       "bits, or empty (0 <= begin_bit < end_bit <= %d; both 0: all bits)", spec->begin_bit,
                       spec->end_bit, bits, bits);
    if (spec->portion < 0 || spec->portion > PORTION_MAX)
        return rt_fail(ctx, PATC_ERR_INVALID, "patc_sorter_create: portion is %lld; it must be 1 to 2^30-1 (0: 2^28)",
                       spec->portion);
    int w = spec->digit_bits ? spec->digit_bits : DIGIT_DEFAULT;
    if (w < DIGIT_MIN || w > DIGIT_MAX)
        return rt_fail(ctx, PATC_ERR_INVALID, "patc_sorter_create: digit_bits is %d; it must be %d to %d (0: %d)",
                       spec->digit_bits, DIGIT_MIN, DIGIT_MAX, DIGIT_DEFAULT);
    patc_sorter *s = lang_calloc(1, sizeof *s);
    if (!s) return rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    s->ctx = ctx;
    s->type = type;
    s->pairs = spec->values != 0;
    s->desc = spec->descending != 0;
    s->vtype = s->pairs ? spec->value_type : type;
    s->ks = ks;
    s->vs = vs;
    s->r = 1 << w;
    s->nd = (hi - lo + w - 1) / w;
    s->portion = spec->portion ? spec->portion : PORTION_DEFAULT;
    pass_steps(s, w);
    s->tiles = &small_tiles[ks + vs > 8];
    const char *words = vs == 8 ? "u64" : "u32";
    StrBuf b = {0};
    sb_puts(&b, "-- generated by libpatrt for patc_sorter_create\nimport \"radixsort.rise\"\n");
    order_text(&b, ord, bits, lo, hi);
    sb_printf(&b, "def sortDig = %s(sortOrd, %d)\n", hi - lo > 32 ? "rsDigit64" : "rsDigit32", w);
    sb_printf(&b, "kernel sortHistScan = nFun((n, g) => fun(n.%s)(xs => xs |> rsHistScanD(n, g, %d, %d, sortDig)))\n",
              kt, s->nd, s->r);
    sb_printf(&b, "kernel sortHist = nFun((n, g) => fun(n.%s)(xs => xs |> rsHistogramD(n, g, %d, %d, sortDig)))\n", kt,
              s->nd, s->r);
    /* the same reading 16-byte vectors of 16 / ks keys (hist_kernel) */
    sb_printf(&b, "def sortVec = fun(c => c |> asVector(%d))\n", 16 / ks);
    sb_printf(&b, "kernel sortHistScanV = nFun((n, g) => fun(n.%s)(xs => xs |> rsHistScanW(sortVec, rsWalkVectors2, %d, n, g, "
                  "%d, %d, sortDig)))\n", kt, 2048 * 16 / ks, s->nd, s->r);
    sb_printf(&b, "kernel sortHistV = nFun((n, g) => fun(n.%s)(xs => xs |> rsHistogramW(sortVec, rsWalkVectors2, %d, n, g, "
                  "%d, %d, sortDig)))\n", kt, 2048 * 16 / ks, s->nd, s->r);
    sb_printf(&b, "kernel sortScan = nFun(np => fun((np * %d).u32)(h => h |> rsScanP(np, %d, %d)))\n", s->nd * s->r,
              s->nd, s->r);
    pass_text(&b, s, "sortPass", pass_tile, kt, words, "u32", false);
    for (int i = 0; i < s->nsteps; i++) {
        char name[24];
        pass_text(&b, s, step_name(name, i), s->step[i], kt, words, "u32", false);
    }
    pass_text(&b, s, "sortPassN", s->ptile, kt, words, "u64", true);
    if (s->pairs) {
        if (s->nd % 2)
            sb_printf(&b, "kernel sortCopy = nFun(n => fun(n.%s)(ks => fun(n.%s)(vs => zip(ks)(vs) |> mapGlobal(id) |> "
                          "unzip)))\n", kt, words);
        for (int i = 0; i < s->tiles->n; i++)
            sb_printf(&b, "kernel sortSmall%d = nFun(n => fun(n.%s)(ks => fun(n.%s)(vs => zip(ks)(vs) |> "
                          "rsSmallPairs(%d, %d, sortOrd))))\n", i, kt, words, s->tiles->t[i].nt, s->tiles->t[i].ipt);
    } else {
        if (s->nd % 2) sb_printf(&b, "kernel sortCopy = nFun(n => fun(n.%s)(xs => xs |> mapGlobal(id)))\n", kt);
        for (int i = 0; i < s->tiles->n; i++)
            sb_printf(&b, "kernel sortSmall%d = nFun(n => fun(n.%s)(xs => xs |> rsSmall(%d, %d, sortOrd)))\n", i, kt,
                      s->tiles->t[i].nt, s->tiles->t[i].ipt);
    }
    s->source = sb_take(&b);
    if (!s->source) {
        free(s);
        return rt_fail(ctx, PATC_ERR_NO_MEMORY, "out of memory");
    }
    s->next = ctx->sorters;
    if (ctx->sorters) ctx->sorters->prev = s;
    ctx->sorters = s;
    *out = s;
    return PATC_OK;
}

patc_status patc_sorter_create(patc_ctx *ctx, patc_type type, patc_sorter **out)
{
    patc_sort_spec sp = {.key_type = type};
    return patc_sorter_create_spec(ctx, &sp, out);
}

patc_status patc_sorter_create_pairs(patc_ctx *ctx, patc_type key_type, patc_type value_type, patc_sorter **out)
{
    patc_sort_spec sp = {.key_type = key_type, .values = 1, .value_type = value_type};
    return patc_sorter_create_spec(ctx, &sp, out);
}

const char *patc_sorter_source(const patc_sorter *s) { return s ? s->source : NULL; }

void patc_sorter_free(patc_sorter *s)
{
    if (!s) return;
    if (s->prev) s->prev->next = s->next;
    else s->ctx->sorters = s->next;
    if (s->next) s->next->prev = s->prev;
    patc_program_free(s->prog0);
    for (int i = 0; i < s->nkprog; i++) patc_program_free(s->kprog[i]);
    patc_buffer_free(s->tmp);
    patc_buffer_free(s->counts);
    free(s->source);
    free(s);
}

/* The sorter's kernels in one program without a cubin ([0]: the interpreter's, the
 * queries'), compiled on first use. */
static patc_status program0(patc_sorter *s)
{
    if (s->prog0) return PATC_OK;
    patc_compile_options o = {.no_cubin = 1, .bins_in_result = 1};
    patc_status st = rt_program_from_text(s->ctx, "<patc_sorter>", s->source, NULL, 0, &o, &s->prog0);
    if (st == PATC_OK) st = patc_get_kernel(s->prog0, "sortHistScan", &s->hscan[0]);
    if (st == PATC_OK) st = patc_get_kernel(s->prog0, "sortHist", &s->hist[0]);
    if (st == PATC_OK) st = patc_get_kernel(s->prog0, "sortPassN", &s->pass_n[0]);
    if (st == PATC_OK) st = patc_get_kernel(s->prog0, "sortScan", &s->scan[0]);
    if (st == PATC_OK) st = patc_get_kernel(s->prog0, "sortPass", &s->pass[0]);
    for (int i = 0; st == PATC_OK && i < s->nsteps; i++) {
        char name[24];
        st = patc_get_kernel(s->prog0, step_name(name, i), &s->pass_big[i][0]);
    }
    if (st == PATC_OK && s->nd % 2) st = patc_get_kernel(s->prog0, "sortCopy", &s->copy[0]);
    for (int i = 0; st == PATC_OK && i < s->tiles->n; i++) {
        char name[24];
        st = patc_get_kernel(s->prog0, small_name(name, i), &s->small[i][0]);
    }
    if (st != PATC_OK) {
        patc_program_free(s->prog0);
        s->prog0 = NULL;
    }
    return st;
}

/* The kernel `name` with a cubin into *k, on its first launch: a program of its own (the
 * sorter's text with patc_compile_options.kernel), so that a first sort waits for NVRTC
 * on the kernels it launches alone. The sorter of u32 keys as one text took 5.3 s of
 * nvcc -cubin here; its 1024 x 8 small sort alone 1.4 s, the histogram with its scan
 * 0.6 s, a pass 1.2 s. */
static patc_status kernel_cubin(patc_sorter *s, patc_kernel **k, const char *name, int min_blocks)
{
    if (*k) return PATC_OK;
    if (s->nkprog == KPROG_MAX) /* each slot compiles once: more would be a bug here */
        return rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sorter: more kernels than the sorter has");
    patc_compile_options o = {.kernel = name, .bins_in_result = 1, .min_blocks = min_blocks};
    patc_program *p = NULL;
    patc_status st = rt_program_from_text(s->ctx, "<patc_sorter>", s->source, NULL, 0, &o, &p);
    if (st == PATC_OK) st = patc_get_kernel(p, name, k);
    if (st != PATC_OK) {
        patc_program_free(p);
        *k = NULL;
        return st;
    }
    s->kprog[s->nkprog++] = p;
    return PATC_OK;
}

/* The histogram kernel, with a cubin (compiled now where it was not), for keys from byte
 * off of src: one portion's with its scan (np1), or a portion's in portions. Where the
 * keys start at a multiple of 16 bytes, the form reading them in 16-byte vectors
 * (sortHistScanV, sortHistV); key by key elsewhere (the runtime refuses a vector
 * kernel's misaligned input), as for keys at an odd address of patc_sort_keys_ptr or a
 * portion of an odd length. On an H200 the vectors took the sort of 2^28 f32 keys from
 * 4287-4308 us to 4233-4238 (sorted), 4464-4480 to 4443-4457 (uniform) and 4631-4646 to
 * 4623-4640 (few), of u32 keys from 4172-4197 to 4153-4155 (sorted) and 4354-4374 to
 * 4354-4375 (uniform); at 2^16 to 2^24 keys within the runs' noise
 * (bench/results/2026-11-28-nvidia-h200-sort-stop65). */
static patc_status hist_kernel(patc_sorter *s, bool np1, const patc_buffer *src, size_t off, patc_kernel **k)
{
    static const char *const names[2][2] = {{"sortHist", "sortHistV"}, {"sortHistScan", "sortHistScanV"}};
    bool v = (src->ptr + off) % 16 == 0;
    patc_kernel **slot = np1 ? (v ? &s->hscanv : &s->hscan[1]) : (v ? &s->histv : &s->hist[1]);
    patc_status st = kernel_cubin(s, slot, names[np1][v], 0);
    *k = *slot;
    return st;
}

/* The pass kernel of a sort of n keys: that of the sorter's last step from n or fewer
 * keys, sortPass before the first step; in portions (n past one), sortPassN. With a
 * cubin (cubin 1), compiled now where it was not. */
static patc_status pass_for(patc_sorter *s, long long n, int cubin, patc_kernel **k)
{
    char step[24];
    const char *name = "sortPassN";
    patc_kernel **slot = &s->pass_n[cubin];
    const Tile *t = &s->ptile;
    if (n <= s->portion) {
        int i = s->nsteps;
        while (i > 0 && n < s->step_from[i - 1]) i--;
        slot = i > 0 ? &s->pass_big[i - 1][cubin] : &s->pass[cubin];
        name = i > 0 ? step_name(step, i - 1) : "sortPass";
        t = i > 0 ? &s->step[i - 1] : &pass_tile;
    }
    patc_status st = cubin ? kernel_cubin(s, slot, name, t->minb) : PATC_OK;
    *k = *slot;
    return st;
}

/* A tile's keys: nt * ipt */
static long long tile_keys(const Tile *t) { return (long long)t->nt * t->ipt; }
/* Whether n keys take the one launch of a sortSmallK: at most small_max, the last small
 * tile's keys. */
static bool small_sort(const patc_sorter *s, long long n) { return n <= tile_keys(&s->tiles->t[s->tiles->n - 1]); }

/* The one-launch kernel for n <= small_max keys: the first tile that holds n (compiled
 * now with a cubin, as pass_for). */
static patc_status small_for(patc_sorter *s, long long n, int cubin, patc_kernel **k)
{
    int i = 0;
    while (i < s->tiles->n - 1 && n > tile_keys(&s->tiles->t[i])) i++;
    char name[24];
    patc_status st = cubin ? kernel_cubin(s, &s->small[i][cubin], small_name(name, i), 0) : PATC_OK;
    *k = s->small[i][cubin];
    return st;
}

/* The histogram's grid: HIST_KEYS_PER_THREAD keys a thread or more, at most two blocks
 * of 1024 threads per SM (264 without a device: an H100's), at least one. */
static long long hist_grid(patc_sorter *s, long long n)
{
    int sms = patc_device_sm_count(s->ctx);
    long long most = 2LL * (sms > 0 ? sms : 132);
    long long g = (n + 1024LL * HIST_KEYS_PER_THREAD - 1) / (1024LL * HIST_KEYS_PER_THREAD);
    return g < 1 ? 1 : g > most ? most : g;
}

/* n in 1..MAX_KEYS: past a portion, the pass is a launch a portion (u64 offsets). */
static patc_status check_n(patc_sorter *s, const char *fn, long long n)
{
    if (n < 1) return rt_fail(s->ctx, PATC_ERR_INVALID, "%s: n must be at least 1 (n = %lld)", fn, n);
    if (n > MAX_KEYS) return rt_fail(s->ctx, PATC_ERR_SIZE, "%s: at most 2^40 keys; n = %lld", fn, n);
    return PATC_OK;
}

/* The portions of n keys: as few as the sorter's portion allows, of one length q (the
 * last one shorter by less than a key a portion), portion p from p*q. Equal lengths,
 * because a launch of T tiles after a longer one clears the longer one's look-back words
 * past its own (ms_sweep): with portions of 2^28 keys and a last one of the rest, a sort
 * of 2^28 + 1 u32 keys had a one-tile launch clear 26 MB alone each pass, and took 7.8
 * ms against 6.0 for 2^28 keys and CUB's 6.4 (one H100,
 * bench/results/2026-11-27-nvidia-h100-sort-chain). */
static long long portion_q(const patc_sorter *s, long long n)
{
    long long np = (n + s->portion - 1) / s->portion;
    return (n + np - 1) / np;
}
static long long portions(const patc_sorter *s, long long n)
{
    long long q = portion_q(s, n);
    return (n + q - 1) / q;
}
static long long portion_len(const patc_sorter *s, long long n, long long p)
{
    long long q = portion_q(s, n), rest = n - p * q;
    return rest < q ? rest : q;
}

/* The scratch bytes of kernel k at these nats (what rt_launch.c allocates). */
static patc_status scratch_bytes(patc_kernel *k, const long long *nats, size_t *sum)
{
    patc_status st = rt_bind_nats(k, nats);
    for (int i = 0; st == PATC_OK && i < k->d->nscratch; i++) {
        size_t b = 0;
        st = rt_buffer_info(k, &k->d->scratch[i], "a scratch buffer", NULL, NULL, &b);
        *sum += b;
    }
    return st;
}

/* n elements of sz bytes rounded up to 256: the sorter's second buffer of keys, and of
 * values after it for pairs (tmp_need(s, n) in all). */
static size_t half_bytes(long long n, int sz) { return ((size_t)n * (size_t)sz + 255) / 256 * 256; }
static size_t tmp_need(const patc_sorter *s, long long n) { return half_bytes(n, s->ks) + half_bytes(n, s->vs); }
/* One portion's offsets (nd*r u32, sortHistScan's result); np > 1 portions' histograms
 * (nd*r u32 each, rounded up to 256 bytes), then np + 1 rows of offsets (nd*r u64 each:
 * rsScanP's np, and the row the last portion's launch writes its next offsets to) */
static size_t hist_bytes(const patc_sorter *s, long long np) { return half_bytes(np * s->nd * s->r, 4); }
static size_t counts_bytes(const patc_sorter *s, long long np)
{
    return hist_bytes(s, np) + (np > 1 ? (size_t)(np + 1) * s->nd * s->r * 8 : 0);
}

patc_status patc_sorter_temp_bytes(patc_sorter *s, long long n, size_t *bytes)
{
    if (!s || !bytes) return s ? rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sorter_temp_bytes: a NULL argument") : PATC_ERR_INVALID;
    patc_status st = check_n(s, "patc_sorter_temp_bytes", n);
    /* the scratch of the program without a cubin's kernels: the same kernels' */
    if (st == PATC_OK) st = program0(s);
    if (st != PATC_OK) return st;
    patc_kernel *k;
    if (small_sort(s, n)) { /* the one launch: no second buffer, no counts; its scratch (none) */
        size_t sum = 0;
        long long pn[1] = {n};
        if ((st = small_for(s, n, 0, &k)) != PATC_OK || (st = scratch_bytes(k, pn, &sum)) != PATC_OK) return st;
        *bytes = sum;
        return PATC_OK;
    }
    /* the kernels' scratch is that of their longest launch: the first portion's */
    long long n0 = portion_len(s, n, 0), hn[2] = {n0, hist_grid(s, n0)}, pn[2] = {n0, n};
    size_t sum = tmp_need(s, n) + counts_bytes(s, portions(s, n));
    patc_kernel *h = portions(s, n) > 1 ? s->hist[0] : s->hscan[0];
    if ((st = scratch_bytes(h, hn, &sum)) != PATC_OK || (st = pass_for(s, n, 0, &k)) != PATC_OK ||
        (st = scratch_bytes(k, pn, &sum)) != PATC_OK)
        return st;
    *bytes = sum;
    return PATC_OK;
}

static bool overlap(const patc_buffer *a, size_t na, const patc_buffer *b, size_t nb)
{
    return a->ptr < b->ptr + nb && b->ptr < a->ptr + na;
}

/* The temporary buffers for n keys: grown (freed and allocated again) when too small. */
static patc_status temp_for(patc_sorter *s, long long n)
{
    patc_status st;
    size_t need = tmp_need(s, n), cb = counts_bytes(s, portions(s, n));
    if (!s->counts || s->counts_bytes < cb) {
        patc_buffer_free(s->counts);
        s->counts = NULL;
        s->counts_bytes = 0;
        if ((st = patc_buffer_alloc(s->ctx, cb, &s->counts)) != PATC_OK) return st;
        s->counts_bytes = cb;
    }
    if (s->tmp && s->tmp_bytes >= need) return PATC_OK;
    patc_buffer_free(s->tmp);
    s->tmp = NULL;
    s->tmp_bytes = 0;
    if ((st = patc_buffer_alloc(s->ctx, need, &s->tmp)) != PATC_OK) return st;
    s->tmp_bytes = need;
    return PATC_OK;
}

/* A pairs call on a keys sorter, or a keys call on a pairs sorter: refused. */
static patc_status check_kind(patc_sorter *s, const char *fn, bool pairs)
{
    if (s->pairs == pairs) return PATC_OK;
    return rt_fail(s->ctx, PATC_ERR_INVALID, "%s: this sorter sorts %s (made by %s)", fn,
                   s->pairs ? "key-value pairs" : "keys alone",
                   s->pairs ? "patc_sorter_create_pairs; call patc_sort_pairs" : "patc_sorter_create; call patc_sort_keys");
}

/* The arguments of a device sort: buffers of this context, n keys (values) long,
 * aligned to a key (value); each input and its output one buffer (in place) or not
 * overlapping, and no other two overlapping. */
static patc_status check_bufs(patc_sorter *s, const char *fn, patc_buffer *const *b, int nbufs, long long n)
{
    patc_ctx *c = s->ctx;
    static const char *const what[4] = {"key input", "key output", "value input", "value output"};
    size_t nb[4];
    for (int i = 0; i < nbufs; i++) {
        int sz = i < 2 ? s->ks : s->vs;
        nb[i] = (size_t)n * (size_t)sz;
        if (!b[i]) return rt_fail(c, PATC_ERR_INVALID, "%s: no %s buffer", fn, what[i]);
        if (b[i]->ctx != c) return rt_fail(c, PATC_ERR_INVALID, "%s: a buffer of another context", fn);
        if (b[i]->bytes < nb[i])
            return rt_fail(c, PATC_ERR_SIZE, "%s: the %s has %zu bytes, %lld elements of %s need %zu", fn, what[i],
                           b[i]->bytes, n, patc_type_name(i < 2 ? s->type : s->vtype), nb[i]);
        if (b[i]->ptr % (RtDevPtr)sz)
            return rt_fail(c, PATC_ERR_INVALID, "%s: the %s is not aligned to %d bytes", fn, what[i], sz);
    }
    for (int i = 0; i < nbufs; i++)
        for (int j = i + 1; j < nbufs; j++)
            if (!(j == i + 1 && i % 2 == 0 && b[i]->ptr == b[j]->ptr) && overlap(b[i], nb[i], b[j], nb[j]))
                return rt_fail(c, PATC_ERR_INVALID, "%s: the %s and the %s overlap (give an input and its output as one "
                               "buffer to sort in place)", fn, what[i], what[j]);
    return PATC_OK;
}

/* Where pass d writes (0: the output, 1: the sorter's second buffer): the last pass
 * the output, the others alternating back from it, so that a pass never reads what it
 * writes. Pass 0 reads the input, so for an in-place sort (in == out) it must not write
 * the output either: with an odd number of passes the chain then starts in the second
 * buffer and ends there, and sortCopy moves the result to the output (copy_back; the
 * program has sortCopy only for an odd number of passes). */
static int pass_dst(const patc_sorter *s, int d, bool in_place)
{
    int to_out = (s->nd - 1 - d) % 2 == 0;
    if (in_place && s->nd % 2) to_out = !to_out;
    return to_out ? 0 : 1;
}
static bool copy_back(const patc_sorter *s, bool in_place) { return in_place && s->nd % 2; }

/* A view of bytes bytes at byte off of buffer b (a portion of it), never on a list */
static struct patc_buffer view(const patc_buffer *b, size_t off, size_t bytes)
{
    return (struct patc_buffer){.ctx = b->ctx, .ptr = b->ptr + off, .bytes = bytes, .wrapped = true};
}

/* The offsets of the keys as they are in src, once a sort (the keys' counts are the
 * same in every pass, whatever their order). One portion: sortHistScan, the histogram
 * and its scan in one launch, into hall (every digit's u32 offsets). In portions: the
 * histogram of each portion (into its row of hall), then rsScanP over them all (oall:
 * each portion's u64 offsets of every digit; the passes read portion 0's, and each
 * portion's launch writes the next portion's row of its digit). Their kernels are
 * compiled (kernels_for). */
static patc_status offsets_dev(patc_sorter *s, patc_buffer *src, long long n, patc_buffer *hall, patc_buffer *oall)
{
    patc_status st;
    patc_kernel *k;
    long long np = portions(s, n);
    size_t ks = (size_t)s->ks, row = (size_t)s->nd * (size_t)s->r;
    if (np == 1) {
        long long hn[2] = {n, hist_grid(s, n)};
        patc_buffer *hout[1] = {hall};
        if ((st = hist_kernel(s, true, src, 0, &k)) != PATC_OK) return st;
        return patc_launch_args_enqueue(k, hn, (patc_arg[]){{src, NULL}}, hout, NULL);
    }
    for (long long p = 0; p < np; p++) {
        long long m = portion_len(s, n, p), hn[2] = {m, hist_grid(s, m)};
        size_t off = (size_t)(p * portion_q(s, n)) * ks;
        struct patc_buffer kin = view(src, off, (size_t)m * ks), h = view(hall, (size_t)p * row * 4, row * 4);
        patc_buffer *hout[1] = {&h};
        if ((st = hist_kernel(s, false, src, off, &k)) != PATC_OK ||
            (st = patc_launch_args_enqueue(k, hn, (patc_arg[]){{&kin, NULL}}, hout, NULL)) != PATC_OK)
            return st;
    }
    long long sn[1] = {np};
    patc_buffer *sout[1] = {oall};
    return patc_launch_args_enqueue(s->scan[1], sn, (patc_arg[]){{hall, NULL}}, sout, NULL);
}

/* The kernels with a cubin that a sort of n keys (more than small_max) from src
 * launches: the offsets' (offsets_dev: each portion's histogram, hist_kernel), the pass
 * (into *pass) and sortCopy where the sort copies back, each compiled now where it was
 * not, before the first launch, so that a compile that fails leaves nothing enqueued. */
static patc_status kernels_for(patc_sorter *s, const patc_buffer *src, long long n, bool in_place, patc_kernel **pass)
{
    long long np = portions(s, n);
    bool np1 = np == 1;
    patc_kernel *h;
    patc_status st = pass_for(s, n, 1, pass);
    for (long long p = 0; st == PATC_OK && p < np; p++)
        st = hist_kernel(s, np1, src, (size_t)(p * portion_q(s, n)) * (size_t)s->ks, &h);
    if (st == PATC_OK && !np1) st = kernel_cubin(s, &s->scan[1], "sortScan", 0);
    if (st == PATC_OK && copy_back(s, in_place)) st = kernel_cubin(s, &s->copy[1], "sortCopy", 0);
    return st;
}

/* The launches: the offsets (offsets_dev: a histogram a portion and their scan), then
 * the nd passes (pass_dst), each a launch a portion: portion p of the keys read, placed
 * among all n (multisplitToNext) by the offsets of digit d in oall's row p, which the
 * launch of portion p - 1 wrote (rsScanP for p = 0), and the next portion's written to
 * row p + 1. The input is only read by the first, the values (vin, vout
 * non-NULL for pairs) go alongside through the second half of tmp. For a small sort
 * (small_sort), one launch of a sortSmallK (small_for) in -> out instead, no temporary
 * memory (one block reads all of its tile into shared memory before it writes any of
 * it, so in place is the same launch). */
static patc_status sort_dev(patc_sorter *s, patc_buffer *in, patc_buffer *out, patc_buffer *vin, patc_buffer *vout,
                            long long n, void *stream)
{
    patc_ctx *c = s->ctx;
    patc_status st;
    patc_kernel *k;
    if ((st = rt_need_device(c)) != PATC_OK) return st;
    if (small_sort(s, n)) {
        long long pn[1] = {n};
        if ((st = small_for(s, n, 1, &k)) != PATC_OK) return st;
        patc_set_stream(c, stream);
        patc_buffer *sout[2] = {out, vout};
        return patc_launch_args_enqueue(k, pn, (patc_arg[]){{in, NULL}, {vin, NULL}}, sout, NULL);
    }
    bool in_place = in->ptr == out->ptr;
    if ((st = kernels_for(s, in, n, in_place, &k)) != PATC_OK || (st = temp_for(s, n)) != PATC_OK) return st;
    patc_set_stream(c, stream);
    long long np = portions(s, n), P = portion_q(s, n);
    size_t ks = (size_t)s->ks, vs = (size_t)s->vs, row = (size_t)s->nd * (size_t)s->r;
    struct patc_buffer tk = view(s->tmp, 0, (size_t)n * ks), tv = view(s->tmp, half_bytes(n, s->ks), (size_t)n * vs);
    struct patc_buffer hall = view(s->counts, 0, (size_t)np * row * 4),
                       oall = view(s->counts, hist_bytes(s, np), np > 1 ? (size_t)(np + 1) * row * 8 : 0);
    patc_buffer *kb[2] = {out, &tk}, *vb[2] = {vout, &tv}, *ksrc = in, *vsrc = vin;
    if ((st = offsets_dev(s, in, n, &hall, &oall)) != PATC_OK) return st;
    for (int d = 0; d < s->nd; d++) {
        int to = pass_dst(s, d, in_place);
        unsigned du = (unsigned)d;
        for (long long p = 0; p < np; p++) {
            long long m = portion_len(s, n, p), pn[2] = {m, n};
            size_t dr = (size_t)d * (size_t)s->r, rb = (size_t)s->r * 8;
            struct patc_buffer o = np > 1 ? view(&oall, ((size_t)p * row + dr) * 8, rb) : view(&hall, dr * 4, rb / 2),
                               nx = view(&oall, ((size_t)(p + 1) * row + dr) * 8, rb),
                               kp = view(ksrc, (size_t)(p * P) * ks, (size_t)m * ks),
                               vp = vin ? view(vsrc, (size_t)(p * P) * vs, (size_t)m * vs) : kp;
            patc_arg args[4] = {{NULL, &du}, {&o, NULL}, {&kp, NULL}, {vin ? &vp : NULL, NULL}};
            patc_buffer *pout[3] = {kb[to], vin ? vb[to] : NULL, NULL}, *nout[3] = {&nx, kb[to], vin ? vb[to] : NULL};
            if ((st = patc_launch_args_enqueue(k, pn, args, np > 1 ? nout : pout, NULL)) != PATC_OK) return st;
        }
        ksrc = kb[to];
        vsrc = vb[to];
    }
    if (copy_back(s, in_place)) {
        long long cn[1] = {n};
        patc_buffer *cout[2] = {out, vout};
        st = patc_launch_args_enqueue(s->copy[1], cn, (patc_arg[]){{&tk, NULL}, {vin ? &tv : NULL, NULL}}, cout, NULL);
    }
    return st;
}

patc_status patc_sort_keys(patc_sorter *s, patc_buffer *in, patc_buffer *out, long long n, void *stream)
{
    if (!s) return PATC_ERR_INVALID;
    const char *fn = "patc_sort_keys";
    patc_status st = check_n(s, fn, n);
    if (st == PATC_OK) st = check_kind(s, fn, false);
    if (st == PATC_OK) st = check_bufs(s, fn, (patc_buffer *[]){in, out}, 2, n);
    return st == PATC_OK ? sort_dev(s, in, out, NULL, NULL, n, stream) : st;
}

patc_status patc_sort_pairs(patc_sorter *s, patc_buffer *keys_in, patc_buffer *keys_out, patc_buffer *values_in,
                            patc_buffer *values_out, long long n, void *stream)
{
    if (!s) return PATC_ERR_INVALID;
    const char *fn = "patc_sort_pairs";
    patc_status st = check_n(s, fn, n);
    if (st == PATC_OK) st = check_kind(s, fn, true);
    if (st == PATC_OK) st = check_bufs(s, fn, (patc_buffer *[]){keys_in, keys_out, values_in, values_out}, 4, n);
    return st == PATC_OK ? sort_dev(s, keys_in, keys_out, values_in, values_out, n, stream) : st;
}

patc_status patc_sort_keys_ptr(patc_sorter *s, unsigned long long in, unsigned long long out, long long n, void *stream)
{
    if (!s) return PATC_ERR_INVALID;
    patc_status st = check_n(s, "patc_sort_keys_ptr", n);
    if (st != PATC_OK) return st;
    if (!in || !out) return rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sort_keys_ptr: a NULL device address");
    size_t nb = (size_t)n * (size_t)s->ks;
    s->raw[0] = (struct patc_buffer){.ctx = s->ctx, .ptr = in, .bytes = nb, .wrapped = true};
    s->raw[1] = (struct patc_buffer){.ctx = s->ctx, .ptr = out, .bytes = nb, .wrapped = true};
    return patc_sort_keys(s, &s->raw[0], &s->raw[1], n, stream);
}

patc_status patc_sort_pairs_ptr(patc_sorter *s, unsigned long long keys_in, unsigned long long keys_out,
                                unsigned long long values_in, unsigned long long values_out, long long n, void *stream)
{
    if (!s) return PATC_ERR_INVALID;
    patc_status st = check_n(s, "patc_sort_pairs_ptr", n);
    if (st != PATC_OK) return st;
    unsigned long long p[4] = {keys_in, keys_out, values_in, values_out};
    for (int i = 0; i < 4; i++) {
        if (!p[i]) return rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sort_pairs_ptr: a NULL device address");
        size_t nb = (size_t)n * (size_t)(i < 2 ? s->ks : s->vs);
        s->raw[i] = (struct patc_buffer){.ctx = s->ctx, .ptr = p[i], .bytes = nb, .wrapped = true};
    }
    return patc_sort_pairs(s, &s->raw[0], &s->raw[1], &s->raw[2], &s->raw[3], n, stream);
}

/* The launches of sort_dev, interpreted, through arrays of the interpreter's own (so
 * that an input and its output may be one array); vin, vout NULL for keys alone. The
 * passes ping-pong between two copies; the small sort and the copy back have nothing
 * to do here that the interpreter would show differently, so the result is taken from
 * whichever array holds it. A portion's pass gives 0 at the places it does not fill
 * (multisplitTo in the interpreter), and the portions fill disjoint places, so each
 * portion's result (m[4], m[5]) is OR-ed into the pass's. */
static patc_status sort_cpu(patc_sorter *s, const void *in, void *out, const void *vin, void *vout, long long n)
{
    patc_status st;
    if ((st = program0(s)) != PATC_OK) return st;
    long long np = small_sort(s, n) ? 1 : portions(s, n), P = portion_q(s, n);
    size_t ks = (size_t)s->ks, vs = (size_t)s->vs, kb = (size_t)n * ks, vb = (size_t)n * vs;
    size_t row = (size_t)s->nd * (size_t)s->r;
    unsigned char *m[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    for (int i = 0; i < 6; i++) {
        bool key = i < 2 || i == 4;
        if (!key && !vin) continue;
        if (!(m[i] = lang_malloc(key ? kb : vb))) {
            for (int j = 0; j < 6; j++) free(m[j]);
            return rt_fail(s->ctx, PATC_ERR_NO_MEMORY, "out of memory");
        }
    }
    /* m[0], m[1]: the keys from and to; m[2], m[3]: the values; m[4], m[5]: a portion's */
    memcpy(m[0], in, kb);
    if (vin) memcpy(m[2], vin, vb);
    if (small_sort(s, n)) {
        long long pn[1] = {n};
        patc_kernel *k;
        (void)small_for(s, n, 0, &k); /* without a cubin: nothing to compile */
        st = patc_interp_run_outputs(k, pn, (const void *[]){m[0], m[2]}, (void *[]){m[1], m[3]});
        if (st == PATC_OK) {
            memcpy(out, m[1], kb);
            if (vin) memcpy(vout, m[3], vb);
        }
        for (int i = 0; i < 6; i++) free(m[i]);
        return st;
    }
    uint32_t *hist = lang_malloc((size_t)np * row * 4);
    uint64_t *offs = np > 1 ? lang_malloc((size_t)(np + 1) * row * 8) : NULL; /* in portions only */
    if (!hist || (np > 1 && !offs)) {
        free(hist);
        free(offs);
        for (int i = 0; i < 6; i++) free(m[i]);
        return rt_fail(s->ctx, PATC_ERR_NO_MEMORY, "out of memory");
    }
    long long sn[1] = {np}, hn1[2] = {n, hist_grid(s, n)};
    uint32_t *offs1 = hist; /* one portion: sortHistScan's u32 offsets */
    patc_kernel *pk;
    (void)pass_for(s, n, 0, &pk);
    if (np == 1) st = patc_interp_run(s->hscan[0], hn1, (const void *[]){m[0]}, offs1);
    for (long long p = 0; np > 1 && p < np && st == PATC_OK; p++) {
        long long len = portion_len(s, n, p), hn[2] = {len, hist_grid(s, len)};
        st = patc_interp_run(s->hist[0], hn, (const void *[]){m[0] + (size_t)(p * P) * ks}, hist + (size_t)p * row);
    }
    if (np > 1 && st == PATC_OK) st = patc_interp_run(s->scan[0], sn, (const void *[]){hist}, offs);
    for (unsigned d = 0; d < (unsigned)s->nd && st == PATC_OK; d++) {
        memset(m[1], 0, kb);
        if (vin) memset(m[3], 0, vb);
        for (long long p = 0; p < np && st == PATC_OK; p++) {
            long long len = portion_len(s, n, p), pn[2] = {len, n};
            const void *od = np > 1 ? (const void *)(offs + (size_t)p * row + (size_t)s->r * d)
                                    : (const void *)(offs1 + (size_t)s->r * d);
            /* in portions, sortPassN's first output: the next portion's offsets of digit d */
            void *nx = np > 1 ? offs + (size_t)(p + 1) * row + (size_t)s->r * d : NULL;
            const unsigned char *kp = m[0] + (size_t)(p * P) * ks, *vp = vin ? m[2] + (size_t)(p * P) * vs : NULL;
            void *outs2[2] = {m[4], m[5]}, *outs3[3] = {nx, m[4], m[5]};
            st = patc_interp_run_outputs(pk, pn, vin ? (const void *[]){&d, od, kp, vp} : (const void *[]){&d, od, kp},
                                         np > 1 ? outs3 : outs2);
            for (size_t i = 0; i < kb && st == PATC_OK; i++) m[1][i] |= m[4][i];
            for (size_t i = 0; vin && i < vb && st == PATC_OK; i++) m[3][i] |= m[5][i];
        }
        for (int i = 0; i < 4; i += 2) {
            unsigned char *t = m[i];
            m[i] = m[i + 1];
            m[i + 1] = t;
        }
    }
    if (st == PATC_OK) {
        memcpy(out, m[0], kb);
        if (vin) memcpy(vout, m[2], vb);
    }
    free(hist);
    free(offs);
    for (int i = 0; i < 6; i++) free(m[i]);
    return st;
}

patc_status patc_sort_keys_cpu(patc_sorter *s, const void *in, void *out, long long n)
{
    if (!s) return PATC_ERR_INVALID;
    patc_status st = check_n(s, "patc_sort_keys_cpu", n);
    if (st == PATC_OK) st = check_kind(s, "patc_sort_keys_cpu", false);
    if (st != PATC_OK) return st;
    if (!in || !out) return rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sort_keys_cpu: a NULL array");
    return sort_cpu(s, in, out, NULL, NULL, n);
}

patc_status patc_sort_pairs_cpu(patc_sorter *s, const void *keys_in, void *keys_out, const void *values_in,
                                void *values_out, long long n)
{
    if (!s) return PATC_ERR_INVALID;
    patc_status st = check_n(s, "patc_sort_pairs_cpu", n);
    if (st == PATC_OK) st = check_kind(s, "patc_sort_pairs_cpu", true);
    if (st != PATC_OK) return st;
    if (!keys_in || !keys_out || !values_in || !values_out)
        return rt_fail(s->ctx, PATC_ERR_INVALID, "patc_sort_pairs_cpu: a NULL array");
    return sort_cpu(s, keys_in, keys_out, values_in, values_out, n);
}
