/*
 * merge.h - merging several cube_bench runs into one experiment
 * (SKaMPI's automatic merging of results).
 *
 * A single benchmark run on a shared machine is disturbed now and then.
 * Several runs of the same parameter file, merged, give a result that one
 * disturbed run cannot spoil.  The inputs are experiments as cube_bench
 * writes them (cube_bench(5)): metrics time, stderr, reps, dummy_time; the
 * call tree cube_bench > one call path per suite > one call path per
 * argument, whose region is named KEY=NUMBER (KEY one of len, nodes,
 * chunks, arg) or, for a suite without an argument, after its operation;
 * one process (one thread) per rank.
 *
 * What the merge does, exactly:
 *
 *  - Which runs merge.  Every run must carry the attribute "parameter
 *    checksum" (fnv1a64 of its parameter file) and all must carry the same
 *    one, and all must have the same number of processes in their system
 *    trees with the same ranks.  Otherwise nothing is merged and the
 *    message names the two runs that differ (or the run without checksum):
 *    a median over different benchmarks, or over 2 and 3 ranks, is a number
 *    that measures nothing.
 *
 *  - Which points the result has.  Suites are matched by name (the k-th
 *    suite of a name with the k-th of that name: a parameter file may repeat
 *    a name); the result has every suite of any run, the first run's in its
 *    order, then the others' in the order they first appear.  Under a suite
 *    the result has every argument any run measured (the union), in
 *    ascending order of NUMBER; arguments are matched by KEY and NUMBER
 *    ("len=16" and "len=16.0" are one point), arguments without a number by
 *    their name.  Only the three levels of cube_bench's call tree are merged.
 *
 *  - What each run contributes to one point and one rank.  A run that
 *    measured the point there (its reps value at that rank is > 0)
 *    contributes its values of every metric, with weight = reps.  A run that
 *    has the suite but did not measure the point (its refinement chose other
 *    arguments) contributes the linear interpolation, in NUMBER, between its
 *    two neighbouring measured arguments of the same KEY (the nearest below
 *    and the nearest above, both measured at that rank):
 *        y = y1 + (y2 - y1) * (x - x1) / (x2 - x1)
 *    for every metric (time, stderr, dummy_time, ...), as SKaMPI's
 *    interpolate_data interpolates the whole record (with its
 *    linear_interpolate).  Its weight is the interpolated reps,
 *    rounded to the nearest integer (halves up): reps is an INTEGER metric,
 *    and the weight is what the merged file then shows as reps when this
 *    contribution is chosen.  A point outside the run's measured range of
 *    that suite (no neighbour below or none above) is not extrapolated: the
 *    run contributes nothing there.  A run without the suite contributes
 *    nothing to it, so a suite only some runs have is merged from those runs
 *    alone (from one run: copied).  A point without a number is never
 *    interpolated.
 *
 *  - The result of a point and rank: the lower weighted median of the
 *    contributions' times.  Sort the contributions by time, equal times in
 *    the order of the runs; W is the sum of their weights; the result is the
 *    first contribution c_j in that order with 2 * (w_1 + ... + w_j) >= W.
 *    (Ties at exactly half the weight take the smaller time: a disturbance
 *    only ever makes a benchmark slower.  SKaMPI's example, 899 with 10
 *    single measurements, 901 with 4 and 910 with 4, gives 899.)  The merged
 *    point carries every metric of that one contribution (time, its stderr,
 *    its reps or rounded interpolated reps, its dummy_time), not a mixture.
 *    A rank no run measured there stays without values, as in a run without
 *    Node_Times.
 *
 *  - The rest of the experiment is the first run's: its attributes, mirrors,
 *    metric definitions, system tree and the definitions of its regions
 *    and call paths; metrics and regions only later runs have are added.
 *    Then "merged runs" = N and "merged from 1" ... "merged from N" = the
 *    names of the runs (earlier "merged ..." attributes of the first run are
 *    dropped).  So cube_stat, cube_dump, cube_diff and the report read the
 *    result like a run.
 */
#ifndef CUBE_BENCH_MERGE_H
#define CUBE_BENCH_MERGE_H

#include "cube.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Merge the n >= 1 runs (not changed; names[i] is used in messages and in
 * the "merged from" attributes; names NULL or names[i] NULL: "run i+1").
 * Returns the merged experiment (free it with cube_free), or NULL with a
 * one-line message in err (errlen bytes, may be 0). */
cube_t *cube_bench_merge(cube_t *const *runs, const char *const *names, size_t n, char *err,
                         size_t errlen);

/* Read the runs at paths[0..n-1] ("-" is standard input, at most once),
 * merge them and write the result to `output` atomically (cube_write_file:
 * an error leaves no partial file and keeps an existing one; "-" is
 * standard output; flags CUBE_WRITE_GZIP).  0, or -1 with a message in err
 * that names the file concerned. */
int cube_bench_merge_files(const char *const *paths, size_t n, const char *output,
                           unsigned flags, char *err, size_t errlen);

/* The argument of a cube_bench argument region name "KEY=NUMBER" (KEY one
 * of len, nodes, chunks, arg; NUMBER a finite decimal number, nothing
 * after it).  1 with *key_len (the length of KEY) and *value set, or 0 when
 * the name has no such argument (a suite without a varied argument). */
int cube_bench_parse_arg(const char *region_name, size_t *key_len, double *value);

/* The index of the lower weighted median of values[0..n-1] with weights
 * weights[0..n-1], as defined above (equal values: the lower index counts
 * as smaller).  Entries with a weight that is not > 0 and finite, or a value
 * that is not finite, take no part.  (size_t)-1 when none takes part. */
size_t cube_bench_weighted_median(const double *values, const double *weights, size_t n);

/* --- comparing two runs (cube_bench --compare) ---------------------------
 *
 * The suites of both runs, matched by name and occurrence as the merge
 * matches them, each on the union of the arguments either run measured.
 * At each argument a run's value is rank 0's time and standard error,
 * measured, or interpolated between its two measured neighbours exactly as
 * the merge interpolates (never extrapolated: outside a run's measured
 * range the argument is only in the other run).  The ratio AFTER/BEFORE
 * has the standard error r sqrt((se_a/a)^2 + (se_b/b)^2) (first-order
 * propagation of both standard errors, taken as independent). */

/* How far a ratio must be from 1, in its standard errors, to be a change
 * beyond the noise (about 95 % for a normal error). */
#define CUBE_BENCH_NOISE_SIGMAS 2.0

typedef enum {
    CUBE_BENCH_SAME = 0,      /* |r - 1| <= 2 se_r: within the noise */
    CUBE_BENCH_FASTER,        /* r < 1 - 2 se_r */
    CUBE_BENCH_SLOWER,        /* r > 1 + 2 se_r, but r - 2 se_r <= 1 + threshold */
    CUBE_BENCH_REGRESSION,    /* r - 2 se_r > 1 + threshold: slower than the
                                 threshold beyond the noise */
    CUBE_BENCH_ONLY_BEFORE,   /* no value in AFTER (not measured, not
                                 interpolated) */
    CUBE_BENCH_ONLY_AFTER
} cube_bench_verdict;

typedef struct {
    const char *suite;        /* the suite's name (points into a run) */
    size_t occurrence;        /* the k-th suite of that name (0 first) */
    const char *argument;     /* "len=1024", ... (points into a run) */
    int before_source, after_source; /* 0 none, 1 measured, 2 interpolated */
    double before, before_se, after, after_se; /* seconds; NaN when none */
    double ratio, ratio_se;   /* after / before; NaN unless both have values */
    cube_bench_verdict verdict;
} cube_bench_cmp_row;

/* Compare two runs; `threshold` a fraction (0.10 for 10 %).  0 with
 * *rows (free()) and *nrows set, in the order of the merge (suites as they
 * first appear, arguments ascending); -1 with a one-line message in err.
 * names[k] name the runs in messages (NULL: BEFORE, AFTER).  The rows point
 * into the runs, which must outlive them. */
int cube_bench_compare(const cube_t *before, const cube_t *after, const char *const names[2],
                       double threshold, cube_bench_cmp_row **rows, size_t *nrows, char *err,
                       size_t errlen);

/* The ratio after/before and its standard error (above); NaN when before
 * is not above 0 or a value is not finite. */
void cube_bench_ratio(double before, double before_se, double after, double after_se,
                      double *ratio, double *ratio_se);

/* The verdict of a ratio (SAME to REGRESSION; a ratio that is NaN: SAME). */
cube_bench_verdict cube_bench_judge(double ratio, double ratio_se, double threshold);
const char *cube_bench_verdict_name(cube_bench_verdict v);

#ifdef __cplusplus
}
#endif

#endif
