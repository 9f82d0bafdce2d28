/*
 * view_serve.c - cube_view --serve.
 */
#include "view_serve.h"

#include "cli_common.h"

int view_serve(const cube_t *c, const char *page, size_t len, unsigned port)
{
    (void)c;
    (void)page;
    (void)len;
    (void)port;
    cli_error("--serve is not available in this build");
    return -1;
}
