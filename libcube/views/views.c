/*
 * views.c - values computed from the stored severities.
 */
#include "core/cube_private.h"
#include "views/view_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cube_metric_totals(const cube_t *c, double *totals, cube_status *status)
{
    if (!c || !totals) {
        status_set(status, CUBE_EINVAL,
                   "cube_metric_totals needs an experiment and a place for the totals");
        return -1;
    }
    size_t nm = c->metrics.count, nthreads = c->threads.count;
    view_combiner *k = calloc(nm ? nm : 1, sizeof *k);
    if (!k) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    for (size_t m = 0; m < nm; m++)
        k[m].how = cube_metric_combine(c->metrics.items[m]);
    /* Rows in creation order (file order): the same file always sums in the
     * same order, and no sorted copy of the row list is needed.  Only stored
     * rows take part: a maximum or minimum over no row is 0.  A metric
     * stored call-tree inclusive holds everything in its roots' rows. */
    for (size_t r = 0; r < c->sev.num_rows; r++) {
        const severity_row *row = &c->sev.rows[r];
        const cube_metric *met = c->metrics.items[row->metric];
        if (met->kind != CUBE_KIND_EXCLUSIVE && model_stored_inclusive(met) &&
            ((const cube_cnode *)c->cnodes.items[row->cnode])->parent)
            continue;
        const double *values = sev_row_values(&c->sev, r);
        for (size_t t = 0; t < nthreads; t++)
            view_combiner_add(&k[row->metric], values[t]);
    }
    /* a derived metric's values are not computed: not a number, never 0 */
    for (size_t m = 0; m < nm; m++)
        totals[m] = cube_metric_is_derived(c->metrics.items[m]) ? NAN
                                                               : view_combiner_result(&k[m]);
    free(k);
    status_ok(status);
    return 0;
}
