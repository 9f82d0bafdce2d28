/*
 * test_concurrency.c - what libcube(3) promises about threads, checked
 * with threads:
 *
 *  - one experiment read once and shared: several threads run every query
 *    that takes a const handle at once (severity look-ups first, the way a
 *    program starts after cube_read, views, flat profiles, tree walks,
 *    statistics files from the experiment, the algebra's union) and each
 *    must get exactly what one thread alone gets; likewise a finished
 *    view, a flat profile and a statistics file shared read-only;
 *  - several threads each combine experiments (cube_combine, with its own
 *    read-ahead threads), read them and write them to files of their own:
 *    every result must be that of doing the same in one thread;
 *  - the LinkTest analysis, with its second thread forced on for the
 *    shipped small runs, in several threads on handles of their own, and
 *    several threads exporting handles of their own while they read one
 *    shared handle: the same figures and bytes as one thread without the
 *    second.
 *
 * A test of internals: it includes linktest/linktest_private.h to force
 * the LinkTest analysis's second thread on (linktest_set_helper_threshold),
 * which the public interface leaves to the library.
 *
 * cmocka's assertions must not run in a worker thread (they jump back into
 * the main thread's test), so workers record what they computed and the
 * main thread compares.  `make check-tsan` runs this under ThreadSanitizer,
 * which also fails it on any data race.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"
#include "linktest/linktest_private.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NUM_READERS 4

/* ---------------------------------------------------------------------- */
/* starting threads together                                               */

/* The workers wait at the gate until all are created, so that their first
 * calls overlap (a race in the first look-up after cube_read needs that). */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t open;
    int waiting, expected;
} gate;

static void gate_init(gate *g, int expected)
{
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->open, NULL);
    g->waiting = 0;
    g->expected = expected;
}

/* NULL: a run in the calling thread alone, nothing to wait for. */
static void gate_pass(gate *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->lock);
    if (++g->waiting == g->expected)
        pthread_cond_broadcast(&g->open);
    while (g->waiting < g->expected)
        pthread_cond_wait(&g->open, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static void gate_destroy(gate *g)
{
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->open);
}

/* Run fn(arg + i * size) in n threads at once, and wait for them. */
static void run_threads(int n, void *(*fn)(void *), void *args, size_t size)
{
    pthread_t tid[32];
    assert_true(n <= 32);
    for (int i = 0; i < n; i++)
        assert_int_equal(pthread_create(&tid[i], NULL, fn, (char *)args + (size_t)i * size), 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(pthread_join(tid[i], NULL), 0);
}

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

#define FNV_START 0xcbf29ce484222325ULL

/* ---------------------------------------------------------------------- */
/* everything the const queries say about one experiment                  */

typedef struct {
    size_t nmetrics;
    double *row_sums;    /* per metric: cube_get_row over every call path, every thread */
    double *sev_sums;    /* per metric: cube_get_sev of the last thread, every call path */
    double *totals;      /* cube_metric_totals */
    double *tree_excl;   /* cube_metric_tree_values, metric-exclusive */
    double *view_totals; /* per metric: total of a call-inclusive aggregated view */
    double *flat_incl;   /* per metric: flat profile, every region's inclusive value */
    uint64_t row_hash;   /* every stored row through cube_row_at */
    uint64_t path_hash;  /* the call tree in preorder: levels and call paths */
    size_t walk_nodes, depth, find_misses, absent_found;
    double system_total;    /* cube_system_sums of the first metric's thread totals */
    double stat_sum, stat_median; /* cube_statfile_add_from_cube, first metric */
    size_t union_size[3];   /* the experiment lined up with itself: metrics, call paths, threads */
    uint64_t union_hash;    /* and the maps of both inputs */
    const char *failed;     /* what could not be computed (NULL: all) */
} digest;

static double *zeros(size_t n)
{
    return calloc(n ? n : 1, sizeof(double));
}

static void digest_free(digest *d)
{
    free(d->row_sums);
    free(d->sev_sums);
    free(d->totals);
    free(d->tree_excl);
    free(d->view_totals);
    free(d->flat_incl);
    memset(d, 0, sizeof *d);
}

/* The severity look-ups come first: they are what a program does right
 * after cube_read. */
static void digest_rows(const cube_t *c, digest *d)
{
    size_t nc = cube_num_cnodes(c), nt = cube_num_threads(c);
    for (size_t m = 0; m < d->nmetrics; m++) {
        const cube_metric *met = cube_get_metric(c, m);
        for (size_t k = 0; k < nc; k++) {
            const cube_cnode *cn = cube_get_cnode(c, k);
            const double *row = cube_get_row(c, met, cn);
            for (size_t t = 0; row && t < nt; t++)
                d->row_sums[m] += row[t];
            if (nt)
                d->sev_sums[m] += cube_get_sev(c, met, cn, cube_get_thread(c, nt - 1));
        }
    }
    for (size_t i = 0; i < cube_num_rows(c); i++) {
        cube_metric *met;
        cube_cnode *cn;
        const double *row = cube_row_at(c, i, &met, &cn);
        size_t met_index = cube_metric_index(met), cn_index = cube_cnode_index(cn);
        d->row_hash = fnv(d->row_hash, &met_index, sizeof met_index);
        d->row_hash = fnv(d->row_hash, &cn_index, sizeof cn_index);
        d->row_hash = fnv(d->row_hash, row, nt * sizeof *row);
        /* a row that exists is found again by its keys */
        if (cube_get_row(c, met, cn) != row)
            d->failed = "cube_row_at and cube_get_row disagree";
    }
}

static void digest_names(const cube_t *c, digest *d)
{
    for (size_t m = 0; m < d->nmetrics; m++) {
        const cube_metric *met = cube_get_metric(c, m);
        const cube_metric *found = cube_find_metric(c, cube_metric_uniq_name(met));
        /* unique names may repeat in a file: the first one is found */
        if (!found || strcmp(cube_metric_uniq_name(found), cube_metric_uniq_name(met)) != 0 ||
            cube_metric_index(found) > m)
            d->find_misses++;
    }
    if (cube_find_metric(c, "no such metric in any file"))
        d->absent_found++;
    for (size_t i = 0; i < cube_num_attrs(c); i++)
        if (cube_get_attr(c, cube_attr_key(c, i)) == NULL)
            d->find_misses++;
}

static void digest_tree(const cube_t *c, digest *d)
{
    cube_tree_walk *w = cube_tree_walk_start(c);
    if (!w) {
        d->failed = "cube_tree_walk_start: out of memory";
        return;
    }
    const cube_cnode *cn;
    size_t level;
    while ((cn = cube_tree_walk_next(w, &level))) {
        char *path = cube_call_path(cn);
        if (!path) {
            d->failed = "cube_call_path: out of memory";
            break;
        }
        d->path_hash = fnv(d->path_hash, &level, sizeof level);
        d->path_hash = fnv(d->path_hash, path, strlen(path));
        free(path);
        d->walk_nodes++;
    }
    cube_tree_walk_free(w);
    d->depth = cube_cnode_depth_max(c);
}

/* Every thread passes a status of its own to the functions that read the
 * shared handle: they report through it, not through the handle. */
static void digest_views(const cube_t *c, digest *d)
{
    cube_status st;
    if (cube_metric_totals(c, d->totals, &st) != 0 || st.code != CUBE_OK ||
        cube_metric_tree_values(c, CUBE_METRIC_EXCLUSIVE, d->tree_excl, &st) != 0 ||
        st.code != CUBE_OK) {
        d->failed = "metric totals";
        return;
    }
    for (size_t m = 0; m < d->nmetrics; m++) {
        const cube_metric *met = cube_get_metric(c, m);
        cube_view *v = cube_view_compute(c, met, CUBE_METRIC_EXCLUSIVE, CUBE_CALL_INCLUSIVE,
                                         CUBE_VIEW_AGGREGATE, &st);
        cube_view *x = cube_view_compute(c, met, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE,
                                         CUBE_VIEW_AGGREGATE, &st);
        cube_flat *f = x ? cube_flat_create(x, &st) : NULL;
        if (!v || !f || cube_view_total(v, &d->view_totals[m], &st) != 0) {
            d->failed = "a view or flat profile";
        } else {
            for (size_t r = 0; r < cube_num_regions(c); r++)
                d->flat_incl[m] += cube_flat_value(f, cube_get_region(c, r), CUBE_FLAT_INCLUSIVE, 0);
        }
        cube_flat_free(f);
        cube_view_free(x);
        cube_view_free(v);
    }
    if (!d->nmetrics)
        return;
    /* per thread, the first metric, summed over the system tree */
    const cube_metric *first = cube_get_metric(c, 0);
    cube_view *v = cube_view_compute(c, first, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, 0, &st);
    size_t nt = cube_num_threads(c);
    double *per_thread = zeros(nt);
    if (!v || !per_thread || cube_view_total(v, per_thread, &st) != 0 ||
        cube_system_sums(c, per_thread, NULL, NULL, NULL, &d->system_total, &st) != 0)
        d->failed = "system sums";
    free(per_thread);
    cube_view_free(v);

    cube_statfile *s = cube_statfile_create();
    if (!s || cube_statfile_add_from_cube(s, c, first, 5) != 0 ||
        cube_statfile_num_patterns(s) != 1) {
        d->failed = "cube_statfile_add_from_cube";
    } else {
        d->stat_sum = cube_statfile_get_pattern(s, 0)->sum;
        d->stat_median = cube_statfile_get_pattern(s, 0)->median;
    }
    cube_statfile_free(s);
}

/* The algebra's union reads its inputs (cube_union_add takes a const
 * handle): the experiment lined up with itself, in every thread. */
static void digest_union(const cube_t *c, digest *d)
{
    cube_union *u = cube_union_create(CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE);
    if (!u || cube_union_add(u, c, "first") != 0 || cube_union_add(u, c, "second") != 0 ||
        cube_union_finish(u) != 0) {
        d->failed = "the union of an experiment with itself";
        cube_union_free(u);
        return;
    }
    const cube_t *res = cube_union_result(u);
    d->union_size[0] = cube_num_metrics(res);
    d->union_size[1] = cube_num_cnodes(res);
    d->union_size[2] = cube_num_threads(res);
    d->union_hash = FNV_START;
    for (size_t k = 0; k < 2; k++) {
        d->union_hash = fnv(d->union_hash, cube_union_metric_map(u, k),
                            cube_num_metrics(c) * sizeof(size_t));
        d->union_hash = fnv(d->union_hash, cube_union_cnode_map(u, k),
                            cube_num_cnodes(c) * sizeof(size_t));
        d->union_hash = fnv(d->union_hash, cube_union_thread_map(u, k),
                            cube_num_threads(c) * sizeof(size_t));
    }
    cube_union_free(u);
}

static void compute_digest(const cube_t *c, digest *d)
{
    memset(d, 0, sizeof *d);
    d->nmetrics = cube_num_metrics(c);
    d->row_hash = d->path_hash = FNV_START;
    d->row_sums = zeros(d->nmetrics);
    d->sev_sums = zeros(d->nmetrics);
    d->totals = zeros(d->nmetrics);
    d->tree_excl = zeros(d->nmetrics);
    d->view_totals = zeros(d->nmetrics);
    d->flat_incl = zeros(d->nmetrics);
    if (!d->row_sums || !d->sev_sums || !d->totals || !d->tree_excl || !d->view_totals ||
        !d->flat_incl) {
        d->failed = "out of memory";
        return;
    }
    digest_rows(c, d);
    digest_names(c, d);
    digest_tree(c, d);
    digest_views(c, d);
    digest_union(c, d);
}

static void assert_same_values(const char *what, const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!same_double(a[i], b[i]))
            fail_msg("%s[%zu]: %a, expected %a", what, i, a[i], b[i]);
}

/* Bit for bit: the same code on the same data in the same order. */
static void assert_same_digest(const digest *got, const digest *want, const char *file)
{
    if (got->failed)
        fail_msg("%s: %s", file, got->failed);
    assert_null(want->failed);
    assert_int_equal(got->nmetrics, want->nmetrics);
    size_t n = want->nmetrics;
    assert_same_values("row sums", got->row_sums, want->row_sums, n);
    assert_same_values("cube_get_sev sums", got->sev_sums, want->sev_sums, n);
    assert_same_values("metric totals", got->totals, want->totals, n);
    assert_same_values("metric-exclusive tree values", got->tree_excl, want->tree_excl, n);
    assert_same_values("view totals", got->view_totals, want->view_totals, n);
    assert_same_values("flat profile", got->flat_incl, want->flat_incl, n);
    assert_true(got->row_hash == want->row_hash);
    assert_true(got->path_hash == want->path_hash);
    assert_int_equal(got->walk_nodes, want->walk_nodes);
    assert_int_equal(got->depth, want->depth);
    assert_int_equal(got->find_misses, 0);
    assert_int_equal(got->absent_found, 0);
    assert_true(same_double(got->system_total, want->system_total));
    assert_true(same_double(got->stat_sum, want->stat_sum));
    assert_true(same_double(got->stat_median, want->stat_median));
    assert_memory_equal(got->union_size, want->union_size, sizeof want->union_size);
    assert_true(got->union_hash == want->union_hash);
}

/* ---------------------------------------------------------------------- */
/* (a) one experiment, read once, queried by several threads at once       */

typedef struct {
    const cube_t *shared;
    gate *start;
    digest d;
} query_job;

static void *query_worker(void *arg)
{
    query_job *j = arg;
    gate_pass(j->start);
    compute_digest(j->shared, &j->d);
    return NULL;
}

static void test_shared_model_queries(void **state)
{
    (void)state;
    for (const char *const *f = real_cube_files; *f; f++) {
        const char *path = testdata(*f);
        /* handed to the threads straight from cube_read: nothing has
         * looked anything up in it yet */
        cube_t *shared = read_ok(path);
        gate start;
        gate_init(&start, NUM_READERS);
        query_job jobs[NUM_READERS];
        for (int i = 0; i < NUM_READERS; i++)
            jobs[i] = (query_job){shared, &start, {0}};
        run_threads(NUM_READERS, query_worker, jobs, sizeof jobs[0]);
        gate_destroy(&start);

        /* the reference: the same file read again, queried by one thread */
        cube_t *alone = read_ok(path);
        digest want;
        compute_digest(alone, &want);
        assert_true(want.row_hash != FNV_START || cube_num_rows(alone) == 0);
        for (int i = 0; i < NUM_READERS; i++) {
            assert_same_digest(&jobs[i].d, &want, path);
            digest_free(&jobs[i].d);
        }
        /* and the shared model is still the one that was read */
        assert_same_model(shared, alone);
        digest_free(&want);
        cube_free(alone);
        cube_free(shared);
    }
}

/* A finished view and a flat profile are shared read-only. */
typedef struct {
    const cube_t *c;
    const cube_view *view;
    const cube_flat *flat;
    gate *start;
    double view_sum, flat_sum, own_flat_sum;
} view_job;

static void *view_worker(void *arg)
{
    view_job *j = arg;
    gate_pass(j->start);
    for (size_t k = 0; k < cube_num_cnodes(j->c); k++)
        for (size_t t = 0; t < cube_view_width(j->view); t++)
            j->view_sum += cube_view_value(j->view, cube_get_cnode(j->c, k), t);
    for (size_t r = 0; r < cube_num_regions(j->c); r++)
        for (size_t t = 0; t < cube_flat_width(j->flat); t++)
            j->flat_sum +=
                cube_flat_value(j->flat, cube_get_region(j->c, r), CUBE_FLAT_SUBROUTINES, t);
    /* a flat profile of its own from the shared view */
    cube_flat *own = cube_flat_create(j->view, NULL);
    for (size_t r = 0; own && r < cube_num_regions(j->c); r++)
        for (size_t t = 0; t < cube_flat_width(own); t++)
            j->own_flat_sum +=
                cube_flat_value(own, cube_get_region(j->c, r), CUBE_FLAT_EXCLUSIVE, t);
    if (!own)
        j->own_flat_sum = NAN;
    cube_flat_free(own);
    return NULL;
}

static void test_shared_view(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cube/scalasca_trace.cube"));
    const cube_metric *time = cube_find_metric(c, "time");
    assert_non_null(time);
    cube_status st;
    cube_view *v = cube_view_compute(c, time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, 0, &st);
    if (!v)
        fail_msg("%s", st.message);
    cube_flat *f = cube_flat_create(v, &st);
    if (!f)
        fail_msg("%s", st.message);
    gate start;
    gate_init(&start, NUM_READERS);
    view_job jobs[NUM_READERS];
    for (int i = 0; i < NUM_READERS; i++)
        jobs[i] = (view_job){c, v, f, &start, 0.0, 0.0, 0.0};
    run_threads(NUM_READERS, view_worker, jobs, sizeof jobs[0]);
    gate_destroy(&start);
    view_job alone = {c, v, f, NULL, 0.0, 0.0, 0.0};
    view_worker(&alone);
    assert_true(alone.view_sum > 0.0);
    for (int i = 0; i < NUM_READERS; i++) {
        assert_true(same_double(jobs[i].view_sum, alone.view_sum));
        assert_true(same_double(jobs[i].flat_sum, alone.flat_sum));
        assert_true(same_double(jobs[i].own_flat_sum, alone.own_flat_sum));
    }
    cube_flat_free(f);
    cube_view_free(v);
    cube_free(c);
}

/* A statistics file read once is shared read-only too, and joined with a
 * shared experiment. */
typedef struct {
    const cube_statfile *stat;
    const cube_t *c;
    gate *start;
    double sum;
    size_t joined;
} statfile_job;

static void *statfile_worker(void *arg)
{
    statfile_job *j = arg;
    gate_pass(j->start);
    for (size_t i = 0; i < cube_statfile_num_patterns(j->stat); i++) {
        const cube_statfile_pattern *p = cube_statfile_get_pattern(j->stat, i);
        j->sum += p->sum + p->mean + p->median + (double)p->count;
        j->joined += cube_statfile_metric(p, j->c) != NULL;
        for (size_t k = 0; k < p->num_instances; k++) {
            j->sum += p->instances[k].duration;
            j->joined += cube_statfile_cnode(&p->instances[k], j->c) != NULL;
        }
    }
    return NULL;
}

static void test_shared_statfile(void **state)
{
    (void)state;
    cube_statfile *stat = cube_statfile_create();
    assert_non_null(stat);
    assert_int_equal(cube_statfile_read(stat, testdata("statfile/scalasca.stat")), 0);
    cube_t *c = read_ok(testdata("cube/scalasca_trace.cube"));
    gate start;
    gate_init(&start, NUM_READERS);
    statfile_job jobs[NUM_READERS];
    for (int i = 0; i < NUM_READERS; i++)
        jobs[i] = (statfile_job){stat, c, &start, 0.0, 0};
    run_threads(NUM_READERS, statfile_worker, jobs, sizeof jobs[0]);
    gate_destroy(&start);
    statfile_job alone = {stat, c, NULL, 0.0, 0};
    statfile_worker(&alone);
    assert_true(alone.sum > 0.0);
    assert_true(alone.joined > 0);
    for (int i = 0; i < NUM_READERS; i++) {
        assert_true(same_double(jobs[i].sum, alone.sum));
        assert_int_equal(jobs[i].joined, alone.joined);
    }
    cube_free(c);
    cube_statfile_free(stat);
}

/* ---------------------------------------------------------------------- */
/* (b) each thread reads, combines and writes experiments of its own       */

#define NUM_COMBINERS 6

typedef struct {
    cube_operation op;
    const char *input;
    char *combined_path; /* the combination written here */
    char *copy_path;     /* the input read and written here (.gz for some) */
    gate *start;
    char error[CUBE_MESSAGE_SIZE + 64];
    digest combined; /* of the combination as read back from its file */
} combine_job;

static const char *const combine_inputs[] = {
    "cube/cubelib-test1.1_equal_raw-amp.cube", "cube/kojak-expert_ctest-pomp.cube",
    "cube/scorep-1.1_profile.cube", "cube/tau2cube_template1.cube"};

/* combine (input, input) with op, write it, read it back: the digest of
 * what was read; read the input and write it to copy_path, and compare
 * the copy with the input.  The error text names the step that failed. */
static void combine_write_read(combine_job *j)
{
    const char *paths[2] = {j->input, j->input};
    cube_status st;
    cube_t *res = cube_combine(j->op, paths, 2, CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE, &st);
    if (!res) {
        snprintf(j->error, sizeof j->error, "combining: %s", st.message);
        return;
    }
    if (cube_write_file(res, j->combined_path, 0) != 0) {
        snprintf(j->error, sizeof j->error, "writing: %s", cube_error(res));
        cube_free(res);
        return;
    }
    cube_free(res);
    cube_t *back = cube_create();
    if (!back || cube_read(back, j->combined_path) != 0) {
        snprintf(j->error, sizeof j->error, "reading back: %s", cube_error(back));
    } else {
        compute_digest(back, &j->combined);
    }
    cube_free(back);

    cube_t *in = cube_create();
    if (!in || cube_read(in, j->input) != 0 || cube_write_file(in, j->copy_path, 0) != 0)
        snprintf(j->error, sizeof j->error, "copying: %s", cube_error(in));
    cube_free(in);
    /* the copy compares equal to its input */
    size_t differences = 0;
    int rc = cube_compare(j->input, j->copy_path, CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE, NULL, NULL,
                          NULL, &differences, &st);
    if (rc != 0 && !j->error[0])
        snprintf(j->error, sizeof j->error, "comparing the copy: %d, %zu differences %.400s", rc,
                 differences, st.message);
}

static void *combine_worker(void *arg)
{
    combine_job *j = arg;
    gate_pass(j->start);
    combine_write_read(j);
    return NULL;
}

static void test_threads_combine_and_write(void **state)
{
    (void)state;
    size_t ninputs = sizeof combine_inputs / sizeof combine_inputs[0];
    static const cube_operation ops[3] = {CUBE_OP_DIFF, CUBE_OP_MERGE, CUBE_OP_MEAN};
    char *inputs[sizeof combine_inputs / sizeof combine_inputs[0]];
    for (size_t i = 0; i < ninputs; i++)
        inputs[i] = strdup(testdata(combine_inputs[i]));
    gate start;
    gate_init(&start, NUM_COMBINERS);
    combine_job jobs[NUM_COMBINERS];
    for (int k = 0; k < NUM_COMBINERS; k++) {
        memset(&jobs[k], 0, sizeof jobs[k]);
        jobs[k].op = ops[k % 3];
        jobs[k].input = inputs[(size_t)k % ninputs];
        jobs[k].combined_path = temp_path(".cube");
        jobs[k].copy_path = temp_path(k % 2 ? ".cube.gz" : ".cube");
        jobs[k].start = &start;
    }
    run_threads(NUM_COMBINERS, combine_worker, jobs, sizeof jobs[0]);
    gate_destroy(&start);

    for (int k = 0; k < NUM_COMBINERS; k++) {
        combine_job *j = &jobs[k];
        if (j->error[0])
            fail_msg("job %d (%s): %s", k, j->input, j->error);
        /* the same in this thread alone */
        combine_job alone;
        memset(&alone, 0, sizeof alone);
        alone.op = j->op;
        alone.input = j->input;
        alone.combined_path = temp_path(".cube");
        alone.copy_path = temp_path(".cube");
        combine_write_read(&alone);
        if (alone.error[0])
            fail_msg("%s alone: %s", j->input, alone.error);
        assert_same_digest(&j->combined, &alone.combined, j->input);
        /* the files themselves are the same, byte for byte */
        size_t la, lb;
        char *a = slurp(j->combined_path, &la), *b = slurp(alone.combined_path, &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
        free(a);
        free(b);

        /* what the operation means, on an input combined with itself */
        cube_t *in = read_ok(j->input);
        digest of_input;
        compute_digest(in, &of_input);
        for (size_t m = 0; m < j->combined.nmetrics; m++) {
            double got = j->combined.totals[m];
            if (j->op == CUBE_OP_DIFF)
                assert_true(got == 0.0);
            else if (m < of_input.nmetrics)
                assert_true(fabs(got - of_input.totals[m]) <=
                            1e-12 * fabs(of_input.totals[m]) + DBL_MIN);
        }
        /* the copy written in the thread is the input */
        cube_t *copy = read_ok(j->copy_path);
        assert_same_model(copy, in);
        cube_free(copy);
        cube_free(in);
        digest_free(&of_input);

        unlink(alone.combined_path);
        unlink(alone.copy_path);
        free(alone.combined_path);
        free(alone.copy_path);
        digest_free(&alone.combined);
        unlink(j->combined_path);
        unlink(j->copy_path);
        free(j->combined_path);
        free(j->copy_path);
        digest_free(&j->combined);
    }
    for (size_t i = 0; i < ninputs; i++)
        free(inputs[i]);
}

/* ---------------------------------------------------------------------- */
/* (c) the LinkTest analysis: its second thread, in several threads        */

static const char *const linktest_files[] = {
    "linktest/lt2_a2a_M3.sion",     "linktest/lt4_2files.sion",
    "linktest/lt4_basic.sion",      "linktest/lt4_bigendian.sion",
    "linktest/lt4_coll.sion",       "linktest/lt4_multiblock.sion",
    "linktest/lt8_fs64k.sion",      "linktest/v1/real_linktest1.2p1_n4.sion",
    "linktest/v1/real_linktest1.2p1_n4_a2a_mix.sion"};
#define NUM_LINKTEST_FILES (sizeof linktest_files / sizeof linktest_files[0])
#define SLOWEST 10
#define BINS 12
#define MAX_ITERATIONS 64
#define MAX_HOSTS 16

typedef struct {
    cube_linktest_stats all, a2a, per_iteration[MAX_ITERATIONS];
    size_t iterations;
    cube_linktest_link slowest[SLOWEST];
    size_t num_slowest;
    cube_linktest_host hosts[MAX_HOSTS];
    size_t num_hosts;
    double edges[BINS + 1];
    uint64_t counts[BINS];
    int histogram_rc;
} linktest_figures;

typedef struct {
    const char *path;
    unsigned flags;
    size_t helper_min_values; /* 0: the second thread on every pass of two rows or more */
    gate *start;
    char error[CUBE_MESSAGE_SIZE + 64];
    linktest_figures fig;
} linktest_job;

static void analyse(linktest_job *j)
{
    cube_status st;
    cube_linktest *lt = cube_linktest_open_with(j->path, j->flags, &st);
    if (!lt) {
        snprintf(j->error, sizeof j->error, "%s", st.message);
        return;
    }
    linktest_set_helper_threshold(lt, j->helper_min_values);
    linktest_figures *f = &j->fig;
    f->iterations = cube_linktest_num_permutations(lt);
    int rc = cube_linktest_summarize(lt, &f->all, SLOWEST, f->slowest, &f->num_slowest);
    rc |= cube_linktest_a2a_stats(lt, &f->a2a);
    for (size_t i = 0; i < f->iterations && i < MAX_ITERATIONS; i++)
        rc |= cube_linktest_time_stats(lt, i, &f->per_iteration[i]);
    cube_linktest_host *hosts = cube_linktest_hosts(lt, &f->num_hosts);
    if (!hosts || f->num_hosts > MAX_HOSTS)
        rc = -1;
    else
        memcpy(f->hosts, hosts, f->num_hosts * sizeof *hosts);
    free(hosts);
    f->histogram_rc = cube_linktest_histogram(lt, BINS, f->edges, f->counts);
    if (rc != 0)
        snprintf(j->error, sizeof j->error, "%s", cube_linktest_error(lt));
    for (size_t h = 0; h < f->num_hosts; h++)
        f->hosts[h].host = NULL; /* points into lt */
    cube_linktest_free(lt);
}

static void *analyse_worker(void *arg)
{
    linktest_job *j = arg;
    gate_pass(j->start);
    analyse(j);
    return NULL;
}

/* The figures one pass computes: exact but for the mean, a compensated
 * sum taken in two halves by the two threads (an ulp or two apart). */
static void assert_same_stats(const cube_linktest_stats *got, const cube_linktest_stats *want,
                              const char *what)
{
    assert_int_equal(got->count, want->count);
    if (!same_double(got->min, want->min) || !same_double(got->max, want->max) ||
        !same_double(got->median, want->median))
        fail_msg("%s: min/median/max %a %a %a, expected %a %a %a", what, got->min, got->median,
                 got->max, want->min, want->median, want->max);
    if (isnan(want->mean) ? !isnan(got->mean)
                          : fabs(got->mean - want->mean) > 4 * DBL_EPSILON * fabs(want->mean))
        fail_msg("%s: mean %a, expected %a", what, got->mean, want->mean);
}

static void assert_same_figures(const linktest_figures *got, const linktest_figures *want,
                                const char *file)
{
    assert_same_stats(&got->all, &want->all, file);
    assert_same_stats(&got->a2a, &want->a2a, file);
    assert_int_equal(got->iterations, want->iterations);
    for (size_t i = 0; i < want->iterations && i < MAX_ITERATIONS; i++)
        assert_same_stats(&got->per_iteration[i], &want->per_iteration[i], file);
    assert_int_equal(got->num_slowest, want->num_slowest);
    for (size_t i = 0; i < want->num_slowest; i++) {
        const cube_linktest_link *a = &got->slowest[i], *b = &want->slowest[i];
        assert_int_equal(a->rank, b->rank);
        assert_int_equal(a->partner, b->partner);
        assert_int_equal(a->iteration, b->iteration);
        assert_true(same_double(a->time, b->time));
        assert_true(same_double(a->retested, b->retested));
    }
    assert_int_equal(got->num_hosts, want->num_hosts);
    for (size_t h = 0; h < want->num_hosts; h++) {
        assert_int_equal(got->hosts[h].num_ranks, want->hosts[h].num_ranks);
        assert_int_equal(got->hosts[h].first_rank, want->hosts[h].first_rank);
        assert_int_equal(got->hosts[h].outlier, want->hosts[h].outlier);
        assert_same_stats(&got->hosts[h].stats, &want->hosts[h].stats, file);
    }
    assert_int_equal(got->histogram_rc, want->histogram_rc);
    if (want->histogram_rc == 0) {
        assert_same_values("histogram edges", got->edges, want->edges, BINS + 1);
        assert_memory_equal(got->counts, want->counts, sizeof want->counts);
    }
}

static void test_linktest_analysis_threads(void **state)
{
    (void)state;
    /* every file twice, with the matrices in memory and read from the
     * file, all at once, each with the second thread on every pass */
    enum { NJOBS = 2 * NUM_LINKTEST_FILES };
    char *paths[NUM_LINKTEST_FILES];
    for (size_t i = 0; i < NUM_LINKTEST_FILES; i++)
        paths[i] = strdup(testdata(linktest_files[i]));
    gate start;
    gate_init(&start, NJOBS);
    linktest_job *jobs = calloc(NJOBS, sizeof *jobs);
    assert_non_null(jobs);
    for (size_t k = 0; k < NJOBS; k++) {
        jobs[k].path = paths[k % NUM_LINKTEST_FILES];
        jobs[k].flags = k < NUM_LINKTEST_FILES ? 0 : CUBE_LINKTEST_NO_MATRICES;
        jobs[k].helper_min_values = 0;
        jobs[k].start = &start;
    }
    run_threads(NJOBS, analyse_worker, jobs, sizeof jobs[0]);
    gate_destroy(&start);

    for (size_t k = 0; k < NJOBS; k++) {
        if (jobs[k].error[0])
            fail_msg("%s: %s", jobs[k].path, jobs[k].error);
        /* one thread, no second thread on any pass */
        linktest_job *alone = calloc(1, sizeof *alone);
        assert_non_null(alone);
        alone->path = jobs[k].path;
        alone->flags = jobs[k].flags;
        alone->helper_min_values = SIZE_MAX;
        analyse(alone);
        if (alone->error[0])
            fail_msg("%s alone: %s", alone->path, alone->error);
        assert_true(alone->fig.all.count > 0);
        assert_same_figures(&jobs[k].fig, &alone->fig, jobs[k].path);
        free(alone);
    }
    free(jobs);
    for (size_t i = 0; i < NUM_LINKTEST_FILES; i++)
        free(paths[i]);
}

/* The accessors take a const handle: several threads read one shared
 * handle at once.  cube_linktest_write_cube reports through the handle it
 * is given, which it therefore needs to itself: each thread exports a
 * handle of its own, opened from the same file. */
typedef struct {
    const cube_linktest *shared;
    const char *path;
    char *out;
    gate *start;
    int rc;
    char error[CUBE_MESSAGE_SIZE + 64];
    size_t num_hosts;
    uint64_t checksum; /* the permutations and host names as seen */
} export_job;

static void *export_worker(void *arg)
{
    export_job *j = arg;
    gate_pass(j->start);
    cube_status st;
    cube_linktest *own = cube_linktest_open(j->path, &st);
    if (!own) {
        snprintf(j->error, sizeof j->error, "%s", st.message);
    } else {
        j->rc = cube_linktest_write_cube(own, j->out, 0);
        if (j->rc != 0)
            snprintf(j->error, sizeof j->error, "%s", cube_linktest_error(own));
        else if (cube_linktest_error_code(own) != CUBE_OK || cube_linktest_error(own)[0])
            snprintf(j->error, sizeof j->error, "an error left on the handle after success");
        cube_linktest_free(own);
    }
    j->num_hosts = cube_linktest_num_hosts(j->shared);
    for (size_t m = 0; m < cube_linktest_num_permutations(j->shared); m++)
        j->checksum = fnv(j->checksum, cube_linktest_get_permutation(j->shared, m),
                          sizeof(cube_linktest_permutation));
    for (size_t r = 0; r < cube_linktest_num_ranks(j->shared); r++)
        j->checksum = fnv(j->checksum, cube_linktest_hostname(j->shared, r),
                          strlen(cube_linktest_hostname(j->shared, r)));
    return NULL;
}

static void test_linktest_shared_export(void **state)
{
    (void)state;
    const char *path = testdata("linktest/lt8_fs64k.sion");
    cube_linktest *lt = linktest_open_ok(path);
    char *want_path = temp_path(".cube");
    if (cube_linktest_write_cube(lt, want_path, 0) != 0)
        fail_msg("%s", cube_linktest_error(lt));
    size_t want_len;
    char *want = slurp(want_path, &want_len);
    gate start;
    gate_init(&start, NUM_READERS);
    export_job jobs[NUM_READERS];
    for (int i = 0; i < NUM_READERS; i++)
        jobs[i] = (export_job){lt, path, temp_path(".cube"), &start, -1, "", 0, FNV_START};
    run_threads(NUM_READERS, export_worker, jobs, sizeof jobs[0]);
    gate_destroy(&start);
    for (int i = 0; i < NUM_READERS; i++) {
        if (jobs[i].rc != 0 || jobs[i].error[0])
            fail_msg("%s", jobs[i].error);
        assert_int_equal(jobs[i].num_hosts, cube_linktest_num_hosts(lt));
        assert_true(jobs[i].checksum == jobs[0].checksum);
        assert_true(jobs[i].checksum != FNV_START);
        size_t len;
        char *got = slurp(jobs[i].out, &len);
        assert_int_equal(len, want_len);
        assert_memory_equal(got, want, len);
        free(got);
        unlink(jobs[i].out);
        free(jobs[i].out);
    }
    free(want);
    unlink(want_path);
    free(want_path);
    cube_linktest_free(lt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_model_queries),
        cmocka_unit_test(test_shared_view),
        cmocka_unit_test(test_shared_statfile),
        cmocka_unit_test(test_threads_combine_and_write),
        cmocka_unit_test(test_linktest_analysis_threads),
        cmocka_unit_test(test_linktest_shared_export),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
