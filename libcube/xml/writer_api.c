/*
 * writer_api.c - the definition and severity functions of the CUBE3 C
 * writer API (CUBE3 manual, "Writer Library in C"), plus the extensions for
 * what the file format holds beyond that API.
 *
 * Ids are handed out per kind in creation order (above any id already on
 * the handle), so that a model built here reads back with the same ids.  Functions that the original API declares
 * void report errors through cube_error().
 */
#include "core/cube_private.h"

#include <stdlib.h>
#include <string.h>

/* The model advances next_id past every id it is given (model.c), also
 * the ids cube_read takes from a file: entities made here never repeat a
 * label already on the handle. */
static int64_t next_id(cube_t *c, int kind)
{
    return c->next_id[kind];
}

/* Every entry point that changes the handle starts here: the error of an
 * earlier call is cleared, so that after this call cube_error_code tells
 * about this one.  NULL for a NULL handle. */
static cube_t *entering(cube_t *c)
{
    if (c)
        cube_clear_error(c);
    return c;
}

void cube_def_attr(cube_t *c, const char *key, const char *value)
{
    if (entering(c))
        model_set_attr(c, key, value);
}

void cube_def_mirror(cube_t *c, const char *mirror)
{
    if (entering(c))
        model_add_mirror(c, mirror);
}

cube_metric *cube_def_met(cube_t *c, const char *disp_name, const char *uniq_name,
                          const char *dtype, const char *uom, const char *val,
                          const char *url, const char *descr, cube_metric *parent)
{
    if (!entering(c))
        return NULL;
    return model_add_metric(c, next_id(c, ID_METRIC), disp_name, uniq_name, dtype, uom, val,
                            url, descr, parent);
}

cube_region *cube_def_region(cube_t *c, const char *name, long begln, long endln,
                             const char *url, const char *descr, const char *mod)
{
    if (!entering(c))
        return NULL;
    return model_add_region(c, next_id(c, ID_REGION), name, begln, endln, url, descr, mod);
}

cube_cnode *cube_def_cnode_cs(cube_t *c, cube_region *callee, const char *mod, int line,
                              cube_cnode *parent)
{
    if (!entering(c))
        return NULL;
    return model_add_cnode(c, next_id(c, ID_CNODE), callee, mod, line, parent);
}

cube_cnode *cube_def_cnode(cube_t *c, cube_region *callee, cube_cnode *parent)
{
    return cube_def_cnode_cs(c, callee, "", -1, parent);
}

cube_machine *cube_def_mach(cube_t *c, const char *name, const char *desc)
{
    if (!entering(c))
        return NULL;
    return model_add_machine(c, next_id(c, ID_MACHINE), name, desc);
}

cube_node *cube_def_node(cube_t *c, const char *name, cube_machine *mach)
{
    if (!entering(c))
        return NULL;
    return model_add_node(c, next_id(c, ID_NODE), name, mach);
}

cube_process *cube_def_proc(cube_t *c, const char *name, int rank, cube_node *node)
{
    if (!entering(c))
        return NULL;
    return model_add_process(c, next_id(c, ID_PROCESS), name, rank, node);
}

cube_thread *cube_def_thrd(cube_t *c, const char *name, int rank, cube_process *proc)
{
    if (!entering(c))
        return NULL;
    return model_add_thread(c, next_id(c, ID_THREAD), name, rank, proc);
}

cube_cartesian *cube_def_cart(cube_t *c, long int ndims, long int *dimv, int *periodv)
{
    if (!entering(c))
        return NULL;
    return model_add_cart(c, "", ndims, dimv, periodv);
}

int cube_def_coords_of(cube_t *c, cube_cartesian *cart, cube_coord_kind kind, void *entity,
                       const long *coordv)
{
    if (!entering(c))
        return -1;
    if (!cart || !entity || !coordv) {
        cube_set_error(c, CUBE_EINVAL, "a coordinate needs a topology, an entity and coordinates");
        return -1;
    }
    for (long d = 0; d < cart->ndims; d++)
        if (coordv[d] < 0 || coordv[d] >= cart->dims[d]) {
            cube_set_error(c, CUBE_EINVAL, "coordinate %ld of dimension %ld is outside 0..%ld",
                           coordv[d], d, cart->dims[d] - 1);
            return -1;
        }
    if (cart->num_coords == cart->coords_cap) {
        size_t cap = cart->coords_cap ? cart->coords_cap * 2 : 8;
        cube_coord *grown = realloc(cart->coords, cap * sizeof *grown);
        if (!grown) {
            cube_set_error(c, CUBE_ENOMEM, "out of memory");
            return -1;
        }
        cart->coords = grown;
        cart->coords_cap = cap;
    }
    long *copy = malloc((size_t)cart->ndims * sizeof *copy);
    if (!copy) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    memcpy(copy, coordv, (size_t)cart->ndims * sizeof *copy);
    cart->coords[cart->num_coords++] = (cube_coord){kind, entity, copy};
    return 0;
}

void cube_def_coords(cube_t *c, cube_cartesian *cart, cube_thread *thrd, long int *coordv)
{
    cube_def_coords_of(c, cart, CUBE_COORD_THREAD, thrd, coordv);
}

int cube_cart_set_name(cube_t *c, cube_cartesian *cart, const char *name)
{
    if (!entering(c))
        return -1;
    if (!cart) {
        cube_set_error(c, CUBE_EINVAL, "cube_cart_set_name needs a topology");
        return -1;
    }
    char *copy = cube_strdup(name);
    if (!copy) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    free(cart->name);
    cart->name = copy;
    return 0;
}

int cube_cart_set_dim_name(cube_t *c, cube_cartesian *cart, long dim, const char *name)
{
    if (!entering(c))
        return -1;
    if (!cart) {
        cube_set_error(c, CUBE_EINVAL, "cube_cart_set_dim_name needs a topology");
        return -1;
    }
    if (dim < 0 || dim >= cart->ndims) {
        cube_set_error(c, CUBE_EINVAL, "topology has no dimension %ld", dim);
        return -1;
    }
    if (!cart->dim_names) {
        cart->dim_names = calloc((size_t)cart->ndims, sizeof *cart->dim_names);
        if (!cart->dim_names) {
            cube_set_error(c, CUBE_ENOMEM, "out of memory");
            return -1;
        }
    }
    char *copy = cube_strdup(name);
    if (!copy) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    free(cart->dim_names[dim]);
    cart->dim_names[dim] = copy;
    return 0;
}

/* set and add share everything but the last step. */
static void update_sev(cube_t *c, cube_metric *met, cube_cnode *cnode, cube_thread *thrd,
                       double value, int add)
{
    if (!c)
        return;
    if (!met || !cnode || !thrd) {
        cube_set_error(c, CUBE_EINVAL, "a severity value needs a metric, a call-tree node and a thread");
        return;
    }
    if (met->is_void)
        return; /* a VOID metric carries no data */
    double *row = model_row_for_update(c, met, cnode);
    if (!row)
        return;
    row[thrd->index] = add ? row[thrd->index] + value : value;
}

void cube_set_sev(cube_t *c, cube_metric *met, cube_cnode *cnode, cube_thread *thrd,
                  double value)
{
    update_sev(entering(c), met, cnode, thrd, value, 0);
}

void cube_add_sev(cube_t *c, cube_metric *met, cube_cnode *cnode, cube_thread *thrd,
                  double value)
{
    update_sev(entering(c), met, cnode, thrd, value, 1);
}

/* A flat profile stores each region's values on a call-tree root that calls
 * it; the root is created the first time the region gets a value. */
static cube_cnode *flat_profile_cnode(cube_t *c, cube_region *reg)
{
    if (!reg) {
        cube_set_error(c, CUBE_EINVAL, "a flat-profile severity value needs a region");
        return NULL;
    }
    for (size_t i = 0; i < c->root_cnodes.count; i++) {
        cube_cnode *n = c->root_cnodes.items[i];
        if (n->callee == reg)
            return n;
    }
    return cube_def_cnode(c, reg, NULL);
}

void cube_set_sev_reg(cube_t *c, cube_metric *met, cube_region *reg, cube_thread *thrd,
                      double value)
{
    if (entering(c)) {
        cube_cnode *root = flat_profile_cnode(c, reg);
        if (root)
            update_sev(c, met, root, thrd, value, 0);
    }
}

void cube_add_sev_reg(cube_t *c, cube_metric *met, cube_region *reg, cube_thread *thrd,
                      double value)
{
    if (entering(c)) {
        cube_cnode *root = flat_profile_cnode(c, reg);
        if (root)
            update_sev(c, met, root, thrd, value, 1);
    }
}
