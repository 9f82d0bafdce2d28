/*
 * severity_store_private.h - the sparse severity data of one experiment.
 *
 * Only (metric, call-tree node) pairs that hold data have a row; each row is
 * one contiguous array of row_len doubles, one per thread.  Memory grows with
 * the rows present, never with metrics x call paths x threads, and the
 * overhead per row is small next to rows of a few threads: an 8-byte entry
 * (metric, cnode) and, once the rows are indexed, 8-byte hash slots at a
 * load of at least 3/8 (10.7-21.3 bytes a row).  A row's values have no
 * pointer of their own: every row has the same length, so row i lives at a
 * computed place in fixed-size chunks (sev_row_values).
 */
#ifndef LIBCUBE_SEVERITY_STORE_H
#define LIBCUBE_SEVERITY_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t metric, cnode; /* dense indexes; the values: sev_row_values */
} severity_row;

typedef struct {
    size_t row_len;        /* doubles per row: the number of threads.  Set it
                              directly only while the store is empty (the
                              layout below follows it at the first row);
                              later, sev_store_set_row_len. */
    severity_row *rows;    /* in creation order */
    size_t num_rows, rows_cap;
    uint64_t *slots;       /* open addressing, Robin Hood order: hash fingerprint
                              << 32 | row number + 1; 0 = empty.  The fingerprint
                              spares most probes a cache miss into `rows`. */
    size_t num_slots;      /* a power of two; num_rows <= 3/4 of it */
    unsigned slot_bits;    /* log2 of num_slots */
    size_t num_indexed;    /* rows [0, num_indexed) are in `slots`; the rest were
                              appended (sev_store_append, or sev_store_get_or_add
                              in key order) and wait for sev_store_index */
    size_t cursor;         /* the row after the one sev_store_get_or_add gave
                              last: where a caller going through the rows in
                              their order looks next */
    int unordered;         /* 0 while every row was created after all rows of a
                              smaller (metric, cnode): rows then are sorted */
    double **chunks;       /* chunk c holds the values of rows
                              [c << chunk_shift, (c + 1) << chunk_shift) */
    size_t num_chunks, chunks_cap;
    size_t stride;         /* doubles per row in the chunks: row_len, at least 1
                              (a row of a store without threads yet still has
                              room for one value, as it always had) */
    unsigned chunk_shift;  /* log2 of the rows per chunk */
} severity_store;

/* The values of row number `row` (< num_rows): row_len doubles.  The address
 * stays valid while rows are added (chunks never move), until
 * sev_store_set_row_len widens the rows, sev_store_clear or sev_store_free. */
static inline double *sev_row_values(const severity_store *s, size_t row)
{
    return s->chunks[row >> s->chunk_shift] +
           (row & (((size_t)1 << s->chunk_shift) - 1)) * s->stride;
}

void sev_store_free(severity_store *s);
/* Drop every row, keeping the row length. */
void sev_store_clear(severity_store *s);
/* The row, or NULL when absent.  It only reads the store, so any number
 * of threads may look rows up at once while none changes it.  Rows
 * appended since the last sev_store_index are not in the hash table yet
 * and are searched by bisection while the store is sorted, else one by
 * one: whoever appends indexes before looking up much (a handle's first
 * look-up does, query.c). */
double *sev_store_find(const severity_store *s, size_t metric, size_t cnode);
/* Put the appended rows into the hash table; 0, or -1 when out of memory
 * (the store is unchanged then: its rows are all still found). */
int sev_store_index(severity_store *s);
/* The row, created all zeros when absent; NULL when out of memory.  Rows
 * asked for in (metric, cnode) order, or in the order of the rows (a second
 * input in the order of the first), cost no hash look-up: a key beyond the
 * last row of a sorted store is new and appended, and the row after the
 * last one given is tried first.  Other keys index the appended rows and
 * use the hash table. */
double *sev_store_get_or_add(severity_store *s, size_t metric, size_t cnode);
/* A new row, all zeros, that the caller knows is not in the store yet
 * (a reader filling a fresh store).  It skips the hash table, whose random
 * accesses cost more than the row itself, until sev_store_index or
 * sev_store_get_or_add puts it there.  NULL when out of memory. */
double *sev_store_append(severity_store *s, size_t metric, size_t cnode);
/* Up to n new rows of `metric` for the call paths cnodes[0 .. n), which
 * the caller knows are absent (as sev_store_append): as many as the
 * current chunk holds, at least one, *added of them.  Their values follow
 * one another from the address returned, stride doubles a row, and are
 * NOT zeroed: the caller writes every one (a reader reads rows straight
 * into them).  NULL when out of memory or n is 0. */
double *sev_store_append_run(severity_store *s, size_t metric, const size_t *cnodes, size_t n,
                             size_t *added);
/* Widen every row to `row_len` values (new ones are 0); -1 when out of memory
 * (the store is unchanged then).  Rows move: earlier row pointers are stale. */
int sev_store_set_row_len(severity_store *s, size_t row_len);
/* Row numbers ordered by (metric, cnode); the caller frees.  NULL when out
 * of memory (or when there are no rows: check num_rows first). */
size_t *sev_store_sorted(const severity_store *s);

#endif
