/*
 * atomic_file_private.h - replacing a file atomically: the data goes to a temporary
 * file in the target's directory (so that the final rename stays within one
 * file system), is flushed to disk, and only then replaces the target.  On
 * any error the temporary file is removed: no partial output, and an
 * existing file stays as it was.  Shared by cube_write_file (output.c),
 * cube_statfile_write (statfile.c) and the stream of cube_output_open,
 * which differ only in what they write; the temporary file is registered
 * (temp_files_private.h) so that a signal handler can remove it.
 */
#ifndef LIBCUBE_ATOMIC_FILE_H
#define LIBCUBE_ATOMIC_FILE_H

#include "cube.h"

#include <stddef.h>

struct xml_out;

/* What writes an output's content into the sink: 0, or -1 when it failed
 * for a reason of its own (kept in its own handle). */
typedef int (*output_producer)(void *ctx, struct xml_out *o);

/* Produce an output at `path` ("-": standard output), gzip-compressed with
 * zlib mode `gz_mode` (e.g. "wb1") when `gzip`, atomically as above.
 * 0 on success; -1 when the producer failed (nothing is left behind); -2
 * when the output failed, with "PATH: ..." and the code in `status`. */
int output_to_path(const char *path, int gzip, const char *gz_mode, output_producer produce,
                   void *ctx, cube_status *status);

#endif
