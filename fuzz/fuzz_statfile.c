/*
 * fuzz_statfile.c - the statistics-file parser (cube_statfile_read on a
 * file), then every pattern and warning of what it read; a failure must
 * come with a code and a message, a success with neither.
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
        if (cube_statfile_error_code(s) != CUBE_OK || cube_statfile_error(s)[0])
            abort();
        (void)cube_statfile_get_dialect(s);
        for (size_t i = 0; i < cube_statfile_num_patterns(s); i++)
            (void)cube_statfile_get_pattern(s, i);
        for (size_t i = 0; i < cube_statfile_num_warnings(s); i++)
            (void)cube_statfile_warning(s, i);
    } else if (cube_statfile_error_code(s) == CUBE_OK || !cube_statfile_error(s)[0]) {
        abort();
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
