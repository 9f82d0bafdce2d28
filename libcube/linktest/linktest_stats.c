/*
 * linktest_stats.c - statistics over the measurements of a LinkTest run:
 * min / mean / median / max, the slowest measurements, per-host figures
 * with outliers, and a log-scale histogram.
 *
 * A 4096-rank run has 16.8 million measurements per iteration (134 MB of
 * doubles).  Nothing here copies the matrices: every figure is one or two
 * passes over them, the median included (a radix selection on the bits of
 * the doubles narrows it down to a small bucket, which alone is copied),
 * so that the memory of a report stays that of the matrices.
 */
#include "cube_linktest.h"
#include "linktest/linktest_private.h"
#include "views/view_private.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- which measurements: iterations x rows ------------------------------ */

typedef struct {
    cube_linktest *lt;
    size_t n;
    size_t first_iter, end_iter; /* [first, end) */
    const size_t *rows;          /* NULL: every rank */
    size_t num_rows;
    double *buf; /* a row read from the file (without the matrices) */
    int failed;  /* a row could not be read: error says why */
    cube_status error;
} measurement_set;

static int set_init(measurement_set *s, cube_linktest *lt, size_t iteration)
{
    s->lt = lt;
    s->n = cube_linktest_num_ranks(lt);
    size_t m = cube_linktest_num_permutations(lt);
    if (iteration == CUBE_LINKTEST_ALL_ITERATIONS) {
        s->first_iter = 0;
        s->end_iter = m;
    } else {
        s->first_iter = iteration < m ? iteration : m;
        s->end_iter = iteration < m ? iteration + 1 : m;
    }
    s->rows = NULL;
    s->num_rows = s->n;
    s->failed = 0;
    s->buf = NULL;
    if (m && !cube_linktest_get_permutation(lt, 0)->times &&
        !(s->buf = malloc((s->n ? s->n : 1) * sizeof *s->buf)))
        return -1;
    return 0;
}

static void set_done(measurement_set *s)
{
    free(s->buf);
    s->buf = NULL;
}

/* The row of the k-th rank of the set in iteration `iter`: in the matrix,
 * or read into the set's buffer; NULL after a read error. */
static const double *set_row(measurement_set *s, size_t iter, size_t k, size_t *rank)
{
    *rank = s->rows ? s->rows[k] : k;
    const double *t = cube_linktest_get_permutation(s->lt, iter)->times;
    if (t)
        return t + *rank * s->n;
    if (linktest_read_row(s->lt, iter, *rank, s->buf, &s->error) != 0) {
        s->failed = 1;
        return NULL;
    }
    return s->buf;
}

/* Run the statement(s) after `s` for every measurement, with v_ its value,
 * it_ its iteration, rank_ and col_ its row and column (the diagonal and
 * NaNs are not measurements).  A macro, not a callback: these loops run
 * over tens of millions of values, and an indirect call per value would
 * cost more than the work it does.  A row that cannot be read ends the
 * loop with s->failed set. */
#define FOR_EACH_MEASUREMENT(s, ...)                                                        \
    for (size_t it_ = (s)->first_iter; it_ < (s)->end_iter && !(s)->failed; it_++)             \
        for (size_t k_ = 0; k_ < (s)->num_rows; k_++) {                                        \
            size_t rank_;                                                                      \
            const double *row_ = set_row((s), it_, k_, &rank_);                                \
            if (!row_)                                                                         \
                break;                                                                         \
            for (size_t col_ = 0; col_ < (s)->n; col_++) {                                     \
                double v_ = row_[col_];                                                        \
                if (col_ == rank_ || isnan(v_))                                                \
                    continue;                                                                  \
                __VA_ARGS__                                                                    \
            }                                                                                  \
        }

static void set_oom(cube_linktest *lt)
{
    status_set(linktest_status(lt), CUBE_ENOMEM, "out of memory");
}

/* ---- order-preserving keys and selection ------------------------------- */

/* The bits of a double as an unsigned key that sorts like the double. */
static uint64_t order_key(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b >> 63 ? ~b : b | (uint64_t)1 << 63;
}

static double from_order_key(uint64_t key)
{
    uint64_t b = key >> 63 ? key & ~((uint64_t)1 << 63) : ~key;
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static void swap_d(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Rearrange v[0..n) (no NaN) and return its k-th smallest value:
 * Hoare's selection with a three-way partition, so that runs of equal
 * values (common: timer resolution) cost nothing; the pivot comes from a
 * local generator against inputs made to be slow.  Afterwards v[k] holds
 * it, with nothing greater before and nothing smaller after. */
static double select_in_array(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    uint64_t seed = 0x9e3779b97f4a7c15u ^ n;
    while (lo < hi) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        double pivot = v[lo + (size_t)((seed >> 33) % (hi - lo + 1))];
        /* v[lo, less) < pivot, v[less, i) == pivot, v(more, hi] > pivot */
        size_t less = lo, i = lo, more = hi;
        while (i <= more) {
            if (v[i] < pivot)
                swap_d(&v[less++], &v[i++]);
            else if (v[i] > pivot)
                swap_d(&v[i], &v[more--]); /* never below lo: pivot is in range */
            else
                i++;
        }
        if (k < less)
            hi = less - 1;
        else if (k > more)
            lo = more + 1;
        else
            return pivot;
    }
    return v[k];
}

#define RADIX_BITS 16
#define RADIX_BUCKETS ((size_t)1 << RADIX_BITS)

/* What may be copied for a selection: an eighth of the values, at least
 * 64 Ki: memory stays near that of the matrices. */
static size_t selection_cap(size_t count)
{
    size_t cap = count / 8;
    return cap < 65536 ? 65536 : cap;
}

/* The bucket of a histogram holding rank k; *k becomes the rank inside it. */
static size_t bucket_of(const uint64_t *hist, uint64_t *k)
{
    size_t b = 0;
    while (*k >= hist[b])
        *k -= hist[b++];
    return b;
}

/* The values of ranks k and k + 1 (or k alone when `pair` is 0) among the
 * `in_bucket` measurements whose keys share the top 64 - shift bits with
 * `prefix`: a histogram of the next 16 bits, down to a bucket small enough
 * to copy (or to one key).  0, or -1 (out of memory, read error). */
static int select_in_bucket(measurement_set *s, uint64_t prefix, unsigned shift, uint64_t in_bucket,
                            uint64_t k, int pair, size_t cap, double *lo, double *hi)
{
#define IN_BUCKET(key) (shift == 64 || (key) >> shift == prefix >> shift)
    if (in_bucket > cap && shift == 0) { /* one key */
        *lo = *hi = from_order_key(prefix);
        return 0;
    }
    if (in_bucket > cap) {
        uint64_t *hist = calloc(RADIX_BUCKETS, sizeof *hist);
        if (!hist)
            return -1;
        unsigned next = shift - RADIX_BITS;
        FOR_EACH_MEASUREMENT(s, {
            uint64_t key = order_key(v_);
            if (IN_BUCKET(key))
                hist[(key >> next) & (RADIX_BUCKETS - 1)]++;
        })
        uint64_t k2 = k + (pair != 0);
        size_t b = bucket_of(hist, &k), b2 = bucket_of(hist, &k2);
        uint64_t nb = hist[b], nb2 = hist[b2];
        free(hist);
        if (s->failed)
            return -1;
        uint64_t p1 = prefix | (uint64_t)b << next, p2 = prefix | (uint64_t)b2 << next;
        if (b == b2)
            return select_in_bucket(s, p1, next, nb, k, pair, cap, lo, hi);
        double ignored;
        return select_in_bucket(s, p1, next, nb, k, 0, cap, lo, &ignored) ||
                       select_in_bucket(s, p2, next, nb2, k2, 0, cap, hi, &ignored)
                   ? -1
                   : 0;
    }
    double *v = malloc((in_bucket ? in_bucket : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t got = 0;
    FOR_EACH_MEASUREMENT(s, {
        uint64_t key = order_key(v_);
        if (IN_BUCKET(key) && got < in_bucket)
            v[got++] = v_;
    })
    if (s->failed || got != in_bucket) {
        free(v);
        return -1;
    }
    *lo = select_in_array(v, got, (size_t)k);
    *hi = *lo;
    if (pair) { /* the next one up: the least of what follows */
        *hi = v[k + 1];
        for (size_t i = (size_t)k + 2; i < got; i++)
            *hi = v[i] < *hi ? v[i] : *hi;
    }
    free(v);
    return 0;
#undef IN_BUCKET
}

/* ---- the first pass: count, min, max, sum, the median window, the slowest
 *
 * The median: a sample of rows spread over the set gives a window of
 * values around its median; the pass counts the values below the window
 * and copies those inside it.  When the median falls in the window (it
 * nearly always does), it is selected there: one pass in all.  Otherwise
 * the histogram selection above takes over: exact either way. */

#define SAMPLE_ROWS 64
#define SAMPLE_PER_ROW 1024
#define WINDOW_HALF_WIDTH 0.015 /* quantiles 0.485 .. 0.515 of the sample */

typedef struct {
    size_t count;
    double sum, comp, lo, hi;
    double win_lo, win_hi; /* the median window; empty when win_lo > win_hi */
    size_t below;          /* values < win_lo */
    double *inside;        /* values in [win_lo, win_hi] */
    size_t num_inside, inside_cap, inside_limit;
    int overflow;          /* more than inside_limit: not all kept */
    int oom;
    cube_linktest_link *heap; /* the k slowest so far (a min-heap), or NULL */
    size_t heap_k, heap_n;
} first_pass;

static void heap_offer(first_pass *f, const cube_linktest_link *l);

/* The window from a sample: up to SAMPLE_ROWS rows spread evenly over
 * the set's rows and iterations, up to SAMPLE_PER_ROW values of each. */
static int choose_window(measurement_set *s, first_pass *f)
{
    f->win_lo = 1;
    f->win_hi = 0;
    size_t iters = s->end_iter - s->first_iter, total = s->num_rows * iters;
    if (total == 0)
        return 0;
    if (total * s->n <= selection_cap(0)) {
        /* so few values that the pass may keep them all: no sample to read */
        f->win_lo = -INFINITY;
        f->win_hi = INFINITY;
        return 0;
    }
    /* an eighth of the rows at most: reading the sample must stay small
     * beside the pass (a host's few rows, say) */
    size_t rows = total / 8 < SAMPLE_ROWS ? total / 8 : SAMPLE_ROWS;
    if (rows < 4)
        rows = total < 4 ? total : 4;
    double *v = malloc(rows * SAMPLE_PER_ROW * sizeof *v);
    if (!v)
        return -1;
    size_t got = 0, step = s->n / SAMPLE_PER_ROW + 1;
    for (size_t j = 0; j < rows; j++) {
        size_t pick = j * total / rows, rank;
        const double *row = set_row(s, s->first_iter + pick % iters, pick / iters, &rank);
        if (!row) {
            free(v);
            return -1;
        }
        for (size_t c = (j * 7) % step; c < s->n; c += step)
            if (c != rank && !isnan(row[c]))
                v[got++] = row[c];
    }
    if (got) {
        size_t a = (size_t)((0.5 - WINDOW_HALF_WIDTH) * (double)(got - 1));
        size_t b = (size_t)ceil((0.5 + WINDOW_HALF_WIDTH) * (double)(got - 1));
        f->win_lo = select_in_array(v, got, a);
        /* v[a + 1 ..] holds what is not below win_lo: the upper quantile */
        f->win_hi = b > a ? select_in_array(v + a + 1, got - a - 1, b - a - 1) : f->win_lo;
    }
    free(v);
    return 0;
}

static int keep_inside(first_pass *f, double v)
{
    if (f->num_inside == f->inside_cap) {
        if (f->inside_cap >= f->inside_limit) {
            f->overflow = 1;
            return 0;
        }
        size_t cap = f->inside_cap ? 2 * f->inside_cap : 4096;
        cap = cap > f->inside_limit ? f->inside_limit : cap;
        double *p = realloc(f->inside, cap * sizeof *p);
        if (!p)
            return -1;
        f->inside = p;
        f->inside_cap = cap;
    }
    f->inside[f->num_inside++] = v;
    return 0;
}

/* The first pass over a run of a row (columns col0 .. col0 + len - 1):
 * four independent lanes of sums (TwoSum, so the compensation needs no
 * branch), minima, maxima and counts, so that the loop runs at the speed
 * of the memory; what is rare (a value in the median window, one slow
 * enough for the list, a NaN) leaves the fast path one value at a time. */
typedef struct {
    double s[4], c[4], lo[4], hi[4];
    size_t below[4];
    size_t count;
    int oom;
} lanes;

static inline void two_sum(double *sum, double *comp, double x)
{
    double t = *sum + x, bp = t - *sum;
    *comp += (*sum - (t - bp)) + (x - bp);
    *sum = t;
}

static void rare_value(first_pass *f, lanes *L, double x, size_t it, size_t rank, size_t col)
{
    if (x != x) { /* NaN: not a measurement (its sum lane took 0) */
        L->count--;
        return;
    }
    if (x >= f->win_lo && x <= f->win_hi && !f->overflow)
        L->oom |= keep_inside(f, x);
    if (f->heap && (f->heap_n < f->heap_k || x >= f->heap[0].time)) {
        cube_linktest_link l = {rank, col, it, x, NAN};
        heap_offer(f, &l);
    }
}

static void scan_run(first_pass *f, lanes *L, const double *v, size_t len, size_t it,
                     size_t rank, size_t col0)
{
    const double win_lo = f->win_lo, win_hi = f->win_hi;
    double slow = !f->heap ? INFINITY : f->heap_n == f->heap_k ? f->heap[0].time : -INFINITY;
    /* the lanes in local arrays that the compiler keeps in (vector)
     * registers; every condition below is computed without a branch */
    double s[4], c[4], lo[4], hi[4], nb[4];
    for (int j = 0; j < 4; j++) {
        s[j] = L->s[j];
        c[j] = L->c[j];
        lo[j] = L->lo[j];
        hi[j] = L->hi[j];
        nb[j] = 0;
    }
    L->count += len;
    size_t i = 0;
    for (; i + 4 <= len; i += 4) {
        double x[4], rare[4];
        for (int j = 0; j < 4; j++) {
            x[j] = v[i + j];
            double y = x[j] == x[j] ? x[j] : 0.0;
            double t = s[j] + y, bp = t - s[j];
            c[j] += (s[j] - (t - bp)) + (y - bp);
            s[j] = t;
            lo[j] = x[j] < lo[j] ? x[j] : lo[j];
            hi[j] = x[j] > hi[j] ? x[j] : hi[j];
            nb[j] += x[j] < win_lo ? 1.0 : 0.0;
            /* in the window, slow enough for the list, or NaN */
            int is_rare = ((x[j] >= win_lo) & (x[j] <= win_hi)) | (x[j] >= slow) | (x[j] != x[j]);
            rare[j] = is_rare ? 1.0 : 0.0;
        }
        if (rare[0] + rare[1] + rare[2] + rare[3] > 0) {
            for (int j = 0; j < 4; j++)
                if (rare[j] > 0)
                    rare_value(f, L, x[j], it, rank, col0 + i + j);
            if (f->heap && f->heap_n == f->heap_k)
                slow = f->heap[0].time;
        }
    }
    for (; i < len; i++) {
        double x = v[i], y = x == x ? x : 0.0;
        two_sum(&s[0], &c[0], y);
        lo[0] = x < lo[0] ? x : lo[0];
        hi[0] = x > hi[0] ? x : hi[0];
        nb[0] += x < win_lo ? 1.0 : 0.0;
        rare_value(f, L, x, it, rank, col0 + i);
    }
    for (int j = 0; j < 4; j++) {
        L->s[j] = s[j];
        L->c[j] = c[j];
        L->lo[j] = lo[j];
        L->hi[j] = hi[j];
        /* exact: a run is far shorter than 2^53 */
        L->below[j] += (size_t)nb[j];
    }
}

/* The first pass over the rows [from, to) of the set's row list, every
 * iteration. */
static void scan_rows(measurement_set *s, first_pass *f, size_t from, size_t to)
{
    lanes L;
    memset(&L, 0, sizeof L);
    for (int j = 0; j < 4; j++) {
        L.lo[j] = INFINITY;
        L.hi[j] = -INFINITY;
    }
    for (size_t it = s->first_iter; it < s->end_iter && !s->failed; it++)
        for (size_t k = from; k < to; k++) {
            size_t rank;
            const double *row = set_row(s, it, k, &rank);
            if (!row)
                break;
            scan_run(f, &L, row, rank, it, rank, 0);
            scan_run(f, &L, row + rank + 1, s->n - rank - 1, it, rank, rank + 1);
        }
    double sum = 0, comp = 0;
    for (int j = 0; j < 4; j++) {
        view_neu_add(&sum, &comp, L.s[j]);
        view_neu_add(&sum, &comp, L.c[j]);
        f->lo = L.lo[j] < f->lo ? L.lo[j] : f->lo;
        f->hi = L.hi[j] > f->hi ? L.hi[j] : f->hi;
        f->below += L.below[j];
    }
    f->sum = sum;
    f->comp = comp;
    f->count = L.count;
    f->oom = L.oom;
}

/* A helper thread's share: the second half of the rows, with a set and
 * a pass of its own (own row buffer, window copies and heap). */
typedef struct {
    measurement_set set;
    first_pass pass;
    size_t from, to;
} pass_share;

static void *scan_share(void *arg)
{
    pass_share *sh = arg;
    scan_rows(&sh->set, &sh->pass, sh->from, sh->to);
    return NULL;
}

static void merge_pass(first_pass *f, first_pass *g)
{
    view_neu_add(&f->sum, &f->comp, g->sum);
    view_neu_add(&f->sum, &f->comp, g->comp);
    f->lo = g->lo < f->lo ? g->lo : f->lo;
    f->hi = g->hi > f->hi ? g->hi : f->hi;
    f->count += g->count;
    f->below += g->below;
    f->oom |= g->oom;
    f->overflow |= g->overflow;
    for (size_t i = 0; i < g->num_inside && !f->overflow; i++)
        f->oom |= keep_inside(f, g->inside[i]);
    for (size_t i = 0; i < g->heap_n; i++)
        heap_offer(f, &g->heap[i]);
}

static int run_first_pass(measurement_set *s, first_pass *f)
{
    f->lo = INFINITY;
    f->hi = -INFINITY;
    f->sum = f->comp = 0;
    f->count = f->below = 0;
    f->oom = 0;
    size_t values = (s->end_iter - s->first_iter) * s->num_rows * s->n;
    pass_share sh;
    int threaded = 0;
    if (values >= linktest_helper_threshold(s->lt) && s->num_rows >= 2) {
        memset(&sh, 0, sizeof sh);
        sh.set = *s;
        sh.set.buf = s->buf ? malloc(s->n * sizeof *sh.set.buf) : NULL;
        sh.pass = *f;
        sh.pass.inside = NULL;
        sh.pass.num_inside = sh.pass.inside_cap = 0;
        sh.pass.heap = f->heap ? malloc(f->heap_k * sizeof *sh.pass.heap) : NULL;
        sh.from = s->num_rows / 2;
        sh.to = s->num_rows;
        pthread_t tid;
        if ((!s->buf || sh.set.buf) && (!f->heap || sh.pass.heap) &&
            pthread_create(&tid, NULL, scan_share, &sh) == 0) {
            threaded = 1;
            scan_rows(s, f, 0, sh.from);
            pthread_join(tid, NULL);
            if (sh.set.failed && !s->failed) {
                s->failed = 1;
                status_copy(&s->error, &sh.set.error);
            }
            merge_pass(f, &sh.pass);
        }
        free(sh.set.buf);
        free(sh.pass.heap);
        free(sh.pass.inside);
    }
    if (!threaded)
        scan_rows(s, f, 0, s->num_rows);
    return s->failed || f->oom ? -1 : 0;
}

/* The middle values (ranks k and k + 1, or k alone) by the histogram
 * selection, from the whole set. */
static int median_by_histogram(measurement_set *s, size_t count, double *lo, double *hi)
{
    uint64_t k = (count - 1) / 2;
    return select_in_bucket(s, 0, 64, count, k, count % 2 == 0, selection_cap(count), lo, hi);
}

/* The statistics of a set: the sample, the first pass, and the median from
 * its window (or, failing that, by the histogram selection). */
static int stats_with(measurement_set *s, first_pass *f, cube_linktest_stats *out)
{
    out->min = out->mean = out->median = out->max = NAN;
    out->count = 0;
    if (choose_window(s, f) != 0)
        return -1;
    f->inside_limit = selection_cap((s->end_iter - s->first_iter) * s->num_rows * s->n);
    int rc = run_first_pass(s, f);
    out->count = f->count;
    if (rc == 0 && f->count) {
        out->min = f->lo;
        out->max = f->hi;
        out->mean = view_neu_result(f->sum, f->comp) / (double)f->count;
        size_t k = (f->count - 1) / 2, k2 = f->count / 2;
        double lo, hi;
        if (!f->overflow && f->below <= k && k2 < f->below + f->num_inside) {
            lo = select_in_array(f->inside, f->num_inside, k - f->below);
            hi = lo;
            for (size_t i = k - f->below + 1; k2 != k && i < f->num_inside; i++)
                hi = i == k - f->below + 1 || f->inside[i] < hi ? f->inside[i] : hi;
        } else {
            rc = median_by_histogram(s, f->count, &lo, &hi);
        }
        if (rc == 0)
            out->median = lo + (hi - lo) / 2;
    }
    free(f->inside);
    f->inside = NULL;
    f->num_inside = f->inside_cap = 0;
    return rc;
}

static int stats_of(measurement_set *s, cube_linktest_stats *out)
{
    first_pass f;
    memset(&f, 0, sizeof f);
    return stats_with(s, &f, out);
}

/* A failed analysis: the reason on the handle (a read error is there
 * already). */
static int analysis_failed(measurement_set *s)
{
    if (s->failed)
        status_copy(linktest_status(s->lt), &s->error);
    else
        set_oom(s->lt);
    set_done(s);
    return -1;
}

int cube_linktest_time_stats(cube_linktest *lt, size_t iteration, cube_linktest_stats *out)
{
    status_ok(linktest_status(lt));
    measurement_set s;
    if (set_init(&s, lt, iteration) != 0)
        return analysis_failed(&s);
    if (stats_of(&s, out) != 0)
        return analysis_failed(&s);
    set_done(&s);
    return 0;
}

int cube_linktest_a2a_stats(cube_linktest *lt, cube_linktest_stats *out)
{
    status_ok(linktest_status(lt));
    size_t n = cube_linktest_num_ranks(lt), m = cube_linktest_num_permutations(lt), count = 0;
    double sum = 0, comp = 0, lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < m; i++) {
        const double *a = cube_linktest_get_permutation(lt, i)->all_to_all_times;
        for (size_t r = 0; a && r < n; r++) {
            if (isnan(a[r]))
                continue;
            view_neu_add(&sum, &comp, a[r]);
            lo = a[r] < lo ? a[r] : lo;
            hi = a[r] > hi ? a[r] : hi;
            count++;
        }
    }
    out->count = count;
    out->min = out->mean = out->median = out->max = NAN;
    if (count == 0)
        return 0;
    out->min = lo;
    out->max = hi;
    out->mean = view_neu_result(sum, comp) / (double)count;
    double *v = malloc(count * sizeof *v);
    if (!v) {
        set_oom(lt);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        const double *a = cube_linktest_get_permutation(lt, i)->all_to_all_times;
        for (size_t r = 0; a && r < n; r++)
            if (!isnan(a[r]))
                v[k++] = a[r];
    }
    double lower = select_in_array(v, count, (count - 1) / 2);
    double upper = count % 2 ? lower : select_in_array(v, count, count / 2);
    out->median = lower + (upper - lower) / 2;
    free(v);
    return 0;
}

/* ---- the slowest measurements ------------------------------------------- */

/* a slower than b: greater time; ties: lower iteration, rank, partner */
static int slower(const cube_linktest_link *a, const cube_linktest_link *b)
{
    if (a->time != b->time)
        return a->time > b->time;
    if (a->iteration != b->iteration)
        return a->iteration < b->iteration;
    if (a->rank != b->rank)
        return a->rank < b->rank;
    return a->partner < b->partner;
}

/* heap[0..n) as a min-heap on "slower": heap[0] is the least slow kept. */
static void sift_down(cube_linktest_link *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, least = i;
        if (l < n && slower(&h[least], &h[l]))
            least = l;
        if (r < n && slower(&h[least], &h[r]))
            least = r;
        if (least == i)
            return;
        cube_linktest_link t = h[i];
        h[i] = h[least];
        h[least] = t;
        i = least;
    }
}

static void heap_offer(first_pass *f, const cube_linktest_link *l)
{
    if (f->heap_n < f->heap_k) {
        f->heap[f->heap_n++] = *l;
        if (f->heap_n == f->heap_k)
            for (size_t i = f->heap_k / 2 + 1; i-- > 0;)
                sift_down(f->heap, f->heap_k, i);
    } else if (slower(l, &f->heap[0])) {
        f->heap[0] = *l;
        sift_down(f->heap, f->heap_k, 0);
    }
}

static int by_slowness(const void *a, const void *b)
{
    const cube_linktest_link *x = a, *y = b;
    return slower(x, y) ? -1 : slower(y, x) ? 1 : 0;
}

/* Sort what the heap kept, slowest first, and add the serial retests of
 * rank 0's slow lists. */
static size_t finish_slowest(cube_linktest *lt, first_pass *f)
{
    qsort(f->heap, f->heap_n, sizeof *f->heap, by_slowness);
    for (size_t i = 0; i < f->heap_n; i++) {
        cube_linktest_link *l = &f->heap[i];
        const cube_linktest_permutation *p = cube_linktest_get_permutation(lt, l->iteration);
        for (size_t j = 0; j < p->num_slow; j++)
            if (p->slow_sending_partners[j] == (int64_t)l->rank &&
                p->slow_receiving_partners[j] == (int64_t)l->partner) {
                l->retested = p->retested_slow_timings[j];
                break;
            }
    }
    return f->heap_n;
}

int cube_linktest_slowest(cube_linktest *lt, size_t k, cube_linktest_link *out, size_t *count)
{
    status_ok(linktest_status(lt));
    if (!count || (k && !out)) {
        status_set(linktest_status(lt), CUBE_EINVAL,
                   "cube_linktest_slowest: no array for the links or their count");
        return -1;
    }
    *count = 0;
    measurement_set s;
    first_pass f;
    memset(&f, 0, sizeof f);
    f.heap = out;
    f.heap_k = k;
    if (k == 0)
        return 0;
    if (set_init(&s, lt, CUBE_LINKTEST_ALL_ITERATIONS) != 0 || run_first_pass(&s, &f) != 0)
        return analysis_failed(&s);
    set_done(&s);
    *count = finish_slowest(lt, &f);
    return 0;
}

int cube_linktest_summarize(cube_linktest *lt, cube_linktest_stats *stats, size_t k,
                            cube_linktest_link *slowest, size_t *num_slowest)
{
    status_ok(linktest_status(lt));
    measurement_set s;
    first_pass f;
    memset(&f, 0, sizeof f);
    f.heap = k ? slowest : NULL;
    f.heap_k = k;
    if (set_init(&s, lt, CUBE_LINKTEST_ALL_ITERATIONS) != 0 || stats_with(&s, &f, stats) != 0)
        return analysis_failed(&s);
    set_done(&s);
    *num_slowest = k ? finish_slowest(lt, &f) : 0;
    return 0;
}

/* ---- per host ---------------------------------------------------------- */

typedef struct {
    const char *host;
    size_t rank;
} rank_of_host;

static int by_host_then_rank(const void *a, const void *b)
{
    const rank_of_host *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

static int by_rank(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Sorting by name groups a host's ranks in O(N log N) whatever the number
 * of hosts (runs have 10^5 ranks on 10^4 hosts). */
int linktest_group_hosts(const cube_linktest *lt, size_t **host_of, size_t **first_rank,
                         size_t *num_hosts)
{
    size_t n = cube_linktest_num_ranks(lt), nh = 0;
    rank_of_host *byhost = malloc((n ? n : 1) * sizeof *byhost);
    size_t *of = malloc((n ? n : 1) * sizeof *of);
    size_t *first = malloc((n ? n : 1) * sizeof *first);
    if (!byhost || !of || !first) {
        free(byhost);
        free(of);
        free(first);
        return -1;
    }
    for (size_t r = 0; r < n; r++) {
        byhost[r].host = cube_linktest_hostname(lt, r);
        byhost[r].rank = r;
    }
    qsort(byhost, n, sizeof *byhost, by_host_then_rank);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(byhost[i].host, byhost[i - 1].host) != 0)
            first[nh++] = byhost[i].rank; /* the lowest rank of its group */
    qsort(first, nh, sizeof *first, by_rank);
    /* number the hosts in the order of their first rank */
    for (size_t h = 0; h < nh; h++)
        of[first[h]] = h;
    for (size_t i = 0; i < n; i++)
        if (i > 0 && strcmp(byhost[i].host, byhost[i - 1].host) == 0)
            of[byhost[i].rank] = of[byhost[i - 1].rank];
    free(byhost);
    *host_of = of;
    *first_rank = first;
    *num_hosts = nh;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* Flag hosts whose median lies beyond 3 median absolute deviations of the
 * median of all hosts' medians. */
static int flag_outliers(cube_linktest_host *hosts, size_t nh)
{
    double *med = malloc((nh ? nh : 1) * sizeof *med);
    if (!med)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < nh; i++)
        if (hosts[i].stats.count)
            med[k++] = hosts[i].stats.median;
    if (k == 0) {
        free(med);
        return 0;
    }
    qsort(med, k, sizeof *med, by_value);
    double center = median_sorted(med, k);
    for (size_t i = 0; i < k; i++)
        med[i] = fabs(med[i] - center);
    qsort(med, k, sizeof *med, by_value);
    double mad = median_sorted(med, k);
    for (size_t i = 0; i < nh; i++) {
        double d = hosts[i].stats.median - center;
        if (hosts[i].stats.count && fabs(d) > 3 * mad)
            hosts[i].outlier = d > 0 ? 1 : -1;
    }
    free(med);
    return 0;
}

cube_linktest_host *cube_linktest_hosts(cube_linktest *lt, size_t *count)
{
    size_t n = cube_linktest_num_ranks(lt), nh = 0;
    size_t *host_of = NULL, *first = NULL, *rows = NULL, *start = NULL;
    cube_linktest_host *hosts = NULL;
    status_ok(linktest_status(lt));
    *count = 0;
    if (linktest_group_hosts(lt, &host_of, &first, &nh) != 0) {
        set_oom(lt);
        return NULL;
    }
    rows = malloc((n ? n : 1) * sizeof *rows);
    start = calloc(nh + 1, sizeof *start);
    hosts = calloc(nh ? nh : 1, sizeof *hosts);
    measurement_set s;
    if (set_init(&s, lt, CUBE_LINKTEST_ALL_ITERATIONS) != 0 || !rows || !start || !hosts)
        goto fail;
    /* the ranks of host h at rows[start[h] .. start[h+1]) (counting sort) */
    for (size_t r = 0; r < n; r++)
        start[host_of[r] + 1]++;
    for (size_t h = 0; h < nh; h++)
        start[h + 1] += start[h];
    for (size_t r = 0; r < n; r++)
        rows[start[host_of[r]]++] = r;
    for (size_t h = nh; h > 0; h--)
        start[h] = start[h - 1];
    start[0] = 0;
    for (size_t h = 0; h < nh; h++) {
        cube_linktest_host *x = &hosts[h];
        x->host = cube_linktest_hostname(lt, first[h]);
        x->first_rank = first[h];
        x->num_ranks = start[h + 1] - start[h];
        s.rows = rows + start[h];
        s.num_rows = x->num_ranks;
        if (stats_of(&s, &x->stats) != 0)
            goto fail;
    }
    if (flag_outliers(hosts, nh) != 0)
        goto fail;
    set_done(&s);
    free(host_of);
    free(first);
    free(rows);
    free(start);
    *count = nh;
    return hosts;
fail:
    analysis_failed(&s);
    free(host_of);
    free(first);
    free(rows);
    free(start);
    free(hosts);
    return NULL;
}

/* ---- histogram ---------------------------------------------------------- */

int cube_linktest_histogram(cube_linktest *lt, size_t num_bins, double *edges,
                            uint64_t *counts)
{
    status_ok(linktest_status(lt));
    measurement_set s;
    if (set_init(&s, lt, CUBE_LINKTEST_ALL_ITERATIONS) != 0)
        return analysis_failed(&s);
    /* the range: the fast first pass (no median window, no list) */
    first_pass f;
    memset(&f, 0, sizeof f);
    f.win_lo = 1;
    f.win_hi = 0;
    if (run_first_pass(&s, &f) != 0)
        return analysis_failed(&s);
    double lo = f.lo, hi = f.hi, lo_pos = lo > 0 ? lo : INFINITY;
    size_t count = f.count;
    if (lo <= 0) /* not a real time: the log scale needs the least positive one */
        FOR_EACH_MEASUREMENT(&s, {
            if (v_ > 0 && v_ < lo_pos)
                lo_pos = v_;
        })
    if (s.failed)
        return analysis_failed(&s);
    if (num_bins == 0 || count == 0) {
        status_set(linktest_status(lt), CUBE_EINVAL, "%s",
                   num_bins ? "no measurements" : "no bins");
        set_done(&s);
        return -1;
    }
    /* the log scale starts at the smallest positive time; times <= 0 (not
     * a real measurement) go to the first bin */
    double first = lo_pos <= hi ? lo_pos : hi;
    double l0 = first > 0 ? log10(first) : 0, l1 = hi > 0 ? log10(hi) : 0;
    double width = (l1 - l0) / (double)num_bins;
    for (size_t b = 0; b <= num_bins; b++)
        edges[b] = pow(10, l0 + width * (double)b);
    edges[0] = lo < first ? lo : first;
    edges[num_bins] = hi;
    memset(counts, 0, num_bins * sizeof *counts);
    /* the bin by a binary search of the edges (no log10 per value; and
     * a value on an inner edge, as printed, counts in the upper bin) */
    size_t top = 1;
    while (top * 2 <= num_bins)
        top *= 2;
    FOR_EACH_MEASUREMENT(&s, {
        size_t b = 0;
        for (size_t step = top; step; step >>= 1)
            if (b + step < num_bins && v_ >= edges[b + step])
                b += step;
        counts[b]++;
    })
    if (s.failed)
        return analysis_failed(&s);
    set_done(&s);
    return 0;
}
