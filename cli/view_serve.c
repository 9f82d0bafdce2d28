/*
 * view_serve.c - cube_view --serve: the page (without values) and the
 * values of one pane at a time, over HTTP on 127.0.0.1 (libmicrohttpd).
 *
 * Requests (every one must carry ?token=TOKEN, else 403):
 *   GET /               the page
 *   GET /api/pane?pane=P&order=..&msel=..&csel=..&fsel=..&ssel=..
 *                       {"pane": P, "incl": [..], "excl": [..]} (flat: "sub" too),
 *                       absolute values, null where there is no value
 * 404 for any other path, 405 for a method other than GET and HEAD, 400
 * with {"error": "..."} for a bad parameter.
 *
 * The experiment is read once.  Values come from libcube's views, per
 * thread: one view per (metric, metric flavour, call flavour), kept as a
 * column per thread, one flat profile, one row of totals and the sums
 * over all threads per (metric, metric flavour), and for a metric whose
 * values over all threads are not its threads' values combined (RATE,
 * COMPLEX, ...) the aggregated views' values and flat profile, all
 * computed before the URL is printed (precompute), so that no query
 * waits for a view and queries only read them.  The daemon runs one thread of its own that
 * answers the requests one after the other, so the cache of answers
 * needs no lock; a large answer is split over short-lived threads that
 * only read.  The main thread waits for SIGINT or SIGTERM, then stops the
 * daemon and frees everything.
 */
#include "view_serve.h"

#include "cli_common.h"
#include "cube_views.h"
#include "view_number.h"
#include "view_page.h"

#include <arpa/inet.h>
#include <errno.h>
#include <float.h>
#include <fcntl.h>
#include <math.h>
#include <microhttpd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { DIM_METRIC, DIM_CALL, DIM_SYSTEM };
enum { WORKERS_MAX = 8 };

/* The JSON text of an answer, shared by the cache of answers and the
 * responses that send it (an answer of a large call tree is megabytes):
 * freed when the last of them lets it go.  Only the daemon's thread
 * takes and lets go of answers, so the count needs no lock. */
typedef struct {
    size_t refs;
    size_t len;
    char text[];
} shared_answer;

static void answer_release(void *cls)
{
    shared_answer *a = cls;
    if (a && --a->refs == 0)
        free(a);
}

/* The last answers, by their query: a page asks again for what it showed
 * before (a selection clicked back), and the answer of a large call tree
 * takes longer to format than to compute.  Bounded in count and bytes. */
enum { ANSWERS_MAX = 8 };
#define ANSWER_BYTES_MAX ((size_t)64 * 1024 * 1024)
typedef struct {
    char *key[ANSWERS_MAX];
    shared_answer *body[ANSWERS_MAX];
    size_t len[ANSWERS_MAX];
    unsigned long long used[ANSWERS_MAX]; /* when last used (0: empty) */
    unsigned long long clock;
    size_t bytes;
} answer_cache;
static const char *const dim_names[] = {"metric", "call", "system"};

/* A view's values per thread, column by column: the values of thread t
 * are col[t * nc .. t * nc + nc), one per call path, so that the values
 * of a few selected threads are a few stretches of memory read from the
 * start to the end (a view's rows lie apart, and a row is read whole
 * for one value).  has[i]: the view has a row for call path i (where not,
 * the columns hold cube_combine_neutral). */
typedef struct {
    double *col;
    unsigned char *has;
} thread_columns;

/* What is kept of one metric, computed before the first query. */
typedef struct {
    thread_columns cols[2][2]; /* [metric flavour][0: call-inclusive, 1: call-exclusive] */
    cube_flat *flat[2];        /* from the call-exclusive view */
    double *total[2];          /* per thread, over all call paths */
    double *agg[2][2];         /* per call path over all threads, as cols[][] */
    unsigned char failed[2];   /* no view of this metric flavour (derived) */
    unsigned char same;        /* no child metrics: flavour 1 is flavour 0 (kept once) */
    /* A metric whose values over all threads are not its threads' values
     * combined (cube_metric_combines_numbers: COMPLEX, RATE, TAU_ATOMIC,
     * narrow integers): of its aggregated views, what the call tree and
     * the flat view show with no system selection on their left (cube_dump
     * -t aggr), as agg[][] and flat[]; NULL for every other metric. */
    unsigned char apart;
    double *all[2][2];      /* per call path, the aggregated view's values */
    cube_flat *all_flat[2]; /* from the aggregated call-exclusive view */
} metric_cache;

typedef struct {
    const cube_t *c;
    const char *page;
    size_t page_len;
    char token[33];
    size_t nm, nc, nr, nt;
    view_system_item *sys;
    size_t nsys;
    metric_cache *cache;
    double *tree[2]; /* the metric tree's values when it is the leftmost tree */
    int tree_failed;
    answer_cache answers;
    size_t ways; /* threads that share the work: the processors, at most WORKERS_MAX */
} server;

/* ------------------------------------------------------------------------
 * The caches.
 * ------------------------------------------------------------------------ */

/* What is kept of metric m in flavour mflav, for the queries, which only
 * read it; NULL where the metric has no values in that flavour
 * (derived). */
static const metric_cache *kept(const server *s, size_t m, int *mflav)
{
    const metric_cache *mc = &s->cache[m];
    *mflav = mc->same ? 0 : *mflav;
    return mc->failed[*mflav] ? NULL : mc;
}

static const thread_columns *get_cols(const server *s, size_t m, int mflav, int excl)
{
    const metric_cache *mc = kept(s, m, &mflav);
    return mc ? &mc->cols[mflav][excl] : NULL;
}

static const cube_flat *get_flat(const server *s, size_t m, int mflav)
{
    const metric_cache *mc = kept(s, m, &mflav);
    return mc ? mc->flat[mflav] : NULL;
}

/* Per thread, over all call paths. */
static const double *get_total(const server *s, size_t m, int mflav)
{
    const metric_cache *mc = kept(s, m, &mflav);
    return mc ? mc->total[mflav] : NULL;
}

/* Per call path, the values combined over all threads
 * (cube_combine_neutral where the view has no row). */
static const double *get_agg(const server *s, size_t m, int mflav, int excl)
{
    const metric_cache *mc = kept(s, m, &mflav);
    return mc ? mc->agg[mflav][excl] : NULL;
}

/* What a query needs of view v (metric m, flavour f, along the call tree
 * exclusive or not) into the cache: its columns, the sums over all
 * threads, and of the call-exclusive view the flat profile and totals.
 * The view itself is freed afterwards: the columns are its values.  0,
 * or -1 when out of memory. */
static int keep_view(server *s, size_t m, int f, int excl, const cube_view *v)
{
    metric_cache *mc = &s->cache[m];
    size_t nc = s->nc, nt = s->nt;
    cube_combine_rule how = cube_metric_combine(cube_get_metric(s->c, m));
    double neutral = cube_combine_neutral(how);
    if (nc && nt > SIZE_MAX / sizeof(double) / nc - 1)
        return -1;
    thread_columns *tc = &mc->cols[f][excl];
    tc->col = malloc((nt * nc + 1) * sizeof *tc->col);
    tc->has = malloc(nc + 1);
    double *agg = mc->agg[f][excl] = malloc((nc + 1) * sizeof *agg);
    if (!tc->col || !tc->has || !agg)
        return -1;
    const double *const *rows = cube_view_rows(v);
    for (size_t i = 0; i < nc; i++) {
        const double *row = rows[i];
        tc->has[i] = row != NULL;
        agg[i] = row ? cube_combine_values(how, row, nt) : neutral;
        for (size_t t = 0; t < nt; t++)
            tc->col[t * nc + i] = row ? row[t] : neutral;
    }
    if (!excl)
        return 0;
    cube_status st;
    if (!(mc->flat[f] = cube_flat_create(v, &st)) ||
        !(mc->total[f] = malloc((nt + 1) * sizeof *mc->total[f])))
        return -1;
    return cube_view_total(v, mc->total[f], &st);
}

/* What a query needs of the aggregated view v of a metric that is apart
 * (metric m, flavour f, along the call tree exclusive or not): its value
 * per call path, and of the call-exclusive view the flat profile.  The
 * view itself is freed afterwards.  0, or -1 when out of memory. */
static int keep_all_view(server *s, size_t m, int f, int excl, const cube_view *v)
{
    metric_cache *mc = &s->cache[m];
    double *a = mc->all[f][excl] = malloc((s->nc + 1) * sizeof *a);
    if (!a)
        return -1;
    for (size_t i = 0; i < s->nc; i++)
        a[i] = cube_view_value(v, cube_get_cnode(s->c, i), 0);
    cube_status st;
    if (excl && !(mc->all_flat[f] = cube_flat_create(v, &st)))
        return -1;
    return 0;
}

/* The flat profile over all threads: of the aggregated view of a metric
 * that is apart, else the per-thread one (whose rows the caller
 * combines). */
static const cube_flat *get_all_flat(const server *s, size_t m, int mflav)
{
    const metric_cache *mc = kept(s, m, &mflav);
    return !mc ? NULL : mc->apart ? mc->all_flat[mflav] : mc->flat[mflav];
}

/* Per call path, the value over all threads that the call tree shows
 * with no system selection on its left: the threads' values combined
 * (get_agg), or the aggregated view's for a metric that is apart. */
static const double *get_all(const server *s, size_t m, int mflav, int excl)
{
    const metric_cache *mc = kept(s, m, &mflav);
    return !mc ? NULL : mc->apart ? mc->all[mflav][excl] : mc->agg[mflav][excl];
}

/* Everything a query can need, computed before the first one: the views
 * of every metric in both flavours along both trees, kept as columns,
 * their flat profiles, totals and sums over all threads.  Each (metric,
 * metric flavour) is a job of its own that fills only its own part of
 * the cache, and the experiment is only read (const cube_t), so the jobs
 * run on s->ways threads; the daemon starts when they are all done. */
typedef struct {
    server *s;
    pthread_mutex_t lock;
    size_t next;  /* the next job: metric next / 2, flavour next % 2 */
    int short_of_memory;
} precompute_jobs;

static void *precompute_worker(void *arg)
{
    precompute_jobs *jobs = arg;
    server *s = jobs->s;
    for (;;) {
        pthread_mutex_lock(&jobs->lock);
        size_t job = jobs->next++;
        pthread_mutex_unlock(&jobs->lock);
        if (job >= 2 * s->nm)
            return NULL;
        size_t m = job / 2;
        int f = (int)(job % 2), oom = 0;
        if (f && s->cache[m].same)
            continue;
        /* the views per thread, then, for a metric that is apart, the
         * aggregated ones */
        int passes = s->cache[m].apart ? 4 : 2;
        for (int pass = 0; pass < passes && !oom; pass++) {
            int excl = pass % 2;
            unsigned flags = pass < 2 ? 0 : CUBE_VIEW_AGGREGATE;
            cube_status st;
            cube_view *v = cube_view_compute(
                s->c, cube_get_metric(s->c, m), f ? CUBE_METRIC_EXCLUSIVE : CUBE_METRIC_INCLUSIVE,
                excl ? CUBE_CALL_EXCLUSIVE : CUBE_CALL_INCLUSIVE, flags, &st);
            if (!v) {
                oom = st.code == CUBE_ENOMEM;
                s->cache[m].failed[f] = 1; /* derived: no values */
                break;
            }
            oom = (flags ? keep_all_view(s, m, f, excl, v) : keep_view(s, m, f, excl, v)) != 0;
            cube_view_free(v);
        }
        if (oom) {
            pthread_mutex_lock(&jobs->lock);
            jobs->short_of_memory = 1;
            pthread_mutex_unlock(&jobs->lock);
        }
    }
}

/* 0, or -1 when out of memory. */
static int precompute(server *s)
{
    for (size_t m = 0; m < s->nm; m++) {
        const cube_metric *met = cube_get_metric(s->c, m);
        s->cache[m].same = cube_metric_num_children(met) == 0;
        s->cache[m].apart = !cube_metric_combines_numbers(met);
    }
    precompute_jobs jobs = {s, PTHREAD_MUTEX_INITIALIZER, 0, 0};
    pthread_t worker[WORKERS_MAX];
    size_t want = s->ways, started = 0;
    if (want > 2 * s->nm)
        want = 2 * s->nm;
    /* this thread is one of them; one that cannot be started leaves its
     * jobs to the others */
    while (started + 1 < want && pthread_create(&worker[started], NULL, precompute_worker, &jobs) == 0)
        started++;
    precompute_worker(&jobs);
    for (size_t i = 0; i < started; i++)
        pthread_join(worker[i], NULL);
    pthread_mutex_destroy(&jobs.lock);
    if (jobs.short_of_memory)
        return -1;
#if defined(__GLIBC__)
    /* the views' rows, freed in the workers' arenas, back to the system:
     * else they stay in the server's resident memory as long as it runs */
    malloc_trim(0);
#endif
    return 0;
}

static void free_caches(server *s)
{
    for (size_t m = 0; s->cache && m < s->nm; m++) {
        for (int f = 0; f < 2; f++) {
            for (int excl = 0; excl < 2; excl++) {
                free(s->cache[m].cols[f][excl].col);
                free(s->cache[m].cols[f][excl].has);
                free(s->cache[m].agg[f][excl]);
            }
            cube_flat_free(s->cache[m].flat[f]);
            free(s->cache[m].total[f]);
            for (int excl = 0; excl < 2; excl++)
                free(s->cache[m].all[f][excl]);
            cube_flat_free(s->cache[m].all_flat[f]);
        }
    }
    free(s->cache);
    free(s->tree[0]);
    free(s->tree[1]);
    free(s->sys);
    for (size_t i = 0; i < ANSWERS_MAX; i++) {
        free(s->answers.key[i]);
        answer_release(s->answers.body[i]);
    }
}

/* The cached answer to `key`, one more reference taken, or NULL. */
static shared_answer *answer_lookup(answer_cache *a, const char *key)
{
    for (size_t i = 0; i < ANSWERS_MAX; i++) {
        if (a->key[i] && strcmp(a->key[i], key) == 0) {
            a->used[i] = ++a->clock;
            a->body[i]->refs++;
            return a->body[i];
        }
    }
    return NULL;
}

/* Keep an answer (one more reference), dropping the least recently used
 * ones to stay within the bounds; nothing when it does not fit or memory
 * is short. */
static void answer_store(answer_cache *a, const char *key, shared_answer *body)
{
    size_t len = body->len;
    if (len > ANSWER_BYTES_MAX / 2)
        return;
    for (;;) {
        size_t free_slot = ANSWERS_MAX, oldest = ANSWERS_MAX;
        for (size_t i = 0; i < ANSWERS_MAX; i++) {
            if (!a->key[i])
                free_slot = i;
            else if (oldest == ANSWERS_MAX || a->used[i] < a->used[oldest])
                oldest = i;
        }
        if (free_slot < ANSWERS_MAX && a->bytes + len <= ANSWER_BYTES_MAX) {
            char *k = strdup(key);
            if (!k)
                return;
            body->refs++;
            a->key[free_slot] = k;
            a->body[free_slot] = body;
            a->len[free_slot] = len;
            a->used[free_slot] = ++a->clock;
            a->bytes += len;
            return;
        }
        a->bytes -= a->len[oldest];
        free(a->key[oldest]);
        answer_release(a->body[oldest]);
        a->key[oldest] = NULL;
        a->body[oldest] = NULL;
        a->used[oldest] = 0;
    }
}

/* ------------------------------------------------------------------------
 * Queries.
 * ------------------------------------------------------------------------ */

/* The parts of a flat-profile node, by the index used here and on the
 * wire (i, e, s). */
static const cube_flat_part flat_parts[] = {CUBE_FLAT_INCLUSIVE, CUBE_FLAT_EXCLUSIVE,
                                            CUBE_FLAT_SUBROUTINES};

typedef struct {
    size_t id;
    int part; /* 0 collapsed (inclusive), 1 expanded (exclusive); flat: 0 incl, 1 excl, 2 sub */
} selection;

typedef struct {
    int dim_of_pane; /* DIM_* of the pane asked for */
    int flat;        /* the flat profile instead of the call tree */
    int pos[3];      /* position of each dimension in the order */
    selection *sel[3];
    size_t nsel[3];
    int flat_sel;    /* the call selection is of the flat profile (fsel) */
    char *key;       /* the parameters that decide the answer, for the cache */
    char error[200];
} query;

static void query_free(query *q)
{
    for (int d = 0; d < 3; d++)
        free(q->sel[d]);
    free(q->key);
}

/* Is dimension d left of the pane asked for? */
static int left_of_pane(const query *q, int d)
{
    return q->pos[d] < q->pos[q->dim_of_pane];
}

static int parse_order(query *q, const char *arg)
{
    int seen = 0;
    const char *p = arg;
    for (int k = 0; k < 3; k++) {
        size_t len = strcspn(p, ",");
        int d = 0;
        while (d < 3 && !(strlen(dim_names[d]) == len && strncmp(p, dim_names[d], len) == 0))
            d++;
        if (d == 3 || (seen & (1 << d)) || (k < 2 && p[len] != ',') || (k == 2 && p[len]))
            return -1;
        seen |= 1 << d;
        q->pos[d] = k;
        p += len + (k < 2);
    }
    return 0;
}

/* A selection list "ID[:e],..." (flat: "REGION:i|e|s,...") with ids below
 * `limit`, no id (flat: no region and part) twice. */
static int parse_selection(query *q, int d, const char *name, const char *arg, size_t limit,
                           int flat)
{
    size_t n = 1;
    for (const char *p = arg; *p; p++)
        n += *p == ',';
    if (n > 3 * limit + 1) {
        snprintf(q->error, sizeof q->error, "%s: more selections than nodes", name);
        return -1;
    }
    selection *sel = calloc(n, sizeof *sel);
    unsigned char *seen = calloc(limit + 1, 1);
    if (!sel || !seen) {
        free(sel);
        free(seen);
        snprintf(q->error, sizeof q->error, "out of memory");
        return -1;
    }
    const char *p = arg;
    size_t k = 0;
    for (;;) {
        const char *start = p;
        size_t id = 0;
        int digits = 0, part = 0, bad = 0;
        while (*p >= '0' && *p <= '9') {
            if (id > (SIZE_MAX - 9) / 10)
                bad = 1;
            else
                id = id * 10 + (size_t)(*p - '0');
            p++;
            digits++;
        }
        if (!digits || bad) {
            snprintf(q->error, sizeof q->error, "%s: expected a number at '%.20s'", name, start);
            goto fail;
        }
        if (flat) {
            if (p[0] != ':' || !p[1] || !strchr("ies", p[1])) {
                snprintf(q->error, sizeof q->error, "%s: expected REGION:i, :e or :s at '%.20s'",
                         name, start);
                goto fail;
            }
            part = p[1] == 'i' ? 0 : p[1] == 'e' ? 1 : 2;
            p += 2;
        } else if (p[0] == ':') {
            if (p[1] != 'e') {
                snprintf(q->error, sizeof q->error, "%s: expected ID or ID:e at '%.20s'", name,
                         start);
                goto fail;
            }
            part = 1;
            p += 2;
        }
        if (id >= limit) {
            snprintf(q->error, sizeof q->error, "%s: %zu is out of range (%zu %s)", name, id,
                     limit, flat ? "regions" : "nodes");
            goto fail;
        }
        unsigned char bit = (unsigned char)(flat ? 1u << part : 1u);
        if (seen[id] & bit) {
            snprintf(q->error, sizeof q->error, "%s: %zu is given twice", name, id);
            goto fail;
        }
        seen[id] |= bit;
        sel[k++] = (selection){id, part};
        if (!*p)
            break;
        if (*p != ',' || !p[1]) {
            snprintf(q->error, sizeof q->error, "%s: expected ',' and another id at '%.20s'",
                     name, p);
            goto fail;
        }
        p++;
    }
    free(seen);
    q->sel[d] = sel;
    q->nsel[d] = k;
    return 0;
fail:
    free(seen);
    free(sel);
    return -1;
}

typedef struct {
    const char *name;
    const char *value;
    int count;
} param;

/* Collect the known parameters; an unknown or repeated one is an error. */
static enum MHD_Result collect_param(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
    (void)kind;
    param *ps = cls;
    for (size_t i = 0; ps[i].name; i++) {
        if (strcmp(ps[i].name, key) == 0) {
            ps[i].count++;
            ps[i].value = value ? value : "";
            return MHD_YES;
        }
    }
    /* an unknown parameter: counted in the sentinel */
    size_t i = 0;
    while (ps[i].name)
        i++;
    ps[i].count++;
    ps[i].value = key;
    return MHD_YES;
}

enum { P_TOKEN, P_PANE, P_ORDER, P_MSEL, P_CSEL, P_FSEL, P_SSEL, P_UNKNOWN };

/* Parse the query of /api/pane.  0, or -1 with q->error. */
static int parse_query(server *s, struct MHD_Connection *conn, query *q)
{
    param ps[] = {{"token", NULL, 0}, {"pane", NULL, 0}, {"order", NULL, 0},
                  {"msel", NULL, 0},  {"csel", NULL, 0}, {"fsel", NULL, 0},
                  {"ssel", NULL, 0},  {NULL, NULL, 0}};
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_param, ps);
    if (ps[P_UNKNOWN].count) {
        snprintf(q->error, sizeof q->error, "unknown parameter '%.40s'", ps[P_UNKNOWN].value);
        return -1;
    }
    for (int i = 0; i < P_UNKNOWN; i++) {
        if (ps[i].count > 1) {
            snprintf(q->error, sizeof q->error, "%s: given more than once", ps[i].name);
            return -1;
        }
    }
    size_t key_len = 8;
    for (int i = P_PANE; i < P_UNKNOWN; i++)
        key_len += (ps[i].value ? strlen(ps[i].value) : 0) + 2;
    if (!(q->key = malloc(key_len))) {
        snprintf(q->error, sizeof q->error, "out of memory");
        return -1;
    }
    q->key[0] = '\0';
    for (int i = P_PANE; i < P_UNKNOWN; i++) {
        strcat(q->key, ps[i].value ? ps[i].value : "");
        strcat(q->key, "&");
    }
    const char *pane = ps[P_PANE].value;
    if (!pane) {
        snprintf(q->error, sizeof q->error, "pane: missing (metric, call, flat or system)");
        return -1;
    }
    if (strcmp(pane, "metric") == 0)
        q->dim_of_pane = DIM_METRIC;
    else if (strcmp(pane, "call") == 0)
        q->dim_of_pane = DIM_CALL;
    else if (strcmp(pane, "flat") == 0) {
        q->dim_of_pane = DIM_CALL;
        q->flat = 1;
    } else if (strcmp(pane, "system") == 0)
        q->dim_of_pane = DIM_SYSTEM;
    else {
        snprintf(q->error, sizeof q->error,
                 "pane: expected metric, call, flat or system, not '%.40s'", pane);
        return -1;
    }
    q->pos[DIM_METRIC] = 0;
    q->pos[DIM_CALL] = 1;
    q->pos[DIM_SYSTEM] = 2;
    if (ps[P_ORDER].value && parse_order(q, ps[P_ORDER].value) != 0) {
        snprintf(q->error, sizeof q->error,
                 "order: expected metric, call and system in some order, comma-separated");
        return -1;
    }
    if (ps[P_CSEL].value && ps[P_FSEL].value) {
        snprintf(q->error, sizeof q->error, "csel, fsel: the call pane has one selection");
        return -1;
    }
    struct {
        int p, d, flat;
        size_t limit;
    } sels[] = {{P_MSEL, DIM_METRIC, 0, s->nm},
                {P_CSEL, DIM_CALL, 0, s->nc},
                {P_FSEL, DIM_CALL, 1, s->nr},
                {P_SSEL, DIM_SYSTEM, 0, s->nsys}};
    for (size_t i = 0; i < 4; i++) {
        const char *v = ps[sels[i].p].value, *name = ps[sels[i].p].name;
        if (!v)
            continue;
        if (!left_of_pane(q, sels[i].d)) {
            snprintf(q->error, sizeof q->error, "%s: the %s pane is not left of the %s pane",
                     name, dim_names[sels[i].d], pane);
            return -1;
        }
        if (parse_selection(q, sels[i].d, name, v, sels[i].limit, sels[i].flat) != 0)
            return -1;
        q->flat_sel = q->flat_sel || sels[i].flat;
    }
    for (int d = 0; d < 3; d++) {
        if (left_of_pane(q, d) && !q->sel[d]) {
            snprintf(q->error, sizeof q->error, "%s: the %s pane is left of the %s pane: give its selection",
                     d == DIM_METRIC ? "msel" : d == DIM_CALL ? "csel" : "ssel", dim_names[d], pane);
            return -1;
        }
    }
    return 0;
}

/* The value of "no value" as NaN: a maximum or minimum nothing reached. */
static double defined(cube_combine_rule how, double v)
{
    return how != CUBE_COMBINE_SUM && v == cube_combine_neutral(how) ? NAN : v;
}

static double combine2(cube_combine_rule how, double a, double b)
{
    switch (how) {
    case CUBE_COMBINE_MAX: return a > b ? a : b;
    case CUBE_COMBINE_MIN: return a < b ? a : b;
    default: return a + b;
    }
}

/* Per thread, metric m (flavour mflav) over the call selection, or over
 * every call path when the call pane is not left of the pane asked for:
 * into out[nt].  -1 when the metric has no values (derived). */
static int over_calls(server *s, const query *q, size_t m, int mflav, double *out)
{
    cube_combine_rule how = cube_metric_combine(cube_get_metric(s->c, m));
    if (!left_of_pane(q, DIM_CALL)) {
        const double *t = get_total(s, m, mflav);
        if (!t)
            return -1;
        memcpy(out, t, s->nt * sizeof *out);
        return 0;
    }
    double neutral = cube_combine_neutral(how);
    for (size_t t = 0; t < s->nt; t++)
        out[t] = neutral;
    if (q->flat_sel) {
        const cube_flat *f = get_flat(s, m, mflav);
        if (!f)
            return -1;
        for (size_t k = 0; k < q->nsel[DIM_CALL]; k++) {
            const selection *sel = &q->sel[DIM_CALL][k];
            const double *row =
                cube_flat_row(f, cube_get_region(s->c, sel->id), flat_parts[sel->part]);
            for (size_t t = 0; row && t < s->nt; t++)
                out[t] = combine2(how, out[t], row[t]);
        }
        return 0;
    }
    /* along each thread's columns: the selected call paths' values in
     * the order of the selection */
    const thread_columns *tc[2] = {get_cols(s, m, mflav, 0), get_cols(s, m, mflav, 1)};
    if (!tc[0] || !tc[1])
        return -1;
    for (size_t t = 0; t < s->nt; t++) {
        double acc = out[t];
        for (size_t k = 0; k < q->nsel[DIM_CALL]; k++) {
            const selection *sel = &q->sel[DIM_CALL][k];
            if (tc[sel->part]->has[sel->id])
                acc = combine2(how, acc, tc[sel->part]->col[t * s->nc + sel->id]);
        }
        out[t] = acc;
    }
    return 0;
}

/* Metric m (flavour mflav), which is apart (metric_cache), over the call
 * selection and all threads: each selected call path's (region part's)
 * value over all threads as the call tree (flat view) shows it, added up
 * (such metrics combine by sum).  NaN when the metric has no values. */
static double over_calls_all(server *s, const query *q, size_t m, int mflav)
{
    double acc = 0;
    for (size_t k = 0; k < q->nsel[DIM_CALL]; k++) {
        const selection *sel = &q->sel[DIM_CALL][k];
        if (q->flat_sel) {
            const cube_flat *f = get_all_flat(s, m, mflav);
            if (!f)
                return NAN;
            acc += cube_flat_value(f, cube_get_region(s->c, sel->id), flat_parts[sel->part], 0);
        } else {
            const double *a = get_all(s, m, mflav, sel->part);
            if (!a)
                return NAN;
            acc += a[sel->id];
        }
    }
    return acc;
}

/* The threads' values `vec` combined over the system selection, or over
 * every thread when the system pane is not left of the pane asked for.
 * sums: the values per process, node and machine (cube_system_combine),
 * filled by the caller when the selection holds one; or, where the
 * selection allows, the threads of each selected item (the plan). */
typedef struct {
    double *process, *node, *machine;
    /* the plan: item k of the system selection combines the threads
     * threads[start[k] .. start[k + 1]) in this order; NULL: none */
    size_t *threads, *start;
    double *gather; /* room for the values of one item's threads, or of a row */
    /* per selected item: it is every thread in index order, whose value
     * the sums over all threads hold (combined in the same order) */
    unsigned char *whole;
    int any_whole;
    int all; /* the selection is one such item */
} system_sums;

/* The thread indexes of a thread, process, node (without nested nodes) or
 * machine (whose nodes have none), in the order cube_system_combine adds
 * them, into out (when not NULL); their number. */
static size_t item_threads(const view_system_item *it, size_t *out)
{
    if (it->kind == VIEW_THREAD) {
        if (out)
            out[0] = it->index;
        return 1;
    }
    const cube_node *node = it->kind == VIEW_NODE ? it->entity : NULL;
    size_t nodes = it->kind == VIEW_MACHINE ? cube_machine_num_nodes(it->entity) : 1, at = 0;
    for (size_t n = 0; n < nodes; n++) {
        if (it->kind == VIEW_MACHINE)
            node = cube_machine_node(it->entity, n);
        size_t procs = node ? cube_node_num_processes(node) : 1;
        for (size_t pi = 0; pi < procs; pi++) {
            const cube_process *pr = node ? cube_node_process(node, pi) : it->entity;
            for (size_t t = 0; t < cube_process_num_threads(pr); t++, at++)
                if (out)
                    out[at] = cube_thread_index(cube_process_thread(pr, t));
        }
    }
    return at;
}

/* The plan of the system selection, when it has a process, node or
 * machine: each selected item as the list of its threads, in the order
 * cube_system_combine adds them, so that cube_combine_values over them
 * gives the same value, with no work for the items not selected (this
 * runs for every row of a call pane right of the system pane).  A node
 * holds its processes' threads; a machine the threads of its nodes in
 * their order.  Nodes nested in nodes (CUBE 4) combine their children's
 * results, which no list of threads repeats: no plan then.  0, or -1 when
 * out of memory. */
static int plan_system(server *s, const query *q, system_sums *sums)
{
    if (!left_of_pane(q, DIM_SYSTEM))
        return 0;
    size_t nsel = q->nsel[DIM_SYSTEM], total = 0;
    int any_group = 0;
    for (size_t k = 0; k < nsel; k++) {
        const view_system_item *it = &s->sys[q->sel[DIM_SYSTEM][k].id];
        any_group |= it->kind != VIEW_THREAD;
        if (it->kind == VIEW_NODE && cube_node_num_children(it->entity))
            return 0;
        if (it->kind == VIEW_MACHINE)
            for (size_t n = 0; n < cube_machine_num_nodes(it->entity); n++)
                if (cube_node_num_children(cube_machine_node(it->entity, n)))
                    return 0;
        total += item_threads(it, NULL);
    }
    if (!any_group)
        return 0;
    sums->threads = malloc((total + 1) * sizeof *sums->threads);
    sums->start = malloc((nsel + 1) * sizeof *sums->start);
    sums->whole = calloc(nsel + 1, 1);
    if (!sums->threads || !sums->start || !sums->whole)
        return -1;
    size_t at = 0;
    for (size_t k = 0; k < nsel; k++) {
        sums->start[k] = at;
        at += item_threads(&s->sys[q->sel[DIM_SYSTEM][k].id], sums->threads + at);
    }
    sums->start[nsel] = at;
    /* the whole system (one machine, as usual) */
    for (size_t k = 0; k < nsel; k++) {
        int whole = !q->sel[DIM_SYSTEM][k].part && sums->start[k + 1] - sums->start[k] == s->nt;
        for (size_t t = 0; whole && t < s->nt; t++)
            whole = sums->threads[sums->start[k] + t] == t;
        sums->whole[k] = (unsigned char)whole;
        sums->any_whole |= whole;
    }
    sums->all = nsel == 1 && sums->whole[0];
    return 0;
}

static double over_system(server *s, const query *q, cube_combine_rule how, const double *vec,
                          system_sums *sums, double whole)
{
    if (!left_of_pane(q, DIM_SYSTEM))
        return cube_combine_values(how, vec, s->nt);
    if (sums->threads) {
        double acc = cube_combine_neutral(how);
        for (size_t k = 0; k < q->nsel[DIM_SYSTEM]; k++) {
            if (q->sel[DIM_SYSTEM][k].part && s->sys[q->sel[DIM_SYSTEM][k].id].kind != VIEW_THREAD)
                return NAN; /* as below */
            if (sums->whole[k] && !isnan(whole)) {
                acc = combine2(how, acc, whole);
                continue;
            }
            size_t n = 0;
            for (size_t j = sums->start[k]; j < sums->start[k + 1]; j++)
                sums->gather[n++] = vec[sums->threads[j]];
            acc = combine2(how, acc, cube_combine_values(how, sums->gather, n));
        }
        return acc;
    }
    /* only the kinds selected are combined: this runs for every row of
     * a call pane right of the system pane */
    int need[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < q->nsel[DIM_SYSTEM]; k++)
        need[s->sys[q->sel[DIM_SYSTEM][k].id].kind] = 1;
    cube_status st;
    if ((need[VIEW_PROCESS] || need[VIEW_NODE] || need[VIEW_MACHINE]) &&
        cube_system_combine(s->c, how, vec, need[VIEW_PROCESS] ? sums->process : NULL,
                            need[VIEW_NODE] ? sums->node : NULL,
                            need[VIEW_MACHINE] ? sums->machine : NULL, NULL, &st) != 0)
        return NAN;
    double acc = cube_combine_neutral(how);
    for (size_t k = 0; k < q->nsel[DIM_SYSTEM]; k++) {
        const selection *sel = &q->sel[DIM_SYSTEM][k];
        const view_system_item *it = &s->sys[sel->id];
        double v;
        if (it->kind == VIEW_THREAD)
            v = vec[it->index];
        else if (sel->part) /* an expanded machine, node or process has no value of its own */
            return NAN;
        else
            v = it->kind == VIEW_PROCESS ? sums->process[it->index]
                : it->kind == VIEW_NODE  ? sums->node[it->index]
                                         : sums->machine[it->index];
        acc = combine2(how, acc, v);
    }
    return acc;
}

/* The answer's arrays: n values each of incl, excl (and sub). */
typedef struct {
    double *a[3];
    size_t n;
    int parts;
} answer;

/* How the selected metrics combine: by their common rule (the largest of
 * several MAXDOUBLE metrics), else by sum. */
static cube_combine_rule selection_rule(const server *s, const query *q)
{
    cube_combine_rule how = CUBE_COMBINE_SUM;
    for (size_t k = 0; k < q->nsel[DIM_METRIC]; k++) {
        cube_combine_rule r = cube_metric_combine(cube_get_metric(s->c, q->sel[DIM_METRIC][k].id));
        if (k && r != how)
            return CUBE_COMBINE_SUM;
        how = r;
    }
    return how;
}

/* Add one metric's value (NaN: none) into the answer, as the selection
 * combines: in a sum a metric without a value makes the sum none too; a
 * maximum or minimum is taken over the metrics that have one. */
static void add_value(double *acc, int *first, double v, cube_combine_rule how)
{
    if (*first || (how != CUBE_COMBINE_SUM && isnan(*acc)))
        *acc = v;
    else if (how == CUBE_COMBINE_SUM || !isnan(v))
        *acc = combine2(how, *acc, v);
    *first = 0;
}

/* The metric tree's values as the leftmost tree (each metric over
 * everything), both flavours; made before the first request, as the
 * page's first view needs them. */
static void make_tree_values(server *s)
{
    for (int f = 0; f < 2 && !s->tree_failed; f++) {
        cube_status st;
        s->tree[f] = malloc((s->nm + 1) * sizeof *s->tree[f]);
        if (!s->tree[f] ||
            cube_metric_tree_values(s->c, f ? CUBE_METRIC_EXCLUSIVE : CUBE_METRIC_INCLUSIVE,
                                    s->tree[f], &st) != 0)
            s->tree_failed = 1;
    }
}

static int pane_metric(server *s, const query *q, answer *ans, double *vec, system_sums *sums)
{
    if (!left_of_pane(q, DIM_CALL) && !left_of_pane(q, DIM_SYSTEM)) {
        if (s->tree_failed)
            return -1;
        for (size_t m = 0; m < s->nm; m++) {
            cube_combine_rule how = cube_metric_combine(cube_get_metric(s->c, m));
            ans->a[0][m] = defined(how, s->tree[0][m]);
            ans->a[1][m] = defined(how, s->tree[1][m]);
        }
        return 0;
    }
    for (size_t m = 0; m < s->nm; m++) {
        cube_combine_rule how = cube_metric_combine(cube_get_metric(s->c, m));
        for (int f = 0; f < 2; f++) {
            if (s->cache[m].apart && left_of_pane(q, DIM_CALL) && !left_of_pane(q, DIM_SYSTEM))
                ans->a[f][m] = over_calls_all(s, q, m, f);
            else
                ans->a[f][m] = over_calls(s, q, m, f, vec) != 0
                                   ? NAN
                                   : defined(how, over_system(s, q, how, vec, sums, NAN));
        }
    }
    return 0;
}

static void fill(double *a, size_t n, double v)
{
    for (size_t i = 0; i < n; i++)
        a[i] = v;
}

/* ------------------------------------------------------------------------
 * Large answers split over threads: the call tree's rows and the numbers
 * of an answer are independent of each other, and everything they read
 * is finished (views, flat profiles, the experiment) by then.
 * ------------------------------------------------------------------------ */

/* Fewer items than this are done on one thread. */
enum { SPLIT_MIN = 16384 };

typedef void split_fn(void *ctx, size_t from, size_t to, size_t w);
typedef struct {
    split_fn *fn;
    void *ctx;
    size_t from, to, w;
} split_range;

static void *split_run(void *arg)
{
    split_range *r = arg;
    r->fn(r->ctx, r->from, r->to, r->w);
    return NULL;
}

/* How many ranges split() makes of n items. */
static size_t split_ways(const server *s, size_t n)
{
    return n < SPLIT_MIN ? 1 : s->ways;
}

/* fn over [0, n) in `ways` (<= WORKERS_MAX) consecutive ranges, range w
 * on a thread of its own, the first on the calling one, which also runs
 * a range whose thread cannot be started. */
static void split(size_t n, size_t ways, split_fn *fn, void *ctx)
{
    split_range r[WORKERS_MAX];
    pthread_t th[WORKERS_MAX];
    int started[WORKERS_MAX] = {0};
    for (size_t w = 0; w < ways; w++)
        r[w] = (split_range){fn, ctx, n / ways * w + (w < n % ways ? w : n % ways),
                             n / ways * (w + 1) + (w + 1 < n % ways ? w + 1 : n % ways), w};
    for (size_t w = 1; w < ways; w++)
        started[w] = pthread_create(&th[w], NULL, split_run, &r[w]) == 0;
    split_run(&r[0]);
    for (size_t w = 1; w < ways; w++) {
        if (started[w])
            pthread_join(th[w], NULL);
        else
            split_run(&r[w]);
    }
}

/* What the rows of the call pane need, looked up before they are split:
 * per (part p, selected metric k) at [p * nsel + k]. */
typedef struct {
    server *s;
    const query *q;
    answer *ans;
    size_t nsel;
    const thread_columns **cols;
    const cube_flat **flat;
    const double **agg;
    const double **whole; /* the sums over all threads, for whole items of the system selection */
    cube_combine_rule *how; /* per selected metric */
    cube_combine_rule how_sel;
    int *first;
    system_sums *sums; /* per range */
} call_rows;

/* Call paths per block of the column walk: its values stay in the
 * processor's cache while the selected threads' columns stream by. */
enum { BLOCK = 2048 };

/* out[i] combined with c[0][i], then c[1][i], ... c[ncols - 1][i], as
 * combine2 combines, for i < n; a sum four columns at a time. */
static void combine_columns(cube_combine_rule how, double *restrict out, const double *const *c,
                            size_t ncols, size_t n)
{
    size_t k = 0;
    if (how == CUBE_COMBINE_SUM) {
        for (; k + 4 <= ncols; k += 4) {
            const double *restrict c0 = c[k], *restrict c1 = c[k + 1], *restrict c2 = c[k + 2],
                                   *restrict c3 = c[k + 3];
            for (size_t i = 0; i < n; i++)
                out[i] = (((out[i] + c0[i]) + c1[i]) + c2[i]) + c3[i];
        }
        for (; k < ncols; k++) {
            const double *restrict c0 = c[k];
            for (size_t i = 0; i < n; i++)
                out[i] += c0[i];
        }
        return;
    }
    for (; k < ncols; k++) {
        const double *restrict c0 = c[k];
        if (how == CUBE_COMBINE_MAX)
            for (size_t i = 0; i < n; i++)
                out[i] = out[i] > c0[i] ? out[i] : c0[i];
        else
            for (size_t i = 0; i < n; i++)
                out[i] = out[i] < c0[i] ? out[i] : c0[i];
    }
}

/* Columns waiting to be combined into a block, in the order of the
 * selection. */
enum { BATCH_MAX = 16 };
typedef struct {
    const double *c[BATCH_MAX];
    size_t n;
} column_batch;

static void batch_flush(column_batch *b, cube_combine_rule how, double *out, size_t n)
{
    combine_columns(how, out, b->c, b->n, n);
    b->n = 0;
}

static void batch_add(column_batch *b, const double *c, cube_combine_rule how, double *out, size_t n)
{
    b->c[b->n++] = c;
    if (b->n == BATCH_MAX)
        batch_flush(b, how, out, n);
}

/* One item's value over its threads' columns c[t0 .. t1) (t1 - t0 >= 2)
 * as cube_combine_values gives it from the thread values in this order:
 * a compensated sum (Neumaier's, written without a branch on the data),
 * or a maximum or minimum from the first value on; into v[n].  comp: room
 * for n values. */
static void combine_item(cube_combine_rule how, const double *col, size_t nc, const size_t *threads,
                         size_t t0, size_t t1, double *restrict v, double *restrict comp, size_t n)
{
    if (how == CUBE_COMBINE_SUM) {
        fill(v, n, 0.0);
        fill(comp, n, 0.0);
        for (size_t t = t0; t < t1; t++) {
            const double *restrict c = col + threads[t] * nc;
            for (size_t i = 0; i < n; i++) {
                double x = v[i], y = x + c[i];
                int x_larger = fabs(x) >= fabs(c[i]);
                double big = x_larger ? x : c[i], small = x_larger ? c[i] : x;
                comp[i] += (big - y) + small;
                v[i] = y;
            }
        }
        for (size_t i = 0; i < n; i++)
            v[i] = isfinite(v[i]) ? v[i] + comp[i] : v[i];
        return;
    }
    /* the earlier value only where the later is not larger (smaller), as
     * cube_combine_values keeps it: not combine_columns, which keeps the
     * later only where the earlier is not larger (NaN, -0 and +0 differ) */
    memcpy(v, col + threads[t0] * nc, n * sizeof *v);
    for (size_t t = t0 + 1; t < t1; t++) {
        const double *restrict c = col + threads[t] * nc;
        if (how == CUBE_COMBINE_MAX)
            for (size_t i = 0; i < n; i++)
                v[i] = c[i] > v[i] ? c[i] : v[i];
        else
            for (size_t i = 0; i < n; i++)
                v[i] = c[i] < v[i] ? c[i] : v[i];
    }
}

/* For the call paths [from, from + n) (n <= BLOCK) of columns tc, whose
 * metric combines by `how`: their values over the system selection into
 * out[n], exactly as over_system gives them from each call path's row, a
 * block at a time instead of a row at a time.  whole: the sums over all
 * threads (or NULL).
 *
 * An item of one thread adds its value v to the selection's sum, where
 * over_system adds cube_combine_values of it, v + 0.0 (it only turns -0
 * into +0): the same, as the sum, which starts at +0, is never -0 in
 * rounding to nearest, and x + 0 = x + -0 for every x but -0.  So such
 * items and whole ones are columns combined in a batch. */
static void columns_over_system(const call_rows *j, const thread_columns *tc,
                                cube_combine_rule how, const double *whole, size_t from,
                                size_t n, size_t w, double *out)
{
    const server *s = j->s;
    const query *q = j->q;
    system_sums *sums = &j->sums[w];
    size_t nc = s->nc, nsel = q->nsel[DIM_SYSTEM];
    const selection *sel = q->sel[DIM_SYSTEM];
    const double *col = tc->col + from;
    int threads_only = 1;
    for (size_t k = 0; k < nsel; k++) {
        const view_system_item *it = &s->sys[sel[k].id];
        threads_only &= it->kind == VIEW_THREAD;
        if (sums->threads && sel[k].part && it->kind != VIEW_THREAD) {
            fill(out, n, NAN); /* as over_system */
            return;
        }
    }
    if (!sums->threads && !threads_only) {
        /* nodes within nodes: the system tree combined for each row */
        for (size_t i = 0; i < n; i++) {
            for (size_t t = 0; t < s->nt; t++)
                sums->gather[t] = col[t * nc + i];
            out[i] = over_system(j->s, q, how, sums->gather, sums, whole ? whole[from + i] : NAN);
        }
        return;
    }
    fill(out, n, cube_combine_neutral(how));
    column_batch batch;
    batch.n = 0;
    if (!sums->threads) { /* threads only: their values one after the other */
        for (size_t k = 0; k < nsel; k++)
            batch_add(&batch, col + s->sys[sel[k].id].index * nc, how, out, n);
        batch_flush(&batch, how, out, n);
        return;
    }
    /* the plan: each item's threads combined as cube_combine_values does,
     * the whole system from the sums over all threads */
    double v[BLOCK], comp[BLOCK];
    for (size_t k = 0; k < nsel; k++) {
        size_t t0 = sums->start[k], t1 = sums->start[k + 1];
        if (sums->whole[k] && whole)
            batch_add(&batch, whole + from, how, out, n);
        else if (t1 - t0 == 1)
            batch_add(&batch, col + sums->threads[t0] * nc, how, out, n);
        else {
            batch_flush(&batch, how, out, n);
            if (t0 == t1) /* no thread: nothing combined */
                fill(v, n, cube_combine_neutral(how));
            else
                combine_item(how, col, nc, sums->threads, t0, t1, v, comp, n);
            const double *one = v;
            combine_columns(how, out, &one, 1, n);
        }
    }
    batch_flush(&batch, how, out, n);
}

static void call_rows_range(void *ctx, size_t from, size_t to, size_t w)
{
    call_rows *j = ctx;
    server *s = j->s;
    const query *q = j->q;
    double out[BLOCK];
    for (int p = 0; p < j->ans->parts; p++) {
        double *a = j->ans->a[p];
        fill(a + from, to - from, 0);
        for (size_t i = from; i < to; i++)
            j->first[i] = 1;
        for (size_t k = 0; k < j->nsel; k++) {
            cube_combine_rule how = j->how[k];
            double neutral = cube_combine_neutral(how);
            const thread_columns *tc = j->cols[p * j->nsel + k];
            const cube_flat *f = j->flat[p * j->nsel + k];
            const double *agg = j->agg[p * j->nsel + k];
            const double *whole = j->whole[p * j->nsel + k];
            if (agg) {
                for (size_t i = from; i < to; i++)
                    add_value(&a[i], &j->first[i], defined(how, agg[i]), j->how_sel);
                continue;
            }
            if (tc) { /* right of the system pane */
                for (size_t b = from; b < to; b += BLOCK) {
                    size_t n = to - b < BLOCK ? to - b : BLOCK;
                    columns_over_system(j, tc, how, whole, b, n, w, out);
                    for (size_t i = 0; i < n; i++)
                        add_value(&a[b + i], &j->first[b + i],
                                  defined(how, tc->has[b + i] ? out[i] : neutral), j->how_sel);
                }
                continue;
            }
            for (size_t i = from; i < to; i++) {
                const double *row = f ? cube_flat_row(f, cube_get_region(s->c, i), flat_parts[p])
                                      : NULL;
                double val;
                if (!f)
                    val = NAN;
                else if (!row)
                    val = defined(how, neutral);
                else if (!left_of_pane(q, DIM_SYSTEM))
                    val = defined(how, cube_combine_values(how, row, cube_flat_width(f)));
                else
                    val = defined(how, over_system(s, q, how, row, &j->sums[w], NAN));
                add_value(&a[i], &j->first[i], val, j->how_sel);
            }
        }
    }
}

/* Room for a range's own system sums, sharing the plan of `plan`.  0 or
 * -1 (out of memory; free what is set with sums_free). */
static int sums_new(const server *s, system_sums *sums, const system_sums *plan)
{
    *sums = (system_sums){malloc((cube_num_processes(s->c) + 1) * sizeof(double)),
                          malloc((cube_num_nodes(s->c) + 1) * sizeof(double)),
                          malloc((cube_num_machines(s->c) + 1) * sizeof(double)),
                          plan ? plan->threads : NULL, plan ? plan->start : NULL,
                          malloc((s->nt + 1) * sizeof(double)), plan ? plan->whole : NULL,
                          plan ? plan->any_whole : 0, plan ? plan->all : 0};
    return sums->process && sums->node && sums->machine && sums->gather ? 0 : -1;
}

/* Free a range's sums (not the plan, which is the caller's). */
static void sums_free(system_sums *sums)
{
    free(sums->process);
    free(sums->node);
    free(sums->machine);
    free(sums->gather);
}

/* The call tree or flat profile: per node, over the metric selection and
 * the system (selection or all). */
static int pane_call(server *s, const query *q, answer *ans, system_sums *sums)
{
    size_t nsel = q->nsel[DIM_METRIC], ways = split_ways(s, ans->n), ready = 1;
    size_t slots = (size_t)ans->parts * nsel + 1;
    call_rows j = {s, q, ans, nsel, calloc(slots, sizeof(thread_columns *)),
                   calloc(slots, sizeof(cube_flat *)), calloc(slots, sizeof(double *)),
                   calloc(slots, sizeof(double *)), calloc(nsel + 1, sizeof(cube_combine_rule)), selection_rule(s, q),
                   calloc(ans->n + 1, sizeof(int)), calloc(ways, sizeof(system_sums))};
    int rc = -1;
    if (!j.cols || !j.flat || !j.agg || !j.whole || !j.how || !j.first || !j.sums)
        goto done;
    for (int p = 0; p < ans->parts; p++) {
        for (size_t k = 0; k < nsel; k++) {
            size_t m = q->sel[DIM_METRIC][k].id;
            int mflav = q->sel[DIM_METRIC][k].part;
            j.how[k] = cube_metric_combine(cube_get_metric(s->c, m));
            /* over all threads the values the call tree shows, for the
             * whole system selected its threads' values combined */
            if (q->flat)
                j.flat[p * nsel + k] = left_of_pane(q, DIM_SYSTEM) ? get_flat(s, m, mflav)
                                                                   : get_all_flat(s, m, mflav);
            else if (!left_of_pane(q, DIM_SYSTEM))
                j.agg[p * nsel + k] = get_all(s, m, mflav, p);
            else if (sums->all)
                j.agg[p * nsel + k] = get_agg(s, m, mflav, p);
            if (!q->flat && !j.agg[p * nsel + k]) {
                j.cols[p * nsel + k] = get_cols(s, m, mflav, p);
                if (sums->any_whole)
                    j.whole[p * nsel + k] = get_agg(s, m, mflav, p);
            }
        }
    }
    j.sums[0] = *sums;
    for (; ready < ways; ready++)
        if (sums_new(s, &j.sums[ready], sums) != 0)
            goto done;
    split(ans->n, ways, call_rows_range, &j);
    rc = 0;
done:
    for (size_t w = 1; j.sums && w < ready; w++)
        sums_free(&j.sums[w]);
    if (j.sums && ready < ways)
        sums_free(&j.sums[ready]);
    free(j.sums);
    free(j.cols);
    free(j.flat);
    free(j.agg);
    free(j.whole);
    free(j.how);
    free(j.first);
    return rc;
}

static int pane_system(server *s, const query *q, answer *ans, double *vec, system_sums *sums)
{
    fill(ans->a[0], ans->n, 0);
    cube_combine_rule how_sel = selection_rule(s, q);
    int *first = calloc(ans->n + 1, sizeof *first);
    if (!first)
        return -1;
    for (size_t i = 0; i < ans->n; i++)
        first[i] = 1;
    for (size_t k = 0; k < q->nsel[DIM_METRIC]; k++) {
        size_t m = q->sel[DIM_METRIC][k].id;
        cube_combine_rule how = cube_metric_combine(cube_get_metric(s->c, m));
        int ok = over_calls(s, q, m, q->sel[DIM_METRIC][k].part, vec) == 0;
        cube_status st;
        if (ok && cube_system_combine(s->c, how, vec, sums->process, sums->node, sums->machine,
                                      NULL, &st) != 0)
            ok = 0;
        for (size_t i = 0; i < ans->n; i++) {
            const view_system_item *it = &s->sys[i];
            double v = !ok                          ? NAN
                       : it->kind == VIEW_THREAD  ? vec[it->index]
                       : it->kind == VIEW_PROCESS ? sums->process[it->index]
                       : it->kind == VIEW_NODE    ? sums->node[it->index]
                                                  : sums->machine[it->index];
            add_value(&ans->a[0][i], &first[i], defined(how, v), how_sel);
        }
    }
    /* expanded: only threads have values of their own */
    for (size_t i = 0; i < ans->n; i++)
        ans->a[1][i] = s->sys[i].kind == VIEW_THREAD ? ans->a[0][i] : NAN;
    free(first);
    return 0;
}

/* The numbers of a range of one of the answer's arrays, separated by
 * commas (one before the first unless it starts the array), into the
 * range's own text. */
typedef struct {
    const double *a;
    char *text[WORKERS_MAX];
    size_t len[WORKERS_MAX];
} format_job;

static void format_range(void *ctx, size_t from, size_t to, size_t w)
{
    format_job *j = ctx;
    char *o = j->text[w];
    for (size_t i = from; i < to; i++) {
        if (i)
            *o++ = ',';
        o = view_put_number(o, j->a[i]);
    }
    j->len[w] = (size_t)(o - j->text[w]);
}

/* The JSON text of an answer (one reference), or NULL (out of memory). */
static shared_answer *format_answer(const server *s, const query *q, const answer *ans)
{
    static const char *const panes[] = {"metric", "call", "system"};
    static const char *const keys[] = {"incl", "excl", "sub"};
    size_t ways = split_ways(s, ans->n), room = ans->n / ways + 2;
    size_t most = 64 + (size_t)ans->parts * (16 + ans->n * (VIEW_NUMBER_MAX + 1));
    shared_answer *out = malloc(sizeof *out + most);
    format_job j;
    memset(&j, 0, sizeof j);
    int ok = out != NULL;
    for (size_t w = 0; w < ways && ok; w++)
        ok = (j.text[w] = malloc(room * (VIEW_NUMBER_MAX + 1))) != NULL;
    char *o = out ? out->text : NULL;
    if (ok) {
        o += sprintf(o, "{\"pane\":\"%s\"", q->flat ? "flat" : panes[q->dim_of_pane]);
        for (int p = 0; p < ans->parts; p++) {
            o += sprintf(o, ",\"%s\":[", keys[p]);
            j.a = ans->a[p];
            split(ans->n, ways, format_range, &j);
            for (size_t w = 0; w < ways; w++) {
                memcpy(o, j.text[w], j.len[w]);
                o += j.len[w];
            }
            *o++ = ']';
        }
        memcpy(o, "}\n", 3);
        out->refs = 1;
        out->len = (size_t)(o + 2 - out->text);
        /* the room not used back (the cache keeps the answer) */
        shared_answer *fit = realloc(out, sizeof *out + out->len + 1);
        out = fit ? fit : out;
    } else {
        free(out);
        out = NULL;
    }
    for (size_t w = 0; w < ways; w++)
        free(j.text[w]);
    return out;
}

/* The JSON answer of a query (one reference), or NULL (out of memory). */
static shared_answer *answer_query(server *s, const query *q)
{
    answer ans = {{NULL, NULL, NULL}, 0, q->flat ? 3 : 2};
    ans.n = q->dim_of_pane == DIM_METRIC ? s->nm
            : q->dim_of_pane == DIM_SYSTEM ? s->nsys
            : q->flat                       ? s->nr
                                            : s->nc;
    double *vec = malloc((s->nt + 1) * sizeof *vec);
    system_sums sums = {malloc((cube_num_processes(s->c) + 1) * sizeof(double)),
                        malloc((cube_num_nodes(s->c) + 1) * sizeof(double)),
                        malloc((cube_num_machines(s->c) + 1) * sizeof(double)), NULL, NULL,
                        malloc((s->nt + 1) * sizeof(double)), NULL, 0, 0};
    shared_answer *out = NULL;
    int ok = vec && sums.process && sums.node && sums.machine && sums.gather &&
             plan_system(s, q, &sums) == 0;
    for (int p = 0; p < ans.parts && ok; p++)
        ok = (ans.a[p] = malloc((ans.n + 1) * sizeof(double))) != NULL;
    if (ok) {
        if (left_of_pane(q, DIM_METRIC) || q->dim_of_pane == DIM_METRIC) {
            int rc = q->dim_of_pane == DIM_METRIC ? pane_metric(s, q, &ans, vec, &sums)
                     : q->dim_of_pane == DIM_CALL ? pane_call(s, q, &ans, &sums)
                                                  : pane_system(s, q, &ans, vec, &sums);
            ok = rc == 0;
        } else {
            /* a tree left of the metric tree would add up metrics of
             * different meanings: no values */
            for (int p = 0; p < ans.parts; p++)
                fill(ans.a[p], ans.n, NAN);
        }
    }
    if (ok)
        out = format_answer(s, q, &ans);
    for (int p = 0; p < 3; p++)
        free(ans.a[p]);
    free(vec);
    free(sums.process);
    free(sums.node);
    free(sums.machine);
    free(sums.threads);
    free(sums.start);
    free(sums.gather);
    free(sums.whole);
    return out;
}

/* ------------------------------------------------------------------------
 * HTTP.
 * ------------------------------------------------------------------------ */

/* Send response r (NULL: out of memory) with the headers of every answer. */
static enum MHD_Result send_response(struct MHD_Connection *conn, unsigned status,
                                     const char *type, struct MHD_Response *r)
{
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    /* the page reaches nothing but this server */
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self' 'unsafe-inline' data: blob:");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result rc = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *type,
                             char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
    if (!r && mode == MHD_RESPMEM_MUST_FREE)
        free(body);
    return send_response(conn, status, type, r);
}

/* An answer sent without a copy: the response holds the reference taken
 * for it and lets it go when it is done. */
static enum MHD_Result reply_answer(struct MHD_Connection *conn, shared_answer *a)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer_with_free_callback_cls(a->len, a->text, answer_release, a);
    if (!r)
        answer_release(a);
    return send_response(conn, MHD_HTTP_OK, "application/json", r);
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned status, const char *text)
{
    return reply(conn, status, "text/plain; charset=utf-8", (char *)text, strlen(text),
                 MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result reply_error(struct MHD_Connection *conn, const char *message)
{
    char *body = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&body, &len);
    if (!mem)
        return MHD_NO;
    fputs("{\"error\":", mem);
    view_json_string(mem, message);
    fputs("}\n", mem);
    if (fclose(mem) != 0) {
        free(body);
        return MHD_NO;
    }
    return reply(conn, MHD_HTTP_BAD_REQUEST, "application/json", body, len,
                 MHD_RESPMEM_MUST_FREE);
}

/* The token compared in a time that does not depend on where it differs. */
static int token_ok(const server *s, const char *given)
{
    if (!given || strlen(given) != 32)
        return 0;
    unsigned char diff = 0;
    for (size_t i = 0; i < 32; i++)
        diff |= (unsigned char)(given[i] ^ s->token[i]);
    return diff == 0;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)con_cls;
    server *s = cls;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD are served\n");
    if (!token_ok(s, MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token")))
        return reply_text(conn, MHD_HTTP_FORBIDDEN,
                          "a valid token is needed: use the URL cube_view --serve printed\n");
    if (strcmp(url, "/") == 0)
        return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8", (char *)s->page, s->page_len,
                     MHD_RESPMEM_PERSISTENT);
    if (strcmp(url, "/api/pane") != 0)
        return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found: only the page and /api/pane\n");
    query q;
    memset(&q, 0, sizeof q);
    if (parse_query(s, conn, &q) != 0) {
        query_free(&q);
        return reply_error(conn, q.error);
    }
    shared_answer *body = answer_lookup(&s->answers, q.key);
    if (!body && (body = answer_query(s, &q)))
        answer_store(&s->answers, q.key, body);
    query_free(&q);
    if (!body)
        return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    return reply_answer(conn, body);
}

/* 32 hex digits from /dev/urandom.  0 or -1. */
static int make_token(char token[33])
{
    unsigned char raw[16];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = read(fd, raw + got, sizeof raw - got);
        if (n <= 0 && !(n < 0 && errno == EINTR)) {
            close(fd);
            return -1;
        }
        if (n > 0)
            got += (size_t)n;
    }
    close(fd);
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(token + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

int view_serve(const cube_t *c, const char *page, size_t len, unsigned port)
{
    server s;
    memset(&s, 0, sizeof s);
    s.c = c;
    s.page = page;
    s.page_len = len;
    s.nm = cube_num_metrics(c);
    s.nc = cube_num_cnodes(c);
    s.nr = cube_num_regions(c);
    s.nt = cube_num_threads(c);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    s.ways = cpus < 1 ? 1 : cpus > WORKERS_MAX ? WORKERS_MAX : (size_t)cpus;
    if (make_token(s.token) != 0) {
        cli_error("/dev/urandom: cannot read the token: %s", strerror(errno));
        return -1;
    }
    s.cache = calloc(s.nm + 1, sizeof *s.cache);
    if (!s.cache || view_system_order(c, &s.sys, &s.nsys, NULL) != 0) {
        free(s.cache);
        cli_error("out of memory");
        return -1;
    }

    make_tree_values(&s);
    if (precompute(&s) != 0) {
        cli_error("out of memory");
        free_caches(&s);
        return -1;
    }

    /* SIGINT and SIGTERM (and SIGHUP) are waited for by this thread; the
     * daemon's thread inherits the mask and never sees them */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)port, NULL, NULL, handle, &s,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)64, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_END);
    if (!d) {
        cli_error("cannot listen on 127.0.0.1:%u: %s", port,
                  errno ? strerror(errno) : "the HTTP server did not start");
        free_caches(&s);
        return -1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned real = info ? info->port : port;
    printf("http://127.0.0.1:%u/?token=%s\n", real, s.token);
    fflush(stdout);
    int sig = 0;
    while (sigwait(&stop, &sig) != 0)
        ;
    MHD_stop_daemon(d);
    free_caches(&s);
    return 0;
}
