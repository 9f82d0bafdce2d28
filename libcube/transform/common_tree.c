/*
 * common_tree.c - reducing several experiments to the call tree they have
 * in common (cube_commoncalltree).
 *
 * The call trees are lined up by the algebra's union (cube_union.c), which
 * keys a call path by its parent, callee and call site (or callee name
 * only), and parameters, and maps every input's call paths onto the
 * united tree.  A united call path is common when every input maps a call
 * path onto it; its parent then is common too, since a key holds the
 * parent.  In each input a call path stays when it maps onto a common
 * one, and is folded into its parent's target otherwise.
 */
#include "transform/reshape_private.h"

#include <stdio.h>
#include <stdlib.h>

/* How many inputs map a call path onto each united call path (counted
 * once per input), into `count`; then the number of common call paths. */
static size_t count_common(const cube_union *u, size_t n, size_t num_united, size_t *count,
                           const cube_t *const *models)
{
    for (size_t k = 0; k < n; k++) {
        const size_t *map = cube_union_cnode_map(u, k);
        size_t num = models[k]->cnodes.count;
        /* count each united call path once per input: its siblings with
         * the same key map onto one */
        for (size_t i = 0; i < num; i++)
            if (count[map[i]] == k)
                count[map[i]] = k + 1;
    }
    size_t common = 0;
    for (size_t r = 0; r < num_united; r++)
        common += count[r] == n;
    return common;
}

int cube_common_call_tree(cube_t *const *models, size_t n, cube_match match, size_t *num_common,
                          cube_status *status)
{
    if (!models || n == 0) {
        status_set(status, CUBE_EINVAL, "cube_common_call_tree: no experiments");
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        if (!models[k]) {
            status_set(status, CUBE_EINVAL, "cube_common_call_tree: experiment %zu is NULL", k);
            return -1;
        }
    /* the system trees play no part: collapsing them never fails */
    cube_union *u = cube_union_create(match, CUBE_SYSTEM_COLLAPSE);
    if (!u) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        char name[32];
        snprintf(name, sizeof name, "experiment %zu", k + 1);
        if (cube_union_add(u, models[k], name) != 0) {
            status_set(status, cube_union_error_code(u), "%s", cube_union_error(u));
            cube_union_free(u);
            return -1;
        }
    }
    size_t num_united = cube_num_cnodes(cube_union_result(u));
    size_t *count = calloc(num_united ? num_united : 1, sizeof *count);
    if (!count) {
        cube_union_free(u);
        status_set(status, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    size_t common = count_common(u, n, num_united, count, (const cube_t *const *)models);
    int rc = 0;
    if (common == 0) {
        status_set(status, CUBE_EMISMATCH,
                   "the experiments have no call path in common (not even a call-tree root)");
        rc = -1;
    }
    for (size_t k = 0; k < n && rc == 0; k++) {
        cube_t *c = models[k];
        const size_t *map = cube_union_cnode_map(u, k);
        size_t *dest = malloc((c->cnodes.count ? c->cnodes.count : 1) * sizeof *dest);
        if (!dest) {
            status_set(status, CUBE_ENOMEM, "out of memory");
            rc = -1;
            break;
        }
        /* parents before children in index order */
        size_t dropped = 0;
        for (size_t i = 0; i < c->cnodes.count; i++) {
            const cube_cnode *p = ((const cube_cnode *)c->cnodes.items[i])->parent;
            if (count[map[i]] == n)
                dest[i] = i;
            else
                dest[i] = p ? dest[p->index] : RESHAPE_DROP;
            dropped += dest[i] == RESHAPE_DROP;
        }
        if (dropped &&
            cube_add_warning(c, "%zu call paths below call-tree roots that not every experiment "
                                "has are dropped with their values", dropped) != 0) {
            status_set(status, CUBE_ENOMEM, "out of memory");
            rc = -1;
        } else if (call_tree_reshape(c, dest) != 0) {
            status_set(status, cube_error_code(c), "experiment %zu: %s", k + 1, cube_error(c));
            rc = -1;
        }
        free(dest);
    }
    free(count);
    cube_union_free(u);
    if (rc == 0) {
        if (num_common)
            *num_common = common;
        status_ok(status);
    }
    return rc;
}
