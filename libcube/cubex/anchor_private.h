/*
 * anchor_private.h - the definitions of a CUBE 4 archive: its member
 * `anchor.xml` (plain or gzip-compressed, told by the gzip magic) parsed
 * into plain C records that say everything the XML says, so that the
 * library's model can be built from them and a writer can reproduce them.
 *
 * What the document holds, in its fixed order: cube attributes (key/value
 * pairs), documentation mirrors, the metric tree, the regions and the call
 * tree (cnodes), the system tree (system tree nodes of any depth, location
 * groups, locations) and the Cartesian topologies.  Every array below is
 * in document order; trees are given by parent indexes into the same
 * array, and a parent always comes before its children (document
 * pre-order), so a consumer can build a tree in one pass.
 *
 * Tolerance: the reader uses a real XML parser, so it accepts what the
 * reference library's stricter lexer refuses (comments, single quotes,
 * any attribute order) and decodes numeric character references, which
 * that lexer leaves as they are (no writer produces them).  Blanks before
 * the XML declaration are dropped (XML forbids them there; line numbers
 * still count them).  Unquoted attribute values in <cubepl>,
 * <cubeplinit> and <cubeplaggr> tags (rowwise=false, cubeplaggrtype=plus,
 * as one writer produces them) get quotes before the text reaches the
 * XML parser.  Unknown elements are skipped with everything inside
 * (counted, for one warning by the caller), unknown attributes ignored.
 * Text is kept verbatim (CDATA included; newlines are not folded into a
 * blank as the reference reader does).  A CUBE 3 document (version 3.0)
 * reads too: its <machine> and <node> become system tree nodes of class
 * "machine" and "node", <process> a location group of type "process",
 * <thread> a location of type "thread" keeping its Id (a rank left out
 * is 0 there), and its inline <severity> section is skipped (has_severity).
 *
 * Errors: CUBE_EFORMAT "FILE: member anchor.xml: line N: what was
 * expected" (missing or malformed required attributes, a calleeId naming
 * no region, duplicate metric, region, cnode or location ids, location
 * ids other than 0 ... L-1, unknown location or location group types, an
 * empty location group, a region after the first cnode, a location after
 * the topologies, a <cart> whose <dim>s do not match ndims, a coordinate
 * outside its dimension or naming no entity, a DOCTYPE, XML that is not
 * well-formed, a truncated document; without "line N: " for gzip data
 * that is corrupt or ends early),
 * CUBE_EUNSUPPORTED for a <cube version> other than 3.0 and 4.0 ... 4.5,
 * CUBE_EIO, CUBE_ENOMEM.  Every count and number is checked before use.
 */
#ifndef LIBCUBE_CUBEX_ANCHOR_H
#define LIBCUBE_CUBEX_ANCHOR_H

#include "cube.h"
#include "core/util_private.h"
#include "cubex/binary_private.h"
#include "cubex/tar_private.h"

#include <stddef.h>
#include <stdint.h>

/* "No parent", "absent" for the size_t indexes below. */
#define CUBEX_NONE SIZE_MAX

/* An <attr key=".." value=".."/>: a free key/value pair attached to the
 * whole experiment or to one entity (e.g. "Creator" = "Score-P 8.4"). */
typedef struct {
    char *key;
    char *value;
} cubex_attr;

typedef struct {
    cubex_attr *items; /* in document order; a key may repeat */
    size_t n;
} cubex_attrs;

/* How a metric's stored values relate to the call tree, and whether it has
 * stored values at all (the <metric type> attribute; missing or unknown
 * text means EXCLUSIVE). */
typedef enum {
    CUBEX_METRIC_EXCLUSIVE,  /* stored per call path exclusive; index in pre-order */
    CUBEX_METRIC_INCLUSIVE,  /* stored call-tree inclusive; index in "wide" order */
    CUBEX_METRIC_SIMPLE,     /* stored; read like INCLUSIVE by the reference library */
    CUBEX_METRIC_PREDERIVED_EXCLUSIVE, /* computed by CubePL, no members */
    CUBEX_METRIC_PREDERIVED_INCLUSIVE, /* computed by CubePL, no members */
    CUBEX_METRIC_POSTDERIVED           /* computed by CubePL (alias DERIVED), no members */
} cubex_metric_type;

/* The enumeration of the call tree a metric's index ordinals refer to:
 * pre-order for EXCLUSIVE, the wide order for INCLUSIVE and SIMPLE (the
 * kinds without members have none; pre-order is answered). */
cubex_order cubex_metric_order(cubex_metric_type type);

/* A CubePL program element (<cubepl>, <cubeplinit>, <cubeplaggr>): its
 * source text verbatim, and the element's attributes in document order
 * (rowwise, locationwise, cubeplaggrtype: values as written, quoted or
 * not). */
typedef struct {
    char *text;
    cubex_attrs attrs;
} cubex_cubepl;

typedef struct {
    uint64_t id;          /* the id attribute: names the data members <id>.index/.data */
    size_t parent;        /* index of the parent metric, CUBEX_NONE for a root */
    cubex_metric_type type;
    char *type_text;      /* the type attribute as written, NULL when absent */
    int ghost;            /* viztype="GHOST": hidden, members named ghost_<id>.* */
    char *viztype_text;   /* the viztype attribute as written, NULL when absent */
    int convertible;      /* convertible="true"/"false": 1/0; -1 when absent */
    int cacheable;        /* cacheable="true"/"false": 1/0; -1 when absent */
    char *disp_name;      /* display name; "" when absent (also below) */
    char *uniq_name;      /* unique name (not guaranteed unique: key by id) */
    char *dtype_text;     /* <dtype> verbatim ("UINT64", "NDOUBLES(10)", ...) */
    int dtype_known;      /* dtype_text names a value type; else DOUBLE is meant */
    cubex_dtype dtype;    /* the parsed type (DOUBLE when unknown) */
    char *uom;            /* unit of measurement */
    char *val;            /* <val>: "VOID" marks an inactive metric; NULL when absent */
    char *url;            /* documentation URL, may start with the "@mirror@" placeholder */
    char *descr;          /* description */
    cubex_cubepl *cubepl;     /* the derived metric's expression, NULL when absent */
    cubex_cubepl *cubeplinit; /* its initialisation program, NULL when absent */
    cubex_cubepl *aggr;       /* <cubeplaggr> programs, num_aggr of them */
    size_t num_aggr;
    cubex_attrs attrs;
} cubex_metric_def;

/* A region (function, loop, ...): what a cnode calls.  Absent children
 * get the defaults the format gives them. */
typedef struct {
    int64_t id;          /* the id attribute, the target of a cnode's calleeId */
    char *name;
    char *mangled_name;  /* the name when absent */
    char *mod;           /* source file ("" when absent) */
    int64_t begin, end;  /* source lines, -1 when absent */
    char *paradigm;      /* "compiler", "mpi", "openmp", ...; "unknown" when absent */
    char *role;          /* "function", "loop", ...; "unknown" when absent */
    char *url;
    char *descr;
    cubex_attrs attrs;
} cubex_region_def;

/* A call path parameter: <parameter partype="numeric|string" parkey parvalue/>. */
typedef struct {
    int numeric;   /* partype="numeric" (value is a decimal number) else "string" */
    char *key;
    char *value;   /* as written */
} cubex_param;

typedef struct {
    int64_t id;          /* the id attribute: what tools and the API report */
    size_t parent;       /* index of the parent cnode, CUBEX_NONE for a root */
    size_t region;       /* index into the regions of calleeId */
    int64_t line;        /* call site line, -1 when absent */
    char *mod;           /* call site file, "" when absent */
    cubex_param *params; /* numeric and string parameters, document order */
    size_t num_params;
    cubex_attrs attrs;
} cubex_cnode_def;

/* A node of the system tree (machine, rack, node, ...). */
typedef struct {
    int64_t xml_id;      /* the Id attribute (ignored by the format: the index counts) */
    size_t parent;       /* index of the parent node, CUBEX_NONE for a root */
    char *name;
    char *klass;         /* <class>: free text, "machine", "node", ... */
    char *descr;         /* NULL when absent */
    cubex_attrs attrs;
} cubex_stn_def;

typedef enum {
    CUBEX_LG_PROCESS, CUBEX_LG_METRICS, CUBEX_LG_ACCELERATOR
} cubex_lg_type;

/* A location group (an MPI process, ...) below a system tree node. */
typedef struct {
    int64_t xml_id;      /* the Id attribute (ignored by the format) */
    size_t stn;          /* index of its system tree node */
    char *name;
    int64_t rank;        /* <rank>, non-negative */
    cubex_lg_type type;
    char *type_text;     /* <type> as written */
    cubex_attrs attrs;
} cubex_lg_def;

typedef enum { CUBEX_LOC_THREAD, CUBEX_LOC_GPU, CUBEX_LOC_METRIC } cubex_loc_type;

/* A location (thread, GPU stream, metric location): one column of every
 * data row. */
typedef struct {
    int64_t id;          /* the Id attribute: the location's column in data rows */
    size_t group;        /* index of its location group */
    char *name;
    int64_t rank;        /* <rank> within its group */
    cubex_loc_type type;
    char *type_text;     /* <type> as written */
    cubex_attrs attrs;
} cubex_loc_def;

/* The entity a coordinate belongs to, by the attribute naming it. */
typedef enum {
    CUBEX_COORD_LOCATION,   /* locId (a location id) */
    CUBEX_COORD_GROUP,      /* lgId (a location group index) */
    CUBEX_COORD_STN,        /* stnId (a system tree node index) */
    CUBEX_COORD_THREAD,     /* thrdId, procId, nodeId, machId: the CUBE 3 names */
    CUBEX_COORD_PROCESS,
    CUBEX_COORD_NODE,
    CUBEX_COORD_MACHINE
} cubex_coord_kind;

typedef struct {
    char *name;          /* NULL when absent */
    int64_t size;        /* > 0 */
    int periodic;        /* periodic="true" */
    char *periodic_text; /* as written */
} cubex_dim;

typedef struct {
    cubex_coord_kind kind;
    int64_t id;          /* the attribute's value */
    int64_t *c;          /* ndims coordinates, each below its dimension's size */
} cubex_coord;

typedef struct {
    char *name;          /* NULL when absent */
    size_t ndims;
    cubex_dim *dims;
    cubex_coord *coords;
    size_t num_coords;
} cubex_cart_def;

typedef struct {
    char *version;        /* the <cube version> attribute ("4.4") */
    cubex_attrs attrs;    /* the experiment's attributes */
    char **mirrors;       /* <murl> base URLs, num_mirrors of them */
    size_t num_mirrors;
    char *metrics_title, *program_title, *system_title; /* title attributes, NULL when absent */
    cubex_metric_def *metrics;  size_t num_metrics;
    cubex_region_def *regions;  size_t num_regions;
    cubex_cnode_def *cnodes;    size_t num_cnodes;
    cubex_stn_def *stns;        size_t num_stns;
    cubex_lg_def *groups;       size_t num_groups;
    cubex_loc_def *locations;   size_t num_locations; /* document order; ids are 0..n-1 */
    cubex_cart_def *carts;      size_t num_carts;
    int gzip;                   /* the member was gzip-compressed */
    int has_severity;           /* a CUBE 3 style <severity> section was present (skipped) */
    size_t unknown_elements;    /* elements skipped as unknown */
    char first_unknown[64];     /* the first of them */
    long first_unknown_line;
    size_t *location_by_id;     /* num_locations entries: id -> index */
    arena strings;              /* the strings and the per-entity arrays (attrs, parameters,
                                 * programs, dims, coordinates) live here; the entity arrays
                                 * are malloc()ed */
} cubex_anchor;

/* Read and parse member `m` (normally cubex_tar_find(t, "anchor.xml")) of
 * archive t.  NULL with status set on error. */
cubex_anchor *cubex_anchor_read(const cubex_tar *t, const cubex_member *m, cube_status *status);
/* Parse an anchor held in memory (plain or gzip-compressed); `file` names
 * it in messages.  NULL with status set on error. */
cubex_anchor *cubex_anchor_parse(const void *data, size_t size, const char *file,
                                 cube_status *status);
void cubex_anchor_free(cubex_anchor *a);

/* The index of the location with id `id`, CUBEX_NONE when there is none. */
size_t cubex_anchor_location(const cubex_anchor *a, int64_t id);

#endif
