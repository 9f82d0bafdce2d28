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

static int run(int argc, char **argv)
{
    bench_ctx ctx;
    if (bench_ctx_init(&ctx) != 0) {
        int r = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        bench_say("cube_bench", r, "out of memory");
        return 2;
    }
    options o;
    int status = parse_options(ctx.rank, argc, argv, &o);
    if (status == 0 && (o.help || o.version)) {
        if (ctx.rank == 0) {
            if (o.help)
                fputs(usage_text, stdout);
            else
                printf("cube_bench %s (libcube %s)\n", CUBE_BENCH_VERSION, cube_version());
        }
        bench_ctx_free(&ctx);
        return 0;
    }
    if (status != 0) {
        bench_ctx_free(&ctx);
        return status;
    }

    char *text = NULL, *pname = NULL, *cmdline = NULL, *stat_path = NULL, *logpath = NULL;
    char *history = NULL;
    char **names = NULL;
    size_t len = 0, nsuites = 0;
    bench_params bp;
    memset(&bp, 0, sizeof bp);
    int parsed = 0;
    suite_result *results = NULL;
    resume_saved *saved = NULL;
    char err[2048] = "";
    status = get_params_text(&ctx, &o, argv[0], &text, &len, &pname);
    if (status != 0)
        goto out;

    /* every rank parses the same text and finds the same errors */
    int prc = params_parse(text, len, pname, &bp, err, sizeof err), anybad = 0;
    parsed = prc == 0;
    int bad = prc != 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        bench_say("cube_bench", ctx.rank, "%s", bad ? err : "a rank could not parse the parameter file");
        status = 2;
        goto out;
    }
    for (size_t i = 0; i < bp.n_suites; i++) {
        int skip = 0;
        if (suite_check(&ctx, &bp, &bp.suites[i], pname, &skip, err, sizeof err) != 0) {
            bench_say("cube_bench", ctx.rank, "%s", err);
            status = 2;
            goto out;
        }
    }
    /* the run's identity for resuming and merging: the file's bytes */
    char checksum[RESUME_CHECKSUM_SIZE];
    resume_checksum(text, len, checksum);

    const char *outpath = o.output ? o.output : bp.outfile ? bp.outfile : DEFAULT_OUTPUT;
    /* the log: -l, @LOGFILE, else beside the output (none for "-") */
    const char *loggiven = o.log ? o.log : bp.logfile;
    logpath = loggiven ? strdup(loggiven) : resume_log_path(outpath);
    long keep = 0, stop_after = 0;
    int ok = 1;
    if (ctx.rank == 0) {
        ok = output_dir_ok(outpath, err, sizeof err);
        stat_path = output_stat_path(outpath);
        cmdline = join_args(argc, argv);
        if (ok && (!cmdline || (strcmp(outpath, "-") != 0 && (!stat_path || !logpath)) ||
                   (loggiven && !logpath))) {
            snprintf(err, sizeof err, "out of memory");
            ok = 0;
        }
        if (ok && (stop_after = stop_after_hook()) < 0) {
            snprintf(err, sizeof err, "CUBE_BENCH_STOP_AFTER: expected a number of suites "
                                      "(1 or more), found '%s'",
                     getenv("CUBE_BENCH_STOP_AFTER"));
            ok = 0;
        }
        if (ok && (keep = find_unfinished(&o, logpath, outpath, checksum, ctx.size, bp.n_suites,
                                          err, sizeof err)) < 0)
            ok = 0;
        if (ok && keep > 0) {
            saved = resume_load(outpath, stat_path, checksum, ctx.size, (size_t)keep, err,
                                sizeof err);
            if (!saved) {
                char why[sizeof err];
                memcpy(why, err, sizeof err);
                snprintf(err, sizeof err,
                         "cannot continue the unfinished run of %s: %.1800s (--restart starts "
                         "over)",
                         logpath, why);
                ok = 0;
            }
        }
        if (ok && logpath) {
            /* a continued run adds to its log; a new one starts it */
            ctx.log = strcmp(logpath, "-") == 0 ? stderr : bench_fopen(logpath, keep > 0 ? "a" : "w");
            if (!ctx.log) {
                snprintf(err, sizeof err, "%s: %s", logpath, strerror(errno));
                ok = 0;
            }
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        bench_say("cube_bench", ctx.rank, "%s", err);
        status = 2;
        goto out;
    }
    long hook[2] = {keep, stop_after};
    MPI_Bcast(hook, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    keep = hook[0];
    stop_after = hook[1];

    results = calloc(bp.n_suites ? bp.n_suites : 1, sizeof *results);
    if (!all_ranks_ok(ctx.rank, results != NULL, NULL)) {
        status = 2;
        goto out;
    }
    if (keep > 0) {
        /* the partners the run found stay its partners: every ping-pong
         * of one run measures with the same rank */
        double pv[4] = {-1, 0, -1, 0};
        if (ctx.rank == 0) {
            int pmax, pmin;
            resume_partners(saved, &pmax, &pv[1], &pmin, &pv[3]);
            pv[0] = pmax;
            pv[2] = pmin;
        }
        MPI_Bcast(pv, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (pv[0] >= 0 && pv[2] >= 0) {
            ctx.partner_max = (int)pv[0];
            ctx.latency_max = pv[1];
            ctx.partner_min = (int)pv[2];
            ctx.latency_min = pv[3];
        }
        int good = 1;
        for (size_t i = 0; i < (size_t)keep && good; i++) {
            nsuites = i + 1;
            good = suite_plan_result(&ctx, &bp, &bp.suites[i], &results[i], err,
                                     sizeof err) == 0;
            if (good && ctx.rank == 0)
                good = resume_fill(saved, i, &results[i], ctx.size, err, sizeof err) == 0;
        }
        int all = 0;
        MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all) {
            bench_say("cube_bench", ctx.rank, "cannot continue the unfinished run of %s: %s (--restart starts over)",
                logpath, good ? "out of memory" : err);
            status = 2;
            goto out;
        }
    }

    /* who runs where: one node of the system tree per processor name */
    char me[MPI_MAX_PROCESSOR_NAME + 1];
    int ml = 0;
    memset(me, 0, sizeof me);
    MPI_Get_processor_name(me, &ml);
    char *all_names = ctx.rank == 0 ? calloc((size_t)ctx.size, sizeof me) : NULL;
    names = ctx.rank == 0 ? calloc((size_t)ctx.size, sizeof *names) : NULL;
    if (!all_ranks_ok(ctx.rank, ctx.rank != 0 || (all_names && names), NULL)) {
        free(all_names);
        status = 2;
        goto out;
    }
    MPI_Gather(me, (int)sizeof me, MPI_CHAR, all_names, (int)sizeof me, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (ctx.rank == 0)
        for (int r = 0; r < ctx.size; r++)
            names[r] = all_names + (size_t)r * sizeof me;

    char start[64], started[64], libv[MPI_MAX_LIBRARY_VERSION_STRING + 1], mpiv[32];
    now_iso(start, sizeof start);
    /* a continued run started when its first part did */
    snprintf(started, sizeof started, "%s",
             saved && resume_start_time(saved) ? resume_start_time(saved) : start);
    if (saved) {
        const char *before = resume_history(saved);
        size_t hn = (before ? strlen(before) : 0) + 128;
        /* out of memory here costs the attribute "resumed" only */
        history = malloc(hn);
        if (history)
            snprintf(history, hn, "%s%safter %ld of %zu suites at %s", before ? before : "",
                     before ? "; " : "", keep, bp.n_suites, start);
    }
    int lvlen = 0, vmaj = 0, vmin = 0;
    memset(libv, 0, sizeof libv);
    MPI_Get_library_version(libv, &lvlen);
    /* the first lines name the library; MPICH goes on with its whole
     * configure line, which is no use in an attribute */
    {
        char *q = libv;
        for (int lines = 0; q && lines < 4; lines++)
            if ((q = strchr(q, '\n')) != NULL)
                q++;
        if (q)
            *q = '\0';
    }
    MPI_Get_version(&vmaj, &vmin);
    snprintf(mpiv, sizeof mpiv, "%d.%d", vmaj, vmin);
    if (ctx.log) {
        size_t k = strcspn(libv, "\n");
        if (keep > 0) /* what came before is the first part of this run */
            fputc('\n', ctx.log);
        fprintf(ctx.log, "cube_bench %s on %d processes, %.*s, MPI %s\n", CUBE_BENCH_VERSION,
                ctx.size, (int)k, libv, mpiv);
        fprintf(ctx.log, "parameter file %s, %zu suites; output %s; start %s\n", pname,
                bp.n_suites, outpath, start);
        fprintf(ctx.log, "clock: MPI_Wtick %.3g s, resolution %.3g s, MPI_Wtime call %.3g s\n",
                ctx.clock.tick, bclock_resolution(&ctx.clock), ctx.clock.call_cost);
        resume_log_start(ctx.log, checksum, ctx.size, bp.n_suites, outpath);
        if (keep > 0) {
            fprintf(ctx.log, "resumed: %ld of %zu suites kept from %s%s%s (the run started %s)",
                    keep, bp.n_suites, outpath, stat_path ? " and " : "",
                    stat_path ? stat_path : "", started);
            if ((size_t)keep < bp.n_suites)
                fprintf(ctx.log, "; measuring from suite %ld (%s)\n", keep + 1,
                        bp.suites[keep].name);
            else
                fprintf(ctx.log, "; nothing left to measure\n");
        }
        fflush(ctx.log);
    }

    run_output ro;
    memset(&ro, 0, sizeof ro);
    ro.ctx = &ctx;
    ro.bp = &bp;
    ro.results = results;
    ro.outpath = outpath;
    ro.stat_path = stat_path;
    ro.info = (output_info){.param_file = pname,
                            .command_line = cmdline,
                            .start_time = started,
                            .mpi_library = libv,
                            .mpi_version = mpiv,
                            .proc_names = names,
                            .param_checksum = checksum,
                            .suites_total = bp.n_suites,
                            .resumed = history};
    /* standard output cannot be rewritten: it gets the whole run at the end */
    int save_each = strcmp(outpath, "-") != 0;
    for (size_t i = (size_t)keep; i < bp.n_suites; i++) {
        if (suite_run(&ctx, &bp, &bp.suites[i], &results[i], err, sizeof err) != 0) {
            nsuites = i + 1;
            bench_say("cube_bench", ctx.rank, "%s", err);
            status = 2;
            break;
        }
        nsuites = i + 1;
        if (results[i].skipped)
            bench_say("cube_bench", ctx.rank, "warning: suite %s skipped: %s", bp.suites[i].name,
                results[i].skipped);
        if (save_each) {
            if ((status = save_run(&ro, i + 1, 1, err, sizeof err)) != 0)
                break;
        } else if (ctx.rank == 0 && ctx.log) {
            resume_log_done(ctx.log, i + 1, bp.n_suites, bp.suites[i].name, NULL, NULL, 0.0);
        }
        if (stop_after > 0 && i + 1 == (size_t)stop_after) {
            bench_say("cube_bench", ctx.rank, "stopped after suite %zu of %zu (CUBE_BENCH_STOP_AFTER, a test hook)",
                i + 1, bp.n_suites);
            status = 3;
            break;
        }
    }
    if (status == 0) {
        /* the last save after a suite was the whole run; otherwise
         * (standard output, no suites, nothing left to measure) write it */
        size_t measured = bp.n_suites - (size_t)keep;
        if (!save_each || measured == 0)
            status = save_run(&ro, bp.n_suites, 0, err, sizeof err);
        if (status == 0 && ctx.rank == 0 && ctx.log) {
            fprintf(ctx.log, "run complete: %zu of %zu suites, end %s (%.3f s); wrote %s%s%s\n",
                    bp.n_suites, bp.n_suites, ro.end, MPI_Wtime() - ctx.t_start, outpath,
                    stat_path ? " and " : "", stat_path ? stat_path : "");
            fflush(ctx.log);
        }
    }
    free(all_names);

out:
    if (results)
        for (size_t i = 0; i < nsuites; i++)
            suite_result_free(&results[i]);
    free(results);
    free(names);
    resume_saved_free(saved);
    if (parsed)
        params_free(&bp);
    if (ctx.log && ctx.log != stderr)
        fclose(ctx.log);
    free(text);
    free(pname);
    free(cmdline);
    free(stat_path);
    free(logpath);
    free(history);
    bench_ctx_free(&ctx);
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
