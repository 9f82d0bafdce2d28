/*
 * fuzz_cubex_read.c - CUBE 4 archives through the public readers: cube_read
 * on a file, then the streaming reader on the same file, which must agree
 * with it (the same rows, bit for bit, or the same error), and the
 * streaming readers with and without the call tree (fuzz_cube_read.h).
 */
#include "fuzz_common.h"
#include "fuzz_cube_read.h"

/* The streaming reader against the model cube_read made of the same file
 * (c NULL: cube_read failed with `error`). */
static void fuzz_cubex_streaming_agrees(const char *path, const cube_t *c, cube_code code,
                                        const char *error)
{
    cube_reader *r = cube_reader_open(path);
    if (!r)
        return; /* out of memory */
    const cube_t *defs = cube_reader_definitions(r);
    size_t rows = 0, metric, cnode;
    const double *values;
    int rc = defs ? 0 : -1;
    while (defs && (rc = cube_reader_next_row_index(r, &metric, &cnode, &values)) == 1) {
        rows++;
        if (!c)
            continue;
        if (metric >= cube_num_metrics(c) || cnode >= cube_num_cnodes(c))
            abort();
        const double *want = cube_get_row(c, cube_get_metric(c, metric), cube_get_cnode(c, cnode));
        if (!want || memcmp(values, want, cube_num_threads(c) * sizeof *values) != 0 ||
            cube_reader_row_may_repeat(r))
            abort();
    }
    if (c && (rc != 0 || rows != cube_num_rows(c) ||
              cube_num_warnings(defs) != cube_num_warnings(c)))
        abort();
    if (!c && (rc != -1 || cube_reader_error_code(r) != code ||
               strcmp(cube_reader_error(r), error) != 0))
        abort();
    cube_reader_close(r);
}

static int fuzz_one_cubex_read(const uint8_t *data, size_t size)
{
    char path[128];
    fuzz_write_file("in.cubex", data, size, path, sizeof path);
    cube_t *c = cube_create();
    if (!c)
        return 0;
    /* CUBE 3 XML (which the input may turn into) streams rows cube_read
     * drops or merges: the comparison holds for archives, told by the tar
     * magic or, once read, by the source format */
    int archive = size > 262 && memcmp(data + 257, "ustar", 5) == 0;
    if (cube_read(c, path) == 0) {
        if (cube_source_format(c) == CUBE_FORMAT_CUBE4)
            fuzz_cubex_streaming_agrees(path, c, CUBE_OK, "");
    } else {
        if (cube_error_code(c) == CUBE_OK || !cube_error(c)[0] || strchr(cube_error(c), '\n'))
            abort(); /* a failure needs a reason, in one line */
        /* out of memory need not strike twice in the same place */
        if (archive && cube_error_code(c) != CUBE_ENOMEM)
            fuzz_cubex_streaming_agrees(path, NULL, cube_error_code(c), cube_error(c));
    }
    cube_free(c);
    fuzz_cube_read_path(path, "fuzz");
    return 0;
}

#ifndef FUZZ_REGRESSION
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_cubex_read(data, size);
}
#endif
