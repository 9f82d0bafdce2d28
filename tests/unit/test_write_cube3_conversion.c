/*
 * test_write_cube3_conversion.c - writing CUBE 3 from an experiment with
 * what only CUBE 4 holds: a deeper system tree is written as machine and
 * nodes, location types and parameters are dropped, a metric stored
 * call-tree inclusive is written as exclusive values, a derived metric as
 * VOID; one warning per kind of information, naming it; the file reads
 * back with the values a CUBE 3 reader expects.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* machine "bgq" -> rack "R00" -> nodecard "N00" -> process 0 (accelerator
 * group) with one GPU stream and process 1 with one thread; metric "time"
 * stored INCLUSIVE over main -> {foo, bar}, "visits" EXCLUSIVE, "ratio"
 * POSTDERIVED; foo has a parameter. */
static cube_t *deep_experiment(void)
{
    cube_t *c = cube_create();
    cube_metric *time = cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_metric *visits =
        cube_def_met(c, "Visits", "visits", "INTEGER", "occ", "", "", "", NULL);
    cube_metric *ratio = cube_def_met(c, "Ratio", "ratio", "FLOAT", "", "", "", "", NULL);
    assert_int_equal(cube_metric_set_type(c, time, CUBE_KIND_INCLUSIVE), 0);
    assert_int_equal(cube_metric_set_type(c, ratio, CUBE_KIND_POSTDERIVED), 0);
    assert_int_equal(cube_metric_set_expression(c, ratio, "metric::time()/2", NULL), 0);
    cube_region *rmain = cube_def_region(c, "main", 1, 9, "", "", "a.c");
    cube_region *rfoo = cube_def_region(c, "foo", 10, 19, "", "", "a.c");
    cube_region *rbar = cube_def_region(c, "bar", 20, 29, "", "", "a.c");
    cube_cnode *main_cn = cube_def_cnode(c, rmain, NULL);
    cube_cnode *foo = cube_def_cnode(c, rfoo, main_cn);
    cube_cnode *bar = cube_def_cnode(c, rbar, main_cn);
    assert_int_equal(cube_cnode_add_param(c, foo, "bytes", "1024", 1), 0);
    cube_machine *m = cube_def_mach(c, "bgq", "");
    cube_node *rack = cube_def_stn(c, "R00", "rack", NULL, m, NULL);
    cube_node *card = cube_def_stn(c, "N00", "nodecard", NULL, m, rack);
    assert_non_null(card);
    cube_process *p0 = cube_def_proc(c, "GPU 0", 0, card);
    cube_process *p1 = cube_def_proc(c, "rank 1", 1, card);
    assert_int_equal(cube_process_set_type(c, p0, CUBE_GROUP_ACCELERATOR), 0);
    cube_thread *gpu = cube_def_thrd(c, "stream 0", 0, p0);
    cube_thread *thr = cube_def_thrd(c, "thread 0", 0, p1);
    assert_int_equal(cube_thread_set_type(c, gpu, CUBE_LOCATION_GPU), 0);
    /* inclusive: main 10 / 20, foo 4 / 5, bar 1 / 7 */
    cube_set_sev(c, time, main_cn, gpu, 10), cube_set_sev(c, time, main_cn, thr, 20);
    cube_set_sev(c, time, foo, gpu, 4), cube_set_sev(c, time, foo, thr, 5);
    cube_set_sev(c, time, bar, gpu, 1), cube_set_sev(c, time, bar, thr, 7);
    cube_set_sev(c, visits, main_cn, gpu, 1), cube_set_sev(c, visits, foo, thr, 3);
    assert_int_equal(cube_error_code(c), CUBE_OK);
    return c;
}

static int has_warning(const cube_t *c, const char *part)
{
    for (size_t i = 0; i < cube_num_warnings(c); i++)
        if (strstr(cube_warning(c, i), part))
            return 1;
    return 0;
}

static void test_deep_experiment_to_cube3(void **state)
{
    (void)state;
    cube_t *c = deep_experiment();
    char *path = temp_path(".cube");
    assert_int_equal(cube_write_file(c, path, 0), 0);
    /* one warning per kind, naming what was folded or dropped */
    assert_true(has_warning(c, "1 system tree nodes below other nodes"));
    assert_true(has_warning(c, "1 location groups and 1 locations of other types"));
    assert_true(has_warning(c, "parameters of 1 call paths dropped"));
    assert_true(has_warning(c, "1 metrics stored inclusive (time)"));
    assert_true(has_warning(c, "1 derived metrics (ratio)"));
    assert_int_equal(cube_num_warnings(c), 5);

    cube_t *back = read_ok(path);
    /* both system tree nodes are nodes of the machine, in pre-order */
    assert_int_equal(cube_num_machines(back), 1);
    assert_int_equal(cube_num_nodes(back), 2);
    cube_machine *m = cube_get_machine(back, 0);
    assert_int_equal(cube_machine_num_nodes(m), 2);
    assert_string_equal(cube_node_name(cube_machine_node(m, 0)), "R00");
    assert_string_equal(cube_node_name(cube_machine_node(m, 1)), "N00");
    assert_int_equal(cube_node_num_processes(cube_machine_node(m, 1)), 2);
    assert_int_equal(cube_num_threads(back), 2);
    assert_int_equal(cube_thread_type(cube_get_thread(back, 0)), CUBE_LOCATION_THREAD);

    /* time as exclusive values: main 10-4-1, 20-5-7; leaves as they were */
    cube_metric *time = cube_find_metric(back, "time");
    assert_int_equal(cube_metric_type(time), CUBE_KIND_EXCLUSIVE);
    const cube_cnode *main_cn = cube_get_root_cnode(back, 0);
    const cube_thread *t0 = cube_get_thread(back, 0), *t1 = cube_get_thread(back, 1);
    assert_true(same_double(cube_get_sev(back, time, main_cn, t0), 5));
    assert_true(same_double(cube_get_sev(back, time, main_cn, t1), 8));
    assert_true(same_double(cube_get_sev(back, time, cube_cnode_child(main_cn, 0), t1), 5));
    assert_true(same_double(cube_get_sev(back, time, cube_cnode_child(main_cn, 1), t1), 7));
    cube_metric *visits = cube_find_metric(back, "visits");
    assert_true(same_double(cube_get_sev(back, visits, cube_cnode_child(main_cn, 0), t1), 3));
    /* the derived metric is there, without values */
    cube_metric *ratio = cube_find_metric(back, "ratio");
    assert_non_null(ratio);
    assert_true(cube_metric_is_void(ratio));
    assert_int_equal(cube_cnode_num_params(cube_cnode_child(main_cn, 0)), 0);

    unlink(path);
    free(path);
    cube_free(back);
    cube_free(c);
}

/* A CUBE 3 experiment gets no warning at all. */
static void test_cube3_experiment_no_warnings(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cube/scorep-1.1_profile.cube"));
    size_t before = cube_num_warnings(c);
    char *path = temp_path(".cube");
    assert_int_equal(cube_write_file(c, path, 0), 0);
    assert_int_equal(cube_num_warnings(c), before);
    unlink(path);
    free(path);
    cube_free(c);
}

/* Structured value types are named whatever else is said of the metric
 * (RATE stored inclusive is in both warnings). */
static void test_structured_types_named(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cubex/cubelib-4.8.2_cube-values_example.cubex"));
    size_t before = cube_num_warnings(c);
    char *path = temp_path(".cube");
    assert_int_equal(cube_write_file(c, path, 0), 0);
    int structured = 0, inclusive = 0;
    for (size_t i = before; i < cube_num_warnings(c); i++) {
        const char *w = cube_warning(c, i);
        if (strstr(w, "7 metrics of structured value types (RATE, TAU_ATOMIC, HISTOGRAM5, "
                      "NDOUBLES10, SCALE_FUNC3, COMPLEX, TAU_ATOMIC2)"))
            structured++;
        if (strstr(w, "metrics stored inclusive (") && strstr(w, "RATE"))
            inclusive++;
    }
    assert_int_equal(structured, 1);
    assert_int_equal(inclusive, 1);
    unlink(path);
    free(path);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deep_experiment_to_cube3),
        cmocka_unit_test(test_cube3_experiment_no_warnings),
        cmocka_unit_test(test_structured_types_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
