/*
 * cube_private.h - the layout of the experiment handle, shared by the
 * library's modules and by nothing outside libcube.
 */
#ifndef LIBCUBE_CUBE_INTERNAL_H
#define LIBCUBE_CUBE_INTERNAL_H

#include "cube.h"
#include "core/keymap_private.h"
#include "core/status_private.h"
#include "core/severity_store_private.h"
#include "core/util_private.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>

/* A growable array of pointers: one type serves every dimension list. */
typedef struct {
    void **items;
    size_t count, cap;
} ptr_list;

int ptr_list_push(ptr_list *l, void *item);
void ptr_list_free(ptr_list *l);

typedef struct {
    char *key, *value;
} cube_attr;

/* The attributes of one entity, in definition order (keys may repeat).
 * The array and the strings live in the model's arena (cube_t.entities):
 * nothing to free per entity. */
typedef struct {
    cube_attr *items;
    size_t count, cap;
} attr_list;

/* A CubePL program of a derived metric: its text and the attributes of
 * its element (rowwise, cubeplaggrtype, ...), as written.  In the arena. */
typedef struct {
    char *text;
    attr_list attrs;
} cube_program;

/* A call-path parameter.  In the arena. */
typedef struct {
    int numeric;
    char *key, *value;
} cube_param;

/* The entities.  Programs see them as opaque types and read them through
 * the accessors of entities.c; the library's modules use the fields.
 * Every entity struct (metric, region, cnode, machine, node, process,
 * thread) starts with its id label and its index. */
struct cube_metric {
    int64_t id;
    size_t index;
    char *disp_name, *uniq_name, *dtype, *uom, *val, *url, *descr;
    cube_metric *parent;
    cube_metric **children;
    size_t num_children, children_cap;
    int is_void; /* val is VOID, or an ancestor's is: carries no data */
    /* CUBE 4 (model_cube4.c); the strings and arrays in the model's arena */
    cube_metric_kind kind;
    int ghost;
    char *viztype;           /* the viztype as read, NULL when not given */
    signed char convertible, cacheable; /* 1, 0, or -1 when not given */
    cube_program *expr, *init_expr; /* NULL when none */
    cube_program *aggr;      /* num_aggr aggregation programs */
    size_t num_aggr, aggr_cap;
    attr_list attrs;
    /* Exact values where the doubles of the severity rows cannot hold them
     * (structured value types, 64-bit integers beyond 2^53): per call
     * path, the row's values in the metric's own binary layout (little
     * endian, the size of the dtype per thread, thread index order), as
     * the row (metric index, cnode index) of this store (model_exact_row);
     * NULL when every value is exact in the rows.  Stale once the metric's
     * rows are changed: every change through the API drops it
     * (model_drop_exact). */
    severity_store *exact;
};

struct cube_region {
    int64_t id;
    size_t index;
    char *name, *mod, *url, *descr;
    long begin_line, end_line; /* -1: unknown */
    char *mangled_name, *paradigm, *role; /* arena; NULL when not given */
    attr_list attrs;
};

struct cube_cnode {
    int64_t id;
    size_t index;
    cube_region *callee;
    /* Call-site module, "" when unknown: interned in the model (cnode_mods),
     * shared by every cnode with the same module, a million call paths
     * repeating a few hundred modules.  The cnode itself lives in the
     * model's arena: never free or realloc one. */
    const char *mod;
    long line;    /* call-site line, -1 when unknown */
    size_t depth; /* 0 for a root; kept so that depth queries and tree walks
                     need no pass over the tree */
    cube_cnode *parent;
    cube_cnode **children;
    size_t num_children, children_cap;
    cube_param *params; /* arena */
    size_t num_params, params_cap;
    attr_list attrs;
};

struct cube_machine {
    int64_t id;
    size_t index;
    char *name, *descr;
    cube_node **nodes; /* direct children */
    size_t num_nodes, nodes_cap;
    char *klass;       /* arena; NULL: "machine" */
    attr_list attrs;
};

struct cube_node {
    int64_t id;
    size_t index;
    char *name;
    cube_machine *machine; /* the root of its system tree */
    cube_process **processes;
    size_t num_processes, processes_cap;
    cube_node *parent;     /* NULL directly below the machine */
    cube_node **children;
    size_t num_children, children_cap;
    char *klass, *descr;   /* arena; NULL: "node", "" */
    attr_list attrs;
};

struct cube_process {
    int64_t id;
    size_t index;
    char *name;
    int64_t rank;
    cube_node *node;
    cube_thread **threads;
    size_t num_threads, threads_cap;
    cube_group_type type;
    attr_list attrs;
};

struct cube_thread {
    int64_t id;
    size_t index; /* position of this thread's value in every severity row */
    char *name;
    int64_t rank;
    cube_process *process;
    cube_location_type type;
    attr_list attrs;
};

struct cube_cartesian {
    size_t index;
    char *name;       /* "" when unnamed */
    long ndims;
    long *dims;       /* size of each dimension */
    int *periods;     /* 1 periodic, 0 not */
    char **dim_names; /* NULL, or ndims names */
    cube_coord *coords;
    size_t num_coords, coords_cap;
};

/* The head every entity struct above starts with. */
typedef struct {
    int64_t id;
    size_t index;
} entity_head;

struct cube_t {
    ptr_list attrs;   /* cube_attr*, insertion order, unique keys */
    ptr_list mirrors; /* char* */

    ptr_list metrics, root_metrics;
    ptr_list regions;
    ptr_list cnodes, root_cnodes;
    /* A million call paths or 100 000 threads must not cost a million
     * mallocs: the cnodes, the processes and threads and their names live
     * in this arena (freed as a whole by cube_free; none is ever freed
     * alone), and the cnodes' call-site modules, a few hundred distinct
     * strings repeated across the tree, are interned here, one shared copy
     * each (model_add_cnode).  Their children arrays are still malloc'd. */
    arena entities;
    keymap cnode_mods;
    const char *last_mod; /* the module model_add_cnode interned last: call
                             paths in a row mostly share theirs */
    ptr_list machines, nodes, processes, threads;
    ptr_list carts;

    severity_store sev;
    /* cube_read appends the rows without their hash-table entries
     * (sev_store_append), and the first look-up by (metric, call path)
     * adds them (query.c): a program that only walks the rows, as the
     * tools do, never pays for the table (8-byte slots, 1.3 to 2.7 a row:
     * 67 MB for 5 million rows).  Look-ups take a const handle that
     * threads may share, so that first look-up builds the table under
     * index_lock and publishes it through rows_indexed (release, acquire);
     * cube_read, which needs the handle to itself, clears it. */
    pthread_mutex_t index_lock;
    atomic_int rows_indexed;

    /* Next id label handed out by the writer API, per kind: above every id
     * of that kind added so far, whoever added it (model.c). */
    int64_t next_id[7];

    /* the deepest call path's depth + 1 (0 without cnodes): what a tree
     * walk allocates for its stack at the start */
    size_t cnode_depth_max;

    cube_status status;
    message_list warnings;

    /* CUBE 4 (model_cube4.c) */
    ptr_list extra_members;  /* extra_member*, archive order */
    cube_format source_format;
    char *source_version;    /* NULL: "" */

    /* Streaming writer state (cube_write_def ... cube_write_finish). */
    size_t stream_metric; /* metric of the open <matrix>, or SIZE_MAX */
    /* The output buffer of the writer API's FILE* functions, allocated on
     * first use and kept: cube_write_sev_row is called once per row and
     * must not allocate 64 KiB each time (writer.c). */
    struct xml_out *stream_out;
};

enum { ID_METRIC, ID_REGION, ID_CNODE, ID_MACHINE, ID_NODE, ID_PROCESS, ID_THREAD };

/* Error and warning bookkeeping (model.c).  Every public function that
 * changes a cube_t and can fail calls cube_clear_error on entry, and
 * cube_set_error when it fails. */
void cube_set_error(cube_t *c, cube_code code, const char *fmt, ...) CUBE_PRINTF(3, 4);
int cube_add_warning(cube_t *c, const char *fmt, ...) CUBE_PRINTF(2, 3);
void cube_clear_error(cube_t *c);

/* A member of a CUBE 4 archive kept as it is. */
typedef struct {
    char *name;
    unsigned char *data;
    size_t size;
} extra_member;

/* A node of the system tree below `parent` (NULL: directly below the
 * machine); model_add_node is the case of a CUBE 3 node. */
cube_node *model_add_stn(cube_t *c, int64_t id, const char *name, cube_machine *machine,
                         cube_node *parent);
/* Copies into the model's arena (model_cube4.c): text (NULL stays NULL
 * in *dst), an attribute, a list of attributes, a CubePL program; 0 / non-NULL, or the error
 * (out of memory) on c. */
int model_arena_copy(cube_t *c, char **dst, const char *text);
int model_attr_add(cube_t *c, attr_list *l, const char *key, const char *value);
int model_attrs_copy(cube_t *c, attr_list *dst, const attr_list *src);
cube_program *model_program_new(cube_t *c, const char *text);
/* Record the format and version of the file read (model_cube4.c). */
int model_set_source(cube_t *c, cube_format format, const char *version);
/* 1 when `met`'s rows hold call-tree inclusive values (a CUBE 4 metric of
 * kind INCLUSIVE or SIMPLE whose values add up), 0 when they hold call-tree
 * exclusive ones.  What the views, the CUBE 3 writer and the statistics
 * convert by. */
int model_stored_inclusive(const cube_metric *met);
/* 1 when `met`'s values can be stored call-tree inclusive at all: they add
 * up (not a maximum, minimum, TAU_ATOMIC or HISTOGRAM(k)). */
int model_may_store_inclusive(const cube_metric *met);
/* The metric's values changed: its exact values no longer hold. */
void model_drop_exact(cube_metric *m);
/* The exact bytes of m's values at the call path of index `cnode`, or
 * NULL when m keeps none there. */
const unsigned char *model_exact_row(const cube_metric *m, size_t cnode);
/* Free what model_cube4.c added to the handle (called by cube_free). */
void model_cube4_free(cube_t *c);
/* Copy everything CUBE 4 adds to one entity of `from` onto the entity of
 * `to` standing for it (the algebra's result keeps its first input's);
 * 0, or -1 with the error on `to`. */
int model_copy_metric_extras(cube_t *to, cube_metric *dst, const cube_metric *src);
int model_copy_region_extras(cube_t *to, cube_region *dst, const cube_region *src);
int model_copy_cnode_extras(cube_t *to, cube_cnode *dst, const cube_cnode *src);

/* Append a child pointer to a parent's child array (shared by every tree). */
int child_array_push(void ***array, size_t *count, size_t *cap, void *child);

/* Definitions with explicit id labels (the reader's way in; the writer API
 * hands out ids itself).  All strings are copied.  NULL on error. */
cube_metric *model_add_metric(cube_t *c, int64_t id, const char *disp_name,
                              const char *uniq_name, const char *dtype, const char *uom,
                              const char *val, const char *url, const char *descr,
                              cube_metric *parent);
cube_region *model_add_region(cube_t *c, int64_t id, const char *name, long begin, long end,
                              const char *url, const char *descr, const char *mod);
cube_cnode *model_add_cnode(cube_t *c, int64_t id, cube_region *callee, const char *mod,
                            long line, cube_cnode *parent);
cube_machine *model_add_machine(cube_t *c, int64_t id, const char *name, const char *descr);
cube_node *model_add_node(cube_t *c, int64_t id, const char *name, cube_machine *m);
cube_process *model_add_process(cube_t *c, int64_t id, const char *name, int64_t rank,
                                cube_node *n);
cube_thread *model_add_thread(cube_t *c, int64_t id, const char *name, int64_t rank,
                              cube_process *p);
cube_cartesian *model_add_cart(cube_t *c, const char *name, long ndims, const long *dims,
                               const int *periods);
int model_set_attr(cube_t *c, const char *key, const char *value);
int model_add_mirror(cube_t *c, const char *url);

/* For input k of a finished union, one count per result metric, call path
 * or thread: how many of the input's items were mapped onto it, 2 standing
 * for more than one (0: the input lacks it); NULL without input k or before
 * cube_union_finish.  with_data: metrics only where they are not VOID in
 * the input.  The tables belong to the union. */
const unsigned char *union_metric_counts(const cube_union *u, size_t k, int with_data);
const unsigned char *union_cnode_counts(const cube_union *u, size_t k);
const unsigned char *union_thread_counts(const cube_union *u, size_t k);

/* How input k's rows of each of its metrics (by the input's metric index)
 * join the result: as stored, converted along the call tree to the kind
 * of the result's metric (an input that stores it inclusive where the
 * result keeps it exclusive, or the other way), or not at all (the metric
 * is derived in the input or in the result: no stored values).  NULL
 * without input k or before cube_union_finish. */
enum {
    UNION_ROWS_AS_STORED = 0,
    UNION_ROWS_TO_EXCLUSIVE = 1, /* a row adds to its call path, subtracts from the parent */
    UNION_ROWS_TO_INCLUSIVE = 2, /* a row adds to its call path and every ancestor */
    UNION_ROWS_NONE = 3
};
const unsigned char *union_metric_rules(const cube_union *u, size_t k);

/* cube_combine and cube_compare of experiments in memory (the caller's,
 * only read), named in messages and in the result's record of its origin
 * by names[k]: the same lining up and row pass, the rows taken from the
 * models as from an input read whole.  For programs that hold their
 * inputs already, and for tests of models no file format can carry. */
cube_t *algebra_combine_models(cube_operation op, const cube_t *const *inputs,
                               const char *const *names, size_t n, cube_match match,
                               cube_system_rule rule, cube_status *status);
int algebra_compare_models(const cube_t *a, const cube_t *b, const char *name_a,
                           const char *name_b, cube_match match, cube_system_rule rule,
                           const cube_compare_options *options, cube_difference_fn report,
                           void *user, size_t *num_differences, cube_status *status);

/* The severity row of (met, cnode), created zeroed when absent; NULL on
 * allocation failure (error set). */
double *model_row_for_update(cube_t *c, const cube_metric *met, const cube_cnode *cnode);

#endif
