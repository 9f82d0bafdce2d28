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
    unsigned long long max_size;  /* not 0: once the stream has passed this many bytes, the
                                     values are only counted into *unwritten, not written
                                     (a page that large is refused) */
    unsigned long long *unwritten;
} view_source;

/* Write the data document to `fp`: the definitions, and unless served the
 * values of every stored metric (metric-inclusive, call-exclusive, per
 * thread, of the call paths that have a row).  Every "<" in it is written
 * "\u003c", so that it never ends the <script> element it goes into, and
 * U+2028 and U+2029 are escaped.  0, or -1 after printing the error. */
int view_write_data(FILE *fp, const view_source *s);

/* Write the page with the data document of `s` in it, written as it is
 * produced (see view_write_data; the values of the stored metrics are
 * produced on as many threads as there are processors).  0, or -1 after
 * printing the error; a write error is left to the caller, who reports
 * it when closing the stream. */
int view_write_page_of(FILE *fp, const view_source *s);

/* The bytes the page adds to the data (HTML, style, scripts). */
size_t view_page_overhead(void);

/* The system tree in the order of the page's "system" list: depth first,
 * every machine, below it its nodes (a node's processes before its child
 * nodes), below a process its threads. */
typedef enum { VIEW_MACHINE, VIEW_NODE, VIEW_PROCESS, VIEW_THREAD } view_system_kind;
typedef struct {
    view_system_kind kind;
    const void *entity; /* cube_machine, cube_node, cube_process or cube_thread */
    size_t index;       /* within its kind */
    long long parent;   /* system index, -1 for a machine */
} view_system_item;
/* The items (malloc'ed, *n of them), and where each entity went: a
 * system index per machine, node, process and thread index (malloc'ed;
 * any pointer may be NULL when not wanted).  0, or -1 when out of memory
 * (nothing to free). */
typedef struct {
    size_t *machine, *node, *process, *thread;
} view_system_map;
int view_system_order(const cube_t *c, view_system_item **items, size_t *n, view_system_map *map);
void view_system_map_free(view_system_map *map);

/* A JSON string literal as the data writes it. */
void view_json_string(FILE *fp, const char *s);
/* A JSON number in the shortest form that reads back exactly; null for
 * NaN and infinities. */
void view_json_number(FILE *fp, double v);

#endif
