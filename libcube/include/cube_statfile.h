/*
 * cube_statfile.h - statistics files: the pattern statistics and most severe
 * instances that trace analysers (Scalasca's SCOUT, KOJAK's EXPERT) write
 * next to an experiment, and that the Cube display shows as box plots.
 *
 * Two dialects are read by one parser, told apart by the header line:
 *  - documented (Cube GUI appendix): a MetricID column after the name,
 *    instance lines "- cnode: ID enter: T exit: T duration: D";
 *  - Scalasca 2: no MetricID column (the pattern name is the metric's
 *    unique name), "- cnode ID ..." with or without the colon, and an
 *    optional trailing "rank: N".
 * See cube-stat(5).  Included by cube.h.
 */
#ifndef LIBCUBE_CUBE_STATFILE_H
#define LIBCUBE_CUBE_STATFILE_H

#include "cube.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUBE_STATFILE_DOCUMENTED, /* with a MetricID column */
    CUBE_STATFILE_SCALASCA    /* without: patterns named by the metric's unique name */
} cube_statfile_dialect;

typedef struct {
    int64_t cnode_id;  /* the call-tree node's id label in the experiment */
    double enter, exit, duration;
    int64_t rank;      /* -1 when the line has no "rank:" */
    long line;         /* where it was read (0 when made in memory) */
} cube_statfile_instance;

/* Which optional statistics a pattern has (the appendix: all of the first
 * group or none; the variance only with them; the quartiles only with the
 * variance, both or neither). */
#define CUBE_STATFILE_SUMMARY 1u   /* mean, median, minimum, maximum, sum */
#define CUBE_STATFILE_VARIANCE 2u
#define CUBE_STATFILE_QUARTILES 4u

typedef struct {
    char *name;
    int64_t metric_id;  /* -1 in the Scalasca dialect */
    uint64_t count;     /* how many instances of the pattern exist */
    unsigned has;       /* CUBE_STATFILE_* flags */
    double mean, median, minimum, maximum, sum, variance, quartile25, quartile75;
    cube_statfile_instance *instances; /* the most severe ones, as listed */
    size_t num_instances;
    long line;
} cube_statfile_pattern;

typedef struct cube_statfile cube_statfile;

CUBE_API cube_statfile *cube_statfile_create(void);
CUBE_API void cube_statfile_free(cube_statfile *s);

/* Read a statistics file ("-": standard input; gzip by magic bytes) into an
 * empty handle: 0, or -1 with cube_statfile_error() as
 * "FILE:LINE: what was expected, what was found".  Violations of what the
 * text implies (minimum <= quartile 25 <= median <= quartile 75 <=
 * maximum, variance >= 0, enter <= exit, sum = count x mean within the
 * rounding of the printed digits) are warnings naming the line. */
CUBE_API int cube_statfile_read(cube_statfile *s, const char *path);
/* Why the last call that changed the handle failed; CUBE_OK and "" after
 * a successful one. */
CUBE_API cube_code cube_statfile_error_code(const cube_statfile *s);
CUBE_API const char *cube_statfile_error(const cube_statfile *s);
CUBE_API size_t cube_statfile_num_warnings(const cube_statfile *s);
CUBE_API const char *cube_statfile_warning(const cube_statfile *s, size_t i);

CUBE_API cube_statfile_dialect cube_statfile_get_dialect(const cube_statfile *s);
CUBE_API size_t cube_statfile_num_patterns(const cube_statfile *s);
/* Valid until the next cube_statfile_add_pattern or _add_from_cube. */
CUBE_API const cube_statfile_pattern *cube_statfile_get_pattern(const cube_statfile *s, size_t i);
/* Append a copy of a pattern (its instances too); 0 or -1. */
CUBE_API int cube_statfile_add_pattern(cube_statfile *s, const cube_statfile_pattern *p);

/* Write in a dialect (a documented-dialect pattern without a metric id is
 * an error).  Atomic like cube_write_file; "-" is standard output, a name
 * ending in .gz is gzip-compressed.  0, or -1 with cube_statfile_error(). */
CUBE_API int cube_statfile_write(cube_statfile *s, const char *path, cube_statfile_dialect dialect);

/* The join with an experiment: a pattern's metric (by id label in the
 * documented dialect, by unique name in the Scalasca one) and an
 * instance's call path (by cnode id label); NULL when the experiment has
 * none (callers report it; it is not fatal). */
CUBE_API const cube_metric *cube_statfile_metric(const cube_statfile_pattern *p, const cube_t *c);
CUBE_API const cube_cnode *cube_statfile_cnode(const cube_statfile_instance *i, const cube_t *c);

/* Statistics computed from an experiment, for box plots of any metric:
 * one pattern for `met`, named by its unique name and carrying its id,
 * whose population is the metric's stored value (metric-inclusive,
 * call-tree-exclusive; a metric stored call-tree inclusive is converted)
 * of every (call path, thread) pair that has a row; all statistics exact
 * (sample variance, type-7 quartiles, as cube_stats_compute); the
 * `max_instances` largest values as instances (duration = the value,
 * enter = exit = 0, rank = the thread's process rank).  0 or -1 (out of
 * memory; CUBE_EUNSUPPORTED for a derived metric, whose values are not
 * computed). */
CUBE_API int cube_statfile_add_from_cube(cube_statfile *s, const cube_t *c, const cube_metric *met,
                                         size_t max_instances);

#ifdef __cplusplus
}
#endif
#endif
