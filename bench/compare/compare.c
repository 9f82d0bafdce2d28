/*
 * compare.c - cube_bench's measurement against a plain fixed-iteration loop
 * (the evidence that its numbers are right).
 *
 *   mpiexec -n 2 bench_compare [-p PARAMFILE] [--iters N] [--warmup N]
 *                              [--max-size BYTES] [--merges K]
 *
 * The same operations (the ping-pong MPI_Send/MPI_Recv, half a round trip;
 * MPI_Bcast of bytes and MPI_Allreduce of floats with MPI_SUM, the root's
 * time) are measured two ways in one run, size by size:
 *
 *   cube_bench  measure_run() of bench/measure.c, unchanged: its warm-up,
 *               single measurements under the robust standard-error control
 *               decided on rank 0, the dummy time subtracted.  The settings
 *               are those the shipped bench/default.par gives each suite.
 *   the loop    what OSU and IMB do: 1000 untimed warm-up iterations, then
 *               10000 timed iterations: the ping-pong's timed as a whole (as
 *               osu_latency times them; its median is then the mean), the
 *               collectives' each with MPI_Wtime and an untimed MPI_Barrier
 *               after it (as osu_bcast), reported as mean and median.
 *
 * This machine flips between a fast and a slow latency mode for seconds to
 * minutes, so a comparison of two separate
 * runs can be off by 3.5x at small sizes with neither tool at fault.  Both
 * sides therefore measure each size back to back, in alternating order, and
 * a 1-byte probe before each size records the mode the pair saw.
 *
 * Besides the sweep: the first value of a fresh process at 1 KiB and 64 KiB
 * against the warm value, a contiguous cube_bench sweep timed as a whole,
 * and repeated merges (weighted median by repetitions) of three cube_bench
 * measurements at 64 KiB and 1 MiB spread over the run.  Rank 0 prints a
 * table and one PASS/MISS line per target (the limits below).
 *
 * Exactly two ranks: the targets are for two ranks on this 2-core machine,
 * and MPICH busy-polls, so a third rank would make every figure a
 * scheduling artefact (milliseconds per collective).
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "merge.h"
#include "measure.h"
#include "params.h"
#include "util.h"

/* --- what is measured ------------------------------------------------------ */

enum { OP_PINGPONG, OP_BCAST, OP_ALLREDUCE, NOPS };

static const struct {
    const char *name;
    bench_type type;
} ops[NOPS] = {
    {"pingpong", BENCH_TYPE_PINGPONG_SEND_RECV},
    {"bcast", BENCH_TYPE_BCAST},
    {"allreduce", BENCH_TYPE_ALLREDUCE},
};

enum { MAX_SIZES = 31 };    /* 1 B .. 1 GiB; the default sweep has 23 */
enum { TAG = 7 };
enum { WARM_REPS = 3 };     /* warm measurements after each fresh one */
enum { MAX_MERGES = 5 };    /* merges of 3 runs at 64 KiB and 1 MiB */
enum { PROBE_WARM = 20, PROBE_TIMED = 101 };

/* The accepted bands: the ping-pong within 0.95-1.05 of the loop, the
 * collectives (the mean over ranks) within 0.90-1.10. */
#define RATIO_TOL_P2P 0.05
#define RATIO_TOL_COLL 0.10
#define FEWER_OPS 10.0      /* every executed operation: at most 1/10 of OSU's */
/* OSU 7.4's defaults per size: osu_latency 10 000 timed + 100 warm-up
 * iterations up to 8 KiB, 1 000 + 10 above (OSU switches when the size
 * exceeds 8192); the collectives 1 000 + 100, the count the targets name
 * at every size (OSU itself runs 100 + 10 above 8 KiB there) */
#define OSU_LARGE 8192L
#define SWEEP_LIMIT 0.5     /* seconds for the 23-size sweep */
#define FRESH_LIMIT 1.15    /* fresh / warm */
#define MERGE_SPREAD 0.10   /* merged values within +-10 % of their median */
/* The modes by the 1-byte half round trip: on the 2-vCPU VM this was
 * tuned on, small-message latency flips between a fast phase (0.13-0.25 us)
 * and a slow one (0.65-0.75 us) for seconds to minutes; runs also sat at
 * 0.33-0.40 us for many minutes, so that level is told apart too ("mid"). */
#define FAST_MODE_LIMIT 0.3e-6
#define SLOW_MODE_LIMIT 0.5e-6

/* --- the run ---------------------------------------------------------------- */

typedef struct {
    double time;      /* rank 0's reported value (the CUBE `time` metric), s */
    double avg;       /* the mean over ranks of each rank's own value with its
                         clock reading (time_mean_ranks + dummy_time), s */
    long samples;     /* timed operations: single measurements x operations each */
    long count, inner, warm_ops;
    long ops;         /* every operation executed: warm-up and timed (the CUBE ops metric) */
    asec_stop stop;
    double wall;      /* rank 0: the whole measurement (warm-up, dummy, decisions), s */
} cb_value;

typedef struct {
    double median, mean; /* rank 0's per-iteration time, s */
    double avg;          /* the mean over ranks of each rank's mean (OSU, IMB t_avg) */
    long samples;        /* timed iterations */
    long warm;           /* untimed iterations before */
    double wall;         /* rank 0: warm-up and timed iterations, s */
} loop_value;

typedef struct {
    long len;
    double probe;        /* 1-byte half round trip just before the pair, s */
    int cb_first;
    cb_value cb;
    loop_value lp;
} row;

typedef struct {
    long iters, warmup, max_size;
    int merges;
    const char *params;
} options;

typedef struct {
    bench_ctx ctx;
    int rank;
    options o;
    MPI_Comm cb_comm, loop_comm; /* each side on its own communicator */
    bench_state st[NOPS];
    asec *a[NOPS];
    asec_params ap[NOPS];
    double *starts;              /* rank 0: room for max_rep start times */
    char *lsbuf, *lrbuf;         /* the loop's own buffers */
    double *times;               /* the loop's per-iteration times */
} run_state;

/* Sorts x. */
static double median_of(double *x, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(x, n, sizeof *x, bench_cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
}

/* The merge of three runs: cube_bench's weighted median by repetitions,
 * the rule of `cube_bench --merge` (merge.h: the lower weighted median).  Note what the weights do under standard-error control: every
 * run stops at the same relative standard error, so a run with more
 * repetitions is not a more precise one but a noisier one, and it pulls the
 * merge towards itself. */
static double merge3(const double *v, const double *w)
{
    size_t k = cube_bench_weighted_median(v, w, 3);
    return k == (size_t)-1 ? NAN : v[k];
}

static const char *size_name(long len, char *buf, size_t n)
{
    if (len >= 1048576L && len % 1048576L == 0)
        snprintf(buf, n, "%ld MiB", len / 1048576L);
    else if (len >= 1024 && len % 1024 == 0)
        snprintf(buf, n, "%ld KiB", len / 1024);
    else
        snprintf(buf, n, "%ld B", len);
    return buf;
}

/* One cube_bench measurement at `len`: exactly what a suite does at one
 * argument (suite.c's measure_cb), minus the refinement around it. */
static int cb_measure(run_state *R, int op, long len, cb_value *v)
{
    bench_state *s = &R->st[op];
    s->comm = R->cb_comm;
    s->rank = R->rank;
    s->size = 2;
    s->partner = 1;
    bench_state_set_len(s, len);
    measure_result r;
    double t0 = MPI_Wtime();
    int rc = measure_run(&R->ctx, s, R->a[op], R->starts, &r);
    double t1 = MPI_Wtime();

    /* the mean over ranks as OSU prints it: each call's time with the
     * clock reading in it, which cube_bench subtracts as its dummy time */
    double mine[2] = {r.raw, rc != 0}, all[4] = {0, 0, 0, 0};
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, R->cb_comm);
    memset(v, 0, sizeof *v);
    v->time = r.time;
    v->avg = (all[0] + all[2]) / 2.0;
    v->count = r.count;
    v->inner = r.inner;
    v->samples = r.count * r.inner;
    v->warm_ops = r.warm_ops;
    v->ops = r.ops;
    v->stop = r.stop;
    v->wall = t1 - t0;
    int bad = R->rank == 0 && (all[1] != 0.0 || all[3] != 0.0);
    MPI_Bcast(&bad, 1, MPI_INT, 0, R->cb_comm);
    return bad ? -1 : 0;
}

/* The fixed-iteration loop, written out as OSU 7.4 writes it (no code of
 * cube_bench's): a barrier, `warmup` untimed iterations, `iters` timed
 * ones: the ping-pong's as a whole, the collectives' each on its own, so
 * that their mean (what OSU and IMB print) and median come from the same
 * samples. */
static void loop_measure(run_state *R, int op, long len, loop_value *v)
{
    MPI_Comm c = R->loop_comm;
    const int n = (int)len;
    const int count = (int)((len + (long)sizeof(float) - 1) / (long)sizeof(float));
    const long total = R->o.warmup + R->o.iters, w = R->o.warmup;
    double *t = R->times;
    long nt = R->o.iters;

    MPI_Barrier(c);
    double w0 = MPI_Wtime();
    switch (op) {
    case OP_PINGPONG:
        /* as osu_latency: the clock read before and after the timed
         * iterations only (a reading inside each would add its 20-30 ns to
         * a 0.13 us half round trip); so every iteration gets the mean */
        if (R->rank == 0) {
            double t0 = 0.0;
            for (long i = 0; i < total; i++) {
                if (i == w)
                    t0 = MPI_Wtime();
                MPI_Send(R->lsbuf, n, MPI_BYTE, 1, TAG, c);
                MPI_Recv(R->lrbuf, n, MPI_BYTE, 1, TAG, c, MPI_STATUS_IGNORE);
            }
            double each = (MPI_Wtime() - t0) / 2.0 / (double)nt;
            for (long i = 0; i < nt; i++)
                t[i] = each;
        } else {
            for (long i = 0; i < total; i++) {
                MPI_Recv(R->lrbuf, n, MPI_BYTE, 0, TAG, c, MPI_STATUS_IGNORE);
                MPI_Send(R->lsbuf, n, MPI_BYTE, 0, TAG, c);
            }
            nt = 0; /* the partner only answers: rank 0's time is the result */
        }
        break;
    case OP_BCAST:
        for (long i = 0; i < total; i++) {
            double t0 = MPI_Wtime();
            MPI_Bcast(R->lsbuf, n, MPI_BYTE, 0, c);
            double t1 = MPI_Wtime();
            MPI_Barrier(c); /* OSU, IMB -sync on: the next op starts together */
            if (i >= w)
                t[i - w] = t1 - t0;
        }
        break;
    default:
        for (long i = 0; i < total; i++) {
            double t0 = MPI_Wtime();
            MPI_Allreduce(R->lsbuf, R->lrbuf, count, MPI_FLOAT, MPI_SUM, c);
            double t1 = MPI_Wtime();
            MPI_Barrier(c);
            if (i >= w)
                t[i - w] = t1 - t0;
        }
        break;
    }
    double w1 = MPI_Wtime();

    double sum = 0.0;
    for (long i = 0; i < nt; i++)
        sum += t[i];
    double mine = nt > 0 ? sum / (double)nt : 0.0, all[2] = {0, 0};
    memset(v, 0, sizeof *v);
    v->mean = mine;
    v->median = median_of(t, (size_t)nt);
    v->samples = R->o.iters;
    v->warm = R->o.warmup;
    v->wall = w1 - w0;
    MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, c);
    v->avg = op == OP_PINGPONG ? mine : (all[0] + all[1]) / 2.0;
}

/* Which mode the machine is in right now: the median of 101 one-byte round
 * trips (after 20 untimed ones), halved.  A fraction of a millisecond. */
static double probe_1b(run_state *R)
{
    MPI_Comm c = R->loop_comm;
    double t[PROBE_TIMED];
    MPI_Barrier(c);
    for (int i = 0; i < PROBE_WARM + PROBE_TIMED; i++) {
        if (R->rank == 0) {
            double t0 = MPI_Wtime();
            MPI_Send(R->lsbuf, 1, MPI_BYTE, 1, TAG + 1, c);
            MPI_Recv(R->lrbuf, 1, MPI_BYTE, 1, TAG + 1, c, MPI_STATUS_IGNORE);
            if (i >= PROBE_WARM)
                t[i - PROBE_WARM] = (MPI_Wtime() - t0) / 2.0;
        } else {
            MPI_Recv(R->lrbuf, 1, MPI_BYTE, 0, TAG + 1, c, MPI_STATUS_IGNORE);
            MPI_Send(R->lsbuf, 1, MPI_BYTE, 0, TAG + 1, c);
        }
    }
    return R->rank == 0 ? median_of(t, PROBE_TIMED) : 0.0;
}

static const char *mode_of(double probe)
{
    return probe < FAST_MODE_LIMIT ? "fast" : probe > SLOW_MODE_LIMIT ? "slow" : "mid";
}

/* --- set-up ------------------------------------------------------------------- */

static const char usage_text[] =
    "usage: mpiexec -n 2 bench_compare [-p PARAMFILE] [--iters N] [--warmup N]\n"
    "                                  [--max-size BYTES] [--merges K]\n"
    "\n"
    "Measure ping-pong, Bcast and Allreduce with cube_bench's measurement and with\n"
    "a fixed-iteration loop, interleaved, and check the targets.\n"
    "\n"
    "  -p, --params FILE   cube_bench settings per suite (default bench/default.par)\n"
    "      --iters N       timed iterations of the loop (default 10000)\n"
    "      --warmup N      untimed iterations of the loop (default 1000)\n"
    "      --max-size B    the largest message, a power of two (default 4194304)\n"
    "      --merges K      merges of 3 cube_bench runs at 64 KiB and 1 MiB (default 5)\n"
    "  -h, --help          this text\n";

/* 0, 1 (help: exit 0), or 2 (usage error, said by rank 0). */
static int parse_options(int rank, int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"params", required_argument, NULL, 'p'}, {"iters", required_argument, NULL, 'i'},
        {"warmup", required_argument, NULL, 'w'}, {"max-size", required_argument, NULL, 's'},
        {"merges", required_argument, NULL, 'm'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    o->iters = 10000;
    o->warmup = 1000;
    o->max_size = 4194304L;
    o->merges = 5;
    o->params = "bench/default.par";
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":p:h", longopts, NULL)) != -1) {
        char *end = NULL;
        long val = 0;
        if (ch == 'i' || ch == 'w' || ch == 's' || ch == 'm') {
            long lo = ch == 'w' ? 0 : 1;
            long hi = ch == 'm' ? MAX_MERGES : ch == 's' ? 1L << (MAX_SIZES - 1) : 100000000L;
            const char *name = ch == 'i'   ? "iters"
                               : ch == 'w' ? "warmup"
                               : ch == 's' ? "max-size"
                                           : "merges";
            val = strtol(optarg, &end, 10);
            if (end == optarg || *end != '\0' || val < lo || val > hi) {
                bench_say("bench_compare", rank, "option --%s: expected a number from %ld to %ld, found '%s'", name, lo,
                    hi, optarg);
                return 2;
            }
        }
        switch (ch) {
        case 'p':
            o->params = optarg;
            break;
        case 'i':
            o->iters = val;
            break;
        case 'w':
            o->warmup = val;
            break;
        case 's':
            if (val & (val - 1)) {
                bench_say("bench_compare", rank, "option --max-size: expected a power of two, found %ld", val);
                return 2;
            }
            o->max_size = val;
            break;
        case 'm':
            o->merges = (int)val;
            break;
        case 'h':
            return 1;
        case ':':
            bench_say("bench_compare", rank, "option %s needs an argument", argv[optind - 1]);
            return 2;
        default:
            bench_say("bench_compare", rank, "unknown option %s (see --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        bench_say("bench_compare", rank, "unexpected argument '%s' (see --help)", argv[optind]);
        return 2;
    }
    return 0;
}

/* The settings cube_bench would use for each operation's suite in the
 * parameter file (the first suite of that type; its file's defaults when
 * there is none).  Every rank reads the file: 0, or -1 with a message. */
static int load_settings(const char *path, asec_params ap[NOPS], char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    while (text) {
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        char *grown = realloc(text, cap * 2);
        if (!grown) {
            free(text);
            text = NULL;
            break;
        }
        text = grown;
        cap *= 2;
    }
    fclose(f);
    if (!text) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    bench_params bp;
    int rc = params_parse(text, len, path, &bp, err, errlen);
    free(text);
    if (rc != 0)
        return -1;
    for (int k = 0; k < NOPS; k++) {
        ap[k].min_rep = bp.min_rep_default;
        ap[k].max_rep = bp.max_rep_default;
        ap[k].rel_std_error = bp.standard_error_default;
        ap[k].time_limit = bp.time_meas_default;
        ap[k].cut_quantile = bp.cut_quantile_default;
        for (size_t i = 0; i < bp.n_suites; i++)
            if (bp.suites[i].type == ops[k].type) {
                params_suite_asec(&bp.suites[i], &ap[k]);
                break;
            }
    }
    params_free(&bp);
    return 0;
}

/* 1 when ok holds on every rank. */
static int all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* Every page written (untouched pages are the shared zero page and make a
 * 1 MiB ping-pong look about 25 % faster), with floats of 1.0 as cube_bench
 * fills its reduction buffers: ordinary numbers, so Allreduce costs what it
 * costs for real data, and the same for the byte messages (their content
 * does not matter to MPI, only that the pages are real). */
static void fill(char *buf, size_t n)
{
    const float one = 1.0f;
    for (size_t i = 0; i + sizeof one <= n; i += sizeof one)
        memcpy(buf + i, &one, sizeof one);
}

static int setup(run_state *R)
{
    int ok = 1;
    for (int k = 0; k < NOPS; k++) {
        const bench_op *op = bench_op_of(ops[k].type);
        ok = ok && op && bench_state_alloc(&R->st[k], op, 2, R->o.max_size) == 0;
        R->a[k] = ok ? asec_create(&R->ap[k]) : NULL;
        ok = ok && R->a[k];
    }
    int max_rep = 1;
    for (int k = 0; k < NOPS; k++)
        if (R->ap[k].max_rep > max_rep)
            max_rep = R->ap[k].max_rep;
    if (R->rank == 0)
        R->starts = malloc((size_t)max_rep * sizeof *R->starts);
    size_t lb = (size_t)R->o.max_size;
    R->lsbuf = malloc(lb);
    R->lrbuf = malloc(lb);
    R->times = malloc((size_t)R->o.iters * sizeof *R->times);
    ok = ok && (R->rank != 0 || R->starts) && R->lsbuf && R->lrbuf && R->times;
    if (R->lsbuf && R->lrbuf) {
        fill(R->lsbuf, lb);
        fill(R->lrbuf, lb);
    }
    return all_ok(ok) ? 0 : -1;
}

static void teardown(run_state *R)
{
    for (int k = 0; k < NOPS; k++) {
        if (R->st[k].op)
            bench_state_free(&R->st[k]);
        if (R->a[k])
            asec_free(R->a[k]);
    }
    free(R->starts);
    free(R->lsbuf);
    free(R->lrbuf);
    free(R->times);
}

/* --- output ------------------------------------------------------------------ */

static void print_header(const run_state *R, int nsizes)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int ll = 0;
    MPI_Get_library_version(lib, &ll);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = '\0';
    const asec_params *p = &R->ap[OP_PINGPONG];
    char big[32];
    printf("# bench/compare: cube_bench's measurement vs a fixed-iteration loop, 2 ranks, %s\n",
           lib);
    printf("# cube_bench (%s): min_rep %d, max_rep %d, rel. SE %g of the %g-trimmed mean,"
           " time limit %g s per measurement; warm-up %ld..%ld ops or %g ms\n",
           R->o.params, p->min_rep, p->max_rep, p->rel_std_error, p->cut_quantile,
           p->time_limit, R->ctx.warm_min_ops, R->ctx.warm_max_ops, R->ctx.warm_time * 1e3);
    for (int k = 1; k < NOPS; k++) {
        const asec_params *q = &R->ap[k];
        if (q->min_rep != p->min_rep || q->max_rep != p->max_rep ||
            q->rel_std_error != p->rel_std_error || q->cut_quantile != p->cut_quantile ||
            q->time_limit != p->time_limit)
            printf("#   %s: min_rep %d, max_rep %d, rel. SE %g, cut %g, time limit %g s\n",
                   ops[k].name, q->min_rep, q->max_rep, q->rel_std_error, q->cut_quantile,
                   q->time_limit);
    }
    printf("# loop: %ld warm-up + %ld timed iterations; ping-pong timed as a whole (as"
           " osu_latency), collectives each timed with an untimed MPI_Barrier after it\n",
           R->o.warmup, R->o.iters);
    /* one clock reading is inside every timed collective of the loop (as in
     * osu_bcast), while cube_bench subtracts it as its dummy time: at
     * 0.2-0.4 us that alone is 7-15 % of the ratio, so cb_avg adds it back */
    printf("# MPI_Wtime: %.1f ns per call (rank 0); in each collective call's time of the loop;"
           " cube_bench subtracts it (dummy time), cb_avg adds it back\n",
           R->ctx.clock.call_cost * 1e9);
    printf("# %d sizes 1 B..%s; per size and operation both sides back to back, the order"
           " alternating; allreduce: floats, 1-3 B rounded up to one float\n",
           nsizes, size_name(R->o.max_size, big, sizeof big));
    printf("# times in us: cube_bench = rank 0's value (the CUBE time metric);"
           " r_med, r_mean = cube_bench / loop median, mean;\n"
           "# *_avg = mean over ranks (OSU's and IMB's t_avg; cb_avg = time_mean_ranks +"
           " dummy_time); probe = 1-byte half round trip"
           " just before the pair (fast < %.2f us < mid < %.2f us < slow);\n"
           "# cb_n = timed operations (single measurements x operations in each), cb_wu ="
           " warm-up operations; fewer = OSU's default operations / (cb_n + cb_wu)\n",
           FAST_MODE_LIMIT * 1e6, SLOW_MODE_LIMIT * 1e6);
    printf("%-9s %8s %4s %6s %9s %9s %9s %6s %6s %9s %9s %6s %5s %5s %6s %6s %9s %8s %9s %5s\n",
           "op", "size", "mode", "probe", "cb_us", "loop_med", "loop_mean", "r_med", "r_mean",
           "cb_avg", "loop_avg", "r_avg", "cb_n", "cb_wu", "loop_n", "fewer", "cb_stop",
           "cb_ms", "loop_ms", "first");
    fflush(stdout);
}

/* The operations OSU 7.4 runs at one size by default (above). */
static long osu_ops(int op, long len)
{
    if (op == OP_PINGPONG)
        return len <= OSU_LARGE ? 10100 : 1010;
    return 1100;
}

static void print_row(int op, const row *w)
{
    const cb_value *c = &w->cb;
    const loop_value *l = &w->lp;
    char ravg[16] = "-", cavg[16] = "-", lavg[16] = "-";
    if (op != OP_PINGPONG) {
        snprintf(cavg, sizeof cavg, "%.4g", c->avg * 1e6);
        snprintf(lavg, sizeof lavg, "%.4g", l->avg * 1e6);
        snprintf(ravg, sizeof ravg, "%.3f", c->avg / l->avg);
    }
    printf("%-9s %8ld %4s %6.3f %9.4g %9.4g %9.4g %6.3f %6.3f %9s %9s %6s %5ld %5ld %6ld %6.0f"
           " %9s %8.2f %9.1f %5s\n",
           ops[op].name, w->len, mode_of(w->probe), w->probe * 1e6, c->time * 1e6,
           l->median * 1e6, l->mean * 1e6, c->time / l->median, c->time / l->mean, cavg, lavg,
           ravg, c->samples, c->warm_ops, l->samples, (double)osu_ops(op, w->len) / (double)c->ops,
           asec_stop_name(c->stop), c->wall * 1e3, l->wall * 1e3, w->cb_first ? "cb" : "loop");
    fflush(stdout);
}

static const char *verdict(int pass)
{
    return pass ? "PASS" : "MISS";
}

/* The ratio target for one column of one operation.  which: 0 median, 1
 * mean, 2 average over ranks. */
static void summary_ratio(int op, const row *rows, int nsizes, int which)
{
    static const char *const what[] = {"loop median", "loop mean", "loop avg over ranks"};
    int in = 0, worst = -1;
    double worst_dev = -1.0;
    for (int i = 0; i < nsizes; i++) {
        const row *w = &rows[i];
        double ratio = which == 0   ? w->cb.time / w->lp.median
                       : which == 1 ? w->cb.time / w->lp.mean
                                    : w->cb.avg / w->lp.avg;
        double tol = op == OP_PINGPONG ? RATIO_TOL_P2P : RATIO_TOL_COLL;
        double dev = fabs(ratio - 1.0);
        if (dev <= tol)
            in++;
        /* the worst by how far outside its own band */
        if (worst < 0 || dev - tol > worst_dev) {
            worst_dev = dev - tol;
            worst = i;
        }
    }
    const row *w = &rows[worst];
    double r = which == 0 ? w->cb.time / w->lp.median
               : which == 1 ? w->cb.time / w->lp.mean
                            : w->cb.avg / w->lp.avg;
    char sz[32];
    printf("# %s ratio %-9s vs %-19s %2d/%d sizes in band; worst %.3f at %s (%s mode)\n",
           verdict(in == nsizes), ops[op].name, what[which], in, nsizes, r,
           size_name(w->len, sz, sizeof sz), mode_of(w->probe));
}

static void summary_samples(int op, const row *rows, int nsizes)
{
    /* every operation cube_bench executed for the size (warm-up, timed
     * ones inside batches; the dummy time runs none) against OSU's */
    int in = 0, worst = -1;
    double worst_fewer = 0.0;
    for (int i = 0; i < nsizes; i++) {
        const row *w = &rows[i];
        double fewer = (double)osu_ops(op, w->len) / (double)w->cb.ops;
        if (fewer >= FEWER_OPS)
            in++;
        if (worst < 0 || fewer < worst_fewer) {
            worst_fewer = fewer;
            worst = i;
        }
    }
    char sz[32];
    printf("# %s ops     %-9s %2d/%d sizes with at most 1/%.0f of OSU's operations (all"
           " executed ones); worst %.1fx fewer at %s (%ld vs %ld)\n",
           verdict(in == nsizes), ops[op].name, in, nsizes, FEWER_OPS, worst_fewer,
           size_name(rows[worst].len, sz, sizeof sz), rows[worst].cb.ops,
           osu_ops(op, rows[worst].len));
}

/* --- main ------------------------------------------------------------------ */

typedef struct {
    double value[2 * 3 * MAX_MERGES]; /* [2 * rep + m]: m = 0 64 KiB, 1 1 MiB */
    double weight[2 * 3 * MAX_MERGES];
} merge_reps;

static int run(run_state *R)
{
    const options *o = &R->o;
    int nsizes = 0;
    while (nsizes < MAX_SIZES && (1L << nsizes) <= o->max_size)
        nsizes++;
    row rows[NOPS][MAX_SIZES];
    memset(rows, 0, sizeof rows);
    if (R->rank == 0)
        print_header(R, nsizes);

    /* 1. Fresh values, before anything else is measured at their sizes.
     * A cube_bench run finds the ping-pong partner first (one-byte round
     * trips, p2p_find_partners) before its first ping-pong suite; so does
     * this run, so that "fresh" means what it means for cube_bench. */
    if (p2p_find_partners(&R->ctx) != 0)
        return -1;
    static const long fresh_len[2] = {1024, 65536};
    double fresh[2] = {0, 0}, warm[2] = {0, 0}, fresh_probe[2][2] = {{0, 0}, {0, 0}};
    for (int f = 0; f < 2; f++) {
        if (fresh_len[f] > o->max_size)
            continue;
        cb_value v;
        fresh_probe[f][0] = probe_1b(R);
        if (cb_measure(R, OP_PINGPONG, fresh_len[f], &v) != 0)
            return -1;
        fresh[f] = v.time;
        double w[WARM_REPS];
        for (int k = 0; k < WARM_REPS; k++) {
            if (cb_measure(R, OP_PINGPONG, fresh_len[f], &v) != 0)
                return -1;
            w[k] = v.time;
        }
        warm[f] = median_of(w, WARM_REPS);
        /* the mode before and after: a flip in between would show here */
        fresh_probe[f][1] = probe_1b(R);
    }

    /* 2. A contiguous cube_bench sweep over all sizes, timed as a whole:
     * what one Pingpong_Send_Recv suite over these sizes costs (without
     * the MPI start-up and the output, which run.sh times with the real
     * cube_bench). */
    double sweep_wall = 0.0, sweep_sum = 0.0;
    long sweep_samples = 0;
    {
        MPI_Barrier(R->cb_comm);
        double t0 = MPI_Wtime();
        for (int i = 0; i < nsizes; i++) {
            cb_value v;
            if (cb_measure(R, OP_PINGPONG, 1L << i, &v) != 0)
                return -1;
            sweep_sum += v.wall;
            sweep_samples += v.samples + v.warm_ops;
        }
        sweep_wall = MPI_Wtime() - t0;
    }

    /* 3. The interleaved sweep, with the merge repetitions spread over it:
     * a merge of three runs is only worth something if the runs saw
     * different moments of the machine, so the 3 x K measurements at
     * 64 KiB and 1 MiB are taken between sizes, evenly over the sweep. */
    merge_reps mr;
    memset(&mr, 0, sizeof mr);
    int nreps = 3 * o->merges, done = 0;
    int do_merge = o->max_size >= 1048576L;
    for (int i = 0; i < nsizes; i++) {
        long len = 1L << i;
        double probe = probe_1b(R);
        for (int op = 0; op < NOPS; op++) {
            row *w = &rows[op][i];
            w->len = len;
            w->probe = probe;
            w->cb_first = (i + op) % 2 == 0;
            for (int side = 0; side < 2; side++) {
                if ((side == 0) == w->cb_first) {
                    if (cb_measure(R, op, len, &w->cb) != 0)
                        return -1;
                } else {
                    loop_measure(R, op, len, &w->lp);
                }
            }
            if (R->rank == 0)
                print_row(op, w);
        }
        while (do_merge && done < nreps * (i + 1) / nsizes) {
            cb_value v;
            for (int m = 0; m < 2; m++) {
                if (cb_measure(R, OP_PINGPONG, m ? 1048576L : 65536L, &v) != 0)
                    return -1;
                mr.value[2 * done + m] = v.time;
                mr.weight[2 * done + m] = (double)v.count;
            }
            done++;
        }
    }
    if (R->rank != 0)
        return 0;

    /* --- the targets --- */
    char sz[32];
    printf("#\n# targets\n");
    for (int op = 0; op < NOPS; op++) {
        summary_ratio(op, rows[op], nsizes, 0);
        summary_ratio(op, rows[op], nsizes, 1);
        if (op != OP_PINGPONG)
            summary_ratio(op, rows[op], nsizes, 2);
    }
    for (int op = 0; op < NOPS; op++)
        summary_samples(op, rows[op], nsizes);

    double cb_sum = 0.0, loop_sum = 0.0;
    for (int i = 0; i < nsizes; i++) {
        cb_sum += rows[OP_PINGPONG][i].cb.wall;
        loop_sum += rows[OP_PINGPONG][i].lp.wall;
    }
    printf("# %s sweep     pingpong  %d sizes in %.3f s contiguous (target %.1f s; %ld operations"
           " incl. warm-up; measurements %.3f s of it); interleaved: cube_bench %.3f s,"
           " loop %.2f s (%.0fx)\n",
           verdict(sweep_wall <= SWEEP_LIMIT), nsizes, sweep_wall, SWEEP_LIMIT, sweep_samples,
           sweep_sum, cb_sum, loop_sum, loop_sum / cb_sum);

    for (int f = 0; f < 2; f++) {
        if (fresh_len[f] > o->max_size)
            continue;
        double r = fresh[f] / warm[f];
        printf("# %s fresh     pingpong  %s: first value %.4g us, warm %.4g us (median of %d"
               " right after): %.3fx (target <= %.2fx; mode %s before, %s after)\n",
               verdict(r <= FRESH_LIMIT), size_name(fresh_len[f], sz, sizeof sz),
               fresh[f] * 1e6, warm[f] * 1e6, WARM_REPS, r, FRESH_LIMIT,
               mode_of(fresh_probe[f][0]), mode_of(fresh_probe[f][1]));
    }

    if (do_merge && o->merges > 0) {
        for (int m = 0; m < 2; m++) {
            double merged[MAX_MERGES], single[3 * MAX_MERGES];
            int K = o->merges;
            for (int k = 0; k < K; k++) {
                double v[3], wt[3];
                for (int j = 0; j < 3; j++) {
                    v[j] = mr.value[2 * (3 * k + j) + m];
                    wt[j] = mr.weight[2 * (3 * k + j) + m];
                }
                merged[k] = merge3(v, wt);
            }
            for (int j = 0; j < 3 * K; j++)
                single[j] = mr.value[2 * j + m];
            double mm[MAX_MERGES];
            memcpy(mm, merged, (size_t)K * sizeof *mm);
            double med = median_of(mm, (size_t)K), dev = 0.0;
            double lo = merged[0], hi = merged[0];
            for (int k = 0; k < K; k++) {
                double d = fabs(merged[k] - med) / med;
                dev = d > dev ? d : dev;
                lo = merged[k] < lo ? merged[k] : lo;
                hi = merged[k] > hi ? merged[k] : hi;
            }
            double smed = median_of(single, (size_t)(3 * K)), sdev = 0.0;
            for (int j = 0; j < 3 * K; j++) {
                double d = fabs(single[j] - smed) / smed;
                sdev = d > sdev ? d : sdev;
            }
            printf("# %s merge     pingpong  %s: %d merges of 3 measurements in this process"
                   " (libcube's weighted median by reps): %.4g..%.4g us, within +-%.1f %% of"
                   " their median %.4g us (target %.0f %%); single ones +-%.1f %%\n",
                   verdict(dev <= MERGE_SPREAD), size_name(m ? 1048576L : 65536L, sz, sizeof sz),
                   K, lo * 1e6, hi * 1e6, dev * 100.0, med * 1e6, MERGE_SPREAD * 100.0,
                   sdev * 100.0);
        }
    }
    int fast = 0, slow = 0;
    double plo = rows[0][0].probe, phi = plo;
    for (int i = 0; i < nsizes; i++) {
        double p = rows[0][i].probe;
        fast += p < FAST_MODE_LIMIT;
        slow += p > SLOW_MODE_LIMIT;
        plo = p < plo ? p : plo;
        phi = p > phi ? p : phi;
    }
    printf("# mode before each size: fast %d, mid %d, slow %d of %d (1-byte probe %.3f..%.3f us);"
           " each pair is compared within the mode it saw\n",
           fast, nsizes - fast - slow, slow, nsizes, plo * 1e6, phi * 1e6);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run_state R;
    memset(&R, 0, sizeof R);
    int size = 0, status = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &R.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    status = parse_options(R.rank, argc, argv, &R.o);
    if (status == 1) {
        if (R.rank == 0)
            fputs(usage_text, stdout);
        MPI_Finalize();
        return 0;
    }
    if (status == 0 && size != 2) {
        bench_say("bench_compare", R.rank, "expected 2 ranks (mpiexec -n 2), found %d", size);
        status = 2;
    }
    char err[1024] = "";
    if (status == 0 && !all_ok(load_settings(R.o.params, R.ap, err, sizeof err) == 0)) {
        bench_say("bench_compare", R.rank, "%s", err[0] ? err : "a rank could not read the parameter file");
        status = 2;
    }
    if (status != 0) {
        MPI_Finalize();
        return status;
    }
    if (bench_ctx_init(&R.ctx) != 0) {
        bench_say("bench_compare", R.rank, "out of memory");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &R.cb_comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &R.loop_comm);
    if (setup(&R) != 0 || run(&R) != 0) {
        bench_say("bench_compare", R.rank, "out of memory");
        status = 2;
    }
    teardown(&R);
    MPI_Comm_free(&R.cb_comm);
    MPI_Comm_free(&R.loop_comm);
    bench_ctx_free(&R.ctx);
    MPI_Finalize();
    return status;
}
