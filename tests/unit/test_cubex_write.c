/*
 * test_cubex_write.c - writing CUBE 4 archives at the level of their
 * members: anchor.xml from the definitions' records, index and data
 * members, values encoded into their bytes.
 *
 * For every file of testdata/cubex: its definitions written and read
 * again are the same records (every field compared), also gzip-compressed;
 * the text written is, but for indentation and the version, the text the
 * reference writers wrote into the file (so it has the layout the
 * reference reader's strict lexer takes); every stored value decoded and
 * encoded again gives its stored bytes (little endian, the big-endian
 * file's converted); the whole archive copied member by member through
 * the writers (plain and compressed data) reads back to the same records
 * and the same rows, and the members of files with plain little-endian
 * data come out byte for byte as stored.  The minimal file's archive has
 * the members in the reference order and the anchor layout of the
 * format's minimal example.  Then
 * a hand-made anchor with every element, CUBE 3 documents (whose
 * coordinates get their CUBE 4 names), a deep call chain, value encoding
 * at the edges of the types, and the calls the writers refuse.
 */
#include "test_support.h"
#include "cubex/anchor_write_private.h"
#include "cubex/binary_write_private.h"

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define DATA_DIR "testdata/cubex"

/* Every archive of testdata/cubex by its name without ".cubex", sorted,
 * NULL-terminated (set up once for all tests). */
static char **files;

static int cmp_names(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static int list_files(void **state)
{
    (void)state;
    DIR *d = opendir(DATA_DIR);
    if (!d)
        return -1;
    size_t n = 0;
    files = calloc(64, sizeof *files);
    for (struct dirent *e; files && (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len > 6 && strcmp(e->d_name + len - 6, ".cubex") == 0 && n < 63)
            files[n++] = strndup(e->d_name, len - 6);
    }
    closedir(d);
    if (!files)
        return -1;
    qsort(files, n, sizeof *files, cmp_names);
    return n >= 12 ? 0 : -1; /* the files the issue's tests need are there */
}

static int free_files(void **state)
{
    (void)state;
    for (size_t i = 0; files && files[i]; i++)
        free(files[i]);
    free(files);
    return 0;
}

static cubex_tar *open_path(const char *path)
{
    cube_status st;
    cubex_tar *t = cubex_tar_open_path(path, 0, &st);
    if (!t)
        fail_msg("%s: %s", path, st.message);
    return t;
}

static cubex_tar *open_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.cubex", DATA_DIR, name);
    return open_path(path);
}

static cubex_anchor *anchor_of(const cubex_tar *t)
{
    cube_status st;
    const cubex_member *m = cubex_tar_find(t, "anchor.xml");
    assert_non_null(m);
    cubex_anchor *a = cubex_anchor_read(t, m, &st);
    if (!a)
        fail_msg("%s: %s", t->file, st.message);
    return a;
}

/* Write a, read the text back (the status must say OK). */
static cubex_anchor *rewritten(const cubex_anchor *a, int gzip, strbuf *text)
{
    cube_status st;
    strbuf local = {0};
    strbuf *b = text ? text : &local;
    if (cubex_anchor_write(a, gzip, b, &st) != 0)
        fail_msg("writing: %s", st.message);
    assert_int_equal(st.code, CUBE_OK);
    cubex_anchor *r = cubex_anchor_parse(b->data, b->len, "rewritten", &st);
    if (!r)
        fail_msg("reading what was written: %s\n%.2000s", st.message, gzip ? "" : strbuf_str(b));
    assert_int_equal(r->gzip, gzip != 0);
    assert_string_equal(r->version, "4.4");
    assert_int_equal(r->unknown_elements, 0);
    assert_int_equal(r->has_severity, 0);
    strbuf_free(&local);
    return r;
}

/* ---- comparing records, field by field --------------------------------------- */

static const char *where_file = "";

static void same_str(const char *x, const char *y, const char *what, size_t i)
{
    if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
        fail_msg("%s: %s %zu: \"%s\" became \"%s\"", where_file, what, i, x ? x : "(none)",
                 y ? y : "(none)");
}

static void same_int(long long x, long long y, const char *what, size_t i)
{
    if (x != y)
        fail_msg("%s: %s %zu: %lld became %lld", where_file, what, i, x, y);
}

static void same_attrs(const cubex_attrs *x, const cubex_attrs *y, const char *what, size_t i)
{
    same_int((long long)x->n, (long long)y->n, what, i);
    for (size_t k = 0; k < x->n; k++) {
        same_str(x->items[k].key, y->items[k].key, what, i);
        same_str(x->items[k].value, y->items[k].value, what, i);
    }
}

static void same_cubepl(const cubex_cubepl *x, const cubex_cubepl *y, size_t i)
{
    same_int(x == NULL, y == NULL, "metric program", i);
    if (x) {
        same_str(x->text, y->text, "metric program", i);
        same_attrs(&x->attrs, &y->attrs, "metric program attributes", i);
    }
}

static void same_metrics(const cubex_anchor *x, const cubex_anchor *y)
{
    same_int((long long)x->num_metrics, (long long)y->num_metrics, "metrics", 0);
    for (size_t i = 0; i < x->num_metrics; i++) {
        const cubex_metric_def *a = &x->metrics[i], *b = &y->metrics[i];
        same_int((long long)a->id, (long long)b->id, "metric id", i);
        same_int((long long)a->parent, (long long)b->parent, "metric parent", i);
        same_int(a->type, b->type, "metric type", i);
        same_str(a->type_text, b->type_text, "metric type text", i);
        same_int(a->ghost, b->ghost, "metric ghost", i);
        same_str(a->viztype_text, b->viztype_text, "metric viztype", i);
        same_int(a->convertible, b->convertible, "metric convertible", i);
        same_int(a->cacheable, b->cacheable, "metric cacheable", i);
        same_str(a->disp_name, b->disp_name, "metric disp_name", i);
        same_str(a->uniq_name, b->uniq_name, "metric uniq_name", i);
        same_str(a->dtype_text, b->dtype_text, "metric dtype", i);
        same_int(a->dtype_known, b->dtype_known, "metric dtype known", i);
        same_int(a->dtype.kind, b->dtype.kind, "metric dtype kind", i);
        same_int(a->dtype.k, b->dtype.k, "metric dtype k", i);
        same_str(a->uom, b->uom, "metric uom", i);
        same_str(a->val, b->val, "metric val", i);
        same_str(a->url, b->url, "metric url", i);
        same_str(a->descr, b->descr, "metric descr", i);
        same_cubepl(a->cubepl, b->cubepl, i);
        same_cubepl(a->cubeplinit, b->cubeplinit, i);
        same_int((long long)a->num_aggr, (long long)b->num_aggr, "metric cubeplaggr", i);
        for (size_t k = 0; k < a->num_aggr; k++)
            same_cubepl(&a->aggr[k], &b->aggr[k], i);
        same_attrs(&a->attrs, &b->attrs, "metric attributes", i);
    }
}

static void same_program(const cubex_anchor *x, const cubex_anchor *y)
{
    same_int((long long)x->num_regions, (long long)y->num_regions, "regions", 0);
    for (size_t i = 0; i < x->num_regions; i++) {
        const cubex_region_def *a = &x->regions[i], *b = &y->regions[i];
        same_int(a->id, b->id, "region id", i);
        same_str(a->name, b->name, "region name", i);
        same_str(a->mangled_name, b->mangled_name, "region mangled_name", i);
        same_str(a->mod, b->mod, "region mod", i);
        same_int(a->begin, b->begin, "region begin", i);
        same_int(a->end, b->end, "region end", i);
        same_str(a->paradigm, b->paradigm, "region paradigm", i);
        same_str(a->role, b->role, "region role", i);
        same_str(a->url, b->url, "region url", i);
        same_str(a->descr, b->descr, "region descr", i);
        same_attrs(&a->attrs, &b->attrs, "region attributes", i);
    }
    same_int((long long)x->num_cnodes, (long long)y->num_cnodes, "cnodes", 0);
    for (size_t i = 0; i < x->num_cnodes; i++) {
        const cubex_cnode_def *a = &x->cnodes[i], *b = &y->cnodes[i];
        same_int(a->id, b->id, "cnode id", i);
        same_int((long long)a->parent, (long long)b->parent, "cnode parent", i);
        same_int((long long)a->region, (long long)b->region, "cnode region", i);
        same_int(a->line, b->line, "cnode line", i);
        same_str(a->mod, b->mod, "cnode mod", i);
        same_int((long long)a->num_params, (long long)b->num_params, "cnode parameters", i);
        for (size_t k = 0; k < a->num_params; k++) {
            same_int(a->params[k].numeric, b->params[k].numeric, "cnode parameter type", i);
            same_str(a->params[k].key, b->params[k].key, "cnode parameter key", i);
            same_str(a->params[k].value, b->params[k].value, "cnode parameter value", i);
        }
        same_attrs(&a->attrs, &b->attrs, "cnode attributes", i);
    }
}

static void same_system(const cubex_anchor *x, const cubex_anchor *y)
{
    same_int((long long)x->num_stns, (long long)y->num_stns, "system tree nodes", 0);
    for (size_t i = 0; i < x->num_stns; i++) {
        const cubex_stn_def *a = &x->stns[i], *b = &y->stns[i];
        same_int(a->xml_id, b->xml_id, "system tree node Id", i);
        same_int((long long)a->parent, (long long)b->parent, "system tree node parent", i);
        same_str(a->name, b->name, "system tree node name", i);
        same_str(a->klass, b->klass, "system tree node class", i);
        same_str(a->descr, b->descr, "system tree node descr", i);
        same_attrs(&a->attrs, &b->attrs, "system tree node attributes", i);
    }
    same_int((long long)x->num_groups, (long long)y->num_groups, "location groups", 0);
    for (size_t i = 0; i < x->num_groups; i++) {
        const cubex_lg_def *a = &x->groups[i], *b = &y->groups[i];
        same_int(a->xml_id, b->xml_id, "location group Id", i);
        same_int((long long)a->stn, (long long)b->stn, "location group node", i);
        same_str(a->name, b->name, "location group name", i);
        same_int(a->rank, b->rank, "location group rank", i);
        same_int(a->type, b->type, "location group type", i);
        same_str(a->type_text, b->type_text, "location group type text", i);
        same_attrs(&a->attrs, &b->attrs, "location group attributes", i);
    }
    same_int((long long)x->num_locations, (long long)y->num_locations, "locations", 0);
    for (size_t i = 0; i < x->num_locations; i++) {
        const cubex_loc_def *a = &x->locations[i], *b = &y->locations[i];
        same_int(a->id, b->id, "location id", i);
        same_int((long long)a->group, (long long)b->group, "location group", i);
        same_str(a->name, b->name, "location name", i);
        same_int(a->rank, b->rank, "location rank", i);
        same_int(a->type, b->type, "location type", i);
        same_str(a->type_text, b->type_text, "location type text", i);
        same_attrs(&a->attrs, &b->attrs, "location attributes", i);
        same_int((long long)x->location_by_id[i], (long long)y->location_by_id[i],
                 "location by id", i);
    }
    same_int((long long)x->num_carts, (long long)y->num_carts, "topologies", 0);
    for (size_t i = 0; i < x->num_carts; i++) {
        const cubex_cart_def *a = &x->carts[i], *b = &y->carts[i];
        same_str(a->name, b->name, "topology name", i);
        same_int((long long)a->ndims, (long long)b->ndims, "topology ndims", i);
        for (size_t d = 0; d < a->ndims; d++) {
            same_str(a->dims[d].name, b->dims[d].name, "topology dimension name", i);
            same_int(a->dims[d].size, b->dims[d].size, "topology dimension size", i);
            same_int(a->dims[d].periodic, b->dims[d].periodic, "topology periodic", i);
            same_str(a->dims[d].periodic_text, b->dims[d].periodic_text, "topology periodic", i);
        }
        same_int((long long)a->num_coords, (long long)b->num_coords, "topology coordinates", i);
        for (size_t k = 0; k < a->num_coords; k++) {
            same_int(a->coords[k].kind, b->coords[k].kind, "coordinate kind", i);
            same_int(a->coords[k].id, b->coords[k].id, "coordinate entity", i);
            for (size_t d = 0; d < a->ndims; d++)
                same_int(a->coords[k].c[d], b->coords[k].c[d], "coordinate", i);
        }
    }
}

/* Every field of the definitions (not the version, the compression and
 * the reader's counts of what it skipped). */
static void same_records(const cubex_anchor *x, const cubex_anchor *y)
{
    same_attrs(&x->attrs, &y->attrs, "cube attributes", 0);
    same_int((long long)x->num_mirrors, (long long)y->num_mirrors, "mirrors", 0);
    for (size_t i = 0; i < x->num_mirrors; i++)
        same_str(x->mirrors[i], y->mirrors[i], "mirror", i);
    same_str(x->metrics_title, y->metrics_title, "metrics title", 0);
    same_str(x->program_title, y->program_title, "program title", 0);
    same_str(x->system_title, y->system_title, "system title", 0);
    same_metrics(x, y);
    same_program(x, y);
    same_system(x, y);
}

/* ---- every file's definitions -------------------------------------------------- */

static void test_anchor_round_trip(void **state)
{
    (void)state;
    for (size_t f = 0; files[f]; f++) {
        where_file = files[f];
        cubex_tar *t = open_file(files[f]);
        cubex_anchor *a = anchor_of(t);
        for (int gzip = 0; gzip < 2; gzip++) {
            strbuf text = {0};
            cubex_anchor *b = rewritten(a, gzip, &text);
            same_records(a, b);
            /* written again, the same bytes: nothing drifts */
            strbuf again = {0};
            cube_status st;
            assert_int_equal(cubex_anchor_write(b, gzip, &again, &st), 0);
            assert_int_equal(again.len, text.len);
            if (!gzip)
                assert_memory_equal(again.data, text.data, text.len);
            strbuf_free(&again);
            strbuf_free(&text);
            cubex_anchor_free(b);
        }
        cubex_anchor_free(a);
        cubex_tar_close(t);
    }
}

/* ---- the reference writers' layout ------------------------------------------------ */

/* The member's text, inflated when it is gzip data; caller frees. */
static char *anchor_text(const cubex_tar *t, size_t *len)
{
    const cubex_member *m = cubex_tar_find(t, "anchor.xml");
    cube_status st;
    unsigned char *raw = malloc(m->size + 1);
    assert_non_null(raw);
    assert_int_equal(cubex_tar_pread(t, m, 0, raw, m->size, &st), 0);
    if (m->size < 2 || raw[0] != 0x1f || raw[1] != 0x8b) {
        raw[m->size] = '\0';
        *len = m->size;
        return (char *)raw;
    }
    strbuf out = {0};
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
    z.next_in = raw;
    z.avail_in = (uInt)m->size;
    int zr;
    do {
        char chunk[4096];
        z.next_out = (unsigned char *)chunk;
        z.avail_out = sizeof chunk;
        zr = inflate(&z, Z_NO_FLUSH);
        assert_true(zr == Z_OK || zr == Z_STREAM_END);
        assert_int_equal(strbuf_append(&out, chunk, sizeof chunk - z.avail_out), 0);
    } while (zr != Z_STREAM_END);
    inflateEnd(&z);
    free(raw);
    *len = out.len;
    return out.data;
}

/* Lines without their leading blanks, empty lines dropped: the layout
 * without indentation. */
static void strip_indentation(char *s)
{
    char *o = s;
    for (const char *p = s; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n') {
            p++;
            continue;
        }
        while (*p && *p != '\n')
            *o++ = *p++;
        if (*p)
            *o++ = *p++;
    }
    *o = '\0';
}

/* The definitions written are, line for line, what the reference writers
 * (CubeW in every Score-P version, CubeLib 4.6 and 4.8) wrote into the
 * files: the same elements, attributes and their order, escapes.  The
 * differences allowed are the indentation, the version (4.4 always) and
 * the blank one writer leaves where an unnamed cart has its name. */
static void test_reference_layout(void **state)
{
    (void)state;
    for (size_t f = 0; files[f]; f++) {
        cubex_tar *t = open_file(files[f]);
        cubex_anchor *a = anchor_of(t);
        size_t len;
        char *orig = anchor_text(t, &len);
        strip_indentation(orig);
        char *v = strstr(orig, "<cube version=\"4.5\">");
        if (v)
            v[17] = '4';
        for (char *c = orig; (c = strstr(c, "<cart  ndims=")) != NULL;)
            memmove(c + 5, c + 6, strlen(c + 6) + 1);
        strbuf text = {0};
        cube_status st;
        assert_int_equal(cubex_anchor_write(a, 0, &text, &st), 0);
        if (strcmp(orig, text.data) != 0) {
            size_t i = 0;
            while (orig[i] == text.data[i])
                i++;
            fail_msg("%s: the written anchor differs at byte %zu: \"%.80s\" instead of \"%.80s\"",
                     files[f], i, text.data + i, orig + i);
        }
        strbuf_free(&text);
        free(orig);
        cubex_anchor_free(a);
        cubex_tar_close(t);
    }
}

/* ---- values --------------------------------------------------------------------- */

/* Value `src` (in the byte order big_endian says) converted to little
 * endian, field by field. */
static void to_little(cubex_dtype t, int big_endian, const unsigned char *src, unsigned char *dst)
{
    size_t size = cubex_dtype_size(t);
    if (!big_endian) {
        memcpy(dst, src, size);
        return;
    }
    size_t w[8], nw = 0, lead = 0;
    if (t.kind == CUBEX_SCALE_FUNC)
        fail_msg("a big-endian SCALE_FUNC value: not converted by this test");
    if (cubex_dtype_is_integer(t))
        w[nw++] = size;
    else if (t.kind == CUBEX_TAU_ATOMIC)
        lead = 4;
    for (size_t off = 0; off < size;) {
        size_t n = nw ? w[0] : off == 0 && lead ? lead : 8;
        for (size_t i = 0; i < n; i++)
            dst[off + i] = src[off + n - 1 - i];
        off += n;
    }
}

/* The stored values of one metric's member pair: each decoded and
 * encoded again gives the stored (little-endian) bytes; integers also
 * through their exact bits.  Returns the rows (caller frees) in little
 * endian, with their count and the index. */
static unsigned char *check_metric_values(const cubex_tar *t, const cubex_anchor *a, size_t i,
                                          cubex_index *ix, size_t *values)
{
    const cubex_metric_def *m = &a->metrics[i];
    char name[64];
    cube_status st;
    cubex_metric_member_name(m, "index", name, sizeof name);
    const cubex_member *im = cubex_tar_find(t, name);
    cubex_metric_member_name(m, "data", name, sizeof name);
    const cubex_member *dm = cubex_tar_find(t, name);
    if (!im || !dm)
        return NULL;
    if (cubex_index_read(t, im, a->num_cnodes, ix, &st) != 0)
        fail_msg("%s", st.message);
    size_t size = cubex_dtype_size(m->dtype), row = size * a->num_locations;
    cubex_data d;
    if (cubex_data_open(t, dm, ix, row, &d, &st) != 0)
        fail_msg("%s", st.message);
    unsigned char *rows = malloc(ix->num_rows * row + 1), *present = malloc(ix->num_rows + 1);
    unsigned char enc[CUBEX_SCALE_FUNC_BYTES], le[CUBEX_SCALE_FUNC_BYTES];
    double *v = malloc(cubex_dtype_components(m->dtype) * sizeof *v);
    assert_non_null(rows);
    assert_non_null(present);
    assert_non_null(v);
    if (cubex_data_read_rows(&d, 0, ix->num_rows, rows, present, &st) != 0)
        fail_msg("%s", st.message);
    for (size_t r = 0; r < ix->num_rows; r++) {
        assert_true(present[r]);
        for (size_t l = 0; l < a->num_locations; l++) {
            unsigned char *p = rows + r * row + l * size;
            to_little(m->dtype, ix->big_endian, p, le);
            assert_int_equal(cubex_value_decode(m->dtype, ix->big_endian, p, v), 0);
            assert_int_equal(cubex_value_encode(m->dtype, v, enc), 0);
            if (cubex_dtype_is_integer(m->dtype)) {
                uint64_t bits = cubex_value_int(m->dtype, ix->big_endian, p);
                int is_signed = m->dtype.kind == CUBEX_INT8 || m->dtype.kind == CUBEX_INT16 ||
                                m->dtype.kind == CUBEX_INT32 || m->dtype.kind == CUBEX_INT64;
                int exact = is_signed ? llabs((long long)(int64_t)bits) <= (1LL << 53)
                                      : bits <= ((uint64_t)1 << 53);
                if (exact)
                    assert_memory_equal(enc, le, size);
                memset(enc, 0xAA, sizeof enc);
                assert_int_equal(cubex_value_encode_int(m->dtype, bits, enc), 0);
            }
            if (memcmp(enc, le, size) != 0)
                fail_msg("%s: %s: row %zu, location %zu: encoded value differs", t->file, name,
                         r, l);
            memcpy(p, le, size); /* the rows handed back are little endian */
        }
        (*values) += a->num_locations;
    }
    free(v);
    free(present);
    cubex_data_close(&d);
    return rows;
}

static void test_values(void **state)
{
    (void)state;
    size_t with_members = 0, values = 0, big_endian = 0, beyond_2_53 = 0;
    for (size_t f = 0; files[f]; f++) {
        cubex_tar *t = open_file(files[f]);
        cubex_anchor *a = anchor_of(t);
        for (size_t i = 0; i < a->num_metrics; i++) {
            cubex_index ix;
            size_t before = values;
            unsigned char *rows = check_metric_values(t, a, i, &ix, &values);
            if (!rows)
                continue;
            with_members++;
            big_endian += ix.big_endian && values > before;
            if (a->metrics[i].dtype.kind == CUBEX_UINT64) {
                size_t n = (values - before);
                for (size_t k = 0; k < n; k++) {
                    uint64_t bits = cubex_value_int(a->metrics[i].dtype, 0, rows + 8 * k);
                    beyond_2_53 += bits > ((uint64_t)1 << 53);
                }
            }
            free(rows);
            cubex_index_free(&ix);
        }
        cubex_anchor_free(a);
        cubex_tar_close(t);
    }
    /* every stored value of the files was compared: all member pairs,
     * those of the big-endian file among them, and the counters stored as
     * 2^64 - k */
    assert_true(with_members >= 177);
    assert_true(values >= 375783);
    assert_true(big_endian >= 11);
    assert_true(beyond_2_53 > 0);
}

/* ---- whole archives -------------------------------------------------------------- */

/* Copy archive t to `path` through the writers: every other member as it
 * is first, then per metric with members <id>.data and <id>.index (rows
 * little endian, compressed with zlevel), anchor.xml last. */
static void copy_archive(const cubex_tar *t, const cubex_anchor *a, const char *path, int zlevel,
                         int gzip)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    cube_status st;
    cubex_tar_writer *w = cubex_tar_writer_open_fp(fp, path, &st);
    assert_non_null(w);
    for (size_t k = 0; k < t->num_members; k++) {
        const cubex_member *m = &t->members[k];
        int is_metric = 0;
        for (size_t i = 0; i < a->num_metrics && !is_metric; i++) {
            char n1[64], n2[64];
            cubex_metric_member_name(&a->metrics[i], "index", n1, sizeof n1);
            cubex_metric_member_name(&a->metrics[i], "data", n2, sizeof n2);
            is_metric = (!strcmp(m->name, n1) || !strcmp(m->name, n2)) &&
                        cubex_tar_find(t, n1) && cubex_tar_find(t, n2);
        }
        if (is_metric || !strcmp(m->name, "anchor.xml"))
            continue;
        unsigned char *buf = malloc(m->size + 1);
        assert_non_null(buf);
        assert_int_equal(cubex_tar_pread(t, m, 0, buf, m->size, &st), 0);
        assert_int_equal(cubex_tar_add(w, m->name, buf, m->size, 0, &st), 0);
        free(buf);
    }
    for (size_t i = 0; i < a->num_metrics; i++) {
        cubex_index ix;
        size_t values = 0;
        unsigned char *rows = check_metric_values(t, a, i, &ix, &values);
        if (!rows)
            continue;
        char name[64];
        size_t row = cubex_dtype_size(a->metrics[i].dtype) * a->num_locations;
        cubex_metric_member_name(&a->metrics[i], "data", name, sizeof name);
        cubex_data_writer *d = cubex_data_writer_open(w, name, row, ix.num_rows, zlevel, 0, &st);
        if (!d)
            fail_msg("%s", st.message);
        /* in two pieces: the writer takes rows in any portions */
        size_t half = ix.num_rows / 2;
        assert_int_equal(cubex_data_writer_rows(d, rows, half, &st), 0);
        assert_int_equal(cubex_data_writer_rows(d, rows + half * row, ix.num_rows - half, &st), 0);
        if (cubex_data_writer_close(d, &st) != 0)
            fail_msg("%s", st.message);
        cubex_metric_member_name(&a->metrics[i], "index", name, sizeof name);
        if (cubex_index_write(w, name, &ix, 0, &st) != 0)
            fail_msg("%s", st.message);
        free(rows);
        cubex_index_free(&ix);
    }
    if (cubex_anchor_write_member(w, a, gzip, 0, &st) != 0)
        fail_msg("%s", st.message);
    assert_int_equal(cubex_tar_finish(w, &st), 0);
    cubex_tar_writer_free(w);
    assert_int_equal(fclose(fp), 0);
}

/* The member's bytes. */
static unsigned char *member_bytes(const cubex_tar *t, const char *name, size_t *n)
{
    const cubex_member *m = cubex_tar_find(t, name);
    assert_non_null(m);
    cube_status st;
    unsigned char *b = malloc(m->size + 1);
    assert_non_null(b);
    assert_int_equal(cubex_tar_pread(t, m, 0, b, m->size, &st), 0);
    *n = m->size;
    return b;
}

/* Archive `copy` holds what `orig` holds: the same records, the same
 * members, the same rows (little endian) and ordinals; with `same_bytes`
 * every metric member is byte for byte the original's. */
static void same_archive(const cubex_tar *orig, const cubex_tar *copy, int same_bytes)
{
    cubex_anchor *a = anchor_of(orig), *b = anchor_of(copy);
    same_records(a, b);
    size_t n_orig = orig->num_members, n_copy = copy->num_members;
    for (size_t k = 0; k < orig->num_members; k++) /* members that belong to no metric remain */
        assert_non_null(cubex_tar_find(copy, orig->members[k].name));
    assert_int_equal(n_orig, n_copy);
    assert_string_equal(copy->members[copy->num_members - 1].name, "anchor.xml");
    for (size_t i = 0; i < a->num_metrics; i++) {
        cubex_index xa, xb;
        size_t va = 0, vb = 0;
        unsigned char *ra = check_metric_values(orig, a, i, &xa, &va);
        unsigned char *rb = check_metric_values(copy, b, i, &xb, &vb);
        assert_int_equal(ra == NULL, rb == NULL);
        if (!ra)
            continue;
        assert_int_equal(xb.big_endian, 0);
        assert_int_equal(xa.num_rows, xb.num_rows);
        assert_int_equal(xa.dense, xb.dense);
        if (!xa.dense && xa.num_rows)
            assert_memory_equal(xa.ordinals, xb.ordinals, xa.num_rows * sizeof *xa.ordinals);
        assert_int_equal(va, vb);
        assert_memory_equal(ra, rb, va * cubex_dtype_size(a->metrics[i].dtype));
        if (same_bytes) {
            for (int k = 0; k < 2; k++) {
                char name[64];
                size_t na, nb;
                cubex_metric_member_name(&a->metrics[i], k ? "index" : "data", name, sizeof name);
                unsigned char *ba = member_bytes(orig, name, &na), *bb = member_bytes(copy, name, &nb);
                /* the reference writer leaves the count out of an empty
                 * index; this writer always writes it */
                if (!(k && na == 18 && nb == 22)) {
                    assert_int_equal(na, nb);
                    assert_memory_equal(ba, bb, na);
                }
                free(ba);
                free(bb);
            }
        }
        free(ra);
        free(rb);
        cubex_index_free(&xa);
        cubex_index_free(&xb);
    }
    cubex_anchor_free(a);
    cubex_anchor_free(b);
}

/* Data members as stored: plain, little endian. */
static int plain_little_endian(const cubex_tar *t)
{
    for (size_t k = 0; k < t->num_members; k++) {
        const cubex_member *m = &t->members[k];
        size_t len = strlen(m->name);
        unsigned char head[11];
        cube_status st;
        if (len > 6 && !strcmp(m->name + len - 6, ".index") && m->size >= 15) {
            assert_int_equal(cubex_tar_pread(t, m, 11, head, 4, &st), 0);
            if (head[0] != 1) /* the byte order mark of big endian */
                return 0;
        }
        if (len > 5 && !strcmp(m->name + len - 5, ".data") && m->size >= 11) {
            assert_int_equal(cubex_tar_pread(t, m, 0, head, 11, &st), 0);
            if (head[0] == 'Z')
                return 0;
        }
    }
    return 1;
}

static void test_archive_copies(void **state)
{
    (void)state;
    size_t byte_identical = 0;
    for (size_t f = 0; files[f]; f++) {
        where_file = files[f];
        cubex_tar *t = open_file(files[f]);
        cubex_anchor *a = anchor_of(t);
        int plain_le = plain_little_endian(t);
        for (int variant = 0; variant < 2; variant++) {
            char *path = temp_path(".cubex");
            copy_archive(t, a, path, variant ? CUBEX_DATA_ZDEFAULT : CUBEX_DATA_PLAIN, variant);
            cubex_tar *c = open_path(path);
            assert_int_equal(c->bad_checksums, 0);
            same_archive(t, c, !variant && plain_le);
            byte_identical += !variant && plain_le;
            cubex_tar_close(c);
            unlink(path);
            free(path);
        }
        cubex_anchor_free(a);
        cubex_tar_close(t);
    }
    assert_true(byte_identical >= 6); /* the Score-P profiles, the example, the minimal file */
}

/* ---- the minimal file: the layout the reference lexer insists on ------------------- */

static const char *after(const char *text, const char *what)
{
    const char *p = strstr(text, what);
    if (!p)
        fail_msg("the anchor lacks \"%s\"", what);
    return p + strlen(what);
}

/* Every string of seq in this order in text, each right after the
 * previous one (only a newline between). */
static void expect_sequence(const char *text, const char *const *seq)
{
    const char *p = after(text, seq[0]);
    for (size_t i = 1; seq[i]; i++) {
        if (*p == '\n')
            p++;
        if (strncmp(p, seq[i], strlen(seq[i])) != 0)
            fail_msg("expected \"%s\" after \"%s\", found \"%.60s\"", seq[i], seq[i - 1], p);
        p += strlen(seq[i]);
    }
}

static void test_minimal_layout(void **state)
{
    (void)state;
    cubex_tar *t = open_file("mkcubex_minimal");
    cubex_anchor *a = anchor_of(t);
    char *path = temp_path(".cubex");
    copy_archive(t, a, path, CUBEX_DATA_PLAIN, 0);
    cubex_tar *c = open_path(path);
    /* the members in the reference writers' order, anchor.xml last */
    static const char *const order[] = {"0.data", "0.index", "1.data", "1.index",
                                        "2.data", "2.index", "anchor.xml"};
    assert_int_equal(c->num_members, 7);
    for (size_t k = 0; k < 7; k++)
        assert_string_equal(c->members[k].name, order[k]);
    /* two zero blocks end the archive, every member starts on a block */
    size_t n;
    char *bytes = slurp(path, &n);
    assert_int_equal(n % 512, 0);
    for (size_t i = n - 1024; i < n; i++)
        assert_int_equal(bytes[i], 0);
    free(bytes);
    size_t len;
    char *text = (char *)member_bytes(c, "anchor.xml", &len);
    text[len] = '\0';
    assert_int_equal(strncmp(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                   "<cube version=\"4.4\">\n", 60), 0);
    assert_null(strchr(text, '\'')); /* double quotes only */
    assert_null(strstr(text, "<!--"));
    assert_null(strstr(text, "&#"));
    static const char *const head[] = {
        "<cube version=\"4.4\">", "<attr key=\"Creator\" value=\"mkcubex.py (libcube test data)\"/>",
        "<doc>", "<mirrors>", "</mirrors>", "</doc>", "<metrics>",
        "<metric id=\"0\" type=\"EXCLUSIVE\">", "<disp_name>Visits</disp_name>",
        "<uniq_name>visits</uniq_name>", "<dtype>UINT64</dtype>", "<uom>occ</uom>", "<url></url>",
        "<descr></descr>", "</metric>", "<metric id=\"1\" type=\"INCLUSIVE\">", NULL};
    expect_sequence(text, head);
    static const char *const bytes_metric[] = {
        "<metric id=\"2\" type=\"EXCLUSIVE\">", "<disp_name>Bytes &amp; &lt;more&gt;</disp_name>",
        "<uniq_name>bytes</uniq_name>", NULL};
    expect_sequence(text, bytes_metric);
    static const char *const region[] = {
        "<region id=\"0\" mod=\"\" begin=\"-1\" end=\"-1\">", "<name>main</name>",
        "<mangled_name>main</mangled_name>", NULL};
    expect_sequence(text, region);
    static const char *const calls[] = {
        "</region>", "<cnode id=\"0\" calleeId=\"0\">", "<cnode id=\"1\" calleeId=\"1\">",
        "<cnode id=\"3\" calleeId=\"3\">", "<cnode id=\"5\" calleeId=\"4\">", "</cnode>",
        "</cnode>", "</cnode>", "<cnode id=\"2\" calleeId=\"2\">", "<cnode id=\"4\" calleeId=\"5\">",
        "</cnode>", "</cnode>", "</cnode>", "</program>", NULL};
    expect_sequence(strstr(text, "<region id=\"5\""), calls);
    static const char *const sys[] = {
        "<system>", "<systemtreenode Id=\"0\">", "<name>machine</name>", "<class>machine</class>",
        "<systemtreenode Id=\"1\">", "<name>node0</name>", "<class>node</class>",
        "<locationgroup Id=\"0\">", "<name>rank 0</name>", "<rank>0</rank>", "<type>process</type>",
        "<location Id=\"0\">", "<name>thread 0</name>", "<rank>0</rank>", "<type>thread</type>",
        "</location>", "</locationgroup>", "<locationgroup Id=\"1\">", "<name>rank 1</name>",
        "<rank>1</rank>", "<type>process</type>", "<location Id=\"1\">", "<name>thread 0</name>",
        "<rank>0</rank>", "<type>thread</type>", "</location>", "</locationgroup>",
        "</systemtreenode>", "</systemtreenode>", "<topologies>", "</topologies>", "</system>",
        "</cube>", NULL};
    expect_sequence(text, sys);
    assert_string_equal(after(text, "</system>\n</cube>"), "\n");
    free(text);
    cubex_tar_close(c);
    unlink(path);
    free(path);
    cubex_anchor_free(a);
    cubex_tar_close(t);
}

/* ---- hand-made definitions ------------------------------------------------------ */

/* Everything the records can hold, with text that needs escaping (all five
 * characters, in text and attributes), CDATA, blanks kept, the unquoted
 * CubePL attributes one writer produces, optional parts present and
 * absent, every location and group type, parameters, three kinds of
 * coordinates, two call trees. */
static const char every_element[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<cube version=\"4.5\">\n"
    "<attr key=\"a&amp;b&lt;c&gt;d&apos;e&quot;f\" value=\" x &amp; y \"/>\n"
    "<attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n"
    "<doc><mirrors><murl>http://m/?a=1&amp;b=2</murl></mirrors></doc>\n"
    "<metrics title=\"M &quot;t&quot;\">\n"
    "<metric id=\"7\" type=\"INCLUSIVE\" convertible=\"false\" cacheable=\"true\">\n"
    "<disp_name>Time &lt;all&gt;</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype>\n"
    "<uom>sec</uom><url>@mirror@t.html#a&amp;b</url><descr>it's \"all\"</descr>\n"
    "<attr key=\"k\" value=\"v\"/>\n"
    "<metric id=\"3\" type=\"DERIVED\" viztype=\"GHOST\">\n"
    "<uniq_name>d</uniq_name><dtype>NDOUBLES(3)</dtype><val>VOID</val>\n"
    "<cubepl rowwise=false>metric::time()*2 &lt; 3</cubepl>\n"
    "<cubeplinit locationwise=\"false\">{ ${a}=0; }</cubeplinit>\n"
    "<cubeplaggr cubeplaggrtype=plus>arg1+arg2</cubeplaggr>\n"
    "<cubeplaggr cubeplaggrtype=\"minus\"><![CDATA[arg1-arg2 < 3 & 4]]></cubeplaggr>\n"
    "</metric>\n"
    "<metric id=\"9\" type=\"SIMPLE\" viztype=\"NORMAL\"><uniq_name>odd</uniq_name>"
    "<dtype>QUATERNION</dtype><val></val></metric>\n"
    "</metric>\n"
    "<metric id=\"1\" type=\"PREDERIVED_INCLUSIVE\"><dtype>TAU_ATOMIC</dtype>"
    "<cubepl>1</cubepl></metric>\n"
    "</metrics>\n"
    "<program title=\"P\">\n"
    "<region id=\"4\" mod=\"a&amp;b.c\" begin=\"10\" end=\"20\"><name>main</name>"
    "<paradigm>compiler</paradigm><role>function</role><attr key=\"rk\" value=\"rv\"/></region>\n"
    "<region id=\"2\"><name>  f  </name><mangled_name>_Z1fv</mangled_name><descr>a\tb</descr></region>\n"
    "<cnode id=\"1\" calleeId=\"4\" line=\"5\" mod=\"a.c\">\n"
    "<parameter partype=\"numeric\" parkey=\"n\" parvalue=\"123456789.125\"/>\n"
    "<parameter partype=\"string\" parkey=\"s&lt;\" parvalue=\"a&quot;b\"/>\n"
    "<attr key=\"ck\" value=\"cv\"/>\n"
    "<cnode id=\"0\" calleeId=\"2\" line=\"-7\"><cnode id=\"3\" calleeId=\"4\"></cnode></cnode>\n"
    "</cnode>\n"
    "<cnode id=\"2\" calleeId=\"2\"/>\n"
    "</program>\n"
    "<system title=\"S\">\n"
    "<systemtreenode Id=\"5\"><name>m</name><class>machine</class><descr>d &gt; e</descr>"
    "<attr key=\"platform\" value=\"x\"/>\n"
    "<locationgroup Id=\"9\"><name>top</name><rank>3</rank><type>metrics</type>\n"
    "<location Id=\"3\"><name>m0</name><rank>0</rank><type>metric</type></location>\n"
    "</locationgroup>\n"
    "<systemtreenode Id=\"6\"><name>r</name><class>rack</class>\n"
    "<locationgroup Id=\"0\"><name>p0</name><rank>0</rank><type>process</type>"
    "<attr key=\"gk\" value=\"gv\"/>\n"
    "<location Id=\"1\"><name>t</name><rank>0</rank><type>thread</type></location>\n"
    "<location Id=\"2\"><name>g</name><rank>1</rank><type>gpu</type>"
    "<attr key=\"lk\" value=\"lv\"/></location>\n"
    "</locationgroup>\n"
    "<locationgroup Id=\"1\"><name>a</name><rank>1</rank><type>accelerator</type>\n"
    "<location Id=\"0\"><name>mt</name><rank>0</rank><type>metric</type></location>\n"
    "</locationgroup>\n"
    "</systemtreenode></systemtreenode>\n"
    "<systemtreenode Id=\"8\"><name>second root</name><class>machine</class>"
    "<locationgroup Id=\"3\"><name>p</name><rank>2</rank><type>process</type>"
    "<location Id=\"4\"><name>t</name><rank>0</rank><type>thread</type></location>"
    "</locationgroup></systemtreenode>\n"
    "<topologies>\n"
    "<cart name=\"P x T\" ndims=\"2\"><dim name=\"P\" size=\"2\" periodic=\"TRUE\"/>"
    "<dim size=\"3\" periodic=\"false\"/>\n"
    "<coord locId=\"2\">1 2</coord><coord lgId=\"2\"> 0\n1 </coord><coord stnId=\"2\">0 0</coord>\n"
    "</cart>\n"
    "<cart ndims=\"1\"><dim name=\"x\" size=\"1\" periodic=\"true\"/></cart>\n"
    "</topologies>\n"
    "</system>\n"
    "</cube>\n";

static cubex_anchor *parse_ok(const char *text, size_t n)
{
    cube_status st;
    cubex_anchor *a = cubex_anchor_parse(text, n, "hand-made", &st);
    if (!a)
        fail_msg("%s", st.message);
    return a;
}

static void test_every_element(void **state)
{
    (void)state;
    where_file = "hand-made";
    cubex_anchor *a = parse_ok(every_element, strlen(every_element));
    /* the reader took what the test means to write */
    assert_int_equal(a->num_metrics, 4);
    assert_int_equal(a->metrics[1].type, CUBEX_METRIC_POSTDERIVED);
    assert_int_equal(a->metrics[1].num_aggr, 2);
    assert_int_equal(a->num_locations, 5);
    assert_int_equal(a->num_stns, 3);
    assert_int_equal(a->num_carts, 2);
    assert_non_null(a->metrics[3].type_text);
    strbuf text = {0};
    cubex_anchor *b = rewritten(a, 0, &text);
    /* the Ids of nodes and groups are renumbered in document order; the
     * rest is as read */
    for (size_t i = 0; i < a->num_stns; i++) {
        assert_int_equal(b->stns[i].xml_id, (int64_t)i);
        a->stns[i].xml_id = (int64_t)i;
    }
    for (size_t i = 0; i < a->num_groups; i++) {
        assert_int_equal(b->groups[i].xml_id, (int64_t)i);
        a->groups[i].xml_id = (int64_t)i;
    }
    same_records(a, b);
    const char *s = strbuf_str(&text);
    /* escaped exactly the five, attributes double-quoted also in CubePL tags */
    after(s, "<attr key=\"a&amp;b&lt;c&gt;d&apos;e&quot;f\" value=\" x &amp; y \"/>");
    after(s, "<descr>it&apos;s &quot;all&quot;</descr>");
    after(s, "<cubepl rowwise=\"false\">metric::time()*2 &lt; 3</cubepl>");
    after(s, "<cubeplaggr cubeplaggrtype=\"minus\">arg1-arg2 &lt; 3 &amp; 4</cubeplaggr>");
    after(s, "<metric id=\"3\" type=\"DERIVED\" viztype=\"GHOST\">");
    after(s, "<metric id=\"7\" type=\"INCLUSIVE\" convertible=\"false\" cacheable=\"true\">");
    after(s, "<cnode id=\"1\" line=\"5\" mod=\"a.c\" calleeId=\"4\">\n<parameter partype=\"numeric\"");
    after(s, "<dim name=\"P\" size=\"2\" periodic=\"TRUE\"/>");
    after(s, "<cart ndims=\"1\">");
    /* a node's groups before its child nodes, though the groups came first
     * in the document too */
    static const char *const sys[] = {
        "<systemtreenode Id=\"0\">", "<name>m</name>", "<class>machine</class>",
        "<descr>d &gt; e</descr>", "<attr key=\"platform\" value=\"x\"/>",
        "<locationgroup Id=\"0\">", NULL};
    expect_sequence(s, sys);
    cubex_anchor_free(b);
    /* gzip-compressed: the same */
    b = rewritten(a, 1, NULL);
    same_records(a, b);
    cubex_anchor_free(b);
    strbuf_free(&text);
    cubex_anchor_free(a);
}

/* What the records may leave out is filled in with what readers assume. */
static void test_defaults(void **state)
{
    (void)state;
    where_file = "defaults";
    cubex_anchor *a = parse_ok(every_element, strlen(every_element));
    cubex_metric_def *m = &a->metrics[0];
    m->type_text = NULL;
    m->dtype_text = NULL;
    m->disp_name = NULL;
    a->metrics[2].type_text = (char *)"FOO";
    a->metrics[2].viztype_text = (char *)"whatever";
    a->metrics[3].dtype_text = NULL;
    a->regions[0].mangled_name = NULL;
    a->regions[0].paradigm = NULL;
    a->regions[0].role = NULL;
    a->carts[0].dims[1].periodic_text = NULL;
    cubex_anchor *b = rewritten(a, 0, NULL);
    assert_string_equal(b->metrics[0].type_text, "INCLUSIVE");
    assert_string_equal(b->metrics[0].dtype_text, "DOUBLE");
    assert_string_equal(b->metrics[0].disp_name, "");
    assert_string_equal(b->metrics[2].type_text, "SIMPLE");
    assert_string_equal(b->metrics[2].viztype_text, "NORMAL");
    assert_string_equal(b->metrics[3].dtype_text, "TAU_ATOMIC");
    assert_string_equal(b->regions[0].mangled_name, "main");
    assert_string_equal(b->regions[0].paradigm, "unknown");
    assert_string_equal(b->regions[0].role, "unknown");
    assert_string_equal(b->carts[0].dims[1].periodic_text, "false");
    cubex_anchor_free(b);
    cubex_anchor_free(a);
}

/* CUBE 3 documents: the records of <machine>, <node>, <process>,
 * <thread> and their coordinates written as CUBE 4, read back the same
 * (but for the Ids the format ignores and the coordinates' names). */
static void expect_cube3_as_cube4(cubex_anchor *a, cubex_anchor *b)
{
    for (size_t i = 0; i < a->num_metrics; i++) {
        assert_null(a->metrics[i].type_text);
        assert_string_equal(b->metrics[i].type_text, "EXCLUSIVE");
        a->metrics[i].type_text = (char *)"EXCLUSIVE";
    }
    for (size_t i = 0; i < a->num_stns; i++)
        a->stns[i].xml_id = (int64_t)i;
    for (size_t i = 0; i < a->num_groups; i++)
        a->groups[i].xml_id = (int64_t)i;
}

static const char cube3_coords[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<cube version=\"3.0\">\n"
    "<metrics><metric id=\"0\"><uniq_name>time</uniq_name><dtype>FLOAT</dtype></metric></metrics>\n"
    "<program><region id=\"0\"><name>main</name></region><cnode id=\"0\" calleeId=\"0\"></cnode>"
    "</program>\n"
    "<system>\n"
    "<machine Id=\"1\"><name>m1</name><descr>first</descr>\n"
    "<node Id=\"1\"><name>n1</name>\n"
    "<process Id=\"2\"><name>p</name><rank>1</rank><thread Id=\"1\"><rank>0</rank></thread></process>\n"
    "<process Id=\"0\"><rank>0</rank><thread Id=\"0\"><name>t</name></thread></process>\n"
    "</node></machine>\n"
    "<machine Id=\"0\"><name>m0</name>\n"
    "<node Id=\"0\"><name>n0</name>\n"
    "<process Id=\"1\"><rank>2</rank><thread Id=\"2\"><rank>0</rank></thread></process>\n"
    "</node></machine>\n"
    "<topologies>\n"
    "<cart ndims=\"1\"><dim size=\"3\" periodic=\"false\"/>"
    "<coord thrdId=\"2\">0</coord><coord procId=\"0\">1</coord><coord procId=\"1\">2</coord>"
    "</cart>\n"
    "<cart ndims=\"1\"><dim size=\"4\" periodic=\"false\"/>"
    "<coord machId=\"0\">0</coord><coord machId=\"1\">1</coord>"
    "<coord nodeId=\"0\">2</coord><coord nodeId=\"1\">3</coord></cart>\n"
    "</topologies>\n"
    "</system>\n"
    "<severity></severity>\n"
    "</cube>\n";

static void test_cube3_documents(void **state)
{
    (void)state;
    /* (the raw-amp file is not XML: its definitions are not read this way) */
    static const char *const cube3[] = {"kojak-expert_ctest-pomp",
                                        "scalasca-bgpBT_experiment1", "scalasca_trace",
                                        "scorep-1.1_profile", "tau2cube_template1", NULL};
    for (size_t f = 0; cube3[f]; f++) {
        char path[256];
        snprintf(path, sizeof path, "testdata/cube/%s.cube", cube3[f]);
        where_file = path;
        size_t n;
        char *text = slurp(path, &n);
        assert_non_null(text);
        cubex_anchor *a = parse_ok(text, n);
        free(text);
        assert_string_equal(a->version, "3.0");
        cubex_anchor *b = rewritten(a, 0, NULL);
        expect_cube3_as_cube4(a, b);
        for (size_t k = 0; k < a->num_carts; k++)
            for (size_t i = 0; i < a->carts[k].num_coords; i++) {
                assert_int_equal(a->carts[k].coords[i].kind, CUBEX_COORD_THREAD);
                a->carts[k].coords[i].kind = CUBEX_COORD_LOCATION; /* thread Id = location id */
            }
        same_records(a, b);
        cubex_anchor_free(a);
        cubex_anchor_free(b);
    }
    /* procId, machId and nodeId name an entity by its CUBE 3 Id, which
     * need not be its position: written as the position it gets */
    where_file = "cube3 coordinates";
    cubex_anchor *a = parse_ok(cube3_coords, strlen(cube3_coords));
    cubex_anchor *b = rewritten(a, 0, NULL);
    static const struct { cubex_coord_kind kind; int64_t id; } want[2][4] = {
        {{CUBEX_COORD_LOCATION, 2}, {CUBEX_COORD_GROUP, 1}, {CUBEX_COORD_GROUP, 2}},
        {{CUBEX_COORD_STN, 2}, {CUBEX_COORD_STN, 0}, {CUBEX_COORD_STN, 3}, {CUBEX_COORD_STN, 1}}};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < b->carts[k].num_coords; i++) {
            assert_int_equal(b->carts[k].coords[i].kind, want[k][i].kind);
            assert_int_equal(b->carts[k].coords[i].id, want[k][i].id);
            a->carts[k].coords[i].kind = want[k][i].kind;
            a->carts[k].coords[i].id = want[k][i].id;
        }
    expect_cube3_as_cube4(a, b);
    same_records(a, b);
    cubex_anchor_free(a);
    cubex_anchor_free(b);
}

/* One metric, one region, one location around a call tree. */
static const char minimal_head[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n"
    "<metrics><metric id=\"0\" type=\"EXCLUSIVE\"><dtype>DOUBLE</dtype></metric></metrics>\n"
    "<program><region id=\"0\"><name>f</name></region>\n";
static const char minimal_tail[] =
    "</program>\n<system><systemtreenode Id=\"0\"><name>m</name><class>machine</class>"
    "<locationgroup Id=\"0\"><name>p</name><rank>0</rank><type>process</type>"
    "<location Id=\"0\"><name>t</name><rank>0</rank><type>thread</type></location>"
    "</locationgroup></systemtreenode></system></cube>\n";

/* A call chain deeper than recursion would survive, written and read. */
static void test_deep_chain(void **state)
{
    (void)state;
    where_file = "deep chain";
    enum { DEPTH = 100000 };
    strbuf s = {0};
    assert_int_equal(strbuf_append(&s, minimal_head, strlen(minimal_head)), 0);
    char tag[64];
    for (int i = 0; i < DEPTH; i++) {
        snprintf(tag, sizeof tag, "<cnode id=\"%d\" calleeId=\"0\">", i);
        assert_int_equal(strbuf_append(&s, tag, strlen(tag)), 0);
    }
    for (int i = 0; i < DEPTH; i++)
        assert_int_equal(strbuf_append(&s, "</cnode>", 8), 0);
    assert_int_equal(strbuf_append(&s, minimal_tail, strlen(minimal_tail)), 0);
    cubex_anchor *a = parse_ok(s.data, s.len);
    assert_int_equal(a->num_cnodes, DEPTH);
    cubex_anchor *b = rewritten(a, 0, NULL);
    same_records(a, b);
    cubex_anchor_free(a);
    cubex_anchor_free(b);
    strbuf_free(&s);
}

/* ---- values at the edges of their types ------------------------------------------ */

static void expect_bytes(cubex_dtype t, double v, const char *hex)
{
    unsigned char got[16], want[16];
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned x;
        sscanf(hex + 2 * i, "%2x", &x);
        want[i] = (unsigned char)x;
    }
    assert_int_equal(cubex_dtype_size(t), n);
    assert_int_equal(cubex_value_encode(t, &v, got), 0);
    if (memcmp(got, want, n) != 0)
        fail_msg("kind %d: %.17g not encoded as %s", (int)t.kind, v, hex);
}

static void test_value_edges(void **state)
{
    (void)state;
    const cubex_dtype u8 = {CUBEX_UINT8, 0}, i8 = {CUBEX_INT8, 0}, i16 = {CUBEX_INT16, 0},
                      u32 = {CUBEX_UINT32, 0}, i64 = {CUBEX_INT64, 0}, u64 = {CUBEX_UINT64, 0},
                      dbl = {CUBEX_DOUBLE, 0}, mind = {CUBEX_MINDOUBLE, 0};
    expect_bytes(u8, 255, "ff");
    expect_bytes(u8, -1, "ff");          /* two's complement, as stored counters */
    expect_bytes(i8, -128, "80");
    expect_bytes(i16, -2, "feff");
    expect_bytes(u32, 2.6, "03000000");  /* rounded to the nearest */
    expect_bytes(u32, -2.5, "fdffffff");
    expect_bytes(u64, -7, "f9ffffffffffffff");
    expect_bytes(u64, 1e30, "ffffffffffffffff"); /* saturated */
    expect_bytes(u64, NAN, "0000000000000000");
    expect_bytes(i64, -1e30, "0000000000000080");
    expect_bytes(i64, 1e30, "ffffffffffffff7f");
    expect_bytes(dbl, 1.0, "000000000000f03f");
    expect_bytes(dbl, -0.0, "0000000000000080");
    expect_bytes(mind, DBL_MAX, "ffffffffffffef7f");
    /* exact bits beyond 2^53, where a double cannot hold the value */
    unsigned char b[8];
    const uint64_t big[] = {((uint64_t)1 << 53) + 1, UINT64_MAX - 6, (uint64_t)INT64_MIN + 1};
    for (size_t i = 0; i < 3; i++) {
        for (int k = 0; k < 2; k++) {
            cubex_dtype t = k ? u64 : i64;
            assert_int_equal(cubex_value_encode_int(t, big[i], b), 0);
            assert_true(cubex_value_int(t, 0, b) == big[i]);
        }
    }
    assert_int_equal(cubex_value_encode_int(i16, (uint64_t)-300, b), 0);
    assert_true(cubex_value_int(i16, 0, b) == (uint64_t)-300);
    assert_int_equal(cubex_value_encode_int(dbl, 1, b), -1);
    /* every type: the neutral value and a few more go through decode */
    static const char *const types[] = {"INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32",
                                        "INT64", "UINT64", "DOUBLE", "MINDOUBLE", "MAXDOUBLE",
                                        "COMPLEX", "RATE", "TAU_ATOMIC", "NDOUBLES(4)",
                                        "HISTOGRAM(3)", "SCALE_FUNC", NULL};
    for (size_t i = 0; types[i]; i++) {
        cubex_dtype t;
        char name[32];
        assert_int_equal(cubex_dtype_parse(types[i], &t), 0);
        assert_int_equal(cubex_dtype_name(t, name, sizeof name), (int)strlen(types[i]));
        assert_string_equal(name, types[i]);
        double v[CUBEX_SCALE_FUNC_SLOTS], w[CUBEX_SCALE_FUNC_SLOTS];
        unsigned char e[CUBEX_SCALE_FUNC_BYTES], f[CUBEX_SCALE_FUNC_BYTES];
        size_t nc = cubex_dtype_components(t);
        cubex_value_neutral(t, v);
        assert_int_equal(cubex_value_encode(t, v, e), 0);
        assert_int_equal(cubex_value_decode(t, 0, e, w), 0);
        assert_memory_equal(v, w, nc * sizeof *v);
        for (size_t k = 0; k < nc; k++) /* small integers: every field holds them */
            v[k] = (double)(k % 7);
        if (t.kind == CUBEX_SCALE_FUNC) {
            memset(v, 0, sizeof v);
            v[0] = 2, v[1] = 1;                       /* 2 terms, 1 measurement */
            v[2] = 1.5, v[3] = -1, v[4] = 2, v[5] = -3; /* a, b, c, d */
            v[6] = 0.25, v[7] = 4, v[8] = 1, v[9] = 0;
            v[10] = 64, v[11] = 3.25, v[12] = 0.5;    /* nproc, mean, width */
        }
        assert_int_equal(cubex_value_encode(t, v, e), 0);
        assert_int_equal(cubex_value_decode(t, 0, e, w), 0);
        assert_memory_equal(v, w, nc * sizeof *v);
        assert_int_equal(cubex_value_encode(t, w, f), 0);
        assert_memory_equal(e, f, cubex_dtype_size(t));
    }
    /* a SCALE_FUNC value with more terms than 848 bytes hold */
    cubex_dtype sf = {CUBEX_SCALE_FUNC, 0};
    double v[CUBEX_SCALE_FUNC_SLOTS] = {43, 0};
    unsigned char e[CUBEX_SCALE_FUNC_BYTES];
    assert_int_equal(cubex_value_encode(sf, v, e), -1);
    v[0] = 30, v[1] = 11;
    assert_int_equal(cubex_value_encode(sf, v, e), -1);
    char small[4];
    assert_int_equal(cubex_dtype_name((cubex_dtype){CUBEX_NDOUBLES, 12}, small, sizeof small), -1);
}

/* ---- index and data members on their own ------------------------------------------ */

/* A fresh archive at path through a writer. */
static cubex_tar_writer *new_archive(const char *path, FILE **fp)
{
    cube_status st;
    *fp = fopen(path, "wb");
    assert_non_null(*fp);
    cubex_tar_writer *w = cubex_tar_writer_open_fp(*fp, path, &st);
    assert_non_null(w);
    return w;
}

static void close_archive(cubex_tar_writer *w, FILE *fp)
{
    cube_status st;
    assert_int_equal(cubex_tar_finish(w, &st), 0);
    cubex_tar_writer_free(w);
    assert_int_equal(fclose(fp), 0);
}

static void test_members(void **state)
{
    (void)state;
    char *path = temp_path(".cubex");
    FILE *fp;
    cubex_tar_writer *w = new_archive(path, &fp);
    cube_status st;
    /* empty: an index with its count 0, data without rows, plain and compressed */
    cubex_index empty = {0, 0, 0, NULL};
    assert_int_equal(cubex_index_member_size(&empty), 22);
    assert_int_equal(cubex_index_write(w, "0.index", &empty, 0, &st), 0);
    cubex_data_writer *d = cubex_data_writer_open(w, "0.data", 16, 0, CUBEX_DATA_PLAIN, 0, &st);
    assert_non_null(d);
    assert_int_equal(cubex_data_writer_close(d, &st), 0);
    d = cubex_data_writer_open(w, "1.data", 16, 0, 9, 0, &st);
    assert_non_null(d);
    assert_int_equal(cubex_data_writer_close(d, &st), 0);
    /* sparse rows of 3 locations x 8 bytes, compressed; and dense */
    uint32_t ord[] = {1, 4, 5, 9};
    cubex_index sparse = {0, 0, 4, ord}, dense = {0, 1, 10, NULL};
    unsigned char rows[10 * 24];
    for (size_t i = 0; i < sizeof rows; i++)
        rows[i] = (unsigned char)(i * 7 + 1);
    assert_int_equal(cubex_index_write(w, "2.index", &sparse, 0, &st), 0);
    d = cubex_data_writer_open(w, "2.data", 24, 4, CUBEX_DATA_ZDEFAULT, 0, &st);
    assert_non_null(d);
    for (size_t k = 0; k < 4; k++)
        assert_int_equal(cubex_data_writer_rows(d, rows + 24 * k, 1, &st), 0);
    assert_int_equal(cubex_data_writer_close(d, &st), 0);
    assert_int_equal(cubex_index_member_size(&dense), 18);
    assert_int_equal(cubex_index_write(w, "3.index", &dense, 0, &st), 0);
    d = cubex_data_writer_open(w, "3.data", 24, 10, 1, 0, &st);
    assert_non_null(d);
    assert_int_equal(cubex_data_writer_rows(d, rows, 10, &st), 0);
    assert_int_equal(cubex_data_writer_close(d, &st), 0);
    close_archive(w, fp);

    cubex_tar *t = open_path(path);
    cubex_index ix;
    cubex_data dt;
    unsigned char got[10 * 24], present[10];
    /* the empty ones */
    assert_int_equal(cubex_tar_find(t, "0.index")->size, 22);
    assert_int_equal(cubex_tar_find(t, "0.data")->size, 10);
    assert_int_equal(cubex_tar_find(t, "1.data")->size, 19);
    assert_int_equal(cubex_index_read(t, cubex_tar_find(t, "0.index"), 10, &ix, &st), 0);
    assert_int_equal(ix.num_rows, 0);
    assert_int_equal(ix.dense, 0);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(cubex_data_open(t, cubex_tar_find(t, k ? "1.data" : "0.data"), &ix, 16,
                                         &dt, &st), 0);
        assert_int_equal(dt.compressed, k);
        cubex_data_close(&dt);
    }
    cubex_index_free(&ix);
    /* compressed sparse */
    assert_int_equal(cubex_index_read(t, cubex_tar_find(t, "2.index"), 10, &ix, &st), 0);
    assert_int_equal(ix.num_rows, 4);
    assert_memory_equal(ix.ordinals, ord, sizeof ord);
    assert_int_equal(cubex_data_open(t, cubex_tar_find(t, "2.data"), &ix, 24, &dt, &st), 0);
    assert_int_equal(dt.compressed, 1);
    assert_int_equal(cubex_data_read_rows(&dt, 0, 4, got, present, &st), 0);
    assert_memory_equal(got, rows, 4 * 24);
    assert_memory_equal(present, "\1\1\1\1", 4);
    assert_int_equal(cubex_data_read_row(&dt, 2, got, &st), 1);
    assert_memory_equal(got, rows + 48, 24);
    cubex_data_close(&dt);
    cubex_index_free(&ix);
    /* dense, compressed with level 1 */
    assert_int_equal(cubex_index_read(t, cubex_tar_find(t, "3.index"), 10, &ix, &st), 0);
    assert_int_equal(ix.dense, 1);
    assert_int_equal(cubex_data_open(t, cubex_tar_find(t, "3.data"), &ix, 24, &dt, &st), 0);
    assert_int_equal(cubex_data_read_rows(&dt, 0, 10, got, NULL, &st), 0);
    assert_memory_equal(got, rows, sizeof rows);
    cubex_data_close(&dt);
    cubex_index_free(&ix);
    cubex_tar_close(t);
    unlink(path);
    free(path);
}

/* Writing a must fail with CUBE_EINVAL "anchor.xml: <message>". */
static void expect_refused(const cubex_anchor *a, const char *message)
{
    strbuf out = {0};
    cube_status st;
    char want[400];
    snprintf(want, sizeof want, "anchor.xml: %s", message);
    assert_int_equal(cubex_anchor_write(a, 0, &out, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    assert_string_equal(st.message, want);
    strbuf_free(&out);
}

/* Calls that cannot give a valid member or document are refused. */
static void test_refusals(void **state)
{
    (void)state;
    char *path = temp_path(".cubex");
    FILE *fp;
    cubex_tar_writer *w = new_archive(path, &fp);
    cube_status st;
    uint32_t ord[] = {3, 3};
    cubex_index bad = {0, 0, 2, ord};
    assert_int_equal(cubex_index_write(w, "0.index", &bad, 0, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    assert_string_equal(st.message, "member 0.index: ordinals must ascend strictly, found 3 after 3");
    assert_null(cubex_data_writer_open(w, "0.data", 0, 1, 0, 0, &st));
    assert_int_equal(st.code, CUBE_EINVAL);
    assert_null(cubex_data_writer_open(w, "0.data", 8, 1, 10, 0, &st));
    assert_int_equal(st.code, CUBE_EINVAL);
    unsigned char row[16] = {0};
    for (int z = 0; z < 2; z++) {
        cubex_data_writer *d = cubex_data_writer_open(w, z ? "2.data" : "1.data", 8, 1, z, 0, &st);
        assert_non_null(d);
        assert_int_equal(cubex_data_writer_rows(d, row, 2, &st), -1);
        assert_int_equal(st.code, CUBE_EINVAL);
        assert_string_equal(st.message, z ? "member 2.data: 1 rows more than the 1 announced"
                                          : "member 1.data: 1 rows more than the 1 announced");
        assert_int_equal(cubex_data_writer_close(d, &st), -1);
        assert_string_equal(st.message, z ? "member 2.data: 0 rows written of the 1 announced"
                                          : "member 1.data: 0 rows written of the 1 announced");
        if (!z) {
            cubex_tar_writer_free(w); /* the member is incomplete: the archive is abandoned */
            fclose(fp);
            w = new_archive(path, &fp);
        }
    }
    close_archive(w, fp);
    unlink(path);
    free(path);

    /* records no document can say */
    cubex_anchor *a = parse_ok(every_element, strlen(every_element));
    a->locations[1].id = 7;
    expect_refused(a, "location 1: id 7 is out of range (ids are the data columns 0 ... 4)");
    a->locations[1].id = 2;
    expect_refused(a, "location 2: id 2 is given twice (ids are the data columns 0 ... 4)");
    a->locations[1].id = 1;
    a->locations[0].group = 2; /* group 0 is left without location */
    expect_refused(a, "location group 0 has no location: the format needs one at least");
    a->locations[0].group = 0;
    a->cnodes[1].parent = 2;
    expect_refused(a, "cnode 1: its parent 2 is not before it");
    a->cnodes[1].parent = 0;
    a->cnodes[1].region = 9;
    expect_refused(a, "cnode 1: region 9 of 2");
    a->cnodes[1].region = 0;
    a->cnodes[3].id = 1;
    expect_refused(a, "cnodes 0 and 3 have the same id 1");
    a->cnodes[3].id = 2;
    a->metrics[2].id = 1;
    expect_refused(a, "metrics 2 and 3 have the same id 1");
    a->metrics[2].id = 9;
    a->regions[1].id = 4;
    expect_refused(a, "regions 0 and 1 have the same id 4");
    a->regions[1].id = 2;
    a->carts[0].coords[1].id = 9;
    expect_refused(a, "a coordinate (kind 1) names entity 9, which does not exist");
    a->carts[0].coords[1].id = 2;
    strbuf out = {0};
    assert_int_equal(cubex_anchor_write(a, 0, &out, &st), 0);
    strbuf_free(&out);
    cubex_anchor_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anchor_round_trip),
        cmocka_unit_test(test_reference_layout),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_archive_copies),
        cmocka_unit_test(test_minimal_layout),
        cmocka_unit_test(test_every_element),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_cube3_documents),
        cmocka_unit_test(test_deep_chain),
        cmocka_unit_test(test_value_edges),
        cmocka_unit_test(test_members),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, list_files, free_files);
}
