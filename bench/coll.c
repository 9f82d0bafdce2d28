/*
 * coll.c - the collective pattern (SKaMPI's col_pattern): every rank of
 * the communicator calls the operation and times it; rank 0 is the root.
 * The root's time is the result; with Node_Times every rank's is kept.
 * Each call is timed on its own with a barrier after it (bench_op's
 * sync_each; measure.c), Barrier itself back to back.
 *
 * Lengths are bytes per message (per rank pair for Alltoall, per rank's
 * block for Gather, Scatter, Allgather and Reduce_scatter).  Reductions
 * work on floats with MPI_SUM (the length rounded up to whole floats): an
 * MPI library reduces floats far faster than bytes, and IMB and OSU
 * (-T mpi_float) measure floats, so the figures are comparable.
 */
#include "bench.h"

static void c_bcast(bench_state *s, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Bcast(s->sbuf, (int)s->len, MPI_BYTE, 0, s->comm);
}

static void c_reduce(bench_state *s, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Reduce(s->sbuf, s->rbuf, s->count, MPI_FLOAT, MPI_SUM, 0, s->comm);
}

static void c_allreduce(bench_state *s, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Allreduce(s->sbuf, s->rbuf, s->count, MPI_FLOAT, MPI_SUM, s->comm);
}

static void c_gather(bench_state *s, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Gather(s->sbuf, (int)s->len, MPI_BYTE, s->rbuf, (int)s->len, MPI_BYTE, 0, s->comm);
}

static void c_scatter(bench_state *s, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Scatter(s->sbuf, (int)s->len, MPI_BYTE, s->rbuf, (int)s->len, MPI_BYTE, 0,
                    s->comm);
}

static void c_allgather(bench_state *s, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Allgather(s->sbuf, (int)s->len, MPI_BYTE, s->rbuf, (int)s->len, MPI_BYTE, s->comm);
}

static void c_alltoall(bench_state *s, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Alltoall(s->sbuf, (int)s->len, MPI_BYTE, s->rbuf, (int)s->len, MPI_BYTE, s->comm);
}

static void c_reduce_scatter(bench_state *s, long iters)
{
    for (int r = 0; r < s->size; r++)
        s->counts[r] = s->count;
    for (long i = 0; i < iters; i++)
        MPI_Reduce_scatter(s->sbuf, s->rbuf, s->counts, MPI_FLOAT, MPI_SUM, s->comm);
}

static void c_scan(bench_state *s, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Scan(s->sbuf, s->rbuf, s->count, MPI_FLOAT, MPI_SUM, s->comm);
}

static void c_barrier(bench_state *s, long iters)
{
    for (long i = 0; i < iters; i++)
        MPI_Barrier(s->comm);
}

#define COLL(var, type, fn, sb, rb, red)                                                     \
    static const bench_op var = {type, fn, 1.0, sb, rb, red, 1}
COLL(op_bcast, BENCH_TYPE_BCAST, c_bcast, BUF_ONE, BUF_NONE, 0);
COLL(op_reduce, BENCH_TYPE_REDUCE, c_reduce, BUF_ONE, BUF_ONE, 1);
COLL(op_allreduce, BENCH_TYPE_ALLREDUCE, c_allreduce, BUF_ONE, BUF_ONE, 1);
COLL(op_gather, BENCH_TYPE_GATHER, c_gather, BUF_ONE, BUF_PER_RANK, 0);
COLL(op_scatter, BENCH_TYPE_SCATTER, c_scatter, BUF_PER_RANK, BUF_ONE, 0);
COLL(op_allgather, BENCH_TYPE_ALLGATHER, c_allgather, BUF_ONE, BUF_PER_RANK, 0);
COLL(op_alltoall, BENCH_TYPE_ALLTOALL, c_alltoall, BUF_PER_RANK, BUF_PER_RANK, 0);
COLL(op_reduce_scatter, BENCH_TYPE_REDUCE_SCATTER, c_reduce_scatter, BUF_PER_RANK, BUF_ONE, 1);
COLL(op_scan, BENCH_TYPE_SCAN, c_scan, BUF_ONE, BUF_ONE, 1);
/* a barrier after a barrier would only double it: Barrier is timed back to
 * back, as OSU's osu_barrier times it */
static const bench_op op_barrier = {BENCH_TYPE_BARRIER, c_barrier, 1.0, BUF_NONE, BUF_NONE, 0, 0};

const bench_op *const bench_coll_ops[] = {
    &op_bcast,    &op_reduce,         &op_allreduce, &op_gather,  &op_scatter, &op_allgather,
    &op_alltoall, &op_reduce_scatter, &op_scan,      &op_barrier, NULL};
