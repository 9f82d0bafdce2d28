/*
 * row_feed_private.h - the rows of several experiments, read ahead by worker
 * threads and taken by the caller input after input (see row_feed.c).
 */
#ifndef LIBCUBE_ROW_FEED_H
#define LIBCUBE_ROW_FEED_H

#include "cube.h"

#include <stddef.h>

enum {
    FEED_ROW = 1,        /* a row */
    FEED_ROW_END = 0,    /* the input has no more rows */
    FEED_MAY_REPEAT = 2, /* the input repeats a row: read it whole instead */
    FEED_ERROR = -1      /* row_feed_error says why */
};

typedef struct row_feed row_feed;

/* Inputs read at once: one worker thread each. */
#define FEED_WORKERS 2

/* Start reading the rows of paths[k] for every k with !skip[k].  The
 * arrays must stay alive until row_feed_stop.  `readers` NULL, or per
 * input NULL or a reader of paths[k] past its definitions, which the feed
 * takes over (the entry is set to NULL) and reads instead of opening and
 * parsing paths[k] again.  NULL when out of memory (the readers are then
 * still the caller's). */
row_feed *row_feed_start(const char *const *paths, cube_reader **readers, size_t n,
                         const unsigned char *skip);
/* The next row of input k; inputs must be taken in increasing order, each
 * until it ends.  Indexes are those of the input's own definitions. */
int row_feed_next(row_feed *f, size_t k, size_t *metric, size_t *cnode, const double **values,
                  size_t *nthreads);
/* Why the last row_feed_next gave FEED_ERROR (a reader's code and
 * message, or CUBE_ENOMEM). */
const cube_status *row_feed_error(const row_feed *f);
/* The reader's warnings about the input that ended last (at FEED_ROW_END);
 * valid until the next row_feed_next. */
size_t row_feed_warnings(const row_feed *f, const char *const **list);
/* Stop the workers (also in the middle) and free everything. */
void row_feed_stop(row_feed *f);

#endif
