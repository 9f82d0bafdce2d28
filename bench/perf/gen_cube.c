/*
 * gen_cube.c - write a synthetic CUBE 3 XML experiment for benchmarks.
 *
 * The output follows the canonical layout of the CUBE 3.4.3 writers
 * (cube(5)): the XML declaration, <cube version="3.0">, attr, doc/mirrors, a
 * metric tree, regions then a nested call tree, a machine>node>process>thread
 * system tree with dense thread ids, <topologies>, and a severity section with
 * one matrix per metric and one value per line in each row.
 *
 * Everything is deterministic for a given set of options (seeded xorshift
 * PRNG), so a benchmark file can be regenerated instead of stored.
 *
 * Speed matters more than usual here (benchmarks want files of several
 * hundred MB), so the output goes through one large buffer written with
 * fwrite, and numbers are formatted by hand instead of with snprintf:
 * a floating value is *generated as a decimal* (P random significant digits
 * and a decimal exponent) and printed in exactly the form "%.<P>g" would
 * use.  The text is therefore a valid decimal number by construction and no
 * binary-to-decimal conversion is needed.
 *
 * Needs only libc (not even libm).  Build:
 *     cc -std=c11 -O2 -o gen_cube gen_cube.c
 */
#define _POSIX_C_SOURCE 200809L /* getopt_long is a GNU/BSD extension */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------
 * Parameters
 * ------------------------------------------------------------------------ */

struct params {
    uint64_t metrics;        /* number of metrics (>= 1) */
    uint64_t cnodes;         /* number of call-tree nodes (>= 1) */
    uint64_t depth;          /* maximum call-tree depth, root = 1 (>= 1) */
    uint64_t regions;        /* number of regions; 0 = min(cnodes, 500) */
    uint64_t threads;        /* total number of threads (>= 1) */
    uint64_t tpp;            /* threads per process (divides threads) */
    double density;          /* fraction of (metric, cnode) rows present */
    uint64_t seed;           /* PRNG seed */
    int digits;              /* significant digits of FLOAT values, 1..17 */
    bool topology;           /* write a 1-D ring cart over the threads */
};

/* What a generation run produced, for --verbose and --target-mb. */
struct stats {
    uint64_t bytes;  /* bytes of XML written (or counted) */
    uint64_t rows;   /* <row> elements written */
    uint64_t max_depth_seen;
};

/* ------------------------------------------------------------------------
 * PRNG: xorshift64* seeded through splitmix64 (so that a zero seed and small
 * consecutive seeds give unrelated, non-zero states).
 * ------------------------------------------------------------------------ */

typedef struct { uint64_t s; } rng_t;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void rng_init(rng_t *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * UINT64_C(0xD1B54A32D192ED03));
    r->s = splitmix64(&x);
    if (r->s == 0)
        r->s = UINT64_C(0x2545F4914F6CDD1D);
}

static inline uint64_t rng_next(rng_t *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

/* Uniform integer in [0, n), n > 0.  The modulo bias is irrelevant here. */
static inline uint64_t rng_below(rng_t *r, uint64_t n)
{
    return rng_next(r) % n;
}

/* Uniform double in [0, 1). */
static inline double rng_unit(rng_t *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* ------------------------------------------------------------------------
 * Output buffer.  fp == NULL means "count bytes only" (used by --target-mb
 * to measure the size a parameter set produces without writing it).
 * ------------------------------------------------------------------------ */

#define OUT_CAP (8u << 20) /* 8 MiB: few, large writes */

struct out {
    char *buf;
    size_t len;
    FILE *fp;
    uint64_t total;
    bool failed;
    int err; /* errno of the first failed write */
};

static void out_flush(struct out *o)
{
    if (o->len == 0)
        return;
    if (o->fp && !o->failed && fwrite(o->buf, 1, o->len, o->fp) != o->len) {
        o->failed = true;
        o->err = errno;
    }
    o->total += o->len;
    o->len = 0;
}

/* Make room for n more bytes, for code that formats straight into buf. */
static inline void out_reserve(struct out *o, size_t n)
{
    if (o->len + n > OUT_CAP)
        out_flush(o);
}

static void out_mem(struct out *o, const char *s, size_t n)
{
    while (n > 0) {
        size_t room = OUT_CAP - o->len;
        size_t k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
        if (o->len == OUT_CAP)
            out_flush(o);
    }
}

static void out_str(struct out *o, const char *s)
{
    out_mem(o, s, strlen(s));
}

static void out_indent(struct out *o, uint64_t n)
{
    static const char spaces[] = "                                        "; /* 40 */
    while (n > 0) {
        size_t k = n < 40 ? (size_t)n : 40;
        out_mem(o, spaces, k);
        n -= k;
    }
}

/* Decimal digits of v, right-aligned ending at end; returns the start. */
static inline char *u64_digits(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return end;
}

static void out_u64(struct out *o, uint64_t v)
{
    char tmp[24];
    char *p = u64_digits(tmp + sizeof tmp, v);
    out_mem(o, p, (size_t)(tmp + sizeof tmp - p));
}

/* Small printf for the definition part, which is not performance critical. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void out_fmt(struct out *o, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof tmp)
        n = (int)sizeof tmp - 1; /* all our lines are far shorter */
    out_mem(o, tmp, (size_t)n);
}

/* ------------------------------------------------------------------------
 * Value formatting
 * ------------------------------------------------------------------------ */

static const uint64_t pow10_u64[18] = {
    UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000),
    UINT64_C(100000), UINT64_C(1000000), UINT64_C(10000000),
    UINT64_C(100000000), UINT64_C(1000000000), UINT64_C(10000000000),
    UINT64_C(100000000000), UINT64_C(1000000000000),
    UINT64_C(10000000000000), UINT64_C(100000000000000),
    UINT64_C(1000000000000000), UINT64_C(10000000000000000),
    UINT64_C(100000000000000000)};

/*
 * Write the number mant * 10^(exp10 - (p-1)) to dst the way printf("%.<p>g")
 * prints it, where mant has exactly p digits (10^(p-1) <= mant < 10^p), i.e.
 * the value is d0.d1d2...d(p-1) x 10^exp10.  %g rules (C11 7.21.6.1): use
 * the e-style if exp10 < -4 or exp10 >= p, otherwise the f-style; then drop
 * trailing zeros of the fraction and a then trailing '.'.  Returns the
 * number of characters written (at most p + 8).
 */
static size_t fmt_g(char *dst, uint64_t mant, int p, int exp10)
{
    char dig[20];
    u64_digits(dig + p, mant); /* exactly p digits in dig[0..p-1] */
    int nd = p;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;

    char *q = dst;
    if (exp10 < -4 || exp10 >= p) {
        *q++ = dig[0];
        if (nd > 1) {
            *q++ = '.';
            memcpy(q, dig + 1, (size_t)(nd - 1));
            q += nd - 1;
        }
        *q++ = 'e';
        int e = exp10;
        if (e < 0) {
            *q++ = '-';
            e = -e;
        } else {
            *q++ = '+';
        }
        if (e >= 100)
            *q++ = (char)('0' + e / 100);
        *q++ = (char)('0' + e / 10 % 10);
        *q++ = (char)('0' + e % 10);
    } else if (exp10 >= 0) {
        int ip = exp10 + 1; /* integer digits, <= p */
        memcpy(q, dig, (size_t)ip);
        q += ip;
        if (nd > ip) {
            *q++ = '.';
            memcpy(q, dig + ip, (size_t)(nd - ip));
            q += nd - ip;
        }
    } else { /* -4 <= exp10 <= -1: 0.000ddd */
        *q++ = '0';
        *q++ = '.';
        for (int i = 0; i < -exp10 - 1; i++)
            *q++ = '0';
        memcpy(q, dig, (size_t)nd);
        q += nd;
    }
    return (size_t)(q - dst);
}

/*
 * One row of a FLOAT metric: thread values of one magnitude, as for the time
 * of one call path on different ranks.  The decimal exponent of the row is
 * uniform in [-7, 2] (so values range from 1e-7 to 999 s, roughly
 * log-uniform: "exp of a uniform"), each thread's value gets its own random
 * digits and, now and then, one decade less (imbalance); about 1 in 32
 * values is 0 (a thread that never ran this path).
 */
static void write_float_row(struct out *o, rng_t *r, uint64_t threads, int p)
{
    const uint64_t lo = pow10_u64[p - 1];
    const uint64_t span = pow10_u64[p] - lo;
    const int row_exp = (int)rng_below(r, 10) - 7;

    for (uint64_t t = 0; t < threads; t++) {
        out_reserve(o, 32);
        char *dst = o->buf + o->len;
        uint64_t x = rng_next(r);
        size_t n;
        if ((x & 31) == 0) {
            dst[0] = '0';
            n = 1;
        } else {
            int e = row_exp - ((x >> 5 & 7) == 0);
            n = fmt_g(dst, lo + (x >> 8) % span, p, e);
        }
        dst[n] = '\n';
        o->len += n + 1;
    }
}

/*
 * One row of an INTEGER metric (visits): a per-row count, log-uniform in
 * [1, 10^6), the same on most threads and a bit larger on some.
 */
static void write_int_row(struct out *o, rng_t *r, uint64_t threads)
{
    uint64_t k = rng_below(r, 6) + 1;
    uint64_t base = 1 + rng_below(r, pow10_u64[k]);
    for (uint64_t t = 0; t < threads; t++) {
        out_reserve(o, 32);
        uint64_t x = rng_next(r);
        uint64_t v = (x & 3) ? base : base + (x >> 2) % (base + 1);
        char *end = o->buf + o->len + 24;
        char *s = u64_digits(end, v);
        size_t n = (size_t)(end - s);
        memmove(o->buf + o->len, s, n);
        o->buf[o->len + n] = '\n';
        o->len += n + 1;
    }
}

/* ------------------------------------------------------------------------
 * The metric tree.
 *
 * Ids are depth-first preorder (as the C writer libcubew3 assigns them):
 *   0            time         root
 *   1            execution    child of 0                (if metrics >= 2)
 *   2..M-2       mpi, omp...  children of 1             (if metrics >= 4)
 *   M-1          visits       root, INTEGER occ         (if metrics >= 3)
 * so a few levels of nesting and more than one root are exercised.
 * ------------------------------------------------------------------------ */

struct metric_name {
    const char *disp, *uniq, *descr;
};

static const struct metric_name leaf_names[] = {
    {"MPI", "mpi", "Time in MPI &amp; friends"},
    {"OpenMP", "omp", "Time in OpenMP constructs"},
    {"I/O", "io", "Time in file I/O"},
    {"Synchronization", "sync", "Time in synchronization"},
    {"Communication", "comm", "Time in point-to-point &lt;p2p&gt; calls"},
    {"Overhead", "ovhd", "Measurement overhead"},
};

static bool metric_is_int(uint64_t m, uint64_t M)
{
    return M >= 3 && m == M - 1;
}

static void write_metric_head(struct out *o, uint64_t indent, uint64_t id,
                              const char *disp, const char *uniq,
                              const char *dtype, const char *uom,
                              const char *descr)
{
    out_indent(o, indent);
    out_fmt(o, "<metric id=\"%" PRIu64 "\">\n", id);
    out_indent(o, indent + 2);
    out_fmt(o, "<disp_name>%s</disp_name>\n", disp);
    out_indent(o, indent + 2);
    out_fmt(o, "<uniq_name>%s</uniq_name>\n", uniq);
    out_indent(o, indent + 2);
    out_fmt(o, "<dtype>%s</dtype>\n", dtype);
    out_indent(o, indent + 2);
    out_fmt(o, "<uom>%s</uom>\n", uom);
    out_indent(o, indent + 2);
    out_fmt(o, "<url>@mirror@patterns.html#%s</url>\n", uniq);
    out_indent(o, indent + 2);
    out_fmt(o, "<descr>%s</descr>\n", descr);
}

static void write_metric_tail(struct out *o, uint64_t indent)
{
    out_indent(o, indent);
    out_str(o, "</metric>\n");
}

static void write_metrics(struct out *o, uint64_t M)
{
    const size_t nleaf = sizeof leaf_names / sizeof leaf_names[0];
    out_str(o, "  <metrics>\n");
    write_metric_head(o, 4, 0, "Time", "time", "FLOAT", "sec", "Total time");
    if (M >= 2) {
        write_metric_head(o, 6, 1, "Execution", "execution", "FLOAT", "sec",
                          "Execution time (without overhead)");
        uint64_t last_child = M >= 3 ? M - 2 : 1;
        for (uint64_t m = 2; m <= last_child; m++) {
            uint64_t k = m - 2;
            if (k < nleaf) {
                const struct metric_name *n = &leaf_names[k];
                write_metric_head(o, 8, m, n->disp, n->uniq, "FLOAT", "sec",
                                  n->descr);
            } else {
                char disp[48], uniq[48];
                snprintf(disp, sizeof disp, "Metric %" PRIu64, m);
                snprintf(uniq, sizeof uniq, "metric_%" PRIu64, m);
                write_metric_head(o, 8, m, disp, uniq, "FLOAT", "sec",
                                  "Synthetic time metric");
            }
            write_metric_tail(o, 8);
        }
        write_metric_tail(o, 6);
    }
    write_metric_tail(o, 4);
    if (M >= 3) {
        write_metric_head(o, 4, M - 1, "Visits", "visits", "INTEGER", "occ",
                          "Number of visits");
        write_metric_tail(o, 4);
    }
    out_str(o, "  </metrics>\n");
}

/* ------------------------------------------------------------------------
 * Regions: 0 is main, the next ones MPI calls (no module, no lines, as
 * measurement systems write them), the rest user functions spread over a
 * few source files.  (name, mod) pairs are unique, as the algebra tools key
 * regions by them.
 * ------------------------------------------------------------------------ */

static const char *const mpi_names[] = {
    "MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Isend",
    "MPI_Irecv", "MPI_Wait", "MPI_Waitall", "MPI_Barrier", "MPI_Bcast",
    "MPI_Reduce", "MPI_Allreduce", "MPI_Alltoall", "MPI_Gather",
    "MPI_Scatter", "MPI_Allgather", "MPI_Sendrecv", "MPI_Comm_rank",
    "MPI_Comm_size", "MPI_File_write",
};
#define N_MPI (sizeof mpi_names / sizeof mpi_names[0])
#define N_SRC_FILES 37u

static bool region_is_mpi(uint64_t r)
{
    return r >= 1 && r <= N_MPI;
}

/* Module (source file) of region r into buf; "" for MPI regions. */
static const char *region_mod(uint64_t r, char *buf, size_t n)
{
    if (r == 0)
        return "main.c";
    if (region_is_mpi(r))
        return "";
    snprintf(buf, n, "src/module_%02" PRIu64 ".c", r % N_SRC_FILES);
    return buf;
}

static void write_regions(struct out *o, uint64_t R)
{
    char mod[48];
    for (uint64_t r = 0; r < R; r++) {
        const char *m = region_mod(r, mod, sizeof mod);
        out_fmt(o, "    <region id=\"%" PRIu64 "\" mod=\"%s\"", r, m);
        if (r == 0) {
            out_str(o, " begin=\"10\" end=\"250\">\n"
                       "      <name>main</name>\n"
                       "      <url></url>\n"
                       "      <descr>USR</descr>\n");
        } else if (region_is_mpi(r)) {
            out_fmt(o,
                    " begin=\"-1\" end=\"-1\">\n"
                    "      <name>%s</name>\n"
                    "      <url>@mirror@mpi.html#%s</url>\n"
                    "      <descr>MPI</descr>\n",
                    mpi_names[r - 1], mpi_names[r - 1]);
        } else {
            uint64_t begin = 20 + (r / N_SRC_FILES) * 40;
            out_fmt(o,
                    " begin=\"%" PRIu64 "\" end=\"%" PRIu64 "\">\n"
                    "      <name>compute_kernel_%" PRIu64 "</name>\n"
                    "      <url></url>\n"
                    "      <descr>USR</descr>\n",
                    begin, begin + 35, r);
        }
        out_str(o, "    </region>\n");
    }
}

/* ------------------------------------------------------------------------
 * The call tree.
 *
 * Built in creation order: node 0 is the root (main); node k > 0 gets a
 * parent drawn uniformly from the existing nodes whose depth is < D (a
 * random recursive tree, capped at depth D).  Regions are then handed out
 * round robin in creation order, separately for leaves (all regions but
 * main) and for inner nodes (user functions only, so that MPI calls are
 * leaves as in real profiles); with enough cnodes every region is used.
 * Each non-root cnode has a distinct call-site line, so no two siblings
 * share the (region, mod, line) key the algebra tools match on.
 * Children are kept in creation order (CSR arrays) and the tree is written
 * depth first; ids are assigned in that preorder, as libcubew3 does.
 * ------------------------------------------------------------------------ */

struct tree {
    uint64_t n;
    uint32_t *parent;   /* creation index of the parent (root: itself) */
    uint32_t *depth;    /* root = 1 */
    uint32_t *region;   /* callee region id */
    uint32_t *child_at; /* CSR: children of k are kids[child_at[k] .. child_at[k+1]) */
    uint32_t *kids;
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "gen_cube: out of memory\n");
        exit(1);
    }
    return p;
}

static void tree_free(struct tree *t)
{
    free(t->parent);
    free(t->depth);
    free(t->region);
    free(t->child_at);
    free(t->kids);
}

static void tree_build(struct tree *t, const struct params *p, uint64_t R)
{
    const uint64_t n = p->cnodes;
    rng_t r;
    rng_init(&r, p->seed, 1);

    t->n = n;
    t->parent = xcalloc(n, sizeof *t->parent);
    t->depth = xcalloc(n, sizeof *t->depth);
    t->region = xcalloc(n, sizeof *t->region);
    t->child_at = xcalloc(n + 1, sizeof *t->child_at);
    t->kids = xcalloc(n, sizeof *t->kids);
    uint32_t *eligible = xcalloc(n, sizeof *eligible); /* depth < D */
    uint64_t n_elig = 0;

    t->parent[0] = 0;
    t->depth[0] = 1;
    if (p->depth > 1)
        eligible[n_elig++] = 0;
    for (uint64_t k = 1; k < n; k++) {
        if (n_elig == 0) { /* --depth 1: no cnode may have children, */
            t->parent[k] = (uint32_t)k; /* so every cnode is a root */
            t->depth[k] = 1;
            continue;
        }
        uint32_t par = eligible[rng_below(&r, n_elig)];
        t->parent[k] = par;
        t->depth[k] = t->depth[par] + 1;
        if (t->depth[k] < p->depth)
            eligible[n_elig++] = (uint32_t)k;
    }
    free(eligible);

    /* CSR children lists, in creation order. */
    for (uint64_t k = 0; k < n; k++)
        if (t->parent[k] != k)
            t->child_at[t->parent[k] + 1]++;
    for (uint64_t k = 0; k < n; k++)
        t->child_at[k + 1] += t->child_at[k];
    uint32_t *fill = xcalloc(n, sizeof *fill);
    for (uint64_t k = 0; k < n; k++)
        if (t->parent[k] != k) {
            uint32_t par = t->parent[k];
            t->kids[t->child_at[par] + fill[par]++] = (uint32_t)k;
        }
    free(fill);

    /* Regions: cnode 0 calls main (further roots exist only with --depth 1
     * and are treated like leaves); inner nodes cycle over the user functions
     * (R > N_MPI + 1) or, if there are none, over all non-main regions;
     * leaves cycle over all non-main regions. */
    uint64_t leaf_i = 0, inner_i = 0;
    const uint64_t inner_first = R > N_MPI + 1 ? N_MPI + 1 : 1;
    for (uint64_t k = 0; k < n; k++) {
        if (k == 0 || R == 1)
            t->region[k] = 0;
        else if (t->child_at[k + 1] > t->child_at[k])
            t->region[k] = (uint32_t)(inner_first + inner_i++ % (R - inner_first));
        else
            t->region[k] = (uint32_t)(1 + leaf_i++ % (R - 1));
    }
}

static void write_cnode_open(struct out *o, const struct tree *t, uint64_t k,
                             uint64_t id)
{
    char mod[48];
    out_indent(o, 2 + 2 * (uint64_t)t->depth[k]);
    out_str(o, "<cnode id=\"");
    out_u64(o, id);
    out_str(o, "\"");
    if (k != 0) {
        /* call site: a line unique per cnode, in the caller's module */
        out_str(o, " line=\"");
        out_u64(o, 100 + k);
        out_str(o, "\"");
        const char *m = t->parent[k] == k
                            ? ""
                            : region_mod(t->region[t->parent[k]], mod, sizeof mod);
        if (*m) {
            out_str(o, " mod=\"");
            out_str(o, m);
            out_str(o, "\"");
        }
    }
    out_str(o, " calleeId=\"");
    out_u64(o, t->region[k]);
    out_str(o, "\">\n");
}

static void write_cnode_close(struct out *o, uint32_t depth)
{
    out_indent(o, 2 + 2 * (uint64_t)depth);
    out_str(o, "</cnode>\n");
}

/* Iterative preorder walk (the depth can be as large as the node count). */
static void write_calltree(struct out *o, const struct tree *t,
                           struct stats *st)
{
    uint32_t *stack = xcalloc(t->n, sizeof *stack); /* node per level */
    uint32_t *next = xcalloc(t->n, sizeof *next);   /* next child slot */
    uint64_t id = 0;

    for (uint64_t root = 0; root < t->n; root++) {
        if (t->parent[root] != root)
            continue;
        uint64_t sp = 0;
        stack[sp++] = (uint32_t)root;
        next[root] = t->child_at[root];
        write_cnode_open(o, t, root, id++);
        while (sp > 0) {
            uint32_t k = stack[sp - 1];
            if (next[k] < t->child_at[k + 1]) {
                uint32_t c = t->kids[next[k]++];
                next[c] = t->child_at[c];
                stack[sp++] = c;
                write_cnode_open(o, t, c, id++);
                if (t->depth[c] > st->max_depth_seen)
                    st->max_depth_seen = t->depth[c];
            } else {
                write_cnode_close(o, t->depth[k]);
                sp--;
            }
        }
    }
    if (st->max_depth_seen == 0)
        st->max_depth_seen = 1;
    free(stack);
    free(next);
}

/* ------------------------------------------------------------------------
 * System tree and topology: one machine, one node, threads/tpp processes of
 * tpp threads each.  Thread ids are global and dense (0..threads-1), as the
 * reader requires; ranks are the process rank and the thread number within
 * its process.
 * ------------------------------------------------------------------------ */

static void write_system(struct out *o, const struct params *p)
{
    const uint64_t procs = p->threads / p->tpp;
    out_str(o, "  <system>\n"
               "    <machine Id=\"0\">\n"
               "      <name>cluster</name>\n"
               "      <node Id=\"0\">\n"
               "        <name>node0</name>\n");
    for (uint64_t pr = 0; pr < procs; pr++) {
        out_fmt(o,
                "        <process Id=\"%" PRIu64 "\">\n"
                "          <name>Process %" PRIu64 "</name>\n"
                "          <rank>%" PRIu64 "</rank>\n",
                pr, pr, pr);
        for (uint64_t th = 0; th < p->tpp; th++)
            out_fmt(o,
                    "          <thread Id=\"%" PRIu64 "\">\n"
                    "            <name>Thread %" PRIu64 "</name>\n"
                    "            <rank>%" PRIu64 "</rank>\n"
                    "          </thread>\n",
                    pr * p->tpp + th, th, th);
        out_str(o, "        </process>\n");
    }
    out_str(o, "      </node>\n"
               "    </machine>\n"
               "    <topologies>\n");
    if (p->topology) {
        out_fmt(o,
                "      <cart name=\"ring\" ndims=\"1\">\n"
                "        <dim size=\"%" PRIu64 "\" periodic=\"true\"/>\n",
                p->threads);
        for (uint64_t th = 0; th < p->threads; th++)
            out_fmt(o, "        <coord thrdId=\"%" PRIu64 "\">%" PRIu64 "</coord>\n",
                    th, th);
        out_str(o, "      </cart>\n");
    }
    out_str(o, "    </topologies>\n"
               "  </system>\n");
}

/* ------------------------------------------------------------------------
 * Severity: one matrix per metric in id order, rows in cnode-id order, each
 * (metric, cnode) row present with probability `density`, one value per
 * thread per line.
 * ------------------------------------------------------------------------ */

static void write_severity(struct out *o, const struct params *p,
                           struct stats *st)
{
    rng_t r;
    rng_init(&r, p->seed, 2);
    out_str(o, "  <severity>\n");
    for (uint64_t m = 0; m < p->metrics; m++) {
        out_str(o, "    <matrix metricId=\"");
        out_u64(o, m);
        out_str(o, "\">\n");
        bool is_int = metric_is_int(m, p->metrics);
        for (uint64_t c = 0; c < p->cnodes; c++) {
            if (p->density < 1.0 && !(rng_unit(&r) < p->density))
                continue;
            out_str(o, "      <row cnodeId=\"");
            out_u64(o, c);
            out_str(o, "\">\n");
            if (is_int)
                write_int_row(o, &r, p->threads);
            else
                write_float_row(o, &r, p->threads, p->digits);
            out_str(o, "      </row>\n");
            st->rows++;
        }
        out_str(o, "    </matrix>\n");
    }
    out_str(o, "  </severity>\n");
}

/* ------------------------------------------------------------------------
 * The whole document
 * ------------------------------------------------------------------------ */

static uint64_t effective_regions(const struct params *p)
{
    if (p->regions)
        return p->regions;
    return p->cnodes < 500 ? p->cnodes : 500;
}

static void generate(struct out *o, const struct params *p, struct stats *st)
{
    const uint64_t R = effective_regions(p);
    struct tree t;
    memset(st, 0, sizeof *st);
    tree_build(&t, p, R);

    out_str(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n"
               "<cube version=\"3.0\">\n"
               "  <attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n"
               "  <attr key=\"Creator\" value=\"gen_cube (synthetic benchmark data)\"/>\n");
    out_fmt(o,
            "  <attr key=\"gen_cube.args\" value=\"--metrics %" PRIu64
            " --cnodes %" PRIu64 " --depth %" PRIu64 " --regions %" PRIu64
            " --threads %" PRIu64 " --threads-per-process %" PRIu64
            " --density %g --digits %d --seed %" PRIu64 "%s\"/>\n",
            p->metrics, p->cnodes, p->depth, R, p->threads, p->tpp,
            p->density, p->digits, p->seed,
            p->topology ? "" : " --no-topology");
    out_str(o, "  <doc>\n"
               "    <mirrors>\n"
               "      <murl>http://example.org/help/</murl>\n"
               "    </mirrors>\n"
               "  </doc>\n");
    write_metrics(o, p->metrics);
    out_str(o, "  <program>\n");
    write_regions(o, R);
    write_calltree(o, &t, st);
    out_str(o, "  </program>\n");
    write_system(o, p);
    write_severity(o, p, st);
    out_str(o, "</cube>\n");
    out_flush(o);
    st->bytes = o->total;
    tree_free(&t);
}

/* Bytes the document would have, without writing it. */
static uint64_t measure(const struct params *p, char *buf)
{
    struct out o = {.buf = buf, .fp = NULL};
    struct stats st;
    generate(&o, p, &st);
    return st.bytes;
}

/*
 * --target-mb: the size is (almost) affine in the cnode count, so measure
 * it at two cnode counts and solve.  The calibration sizes are kept small
 * enough (about 4 million values) that this takes a fraction of a second.
 * The regions default depends on cnodes, so it is fixed for the calibration
 * and the estimate is redone once if it lands below 500 cnodes.
 */
static uint64_t cnodes_for_target(const struct params *p0, double target_mb,
                                  char *buf)
{
    const double target = target_mb * 1e6;
    struct params p = *p0;
    uint64_t per_cnode = p.metrics * p.threads;
    uint64_t c2 = per_cnode ? 4000000 / per_cnode : 4000;
    if (c2 > 4000)
        c2 = 4000;
    if (c2 < 20)
        c2 = 20;
    uint64_t c1 = c2 / 2;
    uint64_t regions_fixed = p0->regions ? p0->regions : 500;
    uint64_t c = 1;

    for (int pass = 0; pass < 2; pass++) {
        p.regions = regions_fixed;
        p.cnodes = c1;
        uint64_t b1 = measure(&p, buf);
        p.cnodes = c2;
        uint64_t b2 = measure(&p, buf);
        double s1 = (double)b1, s2 = (double)b2;
        double slope = (s2 - s1) / (double)(c2 - c1);
        double fixed = s1 - slope * (double)c1;
        double est = slope > 0 ? (target - fixed) / slope : 1.0;
        c = est < 1.0 ? 1 : est > 4e9 ? UINT64_C(4000000000) : (uint64_t)(est + 0.5);
        if (p0->regions || c >= 500 || regions_fixed == c)
            break;
        regions_fixed = c; /* the default min(cnodes, 500) will apply */
    }
    return c;
}

/* ------------------------------------------------------------------------
 * Command line
 * ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fputs(
        "Usage: gen_cube [OPTIONS] [-o FILE | FILE]\n"
        "Write a synthetic CUBE 3 XML experiment (deterministic for a given seed).\n"
        "\n"
        "  -o, --output FILE          output file, '-' for stdout (default)\n"
        "      --metrics N            metrics (default 5): time > execution >\n"
        "                             mpi, omp, ... and a root 'visits' (INTEGER)\n"
        "      --cnodes N             call-tree nodes (default 4000)\n"
        "      --depth D              maximum call-tree depth, root = 1 (default 10)\n"
        "      --regions N            regions (default min(cnodes, 500))\n"
        "      --threads N            threads in total (default 16)\n"
        "      --threads-per-process K  threads per process (default 1; must\n"
        "                             divide --threads)\n"
        "      --density F            fraction of (metric, cnode) rows present,\n"
        "                             0..1 (default 1.0)\n"
        "      --digits P             significant digits of FLOAT values, 1..17\n"
        "                             (default 17; the CUBE 3 writers use 12)\n"
        "      --no-topology          write an empty <topologies> element\n"
        "      --seed S               PRNG seed (default 1)\n"
        "      --target-mb M          choose --cnodes so that the file is about\n"
        "                             M megabytes (10^6 bytes)\n"
        "  -v, --verbose              print a summary line to stderr:\n"
        "                             bytes= cnodes= regions= metrics= threads= rows= depth=\n"
        "  -h, --help                 show this help\n",
        f);
}

static bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    if (*s == '-' || *s == '\0')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0' || v < min || v > max)
        return false;
    *out = (uint64_t)v;
    return true;
}

static bool parse_double(const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !(v >= min && v <= max))
        return false;
    *out = v;
    return true;
}

enum {
    OPT_METRICS = 256, OPT_CNODES, OPT_DEPTH, OPT_REGIONS, OPT_THREADS,
    OPT_TPP, OPT_DENSITY, OPT_DIGITS, OPT_NO_TOPO, OPT_SEED, OPT_TARGET,
};

static int bad_value(const char *opt, const char *val, const char *range)
{
    fprintf(stderr, "gen_cube: invalid value '%s' for %s (expected %s)\n",
            val, opt, range);
    return 2;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"metrics", required_argument, NULL, OPT_METRICS},
        {"cnodes", required_argument, NULL, OPT_CNODES},
        {"depth", required_argument, NULL, OPT_DEPTH},
        {"regions", required_argument, NULL, OPT_REGIONS},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"threads-per-process", required_argument, NULL, OPT_TPP},
        {"density", required_argument, NULL, OPT_DENSITY},
        {"digits", required_argument, NULL, OPT_DIGITS},
        {"no-topology", no_argument, NULL, OPT_NO_TOPO},
        {"seed", required_argument, NULL, OPT_SEED},
        {"target-mb", required_argument, NULL, OPT_TARGET},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    /* Ids are stored as uint32_t in the tree arrays; keep counts below that
     * and the product of rows and threads sane. */
    const uint64_t MAXN = UINT32_MAX - 1;
    struct params p = {
        .metrics = 5, .cnodes = 4000, .depth = 10, .regions = 0,
        .threads = 16, .tpp = 1, .density = 1.0, .seed = 1, .digits = 17,
        .topology = true,
    };
    const char *path = NULL;
    double target_mb = 0;
    bool verbose = false, cnodes_given = false;
    uint64_t v;
    int c;

    while ((c = getopt_long(argc, argv, "o:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': path = optarg; break;
        case 'v': verbose = true; break;
        case 'h': usage(stdout); return 0;
        case OPT_METRICS:
            if (!parse_u64(optarg, 1, 100000, &p.metrics))
                return bad_value("--metrics", optarg, "1..100000");
            break;
        case OPT_CNODES:
            if (!parse_u64(optarg, 1, MAXN, &p.cnodes))
                return bad_value("--cnodes", optarg, "an integer >= 1");
            cnodes_given = true;
            break;
        case OPT_DEPTH:
            if (!parse_u64(optarg, 1, MAXN, &p.depth))
                return bad_value("--depth", optarg, "an integer >= 1");
            break;
        case OPT_REGIONS:
            if (!parse_u64(optarg, 1, MAXN, &p.regions))
                return bad_value("--regions", optarg, "an integer >= 1");
            break;
        case OPT_THREADS:
            if (!parse_u64(optarg, 1, 10000000, &p.threads))
                return bad_value("--threads", optarg, "1..10000000");
            break;
        case OPT_TPP:
            if (!parse_u64(optarg, 1, 10000000, &p.tpp))
                return bad_value("--threads-per-process", optarg, "an integer >= 1");
            break;
        case OPT_DENSITY:
            if (!parse_double(optarg, 0.0, 1.0, &p.density))
                return bad_value("--density", optarg, "a number in [0, 1]");
            break;
        case OPT_DIGITS:
            if (!parse_u64(optarg, 1, 17, &v))
                return bad_value("--digits", optarg, "1..17");
            p.digits = (int)v;
            break;
        case OPT_NO_TOPO: p.topology = false; break;
        case OPT_SEED:
            if (!parse_u64(optarg, 0, UINT64_MAX, &p.seed))
                return bad_value("--seed", optarg, "a non-negative integer");
            break;
        case OPT_TARGET:
            if (!parse_double(optarg, 1e-6, 1e7, &target_mb))
                return bad_value("--target-mb", optarg, "a number > 0");
            break;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        if (path || optind + 1 < argc) {
            fprintf(stderr, "gen_cube: give one output file (-o FILE or FILE)\n");
            return 2;
        }
        path = argv[optind];
    }
    if (!path)
        path = "-";
    if (p.threads % p.tpp != 0) {
        fprintf(stderr, "gen_cube: --threads-per-process %" PRIu64
                        " does not divide --threads %" PRIu64 "\n",
                p.tpp, p.threads);
        return 2;
    }
    if (target_mb > 0 && cnodes_given) {
        fprintf(stderr, "gen_cube: --target-mb and --cnodes exclude each other\n");
        return 2;
    }

    char *buf = malloc(OUT_CAP);
    if (!buf) {
        fprintf(stderr, "gen_cube: out of memory\n");
        return 1;
    }
    if (target_mb > 0)
        p.cnodes = cnodes_for_target(&p, target_mb, buf);

    bool to_stdout = strcmp(path, "-") == 0;
    FILE *fp = to_stdout ? stdout : fopen(path, "wb");
    if (!fp) {
        fprintf(stderr, "gen_cube: cannot open %s: %s\n", path, strerror(errno));
        free(buf);
        return 1;
    }

    /* Only a regular file is removed after a failed write (never a device
     * such as /dev/full, or a pipe). */
    struct stat sb;
    bool regular = !to_stdout && fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode);

    struct out o = {.buf = buf, .fp = fp};
    struct stats st;
    generate(&o, &p, &st);
    bool failed = o.failed;
    int err = o.err;
    errno = 0;
    if ((to_stdout ? fflush(fp) : fclose(fp)) != 0 && !failed) {
        failed = true;
        err = errno;
    }
    if (failed) {
        fprintf(stderr, "gen_cube: write error on %s: %s\n",
                to_stdout ? "stdout" : path,
                err ? strerror(err) : "unknown error");
        if (regular)
            remove(path); /* do not leave a truncated file behind */
        free(buf);
        return 1;
    }
    free(buf);

    if (verbose)
        fprintf(stderr,
                "bytes=%" PRIu64 " cnodes=%" PRIu64 " regions=%" PRIu64
                " metrics=%" PRIu64 " threads=%" PRIu64 " rows=%" PRIu64
                " depth=%" PRIu64 "\n",
                st.bytes, p.cnodes, effective_regions(&p), p.metrics,
                p.threads, st.rows, st.max_depth_seen);
    return 0;
}
