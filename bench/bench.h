/*
 * bench.h - what the MPI side of cube_bench shares: the run's context (the
 * one place for state; MPI itself is the only other) and the measured
 * operations of SKaMPI's four patterns.
 *
 * A measured operation is a function every rank of the measurement's
 * communicator calls with the same number of repetitions; each rank times
 * its own call.  World rank 0 is always rank 0 of that communicator: it is
 * the root of collectives, the ping-pong's initiator and the master.
 */
#ifndef CUBE_BENCH_BENCH_H
#define CUBE_BENCH_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "clock.h"
#include "cube.h"
#include "params.h"

/* cube_bench is released with libcube and has its version */
#define CUBE_BENCH_VERSION CUBE_VERSION_STRING

/* How a buffer grows with the communicator: one message, or one per rank. */
typedef enum { BUF_NONE, BUF_ONE, BUF_PER_RANK } bench_bufscale;

typedef struct bench_state bench_state;

typedef struct bench_op {
    bench_type type;         /* params.h: its name, pattern and description */
    /* `iters` operations on this rank of s->comm; every rank of the
     * communicator calls it with the same `iters` */
    void (*run)(bench_state *s, long iters);
    /* the reported time is the time of one `run` iteration divided by
     * this: 2 for a ping-pong (half the round trip), else 1 */
    double divisor;
    bench_bufscale sbuf, rbuf; /* send and receive buffer sizes */
    int reduction;             /* lengths are counted in floats (MPI_SUM) */
    /* each call timed on its own and followed by an untimed MPI_Barrier
     * (the collectives but Barrier itself, as OSU and IMB time them): back
     * to back, the root of a short eager Bcast returns before the others
     * took the message and the calls overlap, so the figure would be
     * 0.66-0.85 of the synchronised call's; a single measurement is then
     * the sum of `inner` such calls */
    int sync_each;
} bench_op;

/* Everything a measured operation needs.  Buffers are allocated once per
 * suite for its largest argument (and written to: untouched pages would be
 * the shared zero page and make large messages look faster). */
struct bench_state {
    const bench_op *op;
    MPI_Comm comm; /* MPI_COMM_NULL when this rank takes no part */
    int rank, size;
    int partner;   /* point-to-point: the partner's rank in comm */
    long len;      /* message length in bytes */
    int count;     /* reductions: floats per message (len rounded up) */
    long chunks;   /* master-worker: work pieces per single measurement */
    char *sbuf, *rbuf;
    size_t sbuf_size, rbuf_size;
    int *counts;       /* Reduce_scatter's receive counts, one per rank */
    MPI_Request *reqs; /* master-worker: one per worker */
    int *indices;
    MPI_Status *statuses;
    char *bsend_buf;   /* attached for Bsend */
    int bsend_size, bsend_attached;
};

/* The dummy time is measured once per number of operations per single
 * measurement (a handful of distinct values per run). */
typedef struct {
    long inner;
    double dummy, dummy_se;
} bench_dummy;

typedef struct bench_ctx {
    int rank, size;          /* in MPI_COMM_WORLD */
    bench_clock clock;
    double t_start;          /* MPI_Wtime() at the start of the run (rank 0's) */
    FILE *log;               /* rank 0: the log of the run, or NULL */
    MPI_Comm *first_n;       /* [n]: ranks 0..n-1 of the world, made on demand */
    unsigned char *first_n_made;
    int partner_max, partner_min; /* world ranks; -1 until found */
    double latency_max, latency_min;
    bench_dummy *dummies;
    size_t num_dummies, dummies_cap;
    asec *dummy_asec;        /* for measuring the dummy time (allocated once) */
    /* the warm-up before each argument (SKaMPI: "we warm up the cache by
     * a dummy call"): at least min_ops operations, then more until
     * `time` seconds have passed or max_ops were run */
    long warm_min_ops, warm_max_ops;
    double warm_time;
    double inner_rel;  /* the clock's resolution at most this share of a single measurement */
    long inner_cap;
} bench_ctx;

/* The operations of each pattern (NULL-terminated tables). */
extern const bench_op *const bench_p2p_ops[];
extern const bench_op *const bench_coll_ops[];
extern const bench_op *const bench_mw_ops[];
extern const bench_op *const bench_simple_ops[];

/* The implementation of a measurement type, or NULL. */
const bench_op *bench_op_of(bench_type type);

/* Point-to-point: find the partners of rank 0 with the largest and the
 * smallest latency (SKaMPI's p2p_find_max_min).  Collective over the world;
 * the result is broadcast, so every rank knows both.  0 or -1 (out of
 * memory: every rank returns -1). */
int p2p_find_partners(bench_ctx *ctx);

/* The communicator of world ranks 0..n-1 (MPI_COMM_NULL on the others).
 * Collective over the world the first time a size is asked for. */
MPI_Comm bench_first_n(bench_ctx *ctx, int n);

/* A broadcast from world rank 0 during which ranks that took no part in a
 * measurement sleep instead of spinning: MPICH polls busily, and with more
 * ranks than cores an idle spinning rank takes the core a measuring rank
 * needs. */
void bench_bcast(bench_ctx *ctx, void *buf, int count, MPI_Datatype type, int idle);

/* A gather to world rank 0 of `count` doubles per rank, polite like
 * bench_bcast. */
void bench_gather(bench_ctx *ctx, const double *mine, double *all, int count, int idle);

/* Set up and tear down the context (collective over the world): the
 * clock, the start time.  0, or -1 when out of memory on any rank. */
/* A message "PROG: ..." on stderr, from rank 0 only (the other ranks find
 * the same problems; rank < 0: always, for the parts that run without MPI). */
void bench_say(const char *prog, int rank, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

int bench_ctx_init(bench_ctx *ctx);
void bench_ctx_free(bench_ctx *ctx);

/* The dummy time for `inner` operations per single measurement (measured
 * on first use, then remembered).  0, or -1 when out of memory. */
int bench_dummy_for(bench_ctx *ctx, long inner, double *dummy, double *dummy_se);

/* Buffers for `op` on a communicator of `size` ranks and messages of at
 * most `max_len` bytes: allocated, written to, and (for Bsend) attached.
 * 0, or -1 when out of memory (nothing left allocated). */
int bench_state_alloc(bench_state *s, const bench_op *op, int size, long max_len);
void bench_state_free(bench_state *s);
/* Set the message length (and the float count of reductions). */
void bench_state_set_len(bench_state *s, long len);

#endif
