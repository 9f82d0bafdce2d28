/*
 * clock.c - MPI_Wtime, its resolution and the dummy time.
 */
#include "clock.h"

#include <math.h>
#include <mpi.h>

void bclock_init(bench_clock *c)
{
    c->tick = MPI_Wtick();

    /* The granularity: the smallest positive step between consecutive
     * readings.  Some libraries report a tick finer than the clock really
     * advances, so look; a few hundred steps are enough to see the
     * smallest, and the loop is bounded in case the clock never moves. */
    double best = 0.0;
    int steps = 0;
    double t0 = MPI_Wtime(), prev = t0;
    for (long i = 0; i < 10000000L && steps < 200; i++) {
        double t = MPI_Wtime();
        if (t > prev) {
            double d = t - prev;
            if (best == 0.0 || d < best)
                best = d;
            steps++;
            prev = t;
        }
    }
    c->granularity = best > 0.0 ? best : c->tick;

    /* The cost of one reading, from a run of back-to-back calls. */
    enum { CALLS = 1000 };
    double a = MPI_Wtime(), b = a;
    for (int i = 0; i < CALLS; i++)
        b = MPI_Wtime();
    c->call_cost = (b - a) / CALLS;
}

double bclock_resolution(const bench_clock *c)
{
    /* The time of a single measurement is the difference of two readings,
     * and two readings never differ by less than the smallest step seen
     * between consecutive ones (the clock's own step, or the cost of a
     * call when that is longer: 30-40 ns with a 10 ns step against a
     * claimed tick of 1 ns).  That step is the quantum a measured time is
     * made of, whatever MPI_Wtick() says. */
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

/* The empty operation.  Called through a volatile pointer so that the
 * compiler cannot drop the loop: the dummy time must contain what a
 * measured operation's loop contains besides the operation. */
static void empty_op(void) {}
static void (*const volatile empty_ptr)(void) = empty_op;

void bclock_dummy_time(asec *a, long inner, double *dummy, double *dummy_se)
{
    asec_reset(a);
    double start = MPI_Wtime();
    for (;;) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < inner; i++)
            empty_ptr();
        double t1 = MPI_Wtime();
        int full = asec_add(a, (t1 - t0) / (double)inner) != 0;
        if (full || asec_done(a, t1 - start))
            break;
    }
    asec_result r;
    asec_get_result(a, &r);
    *dummy = r.mean;
    *dummy_se = r.std_error;
}
