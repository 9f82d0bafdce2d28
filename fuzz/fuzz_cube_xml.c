/*
 * fuzz_cube_xml.c - the CUBE XML reader on plain input: cube_read on a
 * file, then the streaming reader (cube_reader_open_fd) over every row.
 */
#include "fuzz_common.h"
#include "cube.h"

#include <fcntl.h>

static void fuzz_cube_xml_read_path(const char *path)
{
    cube_t *c = cube_create();
    if (c) {
        if (cube_read(c, path) == 0) {
            (void)cube_num_rows(c);
            (void)cube_cnode_depth_max(c);
            for (size_t i = 0; i < cube_num_cnodes(c) && i < 64; i++)
                free(cube_call_path(cube_get_cnode(c, i)));
        } else {
            (void)cube_error(c);
        }
        cube_free(c);
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    cube_reader *r = cube_reader_open_fd(fd, "fuzz");
    if (r) {
        const cube_metric *met;
        const cube_cnode *cnode;
        const double *values;
        if (cube_reader_definitions(r))
            while (cube_reader_next_row(r, &met, &cnode, &values) == 1)
                (void)cube_reader_row_may_repeat(r);
        (void)cube_reader_error(r);
        for (size_t i = 0; i < cube_reader_num_warnings(r); i++)
            (void)cube_reader_warning(r, i);
        cube_reader_close(r);
    }
    close(fd);
}

static int fuzz_one_cube_xml(const uint8_t *data, size_t size)
{
    char path[128];
    fuzz_write_file("in.cube", data, size, path, sizeof path);
    fuzz_cube_xml_read_path(path);
    return 0;
}

#ifndef FUZZ_REGRESSION
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_cube_xml(data, size);
}
#endif
