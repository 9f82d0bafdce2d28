/*
 * grow.c - growing arrays (grow.h).
 */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

void *bench_grow(void *items, size_t count, size_t *cap, size_t elem_size, size_t first_cap)
{
    if (count < *cap)
        return items;
    size_t n = *cap ? *cap : first_cap / 2;
    if (n > SIZE_MAX / 2 / elem_size)
        return NULL;
    n *= 2;
    void *p = realloc(items, n * elem_size);
    if (p)
        *cap = n;
    return p;
}
