/* rt_embed.c: the cubins built into libpatrt, looked up by the text they were compiled
 * from.
 *
 * At build time rt_embed_gen.c compiles each built-in variant of the ready-made calls
 * (reduce and the scans, the built-in operators, every element type) for sm_90 through
 * rt_program_build_source and rt_nvrtc_compile, and writes rt_cubins.c: per cubin the
 * key of its text (rt_embed_key), the text's length and the cubin packed. A call's
 * first build looks its text up here before NVRTC is loaded (rt_program_build): a hit
 * costs a hash and an unpack, well under a millisecond, where loading NVRTC and
 * compiling costs 30 ms or more.
 *
 * The key is made from the text itself, the options and patc's version, so only a text
 * that this very library emits, compiled as this library would compile it, can match:
 * another patc, another option, a user's include directory with its own scan.rise each
 * change the text or the key. NVRTC's identity (the disk cache's key) is left out:
 * knowing it would mean finding NVRTC; the cubin is the build toolkit's NVRTC's.
 *
 * Packing: cubins are ELF files with long runs of zeros and repeated instruction words,
 * and the variants of one kernel differ by an operator or an element type in a few
 * instructions. A small LZ77 coder (no new dependency) packs each cubin alone or after
 * a base, another entry whose bytes its matches may copy: the sum's cubin for the min
 * and max of the same variant and type, the f32 (f64) one for the other 4-byte (8-byte)
 * types, the inclusive scan's for the exclusive scan's. docs/internals.md has the sizes.
 * The format is a sequence of
 *   0LLLLLLL [n]          literal bytes follow: L+1 of them (L < 127), or 128 + n
 *   1MMMMMMM [n] off      copy M+4 bytes (M < 127), or 131 + n, from `off` bytes back,
 *                         counting back through the output and then the base's bytes
 * where n and off are unsigned LEB128 numbers (7 bits a byte, low first).
 */
#include "rt_internal.h"
#include "../lang/lang.h" /* PATC_VERSION */

#include <stdlib.h>
#include <string.h>

/* What stands in the key for the NVRTC identity: a key of the disk cache never equals
 * an embedded one. */
static const char EMBED_MARK[] = "cubin built into libpatrt";

void rt_embed_key(const char *src, int arch, unsigned char key[32])
{
    char archopt[48], hex[65];
    const char *opts[RT_NVRTC_MAX_OPTIONS];
    int nopts = rt_nvrtc_options(arch, archopt, opts);
    rt_cache_key(PATC_VERSION, EMBED_MARK, arch, opts, nopts, src, hex);
    for (int i = 0; i < 32; i++) {
        int hi = hex[2 * i] <= '9' ? hex[2 * i] - '0' : hex[2 * i] - 'a' + 10;
        int lo = hex[2 * i + 1] <= '9' ? hex[2 * i + 1] - '0' : hex[2 * i + 1] - 'a' + 10;
        key[i] = (unsigned char)(hi << 4 | lo);
    }
}

enum { MAX_DEPTH = 8 }; /* bases of bases, at most (rt_embed_gen.c makes 3) */

static unsigned char *unpack_entry(const RtEmbeddedCubin *t, int n, int i, int depth, size_t *len)
{
    if (i < 0 || i >= n || depth > MAX_DEPTH) return NULL;
    const RtEmbeddedCubin *e = &t[i];
    unsigned char *base = NULL, *out;
    size_t base_len = 0;
    if (e->base >= 0 && !(base = unpack_entry(t, n, e->base, depth + 1, &base_len))) return NULL;
    if ((out = lang_malloc(e->raw_len ? e->raw_len : 1)) && !rt_embed_unpack(base, base_len, e->data, e->len, out, e->raw_len)) {
        free(out);
        out = NULL;
    }
    free(base);
    *len = e->raw_len;
    return out;
}

unsigned char *rt_embed_unpack_entry(const RtEmbeddedCubin *table, int n, int i)
{
    size_t len;
    return unpack_entry(table, n, i, 0, &len);
}

/* Rule: the text is hashed only when some entry's text has its length, so a program
 * that is not a ready-made call pays a strlen and a scan of the lengths. The table
 * holds cubins for one arch (sm_90): any other arch's key simply matches none. A damaged
 * entry (never in a sound build) is no hit: the text is compiled instead. */
bool rt_embed_find(const char *src, int arch, void **cubin, size_t *cubin_len)
{
    *cubin = NULL;
    *cubin_len = 0;
    if (!&rt_nembedded_cubins || !rt_embedded_cubins) return false;
    size_t len = strlen(src);
    unsigned char key[32];
    bool hashed = false;
    for (int i = 0; i < rt_nembedded_cubins; i++) {
        const RtEmbeddedCubin *e = &rt_embedded_cubins[i];
        if (e->src_len != len) continue;
        if (!hashed) rt_embed_key(src, arch, key);
        hashed = true;
        if (memcmp(e->key, key, 32) != 0) continue;
        if (!(*cubin = rt_embed_unpack_entry(rt_embedded_cubins, rt_nembedded_cubins, i))) return false;
        *cubin_len = e->raw_len;
        return true;
    }
    return false;
}

/* Rule: a call's first build is build 0 (made with the program); a kernel sized at
 * launch runs build 1 when its index bound passes 2^31, which for some kernels holds at
 * every n (a bound with a constant of 2^31 in it: the i32 max's neutral element), so
 * their first call makes build 1 as well. A grid nat counts one block here: the bound
 * grows with it, and the built-in lines' least sizes are far below 2^31. */
unsigned rt_embed_builds(patc_kernel *k, long long n)
{
    long long nats[8];
    int nn = patc_kernel_num_nats(k);
    if (nn > 8) return 1;
    for (int i = 0; i < nn; i++) nats[i] = strcmp(patc_kernel_nat_name(k, i), "n") == 0 ? n : 1;
    return k->d->launches[rt_npre(k)].iw == IW_LAUNCH && patc_kernel_index_bits(k, nats) == 64 ? 3 : 1;
}

enum { MIN_MATCH = 4, SHORT = 127, HASH_BITS = 16, CHAIN = 256 };

static unsigned hash4(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return (v * 2654435761u) >> (32 - HASH_BITS);
}

static size_t put_uleb(unsigned char *out, size_t o, size_t v)
{
    do {
        out[o++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return o;
}

static bool get_uleb(const unsigned char *in, size_t len, size_t *i, size_t *v)
{
    *v = 0;
    for (int shift = 0; *i < len && shift < 63; shift += 7) {
        unsigned char b = in[(*i)++];
        *v |= (size_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return true;
    }
    return false;
}

static size_t put_literals(unsigned char *out, size_t o, const unsigned char *from, size_t n)
{
    if (!n) return o;
    if (n <= SHORT) out[o++] = (unsigned char)(n - 1);
    else o = put_uleb(out, (out[o] = SHORT, o + 1), n - SHORT - 1);
    memcpy(out + o, from, n);
    return o + n;
}

/* The longest match for position i of buf (the base, then the input) among the chain
 * of earlier positions with its hash; *off its distance. */
static size_t longest(const unsigned char *buf, size_t end, size_t i, const int *head, const int *prev, size_t *off)
{
    size_t best = 0;
    if (i + MIN_MATCH > end) return 0;
    int c = head[hash4(buf + i)];
    for (int depth = 0; c >= 0 && depth < CHAIN; depth++, c = prev[c]) {
        size_t m = 0, max = end - i;
        while (m < max && buf[(size_t)c + m] == buf[i + m]) m++;
        if (m > best) {
            best = m;
            *off = i - (size_t)c;
            if (m == max) break;
        }
    }
    return best;
}

static void insert(const unsigned char *buf, size_t end, size_t j, int *head, int *prev)
{
    if (j + MIN_MATCH > end) return;
    unsigned h = hash4(buf + j);
    prev[j] = head[h];
    head[h] = (int)j;
}

/* Greedy LZ77 with one step of lazy matching and hash chains over everything before
 * (the base whole, then the input so far), CHAIN candidates a position: run once per
 * cubin at build time, so thoroughness beats speed. */
unsigned char *rt_embed_pack(const unsigned char *base, size_t base_len, const unsigned char *in, size_t len,
                             size_t *out_len)
{
    size_t end = base_len + len, cap = len + len / SHORT + 16, o = 0, lit = 0;
    unsigned char *buf = lang_malloc(end ? end : 1), *out = lang_malloc(cap);
    int *head = lang_malloc(sizeof(int) << HASH_BITS), *prev = lang_malloc(sizeof(int) * (end ? end : 1));
    if (!buf || !out || !head || !prev || end > (size_t)INT32_MAX) {
        free(buf);
        free(out);
        free(head);
        free(prev);
        return NULL;
    }
    if (base_len) memcpy(buf, base, base_len);
    memcpy(buf + base_len, in, len);
    for (size_t h = 0; h < (size_t)1 << HASH_BITS; h++) head[h] = -1;
    for (size_t j = 0; j < base_len; j++) insert(buf, end, j, head, prev);
    size_t i = base_len;
    while (i < end) {
        size_t off = 0, off2 = 0, best = longest(buf, end, i, head, prev, &off);
        if (best >= MIN_MATCH && i + 1 < end) { /* lazy: a longer match one byte on wins */
            insert(buf, end, i, head, prev);
            size_t next = longest(buf, end, i + 1, head, prev, &off2);
            if (next > best + 1) {
                lit++;
                i++;
                best = next;
                off = off2;
                insert(buf, end, i, head, prev);
            }
        } else {
            insert(buf, end, i, head, prev);
        }
        if (best < MIN_MATCH) {
            lit++;
            i++;
            continue;
        }
        o = put_literals(out, o, buf + i - lit, lit);
        lit = 0;
        size_t m = best - MIN_MATCH;
        if (m < SHORT) out[o++] = (unsigned char)(0x80 | m);
        else o = put_uleb(out, (out[o] = 0x80 | SHORT, o + 1), m - SHORT);
        o = put_uleb(out, o, off);
        for (size_t j = i + 1; j < i + best; j++) insert(buf, end, j, head, prev);
        i += best;
    }
    o = put_literals(out, o, buf + end - lit, lit);
    free(buf);
    free(head);
    free(prev);
    *out_len = o;
    return out;
}

/* Every length and distance is checked against the buffers: a damaged table unpacks
 * to false, never past an end. */
bool rt_embed_unpack(const unsigned char *base, size_t base_len, const unsigned char *in, size_t len,
                     unsigned char *out, size_t raw_len)
{
    size_t i = 0, o = 0, n, off;
    while (i < len) {
        unsigned t = in[i++];
        n = t & 0x7f;
        if (n == SHORT) {
            if (!get_uleb(in, len, &i, &n)) return false;
            n += SHORT;
        }
        if (!(t & 0x80)) {
            n += 1;
            if (n > len - i || n > raw_len - o) return false;
            memcpy(out + o, in + i, n);
            i += n;
            o += n;
            continue;
        }
        n += MIN_MATCH;
        if (!get_uleb(in, len, &i, &off) || off == 0 || off > o + base_len || n > raw_len - o) return false;
        size_t k = 0;
        for (; k < n && off > o; k++, o++) out[o] = base[base_len - (off - o)]; /* from the base */
        if (k < n && off > 0) {
            const unsigned char *from = out + o - off;
            for (; k < n; k++, o++) out[o] = *from++; /* may overlap itself */
        }
    }
    return o == raw_len;
}
