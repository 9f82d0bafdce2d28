/*
 * test_view_threshold.c - thresholds on the call tree (cube_value_reaches,
 * cube_view_threshold, cube_view_fold): which call paths reach a
 * percentage of the root value, that their ancestors are kept, that the
 * subtrees left out are folded into the exclusive value of the call path
 * above them by the metric's rule (sum, maximum, a narrow integer type's
 * wrap), the magnitudes of negative values, and the errors.
 */
#include "test_support.h"

#include "cube_views.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A call tree with two threads:
 *
 *   r        exclusive 1 + 1     inclusive 100
 *   +- a               20 + 20             50
 *   |  +- a1            5 + 5              10
 *   +- b                1 + 1              40
 *   |  +- b1           19 + 19             38
 *   +- c                4 + 4               8
 *
 * A value given as "x + y" is thread 0 + thread 1. */
typedef struct {
    cube_t *c;
    cube_metric *met;
    cube_cnode *r, *a, *a1, *b, *b1, *cc;
} model;

static void build(model *m, const char *dtype, double sign)
{
    cube_t *c = cube_create();
    m->c = c;
    m->met = cube_def_met(c, "time", "time", dtype, "sec", "", "", "", NULL);
    cube_region *reg = cube_def_region(c, "f", 1, 2, "", "", "m.c");
    m->r = cube_def_cnode(c, reg, NULL);
    m->a = cube_def_cnode(c, reg, m->r);
    m->a1 = cube_def_cnode(c, reg, m->a);
    m->b = cube_def_cnode(c, reg, m->r);
    m->b1 = cube_def_cnode(c, reg, m->b);
    m->cc = cube_def_cnode(c, reg, m->r);
    cube_node *node = cube_def_node(c, "n", cube_def_mach(c, "m", ""));
    cube_process *p = cube_def_proc(c, "p", 0, node);
    cube_thread *t0 = cube_def_thrd(c, "t0", 0, p), *t1 = cube_def_thrd(c, "t1", 1, p);
    const struct {
        cube_cnode *cn;
        double v;
    } sev[] = {{m->r, 1}, {m->a, 20}, {m->a1, 5}, {m->b, 1}, {m->b1, 19}, {m->cc, 4}};
    for (size_t i = 0; i < sizeof sev / sizeof sev[0]; i++) {
        cube_set_sev(c, m->met, sev[i].cn, t0, sign * sev[i].v);
        cube_set_sev(c, m->met, sev[i].cn, t1, sign * sev[i].v);
    }
}

static cube_view *view(const model *m, cube_call_flavour cf)
{
    cube_status st;
    cube_view *v = cube_view_compute(m->c, m->met, CUBE_METRIC_INCLUSIVE, cf,
                                     CUBE_VIEW_AGGREGATE, &st);
    if (!v)
        fail_msg("%s", st.message);
    return v;
}

static unsigned char kept(const unsigned char *keep, const cube_cnode *cn)
{
    return keep[cube_cnode_index(cn)];
}

static double at(const double *out, const cube_cnode *cn)
{
    return out[cube_cnode_index(cn)];
}

static void test_value_reaches(void **state)
{
    (void)state;
    assert_true(cube_value_reaches(CUBE_COMBINE_SUM, 10, 100, 10));
    assert_false(cube_value_reaches(CUBE_COMBINE_SUM, 9.999, 100, 10));
    /* magnitudes: a large change either way */
    assert_true(cube_value_reaches(CUBE_COMBINE_SUM, -10, 100, 10));
    assert_true(cube_value_reaches(CUBE_COMBINE_SUM, 10, -100, 10));
    assert_true(cube_value_reaches(CUBE_COMBINE_SUM, 0, 0, 50));
    assert_false(cube_value_reaches(CUBE_COMBINE_SUM, NAN, 100, 10));
    assert_false(cube_value_reaches(CUBE_COMBINE_SUM, 10, NAN, 10));
    assert_false(cube_value_reaches(CUBE_COMBINE_SUM, 10, 100, NAN));
    /* no value of a maximum or minimum never reaches anything */
    assert_false(cube_value_reaches(CUBE_COMBINE_MAX, -DBL_MAX, 100, 0));
    assert_false(cube_value_reaches(CUBE_COMBINE_MIN, DBL_MAX, 100, 0));
    assert_false(cube_value_reaches(CUBE_COMBINE_MAX, 5, -DBL_MAX, 0));
    assert_true(cube_value_reaches(CUBE_COMBINE_MAX, 5, 10, 50));
}

/* keep[] and the folded values of the model at `pct` percent. */
static void threshold(const model *m, double pct, unsigned char *keep, size_t *n, double *out)
{
    cube_view *incl = view(m, CUBE_CALL_INCLUSIVE), *excl = view(m, CUBE_CALL_EXCLUSIVE);
    cube_status st;
    assert_int_equal(cube_view_threshold(incl, pct, keep, n, &st), 0);
    assert_int_equal(cube_view_fold(excl, incl, keep, out, &st), 0);
    cube_view_free(incl);
    cube_view_free(excl);
}

static void test_keep_and_fold(void **state)
{
    (void)state;
    model m;
    build(&m, "FLOAT", 1);
    unsigned char keep[6];
    double out[6];
    size_t n;
    /* 20 %: r (100), a (50), b (40), b1 (38); not a1 (10), c (8) */
    threshold(&m, 20, keep, &n, out);
    assert_int_equal(n, 4);
    assert_true(kept(keep, m.r) && kept(keep, m.a) && kept(keep, m.b) && kept(keep, m.b1));
    assert_false(kept(keep, m.a1) || kept(keep, m.cc));
    assert_true(at(out, m.r) == 2 + 8); /* c folded in */
    assert_true(at(out, m.a) == 40 + 10);
    assert_true(at(out, m.b) == 2);
    assert_true(at(out, m.b1) == 38);
    assert_true(at(out, m.a1) == 10); /* not kept: its own exclusive value */
    double sum = at(out, m.r) + at(out, m.a) + at(out, m.b) + at(out, m.b1);
    assert_true(sum == 100);
    /* 0 %: everything, nothing folded; 100 %: the root alone, all of it */
    threshold(&m, 0, keep, &n, out);
    assert_int_equal(n, 6);
    assert_true(at(out, m.r) == 2 && at(out, m.a) == 40);
    threshold(&m, 100, keep, &n, out);
    assert_int_equal(n, 1);
    assert_true(kept(keep, m.r) && at(out, m.r) == 100);
    cube_free(m.c);
}

/* A difference of two runs: every value negative, the magnitudes count. */
static void test_negative_values(void **state)
{
    (void)state;
    model m;
    build(&m, "FLOAT", -1);
    unsigned char keep[6];
    double out[6];
    size_t n;
    threshold(&m, 20, keep, &n, out);
    assert_int_equal(n, 4);
    assert_true(at(out, m.r) == -10 && at(out, m.a) == -50);
    cube_free(m.c);
}

/* A call path that does not reach the threshold is kept for a descendant
 * that does (with values of both signs a parent can be smaller). */
static void test_ancestors_kept(void **state)
{
    (void)state;
    model m;
    build(&m, "FLOAT", 1);
    cube_thread *t0 = cube_get_thread(m.c, 0);
    cube_set_sev(m.c, m.met, m.b, t0, -60); /* b: -60 + 1 + 38 = -21 inclusive */
    unsigned char keep[6];
    double out[6];
    size_t n;
    /* root 100 - 61 = 39; 60 % (23.4): a (50) and b1 (38), so b (-21) too */
    threshold(&m, 60, keep, &n, out);
    assert_true(kept(keep, m.b1) && kept(keep, m.b) && kept(keep, m.r) && kept(keep, m.a));
    assert_false(kept(keep, m.cc) || kept(keep, m.a1));
    assert_true(at(out, m.b) == -59);
    cube_free(m.c);
}

/* A maximum folds by maximum; an 8-bit type wraps the folded sum. */
static void test_fold_by_the_metric_rule(void **state)
{
    (void)state;
    model m;
    build(&m, "MAXDOUBLE", 1);
    unsigned char keep[6];
    double out[6];
    size_t n;
    /* root value: the largest, 20; 50 %: r, a (20), b, b1 (19); not a1 (5), c (4) */
    threshold(&m, 50, keep, &n, out);
    assert_int_equal(n, 4);
    assert_false(kept(keep, m.a1) || kept(keep, m.cc));
    assert_true(at(out, m.r) == 4);  /* max(1, c 4) */
    assert_true(at(out, m.a) == 20); /* max(20, a1 5) */
    cube_free(m.c);

    build(&m, "UINT8", 1);
    cube_thread *t0 = cube_get_thread(m.c, 0), *t1 = cube_get_thread(m.c, 1);
    cube_set_sev(m.c, m.met, m.r, t0, 100);
    cube_set_sev(m.c, m.met, m.r, t1, 100);
    cube_set_sev(m.c, m.met, m.cc, t0, 50);
    cube_set_sev(m.c, m.met, m.cc, t1, 50);
    /* r 200, c 100: the root 200 + 50 + 40 + 100 = 390, 134 as a UINT8;
     * 100 %: r alone, the rest folded in: 390 wraps to 134 as well */
    threshold(&m, 100, keep, &n, out);
    assert_int_equal(n, 1);
    assert_true(at(out, m.r) == 134);
    cube_free(m.c);
}

static void test_errors(void **state)
{
    (void)state;
    model m;
    build(&m, "FLOAT", 1);
    unsigned char keep[6];
    double out[6];
    cube_status st;
    cube_view *incl = view(&m, CUBE_CALL_INCLUSIVE), *excl = view(&m, CUBE_CALL_EXCLUSIVE);
    assert_int_equal(cube_view_threshold(excl, 5, keep, NULL, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    assert_int_equal(cube_view_threshold(incl, -1, keep, NULL, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    assert_int_equal(cube_view_threshold(incl, NAN, keep, NULL, &st), -1);
    assert_int_equal(cube_view_threshold(incl, 5, NULL, NULL, &st), -1);
    assert_int_equal(cube_view_threshold(NULL, 5, keep, NULL, &st), -1);
    assert_int_equal(cube_view_threshold(incl, 5, keep, NULL, NULL), 0);
    assert_int_equal(cube_view_fold(incl, excl, keep, out, &st), -1); /* swapped */
    assert_int_equal(st.code, CUBE_EINVAL);
    assert_int_equal(cube_view_fold(excl, incl, keep, NULL, &st), -1);
    cube_view *per_thread;
    per_thread = cube_view_compute(m.c, m.met, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0, &st);
    assert_non_null(per_thread);
    assert_int_equal(cube_view_threshold(per_thread, 5, keep, NULL, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    cube_view_free(per_thread);
    cube_view *open = cube_view_create(m.c, m.met, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE,
                                       CUBE_VIEW_AGGREGATE, &st);
    assert_int_equal(cube_view_threshold(open, 5, keep, NULL, &st), -1);
    assert_int_equal(st.code, CUBE_ESTATE);
    cube_view_free(open);
    cube_view_free(incl);
    cube_view_free(excl);
    cube_free(m.c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_reaches),
        cmocka_unit_test(test_keep_and_fold),
        cmocka_unit_test(test_negative_values),
        cmocka_unit_test(test_ancestors_kept),
        cmocka_unit_test(test_fold_by_the_metric_rule),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
