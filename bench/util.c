/*
 * util.c - cube_bench's own small helpers (see util.h).
 */
#include "util.h"

#include <math.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void *bench_grow(void *items, size_t count, size_t *cap, size_t elem_size,
                 size_t first_cap)
{
    if (count < *cap)
        return items;
    size_t n = *cap ? *cap : (first_cap + 1) / 2;
    if (n > SIZE_MAX / 2 / elem_size)
        return NULL;
    n *= 2;
    void *p = realloc(items, n * elem_size);
    if (p)
        *cap = n;
    return p;
}

static int ends_with(const char *s, size_t n, const char *end)
{
    size_t k = strlen(end);
    return n >= k && strcmp(s + n - k, end) == 0;
}

char *bench_beside_path(const char *cube_path, const char *suffix, const char *gz_suffix)
{
    if (strcmp(cube_path, "-") == 0)
        return NULL;
    size_t n = strlen(cube_path);
    const char *add = suffix;
    if (ends_with(cube_path, n, ".cube.gz")) {
        n -= strlen(".cube.gz");
        add = gz_suffix;
    } else if (ends_with(cube_path, n, ".cube")) {
        n -= strlen(".cube");
    } else if (ends_with(cube_path, n, ".cubex")) {
        n -= strlen(".cubex");
    }
    size_t k = strlen(add);
    char *s = malloc(n + k + 1);
    if (!s)
        return NULL;
    memcpy(s, cube_path, n);
    memcpy(s + n, add, k + 1);
    return s;
}

const char *bench_format_time(double t, const char *micro, char *buf, size_t size)
{
    /* a hair above, so that a time just below a unit's boundary by
     * rounding error is not written as 1000 of the smaller unit */
    double a = fabs(t) * (1 + 1e-12);
    if (isnan(t))
        snprintf(buf, size, "-");
    else if (t == 0 || !isfinite(t))
        snprintf(buf, size, "%.4g s", t);
    else if (a < 1e-6)
        snprintf(buf, size, "%.4g ns", t * 1e9);
    else if (a < 1e-3)
        snprintf(buf, size, "%.4g %s", t * 1e6, micro);
    else if (a < 1.0)
        snprintf(buf, size, "%.4g ms", t * 1e3);
    else
        snprintf(buf, size, "%.4g s", t);
    return buf;
}

const char *bench_short_time(double t, char *buf, size_t size)
{
    return bench_format_time(t, "us", buf, size);
}
