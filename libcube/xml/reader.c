/*
 * reader.c - the streaming CUBE 3 XML reader.
 *
 * libxml2's SAX2 push parser drives a state machine over an explicit stack
 * of open elements (no recursion over the input's depth).  Definitions go
 * into a cube_t as they close; severity rows are either stored in that
 * cube_t (cube_read) or queued and handed out one at a time
 * (cube_reader_next_row), so no DOM of the file is ever built.
 *
 * What real files contain is accepted (see cube(5)): `id` or `Id`, metric
 * text children in any order or missing, VOID metrics, CDATA, comments,
 * short rows, repeated matrices, any strtod number, raw '&' (with a
 * warning).  Everything else that cannot be a correct experiment is
 * rejected with "FILE:LINE: what was expected, what was found".
 */
#define _GNU_SOURCE
#include "core/cube_private.h"
#include "core/idmap_private.h"
#include "cubex/read_private.h"
#include "io/input_private.h"
#include "core/number_private.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    E_CUBE, E_ATTR, E_DOC, E_MIRRORS, E_MURL, E_METRICS, E_METRIC, E_TEXT, E_PROGRAM,
    E_REGION, E_CNODE, E_SYSTEM, E_MACHINE, E_NODE, E_PROCESS, E_THREAD, E_TOPOLOGIES,
    E_CART, E_DIM, E_COORD, E_SEVERITY, E_MATRIX, E_ROW, E_SKIP
} elem_kind;

static const char *const elem_names[] = {
    "cube",    "attr",   "doc",     "mirrors", "murl",       "metrics", "metric", "text",
    "program", "region", "cnode",   "system",  "machine",    "node",    "process", "thread",
    "topologies", "cart", "dim",    "coord",   "severity",   "matrix",  "row",    "unknown"};

/* Text children per parent kind, in the order of their slot in frame.text. */
static const char *const metric_fields[] = {"disp_name", "uniq_name", "dtype", "uom",
                                            "val",       "url",       "descr", NULL};
static const char *const region_fields[] = {"name", "url", "descr", NULL};
static const char *const machine_fields[] = {"name", "descr", NULL};
static const char *const node_fields[] = {"name", NULL};
static const char *const location_fields[] = {"name", "rank", NULL};
#define MAX_FIELDS 7

typedef struct {
    elem_kind kind;
    long line;
    void *entity;             /* the created entity, NULL while still pending */
    int64_t id;
    char *text[MAX_FIELDS];   /* pending text children (last one wins) */
    int field;                /* for E_TEXT: slot in the parent's text[] */
    long begin, end;          /* region begin/end */
    long count;               /* cart: <dim>s read so far */
    char *mod;                /* region or cnode module */
    char *name;               /* E_SKIP: the element's name, for messages */
} frame;

typedef struct {
    size_t metric, cnode; /* indexes */
    int may_repeat; /* this (metric, cnode) may have come before in the file */
} queued_row;

struct cube_reader {
    cube_t *cube;            /* the definitions (and, for cube_read, the rows) */
    /* a CUBE 4 archive: its reader hands out the rows, and the XML parts
     * of this one stay unused */
    cubex_reader *cubex;
    int cube_given_away;     /* cube_reader_take_definitions moved it to the caller */
    int store_rows;          /* 1: rows go into cube; 0: rows are queued */
    /* CUBE_READ_NO_CALL_TREE: the <cnode>s are checked and numbered but not
     * built (a million call paths cost ~150 MB as a tree; their ids and
     * count cost nothing while ids are dense) */
    int no_call_tree;
    size_t num_cnodes;       /* <cnode>s read so far (both ways) */
    char *name;              /* file name for messages */
    cube_input *input;
    xmlParserCtxtPtr xml;
    locale_t c_locale;

    frame *stack;
    size_t depth, stack_cap;
    int root_seen, root_closed, in_severity, defs_done;
    int failed, at_end;
    char xml_error[512];     /* first error libxml2 reported */
    long xml_error_line;
    size_t unknown_elements;
    long first_unknown_line;
    char first_unknown[64];
    /* the start of the input, to say what a file without <cube> holds */
    size_t bytes_in;
    int in_tag;              /* a '<' was seen and no '>' since */
    size_t tag_bytes;        /* the bytes of that tag so far */
    long first_text_line;    /* line of the first non-blank byte, 0 while none */
    long blank_lines;        /* newlines before it */
    char first_text[32];     /* the start of that line */

    idmap ids[7];            /* per kind, see ID_*; built only once ids stop being dense */
    int ids_sparse[7];       /* a kind's ids stopped being 0, 1, 2, ... in order */
    strbuf text;             /* text of the open text element, murl, coord or row */
    long text_line;

    /* severity */
    size_t *thread_order;    /* value i of a row belongs to thread index thread_order[i] */
    int thread_order_identity;
    const cube_metric *matrix_metric; /* NULL: rows of this matrix are ignored (VOID) */
    size_t row_cnode;        /* index of the open row's cnode */
    int64_t row_cnode_id;
    double *scratch;          /* the values of the row being parsed, file order */
    /* A metric's first matrix can only hold rows the store has not seen,
     * except for a cnode repeated inside it: such rows are appended without
     * a hash look-up (see sev_store_append). */
    unsigned char *metric_had_matrix; /* per metric index */
    unsigned char *cnode_in_matrix;   /* bit per cnode index, for the open matrix */
    int fresh_matrix;
    unsigned char *wanted;   /* NULL, or per metric index: are its rows wanted? */
    int skip_matrix;         /* the open matrix's rows are not wanted: not parsed */

    /* queue of rows for the streaming interface */
    queued_row *queue;
    double *queue_values;
    size_t queue_len, queue_cap, queue_pos;
    int last_may_repeat; /* of the row cube_reader_next_row returned last */
};

/* ---------------------------------------------------------------------- */
/* errors                                                                  */

static long current_line(const cube_reader *r)
{
    return r->xml ? (long)xmlSAX2GetLineNumber(r->xml) : 0;
}

/* The reader's one way to fail: the first error is kept ("FILE:LINE:
 * ..."), the parse stops and every later call fails with it. */
static void fail_with(cube_reader *r, cube_code code, long line, const char *fmt, ...)
    CUBE_PRINTF(4, 5);

static void fail_with(cube_reader *r, cube_code code, long line, const char *fmt, ...)
{
    if (r->failed)
        return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cube_set_error(r->cube, code, "%s:%ld: %s", r->name, line, msg);
    r->failed = 1;
    if (r->xml)
        xmlStopParser(r->xml);
}

/* A file that breaks the format, at `line` or at the parser's line. */
#define fail_at(r, line, ...) fail_with((r), CUBE_EFORMAT, (line), __VA_ARGS__)
#define fail(r, ...) fail_at((r), current_line(r), __VA_ARGS__)

static void fail_oom(cube_reader *r)
{
    fail_with(r, CUBE_ENOMEM, current_line(r), "out of memory");
}

/* The error libxml2 passes to a structured error handler: const since
 * libxml2 2.12 (xmlStructuredErrorFunc's signature changed there). */
#if LIBXML_VERSION >= 21200
typedef const xmlError *xml_error_arg;
#else
typedef xmlError *xml_error_arg;
#endif

/* libxml2's own diagnostics arrive here (per parser, not global). */
static void on_xml_error(void *ctx, xml_error_arg err)
{
    cube_reader *r = ctx;
    if (!err)
        return;
    char msg[400];
    snprintf(msg, sizeof msg, "%s", err->message ? err->message : "error");
    /* Some messages span lines ("...indicate encoding !\nBytes: 0xFF ..."):
     * every error and warning must be one line. */
    for (char *nl = msg; (nl = strpbrk(nl, "\r\n")) != NULL; nl++)
        *nl = ' ';
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    if (err->level == XML_ERR_WARNING) {
        cube_add_warning(r->cube, "%s:%d: %s", r->name, err->line, msg);
        return;
    }
    if (!r->xml_error[0]) {
        snprintf(r->xml_error, sizeof r->xml_error, "%s", msg);
        r->xml_error_line = err->line;
    }
}

/* ---------------------------------------------------------------------- */
/* attributes                                                              */

/* SAX2 hands attributes as (localname, prefix, URI, value, end) tuples with
 * values that are not NUL-terminated. */
static const char *get_attr(cube_reader *r, const xmlChar **attrs, int nattrs,
                            const char *name, int any_case, strbuf *buf)
{
    for (int i = 0; i < nattrs; i++) {
        const char *local = (const char *)attrs[5 * i];
        if (any_case ? strcasecmp(local, name) != 0 : strcmp(local, name) != 0)
            continue;
        const char *value = (const char *)attrs[5 * i + 3];
        const char *end = (const char *)attrs[5 * i + 4];
        strbuf_clear(buf);
        if (strbuf_append(buf, value, (size_t)(end - value)) != 0) {
            fail_oom(r);
            return NULL;
        }
        return strbuf_str(buf);
    }
    return NULL;
}

/* A required non-negative integer attribute; -1 after reporting. */
static int id_attr(cube_reader *r, const xmlChar **attrs, int nattrs, const char *name,
                   const char *elem, int any_case, int64_t *out)
{
    /* the common case, a short id, is parsed from a stack copy: one row
     * start must not cost a malloc */
    char small[24];
    strbuf buf = {0};
    const char *v = NULL;
    for (int i = 0; i < nattrs && !v; i++) {
        const char *local = (const char *)attrs[5 * i];
        if (any_case ? strcasecmp(local, name) != 0 : strcmp(local, name) != 0)
            continue;
        const char *value = (const char *)attrs[5 * i + 3];
        size_t len = (size_t)((const char *)attrs[5 * i + 4] - value);
        if (len < sizeof small) {
            memcpy(small, value, len);
            small[len] = '\0';
            v = small;
        } else {
            v = get_attr(r, attrs, nattrs, name, any_case, &buf);
        }
    }
    int rc = 0;
    if (r->failed) {
        rc = -1;
    } else if (!v) {
        fail(r, "<%s> needs an attribute %s, found none", elem, name);
        rc = -1;
    } else if (parse_id(v, out) != 0) {
        fail(r, "<%s %s=...> must be a non-negative integer, found \"%s\"", elem, name, v);
        rc = -1;
    }
    strbuf_free(&buf);
    return rc;
}

/* An optional integer attribute (line numbers); `dflt` when absent. */
static int long_attr(cube_reader *r, const xmlChar **attrs, int nattrs, const char *name,
                     const char *elem, long dflt, long *out)
{
    strbuf buf = {0};
    const char *v = get_attr(r, attrs, nattrs, name, 0, &buf);
    int rc = 0;
    *out = dflt;
    if (r->failed) {
        rc = -1;
    } else if (v && parse_long(v, out) != 0) {
        fail(r, "<%s %s=...> must be an integer, found \"%s\"", elem, name, v);
        rc = -1;
    }
    strbuf_free(&buf);
    return rc;
}

static char *string_attr(cube_reader *r, const xmlChar **attrs, int nattrs, const char *name)
{
    strbuf buf = {0};
    const char *v = get_attr(r, attrs, nattrs, name, 0, &buf);
    char *copy = NULL;
    if (!r->failed) {
        copy = cube_strdup(v ? v : "");
        if (!copy)
            fail_oom(r);
    }
    strbuf_free(&buf);
    return copy;
}

/* ---------------------------------------------------------------------- */
/* the element stack                                                       */

static frame *top(cube_reader *r)
{
    return r->depth ? &r->stack[r->depth - 1] : NULL;
}

static frame *push(cube_reader *r, elem_kind kind)
{
    if (r->depth == r->stack_cap) {
        size_t cap = r->stack_cap ? r->stack_cap * 2 : 32;
        frame *grown = realloc(r->stack, cap * sizeof *grown);
        if (!grown) {
            fail_oom(r);
            return NULL;
        }
        r->stack = grown;
        r->stack_cap = cap;
    }
    frame *f = &r->stack[r->depth++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->line = current_line(r);
    return f;
}

static void release_frame(frame *f)
{
    for (int i = 0; i < MAX_FIELDS; i++)
        free(f->text[i]);
    free(f->mod);
    free(f->name);
}

static const char *field_text(const frame *f, int slot)
{
    return f->text[slot] ? f->text[slot] : "";
}

static const char *const *fields_of(elem_kind kind)
{
    switch (kind) {
    case E_METRIC: return metric_fields;
    case E_REGION: return region_fields;
    case E_MACHINE: return machine_fields;
    case E_NODE: return node_fields;
    case E_PROCESS:
    case E_THREAD: return location_fields;
    default: return NULL;
    }
}

/* `line` is where the element carrying the id starts: most entities are
 * registered only when they close (or when their first child opens), and
 * the current line would point there instead of at the duplicate id. */
static const ptr_list *entities_of(const cube_reader *r, int kind)
{
    const cube_t *c = r->cube;
    switch (kind) {
    case ID_METRIC: return &c->metrics;
    case ID_REGION: return &c->regions;
    case ID_CNODE: return &c->cnodes;
    case ID_MACHINE: return &c->machines;
    case ID_NODE: return &c->nodes;
    case ID_PROCESS: return &c->processes;
    default: return &c->threads;
    }
}

/* How many entities of a kind were read so far, and what the id map holds
 * for the one at `index`: the entity, or, for call-tree nodes read without
 * the tree (CUBE_READ_NO_CALL_TREE), the index itself. */
static int indexes_only(const cube_reader *r, int kind)
{
    return kind == ID_CNODE && r->no_call_tree;
}

static size_t kind_count(const cube_reader *r, int kind)
{
    return indexes_only(r, kind) ? r->num_cnodes : entities_of(r, kind)->count;
}

static void *kind_value(const cube_reader *r, int kind, size_t index)
{
    return indexes_only(r, kind) ? idmap_index_value(index) : entities_of(r, kind)->items[index];
}

/* Ids are labels, but most files number each kind 0, 1, 2, ... in
 * definition order: while that holds, the id is the index and no hash map
 * is needed (a million call paths would cost 32 MB of map); the map is
 * built the first time an id breaks the pattern. */
static void *find_id(const cube_reader *r, int kind, int64_t id)
{
    if (id >= 0 && (uint64_t)id < kind_count(r, kind)) {
        if (!r->ids_sparse[kind])
            return kind_value(r, kind, (size_t)id);
        if (!indexes_only(r, kind)) { /* the map's look-up spared when the id is the index */
            void *candidate = entities_of(r, kind)->items[id];
            if (((const entity_head *)candidate)->id == id)
                return candidate;
        }
    }
    return r->ids_sparse[kind] ? idmap_get(&r->ids[kind], id) : NULL;
}

/* Register the id of the entity just added (at `index`) to its kind. */
static int register_id(cube_reader *r, int kind, const char *what, int64_t id, size_t index,
                       long line)
{
    if (!r->ids_sparse[kind]) {
        if (index == (size_t)id)
            return 0; /* still dense: unique by construction */
        /* from now on a map: every earlier entity's id is its index */
        r->ids_sparse[kind] = 1;
        for (size_t i = 0; i < index; i++)
            if (idmap_add(&r->ids[kind], (int64_t)i, kind_value(r, kind, i)) < 0) {
                fail_oom(r);
                return -1;
            }
    }
    int rc = idmap_add(&r->ids[kind], id, kind_value(r, kind, index));
    if (rc < 0)
        fail_oom(r);
    else if (rc > 0)
        fail_at(r, line, "duplicate %s id %lld: ids of one kind must be unique", what,
                (long long)id);
    return rc == 0 ? 0 : -1;
}

/* Pending entities are created when their first child entity opens, or when
 * they close: their text children may come in any order before that. */
static void *ensure_metric(cube_reader *r, frame *f, frame *parent)
{
    if (f->entity || r->failed)
        return f->entity;
    cube_metric *m = model_add_metric(
        r->cube, f->id, field_text(f, 0), field_text(f, 1), field_text(f, 2),
        field_text(f, 3), field_text(f, 4), field_text(f, 5), field_text(f, 6),
        parent && parent->kind == E_METRIC ? parent->entity : NULL);
    if (!m)
        fail_oom(r);
    else if (register_id(r, ID_METRIC, "metric", f->id, m->index, f->line) == 0)
        f->entity = m;
    return f->entity;
}

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static int64_t rank_field(cube_reader *r, frame *f, const char *elem)
{
    if (!f->text[1])
        return 0;
    /* White space around the number, as in "<rank> 1 </rank>", is layout
     * (as between the values of a row), not part of the rank. */
    const char *s = f->text[1];
    size_t n = strlen(s);
    while (n && is_space(*s))
        s++, n--;
    while (n && is_space(s[n - 1]))
        n--;
    char digits[32];
    long rank;
    if (n >= sizeof digits || (memcpy(digits, s, n), digits[n] = '\0',
                               parse_long(digits, &rank) != 0)) {
        fail(r, "<%s><rank> must be an integer, found \"%s\"", elem, f->text[1]);
        return 0;
    }
    return rank;
}

static void *ensure_machine(cube_reader *r, frame *f)
{
    if (f->entity || r->failed)
        return f->entity;
    cube_machine *m = model_add_machine(r->cube, f->id, field_text(f, 0), field_text(f, 1));
    if (!m)
        fail_oom(r);
    else if (register_id(r, ID_MACHINE, "machine", f->id, m->index, f->line) == 0)
        f->entity = m;
    return f->entity;
}

static void *ensure_node(cube_reader *r, frame *f, frame *parent)
{
    if (f->entity || r->failed)
        return f->entity;
    cube_node *n = model_add_node(r->cube, f->id, field_text(f, 0), parent->entity);
    if (!n)
        fail_oom(r);
    else if (register_id(r, ID_NODE, "node", f->id, n->index, f->line) == 0)
        f->entity = n;
    return f->entity;
}

static void *ensure_process(cube_reader *r, frame *f, frame *parent)
{
    if (f->entity || r->failed)
        return f->entity;
    int64_t rank = rank_field(r, f, "process");
    if (r->failed)
        return NULL;
    char fallback[48];
    snprintf(fallback, sizeof fallback, "Process %lld", (long long)rank);
    cube_process *p = model_add_process(r->cube, f->id, f->text[0] ? f->text[0] : fallback,
                                        rank, parent->entity);
    if (!p)
        fail_oom(r);
    else if (register_id(r, ID_PROCESS, "process", f->id, p->index, f->line) == 0)
        f->entity = p;
    return f->entity;
}

static void create_thread(cube_reader *r, frame *f, frame *parent)
{
    int64_t rank = rank_field(r, f, "thread");
    if (r->failed)
        return;
    char fallback[48];
    snprintf(fallback, sizeof fallback, "Thread %lld", (long long)rank);
    cube_thread *t = model_add_thread(r->cube, f->id, f->text[0] ? f->text[0] : fallback, rank,
                                      parent->entity);
    if (!t)
        fail_oom(r);
    else
        register_id(r, ID_THREAD, "thread", f->id, t->index, f->line);
}

/* ---------------------------------------------------------------------- */
/* severity                                                                */

static int compare_thread_ids(const void *a, const void *b)
{
    const cube_thread *x = *(cube_thread *const *)a, *y = *(cube_thread *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Values in a row are in thread-id order: the i-th value belongs to the
 * thread with the i-th smallest id, wherever it sits in the tree. */
static void prepare_severity(cube_reader *r)
{
    size_t n = r->cube->threads.count;
    r->defs_done = 1;
    r->thread_order = malloc((n ? n : 1) * sizeof *r->thread_order);
    r->scratch = malloc((n ? n : 1) * sizeof *r->scratch);
    r->metric_had_matrix = calloc(r->cube->metrics.count + 1, 1);
    r->cnode_in_matrix = calloc(kind_count(r, ID_CNODE) / 8 + 1, 1);
    if (!r->metric_had_matrix || !r->cnode_in_matrix) {
        fail_oom(r);
        return;
    }
    cube_thread **sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!r->thread_order || !r->scratch || !sorted) {
        free(sorted);
        fail_oom(r);
        return;
    }
    if (n) /* no threads: items may be NULL, which memcpy must not get */
        memcpy(sorted, r->cube->threads.items, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_thread_ids);
    r->thread_order_identity = 1;
    for (size_t i = 0; i < n; i++) {
        r->thread_order[i] = sorted[i]->index;
        if (sorted[i]->index != i)
            r->thread_order_identity = 0;
    }
    free(sorted);
}

/* Put the `count` values parsed (file order) into a row (thread order). */
static void place_values(const cube_reader *r, double *row, size_t count)
{
    if (r->thread_order_identity) {
        memcpy(row, r->scratch, count * sizeof *row);
    } else {
        for (size_t i = 0; i < count; i++)
            row[r->thread_order[i]] = r->scratch[i];
    }
}

static int queue_row(cube_reader *r, size_t metric, size_t cnode, size_t count, int may_repeat)
{
    size_t nthreads = r->cube->threads.count;
    size_t row_bytes = (nthreads ? nthreads : 1) * sizeof(double);
    if (r->queue_len == r->queue_cap) {
        /* The queue holds the rows one chunk of input completes: 64 narrow
         * rows, but only as many 100 000-thread rows as fit in 1 MiB */
        size_t first = ((size_t)1 << 20) / row_bytes;
        size_t cap = r->queue_cap ? r->queue_cap * 2 : first < 1 ? 1 : first > 64 ? 64 : first;
        if (cap > SIZE_MAX / row_bytes)
            return -1;
        queued_row *q = realloc(r->queue, cap * sizeof *q);
        double *v = realloc(r->queue_values, cap * row_bytes);
        if (q)
            r->queue = q;
        if (v)
            r->queue_values = v;
        if (!q || !v)
            return -1;
        r->queue_cap = cap;
    }
    double *dst = r->queue_values + r->queue_len * nthreads;
    memset(dst, 0, nthreads * sizeof *dst);
    place_values(r, dst, count);
    r->queue[r->queue_len++] = (queued_row){metric, cnode, may_repeat};
    return 0;
}

static void finish_row(cube_reader *r)
{
    size_t nthreads = r->cube->threads.count, count = 0;
    const char *p = strbuf_str(&r->text), *end = p + r->text.len;
    long line = r->text_line;
    int any_nonzero = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
            if (*p == '\n')
                line++;
            p++;
        }
        if (p == end)
            break;
        const char *token = p;
        if (count == nthreads) {
            fail_at(r, line,
                    "row for cnode %lld has more values than the %zu threads, expected </row>",
                    (long long)r->row_cnode_id, nthreads);
            return;
        }
        double v;
        number_status st = parse_double_field(token, end, r->c_locale, &v, &p);
        size_t len = (size_t)(p - token);
        if (st != NUMBER_OK) {
            fail_at(r, line, "%s in row for cnode %lld: found \"%.*s\"",
                    st == NUMBER_NOT_FINITE ? "severity values must be finite (no NaN or infinity)"
                                            : "expected a number ('.' as decimal point)",
                    (long long)r->row_cnode_id, len > 40 ? 40 : (int)len, token);
            return;
        }
        any_nonzero |= v != 0.0;
        r->scratch[count++] = v;
    }
    if (!r->matrix_metric)
        return; /* rows of a VOID metric are checked but not kept */
    size_t cn = r->row_cnode;
    int first_of_pair = r->fresh_matrix && !(r->cnode_in_matrix[cn >> 3] & (1u << (cn & 7)));
    if (first_of_pair)
        r->cnode_in_matrix[cn >> 3] |= (unsigned char)(1u << (cn & 7));
    if (!r->store_rows) {
        if (queue_row(r, r->matrix_metric->index, cn, count, !first_of_pair) != 0)
            fail_oom(r);
        return;
    }
    /* an all-zero row adds nothing to a sum; to a maximum or minimum its
     * zeros are values, where no row is no value */
    int adds_nothing = !any_nonzero && cube_metric_combine(r->matrix_metric) == CUBE_COMBINE_SUM;
    if (first_of_pair) {
        /* the first row of this (metric, cnode): no look-up needed */
        if (adds_nothing)
            return;
        double *row = sev_store_append(&r->cube->sev, r->matrix_metric->index, cn);
        if (!row) {
            fail_oom(r);
            return;
        }
        place_values(r, row, count);
        return;
    }
    /* A repeated (metric, cnode) row overwrites the values it gives; an
     * all-zero row that adds nothing is not stored at all (one hash look-up
     * for the common non-zero row, two only for all-zero ones). */
    if (sev_store_index(&r->cube->sev) != 0) {
        fail_oom(r);
        return;
    }
    if (adds_nothing && !sev_store_find(&r->cube->sev, r->matrix_metric->index, cn))
        return;
    double *row = sev_store_get_or_add(&r->cube->sev, r->matrix_metric->index, cn);
    if (!row) {
        fail_oom(r);
        return;
    }
    place_values(r, row, count);
}

/* ---------------------------------------------------------------------- */
/* SAX callbacks                                                           */

static int text_slot(const char *const *fields, const char *name)
{
    for (int i = 0; fields && fields[i]; i++)
        if (strcmp(fields[i], name) == 0)
            return i;
    return -1;
}

/* An element we do not know is skipped with its subtree and reported once
 * as a warning: newer writers add elements the CUBE 3 format never had. */
static void skip_unknown(cube_reader *r, const char *name)
{
    if (!r->unknown_elements++) {
        r->first_unknown_line = current_line(r);
        snprintf(r->first_unknown, sizeof r->first_unknown, "%s", name);
    }
    /* the name is kept for the message of a file that ends inside it */
    frame *f = push(r, E_SKIP);
    if (f && !(f->name = cube_strdup(name)))
        fail_oom(r);
}

static void start_cube(cube_reader *r, const xmlChar **attrs, int nattrs)
{
    strbuf buf = {0};
    const char *version = get_attr(r, attrs, nattrs, "version", 0, &buf);
    if (!r->failed && !version)
        fail(r, "<cube> needs a version attribute, found none");
    else if (!r->failed && strncmp(version, "3.", 2) != 0 && strcmp(version, "3") != 0)
        fail_with(r, CUBE_EUNSUPPORTED, current_line(r),
                  "unsupported CUBE version \"%s\": expected 3.0 in an XML file (CUBE 4 "
                  "is a .cubex archive; CUBE 2 files are not read)", version);
    else if (!r->failed && model_set_source(r->cube, CUBE_FORMAT_CUBE3, version) != 0)
        fail_oom(r);
    strbuf_free(&buf);
    r->root_seen = 1;
    push(r, E_CUBE);
}

static void start_metric(cube_reader *r, frame *parent, const xmlChar **attrs, int nattrs)
{
    if (parent->kind == E_METRIC && !ensure_metric(r, parent, r->depth > 1 ? parent - 1 : NULL))
        return;
    int64_t id;
    if (id_attr(r, attrs, nattrs, "id", "metric", 1, &id) != 0)
        return;
    frame *f = push(r, E_METRIC);
    if (f)
        f->id = id;
}

static void start_region(cube_reader *r, const xmlChar **attrs, int nattrs)
{
    int64_t id;
    long begin, end;
    if (id_attr(r, attrs, nattrs, "id", "region", 1, &id) != 0 ||
        long_attr(r, attrs, nattrs, "begin", "region", -1, &begin) != 0 ||
        long_attr(r, attrs, nattrs, "end", "region", -1, &end) != 0)
        return;
    char *mod = string_attr(r, attrs, nattrs, "mod");
    frame *f = mod ? push(r, E_REGION) : NULL;
    if (!f) {
        free(mod);
        return;
    }
    f->id = id;
    f->begin = begin;
    f->end = end;
    f->mod = mod;
}

static void start_cnode(cube_reader *r, frame *parent, const xmlChar **attrs, int nattrs)
{
    int64_t id, callee_id;
    long line;
    if (id_attr(r, attrs, nattrs, "id", "cnode", 1, &id) != 0 ||
        id_attr(r, attrs, nattrs, "calleeId", "cnode", 0, &callee_id) != 0 ||
        long_attr(r, attrs, nattrs, "line", "cnode", -1, &line) != 0)
        return;
    cube_region *callee = find_id(r, ID_REGION, callee_id);
    if (!callee) {
        fail(r, "cnode %lld calls region %lld, which is not defined (regions must come "
                "before call-tree nodes)", (long long)id, (long long)callee_id);
        return;
    }
    size_t index = r->num_cnodes;
    cube_cnode *n = NULL;
    if (!r->no_call_tree) {
        char *mod = string_attr(r, attrs, nattrs, "mod");
        if (!mod)
            return;
        n = model_add_cnode(r->cube, id, callee, mod, line,
                            parent->kind == E_CNODE ? parent->entity : NULL);
        free(mod);
        if (!n) {
            fail_oom(r);
            return;
        }
        index = n->index;
    }
    r->num_cnodes++;
    if (register_id(r, ID_CNODE, "cnode", id, index, current_line(r)) != 0)
        return;
    frame *f = push(r, E_CNODE);
    if (f)
        f->entity = n; /* NULL without the tree: no child needs its parent then */
}

static void start_system_item(cube_reader *r, frame *parent, elem_kind kind, const char *name,
                              const xmlChar **attrs, int nattrs)
{
    /* the parent must exist before its first child */
    if (kind == E_NODE && !ensure_machine(r, parent))
        return;
    if (kind == E_PROCESS && !ensure_node(r, parent, parent - 1))
        return;
    if (kind == E_THREAD && !ensure_process(r, parent, parent - 1))
        return;
    int64_t id;
    if (id_attr(r, attrs, nattrs, "id", name, 1, &id) != 0)
        return;
    frame *f = push(r, kind);
    if (f)
        f->id = id;
}

static int parse_period(const char *v, int *out)
{
    if (v && strcasecmp(v, "true") == 0)
        *out = 1;
    else if (v && strcasecmp(v, "false") == 0)
        *out = 0;
    else
        return -1;
    return 0;
}

static void start_cart(cube_reader *r, const xmlChar **attrs, int nattrs)
{
    int64_t ndims;
    if (id_attr(r, attrs, nattrs, "ndims", "cart", 0, &ndims) != 0)
        return;
    if (ndims < 1 || ndims > 1024) {
        fail(r, "<cart ndims=...> must be 1 to 1024, found %lld", (long long)ndims);
        return;
    }
    char *name = string_attr(r, attrs, nattrs, "name");
    if (!name)
        return;
    /* dims are filled in as the <dim> children arrive */
    long *dims = calloc((size_t)ndims, sizeof *dims);
    cube_cartesian *t = dims ? model_add_cart(r->cube, name, (long)ndims, dims, NULL) : NULL;
    free(dims);
    free(name);
    if (!t) {
        fail_oom(r);
        return;
    }
    frame *f = push(r, E_CART);
    if (f)
        f->entity = t;
}

static void start_dim(cube_reader *r, frame *parent, const xmlChar **attrs, int nattrs)
{
    cube_cartesian *t = parent->entity;
    if (parent->count >= t->ndims) {
        fail(r, "<cart> declares ndims=%ld but has more <dim> elements", t->ndims);
        return;
    }
    if (t->num_coords) {
        fail(r, "<dim> after <coord>: all dimensions must come first");
        return;
    }
    int64_t size;
    if (id_attr(r, attrs, nattrs, "size", "dim", 0, &size) != 0)
        return;
    if (size < 1 || size > 0x7fffffff) {
        fail(r, "<dim size=...> must be a positive integer, found %lld", (long long)size);
        return;
    }
    strbuf buf = {0};
    const char *periodic = get_attr(r, attrs, nattrs, "periodic", 0, &buf);
    int period = 0;
    if (!r->failed && parse_period(periodic, &period) != 0)
        fail(r, "<dim periodic=...> must be true or false, found \"%s\"",
             periodic ? periodic : "(none)");
    const char *name = r->failed ? NULL : get_attr(r, attrs, nattrs, "name", 0, &buf);
    if (!r->failed) {
        long d = parent->count++;
        t->dims[d] = (long)size;
        t->periods[d] = period;
        if (name && cube_cart_set_dim_name(r->cube, t, d, name) != 0)
            fail_oom(r);
    }
    strbuf_free(&buf);
    push(r, E_DIM);
}

static const struct {
    const char *attr;
    cube_coord_kind kind;
    int id_kind;
} coord_targets[] = {{"thrdId", CUBE_COORD_THREAD, ID_THREAD},
                     {"procId", CUBE_COORD_PROCESS, ID_PROCESS},
                     {"nodeId", CUBE_COORD_NODE, ID_NODE},
                     {"machId", CUBE_COORD_MACHINE, ID_MACHINE}};

static void start_coord(cube_reader *r, frame *parent, const xmlChar **attrs, int nattrs)
{
    cube_cartesian *t = parent->entity;
    if (parent->count != t->ndims) {
        fail(r, "<cart> declares ndims=%ld but has %ld <dim> elements before <coord>",
             t->ndims, parent->count);
        return;
    }
    strbuf buf = {0};
    int found = -1;
    for (int k = 0; k < 4 && !r->failed; k++)
        if (get_attr(r, attrs, nattrs, coord_targets[k].attr, 0, &buf)) {
            found = k;
            break;
        }
    strbuf_free(&buf);
    if (r->failed)
        return;
    if (found < 0) {
        fail(r, "<coord> needs one of thrdId, procId, nodeId, machId, found none");
        return;
    }
    int64_t id;
    if (id_attr(r, attrs, nattrs, coord_targets[found].attr, "coord", 0, &id) != 0)
        return;
    void *entity = find_id(r, coord_targets[found].id_kind, id);
    if (!entity) {
        fail(r, "<coord %s=\"%lld\"> refers to an undefined entity", coord_targets[found].attr,
             (long long)id);
        return;
    }
    frame *f = push(r, E_COORD);
    if (f) {
        f->entity = entity;
        f->field = found;
        strbuf_clear(&r->text);
        r->text_line = f->line;
    }
}

static void start_matrix(cube_reader *r, const xmlChar **attrs, int nattrs)
{
    int64_t id;
    if (id_attr(r, attrs, nattrs, "metricId", "matrix", 0, &id) != 0)
        return;
    cube_metric *m = find_id(r, ID_METRIC, id);
    if (!m) {
        fail(r, "<matrix metricId=\"%lld\"> refers to a metric that is not defined",
             (long long)id);
        return;
    }
    r->matrix_metric = m->is_void ? NULL : m;
    r->skip_matrix = r->wanted && !r->wanted[m->index];
    r->fresh_matrix = !r->metric_had_matrix[m->index];
    if (r->fresh_matrix) {
        r->metric_had_matrix[m->index] = 1;
        memset(r->cnode_in_matrix, 0, kind_count(r, ID_CNODE) / 8 + 1);
    }
    push(r, E_MATRIX);
}

static void start_row(cube_reader *r, const xmlChar **attrs, int nattrs)
{
    int64_t id;
    if (id_attr(r, attrs, nattrs, "cnodeId", "row", 0, &id) != 0)
        return;
    if (r->skip_matrix) {
        push(r, E_SKIP); /* an unwanted metric's row: its text is not even kept */
        return;
    }
    void *cnode = find_id(r, ID_CNODE, id);
    if (!cnode) {
        fail(r, "<row cnodeId=\"%lld\"> refers to a call-tree node that is not defined",
             (long long)id);
        return;
    }
    r->row_cnode = indexes_only(r, ID_CNODE) ? idmap_value_index(cnode)
                                             : ((const cube_cnode *)cnode)->index;
    r->row_cnode_id = id;
    strbuf_clear(&r->text);
    push(r, E_ROW);
    r->text_line = current_line(r);
}

/* A child of <cube>: an attribute, or one of its sections.  1 when it
 * was taken (or failed), 0 when <cube> has no such child. */
static int start_in_cube(cube_reader *r, const char *name, const xmlChar **attrs, int na)
{
    /* The definitions must be complete when <severity> opens: the row
     * width and the thread order are fixed there, and the streaming
     * reader has already handed the definitions out, so a metric, call
     * path or thread defined later could not match the rows read before
     * it, and a second <severity> would start over rows already given. */
    if (r->defs_done && (strcmp(name, "metrics") == 0 || strcmp(name, "program") == 0 ||
                         strcmp(name, "system") == 0 || strcmp(name, "severity") == 0)) {
        fail(r, "expected </cube> after </severity>, found <%s> (the definitions must "
                "come before the severity data, and there is only one <severity>)", name);
        return 1;
    }
    if (strcmp(name, "attr") == 0) {
        strbuf buf = {0}, buf2 = {0};
        const char *key = get_attr(r, attrs, na, "key", 0, &buf);
        const char *value = r->failed ? NULL : get_attr(r, attrs, na, "value", 0, &buf2);
        if (!r->failed && (!key || !value))
            fail(r, "<attr> needs the attributes key and value");
        else if (!r->failed && model_set_attr(r->cube, key, value) != 0)
            fail_oom(r);
        strbuf_free(&buf);
        strbuf_free(&buf2);
        push(r, E_ATTR);
        return 1;
    }
    if (strcmp(name, "doc") == 0)
        { push(r, E_DOC); return 1; }
    if (strcmp(name, "metrics") == 0)
        { push(r, E_METRICS); return 1; }
    if (strcmp(name, "program") == 0)
        { push(r, E_PROGRAM); return 1; }
    if (strcmp(name, "system") == 0)
        { push(r, E_SYSTEM); return 1; }
    if (strcmp(name, "severity") == 0) {
        prepare_severity(r);
        push(r, E_SEVERITY);
        return 1;
    }
    return 0;
}

/* A child of a metric, region or system entity (frame f): a nested
 * entity of the next level, or one of its text fields.  1 when it was
 * taken (or failed), 0 when the entity has no such child. */
static int start_in_entity(cube_reader *r, frame *f, const char *name, const xmlChar **attrs,
                           int na)
{
    if (f->kind == E_METRIC && strcmp(name, "metric") == 0)
        { start_metric(r, f, attrs, na); return 1; }
    if (f->kind == E_MACHINE && strcmp(name, "node") == 0)
        { start_system_item(r, f, E_NODE, name, attrs, na); return 1; }
    if (f->kind == E_NODE && strcmp(name, "process") == 0)
        { start_system_item(r, f, E_PROCESS, name, attrs, na); return 1; }
    if (f->kind == E_PROCESS && strcmp(name, "thread") == 0)
        { start_system_item(r, f, E_THREAD, name, attrs, na); return 1; }
    int slot = text_slot(fields_of(f->kind), name);
    if (slot >= 0 && f->entity) {
        /* The entity was created when its first child element opened, so
         * a text child after that has nothing to go into: an error, not a
         * silent drop (a late <val>VOID</val> would let the metric's rows
         * through). */
        const char *child = f->kind == E_METRIC    ? "metric"
                            : f->kind == E_MACHINE ? "node"
                            : f->kind == E_NODE    ? "process"
                                                   : "thread";
        fail(r, "expected <%s> or </%s>, found <%s> (the text children of <%s> must "
                "come before its <%s> children)",
             child, elem_names[f->kind], name, elem_names[f->kind], child);
        return 1;
    }
    if (slot >= 0) {
        frame *t = push(r, E_TEXT);
        if (t) {
            t->field = slot;
            strbuf_clear(&r->text);
        }
        return 1;
    }
    return 0;
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                     const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                     int nb_attributes, int nb_defaulted, const xmlChar **attrs)
{
    (void)prefix, (void)uri, (void)nb_namespaces, (void)namespaces, (void)nb_defaulted;
    cube_reader *r = ctx;
    if (r->failed)
        return;
    const char *name = (const char *)localname;
    int na = nb_attributes;
    frame *f = top(r);
    if (!f) {
        if (strcmp(name, "cube") != 0)
            fail(r, "not a CUBE file: expected the root element <cube>, found <%s>", name);
        else
            start_cube(r, attrs, na);
        return;
    }
    switch (f->kind) {
    case E_MATRIX: /* the hot path first */
        if (strcmp(name, "row") == 0)
            { start_row(r, attrs, na); return; }
        break;
    case E_CUBE:
        if (start_in_cube(r, name, attrs, na))
            return;
        break;
    case E_DOC:
        if (strcmp(name, "mirrors") == 0)
            { push(r, E_MIRRORS); return; }
        break;
    case E_MIRRORS:
        if (strcmp(name, "murl") == 0) {
            strbuf_clear(&r->text);
            push(r, E_MURL);
            return;
        }
        break;
    case E_METRICS:
        if (strcmp(name, "metric") == 0)
            { start_metric(r, f, attrs, na); return; }
        break;
    case E_PROGRAM:
        if (strcmp(name, "region") == 0)
            { start_region(r, attrs, na); return; }
        if (strcmp(name, "cnode") == 0)
            { start_cnode(r, f, attrs, na); return; }
        break;
    case E_CNODE:
        if (strcmp(name, "cnode") == 0)
            { start_cnode(r, f, attrs, na); return; }
        break;
    case E_SYSTEM:
        if (strcmp(name, "machine") == 0)
            { start_system_item(r, f, E_MACHINE, name, attrs, na); return; }
        if (strcmp(name, "topologies") == 0)
            { push(r, E_TOPOLOGIES); return; }
        break;
    case E_TOPOLOGIES:
        if (strcmp(name, "cart") == 0)
            { start_cart(r, attrs, na); return; }
        break;
    case E_CART:
        if (strcmp(name, "dim") == 0)
            { start_dim(r, f, attrs, na); return; }
        if (strcmp(name, "coord") == 0)
            { start_coord(r, f, attrs, na); return; }
        break;
    case E_SEVERITY:
        if (strcmp(name, "matrix") == 0)
            { start_matrix(r, attrs, na); return; }
        break;
    case E_METRIC:
    case E_REGION:
    case E_MACHINE:
    case E_NODE:
    case E_PROCESS:
    case E_THREAD:
        if (start_in_entity(r, f, name, attrs, na))
            return;
        break;
    default:
        break;
    }
    skip_unknown(r, name);
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                   const xmlChar *uri)
{
    (void)localname, (void)prefix, (void)uri;
    cube_reader *r = ctx;
    if (r->failed || !r->depth)
        return;
    frame *f = top(r);
    frame *parent = r->depth > 1 ? f - 1 : NULL;
    switch (f->kind) {
    case E_ROW:
        finish_row(r);
        break;
    case E_MATRIX:
        r->matrix_metric = NULL;
        break;
    case E_TEXT: {
        char *copy = cube_strdup(strbuf_str(&r->text));
        if (!copy) {
            fail_oom(r);
            break;
        }
        free(parent->text[f->field]);
        parent->text[f->field] = copy;
        break;
    }
    case E_MURL:
        if (model_add_mirror(r->cube, strbuf_str(&r->text)) != 0)
            fail_oom(r);
        break;
    case E_METRIC:
        ensure_metric(r, f, parent);
        break;
    case E_REGION: {
        cube_region *reg = model_add_region(r->cube, f->id, field_text(f, 0), f->begin, f->end,
                                            field_text(f, 1), field_text(f, 2), f->mod);
        if (!reg)
            fail_oom(r);
        else
            register_id(r, ID_REGION, "region", f->id, reg->index, f->line);
        break;
    }
    case E_MACHINE:
        ensure_machine(r, f);
        break;
    case E_NODE:
        ensure_node(r, f, parent);
        break;
    case E_PROCESS:
        ensure_process(r, f, parent);
        break;
    case E_THREAD:
        create_thread(r, f, parent);
        break;
    case E_CART: {
        cube_cartesian *t = f->entity;
        if (f->count != t->ndims)
            fail(r, "<cart> declares ndims=%ld but has %ld <dim> elements", t->ndims,
                 f->count);
        break;
    }
    case E_COORD: {
        cube_cartesian *t = parent->entity;
        long coords[1024];
        const char *p = strbuf_str(&r->text);
        long d = 0;
        while (!r->failed) {
            while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
                p++;
            if (!*p)
                break;
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p || (*end && *end != ' ' && *end != '\t' && *end != '\n' &&
                             *end != '\r')) {
                fail(r, "<coord> must hold integers, found \"%.20s\"", p);
                break;
            }
            if (d == t->ndims) {
                fail(r, "<coord> has more than the %ld coordinates of its topology", t->ndims);
                break;
            }
            if (v < 0 || v >= t->dims[d]) {
                fail(r, "coordinate %ld of dimension %ld is outside 0..%ld", v, d,
                     t->dims[d] - 1);
                break;
            }
            coords[d++] = v;
            p = end;
        }
        if (!r->failed && d != t->ndims)
            fail(r, "<coord> needs %ld coordinates, found %ld", t->ndims, d);
        if (!r->failed &&
            cube_def_coords_of(r->cube, t, coord_targets[f->field].kind, f->entity, coords) != 0)
            fail_oom(r);
        break;
    }
    case E_CUBE:
        r->root_closed = 1;
        break;
    default:
        break;
    }
    release_frame(f);
    r->depth--;
}

static void on_characters(void *ctx, const xmlChar *ch, int len)
{
    cube_reader *r = ctx;
    if (r->failed || !r->depth)
        return;
    elem_kind k = r->stack[r->depth - 1].kind;
    if (k == E_ROW || k == E_TEXT || k == E_MURL || k == E_COORD) {
        if (strbuf_append(&r->text, (const char *)ch, (size_t)len) != 0)
            fail_oom(r);
    }
}

/* A CUBE file has no DOCTYPE.  Refusing it before its internal subset is
 * parsed means no entity is ever declared, so none can be expanded (no
 * entity bombs) and no external DTD or entity is ever loaded. */
static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *ext_id,
                       const xmlChar *system_id)
{
    (void)name, (void)ext_id, (void)system_id;
    fail(ctx, "a DOCTYPE is not allowed in a CUBE file (no DTD or entity is ever loaded)");
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                           const xmlChar *system_id, xmlChar *content)
{
    (void)name, (void)type, (void)public_id, (void)system_id, (void)content;
    fail(ctx, "entity declarations are not allowed in a CUBE file");
}

/* ---------------------------------------------------------------------- */
/* driving the parser                                                      */

/* A file that ends inside the open element `f`.  libxml2's own words for
 * this are misleading ("Extra content at the end of the document"): say
 * what happened, naming the element as the file does. */
static void fail_truncated(cube_reader *r, const frame *f)
{
    if (f->kind == E_SKIP) {
        fail(r, "unexpected end of file: expected the end of the unknown element <%s> (the "
                "file is truncated)", f->name ? f->name : "?");
        return;
    }
    /* a text element's frame says only "text": its name is its field's */
    const char *name = elem_names[f->kind];
    if (f->kind == E_TEXT && f > r->stack && fields_of(f[-1].kind))
        name = fields_of(f[-1].kind)[f->field];
    fail(r, "unexpected end of file: expected </%s> (the file is truncated)", name);
}

/* UTF-16 and UTF-32, told by their start (XML 1.0, appendix F): a byte
 * order mark, or a first character '<' or white space next to NUL bytes.
 * libxml2 would read them, but the raw-'&' repair (input.c) works on bytes
 * and corrupts them, and no CUBE writer makes them: refuse them. */
static int starts_utf16_or_32(const unsigned char *s, size_t n)
{
    if (n < 2)
        return 0;
    if ((s[0] == 0xFE && s[1] == 0xFF) || (s[0] == 0xFF && s[1] == 0xFE))
        return 1; /* UTF-16 BE and LE; FF FE 00 00 is UTF-32LE */
    if (n >= 4 && s[0] == 0 && s[1] == 0 &&
        ((s[2] == 0xFE && s[3] == 0xFF) || (s[2] == 0 && (s[3] == '<' || is_space((char)s[3])))))
        return 1; /* UTF-32BE, with or without a byte order mark */
    return (s[0] == 0 && (s[1] == '<' || is_space((char)s[1]))) ||
           (s[1] == 0 && (s[0] == '<' || is_space((char)s[0]))); /* UTF-16, UTF-32LE */
}

/* Remember where the input's first non-blank line is, and its start. */
static void note_first_text(cube_reader *r, const char *data, size_t n)
{
    size_t i = 0;
    r->bytes_in += n;
    for (; i < n && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n');
         i++)
        r->blank_lines += data[i] == '\n';
    if (i == n)
        return;
    r->first_text_line = r->blank_lines + 1;
    size_t k = 0;
    for (; i < n && k + 1 < sizeof r->first_text && data[i] != '\n' && data[i] != '\r'; i++)
        r->first_text[k++] = data[i] >= 0x20 && data[i] < 0x7f ? data[i] : '?';
    r->first_text[k] = '\0';
}

/* A document without a <cube> root.  libxml2's own words do not fit here:
 * it calls an empty file "Extra content at the end of the document" and a
 * text file "Document is empty".  `at_end`: the input ended before any
 * element opened. */
static void fail_not_cube(cube_reader *r, int at_end)
{
    static const char expected[] = "not a CUBE file: expected an XML document with root <cube>";
    if (!r->first_text_line)
        fail_at(r, 1, "%s, found %s", expected,
                r->bytes_in ? "only white space" : "an empty file");
    else if (r->first_text[0] != '<')
        fail_at(r, r->first_text_line, "%s, found text \"%s\"", expected, r->first_text);
    else if (at_end)
        fail(r, "%s, found no element", expected);
    else
        fail_at(r, r->xml_error_line, "%s: %s", expected, r->xml_error);
}

/* libxml2's push parser rescans a start tag from its '<' for every chunk
 * until the '>' arrives: a tag of 64 MiB takes seconds, of 1 GiB hours.
 * Tags (attribute names and values), comments and CDATA sections of a few
 * MiB are read; longer ones are refused.  1 when the bytes in `data` make
 * the current tag too long (a '>' inside an attribute value ends the count
 * early: a bound on the common case, not a parser). */
#define TAG_MAX_MIB 16

static int tag_too_long(cube_reader *r, const char *data, size_t n)
{
    const char *p = data, *end = data + n;
    while (p < end) {
        if (r->in_tag) {
            const char *gt = memchr(p, '>', (size_t)(end - p));
            size_t len = gt ? (size_t)(gt - p) : (size_t)(end - p);
            r->tag_bytes += len;
            if (r->tag_bytes > (size_t)TAG_MAX_MIB << 20)
                return 1;
            if (!gt)
                break;
            r->in_tag = 0;
            p = gt + 1;
        } else {
            const char *lt = memchr(p, '<', (size_t)(end - p));
            if (!lt)
                break;
            r->in_tag = 1;
            r->tag_bytes = 0;
            p = lt + 1;
        }
    }
    return 0;
}

/* Feed the parser until a row is queued (streaming) or the input ends.
 * Returns 0 when more may come, 1 at the end, -1 on error. */
static int pump(cube_reader *r)
{
    cube_status err;
    while (!r->failed && !r->at_end) {
        const char *data;
        long n = input_read(r->input, &data, &err);
        if (n < 0) {
            fail_with(r, err.code, current_line(r), "%s", err.message);
            break;
        }
        if (n == 0) {
            xmlParseChunk(r->xml, NULL, 0, 1);
            r->at_end = 1;
            if (r->failed)
                break;
            if (!r->root_seen)
                fail_not_cube(r, 1);
            else if (!r->root_closed && r->depth)
                fail_truncated(r, top(r));
            else if (r->xml_error[0])
                fail_at(r, r->xml_error_line, "not well-formed XML: %s", r->xml_error);
            break;
        }
        if (r->bytes_in == 0 && starts_utf16_or_32((const unsigned char *)data, (size_t)n)) {
            fail_at(r, 1, "not a CUBE file: UTF-16/UTF-32 input is not supported (CUBE files "
                          "are UTF-8)");
            break;
        }
        if (!r->first_text_line)
            note_first_text(r, data, (size_t)n);
        if (tag_too_long(r, data, (size_t)n)) {
            fail_at(r, current_line(r),
                    "a tag, comment or CDATA section longer than %d MiB: not read",
                    TAG_MAX_MIB);
            break;
        }
        int rc = xmlParseChunk(r->xml, data, (int)n, 0);
        if (r->failed)
            break;
        if (rc != 0 || r->xml_error[0]) {
            if (!r->root_seen && !r->depth)
                fail_not_cube(r, 0);
            else
                fail_at(r, r->xml_error_line, "not well-formed XML: %s", r->xml_error);
            break;
        }
        if (!r->store_rows && r->queue_pos < r->queue_len)
            return 0;
        if (!r->store_rows && r->defs_done && r->queue_len == 0 && r->queue_pos == 0 &&
            !r->in_severity) {
            r->in_severity = 1;
            return 0; /* definitions are complete: hand them out */
        }
    }
    if (r->failed)
        return -1;
    if (r->at_end) {
        long line;
        size_t amps = input_raw_ampersands(r->input, &line);
        if (amps)
            cube_add_warning(r->cube,
                             "%s:%ld: raw '&' is not well-formed XML; read as a literal '&' "
                             "(%zu in the file)", r->name, line, amps);
        if (r->unknown_elements)
            cube_add_warning(r->cube, "%s:%ld: unknown element <%s> skipped (%zu in the file)",
                             r->name, r->first_unknown_line, r->first_unknown,
                             r->unknown_elements);
    }
    return 1;
}

/* libxml2 sets up its global tables in xmlInitParser, which must not run
 * in two threads at once: the first reader of the process runs it, and
 * readers started meanwhile in other threads wait until it is done.  The
 * once-flag guards libxml2's global state; it holds none of libcube's. */
static pthread_once_t libxml2_initialized = PTHREAD_ONCE_INIT;

static void init_libxml2(void)
{
    xmlInitParser();
}

static cube_reader *reader_new(cube_t *c, cube_input *in, const char *name, int store_rows)
{
    cube_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->cube = c;
    r->store_rows = store_rows;
    r->input = in;
    r->name = cube_strdup(name);
    r->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!r->name || !r->c_locale) {
        if (r->c_locale)
            freelocale(r->c_locale);
        free(r->name);
        free(r);
        return NULL;
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
    r->xml = xmlCreatePushParserCtxt(&sax, r, NULL, 0, r->name);
    if (!r->xml) {
        freelocale(r->c_locale);
        free(r->name);
        free(r);
        return NULL;
    }
    /* No network and no DTD.  NOENT makes libxml2 hand out attribute
     * values decoded ("&amp;" as "&", not as "&#38;"); HUGE lifts its depth
     * limit of 256 nested elements (deep call trees are real).  Both are
     * safe only because a DOCTYPE is refused, so that no entity but the five
     * predefined ones can ever exist. */
    xmlCtxtUseOptions(r->xml, XML_PARSE_NONET | XML_PARSE_NOENT | XML_PARSE_HUGE);
    return r;
}

static void reader_free(cube_reader *r, int free_cube)
{
    if (!r)
        return;
    if (r->xml) {
        xmlFreeParserCtxt(r->xml);
    }
    input_close(r->input);
    cubex_reader_free(r->cubex);
    for (size_t i = 0; i < r->depth; i++)
        release_frame(&r->stack[i]);
    free(r->stack);
    for (int k = 0; k < 7; k++)
        idmap_free(&r->ids[k]);
    strbuf_free(&r->text);
    free(r->thread_order);
    free(r->scratch);
    free(r->metric_had_matrix);
    free(r->wanted);
    free(r->cnode_in_matrix);
    free(r->queue);
    free(r->queue_values);
    free(r->name);
    if (r->c_locale)
        freelocale(r->c_locale);
    if (free_cube && !r->cube_given_away)
        cube_free(r->cube);
    free(r);
}

/* ---------------------------------------------------------------------- */
/* the public entry points                                                 */

/* Is the input a CUBE 4 archive (a tar archive, plain or gzip-compressed)?
 * Told by its first bytes, before any reader takes them.  An input that
 * cannot even be started is left to the XML reader, which reports its
 * error as for any file. */
static int is_archive(cube_input *in)
{
    cube_status ignored;
    return input_start(in, &ignored) == 0 && (input_kind(in) & INPUT_TAR);
}

static int read_all(cube_t *c, cube_input *in, const char *name)
{
    if (is_archive(in))
        return cubex_read_input(c, in, name);
    cube_reader *r = reader_new(c, in, name, 1);
    if (!r) {
        input_close(in);
        cube_set_error(c, CUBE_ENOMEM, "%s: out of memory", name);
        return -1;
    }
    int rc = pump(r);
    reader_free(r, 0);
    /* rows were appended without their hash-table entries: the first
     * look-up adds them (rows_indexed in cube_private.h) */
    atomic_store_explicit(&c->rows_indexed, 0, memory_order_relaxed);
    return rc < 0 ? -1 : 0;
}

int cube_read(cube_t *c, const char *path)
{
    if (!c)
        return -1;
    cube_clear_error(c);
    if (!path) {
        cube_set_error(c, CUBE_EINVAL, "cube_read needs a path");
        return -1;
    }
    if (strcmp(path, "-") == 0)
        return cube_read_fd(c, 0, "-");
    cube_input *in = input_open_path(path, &c->status);
    if (!in)
        return -1;
    return read_all(c, in, path);
}

int cube_read_fd(cube_t *c, int fd, const char *name)
{
    if (!c)
        return -1;
    cube_clear_error(c);
    if (!name)
        name = "(input)";
    cube_input *in = input_open_fd(fd, name, &c->status);
    if (!in)
        return -1;
    return read_all(c, in, name);
}

/* A reader over `in`, or, when `in` is NULL, one that only carries the
 * error `why` (NULL: out of memory), so the caller can ask it. */
/* The streaming reader of a CUBE 4 archive: NULL only when out of memory
 * (c and in are then freed). */
static cube_reader *open_archive(cube_t *c, cube_input *in, const char *name, unsigned flags)
{
    cube_reader *r = calloc(1, sizeof *r);
    if (r)
        r->name = cube_strdup(name);
    if (!r || !r->name) {
        free(r);
        input_close(in);
        cube_free(c);
        return NULL;
    }
    r->cube = c;
    r->no_call_tree = (flags & CUBE_READ_NO_CALL_TREE) != 0;
    r->cubex = cubex_reader_open(c, in, name, flags & CUBE_READ_NO_CALL_TREE);
    r->failed = !r->cubex;
    return r;
}

static cube_reader *open_stream(cube_input *in, const char *name, const cube_status *why,
                                unsigned flags)
{
    cube_t *c = cube_create();
    if (c && in && is_archive(in))
        return open_archive(c, in, name, flags);
    cube_reader *r = c && in ? reader_new(c, in, name, 0) : NULL;
    if (!r) {
        /* a reader that only carries the error, so the caller can ask it */
        r = calloc(1, sizeof *r);
        if (!r) {
            input_close(in);
            cube_free(c);
            return NULL;
        }
        r->cube = c ? c : cube_create();
        r->input = in;
        r->failed = 1;
        if (r->cube && why && !in)
            status_copy(&r->cube->status, why);
        else if (r->cube)
            cube_set_error(r->cube, CUBE_ENOMEM, "out of memory");
        return r;
    }
    r->no_call_tree = (flags & CUBE_READ_NO_CALL_TREE) != 0;
    if (pump(r) < 0)
        r->failed = 1;
    return r;
}

cube_reader *cube_reader_open_with(const char *path, unsigned flags)
{
    if (!path) {
        cube_status why;
        status_set(&why, CUBE_EINVAL, "cube_reader_open needs a path");
        return open_stream(NULL, "", &why, flags);
    }
    if (strcmp(path, "-") == 0)
        return cube_reader_open_fd_with(0, "-", flags);
    cube_status why;
    cube_input *in = input_open_path(path, &why);
    return open_stream(in, path, &why, flags);
}

cube_reader *cube_reader_open_fd_with(int fd, const char *name, unsigned flags)
{
    if (!name)
        name = "(input)";
    cube_status why;
    cube_input *in = input_open_fd(fd, name, &why);
    return open_stream(in, name, &why, flags);
}

cube_reader *cube_reader_open(const char *path)
{
    return cube_reader_open_with(path, 0);
}

cube_reader *cube_reader_open_fd(int fd, const char *name)
{
    return cube_reader_open_fd_with(fd, name, 0);
}

const cube_t *cube_reader_definitions(cube_reader *r)
{
    return r && !r->failed ? r->cube : NULL;
}

cube_t *cube_reader_take_definitions(cube_reader *r)
{
    if (!r || r->failed)
        return NULL;
    /* the reader keeps using the definitions for the rows still to come;
     * it just no longer frees them */
    r->cube_given_away = 1;
    return r->cube;
}

/* The next row, reading on as needed: 1, 0 at the end, -1. */
static int next_row(cube_reader *r, size_t *metric, size_t *cnode, const double **values)
{
    if (!r || r->failed)
        return -1;
    /* a reader that has not failed holds at most the error of a call that
     * was not final (cube_reader_select_metrics): cleared by this one */
    cube_clear_error(r->cube);
    if (r->cubex) {
        /* an archive's rows come metric by metric, each pair once */
        int rc = cubex_reader_next(r->cubex, metric, cnode, values);
        r->failed = rc < 0;
        r->last_may_repeat = 0;
        return rc;
    }
    while (r->queue_pos == r->queue_len) {
        r->queue_pos = r->queue_len = 0;
        if (r->at_end)
            return 0;
        if (pump(r) < 0)
            return -1;
    }
    size_t i = r->queue_pos++;
    r->last_may_repeat = r->queue[i].may_repeat;
    *metric = r->queue[i].metric;
    *cnode = r->queue[i].cnode;
    *values = r->queue_values + i * r->cube->threads.count;
    return 1;
}

int cube_reader_next_row(cube_reader *r, const cube_metric **met, const cube_cnode **cnode,
                         const double **values)
{
    if (r && r->no_call_tree && !r->failed) {
        cube_set_error(r->cube, CUBE_EINVAL,
                       "%s: read without its call tree (CUBE_READ_NO_CALL_TREE): "
                       "take the rows with cube_reader_next_row_index",
                       r->name);
        r->failed = 1;
        return -1;
    }
    size_t m, n;
    int rc = next_row(r, &m, &n, values);
    if (rc == 1) {
        *met = r->cube->metrics.items[m];
        *cnode = r->cube->cnodes.items[n];
    }
    return rc;
}

int cube_reader_next_row_index(cube_reader *r, size_t *metric, size_t *cnode,
                               const double **values)
{
    return next_row(r, metric, cnode, values);
}

int cube_reader_select_metrics(cube_reader *r, const unsigned char *wanted)
{
    if (!r || r->failed || !r->cube)
        return -1;
    cube_clear_error(r->cube);
    if (!wanted) {
        cube_set_error(r->cube, CUBE_EINVAL, "cube_reader_select_metrics needs the wanted set");
        return -1;
    }
    size_t n = r->cube->metrics.count;
    unsigned char *copy = malloc(n ? n : 1);
    if (!copy) {
        /* not final: the reader goes on reading every metric */
        cube_set_error(r->cube, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    memcpy(copy, wanted, n);
    free(r->wanted);
    r->wanted = copy;
    if (r->cubex)
        cubex_reader_want(r->cubex, copy);
    return 0;
}

int cube_reader_row_may_repeat(const cube_reader *r)
{
    return r ? r->last_may_repeat : 0;
}

cube_code cube_reader_error_code(const cube_reader *r)
{
    return r && r->cube ? cube_error_code(r->cube) : CUBE_ENOMEM;
}

const char *cube_reader_error(const cube_reader *r)
{
    return r && r->cube ? cube_error(r->cube) : "out of memory";
}

size_t cube_reader_num_warnings(const cube_reader *r)
{
    return r && r->cube ? cube_num_warnings(r->cube) : 0;
}

const char *cube_reader_warning(const cube_reader *r, size_t i)
{
    return r && r->cube ? cube_warning(r->cube, i) : NULL;
}

void cube_reader_close(cube_reader *r)
{
    reader_free(r, 1);
}
