/*
 * cli_rank.h - choosing and ordering the rows of a table of values, for
 * every tool that prints values per call path or region: a threshold in
 * percent of the metric's root value (--threshold, CubeLib's
 * cube_calltree -t), an order (--sort) and the first N rows (--top).
 */
#ifndef CLI_RANK_H
#define CLI_RANK_H

#include "cube_views.h"

#include <stddef.h>

typedef enum {
    CLI_SORT_NONE,  /* the tool's own order */
    CLI_SORT_VALUE, /* by the value */
    CLI_SORT_ABS,   /* by the magnitude of the value */
    CLI_SORT_NAME,  /* by the name (call path, region), bytewise */
    CLI_SORT_ID     /* by the id (call path, region) */
} cli_sort_key;

typedef struct {
    cli_sort_key key;
    int descending;
} cli_sort;

/* "value", "abs", "name" or "id", each with an optional leading '-' for
 * descending order.  0, or -1 for anything else. */
int cli_sort_parse(const char *arg, cli_sort *sort);

/* One row to order: its key fields, and the caller's data that travels
 * with it (a fixed-size payload, see cli_ranking_begin). */
typedef struct {
    double value;     /* CLI_SORT_VALUE and _ABS; NaN: no value, always last */
    long long id;     /* CLI_SORT_ID */
    const char *name; /* CLI_SORT_NAME; NULL reads as ""; must live as long
                         as the ranking */
    size_t seq;       /* the row's place in the tool's own order: equal keys
                         keep it, so the result does not depend on qsort */
} cli_ranked;

typedef struct cli_ranking cli_ranking;

/* A ranking that keeps the first `top` rows (SIZE_MAX: every row) in the
 * order `sort` (CLI_SORT_NONE: by seq), each with `payload_size` bytes of
 * the caller's.  Memory stays within about 2 * top rows when `top` is
 * small: rows that cannot be among the first are dropped as they come.
 * NULL when out of memory (after printing the error). */
cli_ranking *cli_ranking_begin(cli_sort sort, size_t top, size_t payload_size);
/* Offer one row; 0, or -1 when out of memory (after printing the error). */
int cli_ranking_add(cli_ranking *r, const cli_ranked *row, const void *payload);
/* Sort, keep the first `top`; the number of rows kept (0 when out of
 * memory, after printing the error). */
size_t cli_ranking_finish(cli_ranking *r);
/* Row i (i < the number cli_ranking_finish returned) and its payload. */
const cli_ranked *cli_ranking_row(const cli_ranking *r, size_t i);
const void *cli_ranking_payload(const cli_ranking *r, size_t i);
void cli_ranking_free(cli_ranking *r);

#endif
