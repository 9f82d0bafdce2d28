/*
 * gen_linktest.c - write a synthetic LinkTest 2.1.17 SION file for
 * benchmarks and tests (through tests/support/linktest_writer.c).
 *
 * The times follow the model of testdata/linktest/README.md, and every
 * value is a pure function of the options (a hash of seed, iteration,
 * rank and partner), so a file can be regenerated instead of stored:
 *   - ping-pong time = latency + message size / bandwidth, for ranks on the
 *     same host (0.9 us, 6 GB/s) and on different hosts (1.6 us, 2.5 GB/s):
 *     about 1 to 30 us for 1 KiB to 64 KiB;
 *   - +-3 % noise per measurement, and one measurement in 1000 hit by
 *     congestion (+5 to +20 %), which a serial retest does not see;
 *   - --slow-hosts hosts whose every link is 1.15 times slower;
 *   - --slow-links pairs (between hosts when there are several) 1.5 to 1.8
 *     times slower in both directions, in every iteration and retest.
 *     Noise, congestion and a slow host together stay below 1.43, so with
 *     d >= 2K retests the slow list opens with these links, both ways;
 *   - each iteration a little faster or slower overall (+-2 %), and after
 *     the first, the ranks shuffled in the step schedule (a new access
 *     pattern), as LinkTest's randomized iterations do.
 * Every time is a whole multiple of 2^-40 s, so sums of times are exact in
 * double precision whatever the order (up to 2^53 / 2^27 = 2^26 times:
 * about 8000 ranks), and a reader recomputing the average gets the stored
 * value bit for bit.  Rank 0's aggregates and slow list are computed from
 * the times by the writer.
 *
 * Build (the Makefile does it as build/perf/gen_linktest):
 *     cc -std=c11 -O2 -Itests/support -o gen_linktest bench/perf/gen_linktest.c \
 *        tests/support/linktest_writer.c -lm
 */
#define _POSIX_C_SOURCE 200809L /* getopt_long is a GNU/BSD extension */

#include "linktest_writer.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    uint64_t a, b; /* a < b */
    double factor;
} slow_pair;

typedef struct {
    size_t n, per_host, m;
    uint64_t seed;
    double t_intra, t_inter, t_a2a; /* model times without noise, seconds */
    double *iter_factor;            /* m entries */
    size_t *pos;                    /* m * n: rank -> position in the schedule */
    slow_pair *slow;                /* sorted by (a, b) */
    size_t nslow;
    unsigned char *has_slow;        /* per rank: part of a slow pair */
    unsigned char *slow_host;       /* per host */
} model;

static uint64_t mix(uint64_t x)
{
    /* splitmix64's finalizer: consecutive keys give independent bits */
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static uint64_t hash4(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    return mix(mix(mix(mix(seed) ^ a) ^ b) ^ c);
}

static double unit(uint64_t h) { return (double)(h >> 11) * 0x1p-53; } /* [0, 1) */

static double quantize(double t) { return ldexp(floor(ldexp(t, 40) + 0.5), -40); }

static int cmp_pair(const void *x, const void *y)
{
    const slow_pair *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

static double link_factor(const model *g, size_t r, size_t p)
{
    double f = 1.0;
    if (g->slow_host[r / g->per_host] || g->slow_host[p / g->per_host])
        f *= 1.15;
    if (g->has_slow[r] && g->has_slow[p]) {
        slow_pair key = {r < p ? r : p, r < p ? p : r, 0};
        const slow_pair *s = bsearch(&key, g->slow, g->nslow, sizeof *g->slow, cmp_pair);
        if (s)
            f *= s->factor;
    }
    return f;
}

static double base_time(const model *g, size_t r, size_t p)
{
    return (r / g->per_host == p / g->per_host) ? g->t_intra : g->t_inter;
}

static double gen_time(void *ctx, size_t it, size_t r, size_t p)
{
    const model *g = ctx;
    uint64_t h = hash4(g->seed, it, r, p);
    double noise = 1.0 + 0.06 * (unit(h) - 0.5);
    if ((h & 0xffff) % 1000 == 0) /* congestion */
        noise *= 1.05 + 0.15 * unit(mix(h));
    return quantize(base_time(g, r, p) * link_factor(g, r, p) * g->iter_factor[it] * noise);
}

/* A serial retest: the link alone on a quiet network, new noise, no
 * congestion; a link that is slow stays slow. */
static double gen_retest(void *ctx, size_t it, size_t r, size_t p)
{
    const model *g = ctx;
    uint64_t h = hash4(g->seed ^ 0x5e7e57u, it, r, p);
    double noise = 1.0 + 0.04 * (unit(h) - 0.5);
    return quantize(base_time(g, r, p) * link_factor(g, r, p) * noise);
}

static double gen_a2a(void *ctx, size_t it, size_t r)
{
    const model *g = ctx;
    uint64_t h = hash4(g->seed ^ 0xa2au, it, r, UINT64_MAX);
    double f = g->slow_host[r / g->per_host] ? 1.15 : 1.0;
    return quantize(g->t_a2a * f * g->iter_factor[it] * (1.0 + 0.1 * (unit(h) - 0.5)));
}

static uint64_t gen_access(void *ctx, size_t it, size_t r, size_t p)
{
    const model *g = ctx;
    return ltw_round_robin_step(g->n, g->pos[it * g->n + r], g->pos[it * g->n + p]);
}

/* ---- command line ------------------------------------------------------------ */

static void usage(FILE *f)
{
    fputs("Usage: gen_linktest [OPTIONS] -o FILE\n"
          "Write a synthetic LinkTest 2.1.17 SION file (deterministic for given options).\n"
          "\n"
          "  -o, --output FILE        the file to write (required; not stdout: the chunks\n"
          "                           are written at their offsets)\n"
          "      --ranks N            ranks (default 64)\n"
          "      --ranks-per-host K   ranks per host (default 4); hosts jwc0000, ...\n"
          "      --iterations M       randomized iterations stored (default 1)\n"
          "      --message-size B     message size in bytes (default 4096)\n"
          "      --retests D          serial retests: length of the slow lists (at most\n"
          "                           N(N-1); default 10, or N(N-1) if fewer)\n"
          "      --all-to-all         with all-to-all times\n"
          "      --seed S             seed of the model (default 1)\n"
          "      --slow-links K       deliberately slow links, 1.5-1.8x (default 4, or\n"
          "                           as many pairs as there are)\n"
          "      --slow-hosts H       slow hosts, every link 1.15x (default 1 with at\n"
          "                           least 4 hosts, else 0)\n"
          "      --big-endian         write as a big-endian host would\n"
          "      --packed             SIONlib collective mode: chunks back to back\n"
          "      --fsblksize F        SIONlib file system block size (default 4096)\n"
          "      --chunk-limit BYTES  chunk size per task; a longer stream takes several\n"
          "                           blocks (default 0: one block)\n"
          "  -h, --help               show this help\n"
          "Prints nothing on success; one line on stderr and exit status 2 on failure.\n",
          f);
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    if (*s == '-' || *s == '+' || *s == '\0')
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0' || v < min || v > max)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

static int bad_value(const char *opt, const char *val, const char *range)
{
    fprintf(stderr, "gen_linktest: invalid value '%s' for %s (expected %s)\n", val, opt, range);
    return 2;
}

static int fail(const char *msg)
{
    fprintf(stderr, "gen_linktest: %s\n", msg);
    return 2;
}

enum {
    OPT_RANKS = 256, OPT_PER_HOST, OPT_ITER, OPT_MSG, OPT_RETESTS, OPT_A2A, OPT_SEED, OPT_BE,
    OPT_PACKED, OPT_FSBLK, OPT_CHUNK, OPT_SLOW_LINKS, OPT_SLOW_HOSTS,
};

/* Pick K distinct unordered pairs, between hosts when there are several. */
static int pick_slow_links(model *g, size_t k)
{
    size_t n = g->n, hosts = (n + g->per_host - 1) / g->per_host;
    g->slow = calloc(k ? k : 1, sizeof *g->slow);
    if (!g->slow)
        return -1;
    for (uint64_t try = 0; g->nslow < k; try++) {
        uint64_t h = hash4(g->seed ^ 0x510e1u, try, 0, 0);
        size_t a = (size_t)(h % n), b = (size_t)(mix(h) % n);
        if (a == b || (hosts > 1 && a / g->per_host == b / g->per_host))
            continue;
        slow_pair s = {a < b ? a : b, a < b ? b : a, 1.5 + 0.3 * unit(mix(h ^ 1))};
        int dup = 0;
        for (size_t i = 0; i < g->nslow && !dup; i++)
            dup = g->slow[i].a == s.a && g->slow[i].b == s.b;
        if (!dup) {
            g->slow[g->nslow++] = s;
            g->has_slow[a] = g->has_slow[b] = 1;
        }
    }
    qsort(g->slow, g->nslow, sizeof *g->slow, cmp_pair);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"ranks", required_argument, NULL, OPT_RANKS},
        {"ranks-per-host", required_argument, NULL, OPT_PER_HOST},
        {"iterations", required_argument, NULL, OPT_ITER},
        {"message-size", required_argument, NULL, OPT_MSG},
        {"retests", required_argument, NULL, OPT_RETESTS},
        {"all-to-all", no_argument, NULL, OPT_A2A},
        {"seed", required_argument, NULL, OPT_SEED},
        {"big-endian", no_argument, NULL, OPT_BE},
        {"packed", no_argument, NULL, OPT_PACKED},
        {"fsblksize", required_argument, NULL, OPT_FSBLK},
        {"chunk-limit", required_argument, NULL, OPT_CHUNK},
        {"slow-links", required_argument, NULL, OPT_SLOW_LINKS},
        {"slow-hosts", required_argument, NULL, OPT_SLOW_HOSTS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    uint64_t ranks = 64, per_host = 4, iters = 1, msg = 4096, retests = 10, seed = 1,
             fsblk = 4096, chunk_limit = 0, slow_links = 4, slow_hosts = 0;
    int a2a = 0, be = 0, packed = 0, slow_hosts_given = 0, slow_links_given = 0,
        retests_given = 0;
    const char *path = NULL;
    int c;
    opterr = 0; /* our own one-line message instead of getopt's */
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': path = optarg; break;
        case 'h': usage(stdout); return 0;
        case OPT_RANKS:
            if (!parse_u64(optarg, 1, 1000000, &ranks))
                return bad_value("--ranks", optarg, "1..1000000");
            break;
        case OPT_PER_HOST:
            if (!parse_u64(optarg, 1, 1000000, &per_host))
                return bad_value("--ranks-per-host", optarg, "1..1000000");
            break;
        case OPT_ITER:
            if (!parse_u64(optarg, 1, 1000000, &iters))
                return bad_value("--iterations", optarg, "1..1000000");
            break;
        case OPT_MSG:
            if (!parse_u64(optarg, 1, UINT64_C(1) << 40, &msg))
                return bad_value("--message-size", optarg, "1..2^40");
            break;
        case OPT_RETESTS:
            if (!parse_u64(optarg, 0, 1000000, &retests))
                return bad_value("--retests", optarg, "0..1000000");
            retests_given = 1;
            break;
        case OPT_A2A: a2a = 1; break;
        case OPT_SEED:
            if (!parse_u64(optarg, 0, UINT64_MAX, &seed))
                return bad_value("--seed", optarg, "a non-negative integer");
            break;
        case OPT_BE: be = 1; break;
        case OPT_PACKED: packed = 1; break;
        case OPT_FSBLK:
            if (!parse_u64(optarg, 1, INT32_MAX, &fsblk))
                return bad_value("--fsblksize", optarg, "1..2147483647");
            break;
        case OPT_CHUNK:
            if (!parse_u64(optarg, 0, UINT64_MAX, &chunk_limit))
                return bad_value("--chunk-limit", optarg, "a non-negative integer");
            break;
        case OPT_SLOW_LINKS:
            if (!parse_u64(optarg, 0, 10000, &slow_links))
                return bad_value("--slow-links", optarg, "0..10000");
            slow_links_given = 1;
            break;
        case OPT_SLOW_HOSTS:
            if (!parse_u64(optarg, 0, 1000000, &slow_hosts))
                return bad_value("--slow-hosts", optarg, "0..1000000");
            slow_hosts_given = 1;
            break;
        default:
            fprintf(stderr, "gen_linktest: unknown option or missing value: '%s' (see --help)\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gen_linktest: unexpected argument '%s' (the output is -o FILE)\n",
                argv[optind]);
        return 2;
    }
    if (!path)
        return fail("no output file: give -o FILE");
    size_t n = (size_t)ranks, k = (size_t)(per_host < ranks ? per_host : ranks);
    size_t hosts = (n + k - 1) / k, m = (size_t)iters;
    if (!slow_hosts_given)
        slow_hosts = hosts >= 4 ? 1 : 0;
    if (slow_hosts > hosts) {
        fprintf(stderr, "gen_linktest: --slow-hosts %llu, but there are only %zu hosts\n",
                (unsigned long long)slow_hosts, hosts);
        return 2;
    }
    /* distinct pairs the slow links can be taken from */
    uint64_t pairs = (uint64_t)n * (n - 1) / 2;
    if (hosts > 1) {
        uint64_t rem = n % k; /* ranks on the last, partly filled host */
        pairs -= (uint64_t)(n / k) * k * (k - 1) / 2 + (rem ? rem * (rem - 1) / 2 : 0);
    }
    if (!slow_links_given && slow_links > pairs) /* the default, for a small run */
        slow_links = pairs;
    if (slow_links > pairs) {
        fprintf(stderr, "gen_linktest: --slow-links %llu, but there are only %llu %s pairs\n",
                (unsigned long long)slow_links, (unsigned long long)pairs,
                hosts > 1 ? "inter-host" : "rank");
        return 2;
    }
    if (!retests_given && retests > (uint64_t)n * (n - 1))
        retests = (uint64_t)n * (n - 1);
    if (retests > (uint64_t)n * (n - 1)) {
        fprintf(stderr, "gen_linktest: --retests %llu, but %zu ranks have only %llu links\n",
                (unsigned long long)retests, n, (unsigned long long)((uint64_t)n * (n - 1)));
        return 2;
    }

    model g;
    memset(&g, 0, sizeof g);
    g.n = n;
    g.per_host = k;
    g.m = m;
    g.seed = seed;
    double size = (double)msg;
    g.t_intra = 0.9e-6 + size / 6e9;
    g.t_inter = 1.6e-6 + size / 2.5e9;
    g.t_a2a = 5e-6 + (double)(n - 1) * size / 10e9; /* injection-bound */
    g.iter_factor = malloc(m * sizeof *g.iter_factor);
    g.pos = malloc(m * n * sizeof *g.pos);
    g.has_slow = calloc(n, 1);
    g.slow_host = calloc(hosts, 1);
    char **names = calloc(n, sizeof *names);
    const char **hostnames = calloc(n, sizeof *hostnames);
    int32_t *cores = calloc(n, sizeof *cores);
    char (*starts)[32] = calloc(m, sizeof *starts), (*ends)[32] = calloc(m, sizeof *ends);
    const char **start_p = calloc(m, sizeof *start_p), **end_p = calloc(m, sizeof *end_p);
    int rc = 2;
    if (!g.iter_factor || !g.pos || !g.has_slow || !g.slow_host || !names || !hostnames ||
        !cores || !starts || !ends || !start_p || !end_p ||
        pick_slow_links(&g, (size_t)slow_links) != 0) {
        fail("out of memory");
        goto done;
    }
    for (size_t i = 0; i < slow_hosts; i++) {
        size_t h = (size_t)(hash4(seed ^ 0x510e405u, i, hosts, 0) % hosts);
        while (g.slow_host[h]) /* taken: the next free one */
            h = (h + 1) % hosts;
        g.slow_host[h] = 1;
    }
    for (size_t h = 0; h < hosts; h++) {
        names[h] = malloc(24);
        if (!names[h]) {
            fail("out of memory");
            goto done;
        }
        snprintf(names[h], 24, "jwc%04zu", h);
    }
    for (size_t r = 0; r < n; r++) {
        hostnames[r] = names[r / k];
        cores[r] = (int32_t)(r % k);
    }
    /* iterations: a drift, a shuffled schedule after the first, and times
     * of day one minute apart from a fixed start */
    for (size_t i = 0; i < m; i++) {
        g.iter_factor[i] = i ? 1.0 + 0.04 * (unit(hash4(seed ^ 0x17e7u, i, 0, 0)) - 0.5) : 1.0;
        size_t *pos = g.pos + i * n;
        for (size_t r = 0; r < n; r++)
            pos[r] = r;
        for (size_t r = n; i > 0 && r > 1; r--) { /* Fisher-Yates */
            size_t j = (size_t)(hash4(seed ^ 0x5f1u, i, r, 0) % r), t = pos[r - 1];
            pos[r - 1] = pos[j];
            pos[j] = t;
        }
        time_t t0 = (time_t)1740830400 + (time_t)(60 * i); /* 2025-03-01 12:00:00 UTC */
        /* steps x (100 + 10 warm-up) ping-pongs of two messages */
        double steps = (double)(n % 2 ? n : n - 1);
        time_t t1 = t0 + 1 + (time_t)(steps * 110 * 2 * g.t_inter);
        struct tm tm0, tm1;
        if (!gmtime_r(&t0, &tm0) || !gmtime_r(&t1, &tm1) ||
            strftime(starts[i], sizeof starts[i], "%Y-%m-%d %H:%M:%S", &tm0) == 0 ||
            strftime(ends[i], sizeof ends[i], "%Y-%m-%d %H:%M:%S", &tm1) == 0) {
            fail("cannot format the start and end times");
            goto done;
        }
        start_p[i] = starts[i];
        end_p[i] = ends[i];
    }

    ltw_run run;
    ltw_run_init(&run, n);
    run.header.git_hash = "9c1f0e7d2b6a4c8e0f3d5b7a9c1e2f4a6b8d0c2e";
    run.header.all_to_all = (uint8_t)a2a;
    run.header.step_randomization = m > 1;
    run.header.message_size = msg;
    run.header.num_serial_retests = retests;
    run.header.num_randomized_tasks = m;
    run.header.buffer_randomization_seed = seed;
    run.header.task_randomization_seed = seed;
    run.hostnames = hostnames;
    run.core_ids = cores;
    run.start_times = start_p;
    run.end_times = end_p;
    run.ctx = &g;
    run.time = gen_time;
    run.access = gen_access;
    run.a2a = a2a ? gen_a2a : NULL;
    run.retest = gen_retest;
    ltw_layout lay;
    ltw_layout_init(&lay);
    lay.big_endian = be;
    lay.packed = packed;
    lay.fsblksize = (int32_t)fsblk;
    lay.chunk_limit = chunk_limit;
    char err[1024];
    if (ltw_write(path, &run, &lay, err, sizeof err) != 0) {
        fail(err);
        goto done;
    }
    rc = 0;
done:
    if (names)
        for (size_t h = 0; h < hosts; h++)
            free(names[h]);
    free(names);
    free(hostnames);
    free(cores);
    free(starts);
    free(ends);
    free(start_p);
    free(end_p);
    free(g.iter_factor);
    free(g.pos);
    free(g.has_slow);
    free(g.slow_host);
    free(g.slow);
    return rc;
}
