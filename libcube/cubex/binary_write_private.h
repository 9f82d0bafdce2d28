/*
 * binary_write_private.h - writing the per-metric binary members of a
 * CUBE 4 archive (the layouts binary_private.h describes): values encoded
 * into their bytes, the index member and the data member, plain or
 * compressed row by row.
 *
 * Everything is written little endian, with the byte order mark of the
 * index saying so (the reference readers accept either order; one is
 * enough).  The index is sparse unless the caller asks for the dense form,
 * and a sparse index always carries its count, also when it is 0 (the
 * bare 18-byte header that one writer produces for an empty index is not
 * read by every reader).
 *
 * Errors are CUBE_EINVAL with "FILE: member NAME: what was wrong" for
 * calls that do not fit the format (ordinals not ascending, more or fewer
 * rows than announced), and what the tar writer reports (CUBE_EIO,
 * CUBE_ENOMEM).
 */
#ifndef LIBCUBE_CUBEX_BINARY_WRITE_H
#define LIBCUBE_CUBEX_BINARY_WRITE_H

#include "cube.h"
#include "cubex/binary_private.h"
#include "cubex/tar_private.h"

#include <stddef.h>
#include <stdint.h>

/* ---- value types ---------------------------------------------------------- */

/* v little endian into the 8 bytes at p, written out so that compilers
 * make it one store on a little-endian machine (the rows are mostly
 * 8-byte values). */
static inline void cubex_put_u64(unsigned char *p, uint64_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
    p[4] = (unsigned char)(v >> 32);
    p[5] = (unsigned char)(v >> 40);
    p[6] = (unsigned char)(v >> 48);
    p[7] = (unsigned char)(v >> 56);
}

/* The canonical <dtype> text of a type ("UINT64", "NDOUBLES(3)", ...; the
 * first of its aliases) into buf: its length, or -1 when buf is too small
 * (32 bytes always suffice). */
int cubex_dtype_name(cubex_dtype t, char *buf, size_t len);

/* Encode cubex_dtype_components(t) doubles (in the order
 * cubex_value_decode gives them) into the cubex_dtype_size(t) bytes of a
 * value at dst, little endian: the inverse of cubex_value_decode.  Integer
 * types take the number rounded to the nearest integer (a negative number
 * for an unsigned type as its two's complement, beyond the type's range
 * saturated to 64 bits, then cut to the type's width; NaN as 0): exact
 * below 2^53, use cubex_value_encode_int beyond.  TAU_ATOMIC's count and
 * SCALE_FUNC's counts likewise as u32, the unused rest of a SCALE_FUNC
 * value zero.  0, or -1 when a SCALE_FUNC value has more terms or
 * measurements than its 848 bytes hold (dst is then all zero). */
int cubex_value_encode(cubex_dtype t, const double *in, unsigned char *dst);

/* Encode an integer value's bits (as cubex_value_int gives them: the low
 * cubex_dtype_size(t) bytes are written, little endian), so that every
 * 64-bit value, UINT64 2^64 - k and INT64 beyond 2^53 included, is written
 * exactly.  0, or -1 for a type that is not an integer type (dst
 * untouched). */
int cubex_value_encode_int(cubex_dtype t, uint64_t bits, unsigned char *dst);

/* ---- the index member ----------------------------------------------------- */

/* Bytes of the index member of ix: 18 when dense, 22 + 4 x num_rows when
 * sparse. */
uint64_t cubex_index_member_size(const cubex_index *ix);

/* The index member of ix (ix->big_endian is ignored: little endian) into
 * dst (cubex_index_member_size bytes): 0, or -1 with status set
 * (CUBE_EINVAL "member NAME: ..." when the ordinals of a sparse index are
 * not strictly ascending; `member` names it). */
int cubex_index_encode(const cubex_index *ix, const char *member, unsigned char *dst,
                       cube_status *status);

/* Encode and add it as member `member` of archive w: 0, or -1 with status
 * set. */
int cubex_index_write(cubex_tar_writer *w, const char *member, const cubex_index *ix,
                      int64_t mtime, cube_status *status);

/* ---- the data member ------------------------------------------------------ */

/* zlevel values of cubex_data_writer_open: CUBEX_DATA_PLAIN writes
 * "CUBEX.DATA", 1 ... 9 "ZCUBEX.DATA" with that zlib level. */
#define CUBEX_DATA_PLAIN 0
#define CUBEX_DATA_ZDEFAULT 6

/* A data member being written: exactly num_rows rows of row_size bytes
 * (the values of one call path, little endian, at the positions of the
 * location ids), in the order of the index's ordinals. */
typedef struct cubex_data_writer cubex_data_writer;

/* Start member `member` of archive w.  A plain member goes out row by row
 * as the rows come (its size is known in advance); a compressed one is
 * kept compressed in memory until cubex_data_writer_close, which writes
 * it: the count, one table entry {uncompressed start, start of the stream
 * counted from the end of the table, stream size} per row, one zlib
 * stream per row.  NULL with status set (CUBE_EINVAL for row_size 0, a
 * size that overflows, a zlevel out of range). */
cubex_data_writer *cubex_data_writer_open(cubex_tar_writer *w, const char *member,
                                          size_t row_size, size_t num_rows, int zlevel,
                                          int64_t mtime, cube_status *status);
/* The next `count` rows (count x row_size bytes): 0, or -1 with status
 * set (CUBE_EINVAL: more rows than announced). */
int cubex_data_writer_rows(cubex_data_writer *d, const unsigned char *rows, size_t count,
                           cube_status *status);
/* Complete the member (CUBE_EINVAL when fewer rows came than announced)
 * and free d, also on failure: 0, or -1 with status set. */
int cubex_data_writer_close(cubex_data_writer *d, cube_status *status);
/* Free d without completing the member (after a failure elsewhere; the
 * archive is then incomplete). */
void cubex_data_writer_free(cubex_data_writer *d);

#endif
