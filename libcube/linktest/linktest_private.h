/*
 * linktest_private.h - what the LinkTest modules share inside libcube.
 */
#ifndef LIBCUBE_LINKTEST_INTERNAL_H
#define LIBCUBE_LINKTEST_INTERNAL_H

#include "cube_linktest.h"
#include "core/status_private.h"

/* The hosts of a run, numbered in the order of their first rank:
 * host_of[rank] is the host's number, first_rank[h] its first rank (both
 * malloc'd, num_ranks entries; free both).  0, or -1 when out of memory. */
int linktest_group_hosts(const cube_linktest *lt, size_t **host_of, size_t **first_rank,
                         size_t *num_hosts);

/* The handle's status (cube_linktest_error_code, cube_linktest_error). */
cube_status *linktest_status(cube_linktest *lt);

/* A pass of the analysis over at least this many values is split with a
 * second thread (below it the thread costs more than it saves).  Tests
 * lower it to run the shipped small runs both ways and compare. */
#define LINKTEST_HELPER_MIN_VALUES ((size_t)1 << 20)
void linktest_set_helper_threshold(cube_linktest *lt, size_t min_values);
size_t linktest_helper_threshold(const cube_linktest *lt);

/* cube_linktest_read_row with the reason in the caller's status: safe
 * for two threads reading rows of one handle at once (pread). */
int linktest_read_row(const cube_linktest *lt, size_t iteration, size_t rank, double *row,
                      cube_status *st);

#endif
