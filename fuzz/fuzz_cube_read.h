/*
 * fuzz_cube_read.h - what the CUBE reader harnesses (plain and gzip)
 * do with a file: cube_read and a look at the model, then the streaming
 * reader over every row, its error and its warnings.
 */
#ifndef FUZZ_CUBE_READ_H
#define FUZZ_CUBE_READ_H

#include "cube.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static void fuzz_cube_read_path(const char *path, const char *name)
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
    cube_reader *r = cube_reader_open_fd(fd, name);
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

#endif
