/*
 * resume.c - the log of a run as the record of what is safe on disk, and
 * the kept suites of an unfinished run read back from its saved experiment
 * and statistics file (see resume.h).
 *
 * Values come back exactly: libcube writes every double in the shortest
 * form that reads back to the same value, in the experiment and in the
 * statistics file alike, so a kept suite is written again bit for bit.
 */
#include "resume.h"
#include "util.h"

#include "cube.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t resume_fnv1a64(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

char *resume_checksum(const void *data, size_t n, char *buf)
{
    snprintf(buf, RESUME_CHECKSUM_SIZE, "fnv1a64:%016" PRIx64, resume_fnv1a64(data, n));
    return buf;
}

char *resume_log_path(const char *cube_path)
{
    return bench_beside_path(cube_path, ".log", ".log");
}

/* --- the log ---------------------------------------------------------------- */

void resume_log_start(FILE *log, const char *checksum, int processes, size_t suites,
                      const char *output)
{
    fprintf(log, "run: parameter checksum %s, processes %d, suites %zu, output %s\n", checksum,
            processes, suites, output);
    fflush(log);
}

void resume_log_done(FILE *log, size_t k, size_t n, const char *suite, const char *output,
                     const char *stat_path, double seconds)
{
    if (output)
        fprintf(log, "suite done: %zu of %zu (%s); saved %s%s%s in %.3f s\n", k, n, suite,
                output, stat_path ? " and " : "", stat_path ? stat_path : "", seconds);
    else
        fprintf(log, "suite done: %zu of %zu (%s)\n", k, n, suite);
    fflush(log);
}

FILE *bench_fopen(const char *path, const char *mode)
{
    int flags = mode[0] == 'r'   ? O_RDONLY
                : mode[0] == 'a' ? O_WRONLY | O_CREAT | O_APPEND
                                 : O_WRONLY | O_CREAT | O_TRUNC;
    int fd = open(path, flags | O_CLOEXEC, 0666);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, mode);
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

int resume_read_log(const char *path, resume_log *log, char *err, size_t errlen)
{
    memset(log, 0, sizeof *log);
    FILE *f = bench_fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        bench_err(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int oom = 0, rc = 0;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t got;
    errno = 0; /* getline says ENOMEM only through errno */
    while ((got = getline(&line, &line_cap, f)) > 0) {
        if (line[got - 1] == '\n')
            line[got - 1] = '\0';
        char sum[64];
        int procs, off = 0;
        size_t suites, k, n;
        if (sscanf(line, "run: parameter checksum %63[^,], processes %d, suites %zu, output %n",
                   sum, &procs, &suites, &off) == 3 &&
            off > 0) {
            /* a new start: what came before belongs to an earlier run, or
             * is repeated by the "resumed:" line that follows */
            free(log->output);
            memset(log, 0, sizeof *log);
            log->found = 1;
            snprintf(log->checksum, sizeof log->checksum, "%s", sum);
            log->processes = procs;
            log->suites = suites;
            log->output = strdup(line + off);
            if (!log->output)
                oom = 1;
        } else if (log->found && (sscanf(line, "suite done: %zu of %zu", &k, &n) == 2 ||
                                  sscanf(line, "resumed: %zu of %zu", &k, &n) == 2)) {
            log->done = k;
        } else if (log->found && strncmp(line, "run complete:", 13) == 0) {
            log->complete = 1;
        }
        if (oom)
            break;
    }
    if (got < 0 && errno == ENOMEM)
        oom = 1;
    free(line);
    if (oom) {
        bench_err(err, errlen, "%s: out of memory", path);
        rc = -1;
    } else if (ferror(f)) {
        bench_err(err, errlen, "%s: read error", path);
        rc = -1;
    }
    fclose(f);
    if (rc != 0)
        resume_log_free(log);
    return rc;
}

void resume_log_free(resume_log *log)
{
    free(log->output);
    memset(log, 0, sizeof *log);
}

int resume_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return strcmp(a, b) == 0;
}

/* --- the saved files ------------------------------------------------------ */

struct resume_saved {
    cube_t *cube;
    cube_statfile *stat; /* NULL when the run has no statistics file */
    const char *cube_path, *stat_path;
    const cube_cnode *root;
    const cube_metric *met[4]; /* time, stderr, reps, dummy_time */
    const cube_metric *ops, *mean_ranks; /* NULL in runs that predate them */
    size_t *pattern_of;        /* [suite]: its first pattern in the statistics file */
    int partner_max, partner_min;
    double latency_max, latency_min;
};

void resume_saved_free(resume_saved *s)
{
    if (!s)
        return;
    cube_free(s->cube);
    if (s->stat)
        cube_statfile_free(s->stat);
    free(s->pattern_of);
    free(s);
}

/* "%d (%.17g s)", as output.c writes the partner attributes. */
static void parse_partner(const cube_t *c, const char *key, int *rank, double *latency)
{
    const char *v = cube_get_attr(c, key);
    int r, n = 0;
    *rank = -1;
    *latency = 0.0;
    if (!v || sscanf(v, "%d (%n", &r, &n) != 1 || n == 0 || r < 0)
        return;
    /* the number with '.', whatever the locale */
    const char *num = v + n, *end = strstr(num, " s)");
    double l;
    if (end && end[3] == '\0' && cube_parse_double(num, (size_t)(end - num), &l, NULL) == 0) {
        *rank = r;
        *latency = l;
    }
}

resume_saved *resume_load(const char *cube_path, const char *stat_path, const char *checksum,
                          int processes, size_t k, char *err, size_t errlen)
{
    resume_saved *s = calloc(1, sizeof *s);
    if (!s || !(s->cube = cube_create())) {
        bench_err(err, errlen, "%s: out of memory", cube_path);
        free(s);
        return NULL;
    }
    s->cube_path = cube_path;
    s->stat_path = stat_path;
    cube_t *c = s->cube;
    if (cube_read(c, cube_path) != 0) {
        bench_err(err, errlen, "%s", cube_error(c));
        goto fail;
    }
    const char *sum = cube_get_attr(c, "parameter checksum");
    const char *procs = cube_get_attr(c, "processes");
    if (!sum || strcmp(sum, checksum) != 0) {
        bench_err(err, errlen, "%s: expected parameter checksum %s (the parameter file of this run), "
               "found %s",
               cube_path, checksum, sum ? sum : "none");
        goto fail;
    }
    if (!procs || atoi(procs) != processes) {
        bench_err(err, errlen, "%s: expected a run of %d processes, found %s", cube_path, processes,
               procs ? procs : "no \"processes\" attribute");
        goto fail;
    }
    static const char *const uniq[4] = {"time", "stderr", "reps", "dummy_time"};
    for (int m = 0; m < 4; m++)
        if (!(s->met[m] = cube_find_metric(c, uniq[m]))) {
            bench_err(err, errlen, "%s: expected the metric %s of a cube_bench run, found none",
                   cube_path, uniq[m]);
            goto fail;
        }
    s->ops = cube_find_metric(c, "ops");
    s->mean_ranks = cube_find_metric(c, "time_mean_ranks");
    s->root = cube_num_root_cnodes(c) == 1 ? cube_get_root_cnode(c, 0) : NULL;
    if (!s->root || strcmp(cube_region_name(cube_cnode_callee(s->root)), "cube_bench") != 0) {
        bench_err(err, errlen, "%s: expected one call-tree root cube_bench", cube_path);
        goto fail;
    }
    if (cube_cnode_num_children(s->root) < k) {
        bench_err(err, errlen, "%s: expected the %zu finished suites the log names, found %zu",
               cube_path, k, cube_cnode_num_children(s->root));
        goto fail;
    }
    parse_partner(c, "partner with the largest latency", &s->partner_max, &s->latency_max);
    parse_partner(c, "partner with the smallest latency", &s->partner_min, &s->latency_min);
    if ((s->partner_max < 0) != (s->partner_min < 0))
        s->partner_max = s->partner_min = -1;

    if (stat_path) {
        s->stat = cube_statfile_create();
        if (!s->stat) {
            bench_err(err, errlen, "%s: out of memory", stat_path);
            goto fail;
        }
        if (cube_statfile_read(s->stat, stat_path) != 0) {
            bench_err(err, errlen, "%s", cube_statfile_error(s->stat));
            goto fail;
        }
    }
    /* the statistics file lists the patterns suite by suite, argument by
     * argument, in the order of the call tree */
    s->pattern_of = malloc((k + 1) * sizeof *s->pattern_of);
    if (!s->pattern_of) {
        bench_err(err, errlen, "%s: out of memory", cube_path);
        goto fail;
    }
    size_t p = 0;
    for (size_t i = 0; i < k; i++) {
        s->pattern_of[i] = p;
        p += cube_cnode_num_children(cube_cnode_child(s->root, i));
    }
    s->pattern_of[k] = p;
    if (s->stat && cube_statfile_num_patterns(s->stat) < p) {
        bench_err(err, errlen, "%s: expected at least %zu patterns (one per argument of the kept "
               "suites), found %zu",
               stat_path, p, cube_statfile_num_patterns(s->stat));
        goto fail;
    }
    return s;
fail:
    resume_saved_free(s);
    return NULL;
}

const char *resume_start_time(const resume_saved *s)
{
    return cube_get_attr(s->cube, "start time");
}

const char *resume_history(const resume_saved *s)
{
    return cube_get_attr(s->cube, "resumed");
}

void resume_partners(const resume_saved *s, int *partner_max, double *latency_max,
                     int *partner_min, double *latency_min)
{
    *partner_max = s->partner_max;
    *latency_max = s->latency_max;
    *partner_min = s->partner_min;
    *latency_min = s->latency_min;
}

/* The argument of a region "len=1024" (the suite's variation decides the
 * key; a simple call has no argument). */
static int parse_arg(const char *name, long *arg)
{
    const char *eq = strchr(name, '=');
    if (!eq) {
        *arg = 0;
        return 1;
    }
    char *end;
    errno = 0;
    long v = strtol(eq + 1, &end, 10);
    if (end == eq + 1 || *end || errno)
        return 0;
    *arg = v;
    return 1;
}

/* The thread of world rank r: cube_bench writes one process per rank,
 * its rank the world rank. */
static const cube_thread *thread_of(const cube_t *c, int r)
{
    for (size_t t = 0; t < cube_num_threads(c); t++) {
        const cube_thread *th = cube_get_thread(c, t);
        if (cube_thread_process(th) && cube_process_rank(cube_thread_process(th)) == r)
            return th;
    }
    return NULL;
}

int resume_fill(const resume_saved *s, size_t i, suite_result *r, int processes, char *err,
                size_t errlen)
{
    const cube_t *c = s->cube;
    const cube_cnode *sn = cube_cnode_child(s->root, i);
    const char *suite_name = cube_region_name(cube_cnode_callee(sn));
    const bench_suite *def = r->def;
    if (strcmp(suite_name, def->name) != 0) {
        bench_err(err, errlen, "%s: expected suite %zu to be %s (as in the parameter file), found %s",
               s->cube_path, i + 1, def->name, suite_name);
        return -1;
    }
    if (r->skipped) {
        if (cube_cnode_num_children(sn) != 0) {
            bench_err(err, errlen, "%s: suite %s has measurements, but this run skips it",
                   s->cube_path, def->name);
            return -1;
        }
        return 0;
    }
    const cube_thread **th = calloc((size_t)processes, sizeof *th);
    if (!th) {
        bench_err(err, errlen, "out of memory");
        return -1;
    }
    int rc = -1;
    for (int q = 0; q < processes; q++)
        if (!(th[q] = thread_of(c, q))) {
            bench_err(err, errlen, "%s: expected a process of rank %d, found none", s->cube_path, q);
            goto done;
        }
    for (size_t a = 0; a < cube_cnode_num_children(sn); a++) {
        const cube_cnode *cn = cube_cnode_child(sn, a);
        const char *arg_name = cube_region_name(cube_cnode_callee(cn));
        suite_point p;
        memset(&p, 0, sizeof p);
        char name[128];
        if (!parse_arg(arg_name, &p.arg) ||
            strcmp(suite_arg_name(r, p.arg, name, sizeof name), arg_name) != 0) {
            bench_err(err, errlen, "%s: suite %s: expected an argument of a %s suite, found %s",
                   s->cube_path, def->name, bench_variation_name(r->var), arg_name);
            goto done;
        }
        p.len = r->var == BENCH_VAR_LENGTH ? p.arg : def->default_msglen;
        p.chunks = r->var == BENCH_VAR_CHUNKS ? p.arg : def->default_chunks;
        p.comm_size = r->var == BENCH_VAR_NODES ? (int)p.arg
                      : def->pattern == BENCH_PATTERN_P2P ? 2
                                                          : processes;
        double v[4];
        for (int m = 0; m < 4; m++)
            v[m] = cube_get_sev(c, s->met[m], cn, th[0]);
        p.res.time = v[0];
        p.res.std_error = v[1];
        p.res.count = (long)v[2];
        p.res.dummy = v[3];
        if (s->ops)
            p.res.ops = (long)cube_get_sev(c, s->ops, cn, th[0]);
        p.has_mean_ranks = s->mean_ranks && def->pattern == BENCH_PATTERN_COLLECTIVE;
        if (p.has_mean_ranks)
            p.mean_ranks = cube_get_sev(c, s->mean_ranks, cn, th[0]);
        if (def->node_times) {
            p.ranks = calloc((size_t)processes * RANK_FIELDS, sizeof *p.ranks);
            if (!p.ranks) {
                bench_err(err, errlen, "out of memory");
                goto done;
            }
            for (int q = 0; q < processes; q++) {
                double *w = p.ranks + (size_t)q * RANK_FIELDS;
                for (int m = 0; m < 4; m++)
                    v[m] = cube_get_sev(c, s->met[m], cn, th[q]);
                /* a rank took part when it has any value (it has at least
                 * its repetitions); one with none is written as none */
                w[RANK_IN] = v[0] != 0.0 || v[1] != 0.0 || v[2] != 0.0 || v[3] != 0.0;
                w[RANK_TIME] = v[0];
                w[RANK_STDERR] = v[1];
                w[RANK_DUMMY] = v[3];
            }
        }
        if (s->stat) {
            size_t k = s->pattern_of[i] + a;
            const cube_statfile_pattern *pat = cube_statfile_get_pattern(s->stat, k);
            /* the pattern name as output.c makes it: blanks turned into '_' */
            char want[512];
            snprintf(want, sizeof want, "%s/%s", def->name, arg_name);
            for (char *q = want; *q; q++)
                if (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
                    *q = '_';
            if (strcmp(pat->name, want) != 0) {
                bench_err(err, errlen, "%s:%ld: expected the pattern %s, found %s", s->stat_path,
                       pat->line, want, pat->name);
                free(p.ranks);
                goto done;
            }
            p.res.count = (long)pat->count;
            p.res.mean_all = pat->mean;
            p.res.median = pat->median;
            p.res.min = pat->minimum;
            p.res.max = pat->maximum;
            p.res.sum = pat->sum;
            p.res.variance = pat->variance;
            p.res.q25 = pat->quartile25;
            p.res.q75 = pat->quartile75;
            size_t ni = pat->num_instances < MEASURE_SLOWEST ? pat->num_instances : MEASURE_SLOWEST;
            for (size_t q = 0; q < ni; q++) {
                p.res.slowest[q].enter = pat->instances[q].enter;
                p.res.slowest[q].exit = pat->instances[q].exit;
                p.res.slowest[q].duration = pat->instances[q].duration;
            }
            p.res.num_slowest = ni;
        }
        suite_point *grown = bench_grow(r->points, r->n, &r->cap, sizeof *grown, 32);
        if (!grown) {
            free(p.ranks);
            bench_err(err, errlen, "out of memory");
            goto done;
        }
        r->points = grown;
        r->points[r->n++] = p;
    }
    rc = 0;
done:
    free(th);
    return rc;
}
