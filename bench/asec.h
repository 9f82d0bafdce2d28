/*
 * asec.h - automatic control of the standard error, as in SKaMPI.
 *
 * One "measurement" is formed from single measurements that are added one
 * at a time.  After each one the caller asks asec_done() whether to start
 * another.  No MPI here: on the MPI side rank 0 adds its samples, asks, and
 * broadcasts the answer so that every rank stops together.
 *
 * Stop rule (asec_done returns 1 when any of these holds):
 *   - count >= max_rep                     (max_rep overrides everything)
 *   - time_limit > 0 and elapsed >= time_limit
 *                                          (no new single measurement is
 *                                          started; may stop below min_rep)
 *   - count >= min_rep and count >= 2 and
 *     se_stop <= rel_std_error * |mean_stop|  (the standard error is small;
 *                                          both from the g_stop-trimmed
 *                                          sample below)
 *     and the samples come from two windows that agree (below)
 * A measurement has at least one sample: with count == 0 asec_done says 0
 * even past the time limit.  With rel_std_error <= 0 the third rule never
 * fires; time_limit <= 0 means no time limit.  SKaMPI's "falls below" is
 * read as "<=" so that a run of identical values (se = 0) stops at min_rep.
 *
 * Cutting: of n samples sorted ascending, g = floor(cut * n)
 * are dropped at each end (cut = cut_quantile, clamped to [0, 0.5); a tiny
 * tolerance makes e.g. 0.29 * 100 give 29, not 28).  h = n - 2g remain.
 * The result is the mean of the h kept samples (the trimmed mean).
 *
 * Standard error (the robust one, used for the stop test and reported):
 * Yuen's / Tukey-McLaughlin's estimate of the standard error of the trimmed
 * mean.  Winsorize the sorted sample (the g lowest values are replaced by
 * x_(g), the g highest by x_(n-g-1)), let w_bar be its mean, then
 *
 *     se = sqrt( sum_i (w_i - w_bar)^2 / (h * (h - 1)) )
 *
 * For g = 0 this is exactly SKaMPI's on-the-fly formula,
 * sqrt((sum x_i^2 - (sum x_i)^2 / n) / (n (n - 1))), the plain standard
 * error of the mean.  For g > 0 an outlier counts only as much as the most
 * extreme kept value: one 1 ms spike among 1 us samples no longer inflates
 * the standard error by three orders of magnitude (the plain formula drives
 * such a measurement to max_rep: one 1-8 ms preemption spike blocks a 1 %
 * untrimmed test).
 *
 * se_stop is the same formula with g_stop = max(g, 1) once n >= 5, so that
 * a single outlier can never block the stop test even when cut_quantile is
 * 0 (then the reported mean is the untrimmed one, as the user asked, but
 * the decision when to stop is still robust).  With g >= 1 (the usual case,
 * cut_quantile >= 1/n) se_stop == se.
 *
 * Two windows.  Single measurements of a sub-microsecond operation often
 * take a few discrete values, and which one a run of them takes can last
 * longer than the minimum number of repetitions: 32 samples all in one
 * bunch have a standard error of (almost) 0 and would stop at once with
 * the bunch's value, not the operation's.  So the standard-error test only
 * counts when the samples also come from two separate windows that agree:
 *   - the samples are split in arrival order into a first and a second
 *     half (of floor(n/2) and the rest), each with at least 3 samples;
 *   - when min_span > 0 and the samples carry times (asec_add_at), the
 *     last sample is at least min_span seconds after the first one (a
 *     bunch that lasts less than that cannot hold them all);
 *   - the halves' g_stop-trimmed means m1, m2 (g_stop of each half's own
 *     size) differ by at most
 *         2 sqrt(se1^2 + se2^2) + rel_std_error * |mean_stop|
 *     (their Yuen standard errors se1, se2: the difference is within the
 *     noise both halves show, or below the precision asked for).
 * A stream whose value moves from one bunch to another therefore goes on
 * until both halves hold a mixture of the bunches; an independent stream
 * (bimodal or not) passes the window test as soon as its standard error
 * does, apart from a 5 % chance per test; a spike is cut from its half as
 * from the whole sample.
 */
#ifndef CUBE_BENCH_ASEC_H
#define CUBE_BENCH_ASEC_H

#include <stddef.h>

typedef struct {
    int min_rep, max_rep;     /* bounds on the number of single measurements;
                                 max_rep < 1 is taken as 1, min_rep > max_rep
                                 as max_rep */
    double rel_std_error;     /* stop when se_stop <= rel_std_error * |mean| */
    double time_limit;        /* seconds; <= 0: none */
    double cut_quantile;      /* fraction cut at each end, [0, 0.5) */
    double min_span;          /* seconds between the first and the last timed
                                 sample before the standard error may stop
                                 a measurement (two windows, above); <= 0: none */
} asec_params;

typedef struct asec asec;     /* opaque */

/* NULL when out of memory (storage for max_rep samples is allocated here). */
asec *asec_create(const asec_params *p);
void asec_free(asec *a);
/* Forget all samples (e.g. after a warm-up); the parameters stay. */
void asec_reset(asec *a);
/* Change time_limit (seconds; <= 0: none) for the next samples. */
void asec_set_time_limit(asec *a, double time_limit);

/* One single measurement (seconds).  0, or -1 when max_rep samples are
 * already stored (the value is then not stored). */
int asec_add(asec *a, double x);
/* The same, for a single measurement that ended at time t (seconds, any
 * origin, non-decreasing): what min_span is measured on.  A sample without
 * a time (asec_add) leaves the span test to the samples that have one. */
int asec_add_at(asec *a, double x, double t);

/* 1: start no further single measurement; 0: measure again.  elapsed is the
 * time spent on this measurement so far (seconds), compared to time_limit. */
int asec_done(asec *a, double elapsed);

/* Why asec_done says stop (checked in this order), or ASEC_RUNNING. */
typedef enum {
    ASEC_RUNNING = 0,
    ASEC_STOP_MAX_REP,        /* count >= max_rep */
    ASEC_STOP_TIME,           /* elapsed >= time_limit */
    ASEC_STOP_STD_ERROR       /* the standard error is below the bound */
} asec_stop;
asec_stop asec_stop_reason(asec *a, double elapsed);
const char *asec_stop_name(asec_stop s);   /* "running", "max_rep", "time", "std_error" */

typedef struct {
    double mean, std_error;   /* trimmed mean and its standard error (above) */
    size_t count, kept;       /* samples added; samples kept after cutting (h) */
    /* statistics of ALL count samples (for the statistics file): */
    double min, max, median, q25, q75;   /* quartiles: type 7 (linear
                                            interpolation, as cube_statfile) */
    double variance;          /* sample variance, divisor count - 1 (0 if count < 2) */
    double sum;
    /* additions */
    double mean_all;          /* sum / count: the statistics file's mean */
    double std_error_all;     /* the plain standard error over all samples */
    double std_error_stop;    /* se_stop (above) */
    double span;              /* seconds from the first to the last timed sample */
} asec_result;

/* All fields 0 when no sample was added. */
void asec_get_result(asec *a, asec_result *r);

/* The samples in arrival order; *n receives their number. */
const double *asec_samples(const asec *a, size_t *n);

/* Number of samples cut at each end for n samples: floor(cut * n) with the
 * tolerance above, never leaving fewer than 1 sample.  Exposed for tests and
 * for the documentation of the output. */
size_t asec_cut_count(double cut_quantile, size_t n);

#endif
