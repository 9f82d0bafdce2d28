/*
 * refine.c - automatic parameter refinement, as in SKaMPI; the rules
 * are in refine.h.
 *
 * The measured points form a doubly linked list in argument order (nodes in
 * one growing array, linked by index).  A segment is named by its left node.
 * The priority queue is a binary heap of (key, segment, stamp) entries with
 * lazy invalidation: when a segment's key changes (it was split, or one of
 * its neighbour points changed) its node's stamp is bumped and a new entry
 * pushed; popped entries whose stamp is stale are skipped.  That avoids a
 * decrease-key operation and keeps every step O(log n).
 */
#include "refine.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* more start points than this is a mistake in the parameters (a stepwidth
 * of 1.000001, say), not a suite anyone can wait for */
#define REFINE_MAX_START 1000000.0
/* arguments are integers held in doubles: exact below 2^53 */
#define REFINE_MAX_ARG 9007199254740992.0

typedef struct {
    double x, value, se;
    int prev, next;       /* -1 at the ends */
    unsigned stamp;       /* version of the segment (this node, next) */
} node;

typedef struct {
    double key, xb;
    int left;
    unsigned stamp;
} entry;

typedef struct {
    const refine_params *p;
    double unit;          /* arguments are multiples of this */
    double lo, hi;        /* the range ends rounded inwards */
    double min_dist;
    node *nodes;
    size_t n_nodes, cap_nodes;
    int head, tail;
    entry *heap;
    size_t n_heap, cap_heap;
    refine_measure_fn measure;
    refine_clock_fn clk;
    void *ctx;
    double t0;
} state;

static int is_log(refine_scale s)
{
    return s == SCALE_FIXED_LOG || s == SCALE_DYNAMIC_LOG;
}

static int is_dynamic(refine_scale s)
{
    return s == SCALE_DYNAMIC_LINEAR || s == SCALE_DYNAMIC_LOG;
}

const char *refine_scale_name(refine_scale s)
{
    switch (s) {
    case SCALE_FIXED_LINEAR: return "Fixed_linear";
    case SCALE_FIXED_LOG: return "Fixed_log";
    case SCALE_DYNAMIC_LINEAR: return "Dynamic_linear";
    case SCALE_DYNAMIC_LOG: return "Dynamic_log";
    }
    return NULL;
}

static double unit_of(const refine_params *p)
{
    return p->multiple_of > 1 ? (double)p->multiple_of : 1.0;
}

static double round_to(double x, double u)
{
    return u * floor(x / u + 0.5);
}

static int fail(char *err, size_t errlen, const char *msg, double found)
{
    if (err && errlen)
        snprintf(err, errlen, "%s, found %.17g", msg, found);
    return -1;
}

int refine_check(const refine_params *p, char *err, size_t errlen)
{
    if (!refine_scale_name(p->scale))
        return fail(err, errlen, "expected a scale (Fixed_linear, Fixed_log, Dynamic_linear, Dynamic_log)",
                    (double)p->scale);
    if (!isfinite(p->x_start) || p->x_start < 0 || p->x_start > REFINE_MAX_ARG)
        return fail(err, errlen, "expected a start argument >= 0", p->x_start);
    if (!isfinite(p->x_end) || p->x_end < p->x_start || p->x_end > REFINE_MAX_ARG)
        return fail(err, errlen, "expected an end argument >= the start argument", p->x_end);
    double u = unit_of(p);
    if (ceil(p->x_start / u) * u > floor(p->x_end / u) * u)
        return fail(err, errlen, "expected a multiple of Multiple_of between start and end argument",
                    (double)p->multiple_of);
    if (is_log(p->scale)) {
        if (!(p->stepwidth > 1.0) || !isfinite(p->stepwidth))
            return fail(err, errlen, "expected a stepwidth > 1 for a logarithmic scale", p->stepwidth);
        double base = p->x_start >= 1.0 ? p->x_start : 1.0;
        if (p->x_end > base && log(p->x_end / base) / log(p->stepwidth) > REFINE_MAX_START)
            return fail(err, errlen, "expected at most 1000000 start points (a larger stepwidth)",
                        p->stepwidth);
    } else {
        if (!(p->stepwidth > 0.0) || !isfinite(p->stepwidth))
            return fail(err, errlen, "expected a stepwidth > 0 for a linear scale", p->stepwidth);
        if ((p->x_end - p->x_start) / p->stepwidth > REFINE_MAX_START)
            return fail(err, errlen, "expected at most 1000000 start points (a larger stepwidth)",
                        p->stepwidth);
    }
    if (isnan(p->x_min_dist) || isnan(p->time_suite) || isnan(p->max_rel_error))
        return fail(err, errlen, "expected numbers for x_min_dist, time_suite, max_rel_error", NAN);
    return 0;
}

/* appends v (rounded, clamped to [lo, hi]) if it is beyond the last one */
static int push_start(double **xs, size_t *n, size_t *cap, double v, double u, double lo, double hi)
{
    double r = round_to(v, u);
    if (r < lo)
        r = lo;
    if (r > hi)
        r = hi;
    if (*n > 0 && r <= (*xs)[*n - 1])
        return 0;
    double *grown = bench_grow(*xs, *n, cap, sizeof *grown, 64);
    if (!grown)
        return -1;
    *xs = grown;
    (*xs)[(*n)++] = r;
    return 0;
}

int refine_start_points(const refine_params *p, double **xs, size_t *n)
{
    *xs = NULL;
    *n = 0;
    if (refine_check(p, NULL, 0) != 0)
        return -1;
    double u = unit_of(p);
    double lo = ceil(p->x_start / u) * u, hi = floor(p->x_end / u) * u;
    size_t cap = 0;
    double *v = NULL;
    size_t k = 0;
    int rc = 0;
    if (is_log(p->scale)) {
        double base = p->x_start;
        if (base < 1.0) {
            /* 0 * stepwidth^k stays 0: measure x_start, then go on from 1 */
            rc = push_start(&v, &k, &cap, p->x_start, u, lo, hi);
            base = 1.0;
        }
        for (double i = 0; rc == 0; i++) {
            double x = base * pow(p->stepwidth, i);
            if (x >= p->x_end)
                break;
            rc = push_start(&v, &k, &cap, x, u, lo, hi);
        }
    } else {
        for (double i = 0; rc == 0; i++) {
            double x = p->x_start + i * p->stepwidth;
            if (x >= p->x_end)
                break;
            rc = push_start(&v, &k, &cap, x, u, lo, hi);
        }
    }
    if (rc == 0)
        rc = push_start(&v, &k, &cap, hi, u, lo, hi);   /* always x_end */
    if (rc != 0) {
        free(v);
        return -1;
    }
    *xs = v;
    *n = k;
    return 0;
}

/* --- the heap ----------------------------------------------------------- */

/* a before b: larger key, then smaller x (determinism on ties) */
static int before(const entry *a, const entry *b)
{
    if (a->key != b->key)
        return a->key > b->key;
    return a->xb < b->xb;
}

static int heap_push(state *s, entry e)
{
    entry *grown = bench_grow(s->heap, s->n_heap, &s->cap_heap, sizeof *grown, 64);
    if (!grown)
        return -1;
    s->heap = grown;
    size_t i = s->n_heap++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&e, &s->heap[parent]))
            break;
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = e;
    return 0;
}

static entry heap_pop(state *s)
{
    entry top = s->heap[0];
    entry last = s->heap[--s->n_heap];
    size_t i = 0, n = s->n_heap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!before(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n > 0)
        s->heap[i] = last;
    return top;
}

/* --- points and segments ------------------------------------------------ */

static int add_node(state *s, double x, double value, double se, int prev, int next)
{
    node *grown = bench_grow(s->nodes, s->n_nodes, &s->cap_nodes, sizeof *grown, 64);
    if (!grown)
        return -1;
    s->nodes = grown;
    int id = (int)s->n_nodes++;
    node *nd = &s->nodes[id];
    nd->x = x;
    nd->value = value;
    nd->se = se;
    nd->prev = prev;
    nd->next = next;
    nd->stamp = 0;
    if (prev >= 0)
        s->nodes[prev].next = id;
    else
        s->head = id;
    if (next >= 0)
        s->nodes[next].prev = id;
    else
        s->tail = id;
    return id;
}

/* |d| relative to the value at the predicted point */
static double rel_err(double d, double t)
{
    d = fabs(d);
    if (t != 0.0)
        return d / fabs(t);
    return d == 0.0 ? 0.0 : INFINITY;
}

/* key K of the segment starting at node b (SKaMPI's key; see refine.h) */
static double segment_key(const state *s, int b)
{
    const node *nb = &s->nodes[b], *nc = &s->nodes[nb->next];
    double mb = nb->x, mc = nc->x, tb = nb->value, tc = nc->value;
    double len;
    if (is_log(s->p->scale))
        len = mb > 0.0 ? (mc - mb) / mb : INFINITY;
    else
        len = (mc - mb) / (s->hi - s->lo);
    double k = len;
    if (nc->next >= 0) {
        /* d1: the right-hand segment (c, d) extrapolated back to m_b */
        const node *nd = &s->nodes[nc->next];
        double pred = tc + (nd->value - tc) / (nd->x - mc) * (mb - mc);
        double r = rel_err(tb - pred, tb);
        if (r < k)
            k = r;
    }
    if (nb->prev >= 0) {
        /* d2: the left-hand segment (a, b) extrapolated forward to m_c */
        const node *na = &s->nodes[nb->prev];
        double pred = tb + (tb - na->value) / (mb - na->x) * (mc - mb);
        double r = rel_err(tc - pred, tc);
        if (r < k)
            k = r;
    }
    return isnan(k) ? 0.0 : k;   /* a NaN measurement carries no information */
}

static int split_ok(const state *s, double x, double mb, double mc)
{
    return x > mb && x < mc && x - mb >= s->min_dist && mc - x >= s->min_dist;
}

/* where to split segment (mb, mc); 0 and *x, or -1 when it cannot be split */
static int split_point(const state *s, double mb, double mc, double *x)
{
    double u = s->unit, target;
    if (is_log(s->p->scale))
        target = sqrt((mb > u ? mb : u) * mc);
    else
        target = 0.5 * (mb + mc);
    double f = u * floor(target / u), c = f + u;
    /* the nearer multiple first, then the other one */
    double first = target - f <= c - target ? f : c;
    double second = first == f ? c : f;
    if (split_ok(s, first, mb, mc)) {
        *x = first;
        return 0;
    }
    if (split_ok(s, second, mb, mc)) {
        *x = second;
        return 0;
    }
    return -1;
}

/* (re)queue the segment starting at b with a new stamp; segments that cannot
 * be split are not queued (they left the queue for good) */
static int requeue(state *s, int b)
{
    if (b < 0 || s->nodes[b].next < 0)
        return 0;
    node *nb = &s->nodes[b];
    nb->stamp++;
    double x;
    if (split_point(s, nb->x, s->nodes[nb->next].x, &x) != 0)
        return 0;
    entry e = { segment_key(s, b), nb->x, b, nb->stamp };
    return heap_push(s, e);
}

/* 1 when the suite's time is up */
static int time_up(const state *s)
{
    if (!s->clk || !(s->p->time_suite > 0.0))
        return 0;
    return s->clk(s->ctx) - s->t0 >= s->p->time_suite;
}

static int measure(state *s, double x, double *value, double *se)
{
    *value = 0.0;
    *se = 0.0;
    return s->measure(s->ctx, x, value, se) == 0 ? 0 : -1;
}

static int run(state *s)
{
    const refine_params *p = s->p;
    int dynamic = is_dynamic(p->scale);
    double *xs;
    size_t nx;
    if (refine_start_points(p, &xs, &nx) != 0)
        return -1;
    int stopped = 0;
    for (size_t i = 0; i < nx; i++) {
        if ((dynamic && p->x_max_steps > 0 && s->n_nodes >= (size_t)p->x_max_steps) || time_up(s)) {
            stopped = 1;
            break;
        }
        double v, se;
        if (measure(s, xs[i], &v, &se) != 0 || add_node(s, xs[i], v, se, s->tail, -1) < 0) {
            free(xs);
            return -1;
        }
    }
    free(xs);
    if (!dynamic || stopped)
        return 0;

    for (int b = s->head; b >= 0; b = s->nodes[b].next)
        if (requeue(s, b) != 0)
            return -1;
    while (s->n_heap > 0) {
        entry e = heap_pop(s);
        node *nb = &s->nodes[e.left];
        if (e.stamp != nb->stamp)
            continue;                           /* stale entry */
        if (e.key <= p->max_rel_error)
            break;                              /* the largest error is small */
        if (p->x_max_steps > 0 && s->n_nodes >= (size_t)p->x_max_steps)
            break;
        if (time_up(s))
            break;
        int b = e.left, c = nb->next;
        double x, v, se;
        if (split_point(s, nb->x, s->nodes[c].x, &x) != 0)
            continue;                           /* cannot happen: checked when queued */
        if (measure(s, x, &v, &se) != 0)
            return -1;
        int a = s->nodes[b].prev;
        int id = add_node(s, x, v, se, b, c);
        if (id < 0)
            return -1;
        /* the split segment's halves, and the neighbours whose d or a moved */
        if (requeue(s, b) || requeue(s, id) || requeue(s, a) || requeue(s, c))
            return -1;
    }
    return 0;
}

int refine_run(const refine_params *p, refine_measure_fn m, refine_clock_fn clk, void *ctx,
               refine_point **points, size_t *n)
{
    *points = NULL;
    *n = 0;
    if (!m || refine_check(p, NULL, 0) != 0)
        return -1;
    state s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.unit = unit_of(p);
    s.lo = ceil(p->x_start / s.unit) * s.unit;
    s.hi = floor(p->x_end / s.unit) * s.unit;
    s.min_dist = p->x_min_dist > s.unit ? p->x_min_dist : s.unit;
    s.head = s.tail = -1;
    s.measure = m;
    s.clk = clk;
    s.ctx = ctx;
    s.t0 = clk ? clk(ctx) : 0.0;
    int rc = run(&s);
    if (rc == 0 && s.n_nodes > 0) {
        refine_point *out = malloc(s.n_nodes * sizeof *out);
        if (!out) {
            rc = -1;
        } else {
            size_t k = 0;
            for (int i = s.head; i >= 0; i = s.nodes[i].next) {
                out[k].x = s.nodes[i].x;
                out[k].value = s.nodes[i].value;
                out[k].std_error = s.nodes[i].se;
                k++;
            }
            *points = out;
            *n = k;
        }
    }
    free(s.nodes);
    free(s.heap);
    return rc;
}
