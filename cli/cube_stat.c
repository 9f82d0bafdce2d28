/*
 * cube_stat - CubeLib's cube_stat with its options and column names:
 *   - a call-tree profile one level below the named routines (default: the
 *     call-tree roots): INCL(routine), EXCL(routine) and its callees;
 *   - with -%, statistics of those values across threads (exact quartiles);
 *   - with -t N, the top-N flat profile by exclusive time (its magnitude:
 *     a difference of two runs shows its largest changes) with the number
 *     of calls, exclusive and inclusive time.
 * CSV by default, an aligned table with -p.  Values are combined over all
 * threads as the metric's dtype says (summed; a MAXDOUBLE or MINDOUBLE
 * metric's largest or smallest), metric-inclusive (as stored).  The file is streamed: only the
 * rows of the metrics printed are kept (cli_input_read).
 */
#include "cli_common.h"
#include "cube_views.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "cube_stat [-p] [-m METRICS] [-%] [-r ROUTINES] [-o OUT] FILE\n"
                            "       cube_stat [-p] -t N|all [-m METRICS] [-o OUT] FILE";

static void print_help(void)
{
    printf("usage: %s\n"
           "Profiles and statistics of a CUBE 3 or CUBE 4 experiment, as CubeLib's\n"
           "cube_stat.\n\n"
           "  -p           an aligned table instead of CSV\n"
           "  -m METRICS   unique names (or display names only one metric has),\n"
           "               comma-separated (default: time, or else the\n"
           "               metric with id 0); with -t, extra columns\n"
           "  -r ROUTINES  region names, comma-separated: the profile one level below\n"
           "               every call path calling them (default: the call-tree roots)\n"
           "  -%%           statistics across threads: count, sum, mean, variance,\n"
           "               minimum, quartiles, median, maximum\n"
           "  -t N|all     the top N regions of the flat profile by exclusive time,\n"
           "               largest magnitude first ('all', 'inf', 'unlimited' or\n"
           "               'infinite': every region)\n"
           "  -o, --output=OUT  the output (default '-', standard output)\n"
           "  -h, --help   this help\n"
           "      --version  the version\n\n"
           "FILE may be gzip-compressed; '-' reads standard input.\n"
           "Exit status: 0 on success, 2 on a usage error or bad input.\n"
           "See cube_stat(1).\n",
           usage);
}

typedef enum { MODE_PROFILE, MODE_STATISTICS, MODE_TOP } stat_mode;

typedef struct {
    stat_mode mode;
    int pretty;
    const char *metrics;  /* -m */
    const char *routines; /* -r */
    size_t top;           /* -t; SIZE_MAX: all */
    const char *output;
    const char *input;
} options;

/* One metric printed, with its views.  For -t the first three are visits,
 * time and time (any may be missing: met NULL). */
typedef struct {
    const cube_metric *met;
    cube_view *excl; /* call-exclusive */
    cube_view *incl; /* call-inclusive (profile, statistics) */
    cube_flat *flat; /* -t */
} metric_views;

typedef struct {
    const options *o;
    const cube_t *defs;
    metric_views *metrics;
    size_t num_metrics;
    const cube_cnode **cnodes; /* the routines' call paths */
    size_t num_cnodes;
    unsigned char *wanted; /* per metric index */
} plan;

static void plan_free(plan *p)
{
    for (size_t i = 0; i < p->num_metrics; i++) {
        cube_view_free(p->metrics[i].excl);
        cube_view_free(p->metrics[i].incl);
        cube_flat_free(p->metrics[i].flat);
    }
    free(p->metrics);
    free(p->cnodes);
    free(p->wanted);
    const options *o = p->o;
    memset(p, 0, sizeof *p);
    p->o = o;
}

/* Does the metric have values to show?  Not when VOID, nor when derived
 * (CUBE 4: computed by a CubePL expression that is not evaluated). */
static int has_values(const cube_metric *m)
{
    return !cube_metric_is_void(m) && !cube_metric_is_derived(m);
}

/* `time` / `visits` as CubeLib finds them: by unique name, else by display
 * name ("Time" / "Visits"); NULL when absent or VOID.  A derived metric
 * (CUBE 4), whose values are not computed, is passed over. */
static const cube_metric *find_by_names(const cube_t *c, const char *uniq, const char *disp)
{
    const cube_metric *m = cube_find_metric(c, uniq);
    if (m && cube_metric_is_derived(m))
        m = NULL;
    for (size_t i = 0; !m && i < cube_num_metrics(c); i++) {
        const cube_metric *x = cube_get_metric(c, i);
        if (strcmp(cube_metric_disp_name(x), disp) == 0 && !cube_metric_is_derived(x))
            m = x;
    }
    return m && !cube_metric_is_void(m) ? m : NULL;
}

static int add_metric(plan *p, const cube_metric *met)
{
    metric_views *m = realloc(p->metrics, (p->num_metrics + 1) * sizeof *m);
    if (!m) {
        cli_error("out of memory");
        return -1;
    }
    p->metrics = m;
    memset(&m[p->num_metrics], 0, sizeof *m);
    m[p->num_metrics++].met = met;
    return 0;
}

/* One metric of -m, appended (cli_each_listed_metric); -1 after an error. */
static int add_listed_metric(void *user, const cube_metric *m)
{
    return add_metric(user, m);
}

/* The call paths of -r (every call path calling a named region, in the
 * order of the names, then of the call paths), or the roots. */
static int select_cnodes(plan *p)
{
    const cube_t *c = p->defs;
    size_t n = cube_num_cnodes(c), cap = n ? n : 1;
    p->cnodes = malloc(cap * sizeof *p->cnodes);
    if (!p->cnodes) {
        cli_error("out of memory");
        return -1;
    }
    if (!p->o->routines) {
        for (size_t i = 0; i < cube_num_root_cnodes(c); i++)
            p->cnodes[p->num_cnodes++] = cube_get_root_cnode(c, i);
        return 0;
    }
    for (const char *s = p->o->routines;;) {
        size_t k = strcspn(s, ","), found = 0;
        for (size_t i = 0; i < n; i++) {
            const cube_cnode *cn = cube_get_cnode(c, i);
            const char *name = cube_region_name(cube_cnode_callee(cn));
            if (strlen(name) != k || strncmp(name, s, k) != 0)
                continue;
            found++;
            if (p->num_cnodes == cap) {
                cap *= 2;
                const cube_cnode **x = realloc(p->cnodes, cap * sizeof *x);
                if (!x) {
                    cli_error("out of memory");
                    return -1;
                }
                p->cnodes = x;
            }
            p->cnodes[p->num_cnodes++] = cn;
        }
        if (!found) {
            cli_error("%s: no call path calls a region named '%.*s' "
                      "(cube_dump -w regions lists them)",
                      p->o->input, (int)k, s);
            return -1;
        }
        if (!s[k])
            return 0;
        s += k + 1;
    }
}

/* A view could not be made or filled: `message` is the library's. */
static int view_error(const plan *p, const char *message)
{
    cli_error("%s: %s", p->o->input, message);
    return -1;
}

static int plan_setup(void *user, const cube_t *defs)
{
    plan *p = user;
    const options *o = p->o;
    p->defs = defs;
    if (o->mode == MODE_TOP) {
        const cube_metric *visits = find_by_names(defs, "visits", "Visits");
        const cube_metric *time = find_by_names(defs, "time", "Time");
        if (add_metric(p, visits) || add_metric(p, time) || add_metric(p, time))
            return -1;
    }
    if (o->metrics) {
        if (cli_each_listed_metric(p->defs, p->o->input, "-m", o->metrics, add_listed_metric,
                                   p) != 0)
            return -1;
    } else if (o->mode != MODE_TOP) {
        /* CubeLib's default: time, else the metric with id 0 (else the
         * first metric with values) */
        const cube_metric *m = cube_find_metric(defs, "time");
        for (size_t i = 0; !m && i < cube_num_metrics(defs); i++)
            if (cube_metric_id(cube_get_metric(defs, i)) == 0)
                m = cube_get_metric(defs, i);
        for (size_t i = 0; (!m || !has_values(m)) && i < cube_num_metrics(defs); i++)
            m = cube_get_metric(defs, i);
        if (!m || !has_values(m)) {
            cli_error("%s: the experiment has no metric with values", o->input);
            return -1;
        }
        if (add_metric(p, m) != 0)
            return -1;
    }
    if (o->mode != MODE_TOP && select_cnodes(p) != 0)
        return -1;
    unsigned flags = o->mode == MODE_STATISTICS ? 0 : CUBE_VIEW_AGGREGATE;
    cube_status st;
    for (size_t i = 0; i < p->num_metrics; i++) {
        metric_views *m = &p->metrics[i];
        int twice = 0; /* a metric listed twice has views once */
        for (size_t k = 0; k < i; k++)
            twice |= p->metrics[k].met == m->met;
        if (!m->met || twice)
            continue;
        m->excl = cube_view_create(defs, m->met, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE,
                                   flags, &st);
        if (!m->excl)
            return view_error(p, st.message);
        if (o->mode == MODE_TOP)
            continue;
        m->incl = cube_view_create(defs, m->met, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE,
                                   flags, &st);
        if (!m->incl)
            return view_error(p, st.message);
    }
    p->wanted = calloc(cube_num_metrics(defs) + 1, 1);
    if (!p->wanted) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < p->num_metrics; i++)
        if (p->metrics[i].met)
            p->wanted[cube_metric_index(p->metrics[i].met)] = 1;
    return 0;
}

static int plan_wants(void *user, const cube_metric *met)
{
    const plan *p = user;
    return p->wanted && p->wanted[cube_metric_index(met)];
}

static int plan_add(void *user, const cube_metric *met, const cube_cnode *cnode,
                    const double *values)
{
    plan *p = user;
    for (size_t i = 0; i < p->num_metrics; i++) {
        metric_views *m = &p->metrics[i];
        if (m->met != met)
            continue;
        /* -t lists time twice: the same views would count its rows twice */
        int twice = 0;
        for (size_t k = 0; k < i; k++)
            twice |= p->metrics[k].met == met;
        if (twice)
            continue;
        if (cube_view_add_row(m->excl, met, cnode, values) != 0)
            return view_error(p, cube_view_error(m->excl));
        if (m->incl && cube_view_add_row(m->incl, met, cnode, values) != 0)
            return view_error(p, cube_view_error(m->incl));
    }
    return 0;
}

static void plan_reset(void *user)
{
    plan_free(user);
}

static int plan_finish(plan *p)
{
    for (size_t i = 0; i < p->num_metrics; i++) {
        metric_views *m = &p->metrics[i];
        int twice = 0;
        for (size_t k = 0; k < i; k++)
            twice |= p->metrics[k].met == m->met;
        if (!m->met || twice)
            continue;
        if (cube_view_finish(m->excl) != 0)
            return view_error(p, cube_view_error(m->excl));
        if (m->incl && cube_view_finish(m->incl) != 0)
            return view_error(p, cube_view_error(m->incl));
        if (p->o->mode == MODE_TOP) {
            cube_status st;
            m->flat = cube_flat_create(m->excl, &st);
            if (!m->flat)
                return view_error(p, st.message);
        }
    }
    return 0;
}

/* The views of metric i (the first entry of a metric listed twice). */
static const metric_views *views_of(const plan *p, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (p->metrics[k].met == p->metrics[i].met)
            return &p->metrics[k];
    return &p->metrics[i];
}

/* ------------------------------------------------------------------------
 * The call-tree profile.
 * ------------------------------------------------------------------------ */

static char *routine_label(const char *fmt, const char *name)
{
    size_t n = strlen(fmt) + strlen(name) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, name);
    return s;
}

static int print_profile(const plan *p, cli_table *t)
{
    for (size_t b = 0; b < p->num_cnodes; b++) {
        const cube_cnode *cn = p->cnodes[b];
        if (b)
            cli_table_gap(t);
        size_t nrows = 2 + cube_cnode_num_children(cn);
        for (size_t r = 0; r < nrows; r++) {
            const cube_cnode *row_cn = r < 2 ? cn : cube_cnode_child(cn, r - 2);
            const char *fmt = r == 0 ? "INCL(%s)" : r == 1 ? (p->o->pretty ? "  EXCL(%s)" : "EXCL(%s)")
                                                           : (p->o->pretty ? "  %s" : "%s");
            char *label = routine_label(fmt, cube_region_name(cube_cnode_callee(row_cn)));
            if (!label) {
                cli_error("out of memory");
                return -1;
            }
            cli_table_text(t, label);
            free(label);
            for (size_t i = 0; i < p->num_metrics; i++) {
                const metric_views *m = views_of(p, i);
                double v = cube_view_value(r == 1 ? m->excl : m->incl, row_cn, 0);
                cli_table_view_value(t, cube_metric_combine(m->met), v, v);
            }
            cli_table_end_row(t);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Statistics across threads.
 * ------------------------------------------------------------------------ */

static int stat_row(const plan *p, cli_table *t, const metric_views *m, const cube_view *v,
                    const cube_cnode *cn, const char *fmt, double *zeros)
{
    size_t nt = cube_num_threads(p->defs);
    const double *row = cube_view_row(v, cn);
    cube_stats st;
    cube_status status;
    /* no row: zeros of a sum, no values of a maximum or minimum */
    size_t n = row || cube_metric_combine(m->met) == CUBE_COMBINE_SUM ? nt : 0;
    if (cube_stats_compute(row ? row : zeros, n, &st, &status) != 0)
        return view_error(p, status.message);
    char *label = routine_label(fmt, cube_region_name(cube_cnode_callee(cn)));
    if (!label) {
        cli_error("out of memory");
        return -1;
    }
    cli_table_text(t, cube_metric_uniq_name(m->met));
    cli_table_text(t, label);
    free(label);
    cli_table_int(t, (long long)st.count);
    double values[8] = {st.sum,        st.mean,   st.variance,   st.minimum,
                        st.quartile25, st.median, st.quartile75, st.maximum};
    for (int k = 0; k < 8; k++)
        cli_table_double(t, values[k]);
    cli_table_end_row(t);
    return 0;
}

static int print_statistics(const plan *p, cli_table *t)
{
    size_t nt = cube_num_threads(p->defs);
    double *zeros = calloc(nt ? nt : 1, sizeof *zeros);
    if (!zeros) {
        cli_error("out of memory");
        return -1;
    }
    int rc = 0, blocks = 0;
    const char *indent = p->o->pretty ? "  " : "";
    char excl_fmt[16], incl_fmt[16], leaf_fmt[16];
    snprintf(excl_fmt, sizeof excl_fmt, "%sEXCL(%%s)", indent);
    snprintf(incl_fmt, sizeof incl_fmt, "%sINCL(%%s)", indent);
    snprintf(leaf_fmt, sizeof leaf_fmt, "%sLEAF(%%s)", indent);
    for (size_t i = 0; !rc && i < p->num_metrics; i++) {
        const metric_views *m = views_of(p, i);
        for (size_t b = 0; !rc && b < p->num_cnodes; b++) {
            const cube_cnode *cn = p->cnodes[b];
            if (blocks++)
                cli_table_gap(t);
            if (cube_cnode_num_children(cn) == 0) {
                rc = stat_row(p, t, m, m->incl, cn, "LEAF(%s)", zeros);
                continue;
            }
            rc = stat_row(p, t, m, m->incl, cn, "INCL(%s)", zeros);
            if (!rc)
                rc = stat_row(p, t, m, m->excl, cn, excl_fmt, zeros);
            for (size_t k = 0; !rc && k < cube_cnode_num_children(cn); k++) {
                const cube_cnode *ch = cube_cnode_child(cn, k);
                rc = stat_row(p, t, m, m->incl, ch,
                              cube_cnode_num_children(ch) ? incl_fmt : leaf_fmt, zeros);
            }
        }
    }
    free(zeros);
    return rc;
}

/* ------------------------------------------------------------------------
 * The top-N flat profile.
 * ------------------------------------------------------------------------ */

typedef struct {
    size_t region;
    double key;
} ranked;

/* Largest magnitude first: in a difference of two runs (cube_diff) the
 * regions that got much faster matter as much as those that got slower. */
static int by_key_descending(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    /* NaN last; equal keys in region order (a stable sort) */
    int xn = isnan(x->key), yn = isnan(y->key);
    if (xn != yn)
        return xn - yn;
    if (!xn && x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return (x->region > y->region) - (x->region < y->region);
}

/* Column i of a region's row: the third column (Inclusive Time) is
 * inclusive, the others exclusive; NaN where the metric is missing. */
static double top_value(const plan *p, size_t i, const cube_region *reg)
{
    const metric_views *m = views_of(p, i);
    cube_flat_part part = i == 2 ? CUBE_FLAT_INCLUSIVE : CUBE_FLAT_EXCLUSIVE;
    return m->met ? cube_flat_value(m->flat, reg, part, 0) : NAN;
}

static int print_top(const plan *p, cli_table *t)
{
    const cube_t *c = p->defs;
    size_t nr = cube_num_regions(c);
    const metric_views *time = &p->metrics[1];
    /* the sort key: the magnitude of the exclusive time, else of the first
     * extra metric's exclusive value, else none (region order) */
    const metric_views *key = time->met ? time : p->num_metrics > 3 ? views_of(p, 3) : NULL;
    ranked *order = malloc((nr ? nr : 1) * sizeof *order);
    unsigned char *called = calloc(nr ? nr : 1, 1);
    if (!order || !called) {
        free(order);
        free(called);
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < cube_num_cnodes(c); i++)
        called[cube_region_index(cube_cnode_callee(cube_get_cnode(c, i)))] = 1;
    int any_shown = 0;
    for (size_t i = 0; i < p->num_metrics; i++)
        any_shown |= views_of(p, i)->met != NULL;
    size_t n = 0;
    for (size_t r = 0; r < nr; r++) {
        const cube_region *reg = cube_get_region(c, r);
        /* A region is listed when any value in its row is not 0.  CubeLib
         * asks for visits alone, but in a difference of two runs of one
         * program the visits cancel where the times do not; with no metric
         * to show at all, every region a call path calls is listed. */
        int listed = !any_shown && called[r];
        for (size_t i = 0; !listed && i < p->num_metrics; i++) {
            const cube_metric *met = views_of(p, i)->met;
            double v = top_value(p, i, reg);
            listed = met && v != 0 && !cli_no_value(cube_metric_combine(met), v);
        }
        if (!listed)
            continue;
        order[n].region = r;
        order[n].key = key ? fabs(cube_flat_value(key->flat, reg, CUBE_FLAT_EXCLUSIVE, 0)) : 0.0;
        n++;
    }
    qsort(order, n, sizeof *order, by_key_descending);
    for (size_t k = 0; k < n && k < p->o->top; k++) {
        const cube_region *reg = cube_get_region(c, order[k].region);
        cli_table_text(t, cube_region_name(reg));
        for (size_t i = 0; i < p->num_metrics; i++) {
            double v = top_value(p, i, reg);
            cli_table_view_value(t, cube_metric_combine(views_of(p, i)->met), v, v);
        }
        cli_table_end_row(t);
    }
    free(order);
    free(called);
    return 0;
}

/* ------------------------------------------------------------------------
 * The run.
 * ------------------------------------------------------------------------ */

static int print_output(const plan *p)
{
    const options *o = p->o;
    cli_format format = o->pretty ? CLI_FORMAT_HUMAN : CLI_FORMAT_CSV;
    size_t ncols = 0;
    cli_column *cols = calloc(p->num_metrics + 12, sizeof *cols);
    if (!cols) {
        cli_error("out of memory");
        return -1;
    }
    switch (o->mode) {
    case MODE_PROFILE:
        cols[ncols++] = (cli_column){"Routine", 0};
        for (size_t i = 0; i < p->num_metrics; i++)
            cols[ncols++] = (cli_column){cube_metric_uniq_name(p->metrics[i].met),
                                         CLI_COL_NUMBER};
        break;
    case MODE_STATISTICS: {
        static const char *const names[] = {"Count",   "Sum",         "Mean",
                                            "Variance", "Minimum",    "Quartile 25",
                                            "Median",  "Quartile 75", "Maximum"};
        cols[ncols++] = (cli_column){"cube::Metric", 0};
        cols[ncols++] = (cli_column){"Routine", 0};
        for (int k = 0; k < 9; k++)
            cols[ncols++] = (cli_column){names[k], CLI_COL_NUMBER};
        break;
    }
    case MODE_TOP:
        cols[ncols++] = (cli_column){"cube::Region", CLI_COL_QUOTE};
        cols[ncols++] = (cli_column){o->pretty ? "NumberOfCalls" : "Number of Calls",
                                     CLI_COL_NUMBER};
        cols[ncols++] = (cli_column){o->pretty ? "ExclusiveTime" : "Exclusive Time",
                                     CLI_COL_NUMBER};
        cols[ncols++] = (cli_column){o->pretty ? "InclusiveTime" : "Inclusive Time",
                                     CLI_COL_NUMBER};
        for (size_t i = 3; i < p->num_metrics; i++)
            cols[ncols++] = (cli_column){cube_metric_uniq_name(p->metrics[i].met),
                                         CLI_COL_NUMBER};
        break;
    }
    cli_output out;
    if (cli_output_open(&out, o->output) != 0) {
        free(cols);
        return -1;
    }
    cli_table *t = cli_table_begin(out.fp, format, cols, ncols, 0);
    int rc = t ? 0 : -1;
    if (!rc) {
        switch (o->mode) {
        case MODE_PROFILE: rc = print_profile(p, t); break;
        case MODE_STATISTICS: rc = print_statistics(p, t); break;
        case MODE_TOP: rc = print_top(p, t); break;
        }
    }
    if (t && cli_table_end(t) != 0)
        rc = -1;
    if (cli_output_close(&out, rc == 0) != 0)
        rc = -1;
    free(cols);
    return rc;
}

static int run(const options *o)
{
    static const cli_row_sink sink = {plan_setup, plan_wants, plan_add, plan_reset};
    plan p;
    memset(&p, 0, sizeof p);
    p.o = o;
    int rc = EXIT_TROUBLE;
    cli_input *in = cli_input_read(o->input, &sink, &p);
    if (in && o->mode == MODE_TOP) {
        /* CubeLib fails here; we say what is missing and go on */
        if (!p.metrics[0].met)
            fprintf(stderr,
                    "%s: warning: %s: no metric 'visits' (nor one named 'Visits'): the column "
                    "Number of Calls is empty\n",
                    cli_tool(), o->input);
        if (!p.metrics[1].met)
            fprintf(stderr,
                    "%s: warning: %s: no metric 'time' (nor one named 'Time'): the columns "
                    "Exclusive Time and Inclusive Time are empty, and regions are sorted by %s\n",
                    cli_tool(), o->input,
                    p.num_metrics > 3 ? "the first -m metric" : "their order in the file");
    }
    if (in && plan_finish(&p) == 0 && print_output(&p) == 0)
        rc = EXIT_OK;
    plan_free(&p);
    cli_input_close(in);
    return rc;
}

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, 'V'},
                                             {NULL, 0, NULL, 0}};
    options o;
    memset(&o, 0, sizeof o);
    o.output = "-";
    int opt, stats = 0, top = 0;
    /* cli_getopt reports bad options itself and never returns them */
    while ((opt = cli_getopt(argc, argv, "pm:r:t:%o:h", longopts, usage)) != -1) {
        switch (opt) {
        case 'p': o.pretty = 1; break;
        case 'm':
            if (!*optarg)
                cli_usage_error(usage, "-m takes metric names");
            o.metrics = optarg;
            break;
        case 'r':
            if (!*optarg)
                cli_usage_error(usage, "-r takes region names");
            o.routines = optarg;
            break;
        case '%': stats = 1; break;
        case 't':
            top = 1;
            if (strcmp(optarg, "all") == 0 || strcmp(optarg, "inf") == 0 ||
                strcmp(optarg, "unlimited") == 0 || strcmp(optarg, "infinite") == 0) {
                o.top = SIZE_MAX;
            } else {
                if (cli_parse_count(optarg, &o.top) != 0 || o.top == 0)
                    cli_usage_error(usage, "-t takes a positive number or 'all', not '%s'",
                                    optarg);
            }
            break;
        case 'o': o.output = optarg; break;
        case 'h': print_help(); return EXIT_OK;
        case 'V': cli_print_version(); return EXIT_OK;
        }
    }
    if (top && o.routines)
        cli_usage_error(usage, "options -r and -t cannot be used together");
    if (top && stats)
        cli_usage_error(usage, "options -%% and -t cannot be used together");
    o.mode = top ? MODE_TOP : stats ? MODE_STATISTICS : MODE_PROFILE;
    if (argc - optind != 1)
        cli_usage_error(usage, argc == optind ? "no input file" : "exactly one input file");
    o.input = argv[optind];
    return run(&o);
}
