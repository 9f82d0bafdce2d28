/*
 * view_trees.c - one metric's values along the metric tree (inclusive as
 * stored, or exclusive: minus the child metrics), along the call tree
 * (exclusive: the call path alone, inclusive: plus its whole subtree,
 * whichever of the two the metric stores) and summed over the system tree
 * (cube_views.h).
 */
#include "views/view_private.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int metric_belongs(const cube_t *c, const cube_metric *met)
{
    return met && met->index < cube_num_metrics(c) && cube_get_metric(c, met->index) == met;
}

/* The row pointers and the compensation bits of a view whose ncnodes is
 * set: 0, or -1 when out of memory (cube_view_free cleans up). */
static int new_rows(cube_view *v)
{
    v->rows = calloc(v->ncnodes ? v->ncnodes : 1, sizeof *v->rows);
    v->compensated = calloc(v->ncnodes / 8 + 1, 1);
    return v->rows && v->compensated ? 0 : -1;
}

/* The rows for the child metrics stored the other way along the call tree
 * than the view's metric: a view of its own kept inside.  0 or -1. */
static int new_other(cube_view *v)
{
    cube_view *o = calloc(1, sizeof *o);
    if (!o)
        return -1;
    *o = (cube_view){.defs = v->defs, .metric = v->metric, .metric_flavour = v->metric_flavour,
                     .call_flavour = v->call_flavour, .flags = v->flags, .combine = v->combine,
                     .width = v->width, .nthreads = v->nthreads, .ncnodes = v->ncnodes,
                     .stored_inclusive = !v->stored_inclusive, .rows_flavour = v->rows_flavour};
    v->other = o;
    return new_rows(o);
}

cube_view *cube_view_create(const cube_t *defs, const cube_metric *met,
                            cube_metric_flavour metric_flavour,
                            cube_call_flavour call_flavour, unsigned flags,
                            cube_status *status)
{
    if (!defs || !met) {
        status_set(status, CUBE_EINVAL, "cube_view_create needs an experiment and a metric");
        return NULL;
    }
    if (!metric_belongs(defs, met)) {
        status_set(status, CUBE_EINVAL,
                   "cube_view_create: metric \"%s\" is not a metric of the experiment given",
                   met->uniq_name);
        return NULL;
    }
    if (metric_flavour != CUBE_METRIC_INCLUSIVE && metric_flavour != CUBE_METRIC_EXCLUSIVE) {
        status_set(status, CUBE_EINVAL,
                   "cube_view_create: %d is not a metric flavour (CUBE_METRIC_INCLUSIVE, "
                   "CUBE_METRIC_EXCLUSIVE)", (int)metric_flavour);
        return NULL;
    }
    if (call_flavour != CUBE_CALL_INCLUSIVE && call_flavour != CUBE_CALL_EXCLUSIVE &&
        call_flavour != CUBE_CALL_STORED) {
        status_set(status, CUBE_EINVAL,
                   "cube_view_create: %d is not a call flavour (CUBE_CALL_INCLUSIVE, "
                   "CUBE_CALL_EXCLUSIVE, CUBE_CALL_STORED)", (int)call_flavour);
        return NULL;
    }
    if (flags & ~(CUBE_VIEW_AGGREGATE | CUBE_VIEW_COMPONENTS)) {
        status_set(status, CUBE_EINVAL,
                   "cube_view_create: unknown flags 0x%x (only CUBE_VIEW_AGGREGATE and "
                   "CUBE_VIEW_COMPONENTS are defined)",
                   flags & ~(CUBE_VIEW_AGGREGATE | CUBE_VIEW_COMPONENTS));
        return NULL;
    }
    if (cube_metric_is_derived(met)) {
        status_set(status, CUBE_EUNSUPPORTED,
                   "cube_view_create: metric \"%s\" is derived (CubePL expression): its values "
                   "are not computed", met->uniq_name);
        return NULL;
    }
    cube_combine_rule combine = cube_metric_combine(met);
    int stored_inclusive = model_stored_inclusive(met), mixed = 0;
    if (metric_flavour == CUBE_METRIC_EXCLUSIVE && combine == CUBE_COMBINE_SUM)
        for (size_t k = 0; k < met->num_children; k++) {
            const cube_metric *child = met->children[k];
            if (!view_is_part(met, child))
                continue; /* not a part (cube_view_wants) */
            if (cube_metric_is_derived(child)) {
                status_set(status, CUBE_EUNSUPPORTED,
                           "cube_view_create: metric \"%s\" has the derived child metric "
                           "\"%s\" (CubePL expression), whose values are not computed: its "
                           "metric-exclusive values cannot be either",
                           met->uniq_name, child->uniq_name);
                return NULL;
            }
            mixed |= model_stored_inclusive(child) != stored_inclusive;
        }
    cube_view *v = calloc(1, sizeof *v);
    if (!v) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        return NULL;
    }
    v->defs = defs;
    v->metric = met;
    v->metric_flavour = metric_flavour;
    v->call_flavour = call_flavour;
    v->flags = flags;
    v->combine = combine;
    v->nthreads = cube_num_threads(defs);
    v->width = (flags & CUBE_VIEW_AGGREGATE) ? 1 : v->nthreads;
    v->ncnodes = cube_num_cnodes(defs);
    v->stored_inclusive = stored_inclusive;
    view_integer_type(met, &v->wrap_bits, &v->wrap_signed);
    v->part_rule = view_part_rule(met);
    /* the stored flavour is the one the view's metric is stored in */
    v->rows_flavour = call_flavour != CUBE_CALL_STORED ? call_flavour
                      : stored_inclusive               ? CUBE_CALL_INCLUSIVE
                                                       : CUBE_CALL_EXCLUSIVE;
    if (new_rows(v) != 0 || (mixed && new_other(v) != 0) || view_parts_new(v) != 0) {
        cube_view_free(v);
        status_set(status, CUBE_ENOMEM, "out of memory");
        return NULL;
    }
    status_ok(status);
    return v;
}

cube_code cube_view_error_code(const cube_view *v)
{
    /* a NULL view is what a failed cube_view_create returns */
    return v ? v->status.code : CUBE_ENOMEM;
}

const char *cube_view_error(const cube_view *v)
{
    return v ? v->status.message : "out of memory";
}

/* The ESTATE message of a function that changes a view, once it is
 * finished (or its cube_view_finish failed). */
static int view_is_finished(cube_view *v, const char *func)
{
    status_set(&v->status, CUBE_ESTATE,
               v->finished == 1 ? "%s: the view is finished"
                                : "%s: the view's cube_view_finish failed; only cube_view_free "
                                  "is left",
               func);
    return -1;
}

static int view_out_of_memory(cube_view *v)
{
    status_set(&v->status, CUBE_ENOMEM, "out of memory");
    return -1;
}

void cube_view_free(cube_view *v)
{
    if (!v)
        return;
    cube_view_free(v->other);
    view_parts_free(v->parts);
    for (size_t i = 0; v->rows && i < v->ncnodes; i++)
        free(v->rows[i]);
    free(v->rows);
    free(v->compensated);
    free(v);
}

int cube_view_wants(const cube_view *v, const cube_metric *met)
{
    if (!v || !met || v->metric->is_void)
        return 0;
    if (met == v->metric)
        return 1;
    /* only a sum has parts: a maximum or minimum neither loses nor is a
     * part (cube_views.h) */
    return v->metric_flavour == CUBE_METRIC_EXCLUSIVE && met->parent == v->metric &&
           view_is_part_by(v->part_rule, v->metric, met);
}

/* A row's first contribution is exact: it is kept as `width` plain values.
 * Only a row that gets a second one grows into an accumulator with its
 * compensations (2 x width): a per-thread view of a stored metric, where
 * every call path gets one row, costs width doubles a row, not twice that. */
static int is_compensated(const cube_view *v, size_t i)
{
    return (v->compensated[i >> 3] >> (i & 7)) & 1;
}

/* Row i as an accumulator of 2 x width, created zeroed or grown from its
 * plain values; NULL when out of memory. */
static double *accumulator(cube_view *v, size_t i)
{
    size_t w = v->width;
    if (v->rows[i] && is_compensated(v, i))
        return v->rows[i];
    double *acc =
        v->rows[i] ? realloc(v->rows[i], 2 * (w ? w : 1) * sizeof *acc) : view_acc_new(w);
    if (!acc)
        return NULL;
    if (v->rows[i])
        memset(acc + w, 0, w * sizeof *acc);
    else
        v->num_rows++;
    v->rows[i] = acc;
    v->compensated[i >> 3] |= (unsigned char)(1u << (i & 7));
    return acc;
}

/* Row i += sign x values (width values), kept plain while it is the first
 * contribution.  0, or -1 when out of memory. */
static int add_values(cube_view *v, size_t i, const double *values, double sign)
{
    size_t w = v->width;
    if (!v->rows[i]) {
        double *row = malloc((w ? w : 1) * sizeof *row);
        if (!row)
            return -1;
        for (size_t t = 0; t < w; t++)
            row[t] = sign > 0 ? values[t] : -values[t];
        v->rows[i] = row;
        v->num_rows++;
        return 0;
    }
    double *acc = accumulator(v, i);
    if (!acc)
        return -1;
    view_acc_add_row(acc, w, values, sign);
    return 0;
}

/* Row i = the maximum (minimum) of itself and values (width values); a row
 * that had no value yet takes them as they are, so a call path without a
 * row never takes part.  0, or -1 when out of memory. */
static int pick_values(cube_view *v, size_t i, const double *values)
{
    if (!v->rows[i])
        return add_values(v, i, values, 1.0);
    view_pick_row(v->rows[i], values, v->width, v->combine);
    return 0;
}

int cube_view_add_row(cube_view *v, const cube_metric *met, const cube_cnode *cnode,
                      const double *values)
{
    if (!v)
        return -1;
    status_ok(&v->status);
    if (!met || !cnode || !values) {
        status_set(&v->status, CUBE_EINVAL,
                   "cube_view_add_row needs a metric, a call-tree node and values");
        return -1;
    }
    if (v->finished)
        return view_is_finished(v, "cube_view_add_row");
    if (!cube_view_wants(v, met))
        return 0;
    size_t i = cnode->index;
    if (i >= v->ncnodes || cube_get_cnode(v->defs, i) != cnode) {
        status_set(&v->status, CUBE_EINVAL,
                   "cube_view_add_row: call-tree node %" PRId64 " (index %zu) is not a call "
                   "path of the view's experiment", cnode->id, i);
        return -1;
    }
    /* Metric-inclusive values are stored; a metric's exclusive value is its
     * own stored value minus its children's stored values, each converted
     * along the call tree at the end when it is stored the other way. */
    double sign = met == v->metric ? 1.0 : -1.0;
    cube_view *t = v->other && met != v->metric &&
                           model_stored_inclusive(met) != v->stored_inclusive
                       ? v->other
                       : v;
    if (t->combine != CUBE_COMBINE_SUM) {
        /* only the view's own metric gets here (cube_view_wants) */
        double one;
        if (t->flags & CUBE_VIEW_AGGREGATE)
            one = cube_combine_values(t->combine, values, t->nthreads);
        if (pick_values(t, i, (t->flags & CUBE_VIEW_AGGREGATE) ? &one : values) != 0)
            return view_out_of_memory(v);
    } else if (t->flags & CUBE_VIEW_AGGREGATE) {
        /* a sum over the threads: compensated from its first value on */
        double *acc = accumulator(t, i);
        if (!acc)
            return view_out_of_memory(v);
        view_acc_add_sum(acc, 1, values, t->nthreads, sign);
    } else if (add_values(t, i, values, sign) != 0) {
        return view_out_of_memory(v);
    }
    if (v->parts && view_parts_add_row(v, met, cnode, values) != 0)
        return view_out_of_memory(v);
    return 0;
}

int cube_view_add_stored(cube_view *v)
{
    if (!v)
        return -1;
    status_ok(&v->status);
    if (v->finished)
        return view_is_finished(v, "cube_view_add_stored");
    size_t n = cube_num_rows(v->defs);
    for (size_t k = 0; k < n; k++) {
        cube_metric *met;
        cube_cnode *cnode;
        const double *values = cube_row_at(v->defs, k, &met, &cnode);
        if (!values || !cube_view_wants(v, met))
            continue;
        if (cube_view_add_row(v, met, cnode, values) != 0)
            return -1; /* the reason is on the view */
    }
    return 0;
}

/* Row p += row i (or the larger or smaller of the two), or -= with a
 * negative sign (sums only): 0, or -1 when out of memory. */
static int add_row_to(cube_view *v, size_t p, const cube_view *from, size_t i, double sign)
{
    if (v->combine != CUBE_COMBINE_SUM)
        return pick_values(v, p, from->rows[i]);
    if (!is_compensated(from, i))
        return add_values(v, p, from->rows[i], sign);
    if (!accumulator(v, p))
        return -1;
    if (sign > 0)
        view_acc_add_acc(v->rows[p], from->rows[i], v->width);
    else
        view_acc_sub_acc(v->rows[p], from->rows[i], v->width);
    return 0;
}

/* The rows of `t`, held as stored (call-inclusive when stored_inclusive),
 * turned into values of the call flavour `to`.  0, or -1 when out of
 * memory. */
static int convert(cube_view *t, cube_call_flavour to)
{
    if (!t->stored_inclusive && to == CUBE_CALL_INCLUSIVE) {
        /* Post-order accumulation without recursion: every parent comes
         * before its children in index order, so in reverse index order a
         * node's subtree is complete when the node is reached, and it is
         * added to its parent in one step. */
        for (size_t i = t->ncnodes; i-- > 0;) {
            const cube_cnode *cn = cube_get_cnode(t->defs, i);
            if (t->rows[i] && cn->parent && add_row_to(t, cn->parent->index, t, i, 1.0) != 0)
                return -1;
        }
    } else if (t->stored_inclusive && to == CUBE_CALL_EXCLUSIVE) {
        /* A call path's own value is its inclusive value minus its
         * children's.  In index order a node is reached before any of its
         * children, so its row still holds its inclusive value when it is
         * taken away from its parent's. */
        for (size_t i = 0; i < t->ncnodes; i++) {
            const cube_cnode *cn = cube_get_cnode(t->defs, i);
            if (t->rows[i] && cn->parent && add_row_to(t, cn->parent->index, t, i, -1.0) != 0)
                return -1;
        }
    }
    return 0;
}

/* Does `t` change its rows to reach flavour `to`? */
static int converts(const cube_view *t, cube_call_flavour to)
{
    return t->stored_inclusive != (to == CUBE_CALL_INCLUSIVE);
}

int cube_view_finish(cube_view *v)
{
    if (!v)
        return -1;
    status_ok(&v->status);
    if (v->finished)
        return view_is_finished(v, "cube_view_finish");
    size_t w = v->width;
    cube_call_flavour to = v->rows_flavour;
    if (converts(v, to) || (v->other && converts(v->other, to))) {
        /* both conversions need every parent before its children */
        for (size_t i = 0; i < v->ncnodes; i++) {
            const cube_cnode *cn = cube_get_cnode(v->defs, i);
            if (cn->parent && cn->parent->index >= i) {
                status_set(&v->status, CUBE_EINVAL,
                           "cube_view_finish: call-tree node %" PRId64 " (index %zu) is "
                           "defined before its parent, node %" PRId64 " (index %zu)",
                           cn->id, i, cn->parent->id, cn->parent->index);
                return -1;
            }
        }
    }
    int rc = convert(v, to);
    if (!rc && v->other) {
        rc = convert(v->other, to);
        for (size_t i = 0; !rc && i < v->ncnodes; i++)
            if (v->other->rows[i])
                rc = add_row_to(v, i, v->other, i, 1.0);
    }
    if (rc != 0) {
        v->finished = -1; /* partly summed: only cube_view_free */
        return view_out_of_memory(v);
    }
    cube_view_free(v->other);
    v->other = NULL;
    for (size_t i = 0; i < v->ncnodes; i++) {
        if (v->rows[i] && is_compensated(v, i))
            v->rows[i] = view_acc_fold(v->rows[i], w);
        if (v->rows[i])
            view_wrap_values(v->rows[i], w, v->wrap_bits, v->wrap_signed);
    }
    free(v->compensated);
    v->compensated = NULL;
    if (v->parts && view_parts_finish(v) != 0) {
        v->finished = -1;
        return view_out_of_memory(v);
    }
    v->finished = 1;
    return 0;
}

cube_view *cube_view_compute(const cube_t *c, const cube_metric *met,
                             cube_metric_flavour metric_flavour,
                             cube_call_flavour call_flavour, unsigned flags,
                             cube_status *status)
{
    cube_view *v = cube_view_create(c, met, metric_flavour, call_flavour, flags, status);
    if (!v)
        return NULL;
    if (cube_view_add_stored(v) != 0 || cube_view_finish(v) != 0) {
        status_copy(status, &v->status);
        cube_view_free(v);
        return NULL;
    }
    return v;
}

const cube_metric *cube_view_metric(const cube_view *v)
{
    return v ? v->metric : NULL;
}

cube_metric_flavour cube_view_metric_flavour(const cube_view *v)
{
    return v ? v->metric_flavour : CUBE_METRIC_INCLUSIVE;
}

cube_call_flavour cube_view_call_flavour(const cube_view *v)
{
    return v ? v->call_flavour : CUBE_CALL_EXCLUSIVE;
}

size_t cube_view_width(const cube_view *v)
{
    return v ? v->width : 0;
}

size_t cube_view_num_rows(const cube_view *v)
{
    return v ? v->num_rows : 0;
}

const double *const *cube_view_rows(const cube_view *v)
{
    return v && v->finished == 1 ? (const double *const *)v->rows : NULL;
}

const double *cube_view_row(const cube_view *v, const cube_cnode *cnode)
{
    if (!v || v->finished != 1 || !cnode || cnode->index >= v->ncnodes)
        return NULL;
    return v->rows[cnode->index];
}

size_t cube_view_num_components(const cube_view *v)
{
    size_t nc = 0;
    if (!v || v->finished != 1 || !v->parts)
        return 0;
    view_parts_kept(v, 0, &nc);
    return nc;
}

const double *cube_view_components(const cube_view *v, const cube_cnode *cnode)
{
    size_t nc;
    if (!v || v->finished != 1 || !v->parts || !cnode || cnode->index >= v->ncnodes)
        return NULL;
    return view_parts_kept(v, cnode->index, &nc);
}

double cube_view_value(const cube_view *v, const cube_cnode *cnode, size_t i)
{
    const double *row = cube_view_row(v, cnode);
    if (!v || v->finished != 1 || i >= v->width)
        return 0.0;
    /* a call path without a row: nothing contributed */
    return row ? row[i] : view_neutral(v->combine);
}

int cube_view_total(const cube_view *v, double *out, cube_status *status)
{
    if (!v || !out) {
        status_set(status, CUBE_EINVAL, "cube_view_total needs a view and a place for the values");
        return -1;
    }
    if (v->finished != 1) {
        status_set(status, CUBE_ESTATE,
                   v->finished ? "cube_view_total: the view's cube_view_finish failed"
                               : "cube_view_total: the view is not finished (cube_view_finish)");
        return -1;
    }
    size_t w = v->width;
    if (v->parts && view_parts_total(v, out)) {
        status_ok(status);
        return 0;
    }
    if (v->combine != CUBE_COMBINE_SUM) {
        /* every row, also in the call-inclusive flavour: a maximum over
         * the roots' subtrees is the maximum over all call paths */
        int any = 0;
        for (size_t i = 0; i < v->ncnodes; i++) {
            if (!v->rows[i])
                continue;
            if (any)
                view_pick_row(out, v->rows[i], w, v->combine);
            else
                memcpy(out, v->rows[i], w * sizeof *out);
            any = 1;
        }
        if (!any)
            for (size_t i = 0; i < w; i++)
                out[i] = view_neutral(v->combine);
        status_ok(status);
        return 0;
    }
    double *acc = view_acc_new(w);
    if (!acc) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    if (v->rows_flavour == CUBE_CALL_INCLUSIVE) {
        /* the roots' inclusive values hold everything */
        size_t nroots = cube_num_root_cnodes(v->defs);
        for (size_t k = 0; k < nroots; k++) {
            const double *row = v->rows[cube_get_root_cnode(v->defs, k)->index];
            if (row)
                view_acc_add_row(acc, w, row, 1.0);
        }
    } else {
        for (size_t i = 0; i < v->ncnodes; i++)
            if (v->rows[i])
                view_acc_add_row(acc, w, v->rows[i], 1.0);
    }
    for (size_t i = 0; i < w; i++)
        out[i] = view_neu_result(acc[i], acc[w + i]);
    view_wrap_values(out, w, v->wrap_bits, v->wrap_signed);
    free(acc);
    status_ok(status);
    return 0;
}

int cube_metric_tree_values(const cube_t *c, cube_metric_flavour flavour, double *values,
                            cube_status *status)
{
    if (!c || !values) {
        status_set(status, CUBE_EINVAL,
                   "cube_metric_tree_values needs an experiment and a place for the values");
        return -1;
    }
    if (flavour != CUBE_METRIC_INCLUSIVE && flavour != CUBE_METRIC_EXCLUSIVE) {
        status_set(status, CUBE_EINVAL,
                   "cube_metric_tree_values: %d is not a metric flavour (CUBE_METRIC_INCLUSIVE, "
                   "CUBE_METRIC_EXCLUSIVE)", (int)flavour);
        return -1;
    }
    size_t nm = cube_num_metrics(c);
    if (cube_metric_totals(c, values, status) != 0)
        return -1;
    for (size_t m = 0; m < nm; m++)
        if (cube_get_metric(c, m)->is_void)
            values[m] = 0.0;
    if (flavour == CUBE_METRIC_INCLUSIVE)
        return 0;
    double *incl = malloc((nm ? nm : 1) * sizeof *incl);
    if (!incl) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    memcpy(incl, values, nm * sizeof *incl);
    int rc = 0;
    for (size_t m = 0; m < nm && rc == 0; m++) {
        const cube_metric *met = cube_get_metric(c, m);
        if (cube_metric_combine(met) != CUBE_COMBINE_SUM || met->is_void ||
            cube_metric_is_derived(met))
            continue; /* a maximum or minimum has no parts */
        if (view_has_parts(met)) {
            /* components subtracted, not numbers */
            rc = view_metric_total(c, met, CUBE_METRIC_EXCLUSIVE, &values[m], status);
            continue;
        }
        double sum = incl[m], comp = 0.0;
        int any_part = 0;
        for (size_t k = 0; k < met->num_children; k++) {
            const cube_metric *child = met->children[k];
            if (view_is_part(met, child)) {
                view_neu_add(&sum, &comp, -incl[child->index]);
                any_part = 1;
            }
        }
        values[m] = view_neu_result(sum, comp);
        if (any_part) {
            unsigned bits;
            int is_signed;
            view_integer_type(met, &bits, &is_signed);
            view_wrap_values(&values[m], 1, bits, is_signed);
        }
    }
    free(incl);
    return rc;
}

/* A process's threads' values, continued in k. */
static void add_process(const cube_process *p, const double *tv, view_combiner *k)
{
    for (size_t t = 0; t < p->num_threads; t++)
        view_combiner_add(k, tv[p->threads[t]->index]);
}

static void add_node(const cube_node *n, const double *tv, view_combiner *k)
{
    for (size_t i = 0; i < n->num_processes; i++)
        add_process(n->processes[i], tv, k);
}

/* The threads of `top` and of every node nested in it, in preorder,
 * continued in k.  Walked by the parent links (no stack, no recursion:
 * system trees may be deep); a node's place among its siblings is found
 * by a scan of its parent's children. */
static void add_subtree(const cube_node *top, const double *tv, view_combiner *k)
{
    const cube_node *n = top;
    for (;;) {
        add_node(n, tv, k);
        if (n->num_children) {
            n = n->children[0];
            continue;
        }
        /* the next sibling of n or of its nearest ancestor below top */
        while (n != top) {
            const cube_node *parent = n->parent;
            size_t at = 0;
            while (parent->children[at] != n)
                at++;
            if (at + 1 < parent->num_children) {
                n = parent->children[at + 1];
                break;
            }
            n = parent;
        }
        if (n == top)
            return;
    }
}

int cube_system_sums(const cube_t *c, const double *thread_values, double *process_values,
                     double *node_values, double *machine_values, double *total,
                     cube_status *status)
{
    if (!c || !thread_values) {
        status_set(status, CUBE_EINVAL,
                   "cube_system_sums needs an experiment and the threads' values");
        return -1;
    }
    return cube_system_combine(c, CUBE_COMBINE_SUM, thread_values, process_values, node_values,
                               machine_values, total, status);
}

int cube_system_combine(const cube_t *c, cube_combine_rule how, const double *thread_values,
                        double *process_values, double *node_values, double *machine_values,
                        double *total, cube_status *status)
{
    if (!c || !thread_values) {
        status_set(status, CUBE_EINVAL, "cube_system_combine needs an experiment and the "
                                        "threads' values");
        return -1;
    }
    if (how != CUBE_COMBINE_SUM && how != CUBE_COMBINE_MAX && how != CUBE_COMBINE_MIN) {
        status_set(status, CUBE_EINVAL,
                   "cube_system_combine: %d is not a combine rule (CUBE_COMBINE_SUM, "
                   "CUBE_COMBINE_MAX, CUBE_COMBINE_MIN)", (int)how);
        return -1;
    }
    /* Each item walks its own threads and nothing is allocated, so this
     * cannot fail once the arguments are valid (a tool may call it for
     * every row). */
    if (process_values)
        for (size_t i = 0; i < cube_num_processes(c); i++) {
            view_combiner k = {how, 0.0, 0.0, 0};
            add_process(cube_get_process(c, i), thread_values, &k);
            process_values[i] = view_combiner_result(&k);
        }
    /* A node's value is that of everything below it, also of the nodes
     * nested in it (a CUBE 4 system tree of any depth).  A node is always
     * defined after its parent, so in reverse index order every child is
     * done before its parent, which adds the child's result; a neutral
     * result (a child without threads) changes no sum, maximum or
     * minimum. */
    if (node_values)
        for (size_t i = cube_num_nodes(c); i-- > 0;) {
            const cube_node *n = cube_get_node(c, i);
            view_combiner k = {how, 0.0, 0.0, 0};
            add_node(n, thread_values, &k);
            for (size_t ch = 0; ch < n->num_children; ch++)
                view_combiner_add(&k, node_values[n->children[ch]->index]);
            node_values[i] = view_combiner_result(&k);
        }
    /* A machine adds the threads of every node below it, one by one, in
     * the order of the tree: needs no memory, and for a tree of two levels
     * (every CUBE 3 file) adds exactly as the machine's nodes always did. */
    if (machine_values)
        for (size_t i = 0; i < cube_num_machines(c); i++) {
            const cube_machine *m = cube_get_machine(c, i);
            view_combiner k = {how, 0.0, 0.0, 0};
            for (size_t n = 0; n < m->num_nodes; n++)
                add_subtree(m->nodes[n], thread_values, &k);
            machine_values[i] = view_combiner_result(&k);
        }
    if (total)
        *total = cube_combine_values(how, thread_values, cube_num_threads(c));
    status_ok(status);
    return 0;
}
