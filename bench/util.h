/*
 * util.h - cube_bench's own small helpers.  cube_bench is a program on top
 * of libcube's public API (cube.h); the library's internal helpers are not
 * part of that API, so the program has these few of its own.
 */
#ifndef CUBE_BENCH_UTIL_H
#define CUBE_BENCH_UTIL_H

#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define BENCH_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define BENCH_PRINTF(fmt, args)
#endif

/* qsort's comparison of two doubles, ascending. */
int bench_cmp_double(const void *a, const void *b);

/* Format a message into `err` (of `errlen` bytes; nothing when err is NULL
 * or errlen 0): how cube_bench's modules report to their caller. */
void bench_err(char *err, size_t errlen, const char *fmt, ...) BENCH_PRINTF(3, 4);

/* Make room for one more element in `items` (count == *cap means full),
 * doubling from first_cap, the size checked against overflow: returns the
 * (possibly moved) array with *cap updated, or NULL when out of memory (the
 * old array is then still valid and unchanged).  Returns `items` untouched
 * when there is room. */
void *bench_grow(void *items, size_t count, size_t *cap, size_t elem_size,
                 size_t first_cap);

/* The name of a file that goes beside the experiment `cube_path`: its
 * name without the experiment's suffix (.cube, .cube.gz or .cubex) and
 * with `suffix` instead, or with `gz_suffix` when the experiment is
 * gzip-compressed CUBE 3 (.cube.gz); a name without one of those
 * suffixes gets `suffix` appended.  NULL for "-" (standard output has
 * nothing beside it) or when out of memory; the caller frees the result. */
char *bench_beside_path(const char *cube_path, const char *suffix, const char *gz_suffix);

/* A time in seconds with four significant digits in the unit that suits it
 * ("121.3 ns", "5.9 us", "1.2 ms", "3 s"; 0 and infinities in s, "-" for
 * NaN), into buf, `micro` naming the microsecond ("us" in logs that stay
 * ASCII, "µs" in reports for people); returns buf. */
const char *bench_format_time(double t, const char *micro, char *buf, size_t size);

/* bench_format_time with "us". */
const char *bench_short_time(double t, char *buf, size_t size);

#endif
