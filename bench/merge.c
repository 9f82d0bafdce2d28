/*
 * merge.c - merging cube_bench runs (SKaMPI's automatic merging of
 * results; the rules are in merge.h).
 *
 * The runs are small (suites x arguments x ranks rows), so everything is
 * done in memory on the runs' models: the result is built with the writer
 * API from the first run's definitions, then filled point by point.
 */
#include "merge.h"
#include "cube.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)


/* --- the two public helpers ------------------------------------------- */

int cube_bench_parse_arg(const char *name, size_t *key_len, double *value)
{
    static const char *const keys[] = {"len", "nodes", "chunks", "arg"};
    if (!name)
        return 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        size_t n = strlen(keys[k]);
        if (strncmp(name, keys[k], n) != 0 || name[n] != '=')
            continue;
        const char *num = name + n + 1;
        /* the parser takes "inf", "nan" and hex too: a region name
         * cube_bench wrote has a plain decimal number */
        if (!((*num >= '0' && *num <= '9') || *num == '-' || *num == '+' || *num == '.'))
            return 0;
        const char *end = num + strlen(num);
        double v;
        if (cube_parse_double(num, (size_t)(end - num), &v, NULL) != 0)
            return 0;
        for (const char *p = num; p < end; p++)
            if (*p == 'x' || *p == 'X')
                return 0;
        if (key_len)
            *key_len = n;
        if (value)
            *value = v;
        return 1;
    }
    return 0;
}

static int takes_part(const double *values, const double *weights, size_t i)
{
    return isfinite(values[i]) && isfinite(weights[i]) && weights[i] > 0.0;
}

/* The contributions are taken in ascending (value, index) order by
 * selection: n is the number of runs, so O(n^2) costs nothing, and no
 * memory means no failure to report. */
size_t cube_bench_weighted_median(const double *values, const double *weights, size_t n)
{
    double total = 0.0;
    for (size_t i = 0; i < n; i++)
        if (takes_part(values, weights, i))
            total += weights[i];
    /* the weights are counts of single measurements (integers), so these
     * sums are exact and "exactly half" is decided exactly */
    double cum = 0.0;
    size_t last = NONE;
    for (;;) {
        size_t next = NONE;
        for (size_t i = 0; i < n; i++) {
            if (!takes_part(values, weights, i))
                continue;
            int after_last = last == NONE || values[i] > values[last] ||
                             (values[i] == values[last] && i > last);
            if (after_last && (next == NONE || values[i] < values[next]))
                next = i;
        }
        if (next == NONE)
            return NONE;
        cum += weights[next];
        if (2.0 * cum >= total)
            return next;
        last = next;
    }
}

/* --- the merge ---------------------------------------------------------- */

/* One run as the merge sees it. */
typedef struct {
    const cube_t *c;
    const char *name;
    const cube_cnode *root;   /* the "cube_bench" call-tree root */
    const cube_metric *reps;
    const cube_metric **met;  /* [result metric index]: this run's, or NULL */
    const cube_thread **thr;  /* [result thread index]: this run's, or NULL */
    cube_region **region;     /* [this run's region index]: the result's */
    char label[32];           /* "run N" when no name was given */
} run_t;

/* A suite of the result and where each run has it. */
typedef struct {
    const char *name;
    size_t occurrence;         /* the k-th suite of this name in its run */
    const cube_cnode **src;    /* [run]: the run's suite call path, or NULL */
} msuite;

/* A point (argument) of a suite. */
typedef struct {
    const char *name;
    int numbered;              /* KEY=NUMBER */
    size_t key_len;
    double x;
    size_t first_seen, group;
    const cube_cnode **src;    /* [run]: the run's call path of this point */
    size_t run_of_def;         /* the run whose definition the result copies */
} mpoint;

typedef struct {
    cube_t *out;
    run_t *runs;
    size_t n;
    size_t nmet, nthr;
    cube_metric **omet;
    size_t time_index, reps_index; /* the result's time and reps metrics */
    cube_thread **othr;
    /* one contribution per run: nmet values, time, weight */
    double *vals, *times, *weights;
    char *err;
    size_t errlen;
} merge_t;

static int same_key(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && strncmp(a, b, alen) == 0;
}

/* The name of the region a call path calls. */
static const char *callee_name(const cube_cnode *cn)
{
    return cube_region_name(cube_cnode_callee(cn));
}

static const cube_cnode *find_root(const cube_t *c)
{
    for (size_t i = 0; i < cube_num_root_cnodes(c); i++) {
        const cube_cnode *r = cube_get_root_cnode(c, i);
        if (strcmp(callee_name(r), "cube_bench") == 0)
            return r;
    }
    return NULL;
}

/* The runs must be cube_bench runs of one parameter file on as many
 * ranks; checked before anything is built, so a refusal costs nothing. */
static int check_runs(merge_t *m)
{
    for (size_t k = 0; k < m->n; k++) {
        run_t *r = &m->runs[k];
        static const char *const needed[] = {"time", "reps"};
        for (size_t i = 0; i < 2; i++)
            if (!cube_find_metric(r->c, needed[i])) {
                bench_err(m->err, m->errlen,
                       "%s: not a cube_bench experiment: it has no metric \"%s\"", r->name,
                       needed[i]);
                return -1;
            }
        r->reps = cube_find_metric(r->c, "reps");
        if (!(r->root = find_root(r->c))) {
            bench_err(m->err, m->errlen,
                   "%s: not a cube_bench experiment: it has no call-tree root \"cube_bench\"",
                   r->name);
            return -1;
        }
        if (!cube_get_attr(r->c, "parameter checksum")) {
            bench_err(m->err, m->errlen,
                   "%s: no attribute \"parameter checksum\", so it cannot be shown to come "
                   "from the same parameter file as the other runs; not merged (a run of an "
                   "older cube_bench?)",
                   r->name);
            return -1;
        }
    }
    const run_t *a = &m->runs[0];
    const char *sum0 = cube_get_attr(a->c, "parameter checksum");
    size_t np0 = cube_num_processes(a->c);
    for (size_t k = 1; k < m->n; k++) {
        const run_t *b = &m->runs[k];
        const char *sum = cube_get_attr(b->c, "parameter checksum");
        if (strcmp(sum0, sum) != 0) {
            bench_err(m->err, m->errlen,
                   "%s and %s come from different parameter files (parameter checksum %s and "
                   "%s); runs of different benchmarks are not merged",
                   a->name, b->name, sum0, sum);
            return -1;
        }
        /* the attribute says how many ranks ran; the system tree is what
         * the values are lined up by: both must agree */
        size_t np = cube_num_processes(b->c);
        const char *pa = cube_get_attr(a->c, "processes"), *pb = cube_get_attr(b->c, "processes");
        if (pa && pb && strcmp(pa, pb) != 0) {
            bench_err(m->err, m->errlen,
                   "%s ran on %s processes, %s on %s; runs on different numbers of ranks are "
                   "not merged",
                   a->name, pa, b->name, pb);
            return -1;
        }
        if (np != np0) {
            bench_err(m->err, m->errlen,
                   "%s has %zu processes, %s has %zu; runs on different numbers of ranks are "
                   "not merged",
                   a->name, np0, b->name, np);
            return -1;
        }
    }
    return 0;
}

/* --- the definitions of the result -------------------------------------- */

/* Did the writer call just made on `c` fail?  The CUBE3 writer functions
 * return nothing and the next successful call clears the handle's error,
 * so each one is checked right after it. */
static int failed(const cube_t *c)
{
    return cube_error_code(c) != CUBE_OK;
}

static int copy_attributes(merge_t *m)
{
    const cube_t *c = m->runs[0].c;
    for (size_t i = 0; i < cube_num_attrs(c); i++) {
        const char *key = cube_attr_key(c, i);
        /* a merged run merged again records its own inputs only */
        if (strcmp(key, "merged runs") == 0 || strncmp(key, "merged from ", 12) == 0)
            continue;
        cube_def_attr(m->out, key, cube_attr_value(c, i));
        if (failed(m->out))
            return -1;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%zu", m->n);
    cube_def_attr(m->out, "merged runs", buf);
    if (failed(m->out))
        return -1;
    for (size_t k = 0; k < m->n; k++) {
        snprintf(buf, sizeof buf, "merged from %zu", k + 1);
        cube_def_attr(m->out, buf, m->runs[k].name);
        if (failed(m->out))
            return -1;
    }
    for (size_t i = 0; i < cube_num_mirrors(c); i++) {
        cube_def_mirror(m->out, cube_mirror(c, i));
        if (failed(m->out))
            return -1;
    }
    return 0;
}

/* Metrics by unique name; a run's metrics come in definition order, where
 * a parent always precedes its children. */
static int copy_metrics(merge_t *m)
{
    for (size_t k = 0; k < m->n; k++) {
        const cube_t *c = m->runs[k].c;
        for (size_t i = 0; i < cube_num_metrics(c); i++) {
            const cube_metric *x = cube_get_metric(c, i);
            if (cube_find_metric(m->out, cube_metric_uniq_name(x)))
                continue;
            const cube_metric *xp = cube_metric_parent(x);
            cube_metric *parent = xp ? cube_find_metric(m->out, cube_metric_uniq_name(xp)) : NULL;
            if (!cube_def_met(m->out, cube_metric_disp_name(x), cube_metric_uniq_name(x),
                              cube_metric_dtype(x), cube_metric_uom(x), cube_metric_val(x),
                              cube_metric_url(x), cube_metric_descr(x), parent))
                return -1;
        }
    }
    m->nmet = cube_num_metrics(m->out);
    m->omet = calloc(m->nmet ? m->nmet : 1, sizeof *m->omet);
    if (!m->omet)
        return -1;
    for (size_t i = 0; i < m->nmet; i++)
        m->omet[i] = cube_get_metric(m->out, i);
    /* check_runs made sure that every run has both */
    m->time_index = cube_metric_index(cube_find_metric(m->out, "time"));
    m->reps_index = cube_metric_index(cube_find_metric(m->out, "reps"));
    for (size_t k = 0; k < m->n; k++) {
        run_t *r = &m->runs[k];
        if (!(r->met = calloc(m->nmet ? m->nmet : 1, sizeof *r->met)))
            return -1;
        for (size_t i = 0; i < m->nmet; i++)
            r->met[i] = cube_find_metric(r->c, cube_metric_uniq_name(m->omet[i]));
    }
    return 0;
}

/* Regions by name and module (as cube_diff lines them up). */
static int copy_regions(merge_t *m)
{
    for (size_t k = 0; k < m->n; k++) {
        run_t *r = &m->runs[k];
        size_t nr = cube_num_regions(r->c);
        if (!(r->region = calloc(nr ? nr : 1, sizeof *r->region)))
            return -1;
        for (size_t i = 0; i < nr; i++) {
            const cube_region *x = cube_get_region(r->c, i);
            for (size_t j = 0; j < cube_num_regions(m->out) && !r->region[i]; j++) {
                cube_region *y = cube_get_region(m->out, j);
                if (strcmp(cube_region_name(x), cube_region_name(y)) == 0 &&
                    strcmp(cube_region_mod(x), cube_region_mod(y)) == 0)
                    r->region[i] = y;
            }
            if (!r->region[i] &&
                !(r->region[i] = cube_def_region(m->out, cube_region_name(x),
                                                 cube_region_begin_line(x),
                                                 cube_region_end_line(x), cube_region_url(x),
                                                 cube_region_descr(x), cube_region_mod(x))))
                return -1;
        }
    }
    return 0;
}

/* The first run's system tree, in its definition order; every run's
 * threads lined up by (process rank, position in the process). */
static int copy_system(merge_t *m)
{
    const cube_t *c = m->runs[0].c;
    size_t nma = cube_num_machines(c), nno = cube_num_nodes(c), npr = cube_num_processes(c);
    cube_machine **ma = calloc(nma ? nma : 1, sizeof *ma);
    cube_node **no = calloc(nno ? nno : 1, sizeof *no);
    cube_process **pr = calloc(npr ? npr : 1, sizeof *pr);
    int rc = -1;
    if (!ma || !no || !pr)
        goto done;
    for (size_t i = 0; i < nma; i++) {
        const cube_machine *x = cube_get_machine(c, i);
        if (!(ma[i] = cube_def_mach(m->out, cube_machine_name(x), cube_machine_descr(x))))
            goto done;
    }
    for (size_t i = 0; i < nno; i++) {
        const cube_node *x = cube_get_node(c, i);
        if (!(no[i] = cube_def_node(m->out, cube_node_name(x),
                                    ma[cube_machine_index(cube_node_machine(x))])))
            goto done;
    }
    for (size_t i = 0; i < npr; i++) {
        const cube_process *x = cube_get_process(c, i);
        if (!(pr[i] = cube_def_proc(m->out, cube_process_name(x), (int)cube_process_rank(x),
                                    no[cube_node_index(cube_process_node(x))])))
            goto done;
    }
    for (size_t i = 0; i < cube_num_threads(c); i++) {
        const cube_thread *x = cube_get_thread(c, i);
        if (!cube_def_thrd(m->out, cube_thread_name(x), (int)cube_thread_rank(x),
                           pr[cube_process_index(cube_thread_process(x))]))
            goto done;
    }
    m->nthr = cube_num_threads(m->out);
    if (!(m->othr = calloc(m->nthr ? m->nthr : 1, sizeof *m->othr)))
        goto done;
    for (size_t t = 0; t < m->nthr; t++)
        m->othr[t] = cube_get_thread(m->out, t);
    for (size_t k = 0; k < m->n; k++) {
        run_t *r = &m->runs[k];
        if (!(r->thr = calloc(m->nthr ? m->nthr : 1, sizeof *r->thr)))
            goto done;
        for (size_t t = 0; t < m->nthr; t++) {
            const cube_thread *ot = m->othr[t];
            const cube_process *op = cube_thread_process(ot);
            size_t pos = 0;
            while (pos < cube_process_num_threads(op) && cube_process_thread(op, pos) != ot)
                pos++;
            for (size_t p = 0; p < cube_num_processes(r->c); p++) {
                const cube_process *rp = cube_get_process(r->c, p);
                if (cube_process_rank(rp) == cube_process_rank(op) &&
                    pos < cube_process_num_threads(rp)) {
                    r->thr[t] = cube_process_thread(rp, pos);
                    break;
                }
            }
        }
        /* equal counts but other ranks: the runs do not line up */
        for (size_t p = 0; p < cube_num_processes(r->c); p++) {
            const cube_process *rp = cube_get_process(r->c, p);
            int found = 0;
            for (size_t q = 0; q < npr && !found; q++)
                found = cube_process_rank(cube_get_process(c, q)) == cube_process_rank(rp);
            if (!found) {
                bench_err(m->err, m->errlen,
                       "%s has a process of rank %lld, %s has none; runs on different ranks "
                       "are not merged",
                       r->name, (long long)cube_process_rank(rp), m->runs[0].name);
                rc = -2;
                goto done;
            }
        }
    }
    rc = 0;
done:
    free(ma);
    free(no);
    free(pr);
    return rc;
}

/* --- suites and points -------------------------------------------------- */

static void free_suites(msuite *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i].src);
    free(s);
}

/* Every suite of any run, matched by name and occurrence. */
static msuite *collect_suites(const merge_t *m, size_t *count)
{
    msuite *s = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = 0; k < m->n; k++) {
        const cube_cnode *root = m->runs[k].root;
        for (size_t i = 0; i < cube_cnode_num_children(root); i++) {
            const cube_cnode *cn = cube_cnode_child(root, i);
            const char *name = callee_name(cn);
            size_t occ = 0;
            for (size_t j = 0; j < i; j++)
                occ += strcmp(callee_name(cube_cnode_child(root, j)), name) == 0;
            size_t f = 0;
            while (f < n && !(s[f].occurrence == occ && strcmp(s[f].name, name) == 0))
                f++;
            if (f == n) {
                msuite *grown = bench_grow(s, n, &cap, sizeof *grown, 16);
                if (!grown)
                    goto oom;
                s = grown;
                s[n].name = name;
                s[n].occurrence = occ;
                if (!(s[n].src = calloc(m->n, sizeof *s[n].src)))
                    goto oom;
                n++;
            }
            s[f].src[k] = cn;
        }
    }
    *count = n;
    if (!s) /* no suite at all is an empty result, not an error */
        s = calloc(1, sizeof *s);
    return s;
oom:
    free_suites(s, n);
    return NULL;
}

static int same_point(const mpoint *p, const char *name, int numbered, size_t key_len, double x)
{
    if (p->numbered != numbered)
        return 0;
    if (numbered)
        return p->x == x && same_key(p->name, p->key_len, name, key_len);
    return strcmp(p->name, name) == 0;
}

/* Points in the order of the result: a KEY's points ascending by NUMBER
 * (the keys, and names without a number, where they first appear). */
static int cmp_point(const void *va, const void *vb)
{
    const mpoint *a = va, *b = vb;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (a->numbered && b->numbered && a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return a->first_seen < b->first_seen ? -1 : a->first_seen > b->first_seen;
}

static void free_points(mpoint *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i].src);
    free(p);
}

static mpoint *collect_points(const merge_t *m, const msuite *s, size_t *count)
{
    mpoint *p = NULL;
    size_t n = 0, cap = 0;
    for (size_t k = 0; k < m->n; k++) {
        const cube_cnode *sc = s->src[k];
        for (size_t i = 0; sc && i < cube_cnode_num_children(sc); i++) {
            const cube_cnode *cn = cube_cnode_child(sc, i);
            const char *name = callee_name(cn);
            size_t key_len = 0;
            double x = 0.0;
            int numbered = cube_bench_parse_arg(name, &key_len, &x);
            size_t f = 0;
            while (f < n && !same_point(&p[f], name, numbered, key_len, x))
                f++;
            if (f == n) {
                mpoint *grown = bench_grow(p, n, &cap, sizeof *grown, 32);
                if (!grown)
                    goto oom;
                p = grown;
                mpoint *q = &p[n];
                q->name = name;
                q->numbered = numbered;
                q->key_len = key_len;
                q->x = x;
                q->first_seen = n;
                q->group = n;
                for (size_t g = 0; g < n && numbered; g++)
                    if (p[g].numbered && same_key(p[g].name, p[g].key_len, name, key_len)) {
                        q->group = p[g].group;
                        break;
                    }
                q->run_of_def = k;
                if (!(q->src = calloc(m->n, sizeof *q->src)))
                    goto oom;
                n++;
            }
            if (!p[f].src[k])
                p[f].src[k] = cn;
        }
    }
    if (n)
        qsort(p, n, sizeof *p, cmp_point);
    *count = n;
    if (!p)
        p = calloc(1, sizeof *p);
    return p;
oom:
    free_points(p, n);
    return NULL;
}

/* --- contributions ------------------------------------------------------ */

static double value_at(const run_t *r, const cube_metric *met, const cube_cnode *cn,
                       const cube_thread *t)
{
    return met ? cube_get_sev(r->c, met, cn, t) : 0.0;
}

/* Did the run measure this call path at this rank? */
static int measured(const run_t *r, const cube_cnode *cn, const cube_thread *t)
{
    double reps = cube_get_sev(r->c, r->reps, cn, t);
    return reps > 0.0 && isfinite(reps);
}

/* Run k's contribution to point p of suite s at result thread t, into
 * m->vals[k*nmet ...], times[k], weights[k]; 0 when it has none, 1 when
 * the run measured the point, 2 when it is interpolated. */
static int contribution(merge_t *m, size_t k, const msuite *s, const mpoint *p, size_t t)
{
    const run_t *r = &m->runs[k];
    const cube_thread *rt = r->thr[t];
    double *v = m->vals + k * m->nmet;
    if (!rt || !s->src[k])
        return 0;
    if (p->src[k] && measured(r, p->src[k], rt)) {
        for (size_t i = 0; i < m->nmet; i++)
            v[i] = value_at(r, r->met[i], p->src[k], rt);
        m->weights[k] = v[m->reps_index];
        return 1;
    }
    if (!p->numbered)
        return 0;
    /* the nearest measured neighbours of the same KEY on either side */
    const cube_cnode *lo = NULL, *hi = NULL;
    double xlo = 0.0, xhi = 0.0;
    const cube_cnode *sc = s->src[k];
    for (size_t i = 0; i < cube_cnode_num_children(sc); i++) {
        const cube_cnode *cn = cube_cnode_child(sc, i);
        size_t kl;
        double x;
        if (!cube_bench_parse_arg(callee_name(cn), &kl, &x) ||
            !same_key(callee_name(cn), kl, p->name, p->key_len) || !measured(r, cn, rt))
            continue;
        if (x < p->x && (!lo || x > xlo))
            lo = cn, xlo = x;
        if (x > p->x && (!hi || x < xhi))
            hi = cn, xhi = x;
    }
    if (!lo || !hi) /* outside the run's range: no extrapolation */
        return 0;
    for (size_t i = 0; i < m->nmet; i++) {
        double y1 = value_at(r, r->met[i], lo, rt), y2 = value_at(r, r->met[i], hi, rt);
        /* SKaMPI's linear_interpolate; multiplied before divided, so
         * that it is exact where the numbers allow (and y1 when y1 == y2) */
        v[i] = y1 + (y2 - y1) * (p->x - xlo) / (xhi - xlo);
    }
    v[m->reps_index] = floor(v[m->reps_index] + 0.5);
    m->weights[k] = v[m->reps_index];
    return 2;
}

static int merge_point(merge_t *m, const msuite *s, const mpoint *p, cube_cnode *ocn)
{
    for (size_t t = 0; t < m->nthr; t++) {
        int any = 0;
        for (size_t k = 0; k < m->n; k++) {
            m->weights[k] = 0.0; /* takes no part unless it contributes */
            m->times[k] = 0.0;
            if (contribution(m, k, s, p, t)) {
                m->times[k] = m->vals[k * m->nmet + m->time_index];
                any = 1;
            }
        }
        if (!any)
            continue;
        size_t j = cube_bench_weighted_median(m->times, m->weights, m->n);
        if (j == NONE)
            continue;
        const double *v = m->vals + j * m->nmet;
        /* the whole chosen record, not a mixture of runs; a metric that
         * run lacks stays without a value */
        for (size_t i = 0; i < m->nmet; i++) {
            if (!m->runs[j].met[i])
                continue;
            cube_set_sev(m->out, m->omet[i], ocn, m->othr[t], v[i]);
            if (failed(m->out))
                return -1;
        }
    }
    return 0;
}

/* Run k's call path `cn` in the result, under `parent`: the result's
 * region for its callee, its call site. */
static cube_cnode *copy_cnode(merge_t *m, size_t k, const cube_cnode *cn, cube_cnode *parent)
{
    cube_region *callee = m->runs[k].region[cube_region_index(cube_cnode_callee(cn))];
    return cube_def_cnode_cs(m->out, callee, cube_cnode_mod(cn), (int)cube_cnode_line(cn),
                             parent);
}

static int merge_suites(merge_t *m, cube_cnode *oroot)
{
    size_t ns = 0;
    msuite *suites = collect_suites(m, &ns);
    if (!suites)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < ns && rc == 0; i++) {
        const msuite *s = &suites[i];
        size_t k0 = 0;
        while (!s->src[k0])
            k0++;
        const cube_cnode *sc = s->src[k0];
        cube_cnode *osc = copy_cnode(m, k0, sc, oroot);
        if (!osc) {
            rc = -1;
            break;
        }
        size_t np = 0;
        mpoint *pts = collect_points(m, s, &np);
        if (!pts) {
            rc = -1;
            break;
        }
        for (size_t j = 0; j < np && rc == 0; j++) {
            const mpoint *p = &pts[j];
            const cube_cnode *pc = p->src[p->run_of_def];
            cube_cnode *opc = copy_cnode(m, p->run_of_def, pc, osc);
            if (!opc || merge_point(m, s, p, opc) != 0)
                rc = -1;
        }
        free_points(pts, np);
    }
    free_suites(suites, ns);
    return rc;
}

static void free_merge(merge_t *m)
{
    for (size_t k = 0; k < m->n && m->runs; k++) {
        free(m->runs[k].met);
        free(m->runs[k].thr);
        free(m->runs[k].region);
    }
    free(m->runs);
    free(m->omet);
    free(m->othr);
    free(m->vals);
    free(m->times);
    free(m->weights);
}

cube_t *cube_bench_merge(cube_t *const *runs, const char *const *names, size_t n, char *err,
                         size_t errlen)
{
    merge_t m;
    memset(&m, 0, sizeof m);
    m.n = n;
    m.err = err;
    m.errlen = errlen;
    if (err && errlen)
        err[0] = '\0';
    if (n == 0 || !runs) {
        bench_err(err, errlen, "no runs to merge");
        return NULL;
    }
    if (!(m.runs = calloc(n, sizeof *m.runs))) {
        bench_err(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t k = 0; k < n; k++) {
        if (!runs[k]) {
            bench_err(err, errlen, "run %zu: no experiment", k + 1);
            free_merge(&m);
            return NULL;
        }
        m.runs[k].c = runs[k];
        snprintf(m.runs[k].label, sizeof m.runs[k].label, "run %zu", k + 1);
        m.runs[k].name = names && names[k] ? names[k] : m.runs[k].label;
    }
    if (check_runs(&m) != 0) {
        free_merge(&m);
        return NULL;
    }
    int rc = -1;
    if (!(m.out = cube_create()))
        goto done;
    if (copy_attributes(&m) != 0 || copy_metrics(&m) != 0 || copy_regions(&m) != 0)
        goto done;
    int sys = copy_system(&m);
    if (sys == -2) {
        rc = -2; /* message already set */
        goto done;
    }
    if (sys != 0)
        goto done;
    m.vals = malloc(n * (m.nmet ? m.nmet : 1) * sizeof *m.vals);
    m.times = malloc(n * sizeof *m.times);
    m.weights = malloc(n * sizeof *m.weights);
    if (!m.vals || !m.times || !m.weights)
        goto done;
    const cube_cnode *root = m.runs[0].root;
    cube_cnode *oroot = copy_cnode(&m, 0, root, NULL);
    if (!oroot || merge_suites(&m, oroot) != 0)
        goto done;
    rc = 0;
done:
    if (rc == -1)
        bench_err(err, errlen, "merging: %s",
               m.out && failed(m.out) ? cube_error(m.out) : "out of memory");
    cube_t *out = m.out;
    free_merge(&m);
    if (rc != 0) {
        cube_free(out);
        return NULL;
    }
    return out;
}

int cube_bench_merge_files(const char *const *paths, size_t n, const char *output,
                           unsigned flags, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (n == 0 || !paths) {
        bench_err(err, errlen, "no runs to merge");
        return -1;
    }
    if (!output) {
        bench_err(err, errlen, "no output file");
        return -1;
    }
    cube_t **runs = calloc(n, sizeof *runs);
    if (!runs) {
        bench_err(err, errlen, "out of memory");
        return -1;
    }
    int rc = -1;
    /* checked before anything is read: a mistake in the names should not
     * cost reading standard input first */
    size_t stdin_uses = 0;
    for (size_t k = 0; k < n; k++) {
        if (!paths[k]) {
            bench_err(err, errlen, "run %zu: no file name", k + 1);
            goto done;
        }
        if (strcmp(paths[k], "-") == 0 && ++stdin_uses > 1) {
            bench_err(err, errlen, "-: standard input can be read only once");
            goto done;
        }
    }
    for (size_t k = 0; k < n; k++) {
        if (!(runs[k] = cube_create())) {
            bench_err(err, errlen, "%s: out of memory", paths[k]);
            goto done;
        }
        if (cube_read(runs[k], paths[k]) != 0) {
            const char *e = cube_error(runs[k]);
            /* the reader's messages begin with the file name; make sure */
            if (strncmp(e, paths[k], strlen(paths[k])) == 0)
                bench_err(err, errlen, "%s", e);
            else
                bench_err(err, errlen, "%s: %s", paths[k], *e ? e : "cannot be read");
            goto done;
        }
    }
    cube_t *merged = cube_bench_merge(runs, paths, n, err, errlen);
    if (!merged)
        goto done;
    if (cube_write_file(merged, output, flags) != 0) {
        const char *e = cube_error(merged);
        if (strstr(e, output))
            bench_err(err, errlen, "%s", e);
        else
            bench_err(err, errlen, "%s: %s", output, *e ? e : "cannot be written");
    } else {
        rc = 0;
    }
    cube_free(merged);
done:
    for (size_t k = 0; k < n; k++)
        cube_free(runs[k]);
    free(runs);
    return rc;
}

/* --- comparing two runs -------------------------------------------------- */

void cube_bench_ratio(double before, double before_se, double after, double after_se,
                      double *ratio, double *ratio_se)
{
    /* a time of 0 or below (an operation as cheap as the empty loop the
     * dummy time measures) has no ratio */
    if (!(before > 0.0) || !isfinite(before) || !isfinite(after)) {
        *ratio = *ratio_se = NAN;
        return;
    }
    double r = after / before;
    double ea = after != 0.0 ? after_se / after : 0.0, eb = before_se / before;
    *ratio = r;
    *ratio_se = fabs(r) * sqrt(ea * ea + eb * eb);
}

cube_bench_verdict cube_bench_judge(double ratio, double ratio_se, double threshold)
{
    if (!isfinite(ratio))
        return CUBE_BENCH_SAME;
    double noise = CUBE_BENCH_NOISE_SIGMAS * (isfinite(ratio_se) ? ratio_se : 0.0);
    double d = ratio - 1.0;
    if (fabs(d) <= noise)
        return CUBE_BENCH_SAME;
    if (d < 0.0)
        return CUBE_BENCH_FASTER;
    return d - noise > threshold ? CUBE_BENCH_REGRESSION : CUBE_BENCH_SLOWER;
}

const char *cube_bench_verdict_name(cube_bench_verdict v)
{
    switch (v) {
    case CUBE_BENCH_SAME: return "same";
    case CUBE_BENCH_FASTER: return "faster";
    case CUBE_BENCH_SLOWER: return "slower";
    case CUBE_BENCH_REGRESSION: return "regression";
    case CUBE_BENCH_ONLY_BEFORE: return "only-before";
    case CUBE_BENCH_ONLY_AFTER: return "only-after";
    }
    return "?";
}

/* The first thread of the process of rank 0 (where a run keeps its result). */
static const cube_thread *rank0_thread(const cube_t *c)
{
    for (size_t p = 0; p < cube_num_processes(c); p++) {
        const cube_process *pr = cube_get_process(c, p);
        if (cube_process_rank(pr) == 0 && cube_process_num_threads(pr) > 0)
            return cube_process_thread(pr, 0);
    }
    return NULL;
}

static int compare_fill(merge_t *m, cube_bench_cmp_row **rows, size_t *nrows, double threshold)
{
    cube_bench_cmp_row *out = NULL;
    size_t n = 0, cap = 0, ns = 0;
    msuite *suites = collect_suites(m, &ns);
    if (!suites)
        goto oom;
    for (size_t i = 0; i < ns; i++) {
        size_t np = 0;
        mpoint *pts = collect_points(m, &suites[i], &np);
        if (!pts)
            goto oom;
        for (size_t j = 0; j < np; j++) {
            cube_bench_cmp_row *grown = bench_grow(out, n, &cap, sizeof *grown, 64);
            if (!grown) {
                free_points(pts, np);
                goto oom;
            }
            out = grown;
            cube_bench_cmp_row *r = &out[n++];
            memset(r, 0, sizeof *r);
            r->suite = suites[i].name;
            r->occurrence = suites[i].occurrence;
            r->argument = pts[j].name;
            for (size_t k = 0; k < 2; k++) {
                int src = contribution(m, k, &suites[i], &pts[j], 0);
                const double *v = m->vals + k * m->nmet;
                if (k == 0) {
                    r->before_source = src;
                    r->before = src ? v[0] : NAN;
                    r->before_se = src ? v[1] : NAN;
                } else {
                    r->after_source = src;
                    r->after = src ? v[0] : NAN;
                    r->after_se = src ? v[1] : NAN;
                }
            }
            if (r->before_source && r->after_source) {
                cube_bench_ratio(r->before, r->before_se, r->after, r->after_se, &r->ratio,
                                 &r->ratio_se);
                r->verdict = cube_bench_judge(r->ratio, r->ratio_se, threshold);
            } else {
                r->ratio = r->ratio_se = NAN;
                r->verdict = r->before_source ? CUBE_BENCH_ONLY_BEFORE : CUBE_BENCH_ONLY_AFTER;
            }
        }
        free_points(pts, np);
    }
    free_suites(suites, ns);
    *rows = out;
    *nrows = n;
    if (!out)
        *rows = calloc(1, sizeof **rows);
    return *rows ? 0 : -1;
oom:
    if (suites)
        free_suites(suites, ns);
    free(out);
    return -1;
}

int cube_bench_compare(const cube_t *before, const cube_t *after, const char *const names[2],
                       double threshold, cube_bench_cmp_row **rows, size_t *nrows, char *err,
                       size_t errlen)
{
    *rows = NULL;
    *nrows = 0;
    run_t runs[2];
    memset(runs, 0, sizeof runs);
    const cube_metric *met[2][3];
    const cube_thread *thr[2];
    const cube_t *cs[2] = {before, after};
    static const char *const uniq[3] = {"time", "stderr", "reps"};
    for (size_t k = 0; k < 2; k++) {
        run_t *r = &runs[k];
        r->c = cs[k];
        r->name = names && names[k] ? names[k] : k ? "AFTER" : "BEFORE";
        for (size_t i = 0; i < 3; i++)
            if (!(met[k][i] = cube_find_metric(r->c, uniq[i]))) {
                bench_err(err, errlen, "%s: not a cube_bench experiment: it has no metric \"%s\"",
                          r->name, uniq[i]);
                return -1;
            }
        if (!(r->root = find_root(r->c))) {
            bench_err(err, errlen,
                      "%s: not a cube_bench experiment: it has no call-tree root \"cube_bench\"",
                      r->name);
            return -1;
        }
        if (!(thr[k] = rank0_thread(r->c))) {
            bench_err(err, errlen, "%s: expected a process of rank 0, found none", r->name);
            return -1;
        }
        r->reps = met[k][2];
        r->met = met[k];
        r->thr = &thr[k];
    }
    double vals[2 * 3], times[2], weights[2];
    merge_t m;
    memset(&m, 0, sizeof m);
    m.runs = runs;
    m.n = 2;
    m.nmet = 3;
    m.nthr = 1;
    m.time_index = 0;
    m.reps_index = 2;
    m.vals = vals;
    m.times = times;
    m.weights = weights;
    m.err = err;
    m.errlen = errlen;
    if (compare_fill(&m, rows, nrows, threshold) != 0) {
        bench_err(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
