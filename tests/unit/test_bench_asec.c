/*
 * test_bench_asec.c - the automatic control of the standard error
 * (SKaMPI's, bench/asec.h) on synthetic sample streams: the formulas against hand
 * computation, the cut arithmetic, the stop rule inside its bounds, one
 * spike ignored, the time limit, max_rep and min_rep.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include "asec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CLOSE(a, b) assert_true(fabs((a) - (b)) <= 1e-12 * (fabs(a) + fabs(b)) + 1e-300)

/* deterministic normal samples: a 64-bit LCG and Box-Muller */
typedef struct { unsigned long long s; int have; double spare; } rng;

static double uniform(rng *r)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(r->s >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(rng *r)
{
    if (r->have) {
        r->have = 0;
        return r->spare;
    }
    double u = uniform(r), v = uniform(r);
    double m = sqrt(-2.0 * log(u));
    r->spare = m * sin(2.0 * 3.141592653589793 * v);
    r->have = 1;
    return m * cos(2.0 * 3.141592653589793 * v);
}

static asec *make(int min_rep, int max_rep, double rel, double tl, double cut)
{
    asec_params p = { min_rep, max_rep, rel, tl, cut, 0.0 };
    asec *a = asec_create(&p);
    assert_non_null(a);
    return a;
}

/* Feeds the stream until asec_done; spike_at >= 0 replaces that sample by
 * `spike`; each sample "takes" dt seconds.  Returns the count. */
static size_t run_stream(asec *a, unsigned long long seed, double mean, double sd, int spike_at, double spike,
                         double dt)
{
    rng r = { seed, 0, 0.0 };
    double elapsed = 0.0;
    int i = 0;
    while (!asec_done(a, elapsed)) {
        double x = mean + sd * gauss(&r);
        if (i == spike_at)
            x = spike;
        assert_int_equal(asec_add(a, x), 0);
        elapsed += dt;
        i++;
    }
    asec_result res;
    asec_get_result(a, &res);
    return res.count;
}

static void test_formulas_by_hand(void **state)
{
    (void)state;
    /* 1 2 3 4 100, cut 0.2: g = 1, kept 2 3 4 (mean 3); winsorized
     * 2 2 3 4 4 (mean 3, squares 1+1+0+1+1 = 4), se = sqrt(4 / (3 * 2)) */
    asec *a = make(1, 10, 0.0, 0.0, 0.2);
    const double xs[] = { 4, 100, 1, 3, 2 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(asec_add(a, xs[i]), 0);
    asec_result r;
    asec_get_result(a, &r);
    assert_int_equal(r.count, 5);
    assert_int_equal(r.kept, 3);
    CLOSE(r.mean, 3.0);
    CLOSE(r.std_error, sqrt(4.0 / 6.0));
    CLOSE(r.std_error_stop, sqrt(4.0 / 6.0));
    /* all samples: sum 110, mean 22, squares of deviations 441 + 400 + 361
     * + 324 + 6084 = 7610, variance 7610 / 4, se (3.4) sqrt(7610 / 20) */
    CLOSE(r.sum, 110.0);
    CLOSE(r.mean_all, 22.0);
    CLOSE(r.variance, 7610.0 / 4.0);
    CLOSE(r.std_error_all, sqrt(7610.0 / 20.0));
    CLOSE(r.min, 1.0);
    CLOSE(r.max, 100.0);
    CLOSE(r.median, 3.0);
    CLOSE(r.q25, 2.0);   /* type 7: h = 4 * 0.25 = 1 -> x(1) */
    CLOSE(r.q75, 4.0);
    /* arrival order is kept */
    size_t n;
    const double *s = asec_samples(a, &n);
    assert_int_equal(n, 5);
    for (int i = 0; i < 5; i++)
        assert_true(s[i] == xs[i]);
    asec_free(a);

    /* cut 0 and fewer than 5 samples: the plain standard error exactly:
     * 1 2 3 4: sqrt((30 - 100 / 4) / (4 * 3)) = sqrt(5 / 12) */
    a = make(1, 10, 0.0, 0.0, 0.0);
    for (int i = 1; i <= 4; i++)
        asec_add(a, i);
    asec_get_result(a, &r);
    assert_int_equal(r.kept, 4);
    CLOSE(r.mean, 2.5);
    CLOSE(r.std_error, sqrt(5.0 / 12.0));
    CLOSE(r.std_error_all, sqrt(5.0 / 12.0));
    CLOSE(r.std_error_stop, sqrt(5.0 / 12.0));
    asec_free(a);

    /* quartiles by interpolation: 10 20 30 40 -> q25 = 10 + 0.75 * 10,
     * median 25, q75 = 30 + 0.25 * 10 */
    a = make(1, 10, 0.0, 0.0, 0.25);
    for (int i = 4; i >= 1; i--)
        asec_add(a, 10.0 * i);
    asec_get_result(a, &r);
    CLOSE(r.q25, 17.5);
    CLOSE(r.median, 25.0);
    CLOSE(r.q75, 32.5);
    CLOSE(r.mean, 25.0);    /* g = 1: 20 30 */
    /* winsorized 20 20 30 30: mean 25, squares 4 * 25 = 100, h = 2 */
    CLOSE(r.std_error, sqrt(100.0 / 2.0));
    asec_free(a);

    /* cut 0 with 5+ samples: the result is untrimmed, the stop test
     * winsorizes one sample per end: 1 2 3 4 100 -> stop se as above */
    a = make(1, 10, 0.0, 0.0, 0.0);
    for (int i = 0; i < 5; i++)
        asec_add(a, xs[i]);
    asec_get_result(a, &r);
    assert_int_equal(r.kept, 5);
    CLOSE(r.mean, 22.0);
    CLOSE(r.std_error, sqrt(7610.0 / 20.0));
    CLOSE(r.std_error_stop, sqrt(4.0 / 6.0));
    asec_free(a);

    /* one sample: no spread, reported as 0; empty: all zero */
    a = make(1, 10, 0.01, 0.0, 0.25);
    asec_get_result(a, &r);
    assert_int_equal(r.count, 0);
    assert_true(r.mean == 0.0 && r.sum == 0.0 && r.kept == 0);
    asec_add(a, 7.0);
    asec_get_result(a, &r);
    assert_int_equal(r.count, 1);
    assert_int_equal(r.kept, 1);
    CLOSE(r.mean, 7.0);
    assert_true(r.std_error == 0.0 && r.variance == 0.0);
    CLOSE(r.median, 7.0);
    CLOSE(r.q25, 7.0);
    assert_false(asec_done(a, 0.0));   /* min_rep 1 but one sample has no se */
    asec_free(a);
}

static void test_cut_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(asec_cut_count(0.25, 10), 2);   /* floor(2.5) */
    assert_int_equal(asec_cut_count(0.25, 8), 2);
    assert_int_equal(asec_cut_count(0.25, 3), 0);
    assert_int_equal(asec_cut_count(0.29, 100), 29); /* 0.29 * 100 = 28.999999999999996 */
    assert_int_equal(asec_cut_count(0.1, 30), 3);
    assert_int_equal(asec_cut_count(0.3, 10), 3);
    assert_int_equal(asec_cut_count(0.0, 100), 0);
    assert_int_equal(asec_cut_count(-1.0, 100), 0);
    assert_int_equal(asec_cut_count(0.1, 0), 0);
    assert_int_equal(asec_cut_count(0.49, 3), 1);
    assert_int_equal(asec_cut_count(0.5, 4), 1);     /* never all: one remains */
    assert_int_equal(asec_cut_count(0.5, 5), 2);
    assert_int_equal(asec_cut_count(0.49, 1), 0);

    /* the kept count and mean follow: 1..10, cut 0.25 -> 3..8 */
    asec *a = make(1, 20, 0.0, 0.0, 0.25);
    for (int i = 10; i >= 1; i--)
        asec_add(a, i);
    asec_result r;
    asec_get_result(a, &r);
    assert_int_equal(r.kept, 6);
    CLOSE(r.mean, 5.5);
    asec_free(a);
}

static void test_stops_inside_bounds(void **state)
{
    (void)state;
    /* 1 us +- 5 %, 1 % requested: about (0.05 * 1.1 / 0.01)^2 = 30 samples */
    for (unsigned long long seed = 1; seed <= 20; seed++) {
        asec *a = make(8, 1000, 0.01, 0.0, 0.25);
        size_t n = run_stream(a, seed, 1e-6, 0.05e-6, -1, 0.0, 0.0);
        assert_int_equal(asec_stop_reason(a, 0.0), ASEC_STOP_STD_ERROR);
        asec_result r;
        asec_get_result(a, &r);
        assert_true(n >= 8 && n < 200);
        assert_true(r.std_error <= 0.01 * r.mean);
        assert_true(fabs(r.mean - 1e-6) < 0.05e-6);
        asec_free(a);
    }
}

static void test_ignores_one_spike(void **state)
{
    (void)state;
    for (unsigned long long seed = 1; seed <= 20; seed++) {
        asec *clean = make(8, 2000, 0.01, 0.0, 0.25);
        asec *spiky = make(8, 2000, 0.01, 0.0, 0.25);
        size_t n0 = run_stream(clean, seed, 1e-6, 0.05e-6, -1, 0.0, 0.0);
        /* a 1 ms preemption among 1 us samples, early (sample 3) */
        size_t n1 = run_stream(spiky, seed, 1e-6, 0.05e-6, 3, 1e-3, 0.0);
        asec_result r;
        asec_get_result(spiky, &r);
        assert_int_equal(asec_stop_reason(spiky, 0.0), ASEC_STOP_STD_ERROR);
        /* the spike replaces one sample and is winsorized: the stop comes
         * near where it came without it (the stop is a threshold crossing
         * of a noisy statistic, so one changed sample moves it by a few;
         * the plain standard error would need about 10^7 samples) */
        assert_true(n1 <= 2 * n0 + 10 && n1 < 100);
        assert_true(fabs(r.mean - 1e-6) < 0.05e-6);
        /* the plain standard error would still be far from the bound */
        assert_true(r.std_error_all > 0.5 * r.mean_all);
        asec_free(clean);
        asec_free(spiky);
    }
    /* a later, larger spike (sample 9, after min_rep) */
    for (unsigned long long seed = 1; seed <= 20; seed++) {
        asec *a = make(8, 2000, 0.01, 0.0, 0.25);
        size_t n = run_stream(a, seed, 1e-6, 0.05e-6, 9, 5e-3, 0.0);
        assert_true(n < 100);
        asec_free(a);
    }
    /* even with cut_quantile 0 the stop test is robust; the result is the
     * untrimmed mean the user asked for */
    asec *a = make(8, 2000, 0.01, 0.0, 0.0);
    size_t n = run_stream(a, 7, 1e-6, 0.05e-6, 3, 1e-3, 0.0);
    assert_true(n < 200);
    assert_int_equal(asec_stop_reason(a, 0.0), ASEC_STOP_STD_ERROR);
    asec_free(a);
}

static void test_time_limit(void **state)
{
    (void)state;
    /* each sample takes 0.1 s, limit 1 s, a bound that is never met:
     * exactly 10 samples (the 11th would start at elapsed = 1.0) */
    asec *a = make(2, 1000, 1e-9, 1.0, 0.25);
    size_t n = run_stream(a, 3, 1.0, 0.2, -1, 0.0, 0.1);
    assert_true(n == 10 || n == 11);   /* 10 * 0.1 may be 0.9999999999999999 */
    assert_int_equal(asec_stop_reason(a, 1.0), ASEC_STOP_TIME);
    asec_free(a);
    /* the time limit overrides min_rep */
    a = make(50, 1000, 0.01, 1.0, 0.25);
    n = run_stream(a, 3, 1.0, 0.0, -1, 0.0, 0.25);
    assert_int_equal(n, 4);
    asec_free(a);
    /* but a measurement has at least one sample */
    a = make(5, 100, 0.01, 1.0, 0.25);
    assert_false(asec_done(a, 5.0));
    asec_add(a, 1.0);
    assert_true(asec_done(a, 5.0));
    assert_int_equal(asec_stop_reason(a, 5.0), ASEC_STOP_TIME);
    /* time_limit <= 0: no limit */
    asec_free(a);
    a = make(5, 100, 1e-9, 0.0, 0.25);
    asec_add(a, 1.0);
    asec_add(a, 2.0);
    assert_false(asec_done(a, 1e9));
    /* a limit set later (a suite's remaining time) counts from then on,
     * for the samples already there too; 0 lifts it again */
    asec_set_time_limit(a, 0.5);
    assert_true(asec_done(a, 0.5));
    assert_false(asec_done(a, 0.4));
    asec_set_time_limit(a, 0.0);
    assert_false(asec_done(a, 1e9));
    asec_free(a);
}

static void test_max_rep(void **state)
{
    (void)state;
    asec *a = make(8, 50, 1e-6, 0.0, 0.25);
    size_t n = run_stream(a, 5, 1.0, 0.5, -1, 0.0, 0.0);
    assert_int_equal(n, 50);
    assert_int_equal(asec_stop_reason(a, 0.0), ASEC_STOP_MAX_REP);
    assert_int_equal(asec_add(a, 1.0), -1);    /* never more than max_rep */
    asec_result r;
    asec_get_result(a, &r);
    assert_int_equal(r.count, 50);
    asec_free(a);
    /* max_rep overrides min_rep; max_rep < 1 is 1 */
    a = make(100, 10, 0.01, 0.0, 0.25);
    assert_int_equal(run_stream(a, 5, 1.0, 0.0, -1, 0.0, 0.0), 10);
    asec_free(a);
    a = make(0, 0, 0.01, 0.0, 0.25);
    assert_int_equal(asec_add(a, 1.0), 0);
    assert_true(asec_done(a, 0.0));
    assert_int_equal(asec_add(a, 1.0), -1);
    asec_free(a);
}

static void test_min_rep(void **state)
{
    (void)state;
    /* constant samples: se = 0 from the second sample on, so the stop
     * comes exactly at min_rep, or at 6 samples (two windows of 3) */
    int mins[] = { 0, 1, 2, 3, 6, 7, 17, 100 };
    for (size_t i = 0; i < sizeof mins / sizeof mins[0]; i++) {
        asec *a = make(mins[i], 1000, 0.01, 0.0, 0.25);
        size_t n = run_stream(a, 1, 2.5e-6, 0.0, -1, 0.0, 0.0);
        assert_int_equal(n, mins[i] < 6 ? 6 : mins[i]);
        asec_free(a);
    }
    /* rel_std_error <= 0: the standard error never stops it */
    asec *a = make(2, 30, 0.0, 0.0, 0.25);
    assert_int_equal(run_stream(a, 1, 1.0, 0.0, -1, 0.0, 0.0), 30);
    asec_free(a);
}

static void test_reset_and_names(void **state)
{
    (void)state;
    asec *a = make(2, 5, 0.01, 0.0, 0.25);
    for (int i = 0; i < 5; i++)
        asec_add(a, 1.0 + i);
    assert_true(asec_done(a, 0.0));
    asec_reset(a);                  /* e.g. after the warm-up */
    size_t n;
    asec_samples(a, &n);
    assert_int_equal(n, 0);
    assert_false(asec_done(a, 0.0));
    assert_int_equal(asec_add(a, 3.0), 0);
    asec_result r;
    asec_get_result(a, &r);
    assert_int_equal(r.count, 1);
    CLOSE(r.mean, 3.0);
    asec_free(a);
    asec_free(NULL);
    assert_string_equal(asec_stop_name(ASEC_RUNNING), "running");
    assert_string_equal(asec_stop_name(ASEC_STOP_MAX_REP), "max_rep");
    assert_string_equal(asec_stop_name(ASEC_STOP_TIME), "time");
    assert_string_equal(asec_stop_name(ASEC_STOP_STD_ERROR), "std_error");
}

/* The window rule on streams whose single measurements take a few discrete
 * values.  `value(i)` gives sample i; each sample ends dt seconds after the
 * previous one.  Returns the count at the stop; *mean the result. */
typedef double (*stream_fn)(size_t i, rng *r);

static size_t run_timed(asec *a, stream_fn value, unsigned long long seed, double dt, double *mean)
{
    rng r = { seed, 0, 0.0 };
    double t = 0.0;
    size_t i = 0;
    while (!asec_done(a, t)) {
        t += dt;
        assert_int_equal(asec_add_at(a, value(i, &r), t), 0);
        i++;
    }
    asec_result res;
    asec_get_result(a, &res);
    *mean = res.mean;
    return res.count;
}

/* Batched single measurements in bunches: 40 samples at 0.155, then 40 at
 * 0.165, and so on (a bunch lasts longer than the minimum number of
 * repetitions) */
static double bunched(size_t i, rng *r)
{
    (void)r;
    return (i / 40) % 2 ? 0.165 : 0.155;
}

static void test_bunched_stream(void **state)
{
    (void)state;
    /* without a span, 32 samples of one bunch (se 0, halves equal) stop
     * at once with that bunch's value: what min_span is for */
    asec *a = make(32, 1000, 0.01, 0.0, 0.25);
    double mean;
    size_t n = run_timed(a, bunched, 1, 1e-6, &mean);
    assert_int_equal(n, 32);
    CLOSE(mean, 0.155);
    asec_free(a);

    /* 32 samples take 32 us; with 100 us asked for, the samples reach
     * into the next bunch, the halves disagree until both hold a mixture,
     * and the result is within 2 % of the mean of both bunches */
    asec_params p = { 32, 1000, 0.01, 0.0, 0.25, 1e-4 };
    a = asec_create(&p);
    assert_non_null(a);
    n = run_timed(a, bunched, 1, 1e-6, &mean);
    assert_true(n > 100);
    assert_true(n < 1000);
    asec_result res;
    asec_get_result(a, &res);
    assert_true(res.span >= 1e-4);
    assert_true(fabs(mean - 0.16) <= 0.02 * 0.16);
    assert_int_equal(asec_stop_reason(a, 0.0), ASEC_STOP_STD_ERROR);
    asec_free(a);

}

/* The window test keeps its sorted halves up to date one sample at a time
 * when asked after every sample, and sorts them anew when many samples came
 * since: both ways decide the same at every count, on a stream with ties
 * (two bunches) and noise between them. */
static double bunched_noisy(size_t i, rng *r)
{
    return i % 3 ? bunched(i, r) : bunched(i, r) + 0.002 * gauss(r);
}

static void test_window_halves_kept_or_sorted(void **state)
{
    (void)state;
    asec_params p = { 32, 1000, 0.01, 0.0, 0.25, 1e-4 };
    asec *every = asec_create(&p), *seldom = asec_create(&p);
    assert_non_null(every);
    assert_non_null(seldom);
    rng r1 = { 7, 0, 0.0 }, r2 = { 7, 0, 0.0 };
    int passed = 0, failed = 0;
    for (size_t i = 0; i < 1000; i++) {
        double t = 1e-6 * (double)(i + 1);
        assert_int_equal(asec_add_at(every, bunched_noisy(i, &r1), t), 0);
        assert_int_equal(asec_add_at(seldom, bunched_noisy(i, &r2), t), 0);
        asec_stop e = asec_stop_reason(every, 0.0);
        if ((i + 1) % 37 == 0) {
            assert_int_equal(asec_stop_reason(seldom, 0.0), e);
            if (e == ASEC_STOP_STD_ERROR) passed++; else failed++;
        }
    }
    /* the stream passes the test at some counts and fails it at others */
    assert_true(passed > 0);
    assert_true(failed > 0);
    asec_free(every);
    asec_free(seldom);
}

/* independent draws from two values: the standard error sees the spread */
static double bimodal(size_t i, rng *r)
{
    (void)i;
    return uniform(r) < 0.5 ? 0.15 : 0.17;
}

static void test_bimodal_stream(void **state)
{
    (void)state;
    for (unsigned long long seed = 1; seed <= 20; seed++) {
        asec_params p = { 32, 1000, 0.01, 0.0, 0.25, 1e-5 };
        asec *a = asec_create(&p);
        assert_non_null(a);
        double mean;
        size_t n = run_timed(a, bimodal, seed, 1e-6, &mean);
        /* the se of a 0.01-sd mean at 1 % of 0.16 needs about 40 samples;
         * the trimmed mean of two values leans to the more frequent one
         * (within 5 %: batching is what makes single measurements of such
         * an operation unimodal) */
        assert_true(n >= 32);
        assert_true(n < 1000);
        assert_true(fabs(mean - 0.16) <= 0.05 * 0.16);
        assert_int_equal(asec_stop_reason(a, 0.0), ASEC_STOP_STD_ERROR);
        asec_free(a);
    }
}

/* 1 % noise with a preemption spike (1000x) every 25 samples */
static double spiky(size_t i, rng *r)
{
    double x = 1e-6 * (1.0 + 0.01 * gauss(r));
    return i % 25 == 7 ? 1e-3 : x;
}

static void test_spiky_stream(void **state)
{
    (void)state;
    for (unsigned long long seed = 1; seed <= 20; seed++) {
        asec_params p = { 32, 1000, 0.01, 0.0, 0.25, 1e-5 };
        asec *a = asec_create(&p);
        assert_non_null(a);
        double mean;
        size_t n = run_timed(a, spiky, seed, 1e-6, &mean);
        assert_true(n < 100);
        assert_true(fabs(mean - 1e-6) <= 0.01e-6);
        assert_int_equal(asec_stop_reason(a, 0.0), ASEC_STOP_STD_ERROR);
        asec_free(a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formulas_by_hand),
        cmocka_unit_test(test_cut_arithmetic),
        cmocka_unit_test(test_stops_inside_bounds),
        cmocka_unit_test(test_ignores_one_spike),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_max_rep),
        cmocka_unit_test(test_min_rep),
        cmocka_unit_test(test_reset_and_names),
        cmocka_unit_test(test_bunched_stream),
        cmocka_unit_test(test_window_halves_kept_or_sorted),
        cmocka_unit_test(test_bimodal_stream),
        cmocka_unit_test(test_spiky_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
