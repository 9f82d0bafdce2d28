/*
 * quantum.h - the arithmetic of cube_bench's clock rule, apart from MPI so
 * that it can be tested on its own: the quantum a measured time is made of,
 * how many operations one single measurement must hold so that the quantum
 * is a small share of it, and the warm-up's rounds, which also give the
 * time of one operation that the rule starts from.
 */
#ifndef CUBE_BENCH_QUANTUM_H
#define CUBE_BENCH_QUANTUM_H

#include <stddef.h>

typedef struct {
    double tick;        /* MPI_Wtick(): what the library claims */
    double granularity; /* the step the MPI_Wtime() values were seen to advance by (bclock_step) */
    double call_cost;   /* one MPI_Wtime() call, seconds */
} bench_clock;

/* The step a clock advances by, from n > 0 positive differences between
 * consecutive readings (sorted here): the smallest difference, or the
 * smallest gap between two distinct differences when that is finer.
 * Consecutive readings never differ by less than a call costs, so their
 * smallest difference overstates the step when a call is slower than the
 * clock: readings 30 or 40 ns apart come from a clock that advances by
 * 10 ns.  Differences closer than 1e-4 of the smallest one are taken as
 * equal (the rounding of the doubles, not a step). */
double bclock_step(double *diffs, size_t n);

/* The resolution of a single measurement's time (the clock quantum): the
 * larger of the tick and the observed granularity. */
double bclock_resolution(const bench_clock *c);

/* How many operations one single measurement must repeat (SKaMPI's
 * N = R_system / R_user) so that the clock's resolution is at most `rel`
 * of the measured time, given `op_time` seconds for one operation.  An
 * op_time of 0 (the clock did not advance) means "shorter than the
 * resolution": the caller then passes the number of operations it ran as
 * `ran` and gets more than that.  The result is at least 1 and at most
 * `cap`. */
long bclock_inner_reps(const bench_clock *c, double op_time, double rel, long ran, long cap);

/* The warm-up's plan: rounds of 1, 2, 4, ... operations until at least
 * min_ops ran and min_time passed, or max_ops ran.  The longest round (the
 * most operations; the latest of equal ones) gives the time of one
 * operation: the last round may be a single operation topping the count
 * up, and one operation shorter than the clock's quantum reads as 0. */
typedef struct {
    long min_ops, max_ops;
    double min_time;
    long total;    /* operations run so far */
    long best_n;   /* operations in the longest round */
    double best_t; /* its time, seconds */
} warm_plan;

void warm_plan_init(warm_plan *w, long min_ops, long max_ops, double min_time);

/* Record a round of n operations that took t seconds, `spent` seconds after
 * the warm-up began; return the next round's operations, 0 when the
 * warm-up is over. */
long warm_plan_next(warm_plan *w, long n, double t, double spent);

/* After the warm-up: the operations one single measurement repeats
 * (bclock_inner_reps from the longest round). */
long warm_plan_inner(const warm_plan *w, const bench_clock *c, double rel, long cap);

#endif
