/*
 * output.c - the CUBE experiment and the statistics file of a run.
 *
 * metrics     time, stderr, reps, dummy_time, ops, time_mean_ranks (all
 *             roots: none is a part of another, so no metric tree;
 *             time_mean_ranks on rank 0 of collective suites only)
 * call tree   cube_bench > one node per suite (region named after the
 *             suite, its line the suite's in the parameter file)
 *             > one node per argument, ascending (regions "len=1024", ...,
 *             shared by the suites, so cube_diff lines up two runs)
 * system      the machine (@MACHINE or rank 0's host) > one node per
 *             processor name > one process (one thread) per rank
 * values      every rank that took part with Node_Times = yes, else rank 0
 * attributes  the run sections, the MPI library, start and end, the
 *             command line, the clock, the parameter file's checksum, how
 *             many suites the file holds (it is saved after each suite)
 */
#include "output.h"
#include "util.h"

#include "cube.h"

#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { M_TIME, M_STDERR, M_REPS, M_DUMMY, M_OPS, M_MEAN_RANKS, NUM_METRICS };

char *output_stat_path(const char *cube_path)
{
    return bench_beside_path(cube_path, ".stat", ".stat.gz");
}

/* The writer's functions return nothing: a failure shows as an error on
 * the handle, which the next successful call clears.  The attributes and
 * the values of a point are defined one after the other and checked
 * once, so each call is skipped once one has failed, which keeps that
 * error for the message. */
static void def_attr(cube_t *c, const char *key, const char *value)
{
    if (cube_error_code(c) == CUBE_OK)
        cube_def_attr(c, key, value);
}

static void set_sev(cube_t *c, cube_metric *met, cube_cnode *cn, cube_thread *t, double value)
{
    if (cube_error_code(c) == CUBE_OK)
        cube_set_sev(c, met, cn, t, value);
}

/* An attribute value on one line: the writer keeps newlines, and XML
 * readers turn those in attribute values into spaces anyway. */
static void def_attr_line(cube_t *c, const char *key, const char *value)
{
    if (!value)
        return;
    char *v = strdup(value), *w = v;
    if (!v)
        return;
    int space = 1; /* drops leading blanks */
    for (const char *r = value; *r; r++) {
        int blank = *r == ' ' || *r == '\t' || *r == '\n' || *r == '\r';
        if (blank) {
            if (!space)
                *w++ = ' ';
            space = 1;
        } else {
            *w++ = *r;
            space = 0;
        }
    }
    while (w > v && w[-1] == ' ')
        w--;
    *w = '\0';
    def_attr(c, key, v);
    free(v);
}

static void def_attr_fmt(cube_t *c, const char *key, const char *fmt, ...)
{
    char buf[256];
    /* numbers with '.', whatever locale the program set (this thread only):
     * resume.c reads them back */
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t saved = c_locale ? uselocale(c_locale) : (locale_t)0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (c_locale) {
        uselocale(saved);
        freelocale(c_locale);
    }
    def_attr(c, key, buf);
}

static void def_attributes(cube_t *c, const bench_ctx *ctx, const bench_params *bp,
                           const output_info *info, size_t n)
{
    def_attr(c, "cube_bench version", CUBE_BENCH_VERSION);
    def_attr_line(c, "MPI library", info->mpi_library);
    def_attr_line(c, "MPI version", info->mpi_version);
    def_attr_fmt(c, "processes", "%d", ctx->size);
    def_attr_line(c, "start time", info->start_time);
    def_attr_line(c, "end time", info->end_time);
    def_attr_line(c, "command line", info->command_line);
    def_attr_line(c, "parameter file", info->param_file);
    /* what merging and resuming check runs against: the file's bytes, not
     * its name */
    def_attr_line(c, "parameter checksum", info->param_checksum);
    /* a save after each suite: a partial experiment says so */
    def_attr_fmt(c, "suites done", "%zu of %zu", n, info->suites_total);
    def_attr_line(c, "resumed", info->resumed);
    def_attr_fmt(c, "clock tick", "%.17g", ctx->clock.tick);
    def_attr_fmt(c, "clock granularity", "%.17g", ctx->clock.granularity);
    def_attr_fmt(c, "clock resolution", "%.17g", bclock_resolution(&ctx->clock));
    def_attr_fmt(c, "MPI_Wtime cost", "%.17g", ctx->clock.call_cost);
    if (ctx->partner_max >= 0) {
        def_attr_fmt(c, "partner with the largest latency", "%d (%.17g s)", ctx->partner_max,
                     ctx->latency_max);
        def_attr_fmt(c, "partner with the smallest latency", "%d (%.17g s)", ctx->partner_min,
                     ctx->latency_min);
    }
    /* the run sections, keyed by their names in the file */
    const struct {
        bench_section sec;
        const char *text;
    } texts[] = {
        {BENCH_SEC_USER, bp->user},       {BENCH_SEC_MACHINE, bp->machine},
        {BENCH_SEC_NETWORK, bp->network}, {BENCH_SEC_NODE, bp->node},
        {BENCH_SEC_COMMENT, bp->comment}, {BENCH_SEC_OUTFILE, bp->outfile},
        {BENCH_SEC_LOGFILE, bp->logfile},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        def_attr_line(c, bench_section_name(texts[i].sec), texts[i].text);
    /* the values in force, in the file's units (times in minutes) */
    def_attr_fmt(c, bench_section_name(BENCH_SEC_MEMORY), "%ld", bp->memory_kib);
    def_attr_fmt(c, bench_section_name(BENCH_SEC_MAX_REP_DEFAULT), "%d", bp->max_rep_default);
    def_attr_fmt(c, bench_section_name(BENCH_SEC_MIN_REP_DEFAULT), "%d", bp->min_rep_default);
    def_attr_fmt(c, bench_section_name(BENCH_SEC_MAX_STEPS_DEFAULT), "%d",
                 bp->max_steps_default);
    def_attr_fmt(c, bench_section_name(BENCH_SEC_MULTIPLE_OF_DEFAULT), "%ld",
                 bp->multiple_of_default);
    def_attr_fmt(c, bench_section_name(BENCH_SEC_STANDARD_ERROR_DEFAULT), "%.17g",
                 bp->standard_error_default);
    def_attr_fmt(c, bench_section_name(BENCH_SEC_TIME_MEAS_DEFAULT), "%.17g",
                 bp->time_meas_default / 60.0);
    def_attr_fmt(c, bench_section_name(BENCH_SEC_TIME_SUITE_DEFAULT), "%.17g",
                 bp->time_suite_default / 60.0);
    def_attr_fmt(c, bench_section_name(BENCH_SEC_CUT_QUANTILE_DEFAULT), "%.17g",
                 bp->cut_quantile_default);
    def_attr(c, bench_section_name(BENCH_SEC_ABSOLUTE), bp->absolute ? "yes" : "no");
    def_attr(c, bench_section_name(BENCH_SEC_POST), bp->post_proc ? "yes" : "no");
}

/* The argument regions are shared by name across suites (the name is the
 * region's own). */
typedef struct {
    cube_region **regions;
    size_t n, cap;
} region_set;

static cube_region *arg_region(cube_t *c, region_set *rs, const char *name, const char *descr)
{
    for (size_t i = 0; i < rs->n; i++)
        if (strcmp(cube_region_name(rs->regions[i]), name) == 0)
            return rs->regions[i];
    cube_region **grown = bench_grow(rs->regions, rs->n, &rs->cap, sizeof *grown, 64);
    if (!grown)
        return NULL;
    rs->regions = grown;
    cube_region *r = cube_def_region(c, name, -1, -1, "", descr, "");
    if (r)
        rs->regions[rs->n++] = r;
    return r;
}

static void region_set_free(region_set *rs)
{
    free(rs->regions);
}

/* The system tree; threads[r] is world rank r's.  0 or -1. */
static int def_system(cube_t *c, const bench_ctx *ctx, const bench_params *bp,
                      const output_info *info, cube_thread **threads)
{
    char mname[256];
    const char *mtext = bp->machine && *bp->machine ? bp->machine : info->proc_names[0];
    size_t k = strcspn(mtext, "\n");
    snprintf(mname, sizeof mname, "%.*s", (int)(k < 255 ? k : 255), mtext);
    cube_machine *mach = cube_def_mach(c, mname, bp->machine ? bp->machine : "the host of rank 0");
    cube_node **nodes = calloc((size_t)ctx->size, sizeof *nodes);
    if (!mach || !nodes) {
        free(nodes);
        return -1;
    }
    int rc = 0;
    for (int r = 0; r < ctx->size && rc == 0; r++) {
        /* one node per processor name, in the order of their first rank */
        cube_node *node = NULL;
        for (int q = 0; q < r && !node; q++)
            if (strcmp(info->proc_names[q], info->proc_names[r]) == 0)
                node = nodes[q];
        if (!node)
            node = cube_def_node(c, info->proc_names[r], mach);
        nodes[r] = node;
        char name[64];
        snprintf(name, sizeof name, "rank %d", r);
        cube_process *p = node ? cube_def_proc(c, name, r, node) : NULL;
        threads[r] = p ? cube_def_thrd(c, name, 0, p) : NULL;
        if (!threads[r])
            rc = -1;
    }
    free(nodes);
    return rc;
}

static void suite_descr(const suite_result *s, const char *file, char *buf, size_t n)
{
    const bench_suite *d = s->def;
    size_t ninfo;
    const bench_type_info *info = bench_type_list(&ninfo);
    int k = snprintf(buf, n, "%s:%d: %s (%s): %s; Variation = %s", file, d->line,
                     bench_type_name(d->type),
                     info[d->type].operation, info[d->type].description,
                     bench_variation_name(s->var));
    if (k >= 0 && (size_t)k < n && s->var != BENCH_VAR_NONE)
        k += snprintf(buf + k, n - (size_t)k, ", %s %.0f..%.0f", refine_scale_name(s->rp.scale),
                      s->rp.x_start, s->rp.x_end);
    if (k >= 0 && (size_t)k < n && s->partner >= 0)
        k += snprintf(buf + k, n - (size_t)k, "; partner rank %d", s->partner);
    if (k >= 0 && (size_t)k < n && s->skipped)
        snprintf(buf + k, n - (size_t)k, "; skipped: %s", s->skipped);
}

static int add_pattern(cube_statfile *sf, const suite_result *s, const suite_point *p,
                       const char *argname, const cube_metric *time_met, const cube_cnode *cn)
{
    char name[512];
    snprintf(name, sizeof name, "%s/%s", s->def->name, argname);
    for (char *q = name; *q; q++) /* a pattern name is one word */
        if (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            *q = '_';
    cube_statfile_instance inst[MEASURE_SLOWEST];
    for (size_t i = 0; i < p->res.num_slowest; i++) {
        inst[i].cnode_id = cube_cnode_id(cn);
        inst[i].enter = p->res.slowest[i].enter;
        inst[i].exit = p->res.slowest[i].exit;
        inst[i].duration = p->res.slowest[i].duration;
        inst[i].rank = 0;
        inst[i].line = 0;
    }
    cube_statfile_pattern pat;
    memset(&pat, 0, sizeof pat);
    pat.name = name;
    pat.metric_id = cube_metric_id(time_met);
    pat.count = (uint64_t)p->res.count;
    pat.has = CUBE_STATFILE_SUMMARY | CUBE_STATFILE_VARIANCE | CUBE_STATFILE_QUARTILES;
    pat.mean = p->res.mean_all;
    pat.median = p->res.median;
    pat.minimum = p->res.min;
    pat.maximum = p->res.max;
    pat.sum = p->res.sum;
    pat.variance = p->res.variance;
    pat.quartile25 = p->res.q25;
    pat.quartile75 = p->res.q75;
    pat.instances = inst;
    pat.num_instances = p->res.num_slowest;
    return cube_statfile_add_pattern(sf, &pat);
}

int output_write(const bench_ctx *ctx, const bench_params *bp, const output_info *info,
                 const suite_result *suites, size_t n, const char *path, const char *stat_path,
                 char *err, size_t errlen)
{
    cube_t *c = cube_create();
    cube_statfile *sf = stat_path ? cube_statfile_create() : NULL;
    cube_thread **threads = calloc((size_t)ctx->size, sizeof *threads);
    region_set rs = {0};
    int rc = -1;
    if (!c || (stat_path && !sf) || !threads) {
        bench_err(err, errlen, "%s: out of memory", path);
        goto done;
    }
    def_attributes(c, ctx, bp, info, n);
    if (cube_error_code(c) != CUBE_OK)
        goto cube_failed;

    static const struct {
        const char *disp, *uniq, *dtype, *uom, *descr;
    } mdef[NUM_METRICS] = {
        {"Time", "time", "FLOAT", "sec",
         "Result of the measurement: the mean of the single measurements left after cutting "
         "Cut_Quantile at each end, minus the dummy time; per operation (half a round trip "
         "for ping-pongs)"},
        {"Standard error", "stderr", "FLOAT", "sec",
         "Standard error of the time (of the trimmed mean, from the winsorized sample)"},
        {"Repetitions", "reps", "INTEGER", "occ", "Number of single measurements"},
        {"Dummy time", "dummy_time", "FLOAT", "sec",
         "Overhead of an empty measurement per operation, subtracted from the time"},
        {"Operations", "ops", "INTEGER", "occ",
         "Operations executed for this argument: the warm-up's and the timed ones (single "
         "measurements x operations in each); the dummy time runs none"},
        {"Time, mean over ranks", "time_mean_ranks", "FLOAT", "sec",
         "Collectives: the mean over the ranks of each rank's time per call (what OSU's and "
         "IMB's average is), at rank 0"},
    };
    cube_metric *met[NUM_METRICS];
    for (int m = 0; m < NUM_METRICS; m++)
        if (!(met[m] = cube_def_met(c, mdef[m].disp, mdef[m].uniq, mdef[m].dtype, mdef[m].uom,
                                    "", "", mdef[m].descr, NULL)))
            goto cube_failed;

    /* no module: regions match by name and module when experiments are
     * lined up (cube_diff), and two runs from differently named parameter
     * files must still line up; the file and line are in the description */
    const char *mod = "";
    cube_region *top = cube_def_region(c, "cube_bench", -1, -1, "",
                                       "a cube_bench run: one child per suite", mod);
    cube_cnode *root = top ? cube_def_cnode(c, top, NULL) : NULL;
    if (!root)
        goto cube_failed;
    if (def_system(c, ctx, bp, info, threads) != 0)
        goto cube_failed;

    for (size_t i = 0; i < n; i++) {
        const suite_result *s = &suites[i];
        char descr[1024];
        suite_descr(s, info->param_file ? info->param_file : "-", descr, sizeof descr);
        cube_region *reg = cube_def_region(c, s->def->name, s->def->line, -1, "", descr, mod);
        cube_cnode *sn = reg ? cube_def_cnode(c, reg, root) : NULL;
        if (!sn)
            goto cube_failed;
        for (size_t k = 0; k < s->n; k++) {
            const suite_point *p = &s->points[k];
            char argname[128], adescr[160];
            suite_arg_name(s, p->arg, argname, sizeof argname);
            switch (s->var) {
            case BENCH_VAR_NODES:
                snprintf(adescr, sizeof adescr, "communicator of %ld processes", p->arg);
                break;
            case BENCH_VAR_CHUNKS:
                snprintf(adescr, sizeof adescr, "%ld work pieces", p->arg);
                break;
            default:
                snprintf(adescr, sizeof adescr, "message length %ld bytes", p->len);
                break;
            }
            cube_region *ar = arg_region(c, &rs, argname, adescr);
            cube_cnode *cn = ar ? cube_def_cnode(c, ar, sn) : NULL;
            if (!cn)
                goto cube_failed;
            if (p->ranks) {
                for (int r = 0; r < ctx->size; r++) {
                    const double *v = p->ranks + (size_t)r * RANK_FIELDS;
                    if (v[RANK_IN] == 0.0)
                        continue;
                    set_sev(c, met[M_TIME], cn, threads[r], v[RANK_TIME]);
                    set_sev(c, met[M_STDERR], cn, threads[r], v[RANK_STDERR]);
                    set_sev(c, met[M_REPS], cn, threads[r], (double)p->res.count);
                    set_sev(c, met[M_DUMMY], cn, threads[r], v[RANK_DUMMY]);
                    set_sev(c, met[M_OPS], cn, threads[r], (double)p->res.ops);
                }
            } else {
                set_sev(c, met[M_TIME], cn, threads[0], p->res.time);
                set_sev(c, met[M_STDERR], cn, threads[0], p->res.std_error);
                set_sev(c, met[M_REPS], cn, threads[0], (double)p->res.count);
                set_sev(c, met[M_DUMMY], cn, threads[0], p->res.dummy);
                set_sev(c, met[M_OPS], cn, threads[0], (double)p->res.ops);
            }
            if (p->has_mean_ranks)
                set_sev(c, met[M_MEAN_RANKS], cn, threads[0], p->mean_ranks);
            if (cube_error_code(c) != CUBE_OK)
                goto cube_failed;
            if (sf && add_pattern(sf, s, p, argname, met[M_TIME], cn) != 0) {
                bench_err(err, errlen, "%s: out of memory", stat_path);
                goto done;
            }
        }
    }
    if (cube_write_file(c, path, 0) != 0)
        goto cube_failed;
    if (sf && cube_statfile_write(sf, stat_path, CUBE_STATFILE_DOCUMENTED) != 0) {
        bench_err(err, errlen, "%s", cube_statfile_error(sf));
        goto done;
    }
    rc = 0;
    goto done;
cube_failed:
    bench_err(err, errlen, "%s",
              cube_error_code(c) != CUBE_OK ? cube_error(c) : "out of memory");
done:
    region_set_free(&rs);
    free(threads);
    if (sf)
        cube_statfile_free(sf);
    cube_free(c);
    return rc;
}
