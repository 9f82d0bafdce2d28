/*
 * write_private.h - writing an experiment as a CUBE 4 archive (write.c).
 */
#ifndef LIBCUBE_CUBEX_WRITE_H
#define LIBCUBE_CUBEX_WRITE_H

#include "cube.h"

#include <stdio.h>

/* The whole archive into fp (sequential writes only: a pipe will do);
 * `name` is used in messages.  CUBE_WRITE_GZIP in `flags`: compressed
 * data members (ZCUBEX.DATA) and a gzip-compressed anchor.xml.  Rows from
 * `next` (may be NULL) come after the stored ones, each metric's
 * together.  0, or -1 with status set; warnings (a metric written as
 * DOUBLE) go to c. */
int cubex_write_experiment(cube_t *c, FILE *fp, const char *name, unsigned flags,
                           cube_row_source next, void *ctx, cube_status *status);

#endif
