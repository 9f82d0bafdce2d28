/*
 * fuzz_cube_gzip.c - the CUBE XML reader on gzip input.  The first byte
 * chooses: even, the rest is XML that the harness gzip-compresses first
 * (the reader's inflation on valid streams of any content); odd, the rest
 * is the compressed bytes themselves (corrupt, truncated, concatenated
 * streams).  Read as fuzz_cube_xml.c reads (fuzz_cube_read.h).
 */
#include "fuzz_common.h"
#include "fuzz_cube_read.h"

#include <zlib.h>

static int fuzz_one_cube_gzip(const uint8_t *data, size_t size)
{
    char path[128];
    if (size == 0)
        return 0;
    if (data[0] & 1) {
        fuzz_write_file("in.cube.gz", data + 1, size - 1, path, sizeof path);
    } else {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                         Z_DEFAULT_STRATEGY) != Z_OK)
            return 0;
        uLong cap = deflateBound(&zs, (uLong)(size - 1)) + 64;
        uint8_t *out = malloc(cap);
        if (!out) {
            deflateEnd(&zs);
            return 0;
        }
        zs.next_in = (Bytef *)(data + 1);
        zs.avail_in = (uInt)(size - 1);
        zs.next_out = out;
        zs.avail_out = (uInt)cap;
        int rc = deflate(&zs, Z_FINISH);
        size_t n = cap - zs.avail_out;
        deflateEnd(&zs);
        if (rc != Z_STREAM_END) {
            free(out);
            return 0;
        }
        fuzz_write_file("in.cube.gz", out, n, path, sizeof path);
        free(out);
    }
    fuzz_cube_read_path(path, "fuzz.gz");
    return 0;
}

#ifndef FUZZ_REGRESSION
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_cube_gzip(data, size);
}
#endif
