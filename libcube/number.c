/*
 * number.c - exact, locale-independent parsing of severity values and the
 * shortest round-trip formatting of doubles.
 *
 * Parsing takes Clinger's fast path when it is exact (at most 19 significant
 * digits forming an integer mantissa below 2^53, and a power of ten up to
 * 10^22, both exactly representable: one correctly rounded multiplication or
 * division gives the correctly rounded result).  Everything else goes to
 * strtod_l with a "C" locale, which is correctly rounded too.
 */
#define _GNU_SOURCE
#include "number.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double exact_powers_of_ten[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if LDBL_MANT_DIG == 64
/* 10^k for k <= 27 is exact in the x87 extended format (5^27 < 2^64). */
static const long double exact_ld_powers_of_ten[] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
#endif

/* Numbers with 17 to 19 significant digits (what "%.17g" writes) do not fit
 * Clinger's fast path.  With a 64-bit mantissa, mantissa x or / 10^k is one
 * correctly rounded extended-precision operation; rounding that to double
 * is then correct unless the extended result lies within one of its ulps of
 * a halfway point between two doubles.  Those rare cases (and every case on
 * platforms without x87 long double) return 0 and take strtod.  1 on
 * success. */
static int extended_fast_path(uint64_t mantissa, int exp10, double *out)
{
#if LDBL_MANT_DIG == 64
    if (exp10 < -27 || exp10 > 27)
        return 0;
    long double x = (long double)mantissa; /* exact: at most 64 bits */
    x = exp10 < 0 ? x / exact_ld_powers_of_ten[-exp10] : x * exact_ld_powers_of_ten[exp10];
    int e;
    long double frac = frexpl(x, &e);                   /* [0.5, 1) */
    if (e < -1000 || e > 1000)
        return 0;                                       /* keep clear of subnormals and overflow */
    uint64_t bits = (uint64_t)ldexpl(frac, 64);         /* the 64-bit mantissa, exact */
    unsigned low = (unsigned)(bits & 0x7ff);            /* the 11 bits double rounding drops */
    if (low >= 0x3ff && low <= 0x401)
        return 0;
    *out = (double)x;
    return 1;
#else
    (void)mantissa, (void)exp10, (void)out;
    return 0;
#endif
}

/* Tokens longer than this are never numbers anyone wrote; they go to the
 * slow path through a bounded copy. */
#define MAX_TOKEN 128

static number_status slow_parse(const char *s, size_t len, locale_t c_locale, double *out)
{
    char buf[MAX_TOKEN + 1];
    if (len > MAX_TOKEN)
        return NUMBER_MALFORMED;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod_l(buf, &end, c_locale);
    if (end != buf + len || len == 0)
        return NUMBER_MALFORMED;
    if (!isfinite(v))
        return NUMBER_NOT_FINITE;
    *out = v; /* underflow to 0 or a subnormal is fine; overflow was caught above */
    return NUMBER_OK;
}

number_status parse_double_token(const char *s, size_t len, locale_t c_locale, double *out)
{
    const char *p = s, *end = s + len;
    int negative = 0;
    if (p < end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        p++;
    }
    uint64_t mantissa = 0;
    int digits = 0, exp10 = 0, seen_digit = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        seen_digit = 1;
        if (mantissa || *p != '0') {
            if (digits >= 19)
                return slow_parse(s, len, c_locale, out);
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
            digits++;
        }
        p++;
    }
    if (p < end && *p == '.') {
        p++;
        while (p < end && *p >= '0' && *p <= '9') {
            seen_digit = 1;
            if (mantissa || *p != '0') {
                if (digits >= 19)
                    return slow_parse(s, len, c_locale, out);
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                digits++;
            }
            exp10--;
            p++;
        }
    }
    if (!seen_digit)
        return slow_parse(s, len, c_locale, out); /* inf, nan, hex, or junk */
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int exp_negative = 0, exp_value = 0, exp_digits = 0;
        if (p < end && (*p == '-' || *p == '+')) {
            exp_negative = *p == '-';
            p++;
        }
        while (p < end && *p >= '0' && *p <= '9') {
            if (exp_value < 100000)
                exp_value = exp_value * 10 + (*p - '0');
            exp_digits++;
            p++;
        }
        if (!exp_digits)
            return NUMBER_MALFORMED;
        exp10 += exp_negative ? -exp_value : exp_value;
    }
    if (p != end)
        return slow_parse(s, len, c_locale, out); /* e.g. "0x1p3", or junk like "1,5" */
    double v;
    if (mantissa == 0) {
        v = 0.0;
    } else if (mantissa <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
        v = (double)mantissa;
        v = exp10 < 0 ? v / exact_powers_of_ten[-exp10] : v * exact_powers_of_ten[exp10];
    } else if (!extended_fast_path(mantissa, exp10, &v)) {
        return slow_parse(s, len, c_locale, out);
    }
    *out = negative ? -v : v;
    return NUMBER_OK;
}

int parse_id(const char *s, int64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    int64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        if (v > (INT64_MAX - (*s - '0')) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return 0;
}

int parse_long(const char *s, long *out)
{
    if (!s)
        return -1;
    int negative = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    int64_t v;
    if (parse_id(s, &v) != 0 || v > (int64_t)LONG_MAX)
        return -1;
    *out = negative ? -(long)v : (long)v;
    return 0;
}

int format_double_shortest(double v, char *buf)
{
    /* Integers (visit counts, byte counts) are the common case in files and
     * print exactly without a round trip through the formatter. */
    if (v == 0.0)
        return (int)strlen(strcpy(buf, signbit(v) ? "-0" : "0"));
    if (fabs(v) < 1e15 && v == (double)(int64_t)v)
        return snprintf(buf, 32, "%lld", (long long)v);
    /* A normal double holds at least 15 significant decimal digits, so a
     * shorter form that reads back is also what "%.15g" prints (trailing
     * zeros stripped); subnormals hold fewer and are searched from 1. */
    int n = 0;
    for (int precision = fabs(v) < DBL_MIN ? 1 : 15; precision <= 17; precision++) {
        n = snprintf(buf, 32, "%.*g", precision, v);
        if (precision == 17 || strtod(buf, NULL) == v)
            break;
    }
    return n;
}
