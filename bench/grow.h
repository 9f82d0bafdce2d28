/*
 * grow.h - the one way cube_bench's modules grow an array: doubling, from a
 * first capacity, with the size computation checked against overflow.
 */
#ifndef CUBE_BENCH_GROW_H
#define CUBE_BENCH_GROW_H

#include <stddef.h>

/* Make room for one more element in `items` (count == *cap means full):
 * returns the (possibly moved) array, with *cap updated, or NULL when out
 * of memory (the old array is then still valid and unchanged).  Returns
 * `items` untouched when there is room. */
void *bench_grow(void *items, size_t count, size_t *cap, size_t elem_size, size_t first_cap);

#endif
