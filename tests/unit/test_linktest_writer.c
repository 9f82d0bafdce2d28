/*
 * test_linktest_writer.c - the LinkTest SION writer of tests/support:
 *   - fed with the values of the files in testdata/linktest/, it writes
 *     those files byte for byte (container and payload; the per-rank
 *     streams also for the two-file set, which it does not write as a set),
 *     with the aggregates given and with the aggregates it computes;
 *   - whatever it writes (both byte orders, aligned and packed chunks,
 *     several blocks, all-to-all on and off, M = 1 and 3, d = 0 and 4,
 *     odd host-name lengths, N = 1, 2, 5, 64), cube_linktest_open reads
 *     back exactly: every header field, host name, core id, matrix entry
 *     (bit for bit), access step, all-to-all time and aggregate;
 *   - bad runs and layouts fail with a message and leave no file.
 * A test of internals: it includes linktest/sion_private.h (the library's
 * SION container reader) to compare the per-rank payload streams of a set,
 * which the public interface does not hand out.
 */
#include "test_support.h"
#include "cube_linktest.h"
#include "linktest_expected.h"
#include "linktest_writer.h"
#include "linktest/sion_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_ok(const char *path, const ltw_run *run, const ltw_layout *lay)
{
    char err[1024] = "";
    if (ltw_write(path, run, lay, err, sizeof err) != 0)
        fail_msg("writing %s failed: %s", path, err);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static uint64_t get_u(const unsigned char *p, int len, int be)
{
    uint64_t v = 0;
    for (int i = 0; i < len; i++)
        v = (v << 8) | p[be ? i : len - 1 - i];
    return v;
}

/* ---- the files of testdata/linktest/ -------------------------------------- */

/* The values of one expected file as writer callbacks. */
typedef struct {
    const lt_exp_file *e;
} exp_ctx;

static double exp_time(void *ctx, size_t it, size_t r, size_t p)
{
    const lt_exp_file *e = ((exp_ctx *)ctx)->e;
    return e->perms[it].times[r * e->N + p];
}

static uint64_t exp_access(void *ctx, size_t it, size_t r, size_t p)
{
    const lt_exp_file *e = ((exp_ctx *)ctx)->e;
    return e->perms[it].access[r * e->N + p];
}

static double exp_a2a(void *ctx, size_t it, size_t r)
{
    return ((exp_ctx *)ctx)->e->perms[it].a2a[r];
}

/* The serial retest of a pair is only known for the pairs in the slow
 * list; the writer must ask for no other. */
static double exp_retest(void *ctx, size_t it, size_t r, size_t p)
{
    const lt_exp_file *e = ((exp_ctx *)ctx)->e;
    const lt_exp_perm *x = &e->perms[it];
    for (size_t k = 0; k < e->d; k++)
        if (x->senders[k] == (long long)r && x->receivers[k] == (long long)p)
            return x->retested[k];
    fail_msg("%s: retest asked for (%zu, %zu) in iteration %zu, not in the slow list", e->file,
             r, p, it);
    return 0;
}

typedef struct {
    const char *hostnames[8];
    int32_t cores[8];
    const char *starts[8], *ends[8];
    ltw_aggregate agg[8];
    int64_t snd[8][8], rcv[8][8];
} exp_arrays;

/* A run with the values of `e`; aggregates given or (NULL) computed. */
static void exp_run(const lt_exp_file *e, exp_ctx *ctx, exp_arrays *a, int given, ltw_run *run)
{
    assert_true(e->N <= 8 && e->M <= 8 && e->d <= 8);
    ctx->e = e;
    ltw_run_init(run, e->N);
    ltw_header *h = &run->header;
    const unsigned long long *v = e->hdr;
    h->major = (uint32_t)v[0];
    h->minor = (uint32_t)v[1];
    h->patch = (uint32_t)v[2];
    /* v[3] is the mode length: the writer derives it from the mode */
    h->all_to_all = (uint8_t)v[4];
    h->bidirectional = (uint8_t)v[5];
    h->unidirectional = (uint8_t)v[6];
    h->bisection = (uint8_t)v[7];
    h->step_randomization = (uint8_t)v[8];
    h->serial = (uint8_t)v[9];
    h->no_sion_file = (uint8_t)v[10];
    h->parallel_sion = (uint8_t)v[11];
    h->gpu_memory = (uint8_t)v[12];
    h->multi_buffer = (uint8_t)v[13];
    h->randomized_buffer = (uint8_t)v[14];
    h->check_buffer = (uint8_t)v[15];
    h->memory_allocator_type = (uint8_t)v[16];
    h->num_messages = v[17];
    h->message_size = v[18];
    h->num_warmup_messages = v[19];
    h->num_serial_retests = v[20];
    h->num_multi_buffers = v[21];
    h->buffer_randomization_seed = v[22];
    h->num_randomized_tasks = v[23];
    h->task_randomization_seed = v[24];
    h->git_hash = e->git_hash;
    h->mode = e->mode;
    assert_int_equal(strlen(e->mode) + 1, v[3]);
    for (size_t r = 0; r < e->N; r++) {
        a->hostnames[r] = e->ranks[r].hostname;
        a->cores[r] = e->ranks[r].core_id;
    }
    for (size_t i = 0; i < e->M; i++) {
        const lt_exp_perm *x = &e->perms[i];
        a->starts[i] = x->start_time;
        a->ends[i] = x->end_time;
        for (size_t k = 0; k < e->d; k++) {
            a->snd[i][k] = x->senders[k];
            a->rcv[i][k] = x->receivers[k];
        }
        a->agg[i] = (ltw_aggregate){x->min,      x->avg,      x->max,      x->a2a_min,
                                    x->a2a_avg,  x->a2a_max,  x->retested, x->slowest,
                                    a->snd[i],   a->rcv[i]};
    }
    run->hostnames = a->hostnames;
    run->core_ids = a->cores;
    run->start_times = a->starts;
    run->end_times = a->ends;
    run->ctx = ctx;
    run->time = exp_time;
    run->access = exp_access;
    run->a2a = e->hdr[4] ? exp_a2a : NULL;
    run->aggregates = given ? a->agg : NULL;
    run->retest = exp_retest;
}

static const lt_exp_file *find_exp(const char *file)
{
    for (size_t i = 0; i < LT_EXP_NFILES; i++)
        if (strcmp(lt_exp_files[i].file, file) == 0)
            return &lt_exp_files[i];
    fail_msg("%s: not in linktest_expected.h", file);
    return NULL;
}

/* How each test file's container was laid out (its sion_layout). */
static const struct {
    const char *file, *prefix;
    int32_t fsblksize;
    int big_endian, packed, serial_api;
    uint64_t chunk_limit;
} exp_layouts[] = {
    {"lt4_basic.sion", "lt4_basic.sion", 4096, 0, 0, 0, 0},
    {"lt4_bigendian.sion", "lt4_basic.sion", 4096, 1, 0, 0, 0}, /* made from lt4_basic */
    {"lt4_multiblock.sion", "lt4_multiblock.sion", 512, 0, 0, 0, 512},
    {"lt4_coll.sion", "lt4_coll.sion", 4096, 0, 1, 0, 0},
    {"lt8_fs64k.sion", "lt8_fs64k.sion", 65536, 0, 0, 0, 0},
    {"lt2_a2a_M3.sion", "lt2_a2a_M3.sion", 4096, 0, 0, 1, 0},
};

static void test_reproduces_testdata(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof exp_layouts / sizeof exp_layouts[0]; i++) {
        const lt_exp_file *e = find_exp(exp_layouts[i].file);
        char rel[256];
        snprintf(rel, sizeof rel, "linktest/%s", e->file);
        size_t want_len;
        char *want = slurp(testdata(rel), &want_len);
        ltw_layout lay;
        ltw_layout_init(&lay);
        lay.prefix = exp_layouts[i].prefix;
        lay.fsblksize = exp_layouts[i].fsblksize;
        lay.big_endian = exp_layouts[i].big_endian;
        lay.packed = exp_layouts[i].packed;
        lay.serial_api = exp_layouts[i].serial_api;
        lay.chunk_limit = exp_layouts[i].chunk_limit;
        for (int given = 0; given < 2; given++) {
            exp_ctx ctx;
            exp_arrays a;
            ltw_run run;
            exp_run(e, &ctx, &a, given, &run);
            for (size_t r = 0; r < e->N; r++)
                assert_int_equal(ltw_stream_bytes(&run, r), e->ranks[r].stream_bytes);
            char *path = temp_path(".sion");
            write_ok(path, &run, &lay);
            size_t got_len;
            char *got = slurp(path, &got_len);
            if (got_len != want_len)
                fail_msg("%s (aggregates %s): %zu bytes written, the file has %zu", e->file,
                         given ? "given" : "computed", got_len, want_len);
            for (size_t k = 0; k < got_len; k++)
                if (got[k] != want[k])
                    fail_msg("%s (aggregates %s): first difference at byte %zu: 0x%02x, "
                             "expected 0x%02x",
                             e->file, given ? "given" : "computed", k,
                             (unsigned)(unsigned char)got[k], (unsigned)(unsigned char)want[k]);
            free(got);
            unlink(path);
            free(path);
        }
        free(want);
    }
}

/* The payload streams of every test file, lt4_2files included (which the
 * writer cannot write as a set of two files): the same bytes per rank. */
static void test_reproduces_streams(void **state)
{
    (void)state;
    for (size_t i = 0; i < LT_EXP_NFILES; i++) {
        const lt_exp_file *e = &lt_exp_files[i];
        char rel[256];
        cube_status st;
        snprintf(rel, sizeof rel, "linktest/%s", e->file);
        exp_ctx ctx;
        exp_arrays a;
        ltw_run run;
        exp_run(e, &ctx, &a, 0, &run);
        ltw_layout lay;
        ltw_layout_init(&lay);
        lay.big_endian = e->big_endian;
        char *path = temp_path(".sion");
        write_ok(path, &run, &lay);
        sion_set *want = sion_set_open(testdata(rel), &st);
        if (!want)
            fail_msg("%s", st.message);
        sion_set *got = sion_set_open(path, &st);
        if (!got)
            fail_msg("%s", st.message);
        assert_int_equal(sion_set_ntasks(got), e->N);
        for (size_t r = 0; r < e->N; r++) {
            size_t wl = (size_t)sion_set_task_bytes(want, r);
            size_t gl = (size_t)sion_set_task_bytes(got, r);
            unsigned char *wb = malloc(wl + 1), *gb = malloc(gl + 1);
            assert_true(wb && gb);
            if (sion_set_read_range(want, r, 0, wb, wl, &st) != 0 ||
                sion_set_read_range(got, r, 0, gb, gl, &st) != 0)
                fail_msg("%s: rank %zu: %s", e->file, r, st.message);
            if (wl != gl || memcmp(wb, gb, wl) != 0)
                fail_msg("%s: rank %zu: the stream differs (%zu bytes, expected %zu)", e->file,
                         r, gl, wl);
            free(wb);
            free(gb);
        }
        sion_set_close(want);
        sion_set_close(got);
        unlink(path);
        free(path);
    }
}

/* ---- synthetic runs read back ---------------------------------------------- */

typedef struct {
    size_t n;
    uint64_t seed;
    int arbitrary; /* any bit pattern, not multiples of 2^-40 */
} syn_ctx;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static double syn_value(const syn_ctx *s, uint64_t key)
{
    uint64_t h = mix(s->seed ^ mix(key));
    if (s->arbitrary) {
        /* a double in [1e-6, 3e-5) with all 52 fraction bits in use */
        double v;
        uint64_t bits = ((uint64_t)1003 << 52) | (h & ((UINT64_C(1) << 52) - 1)); /* [2^-20, 2^-19) */
        memcpy(&v, &bits, sizeof v);
        return v * (1 + (double)(h >> 60));
    }
    /* whole multiples of 2^-40 s from about 1 us to 31 us: sums are exact */
    return ldexp((double)((UINT64_C(1) << 20) + (h >> 39)), -40);
}

static double syn_time(void *ctx, size_t it, size_t r, size_t p)
{
    const syn_ctx *s = ctx;
    return syn_value(s, ((uint64_t)it * s->n + r) * s->n + p);
}

static double syn_retest(void *ctx, size_t it, size_t r, size_t p)
{
    return syn_time(ctx, it, r, p) * 0.75;
}

static double syn_a2a(void *ctx, size_t it, size_t r)
{
    const syn_ctx *s = ctx;
    return 8 * syn_value(s, UINT64_C(1) << 62 | ((uint64_t)it * s->n + r));
}

/* Steps differ per iteration: the round-robin schedule with the ranks
 * rotated, so that a reader mixing up iterations would notice. */
static uint64_t syn_access(void *ctx, size_t it, size_t r, size_t p)
{
    const syn_ctx *s = ctx;
    return ltw_round_robin_step(s->n, (r + it) % s->n, (p + it) % s->n);
}

typedef struct {
    double t;
    size_t r, p;
} link_t;

static int cmp_link(const void *a, const void *b)
{
    const link_t *x = a, *y = b;
    if (x->t != y->t)
        return x->t > y->t ? -1 : 1;
    if (x->r != y->r)
        return x->r < y->r ? -1 : 1;
    return x->p < y->p ? -1 : x->p > y->p;
}

/* Check everything read from `path` against the run; `given` are the
 * aggregates written when they were not computed. */
static void check_read_back(const char *path, const ltw_run *run, const ltw_layout *lay,
                            const char *what)
{
    cube_linktest *lt = linktest_open_ok(path);
    const ltw_header *w = &run->header;
    const cube_linktest_header *h = cube_linktest_get_header(lt);
    size_t n = run->nranks, m = (size_t)w->num_randomized_tasks,
           d = (size_t)w->num_serial_retests;
    assert_string_equal(h->tag, "LinkTest");
    assert_int_equal(cube_linktest_num_files(lt), 1);
    assert_int_equal(cube_linktest_fsblksize(lt), lay->fsblksize);
    assert_int_equal(cube_linktest_big_endian(lt), lay->big_endian);
    assert_string_equal(h->git_hash, w->git_hash);
    assert_string_equal(h->mode, w->mode);
    unsigned long long got[LINKTEST_HEADER_FIELDS];
    linktest_header_fields(h, got);
    unsigned long long want[] = {
        w->major, w->minor, w->patch, strlen(w->mode) + 1, w->all_to_all, w->bidirectional,
        w->unidirectional, w->bisection, w->step_randomization, w->serial, w->no_sion_file,
        w->parallel_sion, w->gpu_memory, w->multi_buffer, w->randomized_buffer, w->check_buffer,
        w->memory_allocator_type, w->num_messages, w->message_size, w->num_warmup_messages,
        w->num_serial_retests, w->num_multi_buffers, w->buffer_randomization_seed,
        w->num_randomized_tasks, w->task_randomization_seed};
    for (size_t i = 0; i < 25; i++)
        if (got[i] != want[i])
            fail_msg("%s: header %s: %llu, expected %llu", what, lt_exp_hdr_names[i], got[i],
                     want[i]);
    assert_int_equal(cube_linktest_num_ranks(lt), n);
    assert_int_equal(cube_linktest_num_permutations(lt), m);
    for (size_t r = 0; r < n; r++) {
        assert_string_equal(cube_linktest_hostname(lt, r), run->hostnames[r]);
        assert_int_equal(cube_linktest_core_id(lt, r), run->core_ids ? run->core_ids[r] : 0);
        assert_int_equal(cube_linktest_stream_bytes(lt, r), ltw_stream_bytes(run, r));
    }
    link_t *links = malloc((n * n + 1) * sizeof *links);
    assert_non_null(links);
    for (size_t i = 0; i < m; i++) {
        const cube_linktest_permutation *p = cube_linktest_get_permutation(lt, i);
        assert_non_null(p);
        assert_string_equal(p->start_time, run->start_times ? run->start_times[i]
                                                            : "2024-06-10 06:13:20");
        assert_string_equal(p->end_time, run->end_times ? run->end_times[i]
                                                        : "2024-06-10 06:13:23");
        size_t nl = 0;
        double sum = 0;
        for (size_t r = 0; r < n; r++)
            for (size_t c = 0; c < n; c++) {
                if (r == c)
                    continue;
                double t = run->time(run->ctx, i, r, c);
                uint64_t a = run->access ? run->access(run->ctx, i, r, c)
                                         : ltw_round_robin_step(n, r, c);
                if (!same_double(p->times[r * n + c], t) || p->access_pattern[r * n + c] != a)
                    fail_msg("%s: iteration %zu [%zu][%zu]: %a / %llu, expected %a / %llu", what,
                             i, r, c, p->times[r * n + c],
                             (unsigned long long)p->access_pattern[r * n + c], t,
                             (unsigned long long)a);
                links[nl++] = (link_t){t, r, c};
                sum += t;
            }
        assert_int_equal(p->num_slow, d);
        if (run->aggregates) {
            const ltw_aggregate *g = &run->aggregates[i];
            if (!same_double(p->min, g->min) || !same_double(p->avg, g->avg) ||
                !same_double(p->max, g->max))
                fail_msg("%s: iteration %zu: min/avg/max differ from those given", what, i);
            if (w->all_to_all &&
                (!same_double(p->a2a_min, g->a2a_min) || !same_double(p->a2a_avg, g->a2a_avg) ||
                 !same_double(p->a2a_max, g->a2a_max)))
                fail_msg("%s: iteration %zu: all-to-all min/avg/max differ", what, i);
            for (size_t k = 0; k < d; k++)
                if (!same_double(p->retested_slow_timings[k], g->retested[k]) ||
                    !same_double(p->slowest_timings[k], g->slowest[k]) ||
                    p->slow_sending_partners[k] != g->senders[k] ||
                    p->slow_receiving_partners[k] != g->receivers[k])
                    fail_msg("%s: iteration %zu: slow entry %zu differs from the one given",
                             what, i, k);
        } else {
            /* computed: by brute force here; the times are multiples of
             * 2^-40 s, so the plain sum is exact */
            qsort(links, nl, sizeof *links, cmp_link);
            double want_min = nl ? links[nl - 1].t : 0, want_max = nl ? links[0].t : 0;
            double want_avg = nl ? sum / (double)nl : 0;
            if (!same_double(p->min, want_min) || !same_double(p->max, want_max) ||
                !same_double(p->avg, want_avg))
                fail_msg("%s: iteration %zu: min/avg/max %a %a %a, expected %a %a %a", what, i,
                         p->min, p->avg, p->max, want_min, want_avg, want_max);
            for (size_t k = 0; k < d; k++) {
                const link_t *l = &links[k];
                double re = run->retest ? run->retest(run->ctx, i, l->r, l->p) : l->t;
                if (!same_double(p->slowest_timings[k], l->t) ||
                    !same_double(p->retested_slow_timings[k], re) ||
                    p->slow_sending_partners[k] != (int64_t)l->r ||
                    p->slow_receiving_partners[k] != (int64_t)l->p)
                    fail_msg("%s: iteration %zu: slow entry %zu: %a (%lld -> %lld), expected "
                             "%a (%zu -> %zu)",
                             what, i, k, p->slowest_timings[k],
                             (long long)p->slow_sending_partners[k],
                             (long long)p->slow_receiving_partners[k], l->t, l->r, l->p);
            }
            if (w->all_to_all) {
                double lo = 0, hi = 0, s = 0;
                for (size_t r = 0; r < n; r++) {
                    double v = run->a2a(run->ctx, i, r);
                    lo = (r == 0 || v < lo) ? v : lo;
                    hi = (r == 0 || v > hi) ? v : hi;
                    s += v;
                }
                if (!same_double(p->a2a_min, lo) || !same_double(p->a2a_max, hi) ||
                    !same_double(p->a2a_avg, s / (double)n))
                    fail_msg("%s: iteration %zu: all-to-all min/avg/max differ", what, i);
            }
        }
        if (w->all_to_all) {
            assert_non_null(p->all_to_all_times);
            for (size_t r = 0; r < n; r++)
                if (!same_double(p->all_to_all_times[r], run->a2a(run->ctx, i, r)))
                    fail_msg("%s: iteration %zu: all-to-all time of rank %zu", what, i, r);
        } else {
            assert_null(p->all_to_all_times);
            assert_true(isnan(p->a2a_min));
        }
    }
    free(links);
    cube_linktest_free(lt);
}

/* The container as written: maxchunks, and whether every chunk size is a
 * multiple of fsblksize. */
static void container_facts(const char *path, int be, uint64_t *maxchunks, int *all_aligned)
{
    size_t len;
    unsigned char *d = (unsigned char *)slurp(path, &len);
    assert_true(len >= 1088);
    uint64_t n = get_u(d + 24, 4, be), fs = get_u(d + 20, 4, be);
    assert_true(len >= 1088 + 16 * n);
    *all_aligned = 1;
    for (uint64_t t = 0; t < n; t++)
        if (get_u(d + 1076 + 8 * (n + t), 8, be) % fs != 0)
            *all_aligned = 0;
    *maxchunks = get_u(d + 1076 + 16 * n, 4, be);
    free(d);
}

enum { LAY_LE, LAY_BE, LAY_PACKED, LAY_BE_PACKED_MULTI, LAY_MULTI_FS512, NLAY };

static void make_layout(int kind, ltw_layout *lay)
{
    ltw_layout_init(lay);
    switch (kind) {
    case LAY_BE:
        lay->big_endian = 1;
        break;
    case LAY_PACKED:
        lay->packed = 1;
        break;
    case LAY_BE_PACKED_MULTI:
        lay->big_endian = 1;
        lay->packed = 1;
        lay->fsblksize = 1024;
        lay->chunk_limit = 1100; /* holds the largest field of N = 64 (504 bytes) */
        break;
    case LAY_MULTI_FS512:
        lay->fsblksize = 512;
        lay->chunk_limit = 512;
        break;
    }
}

/* Host names of odd and even lengths, shared by groups of ranks. */
static const char *const host_pool[] = {"n", "node01", "jwb0042", "a-much-longer-host-name.example",
                                        "xy"};

static void test_round_trip(void **state)
{
    (void)state;
    const size_t ns[] = {1, 2, 5, 64};
    const char *hosts[64];
    int32_t cores[64];
    const char *starts[3] = {"2025-01-02 03:04:05", "2025-01-02 03:04:06", ""};
    const char *ends[3] = {"2025-01-02 03:05:05", "x", "2025-01-02 03:05:07 (31 chars!)"};
    char what[256];
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        size_t n = ns[ni];
        for (size_t r = 0; r < n; r++) {
            hosts[r] = host_pool[(r / 3) % 5];
            cores[r] = (int32_t)(r % 3) * 7 - (r == 4 ? 100 : 0); /* one negative id */
        }
        for (int mi = 0; mi < 2; mi++)
            for (int d = 0; d <= 4; d += 4)
                for (int a2a = 0; a2a < 2; a2a++)
                    for (int kind = 0; kind < NLAY; kind++) {
                        size_t m = mi ? 3 : 1;
                        syn_ctx s = {n, 1000 * n + 10 * (uint64_t)m + (uint64_t)d, 0};
                        ltw_run run;
                        ltw_run_init(&run, n);
                        run.header.num_randomized_tasks = m;
                        run.header.num_serial_retests = (uint64_t)d;
                        run.header.all_to_all = (uint8_t)a2a;
                        run.header.step_randomization = m > 1;
                        run.header.message_size = 65536;
                        run.header.task_randomization_seed = 0xfedcba9876543210u;
                        run.header.memory_allocator_type = 3;
                        run.header.git_hash = "5f0e2c7b9a41d3e8c6b2f1a07d94e3c5b8a16f02";
                        run.header.mode = kind % 2 ? "mpi" : "ucp-x";
                        run.hostnames = hosts;
                        run.core_ids = kind == LAY_PACKED ? NULL : cores;
                        run.ctx = &s;
                        run.time = syn_time;
                        run.access = kind == LAY_LE ? NULL : syn_access;
                        run.a2a = a2a ? syn_a2a : NULL;
                        run.retest = kind == LAY_BE ? NULL : syn_retest;
                        if (m == 3) {
                            run.start_times = starts;
                            run.end_times = ends;
                        }
                        /* too few links for the slow list: give it */
                        ltw_aggregate agg[3];
                        double lists[3][2][4];
                        int64_t pairs[3][2][4];
                        if ((size_t)d > n * (n - 1)) {
                            for (size_t i = 0; i < m; i++) {
                                for (int k = 0; k < 4; k++) {
                                    lists[i][0][k] = 1e-6 * (double)(k + 1);
                                    lists[i][1][k] = -2e-6 * (double)(k + 1);
                                    pairs[i][0][k] = k;
                                    pairs[i][1][k] = -1 - k;
                                }
                                agg[i] = (ltw_aggregate){1e-6 * (double)i, 2e-6, 3e-6, 4e-6,
                                                         5e-6, 6e-6, lists[i][0], lists[i][1],
                                                         pairs[i][0], pairs[i][1]};
                            }
                            run.aggregates = agg;
                        }
                        ltw_layout lay;
                        make_layout(kind, &lay);
                        snprintf(what, sizeof what, "N=%zu M=%zu d=%d a2a=%d layout=%d", n, m, d,
                                 a2a, kind);
                        char *path = temp_path(".sion");
                        write_ok(path, &run, &lay);
                        check_read_back(path, &run, &lay, what);
                        uint64_t maxchunks;
                        int aligned;
                        container_facts(path, lay.big_endian, &maxchunks, &aligned);
                        if (kind == LAY_LE || kind == LAY_BE)
                            assert_int_equal(maxchunks, 1);
                        if (!lay.packed && !aligned)
                            fail_msg("%s: a chunk size is not aligned", what);
                        if (kind == LAY_MULTI_FS512 && ltw_stream_bytes(&run, 0) > 512 &&
                            maxchunks < 2)
                            fail_msg("%s: %llu block(s), expected several", what,
                                     (unsigned long long)maxchunks);
                        if (kind == LAY_BE_PACKED_MULTI && n == 64 && maxchunks < 2)
                            fail_msg("%s: expected several blocks", what);
                        unlink(path);
                        free(path);
                    }
    }
}

/* Any bit pattern goes through unchanged, in both byte orders. */
static void test_arbitrary_doubles(void **state)
{
    (void)state;
    const char *hosts[5] = {"h0", "h1", "h22", "h333", "h4444"};
    double retested[2] = {-0.0, 1e-300}, slowest[2] = {5e-324, 1.7976931348623157e308};
    int64_t snd[2] = {INT64_MIN, 4}, rcv[2] = {INT64_MAX, 0};
    ltw_aggregate agg = {-1.5, 0.1, 2.5e-7, 1e-5, 2e-5, 3e-5, retested, slowest, snd, rcv};
    for (int be = 0; be < 2; be++) {
        syn_ctx s = {5, 77, 1};
        ltw_run run;
        ltw_run_init(&run, 5);
        run.header.num_serial_retests = 2;
        run.header.all_to_all = 1;
        run.header.num_messages = UINT64_MAX;
        run.header.buffer_randomization_seed = 0x0102030405060708u;
        run.hostnames = hosts;
        run.ctx = &s;
        run.time = syn_time;
        run.a2a = syn_a2a;
        run.aggregates = &agg;
        ltw_layout lay;
        ltw_layout_init(&lay);
        lay.big_endian = be;
        char *path = temp_path(".sion");
        write_ok(path, &run, &lay);
        check_read_back(path, &run, &lay, be ? "arbitrary doubles BE" : "arbitrary doubles LE");
        unlink(path);
        free(path);
    }
}

/* The two byte orders give the same payload, swapped field by field: the
 * files differ only where multi-byte fields are. */
static void test_byte_orders_agree(void **state)
{
    (void)state;
    const char *hosts[2] = {"abc", "defg"};
    syn_ctx s = {2, 5, 0};
    ltw_run run;
    ltw_run_init(&run, 2);
    run.hostnames = hosts;
    run.ctx = &s;
    run.time = syn_time;
    run.header.num_serial_retests = 2;
    ltw_layout le, be;
    ltw_layout_init(&le);
    ltw_layout_init(&be);
    be.big_endian = 1;
    le.prefix = be.prefix = "same.sion";
    char *pl = temp_path(".sion"), *pb = temp_path(".sion");
    write_ok(pl, &run, &le);
    write_ok(pb, &run, &be);
    size_t ll, lb;
    char *dl = slurp(pl, &ll), *db = slurp(pb, &lb);
    assert_int_equal(ll, lb);
    /* the endianness word, then e.g. fsblksize (i32) and rank 1's
     * hostname length (u32 4+1 at the start of its chunk, 8192) */
    assert_memory_equal(dl + 4, "\0\0\0\0", 4);
    assert_memory_equal(db + 4, "\1\1\1\1", 4);
    assert_memory_equal(dl + 20, "\0\x10\0\0", 4);
    assert_memory_equal(db + 20, "\0\0\x10\0", 4);
    assert_memory_equal(dl + 8192, "\5\0\0\0defg", 9);
    assert_memory_equal(db + 8192, "\0\0\0\5defg", 9);
    assert_memory_equal(dl + 52, db + 52, 1024); /* strings are not swapped */
    free(dl);
    free(db);
    unlink(pl);
    unlink(pb);
    free(pl);
    free(pb);
}

static void expect_write_error(const char *path, const ltw_run *run, const ltw_layout *lay,
                               const char *needle)
{
    char err[1024] = "";
    if (ltw_write(path, run, lay, err, sizeof err) == 0)
        fail_msg("writing succeeded, but must fail with \"%s\"", needle);
    if (!strstr(err, needle))
        fail_msg("message \"%s\" lacks \"%s\"", err, needle);
    if (!strstr(err, path))
        fail_msg("message \"%s\" does not name the file", err);
    if (strchr(err, '\n'))
        fail_msg("message \"%s\" is not one line", err);
}

static void test_errors(void **state)
{
    (void)state;
    const char *hosts[64];
    for (size_t r = 0; r < 64; r++)
        hosts[r] = "host";
    syn_ctx s = {64, 1, 0};
    ltw_run run;
    ltw_layout lay;
    char *path = temp_path(".sion");
#define FRESH()                                                                                   \
    do {                                                                                          \
        ltw_run_init(&run, 64);                                                                   \
        run.hostnames = hosts;                                                                    \
        run.ctx = &s;                                                                             \
        run.time = syn_time;                                                                      \
        ltw_layout_init(&lay);                                                                    \
    } while (0)

    /* a field (the 504 bytes of timing data) larger than the chunk: no
     * file is left behind */
    FRESH();
    lay.fsblksize = 256;
    lay.chunk_limit = 256;
    expect_write_error(path, &run, &lay, "does not fit in a chunk");
    assert_false(file_exists(path));
    FRESH();
    run.header.num_randomized_tasks = 0;
    expect_write_error(path, &run, &lay, "num_randomized_tasks");
    FRESH();
    run.header.git_hash = "0123456789012345678901234567890123456789X";
    expect_write_error(path, &run, &lay, "git hash");
    FRESH();
    run.header.all_to_all = 1;
    expect_write_error(path, &run, &lay, "all-to-all");
    FRESH();
    run.time = NULL;
    expect_write_error(path, &run, &lay, "time");
    FRESH();
    run.hostnames = NULL;
    expect_write_error(path, &run, &lay, "host");
    FRESH();
    lay.fsblksize = 0;
    expect_write_error(path, &run, &lay, "fsblksize");
    FRESH();
    const char *st[1] = {"0123456789012345678901234567890123"};
    run.start_times = st;
    expect_write_error(path, &run, &lay, "start and end time");
    FRESH();
    run.nranks = 2;
    run.header.num_serial_retests = 3;
    expect_write_error(path, &run, &lay, "only 2 links");
    FRESH();
    run.nranks = 0;
    expect_write_error(path, &run, &lay, "0 ranks");
    /* a directory that does not exist */
    FRESH();
    char bad[1100];
    snprintf(bad, sizeof bad, "%s.d/x.sion", path);
    expect_write_error(bad, &run, &lay, "cannot create");
    /* a file that was there before a failing check is left alone */
    FRESH();
    write_ok(path, &run, &lay);
    run.header.num_randomized_tasks = 0;
    expect_write_error(path, &run, &lay, "num_randomized_tasks");
    assert_true(file_exists(path));
    unlink(path);
    free(path);
#undef FRESH
}

/* The default schedule: each rank meets every partner once, one partner
 * per step, symmetric, steps 1..N-1 (even N) or 1..N (odd N). */
static void test_round_robin(void **state)
{
    (void)state;
    for (size_t n = 1; n <= 33; n++) {
        size_t steps = n % 2 ? n : n - 1;
        unsigned char seen[34][35];
        memset(seen, 0, sizeof seen);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                uint64_t s = ltw_round_robin_step(n, i, j);
                if (i == j) {
                    assert_int_equal(s, 0);
                    continue;
                }
                assert_int_equal(s, ltw_round_robin_step(n, j, i));
                if (s < 1 || s > steps)
                    fail_msg("n=%zu: step %llu of (%zu, %zu) out of 1..%zu", n,
                             (unsigned long long)s, i, j, steps);
                if (seen[i][s]++)
                    fail_msg("n=%zu: rank %zu has two partners in step %llu", n, i,
                             (unsigned long long)s);
            }
    }
    /* lt4_basic's steps are this schedule */
    const lt_exp_file *e = find_exp("lt4_basic.sion");
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 4; j++)
            assert_int_equal(ltw_round_robin_step(4, i, j), e->perms[0].access[i * 4 + j]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reproduces_testdata), cmocka_unit_test(test_reproduces_streams),
        cmocka_unit_test(test_round_trip),          cmocka_unit_test(test_arbitrary_doubles),
        cmocka_unit_test(test_byte_orders_agree),   cmocka_unit_test(test_errors),
        cmocka_unit_test(test_round_robin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
