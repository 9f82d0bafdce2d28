/*
 * test_bench_clock.c - cube_bench's clock rule (bench/quantum.h): the
 * clock's step is found among readings whose differences are longer than
 * it, the quantum is the coarser of the claimed tick and that step, a
 * single measurement holds enough operations for the quantum to be at most
 * the requested share of it, and the warm-up's rounds end as planned and
 * take the time of one operation from their longest round, not the last.
 */
#include "test_support.h"

#include "quantum.h"

#include <math.h>

static const bench_clock fine_tick = { 1e-9, 20e-9, 26e-9 };   /* MPI_Wtick claims 1 ns */
static const bench_clock coarse_tick = { 1e-6, 20e-9, 26e-9 }; /* a 1 us tick wins */

/* Readings of a clock that advances by 10 ns and costs 30-35 ns a call
 * differ by 30 or 40 ns (sometimes 70, after an interruption): the step is
 * 10 ns, not the 30 ns of the smallest difference. */
static void test_step_below_the_call_cost(void **state)
{
    (void)state;
    double d[64];
    for (int i = 0; i < 64; i++)
        d[i] = (i % 3 == 2 ? 40e-9 : 30e-9) + (i % 5) * 1e-24;
    d[17] = 70e-9;
    assert_true(fabs(bclock_step(d, 64) - 10e-9) < 1e-15);

    /* a 1 ns clock read every 28-31 ns: 1 ns */
    double fine[] = {30e-9, 29e-9, 31e-9, 28e-9, 30e-9, 29e-9};
    assert_true(fabs(bclock_step(fine, 6) - 1e-9) < 1e-15);

    /* one difference only ever seen: that is the step as far as is known */
    double same[] = {30e-9, 30e-9, 30e-9};
    assert_true(fabs(bclock_step(same, 3) - 30e-9) < 1e-15);

    /* a coarse clock of 2^-22 s (the doubles of seconds since 1970):
     * multiples of the step, whatever the tick claims */
    double q = ldexp(1.0, -22), coarse[] = {2 * q, q, 3 * q, q, 2 * q};
    assert_true(bclock_step(coarse, 5) == q);
}

static void test_resolution_is_the_coarser(void **state)
{
    (void)state;
    assert_true(bclock_resolution(&fine_tick) == 20e-9);
    assert_true(bclock_resolution(&coarse_tick) == 1e-6);
}

static void test_inner_reps_make_quantum_one_percent(void **state)
{
    (void)state;
    /* 20 ns / (1 % of 0.13 us) = 15.4: 16 operations, 2.08 us measured */
    assert_int_equal(bclock_inner_reps(&fine_tick, 0.13e-6, 0.01, 1, 100000), 16);
    for (double op = 1e-8; op < 1e-2; op *= 3.7) {
        long n = bclock_inner_reps(&fine_tick, op, 0.01, 1, 1000000);
        /* the quantum is at most 1 % of n operations, and n - 1 would not do */
        assert_true(20e-9 <= 0.01 * op * (double)n * (1 + 1e-12));
        if (n > 1)
            assert_true(20e-9 > 0.01 * op * (double)(n - 1));
    }
    /* long operations need no repetition */
    assert_int_equal(bclock_inner_reps(&fine_tick, 1e-3, 0.01, 1, 1000), 1);
    /* the cap holds */
    assert_int_equal(bclock_inner_reps(&coarse_tick, 1e-9, 0.01, 1, 500), 500);
}

static void test_inner_reps_when_the_clock_did_not_move(void **state)
{
    (void)state;
    /* 8 operations read as 0 s: ten times as many, the cap beyond that */
    assert_int_equal(bclock_inner_reps(&fine_tick, 0.0, 0.01, 8, 1000), 80);
    assert_int_equal(bclock_inner_reps(&fine_tick, 0.0, 0.01, 200, 1000), 1000);
    assert_int_equal(bclock_inner_reps(&fine_tick, 0.0, 0.01, 0, 1000), 1000);
}

/* Runs a warm-up whose operation takes op seconds (plus `extra` seconds of
 * the clock per round), returns the rounds' sizes in sizes[] and their
 * number. */
static int run_plan(warm_plan *w, double op, double extra, long sizes[], int max)
{
    double spent = 0.0;
    long n = 1;
    int k = 0;
    while (n > 0 && k < max) {
        sizes[k++] = n;
        double t = op * (double)n + extra;
        spent += t;
        n = warm_plan_next(w, n, t, spent);
    }
    return k;
}

static void test_warm_up_rounds_double_until_the_time(void **state)
{
    (void)state;
    warm_plan w;
    long sizes[64];
    /* 1 us operations, 4..64 operations or 0.2 ms: 1 2 4 8 16 32 then one
     * round topping up to 64 (63 ops = 63 us < 0.2 ms) */
    warm_plan_init(&w, 4, 64, 2e-4);
    int k = run_plan(&w, 1e-6, 0.0, sizes, 64);
    assert_int_equal(k, 7);
    const long want[] = { 1, 2, 4, 8, 16, 32, 1 };
    for (int i = 0; i < k; i++)
        assert_int_equal(sizes[i], want[i]);
    assert_int_equal(w.total, 64);
    /* 100 us operations: the time is spent after 1 + 2 = 3, one more for the minimum */
    warm_plan_init(&w, 4, 64, 2e-4);
    k = run_plan(&w, 1e-4, 0.0, sizes, 64);
    assert_int_equal(k, 3);
    assert_int_equal(sizes[2], 1);
    assert_int_equal(w.total, 4);
}

static void test_inner_reps_from_the_longest_round(void **state)
{
    (void)state;
    warm_plan w;
    long sizes[64];
    /* 0.13 us operations, and every round costs a clock quantum more: the
     * last round (one operation) reads 0.15 us, the longest (32) 0.1306 us
     * per operation.  The rule must use the longest: 16 operations, not the
     * 14 the single one would give. */
    warm_plan_init(&w, 4, 64, 2e-4);
    run_plan(&w, 0.13e-6, 20e-9, sizes, 64);
    assert_int_equal(w.best_n, 32);
    long inner = warm_plan_inner(&w, &fine_tick, 0.01, 100000);
    assert_int_equal(inner, bclock_inner_reps(&fine_tick, (32 * 0.13e-6 + 20e-9) / 32, 0.01, 32, 100000));
    assert_int_equal(inner, 16);
    assert_true(bclock_inner_reps(&fine_tick, 0.15e-6, 0.01, 1, 100000) == 14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_below_the_call_cost),
        cmocka_unit_test(test_resolution_is_the_coarser),
        cmocka_unit_test(test_inner_reps_make_quantum_one_percent),
        cmocka_unit_test(test_inner_reps_when_the_clock_did_not_move),
        cmocka_unit_test(test_warm_up_rounds_double_until_the_time),
        cmocka_unit_test(test_inner_reps_from_the_longest_round),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
