/*
 * view_private.h - what the view_*.c modules share and nothing outside
 * libcube sees: the layout of a cube_view and compensated accumulators.
 *
 * An accumulator of width w is one allocation of 2w doubles: the running
 * sums in [0, w) and their Neumaier compensations in [w, 2w).  Folding
 * adds the compensations to the sums and shrinks it to w doubles.
 */
#ifndef LIBCUBE_VIEW_INTERNAL_H
#define LIBCUBE_VIEW_INTERNAL_H

#include "core/cube_private.h"

#include <math.h>
#include <stddef.h>

struct cube_view {
    const cube_t *defs;
    const cube_metric *metric;
    cube_metric_flavour metric_flavour;
    cube_call_flavour call_flavour;
    unsigned flags;
    cube_combine_rule combine; /* of the metric's values (its dtype) */
    size_t width;    /* values per row */
    size_t nthreads; /* values per stored row */
    size_t ncnodes;
    double **rows;   /* ncnodes entries, NULL = all zero; until finished
                        either width exact sums (one contribution so far)
                        or, with the bit in `compensated` set, an
                        accumulator of 2 * width; then width values */
    unsigned char *compensated; /* bit per cnode, until finished */
    size_t num_rows; /* non-NULL entries of rows */
    /* Until finished, the rows hold values along the call tree as the
     * view's metric stores them: call-inclusive when stored_inclusive.  In
     * the metric-exclusive flavour a child metric stored the other way
     * contributes to `other`, rows of the same layout (NULL when no child
     * does); cube_view_finish converts both to `rows_flavour` and adds
     * them up. */
    int stored_inclusive;
    cube_call_flavour rows_flavour; /* CUBE_CALL_INCLUSIVE or _EXCLUSIVE */
    struct cube_view *other;
    int finished;    /* 1 finished, -1 cube_view_finish failed half way */
    cube_status status; /* of the last call that changed the view */
};

/* sum += v, compensated (Neumaier's variant of Kahan summation). */
static inline void view_neu_add(double *sum, double *comp, double v)
{
    double s = *sum + v;
    *comp += fabs(*sum) >= fabs(v) ? (*sum - s) + v : (v - s) + *sum;
    *sum = s;
}

/* The compensated result.  Once a sum is infinite the compensation is
 * inf - inf = NaN: an infinite (or NaN) sum is returned as it is. */
static inline double view_neu_result(double sum, double comp)
{
    return isfinite(sum) ? sum + comp : sum;
}

/* The larger (CUBE_COMBINE_MAX) or smaller (CUBE_COMBINE_MIN) of a and b.
 * Maxima and minima are exact: they need no accumulator. */
static inline double view_pick(cube_combine_rule how, double a, double b)
{
    return how == CUBE_COMBINE_MAX ? (b > a ? b : a) : (b < a ? b : a);
}

/* One value combined from many: a compensated sum, or the largest or the
 * smallest value seen; 0 when none was seen.  Start with
 * {how, 0.0, 0.0, 0}. */
typedef struct {
    cube_combine_rule how;
    double value, comp;
    int any;
} view_combiner;

static inline void view_combiner_add(view_combiner *k, double v)
{
    if (k->how == CUBE_COMBINE_SUM)
        view_neu_add(&k->value, &k->comp, v);
    else
        k->value = k->any ? view_pick(k->how, k->value, v) : v;
    k->any = 1;
}

static inline double view_combiner_result(const view_combiner *k)
{
    if (k->how == CUBE_COMBINE_SUM)
        return view_neu_result(k->value, k->comp);
    return k->any ? k->value : 0.0;
}


/* 0 when none of the n values is NaN; else -1 with `status` naming the
 * first NaN as "FUNC: value I is NaN" (CUBE_EINVAL). */
int view_check_not_nan(const double *values, size_t n, const char *func, cube_status *status);

/* dst[i] = view_pick(how, dst[i], src[i]) for w values. */
void view_pick_row(double *dst, const double *src, size_t w, cube_combine_rule how);

/* A zeroed accumulator of width w; NULL when out of memory. */
double *view_acc_new(size_t w);
/* acc += sign * row (w values). */
void view_acc_add_row(double *acc, size_t w, const double *row, double sign);
/* acc[0] += sign * (the sum of the n values of row), compensated. */
void view_acc_add_sum(double *acc, size_t w, const double *row, size_t n, double sign);
/* dst += src and dst -= src, both accumulators. */
void view_acc_add_acc(double *dst, const double *src, size_t w);
void view_acc_sub_acc(double *dst, const double *src, size_t w);
/* Fold the compensations into the sums and shrink to w doubles; returns
 * the (possibly moved) array, never NULL. */
double *view_acc_fold(double *acc, size_t w);

#endif
