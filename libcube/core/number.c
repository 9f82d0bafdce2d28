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
#include "core/number_private.h"
#include "core/status_private.h"
#include "cube.h"

#include <errno.h>
#include <float.h>
#include <stdatomic.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double exact_powers_of_ten[] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
#define X87_FAST_PATH 1
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
#ifdef X87_FAST_PATH
/* Does extended precision really carry 64 bits here?  Emulators do not
 * always (valgrind computes x87 operations in double precision), and the
 * fast paths are only exact when it does. */
static int measure_extended_precision(void)
{
    volatile long double one = 1.0L, tiny = LDBL_EPSILON;
    return one + tiny != one;
}

/* The answer is a fact of the machine the process runs on, so it is
 * measured once and kept in a static, written with the same value by
 * whichever thread comes first (atomically, so no race). */
static int extended_precision_works(void)
{
    static _Atomic int known; /* 0 unknown, 1 no, 2 yes */
    int state = atomic_load_explicit(&known, memory_order_relaxed);
    if (!state) {
        state = measure_extended_precision() ? 2 : 1;
        atomic_store_explicit(&known, state, memory_order_relaxed);
    }
    return state == 2;
}
#endif

static int extended_fast_path(uint64_t mantissa, int exp10, double *out)
{
#ifdef X87_FAST_PATH
    if (exp10 < -27 || exp10 > 27 || !extended_precision_works())
        return 0;
    long double x = (long double)mantissa; /* exact: at most 64 bits */
    x = exp10 < 0 ? x / exact_ld_powers_of_ten[-exp10] : x * exact_ld_powers_of_ten[exp10];
    /* The x87 format stores the 64-bit mantissa (explicit leading bit) in
     * its first 8 bytes and the biased exponent in the next 15 bits; read
     * them directly (frexpl and ldexpl cost more than the division). */
    unsigned char raw[sizeof x];
    memcpy(raw, &x, sizeof x);
    uint64_t bits;
    memcpy(&bits, raw, sizeof bits);
    int biased = (raw[8] | (raw[9] << 8)) & 0x7fff;
    if (biased < 16383 - 1000 || biased > 16383 + 1000)
        return 0;                       /* keep clear of subnormals and overflow */
    unsigned low = (unsigned)(bits & 0x7ff); /* the 11 bits double rounding drops */
    if (low >= 0x3ff && low <= 0x401)
        return 0;
    *out = (double)x;
    return 1;
#else
    (void)mantissa, (void)exp10, (void)out;
    return 0;
#endif
}

/* mantissa x 10^exp10 correctly rounded, when a fast path can do it
 * exactly: 1 done, 0 the caller must take the slow path. */
static int decimal_to_double(uint64_t mantissa, int exp10, double *out)
{
    if (mantissa == 0) {
        *out = 0.0;
        return 1;
    }
    if (mantissa <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)mantissa;
        *out = exp10 < 0 ? v / exact_powers_of_ten[-exp10] : v * exact_powers_of_ten[exp10];
        return 1;
    }
    return extended_fast_path(mantissa, exp10, out);
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

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR_DIGITS 1
/* Eight ASCII digits at once (values are mostly long digit strings): a byte
 * is a digit when its high nibble is 3 both before and after adding 6. */
static int eight_digits_at(const char *p, uint64_t *chunk)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    if ((((v & 0xF0F0F0F0F0F0F0F0ULL) |
          (((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) !=
         0x3333333333333333ULL))
        return 0;
    /* first byte = most significant digit: fold pairs, then quads, then the
     * two halves with one multiplication each */
    v -= 0x3030303030303030ULL;
    v = v * 10 + (v >> 8);
    v = (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
         (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >> 32;
    *chunk = v;
    return 1;
}
#endif

/* Append the digits at *pp to the mantissa while it stays exact (at most 19
 * significant digits); returns how many digits were read.  *exact drops to
 * 0 when digits had to be ignored. */
static int read_digits(const char **pp, const char *end, uint64_t *mantissa, int *significant,
                       int *exact)
{
    const char *p = *pp, *start = p;
    if (*mantissa == 0) /* leading zeros are not significant */
        while (p < end && *p == '0')
            p++;
#ifdef SWAR_DIGITS
    uint64_t chunk;
    while (end - p >= 8 && *significant <= 11 && eight_digits_at(p, &chunk)) {
        *mantissa = *mantissa * 100000000u + chunk;
        *significant += *mantissa ? 8 : 0;
        p += 8;
    }
#endif
    while (p < end && *p >= '0' && *p <= '9') {
        if (*significant < 19) {
            *mantissa = *mantissa * 10 + (uint64_t)(*p - '0');
            *significant += *mantissa != 0;
        } else {
            *exact = 0;
        }
        p++;
    }
    *pp = p;
    return (int)(p - start);
}

number_status parse_double_field(const char *s, const char *end, locale_t c_locale,
                                 double *out, const char **next)
{
    const char *p = s;
    int negative = 0;
    if (p < end && (*p == '-' || *p == '+')) {
        negative = *p == '-';
        p++;
    }
    uint64_t mantissa = 0;
    int significant = 0, exp10 = 0, exact = 1;
    int seen_digit = read_digits(&p, end, &mantissa, &significant, &exact) > 0;
    if (p < end && *p == '.') {
        p++;
        int n = read_digits(&p, end, &mantissa, &significant, &exact);
        seen_digit |= n > 0;
        /* each fraction digit divides by ten, a skipped leading zero as much
         * as one in the mantissa (when digits were dropped, !exact, the
         * slow path takes over and exp10 does not matter) */
        exp10 -= n;
    }
    if (seen_digit && p < end && (*p == 'e' || *p == 'E')) {
        const char *e = p + 1;
        int exp_negative = 0, exp_value = 0, exp_digits = 0;
        if (e < end && (*e == '-' || *e == '+')) {
            exp_negative = *e == '-';
            e++;
        }
        while (e < end && *e >= '0' && *e <= '9') {
            if (exp_value < 100000)
                exp_value = exp_value * 10 + (*e - '0');
            exp_digits++;
            e++;
        }
        if (exp_digits) {
            exp10 += exp_negative ? -exp_value : exp_value;
            p = e;
        } else {
            seen_digit = 0; /* "1e" is no number: let strtod_l judge the token */
        }
    }
    double v;
    if (!seen_digit || !exact || (p < end && !is_space(*p)))
        goto slow; /* inf, nan, hex, too many digits, or junk like "1,5" */
    if (!decimal_to_double(mantissa, exp10, &v))
        goto slow;
    *out = negative ? -v : v;
    *next = p;
    return NUMBER_OK;
slow:
    while (p < end && !is_space(*p))
        p++;
    *next = p;
    return slow_parse(s, (size_t)(p - s), c_locale, out);
}

number_status parse_double_token(const char *s, size_t len, locale_t c_locale, double *out)
{
    const char *next;
    number_status st = parse_double_field(s, s + len, c_locale, out, &next);
    if (st == NUMBER_OK && next != s + len)
        return NUMBER_MALFORMED; /* the token holds white space */
    return st;
}

int cube_parse_double(const char *s, size_t len, double *out, cube_status *status)
{
    if (!s || !out) {
        status_set(status, CUBE_EINVAL, "cube_parse_double needs text and a place for the value");
        return -1;
    }
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (c_locale == (locale_t)0) {
        /* no verdict on the text */
        status_set(status, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    double v;
    number_status st = parse_double_token(s, len, c_locale, &v);
    freelocale(c_locale);
    if (st != NUMBER_OK) {
        status_set(status, CUBE_EINVAL, "\"%.*s\" is not a finite number",
                   len > 64 ? 64 : (int)len, s);
        return -1;
    }
    *out = v;
    status_ok(status);
    return 0;
}

int parse_id(const char *s, int64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    int64_t v = 0;
    /* 18 digits always fit: only longer numbers need the (dividing) check */
    for (size_t n = 0; *s; s++, n++) {
        if (*s < '0' || *s > '9')
            return -1;
        if (n >= 18 && v > (INT64_MAX - (*s - '0')) / 10)
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

static const uint64_t powers_of_ten_u64[] = {
    1ULL,          10ULL,          100ULL,          1000ULL,          10000ULL,
    100000ULL,     1000000ULL,     10000000ULL,     100000000ULL,     1000000000ULL,
    10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL};

static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Write `digits` (n digits, no trailing zeros) with decimal exponent `x` of
 * its first digit the way printf's "%.Pg" does: scientific when x < -4 or
 * x >= P, plain otherwise. */
static int print_like_g(char *buf, int negative, const char *digits, int n, int x, int precision)
{
    char *o = buf;
    if (negative)
        *o++ = '-';
    if (x < -4 || x >= precision) {
        *o++ = digits[0];
        if (n > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(n - 1));
            o += n - 1;
        }
        int e = x < 0 ? -x : x;
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        if (e >= 100)
            *o++ = (char)('0' + e / 100);
        *o++ = (char)('0' + e / 10 % 10);
        *o++ = (char)('0' + e % 10);
    } else if (x >= 0) {
        for (int i = 0; i <= x; i++)
            *o++ = i < n ? digits[i] : '0';
        if (n > x + 1) {
            *o++ = '.';
            memcpy(o, digits + x + 1, (size_t)(n - x - 1));
            o += n - x - 1;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -x - 1; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)n);
        o += n;
    }
    *o = '\0';
    return (int)(o - buf);
}

/* The shortest form without printf for the common range: scale by an
 * exact power of ten in extended precision to get 17 digits, then look for
 * the fewest digits (15, 16, 17; a normal double never reads back from
 * fewer unless 15 do too) whose floor or ceiling reads back to the same
 * double, checked with the exact parser.  0 when it cannot decide. */
static int shortest_fast(double v, char *buf)
{
#ifdef X87_FAST_PATH
    double a = fabs(v);
    if (!(a >= 1e-7 && a < 1e15) || !extended_precision_works())
        return 0;
    /* the decimal exponent from the binary one (off by one at most: the
     * loop below corrects it) */
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int e2 = (int)((bits >> 52) & 0x7ff) - 1023;
    int e10 = (int)floor(e2 * 0.30102999566398120);
    uint64_t d17 = 0;
    long double scaled = 0;
    int k = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        k = 16 - e10; /* 2 <= k <= 23: exact powers */
        if (k < 0 || k > 27)
            return 0;
        scaled = (long double)a * exact_ld_powers_of_ten[k];
        /* Near 10^17 the extended format resolves 1/128 of a unit and the
         * product is off by at most half of that, so any fraction but
         * exactly .5 tells the rounding of the exact value. */
        d17 = (uint64_t)llrintl(scaled);
        long double off = (long double)d17 - scaled;
        if (off == 0.5L || off == -0.5L)
            return 0;
        if (d17 >= powers_of_ten_u64[17])
            e10++;
        else if (d17 < powers_of_ten_u64[16])
            e10--;
        else
            break;
    }
    if (d17 < powers_of_ten_u64[16] || d17 >= powers_of_ten_u64[17])
        return 0;
    /* The decimals that read back as `a` lie between the halfway points to
     * its neighbours.  Those points have 54 significant bits (exact in
     * extended precision); scaled like d17 they are off by less than 1/256
     * of a unit, so a candidate clearly inside or outside needs no exact
     * conversion, and only one near a bound does. */
    long double lower = ((long double)a - ((long double)a - nextafter(a, 0.0)) / 2) *
                        exact_ld_powers_of_ten[k];
    long double upper = ((long double)a + ((long double)nextafter(a, INFINITY) - a) / 2) *
                        exact_ld_powers_of_ten[k];
    const long double margin = 1.0L / 32;
    for (int precision = 15; precision <= 17; precision++) {
        uint64_t div = powers_of_ten_u64[17 - precision];
        uint64_t floor_digits = d17 / div, rem = d17 % div;
        uint64_t candidates[2] = {floor_digits, floor_digits + 1};
        /* A tie in d17's digits is decided by where the exact value lies
         * relative to d17 (exactly on it: printf's rounding rule applies). */
        long double above = scaled - (long double)d17;
        if (precision < 17 && rem * 2 == div && above == 0)
            return 0;
        if (rem * 2 > div || (rem * 2 == div && above > 0)) {
            candidates[0] = floor_digits + 1;
            candidates[1] = floor_digits;
        }
        for (int c = 0; c < (precision == 17 ? 1 : 2); c++) {
            uint64_t digits = precision == 17 ? d17 : candidates[c];
            long double at = (long double)(digits * powers_of_ten_u64[17 - precision]);
            if (at < lower - margin || at > upper + margin)
                continue;
            if (at <= lower + margin || at >= upper - margin) {
                double back;
                if (!decimal_to_double(digits, e10 - (precision - 1), &back))
                    return 0;
                if (back != a)
                    continue;
            }
            /* the decimal exponent of the first digit: a ceiling may have
             * carried into one more digit (999.. + 1) */
            int carry = digits >= powers_of_ten_u64[precision];
            int x = e10 + carry;
            int n = precision + carry;
            char text[24];
            /* two digits per division, from the right */
            int i = n;
            for (; i >= 2; i -= 2, digits /= 100)
                memcpy(text + i - 2, digit_pairs + 2 * (digits % 100), 2);
            if (i)
                text[0] = (char)('0' + digits);
            while (n > 1 && text[n - 1] == '0') /* trailing zeros are not printed */
                n--;
            return print_like_g(buf, v < 0, text, n, x, precision);
        }
    }
    return 0;
#else
    (void)v, (void)buf;
    return 0;
#endif
}

int format_double_shortest(double v, char *buf)
{
    /* Integers (visit counts, byte counts) are the common case in files and
     * print exactly without a round trip through the formatter. */
    if (v == 0.0)
        return (int)strlen(strcpy(buf, signbit(v) ? "-0" : "0"));
    if (fabs(v) < 1e15 && v == (double)(int64_t)v)
        return snprintf(buf, 32, "%lld", (long long)v);
    int n = shortest_fast(v, buf);
    return n ? n : format_double_shortest_slow(v, buf);
}

int format_double_shortest_slow(double v, char *buf)
{
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
