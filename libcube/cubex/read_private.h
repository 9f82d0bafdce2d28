/*
 * read_private.h - a CUBE 4 archive read into the model: its definitions
 * (model_from_anchor.c) and its stored values (read.c), for cube_read and
 * for the streaming reader.
 *
 * The model holds the values of each metric as stored in the archive: per
 * call path that has a row, one double per thread in thread index order.
 * The double of a value ("the double view"):
 *  - INT8 ... INT64: the signed value; UINT8, UINT16, UINT32: the unsigned
 *    value; UINT64: the value, except that one of 2^63 or more is taken as
 *    the negative int64 of its bits (counters that Score-P stores as 2^64 - k
 *    act as -k, as in the modular sums of the format);
 *  - DOUBLE, FLOAT, MINDOUBLE, MAXDOUBLE: the value;
 *  - COMPLEX: sqrt(re^2 + im^2); RATE: main / duration (duration 0:
 *    +DBL_MAX, -DBL_MAX or 0 by the sign of main); TAU_ATOMIC: sum / n (0
 *    when n is 0); NDOUBLES: the sum of its doubles; HISTOGRAM: the sum of
 *    its bins; SCALE_FUNC: the function at x = 1, the sum of the
 *    coefficients a of the terms without logarithm (d = 0)
 *    (cubex_value_number).
 * Where a double cannot hold the value, the metric keeps the exact bytes
 * beside the rows (cube_metric.exact): every row of a structured type,
 * and the rows of an INT64 or UINT64 metric that hold a value whose
 * magnitude (as the double view takes it) is above 2^53.  cube_read keeps
 * all of them; the streaming reader only the one of the row it hands out
 * (the views take a structured value's components from there).
 *
 * A call path without a row has no row in the model (the views know the
 * neutral values); a row the archive stores is kept even when it is all
 * zeros (for MINDOUBLE a stored 0 is not the neutral +DBL_MAX).  A metric
 * without members has no rows; derived metrics have no members (one
 * warning names them); rows of VOID metrics are not read.
 */
#ifndef LIBCUBE_CUBEX_READ_H
#define LIBCUBE_CUBEX_READ_H

#include "core/cube_private.h"
#include "cubex/anchor_private.h"
#include "io/input_private.h"

/* Build the definitions of `a` into the empty handle c: metrics (ids as in
 * the file), regions, call paths (ids as in the file; none with
 * CUBE_READ_NO_CALL_TREE in flags), the system tree (root system tree
 * nodes as machines, the others as nodes, location groups as processes,
 * locations as threads in document order with their Id as id),
 * topologies, attributes (repeated keys: the last value, at the place of
 * the first), mirrors, the source format.  The warnings about the
 * definitions go to c.  0, or -1 with the error on c. */
int cubex_model_from_anchor(cube_t *c, const cubex_anchor *a, const char *file, unsigned flags);

typedef struct cubex_reader cubex_reader;

/* Read the archive that input `in` holds (input_start found a tar
 * archive): its definitions into the empty handle c.  The input is
 * closed.  NULL with the error on c. */
cubex_reader *cubex_reader_open(cube_t *c, cube_input *in, const char *name, unsigned flags);
/* Every row into c's severity store (and the exact values beside them).
 * 0, or -1 with the error on c. */
int cubex_reader_read_all(cubex_reader *x);
/* The next row: metric by metric in definition order, each metric's rows
 * in the order of its index; values in thread index order, valid until
 * the next call.  1, 0 at the end, -1 with the error on c. */
int cubex_reader_next(cubex_reader *x, size_t *metric, size_t *cnode, const double **values);
/* Rows are read only for metrics with wanted[metric index] set (NULL:
 * every metric).  The array stays the caller's and must live as long as
 * the reader or until the next call. */
void cubex_reader_want(cubex_reader *x, const unsigned char *wanted);
void cubex_reader_free(cubex_reader *x);

/* The whole archive into c (cube_read): 0, or -1 with the error on c.
 * The input is closed. */
int cubex_read_input(cube_t *c, cube_input *in, const char *name);

#endif
