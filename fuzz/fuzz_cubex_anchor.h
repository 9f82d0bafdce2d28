/*
 * fuzz_cubex_anchor.h - what every anchor.xml the library accepts must
 * satisfy (parents before children, references in range, location ids a
 * permutation, coordinates inside their dimensions), and the error model
 * of a refusal; abort() on a violation.  Shared by the anchor and the
 * archive harnesses, each a harness of library internals (the private
 * cubex layer, which has no public interface of its own), built with
 * -Ilibcube.
 */
#ifndef FUZZ_CUBEX_ANCHOR_H
#define FUZZ_CUBEX_ANCHOR_H

#include "cubex/anchor_private.h"

#include <stdlib.h>
#include <string.h>

static void fuzz_check_attrs(const cubex_attrs *at)
{
    for (size_t i = 0; i < at->n; i++)
        if (!at->items[i].key || !at->items[i].value)
            abort();
}

static void fuzz_check_tree(const cubex_anchor *a)
{
    for (size_t i = 0; i < a->num_metrics; i++) {
        const cubex_metric_def *m = &a->metrics[i];
        if ((m->parent != CUBEX_NONE && m->parent >= i) || !m->uniq_name || !m->dtype_text
            || (m->num_aggr && !m->aggr) || cubex_dtype_size(m->dtype) == 0)
            abort();
        fuzz_check_attrs(&m->attrs);
    }
    for (size_t i = 0; i < a->num_regions; i++)
        if (!a->regions[i].name || !a->regions[i].mangled_name || !a->regions[i].paradigm)
            abort();
    for (size_t i = 0; i < a->num_cnodes; i++) {
        const cubex_cnode_def *c = &a->cnodes[i];
        if ((c->parent != CUBEX_NONE && c->parent >= i) || c->region >= a->num_regions || !c->mod)
            abort();
        for (size_t k = 0; k < c->num_params; k++)
            if (!c->params[k].key || !c->params[k].value)
                abort();
    }
    for (size_t i = 0; i < a->num_stns; i++)
        if ((a->stns[i].parent != CUBEX_NONE && a->stns[i].parent >= i) || !a->stns[i].name)
            abort();
    for (size_t i = 0; i < a->num_groups; i++)
        if (a->groups[i].stn >= a->num_stns || a->groups[i].rank < 0)
            abort();
}

static void fuzz_check_anchor(const cubex_anchor *a, const cube_status *st)
{
    if (!a) {
        if (st->code == CUBE_OK || !st->message[0] || strchr(st->message, '\n'))
            abort();
        return;
    }
    if (st->code != CUBE_OK || st->message[0] || !a->version)
        abort();
    fuzz_check_tree(a);
    for (size_t i = 0; i < a->num_locations; i++) {
        const cubex_loc_def *l = &a->locations[i];
        if (l->group >= a->num_groups || cubex_anchor_location(a, l->id) != i)
            abort();
    }
    for (size_t i = 0; i < a->num_carts; i++) {
        const cubex_cart_def *c = &a->carts[i];
        for (size_t k = 0; k < c->num_coords; k++)
            for (size_t d = 0; d < c->ndims; d++)
                if (c->coords[k].c[d] < 0 || c->coords[k].c[d] >= c->dims[d].size)
                    abort();
    }
}

#endif
