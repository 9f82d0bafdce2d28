/*
 * cube_union.c - lining up the dimensions of several experiments.
 *
 * The result is built in a fresh model.  Each input's metrics, regions and
 * call paths are added as the input comes (cube_union_add): an item whose
 * key is already in the result is mapped onto it, any other one is created
 * under its mapped parent, so the subtrees only one input has are grafted
 * in.  The system trees are united as the inputs come too, except when
 * they are collapsed, which needs every input's ranks first: then only the
 * ranks are kept until cube_union_finish.  So an input's definitions are
 * no longer needed once it was added, and a caller combining many large
 * experiments holds one input's definitions at a time.
 *
 * Every key lives in a hash map (keymap), so lining up is linear in the
 * size of the inputs; the original tools compared every call path with
 * every other one and took minutes on large trees.
 */
#include "core/cube_private.h"
#include "core/keymap_private.h"
#include "core/status_private.h"

#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

typedef struct {
    char *name;
    size_t num_metrics, num_cnodes, num_threads;
    size_t *metric_map, *region_map, *cnode_map;
    size_t *machine_map, *node_map, *process_map, *thread_map;
    int64_t *thread_rank; /* the rank a thread is matched by, see local_thread_ranks */
    int64_t *thread_process_rank; /* -C only: each thread's process rank */
    unsigned char *thread_types;  /* -C only: each thread's process type and own type */
    int64_t *thread_own_rank;     /* -C only: each thread's rank in the file, when it is
                                     not the rank it is matched by (else NULL) */
    unsigned char *metric_void;   /* the input's metric carries no data: VOID,
                                     derived, or it repeats a unique name (see
                                     unite_metrics) */
    unsigned char *metric_rule;   /* UNION_ROWS_* for each of the input's metrics */
} union_input;

/* A topology of the first input, its places already mapped to result
 * indexes; created in the result at the end if the locations stay the
 * first input's. */
typedef struct {
    char *name;
    long ndims;
    long *dims;
    int *periods;
    char **dim_names;
    size_t num_coords;
    cube_coord_kind *kinds;
    size_t *targets; /* result index of each coordinate's entity, NONE if unmapped */
    long *coords;    /* num_coords x ndims */
} pending_cart;

typedef struct {
    keymap machines, nodes, processes, threads;
} system_keys;

/* A result process: the input that brought it (for messages), and how its
 * threads' ranks relate to the ranks they are matched by.  A thread keeps
 * the rank its input gives it, which is its matching rank plus an offset
 * (Score-P 1.x numbering, see local_thread_ranks) or the matching rank
 * itself, as long as every thread of the process, in every input that has
 * it, has the same offset; otherwise the process's threads take their
 * matching ranks (renumber). */
typedef struct {
    size_t origin;
    int64_t rank_offset;
    int offset_set, renumber;
} result_process;

/* For each result metric while inputs come: the input that brought it, the
 * last input that had it, and whether a warning about it was given. */
typedef struct {
    size_t input, last_input;
    int warned;
} metric_origin;

struct cube_union {
    cube_match match;
    cube_system_rule rule;
    cube_t *result;
    int result_taken, finished;
    union_input *inputs;
    size_t num_inputs, inputs_cap;
    keymap metric_keys, region_keys, cnode_keys;
    metric_origin *metric_origins;
    size_t origins_cap;
    keybuf key;
    system_keys sys;
    size_t extra_node;       /* -c: where ranks the first input lacks go */
    result_process *processes; /* for each result process */
    size_t processes_cap;
    pending_cart *carts;
    size_t num_carts;
    /* presence of each result item in each input, filled by finish */
    unsigned char **has_metric, **has_metric_data, **has_cnode, **has_thread;
    cube_status status; /* of the last call that changed the handle */
};

static int union_error(cube_union *u, cube_code code, const char *fmt, ...) CUBE_PRINTF(3, 4);

static int union_error(cube_union *u, cube_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    status_setv(&u->status, code, fmt, ap);
    va_end(ap);
    return -1;
}

static int oom(cube_union *u)
{
    return union_error(u, CUBE_ENOMEM, "out of memory");
}

cube_union *cube_union_create(cube_match match, cube_system_rule rule)
{
    cube_union *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->match = match;
    u->rule = rule;
    u->extra_node = NONE;
    u->result = cube_create();
    if (!u->result) {
        free(u);
        return NULL;
    }
    return u;
}

/* NULL is the handle cube_union_create could not allocate. */
cube_code cube_union_error_code(const cube_union *u)
{
    return u ? u->status.code : CUBE_ENOMEM;
}

const char *cube_union_error(const cube_union *u)
{
    return u ? u->status.message : "out of memory";
}

/* Remember a created result item under the key in u->key; its index, or
 * NONE when `created` is NULL or out of memory. */
static size_t remember(cube_union *u, keymap *keys, const void *created)
{
    if (!created || u->key.failed)
        return NONE;
    size_t index = ((const entity_head *)created)->index;
    return keymap_put(keys, u->key.data, u->key.len, index) == 0 ? index : NONE;
}

/* The result item already under the key in u->key, or NONE. */
static size_t known(const cube_union *u, const keymap *keys)
{
    return u->key.failed ? NONE : keymap_get(keys, u->key.data, u->key.len);
}

static size_t *new_map(size_t n)
{
    size_t *map = malloc((n ? n : 1) * sizeof *map);
    if (map)
        for (size_t i = 0; i < n; i++)
            map[i] = NONE;
    return map;
}

/* ---------------------------------------------------------------------- */
/* attributes, mirrors, metrics, regions, call paths                       */

static int unite_attributes(cube_union *u, const cube_t *in)
{
    for (size_t i = 0; i < in->attrs.count; i++) {
        const cube_attr *a = in->attrs.items[i];
        if (!cube_get_attr(u->result, a->key) && model_set_attr(u->result, a->key, a->value))
            return oom(u);
    }
    for (size_t i = 0; i < in->mirrors.count; i++) {
        const char *url = in->mirrors.items[i];
        int known = 0;
        for (size_t k = 0; k < u->result->mirrors.count && !known; k++)
            known = strcmp(u->result->mirrors.items[k], url) == 0;
        if (!known && model_add_mirror(u->result, url) != 0)
            return oom(u);
    }
    return 0;
}

/* "a root metric" or "under 'parent'", for messages. */
static void describe_position(char *buf, size_t len, const cube_metric *parent)
{
    if (parent)
        snprintf(buf, len, "under '%s'", parent->uniq_name);
    else
        snprintf(buf, len, "a root metric");
}

/* Metric m of input ui (`in`) has the unique name of result metric
 * `found`: warn, once per result metric, when the input repeats the name or
 * puts the metric elsewhere in the tree than the input that brought it. */
static int note_metric_position(cube_union *u, const union_input *ui, const cube_t *in,
                                const cube_metric *m, size_t found, size_t parent)
{
    metric_origin *o = &u->metric_origins[found];
    const cube_metric *rm = u->result->metrics.items[found];
    size_t here = rm->parent ? rm->parent->index : NONE;
    int repeated = o->last_input == u->num_inputs - 1;
    o->last_input = u->num_inputs - 1;
    if (o->warned || (!repeated && here == parent))
        return 0;
    o->warned = 1;
    char first[300], other[300];
    describe_position(other, sizeof other, m->parent);
    int rc;
    if (repeated) {
        const cube_metric *before = NULL; /* this input's first metric of that name */
        for (size_t i = 0; i < m->index && !before; i++)
            if (ui->metric_map[i] == found)
                before = in->metrics.items[i];
        describe_position(first, sizeof first, before ? before->parent : rm->parent);
        rc = cube_add_warning(u->result,
                              "%s: two metrics have the unique name '%s' (%s, and %s): the "
                              "first is used, the values of the other are ignored",
                              ui->name, m->uniq_name, first, other);
    } else {
        describe_position(first, sizeof first, rm->parent);
        rc = cube_add_warning(u->result,
                              "metric '%s' is %s in %s but %s in %s; it is one metric, placed "
                              "as in %s",
                              m->uniq_name, first, u->inputs[o->input].name, other, ui->name,
                              u->inputs[o->input].name);
    }
    return rc != 0 ? oom(u) : 0;
}

/* A unique name names one metric of an experiment: metrics are lined up by
 * unique name alone, wherever they sit in the tree, and a metric stays
 * where the first input that has it put it.  A child whose parent moved
 * follows its parent.  An input that gives one unique name to several
 * metrics is read as every query by unique name reads it (cube_find_metric,
 * cube_dump -m): the first one counts, the values of the others are
 * ignored (their map entry is NONE); their children are lined up under
 * the first. */
static int unite_metrics(cube_union *u, union_input *ui, const cube_t *in)
{
    cube_t *res = u->result;
    /* parents are defined before their children: one pass in definition
     * order sees every parent mapped already */
    for (size_t i = 0; i < in->metrics.count; i++) {
        const cube_metric *m = in->metrics.items[i];
        size_t parent = m->parent ? ui->metric_map[m->parent->index] : NONE;
        keybuf_reset(&u->key);
        keybuf_str(&u->key, m->uniq_name);
        size_t found = known(u, &u->metric_keys);
        if (found != NONE) {
            if (u->metric_origins[found].last_input == u->num_inputs - 1)
                ui->metric_void[i] = 2; /* a repeat within this input */
            if (note_metric_position(u, ui, in, m, found, parent) != 0)
                return -1;
        } else {
            size_t n = res->metrics.count;
            metric_origin *grown = grow_array(u->metric_origins, n, &u->origins_cap,
                                              sizeof *grown, 64);
            if (!grown)
                return oom(u);
            u->metric_origins = grown;
            found = remember(u, &u->metric_keys,
                             model_add_metric(res, (int64_t)n, m->disp_name, m->uniq_name,
                                              m->dtype, m->uom, m->val, m->url, m->descr,
                                              parent == NONE ? NULL : res->metrics.items[parent]));
            if (found == NONE ||
                model_copy_metric_extras(res, res->metrics.items[found], m) != 0)
                return oom(u);
            u->metric_origins[found] = (metric_origin){u->num_inputs - 1, u->num_inputs - 1, 0};
        }
        ui->metric_map[i] = found;
    }
    for (size_t i = 0; i < in->metrics.count; i++)
        if (ui->metric_void[i] == 2)
            ui->metric_map[i] = NONE;
    return 0;
}

/* Stored call-tree inclusive: CubeLib reads SIMPLE metrics as INCLUSIVE. */
static int stored_inclusive(cube_metric_kind kind)
{
    return kind == CUBE_KIND_INCLUSIVE || kind == CUBE_KIND_SIMPLE;
}

/* How the rows of each of the input's metrics join the result metric,
 * whose kind is that of the first input that has it: as stored when both
 * keep their values alike; converted along the call tree (by
 * cube_combine and cube_compare, row by row) when one is stored
 * inclusive and the other exclusive; not at all when either is derived,
 * for a derived metric has no stored values.  One warning for each
 * metric of a later input whose kind differs. */
static int metric_rules(cube_union *u, union_input *ui, const cube_t *in)
{
    const cube_t *res = u->result;
    for (size_t i = 0; i < in->metrics.count; i++) {
        const cube_metric *m = in->metrics.items[i];
        ui->metric_rule[i] = UNION_ROWS_AS_STORED;
        if (ui->metric_map[i] == NONE)
            continue;
        const cube_metric *rm = res->metrics.items[ui->metric_map[i]];
        const char *first = u->inputs[u->metric_origins[rm->index].input].name;
        int rc = 0;
        if (cube_metric_is_derived(m) || cube_metric_is_derived(rm)) {
            ui->metric_rule[i] = UNION_ROWS_NONE;
            ui->metric_void[i] = 1;
            if (cube_metric_is_derived(rm) && !cube_metric_is_derived(m))
                rc = cube_add_warning(u->result,
                                      "metric '%s' is derived (%s) in %s: the result lists its "
                                      "expression without values, and the values %s stores "
                                      "for it are not used",
                                      m->uniq_name, cube_metric_kind_name(rm->kind), first,
                                      ui->name);
            else if (!cube_metric_is_derived(rm))
                rc = cube_add_warning(u->result,
                                      "metric '%s' is derived (%s) in %s but stored in %s: "
                                      "%s has no values for it",
                                      m->uniq_name, cube_metric_kind_name(m->kind), ui->name,
                                      first, ui->name);
        } else if (stored_inclusive(m->kind) != stored_inclusive(rm->kind)) {
            ui->metric_rule[i] = stored_inclusive(rm->kind) ? UNION_ROWS_TO_INCLUSIVE
                                                            : UNION_ROWS_TO_EXCLUSIVE;
            rc = cube_add_warning(u->result,
                                  "metric '%s' is stored %s in %s but %s in %s: the values of "
                                  "%s are converted to %s ones before they are combined",
                                  m->uniq_name, cube_metric_kind_name(m->kind), ui->name,
                                  cube_metric_kind_name(rm->kind), first, ui->name,
                                  stored_inclusive(rm->kind) ? "call-tree inclusive"
                                                             : "call-tree exclusive");
        }
        if (rc != 0)
            return oom(u);
    }
    return 0;
}

static int unite_regions(cube_union *u, union_input *ui, const cube_t *in)
{
    cube_t *res = u->result;
    for (size_t i = 0; i < in->regions.count; i++) {
        const cube_region *r = in->regions.items[i];
        keybuf_reset(&u->key);
        keybuf_str(&u->key, r->name);
        if (u->match == CUBE_MATCH_FULL)
            keybuf_str(&u->key, r->mod);
        size_t found = known(u, &u->region_keys);
        if (found == NONE &&
            ((found = remember(u, &u->region_keys,
                               model_add_region(res, (int64_t)res->regions.count, r->name,
                                                r->begin_line, r->end_line, r->url, r->descr,
                                                r->mod))) == NONE ||
             model_copy_region_extras(res, res->regions.items[found], r) != 0))
            return oom(u);
        ui->region_map[i] = found;
    }
    return 0;
}

static int unite_cnodes(cube_union *u, union_input *ui, const cube_t *in)
{
    cube_t *res = u->result;
    for (size_t i = 0; i < in->cnodes.count; i++) {
        const cube_cnode *n = in->cnodes.items[i];
        size_t parent = n->parent ? ui->cnode_map[n->parent->index] : NONE;
        size_t callee = ui->region_map[n->callee->index];
        keybuf_reset(&u->key);
        keybuf_u64(&u->key, parent + 1);
        keybuf_u64(&u->key, callee);
        if (u->match == CUBE_MATCH_FULL) {
            keybuf_u64(&u->key, (uint64_t)(int64_t)n->line);
            keybuf_str(&u->key, n->mod);
        }
        /* Call paths split by parameters (an MPI message size, ...) are
         * different call paths whatever the match: the parameters, in
         * their order, are part of the key. */
        keybuf_u64(&u->key, n->num_params);
        for (size_t p = 0; p < n->num_params; p++) {
            keybuf_u64(&u->key, (uint64_t)n->params[p].numeric);
            keybuf_str(&u->key, n->params[p].key);
            keybuf_str(&u->key, n->params[p].value);
        }
        /* Siblings of one input with the same key become one call path
         * whose values add up (the original tools dropped one of them). */
        size_t found = known(u, &u->cnode_keys);
        if (found == NONE &&
            ((found = remember(u, &u->cnode_keys,
                               model_add_cnode(res, (int64_t)res->cnodes.count,
                                               res->regions.items[callee], n->mod, n->line,
                                               parent == NONE ? NULL
                                                              : res->cnodes.items[parent]))) ==
                 NONE ||
             model_copy_cnode_extras(res, res->cnodes.items[found], n) != 0))
            return oom(u);
        ui->cnode_map[i] = found;
    }
    return 0;
}

/* Threads are matched by (process rank, thread rank).  Score-P 1.x numbers
 * thread ranks across the whole experiment instead (process 1's threads
 * are 9..17 when each process has 9), so the same run's profile and trace
 * would not line up.  When an input's thread ranks are exactly that
 * numbering (0, 1, 2, ... in tree order, some process not starting at 0),
 * its threads are matched by their rank within their process instead. */
static int64_t *local_thread_ranks(const cube_t *c)
{
    int64_t *ranks = malloc((c->threads.count ? c->threads.count : 1) * sizeof *ranks);
    if (!ranks)
        return NULL;
    int64_t expected = 0;
    int global = 0, consecutive = 1;
    for (size_t pi = 0; pi < c->processes.count && consecutive; pi++) {
        const cube_process *p = c->processes.items[pi];
        for (size_t ti = 0; ti < p->num_threads && consecutive; ti++) {
            consecutive = p->threads[ti]->rank == expected++;
            if (ti == 0 && p->threads[ti]->rank != 0)
                global = 1;
        }
    }
    for (size_t pi = 0; pi < c->processes.count; pi++) {
        const cube_process *p = c->processes.items[pi];
        for (size_t ti = 0; ti < p->num_threads; ti++) {
            const cube_thread *t = p->threads[ti];
            ranks[t->index] = global && consecutive ? t->rank - p->threads[0]->rank : t->rank;
        }
    }
    return ranks;
}

static int unite_system(cube_union *u, union_input *ui, const cube_t *input);
static int keep_topologies(cube_union *u, const union_input *ui, const cube_t *input);

/* What only the first input gives the result: its format (the result is
 * written in it unless told otherwise) and the extra members of its
 * archive (Score-P's remapping.spec, ...). */
static int keep_first_extras(cube_union *u, const cube_t *first)
{
    if (model_set_source(u->result, first->source_format, first->source_version) != 0)
        return oom(u);
    for (size_t i = 0; i < first->extra_members.count; i++) {
        const extra_member *m = first->extra_members.items[i];
        if (cube_add_extra_member(u->result, m->name, m->data, m->size) != 0)
            return oom(u);
    }
    return 0;
}

int cube_union_add(cube_union *u, const cube_t *input, const char *name)
{
    if (!u)
        return -1;
    status_ok(&u->status);
    if (!input)
        return union_error(u, CUBE_EINVAL, "cube_union_add: no experiment");
    if (u->finished)
        return union_error(u, CUBE_ESTATE, "cube_union_add after cube_union_finish");
    if (u->num_inputs == u->inputs_cap) {
        size_t cap = u->inputs_cap ? u->inputs_cap * 2 : 4;
        union_input *grown = realloc(u->inputs, cap * sizeof *grown);
        if (!grown)
            return oom(u);
        u->inputs = grown;
        u->inputs_cap = cap;
    }
    union_input *ui = &u->inputs[u->num_inputs++];
    memset(ui, 0, sizeof *ui);
    ui->name = cube_strdup(name);
    ui->num_metrics = input->metrics.count;
    ui->num_cnodes = input->cnodes.count;
    ui->num_threads = input->threads.count;
    ui->metric_map = new_map(input->metrics.count);
    ui->region_map = new_map(input->regions.count);
    ui->cnode_map = new_map(input->cnodes.count);
    ui->machine_map = new_map(input->machines.count);
    ui->node_map = new_map(input->nodes.count);
    ui->process_map = new_map(input->processes.count);
    ui->thread_map = new_map(input->threads.count);
    ui->thread_rank = local_thread_ranks(input);
    ui->metric_void = malloc(input->metrics.count + 1);
    ui->metric_rule = malloc(input->metrics.count + 1);
    if (!ui->name || !ui->metric_map || !ui->region_map || !ui->cnode_map ||
        !ui->machine_map || !ui->node_map || !ui->process_map || !ui->thread_map ||
        !ui->thread_rank || !ui->metric_void || !ui->metric_rule)
        return oom(u);
    for (size_t i = 0; i < input->metrics.count; i++)
        ui->metric_void[i] = ((const cube_metric *)input->metrics.items[i])->is_void != 0;
    if ((u->num_inputs == 1 && keep_first_extras(u, input) != 0) ||
        unite_attributes(u, input) != 0 || unite_metrics(u, ui, input) != 0 ||
        metric_rules(u, ui, input) != 0 || unite_regions(u, ui, input) != 0 ||
        unite_cnodes(u, ui, input) != 0 ||
        unite_system(u, ui, input) != 0 ||
        (u->num_inputs == 1 && keep_topologies(u, ui, input) != 0))
        return -1;
    if (u->key.failed)
        return oom(u);
    return 0;
}

/* ---------------------------------------------------------------------- */
/* the system trees                                                        */

static void system_keys_free(system_keys *k)
{
    keymap_free(&k->machines);
    keymap_free(&k->nodes);
    keymap_free(&k->processes);
    keymap_free(&k->threads);
}

/* Find or create the result item with a key: NONE when out of memory.  A
 * new item takes the CUBE 4 details (class, description, type,
 * attributes) of `src`, the input's item it is made for (NULL: an item of
 * the result's own, such as -C's virtual machine). */
static size_t find_machine(cube_union *u, const char *name, const char *descr,
                           const cube_machine *src)
{
    keybuf_reset(&u->key);
    keybuf_str(&u->key, name);
    size_t found = known(u, &u->sys.machines);
    if (found != NONE)
        return found;
    cube_machine *m =
        model_add_machine(u->result, (int64_t)u->result->machines.count, name, descr);
    found = remember(u, &u->sys.machines, m);
    if (found != NONE && src &&
        (model_arena_copy(u->result, &m->klass, src->klass) != 0 ||
         model_attrs_copy(u->result, &m->attrs, &src->attrs) != 0))
        return NONE;
    return found;
}

/* A node is matched by its machine, its parent node (NONE: directly below
 * the machine) and its name: so two inputs' nodes match when the names
 * on the path from the machine down to them agree. */
static size_t find_node(cube_union *u, size_t machine, size_t parent, const char *name,
                        const cube_node *src)
{
    keybuf_reset(&u->key);
    keybuf_u64(&u->key, machine);
    keybuf_u64(&u->key, parent + 1);
    keybuf_str(&u->key, name);
    size_t found = known(u, &u->sys.nodes);
    if (found != NONE)
        return found;
    cube_t *res = u->result;
    cube_node *n = model_add_stn(res, (int64_t)res->nodes.count, name,
                                 res->machines.items[machine],
                                 parent == NONE ? NULL : res->nodes.items[parent]);
    found = remember(u, &u->sys.nodes, n);
    if (found != NONE && src &&
        (model_arena_copy(res, &n->klass, src->klass) != 0 ||
         model_arena_copy(res, &n->descr, src->descr) != 0 ||
         model_attrs_copy(res, &n->attrs, &src->attrs) != 0))
        return NONE;
    return found;
}

/* Processes (CUBE 4's location groups) are matched by rank and type: an
 * accelerator of rank 0 is not MPI rank 0. */
static size_t get_process(cube_union *u, cube_group_type type, int64_t rank)
{
    keybuf_reset(&u->key);
    keybuf_u64(&u->key, (uint64_t)type);
    keybuf_u64(&u->key, (uint64_t)rank);
    return known(u, &u->sys.processes);
}

/* A new result process, remembering which input brought it (for messages). */
static size_t add_process(cube_union *u, size_t node, const char *name, int64_t rank,
                          cube_group_type type, const cube_process *src)
{
    size_t index = u->result->processes.count;
    result_process *grown = grow_array(u->processes, index, &u->processes_cap, sizeof *grown, 64);
    if (!grown)
        return NONE;
    u->processes = grown;
    cube_process *p = model_add_process(u->result, (int64_t)index, name, rank,
                                        u->result->nodes.items[node]);
    if (p)
        p->type = type;
    if (p && src && model_attrs_copy(u->result, &p->attrs, &src->attrs) != 0)
        return NONE;
    keybuf_reset(&u->key);
    keybuf_u64(&u->key, (uint64_t)type);
    keybuf_u64(&u->key, (uint64_t)rank);
    if (remember(u, &u->sys.processes, p) == NONE)
        return NONE;
    u->processes[index] = (result_process){u->num_inputs - 1, 0, 0, 0};
    return index;
}

/* a - b and a + b of ranks, wrapping: a hostile file's ranks may be near
 * the ends of int64_t, where the signed operations would overflow. */
static int64_t rank_sub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int64_t rank_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* Threads (CUBE 4's locations) are matched within their process by type
 * and rank: a GPU stream of rank 0 is not the master thread. */
static size_t known_thread(cube_union *u, size_t process, cube_location_type type, int64_t key)
{
    keybuf_reset(&u->key);
    keybuf_u64(&u->key, process);
    keybuf_u64(&u->key, (uint64_t)type);
    keybuf_u64(&u->key, (uint64_t)key);
    return known(u, &u->sys.threads);
}

/* Find or create the result thread of a process matched by `key`, for an
 * input thread whose rank in its file is `rank` (see result_process);
 * NONE when out of memory. */
static size_t find_thread(cube_union *u, size_t process, const char *name, int64_t key,
                          int64_t rank, cube_location_type type, const cube_thread *src)
{
    result_process *rp = &u->processes[process];
    if (!rp->offset_set) {
        rp->rank_offset = rank_sub(rank, key);
        rp->offset_set = 1;
    }
    if (rank_sub(rank, key) != rp->rank_offset)
        rp->renumber = 1;
    size_t found = known_thread(u, process, type, key);
    if (found != NONE)
        return found;
    cube_thread *t = model_add_thread(u->result, (int64_t)u->result->threads.count, name,
                                      rank_add(key, rp->rank_offset),
                                      u->result->processes.items[process]);
    if (t)
        t->type = type;
    if (t && src && model_attrs_copy(u->result, &t->attrs, &src->attrs) != 0)
        return NONE;
    return remember(u, &u->sys.threads, t);
}

/* The threads of a process whose inputs disagree on their ranks take the
 * ranks they were matched by. */
static void renumber_threads(cube_union *u)
{
    for (size_t pi = 0; pi < u->result->processes.count; pi++) {
        const result_process *rp = &u->processes[pi];
        const cube_process *p = u->result->processes.items[pi];
        for (size_t ti = 0; rp->renumber && ti < p->num_threads; ti++)
            p->threads[ti]->rank = rank_sub(p->threads[ti]->rank, rp->rank_offset);
    }
}

static int map_threads(cube_union *u, union_input *ui, const cube_process *p, size_t rp)
{
    ui->process_map[p->index] = rp;
    for (size_t ti = 0; ti < p->num_threads; ti++) {
        const cube_thread *t = p->threads[ti];
        size_t rt = find_thread(u, rp, t->name, ui->thread_rank[t->index], t->rank, t->type, t);
        if (rt == NONE)
            return oom(u);
        ui->thread_map[t->index] = rt;
    }
    return 0;
}

/* The names of the nodes from below the machine down to n, "rack/node",
 * for messages (cut short at the front when they do not fit). */
static void node_path(char *buf, size_t len, const cube_node *n)
{
    size_t end = len - 1;
    buf[end] = '\0';
    for (; n; n = n->parent) {
        size_t k = strlen(n->name) + (n->parent != NULL);
        if (k > end)
            break;
        end -= k;
        if (n->parent)
            buf[end] = '/';
        memcpy(buf + end + (n->parent != NULL), n->name, k - (n->parent != NULL));
    }
    memmove(buf, buf + end, len - end);
}

static int process_elsewhere(cube_union *u, const union_input *ui, const cube_process *p,
                             size_t rp)
{
    const cube_node *there = ((cube_process *)u->result->processes.items[rp])->node;
    char a[256], b[256];
    node_path(a, sizeof a, there);
    node_path(b, sizeof b, p->node);
    return union_error(u, CUBE_EMISMATCH,
                       "the system trees do not agree: process rank %lld is on node '%s' of "
                       "machine '%s' in %s but on node '%s' of machine '%s' in %s; use -c to "
                       "keep the first experiment's machines and nodes, or -C to collapse all "
                       "processes into one virtual node",
                       (long long)p->rank, a, there->machine->name,
                       u->inputs[u->processes[rp].origin].name, b, p->node->machine->name,
                       ui->name);
}

/* Map the input's machines and its system tree nodes of every depth onto
 * the result (created where missing), in tree order: a node before its
 * children, and with `processes`, the processes of each node (the
 * default rule: each placed on the node mapped from its own, which must
 * be where every earlier input placed that rank). */
static int unite_tree(cube_union *u, union_input *ui, const cube_t *c, int processes)
{
    const cube_node **stack = malloc((c->nodes.count ? c->nodes.count : 1) * sizeof *stack);
    if (!stack)
        return oom(u);
    int rc = 0;
    for (size_t mi = 0; mi < c->machines.count && rc == 0; mi++) {
        const cube_machine *m = c->machines.items[mi];
        size_t rm = find_machine(u, m->name, m->descr, m);
        if (rm == NONE) {
            rc = oom(u);
            break;
        }
        ui->machine_map[mi] = rm;
        size_t depth = 0;
        for (size_t ni = m->num_nodes; ni-- > 0 && depth < c->nodes.count;)
            stack[depth++] = m->nodes[ni];
        while (depth > 0 && rc == 0) {
            const cube_node *n = stack[--depth];
            size_t rn = find_node(u, rm, n->parent ? ui->node_map[n->parent->index] : NONE,
                                  n->name, n);
            if (rn == NONE) {
                rc = oom(u);
                break;
            }
            ui->node_map[n->index] = rn;
            for (size_t pi = 0; processes && pi < n->num_processes && rc == 0; pi++) {
                const cube_process *p = n->processes[pi];
                size_t rp = get_process(u, p->type, p->rank);
                if (rp == NONE && (rp = add_process(u, rn, p->name, p->rank, p->type, p)) == NONE)
                    rc = oom(u);
                else if (((cube_process *)u->result->processes.items[rp])->node->index != rn)
                    rc = process_elsewhere(u, ui, p, rp);
                else
                    rc = map_threads(u, ui, p, rp);
            }
            /* every node is pushed once, by its parent: the stack never
             * holds more than the input's nodes */
            for (size_t ci = n->num_children; ci-- > 0 && depth < c->nodes.count;)
                stack[depth++] = n->children[ci];
        }
    }
    free(stack);
    return rc;
}

/* Default: the trees must agree.  Machines match by name, nodes by the
 * names on their path from the machine, processes by rank and type, and
 * a rank must sit on the same node in every input that has it. */
static int unite_agreeing(cube_union *u, union_input *ui, const cube_t *c)
{
    return unite_tree(u, ui, c, 1);
}

/* -c: the first input's machines and nodes as they are; a rank the first
 * input lacks goes to one extra node. */
static int unite_first(cube_union *u, union_input *ui, const cube_t *c)
{
    int first = u->num_inputs == 1;
    /* The first input's machines and nodes first, in its tree order, also
     * those without processes: created only as its processes came, a node
     * without processes moved behind the others and a machine without
     * nodes was lost. */
    if (first && unite_tree(u, ui, c, 0) != 0)
        return -1;
    for (size_t pi = 0; pi < c->processes.count; pi++) {
        const cube_process *p = c->processes.items[pi];
        size_t rp = get_process(u, p->type, p->rank);
        if (rp == NONE && first) {
            rp = add_process(u, ui->node_map[p->node->index], p->name, p->rank, p->type, p);
        } else if (rp == NONE) {
            if (u->extra_node == NONE) {
                size_t rm = u->result->machines.count ? 0
                                                      : find_machine(u, "Machine", "", NULL);
                u->extra_node = rm == NONE ? NONE
                                           : find_node(u, rm, NONE,
                                                       "Processes not in the first experiment",
                                                       NULL);
                if (u->extra_node == NONE)
                    return oom(u);
            }
            rp = add_process(u, u->extra_node, p->name, p->rank, p->type, p);
        }
        if (rp == NONE)
            return oom(u);
        if (map_threads(u, ui, p, rp) != 0)
            return -1;
    }
    return 0;
}

/* -C: only the ranks and types are kept now; the virtual tree is built at
 * the end. */
static int note_ranks(cube_union *u, union_input *ui, const cube_t *c)
{
    size_t nt = c->threads.count ? c->threads.count : 1;
    ui->thread_process_rank = malloc(nt * sizeof *ui->thread_process_rank);
    ui->thread_types = malloc(2 * nt);
    if (!ui->thread_process_rank || !ui->thread_types)
        return oom(u);
    for (size_t ti = 0; ti < c->threads.count; ti++) {
        const cube_thread *t = c->threads.items[ti];
        ui->thread_process_rank[ti] = t->process->rank;
        ui->thread_types[2 * ti] = (unsigned char)t->process->type;
        ui->thread_types[2 * ti + 1] = (unsigned char)t->type;
    }
    int differ = 0;
    for (size_t ti = 0; ti < c->threads.count && !differ; ti++)
        differ = ((const cube_thread *)c->threads.items[ti])->rank != ui->thread_rank[ti];
    if (!differ)
        return 0;
    ui->thread_own_rank = malloc(c->threads.count * sizeof *ui->thread_own_rank);
    if (!ui->thread_own_rank)
        return oom(u);
    for (size_t ti = 0; ti < c->threads.count; ti++)
        ui->thread_own_rank[ti] = ((const cube_thread *)c->threads.items[ti])->rank;
    return 0;
}

static int unite_system(cube_union *u, union_input *ui, const cube_t *input)
{
    switch (u->rule) {
    case CUBE_SYSTEM_COLLAPSE: return note_ranks(u, ui, input);
    case CUBE_SYSTEM_FIRST: return unite_first(u, ui, input);
    default: return unite_agreeing(u, ui, input);
    }
}

/* An input thread under -C: the ranks and types it is matched by, its own
 * rank, its input. */
typedef struct {
    int64_t process_rank, thread_rank, own_rank;
    unsigned char process_type, thread_type;
    size_t input;
} rank_pair;

static int compare_rank_pairs(const void *a, const void *b)
{
    const rank_pair *x = a, *y = b;
    if (x->process_rank != y->process_rank)
        return x->process_rank < y->process_rank ? -1 : 1;
    if (x->process_type != y->process_type)
        return x->process_type < y->process_type ? -1 : 1;
    if (x->thread_type != y->thread_type)
        return x->thread_type < y->thread_type ? -1 : 1;
    return (x->thread_rank > y->thread_rank) - (x->thread_rank < y->thread_rank);
}

/* In input order within equal ranks: the first input's thread first. */
static int compare_rank_pairs_then_input(const void *a, const void *b)
{
    const rank_pair *x = a, *y = b;
    int c = compare_rank_pairs(a, b);
    return c ? c : (x->input > y->input) - (x->input < y->input);
}

/* The names of -C's processes and threads, by type. */
static const char *const collapsed_process_names[] = {"Process", "Metrics", "Accelerator"};
static const char *const collapsed_thread_names[] = {"Thread", "GPU", "Metric location"};

static const char *collapsed_name(const char *const *names, size_t count, unsigned type)
{
    return type < count ? names[type] : names[0];
}

/* -C: one virtual machine and node with every process rank (of each type)
 * of any input, each with every thread rank (of each type) any input has
 * for it, in rank order. */
static int unite_collapsed(cube_union *u)
{
    size_t total = 0;
    for (size_t in = 0; in < u->num_inputs; in++)
        total += u->inputs[in].num_threads;
    rank_pair *pairs = malloc((total ? total : 1) * sizeof *pairs);
    if (!pairs)
        return oom(u);
    size_t n = 0;
    for (size_t in = 0; in < u->num_inputs; in++) {
        const union_input *ui = &u->inputs[in];
        for (size_t ti = 0; ti < ui->num_threads; ti++)
            pairs[n++] = (rank_pair){ui->thread_process_rank[ti], ui->thread_rank[ti],
                                     ui->thread_own_rank ? ui->thread_own_rank[ti]
                                                         : ui->thread_rank[ti],
                                     ui->thread_types[2 * ti], ui->thread_types[2 * ti + 1],
                                     in};
    }
    qsort(pairs, n, sizeof *pairs, compare_rank_pairs_then_input);
    size_t rm = find_machine(u, "Virtual machine", "", NULL);
    size_t rn = rm == NONE ? NONE : find_node(u, rm, NONE, "Virtual node", NULL);
    if (rn == NONE) {
        free(pairs);
        return oom(u);
    }
    char name[64];
    size_t np = sizeof collapsed_process_names / sizeof collapsed_process_names[0];
    size_t nt = sizeof collapsed_thread_names / sizeof collapsed_thread_names[0];
    for (size_t first = 0, end; first < n; first = end) {
        /* one process: do its threads keep their own ranks? */
        int64_t offset = rank_sub(pairs[first].own_rank, pairs[first].thread_rank);
        int renumber = 0;
        for (end = first; end < n && pairs[end].process_rank == pairs[first].process_rank &&
                          pairs[end].process_type == pairs[first].process_type;
             end++)
            renumber |= rank_sub(pairs[end].own_rank, pairs[end].thread_rank) != offset;
        snprintf(name, sizeof name, "%s %lld",
                 collapsed_name(collapsed_process_names, np, pairs[first].process_type),
                 (long long)pairs[first].process_rank);
        size_t rp = add_process(u, rn, name, pairs[first].process_rank,
                                (cube_group_type)pairs[first].process_type, NULL);
        for (size_t i = first; rp != NONE && i < end; i++) {
            if (i > first && !compare_rank_pairs(&pairs[i - 1], &pairs[i]))
                continue;
            int64_t rank = renumber ? pairs[i].thread_rank : pairs[i].own_rank;
            snprintf(name, sizeof name, "%s %lld",
                     collapsed_name(collapsed_thread_names, nt, pairs[i].thread_type),
                     (long long)rank);
            if (find_thread(u, rp, name, pairs[i].thread_rank, rank,
                            (cube_location_type)pairs[i].thread_type, NULL) == NONE)
                rp = NONE;
        }
        if (rp == NONE) {
            free(pairs);
            return oom(u);
        }
    }
    free(pairs);
    /* every input thread onto its (process rank and type, thread type and
     * rank) */
    for (size_t in = 0; in < u->num_inputs; in++) {
        union_input *ui = &u->inputs[in];
        for (size_t ti = 0; ti < ui->num_threads; ti++) {
            size_t rp = get_process(u, (cube_group_type)ui->thread_types[2 * ti],
                                    ui->thread_process_rank[ti]);
            ui->thread_map[ti] = known_thread(u, rp, (cube_location_type)ui->thread_types[2 * ti + 1],
                                              ui->thread_rank[ti]);
        }
    }
    return 0;
}

/* The first input's topologies, their places mapped onto the result (the
 * first input's system tree is in the result already). */
static int keep_topologies(cube_union *u, const union_input *ui, const cube_t *c)
{
    if (u->rule == CUBE_SYSTEM_COLLAPSE || !c->carts.count)
        return 0;
    u->carts = calloc(c->carts.count, sizeof *u->carts);
    if (!u->carts)
        return oom(u);
    for (size_t i = 0; i < c->carts.count; i++) {
        const cube_cartesian *t = c->carts.items[i];
        pending_cart *pc = &u->carts[u->num_carts++];
        size_t nd = (size_t)t->ndims, nc = t->num_coords;
        pc->name = cube_strdup(t->name);
        pc->ndims = t->ndims;
        pc->dims = malloc(nd * sizeof *pc->dims);
        pc->periods = malloc(nd * sizeof *pc->periods);
        pc->dim_names = calloc(nd, sizeof *pc->dim_names);
        pc->num_coords = nc;
        pc->kinds = malloc((nc ? nc : 1) * sizeof *pc->kinds);
        pc->targets = malloc((nc ? nc : 1) * sizeof *pc->targets);
        pc->coords = malloc((nc ? nc : 1) * nd * sizeof *pc->coords);
        if (!pc->name || !pc->dims || !pc->periods || !pc->dim_names || !pc->kinds ||
            !pc->targets || !pc->coords)
            return oom(u);
        memcpy(pc->dims, t->dims, nd * sizeof *pc->dims);
        memcpy(pc->periods, t->periods, nd * sizeof *pc->periods);
        for (size_t d = 0; t->dim_names && d < nd; d++)
            if (t->dim_names[d] && !(pc->dim_names[d] = cube_strdup(t->dim_names[d])))
                return oom(u);
        for (size_t j = 0; j < nc; j++) {
            const cube_coord *cd = &t->coords[j];
            pc->kinds[j] = cd->kind;
            switch (cd->kind) {
            case CUBE_COORD_THREAD:
                pc->targets[j] = ui->thread_map[((cube_thread *)cd->entity)->index];
                break;
            case CUBE_COORD_PROCESS:
                pc->targets[j] = ui->process_map[((cube_process *)cd->entity)->index];
                break;
            case CUBE_COORD_NODE:
                pc->targets[j] = ui->node_map[((cube_node *)cd->entity)->index];
                break;
            case CUBE_COORD_MACHINE:
                pc->targets[j] = ui->machine_map[((cube_machine *)cd->entity)->index];
                break;
            }
            memcpy(pc->coords + j * nd, cd->coords, nd * sizeof *pc->coords);
        }
    }
    return 0;
}

/* Topologies survive only when the result's locations are exactly the
 * first input's: then its coordinates still mean the same places. */
static int create_topologies(cube_union *u)
{
    const union_input *first = &u->inputs[0];
    if (!u->num_carts || u->result->threads.count != first->num_threads)
        return 0;
    for (size_t i = 0; i < u->num_carts; i++) {
        const pending_cart *pc = &u->carts[i];
        cube_cartesian *copy = model_add_cart(u->result, pc->name, pc->ndims, pc->dims,
                                              pc->periods);
        if (!copy)
            return oom(u);
        for (long d = 0; d < pc->ndims; d++)
            if (pc->dim_names[d] && cube_cart_set_dim_name(u->result, copy, d, pc->dim_names[d]))
                return oom(u);
        for (size_t j = 0; j < pc->num_coords; j++) {
            if (pc->targets[j] == NONE)
                continue;
            const ptr_list *list = pc->kinds[j] == CUBE_COORD_THREAD    ? &u->result->threads
                                   : pc->kinds[j] == CUBE_COORD_PROCESS ? &u->result->processes
                                   : pc->kinds[j] == CUBE_COORD_NODE    ? &u->result->nodes
                                                                         : &u->result->machines;
            if (cube_def_coords_of(u->result, copy, pc->kinds[j], list->items[pc->targets[j]],
                                   pc->coords + j * (size_t)pc->ndims) != 0)
                return oom(u);
        }
    }
    return 0;
}

typedef enum { PRESENCE_METRIC, PRESENCE_METRIC_DATA, PRESENCE_CNODE, PRESENCE_THREAD } presence_kind;

/* has[k][i]: how many of input k's items were mapped onto the result's item
 * i, 2 standing for more than one (for PRESENCE_METRIC_DATA, metrics only
 * where they carry data: a VOID metric has nothing to give). */
static unsigned char **presence(cube_union *u, presence_kind kind, size_t result_count)
{
    unsigned char **has = calloc(u->num_inputs, sizeof *has);
    if (!has)
        return NULL;
    for (size_t in = 0; in < u->num_inputs; in++) {
        const union_input *ui = &u->inputs[in];
        has[in] = calloc(result_count ? result_count : 1, 1);
        if (!has[in])
            return has; /* freed by the caller through u */
        int metric = kind == PRESENCE_METRIC || kind == PRESENCE_METRIC_DATA;
        const size_t *map = metric ? ui->metric_map
                            : kind == PRESENCE_CNODE ? ui->cnode_map
                                                     : ui->thread_map;
        size_t n = metric ? ui->num_metrics
                   : kind == PRESENCE_CNODE ? ui->num_cnodes
                                            : ui->num_threads;
        for (size_t i = 0; i < n; i++)
            if (map[i] != NONE && !(kind == PRESENCE_METRIC_DATA && ui->metric_void[i]) &&
                has[in][map[i]] < 2)
                has[in][map[i]]++;
    }
    return has;
}

static int all_present(unsigned char **has, size_t n)
{
    if (!has)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!has[i])
            return 0;
    return 1;
}

int cube_union_finish(cube_union *u)
{
    if (!u)
        return -1;
    status_ok(&u->status);
    if (u->finished)
        return 0;
    if (!u->num_inputs)
        return union_error(u, CUBE_ESTATE, "no experiment to line up");
    if (u->rule == CUBE_SYSTEM_COLLAPSE && unite_collapsed(u) != 0)
        return -1;
    if (u->key.failed)
        return oom(u);
    renumber_threads(u);
    if (create_topologies(u) != 0)
        return -1;
    /* the keys are only needed while inputs come: free them before the
     * caller reads the rows */
    keymap_free(&u->metric_keys);
    keymap_free(&u->region_keys);
    keymap_free(&u->cnode_keys);
    system_keys_free(&u->sys);
    keybuf_free(&u->key);
    free(u->metric_origins);
    u->metric_origins = NULL;
    for (size_t in = 0; in < u->num_inputs; in++) {
        free(u->inputs[in].region_map);
        u->inputs[in].region_map = NULL;
    }
    u->has_metric = presence(u, PRESENCE_METRIC, u->result->metrics.count);
    u->has_metric_data = presence(u, PRESENCE_METRIC_DATA, u->result->metrics.count);
    u->has_cnode = presence(u, PRESENCE_CNODE, u->result->cnodes.count);
    u->has_thread = presence(u, PRESENCE_THREAD, u->result->threads.count);
    if (!all_present(u->has_metric, u->num_inputs) ||
        !all_present(u->has_metric_data, u->num_inputs) || !all_present(u->has_cnode, u->num_inputs) ||
        !all_present(u->has_thread, u->num_inputs))
        return oom(u);
    u->finished = 1;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* queries                                                                 */

cube_t *cube_union_result(cube_union *u)
{
    return u->result_taken ? NULL : u->result;
}

cube_t *cube_union_take_result(cube_union *u)
{
    if (u->result_taken)
        return NULL;
    u->result_taken = 1;
    return u->result;
}

const size_t *cube_union_metric_map(const cube_union *u, size_t k)
{
    return k < u->num_inputs ? u->inputs[k].metric_map : NULL;
}

const size_t *cube_union_cnode_map(const cube_union *u, size_t k)
{
    return k < u->num_inputs ? u->inputs[k].cnode_map : NULL;
}

const size_t *cube_union_thread_map(const cube_union *u, size_t k)
{
    return k < u->num_inputs ? u->inputs[k].thread_map : NULL;
}

int cube_union_input_size(const cube_union *u, size_t k, size_t *metrics, size_t *cnodes,
                          size_t *threads, cube_status *status)
{
    if (!u || k >= u->num_inputs) {
        status_set(status, CUBE_EINVAL, "no input %zu to line up", k);
        return -1;
    }
    status_ok(status);
    *metrics = u->inputs[k].num_metrics;
    *cnodes = u->inputs[k].num_cnodes;
    *threads = u->inputs[k].num_threads;
    return 0;
}

static int has(unsigned char **table, const cube_union *u, size_t k, size_t item, size_t count)
{
    return u->finished && k < u->num_inputs && item < count && table[k][item] != 0;
}

const unsigned char *union_metric_counts(const cube_union *u, size_t k, int with_data)
{
    return u->finished && k < u->num_inputs ? (with_data ? u->has_metric_data : u->has_metric)[k]
                                            : NULL;
}

const unsigned char *union_metric_rules(const cube_union *u, size_t k)
{
    return u->finished && k < u->num_inputs ? u->inputs[k].metric_rule : NULL;
}

const unsigned char *union_cnode_counts(const cube_union *u, size_t k)
{
    return u->finished && k < u->num_inputs ? u->has_cnode[k] : NULL;
}

const unsigned char *union_thread_counts(const cube_union *u, size_t k)
{
    return u->finished && k < u->num_inputs ? u->has_thread[k] : NULL;
}

int cube_union_input_has_metric(const cube_union *u, size_t k, size_t result_metric)
{
    return has(u->has_metric, u, k, result_metric, u->result->metrics.count);
}

int cube_union_input_has_metric_data(const cube_union *u, size_t k, size_t result_metric)
{
    return has(u->has_metric_data, u, k, result_metric, u->result->metrics.count);
}

int cube_union_input_has_cnode(const cube_union *u, size_t k, size_t result_cnode)
{
    return has(u->has_cnode, u, k, result_cnode, u->result->cnodes.count);
}

int cube_union_input_has_thread(const cube_union *u, size_t k, size_t result_thread)
{
    return has(u->has_thread, u, k, result_thread, u->result->threads.count);
}

static void free_presence(unsigned char **table, size_t n)
{
    if (!table)
        return;
    for (size_t i = 0; i < n; i++)
        free(table[i]);
    free(table);
}

void cube_union_free(cube_union *u)
{
    if (!u)
        return;
    for (size_t i = 0; i < u->num_inputs; i++) {
        union_input *ui = &u->inputs[i];
        free(ui->name);
        free(ui->metric_map);
        free(ui->region_map);
        free(ui->cnode_map);
        free(ui->machine_map);
        free(ui->node_map);
        free(ui->process_map);
        free(ui->thread_map);
        free(ui->thread_rank);
        free(ui->thread_process_rank);
        free(ui->thread_types);
        free(ui->thread_own_rank);
        free(ui->metric_void);
        free(ui->metric_rule);
    }
    for (size_t i = 0; i < u->num_carts; i++) {
        pending_cart *pc = &u->carts[i];
        for (long d = 0; pc->dim_names && d < pc->ndims; d++)
            free(pc->dim_names[d]);
        free(pc->name);
        free(pc->dims);
        free(pc->periods);
        free(pc->dim_names);
        free(pc->kinds);
        free(pc->targets);
        free(pc->coords);
    }
    free(u->carts);
    free(u->processes);
    free(u->metric_origins);
    system_keys_free(&u->sys);
    free_presence(u->has_metric, u->num_inputs);
    free_presence(u->has_metric_data, u->num_inputs);
    free_presence(u->has_cnode, u->num_inputs);
    free_presence(u->has_thread, u->num_inputs);
    free(u->inputs);
    keymap_free(&u->metric_keys);
    keymap_free(&u->region_keys);
    keymap_free(&u->cnode_keys);
    keybuf_free(&u->key);
    if (!u->result_taken)
        cube_free(u->result);
    free(u);
}
