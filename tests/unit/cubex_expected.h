/*
 * cubex_expected.h - comparing a stored CUBE 4 value with its form in the
 * expected-values files of testdata/cubex: an integer as its number, a
 * double bit for bit, a structured value as the list of its components
 * (SCALE_FUNC as {"terms": [[a, b, c, d], ...], "measurements": [...]}).
 */
#ifndef CUBEX_EXPECTED_H
#define CUBEX_EXPECTED_H

#include "json_reader.h"
#include "cubex/binary_private.h"

/* Every archive of testdata/cubex by name (NAME.cubex with
 * NAME.expected.json), NULL-terminated. */
extern const char *const cubex_files[];

/* The value at src (in the byte order big_endian says) equals `want`;
 * the test fails naming `where` otherwise. */
void cubex_expect_value(cubex_dtype t, int big_endian, const unsigned char *src, const json *want,
                        const char *where);

#endif
