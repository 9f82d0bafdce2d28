/*
 * test_cubex_roundtrip.c - writing CUBE 4 loses nothing: every CUBE 4 test
 * file read, written as .cubex and read again is the same model (every
 * definition, id and order, every value bit for bit, what CUBE 4 adds to
 * CUBE 3), and writing it again gives the same bytes; every CUBE 3 test
 * file written as CUBE 4 and back as CUBE 3 is the original model.  The
 * archives we write follow the reference library's layout: CubeLib
 * padding, anchor.xml last, version 4.4.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const cubex_files[] = {
    "cubex/mkcubex_minimal.cubex",
    "cubex/cubelib-4.8.2_cube-values_example.cubex",
    "cubex/scorep-9.0dev_time-p4-n2000-x1-r0_profile.cubex",
    "cubex/scorep-1.4_kripke-p8-d2-g32-r1_profile.cubex",
    "cubex/scorep-9.4_cubew-4.8-checksum-bug_bt-mz_sum-p2-r1.cubex",
    "cubex/scorep-7.0_hw_counter_L3_DCA_negative.cubex",
    "cubex/scorep-8.4_call_tree_test.cubex",
    "cubex/cube3to4_scorep-1.1_profile.cubex",
    "cubex/cube3to4_tau2cube_template1.cubex",
    "cubex/cube3to4_cubelib-test1.1_equal_raw-amp.cubex",
    "cubex/cube3to4_scalasca-bgpBT_experiment1.cubex",
    "cubex/cubederive_scorep-1.1_profile.cubex",
    NULL};

static char *write_ok(cube_t *c, const char *suffix, unsigned flags)
{
    char *path = temp_path(suffix);
    if (cube_write_file(c, path, flags) != 0)
        fail_msg("writing %s failed: %s", path, cube_error(c));
    return path;
}

static void assert_same_bytes(const char *p, const char *q)
{
    size_t n1, n2;
    char *a = slurp(p, &n1), *b = slurp(q, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    free(a);
    free(b);
}

static void cubex_round_trip(const char *rel, unsigned flags)
{
    cube_t *original = read_ok(testdata(rel));
    char *first = write_ok(original, ".cubex", flags);
    cube_t *back = read_ok(first);
    assert_int_equal(cube_source_format(back), CUBE_FORMAT_CUBE4);
    assert_same_cube4_model(original, back);
    /* what we wrote comes back byte for byte, exact values included */
    char *second = write_ok(back, ".cubex", flags);
    assert_same_bytes(first, second);
    unlink(first), unlink(second);
    free(first), free(second);
    cube_free(original), cube_free(back);
}

static void test_cubex_files_round_trip(void **state)
{
    (void)state;
    for (const char *const *f = cubex_files; *f; f++)
        cubex_round_trip(*f, 0);
}

/* Compressed data members and a gzip-compressed anchor: the same model. */
static void test_cubex_files_round_trip_compressed(void **state)
{
    (void)state;
    for (const char *const *f = cubex_files; *f; f++)
        cubex_round_trip(*f, CUBE_WRITE_GZIP);
}

static void test_cube3_to_cube4_to_cube3(void **state)
{
    (void)state;
    for (const char *const *f = real_cube_files; *f; f++) {
        cube_t *original = read_ok(testdata(*f));
        char *x = write_ok(original, ".cubex", 0);
        cube_t *four = read_ok(x);
        assert_same_model(original, four);
        char *y = write_ok(four, ".cube", 0);
        cube_t *three = read_ok(y);
        assert_same_model(original, three);
        /* nothing CUBE 3 cannot hold: no warning on the way */
        assert_int_equal(cube_num_warnings(four), 0);
        unlink(x), unlink(y);
        free(x), free(y);
        cube_free(original), cube_free(four), cube_free(three);
    }
}

/* A row for every call path and thread of every metric, the doubles with
 * every kind of bit pattern: the rows of a DOUBLE metric are read straight
 * into the model's rows (plain data), the others decoded; every value
 * comes back bit for bit, plain and compressed. */
static void test_dense_rows(void **state)
{
    (void)state;
    const double specials[] = {-0.0, 5e-324, -1.7976931348623157e308, 0.1, 1.0 / 3.0, 1e-300};
    for (int gz = 0; gz < 2; gz++) {
        cube_t *c = read_ok(testdata("cubex/scorep-9.0dev_time-p4-n2000-x1-r0_profile.cubex"));
        size_t nt = cube_num_threads(c), doubles = 0, k = 0;
        assert_true(nt > 1);
        for (size_t m = 0; m < cube_num_metrics(c); m++) {
            cube_metric *met = cube_get_metric(c, m);
            if (cube_metric_is_derived(met))
                continue;
            int dbl = strcmp(cube_metric_dtype(met), "DOUBLE") == 0;
            doubles += dbl;
            for (size_t n = 0; n < cube_num_cnodes(c); n++)
                for (size_t t = 0; t < nt; t++, k++)
                    cube_set_sev(c, met, cube_get_cnode(c, n), cube_get_thread(c, t),
                                 dbl ? specials[k % 6] * (double)(k + 1) : (double)(k % 1000));
        }
        assert_true(doubles > 0);
        char *path = write_ok(c, ".cubex", gz ? CUBE_WRITE_GZIP : 0);
        cube_t *back = read_ok(path);
        assert_same_cube4_model(c, back);
        for (size_t m = 0; m < cube_num_metrics(c); m++) {
            const cube_metric *met = cube_get_metric(c, m);
            if (cube_metric_is_derived(met))
                continue;
            for (size_t n = 0; n < cube_num_cnodes(c); n++) {
                const double *a = cube_get_row(c, met, cube_get_cnode(c, n));
                const double *b = cube_get_row(back, cube_get_metric(back, m),
                                               cube_get_cnode(back, n));
                assert_non_null(a);
                assert_non_null(b);
                assert_memory_equal(a, b, nt * sizeof *a);
            }
        }
        unlink(path);
        free(path);
        cube_free(c), cube_free(back);
    }
}

/* The name says the format; the flags overrule it. */
static void test_format_by_name_and_flags(void **state)
{
    (void)state;
    assert_int_equal(cube_write_format("a.cubex", 0), CUBE_FORMAT_CUBE4);
    assert_int_equal(cube_write_format("a.cube", 0), CUBE_FORMAT_CUBE3);
    assert_int_equal(cube_write_format("a.cube.gz", 0), CUBE_FORMAT_CUBE3);
    assert_int_equal(cube_write_format("-", 0), CUBE_FORMAT_CUBE3);
    assert_int_equal(cube_write_format("-", CUBE_WRITE_CUBE4), CUBE_FORMAT_CUBE4);
    assert_int_equal(cube_write_format("a.cubex", CUBE_WRITE_CUBE3), CUBE_FORMAT_CUBE3);

    cube_t *c = read_ok(testdata("cube/tau2cube_template1.cube"));
    char *path = write_ok(c, ".out", CUBE_WRITE_CUBE4);
    size_t n;
    char *bytes = slurp(path, &n);
    /* a tar archive: the POSIX magic of the first header */
    assert_true(n > 512 && memcmp(bytes + 257, "ustar", 5) == 0);
    free(bytes);
    unlink(path);
    free(path);
    cube_free(c);
}

/* The layout the reference reader needs: every member's padding up to the
 * next block plus one more when its size is a multiple of 512, anchor.xml
 * the last member, version 4.4 with double quotes. */
static void test_reference_layout(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cubex/mkcubex_minimal.cubex"));
    char *path = write_ok(c, ".cubex", 0);
    size_t n;
    unsigned char *bytes = (unsigned char *)slurp(path, &n);
    size_t pos = 0;
    char last[101] = "";
    while (pos + 512 <= n && bytes[pos]) {
        memcpy(last, bytes + pos, 100);
        last[100] = '\0';
        unsigned long long size = strtoull((const char *)bytes + pos + 124, NULL, 8);
        if (strcmp(last, "anchor.xml") == 0)
            assert_non_null(strstr((const char *)bytes + pos + 512,
                                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">"));
        pos += 512 + (size / 512 + 1) * 512;
    }
    assert_string_equal(last, "anchor.xml");
    assert_true(pos + 1024 <= n); /* the two zero blocks that end it */
    free(bytes);
    unlink(path);
    free(path);
    cube_free(c);
}

/* A value its integer type cannot hold is never cut to the type's bytes:
 * the metric is written as DOUBLE, with a warning naming it; values the
 * type holds keep it. */
static void test_integer_out_of_range(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    cube_metric *small = cube_def_met(c, "Small", "small", "UINT8", "", "", "", "", NULL);
    cube_metric *neg = cube_def_met(c, "Negative", "negative", "UINT32", "", "", "", "", NULL);
    cube_metric *fits = cube_def_met(c, "Fits", "fits", "INT16", "", "", "", "", NULL);
    cube_region *r = cube_def_region(c, "main", -1, -1, "", "", "");
    cube_cnode *cn = cube_def_cnode(c, r, NULL);
    cube_machine *m = cube_def_mach(c, "m", "");
    cube_thread *t = cube_def_thrd(c, "t", 0, cube_def_proc(c, "p", 0, cube_def_node(c, "n", m)));
    cube_set_sev(c, small, cn, t, 300);
    cube_set_sev(c, neg, cn, t, -5);
    cube_set_sev(c, fits, cn, t, -32768);
    char *path = write_ok(c, ".cubex", 0);
    size_t warned = 0;
    for (size_t i = 0; i < cube_num_warnings(c); i++)
        warned += strstr(cube_warning(c, i), "written as DOUBLE") != NULL;
    assert_int_equal(warned, 2);
    cube_t *back = read_ok(path);
    const cube_metric *b_small = cube_find_metric(back, "small");
    const cube_metric *b_neg = cube_find_metric(back, "negative");
    const cube_metric *b_fits = cube_find_metric(back, "fits");
    assert_string_equal(cube_metric_dtype(b_small), "DOUBLE");
    assert_string_equal(cube_metric_dtype(b_neg), "DOUBLE");
    assert_string_equal(cube_metric_dtype(b_fits), "INT16");
    const cube_cnode *bcn = cube_get_cnode(back, 0);
    const cube_thread *bt = cube_get_thread(back, 0);
    assert_true(same_double(cube_get_sev(back, b_small, bcn, bt), 300));
    assert_true(same_double(cube_get_sev(back, b_neg, bcn, bt), -5));
    assert_true(same_double(cube_get_sev(back, b_fits, bcn, bt), -32768));
    unlink(path);
    free(path);
    cube_free(back);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cubex_files_round_trip),
        cmocka_unit_test(test_cubex_files_round_trip_compressed),
        cmocka_unit_test(test_cube3_to_cube4_to_cube3),
        cmocka_unit_test(test_dense_rows),
        cmocka_unit_test(test_format_by_name_and_flags),
        cmocka_unit_test(test_reference_layout),
        cmocka_unit_test(test_integer_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
