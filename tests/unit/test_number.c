/*
 * test_number.c - number parsing agrees bit for bit with strtod on every
 * form and on millions of random values, and formatting is the shortest
 * form that reads back exactly, whatever the caller's locale; the public
 * cube_parse_double reports text that is no number through its status.
 *
 * A test of internals: it includes core/number_private.h for the parser
 * and formatters behind cube_parse_double and cube_format_double.
 */
#define _GNU_SOURCE
#include "test_support.h"
#include "core/number_private.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static locale_t c_locale;

static int setup(void **state)
{
    (void)state;
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    return c_locale ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    freelocale(c_locale);
    return 0;
}

static void expect_same_as_strtod(const char *text)
{
    double ours = -12345.0;
    number_status st = parse_double_token(text, strlen(text), c_locale, &ours);
    double theirs = strtod_l(text, NULL, c_locale);
    if (st != NUMBER_OK)
        fail_msg("\"%s\" was not parsed", text);
    if (memcmp(&ours, &theirs, sizeof ours) != 0)
        fail_msg("\"%s\": %a, strtod says %a", text, ours, theirs);
}

/* a tiny deterministic generator: the test must give the same verdict on
 * every run */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double exact_power(uint64_t k)
{
    double p = 1;
    while (k--)
        p *= 10;
    return p;
}

static void test_forms(void **state)
{
    (void)state;
    const char *forms[] = {"0",      "-0",     "1",        "+3",     "1.5",   "-1.5",
                           ".5",     "5.",     "1.5e+00",  "2.5E0",  "1e-5",  "1E22",
                           "1e23",   "0x1.8p0", "123456789012345678", "1234567890123456789",
                           "12345678901234567890123", "0.1", "0.0029303148337717",
                           "1.9068058455113e-05", "4.9406564584124654e-324",
                           "1.7976931348623157e308", "2.2250738585072014e-308",
                           "9007199254740993", "0.30000000000000004", "1e-400"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        expect_same_as_strtod(forms[i]);
}

static void test_rejects(void **state)
{
    (void)state;
    double v;
    const char *malformed[] = {"1,5", "abc", "1.5x", "--1", "1e", "", "."};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++)
        assert_int_equal(parse_double_token(malformed[i], strlen(malformed[i]), c_locale, &v),
                         NUMBER_MALFORMED);
    const char *not_finite[] = {"nan", "NaN", "inf", "-inf", "infinity", "1e400"};
    for (size_t i = 0; i < sizeof not_finite / sizeof not_finite[0]; i++)
        assert_int_equal(parse_double_token(not_finite[i], strlen(not_finite[i]), c_locale, &v),
                         NUMBER_NOT_FINITE);
}

static void test_random_values_parse_exactly(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    char buf[64];
    for (int i = 0; i < 2000000; i++) {
        uint64_t r = next_random(&seed);
        double v;
        switch (i % 4) {
        case 0: /* any finite double, printed with 17 digits */
            memcpy(&v, &r, sizeof v);
            if (!isfinite(v))
                continue;
            snprintf(buf, sizeof buf, "%.17g", v);
            break;
        case 1: /* times of a profile: 1e-7 .. 1e4 with 12..19 digits */
            v = ldexp((double)(r >> 11), -53) * pow(10, (int)(r % 12) - 7);
            snprintf(buf, sizeof buf, "%.*g", 12 + (int)(r % 8), v);
            break;
        case 2: /* decimal strings near halfway points: many digits */
            snprintf(buf, sizeof buf, "%llu.%llue-%d", (unsigned long long)(r % 100000),
                     (unsigned long long)(r >> 20), (int)(r % 25));
            break;
        default: /* shortest forms as our writer prints them */
            v = ldexp((double)(r >> 11), (int)(r % 60) - 40);
            format_double_shortest(v, buf);
            break;
        }
        expect_same_as_strtod(buf);
    }
}

static void test_format_shortest_round_trips(void **state)
{
    (void)state;
    uint64_t seed = 42;
    char buf[CUBE_DOUBLE_BUFSIZE];
    for (int i = 0; i < 300000; i++) {
        uint64_t r = next_random(&seed);
        double v;
        memcpy(&v, &r, sizeof v);
        if (!isfinite(v))
            continue;
        int n = format_double_shortest(v, buf);
        assert_int_equal((size_t)n, strlen(buf));
        double back = strtod(buf, NULL);
        assert_memory_equal(&back, &v, sizeof v);
        /* shortest: one digit fewer does not read back (for non-integers) */
        if (v != floor(v) && n > 0) {
            char shorter[400];
            int digits = 0;
            for (const char *p = buf; *p && *p != 'e'; p++)
                digits += *p >= '0' && *p <= '9';
            snprintf(shorter, sizeof shorter, "%.*g", digits - 1 > 0 ? digits - 1 : 1, v);
            if (digits > 1 && strtod(shorter, NULL) == v && strlen(shorter) < (size_t)n)
                fail_msg("%s is not the shortest form of %a: %s is", buf, v, shorter);
        }
    }
    assert_int_equal(format_double_shortest(0.1, buf), 3);
    assert_string_equal(buf, "0.1");
    format_double_shortest(1e21, buf);
    assert_string_equal(buf, "1e+21");
    format_double_shortest(123456.0, buf);
    assert_string_equal(buf, "123456");
    format_double_shortest(-0.0, buf);
    assert_string_equal(buf, "-0");
}

static void test_fast_format_matches_printf(void **state)
{
    (void)state;
    /* the printf-free formatter gives exactly what the printf-based
     * reference gives, on values of every magnitude it handles */
    uint64_t seed = 7;
    char fast[CUBE_DOUBLE_BUFSIZE], slow[CUBE_DOUBLE_BUFSIZE];
    for (int i = 0; i < 1000000; i++) {
        uint64_t r = next_random(&seed);
        double v = ldexp((double)(r >> 11), -53) * pow(10, (int)(r % 24) - 8);
        if (r & 1)
            v = -v;
        if (i % 3 == 0) /* short decimals: 0.1, 2.5, 1e-5 and the like */
            v = (double)(r % 100000) / exact_power(r % 9);
        format_double_shortest(v, fast);
        format_double_shortest_slow(v, slow);
        if (strcmp(fast, slow) != 0)
            fail_msg("%a: fast \"%s\", printf \"%s\"", v, fast, slow);
    }
}

static void test_public_format_ignores_locale(void **state)
{
    (void)state;
    /* a program that switched to a comma locale still gets '.' */
    if (!setlocale(LC_NUMERIC, "de_DE.UTF-8") && !setlocale(LC_NUMERIC, "fr_FR.UTF-8"))
        skip();
    char buf[CUBE_DOUBLE_BUFSIZE];
    cube_format_double(1.5, buf);
    setlocale(LC_NUMERIC, "C");
    assert_string_equal(buf, "1.5");
}

static void test_public_parse_reports_through_status(void **state)
{
    (void)state;
    cube_status st;
    double v = 7.0;
    /* text that is not a finite number: -1, CUBE_EINVAL with a message, and
     * the output untouched */
    const char *bad[] = {"1,5", "abc", "", "nan", "1e400"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(cube_parse_double(bad[i], strlen(bad[i]), &v, &st), -1);
        assert_int_equal(st.code, CUBE_EINVAL);
        assert_true(st.message[0] != '\0');
        assert_true(v == 7.0);
    }
    /* exactly `len` bytes are read, and a success clears the status */
    assert_int_equal(cube_parse_double("16.5xyz", 4, &v, &st), 0);
    assert_int_equal(st.code, CUBE_OK);
    assert_string_equal(st.message, "");
    assert_true(v == 16.5);
    assert_int_equal(cube_parse_double("x", 1, &v, NULL), -1); /* NULL status allowed */
    assert_true(v == 16.5);
    /* the caller's locale does not matter */
    if (set_comma_locale()) {
        int rc = cube_parse_double("2.25", 4, &v, &st);
        setlocale(LC_NUMERIC, "C");
        assert_int_equal(rc, 0);
        assert_true(v == 2.25);
    }
}

static void test_ids(void **state)
{
    (void)state;
    int64_t id;
    long l;
    assert_int_equal(parse_id("0", &id), 0);
    assert_int_equal(id, 0);
    assert_int_equal(parse_id("9223372036854775807", &id), 0);
    assert_true(id == INT64_MAX);
    assert_int_equal(parse_id("9223372036854775808", &id), -1);
    assert_int_equal(parse_id("-1", &id), -1);
    assert_int_equal(parse_id("1a", &id), -1);
    assert_int_equal(parse_id("", &id), -1);
    assert_int_equal(parse_id(" 1", &id), -1);
    assert_int_equal(parse_long("-1", &l), 0);
    assert_int_equal(l, -1);
    assert_int_equal(parse_long("x", &l), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_random_values_parse_exactly),
        cmocka_unit_test(test_format_shortest_round_trips),
        cmocka_unit_test(test_fast_format_matches_printf),
        cmocka_unit_test(test_public_format_ignores_locale),
        cmocka_unit_test(test_public_parse_reports_through_status),
        cmocka_unit_test(test_ids),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
