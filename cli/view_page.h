/*
 * view_page.h - cube_view's page: the data of an experiment as the page's
 * script reads it (one JSON document), and the page around it (the HTML,
 * style sheet and scripts compiled into the program).
 */
#ifndef VIEW_PAGE_H
#define VIEW_PAGE_H

#include "cube.h"
#include "cube_statfile.h"

#include <stdio.h>

/* What a page shows. */
typedef struct {
    const cube_t *c;           /* the experiment, read whole */
    const char *file;          /* its name as given */
    int served;                /* 1: no values (the server answers for them) */
    const double *external;    /* the external experiment's totals per metric index, or NULL */
    const cube_t *external_c;  /* its definitions */
    const char *external_file;
    const cube_statfile *stat; /* or NULL */
    const char *stat_file;
    const char *dir;           /* the experiment's folder, where relative source files are
                                  looked up after the current one */
} view_source;

/* Write the data document to `fp`: the definitions, and unless served the
 * values of every stored metric (metric-inclusive, call-exclusive, per
 * thread, of the call paths that have a row).  Every "<" in it is written
 * "\u003c", so that it never ends the <script> element it goes into, and
 * U+2028 and U+2029 are escaped.  0, or -1 after printing the error. */
int view_write_data(FILE *fp, const view_source *s);

/* The bytes the page adds to the data (HTML, style, scripts). */
size_t view_page_overhead(void);

/* Write the page with `data` (len bytes) in it.  0, or -1 (a write error:
 * the caller reports it when closing the stream). */
int view_write_page(FILE *fp, const char *data, size_t len);

/* A JSON string literal as the data writes it. */
void view_json_string(FILE *fp, const char *s);
/* A JSON number in the shortest form that reads back exactly; null for
 * NaN and infinities. */
void view_json_number(FILE *fp, double v);

#endif
