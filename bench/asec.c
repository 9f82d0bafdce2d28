/*
 * asec.c - automatic control of the standard error, as in SKaMPI.
 * The formulas are in asec.h.  Samples are kept in arrival order (for the
 * caller, e.g. a per-sample dump) and in sorted copies of ranges of it: all
 * of them (cutting, quartiles, the winsorized standard error) and the two
 * halves of the window test.  Adding a sample only stores it.  The sorted
 * copies and the stop test's statistics are brought up to date when asked
 * for (asec_done, asec_get_result): on the MPI side only rank 0 asks after
 * every sample, and the other ranks add their samples between two single
 * measurements, where work of theirs that rank 0 does not do makes rank 0's
 * next measurement wait; they sort once, for the result.
 */
#include "asec.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A sorted copy of arrival[from, to). */
typedef struct {
    double *v;        /* room for max_rep values */
    size_t from, to;
} sorted_range;

struct asec {
    asec_params p;
    size_t cap;            /* = max_rep */
    size_t n;
    double *arrival;
    /* sorted copies: all samples, and the window test's halves
     * arrival[0, n/2) and arrival[n/2, n); up to date when not stale */
    sorted_range all, half1, half2;
    double first_t, last_t; /* times of the first and last timed sample, or NaN */
    /* state of the stop test, for the samples so far unless stale */
    double stop_mean, stop_se;
    int windows_ok;        /* the two windows agree (asec.h) */
    int stale;             /* samples were added or forgotten since */
};

static asec_params clean_params(const asec_params *in)
{
    asec_params p = *in;
    if (p.max_rep < 1)
        p.max_rep = 1;
    if (p.min_rep < 0)
        p.min_rep = 0;
    if (p.min_rep > p.max_rep)
        p.min_rep = p.max_rep;
    if (!(p.cut_quantile > 0.0))          /* also catches NaN */
        p.cut_quantile = 0.0;
    if (p.cut_quantile >= 0.5)
        p.cut_quantile = 0.5;             /* asec_cut_count keeps one sample */
    if (isnan(p.rel_std_error))
        p.rel_std_error = 0.0;
    if (isnan(p.time_limit))
        p.time_limit = 0.0;
    if (!(p.min_span > 0.0))
        p.min_span = 0.0;
    return p;
}

size_t asec_cut_count(double cut_quantile, size_t n)
{
    if (n == 0 || !(cut_quantile > 0.0))
        return 0;
    /* the tolerance absorbs the binary rounding of cut * n (0.29 * 100 is
     * 28.999999999999996), far below one sample for any realistic n */
    double g = floor(cut_quantile * (double)n + 1e-9);
    size_t max_g = (n - 1) / 2;
    if (g >= (double)max_g)
        return max_g;
    return (size_t)g;
}

/* Trimmed mean of sorted[0..n) with g cut at each end, and Yuen's standard
 * error of it (winsorized sum of squares over h (h - 1)). */
static void trimmed(const double *s, size_t n, size_t g, double *mean, double *se)
{
    size_t h = n - 2 * g;
    double sum = 0.0;
    for (size_t i = g; i < n - g; i++)
        sum += s[i];
    *mean = sum / (double)h;
    if (h < 2) {
        *se = INFINITY;    /* undefined: never small enough to stop */
        return;
    }
    double lo = s[g], hi = s[n - g - 1];
    double wsum = sum + (double)g * (lo + hi);
    double wmean = wsum / (double)n;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++) {
        double w = i < g ? lo : i >= n - g ? hi : s[i];
        ss += (w - wmean) * (w - wmean);
    }
    *se = sqrt(ss / ((double)h * (double)(h - 1)));
}

static size_t stop_cut(const asec *a, size_t n)
{
    size_t g = asec_cut_count(a->p.cut_quantile, n);
    /* at least one sample winsorized per end once five remain (h >= 3):
     * one outlier then never blocks the stop test, whatever cut_quantile */
    if (g < 1 && n >= 5)
        g = 1;
    return g;
}

/* The index in the sorted s[0, n) where the values > x (after_equal) or
 * >= x begin. */
static size_t sorted_bound(const double *s, size_t n, double x, int after_equal)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid] < x || (after_equal && s[mid] == x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* More samples joining or leaving a range than this since it was last
 * brought up to date: copy and sort it anew instead of moving them one by
 * one (each move is O(n)). */
enum { RESORT_AFTER = 16 };

/* Make r the sorted copy of arrival[from, to); from and to never decrease
 * between resets.  A caller that asks after every sample (rank 0 in the
 * stop test) moves one or two samples per range, O(n) each, instead of
 * sorting the ranges again every time. */
static void range_update(sorted_range *r, const double *arrival, size_t from, size_t to)
{
    size_t n = r->to - r->from;
    if (from < r->from || to < r->to || (from - r->from) + (to - r->to) > RESORT_AFTER) {
        memcpy(r->v, arrival + from, (to - from) * sizeof *r->v);
        qsort(r->v, to - from, sizeof *r->v, bench_cmp_double);
    } else {
        /* the joining ones first: a range that moved past its old end
         * removes some of them again */
        for (size_t i = r->to; i < to; i++) {
            size_t k = sorted_bound(r->v, n, arrival[i], 1); /* equal values keep arrival order */
            memmove(r->v + k + 1, r->v + k, (n - k) * sizeof *r->v);
            r->v[k] = arrival[i];
            n++;
        }
        for (size_t i = r->from; i < from; i++) {
            size_t k = sorted_bound(r->v, n, arrival[i], 0);
            if (k < n) /* always: the range holds it */
                memmove(r->v + k, r->v + k + 1, (n - k - 1) * sizeof *r->v);
            n--;
        }
    }
    r->from = from;
    r->to = to;
}

/* The window test of asec.h; only asked once the standard error is small. */
static int windows_agree(asec *a)
{
    size_t h1 = a->n / 2, h2 = a->n - h1;
    if (h1 < 3)
        return 0;
    if (a->p.min_span > 0.0 && isfinite(a->first_t) && isfinite(a->last_t) &&
        a->last_t - a->first_t < a->p.min_span)
        return 0;
    range_update(&a->half1, a->arrival, 0, h1);
    range_update(&a->half2, a->arrival, h1, a->n);
    double m1, se1, m2, se2;
    trimmed(a->half1.v, h1, stop_cut(a, h1), &m1, &se1);
    trimmed(a->half2.v, h2, stop_cut(a, h2), &m2, &se2);
    double tol = 2.0 * sqrt(se1 * se1 + se2 * se2) + a->p.rel_std_error * fabs(a->stop_mean);
    return fabs(m1 - m2) <= tol;
}

static void update_stop(asec *a)
{
    a->windows_ok = 0;
    range_update(&a->all, a->arrival, 0, a->n);
    if (a->n < 2) {
        a->stop_mean = a->n ? a->all.v[0] : 0.0;
        a->stop_se = INFINITY;
        return;
    }
    trimmed(a->all.v, a->n, stop_cut(a, a->n), &a->stop_mean, &a->stop_se);
    if (a->p.rel_std_error > 0.0 && a->stop_se <= a->p.rel_std_error * fabs(a->stop_mean))
        a->windows_ok = windows_agree(a);
}

asec *asec_create(const asec_params *p)
{
    asec *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->p = clean_params(p);
    a->cap = (size_t)a->p.max_rep;
    a->arrival = malloc(a->cap * sizeof *a->arrival);
    a->all.v = malloc(a->cap * sizeof *a->all.v);
    a->half1.v = malloc(a->cap * sizeof *a->half1.v);
    a->half2.v = malloc(a->cap * sizeof *a->half2.v);
    if (!a->arrival || !a->all.v || !a->half1.v || !a->half2.v) {
        asec_free(a);
        return NULL;
    }
    asec_reset(a);
    return a;
}

void asec_free(asec *a)
{
    if (!a)
        return;
    free(a->arrival);
    free(a->all.v);
    free(a->half1.v);
    free(a->half2.v);
    free(a);
}

void asec_reset(asec *a)
{
    a->n = 0;
    a->all.from = a->all.to = 0;
    a->half1.from = a->half1.to = 0;
    a->half2.from = a->half2.to = 0;
    a->first_t = a->last_t = NAN;
    a->stale = 1;
}

void asec_set_time_limit(asec *a, double time_limit)
{
    a->p.time_limit = isnan(time_limit) ? 0.0 : time_limit;
}

static void refresh(asec *a)
{
    if (a->stale)
        update_stop(a);
    a->stale = 0;
}

int asec_add(asec *a, double x)
{
    return asec_add_at(a, x, NAN);
}

int asec_add_at(asec *a, double x, double t)
{
    if (a->n >= a->cap)
        return -1;
    if (isfinite(t)) {
        if (!isfinite(a->first_t))
            a->first_t = t;
        a->last_t = t;
    }
    a->arrival[a->n] = x;
    a->n++;
    a->stale = 1;
    return 0;
}

asec_stop asec_stop_reason(asec *a, double elapsed)
{
    refresh(a);
    if (a->n >= a->cap)
        return ASEC_STOP_MAX_REP;
    /* a measurement has at least one single measurement, whatever the clock
     * says: a result without samples would be no result */
    if (a->n == 0)
        return ASEC_RUNNING;
    if (a->p.time_limit > 0.0 && elapsed >= a->p.time_limit)
        return ASEC_STOP_TIME;
    if (a->n >= (size_t)a->p.min_rep && a->n >= 2 && a->p.rel_std_error > 0.0
        && a->stop_se <= a->p.rel_std_error * fabs(a->stop_mean) && a->windows_ok)
        return ASEC_STOP_STD_ERROR;
    return ASEC_RUNNING;
}

int asec_done(asec *a, double elapsed)
{
    return asec_stop_reason(a, elapsed) != ASEC_RUNNING;
}

const char *asec_stop_name(asec_stop s)
{
    switch (s) {
    case ASEC_RUNNING: return "running";
    case ASEC_STOP_MAX_REP: return "max_rep";
    case ASEC_STOP_TIME: return "time";
    case ASEC_STOP_STD_ERROR: return "std_error";
    }
    return "?";
}

/* type-7 quantile (linear interpolation between order statistics), the
 * definition cube_statfile uses */
static double quantile(const double *s, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t i = (size_t)floor(h);
    if (i + 1 >= n)
        return s[n - 1];
    return s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}

void asec_get_result(asec *a, asec_result *r)
{
    refresh(a);
    memset(r, 0, sizeof *r);
    size_t n = a->n;
    if (n == 0)
        return;
    const double *s = a->all.v;
    r->count = n;
    size_t g = asec_cut_count(a->p.cut_quantile, n);
    r->kept = n - 2 * g;
    trimmed(s, n, g, &r->mean, &r->std_error);
    trimmed(s, n, 0, &r->mean_all, &r->std_error_all);
    r->std_error_stop = a->stop_se;
    r->span = isfinite(a->first_t) && isfinite(a->last_t) ? a->last_t - a->first_t : 0.0;
    if (n < 2) {
        /* one sample: no spread known; report 0 rather than inf so that
         * the numbers can be written to files */
        r->std_error = r->std_error_all = r->std_error_stop = 0.0;
    }
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    r->sum = sum;
    r->min = s[0];
    r->max = s[n - 1];
    r->median = quantile(s, n, 0.5);
    r->q25 = quantile(s, n, 0.25);
    r->q75 = quantile(s, n, 0.75);
    if (n >= 2) {
        double m = sum / (double)n, ss = 0.0;
        for (size_t i = 0; i < n; i++)
            ss += (s[i] - m) * (s[i] - m);
        r->variance = ss / (double)(n - 1);
    }
}

const double *asec_samples(const asec *a, size_t *n)
{
    *n = a->n;
    return a->arrival;
}
