/*
 * test_view_values.c - what the views make of a metric's value type:
 * integer types narrower than 64 bits wrap in their range, a maximum or
 * minimum without any stored value has no value (the neutral element,
 * never 0), and COMPLEX, RATE and TAU_ATOMIC values combine by their
 * components (through cube_read and row by row through the streaming
 * reader).  Real data: testdata/cubex/cubelib-4.8.2_cube-values_example
 * (every value type; call paths 0 main, 1 foo, 2 bar; four locations),
 * cube3to4_scorep-1.1_profile (min_time without rows) and
 * testdata/views/minmax.cube.
 */
#include "test_support.h"

#include "cube_views.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALUES_EXAMPLE "cubex/cubelib-4.8.2_cube-values_example.cubex"

static const cube_cnode *cnode_by_id(const cube_t *c, int64_t id)
{
    for (size_t i = 0; i < cube_num_cnodes(c); i++)
        if (cube_cnode_id(cube_get_cnode(c, i)) == id)
            return cube_get_cnode(c, i);
    fail_msg("no call path %lld", (long long)id);
    return NULL;
}

static const cube_metric *metric(const cube_t *c, const char *name)
{
    const cube_metric *m = cube_find_metric(c, name);
    if (!m)
        fail_msg("no metric %s", name);
    return m;
}

static cube_view *view(const cube_t *c, const cube_metric *m, cube_call_flavour cf, unsigned flags)
{
    cube_status st;
    cube_view *v = cube_view_compute(c, m, CUBE_METRIC_INCLUSIVE, cf, flags, &st);
    if (!v)
        fail_msg("%s: %s", cube_metric_uniq_name(m), st.message);
    return v;
}

/* The process of a machine with one node, for models made here. */
static cube_process *one_process(cube_t *c)
{
    cube_node *node = cube_def_node(c, "n", cube_def_mach(c, "m", ""));
    return cube_def_proc(c, "p", 0, node);
}

/* --- integer types narrower than 64 bits --------------------------------- */

/* Every integer metric of the example stores at location l 1 + l at main
 * (0), 5 + l at foo (1) and 9 + l at bar (2), call-tree inclusive: main's
 * own value is -13 - l per location and 10 - 26 - 42 = -58 over all. */
static void test_narrow_integers_wrap(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata(VALUES_EXAMPLE));
    static const struct {
        const char *name;
        double aggregated; /* main's own value over all locations */
        double modulus;    /* 0: not wrapped (64-bit types keep -58) */
    } types[] = {{"INT8", -58, 256},          {"UINT8", 198, 256},
                 {"INT16", -58, 65536},       {"UINT16", 65478, 65536},
                 {"INT32", -58, 4294967296.0}, {"UINT32", 4294967238.0, 4294967296.0},
                 {"INT64", -58, 0},           {"UINT64", -58, 0}};
    const cube_cnode *main_cn = cnode_by_id(c, 0);
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        const cube_metric *m = metric(c, types[k].name);
        int is_unsigned = types[k].name[0] == 'U';
        cube_view *agg = view(c, m, CUBE_CALL_EXCLUSIVE, CUBE_VIEW_AGGREGATE);
        assert_true(cube_view_value(agg, main_cn, 0) == types[k].aggregated);
        /* the total of the call-exclusive values: 198 + 26 + 42 = 266 is
         * 10 in 8 bits, as the inclusive value of main */
        double total;
        assert_int_equal(cube_view_total(agg, &total, NULL), 0);
        assert_true(total == 10);
        /* the flat profile: region main's own value */
        cube_flat *f = cube_flat_create(agg, NULL);
        assert_non_null(f);
        assert_true(cube_flat_value(f, cube_cnode_callee(main_cn), CUBE_FLAT_EXCLUSIVE, 0) ==
                    types[k].aggregated);
        cube_flat_free(f);
        cube_view_free(agg);
        /* per thread: the location's -13 - l, wrapped */
        cube_view *per = view(c, m, CUBE_CALL_EXCLUSIVE, 0);
        for (size_t t = 0; t < cube_num_threads(c); t++) {
            double want = -13.0 - (double)cube_thread_id(cube_get_thread(c, t));
            if (types[k].modulus && (is_unsigned || want < -types[k].modulus / 2))
                want += types[k].modulus;
            assert_true(cube_view_value(per, main_cn, t) == want);
        }
        cube_view_free(per);
    }
    cube_free(c);
}

/* Sums beyond the range through the writer API: 200 + 100 is 44 in
 * UINT8, 100 + 100 is -56 in INT8, in every view and in the totals. */
static void test_wrap_in_memory(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    cube_metric *u8 = cube_def_met(c, "u8", "u8", "UINT8", "occ", "", "", "", NULL);
    cube_metric *i8 = cube_def_met(c, "i8", "i8", "INT8", "occ", "", "", "", NULL);
    cube_region *r = cube_def_region(c, "main", 1, 2, "", "", "m.c");
    cube_region *g = cube_def_region(c, "g", 3, 4, "", "", "m.c");
    cube_cnode *root = cube_def_cnode(c, r, NULL), *leaf = cube_def_cnode(c, g, root);
    cube_thread *th = cube_def_thrd(c, "t", 0, one_process(c));
    cube_set_sev(c, u8, root, th, 200);
    cube_set_sev(c, u8, leaf, th, 100);
    cube_set_sev(c, i8, root, th, 100);
    cube_set_sev(c, i8, leaf, th, 100);
    cube_view *v = view(c, u8, CUBE_CALL_INCLUSIVE, 0);
    assert_true(cube_view_value(v, root, 0) == 44);
    cube_view_free(v);
    v = view(c, i8, CUBE_CALL_INCLUSIVE, CUBE_VIEW_AGGREGATE);
    assert_true(cube_view_value(v, root, 0) == -56);
    cube_view_free(v);
    double totals[2];
    assert_int_equal(cube_metric_totals(c, totals, NULL), 0);
    assert_true(totals[cube_metric_index(u8)] == 44);
    assert_true(totals[cube_metric_index(i8)] == -56);
    assert_int_equal(cube_metric_tree_values(c, CUBE_METRIC_EXCLUSIVE, totals, NULL), 0);
    assert_true(totals[cube_metric_index(u8)] == 44);
    cube_free(c);
}

/* --- maxima and minima without a value ------------------------------------ */

/* min_time of the converted Score-P profile has no row at all: no value
 * anywhere, +DBL_MAX (the reference's neutral element), never 0. */
static void test_minimum_without_rows_has_no_value(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cubex/cube3to4_scorep-1.1_profile.cubex"));
    const cube_metric *m = metric(c, "min_time");
    const cube_cnode *root = cube_get_root_cnode(c, 0);
    for (int cf = CUBE_CALL_INCLUSIVE; cf <= CUBE_CALL_EXCLUSIVE; cf++) {
        cube_view *agg = view(c, m, (cube_call_flavour)cf, CUBE_VIEW_AGGREGATE);
        cube_view *per = view(c, m, (cube_call_flavour)cf, 0);
        assert_true(cube_view_value(agg, root, 0) == DBL_MAX);
        assert_true(cube_view_value(per, root, 3) == DBL_MAX);
        double total;
        assert_int_equal(cube_view_total(agg, &total, NULL), 0);
        assert_true(total == DBL_MAX);
        if (cf == CUBE_CALL_EXCLUSIVE) {
            cube_flat *f = cube_flat_create(agg, NULL);
            assert_non_null(f);
            assert_true(cube_flat_value(f, cube_cnode_callee(root), CUBE_FLAT_INCLUSIVE, 0) ==
                        DBL_MAX);
            cube_flat_free(f);
        }
        cube_view_free(agg);
        cube_view_free(per);
    }
    double *totals = malloc(cube_num_metrics(c) * sizeof *totals);
    assert_non_null(totals);
    assert_int_equal(cube_metric_totals(c, totals, NULL), 0);
    assert_true(totals[cube_metric_index(m)] == DBL_MAX);
    free(totals);
    cube_free(c);
}

/* The hand-made file: max_t has no rows at call paths 2 and 4; 2's
 * inclusive value is its child 3's (4 0 -2), 4 has none (-DBL_MAX). */
static void test_maximum_missing_rows(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("views/minmax.cube"));
    const cube_metric *m = metric(c, "max_t");
    cube_view *excl = view(c, m, CUBE_CALL_EXCLUSIVE, 0);
    cube_view *incl = view(c, m, CUBE_CALL_INCLUSIVE, 0);
    assert_true(cube_view_value(excl, cnode_by_id(c, 4), 1) == -DBL_MAX);
    assert_true(cube_view_value(incl, cnode_by_id(c, 4), 1) == -DBL_MAX);
    assert_true(cube_view_value(excl, cnode_by_id(c, 2), 0) == -DBL_MAX);
    assert_true(cube_view_value(incl, cnode_by_id(c, 2), 0) == 4);
    assert_true(cube_view_value(incl, cnode_by_id(c, 2), 2) == -2);
    cube_view_free(excl);
    cube_view_free(incl);
    cube_free(c);
}

/* A CUBE 3 file keeps a MINDOUBLE row that is all zero (a stored 0 is a
 * value of a minimum, an absent row none), and drops a sum's. */
static void test_cube3_keeps_zero_minimum_row(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    cube_metric *mn = cube_def_met(c, "min", "min", "MINDOUBLE", "sec", "", "", "", NULL);
    cube_metric *t = cube_def_met(c, "time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_region *r = cube_def_region(c, "main", 1, 2, "", "", "m.c");
    cube_cnode *root = cube_def_cnode(c, r, NULL), *child = cube_def_cnode(c, r, root);
    cube_process *p = one_process(c);
    cube_thread *t0 = cube_def_thrd(c, "t0", 0, p), *t1 = cube_def_thrd(c, "t1", 1, p);
    cube_set_sev(c, mn, root, t0, 0);
    cube_set_sev(c, mn, root, t1, 0);
    cube_set_sev(c, mn, child, t0, 3);
    cube_set_sev(c, t, root, t0, 0);
    cube_set_sev(c, t, child, t0, 1);
    char *path = temp_path(".cube");
    assert_int_equal(cube_write_file(c, path, 0), 0);
    cube_free(c);
    c = read_ok(path);
    mn = cube_find_metric(c, "min");
    t = cube_find_metric(c, "time");
    root = cube_get_root_cnode(c, 0);
    assert_non_null(cube_get_row(c, mn, root));
    assert_null(cube_get_row(c, t, root));
    cube_view *v = view(c, mn, CUBE_CALL_INCLUSIVE, CUBE_VIEW_AGGREGATE);
    assert_true(cube_view_value(v, root, 0) == 0); /* not 3, not "no value" */
    cube_view_free(v);
    cube_free(c);
    remove(path);
    free(path);
}

/* --- structured values combined by their components --------------------- */

typedef struct {
    const char *metric;
    int64_t cnode;
    cube_call_flavour flavour;
    double want; /* the reference library's number (the expected file's) */
} structured_case;

static const structured_case structured_cases[] = {
    /* |(4, 10)|, |(-34, -28.6)|: not the sums of magnitudes */
    {"COMPLEX", 0, CUBE_CALL_INCLUSIVE, 10.770329614269007},
    {"COMPLEX", 0, CUBE_CALL_EXCLUSIVE, 44.429269631629104},
    {"COMPLEX", 2, CUBE_CALL_INCLUSIVE, 36.259619413336374},
    /* 4 / 10 and -34 / -28.6: not the sums of quotients */
    {"RATE", 0, CUBE_CALL_INCLUSIVE, 0.4},
    {"RATE", 0, CUBE_CALL_EXCLUSIVE, 1.1888111888111887},
    /* sum / n of all samples: 796 / 74, 41 / 11 */
    {"TAU_ATOMIC", 0, CUBE_CALL_INCLUSIVE, 10.756756756756756},
    {"TAU_ATOMIC", 0, CUBE_CALL_EXCLUSIVE, 3.727272727272727},
    {"TAU_ATOMIC2", 1, CUBE_CALL_INCLUSIVE, 8.238095238095237},
    /* sums of their parts */
    {"NDOUBLES10", 0, CUBE_CALL_EXCLUSIVE, -1360},
    {"HISTOGRAM5", 0, CUBE_CALL_INCLUSIVE, 120},
};

static int near(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want);
}

static void check_structured(const cube_t *c, const cube_view *const *views, const char *how)
{
    for (size_t k = 0; k < sizeof structured_cases / sizeof structured_cases[0]; k++) {
        const structured_case *s = &structured_cases[k];
        double got = cube_view_value(views[k], cnode_by_id(c, s->cnode), 0);
        if (!near(got, s->want))
            fail_msg("%s: %s at call path %lld (%s): %.17g, expected %.17g", how, s->metric,
                     (long long)s->cnode, s->flavour == CUBE_CALL_INCLUSIVE ? "incl" : "excl",
                     got, s->want);
    }
}

#define NUM_CASES (sizeof structured_cases / sizeof structured_cases[0])

static void test_structured_from_components(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata(VALUES_EXAMPLE));
    cube_view *views[NUM_CASES];
    for (size_t k = 0; k < NUM_CASES; k++)
        views[k] = view(c, metric(c, structured_cases[k].metric), structured_cases[k].flavour,
                        CUBE_VIEW_AGGREGATE);
    check_structured(c, (const cube_view *const *)views, "cube_read");
    for (size_t k = 0; k < NUM_CASES; k++)
        cube_view_free(views[k]);
    /* per location: COMPLEX at main, location 0, own value (1, 1) - (1, 5)
     * - (1, 9) = (-1, -13) */
    const cube_metric *z = metric(c, "COMPLEX");
    cube_view *per = view(c, z, CUBE_CALL_EXCLUSIVE, 0);
    size_t t0 = 0;
    while (cube_thread_id(cube_get_thread(c, t0)) != 0)
        t0++;
    assert_true(near(cube_view_value(per, cnode_by_id(c, 0), t0), sqrt(170)));
    cube_view_free(per);
    /* the totals of the metric tree: the combined value of everything */
    double *totals = malloc(cube_num_metrics(c) * sizeof *totals);
    assert_non_null(totals);
    assert_int_equal(cube_metric_totals(c, totals, NULL), 0);
    assert_true(near(totals[cube_metric_index(z)], 10.770329614269007));
    assert_true(near(totals[cube_metric_index(metric(c, "TAU_ATOMIC"))], 10.756756756756756));
    free(totals);
    cube_free(c);
}

/* Row by row through the streaming reader: the same numbers. */
static void test_structured_streamed(void **state)
{
    (void)state;
    cube_reader *r = cube_reader_open(testdata(VALUES_EXAMPLE));
    assert_non_null(r);
    const cube_t *defs = cube_reader_definitions(r);
    cube_view *views[NUM_CASES];
    for (size_t k = 0; k < NUM_CASES; k++) {
        const cube_metric *m = metric(defs, structured_cases[k].metric);
        views[k] = cube_view_create(defs, m, CUBE_METRIC_INCLUSIVE, structured_cases[k].flavour,
                                    CUBE_VIEW_AGGREGATE, NULL);
        assert_non_null(views[k]);
    }
    const cube_metric *met;
    const cube_cnode *cn;
    const double *values;
    int rc;
    while ((rc = cube_reader_next_row(r, &met, &cn, &values)) == 1)
        for (size_t k = 0; k < NUM_CASES; k++)
            assert_int_equal(cube_view_add_row(views[k], met, cn, values), 0);
    assert_int_equal(rc, 0);
    for (size_t k = 0; k < NUM_CASES; k++)
        assert_int_equal(cube_view_finish(views[k]), 0);
    check_structured(defs, (const cube_view *const *)views, "streamed");
    for (size_t k = 0; k < NUM_CASES; k++)
        cube_view_free(views[k]);
    cube_reader_close(r);
}

/* CUBE_VIEW_COMPONENTS: the view keeps each row's combined components,
 * whose numbers are the row's values, so that a program can combine them
 * further: the per-thread call-exclusive components of RATE at main add
 * up, over the threads and with those of foo and bar, to (4, 10), main's
 * inclusive value 0.4 over all threads.  Which types combine as numbers. */
static void test_components_kept(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata(VALUES_EXAMPLE));
    const char *kept[] = {"RATE", "COMPLEX", "TAU_ATOMIC"};
    const size_t nc[] = {2, 2, 5};
    size_t nt = cube_num_threads(c);
    for (size_t k = 0; k < 3; k++) {
        const cube_metric *m = metric(c, kept[k]);
        assert_false(cube_metric_combines_numbers(m));
        cube_view *v = view(c, m, CUBE_CALL_EXCLUSIVE, CUBE_VIEW_COMPONENTS);
        assert_int_equal(cube_view_num_components(v), nc[k]);
        double sum[2] = {0, 0};
        for (size_t i = 0; i < cube_num_cnodes(c); i++) {
            const cube_cnode *cn = cube_get_cnode(c, i);
            const double *comp = cube_view_components(v, cn), *row = cube_view_row(v, cn);
            assert_non_null(comp);
            for (size_t t = 0; t < nt; t++) {
                const double *x = comp + t * nc[k];
                double a = x[0], b = nc[k] == 5 ? x[3] : x[1];
                double n = k == 0 ? a / b : k == 1 ? sqrt(a * a + b * b) : b / a;
                if (!(nc[k] == 5 && a == 0))
                    assert_true(n == row[t]);
                sum[0] += a;
                sum[1] += b;
            }
        }
        if (k == 0)
            assert_true(near(sum[0] / sum[1], 0.4));
        cube_view_free(v);
        /* without the flag nothing is kept */
        v = view(c, m, CUBE_CALL_EXCLUSIVE, 0);
        assert_int_equal(cube_view_num_components(v), 0);
        assert_null(cube_view_components(v, cube_get_cnode(c, 0)));
        cube_view_free(v);
    }
    /* another type keeps none; the integers narrower than 64 bits wrap */
    cube_view *v = view(c, metric(c, "DOUBLE"), CUBE_CALL_EXCLUSIVE, CUBE_VIEW_COMPONENTS);
    assert_int_equal(cube_view_num_components(v), 0);
    assert_null(cube_view_components(v, cube_get_cnode(c, 0)));
    cube_view_free(v);
    assert_true(cube_metric_combines_numbers(metric(c, "DOUBLE")));
    assert_true(cube_metric_combines_numbers(metric(c, "UINT64")));
    assert_true(cube_metric_combines_numbers(metric(c, "MAXDOUBLE")));
    assert_true(cube_metric_combines_numbers(metric(c, "NDOUBLES10")));
    assert_false(cube_metric_combines_numbers(metric(c, "UINT8")));
    assert_false(cube_metric_combines_numbers(metric(c, "INT32")));
    assert_true(cube_metric_combines_numbers(NULL));
    /* an unknown flag is refused */
    cube_status st;
    assert_null(cube_view_compute(c, metric(c, "RATE"), CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE,
                                  4u, &st));
    assert_int_equal(st.code, CUBE_EINVAL);
    cube_free(c);
}

/* Values without components (a model made through the API): the numbers
 * are added as they are. */
static void test_structured_without_components(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    cube_metric *z = cube_def_met(c, "z", "z", "COMPLEX", "", "", "", "", NULL);
    cube_region *r = cube_def_region(c, "main", 1, 2, "", "", "m.c");
    cube_cnode *root = cube_def_cnode(c, r, NULL);
    cube_process *p = one_process(c);
    cube_set_sev(c, z, root, cube_def_thrd(c, "t0", 0, p), 3);
    cube_set_sev(c, z, root, cube_def_thrd(c, "t1", 1, p), 4);
    cube_view *v = view(c, z, CUBE_CALL_INCLUSIVE, CUBE_VIEW_AGGREGATE);
    assert_true(cube_view_value(v, root, 0) == 7);
    cube_view_free(v);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrow_integers_wrap),
        cmocka_unit_test(test_wrap_in_memory),
        cmocka_unit_test(test_minimum_without_rows_has_no_value),
        cmocka_unit_test(test_maximum_missing_rows),
        cmocka_unit_test(test_cube3_keeps_zero_minimum_row),
        cmocka_unit_test(test_structured_from_components),
        cmocka_unit_test(test_structured_streamed),
        cmocka_unit_test(test_structured_without_components),
        cmocka_unit_test(test_components_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
