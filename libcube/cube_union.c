/*
 * cube_union.c - lining up the dimensions of several experiments.
 *
 * The result is built in a fresh model.  Each input's metrics, regions and
 * call paths are added as the input comes (cube_union_add): an item whose
 * key is already in the result is mapped onto it, any other one is created
 * under its mapped parent, so the subtrees only one input has are grafted
 * in.  The system trees are united at the end (cube_union_finish), because
 * collapsing them needs every input's ranks first.
 *
 * Every key lives in a hash map (keymap), so lining up is linear in the
 * size of the inputs; the original tools compared every call path with
 * every other one and took minutes on large trees.
 */
#include "cube_internal.h"
#include "keymap.h"

#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

typedef struct {
    const cube_t *cube;
    char *name;
    size_t *metric_map, *region_map, *cnode_map;
    size_t *machine_map, *node_map, *process_map, *thread_map;
    int64_t *thread_rank; /* the rank a thread is matched by, see local_thread_ranks */
} union_input;

struct cube_union {
    cube_match match;
    cube_system_rule rule;
    cube_t *result;
    int result_taken, finished;
    union_input *inputs;
    size_t num_inputs, inputs_cap;
    keymap metric_keys, region_keys, cnode_keys;
    keybuf key;
    /* presence of each result item in each input, filled by finish */
    unsigned char **has_metric, **has_cnode, **has_thread;
    char error[768];
};

static int union_error(cube_union *u, const char *fmt, ...) CUBE_PRINTF(2, 3);

static int union_error(cube_union *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->error, sizeof u->error, fmt, ap);
    va_end(ap);
    return -1;
}

static int oom(cube_union *u)
{
    return union_error(u, "out of memory");
}

cube_union *cube_union_create(cube_match match, cube_system_rule rule)
{
    cube_union *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->match = match;
    u->rule = rule;
    u->result = cube_create();
    if (!u->result) {
        free(u);
        return NULL;
    }
    return u;
}

const char *cube_union_error(const cube_union *u)
{
    return u ? u->error : "out of memory";
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

static int unite_metrics(cube_union *u, union_input *ui)
{
    const cube_t *in = ui->cube;
    cube_t *res = u->result;
    /* parents are defined before their children: one pass in definition
     * order sees every parent mapped already */
    for (size_t i = 0; i < in->metrics.count; i++) {
        const cube_metric *m = in->metrics.items[i];
        size_t parent = m->parent ? ui->metric_map[m->parent->index] : NONE;
        keybuf_reset(&u->key);
        keybuf_u64(&u->key, parent + 1);
        keybuf_str(&u->key, m->uniq_name);
        if (u->key.failed)
            return oom(u);
        size_t found = keymap_get(&u->metric_keys, u->key.data, u->key.len);
        if (found == KEYMAP_ABSENT) {
            cube_metric *created = model_add_metric(
                res, (int64_t)res->metrics.count, m->disp_name, m->uniq_name, m->dtype, m->uom,
                m->val, m->url, m->descr, parent == NONE ? NULL : res->metrics.items[parent]);
            if (!created ||
                keymap_put(&u->metric_keys, u->key.data, u->key.len, created->index) != 0)
                return oom(u);
            found = created->index;
        }
        ui->metric_map[i] = found;
    }
    return 0;
}

static int unite_regions(cube_union *u, union_input *ui)
{
    const cube_t *in = ui->cube;
    cube_t *res = u->result;
    for (size_t i = 0; i < in->regions.count; i++) {
        const cube_region *r = in->regions.items[i];
        keybuf_reset(&u->key);
        keybuf_str(&u->key, r->name);
        if (u->match == CUBE_MATCH_FULL)
            keybuf_str(&u->key, r->mod);
        if (u->key.failed)
            return oom(u);
        size_t found = keymap_get(&u->region_keys, u->key.data, u->key.len);
        if (found == KEYMAP_ABSENT) {
            cube_region *created =
                model_add_region(res, (int64_t)res->regions.count, r->name, r->begin_line,
                                 r->end_line, r->url, r->descr, r->mod);
            if (!created ||
                keymap_put(&u->region_keys, u->key.data, u->key.len, created->index) != 0)
                return oom(u);
            found = created->index;
        }
        ui->region_map[i] = found;
    }
    return 0;
}

static int unite_cnodes(cube_union *u, union_input *ui)
{
    const cube_t *in = ui->cube;
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
        if (u->key.failed)
            return oom(u);
        /* Siblings of one input with the same key become one call path
         * whose values add up (the original tools dropped one of them). */
        size_t found = keymap_get(&u->cnode_keys, u->key.data, u->key.len);
        if (found == KEYMAP_ABSENT) {
            cube_cnode *created = model_add_cnode(
                res, (int64_t)res->cnodes.count, res->regions.items[callee], n->mod, n->line,
                parent == NONE ? NULL : res->cnodes.items[parent]);
            if (!created ||
                keymap_put(&u->cnode_keys, u->key.data, u->key.len, created->index) != 0)
                return oom(u);
            found = created->index;
        }
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

int cube_union_add(cube_union *u, const cube_t *input, const char *name)
{
    if (u->finished)
        return union_error(u, "cube_union_add after cube_union_finish");
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
    ui->cube = input;
    ui->name = cube_strdup(name);
    ui->metric_map = new_map(input->metrics.count);
    ui->region_map = new_map(input->regions.count);
    ui->cnode_map = new_map(input->cnodes.count);
    ui->machine_map = new_map(input->machines.count);
    ui->node_map = new_map(input->nodes.count);
    ui->process_map = new_map(input->processes.count);
    ui->thread_map = new_map(input->threads.count);
    ui->thread_rank = local_thread_ranks(input);
    if (!ui->name || !ui->metric_map || !ui->region_map || !ui->cnode_map ||
        !ui->machine_map || !ui->node_map || !ui->process_map || !ui->thread_map ||
        !ui->thread_rank)
        return oom(u);
    if (unite_attributes(u, input) != 0 || unite_metrics(u, ui) != 0 ||
        unite_regions(u, ui) != 0 || unite_cnodes(u, ui) != 0)
        return -1;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* the system trees                                                        */

typedef struct {
    keymap machines, nodes, processes, threads;
} system_keys;

static void system_keys_free(system_keys *k)
{
    keymap_free(&k->machines);
    keymap_free(&k->nodes);
    keymap_free(&k->processes);
    keymap_free(&k->threads);
}

/* Find or create the result item with a key; `create` is only called when
 * the key is new and returns the created item's index (NONE on failure). */
static size_t find_machine(cube_union *u, system_keys *k, const char *name, const char *descr)
{
    keybuf_reset(&u->key);
    keybuf_str(&u->key, name);
    size_t found = keymap_get(&k->machines, u->key.data, u->key.len);
    if (found != KEYMAP_ABSENT)
        return found;
    cube_machine *m = model_add_machine(u->result, (int64_t)u->result->machines.count, name,
                                        descr);
    if (!m || keymap_put(&k->machines, u->key.data, u->key.len, m->index) != 0)
        return NONE;
    return m->index;
}

static size_t find_node(cube_union *u, system_keys *k, size_t machine, const char *name)
{
    keybuf_reset(&u->key);
    keybuf_u64(&u->key, machine);
    keybuf_str(&u->key, name);
    size_t found = keymap_get(&k->nodes, u->key.data, u->key.len);
    if (found != KEYMAP_ABSENT)
        return found;
    cube_node *n = model_add_node(u->result, (int64_t)u->result->nodes.count, name,
                                  u->result->machines.items[machine]);
    if (!n || keymap_put(&k->nodes, u->key.data, u->key.len, n->index) != 0)
        return NONE;
    return n->index;
}

static size_t get_process(cube_union *u, system_keys *k, int64_t rank)
{
    keybuf_reset(&u->key);
    keybuf_u64(&u->key, (uint64_t)rank);
    size_t found = keymap_get(&k->processes, u->key.data, u->key.len);
    return found == KEYMAP_ABSENT ? NONE : found;
}

static size_t add_process(cube_union *u, system_keys *k, size_t node, const char *name,
                          int64_t rank)
{
    cube_process *p = model_add_process(u->result, (int64_t)u->result->processes.count, name,
                                        rank, u->result->nodes.items[node]);
    keybuf_reset(&u->key);
    keybuf_u64(&u->key, (uint64_t)rank);
    if (!p || keymap_put(&k->processes, u->key.data, u->key.len, p->index) != 0)
        return NONE;
    return p->index;
}

static size_t find_thread(cube_union *u, system_keys *k, size_t process, const char *name,
                          int64_t rank)
{
    keybuf_reset(&u->key);
    keybuf_u64(&u->key, process);
    keybuf_u64(&u->key, (uint64_t)rank);
    size_t found = keymap_get(&k->threads, u->key.data, u->key.len);
    if (found != KEYMAP_ABSENT)
        return found;
    cube_thread *t = model_add_thread(u->result, (int64_t)u->result->threads.count, name, rank,
                                      u->result->processes.items[process]);
    if (!t || keymap_put(&k->threads, u->key.data, u->key.len, t->index) != 0)
        return NONE;
    return t->index;
}

static int input_has_rank(const cube_union *u, size_t k, int64_t rank)
{
    const cube_t *c = u->inputs[k].cube;
    for (size_t i = 0; i < c->processes.count; i++)
        if (((const cube_process *)c->processes.items[i])->rank == rank)
            return 1;
    return 0;
}

/* Default: the trees must agree.  Machines match by name, nodes by machine
 * and name, processes by rank, and a rank must sit on a node of the same
 * name and machine in every input that has it. */
static int unite_agreeing(cube_union *u, system_keys *k)
{
    for (size_t in = 0; in < u->num_inputs; in++) {
        union_input *ui = &u->inputs[in];
        const cube_t *c = ui->cube;
        for (size_t mi = 0; mi < c->machines.count; mi++) {
            const cube_machine *m = c->machines.items[mi];
            size_t rm = find_machine(u, k, m->name, m->descr);
            if (rm == NONE)
                return oom(u);
            ui->machine_map[mi] = rm;
            for (size_t ni = 0; ni < m->num_nodes; ni++) {
                const cube_node *n = m->nodes[ni];
                size_t rn = find_node(u, k, rm, n->name);
                if (rn == NONE)
                    return oom(u);
                ui->node_map[n->index] = rn;
                for (size_t pi = 0; pi < n->num_processes; pi++) {
                    const cube_process *p = n->processes[pi];
                    size_t rp = get_process(u, k, p->rank);
                    if (rp == NONE) {
                        rp = add_process(u, k, rn, p->name, p->rank);
                        if (rp == NONE)
                            return oom(u);
                    } else {
                        const cube_node *there = ((cube_process *)u->result->processes.items[rp])->node;
                        if (there->index != rn) {
                            size_t first = 0;
                            while (first < in && !input_has_rank(u, first, p->rank))
                                first++;
                            return union_error(
                                u,
                                "the system trees do not agree: process rank %lld is on node "
                                "'%s' of machine '%s' in %s but on node '%s' of machine '%s' "
                                "in %s; use -c to keep the first experiment's machines and "
                                "nodes, or -C to collapse all processes into one virtual node",
                                (long long)p->rank, there->name, there->machine->name,
                                u->inputs[first].name, n->name, m->name, ui->name);
                        }
                    }
                    ui->process_map[p->index] = rp;
                    for (size_t ti = 0; ti < p->num_threads; ti++) {
                        const cube_thread *t = p->threads[ti];
                        size_t rt = find_thread(u, k, rp, t->name, ui->thread_rank[t->index]);
                        if (rt == NONE)
                            return oom(u);
                        ui->thread_map[t->index] = rt;
                    }
                }
            }
        }
    }
    return 0;
}

/* -c: the first input's machines and nodes as they are; a rank the first
 * input lacks goes to one extra node. */
static int unite_first(cube_union *u, system_keys *k)
{
    size_t extra_node = NONE;
    /* The first input's machines and nodes first, in its tree order, also
     * those without processes: created only as its processes came, a node
     * without processes moved behind the others and a machine without
     * nodes was lost. */
    const cube_t *first = u->inputs[0].cube;
    for (size_t mi = 0; mi < first->machines.count; mi++) {
        const cube_machine *m = first->machines.items[mi];
        size_t rm = find_machine(u, k, m->name, m->descr);
        if (rm == NONE)
            return oom(u);
        u->inputs[0].machine_map[mi] = rm;
        for (size_t ni = 0; ni < m->num_nodes; ni++) {
            size_t rn = find_node(u, k, rm, m->nodes[ni]->name);
            if (rn == NONE)
                return oom(u);
            u->inputs[0].node_map[m->nodes[ni]->index] = rn;
        }
    }
    for (size_t in = 0; in < u->num_inputs; in++) {
        union_input *ui = &u->inputs[in];
        const cube_t *c = ui->cube;
        for (size_t pi = 0; pi < c->processes.count; pi++) {
            const cube_process *p = c->processes.items[pi];
            size_t rp = get_process(u, k, p->rank);
            if (rp == NONE && in == 0) {
                rp = add_process(u, k, ui->node_map[p->node->index], p->name, p->rank);
            } else if (rp == NONE) {
                if (extra_node == NONE) {
                    size_t rm = u->result->machines.count
                                    ? 0
                                    : find_machine(u, k, "Machine", "");
                    extra_node = rm == NONE ? NONE
                                            : find_node(u, k, rm, "Processes not in the first experiment");
                    if (extra_node == NONE)
                        return oom(u);
                }
                rp = add_process(u, k, extra_node, p->name, p->rank);
            }
            if (rp == NONE)
                return oom(u);
            ui->process_map[pi] = rp;
            for (size_t ti = 0; ti < p->num_threads; ti++) {
                const cube_thread *t = p->threads[ti];
                size_t rt = find_thread(u, k, rp, t->name, ui->thread_rank[t->index]);
                if (rt == NONE)
                    return oom(u);
                ui->thread_map[t->index] = rt;
            }
        }
    }
    return 0;
}

typedef struct {
    int64_t process_rank, thread_rank;
} rank_pair;

static int compare_rank_pairs(const void *a, const void *b)
{
    const rank_pair *x = a, *y = b;
    if (x->process_rank != y->process_rank)
        return x->process_rank < y->process_rank ? -1 : 1;
    return (x->thread_rank > y->thread_rank) - (x->thread_rank < y->thread_rank);
}

/* -C: one virtual machine and node with every process rank of any input,
 * each with every thread rank any input has for it, in rank order. */
static int unite_collapsed(cube_union *u, system_keys *k)
{
    size_t total = 0;
    for (size_t in = 0; in < u->num_inputs; in++)
        total += u->inputs[in].cube->threads.count;
    rank_pair *pairs = malloc((total ? total : 1) * sizeof *pairs);
    if (!pairs)
        return oom(u);
    size_t n = 0;
    for (size_t in = 0; in < u->num_inputs; in++) {
        const cube_t *c = u->inputs[in].cube;
        for (size_t ti = 0; ti < c->threads.count; ti++) {
            const cube_thread *t = c->threads.items[ti];
            pairs[n++] = (rank_pair){t->process->rank, u->inputs[in].thread_rank[ti]};
        }
    }
    qsort(pairs, n, sizeof *pairs, compare_rank_pairs);
    size_t rm = find_machine(u, k, "Virtual machine", "");
    size_t rn = rm == NONE ? NONE : find_node(u, k, rm, "Virtual node");
    if (rn == NONE) {
        free(pairs);
        return oom(u);
    }
    char name[64];
    for (size_t i = 0; i < n; i++) {
        if (i && !compare_rank_pairs(&pairs[i - 1], &pairs[i]))
            continue;
        size_t rp = get_process(u, k, pairs[i].process_rank);
        if (rp == NONE) {
            snprintf(name, sizeof name, "Process %lld", (long long)pairs[i].process_rank);
            rp = add_process(u, k, rn, name, pairs[i].process_rank);
        }
        snprintf(name, sizeof name, "Thread %lld", (long long)pairs[i].thread_rank);
        if (rp == NONE || find_thread(u, k, rp, name, pairs[i].thread_rank) == NONE) {
            free(pairs);
            return oom(u);
        }
    }
    free(pairs);
    /* every input thread onto its (process rank, thread rank) */
    for (size_t in = 0; in < u->num_inputs; in++) {
        union_input *ui = &u->inputs[in];
        const cube_t *c = ui->cube;
        for (size_t ti = 0; ti < c->threads.count; ti++) {
            const cube_thread *t = c->threads.items[ti];
            size_t rp = get_process(u, k, t->process->rank);
            ui->process_map[t->process->index] = rp;
            ui->thread_map[ti] = find_thread(u, k, rp, t->name, ui->thread_rank[ti]);
        }
    }
    return 0;
}

/* Topologies survive only when the result's locations are exactly the
 * first input's: then its coordinates still mean the same places. */
static int copy_topologies(cube_union *u)
{
    const union_input *first = &u->inputs[0];
    const cube_t *c = first->cube;
    if (u->rule == CUBE_SYSTEM_COLLAPSE || u->result->threads.count != c->threads.count ||
        u->result->processes.count != c->processes.count)
        return 0;
    for (size_t i = 0; i < c->carts.count; i++) {
        const cube_cartesian *t = c->carts.items[i];
        cube_cartesian *copy = model_add_cart(u->result, t->name, t->ndims, t->dims, t->periods);
        if (!copy)
            return oom(u);
        for (long d = 0; t->dim_names && d < t->ndims; d++)
            if (t->dim_names[d] && cube_cart_set_dim_name(u->result, copy, d, t->dim_names[d]))
                return oom(u);
        for (size_t j = 0; j < t->num_coords; j++) {
            const cube_coord *cd = &t->coords[j];
            size_t target = NONE;
            void *entity = NULL;
            switch (cd->kind) {
            case CUBE_COORD_THREAD:
                target = first->thread_map[((cube_thread *)cd->entity)->index];
                entity = target == NONE ? NULL : u->result->threads.items[target];
                break;
            case CUBE_COORD_PROCESS:
                target = first->process_map[((cube_process *)cd->entity)->index];
                entity = target == NONE ? NULL : u->result->processes.items[target];
                break;
            case CUBE_COORD_NODE:
                target = first->node_map[((cube_node *)cd->entity)->index];
                entity = target == NONE ? NULL : u->result->nodes.items[target];
                break;
            case CUBE_COORD_MACHINE:
                target = first->machine_map[((cube_machine *)cd->entity)->index];
                entity = target == NONE ? NULL : u->result->machines.items[target];
                break;
            }
            if (entity && cube_def_coords_of(u->result, copy, cd->kind, entity, cd->coords))
                return oom(u);
        }
    }
    return 0;
}

static unsigned char **presence(cube_union *u, size_t result_count, size_t input_count_of(const cube_t *),
                                size_t *(*map_of)(union_input *))
{
    unsigned char **has = calloc(u->num_inputs, sizeof *has);
    if (!has)
        return NULL;
    for (size_t in = 0; in < u->num_inputs; in++) {
        has[in] = calloc(result_count ? result_count : 1, 1);
        if (!has[in])
            return has; /* freed by the caller through u */
        const size_t *map = map_of(&u->inputs[in]);
        size_t n = input_count_of(u->inputs[in].cube);
        for (size_t i = 0; i < n; i++)
            if (map[i] != NONE)
                has[in][map[i]] = 1;
    }
    return has;
}

static size_t count_metrics(const cube_t *c) { return c->metrics.count; }
static size_t count_cnodes(const cube_t *c) { return c->cnodes.count; }
static size_t count_threads(const cube_t *c) { return c->threads.count; }
static size_t *metric_map_of(union_input *ui) { return ui->metric_map; }
static size_t *cnode_map_of(union_input *ui) { return ui->cnode_map; }
static size_t *thread_map_of(union_input *ui) { return ui->thread_map; }

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
    if (u->finished)
        return 0;
    if (!u->num_inputs)
        return union_error(u, "no experiment to line up");
    system_keys keys;
    memset(&keys, 0, sizeof keys);
    int rc = u->rule == CUBE_SYSTEM_COLLAPSE ? unite_collapsed(u, &keys)
             : u->rule == CUBE_SYSTEM_FIRST  ? unite_first(u, &keys)
                                             : unite_agreeing(u, &keys);
    system_keys_free(&keys);
    if (rc == 0 && u->key.failed)
        rc = oom(u);
    if (rc == 0)
        rc = copy_topologies(u);
    if (rc != 0)
        return -1;
    u->has_metric = presence(u, u->result->metrics.count, count_metrics, metric_map_of);
    u->has_cnode = presence(u, u->result->cnodes.count, count_cnodes, cnode_map_of);
    u->has_thread = presence(u, u->result->threads.count, count_threads, thread_map_of);
    if (!all_present(u->has_metric, u->num_inputs) || !all_present(u->has_cnode, u->num_inputs) ||
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

static int has(unsigned char **table, const cube_union *u, size_t k, size_t item, size_t count)
{
    return u->finished && k < u->num_inputs && item < count && table[k][item];
}

int cube_union_input_has_metric(const cube_union *u, size_t k, size_t result_metric)
{
    return has(u->has_metric, u, k, result_metric, u->result->metrics.count);
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
    }
    free_presence(u->has_metric, u->num_inputs);
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
