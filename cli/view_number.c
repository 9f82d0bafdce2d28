/*
 * view_number.c - the numbers of cube_view --serve's answers (view_number.h).
 */
#include "view_number.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

static const uint64_t powers_of_ten[19] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
    10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
    1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u};

/* Exactly 8 decimal digits of v (v < 10^8, leading zeros written): two
 * halves of four digits, whose divisions do not wait for each other. */
static void put_8_digits(char *p, uint32_t v)
{
    uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(p, digit_pairs + 2 * (hi / 100), 2);
    memcpy(p + 2, digit_pairs + 2 * (hi % 100), 2);
    memcpy(p + 4, digit_pairs + 2 * (lo / 100), 2);
    memcpy(p + 6, digit_pairs + 2 * (lo % 100), 2);
}

/* The n decimal digits of u (n > 0, u < 10^n, leading zeros written):
 * eight at a time from the end, the rest in pairs; 17 digits take two
 * divisions of the 64-bit number instead of eight in a row. */
static void put_digits(char *p, uint64_t u, int n)
{
    for (; n > 8; n -= 8, u /= 100000000u)
        put_8_digits(p + n - 8, (uint32_t)(u % 100000000u));
    uint32_t v = (uint32_t)u;
    for (; n >= 2; n -= 2, v /= 100)
        memcpy(p + n - 2, digit_pairs + 2 * (v % 100), 2);
    if (n)
        p[0] = (char)('0' + v);
}

/* The 128-bit product of a and b, as hi * 2^64 + lo. */
static void multiply_128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *lo = (mid << 32) | (p00 & 0xffffffffu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* The 17 significant digits of a (finite, not an integer, 0 < a < 2^53),
 * rounded to nearest, ties to even, as printf rounds: 10^16 <= *digits <
 * 10^17, *exp10 the decimal exponent of the first.  In integers, exactly:
 * a = m 2^e, so a 10^k = m 5^k 2^(e+k), and 5^k fits 64 bits up to k =
 * 27.  0 where a is below 1e-11 (k would be larger): printf then. */
static int digits17(double a, uint64_t *digits, int *exp10)
{
    static const uint64_t powers_of_five[28] = {
        1u, 5u, 25u, 125u, 625u, 3125u, 15625u, 78125u, 390625u, 1953125u, 9765625u,
        48828125u, 244140625u, 1220703125u, 6103515625u, 30517578125u, 152587890625u,
        762939453125u, 3814697265625u, 19073486328125u, 95367431640625u, 476837158203125u,
        2384185791015625u, 11920928955078125u, 59604644775390625u, 298023223876953125u,
        1490116119384765625u, 7450580596923828125u};
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7ff);
    if (biased == 0) /* subnormal: far out of range */
        return 0;
    uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
    int e = biased - 1075;
    /* 2^(e+52) <= a < 2^(e+53): floor((e + 52) log10 2), with log10 2 as
     * 78913 / 2^18, is the decimal exponent or one below it */
    int e2 = e + 52;
    int e10 = e2 >= 0 ? (e2 * 78913) >> 18 : -((-e2 * 78913 + (1 << 18) - 1) >> 18);
    for (int attempt = 0; attempt < 3; attempt++) {
        int k = 16 - e10;
        if (k < 0 || k > 27)
            return 0;
        uint64_t hi, lo, d;
        multiply_128(m, powers_of_five[k], &hi, &lo);
        int shift = e + k;
        if (shift >= 0) { /* a 10^k < 2^57: no more than 5 bits to add */
            if (hi || shift > 5 || lo >> (58 - shift))
                return 0;
            d = lo << shift;
        } else {
            int r = -shift; /* 1 .. 127 */
            uint64_t q = r < 64 ? (hi << (64 - r)) | (lo >> r) : hi >> (r - 64);
            if (r < 64 && hi >> r)
                return 0;
            int b = r - 1; /* the bit worth a half */
            uint64_t half = b < 64 ? (lo >> b) & 1 : (hi >> (b - 64)) & 1;
            uint64_t below = b < 64 ? lo & ((UINT64_C(1) << b) - 1)
                                    : lo | (hi & ((UINT64_C(1) << (b - 64)) - 1));
            d = q + (half && (below || (q & 1)));
        }
        if (d >= powers_of_ten[17])
            e10++;
        else if (d < powers_of_ten[16])
            e10--;
        else {
            *digits = d;
            *exp10 = e10;
            return 1;
        }
    }
    return 0;
}

/* printf's %.17g of v in the C form, into p; the end. */
static char *put_number_printf(char *p, double v)
{
    char text[64];
    int n = snprintf(text, sizeof text, "%.17g", v), point = 0;
    for (int i = 0; i < n; i++) {
        char ch = text[i];
        if ((ch >= '0' && ch <= '9') || ch == '-' || ch == '+' || ch == 'e')
            *p++ = ch;
        else if (!point++) /* the locale's decimal point */
            *p++ = '.';
    }
    return p;
}

char *view_put_number(char *p, double v)
{
    if (!isfinite(v)) {
        memcpy(p, "null", 4);
        return p + 4;
    }
    if (signbit(v)) {
        *p++ = '-';
        v = -v;
    }
    if (v < 1e19 && v == (double)(uint64_t)v) { /* counts and other integers: exact */
        uint64_t u = (uint64_t)v;
        int n = 1;
        while (n < 19 && u >= powers_of_ten[n])
            n++;
        put_digits(p, u, n);
        return p + n;
    }
    uint64_t d;
    int x;
    if (!digits17(v, &d, &x))
        return put_number_printf(p, v);
    int n = 17;
    while (d % 10 == 0) {
        d /= 10;
        n--;
    }
    char text[17];
    put_digits(text, d, n);
    if (x < -4 || x >= 17) { /* as %g: d.ddde-XX */
        *p++ = text[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, text + 1, (size_t)n - 1);
            p += n - 1;
        }
        *p++ = 'e';
        *p++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        put_digits(p, (uint64_t)ax, ax >= 100 ? 3 : 2);
        return p + (ax >= 100 ? 3 : 2);
    }
    if (x < 0) { /* 0.000ddd */
        memcpy(p, "0.0000", (size_t)(1 - x));
        p += 1 - x;
        memcpy(p, text, (size_t)n);
        return p + n;
    }
    if (n <= x + 1) { /* no fraction: zeros up to the point */
        memcpy(p, text, (size_t)n);
        memset(p + n, '0', (size_t)(x + 1 - n));
        return p + x + 1;
    }
    memcpy(p, text, (size_t)x + 1);
    p += x + 1;
    *p++ = '.';
    memcpy(p, text + x + 1, (size_t)(n - x - 1));
    return p + n - x - 1;
}
