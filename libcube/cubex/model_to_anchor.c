/*
 * model_to_anchor.c - the definitions of an experiment as CUBE 4 anchor
 * records (anchor_private.h), the form the anchor.xml writer takes.
 *
 * The records follow the document order a CUBE 4 file must have: parents
 * before children everywhere, call paths and system tree nodes in tree
 * pre-order (a model built through the API may have created them
 * interleaved), and within a system tree node its location groups before
 * its child nodes.  Ids: metric ids name the data members and stay; region
 * and call path ids stay; system tree nodes and location groups are
 * numbered in document order (CUBE 4 ignores their ids); a location's id
 * is its data column, the thread's index.
 */
#include "cubex/model_to_anchor_private.h"
#include "core/cube_private.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    cube_t *c;
    cubex_anchor *a;
    cube_status *status;
    int failed;
    size_t *cnode_pos;   /* model cnode index -> record index */
    size_t *group_pos;   /* model process index -> record index */
    size_t *machine_pos; /* model machine index -> stn record index */
    size_t *node_pos;    /* model node index -> stn record index */
    size_t *column;      /* model thread index -> location id (data column) */
} builder;

static void *fail_oom(builder *b)
{
    if (!b->failed)
        status_set(b->status, CUBE_ENOMEM, "out of memory");
    b->failed = 1;
    return NULL;
}

/* A copy of text in the records' arena; NULL stays NULL. */
static char *copy(builder *b, const char *text)
{
    if (!text || b->failed)
        return NULL;
    char *s = arena_strdup(&b->a->strings, text);
    return s ? s : fail_oom(b);
}

/* "" for an empty or absent text: the records say "absent" with NULL only
 * where the format distinguishes it. */
static char *copy_text(builder *b, const char *text)
{
    return copy(b, text ? text : "");
}

static void *alloc_array(builder *b, size_t n, size_t size)
{
    if (b->failed || n == 0)
        return NULL;
    void *p = calloc(n, size);
    return p ? p : fail_oom(b);
}

static void *arena_array(builder *b, size_t n, size_t size, size_t align)
{
    if (b->failed || n == 0)
        return NULL;
    if (n > SIZE_MAX / size)
        return fail_oom(b);
    void *p = arena_alloc(&b->a->strings, n * size, align);
    if (!p)
        return fail_oom(b);
    memset(p, 0, n * size);
    return p;
}

static cubex_attrs copy_attrs(builder *b, const attr_list *l)
{
    cubex_attrs out = {0};
    out.items = arena_array(b, l->count, sizeof *out.items, _Alignof(cubex_attr));
    if (!out.items)
        return out;
    for (size_t i = 0; i < l->count; i++) {
        out.items[i].key = copy_text(b, l->items[i].key);
        out.items[i].value = copy_text(b, l->items[i].value);
    }
    out.n = l->count;
    return out;
}

static cubex_cubepl *copy_program(builder *b, const cube_program *p)
{
    if (!p)
        return NULL;
    cubex_cubepl *out = arena_array(b, 1, sizeof *out, _Alignof(cubex_cubepl));
    if (out) {
        out->text = copy_text(b, p->text);
        out->attrs = copy_attrs(b, &p->attrs);
    }
    return out;
}

static const cubex_metric_type kind_to_type[] = {
    [CUBE_KIND_EXCLUSIVE] = CUBEX_METRIC_EXCLUSIVE,
    [CUBE_KIND_INCLUSIVE] = CUBEX_METRIC_INCLUSIVE,
    [CUBE_KIND_SIMPLE] = CUBEX_METRIC_SIMPLE,
    [CUBE_KIND_PREDERIVED_EXCLUSIVE] = CUBEX_METRIC_PREDERIVED_EXCLUSIVE,
    [CUBE_KIND_PREDERIVED_INCLUSIVE] = CUBEX_METRIC_PREDERIVED_INCLUSIVE,
    [CUBE_KIND_POSTDERIVED] = CUBEX_METRIC_POSTDERIVED};

static void add_metrics(builder *b)
{
    const cube_t *c = b->c;
    cubex_anchor *a = b->a;
    a->metrics = alloc_array(b, c->metrics.count, sizeof *a->metrics);
    /* the model's metrics are in definition order, each after its parent */
    for (size_t i = 0; !b->failed && i < c->metrics.count; i++) {
        const cube_metric *m = c->metrics.items[i];
        cubex_metric_def *d = &a->metrics[i];
        d->id = (uint64_t)m->id;
        d->parent = m->parent ? m->parent->index : CUBEX_NONE;
        d->type = (unsigned)m->kind < sizeof kind_to_type / sizeof kind_to_type[0]
                      ? kind_to_type[m->kind]
                      : CUBEX_METRIC_EXCLUSIVE;
        d->ghost = m->ghost;
        d->viztype_text = m->ghost ? copy(b, "GHOST") : copy(b, m->viztype);
        d->convertible = m->convertible;
        d->cacheable = m->cacheable;
        d->disp_name = copy_text(b, m->disp_name);
        d->uniq_name = copy_text(b, m->uniq_name);
        d->dtype_text = copy_text(b, m->dtype);
        d->dtype_known = cubex_dtype_parse(m->dtype, &d->dtype) == 0;
        if (!d->dtype_known)
            d->dtype = (cubex_dtype){CUBEX_DOUBLE, 0};
        d->uom = copy_text(b, m->uom);
        d->val = m->val && *m->val ? copy(b, m->val) : NULL;
        d->url = copy_text(b, m->url);
        d->descr = copy_text(b, m->descr);
        d->cubepl = copy_program(b, m->expr);
        d->cubeplinit = copy_program(b, m->init_expr);
        d->aggr = arena_array(b, m->num_aggr, sizeof *d->aggr, _Alignof(cubex_cubepl));
        for (size_t k = 0; d->aggr && k < m->num_aggr; k++) {
            d->aggr[k].text = copy_text(b, m->aggr[k].text);
            d->aggr[k].attrs = copy_attrs(b, &m->aggr[k].attrs);
        }
        d->num_aggr = d->aggr ? m->num_aggr : 0;
        d->attrs = copy_attrs(b, &m->attrs);
    }
    a->num_metrics = b->failed ? 0 : c->metrics.count;
}

static void add_regions(builder *b)
{
    const cube_t *c = b->c;
    cubex_anchor *a = b->a;
    a->regions = alloc_array(b, c->regions.count, sizeof *a->regions);
    for (size_t i = 0; !b->failed && i < c->regions.count; i++) {
        const cube_region *r = c->regions.items[i];
        cubex_region_def *d = &a->regions[i];
        d->id = r->id;
        d->name = copy_text(b, r->name);
        d->mangled_name = copy_text(b, r->mangled_name ? r->mangled_name : r->name);
        d->mod = copy_text(b, r->mod);
        d->begin = r->begin_line;
        d->end = r->end_line;
        d->paradigm = copy_text(b, r->paradigm ? r->paradigm : "unknown");
        d->role = copy_text(b, r->role ? r->role : "unknown");
        d->url = copy_text(b, r->url);
        d->descr = copy_text(b, r->descr);
        d->attrs = copy_attrs(b, &r->attrs);
    }
    a->num_regions = b->failed ? 0 : c->regions.count;
}

static void add_cnode(builder *b, const cube_cnode *n, size_t parent_pos)
{
    cubex_anchor *a = b->a;
    size_t pos = a->num_cnodes++;
    b->cnode_pos[n->index] = pos;
    cubex_cnode_def *d = &a->cnodes[pos];
    d->id = n->id;
    d->parent = parent_pos;
    d->region = n->callee->index;
    d->line = n->line;
    d->mod = copy_text(b, n->mod);
    d->params = arena_array(b, n->num_params, sizeof *d->params, _Alignof(cubex_param));
    for (size_t k = 0; d->params && k < n->num_params; k++) {
        d->params[k].numeric = n->params[k].numeric;
        d->params[k].key = copy_text(b, n->params[k].key);
        d->params[k].value = copy_text(b, n->params[k].value);
    }
    d->num_params = d->params ? n->num_params : 0;
    d->attrs = copy_attrs(b, &n->attrs);
}

/* The call tree in pre-order, without recursion: a million call paths
 * may be a million levels deep in a hostile file. */
static void add_cnodes(builder *b)
{
    cube_t *c = b->c;
    cubex_anchor *a = b->a;
    a->cnodes = alloc_array(b, c->cnodes.count, sizeof *a->cnodes);
    if (b->failed || c->cnodes.count == 0)
        return;
    cube_tree_walk *w = cube_tree_walk_start(c);
    if (!w) {
        fail_oom(b);
        return;
    }
    const cube_cnode *n;
    size_t level;
    while (!b->failed && (n = cube_tree_walk_next(w, &level)))
        add_cnode(b, n, n->parent ? b->cnode_pos[n->parent->index] : CUBEX_NONE);
    cube_tree_walk_free(w);
}

static size_t add_stn(builder *b, size_t parent, const char *name, const char *klass,
                      const char *descr, const attr_list *attrs)
{
    cubex_anchor *a = b->a;
    size_t pos = a->num_stns++;
    cubex_stn_def *d = &a->stns[pos];
    d->xml_id = (int64_t)pos;
    d->parent = parent;
    d->name = copy_text(b, name);
    d->klass = copy_text(b, klass);
    d->descr = descr && *descr ? copy(b, descr) : NULL;
    d->attrs = copy_attrs(b, attrs);
    return pos;
}

static void add_groups_of(builder *b, const cube_node *n, size_t stn)
{
    cubex_anchor *a = b->a;
    for (size_t i = 0; !b->failed && i < n->num_processes; i++) {
        const cube_process *p = n->processes[i];
        size_t g = a->num_groups++;
        b->group_pos[p->index] = g;
        cubex_lg_def *d = &a->groups[g];
        d->xml_id = (int64_t)g;
        d->stn = stn;
        d->name = copy_text(b, p->name);
        d->rank = p->rank;
        d->type = (cubex_lg_type)p->type;
        d->type_text = copy_text(b, cube_group_type_name(p->type));
        d->attrs = copy_attrs(b, &p->attrs);
        for (size_t k = 0; !b->failed && k < p->num_threads; k++) {
            const cube_thread *t = p->threads[k];
            cubex_loc_def *l = &a->locations[a->num_locations++];
            l->id = (int64_t)b->column[t->index];
            l->group = g;
            l->name = copy_text(b, t->name);
            l->rank = t->rank;
            l->type = (cubex_loc_type)t->type;
            l->type_text = copy_text(b, cube_location_type_name(t->type));
            l->attrs = copy_attrs(b, &t->attrs);
            a->location_by_id[b->column[t->index]] = a->num_locations - 1;
        }
    }
}

/* A node, its location groups, then its child nodes, depth first with an
 * explicit stack (system trees are shallow, but nothing bounds them). */
static void add_nodes(builder *b, cube_node *const *roots, size_t num_roots, size_t machine_stn)
{
    cubex_anchor *a = b->a;
    size_t cap = b->c->nodes.count + 1, top = 0;
    const cube_node **stack = alloc_array(b, cap, sizeof *stack);
    if (!stack)
        return;
    for (size_t i = num_roots; i-- > 0;)
        stack[top++] = roots[i];
    while (!b->failed && top) {
        const cube_node *n = stack[--top];
        size_t parent = n->parent ? b->node_pos[n->parent->index] : machine_stn;
        size_t pos = add_stn(b, parent, n->name, cube_node_class(n), n->descr, &n->attrs);
        b->node_pos[n->index] = pos;
        add_groups_of(b, n, pos);
        for (size_t i = n->num_children; i-- > 0 && top < cap;)
            stack[top++] = n->children[i];
    }
    free(stack);
    (void)a;
}

static void add_system(builder *b)
{
    const cube_t *c = b->c;
    cubex_anchor *a = b->a;
    size_t num_stns = c->machines.count + c->nodes.count;
    a->stns = alloc_array(b, num_stns, sizeof *a->stns);
    a->groups = alloc_array(b, c->processes.count, sizeof *a->groups);
    a->locations = alloc_array(b, c->threads.count, sizeof *a->locations);
    a->location_by_id = alloc_array(b, c->threads.count, sizeof *a->location_by_id);
    for (size_t i = 0; !b->failed && i < c->machines.count; i++) {
        const cube_machine *m = c->machines.items[i];
        size_t pos = add_stn(b, CUBEX_NONE, m->name, cube_machine_class(m), m->descr, &m->attrs);
        b->machine_pos[m->index] = pos;
        add_nodes(b, m->nodes, m->num_nodes, pos);
    }
}

static cubex_coord_kind coord_kind(const cube_coord *k)
{
    switch (k->kind) {
    case CUBE_COORD_THREAD:
        return CUBEX_COORD_LOCATION;
    case CUBE_COORD_PROCESS:
        return CUBEX_COORD_GROUP;
    default:
        return CUBEX_COORD_STN;
    }
}

static int64_t coord_id(const builder *b, const cube_coord *k)
{
    const entity_head *e = k->entity;
    switch (k->kind) {
    case CUBE_COORD_THREAD:
        return (int64_t)b->column[e->index];
    case CUBE_COORD_PROCESS:
        return (int64_t)b->group_pos[e->index];
    case CUBE_COORD_NODE:
        return (int64_t)b->node_pos[e->index];
    default:
        return (int64_t)b->machine_pos[e->index];
    }
}

static void add_carts(builder *b)
{
    const cube_t *c = b->c;
    cubex_anchor *a = b->a;
    a->carts = alloc_array(b, c->carts.count, sizeof *a->carts);
    for (size_t i = 0; !b->failed && i < c->carts.count; i++) {
        const cube_cartesian *t = c->carts.items[i];
        cubex_cart_def *d = &a->carts[i];
        size_t nd = (size_t)t->ndims;
        d->name = t->name && *t->name ? copy(b, t->name) : NULL;
        d->ndims = nd;
        d->dims = arena_array(b, nd, sizeof *d->dims, _Alignof(cubex_dim));
        for (size_t k = 0; d->dims && k < nd; k++) {
            d->dims[k].name = t->dim_names && t->dim_names[k] ? copy(b, t->dim_names[k]) : NULL;
            d->dims[k].size = t->dims[k];
            d->dims[k].periodic = t->periods[k];
            d->dims[k].periodic_text = copy(b, t->periods[k] ? "true" : "false");
        }
        d->coords = arena_array(b, t->num_coords, sizeof *d->coords, _Alignof(cubex_coord));
        for (size_t k = 0; d->coords && k < t->num_coords; k++) {
            const cube_coord *src = &t->coords[k];
            d->coords[k].kind = coord_kind(src);
            d->coords[k].id = coord_id(b, src);
            d->coords[k].c = arena_array(b, nd, sizeof *d->coords[k].c, _Alignof(int64_t));
            for (size_t x = 0; d->coords[k].c && x < nd; x++)
                d->coords[k].c[x] = src->coords[x];
        }
        d->num_coords = d->coords ? t->num_coords : 0;
    }
    a->num_carts = b->failed ? 0 : c->carts.count;
}

/* Threads keep their ids as data columns when the ids are 0 ... L-1 in
 * some order (a file read keeps its columns so); else they are numbered
 * by index. */
static void choose_columns(builder *b)
{
    const cube_t *c = b->c;
    size_t n = c->threads.count;
    unsigned char *seen = alloc_array(b, n + 1, 1);
    if (!seen)
        return;
    int ids_are_columns = 1;
    for (size_t i = 0; i < n && ids_are_columns; i++) {
        int64_t id = ((const cube_thread *)c->threads.items[i])->id;
        ids_are_columns = id >= 0 && (uint64_t)id < n && !seen[id];
        if (ids_are_columns)
            seen[id] = 1;
    }
    for (size_t i = 0; i < n; i++)
        b->column[i] = ids_are_columns ? (size_t)((const cube_thread *)c->threads.items[i])->id : i;
    free(seen);
}

cubex_anchor *cubex_anchor_from_model(cube_t *c, size_t **cnode_order, size_t **columns,
                                      cube_status *status)
{
    builder b = {.c = c, .status = status};
    b.a = calloc(1, sizeof *b.a);
    if (!b.a) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        return NULL;
    }
    cubex_anchor *a = b.a;
    a->version = copy(&b, "4.4");
    a->attrs.items = arena_array(&b, c->attrs.count, sizeof *a->attrs.items, _Alignof(cubex_attr));
    for (size_t i = 0; a->attrs.items && i < c->attrs.count; i++) {
        const cube_attr *at = c->attrs.items[i];
        a->attrs.items[i].key = copy_text(&b, at->key);
        a->attrs.items[i].value = copy_text(&b, at->value);
    }
    a->attrs.n = a->attrs.items ? c->attrs.count : 0;
    a->mirrors = alloc_array(&b, c->mirrors.count, sizeof *a->mirrors);
    for (size_t i = 0; a->mirrors && i < c->mirrors.count; i++)
        a->mirrors[i] = copy_text(&b, c->mirrors.items[i]);
    a->num_mirrors = a->mirrors ? c->mirrors.count : 0;

    b.cnode_pos = alloc_array(&b, c->cnodes.count + 1, sizeof *b.cnode_pos);
    b.group_pos = alloc_array(&b, c->processes.count + 1, sizeof *b.group_pos);
    b.machine_pos = alloc_array(&b, c->machines.count + 1, sizeof *b.machine_pos);
    b.node_pos = alloc_array(&b, c->nodes.count + 1, sizeof *b.node_pos);
    b.column = alloc_array(&b, c->threads.count + 1, sizeof *b.column);
    if (b.column)
        choose_columns(&b);
    add_metrics(&b);
    add_regions(&b);
    add_cnodes(&b);
    add_system(&b);
    add_carts(&b);
    free(b.group_pos);
    free(b.machine_pos);
    free(b.node_pos);
    if (b.failed) {
        free(b.cnode_pos);
        free(b.column);
        cubex_anchor_free(a);
        return NULL;
    }
    if (cnode_order)
        *cnode_order = b.cnode_pos;
    else
        free(b.cnode_pos);
    if (columns)
        *columns = b.column;
    else
        free(b.column);
    return a;
}
