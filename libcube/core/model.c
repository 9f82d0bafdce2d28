/*
 * model.c - the experiment handle: creation, destruction, error and warning
 * bookkeeping, and adding definitions to each dimension.
 */
#include "core/cube_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ptr_list_push(ptr_list *l, void *item)
{
    return child_array_push(&l->items, &l->count, &l->cap, item);
}

void ptr_list_free(ptr_list *l)
{
    free(l->items);
    l->items = NULL;
    l->count = l->cap = 0;
}

static int push_child(void ***array, size_t *count, size_t *cap, void *child, size_t first_cap)
{
    void **grown = grow_array(*array, *count, cap, sizeof *grown, first_cap);
    if (!grown)
        return -1;
    *array = grown;
    grown[(*count)++] = child;
    return 0;
}

int child_array_push(void ***array, size_t *count, size_t *cap, void *child)
{
    return push_child(array, count, cap, child, 4);
}

cube_t *cube_create(void)
{
    cube_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (pthread_mutex_init(&c->index_lock, NULL) != 0) {
        free(c);
        return NULL;
    }
    atomic_init(&c->rows_indexed, 0);
    c->stream_metric = SIZE_MAX;
    return c;
}

void cube_set_error(cube_t *c, cube_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    status_setv(&c->status, code, fmt, ap);
    va_end(ap);
}

void cube_clear_error(cube_t *c)
{
    status_ok(&c->status);
}

int cube_add_warning(cube_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = message_list_addv(&c->warnings, fmt, ap);
    va_end(ap);
    return rc;
}

/* A NULL handle is what cube_create returns when memory ran out. */
cube_code cube_error_code(const cube_t *c)
{
    return c ? c->status.code : CUBE_ENOMEM;
}

const char *cube_error(const cube_t *c)
{
    return c ? c->status.message : "out of memory";
}

size_t cube_num_warnings(const cube_t *c)
{
    return c->warnings.count;
}

const char *cube_warning(const cube_t *c, size_t i)
{
    return message_list_get(&c->warnings, i);
}

static void free_metric(cube_metric *m)
{
    free(m->disp_name);
    free(m->uniq_name);
    free(m->dtype);
    free(m->uom);
    free(m->val);
    free(m->url);
    free(m->descr);
    free(m->children);
    free(m);
}

static void free_region(cube_region *r)
{
    free(r->name);
    free(r->mod);
    free(r->url);
    free(r->descr);
    free(r);
}

static void free_cart(cube_cartesian *t)
{
    free(t->name);
    free(t->dims);
    free(t->periods);
    if (t->dim_names)
        for (long d = 0; d < t->ndims; d++)
            free(t->dim_names[d]);
    free(t->dim_names);
    for (size_t i = 0; i < t->num_coords; i++)
        free((void *)t->coords[i].coords); /* allocated here, const for readers */
    free(t->coords);
    free(t);
}

void cube_free(cube_t *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->attrs.count; i++) {
        cube_attr *a = c->attrs.items[i];
        free(a->key);
        free(a->value);
        free(a);
    }
    for (size_t i = 0; i < c->mirrors.count; i++)
        free(c->mirrors.items[i]);
    /* the CUBE 4 parts first: each metric's exact values are reached
     * through the metric */
    model_cube4_free(c);
    for (size_t i = 0; i < c->metrics.count; i++)
        free_metric(c->metrics.items[i]);
    for (size_t i = 0; i < c->regions.count; i++)
        free_region(c->regions.items[i]);
    /* the cnodes themselves and their modules go with the arena and the
     * string set below */
    for (size_t i = 0; i < c->cnodes.count; i++)
        free(((cube_cnode *)c->cnodes.items[i])->children);
    for (size_t i = 0; i < c->machines.count; i++) {
        cube_machine *m = c->machines.items[i];
        free(m->name);
        free(m->descr);
        free(m->nodes);
        free(m);
    }
    for (size_t i = 0; i < c->nodes.count; i++) {
        cube_node *n = c->nodes.items[i];
        free(n->name);
        free(n->processes);
        free(n->children);
        free(n);
    }
    for (size_t i = 0; i < c->processes.count; i++)
        free(((cube_process *)c->processes.items[i])->threads);
    /* the processes and threads themselves are in c->entities */
    for (size_t i = 0; i < c->carts.count; i++)
        free_cart(c->carts.items[i]);
    message_list_clear(&c->warnings);
    ptr_list *lists[] = {&c->attrs,   &c->mirrors,  &c->metrics,   &c->root_metrics,
                         &c->regions, &c->cnodes,   &c->root_cnodes, &c->machines,
                         &c->nodes,   &c->processes, &c->threads,  &c->carts};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        ptr_list_free(lists[i]);
    arena_free(&c->entities);
    keymap_free(&c->cnode_mods);
    sev_store_free(&c->sev);
    pthread_mutex_destroy(&c->index_lock);
    free(c->stream_out);
    free(c);
}

/* Every model_add_* ends the same way: register the entity in its list (and
 * its parent's child list); on failure the caller frees the entity. */
static int register_entity(cube_t *c, ptr_list *list, void *entity, size_t *index)
{
    *index = list->count;
    if (ptr_list_push(list, entity) != 0) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

/* The writer API's ids must not repeat a label already on the handle,
 * such as one cube_read took from a file: keep next_id above every id
 * added, from whatever source. */
static void note_id(cube_t *c, int kind, int64_t id)
{
    if (id >= c->next_id[kind])
        c->next_id[kind] = id < INT64_MAX ? id + 1 : INT64_MAX;
}

static int oom(cube_t *c)
{
    cube_set_error(c, CUBE_ENOMEM, "out of memory");
    return -1;
}

cube_metric *model_add_metric(cube_t *c, int64_t id, const char *disp_name,
                              const char *uniq_name, const char *dtype, const char *uom,
                              const char *val, const char *url, const char *descr,
                              cube_metric *parent)
{
    cube_metric *m = calloc(1, sizeof *m);
    if (!m) {
        oom(c);
        return NULL;
    }
    m->id = id;
    m->parent = parent;
    m->disp_name = cube_strdup(disp_name);
    m->uniq_name = cube_strdup(uniq_name);
    m->dtype = cube_strdup(dtype);
    m->uom = cube_strdup(uom);
    m->val = cube_strdup(val);
    m->url = cube_strdup(url);
    m->descr = cube_strdup(descr);
    m->is_void = (val && strcmp(val, "VOID") == 0) || (parent && parent->is_void);
    if (!m->disp_name || !m->uniq_name || !m->dtype || !m->uom || !m->val || !m->url ||
        !m->descr || register_entity(c, &c->metrics, m, &m->index) != 0) {
        free_metric(m);
        oom(c);
        return NULL;
    }
    int linked = parent ? child_array_push((void ***)&parent->children, &parent->num_children,
                                           &parent->children_cap, m)
                        : ptr_list_push(&c->root_metrics, m);
    if (linked != 0) {
        c->metrics.count--;
        free_metric(m);
        oom(c);
        return NULL;
    }
    note_id(c, ID_METRIC, id);
    return m;
}

cube_region *model_add_region(cube_t *c, int64_t id, const char *name, long begin, long end,
                              const char *url, const char *descr, const char *mod)
{
    cube_region *r = calloc(1, sizeof *r);
    if (!r) {
        oom(c);
        return NULL;
    }
    r->id = id;
    r->begin_line = begin;
    r->end_line = end;
    r->name = cube_strdup(name);
    r->mod = cube_strdup(mod);
    r->url = cube_strdup(url);
    r->descr = cube_strdup(descr);
    if (!r->name || !r->mod || !r->url || !r->descr ||
        register_entity(c, &c->regions, r, &r->index) != 0) {
        free_region(r);
        oom(c);
        return NULL;
    }
    note_id(c, ID_REGION, id);
    return r;
}

cube_cnode *model_add_cnode(cube_t *c, int64_t id, cube_region *callee, const char *mod,
                            long line, cube_cnode *parent)
{
    if (!callee) {
        cube_set_error(c, CUBE_EINVAL, "a call-tree node needs a callee region");
        return NULL;
    }
    /* On a failure below, the node's bytes stay in the arena unused until
     * cube_free: they cannot be handed back alone, and it happens only when
     * memory has run out. */
    cube_cnode *n = arena_alloc(&c->entities, sizeof *n, _Alignof(cube_cnode));
    if (!mod)
        mod = "";
    const char *shared_mod = !n ? NULL
                             : c->last_mod && strcmp(c->last_mod, mod) == 0
                                 ? c->last_mod
                                 : keymap_intern(&c->cnode_mods, mod);
    if (!shared_mod) {
        oom(c);
        return NULL;
    }
    c->last_mod = shared_mod;
    *n = (cube_cnode){.id = id, .callee = callee, .mod = shared_mod, .line = line,
                      .depth = parent ? parent->depth + 1 : 0, .parent = parent};
    if (register_entity(c, &c->cnodes, n, &n->index) != 0)
        return NULL;
    /* Most parents have one to three children: a first array of two (16
     * bytes, malloc's smallest block) instead of the usual four (32 bytes, a
     * 48-byte block) saves 16 bytes on each parent of one or two. */
    int linked = parent ? push_child((void ***)&parent->children, &parent->num_children,
                                     &parent->children_cap, n, 2)
                        : ptr_list_push(&c->root_cnodes, n);
    if (linked != 0) {
        c->cnodes.count--;
        oom(c);
        return NULL;
    }
    note_id(c, ID_CNODE, id);
    if (n->depth + 1 > c->cnode_depth_max)
        c->cnode_depth_max = n->depth + 1;
    return n;
}

cube_machine *model_add_machine(cube_t *c, int64_t id, const char *name, const char *descr)
{
    cube_machine *m = calloc(1, sizeof *m);
    if (!m) {
        oom(c);
        return NULL;
    }
    m->id = id;
    m->name = cube_strdup(name);
    m->descr = cube_strdup(descr);
    if (!m->name || !m->descr || register_entity(c, &c->machines, m, &m->index) != 0) {
        free(m->name);
        free(m->descr);
        free(m);
        oom(c);
        return NULL;
    }
    note_id(c, ID_MACHINE, id);
    return m;
}

cube_node *model_add_stn(cube_t *c, int64_t id, const char *name, cube_machine *machine,
                         cube_node *parent)
{
    if (!machine) {
        cube_set_error(c, CUBE_EINVAL, "a node needs a machine");
        return NULL;
    }
    cube_node *n = calloc(1, sizeof *n);
    if (!n) {
        oom(c);
        return NULL;
    }
    n->id = id;
    n->machine = machine;
    n->parent = parent;
    n->name = cube_strdup(name);
    if (!n->name || register_entity(c, &c->nodes, n, &n->index) != 0) {
        free(n->name);
        free(n);
        oom(c);
        return NULL;
    }
    int linked = parent ? child_array_push((void ***)&parent->children, &parent->num_children,
                                           &parent->children_cap, n)
                        : child_array_push((void ***)&machine->nodes, &machine->num_nodes,
                                           &machine->nodes_cap, n);
    if (linked != 0) {
        c->nodes.count--;
        free(n->name);
        free(n);
        oom(c);
        return NULL;
    }
    note_id(c, ID_NODE, id);
    return n;
}

cube_node *model_add_node(cube_t *c, int64_t id, const char *name, cube_machine *machine)
{
    return model_add_stn(c, id, name, machine, NULL);
}

/* A zeroed location (process or thread) and a copy of its name, both from
 * the model's arena (on a later failure their bytes stay there until
 * cube_free); NULL, error set, when out of memory. */
static void *new_location(cube_t *c, size_t size, size_t align, const char *name,
                          char **name_copy)
{
    void *entity = arena_alloc(&c->entities, size, align);
    if (entity) {
        memset(entity, 0, size);
        *name_copy = arena_strdup(&c->entities, name);
    }
    if (!entity || !*name_copy) {
        oom(c);
        return NULL;
    }
    return entity;
}

cube_process *model_add_process(cube_t *c, int64_t id, const char *name, int64_t rank,
                                cube_node *node)
{
    if (!node) {
        cube_set_error(c, CUBE_EINVAL, "a process needs a node");
        return NULL;
    }
    char *copy;
    cube_process *p = new_location(c, sizeof *p, _Alignof(cube_process), name, &copy);
    if (!p)
        return NULL;
    p->name = copy;
    p->id = id;
    p->rank = rank;
    p->node = node;
    if (register_entity(c, &c->processes, p, &p->index) != 0) {
        oom(c);
        return NULL;
    }
    if (child_array_push((void ***)&node->processes, &node->num_processes,
                         &node->processes_cap, p) != 0) {
        c->processes.count--;
        oom(c);
        return NULL;
    }
    note_id(c, ID_PROCESS, id);
    return p;
}

cube_thread *model_add_thread(cube_t *c, int64_t id, const char *name, int64_t rank,
                              cube_process *process)
{
    if (!process) {
        cube_set_error(c, CUBE_EINVAL, "a thread needs a process");
        return NULL;
    }
    char *copy;
    cube_thread *t = new_location(c, sizeof *t, _Alignof(cube_thread), name, &copy);
    if (!t)
        return NULL;
    t->name = copy;
    t->id = id;
    t->rank = rank;
    t->process = process;
    if (register_entity(c, &c->threads, t, &t->index) != 0) {
        oom(c);
        return NULL;
    }
    note_id(c, ID_THREAD, id); /* registered from here on, even on failure below */
    if (child_array_push((void ***)&process->threads, &process->num_threads,
                         &process->threads_cap, t) != 0 ||
        sev_store_set_row_len(&c->sev, c->threads.count) != 0) {
        oom(c);
        return NULL; /* the thread stays registered: freed with the handle */
    }
    return t;
}

cube_cartesian *model_add_cart(cube_t *c, const char *name, long ndims, const long *dims,
                               const int *periods)
{
    if (ndims <= 0 || ndims > 1024 || !dims) {
        cube_set_error(c, CUBE_EINVAL, "a Cartesian topology needs 1 to 1024 dimensions, not %ld",
                       ndims);
        return NULL;
    }
    cube_cartesian *t = calloc(1, sizeof *t);
    if (!t) {
        oom(c);
        return NULL;
    }
    t->ndims = ndims;
    t->name = cube_strdup(name);
    t->dims = malloc((size_t)ndims * sizeof *t->dims);
    t->periods = malloc((size_t)ndims * sizeof *t->periods);
    if (!t->name || !t->dims || !t->periods ||
        register_entity(c, &c->carts, t, &t->index) != 0) {
        free_cart(t);
        oom(c);
        return NULL;
    }
    for (long d = 0; d < ndims; d++) {
        t->dims[d] = dims[d];
        t->periods[d] = periods ? (periods[d] != 0) : 0;
    }
    return t;
}

int model_set_attr(cube_t *c, const char *key, const char *value)
{
    for (size_t i = 0; i < c->attrs.count; i++) {
        cube_attr *a = c->attrs.items[i];
        if (strcmp(a->key, key ? key : "") == 0) {
            char *copy = cube_strdup(value);
            if (!copy)
                return oom(c);
            free(a->value);
            a->value = copy;
            return 0;
        }
    }
    cube_attr *a = calloc(1, sizeof *a);
    if (!a)
        return oom(c);
    a->key = cube_strdup(key);
    a->value = cube_strdup(value);
    if (!a->key || !a->value || ptr_list_push(&c->attrs, a) != 0) {
        free(a->key);
        free(a->value);
        free(a);
        return oom(c);
    }
    return 0;
}

int model_add_mirror(cube_t *c, const char *url)
{
    char *copy = cube_strdup(url);
    if (!copy || ptr_list_push(&c->mirrors, copy) != 0) {
        free(copy);
        return oom(c);
    }
    return 0;
}

double *model_row_for_update(cube_t *c, const cube_metric *met, const cube_cnode *cnode)
{
    double *row = sev_store_get_or_add(&c->sev, met->index, cnode->index);
    if (!row)
        oom(c);
    else if (met->index < c->metrics.count)
        /* the caller changes the row: exact values read with it are stale */
        model_drop_exact(c->metrics.items[met->index]);
    return row;
}
