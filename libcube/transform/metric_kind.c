/*
 * metric_kind.c - store a metric's values the other way along the call
 * tree: call-tree exclusive (each call path its own value) or inclusive
 * (each call path the value of its whole subtree), as CUBE 4's metric
 * kinds EXCLUSIVE and INCLUSIVE say.
 *
 * The new rows are the views' values (cube_view_compute in the
 * metric-inclusive flavour, call-inclusive or call-exclusive), so the
 * conversion computes exactly what every reader of the experiment sees
 * already, and the views give the same values after it as before: they
 * convert by the kind.  The metric-tree direction does not change: a
 * stored value contains its child metrics' values in every CUBE format,
 * and no format can say otherwise.
 *
 * What is not converted keeps its rows and says so in a warning (one per
 * reason, naming the metrics):
 *  - a maximum, minimum, TAU_ATOMIC or HISTOGRAM(k) metric cannot be
 *    stored inclusive (CUBE 4 forbids it: there is nothing to subtract to
 *    get a call path's own value back); it is stored exclusive, as the
 *    views already take its rows;
 *  - a metric whose values the rows' doubles do not hold exactly (the
 *    exact bytes of structured values or of 64-bit integers beyond 2^53,
 *    and integers whose inclusive sums would pass 2^53) keeps its kind:
 *    converting the doubles would lose what the file holds;
 *  - derived metrics store no values; they are not touched.
 */
#include "core/cube_private.h"
#include "core/util_private.h"
#include "cubex/binary_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 2^53: a double holds every integer below it exactly, and a sum that
 * reaches it may have been rounded */
#define EXACT_INTEGER_LIMIT 9007199254740992.0

/* The metrics of one warning: how many, and their names up to a length. */
typedef struct {
    size_t count;
    strbuf names;
} metric_list;

static int list_add(metric_list *l, const cube_metric *m)
{
    l->count++;
    return strbuf_append_item(&l->names, m->uniq_name, 200);
}

/* Does m keep exact values beside the doubles of its rows? */
static int has_exact_values(const cube_metric *m)
{
    return m->exact && m->exact->num_rows;
}

static int is_integer_type(const cube_metric *m)
{
    cubex_dtype t;
    return cubex_dtype_parse(m->dtype, &t) == 0 && cubex_dtype_is_integer(t);
}

/* Are the view's values of an integer metric all exact in a double? */
static int view_rows_exact(const cube_view *v, size_t ncnodes, size_t width)
{
    const double *const *rows = cube_view_rows(v);
    for (size_t n = 0; n < ncnodes; n++)
        for (size_t k = 0; rows[n] && k < width; k++)
            if (!(fabs(rows[n][k]) < EXACT_INTEGER_LIMIT))
                return 0;
    return 1;
}

/* Replace m's rows by the view's: a call path with a view row gets it
 * (created when absent), one with a stored row but no view row gets
 * zeros (nothing contributes to it). */
static int replace_rows(cube_t *c, const cube_metric *m, const cube_view *v)
{
    size_t nthreads = c->threads.count;
    for (size_t n = 0; n < c->cnodes.count; n++) {
        const cube_cnode *cn = c->cnodes.items[n];
        const double *src = cube_view_row(v, cn);
        if (!src && !cube_get_row(c, m, cn))
            continue;
        double *dst = model_row_for_update(c, m, cn);
        if (!dst)
            return -1;
        if (src)
            memcpy(dst, src, nthreads * sizeof *dst);
        else
            memset(dst, 0, nthreads * sizeof *dst);
    }
    return 0;
}

/* Convert one metric; *kept_exact set when it keeps its kind because
 * converting would not be exact. */
static int convert_one(cube_t *c, cube_metric *m, cube_metric_kind kind, int *kept_exact)
{
    *kept_exact = 0;
    /* SIMPLE becomes INCLUSIVE with its rows as they are; a VOID metric
     * has no rows to convert */
    if (model_stored_inclusive(m) == (kind == CUBE_KIND_INCLUSIVE) || m->is_void) {
        m->kind = kind;
        return 0;
    }
    if (has_exact_values(m)) {
        *kept_exact = 1;
        return 0;
    }
    cube_status st;
    cube_view *v = cube_view_compute(c, m, CUBE_METRIC_INCLUSIVE,
                                     kind == CUBE_KIND_INCLUSIVE ? CUBE_CALL_INCLUSIVE
                                                                 : CUBE_CALL_EXCLUSIVE,
                                     0, &st);
    if (!v) {
        cube_set_error(c, st.code, "metric %s: %s", m->uniq_name, st.message);
        return -1;
    }
    int rc = 0;
    if (is_integer_type(m) && !view_rows_exact(v, c->cnodes.count, c->threads.count))
        *kept_exact = 1;
    else if ((rc = replace_rows(c, m, v)) == 0)
        m->kind = kind;
    cube_view_free(v);
    return rc;
}

int cube_convert_metric_kind(cube_t *c, cube_metric *met, cube_metric_kind kind)
{
    if (!c)
        return -1;
    cube_clear_error(c);
    if (kind != CUBE_KIND_EXCLUSIVE && kind != CUBE_KIND_INCLUSIVE) {
        cube_set_error(c, CUBE_EINVAL,
                       "cube_convert_metric_kind: the kind must be EXCLUSIVE or INCLUSIVE, "
                       "not %d",
                       (int)kind);
        return -1;
    }
    if (met && (met->index >= c->metrics.count || c->metrics.items[met->index] != met)) {
        cube_set_error(c, CUBE_EINVAL,
                       "cube_convert_metric_kind: the metric is not of this experiment");
        return -1;
    }
    size_t first = met ? met->index : 0, end = met ? met->index + 1 : c->metrics.count;
    metric_list no_inclusive = {0}, exact = {0}, derived = {0};
    int rc = 0;
    for (size_t i = first; i < end && rc == 0; i++) {
        cube_metric *m = c->metrics.items[i];
        if (cube_metric_is_derived(m)) {
            rc = list_add(&derived, m);
            continue;
        }
        cube_metric_kind want = kind;
        if (kind == CUBE_KIND_INCLUSIVE && !model_may_store_inclusive(m)) {
            want = CUBE_KIND_EXCLUSIVE;
            rc = list_add(&no_inclusive, m);
        }
        int kept_exact = 0;
        if (rc == 0)
            rc = convert_one(c, m, want, &kept_exact);
        if (rc == 0 && kept_exact)
            rc = list_add(&exact, m);
    }
    if (rc == 0 && no_inclusive.count)
        rc = cube_add_warning(c, "%zu metrics of a type that cannot be stored inclusive (%s) "
                                 "stored exclusive",
                              no_inclusive.count, strbuf_str(&no_inclusive.names));
    if (rc == 0 && exact.count)
        rc = cube_add_warning(c, "%zu metrics whose exact values would not convert exactly "
                                 "(%s) kept as stored",
                              exact.count, strbuf_str(&exact.names));
    if (rc == 0 && derived.count)
        rc = cube_add_warning(c, "%zu derived metrics (%s) unchanged: they store no values",
                              derived.count, strbuf_str(&derived.names));
    /* an error of convert_one is on the handle already; else memory ran
     * out for a list of names or a warning */
    if (rc != 0 && cube_error_code(c) == CUBE_OK)
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
    strbuf_free(&no_inclusive.names);
    strbuf_free(&exact.names);
    strbuf_free(&derived.names);
    return rc ? -1 : 0;
}
