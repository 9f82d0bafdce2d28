/*
 * cut.c - re-rooting the call tree at chosen call paths and pruning the
 * subtrees below them (cube_cut), and choosing call paths by region.
 */
#include "transform/reshape_private.h"

#include <stdlib.h>

size_t cube_select_cnodes_by_region(const cube_t *c,
                                    int (*match)(void *user, const char *region_name),
                                    void *user, unsigned char *selected, cube_status *status)
{
    if (!c || !match || !selected) {
        status_set(status, CUBE_EINVAL, "cube_select_cnodes_by_region: no %s",
                   !c ? "experiment" : !match ? "match function" : "selection array");
        return (size_t)-1;
    }
    /* a region's name is matched once, however many call paths call it */
    unsigned char *by_region = malloc(c->regions.count ? c->regions.count : 1);
    if (!by_region) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        return (size_t)-1;
    }
    for (size_t i = 0; i < c->regions.count; i++)
        by_region[i] = match(user, ((const cube_region *)c->regions.items[i])->name) != 0;
    size_t n = 0;
    for (size_t i = 0; i < c->cnodes.count; i++) {
        const cube_cnode *cn = c->cnodes.items[i];
        selected[i] = by_region[cn->callee->index];
        n += selected[i];
    }
    free(by_region);
    status_ok(status);
    return n;
}

/* dest for re-rooting: a call path stays when it is selected or its parent
 * stays; parents come before their children in index order. */
static size_t reroot_dest(const cube_t *c, const unsigned char *selected, size_t *dest)
{
    size_t roots = 0;
    for (size_t i = 0; i < c->cnodes.count; i++) {
        const cube_cnode *p = ((const cube_cnode *)c->cnodes.items[i])->parent;
        int inside = p && dest[p->index] != RESHAPE_DROP;
        dest[i] = inside || selected[i] ? i : RESHAPE_DROP;
        roots += !inside && selected[i];
    }
    return roots;
}

/* dest for pruning: below a selected call path that stays, every call path
 * is folded into it. */
static size_t prune_dest(const cube_t *c, const unsigned char *selected, size_t *dest)
{
    size_t folded = 0;
    for (size_t i = 0; i < c->cnodes.count; i++) {
        const cube_cnode *p = ((const cube_cnode *)c->cnodes.items[i])->parent;
        if (!p)
            dest[i] = i;
        else if (dest[p->index] != p->index)
            dest[i] = dest[p->index]; /* the parent is folded: into the same */
        else
            dest[i] = selected[p->index] ? p->index : i;
        folded += dest[i] != i;
    }
    return folded;
}

static int cut(cube_t *c, const unsigned char *selected, size_t *count, int reroot)
{
    if (!c)
        return -1;
    cube_clear_error(c);
    const char *name = reroot ? "cube_cut_reroot" : "cube_cut_prune";
    if (!selected) {
        cube_set_error(c, CUBE_EINVAL, "%s: no selection", name);
        return -1;
    }
    size_t *dest = malloc((c->cnodes.count ? c->cnodes.count : 1) * sizeof *dest);
    if (!dest) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    size_t n = reroot ? reroot_dest(c, selected, dest) : prune_dest(c, selected, dest);
    int rc = 0;
    if (reroot && n == 0) {
        cube_set_error(c, CUBE_EINVAL, "%s: no call path selected", name);
        rc = -1;
    } else {
        rc = call_tree_reshape(c, dest);
    }
    free(dest);
    if (rc == 0 && count)
        *count = n;
    return rc;
}

int cube_cut_reroot(cube_t *c, const unsigned char *selected, size_t *num_roots)
{
    return cut(c, selected, num_roots, 1);
}

int cube_cut_prune(cube_t *c, const unsigned char *selected, size_t *num_pruned)
{
    return cut(c, selected, num_pruned, 0);
}
