/*
 * linktest_cube.c - a LinkTest run as a CUBE experiment, so that the CUBE
 * algebra (cube_diff of two runs: which links got slower) and the views
 * work on it.  The mapping (cube_linktest(1), "CUBE EXPORT"):
 *
 *   metrics   time, time_min, time_max (seconds: mean, min and max of a
 *             link over the iterations), bandwidth (message size / mean
 *             time), visits (the ping-pong messages timed: messages x
 *             iterations measured), alltoall (a rank's all-to-all time,
 *             mean over the iterations; only when the run has them)
 *   program   root call path "linktest", one child "rank P" per partner
 *   system    machine "LinkTest", a node per host, a process "rank R" with
 *             one thread per rank
 *   values    (metric, call path "rank P", thread of rank R) = row R,
 *             column P of the matrices; alltoall on the root call path.
 *
 * The definitions are built in a cube_t; the rows are made one at a time
 * as the writer asks for them (cube_write_file_rows): a 4096-rank run has
 * 84 million values, which are never held at once.
 */
#include "cube.h"
#include "linktest/linktest_private.h"
#include "linktest/sion_private.h"
#include "views/view_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M_TIME, M_TIME_MIN, M_TIME_MAX, M_BANDWIDTH, M_VISITS, M_ALLTOALL, NUM_METRICS };

typedef struct {
    const cube_linktest *lt;
    size_t n, iterations;
    double message_size, messages;
    cube_metric *metrics[NUM_METRICS];
    cube_cnode *root;
    cube_cnode **partner; /* n call paths */
    double *values;       /* n: the row being written */
    int metric;           /* the row source's position */
    size_t column;
} export_job;

/* Mean, min and max over the iterations of the measurement (rank, col);
 * NaN when no iteration has one.  Returns in how many iterations it was
 * measured. */
static size_t link_figures(const export_job *j, size_t rank, size_t col, double *mean,
                         double *lo, double *hi)
{
    double sum = 0, comp = 0;
    size_t k = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < j->iterations; i++) {
        double v = cube_linktest_get_permutation(j->lt, i)->times[rank * j->n + col];
        if (isnan(v))
            continue;
        view_neu_add(&sum, &comp, v);
        *lo = v < *lo ? v : *lo;
        *hi = v > *hi ? v : *hi;
        k++;
    }
    if (k == 0)
        *mean = *lo = *hi = NAN;
    else
        *mean = view_neu_result(sum, comp) / (double)k;
    return k;
}

/* The value of metric `m` for the measurement (rank, col): 0 where there
 * is none (the diagonal: CUBE has no "absent", and 0 rows are omitted). */
static double link_value(const export_job *j, int m, size_t rank, size_t col)
{
    if (rank == col)
        return 0;
    double mean, lo, hi;
    size_t measured = link_figures(j, rank, col, &mean, &lo, &hi);
    if (isnan(mean))
        return 0;
    switch (m) {
    case M_TIME:
        return mean;
    case M_TIME_MIN:
        return lo;
    case M_TIME_MAX:
        return hi;
    case M_VISITS:
        return j->messages * (double)measured;
    default:
        return mean > 0 ? j->message_size / mean : 0;
    }
}

static double a2a_value(const export_job *j, size_t rank)
{
    double sum = 0, comp = 0;
    size_t k = 0;
    for (size_t i = 0; i < j->iterations; i++) {
        const double *a = cube_linktest_get_permutation(j->lt, i)->all_to_all_times;
        if (a && !isnan(a[rank])) {
            view_neu_add(&sum, &comp, a[rank]);
            k++;
        }
    }
    return k ? view_neu_result(sum, comp) / (double)k : 0;
}

/* cube_row_source: the metrics in order, a row per partner (a column of
 * the matrix), then the all-to-all row. */
static int next_row(void *ctx, const cube_metric **met, const cube_cnode **cnode,
                    const double **values)
{
    export_job *j = ctx;
    while (j->metric < NUM_METRICS && !j->metrics[j->metric])
        j->metric++;
    if (j->metric == NUM_METRICS)
        return 0;
    *met = j->metrics[j->metric];
    *values = j->values;
    if (j->metric == M_ALLTOALL) {
        for (size_t r = 0; r < j->n; r++)
            j->values[r] = a2a_value(j, r);
        *cnode = j->root;
        j->metric++;
        return 1;
    }
    size_t col = j->column;
    for (size_t r = 0; r < j->n; r++)
        j->values[r] = link_value(j, j->metric, r, col);
    *cnode = j->partner[col];
    if (++j->column == j->n) {
        j->column = 0;
        j->metric++;
    }
    return 1;
}

static void def_attr_u64(cube_t *c, const char *key, uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    cube_def_attr(c, key, buf);
}

/* The definitions: metrics, the call tree, the system; 0 or -1. */
static int define(cube_t *c, export_job *j)
{
    const cube_linktest *lt = j->lt;
    const cube_linktest_header *h = cube_linktest_get_header(lt);
    char text[512];
    snprintf(text, sizeof text, "%u.%u.%u", (unsigned)h->major, (unsigned)h->minor,
             (unsigned)h->patch);
    cube_def_attr(c, "LinkTest version", text);
    cube_def_attr(c, "LinkTest git hash", h->git_hash);
    cube_def_attr(c, "LinkTest mode", h->mode);
    def_attr_u64(c, "LinkTest message size", h->message_size);
    def_attr_u64(c, "LinkTest messages", h->num_messages);
    def_attr_u64(c, "LinkTest warm-up messages", h->num_warmup_messages);
    def_attr_u64(c, "LinkTest iterations", j->iterations);
    if (j->iterations) {
        cube_def_attr(c, "LinkTest start time", cube_linktest_get_permutation(lt, 0)->start_time);
        cube_def_attr(c, "LinkTest end time",
                      cube_linktest_get_permutation(lt, j->iterations - 1)->end_time);
    }

    static const struct {
        const char *disp, *uniq, *uom, *descr;
    } mdef[NUM_METRICS] = {
        {"Ping-pong time", "time", "sec", "Time of the ping-pong with a partner, mean over the "
                                          "iterations"},
        {"Minimum ping-pong time", "time_min", "sec", "Smallest ping-pong time over the "
                                                      "iterations"},
        {"Maximum ping-pong time", "time_max", "sec", "Largest ping-pong time over the "
                                                      "iterations"},
        {"Bandwidth", "bandwidth", "bytes/sec", "Message size / mean ping-pong time"},
        {"Visits", "visits", "occ", "Ping-pong messages timed: messages per iteration x "
                                    "iterations"},
        {"All-to-all time", "alltoall", "sec", "Time of the rank's all-to-all test, mean over "
                                               "the iterations"},
    };
    int has_a2a = 0;
    for (size_t i = 0; i < j->iterations; i++)
        has_a2a |= cube_linktest_get_permutation(lt, i)->all_to_all_times != NULL;
    for (int m = 0; m < NUM_METRICS; m++) {
        if (m == M_ALLTOALL && !has_a2a)
            continue;
        j->metrics[m] = cube_def_met(c, mdef[m].disp, mdef[m].uniq,
                                     m == M_VISITS ? "INTEGER" : "FLOAT", mdef[m].uom, "", "",
                                     mdef[m].descr, NULL);
        if (!j->metrics[m])
            return -1;
    }

    snprintf(text, sizeof text, "LinkTest ping-pong test of every pair of ranks (mode \"%s\")",
             h->mode);
    cube_region *top = cube_def_region(c, "linktest", -1, -1, "", text, "LinkTest");
    if (!top || !(j->root = cube_def_cnode(c, top, NULL)))
        return -1;
    for (size_t p = 0; p < j->n; p++) {
        char name[64];
        snprintf(name, sizeof name, "rank %zu", p);
        snprintf(text, sizeof text, "partner rank %zu on host %s, core %d", p,
                 cube_linktest_hostname(lt, p), (int)cube_linktest_core_id(lt, p));
        cube_region *reg = cube_def_region(c, name, -1, -1, "", text, "");
        if (!reg || !(j->partner[p] = cube_def_cnode(c, reg, j->root)))
            return -1;
    }

    size_t *host_of = NULL, *first = NULL, nh = 0;
    if (linktest_group_hosts(lt, &host_of, &first, &nh) != 0)
        return -1;
    cube_node **nodes = malloc((nh ? nh : 1) * sizeof *nodes);
    int rc = nodes ? 0 : -1;
    cube_machine *mach = rc == 0 ? cube_def_mach(c, "LinkTest", "the ranks of the run") : NULL;
    for (size_t k = 0; mach && k < nh && rc == 0; k++)
        if (!(nodes[k] = cube_def_node(c, cube_linktest_hostname(lt, first[k]), mach)))
            rc = -1;
    for (size_t r = 0; mach && r < j->n && rc == 0; r++) {
        char name[64];
        snprintf(name, sizeof name, "rank %zu", r);
        cube_process *proc = cube_def_proc(c, name, (int)r, nodes[host_of[r]]);
        if (!proc || !cube_def_thrd(c, name, 0, proc))
            rc = -1;
    }
    free(nodes);
    free(host_of);
    free(first);
    return mach ? rc : -1;
}

int cube_linktest_write_cube(cube_linktest *lt, const char *path, unsigned flags)
{
    cube_status *st = linktest_status(lt);
    status_ok(st);
    if (!path) {
        status_set(st, CUBE_EINVAL, "cube_linktest_write_cube: no path");
        return -1;
    }
    export_job j;
    memset(&j, 0, sizeof j);
    j.lt = lt;
    j.n = cube_linktest_num_ranks(lt);
    j.iterations = cube_linktest_num_permutations(lt);
    j.message_size = (double)cube_linktest_get_header(lt)->message_size;
    j.messages = (double)cube_linktest_get_header(lt)->num_messages;
    if (j.iterations && !cube_linktest_get_permutation(lt, 0)->times) {
        status_set(st, CUBE_EINVAL, "%s: the run was opened without its matrices", path);
        return -1;
    }
    if (j.n > (size_t)0x7fffffff) {
        status_set(st, CUBE_EUNSUPPORTED, "%s: %zu ranks are more than CUBE can number", path, j.n);
        return -1;
    }
    cube_t *c = cube_create();
    j.partner = malloc((j.n ? j.n : 1) * sizeof *j.partner);
    j.values = malloc((j.n ? j.n : 1) * sizeof *j.values);
    int rc = -1;
    if (!c || !j.partner || !j.values)
        status_set(st, CUBE_ENOMEM, "%s: out of memory", path);
    else if (define(c, &j) != 0)
        status_set(st, *cube_error(c) ? cube_error_code(c) : CUBE_ENOMEM, "%s: %s", path,
                   *cube_error(c) ? cube_error(c) : "out of memory");
    else if (cube_write_file_rows(c, path, flags, next_row, &j) != 0)
        status_set(st, cube_error_code(c), "%s", cube_error(c));
    else
        rc = 0;
    free(j.partner);
    free(j.values);
    cube_free(c);
    return rc;
}
