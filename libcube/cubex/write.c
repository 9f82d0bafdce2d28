/*
 * write.c - an experiment as a CUBE 4 archive: per metric with stored
 * values an index and a data member, then the archive's extra members,
 * then anchor.xml (the order the reference writers use).
 *
 * A metric's rows go out in the order of its enumeration of the call tree
 * (pre-order for values stored exclusive, the "wide" order for values
 * stored inclusive: binary_private.h), each row the values of the call
 * path in thread index order, which is the location id the anchor gives
 * each thread.  Values are encoded in the metric's value type: from the
 * exact bytes the reader kept where it kept them (structured types, 64-bit
 * integers beyond 2^53), else from the row's doubles.  A metric whose
 * doubles its type cannot hold (a mean of integers, a structured value
 * that was computed) is written as DOUBLE, with a warning.
 *
 * Memory: the rows are in the model already; the writer adds one row of
 * bytes, the enumerations (two words per call path) and, per metric, the
 * list of its rows.  Rows given by a cube_row_source are collected per
 * metric (one metric's rows at a time: the source gives each metric's
 * rows together), because a data member holds them in ordinal order.
 */
#include "cubex/write_private.h"
#include "core/cube_private.h"
#include "cubex/anchor_write_private.h"
#include "cubex/binary_write_private.h"
#include "cubex/model_to_anchor_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Archive members get this modification time: the output of a given
 * experiment is the same bytes whenever it is written. */
#define MEMBER_MTIME 0
/* the bytes of rows encoded before they are written */
#define WRITE_BATCH_BYTES ((size_t)1 << 20)

typedef struct {
    cube_t *c;
    cubex_anchor *a;
    cubex_tar_writer *w;
    cube_status *status;
    int zlevel;
    size_t *pos;             /* model cnode index -> record (pre-order) position */
    size_t *ordinal[2];      /* per order (PREORDER, WIDE): model cnode index -> ordinal */
    unsigned char *row;      /* a batch of encoded rows */
    size_t row_cap;
    size_t *column;          /* thread index -> data column (its location id) */
} archive_job;

typedef struct {
    size_t ordinal;
    size_t cnode;
    const double *values;
} pending_row;

static int oom(archive_job *j)
{
    status_set(j->status, CUBE_ENOMEM, "out of memory");
    return -1;
}

/* ---- the call-tree enumerations ------------------------------------------ */

static int build_ordinals(archive_job *j)
{
    const cubex_anchor *a = j->a;
    size_t n = a->num_cnodes;
    size_t *parent = malloc((n + 1) * sizeof *parent);
    size_t *cnode_of = malloc((n + 1) * sizeof *cnode_of);
    size_t *model_of_pos = malloc((n + 1) * sizeof *model_of_pos);
    j->ordinal[0] = malloc((n + 1) * sizeof *j->ordinal[0]);
    j->ordinal[1] = malloc((n + 1) * sizeof *j->ordinal[1]);
    cubex_tree tree = {0};
    int rc = -1;
    if (!parent || !cnode_of || !model_of_pos || !j->ordinal[0] || !j->ordinal[1]) {
        oom(j);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        parent[i] = a->cnodes[i].parent == CUBEX_NONE ? SIZE_MAX : a->cnodes[i].parent;
        model_of_pos[j->pos[i]] = i;
    }
    if (cubex_tree_from_parents(n, parent, &tree) != 0) {
        oom(j);
        goto done;
    }
    static const cubex_order orders[2] = {CUBEX_PREORDER, CUBEX_WIDE};
    for (int k = 0; k < 2; k++) {
        if (cubex_enumerate(&tree, orders[k], cnode_of) != 0) {
            status_set(j->status, CUBE_EINVAL, "the call tree is not a forest");
            goto done;
        }
        for (size_t o = 0; o < n; o++)
            j->ordinal[k][model_of_pos[cnode_of[o]]] = o;
    }
    rc = 0;
done:
    cubex_tree_free(&tree);
    free(parent);
    free(cnode_of);
    free(model_of_pos);
    return rc;
}

/* ---- encoding -------------------------------------------------------------- */

/* The whole numbers an integer type holds: [*lo, *hi).  UINT64 takes the
 * negative numbers too, which stand for the differences 2^64 - k that
 * the reader shows as -k. */
static void integer_range(cubex_dtype t, double *lo, double *hi)
{
    double bits = 8.0 * (double)cubex_dtype_size(t);
    int is_signed = t.kind == CUBEX_INT8 || t.kind == CUBEX_INT16 || t.kind == CUBEX_INT32 ||
                    t.kind == CUBEX_INT64;
    *lo = is_signed ? -ldexp(1.0, (int)bits - 1) : 0.0;
    *hi = is_signed ? ldexp(1.0, (int)bits - 1) : ldexp(1.0, (int)bits);
    if (t.kind == CUBEX_UINT64)
        *lo = -0x1p63;
}

/* Can the value type hold the doubles of every row of m that has no exact
 * bytes?  Integers must be whole numbers in the type's range
 * (integer_range), structured values need their components, which only
 * exact bytes carry. */
static int type_holds_rows(const cube_t *c, const cube_metric *m, cubex_dtype t,
                           const pending_row *rows, size_t n)
{
    size_t nthreads = c->threads.count;
    int integer = cubex_dtype_is_integer(t);
    if (!integer && cubex_dtype_components(t) == 1)
        return 1;
    double lo = 0, hi = 0;
    if (integer)
        integer_range(t, &lo, &hi);
    for (size_t r = 0; r < n; r++) {
        if (model_exact_row(m, rows[r].cnode))
            continue;
        if (!integer)
            return 0;
        for (size_t k = 0; k < nthreads; k++) {
            double v = rows[r].values[k];
            if (!isfinite(v) || v != floor(v) || v < lo || v >= hi)
                return 0;
        }
    }
    return 1;
}

/* The bits of an integer value: two's complement, so that UINT64's -k
 * goes back to the 2^64 - k it was. */
static uint64_t integer_bits(double v)
{
    return v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v;
}

/* Row r's bytes into out (row_size bytes); `exact`: take the exact bytes
 * the experiment kept for the row, if any. */
static int encode_row(archive_job *j, const cube_metric *m, cubex_dtype t, size_t value_size,
                      int exact, const pending_row *r, unsigned char *out)
{
    size_t nthreads = j->c->threads.count;
    const unsigned char *src = exact ? model_exact_row(m, r->cnode) : NULL;
    if (src) {
        /* the exact bytes are in thread index order too */
        for (size_t k = 0; k < nthreads; k++)
            memcpy(out + j->column[k] * value_size, src + k * value_size, value_size);
        return 0;
    }
    if (t.kind == CUBEX_DOUBLE || t.kind == CUBEX_MINDOUBLE || t.kind == CUBEX_MAXDOUBLE) {
        /* the common case, without a call per value */
        for (size_t k = 0; k < nthreads; k++) {
            uint64_t bits;
            memcpy(&bits, &r->values[k], sizeof bits);
            cubex_put_u64(out + j->column[k] * 8, bits);
        }
        return 0;
    }
    if (t.kind == CUBEX_INT64 || t.kind == CUBEX_UINT64) {
        for (size_t k = 0; k < nthreads; k++)
            cubex_put_u64(out + j->column[k] * 8, integer_bits(r->values[k]));
        return 0;
    }
    int integer = cubex_dtype_is_integer(t);
    for (size_t k = 0; k < nthreads; k++) {
        unsigned char *dst = out + j->column[k] * value_size;
        double v = r->values[k];
        if (integer) {
            cubex_value_encode_int(t, integer_bits(v), dst);
        } else if (cubex_value_encode(t, &v, dst) != 0) {
            status_set(j->status, CUBE_EINVAL, "metric %s: a value cannot be encoded",
                       m->uniq_name);
            return -1;
        }
    }
    return 0;
}

/* Sort the n rows by ordinal (each below the number of call paths): a
 * counting sort, linear where a comparison sort of a million rows per
 * metric would take longer than writing them; stable. */
static int sort_by_ordinal(archive_job *j, pending_row *rows, size_t n)
{
    if (n == 0) /* a metric without rows may have no row array */
        return 0;
    size_t num = j->a->num_cnodes;
    size_t *start = calloc(num + 1, sizeof *start);
    pending_row *sorted = malloc(n * sizeof *sorted);
    if (!start || !sorted) {
        free(start);
        free(sorted);
        return oom(j);
    }
    for (size_t r = 0; r < n; r++)
        start[rows[r].ordinal + 1]++;
    for (size_t o = 0; o < num; o++)
        start[o + 1] += start[o];
    for (size_t r = 0; r < n; r++)
        sorted[start[rows[r].ordinal]++] = rows[r];
    memcpy(rows, sorted, n * sizeof *rows);
    free(start);
    free(sorted);
    return 0;
}

/* The members of metric m holding `n` rows (any order; sorted here). */
static int write_metric(archive_job *j, size_t metric, pending_row *rows, size_t n)
{
    cube_t *c = j->c;
    cube_metric *m = c->metrics.items[metric];
    cubex_metric_def *def = &j->a->metrics[metric];
    size_t nthreads = c->threads.count;

    cubex_dtype t = def->dtype;
    int exact = 1;
    if (!type_holds_rows(c, m, t, rows, n)) {
        /* the rows hold what the type cannot: keep the numbers */
        if (cube_add_warning(c, "metric %s: values that the value type %s cannot hold "
                                "written as DOUBLE",
                             m->uniq_name, def->dtype_text) != 0)
            return oom(j);
        t = (cubex_dtype){CUBEX_DOUBLE, 0};
        def->dtype = t;
        def->dtype_text = (char *)"DOUBLE";
        def->dtype_known = 1;
        exact = 0; /* bytes of the type left behind */
    }
    size_t value_size = cubex_dtype_size(t);
    if (nthreads && value_size > SIZE_MAX / nthreads)
        return oom(j);
    size_t row_size = value_size * (nthreads ? nthreads : 1);
    /* rows are encoded into a batch and handed on together: one write
     * per row cost more than encoding it */
    size_t batch = WRITE_BATCH_BYTES / row_size;
    batch = batch < 1 ? 1 : batch > n ? (n ? n : 1) : batch;
    if (batch * row_size > j->row_cap) {
        unsigned char *grown = realloc(j->row, batch * row_size);
        if (!grown)
            return oom(j);
        j->row = grown;
        j->row_cap = batch * row_size;
    }
    memset(j->row, 0, batch * row_size);

    const size_t *ordinal = j->ordinal[cubex_metric_order(def->type) == CUBEX_WIDE ? 1 : 0];
    for (size_t r = 0; r < n; r++)
        rows[r].ordinal = ordinal[rows[r].cnode];
    if (sort_by_ordinal(j, rows, n) != 0)
        return -1;

    cubex_index ix = {.num_rows = n, .ordinals = n ? malloc(n * sizeof *ix.ordinals) : NULL};
    if (n && !ix.ordinals)
        return oom(j);
    for (size_t r = 0; r < n; r++)
        ix.ordinals[r] = (uint32_t)rows[r].ordinal;
    char name[64];
    cubex_metric_member_name(def, "index", name, sizeof name);
    int rc = cubex_index_write(j->w, name, &ix, MEMBER_MTIME, j->status);
    free(ix.ordinals);
    if (rc != 0)
        return -1;
    cubex_metric_member_name(def, "data", name, sizeof name);
    cubex_data_writer *d =
        cubex_data_writer_open(j->w, name, row_size, n, j->zlevel, MEMBER_MTIME, j->status);
    if (!d)
        return -1;
    for (size_t r = 0, fill = 0; r < n; r++) {
        if (encode_row(j, m, t, value_size, exact, &rows[r], j->row + fill * row_size) != 0 ||
            ((++fill == batch || r + 1 == n) &&
             cubex_data_writer_rows(d, j->row, fill, j->status) != 0)) {
            cubex_data_writer_free(d);
            return -1;
        }
        if (fill == batch)
            fill = 0;
    }
    return cubex_data_writer_close(d, j->status);
}

/* A metric has members when it can have values: not VOID, not derived. */
static int has_members(const cube_metric *m)
{
    return !m->is_void && !cube_metric_is_derived(m);
}

/* ---- the stored rows, then the source's -------------------------------------- */

static int write_stored_metrics(archive_job *j, unsigned char *done)
{
    cube_t *c = j->c;
    size_t *order = c->sev.num_rows ? sev_store_sorted(&c->sev) : NULL;
    pending_row *rows = malloc((c->sev.num_rows + 1) * sizeof *rows);
    if ((c->sev.num_rows && !order) || !rows) {
        free(order);
        free(rows);
        return oom(j);
    }
    size_t k = 0;
    int rc = 0;
    for (size_t metric = 0; rc == 0 && metric < c->metrics.count; metric++) {
        size_t n = 0;
        for (; k < c->sev.num_rows && c->sev.rows[order[k]].metric == metric; k++) {
            rows[n].cnode = c->sev.rows[order[k]].cnode;
            rows[n].values = sev_row_values(&c->sev, order[k]);
            n++;
        }
        if (!n || !has_members(c->metrics.items[metric]))
            continue;
        done[metric] = 1;
        rc = write_metric(j, metric, rows, n);
    }
    free(order);
    free(rows);
    return rc;
}

typedef struct {
    pending_row *rows;
    size_t n, cap;
    double *values; /* n x nthreads copies: a source's values last one call */
    size_t values_cap;
} row_buffer;

static int buffer_row(archive_job *j, row_buffer *b, const cube_cnode *cn, const double *v)
{
    size_t nthreads = j->c->threads.count ? j->c->threads.count : 1;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        pending_row *rows = realloc(b->rows, cap * sizeof *rows);
        if (!rows)
            return oom(j);
        b->rows = rows;
        b->cap = cap;
        double *values = realloc(b->values, cap * nthreads * sizeof *values);
        if (!values)
            return oom(j);
        b->values = values;
    }
    memcpy(b->values + b->n * nthreads, v, j->c->threads.count * sizeof *v);
    b->rows[b->n].cnode = cn->index;
    b->n++;
    return 0;
}

static int flush_buffer(archive_job *j, row_buffer *b, size_t metric)
{
    size_t nthreads = j->c->threads.count ? j->c->threads.count : 1;
    for (size_t r = 0; r < b->n; r++)
        b->rows[r].values = b->values + r * nthreads;
    int rc = write_metric(j, metric, b->rows, b->n);
    b->n = 0;
    return rc;
}

static int write_source_metrics(archive_job *j, unsigned char *done, cube_row_source next,
                                void *ctx)
{
    cube_t *c = j->c;
    row_buffer b = {0};
    size_t current = SIZE_MAX;
    const cube_metric *m;
    const cube_cnode *cn;
    const double *values;
    int got, rc = 0;
    while (rc == 0 && (got = next(ctx, &m, &cn, &values)) == 1) {
        if (m->index != current) {
            if (current != SIZE_MAX)
                rc = flush_buffer(j, &b, current);
            if (rc == 0 && done[m->index]) {
                status_set(j->status, CUBE_EINVAL,
                           "metric %s: its rows must come together, after the stored ones",
                           m->uniq_name);
                rc = -1;
            }
            current = m->index;
            done[current] = 1;
        }
        if (rc == 0 && has_members(m))
            rc = buffer_row(j, &b, cn, values);
    }
    if (rc == 0 && got < 0) {
        status_set(j->status, c->status.code ? c->status.code : CUBE_EIO, "%s",
                   *cube_error(c) ? cube_error(c) : "the rows to write could not be made");
        rc = -1;
    }
    if (rc == 0 && current != SIZE_MAX && has_members(c->metrics.items[current]))
        rc = flush_buffer(j, &b, current);
    free(b.rows);
    free(b.values);
    return rc;
}

/* Metrics without any row still get their (empty) members: readers then
 * find every metric with values where they expect it. */
static int write_empty_metrics(archive_job *j, const unsigned char *done)
{
    for (size_t metric = 0; metric < j->c->metrics.count; metric++)
        if (!done[metric] && has_members(j->c->metrics.items[metric]) &&
            write_metric(j, metric, NULL, 0) != 0)
            return -1;
    return 0;
}

static int write_extra_members(archive_job *j)
{
    const cube_t *c = j->c;
    for (size_t i = 0; i < c->extra_members.count; i++) {
        const extra_member *e = c->extra_members.items[i];
        if (cubex_tar_add(j->w, e->name, e->data ? (const void *)e->data : "", e->size,
                          MEMBER_MTIME, j->status) != 0)
            return -1;
    }
    return 0;
}

int cubex_write_experiment(cube_t *c, FILE *fp, const char *name, unsigned flags,
                           cube_row_source next, void *ctx, cube_status *status)
{
    archive_job j = {.c = c, .status = status,
                     .zlevel = (flags & CUBE_WRITE_GZIP) ? CUBEX_DATA_ZDEFAULT : CUBEX_DATA_PLAIN};
    unsigned char *done = calloc(c->metrics.count + 1, 1);
    int rc = -1;
    if (!done) {
        oom(&j);
        goto out;
    }
    j.a = cubex_anchor_from_model(c, &j.pos, &j.column, status);
    if (!j.a || build_ordinals(&j) != 0)
        goto out;
    j.w = cubex_tar_writer_open_fp(fp, name, status);
    if (!j.w)
        goto out;
    if (write_stored_metrics(&j, done) != 0 ||
        (next && write_source_metrics(&j, done, next, ctx) != 0) ||
        write_empty_metrics(&j, done) != 0 || write_extra_members(&j) != 0 ||
        cubex_anchor_write_member(j.w, j.a, (flags & CUBE_WRITE_GZIP) != 0, MEMBER_MTIME,
                                  status) != 0 ||
        cubex_tar_finish(j.w, status) != 0)
        goto out;
    rc = 0;
out:
    cubex_tar_writer_free(j.w);
    cubex_anchor_free(j.a);
    free(j.pos);
    free(j.ordinal[0]);
    free(j.ordinal[1]);
    free(j.row);
    free(j.column);
    free(done);
    return rc;
}
