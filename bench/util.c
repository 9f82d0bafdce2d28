/*
 * util.c - cube_bench's own small helpers (see util.h).
 */
#include "util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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
