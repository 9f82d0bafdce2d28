/*
 * p2p.c - the point-to-point pattern: ping-pongs between rank 0 and one
 * partner (SKaMPI's p2p_pattern, p2p_find_max_min).
 *
 * One iteration is one round trip; rank 0 and the partner both time their
 * side.  The reported time is half the round trip (divisor 2), the time of
 * one message, which is what osu_latency and IMB PingPong report too.  For
 * Sendrecv both ranks send at once, so one exchange already is the time of
 * one message (divisor 1).
 */
#include "bench.h"
#include "util.h"

#include <stdlib.h>

enum { TAG = 1 };

static void pp_send_recv(bench_state *s, long iters)
{
    int n = (int)s->len;
    if (s->rank == 0) {
        for (long i = 0; i < iters; i++) {
            MPI_Send(s->sbuf, n, MPI_BYTE, s->partner, TAG, s->comm);
            MPI_Recv(s->rbuf, n, MPI_BYTE, s->partner, TAG, s->comm, MPI_STATUS_IGNORE);
        }
    } else {
        for (long i = 0; i < iters; i++) {
            MPI_Recv(s->rbuf, n, MPI_BYTE, 0, TAG, s->comm, MPI_STATUS_IGNORE);
            MPI_Send(s->sbuf, n, MPI_BYTE, 0, TAG, s->comm);
        }
    }
}

static void pp_ssend_recv(bench_state *s, long iters)
{
    int n = (int)s->len;
    if (s->rank == 0) {
        for (long i = 0; i < iters; i++) {
            MPI_Ssend(s->sbuf, n, MPI_BYTE, s->partner, TAG, s->comm);
            MPI_Recv(s->rbuf, n, MPI_BYTE, s->partner, TAG, s->comm, MPI_STATUS_IGNORE);
        }
    } else {
        for (long i = 0; i < iters; i++) {
            MPI_Recv(s->rbuf, n, MPI_BYTE, 0, TAG, s->comm, MPI_STATUS_IGNORE);
            MPI_Ssend(s->sbuf, n, MPI_BYTE, 0, TAG, s->comm);
        }
    }
}

static void pp_isend_recv(bench_state *s, long iters)
{
    int n = (int)s->len;
    int peer = s->rank == 0 ? s->partner : 0;
    MPI_Request req;
    for (long i = 0; i < iters; i++) {
        if (s->rank == 0) {
            MPI_Isend(s->sbuf, n, MPI_BYTE, peer, TAG, s->comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            MPI_Recv(s->rbuf, n, MPI_BYTE, peer, TAG, s->comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(s->rbuf, n, MPI_BYTE, peer, TAG, s->comm, MPI_STATUS_IGNORE);
            MPI_Isend(s->sbuf, n, MPI_BYTE, peer, TAG, s->comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }
}

/* The attached buffer holds the one message in flight: the next Bsend
 * comes only after the reply, which the partner sends after receiving. */
static void pp_bsend_recv(bench_state *s, long iters)
{
    int n = (int)s->len;
    if (s->rank == 0) {
        for (long i = 0; i < iters; i++) {
            MPI_Bsend(s->sbuf, n, MPI_BYTE, s->partner, TAG, s->comm);
            MPI_Recv(s->rbuf, n, MPI_BYTE, s->partner, TAG, s->comm, MPI_STATUS_IGNORE);
        }
    } else {
        for (long i = 0; i < iters; i++) {
            MPI_Recv(s->rbuf, n, MPI_BYTE, 0, TAG, s->comm, MPI_STATUS_IGNORE);
            MPI_Bsend(s->sbuf, n, MPI_BYTE, 0, TAG, s->comm);
        }
    }
}

static void pp_sendrecv(bench_state *s, long iters)
{
    int n = (int)s->len;
    int peer = s->rank == 0 ? s->partner : 0;
    for (long i = 0; i < iters; i++)
        MPI_Sendrecv(s->sbuf, n, MPI_BYTE, peer, TAG, s->rbuf, n, MPI_BYTE, peer, TAG, s->comm,
                     MPI_STATUS_IGNORE);
}

/* The receive is posted before the send on both sides, so the message can
 * land in place instead of in an unexpected-message queue. */
static void pp_irecv_send(bench_state *s, long iters)
{
    int n = (int)s->len;
    int peer = s->rank == 0 ? s->partner : 0;
    MPI_Request req;
    for (long i = 0; i < iters; i++) {
        MPI_Irecv(s->rbuf, n, MPI_BYTE, peer, TAG, s->comm, &req);
        if (s->rank == 0) {
            MPI_Send(s->sbuf, n, MPI_BYTE, peer, TAG, s->comm);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            MPI_Send(s->sbuf, n, MPI_BYTE, peer, TAG, s->comm);
        }
    }
}

/* SKaMPI's example of how to add a measurement (MPI_Send): rank 0 sends, the
 * partner receives, no reply; rank 0's time is the cost of the send (for
 * short messages that is the eager send's local cost, not a latency). */
static void ping_send(bench_state *s, long iters)
{
    int n = (int)s->len;
    for (long i = 0; i < iters; i++) {
        if (s->rank == 0)
            MPI_Send(s->sbuf, n, MPI_BYTE, s->partner, TAG, s->comm);
        else
            MPI_Recv(s->rbuf, n, MPI_BYTE, 0, TAG, s->comm, MPI_STATUS_IGNORE);
    }
}

#define PP(var, type, fn, div)                                                               \
    static const bench_op var = {type, fn, div, BUF_ONE, BUF_ONE, 0, 0}
PP(op_send_recv, BENCH_TYPE_PINGPONG_SEND_RECV, pp_send_recv, 2.0);
PP(op_ssend_recv, BENCH_TYPE_PINGPONG_SSEND_RECV, pp_ssend_recv, 2.0);
PP(op_isend_recv, BENCH_TYPE_PINGPONG_ISEND_RECV, pp_isend_recv, 2.0);
PP(op_bsend_recv, BENCH_TYPE_PINGPONG_BSEND_RECV, pp_bsend_recv, 2.0);
PP(op_sendrecv, BENCH_TYPE_PINGPONG_SENDRECV, pp_sendrecv, 1.0);
PP(op_irecv_send, BENCH_TYPE_PINGPONG_IRECV_SEND, pp_irecv_send, 2.0);
PP(op_ping_send, BENCH_TYPE_PING_SEND, ping_send, 1.0);

const bench_op *const bench_p2p_ops[] = {&op_send_recv,  &op_ssend_recv, &op_isend_recv,
                                         &op_bsend_recv, &op_sendrecv,   &op_irecv_send,
                                         &op_ping_send,  NULL};

/* Latency to each partner: a short warm-up (the first message on a new
 * connection costs microseconds to milliseconds), then single timed round
 * trips of one byte; the median, so that one preemption cannot pick the
 * partner.  Every rank knows the same fixed counts, so no other agreement
 * is needed. */
int p2p_find_partners(bench_ctx *ctx)
{
    enum { WARM = 32, TIMED = 64 };
    double lat[2] = {0.0, 0.0};
    int part[2] = {-1, -1};
    char ping = 1, pong = 0;
    double *t = ctx->rank == 0 ? malloc(TIMED * sizeof *t) : NULL;
    int ok = ctx->rank != 0 || t != NULL;
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        free(t);
        return -1;
    }
    for (int r = 1; r < ctx->size; r++) {
        if (ctx->rank == 0) {
            for (int i = 0; i < WARM + TIMED; i++) {
                double t0 = MPI_Wtime();
                MPI_Send(&ping, 1, MPI_BYTE, r, TAG, MPI_COMM_WORLD);
                MPI_Recv(&pong, 1, MPI_BYTE, r, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (i >= WARM)
                    t[i - WARM] = (MPI_Wtime() - t0) / 2.0;
            }
            qsort(t, TIMED, sizeof *t, bench_cmp_double);
            double med = (t[TIMED / 2 - 1] + t[TIMED / 2]) / 2.0;
            if (part[0] < 0 || med > lat[0]) {
                part[0] = r;
                lat[0] = med;
            }
            if (part[1] < 0 || med < lat[1]) {
                part[1] = r;
                lat[1] = med;
            }
        } else if (ctx->rank == r) {
            for (int i = 0; i < WARM + TIMED; i++) {
                MPI_Recv(&pong, 1, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&ping, 1, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
            }
        }
    }
    free(t);
    double msg[4] = {(double)part[0], (double)part[1], lat[0], lat[1]};
    bench_bcast(ctx, msg, 4, MPI_DOUBLE, 1);
    ctx->partner_max = (int)msg[0];
    ctx->partner_min = (int)msg[1];
    ctx->latency_max = msg[2];
    ctx->latency_min = msg[3];
    return 0;
}
