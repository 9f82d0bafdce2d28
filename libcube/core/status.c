/*
 * status.c - the one error record (cube_status) and the texts of its codes.
 */
#include "core/status_private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void status_setv(cube_status *st, cube_code code, const char *fmt, va_list ap)
{
    if (!st)
        return;
    st->code = code;
    vsnprintf(st->message, sizeof st->message, fmt, ap);
}

void status_set(cube_status *st, cube_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    status_setv(st, code, fmt, ap);
    va_end(ap);
}

void status_ok(cube_status *st)
{
    if (!st)
        return;
    st->code = CUBE_OK;
    st->message[0] = '\0';
}

void status_copy(cube_status *dst, const cube_status *src)
{
    if (!dst || dst == src)
        return;
    dst->code = src->code;
    memcpy(dst->message, src->message, sizeof dst->message);
}

cube_code status_code_of_errno(int errnum)
{
    if (errnum == ENOMEM)
        return CUBE_ENOMEM;
    if (errnum == ECANCELED)
        return CUBE_ECANCELED;
    return CUBE_EIO;
}

const char *cube_code_text(cube_code code)
{
    switch (code) {
    case CUBE_OK:
        return "no error";
    case CUBE_ENOMEM:
        return "out of memory";
    case CUBE_EIO:
        return "input/output error";
    case CUBE_EFORMAT:
        return "malformed input";
    case CUBE_EUNSUPPORTED:
        return "unsupported input";
    case CUBE_EINVAL:
        return "invalid argument";
    case CUBE_ESTATE:
        return "call out of order";
    case CUBE_EMISMATCH:
        return "experiments do not match";
    case CUBE_ECANCELED:
        return "writing canceled";
    }
    return "unknown error code";
}
