/*
 * anchor.c - the definitions member of a CUBE 4 archive (anchor.xml),
 * parsed by libxml2's SAX2 push parser into the records of
 * anchor_private.h.
 *
 * The bytes pass three stages on their way to the parser: gzip inflation
 * when the member starts with the gzip magic, a filter that puts quotes
 * around the unquoted attribute values one writer puts into <cubepl...>
 * tags (XML requires quotes; the filter adds no newline, so line numbers
 * stay those of the file), and libxml2.  The member is read in chunks:
 * memory holds the definitions, never the whole text.
 */
#include "cubex/anchor_private.h"

#include "core/number_private.h"
#include "core/status_private.h"

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#define CHUNK 65536

/* ---- growable arrays ------------------------------------------------------ */

typedef struct {
    void *p;
    size_t n, cap;
} vec;

/* A new zeroed element at the end of v, NULL when out of memory. */
static void *vec_push(vec *v, size_t size)
{
    void *p = grow_array(v->p, v->n, &v->cap, size, 8);
    if (!p)
        return NULL;
    v->p = p;
    void *e = (char *)p + v->n++ * size;
    memset(e, 0, size);
    return e;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* ---- the parser's state ----------------------------------------------------- */

typedef enum {
    E_CUBE, E_DOC, E_MIRRORS, E_METRICS, E_METRIC, E_CUBEPL, E_PROGRAM, E_REGION, E_CNODE,
    E_SYSTEM, E_STN, E_LG, E_LOC, E_TOPOS, E_CART, E_COORD, E_TEXT, E_EMPTY, E_SKIP
} ekind;

typedef struct {
    ekind kind;
    char name[16];   /* the element's name (cut short), for messages and text fields */
    size_t index;    /* the entity's index in its array */
    long line;       /* where the element starts */
    vec attrs;       /* cubex_attr: the entity's <attr>s, or a CubePL element's attributes */
    vec more;        /* cubex_param (cnode), cubex_cubepl (metric), cubex_dim (cart) */
    vec coords;      /* cubex_coord (cart) */
    size_t children; /* locations of a location group */
} frame;

typedef struct {
    cubex_anchor *a;
    const char *file;
    const char *member;
    cube_status *status;
    int failed;
    xmlParserCtxtPtr xml;
    char xml_error[300];
    long xml_error_line;
    frame *stack;
    size_t depth, cap;
    int root_seen, root_closed;
    strbuf text;
    vec metrics, regions, cnodes, stns, groups, locs, carts, mirrors;
    vec metric_lines, region_lines, cnode_lines, loc_lines; /* long: where each starts */
    /* region ids sorted, for calleeId lookups (built at the first cnode) */
    int64_t *region_ids;
    size_t *region_index;
    char *no_mod; /* the module of the cnodes without one: "" */
    /* the unquoted-value filter */
    int fstate;
    char ftag[12];
    size_t ftag_len;
    char fquote;
    size_t tag_bytes;
    uint64_t xml_bytes; /* passed to libxml2 */
    long line_offset; /* newlines the filter dropped before the first tag */
    strbuf filtered;
    /* gzip */
    int gzip, z_ended; /* z_ended: the last gzip stream is complete */
    z_stream z;
    int z_open;
    unsigned char head[2];
    size_t head_len;
} parser;

static long current_line(const parser *p)
{
    return p->xml ? (long)xmlSAX2GetLineNumber(p->xml) + p->line_offset : 0;
}

static void fail_code(parser *p, cube_code code, long line, const char *fmt, ...)
    CUBE_PRINTF(4, 5);
static void fail_code(parser *p, cube_code code, long line, const char *fmt, ...)
{
    if (p->failed)
        return;
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        status_set(p->status, code, "%s: member %s: line %ld: %s", p->file, p->member, line, msg);
    else
        status_set(p->status, code, "%s: member %s: %s", p->file, p->member, msg);
    p->failed = 1;
    if (p->xml)
        xmlStopParser(p->xml);
}

#define fail_at(p, line, ...) fail_code((p), CUBE_EFORMAT, (line), __VA_ARGS__)
#define fail(p, ...) fail_at((p), current_line(p), __VA_ARGS__)
#define fail_oom(p) fail_code((p), CUBE_ENOMEM, 0, "out of memory")

static char *sdup(parser *p, const char *s, size_t n)
{
    char *d = arena_alloc(&p->a->strings, n + 1, 1);
    if (!d) {
        fail_oom(p);
        return NULL;
    }
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* Move a frame's list into the arena: the array, NULL when empty. */
static void *settle(parser *p, vec *v, size_t size)
{
    void *out = NULL;
    if (v->n && !p->failed) {
        out = arena_alloc(&p->a->strings, v->n * size, _Alignof(max_align_t));
        if (!out)
            fail_oom(p);
        else
            memcpy(out, v->p, v->n * size);
    }
    free(v->p);
    v->p = NULL;
    v->cap = 0;
    return out;
}

static void settle_attrs(parser *p, frame *f, cubex_attrs *out)
{
    out->n = f->attrs.n;
    out->items = settle(p, &f->attrs, sizeof(cubex_attr));
    if (!out->items)
        out->n = 0;
}

/* libxml2 2.12 made the error argument const. */
#if LIBXML_VERSION >= 21200
typedef const xmlError *xml_error_arg;
#else
typedef xmlError *xml_error_arg;
#endif

static void on_xml_error(void *ctx, xml_error_arg err)
{
    parser *p = ctx;
    if (!err || err->level == XML_ERR_WARNING || p->xml_error[0])
        return;
    snprintf(p->xml_error, sizeof p->xml_error, "%s", err->message ? err->message : "error");
    /* one line per message */
    for (char *c = p->xml_error; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    size_t n = strlen(p->xml_error);
    while (n && p->xml_error[n - 1] == ' ')
        p->xml_error[--n] = '\0';
    p->xml_error_line = err->line + p->line_offset;
}

/* ---- attributes -------------------------------------------------------------- */

/* SAX2 attributes come as (localname, prefix, URI, value, end) tuples
 * whose values are not NUL-terminated.  The tuple number of attribute
 * `name`, or -1 when absent. */
static int attr_at(const xmlChar **at, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp((const char *)at[5 * i], name) == 0)
            return i;
    return -1;
}

/* The value of tuple i (>= 0) as a copy into the arena, NULL when failed. */
static char *attr_value(parser *p, const xmlChar **at, int i)
{
    return sdup(p, (const char *)at[5 * i + 3], (size_t)(at[5 * i + 4] - at[5 * i + 3]));
}

/* Attribute `name`: a copy into the arena, NULL when absent (or failed). */
static char *attr(parser *p, const xmlChar **at, int n, const char *name)
{
    int i = attr_at(at, n, name);
    return i < 0 ? NULL : attr_value(p, at, i);
}

/* The integer value of tuple i (-1: absent): 1 found, 0 absent (*out =
 * dflt), -1 after a failure.  `nonneg` asks for a non-negative decimal.
 * A value of a usual length is parsed from a copy on the stack: ids are
 * most of the attributes, and the arena would keep every copy. */
static int int_value(parser *p, const xmlChar **at, int i, const char *elem, const char *name,
                     int nonneg, int64_t dflt, int64_t *out)
{
    *out = dflt;
    if (i < 0)
        return 0;
    char buf[64], *v = buf;
    size_t len = (size_t)(at[5 * i + 4] - at[5 * i + 3]);
    if (len < sizeof buf) {
        memcpy(buf, at[5 * i + 3], len);
        buf[len] = '\0';
    } else if (!(v = attr_value(p, at, i))) {
        return -1;
    }
    long l;
    int64_t u;
    if (nonneg ? parse_id(v, &u) != 0 : parse_long(v, &l) != 0) {
        fail(p, "<%s %s=...> must be a%s decimal integer, found \"%.40s\"", elem, name,
             nonneg ? " non-negative" : "", v);
        return -1;
    }
    *out = nonneg ? u : (int64_t)l;
    return 1;
}

/* Integer attribute `name`, as int_value. */
static int int_attr(parser *p, const xmlChar **at, int n, const char *elem, const char *name,
                    int nonneg, int64_t dflt, int64_t *out)
{
    return int_value(p, at, attr_at(at, n, name), elem, name, nonneg, dflt, out);
}

/* A non-negative integer attribute that must be there (tuple i, -1:
 * absent); 0, or -1 after failing. */
static int required_value(parser *p, const xmlChar **at, int i, const char *elem,
                          const char *name, int64_t *out)
{
    int rc = int_value(p, at, i, elem, name, 1, 0, out);
    if (rc == 0)
        fail(p, "<%s> needs an attribute %s, found none", elem, name);
    return rc == 1 ? 0 : -1;
}

static int required_int(parser *p, const xmlChar **at, int n, const char *elem,
                        const char *name, int64_t *out)
{
    return required_value(p, at, attr_at(at, n, name), elem, name, out);
}

/* "true"/"false" in any case: 1/0; -1 when absent, -2 for anything else. */
static int bool_text(const char *v)
{
    if (!v)
        return -1;
    if (strcasecmp(v, "true") == 0)
        return 1;
    if (strcasecmp(v, "false") == 0)
        return 0;
    return -2;
}

/* ---- the stack ------------------------------------------------------------------ */

static frame *push(parser *p, ekind kind, const char *name, size_t index)
{
    if (p->depth == p->cap) {
        frame *s = grow_array(p->stack, p->depth, &p->cap, sizeof *s, 32);
        if (!s) {
            fail_oom(p);
            return NULL;
        }
        p->stack = s;
    }
    frame *f = &p->stack[p->depth++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    /* cut short as snprintf would, without its cost on every element */
    size_t len = strnlen(name, sizeof f->name - 1);
    memcpy(f->name, name, len);
    f->name[len] = '\0';
    f->index = index;
    f->line = current_line(p);
    return f;
}

static void release(frame *f)
{
    free(f->attrs.p);
    free(f->more.p);
    free(f->coords.p); /* the coordinates' arrays live in the arena */
}

/* Remember the line of the entity just added (for messages about ids). */
static int push_line(parser *p, vec *lines)
{
    long *l = vec_push(lines, sizeof *l);
    if (!l) {
        fail_oom(p);
        return -1;
    }
    *l = current_line(p);
    return 0;
}

static void skip_unknown(parser *p, const char *name)
{
    cubex_anchor *a = p->a;
    if (!a->unknown_elements++) {
        snprintf(a->first_unknown, sizeof a->first_unknown, "%s", name);
        a->first_unknown_line = current_line(p);
    }
    push(p, E_SKIP, name, 0);
}

static int index_locations(parser *p);
static void check_coord(parser *p, const cubex_coord *c);

/* ---- starting elements ---------------------------------------------------------- */

/* The versions of the definitions' syntax the format knows: one grammar
 * for all of them, later ones only adding optional parts. */
static const char *const known_versions[] = {"3.0", "4.0", "4.1", "4.2", "4.3", "4.4", "4.5", NULL};

static void start_cube(parser *p, const xmlChar **at, int n)
{
    char *v = attr(p, at, n, "version");
    if (p->failed)
        return;
    if (!v) {
        fail(p, "<cube> needs an attribute version, found none");
        return;
    }
    size_t i = 0;
    while (known_versions[i] && strcmp(known_versions[i], v) != 0)
        i++;
    if (!known_versions[i]) {
        fail_code(p, CUBE_EUNSUPPORTED, current_line(p),
                  "unsupported CUBE version \"%.40s\" (expected 3.0 or 4.0 ... 4.5)", v);
        return;
    }
    p->a->version = v;
    push(p, E_CUBE, "cube", 0);
}

/* <attr key value/> of the entity of frame f. */
static void start_attr(parser *p, frame *f, const xmlChar **at, int n)
{
    char *k = attr(p, at, n, "key"), *v = attr(p, at, n, "value");
    if (p->failed)
        return;
    if (!k || !v) {
        fail(p, "<attr> needs the attributes key and value");
        return;
    }
    cubex_attr *e = vec_push(&f->attrs, sizeof *e);
    if (!e) {
        fail_oom(p);
        return;
    }
    e->key = k;
    e->value = v;
    push(p, E_EMPTY, "attr", 0);
}

static void start_metric(parser *p, size_t parent, const xmlChar **at, int n)
{
    cubex_metric_def *m = vec_push(&p->metrics, sizeof *m);
    if (!m) {
        fail_oom(p);
        return;
    }
    size_t index = p->metrics.n - 1;
    m->parent = parent;
    if (push_line(p, &p->metric_lines) != 0)
        return;
    int64_t id;
    if (required_int(p, at, n, "metric", "id", &id) != 0)
        return;
    m->id = (uint64_t)id;
    m->type_text = attr(p, at, n, "type");
    m->viztype_text = attr(p, at, n, "viztype");
    char *conv = attr(p, at, n, "convertible"), *cache = attr(p, at, n, "cacheable");
    if (p->failed)
        return;
    static const struct { const char *text; cubex_metric_type type; } types[] = {
        {"EXCLUSIVE", CUBEX_METRIC_EXCLUSIVE}, {"INCLUSIVE", CUBEX_METRIC_INCLUSIVE},
        {"SIMPLE", CUBEX_METRIC_SIMPLE},
        {"PREDERIVED_EXCLUSIVE", CUBEX_METRIC_PREDERIVED_EXCLUSIVE},
        {"PREDERIVED_INCLUSIVE", CUBEX_METRIC_PREDERIVED_INCLUSIVE},
        {"POSTDERIVED", CUBEX_METRIC_POSTDERIVED}, {"DERIVED", CUBEX_METRIC_POSTDERIVED}};
    m->type = CUBEX_METRIC_EXCLUSIVE; /* what a missing or unknown type means */
    for (size_t i = 0; m->type_text && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(m->type_text, types[i].text) == 0)
            m->type = types[i].type;
    m->ghost = m->viztype_text && strcmp(m->viztype_text, "GHOST") == 0;
    m->convertible = bool_text(conv);
    m->cacheable = bool_text(cache);
    if (m->convertible == -2 || m->cacheable == -2) {
        fail(p, "<metric id=\"%lld\">: convertible and cacheable must be \"true\" or \"false\"",
             (long long)id);
        return;
    }
    push(p, E_METRIC, "metric", index);
}

static void start_region(parser *p, const xmlChar **at, int n)
{
    if (p->cnodes.n) {
        fail(p, "<region> after the first <cnode>: regions come first");
        return;
    }
    cubex_region_def *r = vec_push(&p->regions, sizeof *r);
    if (!r) {
        fail_oom(p);
        return;
    }
    size_t index = p->regions.n - 1;
    if (push_line(p, &p->region_lines) != 0)
        return;
    if (required_int(p, at, n, "region", "id", &r->id) != 0 ||
        int_attr(p, at, n, "region", "begin", 0, -1, &r->begin) < 0 ||
        int_attr(p, at, n, "region", "end", 0, -1, &r->end) < 0)
        return;
    r->mod = attr(p, at, n, "mod");
    push(p, E_REGION, "region", index);
}

typedef struct {
    int64_t id;
    size_t i;
} id_pair;
static int check_unique(parser *p, id_pair *pairs, size_t n, const long *lines, const char *what);

/* Sort the region ids once, when the first cnode needs them (all regions
 * precede all cnodes), or at the end; a duplicate id is an error. */
static int index_regions(parser *p)
{
    size_t n = p->regions.n;
    const cubex_region_def *r = p->regions.p;
    id_pair *pairs = malloc((n ? n : 1) * sizeof *pairs);
    p->region_ids = malloc((n ? n : 1) * sizeof *p->region_ids);
    p->region_index = malloc((n ? n : 1) * sizeof *p->region_index);
    if (!pairs || !p->region_ids || !p->region_index) {
        free(pairs);
        fail_oom(p);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        pairs[i] = (id_pair){r[i].id, i};
    int rc = check_unique(p, pairs, n, p->region_lines.p, "region");
    for (size_t i = 0; i < n && rc == 0; i++) {
        p->region_ids[i] = pairs[i].id;
        p->region_index[i] = pairs[i].i;
    }
    free(pairs);
    return rc;
}

static size_t find_region(const parser *p, int64_t id)
{
    /* ids 0 .. n-1, as writers number them: the sorted ids are their places */
    if (id >= 0 && (uint64_t)id < p->regions.n && p->region_ids[id] == id)
        return p->region_index[id];
    size_t lo = 0, hi = p->regions.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->region_ids[mid] < id)
            lo = mid + 1;
        else if (p->region_ids[mid] > id)
            hi = mid;
        else
            return p->region_index[mid];
    }
    return CUBEX_NONE;
}

static void start_cnode(parser *p, size_t parent, const xmlChar **at, int n)
{
    if (!p->region_ids && index_regions(p) != 0)
        return;
    cubex_cnode_def *c = vec_push(&p->cnodes, sizeof *c);
    if (!c) {
        fail_oom(p);
        return;
    }
    size_t index = p->cnodes.n - 1;
    c->parent = parent;
    if (push_line(p, &p->cnode_lines) != 0)
        return;
    /* the attributes found in one pass: a call tree has many cnodes */
    int id = -1, callee_at = -1, line = -1, mod = -1;
    for (int i = n; i-- > 0;) { /* backwards: the first of a repeated name wins */
        const char *name = (const char *)at[5 * i];
        if (!strcmp(name, "id"))
            id = i;
        else if (!strcmp(name, "calleeId"))
            callee_at = i;
        else if (!strcmp(name, "line"))
            line = i;
        else if (!strcmp(name, "mod"))
            mod = i;
    }
    int64_t callee;
    if (required_value(p, at, id, "cnode", "id", &c->id) != 0 ||
        required_value(p, at, callee_at, "cnode", "calleeId", &callee) != 0 ||
        int_value(p, at, line, "cnode", "line", 0, -1, &c->line) < 0)
        return;
    /* no module: one shared empty string */
    if (mod < 0 && !p->no_mod)
        p->no_mod = sdup(p, "", 0);
    c->mod = mod < 0 ? p->no_mod : attr_value(p, at, mod);
    if (p->failed)
        return;
    c->region = find_region(p, callee);
    if (c->region == CUBEX_NONE) {
        fail(p, "<cnode id=\"%lld\">: calleeId %lld names no region", (long long)c->id,
             (long long)callee);
        return;
    }
    push(p, E_CNODE, "cnode", index);
}

static void start_parameter(parser *p, frame *f, const xmlChar **at, int n)
{
    char *type = attr(p, at, n, "partype"), *key = attr(p, at, n, "parkey"),
         *value = attr(p, at, n, "parvalue");
    if (p->failed)
        return;
    if (!type || !key || !value || (strcmp(type, "numeric") != 0 && strcmp(type, "string") != 0)) {
        fail(p, "<parameter> needs partype=\"numeric\" or \"string\", parkey and parvalue");
        return;
    }
    cubex_param *e = vec_push(&f->more, sizeof *e);
    if (!e) {
        fail_oom(p);
        return;
    }
    e->numeric = strcmp(type, "numeric") == 0;
    e->key = key;
    e->value = value;
    push(p, E_EMPTY, "parameter", 0);
}

/* <systemtreenode>, or the CUBE 3 <machine> and <node> (elem), whose
 * class their name gives. */
static void start_stn(parser *p, const char *elem, size_t parent, const xmlChar **at, int n)
{
    cubex_stn_def *s = vec_push(&p->stns, sizeof *s);
    if (!s) {
        fail_oom(p);
        return;
    }
    size_t index = p->stns.n - 1;
    s->parent = parent;
    if (required_int(p, at, n, elem, "Id", &s->xml_id) != 0)
        return;
    if (strcmp(elem, "systemtreenode") != 0)
        s->klass = sdup(p, elem, strlen(elem));
    push(p, E_STN, elem, index);
}

/* <locationgroup>, or the CUBE 3 <process> (elem): a process whose rank
 * may be left out (0). */
static void start_group(parser *p, const char *elem, frame *f, const xmlChar **at, int n)
{
    cubex_lg_def *g = vec_push(&p->groups, sizeof *g);
    if (!g) {
        fail_oom(p);
        return;
    }
    size_t index = p->groups.n - 1;
    g->stn = f->index;
    g->rank = -1;
    if (required_int(p, at, n, elem, "Id", &g->xml_id) != 0)
        return;
    if (strcmp(elem, "process") == 0) {
        g->rank = 0;
        g->type_text = sdup(p, elem, strlen(elem));
    }
    push(p, E_LG, elem, index);
}

/* <location>, or the CUBE 3 <thread> (elem): a thread whose rank may be
 * left out (0). */
static void start_location(parser *p, const char *elem, frame *f, const xmlChar **at, int n)
{
    if (p->a->location_by_id) { /* the columns were counted at <topologies> */
        fail(p, "<%s> after <topologies>: the system tree comes first", elem);
        return;
    }
    cubex_loc_def *l = vec_push(&p->locs, sizeof *l);
    if (!l) {
        fail_oom(p);
        return;
    }
    size_t index = p->locs.n - 1;
    l->group = f->index;
    l->rank = -1;
    f->children++;
    if (push_line(p, &p->loc_lines) != 0)
        return;
    if (required_int(p, at, n, elem, "Id", &l->id) != 0)
        return;
    if (strcmp(elem, "thread") == 0) {
        l->rank = 0;
        l->type_text = sdup(p, elem, strlen(elem));
    }
    push(p, E_LOC, elem, index);
}

static void start_cart(parser *p, const xmlChar **at, int n)
{
    cubex_cart_def *c = vec_push(&p->carts, sizeof *c);
    if (!c) {
        fail_oom(p);
        return;
    }
    size_t index = p->carts.n - 1;
    int64_t ndims;
    if (required_int(p, at, n, "cart", "ndims", &ndims) != 0)
        return;
    /* a dimension costs a few bytes of text each: more than a tag can
     * hold is not a real file */
    if (ndims < 1 || ndims > 65536) {
        fail(p, "<cart ndims=...> must be between 1 and 65536, found %lld", (long long)ndims);
        return;
    }
    c->ndims = (size_t)ndims;
    c->name = attr(p, at, n, "name");
    push(p, E_CART, "cart", index);
}

static void start_dim(parser *p, frame *f, const xmlChar **at, int n)
{
    cubex_dim *d = vec_push(&f->more, sizeof *d);
    if (!d) {
        fail_oom(p);
        return;
    }
    if (required_int(p, at, n, "dim", "size", &d->size) != 0)
        return;
    if (d->size < 1) {
        fail(p, "<dim size=...> must be positive, found %lld", (long long)d->size);
        return;
    }
    d->name = attr(p, at, n, "name");
    d->periodic_text = attr(p, at, n, "periodic");
    if (p->failed)
        return;
    int b = bool_text(d->periodic_text);
    if (b == -2) {
        fail(p, "<dim periodic=...> must be \"true\" or \"false\", found \"%.40s\"",
             d->periodic_text);
        return;
    }
    d->periodic = b == 1;
    push(p, E_EMPTY, "dim", 0);
}

static const char *const coord_attrs[] = {"locId", "lgId", "stnId", "thrdId", "procId",
                                          "nodeId", "machId", NULL};

static void start_coord(parser *p, frame *f, const xmlChar **at, int n)
{
    cubex_coord *c = vec_push(&f->coords, sizeof *c);
    if (!c) {
        fail_oom(p);
        return;
    }
    int found = 0;
    for (int k = 0; coord_attrs[k] && !found && !p->failed; k++) {
        int rc = int_attr(p, at, n, "coord", coord_attrs[k], 1, 0, &c->id);
        if (rc == 1) {
            c->kind = (cubex_coord_kind)k;
            found = 1;
        }
    }
    if (p->failed)
        return;
    if (!found) {
        fail(p, "<coord> needs one of the attributes locId, lgId, stnId (or the CUBE 3 "
                "thrdId, procId, nodeId, machId), found none");
        return;
    }
    strbuf_clear(&p->text);
    push(p, E_COORD, "coord", f->coords.n - 1);
}

/* <cubepl>, <cubeplinit>, <cubeplaggr>: text and attributes, both kept. */
static void start_cubepl(parser *p, const char *name, const xmlChar **at, int n)
{
    frame *f = push(p, E_CUBEPL, name, 0);
    if (!f)
        return;
    for (int i = 0; i < n && !p->failed; i++) {
        cubex_attr *e = vec_push(&f->attrs, sizeof *e);
        if (!e) {
            fail_oom(p);
            return;
        }
        const char *k = (const char *)at[5 * i];
        e->key = sdup(p, k, strlen(k));
        e->value = sdup(p, (const char *)at[5 * i + 3], (size_t)(at[5 * i + 4] - at[5 * i + 3]));
    }
    strbuf_clear(&p->text);
}

/* The text children each entity has. */
static int is_text_child(ekind parent, const char *name)
{
    static const char *const metric[] = {"disp_name", "uniq_name", "dtype", "uom", "val",
                                         "url", "descr", NULL};
    static const char *const region[] = {"name", "mangled_name", "paradigm", "role", "url",
                                         "descr", NULL};
    static const char *const stn[] = {"name", "class", "descr", NULL};
    static const char *const lg[] = {"name", "rank", "type", NULL};
    static const char *const mirrors[] = {"murl", NULL};
    const char *const *list = parent == E_METRIC    ? metric
                              : parent == E_REGION  ? region
                              : parent == E_STN     ? stn
                              : parent == E_LG || parent == E_LOC ? lg
                              : parent == E_MIRRORS ? mirrors
                                                    : NULL;
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

/* A child of an entity or section frame f; 0 when the name is not one. */
static int start_child(parser *p, frame *f, const char *name, const xmlChar **at, int n)
{
    if (strcmp(name, "attr") == 0 &&
        (f->kind == E_CUBE || f->kind == E_METRIC || f->kind == E_REGION ||
         f->kind == E_CNODE || f->kind == E_STN || f->kind == E_LG || f->kind == E_LOC)) {
        start_attr(p, f, at, n);
        return 1;
    }
    if (is_text_child(f->kind, name)) {
        strbuf_clear(&p->text);
        push(p, E_TEXT, name, 0);
        return 1;
    }
    switch (f->kind) {
    case E_CUBE:
        if (strcmp(name, "doc") == 0)
            push(p, E_DOC, name, 0);
        else if (strcmp(name, "metrics") == 0 || strcmp(name, "program") == 0 ||
                 strcmp(name, "system") == 0) {
            char *title = attr(p, at, n, "title");
            char **slot = name[0] == 'm' ? &p->a->metrics_title
                          : name[0] == 'p' ? &p->a->program_title : &p->a->system_title;
            *slot = title;
            push(p, name[0] == 'm' ? E_METRICS : name[0] == 'p' ? E_PROGRAM : E_SYSTEM, name, 0);
        } else if (strcmp(name, "severity") == 0) {
            p->a->has_severity = 1;
            push(p, E_SKIP, name, 0);
        } else
            return 0;
        return 1;
    case E_DOC:
        if (strcmp(name, "mirrors") != 0)
            return 0;
        push(p, E_MIRRORS, name, 0);
        return 1;
    case E_METRICS:
    case E_METRIC:
        if (strcmp(name, "metric") == 0)
            start_metric(p, f->kind == E_METRIC ? f->index : CUBEX_NONE, at, n);
        else if (f->kind == E_METRIC && strncmp(name, "cubepl", 6) == 0 &&
                 (!name[6] || !strcmp(name + 6, "init") || !strcmp(name + 6, "aggr")))
            start_cubepl(p, name, at, n);
        else
            return 0;
        return 1;
    case E_PROGRAM:
    case E_CNODE:
        if (f->kind == E_PROGRAM && strcmp(name, "region") == 0)
            start_region(p, at, n);
        else if (strcmp(name, "cnode") == 0)
            start_cnode(p, f->kind == E_CNODE ? f->index : CUBEX_NONE, at, n);
        else if (f->kind == E_CNODE && strcmp(name, "parameter") == 0)
            start_parameter(p, f, at, n);
        else
            return 0;
        return 1;
    case E_SYSTEM:
    case E_STN:
        /* the CUBE 3 system tree (machine, node, process, thread) is read
         * as the same records */
        if (strcmp(name, "systemtreenode") == 0 ||
            (f->kind == E_SYSTEM && strcmp(name, "machine") == 0) ||
            (f->kind == E_STN && strcmp(name, "node") == 0))
            start_stn(p, name, f->kind == E_STN ? f->index : CUBEX_NONE, at, n);
        else if (f->kind == E_STN &&
                 (strcmp(name, "locationgroup") == 0 || strcmp(name, "process") == 0))
            start_group(p, name, f, at, n);
        else if (f->kind == E_SYSTEM && strcmp(name, "topologies") == 0) {
            /* coordinates name locations: all are defined by now */
            if (index_locations(p) == 0)
                push(p, E_TOPOS, name, 0);
        }
        else
            return 0;
        return 1;
    case E_LG:
        if (strcmp(name, "location") != 0 && strcmp(name, "thread") != 0)
            return 0;
        start_location(p, name, f, at, n);
        return 1;
    case E_TOPOS:
        if (strcmp(name, "cart") != 0)
            return 0;
        start_cart(p, at, n);
        return 1;
    case E_CART:
        if (strcmp(name, "dim") == 0)
            start_dim(p, f, at, n);
        else if (strcmp(name, "coord") == 0)
            start_coord(p, f, at, n);
        else
            return 0;
        return 1;
    default:
        return 0;
    }
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                     const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                     int nb_attributes, int nb_defaulted, const xmlChar **attrs)
{
    (void)prefix, (void)uri, (void)nb_namespaces, (void)namespaces, (void)nb_defaulted;
    parser *p = ctx;
    const char *name = (const char *)localname;
    if (p->failed)
        return;
    if (!p->depth) {
        if (p->root_seen || strcmp(name, "cube") != 0) {
            fail(p, "expected the root element <cube version=\"...\">, found <%.40s>", name);
            return;
        }
        p->root_seen = 1;
        start_cube(p, attrs, nb_attributes);
        return;
    }
    frame *f = &p->stack[p->depth - 1];
    if (f->kind == E_SKIP) { /* inside what is skipped: counted once, at its top */
        push(p, E_SKIP, name, 0);
        return;
    }
    if (f->kind == E_TEXT || f->kind == E_EMPTY || f->kind == E_COORD ||
        f->kind == E_CUBEPL || !start_child(p, f, name, attrs, nb_attributes)) {
        if (!p->failed)
            skip_unknown(p, name);
    }
}

/* ---- ending elements -------------------------------------------------------------- */

/* The text of element `name` into its field of the entity of frame f. */
static void end_text(parser *p, frame *f, const char *name)
{
    char *t = sdup(p, strbuf_str(&p->text), p->text.len);
    if (!t)
        return;
    if (f->kind == E_METRIC) {
        cubex_metric_def *m = (cubex_metric_def *)p->metrics.p + f->index;
        char **slot = !strcmp(name, "disp_name") ? &m->disp_name
                      : !strcmp(name, "uniq_name") ? &m->uniq_name
                      : !strcmp(name, "dtype")     ? &m->dtype_text
                      : !strcmp(name, "uom")       ? &m->uom
                      : !strcmp(name, "val")       ? &m->val
                      : !strcmp(name, "url")       ? &m->url : &m->descr;
        *slot = t;
    } else if (f->kind == E_REGION) {
        cubex_region_def *r = (cubex_region_def *)p->regions.p + f->index;
        char **slot = !strcmp(name, "name")           ? &r->name
                      : !strcmp(name, "mangled_name") ? &r->mangled_name
                      : !strcmp(name, "paradigm")     ? &r->paradigm
                      : !strcmp(name, "role")         ? &r->role
                      : !strcmp(name, "url")          ? &r->url : &r->descr;
        *slot = t;
    } else if (f->kind == E_STN) {
        cubex_stn_def *s = (cubex_stn_def *)p->stns.p + f->index;
        char **slot = !strcmp(name, "name") ? &s->name : !strcmp(name, "class") ? &s->klass
                                                                                : &s->descr;
        *slot = t;
    } else if (f->kind == E_LG || f->kind == E_LOC) {
        cubex_lg_def *g = f->kind == E_LG ? (cubex_lg_def *)p->groups.p + f->index : NULL;
        cubex_loc_def *l = f->kind == E_LOC ? (cubex_loc_def *)p->locs.p + f->index : NULL;
        if (!strcmp(name, "name")) {
            *(g ? &g->name : &l->name) = t;
        } else if (!strcmp(name, "type")) {
            *(g ? &g->type_text : &l->type_text) = t;
        } else {
            /* blanks around the number are layout */
            char digits[24];
            size_t b = strspn(t, " \t\r\n"), e = strlen(t);
            while (e > b && is_blank(t[e - 1]))
                e--;
            if (e - b >= sizeof digits ||
                (memcpy(digits, t + b, e - b), digits[e - b] = '\0',
                 parse_id(digits, g ? &g->rank : &l->rank) != 0))
                fail(p, "<rank> must be a non-negative decimal integer, found \"%.40s\"", t);
        }
    } else if (f->kind == E_MIRRORS) {
        char **slot = vec_push(&p->mirrors, sizeof *slot);
        if (!slot)
            fail_oom(p);
        else
            *slot = t;
    }
}

/* A <coord>'s text: ndims blank-separated integers below their sizes. */
static void end_coord(parser *p, frame *cart_frame, size_t k)
{
    const cubex_cart_def *cart = (cubex_cart_def *)p->carts.p + cart_frame->index;
    const cubex_dim *dims = cart_frame->more.p;
    cubex_coord *c = (cubex_coord *)cart_frame->coords.p + k;
    if (cart_frame->more.n != cart->ndims) {
        fail(p, "<coord> before all %zu <dim>s of its <cart>", cart->ndims);
        return;
    }
    c->c = arena_alloc(&p->a->strings, cart->ndims * sizeof *c->c, _Alignof(int64_t));
    if (!c->c) {
        fail_oom(p);
        return;
    }
    const char *s = strbuf_str(&p->text);
    for (size_t d = 0; d < cart->ndims; d++) {
        while (is_blank(*s))
            s++;
        char num[24];
        size_t len = strcspn(s, " \t\r\n");
        int64_t v = -1;
        if (len && len < sizeof num) {
            memcpy(num, s, len);
            num[len] = '\0';
            if (parse_id(num, &v) != 0)
                v = -1;
        }
        if (v < 0 || v >= dims[d].size) {
            fail(p, "<coord>: expected %zu non-negative integers each below its dimension's "
                    "size, found \"%.60s\"", cart->ndims, strbuf_str(&p->text));
            return;
        }
        c->c[d] = v;
        s += len;
    }
    while (is_blank(*s))
        s++;
    if (!*s)
        check_coord(p, c);
    else
        fail(p, "<coord>: expected %zu integers, found more: \"%.60s\"", cart->ndims,
             strbuf_str(&p->text));
}

static void end_cubepl(parser *p, frame *f, frame *metric_frame)
{
    cubex_cubepl prog = {0};
    prog.text = sdup(p, strbuf_str(&p->text), p->text.len);
    settle_attrs(p, f, &prog.attrs);
    if (p->failed)
        return;
    cubex_metric_def *m = (cubex_metric_def *)p->metrics.p + metric_frame->index;
    if (strcmp(f->name, "cubeplaggr") == 0) {
        cubex_cubepl *e = vec_push(&metric_frame->more, sizeof *e);
        if (!e)
            fail_oom(p);
        else
            *e = prog;
        return;
    }
    cubex_cubepl *e = arena_alloc(&p->a->strings, sizeof *e, _Alignof(cubex_cubepl));
    if (!e) {
        fail_oom(p);
        return;
    }
    *e = prog;
    *(strcmp(f->name, "cubepl") == 0 ? &m->cubepl : &m->cubeplinit) = e;
}

/* "" for a text child that was absent. */
static void dflt(parser *p, char **s, const char *value)
{
    if (!*s && !p->failed)
        *s = sdup(p, value, strlen(value));
}

static void end_metric(parser *p, frame *f)
{
    cubex_metric_def *m = (cubex_metric_def *)p->metrics.p + f->index;
    settle_attrs(p, f, &m->attrs);
    m->num_aggr = f->more.n;
    m->aggr = settle(p, &f->more, sizeof(cubex_cubepl));
    char **fields[] = {&m->disp_name, &m->uniq_name, &m->dtype_text, &m->uom, &m->url,
                       &m->descr};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        dflt(p, fields[i], "");
    if (p->failed)
        return;
    m->dtype_known = cubex_dtype_parse(m->dtype_text, &m->dtype) == 0;
    if (!m->dtype_known)
        m->dtype = (cubex_dtype){CUBEX_DOUBLE, 0};
}

static void end_region(parser *p, frame *f)
{
    cubex_region_def *r = (cubex_region_def *)p->regions.p + f->index;
    settle_attrs(p, f, &r->attrs);
    dflt(p, &r->name, "");
    dflt(p, &r->mangled_name, r->name ? r->name : "");
    dflt(p, &r->mod, "");
    dflt(p, &r->paradigm, "unknown");
    dflt(p, &r->role, "unknown");
    dflt(p, &r->url, "");
    dflt(p, &r->descr, "");
}

static void end_group(parser *p, frame *f)
{
    cubex_lg_def *g = (cubex_lg_def *)p->groups.p + f->index;
    settle_attrs(p, f, &g->attrs);
    dflt(p, &g->name, "");
    if (p->failed)
        return;
    static const char *const types[] = {"process", "metrics", "accelerator", NULL};
    size_t k = 0;
    while (g->type_text && types[k] && strcmp(types[k], g->type_text) != 0)
        k++;
    if (!g->type_text || !types[k])
        fail(p, "<%s>: expected <type> process, metrics or accelerator, found %s%.40s%s", f->name,
             g->type_text ? "\"" : "", g->type_text ? g->type_text : "none",
             g->type_text ? "\"" : "");
    else if (g->rank < 0)
        fail(p, "<%s>: expected a <rank>, found none", f->name);
    else if (!f->children)
        fail(p, "<%s> without <location>: expected at least one", f->name);
    else
        g->type = (cubex_lg_type)k;
}

static void end_location(parser *p, frame *f)
{
    cubex_loc_def *l = (cubex_loc_def *)p->locs.p + f->index;
    settle_attrs(p, f, &l->attrs);
    dflt(p, &l->name, "");
    if (p->failed)
        return;
    static const char *const types[] = {"thread", "gpu", "metric", NULL};
    size_t k = 0;
    while (l->type_text && types[k] && strcmp(types[k], l->type_text) != 0)
        k++;
    if (!l->type_text || !types[k])
        fail(p, "<%s Id=\"%lld\">: expected <type> thread, gpu or metric, found %s%.40s%s",
             f->name, (long long)l->id, l->type_text ? "\"" : "", l->type_text ? l->type_text : "none",
             l->type_text ? "\"" : "");
    else if (l->rank < 0)
        fail(p, "<%s Id=\"%lld\">: expected a <rank>, found none", f->name, (long long)l->id);
    else
        l->type = (cubex_loc_type)k;
}

static void end_cart(parser *p, frame *f)
{
    cubex_cart_def *c = (cubex_cart_def *)p->carts.p + f->index;
    if (f->more.n != c->ndims) {
        fail(p, "<cart ndims=\"%zu\"> has %zu <dim>s", c->ndims, f->more.n);
        return;
    }
    c->num_coords = f->coords.n;
    c->dims = settle(p, &f->more, sizeof(cubex_dim));
    c->coords = settle(p, &f->coords, sizeof(cubex_coord));
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                   const xmlChar *uri)
{
    (void)localname, (void)prefix, (void)uri;
    parser *p = ctx;
    if (p->failed || !p->depth)
        return;
    frame *f = &p->stack[p->depth - 1], *up = p->depth > 1 ? f - 1 : NULL;
    switch (f->kind) {
    case E_TEXT: end_text(p, up, f->name); break;
    case E_COORD: end_coord(p, up, f->index); break;
    case E_CUBEPL: end_cubepl(p, f, up); break;
    case E_METRIC: end_metric(p, f); break;
    case E_REGION: end_region(p, f); break;
    case E_CNODE: {
        cubex_cnode_def *c = (cubex_cnode_def *)p->cnodes.p + f->index;
        settle_attrs(p, f, &c->attrs);
        c->num_params = f->more.n;
        c->params = settle(p, &f->more, sizeof(cubex_param));
        break;
    }
    case E_STN: {
        cubex_stn_def *s = (cubex_stn_def *)p->stns.p + f->index;
        settle_attrs(p, f, &s->attrs);
        dflt(p, &s->name, "");
        dflt(p, &s->klass, "");
        break;
    }
    case E_LG: end_group(p, f); break;
    case E_LOC: end_location(p, f); break;
    case E_CART: end_cart(p, f); break;
    case E_CUBE:
        settle_attrs(p, f, &p->a->attrs);
        p->root_closed = 1;
        break;
    default: break;
    }
    release(f);
    p->depth--;
}

static void on_characters(void *ctx, const xmlChar *ch, int len)
{
    parser *p = ctx;
    if (p->failed || !p->depth)
        return;
    ekind k = p->stack[p->depth - 1].kind;
    if ((k == E_TEXT || k == E_COORD || k == E_CUBEPL) &&
        strbuf_append(&p->text, (const char *)ch, (size_t)len) != 0)
        fail_oom(p);
}

/* No DOCTYPE: so no entity but the predefined ones can exist, none is
 * expanded, and no external DTD is ever loaded. */
static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *ext_id,
                       const xmlChar *system_id)
{
    (void)name, (void)ext_id, (void)system_id;
    fail(ctx, "a DOCTYPE is not allowed in anchor.xml");
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                           const xmlChar *system_id, xmlChar *content)
{
    (void)name, (void)type, (void)public_id, (void)system_id, (void)content;
    fail(ctx, "entity declarations are not allowed in anchor.xml");
}

/* ---- checks across entities ------------------------------------------------------ */

static int cmp_pair(const void *x, const void *y)
{
    const id_pair *a = x, *b = y;
    return a->id != b->id ? (a->id > b->id) - (a->id < b->id) : (a->i > b->i) - (a->i < b->i);
}

/* Sort n (id, index) pairs; fail at the later of two equal ids (its line
 * from lines[]).  0, or -1 after failing. */
static int check_unique(parser *p, id_pair *pairs, size_t n, const long *lines, const char *what)
{
    /* writers number entities in document order: then there is nothing
     * to sort (pairs come in index order) */
    size_t ascending = 1;
    while (ascending < n && pairs[ascending - 1].id < pairs[ascending].id)
        ascending++;
    if (ascending >= n)
        return 0;
    qsort(pairs, n, sizeof *pairs, cmp_pair);
    for (size_t k = 1; k < n; k++)
        if (pairs[k].id == pairs[k - 1].id) {
            fail_at(p, lines[pairs[k].i], "%s id %lld is defined twice: ids must be unique",
                    what, (long long)pairs[k].id);
            return -1;
        }
    return 0;
}

static id_pair *pairs_alloc(parser *p, size_t n)
{
    id_pair *pairs = malloc((n ? n : 1) * sizeof *pairs);
    if (!pairs)
        fail_oom(p);
    return pairs;
}

/* Location ids are the columns of the data rows: exactly 0 .. L-1. */
static int index_locations(parser *p)
{
    cubex_anchor *a = p->a;
    size_t n = p->locs.n;
    const cubex_loc_def *l = p->locs.p;
    if (a->location_by_id)
        return 0;
    a->location_by_id = malloc((n ? n : 1) * sizeof *a->location_by_id);
    if (!a->location_by_id) {
        fail_oom(p);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        a->location_by_id[i] = CUBEX_NONE;
    const long *lines = p->loc_lines.p;
    for (size_t i = 0; i < n; i++) {
        if (l[i].id < 0 || (uint64_t)l[i].id >= n) {
            fail_at(p, lines[i], "<location Id=\"%lld\">: location ids must be 0 ... %zu (one "
                    "per location: they are the columns of the data)", (long long)l[i].id,
                    n - 1);
            return -1;
        }
        if (a->location_by_id[l[i].id] != CUBEX_NONE) {
            fail_at(p, lines[i], "location id %lld is defined twice: ids must be unique",
                    (long long)l[i].id);
            return -1;
        }
        a->location_by_id[l[i].id] = i;
    }
    return 0;
}

/* The entity a coordinate names must exist. */
static void check_coord(parser *p, const cubex_coord *c)
{
    static const char *const names[] = {"locId", "lgId", "stnId", "thrdId", "procId", "nodeId",
                                        "machId"};
    size_t limit = c->kind == CUBEX_COORD_LOCATION || c->kind == CUBEX_COORD_THREAD ? p->locs.n
                   : c->kind == CUBEX_COORD_GROUP || c->kind == CUBEX_COORD_PROCESS ? p->groups.n
                                                                                    : p->stns.n;
    if ((uint64_t)c->id >= limit)
        fail(p, "<coord %s=\"%lld\">: no such entity (there are %zu)", names[c->kind],
             (long long)c->id, limit);
}

static void check_ids(parser *p)
{
    size_t nm = p->metrics.n, nc = p->cnodes.n;
    id_pair *pairs = pairs_alloc(p, nm > nc ? nm : nc);
    if (!pairs)
        return;
    const cubex_metric_def *m = p->metrics.p;
    for (size_t i = 0; i < nm; i++)
        pairs[i] = (id_pair){(int64_t)m[i].id, i};
    if (check_unique(p, pairs, nm, p->metric_lines.p, "metric") == 0) {
        const cubex_cnode_def *c = p->cnodes.p;
        for (size_t i = 0; i < nc; i++)
            pairs[i] = (id_pair){c[i].id, i};
        check_unique(p, pairs, nc, p->cnode_lines.p, "cnode");
    }
    free(pairs);
    if (!p->failed && !p->region_ids) /* no cnode asked for them */
        index_regions(p);
    if (!p->failed)
        index_locations(p);
}

/* ---- the unquoted-value filter ---------------------------------------------------- */

/* One writer puts unquoted values into <cubepl rowwise=false>,
 * <cubeplaggr cubeplaggrtype=plus> and the like, which XML forbids: inside
 * those tags (only there) a value that starts without a quote gets quotes
 * around it, up to the next blank, '/' or '>'.  Other tags are passed on
 * untouched, their quoted values skipped so that a '>' in them does not
 * end the tag.  A byte machine, so that tags may span chunks. */
enum { F_START, F_TEXT, F_LT, F_FIX, F_EQ, F_UNQ, F_Q, F_OTHER, F_OTHER_Q, F_TO_GT };

/* The longest tag (with its attributes) read: libxml2's push parser
 * rescans an unfinished tag for every chunk, so an endless one would take
 * hours; no real tag comes near this. */
#define TAG_MAX ((size_t)16 << 20)

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == ':' || c == '.';
}

/* The state after a tag's name ended at c (c is then looked at again). */
static int after_name(parser *p, char c)
{
    p->ftag[p->ftag_len] = '\0';
    if (!p->ftag_len)
        return c == '!' || c == '?' || c == '/' ? F_TO_GT : F_TEXT;
    if (p->ftag_len >= 6 && !memcmp(p->ftag, "cubepl", 6) &&
        (p->ftag_len == 6 || !strcmp(p->ftag + 6, "init") || !strcmp(p->ftag + 6, "aggr")))
        return F_FIX;
    return F_OTHER;
}

/* Where the run of bytes from s[i] on that stays in the state (plain text,
 * a quoted value) ends: at the next c, or at n. */
static size_t run_end(const char *s, size_t i, size_t n, char c)
{
    const char *hit = memchr(s + i, c, n - i);
    return hit ? (size_t)(hit - s) : n;
}

/* The bytes s[0 .. n) as libxml2 is to see them: the unquoted values of
 * the cubepl elements quoted, blanks before the declaration dropped.  The
 * input is copied in runs (most of it passes unchanged), and text and
 * quoted values are skipped to their end at once. */
static int filter(parser *p, const char *s, size_t n, strbuf *out)
{
    strbuf_clear(out);
    size_t run = 0; /* s[run .. i) is yet to be copied to out */
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (p->fstate == F_TEXT && c != '<') {
            i = run_end(s, i, n, '<') - 1; /* the loop's i++ lands on the '<' */
            continue;
        }
        int quoted = (p->fstate == F_Q || p->fstate == F_OTHER_Q) && c != p->fquote;
        int to_gt = p->fstate == F_TO_GT && c != '>';
        if (quoted || to_gt || (p->fstate == F_OTHER && c != '"' && c != '\'' && c != '>')) {
            /* a quoted value, the rest of an end tag (comment, declaration),
             * or the names, blanks and '=' of a tag passed on (to its next
             * quote or its end): skipped at once */
            size_t end = i + 1;
            if (quoted || to_gt)
                end = run_end(s, i, n, quoted ? p->fquote : '>');
            else
                while (end < n && s[end] != '"' && s[end] != '\'' && s[end] != '>')
                    end++;
            p->tag_bytes += end - i;
            if (p->tag_bytes > TAG_MAX) {
                fail(p, "a tag longer than %zu MiB: not read", TAG_MAX >> 20);
                return -1;
            }
            i = end - 1;
            continue;
        }
        int again, drop = 0, quote = 0;
        do {
            again = 0;
            switch (p->fstate) {
            case F_START:
                /* blanks before the XML declaration, which XML forbids and
                 * one writer's reader allows, are dropped; messages add the
                 * lines dropped */
                if (is_blank(c)) {
                    p->line_offset += c == '\n';
                    drop = 1;
                    break;
                }
                p->fstate = F_TEXT;
                again = 1;
                break;
            case F_TEXT:
                if (c == '<') {
                    p->fstate = F_LT;
                    p->ftag_len = 0;
                    p->tag_bytes = 0;
                }
                break;
            case F_LT:
                if (is_name_char(c) && p->ftag_len + 1 < sizeof p->ftag) {
                    p->ftag[p->ftag_len++] = c;
                } else if (is_name_char(c)) {
                    p->fstate = F_OTHER; /* longer than any name filtered */
                } else {
                    p->fstate = after_name(p, c);
                    again = p->fstate != F_TO_GT;
                }
                break;
            case F_FIX:
                p->fstate = c == '>' ? F_TEXT : c == '=' ? F_EQ
                            : c == '"' || c == '\'' ? F_Q : F_FIX;
                if (p->fstate == F_Q)
                    p->fquote = c;
                break;
            case F_EQ:
                if (c == '"' || c == '\'') {
                    p->fquote = c;
                    p->fstate = F_Q;
                } else if (c == '>') {
                    p->fstate = F_TEXT;
                } else if (!is_blank(c)) {
                    quote = 1; /* an unquoted value opens */
                    p->fstate = F_UNQ;
                }
                break;
            case F_UNQ:
                if (is_blank(c) || c == '>' || c == '/') {
                    quote = 1; /* and closes */
                    p->fstate = c == '>' ? F_TEXT : F_FIX;
                }
                break;
            case F_Q:
                if (c == p->fquote)
                    p->fstate = F_FIX;
                break;
            case F_OTHER:
                if (c == '"' || c == '\'') {
                    p->fquote = c;
                    p->fstate = F_OTHER_Q;
                } else if (c == '>') {
                    p->fstate = F_TEXT;
                }
                break;
            case F_OTHER_Q:
                if (c == p->fquote)
                    p->fstate = F_OTHER;
                break;
            default: /* F_TO_GT: comments, declarations, end tags */
                if (c == '>')
                    p->fstate = F_TEXT;
                break;
            }
        } while (again);
        if (drop || quote) {
            /* the run so far, then the quote before c, or nothing for c */
            if (strbuf_append(out, s + run, i - run) != 0 ||
                (quote && strbuf_append_char(out, '"') != 0))
                return -1;
            run = drop ? i + 1 : i;
            if (drop)
                continue;
        }
        if (p->fstate != F_TEXT && ++p->tag_bytes > TAG_MAX) {
            fail(p, "a tag longer than %zu MiB: not read", TAG_MAX >> 20);
            return -1;
        }
    }
    return strbuf_append(out, s + run, n - run);
}

/* ---- driving the parser ------------------------------------------------------------ */

static int parse_xml(parser *p, const char *data, size_t n)
{
    if (filter(p, data, n, &p->filtered) != 0) {
        fail_oom(p); /* unless the filter failed itself (then this does nothing) */
        return -1;
    }
    p->xml_bytes += p->filtered.len;
    for (size_t off = 0; off < p->filtered.len && !p->failed;) {
        size_t k = p->filtered.len - off < CHUNK ? p->filtered.len - off : CHUNK;
        int rc = xmlParseChunk(p->xml, p->filtered.data + off, (int)k, 0);
        if (!p->failed && (rc != 0 || p->xml_error[0]))
            fail_at(p, p->xml_error_line, "not well-formed XML: %s",
                    p->xml_error[0] ? p->xml_error : "parser error");
        off += k;
    }
    return p->failed ? -1 : 0;
}

/* Bytes of the member as stored: inflated first when it is gzip data
 * (told by the magic of its first bytes; concatenated gzip members are
 * read one after the other, as gunzip does). */
static int feed(parser *p, const unsigned char *data, size_t n, int first)
{
    if (first) {
        p->gzip = n >= 2 && data[0] == 0x1f && data[1] == 0x8b;
        p->a->gzip = p->gzip;
        if (p->gzip) {
            if (inflateInit2(&p->z, 16 + MAX_WBITS) != Z_OK) {
                fail_oom(p);
                return -1;
            }
            p->z_open = 1;
        }
    }
    if (!p->gzip)
        return parse_xml(p, (const char *)data, n);
    unsigned char out[CHUNK];
    p->z.next_in = (unsigned char *)data;
    p->z.avail_in = (uInt)n;
    while (p->z.avail_in && !p->failed) {
        if (p->z_ended) { /* the previous stream ended: another follows */
            inflateReset(&p->z);
            p->z_ended = 0;
        }
        p->z.next_out = out;
        p->z.avail_out = sizeof out;
        int rc = inflate(&p->z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
            fail_at(p, 0, "corrupt gzip data at byte %llu of the member (zlib: %s)",
                    (unsigned long long)p->z.total_in, p->z.msg ? p->z.msg : "error");
            return -1;
        }
        if (parse_xml(p, (const char *)out, sizeof out - p->z.avail_out) != 0)
            return -1;
        if (rc == Z_STREAM_END)
            p->z_ended = 1;
        else if (rc == Z_BUF_ERROR && p->z.avail_out)
            break;
    }
    return p->failed ? -1 : 0;
}

/* The end of the member: what must be complete is. */
static void finish(parser *p)
{
    if (p->gzip && !p->z_ended) {
        fail_at(p, 0, "the gzip data ends early (the member is truncated)");
        return;
    }
    xmlParseChunk(p->xml, NULL, 0, 1);
    if (p->failed)
        return;
    if (!p->root_seen && !p->xml_bytes)
        fail(p, "expected an XML document with the root <cube version=\"...\">, found an "
                "empty member");
    else if (!p->root_seen)
        fail(p, "expected an XML document with the root <cube version=\"...\">, found %s",
             p->xml_error[0] ? p->xml_error : "no element");
    else if (p->depth)
        fail(p, "unexpected end of the member: expected </%s> (the member is truncated)",
             p->stack[p->depth - 1].name);
    else if (p->xml_error[0])
        fail_at(p, p->xml_error_line, "not well-formed XML: %s", p->xml_error);
    else
        check_ids(p);
}

static pthread_once_t libxml2_initialized = PTHREAD_ONCE_INIT;

static void init_libxml2(void)
{
    xmlInitParser();
}

static int parser_init(parser *p, const char *file, const char *member, cube_status *status)
{
    memset(p, 0, sizeof *p);
    p->file = file;
    p->member = member;
    p->status = status;
    p->a = calloc(1, sizeof *p->a);
    if (!p->a) {
        fail_oom(p);
        return -1;
    }
    pthread_once(&libxml2_initialized, init_libxml2);
    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = on_start;
    sax.endElementNs = on_end;
    sax.characters = on_characters;
    sax.cdataBlock = on_characters;
    sax.internalSubset = on_doctype;
    sax.entityDecl = on_entity_decl;
    sax.serror = on_xml_error;
    p->xml = xmlCreatePushParserCtxt(&sax, p, NULL, 0, member);
    if (!p->xml) {
        fail_oom(p);
        return -1;
    }
    /* No network, no DTD.  NOENT hands out attribute values decoded; HUGE
     * lifts the limit of 256 nested elements (call trees are deep).  Safe
     * because a DOCTYPE is refused: only the predefined entities exist. */
    xmlCtxtUseOptions(p->xml, XML_PARSE_NONET | XML_PARSE_NOENT | XML_PARSE_HUGE);
    return 0;
}

/* Hand out the anchor (NULL after a failure) and free the rest. */
static cubex_anchor *parser_done(parser *p)
{
    cubex_anchor *a = p->a;
    if (p->xml)
        xmlFreeParserCtxt(p->xml);
    if (p->z_open)
        inflateEnd(&p->z);
    for (size_t i = 0; i < p->depth; i++)
        release(&p->stack[i]);
    free(p->stack);
    strbuf_free(&p->text);
    strbuf_free(&p->filtered);
    free(p->region_ids);
    free(p->region_index);
    free(p->metric_lines.p);
    free(p->region_lines.p);
    free(p->cnode_lines.p);
    free(p->loc_lines.p);
    if (a) {
        a->metrics = p->metrics.p, a->num_metrics = p->metrics.n;
        a->regions = p->regions.p, a->num_regions = p->regions.n;
        a->cnodes = p->cnodes.p, a->num_cnodes = p->cnodes.n;
        a->stns = p->stns.p, a->num_stns = p->stns.n;
        a->groups = p->groups.p, a->num_groups = p->groups.n;
        a->locations = p->locs.p, a->num_locations = p->locs.n;
        a->carts = p->carts.p, a->num_carts = p->carts.n;
        a->mirrors = p->mirrors.p, a->num_mirrors = p->mirrors.n;
    }
    if (!a) { /* nothing was handed over */
        free(p->metrics.p), free(p->regions.p), free(p->cnodes.p), free(p->stns.p);
        free(p->groups.p), free(p->locs.p), free(p->carts.p), free(p->mirrors.p);
    }
    if (p->failed) {
        cubex_anchor_free(a);
        return NULL;
    }
    status_ok(p->status);
    return a;
}

cubex_order cubex_metric_order(cubex_metric_type type)
{
    return type == CUBEX_METRIC_INCLUSIVE || type == CUBEX_METRIC_SIMPLE ? CUBEX_WIDE
                                                                          : CUBEX_PREORDER;
}

void cubex_anchor_free(cubex_anchor *a)
{
    if (!a)
        return;
    free(a->metrics);
    free(a->regions);
    free(a->cnodes);
    free(a->stns);
    free(a->groups);
    free(a->locations);
    free(a->carts);
    free(a->mirrors);
    free(a->location_by_id);
    arena_free(&a->strings);
    free(a);
}

cubex_anchor *cubex_anchor_read(const cubex_tar *t, const cubex_member *m, cube_status *status)
{
    parser p;
    if (parser_init(&p, t->file, m->name, status) != 0)
        return parser_done(&p);
    unsigned char *buf = malloc(CHUNK);
    if (!buf)
        fail_oom(&p);
    for (uint64_t off = 0; buf && !p.failed && off < m->size;) {
        size_t k = m->size - off < CHUNK ? (size_t)(m->size - off) : CHUNK;
        cube_status st;
        if (cubex_tar_pread(t, m, off, buf, k, &st) != 0) {
            status_copy(status, &st);
            p.failed = 1;
            break;
        }
        feed(&p, buf, k, off == 0);
        off += k;
    }
    if (!p.failed && m->size == 0)
        feed(&p, NULL, 0, 1);
    if (!p.failed)
        finish(&p);
    free(buf);
    return parser_done(&p);
}

cubex_anchor *cubex_anchor_parse(const void *data, size_t size, const char *file,
                                 cube_status *status)
{
    parser p;
    if (parser_init(&p, file, "anchor.xml", status) != 0)
        return parser_done(&p);
    const unsigned char *d = data;
    for (size_t off = 0; !p.failed && (off < size || off == 0);) {
        size_t k = size - off < CHUNK ? size - off : CHUNK;
        feed(&p, d + off, k, off == 0);
        off += k;
        if (size == 0)
            break;
    }
    if (!p.failed)
        finish(&p);
    return parser_done(&p);
}

size_t cubex_anchor_location(const cubex_anchor *a, int64_t id)
{
    if (!a->location_by_id || id < 0 || (uint64_t)id >= a->num_locations)
        return CUBEX_NONE;
    return a->location_by_id[id];
}
