/*
 * view_page.c - the data document of cube_view's page and the page around
 * it.  See view_page.h; the format of the document is described in
 * cube_view(1), DATA.
 */
/* fopencookie: a stream into memory that grows without open_memstream's
 * copying and clearing of the whole buffer each time it doubles */
#define _GNU_SOURCE
#include "view_page.h"

#include "cli_common.h"
#include "cube_views.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>

/* The page's files, compiled in (tools/embed.c). */
extern const unsigned char view_asset_page[], view_asset_css[], view_asset_script[];
extern const size_t view_asset_page_len, view_asset_css_len, view_asset_script_len;

/* ------------------------------------------------------------------------
 * JSON.
 * ------------------------------------------------------------------------ */

void view_json_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    const unsigned char *p = (const unsigned char *)s;
    for (;;) {
        /* the plain run first, in one write */
        const unsigned char *q = p;
        while (*q >= 0x20 && *q != '"' && *q != '\\' && *q != '<' && *q != 0xe2)
            q++;
        fwrite(p, 1, (size_t)(q - p), fp);
        if (!*q)
            break;
        switch (*q) {
        case '"': fputs("\\\"", fp); break;
        case '\\': fputs("\\\\", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\t': fputs("\\t", fp); break;
        case '<': fputs("\\u003c", fp); break;
        case 0xe2:
            if (q[1] == 0x80 && (q[2] == 0xa8 || q[2] == 0xa9)) {
                /* U+2028, U+2029: line ends to older JavaScript */
                fprintf(fp, "\\u%04x", q[2] == 0xa8 ? 0x2028 : 0x2029);
                q += 2;
            } else
                fputc(*q, fp);
            break;
        default: fprintf(fp, "\\u%04x", *q);
        }
        p = q + 1;
    }
    fputc('"', fp);
}

void view_json_number(FILE *fp, double v)
{
    if (!isfinite(v)) {
        fputs("null", fp);
        return;
    }
    cli_print_double(fp, v);
}

/* "key": (the separator before it when not the first) */
static void key(FILE *fp, const char *k, int first)
{
    if (!first)
        fputc(',', fp);
    fprintf(fp, "\"%s\":", k);
}

static void key_string(FILE *fp, const char *k, const char *v)
{
    key(fp, k, 0);
    view_json_string(fp, v ? v : "");
}

static void key_long(FILE *fp, const char *k, long long v)
{
    key(fp, k, 0);
    fprintf(fp, "%lld", v);
}

/* ------------------------------------------------------------------------
 * Base64 of little-endian binary values.
 * ------------------------------------------------------------------------ */

typedef struct {
    FILE *fp;
    unsigned char in[3];
    size_t n;
    size_t len;      /* characters waiting in out */
    char out[16384]; /* written in large pieces: one fwrite per group is slow */
} base64;

static const char base64_digits[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The four digits of the group of n (1-3) bytes in the top of w, padded
 * with '=' for a short last group. */
static void base64_digits4(unsigned long w, size_t n, char *o)
{
    o[0] = base64_digits[(w >> 18) & 63];
    o[1] = base64_digits[(w >> 12) & 63];
    o[2] = n > 1 ? base64_digits[(w >> 6) & 63] : '=';
    o[3] = n > 2 ? base64_digits[w & 63] : '=';
}

static void base64_group(base64 *b)
{
    unsigned long w = (unsigned long)b->in[0] << 16;
    if (b->n > 1)
        w |= (unsigned long)b->in[1] << 8;
    if (b->n > 2)
        w |= b->in[2];
    if (b->len + 4 > sizeof b->out) {
        fwrite(b->out, 1, b->len, b->fp);
        b->len = 0;
    }
    base64_digits4(w, b->n, b->out + b->len);
    b->len += 4;
    b->n = 0;
}

/* Write what is pending, the last group padded. */
static void base64_flush(base64 *b)
{
    if (b->n)
        base64_group(b);
    fwrite(b->out, 1, b->len, b->fp);
    b->len = 0;
}

static void base64_bytes(base64 *b, const unsigned char *p, size_t n)
{
    const unsigned char *end = p + n;
    /* a group begun before */
    while (b->n && p < end) {
        b->in[b->n++] = *p++;
        if (b->n == 3)
            base64_group(b);
    }
    /* whole groups straight from the input, as many as out has room for */
    while (end - p >= 3) {
        size_t groups = (size_t)(end - p) / 3, room = (sizeof b->out - b->len) / 4;
        if (!room) {
            fwrite(b->out, 1, b->len, b->fp);
            b->len = 0;
            continue;
        }
        if (groups > room)
            groups = room;
        char *o = b->out + b->len;
        for (size_t g = 0; g < groups; g++, p += 3, o += 4)
            base64_digits4((unsigned long)p[0] << 16 | (unsigned long)p[1] << 8 | p[2], 3, o);
        b->len += 4 * groups;
    }
    while (p < end)
        b->in[b->n++] = *p++;
}

/* ------------------------------------------------------------------------
 * Values deflated before base64: a page of a large experiment is mostly
 * its values, and base64 alone makes them a third larger than their
 * bytes.  zlib's run-length strategy at level 1 takes a sixth off typical
 * severity data at a fraction of the time the default strategy needs;
 * the page inflates them with the browser's DecompressionStream.
 * ------------------------------------------------------------------------ */

typedef struct {
    base64 b;
    z_stream z;
    unsigned char in[65536];
    size_t n;
    unsigned char out[65536];
    int failed;
} packer;

static int packer_init(packer *p, FILE *fp)
{
    memset(&p->z, 0, sizeof p->z);
    p->b.fp = fp;
    p->b.n = p->b.len = 0;
    p->n = 0;
    p->failed = deflateInit2(&p->z, 1, Z_DEFLATED, 15, 8, Z_RLE) != Z_OK;
    return p->failed ? -1 : 0;
}

/* Deflate what is pending (flush: Z_NO_FLUSH or Z_FINISH) into base64. */
static void packer_run(packer *p, int flush)
{
    p->z.next_in = p->in;
    p->z.avail_in = (uInt)p->n;
    int rc;
    do {
        p->z.next_out = p->out;
        p->z.avail_out = sizeof p->out;
        rc = deflate(&p->z, flush);
        if (rc == Z_STREAM_ERROR) {
            p->failed = 1;
            return;
        }
        base64_bytes(&p->b, p->out, sizeof p->out - p->z.avail_out);
    } while (p->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    p->n = 0;
}

static void packer_put(packer *p, uint64_t v, size_t bytes)
{
    if (p->n + bytes > sizeof p->in)
        packer_run(p, Z_NO_FLUSH);
    for (size_t i = 0; i < bytes; i++)
        p->in[p->n++] = (unsigned char)(v >> (8 * i));
}

static void packer_double(packer *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    packer_put(p, u, 8);
}

/* End the stream and write the last base64 group; -1 if zlib failed.  The
 * packer can start the next stream after packer_reset. */
static int packer_finish(packer *p)
{
    packer_run(p, Z_FINISH);
    base64_flush(&p->b);
    return p->failed ? -1 : 0;
}

static void packer_reset(packer *p)
{
    if (deflateReset(&p->z) != Z_OK)
        p->failed = 1;
}

/* ------------------------------------------------------------------------
 * The parts of the document.
 * ------------------------------------------------------------------------ */

static void write_attributes(FILE *fp, const cube_t *c)
{
    key(fp, "attributes", 0);
    fputc('{', fp);
    for (size_t i = 0; i < cube_num_attrs(c); i++) {
        if (i)
            fputc(',', fp);
        view_json_string(fp, cube_attr_key(c, i));
        fputc(':', fp);
        view_json_string(fp, cube_attr_value(c, i));
    }
    fputc('}', fp);
}

static const char *combine_name(cube_combine_rule how)
{
    return how == CUBE_COMBINE_MAX ? "max" : how == CUBE_COMBINE_MIN ? "min" : "sum";
}

/* "stored", "derived" (no values: its expression is not evaluated) or
 * "void" (no data). */
static const char *metric_kind(const cube_metric *m)
{
    return cube_metric_is_void(m) ? "void" : cube_metric_is_derived(m) ? "derived" : "stored";
}

static void write_metrics(FILE *fp, const cube_t *c)
{
    key(fp, "metrics", 0);
    fputc('[', fp);
    for (size_t i = 0; i < cube_num_metrics(c); i++) {
        const cube_metric *m = cube_get_metric(c, i);
        const cube_metric *parent = cube_metric_parent(m);
        fputs(i ? ",\n{" : "\n{", fp);
        key(fp, "name", 1);
        view_json_string(fp, cube_metric_disp_name(m));
        key_string(fp, "uniq", cube_metric_uniq_name(m));
        key_string(fp, "unit", cube_metric_uom(m));
        key_string(fp, "dtype", cube_metric_dtype(m));
        key_string(fp, "combine", combine_name(cube_metric_combine(m)));
        key_string(fp, "kind", metric_kind(m));
        key_string(fp, "descr", cube_metric_descr(m));
        key_string(fp, "url", cube_metric_url(m));
        key_long(fp, "parent", parent ? (long long)cube_metric_index(parent) : -1);
        fputc('}', fp);
    }
    fputc(']', fp);
}

/* Lines around a region's begin line shown by the source view. */
enum { SOURCE_BEFORE = 10, SOURCE_AFTER = 30, SOURCE_LINE_MAX = 4096 };
/* A source file is read up to this many bytes looking for the lines. */
#define SOURCE_SCAN_MAX (64L * 1024 * 1024)

/* Open `path` when it is a regular file (never a FIFO or a device, which
 * could block or never end). */
static FILE *open_regular(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    return fopen(path, "r");
}

/* The source object of a region: lines first..first+n-1 of its file, or
 * null when the file is not readable (as named, or relative to the
 * experiment's folder) or has no such lines. */
static void write_source(FILE *fp, const view_source *s, const cube_region *r)
{
    const char *mod = cube_region_mod(r);
    long begin = cube_region_begin_line(r);
    FILE *in = NULL;
    char *joined = NULL;
    if (*mod && begin >= 1) {
        in = open_regular(mod);
        if (!in && mod[0] != '/' && s->dir) {
            size_t len = strlen(s->dir) + strlen(mod) + 2;
            joined = malloc(len);
            if (joined) {
                snprintf(joined, len, "%s/%s", s->dir, mod);
                in = open_regular(joined);
            }
        }
    }
    if (!in) {
        free(joined);
        fputs("null", fp);
        return;
    }
    long first = begin > SOURCE_BEFORE ? begin - SOURCE_BEFORE : 1, last = begin + SOURCE_AFTER;
    char line[SOURCE_LINE_MAX + 1];
    size_t len = 0;
    long lineno = 1, scanned = 0;
    int started = 0, ch = 0;
    while (lineno <= last && scanned < SOURCE_SCAN_MAX) {
        ch = getc(in);
        if (ch != EOF && ch != '\n') {
            scanned++;
            if (lineno >= first && len < SOURCE_LINE_MAX && ch != '\r')
                line[len++] = (char)ch;
            continue;
        }
        /* a line ends (the last one may have no newline) */
        if (lineno >= first && (ch == '\n' || len)) {
            line[len] = '\0';
            if (!started) {
                fputs("{\"path\":", fp);
                view_json_string(fp, joined ? joined : mod);
                fprintf(fp, ",\"first\":%ld,\"lines\":[", first);
            } else
                fputc(',', fp);
            started = 1;
            /* a NUL byte ends the line early: the rest is no text */
            view_json_string(fp, line);
        }
        if (ch == EOF)
            break;
        scanned++;
        len = 0;
        lineno++;
    }
    fclose(in);
    free(joined);
    fputs(started ? "]}" : "null", fp);
}

static void write_regions(FILE *fp, const view_source *s)
{
    const cube_t *c = s->c;
    key(fp, "regions", 0);
    fputc('[', fp);
    for (size_t i = 0; i < cube_num_regions(c); i++) {
        const cube_region *r = cube_get_region(c, i);
        fputs(i ? ",\n{" : "\n{", fp);
        key(fp, "name", 1);
        view_json_string(fp, cube_region_name(r));
        key_string(fp, "mod", cube_region_mod(r));
        key_long(fp, "begin", cube_region_begin_line(r));
        key_long(fp, "end", cube_region_end_line(r));
        key_string(fp, "descr", cube_region_descr(r));
        key_string(fp, "url", cube_region_url(r));
        key(fp, "source", 0);
        write_source(fp, s, r);
        fputc('}', fp);
    }
    fputc(']', fp);
}

static void write_cnodes(FILE *fp, const cube_t *c)
{
    key(fp, "cnodes", 0);
    fputc('[', fp);
    for (size_t i = 0; i < cube_num_cnodes(c); i++) {
        const cube_cnode *cn = cube_get_cnode(c, i);
        const cube_cnode *parent = cube_cnode_parent(cn);
        fprintf(fp, "%s{\"id\":%lld,\"region\":%zu,\"parent\":%lld,\"mod\":", i ? ",\n" : "\n",
                (long long)cube_cnode_id(cn), cube_region_index(cube_cnode_callee(cn)),
                parent ? (long long)cube_cnode_index(parent) : -1LL);
        view_json_string(fp, cube_cnode_mod(cn));
        fprintf(fp, ",\"line\":%ld}", cube_cnode_line(cn));
    }
    fputc(']', fp);
}

void view_system_map_free(view_system_map *map)
{
    free(map->machine);
    free(map->node);
    free(map->process);
    free(map->thread);
    memset(map, 0, sizeof *map);
}

static void add_item(view_system_item *items, size_t *n, view_system_kind kind,
                     const void *entity, size_t index, long long parent, size_t *where)
{
    items[*n] = (view_system_item){kind, entity, index, parent};
    where[index] = (*n)++;
}

int view_system_order(const cube_t *c, view_system_item **items, size_t *n, view_system_map *map)
{
    size_t total = cube_num_machines(c) + cube_num_nodes(c) + cube_num_processes(c) +
                   cube_num_threads(c);
    view_system_map x;
    x.machine = calloc(cube_num_machines(c) + 1, sizeof *x.machine);
    x.node = calloc(cube_num_nodes(c) + 1, sizeof *x.node);
    x.process = calloc(cube_num_processes(c) + 1, sizeof *x.process);
    x.thread = calloc(cube_num_threads(c) + 1, sizeof *x.thread);
    const cube_node **stack = calloc(cube_num_nodes(c) + 1, sizeof *stack);
    view_system_item *it = calloc(total + 1, sizeof *it);
    if (!x.machine || !x.node || !x.process || !x.thread || !stack || !it) {
        view_system_map_free(&x);
        free(stack);
        free(it);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < cube_num_machines(c); i++) {
        const cube_machine *m = cube_get_machine(c, i);
        add_item(it, &k, VIEW_MACHINE, m, i, -1, x.machine);
        /* the nodes depth first without recursion, pushed in reverse so
         * that they come out in order */
        size_t top = 0;
        for (size_t j = cube_machine_num_nodes(m); j-- > 0 && top < cube_num_nodes(c);)
            stack[top++] = cube_machine_node(m, j);
        while (top) {
            const cube_node *nd = stack[--top];
            const cube_node *up = cube_node_parent(nd);
            size_t ni = cube_node_index(nd);
            add_item(it, &k, VIEW_NODE, nd, ni,
                     (long long)(up ? x.node[cube_node_index(up)] : x.machine[i]), x.node);
            for (size_t j = 0; j < cube_node_num_processes(nd); j++) {
                const cube_process *p = cube_node_process(nd, j);
                size_t pi = cube_process_index(p);
                add_item(it, &k, VIEW_PROCESS, p, pi, (long long)x.node[ni], x.process);
                for (size_t t = 0; t < cube_process_num_threads(p); t++) {
                    const cube_thread *th = cube_process_thread(p, t);
                    add_item(it, &k, VIEW_THREAD, th, cube_thread_index(th),
                             (long long)x.process[pi], x.thread);
                }
            }
            for (size_t j = cube_node_num_children(nd); j-- > 0 && top < cube_num_nodes(c);)
                stack[top++] = cube_node_child(nd, j);
        }
    }
    free(stack);
    *items = it;
    *n = k;
    if (map)
        *map = x;
    else
        view_system_map_free(&x);
    return 0;
}

static long long item_rank(const view_system_item *it)
{
    if (it->kind == VIEW_PROCESS)
        return (long long)cube_process_rank(it->entity);
    if (it->kind == VIEW_THREAD)
        return (long long)cube_process_rank(cube_thread_process(it->entity));
    return -1;
}

static const char *item_name(const view_system_item *it)
{
    switch (it->kind) {
    case VIEW_MACHINE: return cube_machine_name(it->entity);
    case VIEW_NODE: return cube_node_name(it->entity);
    case VIEW_PROCESS: return cube_process_name(it->entity);
    default: return cube_thread_name(it->entity);
    }
}

static int write_system(FILE *fp, const cube_t *c, view_system_map *x)
{
    static const char *const kinds[] = {"machine", "node", "process", "thread"};
    view_system_item *items;
    size_t n;
    if (view_system_order(c, &items, &n, x) != 0) {
        cli_error("out of memory");
        return -1;
    }
    key(fp, "system", 0);
    fputc('[', fp);
    for (size_t i = 0; i < n; i++) {
        fprintf(fp, "%s{\"kind\":\"%s\",\"name\":", i ? ",\n" : "\n", kinds[items[i].kind]);
        view_json_string(fp, item_name(&items[i]));
        fprintf(fp, ",\"parent\":%lld,\"index\":%zu,\"rank\":%lld}", items[i].parent,
                items[i].index, item_rank(&items[i]));
    }
    fputc(']', fp);
    free(items);
    return 0;
}

static void write_topologies(FILE *fp, const cube_t *c, const view_system_map *x)
{
    key(fp, "topologies", 0);
    fputc('[', fp);
    for (size_t i = 0; i < cube_num_carts(c); i++) {
        const cube_cartesian *cart = cube_get_cart(c, i);
        long nd = cube_cart_ndims(cart);
        fputs(i ? ",\n{\"name\":" : "\n{\"name\":", fp);
        view_json_string(fp, cube_cart_name(cart));
        fputs(",\"dims\":[", fp);
        for (long d = 0; d < nd; d++) {
            const char *dn = cube_cart_dim_name(cart, d);
            fputs(d ? ",{\"name\":" : "{\"name\":", fp);
            view_json_string(fp, dn ? dn : "");
            fprintf(fp, ",\"size\":%ld,\"periodic\":%s}", cube_cart_dim(cart, d),
                    cube_cart_period(cart, d) ? "true" : "false");
        }
        fputs("],\"cells\":[", fp);
        for (size_t k = 0; k < cube_cart_num_coords(cart); k++) {
            const cube_coord *co = cube_cart_coord(cart, k);
            size_t at;
            switch (co->kind) {
            case CUBE_COORD_THREAD: at = x->thread[cube_thread_index(co->entity)]; break;
            case CUBE_COORD_PROCESS: at = x->process[cube_process_index(co->entity)]; break;
            case CUBE_COORD_NODE: at = x->node[cube_node_index(co->entity)]; break;
            default: at = x->machine[cube_machine_index(co->entity)]; break;
            }
            fprintf(fp, "%s[%zu", k ? "," : "", at);
            for (long d = 0; d < nd; d++)
                fprintf(fp, ",%ld", co->coords[d]);
            fputc(']', fp);
        }
        fputs("]}", fp);
    }
    fputc(']', fp);
}

/* The components a page needs of a value of a COMPLEX, RATE or
 * TAU_ATOMIC metric, which the page combines itself: its number depends
 * on two of them (real and imaginary part; main value and duration;
 * TAU_ATOMIC's count and sum, not its minimum and maximum).  The
 * positions of the two in the view's components, or -1 when the view
 * keeps none. */
static int page_components(const cube_view *v, size_t pick[2])
{
    size_t nc = cube_view_num_components(v);
    if (nc == 2) {
        pick[0] = 0;
        pick[1] = 1;
        return 0;
    }
    if (nc == 5) {
        pick[0] = 0;
        pick[1] = 3;
        return 0;
    }
    return -1;
}

/* ,"components":"..." of a view that keeps components: per call path
 * with a row and per thread the two components page_components picks,
 * as float64, in the order of "data".  0 or -1 (deflate failed). */
static int write_components(FILE *fp, packer *p, const cube_t *c, const cube_view *v)
{
    size_t pick[2];
    if (page_components(v, pick) != 0)
        return 0;
    size_t ncn = cube_num_cnodes(c), width = cube_view_width(v), nc = cube_view_num_components(v);
    packer_reset(p);
    fputs("\",\"components\":\"", fp);
    for (size_t i = 0; i < ncn; i++) {
        const double *comp = cube_view_components(v, cube_get_cnode(c, i));
        if (!comp)
            continue;
        for (size_t t = 0; t < width; t++) {
            packer_double(p, comp[t * nc + pick[0]]);
            packer_double(p, comp[t * nc + pick[1]]);
        }
    }
    return packer_finish(p);
}

/* One metric's values: metric-inclusive, call-exclusive, per thread, the
 * call paths with a row; a maximum or minimum nothing contributed to
 * (cube_combine_neutral) as NaN; the components of COMPLEX, RATE and
 * TAU_ATOMIC values (write_components). */
static int write_metric_values(FILE *fp, const cube_t *c, const cube_metric *m, int *first)
{
    cube_status st;
    cube_view *v = cube_view_compute(c, m, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE,
                                     CUBE_VIEW_COMPONENTS, &st);
    if (!v) {
        cli_error("metric '%s': %s", cube_metric_uniq_name(m), st.message);
        return -1;
    }
    const double *const *rows = cube_view_rows(v);
    size_t ncn = cube_num_cnodes(c), width = cube_view_width(v);
    cube_combine_rule how = cube_metric_combine(m);
    double neutral = cube_combine_neutral(how);
    fprintf(fp, "%s\"%zu\":{\"encoding\":\"deflate\",\"cnodes\":\"", *first ? "\n" : ",\n",
            cube_metric_index(m));
    *first = 0;
    packer *p = malloc(sizeof *p);
    if (!p || packer_init(p, fp) != 0) {
        if (p)
            deflateEnd(&p->z);
        free(p);
        cube_view_free(v);
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < ncn; i++)
        if (rows[i])
            packer_put(p, (uint32_t)i, 4);
    int rc = packer_finish(p);
    packer_reset(p);
    fputs("\",\"data\":\"", fp);
    for (size_t i = 0; i < ncn; i++) {
        if (!rows[i])
            continue;
        for (size_t t = 0; t < width; t++) {
            double d = rows[i][t];
            packer_double(p, how != CUBE_COMBINE_SUM && d == neutral ? NAN : d);
        }
    }
    if (packer_finish(p) != 0 || write_components(fp, p, c, v) != 0)
        rc = -1;
    deflateEnd(&p->z);
    free(p);
    if (rc != 0) {
        cube_view_free(v);
        cli_error("metric '%s': deflate failed", cube_metric_uniq_name(m));
        return -1;
    }
    fputs("\"}", fp);
    cube_view_free(v);
    return 0;
}

/* ------------------------------------------------------------------------
 * The values on several threads.  Each stored metric's part of the
 * document (write_metric_values) is a job.  The main thread writes the
 * definitions, then the parts in metric order: a part nobody has begun
 * when its turn comes it writes straight into the page; otherwise it
 * takes the lowest job not begun while it waits.  Worker threads (as many
 * as processors besides the main thread) take the highest job not begun,
 * writing into memory, from the moment the experiment is read.  Jobs are
 * taken at most `window` ahead of the part being written, which bounds
 * the memory.  The page is the same bytes as written by one thread.  A
 * job's error is kept (cli_error_capture) and printed by the main thread
 * when the job's turn comes: the first failing metric's one line, as one
 * thread would.
 * ------------------------------------------------------------------------ */

enum { VALUE_WORKERS_MAX = 8 };

typedef enum { JOB_WAITING, JOB_TAKEN, JOB_DONE, JOB_FAILED } job_state;

typedef struct {
    const cube_metric *m;
    job_state state;
    char *text; /* a part written into memory, len bytes */
    size_t len;
    char *error; /* the failure's message (NULL: out of memory) */
} values_job;

typedef struct {
    const cube_t *c;
    values_job *job;
    size_t n, written, window;
    size_t waiting; /* jobs not begun */
    int stop;       /* the main thread is done with the jobs: take no more */
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a job finished, a part was written, or stop */
    pthread_t worker[VALUE_WORKERS_MAX];
    size_t workers;
} values_pipeline;

/* A job's part in memory, written through a stream (fopencookie). */
typedef struct {
    char *text;
    size_t len, room;
} memory_part;

static ssize_t memory_part_write(void *cookie, const char *bytes, size_t n)
{
    memory_part *m = cookie;
    if (n > m->room - m->len) {
        size_t room = m->room ? m->room : 65536;
        while (n > room - m->len) {
            if (room > SIZE_MAX / 2)
                return -1;
            room *= 2;
        }
        char *grown = realloc(m->text, room);
        if (!grown)
            return -1;
        m->text = grown;
        m->room = room;
    }
    memcpy(m->text + m->len, bytes, n);
    m->len += n;
    return (ssize_t)n;
}

/* Take a job (lock held): the lowest (from_top 0) or highest job not
 * begun within the window; n when there is none. */
static size_t take_job(values_pipeline *pl, int from_top)
{
    size_t end = pl->written + pl->window < pl->n ? pl->written + pl->window : pl->n;
    if (pl->stop)
        return pl->n;
    for (size_t i = pl->written; i < end; i++) {
        size_t k = from_top ? end - 1 - (i - pl->written) : i;
        if (pl->job[k].state == JOB_WAITING) {
            pl->job[k].state = JOB_TAKEN;
            pl->waiting--;
            return k;
        }
    }
    return pl->n;
}

/* Run job k (taken under the lock, run without it) into `fp`, or into
 * memory when fp is NULL.  0, or -1 with the error kept in the job. */
static int run_job(values_pipeline *pl, size_t k, FILE *fp)
{
    values_job *j = &pl->job[k];
    char *error = NULL;
    memory_part part = {NULL, 0, 0};
    cli_error_capture(&error);
    int first = k == 0, rc = -1;
    FILE *out = fp ? fp
                   : fopencookie(&part, "w",
                                 (cookie_io_functions_t){NULL, memory_part_write, NULL, NULL});
    if (!out)
        cli_error("out of memory");
    else
        rc = write_metric_values(out, pl->c, j->m, &first);
    if (out && !fp) {
        int bad = ferror(out);
        if ((fclose(out) != 0 || bad) && rc == 0) {
            cli_error("out of memory");
            rc = -1;
        }
    }
    cli_error_capture(NULL);
    if (rc != 0) {
        free(part.text);
        part.text = NULL;
        part.len = 0;
    }
    pthread_mutex_lock(&pl->lock);
    j->text = part.text;
    j->len = part.len;
    j->error = error;
    j->state = rc == 0 ? JOB_DONE : JOB_FAILED;
    pthread_cond_broadcast(&pl->changed);
    pthread_mutex_unlock(&pl->lock);
    return rc;
}

static void *values_worker(void *arg)
{
    values_pipeline *pl = arg;
    pthread_mutex_lock(&pl->lock);
    while (!pl->stop && pl->waiting) {
        size_t k = take_job(pl, 1);
        if (k == pl->n) {
            pthread_cond_wait(&pl->changed, &pl->lock);
            continue;
        }
        pthread_mutex_unlock(&pl->lock);
        run_job(pl, k, NULL);
        pthread_mutex_lock(&pl->lock);
    }
    pthread_mutex_unlock(&pl->lock);
    return NULL;
}

/* The jobs of the stored metrics, and the workers started on them (none
 * started: the main thread runs every job).  NULL after printing the
 * error. */
static values_pipeline *values_start(const cube_t *c)
{
    values_pipeline *pl = calloc(1, sizeof *pl);
    if (!pl || !(pl->job = calloc(cube_num_metrics(c) + 1, sizeof *pl->job))) {
        free(pl);
        cli_error("out of memory");
        return NULL;
    }
    pl->c = c;
    for (size_t i = 0; i < cube_num_metrics(c); i++) {
        const cube_metric *m = cube_get_metric(c, i);
        if (!cube_metric_is_void(m) && !cube_metric_is_derived(m))
            pl->job[pl->n++].m = m;
    }
    pl->waiting = pl->n;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t want = cpus <= 1 ? 0 : cpus > VALUE_WORKERS_MAX ? VALUE_WORKERS_MAX : (size_t)cpus - 1;
    if (want > pl->n)
        want = pl->n;
    pl->window = 2 * (want + 1);
    pthread_mutex_init(&pl->lock, NULL);
    pthread_cond_init(&pl->changed, NULL);
    while (pl->workers < want &&
           pthread_create(&pl->worker[pl->workers], NULL, values_worker, pl) == 0)
        pl->workers++;
    return pl;
}

/* Stop the workers (a job begun is finished first) and free everything. */
static void values_end(values_pipeline *pl)
{
    if (!pl)
        return;
    pthread_mutex_lock(&pl->lock);
    pl->stop = 1;
    pthread_cond_broadcast(&pl->changed);
    pthread_mutex_unlock(&pl->lock);
    for (size_t i = 0; i < pl->workers; i++)
        pthread_join(pl->worker[i], NULL);
    for (size_t k = 0; k < pl->n; k++) {
        free(pl->job[k].text);
        free(pl->job[k].error);
    }
    pthread_cond_destroy(&pl->changed);
    pthread_mutex_destroy(&pl->lock);
    free(pl->job);
    free(pl);
}

/* The "values" object: the jobs' parts in order.  Once the stream has
 * passed s->max_size bytes, the parts are only counted into *s->unwritten
 * (the page is refused).  0, or -1 after printing the first failed job's
 * error. */
static int write_values(FILE *fp, values_pipeline *pl, const view_source *s)
{
    key(fp, "values", 0);
    fputc('{', fp);
    int over = 0;
    for (size_t k = 0; k < pl->n; k++) {
        values_job *j = &pl->job[k];
        if (!over && s->max_size) {
            off_t at = ftello(fp);
            over = at >= 0 && (unsigned long long)at > s->max_size;
        }
        pthread_mutex_lock(&pl->lock);
        int direct = 0;
        while (j->state != JOB_DONE && j->state != JOB_FAILED) {
            size_t mine = pl->n;
            if (j->state == JOB_WAITING && !over) {
                /* its turn: straight into the page */
                j->state = JOB_TAKEN;
                pl->waiting--;
                mine = k;
                direct = 1;
            } else
                mine = take_job(pl, 0);
            if (mine == pl->n) {
                pthread_cond_wait(&pl->changed, &pl->lock);
                continue;
            }
            pthread_mutex_unlock(&pl->lock);
            run_job(pl, mine, mine == k && direct ? fp : NULL);
            pthread_mutex_lock(&pl->lock);
        }
        pthread_mutex_unlock(&pl->lock);
        if (j->state == JOB_FAILED) {
            cli_error("%s", j->error ? j->error : "out of memory");
            return -1;
        }
        if (!direct) {
            if (!over && s->max_size) {
                off_t at = ftello(fp);
                over = at >= 0 && (unsigned long long)at + j->len > s->max_size;
            }
            if (over)
                *s->unwritten += j->len;
            else
                fwrite(j->text, 1, j->len, fp);
        }
        pthread_mutex_lock(&pl->lock);
        free(j->text);
        j->text = NULL;
        pl->written = k + 1;
        pthread_cond_broadcast(&pl->changed);
        pthread_mutex_unlock(&pl->lock);
    }
    fputc('}', fp);
    return 0;
}

static void write_external(FILE *fp, const view_source *s)
{
    key(fp, "external", 0);
    if (!s->external) {
        fputs("null", fp);
        return;
    }
    const cube_t *e = s->external_c;
    fputs("{\"file\":", fp);
    view_json_string(fp, s->external_file);
    fputs(",\"totals\":{", fp);
    for (size_t i = 0; i < cube_num_metrics(e); i++) {
        const cube_metric *m = cube_get_metric(e, i);
        double v = s->external[i];
        double neutral = cube_combine_neutral(cube_metric_combine(m));
        if (i)
            fputc(',', fp);
        view_json_string(fp, cube_metric_uniq_name(m));
        fputc(':', fp);
        view_json_number(fp, cube_metric_combine(m) != CUBE_COMBINE_SUM && v == neutral ? NAN : v);
    }
    fputs("}}", fp);
}

static void key_stat(FILE *fp, const char *k, int present, double v)
{
    key(fp, k, 0);
    view_json_number(fp, present ? v : NAN);
}

static void write_stat(FILE *fp, const view_source *s)
{
    key(fp, "stat", 0);
    if (!s->stat) {
        fputs("null", fp);
        return;
    }
    fputs("{\"file\":", fp);
    view_json_string(fp, s->stat_file);
    fputs(",\"patterns\":[", fp);
    for (size_t i = 0; i < cube_statfile_num_patterns(s->stat); i++) {
        const cube_statfile_pattern *p = cube_statfile_get_pattern(s->stat, i);
        const cube_metric *m = cube_statfile_metric(p, s->c);
        unsigned sum = p->has & CUBE_STATFILE_SUMMARY;
        fputs(i ? ",\n{\"name\":" : "\n{\"name\":", fp);
        view_json_string(fp, p->name);
        key(fp, "metric", 0);
        if (m)
            view_json_string(fp, cube_metric_uniq_name(m));
        else
            fputs("null", fp);
        fprintf(fp, ",\"count\":%llu", (unsigned long long)p->count);
        key_stat(fp, "sum", sum, p->sum);
        key_stat(fp, "mean", sum, p->mean);
        key_stat(fp, "min", sum, p->minimum);
        key_stat(fp, "q1", p->has & CUBE_STATFILE_QUARTILES, p->quartile25);
        key_stat(fp, "median", sum, p->median);
        key_stat(fp, "q3", p->has & CUBE_STATFILE_QUARTILES, p->quartile75);
        key_stat(fp, "max", sum, p->maximum);
        key_stat(fp, "variance", p->has & CUBE_STATFILE_VARIANCE, p->variance);
        fputs(",\"instances\":[", fp);
        for (size_t k = 0; k < p->num_instances; k++) {
            const cube_statfile_instance *in = &p->instances[k];
            const cube_cnode *cn = cube_statfile_cnode(in, s->c);
            fprintf(fp, "%s{\"cnode\":%lld", k ? "," : "",
                    cn ? (long long)cube_cnode_index(cn) : -1LL);
            key_stat(fp, "enter", 1, in->enter);
            key_stat(fp, "exit", 1, in->exit);
            key_stat(fp, "duration", 1, in->duration);
            fputc('}', fp);
        }
        fputs("]}", fp);
    }
    fputs("]}", fp);
}

int view_write_data(FILE *fp, const view_source *s)
{
    const cube_t *c = s->c;
    view_system_map x = {0};
    /* the values are being written into memory while the definitions go
     * out */
    values_pipeline *pl = NULL;
    if (!s->served && !(pl = values_start(c)))
        return -1;
    fputs("{\"format\":1", fp);
    key_string(fp, "file", s->file);
    key(fp, "served", 0);
    fputs(s->served ? "true" : "false", fp);
    write_attributes(fp, c);
    write_metrics(fp, c);
    write_regions(fp, s);
    write_cnodes(fp, c);
    int rc = write_system(fp, c, &x);
    if (rc == 0) {
        write_topologies(fp, c, &x);
        if (!s->served)
            rc = write_values(fp, pl, s);
    }
    values_end(pl);
    if (rc == 0) {
        write_external(fp, s);
        write_stat(fp, s);
        fputs("}\n", fp);
    }
    view_system_map_free(&x);
    return rc;
}

/* ------------------------------------------------------------------------
 * The page: page.html with its three marker lines replaced.
 * ------------------------------------------------------------------------ */

/* Write the page with the data document of `src` in it, as
 * view_write_data produces it (*rc set to its result), or (fp NULL) only
 * count the bytes the page adds to the data. */
static size_t assemble(FILE *fp, const view_source *src, int *rc)
{
    static const struct {
        const char *marker, *open, *close;
    } parts[] = {
        {"<!--CUBE_VIEW_STYLE-->", "<style>\n", "</style>\n"},
        {"<!--CUBE_VIEW_DATA-->", "<script type=\"application/json\" id=\"cube-data\">", "</script>\n"},
        {"<!--CUBE_VIEW_SCRIPT-->", "<script>\n", "</script>\n"},
    };
    const char *bodies[] = {(const char *)view_asset_css, "", (const char *)view_asset_script};
    size_t lens[] = {view_asset_css_len, 0, view_asset_script_len};
    const char *p = (const char *)view_asset_page, *end = p + view_asset_page_len;
    size_t total = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *next = nl ? nl + 1 : end;
        const char *a = p, *b = nl ? nl : end;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
            b--;
        size_t k = 0;
        while (k < 3 && !((size_t)(b - a) == strlen(parts[k].marker) &&
                          memcmp(a, parts[k].marker, (size_t)(b - a)) == 0))
            k++;
        if (k < 3) {
            size_t o = strlen(parts[k].open), cl = strlen(parts[k].close);
            int nl_needed = lens[k] && bodies[k][lens[k] - 1] != '\n' && k != 1;
            total += o + lens[k] + (size_t)nl_needed + cl;
            if (fp) {
                fwrite(parts[k].open, 1, o, fp);
                if (k == 1)
                    *rc = view_write_data(fp, src);
                else
                    fwrite(bodies[k], 1, lens[k], fp);
                if (nl_needed)
                    fputc('\n', fp);
                fwrite(parts[k].close, 1, cl, fp);
            }
        } else {
            total += (size_t)(next - p);
            if (fp)
                fwrite(p, 1, (size_t)(next - p), fp);
        }
        p = next;
    }
    return total;
}

size_t view_page_overhead(void)
{
    return assemble(NULL, NULL, NULL);
}

int view_write_page_of(FILE *fp, const view_source *s)
{
    int rc = 0;
    assemble(fp, s, &rc);
    return rc;
}
