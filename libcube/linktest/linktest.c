/*
 * linktest.c - the LinkTest 2.1.17 payload inside a SION container (the
 * layout is in linktest-sion(5); testdata/linktest/README.md says how the
 * points LinkTest's own description leaves open are settled).
 */
#include "cube_linktest.h"
#include "linktest/linktest_private.h"
#include "linktest/sion_private.h"
#include "core/util_private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *hostname;
    int32_t core;
    uint64_t bytes;
    /* where the time row of iteration i starts in the rank's stream:
     * row0 + i * stride (every iteration's fields have the same sizes) */
    uint64_t row0, stride;
} lt_rank;

typedef struct {
    cube_linktest_permutation pub;
    double *retested, *slowest, *times, *a2a;
    int64_t *senders, *receivers;
    uint64_t *access;
} lt_perm;

struct cube_linktest {
    cube_linktest_header h;
    unsigned flags;
    int unclosed;
    message_list warnings;
    char *mode;
    size_t n, m;
    lt_rank *ranks;
    lt_perm *perms;
    int nfiles;
    int32_t fsblksize;
    int be;
    int v1; /* LinkTest 1.x file */
    sion_set *sion; /* kept open without the matrices: rows are read on demand */
    size_t helper_min_values; /* see linktest_set_helper_threshold */
    size_t num_hosts;         /* distinct host names, counted at open */
    cube_status status;       /* of the last call that changed the handle */
};

/* A rank's stream, read through a window: the small fields come from the
 * window, the big arrays go straight from the file to where they belong
 * (or are skipped), so that no stream is ever held whole. */
#define CURSOR_WINDOW 16384

typedef struct {
    const sion_set *s;
    size_t rank;
    size_t len, pos; /* the stream's length (recorded by SIONlib), position */
    int be;
    int unclosed; /* the stream is a whole chunk: may run on past the payload */
    unsigned char *win;
    size_t win_off, win_len; /* stream bytes [win_off, win_off + win_len) */
    cube_status *st;
} cursor;

static void cerr(cursor *c, cube_code code, const char *field, const char *fmt, ...)
    CUBE_PRINTF(4, 5);

static void cerr(cursor *c, cube_code code, const char *field, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    status_set(c->st, code, "%s: offset %llu (rank %zu, stream byte %zu): %s: %s",
               sion_set_task_file(c->s, c->rank),
               (unsigned long long)sion_set_task_file_offset(c->s, c->rank, c->pos), c->rank,
               c->pos, field, what);
}

static int need(cursor *c, size_t k, const char *field)
{
    if (k > c->len - c->pos) {
        cerr(c, CUBE_EFORMAT, field, "%zu bytes needed, the stream of %zu bytes ends (truncated)",
             k, c->len);
        return -1;
    }
    return 0;
}

/* The k bytes at the position (k <= CURSOR_WINDOW, checked by need()) in
 * the window; NULL after a read error. */
static const unsigned char *peek(cursor *c, size_t k)
{
    if (c->pos >= c->win_off && c->pos - c->win_off + k <= c->win_len)
        return c->win + (c->pos - c->win_off);
    /* small reads first: most ranks need a few dozen bytes here (host
     * name, core) before their arrays, which are read in place or skipped;
     * then growing, for the long runs of small fields of LinkTest 1.x */
    size_t grow = c->win_len ? 2 * c->win_len : 512;
    grow = grow < k ? k : grow > CURSOR_WINDOW ? CURSOR_WINDOW : grow;
    size_t want = c->len - c->pos < grow ? c->len - c->pos : grow;
    if (sion_set_read_range(c->s, c->rank, c->pos, c->win, want, c->st) != 0)
        return NULL;
    c->win_off = c->pos;
    c->win_len = want;
    return c->win;
}

static int g_bytes(cursor *c, void *out, size_t k, const char *field)
{
    if (need(c, k, field) != 0)
        return -1;
    if (k <= CURSOR_WINDOW) {
        const unsigned char *p = peek(c, k);
        if (!p)
            return -1;
        memcpy(out, p, k);
    } else if (sion_set_read_range(c->s, c->rank, c->pos, out, k, c->st) != 0) {
        return -1;
    }
    c->pos += k;
    return 0;
}

static int g_u32(cursor *c, uint32_t *v, const char *field)
{
    const unsigned char *p;
    if (need(c, 4, field) != 0 || !(p = peek(c, 4)))
        return -1;
    *v = c->be ? ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3])
               : ((uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]);
    c->pos += 4;
    return 0;
}

static int g_u64(cursor *c, uint64_t *v, const char *field)
{
    const unsigned char *p;
    if (need(c, 8, field) != 0 || !(p = peek(c, 8)))
        return -1;
    uint64_t x = 0;
    for (int i = 0; i < 8; i++)
        x = (x << 8) | p[c->be ? i : 7 - i];
    *v = x;
    c->pos += 8;
    return 0;
}

static int g_f64(cursor *c, double *v, const char *field)
{
    uint64_t x;
    if (g_u64(c, &x, field) != 0)
        return -1;
    memcpy(v, &x, sizeof *v);
    return 0;
}

static int g_tag(cursor *c, const char *tag, const char *field)
{
    size_t k = strlen(tag);
    const unsigned char *p;
    if (need(c, k, field) != 0 || !(p = peek(c, k)))
        return -1;
    if (memcmp(p, tag, k) != 0) {
        cerr(c, CUBE_EFORMAT, field, "expected \"%s\"", tag);
        return -1;
    }
    c->pos += k;
    return 0;
}

/* A 32-byte NUL-padded time string. */
static int g_time(cursor *c, char out[33], const char *field)
{
    if (g_bytes(c, out, 32, field) != 0)
        return -1;
    out[32] = '\0';
    return 0;
}

static int mul_ok(size_t a, size_t b, size_t *r)
{
    if (a && b > SIZE_MAX / a)
        return 0;
    *r = a * b;
    return 1;
}

static void *alloc_n(size_t n, size_t size)
{
    size_t t;
    if (!mul_ok(n, size, &t))
        return NULL;
    return malloc(t ? t : 1);
}

void cube_linktest_free(cube_linktest *lt)
{
    if (!lt)
        return;
    free(lt->mode);
    if (lt->ranks)
        for (size_t r = 0; r < lt->n; r++)
            free(lt->ranks[r].hostname);
    free(lt->ranks);
    if (lt->perms)
        for (size_t m = 0; m < lt->m; m++) {
            lt_perm *p = &lt->perms[m];
            free(p->retested);
            free(p->slowest);
            free(p->times);
            free(p->a2a);
            free(p->senders);
            free(p->receivers);
            free(p->access);
        }
    free(lt->perms);
    message_list_clear(&lt->warnings);
    if (lt->sion)
        sion_set_close(lt->sion);
    free(lt);
}

static int parse_header(cursor *c, cube_linktest *lt)
{
    cube_linktest_header *h = &lt->h;
    if (g_tag(c, "LinkTest", "LinkTest ID string") != 0)
        return -1;
    memcpy(h->tag, "LinkTest", 9);
    size_t vpos = c->pos;
    if (g_u32(c, &h->major, "LinkTest major version") != 0 ||
        g_u32(c, &h->minor, "LinkTest minor version") != 0 ||
        g_u32(c, &h->patch, "LinkTest patch level") != 0)
        return -1;
    if (h->major != 2 || h->minor != 1) {
        c->pos = vpos;
        cerr(c, CUBE_EUNSUPPORTED, "LinkTest version", "%u.%u.%u is not supported (2.1.x)",
             (unsigned)h->major, (unsigned)h->minor, (unsigned)h->patch);
        return -1;
    }
    if (g_bytes(c, h->git_hash, 41, "LinkTest git hash") != 0)
        return -1;
    h->git_hash[41] = '\0';
    if (g_u32(c, &h->mode_length, "LinkTest mode length") != 0)
        return -1;
    if (h->mode_length == 0 || need(c, h->mode_length, "LinkTest mode") != 0) {
        if (h->mode_length == 0)
            cerr(c, CUBE_EFORMAT, "LinkTest mode length", "0 (the length counts the NUL)");
        return -1;
    }
    lt->mode = malloc((size_t)h->mode_length + 1);
    if (!lt->mode) {
        cerr(c, CUBE_ENOMEM, "LinkTest mode", "out of memory");
        return -1;
    }
    if (g_bytes(c, lt->mode, h->mode_length, "LinkTest mode") != 0)
        return -1;
    lt->mode[h->mode_length] = '\0';
    h->mode = lt->mode;
    uint8_t fl[13];
    if (g_bytes(c, fl, 13, "LinkTest flags") != 0)
        return -1;
    h->all_to_all = fl[0];
    h->bidirectional = fl[1];
    h->unidirectional = fl[2];
    h->bisection = fl[3];
    h->step_randomization = fl[4];
    h->serial = fl[5];
    h->no_sion_file = fl[6];
    h->parallel_sion = fl[7];
    h->gpu_memory = fl[8];
    h->multi_buffer = fl[9];
    h->randomized_buffer = fl[10];
    h->check_buffer = fl[11];
    h->memory_allocator_type = fl[12];
    if (g_u64(c, &h->num_messages, "number of messages") != 0 ||
        g_u64(c, &h->message_size, "message size") != 0 ||
        g_u64(c, &h->num_warmup_messages, "number of warm-up messages") != 0 ||
        g_u64(c, &h->num_serial_retests, "number of serial retests") != 0 ||
        g_u64(c, &h->num_multi_buffers, "number of multiple buffers") != 0 ||
        g_u64(c, &h->buffer_randomization_seed, "buffer randomization seed") != 0 ||
        g_u64(c, &h->num_randomized_tasks, "number of randomized tasks") != 0 ||
        g_u64(c, &h->task_randomization_seed, "task randomization seed") != 0)
        return -1;
    return g_tag(c, "END_HEADER", "END_HEADER");
}

static int parse_chunk_header(cursor *c, lt_rank *r)
{
    uint32_t hl;
    if (g_u32(c, &hl, "hostname length") != 0)
        return -1;
    if (hl == 0) {
        c->pos -= 4;
        cerr(c, CUBE_EFORMAT, "hostname length", "0 (the length counts the NUL)");
        return -1;
    }
    if (need(c, hl, "hostname") != 0)
        return -1;
    r->hostname = malloc((size_t)hl + 1);
    if (!r->hostname) {
        cerr(c, CUBE_ENOMEM, "hostname", "out of memory");
        return -1;
    }
    if (g_bytes(c, r->hostname, hl, "hostname") != 0)
        return -1;
    r->hostname[hl] = '\0';
    uint32_t core;
    if (g_u32(c, &core, "core id") != 0)
        return -1;
    r->core = (int32_t)core;
    return 0;
}

/* Reverse the bytes of `count` 8-byte values in place (a file of the
 * other byte order). */
static void swap64s(void *values, size_t count)
{
    unsigned char *p = values;
    for (size_t i = 0; i < count; i++, p += 8)
        for (int b = 0; b < 4; b++) {
            unsigned char t = p[b];
            p[b] = p[7 - b];
            p[7 - b] = t;
        }
}

/* The N-1 8-byte values (doubles or u64) at stream byte `at` of a rank
 * into row[N]: partner k < rank at column k, else k + 1, two runs around
 * the diagonal read from the file straight into place, in host order.
 * Used at open (into the matrices) and later for rows left in the file. */
static int read_row_at(const sion_set *s, int be, size_t rank, uint64_t at, size_t n,
                       unsigned char *dst, cube_status *st)
{
    size_t k = (n - 1) * 8;
    if (sion_set_read_range(s, rank, at, dst, rank * 8, st) != 0 ||
        sion_set_read_range(s, rank, at + rank * 8, dst + (rank + 1) * 8, k - rank * 8, st) != 0)
        return -1;
    if (be != host_is_big_endian()) {
        swap64s(dst, rank);
        swap64s(dst + (rank + 1) * 8, n - 1 - rank);
    }
    return 0;
}

/* A row of the stream at the cursor: read into row[N], or skipped (NULL). */
static int g_row(cursor *c, size_t n, size_t rank, void *row, const char *field)
{
    if (n < 2)
        return 0;
    size_t k = (n - 1) * 8;
    if (need(c, k, field) != 0)
        return -1;
    if (row && read_row_at(c->s, c->be, rank, c->pos, n, row, c->st) != 0)
        return -1;
    c->pos += k;
    return 0;
}

static int parse_rank_data(cursor *c, cube_linktest *lt, lt_perm *p, size_t rank)
{
    size_t n = lt->n;
    if (g_row(c, n, rank, p->times ? p->times + rank * n : NULL, "timing data") != 0 ||
        g_row(c, n, rank, p->access ? p->access + rank * n : NULL, "access pattern") != 0)
        return -1;
    if (lt->h.all_to_all && g_f64(c, &p->a2a[rank], "all-to-all timing") != 0)
        return -1;
    return 0;
}

static int parse_rank0_extra(cursor *c, cube_linktest *lt, lt_perm *p)
{
    cube_linktest_permutation *q = &p->pub;
    size_t d = q->num_slow;
    if (g_time(c, q->start_time, "start time") != 0 || g_f64(c, &q->min, "minimum time") != 0 ||
        g_f64(c, &q->avg, "average time") != 0 || g_f64(c, &q->max, "maximum time") != 0)
        return -1;
    if (lt->h.all_to_all) {
        if (g_f64(c, &q->a2a_min, "all-to-all minimum time") != 0 ||
            g_f64(c, &q->a2a_avg, "all-to-all average time") != 0 ||
            g_f64(c, &q->a2a_max, "all-to-all maximum time") != 0)
            return -1;
    }
    for (size_t i = 0; i < d; i++)
        if (g_f64(c, &p->retested[i], "retested slow timings") != 0)
            return -1;
    for (size_t i = 0; i < d; i++)
        if (g_f64(c, &p->slowest[i], "slowest timings") != 0)
            return -1;
    for (size_t i = 0; i < d; i++)
        if (g_u64(c, (uint64_t *)&p->senders[i], "slow sending partners") != 0)
            return -1;
    for (size_t i = 0; i < d; i++)
        if (g_u64(c, (uint64_t *)&p->receivers[i], "slow receiving partners") != 0)
            return -1;
    return g_time(c, q->end_time, "end time");
}

/* The only layout accepted is the one whose fields end exactly where the
 * stream SIONlib recorded for the rank ends. */
static int expect_stream_end(cursor *c, const char *field, const char *last)
{
    if (c->pos == c->len || c->unclosed)
        return 0;
    size_t extra = c->len - c->pos;
    cerr(c, CUBE_EFORMAT, field,
         "%zu byte%s follow%s %s; the stream (%zu bytes recorded by SIONlib) is longer than its "
         "fields",
         extra, extra == 1 ? "" : "s", extra == 1 ? "s" : "", last, c->len);
    return -1;
}

static int parse_end(cursor *c)
{
    if (g_tag(c, "END_BLOCK", "END_BLOCK") != 0)
        return -1;
    return expect_stream_end(c, "END_BLOCK", "END_BLOCK");
}

static int alloc_perms(cursor *c, cube_linktest *lt)
{
    size_t n = lt->n, m = lt->m, d = (size_t)lt->h.num_serial_retests, nn;
    if (!mul_ok(n, n, &nn)) {
        cerr(c, CUBE_ENOMEM, "ntasks", "too many ranks");
        return -1;
    }
    lt->perms = calloc(m, sizeof *lt->perms);
    if (!lt->perms)
        goto oom;
    for (size_t i = 0; i < m; i++) {
        lt_perm *p = &lt->perms[i];
        /* without the matrices (never for LinkTest 1.x files, which are
         * small and laid out otherwise) the rows stay in the file */
        if ((!(lt->flags & CUBE_LINKTEST_NO_MATRICES) || lt->v1) &&
            !(p->times = alloc_n(nn, sizeof *p->times)))
            goto oom;
        if (!(lt->flags & (CUBE_LINKTEST_NO_ACCESS_PATTERN | CUBE_LINKTEST_NO_MATRICES)) &&
            !(p->access = alloc_n(nn, sizeof *p->access)))
            goto oom;
        p->retested = alloc_n(d, sizeof(double));
        p->slowest = alloc_n(d, sizeof(double));
        p->senders = alloc_n(d, sizeof(int64_t));
        p->receivers = alloc_n(d, sizeof(int64_t));
        if (lt->h.all_to_all)
            p->a2a = alloc_n(n, sizeof(double));
        if (!p->retested || !p->slowest || !p->senders ||
            !p->receivers || (lt->h.all_to_all && !p->a2a))
            goto oom;
        for (size_t r = 0; r < n; r++) {
            if (p->times)
                p->times[r * n + r] = NAN;
            if (p->access)
                p->access[r * n + r] = 0;
        }
        cube_linktest_permutation *q = &p->pub;
        q->num_slow = d;
        q->a2a_min = q->a2a_avg = q->a2a_max = NAN;
        q->retested_slow_timings = p->retested;
        q->slowest_timings = p->slowest;
        q->slow_sending_partners = p->senders;
        q->slow_receiving_partners = p->receivers;
        q->times = p->times;
        q->access_pattern = p->access;
        q->all_to_all_times = p->a2a;
    }
    return 0;
oom:
    cerr(c, CUBE_ENOMEM, "permutations", "out of memory");
    return -1;
}

/* ---- LinkTest 1.x (tag "LKTST"; its layout is in linktest-sion(5)) ---- */

static int g_i32(cursor *c, int32_t *v, const char *field)
{
    uint32_t x;
    if (g_u32(c, &x, field) != 0)
        return -1;
    *v = (int32_t)x;
    return 0;
}

static int is_v1(const unsigned char *p, size_t len)
{
    return len >= 5 && memcmp(p, "LKTST", 5) == 0;
}

/* One rank's LinkTest 1.x stream.  Rank 0 first: it carries the run's
 * statistics and sets up the single permutation. */
static int parse_v1_rank(cursor *c, cube_linktest *lt, size_t rank)
{
    cube_linktest_header *h = &lt->h;
    size_t n = lt->n;
    int32_t ver[3];
    if (g_tag(c, "LKTST", "LinkTest 1.x ID string") != 0)
        return -1;
    size_t vpos = c->pos;
    for (int i = 0; i < 3; i++)
        if (g_i32(c, &ver[i], "LinkTest 1.x version") != 0)
            return -1;
    if (ver[0] != 1 || ver[1] < 0) {
        c->pos = vpos;
        cerr(c, CUBE_EUNSUPPORTED, "LinkTest 1.x version", "%d.%d.%d is not supported (1.x)",
             (int)ver[0], (int)ver[1], (int)ver[2]);
        return -1;
    }
    if (rank == 0) {
        memcpy(h->tag, "LKTST", 6);
        h->major = (uint32_t)ver[0];
        h->minor = (uint32_t)ver[1];
        h->patch = (uint32_t)ver[2];
    } else if ((uint32_t)ver[1] != h->minor) {
        c->pos = vpos;
        cerr(c, CUBE_EFORMAT, "LinkTest 1.x version", "differs from rank 0's");
        return -1;
    }
    char loc[257];
    if (g_bytes(c, loc, 256, "location (hostname)") != 0)
        return -1;
    loc[256] = '\0';
    lt_rank *r = &lt->ranks[rank];
    r->hostname = malloc(strlen(loc) + 1);
    if (!r->hostname) {
        cerr(c, CUBE_ENOMEM, "location (hostname)", "out of memory");
        return -1;
    }
    strcpy(r->hostname, loc);
    r->core = -1; /* not stored by LinkTest 1.x */
    int nmap = h->minor >= 4 ? 6 : 4;
    for (int i = 0; i < nmap; i++) {
        int32_t dummy;
        if (g_i32(c, &dummy, "mapping") != 0)
            return -1;
    }
    double statdp[10];
    if (rank == 0) {
        int32_t stat[10];
        for (int i = 0; i < 10; i++)
            if (g_i32(c, &stat[i], "stat") != 0)
                return -1;
        for (int i = 0; i < 10; i++)
            if (g_f64(c, &statdp[i], "statdp") != 0)
                return -1;
        h->num_messages = stat[0] > 0 ? (uint64_t)stat[0] : 0;
        h->message_size = stat[1] > 0 ? (uint64_t)stat[1] : 0;
        h->all_to_all = stat[2] != 0;
        h->step_randomization = stat[5] != 0;
        h->parallel_sion = 1;
        h->num_serial_retests = n;
        h->num_randomized_tasks = 1;
        /* every rank needs 12 bytes per partner: bounds the matrices */
        uint64_t total = 0;
        for (size_t i = 0; i < n; i++)
            total += lt->ranks[i].bytes;
        if (n > (c->len - c->pos) / 12 || 12 * (uint64_t)n > total / n) {
            cerr(c, CUBE_EFORMAT, "timings", "%zu ranks do not fit in the %zu bytes left", n,
                 c->len - c->pos);
            return -1;
        }
        lt->m = 1;
        if (alloc_perms(c, lt) != 0)
            return -1;
        cube_linktest_permutation *q = &lt->perms[0].pub;
        q->min = statdp[0];
        q->max = statdp[1];
        q->avg = statdp[2];
        if (h->all_to_all) {
            q->a2a_min = statdp[3];
            q->a2a_max = statdp[4];
            q->a2a_avg = statdp[5];
        }
        /* the per-rank all-to-all times of 1.x are per step: not exposed */
        q->all_to_all_times = NULL;
    }
    lt_perm *p = &lt->perms[0];
    for (size_t k = 0; k < n; k++) {
        double t;
        if (g_f64(c, &t, "timings") != 0)
            return -1;
        if (k != rank)
            p->times[rank * n + k] = t;
    }
    for (size_t k = 0; k < n; k++) {
        int32_t a;
        if (g_i32(c, &a, "access") != 0)
            return -1;
        if (k != rank && p->access)
            p->access[rank * n + k] = a > 0 ? (uint64_t)a : 0;
    }
    if (h->all_to_all)
        for (size_t k = 0; k < n; k++) {
            double t;
            if (g_f64(c, &t, "all-to-all times") != 0)
                return -1;
        }
    if (rank == 0) {
        for (size_t k = 0; k < n; k++)
            if (g_f64(c, &p->retested[k], "retested times") != 0)
                return -1;
        for (size_t k = 0; k < n; k++)
            if (g_f64(c, &p->slowest[k], "original times") != 0)
                return -1;
        for (size_t k = 0; k < n; k++) {
            int32_t v;
            if (g_i32(c, &v, "retest from") != 0)
                return -1;
            p->senders[k] = v;
        }
        for (size_t k = 0; k < n; k++) {
            int32_t v;
            if (g_i32(c, &v, "retest to") != 0)
                return -1;
            p->receivers[k] = v;
        }
    }
    return expect_stream_end(c, "end of rank data", "the last field");
}

static int add_warning(cube_linktest *lt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = message_list_addv(&lt->warnings, fmt, ap);
    va_end(ap);
    return rc;
}

cube_linktest *cube_linktest_open(const char *path, cube_status *status)
{
    return cube_linktest_open_with(path, 0, status);
}

static cube_linktest *open_with(const char *path, unsigned flags, cube_status *st);

cube_linktest *cube_linktest_open_with(const char *path, unsigned flags, cube_status *status)
{
    /* the reasons go to a status of our own: the caller's may be NULL,
     * and a failure on a never-closed file gets a note appended */
    cube_status st;
    status_ok(&st);
    cube_linktest *lt = NULL;
    if (!path)
        status_set(&st, CUBE_EINVAL, "cube_linktest_open: no path");
    else
        lt = open_with(path, flags, &st);
    status_copy(status, &st);
    return lt;
}

static cube_linktest *open_with(const char *path, unsigned flags, cube_status *st)
{
    sion_set *s = sion_set_open(path, st);
    if (!s)
        return NULL;
    cube_linktest *lt = calloc(1, sizeof *lt);
    unsigned char *win = malloc(CURSOR_WINDOW);
    if (!lt || !win) {
        free(lt);
        free(win);
        status_set(st, CUBE_ENOMEM, "%s: out of memory", path);
        sion_set_close(s);
        return NULL;
    }
    lt->flags = flags;
    lt->helper_min_values = LINKTEST_HELPER_MIN_VALUES;
    lt->unclosed = sion_set_unclosed(s);
    if (lt->unclosed &&
        add_warning(lt,
                    "%s: the writer never closed the file (no trailing SIONlib metadata): read "
                    "on a best-effort basis, each rank's data from the first block of its chunk",
                    path) != 0) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    lt->nfiles = sion_set_nfiles(s);
    lt->fsblksize = sion_set_fsblksize(s);
    lt->be = sion_set_big_endian(s);
    size_t n = sion_set_ntasks(s);
    lt->ranks = calloc(n, sizeof *lt->ranks);
    if (!lt->ranks) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    lt->n = n;
    /* The bytes all ranks' streams need at the least, against what SIONlib
     * recorded: bounds every allocation below. */
    uint64_t total = 0;
    for (size_t r = 0; r < n; r++) {
        lt->ranks[r].bytes = sion_set_task_bytes(s, r);
        total += lt->ranks[r].bytes;
    }
    for (size_t r = 0; r < n; r++) {
        cursor c = {s, r, (size_t)lt->ranks[r].bytes, 0, lt->be, lt->unclosed, win, 0, 0, st};
        const unsigned char *head = c.len >= 5 ? peek(&c, 5) : NULL;
        if (c.len >= 5 && !head)
            goto fail;
        if (r == 0 && head && is_v1(head, 5)) {
            lt->v1 = 1;
            lt->mode = malloc(1);
            if (!lt->mode) {
                cerr(&c, CUBE_ENOMEM, "LinkTest mode", "out of memory");
                goto fail;
            }
            lt->mode[0] = '\0';
            lt->h.mode = lt->mode;
        }
        if (lt->v1) {
            if (parse_v1_rank(&c, lt, r) != 0)
                goto fail;
            if (lt->unclosed)
                lt->ranks[r].bytes = c.pos; /* what the payload took of the chunk */
            continue;
        }
        if (r == 0) {
            if (parse_header(&c, lt) != 0)
                goto fail;
            uint64_t m = lt->h.num_randomized_tasks, d = lt->h.num_serial_retests;
            size_t rest = c.len - c.pos;
            /* rank 0's data per permutation: at least 88 bytes + 32 per retest */
            if (m == 0 || m > rest / 88) {
                c.pos -= 10 + 16;
                if (m == 0)
                    cerr(&c, CUBE_EFORMAT, "number of randomized tasks",
                         "0 (at least one iteration is stored)");
                else
                    cerr(&c, CUBE_EFORMAT, "number of randomized tasks",
                         "%llu permutations do not fit in the %zu bytes left",
                         (unsigned long long)m, rest);
                goto fail;
            }
            if (d > rest / 32 / m) {
                c.pos -= 10 + 40;
                cerr(&c, CUBE_EFORMAT, "number of serial retests",
                     "%llu retests do not fit in the %zu bytes left", (unsigned long long)d, rest);
                goto fail;
            }
            /* every rank stores 16(N-1) bytes per permutation */
            if (n > 1 && m * 16 * (uint64_t)(n - 1) > total / n + 1) {
                c.pos -= 10 + 16;
                cerr(&c, CUBE_EFORMAT, "number of randomized tasks",
                     "%llu permutations of %zu ranks need more bytes than recorded",
                     (unsigned long long)m, n);
                goto fail;
            }
            lt->m = (size_t)m;
            if (alloc_perms(&c, lt) != 0)
                goto fail;
        }
        if (parse_chunk_header(&c, &lt->ranks[r]) != 0)
            goto fail;
        for (size_t i = 0; i < lt->m; i++) {
            if (r == 0 && parse_rank0_extra(&c, lt, &lt->perms[i]) != 0)
                goto fail;
            if (i == 0)
                lt->ranks[r].row0 = c.pos;
            else if (i == 1)
                lt->ranks[r].stride = c.pos - lt->ranks[r].row0;
            if (parse_rank_data(&c, lt, &lt->perms[i], r) != 0)
                goto fail;
        }
        if (parse_end(&c) != 0)
            goto fail;
        if (lt->unclosed)
            lt->ranks[r].bytes = c.pos;
    }
    free(win);
    size_t *host_of, *first;
    if (linktest_group_hosts(lt, &host_of, &first, &lt->num_hosts) != 0) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", path);
        cube_linktest_free(lt);
        sion_set_close(s);
        return NULL;
    }
    free(host_of);
    free(first);
    if (lt->perms && !lt->perms[0].times)
        lt->sion = s; /* the rows are read from the file when asked for */
    else
        sion_set_close(s);
    return lt;
fail:
    if (lt->unclosed && strlen(st->message) + 80 < sizeof st->message)
        strcat(st->message,
               " (the file was never closed: its payload may not be in the first blocks)");
    free(win);
    cube_linktest_free(lt);
    sion_set_close(s);
    return NULL;
}

const cube_linktest_header *cube_linktest_get_header(const cube_linktest *lt) { return &lt->h; }
size_t cube_linktest_num_ranks(const cube_linktest *lt) { return lt->n; }
size_t cube_linktest_num_permutations(const cube_linktest *lt) { return lt->m; }

const char *cube_linktest_hostname(const cube_linktest *lt, size_t rank)
{
    return rank < lt->n ? lt->ranks[rank].hostname : NULL;
}

int32_t cube_linktest_core_id(const cube_linktest *lt, size_t rank)
{
    return rank < lt->n ? lt->ranks[rank].core : -1;
}

uint64_t cube_linktest_stream_bytes(const cube_linktest *lt, size_t rank)
{
    return rank < lt->n ? lt->ranks[rank].bytes : 0;
}

const cube_linktest_permutation *cube_linktest_get_permutation(const cube_linktest *lt, size_t m)
{
    return m < lt->m ? &lt->perms[m].pub : NULL;
}

int cube_linktest_num_files(const cube_linktest *lt) { return lt->nfiles; }
int32_t cube_linktest_fsblksize(const cube_linktest *lt) { return lt->fsblksize; }
int cube_linktest_big_endian(const cube_linktest *lt) { return lt->be; }
int cube_linktest_unclosed(const cube_linktest *lt) { return lt->unclosed; }
size_t cube_linktest_num_warnings(const cube_linktest *lt) { return lt->warnings.count; }

const char *cube_linktest_warning(const cube_linktest *lt, size_t i)
{
    return message_list_get(&lt->warnings, i);
}

size_t cube_linktest_num_hosts(const cube_linktest *lt)
{
    return lt->num_hosts;
}
cube_code cube_linktest_error_code(const cube_linktest *lt)
{
    return lt->status.code;
}
const char *cube_linktest_error(const cube_linktest *lt)
{
    return lt->status.message;
}
cube_status *linktest_status(cube_linktest *lt)
{
    return &lt->status;
}

void linktest_set_helper_threshold(cube_linktest *lt, size_t min_values)
{
    lt->helper_min_values = min_values;
}

size_t linktest_helper_threshold(const cube_linktest *lt) { return lt->helper_min_values; }

int cube_linktest_read_row(cube_linktest *lt, size_t iteration, size_t rank, double *row)
{
    status_ok(&lt->status);
    return linktest_read_row(lt, iteration, rank, row, &lt->status);
}

int linktest_read_row(const cube_linktest *lt, size_t iteration, size_t rank, double *row,
                      cube_status *st)
{
    size_t n = lt->n;
    if (iteration >= lt->m || rank >= n) {
        status_set(st, CUBE_EINVAL, "row %zu of iteration %zu: no such row", rank, iteration);
        return -1;
    }
    const lt_perm *p = &lt->perms[iteration];
    if (p->times) {
        memcpy(row, p->times + rank * n, n * sizeof *row);
        return 0;
    }
    const lt_rank *r = &lt->ranks[rank];
    if (n > 1 && read_row_at(lt->sion, lt->be, rank, r->row0 + iteration * r->stride, n,
                             (unsigned char *)row, st) != 0)
        return -1;
    row[rank] = NAN;
    return 0;
}
