/*
 * view_parts.c - the views of COMPLEX, RATE and TAU_ATOMIC metrics: their
 * values combine by components, and the number a view shows is the one of
 * the combined value, which is not the sum of the numbers of its parts
 * (the magnitude of a complex sum, the quotient of summed mains and
 * durations, the mean of all samples of TAU_ATOMIC).
 *
 *   "+"  COMPLEX, RATE: component-wise sum; TAU_ATOMIC: counts and sums
 *        (of values and of squares) add, the smaller minimum and the larger
 *        maximum are kept.
 *   "-"  COMPLEX, RATE: component-wise difference; TAU_ATOMIC: counts and
 *        sums subtract, the larger minimum and the smaller maximum are
 *        kept (the reference library's rule).
 *
 * The other structured types need no components here: the number of an
 * NDOUBLES value is the sum of its doubles, that of a HISTOGRAM the sum of
 * its bins (re-binning onto a common range keeps the counts) and that of a
 * SCALE_FUNC the function at x = 1 (terms of equal exponents add their
 * coefficients): each is the sum of the numbers of its parts.
 *
 * The components come from the metric's exact values (model_exact_row),
 * which the reader keeps beside the numbers; the view adds the numbers as
 * for every sum, and the components beside them.  A row without exact
 * values (a model made through the API, or changed since reading) leaves
 * the view with the numbers' sums: the components are dropped then.
 *
 * Memory: per call path with data, the components of every value of the
 * row (2 or 5 doubles a value), for the view's metric and each of its
 * child metrics that is a part; such metrics are rare and small.  They
 * are freed when the view is finished; with CUBE_VIEW_COMPONENTS the
 * view keeps the combined components of its rows (the reader of the view
 * combines them further, as a page that sums threads or call paths
 * itself must).
 */
#include "views/view_private.h"
#include "cubex/binary_private.h"

#include <stdlib.h>
#include <string.h>

/* One metric's components: per call path index, NULL (no row) or `width`
 * values of `nc` components each. */
typedef struct {
    const cube_metric *met;
    int stored_inclusive;
    double **rows;
} part_rows;

struct view_parts {
    cubex_dtype type;
    size_t nc;       /* components of one value */
    size_t ncnodes;  /* entries of each rows array */
    size_t num;      /* [0]: the view's metric; then its child metrics that are parts */
    part_rows *m;
    double *comp;    /* one value's components (scratch) */
    double *total;   /* after view_parts_finish: the view's total, width numbers */
    int dropped;     /* a row came without its components */
    /* with CUBE_VIEW_COMPONENTS, after view_parts_finish: per call path
     * with a row, the combined components of its values (width * nc) */
    double **kept;
};

static int parts_type(const cube_metric *met, cubex_dtype *t)
{
    return met && met->dtype && cubex_dtype_parse(met->dtype, t) == 0 &&
           (t->kind == CUBEX_COMPLEX || t->kind == CUBEX_RATE || t->kind == CUBEX_TAU_ATOMIC);
}

int view_has_parts(const cube_metric *met)
{
    cubex_dtype t;
    return parts_type(met, &t);
}

static void free_rows(part_rows *r, size_t ncnodes)
{
    for (size_t i = 0; r->rows && i < ncnodes; i++)
        free(r->rows[i]);
    free(r->rows);
    r->rows = NULL;
}

void view_parts_free(struct view_parts *p)
{
    if (!p)
        return;
    for (size_t j = 0; j < p->num; j++)
        free_rows(&p->m[j], p->ncnodes);
    for (size_t i = 0; p->kept && i < p->ncnodes; i++)
        free(p->kept[i]);
    free(p->kept);
    free(p->m);
    free(p->comp);
    free(p->total);
    free(p);
}

/* The components are of no use any more: the view keeps its numbers. */
static void drop(cube_view *v)
{
    struct view_parts *p = v->parts;
    for (size_t j = 0; j < p->num; j++)
        free_rows(&p->m[j], v->ncnodes);
    p->dropped = 1;
}

int view_parts_new(cube_view *v)
{
    cubex_dtype t;
    v->parts = NULL;
    if (!parts_type(v->metric, &t))
        return 0;
    struct view_parts *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    v->parts = p;
    p->type = t;
    p->nc = cubex_dtype_components(t);
    p->ncnodes = v->ncnodes;
    const cube_metric *met = v->metric;
    size_t n = 1 + (v->metric_flavour == CUBE_METRIC_EXCLUSIVE ? met->num_children : 0);
    p->m = calloc(n, sizeof *p->m);
    p->comp = malloc(p->nc * sizeof *p->comp);
    p->total = malloc((v->width ? v->width : 1) * sizeof *p->total);
    if (!p->m || !p->comp || !p->total)
        return -1;
    if ((v->flags & CUBE_VIEW_COMPONENTS) &&
        !(p->kept = calloc(v->ncnodes ? v->ncnodes : 1, sizeof *p->kept)))
        return -1;
    p->m[p->num++] = (part_rows){met, model_stored_inclusive(met), NULL};
    for (size_t k = 0; n > 1 && k < met->num_children; k++)
        if (view_is_part(met, met->children[k]))
            p->m[p->num++] = (part_rows){met->children[k], model_stored_inclusive(met->children[k]),
                                         NULL};
    for (size_t j = 0; j < p->num; j++)
        if (!(p->m[j].rows = calloc(v->ncnodes ? v->ncnodes : 1, sizeof *p->m[j].rows)))
            return -1;
    return 0;
}

/* a "+"= b and a "-"= b of one value's components */
void view_parts_plus(cubex_kind k, double *a, const double *b)
{
    a[0] += b[0];
    if (k != CUBEX_TAU_ATOMIC) {
        a[1] += b[1];
        return;
    }
    if (b[1] < a[1])
        a[1] = b[1];
    if (b[2] > a[2])
        a[2] = b[2];
    a[3] += b[3];
    a[4] += b[4];
}

static void minus(cubex_kind k, double *a, const double *b)
{
    a[0] -= b[0];
    if (k != CUBEX_TAU_ATOMIC) {
        a[1] -= b[1];
        return;
    }
    if (b[1] > a[1])
        a[1] = b[1];
    if (b[2] < a[2])
        a[2] = b[2];
    a[3] -= b[3];
    a[4] -= b[4];
}

/* n values of components, each the neutral value */
static void set_neutral(const struct view_parts *p, double *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cubex_value_neutral(p->type, values + i * p->nc);
}

/* Row i of r, created neutral when absent; NULL when out of memory. */
static double *row_at(const cube_view *v, part_rows *r, size_t i)
{
    if (!r->rows[i]) {
        size_t w = v->width ? v->width : 1;
        if (!(r->rows[i] = malloc(w * v->parts->nc * sizeof(double))))
            return NULL;
        set_neutral(v->parts, r->rows[i], w);
    }
    return r->rows[i];
}

/* a "+"= b or a "-"= b for `w` values */
static void combine_row(const struct view_parts *p, double *a, const double *b, size_t w, int sub)
{
    for (size_t t = 0; t < w; t++)
        (sub ? minus : view_parts_plus)(p->type.kind, a + t * p->nc, b + t * p->nc);
}

int view_parts_add_row(cube_view *v, const cube_metric *met, const cube_cnode *cnode,
                       const double *values)
{
    struct view_parts *p = v->parts;
    if (p->dropped)
        return 0;
    part_rows *r = NULL;
    for (size_t j = 0; j < p->num && !r; j++)
        if (p->m[j].met == met)
            r = &p->m[j];
    if (!r)
        return 0; /* not a part (cube_view_wants) */
    const unsigned char *bytes = model_exact_row(met, cnode->index);
    size_t vs = cubex_dtype_size(p->type);
    if (!bytes) {
        drop(v);
        return 0;
    }
    double *row = row_at(v, r, cnode->index);
    if (!row)
        return -1;
    for (size_t t = 0; t < v->nthreads; t++) {
        cubex_value_decode(p->type, 0, bytes + t * vs, p->comp);
        /* exact values that are not those of the row given are stale */
        double x = cubex_value_number(p->type, p->comp);
        if (!(x == values[t] || (isnan(x) && isnan(values[t])))) {
            drop(v);
            return 0;
        }
        view_parts_plus(p->type.kind, row + (v->width == 1 ? 0 : t * p->nc), p->comp);
    }
    return 0;
}

/* The rows of r turned from what they store into the call flavour `to`
 * (as convert() in view_trees.c does with numbers).  0 or -1. */
static int convert(cube_view *v, part_rows *r, cube_call_flavour to)
{
    /* up: each subtree added to its parent, children before parents
     * (reverse index order); down: each call path taken away from its
     * parent while it still holds its inclusive value (index order) */
    int up = !r->stored_inclusive && to == CUBE_CALL_INCLUSIVE;
    int down = r->stored_inclusive && to == CUBE_CALL_EXCLUSIVE;
    for (size_t k = 0; (up || down) && k < v->ncnodes; k++) {
        size_t i = up ? v->ncnodes - 1 - k : k;
        const cube_cnode *cn = cube_get_cnode(v->defs, i);
        double *parent;
        if (!r->rows[i] || !cn->parent)
            continue;
        if (!(parent = row_at(v, r, cn->parent->index)))
            return -1;
        combine_row(v->parts, parent, r->rows[i], v->width, down);
    }
    return 0;
}

/* into acc (w values, neutral at first): "+" of every row of r that counts
 * in the total: the roots' rows of call-inclusive values, every row of
 * call-exclusive ones */
static void total_of(const cube_view *v, const part_rows *r, double *acc)
{
    size_t w = v->width;
    set_neutral(v->parts, acc, w);
    if (v->rows_flavour == CUBE_CALL_INCLUSIVE) {
        for (size_t k = 0; k < cube_num_root_cnodes(v->defs); k++) {
            const double *row = r->rows[cube_get_root_cnode(v->defs, k)->index];
            if (row)
                combine_row(v->parts, acc, row, w, 0);
        }
    } else {
        for (size_t i = 0; i < v->ncnodes; i++)
            if (r->rows[i])
                combine_row(v->parts, acc, r->rows[i], w, 0);
    }
}

int view_parts_finish(cube_view *v)
{
    struct view_parts *p = v->parts;
    if (p->dropped)
        return 0;
    size_t w = v->width, nc = p->nc;
    double *res = malloc((w ? w : 1) * nc * sizeof *res);
    double *sub = malloc((w ? w : 1) * nc * sizeof *sub);
    int rc = res && sub ? 0 : -1;
    for (size_t j = 0; rc == 0 && j < p->num; j++)
        rc = convert(v, &p->m[j], v->rows_flavour);
    /* the metric's own values "-" each part's, call path by call path */
    for (size_t i = 0; rc == 0 && i < v->ncnodes; i++) {
        int any = 0;
        for (size_t j = 0; j < p->num; j++)
            any |= p->m[j].rows[i] != NULL;
        if (!any)
            continue;
        if (p->m[0].rows[i])
            memcpy(res, p->m[0].rows[i], w * nc * sizeof *res);
        else
            set_neutral(p, res, w);
        for (size_t j = 1; j < p->num; j++)
            if (p->m[j].rows[i])
                combine_row(p, res, p->m[j].rows[i], w, 1);
        if (!v->rows[i]) {
            if (!(v->rows[i] = malloc((w ? w : 1) * sizeof *v->rows[i]))) {
                rc = -1;
                break;
            }
            v->num_rows++;
        }
        for (size_t t = 0; t < w; t++)
            v->rows[i][t] = cubex_value_number(p->type, res + t * nc);
        if (p->kept) {
            if (!(p->kept[i] = malloc((w ? w : 1) * nc * sizeof *res))) {
                rc = -1;
                break;
            }
            memcpy(p->kept[i], res, w * nc * sizeof *res);
        }
    }
    /* the total: the metric's combined value "-" each part's */
    if (rc == 0) {
        total_of(v, &p->m[0], res);
        for (size_t j = 1; j < p->num; j++) {
            total_of(v, &p->m[j], sub);
            combine_row(p, res, sub, w, 1);
        }
        for (size_t t = 0; t < w; t++)
            p->total[t] = cubex_value_number(p->type, res + t * nc);
    }
    free(res);
    free(sub);
    for (size_t j = 0; j < p->num; j++)
        free_rows(&p->m[j], v->ncnodes);
    return rc;
}

const double *view_parts_kept(const cube_view *v, size_t cnode, size_t *nc)
{
    const struct view_parts *p = v->parts;
    if (!p || p->dropped || !p->kept)
        return NULL;
    *nc = p->nc;
    return cnode < p->ncnodes ? p->kept[cnode] : NULL;
}

int view_parts_total(const cube_view *v, double *out)
{
    const struct view_parts *p = v->parts;
    if (!p || p->dropped)
        return 0;
    memcpy(out, p->total, v->width * sizeof *out);
    return 1;
}
