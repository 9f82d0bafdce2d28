/*
 * test_bench_report.c - the HTML report of cube_bench runs (bench/report.h)
 * on runs made with the writer API with known values: the page is
 * well-formed XML; every suite has a section with a chart and a table, in
 * the order of the first run and then the suites of later runs; every point
 * sits where its value says under the mapping the chart declares; the
 * error bars end at time +- stderr; the legend names every run; the table
 * holds the values; lines join a run's own arguments and break where it
 * has an argument without a value; rank 0's value is the one shown (rank 1
 * has others); text from the runs is escaped; a run that is not a
 * cube_bench experiment is refused with nothing written.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include "report.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the runs: what the test wrote, to compare the page against -------- */

#define MAX_POINTS 256

typedef struct {
    char suite[32], arg[32];
    int numeric;
    double x;
    int has; /* a time row (else the call path only) */
    double t, se, reps;
} point;

typedef struct {
    cube_t *c;
    point pts[MAX_POINTS];
    size_t n;
    /* for the writer */
    cube_metric *met[4];
    cube_thread *rank0, *rank1;
    cube_cnode *root;
} run;

static cube_cnode *suite_node(run *r, const char *name, const char *descr)
{
    cube_region *reg = cube_def_region(r->c, name, 10, -1, "", descr, "");
    assert_non_null(reg);
    cube_cnode *cn = cube_def_cnode(r->c, reg, r->root);
    assert_non_null(cn);
    return cn;
}

/* One argument of a suite.  Rank 1 gets ten times rank 0's values: the
 * page must show rank 0's. */
static void arg_point(run *r, cube_cnode *suite, const char *suite_name, const char *arg,
                      int has, double t, double se, double reps)
{
    /* regions are per name (cube_bench shares them across suites) */
    cube_region *reg = NULL;
    for (size_t i = 0; i < cube_num_regions(r->c) && !reg; i++)
        if (strcmp(cube_region_name(cube_get_region(r->c, i)), arg) == 0)
            reg = cube_get_region(r->c, i);
    if (!reg)
        reg = cube_def_region(r->c, arg, -1, -1, "", "", "");
    cube_cnode *cn = cube_def_cnode(r->c, reg, suite);
    assert_non_null(cn);
    if (has) {
        const double v[4] = {t, se, reps, 1e-9};
        for (int m = 0; m < 4; m++) {
            cube_set_sev(r->c, r->met[m], cn, r->rank0, v[m]);
            cube_set_sev(r->c, r->met[m], cn, r->rank1, 10 * v[m] + 1e-6);
        }
    }
    assert_true(r->n < MAX_POINTS);
    point *p = &r->pts[r->n++];
    snprintf(p->suite, sizeof p->suite, "%s", suite_name);
    snprintf(p->arg, sizeof p->arg, "%s", arg);
    const char *eq = strchr(arg, '=');
    p->numeric = eq != NULL;
    p->x = eq ? strtod(eq + 1, NULL) : 0;
    p->has = has;
    p->t = t;
    p->se = se;
    p->reps = reps;
}

/* Run k of three (k = 0 alone for the one-run page):
 *   Pingpong_Send_Recv  len = 1 .. 4 MiB, every power of two; run 1 lacks
 *                       1024 and has 91 in addition, and has 32768 without
 *                       a value; run 2's stderr at 4 MiB reaches below the
 *                       axis (0.99999 of the time: 4 ns, the axis ends at
 *                       100 ns)
 *   Bcast               len = 1 .. 1 MiB, every 4th power; run 0's time at
 *                       64 B is negative (after the dummy time): in the
 *                       table, not on the chart; run 2 has no Bcast
 *   Skipped             (run 0 only) no arguments
 *   MW_Waitsome         chunks = 1 .. 64
 *   Wtime               one category, "MPI_Wtime"
 *   Barrier             nodes = 2
 *   Extra               (run 2 only) arg = 10, 100, 1000
 */
static void make_run(run *r, int k)
{
    memset(r, 0, sizeof *r);
    cube_t *c = r->c = cube_create();
    assert_non_null(c);
    cube_def_attr(c, "cube_bench version", CUBE_VERSION_STRING);
    cube_def_attr(c, "processes", "2");
    cube_def_attr(c, "start time", k == 0 ? "2026-01-01T00:00:00+0000" : "2026-01-02T00:00:00+0000");
    /* text that needs escaping, and bytes that are not UTF-8 */
    cube_def_attr(c, "@COMMENT", "a<b & \"c\" 'd' \xff\xfe end");
    if (k == 1)
        cube_def_attr(c, "only in run 1", "x");
    static const char *const mets[4][4] = {{"Time", "time", "FLOAT", "sec"},
                                           {"Standard error", "stderr", "FLOAT", "sec"},
                                           {"Repetitions", "reps", "INTEGER", "occ"},
                                           {"Dummy time", "dummy_time", "FLOAT", "sec"}};
    for (int m = 0; m < 4; m++)
        assert_non_null(r->met[m] = cube_def_met(c, mets[m][0], mets[m][1], mets[m][2],
                                                 mets[m][3], "", "", "", NULL));
    cube_region *top = cube_def_region(c, "cube_bench", -1, -1, "", "a run", "");
    assert_non_null(r->root = cube_def_cnode(c, top, NULL));
    /* rank 1's process first: rank 0 is found by rank, not by position */
    cube_machine *mach = cube_def_mach(c, "vm", "");
    cube_node *node = cube_def_node(c, "vm", mach);
    cube_process *p1 = cube_def_proc(c, "rank 1", 1, node);
    cube_process *p0 = cube_def_proc(c, "rank 0", 0, node);
    assert_non_null(r->rank1 = cube_def_thrd(c, "rank 1", 0, p1));
    assert_non_null(r->rank0 = cube_def_thrd(c, "rank 0", 0, p0));

    char arg[32];
    cube_cnode *s = suite_node(r, "Pingpong_Send_Recv", "default.par:31: ping-pong <&>");
    for (int e = 0; e <= 22; e++) {
        double len = ldexp(1, e);
        if (k == 1 && e == 10)
            continue;
        if (k == 1 && e == 7)
            arg_point(r, s, "Pingpong_Send_Recv", "len=91", 1, 3.3e-7, 3e-9, 40);
        double t = 3e-7 * (1 + 0.05 * k) + len * 1e-10;
        double se = t * 0.01 * (1 + e % 3);
        if (k == 2 && e == 22)
            se = 0.99999 * t;
        snprintf(arg, sizeof arg, "len=%.0f", len);
        arg_point(r, s, "Pingpong_Send_Recv", arg, !(k == 1 && e == 15), t, se, 32 + 3 * e + k);
    }
    if (k != 2) {
        s = suite_node(r, "Bcast", "default.par:60: Bcast");
        for (int e = 0; e <= 20; e += 2) {
            double len = ldexp(1, e), t = 2e-6 + len * 3e-10 * (1 + 0.1 * k);
            if (k == 0 && e == 6)
                t = -2e-9;
            snprintf(arg, sizeof arg, "len=%.0f", len);
            arg_point(r, s, "Bcast", arg, 1, t, 1e-8, 100 + e);
        }
    }
    if (k == 0)
        suite_node(r, "Skipped", "default.par:80: Skipped; skipped: needs 3 processes");
    s = suite_node(r, "MW_Waitsome", "default.par:90: MW_Waitsome");
    for (int e = 0; e <= 6; e++) {
        snprintf(arg, sizeof arg, "chunks=%d", 1 << e);
        double t = 1.4e-6 * (1 << e) * (1 + 0.02 * k);
        arg_point(r, s, "MW_Waitsome", arg, 1, t, 0.02 * t, 64);
    }
    s = suite_node(r, "Wtime", "default.par:100: Wtime");
    arg_point(r, s, "Wtime", "MPI_Wtime", 1, 2.5e-8 + 1e-10 * k, 1e-10, 1000);
    s = suite_node(r, "Barrier", "default.par:110: Barrier");
    arg_point(r, s, "Barrier", "nodes=2", 1, 7.5e-7 + 1e-8 * k, 5e-9, 500);
    if (k == 2) {
        s = suite_node(r, "Extra", "only in run 2");
        for (int e = 1; e <= 3; e++) {
            snprintf(arg, sizeof arg, "arg=%.0f", pow(10, e));
            arg_point(r, s, "Extra", arg, 1, 1e-6 * e, 1e-8, 50);
        }
    }
    assert_string_equal(cube_error(c), "");
}

static const point *find_point(const run *r, const char *suite, const char *arg)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->pts[i].suite, suite) == 0 && strcmp(r->pts[i].arg, arg) == 0)
            return &r->pts[i];
    return NULL;
}

static int drawable(const point *p)
{
    return p && p->has && p->t > 0;
}

/* ---- the page ------------------------------------------------------------ */

static char *write_report(cube_t *const *cubes, const char *const *names, size_t n, int *rc,
                          char *err, size_t errlen, size_t *len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&buf, &size);
    assert_non_null(fp);
    *rc = bench_report_write(fp, cubes, names, n, err, errlen);
    assert_int_equal(fclose(fp), 0);
    if (len)
        *len = size;
    return buf;
}

/* Well-formed XML with well-formed namespaces, or the test fails (libxml2
 * prints what it found). */
static xmlDocPtr parse_page(const char *buf, size_t len)
{
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    assert_non_null(ctxt);
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, buf, (int)len, "report.html", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    assert_true(ctxt->wellFormed);
    assert_true(ctxt->nsWellFormed);
    xmlFreeParserCtxt(ctxt);
    return doc;
}

static int has_class(xmlNodePtr n, const char *cls)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)"class");
    int yes = 0;
    if (v) {
        /* one of the space-separated names */
        size_t k = strlen(cls);
        for (const char *p = (const char *)v; *p;) {
            size_t w = strcspn(p, " ");
            if (w == k && strncmp(p, cls, k) == 0)
                yes = 1;
            p += w;
            p += strspn(p, " ");
        }
    }
    xmlFree(v);
    return yes;
}

typedef struct {
    xmlNodePtr *v;
    size_t n, cap;
} nodes;

/* Every element `name` (NULL: any) of class `cls` (NULL: any) under n. */
static void collect(xmlNodePtr n, const char *name, const char *cls, nodes *out)
{
    for (xmlNodePtr c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if ((!name || strcmp((const char *)c->name, name) == 0) && (!cls || has_class(c, cls))) {
            if (out->n == out->cap) {
                out->cap = out->cap ? 2 * out->cap : 64;
                out->v = realloc(out->v, out->cap * sizeof *out->v);
                assert_non_null(out->v);
            }
            out->v[out->n++] = c;
        }
        collect(c, name, cls, out);
    }
}

static nodes find(xmlNodePtr n, const char *name, const char *cls)
{
    nodes out = {0};
    collect(n, name, cls, &out);
    return out;
}

static xmlNodePtr find_one(xmlNodePtr n, const char *name, const char *cls)
{
    nodes f = find(n, name, cls);
    assert_int_equal(f.n, 1);
    xmlNodePtr one = f.v[0];
    free(f.v);
    return one;
}

/* An attribute that must be there (copied into a static buffer). */
static const char *attr(xmlNodePtr n, const char *name)
{
    static char buf[4][4096];
    static int k;
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        fail_msg("<%s> has no attribute %s", (const char *)n->name, name);
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", (const char *)v);
    xmlFree(v);
    return buf[k];
}

static int has_attr(xmlNodePtr n, const char *name)
{
    return xmlHasProp(n, (const xmlChar *)name) != NULL;
}

static double num_attr(xmlNodePtr n, const char *name)
{
    const char *s = attr(n, name);
    char *end;
    double v = strtod(s, &end);
    if (*end != '\0')
        fail_msg("%s=\"%s\" is not a number", name, s);
    return v;
}

static char *text_of(xmlNodePtr n)
{
    xmlChar *t = xmlNodeGetContent(n);
    char *s = strdup((const char *)t);
    xmlFree(t);
    return s;
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) <= 0.01)

/* The mapping the plot area declares (report.h). */
typedef struct {
    int category;
    double x0, x1, y0, y1, lxmin, lxmax, lymin, lymax, dodge;
    size_t ncat, nruns;
} mapping;

static mapping read_mapping(xmlNodePtr plot)
{
    mapping m;
    memset(&m, 0, sizeof m);
    m.category = strcmp(attr(plot, "data-xscale"), "category") == 0;
    if (!m.category) {
        assert_string_equal(attr(plot, "data-xscale"), "log");
        m.lxmin = num_attr(plot, "data-lxmin");
        m.lxmax = num_attr(plot, "data-lxmax");
        assert_true(m.lxmax > m.lxmin);
    } else {
        m.ncat = (size_t)num_attr(plot, "data-ncat");
        m.nruns = (size_t)num_attr(plot, "data-nruns");
        m.dodge = num_attr(plot, "data-dodge");
    }
    m.x0 = num_attr(plot, "data-x0");
    m.x1 = num_attr(plot, "data-x1");
    m.y0 = num_attr(plot, "data-y0");
    m.y1 = num_attr(plot, "data-y1");
    m.lymin = num_attr(plot, "data-lymin");
    m.lymax = num_attr(plot, "data-lymax");
    assert_true(m.lymax > m.lymin);
    assert_true(m.x1 > m.x0);
    assert_true(m.y0 > m.y1); /* larger times higher up */
    return m;
}

static double map_x(const mapping *m, double x)
{
    return m->x0 + (log10(x) - m->lxmin) / (m->lxmax - m->lxmin) * (m->x1 - m->x0);
}

static double map_cat(const mapping *m, double cat, double r)
{
    return m->x0 + (cat + 0.5) * (m->x1 - m->x0) / (double)m->ncat +
           (r - ((double)m->nruns - 1) / 2) * m->dodge;
}

static double map_y(const mapping *m, double t)
{
    return m->y0 + (log10(t) - m->lymin) / (m->lymax - m->lymin) * (m->y1 - m->y0);
}

/* "315.4 ns" and the like, in seconds. */
static double parse_time(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    assert_true(end != s);
    if (strcmp(end, " ns") == 0)
        return v * 1e-9;
    if (strcmp(end, " µs") == 0)
        return v * 1e-6;
    if (strcmp(end, " ms") == 0)
        return v * 1e-3;
    assert_string_equal(end, " s");
    return v;
}

static void assert_close4(double shown, double exact)
{
    /* four significant digits */
    if (fabs(shown - exact) > 5.001e-4 * fabs(exact))
        fail_msg("shown %.17g, value %.17g", shown, exact);
}

/* The chart of one suite: points, error bars, lines and legend. */
static void check_chart(xmlNodePtr section, const char *suite, const run *runs,
                        const char *const *names, size_t n)
{
    xmlNodePtr svg = find_one(section, "svg", "chart");
    xmlNodePtr plot = find_one(svg, "g", "plot");
    mapping m = read_mapping(plot);

    /* every value that can be drawn is a point, once, where it belongs */
    nodes pts = find(plot, "circle", "pt");
    size_t expected = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < runs[r].n; i++)
            expected += strcmp(runs[r].pts[i].suite, suite) == 0 && drawable(&runs[r].pts[i]);
    assert_int_equal(pts.n, expected);
    for (size_t k = 0; k < pts.n; k++) {
        xmlNodePtr c = pts.v[k];
        size_t r = (size_t)num_attr(c, "data-run");
        assert_true(r < n);
        const point *p = find_point(&runs[r], suite, attr(c, "data-arg"));
        assert_non_null(p);
        assert_true(drawable(p));
        for (size_t q = 0; q < k; q++) /* no point twice */
            assert_false(num_attr(pts.v[q], "data-run") == (double)r &&
                         strcmp(attr(pts.v[q], "data-arg"), p->arg) == 0);
        assert_true(num_attr(c, "data-y") == p->t);
        assert_true(num_attr(c, "data-se") == p->se);
        assert_true(num_attr(c, "data-reps") == p->reps);
        double cx = num_attr(c, "cx"), cy = num_attr(c, "cy");
        if (m.category) {
            assert_false(p->numeric);
            double cat = num_attr(c, "data-cat");
            NEAR(cx, map_cat(&m, cat, (double)r));
        } else {
            assert_true(p->numeric);
            assert_true(num_attr(c, "data-x") == p->x);
            NEAR(cx, map_x(&m, p->x));
            /* inside the plot area */
            assert_true(cx >= m.x0 - 0.01 && cx <= m.x1 + 0.01);
        }
        NEAR(cy, map_y(&m, p->t));
        assert_true(cy <= m.y0 + 0.01 && cy >= m.y1 - 0.01);
    }

    /* error bars: from time - stderr to time + stderr */
    nodes errs = find(plot, "line", "err");
    size_t bars = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < runs[r].n; i++)
            bars += strcmp(runs[r].pts[i].suite, suite) == 0 && drawable(&runs[r].pts[i]) &&
                    runs[r].pts[i].se > 0;
    assert_int_equal(errs.n, bars);
    for (size_t k = 0; k < errs.n; k++) {
        xmlNodePtr e = errs.v[k];
        size_t r = (size_t)num_attr(e, "data-run");
        const point *p = find_point(&runs[r], suite, attr(e, "data-arg"));
        assert_non_null(p);
        double lo = p->t - p->se, hi = p->t + p->se;
        assert_true(num_attr(e, "data-lo") == lo);
        assert_true(num_attr(e, "data-hi") == hi);
        double cx = m.category ? map_cat(&m, num_attr(e, "data-cat"), (double)r)
                               : map_x(&m, p->x);
        NEAR(num_attr(e, "x1"), cx);
        NEAR(num_attr(e, "x2"), cx);
        NEAR(num_attr(e, "y1"), map_y(&m, hi));
        assert_true(num_attr(e, "y1") >= m.y1 - 0.01); /* the top is on the chart */
        if (has_attr(e, "data-clipped")) {
            assert_string_equal(attr(e, "data-clipped"), "lo");
            NEAR(num_attr(e, "y2"), m.y0);
            assert_true(lo <= 0 || log10(lo) < m.lymin);
        } else {
            NEAR(num_attr(e, "y2"), map_y(&m, lo));
            assert_true(num_attr(e, "y2") <= m.y0 + 0.01);
        }
    }

    /* lines: every vertex is a point of the run */
    nodes lines = find(plot, "polyline", "line");
    for (size_t k = 0; k < lines.n; k++) {
        size_t r = (size_t)num_attr(lines.v[k], "data-run");
        const char *s = attr(lines.v[k], "points");
        size_t vertices = 0;
        double x, y;
        int used;
        while (sscanf(s, "%lf,%lf%n", &x, &y, &used) == 2) {
            int found = 0;
            for (size_t q = 0; q < pts.n && !found; q++)
                found = num_attr(pts.v[q], "data-run") == (double)r &&
                        fabs(num_attr(pts.v[q], "cx") - x) <= 0.01 &&
                        fabs(num_attr(pts.v[q], "cy") - y) <= 0.01;
            assert_true(found);
            vertices++;
            s += used;
        }
        assert_true(vertices >= 2);
        assert_true(*s == '\0');
    }

    /* the legend: one entry per run, named */
    xmlNodePtr legend = find_one(svg, "g", "legend");
    nodes entries = find(legend, "g", "legend-entry");
    assert_int_equal(entries.n, n);
    for (size_t r = 0; r < n; r++) {
        assert_true(num_attr(entries.v[r], "data-run") == (double)r);
        char *t = text_of(find_one(entries.v[r], "text", NULL));
        assert_true(strncmp(t, names[r], strlen(names[r])) == 0);
        free(t);
    }
    free(pts.v);
    free(errs.v);
    free(lines.v);
    free(entries.v);
}

/* The polylines of run r in a suite's chart, and their vertices in all. */
static size_t count_lines(xmlNodePtr section, size_t r, size_t *vertices)
{
    nodes lines = find(find_one(section, "g", "plot"), "polyline", "line");
    size_t k = 0;
    *vertices = 0;
    for (size_t i = 0; i < lines.n; i++)
        if (num_attr(lines.v[i], "data-run") == (double)r) {
            k++;
            const char *s = attr(lines.v[i], "points");
            for (; *s; s++)
                *vertices += *s == ',';
        }
    free(lines.v);
    return k;
}

/* The table of one suite: a row per argument in order, three cells a run. */
static void check_table(xmlNodePtr section, const char *suite, const run *runs, size_t n)
{
    xmlNodePtr table = find_one(section, "table", "values");
    xmlNodePtr tbody = find_one(table, "tbody", NULL);
    nodes rows = find(tbody, "tr", NULL);
    /* the arguments of all runs, each once */
    size_t expected = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < runs[r].n; i++) {
            const point *p = &runs[r].pts[i];
            int earlier = 0;
            for (size_t q = 0; q < r && !earlier; q++)
                earlier = find_point(&runs[q], suite, p->arg) != NULL;
            expected += strcmp(p->suite, suite) == 0 && !earlier;
        }
    assert_int_equal(rows.n, expected);
    double last_x = -INFINITY;
    for (size_t k = 0; k < rows.n; k++) {
        char arg[64]; /* attr's buffers are reused */
        snprintf(arg, sizeof arg, "%s", attr(rows.v[k], "data-arg"));
        nodes cells = find(rows.v[k], "td", NULL);
        assert_int_equal(cells.n, 1 + 3 * n);
        if (strchr(arg, '=')) { /* ascending arguments */
            double x = num_attr(cells.v[0], "data-v");
            assert_true(x == strtod(strchr(arg, '=') + 1, NULL));
            assert_true(x > last_x);
            last_x = x;
        }
        for (size_t r = 0; r < n; r++) {
            const point *p = find_point(&runs[r], suite, arg);
            xmlNodePtr *c = &cells.v[1 + 3 * r];
            char *t[3];
            for (int i = 0; i < 3; i++)
                t[i] = text_of(c[i]);
            if (!p || !p->has) {
                for (int i = 0; i < 3; i++)
                    assert_string_equal(t[i], "–");
            } else {
                assert_true(num_attr(c[0], "data-v") == p->t);
                assert_true(num_attr(c[1], "data-v") == p->se);
                assert_true(num_attr(c[2], "data-v") == p->reps);
                assert_close4(parse_time(t[0]), p->t);
                assert_close4(parse_time(t[1]), p->se);
                assert_true(strtod(t[2], NULL) == p->reps);
            }
            for (int i = 0; i < 3; i++)
                free(t[i]);
        }
        free(cells.v);
    }
    free(rows.v);
}

/* The whole page for n runs; the suites expected in this order. */
static void check_page(const char *buf, size_t len, const run *runs, const char *const *names,
                       size_t n, const char *const *suites, size_t nsuites)
{
    xmlDocPtr doc = parse_page(buf, len);
    xmlNodePtr html = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)html->name, "html");
    assert_non_null(html->ns);
    assert_string_equal((const char *)html->ns->href, "http://www.w3.org/1999/xhtml");
    /* self-contained: no scripts, nothing loaded from elsewhere */
    nodes none = find(html, "script", NULL);
    assert_int_equal(none.n, 0);
    free(none.v);
    none = find(html, "link", NULL);
    assert_int_equal(none.n, 0);
    free(none.v);
    none = find(html, "img", NULL);
    assert_int_equal(none.n, 0);
    free(none.v);
    assert_null(strstr(buf, "src="));
    assert_null(strstr(buf, "http://www.w3.org/1999/xlink"));
    /* whose values these are */
    char *about = text_of(find_one(html, "p", "about"));
    assert_non_null(strstr(about, "rank 0"));
    free(about);

    /* the runs' attributes: a column per run */
    xmlNodePtr attrs = find_one(html, "table", "attrs");
    nodes heads = find(find_one(attrs, "thead", NULL), "th", "run");
    assert_int_equal(heads.n, n);
    for (size_t r = 0; r < n; r++) {
        char *t = text_of(heads.v[r]);
        assert_non_null(strstr(t, names[r]));
        free(t);
    }
    free(heads.v);
    nodes arows = find(find_one(attrs, "tbody", NULL), "tr", NULL);
    int seen_comment = 0;
    for (size_t k = 0; k < arows.n; k++) {
        char *key = text_of(find_one(arows.v[k], "th", NULL));
        nodes cells = find(arows.v[k], "td", NULL);
        assert_int_equal(cells.n, n);
        for (size_t r = 0; r < n; r++) {
            char *v = text_of(cells.v[r]);
            const char *want = cube_get_attr(runs[r].c, key);
            if (strcmp(key, "@COMMENT") == 0) {
                /* escaped, and the bytes that are not UTF-8 replaced */
                assert_string_equal(v, "a<b & \"c\" 'd' \xEF\xBF\xBD\xEF\xBF\xBD end");
                seen_comment = 1;
            } else
                assert_string_equal(v, want ? want : "–");
            free(v);
        }
        free(cells.v);
        free(key);
    }
    assert_true(seen_comment);
    free(arows.v);

    /* a section per suite, in order, each with its chart and table */
    nodes secs = find(html, "section", "suite");
    assert_int_equal(secs.n, nsuites);
    for (size_t i = 0; i < nsuites; i++) {
        assert_string_equal(attr(secs.v[i], "data-suite"), suites[i]);
        check_chart(secs.v[i], suites[i], runs, names, n);
        int has_args = 0;
        for (size_t r = 0; r < n && !has_args; r++)
            for (size_t k = 0; k < runs[r].n && !has_args; k++)
                has_args = strcmp(runs[r].pts[k].suite, suites[i]) == 0;
        if (has_args)
            check_table(secs.v[i], suites[i], runs, n);
        else {
            nodes t = find(secs.v[i], "table", NULL);
            assert_int_equal(t.n, 0);
            free(t.v);
        }
    }

    /* the lines of the first suite: run 0 one line through its 23 points;
     * run 1 lacks len=1024 (joined over), has len=91 in addition and
     * len=32768 without a value (a gap): two lines over its 22 points */
    size_t vertices;
    assert_int_equal(count_lines(secs.v[0], 0, &vertices), 1);
    assert_int_equal(vertices, 23);
    if (n == 3) {
        assert_int_equal(count_lines(secs.v[0], 1, &vertices), 2);
        assert_int_equal(vertices, 22);
        assert_int_equal(count_lines(secs.v[0], 2, &vertices), 1);
    }
    /* Bcast: run 0's negative time at 64 B is no point, and a gap */
    assert_int_equal(count_lines(secs.v[1], 0, &vertices), 2);
    assert_int_equal(vertices, 10);
    char *note = text_of(secs.v[1]);
    assert_non_null(strstr(note, "1 value in the table is not on the chart"));
    free(note);
    free(secs.v);
    xmlFreeDoc(doc);
}

static void free_runs(run *runs, size_t n)
{
    for (size_t r = 0; r < n; r++)
        cube_free(runs[r].c);
}

static void test_one_run(void **state)
{
    (void)state;
    run *runs = calloc(1, sizeof *runs);
    assert_non_null(runs);
    make_run(&runs[0], 0);
    cube_t *cubes[1] = {runs[0].c};
    const char *names[1] = {"first & <run>"};
    char err[256] = "";
    int rc;
    size_t len;
    char *buf = write_report(cubes, names, 1, &rc, err, sizeof err, &len);
    if (rc != 0)
        fail_msg("%s", err);
    static const char *const suites[] = {"Pingpong_Send_Recv", "Bcast", "Skipped",
                                         "MW_Waitsome", "Wtime", "Barrier"};
    check_page(buf, len, runs, names, 1, suites, 6);
    free(buf);
    free_runs(runs, 1);
    free(runs);
}

static void test_three_runs(void **state)
{
    (void)state;
    run *runs = calloc(3, sizeof *runs);
    assert_non_null(runs);
    for (int k = 0; k < 3; k++)
        make_run(&runs[k], k);
    cube_t *cubes[3] = {runs[0].c, runs[1].c, runs[2].c};
    const char *names[3] = {"first & <run>", "/tmp/r2.cube", "r3 \xC3\xBC"};
    char err[256] = "";
    int rc;
    size_t len;
    char *buf = write_report(cubes, names, 3, &rc, err, sizeof err, &len);
    if (rc != 0)
        fail_msg("%s", err);
    /* the first run's order; Extra (run 2 only) last */
    static const char *const suites[] = {"Pingpong_Send_Recv", "Bcast", "Skipped",
                                         "MW_Waitsome", "Wtime", "Barrier", "Extra"};
    check_page(buf, len, runs, names, 3, suites, 7);
    /* run 2's error bar at 4 MiB reaches below the axis */
    assert_non_null(strstr(buf, "data-clipped=\"lo\""));
    free(buf);

    /* no names: "run 1", ... */
    buf = write_report(cubes, NULL, 3, &rc, err, sizeof err, &len);
    assert_int_equal(rc, 0);
    const char *dflt[3] = {"run 1", "run 2", "run 3"};
    check_page(buf, len, runs, dflt, 3, suites, 7);
    free(buf);
    free_runs(runs, 3);
    free(runs);
}

/* A merged run (attribute "merged runs") is drawn on top of the runs it
 * came from, thicker, and the legend says so. */
static void test_merged_on_top(void **state)
{
    (void)state;
    run *runs = calloc(2, sizeof *runs);
    assert_non_null(runs);
    make_run(&runs[0], 0);
    make_run(&runs[1], 1);
    cube_def_attr(runs[0].c, "merged runs", "3");
    cube_t *cubes[2] = {runs[0].c, runs[1].c};
    const char *names[2] = {"merged.cube", "r1.cube"};
    char err[256];
    int rc;
    size_t len;
    char *buf = write_report(cubes, names, 2, &rc, err, sizeof err, &len);
    assert_int_equal(rc, 0);
    xmlDocPtr doc = parse_page(buf, len);
    nodes secs = find(xmlDocGetRootElement(doc), "section", "suite");
    assert_true(secs.n > 0);
    xmlNodePtr plot = find_one(secs.v[0], "g", "plot");
    nodes pts = find(plot, "circle", "pt");
    assert_true(pts.n > 0);
    assert_true(num_attr(pts.v[pts.n - 1], "data-run") == 0);
    assert_true(num_attr(pts.v[0], "data-run") == 1);
    nodes lines = find(plot, "polyline", "line");
    assert_true(lines.n > 0);
    xmlNodePtr last = lines.v[lines.n - 1];
    assert_true(num_attr(last, "data-run") == 0);
    assert_string_equal(attr(last, "stroke-width"), "2.5");
    nodes entries = find(find_one(secs.v[0], "g", "legend"), "g", "legend-entry");
    char *t = text_of(entries.v[0]);
    assert_string_equal(t, "merged.cube (merged from 3 runs)");
    free(t);
    free(entries.v);
    free(lines.v);
    free(pts.v);
    free(secs.v);
    xmlFreeDoc(doc);
    free(buf);
    free_runs(runs, 2);
    free(runs);
}

/* A comma as the decimal point changes nothing (when such a locale is
 * installed). */
static void test_locale(void **state)
{
    (void)state;
    run *runs = calloc(1, sizeof *runs);
    assert_non_null(runs);
    make_run(&runs[0], 0);
    cube_t *cubes[1] = {runs[0].c};
    char err[256];
    int rc;
    size_t len_c, len_de;
    char *in_c = write_report(cubes, NULL, 1, &rc, err, sizeof err, &len_c);
    assert_int_equal(rc, 0);
    static const char *const comma[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", NULL};
    int set = 0;
    for (int i = 0; comma[i] && !set; i++)
        set = setlocale(LC_NUMERIC, comma[i]) != NULL;
    if (set) {
        char *in_de = write_report(cubes, NULL, 1, &rc, err, sizeof err, &len_de);
        setlocale(LC_NUMERIC, "C");
        assert_int_equal(rc, 0);
        assert_int_equal(len_c, len_de);
        assert_memory_equal(in_c, in_de, len_c);
        free(in_de);
    }
    free(in_c);
    free_runs(runs, 1);
    free(runs);
    if (!set)
        skip();
}

static void test_refused(void **state)
{
    (void)state;
    char err[256];
    int rc;
    size_t len;
    char *buf = write_report(NULL, NULL, 0, &rc, err, sizeof err, &len);
    assert_int_equal(rc, -1);
    assert_int_equal(len, 0);
    free(buf);

    /* no metric reps */
    cube_t *c = cube_create();
    cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_def_met(c, "Standard error", "stderr", "FLOAT", "sec", "", "", "", NULL);
    cube_t *one[1] = {c};
    const char *names[1] = {"x.cube"};
    buf = write_report(one, names, 1, &rc, err, sizeof err, &len);
    assert_int_equal(rc, -1);
    assert_int_equal(len, 0);
    assert_non_null(strstr(err, "x.cube"));
    assert_non_null(strstr(err, "'reps'"));
    free(buf);

    /* the metrics, but no call path cube_bench */
    cube_def_met(c, "Repetitions", "reps", "INTEGER", "occ", "", "", "", NULL);
    cube_def_cnode(c, cube_def_region(c, "main", -1, -1, "", "", ""), NULL);
    buf = write_report(one, names, 1, &rc, err, sizeof err, &len);
    assert_int_equal(rc, -1);
    assert_int_equal(len, 0);
    assert_non_null(strstr(err, "cube_bench"));
    free(buf);

    /* a cube_bench tree, but no process of rank 0 */
    cube_def_cnode(c, cube_def_region(c, "cube_bench", -1, -1, "", "", ""), NULL);
    cube_node *node = cube_def_node(c, "n", cube_def_mach(c, "m", ""));
    cube_def_thrd(c, "t", 0, cube_def_proc(c, "rank 3", 3, node));
    buf = write_report(one, names, 1, &rc, err, sizeof err, &len);
    assert_int_equal(rc, -1);
    assert_int_equal(len, 0);
    assert_non_null(strstr(err, "rank 0"));
    free(buf);

    /* a good run after a bad one: still nothing written */
    run *good = calloc(1, sizeof *good);
    assert_non_null(good);
    make_run(good, 0);
    cube_t *two[2] = {good->c, c};
    buf = write_report(two, NULL, 2, &rc, err, sizeof err, &len);
    assert_int_equal(rc, -1);
    assert_int_equal(len, 0);
    assert_non_null(strstr(err, "run 2"));
    free(buf);
    free_runs(good, 1);
    free(good);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_run),
        cmocka_unit_test(test_three_runs),
        cmocka_unit_test(test_merged_on_top),
        cmocka_unit_test(test_locale),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
