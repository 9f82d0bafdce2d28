/*
 * quantum.c - the clock quantum, the repetitions rule and the warm-up's
 * rounds (quantum.h).
 */
#include "quantum.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

double bclock_step(double *diffs, size_t n)
{
    qsort(diffs, n, sizeof *diffs, bench_cmp_double);
    double step = diffs[0], same = diffs[0] * 1e-4;
    for (size_t i = 1; i < n; i++) {
        double gap = diffs[i] - diffs[i - 1];
        if (gap > same && gap < step)
            step = gap;
    }
    return step;
}

double bclock_resolution(const bench_clock *c)
{
    /* The time of a single measurement is the difference of two readings,
     * each a whole number of the clock's steps: that step is the quantum a
     * measured time is made of, and no finer than MPI_Wtick() claims.  The
     * cost of a reading is not part of it: it is an offset, the dummy
     * time, subtracted from the result. */
    return c->granularity > c->tick ? c->granularity : c->tick;
}

long bclock_inner_reps(const bench_clock *c, double op_time, double rel, long ran, long cap)
{
    double res = bclock_resolution(c);
    long n;
    if (!(op_time > 0.0)) {
        /* `ran` operations took less than one step of the clock: at least
         * ten times as many, so the next estimate sees the clock move. */
        n = ran > 0 && ran < cap / 10 ? ran * 10 : cap;
    } else {
        /* SKaMPI's N = R_system / R_user, with the user's resolution
         * R_user = rel * op_time (a relative one: an absolute resolution
         * would be too coarse for 0.1 us operations or wasteful for 1 ms
         * ones) */
        double want = res / (rel * op_time);
        n = want >= (double)cap ? cap : (long)ceil(want);
    }
    if (n < 1)
        n = 1;
    return n > cap ? cap : n;
}

void warm_plan_init(warm_plan *w, long min_ops, long max_ops, double min_time)
{
    w->min_ops = min_ops;
    w->max_ops = max_ops;
    w->min_time = min_time;
    w->total = 0;
    w->best_n = 0;
    w->best_t = 0.0;
}

long warm_plan_next(warm_plan *w, long n, double t, double spent)
{
    w->total += n;
    if (n >= w->best_n) {
        w->best_n = n;
        w->best_t = t;
    }
    int more = w->total < w->min_ops || (spent < w->min_time && w->total < w->max_ops);
    if (!more)
        return 0;
    long next = 2 * n;
    if (spent >= w->min_time) /* only the minimum is missing */
        next = w->min_ops - w->total;
    if (next > w->max_ops - w->total)
        next = w->max_ops - w->total;
    return next > 0 ? next : 1;
}

long warm_plan_inner(const warm_plan *w, const bench_clock *c, double rel, long cap)
{
    double op_time = w->best_n > 0 ? w->best_t / (double)w->best_n : 0.0;
    return bclock_inner_reps(c, op_time, rel, w->best_n, cap);
}
