/*
 * fuzz_cubex_tar.c - the CUBE 4 archive and binary layers: the member
 * table of a tar archive (plain or gzip), every member read, every
 * `N.index` / `N.data` pair decoded (row size guessed from the data
 * member, as no definitions are parsed here), every value of every row
 * decoded with each value type whose size divides the row.  Three
 * differential checks abort on a mismatch: the members written back by
 * the archive writer read as the same table and bytes, rows read in one
 * call equal rows read one by one, and the library's enumerations of a
 * call forest drawn from the input equal the recursive definitions.
 * The `anchor.xml` member is parsed too, read from the archive and from
 * its bytes in memory, with the same verdict; an accepted one must
 * satisfy the invariants of fuzz_cubex_anchor.h.
 * It is a harness of library internals (the private cubex layer, which
 * has no public interface of its own), built with -Ilibcube.
 */
#include "fuzz_common.h"
#include "fuzz_cubex_anchor.h"
#include "cubex/binary_private.h"
#include "cubex/tar_private.h"

#include <fcntl.h>

#define FUZZ_MAX_MEMBER (1 << 20)
#define FUZZ_MAX_CNODES 300

/* The recursive definitions of the two orders over a parent array. */
static void fuzz_ref_order(size_t n, const size_t *parent, size_t x, int wide, size_t *out, size_t *k)
{
    if (!wide || parent[x] == SIZE_MAX)
        out[(*k)++] = x;
    if (wide)
        for (size_t c = 0; c < n; c++)
            if (parent[c] == x)
                out[(*k)++] = c;
    for (size_t c = 0; c < n; c++)
        if (parent[c] == x)
            fuzz_ref_order(n, parent, c, wide, out, k);
}

static void fuzz_enumerations(const uint8_t *data, size_t size)
{
    size_t n = size < FUZZ_MAX_CNODES ? size : FUZZ_MAX_CNODES;
    if (n == 0)
        return;
    size_t parent[FUZZ_MAX_CNODES], got[FUZZ_MAX_CNODES], want[FUZZ_MAX_CNODES];
    for (size_t i = 0; i < n; i++)
        parent[i] = i == 0 || data[i] % 5 == 0 ? SIZE_MAX : data[i] % i;
    cubex_tree tree;
    if (cubex_tree_from_parents(n, parent, &tree) != 0)
        abort();
    for (int wide = 0; wide < 2; wide++) {
        size_t k = 0;
        for (size_t r = 0; r < n; r++)
            if (parent[r] == SIZE_MAX)
                fuzz_ref_order(n, parent, r, wide, want, &k);
        if (cubex_enumerate(&tree, wide ? CUBEX_WIDE : CUBEX_PREORDER, got) != 0 || k != n
            || memcmp(got, want, n * sizeof *got) != 0)
            abort();
    }
    cubex_tree_free(&tree);
}

/* The row size of a data member: plain, what its size divided by the rows
 * gives; compressed, the distance of the first two rows' offsets. */
static size_t fuzz_row_size(const cubex_tar *t, const cubex_member *m, const cubex_index *ix)
{
    unsigned char h[67];
    cube_status st;
    if (m->size >= 10 && ix->num_rows && cubex_tar_pread(t, m, 0, h, 10, &st) == 0
        && memcmp(h, "CUBEX.DATA", 10) == 0 && (m->size - 10) % ix->num_rows == 0
        && (m->size - 10) / ix->num_rows)
        return (size_t)((m->size - 10) / ix->num_rows);
    if (m->size >= 67 && cubex_tar_pread(t, m, 0, h, 67, &st) == 0) {
        uint64_t a = 0, b = 0;
        for (int i = 0; i < 8; i++) {
            a |= (uint64_t)h[19 + i] << (ix->big_endian ? 56 - 8 * i : 8 * i);
            b |= (uint64_t)h[43 + i] << (ix->big_endian ? 56 - 8 * i : 8 * i);
        }
        uint64_t d = a > b ? a - b : b - a;
        if (d && d <= 4096)
            return (size_t)d;
    }
    return 8;
}

static void fuzz_decode_row(const unsigned char *row, size_t row_size, int be)
{
    static const cubex_dtype types[] = {
        {CUBEX_INT8, 0}, {CUBEX_INT16, 0}, {CUBEX_UINT32, 0}, {CUBEX_INT64, 0},
        {CUBEX_DOUBLE, 0}, {CUBEX_RATE, 0}, {CUBEX_TAU_ATOMIC, 0}, {CUBEX_NDOUBLES, 3},
        {CUBEX_HISTOGRAM, 5}, {CUBEX_SCALE_FUNC, 0}};
    double v[CUBEX_SCALE_FUNC_SLOTS];
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t vs = cubex_dtype_size(types[i]);
        if (row_size % vs)
            continue;
        for (size_t off = 0; off < row_size; off += vs) {
            (void)cubex_value_decode(types[i], be, row + off, v);
            if (cubex_dtype_is_integer(types[i]))
                (void)cubex_value_int(types[i], be, row + off);
        }
    }
}

/* Decode the metric whose index member is m. */
static void fuzz_metric(const cubex_tar *t, const cubex_member *m)
{
    char dname[128];
    size_t n = strlen(m->name) - strlen(".index");
    if (n + sizeof ".data" > sizeof dname)
        return;
    memcpy(dname, m->name, n);
    memcpy(dname + n, ".data", sizeof ".data");
    const cubex_member *md = cubex_tar_find(t, dname);
    cube_status st;
    cubex_index ix;
    if (cubex_index_read(t, m, 1 << 16, &ix, &st) != 0)
        return;
    for (size_t i = 0; i < ix.num_rows && !ix.dense; i++)
        if (cubex_index_row(&ix, ix.ordinals[i]) != (long)i)
            abort();
    size_t row_size = md ? fuzz_row_size(t, md, &ix) : 0;
    cubex_data d;
    if (md && cubex_data_open(t, md, &ix, row_size, &d, &st) == 0) {
        unsigned char *row = malloc(row_size);
        for (size_t k = 0; row && k < d.num_rows && k < 4096; k++)
            if (cubex_data_read_row(&d, k, row, &st) == 1)
                fuzz_decode_row(row, row_size, ix.big_endian);
        /* the first rows in one call: the same bytes as one by one */
        size_t n = d.num_rows < 16 ? d.num_rows : 16;
        unsigned char *rows = row_size <= (1 << 16) ? malloc(n * row_size + 1) : NULL;
        unsigned char present[16];
        if (row && rows && cubex_data_read_rows(&d, 0, n, rows, present, &st) == 0)
            for (size_t k = 0; k < n; k++) {
                int r = cubex_data_read_row(&d, k, row, &st);
                if (r != present[k] || (r == 1 && memcmp(row, rows + k * row_size, row_size) != 0))
                    abort();
            }
        free(rows);
        free(row);
        cubex_data_close(&d);
    }
    cubex_index_free(&ix);
}

/* Write the members read back with the writer: the same table. */
static void fuzz_rewrite(const cubex_tar *t, unsigned char **bytes)
{
    char path[128];
    fuzz_write_file("rewritten.cubex", (const uint8_t *)"", 0, path, sizeof path);
    FILE *fp = fopen(path, "wb");
    cube_status st;
    cubex_tar_writer *w = fp ? cubex_tar_writer_open_fp(fp, path, &st) : NULL;
    if (!w)
        abort();
    for (size_t i = 0; i < t->num_members; i++)
        if (bytes[i] && strlen(t->members[i].name) <= 100
            && cubex_tar_add(w, t->members[i].name, bytes[i], (size_t)t->members[i].size, 0, &st) != 0)
            abort();
    if (cubex_tar_finish(w, &st) != 0)
        abort();
    cubex_tar_writer_free(w);
    fclose(fp);
    cubex_tar *u = cubex_tar_open_path(path, 0, &st);
    if (!u)
        abort();
    size_t j = 0;
    for (size_t i = 0; i < t->num_members; i++) {
        if (!bytes[i] || strlen(t->members[i].name) > 100)
            continue;
        const cubex_member *m = &u->members[j++];
        unsigned char *b = malloc(m->size + 1);
        if (j > u->num_members || strcmp(m->name, t->members[i].name) != 0 || m->size != t->members[i].size
            || !b || cubex_tar_pread(u, m, 0, b, (size_t)m->size, &st) != 0
            || memcmp(b, bytes[i], (size_t)m->size) != 0 || u->bad_checksums)
            abort();
        free(b);
    }
    if (j != u->num_members)
        abort();
    cubex_tar_close(u);
}

/* The definitions member, read through the archive and from memory. */
static void fuzz_anchor_member(const cubex_tar *t, const cubex_member *m, const unsigned char *bytes)
{
    cube_status st, st2;
    cubex_anchor *a = cubex_anchor_read(t, m, &st);
    fuzz_check_anchor(a, &st);
    cubex_anchor *b = cubex_anchor_parse(bytes, (size_t)m->size, t->file, &st2);
    fuzz_check_anchor(b, &st2);
    if (!a != !b || st.code != st2.code || strcmp(st.message, st2.message) != 0
        || (a && (a->num_metrics != b->num_metrics || a->num_cnodes != b->num_cnodes
                  || a->num_locations != b->num_locations || a->num_carts != b->num_carts)))
        abort();
    cubex_anchor_free(a);
    cubex_anchor_free(b);
}

static int fuzz_one_cubex_tar(const uint8_t *data, size_t size)
{
    char path[128];
    fuzz_enumerations(data, size);
    fuzz_write_file("in.cubex", data, size, path, sizeof path);
    cube_status st;
    cubex_tar *t = cubex_tar_open_path(path, 4 << 20, &st);
    if (!t)
        return 0;
    char warning[CUBE_MESSAGE_SIZE];
    (void)cubex_tar_warning(t, warning, sizeof warning);
    unsigned char **bytes = calloc(t->num_members ? t->num_members : 1, sizeof *bytes);
    for (size_t i = 0; bytes && i < t->num_members; i++) {
        const cubex_member *m = &t->members[i];
        if (m->size > FUZZ_MAX_MEMBER)
            continue;
        bytes[i] = malloc(m->size + 1);
        if (bytes[i] && cubex_tar_pread(t, m, 0, bytes[i], (size_t)m->size, &st) != 0)
            abort(); /* the table promised these bytes */
        size_t n = strlen(m->name);
        if (n > 6 && strcmp(m->name + n - 6, ".index") == 0)
            fuzz_metric(t, m);
        if (bytes[i] && strcmp(m->name, "anchor.xml") == 0)
            fuzz_anchor_member(t, m, bytes[i]);
    }
    if (bytes)
        fuzz_rewrite(t, bytes);
    for (size_t i = 0; bytes && i < t->num_members; i++)
        free(bytes[i]);
    free(bytes);
    cubex_tar_close(t);
    return 0;
}

#ifndef FUZZ_REGRESSION
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_cubex_tar(data, size);
}
#endif
