/*
 * status_private.h - filling a cube_status, the one record of an error
 * that every handle keeps and every status-taking function fills.
 */
#ifndef LIBCUBE_STATUS_PRIVATE_H
#define LIBCUBE_STATUS_PRIVATE_H

#include "cube.h"
#include "core/util_private.h"

#include <stdarg.h>

/* Set `st` (nothing when NULL) to `code` and the formatted message, cut
 * short to CUBE_MESSAGE_SIZE. */
void status_set(cube_status *st, cube_code code, const char *fmt, ...) CUBE_PRINTF(3, 4);
void status_setv(cube_status *st, cube_code code, const char *fmt, va_list ap);
/* Set `st` (nothing when NULL) to CUBE_OK and "". */
void status_ok(cube_status *st);
/* Copy src into dst (nothing when dst is NULL). */
void status_copy(cube_status *dst, const cube_status *src);
/* The code an errno value of a failed system call stands for: CUBE_ENOMEM
 * for ENOMEM, CUBE_ECANCELED for ECANCELED (no more temporary files),
 * CUBE_EIO for every other. */
cube_code status_code_of_errno(int errnum);

#endif
