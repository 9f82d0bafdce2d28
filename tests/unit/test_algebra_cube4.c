/*
 * test_algebra_cube4.c - the CUBE algebra on experiments with what CUBE 4
 * holds beyond CUBE 3: the first input's details kept in the result,
 * call paths split by parameters, system trees of any depth and of
 * different depths, location group and location types, metrics stored
 * inclusive in one input and exclusive in another (checked against values
 * computed by hand), derived metrics (no values, not compared) and the
 * value types of the results.
 *
 * A test of internals: no file format carries every model built here
 * (CUBE 3 holds no metric kinds, CUBE 4 no more than what libcube reads
 * back), so the experiments are combined in memory through
 * algebra_combine_models and algebra_compare_models (core/cube_private.h),
 * the same lining up and row pass as cube_combine and cube_compare.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include "core/cube_private.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* building and looking up                                                 */

static cube_metric *metric(cube_t *c, const char *uniq, const char *dtype, cube_metric_kind kind)
{
    cube_metric *m = cube_def_met(c, uniq, uniq, dtype, "sec", "", "", "", NULL);
    assert_non_null(m);
    assert_int_equal(cube_metric_set_type(c, m, kind), 0);
    return m;
}

/* One machine "M" with one node "N" holding process rank 0 with one
 * thread of rank 0: the system tree of most tests. */
static cube_thread *one_thread(cube_t *c)
{
    cube_machine *m = cube_def_mach(c, "M", "");
    cube_node *n = cube_def_node(c, "N", m);
    cube_process *p = cube_def_proc(c, "rank 0", 0, n);
    cube_thread *t = cube_def_thrd(c, "thread 0", 0, p);
    assert_non_null(t);
    return t;
}

static void assert_no_error(const cube_t *c)
{
    if (cube_error_code(c) != CUBE_OK)
        fail_msg("unexpected error: %s", cube_error(c));
}

static const char *const names[2] = {"a.cubex", "b.cubex"};

static cube_t *combine(cube_operation op, const cube_t *a, const cube_t *b,
                       cube_system_rule rule, cube_match match)
{
    const cube_t *inputs[2] = {a, b};
    cube_status st;
    cube_t *res = algebra_combine_models(op, inputs, names, 2, match, rule, &st);
    if (!res)
        fail_msg("combining failed: %s", st.message);
    return res;
}

static char *combine_error(cube_operation op, const cube_t *a, const cube_t *b,
                           cube_system_rule rule)
{
    const cube_t *inputs[2] = {a, b};
    cube_status st;
    cube_t *res = algebra_combine_models(op, inputs, names, 2, CUBE_MATCH_FULL, rule, &st);
    assert_null(res);
    assert_int_equal(st.code, CUBE_EMISMATCH);
    return strdup(st.message);
}

static int has_warning(const cube_t *c, const char *text)
{
    for (size_t i = 0; i < cube_num_warnings(c); i++)
        if (strstr(cube_warning(c, i), text))
            return 1;
    return 0;
}

static void assert_warning(const cube_t *c, const char *text)
{
    if (!has_warning(c, text)) {
        for (size_t i = 0; i < cube_num_warnings(c); i++)
            print_message("warning: %s\n", cube_warning(c, i));
        fail_msg("no warning with \"%s\"", text);
    }
}

static cube_cnode *child_named(const cube_t *c, const cube_cnode *parent, const char *callee,
                               size_t nth)
{
    size_t n = parent ? cube_cnode_num_children(parent) : cube_num_root_cnodes(c);
    for (size_t i = 0; i < n; i++) {
        cube_cnode *cn = parent ? cube_cnode_child(parent, i) : cube_get_root_cnode(c, i);
        if (strcmp(cube_region_name(cube_cnode_callee(cn)), callee) == 0 && nth-- == 0)
            return cn;
    }
    fail_msg("no call path '%s'", callee);
    return NULL;
}

/* The value of (metric, call path) at the result's thread of that process
 * rank and type, thread rank and type. */
static cube_thread *thread_of(const cube_t *c, int64_t prank, cube_group_type ptype,
                              int64_t trank, cube_location_type ttype)
{
    for (size_t i = 0; i < cube_num_threads(c); i++) {
        cube_thread *t = cube_get_thread(c, i);
        cube_process *p = cube_thread_process(t);
        if (cube_process_rank(p) == prank && cube_process_type(p) == ptype &&
            cube_thread_rank(t) == trank && cube_thread_type(t) == ttype)
            return t;
    }
    fail_msg("no thread %lld of type %d in process %lld of type %d", (long long)trank,
             (int)ttype, (long long)prank, (int)ptype);
    return NULL;
}

static double value(const cube_t *c, const char *uniq, const cube_cnode *cn, const cube_thread *t)
{
    cube_metric *m = cube_find_metric(c, uniq);
    assert_non_null(m);
    return cube_get_sev(c, m, cn, t);
}

/* ---------------------------------------------------------------------- */
/* the first input's details                                               */

/* Everything CUBE 4 adds to an entity comes from the first input that has
 * the entity; the archive's extra members and format from the first
 * input alone. */
static cube_t *detailed(int first)
{
    cube_t *c = cube_create();
    cube_metric *time = metric(c, "time", "DOUBLE", first ? CUBE_KIND_INCLUSIVE : CUBE_KIND_EXCLUSIVE);
    cube_metric_set_ghost(c, time, first);
    cube_metric_add_attr(c, time, "origin", first ? "A" : "B");
    cube_metric *avg = metric(c, "avg", "DOUBLE", CUBE_KIND_POSTDERIVED);
    cube_metric_set_expression(c, avg, first ? "metric::time()/2" : "metric::time()/3", "");
    cube_region *r = cube_def_region(c, "main", 1, 9, "", "", "main.c");
    cube_region_set_details(c, r, first ? "_main" : "main_b", first ? "compiler" : "user",
                            "function");
    cube_region_add_attr(c, r, "origin", first ? "A" : "B");
    cube_cnode *cn = cube_def_cnode_cs(c, r, "main.c", 3, NULL);
    cube_cnode_add_attr(c, cn, "origin", first ? "A" : "B");
    cube_machine *m = cube_def_mach(c, "M", "the machine");
    cube_machine_set_class(c, m, first ? "cluster" : "machine");
    cube_machine_add_attr(c, m, "origin", first ? "A" : "B");
    cube_node *n = cube_def_stn(c, "N", first ? "blade" : "node", first ? "node A" : "node B", m,
                                NULL);
    cube_node_add_attr(c, n, "origin", first ? "A" : "B");
    cube_process *p = cube_def_proc(c, "rank 0", 0, n);
    cube_process_add_attr(c, p, "origin", first ? "A" : "B");
    cube_thread *t = cube_def_thrd(c, "thread 0", 0, p);
    cube_thread_add_attr(c, t, "origin", first ? "A" : "B");
    cube_def_attr(c, "origin", first ? "A" : "B");
    cube_add_extra_member(c, first ? "remapping.spec" : "other.txt", "xyz", 3);
    cube_set_sev(c, time, cn, t, first ? 5.0 : 2.0);
    assert_int_equal(model_set_source(c, first ? CUBE_FORMAT_CUBE4 : CUBE_FORMAT_CUBE3,
                                      first ? "4.4" : "3.0"),
                     0);
    assert_no_error(c);
    return c;
}

static void test_first_inputs_details_kept(void **state)
{
    (void)state;
    cube_t *a = detailed(1), *b = detailed(0);
    cube_t *res = combine(CUBE_OP_DIFF, a, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);

    cube_metric *time = cube_find_metric(res, "time");
    assert_int_equal(cube_metric_type(time), CUBE_KIND_INCLUSIVE);
    assert_true(cube_metric_is_ghost(time));
    assert_int_equal(cube_metric_num_attrs(time), 1);
    assert_string_equal(cube_metric_attr_value(time, 0), "A");
    cube_metric *avg = cube_find_metric(res, "avg");
    assert_int_equal(cube_metric_type(avg), CUBE_KIND_POSTDERIVED);
    assert_string_equal(cube_metric_expression(avg), "metric::time()/2");

    cube_region *r = cube_get_region(res, 0);
    assert_string_equal(cube_region_mangled_name(r), "_main");
    assert_string_equal(cube_region_paradigm(r), "compiler");
    assert_string_equal(cube_region_role(r), "function");
    assert_int_equal(cube_region_num_attrs(r), 1);
    assert_string_equal(cube_region_attr_value(r, 0), "A");
    cube_cnode *cn = cube_get_cnode(res, 0);
    assert_int_equal(cube_num_cnodes(res), 1);
    assert_int_equal(cube_cnode_num_attrs(cn), 1);
    assert_string_equal(cube_cnode_attr_value(cn, 0), "A");

    cube_machine *m = cube_get_machine(res, 0);
    assert_string_equal(cube_machine_class(m), "cluster");
    assert_string_equal(cube_machine_attr_value(m, 0), "A");
    cube_node *n = cube_get_node(res, 0);
    assert_int_equal(cube_num_nodes(res), 1);
    assert_string_equal(cube_node_class(n), "blade");
    assert_string_equal(cube_node_descr(n), "node A");
    assert_string_equal(cube_node_attr_value(n, 0), "A");
    assert_string_equal(cube_process_attr_value(cube_get_process(res, 0), 0), "A");
    assert_string_equal(cube_thread_attr_value(cube_get_thread(res, 0), 0), "A");
    assert_int_equal(cube_process_num_attrs(cube_get_process(res, 0)), 1);
    assert_int_equal(cube_thread_num_attrs(cube_get_thread(res, 0)), 1);
    assert_string_equal(cube_get_attr(res, "origin"), "A");

    assert_int_equal(cube_num_extra_members(res), 1);
    assert_string_equal(cube_extra_member_name(res, 0), "remapping.spec");
    size_t size = 0;
    assert_memory_equal(cube_extra_member_data(res, 0, &size), "xyz", 3);
    assert_int_equal(size, 3);
    /* the result is written in the first input's format by default */
    assert_int_equal(cube_source_format(res), CUBE_FORMAT_CUBE4);
    assert_string_equal(cube_source_version(res), "4.4");

    /* B stores time exclusive: with one call path both kinds agree */
    assert_true(same_double(value(res, "time", cn, cube_get_thread(res, 0)), 3.0));
    assert_warning(res, "metric 'time' is stored EXCLUSIVE in b.cubex but INCLUSIVE in a.cubex");
    cube_free(res);

    /* the other way round, B's details */
    res = combine(CUBE_OP_MERGE, b, a, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    assert_int_equal(cube_metric_type(cube_find_metric(res, "time")), CUBE_KIND_EXCLUSIVE);
    assert_string_equal(cube_region_paradigm(cube_get_region(res, 0)), "user");
    assert_string_equal(cube_node_class(cube_get_node(res, 0)), "node");
    assert_string_equal(cube_extra_member_name(res, 0), "other.txt");
    assert_int_equal(cube_source_format(res), CUBE_FORMAT_CUBE3);
    cube_free(res);
    cube_free(a);
    cube_free(b);
}

/* ---------------------------------------------------------------------- */
/* call-path parameters                                                    */

/* main -> send twice, split by a parameter: B's numeric 8 is A's, B's
 * string "8" is a call path of its own. */
static cube_t *split_sends(int first)
{
    cube_t *c = cube_create();
    cube_metric *time = metric(c, "time", "DOUBLE", CUBE_KIND_EXCLUSIVE);
    cube_region *main_r = cube_def_region(c, "main", 1, 9, "", "", "main.c");
    cube_region *send = cube_def_region(c, "MPI_Send", -1, -1, "", "", "MPI");
    cube_cnode *root = cube_def_cnode_cs(c, main_r, "main.c", 1, NULL);
    cube_cnode *s1 = cube_def_cnode_cs(c, send, "main.c", 5, root);
    cube_cnode_add_param(c, s1, "bytes", "8", 1);
    cube_cnode *s2 = cube_def_cnode_cs(c, send, "main.c", 5, root);
    cube_cnode_add_param(c, s2, "bytes", first ? "1024" : "8", first);
    cube_thread *t = one_thread(c);
    cube_set_sev(c, time, s1, t, first ? 10.0 : 4.0);
    cube_set_sev(c, time, s2, t, first ? 20.0 : 1.0);
    assert_no_error(c);
    return c;
}

static void test_parameters_split_call_paths(void **state)
{
    (void)state;
    cube_t *a = split_sends(1), *b = split_sends(0);
    for (int byname = 0; byname < 2; byname++) {
        cube_t *res = combine(CUBE_OP_DIFF, a, b, CUBE_SYSTEM_AGREE,
                              byname ? CUBE_MATCH_NAME : CUBE_MATCH_FULL);
        cube_cnode *root = child_named(res, NULL, "main", 0);
        assert_int_equal(cube_cnode_num_children(root), 3);
        cube_thread *t = cube_get_thread(res, 0);
        cube_cnode *s8 = child_named(res, root, "MPI_Send", 0);
        cube_cnode *s1024 = child_named(res, root, "MPI_Send", 1);
        cube_cnode *s8s = child_named(res, root, "MPI_Send", 2);
        assert_int_equal(cube_cnode_num_params(s8), 1);
        assert_string_equal(cube_cnode_param_key(s8, 0), "bytes");
        assert_string_equal(cube_cnode_param_value(s8, 0), "8");
        assert_int_equal(cube_cnode_param_is_numeric(s8, 0), 1);
        assert_string_equal(cube_cnode_param_value(s1024, 0), "1024");
        assert_string_equal(cube_cnode_param_value(s8s, 0), "8");
        assert_int_equal(cube_cnode_param_is_numeric(s8s, 0), 0);
        assert_true(same_double(value(res, "time", s8, t), 6.0));
        assert_true(same_double(value(res, "time", s1024, t), 20.0));
        assert_true(same_double(value(res, "time", s8s, t), -1.0));
        cube_free(res);
    }
    cube_free(a);
    cube_free(b);
}

/* ---------------------------------------------------------------------- */
/* system trees                                                            */

/* Machine M, and below it the path of nodes `path` ("R0/N0": rack R0,
 * node N0 below it) for each process rank; each process has one thread,
 * whose value of "time" at the one call path is `base` + rank. */
static cube_t *placed(const char *const *paths, size_t nprocs, double base)
{
    cube_t *c = cube_create();
    cube_metric *time = metric(c, "time", "DOUBLE", CUBE_KIND_EXCLUSIVE);
    cube_cnode *cn = cube_def_cnode(c, cube_def_region(c, "main", 1, 9, "", "", "m.c"), NULL);
    cube_machine *m = cube_def_mach(c, "M", "");
    for (size_t r = 0; r < nprocs; r++) {
        cube_node *n = NULL;
        char buf[64];
        snprintf(buf, sizeof buf, "%s", paths[r]);
        for (char *name = strtok(buf, "/"); name; name = strtok(NULL, "/")) {
            cube_node *found = NULL;
            size_t count = n ? cube_node_num_children(n) : cube_machine_num_nodes(m);
            for (size_t i = 0; i < count && !found; i++) {
                cube_node *x = n ? cube_node_child(n, i) : cube_machine_node(m, i);
                if (strcmp(cube_node_name(x), name) == 0)
                    found = x;
            }
            n = found ? found : cube_def_stn(c, name, n ? "nodecard" : "rack", "", m, n);
        }
        cube_process *p = cube_def_proc(c, "rank", (int)r, n);
        cube_thread *t = cube_def_thrd(c, "thread", 0, p);
        cube_set_sev(c, time, cn, t, base + (double)r);
    }
    assert_no_error(c);
    return c;
}

static void test_deep_trees_agree(void **state)
{
    (void)state;
    static const char *const deep[] = {"R0/N0", "R0/N1"};
    cube_t *a = placed(deep, 2, 10), *b = placed(deep, 2, 1);
    cube_t *res = combine(CUBE_OP_DIFF, a, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    /* not flattened: one rack below the machine, two node cards below it */
    cube_machine *m = cube_get_machine(res, 0);
    assert_int_equal(cube_num_machines(res), 1);
    assert_int_equal(cube_num_nodes(res), 3);
    assert_int_equal(cube_machine_num_nodes(m), 1);
    cube_node *rack = cube_machine_node(m, 0);
    assert_string_equal(cube_node_name(rack), "R0");
    assert_string_equal(cube_node_class(rack), "rack");
    assert_int_equal(cube_node_num_children(rack), 2);
    for (size_t r = 0; r < 2; r++) {
        cube_process *p = cube_get_process(res, r);
        assert_int_equal(cube_process_rank(p), (int64_t)r);
        assert_ptr_equal(cube_node_parent(cube_process_node(p)), rack);
        assert_string_equal(cube_node_class(cube_process_node(p)), "nodecard");
        assert_true(same_double(value(res, "time", cube_get_cnode(res, 0), cube_get_thread(res, r)),
                                9.0));
    }
    cube_free(res);
    cube_free(b);

    /* rank 1 on another rack: the paths of names differ */
    static const char *const moved[] = {"R0/N0", "R1/N1"};
    b = placed(moved, 2, 1);
    char *message = combine_error(CUBE_OP_DIFF, a, b, CUBE_SYSTEM_AGREE);
    assert_non_null(strstr(message, "process rank 1 is on node 'R0/N1' of machine 'M' in a.cubex "
                                     "but on node 'R1/N1' of machine 'M' in b.cubex"));
    free(message);
    cube_free(a);
    cube_free(b);
}

/* A CUBE 3 tree (machine, node) and a deep one of the same run. */
static void test_mixed_depths(void **state)
{
    (void)state;
    static const char *const flat[] = {"N0", "N0"};
    static const char *const deep[] = {"R0/N0", "R0/N0"};
    cube_t *a = placed(flat, 2, 10), *b = placed(deep, 2, 1);

    char *message = combine_error(CUBE_OP_DIFF, a, b, CUBE_SYSTEM_AGREE);
    assert_non_null(strstr(message, "on node 'N0' of machine 'M' in a.cubex but on node 'R0/N0'"));
    free(message);

    /* -c: the first input's tree as it is, whichever it is */
    cube_t *res = combine(CUBE_OP_DIFF, a, b, CUBE_SYSTEM_FIRST, CUBE_MATCH_FULL);
    assert_int_equal(cube_num_nodes(res), 1);
    assert_null(cube_node_parent(cube_get_node(res, 0)));
    assert_int_equal(cube_num_threads(res), 2);
    for (size_t r = 0; r < 2; r++)
        assert_true(same_double(value(res, "time", cube_get_cnode(res, 0), cube_get_thread(res, r)),
                                9.0));
    cube_free(res);
    res = combine(CUBE_OP_DIFF, b, a, CUBE_SYSTEM_FIRST, CUBE_MATCH_FULL);
    assert_int_equal(cube_num_nodes(res), 2);
    cube_node *n0 = cube_process_node(cube_get_process(res, 0));
    assert_string_equal(cube_node_name(n0), "N0");
    assert_string_equal(cube_node_name(cube_node_parent(n0)), "R0");
    assert_true(same_double(value(res, "time", cube_get_cnode(res, 0), cube_get_thread(res, 1)),
                            -9.0));
    cube_free(res);

    /* -C: one virtual machine and node, as for CUBE 3 */
    res = combine(CUBE_OP_DIFF, b, a, CUBE_SYSTEM_COLLAPSE, CUBE_MATCH_FULL);
    assert_int_equal(cube_num_nodes(res), 1);
    assert_string_equal(cube_node_name(cube_get_node(res, 0)), "Virtual node");
    assert_int_equal(cube_num_processes(res), 2);
    cube_free(res);
    cube_free(a);
    cube_free(b);
}

/* Location groups by rank and type, locations by rank and type within
 * their group: A has, at rank 0, a process with a thread and a GPU stream
 * of rank 0 each, and an accelerator with a GPU stream; B only the
 * process with its thread. */
static cube_t *typed(int first)
{
    cube_t *c = cube_create();
    cube_metric *time = metric(c, "time", "DOUBLE", CUBE_KIND_EXCLUSIVE);
    cube_cnode *cn = cube_def_cnode(c, cube_def_region(c, "main", 1, 9, "", "", "m.c"), NULL);
    cube_machine *m = cube_def_mach(c, "M", "");
    cube_node *n = cube_def_node(c, "N", m);
    cube_process *p = cube_def_proc(c, "rank 0", 0, n);
    cube_thread *t = cube_def_thrd(c, "thread 0", 0, p);
    cube_set_sev(c, time, cn, t, first ? 5.0 : 2.0);
    if (first) {
        cube_thread *stream = cube_def_thrd(c, "stream 0", 0, p);
        cube_thread_set_type(c, stream, CUBE_LOCATION_GPU);
        cube_set_sev(c, time, cn, stream, 7.0);
        cube_process *gpu = cube_def_proc(c, "GPU 0", 0, n);
        cube_process_set_type(c, gpu, CUBE_GROUP_ACCELERATOR);
        cube_thread *gs = cube_def_thrd(c, "stream 0", 0, gpu);
        cube_thread_set_type(c, gs, CUBE_LOCATION_GPU);
        cube_set_sev(c, time, cn, gs, 9.0);
    }
    assert_no_error(c);
    return c;
}

static void test_location_types(void **state)
{
    (void)state;
    cube_t *a = typed(1), *b = typed(0);
    cube_t *res = combine(CUBE_OP_DIFF, a, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    assert_int_equal(cube_num_processes(res), 2);
    assert_int_equal(cube_num_threads(res), 3);
    const cube_cnode *cn = cube_get_cnode(res, 0);
    cube_thread *t = thread_of(res, 0, CUBE_GROUP_PROCESS, 0, CUBE_LOCATION_THREAD);
    cube_thread *s = thread_of(res, 0, CUBE_GROUP_PROCESS, 0, CUBE_LOCATION_GPU);
    cube_thread *g = thread_of(res, 0, CUBE_GROUP_ACCELERATOR, 0, CUBE_LOCATION_GPU);
    assert_true(same_double(value(res, "time", cn, t), 3.0));
    assert_true(same_double(value(res, "time", cn, s), 7.0));
    assert_true(same_double(value(res, "time", cn, g), 9.0));
    cube_free(res);

    /* -C keeps them apart too, named by type */
    res = combine(CUBE_OP_DIFF, b, a, CUBE_SYSTEM_COLLAPSE, CUBE_MATCH_FULL);
    assert_int_equal(cube_num_threads(res), 3);
    t = thread_of(res, 0, CUBE_GROUP_PROCESS, 0, CUBE_LOCATION_THREAD);
    s = thread_of(res, 0, CUBE_GROUP_PROCESS, 0, CUBE_LOCATION_GPU);
    g = thread_of(res, 0, CUBE_GROUP_ACCELERATOR, 0, CUBE_LOCATION_GPU);
    assert_string_equal(cube_thread_name(t), "Thread 0");
    assert_string_equal(cube_thread_name(s), "GPU 0");
    assert_string_equal(cube_process_name(cube_thread_process(g)), "Accelerator 0");
    assert_true(same_double(value(res, "time", cube_get_cnode(res, 0), t), -3.0));
    assert_true(same_double(value(res, "time", cube_get_cnode(res, 0), g), -9.0));
    cube_free(res);
    cube_free(a);
    cube_free(b);
}

/* ---------------------------------------------------------------------- */
/* metric kinds                                                            */

/* main -> foo -> bar, main -> baz on two threads, "time" stored as `kind`
 * with the exclusive values excl[call path][thread] (main, foo, bar, baz):
 * for INCLUSIVE and SIMPLE the sums of the subtrees are stored. */
static cube_t *kinds(cube_metric_kind kind, const double excl[4][2])
{
    cube_t *c = cube_create();
    cube_metric *time = metric(c, "time", "DOUBLE", kind);
    cube_cnode *main_c = cube_def_cnode(c, cube_def_region(c, "main", 1, 9, "", "", "m.c"), NULL);
    cube_cnode *foo = cube_def_cnode(c, cube_def_region(c, "foo", 1, 9, "", "", "m.c"), main_c);
    cube_cnode *bar = cube_def_cnode(c, cube_def_region(c, "bar", 1, 9, "", "", "m.c"), foo);
    cube_cnode *baz = cube_def_cnode(c, cube_def_region(c, "baz", 1, 9, "", "", "m.c"), main_c);
    cube_machine *m = cube_def_mach(c, "M", "");
    cube_process *p = cube_def_proc(c, "rank 0", 0, cube_def_node(c, "N", m));
    cube_thread *t[2] = {cube_def_thrd(c, "t0", 0, p), cube_def_thrd(c, "t1", 1, p)};
    int incl = kind != CUBE_KIND_EXCLUSIVE;
    for (int i = 0; i < 2; i++) {
        cube_set_sev(c, time, bar, t[i], excl[2][i]);
        cube_set_sev(c, time, baz, t[i], excl[3][i]);
        cube_set_sev(c, time, foo, t[i], excl[1][i] + (incl ? excl[2][i] : 0));
        cube_set_sev(c, time, main_c, t[i],
                     excl[0][i] + (incl ? excl[1][i] + excl[2][i] + excl[3][i] : 0));
    }
    assert_no_error(c);
    return c;
}

/* The values of "time" at main, foo, bar, baz on both threads. */
static void assert_time(const cube_t *res, const double expected[4][2])
{
    cube_cnode *main_c = child_named(res, NULL, "main", 0);
    cube_cnode *foo = child_named(res, main_c, "foo", 0);
    const cube_cnode *at[4] = {main_c, foo, child_named(res, foo, "bar", 0),
                               child_named(res, main_c, "baz", 0)};
    for (int c = 0; c < 4; c++)
        for (size_t t = 0; t < 2; t++) {
            double v = value(res, "time", at[c], cube_get_thread(res, t));
            if (!same_double(v, expected[c][t]))
                fail_msg("%s, thread %zu: %.17g, expected %.17g",
                         cube_region_name(cube_cnode_callee(at[c])), t, v, expected[c][t]);
        }
}

static const double excl_a[4][2] = {{1, 2}, {10, 20}, {100, 200}, {1000, 2000}};
static const double excl_b[4][2] = {{2, 3}, {20, 30}, {200, 300}, {3000, 4000}};

static void test_inclusive_converted_to_exclusive(void **state)
{
    (void)state;
    cube_t *a = kinds(CUBE_KIND_EXCLUSIVE, excl_a), *b = kinds(CUBE_KIND_INCLUSIVE, excl_b);
    cube_t *res = combine(CUBE_OP_DIFF, a, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    assert_int_equal(cube_metric_type(cube_find_metric(res, "time")), CUBE_KIND_EXCLUSIVE);
    /* B stores main (3222, 4333), foo (220, 330), bar (200, 300), baz
     * (3000, 4000); exclusive: main 3222 - 220 - 3000 = 2, ... */
    static const double diff[4][2] = {{-1, -1}, {-10, -10}, {-100, -100}, {-2000, -2000}};
    assert_time(res, diff);
    assert_warning(res, "metric 'time' is stored INCLUSIVE in b.cubex but EXCLUSIVE in a.cubex: "
                        "the values of b.cubex are converted to call-tree exclusive ones");
    cube_free(res);

    res = combine(CUBE_OP_MEAN, a, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    static const double mean[4][2] = {{1.5, 2.5}, {15, 25}, {150, 250}, {2000, 3000}};
    assert_time(res, mean);
    cube_free(res);

    /* merge: the row of the last input that has it, B's, as exclusive values */
    res = combine(CUBE_OP_MERGE, a, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    assert_time(res, excl_b);
    cube_free(res);
    cube_free(a);
    cube_free(b);
}

static void test_exclusive_converted_to_inclusive(void **state)
{
    (void)state;
    cube_t *a = kinds(CUBE_KIND_EXCLUSIVE, excl_a), *b = kinds(CUBE_KIND_INCLUSIVE, excl_b);
    cube_t *res = combine(CUBE_OP_DIFF, b, a, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    assert_int_equal(cube_metric_type(cube_find_metric(res, "time")), CUBE_KIND_INCLUSIVE);
    /* A inclusive: main (1111, 2222), foo (110, 220), bar (100, 200), baz
     * (1000, 2000); B's as above */
    static const double diff[4][2] = {{2111, 2111}, {110, 110}, {100, 100}, {2000, 2000}};
    assert_time(res, diff);
    assert_warning(res, "converted to call-tree inclusive ones");
    cube_free(res);

    /* SIMPLE is read as INCLUSIVE: nothing to convert */
    cube_t *s = kinds(CUBE_KIND_SIMPLE, excl_b);
    res = combine(CUBE_OP_DIFF, s, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    assert_false(has_warning(res, "converted"));
    static const double zero[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    assert_time(res, zero);
    cube_free(res);
    cube_free(s);
    cube_free(a);
    cube_free(b);
}

typedef struct {
    size_t count;
    char warnings[4][512];
    size_t num_warnings;
} compare_log;

static void count_difference(void *user, const char *what, const char *metric,
                             const char *call_path, long long process_rank, long long thread_rank,
                             double a, double b)
{
    compare_log *log = user;
    print_message("difference: %s %s %s %lld %lld %g %g\n", what, metric, call_path,
                  process_rank, thread_rank, a, b);
    log->count++;
}

static void keep_warning(void *user, const char *message)
{
    compare_log *log = user;
    if (log->num_warnings < 4)
        snprintf(log->warnings[log->num_warnings++], sizeof log->warnings[0], "%s", message);
}

static int compare(const cube_t *a, const cube_t *b, compare_log *log)
{
    cube_compare_options o;
    cube_compare_options_init(&o);
    o.warn = keep_warning;
    o.warn_user = log;
    memset(log, 0, sizeof *log);
    cube_status st;
    size_t n = 0;
    int rc = algebra_compare_models(a, b, names[0], names[1], CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE,
                                    &o, count_difference, log, &n, &st);
    if (rc < 0)
        fail_msg("comparing failed: %s", st.message);
    assert_int_equal(n, log->count);
    return rc;
}

static int logged(const compare_log *log, const char *text)
{
    for (size_t i = 0; i < log->num_warnings; i++)
        if (strstr(log->warnings[i], text))
            return 1;
    return 0;
}

/* The same values stored either way are equal; other values are not. */
static void test_compare_across_kinds(void **state)
{
    (void)state;
    cube_t *a = kinds(CUBE_KIND_EXCLUSIVE, excl_b), *b = kinds(CUBE_KIND_INCLUSIVE, excl_b);
    compare_log log;
    assert_int_equal(compare(a, b, &log), 0);
    assert_int_equal(compare(b, a, &log), 0);
    assert_true(logged(&log, "converted to call-tree inclusive ones"));
    cube_free(a);
    a = kinds(CUBE_KIND_EXCLUSIVE, excl_a);
    assert_int_equal(compare(a, b, &log), 1);
    assert_int_equal(log.count, 8);
    cube_free(a);
    cube_free(b);
}

/* ---------------------------------------------------------------------- */
/* derived metrics                                                         */

static cube_t *with_avg(int derived, double time_value)
{
    cube_t *c = cube_create();
    cube_metric *time = metric(c, "time", "DOUBLE", CUBE_KIND_EXCLUSIVE);
    cube_metric *avg = metric(c, "avg", "DOUBLE",
                              derived ? CUBE_KIND_POSTDERIVED : CUBE_KIND_EXCLUSIVE);
    if (derived)
        cube_metric_set_expression(c, avg, "metric::time()/metric::visits()", "");
    cube_metric *only = metric(c, derived ? "only_a" : "only_b", "DOUBLE",
                               CUBE_KIND_PREDERIVED_INCLUSIVE);
    cube_metric_set_expression(c, only, "1", "");
    cube_cnode *cn = cube_def_cnode(c, cube_def_region(c, "main", 1, 9, "", "", "m.c"), NULL);
    cube_thread *t = one_thread(c);
    cube_set_sev(c, time, cn, t, time_value);
    if (!derived)
        cube_set_sev(c, avg, cn, t, 42.0);
    assert_no_error(c);
    return c;
}

static void test_derived_metrics(void **state)
{
    (void)state;
    cube_t *a = with_avg(1, 5.0), *b = with_avg(0, 5.0);
    for (int op = CUBE_OP_DIFF; op <= CUBE_OP_MEAN; op++) {
        cube_t *res = combine((cube_operation)op, a, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
        cube_metric *avg = cube_find_metric(res, "avg");
        assert_int_equal(cube_metric_type(avg), CUBE_KIND_POSTDERIVED);
        assert_string_equal(cube_metric_expression(avg), "metric::time()/metric::visits()");
        /* no values: B's stored ones are not taken for the derived ones */
        assert_null(cube_get_row(res, avg, cube_get_cnode(res, 0)));
        assert_string_equal(cube_metric_expression(cube_find_metric(res, "only_b")), "1");
        for (size_t i = 0; i < cube_num_rows(res); i++) {
            cube_metric *m = NULL;
            cube_row_at(res, i, &m, NULL);
            assert_string_equal(cube_metric_uniq_name(m), "time");
        }
        assert_warning(res, "metric 'avg' is derived (POSTDERIVED) in a.cubex: the result lists "
                            "its expression without values");
        cube_free(res);
    }
    /* B first: B's stored avg has values, A has none to give */
    cube_t *res = combine(CUBE_OP_DIFF, b, a, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    assert_true(same_double(value(res, "avg", cube_get_cnode(res, 0), cube_get_thread(res, 0)),
                            42.0));
    assert_warning(res, "metric 'avg' is derived (POSTDERIVED) in b.cubex but stored in a.cubex");
    cube_free(res);

    /* not compared, and not a difference, even where only one has it */
    compare_log log;
    assert_int_equal(compare(a, b, &log), 0);
    assert_true(logged(&log, "metric 'avg' is derived (a CubePL expression, no stored values) "
                             "in a.cubex: not compared"));
    assert_true(logged(&log, "metric 'only_b' is derived"));
    assert_int_equal(compare(b, a, &log), 0);
    assert_true(logged(&log, "metric 'avg' is derived (a CubePL expression, no stored values) "
                             "in b.cubex: not compared"));
    cube_free(a);
    a = with_avg(1, 6.0);
    assert_int_equal(compare(a, b, &log), 1);
    assert_int_equal(log.count, 1);
    cube_free(a);
    cube_free(b);
}

/* ---------------------------------------------------------------------- */
/* value types                                                             */

static const char *const dtypes[] = {"UINT8",   "UNSIGNED INT", "INT32",      "INT64",
                                     "INTEGER", "uint32",       "MINDOUBLE",  "TAU_ATOMIC",
                                     "HISTOGRAM(4)", "UNSIGNED SHORT INT", "DOUBLE"};
enum { NUM_DTYPES = sizeof dtypes / sizeof dtypes[0] };

static cube_t *typed_values(double v)
{
    cube_t *c = cube_create();
    cube_cnode *cn = cube_def_cnode(c, cube_def_region(c, "main", 1, 9, "", "", "m.c"), NULL);
    cube_thread *t = one_thread(c);
    for (size_t i = 0; i < NUM_DTYPES; i++) {
        char uniq[32];
        snprintf(uniq, sizeof uniq, "m%zu", i);
        cube_metric *m = cube_def_met(c, uniq, uniq, dtypes[i], "", "", "", "", NULL);
        cube_set_sev(c, m, cn, t, v);
    }
    /* VOID: no values */
    cube_def_met(c, "void_u", "void_u", "UINT64", "", "VOID", "", "", NULL);
    cube_def_met(c, "void_tau", "void_tau", "TAU_ATOMIC", "", "VOID", "", "", NULL);
    assert_no_error(c);
    return c;
}

static const char *dtype_of(const cube_t *res, size_t i)
{
    char uniq[32];
    snprintf(uniq, sizeof uniq, "m%zu", i);
    return cube_metric_dtype(cube_find_metric(res, uniq));
}

static void test_value_types(void **state)
{
    (void)state;
    cube_t *a = typed_values(3.0), *b = typed_values(5.0);
    static const char *const diff[NUM_DTYPES] = {
        "INT64",   "INT64", "INT64",     "INT64",  "INTEGER", "int32",
        "MINDOUBLE", "DOUBLE", "DOUBLE", "INT64", "DOUBLE"};
    cube_t *res = combine(CUBE_OP_DIFF, a, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    for (size_t i = 0; i < NUM_DTYPES; i++) {
        assert_string_equal(dtype_of(res, i), diff[i]);
        /* every value subtracts as a number, MINDOUBLE's too */
        char uniq[32];
        snprintf(uniq, sizeof uniq, "m%zu", i);
        assert_true(same_double(value(res, uniq, cube_get_cnode(res, 0), cube_get_thread(res, 0)),
                                -2.0));
    }
    assert_warning(res, "structured value type TAU_ATOMIC of metric 'm7': combined as one number "
                        "per value (the one displayed), written as DOUBLE");
    assert_warning(res, "structured value type HISTOGRAM(4) of metric 'm8'");
    /* a VOID metric's type changes as any other's, but a structured one,
     * without values, stays and is not warned about */
    assert_string_equal(cube_metric_dtype(cube_find_metric(res, "void_u")), "INT64");
    assert_string_equal(cube_metric_dtype(cube_find_metric(res, "void_tau")), "TAU_ATOMIC");
    assert_false(has_warning(res, "void_tau"));
    cube_free(res);

    static const char *const mean[NUM_DTYPES] = {
        "FLOAT",   "FLOAT", "FLOAT",     "FLOAT",  "FLOAT", "FLOAT",
        "MINDOUBLE", "DOUBLE", "DOUBLE", "FLOAT", "DOUBLE"};
    res = combine(CUBE_OP_MEAN, a, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    for (size_t i = 0; i < NUM_DTYPES; i++)
        assert_string_equal(dtype_of(res, i), mean[i]);
    assert_true(same_double(value(res, "m6", cube_get_cnode(res, 0), cube_get_thread(res, 0)), 4.0));
    cube_free(res);

    /* merge copies values: integers stay, structured ones become DOUBLE */
    res = combine(CUBE_OP_MERGE, a, b, CUBE_SYSTEM_AGREE, CUBE_MATCH_FULL);
    assert_string_equal(dtype_of(res, 0), "UINT8");
    assert_string_equal(dtype_of(res, 7), "DOUBLE");
    cube_free(res);

    compare_log log;
    assert_int_equal(compare(a, a, &log), 0);
    assert_true(logged(&log, "structured value type TAU_ATOMIC of metric 'm7': compared by one "
                             "number per value"));
    cube_free(a);
    cube_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_inputs_details_kept),
        cmocka_unit_test(test_parameters_split_call_paths),
        cmocka_unit_test(test_deep_trees_agree),
        cmocka_unit_test(test_mixed_depths),
        cmocka_unit_test(test_location_types),
        cmocka_unit_test(test_inclusive_converted_to_exclusive),
        cmocka_unit_test(test_exclusive_converted_to_inclusive),
        cmocka_unit_test(test_compare_across_kinds),
        cmocka_unit_test(test_derived_metrics),
        cmocka_unit_test(test_value_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
