/*
 * binary.c - the index and data members of a CUBE 4 archive, the value
 * types, and the call-tree enumerations (see binary_private.h).
 */
#include "cubex/binary_private.h"
#include "core/status_private.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define INDEX_HEADER 18
#define ZCHUNK (64 * 1024)

/* ---- value types ------------------------------------------------------------ */

static const struct {
    const char *name;
    cubex_kind kind;
} type_names[] = {
    {"INT8", CUBEX_INT8},
    {"UINT8", CUBEX_UINT8},
    {"CHAR", CUBEX_UINT8},
    {"INT16", CUBEX_INT16},
    {"SIGNED SHORT INT", CUBEX_INT16},
    {"SHORT INT", CUBEX_INT16},
    {"UINT16", CUBEX_UINT16},
    {"UNSIGNED SHORT INT", CUBEX_UINT16},
    {"INT32", CUBEX_INT32},
    {"SIGNED INT", CUBEX_INT32},
    {"INT", CUBEX_INT32},
    {"UINT32", CUBEX_UINT32},
    {"UNSIGNED INT", CUBEX_UINT32},
    {"INT64", CUBEX_INT64},
    {"SIGNED INTEGER", CUBEX_INT64},
    {"INTEGER", CUBEX_INT64},
    {"UINT64", CUBEX_UINT64},
    {"UNSIGNED INTEGER", CUBEX_UINT64},
    {"DOUBLE", CUBEX_DOUBLE},
    {"FLOAT", CUBEX_DOUBLE},
    {"MINDOUBLE", CUBEX_MINDOUBLE},
    {"MAXDOUBLE", CUBEX_MAXDOUBLE},
    {"COMPLEX", CUBEX_COMPLEX},
    {"RATE", CUBEX_RATE},
    {"TAU_ATOMIC", CUBEX_TAU_ATOMIC},
    {"SCALE_FUNC", CUBEX_SCALE_FUNC},
};

/* "NAME(k)" with a decimal k in 1..CUBEX_MAX_K: k, else 0. */
static unsigned with_count(const char *text, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(text, name, n) != 0 || text[n] != '(')
        return 0;
    unsigned long k = 0;
    const char *p = text + n + 1;
    if (*p < '1' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        k = k * 10 + (unsigned long)(*p - '0');
        if (k > CUBEX_MAX_K)
            return 0;
    }
    return p[0] == ')' && p[1] == '\0' ? (unsigned)k : 0;
}

int cubex_dtype_parse(const char *text, cubex_dtype *out)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strcmp(text, type_names[i].name) == 0) {
            *out = (cubex_dtype){type_names[i].kind, 0};
            return 0;
        }
    unsigned k;
    if ((k = with_count(text, "NDOUBLES")) != 0) {
        *out = (cubex_dtype){CUBEX_NDOUBLES, k};
        return 0;
    }
    if ((k = with_count(text, "HISTOGRAM")) != 0) {
        *out = (cubex_dtype){CUBEX_HISTOGRAM, k};
        return 0;
    }
    return -1;
}

size_t cubex_dtype_size(cubex_dtype t)
{
    switch (t.kind) {
    case CUBEX_INT8: case CUBEX_UINT8: return 1;
    case CUBEX_INT16: case CUBEX_UINT16: return 2;
    case CUBEX_INT32: case CUBEX_UINT32: return 4;
    case CUBEX_COMPLEX: case CUBEX_RATE: return 16;
    case CUBEX_TAU_ATOMIC: return 4 + 4 * 8;
    case CUBEX_NDOUBLES: return 8 * (size_t)t.k;
    case CUBEX_HISTOGRAM: return 8 * ((size_t)t.k + 2);
    case CUBEX_SCALE_FUNC: return CUBEX_SCALE_FUNC_BYTES;
    default: return 8;
    }
}

size_t cubex_dtype_components(cubex_dtype t)
{
    switch (t.kind) {
    case CUBEX_COMPLEX: case CUBEX_RATE: return 2;
    case CUBEX_TAU_ATOMIC: return 5;
    case CUBEX_NDOUBLES: return t.k;
    case CUBEX_HISTOGRAM: return (size_t)t.k + 2;
    case CUBEX_SCALE_FUNC: return CUBEX_SCALE_FUNC_SLOTS;
    default: return 1;
    }
}

int cubex_dtype_is_integer(cubex_dtype t)
{
    return t.kind <= CUBEX_UINT64;
}

uint64_t cubex_value_int(cubex_dtype t, int big_endian, const unsigned char *src)
{
    if (!cubex_dtype_is_integer(t))
        return 0;
    size_t n = cubex_dtype_size(t);
    uint64_t v = cubex_get_uint(src, n, big_endian);
    int is_signed = t.kind == CUBEX_INT8 || t.kind == CUBEX_INT16 || t.kind == CUBEX_INT32
                    || t.kind == CUBEX_INT64;
    if (is_signed && n < 8 && (v >> (8 * n - 1)))
        v |= ~(uint64_t)0 << (8 * n);
    return v;
}

/* A SCALE_FUNC value: u32 nterms, u32 nmeas, terms {f64 a, i32 b, u32 c,
 * i32 d}, measurements {u32 nproc, f64 mean, f64 width}, packed. */
static int decode_scale_func(int be, const unsigned char *src, double *out)
{
    memset(out, 0, CUBEX_SCALE_FUNC_SLOTS * sizeof *out);
    uint64_t nt = cubex_get_uint(src, 4, be), nm = cubex_get_uint(src + 4, 4, be);
    if (nt > 42 || nm > 35 || 8 + 20 * nt + 24 * nm > CUBEX_SCALE_FUNC_BYTES)
        return -1;
    out[0] = (double)nt;
    out[1] = (double)nm;
    const unsigned char *p = src + 8;
    double *o = out + 2;
    for (uint64_t i = 0; i < nt; i++, p += 20) {
        *o++ = cubex_get_double(p, be);
        *o++ = (double)(int32_t)(uint32_t)cubex_get_uint(p + 8, 4, be);
        *o++ = (double)(uint32_t)cubex_get_uint(p + 12, 4, be);
        *o++ = (double)(int32_t)(uint32_t)cubex_get_uint(p + 16, 4, be);
    }
    for (uint64_t i = 0; i < nm; i++, p += 24) {
        *o++ = (double)cubex_get_uint(p, 4, be);
        *o++ = cubex_get_double(p + 4, be);
        *o++ = cubex_get_double(p + 12, be);
    }
    return 0;
}

int cubex_value_decode(cubex_dtype t, int big_endian, const unsigned char *src, double *out)
{
    if (cubex_dtype_is_integer(t)) {
        uint64_t v = cubex_value_int(t, big_endian, src);
        int is_signed = t.kind == CUBEX_INT8 || t.kind == CUBEX_INT16 || t.kind == CUBEX_INT32
                        || t.kind == CUBEX_INT64;
        out[0] = is_signed ? (double)(int64_t)v : (double)v;
        return 0;
    }
    if (t.kind == CUBEX_SCALE_FUNC)
        return decode_scale_func(big_endian, src, out);
    if (t.kind == CUBEX_TAU_ATOMIC) {
        out[0] = (double)cubex_get_uint(src, 4, big_endian);
        src += 4;
        for (size_t i = 1; i < 5; i++, src += 8)
            out[i] = cubex_get_double(src, big_endian);
        return 0;
    }
    size_t n = cubex_dtype_components(t);
    for (size_t i = 0; i < n; i++, src += 8)
        out[i] = cubex_get_double(src, big_endian);
    return 0;
}

void cubex_value_neutral(cubex_dtype t, double *out)
{
    size_t n = cubex_dtype_components(t);
    memset(out, 0, n * sizeof *out);
    switch (t.kind) {
    case CUBEX_MINDOUBLE: out[0] = DBL_MAX; break;
    case CUBEX_MAXDOUBLE: out[0] = -DBL_MAX; break;
    case CUBEX_TAU_ATOMIC: out[1] = DBL_MAX; out[2] = -DBL_MAX; break;
    case CUBEX_HISTOGRAM: out[0] = DBL_MAX; out[1] = -DBL_MAX; break;
    default: break;
    }
}

double cubex_value_number(cubex_dtype t, const double *v)
{
    double sum = 0;
    switch (t.kind) {
    case CUBEX_COMPLEX:
        return sqrt(v[0] * v[0] + v[1] * v[1]);
    case CUBEX_RATE:
        if (v[1] != 0)
            return v[0] / v[1];
        return v[0] > 0 ? DBL_MAX : v[0] < 0 ? -DBL_MAX : 0;
    case CUBEX_TAU_ATOMIC:
        return v[0] != 0 ? v[3] / v[0] : 0;
    case CUBEX_NDOUBLES:
        for (unsigned i = 0; i < t.k; i++)
            sum += v[i];
        return sum;
    case CUBEX_HISTOGRAM:
        for (unsigned i = 0; i < t.k; i++)
            sum += v[2 + i];
        return sum;
    case CUBEX_SCALE_FUNC: /* nterms, nmeas, then (a, b, c, d) per term */
        for (size_t i = 0; i < (size_t)v[0]; i++)
            if (v[2 + 4 * i + 3] == 0)
                sum += v[2 + 4 * i];
        return sum;
    default:
        return v[0];
    }
}

/* ---- enumerations ------------------------------------------------------------ */

/* The description's arrays are consistent: child_start ascending from 0
 * to n - num_roots, every number below n. */
static int tree_valid(const cubex_tree *tr)
{
    if (tr->num_roots > tr->n || tr->child_start[0] != 0)
        return 0;
    for (size_t i = 0; i < tr->num_roots; i++)
        if (tr->roots[i] >= tr->n)
            return 0;
    for (size_t i = 0; i < tr->n; i++)
        if (tr->child_start[i + 1] < tr->child_start[i])
            return 0;
    if (tr->child_start[tr->n] != tr->n - tr->num_roots)
        return 0;
    for (size_t i = 0; i < tr->n - tr->num_roots; i++)
        if (tr->child[i] >= tr->n)
            return 0;
    return 1;
}

/* Emit call path x unless it was emitted before (then the description is
 * no forest): 0 or -1. */
static int emit(size_t x, unsigned char *seen, size_t *out, size_t *count)
{
    if (seen[x])
        return -1;
    seen[x] = 1;
    out[(*count)++] = x;
    return 0;
}

/* Both orders with one explicit stack (call trees can be deeper than the
 * C stack allows recursion).  Each call path is pushed at most once per
 * time it is named (as a root or as a child), so n slots suffice. */
int cubex_enumerate(const cubex_tree *tree, cubex_order order, size_t *cnode_of)
{
    size_t n = tree->n;
    if (!tree_valid(tree))
        return -1;
    size_t *stack = malloc((n ? n : 1) * sizeof *stack);
    unsigned char *seen = calloc(n ? n : 1, 1);
    int rc = stack && seen ? 0 : -1;
    size_t count = 0;
    for (size_t r = 0; rc == 0 && r < tree->num_roots; r++) {
        size_t top = 0;
        if (order == CUBEX_WIDE)
            rc = emit(tree->roots[r], seen, cnode_of, &count);
        stack[top++] = tree->roots[r];
        while (rc == 0 && top) {
            size_t x = stack[--top];
            const size_t *c = tree->child + tree->child_start[x];
            size_t nc = tree->child_start[x + 1] - tree->child_start[x];
            if (order == CUBEX_PREORDER) {
                rc = emit(x, seen, cnode_of, &count);
            } else {
                for (size_t i = 0; rc == 0 && i < nc; i++)
                    rc = emit(c[i], seen, cnode_of, &count);
            }
            for (size_t i = nc; rc == 0 && i-- > 0;) {
                if (top == n)
                    rc = -1;
                else
                    stack[top++] = c[i];
            }
        }
    }
    if (rc == 0 && count != n)
        rc = -1;
    free(stack);
    free(seen);
    return rc;
}

int cubex_tree_from_parents(size_t n, const size_t *parent, cubex_tree *tree)
{
    memset(tree, 0, sizeof *tree);
    size_t *start = calloc(n + 2, sizeof *start);
    size_t *child = malloc((n ? n : 1) * sizeof *child);
    size_t *roots = malloc((n ? n : 1) * sizeof *roots);
    if (!start || !child || !roots) {
        free(start);
        free(child);
        free(roots);
        return -1;
    }
    size_t nr = 0;
    for (size_t i = 0; i < n; i++) {
        if (parent[i] == SIZE_MAX)
            roots[nr++] = i;
        else if (parent[i] >= n) {
            free(start);
            free(child);
            free(roots);
            return -1;
        } else
            start[parent[i] + 2]++;
    }
    /* counting sort: start[p + 1] becomes the first slot of p's children */
    for (size_t i = 2; i < n + 2; i++)
        start[i] += start[i - 1];
    for (size_t i = 0; i < n; i++)
        if (parent[i] != SIZE_MAX)
            child[start[parent[i] + 1]++] = i;
    *tree = (cubex_tree){n, nr, roots, start, child};
    return 0;
}

void cubex_tree_free(cubex_tree *tree)
{
    free((void *)tree->roots);
    free((void *)tree->child_start);
    free((void *)tree->child);
    memset(tree, 0, sizeof *tree);
}

/* ---- the index member ------------------------------------------------------ */

static int read_ordinals(const cubex_tar *t, const cubex_member *m, size_t num_cnodes,
                         cubex_index *ix, cube_status *st)
{
    size_t n = ix->num_rows;
    unsigned char *raw = malloc(n ? 4 * n : 1);
    ix->ordinals = malloc((n ? n : 1) * sizeof *ix->ordinals);
    if (!raw || !ix->ordinals) {
        free(raw);
        status_set(st, CUBE_ENOMEM, "%s: out of memory", t->file);
        return -1;
    }
    int rc = cubex_tar_pread(t, m, 22, raw, 4 * n, st);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        uint32_t o = (uint32_t)cubex_get_uint(raw + 4 * i, 4, ix->big_endian);
        if (o >= num_cnodes)
            rc = cubex_tar_fail(t, st, m->name, m->offset + 22 + 4 * i,
                                "expected an ordinal below %zu (the number of call paths), found %lu",
                                num_cnodes, (unsigned long)o);
        else if (i && o <= ix->ordinals[i - 1])
            rc = cubex_tar_fail(t, st, m->name, m->offset + 22 + 4 * i,
                                "expected ordinals in ascending order, found %lu after %lu",
                                (unsigned long)o, (unsigned long)ix->ordinals[i - 1]);
        else
            ix->ordinals[i] = o;
    }
    free(raw);
    return rc;
}

int cubex_index_read(const cubex_tar *t, const cubex_member *m, size_t num_cnodes,
                     cubex_index *ix, cube_status *status)
{
    memset(ix, 0, sizeof *ix);
    unsigned char h[22];
    if (m->size < INDEX_HEADER)
        return cubex_tar_fail(t, status, m->name, m->offset + m->size,
                              "expected an index header of 18 bytes, the member has %llu",
                              (unsigned long long)m->size);
    if (cubex_tar_pread(t, m, 0, h, m->size >= 22 ? 22 : INDEX_HEADER, status) != 0)
        return -1;
    if (memcmp(h, "CUBEX.INDEX", 11) != 0)
        return cubex_tar_fail(t, status, m->name, m->offset, "expected \"CUBEX.INDEX\"");
    if (memcmp(h + 11, "\1\0\0\0", 4) == 0)
        ix->big_endian = 0;
    else if (memcmp(h + 11, "\0\0\0\1", 4) == 0)
        ix->big_endian = 1;
    else
        return cubex_tar_fail(t, status, m->name, m->offset + 11,
                              "expected the byte order mark 1 (01000000 or 00000001)");
    if (h[17] == 0 || h[17] == 2) {
        status_set(status, CUBE_EUNSUPPORTED, "%s: member %s: byte %llu: index format %u (%s) is not supported",
                   t->file, m->name, (unsigned long long)(m->offset + 17), h[17],
                   h[17] ? "bit vector" : "none");
        return -1;
    }
    if (h[17] != 1 && h[17] != 3)
        return cubex_tar_fail(t, status, m->name, m->offset + 17,
                              "expected index format 1 (sparse) or 3 (dense), found %u", h[17]);
    if (h[17] == 3) {
        if (m->size != INDEX_HEADER)
            return cubex_tar_fail(t, status, m->name, m->offset + INDEX_HEADER,
                                  "expected a dense index of 18 bytes, the member has %llu",
                                  (unsigned long long)m->size);
        ix->dense = 1;
        ix->num_rows = num_cnodes;
        return 0;
    }
    if (m->size == INDEX_HEADER) /* an empty sparse index, written without its count */
        return 0;
    if (m->size < 22)
        return cubex_tar_fail(t, status, m->name, m->offset + INDEX_HEADER,
                              "expected a 4-byte row count, the member has %llu bytes",
                              (unsigned long long)m->size);
    uint64_t n = cubex_get_uint(h + 18, 4, ix->big_endian);
    if (n > num_cnodes)
        return cubex_tar_fail(t, status, m->name, m->offset + 18,
                              "expected at most %zu rows (the number of call paths), found %llu",
                              num_cnodes, (unsigned long long)n);
    if (m->size != 22 + 4 * n)
        return cubex_tar_fail(t, status, m->name, m->offset + 18,
                              "expected 22 + 4 x %llu = %llu bytes, the member has %llu",
                              (unsigned long long)n, (unsigned long long)(22 + 4 * n),
                              (unsigned long long)m->size);
    ix->num_rows = (size_t)n;
    if (read_ordinals(t, m, num_cnodes, ix, status) != 0) {
        cubex_index_free(ix);
        return -1;
    }
    return 0;
}

void cubex_index_free(cubex_index *ix)
{
    free(ix->ordinals);
    memset(ix, 0, sizeof *ix);
}

long cubex_index_row(const cubex_index *ix, uint32_t ordinal)
{
    if (ix->dense)
        return ordinal < ix->num_rows ? (long)ordinal : -1;
    size_t lo = 0, hi = ix->num_rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->ordinals[mid] < ordinal)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->num_rows && ix->ordinals[lo] == ordinal ? (long)lo : -1;
}

/* ---- the data member ------------------------------------------------------- */

/* The table of a ZCUBEX.DATA member: one entry per row written, each
 * naming its row by its uncompressed offset. */
static int read_ztable(cubex_data *d, cube_status *st)
{
    const cubex_tar *t = d->tar;
    const cubex_member *m = d->member;
    unsigned char c[8];
    if (m->size < 19)
        return cubex_tar_fail(t, st, m->name, m->offset + m->size, "expected a u64 row count after \"ZCUBEX.DATA\"");
    if (cubex_tar_pread(t, m, 11, c, 8, st) != 0)
        return -1;
    uint64_t count = cubex_get_uint(c, 8, d->big_endian);
    if (count > d->num_rows || 24 * count > m->size - 19)
        return cubex_tar_fail(t, st, m->name, m->offset + 11,
                              "expected at most %zu compressed rows (the index's) within the member, found %llu",
                              d->num_rows, (unsigned long long)count);
    uint64_t base = 19 + 24 * count, avail = m->size - base;
    size_t nr = d->num_rows ? d->num_rows : 1;
    d->zoff = calloc(nr, sizeof *d->zoff);
    d->zsize = calloc(nr, sizeof *d->zsize);
    unsigned char *tab = malloc(count ? 24 * (size_t)count : 1);
    d->zbuf = malloc(ZCHUNK);
    int rc = 0;
    if (!d->zoff || !d->zsize || !tab || !d->zbuf) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", t->file);
        rc = -1;
    } else {
        rc = cubex_tar_pread(t, m, 19, tab, 24 * (size_t)count, st);
    }
    for (uint64_t i = 0; rc == 0 && i < count; i++) {
        const unsigned char *e = tab + 24 * i;
        uint64_t us = cubex_get_uint(e, 8, d->big_endian), cs = cubex_get_uint(e + 8, 8, d->big_endian),
                 cz = cubex_get_uint(e + 16, 8, d->big_endian), at = m->offset + 19 + 24 * i;
        uint64_t k = us / d->row_size;
        if (us % d->row_size || k >= d->num_rows)
            rc = cubex_tar_fail(t, st, m->name, at, "expected the start of one of %zu rows of %zu bytes, found %llu",
                                d->num_rows, d->row_size, (unsigned long long)us);
        else if (d->zsize[k])
            rc = cubex_tar_fail(t, st, m->name, at, "expected one entry per row, found a second for row %llu",
                                (unsigned long long)k);
        else if (cz == 0 || cs > avail || cz > avail - cs)
            rc = cubex_tar_fail(t, st, m->name, at + 8,
                                "expected a compressed row within the member's %llu bytes of streams, found %llu + %llu",
                                (unsigned long long)avail, (unsigned long long)cs, (unsigned long long)cz);
        else {
            d->zoff[k] = base + cs;
            d->zsize[k] = cz;
        }
    }
    free(tab);
    return rc;
}

int cubex_data_open(const cubex_tar *t, const cubex_member *m, const cubex_index *ix,
                    size_t row_size, cubex_data *d, cube_status *status)
{
    memset(d, 0, sizeof *d);
    *d = (cubex_data){.tar = t, .member = m, .big_endian = ix->big_endian, .row_size = row_size,
                      .num_rows = ix->num_rows};
    unsigned char h[11];
    size_t hn = m->size < 11 ? (size_t)m->size : 11;
    if (row_size == 0)
        return cubex_tar_fail(t, status, m->name, m->offset, "expected rows of at least one value");
    if (cubex_tar_pread(t, m, 0, h, hn, status) != 0)
        return -1;
    if (hn >= 10 && memcmp(h, "CUBEX.DATA", 10) == 0) {
        uint64_t need = d->num_rows > (UINT64_MAX - 10) / row_size ? UINT64_MAX : 10 + d->num_rows * (uint64_t)row_size;
        if (m->size != need)
            return cubex_tar_fail(t, status, m->name, m->offset + 10,
                                  "expected %zu rows of %zu bytes, the member has %llu bytes after its marker",
                                  d->num_rows, row_size, (unsigned long long)(m->size - 10));
        return 0;
    }
    if (hn == 11 && memcmp(h, "ZCUBEX.DATA", 11) == 0) {
        d->compressed = 1;
        if (row_size > UINT32_MAX / 2)
            return cubex_tar_fail(t, status, m->name, m->offset,
                                  "expected compressed rows of less than 2 GiB, found %zu bytes", row_size);
        if (read_ztable(d, status) != 0) {
            cubex_data_close(d);
            return -1;
        }
        return 0;
    }
    return cubex_tar_fail(t, status, m->name, m->offset, "expected \"CUBEX.DATA\" or \"ZCUBEX.DATA\"");
}

/* Inflate row k's stream into row: exactly row_size bytes, or an error
 * (a stream that would give more is refused before it does). */
static int inflate_row(cubex_data *d, size_t k, unsigned char *row, cube_status *st)
{
    const cubex_member *m = d->member;
    uint64_t at = d->zoff[k], left = d->zsize[k];
    unsigned char extra;
    z_stream *z = &d->z;
    if (d->z_open ? inflateReset(z) != Z_OK : inflateInit(z) != Z_OK) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", d->tar->file);
        return -1;
    }
    d->z_open = 1;
    z->next_in = NULL;
    z->avail_in = 0;
    z->next_out = row;
    z->avail_out = (uInt)d->row_size;
    int zr = Z_OK, rc = 0;
    while (rc == 0 && zr != Z_STREAM_END) {
        if (z->avail_in == 0 && left) {
            size_t n = left < ZCHUNK ? (size_t)left : ZCHUNK;
            if (cubex_tar_pread(d->tar, m, at, d->zbuf, n, st) != 0) {
                rc = -1;
                break;
            }
            z->next_in = d->zbuf;
            z->avail_in = (uInt)n;
            at += n;
            left -= n;
        }
        if (z->avail_out == 0 && z->total_out == d->row_size) {
            /* the row is full: one byte more would be too many */
            z->next_out = &extra;
            z->avail_out = 1;
        }
        zr = inflate(z, Z_NO_FLUSH);
        if (z->total_out > d->row_size)
            rc = cubex_tar_fail(d->tar, st, m->name, m->offset + d->zoff[k],
                                "expected a compressed row of %zu bytes, it inflates to more", d->row_size);
        else if (zr == Z_BUF_ERROR && z->avail_in == 0 && left == 0)
            rc = cubex_tar_fail(d->tar, st, m->name, m->offset + d->zoff[k] + d->zsize[k],
                                "expected a compressed row of %zu bytes, the stream ends after %lu",
                                d->row_size, (unsigned long)z->total_out);
        else if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
            rc = cubex_tar_fail(d->tar, st, m->name, m->offset + d->zoff[k],
                                "expected a zlib-compressed row (%s)", z->msg ? z->msg : "corrupt");
    }
    if (rc == 0 && z->total_out != d->row_size)
        rc = cubex_tar_fail(d->tar, st, m->name, m->offset + d->zoff[k],
                            "expected a compressed row of %zu bytes, it inflates to %lu", d->row_size,
                            (unsigned long)z->total_out);
    return rc;
}

int cubex_data_read_row(cubex_data *d, size_t k, unsigned char *row, cube_status *status)
{
    if (k >= d->num_rows) {
        status_set(status, CUBE_EINVAL, "%s: member %s: row %zu of %zu", d->tar->file, d->member->name,
                   k, d->num_rows);
        return -1;
    }
    if (!d->compressed)
        return cubex_tar_pread(d->tar, d->member, 10 + (uint64_t)k * d->row_size, row, d->row_size,
                               status) == 0 ? 1 : -1;
    if (!d->zsize[k])
        return 0;
    return inflate_row(d, k, row, status) == 0 ? 1 : -1;
}

int cubex_data_read_rows(cubex_data *d, size_t first, size_t count, unsigned char *rows,
                         unsigned char *present, cube_status *status)
{
    if (first > d->num_rows || count > d->num_rows - first) {
        status_set(status, CUBE_EINVAL, "%s: member %s: rows %zu + %zu of %zu", d->tar->file,
                   d->member->name, first, count, d->num_rows);
        return -1;
    }
    if (!d->compressed) {
        if (present)
            memset(present, 1, count);
        return cubex_tar_pread(d->tar, d->member, 10 + (uint64_t)first * d->row_size, rows,
                               count * d->row_size, status);
    }
    for (size_t i = 0; i < count; i++) {
        unsigned char *row = rows + i * d->row_size;
        int r = cubex_data_read_row(d, first + i, row, status);
        if (r < 0)
            return -1;
        if (r == 0)
            memset(row, 0, d->row_size);
        if (present)
            present[i] = (unsigned char)r;
    }
    return 0;
}

void cubex_data_close(cubex_data *d)
{
    if (d->z_open)
        inflateEnd(&d->z);
    free(d->zoff);
    free(d->zsize);
    free(d->zbuf);
    memset(d, 0, sizeof *d);
}
