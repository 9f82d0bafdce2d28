/*
 * cube_bench - an MPI benchmark with SKaMPI's measurement mechanisms
 * (automatic control of the standard error, automatic parameter
 * refinement) that writes its results as a CUBE experiment.
 *
 *   mpiexec -n P cube_bench [-p PARAMFILE] [-o RUN.cube] [-l RUN.log] [--restart]
 *   cube_bench --merge RUN.cube... -o MERGED.cube      (no MPI: postproc.c)
 *   cube_bench --report RUN.cube... -o REPORT.html
 *
 * A run saves the experiment after every suite and logs it, so that a run
 * that was killed continues where it stopped when started again
 * (resume.c).
 *
 * Every decision that more than one rank acts on is taken on rank 0 and
 * broadcast; errors are found on rank 0 (or identically on every rank),
 * reported once, and every rank leaves through MPI_Finalize with status 2:
 * no MPI_Abort, whose storms of messages hide the one that matters.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli_signals.h"
#include "cube.h"
#include "output.h"
#include "postproc.h"
#include "resume.h"
#include "suite.h"

#define DEFAULT_OUTPUT "cube_bench.cube"

static const char usage_text[] =
    "usage: mpiexec -n P cube_bench [-p PARAMFILE] [-o RUN.cube] [-l RUN.log] [--restart]\n"
    "       cube_bench --merge [-o MERGED.cube] RUN.cube...\n"
    "       cube_bench --report [-o REPORT.html] RUN.cube...\n"
    "       cube_bench --compare [--threshold=PCT] [-s FORMAT] BEFORE.cube AFTER.cube\n"
    "\n"
    "Measure MPI operations with controlled standard error and automatic parameter\n"
    "refinement (SKaMPI's mechanisms) and write the results as a CUBE experiment,\n"
    "with a statistics file RUN.stat beside it.\n"
    "\n"
    "  -p, --params FILE   the parameter file (cube_bench(5)); '-' is standard input;\n"
    "                      default: the shipped default.par (the standard suites)\n"
    "  -o, --output FILE   the experiment (default: @OUTFILE, else " DEFAULT_OUTPUT ");\n"
    "                      '-' is standard output (then no statistics file)\n"
    "  -l, --log FILE      a log of the run: what was measured, repetitions, why each\n"
    "                      measurement stopped, each suite done and saved (default:\n"
    "                      @LOGFILE, else RUN.log beside the output); '-' is standard\n"
    "                      error\n"
    "      --restart       start afresh even when the log names an unfinished run of\n"
    "                      this output (without it such a run is continued: its finished\n"
    "                      suites are kept; one of another parameter file is refused)\n"
    "      --merge         merge runs (see cube_bench --merge --help); no MPI\n"
    "      --report        an HTML report of runs (see cube_bench --report --help); no MPI\n"
    "      --compare       a regression gate: AFTER/BEFORE per suite and argument, exit\n"
    "                      1 when slower than the threshold beyond the noise (see\n"
    "                      cube_bench --compare --help); no MPI\n"
    "  -h, --help          this text\n"
    "      --version       the version\n"
    "\n"
    "Exit status: 0 success, 2 usage errors, bad parameter files, failed output,\n"
    "an unfinished run that cannot be continued; 3 stopped by the test hook\n"
    "CUBE_BENCH_STOP_AFTER=K (after K suites; see cube_bench(1)).\n";

typedef struct {
    const char *params, *output, *log;
    int help, version, restart;
} options;

/* 1 when `ok` holds on every rank; else rank 0 says "out of memory" (with
 * `what`) and every rank returns 0, so that all leave together. */
static int all_ranks_ok(int rank, int ok, const char *what)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all)
        bench_say("cube_bench", rank, "out of memory%s%s", what ? " " : "", what ? what : "");
    return all;
}

/* 0, or 2 on a usage error (reported by rank 0). */
static int parse_options(int rank, int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"params", required_argument, NULL, 'p'}, {"output", required_argument, NULL, 'o'},
        {"log", required_argument, NULL, 'l'},    {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},      {"restart", no_argument, NULL, 'R'},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    opterr = 0; /* our own messages, from rank 0 only */
    int ch;
    while ((ch = getopt_long(argc, argv, ":p:o:l:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'p':
            o->params = optarg;
            break;
        case 'o':
            o->output = optarg;
            break;
        case 'l':
            o->log = optarg;
            break;
        case 'h':
            o->help = 1;
            break;
        case 'V':
            o->version = 1;
            break;
        case 'R':
            o->restart = 1;
            break;
        case ':':
            bench_say("cube_bench", rank, "option %s needs an argument (see --help)", argv[optind - 1]);
            return 2;
        default:
            if (optopt)
                bench_say("cube_bench", rank, "unknown option -%c (see --help)", optopt);
            else
                bench_say("cube_bench", rank, "unknown option %s (see --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        bench_say("cube_bench", rank, "unexpected argument '%s' (see --help)", argv[optind]);
        return 2;
    }
    return 0;
}

/* --- the parameter file (rank 0) ------------------------------------------ */

/* The shipped default.par: looked up relative to the executable, so that
 * both an installed tree and the build tree work without a compiled-in
 * path:  BIN/../share/cube_bench/default.par   (make install)
 *        BIN/../../bench/default.par           (build/bin/cube_bench)
 *        BIN/../../../bench/default.par        (build/sanitize/bin/cube_bench)
 * CUBE_BENCH_DATADIR, when the build defines it, is tried first. */
static char *find_default_params(const char *argv0)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
    } else if (strchr(argv0, '/') && strlen(argv0) < sizeof exe) {
        strcpy(exe, argv0);
    } else {
        exe[0] = '\0';
    }
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    const char *const rel[] = {
#ifdef CUBE_BENCH_DATADIR
        NULL,
#endif
        "/../share/cube_bench/default.par", "/../../bench/default.par",
        "/../../../bench/default.par"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char path[8192];
#ifdef CUBE_BENCH_DATADIR
        if (!rel[i])
            snprintf(path, sizeof path, "%s/default.par", CUBE_BENCH_DATADIR);
        else
#endif
        {
            if (!slash)
                continue;
            snprintf(path, sizeof path, "%s%s", exe, rel[i]);
        }
        if (access(path, R_OK) == 0)
            return strdup(path);
    }
    return NULL;
}

/* The whole file in memory (NUL-terminated); NULL with a message in err. */
static char *read_text(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : bench_fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 8192, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
        if (k == 0)
            break;
    }
    int bad = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    if (bad) {
        snprintf(err, errlen, "%s: read error", path);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Rank 0 reads, every rank gets the text.  0, or 2 after an error. */
static int get_params_text(bench_ctx *ctx, const options *o, const char *argv0, char **text,
                           size_t *len, char **name)
{
    char err[1024] = "";
    long n = -1;
    *text = NULL;
    *name = NULL;
    if (ctx->rank == 0) {
        char *path = o->params ? strdup(o->params) : find_default_params(argv0);
        if (!path) {
            snprintf(err, sizeof err,
                     o->params ? "out of memory"
                               : "no -p given and the shipped default.par was not found "
                                 "(looked beside the executable: ../share/cube_bench/, "
                                 "../../bench/); give a parameter file with -p");
        } else if ((*text = read_text(path, len, err, sizeof err)) != NULL) {
            n = (long)*len;
        }
        *name = path;
    }
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (n < 0) {
        bench_say("cube_bench", ctx->rank, "%s", err);
        return 2;
    }
    if (ctx->rank != 0) {
        *len = (size_t)n;
        *text = malloc((size_t)n + 1);
    }
    if (!all_ranks_ok(ctx->rank, *text != NULL, "for the parameter file"))
        return 2;
    /* in pieces: MPI counts are ints */
    for (long off = 0; off < n;) {
        int k = n - off > (1L << 30) ? 1 << 30 : (int)(n - off);
        MPI_Bcast(*text + off, k, MPI_CHAR, 0, MPI_COMM_WORLD);
        off += k;
    }
    (*text)[n] = '\0';
    /* the name too, for the messages of every rank's parser */
    int nl = ctx->rank == 0 ? (int)strlen(*name) : 0;
    MPI_Bcast(&nl, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (ctx->rank != 0)
        *name = calloc((size_t)nl + 1, 1);
    if (!all_ranks_ok(ctx->rank, *name != NULL, NULL))
        return 2;
    MPI_Bcast(*name, nl, MPI_CHAR, 0, MPI_COMM_WORLD);
    return 0;
}

/* --- small things ---------------------------------------------------------- */

static void now_iso(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(buf, n, "%Y-%m-%dT%H:%M:%S%z", &tm);
    else
        snprintf(buf, n, "%lld", (long long)t);
}

/* The command line as one string, arguments with blanks or quotes quoted. */
static char *join_args(int argc, char **argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += 4 * strlen(argv[i]) + 3;
    char *s = malloc(n), *w = s;
    if (!s)
        return NULL;
    for (int i = 0; i < argc; i++) {
        if (i)
            *w++ = ' ';
        int quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t\n'\"\\$") != NULL;
        if (quote)
            *w++ = '\'';
        for (const char *r = argv[i]; *r; r++) {
            if (*r == '\'') { /* ' -> '\'' */
                memcpy(w, "'\\''", 4);
                w += 4;
            } else {
                *w++ = *r;
            }
        }
        if (quote)
            *w++ = '\'';
    }
    *w = '\0';
    return s;
}

/* Rank 0: can the output be made?  Its directory must take a new file
 * (cube_write_file writes a temporary beside it and renames). */
static int output_dir_ok(const char *path, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0)
        return 1;
    char *dir = strdup(path);
    if (!dir) {
        snprintf(err, errlen, "out of memory");
        return 0;
    }
    char *slash = strrchr(dir, '/');
    const char *d = slash ? (slash == dir ? "/" : (*slash = '\0', dir)) : ".";
    int ok = access(d, W_OK | X_OK) == 0;
    if (!ok)
        snprintf(err, errlen, "%s: cannot write in %s: %s", path, d, strerror(errno));
    free(dir);
    return ok;
}

/* --- resuming ---------------------------------------------------------------- */

/* Rank 0: is there an unfinished run of this parameter file to continue
 * (SKaMPI's read_old_log_file)?  The number of its suites to keep (0:
 * start afresh), or -1 with a message in err.  Nothing is refused when
 * nothing would be lost: a log of a finished run, of a run that finished
 * no suite, or of one that wrote to standard output. */
static long find_unfinished(const options *o, const char *logpath, const char *outpath,
                            const char *checksum, int size, size_t nsuites, char *err,
                            size_t errlen)
{
    if (o->restart || !logpath || strcmp(logpath, "-") == 0 || strcmp(outpath, "-") == 0)
        return 0;
    resume_log old;
    if (resume_read_log(logpath, &old, err, errlen) != 0)
        return -1;
    long keep = 0;
    if (old.found && !old.complete && old.done > 0 && strcmp(old.output, "-") != 0) {
        if (strcmp(old.checksum, checksum) != 0) {
            snprintf(err, errlen,
                     "%s: the unfinished run logged there (%zu of %zu suites done) was made "
                     "with another parameter file (%s; this one is %s); to start over, "
                     "overwriting %s, add --restart",
                     logpath, old.done, old.suites, old.checksum, checksum, outpath);
            keep = -1;
        } else if (old.processes != size) {
            snprintf(err, errlen,
                     "%s: the unfinished run logged there (%zu of %zu suites done) has %d "
                     "processes, this one %d; continue it with mpiexec -n %d, or start over "
                     "with --restart",
                     logpath, old.done, old.suites, old.processes, size, old.processes);
            keep = -1;
        } else if (!resume_same_file(old.output, outpath)) {
            snprintf(err, errlen,
                     "%s: the unfinished run logged there writes %s, not %s; continue it with "
                     "-o %s, or start over with --restart",
                     logpath, old.output, outpath, old.output);
            keep = -1;
        } else {
            keep = (long)(old.done < nsuites ? old.done : nsuites);
        }
    }
    resume_log_free(&old);
    return keep;
}

/* --- the run ---------------------------------------------------------------- */

/* What rank 0 needs to save the run so far. */
typedef struct {
    bench_ctx *ctx;
    const bench_params *bp;
    output_info info;
    suite_result *results;
    const char *outpath, *stat_path;
    char end[64];
    double save_time; /* seconds the last save took (it includes two fsyncs) */
} run_output;

/* Rank 0 writes the first `done` suites (the experiment, then the
 * statistics file, each atomically); after a save that follows a suite
 * (`suite_save`) the log line that makes them count.  The other ranks wait
 * asleep for the verdict.  0, or 2 after the message. */
static int save_run(run_output *ro, size_t done, int suite_save, char *err, size_t errlen)
{
    bench_ctx *ctx = ro->ctx;
    int rc = 0;
    if (ctx->rank == 0) {
        now_iso(ro->end, sizeof ro->end);
        ro->info.end_time = ro->end;
        double t0 = MPI_Wtime();
        rc = output_write(ctx, ro->bp, &ro->info, ro->results, done, ro->outpath,
                          ro->stat_path, err, errlen) != 0;
        ro->save_time = MPI_Wtime() - t0;
        if (ctx->log && rc)
            fprintf(ctx->log, "saving %zu of %zu suites failed: %s\n", done,
                    ro->bp->n_suites, err);
        else if (ctx->log && suite_save)
            resume_log_done(ctx->log, done, ro->bp->n_suites, ro->bp->suites[done - 1].name,
                            ro->outpath, ro->stat_path, ro->save_time);
    }
    bench_bcast(ctx, &rc, 1, MPI_INT, 1);
    if (rc) {
        bench_say("cube_bench", ctx->rank, "%s", err);
        return 2;
    }
    return 0;
}

/* The test hook CUBE_BENCH_STOP_AFTER=k (rank 0's environment): stop with
 * status 3 once k suites are done and saved, leaving what a kill at that
 * moment would leave.  0 when unset; -1 when not a number >= 1. */
static long stop_after_hook(void)
{
    const char *v = getenv("CUBE_BENCH_STOP_AFTER");
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    long k = strtol(v, &end, 10);
    return *end || errno || k < 1 ? -1 : k;
}

/* The state of a run, shared by its steps; run_free releases it. */
typedef struct {
    bench_ctx ctx;
    options o;
    char *text, *pname; /* the parameter file and its name */
    size_t len;
    bench_params bp;
    int parsed;
    char checksum[RESUME_CHECKSUM_SIZE];
    const char *outpath;
    char *logpath, *stat_path, *cmdline; /* rank 0 only, except logpath */
    long keep;       /* suites kept from an unfinished run */
    long stop_after; /* the test hook, 0 when unset */
    resume_saved *saved;
    suite_result *results;
    size_t nsuites; /* results to free */
    char *all_names;
    char **names; /* rank 0: processor name per rank, in all_names */
    char *history;
    char start[64], started[64], libv[MPI_MAX_LIBRARY_VERSION_STRING + 1], mpiv[32];
    char err[2048];
} bench_run;

/* Every rank parses the same parameter text and finds the same errors;
 * then the run's identity for resuming and merging: the file's bytes.
 * 0, or the exit status after the message. */
static int load_params(bench_run *r, const char *argv0)
{
    bench_ctx *ctx = &r->ctx;
    int status = get_params_text(ctx, &r->o, argv0, &r->text, &r->len, &r->pname);
    if (status != 0)
        return status;
    int prc = params_parse(r->text, r->len, r->pname, &r->bp, r->err, sizeof r->err), anybad = 0;
    r->parsed = prc == 0;
    int bad = prc != 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        bench_say("cube_bench", ctx->rank, "%s", bad ? r->err : "a rank could not parse the parameter file");
        return 2;
    }
    for (size_t i = 0; i < r->bp.n_suites; i++) {
        int skip = 0;
        if (suite_check(ctx, &r->bp, &r->bp.suites[i], r->pname, &skip, r->err,
                        sizeof r->err) != 0) {
            bench_say("cube_bench", ctx->rank, "%s", r->err);
            return 2;
        }
    }
    resume_checksum(r->text, r->len, r->checksum);
    return 0;
}

/* Rank 0: the outputs' paths, the test hook, whether to continue an
 * unfinished run (and its saved suites), and the log opened.  0, or -1
 * with the message in r->err. */
static int prepare_outputs(bench_run *r, int argc, char **argv, const char *loggiven)
{
    char *err = r->err;
    size_t errlen = sizeof r->err;
    const char *outpath = r->outpath;
    if (!output_dir_ok(outpath, err, errlen))
        return -1;
    r->stat_path = output_stat_path(outpath);
    r->cmdline = join_args(argc, argv);
    if (!r->cmdline || (strcmp(outpath, "-") != 0 && (!r->stat_path || !r->logpath)) ||
        (loggiven && !r->logpath)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if ((r->stop_after = stop_after_hook()) < 0) {
        snprintf(err, errlen, "CUBE_BENCH_STOP_AFTER: expected a number of suites "
                              "(1 or more), found '%s'",
                 getenv("CUBE_BENCH_STOP_AFTER"));
        return -1;
    }
    if ((r->keep = find_unfinished(&r->o, r->logpath, outpath, r->checksum, r->ctx.size,
                                   r->bp.n_suites, err, errlen)) < 0)
        return -1;
    if (r->keep > 0) {
        r->saved = resume_load(outpath, r->stat_path, r->checksum, r->ctx.size,
                               (size_t)r->keep, err, errlen);
        if (!r->saved) {
            char why[sizeof r->err];
            memcpy(why, err, sizeof r->err);
            snprintf(err, errlen,
                     "cannot continue the unfinished run of %s: %.1800s (--restart starts "
                     "over)",
                     r->logpath, why);
            return -1;
        }
    }
    if (r->logpath) {
        /* a continued run adds to its log; a new one starts it */
        r->ctx.log = strcmp(r->logpath, "-") == 0 ? stderr
                                                  : bench_fopen(r->logpath, r->keep > 0 ? "a" : "w");
        if (!r->ctx.log) {
            snprintf(err, errlen, "%s: %s", r->logpath, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* A continued run: the kept suites' results, from rank 0's saved files,
 * in every rank's plan.  0, or 2 after the message. */
static int restore_kept(bench_run *r)
{
    bench_ctx *ctx = &r->ctx;
    /* the partners the run found stay its partners: every ping-pong
     * of one run measures with the same rank */
    double pv[4] = {-1, 0, -1, 0};
    if (ctx->rank == 0) {
        int pmax, pmin;
        resume_partners(r->saved, &pmax, &pv[1], &pmin, &pv[3]);
        pv[0] = pmax;
        pv[2] = pmin;
    }
    MPI_Bcast(pv, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (pv[0] >= 0 && pv[2] >= 0) {
        ctx->partner_max = (int)pv[0];
        ctx->latency_max = pv[1];
        ctx->partner_min = (int)pv[2];
        ctx->latency_min = pv[3];
    }
    int good = 1;
    for (size_t i = 0; i < (size_t)r->keep && good; i++) {
        r->nsuites = i + 1;
        good = suite_plan_result(ctx, &r->bp, &r->bp.suites[i], &r->results[i], r->err,
                                 sizeof r->err) == 0;
        if (good && ctx->rank == 0)
            good = resume_fill(r->saved, i, &r->results[i], ctx->size, r->err,
                               sizeof r->err) == 0;
    }
    int all = 0;
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        bench_say("cube_bench", ctx->rank, "cannot continue the unfinished run of %s: %s (--restart starts over)",
            r->logpath, good ? "out of memory" : r->err);
        return 2;
    }
    return 0;
}

/* Who runs where: one node of the system tree per processor name, on
 * rank 0.  0, or 2 after the message. */
static int gather_names(bench_run *r)
{
    bench_ctx *ctx = &r->ctx;
    char me[MPI_MAX_PROCESSOR_NAME + 1];
    int ml = 0;
    memset(me, 0, sizeof me);
    MPI_Get_processor_name(me, &ml);
    r->all_names = ctx->rank == 0 ? calloc((size_t)ctx->size, sizeof me) : NULL;
    r->names = ctx->rank == 0 ? calloc((size_t)ctx->size, sizeof *r->names) : NULL;
    if (!all_ranks_ok(ctx->rank, ctx->rank != 0 || (r->all_names && r->names), NULL))
        return 2;
    MPI_Gather(me, (int)sizeof me, MPI_CHAR, r->all_names, (int)sizeof me, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (ctx->rank == 0)
        for (int k = 0; k < ctx->size; k++)
            r->names[k] = r->all_names + (size_t)k * sizeof me;
    return 0;
}

/* The run's start (a continued run started when its first part did) and
 * history, and the MPI library and version. */
static void describe_run(bench_run *r)
{
    now_iso(r->start, sizeof r->start);
    snprintf(r->started, sizeof r->started, "%s",
             r->saved && resume_start_time(r->saved) ? resume_start_time(r->saved) : r->start);
    if (r->saved) {
        const char *before = resume_history(r->saved);
        size_t hn = (before ? strlen(before) : 0) + 128;
        /* out of memory here costs the attribute "resumed" only */
        r->history = malloc(hn);
        if (r->history)
            snprintf(r->history, hn, "%s%safter %ld of %zu suites at %s", before ? before : "",
                     before ? "; " : "", r->keep, r->bp.n_suites, r->start);
    }
    int lvlen = 0, vmaj = 0, vmin = 0;
    memset(r->libv, 0, sizeof r->libv);
    MPI_Get_library_version(r->libv, &lvlen);
    /* the first lines name the library; MPICH goes on with its whole
     * configure line, which is no use in an attribute */
    char *q = r->libv;
    for (int lines = 0; q && lines < 4; lines++)
        if ((q = strchr(q, '\n')) != NULL)
            q++;
    if (q)
        *q = '\0';
    MPI_Get_version(&vmaj, &vmin);
    snprintf(r->mpiv, sizeof r->mpiv, "%d.%d", vmaj, vmin);
}

/* The log's head: the run, the clock, the resume marker, and for a
 * continued run what was kept. */
static void log_start(bench_run *r)
{
    bench_ctx *ctx = &r->ctx;
    const bench_params *bp = &r->bp;
    size_t k = strcspn(r->libv, "\n");
    if (r->keep > 0) /* what came before is the first part of this run */
        fputc('\n', ctx->log);
    fprintf(ctx->log, "cube_bench %s on %d processes, %.*s, MPI %s\n", CUBE_BENCH_VERSION,
            ctx->size, (int)k, r->libv, r->mpiv);
    fprintf(ctx->log, "parameter file %s, %zu suites; output %s; start %s\n", r->pname,
            bp->n_suites, r->outpath, r->start);
    fprintf(ctx->log, "clock: MPI_Wtick %.3g s, resolution %.3g s, MPI_Wtime call %.3g s\n",
            ctx->clock.tick, bclock_resolution(&ctx->clock), ctx->clock.call_cost);
    resume_log_start(ctx->log, r->checksum, ctx->size, bp->n_suites, r->outpath);
    if (r->keep > 0) {
        fprintf(ctx->log, "resumed: %ld of %zu suites kept from %s%s%s (the run started %s)",
                r->keep, bp->n_suites, r->outpath, r->stat_path ? " and " : "",
                r->stat_path ? r->stat_path : "", r->started);
        if ((size_t)r->keep < bp->n_suites)
            fprintf(ctx->log, "; measuring from suite %ld (%s)\n", r->keep + 1,
                    bp->suites[r->keep].name);
        else
            fprintf(ctx->log, "; nothing left to measure\n");
    }
    fflush(ctx->log);
}

/* The suites not kept, each saved when done (unless the output is
 * standard output); then the whole run when no suite save wrote it.
 * 0, or the exit status after the message. */
static int measure(bench_run *r, run_output *ro)
{
    bench_ctx *ctx = &r->ctx;
    const bench_params *bp = &r->bp;
    int status = 0;
    /* standard output cannot be rewritten: it gets the whole run at the end */
    int save_each = strcmp(r->outpath, "-") != 0;
    for (size_t i = (size_t)r->keep; i < bp->n_suites; i++) {
        if (suite_run(ctx, bp, &bp->suites[i], &r->results[i], r->err, sizeof r->err) != 0) {
            r->nsuites = i + 1;
            bench_say("cube_bench", ctx->rank, "%s", r->err);
            status = 2;
            break;
        }
        r->nsuites = i + 1;
        if (r->results[i].skipped)
            bench_say("cube_bench", ctx->rank, "warning: suite %s skipped: %s", bp->suites[i].name,
                r->results[i].skipped);
        if (save_each) {
            if ((status = save_run(ro, i + 1, 1, r->err, sizeof r->err)) != 0)
                break;
        } else if (ctx->rank == 0 && ctx->log) {
            resume_log_done(ctx->log, i + 1, bp->n_suites, bp->suites[i].name, NULL, NULL, 0.0);
        }
        if (r->stop_after > 0 && i + 1 == (size_t)r->stop_after) {
            bench_say("cube_bench", ctx->rank, "stopped after suite %zu of %zu (CUBE_BENCH_STOP_AFTER, a test hook)",
                i + 1, bp->n_suites);
            status = 3;
            break;
        }
    }
    if (status == 0) {
        /* the last save after a suite was the whole run; otherwise
         * (standard output, no suites, nothing left to measure) write it */
        size_t measured = bp->n_suites - (size_t)r->keep;
        if (!save_each || measured == 0)
            status = save_run(ro, bp->n_suites, 0, r->err, sizeof r->err);
        if (status == 0 && ctx->rank == 0 && ctx->log) {
            fprintf(ctx->log, "run complete: %zu of %zu suites, end %s (%.3f s); wrote %s%s%s\n",
                    bp->n_suites, bp->n_suites, ro->end, MPI_Wtime() - ctx->t_start, r->outpath,
                    r->stat_path ? " and " : "", r->stat_path ? r->stat_path : "");
            fflush(ctx->log);
        }
    }
    return status;
}

static void run_free(bench_run *r)
{
    if (r->results)
        for (size_t i = 0; i < r->nsuites; i++)
            suite_result_free(&r->results[i]);
    free(r->results);
    free(r->all_names);
    free(r->names);
    resume_saved_free(r->saved);
    if (r->parsed)
        params_free(&r->bp);
    if (r->ctx.log && r->ctx.log != stderr)
        fclose(r->ctx.log);
    free(r->text);
    free(r->pname);
    free(r->cmdline);
    free(r->stat_path);
    free(r->logpath);
    free(r->history);
    bench_ctx_free(&r->ctx);
}

/* The steps after the options; 0 or the exit status. */
static int run_steps(bench_run *r, int argc, char **argv)
{
    bench_ctx *ctx = &r->ctx;
    int status = load_params(r, argv[0]);
    if (status != 0)
        return status;
    r->outpath = r->o.output ? r->o.output : r->bp.outfile ? r->bp.outfile : DEFAULT_OUTPUT;
    /* the log: -l, @LOGFILE, else beside the output (none for "-") */
    const char *loggiven = r->o.log ? r->o.log : r->bp.logfile;
    r->logpath = loggiven ? strdup(loggiven) : resume_log_path(r->outpath);
    int ok = ctx->rank != 0 || prepare_outputs(r, argc, argv, loggiven) == 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        bench_say("cube_bench", ctx->rank, "%s", r->err);
        return 2;
    }
    long hook[2] = {r->keep, r->stop_after};
    MPI_Bcast(hook, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    r->keep = hook[0];
    r->stop_after = hook[1];

    r->results = calloc(r->bp.n_suites ? r->bp.n_suites : 1, sizeof *r->results);
    if (!all_ranks_ok(ctx->rank, r->results != NULL, NULL))
        return 2;
    if (r->keep > 0 && (status = restore_kept(r)) != 0)
        return status;
    if ((status = gather_names(r)) != 0)
        return status;
    describe_run(r);
    if (ctx->log)
        log_start(r);

    run_output ro;
    memset(&ro, 0, sizeof ro);
    ro.ctx = ctx;
    ro.bp = &r->bp;
    ro.results = r->results;
    ro.outpath = r->outpath;
    ro.stat_path = r->stat_path;
    ro.info = (output_info){.param_file = r->pname,
                            .command_line = r->cmdline,
                            .start_time = r->started,
                            .mpi_library = r->libv,
                            .mpi_version = r->mpiv,
                            .proc_names = r->names,
                            .param_checksum = r->checksum,
                            .suites_total = r->bp.n_suites,
                            .resumed = r->history};
    return measure(r, &ro);
}

static int run(int argc, char **argv)
{
    bench_run *r = calloc(1, sizeof *r);
    if (!r || bench_ctx_init(&r->ctx) != 0) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        bench_say("cube_bench", rank, "out of memory");
        free(r);
        return 2;
    }
    int status = parse_options(r->ctx.rank, argc, argv, &r->o);
    if (status == 0 && (r->o.help || r->o.version)) {
        if (r->ctx.rank == 0) {
            if (r->o.help)
                fputs(usage_text, stdout);
            else
                printf("cube_bench %s (libcube %s)\n", CUBE_BENCH_VERSION, cube_version());
        }
    } else if (status == 0) {
        status = run_steps(r, argc, argv);
    }
    run_free(r);
    free(r);
    return status;
}

int main(int argc, char **argv)
{
    /* in every process: an interrupted save leaves no temporary file */
    cli_catch_signals();
    /* --merge and --report need no MPI: decided before MPI_Init, so that
     * they run without mpiexec (and do not start MPI under it) */
    if (postproc_requested(argc, argv))
        return postproc_main(argc, argv);
    MPI_Init(&argc, &argv);
    int status = run(argc, argv);
    MPI_Finalize();
    return status;
}
