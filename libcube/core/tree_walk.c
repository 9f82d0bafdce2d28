/*
 * tree_walk.c - the call tree in preorder without recursion and without
 * a list of every call path: the walk holds one entry per level of the
 * path it is on, so a tree of a million call paths and depth 10 costs ten
 * entries, and a chain 100 000 deep costs 100 000 entries but no C stack.
 * The model keeps the depth of its deepest call path, so the walk takes
 * its whole stack at the start and cannot fail later.
 */
#include "core/cube_private.h"

#include <stdlib.h>

typedef struct {
    const cube_cnode *node;
    size_t next_child; /* the index of the child to visit next */
} walk_level;

struct cube_tree_walk {
    const cube_t *c;
    size_t next_root;
    walk_level *path; /* path[0] is the root of the current call path */
    size_t depth;     /* entries of path in use, at most c->cnode_depth_max */
};

cube_tree_walk *cube_tree_walk_start(const cube_t *c)
{
    cube_tree_walk *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->c = c;
    size_t levels = c ? c->cnode_depth_max : 0;
    if (levels) {
        w->path = calloc(levels, sizeof *w->path);
        if (!w->path) {
            free(w);
            return NULL;
        }
    }
    return w;
}

static const cube_cnode *enter(cube_tree_walk *w, const cube_cnode *node, size_t *level)
{
    w->path[w->depth++] = (walk_level){node, 0};
    if (level)
        *level = w->depth - 1;
    return node;
}

const cube_cnode *cube_tree_walk_next(cube_tree_walk *w, size_t *level)
{
    if (!w || !w->c)
        return NULL;
    while (w->depth) {
        walk_level *top = &w->path[w->depth - 1];
        if (top->next_child < top->node->num_children)
            return enter(w, top->node->children[top->next_child++], level);
        w->depth--; /* every child done: back to the parent */
    }
    if (w->next_root >= w->c->root_cnodes.count)
        return NULL;
    return enter(w, w->c->root_cnodes.items[w->next_root++], level);
}

const cube_cnode *cube_tree_walk_root(const cube_tree_walk *w)
{
    return w && w->depth ? w->path[0].node : NULL;
}

void cube_tree_walk_free(cube_tree_walk *w)
{
    if (w)
        free(w->path);
    free(w);
}

size_t cube_cnode_depth_max(const cube_t *c)
{
    return c ? c->cnode_depth_max : 0;
}
