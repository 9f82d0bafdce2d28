/*
 * measure.c - one measurement: warm-up, single measurements under rank 0's
 * control, the result (SKaMPI's pattern layer).
 */
#include "measure.h"

#include <string.h>

/* The tag of the partner's "ready" message (no pattern uses it). */
#define MEASURE_READY_TAG 4711

/* Run n operations and return the seconds they are timed for: the whole
 * run, or for an operation with sync_each the sum of each call's own time,
 * each call started right after an untimed barrier (the steady state of
 * OSU's loop, whose barrier follows each call).  Each call's reading is
 * off by less than the clock's quantum either way, independently of the
 * others', so the sum carries no bias from it, only a spread that the
 * standard error sees; the clock rule asks the sum to hold 100 quanta as it
 * asks a whole run to. */
static double timed_ops(bench_state *s, long n)
{
    if (!s->op->sync_each) {
        double t0 = MPI_Wtime();
        s->op->run(s, n);
        return MPI_Wtime() - t0;
    }
    double sum = 0.0;
    for (long i = 0; i < n; i++) {
        MPI_Barrier(s->comm);
        double t0 = MPI_Wtime();
        s->op->run(s, 1);
        sum += MPI_Wtime() - t0;
    }
    return sum;
}

/* Put every rank of the measurement at the start line before rank 0
 * reads the clock.  The "go" broadcast does not: its root leaves it before
 * the others have taken it in, so rank 0's first operation would also time
 * their way out of it (a ping arriving at a partner still inside MPI_Bcast
 * makes the round trip up to 9 % shorter than back-to-back ping-pongs, a
 * collective waits for the late ranks).  A ping-pong's partner sends an
 * empty "ready" message; a sync_each operation's calls start after a
 * barrier anyway; the others take one. */
static void start_line(bench_state *s, int p2p)
{
    if (p2p && s->rank != 0)
        MPI_Send(NULL, 0, MPI_BYTE, 0, MEASURE_READY_TAG, s->comm);
    else if (p2p)
        MPI_Recv(NULL, 0, MPI_BYTE, s->partner, MEASURE_READY_TAG, s->comm, MPI_STATUS_IGNORE);
    else if (!s->op->sync_each)
        MPI_Barrier(s->comm);
}

/* The warm-up (SKaMPI: "we warm up the cache by a dummy call of the
 * measurement routine before actually starting to measure").  One call is
 * not enough here: the first messages of a size class touch fresh pages of
 * the transport (cold repetitions at 128 B - 2 KiB cost about 10x more
 * with MPICH over UCX shared memory), so the operation runs in the rounds
 * of quantum.h's warm_plan.  Rank 0 decides after each round and
 * broadcasts, so every rank runs the same rounds; its plan's longest round
 * also decides how many operations one single measurement needs. */
static void warm_up(bench_ctx *ctx, bench_state *s, long *warm_ops, long *inner)
{
    warm_plan plan;
    warm_plan_init(&plan, ctx->warm_min_ops, ctx->warm_max_ops, ctx->warm_time);
    long n = 1;
    long msg[2] = {1, 1}; /* run another round of msg[1] operations / inner */
    double start = MPI_Wtime();
    for (;;) {
        double t = timed_ops(s, n);
        /* every rank keeps the count; rank 0's times decide */
        long next = warm_plan_next(&plan, n, t, MPI_Wtime() - start);
        if (s->rank == 0) {
            msg[0] = next > 0;
            msg[1] = next > 0 ? next
                              : warm_plan_inner(&plan, &ctx->clock, ctx->inner_rel, ctx->inner_cap);
        }
        MPI_Bcast(msg, 2, MPI_LONG, 0, s->comm);
        if (!msg[0])
            break;
        n = msg[1];
    }
    *warm_ops = plan.total;
    *inner = msg[1];
}

/* Keep the MEASURE_SLOWEST largest single measurements (rank 0). */
static void note_slowest(measure_result *r, double enter, double exit, double duration)
{
    size_t k = r->num_slowest;
    if (k == MEASURE_SLOWEST) {
        if (duration <= r->slowest[k - 1].duration)
            return;
        k--;
    } else {
        r->num_slowest++;
    }
    while (k > 0 && r->slowest[k - 1].duration < duration) {
        r->slowest[k] = r->slowest[k - 1];
        k--;
    }
    r->slowest[k].enter = enter;
    r->slowest[k].exit = exit;
    r->slowest[k].duration = duration;
}

int measure_run(bench_ctx *ctx, bench_state *s, asec *a, double *starts, measure_result *r)
{
    memset(r, 0, sizeof *r);
    warm_up(ctx, s, &r->warm_ops, &r->inner);
    /* the dummy time of what one operation's time holds besides the
     * operation: a share of one pair of clock readings, or a whole pair
     * when each call is timed on its own */
    double dummy = 0.0, dummy_se = 0.0;
    int rc = bench_dummy_for(ctx, s->op->sync_each ? 1 : r->inner, &dummy, &dummy_se);

    asec_reset(a);
    int go = 1;
    long count = 0;
    double start = MPI_Wtime(), last = start;
    const double inner = (double)r->inner;
    size_t ntypes;
    const int p2p = bench_type_list(&ntypes)[s->op->type].pattern == BENCH_PATTERN_P2P;
    for (;;) {
        /* also the synchronisation after the local dummy measurement */
        MPI_Bcast(&go, 1, MPI_INT, 0, s->comm);
        if (!go)
            break;
        start_line(s, p2p);
        double t0 = MPI_Wtime();
        double t = timed_ops(s, r->inner);
        double t1 = MPI_Wtime();
        int full = asec_add_at(a, t / inner, t1 - start) != 0;
        if (s->rank == 0) {
            if (!full && starts)
                starts[count] = t0 - ctx->t_start;
            count++;
            last = t1;
            go = !(full || asec_done(a, t1 - start));
        }
    }

    asec_result ar;
    asec_get_result(a, &ar);
    const double div = s->op->divisor;
    r->raw = ar.mean / div;
    r->time = (ar.mean - dummy) / div;
    r->std_error = ar.std_error / div;
    r->dummy = dummy / div;
    r->dummy_se = dummy_se / div;
    r->count = (long)ar.count;
    r->ops = r->warm_ops + r->count * r->inner;
    r->kept = (long)ar.kept;
    r->mean_all = (ar.mean_all - dummy) / div;
    r->median = (ar.median - dummy) / div;
    r->min = (ar.min - dummy) / div;
    r->max = (ar.max - dummy) / div;
    r->q25 = (ar.q25 - dummy) / div;
    r->q75 = (ar.q75 - dummy) / div;
    r->sum = (ar.sum - (double)ar.count * dummy) / div;
    r->variance = ar.variance / (div * div);
    if (s->rank == 0) {
        r->elapsed = last - start;
        r->stop = asec_stop_reason(a, r->elapsed);
        size_t n = 0;
        const double *x = asec_samples(a, &n);
        for (size_t i = 0; starts && i < n; i++)
            note_slowest(r, starts[i], starts[i] + x[i] * inner, (x[i] - dummy) / div);
    }
    return rc;
}
