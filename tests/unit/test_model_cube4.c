/*
 * test_model_cube4.c - what the model holds beyond CUBE 3 (metric kinds
 * and CubePL programs, region details, call-path parameters, attributes
 * of single entities, system trees of any depth with classes, location
 * group and location types, extra archive members): the accessors and
 * setters on experiments built with the API, their answers to NULL and to
 * values outside an enumeration, and the defaults of a CUBE 3 file.
 */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

/* One of everything: a metric, a region, a call path, a machine with a
 * node, a process and a thread. */
typedef struct {
    cube_t *c;
    cube_metric *met;
    cube_region *reg;
    cube_cnode *cn;
    cube_machine *mach;
    cube_node *node;
    cube_process *proc;
    cube_thread *thrd;
} small;

static small build_small(void)
{
    small s;
    s.c = cube_create();
    assert_non_null(s.c);
    s.met = cube_def_met(s.c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    assert_non_null(s.met);
    s.reg = cube_def_region(s.c, "main", 1, 9, "", "", "main.c");
    assert_non_null(s.reg);
    s.cn = cube_def_cnode(s.c, s.reg, NULL);
    assert_non_null(s.cn);
    s.mach = cube_def_mach(s.c, "cluster", "");
    assert_non_null(s.mach);
    s.node = cube_def_node(s.c, "n0", s.mach);
    assert_non_null(s.node);
    s.proc = cube_def_proc(s.c, "rank 0", 0, s.node);
    assert_non_null(s.proc);
    s.thrd = cube_def_thrd(s.c, "thread 0", 0, s.proc);
    assert_non_null(s.thrd);
    return s;
}

/* The last call failed with CUBE_EINVAL and a message. */
static void assert_einval(const cube_t *c)
{
    assert_int_equal(cube_error_code(c), CUBE_EINVAL);
    assert_true(strlen(cube_error(c)) > 0);
}

static void assert_no_error(const cube_t *c)
{
    assert_int_equal(cube_error_code(c), CUBE_OK);
    assert_string_equal(cube_error(c), "");
}

static void test_enum_names(void **state)
{
    (void)state;
    static const char *const kinds[] = {"EXCLUSIVE",
                                        "INCLUSIVE",
                                        "SIMPLE",
                                        "PREDERIVED_EXCLUSIVE",
                                        "PREDERIVED_INCLUSIVE",
                                        "POSTDERIVED"};
    assert_int_equal(CUBE_KIND_EXCLUSIVE, 0);
    assert_int_equal(CUBE_KIND_POSTDERIVED, 5);
    for (int k = CUBE_KIND_EXCLUSIVE; k <= CUBE_KIND_POSTDERIVED; k++)
        assert_string_equal(cube_metric_kind_name((cube_metric_kind)k), kinds[k]);
    assert_string_equal(cube_metric_kind_name((cube_metric_kind)6), "");
    assert_string_equal(cube_metric_kind_name((cube_metric_kind)-1), "");

    assert_string_equal(cube_group_type_name(CUBE_GROUP_PROCESS), "process");
    assert_string_equal(cube_group_type_name(CUBE_GROUP_METRICS), "metrics");
    assert_string_equal(cube_group_type_name(CUBE_GROUP_ACCELERATOR), "accelerator");
    assert_string_equal(cube_group_type_name((cube_group_type)3), "");
    assert_string_equal(cube_group_type_name((cube_group_type)-1), "");

    assert_string_equal(cube_location_type_name(CUBE_LOCATION_THREAD), "thread");
    assert_string_equal(cube_location_type_name(CUBE_LOCATION_GPU), "gpu");
    assert_string_equal(cube_location_type_name(CUBE_LOCATION_METRIC), "metric");
    assert_string_equal(cube_location_type_name((cube_location_type)3), "");
    assert_string_equal(cube_location_type_name((cube_location_type)-1), "");
}

/* Every accessor given NULL answers as the header says, and no setter
 * given a NULL handle crashes. */
static void test_null_entities(void **state)
{
    (void)state;
    assert_int_equal(cube_metric_type(NULL), CUBE_KIND_EXCLUSIVE);
    assert_int_equal(cube_metric_is_derived(NULL), 0);
    assert_int_equal(cube_metric_is_ghost(NULL), 0);
    assert_string_equal(cube_metric_expression(NULL), "");
    assert_string_equal(cube_metric_init_expression(NULL), "");
    assert_int_equal(cube_metric_num_aggr_expressions(NULL), 0);
    assert_null(cube_metric_aggr_expression(NULL, 0));
    assert_null(cube_metric_aggr_operator(NULL, 0));
    assert_string_equal(cube_region_mangled_name(NULL), "");
    assert_string_equal(cube_region_paradigm(NULL), "");
    assert_string_equal(cube_region_role(NULL), "");
    assert_int_equal(cube_cnode_num_params(NULL), 0);
    assert_null(cube_cnode_param_key(NULL, 0));
    assert_null(cube_cnode_param_value(NULL, 0));
    assert_int_equal(cube_cnode_param_is_numeric(NULL, 0), 0);
    assert_string_equal(cube_machine_class(NULL), "");
    assert_string_equal(cube_node_class(NULL), "");
    assert_string_equal(cube_node_descr(NULL), "");
    assert_null(cube_node_parent(NULL));
    assert_int_equal(cube_node_num_children(NULL), 0);
    assert_null(cube_node_child(NULL, 0));
    assert_int_equal(cube_process_type(NULL), CUBE_GROUP_PROCESS);
    assert_int_equal(cube_thread_type(NULL), CUBE_LOCATION_THREAD);
    assert_int_equal(cube_metric_num_attrs(NULL), 0);
    assert_null(cube_metric_attr_key(NULL, 0));
    assert_null(cube_metric_attr_value(NULL, 0));
    assert_int_equal(cube_region_num_attrs(NULL), 0);
    assert_int_equal(cube_cnode_num_attrs(NULL), 0);
    assert_int_equal(cube_machine_num_attrs(NULL), 0);
    assert_int_equal(cube_node_num_attrs(NULL), 0);
    assert_int_equal(cube_process_num_attrs(NULL), 0);
    assert_int_equal(cube_thread_num_attrs(NULL), 0);
    assert_null(cube_thread_attr_key(NULL, 0));
    assert_null(cube_thread_attr_value(NULL, 0));
    assert_int_equal(cube_num_extra_members(NULL), 0);
    assert_null(cube_extra_member_name(NULL, 0));
    size_t size = 99;
    assert_null(cube_extra_member_data(NULL, 0, &size));
    assert_int_equal(size, 0);
    assert_int_equal(cube_source_format(NULL), CUBE_FORMAT_NONE);
    assert_string_equal(cube_source_version(NULL), "");

    small s = build_small();
    assert_int_equal(cube_metric_set_type(NULL, s.met, CUBE_KIND_INCLUSIVE), -1);
    assert_int_equal(cube_metric_type(s.met), CUBE_KIND_EXCLUSIVE);
    assert_int_equal(cube_metric_set_ghost(NULL, s.met, 1), -1);
    assert_int_equal(cube_metric_set_expression(NULL, s.met, "x", NULL), -1);
    assert_int_equal(cube_metric_add_aggr_expression(NULL, s.met, "plus", "x"), -1);
    assert_int_equal(cube_region_set_details(NULL, s.reg, "m", "p", "r"), -1);
    assert_int_equal(cube_cnode_add_param(NULL, s.cn, "k", "v", 0), -1);
    assert_int_equal(cube_machine_set_class(NULL, s.mach, "rack"), -1);
    assert_null(cube_def_stn(NULL, "x", "rack", "", s.mach, NULL));
    assert_int_equal(cube_node_set_class(NULL, s.node, "rack"), -1);
    assert_int_equal(cube_process_set_type(NULL, s.proc, CUBE_GROUP_METRICS), -1);
    assert_int_equal(cube_thread_set_type(NULL, s.thrd, CUBE_LOCATION_GPU), -1);
    assert_int_equal(cube_metric_add_attr(NULL, s.met, "k", "v"), -1);
    assert_int_equal(cube_thread_add_attr(NULL, s.thrd, "k", "v"), -1);
    assert_int_equal(cube_add_extra_member(NULL, "x", "y", 1), -1);
    assert_int_equal(cube_metric_num_attrs(s.met), 0);
    assert_int_equal(cube_num_extra_members(s.c), 0);
    assert_int_equal(cube_num_nodes(s.c), 1);
    cube_free(s.c);
}

/* A setter given no entity fails with CUBE_EINVAL and changes nothing. */
static void test_setters_without_entity(void **state)
{
    (void)state;
    small s = build_small();
    assert_int_equal(cube_metric_set_type(s.c, NULL, CUBE_KIND_INCLUSIVE), -1);
    assert_einval(s.c);
    assert_int_equal(cube_metric_set_ghost(s.c, NULL, 1), -1);
    assert_einval(s.c);
    assert_int_equal(cube_metric_set_expression(s.c, NULL, "x", "y"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_metric_add_aggr_expression(s.c, NULL, "plus", "x"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_region_set_details(s.c, NULL, "m", "p", "r"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_cnode_add_param(s.c, NULL, "k", "v", 1), -1);
    assert_einval(s.c);
    assert_int_equal(cube_machine_set_class(s.c, NULL, "rack"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_node_set_class(s.c, NULL, "rack"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_process_set_type(s.c, NULL, CUBE_GROUP_METRICS), -1);
    assert_einval(s.c);
    assert_int_equal(cube_thread_set_type(s.c, NULL, CUBE_LOCATION_GPU), -1);
    assert_einval(s.c);
    assert_null(cube_def_stn(s.c, "rack", "rack", "", NULL, NULL));
    assert_einval(s.c);
    assert_int_equal(cube_num_nodes(s.c), 1);
    assert_int_equal(cube_metric_add_attr(s.c, NULL, "k", "v"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_region_add_attr(s.c, NULL, "k", "v"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_cnode_add_attr(s.c, NULL, "k", "v"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_machine_add_attr(s.c, NULL, "k", "v"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_node_add_attr(s.c, NULL, "k", "v"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_process_add_attr(s.c, NULL, "k", "v"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_thread_add_attr(s.c, NULL, "k", "v"), -1);
    assert_einval(s.c);
    /* an attribute needs a key; a NULL value is the empty string */
    assert_int_equal(cube_metric_add_attr(s.c, s.met, NULL, "v"), -1);
    assert_einval(s.c);
    assert_int_equal(cube_metric_num_attrs(s.met), 0);
    assert_int_equal(cube_metric_add_attr(s.c, s.met, "k", NULL), 0);
    assert_no_error(s.c);
    assert_string_equal(cube_metric_attr_value(s.met, 0), "");
    cube_free(s.c);
}

static void test_metric_kinds(void **state)
{
    (void)state;
    small s = build_small();
    assert_int_equal(cube_metric_type(s.met), CUBE_KIND_EXCLUSIVE);
    assert_int_equal(cube_metric_is_derived(s.met), 0);
    assert_int_equal(cube_metric_is_ghost(s.met), 0);
    for (int k = CUBE_KIND_EXCLUSIVE; k <= CUBE_KIND_POSTDERIVED; k++) {
        assert_int_equal(cube_metric_set_type(s.c, s.met, (cube_metric_kind)k), 0);
        assert_no_error(s.c);
        assert_int_equal(cube_metric_type(s.met), k);
        assert_int_equal(cube_metric_is_derived(s.met), k >= CUBE_KIND_PREDERIVED_EXCLUSIVE);
    }
    /* outside the enumeration: refused, the kind stays */
    assert_int_equal(cube_metric_set_type(s.c, s.met, (cube_metric_kind)6), -1);
    assert_einval(s.c);
    assert_int_equal(cube_metric_set_type(s.c, s.met, (cube_metric_kind)-1), -1);
    assert_einval(s.c);
    assert_int_equal(cube_metric_type(s.met), CUBE_KIND_POSTDERIVED);
    /* the next successful call clears the error */
    assert_int_equal(cube_metric_set_type(s.c, s.met, CUBE_KIND_INCLUSIVE), 0);
    assert_no_error(s.c);
    assert_int_equal(cube_metric_type(s.met), CUBE_KIND_INCLUSIVE);

    assert_int_equal(cube_metric_set_ghost(s.c, s.met, 7), 0);
    assert_int_equal(cube_metric_is_ghost(s.met), 1);
    assert_int_equal(cube_metric_set_ghost(s.c, s.met, 0), 0);
    assert_int_equal(cube_metric_is_ghost(s.met), 0);
    cube_free(s.c);
}

static void test_metric_expressions(void **state)
{
    (void)state;
    small s = build_small();
    assert_string_equal(cube_metric_expression(s.met), "");
    assert_string_equal(cube_metric_init_expression(s.met), "");
    assert_int_equal(cube_metric_num_aggr_expressions(s.met), 0);
    assert_null(cube_metric_aggr_expression(s.met, 0));
    assert_null(cube_metric_aggr_operator(s.met, 0));

    assert_int_equal(cube_metric_set_expression(s.c, s.met, "metric::time(i)/2", "{ x = 0; }"), 0);
    assert_string_equal(cube_metric_expression(s.met), "metric::time(i)/2");
    assert_string_equal(cube_metric_init_expression(s.met), "{ x = 0; }");
    /* NULL keeps what is there; "" replaces it */
    assert_int_equal(cube_metric_set_expression(s.c, s.met, NULL, ""), 0);
    assert_string_equal(cube_metric_expression(s.met), "metric::time(i)/2");
    assert_string_equal(cube_metric_init_expression(s.met), "");
    assert_int_equal(cube_metric_set_expression(s.c, s.met, "1", NULL), 0);
    assert_string_equal(cube_metric_expression(s.met), "1");

    assert_int_equal(cube_metric_add_aggr_expression(s.c, s.met, "plus", "arg1 + arg2"), 0);
    assert_int_equal(cube_metric_add_aggr_expression(s.c, s.met, "minus", "arg1 - arg2"), 0);
    assert_int_equal(cube_metric_add_aggr_expression(s.c, s.met, NULL, "max(arg1, arg2)"), 0);
    assert_int_equal(cube_metric_add_aggr_expression(s.c, s.met, "", NULL), 0);
    assert_no_error(s.c);
    assert_int_equal(cube_metric_num_aggr_expressions(s.met), 4);
    assert_string_equal(cube_metric_aggr_expression(s.met, 0), "arg1 + arg2");
    assert_string_equal(cube_metric_aggr_operator(s.met, 0), "plus");
    assert_string_equal(cube_metric_aggr_expression(s.met, 1), "arg1 - arg2");
    assert_string_equal(cube_metric_aggr_operator(s.met, 1), "minus");
    assert_string_equal(cube_metric_aggr_expression(s.met, 2), "max(arg1, arg2)");
    assert_string_equal(cube_metric_aggr_operator(s.met, 2), "");
    assert_string_equal(cube_metric_aggr_expression(s.met, 3), "");
    assert_string_equal(cube_metric_aggr_operator(s.met, 3), "");
    assert_null(cube_metric_aggr_expression(s.met, 4));
    assert_null(cube_metric_aggr_operator(s.met, 4));

    /* many of them: the array grows and keeps the earlier ones */
    char text[32];
    for (int i = 0; i < 40; i++) {
        snprintf(text, sizeof text, "e%d", i);
        assert_int_equal(cube_metric_add_aggr_expression(s.c, s.met, "aggr", text), 0);
    }
    assert_int_equal(cube_metric_num_aggr_expressions(s.met), 44);
    assert_string_equal(cube_metric_aggr_expression(s.met, 0), "arg1 + arg2");
    assert_string_equal(cube_metric_aggr_expression(s.met, 43), "e39");
    assert_string_equal(cube_metric_aggr_operator(s.met, 43), "aggr");
    cube_free(s.c);
}

static void test_region_details(void **state)
{
    (void)state;
    small s = build_small();
    /* not given: the mangled name is the name, paradigm and role empty */
    assert_string_equal(cube_region_mangled_name(s.reg), "main");
    assert_string_equal(cube_region_paradigm(s.reg), "");
    assert_string_equal(cube_region_role(s.reg), "");
    assert_int_equal(cube_region_set_details(s.c, s.reg, "_Z4mainv", "compiler", "function"), 0);
    assert_no_error(s.c);
    assert_string_equal(cube_region_mangled_name(s.reg), "_Z4mainv");
    assert_string_equal(cube_region_paradigm(s.reg), "compiler");
    assert_string_equal(cube_region_role(s.reg), "function");
    assert_string_equal(cube_region_name(s.reg), "main");
    /* NULL keeps each one */
    assert_int_equal(cube_region_set_details(s.c, s.reg, NULL, "user", NULL), 0);
    assert_string_equal(cube_region_mangled_name(s.reg), "_Z4mainv");
    assert_string_equal(cube_region_paradigm(s.reg), "user");
    assert_string_equal(cube_region_role(s.reg), "function");
    assert_int_equal(cube_region_set_details(s.c, s.reg, NULL, NULL, "loop"), 0);
    assert_string_equal(cube_region_paradigm(s.reg), "user");
    assert_string_equal(cube_region_role(s.reg), "loop");
    cube_free(s.c);
}

static void test_cnode_params(void **state)
{
    (void)state;
    small s = build_small();
    assert_int_equal(cube_cnode_num_params(s.cn), 0);
    assert_int_equal(cube_cnode_add_param(s.c, s.cn, "bytes", "1024", 1), 0);
    assert_int_equal(cube_cnode_add_param(s.c, s.cn, "comm", "MPI_COMM_WORLD", 0), 0);
    assert_int_equal(cube_cnode_add_param(s.c, s.cn, "bytes", "2048", 5), 0);
    assert_int_equal(cube_cnode_add_param(s.c, s.cn, NULL, NULL, 0), 0);
    assert_no_error(s.c);
    assert_int_equal(cube_cnode_num_params(s.cn), 4);
    assert_string_equal(cube_cnode_param_key(s.cn, 0), "bytes");
    assert_string_equal(cube_cnode_param_value(s.cn, 0), "1024");
    assert_int_equal(cube_cnode_param_is_numeric(s.cn, 0), 1);
    assert_string_equal(cube_cnode_param_key(s.cn, 1), "comm");
    assert_string_equal(cube_cnode_param_value(s.cn, 1), "MPI_COMM_WORLD");
    assert_int_equal(cube_cnode_param_is_numeric(s.cn, 1), 0);
    /* a repeated key is a parameter of its own; any non-zero is numeric */
    assert_string_equal(cube_cnode_param_key(s.cn, 2), "bytes");
    assert_string_equal(cube_cnode_param_value(s.cn, 2), "2048");
    assert_int_equal(cube_cnode_param_is_numeric(s.cn, 2), 1);
    assert_string_equal(cube_cnode_param_key(s.cn, 3), "");
    assert_string_equal(cube_cnode_param_value(s.cn, 3), "");
    assert_null(cube_cnode_param_key(s.cn, 4));
    assert_null(cube_cnode_param_value(s.cn, 4));
    assert_int_equal(cube_cnode_param_is_numeric(s.cn, 4), 0);
    cube_free(s.c);
}

/* machine -> rack -> midplane -> nodecard (x2) with processes on the
 * deepest level, beside a CUBE 3 node of the same machine. */
static void test_system_tree_depth(void **state)
{
    (void)state;
    small s = build_small();
    assert_string_equal(cube_machine_class(s.mach), "machine");
    assert_string_equal(cube_node_class(s.node), "node");
    assert_string_equal(cube_node_descr(s.node), "");
    assert_null(cube_node_parent(s.node));
    assert_int_equal(cube_node_num_children(s.node), 0);
    assert_null(cube_node_child(s.node, 0));

    cube_node *rack = cube_def_stn(s.c, "R00", "rack", "rack 0", s.mach, NULL);
    assert_non_null(rack);
    assert_no_error(s.c);
    cube_node *mid = cube_def_stn(s.c, "R00-M0", "midplane", NULL, s.mach, rack);
    assert_non_null(mid);
    cube_node *card[2];
    card[0] = cube_def_stn(s.c, "R00-M0-N00", "nodecard", "", s.mach, mid);
    card[1] = cube_def_stn(s.c, "R00-M0-N01", NULL, NULL, s.mach, mid);
    assert_non_null(card[0]);
    assert_non_null(card[1]);
    cube_process *p = cube_def_proc(s.c, "rank 1", 1, card[1]);
    assert_non_null(p);
    cube_thread *t = cube_def_thrd(s.c, "thread 0", 0, p);
    assert_non_null(t);

    /* the machine lists its direct children only, the handle every node */
    assert_int_equal(cube_machine_num_nodes(s.mach), 2);
    assert_ptr_equal(cube_machine_node(s.mach, 0), s.node);
    assert_ptr_equal(cube_machine_node(s.mach, 1), rack);
    assert_int_equal(cube_num_nodes(s.c), 5);
    assert_ptr_equal(cube_get_node(s.c, 1), rack);
    assert_ptr_equal(cube_get_node(s.c, 4), card[1]);
    assert_int_equal(cube_node_index(card[1]), 4);

    assert_null(cube_node_parent(rack));
    assert_int_equal(cube_node_num_children(rack), 1);
    assert_ptr_equal(cube_node_child(rack, 0), mid);
    assert_ptr_equal(cube_node_parent(mid), rack);
    assert_int_equal(cube_node_num_children(mid), 2);
    assert_ptr_equal(cube_node_child(mid, 0), card[0]);
    assert_ptr_equal(cube_node_child(mid, 1), card[1]);
    assert_null(cube_node_child(mid, 2));
    for (size_t i = 0; i < 2; i++) {
        assert_ptr_equal(cube_node_parent(card[i]), mid);
        assert_int_equal(cube_node_num_children(card[i]), 0);
    }
    /* every node knows the root of its tree */
    for (size_t i = 0; i < cube_num_nodes(s.c); i++)
        assert_ptr_equal(cube_node_machine(cube_get_node(s.c, i)), s.mach);

    assert_string_equal(cube_node_class(rack), "rack");
    assert_string_equal(cube_node_descr(rack), "rack 0");
    assert_string_equal(cube_node_class(mid), "midplane");
    assert_string_equal(cube_node_descr(mid), "");
    assert_string_equal(cube_node_class(card[0]), "nodecard");
    assert_string_equal(cube_node_class(card[1]), "node");
    assert_string_equal(cube_node_name(card[1]), "R00-M0-N01");

    /* processes and threads below the deepest level */
    assert_int_equal(cube_node_num_processes(card[1]), 1);
    assert_ptr_equal(cube_process_node(p), card[1]);
    assert_int_equal(cube_node_num_processes(mid), 0);
    assert_int_equal(cube_num_threads(s.c), 2);
    assert_ptr_equal(cube_get_thread(s.c, 1), t);

    /* classes change; NULL keeps the class */
    assert_int_equal(cube_node_set_class(s.c, card[1], "nodecard"), 0);
    assert_string_equal(cube_node_class(card[1]), "nodecard");
    assert_int_equal(cube_node_set_class(s.c, card[1], NULL), 0);
    assert_string_equal(cube_node_class(card[1]), "nodecard");
    assert_int_equal(cube_machine_set_class(s.c, s.mach, "system"), 0);
    assert_string_equal(cube_machine_class(s.mach), "system");
    assert_int_equal(cube_machine_set_class(s.c, s.mach, NULL), 0);
    assert_string_equal(cube_machine_class(s.mach), "system");

    /* a parent of another machine is refused, and nothing is added */
    cube_machine *other = cube_def_mach(s.c, "other", "");
    assert_non_null(other);
    assert_null(cube_def_stn(s.c, "stray", "node", "", other, mid));
    assert_einval(s.c);
    assert_int_equal(cube_num_nodes(s.c), 5);
    assert_int_equal(cube_node_num_children(mid), 2);
    assert_int_equal(cube_machine_num_nodes(other), 0);
    /* and the next success clears the error */
    cube_node *top = cube_def_stn(s.c, "o0", "node", "", other, NULL);
    assert_non_null(top);
    assert_no_error(s.c);
    assert_ptr_equal(cube_node_machine(top), other);
    assert_int_equal(cube_machine_num_nodes(other), 1);

    /* a wide level: the child array grows and keeps its order */
    char name[32];
    for (int i = 0; i < 37; i++) {
        snprintf(name, sizeof name, "leaf%d", i);
        assert_non_null(cube_def_stn(s.c, name, "node", "", other, top));
    }
    assert_int_equal(cube_node_num_children(top), 37);
    for (size_t i = 0; i < 37; i++) {
        snprintf(name, sizeof name, "leaf%zu", i);
        assert_string_equal(cube_node_name(cube_node_child(top, i)), name);
        assert_ptr_equal(cube_node_parent(cube_node_child(top, i)), top);
    }
    cube_free(s.c);
}

static void test_location_types(void **state)
{
    (void)state;
    small s = build_small();
    assert_int_equal(cube_process_type(s.proc), CUBE_GROUP_PROCESS);
    assert_int_equal(cube_thread_type(s.thrd), CUBE_LOCATION_THREAD);
    assert_int_equal(cube_process_set_type(s.c, s.proc, CUBE_GROUP_ACCELERATOR), 0);
    assert_int_equal(cube_process_type(s.proc), CUBE_GROUP_ACCELERATOR);
    assert_int_equal(cube_process_set_type(s.c, s.proc, CUBE_GROUP_METRICS), 0);
    assert_int_equal(cube_process_type(s.proc), CUBE_GROUP_METRICS);
    assert_int_equal(cube_thread_set_type(s.c, s.thrd, CUBE_LOCATION_GPU), 0);
    assert_int_equal(cube_thread_type(s.thrd), CUBE_LOCATION_GPU);
    assert_int_equal(cube_thread_set_type(s.c, s.thrd, CUBE_LOCATION_METRIC), 0);
    assert_int_equal(cube_thread_type(s.thrd), CUBE_LOCATION_METRIC);
    assert_no_error(s.c);

    assert_int_equal(cube_process_set_type(s.c, s.proc, (cube_group_type)3), -1);
    assert_einval(s.c);
    assert_int_equal(cube_process_set_type(s.c, s.proc, (cube_group_type)-1), -1);
    assert_einval(s.c);
    assert_int_equal(cube_process_type(s.proc), CUBE_GROUP_METRICS);
    assert_int_equal(cube_thread_set_type(s.c, s.thrd, (cube_location_type)3), -1);
    assert_einval(s.c);
    assert_int_equal(cube_thread_set_type(s.c, s.thrd, (cube_location_type)-1), -1);
    assert_einval(s.c);
    assert_int_equal(cube_thread_type(s.thrd), CUBE_LOCATION_METRIC);
    assert_int_equal(cube_thread_set_type(s.c, s.thrd, CUBE_LOCATION_THREAD), 0);
    assert_no_error(s.c);
    assert_int_equal(cube_thread_type(s.thrd), CUBE_LOCATION_THREAD);
    cube_free(s.c);
}

/* The same checks for the attributes of each kind of entity. */
typedef struct {
    size_t (*num)(const void *);
    const char *(*key)(const void *, size_t);
    const char *(*value)(const void *, size_t);
    int (*add)(cube_t *, void *, const char *, const char *);
} attr_api;

#define ATTR_API(TYPE, PREFIX)                                                       \
    static size_t PREFIX##_num(const void *x)                                        \
    {                                                                                \
        return PREFIX##_num_attrs((const TYPE *)x);                                  \
    }                                                                                \
    static const char *PREFIX##_key(const void *x, size_t i)                         \
    {                                                                                \
        return PREFIX##_attr_key((const TYPE *)x, i);                                \
    }                                                                                \
    static const char *PREFIX##_value(const void *x, size_t i)                       \
    {                                                                                \
        return PREFIX##_attr_value((const TYPE *)x, i);                              \
    }                                                                                \
    static int PREFIX##_add(cube_t *c, void *x, const char *k, const char *v)        \
    {                                                                                \
        return PREFIX##_add_attr(c, (TYPE *)x, k, v);                                \
    }                                                                                \
    static const attr_api PREFIX##_api = {PREFIX##_num, PREFIX##_key, PREFIX##_value, \
                                          PREFIX##_add};

ATTR_API(cube_metric, cube_metric)
ATTR_API(cube_region, cube_region)
ATTR_API(cube_cnode, cube_cnode)
ATTR_API(cube_machine, cube_machine)
ATTR_API(cube_node, cube_node)
ATTR_API(cube_process, cube_process)
ATTR_API(cube_thread, cube_thread)

static void check_attrs(cube_t *c, void *entity, const attr_api *api)
{
    assert_int_equal(api->num(entity), 0);
    assert_null(api->key(entity, 0));
    assert_null(api->value(entity, 0));
    /* order kept, a key may repeat, nothing sorted or merged */
    assert_int_equal(api->add(c, entity, "zeta", "1"), 0);
    assert_int_equal(api->add(c, entity, "alpha", "2"), 0);
    assert_int_equal(api->add(c, entity, "zeta", "3"), 0);
    assert_int_equal(api->add(c, entity, "Score-P::X", "a & <b>"), 0);
    assert_no_error(c);
    assert_int_equal(api->num(entity), 4);
    static const char *const keys[] = {"zeta", "alpha", "zeta", "Score-P::X"};
    static const char *const values[] = {"1", "2", "3", "a & <b>"};
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(api->key(entity, i), keys[i]);
        assert_string_equal(api->value(entity, i), values[i]);
    }
    assert_null(api->key(entity, 4));
    assert_null(api->value(entity, 4));
    assert_int_equal(api->add(c, entity, NULL, "v"), -1);
    assert_einval(c);
    assert_int_equal(api->num(entity), 4);
    /* many: the list grows without losing the first */
    char buf[16];
    for (int i = 0; i < 30; i++) {
        snprintf(buf, sizeof buf, "k%d", i);
        assert_int_equal(api->add(c, entity, buf, buf), 0);
    }
    assert_no_error(c);
    assert_int_equal(api->num(entity), 34);
    assert_string_equal(api->key(entity, 0), "zeta");
    assert_string_equal(api->value(entity, 33), "k29");
}

static void test_entity_attributes(void **state)
{
    (void)state;
    small s = build_small();
    check_attrs(s.c, s.met, &cube_metric_api);
    check_attrs(s.c, s.reg, &cube_region_api);
    check_attrs(s.c, s.cn, &cube_cnode_api);
    check_attrs(s.c, s.mach, &cube_machine_api);
    check_attrs(s.c, s.node, &cube_node_api);
    check_attrs(s.c, s.proc, &cube_process_api);
    check_attrs(s.c, s.thrd, &cube_thread_api);
    /* the experiment's own attributes are another list */
    assert_int_equal(cube_num_attrs(s.c), 0);
    cube_free(s.c);
}

static void test_extra_members(void **state)
{
    (void)state;
    small s = build_small();
    assert_int_equal(cube_num_extra_members(s.c), 0);
    size_t size = 99;
    assert_null(cube_extra_member_data(s.c, 0, &size));
    assert_int_equal(size, 0);
    assert_null(cube_extra_member_name(s.c, 0));

    /* the bytes are copied: the caller's buffer may change or go */
    static const char spec[] = "<metrics>\n<metric type=\"x\"/>\n</metrics>\n";
    char *buf = malloc(sizeof spec);
    assert_non_null(buf);
    memcpy(buf, spec, sizeof spec);
    char *name = malloc(32);
    assert_non_null(name);
    strcpy(name, "remapping.spec");
    assert_int_equal(cube_add_extra_member(s.c, name, buf, sizeof spec - 1), 0);
    memset(buf, 'X', sizeof spec);
    strcpy(name, "garbage");
    free(buf);
    free(name);
    unsigned char bin[3] = {0, 0xff, 0};
    assert_int_equal(cube_add_extra_member(s.c, "blob.bin", bin, sizeof bin), 0);
    assert_int_equal(cube_add_extra_member(s.c, "empty", NULL, 0), 0);
    assert_no_error(s.c);

    assert_int_equal(cube_num_extra_members(s.c), 3);
    assert_string_equal(cube_extra_member_name(s.c, 0), "remapping.spec");
    const void *data = cube_extra_member_data(s.c, 0, &size);
    assert_int_equal(size, sizeof spec - 1);
    assert_memory_equal(data, spec, sizeof spec - 1);
    assert_string_equal(cube_extra_member_name(s.c, 1), "blob.bin");
    data = cube_extra_member_data(s.c, 1, &size);
    assert_int_equal(size, 3);
    assert_memory_equal(data, bin, 3);
    assert_string_equal(cube_extra_member_name(s.c, 2), "empty");
    data = cube_extra_member_data(s.c, 2, &size);
    assert_non_null(data);
    assert_int_equal(size, 0);
    /* the size pointer may be NULL */
    assert_non_null(cube_extra_member_data(s.c, 1, NULL));
    assert_null(cube_extra_member_data(s.c, 3, NULL));

    /* no name, or a size without bytes: refused, nothing added */
    assert_int_equal(cube_add_extra_member(s.c, NULL, bin, 1), -1);
    assert_einval(s.c);
    assert_int_equal(cube_add_extra_member(s.c, "x", NULL, 4), -1);
    assert_einval(s.c);
    assert_int_equal(cube_num_extra_members(s.c), 3);
    cube_free(s.c);
}

/* A model built in memory says where it came from: nowhere. */
static void test_source_of_built_model(void **state)
{
    (void)state;
    small s = build_small();
    assert_int_equal(cube_source_format(s.c), CUBE_FORMAT_NONE);
    assert_string_equal(cube_source_version(s.c), "");
    cube_free(s.c);
}

/* Everything a CUBE 3 file cannot say has its documented default. */
static void check_cube3_defaults(const cube_t *c)
{
    for (size_t i = 0; i < cube_num_metrics(c); i++) {
        const cube_metric *m = cube_get_metric(c, i);
        assert_int_equal(cube_metric_type(m), CUBE_KIND_EXCLUSIVE);
        assert_string_equal(cube_metric_kind_name(cube_metric_type(m)), "EXCLUSIVE");
        assert_int_equal(cube_metric_is_derived(m), 0);
        assert_int_equal(cube_metric_is_ghost(m), 0);
        assert_string_equal(cube_metric_expression(m), "");
        assert_string_equal(cube_metric_init_expression(m), "");
        assert_int_equal(cube_metric_num_aggr_expressions(m), 0);
        assert_int_equal(cube_metric_num_attrs(m), 0);
    }
    for (size_t i = 0; i < cube_num_regions(c); i++) {
        const cube_region *r = cube_get_region(c, i);
        assert_string_equal(cube_region_mangled_name(r), cube_region_name(r));
        assert_string_equal(cube_region_paradigm(r), "");
        assert_string_equal(cube_region_role(r), "");
        assert_int_equal(cube_region_num_attrs(r), 0);
    }
    for (size_t i = 0; i < cube_num_cnodes(c); i++) {
        const cube_cnode *cn = cube_get_cnode(c, i);
        assert_int_equal(cube_cnode_num_params(cn), 0);
        assert_int_equal(cube_cnode_num_attrs(cn), 0);
    }
    for (size_t i = 0; i < cube_num_machines(c); i++) {
        const cube_machine *m = cube_get_machine(c, i);
        assert_string_equal(cube_machine_class(m), "machine");
        assert_int_equal(cube_machine_num_attrs(m), 0);
    }
    for (size_t i = 0; i < cube_num_nodes(c); i++) {
        const cube_node *n = cube_get_node(c, i);
        assert_string_equal(cube_node_class(n), "node");
        assert_string_equal(cube_node_descr(n), "");
        assert_null(cube_node_parent(n));
        assert_int_equal(cube_node_num_children(n), 0);
        assert_int_equal(cube_node_num_attrs(n), 0);
    }
    for (size_t i = 0; i < cube_num_processes(c); i++) {
        const cube_process *p = cube_get_process(c, i);
        assert_int_equal(cube_process_type(p), CUBE_GROUP_PROCESS);
        assert_int_equal(cube_process_num_attrs(p), 0);
    }
    for (size_t i = 0; i < cube_num_threads(c); i++) {
        const cube_thread *t = cube_get_thread(c, i);
        assert_int_equal(cube_thread_type(t), CUBE_LOCATION_THREAD);
        assert_int_equal(cube_thread_num_attrs(t), 0);
    }
    assert_int_equal(cube_num_extra_members(c), 0);
}

static void test_cube3_file_defaults(void **state)
{
    (void)state;
    for (const char *const *f = real_cube_files; *f; f++) {
        cube_t *c = read_ok(testdata(*f));
        assert_true(cube_num_metrics(c) > 0);
        assert_true(cube_num_nodes(c) > 0);
        check_cube3_defaults(c);
        cube_free(c);
    }
    /* CUBE 3 nodes all sit directly below their machine */
    cube_t *c = read_ok(testdata("cube/scorep-1.1_profile.cube"));
    size_t nodes_below_machines = 0;
    for (size_t i = 0; i < cube_num_machines(c); i++)
        nodes_below_machines += cube_machine_num_nodes(cube_get_machine(c, i));
    assert_int_equal(nodes_below_machines, cube_num_nodes(c));
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enum_names),
        cmocka_unit_test(test_null_entities),
        cmocka_unit_test(test_setters_without_entity),
        cmocka_unit_test(test_metric_kinds),
        cmocka_unit_test(test_metric_expressions),
        cmocka_unit_test(test_region_details),
        cmocka_unit_test(test_cnode_params),
        cmocka_unit_test(test_system_tree_depth),
        cmocka_unit_test(test_location_types),
        cmocka_unit_test(test_entity_attributes),
        cmocka_unit_test(test_extra_members),
        cmocka_unit_test(test_source_of_built_model),
        cmocka_unit_test(test_cube3_file_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
