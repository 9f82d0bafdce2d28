/*
 * test_support.h - what the unit tests share: paths to test data, reading
 * that must succeed or fail, temporary files, and a deep comparison of two
 * experiments.
 */
#ifndef TEST_SUPPORT_H
#define TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "cube.h"

/* "testdata/<rel>" (the tests run from the repository root). */
const char *testdata(const char *rel);
/* The real experiments made by the original tools, NULL-terminated. */
extern const char *const real_cube_files[];

/* Read a file that must read; fails the test otherwise. */
cube_t *read_ok(const char *path);
/* Read a file that must fail; returns a copy of the error (caller frees). */
char *read_error(const char *path);
/* Read from a string (written to a temporary file). */
cube_t *read_string_ok(const char *xml);
char *read_string_error(const char *xml);

/* Switch LC_NUMERIC to an installed locale whose decimal point is a comma
 * (de_DE.UTF-8, ...): 1 if one was set (the caller sets "C" back), else 0
 * (the caller skips). */
int set_comma_locale(void);

/* A fresh temporary file name (the file does not exist); caller frees. */
char *temp_path(const char *suffix);
/* Write `c` with `how` (cube_write_all or a streaming sequence) to a new
 * temporary file, which must succeed; returns its path (caller frees). */
char *write_with(cube_t *c, void (*how)(cube_t *, FILE *));
/* Write `data` to a new temporary file; returns its path (caller frees). */
char *temp_file_with(const char *data, size_t len);
/* Whole content of a file; caller frees; *len set when non-NULL. */
char *slurp(const char *path, size_t *len);
/* A gzip-compressed copy of the file at `path` in a new temporary file
 * whose name ends in `suffix`; caller unlinks and frees. */
char *gzip_copy(const char *path, const char *suffix);

/* A call chain `depth` deep, alternating regions f and g, on one thread,
 * with the value 1 of metric "time" on every call path (call path i is the
 * node at depth i, cube_get_cnode(c, i)). */
cube_t *deep_call_chain(int depth);

/* The same bits (a NaN equals itself, 0.0 differs from -0.0). */
int same_double(double a, double b);
/* Open a LinkTest file that must open; fails the test otherwise. */
cube_linktest *linktest_open_ok(const char *path);

/* The 25 numeric fields of a LinkTest header in the order of the file
 * (version, mode length, the 13 flags, the 8 counts), for comparing. */
#define LINKTEST_HEADER_FIELDS 25
void linktest_header_fields(const cube_linktest_header *h,
                            unsigned long long out[LINKTEST_HEADER_FIELDS]);

/* Assert that two experiments are the same model: every dimension with
 * every name and attribute in the same order, and every severity value
 * bit-identical (ids are labels and are not compared). */
void assert_same_model(const cube_t *a, const cube_t *b);
/* The same, and everything CUBE 4 adds (kinds, expressions, attributes of
 * every entity, region details, parameters, classes, types, extra
 * members), with the ids of metrics, regions, call paths and threads. */
void assert_same_cube4_model(const cube_t *a, const cube_t *b);

#endif
