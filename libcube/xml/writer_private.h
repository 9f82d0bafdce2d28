/*
 * writer_private.h - the XML writer's entry point for the library's own outputs.
 */
#ifndef LIBCUBE_WRITER_H
#define LIBCUBE_WRITER_H

#include "core/cube_private.h"
#include "io/xml_out_private.h"

/* Write the whole experiment to `o` and flush it; 0 or -1 (cube_error). */
int cube_write_to(cube_t *c, xml_out *o);
/* The same, then the rows `next` makes (cube_write_file_rows). */
int cube_write_rows_to(cube_t *c, xml_out *o, cube_row_source next, void *ctx);

#endif
