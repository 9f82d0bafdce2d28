/*
 * test_metric_totals.c - each metric's total from the stored severities:
 * cube_metric_totals, compensated, and infinite (not NaN) when a sum
 * overflows.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* One metric per value pair, one call path, two threads. */
static cube_t *two_threads(cube_metric **m, size_t nm, cube_cnode **n)
{
    cube_t *c = cube_create();
    assert_non_null(c);
    for (size_t i = 0; i < nm; i++)
        m[i] = cube_def_met(c, "M", i ? "other" : "time", "FLOAT", "sec", "", "", "", NULL);
    *n = cube_def_cnode(c, cube_def_region(c, "main", -1, -1, "", "", ""), NULL);
    cube_process *p = cube_def_proc(c, "P", 0, cube_def_node(c, "n", cube_def_mach(c, "m", "")));
    cube_def_thrd(c, "T0", 0, p);
    cube_def_thrd(c, "T1", 1, p);
    assert_string_equal(cube_error(c), "");
    return c;
}

static void test_totals_compensated(void **state)
{
    (void)state;
    /* 1 + 1e100 - 1e100 is 0 summed naively; the compensation keeps the 1 */
    cube_metric *m[1];
    cube_cnode *n;
    cube_t *c = two_threads(m, 1, &n);
    cube_set_sev(c, m[0], n, cube_get_thread(c, 0), 1);
    cube_set_sev(c, m[0], n, cube_get_thread(c, 1), 1e100);
    cube_cnode *n2 = cube_def_cnode(c, cube_cnode_callee(n), n);
    cube_set_sev(c, m[0], n2, cube_get_thread(c, 0), -1e100);
    double total;
    cube_status st;
    st.code = CUBE_ENOMEM;
    snprintf(st.message, sizeof st.message, "left over");
    assert_int_equal(cube_metric_totals(c, &total, &st), 0);
    assert_int_equal(st.code, CUBE_OK); /* a success clears the status */
    assert_string_equal(st.message, "");
    assert_true(total == 1);
    cube_free(c);
}

static void test_totals_overflow_to_infinity(void **state)
{
    (void)state;
    /* Finite values whose sum overflows: the total is +-infinity, not the
     * NaN of inf - inf in the compensation term. */
    cube_metric *m[2];
    cube_cnode *n;
    cube_t *c = two_threads(m, 2, &n);
    cube_set_sev(c, m[0], n, cube_get_thread(c, 0), 1e308);
    cube_set_sev(c, m[0], n, cube_get_thread(c, 1), 1e308);
    cube_set_sev(c, m[1], n, cube_get_thread(c, 0), -1e308);
    cube_set_sev(c, m[1], n, cube_get_thread(c, 1), -1e308);
    double totals[2];
    assert_int_equal(cube_metric_totals(c, totals, NULL), 0);
    assert_true(isinf(totals[0]) && totals[0] > 0);
    assert_true(isinf(totals[1]) && totals[1] < 0);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_totals_compensated),
        cmocka_unit_test(test_totals_overflow_to_infinity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
