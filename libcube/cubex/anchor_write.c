/*
 * anchor_write.c - anchor.xml from the records of anchor_private.h (see
 * anchor_write_private.h for the layout and what it fills in).
 *
 * Trees (metrics, cnodes, system tree nodes) are walked with an explicit
 * stack over first-child / next-sibling lists built from the records'
 * parent indexes: call trees can be deeper than the C stack allows
 * recursion.
 */
#include "cubex/anchor_write_private.h"
#include "cubex/binary_write_private.h"
#include "core/status_private.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

/* ---- output ------------------------------------------------------------------ */

typedef struct {
    strbuf *out;
    cube_status *status;
    int failed;
} xw;

static void fail_code(xw *w, cube_code code, const char *fmt, ...) CUBE_PRINTF(3, 4);
static void fail_code(xw *w, cube_code code, const char *fmt, ...)
{
    if (w->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    status_setv(w->status, code, fmt, ap);
    va_end(ap);
    w->failed = 1;
}

/* Every message names the member: "anchor.xml: ..." */
#define fail(w, ...) fail_code((w), CUBE_EINVAL, "anchor.xml: " __VA_ARGS__)
#define fail_oom(w) fail_code((w), CUBE_ENOMEM, "anchor.xml: out of memory")

static void raw(xw *w, const char *s, size_t n)
{
    if (!w->failed && n && strbuf_append(w->out, s, n) != 0)
        fail_oom(w);
}

static void put(xw *w, const char *s)
{
    raw(w, s, strlen(s));
}

/* s (NULL as "") with & < > ' " escaped, everything else as it is. */
static void esc(xw *w, const char *s)
{
    if (!s)
        return;
    for (;;) {
        size_t k = strcspn(s, "&<>'\"");
        raw(w, s, k);
        s += k;
        if (!*s)
            return;
        put(w, *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;"
               : *s == '\'' ? "&apos;" : "&quot;");
        s++;
    }
}

/* ` key="value"` */
static void attr(xw *w, const char *key, const char *value)
{
    put(w, " ");
    put(w, key);
    put(w, "=\"");
    esc(w, value);
    put(w, "\"");
}

/* ` key="v"`: the digits made here, without snprintf, which took most
 * of the time of writing a call tree's ids */
static void attr_int(xw *w, const char *key, long long v)
{
    char num[24], *p = num + sizeof num;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    put(w, " ");
    put(w, key);
    put(w, "=\"");
    raw(w, p, (size_t)(num + sizeof num - p));
    put(w, "\"");
}

/* <tag>text</tag> on a line of its own. */
static void text_elem(xw *w, const char *tag, const char *text)
{
    put(w, "<");
    put(w, tag);
    put(w, ">");
    esc(w, text);
    put(w, "</");
    put(w, tag);
    put(w, ">\n");
}

static void attr_elems(xw *w, const cubex_attrs *at)
{
    for (size_t i = 0; i < at->n; i++) {
        put(w, "<attr");
        attr(w, "key", at->items[i].key);
        attr(w, "value", at->items[i].value);
        put(w, "/>\n");
    }
}

/* ---- lists and trees over the records ---------------------------------------- */

/* Items 0..n-1, each with an owner (a size_t at byte `off` of each
 * `stride`-byte record at base): the items of owner o in index order are
 * first[o], next[first[o]], ... up to CUBEX_NONE.  Owner CUBEX_NONE
 * counts as owner num_owners (first has num_owners + 1 entries).  With
 * `tree` set the owner is a parent in the same array and must come
 * before its child.  0, or -1 after failing ("what" names the items in
 * the message). */
typedef struct {
    size_t *first, *next;
} lists;

static int lists_build(xw *w, lists *l, const void *base, size_t stride, size_t off, size_t n,
                       size_t num_owners, int tree, const char *what)
{
    l->first = malloc((num_owners + 1) * sizeof *l->first);
    l->next = malloc((n ? n : 1) * sizeof *l->next);
    if (!l->first || !l->next) {
        fail_oom(w);
        return -1;
    }
    for (size_t o = 0; o <= num_owners; o++)
        l->first[o] = CUBEX_NONE;
    for (size_t i = n; i-- > 0;) {
        size_t o;
        memcpy(&o, (const char *)base + i * stride + off, sizeof o);
        if (o == CUBEX_NONE)
            o = num_owners;
        else if (o >= num_owners || (tree && o >= i)) {
            fail(w, "%s %zu: its %s %zu is %s", what, i, tree ? "parent" : "owner", o,
                 tree && o < num_owners ? "not before it" : "out of range");
            return -1;
        }
        l->next[i] = l->first[o];
        l->first[o] = i;
    }
    return 0;
}

static void lists_free(lists *l)
{
    free(l->first);
    free(l->next);
}

/* Walk the forest of lists_build(tree) over n items: open(x) on the way
 * down, `close_tag` after x's subtree, roots and siblings in index
 * order. */
static void walk(xw *w, const lists *t, size_t n, void (*open)(void *, size_t),
                 const char *close_tag, void *ctx)
{
    size_t *stack = malloc((n ? n : 1) * sizeof *stack), depth = 0;
    if (!stack) {
        fail_oom(w);
        return;
    }
    size_t x = t->first[n];
    while (x != CUBEX_NONE && !w->failed) {
        open(ctx, x);
        if (t->first[x] != CUBEX_NONE) {
            stack[depth++] = x;
            x = t->first[x];
            continue;
        }
        put(w, close_tag);
        while (t->next[x] == CUBEX_NONE && depth) {
            x = stack[--depth];
            put(w, close_tag);
        }
        x = t->next[x];
    }
    free(stack);
}

/* (id, index) pairs, sorted by id to find duplicates and the entity an
 * id names. */
typedef struct {
    int64_t id;
    size_t index;
} id_pair;

static int cmp_pair(const void *x, const void *y)
{
    const id_pair *p = x, *q = y;
    return p->id != q->id ? (p->id > q->id) - (p->id < q->id)
                          : (p->index > q->index) - (p->index < q->index);
}

/* Ids (int64_t or uint64_t at byte `off` of each record) given twice
 * would make the members or call targets they name ambiguous, and a
 * reader refuses them: 0, or -1 after failing. */
static int check_unique(xw *w, const void *base, size_t stride, size_t off, size_t n,
                        const char *what)
{
    id_pair *p = malloc((n ? n : 1) * sizeof *p);
    if (!p) {
        fail_oom(w);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(&p[i].id, (const char *)base + i * stride + off, sizeof p[i].id);
        p[i].index = i;
    }
    qsort(p, n, sizeof *p, cmp_pair);
    for (size_t k = 1; k < n && !w->failed; k++)
        if (p[k].id == p[k - 1].id)
            fail(w, "%ss %zu and %zu have the same id %lld", what, p[k - 1].index, p[k].index,
                 (long long)p[k].id);
    free(p);
    return w->failed ? -1 : 0;
}

/* ---- the writer's state ------------------------------------------------------- */

typedef struct {
    xw w;
    const cubex_anchor *a;
    size_t *stn_pos, *group_pos; /* written numbers */
    size_t stns_written, groups_written;
    lists groups_of;    /* location groups per system tree node */
    lists locs_of;      /* locations per location group */
} writer;

/* <metrics>, <program>, <system> with the title when there is one. */
static void open_section(xw *w, const char *name, const char *title)
{
    put(w, "<");
    put(w, name);
    if (title)
        attr(w, "title", title);
    put(w, ">\n");
}

/* ---- metrics ------------------------------------------------------------------ */

static const char *const kind_names[] = {"EXCLUSIVE", "INCLUSIVE", "SIMPLE",
                                         "PREDERIVED_EXCLUSIVE", "PREDERIVED_INCLUSIVE",
                                         "POSTDERIVED"};

/* The type text as read when it names the metric's kind, else the kind's
 * name. */
static const char *type_text(const cubex_metric_def *m)
{
    const char *t = m->type_text;
    size_t k = (size_t)m->type;
    if (k >= sizeof kind_names / sizeof kind_names[0])
        return NULL;
    if (t && (strcmp(t, kind_names[k]) == 0 ||
              (m->type == CUBEX_METRIC_POSTDERIVED && strcmp(t, "DERIVED") == 0)))
        return t;
    return kind_names[k];
}

static void cubepl_elem(xw *w, const char *tag, const cubex_cubepl *p)
{
    put(w, "<");
    put(w, tag);
    for (size_t i = 0; i < p->attrs.n; i++)
        attr(w, p->attrs.items[i].key, p->attrs.items[i].value);
    put(w, ">");
    esc(w, p->text);
    put(w, "</");
    put(w, tag);
    put(w, ">\n");
}

static void open_metric(void *ctx, size_t i)
{
    writer *wr = ctx;
    xw *w = &wr->w;
    const cubex_metric_def *m = &wr->a->metrics[i];
    const char *type = type_text(m);
    if (!type) {
        fail(w, "metric %zu: kind %d is none the format knows", i, (int)m->type);
        return;
    }
    char num[24];
    snprintf(num, sizeof num, "%llu", (unsigned long long)m->id);
    put(w, "<metric");
    attr(w, "id", num);
    attr(w, "type", type);
    if (m->ghost || m->viztype_text)
        attr(w, "viztype", m->ghost ? "GHOST" : "NORMAL");
    if (m->convertible >= 0)
        attr(w, "convertible", m->convertible ? "true" : "false");
    if (m->cacheable >= 0)
        attr(w, "cacheable", m->cacheable ? "true" : "false");
    put(w, ">\n");
    char dtype[32];
    const char *dt = m->dtype_text;
    if (!dt) {
        if (cubex_dtype_name(m->dtype, dtype, sizeof dtype) < 0) {
            fail(w, "metric %zu: its value type is none the format knows", i);
            return;
        }
        dt = dtype;
    }
    text_elem(w, "disp_name", m->disp_name);
    text_elem(w, "uniq_name", m->uniq_name);
    text_elem(w, "dtype", dt);
    text_elem(w, "uom", m->uom);
    if (m->val)
        text_elem(w, "val", m->val);
    text_elem(w, "url", m->url);
    text_elem(w, "descr", m->descr);
    if (m->cubepl)
        cubepl_elem(w, "cubepl", m->cubepl);
    if (m->cubeplinit)
        cubepl_elem(w, "cubeplinit", m->cubeplinit);
    for (size_t k = 0; k < m->num_aggr; k++)
        cubepl_elem(w, "cubeplaggr", &m->aggr[k]);
    attr_elems(w, &m->attrs);
}

static void write_metrics(writer *wr)
{
    const cubex_anchor *a = wr->a;
    lists t = {0};
    open_section(&wr->w, "metrics", a->metrics_title);
    if (check_unique(&wr->w, a->metrics, sizeof *a->metrics, offsetof(cubex_metric_def, id),
                     a->num_metrics, "metric") == 0 &&
        lists_build(&wr->w, &t, a->metrics, sizeof *a->metrics,
                    offsetof(cubex_metric_def, parent), a->num_metrics, a->num_metrics, 1,
                    "metric") == 0)
        walk(&wr->w, &t, a->num_metrics, open_metric, "</metric>\n", wr);
    lists_free(&t);
    put(&wr->w, "</metrics>\n");
}

/* ---- regions and call paths --------------------------------------------------- */

static void write_region(xw *w, const cubex_region_def *r)
{
    put(w, "<region");
    attr_int(w, "id", (long long)r->id);
    attr(w, "mod", r->mod);
    attr_int(w, "begin", (long long)r->begin);
    attr_int(w, "end", (long long)r->end);
    put(w, ">\n");
    text_elem(w, "name", r->name);
    text_elem(w, "mangled_name", r->mangled_name ? r->mangled_name : r->name);
    text_elem(w, "paradigm", r->paradigm ? r->paradigm : "unknown");
    text_elem(w, "role", r->role ? r->role : "unknown");
    text_elem(w, "url", r->url);
    text_elem(w, "descr", r->descr);
    attr_elems(w, &r->attrs);
    put(w, "</region>\n");
}

static void open_cnode(void *ctx, size_t i)
{
    writer *wr = ctx;
    xw *w = &wr->w;
    const cubex_cnode_def *c = &wr->a->cnodes[i];
    put(w, "<cnode");
    /* the order the reference writer uses */
    attr_int(w, "id", (long long)c->id);
    if (c->line != -1)
        attr_int(w, "line", (long long)c->line);
    if (c->mod && c->mod[0])
        attr(w, "mod", c->mod);
    attr_int(w, "calleeId", (long long)wr->a->regions[c->region].id);
    put(w, ">\n");
    for (size_t k = 0; k < c->num_params; k++) {
        put(w, "<parameter");
        attr(w, "partype", c->params[k].numeric ? "numeric" : "string");
        attr(w, "parkey", c->params[k].key);
        attr(w, "parvalue", c->params[k].value);
        put(w, "/>\n");
    }
    attr_elems(w, &c->attrs);
}

static void write_program(writer *wr)
{
    const cubex_anchor *a = wr->a;
    xw *w = &wr->w;
    for (size_t i = 0; i < a->num_cnodes; i++)
        if (a->cnodes[i].region >= a->num_regions) {
            fail(w, "cnode %zu: region %zu of %zu", i, a->cnodes[i].region, a->num_regions);
            return;
        }
    if (check_unique(w, a->regions, sizeof *a->regions, offsetof(cubex_region_def, id),
                     a->num_regions, "region") != 0 ||
        check_unique(w, a->cnodes, sizeof *a->cnodes, offsetof(cubex_cnode_def, id),
                     a->num_cnodes, "cnode") != 0)
        return;
    open_section(w, "program", a->program_title);
    for (size_t i = 0; i < a->num_regions; i++)
        write_region(w, &a->regions[i]);
    lists t = {0};
    if (lists_build(w, &t, a->cnodes, sizeof *a->cnodes, offsetof(cubex_cnode_def, parent),
                    a->num_cnodes, a->num_cnodes, 1, "cnode") == 0)
        walk(w, &t, a->num_cnodes, open_cnode, "</cnode>\n", wr);
    lists_free(&t);
    put(w, "</program>\n");
}

/* ---- the system tree ----------------------------------------------------------- */

static void name_rank_type(xw *w, const char *name, int64_t rank, const char *type)
{
    char num[24];
    snprintf(num, sizeof num, "%lld", (long long)rank);
    text_elem(w, "name", name);
    text_elem(w, "rank", num);
    text_elem(w, "type", type);
}

static void write_group(writer *wr, size_t g)
{
    static const char *const group_types[] = {"process", "metrics", "accelerator"};
    static const char *const loc_types[] = {"thread", "gpu", "metric"};
    xw *w = &wr->w;
    const cubex_anchor *a = wr->a;
    const cubex_lg_def *lg = &a->groups[g];
    if ((size_t)lg->type >= 3) {
        fail(w, "location group %zu: type %d is none the format knows", g, (int)lg->type);
        return;
    }
    wr->group_pos[g] = wr->groups_written;
    put(w, "<locationgroup");
    attr_int(w, "Id", (long long)wr->groups_written++);
    put(w, ">\n");
    name_rank_type(w, lg->name, lg->rank, group_types[lg->type]);
    attr_elems(w, &lg->attrs);
    for (size_t l = wr->locs_of.first[g]; l != CUBEX_NONE; l = wr->locs_of.next[l]) {
        const cubex_loc_def *loc = &a->locations[l];
        if ((size_t)loc->type >= 3) {
            fail(w, "location %zu: type %d is none the format knows", l, (int)loc->type);
            return;
        }
        put(w, "<location");
        attr_int(w, "Id", (long long)loc->id);
        put(w, ">\n");
        name_rank_type(w, loc->name, loc->rank, loc_types[loc->type]);
        attr_elems(w, &loc->attrs);
        put(w, "</location>\n");
    }
    put(w, "</locationgroup>\n");
}

static void open_stn(void *ctx, size_t i)
{
    writer *wr = ctx;
    xw *w = &wr->w;
    const cubex_stn_def *s = &wr->a->stns[i];
    wr->stn_pos[i] = wr->stns_written;
    put(w, "<systemtreenode");
    attr_int(w, "Id", (long long)wr->stns_written++);
    put(w, ">\n");
    text_elem(w, "name", s->name);
    text_elem(w, "class", s->klass);
    if (s->descr)
        text_elem(w, "descr", s->descr);
    attr_elems(w, &s->attrs);
    for (size_t g = wr->groups_of.first[i]; g != CUBEX_NONE; g = wr->groups_of.next[g])
        write_group(wr, g);
}

/* Every group has a location, location ids are 0 ... L-1 and unique. */
static int check_locations(writer *wr)
{
    const cubex_anchor *a = wr->a;
    size_t n = a->num_locations;
    for (size_t g = 0; g < a->num_groups; g++)
        if (wr->locs_of.first[g] == CUBEX_NONE) {
            fail(&wr->w, "location group %zu has no location: the format needs one at least", g);
            return -1;
        }
    unsigned char *seen = calloc(n ? n : 1, 1);
    if (!seen) {
        fail_oom(&wr->w);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int64_t id = a->locations[i].id;
        if (id < 0 || (uint64_t)id >= n || seen[id]) {
            fail(&wr->w, "location %zu: id %lld is %s (ids are the data columns 0 ... %zu)", i,
                 (long long)id, id >= 0 && (uint64_t)id < n ? "given twice" : "out of range",
                 n - 1);
            rc = -1;
        } else {
            seen[id] = 1;
        }
    }
    free(seen);
    return rc;
}

/* ---- topologies ---------------------------------------------------------------- */

typedef struct {
    id_pair *pairs;
    size_t n;
    int built;
} id_table;

/* The table of groups (kind PROCESS), roots (MACHINE) or deeper nodes
 * (NODE), built when the first coordinate needs it. */
static int table_build(writer *wr, id_table *t, cubex_coord_kind kind)
{
    const cubex_anchor *a = wr->a;
    size_t n = kind == CUBEX_COORD_PROCESS ? a->num_groups : a->num_stns;
    t->built = 1;
    t->pairs = malloc((n ? n : 1) * sizeof *t->pairs);
    if (!t->pairs) {
        fail_oom(&wr->w);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (kind == CUBEX_COORD_PROCESS)
            t->pairs[t->n++] = (id_pair){a->groups[i].xml_id, i};
        else if ((a->stns[i].parent == CUBEX_NONE) == (kind == CUBEX_COORD_MACHINE))
            t->pairs[t->n++] = (id_pair){a->stns[i].xml_id, i};
    }
    qsort(t->pairs, t->n, sizeof *t->pairs, cmp_pair);
    return 0;
}

/* The index of the entity with Id `id` in table t, else `id` itself as an
 * index when below `limit`, else CUBEX_NONE. */
static size_t table_find(const id_table *t, int64_t id, size_t limit)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->pairs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->n && t->pairs[lo].id == id)
        return t->pairs[lo].index;
    return id >= 0 && (uint64_t)id < limit ? (size_t)id : CUBEX_NONE;
}

/* The CUBE 4 attribute and value of a coordinate; 0, or -1 after
 * failing. */
static int coord_target(writer *wr, id_table tables[3], const cubex_coord *c, const char **name,
                        long long *value)
{
    const cubex_anchor *a = wr->a;
    size_t x = CUBEX_NONE;
    switch (c->kind) {
    case CUBEX_COORD_LOCATION:
    case CUBEX_COORD_THREAD:
        *name = "locId";
        if (c->id >= 0 && (uint64_t)c->id < a->num_locations)
            x = (size_t)c->id;
        *value = (long long)x;
        break;
    case CUBEX_COORD_GROUP:
    case CUBEX_COORD_PROCESS:
        *name = "lgId";
        if (c->kind == CUBEX_COORD_GROUP)
            x = c->id >= 0 && (uint64_t)c->id < a->num_groups ? (size_t)c->id : CUBEX_NONE;
        else if (tables[0].built || table_build(wr, &tables[0], c->kind) == 0)
            x = table_find(&tables[0], c->id, a->num_groups);
        if (x != CUBEX_NONE)
            *value = (long long)wr->group_pos[x];
        break;
    case CUBEX_COORD_STN:
    case CUBEX_COORD_MACHINE:
    case CUBEX_COORD_NODE: {
        *name = "stnId";
        id_table *t = &tables[c->kind == CUBEX_COORD_MACHINE ? 1 : 2];
        if (c->kind == CUBEX_COORD_STN)
            x = c->id >= 0 && (uint64_t)c->id < a->num_stns ? (size_t)c->id : CUBEX_NONE;
        else if (t->built || table_build(wr, t, c->kind) == 0)
            x = table_find(t, c->id, a->num_stns);
        if (x != CUBEX_NONE)
            *value = (long long)wr->stn_pos[x];
        break;
    }
    default:
        break;
    }
    if (x == CUBEX_NONE && !wr->w.failed)
        fail(&wr->w, "a coordinate (kind %d) names entity %lld, which does not exist",
             (int)c->kind, (long long)c->id);
    return x == CUBEX_NONE ? -1 : 0;
}

/* "true"/"false" as read (in its case) when it says the same. */
static const char *periodic_text(const cubex_dim *d)
{
    const char *t = d->periodic_text;
    if (t && strcasecmp(t, d->periodic ? "true" : "false") == 0)
        return t;
    return d->periodic ? "true" : "false";
}

static void write_cart(writer *wr, id_table tables[3], size_t k)
{
    xw *w = &wr->w;
    const cubex_cart_def *c = &wr->a->carts[k];
    if (c->ndims == 0 || !c->dims) {
        fail(w, "topology %zu has no dimensions", k);
        return;
    }
    put(w, "<cart");
    if (c->name)
        attr(w, "name", c->name);
    attr_int(w, "ndims", (long long)c->ndims);
    put(w, ">\n");
    for (size_t d = 0; d < c->ndims; d++) {
        put(w, "<dim");
        if (c->dims[d].name)
            attr(w, "name", c->dims[d].name);
        attr_int(w, "size", (long long)c->dims[d].size);
        attr(w, "periodic", periodic_text(&c->dims[d]));
        put(w, "/>\n");
    }
    for (size_t i = 0; i < c->num_coords && !w->failed; i++) {
        const cubex_coord *co = &c->coords[i];
        const char *name;
        long long value;
        if (coord_target(wr, tables, co, &name, &value) != 0)
            return;
        put(w, "<coord");
        attr_int(w, name, value);
        put(w, ">");
        for (size_t d = 0; d < c->ndims; d++) {
            char num[24];
            snprintf(num, sizeof num, d ? " %lld" : "%lld", (long long)co->c[d]);
            put(w, num);
        }
        put(w, "</coord>\n");
    }
    put(w, "</cart>\n");
}

static void write_system(writer *wr)
{
    const cubex_anchor *a = wr->a;
    xw *w = &wr->w;
    lists t = {0};
    wr->stn_pos = malloc((a->num_stns ? a->num_stns : 1) * sizeof *wr->stn_pos);
    wr->group_pos = malloc((a->num_groups ? a->num_groups : 1) * sizeof *wr->group_pos);
    if (!wr->stn_pos || !wr->group_pos) {
        fail_oom(w);
        return;
    }
    if (lists_build(w, &wr->groups_of, a->groups, sizeof *a->groups, offsetof(cubex_lg_def, stn),
                    a->num_groups, a->num_stns, 0, "location group") != 0 ||
        lists_build(w, &wr->locs_of, a->locations, sizeof *a->locations,
                    offsetof(cubex_loc_def, group), a->num_locations, a->num_groups, 0,
                    "location") != 0 ||
        lists_build(w, &t, a->stns, sizeof *a->stns, offsetof(cubex_stn_def, parent), a->num_stns,
                    a->num_stns, 1, "system tree node") != 0 ||
        check_locations(wr) != 0) {
        lists_free(&t);
        return;
    }
    /* groups of no node and locations of no group have no place in the
     * tree */
    if (wr->groups_of.first[a->num_stns] != CUBEX_NONE ||
        wr->locs_of.first[a->num_groups] != CUBEX_NONE) {
        int g = wr->groups_of.first[a->num_stns] != CUBEX_NONE;
        fail(w, "%s %zu belongs to no %s", g ? "location group" : "location",
             g ? wr->groups_of.first[a->num_stns] : wr->locs_of.first[a->num_groups],
             g ? "system tree node" : "location group");
        lists_free(&t);
        return;
    }
    open_section(w, "system", a->system_title);
    walk(w, &t, a->num_stns, open_stn, "</systemtreenode>\n", wr);
    lists_free(&t);
    put(w, "<topologies>\n");
    id_table tables[3] = {{0}};
    for (size_t k = 0; k < a->num_carts && !w->failed; k++)
        write_cart(wr, tables, k);
    for (size_t i = 0; i < 3; i++)
        free(tables[i].pairs);
    put(w, "</topologies>\n</system>\n");
}

/* ---- the document ------------------------------------------------------------- */

static int write_plain(const cubex_anchor *a, strbuf *out, cube_status *status)
{
    writer wr = {{out, status, 0}, a, NULL, NULL, 0, 0, {0}, {0}};
    xw *w = &wr.w;
    put(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n");
    attr_elems(w, &a->attrs);
    put(w, "<doc>\n<mirrors>\n");
    for (size_t i = 0; i < a->num_mirrors; i++)
        text_elem(w, "murl", a->mirrors[i]);
    put(w, "</mirrors>\n</doc>\n");
    write_metrics(&wr);
    if (!w->failed)
        write_program(&wr);
    if (!w->failed)
        write_system(&wr);
    put(w, "</cube>\n");
    free(wr.stn_pos);
    free(wr.group_pos);
    lists_free(&wr.groups_of);
    lists_free(&wr.locs_of);
    if (w->failed)
        return -1;
    status_ok(status);
    return 0;
}

/* Append the gzip form (what gzip writes, one member) of n bytes to out. */
static int gzip_append(const char *data, size_t n, strbuf *out, cube_status *status)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
        status_set(status, CUBE_ENOMEM, "anchor.xml: out of memory");
        return -1;
    }
    int zr = Z_OK;
    size_t off = 0;
    do {
        /* zlib counts input in uInt: at most 1 GiB at a time */
        size_t take = n - off > ((size_t)1 << 30) ? (size_t)1 << 30 : n - off;
        z.next_in = (unsigned char *)data + off;
        z.avail_in = (uInt)take;
        off += take;
        int flush = off == n ? Z_FINISH : Z_NO_FLUSH;
        do {
            unsigned char chunk[65536];
            z.next_out = chunk;
            z.avail_out = sizeof chunk;
            zr = deflate(&z, flush);
            if (zr == Z_BUF_ERROR) /* no progress possible: not an error */
                zr = Z_OK;
            if (zr == Z_STREAM_ERROR ||
                strbuf_append(out, (const char *)chunk, sizeof chunk - z.avail_out) != 0) {
                zr = zr == Z_STREAM_ERROR ? zr : Z_MEM_ERROR;
                break;
            }
        } while (z.avail_out == 0);
    } while (off < n && zr == Z_OK);
    deflateEnd(&z);
    if (zr != Z_STREAM_END) {
        status_set(status, zr == Z_MEM_ERROR ? CUBE_ENOMEM : CUBE_EIO,
                   "anchor.xml: gzip compression failed (zlib error %d)", zr);
        return -1;
    }
    return 0;
}

int cubex_anchor_write(const cubex_anchor *a, int gzip, strbuf *out, cube_status *status)
{
    if (!gzip)
        return write_plain(a, out, status);
    strbuf plain = {0};
    int rc = write_plain(a, &plain, status);
    if (rc == 0)
        rc = gzip_append(plain.data ? plain.data : "", plain.len, out, status);
    strbuf_free(&plain);
    return rc;
}

int cubex_anchor_write_member(cubex_tar_writer *w, const cubex_anchor *a, int gzip,
                              int64_t mtime, cube_status *status)
{
    strbuf b = {0};
    int rc = cubex_anchor_write(a, gzip, &b, status);
    if (rc == 0)
        rc = cubex_tar_add(w, "anchor.xml", b.data ? b.data : "", b.len, mtime, status);
    strbuf_free(&b);
    return rc;
}

void cubex_metric_member_name(const cubex_metric_def *m, const char *ext, char *buf, size_t len)
{
    snprintf(buf, len, "%s%llu.%s", m->ghost ? "ghost_" : "", (unsigned long long)m->id, ext);
}
