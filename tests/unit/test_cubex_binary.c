/*
 * test_cubex_binary.c - the index and data members of real CUBE 4 files
 * and the call-tree enumerations, against the files' expected values
 * (testdata/cubex/NAME.expected.json): every stored value at (metric,
 * ordinal -> call path, location), every index, both enumerations; then
 * hostile members (counts beyond the call tree, compressed rows that
 * inflate too far, broken headers) and the value types.
 */
#include "test_support.h"
#include "json_reader.h"
#include "cubex_expected.h"
#include "cubex/binary_private.h"
#include "cubex/tar_private.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Every file's stored values are compared (cubex_files): the worked
 * example, the file with every value type, Score-P profiles (little and
 * big endian, with the wrong tar checksums, with 2^64 - k counters),
 * CubeLib conversions with compressed data and an 18-byte empty index, a
 * forest of 195 roots, escaped names, metric ids that do not match their
 * data, derived metrics without members. */
static const char *const *const value_files = cubex_files;

/* CUBEX_TESTDATA names another folder of such files (to check more of
 * them by hand); the tests use testdata/cubex. */
static const char *data_dir(void)
{
    const char *d = getenv("CUBEX_TESTDATA");
    return d && *d ? d : "testdata/cubex";
}

static cubex_tar *open_archive(const char *name)
{
    char path[1024];
    cube_status st;
    snprintf(path, sizeof path, "%s/%s.cubex", data_dir(), name);
    cubex_tar *t = cubex_tar_open_path(path, 0, &st);
    if (!t)
        fail_msg("%s: %s", path, st.message);
    return t;
}

/* ---- the call tree of an expected file ----------------------------------- */

typedef struct {
    size_t n;
    size_t *id;      /* index (document pre-order) -> cnode id */
    cubex_tree tree; /* over indexes */
    size_t *pre, *wide; /* ordinal -> index */
} call_tree;

static void load_tree(const json *j, call_tree *ct)
{
    const json *cn = json_get(j, "cnodes");
    size_t n = json_len(cn);
    assert_true(n > 0);
    ct->n = n;
    ct->id = malloc(n * sizeof *ct->id);
    size_t *parent = malloc(n * sizeof *parent), *index_of = malloc(n * sizeof *index_of);
    assert_non_null(ct->id);
    assert_non_null(parent);
    assert_non_null(index_of);
    for (size_t i = 0; i < n; i++) {
        ct->id[i] = (size_t)json_u64(json_at(json_at(cn, i), 0));
        assert_true(ct->id[i] < n); /* ids 0..n-1, as in every real file */
        index_of[ct->id[i]] = i;
    }
    for (size_t i = 0; i < n; i++) {
        const json *p = json_at(json_at(cn, i), 1);
        parent[i] = p->type == JSON_NULL ? SIZE_MAX : index_of[json_u64(p)];
    }
    assert_int_equal(cubex_tree_from_parents(n, parent, &ct->tree), 0);
    ct->pre = malloc(n * sizeof *ct->pre);
    ct->wide = malloc(n * sizeof *ct->wide);
    assert_int_equal(cubex_enumerate(&ct->tree, CUBEX_PREORDER, ct->pre), 0);
    assert_int_equal(cubex_enumerate(&ct->tree, CUBEX_WIDE, ct->wide), 0);
    free(parent);
    free(index_of);
}

static void free_tree(call_tree *ct)
{
    cubex_tree_free(&ct->tree);
    free(ct->id);
    free(ct->pre);
    free(ct->wide);
}

/* ---- one metric of one file ---------------------------------------------------- */

typedef struct {
    const char *file;
    const json *doc;
    cubex_tar *tar;
    call_tree ct;
    size_t num_locations;
    size_t stored, nonzero; /* over all metrics */
} file_check;

/* The expected values of metric `key`, by (cnode id, location): a grid of
 * pointers into the document (NULL: not listed, so all-zero bytes). */
static const json **expected_grid(file_check *fc, const char *key, size_t *count)
{
    size_t L = fc->num_locations;
    const json **grid = calloc(fc->ct.n * L, sizeof *grid);
    assert_non_null(grid);
    const json *sv = json_get(fc->doc, "stored_values");
    *count = 0;
    for (size_t i = 0; i < json_len(sv); i++) {
        const json *e = json_at(sv, i);
        if (strcmp(json_str(json_at(e, 0)), key) != 0)
            continue;
        size_t c = (size_t)json_u64(json_at(e, 1)), l = (size_t)json_u64(json_at(e, 2));
        assert_true(c < fc->ct.n && l < L);
        grid[c * L + l] = json_at(e, 3);
        ++*count;
    }
    return grid;
}

/* The index of metric m as the expected file describes it. */
static void check_index(file_check *fc, const json *m, const cubex_index *ix, const cubex_data *d,
                        const size_t *cnode_of)
{
    const json *e = json_get(json_get(fc->doc, "indexes"), json_str(json_get(m, "key")));
    assert_non_null(e);
    assert_int_equal(ix->big_endian, strcmp(json_str(json_get(e, "endianness")), "big") == 0);
    assert_int_equal(ix->dense, strcmp(json_str(json_get(e, "format")), "dense") == 0);
    assert_int_equal(d->compressed, strcmp(json_str(json_get(e, "data_marker")), "ZCUBEX.DATA") == 0);
    const char *type = json_str(json_get(m, "type"));
    assert_string_equal(json_str(json_get(e, "enumeration")),
                        strcmp(type, "EXCLUSIVE") == 0 ? "preorder" : "wide");
    const json *ords = json_get(e, "ordinals"), *ids = json_get(e, "cnode_ids");
    assert_int_equal(json_len(ords), ix->num_rows);
    for (size_t k = 0; k < ix->num_rows; k++) {
        uint32_t o = ix->dense ? (uint32_t)k : ix->ordinals[k];
        assert_int_equal(o, json_u64(json_at(ords, k)));
        assert_int_equal(fc->ct.id[cnode_of[o]], json_u64(json_at(ids, k)));
        assert_int_equal(cubex_index_row(ix, o), (long)k);
    }
}

static void check_metric(file_check *fc, const json *m)
{
    const char *key = json_str(json_get(m, "key"));
    char iname[64], dname[64], where[256];
    int ghost = json_str(json_get(m, "viztype")) && strcmp(json_str(json_get(m, "viztype")), "GHOST") == 0;
    snprintf(iname, sizeof iname, "%s%llu.index", ghost ? "ghost_" : "", (unsigned long long)json_u64(json_get(m, "file_id")));
    snprintf(dname, sizeof dname, "%s%llu.data", ghost ? "ghost_" : "", (unsigned long long)json_u64(json_get(m, "file_id")));
    const cubex_member *mi = cubex_tar_find(fc->tar, iname), *md = cubex_tar_find(fc->tar, dname);
    if (json_get(m, "has_data_members")->type != JSON_TRUE) {
        assert_null(mi);
        return;
    }
    assert_non_null(mi);
    assert_non_null(md);
    cubex_dtype t;
    assert_int_equal(cubex_dtype_parse(json_str(json_get(m, "dtype")), &t), 0);
    size_t vs = cubex_dtype_size(t), L = fc->num_locations;
    assert_int_equal(vs, json_u64(json_get(m, "value_size_bytes")));
    const size_t *cnode_of = strcmp(json_str(json_get(m, "type")), "EXCLUSIVE") == 0 ? fc->ct.pre : fc->ct.wide;
    cube_status st;
    cubex_index ix;
    cubex_data d;
    if (cubex_index_read(fc->tar, mi, fc->ct.n, &ix, &st) != 0)
        fail_msg("%s: %s", fc->file, st.message);
    if (cubex_data_open(fc->tar, md, &ix, vs * L, &d, &st) != 0)
        fail_msg("%s: %s", fc->file, st.message);
    check_index(fc, m, &ix, &d, cnode_of);
    size_t listed, matched = 0;
    const json **grid = expected_grid(fc, key, &listed);
    unsigned char *row = malloc(vs * L);
    static const unsigned char zeros[CUBEX_SCALE_FUNC_BYTES];
    assert_non_null(row);
    for (size_t k = 0; k < ix.num_rows; k++) {
        assert_int_equal(cubex_data_read_row(&d, k, row, &st), 1);
        size_t c = fc->ct.id[cnode_of[ix.dense ? k : ix.ordinals[k]]];
        for (size_t l = 0; l < L; l++) {
            const json *want = grid[c * L + l];
            snprintf(where, sizeof where, "%s: %s at cnode %zu, location %zu", fc->file, key, c, l);
            fc->stored++;
            if (want) {
                cubex_expect_value(t, ix.big_endian, row + l * vs, want, where);
                matched++;
            } else if (memcmp(row + l * vs, zeros, vs < sizeof zeros ? vs : sizeof zeros) != 0) {
                fail_msg("%s: not listed, so expected all-zero bytes", where);
            }
        }
    }
    assert_int_equal(matched, listed);
    fc->nonzero += matched;
    /* all rows in one call: the same bytes */
    if (ix.num_rows) {
        unsigned char *all = malloc(ix.num_rows * vs * L), *present = malloc(ix.num_rows);
        assert_non_null(all);
        assert_non_null(present);
        assert_int_equal(cubex_data_read_rows(&d, 0, ix.num_rows, all, present, &st), 0);
        for (size_t k = 0; k < ix.num_rows; k++) {
            assert_int_equal(cubex_data_read_row(&d, k, row, &st), 1);
            assert_memory_equal(all + k * vs * L, row, vs * L);
            assert_int_equal(present[k], 1);
        }
        assert_int_equal(cubex_data_read_rows(&d, 1, ix.num_rows, all, NULL, &st), -1);
        assert_int_equal(st.code, CUBE_EINVAL);
        free(all);
        free(present);
    }
    free(row);
    free(grid);
    cubex_data_close(&d);
    cubex_index_free(&ix);
}

static void check_file(const char *name)
{
    file_check fc = {name, NULL, NULL, {0}, 0, 0, 0};
    json *doc = json_load_expected(data_dir(), name);
    assert_non_null(doc);
    fc.doc = doc;
    fc.tar = open_archive(name);
    load_tree(doc, &fc.ct);
    fc.num_locations = json_len(json_get(doc, "locations"));
    const json *metrics = json_get(doc, "metrics");
    for (size_t i = 0; i < json_len(metrics); i++)
        check_metric(&fc, json_at(metrics, i));
    assert_int_equal(fc.stored, json_u64(json_get(doc, "stored_values_total")));
    assert_int_equal(fc.nonzero, json_u64(json_get(doc, "stored_values_nonzero")));
    free_tree(&fc.ct);
    cubex_tar_close(fc.tar);
    json_free(doc);
}

/* Every stored value of every file equals the expected one, each row at
 * the call path its ordinal stands for in its metric's enumeration. */
static void test_values_of_real_files(void **state)
{
    (void)state;
    const char *only = getenv("CUBEX_FILES"); /* a space-separated list instead */
    if (only && *only) {
        char *list = strdup(only);
        for (char *tok = strtok(list, " "); tok; tok = strtok(NULL, " "))
            check_file(tok);
        free(list);
        return;
    }
    for (size_t i = 0; value_files[i]; i++)
        check_file(value_files[i]);
}

/* ---- enumerations ------------------------------------------------------------------ */

/* Both enumerations of every file's call tree as the expected file lists
 * them (ids of the file). */
static void test_enumerations_of_real_files(void **state)
{
    (void)state;
    for (size_t f = 0; value_files[f]; f++) {
        json *doc = json_load_expected(data_dir(), value_files[f]);
        assert_non_null(doc);
        call_tree ct;
        load_tree(doc, &ct);
        const json *e = json_get(doc, "enumerations");
        const json *pre = json_get(e, "preorder"), *wide = json_get(e, "wide");
        assert_int_equal(json_len(pre), ct.n);
        assert_int_equal(json_len(wide), ct.n);
        for (size_t o = 0; o < ct.n; o++) {
            assert_int_equal(ct.id[ct.pre[o]], json_u64(json_at(pre, o)));
            assert_int_equal(ct.id[ct.wide[o]], json_u64(json_at(wide, o)));
        }
        free_tree(&ct);
        json_free(doc);
    }
}

/* The definitions of the two orders, written as recursion over a parent
 * array, for comparison with the library's iterative walk. */
static void ref_pre(size_t n, const size_t *parent, size_t x, size_t *out, size_t *k)
{
    out[(*k)++] = x;
    for (size_t c = 0; c < n; c++)
        if (parent[c] == x)
            ref_pre(n, parent, c, out, k);
}

static void ref_wide(size_t n, const size_t *parent, size_t x, size_t *out, size_t *k)
{
    if (parent[x] == SIZE_MAX)
        out[(*k)++] = x;
    for (size_t c = 0; c < n; c++)
        if (parent[c] == x)
            out[(*k)++] = c;
    for (size_t c = 0; c < n; c++)
        if (parent[c] == x)
            ref_wide(n, parent, c, out, k);
}

/* Random forests (several roots, any numbering): the library's orders are
 * those of the recursive definitions; wide differs from breadth-first. */
static void test_enumerations_of_random_forests(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + (size_t)(round % 40);
        size_t parent[40], got[40], want[40], k;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            /* a parent of a lower number, or a root now and then */
            parent[i] = i == 0 || (seed >> 16) % 7 == 0 ? SIZE_MAX : (seed >> 8) % i;
        }
        cubex_tree tree;
        assert_int_equal(cubex_tree_from_parents(n, parent, &tree), 0);
        for (int order = 0; order < 2; order++) {
            k = 0;
            for (size_t r = 0; r < n; r++)
                if (parent[r] == SIZE_MAX)
                    (order ? ref_wide : ref_pre)(n, parent, r, want, &k);
            assert_int_equal(k, n);
            assert_int_equal(cubex_enumerate(&tree, order ? CUBEX_WIDE : CUBEX_PREORDER, got), 0);
            assert_memory_equal(got, want, n * sizeof *got);
        }
        cubex_tree_free(&tree);
    }
}

/* A description that is no forest is refused, not walked forever. */
static void test_enumeration_rejects_non_forests(void **state)
{
    (void)state;
    size_t out[3];
    /* call path 1 named twice as a child of 0, call path 2 never */
    size_t roots[] = {0}, start[] = {0, 2, 2, 2}, child[] = {1, 1};
    cubex_tree twice = {3, 1, roots, start, child};
    assert_int_equal(cubex_enumerate(&twice, CUBEX_PREORDER, out), -1);
    assert_int_equal(cubex_enumerate(&twice, CUBEX_WIDE, out), -1);
    /* a cycle without root: 0 <-> 1, 2 a root */
    size_t roots2[] = {2}, start2[] = {0, 1, 2, 2}, child2[] = {1, 0};
    cubex_tree loop = {3, 1, roots2, start2, child2};
    assert_int_equal(cubex_enumerate(&loop, CUBEX_PREORDER, out), -1);
    assert_int_equal(cubex_enumerate(&loop, CUBEX_WIDE, out), -1);
    size_t bad_parent[] = {SIZE_MAX, 7};
    cubex_tree t;
    assert_int_equal(cubex_tree_from_parents(2, bad_parent, &t), -1);
}

/* ---- value types ---------------------------------------------------------------------- */

static void test_dtypes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t size, components;
    } ok[] = {{"INT8", 1, 1}, {"CHAR", 1, 1}, {"SHORT INT", 2, 1}, {"UNSIGNED SHORT INT", 2, 1},
              {"INT", 4, 1}, {"UNSIGNED INT", 4, 1}, {"INTEGER", 8, 1}, {"UNSIGNED INTEGER", 8, 1},
              {"FLOAT", 8, 1}, {"MINDOUBLE", 8, 1}, {"COMPLEX", 16, 2}, {"RATE", 16, 2},
              {"TAU_ATOMIC", 36, 5}, {"NDOUBLES(10)", 80, 10}, {"HISTOGRAM(5)", 56, 7},
              {"SCALE_FUNC", 848, CUBEX_SCALE_FUNC_SLOTS}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        cubex_dtype t;
        assert_int_equal(cubex_dtype_parse(ok[i].text, &t), 0);
        assert_int_equal(cubex_dtype_size(t), ok[i].size);
        assert_int_equal(cubex_dtype_components(t), ok[i].components);
    }
    static const char *const bad[] = {"double", "NDOUBLES(0)", "NDOUBLES()", "HISTOGRAM(5",
                                      "HISTOGRAM(70000)", "NDOUBLES(1)x", "", "INT 8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cubex_dtype t;
        assert_int_equal(cubex_dtype_parse(bad[i], &t), -1);
    }
    /* the neutral values of absent rows */
    double v[7];
    cubex_dtype t = {CUBEX_MINDOUBLE, 0};
    cubex_value_neutral(t, v);
    assert_true(v[0] == DBL_MAX);
    t.kind = CUBEX_MAXDOUBLE;
    cubex_value_neutral(t, v);
    assert_true(v[0] == -DBL_MAX);
    t.kind = CUBEX_TAU_ATOMIC;
    cubex_value_neutral(t, v);
    assert_true(v[0] == 0 && v[1] == DBL_MAX && v[2] == -DBL_MAX && v[3] == 0 && v[4] == 0);
    t = (cubex_dtype){CUBEX_HISTOGRAM, 5};
    cubex_value_neutral(t, v);
    assert_true(v[0] == DBL_MAX && v[1] == -DBL_MAX && v[6] == 0);
    /* sign extension, both byte orders */
    const unsigned char be16[] = {0xff, 0xfe}, le16[] = {0xfe, 0xff};
    t = (cubex_dtype){CUBEX_INT16, 0};
    assert_true(cubex_value_int(t, 1, be16) == (uint64_t)-2);
    assert_true(cubex_value_int(t, 0, le16) == (uint64_t)-2);
    t.kind = CUBEX_UINT16;
    assert_true(cubex_value_int(t, 0, le16) == 0xfffe);
    /* a scale function that claims more terms than its bytes hold */
    unsigned char sf[CUBEX_SCALE_FUNC_BYTES] = {43, 0, 0, 0};
    double slots[CUBEX_SCALE_FUNC_SLOTS];
    t.kind = CUBEX_SCALE_FUNC;
    assert_int_equal(cubex_value_decode(t, 0, sf, slots), -1);
}

/* ---- hostile members ---------------------------------------------------------------- */

typedef struct {
    const char *name;
    const void *data;
    size_t size;
} blob;

/* An archive of the given members, written by the library's writer. */
static char *archive_of(const blob *members, size_t n)
{
    char *path = temp_path(".cubex");
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    cube_status st;
    cubex_tar_writer *w = cubex_tar_writer_open_fp(fp, path, &st);
    assert_non_null(w);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(cubex_tar_add(w, members[i].name, members[i].data, members[i].size, 0, &st), 0);
    assert_int_equal(cubex_tar_finish(w, &st), 0);
    cubex_tar_writer_free(w);
    assert_int_equal(fclose(fp), 0);
    return path;
}

static size_t put_le(unsigned char *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
    return n;
}

/* A sparse little-endian index of `n` given ordinals (count as given). */
static size_t make_index(unsigned char *buf, uint32_t count, const uint32_t *ord, size_t n)
{
    memcpy(buf, "CUBEX.INDEX\1\0\0\0\0\0\1", 18);
    size_t len = 18 + put_le(buf + 18, count, 4);
    for (size_t i = 0; i < n; i++)
        len += put_le(buf + len, ord[i], 4);
    return len;
}

/* The status message starts "PATH: member NAME: byte OFF: " with OFF
 * the member's first byte plus `at`. */
static void expect_error_at(const cube_status *st, cube_code code, const cubex_tar *t,
                            const char *member, uint64_t at, const char *what)
{
    const cubex_member *m = cubex_tar_find(t, member);
    assert_non_null(m);
    char want[1200];
    snprintf(want, sizeof want, "%s: member %s: byte %llu: %s", t->file, member,
             (unsigned long long)(m->offset + at), what);
    assert_int_equal(st->code, code);
    if (strncmp(st->message, want, strlen(want)) != 0)
        fail_msg("message \"%s\", expected it to start \"%s\"", st->message, want);
}

/* Index members that do not fit the call tree or are broken otherwise:
 * each one error naming the member and the offending byte. */
static void test_hostile_indexes(void **state)
{
    (void)state;
    static const struct {
        uint32_t count;
        uint32_t ord[8];
        size_t n;
        const char *patch; /* replace bytes at patch_at */
        size_t patch_at, patch_len;
        cube_code code;
        uint64_t at;
        const char *what;
    } cases[] = {
        {7, {0, 1, 2, 3, 4, 5, 6}, 7, NULL, 0, 0, CUBE_EFORMAT, 18, "expected at most 6 rows"},
        {1000, {0}, 1, NULL, 0, 0, CUBE_EFORMAT, 18, "expected at most 6 rows"},
        {2, {0}, 1, NULL, 0, 0, CUBE_EFORMAT, 18, "expected 22 + 4 x 2 = 30 bytes"},
        {1, {6}, 1, NULL, 0, 0, CUBE_EFORMAT, 22, "expected an ordinal below 6"},
        {3, {0, 2, 2}, 3, NULL, 0, 0, CUBE_EFORMAT, 30, "expected ordinals in ascending order"},
        {1, {0}, 1, "CUBEX.INDEY", 0, 11, CUBE_EFORMAT, 0, "expected \"CUBEX.INDEX\""},
        {1, {0}, 1, "\2\0\0\0", 11, 4, CUBE_EFORMAT, 11, "expected the byte order mark"},
        {1, {0}, 1, "\2", 17, 1, CUBE_EUNSUPPORTED, 17, "index format 2"},
        {1, {0}, 1, "\7", 17, 1, CUBE_EFORMAT, 17, "expected index format 1"},
        {0, {0}, 0, "\3", 17, 1, CUBE_EFORMAT, 18, "expected a dense index of 18 bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char buf[64];
        size_t len = make_index(buf, cases[i].count, cases[i].ord, cases[i].n);
        if (cases[i].patch)
            memcpy(buf + cases[i].patch_at, cases[i].patch, cases[i].patch_len);
        blob b[] = {{"pad", "x", 1}, {"0.index", buf, len}};
        char *path = archive_of(b, 2);
        cube_status st;
        cubex_tar *t = cubex_tar_open_path(path, 0, &st);
        assert_non_null(t);
        cubex_index ix;
        assert_int_equal(cubex_index_read(t, cubex_tar_find(t, "0.index"), 6, &ix, &st), -1);
        expect_error_at(&st, cases[i].code, t, "0.index", cases[i].at, cases[i].what);
        cubex_tar_close(t);
        unlink(path);
        free(path);
    }
}

/* One row of two u64 values behind a compressed data member whose stream
 * is `stream`; the table entry as given. */
static size_t make_zdata(unsigned char *buf, uint64_t count, uint64_t us, uint64_t cs, uint64_t cz,
                         const unsigned char *stream, size_t n)
{
    memcpy(buf, "ZCUBEX.DATA", 11);
    size_t len = 11 + put_le(buf + 11, count, 8);
    len += put_le(buf + len, us, 8);
    len += put_le(buf + len, cs, 8);
    len += put_le(buf + len, cz, 8);
    memcpy(buf + len, stream, n);
    return len + n;
}

static int zdata_error(const unsigned char *data, size_t len, cube_status *st, char **path_out,
                       cubex_tar **t_out, unsigned char *row)
{
    unsigned char ibuf[32];
    uint32_t ord[] = {3};
    size_t ilen = make_index(ibuf, 1, ord, 1);
    blob b[] = {{"0.index", ibuf, ilen}, {"0.data", data, len}};
    *path_out = archive_of(b, 2);
    cubex_tar *t = cubex_tar_open_path(*path_out, 0, st);
    assert_non_null(t);
    *t_out = t;
    cubex_index ix;
    assert_int_equal(cubex_index_read(t, cubex_tar_find(t, "0.index"), 6, &ix, st), 0);
    cubex_data d;
    int rc = cubex_data_open(t, cubex_tar_find(t, "0.data"), &ix, 16, &d, st);
    if (rc == 0) {
        rc = cubex_data_read_row(&d, 0, row, st);
        cubex_data_close(&d);
    }
    cubex_index_free(&ix);
    return rc;
}

/* Compressed rows: one that inflates to exactly a row reads; one that
 * inflates to more (a zip bomb among them) or less, a broken stream, a
 * table pointing outside the member, each fails naming the place. */
static void test_hostile_compressed_rows(void **state)
{
    (void)state;
    unsigned char plain[16 + 100];
    for (size_t i = 0; i < sizeof plain; i++)
        plain[i] = (unsigned char)(i * 7 + 1);
    size_t big = 10u << 20; /* a row of 16 bytes announced, 10 MiB inside */
    unsigned char *zeros = calloc(big, 1);
    uLongf zlen = compressBound(big);
    unsigned char *z = malloc(zlen), row[16];
    assert_non_null(zeros);
    assert_non_null(z);
    unsigned char *data = malloc(zlen + 64);
    assert_non_null(data);
    struct {
        size_t raw_len;   /* bytes compressed into the stream (0: the zip bomb) */
        uint64_t count, us, cs_delta;
        int corrupt;
        int want;         /* 1: reads, -1: fails */
        uint64_t at;      /* error offset within the member */
        const char *what;
    } cases[] = {
        {16, 1, 0, 0, 0, 1, 0, NULL},
        {116, 1, 0, 0, 0, -1, 43, "expected a compressed row of 16 bytes, it inflates to more"},
        {0, 1, 0, 0, 0, -1, 43, "expected a compressed row of 16 bytes, it inflates to more"},
        {8, 1, 0, 0, 0, -1, 43, "expected a compressed row of 16 bytes, it inflates to 8"},
        {16, 1, 0, 0, 1, -1, 43, "expected a zlib-compressed row (incorrect header check)"},
        {16, 2, 0, 0, 0, -1, 11, "expected at most 1 compressed rows"},
        {16, 1, 16, 0, 0, -1, 19, "expected the start of one of 1 rows of 16 bytes"},
        {16, 1, 0, 5, 0, -1, 27, "expected a compressed row within the member"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zlen = compressBound(big);
        if (cases[i].raw_len)
            assert_int_equal(compress(z, &zlen, plain, cases[i].raw_len), Z_OK);
        else
            assert_int_equal(compress(z, &zlen, zeros, big), Z_OK);
        if (cases[i].corrupt)
            z[zlen / 2] ^= 0x55, z[0] = 0x00;
        size_t len = make_zdata(data, cases[i].count, cases[i].us, cases[i].cs_delta, zlen, z, zlen);
        cube_status st;
        char *path;
        cubex_tar *t;
        int rc = zdata_error(data, len, &st, &path, &t, row);
        if (cases[i].want == 1) {
            if (rc != 1)
                fail_msg("case %zu: %s", i, st.message);
            assert_memory_equal(row, plain, 16);
        } else {
            assert_int_equal(rc, -1);
            expect_error_at(&st, CUBE_EFORMAT, t, "0.data", cases[i].at, cases[i].what);
        }
        cubex_tar_close(t);
        unlink(path);
        free(path);
    }
    free(zeros);
    free(z);
    free(data);
}

/* A plain data member whose size does not fit its index, a wrong marker. */
static void test_hostile_plain_data(void **state)
{
    (void)state;
    unsigned char data[64];
    memcpy(data, "CUBEX.DATA", 10);
    memset(data + 10, 1, 40);
    unsigned char row[16];
    cube_status st;
    char *path;
    cubex_tar *t;
    assert_int_equal(zdata_error(data, 10 + 15, &st, &path, &t, row), -1);
    expect_error_at(&st, CUBE_EFORMAT, t, "0.data", 10, "expected 1 rows of 16 bytes");
    cubex_tar_close(t);
    unlink(path);
    free(path);
    assert_int_equal(zdata_error(data, 10 + 16, &st, &path, &t, row), 1);
    cubex_tar_close(t);
    unlink(path);
    free(path);
    memcpy(data, "CUBEX.DATUM", 11);
    assert_int_equal(zdata_error(data, 10 + 16, &st, &path, &t, row), -1);
    expect_error_at(&st, CUBE_EFORMAT, t, "0.data", 0, "expected \"CUBEX.DATA\" or \"ZCUBEX.DATA\"");
    cubex_tar_close(t);
    unlink(path);
    free(path);
}

/* The rows of the worked example's metric 0 compressed row by row (the
 * layout the reference library writes) read as the plain ones. */
static void test_compressed_equals_plain(void **state)
{
    (void)state;
    cubex_tar *t = open_archive("mkcubex_minimal");
    cube_status st;
    cubex_index ix;
    cubex_data d;
    assert_int_equal(cubex_index_read(t, cubex_tar_find(t, "0.index"), 6, &ix, &st), 0);
    assert_int_equal(cubex_data_open(t, cubex_tar_find(t, "0.data"), &ix, 16, &d, &st), 0);
    unsigned char rows[6][16], table[6 * 24], streams[6 * 64], zdata[11 + 8 + sizeof table + sizeof streams];
    size_t slen = 0;
    for (size_t k = 0; k < 6; k++) {
        assert_int_equal(cubex_data_read_row(&d, k, rows[k], &st), 1);
        uLongf zl = 64;
        assert_int_equal(compress(streams + slen, &zl, rows[k], 16), Z_OK);
        put_le(table + 24 * k, 16 * k, 8);
        put_le(table + 24 * k + 8, slen, 8);
        put_le(table + 24 * k + 16, zl, 8);
        slen += zl;
    }
    cubex_data_close(&d);
    memcpy(zdata, "ZCUBEX.DATA", 11);
    put_le(zdata + 11, 6, 8);
    memcpy(zdata + 19, table, sizeof table);
    memcpy(zdata + 19 + sizeof table, streams, slen);
    unsigned char ibuf[64];
    uint32_t ord[] = {0, 1, 2, 3, 4, 5};
    size_t ilen = make_index(ibuf, 6, ord, 6);
    blob b[] = {{"0.data", zdata, 19 + sizeof table + slen}, {"0.index", ibuf, ilen}};
    char *path = archive_of(b, 2);
    cubex_tar *z = cubex_tar_open_path(path, 0, &st);
    assert_non_null(z);
    cubex_index zix;
    assert_int_equal(cubex_index_read(z, cubex_tar_find(z, "0.index"), 6, &zix, &st), 0);
    assert_int_equal(cubex_data_open(z, cubex_tar_find(z, "0.data"), &zix, 16, &d, &st), 0);
    assert_true(d.compressed);
    for (size_t k = 0; k < 6; k++) {
        unsigned char row[16];
        assert_int_equal(cubex_data_read_row(&d, k, row, &st), 1);
        assert_memory_equal(row, rows[k], 16);
    }
    cubex_data_close(&d);
    cubex_index_free(&zix);
    cubex_index_free(&ix);
    cubex_tar_close(z);
    cubex_tar_close(t);
    unlink(path);
    free(path);
}

/* A dense index: every ordinal has a row, in ordinal order; the data
 * member must hold exactly that many rows. */
static void test_dense_index(void **state)
{
    (void)state;
    unsigned char ibuf[22], data[10 + 6 * 16];
    make_index(ibuf, 0, NULL, 0);
    ibuf[17] = 3;
    memcpy(data, "CUBEX.DATA", 10);
    for (size_t i = 0; i < 6 * 16; i++)
        data[10 + i] = (unsigned char)i;
    blob b[] = {{"1.index", ibuf, 18}, {"1.data", data, sizeof data}};
    char *path = archive_of(b, 2);
    cube_status st;
    cubex_tar *t = cubex_tar_open_path(path, 0, &st);
    assert_non_null(t);
    cubex_index ix;
    cubex_data d;
    assert_int_equal(cubex_index_read(t, cubex_tar_find(t, "1.index"), 6, &ix, &st), 0);
    assert_true(ix.dense);
    assert_int_equal(ix.num_rows, 6);
    assert_int_equal(cubex_index_row(&ix, 5), 5);
    assert_int_equal(cubex_index_row(&ix, 6), -1);
    assert_int_equal(cubex_data_open(t, cubex_tar_find(t, "1.data"), &ix, 16, &d, &st), 0);
    unsigned char row[16];
    assert_int_equal(cubex_data_read_row(&d, 5, row, &st), 1);
    assert_int_equal(row[0], 5 * 16);
    assert_int_equal(cubex_data_read_row(&d, 6, row, &st), -1);
    cubex_data_close(&d);
    cubex_index_free(&ix);
    /* the same members for a call tree of 7 call paths: one row short */
    assert_int_equal(cubex_index_read(t, cubex_tar_find(t, "1.index"), 7, &ix, &st), 0);
    assert_int_equal(cubex_data_open(t, cubex_tar_find(t, "1.data"), &ix, 16, &d, &st), -1);
    expect_error_at(&st, CUBE_EFORMAT, t, "1.data", 10, "expected 7 rows of 16 bytes");
    cubex_index_free(&ix);
    cubex_tar_close(t);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_of_real_files),
        cmocka_unit_test(test_enumerations_of_real_files),
        cmocka_unit_test(test_enumerations_of_random_forests),
        cmocka_unit_test(test_enumeration_rejects_non_forests),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_hostile_indexes),
        cmocka_unit_test(test_hostile_compressed_rows),
        cmocka_unit_test(test_hostile_plain_data),
        cmocka_unit_test(test_compressed_equals_plain),
        cmocka_unit_test(test_dense_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
