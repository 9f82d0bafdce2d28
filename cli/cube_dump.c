/*
 * cube_dump - the values of an experiment as a table for scripts (CSV,
 * TSV, JSON) or people: per metric, call path (or region, -r) and thread
 * (or summed over all threads), inclusive or exclusive along the metric
 * and call trees, in any value mode of the Cube display; or, with -w, the
 * structure (metrics, regions, call tree, system tree, ...) with ids and
 * parent ids.
 *
 * The file is streamed (cli_input_read): only the rows of the metrics
 * printed (and, for metric-exclusive values, of their child metrics) are
 * kept, in views (cube_views.h).
 */
#include "cli_common.h"
#include "cli_rank.h"
#include "cube_views.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "cube_dump [-m METRICS] [-c CALLPATHS] [-t THREADS|aggr] [-x incl|excl]\n"
    "                 [-z incl|excl|stored] [-r] [--mode=MODE[=FILE]]\n"
    "                 [--by=LEVEL] [--threshold=P] [--sort=KEY] [--top=N] [--wide]\n"
    "                 [-s csv|tsv|json|human] [-w [SECTION]] [-o OUT] FILE";

static void print_help(void)
{
    printf("usage: %s\n"
           "Print the values (or, with -w, the structure) of a CUBE 3 or CUBE 4\n"
           "experiment.\n\n"
           "  -m METRICS   unique names (or display names only one metric has),\n"
           "               comma-separated, or 'all' (default: all)\n"
           "  -c CALLPATHS call-path ids and ranges (0,3,5-10,12-), 'all', 'leaves',\n"
           "               'roots', 'level=N', 'level<N', 'level>N' (roots: level 0),\n"
           "               combined with commas; or 'name=/REGEX/' (POSIX extended\n"
           "               regular expression on the callee's name); default all\n"
           "  -t THREADS   thread indexes and ranges (0,2,4-7), or 'aggr' for the sum\n"
           "               over all threads (default: every thread)\n"
           "      --by=LEVEL  one row per thread (default), process, node (that holds\n"
           "               processes), machine, or all (= -t aggr); values combined by\n"
           "               the metric's type (sum; max for MAXDOUBLE, min for MINDOUBLE)\n"
           "      --threshold=P  leave out the call paths (regions) whose value over all\n"
           "               threads is below P percent of the metric's total\n"
           "      --sort=KEY  order each metric's rows by value, abs (|value|), name or\n"
           "               id; a leading '-' sorts descending (-value, -abs)\n"
           "      --top=N  only the first N rows of each metric\n"
           "      --wide   one row per call path and system item, one column per metric\n"
           "  -x incl|excl along the metric tree (default incl, as stored)\n"
           "  -z incl|excl|stored  along the call tree (default excl, as stored)\n"
           "  -r           flat profile: per region, exclusive, inclusive and\n"
           "               Subroutines values (-c then takes only all or name=/REGEX/)\n"
           "      --mode=MODE  absolute (default), ownroot, metricroot, metricsel,\n"
           "               callroot, callsel, sysroot, syssel, peer, peerdist, or\n"
           "               external=FILE (percent of the metric root in FILE)\n"
           "  -s FORMAT    csv (default), tsv, json or human\n"
           "  -w, --structure[=SECTION]  the structure instead of values: attributes,\n"
           "               mirrors, metrics, regions, calltree, systemtree, topologies,\n"
           "               members (of a CUBE 4 archive) or all, or a list of them\n"
           "               (default all; repeatable)\n"
           "  -o, --output=OUT  the output (default '-', standard output)\n"
           "  -h, --help   this help\n"
           "      --version  the version\n\n"
           "FILE may be gzip-compressed; '-' reads standard input.\n"
           "Exit status: 0 on success, 2 on a usage error or bad input.\n"
           "See cube_dump(1).\n",
           usage);
}

/* ------------------------------------------------------------------------
 * Options.
 * ------------------------------------------------------------------------ */

enum {
    SEC_ATTRIBUTES = 1,
    SEC_MIRRORS = 2,
    SEC_METRICS = 4,
    SEC_REGIONS = 8,
    SEC_CALLTREE = 16,
    SEC_SYSTEMTREE = 32,
    SEC_TOPOLOGIES = 64,
    SEC_MEMBERS = 128,
    /* "all": every section, the archive's members only when the input is
     * CUBE 4 (a CUBE 3 file has none; its output stays as it was) */
    SEC_MEMBERS_OF_CUBE4 = 256,
    SEC_ALL = 127 | SEC_MEMBERS_OF_CUBE4
};
static const char *const section_names[] = {"attributes", "mirrors",    "metrics",
                                            "regions",    "calltree",   "systemtree",
                                            "topologies", "members"};
#define NUM_SECTIONS 8

/* The sections of a comma-separated list ("metrics,calltree", "all");
 * 0 when an item is not a section. */
static unsigned sections_of(const char *list)
{
    unsigned bits = 0;
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        unsigned bit = 0;
        if (n == 3 && strncmp(p, "all", 3) == 0)
            bit = SEC_ALL;
        for (unsigned i = 0; i < NUM_SECTIONS; i++)
            if (strlen(section_names[i]) == n && strncmp(p, section_names[i], n) == 0)
                bit = 1u << i;
        if (!bit)
            return 0;
        bits |= bit;
        if (!p[n])
            return bits;
        p += n + 1;
    }
}

/* Short mode names (the library's long names are accepted too). */
static const struct {
    const char *name;
    cube_value_mode mode;
} mode_names[] = {
    {"absolute", CUBE_MODE_ABSOLUTE},
    {"ownroot", CUBE_MODE_OWN_ROOT_PERCENT},
    {"metricroot", CUBE_MODE_METRIC_ROOT_PERCENT},
    {"metricsel", CUBE_MODE_METRIC_SELECTION_PERCENT},
    {"callroot", CUBE_MODE_CALL_ROOT_PERCENT},
    {"callsel", CUBE_MODE_CALL_SELECTION_PERCENT},
    {"sysroot", CUBE_MODE_SYSTEM_ROOT_PERCENT},
    {"syssel", CUBE_MODE_SYSTEM_SELECTION_PERCENT},
    {"peer", CUBE_MODE_PEER_PERCENT},
    {"peerdist", CUBE_MODE_PEER_DISTRIBUTION},
    {"external", CUBE_MODE_EXTERNAL_PERCENT},
};

typedef struct {
    const char *metrics;   /* -m, NULL: all */
    const char *callpaths; /* -c, NULL: all */
    const char *threads;   /* -t, NULL: all */
    cube_system_level by;  /* --by (-t aggr: all) */
    int by_given;          /* --by was given (not only -t aggr) */
    int aggregate;         /* --by=all */
    cli_sort sort;         /* --sort */
    size_t top;            /* --top; SIZE_MAX: every row */
    double threshold;      /* --threshold in percent; 0: none */
    int wide;              /* --wide: one value column per metric */
    cube_metric_flavour metric_flavour;
    cube_call_flavour call_flavour;
    int flat;              /* -r */
    cube_value_mode mode;
    const char *external;  /* --mode=external=FILE */
    cli_format format;
    unsigned sections;     /* -w; 0: the values */
    const char *output;
    const char *input;
} options;

static void parse_mode(const char *arg, options *o)
{
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
    char name[64];
    if (n >= sizeof name)
        cli_usage_error(usage, "unknown value mode '%s'", arg);
    memcpy(name, arg, n);
    name[n] = '\0';
    int found = 0;
    for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
        if (strcmp(name, mode_names[i].name) == 0) {
            o->mode = mode_names[i].mode;
            found = 1;
        }
    if (!found && cube_value_mode_parse(name, &o->mode, NULL) != 0)
        cli_usage_error(usage,
                        "unknown value mode '%s' (absolute, ownroot, metricroot, metricsel, "
                        "callroot, callsel, sysroot, syssel, peer, peerdist, external=FILE)",
                        name);
    if (o->mode == CUBE_MODE_EXTERNAL_PERCENT) {
        if (!eq || !eq[1])
            cli_usage_error(usage, "--mode=%s needs the other experiment: --mode=%s=FILE", name,
                            name);
        o->external = eq + 1;
    } else if (eq) {
        cli_usage_error(usage, "--mode=%s takes no file", name);
    }
}

/* ------------------------------------------------------------------------
 * Lists of numbers and ranges: "0,3,5-10,12-".
 * ------------------------------------------------------------------------ */

typedef struct {
    long long lo, hi; /* hi = LLONG_MAX: open range */
} range;

/* One item: N, N-M or N-.  0, or -1 when it is not one. */
static int parse_range(const char *s, size_t n, range *r)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    if (buf[0] < '0' || buf[0] > '9')
        return -1;
    errno = 0;
    long long lo = strtoll(buf, &end, 10);
    if (errno)
        return -1;
    long long hi = lo;
    if (*end == '-') {
        const char *p = end + 1;
        if (!*p) {
            hi = LLONG_MAX;
            end = (char *)p;
        } else {
            if (*p < '0' || *p > '9')
                return -1;
            hi = strtoll(p, &end, 10);
            if (errno || hi < lo)
                return -1;
        }
    }
    if (*end)
        return -1;
    r->lo = lo;
    r->hi = hi;
    return 0;
}

static int in_ranges(const range *r, size_t n, long long v)
{
    for (size_t i = 0; i < n; i++)
        if (v >= r[i].lo && v <= r[i].hi)
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------
 * Call-path selection (-c).
 * ------------------------------------------------------------------------ */

typedef struct {
    int all, leaves, roots;
    int level_op; /* 0 none, else '=', '<', '>' (several: any) */
    struct {
        int op;
        long long n;
    } levels[16];
    size_t num_levels;
    range *ids;
    size_t num_ids;
    int has_regex;
    regex_t regex;
} cnode_selection;

static void selection_free(cnode_selection *s)
{
    free(s->ids);
    if (s->has_regex)
        regfree(&s->regex);
}

/* Parse -c (or NULL: all).  Usage errors exit. */
static void parse_callpaths(const char *arg, cnode_selection *s, int flat)
{
    memset(s, 0, sizeof *s);
    if (!arg) {
        s->all = 1;
        return;
    }
    if (strncmp(arg, "name=", 5) == 0) {
        char msg[256];
        int rc = cli_slashed_regex(arg + 5, &s->regex, msg, sizeof msg);
        if (rc == 0)
            cli_usage_error(usage, "-c name= takes /REGEX/, not '%s'", arg + 5);
        if (rc < 0)
            cli_usage_error(usage, "-c %s: bad regular expression: %s", arg, msg);
        s->has_regex = 1;
        return;
    }
    size_t cap = 1;
    for (const char *p = arg; *p; p++)
        cap += *p == ',';
    s->ids = malloc(cap * sizeof *s->ids);
    if (!s->ids) {
        cli_error("out of memory");
        exit(EXIT_TROUBLE);
    }
    const char *p = arg;
    for (;;) {
        size_t n = strcspn(p, ",");
        range r;
        if (n == 3 && strncmp(p, "all", 3) == 0) {
            s->all = 1;
        } else if (flat) {
            selection_free(s);
            cli_usage_error(usage, "with -r, -c takes only 'all' or 'name=/REGEX/', not '%s'",
                            arg);
        } else if ((n == 6 && strncmp(p, "leaves", 6) == 0) ||
                   (n == 5 && strncmp(p, "leafs", 5) == 0)) {
            s->leaves = 1;
        } else if (n == 5 && strncmp(p, "roots", 5) == 0) {
            s->roots = 1;
        } else if (n > 6 && strncmp(p, "level", 5) == 0 &&
                   (p[5] == '=' || p[5] == '<' || p[5] == '>') &&
                   parse_range(p + 6, n - 6, &r) == 0 && r.lo == r.hi) {
            if (s->num_levels == sizeof s->levels / sizeof s->levels[0]) {
                selection_free(s);
                cli_usage_error(usage, "-c: too many level items");
            }
            s->levels[s->num_levels].op = p[5];
            s->levels[s->num_levels].n = r.lo;
            s->num_levels++;
        } else if (parse_range(p, n, &r) == 0) {
            s->ids[s->num_ids++] = r;
        } else {
            selection_free(s);
            cli_usage_error(usage,
                            "-c takes call-path ids and ranges (0,3,5-10), all, leaves, "
                            "roots, level=N, level<N, level>N or name=/REGEX/, not '%s'",
                            arg);
        }
        if (!p[n])
            break;
        p += n + 1;
    }
}

static int cnode_selected(const cnode_selection *s, const cube_cnode *cn, size_t level)
{
    if (s->all)
        return 1;
    if (s->has_regex)
        return regexec(&s->regex, cube_region_name(cube_cnode_callee(cn)), 0, NULL, 0) == 0;
    if (s->leaves && cube_cnode_num_children(cn) == 0)
        return 1;
    if (s->roots && !cube_cnode_parent(cn))
        return 1;
    for (size_t i = 0; i < s->num_levels; i++) {
        long long n = s->levels[i].n, l = (long long)level;
        if ((s->levels[i].op == '=' && l == n) || (s->levels[i].op == '<' && l < n) ||
            (s->levels[i].op == '>' && l > n))
            return 1;
    }
    return in_ranges(s->ids, s->num_ids, (long long)cube_cnode_id(cn));
}

/* ------------------------------------------------------------------------
 * The call tree in preorder, with each node's level and root.
 * ------------------------------------------------------------------------ */

typedef struct {
    const cube_cnode *cnode;
    size_t level;
    const cube_cnode *root;
} tree_entry;

/* The next call path of a preorder walk (cube_tree_walk: memory grows
 * with the depth, not with the call paths): 1, or 0 at the end. */
static int next_entry(cube_tree_walk *w, tree_entry *e)
{
    e->cnode = cube_tree_walk_next(w, &e->level);
    if (!e->cnode)
        return 0;
    e->root = cube_tree_walk_root(w);
    return 1;
}

/* Metrics in tree preorder. */
static const cube_metric **metrics_preorder(const cube_t *c)
{
    size_t n = cube_num_metrics(c), out = 0, top = 0;
    const cube_metric **order = malloc((n ? n : 1) * sizeof *order);
    const cube_metric **stack = malloc((n ? n : 1) * sizeof *stack);
    if (!order || !stack) {
        free(order);
        free(stack);
        return NULL;
    }
    for (size_t r = cube_num_root_metrics(c); r-- > 0;)
        stack[top++] = cube_get_root_metric(c, r);
    while (top && out < n) {
        const cube_metric *m = stack[--top];
        order[out++] = m;
        for (size_t k = cube_metric_num_children(m); k-- > 0 && top < n;)
            stack[top++] = cube_metric_child(m, k);
    }
    free(stack);
    return order;
}

/* ------------------------------------------------------------------------
 * The plan: the views of each metric printed.
 * ------------------------------------------------------------------------ */

typedef struct {
    const cube_metric *met;
    cube_view *main;      /* the values printed (call-exclusive for -r) */
    cube_view *incl_aggr; /* call-inclusive, summed over threads: call roots */
    cube_view *root_aggr; /* the root metric, inclusive: the metric root */
    cube_view *sel_aggr;  /* the metric summed over threads: the metric selection */
    cube_flat *flat;      /* -r */
    /* per thread, for a metric whose values do not combine as numbers
     * (cube_metric_combines_numbers): the values printed over all threads
     * as -t aggr prints them (and their flat profile with -r), the
     * references of the call tree's (flat view's) value over all threads */
    cube_view *main_aggr;
    cube_flat *flat_aggr;
    double metric_root, metric_selection, external_root;
    double root;            /* --threshold: the metric's value over everything */
    double *thread_totals;  /* per thread, over all call paths (not aggregated) */
    double *item_totals;    /* the same per item of the --by level (by level index) */
    double *machine_totals; /* the same per machine */
} metric_plan;

typedef struct {
    const options *o;
    const cube_t *defs;
    const char *name;  /* the input's name for messages */
    metric_plan *metrics;
    size_t num_metrics;
    /* rows of metric index i go to views feed[feed_start[i] .. feed_start[i+1]) */
    cube_view **feed;
    size_t *feed_start;
    cnode_selection sel;
    /* The system items printed, by their index in the --by level
     * (threads, processes, nodes or machines; 0 for all), ascending. */
    size_t *items;
    size_t num_items;
    size_t num_level;     /* the level's items: threads, processes, ... (1 for all) */
    size_t *item_machine; /* level index -> machine index (SIZE_MAX: none) */
} plan;

static void plan_free(plan *p)
{
    for (size_t i = 0; i < p->num_metrics; i++) {
        metric_plan *m = &p->metrics[i];
        cube_view_free(m->main);
        cube_view_free(m->incl_aggr);
        cube_view_free(m->root_aggr);
        cube_view_free(m->sel_aggr);
        cube_view_free(m->main_aggr);
        cube_flat_free(m->flat);
        cube_flat_free(m->flat_aggr);
        free(m->thread_totals);
        if (m->item_totals != m->thread_totals)
            free(m->item_totals);
        free(m->machine_totals);
    }
    free(p->metrics);
    free(p->feed);
    free(p->feed_start);
    free(p->items);
    free(p->item_machine);
    selection_free(&p->sel);
    memset(p, 0, sizeof *p);
}

static int needs_incl_aggr(const options *o)
{
    if (o->flat)
        return 0;
    return (o->aggregate && o->mode == CUBE_MODE_OWN_ROOT_PERCENT) ||
           (!o->aggregate && o->mode == CUBE_MODE_CALL_ROOT_PERCENT);
}

/* Per thread, a reference that is a call path's (region part's) value
 * over all threads: the call selection, and the flat view's call root. */
static int needs_main_aggr(const options *o, const cube_metric *met)
{
    return !o->aggregate && !cube_metric_combines_numbers(met) &&
           (o->mode == CUBE_MODE_CALL_SELECTION_PERCENT ||
            (o->flat && o->mode == CUBE_MODE_CALL_ROOT_PERCENT));
}

static const cube_metric *root_metric(const cube_metric *m)
{
    while (cube_metric_parent(m))
        m = cube_metric_parent(m);
    return m;
}

/* The metrics chosen so far, each once (room for every metric). */
typedef struct {
    const cube_metric **items;
    size_t count;
} metric_list;

static int add_once(void *user, const cube_metric *m)
{
    metric_list *l = user;
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i] == m)
            return 0;
    l->items[l->count++] = m;
    return 0;
}

/* The metrics of -m, in order, without repeats; NULL after an error. */
static const cube_metric **select_metrics(const cube_t *c, const char *arg, const char *name,
                                          size_t *count, int *all_out)
{
    size_t nm = cube_num_metrics(c), n = 0;
    const cube_metric **out = malloc((nm ? nm : 1) * sizeof *out);
    if (!out) {
        cli_error("out of memory");
        return NULL;
    }
    int all = !arg;
    for (const char *p = arg; p && !all;) {
        size_t k = strcspn(p, ",");
        if (k == 3 && strncmp(p, "all", 3) == 0)
            all = 1;
        if (!p[k])
            break;
        p += k + 1;
    }
    *all_out = all;
    if (all) {
        const cube_metric **pre = metrics_preorder(c);
        if (!pre) {
            free(out);
            cli_error("out of memory");
            return NULL;
        }
        /* VOID metrics have no values; derived ones (CUBE 4) have none
         * computed: the reader's warning names them, and a zero would lie */
        for (size_t i = 0; i < nm; i++)
            if (!cube_metric_is_void(pre[i]) && !cube_metric_is_derived(pre[i]))
                out[n++] = pre[i];
        free(pre);
        *count = n;
        return out;
    }
    metric_list list = {out, 0};
    if (cli_each_listed_metric(c, name, "-m", arg, add_once, &list) != 0) {
        free(out);
        return NULL;
    }
    *count = list.count;
    return out;
}

/* The child metric whose values a metric's metric-exclusive values would
 * lose (cube_view_wants: the parts of a sum) that is derived, so that its
 * values are not computed; NULL when there is none. */
static const cube_metric *derived_part(const cube_metric *m)
{
    if (cube_metric_combine(m) != CUBE_COMBINE_SUM)
        return NULL;
    for (size_t k = 0; k < cube_metric_num_children(m); k++) {
        const cube_metric *child = cube_metric_child(m, k);
        if (!cube_metric_is_void(child) && cube_metric_combine(child) == CUBE_COMBINE_SUM &&
            cube_metric_is_derived(child))
            return child;
    }
    return NULL;
}

/* -x excl: a metric with a derived part has no metric-exclusive values.
 * Chosen by 'all' it is left out with one warning per run (naming every
 * such metric); named, it is an error.  0, or -1 after printing it. */
static int drop_derived_parts(const char *name, const cube_metric **mets, size_t *n, int all)
{
    static int warned; /* setup runs again when the file is read whole */
    size_t kept = 0, dropped = 0;
    char list[512];
    size_t len = 0;
    list[0] = '\0';
    for (size_t i = 0; i < *n; i++) {
        const cube_metric *part = derived_part(mets[i]);
        if (!part) {
            mets[kept++] = mets[i];
            continue;
        }
        if (!all) {
            cli_error("%s: metric '%s' has the derived child metric '%s': its metric-exclusive "
                      "values are not computed",
                      name, cube_metric_uniq_name(mets[i]), cube_metric_uniq_name(part));
            return -1;
        }
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", dropped ? ", " : "",
                                    cube_metric_uniq_name(mets[i]));
        dropped++;
    }
    if (dropped && !warned) {
        fprintf(stderr,
                "%s: warning: %s: %zu metric%s (%s) %s: %s metric-exclusive values are "
                "not computed\n",
                cli_tool(), name, dropped, dropped == 1 ? "" : "s", list,
                dropped == 1 ? "has a derived child metric" : "have derived child metrics",
                dropped == 1 ? "its" : "their");
        warned = 1;
    }
    *n = kept;
    return 0;
}

/* The threads of -t, ascending, into p->items; -1 after an error. */
static int select_threads(plan *p)
{
    size_t nt = cube_num_threads(p->defs);
    const char *arg = p->o->threads;
    if (!arg) {
        for (size_t t = 0; t < nt; t++)
            p->items[p->num_items++] = t;
        return 0;
    }
    size_t cap = 1;
    for (const char *s = arg; *s; s++)
        cap += *s == ',';
    range *r = malloc(cap * sizeof *r);
    if (!r) {
        cli_error("out of memory");
        return -1;
    }
    size_t nr = 0;
    for (const char *s = arg;;) {
        size_t k = strcspn(s, ",");
        parse_range(s, k, &r[nr]); /* checked in main */
        if (r[nr].lo >= (long long)nt) {
            cli_error("%s: no thread %lld: the threads are 0 to %zu", p->name, r[nr].lo,
                      nt ? nt - 1 : 0);
            free(r);
            return -1;
        }
        nr++;
        if (!s[k])
            break;
        s += k + 1;
    }
    for (size_t t = 0; t < nt; t++)
        if (in_ranges(r, nr, (long long)t))
            p->items[p->num_items++] = t;
    free(r);
    return 0;
}

/* The machine index of a process (SIZE_MAX: none). */
static size_t process_machine(const cube_process *pr)
{
    const cube_machine *m = cube_node_machine(cube_process_node(pr));
    return m ? cube_machine_index(m) : SIZE_MAX;
}

/* The system items printed (--by and -t) and each item's machine; -1
 * after an error.  The nodes printed are those that hold processes (in a
 * CUBE 4 system tree of any depth the nodes just above the location
 * groups): each has the values of everything below it. */
static int select_items(plan *p)
{
    const cube_t *c = p->defs;
    size_t counts[] = {cube_num_threads(c), cube_num_processes(c), cube_num_nodes(c),
                       cube_num_machines(c), 1};
    size_t n = counts[p->o->by];
    p->num_level = n;
    p->items = malloc((n ? n : 1) * sizeof *p->items);
    p->item_machine = malloc((n ? n : 1) * sizeof *p->item_machine);
    if (!p->items || !p->item_machine) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        size_t mach = SIZE_MAX;
        switch (p->o->by) {
        case CUBE_BY_THREAD:
            mach = process_machine(cube_thread_process(cube_get_thread(c, i)));
            break;
        case CUBE_BY_PROCESS:
            mach = process_machine(cube_get_process(c, i));
            p->items[p->num_items++] = i;
            break;
        case CUBE_BY_NODE: {
            const cube_node *node = cube_get_node(c, i);
            const cube_machine *m = cube_node_machine(node);
            mach = m ? cube_machine_index(m) : SIZE_MAX;
            if (cube_node_num_processes(node))
                p->items[p->num_items++] = i;
            break;
        }
        case CUBE_BY_MACHINE:
            mach = i;
            p->items[p->num_items++] = i;
            break;
        case CUBE_BY_ALL: p->items[p->num_items++] = 0; break;
        }
        p->item_machine[i] = mach;
    }
    return p->o->by == CUBE_BY_THREAD ? select_threads(p) : 0;
}

/* A view could not be made, filled or read: `message` is the library's. */
static int view_error(const plan *p, const char *message)
{
    cli_error("%s: %s", p->name, message);
    return -1;
}

/* Set up the views for `defs`; 0, or -1 after printing the error. */
static int plan_init(plan *p, const options *o, const cube_t *defs, const char *name)
{
    memset(p, 0, sizeof *p);
    p->o = o;
    p->defs = defs;
    p->name = name;
    parse_callpaths(o->callpaths, &p->sel, o->flat);
    size_t n;
    int all;
    const cube_metric **mets = select_metrics(defs, o->metrics, name, &n, &all);
    if (!mets)
        return -1;
    if (o->metric_flavour == CUBE_METRIC_EXCLUSIVE && drop_derived_parts(name, mets, &n, all)) {
        free(mets);
        return -1;
    }
    p->metrics = calloc(n ? n : 1, sizeof *p->metrics);
    if (!p->metrics) {
        free(mets);
        cli_error("out of memory");
        return -1;
    }
    p->num_metrics = n;
    for (size_t i = 0; i < n; i++)
        p->metrics[i].met = mets[i];
    free(mets);
    if (select_items(p) != 0)
        return -1;

    unsigned flags = o->aggregate ? CUBE_VIEW_AGGREGATE : 0;
    cube_call_flavour main_call = o->flat ? CUBE_CALL_EXCLUSIVE : o->call_flavour;
    cube_status st;
    for (size_t i = 0; i < n; i++) {
        metric_plan *m = &p->metrics[i];
        m->main = cube_view_create(defs, m->met, o->metric_flavour, main_call, flags, &st);
        if (!m->main)
            return view_error(p, st.message);
        if (needs_incl_aggr(o)) {
            m->incl_aggr = cube_view_create(defs, m->met, o->metric_flavour, CUBE_CALL_INCLUSIVE,
                                            CUBE_VIEW_AGGREGATE, &st);
            if (!m->incl_aggr)
                return view_error(p, st.message);
        }
        if (needs_main_aggr(o, m->met)) {
            m->main_aggr = cube_view_create(defs, m->met, o->metric_flavour, main_call,
                                            CUBE_VIEW_AGGREGATE, &st);
            if (!m->main_aggr)
                return view_error(p, st.message);
        }
        if (o->mode != CUBE_MODE_ABSOLUTE) {
            m->sel_aggr = cube_view_create(defs, m->met, o->metric_flavour, CUBE_CALL_EXCLUSIVE,
                                           CUBE_VIEW_AGGREGATE, &st);
            if (!m->sel_aggr)
                return view_error(p, st.message);
        }
        if (o->mode == CUBE_MODE_METRIC_ROOT_PERCENT) {
            m->root_aggr = cube_view_create(defs, root_metric(m->met), CUBE_METRIC_INCLUSIVE,
                                            CUBE_CALL_EXCLUSIVE, CUBE_VIEW_AGGREGATE, &st);
            if (!m->root_aggr)
                return view_error(p, st.message);
        }
    }

    /* which views want the rows of which metric: counted, then listed */
    size_t nm = cube_num_metrics(defs), k = 0;
    p->feed_start = calloc(nm + 1, sizeof *p->feed_start);
    if (!p->feed_start) {
        cli_error("out of memory");
        return -1;
    }
    for (int pass = 0; pass < 2; pass++) {
        k = 0;
        for (size_t mi = 0; mi < nm; mi++) {
            const cube_metric *met = cube_get_metric(defs, mi);
            p->feed_start[mi] = k;
            for (size_t i = 0; i < n; i++) {
                cube_view *views[5] = {p->metrics[i].main, p->metrics[i].incl_aggr,
                                       p->metrics[i].root_aggr, p->metrics[i].sel_aggr,
                                       p->metrics[i].main_aggr};
                for (int v = 0; v < 5; v++)
                    if (views[v] && cube_view_wants(views[v], met)) {
                        if (pass)
                            p->feed[k] = views[v];
                        k++;
                    }
            }
        }
        if (!pass) {
            p->feed = malloc((k ? k : 1) * sizeof *p->feed);
            if (!p->feed) {
                cli_error("out of memory");
                return -1;
            }
        }
    }
    p->feed_start[nm] = k;
    return 0;
}

static int plan_add_row(plan *p, const cube_metric *met, const cube_cnode *cnode,
                        const double *values)
{
    size_t mi = cube_metric_index(met);
    for (size_t k = p->feed_start[mi]; k < p->feed_start[mi + 1]; k++)
        if (cube_view_add_row(p->feed[k], met, cnode, values) != 0)
            return view_error(p, cube_view_error(p->feed[k]));
    return 0;
}

static int plan_wants(const plan *p, const cube_metric *met)
{
    size_t mi = cube_metric_index(met);
    return p->feed_start[mi] < p->feed_start[mi + 1];
}

static void combine_group(const plan *p, cube_combine_rule how, const double *row,
                          double *group);

/* Finish the views and compute the references of the value mode. */
static int plan_finish(plan *p, const double *external_totals)
{
    const options *o = p->o;
    size_t nmach = cube_num_machines(p->defs);
    for (size_t i = 0; i < p->num_metrics; i++) {
        metric_plan *m = &p->metrics[i];
        cube_view *views[5] = {m->main, m->incl_aggr, m->root_aggr, m->sel_aggr, m->main_aggr};
        for (int v = 0; v < 5; v++)
            if (views[v] && cube_view_finish(views[v]) != 0)
                return view_error(p, cube_view_error(views[v]));
        cube_status st;
        if (o->flat) {
            m->flat = cube_flat_create(m->main, &st);
            if (!m->flat)
                return view_error(p, st.message);
            if (m->main_aggr && !(m->flat_aggr = cube_flat_create(m->main_aggr, &st)))
                return view_error(p, st.message);
        }
        m->metric_root = m->metric_selection = m->external_root = m->root = NAN;
        if (o->threshold > 0) {
            /* the metric's value over every call path and thread */
            size_t w = cube_view_width(m->main);
            double *totals = malloc((w ? w : 1) * sizeof *totals);
            if (!totals) {
                cli_error("out of memory");
                return -1;
            }
            int rc = cube_view_total(m->main, totals, &st);
            m->root = cube_combine_values(cube_metric_combine(m->met), totals, w);
            free(totals);
            if (rc != 0)
                return view_error(p, st.message);
        }
        if (o->mode == CUBE_MODE_ABSOLUTE)
            continue;
        if (cube_view_total(m->sel_aggr, &m->metric_selection, &st) != 0)
            return view_error(p, st.message);
        if (!o->aggregate) {
            size_t nt = cube_num_threads(p->defs);
            m->thread_totals = malloc((nt ? nt : 1) * sizeof *m->thread_totals);
            m->machine_totals = malloc((nmach ? nmach : 1) * sizeof *m->machine_totals);
            if (!m->thread_totals || !m->machine_totals) {
                cli_error("out of memory");
                return -1;
            }
            if (cube_view_total(m->main, m->thread_totals, &st) != 0)
                return view_error(p, st.message);
            cube_system_combine(p->defs, cube_metric_combine(m->met), m->thread_totals, NULL,
                                NULL, m->machine_totals, NULL, NULL);
            if (o->by == CUBE_BY_THREAD) {
                m->item_totals = m->thread_totals;
            } else {
                m->item_totals = malloc(p->num_level * sizeof *m->item_totals);
                if (!m->item_totals) {
                    cli_error("out of memory");
                    return -1;
                }
                combine_group(p, cube_metric_combine(m->met), m->thread_totals, m->item_totals);
            }
        }
        if (m->root_aggr) {
            double r;
            if (cube_view_total(m->root_aggr, &r, &st) != 0)
                return view_error(p, st.message);
            m->metric_root = r;
        }
        if (external_totals)
            m->external_root = external_totals[i];
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The external experiment of --mode=external=FILE: the total of each
 * printed metric's root metric there (by unique name).
 * ------------------------------------------------------------------------ */

static int external_totals(const plan *p, const char *path, double *out)
{
    size_t n = p->num_metrics;
    for (size_t i = 0; i < n; i++)
        out[i] = NAN;
    cube_t *c = cli_read(path);
    if (!c)
        return -1;
    size_t nm = cube_num_metrics(c);
    double *totals = malloc((nm ? nm : 1) * sizeof *totals);
    /* cube_metric_totals fails only for lack of memory */
    if (!totals || cube_metric_totals(c, totals, NULL) != 0) {
        free(totals);
        cube_free(c);
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const char *uniq = cube_metric_uniq_name(root_metric(p->metrics[i].met));
        const cube_metric *m = cube_find_metric(c, uniq);
        if (m && !cube_metric_is_void(m)) {
            out[i] = totals[cube_metric_index(m)];
        } else {
            int told = 0;
            for (size_t k = 0; k < i; k++)
                told |= strcmp(cube_metric_uniq_name(root_metric(p->metrics[k].met)), uniq) == 0;
            if (!told)
                fprintf(stderr, "%s: warning: %s: no metric '%s': its external percentages "
                                "are undefined\n",
                        cli_tool(), path, uniq);
        }
    }
    free(totals);
    cube_free(c);
    return 0;
}

/* ------------------------------------------------------------------------
 * Values in the chosen mode.
 * ------------------------------------------------------------------------ */

/* What a call path's (or a region part's) row gives the modes, computed
 * once per row. */
typedef struct {
    double call_root;      /* aggregated inclusive value of the row's call-tree root */
    double sum;            /* the row over all threads (summed, or max or min) */
    double peer_min, peer_max;
    double *machine;       /* the row per machine (summed, or max or min) */
} row_refs;

/* The value of system item `item` of a row: `row` has the values of every
 * thread (or, with --by=all, the one aggregated value), `group` those of
 * every process, node or machine (--by=process, node, machine). */
static double item_value(const plan *p, const double *row, const double *group, size_t item)
{
    switch (p->o->by) {
    case CUBE_BY_THREAD: return row[item];
    case CUBE_BY_ALL: return row[0];
    default: return group[item];
    }
}

/* The row's values per process, node or machine into `group` (nothing for
 * --by=thread and --by=all). */
static void combine_group(const plan *p, cube_combine_rule how, const double *row, double *group)
{
    switch (p->o->by) {
    case CUBE_BY_PROCESS:
        cube_system_combine(p->defs, how, row, group, NULL, NULL, NULL, NULL);
        break;
    case CUBE_BY_NODE: cube_system_combine(p->defs, how, row, NULL, group, NULL, NULL, NULL); break;
    case CUBE_BY_MACHINE:
        cube_system_combine(p->defs, how, row, NULL, NULL, group, NULL, NULL);
        break;
    default: break;
    }
}

/* `how`: how the row's metric combines (its dtype); `row` the thread row
 * of width w, `group` its values per system item; `peers`: room for one
 * value per printed item. */
static void compute_row_refs(const plan *p, cube_combine_rule how, const double *row, size_t w,
                             const double *group, double *peers, row_refs *r)
{
    cube_value_mode mode = p->o->mode;
    if (p->o->aggregate || mode == CUBE_MODE_ABSOLUTE)
        return;
    if (mode == CUBE_MODE_CALL_SELECTION_PERCENT)
        r->sum = cube_combine_values(how, row, w);
    if (mode == CUBE_MODE_OWN_ROOT_PERCENT)
        cube_system_combine(p->defs, how, row, NULL, NULL, r->machine, NULL, NULL);
    if (mode != CUBE_MODE_PEER_PERCENT && mode != CUBE_MODE_PEER_DISTRIBUTION)
        return;
    /* the peers: every thread, or every item of the level printed */
    const double *values = row;
    size_t n = w;
    if (p->o->by != CUBE_BY_THREAD) {
        for (size_t i = 0; i < p->num_items; i++)
            peers[i] = group[p->items[i]];
        values = peers;
        n = p->num_items;
    }
    if (cube_peer_range(values, n, &r->peer_min, &r->peer_max, NULL) != 0)
        r->peer_min = r->peer_max = NAN;
}

/* The value shown for value v of system item `item` (ignored when
 * aggregated). */
static double shown(const plan *p, const metric_plan *m, const row_refs *r, size_t item, double v)
{
    cube_value_mode mode = p->o->mode;
    if (mode == CUBE_MODE_ABSOLUTE)
        return v;
    cube_mode_refs refs;
    cube_mode_place place;
    memset(&refs, 0, sizeof refs);
    memset(&place, 0, sizeof place);
    size_t mach = p->o->aggregate ? SIZE_MAX : p->item_machine[item];
    refs.metric_root = m->metric_root;
    refs.metric_selection = m->metric_selection;
    refs.external_root = m->external_root;
    refs.call_root = r->call_root;
    refs.call_selection = r->sum;
    refs.peer_min = r->peer_min;
    refs.peer_max = r->peer_max;
    if (mode == CUBE_MODE_SYSTEM_ROOT_PERCENT || mode == CUBE_MODE_SYSTEM_SELECTION_PERCENT) {
        /* read as a call-tree value with the system tree to its left: the
         * item (or, aggregated, every machine) is the system selection */
        place.tree = CUBE_TREE_CALL;
        place.order[0] = CUBE_TREE_METRIC;
        place.order[1] = CUBE_TREE_SYSTEM;
        place.order[2] = CUBE_TREE_CALL;
        if (p->o->aggregate) {
            refs.system_root = refs.system_selection = m->metric_selection;
        } else {
            refs.system_root = mach == SIZE_MAX ? NAN : m->machine_totals[mach];
            refs.system_selection = m->item_totals[item];
        }
    } else if (p->o->aggregate) {
        place.tree = CUBE_TREE_CALL; /* the call tree (or flat view) */
        refs.own_root = r->call_root;
    } else {
        place.tree = CUBE_TREE_SYSTEM; /* a thread (or collapsed item) in the system tree */
        refs.own_root = mach == SIZE_MAX ? NAN : r->machine[mach];
    }
    return cube_value_in_mode(mode, v, &refs, &place);
}

/* ------------------------------------------------------------------------
 * Printing the values.
 *
 * One pass over the call tree (or the regions) computes the printed rows
 * of one metric (or, with --wide, of every metric at once: one value per
 * metric in each row); with --sort or --top the rows go through a ranking
 * (cli_rank.h) and are printed from there.
 * ------------------------------------------------------------------------ */

static const cli_column metric_column = {"metric", 0};
static const cli_column calltree_columns[] = {
    {"cnode_id", CLI_COL_NUMBER}, {"call_path", 0}, {"region", 0},
    {"module", 0},                {"line", CLI_COL_NUMBER},
};
static const cli_column flat_region_columns[] = {
    {"region_id", CLI_COL_NUMBER}, {"region", 0}, {"module", 0}, {"line", CLI_COL_NUMBER}};
/* The columns naming the system item, per --by level (thread and all:
 * the same three, "aggr" for all). */
static const cli_column thread_columns[] = {
    {"location", CLI_COL_NUMBER}, {"process", CLI_COL_NUMBER}, {"thread", CLI_COL_NUMBER}};
static const cli_column process_columns[] = {{"process", CLI_COL_NUMBER}, {"process_name", 0}};
static const cli_column node_columns[] = {
    {"node_id", CLI_COL_NUMBER}, {"node", 0}, {"machine", 0}};
static const cli_column machine_columns[] = {{"machine_id", CLI_COL_NUMBER}, {"machine", 0}};
static const cli_column value_column = {"value", CLI_COL_NUMBER};
static const cli_column flat_value_columns[] = {
    {"exclusive", CLI_COL_NUMBER}, {"inclusive", CLI_COL_NUMBER}, {"subroutines", CLI_COL_NUMBER}};

#define NUM_OF(a) (sizeof a / sizeof a[0])

/* The columns of the values table (freed by the caller); NULL when out of
 * memory. */
static cli_column *value_table_columns(const plan *p, size_t *n)
{
    const options *o = p->o;
    size_t cap = 16 + p->num_metrics, k = 0;
    cli_column *cols = malloc(cap * sizeof *cols);
    if (!cols)
        return NULL;
    if (!o->wide)
        cols[k++] = metric_column;
    const cli_column *pre = o->flat ? flat_region_columns : calltree_columns;
    size_t npre = o->flat ? NUM_OF(flat_region_columns) : NUM_OF(calltree_columns);
    for (size_t i = 0; i < npre; i++)
        cols[k++] = pre[i];
    const cli_column *loc = thread_columns;
    size_t nloc = NUM_OF(thread_columns);
    if (o->by == CUBE_BY_PROCESS)
        loc = process_columns, nloc = NUM_OF(process_columns);
    else if (o->by == CUBE_BY_NODE)
        loc = node_columns, nloc = NUM_OF(node_columns);
    else if (o->by == CUBE_BY_MACHINE)
        loc = machine_columns, nloc = NUM_OF(machine_columns);
    for (size_t i = 0; i < nloc; i++)
        cols[k++] = loc[i];
    if (o->wide) {
        for (size_t i = 0; i < p->num_metrics; i++)
            cols[k++] = (cli_column){cube_metric_uniq_name(p->metrics[i].met), CLI_COL_NUMBER};
    } else if (o->flat) {
        for (size_t i = 0; i < NUM_OF(flat_value_columns); i++)
            cols[k++] = flat_value_columns[i];
    } else {
        cols[k++] = value_column;
    }
    *n = k;
    return cols;
}

static void put_line(cli_table *t, long line)
{
    if (line < 0)
        cli_table_absent(t, "");
    else
        cli_table_int(t, line);
}

/* The columns that name system item `item` of the level of --by. */
static void put_location(cli_table *t, const plan *p, size_t item)
{
    const cube_t *c = p->defs;
    switch (p->o->by) {
    case CUBE_BY_ALL:
        cli_table_absent(t, "aggr");
        cli_table_absent(t, "aggr");
        cli_table_absent(t, "aggr");
        return;
    case CUBE_BY_THREAD: {
        const cube_thread *th = cube_get_thread(c, item);
        const cube_process *pr = cube_thread_process(th);
        cli_table_int(t, (long long)item);
        if (pr)
            cli_table_int(t, (long long)cube_process_rank(pr));
        else
            cli_table_absent(t, "");
        cli_table_int(t, (long long)cube_thread_rank(th));
        return;
    }
    case CUBE_BY_PROCESS: {
        const cube_process *pr = cube_get_process(c, item);
        cli_table_int(t, (long long)cube_process_rank(pr));
        cli_table_text(t, cube_process_name(pr));
        return;
    }
    case CUBE_BY_NODE: {
        const cube_node *n = cube_get_node(c, item);
        const cube_machine *m = cube_node_machine(n);
        cli_table_int(t, (long long)cube_node_id(n));
        cli_table_text(t, cube_node_name(n));
        cli_table_text(t, m ? cube_machine_name(m) : "");
        return;
    }
    case CUBE_BY_MACHINE: {
        const cube_machine *m = cube_get_machine(c, item);
        cli_table_int(t, (long long)cube_machine_id(m));
        cli_table_text(t, cube_machine_name(m));
        return;
    }
    }
}

/* One value source of a printed row: a metric's row of a call path, or of
 * one part of a region's flat profile, with what the modes need. */
typedef struct {
    const metric_plan *m;
    cube_combine_rule how;
    const double *row;  /* every thread's value (or the aggregated value) */
    double *none;       /* the row of "nothing contributed" */
    double *group;      /* per process, node or machine (by level index) */
    double *peers;      /* room for the peers of the modes */
    double over_all;    /* the value over all threads (main_aggr), or NaN */
    row_refs refs;
} slot;

/* The rows being printed: the table, or a ranking first. */
typedef struct {
    const plan *p;
    cli_table *t;
    cli_ranking *rank;    /* NULL: straight to the table */
    slot *slots;
    size_t num_slots;
    size_t seq;           /* rows so far, in the default order */
    char **names;         /* ranked call-tree rows: call paths by cnode index */
    double *values;       /* a row's values: raw and shown per slot */
    unsigned char *payload; /* a ranked row as handed to the ranking */
} printer;

/* What a ranked row carries: its call path or region and system item,
 * then its values (raw and shown per slot). */
typedef struct {
    const cube_cnode *cnode;
    const cube_region *region;
    size_t item;
    const metric_plan *m; /* NULL with --wide */
} row_head;

#define HEAD_SIZE ((sizeof(row_head) + 7) / 8 * 8)

static void slots_free(slot *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        free(s[i].none);
        free(s[i].group);
        free(s[i].peers);
        free(s[i].refs.machine);
    }
    free(s);
}

/* The slots of metrics [first, first + count), `parts` per metric. */
static slot *slots_make(const plan *p, size_t first, size_t count, size_t parts)
{
    size_t n = count * parts, w = p->o->aggregate ? 1 : cube_num_threads(p->defs);
    slot *s = calloc(n ? n : 1, sizeof *s);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const metric_plan *m = &p->metrics[first + i / parts];
        s[i].m = m;
        s[i].how = cube_metric_combine(m->met);
        s[i].none = malloc((w ? w : 1) * sizeof *s[i].none);
        s[i].group = malloc((p->num_level ? p->num_level : 1) * sizeof *s[i].group);
        s[i].peers = malloc((p->num_items ? p->num_items : 1) * sizeof *s[i].peers);
        s[i].refs = (row_refs){NAN, NAN, NAN, NAN, NULL};
        s[i].refs.machine = malloc((cube_num_machines(p->defs) + 1) * sizeof(double));
        if (!s[i].none || !s[i].group || !s[i].peers || !s[i].refs.machine) {
            slots_free(s, n);
            return NULL;
        }
        /* a call path (region) without a row: nothing contributed (a
         * maximum or minimum has no value there) */
        for (size_t k = 0; k < w; k++)
            s[i].none[k] = cube_combine_neutral(s[i].how);
    }
    return s;
}

/* Is the row of slot s below --threshold?  Its value over all threads,
 * against the metric's root value. */
static int slot_below(const plan *p, const slot *s)
{
    if (!(p->o->threshold > 0))
        return 0;
    double v = p->o->aggregate ? s->row[0]
                               : cube_combine_values(s->how, s->row, cube_num_threads(p->defs));
    return !cube_value_reaches(s->how, v, s->m->root, p->o->threshold);
}

/* The modes' references and the per-item values of every slot. */
static void slots_prepare(const printer *pr)
{
    const plan *p = pr->p;
    size_t w = p->o->aggregate ? 1 : cube_num_threads(p->defs);
    for (size_t k = 0; k < pr->num_slots; k++) {
        slot *s = &pr->slots[k];
        combine_group(p, s->how, s->row, s->group);
        compute_row_refs(p, s->how, s->row, w, s->group, s->peers, &s->refs);
        /* the call tree's value over all threads, not the threads' values
         * combined, where these differ */
        if (p->o->mode == CUBE_MODE_CALL_SELECTION_PERCENT && !isnan(s->over_all))
            s->refs.sum = s->over_all;
    }
}

/* The leading columns of a row: the metric (unless --wide), then the call
 * path's or the region's. */
static void put_prefix(cli_table *t, const metric_plan *m, const cube_cnode *cn,
                       const cube_region *reg, const char *path)
{
    if (m)
        cli_table_text(t, cube_metric_uniq_name(m->met));
    if (cn) {
        reg = cube_cnode_callee(cn);
        cli_table_int(t, (long long)cube_cnode_id(cn));
        cli_table_text(t, path);
    } else {
        cli_table_int(t, (long long)cube_region_id(reg));
    }
    cli_table_text(t, cube_region_name(reg));
    cli_table_text(t, cube_region_mod(reg));
    put_line(t, cube_region_begin_line(reg));
}

/* The values of a row: raw and shown per slot. */
static void put_values(cli_table *t, const printer *pr, const double *values)
{
    for (size_t k = 0; k < pr->num_slots; k++)
        cli_table_view_value(t, pr->slots[k].how, values[2 * k], values[2 * k + 1]);
}

/* The rows of one call path (cn) or region (reg) with the slots' rows
 * set: one per system item printed.  `first`: the first row of this call
 * path or region (the prefix is written anew; later rows may reuse it). */
static int emit_rows(printer *pr, const cube_cnode *cn, const cube_region *reg, const char *path)
{
    const plan *p = pr->p;
    const metric_plan *m = p->o->wide ? NULL : pr->slots[0].m;
    slots_prepare(pr);
    for (size_t r = 0; r < p->num_items; r++) {
        size_t item = p->items[r];
        for (size_t k = 0; k < pr->num_slots; k++) {
            const slot *s = &pr->slots[k];
            double v = item_value(p, s->row, s->group, item);
            pr->values[2 * k] = v;
            pr->values[2 * k + 1] = shown(p, s->m, &s->refs, item, v);
        }
        if (pr->rank) {
            cli_ranked key;
            key.value = pr->values[1];
            /* a maximum or minimum with no value sorts as none */
            if (cli_no_value(pr->slots[0].how, pr->values[0]))
                key.value = NAN;
            key.id = cn ? (long long)cube_cnode_id(cn) : (long long)cube_region_id(reg);
            key.name = NULL;
            if (p->o->sort.key == CLI_SORT_NAME) {
                if (cn) {
                    char **name = &pr->names[cube_cnode_index(cn)];
                    if (!*name && !(*name = strdup(path))) {
                        cli_error("out of memory");
                        return -1;
                    }
                    key.name = *name;
                } else {
                    key.name = cube_region_name(reg);
                }
            }
            key.seq = pr->seq++;
            row_head head = {cn, reg, item, m};
            memcpy(pr->payload, &head, sizeof head);
            memcpy(pr->payload + HEAD_SIZE, pr->values, 2 * sizeof(double) * pr->num_slots);
            if (cli_ranking_add(pr->rank, &key, pr->payload) != 0)
                return -1;
            continue;
        }
        if (r == 0 || !cli_table_reuse_prefix(pr->t)) {
            put_prefix(pr->t, m, cn, reg, path);
            cli_table_keep_prefix(pr->t);
        }
        put_location(pr->t, p, item);
        put_values(pr->t, pr, pr->values);
        cli_table_end_row(pr->t);
    }
    return 0;
}

/* Print the ranked rows; 0, or -1 after printing the error. */
static int emit_ranked(printer *pr)
{
    size_t n = cli_ranking_finish(pr->rank);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *payload = cli_ranking_payload(pr->rank, i);
        row_head head;
        memcpy(&head, payload, sizeof head);
        memcpy(pr->values, payload + HEAD_SIZE, 2 * sizeof(double) * pr->num_slots);
        if (head.cnode) {
            /* each call path's name made once: a call path has many rows */
            char **name = &pr->names[cube_cnode_index(head.cnode)];
            if (!*name && !(*name = cube_call_path(head.cnode))) {
                cli_error("out of memory");
                return -1;
            }
            put_prefix(pr->t, head.m, head.cnode, NULL, *name);
        } else {
            put_prefix(pr->t, head.m, NULL, head.region, NULL);
        }
        put_location(pr->t, pr->p, head.item);
        put_values(pr->t, pr, pr->values);
        cli_table_end_row(pr->t);
    }
    return 0;
}

/* Set up a printer for metrics [first, first + count), `parts` values per
 * metric.  0, or -1 after printing the error. */
static int printer_init(printer *pr, const plan *p, cli_table *t, size_t first, size_t count,
                        size_t parts)
{
    const options *o = p->o;
    memset(pr, 0, sizeof *pr);
    pr->p = p;
    pr->t = t;
    pr->num_slots = count * parts;
    pr->slots = slots_make(p, first, count, parts);
    pr->values = malloc((2 * pr->num_slots + 1) * sizeof *pr->values);
    if (!pr->slots || !pr->values) {
        cli_error("out of memory");
        return -1;
    }
    if (o->sort.key != CLI_SORT_NONE || o->top != SIZE_MAX) {
        /* one buffer for every ranked row: --wide rows can be long */
        size_t size = HEAD_SIZE + 2 * sizeof(double) * pr->num_slots;
        pr->payload = malloc(size);
        if (!pr->payload) {
            cli_error("out of memory");
            return -1;
        }
        pr->rank = cli_ranking_begin(o->sort, o->top, size);
        if (!pr->rank)
            return -1;
        if (!o->flat) {
            pr->names = calloc(cube_num_cnodes(p->defs) + 1, sizeof *pr->names);
            if (!pr->names) {
                cli_error("out of memory");
                return -1;
            }
        }
    }
    return 0;
}

static void printer_free(printer *pr)
{
    if (pr->names)
        for (size_t i = 0; i < cube_num_cnodes(pr->p->defs); i++)
            free(pr->names[i]);
    free(pr->names);
    cli_ranking_free(pr->rank);
    slots_free(pr->slots, pr->num_slots);
    free(pr->values);
    free(pr->payload);
}

/* The call-tree rows of metrics [first, first + count). */
static int print_calltree_rows(const plan *p, cli_table *t, size_t first, size_t count)
{
    printer pr;
    int rc = printer_init(&pr, p, t, first, count, 1);
    cli_call_path path = {0};
    cube_tree_walk *walk = rc ? NULL : cube_tree_walk_start(p->defs);
    tree_entry entry;
    const tree_entry *e = &entry;
    int got = walk ? 1 : -1;
    if (!rc && !walk) {
        cli_error("out of memory");
        rc = -1;
    }
    while (!rc && got == 1 && (got = next_entry(walk, &entry)) == 1) {
        if (cli_call_path_enter(&path, e->cnode, e->level) != 0) {
            cli_error("out of memory");
            rc = -1;
            break;
        }
        if (!cnode_selected(&p->sel, e->cnode, e->level))
            continue;
        int keep = !(p->o->threshold > 0);
        for (size_t k = 0; k < pr.num_slots; k++) {
            slot *s = &pr.slots[k];
            s->row = cube_view_row(s->m->main, e->cnode);
            if (!s->row)
                s->row = s->none;
            s->refs.call_root =
                s->m->incl_aggr ? cube_view_value(s->m->incl_aggr, e->root, 0) : NAN;
            s->over_all = s->m->main_aggr ? cube_view_value(s->m->main_aggr, e->cnode, 0) : NAN;
            if (!keep && !slot_below(p, s))
                keep = 1;
        }
        if (keep)
            rc = emit_rows(&pr, e->cnode, NULL, path.s);
    }
    if (!rc && pr.rank)
        rc = emit_ranked(&pr);
    cube_tree_walk_free(walk);
    cli_call_path_free(&path);
    printer_free(&pr);
    return rc;
}

/* The flat-profile rows of metrics [first, first + count): three slots
 * (exclusive, inclusive, subroutines) per metric. */
static int print_flat_rows(const plan *p, cli_table *t, size_t first, size_t count)
{
    static const cube_flat_part parts[3] = {CUBE_FLAT_EXCLUSIVE, CUBE_FLAT_INCLUSIVE,
                                            CUBE_FLAT_SUBROUTINES};
    size_t w = p->o->aggregate ? 1 : cube_num_threads(p->defs);
    printer pr;
    int rc = printer_init(&pr, p, t, first, count, 3);
    for (size_t ri = 0; !rc && ri < cube_num_regions(p->defs); ri++) {
        const cube_region *reg = cube_get_region(p->defs, ri);
        if (p->sel.has_regex && regexec(&p->sel.regex, cube_region_name(reg), 0, NULL, 0) != 0)
            continue;
        int keep = !(p->o->threshold > 0);
        for (size_t k = 0; k < pr.num_slots; k++) {
            slot *s = &pr.slots[k];
            s->row = cube_flat_row(s->m->flat, reg, parts[k % 3]);
            if (!s->row)
                s->row = s->none;
            s->over_all = s->m->flat_aggr ? cube_flat_value(s->m->flat_aggr, reg, parts[k % 3], 0)
                                          : NAN;
        }
        for (size_t k = 0; k < pr.num_slots; k += 3) {
            /* the flat view's root of every part is the collapsed region */
            double root = pr.slots[k].m->flat_aggr
                              ? pr.slots[k + 1].over_all
                              : cube_combine_values(pr.slots[k].how, pr.slots[k + 1].row, w);
            for (int j = 0; j < 3; j++)
                pr.slots[k + (size_t)j].refs.call_root = root;
            /* the threshold looks at the exclusive value, the first shown */
            if (!keep && !slot_below(p, &pr.slots[k]))
                keep = 1;
        }
        if (keep)
            rc = emit_rows(&pr, NULL, reg, NULL);
    }
    if (!rc && pr.rank)
        rc = emit_ranked(&pr);
    printer_free(&pr);
    return rc;
}

/* Every metric's rows: metric by metric, or all in one pass (--wide). */
static int print_values(const plan *p, cli_table *t)
{
    int (*rows)(const plan *, cli_table *, size_t, size_t) =
        p->o->flat ? print_flat_rows : print_calltree_rows;
    if (p->o->wide)
        return p->num_metrics ? rows(p, t, 0, p->num_metrics) : 0;
    for (size_t i = 0; i < p->num_metrics; i++)
        if (rows(p, t, i, 1) != 0)
            return -1;
    return 0;
}

/* ------------------------------------------------------------------------
 * The structure (-w).
 * ------------------------------------------------------------------------ */

static void put_id_or_absent(cli_table *t, int has, long long id)
{
    if (has)
        cli_table_int(t, id);
    else
        cli_table_absent(t, "");
}

/* One row of the systemtree section: kind, id, parent_id, name, rank,
 * location; NULL pointers are absent fields.  The row is not ended: a
 * CUBE 4 input has more columns (system_row4). */
static void system_row(cli_table *t, const char *kind, int64_t id, const int64_t *parent,
                       const char *name, const int64_t *rank, const size_t *location)
{
    cli_table_text(t, kind);
    cli_table_int(t, (long long)id);
    if (parent)
        cli_table_int(t, (long long)*parent);
    else
        cli_table_absent(t, "");
    cli_table_text(t, name);
    if (rank)
        cli_table_int(t, (long long)*rank);
    else
        cli_table_absent(t, "");
    if (location)
        cli_table_int(t, (long long)*location);
    else
        cli_table_absent(t, "");
}

/* The columns a CUBE 4 input adds to a systemtree row: the depth in the
 * system tree (machines 0), a system tree node's class, a location
 * group's or location's type, a system tree node's description. */
static void system_row4(cli_table *t, size_t level, const char *klass, const char *type,
                        const char *descr)
{
    cli_table_int(t, (long long)level);
    cli_table_text(t, klass);
    cli_table_text(t, type);
    cli_table_text(t, descr);
}

/* Is the input CUBE 4?  Its sections have more columns. */
static int is_cube4(const cube_t *c)
{
    return cube_source_format(c) == CUBE_FORMAT_CUBE4;
}

/* Each section's rows, written into a table of the section's columns.
 * 0, or -1 after printing the error. */

/* The attributes of every entity of one kind (CUBE 4): key, value, the
 * entity's kind and id: `num` and `get` list the entities, `prefix` names
 * their accessors (cube_metric: cube_metric_id, cube_metric_attr_key, ...). */
#define ENTITY_ATTRS(t, c, kind, type, num, get, prefix)                                       \
    for (size_t i_ = 0; i_ < num(c); i_++) {                                                   \
        const type *x_ = get(c, i_);                                                           \
        for (size_t a_ = 0; a_ < prefix##_num_attrs(x_); a_++) {                               \
            cli_table_text(t, prefix##_attr_key(x_, a_));                                      \
            cli_table_text(t, prefix##_attr_value(x_, a_));                                    \
            cli_table_text(t, kind);                                                           \
            cli_table_int(t, (long long)prefix##_id(x_));                                      \
            cli_table_end_row(t);                                                              \
        }                                                                                      \
    }

static int write_attributes(cli_table *t, const cube_t *c)
{
    int cube4 = is_cube4(c);
    if (cube4) { /* the file's format first: entity "file", no id */
        static const char *const keys[] = {"format", "version"};
        const char *values[] = {"CUBE 4", cube_source_version(c)};
        for (int k = 0; k < 2; k++) {
            cli_table_text(t, keys[k]);
            cli_table_text(t, values[k]);
            cli_table_text(t, "file");
            cli_table_absent(t, "");
            cli_table_end_row(t);
        }
    }
    for (size_t i = 0; i < cube_num_attrs(c); i++) {
        cli_table_text(t, cube_attr_key(c, i));
        cli_table_text(t, cube_attr_value(c, i));
        if (cube4) {
            cli_table_text(t, "experiment");
            cli_table_absent(t, "");
        }
        cli_table_end_row(t);
    }
    if (!cube4)
        return 0;
    ENTITY_ATTRS(t, c, "metric", cube_metric, cube_num_metrics, cube_get_metric, cube_metric)
    ENTITY_ATTRS(t, c, "region", cube_region, cube_num_regions, cube_get_region, cube_region)
    ENTITY_ATTRS(t, c, "cnode", cube_cnode, cube_num_cnodes, cube_get_cnode, cube_cnode)
    ENTITY_ATTRS(t, c, "machine", cube_machine, cube_num_machines, cube_get_machine,
                 cube_machine)
    ENTITY_ATTRS(t, c, "node", cube_node, cube_num_nodes, cube_get_node, cube_node)
    ENTITY_ATTRS(t, c, "process", cube_process, cube_num_processes, cube_get_process,
                 cube_process)
    ENTITY_ATTRS(t, c, "thread", cube_thread, cube_num_threads, cube_get_thread, cube_thread)
    return 0;
}

#undef ENTITY_ATTRS

static int write_mirrors(cli_table *t, const cube_t *c)
{
    for (size_t i = 0; i < cube_num_mirrors(c); i++) {
        cli_table_text(t, cube_mirror(c, i));
        cli_table_end_row(t);
    }
    return 0;
}

/* A growing text buffer for the fields joined from several parts. */
typedef struct {
    char *s;
    size_t len, cap;
    int failed;
} text_buf;

static void text_add(text_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *x = realloc(b->s, cap);
        if (!x) {
            b->failed = 1;
            return;
        }
        b->s = x;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

static void text_reset(text_buf *b)
{
    b->len = 0;
    text_add(b, "");
}

static int write_metrics(cli_table *t, const cube_t *c)
{
    int cube4 = is_cube4(c);
    text_buf aggr = {0};
    for (size_t i = 0; i < cube_num_metrics(c); i++) {
        const cube_metric *m = cube_get_metric(c, i);
        const cube_metric *parent = cube_metric_parent(m);
        cli_table_int(t, (long long)cube_metric_id(m));
        put_id_or_absent(t, parent != NULL, (long long)cube_metric_id(parent));
        cli_table_text(t, cube_metric_uniq_name(m));
        cli_table_text(t, cube_metric_disp_name(m));
        cli_table_text(t, cube_metric_dtype(m));
        cli_table_text(t, cube_metric_uom(m));
        cli_table_text(t, cube_metric_val(m));
        cli_table_text(t, cube_metric_url(m));
        cli_table_text(t, cube_metric_descr(m));
        if (cube4) {
            cli_table_text(t, cube_metric_kind_name(cube_metric_type(m)));
            cli_table_int(t, cube_metric_is_ghost(m) ? 1 : 0);
            cli_table_text(t, cube_metric_expression(m));
            cli_table_text(t, cube_metric_init_expression(m));
            /* "OP: PROGRAM" (or the program alone without an operator),
             * one per line */
            text_reset(&aggr);
            for (size_t k = 0; k < cube_metric_num_aggr_expressions(m); k++) {
                const char *op = cube_metric_aggr_operator(m, k);
                if (k)
                    text_add(&aggr, "\n");
                if (*op) {
                    text_add(&aggr, op);
                    text_add(&aggr, ": ");
                }
                text_add(&aggr, cube_metric_aggr_expression(m, k));
            }
            cli_table_text(t, aggr.failed ? "" : aggr.s);
        }
        cli_table_end_row(t);
    }
    free(aggr.s);
    if (aggr.failed) {
        cli_error("out of memory");
        return -1;
    }
    return 0;
}

static int write_regions(cli_table *t, const cube_t *c)
{
    int cube4 = is_cube4(c);
    for (size_t i = 0; i < cube_num_regions(c); i++) {
        const cube_region *r = cube_get_region(c, i);
        cli_table_int(t, (long long)cube_region_id(r));
        cli_table_text(t, cube_region_name(r));
        cli_table_text(t, cube_region_mod(r));
        put_line(t, cube_region_begin_line(r));
        put_line(t, cube_region_end_line(r));
        cli_table_text(t, cube_region_url(r));
        cli_table_text(t, cube_region_descr(r));
        if (cube4) {
            /* the mangled name only where it says more than the name */
            const char *mangled = cube_region_mangled_name(r);
            cli_table_text(t, strcmp(mangled, cube_region_name(r)) != 0 ? mangled : "");
            cli_table_text(t, cube_region_paradigm(r));
            cli_table_text(t, cube_region_role(r));
        }
        cli_table_end_row(t);
    }
    return 0;
}

/* A call path's parameters as one field: KEY=VALUE for a number,
 * KEY="VALUE" for a string, separated by "; ". */
static void cnode_params(text_buf *b, const cube_cnode *cn)
{
    text_reset(b);
    for (size_t k = 0; k < cube_cnode_num_params(cn); k++) {
        int numeric = cube_cnode_param_is_numeric(cn, k);
        if (k)
            text_add(b, "; ");
        text_add(b, cube_cnode_param_key(cn, k));
        text_add(b, numeric ? "=" : "=\"");
        text_add(b, cube_cnode_param_value(cn, k));
        if (!numeric)
            text_add(b, "\"");
    }
}

/* The call tree depth first, each node with its call path from the root. */
static int write_calltree(cli_table *t, const cube_t *c)
{
    int cube4 = is_cube4(c);
    cli_call_path path = {0};
    text_buf params = {0};
    cube_tree_walk *walk = cube_tree_walk_start(c);
    tree_entry entry;
    const tree_entry *e = &entry;
    int rc = walk ? 0 : -1;
    while (!rc && next_entry(walk, &entry) == 1) {
        if (cli_call_path_enter(&path, e->cnode, e->level) != 0) {
            rc = -1;
            break;
        }
        const cube_cnode *cn = e->cnode, *parent = cube_cnode_parent(cn);
        const cube_region *callee = cube_cnode_callee(cn);
        cli_table_int(t, (long long)cube_cnode_id(cn));
        put_id_or_absent(t, parent != NULL, (long long)cube_cnode_id(parent));
        cli_table_int(t, (long long)e->level);
        cli_table_int(t, (long long)cube_region_id(callee));
        cli_table_text(t, cube_region_name(callee));
        cli_table_text(t, path.s);
        cli_table_text(t, cube_cnode_mod(cn));
        put_line(t, cube_cnode_line(cn));
        if (cube4) {
            cnode_params(&params, cn);
            if (params.failed)
                rc = -1;
            cli_table_text(t, params.failed ? "" : params.s);
        }
        cli_table_end_row(t);
    }
    cube_tree_walk_free(walk);
    cli_call_path_free(&path);
    free(params.s);
    if (rc) {
        cli_error("out of memory");
        return -1;
    }
    return 0;
}

/* A system tree node's location groups (processes) and their locations
 * (threads), below the node with id `nid` at depth `level`. */
static void write_processes(cli_table *t, const cube_node *n, int64_t nid, size_t level,
                            int cube4)
{
    for (size_t q = 0; q < cube_node_num_processes(n); q++) {
        const cube_process *pr = cube_node_process(n, q);
        int64_t pid = cube_process_id(pr), prank = cube_process_rank(pr);
        system_row(t, "process", pid, &nid, cube_process_name(pr), &prank, NULL);
        if (cube4)
            system_row4(t, level + 1, "", cube_group_type_name(cube_process_type(pr)), "");
        cli_table_end_row(t);
        for (size_t h = 0; h < cube_process_num_threads(pr); h++) {
            const cube_thread *th = cube_process_thread(pr, h);
            int64_t trank = cube_thread_rank(th);
            size_t index = cube_thread_index(th);
            system_row(t, "thread", cube_thread_id(th), &pid, cube_thread_name(th), &trank,
                       &index);
            if (cube4)
                system_row4(t, level + 2, "", cube_location_type_name(cube_thread_type(th)),
                            "");
            cli_table_end_row(t);
        }
    }
}

/* A system tree node waiting to be written, with its depth. */
typedef struct {
    const cube_node *node;
    size_t level;
} stn_entry;

/* Machines, system tree nodes, processes and threads, each after its
 * parent: a node's processes come before its child nodes.  The tree is
 * walked with a stack of its own (a file may nest nodes deeply). */
static int write_systemtree(cli_table *t, const cube_t *c)
{
    int cube4 = is_cube4(c);
    size_t cap = cube_num_nodes(c) + 1;
    stn_entry *stack = malloc(cap * sizeof *stack);
    if (!stack) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < cube_num_machines(c); i++) {
        const cube_machine *m = cube_get_machine(c, i);
        int64_t mid = cube_machine_id(m);
        system_row(t, "machine", mid, NULL, cube_machine_name(m), NULL, NULL);
        if (cube4)
            system_row4(t, 0, cube_machine_class(m), "", cube_machine_descr(m));
        cli_table_end_row(t);
        size_t top = 0;
        for (size_t k = cube_machine_num_nodes(m); k-- > 0 && top < cap;)
            stack[top++] = (stn_entry){cube_machine_node(m, k), 1};
        while (top) {
            stn_entry e = stack[--top];
            const cube_node *n = e.node, *parent = cube_node_parent(n);
            int64_t nid = cube_node_id(n);
            int64_t pid = parent ? cube_node_id(parent) : mid;
            system_row(t, "node", nid, &pid, cube_node_name(n), NULL, NULL);
            if (cube4)
                system_row4(t, e.level, cube_node_class(n), "", cube_node_descr(n));
            cli_table_end_row(t);
            write_processes(t, n, nid, e.level, cube4);
            for (size_t k = cube_node_num_children(n); k-- > 0 && top < cap;)
                stack[top++] = (stn_entry){cube_node_child(n, k), e.level + 1};
        }
    }
    free(stack);
    return 0;
}

/* The archive's members that are not part of the experiment: name and
 * size in bytes, in archive order. */
static int write_members(cli_table *t, const cube_t *c)
{
    for (size_t i = 0; i < cube_num_extra_members(c); i++) {
        size_t size = 0;
        cube_extra_member_data(c, i, &size);
        cli_table_text(t, cube_extra_member_name(c, i));
        cli_table_int(t, (long long)size);
        cli_table_end_row(t);
    }
    return 0;
}

/* v[0..n) comma-separated into buf (cap: large enough). */
static void join_longs(char *buf, size_t cap, const long *v, long n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (long d = 0; d < n; d++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%ld", d ? "," : "", v[d]);
}

/* One of a topology's lists, comma-separated into buf (cap: large enough):
 * 'd' its dimensions' sizes, 'p' whether each is periodic (0/1), 'n' their
 * names ("" when no dimension is named). */
static void join_cart(char *buf, size_t cap, const cube_cartesian *ct, char list)
{
    long nd = cube_cart_ndims(ct);
    size_t len = 0;
    buf[0] = '\0';
    if (list == 'n' && !cli_cart_has_dim_names(ct))
        return;
    for (long d = 0; d < nd; d++) {
        const char *sep = d ? "," : "", *name = cube_cart_dim_name(ct, d);
        if (list == 'd')
            len += (size_t)snprintf(buf + len, cap - len, "%s%ld", sep, cube_cart_dim(ct, d));
        else if (list == 'p')
            len += (size_t)snprintf(buf + len, cap - len, "%s%d", sep,
                                    cube_cart_period(ct, d) ? 1 : 0);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", sep, name ? name : "");
    }
}

/* The topology's own columns: index, name, and its lists (join_cart). */
static void topology_prefix(cli_table *t, size_t i, const cube_cartesian *ct, char *buf,
                            size_t cap)
{
    cli_table_int(t, (long long)i);
    cli_table_text(t, cube_cart_name(ct));
    join_cart(buf, cap, ct, 'd');
    cli_table_text(t, buf);
    join_cart(buf, cap, ct, 'p');
    cli_table_text(t, buf);
    join_cart(buf, cap, ct, 'n');
    cli_table_text(t, buf);
}

/* The id of the entity a coordinate maps. */
static int64_t coord_entity_id(const cube_coord *co)
{
    switch (co->kind) {
    case CUBE_COORD_THREAD: return cube_thread_id(co->entity);
    case CUBE_COORD_PROCESS: return cube_process_id(co->entity);
    case CUBE_COORD_NODE: return cube_node_id(co->entity);
    case CUBE_COORD_MACHINE: return cube_machine_id(co->entity);
    }
    return 0;
}

/* One row per coordinate (or one with the coordinate absent when the
 * topology has none): the topology, then the entity and its place. */
static int write_topologies(cli_table *t, const cube_t *c)
{
    static const char *const kinds[] = {"thread", "process", "node", "machine"};
    char *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < cube_num_carts(c); i++) {
        const cube_cartesian *ct = cube_get_cart(c, i);
        long nd = cube_cart_ndims(ct);
        /* room for the longest list */
        size_t need = 64 + 24 * (size_t)(nd > 0 ? nd : 0);
        for (long d = 0; d < nd; d++) {
            const char *name = cube_cart_dim_name(ct, d);
            need += name ? strlen(name) + 1 : 1;
        }
        if (need > cap) {
            char *b = realloc(buf, need);
            if (!b) {
                rc = -1;
                break;
            }
            buf = b;
            cap = need;
        }
        size_t ncoords = cube_cart_num_coords(ct), nrows = ncoords ? ncoords : 1;
        for (size_t k = 0; k < nrows; k++) {
            topology_prefix(t, i, ct, buf, cap);
            if (!ncoords) {
                cli_table_absent(t, "");
                cli_table_absent(t, "");
                cli_table_absent(t, "");
                cli_table_end_row(t);
                continue;
            }
            const cube_coord *co = cube_cart_coord(ct, k);
            cli_table_text(t, kinds[co->kind]);
            cli_table_int(t, (long long)coord_entity_id(co));
            join_longs(buf, cap, co->coords, nd);
            cli_table_text(t, buf);
            cli_table_end_row(t);
        }
    }
    free(buf);
    if (rc) {
        cli_error("out of memory");
        return -1;
    }
    return 0;
}

/* Each section's columns: those of every input, then those a CUBE 4 input
 * adds (the columns of a CUBE 3 input stay as they were). */
static const cli_column attr_cols[] = {{"key", 0}, {"value", 0}, {"entity", 0},
                                       {"id", CLI_COL_NUMBER}};
static const cli_column mirror_cols[] = {{"mirror", 0}};
static const cli_column metric_cols[] = {
    {"metric_id", CLI_COL_NUMBER}, {"parent_id", CLI_COL_NUMBER}, {"uniq_name", 0},
    {"disp_name", 0}, {"dtype", 0}, {"uom", 0}, {"val", 0}, {"url", 0}, {"descr", 0},
    {"kind", 0}, {"ghost", CLI_COL_NUMBER}, {"expression", 0}, {"init_expression", 0},
    {"aggr_expressions", 0}};
static const cli_column region_cols[] = {
    {"region_id", CLI_COL_NUMBER}, {"name", 0}, {"module", 0},
    {"begin_line", CLI_COL_NUMBER}, {"end_line", CLI_COL_NUMBER}, {"url", 0},
    {"descr", 0}, {"mangled_name", 0}, {"paradigm", 0}, {"role", 0}};
static const cli_column cnode_cols[] = {
    {"cnode_id", CLI_COL_NUMBER},  {"parent_id", CLI_COL_NUMBER},
    {"level", CLI_COL_NUMBER},     {"region_id", CLI_COL_NUMBER},
    {"region", 0},                 {"call_path", 0},
    {"call_site_module", 0},       {"call_site_line", CLI_COL_NUMBER},
    {"parameters", 0}};
static const cli_column system_cols[] = {
    {"kind", 0}, {"id", CLI_COL_NUMBER}, {"parent_id", CLI_COL_NUMBER},
    {"name", 0}, {"rank", CLI_COL_NUMBER}, {"location", CLI_COL_NUMBER},
    {"level", CLI_COL_NUMBER}, {"class", 0}, {"type", 0}, {"descr", 0}};
static const cli_column topo_cols[] = {
    {"topology", CLI_COL_NUMBER}, {"name", 0}, {"dims", 0},   {"periodic", 0},
    {"dim_names", 0},            {"kind", 0}, {"id", CLI_COL_NUMBER}, {"coords", 0}};
static const cli_column member_cols[] = {{"name", 0}, {"size", CLI_COL_NUMBER}};

#define COLUMNS(cols, cube3) cols, cube3, sizeof cols / sizeof cols[0]

/* The sections in the order of section_names (bit i of -w's set). */
static const struct {
    const cli_column *cols;
    size_t ncols3, ncols4; /* the columns of a CUBE 3 and of a CUBE 4 input */
    int (*write)(cli_table *t, const cube_t *c);
} sections[NUM_SECTIONS] = {
    {COLUMNS(attr_cols, 2), write_attributes},   {COLUMNS(mirror_cols, 1), write_mirrors},
    {COLUMNS(metric_cols, 9), write_metrics},    {COLUMNS(region_cols, 7), write_regions},
    {COLUMNS(cnode_cols, 8), write_calltree},    {COLUMNS(system_cols, 6), write_systemtree},
    {COLUMNS(topo_cols, 8), write_topologies},   {COLUMNS(member_cols, 2), write_members}};

#undef COLUMNS

/* Section i (its index in section_names) as a table. */
static int print_section(const cube_t *c, unsigned i, cli_format format, FILE *fp)
{
    cli_table *t = cli_table_begin(fp, format, sections[i].cols,
                                   is_cube4(c) ? sections[i].ncols4 : sections[i].ncols3,
                                   CLI_TABLE_NO_NEWLINE);
    if (!t)
        return -1;
    if (sections[i].write(t, c) != 0) {
        cli_table_end(t);
        return -1;
    }
    return cli_table_end(t);
}

static int print_structure(const cube_t *c, const options *o, FILE *fp)
{
    int rc = 0, first = 1;
    if (o->format == CLI_FORMAT_JSON)
        fputc('{', fp);
    unsigned wanted = o->sections;
    if ((wanted & SEC_MEMBERS_OF_CUBE4) && is_cube4(c))
        wanted |= SEC_MEMBERS;
    for (unsigned i = 0; !rc && i < NUM_SECTIONS; i++) {
        unsigned sec = 1u << i;
        if (!(wanted & sec))
            continue;
        switch (o->format) {
        case CLI_FORMAT_JSON:
            if (!first)
                fputs(",\n", fp);
            cli_print_json_string(fp, section_names[i]);
            fputc(':', fp);
            break;
        case CLI_FORMAT_HUMAN:
            fprintf(fp, "%s%s:\n", first ? "" : "\n", section_names[i]);
            break;
        default:
            if (!first)
                fputc('\n', fp);
            break;
        }
        first = 0;
        rc = print_section(c, i, o->format, fp);
    }
    if (o->format == CLI_FORMAT_JSON)
        fputs("}\n", fp);
    return rc;
}

/* ------------------------------------------------------------------------
 * The run.
 * ------------------------------------------------------------------------ */

static int print_output(const plan *p, const cube_t *defs, const options *o)
{
    cli_output out;
    if (cli_output_open(&out, o->output) != 0)
        return -1;
    int rc;
    if (o->sections) {
        rc = print_structure(defs, o, out.fp);
    } else {
        size_t ncols = 0;
        cli_column *cols = value_table_columns(p, &ncols);
        cli_table *t = cols ? cli_table_begin(out.fp, o->format, cols, ncols, 0) : NULL;
        if (!cols)
            cli_error("out of memory");
        rc = t ? 0 : -1;
        if (!rc)
            rc = print_values(p, t);
        if (t && cli_table_end(t) != 0)
            rc = -1;
        free(cols);
    }
    if (cli_output_close(&out, rc == 0) != 0)
        rc = -1;
    return rc;
}

/* The row sink of cli_input_read: the plan. */
typedef struct {
    plan p;
    const options *o;
} dump_state;

static int sink_setup(void *user, const cube_t *defs)
{
    dump_state *d = user;
    return plan_init(&d->p, d->o, defs, d->o->input);
}

static int sink_wants(void *user, const cube_metric *met)
{
    return plan_wants(&((dump_state *)user)->p, met);
}

static int sink_add(void *user, const cube_metric *met, const cube_cnode *cnode,
                    const double *values)
{
    return plan_add_row(&((dump_state *)user)->p, met, cnode, values);
}

static void sink_reset(void *user)
{
    plan_free(&((dump_state *)user)->p);
}

static int dump(const options *o)
{
    if (o->sections) { /* the structure: the definitions are enough */
        cli_input *in = cli_input_read(o->input, NULL, NULL);
        if (!in)
            return EXIT_TROUBLE;
        int rc = print_output(NULL, cli_input_defs(in), o) == 0 ? EXIT_OK : EXIT_TROUBLE;
        cli_input_close(in);
        return rc;
    }
    static const cli_row_sink sink = {sink_setup, sink_wants, sink_add, sink_reset};
    dump_state d;
    memset(&d, 0, sizeof d);
    d.o = o;
    int rc = EXIT_TROUBLE;
    double *ext = NULL;
    cli_input *in = cli_input_read(o->input, &sink, &d);
    if (!in)
        goto done;
    if (o->external) {
        ext = malloc((d.p.num_metrics ? d.p.num_metrics : 1) * sizeof *ext);
        if (!ext) {
            cli_error("out of memory");
            goto done;
        }
        if (external_totals(&d.p, o->external, ext) != 0)
            goto done;
    }
    if (plan_finish(&d.p, ext) != 0)
        goto done;
    rc = print_output(&d.p, d.p.defs, o) == 0 ? EXIT_OK : EXIT_TROUBLE;
done:
    free(ext);
    plan_free(&d.p);
    cli_input_close(in);
    return rc;
}

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    static const struct option longopts[] = {{"mode", required_argument, NULL, 'M'},
                                             {"structure", optional_argument, NULL, 'w'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"by", required_argument, NULL, 'B'},
                                             {"sort", required_argument, NULL, 'S'},
                                             {"top", required_argument, NULL, 'T'},
                                             {"threshold", required_argument, NULL, 'P'},
                                             {"wide", no_argument, NULL, 'W'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, 'V'},
                                             {NULL, 0, NULL, 0}};
    options o;
    memset(&o, 0, sizeof o);
    o.metric_flavour = CUBE_METRIC_INCLUSIVE;
    o.call_flavour = CUBE_CALL_EXCLUSIVE;
    o.mode = CUBE_MODE_ABSOLUTE;
    o.format = CLI_FORMAT_CSV;
    o.output = "-";
    o.by = CUBE_BY_THREAD;
    o.top = SIZE_MAX;
    int opt;
    /* cli_getopt reports bad options itself and never returns them */
    while ((opt = cli_getopt(argc, argv, "m:c:t:x:z:rs:w::o:h", longopts, usage)) != -1) {
        switch (opt) {
        case 'm':
            if (!*optarg)
                cli_usage_error(usage, "-m takes metric names or 'all'");
            o.metrics = optarg;
            break;
        case 'c': o.callpaths = optarg; break;
        case 't':
            if (strcmp(optarg, "aggr") == 0) {
                o.by = CUBE_BY_ALL; /* -t aggr is --by=all */
                o.by_given = 0;
                o.threads = NULL;
            } else {
                for (const char *p = optarg;;) {
                    size_t k = strcspn(p, ",");
                    range r;
                    if (parse_range(p, k, &r) != 0)
                        cli_usage_error(usage,
                                        "-t takes thread indexes and ranges (0,2,4-7) or "
                                        "'aggr', not '%s'",
                                        optarg);
                    if (!p[k])
                        break;
                    p += k + 1;
                }
                if (!o.by_given)
                    o.by = CUBE_BY_THREAD; /* after -t aggr, as it always was */
                o.threads = optarg;
            }
            break;
        case 'x':
            if (strcmp(optarg, "incl") == 0)
                o.metric_flavour = CUBE_METRIC_INCLUSIVE;
            else if (strcmp(optarg, "excl") == 0)
                o.metric_flavour = CUBE_METRIC_EXCLUSIVE;
            else
                cli_usage_error(usage, "-x takes incl or excl, not '%s'", optarg);
            break;
        case 'z':
            if (strcmp(optarg, "incl") == 0)
                o.call_flavour = CUBE_CALL_INCLUSIVE;
            else if (strcmp(optarg, "excl") == 0)
                o.call_flavour = CUBE_CALL_EXCLUSIVE;
            else if (strcmp(optarg, "stored") == 0)
                o.call_flavour = CUBE_CALL_STORED;
            else
                cli_usage_error(usage, "-z takes incl, excl or stored, not '%s'", optarg);
            break;
        case 'r': o.flat = 1; break;
        case 'M': parse_mode(optarg, &o); break;
        case 's':
            if (cli_format_parse(optarg, &o.format) != 0)
                cli_usage_error(usage, "-s takes csv, tsv, json or human, not '%s'", optarg);
            break;
        case 'w': {
            const char *sec = optarg;
            /* "-w SECTION" (CubeLib's form): the next argument, when it names
             * a section */
            if (!sec && optind < argc && sections_of(argv[optind]))
                sec = argv[optind++];
            unsigned bits = sec ? sections_of(sec) : SEC_ALL;
            if (!bits)
                cli_usage_error(usage,
                                "-w takes attributes, mirrors, metrics, regions, calltree, "
                                "systemtree, topologies, members or all, not '%s'",
                                sec);
            o.sections |= bits;
            break;
        }
        case 'o': o.output = optarg; break;
        case 'B':
            o.by = cli_parse_by(optarg, usage);
            o.by_given = 1;
            break;
        case 'S':
            if (cli_sort_parse(optarg, &o.sort) != 0)
                cli_usage_error(usage,
                                "--sort takes value, -value, abs, -abs, name, -name, id or -id, "
                                "not '%s'",
                                optarg);
            break;
        case 'T':
            if (cli_parse_count(optarg, &o.top) != 0)
                cli_usage_error(usage, "--top takes a count of rows, not '%s'", optarg);
            break;
        case 'P':
            if (cli_parse_percent(optarg, &o.threshold) != 0)
                cli_usage_error(usage, "--threshold takes a percentage from 0 to 100, not '%s'",
                                optarg);
            break;
        case 'W': o.wide = 1; break;
        case 'h': print_help(); return EXIT_OK;
        case 'V': cli_print_version(); return EXIT_OK;
        }
    }
    if (argc - optind != 1)
        cli_usage_error(usage, argc == optind ? "no input file" : "exactly one input file");
    o.input = argv[optind];
    if (o.threads && o.by != CUBE_BY_THREAD)
        cli_usage_error(usage, "-t %s selects threads: it needs --by=thread, not --by=%s",
                        o.threads, cli_by_name(o.by));
    if (o.wide && o.flat)
        cli_usage_error(usage, "--wide does not combine with -r");
    o.aggregate = o.by == CUBE_BY_ALL;
    if (o.external && strcmp(o.external, "-") == 0 && strcmp(o.input, "-") == 0)
        cli_usage_error(usage, "standard input ('-') can be read only once");
    if (o.callpaths) { /* syntax errors before reading */
        cnode_selection s;
        parse_callpaths(o.callpaths, &s, o.flat);
        selection_free(&s);
    }
    return dump(&o);
}
