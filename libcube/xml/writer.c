/*
 * writer.c - writing an experiment as CUBE 3 XML, in the layout the
 * original CUBE 3 reader (a strict scanner, not an XML parser) accepts:
 * double-quoted attributes, no comments, LF line ends, `Id=` on system
 * items and `id=` elsewhere, attributes before <doc>, regions before
 * call-tree nodes, one value per line in rows.
 *
 * Ids are written as the entities' dense indexes, so every id of a kind is
 * unique and thread ids cover 0..n-1 (the original reader crashes on gaps),
 * and row values are simply written in thread index order.  Trees are
 * walked with explicit stacks, never by recursion.  Numbers are written in
 * the shortest form that reads back to the same double; all-zero rows (but
 * of a maximum or minimum) and VOID metrics are not written, and a value
 * that is not finite fails the write.  Strings are escaped into well-formed UTF-8 XML (xml_out.c).
 */
#define _GNU_SOURCE
#include "core/cube_private.h"
#include "core/number_private.h"
#include "cubex/binary_private.h"
#include "xml/writer_private.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Formatting must not depend on the caller's locale (a German LC_NUMERIC
 * would write "1,5"): every public entry point switches this thread to the
 * "C" locale and back.  This costs no allocation: glibc's newlocale returns
 * its static C locale object for "C" with LC_ALL_MASK (and freelocale
 * ignores it), so cube_write_sev_row may do it once per row. */
typedef struct {
    locale_t c_locale, saved;
} c_locale_scope;

static int enter_c_locale(cube_t *c, c_locale_scope *s)
{
    s->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!s->c_locale) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    s->saved = uselocale(s->c_locale);
    return 0;
}

static void leave_c_locale(c_locale_scope *s)
{
    uselocale(s->saved);
    freelocale(s->c_locale);
}

/* Indentation stops growing at this level: a call tree 100 000 deep would
 * otherwise be written with 10^10 spaces (a 7 MB file became 20 GB). */
#define INDENT_MAX_LEVEL 64

static void indent(xml_out *o, size_t level)
{
    static const char spaces[] = "                                                            ";
    size_t n = (level < INDENT_MAX_LEVEL ? level : INDENT_MAX_LEVEL) * 2;
    while (n > sizeof spaces - 1) {
        out_write(o, spaces, sizeof spaces - 1);
        n -= sizeof spaces - 1;
    }
    out_write(o, spaces, n);
}

/* <tag>escaped text</tag> on a line of its own */
static void text_element(xml_out *o, size_t level, const char *tag, const char *text)
{
    indent(o, level);
    out_str(o, "<");
    out_str(o, tag);
    out_str(o, ">");
    out_escaped(o, text);
    out_str(o, "</");
    out_str(o, tag);
    out_str(o, ">\n");
}

static void attr_long(xml_out *o, const char *name, long long v)
{
    out_str(o, " ");
    out_str(o, name);
    out_str(o, "=\"");
    out_long(o, v);
    out_str(o, "\"");
}

static void attr_text(xml_out *o, const char *name, const char *v)
{
    out_str(o, " ");
    out_str(o, name);
    out_str(o, "=\"");
    out_escaped(o, v);
    out_str(o, "\"");
}

/* A depth-first walk over a forest without recursion: the caller gives the
 * roots and how to reach children; `visit` opens an item and `leave` closes
 * it, each with the item's depth. */
typedef struct {
    void *item;
    size_t next_child;
} walk_frame;

typedef void **(*children_fn)(void *item, size_t *count);
typedef void (*visit_fn)(xml_out *o, void *item, size_t depth);

static int walk_forest(xml_out *o, void **roots, size_t num_roots, children_fn children,
                       visit_fn open, visit_fn close, size_t base_depth)
{
    size_t cap = 64, depth = 0;
    walk_frame *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return -1;
    for (size_t r = 0; r < num_roots; r++) {
        stack[0] = (walk_frame){roots[r], 0};
        depth = 1;
        open(o, roots[r], base_depth);
        while (depth) {
            walk_frame *f = &stack[depth - 1];
            size_t count;
            void **kids = children(f->item, &count);
            if (f->next_child == count) {
                close(o, f->item, base_depth + depth - 1);
                depth--;
                continue;
            }
            void *child = kids[f->next_child++];
            if (depth == cap) {
                walk_frame *grown = realloc(stack, cap * 2 * sizeof *grown);
                if (!grown) {
                    free(stack);
                    return -1;
                }
                stack = grown;
                cap *= 2;
            }
            stack[depth++] = (walk_frame){child, 0};
            open(o, child, base_depth + depth - 1);
        }
    }
    free(stack);
    return 0;
}

static void **metric_children(void *item, size_t *count)
{
    cube_metric *m = item;
    *count = m->num_children;
    return (void **)m->children;
}

static void open_metric(xml_out *o, void *item, size_t depth)
{
    cube_metric *m = item;
    indent(o, depth);
    out_str(o, "<metric");
    attr_long(o, "id", (long long)m->index);
    out_str(o, ">\n");
    text_element(o, depth + 1, "disp_name", m->disp_name);
    text_element(o, depth + 1, "uniq_name", m->uniq_name);
    text_element(o, depth + 1, "dtype", m->dtype);
    text_element(o, depth + 1, "uom", m->uom);
    if (m->val[0])
        text_element(o, depth + 1, "val", m->val);
    else if (cube_metric_is_derived(m))
        /* computed by an expression CUBE 3 cannot hold: no values */
        text_element(o, depth + 1, "val", "VOID");
    text_element(o, depth + 1, "url", m->url);
    text_element(o, depth + 1, "descr", m->descr);
}

static void close_metric(xml_out *o, void *item, size_t depth)
{
    (void)item;
    indent(o, depth);
    out_str(o, "</metric>\n");
}

static void **cnode_children(void *item, size_t *count)
{
    cube_cnode *n = item;
    *count = n->num_children;
    return (void **)n->children;
}

static void open_cnode(xml_out *o, void *item, size_t depth)
{
    cube_cnode *n = item;
    indent(o, depth);
    out_str(o, "<cnode");
    attr_long(o, "id", (long long)n->index);
    if (n->line != -1)
        attr_long(o, "line", n->line);
    if (n->mod[0])
        attr_text(o, "mod", n->mod);
    attr_long(o, "calleeId", (long long)n->callee->index);
    out_str(o, ">\n");
}

static void close_cnode(xml_out *o, void *item, size_t depth)
{
    (void)item;
    indent(o, depth);
    out_str(o, "</cnode>\n");
}

/* The start of a system entity: its tag with the Id, its name and, for
 * processes and threads, its rank (rank < 0: none written). */
static void open_system_entity(xml_out *o, size_t level, const char *tag, size_t index,
                               const char *name, int64_t rank, int with_rank)
{
    indent(o, level);
    out_str(o, "<");
    out_str(o, tag);
    attr_long(o, "Id", (long long)index);
    out_str(o, ">\n");
    text_element(o, level + 1, "name", name);
    if (with_rank) {
        indent(o, level + 1);
        out_str(o, "<rank>");
        out_long(o, rank);
        out_str(o, "</rank>\n");
    }
}

static void write_node(xml_out *o, const cube_node *n)
{
    open_system_entity(o, 3, "node", n->index, n->name, 0, 0);
    for (size_t pi = 0; pi < n->num_processes; pi++) {
        const cube_process *p = n->processes[pi];
        open_system_entity(o, 4, "process", p->index, p->name, p->rank, 1);
        for (size_t ti = 0; ti < p->num_threads; ti++) {
            const cube_thread *t = p->threads[ti];
            open_system_entity(o, 5, "thread", t->index, t->name, t->rank, 1);
            out_str(o, "          </thread>\n");
        }
        out_str(o, "        </process>\n");
    }
    out_str(o, "      </node>\n");
}

static int write_system(const cube_t *c, xml_out *o)
{
    /* every node is pushed once: the stack never holds more than all */
    const cube_node **stack = malloc((c->nodes.count + 1) * sizeof *stack);
    if (!stack)
        return -1;
    out_str(o, "  <system>\n");
    for (size_t mi = 0; mi < c->machines.count; mi++) {
        const cube_machine *m = c->machines.items[mi];
        out_str(o, "    <machine");
        attr_long(o, "Id", (long long)m->index);
        out_str(o, ">\n");
        text_element(o, 3, "name", m->name);
        if (m->descr[0])
            text_element(o, 3, "descr", m->descr);
        /* CUBE 3 has two levels, machine and node: the nodes of a deeper
         * system tree are all written as nodes of their machine, in
         * pre-order (conversion_warnings says so) */
        size_t top = 0;
        for (size_t ni = m->num_nodes; ni-- > 0;)
            stack[top++] = m->nodes[ni];
        while (top) {
            const cube_node *n = stack[--top];
            for (size_t k = n->num_children; k-- > 0;)
                stack[top++] = n->children[k];
            write_node(o, n);
        }
        out_str(o, "    </machine>\n");
    }
    out_str(o, "    <topologies>\n");
    static const char *const coord_attr[] = {"thrdId", "procId", "nodeId", "machId"};
    for (size_t ci = 0; ci < c->carts.count; ci++) {
        const cube_cartesian *t = c->carts.items[ci];
        /* the original reader rejects a topology without coordinates */
        if (!t->num_coords)
            continue;
        out_str(o, "      <cart");
        if (t->name[0])
            attr_text(o, "name", t->name);
        attr_long(o, "ndims", t->ndims);
        out_str(o, ">\n");
        for (long d = 0; d < t->ndims; d++) {
            out_str(o, "        <dim");
            if (t->dim_names && t->dim_names[d])
                attr_text(o, "name", t->dim_names[d]);
            attr_long(o, "size", t->dims[d]);
            out_str(o, t->periods[d] ? " periodic=\"true\"/>\n" : " periodic=\"false\"/>\n");
        }
        for (size_t k = 0; k < t->num_coords; k++) {
            const cube_coord *cd = &t->coords[k];
            size_t index = 0;
            switch (cd->kind) {
            case CUBE_COORD_THREAD: index = ((cube_thread *)cd->entity)->index; break;
            case CUBE_COORD_PROCESS: index = ((cube_process *)cd->entity)->index; break;
            case CUBE_COORD_NODE: index = ((cube_node *)cd->entity)->index; break;
            case CUBE_COORD_MACHINE: index = ((cube_machine *)cd->entity)->index; break;
            }
            out_str(o, "        <coord");
            attr_long(o, coord_attr[cd->kind], (long long)index);
            out_str(o, ">");
            for (long d = 0; d < t->ndims; d++) {
                if (d)
                    out_str(o, " ");
                out_long(o, cd->coords[d]);
            }
            out_str(o, "</coord>\n");
        }
        out_str(o, "      </cart>\n");
    }
    out_str(o, "    </topologies>\n");
    out_str(o, "  </system>\n");
    free(stack);
    return 0;
}

/* What a CUBE 3 file cannot hold of an experiment read from CUBE 4, one
 * warning per kind of information, naming what was dropped or folded. */
static int conversion_warnings(cube_t *c)
{
    size_t deep = 0, groups = 0, locations = 0, params = 0;
    for (size_t i = 0; i < c->nodes.count; i++)
        deep += ((cube_node *)c->nodes.items[i])->parent != NULL;
    for (size_t i = 0; i < c->processes.count; i++)
        groups += ((cube_process *)c->processes.items[i])->type != CUBE_GROUP_PROCESS;
    for (size_t i = 0; i < c->threads.count; i++)
        locations += ((cube_thread *)c->threads.items[i])->type != CUBE_LOCATION_THREAD;
    for (size_t i = 0; i < c->cnodes.count; i++)
        params += ((cube_cnode *)c->cnodes.items[i])->num_params != 0;
    int rc = 0;
    if (deep)
        rc |= cube_add_warning(c, "CUBE 3 has two system tree levels: %zu system tree nodes "
                                  "below other nodes written as nodes of their machine",
                               deep);
    if (groups || locations)
        rc |= cube_add_warning(c, "CUBE 3 has processes and threads only: %zu location groups "
                                  "and %zu locations of other types written as processes and "
                                  "threads",
                               groups, locations);
    if (params)
        rc |= cube_add_warning(c, "CUBE 3 has no call-path parameters: the parameters of %zu "
                                  "call paths dropped",
                               params);
    strbuf inclusive = {0}, derived = {0}, structured = {0};
    size_t num_inclusive = 0, num_derived = 0, num_structured = 0;
    for (size_t i = 0; i < c->metrics.count; i++) {
        const cube_metric *m = c->metrics.items[i];
        /* a metric may be named in more than one list: stored inclusive
         * and of a structured type */
        strbuf *lists[2] = {NULL, NULL};
        cubex_dtype t;
        if (cube_metric_is_derived(m)) {
            lists[0] = &derived;
            num_derived++;
        } else if (model_stored_inclusive(m)) {
            lists[0] = &inclusive;
            num_inclusive++;
        }
        if (!cube_metric_is_derived(m) && cubex_dtype_parse(m->dtype, &t) == 0 &&
            cubex_dtype_components(t) > 1) {
            lists[1] = &structured;
            num_structured++;
        }
        for (int k = 0; k < 2; k++)
            if (lists[k])
                rc |= strbuf_append_item(lists[k], m->uniq_name, 200);
    }
    if (num_inclusive)
        rc |= cube_add_warning(c, "CUBE 3 stores call-tree exclusive values: %zu metrics stored "
                                  "inclusive (%s) written as exclusive values",
                               num_inclusive, strbuf_str(&inclusive));
    if (num_derived)
        rc |= cube_add_warning(c, "CUBE 3 has no derived metrics: %zu derived metrics (%s) "
                                  "written without values (VOID)",
                               num_derived, strbuf_str(&derived));
    if (num_structured)
        rc |= cube_add_warning(c, "CUBE 3 has one number per value: %zu metrics of structured "
                                  "value types (%s) written as one number each",
                               num_structured, strbuf_str(&structured));
    strbuf_free(&inclusive);
    strbuf_free(&derived);
    strbuf_free(&structured);
    return rc ? -1 : 0;
}

static int write_definitions(cube_t *c, xml_out *o)
{
    if (conversion_warnings(c) != 0) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    out_str(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"3.0\">\n");
    for (size_t i = 0; i < c->attrs.count; i++) {
        const cube_attr *a = c->attrs.items[i];
        out_str(o, "  <attr");
        attr_text(o, "key", a->key);
        attr_text(o, "value", a->value);
        out_str(o, "/>\n");
    }
    out_str(o, "  <doc>\n    <mirrors>\n");
    for (size_t i = 0; i < c->mirrors.count; i++)
        text_element(o, 3, "murl", c->mirrors.items[i]);
    out_str(o, "    </mirrors>\n  </doc>\n");
    out_str(o, "  <metrics>\n");
    int rc = walk_forest(o, c->root_metrics.items, c->root_metrics.count, metric_children,
                         open_metric, close_metric, 2);
    out_str(o, "  </metrics>\n  <program>\n");
    for (size_t i = 0; i < c->regions.count; i++) {
        const cube_region *r = c->regions.items[i];
        out_str(o, "    <region");
        attr_long(o, "id", (long long)r->index);
        attr_text(o, "mod", r->mod);
        attr_long(o, "begin", r->begin_line);
        attr_long(o, "end", r->end_line);
        out_str(o, ">\n");
        text_element(o, 3, "name", r->name);
        text_element(o, 3, "url", r->url);
        text_element(o, 3, "descr", r->descr);
        out_str(o, "    </region>\n");
    }
    if (rc == 0)
        rc = walk_forest(o, c->root_cnodes.items, c->root_cnodes.count, cnode_children,
                         open_cnode, close_cnode, 2);
    out_str(o, "  </program>\n");
    if (rc == 0)
        rc = write_system(c, o);
    out_str(o, "  <severity>\n");
    c->stream_metric = SIZE_MAX;
    if (rc != 0)
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
    return rc;
}

/* A NaN or an infinity would be written as "nan" or "inf", which every
 * CUBE reader rejects, libcube's own included: refuse the row instead of
 * writing a file that cannot be read back.  Values before `from` are 0. */
static int check_finite(cube_t *c, const cube_metric *m, const cube_cnode *n,
                        const double *values, size_t from)
{
    for (size_t t = from; t < c->threads.count; t++) {
        if (isfinite(values[t]))
            continue;
        cube_set_error(c, CUBE_EINVAL,
                       "cannot write a non-finite value (%s) for metric %s, cnode %lld, "
                       "thread %zu",
                       isnan(values[t]) ? "nan" : values[t] > 0 ? "inf" : "-inf",
                       m->uniq_name, (long long)n->id, t);
        return -1;
    }
    return 0;
}

/* One row, unless it is an all-zero row of a sum or of a VOID metric; -1
 * (nothing of the row written) when a value is not finite. */
static int write_row_values(cube_t *c, xml_out *o, const cube_metric *m, const cube_cnode *n,
                            const double *values)
{
    size_t nthreads = c->threads.count, i;
    if (m->is_void)
        return 0;
    for (i = 0; i < nthreads && values[i] == 0.0; i++)
        ;
    /* all zero: an absent row means zero to a sum; to a maximum or minimum
     * it means no value, and a stored 0 is a value */
    if (i == nthreads && cube_metric_combine(m) == CUBE_COMBINE_SUM)
        return 0;
    if (check_finite(c, m, n, values, i) != 0)
        return -1;
    if (c->stream_metric != m->index) {
        if (c->stream_metric != SIZE_MAX)
            out_str(o, "    </matrix>\n");
        out_str(o, "    <matrix");
        attr_long(o, "metricId", (long long)m->index);
        out_str(o, ">\n");
        c->stream_metric = m->index;
    }
    out_str(o, "      <row");
    attr_long(o, "cnodeId", (long long)n->index);
    out_str(o, ">\n");
    char num[CUBE_DOUBLE_BUFSIZE + 1];
    for (i = 0; i < nthreads; i++) {
        int len = format_double_shortest(values[i], num);
        num[len++] = '\n';
        out_write(o, num, (size_t)len);
    }
    out_str(o, "      </row>\n");
    return 0;
}

/* A row as CUBE 3 stores it: call-tree exclusive.  A metric stored
 * inclusive gives its value less its children's (absent rows are 0). */
static int write_row(cube_t *c, xml_out *o, const cube_metric *m, const cube_cnode *n,
                     const double *values)
{
    if (!model_stored_inclusive(m) || n->num_children == 0)
        return write_row_values(c, o, m, n, values);
    size_t nthreads = c->threads.count;
    double *own = malloc((nthreads + 1) * sizeof *own);
    if (!own) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    memcpy(own, values, nthreads * sizeof *own);
    for (size_t k = 0; k < n->num_children; k++) {
        const double *child = cube_get_row(c, m, n->children[k]);
        for (size_t t = 0; child && t < nthreads; t++)
            own[t] -= child[t];
    }
    int rc = write_row_values(c, o, m, n, own);
    free(own);
    return rc;
}

static int write_stored_rows(cube_t *c, xml_out *o)
{
    if (!c->sev.num_rows)
        return 0;
    size_t *order = sev_store_sorted(&c->sev);
    if (!order) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    int rc = 0;
    for (size_t k = 0; k < c->sev.num_rows && !o->failed && rc == 0; k++) {
        const severity_row *r = &c->sev.rows[order[k]];
        rc = write_row(c, o, c->metrics.items[r->metric], c->cnodes.items[r->cnode],
                       sev_row_values(&c->sev, order[k]));
    }
    free(order);
    return rc;
}

static void write_end(cube_t *c, xml_out *o)
{
    if (c->stream_metric != SIZE_MAX)
        out_str(o, "    </matrix>\n");
    c->stream_metric = SIZE_MAX;
    out_str(o, "  </severity>\n</cube>\n");
}

/* Hand what is buffered to the stream; `flush`: fflush it too (only where
 * a write ends: cube_write_all, cube_write_finish, a whole file). */
static int finish_out(cube_t *c, xml_out *o, int flush)
{
    if ((flush ? out_flush(o) : out_drain(o)) != 0) {
        cube_set_error(c, CUBE_EIO, "write failed: %s", o->error);
        return -1;
    }
    return 0;
}

/* The whole experiment to a sink (used by cube_write_all and by
 * cube_write_file). */

/* Rows from a source, until it says 0 (end) or -1 (error: its message on
 * the handle, or a general one). */
static int write_source_rows(cube_t *c, xml_out *o, cube_row_source next, void *ctx)
{
    const cube_metric *m;
    const cube_cnode *n;
    const double *values;
    int got;
    while (!o->failed && (got = next(ctx, &m, &n, &values)) == 1)
        if (write_row(c, o, m, n, values) != 0)
            return -1;
    if (!o->failed && got < 0) {
        if (!*cube_error(c))
            cube_set_error(c, CUBE_EIO, "the rows to write could not be made");
        return -1;
    }
    return 0;
}

int cube_write_to(cube_t *c, xml_out *o)
{
    return cube_write_rows_to(c, o, NULL, NULL);
}

int cube_write_rows_to(cube_t *c, xml_out *o, cube_row_source next, void *ctx)
{
    c_locale_scope scope;
    if (enter_c_locale(c, &scope) != 0)
        return -1;
    int rc = write_definitions(c, o);
    if (rc == 0)
        rc = write_stored_rows(c, o);
    if (rc == 0 && next)
        rc = write_source_rows(c, o, next, ctx);
    write_end(c, o);
    leave_c_locale(&scope);
    return rc == 0 ? finish_out(c, o, 1) : -1;
}

/* ---------------------------------------------------------------------- */
/* the CUBE3 C writer API entry points                                     */

/* The handle's output buffer (64 KiB: not on the caller's stack), pointed
 * at `fp`.  It is allocated on first use and kept until cube_free, so that
 * streaming a row costs no allocation; every call drains it into `fp`
 * before returning, so calls may go to different streams.  NULL (error
 * set) when out of memory. */
static xml_out *file_out(cube_t *c, FILE *fp)
{
    if (!fp) {
        cube_set_error(c, CUBE_EINVAL, "the CUBE3 writer functions need a stream");
        return NULL;
    }
    if (!c->stream_out && !(c->stream_out = malloc(sizeof *c->stream_out))) {
        cube_set_error(c, CUBE_ENOMEM, "out of memory");
        return NULL;
    }
    out_init_file(c->stream_out, fp);
    return c->stream_out;
}

/* Each entry point starts with a clean error: the CUBE3 API returns
 * nothing, so a caller learns of a failure only from cube_error_code. */
static xml_out *begin_call(cube_t *c, FILE *fp)
{
    if (!c)
        return NULL;
    cube_clear_error(c);
    return file_out(c, fp);
}

void cube_write_all(cube_t *c, FILE *fp)
{
    xml_out *o = begin_call(c, fp);
    if (o)
        cube_write_to(c, o);
}

/* The streaming calls below leave their output in the stdio buffer of
 * `fp` (fwrite, no fflush): a flush per row would cost a system call per
 * row.  cube_write_finish flushes. */

void cube_write_def(cube_t *c, FILE *fp)
{
    xml_out *o = begin_call(c, fp);
    c_locale_scope scope;
    if (o && enter_c_locale(c, &scope) == 0) {
        write_definitions(c, o);
        leave_c_locale(&scope);
        finish_out(c, o, 0);
    }
}

void cube_write_sev_matrix(cube_t *c, FILE *fp)
{
    xml_out *o = begin_call(c, fp);
    c_locale_scope scope;
    if (o && enter_c_locale(c, &scope) == 0) {
        int rc = write_stored_rows(c, o);
        leave_c_locale(&scope);
        if (rc == 0)
            finish_out(c, o, 0);
    }
}

void cube_write_sev_row(cube_t *c, FILE *fp, cube_metric *met, cube_cnode *cnode,
                        double *sevs)
{
    xml_out *o = begin_call(c, fp);
    if (o && (!met || !cnode || !sevs)) {
        cube_set_error(c, CUBE_EINVAL,
                       "cube_write_sev_row needs a metric, a call-tree node and values");
        return;
    }
    c_locale_scope scope;
    if (o && enter_c_locale(c, &scope) == 0) {
        int rc = write_row(c, o, met, cnode, sevs);
        leave_c_locale(&scope);
        if (rc == 0)
            finish_out(c, o, 0);
    }
}

void cube_write_finish(cube_t *c, FILE *fp)
{
    xml_out *o = begin_call(c, fp);
    if (o) {
        write_end(c, o);
        finish_out(c, o, 1);
    }
}

int cube_format_double(double v, char *buf)
{
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!c_locale)
        return (int)strlen(strcpy(buf, "nan"));
    locale_t saved = uselocale(c_locale);
    int n = format_double_shortest(v, buf);
    uselocale(saved);
    freelocale(c_locale);
    return n;
}
