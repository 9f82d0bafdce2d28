/*
 * test_algebra.c - the CUBE algebra: how experiments are lined up (the
 * union of metrics, regions, call paths and system trees), how diff, merge
 * and mean combine values, and cube_compare.
 *
 * Every rule is checked on small experiments made with the CUBE3 writer
 * API and written to temporary files; the expected result is written out
 * in the test.  Results are rendered as text (the trees with every item's
 * index, and every non-zero row with its values in the shortest form that
 * reads back to the same double), so a string comparison checks the whole
 * result: what exists, in which order, under which parent, and every value
 * exactly.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <float.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------- */
/* temporary files, removed after every test                               */

static char *made_files[64];
static size_t num_made_files;

static const char *remember(char *path)
{
    assert_true(num_made_files < sizeof made_files / sizeof made_files[0]);
    made_files[num_made_files++] = path;
    return path;
}

static int remove_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < num_made_files; i++) {
        unlink(made_files[i]);
        free(made_files[i]);
    }
    num_made_files = 0;
    return 0;
}

/* Write an experiment to a new temporary file and free it. */
static const char *save(cube_t *c)
{
    char *path = temp_path(".cube");
    if (cube_write_file(c, path, 0) != 0)
        fail_msg("writing %s failed: %s", path, cube_error(c));
    cube_free(c);
    return remember(path);
}

/* Write a hand-made file. */
static const char *save_text(const char *xml)
{
    return remember(temp_file_with(xml, strlen(xml)));
}

/* A path where no file is. */
static const char *nowhere(void)
{
    return remember(temp_path(".cube"));
}

/* ---------------------------------------------------------------------- */
/* building experiments                                                    */

static cube_metric *met(cube_t *c, const char *uniq, const char *dtype, cube_metric *parent)
{
    cube_metric *m = cube_def_met(c, uniq, uniq, dtype, "sec", "", "", "", parent);
    assert_non_null(m);
    return m;
}

static cube_region *reg(cube_t *c, const char *name, const char *mod)
{
    cube_region *r = cube_def_region(c, name, -1, -1, "", "", mod);
    assert_non_null(r);
    return r;
}

static cube_cnode *call(cube_t *c, cube_region *callee, const char *mod, int line,
                        cube_cnode *parent)
{
    cube_cnode *n = cube_def_cnode_cs(c, callee, mod, line, parent);
    assert_non_null(n);
    return n;
}

/* Machine "M", node "N", processes ranked 0..P-1 named "Process p", each
 * with threads ranked 0..T-1 named "Thread t": thr[p * T + t]. */
static void simple_system(cube_t *c, int P, int T, cube_thread **thr)
{
    cube_node *node = cube_def_node(c, "N", cube_def_mach(c, "M", ""));
    char name[32];
    for (int p = 0; p < P; p++) {
        snprintf(name, sizeof name, "Process %d", p);
        cube_process *proc = cube_def_proc(c, name, p, node);
        for (int t = 0; t < T; t++) {
            snprintf(name, sizeof name, "Thread %d", t);
            thr[p * T + t] = cube_def_thrd(c, name, t, proc);
            assert_non_null(thr[p * T + t]);
        }
    }
}

/* A process with threads of the given ranks (names "Thread <rank>"),
 * appended to thr from *n on. */
static void process_with(cube_t *c, cube_node *node, const char *name, int rank,
                         cube_thread **thr, size_t *n, int nthreads, ...)
{
    cube_process *p = cube_def_proc(c, name, rank, node);
    assert_non_null(p);
    va_list ap;
    va_start(ap, nthreads);
    for (int i = 0; i < nthreads; i++) {
        int trank = va_arg(ap, int);
        char tname[32];
        snprintf(tname, sizeof tname, "Thread %d", trank);
        thr[(*n)++] = cube_def_thrd(c, tname, trank, p);
    }
    va_end(ap);
}

/* ---------------------------------------------------------------------- */
/* running the operations                                                  */

/* The status of the last cube_combine: the code and the message. */
static cube_status status;

static cube_t *combine_v(cube_operation op, cube_match match, cube_system_rule rule, size_t n,
                         va_list ap)
{
    const char *paths[8];
    assert_true(n <= 8);
    for (size_t i = 0; i < n; i++)
        paths[i] = va_arg(ap, const char *);
    /* an old error in the status: a success must clear it */
    status.code = CUBE_EMISMATCH;
    memset(status.message, 'x', sizeof status.message - 1);
    status.message[sizeof status.message - 1] = '\0';
    return cube_combine(op, paths, n, match, rule, &status);
}

/* cube_combine that must succeed (CUBE_OK with an empty message). */
static cube_t *combine(cube_operation op, cube_match match, cube_system_rule rule, size_t n,
                       ...)
{
    va_list ap;
    va_start(ap, n);
    cube_t *res = combine_v(op, match, rule, n, ap);
    va_end(ap);
    if (!res)
        fail_msg("cube_combine failed: %s", status.message);
    assert_int_equal(status.code, CUBE_OK);
    assert_string_equal(status.message, "");
    return res;
}

/* cube_combine that must fail with `code`; the message is in status. */
static void combine_fails(cube_code code, cube_operation op, cube_match match,
                          cube_system_rule rule, size_t n, ...)
{
    va_list ap;
    va_start(ap, n);
    cube_t *res = combine_v(op, match, rule, n, ap);
    va_end(ap);
    if (res)
        fail_msg("cube_combine succeeded, but it must fail");
    if (status.code != code)
        fail_msg("cube_combine failed with code %d (%s), expected %d (%s): %s", (int)status.code,
                 cube_code_text(status.code), (int)code, cube_code_text(code), status.message);
}

#define FULL CUBE_MATCH_FULL
#define NAME CUBE_MATCH_NAME
#define AGREE CUBE_SYSTEM_AGREE
#define FIRST CUBE_SYSTEM_FIRST
#define COLLAPSE CUBE_SYSTEM_COLLAPSE

/* Options from cube_compare_options_init with these tolerances and limit. */
static cube_compare_options options(double rel_tol, double abs_tol, size_t max_reported)
{
    cube_compare_options o;
    cube_compare_options_init(&o);
    o.rel_tol = rel_tol;
    o.abs_tol = abs_tol;
    o.max_reported = max_reported;
    return o;
}

/* The library's defaults but 100 differences reported (set in main). */
static cube_compare_options default_options;

/* ---------------------------------------------------------------------- */
/* rendering results as text                                               */

typedef struct {
    char *s;
    size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* The result of a render: compared, then freed. */
static void assert_text(char *got, const char *expected)
{
    const char *shown = got ? got : "", *want = expected ? expected : "";
    if (strcmp(shown, want) != 0)
        fail_msg("got:\n%s\nexpected:\n%s", shown, want);
    free(got);
}

static void metric_subtree(text *t, const cube_metric *m, int depth)
{
    add(t, "%*s[%zu]%s\n", 2 * depth, "", cube_metric_index(m), cube_metric_uniq_name(m));
    for (size_t i = 0; i < cube_metric_num_children(m); i++)
        metric_subtree(t, cube_metric_child(m, i), depth + 1);
}

/* "[index]uniq_name" per metric, children indented under their parent. */
static char *metric_tree(const cube_t *c)
{
    text t = {0};
    for (size_t i = 0; i < cube_num_root_metrics(c); i++)
        metric_subtree(&t, cube_get_root_metric(c, i), 0);
    return t.s;
}

static void cnode_subtree(text *t, const cube_cnode *n, int depth)
{
    add(t, "%*s[%zu]%s", 2 * depth, "", cube_cnode_index(n),
        cube_region_name(cube_cnode_callee(n)));
    if (cube_cnode_mod(n)[0] || cube_cnode_line(n) != -1)
        add(t, "@%s:%ld", cube_cnode_mod(n), cube_cnode_line(n));
    add(t, "\n");
    for (size_t i = 0; i < cube_cnode_num_children(n); i++)
        cnode_subtree(t, cube_cnode_child(n, i), depth + 1);
}

/* "[index]callee@callsite_module:line" per call path, as a tree. */
static char *cnode_tree(const cube_t *c)
{
    text t = {0};
    for (size_t i = 0; i < cube_num_root_cnodes(c); i++)
        cnode_subtree(&t, cube_get_root_cnode(c, i), 0);
    return t.s;
}

/* "[index]name@module" per region, in definition order. */
static char *region_list(const cube_t *c)
{
    text t = {0};
    for (size_t i = 0; i < cube_num_regions(c); i++) {
        const cube_region *r = cube_get_region(c, i);
        add(&t, "[%zu]%s@%s\n", cube_region_index(r), cube_region_name(r), cube_region_mod(r));
    }
    return t.s;
}

/* The system tree with every process's and thread's index, rank and name. */
static char *system_tree(const cube_t *c)
{
    text t = {0};
    for (size_t mi = 0; mi < cube_num_machines(c); mi++) {
        const cube_machine *m = cube_get_machine(c, mi);
        add(&t, "%s\n", cube_machine_name(m));
        for (size_t ni = 0; ni < cube_machine_num_nodes(m); ni++) {
            const cube_node *n = cube_machine_node(m, ni);
            add(&t, "  %s\n", cube_node_name(n));
            for (size_t pi = 0; pi < cube_node_num_processes(n); pi++) {
                const cube_process *p = cube_node_process(n, pi);
                add(&t, "    process #%zu rank %lld \"%s\"\n", cube_process_index(p),
                    (long long)cube_process_rank(p), cube_process_name(p));
                for (size_t ti = 0; ti < cube_process_num_threads(p); ti++) {
                    const cube_thread *th = cube_process_thread(p, ti);
                    add(&t, "      thread #%zu rank %lld \"%s\"\n", cube_thread_index(th),
                        (long long)cube_thread_rank(th), cube_thread_name(th));
                }
            }
        }
    }
    return t.s;
}

/* Every row that has a non-zero value, in metric then call path index
 * order: "uniq call/path#cnode_index: v0 v1 ..." (values in thread index
 * order, each in the shortest form that reads back to the same double, so
 * equal text means bit-identical values). */
static char *values(const cube_t *c)
{
    text t = {0};
    size_t nt = cube_num_threads(c);
    for (size_t m = 0; m < cube_num_metrics(c); m++)
        for (size_t n = 0; n < cube_num_cnodes(c); n++) {
            const cube_metric *met_m = cube_get_metric(c, m);
            const cube_cnode *cn = cube_get_cnode(c, n);
            const double *row = cube_get_row(c, met_m, cn);
            size_t nonzero = 0;
            for (size_t i = 0; row && i < nt; i++)
                nonzero += row[i] != 0.0;
            if (!nonzero)
                continue;
            char *path = cube_call_path(cn);
            add(&t, "%s %s#%zu:", cube_metric_uniq_name(met_m), path, n);
            free(path);
            for (size_t i = 0; i < nt; i++) {
                char buf[CUBE_DOUBLE_BUFSIZE];
                cube_format_double(row[i], buf);
                add(&t, " %s", buf);
            }
            add(&t, "\n");
        }
    return t.s;
}

static char *attributes(const cube_t *c)
{
    text t = {0};
    for (size_t i = 0; i < cube_num_attrs(c); i++)
        add(&t, "%s=%s\n", cube_attr_key(c, i), cube_attr_value(c, i));
    for (size_t i = 0; i < cube_num_mirrors(c); i++)
        add(&t, "mirror %s\n", cube_mirror(c, i));
    return t.s;
}

static double sev(const cube_t *c, size_t metric, size_t cnode, size_t thread)
{
    return cube_get_sev(c, cube_get_metric(c, metric), cube_get_cnode(c, cnode),
                        cube_get_thread(c, thread));
}

static void assert_metric(const cube_metric *m, const char *disp, const char *uniq,
                          const char *dtype, const char *uom, const char *url, const char *descr)
{
    assert_string_equal(cube_metric_disp_name(m), disp);
    assert_string_equal(cube_metric_uniq_name(m), uniq);
    assert_string_equal(cube_metric_dtype(m), dtype);
    assert_string_equal(cube_metric_uom(m), uom);
    assert_string_equal(cube_metric_url(m), url);
    assert_string_equal(cube_metric_descr(m), descr);
}

/* ====================================================================== */
/* metrics                                                                 */

/*
 * A: time > mpi; visits.
 * B: time > {mpi, io > io_read, visits}; mpi; bytes > bytes_sent.
 * Metrics line up by unique name wherever they sit: time and mpi match;
 * io (only B) comes with its subtree under the matched time; B's visits
 * is A's visits, placed as A has it (a root), with a warning; B's root mpi
 * repeats a unique name B has used already: B's first mpi counts, the
 * repeat's values are ignored, with a warning; bytes comes with its
 * subtree as a new root.
 */
static void test_metrics_matched_by_unique_name_wherever_they_sit(void **state)
{
    (void)state;
    cube_thread *t[1];

    cube_t *a = cube_create();
    cube_metric *a_time = cube_def_met(a, "Time", "time", "FLOAT", "sec", "", "a.html#time",
                                       "time in A", NULL);
    cube_metric *a_mpi = met(a, "mpi", "FLOAT", a_time);
    cube_metric *a_visits = cube_def_met(a, "Visits", "visits", "INTEGER", "occ", "", "", "",
                                         NULL);
    cube_cnode *a_main = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    simple_system(a, 1, 1, t);
    cube_set_sev(a, a_time, a_main, t[0], 10);
    cube_set_sev(a, a_mpi, a_main, t[0], 4);
    cube_set_sev(a, a_visits, a_main, t[0], 1);
    const char *A = save(a);

    cube_t *b = cube_create();
    cube_metric *b_time = cube_def_met(b, "Zeit", "time", "INTEGER", "s", "", "b.html#time",
                                       "time in B", NULL);
    cube_metric *b_mpi = met(b, "mpi", "FLOAT", b_time);
    cube_metric *b_io = cube_def_met(b, "I/O", "io", "FLOAT", "sec", "", "b.html#io", "io in B",
                                     b_time);
    cube_metric *b_io_read = met(b, "io_read", "FLOAT", b_io);
    cube_metric *b_visits = met(b, "visits", "INTEGER", b_time);
    cube_metric *b_mpi_root = met(b, "mpi", "FLOAT", NULL);
    cube_metric *b_bytes = cube_def_met(b, "Bytes", "bytes", "UINT64", "bytes", "", "", "",
                                        NULL);
    cube_metric *b_sent = cube_def_met(b, "Sent", "bytes_sent", "UINT64", "bytes", "", "", "",
                                       b_bytes);
    cube_cnode *b_main = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    simple_system(b, 1, 1, t);
    cube_set_sev(b, b_time, b_main, t[0], 20);
    cube_set_sev(b, b_mpi, b_main, t[0], 5);
    cube_set_sev(b, b_io, b_main, t[0], 3);
    cube_set_sev(b, b_io_read, b_main, t[0], 2);
    cube_set_sev(b, b_visits, b_main, t[0], 9);
    cube_set_sev(b, b_mpi_root, b_main, t[0], 7);
    cube_set_sev(b, b_bytes, b_main, t[0], 100);
    cube_set_sev(b, b_sent, b_main, t[0], 60);
    const char *B = save(b);

    const char *tree = "[0]time\n"
                       "  [1]mpi\n"
                       "  [3]io\n"
                       "    [4]io_read\n"
                       "[2]visits\n"
                       "[5]bytes\n"
                       "  [6]bytes_sent\n";
    cube_t *res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, A, B);
    assert_text(metric_tree(res), tree);
    assert_text(values(res), "time main#0: -10\n"
                             "mpi main#0: -1\n"
                             "visits main#0: -8\n"
                             "io main#0: -3\n"
                             "io_read main#0: -2\n"
                             "bytes main#0: -100\n"
                             "bytes_sent main#0: -60\n");
    /* one warning per metric whose place differs, naming the inputs */
    char expected[1024];
    assert_int_equal(cube_num_warnings(res), 2);
    snprintf(expected, sizeof expected,
             "metric 'visits' is a root metric in %s but under 'time' in %s; it is one metric, "
             "placed as in %s",
             A, B, A);
    assert_string_equal(cube_warning(res, 0), expected);
    snprintf(expected, sizeof expected,
             "%s: two metrics have the unique name 'mpi' (under 'time', and a root metric): "
             "the first is used, the values of the other are ignored",
             B);
    assert_string_equal(cube_warning(res, 1), expected);
    /* display name, dtype, unit, url and description from the first input
     * that has the metric */
    assert_metric(cube_get_metric(res, 0), "Time", "time", "FLOAT", "sec", "a.html#time",
                  "time in A");
    assert_metric(cube_get_metric(res, 2), "Visits", "visits", "INTEGER", "occ", "", "");
    assert_metric(cube_get_metric(res, 3), "I/O", "io", "FLOAT", "sec", "b.html#io", "io in B");
    /* a difference can be negative: UINT64 became INT64 */
    assert_metric(cube_get_metric(res, 5), "Bytes", "bytes", "INT64", "bytes", "", "");
    assert_metric(cube_get_metric(res, 6), "Sent", "bytes_sent", "INT64", "bytes", "", "");
    /* never two metrics with one unique name */
    for (size_t i = 0; i < cube_num_metrics(res); i++)
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(cube_metric_uniq_name(cube_get_metric(res, i)),
                                    cube_metric_uniq_name(cube_get_metric(res, j)));
    cube_free(res);

    /* the other way round: B's places win, the warning names B first */
    res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, B, A);
    assert_text(metric_tree(res), "[0]time\n"
                                  "  [1]mpi\n"
                                  "  [2]io\n"
                                  "    [3]io_read\n"
                                  "  [4]visits\n"
                                  "[5]bytes\n"
                                  "  [6]bytes_sent\n");
    assert_int_equal(cube_num_warnings(res), 2);
    snprintf(expected, sizeof expected,
             "metric 'visits' is under 'time' in %s but a root metric in %s; it is one metric, "
             "placed as in %s",
             B, A, B);
    assert_string_equal(cube_warning(res, 1), expected);
    assert_text(values(res), "time main#0: 10\n"
                             "mpi main#0: 1\n"
                             "io main#0: 3\n"
                             "io_read main#0: 2\n"
                             "visits main#0: 8\n"
                             "bytes main#0: 100\n"
                             "bytes_sent main#0: 60\n");
    cube_free(res);

    /* with a third input: io still comes from B, the first that has it */
    cube_t *c = cube_create();
    cube_metric *c_time = met(c, "time", "FLOAT", NULL);
    cube_metric *c_io = cube_def_met(c, "IO of C", "io", "DOUBLE", "ms", "", "c.html", "io in C",
                                     c_time);
    cube_cnode *c_main = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    simple_system(c, 1, 1, t);
    cube_set_sev(c, c_io, c_main, t[0], 8);
    const char *C = save(c);
    res = combine(CUBE_OP_MERGE, FULL, AGREE, 3, A, B, C);
    assert_text(metric_tree(res), tree);
    assert_metric(cube_get_metric(res, 3), "I/O", "io", "FLOAT", "sec", "b.html#io", "io in B");
    /* merge keeps the dtypes */
    assert_metric(cube_get_metric(res, 5), "Bytes", "bytes", "UINT64", "bytes", "", "");
    /* merge: time and io from C (the last that has them), io_read, mpi
     * (not the ignored repeat), visits, bytes from B */
    assert_text(values(res), "mpi main#0: 5\n"
                             "visits main#0: 9\n"
                             "io main#0: 8\n"
                             "io_read main#0: 2\n"
                             "bytes main#0: 100\n"
                             "bytes_sent main#0: 60\n");
    cube_free(res);
}

/* ====================================================================== */
/* regions                                                                 */

static const char *region_experiment(const char *foo_module, double foo_value)
{
    cube_t *c = cube_create();
    cube_thread *t[1];
    cube_metric *time = met(c, "time", "FLOAT", NULL);
    cube_cnode *main_ = cube_def_cnode(c, reg(c, "main", "a.c"), NULL);
    cube_cnode *foo = cube_def_cnode(c, reg(c, "foo", foo_module), main_);
    simple_system(c, 1, 1, t);
    cube_set_sev(c, time, main_, t[0], 1);
    cube_set_sev(c, time, foo, t[0], foo_value);
    return save(c);
}

static void test_regions_matched_by_name_and_module(void **state)
{
    (void)state;
    const char *A = region_experiment("a.c", 5);
    const char *B = region_experiment("b.c", 3);
    const char *A2 = region_experiment("a.c", 3);

    /* same name and module: one region */
    cube_t *res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, A, A2);
    assert_text(region_list(res), "[0]main@a.c\n[1]foo@a.c\n");
    assert_text(cnode_tree(res), "[0]main\n  [1]foo\n");
    assert_text(values(res), "time main/foo#1: 2\n");
    cube_free(res);

    /* --match=full: another module is another region, hence another call path */
    res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, A, B);
    assert_text(region_list(res), "[0]main@a.c\n[1]foo@a.c\n[2]foo@b.c\n");
    assert_text(cnode_tree(res), "[0]main\n  [1]foo\n  [2]foo\n");
    assert_int_equal(cube_region_index(cube_cnode_callee(cube_get_cnode(res, 1))), 1);
    assert_int_equal(cube_region_index(cube_cnode_callee(cube_get_cnode(res, 2))), 2);
    assert_text(values(res), "time main/foo#1: 5\n"
                             "time main/foo#2: -3\n");
    cube_free(res);

    /* --match=name: the same region (the first input's module) */
    res = combine(CUBE_OP_DIFF, NAME, AGREE, 2, A, B);
    assert_text(region_list(res), "[0]main@a.c\n[1]foo@a.c\n");
    assert_text(cnode_tree(res), "[0]main\n  [1]foo\n");
    assert_text(values(res), "time main/foo#1: 2\n");
    cube_free(res);
}

/* ====================================================================== */
/* call paths                                                              */

static void test_call_paths_matched_by_callee_call_site_and_parent(void **state)
{
    (void)state;
    cube_thread *t[1];

    /* A: main > {foo@a.c:10, bar@a.c:20, io@a.c:40} */
    cube_t *a = cube_create();
    cube_metric *a_time = met(a, "time", "FLOAT", NULL);
    cube_cnode *a_main = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    cube_cnode *a_foo = call(a, reg(a, "foo", "a.c"), "a.c", 10, a_main);
    cube_cnode *a_bar = call(a, reg(a, "bar", "a.c"), "a.c", 20, a_main);
    cube_cnode *a_io = call(a, reg(a, "io", "a.c"), "a.c", 40, a_main);
    simple_system(a, 1, 1, t);
    cube_set_sev(a, a_time, a_main, t[0], 2);
    cube_set_sev(a, a_time, a_foo, t[0], 4);
    cube_set_sev(a, a_time, a_bar, t[0], 6);
    cube_set_sev(a, a_time, a_io, t[0], 8);
    const char *A = save(a);

    /* B: main > {foo@a.c:12 (the line moved), bar@x.c:20 (another call-site
     * module), io@a.c:40 > inner@a.c:41, baz@a.c:30 > qux@a.c:31} */
    cube_t *b = cube_create();
    cube_metric *b_time = met(b, "time", "FLOAT", NULL);
    cube_cnode *b_main = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    cube_cnode *b_foo = call(b, reg(b, "foo", "a.c"), "a.c", 12, b_main);
    cube_cnode *b_bar = call(b, reg(b, "bar", "a.c"), "x.c", 20, b_main);
    cube_cnode *b_io = call(b, reg(b, "io", "a.c"), "a.c", 40, b_main);
    cube_cnode *b_inner = call(b, reg(b, "inner", "a.c"), "a.c", 41, b_io);
    cube_cnode *b_baz = call(b, reg(b, "baz", "a.c"), "a.c", 30, b_main);
    cube_cnode *b_qux = call(b, reg(b, "qux", "a.c"), "a.c", 31, b_baz);
    simple_system(b, 1, 1, t);
    cube_set_sev(b, b_time, b_main, t[0], 4);
    cube_set_sev(b, b_time, b_foo, t[0], 8);
    cube_set_sev(b, b_time, b_bar, t[0], 10);
    cube_set_sev(b, b_time, b_io, t[0], 12);
    cube_set_sev(b, b_time, b_inner, t[0], 14);
    cube_set_sev(b, b_time, b_baz, t[0], 16);
    cube_set_sev(b, b_time, b_qux, t[0], 18);
    const char *B = save(b);

    /* full: another line or call-site module is another call path; what
     * only B has is grafted under its matched parent */
    cube_t *res = combine(CUBE_OP_MEAN, FULL, AGREE, 2, A, B);
    assert_text(cnode_tree(res), "[0]main\n"
                                 "  [1]foo@a.c:10\n"
                                 "  [2]bar@a.c:20\n"
                                 "  [3]io@a.c:40\n"
                                 "    [6]inner@a.c:41\n"
                                 "  [4]foo@a.c:12\n"
                                 "  [5]bar@x.c:20\n"
                                 "  [7]baz@a.c:30\n"
                                 "    [8]qux@a.c:31\n");
    assert_text(values(res), "time main#0: 3\n"
                             "time main/foo#1: 2\n"
                             "time main/bar#2: 3\n"
                             "time main/io#3: 10\n"
                             "time main/foo#4: 4\n"
                             "time main/bar#5: 5\n"
                             "time main/io/inner#6: 7\n"
                             "time main/baz#7: 8\n"
                             "time main/baz/qux#8: 9\n");
    cube_free(res);

    /* by name: lines and call-site modules are ignored, the values of the
     * matched call paths add up (here: are averaged) */
    res = combine(CUBE_OP_MEAN, NAME, AGREE, 2, A, B);
    assert_text(cnode_tree(res), "[0]main\n"
                                 "  [1]foo@a.c:10\n"
                                 "  [2]bar@a.c:20\n"
                                 "  [3]io@a.c:40\n"
                                 "    [4]inner@a.c:41\n"
                                 "  [5]baz@a.c:30\n"
                                 "    [6]qux@a.c:31\n");
    assert_text(values(res), "time main#0: 3\n"
                             "time main/foo#1: 6\n"
                             "time main/bar#2: 8\n"
                             "time main/io#3: 10\n"
                             "time main/io/inner#4: 7\n"
                             "time main/baz#5: 8\n"
                             "time main/baz/qux#6: 9\n");
    assert_true(sev(res, 0, 1, 0) == 6.0);
    cube_free(res);
}

/* Siblings of one input with the same key are one call path: their values
 * (and their subtrees) add up; the original tools dropped one of them. */
static void test_siblings_with_the_same_key_add_up(void **state)
{
    (void)state;
    cube_thread *t[2];
    cube_t *a = cube_create();
    cube_metric *time = met(a, "time", "FLOAT", NULL);
    cube_region *r_main = reg(a, "main", "a.c"), *r_foo = reg(a, "foo", "a.c");
    cube_region *r_x = reg(a, "x", "a.c"), *r_y = reg(a, "y", "a.c");
    cube_cnode *main_ = call(a, r_main, "", -1, NULL);
    cube_cnode *f1 = call(a, r_foo, "a.c", 5, main_);
    cube_cnode *x1 = call(a, r_x, "a.c", 6, f1);
    cube_cnode *f2 = call(a, r_foo, "a.c", 5, main_);
    cube_cnode *x2 = call(a, r_x, "a.c", 6, f2);
    cube_cnode *y = call(a, r_y, "a.c", 7, f2);
    cube_cnode *f3 = call(a, r_foo, "a.c", 9, main_);
    simple_system(a, 1, 2, t);
    cube_set_sev(a, time, main_, t[0], 1);
    cube_set_sev(a, time, main_, t[1], 1);
    cube_set_sev(a, time, f1, t[0], 1);
    cube_set_sev(a, time, f1, t[1], 2);
    cube_set_sev(a, time, x1, t[0], 1);
    cube_set_sev(a, time, f2, t[0], 3);
    cube_set_sev(a, time, f2, t[1], 4);
    cube_set_sev(a, time, x2, t[0], 10);
    cube_set_sev(a, time, x2, t[1], 0.5);
    cube_set_sev(a, time, y, t[0], 5);
    cube_set_sev(a, time, y, t[1], 6);
    cube_set_sev(a, time, f3, t[0], 0.25);
    cube_set_sev(a, time, f3, t[1], 0.25);
    const char *A = save(a);

    cube_t *res = combine(CUBE_OP_MEAN, FULL, AGREE, 1, A);
    assert_text(cnode_tree(res), "[0]main\n"
                                 "  [1]foo@a.c:5\n"
                                 "    [2]x@a.c:6\n"
                                 "    [3]y@a.c:7\n"
                                 "  [4]foo@a.c:9\n");
    assert_text(values(res), "time main#0: 1 1\n"
                             "time main/foo#1: 4 6\n"
                             "time main/foo/x#2: 11 0.5\n"
                             "time main/foo/y#3: 5 6\n"
                             "time main/foo#4: 0.25 0.25\n");
    cube_free(res);

    /* by name, the third foo (another line) joins them too */
    res = combine(CUBE_OP_MERGE, NAME, AGREE, 1, A);
    assert_text(cnode_tree(res), "[0]main\n"
                                 "  [1]foo@a.c:5\n"
                                 "    [2]x@a.c:6\n"
                                 "    [3]y@a.c:7\n");
    assert_text(values(res), "time main#0: 1 1\n"
                             "time main/foo#1: 4.25 6.25\n"
                             "time main/foo/x#2: 11 0.5\n"
                             "time main/foo/y#3: 5 6\n");
    cube_free(res);

    /* the difference with itself is zero everywhere */
    res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, A, A);
    assert_text(values(res), "");
    assert_int_equal(cube_num_cnodes(res), 5);
    cube_free(res);
}

/* ====================================================================== */
/* locations                                                               */

/* Threads match by (process rank, thread rank); names, ids and the order
 * of definition do not matter. */
static void test_threads_matched_by_ranks_not_names_or_ids(void **state)
{
    (void)state;
    cube_thread *t[4];
    cube_t *a = cube_create();
    cube_metric *time = met(a, "time", "FLOAT", NULL);
    cube_cnode *main_ = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    simple_system(a, 2, 2, t);
    for (int i = 0; i < 4; i++) /* (p, t) -> 10p + t + 1 */
        cube_set_sev(a, time, main_, t[i], 10 * (i / 2) + i % 2 + 1);
    const char *A = save(a);

    cube_t *b = cube_create();
    cube_metric *b_time = met(b, "time", "FLOAT", NULL);
    cube_cnode *b_main = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    cube_node *node = cube_def_node(b, "N", cube_def_mach(b, "M", ""));
    cube_process *p1 = cube_def_proc(b, "rank one", 1, node);
    cube_thread *b11 = cube_def_thrd(b, "b", 1, p1);
    cube_thread *b10 = cube_def_thrd(b, "a", 0, p1);
    cube_process *p0 = cube_def_proc(b, "rank zero", 0, node);
    cube_thread *b01 = cube_def_thrd(b, "d", 1, p0);
    cube_thread *b00 = cube_def_thrd(b, "c", 0, p0);
    cube_set_sev(b, b_time, b_main, b00, 0.5);
    cube_set_sev(b, b_time, b_main, b01, 1);
    cube_set_sev(b, b_time, b_main, b10, 5.5);
    cube_set_sev(b, b_time, b_main, b11, 6);
    const char *B = save(b);

    cube_t *res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, A, B);
    assert_text(system_tree(res), "M\n"
                                  "  N\n"
                                  "    process #0 rank 0 \"Process 0\"\n"
                                  "      thread #0 rank 0 \"Thread 0\"\n"
                                  "      thread #1 rank 1 \"Thread 1\"\n"
                                  "    process #1 rank 1 \"Process 1\"\n"
                                  "      thread #2 rank 0 \"Thread 0\"\n"
                                  "      thread #3 rank 1 \"Thread 1\"\n");
    /* A: 1 2 11 12, B: 0.5 1 5.5 6 */
    assert_text(values(res), "time main#0: 0.5 1 5.5 6\n");
    assert_true(sev(res, 0, 0, 3) == 6.0);
    cube_free(res);
}

/* Two files whose rank 1 sits on differently named nodes. */
static void two_nodes_experiment(const char **first, const char **second)
{
    cube_thread *t[2];
    size_t n = 0;
    cube_t *a = cube_create();
    cube_metric *time = met(a, "time", "FLOAT", NULL);
    cube_cnode *main_ = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    cube_machine *m = cube_def_mach(a, "M", "");
    process_with(a, cube_def_node(a, "n0", m), "Process 0", 0, t, &n, 1, 0);
    process_with(a, cube_def_node(a, "n1", m), "Process 1", 1, t, &n, 1, 0);
    cube_set_sev(a, time, main_, t[0], 1);
    cube_set_sev(a, time, main_, t[1], 2);
    *first = save(a);

    n = 0;
    cube_t *b = cube_create();
    time = met(b, "time", "FLOAT", NULL);
    main_ = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    cube_node *n0 = cube_def_node(b, "n0", cube_def_mach(b, "M", ""));
    process_with(b, n0, "Process 0", 0, t, &n, 1, 0);
    process_with(b, n0, "Process 1", 1, t, &n, 1, 0);
    cube_set_sev(b, time, main_, t[0], 0.5);
    cube_set_sev(b, time, main_, t[1], 0.25);
    *second = save(b);
}

static void test_system_trees_must_agree(void **state)
{
    (void)state;
    const char *A, *B;
    two_nodes_experiment(&A, &B);
    char expected[2048];
    snprintf(expected, sizeof expected,
             "the system trees do not agree: process rank 1 is on node 'n1' of machine 'M' in "
             "%s but on node 'n0' of machine 'M' in %s; use -c to keep the first "
             "experiment's machines and nodes, or -C to collapse all processes into one "
             "virtual node",
             A, B);
    combine_fails(CUBE_EMISMATCH, CUBE_OP_DIFF, FULL, AGREE, 2, A, B);
    assert_string_equal(status.message, expected);

    /* the first input that has the rank is named, not merely the first input */
    const char *E;
    {
        cube_thread *t[1];
        size_t n = 0;
        cube_t *e = cube_create();
        met(e, "time", "FLOAT", NULL);
        call(e, reg(e, "main", "a.c"), "", -1, NULL);
        process_with(e, cube_def_node(e, "n0", cube_def_mach(e, "M", "")), "Process 0", 0, t,
                     &n, 1, 0);
        E = save(e);
    }
    snprintf(expected, sizeof expected,
             "the system trees do not agree: process rank 1 is on node 'n1' of machine 'M' in "
             "%s but on node 'n0' of machine 'M' in %s; use -c to keep the first "
             "experiment's machines and nodes, or -C to collapse all processes into one "
             "virtual node",
             A, B);
    combine_fails(CUBE_EMISMATCH, CUBE_OP_MEAN, FULL, AGREE, 3, E, A, B);
    assert_string_equal(status.message, expected);

    /* cube_compare fails alike */
    cube_compare_options o = options(2 * DBL_EPSILON, DBL_MIN, 10);
    size_t count = 99;
    cube_status st;
    assert_int_equal(cube_compare(A, B, FULL, AGREE, &o, NULL, NULL, &count, &st), -1);
    assert_int_equal(st.code, CUBE_EMISMATCH);
    snprintf(expected, sizeof expected,
             "the system trees do not agree: process rank 1 is on node 'n1' of machine 'M' in "
             "%s but on node 'n0' of machine 'M' in %s; use -c to keep the first "
             "experiment's machines and nodes, or -C to collapse all processes into one "
             "virtual node",
             A, B);
    assert_string_equal(st.message, expected);

    /* -c: the first input's nodes */
    cube_t *res = combine(CUBE_OP_DIFF, FULL, FIRST, 2, A, B);
    assert_text(system_tree(res), "M\n"
                                  "  n0\n"
                                  "    process #0 rank 0 \"Process 0\"\n"
                                  "      thread #0 rank 0 \"Thread 0\"\n"
                                  "  n1\n"
                                  "    process #1 rank 1 \"Process 1\"\n"
                                  "      thread #1 rank 0 \"Thread 0\"\n");
    assert_text(values(res), "time main#0: 0.5 1.75\n");
    cube_free(res);
}

/* Agreeing trees: the result is the first input's tree, extended by the
 * machines, nodes, processes and threads that only later inputs have. */
static void test_agreeing_system_trees_are_extended(void **state)
{
    (void)state;
    cube_thread *t[4];
    size_t n = 0;
    cube_t *a = cube_create();
    cube_metric *time = met(a, "time", "FLOAT", NULL);
    cube_cnode *main_ = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    cube_machine *m = cube_def_mach(a, "M", "machine of A");
    process_with(a, cube_def_node(a, "n0", m), "P0", 0, t, &n, 1, 0);
    process_with(a, cube_def_node(a, "n1", m), "P1", 1, t, &n, 1, 0);
    cube_set_sev(a, time, main_, t[0], 1);
    cube_set_sev(a, time, main_, t[1], 2);
    const char *A = save(a);

    n = 0;
    cube_t *b = cube_create();
    time = met(b, "time", "FLOAT", NULL);
    main_ = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    cube_node *n0 = cube_def_node(b, "n0", cube_def_mach(b, "M", "machine of B"));
    process_with(b, n0, "Q0", 0, t, &n, 2, 0, 1);
    process_with(b, n0, "Q2", 2, t, &n, 1, 0);
    process_with(b, cube_def_node(b, "n9", cube_def_mach(b, "M2", "")), "Q3", 3, t, &n, 1, 0);
    cube_set_sev(b, time, main_, t[0], 0.5);
    cube_set_sev(b, time, main_, t[1], 4);
    cube_set_sev(b, time, main_, t[2], 8);
    cube_set_sev(b, time, main_, t[3], 16);
    const char *B = save(b);

    cube_t *res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, A, B);
    assert_text(system_tree(res), "M\n"
                                  "  n0\n"
                                  "    process #0 rank 0 \"P0\"\n"
                                  "      thread #0 rank 0 \"Thread 0\"\n"
                                  "      thread #2 rank 1 \"Thread 1\"\n"
                                  "    process #2 rank 2 \"Q2\"\n"
                                  "      thread #3 rank 0 \"Thread 0\"\n"
                                  "  n1\n"
                                  "    process #1 rank 1 \"P1\"\n"
                                  "      thread #1 rank 0 \"Thread 0\"\n"
                                  "M2\n"
                                  "  n9\n"
                                  "    process #3 rank 3 \"Q3\"\n"
                                  "      thread #4 rank 0 \"Thread 0\"\n");
    assert_string_equal(cube_machine_descr(cube_get_machine(res, 0)), "machine of A");
    /* threads only B has get B's values negated */
    assert_text(values(res), "time main#0: 0.5 2 -4 -8 -16\n");

    /* written and read back, the threads come in tree order and every
     * value stays with its (process rank, thread rank) */
    char *path = temp_path(".cube");
    remember(path);
    assert_int_equal(cube_write_file(res, path, 0), 0);
    cube_t *back = read_ok(path);
    assert_text(system_tree(back), "M\n"
                                   "  n0\n"
                                   "    process #0 rank 0 \"P0\"\n"
                                   "      thread #0 rank 0 \"Thread 0\"\n"
                                   "      thread #1 rank 1 \"Thread 1\"\n"
                                   "    process #1 rank 2 \"Q2\"\n"
                                   "      thread #2 rank 0 \"Thread 0\"\n"
                                   "  n1\n"
                                   "    process #2 rank 1 \"P1\"\n"
                                   "      thread #3 rank 0 \"Thread 0\"\n"
                                   "M2\n"
                                   "  n9\n"
                                   "    process #3 rank 3 \"Q3\"\n"
                                   "      thread #4 rank 0 \"Thread 0\"\n");
    assert_text(values(back), "time main#0: 0.5 -4 -8 2 -16\n");
    cube_free(back);
    cube_free(res);
}

/* -c: the first input's machines and nodes; ranks it lacks go to one extra
 * node (on the first machine). */
static void test_system_first_keeps_first_tree(void **state)
{
    (void)state;
    cube_thread *t[4];
    size_t n = 0;
    cube_t *a = cube_create();
    cube_metric *time = met(a, "time", "FLOAT", NULL);
    cube_cnode *main_ = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    cube_machine *m = cube_def_mach(a, "M", "machine of A");
    cube_def_node(a, "empty", m); /* a node without processes stays */
    cube_node *n0 = cube_def_node(a, "n0", m);
    process_with(a, n0, "P0", 0, t, &n, 1, 0);
    process_with(a, n0, "P1", 1, t, &n, 1, 0);
    cube_def_mach(a, "spare", ""); /* and so does a machine without nodes */
    cube_set_sev(a, time, main_, t[0], 1);
    cube_set_sev(a, time, main_, t[1], 2);
    const char *A = save(a);

    n = 0;
    cube_t *b = cube_create();
    time = met(b, "time", "FLOAT", NULL);
    main_ = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    cube_node *y = cube_def_node(b, "y", cube_def_mach(b, "X", ""));
    process_with(b, y, "Q1", 1, t, &n, 2, 0, 1);
    process_with(b, y, "Q2", 2, t, &n, 2, 0, 1);
    for (size_t i = 0; i < 4; i++)
        cube_set_sev(b, time, main_, t[i], 10.0 * (double)(i + 1));
    const char *B = save(b);

    combine_fails(CUBE_EMISMATCH, CUBE_OP_DIFF, FULL, AGREE, 2, A, B);
    assert_non_null(strstr(status.message, "process rank 1 is on node 'n0' of machine 'M'"));

    cube_t *res = combine(CUBE_OP_DIFF, FULL, FIRST, 2, A, B);
    assert_text(system_tree(res), "M\n"
                                  "  empty\n"
                                  "  n0\n"
                                  "    process #0 rank 0 \"P0\"\n"
                                  "      thread #0 rank 0 \"Thread 0\"\n"
                                  "    process #1 rank 1 \"P1\"\n"
                                  "      thread #1 rank 0 \"Thread 0\"\n"
                                  "      thread #2 rank 1 \"Thread 1\"\n"
                                  "  Processes not in the first experiment\n"
                                  "    process #2 rank 2 \"Q2\"\n"
                                  "      thread #3 rank 0 \"Thread 0\"\n"
                                  "      thread #4 rank 1 \"Thread 1\"\n"
                                  "spare\n");
    assert_int_equal(cube_num_machines(res), 2);
    assert_int_equal(cube_num_nodes(res), 3);
    assert_string_equal(cube_machine_descr(cube_get_machine(res, 0)), "machine of A");
    /* A: 1 2 (ranks 0.0, 1.0); B: 10 20 30 40 (ranks 1.0, 1.1, 2.0, 2.1) */
    assert_text(values(res), "time main#0: 1 -8 -20 -30 -40\n");
    cube_free(res);
}

/* -C: one virtual machine and node with every rank of any input, sorted,
 * each with every thread rank any input has for it. */
static void test_system_collapse_builds_virtual_tree(void **state)
{
    (void)state;
    cube_thread *t[3];
    size_t n = 0;
    cube_t *a = cube_create();
    cube_metric *time = met(a, "time", "FLOAT", NULL);
    cube_cnode *main_ = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    cube_node *n0 = cube_def_node(a, "n0", cube_def_mach(a, "M", ""));
    process_with(a, n0, "P3", 3, t, &n, 1, 0);
    process_with(a, n0, "P1", 1, t, &n, 2, 0, 1);
    cube_set_sev(a, time, main_, t[0], 1);
    cube_set_sev(a, time, main_, t[1], 2);
    cube_set_sev(a, time, main_, t[2], 3);
    const char *A = save(a);

    n = 0;
    cube_t *b = cube_create();
    time = met(b, "time", "FLOAT", NULL);
    main_ = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    cube_node *y = cube_def_node(b, "y", cube_def_mach(b, "X", ""));
    process_with(b, y, "Q0", 0, t, &n, 1, 2);
    process_with(b, y, "Q3", 3, t, &n, 1, 1);
    cube_set_sev(b, time, main_, t[0], 10);
    cube_set_sev(b, time, main_, t[1], 20);
    const char *B = save(b);

    cube_t *res = combine(CUBE_OP_DIFF, FULL, COLLAPSE, 2, A, B);
    assert_text(system_tree(res), "Virtual machine\n"
                                  "  Virtual node\n"
                                  "    process #0 rank 0 \"Process 0\"\n"
                                  "      thread #0 rank 2 \"Thread 2\"\n"
                                  "    process #1 rank 1 \"Process 1\"\n"
                                  "      thread #1 rank 0 \"Thread 0\"\n"
                                  "      thread #2 rank 1 \"Thread 1\"\n"
                                  "    process #2 rank 3 \"Process 3\"\n"
                                  "      thread #3 rank 0 \"Thread 0\"\n"
                                  "      thread #4 rank 1 \"Thread 1\"\n");
    assert_int_equal(cube_num_machines(res), 1);
    assert_int_equal(cube_num_nodes(res), 1);
    /* A: (3,0)=1 (1,0)=2 (1,1)=3; B: (0,2)=10 (3,1)=20 */
    assert_text(values(res), "time main#0: -10 2 3 1 -20\n");
    cube_free(res);
}

/* One process with threads 0 and 1 (and 2 when `third`), optionally with
 * a 1-d topology "name" that maps thread 0 to 1 and thread 1 to 0. */
static const char *topology_experiment(const char *name, int third)
{
    cube_thread *t[3];
    size_t n = 0;
    cube_t *c = cube_create();
    cube_metric *time = met(c, "time", "FLOAT", NULL);
    cube_cnode *main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    process_with(c, cube_def_node(c, "N", cube_def_mach(c, "M", "")), "Process 0", 0, t, &n,
                 third ? 3 : 2, 0, 1, 2);
    if (name) {
        long dims[1] = {2}, c0[1] = {1}, c1[1] = {0};
        int periods[1] = {1};
        cube_cartesian *cart = cube_def_cart(c, 1, dims, periods);
        assert_int_equal(cube_cart_set_name(c, cart, name), 0);
        assert_int_equal(cube_cart_set_dim_name(c, cart, 0, "x"), 0);
        cube_def_coords(c, cart, t[0], c0);
        cube_def_coords(c, cart, t[1], c1);
    }
    cube_set_sev(c, time, main_, t[0], 1);
    return save(c);
}

static void test_topologies_kept_only_for_first_inputs_locations(void **state)
{
    (void)state;
    const char *A = topology_experiment("grid", 0);
    const char *B = topology_experiment("other", 0);
    const char *plain = topology_experiment(NULL, 0);
    const char *wider = topology_experiment("wide", 1);

    /* the result's locations are A's: A's topology, once */
    static const struct {
        cube_operation op;
        cube_system_rule rule;
        int a_twice;
    } kept[] = {{CUBE_OP_MEAN, AGREE, 0}, {CUBE_OP_MERGE, AGREE, 1}, {CUBE_OP_DIFF, FIRST, 0},
                {CUBE_OP_MEAN, AGREE, 1}};
    for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++) {
        cube_t *res = combine(kept[k].op, FULL, kept[k].rule, 2, A, kept[k].a_twice ? A : B);
        assert_int_equal(cube_num_carts(res), 1);
        const cube_cartesian *cart = cube_get_cart(res, 0);
        assert_string_equal(cube_cart_name(cart), "grid");
        assert_int_equal(cube_cart_ndims(cart), 1);
        assert_int_equal(cube_cart_dim(cart, 0), 2);
        assert_int_equal(cube_cart_period(cart, 0), 1);
        /* named dimensions (NULL when unnamed) */
        assert_non_null(cube_cart_dim_name(cart, 0));
        assert_string_equal(cube_cart_dim_name(cart, 0), "x");
        assert_int_equal(cube_cart_num_coords(cart), 2);
        assert_int_equal(cube_cart_coord(cart, 0)->kind, CUBE_COORD_THREAD);
        assert_ptr_equal(cube_cart_coord(cart, 0)->entity, cube_get_thread(res, 0));
        assert_int_equal(cube_cart_coord(cart, 0)->coords[0], 1);
        assert_ptr_equal(cube_cart_coord(cart, 1)->entity, cube_get_thread(res, 1));
        assert_int_equal(cube_cart_coord(cart, 1)->coords[0], 0);
        cube_free(res);
    }

    /* the first input has none: none (B's is not taken) */
    cube_t *res = combine(CUBE_OP_MEAN, FULL, AGREE, 2, plain, B);
    assert_int_equal(cube_num_carts(res), 0);
    cube_free(res);
    /* other locations: dropped */
    res = combine(CUBE_OP_MEAN, FULL, AGREE, 2, A, wider);
    assert_int_equal(cube_num_threads(res), 3);
    assert_int_equal(cube_num_carts(res), 0);
    cube_free(res);
    res = combine(CUBE_OP_MEAN, FULL, COLLAPSE, 2, A, B);
    assert_int_equal(cube_num_carts(res), 0);
    cube_free(res);
}

/* Score-P 1.x numbers thread ranks across the experiment (process 1's
 * threads are 2 and 3 when each process has two): they line up with
 * ranks counted per process. */
/* The system tree of test_global_thread_ranks_line_up's results: two
 * processes of two threads, process 1's with the given ranks and names. */
static const char *two_by_two(const char *machine, const char *node, int rank2, int rank3,
                              int name2, int name3)
{
    static char tree[512];
    snprintf(tree, sizeof tree,
             "%s\n"
             "  %s\n"
             "    process #0 rank 0 \"Process 0\"\n"
             "      thread #0 rank 0 \"Thread 0\"\n"
             "      thread #1 rank 1 \"Thread 1\"\n"
             "    process #1 rank 1 \"Process 1\"\n"
             "      thread #2 rank %d \"Thread %d\"\n"
             "      thread #3 rank %d \"Thread %d\"\n",
             machine, node, rank2, name2, rank3, name3);
    return tree;
}

static void test_global_thread_ranks_line_up(void **state)
{
    (void)state;
    cube_thread *t[4];
    size_t n = 0;
    cube_t *a = cube_create();
    cube_metric *time = met(a, "time", "FLOAT", NULL);
    cube_cnode *main_ = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    cube_node *node = cube_def_node(a, "N", cube_def_mach(a, "M", ""));
    process_with(a, node, "Process 0", 0, t, &n, 2, 0, 1);
    process_with(a, node, "Process 1", 1, t, &n, 2, 2, 3);
    for (size_t i = 0; i < 4; i++)
        cube_set_sev(a, time, main_, t[i], (double)(i + 1));
    const char *A = save(a);

    cube_t *b = cube_create();
    time = met(b, "time", "FLOAT", NULL);
    main_ = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    simple_system(b, 2, 2, t);
    for (size_t i = 0; i < 4; i++)
        cube_set_sev(b, time, main_, t[i], 0.5 * (double)(i + 1));
    const char *B = save(b);

    cube_t *res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, A, B);
    assert_text(system_tree(res), two_by_two("M", "N", 0, 1, 2, 3));
    assert_text(values(res), "time main#0: 0.5 1 1.5 2\n");
    cube_free(res);

    res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, B, A);
    assert_text(system_tree(res), two_by_two("M", "N", 0, 1, 0, 1));
    assert_text(values(res), "time main#0: -0.5 -1 -1.5 -2\n");
    cube_free(res);

    /* the same with -C */
    res = combine(CUBE_OP_MEAN, FULL, COLLAPSE, 2, A, B);
    assert_int_equal(cube_num_threads(res), 4);
    assert_text(values(res), "time main#0: 0.75 1.5 2.25 3\n");
    /* A and B disagree on the ranks of process 1: they are the matching
     * ranks there */
    assert_text(system_tree(res), two_by_two("Virtual machine", "Virtual node", 0, 1, 0, 1));
    cube_free(res);

    /* A with itself: every input agrees on A's thread ranks, so the result
     * keeps them, under every system rule */
    static const cube_system_rule rules[] = {AGREE, FIRST};
    for (size_t r = 0; r < 2; r++) {
        res = combine(CUBE_OP_MEAN, FULL, rules[r], 2, A, A);
        assert_text(system_tree(res), two_by_two("M", "N", 2, 3, 2, 3));
        assert_text(values(res), "time main#0: 1 2 3 4\n");
        cube_free(res);
    }
    res = combine(CUBE_OP_DIFF, FULL, COLLAPSE, 2, A, A);
    assert_text(system_tree(res), two_by_two("Virtual machine", "Virtual node", 2, 3, 2, 3));
    cube_free(res);

    /* C numbers its threads within each process (0; 2): its thread of
     * process 1 is matched by its rank, 2, a third thread next to A's two,
     * which A numbers 2 and 3.  Kept as the inputs give them, process 1
     * would have two threads of rank 2: its threads take the ranks they
     * were matched by, 0, 1, 2.  Process 0, where A and C agree, keeps its
     * ranks. */
    cube_t *c = cube_create();
    time = met(c, "time", "FLOAT", NULL);
    main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    node = cube_def_node(c, "N", cube_def_mach(c, "M", ""));
    n = 0;
    process_with(c, node, "Process 0", 0, t, &n, 1, 0);
    process_with(c, node, "Process 1", 1, t, &n, 1, 2);
    cube_set_sev(c, time, main_, t[0], 10);
    cube_set_sev(c, time, main_, t[1], 20);
    const char *C = save(c);
    static const cube_system_rule all_rules[] = {AGREE, FIRST, COLLAPSE};
    for (size_t r = 0; r < 3; r++) {
        res = combine(CUBE_OP_MERGE, FULL, all_rules[r], 2, A, C);
        assert_int_equal(cube_num_threads(res), 5);
        const cube_process *p0 = cube_get_process(res, 0), *p1 = cube_get_process(res, 1);
        assert_int_equal(cube_process_num_threads(p0), 2);
        assert_int_equal(cube_process_num_threads(p1), 3);
        for (size_t i = 0; i < 2; i++)
            assert_int_equal(cube_thread_rank(cube_process_thread(p0, i)), (int64_t)i);
        for (size_t i = 0; i < 3; i++)
            assert_int_equal(cube_thread_rank(cube_process_thread(p1, i)), (int64_t)i);
        /* the row comes whole from C, the last input */
        assert_text(values(res), "time main#0: 10 0 0 0 20\n");
        cube_free(res);
    }
}

/* ====================================================================== */
/* attributes and mirrors                                                  */

static const char *attribute_experiment(const char *k1, const char *v1, const char *k2,
                                        const char *v2, const char *m1, const char *m2)
{
    cube_thread *t[1];
    cube_t *c = cube_create();
    cube_def_attr(c, k1, v1);
    cube_def_attr(c, k2, v2);
    cube_def_mirror(c, m1);
    cube_def_mirror(c, m2);
    cube_metric *time = met(c, "time", "FLOAT", NULL);
    cube_cnode *main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    simple_system(c, 1, 1, t);
    cube_set_sev(c, time, main_, t[0], 1);
    return save(c);
}

static void test_attributes_and_mirrors_united(void **state)
{
    (void)state;
    const char *A = attribute_experiment("creator", "A", "shared", "from A", "http://a/",
                                         "http://both/");
    const char *B = attribute_experiment("shared", "from B", "only_b", "B", "http://both/",
                                         "http://b/");
    char expected[2048];

    cube_t *res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, A, B);
    snprintf(expected, sizeof expected,
             "creator=A\nshared=from A\nonly_b=B\ncube_diff=%s - %s\n"
             "mirror http://a/\nmirror http://both/\nmirror http://b/\n",
             A, B);
    assert_text(attributes(res), expected);
    cube_free(res);

    res = combine(CUBE_OP_MERGE, FULL, AGREE, 2, B, A);
    snprintf(expected, sizeof expected,
             "shared=from B\nonly_b=B\ncreator=A\ncube_merge=merge(%s, %s)\n"
             "mirror http://both/\nmirror http://b/\nmirror http://a/\n",
             B, A);
    assert_text(attributes(res), expected);
    cube_free(res);

    res = combine(CUBE_OP_MEAN, FULL, AGREE, 3, A, B, A);
    snprintf(expected, sizeof expected,
             "creator=A\nshared=from A\nonly_b=B\ncube_mean=mean(%s, %s, %s)\n"
             "mirror http://a/\nmirror http://both/\nmirror http://b/\n",
             A, B, A);
    assert_text(attributes(res), expected);
    cube_free(res);
}

/* ====================================================================== */
/* diff                                                                    */

static void test_diff_subtracts_and_makes_unsigned_signed(void **state)
{
    (void)state;
    cube_thread *t[2];
    cube_t *a = cube_create();
    cube_metric *a_time = met(a, "time", "FLOAT", NULL);
    cube_metric *a_visits = met(a, "visits", "UINT64", NULL);
    cube_metric *a_count = met(a, "count", "INT64", NULL);
    cube_metric *a_n = met(a, "n", "INTEGER", NULL);
    cube_metric *a_only = met(a, "only_a", "FLOAT", NULL);
    cube_cnode *a_main = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    cube_cnode *a_foo = call(a, reg(a, "foo", "a.c"), "a.c", 3, a_main);
    simple_system(a, 1, 2, t);
    cube_set_sev(a, a_time, a_main, t[0], 5);
    cube_set_sev(a, a_time, a_main, t[1], 6);
    cube_set_sev(a, a_time, a_foo, t[0], 1.5);
    cube_set_sev(a, a_visits, a_main, t[0], 1);
    cube_set_sev(a, a_visits, a_main, t[1], 1);
    cube_set_sev(a, a_visits, a_foo, t[0], 10);
    cube_set_sev(a, a_visits, a_foo, t[1], 10);
    cube_set_sev(a, a_count, a_main, t[0], 3);
    cube_set_sev(a, a_count, a_main, t[1], 3);
    cube_set_sev(a, a_n, a_main, t[0], 7);
    cube_set_sev(a, a_n, a_main, t[1], 7);
    cube_set_sev(a, a_only, a_main, t[0], 2);
    cube_set_sev(a, a_only, a_main, t[1], 2);
    const char *A = save(a);

    cube_t *b = cube_create();
    cube_metric *b_time = met(b, "time", "FLOAT", NULL);
    cube_metric *b_visits = met(b, "visits", "UINT64", NULL);
    cube_metric *b_count = met(b, "count", "INT64", NULL);
    cube_metric *b_n = met(b, "n", "INTEGER", NULL);
    cube_metric *b_only = met(b, "only_b", "UINT64", NULL);
    cube_cnode *b_main = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    cube_cnode *b_bar = call(b, reg(b, "bar", "a.c"), "a.c", 4, b_main);
    simple_system(b, 1, 2, t);
    cube_set_sev(b, b_time, b_main, t[0], 2);
    cube_set_sev(b, b_time, b_main, t[1], 6.5);
    cube_set_sev(b, b_time, b_bar, t[0], 0.25);
    cube_set_sev(b, b_time, b_bar, t[1], 1);
    cube_set_sev(b, b_visits, b_main, t[0], 1);
    cube_set_sev(b, b_visits, b_main, t[1], 2);
    cube_set_sev(b, b_visits, b_bar, t[0], 5);
    cube_set_sev(b, b_visits, b_bar, t[1], 5);
    cube_set_sev(b, b_count, b_main, t[0], 4);
    cube_set_sev(b, b_n, b_main, t[0], 7);
    cube_set_sev(b, b_n, b_main, t[1], 8);
    cube_set_sev(b, b_only, b_main, t[0], 9);
    cube_set_sev(b, b_only, b_main, t[1], 9);
    const char *B = save(b);

    cube_t *res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, A, B);
    assert_text(metric_tree(res), "[0]time\n[1]visits\n[2]count\n[3]n\n[4]only_a\n[5]only_b\n");
    assert_text(cnode_tree(res), "[0]main\n  [1]foo@a.c:3\n  [2]bar@a.c:4\n");
    /* minuend - subtrahend, a missing value counting 0: what only the
     * subtrahend has appears negated */
    assert_text(values(res), "time main#0: 3 -0.5\n"
                             "time main/foo#1: 1.5 0\n"
                             "time main/bar#2: -0.25 -1\n"
                             "visits main#0: 0 -1\n"
                             "visits main/foo#1: 10 10\n"
                             "visits main/bar#2: -5 -5\n"
                             "count main#0: -1 3\n"
                             "n main#0: 0 -1\n"
                             "only_a main#0: 2 2\n"
                             "only_b main#0: -9 -9\n");
    assert_true(sev(res, 0, 2, 0) == -0.25);
    assert_true(sev(res, 1, 0, 1) == -1.0);
    assert_string_equal(cube_metric_dtype(cube_get_metric(res, 0)), "FLOAT");
    assert_string_equal(cube_metric_dtype(cube_get_metric(res, 1)), "INT64");
    assert_string_equal(cube_metric_dtype(cube_get_metric(res, 2)), "INT64");
    assert_string_equal(cube_metric_dtype(cube_get_metric(res, 3)), "INTEGER");
    assert_string_equal(cube_metric_dtype(cube_get_metric(res, 4)), "FLOAT");
    assert_string_equal(cube_metric_dtype(cube_get_metric(res, 5)), "INT64");
    cube_free(res);
}

/* ====================================================================== */
/* mean                                                                    */

static void test_mean_over_inputs_missing_counts_zero(void **state)
{
    (void)state;
    cube_thread *t[2];
    cube_t *a = cube_create();
    cube_metric *time = met(a, "time", "FLOAT", NULL);
    cube_metric *visits = met(a, "visits", "INTEGER", NULL);
    cube_metric *big = met(a, "big", "UINT64", NULL);
    cube_metric *s = met(a, "s", "INT64", NULL);
    cube_cnode *main_ = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    cube_cnode *foo = call(a, reg(a, "foo", "a.c"), "a.c", 2, main_);
    simple_system(a, 1, 2, t);
    cube_set_sev(a, time, main_, t[0], 1);
    cube_set_sev(a, time, main_, t[1], 3);
    cube_set_sev(a, time, foo, t[0], 3);
    cube_set_sev(a, time, foo, t[1], 0.5);
    cube_set_sev(a, visits, main_, t[0], 1);
    cube_set_sev(a, visits, main_, t[1], 1);
    cube_set_sev(a, big, main_, t[0], 4);
    cube_set_sev(a, big, main_, t[1], 4);
    cube_set_sev(a, s, main_, t[0], -3);
    const char *A = save(a);

    cube_t *b = cube_create();
    time = met(b, "time", "FLOAT", NULL);
    visits = met(b, "visits", "INTEGER", NULL);
    big = met(b, "big", "UINT64", NULL);
    met(b, "s", "INT64", NULL);
    main_ = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    foo = call(b, reg(b, "foo", "a.c"), "a.c", 2, main_);
    simple_system(b, 1, 2, t);
    cube_set_sev(b, time, main_, t[0], 2);
    cube_set_sev(b, time, main_, t[1], 3);
    cube_set_sev(b, time, foo, t[1], 1);
    cube_set_sev(b, visits, main_, t[0], 1);
    cube_set_sev(b, visits, main_, t[1], 2);
    cube_set_sev(b, big, main_, t[0], 4);
    cube_set_sev(b, big, main_, t[1], 2);
    const char *B = save(b);

    /* C: no foo, no s, no thread 1 */
    cube_t *c = cube_create();
    time = met(c, "time", "FLOAT", NULL);
    visits = met(c, "visits", "INTEGER", NULL);
    big = met(c, "big", "UINT64", NULL);
    main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    simple_system(c, 1, 1, t);
    cube_set_sev(c, time, main_, t[0], 6);
    cube_set_sev(c, visits, main_, t[0], 1);
    cube_set_sev(c, big, main_, t[0], 1);
    const char *C = save(c);

    cube_t *res = combine(CUBE_OP_MEAN, FULL, AGREE, 3, A, B, C);
    assert_int_equal(cube_num_threads(res), 2);
    assert_text(values(res), "time main#0: 3 2\n"
                             "time main/foo#1: 1 0.5\n"
                             "visits main#0: 1 1\n"
                             "big main#0: 3 2\n"
                             "s main#0: -1 0\n");
    assert_true(sev(res, 0, 1, 1) == 0.5);
    /* integer dtypes become FLOAT */
    for (size_t m = 0; m < 4; m++)
        assert_string_equal(cube_metric_dtype(cube_get_metric(res, m)), "FLOAT");
    cube_free(res);

    /* a value in one of two inputs: half of it */
    res = combine(CUBE_OP_MEAN, FULL, AGREE, 2, A, C);
    assert_text(values(res), "time main#0: 3.5 1.5\n"
                             "time main/foo#1: 1.5 0.25\n"
                             "visits main#0: 1 0.5\n"
                             "big main#0: 2.5 2\n"
                             "s main#0: -1.5 0\n");
    cube_free(res);
}

/* A rich experiment: attributes, a mirror, nested and VOID metrics, an
 * unreferenced region, call sites, two machines, a topology. */
static cube_t *rich_experiment(void)
{
    cube_t *c = cube_create();
    cube_def_attr(c, "creator", "test_algebra");
    cube_def_mirror(c, "http://example.org/");
    cube_metric *time = cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "@mirror@t",
                                     "all time", NULL);
    cube_metric *mpi = met(c, "mpi", "FLOAT", time);
    cube_metric *vd = cube_def_met(c, "Void", "void", "FLOAT", "sec", "VOID", "", "", NULL);
    met(c, "void_child", "FLOAT", vd);
    cube_metric *visits = cube_def_met(c, "Visits", "visits", "FLOAT", "occ", "", "", "", NULL);
    cube_region *r_main = cube_def_region(c, "main", 1, 100, "u", "d", "app.c");
    cube_region *r_foo = cube_def_region(c, "foo", 101, 200, "", "", "app.c");
    cube_def_region(c, "unused", 201, 300, "", "", "lib.c");
    cube_region *r_send = cube_def_region(c, "MPI_Send", -1, -1, "", "MPI", "");
    cube_cnode *main_ = cube_def_cnode(c, r_main, NULL);
    cube_cnode *foo = call(c, r_foo, "app.c", 42, main_);
    cube_cnode *send = call(c, r_send, "app.c", 150, foo);
    cube_cnode *send2 = call(c, r_send, "app.c", 60, main_);
    cube_thread *t[5];
    size_t n = 0;
    cube_machine *m1 = cube_def_mach(c, "cluster", "the cluster");
    cube_node *n1 = cube_def_node(c, "node1", m1);
    process_with(c, n1, "Process 0", 0, t, &n, 2, 0, 1);
    process_with(c, n1, "Process 1", 1, t, &n, 1, 0);
    process_with(c, cube_def_node(c, "node2", cube_def_mach(c, "other", "")), "Process 2", 2, t,
                 &n, 2, 0, 1);
    long dims[2] = {2, 3}, coord[2];
    int periods[2] = {0, 1};
    cube_cartesian *cart = cube_def_cart(c, 2, dims, periods);
    cube_cart_set_name(c, cart, "grid");
    for (size_t i = 0; i < 5; i++) {
        coord[0] = (long)(i % 2);
        coord[1] = (long)(i / 2);
        cube_def_coords(c, cart, t[i], coord);
    }
    static const double v[] = {0.1, 1.0 / 3, 1e-300, 1e300, -7.25, 123456789.123456789,
                               2.5e-320, 6.02214076e23, -0.0001, 42};
    cube_cnode *cn[4] = {main_, foo, send, send2};
    cube_metric *ms[3] = {time, mpi, visits};
    size_t k = 0;
    for (size_t mi = 0; mi < 3; mi++)
        for (size_t ci = 0; ci < 4; ci++)
            for (size_t ti = 0; ti < 5; ti++)
                if ((mi + ci + ti) % 3)
                    cube_set_sev(c, ms[mi], cn[ci], t[ti], v[k++ % 10] * (double)(mi + 1));
    assert_string_equal(cube_error(c), "");
    return c;
}

/* The mean of a file with itself is the file, bit for bit (plus the
 * attribute that records it). */
static void test_mean_of_a_file_with_itself_is_the_file(void **state)
{
    (void)state;
    cube_t *p = rich_experiment();
    char *path = temp_path(".cube");
    remember(path);
    assert_int_equal(cube_write_file(p, path, 0), 0);

    cube_t *res = combine(CUBE_OP_MEAN, FULL, AGREE, 2, path, path);
    char value[1100];
    snprintf(value, sizeof value, "mean(%s, %s)", path, path);
    cube_def_attr(p, "cube_mean", value);
    assert_same_model(p, res);
    assert_true(cube_num_rows(res) > 0);
    cube_free(res);

    /* the merge of a file with itself has its values; the difference is zero */
    char *expected = values(p);
    res = combine(CUBE_OP_MERGE, FULL, AGREE, 2, path, path);
    assert_text(values(res), expected);
    cube_free(res);
    res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, path, path);
    assert_text(values(res), "");
    assert_int_equal(cube_num_cnodes(res), 4);
    cube_free(res);
    free(expected);
    cube_free(p);
}

static const char *huge_experiment(double v0, double v1)
{
    cube_thread *t[2];
    cube_t *c = cube_create();
    cube_metric *time = met(c, "time", "FLOAT", NULL);
    cube_cnode *main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    cube_cnode *foo = call(c, reg(c, "foo", "a.c"), "a.c", 1, main_);
    simple_system(c, 1, 2, t);
    cube_set_sev(c, time, main_, t[0], v0);
    cube_set_sev(c, time, main_, t[1], v1);
    cube_set_sev(c, time, foo, t[0], 0.1);
    cube_set_sev(c, time, foo, t[1], -7.25);
    return save(c);
}

/* Values near DBL_MAX: their sum overflows, their mean does not. */
static void test_mean_of_huge_values(void **state)
{
    (void)state;
    const char *A = huge_experiment(1e308, -1.7e308);
    const char *B = huge_experiment(1.7e308, -1.5e308);

    cube_t *res = combine(CUBE_OP_MEAN, FULL, AGREE, 2, A, A);
    assert_text(values(res), "time main#0: 1e+308 -1.7e+308\n"
                             "time main/foo#1: 0.1 -7.25\n");
    cube_free(res);

    res = combine(CUBE_OP_MEAN, FULL, AGREE, 2, A, B);
    assert_true(sev(res, 0, 0, 0) == 1e308 * 0.5 + 1.7e308 * 0.5);
    assert_true(sev(res, 0, 0, 1) == -1.7e308 * 0.5 + -1.5e308 * 0.5);
    assert_true(sev(res, 0, 1, 0) == 0.1);
    assert_true(sev(res, 0, 1, 1) == -7.25);
    char *path = temp_path(".cube");
    remember(path);
    if (cube_write_file(res, path, 0) != 0)
        fail_msg("%s", cube_error(res));
    cube_free(res);
}

/* ====================================================================== */
/* merge                                                                   */

static void test_merge_takes_each_metric_from_last_input_that_has_it(void **state)
{
    (void)state;
    cube_thread *t[2];
    cube_t *a = cube_create();
    cube_metric *time = met(a, "time", "FLOAT", NULL);
    cube_metric *visits = met(a, "visits", "INTEGER", NULL);
    cube_cnode *main_ = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    cube_cnode *foo = call(a, reg(a, "foo", "a.c"), "a.c", 2, main_);
    simple_system(a, 1, 2, t);
    cube_set_sev(a, time, main_, t[0], 1);
    cube_set_sev(a, time, main_, t[1], 2);
    cube_set_sev(a, time, foo, t[0], 3);
    cube_set_sev(a, time, foo, t[1], 4);
    cube_set_sev(a, visits, main_, t[0], 1);
    cube_set_sev(a, visits, main_, t[1], 1);
    const char *A = save(a);

    /* B: time 10 and 0 on main, no value on foo; bytes */
    cube_t *b = cube_create();
    time = met(b, "time", "FLOAT", NULL);
    cube_metric *bytes = met(b, "bytes", "UINT64", NULL);
    main_ = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    call(b, reg(b, "foo", "a.c"), "a.c", 2, main_);
    simple_system(b, 1, 2, t);
    cube_set_sev(b, time, main_, t[0], 10);
    cube_set_sev(b, bytes, main_, t[0], 5);
    cube_set_sev(b, bytes, main_, t[1], 6);
    const char *B = save(b);

    cube_t *c = cube_create();
    bytes = met(c, "bytes", "UINT64", NULL);
    main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    simple_system(c, 1, 2, t);
    cube_set_sev(c, bytes, main_, t[0], 7);
    cube_set_sev(c, bytes, main_, t[1], 7);
    const char *C = save(c);

    /* A's time does not survive where B has 0 or no row */
    cube_t *res = combine(CUBE_OP_MERGE, FULL, AGREE, 2, A, B);
    assert_text(metric_tree(res), "[0]time\n[1]visits\n[2]bytes\n");
    assert_text(values(res), "time main#0: 10 0\n"
                             "visits main#0: 1 1\n"
                             "bytes main#0: 5 6\n");
    assert_true(sev(res, 0, 0, 1) == 0.0);
    assert_true(sev(res, 0, 1, 0) == 0.0);
    assert_string_equal(cube_metric_dtype(cube_get_metric(res, 1)), "INTEGER");
    assert_string_equal(cube_metric_dtype(cube_get_metric(res, 2)), "UINT64");
    cube_free(res);

    res = combine(CUBE_OP_MERGE, FULL, AGREE, 2, B, A);
    assert_text(metric_tree(res), "[0]time\n[1]bytes\n[2]visits\n");
    assert_text(values(res), "time main#0: 1 2\n"
                             "time main/foo#1: 3 4\n"
                             "bytes main#0: 5 6\n"
                             "visits main#0: 1 1\n");
    cube_free(res);

    /* time from B (the last that has it, although C comes later), bytes
     * from C, visits from A */
    res = combine(CUBE_OP_MERGE, FULL, AGREE, 3, A, B, C);
    assert_text(values(res), "time main#0: 10 0\n"
                             "visits main#0: 1 1\n"
                             "bytes main#0: 7 7\n");
    cube_free(res);
    /* D has time but not the call path foo, and one thread only: the row
     * time main comes whole from D (its thread 1 is 0, not A's 2), the row
     * time main/foo, which D lacks, whole from A */
    cube_t *d = cube_create();
    time = met(d, "time", "FLOAT", NULL);
    main_ = call(d, reg(d, "main", "a.c"), "", -1, NULL);
    call(d, reg(d, "bar", "a.c"), "a.c", 3, main_);
    simple_system(d, 1, 1, t);
    cube_set_sev(d, time, main_, t[0], 20);
    const char *D = save(d);
    res = combine(CUBE_OP_MERGE, FULL, AGREE, 2, A, D);
    assert_text(cnode_tree(res), "[0]main\n  [1]foo@a.c:2\n  [2]bar@a.c:3\n");
    assert_text(values(res), "time main#0: 20 0\n"
                             "time main/foo#1: 3 4\n"
                             "visits main#0: 1 1\n");
    cube_free(res);
    /* B has the call path foo (no row: its values there are 0), D does
     * not: foo's row comes from B, the last that has it */
    res = combine(CUBE_OP_MERGE, FULL, AGREE, 3, A, B, D);
    assert_text(values(res), "time main#0: 20 0\n"
                             "visits main#0: 1 1\n"
                             "bytes main#0: 5 6\n");
    cube_free(res);
    /* by name the other way round: A's rows win everywhere A has them */
    res = combine(CUBE_OP_MERGE, NAME, AGREE, 2, D, A);
    assert_text(values(res), "time main#0: 1 2\n"
                             "time main/foo#2: 3 4\n"
                             "visits main#0: 1 1\n");
    cube_free(res);
}

/* ====================================================================== */
/* VOID metrics                                                            */

static const char *void_experiment(int is_void, double time_value)
{
    cube_thread *t[1];
    cube_t *c = cube_create();
    cube_metric *time = met(c, "time", "FLOAT", NULL);
    cube_metric *v = cube_def_met(c, "V", "v", "FLOAT", "sec", is_void ? "VOID" : "", "", "",
                                  NULL);
    cube_metric *vc = met(c, "vc", "FLOAT", v);
    cube_cnode *main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    simple_system(c, 1, 1, t);
    cube_set_sev(c, time, main_, t[0], time_value);
    cube_set_sev(c, v, main_, t[0], 5);
    cube_set_sev(c, vc, main_, t[0], 6);
    return save(c);
}

static void test_void_metrics_carry_no_data(void **state)
{
    (void)state;
    const char *A = void_experiment(1, 3);
    const char *B = void_experiment(0, 1);

    /* VOID from A, the first input: B's values of v and vc are dropped */
    static const cube_operation ops[] = {CUBE_OP_MEAN, CUBE_OP_MERGE, CUBE_OP_DIFF};
    static const char *const expected[] = {"time main#0: 2\n", "time main#0: 1\n",
                                           "time main#0: 2\n"};
    for (size_t i = 0; i < 3; i++) {
        cube_t *res = combine(ops[i], FULL, AGREE, 2, A, B);
        assert_text(metric_tree(res), "[0]time\n[1]v\n  [2]vc\n");
        assert_string_equal(cube_metric_val(cube_get_metric(res, 1)), "VOID");
        assert_true(cube_metric_is_void(cube_get_metric(res, 1)));
        assert_true(cube_metric_is_void(cube_get_metric(res, 2)));
        assert_text(values(res), expected[i]);
        assert_int_equal(cube_num_rows(res), 1);
        cube_free(res);
    }

    /* not VOID in the first input: the values are there */
    cube_t *res = combine(CUBE_OP_MEAN, FULL, AGREE, 2, B, A);
    assert_false(cube_metric_is_void(cube_get_metric(res, 1)));
    assert_text(values(res), "time main#0: 2\n"
                             "v main#0: 2.5\n"
                             "vc main#0: 3\n");
    cube_free(res);
}

/* ====================================================================== */
/* cube_compare                                                            */

typedef struct {
    text log;
    size_t calls;
} reports;

static void collect(void *user, const char *what, const char *metric, const char *call_path,
                    long long process_rank, long long thread_rank, double a, double b)
{
    reports *r = user;
    char x[CUBE_DOUBLE_BUFSIZE], y[CUBE_DOUBLE_BUFSIZE];
    cube_format_double(a, x);
    cube_format_double(b, y);
    add(&r->log, "%s | %s | %s | %lld.%lld | %s | %s\n", what, metric, call_path, process_rank,
        thread_rank, x, y);
    r->calls++;
}

/* Compare with these options; returns the verdict, checks that the
 * differences were counted and reported as `expected` says. */
static int compare_with(const char *a, const char *b, const cube_compare_options *o,
                        const char *expected)
{
    reports r = {{0}, 0};
    size_t count = 12345;
    cube_status st = {CUBE_EMISMATCH, "junk"};
    int rc = cube_compare(a, b, FULL, AGREE, o, collect, &r, &count, &st);
    assert_int_equal(st.code, CUBE_OK);
    assert_string_equal(st.message, "");
    assert_int_equal(count, r.calls);
    assert_int_equal(rc, r.calls ? 1 : 0);
    assert_text(r.log.s, expected);
    return rc;
}

/* 2 processes x 2 threads; time on main and main/foo, visits on main.
 * `change` selects a variant. */
enum {
    SAME,
    CHANGED_VALUE,
    EXTRA_CALL_PATH,
    EXTRA_METRIC,
    EXTRA_THREAD,
    TINY_CHANGE,
    HALF_CHANGE,
    VISITS_AND_BYTES
};

static const char *compare_experiment(int change)
{
    cube_t *c = cube_create();
    cube_metric *time = met(c, "time", "FLOAT", NULL);
    cube_metric *visits = met(c, "visits", "INTEGER", NULL);
    cube_metric *bytes =
        change == EXTRA_METRIC || change == VISITS_AND_BYTES ? met(c, "bytes", "FLOAT", NULL)
                                                             : NULL;
    cube_cnode *main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    cube_cnode *foo = call(c, reg(c, "foo", "a.c"), "a.c", 2, main_);
    cube_cnode *bar =
        change == EXTRA_CALL_PATH ? call(c, reg(c, "bar", "a.c"), "a.c", 3, main_) : NULL;
    cube_thread *t[5];
    size_t n = 0;
    cube_node *node = cube_def_node(c, "N", cube_def_mach(c, "M", ""));
    process_with(c, node, "Process 0", 0, t, &n, 2, 0, 1);
    if (change == EXTRA_THREAD)
        process_with(c, node, "Process 1", 1, t, &n, 3, 0, 1, 2);
    else
        process_with(c, node, "Process 1", 1, t, &n, 2, 0, 1);
    for (size_t i = 0; i < 4; i++) {
        cube_set_sev(c, time, main_, t[i], (double)(i + 1));
        cube_set_sev(c, time, foo, t[i], (double)i + 0.5);
        cube_set_sev(c, visits, main_, t[i], 1);
    }
    if (change == CHANGED_VALUE)
        cube_set_sev(c, time, foo, t[2], 3);
    if (bar)
        cube_set_sev(c, time, bar, t[3], 7);
    if (change == EXTRA_METRIC)
        cube_set_sev(c, bytes, main_, t[0], 5);
    if (change == EXTRA_THREAD)
        cube_set_sev(c, time, main_, t[4], 9);
    if (change == TINY_CHANGE)
        cube_set_sev(c, time, main_, t[0], 1 + 1e-10);
    if (change == HALF_CHANGE)
        cube_set_sev(c, time, main_, t[1], 2.5);
    if (change == VISITS_AND_BYTES) {
        cube_set_sev(c, visits, main_, t[3], 2);
        cube_set_sev(c, bytes, main_, t[3], 2);
    }
    return save(c);
}

static void test_compare_equal_and_one_changed_value(void **state)
{
    (void)state;
    const char *A = compare_experiment(SAME);
    const char *A2 = compare_experiment(SAME);
    const char *B = compare_experiment(CHANGED_VALUE);

    assert_int_equal(compare_with(A, A2, &default_options, NULL), 0);
    assert_int_equal(compare_with(A, A, &default_options, NULL), 0);

    /* time on main/foo, process 1 thread 0: 2.5 in A, 3 in B */
    assert_int_equal(compare_with(A, B, &default_options,
                                  "value | time | main/foo | 1.0 | 2.5 | 3\n"),
                     1);
    /* symmetric */
    assert_int_equal(compare_with(B, A, &default_options,
                                  "value | time | main/foo | 1.0 | 3 | 2.5\n"),
                     1);

    /* every difference is counted, at most max_reported reported */
    const char *C = compare_experiment(EXTRA_CALL_PATH);
    cube_compare_options one = default_options;
    one.max_reported = 1;
    reports r = {{0}, 0};
    size_t count = 0;
    cube_status st;
    assert_int_equal(cube_compare(A, C, FULL, AGREE, &one, collect, &r, &count, &st), 1);
    assert_int_equal(st.code, CUBE_OK);
    assert_int_equal(count, 2);
    assert_text(r.log.s, "call path only in B |  | main/bar | -1.-1 | 0 | 0\n");
    /* without a report function, only the count */
    count = 0;
    assert_int_equal(cube_compare(A, C, FULL, AGREE, &default_options, NULL, NULL, &count, &st),
                     1);
    assert_int_equal(count, 2);
}

static void test_compare_dimension_only_in_one(void **state)
{
    (void)state;
    const char *A = compare_experiment(SAME);
    const char *path = compare_experiment(EXTRA_CALL_PATH);
    const char *metric = compare_experiment(EXTRA_METRIC);
    const char *thread = compare_experiment(EXTRA_THREAD);

    assert_int_equal(compare_with(A, path, &default_options,
                                  "call path only in B |  | main/bar | -1.-1 | 0 | 0\n"
                                  "value | time | main/bar | 1.1 | 0 | 7\n"),
                     1);
    assert_int_equal(compare_with(path, A, &default_options,
                                  "call path only in A |  | main/bar | -1.-1 | 0 | 0\n"
                                  "value | time | main/bar | 1.1 | 7 | 0\n"),
                     1);
    assert_int_equal(compare_with(metric, A, &default_options,
                                  "metric only in A | bytes |  | -1.-1 | 0 | 0\n"
                                  "value | bytes | main | 0.0 | 5 | 0\n"),
                     1);
    assert_int_equal(compare_with(A, metric, &default_options,
                                  "metric only in B | bytes |  | -1.-1 | 0 | 0\n"
                                  "value | bytes | main | 0.0 | 0 | 5\n"),
                     1);
    assert_int_equal(compare_with(A, thread, &default_options,
                                  "thread only in B |  |  | 1.2 | 0 | 0\n"
                                  "value | time | main | 1.2 | 0 | 9\n"),
                     1);
    assert_int_equal(compare_with(thread, A, &default_options,
                                  "thread only in A |  |  | 1.2 | 0 | 0\n"
                                  "value | time | main | 1.2 | 9 | 0\n"),
                     1);

    /* a call path without values that only one has is still a difference
     * (the original cube3_cmp said "equal" one way and "not equal" the
     * other) */
    cube_thread *t[4];
    cube_t *c = cube_create();
    cube_metric *time = met(c, "time", "FLOAT", NULL);
    cube_metric *visits = met(c, "visits", "INTEGER", NULL);
    cube_cnode *main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    cube_cnode *foo = call(c, reg(c, "foo", "a.c"), "a.c", 2, main_);
    call(c, reg(c, "empty", "a.c"), "a.c", 9, foo);
    simple_system(c, 2, 2, t);
    for (size_t i = 0; i < 4; i++) {
        cube_set_sev(c, time, main_, t[i], (double)(i + 1));
        cube_set_sev(c, time, foo, t[i], (double)i + 0.5);
        cube_set_sev(c, visits, main_, t[i], 1);
    }
    const char *superset = save(c);
    assert_int_equal(compare_with(superset, A, &default_options,
                                  "call path only in A |  | main/foo/empty | -1.-1 | 0 | 0\n"),
                     1);
    assert_int_equal(compare_with(A, superset, &default_options,
                                  "call path only in B |  | main/foo/empty | -1.-1 | 0 | 0\n"),
                     1);
}

static void test_compare_tolerances(void **state)
{
    (void)state;
    const char *A = compare_experiment(SAME);
    const char *tiny = compare_experiment(TINY_CHANGE);
    const char *half = compare_experiment(HALF_CHANGE);

    /* a relative change of 1e-10 */
    cube_compare_options o = options(1e-9, 0, 100);
    assert_int_equal(compare_with(A, tiny, &o, NULL), 0);
    assert_int_equal(compare_with(tiny, A, &o, NULL), 0);
    assert_int_equal(compare_with(A, tiny, &default_options,
                                  "value | time | main | 0.0 | 1 | 1.0000000001\n"),
                     1);
    assert_int_equal(compare_with(tiny, A, &default_options,
                                  "value | time | main | 0.0 | 1.0000000001 | 1\n"),
                     1);

    /* 2 against 2.5: |a-b| = 0.5 */
    o = options(0, 0.5, 100);
    assert_int_equal(compare_with(A, half, &o, NULL), 0);
    o.abs_tol = 0.25;
    assert_int_equal(compare_with(half, A, &o, "value | time | main | 0.1 | 2.5 | 2\n"), 1);
    /* relative to the larger value: 0.5 <= 0.25 * 2.5, but not <= 0.1 * 2.5 */
    o = options(0.25, 0, 100);
    assert_int_equal(compare_with(A, half, &o, NULL), 0);
    assert_int_equal(compare_with(half, A, &o, NULL), 0);
    o.rel_tol = 0.1;
    assert_int_equal(compare_with(A, half, &o, "value | time | main | 0.1 | 2 | 2.5\n"), 1);
    /* either tolerance is enough */
    o.abs_tol = 0.5;
    assert_int_equal(compare_with(A, half, &o, NULL), 0);
}

static void collect_item(void *user, const char *metric, const char *call_path,
                         const char *item, double a, double b)
{
    reports *r = user;
    char x[CUBE_DOUBLE_BUFSIZE], y[CUBE_DOUBLE_BUFSIZE];
    cube_format_double(a, x);
    cube_format_double(b, y);
    add(&r->log, "item | %s | %s | %s | %s | %s\n", metric, call_path, item, x, y);
    r->calls++;
}

/* Values combined per process, node, machine or over all threads, and
 * the differences of small call paths ignored. */
static void test_compare_by_level_and_ignore_below(void **state)
{
    (void)state;
    const char *A = compare_experiment(SAME);
    const char *B = compare_experiment(CHANGED_VALUE);
    /* time on main/foo: threads 0.5, 1.5 | 2.5, 3.5 in A; 3 for 2.5 in B */
    cube_compare_options o = default_options;
    o.report_item = collect_item;
    o.by = CUBE_BY_PROCESS;
    assert_int_equal(compare_with(A, B, &o, "item | time | main/foo | 1 | 6 | 6.5\n"), 1);
    o.by = CUBE_BY_NODE;
    assert_int_equal(compare_with(A, B, &o, "item | time | main/foo | N | 8 | 8.5\n"), 1);
    o.by = CUBE_BY_MACHINE;
    assert_int_equal(compare_with(B, A, &o, "item | time | main/foo | M | 8.5 | 8\n"), 1);
    o.by = CUBE_BY_ALL;
    assert_int_equal(compare_with(A, B, &o, "item | time | main/foo |  | 8 | 8.5\n"), 1);
    /* without report_item, report gets them with the process rank */
    o.report_item = NULL;
    o.by = CUBE_BY_PROCESS;
    assert_int_equal(compare_with(A, B, &o, "value | time | main/foo | 1.-1 | 6 | 6.5\n"), 1);
    const char *half = compare_experiment(HALF_CHANGE);
    assert_int_equal(compare_with(A, half, &o, "value | time | main | 0.-1 | 3 | 3.5\n"), 1);

    /* time's total is 18 in A (18.5 in B); main/foo is 8 (8.5): 44 % (46 %) */
    o = default_options;
    o.ignore_below = 47;
    assert_int_equal(compare_with(A, B, &o, NULL), 0);
    assert_int_equal(compare_with(B, A, &o, NULL), 0);
    o.ignore_below = 45; /* below in A, not in B */
    assert_int_equal(compare_with(A, B, &o, "value | time | main/foo | 1.0 | 2.5 | 3\n"), 1);
    o.by = CUBE_BY_ALL;
    o.ignore_below = 47;
    assert_int_equal(compare_with(A, B, &o, NULL), 0);

    /* the options of the first version end before `by`: its defaults */
    o = default_options;
    o.size = offsetof(cube_compare_options, by);
    o.by = (cube_system_level)99;
    o.ignore_below = 99;
    assert_int_equal(compare_with(A, B, &o, "value | time | main/foo | 1.0 | 2.5 | 3\n"), 1);
    /* bad values of the new fields, and a size of no version */
    cube_status st;
    o = default_options;
    o.by = (cube_system_level)5;
    assert_int_equal(cube_compare(A, B, FULL, AGREE, &o, NULL, NULL, NULL, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    o = default_options;
    o.ignore_below = -1;
    assert_int_equal(cube_compare(A, B, FULL, AGREE, &o, NULL, NULL, NULL, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    o = default_options;
    o.size = sizeof o + 8;
    assert_int_equal(cube_compare(A, B, FULL, AGREE, &o, NULL, NULL, NULL, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
}

static void test_compare_metric_filter(void **state)
{
    (void)state;
    const char *A = compare_experiment(SAME);
    const char *B = compare_experiment(VISITS_AND_BYTES);

    const char *const time_only[] = {"time", NULL};
    const char *const visits_only[] = {"visits", NULL};
    const char *const both[] = {"visits", "bytes", NULL};
    const char *const unknown[] = {"time", "nope", NULL};
    cube_compare_options o = default_options;

    o.metrics = time_only;
    assert_int_equal(compare_with(A, B, &o, NULL), 0);
    assert_int_equal(compare_with(B, A, &o, NULL), 0);
    o.metrics = visits_only;
    assert_int_equal(compare_with(A, B, &o, "value | visits | main | 1.1 | 1 | 2\n"), 1);
    o.metrics = both;
    assert_int_equal(compare_with(B, A, &o,
                                  "metric only in A | bytes |  | -1.-1 | 0 | 0\n"
                                  "value | visits | main | 1.1 | 2 | 1\n"
                                  "value | bytes | main | 1.1 | 2 | 0\n"),
                     1);

    o.metrics = unknown;
    size_t count = 7;
    char expected[1024];
    cube_status st;
    assert_int_equal(cube_compare(A, B, FULL, AGREE, &o, collect, NULL, &count, &st), -1);
    snprintf(expected, sizeof expected, "no metric with the unique name 'nope' in %s or %s", A,
             B);
    assert_string_equal(st.message, expected);
    /* an unknown name is an invalid argument */
    assert_int_equal(st.code, CUBE_EINVAL);
}

static void test_compare_void_in_one_input_is_symmetric(void **state)
{
    (void)state;
    const char *A = void_experiment(1, 3);
    const char *B = void_experiment(0, 3);
    const cube_compare_options o = options(2 * DBL_EPSILON, DBL_MIN, 100);
    reports r = {{0}, 0};
    size_t count = 0;
    cube_status st;

    assert_int_equal(cube_compare(A, A, FULL, AGREE, &o, collect, &r, &count, &st), 0);
    /* B has values of v where A (VOID) has none: a difference both ways */
    assert_int_equal(cube_compare(A, B, FULL, AGREE, &o, collect, &r, &count, &st), 1);
    assert_int_equal(count, 2);
    assert_int_equal(cube_compare(B, A, FULL, AGREE, &o, collect, &r, &count, &st), 1);
    assert_int_equal(count, 2);
    assert_text(r.log.s, "value | v | main | 0.0 | 0 | 5\n"
                         "value | vc | main | 0.0 | 0 | 6\n"
                         "value | v | main | 0.0 | 5 | 0\n"
                         "value | vc | main | 0.0 | 6 | 0\n");
}

/* ====================================================================== */
/* a file that repeats a (metric, call path) row                           */

#define REPEAT_HEAD                                                                            \
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"                                             \
    "<cube version=\"3.0\">\n"                                                                 \
    "  <doc>\n    <mirrors>\n    </mirrors>\n  </doc>\n"                                       \
    "  <metrics>\n"                                                                            \
    "    <metric id=\"0\">\n      <disp_name>time</disp_name>\n"                               \
    "      <uniq_name>time</uniq_name>\n      <dtype>FLOAT</dtype>\n"                          \
    "      <uom>sec</uom>\n      <url></url>\n      <descr></descr>\n    </metric>\n"          \
    "    <metric id=\"1\">\n      <disp_name>visits</disp_name>\n"                             \
    "      <uniq_name>visits</uniq_name>\n      <dtype>INTEGER</dtype>\n"                      \
    "      <uom>sec</uom>\n      <url></url>\n      <descr></descr>\n    </metric>\n"          \
    "  </metrics>\n"                                                                           \
    "  <program>\n"                                                                            \
    "    <region id=\"0\" mod=\"a.c\" begin=\"-1\" end=\"-1\">\n"                              \
    "      <name>main</name>\n      <url></url>\n      <descr></descr>\n    </region>\n"       \
    "    <region id=\"1\" mod=\"a.c\" begin=\"-1\" end=\"-1\">\n"                              \
    "      <name>foo</name>\n      <url></url>\n      <descr></descr>\n    </region>\n"        \
    "    <cnode id=\"0\" calleeId=\"0\">\n"                                                    \
    "      <cnode id=\"1\" line=\"2\" mod=\"a.c\" calleeId=\"1\">\n"                           \
    "      </cnode>\n    </cnode>\n"                                                           \
    "  </program>\n"                                                                           \
    "  <system>\n    <machine Id=\"0\">\n      <name>M</name>\n"                               \
    "      <node Id=\"0\">\n        <name>N</name>\n"                                          \
    "        <process Id=\"0\">\n          <name>Process 0</name>\n          <rank>0</rank>\n" \
    "          <thread Id=\"0\">\n            <name>Thread 0</name>\n"                         \
    "            <rank>0</rank>\n          </thread>\n"                                        \
    "          <thread Id=\"1\">\n            <name>Thread 1</name>\n"                         \
    "            <rank>1</rank>\n          </thread>\n"                                        \
    "        </process>\n      </node>\n    </machine>\n"                                      \
    "    <topologies>\n    </topologies>\n"                                                    \
    "  </system>\n"

/* time: main 1 2, foo 3 4, then a second matrix gives foo's first value
 * again (30): foo is 30 4 as cube_read reads it. */
static const char repeated_matrix[] =
    REPEAT_HEAD "  <severity>\n"
                "    <matrix metricId=\"0\">\n"
                "      <row cnodeId=\"0\">\n1\n2\n      </row>\n"
                "      <row cnodeId=\"1\">\n3\n4\n      </row>\n"
                "    </matrix>\n"
                "    <matrix metricId=\"1\">\n"
                "      <row cnodeId=\"0\">\n1\n1\n      </row>\n"
                "    </matrix>\n"
                "    <matrix metricId=\"0\">\n"
                "      <row cnodeId=\"1\">\n30\n      </row>\n"
                "    </matrix>\n"
                "  </severity>\n"
                "</cube>\n";

/* time on main given twice inside one matrix: 5 2 */
static const char repeated_row[] =
    REPEAT_HEAD "  <severity>\n"
                "    <matrix metricId=\"0\">\n"
                "      <row cnodeId=\"0\">\n1\n2\n      </row>\n"
                "      <row cnodeId=\"1\">\n3\n4\n      </row>\n"
                "      <row cnodeId=\"0\">\n5\n      </row>\n"
                "    </matrix>\n"
                "  </severity>\n"
                "</cube>\n";

static void test_repeated_rows_combine_as_cube_read_reads_them(void **state)
{
    (void)state;
    const char *R = save_text(repeated_matrix);
    const char *R2 = save_text(repeated_row);

    /* what cube_read makes of them: the later values win where given */
    cube_t *whole = read_ok(R);
    assert_text(values(whole), "time main#0: 1 2\n"
                               "time main/foo#1: 30 4\n"
                               "visits main#0: 1 1\n");
    char *whole_path = temp_path(".cube");
    remember(whole_path);
    assert_int_equal(cube_write_file(whole, whole_path, 0), 0);
    cube_free(whole);
    whole = read_ok(R2);
    assert_text(values(whole), "time main#0: 5 2\n"
                               "time main/foo#1: 3 4\n");
    cube_free(whole);

    /* an ordinary file: time 1 1 on main and foo, visits 1 1 */
    cube_thread *t[2];
    cube_t *z = cube_create();
    cube_metric *time = met(z, "time", "FLOAT", NULL);
    cube_metric *visits = met(z, "visits", "INTEGER", NULL);
    cube_cnode *main_ = call(z, reg(z, "main", "a.c"), "", -1, NULL);
    cube_cnode *foo = call(z, reg(z, "foo", "a.c"), "a.c", 2, main_);
    simple_system(z, 1, 2, t);
    for (size_t i = 0; i < 2; i++) {
        cube_set_sev(z, time, main_, t[i], 1);
        cube_set_sev(z, time, foo, t[i], 1);
        cube_set_sev(z, visits, main_, t[i], 1);
    }
    const char *Z = save(z);

    cube_t *res = combine(CUBE_OP_MEAN, FULL, AGREE, 2, R, R);
    assert_text(values(res), "time main#0: 1 2\n"
                             "time main/foo#1: 30 4\n"
                             "visits main#0: 1 1\n");
    cube_free(res);
    /* the repeating file second: the first is read again */
    res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, Z, R);
    assert_text(values(res), "time main#0: 0 -1\n"
                             "time main/foo#1: -29 -3\n");
    cube_free(res);
    res = combine(CUBE_OP_DIFF, FULL, AGREE, 2, R2, Z);
    assert_text(values(res), "time main#0: 4 1\n"
                             "time main/foo#1: 2 3\n"
                             "visits main#0: -1 -1\n");
    cube_free(res);
    res = combine(CUBE_OP_MERGE, FULL, AGREE, 3, R2, Z, R);
    assert_text(values(res), "time main#0: 1 2\n"
                             "time main/foo#1: 30 4\n"
                             "visits main#0: 1 1\n");
    cube_free(res);

    /* equal to the file cube_read made of it, either way round */
    assert_int_equal(compare_with(R, whole_path, &default_options, NULL), 0);
    assert_int_equal(compare_with(whole_path, R, &default_options, NULL), 0);
    assert_int_equal(compare_with(R, Z, &default_options,
                                  "value | time | main | 0.1 | 2 | 1\n"
                                  "value | time | main/foo | 0.0 | 30 | 1\n"
                                  "value | time | main/foo | 0.1 | 4 | 1\n"),
                     1);
}

/* ====================================================================== */
/* errors                                                                  */

static void test_errors(void **state)
{
    (void)state;
    cube_thread *t[1];
    cube_t *c = cube_create();
    cube_metric *time = met(c, "time", "FLOAT", NULL);
    cube_cnode *main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    simple_system(c, 1, 1, t);
    cube_set_sev(c, time, main_, t[0], 1);
    const char *A = save(c);
    const char *missing = nowhere();
    char expected[1200];

    snprintf(expected, sizeof expected, "%s: cannot open: No such file or directory", missing);
    combine_fails(CUBE_EIO, CUBE_OP_DIFF, FULL, AGREE, 2, A, missing);
    assert_string_equal(status.message, expected);
    combine_fails(CUBE_EIO, CUBE_OP_MEAN, FULL, AGREE, 2, missing, A);
    assert_string_equal(status.message, expected);

    cube_compare_options o = default_options;
    size_t count = 0;
    cube_status st;
    assert_int_equal(cube_compare(A, missing, FULL, AGREE, &o, NULL, NULL, &count, &st), -1);
    assert_int_equal(st.code, CUBE_EIO);
    assert_string_equal(st.message, expected);

    combine_fails(CUBE_EINVAL, CUBE_OP_DIFF, FULL, AGREE, 3, A, A, A);
    assert_string_equal(status.message, "a difference needs exactly two experiments");
    combine_fails(CUBE_EINVAL, CUBE_OP_DIFF, FULL, AGREE, 1, A);
    assert_string_equal(status.message, "a difference needs exactly two experiments");
    combine_fails(CUBE_EINVAL, CUBE_OP_MEAN, FULL, AGREE, 0);
    assert_string_equal(status.message, "no experiment given");

    /* a malformed input: the reader's message, which names the file */
    const char *bad = save_text("<cube version=\"3.0\">\n<metrics>\n");
    combine_fails(CUBE_EFORMAT, CUBE_OP_MERGE, FULL, AGREE, 2, A, bad);
    assert_true(strncmp(status.message, bad, strlen(bad)) == 0);
    /* and a message longer than the status holds is cut short, never
     * overrun: a path of about 1300 bytes in folders that do not exist */
    char long_path[1400];
    size_t used = (size_t)snprintf(long_path, sizeof long_path, "/nonexistent");
    while (used + 120 < sizeof long_path)
        used += (size_t)snprintf(long_path + used, sizeof long_path - used, "/%0100d", 0);
    snprintf(long_path + used, sizeof long_path - used, "/x.cube");
    const char *paths[2] = {A, long_path};
    cube_status cut = {CUBE_OK, ""};
    memset(cut.message, 'x', sizeof cut.message);
    assert_null(cube_combine(CUBE_OP_DIFF, paths, 2, FULL, AGREE, &cut));
    assert_int_equal(cut.code, CUBE_EIO);
    assert_int_equal(strlen(cut.message), CUBE_MESSAGE_SIZE - 1);
    assert_memory_equal(cut.message, long_path, CUBE_MESSAGE_SIZE - 1);
}

/* ====================================================================== */
/* the union API and cube_call_path                                        */

static void test_union_api(void **state)
{
    (void)state;
    cube_thread *ta[2], *tb[2];
    cube_t *a = cube_create();
    met(a, "time", "FLOAT", NULL);
    cube_cnode *a_main = call(a, reg(a, "main", "a.c"), "", -1, NULL);
    call(a, reg(a, "foo", "a.c"), "a.c", 1, a_main);
    simple_system(a, 1, 2, ta);

    cube_t *b = cube_create();
    met(b, "visits", "INTEGER", NULL);
    met(b, "time", "FLOAT", NULL);
    cube_cnode *b_main = call(b, reg(b, "main", "a.c"), "", -1, NULL);
    call(b, reg(b, "bar", "a.c"), "a.c", 1, b_main);
    simple_system(b, 2, 1, tb);

    cube_union *u = cube_union_create(FULL, AGREE);
    assert_non_null(u);
    assert_int_equal(cube_union_add(u, a, "a"), 0);
    assert_int_equal(cube_union_add(u, b, "b"), 0);
    assert_int_equal(cube_union_finish(u), 0);
    assert_int_equal(cube_union_error_code(u), CUBE_OK);
    assert_string_equal(cube_union_error(u), "");
    cube_t *res = cube_union_result(u);
    assert_text(metric_tree(res), "[0]time\n[1]visits\n");
    assert_text(cnode_tree(res), "[0]main\n  [1]foo@a.c:1\n  [2]bar@a.c:1\n");
    assert_int_equal(cube_num_threads(res), 3);
    assert_int_equal(cube_num_rows(res), 0);

    const size_t *mm = cube_union_metric_map(u, 1), *cm = cube_union_cnode_map(u, 1);
    assert_int_equal(mm[0], 1);
    assert_int_equal(mm[1], 0);
    assert_int_equal(cm[0], 0);
    assert_int_equal(cm[1], 2);
    const size_t *tm0 = cube_union_thread_map(u, 0), *tm1 = cube_union_thread_map(u, 1);
    assert_int_equal(tm0[0], 0);
    assert_int_equal(tm0[1], 1);
    assert_int_equal(tm1[0], 0); /* (0,0) */
    assert_int_equal(tm1[1], 2); /* (1,0) */
    assert_null(cube_union_metric_map(u, 2));

    assert_true(cube_union_input_has_metric(u, 0, 0));
    assert_false(cube_union_input_has_metric(u, 0, 1));
    assert_true(cube_union_input_has_metric(u, 1, 1));
    assert_true(cube_union_input_has_cnode(u, 0, 1));
    assert_false(cube_union_input_has_cnode(u, 1, 1));
    assert_true(cube_union_input_has_cnode(u, 1, 2));
    assert_false(cube_union_input_has_thread(u, 0, 2));
    assert_true(cube_union_input_has_thread(u, 1, 2));
    assert_false(cube_union_input_has_thread(u, 1, 1));
    assert_false(cube_union_input_has_thread(u, 2, 0));
    assert_false(cube_union_input_has_thread(u, 0, 3));

    assert_int_equal(cube_union_add(u, a, "again"), -1);
    assert_int_equal(cube_union_error_code(u), CUBE_ESTATE);
    assert_string_equal(cube_union_error(u), "cube_union_add after cube_union_finish");

    cube_t *taken = cube_union_take_result(u);
    assert_ptr_equal(taken, res);
    assert_null(cube_union_result(u));
    assert_null(cube_union_take_result(u));
    cube_union_free(u);
    cube_free(taken);
    cube_free(a);
    cube_free(b);

    u = cube_union_create(NAME, COLLAPSE);
    assert_int_equal(cube_union_finish(u), -1);
    assert_int_equal(cube_union_error_code(u), CUBE_ESTATE);
    assert_string_equal(cube_union_error(u), "no experiment to line up");
    cube_union_free(u);
}

static void test_call_path_names(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    cube_cnode *main_ = call(c, reg(c, "main", "a.c"), "", -1, NULL);
    cube_cnode *foo = call(c, reg(c, "foo", "a.c"), "a.c", 1, main_);
    cube_cnode *bar = call(c, reg(c, "bar", "b.c"), "a.c", 2, foo);
    char *p = cube_call_path(main_);
    assert_string_equal(p, "main");
    free(p);
    p = cube_call_path(foo);
    assert_string_equal(p, "main/foo");
    free(p);
    p = cube_call_path(bar);
    assert_string_equal(p, "main/foo/bar");
    free(p);
    cube_free(c);
}

/* ====================================================================== */
/* an experiment with itself                                               */

/*
 * Two sibling call paths that --match=name makes one, holding 1e17 and
 * 0.1277, and three that hold 0.1, 0.2 and 0.3 (or 0.7, 0.1 and 0.2): each
 * input's contributions to a cell are summed (compensated) before they
 * meet the other input's, so the difference with itself is exactly 0, and
 * the mean with itself is the compensated sum of the siblings.
 */
static void test_siblings_alike_of_very_different_magnitude(void **state)
{
    (void)state;
    cube_thread *t[2];
    cube_t *a = cube_create();
    cube_metric *time = met(a, "time", "FLOAT", NULL);
    cube_region *r_solve = reg(a, "solve", "app.c");
    cube_region *r_step = reg(a, "step", "app.c"), *r_step_lib = reg(a, "step", "lib.c");
    cube_cnode *main_ = call(a, reg(a, "main", "app.c"), "", -1, NULL);
    cube_cnode *s1 = call(a, r_solve, "app.c", 10, main_);
    cube_cnode *s2 = call(a, r_solve, "app.c", 20, main_);
    cube_cnode *p1 = call(a, r_step, "app.c", 30, main_);
    cube_cnode *p2 = call(a, r_step, "app.c", 40, main_);
    cube_cnode *p3 = call(a, r_step_lib, "app.c", 50, main_);
    simple_system(a, 1, 2, t);
    cube_set_sev(a, time, s1, t[0], 1e17);
    cube_set_sev(a, time, s1, t[1], 3);
    cube_set_sev(a, time, s2, t[0], 0.1277);
    cube_set_sev(a, time, s2, t[1], 4);
    cube_set_sev(a, time, p1, t[0], 0.1);
    cube_set_sev(a, time, p1, t[1], 0.7);
    cube_set_sev(a, time, p2, t[0], 0.2);
    cube_set_sev(a, time, p2, t[1], 0.1);
    cube_set_sev(a, time, p3, t[0], 0.3);
    cube_set_sev(a, time, p3, t[1], 0.2);
    const char *A = save(a);

    static const cube_system_rule rules[] = {AGREE, FIRST, COLLAPSE};
    for (size_t r = 0; r < 3; r++) {
        cube_t *res = combine(CUBE_OP_DIFF, NAME, rules[r], 2, A, A);
        assert_int_equal(cube_num_cnodes(res), 3);
        assert_text(values(res), "");
        cube_free(res);

        res = combine(CUBE_OP_MEAN, NAME, rules[r], 2, A, A);
        assert_text(values(res), "time main/solve#1: 1e+17 7\n"
                                 "time main/step#2: 0.6 1\n");
        cube_free(res);

        res = combine(CUBE_OP_MERGE, NAME, rules[r], 2, A, A);
        assert_text(values(res), "time main/solve#1: 1e+17 7\n"
                                 "time main/step#2: 0.6 1\n");
        cube_free(res);

        reports rep = {{0}, 0};
        size_t count = 1;
        cube_status st;
        assert_int_equal(cube_compare(A, A, NAME, rules[r], &default_options, collect, &rep,
                                      &count, &st),
                         0);
        assert_int_equal(st.code, CUBE_OK);
        assert_int_equal(count, 0);
        free(rep.log.s);
    }
}

/* Every row of a result, every value exactly 0. */
static void assert_all_zero(const cube_t *res, const char *what)
{
    for (size_t i = 0; i < cube_num_rows(res); i++) {
        const double *row = cube_row_at(res, i, NULL, NULL);
        for (size_t t = 0; t < cube_num_threads(res); t++)
            if (row[t] != 0.0)
                fail_msg("%s: row %zu, thread %zu holds %.17g", what, i, t, row[t]);
    }
}

/* Every real experiment, and the hand-made ones with sibling call paths
 * alike, a repeated unique name and a repeated process rank, minus itself is exactly 0 under every
 * match and system rule; cube_compare finds it equal to itself and to its
 * mean with itself. */
static void test_every_experiment_minus_itself_is_zero(void **state)
{
    (void)state;
    static const char *const made[] = {"algebra/alike-siblings.cube",
                                       "algebra/duplicate-unique-name.cube",
                                       "algebra/repeated-process-rank.cube", NULL};
    static const cube_match matches[] = {FULL, NAME};
    static const cube_system_rule rules[] = {AGREE, FIRST, COLLAPSE};
    for (int set = 0; set < 2; set++)
        for (const char *const *f = set ? made : real_cube_files; *f; f++) {
            char path[1024];
            snprintf(path, sizeof path, "%s", testdata(*f));
            for (size_t mi = 0; mi < 2; mi++)
                for (size_t ri = 0; ri < 3; ri++) {
                    char what[1200];
                    snprintf(what, sizeof what, "%s, match %zu, rule %zu", path, mi, ri);
                    cube_t *res = combine(CUBE_OP_DIFF, matches[mi], rules[ri], 2, path, path);
                    assert_all_zero(res, what);
                    cube_free(res);
                    cube_status st;
                    size_t count = 1;
                    if (cube_compare(path, path, matches[mi], rules[ri], &default_options, NULL,
                                     NULL, &count, &st) != 0)
                        fail_msg("%s: cube_compare with itself: %zu differences %s", what, count,
                                 st.message);
                    res = combine(CUBE_OP_MEAN, matches[mi], rules[ri], 2, path, path);
                    const char *mean = save(res);
                    if (cube_compare(mean, path, matches[mi], rules[ri], &default_options, NULL,
                                     NULL, &count, &st) != 0)
                        fail_msg("%s: the mean with itself differs: %zu differences %s", what,
                                 count, st.message);
                    remove_files(NULL);
                }
        }
}

#define TEST(f) cmocka_unit_test_teardown(f, remove_files)

int main(void)
{
    default_options = options(2 * DBL_EPSILON, DBL_MIN, 100);
    const struct CMUnitTest tests[] = {
        TEST(test_metrics_matched_by_unique_name_wherever_they_sit),
        TEST(test_regions_matched_by_name_and_module),
        TEST(test_call_paths_matched_by_callee_call_site_and_parent),
        TEST(test_siblings_with_the_same_key_add_up),
        TEST(test_threads_matched_by_ranks_not_names_or_ids),
        TEST(test_system_trees_must_agree),
        TEST(test_agreeing_system_trees_are_extended),
        TEST(test_system_first_keeps_first_tree),
        TEST(test_system_collapse_builds_virtual_tree),
        TEST(test_topologies_kept_only_for_first_inputs_locations),
        TEST(test_global_thread_ranks_line_up),
        TEST(test_attributes_and_mirrors_united),
        TEST(test_diff_subtracts_and_makes_unsigned_signed),
        TEST(test_mean_over_inputs_missing_counts_zero),
        TEST(test_mean_of_a_file_with_itself_is_the_file),
        TEST(test_mean_of_huge_values),
        TEST(test_merge_takes_each_metric_from_last_input_that_has_it),
        TEST(test_void_metrics_carry_no_data),
        TEST(test_compare_void_in_one_input_is_symmetric),
        TEST(test_compare_equal_and_one_changed_value),
        TEST(test_compare_dimension_only_in_one),
        TEST(test_compare_tolerances),
        TEST(test_compare_by_level_and_ignore_below),
        TEST(test_compare_metric_filter),
        TEST(test_repeated_rows_combine_as_cube_read_reads_them),
        TEST(test_errors),
        TEST(test_union_api),
        TEST(test_call_path_names),
        TEST(test_siblings_alike_of_very_different_magnitude),
        TEST(test_every_experiment_minus_itself_is_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
