/*
 * test_version.c - the version macros of cube.h and cube_version(): one
 * version, the same in every form.
 */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

static void test_string_is_the_numbers(void **state)
{
    (void)state;
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", CUBE_VERSION_MAJOR, CUBE_VERSION_MINOR,
             CUBE_VERSION_PATCH);
    assert_string_equal(CUBE_VERSION_STRING, expected);
    assert_string_equal(LIBCUBE_VERSION, expected);
}

static void test_number_is_the_numbers(void **state)
{
    (void)state;
    assert_int_equal(CUBE_VERSION_NUMBER,
                     CUBE_VERSION_MAJOR * 10000 + CUBE_VERSION_MINOR * 100 + CUBE_VERSION_PATCH);
    /* the number compares like the version as long as MINOR and PATCH
     * stay below 100 */
    assert_true(CUBE_VERSION_MINOR >= 0 && CUBE_VERSION_MINOR < 100);
    assert_true(CUBE_VERSION_PATCH >= 0 && CUBE_VERSION_PATCH < 100);
}

static void test_library_reports_its_version(void **state)
{
    (void)state;
    assert_non_null(cube_version());
    assert_string_equal(cube_version(), CUBE_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_is_the_numbers),
        cmocka_unit_test(test_number_is_the_numbers),
        cmocka_unit_test(test_library_reports_its_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
