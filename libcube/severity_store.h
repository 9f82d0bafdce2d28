/*
 * severity_store.h - the sparse severity data of one experiment.
 *
 * Only (metric, call-tree node) pairs that hold data have a row; each row is
 * one contiguous array of doubles, one per thread.  Rows live in large arena
 * chunks so that memory grows with the rows present, with little overhead
 * per row (a 16-byte entry and 16 bytes of hash slots at most), never with
 * metrics x call paths x threads.
 */
#ifndef LIBCUBE_SEVERITY_STORE_H
#define LIBCUBE_SEVERITY_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t metric, cnode; /* dense indexes */
    double *values;         /* row_len doubles */
} severity_row;

typedef struct severity_chunk severity_chunk;

typedef struct {
    size_t row_len;        /* doubles per row: the number of threads */
    severity_row *rows;    /* in creation order */
    size_t num_rows, rows_cap;
    uint64_t *slots;       /* open addressing: hash fingerprint << 32 | row number + 1;
                              0 = empty.  The fingerprint spares most probes a
                              cache miss into `rows`. */
    size_t num_slots;      /* a power of two, at least twice num_rows */
    size_t num_indexed;    /* rows [0, num_indexed) are in `slots`; the rest were
                              appended by sev_store_append and are indexed on the
                              next look-up */
    severity_chunk *chunks;/* the arena the values live in */
} severity_store;

void sev_store_free(severity_store *s);
/* Drop every row, keeping the row length. */
void sev_store_clear(severity_store *s);
/* The row, or NULL when absent.  Indexes appended rows first (so the store
 * changes even through a const pointer: a handle shared between threads
 * must have seen one look-up before it is shared). */
double *sev_store_find(const severity_store *s, size_t metric, size_t cnode);
/* The row, created all zeros when absent; NULL when out of memory. */
double *sev_store_get_or_add(severity_store *s, size_t metric, size_t cnode);
/* A new row, all zeros, that the caller knows is not in the store yet
 * (a reader filling a fresh store).  It skips the hash table, whose random
 * accesses cost more than the row itself; the next look-up indexes it.
 * NULL when out of memory. */
double *sev_store_append(severity_store *s, size_t metric, size_t cnode);
/* Widen every row to `row_len` values (new ones are 0); -1 when out of memory. */
int sev_store_set_row_len(severity_store *s, size_t row_len);
/* Row numbers ordered by (metric, cnode); the caller frees.  NULL when out
 * of memory (or when there are no rows: check num_rows first). */
size_t *sev_store_sorted(const severity_store *s);

#endif
