/*
 * mw.c - the master-worker pattern (SKaMPI's mw_pattern): rank 0 hands
 * out `chunks` pieces of work of `len` bytes to the other ranks, each
 * worker answers every piece with a result of `len` bytes and gets the next
 * piece, and when all results are in every worker gets a stop message.  One
 * iteration is that whole job, timed on the master (and on each worker from
 * its first receive to the stop).  The operations differ in how the master
 * waits for the next result: MPI_Waitsome or MPI_Waitany over one posted
 * receive per worker, or MPI_Recv from MPI_ANY_SOURCE.
 */
#include "bench.h"

enum { TAG_WORK = 2, TAG_RESULT = 3, TAG_STOP = 4 };
enum { WAIT_SOME, WAIT_ANY, RECV_ANY };

/* The result slot of worker r (1..size-1) in the master's receive buffer. */
static char *slot(bench_state *s, int r)
{
    return s->rbuf + (size_t)(r - 1) * (size_t)s->len;
}

static void post(bench_state *s, int r, int how)
{
    if (how != RECV_ANY)
        MPI_Irecv(slot(s, r), (int)s->len, MPI_BYTE, r, TAG_RESULT, s->comm, &s->reqs[r - 1]);
}

static void master_job(bench_state *s, int how)
{
    int workers = s->size - 1, n = (int)s->len;
    long sent = 0, done = 0;
    for (int r = 1; r <= workers; r++)
        s->reqs[r - 1] = MPI_REQUEST_NULL;
    for (int r = 1; r <= workers && sent < s->chunks; r++) {
        post(s, r, how);
        MPI_Send(s->sbuf, n, MPI_BYTE, r, TAG_WORK, s->comm);
        sent++;
    }
    while (done < sent) {
        int ready = 0;
        if (how == WAIT_SOME) {
            MPI_Waitsome(workers, s->reqs, &ready, s->indices, s->statuses);
            for (int k = 0; k < ready; k++)
                s->indices[k] += 1; /* request k belongs to worker k + 1 */
        } else if (how == WAIT_ANY) {
            int idx;
            MPI_Waitany(workers, s->reqs, &idx, MPI_STATUS_IGNORE);
            s->indices[0] = idx + 1;
            ready = 1;
        } else {
            MPI_Status st;
            MPI_Recv(s->rbuf, n, MPI_BYTE, MPI_ANY_SOURCE, TAG_RESULT, s->comm, &st);
            s->indices[0] = st.MPI_SOURCE;
            ready = 1;
        }
        for (int k = 0; k < ready; k++) {
            int r = s->indices[k];
            done++;
            if (sent < s->chunks) {
                post(s, r, how);
                MPI_Send(s->sbuf, n, MPI_BYTE, r, TAG_WORK, s->comm);
                sent++;
            }
        }
    }
    for (int r = 1; r <= workers; r++)
        MPI_Send(s->sbuf, 0, MPI_BYTE, r, TAG_STOP, s->comm);
}

static void worker_job(bench_state *s)
{
    for (;;) {
        MPI_Status st;
        MPI_Recv(s->rbuf, (int)s->len, MPI_BYTE, 0, MPI_ANY_TAG, s->comm, &st);
        if (st.MPI_TAG == TAG_STOP)
            return;
        MPI_Send(s->sbuf, (int)s->len, MPI_BYTE, 0, TAG_RESULT, s->comm);
    }
}

static void run(bench_state *s, long iters, int how)
{
    for (long i = 0; i < iters; i++) {
        if (s->rank == 0)
            master_job(s, how);
        else
            worker_job(s);
    }
}

static void mw_waitsome(bench_state *s, long iters) { run(s, iters, WAIT_SOME); }
static void mw_waitany(bench_state *s, long iters) { run(s, iters, WAIT_ANY); }
static void mw_recv_any(bench_state *s, long iters) { run(s, iters, RECV_ANY); }

/* The master's receive buffer holds one result per worker. */
#define MW(var, type, fn)                                                                    \
    static const bench_op var = {type, fn, 1.0, BUF_ONE, BUF_PER_RANK, 0, 0}
MW(op_waitsome, BENCH_TYPE_MW_WAITSOME, mw_waitsome);
MW(op_waitany, BENCH_TYPE_MW_WAITANY, mw_waitany);
MW(op_recv_any, BENCH_TYPE_MW_RECV_ANY, mw_recv_any);

const bench_op *const bench_mw_ops[] = {&op_waitsome, &op_waitany, &op_recv_any, NULL};
