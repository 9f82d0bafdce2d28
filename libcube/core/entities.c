/*
 * entities.c - the accessors through which programs read the entities of
 * an experiment (their structs are the library's own, cube_private.h).
 * Each accepts NULL and an index out of range, answering 0, -1, "" or NULL,
 * so that a program walking a tree needs no checks of its own.
 */
#include "core/cube_private.h"

/* A field as it is (`absent` for a NULL entity). */
#define FIELD(TYPE, PREFIX, FIELD_NAME, RESULT, ABSENT)       \
    RESULT PREFIX##_##FIELD_NAME(const TYPE *x)               \
    {                                                         \
        return x ? x->FIELD_NAME : ABSENT;                    \
    }

/* A string field, never NULL. */
#define TEXT(TYPE, PREFIX, FIELD_NAME)                        \
    const char *PREFIX##_##FIELD_NAME(const TYPE *x)          \
    {                                                         \
        return x && x->FIELD_NAME ? x->FIELD_NAME : "";       \
    }

/* Member i of a child array, NULL out of range. */
#define MEMBER(TYPE, PREFIX, NAME, ARRAY, COUNT, MEMBER_TYPE)         \
    MEMBER_TYPE *PREFIX##_##NAME(const TYPE *x, size_t i)             \
    {                                                                 \
        return x && i < x->COUNT ? x->ARRAY[i] : NULL;                \
    }

/* Every entity has an id label and an index. */
#define IDENTITY(TYPE, PREFIX)                                \
    FIELD(TYPE, PREFIX, id, int64_t, -1)                      \
    FIELD(TYPE, PREFIX, index, size_t, 0)

IDENTITY(cube_metric, cube_metric)
TEXT(cube_metric, cube_metric, disp_name)
TEXT(cube_metric, cube_metric, uniq_name)
TEXT(cube_metric, cube_metric, dtype)
TEXT(cube_metric, cube_metric, uom)
TEXT(cube_metric, cube_metric, val)
TEXT(cube_metric, cube_metric, url)
TEXT(cube_metric, cube_metric, descr)
FIELD(cube_metric, cube_metric, parent, cube_metric *, NULL)
FIELD(cube_metric, cube_metric, num_children, size_t, 0)
MEMBER(cube_metric, cube_metric, child, children, num_children, cube_metric)
FIELD(cube_metric, cube_metric, is_void, int, 0)

IDENTITY(cube_region, cube_region)
TEXT(cube_region, cube_region, name)
TEXT(cube_region, cube_region, mod)
TEXT(cube_region, cube_region, url)
TEXT(cube_region, cube_region, descr)
FIELD(cube_region, cube_region, begin_line, long, -1)
FIELD(cube_region, cube_region, end_line, long, -1)
TEXT(cube_region, cube_region, paradigm)
TEXT(cube_region, cube_region, role)

IDENTITY(cube_cnode, cube_cnode)
FIELD(cube_cnode, cube_cnode, callee, cube_region *, NULL)
TEXT(cube_cnode, cube_cnode, mod)
FIELD(cube_cnode, cube_cnode, line, long, -1)
FIELD(cube_cnode, cube_cnode, parent, cube_cnode *, NULL)
FIELD(cube_cnode, cube_cnode, num_children, size_t, 0)
MEMBER(cube_cnode, cube_cnode, child, children, num_children, cube_cnode)
FIELD(cube_cnode, cube_cnode, depth, size_t, 0)
FIELD(cube_cnode, cube_cnode, num_params, size_t, 0)

IDENTITY(cube_machine, cube_machine)
TEXT(cube_machine, cube_machine, name)
TEXT(cube_machine, cube_machine, descr)
FIELD(cube_machine, cube_machine, num_nodes, size_t, 0)
MEMBER(cube_machine, cube_machine, node, nodes, num_nodes, cube_node)

IDENTITY(cube_node, cube_node)
TEXT(cube_node, cube_node, name)
FIELD(cube_node, cube_node, machine, cube_machine *, NULL)
FIELD(cube_node, cube_node, num_processes, size_t, 0)
MEMBER(cube_node, cube_node, process, processes, num_processes, cube_process)
TEXT(cube_node, cube_node, descr)
FIELD(cube_node, cube_node, parent, cube_node *, NULL)
FIELD(cube_node, cube_node, num_children, size_t, 0)
MEMBER(cube_node, cube_node, child, children, num_children, cube_node)

IDENTITY(cube_process, cube_process)
TEXT(cube_process, cube_process, name)
FIELD(cube_process, cube_process, rank, int64_t, -1)
FIELD(cube_process, cube_process, node, cube_node *, NULL)
FIELD(cube_process, cube_process, num_threads, size_t, 0)
MEMBER(cube_process, cube_process, thread, threads, num_threads, cube_thread)
FIELD(cube_process, cube_process, type, cube_group_type, CUBE_GROUP_PROCESS)

IDENTITY(cube_thread, cube_thread)
TEXT(cube_thread, cube_thread, name)
FIELD(cube_thread, cube_thread, rank, int64_t, -1)
FIELD(cube_thread, cube_thread, process, cube_process *, NULL)
FIELD(cube_thread, cube_thread, type, cube_location_type, CUBE_LOCATION_THREAD)

FIELD(cube_cartesian, cube_cart, index, size_t, 0)
TEXT(cube_cartesian, cube_cart, name)
FIELD(cube_cartesian, cube_cart, ndims, long, 0)
FIELD(cube_cartesian, cube_cart, num_coords, size_t, 0)

long cube_cart_dim(const cube_cartesian *x, long d)
{
    return x && d >= 0 && d < x->ndims ? x->dims[d] : 0;
}

int cube_cart_period(const cube_cartesian *x, long d)
{
    return x && d >= 0 && d < x->ndims ? x->periods[d] : 0;
}

const char *cube_cart_dim_name(const cube_cartesian *x, long d)
{
    if (!x || !x->dim_names || d < 0 || d >= x->ndims)
        return NULL;
    return x->dim_names[d] ? x->dim_names[d] : "";
}

const cube_coord *cube_cart_coord(const cube_cartesian *x, size_t i)
{
    return x && i < x->num_coords ? &x->coords[i] : NULL;
}
