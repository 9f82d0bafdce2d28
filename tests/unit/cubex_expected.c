/*
 * cubex_expected.c - comparing a stored CUBE 4 value with its form in the
 * expected-values files (see cubex_expected.h).
 */
#include "test_support.h"
#include "cubex_expected.h"

#include <string.h>

const char *const cubex_files[] = {
    "mkcubex_minimal",
    "cubelib-4.8.2_cube-values_example",
    "scorep-9.0dev_time-p4-n2000-x1-r0_profile",
    "scorep-1.4_kripke-p8-d2-g32-r1_profile",
    "scorep-9.4_cubew-4.8-checksum-bug_bt-mz_sum-p2-r1",
    "scorep-7.0_hw_counter_L3_DCA_negative",
    "scorep-8.4_call_tree_test",
    "cube3to4_scorep-1.1_profile",
    "cube3to4_tau2cube_template1",
    "cube3to4_cubelib-test1.1_equal_raw-amp",
    "cube3to4_scalasca-bgpBT_experiment1",
    "cubederive_scorep-1.1_profile",
    NULL};

static void expect_number(double got, const json *want, const char *where)
{
    double w = json_num(want);
    if (memcmp(&got, &w, sizeof got) != 0)
        fail_msg("%s: decoded %.17g, expected %s", where, got, want ? want->text : "nothing");
}

void cubex_expect_value(cubex_dtype t, int be, const unsigned char *src, const json *want,
                        const char *where)
{
    double v[CUBEX_SCALE_FUNC_SLOTS];
    assert_true(cubex_dtype_components(t) <= CUBEX_SCALE_FUNC_SLOTS);
    assert_int_equal(cubex_value_decode(t, be, src, v), 0);
    if (cubex_dtype_is_integer(t)) {
        int is_signed = t.kind == CUBEX_INT8 || t.kind == CUBEX_INT16 || t.kind == CUBEX_INT32
                        || t.kind == CUBEX_INT64;
        uint64_t got = cubex_value_int(t, be, src);
        uint64_t w = is_signed ? (uint64_t)json_i64(want) : json_u64(want);
        if (got != w)
            fail_msg("%s: decoded %llu, expected %s", where, (unsigned long long)got, want->text);
        assert_true(v[0] == (is_signed ? (double)(int64_t)got : (double)got));
        return;
    }
    if (t.kind == CUBEX_SCALE_FUNC) {
        const json *terms = json_get(want, "terms"), *meas = json_get(want, "measurements");
        assert_true(v[0] == (double)json_len(terms));
        assert_true(v[1] == (double)json_len(meas));
        const double *p = v + 2;
        for (size_t i = 0; i < json_len(terms); i++)
            for (size_t c = 0; c < 4; c++)
                expect_number(*p++, json_at(json_at(terms, i), c), where);
        for (size_t i = 0; i < json_len(meas); i++)
            for (size_t c = 0; c < 3; c++)
                expect_number(*p++, json_at(json_at(meas, i), c), where);
        return;
    }
    size_t n = cubex_dtype_components(t);
    if (n == 1) {
        expect_number(v[0], want, where);
        return;
    }
    if (json_len(want) != n)
        fail_msg("%s: %zu components, expected %zu", where, n, json_len(want));
    for (size_t c = 0; c < n; c++)
        expect_number(v[c], json_at(want, c), where);
}

