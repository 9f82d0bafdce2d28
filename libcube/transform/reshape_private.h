/*
 * reshape_private.h - the one step every call-tree transformation ends
 * with (cut, prune, common call tree): some call paths stay, the others
 * are dropped or folded into a kept ancestor, and the severity rows follow.
 */
#ifndef LIBCUBE_RESHAPE_H
#define LIBCUBE_RESHAPE_H

#include "core/cube_private.h"

/* dest[i] for the call path of index i: RESHAPE_DROP, or i itself (it
 * stays), or the index of a kept ancestor its values are folded into. */
#define RESHAPE_DROP ((size_t)-1)

/* Reshape c's call tree by dest (one entry per call path; the caller
 * guarantees that a kept call path's parent is kept or dropped, never
 * folded, and that a fold target is a kept ancestor).
 *
 *  - The kept call paths keep their order, attributes and parameters; one
 *    whose parent is dropped becomes a root.  Indexes and ids are
 *    renumbered densely in the old order.
 *  - A kept call path keeps its rows unchanged.  The rows of a dropped one
 *    go.  The rows of a folded one are combined into its target's as
 *    call-tree exclusive values (sum, compensated, or the maximum or
 *    minimum by the metric's dtype); for a metric stored call-tree
 *    inclusive they go, since the target's stored value holds them
 *    already.  So every kept call path's inclusive value stays as it was.
 *  - Exact values (64-bit integers beyond 2^53, COMPLEX, RATE, TAU_ATOMIC,
 *    NDOUBLES) are combined exactly; those of the other structured types
 *    cannot be and are dropped where something was folded into them, with
 *    a warning on the handle.
 *
 * Every allocation comes first: on failure (-1, error on c) the model is
 * unchanged.  No recursion: parents have lower indexes than children. */
int call_tree_reshape(cube_t *c, const size_t *dest);

#endif
