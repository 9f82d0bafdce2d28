/*
 * test_bench_merge.c - merging cube_bench runs (bench/merge.h): the
 * lower weighted median, the carried stderr/reps/dummy_time, interpolation
 * of arguments a run's refinement did not choose, per-rank merging,
 * refusals, the "merged ..." attributes and the round trip through files.
 *
 * The runs are made by hand with the writer API in the shape bench/output.c
 * gives them.  The values are small binary fractions (or copied values),
 * so every expected number is exact and compared bit for bit.
 */
#define _POSIX_C_SOURCE 200809L
#include "merge.h"
#include "test_support.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUM_A "fnv1a64:00112233445566aa"
#define SUM_B "fnv1a64:00112233445566bb"

/* One measured point of a run at one rank. */
typedef struct {
    const char *suite, *arg;
    int rank;
    double time, se, reps, dummy;
} pt;

#define END {NULL, NULL, 0, 0, 0, 0, 0}

/* A run as cube_bench writes it: metrics time, stderr, reps, dummy_time;
 * cube_bench > suite > argument; one process (thread) per rank.  Suites
 * and their arguments in the order they first appear in `pts`; a suite
 * name that comes back after another suite starts a second suite of
 * that name when `repeat` is set.  checksum NULL: no checksum attribute. */
static cube_t *make_run_ex(int nprocs, const char *checksum, const char *start, const pt *pts,
                           int repeat)
{
    cube_t *c = cube_create();
    assert_non_null(c);
    char buf[32];
    cube_def_attr(c, "cube_bench version", CUBE_VERSION_STRING);
    snprintf(buf, sizeof buf, "%d", nprocs);
    cube_def_attr(c, "processes", buf);
    cube_def_attr(c, "start time", start);
    cube_def_attr(c, "parameter file", "test.par");
    if (checksum)
        cube_def_attr(c, "parameter checksum", checksum);
    cube_metric *met[4] = {
        cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "time", NULL),
        cube_def_met(c, "Standard error", "stderr", "FLOAT", "sec", "", "", "se", NULL),
        cube_def_met(c, "Repetitions", "reps", "INTEGER", "occ", "", "", "reps", NULL),
        cube_def_met(c, "Dummy time", "dummy_time", "FLOAT", "sec", "", "", "dummy", NULL),
    };
    cube_region *top = cube_def_region(c, "cube_bench", -1, -1, "", "a run", "");
    cube_cnode *root = cube_def_cnode(c, top, NULL);
    cube_machine *mach = cube_def_mach(c, start, "");
    cube_node *node = cube_def_node(c, "host", mach);
    cube_thread *thr[8];
    assert_true(nprocs <= 8);
    for (int r = 0; r < nprocs; r++) {
        snprintf(buf, sizeof buf, "rank %d", r);
        thr[r] = cube_def_thrd(c, buf, 0, cube_def_proc(c, buf, r, node));
    }
    cube_cnode *suites[16], *args[64];
    const char *snames[16], *anames[64];
    size_t asuite[64], ns = 0, na = 0;
    const char *last = NULL;
    for (const pt *p = pts; p->suite; p++) {
        size_t s = ns;
        for (size_t i = 0; i < ns; i++)
            if (strcmp(snames[i], p->suite) == 0 &&
                (!repeat || (last && strcmp(last, p->suite) == 0)))
                s = i;
        if (repeat && last && strcmp(last, p->suite) == 0)
            s = ns - 1;
        if (s == ns) {
            cube_region *reg = NULL;
            for (size_t r = 0; r < cube_num_regions(c) && !reg; r++)
                if (strcmp(cube_region_name(cube_get_region(c, r)), p->suite) == 0)
                    reg = cube_get_region(c, r);
            if (!reg)
                reg = cube_def_region(c, p->suite, 3, -1, "", "test.par:3: a suite", "");
            snames[ns] = p->suite;
            suites[ns++] = cube_def_cnode(c, reg, root);
        }
        last = p->suite;
        size_t a = na;
        for (size_t i = 0; i < na; i++)
            if (asuite[i] == s && strcmp(anames[i], p->arg) == 0)
                a = i;
        if (a == na) {
            cube_region *reg = NULL;
            for (size_t r = 0; r < cube_num_regions(c) && !reg; r++)
                if (strcmp(cube_region_name(cube_get_region(c, r)), p->arg) == 0)
                    reg = cube_get_region(c, r);
            if (!reg)
                reg = cube_def_region(c, p->arg, -1, -1, "", "an argument", "");
            anames[na] = p->arg;
            asuite[na] = s;
            args[na++] = cube_def_cnode(c, reg, suites[s]);
        }
        cube_set_sev(c, met[0], args[a], thr[p->rank], p->time);
        cube_set_sev(c, met[1], args[a], thr[p->rank], p->se);
        cube_set_sev(c, met[2], args[a], thr[p->rank], p->reps);
        cube_set_sev(c, met[3], args[a], thr[p->rank], p->dummy);
    }
    assert_string_equal(cube_error(c), "");
    return c;
}

static cube_t *make_run(int nprocs, const char *checksum, const char *start, const pt *pts)
{
    return make_run_ex(nprocs, checksum, start, pts, 0);
}

/* The k-th (from 0) suite call path of this name. */
static const cube_cnode *find_suite(const cube_t *c, const char *suite, size_t k)
{
    const cube_cnode *root = cube_get_root_cnode(c, 0);
    assert_string_equal(cube_region_name(cube_cnode_callee(root)), "cube_bench");
    for (size_t i = 0; i < cube_cnode_num_children(root); i++) {
        const cube_cnode *child = cube_cnode_child(root, i);
        if (strcmp(cube_region_name(cube_cnode_callee(child)), suite) == 0 && k-- == 0)
            return child;
    }
    fail_msg("no suite %s", suite);
    return NULL;
}

static const cube_cnode *find_point(const cube_t *c, const char *suite, size_t k,
                                    const char *arg)
{
    const cube_cnode *s = find_suite(c, suite, k);
    for (size_t i = 0; i < cube_cnode_num_children(s); i++) {
        const cube_cnode *child = cube_cnode_child(s, i);
        if (strcmp(cube_region_name(cube_cnode_callee(child)), arg) == 0)
            return child;
    }
    fail_msg("no point %s/%s", suite, arg);
    return NULL;
}

static const cube_thread *rank_thread(const cube_t *c, int rank)
{
    for (size_t i = 0; i < cube_num_processes(c); i++)
        if (cube_process_rank(cube_get_process(c, i)) == rank)
            return cube_process_thread(cube_get_process(c, i), 0);
    fail_msg("no rank %d", rank);
    return NULL;
}

static double val_k(const cube_t *c, const char *metric, const char *suite, size_t k,
                    const char *arg, int rank)
{
    const cube_metric *m = cube_find_metric(c, metric);
    assert_non_null(m);
    return cube_get_sev(c, m, find_point(c, suite, k, arg), rank_thread(c, rank));
}

static double val(const cube_t *c, const char *metric, const char *suite, const char *arg,
                  int rank)
{
    return val_k(c, metric, suite, 0, arg, rank);
}

/* time, stderr, reps and dummy_time of a point, bit for bit */
static void expect_point(const cube_t *c, const char *suite, const char *arg, int rank,
                         double time, double se, double reps, double dummy)
{
    double got[4] = {val(c, "time", suite, arg, rank), val(c, "stderr", suite, arg, rank),
                     val(c, "reps", suite, arg, rank), val(c, "dummy_time", suite, arg, rank)};
    double want[4] = {time, se, reps, dummy};
    for (int i = 0; i < 4; i++)
        if (!same_double(got[i], want[i]))
            fail_msg("%s/%s rank %d: metric %d is %.17g, expected %.17g", suite, arg, rank, i,
                     got[i], want[i]);
}

/* The argument names under a suite, joined by blanks. */
static void children_names(const cube_t *c, const char *suite, size_t k, char *buf, size_t n)
{
    const cube_cnode *s = find_suite(c, suite, k);
    buf[0] = '\0';
    for (size_t i = 0; i < cube_cnode_num_children(s); i++) {
        if (i)
            strncat(buf, " ", n - strlen(buf) - 1);
        strncat(buf, cube_region_name(cube_cnode_callee(cube_cnode_child(s, i))),
                n - strlen(buf) - 1);
    }
}

static cube_t *merge_ok(cube_t **runs, const char *const *names, size_t n)
{
    char err[512];
    cube_t *m = cube_bench_merge(runs, names, n, err, sizeof err);
    if (!m)
        fail_msg("merge failed: %s", err);
    assert_string_equal(err, "");
    return m;
}

static void free_runs(cube_t **runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cube_free(runs[i]);
}

/* --- the helpers ------------------------------------------------------ */

static void test_parse_arg(void **state)
{
    (void)state;
    size_t kl = 0;
    double x = 0;
    assert_int_equal(cube_bench_parse_arg("len=1024", &kl, &x), 1);
    assert_int_equal(kl, 3);
    assert_true(x == 1024.0);
    assert_int_equal(cube_bench_parse_arg("nodes=3", &kl, &x), 1);
    assert_int_equal(kl, 5);
    assert_true(x == 3.0);
    assert_int_equal(cube_bench_parse_arg("chunks=4", &kl, &x), 1);
    assert_int_equal(kl, 6);
    assert_int_equal(cube_bench_parse_arg("arg=2.5", &kl, &x), 1);
    assert_true(x == 2.5);
    assert_int_equal(cube_bench_parse_arg("len=0", NULL, NULL), 1);
    const char *bad[] = {"len=",     "len= 4",  "len=4x",    "len=0x10", "len=inf",
                         "len=nan",  "MPI_Wtime", "size=3",  "len",      "len=4 ",
                         "Len=4",    "",         "lenx=4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cube_bench_parse_arg(bad[i], &kl, &x))
            fail_msg("\"%s\" parsed as an argument", bad[i]);
    assert_int_equal(cube_bench_parse_arg(NULL, &kl, &x), 0);
}

/* The library reads "len=16.5" with its '.' whatever locale the program
 * set. */
static void test_parse_arg_locale(void **state)
{
    (void)state;
    if (!set_comma_locale())
        skip();
    size_t kl = 0;
    double x = 0;
    int ok = cube_bench_parse_arg("len=16.5", &kl, &x);
    int comma = cube_bench_parse_arg("len=16,5", &kl, &x);
    setlocale(LC_NUMERIC, "C");
    assert_int_equal(ok, 1);
    assert_int_equal(comma, 0);
    cube_bench_parse_arg("len=16.5", &kl, &x);
    assert_true(x == 16.5);
}

static void test_weighted_median(void **state)
{
    (void)state;
    /* SKaMPI's example of merging: 899 with 10 single measurements,
     * 901 with 4 and 910 with 4 give 899 */
    double v1[] = {899, 901, 910}, w1[] = {10, 4, 4};
    assert_int_equal(cube_bench_weighted_median(v1, w1, 3), 0);
    /* in any order */
    double v2[] = {910, 901, 899}, w2[] = {4, 4, 10};
    assert_int_equal(cube_bench_weighted_median(v2, w2, 3), 2);
    /* exactly half the weight below: the lower one */
    double v3[] = {2.0, 1.0}, w3[] = {4, 4};
    assert_int_equal(cube_bench_weighted_median(v3, w3, 2), 1);
    double v4[] = {4.0, 3.5, 5.0}, w4[] = {5, 5, 10};
    assert_int_equal(cube_bench_weighted_median(v4, w4, 3), 0);
    /* equal values: the earlier index counts as smaller */
    double v5[] = {1.0, 1.0}, w5[] = {1, 1};
    assert_int_equal(cube_bench_weighted_median(v5, w5, 2), 0);
    double v6[] = {6.0, 6.0, 7.0}, w6[] = {3, 3, 3};
    assert_int_equal(cube_bench_weighted_median(v6, w6, 3), 1);
    /* one heavy measurement outweighs the others */
    double v7[] = {5.0, 1.0, 9.0}, w7[] = {1, 1, 10};
    assert_int_equal(cube_bench_weighted_median(v7, w7, 3), 2);
    /* the plain median with equal weights */
    double v8[] = {4, 3, 2, 1}, w8[] = {1, 1, 1, 1};
    assert_int_equal(cube_bench_weighted_median(v8, w8, 4), 2);
    /* no weight, a weight of 0 or a non-finite entry takes no part */
    double v9[] = {1.0, 2.0, 1.0 / 0.0, 0.5}, w9[] = {0, 3, 100, -1};
    assert_int_equal(cube_bench_weighted_median(v9, w9, 4), 1);
    double w10[] = {0, 0, 0, 0};
    assert_int_equal(cube_bench_weighted_median(v9, w10, 4), (size_t)-1);
    assert_int_equal(cube_bench_weighted_median(NULL, NULL, 0), (size_t)-1);
}

/* --- merging ----------------------------------------------------------- */

/* Three runs with every point: the weighted median picks one run's whole
 * record (time with its stderr, reps and dummy time). */
static void test_three_runs_weighted_median(void **state)
{
    (void)state;
    const char *S = "Pingpong_Send_Recv";
    const pt a[] = {{S, "len=1", 0, 899, 0.0625, 10, 0.125},
                    {S, "len=4", 0, 1.5, 0.25, 4, 0.5},
                    {S, "len=16", 0, 2.5, 0.5, 2, 0.125},
                    {S, "len=64", 0, 4.0, 0.75, 5, 0.25},
                    {S, "len=256", 0, 6.0, 0.25, 3, 0.5},
                    END};
    const pt b[] = {{S, "len=1", 0, 901, 0.03125, 4, 0.25},
                    {S, "len=4", 0, 1.25, 0.125, 4, 0.375},
                    {S, "len=16", 0, 2.0, 0.375, 3, 0.25},
                    {S, "len=64", 0, 3.5, 0.5, 5, 0.125},
                    {S, "len=256", 0, 6.0, 0.5, 3, 0.75},
                    END};
    const pt c[] = {{S, "len=1", 0, 910, 0.015625, 4, 0.375},
                    {S, "len=4", 0, 1.75, 0.0625, 4, 0.25},
                    {S, "len=16", 0, 3.0, 0.0078125, 20, 0.0625},
                    {S, "len=64", 0, 5.0, 0.25, 10, 0.5},
                    {S, "len=256", 0, 7.0, 1.0, 3, 1.0},
                    END};
    cube_t *runs[3] = {make_run(2, SUM_A, "A", a), make_run(2, SUM_A, "B", b),
                       make_run(2, SUM_A, "C", c)};
    const char *names[3] = {"a.cube", "b.cube", "c.cube"};
    cube_t *m = merge_ok(runs, names, 3);

    expect_point(m, S, "len=1", 0, 899, 0.0625, 10, 0.125);    /* SKaMPI's merging example */
    expect_point(m, S, "len=4", 0, 1.5, 0.25, 4, 0.5);         /* the plain median */
    expect_point(m, S, "len=16", 0, 3.0, 0.0078125, 20, 0.0625); /* the heavy run */
    expect_point(m, S, "len=64", 0, 4.0, 0.75, 5, 0.25);       /* exactly half: lower */
    expect_point(m, S, "len=256", 0, 6.0, 0.5, 3, 0.75);       /* equal times: b after a */
    /* rank 1 measured nothing (no Node_Times) and stays so */
    expect_point(m, S, "len=4", 1, 0, 0, 0, 0);

    char buf[256];
    children_names(m, S, 0, buf, sizeof buf);
    assert_string_equal(buf, "len=1 len=4 len=16 len=64 len=256");
    /* the structure of a run: its metrics, in its order, and its system */
    assert_int_equal(cube_num_metrics(m), 4);
    const char *mets[] = {"time", "stderr", "reps", "dummy_time"};
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(cube_metric_uniq_name(cube_get_metric(m, i)), mets[i]);
    assert_string_equal(cube_metric_dtype(cube_get_metric(m, 2)), "INTEGER");
    assert_int_equal(cube_num_processes(m), 2);
    assert_string_equal(cube_machine_name(cube_get_machine(m, 0)), "A");
    assert_string_equal(cube_process_name(cube_get_process(m, 1)), "rank 1");
    assert_int_equal(cube_num_root_cnodes(m), 1);
    assert_string_equal(cube_get_attr(m, "processes"), "2");
    assert_string_equal(cube_get_attr(m, "parameter checksum"), SUM_A);

    cube_free(m);
    free_runs(runs, 3);
}

/* A run whose refinement skipped an argument contributes the linear
 * interpolation between its neighbours; outside its range nothing. */
static void test_interpolation(void **state)
{
    (void)state;
    const char *S = "Pingpong", *B = "Bcast";
    const pt a[] = {{S, "len=1", 0, 1.0, 0.125, 8, 0.0625},
                    {S, "len=4", 0, 1.5, 0.125, 8, 0.0625},
                    {S, "len=16", 0, 3.0, 0.25, 8, 0.0625},
                    {S, "len=64", 0, 7.0, 0.25, 8, 0.0625},
                    {S, "len=128", 0, 9.0, 0.5, 6, 0.0625},
                    {B, "nodes=1", 0, 0.25, 0.125, 2, 0.25},
                    {B, "nodes=2", 0, 0.5, 0.125, 3, 0.25},
                    {B, "nodes=4", 0, 1.0, 0.25, 4, 0.25},
                    {B, "nodes=6", 0, 2.0, 0.25, 4, 0.25},
                    END};
    /* b has no len=1, len=16, len=128, but nodes=3 */
    const pt b[] = {{S, "len=4", 0, 1.0, 0.25, 10, 0.5},
                    {S, "len=64", 0, 6.0, 1.5, 20, 0.5},
                    {B, "nodes=2", 0, 0.625, 0.5, 3, 0.125},
                    {B, "nodes=3", 0, 0.875, 0.5, 3, 0.125},
                    {B, "nodes=4", 0, 1.125, 0.5, 3, 0.125},
                    END};
    cube_t *runs[2] = {make_run(2, SUM_A, "A", a), make_run(2, SUM_A, "B", b)};
    cube_t *m = merge_ok(runs, NULL, 2);

    /* b at len=16, between its len=4 and len=64 (x = 12/60 of the way):
     * time 1 + 5*12/60 = 2, stderr 0.25 + 1.25*12/60 = 0.5, reps
     * 10 + 10*12/60 = 12, dummy 0.5; against a's 3.0 with 8: W = 20 and
     * 2*12 >= 20, so the interpolated record is the median */
    expect_point(m, S, "len=16", 0, 2.0, 0.5, 12, 0.5);
    /* no extrapolation: len=1 and len=128 are outside b's range, so a's */
    expect_point(m, S, "len=1", 0, 1.0, 0.125, 8, 0.0625);
    expect_point(m, S, "len=128", 0, 9.0, 0.5, 6, 0.0625);
    /* both measured: b has the larger weight and the smaller time */
    expect_point(m, S, "len=4", 0, 1.0, 0.25, 10, 0.5);
    expect_point(m, S, "len=64", 0, 6.0, 1.5, 20, 0.5);
    /* the other way round: a at nodes=3, half way between its nearest
     * neighbours nodes=2 and 4 (not 1 or 6):
     * time 0.75, stderr 0.1875, reps 3.5 rounded to 4, dummy 0.25; against
     * b's 0.875 with 3: W = 7, 2*4 >= 7, so a's interpolation */
    expect_point(m, B, "nodes=3", 0, 0.75, 0.1875, 4, 0.25);
    /* nodes=2: 0.5 (3) and 0.625 (3): exactly half, the lower */
    expect_point(m, B, "nodes=2", 0, 0.5, 0.125, 3, 0.25);

    char buf[256];
    children_names(m, S, 0, buf, sizeof buf);
    assert_string_equal(buf, "len=1 len=4 len=16 len=64 len=128");
    children_names(m, B, 0, buf, sizeof buf);
    assert_string_equal(buf, "nodes=1 nodes=2 nodes=3 nodes=4 nodes=6");
    expect_point(m, B, "nodes=1", 0, 0.25, 0.125, 2, 0.25);
    expect_point(m, B, "nodes=6", 0, 2.0, 0.25, 4, 0.25);

    /* the weight of b's interpolation is 12 exactly: against a slower run
     * of weight 13 it loses (W = 25, 2*12 < 25), against a faster one of
     * weight 11 it wins (W = 23, 2*11 < 23) */
    const pt c[] = {{S, "len=16", 0, 2.25, 0.25, 13, 0.25}, END};
    const pt d[] = {{S, "len=16", 0, 1.75, 0.25, 11, 0.25}, END};
    cube_t *r2[2] = {runs[1], make_run(2, SUM_A, "C", c)};
    cube_t *m2 = merge_ok(r2, NULL, 2);
    expect_point(m2, S, "len=16", 0, 2.25, 0.25, 13, 0.25);
    cube_free(m2);
    cube_free(r2[1]);
    r2[1] = make_run(2, SUM_A, "D", d);
    m2 = merge_ok(r2, NULL, 2);
    expect_point(m2, S, "len=16", 0, 2.0, 0.5, 12, 0.5);
    cube_free(m2);
    cube_free(r2[1]);

    cube_free(m);
    free_runs(runs, 2);
}

/* Node times: every rank is merged on its own, and a run interpolates at
 * a rank from what it measured at that rank. */
static void test_per_rank(void **state)
{
    (void)state;
    const char *S = "Allreduce";
    const pt a[] = {{S, "len=8", 0, 1.0, 0.125, 4, 0.0625},
                    {S, "len=8", 1, 1.25, 0.125, 4, 0.0625},
                    {S, "len=8", 2, 1.5, 0.25, 4, 0.0625},
                    {S, "len=16", 0, 2.0, 0.125, 4, 0.0625},
                    {S, "len=16", 1, 2.5, 0.125, 4, 0.0625},
                    /* rank 2 did not take part at len=16 in run a */
                    {S, "len=32", 0, 3.0, 0.125, 4, 0.0625},
                    {S, "len=32", 1, 3.75, 0.125, 4, 0.0625},
                    {S, "len=32", 2, 4.5, 1.0, 4, 0.125},
                    END};
    const pt b[] = {{S, "len=8", 0, 1.125, 0.5, 6, 0.5},
                    {S, "len=8", 1, 1.0, 0.5, 2, 0.5},
                    {S, "len=16", 0, 1.75, 0.5, 6, 0.5},
                    {S, "len=16", 1, 3.0, 0.5, 2, 0.5},
                    {S, "len=16", 2, 2.75, 0.5, 4, 0.5},
                    {S, "len=32", 0, 3.5, 0.5, 6, 0.5},
                    {S, "len=32", 1, 3.0, 0.5, 2, 0.5},
                    END};
    cube_t *runs[2] = {make_run(3, SUM_A, "A", a), make_run(3, SUM_A, "B", b)};
    cube_t *m = merge_ok(runs, NULL, 2);
    /* rank 0: b's weight 6 against 4 */
    expect_point(m, S, "len=8", 0, 1.125, 0.5, 6, 0.5);
    expect_point(m, S, "len=16", 0, 1.75, 0.5, 6, 0.5);
    expect_point(m, S, "len=32", 0, 3.5, 0.5, 6, 0.5);
    /* rank 1: a's weight 4 against 2 */
    expect_point(m, S, "len=8", 1, 1.25, 0.125, 4, 0.0625);
    expect_point(m, S, "len=16", 1, 2.5, 0.125, 4, 0.0625);
    expect_point(m, S, "len=32", 1, 3.75, 0.125, 4, 0.0625);
    /* rank 2: b measured only len=16 there, so nothing to interpolate at
     * len=8 or len=32 from b: a's values */
    expect_point(m, S, "len=8", 2, 1.5, 0.25, 4, 0.0625);
    expect_point(m, S, "len=32", 2, 4.5, 1.0, 4, 0.125);
    /* rank 2 at len=16: a interpolates between its rank-2 len=8 and len=32
     * (1/3 of the way): time 1.5 + 3*8/24 = 2.5, stderr 0.25 + 0.75*8/24 =
     * 0.5, reps 4, dummy 0.0625 + 0.0625*8/24 (not exact: computed alike);
     * 2.5 (4) against b's 2.75 (4): exactly half, the lower */
    double dummy = 0.0625 + (0.125 - 0.0625) * (16.0 - 8.0) / (32.0 - 8.0);
    expect_point(m, S, "len=16", 2, 2.5, 0.5, 4, dummy);
    cube_free(m);
    free_runs(runs, 2);
}

/* A suite only some runs have is merged from those; suites without a
 * number are matched by name and never interpolated; a repeated suite
 * name is matched by occurrence. */
static void test_suites_of_some_runs(void **state)
{
    (void)state;
    const pt a[] = {{"Pingpong", "len=1", 0, 1.0, 0.125, 4, 0.25},
                    {"Pingpong", "len=2", 0, 1.5, 0.125, 4, 0.25},
                    {"Wtime", "MPI_Wtime", 0, 0.25, 0.125, 2, 0.0},
                    {"Again", "len=1", 0, 8.0, 0.125, 4, 0.0},
                    {"Other", "len=1", 0, 5.0, 0.125, 4, 0.0},
                    {"Again", "len=1", 0, 9.0, 0.125, 4, 0.0},
                    END};
    const pt b[] = {{"Barrier", "nodes=2", 0, 0.375, 0.0625, 7, 0.125},
                    {"Pingpong", "len=1", 0, 1.25, 0.5, 3, 0.5},
                    {"Pingpong", "len=2", 0, 1.75, 0.5, 3, 0.5},
                    {"Wtime", "MPI_Wtime", 0, 0.125, 0.25, 2, 0.0},
                    {"Again", "len=1", 0, 7.0, 0.25, 4, 0.0},
                    {"Other", "len=1", 0, 4.0, 0.125, 4, 0.0},
                    {"Again", "len=1", 0, 10.0, 0.25, 4, 0.0},
                    END};
    cube_t *runs[2] = {make_run_ex(2, SUM_A, "A", a, 1), make_run_ex(2, SUM_A, "B", b, 1)};
    assert_int_equal(cube_cnode_num_children(find_suite(runs[0], "Again", 1)), 1);
    cube_t *m = merge_ok(runs, NULL, 2);
    /* the first run's suites in its order, then the others' new ones */
    const cube_cnode *root = cube_get_root_cnode(m, 0);
    const char *order[] = {"Pingpong", "Wtime", "Again", "Other", "Again", "Barrier"};
    assert_int_equal(cube_cnode_num_children(root), 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(cube_region_name(cube_cnode_callee(cube_cnode_child(root, i))),
                            order[i]);
    expect_point(m, "Barrier", "nodes=2", 0, 0.375, 0.0625, 7, 0.125); /* copied from b */
    expect_point(m, "Pingpong", "len=1", 0, 1.0, 0.125, 4, 0.25);
    expect_point(m, "Wtime", "MPI_Wtime", 0, 0.125, 0.25, 2, 0.0); /* by name, lower */
    assert_true(val_k(m, "time", "Again", 0, "len=1", 0) == 7.0);
    assert_true(val_k(m, "stderr", "Again", 0, "len=1", 0) == 0.25);
    assert_true(val_k(m, "time", "Again", 1, "len=1", 0) == 9.0);
    assert_true(val_k(m, "stderr", "Again", 1, "len=1", 0) == 0.125);
    assert_true(val(m, "time", "Other", "len=1", 0) == 4.0);

    /* a point without a number is not interpolated: c has no MPI_Wtime */
    const pt c[] = {{"Wtime", "MPI_Barrier", 0, 0.5, 0.5, 9, 0.0}, END};
    cube_t *r2[2] = {runs[0], make_run(2, SUM_A, "C", c)};
    cube_t *m2 = merge_ok(r2, NULL, 2);
    expect_point(m2, "Wtime", "MPI_Wtime", 0, 0.25, 0.125, 2, 0.0);
    expect_point(m2, "Wtime", "MPI_Barrier", 0, 0.5, 0.5, 9, 0.0);
    cube_free(m2);
    cube_free(r2[1]);

    cube_free(m);
    free_runs(runs, 2);
}

static void expect_refusal(cube_t **runs, const char *const *names, size_t n,
                           const char *const *parts)
{
    char err[512];
    strcpy(err, "unchanged");
    cube_t *m = cube_bench_merge(runs, names, n, err, sizeof err);
    if (m)
        fail_msg("merged, but must refuse");
    for (const char *const *p = parts; *p; p++)
        if (!strstr(err, *p))
            fail_msg("message \"%s\" lacks \"%s\"", err, *p);
}

static void test_refusals(void **state)
{
    (void)state;
    const pt p[] = {{"Pingpong", "len=1", 0, 1.0, 0.125, 4, 0.25}, END};
    cube_t *a = make_run(2, SUM_A, "A", p), *b = make_run(2, SUM_B, "B", p);
    cube_t *c3 = make_run(3, SUM_A, "C", p), *nosum = make_run(2, NULL, "D", p);
    const char *names[] = {"one.cube", "two.cube"};

    cube_t *r1[] = {a, b};
    expect_refusal(r1, names, 2,
                   (const char *[]){"one.cube", "two.cube", "different parameter files",
                                    SUM_A, SUM_B, NULL});
    cube_t *r2[] = {a, c3};
    expect_refusal(r2, names, 2,
                   (const char *[]){"one.cube", "two.cube", "processes", "2", "3", NULL});
    cube_t *r3[] = {a, nosum};
    expect_refusal(r3, names, 2,
                   (const char *[]){"two.cube", "parameter checksum", NULL});
    cube_t *r4[] = {nosum, a};
    expect_refusal(r4, NULL, 2, (const char *[]){"run 1", "parameter checksum", NULL});
    /* equal "processes" attributes but another number in the system tree */
    cube_t *c3b = make_run(3, SUM_A, "E", p);
    cube_def_attr(c3b, "processes", "2");
    cube_t *r5[] = {a, c3b};
    expect_refusal(r5, names, 2, (const char *[]){"one.cube has 2", "two.cube has 3", NULL});
    /* as many processes, but other ranks */
    cube_t *odd = cube_create();
    cube_def_attr(odd, "parameter checksum", SUM_A);
    cube_def_met(odd, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_def_met(odd, "Repetitions", "reps", "INTEGER", "occ", "", "", "", NULL);
    cube_def_cnode(odd, cube_def_region(odd, "cube_bench", -1, -1, "", "", ""), NULL);
    cube_node *node = cube_def_node(odd, "n", cube_def_mach(odd, "m", ""));
    cube_def_thrd(odd, "t", 0, cube_def_proc(odd, "rank 0", 0, node));
    cube_def_thrd(odd, "t", 0, cube_def_proc(odd, "rank 5", 5, node));
    cube_t *r6[] = {a, odd};
    expect_refusal(r6, names, 2, (const char *[]){"two.cube", "rank 5", NULL});
    /* not a cube_bench experiment */
    cube_t *plain = cube_create();
    cube_def_attr(plain, "parameter checksum", SUM_A);
    cube_def_met(plain, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_t *r7[] = {a, plain};
    expect_refusal(r7, names, 2,
                   (const char *[]){"two.cube", "not a cube_bench experiment", "reps", NULL});
    cube_def_met(plain, "Repetitions", "reps", "INTEGER", "occ", "", "", "", NULL);
    expect_refusal(r7, names, 2, (const char *[]){"two.cube", "cube_bench", NULL});
    /* nothing to merge */
    expect_refusal(r1, names, 0, (const char *[]){"no runs", NULL});
    /* a message never overruns a short buffer */
    char small[8];
    assert_null(cube_bench_merge(r1, names, 2, small, sizeof small));
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_null(cube_bench_merge(r1, names, 2, NULL, 0));

    cube_free(a), cube_free(b), cube_free(c3), cube_free(nosum), cube_free(c3b);
    cube_free(odd), cube_free(plain);
}

static void test_merged_attributes(void **state)
{
    (void)state;
    const pt p[] = {{"Pingpong", "len=1", 0, 1.0, 0.125, 4, 0.25}, END};
    cube_t *runs[3] = {make_run(2, SUM_A, "2024-01-01", p), make_run(2, SUM_A, "2024-01-02", p),
                       make_run(2, SUM_A, "2024-01-03", p)};
    const char *names[3] = {"runs/one.cube", "runs/two.cube.gz", "three.cube"};
    cube_t *m = merge_ok(runs, names, 3);
    assert_string_equal(cube_get_attr(m, "merged runs"), "3");
    assert_string_equal(cube_get_attr(m, "merged from 1"), "runs/one.cube");
    assert_string_equal(cube_get_attr(m, "merged from 2"), "runs/two.cube.gz");
    assert_string_equal(cube_get_attr(m, "merged from 3"), "three.cube");
    assert_null(cube_get_attr(m, "merged from 4"));
    /* the rest is the first run's, in its order */
    assert_string_equal(cube_get_attr(m, "start time"), "2024-01-01");
    assert_string_equal(cube_attr_key(m, 0), "cube_bench version");
    assert_string_equal(cube_attr_key(m, 4), "parameter checksum");

    /* a merged run merged again records its own inputs only */
    cube_t *again[2] = {m, runs[2]};
    cube_t *m2 = merge_ok(again, NULL, 2);
    assert_string_equal(cube_get_attr(m2, "merged runs"), "2");
    assert_string_equal(cube_get_attr(m2, "merged from 1"), "run 1");
    assert_string_equal(cube_get_attr(m2, "merged from 2"), "run 2");
    assert_null(cube_get_attr(m2, "merged from 3"));
    cube_free(m2);

    /* one run: a copy with the attributes */
    cube_t *one = merge_ok(runs, names, 1);
    assert_string_equal(cube_get_attr(one, "merged runs"), "1");
    expect_point(one, "Pingpong", "len=1", 0, 1.0, 0.125, 4, 0.25);
    cube_free(one);

    cube_free(m);
    free_runs(runs, 3);
}

/* --- files -------------------------------------------------------------- */

static char *write_run(cube_t *c, const char *suffix)
{
    char *path = temp_path(suffix);
    if (cube_write_file(c, path, 0) != 0)
        fail_msg("writing %s: %s", path, cube_error(c));
    return path;
}

static void test_files_round_trip(void **state)
{
    (void)state;
    const char *S = "Pingpong";
    const pt a[] = {{S, "len=4", 0, 1.5, 0.125, 8, 0.0625},
                    {S, "len=16", 0, 3.0, 0.25, 8, 0.0625},
                    {S, "len=64", 0, 7.0, 0.25, 8, 0.0625},
                    {S, "len=64", 1, 7.5, 0.25, 8, 0.0625},
                    END};
    const pt b[] = {{S, "len=4", 0, 1.0, 0.25, 10, 0.5},
                    {S, "len=64", 0, 6.0, 1.5, 20, 0.5},
                    {S, "len=64", 1, 6.5, 1.5, 20, 0.5},
                    END};
    const pt c[] = {{S, "len=4", 0, 1.25, 0.25, 9, 0.5}, END};
    cube_t *runs[3] = {make_run(2, SUM_A, "A", a), make_run(2, SUM_A, "B", b),
                       make_run(2, SUM_A, "C", c)};
    char *paths[3] = {write_run(runs[0], ".cube"), write_run(runs[1], ".cube.gz"),
                      write_run(runs[2], ".cube")};
    char *out = temp_path(".cube"), *outgz = temp_path(".merged");
    char err[512];

    /* what the files give is what the runs read back give in memory */
    assert_int_equal(cube_bench_merge_files((const char *const *)paths, 3, out, 0, err,
                                            sizeof err),
                     0);
    assert_string_equal(err, "");
    cube_t *back = read_ok(out);
    cube_t *read[3] = {read_ok(paths[0]), read_ok(paths[1]), read_ok(paths[2])};
    cube_t *mem = merge_ok(read, (const char *const *)paths, 3);
    assert_same_model(back, mem);
    expect_point(back, S, "len=16", 0, 2.0, 0.5, 12, 0.5);
    expect_point(back, S, "len=4", 0, 1.25, 0.25, 9, 0.5);
    expect_point(back, S, "len=64", 1, 6.5, 1.5, 20, 0.5);
    assert_string_equal(cube_get_attr(back, "merged runs"), "3");
    assert_string_equal(cube_get_attr(back, "merged from 2"), paths[1]);

    /* gzip on request, whatever the name */
    assert_int_equal(cube_bench_merge_files((const char *const *)paths, 3, outgz,
                                            CUBE_WRITE_GZIP, err, sizeof err),
                     0);
    size_t len = 0;
    char *raw = slurp(outgz, &len);
    assert_true(len > 2 && (unsigned char)raw[0] == 0x1f && (unsigned char)raw[1] == 0x8b);
    free(raw);
    cube_t *backgz = read_ok(outgz);
    assert_same_model(backgz, back);

    /* written again, read back: the same bytes */
    char *out2 = temp_path(".cube");
    assert_int_equal(cube_write_file(back, out2, 0), 0);
    size_t l1, l2;
    char *b1 = slurp(out, &l1), *b2 = slurp(out2, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(b1, b2, l1);
    free(b1), free(b2);

    cube_free(backgz);
    cube_free(back);
    cube_free(mem);
    free_runs(read, 3);
    free_runs(runs, 3);
    for (int i = 0; i < 3; i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
    unlink(out), unlink(outgz), unlink(out2);
    free(out), free(outgz), free(out2);
}

static void test_files_errors(void **state)
{
    (void)state;
    const pt p[] = {{"Pingpong", "len=1", 0, 1.0, 0.125, 4, 0.25}, END};
    cube_t *a = make_run(2, SUM_A, "A", p), *b = make_run(2, SUM_B, "B", p);
    char *pa = write_run(a, ".cube"), *pb = write_run(b, ".cube");
    char *missing = temp_path(".cube");
    char *junk = temp_file_with("<cube version=\"3.0\"><attr", 25);
    char *out = temp_path(".cube");
    /* an existing output survives every failure */
    FILE *fp = fopen(out, "w");
    assert_non_null(fp);
    fputs("old\n", fp);
    fclose(fp);
    char err[1024];

    const char *in1[] = {pa, missing};
    assert_int_equal(cube_bench_merge_files(in1, 2, out, 0, err, sizeof err), -1);
    if (!strstr(err, missing))
        fail_msg("\"%s\" does not name %s", err, missing);

    const char *in2[] = {junk, pa};
    assert_int_equal(cube_bench_merge_files(in2, 2, out, 0, err, sizeof err), -1);
    if (strncmp(err, junk, strlen(junk)) != 0)
        fail_msg("\"%s\" does not begin with %s", err, junk);

    const char *in3[] = {pa, pb};
    assert_int_equal(cube_bench_merge_files(in3, 2, out, 0, err, sizeof err), -1);
    if (!strstr(err, pa) || !strstr(err, pb) || !strstr(err, "parameter"))
        fail_msg("\"%s\" does not name both files and the checksum", err);

    const char *in4[] = {"-", "-"};
    assert_int_equal(cube_bench_merge_files(in4, 2, out, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "standard input"));

    /* an output that cannot be written is named */
    const char *in5[] = {pa};
    assert_int_equal(cube_bench_merge_files(in5, 1, "/nonexistent-dir/merged.cube", 0, err,
                                            sizeof err),
                     -1);
    if (!strstr(err, "/nonexistent-dir/merged.cube"))
        fail_msg("\"%s\" does not name the output", err);

    size_t len;
    char *kept = slurp(out, &len);
    assert_int_equal(len, 4);
    assert_memory_equal(kept, "old\n", 4);
    free(kept);

    /* and the merge into it works in the end */
    assert_int_equal(cube_bench_merge_files(in5, 1, out, 0, err, sizeof err), 0);
    cube_t *back = read_ok(out);
    assert_string_equal(cube_get_attr(back, "merged from 1"), pa);
    cube_free(back);

    cube_free(a), cube_free(b);
    unlink(pa), unlink(pb), unlink(junk), unlink(out);
    free(pa), free(pb), free(missing), free(junk), free(out);
}

/* --compare: the union of the arguments, interpolation (never
 * extrapolation), the ratio's standard error and the verdicts, on runs
 * with known changes. */
static const cube_bench_cmp_row *cmp_row(const cube_bench_cmp_row *rows, size_t n,
                                         const char *suite, const char *arg)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].suite, suite) == 0 && strcmp(rows[i].argument, arg) == 0)
            return &rows[i];
    fail_msg("no row %s %s", suite, arg);
    return NULL;
}

static void test_compare(void **state)
{
    (void)state;
    const char *S = "Pingpong", *B = "Bcast";
    const pt a[] = {{S, "len=4", 0, 1.0, 0.0, 8, 0.0},
                    {S, "len=64", 0, 2.0, 0.0, 8, 0.0},
                    {S, "len=1", 0, 0.5, 0.0, 8, 0.0},
                    {B, "len=1", 0, 1.0, 0.0625, 8, 0.0},
                    {B, "len=2", 0, 1.0, 0.01, 8, 0.0},
                    END};
    /* after: len=4 25 % slower; len=16 only measured here (a interpolates
     * 1.2 between 1 at len=4 and 2 at len=64); len=64 unchanged but
     * noisy; len=1 below b's range; len=256 beyond a's */
    const pt b[] = {{S, "len=4", 0, 1.25, 0.0, 9, 0.0},
                    {S, "len=16", 0, 1.0, 0.0, 9, 0.0},
                    {S, "len=64", 0, 2.0, 0.25, 9, 0.0},
                    {S, "len=256", 0, 8.0, 0.0, 9, 0.0},
                    {B, "len=1", 0, 1.125, 0.0625, 8, 0.0},
                    {B, "len=2", 0, 1.05, 0.01, 8, 0.0},
                    END};
    /* other checksums and process counts are compared all the same: rank
     * 0's values are what is compared */
    cube_t *ra = make_run(2, SUM_A, "A", a), *rb = make_run(3, SUM_B, "B", b);
    cube_bench_cmp_row *rows = NULL;
    size_t n = 0;
    char err[256] = "";
    assert_int_equal(cube_bench_compare(ra, rb, NULL, 0.10, &rows, &n, err, sizeof err), 0);
    assert_int_equal(n, 7);
    const char *order[] = {"len=1", "len=4", "len=16", "len=64", "len=256", "len=1", "len=2"};
    for (size_t i = 0; i < n; i++)
        assert_string_equal(rows[i].argument, order[i]);

    const cube_bench_cmp_row *r = cmp_row(rows, n, S, "len=4");
    assert_true(r->ratio == 1.25 && r->ratio_se == 0.0);
    assert_int_equal(r->before_source, 1);
    assert_int_equal(r->verdict, CUBE_BENCH_REGRESSION);
    r = cmp_row(rows, n, S, "len=16");
    assert_int_equal(r->before_source, 2);
    assert_int_equal(r->after_source, 1);
    assert_true(fabs(r->before - 1.2) < 1e-12);
    assert_true(fabs(r->ratio - 1.0 / 1.2) < 1e-12);
    assert_int_equal(r->verdict, CUBE_BENCH_FASTER);
    r = cmp_row(rows, n, S, "len=64");
    assert_true(r->ratio == 1.0 && r->ratio_se == 0.125);
    assert_int_equal(r->verdict, CUBE_BENCH_SAME);
    r = cmp_row(rows, n, S, "len=1");
    assert_int_equal(r->after_source, 0);
    assert_true(isnan(r->after) && isnan(r->ratio));
    assert_int_equal(r->verdict, CUBE_BENCH_ONLY_BEFORE);
    r = cmp_row(rows, n, S, "len=256");
    assert_int_equal(r->verdict, CUBE_BENCH_ONLY_AFTER);
    /* 12.5 % slower, but the ratio's standard error is 0.094: within
     * the noise */
    r = cmp_row(rows, n, B, "len=1");
    assert_true(fabs(r->ratio_se - 1.125 * sqrt(0.0625 * 0.0625 + (0.0625 / 1.125) * (0.0625 / 1.125))) <
                1e-12);
    assert_int_equal(r->verdict, CUBE_BENCH_SAME);
    /* 5 % slower beyond the noise (se 0.0145), below the threshold */
    r = cmp_row(rows, n, B, "len=2");
    assert_int_equal(r->verdict, CUBE_BENCH_SLOWER);
    free(rows);

    /* a threshold of 30 %: the 25 % is slower, not a regression */
    assert_int_equal(cube_bench_compare(ra, rb, NULL, 0.30, &rows, &n, err, sizeof err), 0);
    assert_int_equal(cmp_row(rows, n, S, "len=4")->verdict, CUBE_BENCH_SLOWER);
    free(rows);

    /* a run against itself: the same everywhere */
    assert_int_equal(cube_bench_compare(rb, rb, NULL, 0.10, &rows, &n, err, sizeof err), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rows[i].verdict, CUBE_BENCH_SAME);
    free(rows);

    /* not a cube_bench run */
    cube_t *other = cube_create();
    cube_def_met(other, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    const char *names[2] = {"x.cube", "y.cube"};
    assert_int_equal(cube_bench_compare(ra, other, names, 0.10, &rows, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "y.cube: not a cube_bench experiment"));
    assert_null(rows);
    cube_free(other);
    cube_free(ra);
    cube_free(rb);
}

static void test_ratio_and_verdicts(void **state)
{
    (void)state;
    double r, se;
    cube_bench_ratio(2.0, 0.2, 3.0, 0.3, &r, &se);
    assert_true(r == 1.5);
    assert_true(fabs(se - 1.5 * sqrt(0.02)) < 1e-15);
    cube_bench_ratio(0.0, 0.0, 1.0, 0.0, &r, &se);
    assert_true(isnan(r) && isnan(se));
    cube_bench_ratio(-1e-12, 0.0, 1.0, 0.0, &r, &se);
    assert_true(isnan(r) && isnan(se));
    /* 2 standard errors is the noise; beyond it and past the threshold: a
     * regression */
    assert_int_equal(cube_bench_judge(1.2, 0.1, 0.10), CUBE_BENCH_SAME);
    assert_int_equal(cube_bench_judge(1.21, 0.1, 0.10), CUBE_BENCH_SLOWER);
    assert_int_equal(cube_bench_judge(1.31, 0.1, 0.10), CUBE_BENCH_REGRESSION);
    assert_int_equal(cube_bench_judge(1.29, 0.1, 0.10), CUBE_BENCH_SLOWER);
    assert_int_equal(cube_bench_judge(0.7, 0.1, 0.10), CUBE_BENCH_FASTER);
    assert_int_equal(cube_bench_judge(NAN, 0.1, 0.10), CUBE_BENCH_SAME);
    assert_string_equal(cube_bench_verdict_name(CUBE_BENCH_REGRESSION), "regression");
    assert_string_equal(cube_bench_verdict_name(CUBE_BENCH_ONLY_AFTER), "only-after");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_arg),
        cmocka_unit_test(test_parse_arg_locale),
        cmocka_unit_test(test_weighted_median),
        cmocka_unit_test(test_three_runs_weighted_median),
        cmocka_unit_test(test_interpolation),
        cmocka_unit_test(test_per_rank),
        cmocka_unit_test(test_suites_of_some_runs),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_merged_attributes),
        cmocka_unit_test(test_files_round_trip),
        cmocka_unit_test(test_files_errors),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_ratio_and_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
