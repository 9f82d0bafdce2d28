/*
 * tree_walk.c - the call tree in preorder without recursion and without
 * a list of every call path: the walk holds one entry per level of the
 * path it is on, so a tree of a million call paths and depth 10 costs ten
 * entries, and a chain 100 000 deep costs 100 000 entries but no C stack.
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
    size_t depth, cap;
    int failed;
};

cube_tree_walk *cube_tree_walk_start(const cube_t *c)
{
    cube_tree_walk *w = calloc(1, sizeof *w);
    if (w)
        w->c = c;
    return w;
}

static int enter(cube_tree_walk *w, const cube_cnode *node)
{
    walk_level *grown = grow_array(w->path, w->depth, &w->cap, sizeof *w->path, 16);
    if (!grown) {
        w->failed = 1;
        return -1;
    }
    w->path = grown;
    w->path[w->depth++] = (walk_level){node, 0};
    return 0;
}

const cube_cnode *cube_tree_walk_next(cube_tree_walk *w, size_t *level)
{
    if (!w || w->failed)
        return NULL;
    while (w->depth) {
        walk_level *top = &w->path[w->depth - 1];
        if (top->next_child < top->node->num_children) {
            const cube_cnode *child = top->node->children[top->next_child++];
            if (enter(w, child) != 0)
                return NULL;
            if (level)
                *level = w->depth - 1;
            return child;
        }
        w->depth--; /* every child done: back to the parent */
    }
    if (w->next_root >= w->c->root_cnodes.count)
        return NULL;
    const cube_cnode *root = w->c->root_cnodes.items[w->next_root++];
    if (enter(w, root) != 0)
        return NULL;
    if (level)
        *level = 0;
    return root;
}

const cube_cnode *cube_tree_walk_root(const cube_tree_walk *w)
{
    return w && w->depth ? w->path[0].node : NULL;
}

int cube_tree_walk_failed(const cube_tree_walk *w)
{
    return !w || w->failed;
}

void cube_tree_walk_free(cube_tree_walk *w)
{
    if (w)
        free(w->path);
    free(w);
}

size_t cube_cnode_depth_max(const cube_t *c)
{
    cube_tree_walk *w = cube_tree_walk_start(c);
    size_t level, deepest = 0;
    while (cube_tree_walk_next(w, &level))
        if (level + 1 > deepest)
            deepest = level + 1;
    /* out of memory: 0, as for an empty tree (the callers size buffers by
     * it and then fail on their own allocation) */
    if (cube_tree_walk_failed(w))
        deepest = 0;
    cube_tree_walk_free(w);
    return deepest;
}
