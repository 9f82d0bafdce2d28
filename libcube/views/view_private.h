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
#include "cubex/binary_private.h"

#include <float.h>
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
    /* An integer type narrower than 64 bits (8, 16 or 32; 0 for every
     * other type): its arithmetic wraps, so every value the view gives is
     * brought into the type's range (view_wrap). */
    unsigned wrap_bits;
    int wrap_signed;
    int part_rule;   /* view_part_rule of the metric */
    /* COMPLEX, RATE, TAU_ATOMIC: the values combined by their components
     * (view_parts.c); NULL for every other type. */
    struct view_parts *parts;
};

/* The value of nothing combined (cube_combine_neutral). */
static inline double view_neutral(cube_combine_rule how)
{
    return how == CUBE_COMBINE_MIN ? DBL_MAX : how == CUBE_COMBINE_MAX ? -DBL_MAX : 0.0;
}

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
 * smallest value seen; the neutral value (view_neutral) when none was
 * seen.  Start with {how, 0.0, 0.0, 0}. */
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
    return k->any ? k->value : view_neutral(k->how);
}

/* The integer type of `met` when it is narrower than 64 bits: *bits 8,
 * 16 or 32 and whether it is signed; *bits 0 for every other type. */
void view_integer_type(const cube_metric *met, unsigned *bits, int *is_signed);
/* v brought into the range of the integer type of `bits` bits: [0, 2^bits)
 * unsigned, [-2^(bits-1), 2^(bits-1)) signed, modulo 2^bits, as the
 * type's arithmetic wraps (exact for integers below 2^53; a non-finite v
 * stays).  view_wrap_values does it to n values, nothing when bits is 0. */
double view_wrap(double v, unsigned bits, int is_signed);
void view_wrap_values(double *values, size_t n, unsigned bits, int is_signed);

/* Is `child` a part of `parent`, whose values the parent's metric-exclusive
 * value takes away?  Both combine by sum and the child is not VOID; a
 * COMPLEX, RATE or TAU_ATOMIC parent has only children of its own type as
 * parts (their components are subtracted), a HISTOGRAM parent none (its
 * subtraction takes nothing away). */
int view_is_part(const cube_metric *parent, const cube_metric *child);
/* The same in two steps, the first once per parent (a view keeps it):
 * which children can be parts, and whether `child` is one. */
enum { VIEW_PARTS_NONE, VIEW_PARTS_SUMS, VIEW_PARTS_SAME_TYPE };
int view_part_rule(const cube_metric *parent);
int view_is_part_by(int rule, const cube_metric *parent, const cube_metric *child);

/* The components of COMPLEX, RATE and TAU_ATOMIC values (view_parts.c).
 * view_parts_new sets v->parts for a view of such a metric (NULL for
 * others); 0, or -1 when out of memory.  view_parts_add_row takes a row's
 * components from the metric's exact values (model_exact_row): a row
 * without them, or whose numbers are not the values given, leaves the
 * view with the numbers (the parts are dropped).  view_parts_finish
 * replaces the view's finished numbers by the numbers of the combined
 * components.  0, or -1 when out of memory. */
int view_parts_new(cube_view *v);
int view_parts_add_row(cube_view *v, const cube_metric *met, const cube_cnode *cnode,
                       const double *values);
int view_parts_finish(cube_view *v);
/* The view's total (cube_view_total) from the components: 1 with
 * cube_view_width() values in out, 0 when the view keeps numbers only. */
int view_parts_total(const cube_view *v, double *out);
/* With CUBE_VIEW_COMPONENTS, after view_parts_finish: the combined
 * components of call path `cnode`'s row (width * *nc doubles, NULL
 * without a row); NULL when the view keeps numbers only. */
const double *view_parts_kept(const cube_view *v, size_t cnode, size_t *nc);
void view_parts_free(struct view_parts *p);
/* Is `met` of a type whose values combine by components (COMPLEX, RATE,
 * TAU_ATOMIC)? */
int view_has_parts(const cube_metric *met);
/* a "+"= b of one value's components (cubex_value_decode's order) of a
 * COMPLEX, RATE (component-wise sums) or TAU_ATOMIC value (counts and sums
 * add, the smaller minimum and the larger maximum are kept). */
void view_parts_plus(cubex_kind k, double *a, const double *b);

/* One metric's value over all call paths and threads in a metric flavour,
 * from an aggregated view (cube_view_total): 0 (NaN for a metric-exclusive
 * value with a derived part), or -1 with `status` set. */
int view_metric_total(const cube_t *c, const cube_metric *met, cube_metric_flavour flavour,
                      double *out, cube_status *status);


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
