/*
 * fuzz_statfile.c - the statistics-file parser (cube_statfile_read on a
 * file), then every pattern and warning of what it read.
 */
#include "fuzz_common.h"
#include "cube.h"

static int fuzz_one_statfile(const uint8_t *data, size_t size)
{
    char path[128];
    fuzz_write_file("in.stat", data, size, path, sizeof path);
    cube_statfile *s = cube_statfile_create();
    if (!s)
        return 0;
    if (cube_statfile_read(s, path) == 0) {
        (void)cube_statfile_get_dialect(s);
        for (size_t i = 0; i < cube_statfile_num_patterns(s); i++)
            (void)cube_statfile_get_pattern(s, i);
        for (size_t i = 0; i < cube_statfile_num_warnings(s); i++)
            (void)cube_statfile_warning(s, i);
    } else {
        (void)cube_statfile_error(s);
    }
    cube_statfile_free(s);
    return 0;
}

#ifndef FUZZ_REGRESSION
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_statfile(data, size);
}
#endif
