/*
 * linktest_writer.c - LinkTest 2.1.17 files in a SIONlib container (see
 * linktest_writer.h; the formats are in linktest-sion(5)).
 *
 * How a file is made:
 *   1. sizing: every rank's field sequence is walked without values, which
 *      gives its stream size, its chunk size, and (with the chunks known)
 *      how its fields fall into blocks; so every offset is known before a
 *      byte is written;
 *   2. META1 at offset 0;
 *   3. ranks 1 .. N-1, each streamed through a buffer and pwrite at the
 *      offsets of its blocks; the times they produce are accumulated into
 *      rank 0's aggregates on the way (when the writer computes those);
 *   4. rank 0, whose chunk opens with the LinkTest header and repeats the
 *      aggregates of each iteration (they need every rank's times, hence
 *      last; with pwrite the order of writing does not matter);
 *   5. META2 at the end of the last block, which also sets the file size:
 *      unused chunk tails stay holes, read as zeros, as SIONlib leaves them.
 */
#define _POSIX_C_SOURCE 200809L
#include "linktest_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define META1_SIZE(n) (1088u + 16u * (uint64_t)(n)) /* _lsion_get_size_metadatablock1 */
#define PREFIX_LEN 1024u
#define TIME_LEN 32u
#define GIT_HASH_LEN 41u
#define BUF_MIN ((size_t)1 << 20)

static const char default_start[] = "2024-06-10 06:13:20";
static const char default_end[] = "2024-06-10 06:13:23";

static void seterr(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void ltw_run_init(ltw_run *run, size_t nranks)
{
    memset(run, 0, sizeof *run);
    ltw_header *h = &run->header;
    h->major = 2;
    h->minor = 1;
    h->patch = 17;
    h->git_hash = "0123456789abcdef0123456789abcdef01234567";
    h->mode = "mpi";
    h->parallel_sion = 1;
    h->num_messages = 100;
    h->message_size = 1024;
    h->num_warmup_messages = 10;
    h->num_multi_buffers = 1;
    h->num_randomized_tasks = 1;
    run->nranks = nranks;
}

void ltw_layout_init(ltw_layout *layout)
{
    memset(layout, 0, sizeof *layout);
    layout->fsblksize = 4096;
}

uint64_t ltw_round_robin_step(size_t n, size_t i, size_t j)
{
    /* Circle method: with an odd count m of "circle" ranks, ranks i and j
     * meet when i + j = -(step - 1) (mod m); since m is odd, for each step
     * exactly one circle rank has 2i = -(step - 1), and it meets the fixed
     * rank n - 1 when n is even, or idles when n is odd. */
    if (n < 2 || i == j)
        return 0;
    uint64_t m = (n % 2 == 0) ? (uint64_t)n - 1 : (uint64_t)n;
    uint64_t a = i, b = j;
    if (n % 2 == 0) {
        if (a == m)
            a = b;
        else if (b == m)
            b = a;
    }
    uint64_t s = (a % m + b % m) % m;
    return (m - s) % m + 1;
}

/* ---- byte order ---------------------------------------------------------- */

static void put32(unsigned char *p, uint32_t v, int be)
{
    for (int i = 0; i < 4; i++)
        p[be ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v, int be)
{
    for (int i = 0; i < 8; i++)
        p[be ? 7 - i : i] = (unsigned char)(v >> (8 * i));
}

static void putf64(unsigned char *p, double d, int be)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    put64(p, v, be);
}

static int pwrite_all(int fd, const unsigned char *p, size_t len, uint64_t off)
{
    while (len > 0) {
        if (off > (uint64_t)INT64_MAX) {
            errno = EFBIG;
            return -1;
        }
        ssize_t w = pwrite(fd, p, len, (off_t)off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

/* ---- rank 0's aggregates, computed as LinkTest does ---------------------- */

typedef struct {
    double time;
    int64_t sender, receiver;
} slow_link;

/* The order of the slow list: slower first, ties by lower sender, then
 * lower receiver. */
static int slower(const slow_link *a, const slow_link *b)
{
    if (a->time != b->time)
        return a->time > b->time;
    if (a->sender != b->sender)
        return a->sender < b->sender;
    return a->receiver < b->receiver;
}

typedef struct {
    double sum, comp, min, max; /* Neumaier's compensated sum */
    uint64_t count;
} stat_acc;

static void acc_add(stat_acc *a, double v)
{
    if (a->count == 0 || v < a->min)
        a->min = v;
    if (a->count == 0 || v > a->max)
        a->max = v;
    double t = a->sum + v;
    if ((a->sum >= 0 ? a->sum : -a->sum) >= (v >= 0 ? v : -v))
        a->comp += (a->sum - t) + v;
    else
        a->comp += (v - t) + a->sum;
    a->sum = t;
    a->count++;
}

typedef struct {
    stat_acc times, a2a;
    /* the d slowest so far: a heap whose root is the least slow of them,
     * the one a slower link replaces */
    slow_link *heap;
    size_t nheap;
    /* the result */
    double *retested, *slowest;
    int64_t *senders, *receivers;
    ltw_aggregate agg;
} perm_acc;

static void heap_offer(perm_acc *p, size_t d, slow_link c)
{
    slow_link *h = p->heap;
    size_t i;
    if (d == 0)
        return;
    if (p->nheap < d) {
        i = p->nheap++;
        while (i > 0 && slower(&h[(i - 1) / 2], &c)) {
            h[i] = h[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        h[i] = c;
        return;
    }
    if (!slower(&c, &h[0]))
        return;
    i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const slow_link *least = &c;
        if (l < d && slower(least, &h[l])) {
            m = l;
            least = &h[l];
        }
        if (r < d && slower(least, &h[r]))
            m = r;
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = c;
}

static int cmp_slow(const void *a, const void *b)
{
    const slow_link *x = a, *y = b;
    return slower(x, y) ? -1 : slower(y, x) ? 1 : 0;
}

static double acc_mean(const stat_acc *a)
{
    return a->count ? (a->sum + a->comp) / (double)a->count : 0.0;
}

static void perm_finish(perm_acc *p, size_t d, size_t iteration, const ltw_run *run)
{
    qsort(p->heap, p->nheap, sizeof *p->heap, cmp_slow);
    for (size_t k = 0; k < d; k++) {
        const slow_link *s = &p->heap[k];
        p->slowest[k] = s->time;
        p->senders[k] = s->sender;
        p->receivers[k] = s->receiver;
        p->retested[k] = run->retest ? run->retest(run->ctx, iteration, (size_t)s->sender,
                                                   (size_t)s->receiver)
                                     : s->time;
    }
    ltw_aggregate *g = &p->agg;
    g->min = p->times.count ? p->times.min : 0.0;
    g->max = p->times.count ? p->times.max : 0.0;
    g->avg = acc_mean(&p->times);
    g->a2a_min = p->a2a.count ? p->a2a.min : 0.0;
    g->a2a_max = p->a2a.count ? p->a2a.max : 0.0;
    g->a2a_avg = acc_mean(&p->a2a);
    g->retested = p->retested;
    g->slowest = p->slowest;
    g->senders = p->senders;
    g->receivers = p->receivers;
}

/* ---- the emitter: one rank's field sequence, sized or written ------------ */

typedef struct {
    /* the rank's chunk and blocks */
    size_t rank, n;
    uint64_t cap;            /* chunk capacity; UINT64_MAX while sizing the stream */
    uint64_t block, used, total;
    uint64_t *bytes;         /* NULL, or META2's bytes[b * n + t] to fill */
    /* writing (buf != NULL): bytes go to buf, which holds file bytes from
     * buf_off on, all inside one block */
    int fd;
    uint64_t startptr, globalskip;
    unsigned char *buf;
    size_t buflen, bufcap;
    uint64_t buf_off;
    int be;
    /* the first error */
    int failed;
    char *err;
    size_t errlen;
    const char *path;
} emitter;

static int em_flush(emitter *e)
{
    if (e->buf && e->buflen > 0) {
        if (pwrite_all(e->fd, e->buf, e->buflen, e->buf_off) != 0) {
            seterr(e->err, e->errlen, "%s: cannot write at offset %llu: %s", e->path,
                   (unsigned long long)e->buf_off, strerror(errno));
            e->failed = 1;
            return -1;
        }
        e->buf_off += e->buflen;
        e->buflen = 0;
    }
    return 0;
}

/* Reserve the next field of `size` bytes.  Like SIONlib, a field that
 * does not fit in the rest of the chunk opens the next block; a field is
 * never split.  Returns where to put the bytes when writing, NULL while
 * sizing or after an error (e->failed). */
static unsigned char *em_field(emitter *e, uint64_t size, const char *what)
{
    if (e->failed)
        return NULL;
    if (size > e->cap) {
        seterr(e->err, e->errlen,
               "%s: rank %zu: %s: a field of %llu bytes does not fit in a chunk of %llu bytes "
               "(raise the chunk limit)",
               e->path, e->rank, what, (unsigned long long)size, (unsigned long long)e->cap);
        e->failed = 1;
        return NULL;
    }
    if (e->total > UINT64_MAX - size) {
        seterr(e->err, e->errlen, "%s: rank %zu: the stream is too long", e->path, e->rank);
        e->failed = 1;
        return NULL;
    }
    if (size > e->cap - e->used) {
        if (em_flush(e) != 0)
            return NULL;
        e->block++;
        e->used = 0;
        e->buf_off = e->startptr + e->block * e->globalskip;
    }
    e->used += size;
    e->total += size;
    if (e->bytes)
        e->bytes[e->block * e->n + e->rank] += size;
    if (!e->buf)
        return NULL;
    if (size > e->bufcap - e->buflen && em_flush(e) != 0)
        return NULL;
    unsigned char *p = e->buf + e->buflen;
    e->buflen += (size_t)size;
    return p;
}

static void em_u8(emitter *e, uint8_t v, const char *what)
{
    unsigned char *p = em_field(e, 1, what);
    if (p)
        *p = v;
}

static void em_u32(emitter *e, uint32_t v, const char *what)
{
    unsigned char *p = em_field(e, 4, what);
    if (p)
        put32(p, v, e->be);
}

static void em_u64(emitter *e, uint64_t v, const char *what)
{
    unsigned char *p = em_field(e, 8, what);
    if (p)
        put64(p, v, e->be);
}

static void em_f64(emitter *e, double v, const char *what)
{
    unsigned char *p = em_field(e, 8, what);
    if (p)
        putf64(p, v, e->be);
}

/* `len` bytes: the string and NUL padding (the string fits, checked before). */
static void em_str(emitter *e, const char *s, size_t len, const char *what)
{
    unsigned char *p = em_field(e, len, what);
    if (p) {
        size_t k = strlen(s);
        memcpy(p, s, k);
        memset(p + k, 0, len - k);
    }
}

static void em_f64s(emitter *e, const double *v, size_t d, const char *what)
{
    unsigned char *p = em_field(e, 8 * (uint64_t)d, what);
    if (p)
        for (size_t k = 0; k < d; k++)
            putf64(p + 8 * k, v[k], e->be);
}

static void em_i64s(emitter *e, const int64_t *v, size_t d, const char *what)
{
    unsigned char *p = em_field(e, 8 * (uint64_t)d, what);
    if (p)
        for (size_t k = 0; k < d; k++)
            put64(p + 8 * k, (uint64_t)v[k], e->be);
}

static void em_header(emitter *e, const ltw_header *h)
{
    em_str(e, "LinkTest", 8, "LinkTest ID string");
    em_u32(e, h->major, "major version");
    em_u32(e, h->minor, "minor version");
    em_u32(e, h->patch, "patch level");
    em_str(e, h->git_hash, GIT_HASH_LEN, "git hash");
    size_t b = strlen(h->mode) + 1; /* the mode length counts the NUL */
    em_u32(e, (uint32_t)b, "mode length");
    em_str(e, h->mode, b, "mode");
    const uint8_t flags[13] = {h->all_to_all,         h->bidirectional,  h->unidirectional,
                               h->bisection,          h->step_randomization, h->serial,
                               h->no_sion_file,       h->parallel_sion,  h->gpu_memory,
                               h->multi_buffer,       h->randomized_buffer, h->check_buffer,
                               h->memory_allocator_type};
    for (int i = 0; i < 13; i++)
        em_u8(e, flags[i], "flags");
    const uint64_t counts[8] = {h->num_messages,       h->message_size,
                                h->num_warmup_messages, h->num_serial_retests,
                                h->num_multi_buffers,  h->buffer_randomization_seed,
                                h->num_randomized_tasks, h->task_randomization_seed};
    for (int i = 0; i < 8; i++)
        em_u64(e, counts[i], "counts");
    em_str(e, "END_HEADER", 10, "END_HEADER");
}

/* Everything the rank streams share. */
typedef struct {
    const ltw_run *run;
    size_t n, m, d;
    int a2a;
    perm_acc *acc;                 /* NULL: aggregates given by the caller */
    const ltw_aggregate *agg;      /* M entries: given or acc[i].agg */
} ctx_t;

/* One rank's timing data of one iteration: the partners in order with the
 * rank itself skipped (entry k is partner k if k < rank, else k + 1). */
static void em_rank_data(emitter *e, const ctx_t *c, size_t it)
{
    const ltw_run *run = c->run;
    size_t n = c->n, r = e->rank;
    unsigned char *p = em_field(e, 8 * (uint64_t)(n - 1), "timing data");
    if (p) {
        perm_acc *acc = (c->acc && r != 0) ? &c->acc[it] : NULL; /* rank 0: counted before */
        for (size_t k = 0; k + 1 < n; k++) {
            size_t q = k < r ? k : k + 1;
            double t = run->time(run->ctx, it, r, q);
            putf64(p + 8 * k, t, e->be);
            if (acc) {
                acc_add(&acc->times, t);
                heap_offer(acc, c->d, (slow_link){t, (int64_t)r, (int64_t)q});
            }
        }
    }
    p = em_field(e, 8 * (uint64_t)(n - 1), "access pattern");
    if (p)
        for (size_t k = 0; k + 1 < n; k++) {
            size_t q = k < r ? k : k + 1;
            uint64_t a = run->access ? run->access(run->ctx, it, r, q)
                                     : ltw_round_robin_step(n, r, q);
            put64(p + 8 * k, a, e->be);
        }
    if (c->a2a) {
        p = em_field(e, 8, "all-to-all timing");
        if (p) {
            double t = run->a2a(run->ctx, it, r);
            putf64(p, t, e->be);
            if (c->acc && r != 0)
                acc_add(&c->acc[it].a2a, t);
        }
    }
}

static void em_rank(emitter *e, const ctx_t *c)
{
    const ltw_run *run = c->run;
    size_t r = e->rank;
    if (r == 0)
        em_header(e, &run->header);
    const char *host = run->hostnames[r];
    size_t hl = strlen(host) + 1; /* counts the NUL */
    em_u32(e, (uint32_t)hl, "hostname length");
    em_str(e, host, hl, "hostname");
    em_u32(e, (uint32_t)(run->core_ids ? run->core_ids[r] : 0), "core id");
    for (size_t it = 0; it < c->m && !e->failed; it++) {
        if (r == 0) {
            /* while sizing, c->agg may not exist yet: only sizes matter */
            const ltw_aggregate *g = e->buf ? &c->agg[it] : NULL;
            const char *st = run->start_times ? run->start_times[it] : default_start;
            const char *et = run->end_times ? run->end_times[it] : default_end;
            em_str(e, st, TIME_LEN, "start time");
            if (!g) {
                em_field(e, 8, "minimum time");
                em_field(e, 8, "average time");
                em_field(e, 8, "maximum time");
                if (c->a2a) {
                    em_field(e, 8, "all-to-all minimum time");
                    em_field(e, 8, "all-to-all average time");
                    em_field(e, 8, "all-to-all maximum time");
                }
                em_field(e, 8 * (uint64_t)c->d, "retested slow timings");
                em_field(e, 8 * (uint64_t)c->d, "slowest timings");
                em_field(e, 8 * (uint64_t)c->d, "slow sending partners");
                em_field(e, 8 * (uint64_t)c->d, "slow receiving partners");
            } else {
                em_f64(e, g->min, "minimum time");
                em_f64(e, g->avg, "average time");
                em_f64(e, g->max, "maximum time");
                if (c->a2a) {
                    em_f64(e, g->a2a_min, "all-to-all minimum time");
                    em_f64(e, g->a2a_avg, "all-to-all average time");
                    em_f64(e, g->a2a_max, "all-to-all maximum time");
                }
                em_f64s(e, g->retested, c->d, "retested slow timings");
                em_f64s(e, g->slowest, c->d, "slowest timings");
                em_i64s(e, g->senders, c->d, "slow sending partners");
                em_i64s(e, g->receivers, c->d, "slow receiving partners");
            }
            em_str(e, et, TIME_LEN, "end time");
        }
        em_rank_data(e, c, it);
    }
    em_str(e, "END_BLOCK", 9, "END_BLOCK");
    em_flush(e);
}

/* Walk a rank's fields without values: its stream size, or (cap set) its
 * blocks. */
static int size_rank(const ctx_t *c, size_t rank, uint64_t cap, uint64_t *bytes,
                     uint64_t *total, uint64_t *blocks, const char *path, char *err,
                     size_t errlen)
{
    emitter e;
    memset(&e, 0, sizeof e);
    e.rank = rank;
    e.n = c->n;
    e.cap = cap;
    e.bytes = bytes;
    e.fd = -1;
    e.err = err;
    e.errlen = errlen;
    e.path = path;
    em_rank(&e, c);
    if (e.failed)
        return -1;
    *total = e.total;
    *blocks = e.total ? e.block + 1 : 0;
    return 0;
}

uint64_t ltw_stream_bytes(const ltw_run *run, size_t rank)
{
    ctx_t c = {run, run->nranks, (size_t)run->header.num_randomized_tasks,
               (size_t)run->header.num_serial_retests, run->header.all_to_all != 0, NULL, NULL};
    uint64_t total = 0, blocks;
    if (size_rank(&c, rank, UINT64_MAX, NULL, &total, &blocks, "", NULL, 0) != 0)
        return 0;
    return total;
}

/* ---- checks -------------------------------------------------------------- */

static int check_run(const char *path, const ltw_run *run, const ltw_layout *lay, char *err,
                     size_t errlen)
{
    const ltw_header *h = &run->header;
    size_t n = run->nranks;
    if (n == 0 || n > INT32_MAX) {
        seterr(err, errlen, "%s: %zu ranks: SIONlib needs 1 to %d tasks", path, n,
               (int)INT32_MAX);
        return -1;
    }
    if (lay->fsblksize <= 0) {
        seterr(err, errlen, "%s: fsblksize %d is not positive", path, (int)lay->fsblksize);
        return -1;
    }
    if (!h->git_hash || strlen(h->git_hash) >= GIT_HASH_LEN) {
        seterr(err, errlen, "%s: the git hash must be a string of at most %u characters", path,
               GIT_HASH_LEN - 1);
        return -1;
    }
    if (!h->mode || strlen(h->mode) >= UINT32_MAX) {
        seterr(err, errlen, "%s: the mode must be a string", path);
        return -1;
    }
    if (h->num_randomized_tasks == 0 || h->num_randomized_tasks > SIZE_MAX / 2) {
        seterr(err, errlen, "%s: num_randomized_tasks (M) is %llu, must be at least 1", path,
               (unsigned long long)h->num_randomized_tasks);
        return -1;
    }
    if (h->num_serial_retests > SIZE_MAX / 64) {
        seterr(err, errlen, "%s: num_serial_retests (d) %llu is too large", path,
               (unsigned long long)h->num_serial_retests);
        return -1;
    }
    if (!run->hostnames) {
        seterr(err, errlen, "%s: no host names given", path);
        return -1;
    }
    for (size_t r = 0; r < n; r++)
        if (!run->hostnames[r] || strlen(run->hostnames[r]) >= UINT32_MAX) {
            seterr(err, errlen, "%s: rank %zu: no host name", path, r);
            return -1;
        }
    if (n > 1 && !run->time) {
        seterr(err, errlen, "%s: no time callback given", path);
        return -1;
    }
    if (h->all_to_all && !run->a2a) {
        seterr(err, errlen, "%s: the all-to-all flag is set but no all-to-all callback given",
               path);
        return -1;
    }
    size_t m = (size_t)h->num_randomized_tasks;
    for (size_t i = 0; i < m; i++) {
        const char *st = run->start_times ? run->start_times[i] : default_start;
        const char *et = run->end_times ? run->end_times[i] : default_end;
        if (!st || !et || strlen(st) >= TIME_LEN || strlen(et) >= TIME_LEN) {
            seterr(err, errlen,
                   "%s: iteration %zu: start and end time must be strings of at most %u "
                   "characters",
                   path, i, TIME_LEN - 1);
            return -1;
        }
        if (run->aggregates && h->num_serial_retests > 0) {
            const ltw_aggregate *g = &run->aggregates[i];
            if (!g->retested || !g->slowest || !g->senders || !g->receivers) {
                seterr(err, errlen, "%s: iteration %zu: the slow lists are missing", path, i);
                return -1;
            }
        }
    }
    if (!run->aggregates && h->num_serial_retests > (uint64_t)n * (n - 1)) {
        seterr(err, errlen,
               "%s: d = %llu slow links asked for, but %zu ranks have only %llu links (give the "
               "aggregates to write such a file)",
               path, (unsigned long long)h->num_serial_retests, n,
               (unsigned long long)((uint64_t)n * (n - 1)));
        return -1;
    }
    return 0;
}

/* ---- the file ------------------------------------------------------------ */

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

typedef struct {
    int fd;
    uint64_t *stream, *chunk, *startptr, *blockcount, *bytes;
    unsigned char *buf, *meta;
    perm_acc *acc;
    slow_link *heaps;
    double *dbls;
    int64_t *ints;
    ltw_aggregate *computed;
} resources;

static void release(resources *x)
{
    if (x->fd >= 0)
        close(x->fd);
    free(x->stream);
    free(x->chunk);
    free(x->startptr);
    free(x->blockcount);
    free(x->bytes);
    free(x->buf);
    free(x->meta);
    free(x->acc);
    free(x->heaps);
    free(x->dbls);
    free(x->ints);
    free(x->computed);
}

/* Give up; a file we created (or truncated) is removed, so that no
 * half-written file looks like a result. */
static int fail_unlink(resources *x, const char *path)
{
    int created = x->fd >= 0;
    release(x);
    if (created)
        unlink(path);
    return -1;
}

int ltw_write(const char *path, const ltw_run *run, const ltw_layout *lay, char *err,
              size_t errlen)
{
    if (check_run(path, run, lay, err, errlen) != 0)
        return -1;
    const ltw_header *h = &run->header;
    const int be = lay->big_endian != 0;
    const size_t n = run->nranks, m = (size_t)h->num_randomized_tasks,
                 d = (size_t)h->num_serial_retests;
    const uint64_t fs = (uint64_t)lay->fsblksize;
    ctx_t c = {run, n, m, d, h->all_to_all != 0, NULL, run->aggregates};
    resources x;
    memset(&x, 0, sizeof x);
    x.fd = -1;

    /* 1. sizes: streams, chunks, start pointers, blocks */
    x.stream = calloc(n, sizeof *x.stream);
    x.chunk = calloc(n, sizeof *x.chunk);
    x.startptr = calloc(n, sizeof *x.startptr);
    x.blockcount = calloc(n, sizeof *x.blockcount);
    if (!x.stream || !x.chunk || !x.startptr || !x.blockcount)
        goto oom;
    uint64_t blocks;
    for (size_t t = 0; t < n; t++)
        if (size_rank(&c, t, UINT64_MAX, NULL, &x.stream[t], &blocks, path, err, errlen) != 0)
            return fail_unlink(&x, path);
    const uint64_t too_big = (uint64_t)INT64_MAX / 4;
    uint64_t globalskip = 0;
    for (size_t t = 0; t < n; t++) {
        uint64_t req = x.stream[t];
        if (lay->chunk_limit && req > lay->chunk_limit)
            req = lay->chunk_limit;
        /* SIONlib stores the chunk size already expanded: aligned to
         * fsblksize, or as asked in collective mode (padded below) */
        x.chunk[t] = lay->packed ? req : align_up(req, fs);
        if (x.chunk[t] > too_big || globalskip > too_big - x.chunk[t])
            goto too_large;
        globalskip += x.chunk[t];
    }
    if (lay->packed) {
        uint64_t pad = align_up(globalskip, fs) - globalskip;
        x.chunk[n - 1] += pad;
        globalskip += pad;
    }
    const uint64_t start_of_data = align_up(META1_SIZE(n), fs);
    uint64_t maxchunks = 0;
    for (size_t t = 0; t < n; t++) {
        x.startptr[t] = t ? x.startptr[t - 1] + x.chunk[t - 1] : start_of_data;
        uint64_t total;
        if (size_rank(&c, t, x.chunk[t], NULL, &total, &x.blockcount[t], path, err, errlen) !=
            0)
            return fail_unlink(&x, path);
        if (x.blockcount[t] > maxchunks)
            maxchunks = x.blockcount[t];
    }
    if (maxchunks > INT32_MAX || maxchunks > too_big / (globalskip ? globalskip : 1))
        goto too_large;
    const uint64_t sov = start_of_data + maxchunks * globalskip;
    if ((maxchunks + 1) > too_big / 8 / n)
        goto too_large;
    const size_t meta2_len = (size_t)(8 * (uint64_t)n * (1 + maxchunks));
    x.meta = calloc(1, meta2_len > META1_SIZE(n) ? meta2_len : (size_t)META1_SIZE(n));
    x.bytes = calloc((size_t)(maxchunks * n) + 1, sizeof *x.bytes);
    if (!x.meta || !x.bytes)
        goto oom;
    for (size_t t = 0; t < n; t++) {
        uint64_t total;
        if (size_rank(&c, t, x.chunk[t], x.bytes, &total, &blocks, path, err, errlen) != 0)
            return fail_unlink(&x, path);
    }

    /* 2. META1 */
    x.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (x.fd < 0) {
        seterr(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        release(&x);
        return -1;
    }
    unsigned char *p = x.meta;
    memcpy(p, "sion", 4);
    memset(p + 4, be ? 1 : 0, 4); /* what SIONlib writes on a BE / LE host */
    put32(p + 8, 1007, be);        /* SIONlib 1.7 */
    put32(p + 12, 6, be);          /* patch level 6 */
    put32(p + 16, 5, be);          /* file format 5 */
    put32(p + 20, (uint32_t)lay->fsblksize, be);
    put32(p + 24, (uint32_t)n, be);
    put32(p + 28, 1, be);                          /* nfiles */
    put32(p + 32, lay->serial_api ? 1 : 0, be);    /* filenumber (serial API: 1) */
    put64(p + 36, (uint64_t)50 << 32, be);         /* flag1: key-value mode NONE */
    put64(p + 44, 0, be);                          /* flag2 */
    const char *prefix = lay->prefix ? lay->prefix : path;
    size_t plen = strlen(prefix);
    memcpy(p + 52, prefix, plen < PREFIX_LEN - 1 ? plen : PREFIX_LEN - 1); /* as SIONlib: cut */
    for (size_t t = 0; t < n; t++) {
        put64(p + 1076 + 8 * t, (uint64_t)t, be);          /* globalrank */
        put64(p + 1076 + 8 * (n + t), x.chunk[t], be);     /* chunksize */
    }
    put32(p + 1076 + 16 * n, (uint32_t)maxchunks, be);
    put64(p + 1080 + 16 * n, sov, be);
    if (pwrite_all(x.fd, p, (size_t)META1_SIZE(n), 0) != 0)
        goto write_error;

    /* 3./4. the ranks: 1 .. N-1, then 0 */
    if (!run->aggregates) {
        x.acc = calloc(m, sizeof *x.acc);
        x.heaps = calloc(m * d + 1, sizeof *x.heaps);
        x.dbls = calloc(2 * m * d + 1, sizeof *x.dbls);
        x.ints = calloc(2 * m * d + 1, sizeof *x.ints);
        if (!x.acc || !x.heaps || !x.dbls || !x.ints)
            goto oom;
        for (size_t i = 0; i < m; i++) {
            x.acc[i].heap = x.heaps + i * d;
            x.acc[i].retested = x.dbls + 2 * i * d;
            x.acc[i].slowest = x.dbls + 2 * i * d + d;
            x.acc[i].senders = x.ints + 2 * i * d;
            x.acc[i].receivers = x.ints + 2 * i * d + d;
        }
        c.acc = x.acc;
    }
    size_t bufcap = BUF_MIN;
    uint64_t biggest = 8 * (uint64_t)(n - 1);
    if (8 * (uint64_t)d > biggest)
        biggest = 8 * (uint64_t)d;
    if (strlen(h->mode) + 1 > biggest)
        biggest = strlen(h->mode) + 1;
    for (size_t t = 0; t < n; t++)
        if (strlen(run->hostnames[t]) + 1 > biggest)
            biggest = strlen(run->hostnames[t]) + 1;
    if (biggest > bufcap)
        bufcap = (size_t)biggest;
    x.buf = malloc(bufcap);
    if (!x.buf)
        goto oom;
    for (size_t k = 1; k <= n; k++) {
        size_t t = k % n; /* rank 0 last: its aggregates need every rank's times */
        if (t == 0 && c.acc) {
            /* add rank 0's own row, then the aggregates are complete */
            x.computed = malloc(m * sizeof *x.computed);
            if (!x.computed)
                goto oom;
            for (size_t i = 0; i < m; i++) {
                for (size_t q = 1; q < n; q++) {
                    double v = run->time(run->ctx, i, 0, q);
                    acc_add(&c.acc[i].times, v);
                    heap_offer(&c.acc[i], d, (slow_link){v, 0, (int64_t)q});
                }
                if (c.a2a)
                    acc_add(&c.acc[i].a2a, run->a2a(run->ctx, i, 0));
                perm_finish(&c.acc[i], d, i, run);
                x.computed[i] = c.acc[i].agg;
            }
            c.agg = x.computed;
        }
        emitter e;
        memset(&e, 0, sizeof e);
        e.rank = t;
        e.n = n;
        e.cap = x.chunk[t];
        e.fd = x.fd;
        e.startptr = x.startptr[t];
        e.globalskip = globalskip;
        e.buf = x.buf;
        e.bufcap = bufcap;
        e.buf_off = x.startptr[t];
        e.be = be;
        e.err = err;
        e.errlen = errlen;
        e.path = path;
        em_rank(&e, &c);
        if (e.failed)
            return fail_unlink(&x, path);
        if (e.total != x.stream[t] || e.block + 1 != x.blockcount[t]) {
            seterr(err, errlen, "%s: rank %zu: internal error: wrote %llu bytes in %llu blocks, "
                   "sized %llu in %llu", path, t, (unsigned long long)e.total,
                   (unsigned long long)e.block + 1, (unsigned long long)x.stream[t],
                   (unsigned long long)x.blockcount[t]);
            return fail_unlink(&x, path);
        }
    }

    /* 5. META2: block counts, then the bytes of each block, block-major */
    p = x.meta;
    memset(p, 0, meta2_len);
    for (size_t t = 0; t < n; t++)
        put64(p + 8 * t, x.blockcount[t], be);
    for (uint64_t i = 0; i < maxchunks * n; i++)
        put64(p + 8 * n + 8 * i, x.bytes[i], be);
    if (pwrite_all(x.fd, p, meta2_len, sov) != 0)
        goto write_error;
    if (lay->serial_api) {
        unsigned char zero[4] = {0, 0, 0, 0}; /* i32 mapping_size = 0 */
        if (pwrite_all(x.fd, zero, 4, sov + meta2_len) != 0)
            goto write_error;
    }
    int fd = x.fd;
    x.fd = -1;
    if (close(fd) != 0) {
        seterr(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        release(&x);
        unlink(path);
        return -1;
    }
    release(&x);
    return 0;

write_error:
    seterr(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    return fail_unlink(&x, path);
too_large:
    seterr(err, errlen, "%s: the file would be too large", path);
    return fail_unlink(&x, path);
oom:
    seterr(err, errlen, "%s: out of memory", path);
    return fail_unlink(&x, path);
}
