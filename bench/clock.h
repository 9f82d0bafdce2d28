/*
 * clock.h - time for cube_bench: MPI_Wtime, its resolution, the
 * number of operations one single measurement must hold so that the clock's
 * resolution does not dominate it, and the dummy time (the overhead of an
 * empty measurement), which is subtracted from every result.
 */
#ifndef CUBE_BENCH_CLOCK_H
#define CUBE_BENCH_CLOCK_H

#include "asec.h"

typedef struct {
    double tick;        /* MPI_Wtick(): what the library claims */
    double granularity; /* the smallest step between two MPI_Wtime() values seen */
    double call_cost;   /* one MPI_Wtime() call, seconds */
} bench_clock;

/* Determine the clock's figures on this rank (local; about a millisecond). */
void bclock_init(bench_clock *c);

/* The resolution of a single measurement's time (the clock quantum): the
 * larger of the tick and the observed granularity, the smallest non-zero
 * difference between consecutive MPI_Wtime() readings. */
double bclock_resolution(const bench_clock *c);

/* How many operations one single measurement must repeat (SKaMPI's
 * N = R_system / R_user) so that the clock's resolution is at most `rel`
 * of the measured time, given `op_time` seconds for one operation.  An
 * op_time of 0 (the clock did not advance) means "shorter than the
 * resolution": the caller then passes the number of operations it ran as
 * `ran` and gets more than that.  The result is at least 1 and at most
 * `cap`. */
long bclock_inner_reps(const bench_clock *c, double op_time, double rel, long ran, long cap);

/* The dummy time: one empty operation timed exactly as measured operations
 * are (MPI_Wtime, `inner` calls of an empty function through a pointer,
 * MPI_Wtime), per operation, with its standard error; `a` (reset here)
 * bounds the effort.  Local to the rank. */
void bclock_dummy_time(asec *a, long inner, double *dummy, double *dummy_se);

#endif
