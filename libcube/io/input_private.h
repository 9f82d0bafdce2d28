/*
 * input_private.h - the byte stream a CUBE file is read from: a path or a file
 * descriptor, plain or gzip (recognised by its magic bytes), passed through
 * a filter that turns a raw '&' (not well-formed XML, but accepted by the
 * original CUBE 3 reader) into "&amp;" and remembers where it first saw one.
 */
#ifndef LIBCUBE_INPUT_H
#define LIBCUBE_INPUT_H

#include "cube.h"

#include <stddef.h>

typedef struct cube_input cube_input;

/* NULL with the code and message in `status` when it cannot be opened. */
cube_input *input_open_path(const char *path, cube_status *status);
/* Takes over a duplicate of `fd`; the caller keeps `fd`. */
cube_input *input_open_fd(int fd, const char *name, cube_status *status);

/* Fill `*data` with the next filtered bytes: returns their number, 0 at the
 * end of the stream, -1 on an error (message in `err`). */
long input_read(cube_input *in, const char **data, cube_status *status);

/* What the first input_read found at the start of the (inflated) bytes:
 * INPUT_TAR for a tar archive (the POSIX or GNU "ustar" magic at byte
 * 257 of a header, which no XML text can hold: it has NUL bytes), else
 * INPUT_TEXT; with INPUT_GZIP added when the file was gzip-compressed. */
enum { INPUT_TEXT = 0, INPUT_TAR = 1, INPUT_GZIP = 2 };
unsigned input_kind(const cube_input *in);

/* Read the first bytes without handing any out, so that input_kind can
 * tell what the input is before a reader starts: 0, or -1 with status
 * set (input_read then fails with the same error). */
int input_start(cube_input *in, cube_status *status);
/* The descriptor read from when it is a regular file that was opened at
 * its first byte, so that it can also be read at any offset (pread)
 * without regard to what was read from it; -1 otherwise (a pipe, a
 * terminal, a file given at another offset).  It stays the input's. */
int input_file_fd(const cube_input *in);
/* Write every byte of the input not yet handed out (inflated when the
 * input is gzip-compressed, never filtered: archives are binary) to fd,
 * to the end of the input.  Only before the first input_read.  0, or -1
 * with status set (a message without the file's name, as input_read's). */
int input_copy_rest(cube_input *in, int fd, cube_status *status);

/* Raw ampersands replaced so far, and the line of the first one. */
size_t input_raw_ampersands(const cube_input *in, long *first_line);

void input_close(cube_input *in);

#endif
