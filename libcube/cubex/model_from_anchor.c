/*
 * model_from_anchor.c - the definitions of a CUBE 4 archive (the records
 * of anchor.c) built into the model (see read_private.h).
 *
 * Every list of the anchor is in document order, parents before their
 * children, and the model's lists keep that order: the model's index of a
 * metric, region, call path, location group or location is its position
 * in the anchor's array.  System tree nodes split into machines (roots)
 * and nodes, so they are mapped through a table.
 */
#include "cubex/read_private.h"

#include <stdlib.h>
#include <string.h>

/* The anchor's enumerations have the model's values. */
_Static_assert((int)CUBEX_METRIC_POSTDERIVED == (int)CUBE_KIND_POSTDERIVED &&
                   (int)CUBEX_METRIC_INCLUSIVE == (int)CUBE_KIND_INCLUSIVE &&
                   (int)CUBEX_METRIC_SIMPLE == (int)CUBE_KIND_SIMPLE,
               "metric kinds");
_Static_assert((int)CUBEX_LG_METRICS == (int)CUBE_GROUP_METRICS &&
                   (int)CUBEX_LG_ACCELERATOR == (int)CUBE_GROUP_ACCELERATOR,
               "location group types");
_Static_assert((int)CUBEX_LOC_GPU == (int)CUBE_LOCATION_GPU &&
                   (int)CUBEX_LOC_METRIC == (int)CUBE_LOCATION_METRIC,
               "location types");

static int add_attrs(cube_t *c, attr_list *dst, const cubex_attrs *src)
{
    for (size_t i = 0; i < src->n; i++)
        if (model_attr_add(c, dst, src->items[i].key, src->items[i].value) != 0)
            return -1;
    return 0;
}

static cube_program *program(cube_t *c, const cubex_cubepl *p)
{
    cube_program *q = model_program_new(c, p->text);
    return q && add_attrs(c, &q->attrs, &p->attrs) == 0 ? q : NULL;
}

/* The names of some metrics, for one warning: "a, b, c, ..." (the first
 * few). */
static void name_list(const cube_t *c, const unsigned char *which, char *buf, size_t len)
{
    size_t used = 0, shown = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->metrics.count && used + 1 < len; i++) {
        if (!which[i])
            continue;
        const cube_metric *m = c->metrics.items[i];
        int n = shown == 5 ? snprintf(buf + used, len - used, ", ...")
                           : snprintf(buf + used, len - used, "%s%s", shown ? ", " : "",
                                      m->uniq_name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
        if (++shown > 5)
            break;
    }
}

static int metrics(cube_t *c, const cubex_anchor *a, const char *file)
{
    size_t derived = 0, unknown = 0, first_unknown = 0;
    unsigned char *is_derived = calloc(a->num_metrics ? a->num_metrics : 1, 1);
    if (!is_derived) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < a->num_metrics; i++) {
        const cubex_metric_def *d = &a->metrics[i];
        cube_metric *parent = d->parent == CUBEX_NONE ? NULL : c->metrics.items[d->parent];
        cube_metric *m = model_add_metric(c, (int64_t)d->id, d->disp_name, d->uniq_name,
                                          d->dtype_text, d->uom, d->val, d->url, d->descr,
                                          parent);
        if (!m)
            goto fail;
        m->kind = (cube_metric_kind)d->type;
        m->ghost = d->ghost;
        m->convertible = (signed char)d->convertible;
        m->cacheable = (signed char)d->cacheable;
        if (model_arena_copy(c, &m->viztype, d->viztype_text) != 0 ||
            (d->cubepl && !(m->expr = program(c, d->cubepl))) ||
            (d->cubeplinit && !(m->init_expr = program(c, d->cubeplinit))) ||
            add_attrs(c, &m->attrs, &d->attrs) != 0)
            goto fail;
        for (size_t k = 0; k < d->num_aggr; k++)
            if (cube_metric_add_aggr_expression(c, m, NULL, d->aggr[k].text) != 0 ||
                add_attrs(c, &m->aggr[m->num_aggr - 1].attrs, &d->aggr[k].attrs) != 0)
                goto fail;
        if (cube_metric_is_derived(m)) {
            is_derived[i] = 1;
            derived++;
        }
        if (!d->dtype_known && !cube_metric_is_derived(m) && !unknown++)
            first_unknown = i;
    }
    char names[512];
    if (derived) {
        name_list(c, is_derived, names, sizeof names);
        if (cube_add_warning(c, "%s: %zu derived metric%s (%s) %s not computed: %s values "
                                "are not shown",
                             file, derived, derived == 1 ? "" : "s", names,
                             derived == 1 ? "is" : "are", derived == 1 ? "its" : "their") != 0)
            goto oom;
    }
    if (unknown) {
        const cubex_metric_def *d = &a->metrics[first_unknown];
        if (cube_add_warning(c, "%s: metric %s: unknown value type \"%s\", read as DOUBLE "
                                "(%zu metric%s of unknown type)",
                             file, d->uniq_name, d->dtype_text, unknown,
                             unknown == 1 ? "" : "s") != 0)
            goto oom;
    }
    free(is_derived);
    return 0;
oom:
    cube_set_error(c, CUBE_ENOMEM, "out of memory");
fail:
    free(is_derived);
    return -1;
}

static int program_tree(cube_t *c, const cubex_anchor *a, unsigned flags)
{
    for (size_t i = 0; i < a->num_regions; i++) {
        const cubex_region_def *d = &a->regions[i];
        cube_region *r = model_add_region(c, d->id, d->name, (long)d->begin, (long)d->end,
                                          d->url, d->descr, d->mod);
        if (!r || model_arena_copy(c, &r->mangled_name, d->mangled_name) != 0 ||
            model_arena_copy(c, &r->paradigm, d->paradigm) != 0 ||
            model_arena_copy(c, &r->role, d->role) != 0 || add_attrs(c, &r->attrs, &d->attrs) != 0)
            return -1;
    }
    if (flags & CUBE_READ_NO_CALL_TREE)
        return 0;
    for (size_t i = 0; i < a->num_cnodes; i++) {
        const cubex_cnode_def *d = &a->cnodes[i];
        cube_cnode *parent = d->parent == CUBEX_NONE ? NULL : c->cnodes.items[d->parent];
        cube_cnode *n = model_add_cnode(c, d->id, c->regions.items[d->region], d->mod,
                                        (long)d->line, parent);
        if (!n || add_attrs(c, &n->attrs, &d->attrs) != 0)
            return -1;
        for (size_t k = 0; k < d->num_params; k++)
            if (cube_cnode_add_param(c, n, d->params[k].key, d->params[k].value,
                                     d->params[k].numeric) != 0)
                return -1;
    }
    return 0;
}

/* A system tree node of the anchor in the model: a machine (a root) or a
 * node. */
typedef struct {
    cube_machine *machine;
    cube_node *node; /* NULL for a root */
} stn_ref;

static int system_tree(cube_t *c, const cubex_anchor *a, const char *file, stn_ref *stn)
{
    for (size_t i = 0; i < a->num_stns; i++) {
        const cubex_stn_def *d = &a->stns[i];
        if (d->parent == CUBEX_NONE) {
            cube_machine *m = model_add_machine(c, d->xml_id, d->name, d->descr);
            if (!m || model_arena_copy(c, &m->klass, d->klass) != 0 ||
                add_attrs(c, &m->attrs, &d->attrs) != 0)
                return -1;
            stn[i] = (stn_ref){m, NULL};
            continue;
        }
        const stn_ref *p = &stn[d->parent];
        cube_node *n = model_add_stn(c, d->xml_id, d->name, p->machine, p->node);
        if (!n || model_arena_copy(c, &n->klass, d->klass) != 0 ||
            model_arena_copy(c, &n->descr, d->descr) != 0 || add_attrs(c, &n->attrs, &d->attrs) != 0)
            return -1;
        stn[i] = (stn_ref){p->machine, n};
    }
    for (size_t i = 0; i < a->num_groups; i++) {
        const cubex_lg_def *d = &a->groups[i];
        cube_node *node = stn[d->stn].node;
        if (!node) {
            /* the model keeps processes on nodes: a machine holds nodes only */
            cube_set_error(c, CUBE_EUNSUPPORTED,
                           "%s: member anchor.xml: location group %s directly below the root "
                           "system tree node %s is not supported",
                           file, d->name, a->stns[d->stn].name);
            return -1;
        }
        cube_process *p = model_add_process(c, d->xml_id, d->name, d->rank, node);
        if (!p || add_attrs(c, &p->attrs, &d->attrs) != 0)
            return -1;
        p->type = (cube_group_type)d->type;
    }
    for (size_t i = 0; i < a->num_locations; i++) {
        const cubex_loc_def *d = &a->locations[i];
        cube_thread *t = model_add_thread(c, d->id, d->name, d->rank, c->processes.items[d->group]);
        if (!t || add_attrs(c, &t->attrs, &d->attrs) != 0)
            return -1;
        t->type = (cube_location_type)d->type;
    }
    return 0;
}

static int topologies(cube_t *c, const cubex_anchor *a, const stn_ref *stn)
{
    for (size_t i = 0; i < a->num_carts; i++) {
        const cubex_cart_def *d = &a->carts[i];
        long n = (long)d->ndims;
        long *dims = malloc(d->ndims * sizeof *dims), *coord = malloc(d->ndims * sizeof *coord);
        int *periods = malloc(d->ndims * sizeof *periods), rc = -1;
        if (!dims || !coord || !periods) {
            cube_set_error(c, CUBE_ENOMEM, "out of memory");
            goto done;
        }
        for (size_t k = 0; k < d->ndims; k++) {
            dims[k] = (long)d->dims[k].size;
            periods[k] = d->dims[k].periodic;
        }
        cube_cartesian *cart = model_add_cart(c, d->name, n, dims, periods);
        if (!cart)
            goto done;
        for (size_t k = 0; k < d->ndims; k++)
            if (d->dims[k].name && cube_cart_set_dim_name(c, cart, (long)k, d->dims[k].name) != 0)
                goto done;
        for (size_t k = 0; k < d->num_coords; k++) {
            const cubex_coord *e = &d->coords[k];
            size_t id = (size_t)e->id; /* checked by the anchor against its list */
            cube_coord_kind kind;
            void *entity;
            switch (e->kind) {
            case CUBEX_COORD_LOCATION:
            case CUBEX_COORD_THREAD:
                kind = CUBE_COORD_THREAD;
                entity = c->threads.items[a->location_by_id[id]];
                break;
            case CUBEX_COORD_GROUP:
            case CUBEX_COORD_PROCESS:
                kind = CUBE_COORD_PROCESS;
                entity = c->processes.items[id];
                break;
            default: /* stnId, nodeId, machId: a system tree node */
                kind = stn[id].node ? CUBE_COORD_NODE : CUBE_COORD_MACHINE;
                entity = stn[id].node ? (void *)stn[id].node : (void *)stn[id].machine;
                break;
            }
            for (size_t j = 0; j < d->ndims; j++)
                coord[j] = (long)e->c[j];
            if (cube_def_coords_of(c, cart, kind, entity, coord) != 0)
                goto done;
        }
        rc = 0;
    done:
        free(dims);
        free(coord);
        free(periods);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int cubex_model_from_anchor(cube_t *c, const cubex_anchor *a, const char *file, unsigned flags)
{
    for (size_t i = 0; i < a->attrs.n; i++)
        if (model_set_attr(c, a->attrs.items[i].key, a->attrs.items[i].value) != 0)
            return -1;
    for (size_t i = 0; i < a->num_mirrors; i++)
        if (model_add_mirror(c, a->mirrors[i]) != 0)
            return -1;
    if (model_set_source(c, CUBE_FORMAT_CUBE4, a->version) != 0 || metrics(c, a, file) != 0 ||
        program_tree(c, a, flags) != 0)
        return -1;
    stn_ref *stn = malloc((a->num_stns ? a->num_stns : 1) * sizeof *stn);
    if (!stn) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    int rc = system_tree(c, a, file, stn) == 0 && topologies(c, a, stn) == 0 ? 0 : -1;
    free(stn);
    if (rc != 0)
        return -1;
    if (a->unknown_elements &&
        cube_add_warning(c, "%s: member anchor.xml: line %ld: unknown element <%s> skipped (%zu "
                            "in the file)",
                         file, a->first_unknown_line, a->first_unknown, a->unknown_elements) != 0)
        goto oom;
    if (a->has_severity &&
        cube_add_warning(c, "%s: member anchor.xml: its <severity> section is not read (the "
                            "values of an archive are its metrics' members)",
                         file) != 0)
        goto oom;
    return 0;
oom:
    cube_set_error(c, CUBE_ENOMEM, "out of memory");
    return -1;
}
