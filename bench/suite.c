/*
 * suite.c - one suite: what it measures at each argument, the refinement
 * over the arguments (refine_run, deterministic given the values, so every
 * rank runs it with rank 0's broadcast results and takes the same
 * decisions), the per-rank results and the log.
 */
#include "suite.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* How a suite is run: its variation as taken, the argument range, the
 * largest communicator and message its buffers must hold. */
typedef struct {
    const bench_op *op;
    bench_variation var;
    long min_arg, max_arg;   /* what the run allows for the varied argument */
    refine_params rp;
    int max_size;            /* ranks of the largest communicator */
    long max_len;            /* bytes of the largest message */
    int clamped;             /* End_Argument was lowered to max_arg */
} suite_plan;

static void logf_(bench_ctx *ctx, const char *fmt, ...)
{
    if (ctx->rank != 0 || !ctx->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(ctx->log, fmt, ap);
    va_end(ap);
}

/* Buffer bytes per byte of message length on `size` ranks (what @MEMORY
 * must hold per byte of the largest message). */
static long bytes_per_len(const bench_op *op, int size)
{
    long u = 0;
    u += op->sbuf == BUF_ONE ? 1 : op->sbuf == BUF_PER_RANK ? size : 0;
    u += op->rbuf == BUF_ONE ? 1 : op->rbuf == BUF_PER_RANK ? size : 0;
    if (op->type == BENCH_TYPE_PINGPONG_BSEND_RECV)
        u += 2;
    return u > 0 ? u : 1;
}

static int line_of(const bench_suite *def, bench_key k)
{
    return def->key_line[k] ? def->key_line[k] : def->line;
}

/* The plan of a suite, or -1 with a message (error), or 1 with a reason
 * (the run has too few processes: skip). */
static int make_plan(const bench_ctx *ctx, const bench_params *bp, const bench_suite *def,
                     const char *file, suite_plan *pl, char *err, size_t errlen)
{
    memset(pl, 0, sizeof *pl);
    pl->op = bench_op_of(def->type);
    if (!pl->op) {
        bench_err(err, errlen, "%s:%d: expected a measurement type cube_bench implements, found %s",
               file, line_of(def, BENCH_KEY_TYPE), bench_type_name(def->type));
        return -1;
    }
    bench_pattern pat = def->pattern;
    pl->var = def->variation;
    /* a simple call has nothing to vary: without a Variation key it is
     * No_Variation, whatever the parser's default */
    if (pat == BENCH_PATTERN_SIMPLE && !(def->given & (1u << BENCH_KEY_VARIATION)))
        pl->var = BENCH_VAR_NONE;
    static const char *const allowed[] = {
        [BENCH_PATTERN_P2P] = "Length or No_Variation",
        [BENCH_PATTERN_COLLECTIVE] = "Length, Nodes or No_Variation",
        [BENCH_PATTERN_MW] = "Length, Nodes, Chunks or No_Variation",
        [BENCH_PATTERN_SIMPLE] = "No_Variation",
    };
    int ok = pl->var == BENCH_VAR_NONE ||
             (pl->var == BENCH_VAR_LENGTH && pat != BENCH_PATTERN_SIMPLE) ||
             (pl->var == BENCH_VAR_NODES &&
              (pat == BENCH_PATTERN_COLLECTIVE || pat == BENCH_PATTERN_MW)) ||
             (pl->var == BENCH_VAR_CHUNKS && pat == BENCH_PATTERN_MW);
    if (!ok) {
        bench_err(err, errlen, "%s:%d: expected Variation = %s for %s (a %s measurement), found %s",
               file, line_of(def, BENCH_KEY_VARIATION), allowed[pat],
               bench_type_name(def->type), bench_pattern_name(pat),
               bench_variation_name(pl->var));
        return -1;
    }

    int P = ctx->size;
    int need = pat == BENCH_PATTERN_P2P || pat == BENCH_PATTERN_MW ? 2 : 1;
    if (P < need) {
        bench_err(err, errlen, "%s (%s) needs at least %d processes, the run has %d", def->name,
               bench_type_name(def->type), need, P);
        return 1;
    }
    int size = pat == BENCH_PATTERN_P2P ? 2 : P;
    pl->max_size = size;
    pl->max_len = def->default_msglen;
    switch (pl->var) {
    case BENCH_VAR_LENGTH: {
        /* Max_Value: the longest message whose buffers fit in @MEMORY,
         * and MPI counts are ints */
        long per = bytes_per_len(pl->op, size);
        long long mem = (long long)bp->memory_kib * 1024LL / per;
        long long cap = (long long)INT_MAX / (pat == BENCH_PATTERN_P2P ? 1 : size);
        pl->min_arg = 0;
        pl->max_arg = (long)(mem < cap ? mem : cap);
        break;
    }
    case BENCH_VAR_NODES:
        pl->min_arg = pat == BENCH_PATTERN_MW ? 2 : 1;
        pl->max_arg = P;
        break;
    case BENCH_VAR_CHUNKS:
        /* Max_Value: 64 pieces per worker is far into the regime where
         * the master's waiting dominates */
        pl->min_arg = 1;
        pl->max_arg = 64L * (P - 1);
        break;
    default:
        pl->min_arg = pl->max_arg = 0;
        break;
    }
    if (pl->var != BENCH_VAR_LENGTH && def->default_msglen > (long)INT_MAX / size) {
        bench_err(err, errlen, "%s:%d: expected Default_Message_length of at most %ld, found %ld",
               file, line_of(def, BENCH_KEY_DEFAULT_MESSAGE_LENGTH), (long)INT_MAX / size,
               def->default_msglen);
        return -1;
    }
    if (pl->var == BENCH_VAR_NONE)
        return 0;

    params_suite_refine(def, pl->max_arg, &pl->rp);
    if (pl->rp.x_start < (double)pl->min_arg)
        pl->rp.x_start = (double)pl->min_arg;
    if (pl->rp.x_end > (double)pl->max_arg) {
        pl->rp.x_end = (double)pl->max_arg;
        pl->clamped = !def->end_is_max;
    }
    if (pl->rp.x_start > pl->rp.x_end) {
        if (pl->var == BENCH_VAR_NODES) {
            bench_err(err, errlen, "%s needs communicators of at least %.0f processes, the run has %d",
                   def->name, pl->rp.x_start, P);
            return 1;
        }
        bench_err(err, errlen, "%s:%d: expected Start_Argument of at most %.0f, found %ld", file,
               line_of(def, BENCH_KEY_START_ARGUMENT), pl->rp.x_end, def->start_arg);
        return -1;
    }
    char why[256];
    if (refine_check(&pl->rp, why, sizeof why) != 0) {
        bench_err(err, errlen, "%s:%d: %s", file, def->line, why);
        return -1;
    }
    if (pl->var == BENCH_VAR_LENGTH)
        pl->max_len = (long)pl->rp.x_end;
    if (pl->var == BENCH_VAR_NODES)
        pl->max_size = (int)pl->rp.x_end;
    return 0;
}

int suite_check(const bench_ctx *ctx, const bench_params *bp, const bench_suite *def,
                const char *filename, int *skip, char *err, size_t errlen)
{
    suite_plan pl;
    int rc = make_plan(ctx, bp, def, filename, &pl, err, errlen);
    *skip = rc == 1;
    return rc < 0 ? -1 : 0;
}

char *suite_arg_name(const suite_result *r, long arg, char *buf, size_t size)
{
    switch (r->var) {
    case BENCH_VAR_LENGTH:
        snprintf(buf, size, "len=%ld", arg);
        break;
    case BENCH_VAR_NODES:
        snprintf(buf, size, "nodes=%ld", arg);
        break;
    case BENCH_VAR_CHUNKS:
        snprintf(buf, size, "chunks=%ld", arg);
        break;
    default:
        if (r->def->pattern == BENCH_PATTERN_SIMPLE) {
            size_t n;
            const bench_type_info *info = bench_type_list(&n);
            snprintf(buf, size, "%s", info[r->def->type].operation);
        } else {
            snprintf(buf, size, "len=%ld", arg);
        }
        break;
    }
    return buf;
}

/* --- running ------------------------------------------------------------ */

typedef struct {
    bench_ctx *ctx;
    const bench_suite *def;
    suite_plan *pl;
    suite_result *out;
    bench_state s;
    MPI_Comm p2p_comm;
    asec *a;
    double *starts;
    double *gathered; /* rank 0: RANK_FIELDS per rank (Node_Times) */
    int failed; /* out of memory on rank 0 */
    double t0;         /* MPI_Wtime() at the suite's start */
} suite_job;

static int add_point(suite_result *out, const suite_point *p)
{
    for (size_t i = 0; i < out->n; i++)
        if (out->points[i].arg == p->arg) { /* measured again: the later one counts */
            free(out->points[i].ranks);
            out->points[i] = *p;
            return 0;
        }
    suite_point *grown = bench_grow(out->points, out->n, &out->cap, sizeof *grown, 32);
    if (!grown)
        return -1;
    out->points = grown;
    out->points[out->n++] = *p;
    return 0;
}

static int measure_cb(void *vjob, double x, double *value, double *std_error)
{
    suite_job *j = vjob;
    bench_ctx *ctx = j->ctx;
    const bench_suite *def = j->def;
    long arg = (long)llround(x);
    int size = j->pl->max_size;
    long len = def->default_msglen;
    long workers = 0, chunks = def->default_chunks;
    MPI_Comm comm;
    switch (j->pl->var) {
    case BENCH_VAR_LENGTH:
        len = arg;
        break;
    case BENCH_VAR_NODES:
        size = (int)arg;
        break;
    case BENCH_VAR_CHUNKS:
        chunks = arg;
        break;
    default:
        break;
    }
    workers = size - 1;
    if (chunks <= 0) /* the pattern's choice: one piece per worker */
        chunks = workers > 0 ? workers : 1;
    comm = def->pattern == BENCH_PATTERN_P2P ? j->p2p_comm : bench_first_n(ctx, size);

    bench_state *s = &j->s;
    s->comm = comm;
    bench_state_set_len(s, len);
    s->chunks = chunks;
    s->partner = 1;
    measure_result r;
    memset(&r, 0, sizeof r);
    int in = comm != MPI_COMM_NULL, drc = 0;
    if (in) {
        MPI_Comm_rank(comm, &s->rank);
        MPI_Comm_size(comm, &s->size);
        /* A measurement also ends with the suite's time (rank 0's clock
         * decides, as for Time_Measurement): without that, one started
         * just before Time_Suite ran out could overrun it by a whole
         * Time_Measurement. */
        double limit = def->time_meas; /* seconds; <= 0: none */
        if (j->pl->var != BENCH_VAR_NONE && j->pl->rp.time_suite > 0.0) {
            double left = j->pl->rp.time_suite - (MPI_Wtime() - j->t0);
            if (!(limit > 0.0) || left < limit)
                limit = left > 0.0 ? left : 1e-9; /* one single measurement */
        }
        asec_set_time_limit(j->a, limit);
        drc = measure_run(ctx, s, j->a, j->starts, &r);
    }
    /* collectives: what OSU and IMB print as the average, each rank's own
     * time per call averaged over the ranks (rank 0, the root, often
     * leaves a broadcast long before the others have it) */
    int coll = def->pattern == BENCH_PATTERN_COLLECTIVE;
    double mean_ranks = 0.0;
    if (in && coll) {
        double sum = 0.0;
        MPI_Reduce(&r.time, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        mean_ranks = sum / (double)s->size;
    }
    double msg[2] = {r.time, r.std_error};
    bench_bcast(ctx, msg, 2, MPI_DOUBLE, !in);

    suite_point p;
    memset(&p, 0, sizeof p);
    if (def->node_times) {
        double mine[RANK_FIELDS] = {in, r.time, r.std_error, r.dummy};
        bench_gather(ctx, mine, j->gathered, RANK_FIELDS, !in);
        if (ctx->rank == 0) {
            size_t bytes = (size_t)ctx->size * RANK_FIELDS * sizeof *p.ranks;
            p.ranks = malloc(bytes);
            if (p.ranks)
                memcpy(p.ranks, j->gathered, bytes);
            else
                j->failed = 1;
        }
    }
    if (ctx->rank == 0) {
        p.arg = arg;
        p.res = r;
        p.comm_size = size;
        p.len = len;
        p.chunks = chunks;
        p.dummy_failed = drc != 0;
        p.has_mean_ranks = coll;
        p.mean_ranks = mean_ranks;
        if (add_point(j->out, &p) != 0) {
            free(p.ranks);
            j->failed = 1;
        }
        char name[64], t1[32], t2[32], t3[32], t4[32];
        suite_arg_name(j->out, arg, name, sizeof name);
        logf_(ctx, "  %-14s %s +- %s (%.2f %%), %ld single measurements of %ld operation%s"
                   " (%ld kept), stop: %s after %s, dummy %s, warm-up %ld operations,"
                   " %ld in all%s\n",
              name, bench_short_time(r.time, t1, sizeof t1), bench_short_time(r.std_error, t2, sizeof t2),
              r.raw != 0.0 ? 100.0 * r.std_error / fabs(r.raw) : 0.0, r.count, r.inner,
              r.inner == 1 ? "" : "s", r.kept, asec_stop_name(r.stop),
              bench_short_time(r.elapsed, t3, sizeof t3), bench_short_time(r.dummy, t4, sizeof t4),
              r.warm_ops, r.ops, drc ? " (dummy time not measured: out of memory)" : "");
    }
    *value = msg[0];
    *std_error = msg[1];
    return 0;
}

static double clock_cb(void *vjob)
{
    suite_job *j = vjob;
    double t = MPI_Wtime() - j->ctx->t_start;
    bench_bcast(j->ctx, &t, 1, MPI_DOUBLE, 0);
    return t;
}

static int cmp_point(const void *a, const void *b)
{
    long x = ((const suite_point *)a)->arg, y = ((const suite_point *)b)->arg;
    return (x > y) - (x < y);
}

/* The result's fields that follow from the parameter file and the run's
 * size alone (shared by suite_run and suite_plan_result, so that a kept
 * suite of a resumed run is described exactly like a measured one).
 * Returns make_plan's verdict: 0, or 1 (skip; out->skipped set, NULL when
 * out of memory). */
static int plan_result(const bench_ctx *ctx, const bench_params *bp, const bench_suite *def,
                       suite_plan *pl, suite_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->def = def;
    out->partner = -1;
    int rc = make_plan(ctx, bp, def, "", pl, err, errlen);
    out->op = pl->op;
    out->var = pl->var;
    if (rc != 0) { /* suite_check ran before: only a skip comes here */
        out->skipped = strdup(err);
        return 1;
    }
    out->rp = pl->rp;
    return 0;
}

int suite_plan_result(const bench_ctx *ctx, const bench_params *bp, const bench_suite *def,
                      suite_result *out, char *err, size_t errlen)
{
    suite_plan pl;
    if (plan_result(ctx, bp, def, &pl, out, err, errlen) != 0)
        return out->skipped || ctx->rank != 0 ? 0 : -1; /* the reason is rank 0's to write */
    /* the partner the run found (restored from the saved experiment) */
    if (def->pattern == BENCH_PATTERN_P2P && ctx->partner_max >= 0)
        out->partner = def->partner_min_latency ? ctx->partner_min : ctx->partner_max;
    return 0;
}

int suite_run(bench_ctx *ctx, const bench_params *bp, const bench_suite *def,
              suite_result *out, char *err, size_t errlen)
{
    suite_plan pl;
    if (plan_result(ctx, bp, def, &pl, out, err, errlen) != 0) {
        logf_(ctx, "suite %s: skipped: %s\n", def->name, err);
        return out->skipped || ctx->rank != 0 ? 0 : -1;
    }
    double t0 = MPI_Wtime();

    suite_job j;
    memset(&j, 0, sizeof j);
    j.t0 = t0;
    j.ctx = ctx;
    j.def = def;
    j.pl = &pl;
    j.out = out;
    j.p2p_comm = MPI_COMM_NULL;
    int takes_part = 1;
    if (def->pattern == BENCH_PATTERN_P2P) {
        if (ctx->partner_max < 0 && p2p_find_partners(ctx) != 0) {
            bench_err(err, errlen, "%s: out of memory", def->name);
            return -1;
        }
        out->partner = def->partner_min_latency ? ctx->partner_min : ctx->partner_max;
        takes_part = ctx->rank == 0 || ctx->rank == out->partner;
        MPI_Comm_split(MPI_COMM_WORLD, takes_part ? 0 : MPI_UNDEFINED, ctx->rank == 0 ? 0 : 1,
                       &j.p2p_comm);
    }

    /* Buffers once per suite, for its largest message and communicator. */
    asec_params ap;
    params_suite_asec(def, &ap);
    int ok = 1;
    if (takes_part)
        ok = bench_state_alloc(&j.s, pl.op, pl.max_size, pl.max_len) == 0;
    else
        j.s.op = pl.op; /* the rank only waits: no buffers */
    j.a = asec_create(&ap);
    if (ctx->rank == 0) {
        j.starts = malloc((size_t)(ap.max_rep > 0 ? ap.max_rep : 1) * sizeof *j.starts);
        j.gathered = malloc((size_t)ctx->size * RANK_FIELDS * sizeof *j.gathered);
    }
    ok = ok && j.a && (ctx->rank != 0 || (j.starts && j.gathered));
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

    if (all_ok) {
        char t1[32];
        size_t ninfo;
        const bench_type_info *info = bench_type_list(&ninfo);
        logf_(ctx, "suite %s (line %d): %s, %s, %s", def->name, def->line,
              bench_type_name(def->type), info[def->type].operation,
              bench_variation_name(pl.var));
        if (pl.var != BENCH_VAR_NONE)
            logf_(ctx, " %.0f..%.0f %s step %g", pl.rp.x_start, pl.rp.x_end,
                  refine_scale_name(pl.rp.scale), pl.rp.stepwidth);
        logf_(ctx, "; repetitions %d..%d, standard error %g, time per measurement %s",
              ap.min_rep, ap.max_rep, ap.rel_std_error, bench_short_time(ap.time_limit, t1, sizeof t1));
        if (def->pattern == BENCH_PATTERN_P2P)
            logf_(ctx, "; partner rank %d (the largest latency, %s)", out->partner,
                  bench_short_time(ctx->latency_max, t1, sizeof t1));
        logf_(ctx, "\n");
        if (pl.clamped)
            logf_(ctx, "  End_Argument %ld lowered to %ld (what @MEMORY and the run allow)\n",
                  def->end_arg, pl.max_arg);
        if (pl.var == BENCH_VAR_NONE) {
            double v, se;
            long arg = def->pattern == BENCH_PATTERN_SIMPLE ? 0 : def->default_msglen;
            measure_cb(&j, (double)arg, &v, &se);
        } else {
            /* the points are kept by measure_cb, with everything rank 0
             * knows about them; refine_run's own list is not needed */
            refine_point *pts = NULL;
            size_t npts = 0;
            if (refine_run(&pl.rp, measure_cb, clock_cb, &j, &pts, &npts) != 0)
                j.failed = 1;
            free(pts);
        }
    }
    int failed = !all_ok || j.failed, any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

    if (takes_part)
        bench_state_free(&j.s);
    if (j.a)
        asec_free(j.a);
    free(j.starts);
    free(j.gathered);
    if (j.p2p_comm != MPI_COMM_NULL)
        MPI_Comm_free(&j.p2p_comm);
    out->elapsed = MPI_Wtime() - t0;
    if (any_failed) {
        bench_err(err, errlen, "%s: out of memory", def->name);
        return -1;
    }
    if (ctx->rank == 0) {
        qsort(out->points, out->n, sizeof *out->points, cmp_point);
        char t1[32], t2[32];
        /* why the suite ended, as far as it can be told from outside
         * refine_run: its time, its step bound, or the refinement had
         * nothing left worth measuring (fixed scales: all points) */
        const char *why = pl.var == BENCH_VAR_NONE ? "one argument"
                          : pl.rp.time_suite > 0 && out->elapsed >= pl.rp.time_suite
                              ? "Time_Suite reached"
                          : (pl.rp.scale == SCALE_DYNAMIC_LINEAR ||
                             pl.rp.scale == SCALE_DYNAMIC_LOG) &&
                                  pl.rp.x_max_steps > 0 && out->n >= (size_t)pl.rp.x_max_steps
                              ? "Max_Steps reached"
                          : pl.rp.scale == SCALE_DYNAMIC_LINEAR || pl.rp.scale == SCALE_DYNAMIC_LOG
                              ? "refinement done"
                              : "all arguments";
        logf_(ctx, "  %zu arguments in %s (limit %s): %s\n", out->n,
              bench_short_time(out->elapsed, t1, sizeof t1),
              pl.var == BENCH_VAR_NONE || pl.rp.time_suite <= 0
                  ? "none"
                  : bench_short_time(pl.rp.time_suite, t2, sizeof t2),
              why);
        if (ctx->log)
            fflush(ctx->log);
    }
    return 0;
}

void suite_result_free(suite_result *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->points[i].ranks);
    free(r->points);
    free(r->skipped);
    memset(r, 0, sizeof *r);
}
