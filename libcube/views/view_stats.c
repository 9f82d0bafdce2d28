/*
 * view_stats.c - statistics of a value across locations, exact: count,
 * sum, mean, sample variance, minimum, the type-7 quartiles and median,
 * maximum (definitions in cube_views.h).
 */
#include "views/view_private.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cube_quantile_sorted(const double *sorted, size_t n, double p)
{
    if (!sorted || n == 0 || !(p >= 0.0 && p <= 1.0))
        return NAN;
    /* Hyndman & Fan type 7: h = (n - 1) p, interpolate between the order
     * statistics floor(h) and floor(h) + 1 (0-based). */
    double h = (double)(n - 1) * p;
    size_t k = (size_t)floor(h);
    if (k >= n - 1)
        return sorted[n - 1];
    double frac = h - (double)k, lo = sorted[k], hi = sorted[k + 1];
    if (frac == 0.0)
        return lo;
    double diff = hi - lo;
    if (isfinite(diff))
        return lo + frac * diff;
    /* hi - lo overflowed (or one is infinite): weigh the two ends instead */
    if (lo == hi)
        return lo;
    return (1.0 - frac) * lo + frac * hi;
}

int cube_stats_of_sorted(const double *sorted, size_t n, cube_stats *st, cube_status *status)
{
    if ((!sorted && n) || !st) {
        status_set(status, CUBE_EINVAL,
                   "cube_stats_of_sorted needs the values and a place for the statistics");
        return -1;
    }
    if (view_check_not_nan(sorted, n, "cube_stats_of_sorted", status) != 0)
        return -1;
    for (size_t i = 1; i < n; i++)
        if (sorted[i] < sorted[i - 1]) {
            status_set(status, CUBE_EINVAL,
                       "cube_stats_of_sorted: the values are not sorted ascending (value %zu "
                       "is less than value %zu)", i, i - 1);
            return -1;
        }
    st->count = n;
    st->sum = 0.0;
    st->mean = st->variance = st->minimum = st->maximum = NAN;
    st->quartile25 = st->median = st->quartile75 = NAN;
    status_ok(status);
    if (n == 0)
        return 0;
    double sum = 0.0, comp = 0.0;
    for (size_t i = 0; i < n; i++)
        view_neu_add(&sum, &comp, sorted[i]);
    st->sum = view_neu_result(sum, comp);
    st->mean = st->sum / (double)n;
    if (n >= 2) {
        /* two passes, with the correction term that removes most of the
         * rounding error of the mean (Chan, Golub & LeVeque) */
        double squares = 0.0, deviations = 0.0;
        for (size_t i = 0; i < n; i++) {
            double d = sorted[i] - st->mean;
            squares += d * d;
            deviations += d;
        }
        double v = (squares - deviations * deviations / (double)n) / (double)(n - 1);
        st->variance = v < 0.0 ? 0.0 : v;
    }
    st->minimum = sorted[0];
    st->maximum = sorted[n - 1];
    st->quartile25 = cube_quantile_sorted(sorted, n, 0.25);
    st->median = cube_quantile_sorted(sorted, n, 0.5);
    st->quartile75 = cube_quantile_sorted(sorted, n, 0.75);
    return 0;
}

int cube_stats_compute(const double *values, size_t n, cube_stats *st, cube_status *status)
{
    if ((!values && n) || !st) {
        status_set(status, CUBE_EINVAL,
                   "cube_stats_compute needs the values and a place for the statistics");
        return -1;
    }
    if (view_check_not_nan(values, n, "cube_stats_compute", status) != 0)
        return -1;
    double *sorted = n <= SIZE_MAX / sizeof(double) ? malloc((n ? n : 1) * sizeof *sorted) : NULL;
    if (!sorted) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    if (n)
        memcpy(sorted, values, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    int rc = cube_stats_of_sorted(sorted, n, st, status);
    free(sorted);
    return rc;
}
