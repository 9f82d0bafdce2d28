/*
 * fuzz_cube_xml.c - the CUBE XML reader on plain input: cube_read on a
 * file, then the streaming reader (cube_reader_open_fd) over every row.
 */
#include "fuzz_common.h"
#include "fuzz_cube_read.h"

static int fuzz_one_cube_xml(const uint8_t *data, size_t size)
{
    char path[128];
    fuzz_write_file("in.cube", data, size, path, sizeof path);
    fuzz_cube_read_path(path, "fuzz");
    return 0;
}

#ifndef FUZZ_REGRESSION
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_cube_xml(data, size);
}
#endif
