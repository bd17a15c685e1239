/* rt_embed_gen.c: builds the cubins that libpatrt embeds (rt_embed.c), at build time.
 *
 *   patc_embed_gen compile SHARD NSHARDS ARCH PART [CACHE_DIR]
 *       compiles every NSHARDS-th cubin of the built-in variants from the SHARD-th on
 *       (each shard walks them all, in the same order, and compiles its own share, so
 *       the shards take about the same time) and writes them, keyed, to the file PART;
 *   patc_embed_gen merge OUT.c PART...
 *       writes the C file of the table (rt_cubins.c) from the parts, one entry per key,
 *       each cubin packed against its base (rt_embed.c).
 *
 * The algorithms are the one-call forms' (patc_reduce, patc_inclusive_scan,
 * patc_exclusive_scan): the built-in operators SUM, MIN and MAX on each element type;
 * their variants are every one the built-in table can choose (rt_algo_builtin_lines:
 * both keys, aligned and not; a text that several lines choose is compiled once). Each
 * is made by the library's own code in a compile-only context (patc_algo_create,
 * variant_for); its texts are rt_program_build_source's for the builds a first call
 * makes (rt_embed_builds: build 0, PATC_INDEX32 defined where the index width is chosen
 * at launch, and build 1 where the kernel is 64-bit from the start) and its cubins
 * rt_nvrtc_compile's, with the options a call uses. With CACHE_DIR (the build
 * directory's, not the user's) a text compiled before is read from that cache, so a
 * rebuild after a change elsewhere compiles only what changed.
 *
 * Linked with patrt_internal, which carries no embedded table: nothing here is found
 * among the cubins it is making. */
#include "patc.h"
#include "rt_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const patc_algorithm ALGOS[] = {PATC_ALGO_REDUCE, PATC_ALGO_INCLUSIVE_SCAN, PATC_ALGO_EXCLUSIVE_SCAN};
static const patc_op OPS[] = {PATC_OP_SUM, PATC_OP_MIN, PATC_OP_MAX};
enum { NTYPES = PATC_U64 + 1 };

/* A part file is a sequence of records: the key (32 bytes), the text's length and the
 * cubin's (8 bytes each), where the cubin comes from (algorithm, type, operator and the
 * variant's place among the algorithm's, 4 bytes each; merge picks bases by them), then
 * the cubin. Numbers are in this machine's order: the same program reads them back. */
typedef struct Record {
    unsigned char key[32];
    uint64_t src_len, raw_len;
    int32_t alg, type, op, nth;
} Record;

typedef struct Shard {
    patc_ctx *ctx;
    FILE *out;
    const char *cache_dir;
    int arch, count;
    int shard, nshards, seq; /* seq: the builds met so far, every shard's */
    int alg, type, op, nth;  /* the algorithm being walked, and its variants so far */
    bool fresh;              /* the line being walked met a build not met before */
    unsigned char (*seen)[32]; /* the keys written so far */
    int nseen, capseen;
    size_t raw;
    double ms;
} Shard;

/* Build `variant` of k's program (named `name` to NVRTC, as the runtime names it),
 * compiled and written unless its text was written before. */
static patc_status emit_build(Shard *sh, patc_algo *a, const patc_tuning_line *l, patc_kernel *k, int variant,
                              const char *name)
{
    patc_ctx *c = sh->ctx;
    char *src = rt_program_build_source(k->prog, variant);
    if (!src) return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
    Record r = {.src_len = strlen(src), .alg = sh->alg, .type = sh->type, .op = sh->op, .nth = sh->nth};
    rt_embed_key(src, sh->arch, r.key);
    for (int i = 0; i < sh->nseen; i++)
        if (memcmp(sh->seen[i], r.key, 32) == 0) {
            free(src);
            return PATC_OK;
        }
    if (sh->nseen == sh->capseen) {
        unsigned char(*g)[32] = realloc(sh->seen, sizeof *g * (size_t)(sh->capseen ? 2 * sh->capseen : 64));
        if (!g) {
            free(src);
            return rt_fail(c, PATC_ERR_NO_MEMORY, "out of memory");
        }
        sh->seen = g;
        sh->capseen = sh->capseen ? 2 * sh->capseen : 64;
    }
    memcpy(sh->seen[sh->nseen++], r.key, 32);
    sh->fresh = true;
    if (sh->seq++ % sh->nshards != sh->shard) { /* another shard's */
        free(src);
        return PATC_OK;
    }
    void *cubin = NULL;
    size_t n = 0;
    char *log = NULL;
    RtBuildStats st;
    if (!rt_nvrtc_compile(src, name, sh->arch, sh->cache_dir, &cubin, &n, &log, &st)) {
        patc_status s = rt_fail(c, PATC_ERR_NVRTC, "%s (line %s, kernel %s, build %d): %s", patc_algo_source(a),
                                l->kernel, k->d->name, variant, log ? log : "nvrtc failed");
        free(log);
        free(src);
        return s;
    }
    sh->ms += st.ms;
    r.raw_len = n;
    patc_status s = PATC_OK;
    if (fwrite(&r, sizeof r, 1, sh->out) != 1 || fwrite(cubin, 1, n, sh->out) != n)
        s = rt_fail(c, PATC_ERR_IO, "cannot write a part file: %s", strerror(errno));
    sh->count++;
    sh->raw += n;
    free(cubin);
    free(src);
    return s;
}

/* One line: the builds its first call makes (rt_embed_builds). A variant's builds share
 * its place `nth` among the algorithm's variants (merge's kin). */
static patc_status emit(patc_algo *a, const patc_tuning_line *l, patc_kernel *k, void *user)
{
    Shard *sh = user;
    sh->fresh = false;
    unsigned builds = rt_embed_builds(k, l->n_min);
    patc_status s = PATC_OK;
    if (builds & 1) s = emit_build(sh, a, l, k, 0, k->prog->cuda_name);
    if (s == PATC_OK && (builds & 2)) {
        char name[300]; /* as rt_launch.c names the 64-bit build */
        snprintf(name, sizeof name, "%s (64-bit indices)", k->prog->cuda_name);
        s = emit_build(sh, a, l, k, 1, name);
    }
    if (sh->fresh) sh->nth++;
    return s;
}

static int compile_shard(int shard, int nshards, int arch, const char *part, const char *cache_dir)
{
    /* the table is the built-in one, whatever this shell's tuning file says, and the
     * index widths are a call's own (not forced to 64 bits for a test run) */
    unsetenv("PATC_TUNING");
    unsetenv("PATC_FORCE_INDEX64");
    patc_ctx *c;
    if (patc_create(&c, 0, PATC_COMPILE_ONLY | PATC_NO_CACHE) != PATC_OK) {
        fprintf(stderr, "patc_embed_gen: cannot create a context\n");
        return 1;
    }
    Shard sh = {.ctx = c, .cache_dir = cache_dir, .arch = arch, .shard = shard, .nshards = nshards};
    int rc = 0;
    double t0 = rt_now_ms();
    if (patc_set_arch(c, arch) != PATC_OK || !(sh.out = fopen(part, "wb"))) {
        fprintf(stderr, "patc_embed_gen: cannot write %s: %s\n", part, strerror(errno));
        patc_destroy(c);
        return 1;
    }
    for (size_t i = 0; i < sizeof ALGOS / sizeof *ALGOS && !rc; i++)
        for (int t = 0; t < NTYPES && !rc; t++)
            for (size_t o = 0; o < sizeof OPS / sizeof *OPS && !rc; o++) {
                patc_algo_spec spec = {.algorithm = ALGOS[i], .type = (patc_type)t, .op = OPS[o]};
                sh.alg = (int)ALGOS[i];
                sh.type = t;
                sh.op = (int)OPS[o];
                sh.nth = 0;
                patc_algo *a;
                patc_status s = patc_algo_create(c, &spec, &a);
                if (s == PATC_OK) s = rt_algo_builtin_lines(a, emit, &sh);
                if (s != PATC_OK) {
                    fprintf(stderr, "patc_embed_gen: %s\n", patc_last_error(c));
                    rc = 1;
                }
                patc_algo_free(a);
            }
    if (fclose(sh.out) != 0 && !rc) {
        fprintf(stderr, "patc_embed_gen: cannot write %s: %s\n", part, strerror(errno));
        rc = 1;
    }
    if (rc) remove(part);
    else
        printf("patc_embed_gen: shard %d/%d: %d cubins for sm_%d, %zu bytes, %.0f ms (compiles %.0f ms)\n", shard,
               nshards, sh.count, arch, sh.raw, rt_now_ms() - t0, sh.ms);
    free(sh.seen);
    patc_destroy(c);
    return rc;
}

/* The packed bytes as a C string literal, 32 to a line: printable characters as they are,
 * the others as three-digit octal escapes (so a following digit is never read into one). */
static void put_literal(FILE *f, const unsigned char *d, size_t n)
{
    fputs("    \"", f);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = d[i];
        if (i && i % 32 == 0) fputs("\"\n    \"", f);
        if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\' && ch != '?') fputc(ch, f);
        else fprintf(f, "\\%03o", ch);
    }
    fputs("\"", f);
}

typedef struct Entry {
    Record r;
    unsigned char *raw, *packed;
    size_t len;
    int base;
} Entry;

enum { MAX_CHAIN = 4 }; /* bases of bases: at most rt_embed.c's MAX_DEPTH */

/* The variants that may be close kin: the same family (the reduction, or either scan),
 * width and place in the algorithm's variants, so the same kernel and -D values. */
static bool kin(const Record *a, const Record *b)
{
    return (a->alg == PATC_ALGO_REDUCE) == (b->alg == PATC_ALGO_REDUCE) &&
           patc_type_size((patc_type)a->type) == patc_type_size((patc_type)b->type) && a->nth == b->nth;
}

/* Rule: entry i is packed against whichever earlier kin packs it smallest (or alone when
 * none does better), among those at most MAX_CHAIN - 1 bases deep, so a lookup unpacks
 * at most MAX_CHAIN cubins. Measured on the 297 cubins of CUDA 13: 11.3 MB raw, 4.4 MB
 * each packed alone, 2.5 MB each against a fixed base (the sum's for a min or max),
 * 1.2 MB thus (docs/internals.md). */
static bool pack_entry(Entry *e, int i, int *depth)
{
    Entry *x = &e[i];
    x->base = -1;
    depth[i] = 0;
    if (!(x->packed = rt_embed_pack(NULL, 0, x->raw, x->r.raw_len, &x->len))) return false;
    for (int j = 0; j < i; j++) {
        if (!kin(&e[j].r, &x->r) || depth[j] >= MAX_CHAIN - 1) continue;
        size_t len;
        unsigned char *p = rt_embed_pack(e[j].raw, e[j].r.raw_len, x->raw, x->r.raw_len, &len);
        if (!p) return false;
        if (len < x->len) {
            free(x->packed);
            x->packed = p;
            x->len = len;
            x->base = j;
            depth[i] = depth[j] + 1;
        } else {
            free(p);
        }
    }
    return true;
}

static int merge(const char *out, int nparts, char **parts)
{
    Entry *e = NULL;
    int n = 0, cap = 0, rc = 0;
    size_t raw = 0, packed = 0;
    double t0 = rt_now_ms();
    for (int p = 0; p < nparts && !rc; p++) {
        FILE *f = fopen(parts[p], "rb");
        if (!f) {
            fprintf(stderr, "patc_embed_gen: cannot read %s: %s\n", parts[p], strerror(errno));
            rc = 1;
            break;
        }
        Entry x = {.base = -1};
        while (fread(&x.r, sizeof x.r, 1, f) == 1) {
            if (!(x.raw = malloc(x.r.raw_len ? x.r.raw_len : 1)) || fread(x.raw, 1, x.r.raw_len, f) != x.r.raw_len) {
                fprintf(stderr, "patc_embed_gen: %s is truncated\n", parts[p]);
                free(x.raw);
                rc = 1;
                break;
            }
            bool dup = false;
            for (int i = 0; i < n && !dup; i++) dup = memcmp(e[i].r.key, x.r.key, 32) == 0;
            if (dup) {
                free(x.raw);
                continue;
            }
            if (n == cap) {
                Entry *g = realloc(e, sizeof *e * (size_t)(cap = cap ? 2 * cap : 64));
                if (!g) {
                    free(x.raw);
                    rc = 1;
                    break;
                }
                e = g;
            }
            e[n++] = x;
        }
        fclose(f);
    }
    int *depth = malloc(sizeof *depth * (size_t)(n ? n : 1));
    if (!depth) rc = 1;
    for (int i = 0; i < n && !rc; i++) {
        unsigned char *check = malloc(e[i].r.raw_len ? e[i].r.raw_len : 1);
        if (!check || !pack_entry(e, i, depth)) {
            fprintf(stderr, "patc_embed_gen: out of memory\n");
            rc = 1;
        } else if (!rt_embed_unpack(e[i].base >= 0 ? e[e[i].base].raw : NULL,
                                    e[i].base >= 0 ? e[e[i].base].r.raw_len : 0, e[i].packed, e[i].len, check,
                                    e[i].r.raw_len) ||
                   memcmp(check, e[i].raw, e[i].r.raw_len) != 0) {
            fprintf(stderr, "patc_embed_gen: a packed cubin does not unpack to itself\n");
            rc = 1;
        }
        free(check);
        raw += e[i].r.raw_len;
        packed += e[i].len;
    }
    free(depth);
    FILE *f = rc ? NULL : fopen(out, "w");
    if (!rc && !f) {
        fprintf(stderr, "patc_embed_gen: cannot write %s: %s\n", out, strerror(errno));
        rc = 1;
    }
    if (f) {
        fprintf(f, "/* rt_cubins.c: generated by patc_embed_gen (runtime/rt_embed_gen.c) from the library's own\n"
                   " * code at build time; never edited, never committed. %d cubins, %zu bytes packed to %zu. */\n"
                   "#include \"rt_internal.h\"\n\n",
                n, raw, packed);
        for (int i = 0; i < n; i++) {
            fprintf(f, "static const unsigned char cubin%d[%zu] =\n", i, e[i].len);
            put_literal(f, e[i].packed, e[i].len);
            fputs(";\n", f);
        }
        fprintf(f, "\nconst RtEmbeddedCubin rt_embedded_cubins[%d] = {\n", n ? n : 1);
        if (n == 0) fputs("    {{0}, 0, -1, 0, 0, 0},\n", f); /* C11 has no empty initialiser */
        for (int i = 0; i < n; i++) {
            fputs("    {{", f);
            for (int j = 0; j < 32; j++) fprintf(f, "%s%u", j ? "," : "", e[i].r.key[j]);
            fprintf(f, "}, %llu, %d, cubin%d, %zu, %llu},\n", (unsigned long long)e[i].r.src_len, e[i].base, i,
                    e[i].len, (unsigned long long)e[i].r.raw_len);
        }
        fprintf(f, "};\nconst int rt_nembedded_cubins = %d;\n", n);
        if (fclose(f) != 0) {
            fprintf(stderr, "patc_embed_gen: cannot write %s: %s\n", out, strerror(errno));
            rc = 1;
        }
        if (rc) remove(out);
        else printf("patc_embed_gen: %s: %d cubins, %zu bytes packed to %zu, %.0f ms\n", out, n, raw, packed,
                    rt_now_ms() - t0);
    }
    for (int i = 0; i < n; i++) {
        free(e[i].raw);
        free(e[i].packed);
    }
    free(e);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 6 && argc <= 7 && strcmp(argv[1], "compile") == 0) {
        int shard = atoi(argv[2]), nshards = atoi(argv[3]), arch = atoi(argv[4]);
        if (nshards >= 1 && shard >= 0 && shard < nshards && arch > 0)
            return compile_shard(shard, nshards, arch, argv[5], argc == 7 ? argv[6] : NULL);
    }
    if (argc >= 3 && strcmp(argv[1], "merge") == 0) return merge(argv[2], argc - 3, argv + 3);
    fprintf(stderr, "usage: patc_embed_gen compile SHARD NSHARDS ARCH PART [CACHE_DIR]\n"
                    "       patc_embed_gen merge OUT.c PART...\n");
    return 2;
}
