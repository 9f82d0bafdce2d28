/*
 * fuzz_cube_read.h - what the CUBE reader harnesses (plain and gzip)
 * do with a file: cube_read and a look at the model, then the streaming
 * reader over every row, its error and its warnings, checked against the
 * reader without the call tree (CUBE_READ_NO_CALL_TREE).  A failure must
 * come with a code and a message on the handle.
 */
#ifndef FUZZ_CUBE_READ_H
#define FUZZ_CUBE_READ_H

#include "cube.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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
        } else if (cube_error_code(c) == CUBE_OK || !cube_error(c)[0]) {
            abort(); /* a failure without a reason */
        }
        cube_free(c);
    }
    /* The streaming reader, and beside it the one without the call tree
     * (what the algebra reads rows with): they must agree row by row, on
     * the cnode indexes, the end, the message and the warnings. */
    int fd = open(path, O_RDONLY), bare_fd = open(path, O_RDONLY);
    cube_reader *r = fd < 0 ? NULL : cube_reader_open_fd(fd, name);
    cube_reader *bare =
        bare_fd < 0 ? NULL : cube_reader_open_fd_with(bare_fd, name, CUBE_READ_NO_CALL_TREE);
    if (r && bare) {
        const cube_metric *met;
        const cube_cnode *cnode;
        const double *values, *bare_values;
        size_t metric, index;
        const cube_t *defs = cube_reader_definitions(r);
        if (!defs != !cube_reader_definitions(bare))
            abort();
        int rc = -1, bare_rc = -1;
        while (defs) {
            rc = cube_reader_next_row(r, &met, &cnode, &values);
            bare_rc = cube_reader_next_row_index(bare, &metric, &index, &bare_values);
            if (rc != bare_rc)
                abort();
            if (rc != 1)
                break;
            if (cube_metric_index(met) != metric || cube_cnode_index(cnode) != index ||
                cube_reader_row_may_repeat(r) != cube_reader_row_may_repeat(bare) ||
                memcmp(values, bare_values, cube_num_threads(defs) * sizeof *values) != 0)
                abort();
        }
        if (cube_reader_error_code(r) != cube_reader_error_code(bare) ||
            strcmp(cube_reader_error(r), cube_reader_error(bare)) != 0)
            abort();
        if ((rc == -1) != (cube_reader_error_code(r) != CUBE_OK))
            abort();
        if (rc == 0 && cube_reader_num_warnings(r) != cube_reader_num_warnings(bare))
            abort();
        for (size_t i = 0; i < cube_reader_num_warnings(r); i++)
            (void)cube_reader_warning(r, i);
    }
    cube_reader_close(r);
    cube_reader_close(bare);
    if (fd >= 0)
        close(fd);
    if (bare_fd >= 0)
        close(bare_fd);
}

#endif
