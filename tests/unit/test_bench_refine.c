/*
 * test_bench_refine.c - the automatic parameter refinement
 * (bench/refine.h) on synthetic functions: the start points of every scale,
 * a step found to within x_min_dist, no points spent on straight lines, the
 * worst segment first, x_max_steps, multiple_of, x_min_dist, the time limit,
 * the measure callback's abort, determinism and the parameter checks.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include "refine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double (*f)(double x);
    int calls;
    int abort_at;          /* abort on this call (1-based), 0: never */
    double now;            /* the fake clock */
    double cost;           /* seconds per measurement */
    double log_x[4096];    /* the arguments in call order */
} ctx_t;

static int measure(void *vctx, double x, double *value, double *se)
{
    ctx_t *c = vctx;
    c->calls++;
    if (c->abort_at && c->calls == c->abort_at)
        return -1;
    if (c->calls <= 4096)
        c->log_x[c->calls - 1] = x;
    c->now += c->cost;
    *value = c->f(x);
    *se = 0.001 * *value;
    return 0;
}

static double fake_clock(void *vctx)
{
    return ((ctx_t *)vctx)->now;
}

static double f_step(double x) { return x < 3000 ? 1e-6 + 1e-10 * x : 5e-6 + 1e-10 * x; }
static double f_line(double x) { return 2e-6 + 3e-9 * x; }
static double f_const(double x) { (void)x; return 1.0; }
static double f_two_steps(double x)
{
    /* a large jump at 5000 (x10) and a small one at 200000 (x1.1) */
    double t = x < 5000 ? 1.0 : 10.0;
    return x < 200000 ? t : 11.0;
}
static double f_lin_step(double x) { return x < 7777 ? 1.0 + 0.001 * x : 20.0 + 0.001 * x; }

static refine_params params(refine_scale sc, double x0, double x1, double step)
{
    refine_params p;
    memset(&p, 0, sizeof p);
    p.scale = sc;
    p.x_start = x0;
    p.x_end = x1;
    p.stepwidth = step;
    p.x_min_dist = 1;
    p.multiple_of = 0;
    p.x_max_steps = 0;
    p.time_suite = 0;
    p.max_rel_error = 0.01;
    return p;
}

static refine_point *run_ok(const refine_params *p, ctx_t *c, size_t *n)
{
    refine_point *pts = NULL;
    assert_int_equal(refine_run(p, measure, fake_clock, c, &pts, n), 0);
    assert_non_null(pts);
    assert_int_equal(*n, (size_t)c->calls);
    for (size_t i = 1; i < *n; i++)
        assert_true(pts[i - 1].x < pts[i].x);
    for (size_t i = 0; i < *n; i++)
        assert_true(pts[i].value == c->f(pts[i].x));
    return pts;
}

static void expect_points(const refine_params *p, const double *want, size_t nwant)
{
    double *xs;
    size_t n;
    assert_int_equal(refine_start_points(p, &xs, &n), 0);
    if (n != nwant) {
        for (size_t i = 0; i < n; i++)
            print_message("  got %g\n", xs[i]);
        fail_msg("expected %zu start points, got %zu", nwant, n);
    }
    for (size_t i = 0; i < n; i++)
        if (xs[i] != want[i])
            fail_msg("start point %zu: expected %g, got %g", i, want[i], xs[i]);
    free(xs);
}

static void test_start_points(void **state)
{
    (void)state;
    refine_params p = params(SCALE_FIXED_LOG, 1, 1024, 2);
    const double a[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024 };
    expect_points(&p, a, 11);
    /* x_start 0 on a log scale: 0, then from 1; x_end always included */
    p = params(SCALE_DYNAMIC_LOG, 0, 100, 2);
    const double b[] = { 0, 1, 2, 4, 8, 16, 32, 64, 100 };
    expect_points(&p, b, 9);
    /* linear: x_start + k * stepwidth below x_end, then x_end */
    p = params(SCALE_FIXED_LINEAR, 0, 10, 3);
    const double c[] = { 0, 3, 6, 9, 10 };
    expect_points(&p, c, 5);
    /* rounding to integers drops duplicates: 1 1.5 2.25 3.375 5.06 7.59 10 */
    p = params(SCALE_DYNAMIC_LOG, 1, 10, 1.5);
    const double d[] = { 1, 2, 3, 5, 8, 10 };
    expect_points(&p, d, 6);
    /* multiple_of 4: the ends rounded inwards (4 and 28), the rest to the
     * nearest multiple: 1 6 11 16 21 26 -> 4 8 12 16 20 28 */
    p = params(SCALE_FIXED_LINEAR, 1, 30, 5);
    p.multiple_of = 4;
    const double e[] = { 4, 8, 12, 16, 20, 28 };
    expect_points(&p, e, 6);
    /* one argument */
    p = params(SCALE_DYNAMIC_LOG, 256, 256, 2);
    const double f[] = { 256 };
    expect_points(&p, f, 1);
    /* SKaMPI's example block: Start 0, Stepwidth sqrt(2), log scale */
    p = params(SCALE_FIXED_LOG, 0, 16, 1.414213562);
    const double g[] = { 0, 1, 2, 3, 4, 6, 8, 11, 16 };
    expect_points(&p, g, 9);
}

static void test_fixed_scales_measure_the_start_points(void **state)
{
    (void)state;
    ctx_t c = { .f = f_step };
    refine_params p = params(SCALE_FIXED_LOG, 1, 1 << 20, 2);
    p.x_max_steps = 3;   /* not applied to the fixed scales (as in SKaMPI) */
    p.max_rel_error = 0;
    size_t n;
    refine_point *pts = run_ok(&p, &c, &n);
    assert_int_equal(n, 21);
    for (size_t i = 0; i < n; i++)
        assert_true(pts[i].x == ldexp(1.0, (int)i));
    free(pts);
    memset(&c, 0, sizeof c);
    c.f = f_step;
    p = params(SCALE_FIXED_LINEAR, 0, 10000, 1000);
    pts = run_ok(&p, &c, &n);
    assert_int_equal(n, 11);
    /* phase one measures in ascending order */
    for (int i = 0; i < c.calls; i++)
        assert_true(c.log_x[i] == 1000.0 * i);
    free(pts);
}

/* the adjacent pair bracketing `where` */
static double bracket(const refine_point *pts, size_t n, double where)
{
    for (size_t i = 1; i < n; i++)
        if (pts[i - 1].x < where && pts[i].x >= where)
            return pts[i].x - pts[i - 1].x;
    fail_msg("no pair brackets %g", where);
    return 0;
}

static void test_finds_a_step(void **state)
{
    (void)state;
    for (int dist = 1; dist <= 64; dist *= 4) {
        ctx_t c = { .f = f_step };
        refine_params p = params(SCALE_DYNAMIC_LOG, 1, 1 << 20, 2);
        p.x_min_dist = dist;
        /* small enough that the length term (m_c - m_b) / m_b of K does
         * not end the refinement before x_min_dist does */
        p.max_rel_error = 1e-6;
        size_t n;
        refine_point *pts = run_ok(&p, &c, &n);
        /* the step at 3000 lies between two points less than 2 x_min_dist
         * apart (a segment of length >= 2 x_min_dist can still be split) */
        double w = bracket(pts, n, 3000);
        assert_true(w < 2 * dist);
        /* straight pieces cost nothing: log2(2048 / dist) splits or so */
        assert_true(n <= 21 + 12 + 4);
        free(pts);
    }
    /* with a coarser error bound the length term of K ends the refinement
     * once the bracket is within max_rel_error of its position */
    {
        ctx_t c = { .f = f_step };
        refine_params p = params(SCALE_DYNAMIC_LOG, 1, 1 << 20, 2);
        p.max_rel_error = 0.01;
        size_t n;
        refine_point *pts = run_ok(&p, &c, &n);
        double w = bracket(pts, n, 3000);
        assert_true(w <= 0.01 * 3000 && w > 2);
        free(pts);
    }
    /* the same on a linear scale */
    ctx_t c = { .f = f_lin_step };
    refine_params p = params(SCALE_DYNAMIC_LINEAR, 0, 10000, 500);
    p.x_min_dist = 3;
    p.max_rel_error = 0.0001;
    size_t n;
    refine_point *pts = run_ok(&p, &c, &n);
    assert_true(bracket(pts, n, 7777) < 6);
    assert_true(n <= 21 + 10);
    free(pts);
}

static void test_straight_line_costs_nothing(void **state)
{
    (void)state;
    refine_scale scales[] = { SCALE_DYNAMIC_LINEAR, SCALE_DYNAMIC_LOG };
    for (int i = 0; i < 2; i++) {
        ctx_t c = { .f = f_line };
        refine_params p = params(scales[i], 0, 65536, i == 0 ? 4096 : 2);
        p.max_rel_error = 1e-9;
        double *xs;
        size_t nstart, n;
        assert_int_equal(refine_start_points(&p, &xs, &nstart), 0);
        free(xs);
        refine_point *pts = run_ok(&p, &c, &n);
        /* every extrapolation hits the line: no refinement at all, except
         * that with only the line's two ends known nothing predicts */
        assert_int_equal(n, nstart);
        free(pts);
    }
    /* a constant, log scale from 0: the segment (0, 1) has no relative
     * length, but its prediction error is 0 */
    ctx_t c = { .f = f_const };
    refine_params p = params(SCALE_DYNAMIC_LOG, 0, 4096, 2);
    size_t n;
    refine_point *pts = run_ok(&p, &c, &n);
    assert_int_equal(n, 14);
    free(pts);
    /* a step function: the flat region far from the step gets no extra
     * points (only the start points 1, 2, 4, ..., 512 below 1000) */
    memset(&c, 0, sizeof c);
    c.f = f_step;
    p = params(SCALE_DYNAMIC_LOG, 1, 1 << 20, 2);
    p.max_rel_error = 0.001;
    pts = run_ok(&p, &c, &n);
    size_t below = 0;
    for (size_t i = 0; i < n; i++)
        below += pts[i].x < 1000;
    assert_int_equal(below, 10);
    free(pts);
}

static void test_worst_segment_first(void **state)
{
    (void)state;
    /* two steps, 10x at 5000 and 1.1x at 200000: with 3 points to spend
     * beyond the 21 start points, all three go to the big jump */
    ctx_t c = { .f = f_two_steps };
    refine_params p = params(SCALE_DYNAMIC_LOG, 1, 1 << 20, 2);
    p.x_max_steps = 24;
    p.max_rel_error = 0;
    size_t n;
    refine_point *pts = run_ok(&p, &c, &n);
    assert_int_equal(n, 24);
    for (int i = 21; i < 24; i++)
        assert_true(c.log_x[i] > 4096 && c.log_x[i] < 8192);
    free(pts);
    /* without the bound both are found */
    memset(&c, 0, sizeof c);
    c.f = f_two_steps;
    p.x_max_steps = 0;
    p.x_min_dist = 16;
    pts = run_ok(&p, &c, &n);
    assert_true(bracket(pts, n, 5000) < 32);
    assert_true(bracket(pts, n, 200000) < 32);
    free(pts);
}

static void test_max_steps(void **state)
{
    (void)state;
    int bounds[] = { 1, 5, 20, 21, 25, 30 };
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        ctx_t c = { .f = f_step };
        refine_params p = params(SCALE_DYNAMIC_LOG, 1, 1 << 20, 2);
        p.max_rel_error = 0;
        p.x_max_steps = bounds[i];
        size_t n;
        refine_point *pts = run_ok(&p, &c, &n);
        assert_int_equal(n, (size_t)bounds[i]);
        free(pts);
    }
}

static void test_multiple_of_and_min_dist(void **state)
{
    (void)state;
    ctx_t c = { .f = f_step };
    refine_params p = params(SCALE_DYNAMIC_LOG, 0, 65536, 2);
    p.multiple_of = 64;
    p.max_rel_error = 0;
    size_t n;
    refine_point *pts = run_ok(&p, &c, &n);
    for (size_t i = 0; i < n; i++)
        assert_true(fmod(pts[i].x, 64) == 0);
    /* the step is found to one multiple: 2944 < 3000 <= 3008 */
    assert_true(bracket(pts, n, 3000) == 64);
    free(pts);

    /* x_min_dist: every point added by the refinement keeps it to both
     * neighbours (start points may be closer) */
    memset(&c, 0, sizeof c);
    c.f = f_step;
    p = params(SCALE_DYNAMIC_LOG, 1, 1 << 20, 2);
    p.x_min_dist = 100;
    p.max_rel_error = 0;
    double *xs;
    size_t nstart;
    assert_int_equal(refine_start_points(&p, &xs, &nstart), 0);
    pts = run_ok(&p, &c, &n);
    assert_true(n > nstart);
    for (size_t i = 0; i < n; i++) {
        int is_start = 0;
        for (size_t k = 0; k < nstart; k++)
            is_start |= xs[k] == pts[i].x;
        if (is_start)
            continue;
        assert_true(i > 0 && i + 1 < n);
        assert_true(pts[i].x - pts[i - 1].x >= 100);
        assert_true(pts[i + 1].x - pts[i].x >= 100);
    }
    assert_true(bracket(pts, n, 3000) < 200);
    free(xs);
    free(pts);
}

static void test_time_limit(void **state)
{
    (void)state;
    /* each measurement takes 1 s on the fake clock, 10 s allowed */
    refine_scale scales[] = { SCALE_FIXED_LOG, SCALE_DYNAMIC_LOG, SCALE_DYNAMIC_LINEAR };
    for (int i = 0; i < 3; i++) {
        ctx_t c = { .f = f_step, .now = 1000.0, .cost = 1.0 };
        refine_params p = params(scales[i], 1, 1 << 20, i == 2 ? 65536 : 2);
        p.time_suite = 10;
        p.max_rel_error = 0;
        size_t n;
        refine_point *pts = run_ok(&p, &c, &n);
        assert_int_equal(n, 10);
        free(pts);
    }
    /* in phase two */
    ctx_t c = { .f = f_step, .cost = 1.0 };
    refine_params p = params(SCALE_DYNAMIC_LOG, 1, 1 << 20, 2);
    p.time_suite = 25.5;
    p.max_rel_error = 0;
    size_t n;
    refine_point *pts = run_ok(&p, &c, &n);
    assert_int_equal(n, 26);
    free(pts);
    /* no clock: no limit */
    memset(&c, 0, sizeof c);
    c.f = f_step;
    c.cost = 1.0;
    refine_point *q = NULL;
    assert_int_equal(refine_run(&p, measure, NULL, &c, &q, &n), 0);
    assert_true(n > 26);
    free(q);
}

static void test_abort(void **state)
{
    (void)state;
    int at[] = { 1, 5, 25 };
    for (int i = 0; i < 3; i++) {
        ctx_t c = { .f = f_step, .abort_at = at[i] };
        refine_params p = params(SCALE_DYNAMIC_LOG, 1, 1 << 20, 2);
        p.max_rel_error = 0;
        refine_point *pts = (refine_point *)&c;   /* must be overwritten */
        size_t n = 99;
        assert_int_equal(refine_run(&p, measure, fake_clock, &c, &pts, &n), -1);
        assert_null(pts);
        assert_int_equal(n, 0);
        assert_int_equal(c.calls, at[i]);          /* nothing after the abort */
    }
}

static void test_deterministic(void **state)
{
    (void)state;
    ctx_t a = { .f = f_two_steps }, b = { .f = f_two_steps };
    refine_params p = params(SCALE_DYNAMIC_LOG, 0, 1 << 20, 1.414213562);
    p.max_rel_error = 0.001;
    p.x_min_dist = 2;
    size_t na, nb;
    refine_point *pa = run_ok(&p, &a, &na), *pb = run_ok(&p, &b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(pa, pb, na * sizeof *pa);
    assert_memory_equal(a.log_x, b.log_x, (size_t)a.calls * sizeof a.log_x[0]);
    free(pa);
    free(pb);
}

static void test_checks(void **state)
{
    (void)state;
    char err[200];
    refine_params p = params(SCALE_DYNAMIC_LOG, 1, 100, 2);
    assert_int_equal(refine_check(&p, err, sizeof err), 0);
    p.stepwidth = 1.0;
    assert_int_equal(refine_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "expected a stepwidth > 1"));
    assert_non_null(strstr(err, "found 1"));
    p = params(SCALE_FIXED_LINEAR, 1, 100, 0);
    assert_int_equal(refine_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "stepwidth > 0"));
    p = params(SCALE_FIXED_LINEAR, 100, 1, 1);
    assert_int_equal(refine_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "end argument"));
    p = params(SCALE_FIXED_LINEAR, -1, 1, 1);
    assert_int_equal(refine_check(&p, err, sizeof err), -1);
    p = params(SCALE_FIXED_LINEAR, 5, 7, 1);
    p.multiple_of = 8;        /* no multiple of 8 in [5, 7] */
    assert_int_equal(refine_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "Multiple_of"));
    p = params(SCALE_FIXED_LINEAR, 0, 1e9, 1);
    assert_int_equal(refine_check(&p, err, sizeof err), -1);   /* 10^9 start points */
    p = params((refine_scale)7, 0, 1, 1);
    assert_int_equal(refine_check(&p, NULL, 0), -1);
    /* refine_run refuses what refine_check refuses */
    ctx_t c = { .f = f_step };
    refine_point *pts;
    size_t n;
    assert_int_equal(refine_run(&p, measure, NULL, &c, &pts, &n), -1);
    assert_int_equal(c.calls, 0);
    assert_string_equal(refine_scale_name(SCALE_FIXED_LINEAR), "Fixed_linear");
    assert_string_equal(refine_scale_name(SCALE_FIXED_LOG), "Fixed_log");
    assert_string_equal(refine_scale_name(SCALE_DYNAMIC_LINEAR), "Dynamic_linear");
    assert_string_equal(refine_scale_name(SCALE_DYNAMIC_LOG), "Dynamic_log");
    assert_null(refine_scale_name((refine_scale)9));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_points),
        cmocka_unit_test(test_fixed_scales_measure_the_start_points),
        cmocka_unit_test(test_finds_a_step),
        cmocka_unit_test(test_straight_line_costs_nothing),
        cmocka_unit_test(test_worst_segment_first),
        cmocka_unit_test(test_max_steps),
        cmocka_unit_test(test_multiple_of_and_min_dist),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_abort),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
