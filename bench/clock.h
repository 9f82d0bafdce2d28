/*
 * clock.h - time for cube_bench: MPI_Wtime's tick, granularity and call
 * cost as measured on this rank (the rule built on them is in quantum.h),
 * and the dummy time (the overhead of an empty measurement), which is
 * subtracted from every result.
 */
#ifndef CUBE_BENCH_CLOCK_H
#define CUBE_BENCH_CLOCK_H

#include "asec.h"
#include "quantum.h"

/* Determine the clock's figures on this rank (local; about a millisecond). */
void bclock_init(bench_clock *c);

/* The dummy time: one empty operation timed exactly as measured operations
 * are (MPI_Wtime, `inner` calls of an empty function through a pointer,
 * MPI_Wtime), per operation, with its standard error; `a` (reset here)
 * bounds the effort.  Local to the rank. */
void bclock_dummy_time(asec *a, long inner, double *dummy, double *dummy_se);

#endif
