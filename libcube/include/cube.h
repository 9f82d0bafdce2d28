/*
 * cube.h - the public interface of libcube.
 *
 * libcube reads and writes CUBE 3 XML experiments (plain or gzip) and CUBE 4
 * archives (.cubex), into and from one model.  It has two faces:
 *
 *  - the CUBE3 C writer API (cube_create, cube_def_met, ..., cube_write_all)
 *    with the names and argument order of the CUBE3 manual, so that code
 *    written for the original libcubew3 compiles against libcube unchanged;
 *
 *  - a reading and query API in the style of libarchive: an opaque handle
 *    (cube_t) that carries the last error, functions to read a file or stream,
 *    to walk each dimension and to look up severity rows, plus a streaming
 *    reader (cube_reader_*) that hands out rows one at a time.
 *
 * Ids written in a file are labels; inside libcube every entity also has a
 * dense index (its position in definition order) and severity rows are
 * arrays of doubles indexed by thread index.  See libcube(3), cube(5) and
 * cubex(5).
 *
 * The library is reentrant: no printing, no exit(), and no global mutable
 * state but the list of open temporary files (cube_remove_temp_files).
 */
#ifndef LIBCUBE_CUBE_H
#define LIBCUBE_CUBE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CUBE_API marks every function of the public interface.  The library is
 * compiled with -fvisibility=hidden, so these functions and nothing else
 * are exported by libcube.so: its internal helpers can neither be called
 * nor replaced by a program that defines a function of the same name. */
#if defined(__GNUC__) || defined(__clang__)
#define CUBE_API __attribute__((visibility("default")))
#else
#define CUBE_API
#endif

/* ------------------------------------------------------------------------
 * The version.  These three numbers are the one place it is written: the
 * Makefile reads them for the shared library's name, the pkg-config file
 * and the man pages, and the tools print CUBE_VERSION_STRING.  MAJOR
 * changes with every incompatible change of the interface and is the
 * shared library's soname (libcube.so.MAJOR); MINOR with additions; PATCH
 * with fixes that change no interface.
 * ------------------------------------------------------------------------ */
#define CUBE_VERSION_MAJOR 1
#define CUBE_VERSION_MINOR 0
#define CUBE_VERSION_PATCH 0

/* MAJOR * 10000 + MINOR * 100 + PATCH, for comparisons in #if */
#define CUBE_VERSION_NUMBER \
    (CUBE_VERSION_MAJOR * 10000 + CUBE_VERSION_MINOR * 100 + CUBE_VERSION_PATCH)

#define CUBE_VERSION_QUOTE_(x) #x
#define CUBE_VERSION_TEXT_(x) CUBE_VERSION_QUOTE_(x)
/* "MAJOR.MINOR.PATCH" */
#define CUBE_VERSION_STRING                                                        \
    CUBE_VERSION_TEXT_(CUBE_VERSION_MAJOR) "." CUBE_VERSION_TEXT_(CUBE_VERSION_MINOR) \
    "." CUBE_VERSION_TEXT_(CUBE_VERSION_PATCH)
/* the older name of CUBE_VERSION_STRING */
#define LIBCUBE_VERSION CUBE_VERSION_STRING

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library the program runs with, "MAJOR.MINOR.PATCH":
 * with the shared library it may be newer than the CUBE_VERSION_STRING the
 * program was compiled with (the same MAJOR). */
CUBE_API const char *cube_version(void);

/* ------------------------------------------------------------------------
 * Errors: one model for every function (libcube(3), ERRORS).
 *
 *  - A function that fails says so by its return value: -1 for int, NULL
 *    for a pointer (some also return NULL when there is nothing to
 *    return; each says so), as documented with each function.
 *  - Why, as a stable code and a one-line message, is kept by the handle
 *    the function works on: cube_error_code() and cube_error() for a
 *    cube_t, cube_reader_error_code() and cube_reader_error() for a
 *    reader, and so on for every handle that a failing function changes.
 *    The next successful call on the handle clears them (CUBE_OK, "").
 *  - Functions without such a handle (those that create one from a path,
 *    those that only read a const handle and may run in several threads
 *    at once, and those that work on plain values) take a last argument
 *    `cube_status *status`: set to CUBE_OK and "" on success, to the code
 *    and message on failure; NULL when the caller does not want them.
 *  - Functions that take no argument to report through (cube_create,
 *    cube_union_create, cube_statfile_create, cube_tree_walk_start,
 *    cube_call_path, cube_xml_escape) fail only for lack of memory:
 *    NULL means CUBE_ENOMEM.
 * ------------------------------------------------------------------------ */

typedef enum {
    CUBE_OK = 0,
    CUBE_ENOMEM = 1,       /* out of memory */
    CUBE_EIO = 2,          /* opening, reading, writing or renaming a file failed */
    CUBE_EFORMAT = 3,      /* the input is not a well-formed file of its format */
    CUBE_EUNSUPPORTED = 4, /* a well-formed file of a kind or version libcube does not read */
    CUBE_EINVAL = 5,       /* an invalid argument: NULL where a value is needed, an unknown
                              name or enum value, an index out of range, NaN, text that is
                              not a number */
    CUBE_ESTATE = 6,       /* a call out of order (rows after cube_view_finish, ...) */
    CUBE_EMISMATCH = 7,    /* experiments that cannot be lined up */
    CUBE_ECANCELED = 8     /* cube_remove_temp_files ran: no more writing to paths */
} cube_code;

/* The size of a status message, terminating NUL included; longer
 * messages are cut short. */
#define CUBE_MESSAGE_SIZE 1024

typedef struct cube_status {
    cube_code code;
    char message[CUBE_MESSAGE_SIZE]; /* "" with CUBE_OK */
} cube_status;

/* A short text for a code ("out of memory", ...); never NULL. */
CUBE_API const char *cube_code_text(cube_code code);

/* ------------------------------------------------------------------------
 * The entities of the performance space.  They are opaque: the library
 * allocates them, owns them until cube_free, and programs read them
 * through the accessors below and change them only through the functions
 * further down.  Every entity has an id (the label read from a file, or
 * assigned in creation order) and an index (its position in definition
 * order, dense from 0; what rows and arrays are indexed by).  Strings are
 * never NULL ("" when absent) and live as long as the experiment.  An
 * accessor given NULL returns 0, -1 (ids, lines), "" or NULL; a child or
 * member index out of range gives NULL.
 * ------------------------------------------------------------------------ */

typedef struct cube_t cube_t;
typedef struct cube_metric cube_metric;
typedef struct cube_region cube_region;
typedef struct cube_cnode cube_cnode;
typedef struct cube_machine cube_machine;
typedef struct cube_node cube_node;
typedef struct cube_process cube_process;
typedef struct cube_thread cube_thread;
typedef struct cube_cartesian cube_cartesian;

/* Metrics: a tree.  A metric is VOID when its value type (val) is "VOID"
 * or an ancestor's is: it carries no data. */
CUBE_API int64_t cube_metric_id(const cube_metric *m);
CUBE_API size_t cube_metric_index(const cube_metric *m);
CUBE_API const char *cube_metric_disp_name(const cube_metric *m);
CUBE_API const char *cube_metric_uniq_name(const cube_metric *m);
CUBE_API const char *cube_metric_dtype(const cube_metric *m);
CUBE_API const char *cube_metric_uom(const cube_metric *m);
CUBE_API const char *cube_metric_val(const cube_metric *m);
CUBE_API const char *cube_metric_url(const cube_metric *m);
CUBE_API const char *cube_metric_descr(const cube_metric *m);
CUBE_API cube_metric *cube_metric_parent(const cube_metric *m); /* NULL for a root */
CUBE_API size_t cube_metric_num_children(const cube_metric *m);
CUBE_API cube_metric *cube_metric_child(const cube_metric *m, size_t i);
CUBE_API int cube_metric_is_void(const cube_metric *m);

/* Regions (the program's functions, loops, ...). */
CUBE_API int64_t cube_region_id(const cube_region *r);
CUBE_API size_t cube_region_index(const cube_region *r);
CUBE_API const char *cube_region_name(const cube_region *r);
CUBE_API const char *cube_region_mod(const cube_region *r);
CUBE_API const char *cube_region_url(const cube_region *r);
CUBE_API const char *cube_region_descr(const cube_region *r);
CUBE_API long cube_region_begin_line(const cube_region *r); /* -1: unknown */
CUBE_API long cube_region_end_line(const cube_region *r);   /* -1: unknown */

/* Call-tree nodes (call paths).  The call-site module is shared by every
 * cnode with the same module (one copy each). */
CUBE_API int64_t cube_cnode_id(const cube_cnode *cn);
CUBE_API size_t cube_cnode_index(const cube_cnode *cn);
CUBE_API cube_region *cube_cnode_callee(const cube_cnode *cn);
CUBE_API const char *cube_cnode_mod(const cube_cnode *cn); /* "" when unknown */
CUBE_API long cube_cnode_line(const cube_cnode *cn);       /* -1 when unknown */
CUBE_API cube_cnode *cube_cnode_parent(const cube_cnode *cn); /* NULL for a root */
CUBE_API size_t cube_cnode_num_children(const cube_cnode *cn);
CUBE_API cube_cnode *cube_cnode_child(const cube_cnode *cn, size_t i);
/* 0 for a root, its parent's plus 1 otherwise. */
CUBE_API size_t cube_cnode_depth(const cube_cnode *cn);

/* The system tree: machines hold nodes, nodes processes, processes
 * threads.  A thread's index is the position of its value in every
 * severity row. */
CUBE_API int64_t cube_machine_id(const cube_machine *m);
CUBE_API size_t cube_machine_index(const cube_machine *m);
CUBE_API const char *cube_machine_name(const cube_machine *m);
CUBE_API const char *cube_machine_descr(const cube_machine *m);
CUBE_API size_t cube_machine_num_nodes(const cube_machine *m);
CUBE_API cube_node *cube_machine_node(const cube_machine *m, size_t i);

CUBE_API int64_t cube_node_id(const cube_node *n);
CUBE_API size_t cube_node_index(const cube_node *n);
CUBE_API const char *cube_node_name(const cube_node *n);
CUBE_API cube_machine *cube_node_machine(const cube_node *n);
CUBE_API size_t cube_node_num_processes(const cube_node *n);
CUBE_API cube_process *cube_node_process(const cube_node *n, size_t i);

CUBE_API int64_t cube_process_id(const cube_process *p);
CUBE_API size_t cube_process_index(const cube_process *p);
CUBE_API const char *cube_process_name(const cube_process *p);
CUBE_API int64_t cube_process_rank(const cube_process *p);
CUBE_API cube_node *cube_process_node(const cube_process *p);
CUBE_API size_t cube_process_num_threads(const cube_process *p);
CUBE_API cube_thread *cube_process_thread(const cube_process *p, size_t i);

CUBE_API int64_t cube_thread_id(const cube_thread *t);
CUBE_API size_t cube_thread_index(const cube_thread *t);
CUBE_API const char *cube_thread_name(const cube_thread *t);
CUBE_API int64_t cube_thread_rank(const cube_thread *t);
CUBE_API cube_process *cube_thread_process(const cube_thread *t);

/* Cartesian topologies. */

/* What a topology coordinate refers to. */
typedef enum {
    CUBE_COORD_THREAD,
    CUBE_COORD_PROCESS,
    CUBE_COORD_NODE,
    CUBE_COORD_MACHINE
} cube_coord_kind;

/* One mapped entity (the library's, read-only). */
typedef struct cube_coord {
    cube_coord_kind kind;
    void *entity;        /* cube_thread*, cube_process*, cube_node* or cube_machine* */
    const long *coords;  /* ndims values */
} cube_coord;

CUBE_API size_t cube_cart_index(const cube_cartesian *cart);
CUBE_API const char *cube_cart_name(const cube_cartesian *cart); /* "" when unnamed */
CUBE_API long cube_cart_ndims(const cube_cartesian *cart);
/* Size of dimension d, and whether it is periodic (1) or not (0); 0 when
 * d is out of range. */
CUBE_API long cube_cart_dim(const cube_cartesian *cart, long d);
CUBE_API int cube_cart_period(const cube_cartesian *cart, long d);
/* Name of dimension d; NULL when the dimensions are unnamed. */
CUBE_API const char *cube_cart_dim_name(const cube_cartesian *cart, long d);
CUBE_API size_t cube_cart_num_coords(const cube_cartesian *cart);
CUBE_API const cube_coord *cube_cart_coord(const cube_cartesian *cart, size_t i);

/* ------------------------------------------------------------------------
 * What CUBE 4 holds beyond CUBE 3.  An experiment read from a CUBE 3 file
 * (or built with the CUBE3 writer API) has the defaults noted here, which
 * are also what a CUBE 4 writer writes for it.
 * ------------------------------------------------------------------------ */

/* How a metric's values are kept.  CUBE 3 knows only the first. */
typedef enum {
    CUBE_KIND_EXCLUSIVE = 0,            /* stored per call path, call-tree exclusive */
    CUBE_KIND_INCLUSIVE = 1,            /* stored per call path, call-tree inclusive */
    CUBE_KIND_SIMPLE = 2,               /* stored; read as call-tree inclusive */
    CUBE_KIND_PREDERIVED_EXCLUSIVE = 3, /* computed from other metrics by a CubePL */
    CUBE_KIND_PREDERIVED_INCLUSIVE = 4, /*   expression (cube_metric_expression): */
    CUBE_KIND_POSTDERIVED = 5           /*   no stored values */
} cube_metric_kind;

/* "EXCLUSIVE", "INCLUSIVE", "SIMPLE", "PREDERIVED_EXCLUSIVE",
 * "PREDERIVED_INCLUSIVE", "POSTDERIVED"; "" for another value. */
CUBE_API const char *cube_metric_kind_name(cube_metric_kind kind);
/* CUBE_KIND_EXCLUSIVE for NULL. */
CUBE_API cube_metric_kind cube_metric_type(const cube_metric *m);
/* 1 for the three derived kinds: values are computed, never stored. */
CUBE_API int cube_metric_is_derived(const cube_metric *m);
/* 1 when the metric is hidden from displays (CUBE 4 viztype GHOST). */
CUBE_API int cube_metric_is_ghost(const cube_metric *m);
/* A derived metric's CubePL expression and its initialisation program
 * ("" when none), and its aggregation programs with their operator
 * ("plus", "minus", "aggr"; "" when not given). */
CUBE_API const char *cube_metric_expression(const cube_metric *m);
CUBE_API const char *cube_metric_init_expression(const cube_metric *m);
CUBE_API size_t cube_metric_num_aggr_expressions(const cube_metric *m);
CUBE_API const char *cube_metric_aggr_expression(const cube_metric *m, size_t i);
CUBE_API const char *cube_metric_aggr_operator(const cube_metric *m, size_t i);

/* Regions: the linker's name (the region's name when not given), the
 * programming paradigm ("mpi", "openmp", "compiler", ...) and the role
 * ("function", "loop", ...), "" when not given. */
CUBE_API const char *cube_region_mangled_name(const cube_region *r);
CUBE_API const char *cube_region_paradigm(const cube_region *r);
CUBE_API const char *cube_region_role(const cube_region *r);

/* Call-path parameters (e.g. an MPI message size the call path was
 * split by), in definition order: key, value as written, and whether it
 * is numeric (1) or a string (0). */
CUBE_API size_t cube_cnode_num_params(const cube_cnode *cn);
CUBE_API const char *cube_cnode_param_key(const cube_cnode *cn, size_t i);
CUBE_API const char *cube_cnode_param_value(const cube_cnode *cn, size_t i);
CUBE_API int cube_cnode_param_is_numeric(const cube_cnode *cn, size_t i);

/* The system tree of any depth.  Its roots are the machines; every other
 * system tree node is a cube_node, below its machine (cube_node_parent
 * NULL) or below another node, and cube_node_machine is the root above
 * it.  cube_machine_node lists a machine's direct child nodes.  Each node
 * has a class ("machine", "node", "rack", ...; CUBE 3: "machine" and
 * "node").  Processes stand for CUBE 4's location groups and threads for
 * its locations, each with a type; a thread's id is its column in the
 * data (CUBE 4's location Id). */
CUBE_API const char *cube_machine_class(const cube_machine *m);
CUBE_API const char *cube_node_class(const cube_node *n);
CUBE_API const char *cube_node_descr(const cube_node *n);
CUBE_API cube_node *cube_node_parent(const cube_node *n);
CUBE_API size_t cube_node_num_children(const cube_node *n);
CUBE_API cube_node *cube_node_child(const cube_node *n, size_t i);

typedef enum {
    CUBE_GROUP_PROCESS = 0,    /* an MPI rank or an operating-system process */
    CUBE_GROUP_METRICS = 1,    /* a group of metric locations */
    CUBE_GROUP_ACCELERATOR = 2 /* an accelerator (GPU) */
} cube_group_type;
typedef enum {
    CUBE_LOCATION_THREAD = 0, /* a CPU thread */
    CUBE_LOCATION_GPU = 1,    /* an accelerator stream */
    CUBE_LOCATION_METRIC = 2  /* a source of metric values */
} cube_location_type;
/* "process", "metrics", "accelerator" / "thread", "gpu", "metric"; "" for
 * another value. */
CUBE_API const char *cube_group_type_name(cube_group_type type);
CUBE_API const char *cube_location_type_name(cube_location_type type);
CUBE_API cube_group_type cube_process_type(const cube_process *p);
CUBE_API cube_location_type cube_thread_type(const cube_thread *t);

/* Attributes of single entities (CUBE 4 <attr>): key/value pairs in
 * definition order; a key may repeat.  i < cube_X_num_attrs, else NULL.
 * cube_X_add_attr appends one (0, or -1 with cube_error set). */
CUBE_API size_t cube_metric_num_attrs(const cube_metric *x);
CUBE_API const char *cube_metric_attr_key(const cube_metric *x, size_t i);
CUBE_API const char *cube_metric_attr_value(const cube_metric *x, size_t i);
CUBE_API int cube_metric_add_attr(cube_t *c, cube_metric *x, const char *key, const char *value);
CUBE_API size_t cube_region_num_attrs(const cube_region *x);
CUBE_API const char *cube_region_attr_key(const cube_region *x, size_t i);
CUBE_API const char *cube_region_attr_value(const cube_region *x, size_t i);
CUBE_API int cube_region_add_attr(cube_t *c, cube_region *x, const char *key, const char *value);
CUBE_API size_t cube_cnode_num_attrs(const cube_cnode *x);
CUBE_API const char *cube_cnode_attr_key(const cube_cnode *x, size_t i);
CUBE_API const char *cube_cnode_attr_value(const cube_cnode *x, size_t i);
CUBE_API int cube_cnode_add_attr(cube_t *c, cube_cnode *x, const char *key, const char *value);
CUBE_API size_t cube_machine_num_attrs(const cube_machine *x);
CUBE_API const char *cube_machine_attr_key(const cube_machine *x, size_t i);
CUBE_API const char *cube_machine_attr_value(const cube_machine *x, size_t i);
CUBE_API int cube_machine_add_attr(cube_t *c, cube_machine *x, const char *key, const char *value);
CUBE_API size_t cube_node_num_attrs(const cube_node *x);
CUBE_API const char *cube_node_attr_key(const cube_node *x, size_t i);
CUBE_API const char *cube_node_attr_value(const cube_node *x, size_t i);
CUBE_API int cube_node_add_attr(cube_t *c, cube_node *x, const char *key, const char *value);
CUBE_API size_t cube_process_num_attrs(const cube_process *x);
CUBE_API const char *cube_process_attr_key(const cube_process *x, size_t i);
CUBE_API const char *cube_process_attr_value(const cube_process *x, size_t i);
CUBE_API int cube_process_add_attr(cube_t *c, cube_process *x, const char *key, const char *value);
CUBE_API size_t cube_thread_num_attrs(const cube_thread *x);
CUBE_API const char *cube_thread_attr_key(const cube_thread *x, size_t i);
CUBE_API const char *cube_thread_attr_value(const cube_thread *x, size_t i);
CUBE_API int cube_thread_add_attr(cube_t *c, cube_thread *x, const char *key, const char *value);

/* Members of a CUBE 4 archive that are not part of the experiment
 * (Score-P's "remapping.spec", ...), kept to be written back: name and
 * bytes, in archive order. */
CUBE_API size_t cube_num_extra_members(const cube_t *c);
CUBE_API const char *cube_extra_member_name(const cube_t *c, size_t i);
CUBE_API const void *cube_extra_member_data(const cube_t *c, size_t i, size_t *size);

/* The format an experiment was read from: CUBE_FORMAT_NONE for one built
 * in memory, else 3 or 4; and the version its file declared ("3.0",
 * "4.4", ...; "" for one built in memory). */
typedef enum { CUBE_FORMAT_NONE = 0, CUBE_FORMAT_CUBE3 = 3, CUBE_FORMAT_CUBE4 = 4 } cube_format;
CUBE_API cube_format cube_source_format(const cube_t *c);
CUBE_API const char *cube_source_version(const cube_t *c);

/* ------------------------------------------------------------------------
 * The CUBE3 C writer API (CUBE3 manual, "Writer Library in C").
 * Functions returning a pointer return NULL on error; those returning
 * void, as the original API has them, fail only through the handle:
 * cube_error_code() is not CUBE_OK after the call.
 * ------------------------------------------------------------------------ */

CUBE_API cube_t *cube_create(void);
CUBE_API void cube_free(cube_t *c);

CUBE_API void cube_def_attr(cube_t *c, const char *key, const char *value);
CUBE_API void cube_def_mirror(cube_t *c, const char *mirror);

CUBE_API cube_metric *cube_def_met(cube_t *c, const char *disp_name, const char *uniq_name,
                                   const char *dtype, const char *uom, const char *val,
                                   const char *url, const char *descr, cube_metric *parent);
CUBE_API cube_region *cube_def_region(cube_t *c, const char *name, long begln, long endln,
                                      const char *url, const char *descr, const char *mod);
CUBE_API cube_cnode *cube_def_cnode_cs(cube_t *c, cube_region *callee, const char *mod, int line,
                                       cube_cnode *parent);
CUBE_API cube_cnode *cube_def_cnode(cube_t *c, cube_region *callee, cube_cnode *parent);
CUBE_API cube_machine *cube_def_mach(cube_t *c, const char *name, const char *desc);
CUBE_API cube_node *cube_def_node(cube_t *c, const char *name, cube_machine *mach);
CUBE_API cube_process *cube_def_proc(cube_t *c, const char *name, int rank, cube_node *node);
CUBE_API cube_thread *cube_def_thrd(cube_t *c, const char *name, int rank, cube_process *proc);
CUBE_API cube_cartesian *cube_def_cart(cube_t *c, long int ndims, long int *dimv, int *periodv);
CUBE_API void cube_def_coords(cube_t *c, cube_cartesian *cart, cube_thread *thrd, long int *coordv);

CUBE_API void cube_set_sev(cube_t *c, cube_metric *met, cube_cnode *cnode, cube_thread *thrd,
                           double value);
CUBE_API void cube_add_sev(cube_t *c, cube_metric *met, cube_cnode *cnode, cube_thread *thrd,
                           double value);
/* Flat-profile variants: the value goes to the call-tree root whose callee is
 * `reg` (created on first use when the region has no such root). */
CUBE_API void cube_set_sev_reg(cube_t *c, cube_metric *met, cube_region *reg, cube_thread *thrd,
                               double value);
CUBE_API void cube_add_sev_reg(cube_t *c, cube_metric *met, cube_region *reg, cube_thread *thrd,
                               double value);

/* Write the whole experiment, or stream it: definitions, then rows (either
 * all stored rows with cube_write_sev_matrix, or caller-given rows with
 * cube_write_sev_row: `sevs` holds one value per thread, in thread index
 * order), then the end tags. */
CUBE_API void cube_write_all(cube_t *c, FILE *fp);
CUBE_API void cube_write_def(cube_t *c, FILE *fp);
CUBE_API void cube_write_sev_matrix(cube_t *c, FILE *fp);
CUBE_API void cube_write_sev_row(cube_t *c, FILE *fp, cube_metric *met, cube_cnode *cnode,
                                 double *sevs);
CUBE_API void cube_write_finish(cube_t *c, FILE *fp);

/* ------------------------------------------------------------------------
 * Extensions to the writer API for what the file format holds beyond it.
 * Each returns 0 on success, -1 on error (cube_error says why).
 * ------------------------------------------------------------------------ */

CUBE_API int cube_cart_set_name(cube_t *c, cube_cartesian *cart, const char *name);
CUBE_API int cube_cart_set_dim_name(cube_t *c, cube_cartesian *cart, long dim, const char *name);
/* CUBE 4 definitions (0, or -1 with cube_error set; a NULL text keeps
 * what is there).  cube_def_stn: a system tree node below a machine
 * (`parent` NULL) or below a node of that machine. */
CUBE_API int cube_metric_set_type(cube_t *c, cube_metric *m, cube_metric_kind kind);
CUBE_API int cube_metric_set_ghost(cube_t *c, cube_metric *m, int ghost);
CUBE_API int cube_metric_set_expression(cube_t *c, cube_metric *m, const char *expression,
                                        const char *init_expression);
CUBE_API int cube_metric_add_aggr_expression(cube_t *c, cube_metric *m, const char *op,
                                             const char *expression);
CUBE_API int cube_region_set_details(cube_t *c, cube_region *r, const char *mangled_name,
                                     const char *paradigm, const char *role);
CUBE_API int cube_cnode_add_param(cube_t *c, cube_cnode *cn, const char *key, const char *value,
                                  int numeric);
CUBE_API int cube_machine_set_class(cube_t *c, cube_machine *m, const char *klass);
CUBE_API cube_node *cube_def_stn(cube_t *c, const char *name, const char *klass,
                                 const char *descr, cube_machine *mach, cube_node *parent);
CUBE_API int cube_node_set_class(cube_t *c, cube_node *n, const char *klass);
CUBE_API int cube_process_set_type(cube_t *c, cube_process *p, cube_group_type type);
CUBE_API int cube_thread_set_type(cube_t *c, cube_thread *t, cube_location_type type);
CUBE_API int cube_add_extra_member(cube_t *c, const char *name, const void *data, size_t size);
/* Map a thread, process, node or machine onto a coordinate. */
CUBE_API int cube_def_coords_of(cube_t *c, cube_cartesian *cart, cube_coord_kind kind, void *entity,
                                const long *coordv);

/* ------------------------------------------------------------------------
 * Errors and warnings of a cube_t.  A failing call leaves its code and a
 * one-line message on the handle, "FILE:LINE: what was expected, what was
 * found" for input errors; the next successful call that changes the
 * handle clears them.  Warnings (recoverable oddities of an input) are
 * collected in order.
 * ------------------------------------------------------------------------ */

CUBE_API cube_code cube_error_code(const cube_t *c);
CUBE_API const char *cube_error(const cube_t *c); /* "" when there was no error */
CUBE_API size_t cube_num_warnings(const cube_t *c);
CUBE_API const char *cube_warning(const cube_t *c, size_t i);

/* ------------------------------------------------------------------------
 * Reading.  `path` "-" is standard input; gzip is recognised by its magic
 * bytes.  A CUBE 3 XML file and a CUBE 4 archive (.cubex, a tar archive)
 * are told apart by their content; an archive that is gzip-compressed or
 * comes on a pipe is first copied into an unlinked temporary file in
 * $TMPDIR (else /tmp).  cube_read fills an empty handle (from cube_create)
 * and returns 0, or -1 with cube_error set; the handle must then only be
 * freed.
 * ------------------------------------------------------------------------ */

CUBE_API int cube_read(cube_t *c, const char *path);
/* Read from an open stream; `name` is used in messages. */
CUBE_API int cube_read_fd(cube_t *c, int fd, const char *name);

/* Streaming: the definitions first, then one row at a time.  Rows of a
 * CUBE 3 file come in file order; a (metric, cnode) pair may come more
 * than once when the file repeats it.  Rows of a CUBE 4 archive come
 * metric by metric in definition order, each metric's rows in the order
 * of its index, each pair once; rows of a metric that is derived, VOID or
 * not selected are not read.  The open functions return NULL only when out
 * of memory; a file that cannot be opened or read gives a reader whose
 * error is set (cube_reader_error_code). */
typedef struct cube_reader cube_reader;
CUBE_API cube_reader *cube_reader_open(const char *path);
CUBE_API cube_reader *cube_reader_open_fd(int fd, const char *name);
/* Flags of cube_reader_open_with.  CUBE_READ_NO_CALL_TREE: the call-tree
 * nodes are checked and numbered but not built, for a consumer that only
 * needs each row's cnode index (combining experiments whose call trees it
 * already has): a million call paths cost ~150 MB as a tree, nothing (or
 * an id map, when the ids are not 0, 1, 2, ...) this way.  The definitions
 * then have no cnodes, and the rows are taken with
 * cube_reader_next_row_index (cube_reader_next_row fails).  A cnode's
 * index is its position among the <cnode>s of the file, as in cube_read. */
#define CUBE_READ_NO_CALL_TREE 1u
CUBE_API cube_reader *cube_reader_open_with(const char *path, unsigned flags);
CUBE_API cube_reader *cube_reader_open_fd_with(int fd, const char *name, unsigned flags);
/* The definitions (NULL after an error).  The handle belongs to the reader
 * until cube_reader_take_definitions moves it to the caller. */
CUBE_API const cube_t *cube_reader_definitions(cube_reader *r);
CUBE_API cube_t *cube_reader_take_definitions(cube_reader *r);
/* 1: a row (values has cube_num_threads() values, valid until the next
 * call); 0: end of file; -1: error (cube_reader_error_code,
 * cube_reader_error).  An error of a reader is final: every later call
 * fails with it. */
CUBE_API int cube_reader_next_row(cube_reader *r, const cube_metric **met, const cube_cnode **cnode,
                                  const double **values);
/* The same with the row's metric and cnode as indexes into the
 * definitions (the cnode's as cube_read would number it). */
CUBE_API int cube_reader_next_row_index(cube_reader *r, size_t *metric, size_t *cnode,
                                        const double **values);
/* Only the rows of the metrics with wanted[metric index] set are wanted:
 * the others are skipped without parsing their values (so they are not
 * checked either).  Rows read ahead before the call still come.  0, or -1
 * (CUBE_ENOMEM, CUBE_EINVAL): this error alone is not final, the reader
 * goes on with every metric and its next successful call clears it. */
CUBE_API int cube_reader_select_metrics(cube_reader *r, const unsigned char *wanted);
/* 1 when the row cube_reader_next_row returned last may repeat a (metric,
 * cnode) that came before in the file (a second matrix for a metric, or a
 * row repeated inside one).  cube_read lets the later values win where
 * they are given; a streaming consumer that adds rows up must handle it. */
CUBE_API int cube_reader_row_may_repeat(const cube_reader *r);
CUBE_API cube_code cube_reader_error_code(const cube_reader *r);
CUBE_API const char *cube_reader_error(const cube_reader *r);
CUBE_API size_t cube_reader_num_warnings(const cube_reader *r);
CUBE_API const char *cube_reader_warning(const cube_reader *r, size_t i);
CUBE_API void cube_reader_close(cube_reader *r);

/* ------------------------------------------------------------------------
 * Writing to a path.  The output goes to a temporary file next to `path`
 * that is renamed into place only when everything was written: an error
 * never leaves a partial file and never destroys an existing one.  "-" is
 * standard output.
 *
 * The format: CUBE 4 (a .cubex archive, cubex(5)) when `flags` has
 * CUBE_WRITE_CUBE4, or when the name ends in ".cubex" and `flags` does not
 * have CUBE_WRITE_CUBE3; CUBE 3 XML otherwise, gzip-compressed when
 * `flags` has CUBE_WRITE_GZIP or the name ends in ".gz" (an archive is
 * never compressed as a whole: CUBE 4 readers need random access).
 * Writing CUBE 3 from an experiment with what CUBE 3 cannot hold (deeper
 * system trees, location types, parameters, metrics stored inclusive or
 * derived, structured value types) converts it and adds one warning per
 * kind of information to the handle (cube_warning).
 * ------------------------------------------------------------------------ */

#define CUBE_WRITE_GZIP 1u
#define CUBE_WRITE_CUBE3 2u
#define CUBE_WRITE_CUBE4 4u
/* The format cube_write_file would write for `path` and `flags`. */
CUBE_API cube_format cube_write_format(const char *path, unsigned flags);
CUBE_API int cube_write_file(cube_t *c, const char *path, unsigned flags);

/* The same, with more rows made on the fly after the stored ones, so that
 * an experiment far larger than memory can be written: `next` returns 1
 * with a row (`values`: cube_num_threads() values, valid until the next
 * call), 0 at the end, -1 on an error of its own (which it reports; the
 * handle then says the rows could not be made).  Give the rows of one
 * metric together: in CUBE 3 each change of metric starts a new severity
 * matrix; CUBE 4 needs them together and after the metric's stored rows
 * (CUBE_EINVAL otherwise), and holds one metric's rows at a time. */
typedef int (*cube_row_source)(void *ctx, const cube_metric **met, const cube_cnode **cnode,
                               const double **values);
CUBE_API int cube_write_file_rows(cube_t *c, const char *path, unsigned flags, cube_row_source next,
                                  void *ctx);

/* Any other output written the same way: a stream to write into (stdio),
 * backed by a temporary file next to `path` that cube_output_close renames
 * into place.  "-" is standard output; an existing file that is not a
 * regular one (a FIFO, /dev/stderr) is written in place.  NULL, with
 * `status` set, when the output cannot be made. */
typedef struct cube_output cube_output;
CUBE_API cube_output *cube_output_open(const char *path, cube_status *status);
CUBE_API FILE *cube_output_stream(const cube_output *out);
/* Close the stream and free `out`.  With `commit` the output is put in
 * place: 0, or -1 with `status` set (a write or the rename failed; the
 * temporary file is removed).  Without it (the program's own error) the
 * temporary file is removed and 0 returned. */
CUBE_API int cube_output_close(cube_output *out, int commit, cube_status *status);

/* ------------------------------------------------------------------------
 * The temporary files of the process.  Every write to a path above has a
 * temporary file open until it is renamed or removed; libcube keeps a
 * process-wide list of them (its one piece of global state: signals are
 * process-wide) so that a program can remove them when it is interrupted.
 * libcube installs no signal handler: the program does.
 * ------------------------------------------------------------------------ */

/* Remove (unlink) every temporary file open in the process; the number
 * removed.  Async-signal-safe and thread-safe: meant for a signal handler
 * (or an exit path) of a program on its way out.  After it, libcube
 * creates no more temporary files: a write to a path fails. */
CUBE_API int cube_remove_temp_files(void);
/* Call fn with the name of every temporary file open in the process; the
 * number of calls.  Async-signal-safe when fn is; the name is valid only
 * during the call. */
CUBE_API size_t cube_list_temp_files(void (*fn)(const char *path, void *user), void *user);

/* ------------------------------------------------------------------------
 * Walking the dimensions.  Lists are in definition order; `i` < count.
 * ------------------------------------------------------------------------ */

CUBE_API size_t cube_num_attrs(const cube_t *c);
CUBE_API const char *cube_attr_key(const cube_t *c, size_t i);
CUBE_API const char *cube_attr_value(const cube_t *c, size_t i);
CUBE_API const char *cube_get_attr(const cube_t *c, const char *key); /* NULL if absent */
CUBE_API size_t cube_num_mirrors(const cube_t *c);
CUBE_API const char *cube_mirror(const cube_t *c, size_t i);

CUBE_API size_t cube_num_metrics(const cube_t *c);
CUBE_API cube_metric *cube_get_metric(const cube_t *c, size_t i);
CUBE_API size_t cube_num_root_metrics(const cube_t *c);
CUBE_API cube_metric *cube_get_root_metric(const cube_t *c, size_t i);
CUBE_API cube_metric *cube_find_metric(const cube_t *c, const char *uniq_name);
/* The metric a user means by `name` (what the tools' -m and --metric
 * take): the metric with that unique name, else the metric with that
 * display name ("Time") when no other metric has it.  NULL when there is
 * none, or when several metrics have that display name; then, when
 * `num_matches` is not NULL, *num_matches is how many (0: no such metric;
 * it is 1 whenever a metric is returned). */
CUBE_API cube_metric *cube_find_metric_named(const cube_t *c, const char *name,
                                              size_t *num_matches);
/* The unique names of the metrics whose display name is `name`, in
 * definition order, separated by ", ", into buf (at most len bytes, cut
 * short with "..." when it does not fit, always terminated when len > 0):
 * the candidates to tell a user of an ambiguous name.  Returns how many
 * metrics have that display name. */
CUBE_API size_t cube_metric_name_candidates(const cube_t *c, const char *name, char *buf,
                                            size_t len);

CUBE_API size_t cube_num_regions(const cube_t *c);
CUBE_API cube_region *cube_get_region(const cube_t *c, size_t i);

CUBE_API size_t cube_num_cnodes(const cube_t *c);
CUBE_API cube_cnode *cube_get_cnode(const cube_t *c, size_t i);
CUBE_API size_t cube_num_root_cnodes(const cube_t *c);
CUBE_API cube_cnode *cube_get_root_cnode(const cube_t *c, size_t i);

CUBE_API size_t cube_num_machines(const cube_t *c);
CUBE_API cube_machine *cube_get_machine(const cube_t *c, size_t i);
CUBE_API size_t cube_num_nodes(const cube_t *c);
CUBE_API cube_node *cube_get_node(const cube_t *c, size_t i);
CUBE_API size_t cube_num_processes(const cube_t *c);
CUBE_API cube_process *cube_get_process(const cube_t *c, size_t i);
CUBE_API size_t cube_num_threads(const cube_t *c);
CUBE_API cube_thread *cube_get_thread(const cube_t *c, size_t i);

CUBE_API size_t cube_num_carts(const cube_t *c);
CUBE_API cube_cartesian *cube_get_cart(const cube_t *c, size_t i);

/* ------------------------------------------------------------------------
 * Severity values.  A row holds cube_num_threads() doubles in thread index
 * order.  Only rows that were set exist; an absent row is all zeros (of a
 * maximum or minimum: no value, cube_combine_neutral in cube_views.h).
 * ------------------------------------------------------------------------ */

CUBE_API const double *cube_get_row(const cube_t *c, const cube_metric *met,
                                    const cube_cnode *cnode);
CUBE_API double cube_get_sev(const cube_t *c, const cube_metric *met, const cube_cnode *cnode,
                             const cube_thread *thrd);
/* Rows present, in no particular order: i < cube_num_rows(). */
CUBE_API size_t cube_num_rows(const cube_t *c);
CUBE_API const double *cube_row_at(const cube_t *c, size_t i, cube_metric **met,
                                   cube_cnode **cnode);
/* Store a whole row (copied); returns 0, or -1 on error. */
CUBE_API int cube_set_row(cube_t *c, const cube_metric *met, const cube_cnode *cnode,
                          const double *values);

/* ------------------------------------------------------------------------
 * Helpers for tools.
 * ------------------------------------------------------------------------ */

/* Each metric's total: the sum of its stored values over all call paths and
 * threads (metric-inclusive, as stored), into totals[metric index]; for a
 * MAXDOUBLE (MINDOUBLE) metric the largest (smallest) stored value, no
 * value (-DBL_MAX, +DBL_MAX: cube_combine_neutral) without rows
 * (cube_metric_combine in cube_views.h).  The value types count as in the
 * views (cube_views.h): an integer type narrower than 64 bits wraps in its
 * range, COMPLEX, RATE and TAU_ATOMIC totals are the numbers of their
 * combined components.  A metric stored
 * call-tree inclusive (CUBE 4) sums the rows of the call-tree roots only;
 * a derived metric's total is NaN: its values are not computed.  Sums are
 * compensated (Neumaier) and taken in the order the rows were stored, so
 * the same file always gives the same totals.  0, or -1 when out of
 * memory. */
CUBE_API int cube_metric_totals(const cube_t *c, double *totals, cube_status *status);
/* Depth of the call tree: 1 for roots only, 0 when empty. */
CUBE_API size_t cube_cnode_depth_max(const cube_t *c);
/* The call tree in preorder (roots in order, each node's children in
 * order) without recursion: the walk holds one entry per level of the
 * current call path, never one per call path.
 *   cube_tree_walk *w = cube_tree_walk_start(c);
 *   while ((cn = cube_tree_walk_next(w, &level))) ...   (level 0: a root)
 *   cube_tree_walk_free(w);
 * The walk takes all the memory it needs at the start: only
 * cube_tree_walk_start can fail.
 * cube_tree_walk_root: the root of the call path returned last.  The tree
 * must not change during the walk. */
typedef struct cube_tree_walk cube_tree_walk;
CUBE_API cube_tree_walk *cube_tree_walk_start(const cube_t *c); /* NULL: out of memory */
CUBE_API const cube_cnode *cube_tree_walk_next(cube_tree_walk *w, size_t *level);
CUBE_API const cube_cnode *cube_tree_walk_root(const cube_tree_walk *w);
CUBE_API void cube_tree_walk_free(cube_tree_walk *w);
/* Drop regions that no call-tree node refers to, and the mirrors when no
 * URL uses "@mirror@" (cube_clean --prune).  Call it after cube_read,
 * before writing.  0 with the number of regions dropped in *num_dropped
 * (when not NULL), or -1. */
CUBE_API int cube_prune(cube_t *c, size_t *num_dropped);
/* Format a double in the shortest form that reads back to the same value.
 * `buf` must hold at least CUBE_DOUBLE_BUFSIZE bytes; returns the length. */
#define CUBE_DOUBLE_BUFSIZE 32
CUBE_API int cube_format_double(double v, char *buf);
/* Parse exactly the `len` bytes at `s` as a finite double, in any form
 * strtod takes in the "C" locale, whatever locale the program set ("16.5"
 * is 16.5 under a German locale too).  0, or -1 (CUBE_EINVAL) when the
 * text is not a finite number (*out is then unchanged). */
CUBE_API int cube_parse_double(const char *s, size_t len, double *out, cube_status *status);

/* ------------------------------------------------------------------------
 * The CUBE algebra (cube_diff, cube_merge, cube_mean, cube_cmp).
 *
 * Experiments are first lined up: their dimensions are united, and every
 * metric, call path and thread of each input is mapped onto one of the
 * result.  Metrics match by unique name wherever they sit (the first
 * input's place kept); regions by name and module; call paths by callee
 * region, call-site module and line under the matched parent
 * (CUBE_MATCH_NAME: by callee name alone) and their parameters; system
 * tree nodes by the names on their path from the machine; processes by
 * (rank, type), threads by (process rank, type, thread rank), keeping the
 * first input's thread ranks where every input agrees with them.  What
 * CUBE 4 adds to an item (metric kind, programs, region details,
 * parameters, classes, types, attributes) comes from the first input that
 * has it, the extra archive members and the source format from the first
 * input.  Rows of a metric stored in another kind than the first input's
 * (call-tree inclusive or exclusive) are converted; derived metrics get no
 * values.  See cube_diff(1).
 * ------------------------------------------------------------------------ */

typedef enum {
    CUBE_MATCH_FULL, /* regions by name and module, call sites by module and line */
    CUBE_MATCH_NAME  /* regions by name only, call-site modules and lines ignored */
} cube_match;

typedef enum {
    CUBE_SYSTEM_AGREE,    /* the system trees must agree (each rank on the same node) */
    CUBE_SYSTEM_FIRST,    /* -c: the first input's machines and nodes; other ranks on one extra node */
    CUBE_SYSTEM_COLLAPSE  /* -C: one virtual machine and node holding every rank */
} cube_system_rule;

typedef struct cube_union cube_union;

CUBE_API cube_union *cube_union_create(cube_match match, cube_system_rule rule);
/* Line up one more experiment's definitions; `input` must stay alive until
 * cube_union_finish.  `name` is used in messages.  0, or -1 (error). */
CUBE_API int cube_union_add(cube_union *u, const cube_t *input, const char *name);
/* Unite the system trees and topologies; 0, or -1 when they cannot be
 * lined up (the message names the first conflict). */
CUBE_API int cube_union_finish(cube_union *u);
/* The united definitions (no values).  cube_union_take_result moves them
 * to the caller, who then frees them with cube_free. */
CUBE_API cube_t *cube_union_result(cube_union *u);
CUBE_API cube_t *cube_union_take_result(cube_union *u);
/* For input k: the result index of each of its metrics, call paths and
 * threads (by the input's own index).  A metric that repeats a unique name
 * the input gave an earlier metric maps to (size_t)-1 (values ignored);
 * several call paths or threads of an input may map onto one (values add
 * up). */
CUBE_API const size_t *cube_union_metric_map(const cube_union *u, size_t k);
CUBE_API const size_t *cube_union_cnode_map(const cube_union *u, size_t k);
CUBE_API const size_t *cube_union_thread_map(const cube_union *u, size_t k);
/* How many metrics, call paths and threads input k had (the lengths of its
 * maps); 0, or -1 (CUBE_EINVAL) when there is no input k. */
CUBE_API int cube_union_input_size(const cube_union *u, size_t k, size_t *metrics, size_t *cnodes,
                                   size_t *threads, cube_status *status);
/* Does input k have the result's metric / call path / thread?  "Metric
 * data": the input has the metric and it is neither VOID nor derived
 * there, nor derived in the result. */
CUBE_API int cube_union_input_has_metric(const cube_union *u, size_t k, size_t result_metric);
CUBE_API int cube_union_input_has_metric_data(const cube_union *u, size_t k, size_t result_metric);
CUBE_API int cube_union_input_has_cnode(const cube_union *u, size_t k, size_t result_cnode);
CUBE_API int cube_union_input_has_thread(const cube_union *u, size_t k, size_t result_thread);
CUBE_API cube_code cube_union_error_code(const cube_union *u);
CUBE_API const char *cube_union_error(const cube_union *u);
CUBE_API void cube_union_free(cube_union *u);

typedef enum {
    CUBE_OP_DIFF,  /* first input minus the second */
    CUBE_OP_MERGE, /* per (metric, call path), the row of the last input that has both */
    CUBE_OP_MEAN   /* the arithmetic mean over the inputs (missing = 0) */
} cube_operation;

/* Combine the experiments at `paths` (at most one "-"): the inputs are
 * read row by row, so memory holds the result and one input's definitions
 * plus a bounded read-ahead (two threads read the next inputs' rows while
 * the current one is added up; the result is that of reading them in
 * order).  Returns the result, whose warnings are those of lining up and
 * the readers' warnings about the inputs, and whose cube_source_format is
 * the first input's; or NULL with `status` set. */
CUBE_API cube_t *cube_combine(cube_operation op, const char *const *paths, size_t n,
                              cube_match match, cube_system_rule rule, cube_status *status);

/* Comparing two experiments (cube_cmp).  The options grow with new
 * versions: start from cube_compare_options_init(), which sets `size` to
 * the size the program was compiled with (the library reads no field
 * beyond it) and every field to its default. */
typedef struct {
    size_t size;               /* sizeof(cube_compare_options), set by _init */
    double rel_tol;            /* |a-b| <= rel_tol * max(|a|,|b|) counts as equal */
    double abs_tol;            /* |a-b| <= abs_tol counts as equal */
    const char *const *metrics;/* NULL, or names to compare (NULL-terminated): unique
                                  names, or display names only one metric has */
    size_t max_reported;       /* differences passed to `report` at most */
    /* NULL, or called with each warning about lining up the inputs (a
     * metric placed differently), then each the readers had (e.g. a raw
     * '&'), before any difference is reported */
    void (*warn)(void *user, const char *message);
    void *warn_user;
} cube_compare_options;

/* The defaults: 2 ulp (rel_tol 2 * DBL_EPSILON), abs_tol DBL_MIN, every
 * metric, 10 differences reported, no warning callback. */
CUBE_API void cube_compare_options_init(cube_compare_options *options);

/* One difference: what/where, and both values (absent = 0).  `what` is
 * "value", or "metric only in A", "metric only in B", "call path only in A",
 * "call path only in B", "thread only in A" or "thread only in B" for a
 * dimension item only one experiment has (then the values are 0, and the
 * ranks -1 unless it is a thread). */
typedef void (*cube_difference_fn)(void *user, const char *what, const char *metric,
                                   const char *call_path, long long process_rank,
                                   long long thread_rank, double a, double b);

/* 0 equal, 1 not equal (differences reported), -1 error (`status` set;
 * CUBE_EINVAL when options->size is not that of a known version).
 * *num_differences counts them all.  `options` NULL: the defaults. */
CUBE_API int cube_compare(const char *path_a, const char *path_b, cube_match match,
                          cube_system_rule rule, const cube_compare_options *options,
                          cube_difference_fn report, void *user, size_t *num_differences,
                          cube_status *status);

/* ------------------------------------------------------------------------
 * Storing values the other way along the call tree (cube_exclusify(1),
 * cube_inclusify(1)).
 * ------------------------------------------------------------------------ */

/* Store the values of metric `met` of `c` (NULL: of every metric) along
 * the call tree as `kind` says: CUBE_KIND_EXCLUSIVE (each call path its
 * own value, what CUBE 3 stores) or CUBE_KIND_INCLUSIVE (each call path
 * the value of its subtree); the metric's kind is set to match.  The new
 * rows are the values cube_view_compute gives in the metric-inclusive
 * flavour and the call flavour of `kind`, so every view of the experiment
 * gives the same values before and after (integers exactly, doubles to
 * rounding).  Along the metric tree values stay inclusive: every CUBE
 * format stores them so.  Not converted, each with a warning on the handle
 * naming the metrics (cube_warning): a MAXDOUBLE, MINDOUBLE, TAU_ATOMIC or
 * HISTOGRAM(k) metric cannot be stored inclusive and is stored exclusive
 * instead; a metric whose exact values (structured value types, 64-bit
 * integers beyond 2^53, integer sums that would pass 2^53) would not
 * survive the conversion keeps its rows and kind; derived metrics, which
 * store no values, are not touched.  Needs the rows in `c` (cube_read).
 * 0, or -1 with cube_error set (CUBE_EINVAL: another kind, or a metric of
 * another experiment; CUBE_ENOMEM); after an error the metrics converted
 * so far stay converted, each consistent with its kind. */
CUBE_API int cube_convert_metric_kind(cube_t *c, cube_metric *met, cube_metric_kind kind);

/* The call path of a node as "root/child/.../node" (region names); the
 * caller frees it.  NULL when out of memory. */
CUBE_API char *cube_call_path(const cube_cnode *cnode);

/* Text for XML or SVG, as libcube writes it: & < > " ' as entities; bytes
 * that are not well-formed UTF-8 and characters XML 1.0 does not allow
 * become U+FFFD, so that the output is always well-formed (names in CUBE
 * and LinkTest files come from anywhere).  cube_fputs_xml writes to fp (0,
 * or EOF on a write error); cube_xml_escape returns a malloc'd copy (NULL
 * when out of memory).  NULL text counts as "". */
CUBE_API int cube_fputs_xml(const char *text, FILE *fp);
CUBE_API char *cube_xml_escape(const char *text);

#ifdef __cplusplus
}
#endif

/* Values along the trees, flat profiles, value modes and statistics. */
#include "cube_views.h"
/* Statistics files (pattern statistics and most severe instances). */
#include "cube_statfile.h"
/* LinkTest result files (SION containers) and their analysis. */
#include "cube_linktest.h"

#endif
