/*
 * refine.h - automatic parameter refinement, as in SKaMPI.
 *
 * A suite measures t(x) over integer arguments x in [x_start, x_end]
 * (message length, number of processes, number of chunks: SKaMPI's
 * arguments are integers).  Every argument is a multiple of max(multiple_of, 1);
 * the range ends are rounded inwards (x_start up, x_end down) to such a
 * multiple, so x_end is never exceeded (SKaMPI's x_end: "max. argument,
 * never succeeded by variation").
 *
 * Phase one, all scales: the start points, measured in ascending order
 *   linear: x_start + k * stepwidth      for all k with value < x_end
 *   log:    x_start * stepwidth^k        for all k with value < x_end
 *           (x_start < 1: x_start itself, then 1 * stepwidth^k, since
 *           0 * stepwidth^k never grows; SKaMPI's example parameter
 *           block uses Start_Argument = 0 with Dynamic_log)
 * each rounded to the nearest multiple, duplicates dropped, and always x_end.
 * The fixed scales stop here (x_max_steps is not applied to them, as in
 * SKaMPI: their number of points follows from range and stepwidth).
 *
 * Phase two, dynamic scales: the segments between neighbouring points are
 * kept in a priority queue (a binary heap, largest key first; equal keys:
 * the segment with the smaller x first, so the run is deterministic).  For a
 * segment (m_b, m_c) with left neighbour point m_a and right neighbour m_d:
 *
 *   d1 = t_b - P_cd(m_b)   the error at b of the prediction made by
 *                          extrapolating the right-hand segment (c, d)
 *                          backwards to m_b
 *   d2 = t_c - P_ab(m_c)   the error at c of the prediction made by
 *                          extrapolating the left-hand segment (a, b)
 *                          forwards to m_c
 *   t_b, t_c               the measured values at m_b and m_c
 *
 *   K = min(|d1| / |t_b|, |d2| / |t_c|, len)          (SKaMPI's key)
 *   len = (m_c - m_b) / m_b              log scale (m_b = 0: +inf)
 *   len = (m_c - m_b) / (x_end - x_start)  linear scale (the segment's
 *         length relative to the range: the same "scale-free length" the
 *         log term is on a logarithmic axis)
 *
 * Each prediction error is taken relative to the value at the point it
 * predicts.  A term that does not exist (the first segment has no a, the
 * last no d) is left out of the min; with neither, K = len.  |d|/|t| with
 * t = 0 is 0 for d = 0 and +inf otherwise.  The min is deliberate (the
 * max would spend many superfluous points near the jumps and sharp bends
 * where the MPI library changes its protocol): a point that lies on either
 * neighbouring line ends the refinement there, so straight pieces cost no
 * extra points while a jump stays interesting on both sides until
 * x_min_dist is reached.
 *
 * The segment with the largest K is split at sqrt(m_b * m_c) (log; with
 * m_b = 0 at sqrt(u * m_c), u = the multiple) or (m_b + m_c) / 2 (linear),
 * rounded to the nearest multiple; if that is too close to an end, the
 * other neighbouring multiple is tried.  A split point must lie strictly
 * inside and at least x_min_dist from both ends.  A segment without such a
 * point leaves the queue for good.  Only the two new segments and the two
 * neighbouring segments (whose a or d changed) get new keys.
 *
 * Stop (phase two): the largest key in the queue <= max_rel_error, or the
 * queue is empty, or x_max_steps points are measured (x_max_steps <= 0: no
 * bound), or time_suite is reached.  time_suite (seconds, <= 0: none) is
 * checked before every measurement in both phases, against clk() - clk() at
 * the start; so it can also cut phase one short (as in SKaMPI, where
 * "time_suite can override x_max_steps and x_end").  clk may be NULL (no time limit).
 *
 * Deterministic: the same measured values give the same arguments in the
 * same order; every MPI rank runs refine_run with rank 0's broadcast values.
 */
#ifndef CUBE_BENCH_REFINE_H
#define CUBE_BENCH_REFINE_H

#include <stddef.h>

typedef enum { SCALE_FIXED_LINEAR, SCALE_FIXED_LOG, SCALE_DYNAMIC_LINEAR, SCALE_DYNAMIC_LOG } refine_scale;

typedef struct {
    refine_scale scale;
    double x_start, x_end;    /* x_start <= x_end, x_start >= 0 */
    double stepwidth;         /* linear: > 0 (added); log: > 1 (multiplied) */
    double x_min_dist;        /* dynamic scales: smallest distance of an
                                 argument added by the refinement to its
                                 neighbours (below one multiple: one multiple) */
    long multiple_of;         /* every argument a multiple of this (<= 1: any integer) */
    int x_max_steps;          /* dynamic scales: at most this many points (<= 0: no bound) */
    double time_suite;        /* seconds (<= 0: no limit) */
    double max_rel_error;     /* dynamic scales: stop when the largest K <= this */
} refine_params;

/* Measure at argument x: store the value and its standard error, return 0;
 * or return -1 to abort the suite. */
typedef int (*refine_measure_fn)(void *ctx, double x, double *value, double *std_error);
/* Seconds since any fixed origin.  In MPI: rank 0's clock, broadcast, so that
 * all ranks take the same decision. */
typedef double (*refine_clock_fn)(void *ctx);

typedef struct { double x, value, std_error; } refine_point;

/* Runs the suite.  On success returns 0 with *points (malloc'd, sorted by x,
 * free with free()) and *n.  Returns -1 when the measure callback aborts,
 * when memory runs out, or when the parameters are invalid (refine_check);
 * then *points = NULL and *n = 0. */
int refine_run(const refine_params *p, refine_measure_fn m, refine_clock_fn clk, void *ctx,
               refine_point **points, size_t *n);

/* additions */

/* 0 when the parameters are usable, else -1 and a message "expected ...,
 * found ..." in err (if err != NULL). */
int refine_check(const refine_params *p, char *err, size_t errlen);

/* The phase-one arguments (ascending, malloc'd).  0 or -1 (invalid
 * parameters, out of memory). */
int refine_start_points(const refine_params *p, double **xs, size_t *n);

/* "Fixed_linear", "Fixed_log", "Dynamic_linear", "Dynamic_log" (the
 * parameter file's spelling); NULL for an invalid value. */
const char *refine_scale_name(refine_scale s);

#endif
