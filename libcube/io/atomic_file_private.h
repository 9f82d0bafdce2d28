/*
 * atomic_file_private.h - replacing a file atomically: the data goes to a temporary
 * file in the target's directory (so that the final rename stays within one
 * file system), is flushed to disk, and only then replaces the target.  On
 * any error the temporary file is removed: no partial output, and an
 * existing file stays as it was.  Shared by cube_write_file (output.c),
 * cube_statfile_write (statfile.c) and the stream of cube_output_open,
 * which differ only in what they write.
 */
#ifndef LIBCUBE_ATOMIC_FILE_H
#define LIBCUBE_ATOMIC_FILE_H

#include "io/temp_files_private.h"

#include <stddef.h>

/* Create the temporary file for `path` ("PATH.tmp.XXXXXX", registered in
 * temp_files_private.h so that a signal handler can remove it), with the mode the
 * output will have (that of the file it replaces, or 0666 less the
 * umask).  Returns its descriptor and sets *tmp, or -1 with the message
 * ("out of memory" or "PATH: cannot create the output: ...") in `err`. */
int atomic_file_create(const char *path, temp_file **tmp, char *err, size_t errlen);

/* Sync the written, closed temporary file and rename it over `path`.  0,
 * or -1 with "PATH: cannot replace the output: ..." in `err` (the
 * temporary file is then removed).  Releases `tmp` in both cases. */
int atomic_file_commit(temp_file *tmp, const char *path, char *err, size_t errlen);

/* Remove the temporary file after a failed write and release it. */
void atomic_file_abort(temp_file *tmp);

struct xml_out;

/* What writes an output's content into the sink: 0, or -1 when it failed
 * for a reason of its own (kept in its own handle). */
typedef int (*output_producer)(void *ctx, struct xml_out *o);

/* Produce an output at `path` ("-": standard output), gzip-compressed with
 * zlib mode `gz_mode` (e.g. "wb1") when `gzip`, atomically as above.
 * 0 on success; -1 when the producer failed (nothing is left behind); -2
 * when the output failed, with "PATH: ..." in `err`. */
int output_to_path(const char *path, int gzip, const char *gz_mode, output_producer produce,
                   void *ctx, char *err, size_t errlen);

#endif
