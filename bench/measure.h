/*
 * measure.h - one measurement: warm-up, then single
 * measurements until rank 0's standard-error control says stop (its
 * decision broadcast, so every rank stops together), the dummy time
 * subtracted.
 */
#ifndef CUBE_BENCH_MEASURE_H
#define CUBE_BENCH_MEASURE_H

#include "bench.h"

/* The slowest single measurements, for the statistics file. */
#define MEASURE_SLOWEST 3

typedef struct {
    double enter, exit; /* seconds since the run's start (rank 0's clock) */
    double duration;    /* the single measurement's value, reported units */
} measure_instance;

typedef struct {
    /* this rank's own figures, in reported units (seconds per operation,
     * half a round trip for ping-pongs) */
    double time;       /* trimmed mean minus the dummy time, / divisor */
    double std_error;  /* of the trimmed mean (robust), / divisor */
    double raw;        /* trimmed mean before the dummy time was subtracted, / divisor */
    double dummy, dummy_se; /* / divisor */
    long count, kept;  /* single measurements made, and kept after cutting */
    long inner;        /* operations per single measurement */
    long warm_ops;     /* operations of the warm-up */
    long ops;          /* operations executed for this argument: the warm-up's
                          and count x inner timed ones (the dummy time runs
                          an empty function, no operation) */
    asec_stop stop;    /* why rank 0 stopped */
    double elapsed;    /* seconds of single measurements (rank 0) */
    /* all single measurements (reported units; rank 0's are the result) */
    double mean_all, median, min, max, sum, variance, q25, q75;
    measure_instance slowest[MEASURE_SLOWEST];
    size_t num_slowest;
} measure_result;

/* One measurement on the ranks of s->comm (call it on those only): `a`
 * holds this rank's asec (reset here) with the suite's bounds, `starts`
 * room for max_rep start times (rank 0; may be NULL elsewhere).  0, or -1
 * when out of memory for the dummy time (then the result is unusable; the
 * ranks still stop together). */
int measure_run(bench_ctx *ctx, bench_state *s, asec *a, double *starts, measure_result *r);

#endif
