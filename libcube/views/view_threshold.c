/*
 * view_threshold.c - thresholds on the call tree: which call paths reach a
 * percentage of the metric's root value, and the values of the call paths
 * kept with the subtrees left out folded into them (cube_views.h).
 *
 * Both are one pass over the call paths in index order or in reverse index
 * order (a parent always comes before its children), never a recursion:
 * call trees can be 100 000 deep.
 */
#include "views/view_private.h"

#include "core/status_private.h"

int cube_value_reaches(cube_combine_rule how, double value, double root, double percent)
{
    if (isnan(value) || isnan(root) || isnan(percent))
        return 0;
    /* a maximum or minimum nothing contributed to has no value */
    if (how != CUBE_COMBINE_SUM && (value == view_neutral(how) || root == view_neutral(how)))
        return 0;
    return fabs(value) >= percent / 100.0 * fabs(root);
}

/* Is `v` a finished aggregated view in `flavour`?  Else -1 with `status`
 * naming `func`. */
static int check_view(const cube_view *v, cube_call_flavour flavour, const char *what,
                      const char *func, cube_status *status)
{
    if (!v) {
        status_set(status, CUBE_EINVAL, "%s: no %s view", func, what);
        return -1;
    }
    if (v->finished != 1) {
        status_set(status, CUBE_ESTATE, "%s: the %s view is not finished", func, what);
        return -1;
    }
    if (v->width != 1 || v->call_flavour != flavour) {
        status_set(status, CUBE_EINVAL, "%s: the %s view must be aggregated and call-%s", func,
                   what, what);
        return -1;
    }
    return 0;
}

int cube_view_threshold(const cube_view *incl, double percent, unsigned char *keep,
                        size_t *num_kept, cube_status *status)
{
    status_ok(status);
    if (check_view(incl, CUBE_CALL_INCLUSIVE, "inclusive", "cube_view_threshold", status) != 0)
        return -1;
    if (!keep || isnan(percent) || percent < 0) {
        status_set(status, CUBE_EINVAL, "cube_view_threshold: %s",
                   keep ? "the percentage must be a number >= 0" : "no output array");
        return -1;
    }
    double root;
    if (cube_view_total(incl, &root, status) != 0)
        return -1;
    size_t n = incl->ncnodes, kept = 0;
    for (size_t i = 0; i < n; i++) {
        const double *row = incl->rows[i];
        keep[i] = (unsigned char)(row && cube_value_reaches(incl->combine, row[0], root,
                                                            percent));
    }
    /* children before parents: a kept call path keeps its ancestors, so
     * that what is kept is a tree again */
    for (size_t i = n; i-- > 0;) {
        if (!keep[i])
            continue;
        kept++;
        const cube_cnode *parent = cube_cnode_parent(cube_get_cnode(incl->defs, i));
        if (parent)
            keep[cube_cnode_index(parent)] = 1;
    }
    if (num_kept)
        *num_kept = kept;
    return 0;
}

int cube_view_fold(const cube_view *excl, const cube_view *incl, const unsigned char *keep,
                   double *out, cube_status *status)
{
    status_ok(status);
    if (check_view(excl, CUBE_CALL_EXCLUSIVE, "exclusive", "cube_view_fold", status) != 0 ||
        check_view(incl, CUBE_CALL_INCLUSIVE, "inclusive", "cube_view_fold", status) != 0)
        return -1;
    if (excl->defs != incl->defs || excl->metric != incl->metric ||
        excl->metric_flavour != incl->metric_flavour) {
        status_set(status, CUBE_EINVAL,
                   "cube_view_fold: the views are not of one metric in one metric flavour");
        return -1;
    }
    if (!keep || !out) {
        status_set(status, CUBE_EINVAL, "cube_view_fold: no %s array", keep ? "output" : "keep");
        return -1;
    }
    const cube_t *c = excl->defs;
    size_t n = excl->ncnodes;
    cube_combine_rule how = excl->combine;
    for (size_t i = 0; i < n; i++) {
        const double *row = excl->rows[i];
        out[i] = row ? row[0] : view_neutral(how);
        if (!keep[i])
            continue;
        const cube_cnode *cn = cube_get_cnode(c, i);
        size_t nch = cube_cnode_num_children(cn);
        view_combiner k = {how, 0.0, 0.0, 0};
        int folded = 0;
        if (row)
            view_combiner_add(&k, row[0]);
        for (size_t j = 0; j < nch; j++) {
            size_t ci = cube_cnode_index(cube_cnode_child(cn, j));
            if (keep[ci] || !incl->rows[ci])
                continue;
            view_combiner_add(&k, incl->rows[ci][0]);
            folded = 1;
        }
        if (folded) {
            out[i] = view_combiner_result(&k);
            view_wrap_values(&out[i], 1, excl->wrap_bits, excl->wrap_signed);
        }
    }
    return 0;
}
