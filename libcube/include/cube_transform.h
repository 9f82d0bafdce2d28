/*
 * cube_transform.h - changing an experiment in memory.  The call tree:
 * re-rooting it at chosen call paths, pruning the subtrees below chosen
 * call paths, and reducing several experiments to the call tree they
 * have in common (cube_cut(1), cube_commoncalltree(1)); and how values are
 * stored along it (cube_exclusify(1), cube_inclusify(1), at the end).
 *
 * Each call-tree transformation keeps some call paths, drops others and folds the
 * rest into a kept ancestor, and changes nothing else: metrics, regions
 * (also those no call path refers to any more: cube_prune drops them),
 * the system tree, topologies, attributes, mirrors and what CUBE 4 adds
 * stay as they are.  Values stay exact:
 *
 *  - a kept call path keeps its stored rows, so its inclusive and, unless
 *    something is folded into it, its exclusive values are unchanged;
 *  - the values of a folded call path become exclusive values of the
 *    call path it is folded into, combined as the metric's dtype says
 *    (sum, compensated; maximum for MAXDOUBLE, minimum for MINDOUBLE;
 *    64-bit integers, COMPLEX, RATE, TAU_ATOMIC and NDOUBLES values
 *    exactly, component by component).  A metric stored call-tree
 *    inclusive (CUBE 4) needs no folding: the kept call path's stored
 *    value holds its subtree already.  So the inclusive value of every
 *    kept call path is what it was.  HISTOGRAM and SCALE_FUNC values
 *    cannot be combined exactly: where something is folded into them the
 *    metric's exact values are dropped, with a warning (cube_warning).
 *
 * The kept call paths keep their order; their indexes and ids are
 * renumbered densely (0, 1, ...), so pointers to kept cnodes stay valid,
 * pointers to the others do not.  The trees are walked without recursion.
 * A selection is an array of cube_num_cnodes() bytes, nonzero for the
 * call paths selected (by their index).
 *
 * This header is meant to be included by cube.h; it can also be included
 * on its own.
 */
#ifndef LIBCUBE_CUBE_TRANSFORM_H
#define LIBCUBE_CUBE_TRANSFORM_H

#include "cube.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Mark in `selected` (cube_num_cnodes() bytes, set to 0 or 1) the call
 * paths whose callee region's name `match` accepts (called once per
 * region, not per call path).  Returns how many call paths are selected;
 * (size_t)-1 when out of memory (CUBE_ENOMEM in `status`). */
CUBE_API size_t cube_select_cnodes_by_region(const cube_t *c,
                                             int (*match)(void *user, const char *region_name),
                                             void *user, unsigned char *selected,
                                             cube_status *status);

/* Re-root the call tree at the selected call paths: each selected call
 * path that has no selected ancestor becomes a root, in the order of its
 * index, and keeps its whole subtree (a selected call path inside it
 * stays where it is); every other call path goes with its rows.  The
 * roots' inclusive values and every value inside the subtrees are
 * unchanged.  *num_roots (when not NULL) is how many roots there are.
 * 0, or -1 with the error on c (CUBE_EINVAL: `selected` NULL or no call
 * path selected; CUBE_ENOMEM), the model then unchanged. */
CUBE_API int cube_cut_reroot(cube_t *c, const unsigned char *selected, size_t *num_roots);

/* Prune the subtrees below the selected call paths: each selected call
 * path that has no selected ancestor stays and becomes a leaf, the values
 * of the call paths below it folded into it as exclusive values; a
 * selected call path below it is folded like the others.  *num_pruned
 * (when not NULL) is how many call paths were folded.  0, or -1 with the
 * error on c (CUBE_EINVAL: `selected` NULL; CUBE_ENOMEM), the model then
 * unchanged. */
CUBE_API int cube_cut_prune(cube_t *c, const unsigned char *selected, size_t *num_pruned);

/* Reduce the n experiments to the call paths all of them have, lined up
 * as the algebra lines them up (cube_union, `match`): a call path stays
 * in each experiment when every experiment has a call path of that key
 * (callee, call site unless CUBE_MATCH_NAME, parameters) on the same path
 * from the root; any other call path is folded into its nearest ancestor
 * that stays, and a call path without one (below a root that not every
 * experiment has) is dropped with its rows, which a warning on that
 * experiment's handle says (cube_warning).  Two call paths of one
 * experiment with the same key (siblings the algebra adds up) both stay.
 * *num_common (when not NULL) is how many call paths of the result of
 * lining them up every experiment has.  0, or -1 with `status` set
 * (CUBE_EINVAL: no experiments, or NULL among them; CUBE_EMISMATCH: not
 * one call path in common; in both cases none is changed;
 * CUBE_ENOMEM: some may be reduced already, others not). */
CUBE_API int cube_common_call_tree(cube_t *const *models, size_t n, cube_match match,
                                   size_t *num_common, cube_status *status);

/* ------------------------------------------------------------------------
 * Storing values the other way along the call tree (cube_exclusify(1),
 * cube_inclusify(1)).
 * ------------------------------------------------------------------------ */

/* Store the values of metric `met` of `c` (NULL: of every metric) along
 * the call tree as `kind` says: CUBE_KIND_EXCLUSIVE (each call path its
 * own value, what CUBE 3 stores) or CUBE_KIND_INCLUSIVE (each call path
 * the value of its subtree); the metric's kind is set to match.  The new
 * rows are the values cube_view_compute gives in the metric-inclusive
 * flavour and the call flavour of `kind`, so every view of the experiment
 * gives the same values before and after (integers exactly, doubles to
 * rounding).  Along the metric tree values stay inclusive: every CUBE
 * format stores them so.  Not converted, each with a warning on the handle
 * naming the metrics (cube_warning): a MAXDOUBLE, MINDOUBLE, TAU_ATOMIC or
 * HISTOGRAM(k) metric cannot be stored inclusive and is stored exclusive
 * instead; a metric whose exact values (structured value types, 64-bit
 * integers beyond 2^53, integer sums that would pass 2^53) would not
 * survive the conversion keeps its rows and kind; derived metrics, which
 * store no values, are not touched.  Needs the rows in `c` (cube_read).
 * 0, or -1 with cube_error set (CUBE_EINVAL: another kind, or a metric of
 * another experiment; CUBE_ENOMEM); after an error the metrics converted
 * so far stay converted, each consistent with its kind. */
CUBE_API int cube_convert_metric_kind(cube_t *c, cube_metric *met, cube_metric_kind kind);

#ifdef __cplusplus
}
#endif

#endif
