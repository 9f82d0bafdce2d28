/*
 * reshape.c - keep, drop or fold each call path of a model, the severity
 * rows following (see reshape_private.h for the contract).
 *
 * Two passes over the rows: the first copies the rows of the kept call
 * paths into a new store, the second folds the rows of the folded ones
 * into their targets' rows there.  Sums are compensated (Neumaier): the
 * compensations live in a second store with the same keys and are added
 * at the end, so that folding a subtree of a hundred thousand call paths
 * into one gives the sum of its values to the last bit where it can.
 */
#include "transform/reshape_private.h"
#include "cubex/binary_private.h"
#include "cubex/binary_write_private.h"
#include "views/view_private.h"

#include <stdlib.h>
#include <string.h>

/* The new exact rows of one metric that has exact values. */
typedef struct {
    severity_store *rows; /* NULL when the metric keeps none */
    cubex_dtype type;
    int folded; /* a value was folded into a row: its number is recomputed */
    int lost;   /* a fold that cannot be made exactly: the metric loses them */
} exact_rows;

typedef struct {
    cube_t *c;
    const size_t *dest;
    size_t *new_index; /* old index -> new index, for kept call paths */
    severity_store rows, comp;
    exact_rows *exact; /* per metric */
    double *scratch;   /* components of two values */
} reshape;

static void reshape_free(reshape *r)
{
    free(r->new_index);
    sev_store_free(&r->rows);
    sev_store_free(&r->comp);
    if (r->exact)
        for (size_t m = 0; m < r->c->metrics.count; m++)
            if (r->exact[m].rows) {
                sev_store_free(r->exact[m].rows);
                free(r->exact[m].rows);
            }
    free(r->exact);
    free(r->scratch);
}

static int oom(reshape *r)
{
    cube_set_error(r->c, CUBE_ENOMEM, "out of memory");
    return -1;
}

/* The rows of `from` whose call paths are kept, renumbered, into the empty
 * store `to` (its row_len set), then indexed. */
static int copy_kept_rows(reshape *r, const severity_store *from, severity_store *to)
{
    for (size_t k = 0; k < from->num_rows; k++) {
        severity_row row = from->rows[k];
        if (r->dest[row.cnode] != row.cnode)
            continue;
        double *dst = sev_store_append(to, row.metric, r->new_index[row.cnode]);
        if (!dst)
            return oom(r);
        if (from->row_len)
            memcpy(dst, sev_row_values(from, k), from->row_len * sizeof *dst);
    }
    return sev_store_index(to) != 0 ? oom(r) : 0;
}

/* Pass 1: the rows of the kept call paths, and their exact values. */
static int copy_kept(reshape *r)
{
    cube_t *c = r->c;
    r->rows.row_len = c->sev.row_len;
    r->comp.row_len = c->sev.row_len;
    if (copy_kept_rows(r, &c->sev, &r->rows) != 0)
        return -1;
    for (size_t m = 0; m < c->metrics.count; m++) {
        const cube_metric *met = c->metrics.items[m];
        exact_rows *e = &r->exact[m];
        if (!met->exact)
            continue;
        if (!(e->rows = calloc(1, sizeof *e->rows)))
            return oom(r);
        e->rows->row_len = met->exact->row_len;
        if (cubex_dtype_parse(met->dtype, &e->type) != 0)
            e->lost = 1; /* cannot happen for values read: the reader parsed it */
        if (copy_kept_rows(r, met->exact, e->rows) != 0)
            return -1;
    }
    return 0;
}

/* Can values of this type be folded exactly, component by component? */
static int foldable(cubex_dtype t)
{
    return t.kind == CUBEX_INT64 || t.kind == CUBEX_UINT64 || t.kind == CUBEX_COMPLEX ||
           t.kind == CUBEX_RATE || t.kind == CUBEX_TAU_ATOMIC || t.kind == CUBEX_NDOUBLES;
}

/* The exact bytes of one value given only as a double (a row the reader
 * found exact in its doubles: a 64-bit integer within 2^53). */
static void encode_number(cubex_dtype t, double v, unsigned char *dst)
{
    cubex_value_encode_int(t, (uint64_t)(int64_t)v, dst);
}

/* Start the exact row of fold target `target` (old index) at new index
 * `to`: its own exact values, or its stored numbers, or nothing. */
static int exact_target(reshape *r, const cube_metric *met, exact_rows *e, size_t target,
                        size_t to, unsigned char **acc)
{
    cube_t *c = r->c;
    size_t n = c->sev.row_len, vs = cubex_dtype_size(e->type);
    double *row = sev_store_find(e->rows, met->index, to);
    if (row) {
        *acc = (unsigned char *)row;
        return 0;
    }
    if (!(row = sev_store_get_or_add(e->rows, met->index, to)))
        return oom(r);
    *acc = (unsigned char *)row;
    const unsigned char *own = model_exact_row(met, target);
    if (own) {
        memcpy(*acc, own, n * vs);
        return 0;
    }
    const double *values = cube_get_row(c, met, c->cnodes.items[target]);
    if (values && !cubex_dtype_is_integer(e->type)) {
        e->lost = 1; /* a structured value without its components */
        return 0;
    }
    for (size_t t = 0; t < n; t++) {
        if (values) {
            encode_number(e->type, values[t], *acc + t * vs);
        } else {
            cubex_value_neutral(e->type, r->scratch);
            cubex_value_encode(e->type, r->scratch, *acc + t * vs);
        }
    }
    return 0;
}

/* Fold the exact values of (met, source) into those of its target. */
static int fold_exact(reshape *r, const cube_metric *met, size_t source, const double *values,
                      size_t target, size_t to)
{
    exact_rows *e = &r->exact[met->index];
    if (e->lost || !foldable(e->type) || cube_metric_combine(met) != CUBE_COMBINE_SUM) {
        e->lost = 1;
        return 0;
    }
    unsigned char *acc;
    if (exact_target(r, met, e, target, to, &acc) != 0)
        return -1;
    if (e->lost)
        return 0;
    const unsigned char *src = model_exact_row(met, source);
    size_t n = r->c->sev.row_len, vs = cubex_dtype_size(e->type);
    size_t nc = cubex_dtype_components(e->type);
    double *a = r->scratch, *b = r->scratch + nc;
    if (!src && !cubex_dtype_is_integer(e->type)) {
        e->lost = 1;
        return 0;
    }
    for (size_t t = 0; t < n; t++) {
        unsigned char *v = acc + t * vs;
        if (cubex_dtype_is_integer(e->type)) {
            /* two's complement: the same modular sum for INT64 and UINT64 */
            uint64_t add = src ? cubex_value_int(e->type, 0, src + t * vs)
                               : (uint64_t)(int64_t)values[t];
            cubex_value_encode_int(e->type, cubex_value_int(e->type, 0, v) + add, v);
            continue;
        }
        cubex_value_decode(e->type, 0, v, a);
        cubex_value_decode(e->type, 0, src + t * vs, b);
        if (e->type.kind == CUBEX_NDOUBLES)
            for (size_t k = 0; k < nc; k++)
                a[k] += b[k];
        else
            view_parts_plus(e->type.kind, a, b);
        cubex_value_encode(e->type, a, v);
    }
    e->folded = 1;
    return 0;
}

/* Pass 2: the rows of the folded call paths into their targets'. */
static int fold_rows(reshape *r)
{
    cube_t *c = r->c;
    size_t w = c->sev.row_len;
    for (size_t k = 0; k < c->sev.num_rows; k++) {
        severity_row row = c->sev.rows[k];
        size_t target = r->dest[row.cnode];
        if (target == RESHAPE_DROP || target == row.cnode)
            continue;
        const cube_metric *met = c->metrics.items[row.metric];
        if (model_stored_inclusive(met))
            continue; /* the target's stored value holds it already */
        size_t to = r->new_index[target];
        const double *src = sev_row_values(&c->sev, k);
        double *dst = sev_store_find(&r->rows, row.metric, to);
        int fresh = dst == NULL;
        if (fresh && !(dst = sev_store_get_or_add(&r->rows, row.metric, to)))
            return oom(r);
        cube_combine_rule how = cube_metric_combine(met);
        if (how == CUBE_COMBINE_SUM) {
            double *comp = sev_store_get_or_add(&r->comp, row.metric, to);
            if (!comp)
                return oom(r);
            for (size_t t = 0; t < w; t++)
                view_neu_add(&dst[t], &comp[t], src[t]);
        } else if (fresh) {
            memcpy(dst, src, w * sizeof *dst);
        } else {
            view_pick_row(dst, src, w, how);
        }
        if (met->exact && fold_exact(r, met, row.cnode, src, target, to) != 0)
            return -1;
    }
    return 0;
}

/* Pass 3: the compensations added; the numbers of exact rows folded into
 * taken from their exact values, as the reader takes them. */
static int finish_rows(reshape *r)
{
    cube_t *c = r->c;
    size_t w = c->sev.row_len;
    for (size_t k = 0; k < r->comp.num_rows; k++) {
        severity_row row = r->comp.rows[k];
        double *dst = sev_store_find(&r->rows, row.metric, row.cnode);
        const double *comp = sev_row_values(&r->comp, k);
        for (size_t t = 0; dst && t < w; t++)
            dst[t] = view_neu_result(dst[t], comp[t]);
    }
    for (size_t m = 0; m < c->metrics.count; m++) {
        exact_rows *e = &r->exact[m];
        if (e->lost) {
            if (cube_add_warning(c,
                                 "metric '%s': its %s values cannot be combined exactly where "
                                 "call paths were folded; its exact values are dropped and the "
                                 "folded values are the sums of their numbers",
                                 ((cube_metric *)c->metrics.items[m])->uniq_name,
                                 ((cube_metric *)c->metrics.items[m])->dtype) != 0)
                return oom(r);
            continue;
        }
        if (!e->folded)
            continue;
        size_t vs = cubex_dtype_size(e->type);
        for (size_t k = 0; k < e->rows->num_rows; k++) {
            severity_row row = e->rows->rows[k];
            double *dst = sev_store_find(&r->rows, row.metric, row.cnode);
            const unsigned char *bytes = (const unsigned char *)sev_row_values(e->rows, k);
            for (size_t t = 0; dst && t < w; t++) {
                if (cubex_dtype_is_integer(e->type)) {
                    dst[t] = (double)(int64_t)cubex_value_int(e->type, 0, bytes + t * vs);
                } else {
                    cubex_value_decode(e->type, 0, bytes + t * vs, r->scratch);
                    dst[t] = cubex_value_number(e->type, r->scratch);
                }
            }
        }
    }
    return 0;
}

/* Is kept call path n a root of the new tree: a root already, or its
 * parent dropped (a kept call path's parent is never folded)? */
static int new_root(const size_t *dest, const cube_cnode *n)
{
    return !n->parent || dest[n->parent->index] != n->parent->index;
}

/* Everything is made: put the new tree and rows in place (no allocation
 * fails from here). */
static void commit(reshape *r, void **cnodes, size_t kept, void **roots, size_t num_roots)
{
    cube_t *c = r->c;
    size_t depth_max = 0;
    for (size_t i = 0; i < c->cnodes.count; i++) {
        cube_cnode *n = c->cnodes.items[i];
        if (r->dest[i] != i) {
            free(n->children);
            n->children = NULL;
            n->num_children = n->children_cap = 0;
            continue;
        }
        size_t nc = 0;
        for (size_t k = 0; k < n->num_children; k++)
            if (r->dest[n->children[k]->index] == n->children[k]->index)
                n->children[nc++] = n->children[k];
        n->num_children = nc;
    }
    /* by the old indexes, which dest speaks of: the new roots */
    for (size_t i = 0; i < c->cnodes.count; i++) {
        cube_cnode *n = c->cnodes.items[i];
        if (r->dest[i] == i && new_root(r->dest, n))
            n->parent = NULL;
    }
    /* parents before children: a parent's depth is set before its
     * children's */
    for (size_t i = 0; i < c->cnodes.count; i++) {
        cube_cnode *n = c->cnodes.items[i];
        if (r->dest[i] != i)
            continue;
        n->index = r->new_index[i];
        n->id = (int64_t)n->index;
        n->depth = n->parent ? n->parent->depth + 1 : 0;
        if (n->depth + 1 > depth_max)
            depth_max = n->depth + 1;
    }
    free(c->cnodes.items);
    c->cnodes.items = cnodes;
    c->cnodes.count = c->cnodes.cap = kept;
    free(c->root_cnodes.items);
    c->root_cnodes.items = roots;
    c->root_cnodes.count = c->root_cnodes.cap = num_roots;
    c->cnode_depth_max = depth_max;
    c->next_id[ID_CNODE] = (int64_t)kept;

    sev_store_free(&c->sev);
    c->sev = r->rows;
    r->rows = (severity_store){0};
    atomic_store(&c->rows_indexed, 0);
    for (size_t m = 0; m < c->metrics.count; m++) {
        cube_metric *met = c->metrics.items[m];
        exact_rows *e = &r->exact[m];
        model_drop_exact(met);
        if (e->rows && !e->lost) {
            met->exact = e->rows;
            e->rows = NULL;
        }
    }
}

int call_tree_reshape(cube_t *c, const size_t *dest)
{
    size_t n = c->cnodes.count;
    reshape r = {.c = c, .dest = dest};
    size_t max_components = 2;
    for (size_t m = 0; m < c->metrics.count; m++) {
        cubex_dtype t;
        const cube_metric *met = c->metrics.items[m];
        if (met->exact && cubex_dtype_parse(met->dtype, &t) == 0 &&
            cubex_dtype_components(t) > max_components)
            max_components = cubex_dtype_components(t);
    }
    r.new_index = malloc((n ? n : 1) * sizeof *r.new_index);
    r.exact = calloc(c->metrics.count ? c->metrics.count : 1, sizeof *r.exact);
    r.scratch = malloc(2 * max_components * sizeof *r.scratch);
    if (!r.new_index || !r.exact || !r.scratch) {
        reshape_free(&r);
        return oom(&r);
    }
    size_t kept = 0, num_roots = 0;
    for (size_t i = 0; i < n; i++) {
        if (dest[i] != i)
            continue;
        r.new_index[i] = kept++;
        num_roots += new_root(dest, c->cnodes.items[i]);
    }
    void **cnodes = malloc((kept ? kept : 1) * sizeof *cnodes);
    void **roots = malloc((num_roots ? num_roots : 1) * sizeof *roots);
    if (!cnodes || !roots || copy_kept(&r) != 0 || fold_rows(&r) != 0 ||
        finish_rows(&r) != 0) {
        free(cnodes);
        free(roots);
        if (c->status.code == CUBE_OK)
            oom(&r);
        reshape_free(&r);
        return -1;
    }
    for (size_t i = 0, k = 0, q = 0; i < n; i++) {
        if (dest[i] != i)
            continue;
        cube_cnode *cn = c->cnodes.items[i];
        cnodes[k++] = cn;
        if (new_root(dest, cn))
            roots[q++] = cn;
    }
    commit(&r, cnodes, kept, roots, num_roots);
    reshape_free(&r);
    return 0;
}
