/*
 * model_cube4.c - what the CUBE 4 format holds beyond CUBE 3: metric
 * kinds and CubePL programs, region details, call-path parameters,
 * attributes of single entities, a system tree of any depth with classes
 * and location types, the archive's extra members, and the format an
 * experiment came from.  The accessors read them, the setters add them;
 * the defaults are what a CUBE 3 file means.
 *
 * Everything per entity lives in the model's arena (cube_t.entities):
 * experiments with a million call paths carry a few attributes and
 * parameters on many of them, and none of it is ever freed alone.  An
 * array that grows gets a new arena block (the old one stays until
 * cube_free, at most as large as the new one).
 */
#include "core/cube_private.h"

#include <stdlib.h>
#include <string.h>

/* ---- arena helpers -------------------------------------------------------- */

static int oom(cube_t *c)
{
    cube_set_error(c, CUBE_ENOMEM, "out of memory");
    return -1;
}

/* Room for one more element of `size` bytes in an arena array: 0, or -1. */
static int arena_reserve(arena *a, void **items, size_t count, size_t *cap, size_t size,
                         size_t align)
{
    if (count < *cap)
        return 0;
    size_t new_cap = *cap ? *cap * 2 : 2;
    if (new_cap > SIZE_MAX / size)
        return -1;
    void *grown = arena_alloc(a, new_cap * size, align);
    if (!grown)
        return -1;
    if (count)
        memcpy(grown, *items, count * size);
    *items = grown;
    *cap = new_cap;
    return 0;
}

/* A copy of text in the arena, NULL text staying NULL; -1 when out of
 * memory. */
int model_arena_copy(cube_t *c, char **dst, const char *text)
{
    if (!text) {
        *dst = NULL;
        return 0;
    }
    *dst = arena_strdup(&c->entities, text);
    return *dst ? 0 : oom(c);
}

int model_attr_add(cube_t *c, attr_list *l, const char *key, const char *value)
{
    if (arena_reserve(&c->entities, (void **)&l->items, l->count, &l->cap, sizeof *l->items,
                      _Alignof(cube_attr)) != 0)
        return oom(c);
    cube_attr *a = &l->items[l->count];
    if (model_arena_copy(c, &a->key, key ? key : "") != 0 ||
        model_arena_copy(c, &a->value, value ? value : "") != 0)
        return -1;
    l->count++;
    return 0;
}

int model_attrs_copy(cube_t *c, attr_list *dst, const attr_list *src)
{
    for (size_t i = 0; i < src->count; i++)
        if (model_attr_add(c, dst, src->items[i].key, src->items[i].value) != 0)
            return -1;
    return 0;
}

cube_program *model_program_new(cube_t *c, const char *text)
{
    cube_program *p = arena_alloc(&c->entities, sizeof *p, _Alignof(cube_program));
    if (!p) {
        oom(c);
        return NULL;
    }
    *p = (cube_program){0};
    if (model_arena_copy(c, &p->text, text ? text : "") != 0)
        return NULL;
    return p;
}

static int program_copy(cube_t *c, cube_program **dst, const cube_program *src)
{
    *dst = NULL;
    if (!src)
        return 0;
    *dst = model_program_new(c, src->text);
    return *dst ? model_attrs_copy(c, &(*dst)->attrs, &src->attrs) : -1;
}

/* ---- names of the enumerations --------------------------------------------- */

static const char *const metric_kind_names[] = {
    "EXCLUSIVE", "INCLUSIVE", "SIMPLE", "PREDERIVED_EXCLUSIVE", "PREDERIVED_INCLUSIVE",
    "POSTDERIVED"};
static const char *const group_type_names[] = {"process", "metrics", "accelerator"};
static const char *const location_type_names[] = {"thread", "gpu", "metric"};

#define NAME_OF(TABLE, VALUE)                                                         \
    ((unsigned)(VALUE) < sizeof TABLE / sizeof TABLE[0] ? TABLE[(unsigned)(VALUE)] : "")

const char *cube_metric_kind_name(cube_metric_kind kind)
{
    return NAME_OF(metric_kind_names, kind);
}

const char *cube_group_type_name(cube_group_type type)
{
    return NAME_OF(group_type_names, type);
}

const char *cube_location_type_name(cube_location_type type)
{
    return NAME_OF(location_type_names, type);
}

/* ---- accessors -------------------------------------------------------------- */
/* (those that hand out a field as it is are in entities.c) */

cube_metric_kind cube_metric_type(const cube_metric *m)
{
    return m ? m->kind : CUBE_KIND_EXCLUSIVE;
}

int cube_metric_is_derived(const cube_metric *m)
{
    return m && (m->kind == CUBE_KIND_PREDERIVED_EXCLUSIVE ||
                 m->kind == CUBE_KIND_PREDERIVED_INCLUSIVE ||
                 m->kind == CUBE_KIND_POSTDERIVED);
}

int cube_metric_is_ghost(const cube_metric *m)
{
    return m ? m->ghost : 0;
}

const char *cube_metric_expression(const cube_metric *m)
{
    return m && m->expr ? m->expr->text : "";
}

const char *cube_metric_init_expression(const cube_metric *m)
{
    return m && m->init_expr ? m->init_expr->text : "";
}

size_t cube_metric_num_aggr_expressions(const cube_metric *m)
{
    return m ? m->num_aggr : 0;
}

const char *cube_metric_aggr_expression(const cube_metric *m, size_t i)
{
    return m && i < m->num_aggr ? m->aggr[i].text : NULL;
}

const char *cube_metric_aggr_operator(const cube_metric *m, size_t i)
{
    if (!m || i >= m->num_aggr)
        return NULL;
    const attr_list *a = &m->aggr[i].attrs;
    for (size_t k = 0; k < a->count; k++)
        if (strcmp(a->items[k].key, "cubeplaggrtype") == 0)
            return a->items[k].value;
    return "";
}

const char *cube_region_mangled_name(const cube_region *r)
{
    if (!r)
        return "";
    return r->mangled_name ? r->mangled_name : r->name;
}

const char *cube_cnode_param_key(const cube_cnode *cn, size_t i)
{
    return cn && i < cn->num_params ? cn->params[i].key : NULL;
}

const char *cube_cnode_param_value(const cube_cnode *cn, size_t i)
{
    return cn && i < cn->num_params ? cn->params[i].value : NULL;
}

int cube_cnode_param_is_numeric(const cube_cnode *cn, size_t i)
{
    return cn && i < cn->num_params ? cn->params[i].numeric : 0;
}

const char *cube_machine_class(const cube_machine *m)
{
    if (!m)
        return "";
    return m->klass ? m->klass : "machine";
}

const char *cube_node_class(const cube_node *n)
{
    if (!n)
        return "";
    return n->klass ? n->klass : "node";
}

/* Attributes of single entities: the same four functions for each. */
#define ENTITY_ATTRS(TYPE, PREFIX)                                                  \
    size_t PREFIX##_num_attrs(const TYPE *x)                                        \
    {                                                                               \
        return x ? x->attrs.count : 0;                                              \
    }                                                                               \
    const char *PREFIX##_attr_key(const TYPE *x, size_t i)                          \
    {                                                                               \
        return x && i < x->attrs.count ? x->attrs.items[i].key : NULL;              \
    }                                                                               \
    const char *PREFIX##_attr_value(const TYPE *x, size_t i)                        \
    {                                                                               \
        return x && i < x->attrs.count ? x->attrs.items[i].value : NULL;            \
    }                                                                               \
    int PREFIX##_add_attr(cube_t *c, TYPE *x, const char *key, const char *value)   \
    {                                                                               \
        if (!c)                                                                     \
            return -1;                                                              \
        cube_clear_error(c);                                                        \
        if (!x || !key) {                                                           \
            cube_set_error(c, CUBE_EINVAL, #PREFIX "_add_attr: no entity or key");  \
            return -1;                                                              \
        }                                                                           \
        return model_attr_add(c, &x->attrs, key, value);                             \
    }

ENTITY_ATTRS(cube_metric, cube_metric)
ENTITY_ATTRS(cube_region, cube_region)
ENTITY_ATTRS(cube_cnode, cube_cnode)
ENTITY_ATTRS(cube_machine, cube_machine)
ENTITY_ATTRS(cube_node, cube_node)
ENTITY_ATTRS(cube_process, cube_process)
ENTITY_ATTRS(cube_thread, cube_thread)

size_t cube_num_extra_members(const cube_t *c)
{
    return c ? c->extra_members.count : 0;
}

const char *cube_extra_member_name(const cube_t *c, size_t i)
{
    return c && i < c->extra_members.count ? ((extra_member *)c->extra_members.items[i])->name
                                           : NULL;
}

const void *cube_extra_member_data(const cube_t *c, size_t i, size_t *size)
{
    if (!c || i >= c->extra_members.count) {
        if (size)
            *size = 0;
        return NULL;
    }
    const extra_member *m = c->extra_members.items[i];
    if (size)
        *size = m->size;
    return m->data ? m->data : (const void *)"";
}

cube_format cube_source_format(const cube_t *c)
{
    return c ? c->source_format : CUBE_FORMAT_NONE;
}

const char *cube_source_version(const cube_t *c)
{
    return c && c->source_version ? c->source_version : "";
}

/* ---- setters ---------------------------------------------------------------- */

/* Every setter starts the same way: a handle, an entity, the error cleared. */
static int begin(cube_t *c, const void *entity, const char *what)
{
    if (!c)
        return -1;
    cube_clear_error(c);
    if (!entity) {
        cube_set_error(c, CUBE_EINVAL, "%s: no entity given", what);
        return -1;
    }
    return 0;
}

int cube_metric_set_type(cube_t *c, cube_metric *m, cube_metric_kind kind)
{
    if (begin(c, m, "cube_metric_set_type") != 0)
        return -1;
    if ((unsigned)kind > CUBE_KIND_POSTDERIVED) {
        cube_set_error(c, CUBE_EINVAL, "cube_metric_set_type: no metric kind %d", (int)kind);
        return -1;
    }
    m->kind = kind;
    return 0;
}

int cube_metric_set_ghost(cube_t *c, cube_metric *m, int ghost)
{
    if (begin(c, m, "cube_metric_set_ghost") != 0)
        return -1;
    m->ghost = ghost != 0;
    return 0;
}

int cube_metric_set_expression(cube_t *c, cube_metric *m, const char *expression,
                               const char *init_expression)
{
    if (begin(c, m, "cube_metric_set_expression") != 0)
        return -1;
    if (expression && !(m->expr = model_program_new(c, expression)))
        return -1;
    if (init_expression && !(m->init_expr = model_program_new(c, init_expression)))
        return -1;
    return 0;
}

int cube_metric_add_aggr_expression(cube_t *c, cube_metric *m, const char *op,
                                    const char *expression)
{
    if (begin(c, m, "cube_metric_add_aggr_expression") != 0)
        return -1;
    if (arena_reserve(&c->entities, (void **)&m->aggr, m->num_aggr, &m->aggr_cap,
                      sizeof *m->aggr, _Alignof(cube_program)) != 0)
        return oom(c);
    cube_program *p = &m->aggr[m->num_aggr];
    *p = (cube_program){0};
    if (model_arena_copy(c, &p->text, expression ? expression : "") != 0 ||
        (op && *op && model_attr_add(c, &p->attrs, "cubeplaggrtype", op) != 0))
        return -1;
    m->num_aggr++;
    return 0;
}

int cube_region_set_details(cube_t *c, cube_region *r, const char *mangled_name,
                            const char *paradigm, const char *role)
{
    if (begin(c, r, "cube_region_set_details") != 0)
        return -1;
    if ((mangled_name && model_arena_copy(c, &r->mangled_name, mangled_name) != 0) ||
        (paradigm && model_arena_copy(c, &r->paradigm, paradigm) != 0) ||
        (role && model_arena_copy(c, &r->role, role) != 0))
        return -1;
    return 0;
}

int cube_cnode_add_param(cube_t *c, cube_cnode *cn, const char *key, const char *value,
                         int numeric)
{
    if (begin(c, cn, "cube_cnode_add_param") != 0)
        return -1;
    if (arena_reserve(&c->entities, (void **)&cn->params, cn->num_params, &cn->params_cap,
                      sizeof *cn->params, _Alignof(cube_param)) != 0)
        return oom(c);
    cube_param *p = &cn->params[cn->num_params];
    p->numeric = numeric != 0;
    if (model_arena_copy(c, &p->key, key ? key : "") != 0 ||
        model_arena_copy(c, &p->value, value ? value : "") != 0)
        return -1;
    cn->num_params++;
    return 0;
}

int cube_machine_set_class(cube_t *c, cube_machine *m, const char *klass)
{
    if (begin(c, m, "cube_machine_set_class") != 0)
        return -1;
    return klass ? model_arena_copy(c, &m->klass, klass) : 0;
}

int cube_node_set_class(cube_t *c, cube_node *n, const char *klass)
{
    if (begin(c, n, "cube_node_set_class") != 0)
        return -1;
    return klass ? model_arena_copy(c, &n->klass, klass) : 0;
}

cube_node *cube_def_stn(cube_t *c, const char *name, const char *klass, const char *descr,
                        cube_machine *mach, cube_node *parent)
{
    if (begin(c, mach, "cube_def_stn") != 0)
        return NULL;
    if (parent && parent->machine != mach) {
        cube_set_error(c, CUBE_EINVAL, "cube_def_stn: the parent node is not of that machine");
        return NULL;
    }
    cube_node *n = model_add_stn(c, c->next_id[ID_NODE], name, mach, parent);
    if (!n || (klass && model_arena_copy(c, &n->klass, klass) != 0) ||
        (descr && model_arena_copy(c, &n->descr, descr) != 0))
        return NULL;
    return n;
}

int cube_process_set_type(cube_t *c, cube_process *p, cube_group_type type)
{
    if (begin(c, p, "cube_process_set_type") != 0)
        return -1;
    if ((unsigned)type > CUBE_GROUP_ACCELERATOR) {
        cube_set_error(c, CUBE_EINVAL, "cube_process_set_type: no location group type %d",
                       (int)type);
        return -1;
    }
    p->type = type;
    return 0;
}

int cube_thread_set_type(cube_t *c, cube_thread *t, cube_location_type type)
{
    if (begin(c, t, "cube_thread_set_type") != 0)
        return -1;
    if ((unsigned)type > CUBE_LOCATION_METRIC) {
        cube_set_error(c, CUBE_EINVAL, "cube_thread_set_type: no location type %d", (int)type);
        return -1;
    }
    t->type = type;
    return 0;
}

int cube_add_extra_member(cube_t *c, const char *name, const void *data, size_t size)
{
    if (begin(c, name, "cube_add_extra_member") != 0)
        return -1;
    if (size && !data) {
        cube_set_error(c, CUBE_EINVAL, "cube_add_extra_member: no data");
        return -1;
    }
    extra_member *m = calloc(1, sizeof *m);
    if (m) {
        m->name = cube_strdup(name);
        m->data = size ? malloc(size) : NULL;
        m->size = size;
    }
    if (!m || !m->name || (size && !m->data) || ptr_list_push(&c->extra_members, m) != 0) {
        if (m) {
            free(m->name);
            free(m->data);
            free(m);
        }
        return oom(c);
    }
    if (size)
        memcpy(m->data, data, size);
    return 0;
}

/* ---- internal ------------------------------------------------------------- */

int model_stored_inclusive(const cube_metric *met)
{
    cube_metric_kind kind = cube_metric_type(met);
    return (kind == CUBE_KIND_INCLUSIVE || kind == CUBE_KIND_SIMPLE) &&
           model_may_store_inclusive(met);
}

int model_may_store_inclusive(const cube_metric *met)
{
    /* A maximum or minimum cannot be stored call-tree inclusive: CUBE 4
     * forbids it (CubeLib refuses to read such a metric) and there would be
     * no way back to the call paths' own values, since a maximum has no
     * parts to subtract.  The same holds for the value types that carry a
     * minimum and a maximum (TAU_ATOMIC, HISTOGRAM(k)).  Such a metric's
     * rows are taken as exclusive, whatever its kind says. */
    const char *dtype = met && met->dtype ? met->dtype : "";
    return cube_metric_combine(met) == CUBE_COMBINE_SUM && strcmp(dtype, "TAU_ATOMIC") != 0 &&
           strncmp(dtype, "HISTOGRAM(", 10) != 0;
}

int model_set_source(cube_t *c, cube_format format, const char *version)
{
    c->source_format = format;
    return model_arena_copy(c, &c->source_version, version);
}

void model_drop_exact(cube_metric *m)
{
    if (m && m->exact) {
        sev_store_free(m->exact);
        free(m->exact);
        m->exact = NULL;
    }
}

const unsigned char *model_exact_row(const cube_metric *m, size_t cnode)
{
    return m->exact ? (const unsigned char *)sev_store_find(m->exact, m->index, cnode) : NULL;
}

void model_cube4_free(cube_t *c)
{
    for (size_t i = 0; i < c->extra_members.count; i++) {
        extra_member *m = c->extra_members.items[i];
        free(m->name);
        free(m->data);
        free(m);
    }
    ptr_list_free(&c->extra_members);
    for (size_t i = 0; i < c->metrics.count; i++)
        model_drop_exact(c->metrics.items[i]);
}

int model_copy_metric_extras(cube_t *to, cube_metric *dst, const cube_metric *src)
{
    dst->kind = src->kind;
    dst->ghost = src->ghost;
    dst->convertible = src->convertible;
    dst->cacheable = src->cacheable;
    if (model_arena_copy(to, &dst->viztype, src->viztype) != 0 ||
        program_copy(to, &dst->expr, src->expr) != 0 ||
        program_copy(to, &dst->init_expr, src->init_expr) != 0 ||
        model_attrs_copy(to, &dst->attrs, &src->attrs) != 0)
        return -1;
    for (size_t i = 0; i < src->num_aggr; i++) {
        if (arena_reserve(&to->entities, (void **)&dst->aggr, dst->num_aggr, &dst->aggr_cap,
                          sizeof *dst->aggr, _Alignof(cube_program)) != 0)
            return oom(to);
        cube_program *p = &dst->aggr[dst->num_aggr];
        *p = (cube_program){0};
        if (model_arena_copy(to, &p->text, src->aggr[i].text) != 0 ||
            model_attrs_copy(to, &p->attrs, &src->aggr[i].attrs) != 0)
            return -1;
        dst->num_aggr++;
    }
    return 0;
}

int model_copy_region_extras(cube_t *to, cube_region *dst, const cube_region *src)
{
    if (model_arena_copy(to, &dst->mangled_name, src->mangled_name) != 0 ||
        model_arena_copy(to, &dst->paradigm, src->paradigm) != 0 ||
        model_arena_copy(to, &dst->role, src->role) != 0)
        return -1;
    return model_attrs_copy(to, &dst->attrs, &src->attrs);
}

int model_copy_cnode_extras(cube_t *to, cube_cnode *dst, const cube_cnode *src)
{
    for (size_t i = 0; i < src->num_params; i++)
        if (cube_cnode_add_param(to, dst, src->params[i].key, src->params[i].value,
                                 src->params[i].numeric) != 0)
            return -1;
    return model_attrs_copy(to, &dst->attrs, &src->attrs);
}
