/*
 * test_views_inclusive.c - the views of metrics stored call-tree inclusive
 * (CUBE 4 kinds INCLUSIVE and SIMPLE) and of derived metrics.
 *
 * - The small CUBE 4 experiment of testdata/cubex/mkcubex_minimal, rebuilt
 *   through the API from its expected-values file (a visits metric stored
 *   exclusive, a time metric stored inclusive, a sparse bytes metric): the
 *   inclusive and exclusive values of every call path listed there, as
 *   CubeLib computes them, and the values CubeLib's cube_dump prints.
 * - Every real CUBE 3 experiment of testdata/cube, with each metric's rows
 *   replaced by their subtree sums and its kind set to INCLUSIVE (or
 *   SIMPLE; all metrics, or every other one so that parents and children
 *   are stored differently): every value of every view, total, flat
 *   profile, system sum and metric-tree value equals the original's
 *   within round-off.
 * - Derived metrics: no view, a NaN total, never a silent zero.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include "cube_statfile.h"
#include "cube_views.h"
#include "json_reader.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * mkcubex_minimal, from its expected-values file
 * ------------------------------------------------------------------------ */

typedef struct {
    json *doc;
    cube_t *c;
    size_t ncnodes, nmetrics;
    cube_cnode **cnode_of_id; /* by cnode id of the file */
    cube_metric **metric;     /* in the file's order */
} minimal;

static cube_metric *metric_by_key(const minimal *m, const char *key)
{
    const json *ms = json_get(m->doc, "metrics");
    for (size_t i = 0; i < json_len(ms); i++)
        if (strcmp(json_str(json_get(json_at(ms, i), "key")), key) == 0)
            return m->metric[i];
    fail_msg("no metric %s", key);
    return NULL;
}

static cube_metric_kind kind_named(const char *name)
{
    for (int k = CUBE_KIND_EXCLUSIVE; k <= CUBE_KIND_POSTDERIVED; k++)
        if (strcmp(cube_metric_kind_name((cube_metric_kind)k), name) == 0)
            return (cube_metric_kind)k;
    fail_msg("no metric kind %s", name);
    return CUBE_KIND_EXCLUSIVE;
}

static minimal build_minimal(void)
{
    minimal m;
    memset(&m, 0, sizeof m);
    m.doc = json_load_expected("testdata/cubex", "mkcubex_minimal");
    assert_non_null(m.doc);
    cube_t *c = m.c = cube_create();
    assert_non_null(c);

    const json *ms = json_get(m.doc, "metrics");
    m.nmetrics = json_len(ms);
    m.metric = calloc(m.nmetrics, sizeof *m.metric);
    assert_non_null(m.metric);
    for (size_t i = 0; i < m.nmetrics; i++) {
        const json *j = json_at(ms, i);
        assert_true(json_get(j, "parent")->type == JSON_NULL); /* a flat metric tree */
        m.metric[i] = cube_def_met(c, json_str(json_get(j, "disp_name")),
                                   json_str(json_get(j, "uniq_name")),
                                   json_str(json_get(j, "dtype")), json_str(json_get(j, "uom")),
                                   "", "", "", NULL);
        assert_non_null(m.metric[i]);
        assert_int_equal(cube_metric_set_type(c, m.metric[i],
                                              kind_named(json_str(json_get(j, "type")))),
                         0);
    }

    const json *rs = json_get(m.doc, "regions");
    size_t nregions = json_len(rs);
    cube_region **region = calloc(nregions, sizeof *region);
    assert_non_null(region);
    for (size_t i = 0; i < nregions; i++) {
        const json *r = json_at(rs, i);
        assert_int_equal(json_u64(json_at(r, 0)), i);
        region[i] = cube_def_region(c, json_str(json_at(r, 1)), -1, -1, "", "", "");
    }

    /* cnodes are listed parent first, in pre-order (ids 0 1 3 5 2 4) */
    const json *cs = json_get(m.doc, "cnodes");
    m.ncnodes = json_len(cs);
    m.cnode_of_id = calloc(m.ncnodes, sizeof *m.cnode_of_id);
    assert_non_null(m.cnode_of_id);
    for (size_t i = 0; i < m.ncnodes; i++) {
        const json *cn = json_at(cs, i);
        size_t id = (size_t)json_u64(json_at(cn, 0));
        const json *parent = json_at(cn, 1);
        assert_true(id < m.ncnodes && !m.cnode_of_id[id]);
        m.cnode_of_id[id] = cube_def_cnode(
            c, region[json_u64(json_at(cn, 2))],
            parent->type == JSON_NULL ? NULL : m.cnode_of_id[json_u64(parent)]);
        assert_non_null(m.cnode_of_id[id]);
    }
    free(region);

    /* one process per location group, one thread per location: the
     * thread index is the location id */
    cube_machine *mach = cube_def_mach(c, "machine", "");
    cube_node *node = cube_def_node(c, "node0", mach);
    const json *ls = json_get(m.doc, "locations");
    for (size_t i = 0; i < json_len(ls); i++) {
        assert_int_equal(json_u64(json_at(json_at(ls, i), 0)), i);
        cube_process *p = cube_def_proc(c, "rank", (int)i, node);
        assert_non_null(cube_def_thrd(c, "thread 0", 0, p));
    }

    const json *vs = json_get(m.doc, "stored_values");
    for (size_t i = 0; i < json_len(vs); i++) {
        const json *v = json_at(vs, i);
        cube_set_sev(c, metric_by_key(&m, json_str(json_at(v, 0))),
                     m.cnode_of_id[json_u64(json_at(v, 1))],
                     cube_get_thread(c, json_u64(json_at(v, 2))), json_num(json_at(v, 3)));
    }
    assert_int_equal(cube_error_code(c), CUBE_OK);
    return m;
}

static void free_minimal(minimal *m)
{
    cube_free(m->c);
    json_free(m->doc);
    free(m->cnode_of_id);
    free(m->metric);
}

static cube_view *view_ok(const cube_t *c, const cube_metric *met, cube_metric_flavour mf,
                          cube_call_flavour cf, unsigned flags)
{
    cube_status st;
    cube_view *v = cube_view_compute(c, met, mf, cf, flags, &st);
    if (!v)
        fail_msg("view of %s: %s", cube_metric_uniq_name(met), st.message);
    return v;
}

/* The aggregated values CubeLib computes for every call path listed. */
static void test_minimal_totals(void **state)
{
    (void)state;
    minimal m = build_minimal();
    const json *ts = json_get(m.doc, "totals");
    assert_true(json_len(ts) >= 12);
    for (size_t i = 0; i < json_len(ts); i++) {
        const json *t = json_at(ts, i);
        const cube_metric *met = metric_by_key(&m, json_str(json_get(t, "metric")));
        const cube_cnode *cn = m.cnode_of_id[json_u64(json_get(t, "cnode"))];
        cube_view *incl =
            view_ok(m.c, met, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, CUBE_VIEW_AGGREGATE);
        cube_view *excl =
            view_ok(m.c, met, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, CUBE_VIEW_AGGREGATE);
        /* the values are exact in binary: no round-off */
        assert_true(cube_view_value(incl, cn, 0) == json_num(json_get(t, "incl")));
        assert_true(cube_view_value(excl, cn, 0) == json_num(json_get(t, "excl")));
        cube_view_free(incl);
        cube_view_free(excl);
    }
    free_minimal(&m);
}

/* What CubeLib's cube_dump prints for the file (per location 0, and
 * aggregated at main), the stored values, the metric totals and the flat
 * profile. */
static void test_minimal_cube_dump(void **state)
{
    (void)state;
    minimal m = build_minimal();
    const cube_metric *visits = metric_by_key(&m, "visits"), *time = metric_by_key(&m, "time"),
                      *bytes = metric_by_key(&m, "bytes");
    const cube_metric *mets[3] = {visits, time, bytes};
    cube_cnode **id = m.cnode_of_id;
    /* -z incl, location 0, main: 0,0,1119,10,4096 */
    const double incl_main[3] = {1119, 10, 4096};
    /* -z excl, location 0: bar 2,0,5,2.5,0 and baz 3,0,100,0.5,4096 */
    const double excl_bar[3] = {5, 2.5, 0}, excl_baz[3] = {100, 0.5, 4096};
    /* -t aggr -z incl, main: 0,1344,21,4096 (also each metric's total) */
    const double aggr_main[3] = {1344, 21, 4096};
    double totals[3];
    assert_int_equal(cube_metric_totals(m.c, totals, NULL), 0);
    for (int k = 0; k < 3; k++) {
        cube_view *incl = view_ok(m.c, mets[k], CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0);
        cube_view *excl = view_ok(m.c, mets[k], CUBE_METRIC_EXCLUSIVE, CUBE_CALL_EXCLUSIVE, 0);
        cube_view *aggr = view_ok(m.c, mets[k], CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE,
                                  CUBE_VIEW_AGGREGATE);
        cube_view *stored = view_ok(m.c, mets[k], CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 0);
        assert_true(cube_view_value(incl, id[0], 0) == incl_main[k]);
        assert_true(cube_view_value(excl, id[2], 0) == excl_bar[k]);
        assert_true(cube_view_value(excl, id[3], 0) == excl_baz[k]);
        assert_true(cube_view_value(aggr, id[0], 0) == aggr_main[k]);
        assert_true(totals[cube_metric_index(mets[k])] == aggr_main[k]);
        double total;
        assert_int_equal(cube_view_total(aggr, &total, NULL), 0);
        assert_true(total == aggr_main[k]);
        /* stored: the rows as they are (time: inclusive) */
        for (size_t c = 0; c < m.ncnodes; c++)
            for (size_t t = 0; t < 2; t++)
                assert_true(cube_view_value(stored, id[c], t) ==
                            cube_get_sev(m.c, mets[k], id[c], cube_get_thread(m.c, t)));
        cube_view_free(incl);
        cube_view_free(excl);
        cube_view_free(aggr);
        cube_view_free(stored);
    }
    /* time at location 1 in every call path, exclusive: 11-7.5-2.5 = 1,
     * 7.5-0.5 = 7, 2.5-1.5 = 1, 0.5-0.25 = 0.25, 0.25, 1.5 */
    cube_view *t1 = view_ok(m.c, time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, 0);
    const double want[6] = {1, 7, 1, 0.25, 1.5, 0.25}; /* by cnode id */
    for (size_t c = 0; c < 6; c++)
        assert_true(cube_view_value(t1, id[c], 1) == want[c]);
    /* flat profile: every region is called once; foo's inclusive value is
     * the inclusive value of call path 1, its Subroutines baz and qux */
    cube_flat *f = cube_flat_create(t1, NULL);
    assert_non_null(f);
    const cube_region *foo = cube_cnode_callee(id[1]);
    assert_true(cube_flat_value(f, foo, CUBE_FLAT_EXCLUSIVE, 1) == 7);
    assert_true(cube_flat_value(f, foo, CUBE_FLAT_INCLUSIVE, 1) == 7.5);
    assert_true(cube_flat_value(f, foo, CUBE_FLAT_SUBROUTINES, 1) == 0.5);
    cube_flat_free(f);
    cube_view_free(t1);

    /* the stored values of an inclusive metric are call-inclusive: no flat
     * profile from them */
    cube_status st;
    cube_view *sv = view_ok(m.c, time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 0);
    assert_null(cube_flat_create(sv, &st));
    assert_int_equal(st.code, CUBE_EINVAL);
    assert_non_null(strstr(st.message, "stored call-tree inclusive"));
    cube_view_free(sv);
    free_minimal(&m);
}

/* Rows streamed in any order (children before parents, as a CUBE 4 reader
 * meets them in "wide" order) give the same view. */
static void test_minimal_streamed(void **state)
{
    (void)state;
    minimal m = build_minimal();
    const cube_metric *time = metric_by_key(&m, "time");
    for (int cf = CUBE_CALL_INCLUSIVE; cf <= CUBE_CALL_STORED; cf++) {
        cube_view *whole = view_ok(m.c, time, CUBE_METRIC_EXCLUSIVE, (cube_call_flavour)cf, 0);
        cube_view *v = cube_view_create(m.c, time, CUBE_METRIC_EXCLUSIVE, (cube_call_flavour)cf,
                                        0, NULL);
        assert_non_null(v);
        for (size_t k = cube_num_rows(m.c); k-- > 0;) {
            cube_metric *met;
            cube_cnode *cn;
            const double *row = cube_row_at(m.c, k, &met, &cn);
            assert_int_equal(cube_view_add_row(v, met, cn, row), 0);
        }
        assert_int_equal(cube_view_finish(v), 0);
        for (size_t c = 0; c < m.ncnodes; c++)
            for (size_t t = 0; t < 2; t++)
                assert_true(cube_view_value(v, m.cnode_of_id[c], t) ==
                            cube_view_value(whole, m.cnode_of_id[c], t));
        cube_view_free(v);
        cube_view_free(whole);
    }
    free_minimal(&m);
}

/* ------------------------------------------------------------------------
 * The real CUBE 3 experiments, stored call-tree inclusive
 * ------------------------------------------------------------------------ */

/* Store every metric of `x` (read from the same file as `o`) that `pick`
 * selects as its subtree sums, with kind INCLUSIVE (SIMPLE for every
 * fifth).  MAXDOUBLE and MINDOUBLE metrics get the kind but keep their
 * rows: such a metric cannot be stored inclusive and is read as stored. */
static void make_inclusive(const cube_t *o, cube_t *x, int (*pick)(size_t))
{
    size_t nc = cube_num_cnodes(o), nt = cube_num_threads(o);
    double *sum = malloc((nc ? nc : 1) * (nt ? nt : 1) * sizeof *sum);
    unsigned char *has = malloc(nc ? nc : 1);
    assert_true(sum && has);
    for (size_t mi = 0; mi < cube_num_metrics(o); mi++) {
        if (!pick(mi))
            continue;
        const cube_metric *om = cube_get_metric(o, mi);
        cube_metric *xm = cube_get_metric(x, mi);
        assert_string_equal(cube_metric_uniq_name(om), cube_metric_uniq_name(xm));
        assert_int_equal(cube_metric_set_type(x, xm, mi % 5 == 4 ? CUBE_KIND_SIMPLE
                                                                 : CUBE_KIND_INCLUSIVE),
                         0);
        if (cube_metric_is_void(om) || cube_metric_combine(om) != CUBE_COMBINE_SUM)
            continue;
        memset(sum, 0, nc * nt * sizeof *sum);
        memset(has, 0, nc);
        for (size_t i = 0; i < nc; i++) {
            const double *row = cube_get_row(o, om, cube_get_cnode(o, i));
            if (row) {
                memcpy(sum + i * nt, row, nt * sizeof *sum);
                has[i] = 1;
            }
        }
        /* parents come before their children: reverse order sums subtrees */
        for (size_t i = nc; i-- > 0;) {
            const cube_cnode *parent = cube_cnode_parent(cube_get_cnode(o, i));
            if (!parent || !has[i])
                continue;
            size_t p = cube_cnode_index(parent);
            assert_true(p < i);
            for (size_t t = 0; t < nt; t++)
                sum[p * nt + t] += sum[i * nt + t];
            has[p] = 1;
        }
        for (size_t i = 0; i < nc; i++)
            if (has[i])
                assert_int_equal(cube_set_row(x, xm, cube_get_cnode(x, i), sum + i * nt), 0);
    }
    free(sum);
    free(has);
}

/* |a - b| within round-off of values of magnitude `scale` */
static void expect_close(double a, double b, double scale, const char *what, size_t i)
{
    if (a == b || fabs(a - b) <= 1e-11 * scale)
        return;
    fail_msg("%s [%zu]: %.17g (stored exclusive) vs %.17g (stored inclusive), scale %g", what,
             i, a, b, scale);
}

/* The largest magnitude in the rows of a metric and its children in `x`
 * (subtree sums: the largest values any view of the metric meets). */
static double scale_of(const cube_t *x, const cube_metric *met)
{
    double s = 0.0;
    size_t nt = cube_num_threads(x);
    for (size_t k = 0; k < cube_num_rows(x); k++) {
        cube_metric *m;
        const double *row = cube_row_at(x, k, &m, NULL);
        if (m != met && cube_metric_parent(m) != met)
            continue;
        double sum = 0.0;
        for (size_t t = 0; t < nt; t++) {
            s = fmax(s, fabs(row[t]));
            sum += fabs(row[t]);
        }
        s = fmax(s, sum); /* aggregated */
    }
    return s;
}

static void compare_flat(const cube_t *o, const cube_flat *fo, const cube_flat *fx, double scale,
                         const char *what)
{
    size_t w = cube_flat_width(fo);
    assert_int_equal(cube_flat_width(fx), w);
    for (size_t r = 0; r < cube_num_regions(o); r++)
        for (int part = CUBE_FLAT_EXCLUSIVE; part <= CUBE_FLAT_SUBROUTINES; part++)
            for (size_t i = 0; i < w; i++)
                expect_close(cube_flat_value(fo, cube_get_region(o, r), (cube_flat_part)part, i),
                             cube_flat_value(fx, cube_get_region(o, r), (cube_flat_part)part, i),
                             scale, what, r * 3 + (size_t)part);
}

/* Every view of metric mi of `o` and of `x`. */
static void compare_metric(const cube_t *o, const cube_t *x, size_t mi, const char *file)
{
    const cube_metric *om = cube_get_metric(o, mi), *xm = cube_get_metric(x, mi);
    double scale = scale_of(x, xm);
    int x_inclusive = (cube_metric_type(xm) == CUBE_KIND_INCLUSIVE ||
                       cube_metric_type(xm) == CUBE_KIND_SIMPLE) &&
                      cube_metric_combine(xm) == CUBE_COMBINE_SUM;
    size_t nc = cube_num_cnodes(o), nt = cube_num_threads(o);
    char what[512];
    for (int mf = CUBE_METRIC_INCLUSIVE; mf <= CUBE_METRIC_EXCLUSIVE; mf++)
        for (int cf = CUBE_CALL_INCLUSIVE; cf <= CUBE_CALL_STORED; cf++)
            for (unsigned flags = 0; flags <= CUBE_VIEW_AGGREGATE; flags++) {
                /* the stored values of x are the inclusive ones of o */
                cube_call_flavour ocf = cf == CUBE_CALL_STORED && x_inclusive
                                            ? CUBE_CALL_INCLUSIVE
                                            : (cube_call_flavour)cf;
                cube_view *vo = view_ok(o, om, (cube_metric_flavour)mf, ocf, flags);
                cube_view *vx = view_ok(x, xm, (cube_metric_flavour)mf, (cube_call_flavour)cf,
                                        flags);
                snprintf(what, sizeof what, "%s: %s, metric flavour %d, call flavour %d, "
                         "flags %u", file, cube_metric_uniq_name(om), mf, cf, flags);
                size_t w = cube_view_width(vo);
                assert_int_equal(cube_view_width(vx), w);
                for (size_t c = 0; c < nc; c++)
                    for (size_t i = 0; i < w; i++)
                        expect_close(cube_view_value(vo, cube_get_cnode(o, c), i),
                                     cube_view_value(vx, cube_get_cnode(x, c), i), scale, what,
                                     c * w + i);
                double *to = calloc(nt + 1, sizeof *to), *tx = calloc(nt + 1, sizeof *tx);
                assert_true(to && tx);
                assert_int_equal(cube_view_total(vo, to, NULL), 0);
                assert_int_equal(cube_view_total(vx, tx, NULL), 0);
                for (size_t i = 0; i < w; i++)
                    expect_close(to[i], tx[i], scale, what, i);
                if (!flags) {
                    /* the system tree over the threads' totals, and their
                     * statistics */
                    size_t np = cube_num_processes(o);
                    double *po = calloc(np + 1, sizeof *po), *px = calloc(np + 1, sizeof *px);
                    double ao, ax;
                    assert_true(po && px);
                    cube_combine_rule how = cube_metric_combine(om);
                    assert_int_equal(cube_system_combine(o, how, to, po, NULL, NULL, &ao, NULL), 0);
                    assert_int_equal(cube_system_combine(x, how, tx, px, NULL, NULL, &ax, NULL), 0);
                    for (size_t p = 0; p < np; p++)
                        expect_close(po[p], px[p], scale, what, p);
                    expect_close(ao, ax, scale, what, 0);
                    cube_stats so, sx;
                    assert_int_equal(cube_stats_compute(to, nt, &so, NULL), 0);
                    assert_int_equal(cube_stats_compute(tx, nt, &sx, NULL), 0);
                    expect_close(so.median, sx.median, scale, what, 0);
                    expect_close(so.maximum, sx.maximum, scale, what, 0);
                    expect_close(so.sum, sx.sum, scale, what, 0);
                    free(po);
                    free(px);
                }
                free(to);
                free(tx);
                if (cf == CUBE_CALL_EXCLUSIVE) {
                    cube_flat *fo = cube_flat_create(vo, NULL), *fx = cube_flat_create(vx, NULL);
                    assert_true(fo && fx);
                    compare_flat(o, fo, fx, scale, what);
                    cube_flat_free(fo);
                    cube_flat_free(fx);
                }
                cube_view_free(vo);
                cube_view_free(vx);
            }
}

static int pick_all(size_t mi)
{
    (void)mi;
    return 1;
}

static int pick_odd(size_t mi)
{
    return mi % 2 == 1;
}

static void compare_file(const char *rel, int (*pick)(size_t))
{
    cube_t *o = read_ok(testdata(rel)), *x = read_ok(testdata(rel));
    make_inclusive(o, x, pick);
    size_t nm = cube_num_metrics(o);
    size_t converted = 0;
    for (size_t mi = 0; mi < nm; mi++) {
        compare_metric(o, x, mi, rel);
        converted += cube_metric_type(cube_get_metric(x, mi)) != CUBE_KIND_EXCLUSIVE;
    }
    assert_true(converted > 0);
    double *a = calloc(nm + 1, sizeof *a), *b = calloc(nm + 1, sizeof *b);
    assert_true(a && b);
    assert_int_equal(cube_metric_totals(o, a, NULL), 0);
    assert_int_equal(cube_metric_totals(x, b, NULL), 0);
    for (size_t mi = 0; mi < nm; mi++)
        expect_close(a[mi], b[mi], scale_of(x, cube_get_metric(x, mi)), "cube_metric_totals",
                     mi);
    for (int mf = CUBE_METRIC_INCLUSIVE; mf <= CUBE_METRIC_EXCLUSIVE; mf++) {
        assert_int_equal(cube_metric_tree_values(o, (cube_metric_flavour)mf, a, NULL), 0);
        assert_int_equal(cube_metric_tree_values(x, (cube_metric_flavour)mf, b, NULL), 0);
        for (size_t mi = 0; mi < nm; mi++)
            expect_close(a[mi], b[mi], scale_of(x, cube_get_metric(x, mi)),
                         "cube_metric_tree_values", mi);
    }
    free(a);
    free(b);
    cube_free(o);
    cube_free(x);
}

static void test_real_files_all_inclusive(void **state)
{
    (void)state;
    for (const char *const *f = real_cube_files; *f; f++)
        compare_file(*f, pick_all);
}

/* Parents and children stored differently: a metric-exclusive view
 * subtracts children converted the other way. */
static void test_real_files_mixed(void **state)
{
    (void)state;
    for (const char *const *f = real_cube_files; *f; f++)
        compare_file(*f, pick_odd);
}

/* The statistics of a metric's values for a statistics file are of its
 * call-tree exclusive values, however it is stored: those of the original
 * rows at the call paths that have a row in the inclusive copy (where the
 * original has none, its value is 0). */
static void test_statfile_population(void **state)
{
    (void)state;
    const char *rel = "cube/scalasca_trace.cube";
    cube_t *o = read_ok(testdata(rel)), *x = read_ok(testdata(rel));
    make_inclusive(o, x, pick_all);
    cube_statfile *s = cube_statfile_create();
    assert_non_null(s);
    size_t nt = cube_num_threads(o);
    double *values = malloc(cube_num_cnodes(o) * nt * sizeof *values);
    assert_non_null(values);
    const char *names[] = {"time", "visits", "mpi"};
    for (size_t i = 0; i < 3; i++) {
        const cube_metric *mo = cube_find_metric(o, names[i]), *mx = cube_find_metric(x, names[i]);
        assert_true(mo && mx && cube_metric_type(mx) != CUBE_KIND_EXCLUSIVE);
        size_t n = 0;
        for (size_t k = 0; k < cube_num_rows(x); k++) {
            cube_metric *m;
            cube_cnode *cn;
            cube_row_at(x, k, &m, &cn);
            if (m != mx)
                continue;
            const double *row = cube_get_row(o, mo, cube_get_cnode(o, cube_cnode_index(cn)));
            for (size_t t = 0; t < nt; t++)
                values[n++] = row ? row[t] : 0.0;
        }
        cube_stats st;
        assert_int_equal(cube_stats_compute(values, n, &st, NULL), 0);
        assert_int_equal(cube_statfile_add_from_cube(s, x, mx, 5), 0);
        const cube_statfile_pattern *p = cube_statfile_get_pattern(s, i);
        double scale = scale_of(x, mx);
        assert_true(n > 0);
        assert_int_equal(p->count, n);
        expect_close(st.sum, p->sum, scale, names[i], 0);
        expect_close(st.median, p->median, scale, names[i], 1);
        expect_close(st.maximum, p->maximum, scale, names[i], 2);
        expect_close(st.quartile75, p->quartile75, scale, names[i], 3);
        assert_int_equal(p->num_instances, 5);
        expect_close(st.maximum, p->instances[0].duration, scale, names[i], 4);
    }
    free(values);
    cube_statfile_free(s);
    cube_free(o);
    cube_free(x);
}

/* ------------------------------------------------------------------------
 * Derived metrics
 * ------------------------------------------------------------------------ */

static void test_derived(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    assert_non_null(c);
    cube_metric *time = cube_def_met(c, "Time", "time", "DOUBLE", "sec", "", "", "", NULL);
    cube_metric *part = cube_def_met(c, "Part", "part", "DOUBLE", "sec", "", "", "", time);
    cube_metric *rate = cube_def_met(c, "Rate", "rate", "DOUBLE", "", "", "", "", NULL);
    assert_int_equal(cube_metric_set_type(c, part, CUBE_KIND_PREDERIVED_INCLUSIVE), 0);
    assert_int_equal(cube_metric_set_type(c, rate, CUBE_KIND_POSTDERIVED), 0);
    assert_int_equal(cube_metric_set_expression(c, rate, "metric::time()", NULL), 0);
    cube_region *r = cube_def_region(c, "main", -1, -1, "", "", "");
    cube_cnode *cn = cube_def_cnode(c, r, NULL);
    cube_thread *t = cube_def_thrd(c, "t", 0, cube_def_proc(c, "p", 0,
                                                            cube_def_node(c, "n",
                                                                          cube_def_mach(c, "m", ""))));
    cube_set_sev(c, time, cn, t, 3.0);
    assert_int_equal(cube_error_code(c), CUBE_OK);

    cube_status st;
    for (int cf = CUBE_CALL_INCLUSIVE; cf <= CUBE_CALL_STORED; cf++) {
        assert_null(cube_view_compute(c, rate, CUBE_METRIC_INCLUSIVE, (cube_call_flavour)cf, 0,
                                      &st));
        assert_int_equal(st.code, CUBE_EUNSUPPORTED);
        assert_string_equal(st.message, "cube_view_create: metric \"rate\" is derived (CubePL "
                                        "expression): its values are not computed");
        assert_null(cube_view_create(c, part, CUBE_METRIC_EXCLUSIVE, (cube_call_flavour)cf, 0,
                                     &st));
        assert_int_equal(st.code, CUBE_EUNSUPPORTED);
        /* time minus a part that is not computed */
        assert_null(cube_view_create(c, time, CUBE_METRIC_EXCLUSIVE, (cube_call_flavour)cf, 0,
                                     &st));
        assert_int_equal(st.code, CUBE_EUNSUPPORTED);
        assert_non_null(strstr(st.message, "derived child metric \"part\""));
        /* time itself is stored */
        cube_view *v = view_ok(c, time, CUBE_METRIC_INCLUSIVE, (cube_call_flavour)cf, 0);
        assert_true(cube_view_value(v, cn, 0) == 3.0);
        cube_view_free(v);
    }
    double totals[3];
    assert_int_equal(cube_metric_totals(c, totals, NULL), 0);
    assert_true(totals[0] == 3.0);
    assert_true(isnan(totals[1]) && isnan(totals[2]));
    assert_int_equal(cube_metric_tree_values(c, CUBE_METRIC_EXCLUSIVE, totals, NULL), 0);
    assert_true(isnan(totals[0]) && isnan(totals[1]) && isnan(totals[2]));
    assert_int_equal(cube_metric_tree_values(c, CUBE_METRIC_INCLUSIVE, totals, NULL), 0);
    assert_true(totals[0] == 3.0 && isnan(totals[1]) && isnan(totals[2]));
    cube_statfile *s = cube_statfile_create();
    assert_non_null(s);
    assert_int_equal(cube_statfile_add_from_cube(s, c, rate, 5), -1);
    assert_int_equal(cube_statfile_error_code(s), CUBE_EUNSUPPORTED);
    assert_non_null(strstr(cube_statfile_error(s), "\"rate\" is derived"));
    assert_int_equal(cube_statfile_num_patterns(s), 0);
    cube_statfile_free(s);
    cube_free(c);
}

/* A MAXDOUBLE metric declared INCLUSIVE is read as stored exclusive, and
 * so is a TAU_ATOMIC one (its value carries a minimum and a maximum). */
static void test_inclusive_maximum(void **state)
{
    (void)state;
    minimal m = build_minimal();
    cube_metric *tau = cube_def_met(m.c, "Tau", "tau", "TAU_ATOMIC", "", "", "", "", NULL);
    assert_int_equal(cube_metric_set_type(m.c, tau, CUBE_KIND_INCLUSIVE), 0);
    cube_set_sev(m.c, tau, m.cnode_of_id[0], cube_get_thread(m.c, 0), 2.0);
    cube_set_sev(m.c, tau, m.cnode_of_id[1], cube_get_thread(m.c, 0), 5.0);
    cube_view *tv = view_ok(m.c, tau, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, 0);
    assert_true(cube_view_value(tv, m.cnode_of_id[0], 0) == 2.0);
    cube_view_free(tv);
    cube_metric *mx = cube_def_met(m.c, "Max", "max", "MAXDOUBLE", "sec", "", "", "", NULL);
    assert_int_equal(cube_metric_set_type(m.c, mx, CUBE_KIND_INCLUSIVE), 0);
    cube_set_sev(m.c, mx, m.cnode_of_id[0], cube_get_thread(m.c, 0), 2.0);
    cube_set_sev(m.c, mx, m.cnode_of_id[5], cube_get_thread(m.c, 0), 7.0);
    cube_view *excl = view_ok(m.c, mx, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, 0);
    cube_view *incl = view_ok(m.c, mx, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0);
    cube_view *stored = view_ok(m.c, mx, CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 0);
    assert_true(cube_view_value(excl, m.cnode_of_id[0], 0) == 2.0);
    assert_true(cube_view_value(stored, m.cnode_of_id[0], 0) == 2.0);
    assert_true(cube_view_value(incl, m.cnode_of_id[0], 0) == 7.0);
    double totals[5];
    assert_int_equal(cube_metric_totals(m.c, totals, NULL), 0);
    assert_true(totals[3] == 7.0 && totals[4] == 7.0);
    cube_view_free(excl);
    cube_view_free(incl);
    cube_view_free(stored);
    free_minimal(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minimal_totals),
        cmocka_unit_test(test_minimal_cube_dump),
        cmocka_unit_test(test_minimal_streamed),
        cmocka_unit_test(test_real_files_all_inclusive),
        cmocka_unit_test(test_real_files_mixed),
        cmocka_unit_test(test_statfile_population),
        cmocka_unit_test(test_derived),
        cmocka_unit_test(test_inclusive_maximum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
