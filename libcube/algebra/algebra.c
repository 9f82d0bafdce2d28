/*
 * algebra.c - diff, merge and mean of experiments, and their comparison.
 *
 * The definitions of every input are read first and lined up (cube_union);
 * then the inputs' rows stream through, one at a time, mapped onto the
 * result's rows.  Memory holds the result and the inputs' definitions, not
 * the inputs' values.
 *
 * Stored values are metric-inclusive and call-tree-exclusive; sums,
 * differences and means commute with both, so values are combined as
 * stored, element by element, a value missing in an input counting as 0.
 *
 * Several items of one input may be lined up onto one item of the result
 * (two sibling call paths alike under --match=name, two processes of one
 * rank).  Their contributions to a result cell are summed first,
 * compensated, and only that sum joins the result: so every input reaches
 * a cell the same way, whichever side of a difference it is on, and an
 * experiment minus itself is exactly 0.  Only the rows of such cells are
 * held apart, one input at a time.
 *
 * A file may repeat a (metric, call path) row; reading it whole lets the
 * later values win.  A streamed row cannot undo what an earlier one added,
 * so when the reader says a row may repeat, the rows are gathered again
 * from the start with that input read whole (rare: hand-made files).
 */
#include "core/cube_private.h"
#include "algebra/row_feed_private.h"
#include "core/status_private.h"
#include "cubex/binary_private.h"
#include "views/view_private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *path;
    cube_t *full;        /* the whole input (standard input, or rows that repeat) */
    int borrowed;        /* `full` is the caller's (algebra_combine_models) */
    cube_reader *kept;   /* the reader that lined the input up, past its
                            definitions, for the row pass; or NULL */
} source;

typedef struct {
    source *sources;
    size_t n;
    cube_union *u;
    cube_status *status; /* the caller's, NULL allowed */
    message_list warnings; /* the readers' warnings about the inputs */
    /* The current input's contributions to cells that several of its items
     * reach, or that rows converted to another metric kind reach: per row,
     * the running sums of the result's threads, then their compensations
     * (row_len 2 x threads).  They belong to one result metric
     * (merged_metric) and are added to the result when the input's rows
     * turn to another metric: the rows of a metric come together (a
     * reader delivers them so, or says they may repeat; an input read
     * whole is taken metric by metric), so every cell is completed once. */
    severity_store merged;
    size_t merged_metric;
} combination;

static int keep_warning(combination *cb, const char *message)
{
    return message_list_add(&cb->warnings, "%s", message);
}

static int fail(combination *cb, cube_code code, const char *fmt, ...) CUBE_PRINTF(3, 4);

static int fail(combination *cb, cube_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    status_setv(cb->status, code, fmt, ap);
    va_end(ap);
    return -1;
}

static int oom(combination *cb)
{
    return fail(cb, CUBE_ENOMEM, "out of memory");
}

static int read_whole(combination *cb, source *s)
{
    cube_t *c = cube_create();
    if (!c)
        return oom(cb);
    int rc = strcmp(s->path, "-") == 0 ? cube_read_fd(c, 0, "-") : cube_read(c, s->path);
    if (rc != 0) {
        fail(cb, cube_error_code(c), "%s", cube_error(c));
        cube_free(c);
        return -1;
    }
    s->full = c;
    return 0;
}

/* `models` NULL: the inputs are files; else models[k] is input k, in
 * memory, and paths[k] its name. */
static int open_sources(combination *cb, const char *const *paths, const cube_t *const *models)
{
    for (size_t k = 0; k < cb->n; k++) {
        source *s = &cb->sources[k];
        s->path = paths[k];
        if (models) {
            s->full = (cube_t *)models[k]; /* only read */
            s->borrowed = 1;
            continue;
        }
        /* standard input can be read once only: keep it whole */
        if (strcmp(paths[k], "-") == 0 && read_whole(cb, s) != 0)
            return -1;
    }
    return 0;
}

/* A streaming reader positioned after the definitions, or NULL (message
 * set). */
static cube_reader *open_reader(combination *cb, const char *path)
{
    cube_reader *r = cube_reader_open(path);
    if (!r) {
        oom(cb);
        return NULL;
    }
    if (!cube_reader_definitions(r)) {
        fail(cb, cube_reader_error_code(r), "%s", cube_reader_error(r));
        cube_reader_close(r);
        return NULL;
    }
    return r;
}

static void close_sources(combination *cb)
{
    for (size_t k = 0; cb->sources && k < cb->n; k++) {
        if (!cb->sources[k].borrowed)
            cube_free(cb->sources[k].full);
        cube_reader_close(cb->sources[k].kept);
    }
    message_list_clear(&cb->warnings);
    sev_store_free(&cb->merged);
    free(cb->sources);
}

static int line_up(combination *cb, cube_match match, cube_system_rule rule)
{
    cb->u = cube_union_create(match, rule);
    if (!cb->u)
        return oom(cb);
    /* One input's definitions at a time: each is lined up and freed; its
     * rows are read later through a new reader (holding every input's
     * definitions would cost memory that grows with the number of inputs).
     * Up to as many inputs as the row pass reads at once, whose
     * definitions it holds then anyway, keep their reader instead: parsing
     * the definitions again costs a few percent of a CUBE 3 file, but half
     * of reading a CUBE 4 archive, whose values take no parsing. */
    for (size_t k = 0; k < cb->n; k++) {
        source *s = &cb->sources[k];
        cube_reader *r = s->full ? NULL : open_reader(cb, s->path);
        if (!s->full && !r)
            return -1;
        int rc = cube_union_add(cb->u, s->full ? s->full : cube_reader_definitions(r), s->path);
        if (rc == 0 && cb->n <= FEED_WORKERS)
            s->kept = r;
        else
            cube_reader_close(r);
        if (rc != 0)
            return fail(cb, cube_union_error_code(cb->u), "%s", cube_union_error(cb->u));
    }
    if (cube_union_finish(cb->u) != 0)
        return fail(cb, cube_union_error_code(cb->u), "%s", cube_union_error(cb->u));
    return 0;
}

/* ---------------------------------------------------------------------- */
/* the row pass                                                            */

/* Where input k's rows go: into `target`, times `weight`, only for the
 * result metrics `take` allows (NULL: all).  Rows of a metric that is VOID
 * in the result are dropped unless `keep_void`.  `merge`: only the rows
 * that no later input has (see owns_row). */
typedef struct {
    severity_store *target;
    double weight;
    const unsigned char *take;
    int keep_void, merge;
} row_sink;

/* Input k's maps onto the result and their lengths, and how many of its
 * items each result item got, looked up once per input rather than once
 * per row. */
typedef struct {
    size_t k;
    const char *path;
    const size_t *metric_map, *cnode_map, *thread_map;
    size_t num_metrics, num_cnodes, num_threads;
    const unsigned char *metric_counts, *cnode_counts;
    const unsigned char *metric_rules; /* UNION_ROWS_* by the input's metric index */
    int threads_merged; /* two of its threads are one of the result */
} input_maps;

static int any_above_one(const unsigned char *counts, size_t n)
{
    for (size_t i = 0; counts && i < n; i++)
        if (counts[i] > 1)
            return 1;
    return 0;
}

static input_maps maps_of(const combination *cb, size_t k)
{
    input_maps im = {k, cb->sources[k].path, cube_union_metric_map(cb->u, k),
                     cube_union_cnode_map(cb->u, k), cube_union_thread_map(cb->u, k), 0, 0, 0,
                     union_metric_counts(cb->u, k, 0), union_cnode_counts(cb->u, k),
                     union_metric_rules(cb->u, k), 0};
    /* no input k leaves the lengths 0: every row is then refused */
    cube_union_input_size(cb->u, k, &im.num_metrics, &im.num_cnodes, &im.num_threads, NULL);
    const cube_t *res = cube_union_result(cb->u);
    im.threads_merged = any_above_one(union_thread_counts(cb->u, k), res->threads.count);
    return im;
}

/* Merge: the row (metric, call path) of the result comes whole from the last
 * input that has both the metric (with data) and the call path; a later
 * input that lacks the call path leaves the row to an earlier one. */
static int owns_row(const combination *cb, size_t k, size_t metric, size_t cnode)
{
    if (!union_metric_counts(cb->u, k, 1)[metric])
        return 0;
    for (size_t j = cb->n; j-- > k + 1;)
        if (union_metric_counts(cb->u, j, 1)[metric] && union_cnode_counts(cb->u, j)[cnode])
            return 0;
    return 1;
}

/* Add the current input's sums of the cells several of its items reached
 * to the sink, and forget them. */
static int flush_merged(combination *cb, const row_sink *sink)
{
    severity_store *m = &cb->merged;
    size_t nt = m->row_len / 2;
    for (size_t r = 0; r < m->num_rows; r++) {
        const double *acc = sev_row_values(m, r);
        double *row = sev_store_get_or_add(sink->target, m->rows[r].metric, m->rows[r].cnode);
        if (!row)
            return oom(cb);
        for (size_t t = 0; t < nt; t++)
            row[t] += sink->weight * view_neu_result(acc[t], acc[nt + t]);
    }
    sev_store_clear(m);
    return 0;
}

/* Add the values of one input row, times `sign`, to the result's cell
 * (rm, rc): straight into the sink, or into the input's compensated sums
 * when `merged` (see combination.merged).  `first` is the row's first
 * thread with a value that is not 0. */
static int add_to_cell(combination *cb, const input_maps *im, const row_sink *sink, size_t rm,
                       size_t rc, const double *values, size_t first, size_t nthreads,
                       double sign, int merged)
{
    if (sink->merge && !owns_row(cb, im->k, rm, rc))
        return 0;
    if (merged) {
        if (cb->merged.num_rows && cb->merged_metric != rm && flush_merged(cb, sink) != 0)
            return -1;
        cb->merged_metric = rm;
        double *acc = sev_store_get_or_add(&cb->merged, rm, rc);
        if (!acc)
            return oom(cb);
        size_t w = cb->merged.row_len / 2;
        for (size_t t = first; t < nthreads; t++)
            view_neu_add(&acc[im->thread_map[t]], &acc[w + im->thread_map[t]], sign * values[t]);
        return 0;
    }
    double *row = sev_store_get_or_add(sink->target, rm, rc);
    if (!row)
        return oom(cb);
    for (size_t t = first; t < nthreads; t++)
        row[im->thread_map[t]] += sink->weight * values[t];
    return 0;
}

static int add_row(combination *cb, const input_maps *im, const row_sink *sink, size_t metric,
                   size_t cnode, const double *values, size_t nthreads)
{
    const cube_t *res = cube_union_result(cb->u);
    /* The rows are read in a second pass over the file: a file replaced in
     * between must not index past the maps of the first. */
    if (metric >= im->num_metrics || cnode >= im->num_cnodes || nthreads != im->num_threads)
        return fail(cb, CUBE_EFORMAT,
                    "%s: the file changed while it was read (its rows do not match the "
                    "definitions read first)",
                    im->path);
    size_t rm = im->metric_map[metric], rc = im->cnode_map[cnode];
    unsigned rule = im->metric_rules[metric];
    if (rm == SIZE_MAX) /* a repeated unique name: its values are ignored */
        return 0;
    if (rule == UNION_ROWS_NONE || /* derived here or in the result: no values */
        (((const cube_metric *)res->metrics.items[rm])->is_void && !sink->keep_void) ||
        (sink->take && !sink->take[rm]))
        return 0;
    size_t t = 0;
    while (t < nthreads && values[t] == 0.0)
        t++;
    /* all zero: nothing to add to a sum; a maximum's or minimum's zeros
     * are values (no row would be none) */
    if (t == nthreads &&
        cube_metric_combine((const cube_metric *)res->metrics.items[rm]) == CUBE_COMBINE_SUM)
        return 0;
    if (rule == UNION_ROWS_AS_STORED)
        return add_to_cell(cb, im, sink, rm, rc, values, t, nthreads, 1.0,
                           im->threads_merged || im->metric_counts[rm] > 1 ||
                               im->cnode_counts[rc] > 1);
    /* Another kind than the result's: the call-tree exclusive value of a
     * call path is its inclusive value less its children's, the inclusive
     * value the sum of the exclusive ones of its subtree.  Both are sums
     * of rows, so each row is scattered onto the cells it takes part in:
     * its own, and its parent's negated (to exclusive) or every
     * ancestor's (to inclusive).  The result's call tree is the input's
     * (a parent maps onto the parent of its children's match), so its
     * parents serve.  The input's share of a cell is complete only after
     * all its rows of the metric: the compensated sums hold it until then. */
    const cube_cnode *cn = res->cnodes.items[rc];
    int rc2 = add_to_cell(cb, im, sink, rm, rc, values, t, nthreads, 1.0, 1);
    for (const cube_cnode *a = cn->parent; a && rc2 == 0;
         a = rule == UNION_ROWS_TO_INCLUSIVE ? a->parent : NULL)
        rc2 = add_to_cell(cb, im, sink, rm, a->index, values, t, nthreads,
                          rule == UNION_ROWS_TO_EXCLUSIVE ? -1.0 : 1.0, 1);
    return rc2;
}

/* Gather the rows of every input into the sinks (sinks[k] for input k),
 * in input order.  Inputs read whole give their stored rows; the others
 * come through a row_feed, read ahead in parallel.  An input whose rows may
 * repeat is read whole and everything is gathered again. */
static int gather_rows(combination *cb, const row_sink *sinks)
{
    const char **paths = malloc(cb->n * sizeof *paths);
    unsigned char *skip = malloc(cb->n);
    if (!paths || !skip) {
        free(paths);
        free(skip);
        return oom(cb);
    }
    cube_reader **kept = malloc(cb->n * sizeof *kept);
    if (!kept) {
        free(paths);
        free(skip);
        return oom(cb);
    }
    int rc = 0;
    for (;;) {
        for (size_t k = 0; k < cb->n; k++) {
            paths[k] = cb->sources[k].path;
            skip[k] = cb->sources[k].full != NULL;
            /* the readers of the first pass, if any; a second opens anew */
            kept[k] = cb->sources[k].kept;
            cb->sources[k].kept = NULL;
        }
        row_feed *feed = row_feed_start(paths, kept, cb->n, skip);
        for (size_t k = 0; !feed && k < cb->n; k++)
            cb->sources[k].kept = kept[k]; /* still ours: closed with the sources */
        if (!feed) {
            rc = oom(cb);
            break;
        }
        int again = 0;
        message_list_clear(&cb->warnings); /* a pass that starts over reports them again */
        for (size_t k = 0; k < cb->n && rc == 0 && !again; k++) {
            const cube_t *full = cb->sources[k].full;
            const input_maps im = maps_of(cb, k);
            if (full) {
                /* metric by metric, as a reader delivers them (see
                 * combination.merged) */
                size_t *order = full->sev.num_rows ? sev_store_sorted(&full->sev) : NULL;
                if (full->sev.num_rows && !order)
                    rc = oom(cb);
                for (size_t i = 0; i < full->sev.num_rows && rc == 0; i++) {
                    const severity_row *r = &full->sev.rows[order[i]];
                    rc = add_row(cb, &im, &sinks[k], r->metric, r->cnode,
                                 sev_row_values(&full->sev, order[i]), full->threads.count);
                }
                free(order);
                if (rc == 0)
                    rc = flush_merged(cb, &sinks[k]);
                for (size_t i = 0; i < cube_num_warnings(full) && rc == 0; i++)
                    if (keep_warning(cb, cube_warning(full, i)) != 0)
                        rc = oom(cb);
                continue;
            }
            size_t metric, cnode, nthreads;
            const double *values;
            int st;
            while ((st = row_feed_next(feed, k, &metric, &cnode, &values, &nthreads)) ==
                       FEED_ROW &&
                   rc == 0)
                rc = add_row(cb, &im, &sinks[k], metric, cnode, values, nthreads);
            if (rc == 0 && st == FEED_ERROR)
                rc = fail(cb, row_feed_error(feed)->code, "%s", row_feed_error(feed)->message);
            if (rc == 0 && st == FEED_ROW_END)
                rc = flush_merged(cb, &sinks[k]);
            if (rc == 0 && st == FEED_ROW_END) {
                const char *const *list;
                size_t nw = row_feed_warnings(feed, &list);
                for (size_t i = 0; i < nw && rc == 0; i++)
                    if (keep_warning(cb, list[i]) != 0)
                        rc = oom(cb);
            }
            if (rc == 0 && st == FEED_MAY_REPEAT) {
                rc = read_whole(cb, &cb->sources[k]);
                again = 1;
            }
        }
        row_feed_stop(feed);
        if (rc != 0 || !again)
            break;
        for (size_t k = 0; k < cb->n; k++)
            sev_store_clear(sinks[k].target);
        sev_store_clear(&cb->merged);
    }
    free(paths);
    free(skip);
    free(kept);
    return rc;
}

/* ---------------------------------------------------------------------- */
/* diff, merge, mean                                                       */

static int ascii_ieq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char x = a[i], y = b[i];
        if (x >= 'a' && x <= 'z')
            x = (char)(x - 'a' + 'A');
        if (y >= 'a' && y <= 'z')
            y = (char)(y - 'a' + 'A');
        if (x != y)
            return 0;
    }
    return 1;
}

static int set_dtype(cube_t *c, cube_metric *m, const char *dtype)
{
    char *copy = cube_strdup(dtype);
    if (!copy)
        return -1;
    free(m->dtype);
    m->dtype = copy;
    (void)c;
    return 0;
}

/* A value of a structured type (COMPLEX, RATE, TAU_ATOMIC, NDOUBLES(k),
 * HISTOGRAM(k), SCALE_FUNC) is one number in the rows, the one CUBE
 * tools display (a modulus, a quotient, an average, a sum, ...); its
 * components are not there to be combined. */
static int is_structured(const char *dtype)
{
    cubex_dtype t;
    return cubex_dtype_parse(dtype, &t) == 0 && t.kind >= CUBEX_COMPLEX;
}

/* The value type of each result metric.  A difference can be negative and
 * needs a bit more than its operands: unsigned types become signed, and
 * integers narrower than 64 bits become INT64 (UINT64 -> INT64, UINT8 ->
 * INT64; the CUBE 4 names and aliases count, "UNSIGNED INT" too; other
 * names beginning with UINT, in any case, lose their U).  A mean is
 * fractional: integer types become FLOAT.  A structured type becomes
 * DOUBLE, with a warning: what the rows hold and the result keeps is one
 * number per value (a VOID metric has none: its type stays).  Derived
 * metrics have no values and keep their type. */
static int adjust_dtypes(cube_t *res, cube_operation op)
{
    for (size_t i = 0; i < res->metrics.count; i++) {
        cube_metric *m = res->metrics.items[i];
        const char *d = m->dtype;
        if (cube_metric_is_derived(m))
            continue;
        cubex_dtype t;
        int known = cubex_dtype_parse(d, &t) == 0; /* a CUBE 4 name */
        int is_unsigned = (d[0] == 'U' || d[0] == 'u') && ascii_ieq(d + 1, "INT", 3);
        int is_integer = known ? cubex_dtype_is_integer(t) : is_unsigned || ascii_ieq(d, "INT", 3);
        if (is_structured(d) && !m->is_void) {
            if (cube_add_warning(res,
                                 "structured value type %s of metric '%s': combined as one "
                                 "number per value (the one displayed), written as DOUBLE",
                                 d, m->uniq_name) != 0 ||
                set_dtype(res, m, "DOUBLE") != 0)
                return -1;
        } else if (op == CUBE_OP_DIFF && known && is_integer && t.kind != CUBEX_INT64) {
            if (set_dtype(res, m, "INT64") != 0)
                return -1;
        } else if (op == CUBE_OP_DIFF && !known && is_unsigned && set_dtype(res, m, d + 1) != 0) {
            return -1;
        }
        if (op == CUBE_OP_MEAN && is_integer && set_dtype(res, m, "FLOAT") != 0)
            return -1;
    }
    return 0;
}

/* The attribute that records how the result was made. */
static int record_origin(cube_t *res, cube_operation op, const char *const *paths, size_t n)
{
    strbuf text = {0};
    int rc = 0;
    const char *key = op == CUBE_OP_DIFF ? "cube_diff" : op == CUBE_OP_MERGE ? "cube_merge"
                                                                             : "cube_mean";
    if (op == CUBE_OP_DIFF) {
        rc |= strbuf_append(&text, paths[0], strlen(paths[0]));
        rc |= strbuf_append(&text, " - ", 3);
        rc |= strbuf_append(&text, paths[1], strlen(paths[1]));
    } else {
        rc |= strbuf_append(&text, op == CUBE_OP_MERGE ? "merge(" : "mean(", op == CUBE_OP_MERGE ? 6 : 5);
        for (size_t k = 0; k < n; k++) {
            if (k)
                rc |= strbuf_append(&text, ", ", 2);
            rc |= strbuf_append(&text, paths[k], strlen(paths[k]));
        }
        rc |= strbuf_append_char(&text, ')');
    }
    if (rc == 0)
        rc = model_set_attr(res, key, strbuf_str(&text));
    strbuf_free(&text);
    return rc;
}

static int sums_overflowed(const severity_store *s)
{
    for (size_t r = 0; r < s->num_rows; r++) {
        const double *values = sev_row_values(s, r);
        for (size_t t = 0; t < s->row_len; t++)
            if (isinf(values[t]))
                return 1;
    }
    return 0;
}

static cube_t *combine(cube_operation op, const char *const *paths, const cube_t *const *models,
                       size_t n, cube_match match, cube_system_rule rule, cube_status *status)
{
    combination cb;
    memset(&cb, 0, sizeof cb);
    cb.sources = calloc(n ? n : 1, sizeof(source));
    cb.n = n;
    cb.status = status;
    row_sink *sinks = calloc(n ? n : 1, sizeof *sinks);
    cube_t *res = NULL;
    int rc = 0;
    status_ok(status);
    if (!cb.sources || !sinks) {
        rc = oom(&cb);
    } else if (!paths && n) {
        rc = fail(&cb, CUBE_EINVAL, "no paths given");
    } else if (n == 0 || (op == CUBE_OP_DIFF && n != 2)) {
        rc = fail(&cb, CUBE_EINVAL,
                  op == CUBE_OP_DIFF ? "a difference needs exactly two experiments"
                                     : "no experiment given");
    } else {
        rc = open_sources(&cb, paths, models);
        if (rc == 0)
            rc = line_up(&cb, match, rule);
    }
    if (rc == 0) {
        res = cube_union_result(cb.u);
        cb.merged.row_len = 2 * res->threads.count;
        for (size_t k = 0; k < n; k++) {
            sinks[k].target = &res->sev;
            sinks[k].weight = op == CUBE_OP_DIFF && k == 1 ? -1.0 : 1.0;
            sinks[k].merge = op == CUBE_OP_MERGE;
        }
        rc = gather_rows(&cb, sinks);
        if (rc == 0 && op == CUBE_OP_MEAN && sums_overflowed(&res->sev)) {
            /* Summing first keeps the mean of a file with itself exact, but
             * sums of values near DBL_MAX overflow although their mean does
             * not: then gather again with every value divided first. */
            sev_store_clear(&res->sev);
            for (size_t k = 0; k < n; k++)
                sinks[k].weight = 1.0 / (double)n;
            rc = gather_rows(&cb, sinks);
        } else if (rc == 0 && op == CUBE_OP_MEAN) {
            for (size_t r = 0; r < res->sev.num_rows; r++) {
                double *values = sev_row_values(&res->sev, r);
                for (size_t t = 0; t < res->sev.row_len; t++)
                    values[t] /= (double)n;
            }
        }
        if (rc == 0 && (adjust_dtypes(res, op) != 0 || record_origin(res, op, paths, n) != 0))
            rc = oom(&cb);
        /* the inputs' warnings travel with the result, for the caller */
        for (size_t i = 0; rc == 0 && i < cb.warnings.count; i++)
            if (cube_add_warning(res, "%s", cb.warnings.items[i]) != 0)
                rc = oom(&cb);
    }
    if (rc == 0)
        res = cube_union_take_result(cb.u);
    else
        res = NULL;
    free(sinks);
    cube_union_free(cb.u);
    close_sources(&cb);
    return res;
}

cube_t *cube_combine(cube_operation op, const char *const *paths, size_t n, cube_match match,
                     cube_system_rule rule, cube_status *status)
{
    return combine(op, paths, NULL, n, match, rule, status);
}

cube_t *algebra_combine_models(cube_operation op, const cube_t *const *inputs,
                               const char *const *names, size_t n, cube_match match,
                               cube_system_rule rule, cube_status *status)
{
    if (n && (!inputs || !names)) {
        status_set(status, CUBE_EINVAL, "no experiments given");
        return NULL;
    }
    return combine(op, names, inputs, n, match, rule, status);
}

/* ---------------------------------------------------------------------- */
/* comparison                                                              */

void cube_compare_options_init(cube_compare_options *options)
{
    if (!options)
        return;
    memset(options, 0, sizeof *options);
    options->size = sizeof *options;
    options->rel_tol = 2 * DBL_EPSILON; /* 2 ulp */
    options->abs_tol = DBL_MIN;
    options->metrics = NULL; /* every metric */
    options->max_reported = 10;
    options->warn = NULL;
    options->warn_user = NULL;
    options->by = CUBE_BY_THREAD;
    options->ignore_below = 0.0;
    options->report_item = NULL;
}

char *cube_call_path(const cube_cnode *cnode)
{
    size_t len = 0;
    for (const cube_cnode *n = cnode; n; n = n->parent)
        len += strlen(n->callee->name) + 1;
    char *path = malloc(len ? len : 1);
    if (!path)
        return NULL;
    size_t end = len ? len - 1 : 0;
    path[end] = '\0';
    for (const cube_cnode *n = cnode; n; n = n->parent) {
        size_t k = strlen(n->callee->name);
        end -= k;
        memcpy(path + end, n->callee->name, k);
        if (end)
            path[--end] = '/';
    }
    return path;
}

static int close_enough(double a, double b, const cube_compare_options *o)
{
    if (a == b)
        return 1;
    double d = fabs(a - b);
    return d <= o->abs_tol || d <= o->rel_tol * fmax(fabs(a), fabs(b));
}

typedef struct {
    cube_difference_fn report;
    cube_item_difference_fn report_item;
    void *user;
    size_t count, max_reported;
    int failed;
} difference_log;

static void note(difference_log *log, const char *what, const char *metric,
                 const cube_cnode *cnode, const cube_thread *thread, double a, double b)
{
    if (log->count++ >= log->max_reported || !log->report)
        return;
    char *path = cnode ? cube_call_path(cnode) : NULL;
    if (cnode && !path) {
        log->failed = 1;
        return;
    }
    log->report(log->user, what, metric ? metric : "", path ? path : "",
                thread ? (long long)thread->process->rank : -1,
                thread ? (long long)thread->rank : -1, a, b);
    free(path);
}

/* One value difference of a combined system item: item `i` of the level
 * (a process, node or machine index; 0 for all threads). */
static void note_item(difference_log *log, const cube_t *res, cube_system_level by, size_t i,
                      const char *metric, const cube_cnode *cnode, double a, double b)
{
    if (log->count++ >= log->max_reported || (!log->report && !log->report_item))
        return;
    char *path = cube_call_path(cnode);
    if (!path) {
        log->failed = 1;
        return;
    }
    char rank[32] = "";
    const char *item = "";
    long long process_rank = -1;
    if (by == CUBE_BY_PROCESS) {
        process_rank = (long long)cube_get_process(res, i)->rank;
        snprintf(rank, sizeof rank, "%lld", process_rank);
        item = rank;
    } else if (by == CUBE_BY_NODE) {
        item = cube_get_node(res, i)->name;
    } else if (by == CUBE_BY_MACHINE) {
        item = cube_get_machine(res, i)->name;
    }
    if (log->report_item)
        log->report_item(log->user, metric, path, item, a, b);
    else
        log->report(log->user, "value", metric, path, process_rank, -1, a, b);
    free(path);
}

/* What compare_rows needs besides the rows: the level, and for
 * ignore_below each metric's total in A and in B. */
typedef struct {
    cube_system_level by;
    double ignore_below;
    const double *total_a, *total_b;
    double *zeros;          /* a row of zeros: the row one side lacks */
    double *item_a, *item_b;/* room for the values of the level's items */
    size_t num_items;       /* processes, nodes, machines or 1 */
} compare_context;

/* The items of the level from a row of every thread's values. */
static void combine_items(const cube_t *res, const compare_context *x, cube_combine_rule how,
                          const double *row, double *items)
{
    cube_system_combine(res, how, row, x->by == CUBE_BY_PROCESS ? items : NULL,
                        x->by == CUBE_BY_NODE ? items : NULL,
                        x->by == CUBE_BY_MACHINE ? items : NULL,
                        x->by == CUBE_BY_ALL ? items : NULL, NULL);
}

static void compare_rows(const cube_t *res, const severity_store *mine,
                         const severity_store *other, int mine_is_a, const unsigned char *take,
                         const cube_compare_options *o, const compare_context *x,
                         difference_log *log)
{
    size_t nt = res->threads.count;
    for (size_t i = 0; i < mine->num_rows; i++) {
        const severity_row *r = &mine->rows[i];
        if (!take[r->metric])
            continue;
        const double *values = sev_row_values(mine, i);
        const double *theirs = sev_store_find(other, r->metric, r->cnode);
        if (!mine_is_a && theirs)
            continue; /* compared from A's side already */
        const cube_metric *met = res->metrics.items[r->metric];
        const cube_cnode *cnode = res->cnodes.items[r->cnode];
        const double *row_a = mine_is_a ? values : theirs ? theirs : x->zeros;
        const double *row_b = mine_is_a ? (theirs ? theirs : x->zeros) : values;
        cube_combine_rule how = cube_metric_combine(met);
        /* below ignore_below percent of the metric's total (in magnitude)
         * in both experiments; nothing is below a total of 0 */
        if (x->ignore_below > 0 &&
            !cube_value_reaches(how, cube_combine_values(how, row_a, nt), x->total_a[r->metric],
                                x->ignore_below) &&
            !cube_value_reaches(how, cube_combine_values(how, row_b, nt), x->total_b[r->metric],
                                x->ignore_below))
            continue;
        if (x->by == CUBE_BY_THREAD) {
            for (size_t t = 0; t < nt; t++)
                if (!close_enough(row_a[t], row_b[t], o))
                    note(log, "value", met->uniq_name, cnode, res->threads.items[t], row_a[t],
                         row_b[t]);
            continue;
        }
        combine_items(res, x, how, row_a, x->item_a);
        combine_items(res, x, how, row_b, x->item_b);
        for (size_t k = 0; k < x->num_items; k++) {
            /* the nodes compared are those that hold processes */
            if (x->by == CUBE_BY_NODE && !cube_get_node(res, k)->num_processes)
                continue;
            if (!close_enough(x->item_a[k], x->item_b[k], o))
                note_item(log, res, x->by, k, met->uniq_name, cnode, x->item_a[k],
                          x->item_b[k]);
        }
    }
}

/* Each metric's total in the rows of `store`: over every call path and
 * thread (combined as the metric's dtype says), or over the call-tree
 * roots for a metric whose rows are call-tree inclusive. */
static void metric_totals(const cube_t *res, const severity_store *store, double *totals)
{
    size_t nm = res->metrics.count, nt = res->threads.count;
    for (size_t m = 0; m < nm; m++)
        totals[m] = cube_combine_neutral(cube_metric_combine(res->metrics.items[m]));
    for (size_t i = 0; i < store->num_rows; i++) {
        const severity_row *r = &store->rows[i];
        const cube_metric *met = res->metrics.items[r->metric];
        const cube_cnode *cnode = res->cnodes.items[r->cnode];
        if (model_stored_inclusive(met) && cnode->parent)
            continue;
        cube_combine_rule how = cube_metric_combine(met);
        double both[2] = {totals[r->metric],
                          cube_combine_values(how, sev_row_values(store, i), nt)};
        totals[r->metric] = cube_combine_values(how, both, 2);
    }
}

/* What cannot be compared as the other metrics are, said before any
 * difference (as warnings of lining up): a derived metric, in either
 * input, has no stored values and is left out; a structured value is
 * compared by the one number per value the rows hold.  0, or -1 when out
 * of memory. */
static int limit_comparison(combination *cb, cube_t *res, unsigned char *take)
{
    size_t nm = res->metrics.count;
    unsigned char *derived = calloc(nm ? nm : 1, 1);
    if (!derived)
        return oom(cb);
    for (size_t k = 0; k < cb->n; k++) {
        const size_t *map = cube_union_metric_map(cb->u, k);
        const unsigned char *rules = union_metric_rules(cb->u, k);
        size_t num_metrics = 0, num_cnodes, num_threads;
        cube_union_input_size(cb->u, k, &num_metrics, &num_cnodes, &num_threads, NULL);
        for (size_t i = 0; i < num_metrics; i++)
            if (map[i] != SIZE_MAX && rules[i] == UNION_ROWS_NONE)
                derived[map[i]] |= (unsigned char)(1u << k); /* k < 2 */
    }
    int rc = 0;
    for (size_t m = 0; m < nm && rc == 0; m++) {
        const cube_metric *rm = res->metrics.items[m];
        if (!take[m])
            continue;
        if (derived[m]) {
            take[m] = 0;
            rc = cube_add_warning(res,
                                  "metric '%s' is derived (a CubePL expression, no stored "
                                  "values) in %s: not compared",
                                  rm->uniq_name,
                                  derived[m] & 1 ? cb->sources[0].path : cb->sources[1].path);
        } else if (is_structured(rm->dtype)) {
            rc = cube_add_warning(res,
                                  "structured value type %s of metric '%s': compared by one "
                                  "number per value (the one displayed)",
                                  rm->dtype, rm->uniq_name);
        }
    }
    free(derived);
    return rc != 0 ? oom(cb) : 0;
}

static int compare(const char *path_a, const char *path_b, const cube_t *const *models,
                   cube_match match, cube_system_rule rule, const cube_compare_options *options,
                   cube_difference_fn report, void *user, size_t *num_differences,
                   cube_status *status)
{
    cube_compare_options defaults;
    cube_compare_options_init(&defaults);
    if (num_differences)
        *num_differences = 0;
    if (!options)
        options = &defaults;
    /* two versions so far: the first ends before `by` (the fields it lacks
     * keep their defaults); any other size is not a complete options
     * record, or has fields this library cannot honour */
    size_t first_version = offsetof(cube_compare_options, by);
    if (options->size == first_version) {
        memcpy(&defaults, options, first_version);
        defaults.size = sizeof defaults;
        options = &defaults;
    }
    if (options->size != sizeof *options) {
        status_set(status, CUBE_EINVAL,
                   "cube_compare: the options have size %zu, not that of a known version (%zu); "
                   "fill them with cube_compare_options_init",
                   options->size, sizeof *options);
        return -1;
    }
    if (!path_a || !path_b) {
        status_set(status, CUBE_EINVAL, "cube_compare: two paths are needed");
        return -1;
    }
    if ((unsigned)options->by > CUBE_BY_ALL || !(options->ignore_below >= 0) ||
        isinf(options->ignore_below)) {
        status_set(status, CUBE_EINVAL,
                   "cube_compare: options->by is not a cube_system_level, or ignore_below is not "
                   "a finite percentage >= 0");
        return -1;
    }
    const char *paths[2] = {path_a, path_b};
    combination cb;
    memset(&cb, 0, sizeof cb);
    cb.sources = calloc(2, sizeof(source));
    cb.n = 2;
    cb.status = status;
    severity_store other;
    memset(&other, 0, sizeof other);
    unsigned char *take = NULL;
    difference_log log = {report, options->report_item, user, 0, options->max_reported, 0};
    compare_context x;
    memset(&x, 0, sizeof x);
    x.by = options->by;
    x.ignore_below = options->ignore_below;
    double *totals = NULL;

    status_ok(status);
    int rc = cb.sources ? 0 : oom(&cb);
    if (rc == 0)
        rc = open_sources(&cb, paths, models);
    if (rc == 0)
        rc = line_up(&cb, match, rule);
    cube_t *res = rc == 0 ? cube_union_result(cb.u) : NULL;
    if (rc == 0) {
        size_t nm = res->metrics.count;
        take = calloc(nm ? nm : 1, 1);
        if (!take)
            rc = oom(&cb);
        for (size_t m = 0; rc == 0 && m < nm; m++)
            take[m] = !options->metrics;
        for (const char *const *name = options->metrics; rc == 0 && name && *name; name++) {
            int found = 0;
            for (size_t m = 0; m < nm; m++)
                if (strcmp(((cube_metric *)res->metrics.items[m])->uniq_name, *name) == 0)
                    take[m] = 1, found = 1;
            size_t n = 0;
            const cube_metric *by_display =
                found ? NULL : cube_find_metric_named(res, *name, &n);
            char list[512];
            if (by_display)
                take[by_display->index] = 1;
            else if (n > 1 && cube_metric_name_candidates(res, *name, list, sizeof list))
                rc = fail(&cb, CUBE_EINVAL,
                          "--metric %s matches %zu metrics: %s; use a unique name", *name, n, list);
            else if (!found)
                rc = fail(&cb, CUBE_EINVAL, "no metric with the unique name '%s' in %s or %s",
                          *name, path_a, path_b);
        }
    }
    if (rc == 0)
        rc = limit_comparison(&cb, res, take);
    if (rc == 0) {
        other.row_len = res->threads.count;
        cb.merged.row_len = 2 * res->threads.count;
        /* Values of a metric that is VOID in one input only are compared
         * too: dropping them because the result took VOID from A made
         * cmp(A, B) "equal" but cmp(B, A) "not equal". */
        row_sink sinks[2] = {{&res->sev, 1.0, take, 1, 0}, {&other, 1.0, take, 1, 0}};
        rc = gather_rows(&cb, sinks);
    }
    /* lining up's warnings (metrics placed differently), then the readers' */
    for (size_t i = 0; rc == 0 && options->warn && i < cube_num_warnings(res); i++)
        options->warn(options->warn_user, cube_warning(res, i));
    for (size_t i = 0; rc == 0 && options->warn && i < cb.warnings.count; i++)
        options->warn(options->warn_user, cb.warnings.items[i]);
    if (rc == 0) {
        /* the dimensions first: an item only one side has is a difference */
        for (size_t m = 0; m < res->metrics.count; m++)
            if (take[m] && (!cube_union_input_has_metric(cb.u, 0, m) ||
                            !cube_union_input_has_metric(cb.u, 1, m)))
                note(&log, cube_union_input_has_metric(cb.u, 0, m) ? "metric only in A"
                                                                   : "metric only in B",
                     ((cube_metric *)res->metrics.items[m])->uniq_name, NULL, NULL, 0, 0);
        for (size_t c = 0; c < res->cnodes.count; c++)
            if (!cube_union_input_has_cnode(cb.u, 0, c) || !cube_union_input_has_cnode(cb.u, 1, c))
                note(&log, cube_union_input_has_cnode(cb.u, 0, c) ? "call path only in A"
                                                                  : "call path only in B",
                     NULL, res->cnodes.items[c], NULL, 0, 0);
        for (size_t t = 0; t < res->threads.count; t++)
            if (!cube_union_input_has_thread(cb.u, 0, t) || !cube_union_input_has_thread(cb.u, 1, t))
                note(&log, cube_union_input_has_thread(cb.u, 0, t) ? "thread only in A"
                                                                   : "thread only in B",
                     NULL, NULL, res->threads.items[t], 0, 0);
        size_t nm = res->metrics.count, nt = res->threads.count;
        size_t counts[] = {nt, res->processes.count, res->nodes.count, res->machines.count, 1};
        x.num_items = counts[x.by];
        totals = malloc(2 * (nm ? nm : 1) * sizeof *totals);
        x.zeros = calloc(nt ? nt : 1, sizeof *x.zeros);
        x.item_a = malloc(2 * (x.num_items ? x.num_items : 1) * sizeof *x.item_a);
        /* each side looks up every row of the other */
        if (!totals || !x.zeros || !x.item_a ||
            sev_store_index(&res->sev) != 0 || sev_store_index(&other) != 0) {
            rc = oom(&cb);
        } else {
            x.item_b = x.item_a + (x.num_items ? x.num_items : 1);
            x.total_a = totals;
            x.total_b = totals + (nm ? nm : 1);
            if (x.ignore_below > 0) {
                metric_totals(res, &res->sev, totals);
                metric_totals(res, &other, totals + (nm ? nm : 1));
            }
            compare_rows(res, &res->sev, &other, 1, take, options, &x, &log);
            compare_rows(res, &other, &res->sev, 0, take, options, &x, &log);
            if (log.failed)
                rc = oom(&cb);
        }
    }
    free(totals);
    free(x.zeros);
    free(x.item_a);
    free(take);
    sev_store_free(&other);
    cube_union_free(cb.u);
    close_sources(&cb);
    if (num_differences)
        *num_differences = log.count;
    return rc < 0 ? -1 : log.count ? 1 : 0;
}

int cube_compare(const char *path_a, const char *path_b, cube_match match, cube_system_rule rule,
                 const cube_compare_options *options, cube_difference_fn report, void *user,
                 size_t *num_differences, cube_status *status)
{
    return compare(path_a, path_b, NULL, match, rule, options, report, user, num_differences,
                   status);
}

int algebra_compare_models(const cube_t *a, const cube_t *b, const char *name_a,
                           const char *name_b, cube_match match, cube_system_rule rule,
                           const cube_compare_options *options, cube_difference_fn report,
                           void *user, size_t *num_differences, cube_status *status)
{
    const cube_t *models[2] = {a, b};
    if (!a || !b) {
        status_set(status, CUBE_EINVAL, "two experiments are needed");
        return -1;
    }
    return compare(name_a, name_b, models, match, rule, options, report, user, num_differences,
                   status);
}
