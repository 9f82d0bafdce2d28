/*
 * number_private.h - reading and writing the decimal numbers of severity rows.
 *
 * Both directions are independent of the caller's locale: parsing never
 * calls the C library's locale-dependent functions, and formatting is done
 * with the "C" locale object the caller passes in.
 */
#ifndef LIBCUBE_NUMBER_H
#define LIBCUBE_NUMBER_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    NUMBER_OK,
    NUMBER_MALFORMED,   /* not a number in any strtod form */
    NUMBER_NOT_FINITE   /* NaN or infinity */
} number_status;

/* Parse exactly the token [s, s+len) as a double, in any strtod form
 * (decimal, exponent, hexadecimal).  `c_locale` is a "C" locale object used
 * for the rare tokens the exact fast path cannot take. */
number_status parse_double_token(const char *s, size_t len, locale_t c_locale, double *out);

/* Parse the field that starts at `s` (not white space) and ends at the next
 * white space or at `end`; *next is set past it whatever the verdict, so
 * that a caller can report the field and go on scanning. */
number_status parse_double_field(const char *s, const char *end, locale_t c_locale,
                                 double *out, const char **next);

/* Parse a whole string as a non-negative decimal integer (no sign, no
 * spaces); -1 when it is not one or does not fit. */
int parse_id(const char *s, int64_t *out);
/* Parse a whole string as a decimal integer, sign allowed. */
int parse_long(const char *s, long *out);

/* The shortest decimal form of `v` that reads back to the same double.
 * `buf` holds at least 32 bytes; returns the length.  Must be called with
 * the "C" locale in effect for the calling thread (uselocale). */
int format_double_shortest(double v, char *buf);
/* The same by printf and strtod alone: the reference the fast path is
 * tested against, and its fallback. */
int format_double_shortest_slow(double v, char *buf);

#endif
