/*
 * binary_write.c - values, index members and data members of a CUBE 4
 * archive, written little endian (see binary_write_private.h).
 */
#include "cubex/binary_write_private.h"
#include "core/status_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- value types ------------------------------------------------------------ */

static void put_uint(unsigned char *p, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_double(unsigned char *p, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    put_uint(p, 8, bits);
}

int cubex_dtype_name(cubex_dtype t, char *buf, size_t len)
{
    static const char *const names[] = {
        [CUBEX_INT8] = "INT8", [CUBEX_UINT8] = "UINT8", [CUBEX_INT16] = "INT16",
        [CUBEX_UINT16] = "UINT16", [CUBEX_INT32] = "INT32", [CUBEX_UINT32] = "UINT32",
        [CUBEX_INT64] = "INT64", [CUBEX_UINT64] = "UINT64", [CUBEX_DOUBLE] = "DOUBLE",
        [CUBEX_MINDOUBLE] = "MINDOUBLE", [CUBEX_MAXDOUBLE] = "MAXDOUBLE",
        [CUBEX_COMPLEX] = "COMPLEX", [CUBEX_RATE] = "RATE", [CUBEX_TAU_ATOMIC] = "TAU_ATOMIC",
        [CUBEX_NDOUBLES] = "NDOUBLES", [CUBEX_HISTOGRAM] = "HISTOGRAM",
        [CUBEX_SCALE_FUNC] = "SCALE_FUNC"};
    if ((size_t)t.kind >= sizeof names / sizeof names[0])
        return -1;
    int n = t.kind == CUBEX_NDOUBLES || t.kind == CUBEX_HISTOGRAM
                ? snprintf(buf, len, "%s(%u)", names[t.kind], t.k)
                : snprintf(buf, len, "%s", names[t.kind]);
    return n < 0 || (size_t)n >= len ? -1 : n;
}

/* A number as the bits of a 64-bit integer: rounded to the nearest, NaN
 * 0, saturated at the ends of int64 (signed) or of uint64 (unsigned, where
 * a negative number becomes its two's complement, as a UINT64 counter
 * difference of -k is stored as 2^64 - k). */
static uint64_t int_bits(double d, int is_signed)
{
    if (d != d)
        return 0;
    if (fabs(d) < 0x1p52) /* beyond, every double is an integer already */
        d = round(d);
    if (d < -0x1p63)
        return (uint64_t)INT64_MIN;
    if (d < 0)
        return (uint64_t)(int64_t)d;
    if (is_signed)
        return d >= 0x1p63 ? (uint64_t)INT64_MAX : (uint64_t)(int64_t)d;
    return d >= 0x1p64 ? UINT64_MAX : (uint64_t)d;
}

/* A count stored as u32: rounded, within 0 ... 2^32 - 1. */
static uint32_t u32_of(double d)
{
    if (!(d > 0))
        return 0;
    return d >= 4294967295.0 ? UINT32_MAX : (uint32_t)round(d);
}

static int is_signed_kind(cubex_kind k)
{
    return k == CUBEX_INT8 || k == CUBEX_INT16 || k == CUBEX_INT32 || k == CUBEX_INT64;
}

int cubex_value_encode_int(cubex_dtype t, uint64_t bits, unsigned char *dst)
{
    if (!cubex_dtype_is_integer(t))
        return -1;
    put_uint(dst, cubex_dtype_size(t), bits);
    return 0;
}

/* The layout cubex_value_decode reads: u32 nterms, u32 nmeas, terms
 * {f64 a, i32 b, u32 c, i32 d} of 20 bytes, measurements {u32 nproc,
 * f64 mean, f64 width} 24 bytes apart, zeros up to 848 bytes. */
static int encode_scale_func(const double *in, unsigned char *dst)
{
    memset(dst, 0, CUBEX_SCALE_FUNC_BYTES);
    uint32_t nt = u32_of(in[0]), nm = u32_of(in[1]);
    if (nt > 42 || nm > 35 || 8 + 20 * (uint64_t)nt + 24 * (uint64_t)nm > CUBEX_SCALE_FUNC_BYTES)
        return -1;
    put_uint(dst, 4, nt);
    put_uint(dst + 4, 4, nm);
    unsigned char *p = dst + 8;
    const double *v = in + 2;
    for (uint32_t i = 0; i < nt; i++, p += 20, v += 4) {
        put_double(p, v[0]);
        put_uint(p + 8, 4, int_bits(v[1], 1));
        put_uint(p + 12, 4, u32_of(v[2]));
        put_uint(p + 16, 4, int_bits(v[3], 1));
    }
    for (uint32_t i = 0; i < nm; i++, p += 24, v += 3) {
        put_uint(p, 4, u32_of(v[0]));
        put_double(p + 4, v[1]);
        put_double(p + 12, v[2]);
    }
    return 0;
}

int cubex_value_encode(cubex_dtype t, const double *in, unsigned char *dst)
{
    if (cubex_dtype_is_integer(t))
        return cubex_value_encode_int(t, int_bits(in[0], is_signed_kind(t.kind)), dst);
    if (t.kind == CUBEX_SCALE_FUNC)
        return encode_scale_func(in, dst);
    if (t.kind == CUBEX_TAU_ATOMIC) {
        put_uint(dst, 4, u32_of(in[0]));
        dst += 4;
        for (size_t i = 1; i < 5; i++, dst += 8)
            put_double(dst, in[i]);
        return 0;
    }
    size_t n = cubex_dtype_components(t);
    for (size_t i = 0; i < n; i++, dst += 8)
        put_double(dst, in[i]);
    return 0;
}

/* ---- the index member -------------------------------------------------------- */

#define INDEX_HEADER 18

uint64_t cubex_index_member_size(const cubex_index *ix)
{
    return ix->dense ? INDEX_HEADER : 22 + 4 * (uint64_t)ix->num_rows;
}

int cubex_index_encode(const cubex_index *ix, const char *member, unsigned char *dst,
                       cube_status *status)
{
    if (!ix->dense) {
        if (ix->num_rows > UINT32_MAX) {
            status_set(status, CUBE_EINVAL, "member %s: %zu rows, the index counts at most %lu",
                       member, ix->num_rows, (unsigned long)UINT32_MAX);
            return -1;
        }
        for (size_t i = 1; i < ix->num_rows; i++)
            if (ix->ordinals[i] <= ix->ordinals[i - 1]) {
                status_set(status, CUBE_EINVAL,
                           "member %s: ordinals must ascend strictly, found %lu after %lu", member,
                           (unsigned long)ix->ordinals[i], (unsigned long)ix->ordinals[i - 1]);
                return -1;
            }
    }
    memcpy(dst, "CUBEX.INDEX", 11);
    put_uint(dst + 11, 4, 1); /* the byte order mark */
    put_uint(dst + 15, 2, 0); /* version */
    dst[17] = ix->dense ? 3 : 1;
    if (ix->dense)
        return 0;
    put_uint(dst + 18, 4, ix->num_rows);
    for (size_t i = 0; i < ix->num_rows; i++)
        put_uint(dst + 22 + 4 * i, 4, ix->ordinals[i]);
    return 0;
}

int cubex_index_write(cubex_tar_writer *w, const char *member, const cubex_index *ix,
                      int64_t mtime, cube_status *status)
{
    uint64_t size = cubex_index_member_size(ix);
    unsigned char *buf = size <= SIZE_MAX ? malloc((size_t)size) : NULL;
    if (!buf) {
        status_set(status, CUBE_ENOMEM, "member %s: out of memory", member);
        return -1;
    }
    int rc = cubex_index_encode(ix, member, buf, status);
    if (rc == 0)
        rc = cubex_tar_add(w, member, buf, (size_t)size, mtime, status);
    free(buf);
    return rc;
}

/* ---- the data member ---------------------------------------------------------- */

struct cubex_data_writer {
    cubex_tar_writer *tar;
    char member[101];
    size_t row_size, num_rows, got;
    int zlevel;
    int64_t mtime;
    /* compressed: the streams one after the other, and where each starts */
    unsigned char *z;
    size_t zlen, zcap;
    uint64_t *zstart; /* num_rows + 1 entries: stream k is zstart[k] .. zstart[k + 1] */
    /* one deflate state for every row, reset between them: setting one up
     * costs far more than compressing a row of a few hundred bytes (see
     * deflate_init for its size) */
    z_stream zs;
    int zs_open;
};

/* The deflate state for rows of row_size bytes.  A reset clears the
 * state's hash table, 64 KiB with zlib's defaults: for rows of a few
 * hundred bytes that would cost a hundred times the compression.  A window
 * no larger than a row (at least zlib's 512 bytes) and a hash table and
 * symbol buffer to match lose nothing, since each row is a stream of its
 * own; any inflate reads the streams (the window size is in their
 * header). */
static int deflate_init(z_stream *z, int level, size_t row_size)
{
    int bits = 9;
    while (bits < MAX_WBITS && ((size_t)1 << bits) < row_size)
        bits++;
    int mem_level = bits - 7 < 1 ? 1 : bits - 7 > 8 ? 8 : bits - 7;
    return deflateInit2(z, level, Z_DEFLATED, bits, mem_level, Z_DEFAULT_STRATEGY);
}

cubex_data_writer *cubex_data_writer_open(cubex_tar_writer *w, const char *member,
                                          size_t row_size, size_t num_rows, int zlevel,
                                          int64_t mtime, cube_status *status)
{
    if (row_size == 0 || zlevel < 0 || zlevel > 9 || strlen(member) > 100 ||
        (num_rows && row_size > (UINT64_MAX - 10) / num_rows)) {
        status_set(status, CUBE_EINVAL,
                   "member %s: %zu rows of %zu bytes, compression level %d: not a data member",
                   member, num_rows, row_size, zlevel);
        return NULL;
    }
    if (zlevel && (row_size > UINT32_MAX / 2 || num_rows > (SIZE_MAX - 1) / sizeof(uint64_t))) {
        status_set(status, CUBE_EINVAL,
                   "member %s: rows of %zu bytes cannot be compressed (at most 2 GiB each)",
                   member, row_size);
        return NULL;
    }
    cubex_data_writer *d = calloc(1, sizeof *d);
    if (!d || (zlevel && !(d->zstart = calloc(num_rows + 1, sizeof *d->zstart)))) {
        free(d);
        status_set(status, CUBE_ENOMEM, "member %s: out of memory", member);
        return NULL;
    }
    d->tar = w;
    snprintf(d->member, sizeof d->member, "%s", member);
    d->row_size = row_size;
    d->num_rows = num_rows;
    d->zlevel = zlevel;
    d->mtime = mtime;
    if (zlevel) {
        int zr = deflate_init(&d->zs, zlevel, row_size);
        if (zr != Z_OK) {
            status_set(status, zr == Z_MEM_ERROR ? CUBE_ENOMEM : CUBE_EIO,
                       "member %s: cannot start compressing (zlib error %d)", member, zr);
            cubex_data_writer_free(d);
            return NULL;
        }
        d->zs_open = 1;
    }
    if (!zlevel && (cubex_tar_begin(w, member, 10 + (uint64_t)num_rows * row_size, mtime,
                                    status) != 0 ||
                    cubex_tar_write(w, "CUBEX.DATA", 10, status) != 0)) {
        cubex_data_writer_free(d);
        return NULL;
    }
    return d;
}

/* Append row's zlib stream to d->z. */
static int compress_row(cubex_data_writer *d, const unsigned char *row, cube_status *st)
{
    uLong bound = deflateBound(&d->zs, (uLong)d->row_size);
    if (d->zcap - d->zlen < bound) {
        size_t cap = d->zcap ? d->zcap : 4096;
        while (cap - d->zlen < bound && cap <= SIZE_MAX / 2)
            cap *= 2;
        unsigned char *z = cap - d->zlen >= bound ? realloc(d->z, cap) : NULL;
        if (!z) {
            status_set(st, CUBE_ENOMEM, "member %s: out of memory", d->member);
            return -1;
        }
        d->z = z;
        d->zcap = cap;
    }
    z_stream *z = &d->zs;
    int zr = deflateReset(z);
    z->next_in = (unsigned char *)row;
    z->avail_in = (uInt)d->row_size;
    z->next_out = d->z + d->zlen;
    z->avail_out = (uInt)bound;
    if (zr == Z_OK)
        zr = deflate(z, Z_FINISH);
    if (zr != Z_STREAM_END) {
        status_set(st, zr == Z_MEM_ERROR ? CUBE_ENOMEM : CUBE_EIO,
                   "member %s: compressing row %zu failed (zlib error %d)", d->member, d->got, zr);
        return -1;
    }
    d->zlen += (size_t)bound - z->avail_out;
    d->zstart[d->got + 1] = d->zlen;
    return 0;
}

int cubex_data_writer_rows(cubex_data_writer *d, const unsigned char *rows, size_t count,
                           cube_status *status)
{
    if (count > d->num_rows - d->got) {
        status_set(status, CUBE_EINVAL, "member %s: %zu rows more than the %zu announced",
                   d->member, count - (d->num_rows - d->got), d->num_rows);
        return -1;
    }
    if (!d->zlevel) {
        if (count && cubex_tar_write(d->tar, rows, count * d->row_size, status) != 0)
            return -1;
        d->got += count;
        return 0;
    }
    for (size_t i = 0; i < count; i++, d->got++)
        if (compress_row(d, rows + i * d->row_size, status) != 0)
            return -1;
    return 0;
}

/* "ZCUBEX.DATA", the count, the table, the streams. */
static int write_compressed(cubex_data_writer *d, cube_status *st)
{
    uint64_t m = d->num_rows;
    size_t head = 19 + 24 * (size_t)m;
    unsigned char *h = malloc(head);
    if (!h) {
        status_set(st, CUBE_ENOMEM, "member %s: out of memory", d->member);
        return -1;
    }
    memcpy(h, "ZCUBEX.DATA", 11);
    put_uint(h + 11, 8, m);
    for (size_t k = 0; k < d->num_rows; k++) {
        unsigned char *e = h + 19 + 24 * k;
        put_uint(e, 8, (uint64_t)k * d->row_size);
        put_uint(e + 8, 8, d->zstart[k]);
        put_uint(e + 16, 8, d->zstart[k + 1] - d->zstart[k]);
    }
    int rc = cubex_tar_begin(d->tar, d->member, head + (uint64_t)d->zlen, d->mtime, st) != 0 ||
                     cubex_tar_write(d->tar, h, head, st) != 0 ||
                     (d->zlen && cubex_tar_write(d->tar, d->z, d->zlen, st) != 0) ||
                     cubex_tar_end(d->tar, st) != 0
                 ? -1
                 : 0;
    free(h);
    return rc;
}

int cubex_data_writer_close(cubex_data_writer *d, cube_status *status)
{
    int rc;
    if (d->got != d->num_rows) {
        status_set(status, CUBE_EINVAL, "member %s: %zu rows written of the %zu announced",
                   d->member, d->got, d->num_rows);
        rc = -1;
    } else {
        rc = d->zlevel ? write_compressed(d, status) : cubex_tar_end(d->tar, status);
    }
    cubex_data_writer_free(d);
    return rc;
}

void cubex_data_writer_free(cubex_data_writer *d)
{
    if (!d)
        return;
    if (d->zs_open)
        deflateEnd(&d->zs);
    free(d->z);
    free(d->zstart);
    free(d);
}
