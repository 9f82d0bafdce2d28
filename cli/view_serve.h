/*
 * view_serve.h - cube_view --serve: the page and the values of its panes
 * over HTTP on the loopback address.
 */
#ifndef VIEW_SERVE_H
#define VIEW_SERVE_H

#include "cube.h"

#include <stddef.h>

/* Serve `page` (len bytes, the page without values) and answer the page's
 * queries about `c` on 127.0.0.1:port (0: any free port) until SIGINT or
 * SIGTERM; the URL with its random token is printed on standard output
 * first.  0 after a signal, or -1 after printing the error. */
int view_serve(const cube_t *c, const char *page, size_t len, unsigned port);

#endif
