/*
 * test_transform.c - re-rooting, pruning and the common call tree
 * (cube_transform.h) on models built through the API: which call paths
 * stay, their order, parents, depths and ids, how folded values combine
 * (compensated sums, maxima, minima, metrics stored call-tree inclusive),
 * that a failing call leaves the model as it was, trees 100 000 deep, and
 * the common call tree of two experiments.
 *
 * A test of internals only where the public API cannot reach: exact
 * values of 64-bit integers beyond 2^53, which only the CUBE 4 reader
 * makes, are set up through core/cube_private.h.
 */
#include "test_support.h"

#include "core/cube_private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A model with one thread, metrics "time" (sum), "max" (MAXDOUBLE),
 * "min" (MINDOUBLE) and "incl" (stored call-tree inclusive), and the call
 * tree
 *     0 main
 *       1 a
 *         2 b
 *           3 a
 *         4 c
 *       5 d
 *         6 a
 *     7 other (a second root)
 * Call path i holds time i + 1, max and min 10 * (i + 1) except min at
 * call path 1, which has no row there; incl holds each subtree's sum of
 * time. */
static const char *const names[] = {"main", "a", "b", "a", "c", "d", "a", "other"};
static const int parents[] = {-1, 0, 1, 2, 1, 0, 5, -1};
enum { N = 8 };

static cube_t *small_model(void)
{
    cube_t *c = cube_create();
    assert_non_null(c);
    cube_metric *time = cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_metric *max = cube_def_met(c, "Max", "max", "MAXDOUBLE", "sec", "", "", "", NULL);
    cube_metric *min = cube_def_met(c, "Min", "min", "MINDOUBLE", "sec", "", "", "", NULL);
    cube_metric *incl = cube_def_met(c, "Incl", "incl", "FLOAT", "sec", "", "", "", NULL);
    assert_int_equal(cube_metric_set_type(c, incl, CUBE_KIND_INCLUSIVE), 0);
    cube_thread *t = cube_def_thrd(
        c, "t", 0, cube_def_proc(c, "P", 0, cube_def_node(c, "n", cube_def_mach(c, "m", ""))));
    cube_region *regions[N];
    cube_cnode *cn[N];
    for (int i = 0; i < N; i++) {
        regions[i] = cube_def_region(c, names[i], -1, -1, "", "", "x.c");
        cn[i] = cube_def_cnode_cs(c, regions[i], "x.c", 10 + i,
                                  parents[i] < 0 ? NULL : cn[parents[i]]);
        assert_non_null(cn[i]);
    }
    double sub[N];
    for (int i = N - 1; i >= 0; i--) {
        sub[i] = i + 1;
        for (int k = i + 1; k < N; k++)
            if (parents[k] == i)
                sub[i] += sub[k];
    }
    for (int i = 0; i < N; i++) {
        cube_set_sev(c, time, cn[i], t, i + 1);
        cube_set_sev(c, max, cn[i], t, 10.0 * (i + 1));
        if (i != 1)
            cube_set_sev(c, min, cn[i], t, 10.0 * (i + 1));
        cube_set_sev(c, incl, cn[i], t, sub[i]);
    }
    assert_int_equal(cube_error_code(c), CUBE_OK);
    return c;
}

static double value(const cube_t *c, const char *metric, size_t cnode)
{
    const double *row = cube_get_row(c, cube_find_metric(c, metric), cube_get_cnode(c, cnode));
    return row ? row[0] : NAN;
}

static int select_named(void *user, const char *name)
{
    return strcmp(user, name) == 0;
}

static unsigned char *select_region(const cube_t *c, const char *name, size_t expected)
{
    unsigned char *sel = malloc(cube_num_cnodes(c) + 1);
    assert_non_null(sel);
    cube_status st;
    assert_int_equal(cube_select_cnodes_by_region(c, select_named, (void *)name, sel, &st),
                     expected);
    assert_int_equal(st.code, CUBE_OK);
    return sel;
}

/* c's call tree in index order: n call paths with these region names and
 * parents (-1: a root), each numbered by its index, at its parent's depth
 * plus one. */
static void expect_tree(const cube_t *c, size_t n, const char *const *name, const int *parent)
{
    assert_int_equal(cube_num_cnodes(c), n);
    size_t depth[N];
    assert_true(n <= N);
    for (size_t i = 0; i < n; i++) {
        const cube_cnode *cn = cube_get_cnode(c, i);
        assert_string_equal(cube_region_name(cube_cnode_callee(cn)), name[i]);
        assert_int_equal(cube_cnode_index(cn), i);
        assert_int_equal(cube_cnode_id(cn), (int64_t)i);
        if (parent[i] < 0) {
            assert_null(cube_cnode_parent(cn));
            depth[i] = 0;
        } else {
            assert_true((size_t)parent[i] < i);
            assert_ptr_equal(cube_cnode_parent(cn), cube_get_cnode(c, (size_t)parent[i]));
            depth[i] = depth[parent[i]] + 1;
        }
        assert_int_equal(cube_cnode_depth(cn), depth[i]);
    }
}

static void test_reroot_outermost_matches(void **state)
{
    (void)state;
    cube_t *c = small_model();
    unsigned char *sel = select_region(c, "a", 3);
    size_t roots = 0;
    assert_int_equal(cube_cut_reroot(c, sel, &roots), 0);
    /* a (1) with b and the inner a (3) and c below it; a (6) */
    assert_int_equal(roots, 2);
    assert_int_equal(cube_num_root_cnodes(c), 2);
    static const char *const kept[] = {"a", "b", "a", "c", "a"};
    static const int parent[] = {-1, 0, 1, 0, -1};
    expect_tree(c, 5, kept, parent);
    static const double time[] = {2, 3, 4, 5, 7};
    for (size_t i = 0; i < 5; i++)
        assert_true(value(c, "time", i) == time[i]);
    assert_int_equal(cube_cnode_num_children(cube_get_cnode(c, 0)), 2);
    assert_int_equal(cube_cnode_depth_max(c), 3);
    /* the rows of the call paths that went are gone */
    assert_int_equal(cube_num_rows(c), 5 * 4 - 1);
    /* a walk sees the new tree */
    cube_tree_walk *w = cube_tree_walk_start(c);
    size_t level, n = 0;
    while (cube_tree_walk_next(w, &level))
        n++;
    cube_tree_walk_free(w);
    assert_int_equal(n, 5);
    free(sel);
    cube_free(c);
}

static void test_prune_folds_by_dtype(void **state)
{
    (void)state;
    cube_t *c = small_model();
    unsigned char *sel = select_region(c, "a", 3);
    size_t folded = 0;
    assert_int_equal(cube_cut_prune(c, sel, &folded), 0);
    /* below a (1): b, a (3), c; below a (6): nothing */
    assert_int_equal(folded, 3);
    static const char *const kept[] = {"main", "a", "d", "a", "other"};
    static const int parent[] = {-1, 0, 0, 2, -1};
    expect_tree(c, 5, kept, parent);
    assert_int_equal(cube_cnode_num_children(cube_get_cnode(c, 1)), 0);
    /* a (1): time 2 + 3 + 4 + 5, max of 20..50, min of 30..50 (a has
     * none of its own: not 0), incl as stored (it held them already) */
    assert_true(value(c, "time", 1) == 14);
    assert_true(value(c, "max", 1) == 50);
    assert_true(value(c, "min", 1) == 30);
    assert_true(value(c, "incl", 1) == 14);
    assert_true(value(c, "incl", 0) == 1 + 14 + 6 + 7);
    assert_true(value(c, "time", 3) == 7);
    free(sel);
    cube_free(c);
}

static void test_failure_leaves_model(void **state)
{
    (void)state;
    cube_t *c = small_model();
    unsigned char *sel = calloc(N, 1);
    assert_int_equal(cube_cut_reroot(c, sel, NULL), -1);
    assert_int_equal(cube_error_code(c), CUBE_EINVAL);
    assert_int_equal(cube_cut_reroot(c, NULL, NULL), -1);
    assert_int_equal(cube_cut_prune(c, NULL, NULL), -1);
    assert_int_equal(cube_error_code(c), CUBE_EINVAL);
    assert_int_equal(cube_num_cnodes(c), N);
    assert_int_equal(cube_num_rows(c), 4 * N - 1);
    /* nothing selected for pruning: the same tree */
    assert_int_equal(cube_cut_prune(c, sel, NULL), 0);
    assert_int_equal(cube_error_code(c), CUBE_OK);
    assert_int_equal(cube_num_cnodes(c), N);
    assert_true(value(c, "time", 7) == 8);
    cube_status st;
    assert_int_equal(cube_select_cnodes_by_region(c, NULL, NULL, sel, &st), (size_t)-1);
    assert_int_equal(st.code, CUBE_EINVAL);
    free(sel);
    cube_free(c);
}

/* An experiment with one metric of the given unique name and dtype and
 * one thread. */
static cube_t *one_thread(const char *uniq, const char *dtype, cube_metric **m, cube_thread **t)
{
    cube_t *c = cube_create();
    assert_non_null(c);
    *m = cube_def_met(c, uniq, uniq, dtype, "sec", "", "", "", NULL);
    *t = cube_def_thrd(
        c, "t", 0, cube_def_proc(c, "P", 0, cube_def_node(c, "n", cube_def_mach(c, "m", ""))));
    assert_non_null(*m);
    assert_non_null(*t);
    return c;
}

/* Folding 1e16, 1, -1e16 into one call path: a plain sum gives 0. */
static void test_fold_is_compensated(void **state)
{
    (void)state;
    cube_metric *m;
    cube_thread *t;
    cube_t *c = one_thread("time", "DOUBLE", &m, &t);
    cube_region *r = cube_def_region(c, "r", -1, -1, "", "", "");
    cube_cnode *root = cube_def_cnode(c, r, NULL);
    static const double v[] = {1e16, 1.0, -1e16};
    for (int i = 0; i < 3; i++)
        cube_set_sev(c, m, cube_def_cnode(c, r, root), t, v[i]);
    unsigned char sel[4] = {1, 0, 0, 0};
    assert_int_equal(cube_cut_prune(c, sel, NULL), 0);
    assert_int_equal(cube_num_cnodes(c), 1);
    assert_true(value(c, "time", 0) == 1.0);
    cube_free(c);
}

/* A chain 100 000 deep: no recursion anywhere. */
static void test_deep_chain(void **state)
{
    (void)state;
    enum { DEEP = 100000 };
    cube_metric *m;
    cube_thread *t;
    cube_t *c = one_thread("visits", "INTEGER", &m, &t);
    cube_region *f = cube_def_region(c, "f", -1, -1, "", "", "");
    cube_region *g = cube_def_region(c, "g", -1, -1, "", "", "");
    cube_cnode *cn = NULL;
    for (int i = 0; i < DEEP; i++) {
        cn = cube_def_cnode(c, i == DEEP / 2 ? g : f, cn);
        cube_set_sev(c, m, cn, t, 1);
    }
    unsigned char *sel = select_region(c, "g", 1);
    assert_int_equal(cube_cut_reroot(c, sel, NULL), 0);
    assert_int_equal(cube_num_cnodes(c), DEEP / 2);
    assert_int_equal(cube_cnode_depth_max(c), DEEP / 2);
    free(sel);
    sel = select_region(c, "g", 1);
    assert_int_equal(cube_cut_prune(c, sel, NULL), 0);
    assert_int_equal(cube_num_cnodes(c), 1);
    assert_true(value(c, "visits", 0) == DEEP / 2);
    free(sel);
    cube_free(c);
}

/* 64-bit integers beyond 2^53 fold exactly in their exact values. */
static void test_int64_exact(void **state)
{
    (void)state;
    cube_metric *m;
    cube_thread *t;
    cube_t *c = one_thread("bytes", "INT64", &m, &t);
    cube_region *r = cube_def_region(c, "r", -1, -1, "", "", "");
    cube_cnode *root = cube_def_cnode(c, r, NULL);
    cube_cnode *child = cube_def_cnode(c, r, root);
    const int64_t big = ((int64_t)1 << 60) + 1;
    cube_set_sev(c, m, root, t, (double)big);
    cube_set_sev(c, m, child, t, 3);
    /* what the CUBE 4 reader keeps beside the row of a value beyond 2^53 */
    m->exact = calloc(1, sizeof *m->exact);
    assert_non_null(m->exact);
    m->exact->row_len = 1;
    unsigned char *bytes = (unsigned char *)sev_store_append(m->exact, m->index, root->index);
    assert_non_null(bytes);
    for (int k = 0; k < 8; k++)
        bytes[k] = (unsigned char)((uint64_t)big >> (8 * k));
    assert_int_equal(sev_store_index(m->exact), 0);
    unsigned char sel[2] = {1, 0};
    assert_int_equal(cube_cut_prune(c, sel, NULL), 0);
    const unsigned char *exact = model_exact_row(m, 0);
    assert_non_null(exact);
    uint64_t v = 0;
    for (int k = 0; k < 8; k++)
        v |= (uint64_t)exact[k] << (8 * k);
    assert_true(v == (uint64_t)big + 3);
    assert_true(value(c, "bytes", 0) == (double)(big + 3));
    cube_free(c);
}

/* Two experiments: the first has main/{a,b/x}, the second main/{a,c} and
 * a second root.  Common: main and a. */
static cube_t *tree_of(const char *const *region, const int *parent, size_t n)
{
    cube_metric *m;
    cube_thread *t;
    cube_t *c = one_thread("time", "FLOAT", &m, &t);
    for (size_t i = 0; i < n; i++) {
        cube_region *r = cube_def_region(c, region[i], -1, -1, "", "", "x.c");
        cube_cnode *cn = cube_def_cnode_cs(c, r, "x.c", 1,
                                           parent[i] < 0 ? NULL : cube_get_cnode(c, (size_t)parent[i]));
        cube_set_sev(c, m, cn, t, (double)(i + 1));
    }
    return c;
}

static void test_common_call_tree(void **state)
{
    (void)state;
    static const char *const r1[] = {"main", "a", "b", "x"};
    static const int p1[] = {-1, 0, 0, 2};
    static const char *const r2[] = {"main", "a", "c", "other"};
    static const int p2[] = {-1, 0, 0, -1};
    cube_t *m[2] = {tree_of(r1, p1, 4), tree_of(r2, p2, 4)};
    size_t common = 0;
    cube_status st;
    assert_int_equal(cube_common_call_tree(m, 2, CUBE_MATCH_FULL, &common, &st), 0);
    assert_int_equal(st.code, CUBE_OK);
    assert_int_equal(common, 2);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(cube_num_cnodes(m[k]), 2);
        assert_string_equal(cube_region_name(cube_cnode_callee(cube_get_cnode(m[k], 1))), "a");
        assert_true(value(m[k], "time", 1) == 2);
    }
    /* b (3) and x (4) folded into main (1); c (3) too; other dropped */
    assert_true(value(m[0], "time", 0) == 1 + 3 + 4);
    assert_true(value(m[1], "time", 0) == 1 + 3);
    assert_int_equal(cube_num_warnings(m[0]), 0);
    assert_int_equal(cube_num_warnings(m[1]), 1);
    assert_non_null(strstr(cube_warning(m[1], 0), "dropped"));
    cube_free(m[0]);
    cube_free(m[1]);
}

static void test_common_call_tree_errors(void **state)
{
    (void)state;
    static const char *const r1[] = {"main"};
    static const char *const r2[] = {"start"};
    static const int p[] = {-1};
    cube_t *m[2] = {tree_of(r1, p, 1), tree_of(r2, p, 1)};
    cube_status st;
    assert_int_equal(cube_common_call_tree(m, 2, CUBE_MATCH_NAME, NULL, &st), -1);
    assert_int_equal(st.code, CUBE_EMISMATCH);
    assert_int_equal(cube_num_cnodes(m[0]), 1);
    assert_int_equal(cube_common_call_tree(m, 0, CUBE_MATCH_NAME, NULL, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    cube_t *with_null[2] = {m[0], NULL};
    assert_int_equal(cube_common_call_tree(with_null, 2, CUBE_MATCH_NAME, NULL, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    cube_free(m[0]);
    cube_free(m[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reroot_outermost_matches),
        cmocka_unit_test(test_prune_folds_by_dtype),
        cmocka_unit_test(test_failure_leaves_model),
        cmocka_unit_test(test_fold_is_compensated),
        cmocka_unit_test(test_deep_chain),
        cmocka_unit_test(test_int64_exact),
        cmocka_unit_test(test_common_call_tree),
        cmocka_unit_test(test_common_call_tree_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
