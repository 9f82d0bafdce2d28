/*
 * test_cubex_read.c - CUBE 4 archives read into the model through the
 * public interface (cube_read, cube_read_fd, the streaming reader),
 * against the expected files of testdata/cubex: the definitions, every
 * stored value at (metric, call path, location) through cube_get_sev (and
 * the exact bytes the model keeps where a double cannot hold the value),
 * no other value, the same rows from the streaming reader; archives that
 * are gzip-compressed or come on a pipe; a metric not selected is not
 * read; hand-made archives for what no real file has.
 */
#include "test_support.h"
#include "json_reader.h"
#include "cubex_expected.h"
#include "core/cube_private.h"
#include "cubex/tar_private.h"

#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static const char *const *const files = cubex_files;

static const char *archive(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "testdata/cubex/%s.cubex", name);
    return path;
}

/* ---- definitions ---------------------------------------------------------- */

static void expect_text(const char *got, const json *want, const char *what, size_t i)
{
    /* a missing or null text is "" */
    const char *w = !want || want->type == JSON_NULL ? "" : json_str(want);
    if (!w || strcmp(got, w) != 0)
        fail_msg("%s %zu: \"%s\", expected \"%s\"", what, i, got, w ? w : "(no string)");
}

static void expect_int(int64_t got, const json *want, const char *what, size_t i)
{
    if (got != json_i64(want))
        fail_msg("%s %zu: %lld, expected %s", what, i, (long long)got,
                 want ? want->text : "(nothing)");
}

static void check_counts(const cube_t *c, const json *doc)
{
    const json *n = json_get(doc, "counts");
    assert_int_equal(cube_num_metrics(c), json_u64(json_get(n, "metrics")));
    assert_int_equal(cube_num_regions(c), json_u64(json_get(n, "regions")));
    assert_int_equal(cube_num_cnodes(c), json_u64(json_get(n, "cnodes")));
    assert_int_equal(cube_num_root_cnodes(c), json_u64(json_get(n, "root_cnodes")));
    assert_int_equal(cube_num_machines(c) + cube_num_nodes(c),
                     json_u64(json_get(n, "system_tree_nodes")));
    assert_int_equal(cube_num_processes(c), json_u64(json_get(n, "location_groups")));
    assert_int_equal(cube_num_threads(c), json_u64(json_get(n, "locations")));
    assert_int_equal(cube_num_carts(c), json_u64(json_get(n, "topologies")));
    const json *anchor = json_get(doc, "anchor");
    assert_int_equal(cube_source_format(c), CUBE_FORMAT_CUBE4);
    assert_string_equal(cube_source_version(c), json_str(json_get(anchor, "cube_version")));
    /* attributes: a repeated key keeps its last value */
    const json *attrs = json_get(anchor, "attrs");
    for (size_t i = 0; i < json_len(attrs); i++) {
        const char *key = json_str(json_at(json_at(attrs, i), 0)), *value = NULL;
        for (size_t k = i; k < json_len(attrs); k++)
            if (strcmp(json_str(json_at(json_at(attrs, k), 0)), key) == 0)
                value = json_str(json_at(json_at(attrs, k), 1));
        assert_non_null(cube_get_attr(c, key));
        assert_string_equal(cube_get_attr(c, key), value);
    }
    const json *mirrors = json_get(anchor, "mirrors");
    assert_int_equal(cube_num_mirrors(c), json_len(mirrors));
    for (size_t i = 0; i < json_len(mirrors); i++)
        assert_string_equal(cube_mirror(c, i), json_str(json_at(mirrors, i)));
}

static void check_metrics(const cube_t *c, const json *doc)
{
    const json *ms = json_get(doc, "metrics");
    for (size_t i = 0; i < json_len(ms); i++) {
        const json *e = json_at(ms, i);
        const cube_metric *m = cube_get_metric(c, i);
        expect_int(cube_metric_id(m), json_get(e, "file_id"), "metric id", i);
        expect_text(cube_metric_uniq_name(m), json_get(e, "uniq_name"), "metric uniq_name", i);
        expect_text(cube_metric_disp_name(m), json_get(e, "disp_name"), "metric disp_name", i);
        expect_text(cube_metric_dtype(m), json_get(e, "dtype"), "metric dtype", i);
        expect_text(cube_metric_uom(m), json_get(e, "uom"), "metric uom", i);
        expect_text(cube_metric_kind_name(cube_metric_type(m)), json_get(e, "type"), "metric type",
                    i);
        assert_int_equal(cube_metric_is_ghost(m),
                         strcmp(json_str(json_get(e, "viztype")), "GHOST") == 0);
        const json *parent = json_get(e, "parent");
        if (parent->type == JSON_NULL)
            assert_null(cube_metric_parent(m));
        else
            expect_text(cube_metric_uniq_name(cube_metric_parent(m)), parent, "metric parent", i);
        assert_int_equal(cube_metric_num_children(m), json_len(json_get(e, "children")));
        const json *cubepl = json_get(e, "cubepl");
        expect_text(cube_metric_expression(m), cubepl, "metric expression", i);
        if (cube_metric_is_derived(m))
            assert_true(*cube_metric_expression(m));
    }
}

static void check_program(const cube_t *c, const json *doc)
{
    const json *rs = json_get(doc, "regions"), *cs = json_get(doc, "cnodes");
    assert_int_equal(cube_num_regions(c), json_len(rs));
    for (size_t i = 0; i < json_len(rs); i++) {
        const json *e = json_at(rs, i);
        const cube_region *r = cube_get_region(c, i);
        expect_int(cube_region_id(r), json_at(e, 0), "region id", i);
        expect_text(cube_region_name(r), json_at(e, 1), "region name", i);
        expect_text(cube_region_mangled_name(r), json_at(e, 2), "region mangled name", i);
        expect_text(cube_region_mod(r), json_at(e, 3), "region mod", i);
        expect_int(cube_region_begin_line(r), json_at(e, 4), "region begin", i);
        expect_int(cube_region_end_line(r), json_at(e, 5), "region end", i);
        expect_text(cube_region_paradigm(r), json_at(e, 6), "region paradigm", i);
        expect_text(cube_region_role(r), json_at(e, 7), "region role", i);
    }
    for (size_t i = 0; i < json_len(cs); i++) {
        const json *e = json_at(cs, i);
        const cube_cnode *n = cube_get_cnode(c, i);
        expect_int(cube_cnode_id(n), json_at(e, 0), "cnode id", i);
        if (json_at(e, 1)->type == JSON_NULL)
            assert_null(cube_cnode_parent(n));
        else
            expect_int(cube_cnode_id(cube_cnode_parent(n)), json_at(e, 1), "cnode parent", i);
        expect_int(cube_region_id(cube_cnode_callee(n)), json_at(e, 2), "cnode callee", i);
        expect_text(cube_region_name(cube_cnode_callee(n)), json_at(e, 3), "cnode name", i);
        expect_int(cube_cnode_line(n), json_at(e, 4), "cnode line", i);
        expect_text(cube_cnode_mod(n), json_at(e, 5), "cnode mod", i);
        assert_int_equal(cube_cnode_num_params(n), json_len(json_at(e, 6)));
    }
}

/* The system tree node of document index i: a machine (root) or a node,
 * counted in document order. */
typedef struct {
    const cube_machine *machine;
    const cube_node *node;
} stn_ref;

static void check_system(const cube_t *c, const json *doc)
{
    const json *ss = json_get(doc, "system_tree_nodes"), *gs = json_get(doc, "location_groups"),
               *ls = json_get(doc, "locations");
    size_t n = json_len(ss), machines = 0, nodes = 0;
    stn_ref *stn = calloc(n ? n : 1, sizeof *stn);
    assert_non_null(stn);
    for (size_t i = 0; i < n; i++) {
        const json *e = json_at(ss, i);
        if (json_at(e, 3)->type == JSON_NULL) {
            const cube_machine *m = stn[i].machine = cube_get_machine(c, machines++);
            expect_text(cube_machine_name(m), json_at(e, 1), "machine name", i);
            expect_text(cube_machine_class(m), json_at(e, 2), "machine class", i);
            expect_int(cube_machine_id(m), json_at(e, 4), "machine id", i);
            continue;
        }
        const cube_node *x = stn[i].node = cube_get_node(c, nodes++);
        const stn_ref *p = &stn[json_u64(json_at(e, 3))];
        expect_text(cube_node_name(x), json_at(e, 1), "node name", i);
        expect_text(cube_node_class(x), json_at(e, 2), "node class", i);
        expect_int(cube_node_id(x), json_at(e, 4), "node id", i);
        assert_ptr_equal(cube_node_parent(x), p->node);
        assert_ptr_equal(cube_node_machine(x), p->node ? cube_node_machine(p->node) : p->machine);
    }
    for (size_t i = 0; i < json_len(gs); i++) {
        const json *e = json_at(gs, i);
        const cube_process *p = cube_get_process(c, i);
        expect_text(cube_process_name(p), json_at(e, 1), "group name", i);
        expect_int(cube_process_rank(p), json_at(e, 2), "group rank", i);
        expect_text(cube_group_type_name(cube_process_type(p)), json_at(e, 3), "group type", i);
        assert_ptr_equal(cube_process_node(p), stn[json_u64(json_at(e, 4))].node);
        expect_int(cube_process_id(p), json_at(e, 5), "group id", i);
    }
    /* locations listed by id; threads are in document order */
    for (size_t i = 0; i < json_len(ls); i++) {
        const json *e = json_at(ls, i);
        const cube_thread *t = NULL;
        for (size_t k = 0; k < cube_num_threads(c); k++)
            if (cube_thread_id(cube_get_thread(c, k)) == json_i64(json_at(e, 0)))
                t = cube_get_thread(c, k);
        assert_non_null(t);
        expect_text(cube_thread_name(t), json_at(e, 1), "location name", i);
        expect_int(cube_thread_rank(t), json_at(e, 2), "location rank", i);
        expect_text(cube_location_type_name(cube_thread_type(t)), json_at(e, 3), "location type",
                    i);
        expect_int((int64_t)cube_process_index(cube_thread_process(t)), json_at(e, 4),
                   "location group", i);
    }
    const json *ts = json_get(doc, "topologies");
    for (size_t i = 0; i < json_len(ts); i++) {
        const json *e = json_at(ts, i), *dims = json_get(e, "dims"), *co = json_get(e, "coords");
        const cube_cartesian *t = cube_get_cart(c, i);
        expect_text(cube_cart_name(t), json_get(e, "name"), "cart name", i);
        assert_int_equal(cube_cart_ndims(t), json_u64(json_get(e, "ndims")));
        for (long d = 0; d < cube_cart_ndims(t); d++) {
            const json *de = json_at(dims, (size_t)d);
            const char *name = cube_cart_dim_name(t, d);
            expect_text(name ? name : "", json_at(de, 0), "dim name", (size_t)d);
            expect_int(cube_cart_dim(t, d), json_at(de, 1), "dim size", (size_t)d);
            assert_int_equal(cube_cart_period(t, d), strcmp(json_str(json_at(de, 2)), "true") == 0);
        }
        assert_int_equal(cube_cart_num_coords(t), json_len(co));
        for (size_t k = 0; k < json_len(co); k++) {
            const json *ce = json_at(co, k);
            const cube_coord *x = cube_cart_coord(t, k);
            /* every test file maps locations */
            assert_string_equal(json_str(json_at(ce, 0)), "locId");
            assert_int_equal(x->kind, CUBE_COORD_THREAD);
            expect_int(cube_thread_id(x->entity), json_at(ce, 1), "coord location", k);
            for (long d = 0; d < cube_cart_ndims(t); d++)
                expect_int(x->coords[d], json_at(json_at(ce, 2), (size_t)d), "coord", k);
        }
    }
    free(stn);
}

/* ---- values ---------------------------------------------------------------- */

static size_t find_cnode(const cube_t *c, int64_t id)
{
    for (size_t i = 0; i < cube_num_cnodes(c); i++)
        if (cube_cnode_id(cube_get_cnode(c, i)) == id)
            return i;
    fail_msg("no cnode %lld", (long long)id);
    return 0;
}

static size_t find_thread(const cube_t *c, int64_t id)
{
    for (size_t i = 0; i < cube_num_threads(c); i++)
        if (cube_thread_id(cube_get_thread(c, i)) == id)
            return i;
    fail_msg("no thread %lld", (long long)id);
    return 0;
}

/* The exact bytes the model keeps for a value of type dt, NULL when it
 * keeps none. */
static const unsigned char *exact_value(const cube_metric *m, cubex_dtype dt,
                                        const cube_cnode *n, const cube_thread *t)
{
    const unsigned char *row = model_exact_row(m, n->index);
    return row ? row + t->index * cubex_dtype_size(dt) : NULL;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* One stored value through cube_get_sev (and the exact bytes). */
static void expect_stored(const cube_t *c, const cube_metric *m, const cube_cnode *n,
                         const cube_thread *t, const json *want, const char *where)
{
    cubex_dtype dt;
    if (cubex_dtype_parse(cube_metric_dtype(m), &dt) != 0)
        dt = (cubex_dtype){CUBEX_DOUBLE, 0};
    double got = cube_get_sev(c, m, n, t);
    const unsigned char *exact = exact_value(m, dt, n, t);
    switch (dt.kind) {
    case CUBEX_INT8: case CUBEX_INT16: case CUBEX_INT32:
        if ((int64_t)got != json_i64(want) || got != (double)(int64_t)got)
            fail_msg("%s: %.17g, expected %s", where, got, want->text);
        assert_null(exact);
        return;
    case CUBEX_UINT8: case CUBEX_UINT16: case CUBEX_UINT32:
        if (got < 0 || (uint64_t)got != json_u64(want))
            fail_msg("%s: %.17g, expected %s", where, got, want->text);
        assert_null(exact);
        return;
    case CUBEX_INT64:
    case CUBEX_UINT64: {
        /* 2^64 - k is -k; beyond 2^53 the exact bytes hold the value */
        uint64_t w = dt.kind == CUBEX_INT64 ? (uint64_t)json_i64(want) : json_u64(want);
        int64_t s = (int64_t)w;
        uint64_t magnitude = s < 0 ? (uint64_t)0 - w : w;
        if (magnitude > ((uint64_t)1 << 53)) {
            assert_non_null(exact);
            if (le64(exact) != w)
                fail_msg("%s: exact %llu, expected %s", where, (unsigned long long)le64(exact),
                         want->text);
            assert_true(got == (double)s);
        } else if ((uint64_t)(int64_t)got != w || got != (double)s) {
            fail_msg("%s: %.17g, expected %s", where, got, want->text);
        }
        return;
    }
    case CUBEX_DOUBLE: case CUBEX_MINDOUBLE: case CUBEX_MAXDOUBLE: {
        double w = json_num(want);
        if (memcmp(&got, &w, sizeof got) != 0)
            fail_msg("%s: %.17g, expected %s", where, got, want->text);
        assert_null(exact);
        return;
    }
    default:
        /* structured: the exact bytes hold every component */
        if (!exact)
            fail_msg("%s: no exact value kept", where);
        cubex_expect_value(dt, 0, exact, want, where);
        return;
    }
}

typedef struct {
    const char *name;
    const json *doc;
    cube_t *c;
} file_check;

/* Every listed value equals the expected one; every other value of every
 * row is 0; rows exist exactly where the indexes list them. */
static void check_values(file_check *f)
{
    const cube_t *c = f->c;
    size_t M = cube_num_metrics(c), N = cube_num_cnodes(c), T = cube_num_threads(c);
    unsigned char *listed = calloc(M * N * T + 1, 1);
    assert_non_null(listed);
    const json *sv = json_get(f->doc, "stored_values");
    char where[512];
    for (size_t i = 0; i < json_len(sv); i++) {
        const json *e = json_at(sv, i);
        const cube_metric *m = cube_find_metric(c, json_str(json_at(e, 0)));
        assert_non_null(m);
        size_t n = find_cnode(c, json_i64(json_at(e, 1))), t = find_thread(c, json_i64(json_at(e, 2)));
        snprintf(where, sizeof where, "%s: %s at cnode %s, location %s", f->name,
                 cube_metric_uniq_name(m), json_at(e, 1)->text, json_at(e, 2)->text);
        assert_non_null(cube_get_row(c, m, cube_get_cnode(c, n)));
        expect_stored(c, m, cube_get_cnode(c, n), cube_get_thread(c, t), json_at(e, 3), where);
        listed[(m->index * N + n) * T + t] = 1;
    }
    for (size_t r = 0; r < cube_num_rows(c); r++) {
        cube_metric *m;
        cube_cnode *n;
        const double *row = cube_row_at(c, r, &m, &n);
        for (size_t t = 0; t < T; t++)
            if (!listed[(m->index * N + n->index) * T + t] && row[t] != 0)
                fail_msg("%s: %s at cnode %lld, thread %zu: %.17g, expected 0 (not listed)",
                         f->name, cube_metric_uniq_name(m), (long long)cube_cnode_id(n), t,
                         row[t]);
    }
    /* one row per index entry of every metric with members */
    const json *ix = json_get(f->doc, "indexes");
    size_t rows = 0;
    for (size_t i = 0; i < ix->n; i++) {
        const cube_metric *m = cube_find_metric(c, ix->key[i]);
        const json *ids = json_get(ix->item[i], "cnode_ids");
        rows += json_len(ids);
        for (size_t k = 0; k < json_len(ids); k++)
            assert_non_null(cube_get_row(c, m, cube_get_cnode(c, find_cnode(c, json_i64(json_at(ids, k))))));
    }
    assert_int_equal(cube_num_rows(c), rows);
    free(listed);
}

/* The streaming reader gives the rows cube_read stored, metric by metric,
 * each (metric, call path) once; also without the call tree. */
static void check_streaming(file_check *f)
{
    const cube_t *c = f->c;
    const char *path = archive(f->name);
    for (int no_tree = 0; no_tree < 2; no_tree++) {
        cube_reader *r = cube_reader_open_with(path, no_tree ? CUBE_READ_NO_CALL_TREE : 0);
        const cube_t *defs = cube_reader_definitions(r);
        if (!defs)
            fail_msg("%s: %s", path, cube_reader_error(r));
        assert_int_equal(cube_num_metrics(defs), cube_num_metrics(c));
        assert_int_equal(cube_num_threads(defs), cube_num_threads(c));
        assert_int_equal(cube_num_cnodes(defs), no_tree ? 0 : cube_num_cnodes(c));
        assert_int_equal(cube_num_warnings(defs), cube_num_warnings(c));
        size_t rows = 0, last_metric = 0, metric, cnode;
        const double *values;
        int rc;
        while ((rc = cube_reader_next_row_index(r, &metric, &cnode, &values)) == 1) {
            assert_true(metric >= last_metric);
            last_metric = metric;
            assert_int_equal(cube_reader_row_may_repeat(r), 0);
            const double *want = cube_get_row(c, cube_get_metric(c, metric), cube_get_cnode(c, cnode));
            assert_non_null(want);
            assert_memory_equal(values, want, cube_num_threads(c) * sizeof *values);
            rows++;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(rows, cube_num_rows(c));
        if (no_tree) {
            const cube_metric *m;
            const cube_cnode *n;
            assert_int_equal(cube_reader_next_row(r, &m, &n, &values), -1);
            assert_int_equal(cube_reader_error_code(r), CUBE_EINVAL);
        }
        cube_reader_close(r);
    }
}

/* The warnings a file gives, once each. */
static void check_warnings(file_check *f)
{
    const cube_t *c = f->c;
    size_t want = 0;
    if (strstr(f->name, "checksum-bug")) {
        want = 1;
        assert_non_null(strstr(cube_warning(c, 0), "14 of 14 tar headers have a wrong checksum"));
    }
    if (strncmp(f->name, "cubederive", 10) == 0) {
        want = 1;
        char expected[1024];
        snprintf(expected, sizeof expected,
                 "%s: 3 derived metrics (time_per_visit, visits_x2_incl, bytes_total) are not "
                 "computed: their values are not shown", archive(f->name));
        assert_string_equal(cube_warning(c, 0), expected);
    }
    if (cube_num_warnings(c) != want)
        fail_msg("%s: %zu warnings, expected %zu (the first: %s)", f->name, cube_num_warnings(c),
                 want, cube_num_warnings(c) ? cube_warning(c, 0) : "");
}

static void test_real_files(void **state)
{
    (void)state;
    for (size_t i = 0; files[i]; i++) {
        file_check f = {files[i], json_load_expected("testdata/cubex", files[i]), NULL};
        assert_non_null(f.doc);
        f.c = read_ok(archive(files[i]));
        check_counts(f.c, f.doc);
        check_metrics(f.c, f.doc);
        check_program(f.c, f.doc);
        check_system(f.c, f.doc);
        check_values(&f);
        check_streaming(&f);
        check_warnings(&f);
        cube_free(f.c);
        json_free((json *)f.doc);
    }
}

/* Every test file has an expected file and is listed above. */
static void test_every_file_listed(void **state)
{
    (void)state;
    size_t listed = 0;
    while (files[listed])
        listed++;
    FILE *p = popen("ls testdata/cubex/*.cubex | wc -l", "r");
    assert_non_null(p);
    unsigned long n = 0;
    assert_int_equal(fscanf(p, "%lu", &n), 1);
    pclose(p);
    assert_int_equal(n, listed);
}

/* ---- the double view --------------------------------------------------------- */

/* The double of each structured type, from the values of the file with
 * every type (call path 0, location 0): COMPLEX (1, 1) -> sqrt 2, RATE
 * (1, 1) -> 1, TAU_ATOMIC n 1 sum 1 -> 1, HISTOGRAM(5) bins 0..4 -> 10,
 * NDOUBLES(10) 0..9 -> 45, SCALE_FUNC terms (2, 2, 3, 4), (1, 1, 2, 3)
 * -> 0 (no term without logarithm: the value at x = 1). */
static void test_double_views(void **state)
{
    (void)state;
    cube_t *c = read_ok(archive("cubelib-4.8.2_cube-values_example"));
    const cube_cnode *n = cube_get_cnode(c, 0);
    const cube_thread *t = cube_get_thread(c, find_thread(c, 0));
    static const struct {
        const char *metric;
        double value;
    } want[] = {{"COMPLEX", 0}, {"RATE", 1}, {"TAU_ATOMIC", 1}, {"HISTOGRAM5", 10},
                {"NDOUBLES10", 45}, {"SCALE_FUNC3", 0}, {"UINT8", 1}, {"INT64", 1}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        double w = strcmp(want[i].metric, "COMPLEX") == 0 ? sqrt(2.0) : want[i].value;
        double got = cube_get_sev(c, cube_find_metric(c, want[i].metric), n, t);
        if (got != w)
            fail_msg("%s: %.17g, expected %.17g", want[i].metric, got, w);
    }
    cube_free(c);
}

/* ---- other ways in ----------------------------------------------------------- */

/* The same model and the same rows, bit for bit. */
static void expect_same(const cube_t *a, const cube_t *b)
{
    assert_same_model(a, b);
    assert_int_equal(cube_num_rows(a), cube_num_rows(b));
    for (size_t r = 0; r < cube_num_rows(a); r++) {
        cube_metric *m;
        cube_cnode *n;
        const double *x = cube_row_at(a, r, &m, &n);
        const double *y = cube_get_row(b, cube_get_metric(b, m->index), cube_get_cnode(b, n->index));
        assert_non_null(y);
        assert_memory_equal(x, y, cube_num_threads(a) * sizeof *x);
    }
    assert_int_equal(cube_source_format(b), CUBE_FORMAT_CUBE4);
}

/* An archive, also gzip-compressed, reads the same. */
static void test_gzip_compressed(void **state)
{
    (void)state;
    for (size_t i = 0; files[i]; i++) {
        cube_t *a = read_ok(archive(files[i]));
        char *gz = gzip_copy(archive(files[i]), ".cubex.gz");
        cube_t *b = read_ok(gz);
        expect_same(a, b);
        cube_free(b);
        unlink(gz);
        free(gz);
        cube_free(a);
    }
}

typedef struct {
    int fd;
    char *bytes;
    size_t len;
} feeder;

static void *feed(void *arg)
{
    feeder *f = arg;
    size_t done = 0;
    while (done < f->len) {
        ssize_t w = write(f->fd, f->bytes + done, f->len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    close(f->fd);
    return NULL;
}

/* The read end of a pipe that a thread fills with the file at `path`. */
static int pipe_of(const char *path, pthread_t *th, feeder *f)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    f->fd = fds[1];
    f->bytes = slurp(path, &f->len);
    assert_int_equal(pthread_create(th, NULL, feed, f), 0);
    return fds[0];
}

static void pipe_done(pthread_t th, feeder *f, int fd)
{
    close(fd); /* a reader that stopped early leaves the writer nothing to block on */
    pthread_join(th, NULL);
    free(f->bytes);
}

/* An archive on a pipe (plain and gzip-compressed): cube_read_fd and the
 * streaming reader copy it to a temporary file, the bytes already looked
 * at included, and read the same. */
static void test_pipe(void **state)
{
    (void)state;
    const char *names[] = {"mkcubex_minimal", "scorep-1.4_kripke-p8-d2-g32-r1_profile",
                           "cube3to4_scorep-1.1_profile", "cubelib-4.8.2_cube-values_example"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cube_t *a = read_ok(archive(names[i]));
        char *gz = gzip_copy(archive(names[i]), ".cubex.gz");
        for (int compressed = 0; compressed < 2; compressed++) {
            pthread_t th;
            feeder f;
            int fd = pipe_of(compressed ? gz : archive(names[i]), &th, &f);
            cube_t *b = cube_create();
            if (cube_read_fd(b, fd, "pipe") != 0)
                fail_msg("%s: %s", names[i], cube_error(b));
            pipe_done(th, &f, fd);
            expect_same(a, b);
            cube_free(b);

            fd = pipe_of(compressed ? gz : archive(names[i]), &th, &f);
            cube_reader *r = cube_reader_open_fd(fd, "pipe");
            assert_non_null(cube_reader_definitions(r));
            size_t rows = 0, m, n;
            const double *v;
            while (cube_reader_next_row_index(r, &m, &n, &v) == 1) {
                assert_memory_equal(v, cube_get_row(a, cube_get_metric(a, m), cube_get_cnode(a, n)),
                                    cube_num_threads(a) * sizeof *v);
                rows++;
            }
            assert_int_equal(cube_reader_error_code(r), CUBE_OK);
            assert_int_equal(rows, cube_num_rows(a));
            cube_reader_close(r);
            pipe_done(th, &f, fd);
        }
        unlink(gz);
        free(gz);
        cube_free(a);
    }
}

/* A truncated archive on a pipe fails as the file would: member and byte. */
static void test_pipe_truncated(void **state)
{
    (void)state;
    size_t len;
    char *bytes = slurp(archive("mkcubex_minimal"), &len);
    char *cut = temp_file_with(bytes, 9000);
    pthread_t th;
    feeder f;
    int fd = pipe_of(cut, &th, &f);
    cube_t *c = cube_create();
    assert_int_equal(cube_read_fd(c, fd, "-"), -1);
    assert_int_equal(cube_error_code(c), CUBE_EFORMAT);
    assert_string_equal(cube_error(c), "-: member anchor.xml: byte 6268: expected a size of at "
                                       "most 2344 bytes (the rest of the archive), found 3370");
    pipe_done(th, &f, fd);
    cube_free(c);
    unlink(cut);
    free(cut);
    free(bytes);
}

/* ---- selecting metrics ---------------------------------------------------------- */

/* The minimal archive with the marker of 1.data (metric "time") broken:
 * cube_read fails naming the member; a streaming reader that wants only
 * "visits" never opens it and succeeds; one that wants all gives the rows
 * of "visits" first, then fails. */
static void test_select_metrics_skips_members(void **state)
{
    (void)state;
    size_t len;
    char *bytes = slurp(archive("mkcubex_minimal"), &len);
    assert_memory_equal(bytes + 2560, "CUBEX.DATA", 10); /* 1.data */
    memcpy(bytes + 2560, "BROKEN....", 10);
    char *path = temp_file_with(bytes, len);
    char want[1024];
    snprintf(want, sizeof want, "%s: member 1.data: byte 2560: expected \"CUBEX.DATA\" or "
                                "\"ZCUBEX.DATA\"", path);
    cube_t *c = cube_create();
    assert_int_equal(cube_read(c, path), -1);
    assert_int_equal(cube_error_code(c), CUBE_EFORMAT);
    assert_string_equal(cube_error(c), want);
    cube_free(c);

    cube_reader *r = cube_reader_open(path);
    const cube_t *defs = cube_reader_definitions(r);
    assert_non_null(defs);
    unsigned char wanted[3] = {1, 0, 1};
    assert_string_equal(cube_metric_uniq_name(cube_get_metric(defs, 1)), "time");
    assert_int_equal(cube_reader_select_metrics(r, wanted), 0);
    size_t rows = 0, m, n;
    const double *v;
    int rc;
    while ((rc = cube_reader_next_row_index(r, &m, &n, &v)) == 1) {
        assert_int_not_equal(m, 1);
        rows++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(rows, 6 + 1); /* visits on every call path, bytes on one */
    cube_reader_close(r);

    r = cube_reader_open(path);
    rows = 0;
    while ((rc = cube_reader_next_row_index(r, &m, &n, &v)) == 1) {
        assert_int_equal(m, 0);
        rows++;
    }
    assert_int_equal(rc, -1);
    assert_int_equal(rows, 6);
    assert_string_equal(cube_reader_error(r), want);
    cube_reader_close(r);
    unlink(path);
    free(path);
    free(bytes);
}

/* ---- hand-made archives --------------------------------------------------------- */

static const char head[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n"
    "<attr key=\"k\" value=\"first\"/><attr key=\"k\" value=\"last\"/>\n"
    "<metrics>\n";

/* The definitions of the hand-made archive: a TAU_ATOMIC metric stored
 * big endian, a UINT64 metric with values beyond 2^53 and 2^64 - 5, a
 * ghost metric, a derived one, one of an unknown type without members,
 * a compressed one whose member lacks a listed row, and two locations whose Ids are not in document order. */
static const char anchor_xml[] =
    "<metric id=\"7\" type=\"EXCLUSIVE\"><disp_name>Tau</disp_name><uniq_name>tau</uniq_name>"
    "<dtype>TAU_ATOMIC</dtype><uom>s</uom><url></url><descr></descr>"
    "<attr key=\"ma\" value=\"mv\"/></metric>\n"
    "<metric id=\"3\" type=\"EXCLUSIVE\"><disp_name>Big</disp_name><uniq_name>big</uniq_name>"
    "<dtype>UINT64</dtype><uom>occ</uom><url></url><descr></descr></metric>\n"
    "<metric id=\"5\" type=\"INCLUSIVE\" viztype=\"GHOST\"><disp_name>G</disp_name>"
    "<uniq_name>g</uniq_name><dtype>DOUBLE</dtype><uom>s</uom><url></url><descr></descr>"
    "</metric>\n"
    "<metric id=\"9\" type=\"POSTDERIVED\"><disp_name>D</disp_name><uniq_name>d</uniq_name>"
    "<dtype>DOUBLE</dtype><uom>s</uom><url></url><descr></descr>"
    "<cubepl rowwise=false>metric::big()*2</cubepl></metric>\n"
    "<metric id=\"11\" type=\"EXCLUSIVE\"><disp_name>U</disp_name><uniq_name>u</uniq_name>"
    "<dtype>FOO</dtype><uom>s</uom><url></url><descr></descr></metric>\n"
    "<metric id=\"13\" type=\"EXCLUSIVE\"><disp_name>Z</disp_name><uniq_name>z</uniq_name>"
    "<dtype>DOUBLE</dtype><uom>s</uom><url></url><descr></descr></metric>\n"
    "</metrics>\n<program>\n"
    "<region id=\"0\" mod=\"m.c\" begin=\"1\" end=\"9\"><name>main</name><paradigm>user"
    "</paradigm><role>function</role><url></url><descr></descr></region>\n"
    "<region id=\"1\" mod=\"m.c\" begin=\"2\" end=\"3\"><name>foo</name><url></url>"
    "<descr></descr></region>\n"
    "<cnode id=\"4\" calleeId=\"0\"><cnode id=\"2\" calleeId=\"1\" line=\"5\" mod=\"m.c\">"
    "<parameter partype=\"numeric\" parkey=\"n\" parvalue=\"12\"/>"
    "<parameter partype=\"string\" parkey=\"s\" parvalue=\"x\"/>"
    "<attr key=\"ca\" value=\"cv\"/></cnode></cnode>\n"
    "</program>\n<system>\n"
    "<systemtreenode Id=\"0\"><name>m</name><class>machine</class>"
    "<systemtreenode Id=\"1\"><name>r</name><class>rack</class><descr>a rack</descr>"
    "<systemtreenode Id=\"2\"><name>n</name><class>node</class>"
    "<locationgroup Id=\"0\"><name>rank 0</name><rank>0</rank><type>process</type>"
    "<location Id=\"1\"><name>t</name><rank>0</rank><type>thread</type></location>"
    "<location Id=\"0\"><name>gpu</name><rank>1</rank><type>gpu</type></location>"
    "</locationgroup></systemtreenode></systemtreenode></systemtreenode>\n"
    "</system>\n</cube>\n";

static void put(unsigned char **p, uint64_t v, size_t n, int big_endian)
{
    for (size_t i = 0; i < n; i++)
        (*p)[big_endian ? i : n - 1 - i] = (unsigned char)(v >> (8 * (n - 1 - i)));
    *p += n;
}

static void put_double(unsigned char **p, double d, int big_endian)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    put(p, bits, 8, big_endian);
}

/* An index member listing `n` ordinals. */
static size_t make_index(unsigned char *buf, int big_endian, const uint32_t *ordinals, size_t n)
{
    unsigned char *p = buf;
    memcpy(p, "CUBEX.INDEX", 11);
    p += 11;
    put(&p, 1, 4, big_endian);
    put(&p, 0, 2, big_endian);
    *p++ = 1;
    put(&p, n, 4, big_endian);
    for (size_t i = 0; i < n; i++)
        put(&p, ordinals[i], 4, big_endian);
    return (size_t)(p - buf);
}

static char *write_archive(const char *anchor_text, int with_members)
{
    char *path = temp_path(".cubex");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    cube_status st;
    cubex_tar_writer *w = cubex_tar_writer_open_fd(fd, path, &st);
    assert_non_null(w);
    unsigned char buf[1024], *p;
    size_t n;
    if (with_members) {
        /* tau, big endian: ordinals 0 (main) and 1 (foo); per row the
         * locations with Id 0 and 1 */
        uint32_t both[] = {0, 1};
        n = make_index(buf, 1, both, 2);
        assert_int_equal(cubex_tar_add(w, "7.index", buf, n, 0, &st), 0);
        p = buf;
        memcpy(p, "CUBEX.DATA", 10);
        p += 10;
        for (int row = 0; row < 2; row++)
            for (int loc = 0; loc < 2; loc++) {
                put(&p, (uint64_t)(2 + row), 4, 1); /* n */
                put_double(&p, 1.0, 1);             /* min */
                put_double(&p, 5.0 + loc, 1);       /* max */
                put_double(&p, 8.0 + 4 * row + loc, 1); /* sum */
                put_double(&p, 30.0, 1);            /* sum of squares */
            }
        assert_int_equal(cubex_tar_add(w, "7.data", buf, (size_t)(p - buf), 0, &st), 0);
        /* big, little endian: only foo */
        uint32_t foo[] = {1};
        n = make_index(buf, 0, foo, 1);
        assert_int_equal(cubex_tar_add(w, "3.index", buf, n, 0, &st), 0);
        p = buf;
        memcpy(p, "CUBEX.DATA", 10);
        p += 10;
        put(&p, ((uint64_t)1 << 60) + 1, 8, 0); /* location 0 */
        put(&p, UINT64_MAX - 4, 8, 0);         /* location 1: 2^64 - 5 */
        assert_int_equal(cubex_tar_add(w, "3.data", buf, (size_t)(p - buf), 0, &st), 0);
        /* the ghost metric: members named ghost_5.*, a dense index */
        p = buf;
        n = make_index(buf, 0, NULL, 0);
        buf[17] = 3;
        assert_int_equal(cubex_tar_add(w, "ghost_5.index", buf, 18, 0, &st), 0);
        p = buf;
        memcpy(p, "CUBEX.DATA", 10);
        p += 10;
        put_double(&p, 0.5, 0);
        put_double(&p, 1.5, 0);
        put_double(&p, 2.5, 0);
        put_double(&p, 3.5, 0);
        assert_int_equal(cubex_tar_add(w, "ghost_5.data", buf, (size_t)(p - buf), 0, &st), 0);
        /* z, compressed: both call paths listed, only foo's row written */
        n = make_index(buf, 0, both, 2);
        assert_int_equal(cubex_tar_add(w, "13.index", buf, n, 0, &st), 0);
        unsigned char raw[16], packed[64];
        p = raw;
        put_double(&p, 7.0, 0);
        put_double(&p, 8.0, 0);
        uLongf zn = sizeof packed;
        assert_int_equal(compress2(packed, &zn, raw, sizeof raw, 6), Z_OK);
        p = buf;
        memcpy(p, "ZCUBEX.DATA", 11);
        p += 11;
        put(&p, 1, 8, 0);      /* one entry: */
        put(&p, 16, 8, 0);     /*   row 1 (uncompressed offset 16) */
        put(&p, 0, 8, 0);      /*   at the start of the streams */
        put(&p, zn, 8, 0);
        memcpy(p, packed, zn);
        p += zn;
        assert_int_equal(cubex_tar_add(w, "13.data", buf, (size_t)(p - buf), 0, &st), 0);
        assert_int_equal(cubex_tar_add(w, "notes.txt", "kept", 4, 0, &st), 0);
    }
    assert_int_equal(cubex_tar_add(w, "anchor.xml", anchor_text, strlen(anchor_text), 0, &st), 0);
    assert_int_equal(cubex_tar_finish(w, &st), 0);
    cubex_tar_writer_free(w);
    close(fd);
    return path;
}

static char *hand_made_anchor(void)
{
    char *text = malloc(sizeof head + sizeof anchor_xml);
    assert_non_null(text);
    strcpy(text, head);
    strcat(text, anchor_xml);
    return text;
}

static void test_hand_made(void **state)
{
    (void)state;
    char *text = hand_made_anchor();
    char *path = write_archive(text, 1);
    cube_t *c = read_ok(path);
    /* attributes: the last value of a repeated key */
    assert_int_equal(cube_num_attrs(c), 1);
    assert_string_equal(cube_get_attr(c, "k"), "last");
    /* metrics */
    assert_int_equal(cube_num_metrics(c), 6);
    const cube_metric *tau = cube_find_metric(c, "tau"), *big = cube_find_metric(c, "big"),
                      *g = cube_find_metric(c, "g"), *d = cube_find_metric(c, "d"),
                      *u = cube_find_metric(c, "u");
    assert_int_equal(cube_metric_id(tau), 7);
    assert_int_equal(cube_metric_num_attrs(tau), 1);
    assert_string_equal(cube_metric_attr_value(tau, 0), "mv");
    assert_int_equal(cube_metric_is_ghost(g), 1);
    assert_int_equal(cube_metric_type(g), CUBE_KIND_INCLUSIVE);
    assert_int_equal(cube_metric_is_derived(d), 1);
    assert_string_equal(cube_metric_expression(d), "metric::big()*2");
    assert_string_equal(cube_metric_dtype(u), "FOO");
    /* the call tree: ids as written, parameters, attributes */
    const cube_cnode *main_ = cube_get_cnode(c, 0), *foo = cube_get_cnode(c, 1);
    assert_int_equal(cube_cnode_id(main_), 4);
    assert_int_equal(cube_cnode_id(foo), 2);
    assert_int_equal(cube_cnode_line(foo), 5);
    assert_int_equal(cube_cnode_num_params(foo), 2);
    assert_string_equal(cube_cnode_param_key(foo, 0), "n");
    assert_int_equal(cube_cnode_param_is_numeric(foo, 0), 1);
    assert_string_equal(cube_cnode_param_value(foo, 1), "x");
    assert_int_equal(cube_cnode_param_is_numeric(foo, 1), 0);
    assert_string_equal(cube_cnode_attr_key(foo, 0), "ca");
    assert_string_equal(cube_region_paradigm(cube_cnode_callee(main_)), "user");
    /* a system tree of three levels; threads in document order */
    assert_int_equal(cube_num_machines(c), 1);
    assert_int_equal(cube_num_nodes(c), 2);
    const cube_node *rack = cube_get_node(c, 0), *node = cube_get_node(c, 1);
    assert_string_equal(cube_node_class(rack), "rack");
    assert_string_equal(cube_node_descr(rack), "a rack");
    assert_ptr_equal(cube_node_parent(node), rack);
    assert_ptr_equal(cube_node_machine(node), cube_get_machine(c, 0));
    const cube_thread *t0 = cube_get_thread(c, 0), *t1 = cube_get_thread(c, 1);
    assert_int_equal(cube_thread_id(t0), 1);
    assert_int_equal(cube_thread_id(t1), 0);
    assert_int_equal(cube_thread_type(t1), CUBE_LOCATION_GPU);
    /* TAU_ATOMIC, big endian: the double is sum / n; the exact bytes little
     * endian at the thread's index */
    assert_true(cube_get_sev(c, tau, main_, t1) == 8.0 / 2);
    assert_true(cube_get_sev(c, tau, main_, t0) == 9.0 / 2);
    assert_true(cube_get_sev(c, tau, foo, t0) == 13.0 / 3);
    const unsigned char *e = exact_value(tau, (cubex_dtype){CUBEX_TAU_ATOMIC, 0}, foo, t0);
    assert_non_null(e);
    static const unsigned char n3[4] = {3, 0, 0, 0};
    assert_memory_equal(e, n3, 4);
    double parts[5];
    assert_int_equal(cubex_value_decode((cubex_dtype){CUBEX_TAU_ATOMIC, 0}, 0, e, parts), 0);
    assert_true(parts[0] == 3 && parts[1] == 1 && parts[2] == 6 && parts[3] == 13 &&
                parts[4] == 30);
    /* UINT64: 2^64 - 5 is -5; 2^60 + 1 is kept exactly beside its double */
    assert_null(cube_get_row(c, big, main_));
    assert_true(cube_get_sev(c, big, foo, t0) == -5.0);
    assert_true(cube_get_sev(c, big, foo, t1) == (double)(((uint64_t)1 << 60) + 1));
    e = exact_value(big, (cubex_dtype){CUBEX_UINT64, 0}, foo, t1);
    assert_non_null(e);
    assert_true(le64(e) == ((uint64_t)1 << 60) + 1);
    assert_true(le64(exact_value(big, (cubex_dtype){CUBEX_UINT64, 0}, foo, t0)) == UINT64_MAX - 4);
    /* the ghost metric's dense rows: column l is the location with Id l */
    assert_true(cube_get_sev(c, g, main_, t1) == 0.5);
    assert_true(cube_get_sev(c, g, main_, t0) == 1.5);
    assert_true(cube_get_sev(c, g, foo, t1) == 2.5);
    assert_null(g->exact);
    /* a compressed member without main's row: main has none */
    const cube_metric *z = cube_find_metric(c, "z");
    assert_null(cube_get_row(c, z, main_));
    assert_true(cube_get_sev(c, z, foo, t1) == 7.0);
    assert_true(cube_get_sev(c, z, foo, t0) == 8.0);
    /* no rows of the derived metric and the one without members */
    assert_int_equal(cube_num_rows(c), 2 + 1 + 2 + 1);
    /* the extra member, kept */
    assert_int_equal(cube_num_extra_members(c), 1);
    size_t size;
    assert_string_equal(cube_extra_member_name(c, 0), "notes.txt");
    assert_memory_equal(cube_extra_member_data(c, 0, &size), "kept", 4);
    assert_int_equal(size, 4);
    /* warnings: the derived metric, the unknown type, once each */
    assert_int_equal(cube_num_warnings(c), 2);
    assert_non_null(strstr(cube_warning(c, 0), "1 derived metric (d) is not computed"));
    assert_non_null(strstr(cube_warning(c, 1), "metric u: unknown value type \"FOO\", read as DOUBLE"));
    cube_free(c);
    unlink(path);
    free(path);
    free(text);
}

/* Rows that are the model's byte for byte (plain doubles in this machine's
 * order, locations in thread order) are read straight into the model:
 * dense and sparse, beside the same values stored big endian and as
 * INT64, which are decoded.  Every value comes back bit for bit. */
static void test_rows_in_place(void **state)
{
    (void)state;
    static const char text[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n<metrics>\n"
        "<metric id=\"0\" type=\"EXCLUSIVE\"><disp_name>D</disp_name><uniq_name>dense</uniq_name>"
        "<dtype>DOUBLE</dtype><uom>s</uom><url></url><descr></descr></metric>\n"
        "<metric id=\"1\" type=\"INCLUSIVE\"><disp_name>S</disp_name><uniq_name>sparse</uniq_name>"
        "<dtype>MAXDOUBLE</dtype><uom>s</uom><url></url><descr></descr></metric>\n"
        "<metric id=\"2\" type=\"EXCLUSIVE\"><disp_name>B</disp_name><uniq_name>big</uniq_name>"
        "<dtype>DOUBLE</dtype><uom>s</uom><url></url><descr></descr></metric>\n"
        "<metric id=\"3\" type=\"EXCLUSIVE\"><disp_name>I</disp_name><uniq_name>int</uniq_name>"
        "<dtype>INT64</dtype><uom>occ</uom><url></url><descr></descr></metric>\n"
        "</metrics>\n<program>\n"
        "<region id=\"0\" mod=\"m.c\" begin=\"1\" end=\"9\"><name>main</name><url></url>"
        "<descr></descr></region>\n"
        "<region id=\"1\" mod=\"m.c\" begin=\"2\" end=\"3\"><name>foo</name><url></url>"
        "<descr></descr></region>\n"
        "<cnode id=\"0\" calleeId=\"0\"><cnode id=\"1\" calleeId=\"1\"/>"
        "<cnode id=\"2\" calleeId=\"1\"/></cnode>\n"
        "</program>\n<system>\n"
        "<systemtreenode Id=\"0\"><name>m</name><class>machine</class>"
        "<systemtreenode Id=\"1\"><name>n</name><class>node</class>"
        "<locationgroup Id=\"0\"><name>rank 0</name><rank>0</rank><type>process</type>"
        "<location Id=\"0\"><name>t0</name><rank>0</rank><type>thread</type></location>"
        "<location Id=\"1\"><name>t1</name><rank>1</rank><type>thread</type></location>"
        "<location Id=\"2\"><name>t2</name><rank>2</rank><type>thread</type></location>"
        "</locationgroup></systemtreenode></systemtreenode>\n"
        "</system>\n</cube>\n";
    const double v[9] = {-0.0, 5e-324, 1.0 / 3.0, -1.7976931348623157e308, 0.1, 1e300,
                         -2.5, 4.0, 7.25};
    char *path = temp_path(".cubex");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    cube_status st;
    cubex_tar_writer *w = cubex_tar_writer_open_fd(fd, path, &st);
    assert_non_null(w);
    unsigned char buf[512], *p;
    static const char *const names[4][2] = {{"0.index", "0.data"}, {"1.index", "1.data"},
                                            {"2.index", "2.data"}, {"3.index", "3.data"}};
    const uint32_t some[] = {0, 2}; /* sparse: main and the second foo */
    for (int m = 0; m < 4; m++) {
        int big = m == 2;
        size_t n = m == 1 ? make_index(buf, 0, some, 2) : make_index(buf, big, NULL, 0);
        if (m != 1)
            buf[17] = 3; /* dense */
        assert_int_equal(cubex_tar_add(w, names[m][0], buf, m == 1 ? n : 18, 0, &st), 0);
        p = buf;
        memcpy(p, "CUBEX.DATA", 10);
        p += 10;
        for (int row = 0; row < (m == 1 ? 2 : 3); row++)
            for (int loc = 0; loc < 3; loc++) {
                if (m == 3)
                    put(&p, (uint64_t)(int64_t)(-7 + 3 * row + loc), 8, 0);
                else
                    put_double(&p, v[3 * row + loc] * (m + 1), big);
            }
        assert_int_equal(cubex_tar_add(w, names[m][1], buf, (size_t)(p - buf), 0, &st), 0);
    }
    assert_int_equal(cubex_tar_add(w, "anchor.xml", text, strlen(text), 0, &st), 0);
    assert_int_equal(cubex_tar_finish(w, &st), 0);
    cubex_tar_writer_free(w);
    assert_int_equal(close(fd), 0);

    cube_t *c = read_ok(path);
    assert_int_equal(cube_num_threads(c), 3);
    assert_int_equal(cube_num_rows(c), 3 + 2 + 3 + 3);
    for (size_t m = 0; m < 4; m++) {
        const cube_metric *met = cube_get_metric(c, m);
        for (size_t n = 0; n < 3; n++) {
            const double *row = cube_get_row(c, met, cube_get_cnode(c, n));
            if (m == 1 && n == 1) {
                assert_null(row);
                continue;
            }
            assert_non_null(row);
            size_t stored = m == 1 && n == 2 ? 1 : n; /* the sparse member's second row */
            for (size_t t = 0; t < 3; t++) {
                double want = m == 3 ? (double)(-7 + 3 * (int)stored + (int)t)
                                     : v[3 * stored + t] * (double)(m + 1);
                if (memcmp(&row[t], &want, sizeof want) != 0)
                    fail_msg("metric %zu cnode %zu thread %zu: %a, want %a", m, n, t, row[t],
                             want);
            }
        }
    }
    cube_free(c);
    unlink(path);
    free(path);
}

/* A location group right below a root system tree node has no node to
 * sit on in the model: refused, naming both. */
static void test_group_below_root(void **state)
{
    (void)state;
    static const char text[] =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n<metrics>\n"
        "<metric id=\"0\"><disp_name>T</disp_name><uniq_name>t</uniq_name><dtype>DOUBLE</dtype>"
        "<uom>s</uom><url></url><descr></descr></metric>\n</metrics>\n<program>\n"
        "<region id=\"0\"><name>main</name><url></url><descr></descr></region>\n"
        "<cnode id=\"0\" calleeId=\"0\"></cnode>\n</program>\n<system>\n"
        "<systemtreenode Id=\"0\"><name>the machine</name><class>machine</class>"
        "<locationgroup Id=\"0\"><name>rank 0</name><rank>0</rank><type>process</type>"
        "<location Id=\"0\"><name>t</name><rank>0</rank><type>thread</type></location>"
        "</locationgroup></systemtreenode>\n</system>\n</cube>\n";
    char *path = write_archive(text, 0);
    char want[1024];
    snprintf(want, sizeof want, "%s: member anchor.xml: location group rank 0 directly below "
                                "the root system tree node the machine is not supported", path);
    cube_t *c = cube_create();
    assert_int_equal(cube_read(c, path), -1);
    assert_int_equal(cube_error_code(c), CUBE_EUNSUPPORTED);
    assert_string_equal(cube_error(c), want);
    cube_free(c);
    cube_reader *r = cube_reader_open(path);
    assert_null(cube_reader_definitions(r));
    assert_string_equal(cube_reader_error(r), want);
    cube_reader_close(r);
    unlink(path);
    free(path);
}

/* The minimal archive with the member at `header` renamed to `name`
 * (the header checksum goes wrong: a warning only), read: the error. */
static void expect_renamed_fails(size_t header, const char *name, const char *what)
{
    size_t len;
    char *bytes = slurp(archive("mkcubex_minimal"), &len);
    memcpy(bytes + header, name, strlen(name));
    char *path = temp_file_with(bytes, len);
    char want[1024];
    snprintf(want, sizeof want, "%s: %s", path, what);
    cube_t *c = cube_create();
    assert_int_equal(cube_read(c, path), -1);
    assert_int_equal(cube_error_code(c), CUBE_EFORMAT);
    assert_string_equal(cube_error(c), want);
    cube_free(c);
    unlink(path);
    free(path);
    free(bytes);
}

/* An index without its data member, an archive without anchor.xml. */
static void test_missing_members(void **state)
{
    (void)state;
    expect_renamed_fails(0, "0.xxxx", "member 0.data: expected it beside member 0.index (metric "
                                      "visits), the archive has none");
    expect_renamed_fails(6144, "anchor.xmX", "expected a member anchor.xml (the definitions of a "
                                             "CUBE 4 archive), the archive has none");
}

/* A CUBE 3 file says so. */
static void test_cube3_source(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cube/scorep-1.1_profile.cube"));
    assert_int_equal(cube_source_format(c), CUBE_FORMAT_CUBE3);
    assert_string_equal(cube_source_version(c), "3.0");
    cube_free(c);
    c = cube_create();
    assert_int_equal(cube_source_format(c), CUBE_FORMAT_NONE);
    assert_string_equal(cube_source_version(c), "");
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_files),
        cmocka_unit_test(test_every_file_listed),
        cmocka_unit_test(test_double_views),
        cmocka_unit_test(test_gzip_compressed),
        cmocka_unit_test(test_pipe),
        cmocka_unit_test(test_pipe_truncated),
        cmocka_unit_test(test_select_metrics_skips_members),
        cmocka_unit_test(test_hand_made),
        cmocka_unit_test(test_rows_in_place),
        cmocka_unit_test(test_group_below_root),
        cmocka_unit_test(test_missing_members),
        cmocka_unit_test(test_cube3_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
