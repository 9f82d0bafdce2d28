/*
 * model_to_anchor_private.h - an experiment's definitions as the anchor
 * records a CUBE 4 writer serialises (anchor_private.h).
 */
#ifndef LIBCUBE_CUBEX_MODEL_TO_ANCHOR_H
#define LIBCUBE_CUBEX_MODEL_TO_ANCHOR_H

#include "cubex/anchor_private.h"

/* The records of c's definitions (free with cubex_anchor_free), or NULL
 * with status set (out of memory).  With cnode_order, *cnode_order gets a
 * malloc'd array: for each cnode index of the model, the position of that
 * call path among the records' cnodes (their pre-order).  With columns,
 * *columns gets one: for each thread index, its location id, which is its
 * column in the data rows (the thread's id when the threads' ids are
 * 0 ... L-1 in some order, as in an experiment read from CUBE 4; else its
 * index). */
cubex_anchor *cubex_anchor_from_model(cube_t *c, size_t **cnode_order, size_t **columns,
                                      cube_status *status);

#endif
