/*
 * view_common.c - how a metric's values combine and the compensated
 * accumulators the views share (cube_views.h).
 */
#include "views/view_private.h"
#include "cubex/binary_private.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

cube_combine_rule cube_metric_combine(const cube_metric *met)
{
    if (!met || !met->dtype)
        return CUBE_COMBINE_SUM;
    if (strcmp(met->dtype, "MAXDOUBLE") == 0)
        return CUBE_COMBINE_MAX;
    if (strcmp(met->dtype, "MINDOUBLE") == 0)
        return CUBE_COMBINE_MIN;
    return CUBE_COMBINE_SUM;
}

double cube_combine_neutral(cube_combine_rule how)
{
    return view_neutral(how);
}

void view_integer_type(const cube_metric *met, unsigned *bits, int *is_signed)
{
    cubex_dtype t;
    *bits = 0;
    *is_signed = 0;
    if (!met || !met->dtype || cubex_dtype_parse(met->dtype, &t) != 0 ||
        !cubex_dtype_is_integer(t) || cubex_dtype_size(t) == 8)
        return;
    *bits = 8 * (unsigned)cubex_dtype_size(t);
    *is_signed = t.kind == CUBEX_INT8 || t.kind == CUBEX_INT16 || t.kind == CUBEX_INT32;
}

int cube_metric_combines_numbers(const cube_metric *met)
{
    unsigned bits;
    int is_signed;
    view_integer_type(met, &bits, &is_signed);
    return !bits && !view_has_parts(met);
}

double view_wrap(double v, unsigned bits, int is_signed)
{
    if (!isfinite(v))
        return v;
    double m = ldexp(1.0, (int)bits), x = fmod(v, m); /* exact, in (-m, m) */
    if (!is_signed)
        return x < 0 ? x + m : x;
    double half = m / 2;
    return x >= half ? x - m : x < -half ? x + m : x;
}

void view_wrap_values(double *values, size_t n, unsigned bits, int is_signed)
{
    if (bits)
        for (size_t i = 0; i < n; i++)
            values[i] = view_wrap(values[i], bits, is_signed);
}

int view_part_rule(const cube_metric *parent)
{
    cubex_dtype t;
    if (cube_metric_combine(parent) != CUBE_COMBINE_SUM)
        return VIEW_PARTS_NONE;
    if (!parent->dtype || cubex_dtype_parse(parent->dtype, &t) != 0)
        return VIEW_PARTS_SUMS;
    if (t.kind == CUBEX_HISTOGRAM)
        return VIEW_PARTS_NONE;
    if (t.kind == CUBEX_COMPLEX || t.kind == CUBEX_RATE || t.kind == CUBEX_TAU_ATOMIC)
        return VIEW_PARTS_SAME_TYPE;
    return VIEW_PARTS_SUMS;
}

int view_is_part_by(int rule, const cube_metric *parent, const cube_metric *child)
{
    if (rule == VIEW_PARTS_NONE || child->is_void || cube_metric_combine(child) != CUBE_COMBINE_SUM)
        return 0;
    return rule == VIEW_PARTS_SUMS ||
           (child->dtype && parent->dtype && strcmp(child->dtype, parent->dtype) == 0);
}

int view_is_part(const cube_metric *parent, const cube_metric *child)
{
    return view_is_part_by(view_part_rule(parent), parent, child);
}

double cube_combine_values(cube_combine_rule how, const double *values, size_t n)
{
    view_combiner k = {how == CUBE_COMBINE_MAX || how == CUBE_COMBINE_MIN ? how
                                                                        : CUBE_COMBINE_SUM,
                       0.0, 0.0, 0};
    for (size_t i = 0; i < n; i++)
        view_combiner_add(&k, values[i]);
    return view_combiner_result(&k);
}

int view_check_not_nan(const double *values, size_t n, const char *func, cube_status *status)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(values[i])) {
            status_set(status, CUBE_EINVAL, "%s: value %zu is NaN", func, i);
            return -1;
        }
    return 0;
}

void view_pick_row(double *dst, const double *src, size_t w, cube_combine_rule how)
{
    for (size_t i = 0; i < w; i++)
        dst[i] = view_pick(how, dst[i], src[i]);
}

double *view_acc_new(size_t w)
{
    if (w > SIZE_MAX / (2 * sizeof(double)))
        return NULL;
    return calloc(2 * (w ? w : 1), sizeof(double));
}

void view_acc_add_row(double *acc, size_t w, const double *row, double sign)
{
    double *comp = acc + w;
    if (sign > 0)
        for (size_t i = 0; i < w; i++)
            view_neu_add(&acc[i], &comp[i], row[i]);
    else
        for (size_t i = 0; i < w; i++)
            view_neu_add(&acc[i], &comp[i], -row[i]);
}

void view_acc_add_sum(double *acc, size_t w, const double *row, size_t n, double sign)
{
    double *comp = acc + w;
    for (size_t i = 0; i < n; i++)
        view_neu_add(&acc[0], &comp[0], sign > 0 ? row[i] : -row[i]);
}

void view_acc_add_acc(double *dst, const double *src, size_t w)
{
    for (size_t i = 0; i < w; i++) {
        view_neu_add(&dst[i], &dst[w + i], src[i]);
        dst[w + i] += src[w + i];
    }
}

void view_acc_sub_acc(double *dst, const double *src, size_t w)
{
    for (size_t i = 0; i < w; i++) {
        view_neu_add(&dst[i], &dst[w + i], -src[i]);
        dst[w + i] -= src[w + i];
    }
}

double *view_acc_fold(double *acc, size_t w)
{
    for (size_t i = 0; i < w; i++)
        acc[i] = view_neu_result(acc[i], acc[w + i]);
    double *shrunk = realloc(acc, (w ? w : 1) * sizeof *acc);
    return shrunk ? shrunk : acc;
}

double cube_compensated_sum(const double *values, size_t n)
{
    return cube_combine_values(CUBE_COMBINE_SUM, values, n);
}
