/*
 * simple.c - the simple pattern (SKaMPI's simple_pattern): the cost of
 * one local call, timed on every rank of the communicator.  These calls
 * take tens of nanoseconds, so a single measurement repeats them (clock.h).
 */
#include "bench.h"

static void s_wtime(bench_state *s, long iters)
{
    (void)s;
    /* volatile: the value must be taken, or the call could be dropped */
    volatile double sink = 0.0;
    for (long i = 0; i < iters; i++)
        sink = MPI_Wtime();
    (void)sink;
}

static void s_comm_rank(bench_state *s, long iters)
{
    volatile int sink = 0;
    for (long i = 0; i < iters; i++) {
        int r;
        MPI_Comm_rank(s->comm, &r);
        sink = r;
    }
    (void)sink;
}

/* Nothing is ever sent with this tag, so every probe finds nothing: the
 * cost of a look into the queues. */
static void s_iprobe(bench_state *s, long iters)
{
    for (long i = 0; i < iters; i++) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, s->comm, &flag, MPI_STATUS_IGNORE);
    }
}

#define SIMPLE(var, type, fn)                                                                \
    static const bench_op var = {type, fn, 1.0, BUF_NONE, BUF_NONE, 0, 0}
SIMPLE(op_wtime, BENCH_TYPE_WTIME, s_wtime);
SIMPLE(op_comm_rank, BENCH_TYPE_COMM_RANK, s_comm_rank);
SIMPLE(op_iprobe, BENCH_TYPE_IPROBE, s_iprobe);

const bench_op *const bench_simple_ops[] = {&op_wtime, &op_comm_rank, &op_iprobe, NULL};
