/*
 * views.c - values computed from the stored severities.
 */
#include "cube_internal.h"
#include "view_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cube_metric_totals(const cube_t *c, double *totals)
{
    size_t nm = c->metrics.count, nthreads = c->threads.count;
    double *compensation = calloc(nm ? nm : 1, sizeof *compensation);
    if (!compensation)
        return -1;
    memset(totals, 0, nm * sizeof *totals);
    /* Rows in creation order (file order): the same file always sums in the
     * same order, and no sorted copy of the row list is needed. */
    for (size_t k = 0; k < c->sev.num_rows; k++) {
        const severity_row *r = &c->sev.rows[k];
        const double *values = sev_row_values(&c->sev, k);
        for (size_t t = 0; t < nthreads; t++)
            view_neu_add(&totals[r->metric], &compensation[r->metric], values[t]);
    }
    for (size_t m = 0; m < nm; m++)
        totals[m] = view_neu_result(totals[m], compensation[m]);
    free(compensation);
    return 0;
}
