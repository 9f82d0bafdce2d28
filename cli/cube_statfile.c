/*
 * cube_statfile - statistics files (pattern statistics and most severe
 * instances written by trace analysers, see cube-stat(5)):
 *   - a table of the patterns and their statistics (default);
 *   - with --instances, the most severe instances of each pattern;
 *   - with --check, validation only;
 *   - with --svg, the box plot of the Cube display as an SVG file;
 *   - with --from-cube, a statistics file computed from an experiment.
 * With --cube, metrics and call paths are joined with an experiment.
 */
#include "cli_common.h"
#include "cube_statfile.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "cube_statfile [--cube EXP] [-s FORMAT] [-o OUT] STATFILE\n"
    "       cube_statfile --instances[=N] [--cube EXP] [-s FORMAT] [-o OUT] STATFILE\n"
    "       cube_statfile --check [--cube EXP] STATFILE\n"
    "       cube_statfile --svg OUT.svg [--title TEXT] STATFILE\n"
    "       cube_statfile --from-cube EXP -m METRIC... [--instances=N]\n"
    "                     [--dialect=documented|scalasca] [-o OUT]";

static void print_help(void)
{
    printf("usage: %s\n"
           "Statistics files of trace analysers (pattern statistics and most severe\n"
           "instances, as the Cube display shows them).\n\n"
           "  -s, --format=FORMAT  csv (default), tsv, json or human\n"
           "      --cube=EXP       join with the experiment EXP: metric names, call paths\n"
           "      --instances[=N]  the N most severe instances of each pattern (default:\n"
           "                       all); with --from-cube, how many to keep (default 10)\n"
           "      --check          validate only: exit 0, or 2 listing the problems\n"
           "      --svg=OUT.svg    write the box plot of the patterns as SVG\n"
           "      --title=TEXT     the box plot's title (default: the file name)\n"
           "      --from-cube=EXP  compute a statistics file from the experiment EXP\n"
           "  -m METRIC           with --from-cube: a metric's unique name, or a display\n"
           "                       name only one metric has (repeat, or\n"
           "                       comma-separated; 'all': every metric with values)\n"
           "      --dialect=D      with --from-cube: documented (default) or scalasca\n"
           "  -o, --output=OUT    the output (default '-', standard output)\n"
           "  -h, --help          this help\n"
           "      --version       the version\n\n"
           "STATFILE may be gzip-compressed; '-' reads standard input.\n"
           "Exit status: 0 on success, 2 on a usage error or bad input.\n"
           "See cube_statfile(1) and cube-stat(5).\n",
           usage);
}

typedef enum { MODE_TABLE, MODE_INSTANCES, MODE_CHECK, MODE_SVG, MODE_FROM_CUBE } mode;

typedef struct {
    mode mode;
    cli_format format;
    const char *cube;   /* --cube */
    const char *svg;    /* --svg */
    const char *title;  /* --title */
    const char *from;   /* --from-cube */
    const char *output; /* -o */
    const char *input;  /* STATFILE */
    size_t instances;   /* --instances; SIZE_MAX: all */
    int instances_given;
    cube_statfile_dialect dialect;
    char **metrics; /* -m, split at commas */
    size_t num_metrics;
} options;

/* ------------------------------------------------------------------------
 * Reading, and the join with an experiment.
 * ------------------------------------------------------------------------ */

static void print_file_warnings(const cube_statfile *s)
{
    for (size_t i = 0; i < cube_statfile_num_warnings(s); i++)
        fprintf(stderr, "%s: warning: %s\n", cli_tool(), cube_statfile_warning(s, i));
}

/* NULL after printing the error; the file's warnings are printed. */
static cube_statfile *read_statfile(const char *path)
{
    cube_statfile *s = cube_statfile_create();
    if (!s) {
        cli_error("out of memory");
        return NULL;
    }
    int rc = cube_statfile_read(s, path);
    print_file_warnings(s);
    if (rc != 0) {
        cli_error("%s", cube_statfile_error(s));
        cube_statfile_free(s);
        return NULL;
    }
    return s;
}

static const char *dialect_name(cube_statfile_dialect d)
{
    return d == CUBE_STATFILE_SCALASCA ? "scalasca" : "documented";
}

/* The pattern's metric in the experiment (NULL without one, after a warning
 * once per pattern when `warn`). */
static const cube_metric *pattern_metric(const options *o, const cube_statfile_pattern *p,
                                         const cube_t *c, int warn)
{
    if (!c)
        return NULL;
    const cube_metric *m = cube_statfile_metric(p, c);
    if (!m && warn) {
        if (p->metric_id >= 0)
            fprintf(stderr,
                    "%s: warning: %s:%ld: pattern '%s': %s has no metric with id %lld\n",
                    cli_tool(), o->input, p->line, p->name, o->cube, (long long)p->metric_id);
        else
            fprintf(stderr, "%s: warning: %s:%ld: pattern '%s': %s has no metric '%s'\n",
                    cli_tool(), o->input, p->line, p->name, o->cube, p->name);
    }
    return m;
}

static const cube_cnode *instance_cnode(const options *o, const cube_statfile_instance *in,
                                        const cube_t *c)
{
    const cube_cnode *cn = cube_statfile_cnode(in, c);
    if (!cn)
        fprintf(stderr, "%s: warning: %s:%ld: %s has no call path with id %lld\n", cli_tool(),
                o->input, in->line, o->cube, (long long)in->cnode_id);
    return cn;
}

/* The metric column: with an experiment, its metric's unique name; without
 * one, in the Scalasca dialect, the pattern's name, which is the unique
 * name; NULL: unknown. */
static const char *metric_label(const cube_statfile_pattern *p, const cube_metric *m,
                                const cube_t *c)
{
    if (c)
        return m ? cube_metric_uniq_name(m) : NULL;
    return p->metric_id < 0 ? p->name : NULL;
}

static long long metric_id_of(const cube_statfile_pattern *p, const cube_metric *m)
{
    if (p->metric_id >= 0)
        return (long long)p->metric_id;
    return m ? (long long)cube_metric_id(m) : -1;
}

/* ------------------------------------------------------------------------
 * The table of patterns.
 * ------------------------------------------------------------------------ */

static const cli_column pattern_columns[] = {
    {"pattern", 0},
    {"metric_id", CLI_COL_NUMBER},
    {"metric", 0},
    {"count", CLI_COL_NUMBER},
    {"mean", CLI_COL_NUMBER},
    {"median", CLI_COL_NUMBER},
    {"minimum", CLI_COL_NUMBER},
    {"maximum", CLI_COL_NUMBER},
    {"sum", CLI_COL_NUMBER},
    {"variance", CLI_COL_NUMBER},
    {"quartile25", CLI_COL_NUMBER},
    {"quartile75", CLI_COL_NUMBER},
    {"instances", CLI_COL_NUMBER},
};

static void print_patterns(const options *o, const cube_statfile *s, const cube_t *c,
                           cli_table *t)
{
    for (size_t i = 0; i < cube_statfile_num_patterns(s); i++) {
        const cube_statfile_pattern *p = cube_statfile_get_pattern(s, i);
        const cube_metric *m = pattern_metric(o, p, c, 1);
        cli_table_text(t, p->name);
        long long id = metric_id_of(p, m);
        if (id >= 0)
            cli_table_int(t, id);
        else
            cli_table_double(t, NAN);
        cli_table_text(t, metric_label(p, m, c));
        cli_table_int(t, (long long)p->count);
        int sum = (p->has & CUBE_STATFILE_SUMMARY) != 0;
        int var = (p->has & CUBE_STATFILE_VARIANCE) != 0;
        int q = (p->has & CUBE_STATFILE_QUARTILES) != 0;
        double v[8] = {sum ? p->mean : NAN,    sum ? p->median : NAN, sum ? p->minimum : NAN,
                       sum ? p->maximum : NAN, sum ? p->sum : NAN,    var ? p->variance : NAN,
                       q ? p->quartile25 : NAN, q ? p->quartile75 : NAN};
        for (int k = 0; k < 8; k++)
            cli_table_double(t, v[k]);
        cli_table_int(t, (long long)p->num_instances);
        cli_table_end_row(t);
    }
}

/* ------------------------------------------------------------------------
 * The most severe instances.
 * ------------------------------------------------------------------------ */

typedef struct {
    const cube_statfile_instance *in;
    size_t pos;
} ranked;

static int by_duration(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    double dx = x->in->duration, dy = y->in->duration;
    int xn = isnan(dx), yn = isnan(dy);
    if (xn != yn)
        return xn - yn;
    if (!xn && dx != dy)
        return dx < dy ? 1 : -1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static int print_instances(const options *o, const cube_statfile *s, const cube_t *c,
                           cli_table *t)
{
    for (size_t i = 0; i < cube_statfile_num_patterns(s); i++) {
        const cube_statfile_pattern *p = cube_statfile_get_pattern(s, i);
        const cube_metric *m = pattern_metric(o, p, c, 1);
        size_t n = p->num_instances;
        if (!n)
            continue;
        ranked *r = malloc(n * sizeof *r);
        if (!r) {
            cli_error("out of memory");
            return -1;
        }
        for (size_t k = 0; k < n; k++)
            r[k] = (ranked){&p->instances[k], k};
        qsort(r, n, sizeof *r, by_duration);
        for (size_t k = 0; k < n && k < o->instances; k++) {
            const cube_statfile_instance *in = r[k].in;
            cli_table_text(t, p->name);
            cli_table_text(t, metric_label(p, m, c));
            cli_table_int(t, (long long)in->cnode_id);
            if (c) {
                const cube_cnode *cn = instance_cnode(o, in, c);
                char *path = cn ? cube_call_path(cn) : NULL;
                if (cn && !path) {
                    free(r);
                    cli_error("out of memory");
                    return -1;
                }
                cli_table_text(t, path);
                free(path);
            }
            cli_table_double(t, in->enter);
            cli_table_double(t, in->exit);
            cli_table_double(t, in->duration);
            if (in->rank >= 0)
                cli_table_int(t, (long long)in->rank);
            else
                cli_table_double(t, NAN);
            cli_table_end_row(t);
        }
        free(r);
    }
    return 0;
}

static int print_table(const options *o, const cube_statfile *s, const cube_t *c)
{
    static const cli_column inst_cube[] = {
        {"pattern", 0},          {"metric", 0},          {"cnode_id", CLI_COL_NUMBER},
        {"call_path", 0},        {"enter", CLI_COL_NUMBER}, {"exit", CLI_COL_NUMBER},
        {"duration", CLI_COL_NUMBER}, {"rank", CLI_COL_NUMBER},
    };
    static const cli_column inst_plain[] = {
        {"pattern", 0},          {"metric", 0},          {"cnode_id", CLI_COL_NUMBER},
        {"enter", CLI_COL_NUMBER}, {"exit", CLI_COL_NUMBER}, {"duration", CLI_COL_NUMBER},
        {"rank", CLI_COL_NUMBER},
    };
    const cli_column *cols = pattern_columns;
    size_t ncols = sizeof pattern_columns / sizeof *pattern_columns;
    if (o->mode == MODE_INSTANCES) {
        cols = c ? inst_cube : inst_plain;
        ncols = c ? sizeof inst_cube / sizeof *inst_cube : sizeof inst_plain / sizeof *inst_plain;
    }
    cli_output out;
    if (cli_output_open(&out, o->output) != 0)
        return -1;
    cli_table *t = cli_table_begin(out.fp, o->format, cols, ncols, 0);
    int rc = t ? 0 : -1;
    if (!rc) {
        if (o->mode == MODE_INSTANCES)
            rc = print_instances(o, s, c, t);
        else
            print_patterns(o, s, c, t);
    }
    if (t && cli_table_end(t) != 0)
        rc = -1;
    if (cli_output_close(&out, rc == 0) != 0)
        rc = -1;
    return rc;
}

/* ------------------------------------------------------------------------
 * --check
 * ------------------------------------------------------------------------ */

static int check(const options *o, const cube_t *c)
{
    cube_statfile *s = cube_statfile_create();
    if (!s) {
        cli_error("out of memory");
        return EXIT_TROUBLE;
    }
    int rc = cube_statfile_read(s, o->input);
    size_t warnings = cube_statfile_num_warnings(s);
    print_file_warnings(s);
    if (rc != 0) {
        cli_error("%s", cube_statfile_error(s));
        cube_statfile_free(s);
        return EXIT_TROUBLE;
    }
    size_t np = cube_statfile_num_patterns(s), ni = 0;
    for (size_t i = 0; i < np; i++) {
        const cube_statfile_pattern *p = cube_statfile_get_pattern(s, i);
        ni += p->num_instances;
        for (size_t k = 0; k < i; k++)
            if (strcmp(cube_statfile_get_pattern(s, k)->name, p->name) == 0) {
                fprintf(stderr, "%s: warning: %s:%ld: pattern '%s' repeats the one of line %ld\n",
                        cli_tool(), o->input, p->line, p->name,
                        cube_statfile_get_pattern(s, k)->line);
                warnings++;
                break;
            }
        if (!c)
            continue;
        if (!pattern_metric(o, p, c, 1))
            warnings++;
        for (size_t k = 0; k < p->num_instances; k++)
            if (!instance_cnode(o, &p->instances[k], c))
                warnings++;
    }
    printf("%s: ok: %s dialect, %zu pattern%s, %zu instance%s, %zu warning%s\n", o->input,
           dialect_name(cube_statfile_get_dialect(s)), np, np == 1 ? "" : "s", ni,
           ni == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
    cube_statfile_free(s);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_TROUBLE;
}

/* ------------------------------------------------------------------------
 * --svg: the box plot.  The layout (cube_statfile(1), BOX PLOT): column i
 * (from 0) is centred at x = 80 + 110 i + 55; the plot area runs from
 * y = 40 (the largest value) to y = 440 (the smallest); see scale_y.
 * ------------------------------------------------------------------------ */

#define SVG_LEFT 80.0
#define SVG_COLUMN 110.0
#define SVG_TOP 40.0
#define SVG_HEIGHT 400.0
#define SVG_BOTTOM (SVG_TOP + SVG_HEIGHT)
#define SVG_BOX_HALF 20.0
#define SVG_CAP_HALF 10.0

typedef struct {
    int log;
    double lo, hi; /* the axis range (log: of the values, not their logs) */
} scale;

static double scale_y(const scale *sc, double v)
{
    double f = sc->log ? (log10(v) - log10(sc->lo)) / (log10(sc->hi) - log10(sc->lo))
                       : (v - sc->lo) / (sc->hi - sc->lo);
    return SVG_BOTTOM - SVG_HEIGHT * f;
}

/* The values a pattern draws: minimum, quartile 25, median, quartile 75,
 * maximum, mean (NaN where absent). */
static void drawn_values(const cube_statfile_pattern *p, double v[6])
{
    int sum = (p->has & CUBE_STATFILE_SUMMARY) != 0;
    int q = (p->has & CUBE_STATFILE_QUARTILES) != 0;
    v[0] = sum ? p->minimum : NAN;
    v[1] = q ? p->quartile25 : NAN;
    v[2] = sum ? p->median : NAN;
    v[3] = q ? p->quartile75 : NAN;
    v[4] = sum ? p->maximum : NAN;
    v[5] = sum ? p->mean : NAN;
}

static void make_scale(const cube_statfile *s, scale *sc)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < cube_statfile_num_patterns(s); i++) {
        double v[6];
        drawn_values(cube_statfile_get_pattern(s, i), v);
        for (int k = 0; k < 6; k++)
            if (isfinite(v[k])) {
                lo = v[k] < lo ? v[k] : lo;
                hi = v[k] > hi ? v[k] : hi;
            }
    }
    sc->log = 0;
    if (lo > hi) { /* nothing to draw */
        sc->lo = 0;
        sc->hi = 1;
        return;
    }
    if (lo > 0 && hi / lo > 1000) {
        sc->log = 1;
        sc->lo = lo;
        sc->hi = hi;
        return;
    }
    sc->lo = lo < 0 ? lo : 0;
    sc->hi = hi > 0 ? hi : 0;
    if (sc->hi == sc->lo)
        sc->hi = sc->lo + 1;
}

static void svg_number(FILE *fp, double v)
{
    char buf[CUBE_DOUBLE_BUFSIZE];
    cube_format_double(v, buf);
    fputs(buf, fp);
}

static void svg_hline(FILE *fp, const char *cls, double cx, double half, double y,
                      const char *extra)
{
    fprintf(fp, "<line class=\"%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"%s/>\n", cls,
            cx - half, y, cx + half, y, extra);
}

/* Tick values of the axis: powers of ten (log) or 1, 2, 5 x 10^k steps. */
static void svg_ticks(FILE *fp, const scale *sc)
{
    double t0, step;
    if (sc->log) {
        for (double e = ceil(log10(sc->lo)); e <= floor(log10(sc->hi)); e++) {
            double v = pow(10, e), y = scale_y(sc, v);
            fprintf(fp,
                    "<line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n"
                    "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">1e%d</text>\n",
                    SVG_LEFT - 5, y, SVG_LEFT, y, SVG_LEFT - 8, y + 4, (int)e);
        }
        return;
    }
    double range = sc->hi - sc->lo, mag = pow(10, floor(log10(range / 5)));
    step = mag;
    if (range / step > 10)
        step = 2 * mag;
    if (range / step > 10)
        step = 5 * mag;
    if (range / step > 10)
        step = 10 * mag;
    t0 = ceil(sc->lo / step) * step;
    for (int k = 0; k <= 12; k++) {
        double v = t0 + k * step;
        if (v > sc->hi + step * 1e-9)
            break;
        if (fabs(v) < step * 1e-9)
            v = 0;
        double y = scale_y(sc, v);
        fprintf(fp, "<line class=\"tick\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
                SVG_LEFT - 5, y, SVG_LEFT, y);
        fprintf(fp, "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%.6g</text>\n",
                SVG_LEFT - 8, y + 4, v);
    }
}

static void svg_pattern(FILE *fp, const cube_statfile_pattern *p, size_t i, const scale *sc)
{
    double cx = SVG_LEFT + SVG_COLUMN * (double)i + SVG_COLUMN / 2;
    double v[6];
    drawn_values(p, v);
    fprintf(fp, "<g class=\"pattern\" id=\"pattern-%zu\">\n<title>", i + 1);
    cube_fputs_xml(p->name, fp);
    fprintf(fp, "\ncount %llu", (unsigned long long)p->count);
    static const char *const names[] = {"minimum", "quartile25", "median",
                                        "quartile75", "maximum", "mean"};
    for (int k = 0; k < 6; k++)
        if (!isnan(v[k])) {
            fprintf(fp, "\n%s ", names[k]);
            svg_number(fp, v[k]);
        }
    if (p->has & CUBE_STATFILE_VARIANCE) {
        fputs("\nvariance ", fp);
        svg_number(fp, p->variance);
    }
    fputs("</title>\n", fp);
    if (p->has & CUBE_STATFILE_SUMMARY) {
        double ymin = scale_y(sc, v[0]), ymax = scale_y(sc, v[4]);
        fprintf(fp,
                "<line class=\"whisker\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
                cx, ymax, cx, ymin);
        svg_hline(fp, "maximum", cx, SVG_CAP_HALF, ymax, "");
        svg_hline(fp, "minimum", cx, SVG_CAP_HALF, ymin, "");
        if (p->has & CUBE_STATFILE_QUARTILES) {
            double y75 = scale_y(sc, v[3]), y25 = scale_y(sc, v[1]);
            fprintf(fp,
                    "<rect class=\"box\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>\n",
                    cx - SVG_BOX_HALF, y75, 2 * SVG_BOX_HALF, y25 - y75);
        }
        svg_hline(fp, "median", cx, SVG_BOX_HALF, scale_y(sc, v[2]), "");
        svg_hline(fp, "mean", cx, SVG_BOX_HALF, scale_y(sc, v[5]), "");
    } else {
        fprintf(fp,
                "<text class=\"note\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">"
                "count only</text>\n",
                cx, SVG_BOTTOM - 8);
    }
    if ((p->has & CUBE_STATFILE_SUMMARY) && !(p->has & CUBE_STATFILE_QUARTILES))
        fprintf(fp,
                "<text class=\"note\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">"
                "no quartiles</text>\n",
                cx, SVG_TOP - 6);
    fprintf(fp,
            "<text class=\"label\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" "
            "transform=\"rotate(-60 %.2f %.2f)\">",
            cx, SVG_BOTTOM + 16, cx, SVG_BOTTOM + 16);
    cube_fputs_xml(p->name, fp);
    fputs("</text>\n</g>\n", fp);
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b && b[1] ? b + 1 : path;
}

static int write_svg(const options *o, const cube_statfile *s)
{
    size_t n = cube_statfile_num_patterns(s), longest = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(cube_statfile_get_pattern(s, i)->name);
        longest = k > longest ? k : longest;
    }
    scale sc;
    make_scale(s, &sc);
    double width = SVG_LEFT + SVG_COLUMN * (double)(n ? n : 1) + 20;
    double height = SVG_BOTTOM + 36 + ceil(6.1 * (double)longest);
    const char *title = o->title ? o->title : strcmp(o->input, "-") == 0 ? "standard input"
                                                                         : base_name(o->input);
    cli_output out;
    if (cli_output_open(&out, o->svg) != 0)
        return -1;
    FILE *fp = out.fp;
    fprintf(fp,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
            "<title>",
            width, height, width, height);
    cube_fputs_xml(title, fp);
    fputs("</title>\n<style>\n"
          "text { font-family: sans-serif; font-size: 12px; fill: black; }\n"
          "text.title { font-size: 14px; }\n"
          "text.note { font-size: 10px; fill: #555555; }\n"
          "line { stroke: black; stroke-width: 1; }\n"
          "line.median { stroke-width: 3; }\n"
          "line.mean { stroke-dasharray: 5 3; }\n"
          "line.grid { stroke: #dddddd; }\n"
          "rect.box { fill: white; stroke: black; stroke-width: 1; }\n"
          "</style>\n",
          fp);
    fprintf(fp, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
                "fill=\"white\"/>\n<text class=\"title\" x=\"%.2f\" y=\"24\">",
            width, height, SVG_LEFT);
    cube_fputs_xml(title, fp);
    fprintf(fp, "%s</text>\n", sc.log ? " (log scale)" : "");
    fprintf(fp,
            "<line class=\"axis\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n"
            "<line class=\"axis\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n",
            SVG_LEFT, SVG_TOP, SVG_LEFT, SVG_BOTTOM, SVG_LEFT, SVG_BOTTOM, width - 20, SVG_BOTTOM);
    svg_ticks(fp, &sc);
    if (n == 0)
        fprintf(fp, "<text class=\"note\" x=\"%.2f\" y=\"%.2f\">no patterns</text>\n",
                SVG_LEFT + 10, SVG_TOP + 20);
    for (size_t i = 0; i < n; i++)
        svg_pattern(fp, cube_statfile_get_pattern(s, i), i, &sc);
    fputs("</svg>\n", fp);
    return cli_output_close(&out, !ferror(fp));
}

/* ------------------------------------------------------------------------
 * --from-cube
 * ------------------------------------------------------------------------ */

static int from_cube(const options *o)
{
    cube_t *c = cli_read(o->from);
    if (!c)
        return EXIT_TROUBLE;
    cube_statfile *s = cube_statfile_create();
    int rc = s ? EXIT_OK : EXIT_TROUBLE;
    if (!s)
        cli_error("out of memory");
    size_t max = o->instances_given ? o->instances : 10;
    for (size_t i = 0; rc == EXIT_OK && i < o->num_metrics; i++) {
        const char *name = o->metrics[i];
        if (strcmp(name, "all") == 0) {
            for (size_t k = 0; rc == EXIT_OK && k < cube_num_metrics(c); k++) {
                const cube_metric *m = cube_get_metric(c, k);
                /* VOID and derived metrics have no values (a derived one's
                 * are not computed) */
                if (!cube_metric_is_void(m) && !cube_metric_is_derived(m) &&
                    cube_statfile_add_from_cube(s, c, m, max) != 0) {
                    cli_error("out of memory");
                    rc = EXIT_TROUBLE;
                }
            }
            continue;
        }
        const cube_metric *m = cli_find_metric(c, o->from, "-m", name);
        if (!m) {
            rc = EXIT_TROUBLE;
        } else if (cube_statfile_add_from_cube(s, c, m, max) != 0) {
            cli_error("out of memory");
            rc = EXIT_TROUBLE;
        }
    }
    if (rc == EXIT_OK && cube_statfile_write(s, o->output, o->dialect) != 0) {
        cli_error("%s", cube_statfile_error(s));
        rc = EXIT_TROUBLE;
    }
    cube_statfile_free(s);
    cube_free(c);
    return rc;
}

/* ------------------------------------------------------------------------
 * The run.
 * ------------------------------------------------------------------------ */

static int run(const options *o)
{
    if (o->mode == MODE_FROM_CUBE)
        return from_cube(o);
    cube_t *c = NULL;
    if (o->cube && !(c = cli_read(o->cube)))
        return EXIT_TROUBLE;
    int rc = EXIT_TROUBLE;
    if (o->mode == MODE_CHECK) {
        rc = check(o, c);
    } else {
        cube_statfile *s = read_statfile(o->input);
        if (s) {
            int r = o->mode == MODE_SVG ? write_svg(o, s) : print_table(o, s, c);
            rc = r == 0 ? EXIT_OK : EXIT_TROUBLE;
            cube_statfile_free(s);
        }
    }
    cube_free(c);
    return rc;
}

static int parse_count(const char *arg, size_t *n)
{
    if (strcmp(arg, "all") == 0) {
        *n = SIZE_MAX;
        return 0;
    }
    return cli_parse_count(arg, n);
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

static void free_metrics(options *o)
{
    for (size_t i = 0; i < o->num_metrics; i++)
        free(o->metrics[i]);
    free(o->metrics);
}

static void add_metrics(options *o, const char *list)
{
    for (const char *s = list;;) {
        size_t k = strcspn(s, ",");
        if (!k) {
            free_metrics(o);
            cli_usage_error(usage, "-m takes metric names, not '%s'", list);
        }
        char **m = realloc(o->metrics, (o->num_metrics + 1) * sizeof *m);
        char *name = strndup(s, k);
        if (!m || !name) {
            free(name);
            if (m)
                o->metrics = m;
            free_metrics(o);
            cli_error("out of memory");
            exit(EXIT_TROUBLE);
        }
        o->metrics = m;
        o->metrics[o->num_metrics++] = name;
        if (!s[k])
            return;
        s += k + 1;
    }
}

enum {
    OPT_CUBE = 256,
    OPT_INSTANCES,
    OPT_CHECK,
    OPT_SVG,
    OPT_TITLE,
    OPT_FROM_CUBE,
    OPT_DIALECT,
    OPT_VERSION
};

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    static const struct option longopts[] = {{"format", required_argument, NULL, 's'},
                                             {"cube", required_argument, NULL, OPT_CUBE},
                                             {"instances", optional_argument, NULL, OPT_INSTANCES},
                                             {"check", no_argument, NULL, OPT_CHECK},
                                             {"svg", required_argument, NULL, OPT_SVG},
                                             {"title", required_argument, NULL, OPT_TITLE},
                                             {"from-cube", required_argument, NULL, OPT_FROM_CUBE},
                                             {"dialect", required_argument, NULL, OPT_DIALECT},
                                             {"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, OPT_VERSION},
                                             {NULL, 0, NULL, 0}};
    options o;
    memset(&o, 0, sizeof o);
    o.output = "-";
    o.format = CLI_FORMAT_CSV;
    o.instances = SIZE_MAX;
    o.dialect = CUBE_STATFILE_DOCUMENTED;
    int opt, check_mode = 0, modes = 0, output_given = 0, format_given = 0, dialect_given = 0;
    while ((opt = cli_getopt(argc, argv, "s:m:o:h", longopts, usage)) != -1) {
        switch (opt) {
        case 's':
            if (cli_format_parse(optarg, &o.format) != 0)
                cli_usage_error(usage, "-s takes csv, tsv, json or human, not '%s'", optarg);
            format_given = 1;
            break;
        case OPT_CUBE: o.cube = optarg; break;
        case OPT_INSTANCES: {
            const char *arg = optarg;
            /* "--instances N": the next argument, when it is a number and
             * not the last one (the statistics file) */
            if (!arg && optind < argc - 1 && all_digits(argv[optind]))
                arg = argv[optind++];
            if (arg && parse_count(arg, &o.instances) != 0)
                cli_usage_error(usage, "--instances takes a number or 'all', not '%s'", arg);
            if (!arg)
                o.instances = SIZE_MAX;
            o.instances_given = 1;
            break;
        }
        case OPT_CHECK: check_mode = 1; break;
        case OPT_SVG: o.svg = optarg; break;
        case OPT_TITLE: o.title = optarg; break;
        case OPT_FROM_CUBE: o.from = optarg; break;
        case 'm': add_metrics(&o, optarg); break;
        case OPT_DIALECT:
            if (strcmp(optarg, "documented") == 0)
                o.dialect = CUBE_STATFILE_DOCUMENTED;
            else if (strcmp(optarg, "scalasca") == 0)
                o.dialect = CUBE_STATFILE_SCALASCA;
            else
                cli_usage_error(usage, "--dialect takes documented or scalasca, not '%s'",
                                optarg);
            dialect_given = 1;
            break;
        case 'o':
            o.output = optarg;
            output_given = 1;
            break;
        case 'h': free_metrics(&o); print_help(); return EXIT_OK;
        case OPT_VERSION: free_metrics(&o); cli_print_version(); return EXIT_OK;
        }
    }
    const char *conflict = NULL;
    modes = check_mode + (o.svg != NULL) + (o.from != NULL);
    if (modes > 1)
        conflict = "options --check, --svg and --from-cube cannot be used together";
    else if (o.instances_given && (check_mode || o.svg))
        conflict = "option --instances cannot be used with --check or --svg";
    else if (o.num_metrics && !o.from)
        conflict = "option -m needs --from-cube";
    else if (o.from && !o.num_metrics)
        conflict = "option --from-cube needs -m METRIC (or -m all)";
    else if (dialect_given && !o.from)
        conflict = "option --dialect needs --from-cube";
    else if (o.from && (o.cube || format_given))
        conflict = "options --cube and -s cannot be used with --from-cube";
    else if (o.title && !o.svg)
        conflict = "option --title needs --svg";
    else if ((o.svg || check_mode) && (output_given || format_given))
        conflict = o.svg ? "option --svg names the output: -o and -s cannot be used with it"
                         : "options -o and -s cannot be used with --check";
    if (conflict) {
        free_metrics(&o);
        cli_usage_error(usage, "%s", conflict);
    }
    o.mode = o.from ? MODE_FROM_CUBE
             : check_mode ? MODE_CHECK
             : o.svg      ? MODE_SVG
             : o.instances_given ? MODE_INSTANCES
                                 : MODE_TABLE;
    if (o.mode == MODE_FROM_CUBE) {
        if (argc != optind) {
            free_metrics(&o);
            cli_usage_error(usage, "--from-cube takes no statistics file (the output is -o)");
        }
    } else if (argc - optind != 1) {
        cli_usage_error(usage, argc == optind ? "no statistics file" : "exactly one statistics file");
    } else {
        o.input = argv[optind];
    }
    int rc = run(&o);
    free_metrics(&o);
    return rc;
}
