/*
 * query.c - walking the dimensions and looking up severity rows.
 */
#include "core/cube_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each dimension list is a ptr_list; one macro states the pair of
 * count/get functions so that all lists behave alike (NULL past the end). */
#define LIST_ACCESSORS(type, count_fn, get_fn, field)                                        \
    size_t count_fn(const cube_t *c) { return c->field.count; }                              \
    type *get_fn(const cube_t *c, size_t i)                                                  \
    {                                                                                        \
        return i < c->field.count ? c->field.items[i] : NULL;                                \
    }

LIST_ACCESSORS(cube_metric, cube_num_metrics, cube_get_metric, metrics)
LIST_ACCESSORS(cube_metric, cube_num_root_metrics, cube_get_root_metric, root_metrics)
LIST_ACCESSORS(cube_region, cube_num_regions, cube_get_region, regions)
LIST_ACCESSORS(cube_cnode, cube_num_cnodes, cube_get_cnode, cnodes)
LIST_ACCESSORS(cube_cnode, cube_num_root_cnodes, cube_get_root_cnode, root_cnodes)
LIST_ACCESSORS(cube_machine, cube_num_machines, cube_get_machine, machines)
LIST_ACCESSORS(cube_node, cube_num_nodes, cube_get_node, nodes)
LIST_ACCESSORS(cube_process, cube_num_processes, cube_get_process, processes)
LIST_ACCESSORS(cube_thread, cube_num_threads, cube_get_thread, threads)
LIST_ACCESSORS(cube_cartesian, cube_num_carts, cube_get_cart, carts)

size_t cube_num_attrs(const cube_t *c)
{
    return c->attrs.count;
}

const char *cube_attr_key(const cube_t *c, size_t i)
{
    return i < c->attrs.count ? ((cube_attr *)c->attrs.items[i])->key : NULL;
}

const char *cube_attr_value(const cube_t *c, size_t i)
{
    return i < c->attrs.count ? ((cube_attr *)c->attrs.items[i])->value : NULL;
}

const char *cube_get_attr(const cube_t *c, const char *key)
{
    for (size_t i = 0; i < c->attrs.count; i++) {
        cube_attr *a = c->attrs.items[i];
        if (strcmp(a->key, key) == 0)
            return a->value;
    }
    return NULL;
}

size_t cube_num_mirrors(const cube_t *c)
{
    return c->mirrors.count;
}

const char *cube_mirror(const cube_t *c, size_t i)
{
    return i < c->mirrors.count ? c->mirrors.items[i] : NULL;
}

cube_metric *cube_find_metric(const cube_t *c, const char *uniq_name)
{
    for (size_t i = 0; i < c->metrics.count; i++) {
        cube_metric *m = c->metrics.items[i];
        if (strcmp(m->uniq_name, uniq_name) == 0)
            return m;
    }
    return NULL;
}

cube_metric *cube_find_metric_named(const cube_t *c, const char *name, size_t *num_matches)
{
    cube_metric *found = cube_find_metric(c, name);
    size_t n = found ? 1 : 0;
    if (!found) {
        /* by display name, every metric that has it counted: a display
         * name that several metrics share names none of them */
        for (size_t i = 0; i < c->metrics.count; i++) {
            cube_metric *m = c->metrics.items[i];
            if (strcmp(m->disp_name, name) == 0 && n++ == 0)
                found = m;
        }
    }
    if (num_matches)
        *num_matches = n;
    return n == 1 ? found : NULL;
}

size_t cube_metric_name_candidates(const cube_t *c, const char *name, char *buf, size_t len)
{
    size_t n = 0, used = 0;
    int cut = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < c->metrics.count; i++) {
        const cube_metric *m = c->metrics.items[i];
        if (strcmp(m->disp_name, name) != 0)
            continue;
        const char *sep = n++ ? ", " : "";
        size_t need = strlen(sep) + strlen(m->uniq_name);
        if (cut || !len)
            continue;
        if (used + need + 4 > len) { /* room for "..." and the terminator */
            if (used + 4 <= len)
                memcpy(buf + used, "...", 4);
            cut = 1;
            continue;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%s", sep, m->uniq_name);
    }
    return n;
}

/* Bring the row index of a handle up to date (see rows_indexed in
 * cube_private.h): the only change made through a const handle, and made
 * under its lock.  0 once the index is complete and published; -1 when
 * there was no memory for it. */
static int index_rows(const cube_t *c)
{
    cube_t *w = (cube_t *)c; /* the lock and the flag serialise this */
    pthread_mutex_lock(&w->index_lock);
    int rc = 0;
    if (!atomic_load_explicit(&w->rows_indexed, memory_order_relaxed)) {
        rc = sev_store_index(&w->sev);
        if (rc == 0)
            atomic_store_explicit(&w->rows_indexed, 1, memory_order_release);
    }
    pthread_mutex_unlock(&w->index_lock);
    return rc;
}

const double *cube_get_row(const cube_t *c, const cube_metric *met, const cube_cnode *cnode)
{
    if (!atomic_load_explicit(&c->rows_indexed, memory_order_acquire) && index_rows(c) != 0) {
        /* no memory for the index: the rows not in it are searched one by
         * one, under the lock (another thread may be retrying the index) */
        cube_t *w = (cube_t *)c;
        pthread_mutex_lock(&w->index_lock);
        const double *row = sev_store_find(&c->sev, met->index, cnode->index);
        pthread_mutex_unlock(&w->index_lock);
        return row;
    }
    return sev_store_find(&c->sev, met->index, cnode->index);
}

double cube_get_sev(const cube_t *c, const cube_metric *met, const cube_cnode *cnode,
                    const cube_thread *thrd)
{
    const double *row = cube_get_row(c, met, cnode);
    return row ? row[thrd->index] : 0.0;
}

size_t cube_num_rows(const cube_t *c)
{
    return c->sev.num_rows;
}

const double *cube_row_at(const cube_t *c, size_t i, cube_metric **met, cube_cnode **cnode)
{
    if (i >= c->sev.num_rows)
        return NULL;
    const severity_row *r = &c->sev.rows[i];
    if (met)
        *met = c->metrics.items[r->metric];
    if (cnode)
        *cnode = c->cnodes.items[r->cnode];
    return sev_row_values(&c->sev, i);
}

int cube_set_row(cube_t *c, const cube_metric *met, const cube_cnode *cnode,
                 const double *values)
{
    if (!c)
        return -1;
    cube_clear_error(c);
    if (!met || !cnode || !values) {
        cube_set_error(c, CUBE_EINVAL, "cube_set_row needs a metric, a call-tree node and values");
        return -1;
    }
    if (met->is_void)
        return 0;
    double *row = model_row_for_update(c, met, cnode);
    if (!row)
        return -1;
    memcpy(row, values, c->threads.count * sizeof *row);
    return 0;
}

/* A mirror is only used through "@mirror@" prefixes of metric and region
 * URLs: when none has one, the mirror list is dead weight. */
static int mirrors_referenced(const cube_t *c)
{
    for (size_t i = 0; i < c->metrics.count; i++)
        if (strstr(((cube_metric *)c->metrics.items[i])->url, "@mirror@"))
            return 1;
    for (size_t i = 0; i < c->regions.count; i++)
        if (strstr(((cube_region *)c->regions.items[i])->url, "@mirror@"))
            return 1;
    return 0;
}

int cube_prune(cube_t *c, size_t *num_dropped)
{
    if (!c)
        return -1;
    cube_clear_error(c);
    size_t nregions = c->regions.count;
    /* taken before anything changes, so that a failure leaves the model
     * as it was */
    unsigned char *used = calloc(nregions ? nregions : 1, 1);
    if (!used) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    if (!mirrors_referenced(c)) {
        for (size_t i = 0; i < c->mirrors.count; i++)
            free(c->mirrors.items[i]);
        c->mirrors.count = 0;
    }

    for (size_t i = 0; i < c->cnodes.count; i++)
        used[((cube_cnode *)c->cnodes.items[i])->callee->index] = 1;
    size_t kept = 0;
    for (size_t i = 0; i < nregions; i++) {
        cube_region *r = c->regions.items[i];
        if (used[i]) {
            r->index = kept;
            c->regions.items[kept++] = r;
        } else {
            free(r->name);
            free(r->mod);
            free(r->url);
            free(r->descr);
            free(r);
        }
    }
    c->regions.count = kept;
    free(used);
    if (num_dropped)
        *num_dropped = nregions - kept;
    return 0;
}
