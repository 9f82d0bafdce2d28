/*
 * clock.c - MPI_Wtime's figures on this rank and the dummy time.
 */
#include "clock.h"

#include <math.h>
#include <mpi.h>

void bclock_init(bench_clock *c)
{
    c->tick = MPI_Wtick();

    /* The granularity: the step the readings advance by, from the
     * differences between consecutive ones (quantum.h's bclock_step).
     * Some libraries report a tick finer than the clock really advances,
     * so look; a few hundred steps are enough, and the loop is bounded in
     * case the clock never moves. */
    enum { STEPS = 200 };
    double diffs[STEPS];
    int steps = 0;
    double prev = MPI_Wtime();
    for (long i = 0; i < 10000000L && steps < STEPS; i++) {
        double t = MPI_Wtime();
        if (t > prev) {
            diffs[steps++] = t - prev;
            prev = t;
        }
    }
    c->granularity = steps > 0 ? bclock_step(diffs, (size_t)steps) : c->tick;

    /* The cost of one reading, from a run of back-to-back calls. */
    enum { CALLS = 1000 };
    double a = MPI_Wtime(), b = a;
    for (int i = 0; i < CALLS; i++)
        b = MPI_Wtime();
    c->call_cost = (b - a) / CALLS;
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
