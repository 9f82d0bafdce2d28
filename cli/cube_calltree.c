/*
 * cube_calltree - CubeLib's cube_calltree with its options: the call tree
 * drawn with indentation, one call path a line, with the value of one
 * metric summed over all threads (exclusive, or inclusive with -i), its
 * percentage of the metric's root value (-p), the kind of call path (-a)
 * and the full call path (-c); with -t only the call paths whose inclusive
 * value reaches a percentage of the root value, and their ancestors, the
 * subtrees left out folded into the exclusive value of the call path above
 * them (cube_view_threshold, cube_view_fold).  Also as CSV, TSV or JSON
 * with ids, parent ids and levels, so that a script can rebuild the tree.
 *
 * The file is streamed (cli_input_read): only the metric's rows are kept.
 * The tree is walked in preorder with memory per level (cube_tree_walk),
 * never recursively: call trees can be 100 000 deep.
 */
#include "cli_common.h"
#include "cube_views.h"

#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "cube_calltree [-m METRIC [-i] [-t PCT] [-p]] [-a] [-c] [-s csv|tsv|json|human]\n"
    "                     [--ascii|--utf8] [-o OUT] FILE";

static void print_help(void)
{
    printf("usage: %s\n"
           "The call tree of a CUBE 3 or CUBE 4 experiment, one call path a line, as\n"
           "CubeLib's cube_calltree.\n\n"
           "  -m METRIC    the values of this metric (unique name, or a display name\n"
           "               only one metric has), summed over all threads\n"
           "  -i           inclusive values (default: exclusive)\n"
           "  -t PCT       only the call paths whose inclusive value is at least PCT\n"
           "               percent (0 to 100) of the metric's root value, and their\n"
           "               ancestors; the subtrees left out count to the exclusive\n"
           "               value of the call path above them (needs -m)\n"
           "  -p           the percentage of the metric's root value too\n"
           "  -a           the kind of each call path: MPI, OMP, COM (calls MPI or\n"
           "               OpenMP) or USR\n"
           "  -c           the full call path of each line\n"
           "  -f FILE      the input (as the FILE operand)\n"
           "  -s FORMAT    human (default), csv, tsv or json\n"
           "      --ascii, --utf8  draw the tree with ASCII or with box-drawing\n"
           "               characters (default: box drawing when standard output is\n"
           "               a terminal in a UTF-8 locale)\n"
           "  -o, --output=OUT  the output (default '-', standard output)\n"
           "  -h, --help   this help\n"
           "      --version  the version\n\n"
           "FILE may be gzip-compressed; '-' reads standard input.\n"
           "Exit status: 0 on success, 2 on a usage error or bad input.\n"
           "See cube_calltree(1).\n",
           usage);
}

typedef enum { DRAW_AUTO, DRAW_ASCII, DRAW_UTF8 } draw_style;

typedef struct {
    const char *metric; /* -m; NULL: the tree alone */
    int inclusive;      /* -i */
    int has_threshold;  /* -t */
    double threshold;
    int percent;  /* -p */
    int annotate; /* -a */
    int callpath; /* -c */
    cli_format format;
    draw_style draw;
    const char *output;
    const char *input;
} options;

/* The kind of a call path (-a), as CubeLib classifies them. */
enum { KIND_USR, KIND_MPI, KIND_OMP, KIND_COM };
static const char *const kind_names[] = {"USR", "MPI", "OMP", "COM"};

typedef struct {
    const options *o;
    const cube_t *defs;
    const cube_metric *met;
    cube_view *incl; /* call-inclusive: -i, -t */
    cube_view *excl; /* call-exclusive: without -i */
    /* after finish */
    double root;           /* the metric's root value */
    unsigned char *keep;   /* -t: per cnode index; NULL: every call path */
    double *folded;        /* -t without -i: the values shown */
    unsigned char *kind;   /* -a: per cnode index */
    unsigned char *last;   /* utf8 drawing: the last call path kept among its siblings */
} plan;

static void plan_free(plan *p)
{
    cube_view_free(p->incl);
    cube_view_free(p->excl);
    free(p->keep);
    free(p->folded);
    free(p->kind);
    free(p->last);
    const options *o = p->o;
    memset(p, 0, sizeof *p);
    p->o = o;
}

static int oom(void)
{
    cli_error("out of memory");
    return -1;
}

/* ------------------------------------------------------------------------
 * Reading: the views of the metric.
 * ------------------------------------------------------------------------ */

static int plan_setup(void *user, const cube_t *defs)
{
    plan *p = user;
    const options *o = p->o;
    p->defs = defs;
    p->met = cli_find_metric(defs, o->input, "-m", o->metric);
    if (!p->met)
        return -1;
    cube_status st;
    /* metric-inclusive, as stored: CubeLib's values */
    if (o->inclusive || o->has_threshold) {
        p->incl = cube_view_create(defs, p->met, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE,
                                   CUBE_VIEW_AGGREGATE, &st);
        if (!p->incl) {
            cli_error("%s: %s", o->input, st.message);
            return -1;
        }
    }
    if (!o->inclusive) {
        p->excl = cube_view_create(defs, p->met, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE,
                                   CUBE_VIEW_AGGREGATE, &st);
        if (!p->excl) {
            cli_error("%s: %s", o->input, st.message);
            return -1;
        }
    }
    return 0;
}

static int plan_wants(void *user, const cube_metric *met)
{
    const plan *p = user;
    return (p->incl && cube_view_wants(p->incl, met)) ||
           (p->excl && cube_view_wants(p->excl, met));
}

static int plan_add(void *user, const cube_metric *met, const cube_cnode *cnode,
                    const double *values)
{
    plan *p = user;
    cube_view *views[2] = {p->incl, p->excl};
    for (int i = 0; i < 2; i++) {
        if (views[i] && cube_view_add_row(views[i], met, cnode, values) != 0) {
            cli_error("%s: %s", p->o->input, cube_view_error(views[i]));
            return -1;
        }
    }
    return 0;
}

static void plan_reset(void *user)
{
    plan_free(user);
}

static int plan_finish(plan *p)
{
    const options *o = p->o;
    size_t n = cube_num_cnodes(p->defs);
    cube_status st;
    cube_view *views[2] = {p->incl, p->excl};
    for (int i = 0; i < 2; i++) {
        if (views[i] && cube_view_finish(views[i]) != 0) {
            cli_error("%s: %s", o->input, cube_view_error(views[i]));
            return -1;
        }
    }
    if (cube_view_total(p->incl ? p->incl : p->excl, &p->root, &st) != 0) {
        cli_error("%s: %s", o->input, st.message);
        return -1;
    }
    if (o->has_threshold) {
        p->keep = malloc(n ? n : 1);
        if (!p->keep)
            return oom();
        if (cube_view_threshold(p->incl, o->threshold, p->keep, NULL, &st) != 0) {
            cli_error("%s: %s", o->input, st.message);
            return -1;
        }
        if (p->excl) {
            p->folded = malloc((n ? n : 1) * sizeof *p->folded);
            if (!p->folded)
                return oom();
            if (cube_view_fold(p->excl, p->incl, p->keep, p->folded, &st) != 0) {
                cli_error("%s: %s", o->input, st.message);
                return -1;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * What each line shows.
 * ------------------------------------------------------------------------ */

static int kept(const plan *p, size_t i)
{
    return !p->keep || p->keep[i];
}

/* The kind of every call path (-a): MPI or OMP for a region whose
 * description says so (CubeLib's rule) or, in CUBE 4, whose paradigm is
 * mpi or openmp; COM for a call path that calls one of them somewhere
 * below (whatever its own region); USR for the others. */
static int classify(plan *p)
{
    const cube_t *c = p->defs;
    size_t n = cube_num_cnodes(c);
    p->kind = malloc(n ? n : 1);
    if (!p->kind)
        return oom();
    for (size_t i = 0; i < n; i++) {
        const cube_region *r = cube_cnode_callee(cube_get_cnode(c, i));
        const char *d = cube_region_descr(r), *par = cube_region_paradigm(r);
        p->kind[i] = strcmp(d, "MPI") == 0 || strcmp(par, "mpi") == 0      ? KIND_MPI
                     : strcmp(d, "OMP") == 0 || strcmp(par, "openmp") == 0 ? KIND_OMP
                                                                            : KIND_USR;
    }
    /* children before parents (a parent's index is always smaller) */
    for (size_t i = n; i-- > 0;) {
        const cube_cnode *parent = cube_cnode_parent(cube_get_cnode(c, i));
        if (parent && p->kind[i] != KIND_USR)
            p->kind[cube_cnode_index(parent)] = KIND_COM;
    }
    return 0;
}

/* For box drawing: which call path is the last one kept among its
 * siblings (a "└─" rather than a "├─"). */
static int find_last_siblings(plan *p)
{
    const cube_t *c = p->defs;
    size_t n = cube_num_cnodes(c);
    p->last = calloc(n ? n : 1, 1);
    if (!p->last)
        return oom();
    for (size_t r = cube_num_root_cnodes(c); r-- > 0;) {
        size_t i = cube_cnode_index(cube_get_root_cnode(c, r));
        if (kept(p, i)) {
            p->last[i] = 1;
            break;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const cube_cnode *cn = cube_get_cnode(c, i);
        for (size_t k = cube_cnode_num_children(cn); k-- > 0;) {
            size_t ci = cube_cnode_index(cube_cnode_child(cn, k));
            if (kept(p, ci)) {
                p->last[ci] = 1;
                break;
            }
        }
    }
    return 0;
}

/* The value shown for call path i. */
static double value_of(const plan *p, const cube_cnode *cn)
{
    if (p->folded)
        return p->folded[cube_cnode_index(cn)];
    return cube_view_value(p->excl ? p->excl : p->incl, cn, 0);
}

/* The value's percentage of the metric's root value; NaN where either has
 * no value or the root is 0. */
static double percent_of(const plan *p, double v)
{
    cube_combine_rule how = cube_metric_combine(p->met);
    if (cli_no_value(how, v) || cli_no_value(how, p->root) || p->root == 0)
        return NAN;
    return v / p->root * 100.0; /* CubeLib's order: the root itself is 100 */
}

/* ------------------------------------------------------------------------
 * Tables for scripts: one row per call path kept, in preorder.
 * ------------------------------------------------------------------------ */

/* A preorder walk over the call paths kept, with each one's level and
 * (with -c) call path.  1 with the next one, 0 at the end, -1 when out of
 * memory. */
typedef struct {
    const plan *p;
    cube_tree_walk *walk;
    cli_call_path path;
    int with_path;
    const cube_cnode *cn;
    size_t level;
} kept_walk;

/* 0, or -1 when out of memory (then kept_walk_end is still called). */
static int kept_walk_start(kept_walk *w, const plan *p, int with_path)
{
    memset(w, 0, sizeof *w);
    w->p = p;
    w->with_path = with_path;
    w->walk = cube_tree_walk_start(p->defs);
    return w->walk ? 0 : oom();
}

static int kept_walk_next(kept_walk *w)
{
    for (;;) {
        w->cn = cube_tree_walk_next(w->walk, &w->level);
        if (!w->cn)
            return 0;
        /* a call path not kept has no call path kept below it: its subtree
         * goes by without output */
        if (!kept(w->p, cube_cnode_index(w->cn)))
            continue;
        if (w->with_path && cli_call_path_enter(&w->path, w->cn, w->level) != 0)
            return oom();
        return 1;
    }
}

static void kept_walk_end(kept_walk *w)
{
    cube_tree_walk_free(w->walk);
    cli_call_path_free(&w->path);
}

static int print_table(const plan *p, FILE *fp)
{
    const options *o = p->o;
    cli_column cols[8];
    size_t nc = 0;
    cols[nc++] = (cli_column){"cnode_id", CLI_COL_NUMBER};
    cols[nc++] = (cli_column){"parent_id", CLI_COL_NUMBER};
    cols[nc++] = (cli_column){"level", CLI_COL_NUMBER};
    cols[nc++] = (cli_column){"region", 0};
    if (p->met)
        cols[nc++] = (cli_column){"value", CLI_COL_NUMBER};
    if (p->met && o->percent)
        cols[nc++] = (cli_column){"percent", CLI_COL_NUMBER};
    if (o->annotate)
        cols[nc++] = (cli_column){"type", 0};
    if (o->callpath)
        cols[nc++] = (cli_column){"call_path", 0};
    cli_table *t = cli_table_begin(fp, o->format, cols, nc, 0);
    if (!t)
        return -1;
    kept_walk w;
    int rc = kept_walk_start(&w, p, o->callpath), got = 0;
    cube_combine_rule how = p->met ? cube_metric_combine(p->met) : CUBE_COMBINE_SUM;
    while (!rc && (got = kept_walk_next(&w)) == 1) {
        const cube_cnode *cn = w.cn, *parent = cube_cnode_parent(cn);
        cli_table_int(t, (long long)cube_cnode_id(cn));
        if (parent)
            cli_table_int(t, (long long)cube_cnode_id(parent));
        else
            cli_table_absent(t, "");
        cli_table_int(t, (long long)w.level);
        cli_table_text(t, cube_region_name(cube_cnode_callee(cn)));
        if (p->met) {
            double v = value_of(p, cn);
            cli_table_view_value(t, how, v, v);
            if (o->percent)
                cli_table_double(t, percent_of(p, v));
        }
        if (o->annotate)
            cli_table_text(t, kind_names[p->kind[cube_cnode_index(cn)]]);
        if (o->callpath)
            cli_table_text(t, w.path.s);
        cli_table_end_row(t);
    }
    if (!rc && got < 0)
        rc = -1;
    kept_walk_end(&w);
    if (cli_table_end(t) != 0)
        rc = -1;
    return rc;
}

/* ------------------------------------------------------------------------
 * The tree for people: the value right-aligned, the percentage, the tree
 * (CubeLib's "  | ... + name" in ASCII, or box drawing), then the kind and
 * the call path.  Two walks: the first measures the columns, the second
 * prints, so nothing is buffered.
 * ------------------------------------------------------------------------ */

typedef struct {
    int utf8;
    size_t value_w, percent_w, tree_w;
    unsigned char *last_at; /* per level of the current path: its call path is
                               the last kept among its siblings */
    size_t levels_cap;
} layout;

/* Columns of text on a terminal: UTF-8 continuation bytes take none. */
static size_t text_columns(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static void format_value(const plan *p, double v, char *buf)
{
    if (cli_no_value(cube_metric_combine(p->met), v))
        strcpy(buf, "-");
    else
        cube_format_double(v, buf);
}

/* CubeLib's form: 4 significant digits below 10 %, else 5. */
static void format_percent(double pct, char *buf, size_t len)
{
    if (isnan(pct))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*g%%", fabs(pct) < 10 ? 4 : 5, pct);
}

/* Every prefix unit of the tree is 4 columns wide, as CubeLib's "  | ". */
static size_t tree_columns(size_t level, const char *name)
{
    return 4 * level + text_columns(name);
}

/* Text without tabs and line breaks, which would break the columns. */
static void put_text(FILE *fp, const char *s)
{
    for (; *s; s++)
        putc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, fp);
}

static void put_blanks(FILE *fp, size_t n)
{
    while (n--)
        putc(' ', fp);
}

/* The tree prefix of a call path at `level` (the root has none). */
static void put_tree_prefix(FILE *fp, const layout *l, size_t level)
{
    if (level == 0)
        return;
    for (size_t k = 1; k < level; k++) {
        if (!l->utf8)
            fputs("  | ", fp);
        else
            fputs(l->last_at[k] ? "    " : "\xe2\x94\x82   ", fp); /* "│   " */
    }
    if (!l->utf8)
        fputs("  + ", fp);
    else
        fputs(l->last_at[level] ? "\xe2\x94\x94\xe2\x94\x80 " /* "└─ " */
                                : "\xe2\x94\x9c\xe2\x94\x80 " /* "├─ " */,
              fp);
}

static int print_human(const plan *p, FILE *fp, int utf8)
{
    const options *o = p->o;
    layout l;
    memset(&l, 0, sizeof l);
    l.utf8 = utf8;
    char buf[CUBE_DOUBLE_BUFSIZE + 8];
    int rc = 0, got;
    kept_walk w;
    /* the first walk: the widths of the columns */
    if (kept_walk_start(&w, p, 0) != 0) {
        kept_walk_end(&w);
        return -1;
    }
    while ((got = kept_walk_next(&w)) == 1) {
        const cube_cnode *cn = w.cn;
        size_t tw = tree_columns(w.level, cube_region_name(cube_cnode_callee(cn)));
        if (tw > l.tree_w)
            l.tree_w = tw;
        if (!p->met)
            continue;
        double v = value_of(p, cn);
        format_value(p, v, buf);
        if (strlen(buf) > l.value_w)
            l.value_w = strlen(buf);
        if (o->percent) {
            format_percent(percent_of(p, v), buf, sizeof buf);
            if (strlen(buf) > l.percent_w)
                l.percent_w = strlen(buf);
        }
    }
    kept_walk_end(&w);
    if (got < 0)
        return -1;
    /* the second walk prints */
    if (kept_walk_start(&w, p, o->callpath) != 0) {
        kept_walk_end(&w);
        return -1;
    }
    int more_after_tree = o->annotate || o->callpath;
    while (!rc && (got = kept_walk_next(&w)) == 1) {
        const cube_cnode *cn = w.cn;
        size_t i = cube_cnode_index(cn);
        if (utf8) {
            if (w.level >= l.levels_cap) {
                size_t cap = l.levels_cap ? 2 * l.levels_cap : 64;
                while (cap <= w.level)
                    cap *= 2;
                unsigned char *grown = realloc(l.last_at, cap);
                if (!grown) {
                    rc = oom();
                    break;
                }
                l.last_at = grown;
                l.levels_cap = cap;
            }
            l.last_at[w.level] = p->last[i];
        }
        if (p->met) {
            double v = value_of(p, cn);
            format_value(p, v, buf);
            put_blanks(fp, l.value_w - strlen(buf));
            fputs(buf, fp);
            fputs("  ", fp);
            if (o->percent) {
                format_percent(percent_of(p, v), buf, sizeof buf);
                put_blanks(fp, l.percent_w - strlen(buf));
                fputs(buf, fp);
                fputs("  ", fp);
            }
        }
        const char *name = cube_region_name(cube_cnode_callee(cn));
        put_tree_prefix(fp, &l, w.level);
        put_text(fp, name);
        if (more_after_tree) {
            put_blanks(fp, l.tree_w - tree_columns(w.level, name) + 2);
            if (o->annotate) {
                fputs(kind_names[p->kind[i]], fp);
                if (o->callpath)
                    putc(':', fp);
            }
            if (o->callpath)
                put_text(fp, w.path.s);
        }
        putc('\n', fp);
    }
    if (!rc && got < 0)
        rc = -1;
    kept_walk_end(&w);
    free(l.last_at);
    return rc;
}

/* ------------------------------------------------------------------------
 * The run.
 * ------------------------------------------------------------------------ */

/* Box drawing: when asked for, or by default when the output is a
 * terminal whose locale's character set is UTF-8. */
static int use_utf8(const options *o)
{
    if (o->draw != DRAW_AUTO)
        return o->draw == DRAW_UTF8;
    if (strcmp(o->output, "-") != 0 || !isatty(STDOUT_FILENO))
        return 0;
    /* only the character type: numbers stay as the "C" locale writes them */
    if (!setlocale(LC_CTYPE, ""))
        return 0;
    return strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

static int run(const options *o)
{
    static const cli_row_sink sink = {plan_setup, plan_wants, plan_add, plan_reset};
    plan p;
    memset(&p, 0, sizeof p);
    p.o = o;
    int rc = EXIT_TROUBLE;
    cli_input *in = cli_input_read(o->input, o->metric ? &sink : NULL, &p);
    if (!in)
        goto done;
    if (!o->metric)
        p.defs = cli_input_defs(in);
    if (o->metric && plan_finish(&p) != 0)
        goto done;
    int utf8 = o->format == CLI_FORMAT_HUMAN && use_utf8(o);
    if ((o->annotate && classify(&p) != 0) || (utf8 && find_last_siblings(&p) != 0))
        goto done;
    cli_output out;
    if (cli_output_open(&out, o->output) != 0)
        goto done;
    int err = o->format == CLI_FORMAT_HUMAN ? print_human(&p, out.fp, utf8)
                                            : print_table(&p, out.fp);
    if (cli_output_close(&out, err == 0) == 0 && err == 0)
        rc = EXIT_OK;
done:
    plan_free(&p);
    cli_input_close(in);
    return rc;
}

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    enum { OPT_ASCII = 256, OPT_UTF8, OPT_VERSION };
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"format", required_argument, NULL, 's'},
                                             {"ascii", no_argument, NULL, OPT_ASCII},
                                             {"utf8", no_argument, NULL, OPT_UTF8},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, OPT_VERSION},
                                             {NULL, 0, NULL, 0}};
    options o;
    memset(&o, 0, sizeof o);
    o.output = "-";
    o.format = CLI_FORMAT_HUMAN;
    const char *file_opt = NULL;
    int opt;
    /* cli_getopt reports bad options itself and never returns them */
    while ((opt = cli_getopt(argc, argv, "m:it:pacf:s:o:h", longopts, usage)) != -1) {
        switch (opt) {
        case 'm':
            if (!*optarg)
                cli_usage_error(usage, "-m takes a metric name");
            o.metric = optarg;
            break;
        case 'i': o.inclusive = 1; break;
        case 't':
            if (cli_parse_percent(optarg, &o.threshold) != 0)
                cli_usage_error(usage, "-t takes a percentage from 0 to 100, not '%s'", optarg);
            o.has_threshold = 1;
            break;
        case 'p': o.percent = 1; break;
        case 'a': o.annotate = 1; break;
        case 'c': o.callpath = 1; break;
        case 'f':
            if (file_opt)
                cli_usage_error(usage, "exactly one input file");
            file_opt = optarg;
            break;
        case 's':
            if (cli_format_parse(optarg, &o.format) != 0)
                cli_usage_error(usage, "-s takes csv, tsv, json or human, not '%s'", optarg);
            break;
        case OPT_ASCII: o.draw = DRAW_ASCII; break;
        case OPT_UTF8: o.draw = DRAW_UTF8; break;
        case 'o': o.output = optarg; break;
        case 'h': print_help(); return EXIT_OK;
        case OPT_VERSION: cli_print_version(); return EXIT_OK;
        }
    }
    if (o.has_threshold && !o.metric)
        cli_usage_error(usage, "-t needs a metric (-m)");
    int operands = argc - optind;
    if (operands + (file_opt != NULL) != 1)
        cli_usage_error(usage, operands || file_opt ? "exactly one input file" : "no input file");
    o.input = file_opt ? file_opt : argv[optind];
    return run(&o);
}
