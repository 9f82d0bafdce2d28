/*
 * bench.c - the run's context, communicators, buffers and the polite
 * collectives shared by the patterns and the suite.
 */
#include "bench.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const bench_op *bench_op_of(bench_type type)
{
    const bench_op *const *tables[] = {bench_p2p_ops, bench_coll_ops, bench_mw_ops,
                                       bench_simple_ops};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const bench_op *const *op = tables[t]; *op; op++)
            if ((*op)->type == type)
                return *op;
    return NULL;
}

/* Wait for a request; an idle rank sleeps between tests.  50 us is far
 * below anything a measurement takes on an oversubscribed node (ms) and
 * frees the core for the ranks that measure. */
static void polite_wait(MPI_Request *req, int idle)
{
    if (!idle) {
        MPI_Wait(req, MPI_STATUS_IGNORE);
        return;
    }
    int done = 0;
    const struct timespec nap = {0, 50000};
    for (;;) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nanosleep(&nap, NULL);
    }
}

void bench_bcast(bench_ctx *ctx, void *buf, int count, MPI_Datatype type, int idle)
{
    (void)ctx;
    MPI_Request req;
    MPI_Ibcast(buf, count, type, 0, MPI_COMM_WORLD, &req);
    polite_wait(&req, idle);
}

void bench_gather(bench_ctx *ctx, const double *mine, double *all, int count, int idle)
{
    (void)ctx;
    MPI_Request req;
    MPI_Igather(mine, count, MPI_DOUBLE, all, count, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req);
    polite_wait(&req, idle);
}

MPI_Comm bench_first_n(bench_ctx *ctx, int n)
{
    if (n < 1 || n > ctx->size)
        return MPI_COMM_NULL;
    if (!ctx->first_n_made[n]) {
        /* a communicator of its own (not MPI_COMM_WORLD itself), so that a
         * measurement's messages can never match the run's own traffic */
        MPI_Comm_split(MPI_COMM_WORLD, ctx->rank < n ? 0 : MPI_UNDEFINED, ctx->rank,
                       &ctx->first_n[n]);
        ctx->first_n_made[n] = 1;
    }
    return ctx->first_n[n];
}

int bench_ctx_init(bench_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    MPI_Comm_rank(MPI_COMM_WORLD, &ctx->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ctx->size);
    ctx->partner_max = ctx->partner_min = -1;
    /* 32 operations are enough for the first value of a size to be within
     * 1.15 of the warm one (bench/compare's fresh-value target at 1 KiB
     * held in 70 of 70 tries, as with 64; with 16 the first value was
     * 1.15-1.28x the warm one in 3 of 70) */
    ctx->warm_min_ops = 4;
    ctx->warm_max_ops = 32;
    ctx->warm_time = 2e-4;
    ctx->inner_rel = 0.01;
    ctx->inner_cap = 1L << 20;
    ctx->first_n = malloc(((size_t)ctx->size + 1) * sizeof *ctx->first_n);
    ctx->first_n_made = calloc((size_t)ctx->size + 1, 1);
    /* the dummy time is a local figure of a few hundred nanoseconds: a 1 %
     * standard error within 1000 samples or 10 ms is plenty */
    asec_params dp = {16, 1000, 0.01, 0.01, 0.25, 0.0};
    ctx->dummy_asec = asec_create(&dp);
    int ok = ctx->first_n && ctx->first_n_made && ctx->dummy_asec, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        bench_ctx_free(ctx);
        return -1;
    }
    bclock_init(&ctx->clock);
    double t = MPI_Wtime();
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    /* every rank keeps rank 0's start: only rank 0 uses it for times */
    ctx->t_start = t;
    return 0;
}

void bench_ctx_free(bench_ctx *ctx)
{
    if (ctx->first_n && ctx->first_n_made)
        for (int n = 1; n <= ctx->size; n++)
            if (ctx->first_n_made[n] && ctx->first_n[n] != MPI_COMM_NULL)
                MPI_Comm_free(&ctx->first_n[n]);
    free(ctx->first_n);
    free(ctx->first_n_made);
    free(ctx->dummies);
    if (ctx->dummy_asec)
        asec_free(ctx->dummy_asec);
    ctx->first_n = NULL;
    ctx->first_n_made = NULL;
    ctx->dummies = NULL;
    ctx->dummy_asec = NULL;
}

int bench_dummy_for(bench_ctx *ctx, long inner, double *dummy, double *dummy_se)
{
    for (size_t i = 0; i < ctx->num_dummies; i++)
        if (ctx->dummies[i].inner == inner) {
            *dummy = ctx->dummies[i].dummy;
            *dummy_se = ctx->dummies[i].dummy_se;
            return 0;
        }
    bench_dummy *grown = bench_grow(ctx->dummies, ctx->num_dummies, &ctx->dummies_cap,
                                    sizeof *grown, 8);
    if (!grown)
        return -1;
    ctx->dummies = grown;
    bench_dummy *d = &ctx->dummies[ctx->num_dummies++];
    d->inner = inner;
    bclock_dummy_time(ctx->dummy_asec, inner, &d->dummy, &d->dummy_se);
    *dummy = d->dummy;
    *dummy_se = d->dummy_se;
    return 0;
}

/* Bytes of a buffer of `scale` for messages of `len` bytes on `size` ranks. */
static size_t buf_bytes(bench_bufscale scale, size_t len, int size)
{
    switch (scale) {
    case BUF_ONE:
        return len;
    case BUF_PER_RANK:
        return len * (size_t)size;
    default:
        return 0;
    }
}

/* Write every byte: untouched pages are the shared zero page (and make
 * 1 MiB ping-pongs look about 25 % faster).  Reductions get
 * ordinary floats (1.0), so no sum can turn into a denormal or infinity. */
static void fill(char *buf, size_t n, int floats)
{
    if (floats) {
        float one = 1.0f;
        for (size_t i = 0; i + sizeof one <= n; i += sizeof one)
            memcpy(buf + i, &one, sizeof one);
    } else {
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)(1 + i % 251);
    }
}

int bench_state_alloc(bench_state *s, const bench_op *op, int size, long max_len)
{
    memset(s, 0, sizeof *s);
    s->op = op;
    s->comm = MPI_COMM_NULL;
    size_t len = max_len > 0 ? (size_t)max_len : 0;
    if (op->reduction)
        len = (len + sizeof(float) - 1) / sizeof(float) * sizeof(float);
    s->sbuf_size = buf_bytes(op->sbuf, len, size);
    s->rbuf_size = buf_bytes(op->rbuf, len, size);
    /* never malloc(0): a NULL buffer would look like a failure, and MPI
     * wants a valid address even for empty messages */
    s->sbuf = malloc(s->sbuf_size ? s->sbuf_size : 1);
    s->rbuf = malloc(s->rbuf_size ? s->rbuf_size : 1);
    s->counts = malloc((size_t)size * sizeof *s->counts);
    s->reqs = malloc((size_t)size * sizeof *s->reqs);
    s->indices = malloc((size_t)size * sizeof *s->indices);
    s->statuses = malloc((size_t)size * sizeof *s->statuses);
    if (op->type == BENCH_TYPE_PINGPONG_BSEND_RECV) {
        /* room for two messages in flight (one is enough, see p2p.c) */
        s->bsend_size = 2 * ((int)len + MPI_BSEND_OVERHEAD);
        s->bsend_buf = malloc((size_t)s->bsend_size);
    }
    if (!s->sbuf || !s->rbuf || !s->counts || !s->reqs || !s->indices || !s->statuses ||
        (op->type == BENCH_TYPE_PINGPONG_BSEND_RECV && !s->bsend_buf)) {
        bench_state_free(s);
        return -1;
    }
    fill(s->sbuf, s->sbuf_size, op->reduction);
    fill(s->rbuf, s->rbuf_size, op->reduction);
    if (s->bsend_buf) {
        MPI_Buffer_attach(s->bsend_buf, s->bsend_size);
        s->bsend_attached = 1;
    }
    return 0;
}

void bench_state_free(bench_state *s)
{
    if (s->bsend_attached) {
        void *b;
        int n;
        MPI_Buffer_detach(&b, &n);
    }
    free(s->sbuf);
    free(s->rbuf);
    free(s->counts);
    free(s->reqs);
    free(s->indices);
    free(s->statuses);
    free(s->bsend_buf);
    memset(s, 0, sizeof *s);
    s->comm = MPI_COMM_NULL;
}

void bench_state_set_len(bench_state *s, long len)
{
    s->len = len;
    s->count = s->op && s->op->reduction
                   ? (int)((len + (long)sizeof(float) - 1) / (long)sizeof(float))
                   : 0;
}

void bench_say(const char *prog, int rank, const char *fmt, ...)
{
    if (rank > 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
