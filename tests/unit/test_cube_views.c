/*
 * test_cube_views.c - the computations of cube_views.h on small hand-made
 * experiments, with the expected numbers written out: metric-exclusive
 * values, call-inclusive values, sums over the system tree, the flat
 * profile with Subroutines (with recursion), every value mode, and
 * statistics (variance, quartiles of an even and an odd count); and how
 * each reports a failure (a code and a message on the view, or in the
 * caller's cube_status), cleared by the next successful call.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include "cube_views.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NT 5 /* threads */

/*
 * The experiment.
 *
 * Metrics: time > mpi > p2p, time > ghost (VOID); visits.
 *
 * Call tree (cnode: region), values of `time` per thread t0..t4 (sum):
 *   c0 main                 10 1 2 3 4  (20)
 *     c1 foo                 5 0 0 0 0  (5)
 *       c2 MPI_Send          2 2 2 2 2  (10)
 *     c3 bar                 1 1 1 1 1  (5)
 *       c4 foo               3 0 0 1 0  (4)
 *     c5 f                   4 0 0 0 0  (4)
 *       c6 f                 2 0 0 0 0  (2)   recursion f -> f
 *         c7 bar             1 0 0 0 0  (1)
 *           c8 f             1 0 0 0 0  (1)   recursion f -> f -> bar -> f
 *   c9 init                  1 1 1 1 1  (5)
 * mpi:    c0 1 0 0 0 0, c2 2 1 2 2 0
 * p2p:    c2 1 1 1 1 0
 * visits: c0 1 1 1 1 1, c1 2 0 0 0 0
 *
 * System tree: M0 { N0 { P0 {t0, t1}, P1 {t2} }, N1 { P2 {t3} } },
 *              M1 { N2 { P3 {t4} } }
 */
typedef struct {
    cube_t *c;
    cube_metric *time, *mpi, *p2p, *ghost, *visits;
    cube_region *main_, *foo, *bar, *send, *f, *init, *unused;
    cube_cnode *n[10];
    cube_thread *t[NT];
    cube_process *p[4];
    cube_node *node[3];
    cube_machine *mach[2];
} experiment;

static void set_row(experiment *e, cube_metric *m, int cnode, const double v[NT])
{
    for (int t = 0; t < NT; t++)
        if (v[t] != 0)
            cube_set_sev(e->c, m, e->n[cnode], e->t[t], v[t]);
}

static experiment build(void)
{
    experiment e;
    memset(&e, 0, sizeof e);
    e.c = cube_create();
    assert_non_null(e.c);
    cube_t *c = e.c;
    e.time = cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    e.mpi = cube_def_met(c, "MPI", "mpi", "FLOAT", "sec", "", "", "", e.time);
    e.p2p = cube_def_met(c, "P2P", "p2p", "FLOAT", "sec", "", "", "", e.mpi);
    e.ghost = cube_def_met(c, "Ghost", "ghost", "FLOAT", "sec", "VOID", "", "", e.time);
    e.visits = cube_def_met(c, "Visits", "visits", "INTEGER", "occ", "", "", "", NULL);
    e.main_ = cube_def_region(c, "main", 1, 50, "", "", "a.c");
    e.foo = cube_def_region(c, "foo", 51, 60, "", "", "a.c");
    e.bar = cube_def_region(c, "bar", 61, 70, "", "", "a.c");
    e.send = cube_def_region(c, "MPI_Send", -1, -1, "", "", "MPI");
    e.f = cube_def_region(c, "f", 71, 80, "", "", "a.c");
    e.init = cube_def_region(c, "init", 81, 90, "", "", "a.c");
    e.unused = cube_def_region(c, "unused", 91, 95, "", "", "a.c");
    e.n[0] = cube_def_cnode(c, e.main_, NULL);
    e.n[1] = cube_def_cnode(c, e.foo, e.n[0]);
    e.n[2] = cube_def_cnode(c, e.send, e.n[1]);
    e.n[3] = cube_def_cnode(c, e.bar, e.n[0]);
    e.n[4] = cube_def_cnode(c, e.foo, e.n[3]);
    e.n[5] = cube_def_cnode(c, e.f, e.n[0]);
    e.n[6] = cube_def_cnode(c, e.f, e.n[5]);
    e.n[7] = cube_def_cnode(c, e.bar, e.n[6]);
    e.n[8] = cube_def_cnode(c, e.f, e.n[7]);
    e.n[9] = cube_def_cnode(c, e.init, NULL);
    e.mach[0] = cube_def_mach(c, "M0", "");
    e.mach[1] = cube_def_mach(c, "M1", "");
    e.node[0] = cube_def_node(c, "N0", e.mach[0]);
    e.node[1] = cube_def_node(c, "N1", e.mach[0]);
    e.node[2] = cube_def_node(c, "N2", e.mach[1]);
    e.p[0] = cube_def_proc(c, "P0", 0, e.node[0]);
    e.t[0] = cube_def_thrd(c, "t0", 0, e.p[0]);
    e.t[1] = cube_def_thrd(c, "t1", 1, e.p[0]);
    e.p[1] = cube_def_proc(c, "P1", 1, e.node[0]);
    e.t[2] = cube_def_thrd(c, "t2", 0, e.p[1]);
    e.p[2] = cube_def_proc(c, "P2", 2, e.node[1]);
    e.t[3] = cube_def_thrd(c, "t3", 0, e.p[2]);
    e.p[3] = cube_def_proc(c, "P3", 3, e.node[2]);
    e.t[4] = cube_def_thrd(c, "t4", 0, e.p[3]);

    static const double time[10][NT] = {
        {10, 1, 2, 3, 4}, {5, 0, 0, 0, 0}, {2, 2, 2, 2, 2}, {1, 1, 1, 1, 1},
        {3, 0, 0, 1, 0},  {4, 0, 0, 0, 0}, {2, 0, 0, 0, 0}, {1, 0, 0, 0, 0},
        {1, 0, 0, 0, 0},  {1, 1, 1, 1, 1},
    };
    for (int i = 0; i < 10; i++)
        set_row(&e, e.time, i, time[i]);
    set_row(&e, e.mpi, 0, (const double[NT]){1, 0, 0, 0, 0});
    set_row(&e, e.mpi, 2, (const double[NT]){2, 1, 2, 2, 0});
    set_row(&e, e.p2p, 2, (const double[NT]){1, 1, 1, 1, 0});
    set_row(&e, e.ghost, 0, (const double[NT]){100, 100, 100, 100, 100}); /* ignored: VOID */
    set_row(&e, e.visits, 0, (const double[NT]){1, 1, 1, 1, 1});
    set_row(&e, e.visits, 1, (const double[NT]){2, 0, 0, 0, 0});
    assert_string_equal(cube_error(c), "");
    return e;
}

static void assert_close(double got, double want)
{
    if (!(fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want))))
        fail_msg("got %.17g, want %.17g", got, want);
}

static void assert_row(const double *row, const double *want, size_t n)
{
    assert_non_null(row);
    for (size_t i = 0; i < n; i++)
        if (row[i] != want[i])
            fail_msg("value %zu: got %.17g, want %.17g", i, row[i], want[i]);
}

/* A status as a failed call leaves it: set on success must clear both. */
static cube_status dirty_status(void)
{
    cube_status st;
    st.code = CUBE_EIO;
    snprintf(st.message, sizeof st.message, "left over");
    return st;
}

static void assert_status_ok(const cube_status *st)
{
    assert_int_equal(st->code, CUBE_OK);
    assert_string_equal(st->message, "");
}

/* A call that returned `rc` failed with `code`: -1, and a message. */
static void assert_status_failed(int rc, const cube_status *st, cube_code code)
{
    assert_int_equal(rc, -1);
    assert_int_equal(st->code, code);
    assert_true(st->message[0] != '\0');
}

/* A call on a view that returned `rc` failed with `code`, kept by the view. */
static void assert_view_failed(int rc, const cube_view *v, cube_code code)
{
    assert_int_equal(rc, -1);
    assert_int_equal(cube_view_error_code(v), code);
    assert_true(cube_view_error(v)[0] != '\0');
}

static cube_view *view(const experiment *e, const cube_metric *m, cube_metric_flavour mf,
                       cube_call_flavour cf, unsigned flags)
{
    cube_status st = dirty_status();
    cube_view *v = cube_view_compute(e->c, m, mf, cf, flags, &st);
    assert_non_null(v);
    assert_status_ok(&st);
    assert_int_equal(cube_view_error_code(v), CUBE_OK);
    assert_string_equal(cube_view_error(v), "");
    return v;
}

/* --- along the metric tree ---------------------------------------------- */

static void test_metric_exclusive_of_a_parent(void **state)
{
    (void)state;
    experiment e = build();
    /* time at c2 is 2 2 2 2 2; minus its child mpi (2 1 2 2 0), not minus
     * the grandchild p2p (already inside mpi), not minus VOID ghost */
    cube_view *v = view(&e, e.time, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_STORED, 0);
    assert_int_equal(cube_view_width(v), NT);
    assert_row(cube_view_row(v, e.n[2]), (const double[NT]){0, 1, 0, 0, 2}, NT);
    assert_row(cube_view_row(v, e.n[0]), (const double[NT]){9, 1, 2, 3, 4}, NT);
    assert_row(cube_view_row(v, e.n[1]), (const double[NT]){5, 0, 0, 0, 0}, NT);
    assert_true(cube_view_wants(v, e.time));
    assert_true(cube_view_wants(v, e.mpi));
    assert_false(cube_view_wants(v, e.p2p));
    assert_false(cube_view_wants(v, e.ghost));
    assert_false(cube_view_wants(v, e.visits));
    cube_view_free(v);

    /* mpi exclusive at c2: 2 1 2 2 0 - p2p 1 1 1 1 0 */
    v = view(&e, e.mpi, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_EXCLUSIVE, 0);
    assert_row(cube_view_row(v, e.n[2]), (const double[NT]){1, 0, 1, 1, 0}, NT);
    cube_view_free(v);

    /* aggregated over threads: 10 - 7 = 3 at c2 */
    v = view(&e, e.time, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_EXCLUSIVE, CUBE_VIEW_AGGREGATE);
    assert_int_equal(cube_view_width(v), 1);
    assert_true(cube_view_value(v, e.n[2], 0) == 3);
    assert_true(cube_view_value(v, e.n[0], 0) == 19);
    cube_view_free(v);

    /* inclusive = as stored */
    v = view(&e, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 0);
    assert_row(cube_view_row(v, e.n[2]), (const double[NT]){2, 2, 2, 2, 2}, NT);
    cube_view_free(v);

    /* the metric tree's values: time 57 in all, mpi 8, p2p 4, visits 7 */
    double incl[5], excl[5];
    assert_int_equal(cube_metric_tree_values(e.c, CUBE_METRIC_INCLUSIVE, incl, NULL), 0);
    assert_int_equal(cube_metric_tree_values(e.c, CUBE_METRIC_EXCLUSIVE, excl, NULL), 0);
    assert_true(incl[0] == 57 && incl[1] == 8 && incl[2] == 4 && incl[3] == 0 &&
                incl[4] == 7);
    assert_true(excl[0] == 49 && excl[1] == 4 && excl[2] == 4 && excl[3] == 0 &&
                excl[4] == 7);
    cube_free(e.c);
}

/* --- along the call tree ------------------------------------------------ */

static void test_call_inclusive_of_a_subtree(void **state)
{
    (void)state;
    experiment e = build();
    cube_view *v = view(&e, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0);
    /* foo = 5 0 0 0 0 + MPI_Send 2 2 2 2 2 */
    assert_row(cube_view_row(v, e.n[1]), (const double[NT]){7, 2, 2, 2, 2}, NT);
    /* bar = 1 1 1 1 1 + foo 3 0 0 1 0 */
    assert_row(cube_view_row(v, e.n[3]), (const double[NT]){4, 1, 1, 2, 1}, NT);
    /* f = 4 + f 2 + bar 1 + f 1 */
    assert_row(cube_view_row(v, e.n[5]), (const double[NT]){8, 0, 0, 0, 0}, NT);
    assert_row(cube_view_row(v, e.n[7]), (const double[NT]){2, 0, 0, 0, 0}, NT);
    /* main = 10 1 2 3 4 + 7 2 2 2 2 + 4 1 1 2 1 + 8 0 0 0 0 */
    assert_row(cube_view_row(v, e.n[0]), (const double[NT]){29, 4, 5, 7, 7}, NT);
    assert_row(cube_view_row(v, e.n[9]), (const double[NT]){1, 1, 1, 1, 1}, NT);
    /* the total over all call paths, per thread: the roots' sum */
    double total[NT];
    assert_int_equal(cube_view_total(v, total, NULL), 0);
    assert_row(total, (const double[NT]){30, 5, 6, 8, 8}, NT);
    const double *const *rows = cube_view_rows(v);
    assert_non_null(rows);
    assert_ptr_equal(rows[3], cube_view_row(v, e.n[3]));
    cube_view_free(v);

    /* aggregated: main 52 and init 5; 57 is the metric's total */
    v = view(&e, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, CUBE_VIEW_AGGREGATE);
    assert_true(cube_view_value(v, e.n[0], 0) == 52);
    assert_true(cube_view_value(v, e.n[9], 0) == 5);
    assert_true(cube_view_value(v, e.n[3], 0) == 9);
    double sum;
    assert_int_equal(cube_view_total(v, &sum, NULL), 0);
    double totals[5];
    assert_int_equal(cube_metric_totals(e.c, totals, NULL), 0);
    assert_true(sum == 57 && totals[0] == 57);
    cube_view_free(v);

    /* metric-exclusive and call-inclusive together: main 52 - mpi 8 = 44 */
    v = view(&e, e.time, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_INCLUSIVE, CUBE_VIEW_AGGREGATE);
    assert_true(cube_view_value(v, e.n[0], 0) == 44);
    assert_true(cube_view_value(v, e.n[1], 0) == 8); /* foo 15 - mpi 7 */
    cube_view_free(v);

    /* sparse: mpi has rows at c0 and c2; inclusive adds the ancestor c1 */
    v = view(&e, e.mpi, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0);
    assert_int_equal(cube_view_num_rows(v), 3);
    assert_null(cube_view_row(v, e.n[3]));
    assert_true(cube_view_value(v, e.n[3], 0) == 0);
    assert_row(cube_view_row(v, e.n[0]), (const double[NT]){3, 1, 2, 2, 0}, NT);
    cube_view_free(v);
    cube_free(e.c);
}

/* A row starts as plain values and becomes a compensated accumulator at
 * its second contribution: a small value added before a cancelling big
 * one must survive both along the call tree and along the metric tree. */
static void test_sums_stay_compensated(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    cube_metric *time = cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_metric *part = cube_def_met(c, "Part", "part", "FLOAT", "sec", "", "", "", time);
    cube_region *main_ = cube_def_region(c, "main", 1, 9, "", "", "a.c");
    cube_region *big = cube_def_region(c, "big", 10, 19, "", "", "a.c");
    cube_region *small = cube_def_region(c, "small", 20, 29, "", "", "a.c");
    cube_cnode *root = cube_def_cnode(c, main_, NULL);
    cube_cnode *n_big = cube_def_cnode(c, big, root);
    cube_cnode *n_small = cube_def_cnode(c, small, root);
    cube_machine *m = cube_def_mach(c, "M", "");
    cube_process *p = cube_def_proc(c, "P", 0, cube_def_node(c, "N", m));
    cube_thread *t0 = cube_def_thrd(c, "t0", 0, p);
    cube_thread *t1 = cube_def_thrd(c, "t1", 1, p);
    /* call-inclusive in reverse index order: root 1e16, + small 1, +
     * big -1e16: 1 exactly, where a plain sum gives 0 */
    cube_set_sev(c, time, root, t0, 1e16);
    cube_set_sev(c, time, n_big, t0, -1e16);
    cube_set_sev(c, time, n_small, t0, 1.0);
    cube_set_sev(c, time, root, t1, 3.0); /* one contribution: stays exact */
    /* metric-exclusive at n_small: time 1 - part 1e16 ... */
    cube_set_sev(c, part, n_small, t1, 1e16);
    cube_set_sev(c, time, n_small, t1, 1e16 + 2.0);
    assert_string_equal(cube_error(c), "");
    cube_status st;
    cube_view *v = cube_view_compute(c, time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0, &st);
    assert_non_null(v);
    /* root, thread 0: 1e16 + 1 - 1e16; thread 1: 3 + (1e16 + 2) */
    assert_true(cube_view_value(v, root, 0) == 1.0);
    assert_true(cube_view_value(v, root, 1) == 3.0 + (1e16 + 2.0));
    assert_true(cube_view_value(v, n_small, 0) == 1.0);
    assert_true(cube_view_value(v, n_big, 0) == -1e16);
    cube_view_free(v);
    v = cube_view_compute(c, time, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_INCLUSIVE, 0, &st);
    assert_non_null(v);
    /* n_small, thread 1: (1e16 + 2) - 1e16 = 2; the root adds its own 3 */
    assert_true(cube_view_value(v, n_small, 1) == 2.0);
    assert_true(cube_view_value(v, root, 1) == 5.0);
    cube_view_free(v);
    cube_free(c);
}

/* --- along the system tree ---------------------------------------------- */

static void test_system_sums(void **state)
{
    (void)state;
    experiment e = build();
    /* main inclusive: 29 4 5 7 7 */
    cube_view *v = view(&e, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0);
    double proc[4], node[3], mach[2], total;
    cube_status st = dirty_status();
    assert_int_equal(
        cube_system_sums(e.c, cube_view_row(v, e.n[0]), proc, node, mach, &total, &st), 0);
    assert_status_ok(&st);
    assert_row(proc, (const double[4]){33, 5, 7, 7}, 4);
    assert_row(node, (const double[3]){38, 7, 7}, 3);
    assert_row(mach, (const double[2]){45, 7}, 2);
    assert_true(total == 52);
    /* outputs are optional */
    assert_int_equal(
        cube_system_sums(e.c, cube_view_row(v, e.n[0]), NULL, NULL, mach, NULL, NULL), 0);
    assert_row(mach, (const double[2]){45, 7}, 2);
    assert_status_failed(cube_system_sums(e.c, NULL, proc, NULL, NULL, NULL, &st), &st,
                         CUBE_EINVAL);
    cube_view_free(v);
    cube_free(e.c);
}

/* --- the flat profile ---------------------------------------------------- */

static void test_flat_profile_with_subroutines(void **state)
{
    (void)state;
    experiment e = build();
    cube_view *v = view(&e, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE,
                        CUBE_VIEW_AGGREGATE);
    cube_status st = dirty_status();
    cube_flat *f = cube_flat_create(v, &st);
    assert_non_null(f);
    assert_status_ok(&st);
    cube_view_free(v); /* the profile does not need the view any more */
    assert_int_equal(cube_flat_width(f), 1);
    struct {
        const cube_region *r;
        double excl, incl, sub;
    } want[] = {
        /* main: excl 20; incl 52 (its one call path); the rest is called */
        {e.main_, 20, 52, 32},
        /* foo: c1 5 + c4 4; incl c1 15 + c4 4 (both outermost); sub 10
         * = MPI_Send under c1 */
        {e.foo, 9, 19, 10},
        /* bar: c3 5 + c7 1; incl c3 9 + c7 2 (c7 is under f, not bar:
         * outermost); sub = foo under c3 (4) + f under c7 (1) */
        {e.bar, 6, 11, 5},
        {e.send, 10, 10, 0},
        /* f recursive: excl c5 4 + c6 2 + c8 1 = 7; incl only the outermost
         * c5 (8), not + c6 4 + c8 1; sub = bar c7's own 1: f's own time
         * inside the recursion is not a subroutine */
        {e.f, 7, 8, 1},
        {e.init, 5, 5, 0},
    };
    double sum_excl = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const cube_region *r = want[i].r;
        double x = cube_flat_value(f, r, CUBE_FLAT_EXCLUSIVE, 0),
               in = cube_flat_value(f, r, CUBE_FLAT_INCLUSIVE, 0),
               s = cube_flat_value(f, r, CUBE_FLAT_SUBROUTINES, 0);
        if (x != want[i].excl || in != want[i].incl || s != want[i].sub)
            fail_msg("%s: got %g %g %g, want %g %g %g", cube_region_name(r), x, in, s,
                     want[i].excl,
                     want[i].incl, want[i].sub);
        sum_excl += x;
    }
    assert_true(sum_excl == 57); /* the exclusive values partition the total */
    assert_null(cube_flat_row(f, e.unused, CUBE_FLAT_EXCLUSIVE));
    assert_null(cube_flat_row(f, e.unused, CUBE_FLAT_INCLUSIVE));
    assert_true(cube_flat_value(f, e.unused, CUBE_FLAT_SUBROUTINES, 0) == 0);
    cube_flat_free(f);

    /* per thread */
    v = view(&e, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 0);
    f = cube_flat_create(v, NULL);
    assert_non_null(f);
    assert_row(cube_flat_row(f, e.foo, CUBE_FLAT_EXCLUSIVE), (const double[NT]){8, 0, 0, 1, 0},
               NT);
    assert_row(cube_flat_row(f, e.foo, CUBE_FLAT_INCLUSIVE),
               (const double[NT]){10, 2, 2, 3, 2}, NT);
    assert_row(cube_flat_row(f, e.foo, CUBE_FLAT_SUBROUTINES),
               (const double[NT]){2, 2, 2, 2, 2}, NT);
    assert_row(cube_flat_row(f, e.f, CUBE_FLAT_EXCLUSIVE), (const double[NT]){7, 0, 0, 0, 0},
               NT);
    assert_row(cube_flat_row(f, e.f, CUBE_FLAT_INCLUSIVE), (const double[NT]){8, 0, 0, 0, 0},
               NT);
    assert_row(cube_flat_row(f, e.f, CUBE_FLAT_SUBROUTINES),
               (const double[NT]){1, 0, 0, 0, 0}, NT);
    cube_flat_free(f);
    cube_view_free(v);

    /* metric-exclusive: MPI_Send 10 - mpi 7 = 3, main 20 - 1 = 19 */
    v = view(&e, e.time, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_EXCLUSIVE, CUBE_VIEW_AGGREGATE);
    f = cube_flat_create(v, NULL);
    assert_non_null(f);
    assert_true(cube_flat_value(f, e.send, CUBE_FLAT_EXCLUSIVE, 0) == 3);
    assert_true(cube_flat_value(f, e.main_, CUBE_FLAT_EXCLUSIVE, 0) == 19);
    assert_true(cube_flat_value(f, e.main_, CUBE_FLAT_INCLUSIVE, 0) == 44);
    assert_true(cube_flat_value(f, e.main_, CUBE_FLAT_SUBROUTINES, 0) == 25);
    cube_flat_free(f);
    cube_view_free(v);

    /* a call-inclusive view cannot give exclusive values */
    v = view(&e, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0);
    assert_null(cube_flat_create(v, &st));
    assert_status_failed(-1, &st, CUBE_EINVAL);
    cube_view_free(v);
    cube_free(e.c);
}

/* --- value modes ---------------------------------------------------------- */

static cube_mode_place at(cube_tree_kind tree)
{
    cube_mode_place p = {tree, {0, 0, 0}, 0};
    return p;
}

static cube_mode_place at_order(cube_tree_kind tree, cube_tree_kind a, cube_tree_kind b,
                                cube_tree_kind c)
{
    cube_mode_place p = {tree, {a, b, c}, 0};
    return p;
}

static void test_value_modes_metric_tree(void **state)
{
    (void)state;
    experiment e = build();
    double incl[5];
    assert_int_equal(cube_metric_tree_values(e.c, CUBE_METRIC_INCLUSIVE, incl, NULL), 0);
    /* an external experiment whose time is 114 in all */
    cube_t *x = cube_create();
    cube_metric *xt = cube_def_met(x, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_cnode *xn = cube_def_cnode(x, cube_def_region(x, "main", -1, -1, "", "", ""), NULL);
    cube_thread *xth = cube_def_thrd(
        x, "t", 0, cube_def_proc(x, "P", 0, cube_def_node(x, "n", cube_def_mach(x, "m", ""))));
    cube_set_sev(x, xt, xn, xth, 114);
    double xincl[1];
    assert_int_equal(cube_metric_tree_values(x, CUBE_METRIC_INCLUSIVE, xincl, NULL), 0);
    assert_true(xincl[0] == 114);

    cube_mode_place m = at(CUBE_TREE_METRIC);
    cube_mode_refs refs = {0};
    refs.own_root = incl[cube_metric_index(e.time)]; /* mpi's root is time: 57 */
    refs.external_root = xincl[0];
    double mpi = incl[cube_metric_index(e.mpi)]; /* 8 */
    assert_true(cube_value_in_mode(CUBE_MODE_ABSOLUTE, mpi, &refs, &m) == 8);
    assert_close(cube_value_in_mode(CUBE_MODE_OWN_ROOT_PERCENT, mpi, &refs, &m), 800.0 / 57);
    assert_close(cube_value_in_mode(CUBE_MODE_EXTERNAL_PERCENT, mpi, &refs, &m), 800.0 / 114);
    assert_close(cube_value_in_mode(CUBE_MODE_EXTERNAL_PERCENT, 57, &refs, &m), 50);
    /* the metric tree has no tree on its left */
    assert_true(isnan(cube_value_in_mode(CUBE_MODE_METRIC_ROOT_PERCENT, mpi, &refs, &m)));
    assert_true(isnan(cube_value_in_mode(CUBE_MODE_CALL_ROOT_PERCENT, mpi, &refs, &m)));
    assert_true(isnan(cube_value_in_mode(CUBE_MODE_PEER_PERCENT, mpi, &refs, &m)));
    /* a zero reference is undefined */
    refs.own_root = 0;
    assert_true(isnan(cube_value_in_mode(CUBE_MODE_OWN_ROOT_PERCENT, mpi, &refs, &m)));
    cube_free(x);
    cube_free(e.c);
}

static void test_value_modes_call_tree(void **state)
{
    (void)state;
    experiment e = build();
    double incl[5], excl[5];
    assert_int_equal(cube_metric_tree_values(e.c, CUBE_METRIC_INCLUSIVE, incl, NULL), 0);
    assert_int_equal(cube_metric_tree_values(e.c, CUBE_METRIC_EXCLUSIVE, excl, NULL), 0);
    cube_mode_place call = at(CUBE_TREE_CALL);

    /* time selected (collapsed); bar collapsed shows 9 of main's 52 */
    cube_view *v = view(&e, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE,
                        CUBE_VIEW_AGGREGATE);
    double bar = cube_view_value(v, e.n[3], 0);
    assert_true(bar == 9);
    cube_mode_refs refs = {0};
    refs.own_root = cube_view_value(v, e.n[0], 0); /* 52 */
    refs.metric_root = incl[cube_metric_index(e.time)];        /* 57 */
    refs.metric_selection = incl[cube_metric_index(e.time)];   /* 57 */
    assert_close(cube_value_in_mode(CUBE_MODE_OWN_ROOT_PERCENT, bar, &refs, &call),
                 900.0 / 52);
    assert_close(cube_value_in_mode(CUBE_MODE_METRIC_ROOT_PERCENT, bar, &refs, &call),
                 900.0 / 57);
    assert_close(cube_value_in_mode(CUBE_MODE_METRIC_SELECTION_PERCENT, bar, &refs, &call),
                 900.0 / 57);
    cube_view_free(v);

    /* mpi selected, collapsed: MPI_Send shows 7 of mpi's 8 = 87.5 %, and
     * 7 of the metric root time's 57 */
    v = view(&e, e.mpi, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, CUBE_VIEW_AGGREGATE);
    double send = cube_view_value(v, e.n[2], 0);
    assert_true(send == 7);
    refs.metric_selection = incl[cube_metric_index(e.mpi)];
    assert_true(cube_value_in_mode(CUBE_MODE_METRIC_SELECTION_PERCENT, send, &refs, &call) ==
                87.5);
    assert_close(cube_value_in_mode(CUBE_MODE_METRIC_ROOT_PERCENT, send, &refs, &call),
                 700.0 / 57);
    cube_view_free(v);

    /* mpi selected, expanded (exclusive: mpi without p2p): MPI_Send shows
     * 7 - 4 = 3 of mpi's exclusive 4 = 75 % */
    v = view(&e, e.mpi, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_INCLUSIVE, CUBE_VIEW_AGGREGATE);
    send = cube_view_value(v, e.n[2], 0);
    assert_true(send == 3);
    refs.metric_selection = excl[cube_metric_index(e.mpi)];
    assert_true(cube_value_in_mode(CUBE_MODE_METRIC_SELECTION_PERCENT, send, &refs, &call) ==
                75);
    cube_view_free(v);

    /* not defined for the call tree in the default order */
    assert_false(cube_value_mode_available(CUBE_MODE_CALL_ROOT_PERCENT, &call));
    assert_false(cube_value_mode_available(CUBE_MODE_CALL_SELECTION_PERCENT, &call));
    assert_false(cube_value_mode_available(CUBE_MODE_SYSTEM_ROOT_PERCENT, &call));
    assert_false(cube_value_mode_available(CUBE_MODE_PEER_PERCENT, &call));
    assert_false(cube_value_mode_available(CUBE_MODE_PEER_DISTRIBUTION, &call));
    assert_true(cube_value_mode_available(CUBE_MODE_EXTERNAL_PERCENT, &call));
    assert_true(isnan(cube_value_in_mode(CUBE_MODE_CALL_ROOT_PERCENT, 9, &refs, &call)));

    /* metric | system | call: the call tree shows the selected process P0
     * (t0 + t1); bar collapsed: 4 + 1 = 5.  System root percent: of P0's
     * machine M0 (time over everything on t0..t3: 30 + 5 + 6 + 8 = 49);
     * system selection percent: of P0 (30 + 5 = 35). */
    cube_mode_place msc = at_order(CUBE_TREE_CALL, CUBE_TREE_METRIC, CUBE_TREE_SYSTEM,
                                   CUBE_TREE_CALL);
    v = view(&e, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0);
    double per_thread[NT], proc[4], mach[2];
    assert_int_equal(cube_view_total(v, per_thread, NULL), 0);
    assert_int_equal(cube_system_sums(e.c, per_thread, proc, NULL, mach, NULL, NULL), 0);
    const double *bar_row = cube_view_row(v, e.n[3]);
    double bar_p0 = bar_row[0] + bar_row[1];
    assert_true(bar_p0 == 5);
    refs.system_root = mach[0];
    refs.system_selection = proc[0];
    assert_true(refs.system_root == 49 && refs.system_selection == 35);
    assert_close(cube_value_in_mode(CUBE_MODE_SYSTEM_ROOT_PERCENT, bar_p0, &refs, &msc),
                 500.0 / 49);
    assert_true(cube_value_in_mode(CUBE_MODE_SYSTEM_SELECTION_PERCENT, bar_p0, &refs, &msc) ==
                500.0 / 35);
    cube_view_free(v);
    cube_free(e.c);
}

static void test_value_modes_system_tree(void **state)
{
    (void)state;
    experiment e = build();
    /* time and foo selected, both collapsed: foo is 7 2 2 2 2 (15) */
    cube_view *v = view(&e, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0);
    const double *foo = cube_view_row(v, e.n[1]);
    double proc[4], mach[2], all;
    assert_int_equal(cube_system_sums(e.c, foo, proc, NULL, mach, &all, NULL), 0);
    assert_row(proc, (const double[4]){9, 2, 2, 2}, 4);
    assert_row(mach, (const double[2]){13, 2}, 2);
    cube_mode_refs refs = {0};
    refs.metric_root = 57;
    refs.metric_selection = 57;
    /* foo's call-tree root main, collapsed, over all threads: 52 */
    assert_int_equal(
        cube_system_sums(e.c, cube_view_row(v, e.n[0]), NULL, NULL, NULL, &refs.call_root, NULL),
        0);
    assert_true(refs.call_root == 52);
    refs.call_selection = all; /* foo collapsed: 15 */
    cube_mode_place sys = at(CUBE_TREE_SYSTEM);

    /* thread t0: 7; its machine M0: 13 */
    refs.own_root = mach[0];
    assert_close(cube_value_in_mode(CUBE_MODE_OWN_ROOT_PERCENT, foo[0], &refs, &sys),
                 700.0 / 13);
    assert_close(cube_value_in_mode(CUBE_MODE_METRIC_ROOT_PERCENT, foo[0], &refs, &sys),
                 700.0 / 57);
    assert_close(cube_value_in_mode(CUBE_MODE_METRIC_SELECTION_PERCENT, foo[0], &refs, &sys),
                 700.0 / 57);
    assert_close(cube_value_in_mode(CUBE_MODE_CALL_ROOT_PERCENT, foo[0], &refs, &sys),
                 700.0 / 52);
    assert_close(cube_value_in_mode(CUBE_MODE_CALL_SELECTION_PERCENT, foo[0], &refs, &sys),
                 700.0 / 15);
    /* process P0, collapsed: 9 of M0's 13; expanded: undefined */
    assert_close(cube_value_in_mode(CUBE_MODE_OWN_ROOT_PERCENT, proc[0], &refs, &sys),
                 900.0 / 13);
    cube_mode_place expanded = sys;
    expanded.expanded_system_item = 1;
    assert_true(isnan(cube_value_in_mode(CUBE_MODE_ABSOLUTE, 0, &refs, &expanded)));
    assert_true(isnan(cube_value_in_mode(CUBE_MODE_OWN_ROOT_PERCENT, 0, &refs, &expanded)));

    /* peers: the processes 9 2 2 2 */
    assert_int_equal(cube_peer_range(proc, 4, &refs.peer_min, &refs.peer_max, NULL), 0);
    assert_true(refs.peer_min == 2 && refs.peer_max == 9);
    assert_close(cube_value_in_mode(CUBE_MODE_PEER_PERCENT, proc[1], &refs, &sys),
                 200.0 / 9);
    assert_true(cube_value_in_mode(CUBE_MODE_PEER_PERCENT, proc[0], &refs, &sys) == 100);
    assert_true(cube_value_in_mode(CUBE_MODE_PEER_DISTRIBUTION, proc[1], &refs, &sys) == 0);
    assert_true(cube_value_in_mode(CUBE_MODE_PEER_DISTRIBUTION, proc[0], &refs, &sys) == 100);
    /* the manual's example: threads 100, 120, 200 */
    const double peers[3] = {100, 120, 200};
    assert_int_equal(cube_peer_range(peers, 3, &refs.peer_min, &refs.peer_max, NULL), 0);
    const double pp[3] = {50, 60, 100}, pd[3] = {0, 20, 100};
    for (int i = 0; i < 3; i++) {
        assert_true(cube_value_in_mode(CUBE_MODE_PEER_PERCENT, peers[i], &refs, &sys) == pp[i]);
        assert_true(cube_value_in_mode(CUBE_MODE_PEER_DISTRIBUTION, peers[i], &refs, &sys) ==
                    pd[i]);
    }
    /* all peers equal: no scale */
    refs.peer_min = refs.peer_max = 2;
    assert_true(isnan(cube_value_in_mode(CUBE_MODE_PEER_DISTRIBUTION, 2, &refs, &sys)));
    cube_status st;
    assert_status_failed(cube_peer_range(peers, 0, &refs.peer_min, &refs.peer_max, &st), &st,
                         CUBE_EINVAL);
    /* the system tree is rightmost: no system root/selection percent */
    assert_false(cube_value_mode_available(CUBE_MODE_SYSTEM_ROOT_PERCENT, &sys));
    assert_false(cube_value_mode_available(CUBE_MODE_SYSTEM_SELECTION_PERCENT, &sys));
    assert_true(cube_value_mode_available(CUBE_MODE_EXTERNAL_PERCENT, &sys));
    cube_view_free(v);
    cube_free(e.c);
}

static void test_value_modes_availability(void **state)
{
    (void)state;
    const cube_tree_kind M = CUBE_TREE_METRIC, C = CUBE_TREE_CALL, S = CUBE_TREE_SYSTEM;
    /* the manual's example: call | metric | system: the metric tree offers
     * no call root percent; the call tree's values are undefined */
    cube_mode_place p = at_order(M, C, M, S);
    assert_false(cube_value_mode_available(CUBE_MODE_CALL_ROOT_PERCENT, &p));
    assert_true(cube_value_mode_available(CUBE_MODE_OWN_ROOT_PERCENT, &p));
    assert_false(cube_value_mode_available(CUBE_MODE_EXTERNAL_PERCENT, &p));
    p = at_order(C, C, M, S);
    assert_false(cube_value_mode_available(CUBE_MODE_ABSOLUTE, &p));
    assert_true(isnan(cube_value_in_mode(CUBE_MODE_ABSOLUTE, 1, NULL, &p)));
    p = at_order(S, C, M, S);
    assert_true(cube_value_mode_available(CUBE_MODE_METRIC_ROOT_PERCENT, &p));
    assert_false(cube_value_mode_available(CUBE_MODE_CALL_SELECTION_PERCENT, &p));
    assert_true(cube_value_mode_available(CUBE_MODE_PEER_PERCENT, &p));
    /* metric | system | call */
    p = at_order(C, M, S, C);
    assert_true(cube_value_mode_available(CUBE_MODE_SYSTEM_ROOT_PERCENT, &p));
    assert_true(cube_value_mode_available(CUBE_MODE_SYSTEM_SELECTION_PERCENT, &p));
    assert_false(cube_value_mode_available(CUBE_MODE_CALL_ROOT_PERCENT, &p));
    p = at_order(S, M, S, C);
    assert_true(cube_value_mode_available(CUBE_MODE_PEER_DISTRIBUTION, &p));
    assert_false(cube_value_mode_available(CUBE_MODE_CALL_ROOT_PERCENT, &p));
    /* default order, system tree: everything but system root/selection */
    p = at(S);
    for (int m = 0; m < CUBE_NUM_VALUE_MODES; m++)
        assert_int_equal(cube_value_mode_available((cube_value_mode)m, &p),
                         m != CUBE_MODE_SYSTEM_ROOT_PERCENT &&
                             m != CUBE_MODE_SYSTEM_SELECTION_PERCENT);
    /* invalid places */
    p = at_order(M, M, M, S);
    assert_false(cube_value_mode_available(CUBE_MODE_ABSOLUTE, &p));
    p = at((cube_tree_kind)0);
    assert_false(cube_value_mode_available(CUBE_MODE_ABSOLUTE, &p));
    assert_false(cube_value_mode_available(CUBE_MODE_ABSOLUTE, NULL));
    p = at(M);
    assert_true(isnan(cube_value_in_mode((cube_value_mode)99, 1, NULL, &p)));
    assert_true(isnan(cube_value_in_mode(CUBE_MODE_ABSOLUTE, NAN, NULL, &p)));
    /* names */
    for (int m = 0; m < CUBE_NUM_VALUE_MODES; m++) {
        cube_value_mode back;
        const char *name = cube_value_mode_name((cube_value_mode)m);
        assert_non_null(name);
        cube_status st = dirty_status();
        assert_int_equal(cube_value_mode_parse(name, &back, &st), 0);
        assert_status_ok(&st);
        assert_int_equal(back, m);
    }
    assert_string_equal(cube_value_mode_name(CUBE_MODE_PEER_DISTRIBUTION), "peer-distribution");
    cube_value_mode back;
    cube_status st;
    assert_status_failed(cube_value_mode_parse("relative", &back, &st), &st, CUBE_EINVAL);
    assert_null(cube_value_mode_name((cube_value_mode)CUBE_NUM_VALUE_MODES));
}

/* --- statistics ----------------------------------------------------------- */

static void test_stats_even_count(void **state)
{
    (void)state;
    const double v[4] = {4, 1, 3, 2};
    cube_stats st;
    assert_int_equal(cube_stats_compute(v, 4, &st, NULL), 0);
    assert_int_equal(st.count, 4);
    assert_true(st.sum == 10 && st.mean == 2.5);
    assert_true(st.minimum == 1 && st.maximum == 4);
    /* type 7: h = 3 * 0.25 = 0.75 -> 1 + 0.75 * (2 - 1) */
    assert_true(st.quartile25 == 1.75);
    assert_true(st.median == 2.5);
    assert_true(st.quartile75 == 3.25);
    /* sample variance: (2.25 + 0.25 + 0.25 + 2.25) / 3 */
    assert_close(st.variance, 5.0 / 3);
    assert_true(v[0] == 4 && v[1] == 1); /* the input is not sorted in place */
}

static void test_stats_odd_count(void **state)
{
    (void)state;
    const double v[5] = {5, 1, 4, 2, 3};
    cube_stats st;
    assert_int_equal(cube_stats_compute(v, 5, &st, NULL), 0);
    assert_true(st.quartile25 == 2 && st.median == 3 && st.quartile75 == 4);
    assert_true(st.variance == 2.5); /* (4 + 1 + 0 + 1 + 4) / 4 */
    /* 7 values: h = 1.5 and 4.5, between ranks */
    const double w[7] = {7, 1, 6, 2, 5, 3, 4};
    assert_int_equal(cube_stats_compute(w, 7, &st, NULL), 0);
    assert_true(st.quartile25 == 2.5 && st.median == 4 && st.quartile75 == 5.5);
    /* main's inclusive time across the threads: 29 4 5 7 7 */
    const double t[5] = {29, 4, 5, 7, 7};
    assert_int_equal(cube_stats_compute(t, 5, &st, NULL), 0);
    assert_true(st.sum == 52 && st.minimum == 4 && st.maximum == 29);
    assert_true(st.quartile25 == 5 && st.median == 7 && st.quartile75 == 7);
    assert_close(st.mean, 10.4);
    assert_close(st.variance, 109.8); /* 439.2 / 4 */
}

static void test_stats_variance_and_edges(void **state)
{
    (void)state;
    /* the classic set: population variance 4, sample variance 32 / 7 */
    const double v[8] = {2, 4, 4, 4, 5, 5, 7, 9};
    cube_stats st;
    assert_int_equal(cube_stats_compute(v, 8, &st, NULL), 0);
    assert_true(st.mean == 5);
    assert_close(st.variance, 32.0 / 7);
    assert_true(st.quartile25 == 4 && st.median == 4.5 && st.quartile75 == 5.5);
    /* a large offset does not ruin the variance (two passes) */
    const double big[3] = {1e9 + 4, 1e9 + 7, 1e9 + 13};
    assert_int_equal(cube_stats_compute(big, 3, &st, NULL), 0);
    assert_true(st.variance == 21); /* deviations -4 -1 5: 42 / 2 */
    /* one value: no variance, the quartiles are the value */
    const double one = 3.5;
    assert_int_equal(cube_stats_compute(&one, 1, &st, NULL), 0);
    assert_true(isnan(st.variance));
    assert_true(st.quartile25 == 3.5 && st.median == 3.5 && st.quartile75 == 3.5);
    /* none */
    assert_int_equal(cube_stats_compute(NULL, 0, &st, NULL), 0);
    assert_int_equal(st.count, 0);
    assert_true(st.sum == 0 && isnan(st.mean) && isnan(st.median));
    /* NaN is rejected; unsorted input to the sorted variant too */
    const double bad[2] = {1, NAN};
    cube_status status;
    assert_status_failed(cube_stats_compute(bad, 2, &st, &status), &status, CUBE_EINVAL);
    const double unsorted[2] = {2, 1};
    assert_status_failed(cube_stats_of_sorted(unsorted, 2, &st, &status), &status, CUBE_EINVAL);
    /* and a success clears the status again */
    assert_int_equal(cube_stats_of_sorted((const double[3]){1, 2, 4}, 3, &st, &status), 0);
    assert_status_ok(&status);
    /* quantiles at the ends and outside */
    const double s[3] = {1, 2, 4};
    assert_true(cube_quantile_sorted(s, 3, 0) == 1);
    assert_true(cube_quantile_sorted(s, 3, 1) == 4);
    assert_true(cube_quantile_sorted(s, 3, 0.75) == 3);
    assert_true(isnan(cube_quantile_sorted(s, 3, 1.5)));
    assert_true(isnan(cube_quantile_sorted(s, 0, 0.5)));
    /* huge values: interpolation without overflow */
    const double h[2] = {-1e308, 1e308};
    assert_true(cube_quantile_sorted(h, 2, 0.5) == 0);
}

/* --- streaming, memory per metric, errors ------------------------------- */

static void test_streamed_rows_equal_stored(void **state)
{
    (void)state;
    experiment e = build();
    char *path = temp_path(".cube");
    assert_int_equal(cube_write_file(e.c, path, 0), 0);
    cube_reader *r = cube_reader_open(path);
    assert_non_null(r);
    const cube_t *defs = cube_reader_definitions(r);
    assert_non_null(defs);
    const cube_metric *time = cube_find_metric(defs, "time");
    assert_non_null(time);
    cube_status st = dirty_status();
    cube_view *incl = cube_view_create(defs, time, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_INCLUSIVE,
                                       0, &st);
    assert_non_null(incl);
    assert_status_ok(&st);
    const cube_metric *met;
    const cube_cnode *cnode;
    const double *values;
    int rc;
    while ((rc = cube_reader_next_row(r, &met, &cnode, &values)) == 1)
        assert_int_equal(cube_view_add_row(incl, met, cnode, values), 0);
    assert_int_equal(rc, 0);
    /* only time and its child mpi were kept: main, foo, MPI_Send, bar, foo,
     * f, f, bar, f, init all have time rows */
    assert_int_equal(cube_view_num_rows(incl), 10);
    assert_null(cube_view_row(incl, cnode)); /* not finished yet */
    assert_int_equal(cube_view_finish(incl), 0);
    cube_view *stored = view(&e, e.time, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_INCLUSIVE, 0);
    for (size_t i = 0; i < 10; i++)
        assert_row(cube_view_row(incl, cube_get_cnode(defs, i)),
                   cube_view_row(stored, e.n[i]), NT);
    assert_row(cube_view_row(incl, cube_get_cnode(defs, 0)), (const double[NT]){26, 3, 3, 5, 7},
               NT);
    /* rows after finishing */
    assert_view_failed(cube_view_add_row(incl, time, cube_get_cnode(defs, 0), values), incl,
                       CUBE_ESTATE);
    assert_view_failed(cube_view_finish(incl), incl, CUBE_ESTATE);
    /* a call path of another experiment */
    cube_view *other = cube_view_create(defs, time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 0,
                                        &st);
    assert_non_null(other);
    const double zeros[NT] = {0};
    assert_view_failed(cube_view_add_row(other, time, e.n[0], zeros), other, CUBE_EINVAL);
    cube_view_free(other);
    cube_view_free(stored);
    cube_view_free(incl);
    cube_reader_close(r);
    unlink(path);
    free(path);
    cube_free(e.c);
}

static void test_errors_and_void(void **state)
{
    (void)state;
    experiment e = build();
    cube_status st;
    /* a VOID metric has no values */
    cube_view *v = view(&e, e.ghost, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0);
    assert_int_equal(cube_view_num_rows(v), 0);
    assert_false(cube_view_wants(v, e.ghost));
    cube_view_free(v);
    /* streaming a VOID child row into a metric-exclusive view: nothing */
    v = cube_view_create(e.c, e.time, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_STORED, 0, &st);
    assert_non_null(v);
    const double hundred[NT] = {100, 100, 100, 100, 100};
    assert_int_equal(cube_view_add_row(v, e.ghost, e.n[0], hundred), 0);
    assert_int_equal(cube_view_add_row(v, e.visits, e.n[0], hundred), 0);
    assert_int_equal(cube_view_num_rows(v), 0);
    assert_view_failed(cube_view_add_row(v, e.time, e.n[0], NULL), v, CUBE_EINVAL);
    double total[NT];
    assert_status_failed(cube_view_total(v, total, &st), &st, CUBE_ESTATE);
    assert_null(cube_view_rows(v));
    assert_null(cube_flat_create(v, &st));
    assert_status_failed(-1, &st, CUBE_ESTATE);
    cube_view_free(v);
    /* bad arguments */
    assert_null(cube_view_create(e.c, NULL, CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 0, &st));
    assert_status_failed(-1, &st, CUBE_EINVAL);
    assert_null(cube_view_create(e.c, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 4, &st));
    assert_status_failed(-1, &st, CUBE_EINVAL);
    assert_null(cube_view_create(e.c, e.time, (cube_metric_flavour)7, CUBE_CALL_STORED, 0, &st));
    assert_status_failed(-1, &st, CUBE_EINVAL);
    cube_t *x = cube_create();
    cube_metric *xm = cube_def_met(x, "T", "time", "FLOAT", "sec", "", "", "", NULL);
    assert_null(cube_view_create(e.c, xm, CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 0, &st));
    assert_status_failed(-1, &st, CUBE_EINVAL);
    cube_free(x);
    /* a NULL status is allowed on failure too */
    assert_null(cube_view_create(e.c, NULL, CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 0, NULL));
    assert_string_equal(cube_code_text(CUBE_ENOMEM), "out of memory");
    assert_non_null(cube_code_text((cube_code)12345));
    cube_free(e.c);
}

/* The view keeps why its last call failed, and only until the next call
 * that succeeds: a caller never sees an error that is over. */
static void test_view_error_cleared_by_success(void **state)
{
    (void)state;
    experiment e = build();
    cube_view *v = cube_view_create(e.c, e.time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_STORED, 0, NULL);
    assert_non_null(v);
    assert_int_equal(cube_view_error_code(v), CUBE_OK);
    assert_string_equal(cube_view_error(v), "");
    const double one[NT] = {1, 1, 1, 1, 1};
    /* no values: fails, and says so */
    assert_view_failed(cube_view_add_row(v, e.time, e.n[0], NULL), v, CUBE_EINVAL);
    /* the next row is fine: the error is gone */
    assert_int_equal(cube_view_add_row(v, e.time, e.n[0], one), 0);
    assert_int_equal(cube_view_error_code(v), CUBE_OK);
    assert_true(cube_view_error(v)[0] == '\0');
    /* a call path of another experiment fails; finishing then succeeds */
    cube_t *x = cube_create();
    cube_cnode *xn = cube_def_cnode(x, cube_def_region(x, "main", -1, -1, "", "", ""), NULL);
    assert_non_null(xn);
    assert_view_failed(cube_view_add_row(v, e.time, xn, one), v, CUBE_EINVAL);
    assert_int_equal(cube_view_finish(v), 0);
    assert_int_equal(cube_view_error_code(v), CUBE_OK);
    assert_true(cube_view_error(v)[0] == '\0');
    assert_row(cube_view_row(v, e.n[0]), one, NT);
    /* after finishing, a row is out of order */
    assert_view_failed(cube_view_add_row(v, e.time, e.n[1], one), v, CUBE_ESTATE);
    cube_free(x);
    cube_view_free(v);
    cube_free(e.c);
}

static void test_deep_recursive_tree(void **state)
{
    (void)state;
    /* a chain 100 000 deep, alternating f and g, 1 on each call path: no
     * recursion in the library, so no stack overflow */
    enum { DEPTH = 100000 };
    cube_t *c = deep_call_chain(DEPTH);
    const cube_metric *m = cube_find_metric(c, "time");
    const cube_cnode *first = cube_get_cnode(c, 0), *second = cube_get_cnode(c, 1);
    const cube_cnode *n = cube_get_cnode(c, DEPTH - 1);
    const cube_region *f = cube_get_region(c, 0), *g = cube_get_region(c, 1);
    assert_string_equal(cube_region_name(f), "f");
    assert_string_equal(cube_region_name(g), "g");
    cube_status st;
    cube_view *v = cube_view_compute(c, m, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0, &st);
    assert_non_null(v);
    assert_true(cube_view_value(v, first, 0) == DEPTH);
    assert_true(cube_view_value(v, second, 0) == DEPTH - 1);
    assert_true(cube_view_value(v, n, 0) == 1);
    cube_view_free(v);
    v = cube_view_compute(c, m, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, 0, &st);
    assert_non_null(v);
    cube_flat *fl = cube_flat_create(v, &st);
    assert_non_null(fl);
    /* f: excl 50 000, incl the outermost f (all 100 000), the g parts 50 000;
     * g: excl 50 000, incl the outermost g (99 999), f below it 49 999 */
    assert_true(cube_flat_value(fl, f, CUBE_FLAT_EXCLUSIVE, 0) == DEPTH / 2);
    assert_true(cube_flat_value(fl, f, CUBE_FLAT_INCLUSIVE, 0) == DEPTH);
    assert_true(cube_flat_value(fl, f, CUBE_FLAT_SUBROUTINES, 0) == DEPTH / 2);
    assert_true(cube_flat_value(fl, g, CUBE_FLAT_EXCLUSIVE, 0) == DEPTH / 2);
    assert_true(cube_flat_value(fl, g, CUBE_FLAT_INCLUSIVE, 0) == DEPTH - 1);
    assert_true(cube_flat_value(fl, g, CUBE_FLAT_SUBROUTINES, 0) == DEPTH / 2 - 1);
    cube_flat_free(fl);
    cube_view_free(v);
    cube_free(c);
}

static void test_percent_of_itself_is_100(void **state)
{
    (void)state;
    /* (100 * v) / v is 99.99999999999999 for this v: a value that is its
     * own reference must still show as exactly 100 % */
    const double v = 0.0938595867742349;
    assert_true((100.0 * v) / v != 100.0);
    cube_mode_place m = at(CUBE_TREE_METRIC);
    cube_mode_refs refs = {0};
    refs.own_root = v;
    assert_true(cube_value_in_mode(CUBE_MODE_OWN_ROOT_PERCENT, v, &refs, &m) == 100.0);
}

/* --- MAXDOUBLE and MINDOUBLE metrics (testdata/views/minmax.cube) ------- */

/* The hand-made file: threads 0, 1 in process 0 on node a, thread 2 in
 * process 1 on node b; call paths 0 main, 1 main/f, 2 main/f/f, 3
 * main/f/f/g, 4 main/g.  max_t rows: 0 (-5 -1 -7), 1 (2 -3 1), 3 (4 0 -2);
 * min_t rows: 0 (5 3 4), 2 (2 6 7), 3 (-1 8 9), 4 (0 3 3); time rows:
 * 0 (1 1 1), 1 (2 2 2), 3 (1 1 1) with the MAXDOUBLE child peak at 1 (0.5
 * each); max_t's DOUBLE child time_in_max at 0 (1 2 3). */
static cube_t *minmax_file(void)
{
    return read_ok(testdata("views/minmax.cube"));
}

static void test_minmax_combine_rule(void **state)
{
    (void)state;
    cube_t *c = minmax_file();
    assert_int_equal(cube_metric_combine(cube_find_metric(c, "max_t")), CUBE_COMBINE_MAX);
    assert_int_equal(cube_metric_combine(cube_find_metric(c, "min_t")), CUBE_COMBINE_MIN);
    assert_int_equal(cube_metric_combine(cube_find_metric(c, "time")), CUBE_COMBINE_SUM);
    assert_int_equal(cube_metric_combine(NULL), CUBE_COMBINE_SUM);
    const double v[3] = {-5, -1, -7};
    assert_true(cube_combine_values(CUBE_COMBINE_MAX, v, 3) == -1);
    assert_true(cube_combine_values(CUBE_COMBINE_MIN, v, 3) == -7);
    assert_true(cube_combine_values(CUBE_COMBINE_SUM, v, 3) == -13);
    /* nothing combined: no value, the neutral element (a sum's is 0) */
    assert_true(cube_combine_values(CUBE_COMBINE_MAX, v, 0) == -DBL_MAX);
    assert_true(cube_combine_values(CUBE_COMBINE_MIN, v, 0) == DBL_MAX);
    assert_true(cube_combine_values(CUBE_COMBINE_SUM, v, 0) == 0);
    assert_true(cube_combine_neutral(CUBE_COMBINE_MAX) == -DBL_MAX);
    assert_true(cube_combine_neutral(CUBE_COMBINE_MIN) == DBL_MAX);
    assert_true(cube_combine_neutral(CUBE_COMBINE_SUM) == 0);
    cube_free(c);
}

static void test_minmax_call_tree_and_threads(void **state)
{
    (void)state;
    cube_t *c = minmax_file();
    const cube_metric *max_t = cube_find_metric(c, "max_t"), *min_t = cube_find_metric(c, "min_t");
    cube_status st;
    /* inclusive at main per thread: the largest of the subtree's values */
    cube_view *v = cube_view_compute(c, max_t, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0, &st);
    assert_non_null(v);
    assert_row(cube_view_row(v, cube_get_cnode(c, 0)), (const double[3]){4, 0, 1}, 3);
    /* main/f/f has no row of its own: its inclusive value is g's below it */
    assert_row(cube_view_row(v, cube_get_cnode(c, 2)), (const double[3]){4, 0, -2}, 3);
    assert_null(cube_view_row(v, cube_get_cnode(c, 4)));
    cube_view_free(v);
    /* aggregated: the largest over threads, and inclusive over the subtree */
    v = cube_view_compute(c, max_t, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE,
                          CUBE_VIEW_AGGREGATE, &st);
    assert_true(cube_view_value(v, cube_get_cnode(c, 0), 0) == -1);
    double total;
    assert_int_equal(cube_view_total(v, &total, NULL), 0);
    assert_true(total == 4);
    cube_view_free(v);
    /* min_t: main/f has no row, so it does not make the minimum 0 */
    v = cube_view_compute(c, min_t, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE,
                          CUBE_VIEW_AGGREGATE, &st);
    assert_true(cube_view_value(v, cube_get_cnode(c, 1), 0) == -1);
    assert_true(cube_view_value(v, cube_get_cnode(c, 4), 0) == 0); /* a stored 0 counts */
    cube_view_free(v);
    v = cube_view_compute(c, min_t, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, 0, &st);
    assert_null(cube_view_row(v, cube_get_cnode(c, 1)));
    double per_thread[3];
    assert_int_equal(cube_view_total(v, per_thread, NULL), 0);
    assert_row(per_thread, (const double[3]){-1, 3, 3}, 3);
    cube_view_free(v);
    cube_free(c);
}

static void test_minmax_system_tree(void **state)
{
    (void)state;
    cube_t *c = minmax_file();
    double proc[2], node[2], mach[1], total;
    const double max_row[3] = {-5, -1, -7}, min_row[3] = {5, 3, 4};
    assert_int_equal(
        cube_system_combine(c, CUBE_COMBINE_MAX, max_row, proc, node, mach, &total, NULL), 0);
    assert_row(proc, (const double[2]){-1, -7}, 2);
    assert_row(node, (const double[2]){-1, -7}, 2);
    assert_row(mach, (const double[1]){-1}, 1);
    assert_true(total == -1);
    assert_int_equal(
        cube_system_combine(c, CUBE_COMBINE_MIN, min_row, proc, node, mach, &total, NULL), 0);
    assert_row(proc, (const double[2]){3, 4}, 2);
    assert_row(node, (const double[2]){3, 4}, 2);
    assert_row(mach, (const double[1]){3}, 1);
    assert_true(total == 3);
    cube_status st;
    assert_status_failed(
        cube_system_combine(c, (cube_combine_rule)7, min_row, proc, NULL, NULL, NULL, &st), &st,
        CUBE_EINVAL);
    cube_free(c);
}

/* A system tree of any depth (CUBE 4): machine > rack > board (one
 * process) and rack > card > blade (two processes), and a second machine
 * with one node; a node has the values of everything below it, and a
 * machine those of every node below it, with the nodes' values asked for
 * or not. */
static void test_nested_system_tree(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    assert_non_null(c);
    cube_machine *m = cube_def_mach(c, "machine", "");
    cube_node *rack = cube_def_stn(c, "rack", "rack", "", m, NULL);
    cube_node *board = cube_def_stn(c, "board", "board", "", m, rack);
    cube_node *card = cube_def_stn(c, "card", "card", "", m, rack);
    cube_node *blade = cube_def_stn(c, "blade", "blade", "", m, card);
    assert_non_null(blade);
    cube_def_thrd(c, "t", 0, cube_def_proc(c, "p0", 0, board));
    cube_process *p1 = cube_def_proc(c, "p1", 1, blade);
    cube_def_thrd(c, "t", 0, p1);
    cube_def_thrd(c, "t", 1, p1);
    cube_def_thrd(c, "t", 0, cube_def_proc(c, "p2", 2, blade));
    cube_machine *m2 = cube_def_mach(c, "other", "");
    cube_def_thrd(c, "t", 0, cube_def_proc(c, "p3", 3, cube_def_node(c, "n", m2)));
    const double row[5] = {1, 2, 4, 8, 16};
    double proc[4], node[5], mach[2], total;
    assert_int_equal(cube_system_combine(c, CUBE_COMBINE_SUM, row, proc, node, mach, &total, NULL),
                     0);
    assert_row(proc, (const double[4]){1, 6, 8, 16}, 4);
    /* rack, board, card, blade, n */
    assert_row(node, (const double[5]){15, 1, 14, 14, 16}, 5);
    assert_row(mach, (const double[2]){15, 16}, 2);
    assert_true(total == 31);
    assert_int_equal(cube_system_combine(c, CUBE_COMBINE_MAX, row, NULL, node, mach, NULL, NULL),
                     0);
    assert_row(node, (const double[5]){8, 1, 8, 8, 16}, 5);
    assert_row(mach, (const double[2]){8, 16}, 2);
    /* the machines alone, without the nodes' values */
    assert_int_equal(cube_system_combine(c, CUBE_COMBINE_MIN, row, NULL, NULL, mach, NULL, NULL),
                     0);
    assert_row(mach, (const double[2]){1, 16}, 2);
    assert_int_equal(cube_system_combine(c, CUBE_COMBINE_SUM, row, NULL, NULL, mach, NULL, NULL),
                     0);
    assert_row(mach, (const double[2]){15, 16}, 2);
    cube_free(c);
}

static void test_minmax_metric_tree_and_totals(void **state)
{
    (void)state;
    cube_t *c = minmax_file();
    size_t nm = cube_num_metrics(c);
    double totals[5], excl[5];
    assert_int_equal(nm, 5);
    assert_int_equal(cube_metric_totals(c, totals, NULL), 0);
    size_t time = cube_metric_index(cube_find_metric(c, "time")),
           peak = cube_metric_index(cube_find_metric(c, "peak")),
           max_t = cube_metric_index(cube_find_metric(c, "max_t")),
           min_t = cube_metric_index(cube_find_metric(c, "min_t")),
           tim = cube_metric_index(cube_find_metric(c, "time_in_max"));
    assert_true(totals[time] == 12 && totals[peak] == 0.5 && totals[max_t] == 4 &&
                totals[min_t] == -1 && totals[tim] == 6);
    assert_int_equal(cube_metric_tree_values(c, CUBE_METRIC_EXCLUSIVE, excl, NULL), 0);
    /* a maximum is no part of the sum above it, and loses nothing below */
    assert_true(excl[time] == 12);
    assert_true(excl[max_t] == 4);
    /* the views agree */
    cube_status st;
    cube_view *v = cube_view_compute(c, cube_get_metric(c, time), CUBE_METRIC_EXCLUSIVE,
                                     CUBE_CALL_EXCLUSIVE, CUBE_VIEW_AGGREGATE, &st);
    assert_true(cube_view_value(v, cube_get_cnode(c, 1), 0) == 6);
    cube_view_free(v);
    v = cube_view_compute(c, cube_get_metric(c, max_t), CUBE_METRIC_EXCLUSIVE,
                          CUBE_CALL_EXCLUSIVE, CUBE_VIEW_AGGREGATE, &st);
    assert_true(cube_view_value(v, cube_get_cnode(c, 0), 0) == -1);
    cube_view_free(v);
    cube_free(c);
}

static void test_minmax_flat_profile(void **state)
{
    (void)state;
    cube_t *c = minmax_file();
    cube_status st;
    cube_view *v = cube_view_compute(c, cube_find_metric(c, "max_t"), CUBE_METRIC_INCLUSIVE,
                                     CUBE_CALL_EXCLUSIVE, CUBE_VIEW_AGGREGATE, &st);
    cube_flat *f = cube_flat_create(v, &st);
    assert_non_null(f);
    const cube_region *main_r = cube_get_region(c, 0), *f_r = cube_get_region(c, 1),
                      *g_r = cube_get_region(c, 2);
    /* aggregated rows: main -1, main/f 2, main/f/f/g 4 */
    assert_true(cube_flat_value(f, main_r, CUBE_FLAT_EXCLUSIVE, 0) == -1);
    assert_true(cube_flat_value(f, main_r, CUBE_FLAT_INCLUSIVE, 0) == 4);
    assert_true(cube_flat_value(f, main_r, CUBE_FLAT_SUBROUTINES, 0) == 4);
    assert_true(cube_flat_value(f, f_r, CUBE_FLAT_EXCLUSIVE, 0) == 2);
    assert_true(cube_flat_value(f, f_r, CUBE_FLAT_INCLUSIVE, 0) == 4);
    assert_true(cube_flat_value(f, f_r, CUBE_FLAT_SUBROUTINES, 0) == 4);
    assert_true(cube_flat_value(f, g_r, CUBE_FLAT_EXCLUSIVE, 0) == 4);
    assert_true(cube_flat_value(f, g_r, CUBE_FLAT_INCLUSIVE, 0) == 4);
    assert_null(cube_flat_row(f, g_r, CUBE_FLAT_SUBROUTINES)); /* g calls nothing */
    cube_flat_free(f);
    cube_view_free(v);
    /* per thread, negative values: thread 2 of f: exclusive 1 (main/f),
     * Subroutines -2 (g below main/f/f), inclusive the larger */
    v = cube_view_compute(c, cube_find_metric(c, "max_t"), CUBE_METRIC_INCLUSIVE,
                          CUBE_CALL_EXCLUSIVE, 0, &st);
    f = cube_flat_create(v, &st);
    assert_row(cube_flat_row(f, f_r, CUBE_FLAT_EXCLUSIVE), (const double[3]){2, -3, 1}, 3);
    assert_row(cube_flat_row(f, f_r, CUBE_FLAT_SUBROUTINES), (const double[3]){4, 0, -2}, 3);
    assert_row(cube_flat_row(f, f_r, CUBE_FLAT_INCLUSIVE), (const double[3]){4, 0, 1}, 3);
    cube_flat_free(f);
    cube_view_free(v);
    cube_free(c);
}

static void test_metric_named(void **state)
{
    (void)state;
    cube_t *c = minmax_file();
    size_t n = 9;
    assert_null(cube_find_metric_named(c, "Time", &n));
    assert_int_equal(n, 2);
    char buf[64];
    assert_int_equal(cube_metric_name_candidates(c, "Time", buf, sizeof buf), 2);
    assert_string_equal(buf, "time, time_in_max");
    assert_int_equal(cube_metric_name_candidates(c, "Time", buf, 8), 2);
    assert_string_equal(buf, "time...");
    assert_ptr_equal(cube_find_metric_named(c, "time", &n), cube_find_metric(c, "time"));
    assert_int_equal(n, 1);
    assert_ptr_equal(cube_find_metric_named(c, "Maximum Time", &n), cube_find_metric(c, "max_t"));
    assert_int_equal(n, 1);
    assert_null(cube_find_metric_named(c, "nosuch", &n));
    assert_int_equal(n, 0);
    assert_int_equal(cube_metric_name_candidates(c, "nosuch", buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    /* a third metric named Time: the count says all three, as the list does */
    assert_non_null(cube_def_met(c, "Time", "time_third", "FLOAT", "sec", "", "", "", NULL));
    assert_null(cube_find_metric_named(c, "Time", &n));
    assert_int_equal(n, 3);
    assert_int_equal(cube_metric_name_candidates(c, "Time", buf, sizeof buf), 3);
    assert_string_equal(buf, "time, time_in_max, time_third");
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metric_exclusive_of_a_parent),
        cmocka_unit_test(test_call_inclusive_of_a_subtree),
        cmocka_unit_test(test_sums_stay_compensated),
        cmocka_unit_test(test_system_sums),
        cmocka_unit_test(test_flat_profile_with_subroutines),
        cmocka_unit_test(test_value_modes_metric_tree),
        cmocka_unit_test(test_value_modes_call_tree),
        cmocka_unit_test(test_value_modes_system_tree),
        cmocka_unit_test(test_value_modes_availability),
        cmocka_unit_test(test_stats_even_count),
        cmocka_unit_test(test_stats_odd_count),
        cmocka_unit_test(test_stats_variance_and_edges),
        cmocka_unit_test(test_streamed_rows_equal_stored),
        cmocka_unit_test(test_errors_and_void),
        cmocka_unit_test(test_view_error_cleared_by_success),
        cmocka_unit_test(test_deep_recursive_tree),
        cmocka_unit_test(test_percent_of_itself_is_100),
        cmocka_unit_test(test_minmax_combine_rule),
        cmocka_unit_test(test_minmax_call_tree_and_threads),
        cmocka_unit_test(test_minmax_system_tree),
        cmocka_unit_test(test_nested_system_tree),
        cmocka_unit_test(test_minmax_metric_tree_and_totals),
        cmocka_unit_test(test_minmax_flat_profile),
        cmocka_unit_test(test_metric_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
