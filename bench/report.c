/*
 * report.c - the HTML report of cube_bench runs (report.h says what the
 * page holds and how its charts map values to pixels).
 *
 * First the runs are lined up into one model (suites by name, arguments by
 * region name, rank 0's values), so that nothing is written when a run is
 * not a cube_bench experiment; then the page is written in one pass.
 *
 * The page must be well-formed XML and HTML at once, so: only the five
 * predefined entities (other characters literally, in UTF-8), no element
 * of HTML written as <x/> unless it is a void element (meta), and text from
 * the runs escaped, with anything that is not a well-formed XML character
 * in UTF-8 replaced by U+FFFD (as cube_linktest --svg does).
 */
#include "report.h"
#include "util.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout of a chart (px) ------------------------------------------- */

#define SVG_W 760.0
#define PLOT_X0 96.0  /* left edge of the plot area */
#define PLOT_X1 740.0 /* right edge */
#define PLOT_Y1 16.0  /* top: the largest time */
#define PLOT_Y0 306.0 /* bottom: the smallest time */
#define PAD 8.0       /* the frame this far outside: no point sits on it */
#define LEGEND_Y (PLOT_Y0 + 66.0)
#define LEGEND_LINE 18.0
#define MAX_TICKS 13

/* Okabe and Ito's colours, told apart also by people with a colour vision
 * deficiency (their yellow left out: too light on white); from the eighth
 * run on the lines are dashed as well. */
static const char *const colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#000000"};
#define NUM_COLOURS (sizeof colours / sizeof colours[0])
static const char *const dashes[] = {NULL, "6 3", "2 3", "8 3 2 3"};
#define NUM_DASHES (sizeof dashes / sizeof dashes[0])

static const char *run_colour(size_t r) { return colours[r % NUM_COLOURS]; }
static const char *run_dash(size_t r) { return dashes[(r / NUM_COLOURS) % NUM_DASHES]; }

/* ---- the runs lined up ---------------------------------------------------- */

typedef struct {
    const cube_t *c;
    const char *name;
    char namebuf[32];
    const cube_metric *time, *se, *reps;
    size_t thread; /* index of rank 0's thread in every row */
    const cube_cnode *root;
    const char *merged; /* attribute "merged runs", or NULL */
} rp_run;

typedef struct {
    const char *label; /* the region name, "len=1024" */
    int numeric;       /* KEY=NUMBER */
    const char *key;
    double x;
    size_t seq; /* order of first appearance */
} rp_arg;

typedef struct {
    int present; /* the run has the argument's call path */
    int has;     /* and a value there */
    double t, se, reps;
} rp_val;

typedef struct {
    const char *name;
    size_t occ; /* a suite name repeated in a run: its k-th call path */
    const char *descr;
    const cube_cnode **cn; /* per run; NULL: not in that run */
    rp_arg *args;
    size_t nargs, cap;
    rp_val *vals;    /* vals[arg * nruns + run] */
    const char *key; /* the argument's key, or NULL: categories */
} rp_suite;

typedef struct {
    rp_run *runs;
    size_t nruns;
    rp_suite *suites;
    size_t nsuites, cap;
} rp_model;

/* "KEY=NUMBER" with a KEY cube_bench writes: 1 with *key and *x set. */
static int parse_arg(const char *s, const char **key, double *x)
{
    static const char *const keys[] = {"len", "nodes", "chunks", "arg"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        size_t k = strlen(keys[i]);
        if (strncmp(s, keys[i], k) != 0 || s[k] != '=' || s[k + 1] == '\0')
            continue;
        double v;
        if (cube_parse_double(s + k + 1, strlen(s + k + 1), &v, NULL) != 0)
            return 0;
        *key = keys[i];
        *x = v;
        return 1;
    }
    return 0;
}

static void model_free(rp_model *m)
{
    for (size_t i = 0; i < m->nsuites; i++) {
        free(m->suites[i].cn);
        free(m->suites[i].args);
        free(m->suites[i].vals);
    }
    free(m->suites);
    free(m->runs);
}

static int setup_run(rp_run *run, const cube_t *c, const char *name, size_t i, char *err,
                     size_t errlen)
{
    run->c = c;
    snprintf(run->namebuf, sizeof run->namebuf, "run %zu", i + 1);
    run->name = name ? name : run->namebuf;
    if (!c) {
        bench_err(err, errlen, "%s: no experiment", run->name);
        return -1;
    }
    static const char *const mets[] = {"time", "stderr", "reps"};
    const cube_metric **dst[] = {&run->time, &run->se, &run->reps};
    for (size_t k = 0; k < 3; k++)
        if (!(*dst[k] = cube_find_metric(c, mets[k]))) {
            bench_err(err, errlen, "%s: not a cube_bench experiment: no metric '%s'", run->name,
                   mets[k]);
            return -1;
        }
    run->root = NULL;
    for (size_t k = 0; k < cube_num_root_cnodes(c) && !run->root; k++) {
        const cube_cnode *cn = cube_get_root_cnode(c, k);
        if (strcmp(cube_region_name(cube_cnode_callee(cn)), "cube_bench") == 0)
            run->root = cn;
    }
    if (!run->root) {
        bench_err(err, errlen, "%s: not a cube_bench experiment: no call path 'cube_bench'",
               run->name);
        return -1;
    }
    /* the process with rank 0; its first thread (thread rank 0) */
    const cube_thread *best = NULL;
    for (size_t k = 0; k < cube_num_threads(c); k++) {
        const cube_thread *t = cube_get_thread(c, k);
        if (cube_thread_process(t) && cube_process_rank(cube_thread_process(t)) == 0 &&
            (!best || cube_thread_rank(t) < cube_thread_rank(best)))
            best = t;
    }
    if (!best) {
        bench_err(err, errlen, "%s: no process with rank 0", run->name);
        return -1;
    }
    run->thread = cube_thread_index(best);
    run->merged = cube_get_attr(c, "merged runs");
    return 0;
}

static rp_suite *find_suite(rp_model *m, const char *name, size_t occ)
{
    for (size_t i = 0; i < m->nsuites; i++)
        if (m->suites[i].occ == occ && strcmp(m->suites[i].name, name) == 0)
            return &m->suites[i];
    rp_suite *grown = bench_grow(m->suites, m->nsuites, &m->cap, sizeof *grown, 32);
    if (!grown)
        return NULL;
    m->suites = grown;
    rp_suite *s = &m->suites[m->nsuites];
    memset(s, 0, sizeof *s);
    if (!(s->cn = calloc(m->nruns, sizeof *s->cn)))
        return NULL;
    s->name = name;
    s->occ = occ;
    m->nsuites++;
    return s;
}

static size_t find_arg(const rp_suite *s, const char *label)
{
    for (size_t i = 0; i < s->nargs; i++)
        if (strcmp(s->args[i].label, label) == 0)
            return i;
    return (size_t)-1;
}

static int add_arg(rp_suite *s, const char *label)
{
    if (find_arg(s, label) != (size_t)-1)
        return 0;
    rp_arg *grown = bench_grow(s->args, s->nargs, &s->cap, sizeof *grown, 64);
    if (!grown)
        return -1;
    s->args = grown;
    rp_arg *a = &s->args[s->nargs];
    a->label = label;
    a->seq = s->nargs;
    a->key = NULL;
    a->x = 0;
    a->numeric = parse_arg(label, &a->key, &a->x);
    s->nargs++;
    return 0;
}

static int cmp_arg_x(const void *pa, const void *pb)
{
    const rp_arg *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static double row_value(const cube_t *c, const cube_metric *m, const cube_cnode *cn, size_t t,
                        int *found)
{
    const double *row = cube_get_row(c, m, cn);
    if (found)
        *found = row != NULL;
    return row ? row[t] : 0.0; /* an absent row is all zeros */
}

/* The arguments of a suite over all runs, in order, and every run's
 * values at each. */
static int line_up_suite(rp_model *m, rp_suite *s)
{
    for (size_t r = 0; r < m->nruns; r++) {
        const cube_cnode *sn = s->cn[r];
        for (size_t k = 0; sn && k < cube_cnode_num_children(sn); k++)
            if (add_arg(s, cube_region_name(cube_cnode_callee(cube_cnode_child(sn, k)))) != 0)
                return -1;
    }
    s->key = NULL;
    int same_key = s->nargs > 0;
    for (size_t i = 0; i < s->nargs && same_key; i++)
        same_key = s->args[i].numeric && strcmp(s->args[i].key, s->args[0].key) == 0;
    if (same_key) {
        s->key = s->args[0].key;
        qsort(s->args, s->nargs, sizeof *s->args, cmp_arg_x);
    }
    /* else: categories, in the order they first came */
    if (s->nargs && !(s->vals = calloc(s->nargs * m->nruns, sizeof *s->vals)))
        return -1;
    for (size_t r = 0; r < m->nruns; r++) {
        const cube_cnode *sn = s->cn[r];
        const rp_run *run = &m->runs[r];
        for (size_t k = 0; sn && k < cube_cnode_num_children(sn); k++) {
            const cube_cnode *an = cube_cnode_child(sn, k);
            const char *label = cube_region_name(cube_cnode_callee(an));
            rp_val *v = &s->vals[find_arg(s, label) * m->nruns + r];
            if (v->present) /* an argument repeated: the first counts */
                continue;
            int found;
            v->present = 1;
            v->t = row_value(run->c, run->time, an, run->thread, &found);
            v->se = row_value(run->c, run->se, an, run->thread, NULL);
            v->reps = row_value(run->c, run->reps, an, run->thread, NULL);
            /* no row, or a rank 0 that took no part (time and reps 0) */
            v->has = found && !isnan(v->t) && !(v->t == 0 && v->reps == 0);
        }
    }
    return 0;
}

static int build_model(rp_model *m, cube_t *const *runs, const char *const *names, size_t n,
                       char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (n == 0) {
        bench_err(err, errlen, "no runs to report");
        return -1;
    }
    if (!(m->runs = calloc(n, sizeof *m->runs))) {
        bench_err(err, errlen, "out of memory");
        return -1;
    }
    m->nruns = n;
    for (size_t r = 0; r < n; r++)
        if (setup_run(&m->runs[r], runs[r], names ? names[r] : NULL, r, err, errlen) != 0)
            return -1;
    for (size_t r = 0; r < n; r++) {
        const cube_cnode *root = m->runs[r].root;
        for (size_t k = 0; k < cube_cnode_num_children(root); k++) {
            const cube_cnode *sn = cube_cnode_child(root, k);
            const cube_region *callee = cube_cnode_callee(sn);
            size_t occ = 0;
            for (size_t j = 0; j < k; j++)
                occ += strcmp(cube_region_name(cube_cnode_callee(cube_cnode_child(root, j))),
                              cube_region_name(callee)) == 0;
            rp_suite *s = find_suite(m, cube_region_name(callee), occ);
            if (!s) {
                bench_err(err, errlen, "out of memory");
                return -1;
            }
            s->cn[r] = sn;
            if (!s->descr && *cube_region_descr(callee))
                s->descr = cube_region_descr(callee);
        }
    }
    for (size_t i = 0; i < m->nsuites; i++)
        if (line_up_suite(m, &m->suites[i]) != 0) {
            bench_err(err, errlen, "out of memory");
            return -1;
        }
    return 0;
}

/* ---- writing ---------------------------------------------------------- */

/* Text or an attribute value, escaped as libcube escapes every XML text. */
static void esc(FILE *fp, const char *s)
{
    cube_fputs_xml(s, fp);
}

/* A number that reads back to the same double (for data- attributes). */
static void num(FILE *fp, double v)
{
    char b[CUBE_DOUBLE_BUFSIZE];
    cube_format_double(v, b);
    fputs(b, fp);
}

/* A time for people: four significant digits in ns, µs, ms or s. */
static void fmt_time(char *b, size_t n, double s)
{
    bench_format_time(s, "µs", b, n);
}

/* A size in bytes for people: B, KiB, MiB, GiB, TiB. */
static void fmt_bytes(char *b, size_t n, double v)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && fabs(v) >= 1024) {
        v /= 1024;
        u++;
    }
    snprintf(b, n, "%.4g %s", v, units[u]);
}

/* ---- axes ------------------------------------------------------------- */

typedef enum { AX_TIME, AX_BYTES, AX_COUNT, AX_PLAIN } ax_kind;

typedef struct {
    ax_kind kind;
    double lmin, lmax; /* log10 of the ends */
    double p0, p1;     /* their pixels */
    double ticks[MAX_TICKS];
    size_t nticks;
} axis;

static double axis_px(const axis *a, double v)
{
    return a->p0 + (log10(v) - a->lmin) / (a->lmax - a->lmin) * (a->p1 - a->p0);
}

/* 1, 2, 5 times a power of ten: the largest <= v (dir < 0) or smallest >= v. */
static double nice125(double v, int dir)
{
    static const double m[] = {1, 2, 5, 10};
    double e = floor(log10(v)), p = pow(10, e);
    double f = v / p;
    if (dir < 0) {
        double best = m[0];
        for (size_t i = 0; i < 4; i++)
            if (m[i] <= f * (1 + 1e-9))
                best = m[i];
        return best * p;
    }
    for (size_t i = 0; i < 4; i++)
        if (m[i] >= f * (1 - 1e-9))
            return m[i] * p;
    return 10 * p;
}

/* The next value of the 1-2-5 grid above (dir > 0) or below a grid value v. */
static double step125(double v, int dir)
{
    return dir > 0 ? nice125(v * 1.001, 1) : nice125(v * 0.999, -1);
}

/* A decimal log axis over [lo, hi] (0 < lo <= hi); the ends are ticks.
 * Under a decade (the local calls, a Barrier at one process count): a
 * linear grid of 1, 2 or 5 times a power of ten, so that there are at
 * least three labels; up to 2.5 decades the 1-2-5 grid; beyond that whole
 * decades. */
static void decimal_axis(axis *a, double lo, double hi)
{
    a->nticks = 0;
    if (hi <= lo * (1 + 1e-9)) { /* one value: a little room around it */
        lo /= 1.5;
        hi *= 1.5;
    }
    if (log10(hi) - log10(lo) < 1) {
        /* steps from large to small, 5, 2, 1, 0.5, 0.2, ... x 10^e: the
         * first that gives five ticks, or else the last that gave three */
        double e = floor(log10((hi - lo) / 2)), best_step = 0, bk0 = 0, bk1 = 0;
        static const double m[] = {5, 2, 1};
        for (int k = 0; k < 3 * 3; k++) {
            double step = m[k % 3] * pow(10, e - k / 3);
            double k0 = floor(lo / step * (1 + 1e-9)), k1 = ceil(hi / step * (1 - 1e-9));
            if (k0 < 1 || k1 - k0 < 2)
                continue;
            if (k1 - k0 > MAX_TICKS - 1)
                break;
            best_step = step;
            bk0 = k0;
            bk1 = k1;
            if (k1 - k0 >= 4)
                break;
        }
        if (best_step > 0) {
            a->lmin = log10(bk0 * best_step);
            a->lmax = log10(bk1 * best_step);
            for (double t = bk0; t <= bk1; t++)
                a->ticks[a->nticks++] = t * best_step;
            return;
        }
        /* no linear grid fits: the 1-2-5 grid below */
    }
    if (log10(hi) - log10(lo) <= 2.5) {
        double l = nice125(lo, -1), h = nice125(hi, 1);
        if (h <= l * (1 + 1e-9)) {
            l = step125(l, -1);
            h = step125(h, 1);
        }
        a->lmin = log10(l);
        a->lmax = log10(h);
        for (double v = l; v <= h * (1 + 1e-9) && a->nticks < MAX_TICKS; v = step125(v, 1))
            a->ticks[a->nticks++] = v;
        return;
    }
    double e0 = floor(log10(lo) + 1e-9), e1 = ceil(log10(hi) - 1e-9);
    double step = ceil((e1 - e0) / (MAX_TICKS - 1));
    e0 = floor(e0 / step) * step;
    e1 = ceil(e1 / step) * step;
    a->lmin = e0;
    a->lmax = e1;
    for (double e = e0; e <= e1 + 1e-9 && a->nticks < MAX_TICKS; e += step)
        a->ticks[a->nticks++] = pow(10, e);
}

/* A binary log axis (sizes and counts that double): ends and ticks at
 * powers of two, every 1st, 2nd, 5th or 10th (so that a byte axis has a
 * tick at every KiB, MiB, ... when it thins them out). */
static void binary_axis(axis *a, double lo, double hi)
{
    double k0 = floor(log2(lo) + 1e-9), k1 = ceil(log2(hi) - 1e-9);
    if (k1 <= k0) {
        if (k0 > 0)
            k0--;
        k1 = k0 + 2;
    }
    double span = k1 - k0;
    double step = span <= 12 ? 1 : span <= 24 ? 2 : span <= 60 ? 5 : 10;
    k0 = floor(k0 / step) * step;
    k1 = ceil(k1 / step) * step;
    a->lmin = k0 * log10(2.0);
    a->lmax = k1 * log10(2.0);
    a->nticks = 0;
    for (double k = k0; k <= k1 && a->nticks < MAX_TICKS; k += step)
        a->ticks[a->nticks++] = ldexp(1.0, (int)k);
}

static void tick_label(char *b, size_t n, ax_kind kind, double v)
{
    switch (kind) {
    case AX_TIME: {
        /* 3 digits: the 1-2-5 values exactly, without 9.999e-07 */
        double a = v * (1 + 1e-9);
        if (a < 1e-6)
            snprintf(b, n, "%.3g ns", v * 1e9);
        else if (a < 1e-3)
            snprintf(b, n, "%.3g µs", v * 1e6);
        else if (a < 1)
            snprintf(b, n, "%.3g ms", v * 1e3);
        else
            snprintf(b, n, "%.3g s", v);
        break;
    }
    case AX_BYTES: fmt_bytes(b, n, v); break;
    case AX_COUNT:
    case AX_PLAIN:
        if (v >= 1 && v < 1e7)
            snprintf(b, n, "%.0f", v);
        else
            snprintf(b, n, "%g", v);
        break;
    }
}

/* ---- one suite ------------------------------------------------------------ */

typedef struct {
    FILE *fp;
    const rp_model *m;
} writer;

static int is_category(const rp_suite *s) { return s->key == NULL; }

/* May the value of run r at argument i be drawn? */
static int plottable(const rp_suite *s, size_t i, const rp_val *v)
{
    return v->has && isfinite(v->t) && v->t > 0 && (is_category(s) || s->args[i].x > 0);
}

/* In a chart of categories the runs stand side by side, `dodge` px apart,
 * so that their error bars do not hide one another. */
static double dodge(const rp_model *m, const rp_suite *s, const axis *ax)
{
    if (m->nruns < 2)
        return 0;
    double room = 0.6 * (ax->p1 - ax->p0) / (double)(s->nargs ? s->nargs : 1);
    double d = room / (double)(m->nruns - 1);
    return d < 16 ? d : 16;
}

static double point_x(const rp_model *m, const rp_suite *s, const axis *ax, size_t i, size_t r)
{
    if (is_category(s))
        return ax->p0 + ((double)i + 0.5) * (ax->p1 - ax->p0) / (double)s->nargs +
               ((double)r - (double)(m->nruns - 1) / 2) * dodge(m, s, ax);
    return axis_px(ax, s->args[i].x);
}

/* The axis takes in time - stderr only down to a tenth of the time: a
 * larger error would squeeze every other point into a corner. */
static int bar_extends_axis(const rp_val *v) { return v->t - v->se >= v->t / 10; }

/* Does the standard error bar of v reach below the axis? */
static int bar_clipped(const rp_val *v, const axis *ay)
{
    double lo = v->t - v->se;
    return !(lo > 0 && log10(lo) >= ay->lmin);
}

static void run_style(FILE *fp, size_t r)
{
    fprintf(fp, " stroke=\"%s\"", run_colour(r));
}

/* The k-th run to draw: the merged runs last, on top of the runs they
 * came from (which are otherwise drawn in their order). */
static size_t draw_order(const rp_model *m, size_t k)
{
    size_t plain = 0;
    for (size_t r = 0; r < m->nruns; r++)
        plain += m->runs[r].merged == NULL;
    int want_merged = k >= plain;
    size_t skip = want_merged ? k - plain : k;
    for (size_t r = 0; r < m->nruns; r++)
        if ((m->runs[r].merged != NULL) == want_merged && skip-- == 0)
            return r;
    return k; /* not reached */
}

static void write_line_piece(writer *w, size_t r, const double *xy, size_t npts)
{
    if (npts < 2)
        return;
    FILE *fp = w->fp;
    fprintf(fp, "<polyline class=\"line\" data-run=\"%zu\"", r);
    run_style(fp, r);
    if (run_dash(r))
        fprintf(fp, " stroke-dasharray=\"%s\"", run_dash(r));
    if (w->m->runs[r].merged)
        fputs(" stroke-width=\"2.5\"", fp);
    fputs(" points=\"", fp);
    for (size_t k = 0; k < npts; k++)
        fprintf(fp, "%s%.2f,%.2f", k ? " " : "", xy[2 * k], xy[2 * k + 1]);
    fputs("\"/>\n", fp);
}

static int write_lines(writer *w, const rp_suite *s, const axis *ax, const axis *ay)
{
    const rp_model *m = w->m;
    double *xy = malloc(2 * (s->nargs ? s->nargs : 1) * sizeof *xy);
    if (!xy)
        return -1;
    for (size_t k = 0; k < m->nruns; k++) {
        size_t r = draw_order(m, k);
        size_t npts = 0;
        for (size_t i = 0; i < s->nargs; i++) {
            const rp_val *v = &s->vals[i * m->nruns + r];
            if (!v->present)
                continue; /* measured by other runs only: joined over */
            if (!plottable(s, i, v)) {
                write_line_piece(w, r, xy, npts); /* a gap */
                npts = 0;
                continue;
            }
            xy[2 * npts] = point_x(m, s, ax, i, r);
            xy[2 * npts + 1] = axis_px(ay, v->t);
            npts++;
        }
        write_line_piece(w, r, xy, npts);
    }
    free(xy);
    return 0;
}

static void write_point_title(writer *w, const rp_suite *s, size_t i, size_t r, const rp_val *v)
{
    char t[64], e[64];
    fmt_time(t, sizeof t, v->t);
    fmt_time(e, sizeof e, v->se);
    fputs("<title>", w->fp);
    esc(w->fp, w->m->runs[r].name);
    fputs(": ", w->fp);
    esc(w->fp, s->args[i].label);
    fprintf(w->fp, ": %s ± %s, %.0f single measurements</title>", t, e, v->reps);
}

/* Inside an open attribute value: closes it and writes data-x (or
 * data-cat) of argument i, leaving that value open. */
static void write_x_attr(FILE *fp, const rp_suite *s, size_t i)
{
    if (is_category(s))
        fprintf(fp, "\" data-cat=\"%zu", i);
    else {
        fputs("\" data-x=\"", fp);
        num(fp, s->args[i].x);
    }
}

static void write_bars_and_points(writer *w, const rp_suite *s, const axis *ax, const axis *ay)
{
    const rp_model *m = w->m;
    FILE *fp = w->fp;
    for (size_t k = 0; k < m->nruns; k++)
        for (size_t i = 0, r = draw_order(m, k); i < s->nargs; i++) {
            const rp_val *v = &s->vals[i * m->nruns + r];
            if (!plottable(s, i, v) || !(v->se > 0) || !isfinite(v->se))
                continue;
            double cx = point_x(m, s, ax, i, r), lo = v->t - v->se, hi = v->t + v->se;
            int clip = bar_clipped(v, ay);
            double y1 = axis_px(ay, hi), y2 = clip ? ay->p0 : axis_px(ay, lo);
            fprintf(fp, "<line class=\"err\" data-run=\"%zu\" data-arg=\"", r);
            esc(fp, s->args[i].label);
            write_x_attr(fp, s, i);
            fputs("\" data-lo=\"", fp);
            num(fp, lo);
            fputs("\" data-hi=\"", fp);
            num(fp, hi);
            fprintf(fp, "\"%s x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"",
                    clip ? " data-clipped=\"lo\"" : "", cx, y1, cx, y2);
            run_style(fp, r);
            fputs("/>\n", fp);
            /* caps: none at a clipped end, which goes on below the axis */
            fprintf(fp, "<line class=\"cap\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"",
                    cx - 4, y1, cx + 4, y1);
            run_style(fp, r);
            fputs("/>\n", fp);
            if (!clip) {
                fprintf(fp,
                        "<line class=\"cap\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"",
                        cx - 4, y2, cx + 4, y2);
                run_style(fp, r);
                fputs("/>\n", fp);
            }
        }
    for (size_t k = 0; k < m->nruns; k++)
        for (size_t i = 0, r = draw_order(m, k); i < s->nargs; i++) {
            const rp_val *v = &s->vals[i * m->nruns + r];
            if (!plottable(s, i, v))
                continue;
            fprintf(fp, "<circle class=\"pt\" data-run=\"%zu\" data-arg=\"", r);
            esc(fp, s->args[i].label);
            write_x_attr(fp, s, i);
            fputs("\" data-y=\"", fp);
            num(fp, v->t);
            fputs("\" data-se=\"", fp);
            num(fp, v->se);
            fputs("\" data-reps=\"", fp);
            num(fp, v->reps);
            fprintf(fp, "\" cx=\"%.2f\" cy=\"%.2f\" r=\"3.5\"", point_x(m, s, ax, i, r),
                    axis_px(ay, v->t));
            run_style(fp, r);
            fputs(">", fp);
            write_point_title(w, s, i, r, v);
            fputs("</circle>\n", fp);
        }
}

static const char *x_title(const rp_suite *s)
{
    if (is_category(s))
        return "operation";
    if (strcmp(s->key, "len") == 0)
        return "message length (len)";
    if (strcmp(s->key, "nodes") == 0)
        return "processes (nodes)";
    if (strcmp(s->key, "chunks") == 0)
        return "work pieces (chunks)";
    return "argument (arg)";
}

/* The axes of a suite's chart: over every plotted value and error bar. */
static size_t make_axes(const rp_model *m, const rp_suite *s, axis *ax, axis *ay)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    size_t plotted = 0;
    for (size_t i = 0; i < s->nargs; i++)
        for (size_t r = 0; r < m->nruns; r++) {
            const rp_val *v = &s->vals[i * m->nruns + r];
            if (!plottable(s, i, v))
                continue;
            plotted++;
            if (!is_category(s)) {
                xlo = fmin(xlo, s->args[i].x);
                xhi = fmax(xhi, s->args[i].x);
            }
            double se = isfinite(v->se) && v->se > 0 ? v->se : 0;
            ylo = fmin(ylo, se > 0 && bar_extends_axis(v) ? v->t - se : v->t);
            yhi = fmax(yhi, v->t + se);
        }
    if (plotted == 0) { /* nothing to draw: a decade of times */
        ylo = 1e-6;
        yhi = 1e-5;
    }
    ay->kind = AX_TIME;
    ay->p0 = PLOT_Y0;
    ay->p1 = PLOT_Y1;
    decimal_axis(ay, ylo, yhi);

    ax->p0 = PLOT_X0;
    ax->p1 = PLOT_X1;
    ax->nticks = 0;
    ax->lmin = 0;
    ax->lmax = 1;
    if (is_category(s)) {
        ax->kind = AX_PLAIN;
        return plotted;
    }
    if (xlo > xhi) {
        xlo = 1;
        xhi = 1024;
    }
    if (strcmp(s->key, "arg") == 0) {
        ax->kind = AX_PLAIN;
        decimal_axis(ax, xlo, xhi);
    } else {
        ax->kind = strcmp(s->key, "len") == 0 ? AX_BYTES : AX_COUNT;
        binary_axis(ax, xlo, xhi);
    }
    return plotted;
}

static void write_legend(writer *w, const rp_suite *s)
{
    const rp_model *m = w->m;
    FILE *fp = w->fp;
    fputs("<g class=\"legend\">\n", fp);
    for (size_t r = 0; r < m->nruns; r++) {
        double y = LEGEND_Y + LEGEND_LINE * (double)r;
        size_t nvals = 0;
        for (size_t i = 0; i < s->nargs; i++)
            nvals += s->vals[i * m->nruns + r].has;
        fprintf(fp, "<g class=\"legend-entry\" data-run=\"%zu\">", r);
        fprintf(fp, "<line class=\"line\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"",
                PLOT_X0, y - 4, PLOT_X0 + 28, y - 4);
        run_style(fp, r);
        if (run_dash(r))
            fprintf(fp, " stroke-dasharray=\"%s\"", run_dash(r));
        if (m->runs[r].merged)
            fputs(" stroke-width=\"2.5\"", fp);
        fprintf(fp, "/><circle class=\"pt\" cx=\"%.2f\" cy=\"%.2f\" r=\"3.5\"", PLOT_X0 + 14,
                y - 4);
        run_style(fp, r);
        fprintf(fp, "/><text x=\"%.2f\" y=\"%.2f\">", PLOT_X0 + 36, y);
        esc(fp, m->runs[r].name);
        if (m->runs[r].merged) {
            fputs(" (merged from ", fp);
            esc(fp, m->runs[r].merged);
            fputs(" runs)", fp);
        }
        if (!s->cn[r])
            fputs(" — not in this run", fp);
        else if (nvals == 0)
            fputs(" — no values", fp);
        fputs("</text></g>\n", fp);
    }
    fputs("</g>\n", fp);
}

static int write_chart(writer *w, const rp_suite *s, size_t si)
{
    const rp_model *m = w->m;
    FILE *fp = w->fp;
    axis ax, ay;
    size_t plotted = make_axes(m, s, &ax, &ay);
    double height = LEGEND_Y + LEGEND_LINE * (double)m->nruns;
    fprintf(fp,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"chart-%zu\" "
            "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
            si + 1, SVG_W, height, SVG_W, height);
    fputs("<title>", fp);
    esc(fp, s->name);
    fputs(": time of rank 0 against the argument</title>\n", fp);
    fprintf(fp, "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>\n",
            PLOT_X0 - PAD, PLOT_Y1 - PAD, PLOT_X1 - PLOT_X0 + 2 * PAD, PLOT_Y0 - PLOT_Y1 + 2 * PAD);

    /* grid and tick labels */
    char b[64];
    for (size_t k = 0; k < ay.nticks; k++) {
        double y = axis_px(&ay, ay.ticks[k]);
        tick_label(b, sizeof b, AX_TIME, ay.ticks[k]);
        fprintf(fp,
                "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
                "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
                PLOT_X0 - PAD, y, PLOT_X1 + PAD, y, PLOT_X0 - PAD - 5, y + 4, b);
    }
    if (is_category(s)) {
        for (size_t i = 0; i < s->nargs; i++) {
            double x = ax.p0 + ((double)i + 0.5) * (ax.p1 - ax.p0) / (double)s->nargs;
            fprintf(fp,
                    "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
                    "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">",
                    x, PLOT_Y1 - PAD, x, PLOT_Y0 + PAD, x, PLOT_Y0 + PAD + 16);
            esc(fp, s->args[i].label);
            fputs("</text>\n", fp);
        }
    } else {
        for (size_t k = 0; k < ax.nticks; k++) {
            double x = axis_px(&ax, ax.ticks[k]);
            tick_label(b, sizeof b, ax.kind, ax.ticks[k]);
            fprintf(fp,
                    "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>"
                    "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n",
                    x, PLOT_Y1 - PAD, x, PLOT_Y0 + PAD, x, PLOT_Y0 + PAD + 16, b);
        }
    }
    fprintf(fp,
            "<text class=\"axis-title\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s%s</text>\n",
            (PLOT_X0 + PLOT_X1) / 2, PLOT_Y0 + PAD + 36, x_title(s),
            is_category(s) ? "" : ", log scale");
    fprintf(fp,
            "<text class=\"axis-title\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 %.2f %.2f)\">time of rank 0, log scale</text>\n",
            18.0, (PLOT_Y0 + PLOT_Y1) / 2, 18.0, (PLOT_Y0 + PLOT_Y1) / 2);

    /* the plot area and its mapping (report.h) */
    fputs("<g class=\"plot\"", fp);
    if (is_category(s)) {
        fprintf(fp, " data-xscale=\"category\" data-ncat=\"%zu\" data-nruns=\"%zu\" "
                    "data-dodge=\"",
                s->nargs, m->nruns);
        num(fp, dodge(m, s, &ax));
        fputs("\"", fp);
    } else {
        fputs(" data-xscale=\"log\" data-lxmin=\"", fp);
        num(fp, ax.lmin);
        fputs("\" data-lxmax=\"", fp);
        num(fp, ax.lmax);
        fputs("\"", fp);
    }
    fputs(" data-x0=\"", fp);
    num(fp, ax.p0);
    fputs("\" data-x1=\"", fp);
    num(fp, ax.p1);
    fputs("\" data-y0=\"", fp);
    num(fp, ay.p0);
    fputs("\" data-y1=\"", fp);
    num(fp, ay.p1);
    fputs("\" data-lymin=\"", fp);
    num(fp, ay.lmin);
    fputs("\" data-lymax=\"", fp);
    num(fp, ay.lmax);
    fputs("\">\n", fp);
    if (!is_category(s) && write_lines(w, s, &ax, &ay) != 0)
        return -1;
    write_bars_and_points(w, s, &ax, &ay);
    fputs("</g>\n", fp);
    if (plotted == 0)
        fprintf(fp,
                "<text class=\"note\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">"
                "no values to plot</text>\n",
                (PLOT_X0 + PLOT_X1) / 2, (PLOT_Y0 + PLOT_Y1) / 2);
    write_legend(w, s);
    fputs("</svg>\n", fp);
    return 0;
}

static void value_cells(writer *w, const rp_val *v)
{
    FILE *fp = w->fp;
    if (!v->has) {
        fputs("<td class=\"missing\">–</td><td class=\"missing\">–</td>"
              "<td class=\"missing\">–</td>",
              fp);
        return;
    }
    char b[64];
    const double t[2] = {v->t, v->se};
    for (int k = 0; k < 2; k++) {
        fmt_time(b, sizeof b, t[k]);
        fputs("<td class=\"num\" data-v=\"", fp);
        num(fp, t[k]);
        fprintf(fp, "\">%s</td>", b);
    }
    fputs("<td class=\"num\" data-v=\"", fp);
    num(fp, v->reps);
    if (v->reps == floor(v->reps) && fabs(v->reps) < 1e15)
        fprintf(fp, "\">%.0f</td>", v->reps);
    else
        fprintf(fp, "\">%.4g</td>", v->reps);
}

static void write_table(writer *w, const rp_suite *s)
{
    const rp_model *m = w->m;
    FILE *fp = w->fp;
    fputs("<table class=\"values\">\n<thead><tr><th rowspan=\"2\">", fp);
    fputs(is_category(s) ? "operation" : s->key, fp);
    fputs("</th>", fp);
    for (size_t r = 0; r < m->nruns; r++) {
        fprintf(fp, "<th colspan=\"3\" class=\"run\" data-run=\"%zu\"><span class=\"swatch\" "
                    "style=\"background: %s\"></span> ",
                r, run_colour(r));
        esc(fp, m->runs[r].name);
        fputs("</th>", fp);
    }
    fputs("</tr>\n<tr>", fp);
    for (size_t r = 0; r < m->nruns; r++)
        fputs("<th>time</th><th>stderr</th><th>reps</th>", fp);
    fputs("</tr></thead>\n<tbody>\n", fp);
    for (size_t i = 0; i < s->nargs; i++) {
        const rp_arg *a = &s->args[i];
        fputs("<tr data-arg=\"", fp);
        esc(fp, a->label);
        fputs("\"><td class=\"arg\"", fp);
        if (is_category(s)) {
            fputs(">", fp);
            esc(fp, a->label);
        } else {
            fputs(" data-v=\"", fp);
            num(fp, a->x);
            fputs("\">", fp);
            num(fp, a->x);
            if (strcmp(s->key, "len") == 0 && fabs(a->x) >= 1024) {
                char b[64];
                fmt_bytes(b, sizeof b, a->x);
                fprintf(fp, " <span class=\"human\">(%s)</span>", b);
            }
        }
        fputs("</td>", fp);
        for (size_t r = 0; r < m->nruns; r++)
            value_cells(w, &s->vals[i * m->nruns + r]);
        fputs("</tr>\n", fp);
    }
    fputs("</tbody>\n</table>\n", fp);
}

static int write_suite(writer *w, const rp_suite *s, size_t si)
{
    const rp_model *m = w->m;
    FILE *fp = w->fp;
    fprintf(fp, "<section class=\"suite\" id=\"suite-%zu\" data-suite=\"", si + 1);
    esc(fp, s->name);
    fprintf(fp, "\">\n<h2>%zu. ", si + 1);
    esc(fp, s->name);
    if (s->occ)
        fprintf(fp, " (occurrence %zu)", s->occ + 1);
    fputs("</h2>\n", fp);
    if (s->descr) {
        fputs("<p class=\"descr\">", fp);
        esc(fp, s->descr);
        fputs("</p>\n", fp);
    }
    size_t in = 0;
    for (size_t r = 0; r < m->nruns; r++)
        in += s->cn[r] != NULL;
    if (in < m->nruns) {
        fputs("<p class=\"note\">Only in ", fp);
        for (size_t r = 0, k = 0; r < m->nruns; r++)
            if (s->cn[r]) {
                fputs(k++ ? ", " : "", fp);
                esc(fp, m->runs[r].name);
            }
        fputs(".</p>\n", fp);
    }
    size_t hidden = 0;
    for (size_t i = 0; i < s->nargs; i++)
        for (size_t r = 0; r < m->nruns; r++) {
            const rp_val *v = &s->vals[i * m->nruns + r];
            hidden += v->has && !plottable(s, i, v);
        }
    /* chart and table side by side where the window is wide enough */
    fputs("<div class=\"suite-body\">\n<div class=\"figure\">\n", fp);
    if (write_chart(w, s, si) != 0)
        return -1;
    if (hidden)
        fprintf(fp,
                "<p class=\"note\">%zu value%s in the table %s not on the chart: a time or an "
                "argument that is not positive has no place on a log axis.</p>\n",
                hidden, hidden == 1 ? "" : "s", hidden == 1 ? "is" : "are");
    fputs("</div>\n", fp);
    if (s->nargs == 0)
        fputs("<p class=\"note\">No arguments were measured.</p>\n", fp);
    else
        write_table(w, s);
    fputs("</div>\n</section>\n", fp);
    return 0;
}

/* ---- the page ------------------------------------------------------------ */

static const char page_css[] =
    "body { font-family: sans-serif; color: #222; margin: 1.5em; }\n"
    "p, ul.toc, table.attrs { max-width: 75em; }\n"
    "div.suite-body { display: flex; flex-wrap: wrap; gap: 0 2em; align-items: flex-start; }\n"
    "h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.8em; }\n"
    "table { border-collapse: collapse; font-size: 13px; margin: 0.8em 0; }\n"
    "th, td { border: 1px solid #ccc; padding: 2px 6px; vertical-align: top; }\n"
    "th { background: #f3f3f3; }\n"
    "td.num, td.arg { text-align: right; white-space: nowrap; "
    "font-variant-numeric: tabular-nums; }\n"
    "td.missing { color: #999; text-align: center; }\n"
    "table.attrs td { overflow-wrap: anywhere; max-width: 30em; }\n"
    "tr.differs td { background: #fff6d5; }\n"
    "span.swatch { display: inline-block; width: 0.8em; height: 0.8em; "
    "border-radius: 50%; vertical-align: baseline; }\n"
    "span.human { color: #777; }\n"
    "p.descr { color: #444; } p.note { color: #666; font-style: italic; }\n"
    "svg.chart { display: block; }\n"
    "svg text { font-family: sans-serif; font-size: 12px; fill: #222; }\n"
    "svg text.note { fill: #777; }\n"
    "svg rect.frame { fill: none; stroke: #555; }\n"
    "svg line.grid { stroke: #e2e2e2; }\n"
    "svg polyline.line, svg .legend line { fill: none; stroke-width: 1.5; }\n"
    "svg line.err, svg line.cap { stroke-width: 1.2; }\n"
    "svg circle.pt { fill: #fff; stroke-width: 1.6; }\n"
    "ul.toc { columns: 3; }\n";

static void write_runs(writer *w)
{
    const rp_model *m = w->m;
    FILE *fp = w->fp;
    fputs("<h2 id=\"runs\">Runs</h2>\n<table class=\"attrs\">\n<thead><tr><th>attribute</th>",
          fp);
    for (size_t r = 0; r < m->nruns; r++) {
        fprintf(fp, "<th class=\"run\" data-run=\"%zu\"><span class=\"swatch\" "
                    "style=\"background: %s\"></span> ",
                r, run_colour(r));
        esc(fp, m->runs[r].name);
        fputs("</th>", fp);
    }
    fputs("</tr></thead>\n<tbody>\n", fp);
    /* every key, in the order of first appearance, a column per run */
    for (size_t r = 0; r < m->nruns; r++) {
        const cube_t *c = m->runs[r].c;
        for (size_t k = 0; k < cube_num_attrs(c); k++) {
            const char *key = cube_attr_key(c, k);
            int seen = 0;
            for (size_t q = 0; q < r && !seen; q++)
                seen = cube_get_attr(m->runs[q].c, key) != NULL;
            if (seen)
                continue;
            const char *first = cube_get_attr(m->runs[0].c, key);
            int differs = 0;
            for (size_t q = 1; q < m->nruns && !differs; q++) {
                const char *v = cube_get_attr(m->runs[q].c, key);
                differs = !first || !v || strcmp(first, v) != 0;
            }
            fprintf(fp, "<tr%s><th>", differs ? " class=\"differs\"" : "");
            esc(fp, key);
            fputs("</th>", fp);
            for (size_t q = 0; q < m->nruns; q++) {
                const char *v = cube_get_attr(m->runs[q].c, key);
                if (!v)
                    fputs("<td class=\"missing\">–</td>", fp);
                else {
                    fputs("<td>", fp);
                    esc(fp, v);
                    fputs("</td>", fp);
                }
            }
            fputs("</tr>\n", fp);
        }
    }
    fputs("</tbody>\n</table>\n", fp);
    if (m->nruns > 1)
        fputs("<p class=\"note\">Rows in colour: the runs differ there.</p>\n", fp);
}

static void write_page(writer *w)
{
    const rp_model *m = w->m;
    FILE *fp = w->fp;
    fputs("<!DOCTYPE html>\n"
          "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\" xml:lang=\"en\">\n"
          "<head>\n<meta charset=\"UTF-8\"/>\n<title>cube_bench report: ",
          fp);
    for (size_t r = 0; r < m->nruns; r++) {
        fputs(r ? ", " : "", fp);
        esc(fp, m->runs[r].name);
    }
    fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>cube_bench report</h1>\n",
            page_css);
    fprintf(fp,
            "<p class=\"about\">%zu run%s. Each suite has a chart of the time against the "
            "varied argument on log-log axes, with error bars from time − standard error to "
            "time + standard error, and a table of the numbers. Every value is that of the "
            "process with rank 0 (the metrics time, stderr and reps at rank 0; with "
            "Node_Times the other ranks’ values are in the experiments). A run’s line joins "
            "the arguments it measured; the refinement chooses them anew in every run, so a "
            "run may lack arguments other runs have (a dash in the table). The line has a "
            "gap where the run has an argument without a value to plot.</p>\n",
            m->nruns, m->nruns == 1 ? "" : "s");
    write_runs(w);
    fputs("<h2 id=\"suites\">Suites</h2>\n<ul class=\"toc\">\n", fp);
    for (size_t i = 0; i < m->nsuites; i++) {
        fprintf(fp, "<li><a href=\"#suite-%zu\">", i + 1);
        esc(fp, m->suites[i].name);
        fputs("</a></li>\n", fp);
    }
    fputs("</ul>\n", fp);
}

int bench_report_write(FILE *fp, cube_t *const *runs, const char *const *names, size_t n,
                       char *err, size_t errlen)
{
    rp_model m;
    if (build_model(&m, runs, names, n, err, errlen) != 0) {
        model_free(&m);
        return -1;
    }
    /* numbers in the C locale, whatever the program set (this thread only) */
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t saved = c_locale ? uselocale(c_locale) : (locale_t)0;
    writer w = {fp, &m};
    int rc = 0;
    write_page(&w);
    for (size_t i = 0; i < m.nsuites && rc == 0; i++)
        if (write_suite(&w, &m.suites[i], i) != 0) {
            bench_err(err, errlen, "out of memory");
            rc = -1;
        }
    if (rc == 0) {
        fputs("</body>\n</html>\n", fp);
        errno = 0;
        if (fflush(fp) != 0 || ferror(fp)) {
            bench_err(err, errlen, "cannot write the report: %s",
                   errno ? strerror(errno) : "write error");
            rc = -1;
        }
    }
    if (c_locale) {
        uselocale(saved);
        freelocale(c_locale);
    }
    model_free(&m);
    return rc;
}
