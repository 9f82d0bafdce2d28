/*
 * binary_private.h - the per-metric binary members of a CUBE 4 archive:
 * `<id>.index` (which call paths have a row), `<id>.data` (the rows,
 * plain or zlib-compressed row by row), the value types and their byte
 * layouts, and the enumeration of the call tree that maps the index's
 * ordinals to call paths.
 *
 * Index member: "CUBEX.INDEX", a u32 1 in the writer's byte order (which
 * announces the byte order of this member and of the matching data
 * member), a u16 version, a u8 format: 1 sparse (then a u32 count n and n
 * ascending u32 ordinals; a bare 18-byte header means n = 0), 3 dense
 * (every ordinal has a row, in ordinal order).
 *
 * Data member: "CUBEX.DATA" and the rows back to back; or "ZCUBEX.DATA",
 * a u64 count m, m entries {u64 uncompressed start, u64 compressed start
 * counted from the end of the table, u64 compressed size}, then one zlib
 * stream per row.  A row holds one value per location, at the position of
 * the location's id; row k belongs to the k-th ordinal of the index.
 *
 * An ordinal is a position in an enumeration of the whole call forest,
 * not a call path id: pre-order for metrics stored exclusive, the "wide"
 * order (see cubex_enumerate) for metrics stored inclusive (and for the
 * kind SIMPLE, which the reference reader reads as inclusive).
 *
 * Every count is checked against what bounds it (the member's size, the
 * number of call paths) before anything is allocated from it, and a
 * compressed row must inflate to exactly one row.  Errors are
 * CUBE_EFORMAT "FILE: member NAME: byte OFFSET: what was expected" (the
 * offset counted in the archive), CUBE_EUNSUPPORTED for the obsolete
 * index formats, CUBE_EIO, CUBE_ENOMEM.
 */
#ifndef LIBCUBE_CUBEX_BINARY_H
#define LIBCUBE_CUBEX_BINARY_H

#include "cube.h"
#include "cubex/tar_private.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

/* ---- byte order ------------------------------------------------------------ */

/* The n-byte unsigned number at p, in the byte order given. */
static inline uint64_t cubex_get_uint(const unsigned char *p, size_t n, int big_endian)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[big_endian ? i : n - 1 - i] << (8 * (n - 1 - i));
    return v;
}

/* The same for 8 bytes, written out so that compilers make it one load
 * (and a byte swap for the other order): the rows are mostly 8-byte
 * values. */
static inline uint64_t cubex_get_u64(const unsigned char *p, int big_endian)
{
    if (big_endian)
        return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
               (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
               (uint64_t)p[6] << 8 | (uint64_t)p[7];
    return (uint64_t)p[7] << 56 | (uint64_t)p[6] << 48 | (uint64_t)p[5] << 40 |
           (uint64_t)p[4] << 32 | (uint64_t)p[3] << 24 | (uint64_t)p[2] << 16 |
           (uint64_t)p[1] << 8 | (uint64_t)p[0];
}

static inline double cubex_get_double(const unsigned char *p, int big_endian)
{
    uint64_t bits = cubex_get_u64(p, big_endian);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* ---- value types ---------------------------------------------------------- */

typedef enum {
    CUBEX_INT8, CUBEX_UINT8, CUBEX_INT16, CUBEX_UINT16, CUBEX_INT32, CUBEX_UINT32,
    CUBEX_INT64, CUBEX_UINT64,
    CUBEX_DOUBLE,     /* also FLOAT: 8 bytes too */
    CUBEX_MINDOUBLE,  /* combined by minimum; no row means +DBL_MAX */
    CUBEX_MAXDOUBLE,  /* combined by maximum; no row means -DBL_MAX */
    CUBEX_COMPLEX,    /* re, im */
    CUBEX_RATE,       /* main, duration */
    CUBEX_TAU_ATOMIC, /* u32 n, min, max, sum, sum of squares (36 bytes, packed) */
    CUBEX_NDOUBLES,   /* k doubles */
    CUBEX_HISTOGRAM,  /* min, max, k bin counts */
    CUBEX_SCALE_FUNC  /* 848 bytes: terms and measurements, see cubex_value_decode */
} cubex_kind;

typedef struct {
    cubex_kind kind;
    unsigned k; /* NDOUBLES(k), HISTOGRAM(k); 0 for the others */
} cubex_dtype;

/* The largest k of NDOUBLES(k) and HISTOGRAM(k) accepted: a row of a
 * million locations of such values is still well under the address
 * space. */
#define CUBEX_MAX_K 65536

/* The decoded components of a SCALE_FUNC value: nterms, nmeas, then per
 * term (a, b, c, d), then per measurement (nproc, mean, width); unused
 * slots 0.  42 terms is the most that 848 bytes hold. */
#define CUBEX_SCALE_FUNC_BYTES 848
#define CUBEX_SCALE_FUNC_SLOTS (2 + 4 * 42)

/* Parse a <dtype> text (the type names and their aliases, case-sensitive,
 * "NDOUBLES(k)", "HISTOGRAM(k)" with 1 <= k <= CUBEX_MAX_K): 0, or -1
 * when it names no type (the reference library then reads DOUBLE; the
 * caller decides). */
int cubex_dtype_parse(const char *text, cubex_dtype *out);
/* Bytes of one value in a row. */
size_t cubex_dtype_size(cubex_dtype t);
/* Doubles cubex_value_decode writes: 1 for the scalar types, 2 for
 * COMPLEX and RATE, 5 for TAU_ATOMIC, k, k + 2, CUBEX_SCALE_FUNC_SLOTS. */
size_t cubex_dtype_components(cubex_dtype t);
/* 1 for the integer types, which cubex_value_int reads exactly. */
int cubex_dtype_is_integer(cubex_dtype t);

/* Decode the value at src (in the byte order `big_endian` says) into
 * cubex_dtype_components(t) doubles: integers converted (exact below
 * 2^53), TAU_ATOMIC's n as a number, SCALE_FUNC's fields as listed
 * above.  0, or -1 when a SCALE_FUNC value announces more terms and
 * measurements than its 848 bytes hold (out is then zeroed). */
int cubex_value_decode(cubex_dtype t, int big_endian, const unsigned char *src, double *out);
/* An integer value's exact bits: signed types sign-extended, unsigned
 * ones zero-extended (a UINT64 2^64 - k stays that, for modular sums);
 * 0 for the other types. */
uint64_t cubex_value_int(cubex_dtype t, int big_endian, const unsigned char *src);
/* The components of the value of a call path without a row: zeros, but
 * +DBL_MAX for MINDOUBLE, -DBL_MAX for MAXDOUBLE, n = 0, min = +DBL_MAX,
 * max = -DBL_MAX for TAU_ATOMIC, min/max likewise for HISTOGRAM. */
void cubex_value_neutral(cubex_dtype t, double *out);

/* The one number of a value from its cubex_value_decode components (the
 * double view of read_private.h): the integer or double itself,
 * sqrt(re^2 + im^2) for COMPLEX, main / duration for RATE (duration 0:
 * +DBL_MAX, -DBL_MAX or 0 by the sign of main), sum / n for TAU_ATOMIC (0
 * when n is 0), the sum of the doubles of NDOUBLES and of the bins of
 * HISTOGRAM, and for SCALE_FUNC the function at x = 1 (the sum of the
 * coefficients of the terms without logarithm). */
double cubex_value_number(cubex_dtype t, const double *components);

/* ---- the call tree enumeration ----------------------------------------- */

typedef enum { CUBEX_PREORDER, CUBEX_WIDE } cubex_order;

/* A call forest of n call paths, numbered 0..n-1 (any numbering): its
 * roots in document order, and the children of call path i, in document
 * order, at child[child_start[i] .. child_start[i + 1]). */
typedef struct {
    size_t n;
    size_t num_roots;
    const size_t *roots;
    const size_t *child_start; /* n + 1 entries */
    const size_t *child;       /* n - num_roots entries */
} cubex_tree;

/* Fill cnode_of[ordinal] (n entries) with the call path each ordinal
 * stands for.  PREORDER: a call path, then each child's subtree in turn.
 * WIDE (not breadth-first): a root, then all children of a call path one
 * after the other, then the same for each child's subtree in turn; roots
 * one after the other.  0, or -1 when the description is not a forest of
 * exactly n call paths (a cycle, a call path twice or never). */
int cubex_enumerate(const cubex_tree *tree, cubex_order order, size_t *cnode_of);

/* The tree of n call paths given by their parents (parent[i] SIZE_MAX for
 * a root), children and roots in the order of their numbers.  The arrays
 * are allocated into *tree (free with cubex_tree_free): 0, or -1 when out
 * of memory or a parent is out of range. */
int cubex_tree_from_parents(size_t n, const size_t *parent, cubex_tree *tree);
void cubex_tree_free(cubex_tree *tree);

/* ---- index and data members ------------------------------------------- */

typedef struct {
    int big_endian;
    int dense;           /* every ordinal 0..num_rows-1 has a row */
    size_t num_rows;
    uint32_t *ordinals;  /* sparse: num_rows, strictly ascending; NULL when dense */
} cubex_index;

/* Read and check index member m for a call tree of num_cnodes call paths
 * (ordinals must be below it).  0, or -1 with status set. */
int cubex_index_read(const cubex_tar *t, const cubex_member *m, size_t num_cnodes,
                     cubex_index *ix, cube_status *status);
void cubex_index_free(cubex_index *ix);
/* The row of an ordinal, or -1 when it has none. */
long cubex_index_row(const cubex_index *ix, uint32_t ordinal);

typedef struct {
    const cubex_tar *tar;
    const cubex_member *member;
    int big_endian;   /* from the index */
    int compressed;
    size_t row_size;
    size_t num_rows;
    /* compressed: per row, the stream's offset within the member and its
     * size; size 0 for a row without an entry (it reads as absent) */
    uint64_t *zoff, *zsize;
    unsigned char *zbuf; /* compressed input, ZCHUNK bytes */
    /* one inflate state for every row, reset between them (z_open: set
     * up): setting one up costs more than inflating a short row */
    z_stream z;
    int z_open;
} cubex_data;

/* Check data member m against its index and the row size (locations x
 * value size), read the table of a compressed member.  0, or -1 with
 * status set. */
int cubex_data_open(const cubex_tar *t, const cubex_member *m, const cubex_index *ix,
                    size_t row_size, cubex_data *d, cube_status *status);
/* Read row k (< num_rows) into row (row_size bytes, file byte order):
 * 1, 0 when a compressed member has no entry for it (the row is then
 * absent), -1 with status set. */
int cubex_data_read_row(cubex_data *d, size_t k, unsigned char *row, cube_status *status);
/* Read rows first .. first + count - 1 (all below num_rows) into rows
 * (count x row_size bytes): plain members with one read, compressed ones
 * row by row.  present[i] (when present is not NULL) says whether row
 * first + i exists; an absent row is left all zero.  0, or -1 with status
 * set. */
int cubex_data_read_rows(cubex_data *d, size_t first, size_t count, unsigned char *rows,
                         unsigned char *present, cube_status *status);
void cubex_data_close(cubex_data *d);

#endif
