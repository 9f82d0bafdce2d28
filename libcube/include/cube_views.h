/*
 * cube_views.h - values computed from the stored severities: inclusive and
 * exclusive values along the metric and call trees, sums over the system
 * tree, the flat profile, the value modes of the Cube display and
 * statistics across locations.
 *
 * What a CUBE 3 file stores (and what a cube_t holds) is, for every metric
 * m, call path c and thread t, one value that is
 *   - INCLUSIVE along the metric tree: a metric's value contains the values
 *     of its child metrics (communication time is a part of time), and
 *   - EXCLUSIVE along the call tree: a call path's value does not contain
 *     the values of the call paths it calls.
 * The system tree stores values of threads only; processes, nodes and
 * machines combine their threads.
 *
 * CUBE 4 also stores metrics the other way along the call tree: a metric of
 * kind CUBE_KIND_INCLUSIVE or CUBE_KIND_SIMPLE (cube_metric_type) holds for
 * each call path the value of its whole subtree.  The views convert them:
 * every flavour gives the same values for such a metric as for the same
 * values stored exclusive (a call path's own value is its stored value
 * minus its children's stored values), and only CUBE_CALL_STORED shows what
 * is stored.  A MAXDOUBLE, MINDOUBLE, TAU_ATOMIC or HISTOGRAM(k) metric
 * cannot be stored inclusive (CUBE 4 forbids it): its rows are taken as
 * exclusive whatever its kind.
 * A derived metric (cube_metric_is_derived) has no stored values and its
 * CubePL expression is not evaluated: no view is made of it.
 *
 * How values combine depends on the metric's <dtype> (cube_metric_combine):
 * MAXDOUBLE by maximum, MINDOUBLE by minimum, every other dtype by sum.
 * That holds wherever values meet: along the call tree (the inclusive
 * value of a MAXDOUBLE metric is the largest value in the subtree), over
 * threads, processes, nodes and machines, over the call paths of a region
 * (flat profile) and over all call paths (a metric's total), as CubeLib
 * combines them with its value types' "+".  A call path without a stored
 * row has no value: it takes no part in a maximum or minimum (a missing
 * row never makes min_time 0), while a stored 0 does, as in CubeLib.  A
 * value that nothing contributed to is the neutral element
 * (cube_combine_neutral): 0 for a sum, +DBL_MAX for a minimum and -DBL_MAX
 * for a maximum, which stand for "no value" (the tools print "-"), as
 * CubeLib gives them.
 *
 * Value types.  Integer types narrower than 64 bits (INT8, UINT8, CHAR,
 * INT16, UINT16, INT32, UINT32 and their aliases) compute in their own
 * type, as CubeLib does: every value a view gives of such a metric (per
 * thread and aggregated, each flavour, flat profile, totals) is brought
 * into the type's range modulo 2^bits, so a UINT16 exclusive value of -58
 * is 65478, a UINT8 one 198 and an INT8 one -58.  64-bit integers are not
 * wrapped: a UINT64 value of 2^64 - k is -k (the double view of the
 * reader).  COMPLEX, RATE and TAU_ATOMIC values combine by their
 * components, where the metric keeps them (values read from a CUBE 4 file,
 * whole or row by row): the value shown is the number of the combined
 * value (|sum of re, im| for COMPLEX, sum of mains / sum of durations for
 * RATE, all samples' sum / count for TAU_ATOMIC), not the sum of the
 * numbers of its parts; the exclusive value of such a metric stored
 * inclusive subtracts components (TAU_ATOMIC: counts and sums, keeping
 * the larger minimum and the smaller maximum).  Without components (a
 * model made through the API) the numbers are added.  NDOUBLES, HISTOGRAM
 * and SCALE_FUNC values add their numbers: the sum of the doubles, of the
 * bins (re-binning keeps the counts) and the function at x = 1 are each
 * the sum of their parts'.  The flat profile and the system-tree sums
 * combine the view's numbers.
 * The metric tree: a metric's exclusive value subtracts only child metrics
 * that combine by sum from a parent that does; a maximum or minimum has no
 * parts, so its exclusive value is its own value, and it takes nothing away
 * from a parent.  (CubeLib applies its value type's "-" there, which for
 * MAXDOUBLE keeps the smaller and for MINDOUBLE the larger of the two
 * values: no difference in any sense, so it is not followed.)
 *
 * Every computation here works on one metric at a time: a tool that prints
 * one metric of a large experiment holds that metric's rows (plus, for the
 * metric-exclusive value, its child metrics' rows) and nothing else.  Trees
 * are walked without recursion (call trees can be 100 000 deep): a parent
 * is always defined before its children, so one pass in index order or in
 * reverse index order computes every subtree sum.
 *
 * Sums are compensated (Neumaier), like cube_metric_totals, so that the
 * inclusive value of the call-tree roots summed over all threads agrees
 * with the metric's total.  Maxima and minima are exact and need none.
 *
 * Errors follow the library's one model (cube.h, libcube(3) ERRORS): a
 * function that changes a cube_view reports through it
 * (cube_view_error_code, cube_view_error); those that create one, read a
 * const handle or work on plain values take a `cube_status *`.  Nothing
 * here prints, exits or keeps global state; objects may be used from
 * different threads as long as one object is not used by two at once.  A
 * finished cube_view and a cube_flat are read-only and may be shared.
 *
 * This header is meant to be included by cube.h; it can also be included
 * on its own.
 */
#ifndef LIBCUBE_CUBE_VIEWS_H
#define LIBCUBE_CUBE_VIEWS_H

#include "cube.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * How the values of a metric combine.
 * ------------------------------------------------------------------------ */

typedef enum {
    CUBE_COMBINE_SUM, /* every dtype but the two below */
    CUBE_COMBINE_MAX, /* dtype MAXDOUBLE */
    CUBE_COMBINE_MIN  /* dtype MINDOUBLE */
} cube_combine_rule;

/* How `met`'s values combine, from its dtype (exact, case-sensitive, as
 * CubeLib reads it); CUBE_COMBINE_SUM for NULL. */
CUBE_API cube_combine_rule cube_metric_combine(const cube_metric *met);
/* 1 when values of `met` combined (over threads, call paths or into a
 * parent metric) are their numbers combined as cube_metric_combine says;
 * 0 for COMPLEX, RATE and TAU_ATOMIC, which combine by their components,
 * and for integer types narrower than 64 bits, whose combined value wraps
 * in the type's range (see the top of this file).  A value of those over
 * all threads is then an aggregated view's (CUBE_VIEW_AGGREGATE), not the
 * threads' values combined. */
CUBE_API int cube_metric_combines_numbers(const cube_metric *met);
/* n values combined: the compensated sum (cube_compensated_sum), the
 * largest or the smallest; cube_combine_neutral(how) when n is 0
 * (nothing to combine). */
CUBE_API double cube_combine_values(cube_combine_rule how, const double *values, size_t n);
/* The value of nothing combined, the neutral element of `how`: 0 for a
 * sum, +DBL_MAX for a minimum, -DBL_MAX for a maximum (what CUBE 4 means
 * by a call path without a row).  For a maximum or minimum it stands for
 * "no value": every function here gives it where no stored value
 * contributes, and the tools print it as "-". */
CUBE_API double cube_combine_neutral(cube_combine_rule how);

/* ------------------------------------------------------------------------
 * Flavours: where a value is taken along the metric tree and the call tree.
 * ------------------------------------------------------------------------ */

typedef enum {
    /* The metric's value as stored: it contains its child metrics. */
    CUBE_METRIC_INCLUSIVE,
    /* The stored value minus the sum of the stored values of the metric's
     * child metrics (only the children, not deeper descendants: the
     * children's stored values already contain theirs).  VOID children
     * carry no data and subtract nothing.  Only a metric that combines by
     * sum has parts: a MAXDOUBLE or MINDOUBLE metric's exclusive value is
     * its stored value, and such a child subtracts nothing.  A COMPLEX,
     * RATE or TAU_ATOMIC metric has only child metrics of its own type as
     * parts (their components are subtracted), a HISTOGRAM metric none
     * (CubeLib's subtraction of histograms takes nothing away). */
    CUBE_METRIC_EXCLUSIVE
} cube_metric_flavour;

typedef enum {
    /* The call path's own value plus the values of every call path in its
     * subtree (the value of a collapsed node in the Cube display); for a
     * MAXDOUBLE (MINDOUBLE) metric the largest (smallest) of them. */
    CUBE_CALL_INCLUSIVE,
    /* The call path's own value, without the call paths it calls (the
     * value of an expanded node).  What CUBE 3 stores. */
    CUBE_CALL_EXCLUSIVE,
    /* The values as stored in the file: CUBE_CALL_EXCLUSIVE, or for a
     * metric stored call-tree inclusive (CUBE 4) CUBE_CALL_INCLUSIVE.  It
     * exists for CubeLib's `cube_dump -z stored`. */
    CUBE_CALL_STORED
} cube_call_flavour;

/* ------------------------------------------------------------------------
 * The view of one metric: a value for every call path and every thread
 * (or one value per call path, summed over all threads).
 *
 *   cube_view *v = cube_view_create(defs, met, CUBE_METRIC_EXCLUSIVE,
 *                                   CUBE_CALL_INCLUSIVE, 0, &status);
 *   then either   cube_view_add_stored(v)               (rows held in defs)
 *   or, streaming: while (cube_reader_next_row(r, &m, &n, &vals) == 1)
 *                      cube_view_add_row(v, m, n, vals); (others are ignored)
 *   cube_view_finish(v);
 *   cube_view_row(v, cnode) ... cube_view_free(v);
 *
 * The view keeps a row only for the call paths that have data for the
 * metric (and, where values are converted along the call tree, their
 * ancestors); memory is one pointer per call path plus those rows.
 * ------------------------------------------------------------------------ */

typedef struct cube_view cube_view;

/* One value per call path: the sum over all threads (`cube_dump -t aggr`),
 * or their maximum or minimum (cube_metric_combine).  Rows are then 1 value
 * wide instead of cube_num_threads(). */
#define CUBE_VIEW_AGGREGATE 1u
/* Keep, after cube_view_finish, the components of the values of a
 * COMPLEX, RATE or TAU_ATOMIC metric (cube_view_components), for a reader
 * that combines the rows further itself: the numbers of combined values
 * are not the combined numbers.  Nothing is kept for other metrics. */
#define CUBE_VIEW_COMPONENTS 2u

/* A view of metric `met` of the experiment whose definitions are `defs`
 * (a cube_t from cube_read, from the writer API or from
 * cube_reader_definitions).  `defs` and `met` must outlive the view.
 * NULL on error, with `status` set (CUBE_EINVAL: a NULL argument or an
 * unknown flavour; CUBE_EUNSUPPORTED: a derived metric, or in the
 * metric-exclusive flavour a metric with a derived child metric that would
 * be subtracted; CUBE_ENOMEM).  Metrics stored call-tree inclusive are
 * converted (see the top of this file). */
CUBE_API cube_view *cube_view_create(const cube_t *defs, const cube_metric *met,
                                     cube_metric_flavour metric_flavour,
                                     cube_call_flavour call_flavour, unsigned flags,
                                     cube_status *status);
/* Does a row of metric `met` contribute to the view?  The view's metric,
 * and in the metric-exclusive flavour its non-VOID child metrics. */
CUBE_API int cube_view_wants(const cube_view *v, const cube_metric *met);
/* Add one stored row (cube_num_threads(defs) values, in thread index
 * order).  `met` and `cnode` must belong to `defs`.  Rows of metrics the
 * view does not want are ignored (return 0), so a streaming loop may pass
 * every row.  Rows are combined (added up, or the maximum or minimum kept):
 * a (metric, call path) given twice counts twice (cube_read keeps the later
 * one instead; see cube_reader_row_may_repeat).  0, or -1 (CUBE_ESTATE
 * after cube_view_finish, CUBE_EINVAL, CUBE_ENOMEM). */
CUBE_API int cube_view_add_row(cube_view *v, const cube_metric *met, const cube_cnode *cnode,
                               const double *values);
/* Add every row of the view's metric (and children) stored in `defs`.  It
 * looks at each stored row once (read-only, safe on a shared handle); a
 * tool that needs several metrics can instead pass each row of one pass
 * over cube_row_at() to every view with cube_view_add_row.  0 or -1. */
CUBE_API int cube_view_add_stored(cube_view *v);
/* Compute the flavour (the call-inclusive sums); after this the view is
 * read-only.  0 or -1 (CUBE_ESTATE when finished already). */
CUBE_API int cube_view_finish(cube_view *v);
/* create + add_stored + finish; NULL with `status` set on error. */
CUBE_API cube_view *cube_view_compute(const cube_t *c, const cube_metric *met,
                                      cube_metric_flavour metric_flavour,
                                      cube_call_flavour call_flavour, unsigned flags,
                                      cube_status *status);
/* Why the last call that changed the view failed; CUBE_OK and "" after a
 * successful one. */
CUBE_API cube_code cube_view_error_code(const cube_view *v);
CUBE_API const char *cube_view_error(const cube_view *v);
CUBE_API void cube_view_free(cube_view *v);

CUBE_API const cube_metric *cube_view_metric(const cube_view *v);
CUBE_API cube_metric_flavour cube_view_metric_flavour(const cube_view *v);
CUBE_API cube_call_flavour cube_view_call_flavour(const cube_view *v);
/* Values per row: cube_num_threads(defs), or 1 with CUBE_VIEW_AGGREGATE. */
CUBE_API size_t cube_view_width(const cube_view *v);
/* How many call paths have a row (the others have nothing: 0, or no value
 * for a maximum or minimum; a row can be all zero too). */
CUBE_API size_t cube_view_num_rows(const cube_view *v);

/* After cube_view_finish (NULL before):
 * - cube_view_rows: cube_num_cnodes(defs) pointers indexed by cnode index,
 *   each a row of cube_view_width() values, or NULL when nothing
 *   contributed (all zero, or for a maximum or minimum no value:
 *   cube_combine_neutral);
 * - cube_view_row: the row of one call path (NULL as above; a row that
 *   exists can be all zero as well);
 * - cube_view_value: one value; `i` is a thread index, or 0 when
 *   aggregated; for a call path without a row cube_combine_neutral (0
 *   for a sum); 0.0 before finish or out of range. */
CUBE_API const double *const *cube_view_rows(const cube_view *v);
CUBE_API const double *cube_view_row(const cube_view *v, const cube_cnode *cnode);
CUBE_API double cube_view_value(const cube_view *v, const cube_cnode *cnode, size_t i);
/* How many components each value of a view made with CUBE_VIEW_COMPONENTS
 * keeps, after cube_view_finish: 2 for a COMPLEX (real, imaginary part)
 * or RATE metric (main value, duration), 5 for a TAU_ATOMIC metric
 * (count, minimum, maximum, sum, sum of squares), where its rows came with
 * their components (values read from a CUBE 4 file); 0 for every other
 * view, whose values combine as numbers. */
CUBE_API size_t cube_view_num_components(const cube_view *v);
/* The components of call path `cnode`'s row in such a view:
 * cube_view_width() values of cube_view_num_components() doubles each,
 * value by value, combined as the view's numbers are (the number of each
 * value is its row's value).  NULL for a call path without a row and for
 * a view that keeps none.  Valid until cube_view_free. */
CUBE_API const double *cube_view_components(const cube_view *v, const cube_cnode *cnode);
/* The metric's value over all call paths (what the metric tree shows for
 * it): cube_view_width() values into `out`, each the sum of the
 * call-exclusive values of every call path (= the sum of the call-tree
 * roots' inclusive values), or for a MAXDOUBLE (MINDOUBLE) metric their
 * largest (smallest); cube_combine_neutral where no call path has a row
 * (no value of a maximum or minimum).  For COMPLEX, RATE and TAU_ATOMIC the
 * number of all components combined.  0, or -1
 * (CUBE_ESTATE before cube_view_finish, CUBE_EINVAL). */
CUBE_API int cube_view_total(const cube_view *v, double *out, cube_status *status);

/* ------------------------------------------------------------------------
 * Thresholds: the call paths whose value reaches a percentage of the
 * metric's root value (CubeLib's `cube_calltree -t`, `cube_dump
 * --threshold`).
 * ------------------------------------------------------------------------ */

/* Does `value` reach `percent` percent of `root`, |value| >= percent / 100
 * * |root|?  For values and a root that are not negative this is
 * CubeLib's value / root >= percent / 100; the magnitude makes a
 * difference of two runs keep its large changes in either direction.  A
 * root of 0 is reached by every value.  0 for NaN (value, root or
 * percent) and where `value` or `root` is no value of a maximum or minimum
 * (cube_combine_neutral of `how`). */
CUBE_API int cube_value_reaches(cube_combine_rule how, double value, double root,
                                double percent);
/* The call paths a threshold of `percent` percent keeps: keep[cnode index]
 * is 1 for a call path whose inclusive value in `incl` (a finished view,
 * CUBE_VIEW_AGGREGATE, CUBE_CALL_INCLUSIVE) reaches `percent` percent of
 * the metric's root value (cube_view_total, cube_value_reaches) and for
 * every ancestor of such a call path, so that the call paths kept form a
 * tree again; 0 for the others.  `keep` holds cube_num_cnodes() bytes;
 * *num_kept (when not NULL) is the number kept.  0, or -1 (CUBE_EINVAL: a
 * view not aggregated or not call-inclusive, a NULL array, a percentage
 * that is NaN or negative; CUBE_ESTATE: not finished). */
CUBE_API int cube_view_threshold(const cube_view *incl, double percent, unsigned char *keep,
                                 size_t *num_kept, cube_status *status);
/* The values of the call paths kept (keep[cnode index], as
 * cube_view_threshold gives it) with the subtrees left out folded in, as
 * CubeLib shows the call paths `cube_calltree -t` hides: out[cnode index]
 * is, for a kept call path, its value in `excl` combined (as the metric
 * combines: sum, maximum or minimum) with the values in `incl` of its
 * children that are not kept (each a whole subtree left out), so that the
 * values of the call paths kept still combine to the metric's root value;
 * for a call path not kept, its value in `excl`.  No value (a maximum or
 * minimum nothing contributed to) is cube_combine_neutral.  `excl` and
 * `incl` are finished aggregated views of one metric in one metric
 * flavour, call-exclusive and call-inclusive; `out` holds
 * cube_num_cnodes() doubles.  COMPLEX, RATE and TAU_ATOMIC values are
 * folded by their numbers.  0, or -1 (CUBE_EINVAL, CUBE_ESTATE). */
CUBE_API int cube_view_fold(const cube_view *excl, const cube_view *incl,
                            const unsigned char *keep, double *out, cube_status *status);

/* Every metric's value over all call paths and threads, in the chosen
 * metric flavour, into values[metric index] (cube_num_metrics() values):
 * what the metric tree of the Cube display shows, for a collapsed
 * (inclusive) or expanded (exclusive) node, when it is the leftmost tree.
 * VOID metrics are 0; derived metrics NaN (not computed), and so is the
 * exclusive value of a metric with a derived part.  Totals combine by dtype
 * (cube_metric_totals); metrics stored call-tree inclusive are converted.
 * Needs the rows in `c` (cube_read).  0 or -1. */
CUBE_API int cube_metric_tree_values(const cube_t *c, cube_metric_flavour flavour, double *values,
                                     cube_status *status);

/* ------------------------------------------------------------------------
 * The system tree.  From one value per thread (thread index order), the
 * sums per process, node and machine (arrays of cube_num_processes(),
 * cube_num_nodes(), cube_num_machines() values, by index) and over the
 * whole experiment.  Any output may be NULL.  These are the inclusive
 * values of the system tree (collapsed nodes).  The exclusive value of an
 * expanded process, node or machine is undefined (the Cube display shows
 * it as "-"): only threads have values of their own.  0 or -1.
 * ------------------------------------------------------------------------ */
CUBE_API int cube_system_sums(const cube_t *c, const double *thread_values, double *process_values,
                              double *node_values, double *machine_values, double *total,
                              cube_status *status);
/* The same, combining the threads' values as `how` says (a MAXDOUBLE
 * metric's process value is the largest of its threads' values).  An item
 * without threads gets cube_combine_neutral(how) (no value of a maximum or
 * minimum). */
CUBE_API int cube_system_combine(const cube_t *c, cube_combine_rule how,
                                 const double *thread_values, double *process_values,
                                 double *node_values, double *machine_values, double *total,
                                 cube_status *status);

/* ------------------------------------------------------------------------
 * The flat profile (Cube display, "Flat view"; `cube_dump -r`,
 * `cube_stat -t`): per region, regardless of where it was called from.
 *
 * For region R, with P(R) the call paths whose callee is R:
 *
 *   EXCLUSIVE(R)   = sum over p in P(R) of the call-exclusive value of p.
 *                    The region node of the flat view when expanded.
 *
 *   INCLUSIVE(R)   = the sum of the call-exclusive values of every call path
 *                    that lies in the subtree of at least one p in P(R),
 *                    each counted once; that is, the sum of the
 *                    call-inclusive values of the OUTERMOST paths of P(R),
 *                    those with no ancestor whose callee is R.  The region
 *                    node of the flat view when collapsed: the time spent
 *                    while R is active.
 *
 *   SUBROUTINES(R) = INCLUSIVE(R) - EXCLUSIVE(R).  The manual: "the call
 *                    tree hierarchy is replaced with a source code hierarchy
 *                    consisting of two levels, regions and their
 *                    subroutines.  Any subroutines are displayed as a single
 *                    child node labeled Subroutines.  A subroutine node
 *                    represents all regions directly called from the region
 *                    above.  In this way you are able to see which fraction
 *                    of a metric is associated with a region exclusively,
 *                    that is, without its regions called from there."  So
 *                    the region's value splits into its exclusive part and
 *                    the Subroutines child, and the child, like every
 *                    collapsed node, shows inclusive values: the regions R
 *                    calls directly, with everything they call.  Without
 *                    recursion this is the sum of the call-inclusive values
 *                    of the children of the paths in P(R).
 *
 * For a MAXDOUBLE (MINDOUBLE) metric "sum" reads "largest" ("smallest")
 * throughout, over the call paths that have rows: EXCLUSIVE(R) is the
 * largest call-exclusive value of a path of P(R), INCLUSIVE(R) the largest
 * call-exclusive value in their subtrees, and SUBROUTINES(R) the largest
 * call-inclusive value of a child of a path of P(R); a maximum has no
 * parts, so SUBROUTINES is not INCLUSIVE - EXCLUSIVE, but INCLUSIVE is the
 * larger of EXCLUSIVE and SUBROUTINES.  (Under recursion a nested call of
 * R is then a child like any other and counts in SUBROUTINES(R).)
 *
 * Recursion (R calls R, directly or through other regions): a path of P(R)
 * inside the subtree of another path of P(R) is not counted again in
 * INCLUSIVE(R) (no double counting); its call-exclusive value belongs to
 * EXCLUSIVE(R), because it is time spent in R itself, and what it calls
 * belongs to SUBROUTINES(R).  So EXCLUSIVE + SUBROUTINES = INCLUSIVE always
 * holds, and SUBROUTINES never contains time spent in R.  Example:
 * main -> f(4) -> f(2) -> bar(1): EXCLUSIVE(f) = 6, INCLUSIVE(f) = 7,
 * SUBROUTINES(f) = 1 (bar), not 3 + 1.
 *
 * The profile is computed from a finished view in the call-exclusive (or
 * stored) flavour, in either metric flavour, per thread or aggregated:
 * rows have cube_view_width() values.  The call tree is walked depth first
 * with an explicit stack; memory is the regions' rows plus one row per
 * level of the current path that has data below it.
 * ------------------------------------------------------------------------ */

typedef struct cube_flat cube_flat;

typedef enum {
    CUBE_FLAT_EXCLUSIVE,
    CUBE_FLAT_INCLUSIVE,
    CUBE_FLAT_SUBROUTINES
} cube_flat_part;

/* NULL on error, with `status` set: CUBE_EINVAL for a call-inclusive
 * view (also a CUBE_CALL_STORED one of a metric stored call-tree
 * inclusive), CUBE_ESTATE for an unfinished one, CUBE_ENOMEM.  The view may be
 * freed afterwards. */
CUBE_API cube_flat *cube_flat_create(const cube_view *v, cube_status *status);
CUBE_API size_t cube_flat_width(const cube_flat *f);
/* The row of one region (cube_flat_width() values); NULL means nothing
 * contributed: all zero, or no value of a maximum or minimum (a row that
 * exists can be all zero as well). */
CUBE_API const double *cube_flat_row(const cube_flat *f, const cube_region *r, cube_flat_part part);
/* One value (thread index, or 0 when aggregated); cube_combine_neutral
 * for a region without a row; 0.0 when out of range. */
CUBE_API double cube_flat_value(const cube_flat *f, const cube_region *r, cube_flat_part part,
                                size_t i);
CUBE_API void cube_flat_free(cube_flat *f);

/* ------------------------------------------------------------------------
 * Value modes (CUBE3 manual, section 2.2.3).
 *
 * The Cube display shows three trees side by side, by default metric |
 * call | system.  A tree's values aggregate over what is selected in the
 * trees to its LEFT, and a node shows its inclusive value when collapsed
 * and its exclusive value when expanded.  "Absolute" shows these values;
 * every other mode shows a percentage of a reference value (or, for the
 * peer distribution, a position on a scale), where each reference is the
 * absolute value that the referenced node shows in its own tree.  The
 * references combine like the values they are made of (see the top of this
 * file): for a MAXDOUBLE metric, "sum" below reads "largest", so a call
 * root is the largest value below it, and the percentages of the modes
 * stay at most 100 for non-negative values.
 *
 *  ABSOLUTE                  the value itself.  All trees.
 *  OWN_ROOT_PERCENT          100 * value / own_root: the node's own tree root
 *                            in collapsed state (inclusive), with the same
 *                            selections on the left.  All trees.
 *  METRIC_ROOT_PERCENT       100 * value / metric_root: the collapsed metric
 *                            root of the selected metric.  Trees right of the
 *                            metric tree.
 *  METRIC_SELECTION_PERCENT  100 * value / metric_selection: the selected
 *                            metric's value in its current state (collapsed:
 *                            inclusive, expanded: exclusive); for several
 *                            selected metrics, the sum.  Trees right of the
 *                            metric tree.
 *  CALL_ROOT_PERCENT         100 * value / call_root: the collapsed call-tree
 *                            root of the selected call path; for several
 *                            selections under different roots, the sum of
 *                            those roots.  Trees right of the call tree.
 *  CALL_SELECTION_PERCENT    100 * value / call_selection: the selected call
 *                            path(s) in their current state, summed.  Trees
 *                            right of the call tree.
 *  SYSTEM_ROOT_PERCENT       100 * value / system_root: the sum of the
 *                            inclusive values of the roots (machines) of the
 *                            selected system items.  Trees right of the
 *                            system tree.
 *  SYSTEM_SELECTION_PERCENT  100 * value / system_selection: the selected
 *                            system item(s) in their current state, summed.
 *                            Trees right of the system tree.
 *  PEER_PERCENT              100 * value / peer_max: the largest inclusive
 *                            value among all system items at the node's depth
 *                            (machines, nodes, processes or threads).  The
 *                            system tree only.  Manual: threads 100, 120, 200
 *                            give 50, 60, 100.
 *  PEER_DISTRIBUTION         100 * (value - peer_min) / (peer_max - peer_min)
 *                            on the same peers.  The system tree only.
 *                            Manual: 100, 120, 200 give 0, 20, 100.
 *  EXTERNAL_PERCENT          100 * value / external_root: "like the metric
 *                            root percentage except that the value equal to
 *                            100% is determined by another data set": the
 *                            collapsed metric root (of the node itself in the
 *                            metric tree, of the selected metric in the other
 *                            trees) in the external experiment, i.e. that
 *                            root metric's total there.  All trees, but only
 *                            while the metric tree is the leftmost.
 *
 * Undefined values (returned as NaN):
 *  - every value of a tree left of the metric tree, in every mode (it would
 *    add up metrics of different meanings and units, manual 2.2.3), and so
 *    every mode whose reference is a node of such a tree (the manual's
 *    example: call | metric | system offers no call root percent in the
 *    metric tree);
 *  - a mode that is not available for the tree (list above);
 *  - the value of an expanded machine, node or process, in every mode (only
 *    threads have values of their own: "In all modes, the severity values
 *    for expanded system nodes are shown as undefined");
 *  - a percentage whose reference is 0 or NaN, a peer distribution whose
 *    peers are all equal (peer_max == peer_min), and a NaN value.
 * ------------------------------------------------------------------------ */

typedef enum {
    CUBE_MODE_ABSOLUTE,
    CUBE_MODE_OWN_ROOT_PERCENT,
    CUBE_MODE_METRIC_ROOT_PERCENT,
    CUBE_MODE_METRIC_SELECTION_PERCENT,
    CUBE_MODE_CALL_ROOT_PERCENT,
    CUBE_MODE_CALL_SELECTION_PERCENT,
    CUBE_MODE_SYSTEM_ROOT_PERCENT,
    CUBE_MODE_SYSTEM_SELECTION_PERCENT,
    CUBE_MODE_PEER_PERCENT,
    CUBE_MODE_PEER_DISTRIBUTION,
    CUBE_MODE_EXTERNAL_PERCENT
} cube_value_mode;
#define CUBE_NUM_VALUE_MODES 11

typedef enum {
    CUBE_TREE_METRIC = 1,
    CUBE_TREE_CALL = 2, /* the call tree or the flat profile */
    CUBE_TREE_SYSTEM = 3
} cube_tree_kind;

/* Where a value is shown. */
typedef struct {
    cube_tree_kind tree;     /* the tree the value belongs to */
    cube_tree_kind order[3]; /* the trees from left to right; all 0: the default
                                order metric, call, system */
    int expanded_system_item;/* 1: a machine, node or process shown expanded */
} cube_mode_place;

/* The reference values; only those the mode uses are read. */
typedef struct {
    double own_root;
    double metric_root;
    double metric_selection;
    double call_root;
    double call_selection;
    double system_root;
    double system_selection;
    double peer_min, peer_max;
    double external_root;
} cube_mode_refs;

/* 1 when `mode` gives defined values in the tree `place` names (in its
 * order), 0 when not (see above) or when the place is invalid. */
CUBE_API int cube_value_mode_available(cube_value_mode mode, const cube_mode_place *place);
/* The value shown for absolute value `value` (NaN when undefined). */
CUBE_API double cube_value_in_mode(cube_value_mode mode, double value, const cube_mode_refs *refs,
                                   const cube_mode_place *place);
/* Names for options: "absolute", "own-root-percent", "metric-root-percent",
 * "metric-selection-percent", "call-root-percent", "call-selection-percent",
 * "system-root-percent", "system-selection-percent", "peer-percent",
 * "peer-distribution", "external-percent".  NULL for an unknown mode. */
CUBE_API const char *cube_value_mode_name(cube_value_mode mode);
/* The mode of a name above; 0, or -1 (CUBE_EINVAL) for an unknown name. */
CUBE_API int cube_value_mode_parse(const char *name, cube_value_mode *mode, cube_status *status);
/* The smallest and largest of n values (the peer references of one level
 * of the system tree, e.g. from cube_system_sums).  0, or -1 (CUBE_EINVAL)
 * when n is 0 or a value is NaN. */
CUBE_API int cube_peer_range(const double *values, size_t n, double *min, double *max,
                             cube_status *status);

/* ------------------------------------------------------------------------
 * Statistics of a value across locations (`cube_stat -%`): computed
 * exactly on a sorted copy, not estimated.
 *
 *  count     n
 *  sum       compensated sum, taken in ascending order (so it does not
 *            depend on the order of the locations)
 *  mean      sum / n
 *  variance  the SAMPLE variance, sum((x - mean)^2) / (n - 1), as CubeLib's
 *            cube_stat (which leaves it empty for n < 2); computed in two
 *            passes with the rounding-error correction
 *            (sum(d^2) - sum(d)^2 / n) / (n - 1), d = x - mean.
 *            NaN when n < 2.
 *  minimum, maximum
 *  quartile25, median, quartile75
 *            the quantiles for p = 0.25, 0.5, 0.75 by linear interpolation
 *            between closest ranks (Hyndman & Fan type 7, R's default,
 *            numpy's "linear"): with x sorted ascending, x[0..n-1],
 *            h = (n - 1) * p, k = floor(h):
 *              Q(p) = x[k] + (h - k) * (x[k+1] - x[k])   (x[k] when h = k).
 *            So the median is the middle value, or the mean of the two
 *            middle values for an even n; {1,2,3,4} has quartiles 1.75 and
 *            3.25.  CubeLib estimates quantiles with the P^2 algorithm and
 *            prints none for n < 5; these are exact for every n >= 1.
 *
 * For n = 0, count and sum are 0 and everything else is NaN.  Values must
 * not be NaN (CUBE_EINVAL); infinities are allowed (the sum and mean
 * are then infinite, or NaN when both signs occur, and the variance NaN,
 * as IEEE arithmetic gives).  A variance that rounding would make negative
 * is 0.
 * ------------------------------------------------------------------------ */

typedef struct {
    size_t count;
    double sum, mean, variance, minimum, quartile25, median, quartile75, maximum;
} cube_stats;

/* Statistics of values[0..n-1] (not modified; a sorted copy is made).
 * 0 or -1. */
CUBE_API int cube_stats_compute(const double *values, size_t n, cube_stats *st,
                                cube_status *status);
/* The same on values the caller has sorted ascending (no copy). */
CUBE_API int cube_stats_of_sorted(const double *sorted, size_t n, cube_stats *st,
                                  cube_status *status);
/* The type-7 quantile p (0 <= p <= 1) of sorted values; NaN when n is 0
 * or p is outside [0, 1]. */
CUBE_API double cube_quantile_sorted(const double *sorted, size_t n, double p);

/* The sum of n values, compensated (Neumaier) like every sum here; an
 * infinite or NaN sum is returned as it is. */
CUBE_API double cube_compensated_sum(const double *values, size_t n);

#ifdef __cplusplus
}
#endif
#endif
