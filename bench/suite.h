/*
 * suite.h - one suite of measurements: the automatic
 * parameter refinement over the varied argument, each argument measured by
 * measure_run on the ranks it concerns.
 */
#ifndef CUBE_BENCH_SUITE_H
#define CUBE_BENCH_SUITE_H

#include "measure.h"

/* Per-rank figures gathered with Node_Times (rank 0 holds them). */
enum { RANK_IN, RANK_TIME, RANK_STDERR, RANK_DUMMY, RANK_FIELDS };

typedef struct {
    long arg;
    measure_result res; /* rank 0's */
    int comm_size;      /* ranks that took part */
    long len, chunks;   /* the measurement's message length and chunks */
    int dummy_failed;   /* the dummy time could not be measured (0 was used) */
    int has_mean_ranks; /* collectives: */
    double mean_ranks;  /* the mean over the ranks of each rank's time per call */
    double *ranks;      /* Node_Times: RANK_FIELDS values per world rank, else NULL */
} suite_point;

typedef struct {
    const bench_suite *def;
    const bench_op *op;
    bench_variation var; /* as run (No_Variation for simple calls) */
    refine_params rp;   /* as run (Max_Value resolved, start clamped) */
    int partner;        /* point-to-point: the partner's world rank */
    suite_point *points; /* rank 0: sorted by argument */
    size_t n, cap;
    double elapsed;     /* seconds */
    char *skipped;      /* NULL, or why the suite was not measured */
} suite_result;

/* What a suite cannot be run with: 0, or -1 with "FILE:LINE: expected
 * ..., found ..." in err (the same on every rank: it depends on the file
 * and the number of processes only).  *skip is set (and 0 returned) with a
 * reason in err when the suite is fine but needs more processes than the
 * run has. */
int suite_check(const bench_ctx *ctx, const bench_params *bp, const bench_suite *def,
                const char *filename, int *skip, char *err, size_t errlen);

/* Run one suite (collective over the world).  0, or -1 (out of memory on
 * some rank; err says so on rank 0). */
int suite_run(bench_ctx *ctx, const bench_params *bp, const bench_suite *def,
              suite_result *out, char *err, size_t errlen);
void suite_result_free(suite_result *r);

/* The result of a suite as suite_run would begin it, without measuring:
 * its settings, the partner the context holds, or why it is skipped; no
 * points (a resumed run fills those from the saved experiment).  No MPI.
 * 0, or -1 when out of memory. */
int suite_plan_result(const bench_ctx *ctx, const bench_params *bp, const bench_suite *def,
                      suite_result *out, char *err, size_t errlen);

/* The region name of an argument ("len=1024", "nodes=3", "chunks=8", or
 * the call for a suite without variation).  Returns buf. */
char *suite_arg_name(const suite_result *r, long arg, char *buf, size_t size);

#endif
