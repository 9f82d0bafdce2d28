/*
 * read.c - the stored values of a CUBE 4 archive into the model, whole
 * (cube_read) or row by row (the streaming reader); see read_private.h
 * for the values and cube.h for the interface.
 *
 * A metric's rows are read in batches of about a MiB straight from its
 * data member (one pread for a plain member, one inflate per row for a
 * compressed one) and decoded into the model's rows: value l of a stored
 * row is the location with Id l, whose thread index may differ (threads
 * are in document order), so decoding places each value at its thread.
 * A metric that is not wanted is never opened: its members cost nothing.
 */
#include "cubex/read_private.h"
#include "core/status_private.h"
#include "cubex/binary_write_private.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BATCH_BYTES ((size_t)1 << 20)
/* 2^53: integers up to it are exact in a double */
#define EXACT_LIMIT ((uint64_t)1 << 53)

/* What the reader keeps of a metric's definition. */
typedef struct {
    cubex_dtype dtype;
    int order; /* CUBEX_PREORDER or CUBEX_WIDE */
} metric_info;

/* The rows of one metric being read. */
typedef struct {
    size_t metric;
    const cubex_member *mi, *md;
    cubex_index ix;
    cubex_data d;
    const size_t *cnode_of; /* ordinal -> cnode index */
    size_t value_size, row_size;
    unsigned char *buf, *present; /* a batch of rows */
    size_t batch, first, count, pos;
    double *parts; /* the components of one structured value */
} cursor;

struct cubex_reader {
    cube_t *c;
    char *name;
    cubex_tar *tar;
    size_t num_cnodes, num_locations;
    size_t *thread_of; /* column (location Id) -> thread index */
    int identity;      /* thread_of[l] == l for every l */
    metric_info *info; /* per metric index */
    size_t *order[2];  /* per enumeration: ordinal -> cnode index; NULL when unused */
    const unsigned char *wanted;
    /* streaming */
    size_t next_metric;
    int open;          /* cur holds a metric */
    cursor cur;
    double *values;    /* the row handed out */
    int failed, at_end;
};

static void fail_status(cubex_reader *x, const cube_status *st)
{
    status_copy(&x->c->status, st);
    x->failed = 1;
}

static void fail_oom(cubex_reader *x)
{
    cube_set_error(x->c, CUBE_ENOMEM, "%s: out of memory", x->name);
    x->failed = 1;
}

static void cursor_close(cursor *k);

/* ---- opening -------------------------------------------------------------- */

/* The archive behind the input: read in place when it is a whole regular
 * file, else copied (inflated) into a temporary file first, the bytes the
 * input has read already included. */
static cubex_tar *open_tar(cube_input *in, const char *name, cube_status *st)
{
    int fd = input_file_fd(in);
    if (fd >= 0)
        return cubex_tar_open_fd(fd, name, 0, st);
    int tmp = cubex_tar_temp();
    if (tmp < 0) {
        status_set(st, status_code_of_errno(errno), "%s: cannot create a temporary copy: %s", name,
                   strerror(errno));
        return NULL;
    }
    cube_status why;
    if (input_copy_rest(in, tmp, &why) != 0) {
        status_set(st, why.code, "%s: %s", name, why.message);
        close(tmp);
        return NULL;
    }
    cubex_tar *t = cubex_tar_open_fd(tmp, name, 0, st);
    close(tmp);
    if (t && (input_kind(in) & INPUT_GZIP))
        t->inflated = 1; /* offsets in messages count in the inflated archive */
    return t;
}

/* Is `name` a data or index member of one of the metrics?  They are
 * named [ghost_]ID.index and [ghost_]ID.data. */
static int is_metric_member(const cube_t *c, const char *name)
{
    int ghost = strncmp(name, "ghost_", 6) == 0;
    const char *p = name + (ghost ? 6 : 0);
    if (*p < '0' || *p > '9')
        return 0;
    uint64_t id = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (id > (UINT64_MAX - 9) / 10)
            return 0;
        id = id * 10 + (uint64_t)(*p - '0');
    }
    if (strcmp(p, ".index") != 0 && strcmp(p, ".data") != 0)
        return 0;
    for (size_t i = 0; i < c->metrics.count; i++) {
        const cube_metric *m = c->metrics.items[i];
        if ((uint64_t)m->id == id && !m->ghost == !ghost)
            return 1;
    }
    return 0;
}

/* Every member that is neither the definitions nor a metric's is kept
 * with the experiment, to be written back. */
static int keep_extra_members(cubex_reader *x)
{
    cube_status st;
    for (size_t i = 0; i < x->tar->num_members; i++) {
        const cubex_member *m = &x->tar->members[i];
        if (strcmp(m->name, "anchor.xml") == 0 || is_metric_member(x->c, m->name))
            continue;
        if (m->size > SIZE_MAX) {
            fail_oom(x);
            return -1;
        }
        unsigned char *data = malloc(m->size ? (size_t)m->size : 1);
        if (!data) {
            fail_oom(x);
            return -1;
        }
        if (cubex_tar_pread(x->tar, m, 0, data, (size_t)m->size, &st) != 0) {
            free(data);
            fail_status(x, &st);
            return -1;
        }
        int rc = cube_add_extra_member(x->c, m->name, data, (size_t)m->size);
        free(data);
        if (rc != 0) {
            x->failed = 1;
            return -1;
        }
    }
    return 0;
}

/* What the rows need of the definitions: value types, the column of each
 * thread, the call-tree enumerations the metrics use. */
static int take_layout(cubex_reader *x, const cubex_anchor *a)
{
    size_t nm = a->num_metrics, L = a->num_locations, n = a->num_cnodes;
    x->num_cnodes = n;
    x->num_locations = L;
    x->info = malloc((nm ? nm : 1) * sizeof *x->info);
    x->thread_of = malloc((L ? L : 1) * sizeof *x->thread_of);
    x->values = malloc((L ? L : 1) * sizeof *x->values);
    if (!x->info || !x->thread_of || !x->values)
        return -1;
    int used[2] = {0, 0};
    for (size_t i = 0; i < nm; i++) {
        const cubex_metric_def *d = &a->metrics[i];
        x->info[i].dtype = d->dtype;
        x->info[i].order = cubex_metric_order(d->type);
        if (d->type <= CUBEX_METRIC_SIMPLE)
            used[x->info[i].order] = 1;
    }
    /* locations are threads in document order: the thread of column l is
     * the location with Id l */
    x->identity = 1;
    for (size_t l = 0; l < L; l++) {
        x->thread_of[l] = a->location_by_id[l];
        x->identity &= x->thread_of[l] == l;
    }
    if (!n || !(used[0] | used[1]))
        return 0;
    size_t *parent = malloc(n * sizeof *parent);
    if (!parent)
        return -1;
    for (size_t i = 0; i < n; i++)
        parent[i] = a->cnodes[i].parent;
    cubex_tree tree;
    int rc = cubex_tree_from_parents(n, parent, &tree);
    free(parent);
    if (rc != 0)
        return -1;
    for (int o = 0; o < 2 && rc == 0; o++) {
        if (!used[o])
            continue;
        x->order[o] = malloc(n * sizeof *x->order[o]);
        rc = x->order[o] && cubex_enumerate(&tree, (cubex_order)o, x->order[o]) == 0 ? 0 : -1;
    }
    cubex_tree_free(&tree);
    return rc;
}

cubex_reader *cubex_reader_open(cube_t *c, cube_input *in, const char *name, unsigned flags)
{
    cube_status st;
    cubex_reader *x = calloc(1, sizeof *x);
    if (!x || !(x->name = cube_strdup(name))) {
        free(x);
        input_close(in);
        cube_set_error(c, CUBE_ENOMEM, "%s: out of memory", name);
        return NULL;
    }
    x->c = c;
    x->tar = open_tar(in, name, &st);
    input_close(in);
    if (!x->tar) {
        fail_status(x, &st);
        cubex_reader_free(x);
        return NULL;
    }
    char warning[CUBE_MESSAGE_SIZE];
    if (cubex_tar_warning(x->tar, warning, sizeof warning) &&
        cube_add_warning(c, "%s", warning) != 0) {
        fail_oom(x);
        cubex_reader_free(x);
        return NULL;
    }
    const cubex_member *am = cubex_tar_find(x->tar, "anchor.xml");
    cubex_anchor *a = NULL;
    if (!am)
        cube_set_error(c, CUBE_EFORMAT,
                       "%s: expected a member anchor.xml (the definitions of a CUBE 4 "
                       "archive), the archive has none", name);
    else if (!(a = cubex_anchor_read(x->tar, am, &st)))
        fail_status(x, &st);
    int rc = a ? cubex_model_from_anchor(c, a, name, flags) : -1;
    if (rc == 0 && take_layout(x, a) != 0) {
        fail_oom(x);
        rc = -1;
    }
    cubex_anchor_free(a);
    if (rc != 0 || keep_extra_members(x) != 0) {
        cubex_reader_free(x);
        return NULL;
    }
    return x;
}

void cubex_reader_free(cubex_reader *x)
{
    if (!x)
        return;
    if (x->open)
        cursor_close(&x->cur);
    cubex_tar_close(x->tar);
    free(x->thread_of);
    free(x->info);
    free(x->order[0]);
    free(x->order[1]);
    free(x->values);
    free(x->name);
    free(x);
}

void cubex_reader_want(cubex_reader *x, const unsigned char *wanted)
{
    x->wanted = wanted;
}

/* ---- one metric's rows ------------------------------------------------------- */

static void cursor_close(cursor *k)
{
    cubex_data_close(&k->d);
    cubex_index_free(&k->ix);
    free(k->buf);
    free(k->present);
    free(k->parts);
    memset(k, 0, sizeof *k);
}

/* Start reading metric i: 1 when it has rows to read, 0 when it has none
 * to read (derived, VOID, without members or locations), -1 on an
 * error. */
static int cursor_open(cubex_reader *x, size_t i, cursor *k)
{
    const cube_metric *m = x->c->metrics.items[i];
    memset(k, 0, sizeof *k);
    if (cube_metric_is_derived(m) || m->is_void || !x->num_locations)
        return 0;
    char iname[40], dname[40];
    snprintf(iname, sizeof iname, "%s%llu.index", m->ghost ? "ghost_" : "",
             (unsigned long long)(uint64_t)m->id);
    snprintf(dname, sizeof dname, "%s%llu.data", m->ghost ? "ghost_" : "",
             (unsigned long long)(uint64_t)m->id);
    k->mi = cubex_tar_find(x->tar, iname);
    k->md = cubex_tar_find(x->tar, dname);
    if (!k->mi && !k->md)
        return 0; /* declared without values: no rows */
    if (!k->mi || !k->md) {
        cube_set_error(x->c, CUBE_EFORMAT,
                       "%s: member %s: expected it beside member %s (metric %s), the archive "
                       "has none", x->name, k->mi ? dname : iname, k->mi ? iname : dname,
                       m->uniq_name);
        x->failed = 1;
        return -1;
    }
    const metric_info *info = &x->info[i];
    cube_status st;
    k->metric = i;
    k->value_size = cubex_dtype_size(info->dtype);
    k->row_size = k->value_size * x->num_locations;
    k->cnode_of = x->order[info->order];
    if (cubex_index_read(x->tar, k->mi, x->num_cnodes, &k->ix, &st) != 0) {
        fail_status(x, &st);
        return -1;
    }
    if (cubex_data_open(x->tar, k->md, &k->ix, k->row_size, &k->d, &st) != 0) {
        fail_status(x, &st);
        cubex_index_free(&k->ix);
        return -1;
    }
    /* plain rows in batches of about a MiB (the member holds them all:
     * its size was checked); compressed ones one by one, each buffer
     * taken only for a row that is there */
    k->batch = k->d.compressed ? 1 : BATCH_BYTES / k->row_size;
    if (k->batch < 1)
        k->batch = 1;
    if (k->batch > k->ix.num_rows)
        k->batch = k->ix.num_rows ? k->ix.num_rows : 1;
    k->present = malloc(k->batch);
    k->parts = malloc(cubex_dtype_components(info->dtype) * sizeof *k->parts);
    if (!k->present || !k->parts) {
        cursor_close(k);
        fail_oom(x);
        return -1;
    }
    return 1;
}

/* The next stored row of the metric: 1 with its cnode index, its row
 * number and its bytes, 0 after the last, -1 on an error. */
static int cursor_next(cubex_reader *x, cursor *k, size_t *cnode, size_t *row,
                       const unsigned char **bytes)
{
    for (;;) {
        while (k->pos < k->count) {
            size_t i = k->pos++;
            if (!k->present[i])
                continue; /* a compressed member without this row */
            *row = k->first + i;
            *cnode = k->cnode_of[k->ix.dense ? *row : k->ix.ordinals[*row]];
            *bytes = k->buf + i * k->row_size;
            return 1;
        }
        size_t next = k->first + k->count;
        if (next >= k->ix.num_rows)
            return 0;
        size_t n = k->ix.num_rows - next < k->batch ? k->ix.num_rows - next : k->batch;
        cube_status st;
        if (k->d.compressed && !k->d.zsize[next]) {
            k->present[0] = 0; /* listed, but the member has no row for it */
        } else {
            if (!k->buf && !(k->buf = malloc(k->batch * k->row_size))) {
                fail_oom(x);
                return -1;
            }
            if (cubex_data_read_rows(&k->d, next, n, k->buf, k->present, &st) != 0) {
                fail_status(x, &st);
                return -1;
            }
        }
        k->first = next;
        k->count = n;
        k->pos = 0;
    }
}

/* ---- values ------------------------------------------------------------------ */

/* Decode stored row `row` (its bytes at src) of the cursor's metric into
 * `out` (thread index order).  *needs_exact: whether a double of it is
 * not the exact value.  0, or -1 on a value that breaks its layout. */
static int decode_row(cubex_reader *x, cursor *k, size_t row, const unsigned char *src,
                      double *out, int *needs_exact)
{
    cubex_dtype t = x->info[k->metric].dtype;
    int be = k->ix.big_endian;
    size_t L = x->num_locations, vs = k->value_size;
    const size_t *to = x->thread_of;
    *needs_exact = 0;
    switch (t.kind) {
    case CUBEX_DOUBLE:
    case CUBEX_MINDOUBLE:
    case CUBEX_MAXDOUBLE:
        for (size_t l = 0; l < L; l++)
            out[to[l]] = cubex_get_double(src + 8 * l, be);
        return 0;
    case CUBEX_INT8: case CUBEX_INT16: case CUBEX_INT32:
    case CUBEX_UINT8: case CUBEX_UINT16: case CUBEX_UINT32:
        for (size_t l = 0; l < L; l++) {
            uint64_t v = cubex_value_int(t, be, src + vs * l);
            out[to[l]] = (t.kind == CUBEX_UINT8 || t.kind == CUBEX_UINT16 ||
                          t.kind == CUBEX_UINT32) ? (double)v : (double)(int64_t)v;
        }
        return 0;
    case CUBEX_INT64:
    case CUBEX_UINT64: {
        /* UINT64 too as int64: 2^64 - k acts as -k (modular sums) */
        int beyond = 0;
        for (size_t l = 0; l < L; l++) {
            int64_t v = (int64_t)cubex_get_u64(src + 8 * l, be);
            uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            beyond |= magnitude > EXACT_LIMIT;
            out[to[l]] = (double)v;
        }
        *needs_exact = beyond;
        return 0;
    }
    default:
        break;
    }
    for (size_t l = 0; l < L; l++) {
        if (cubex_value_decode(t, be, src + vs * l, k->parts) != 0) {
            uint64_t at = k->d.compressed ? k->md->offset + k->d.zoff[row]
                                          : k->md->offset + 10 + row * (uint64_t)k->row_size + vs * l;
            cube_status st;
            cubex_tar_fail(x->tar, &st, k->md->name, at,
                           "expected a SCALE_FUNC value whose terms and measurements fit in "
                           "its %d bytes", CUBEX_SCALE_FUNC_BYTES);
            fail_status(x, &st);
            return -1;
        }
        out[to[l]] = cubex_value_number(t, k->parts);
    }
    *needs_exact = 1;
    return 0;
}

/* The exact bytes of a stored row, little endian, in thread index order.
 * A big-endian value goes through the binary layer's decoding and
 * encoding, which know the type's layout (decode_row has checked it). */
static void exact_row(const cubex_reader *x, cursor *k, const unsigned char *src,
                      unsigned char *dst)
{
    cubex_dtype t = x->info[k->metric].dtype;
    size_t vs = k->value_size;
    for (size_t l = 0; l < x->num_locations; l++) {
        const unsigned char *v = src + l * vs;
        unsigned char *d = dst + x->thread_of[l] * vs;
        if (!k->ix.big_endian) {
            memcpy(d, v, vs);
        } else if (cubex_dtype_is_integer(t)) {
            cubex_value_encode_int(t, cubex_value_int(t, 1, v), d);
        } else {
            cubex_value_decode(t, 1, v, k->parts);
            cubex_value_encode(t, k->parts, d);
        }
    }
}

/* ---- the whole archive --------------------------------------------------------- */

/* Whether the stored rows of the cursor's metric are the model's rows
 * byte for byte: plain doubles in this machine's byte order, one per
 * thread in thread order, rows as wide as the model's. */
static int rows_as_stored(const cubex_reader *x, const cursor *k)
{
    cubex_kind kind = x->info[k->metric].dtype.kind;
    const severity_store *s = &x->c->sev;
    return !k->d.compressed && !k->ix.big_endian == !host_is_big_endian() && x->identity &&
           (kind == CUBEX_DOUBLE || kind == CUBEX_MINDOUBLE || kind == CUBEX_MAXDOUBLE) &&
           s->row_len == x->num_locations && (!s->num_chunks || s->stride == s->row_len);
}

/* The rows of a metric that rows_as_stored allows: read with one pread per
 * run of rows straight into the model's rows, without a buffer, a copy or
 * zeroing the rows first. */
static int read_rows_as_stored(cubex_reader *x, cursor *k)
{
    severity_store *s = &x->c->sev;
    size_t *cnodes = malloc(k->batch * sizeof *cnodes);
    if (!cnodes) {
        fail_oom(x);
        return -1;
    }
    int rc = 0;
    for (size_t next = 0; next < k->ix.num_rows && rc == 0;) {
        size_t n = k->ix.num_rows - next < k->batch ? k->ix.num_rows - next : k->batch, added;
        for (size_t r = 0; r < n; r++)
            cnodes[r] = k->cnode_of[k->ix.dense ? next + r : k->ix.ordinals[next + r]];
        double *rows = sev_store_append_run(s, k->metric, cnodes, n, &added);
        cube_status st;
        if (!rows) {
            fail_oom(x);
            rc = -1;
        } else if (cubex_data_read_rows(&k->d, next, added, (unsigned char *)rows, NULL, &st) !=
                   0) {
            memset(rows, 0, added * s->stride * sizeof *rows); /* no undefined values */
            fail_status(x, &st);
            rc = -1;
        }
        next += added;
    }
    free(cnodes);
    return rc;
}

static int read_metric(cubex_reader *x, size_t i)
{
    cursor k;
    int rc = cursor_open(x, i, &k);
    if (rc <= 0)
        return rc;
    if (rows_as_stored(x, &k)) {
        rc = read_rows_as_stored(x, &k);
        cursor_close(&k);
        return rc;
    }
    cube_t *c = x->c;
    cube_metric *m = c->metrics.items[i];
    size_t cnode, row;
    const unsigned char *bytes;
    while ((rc = cursor_next(x, &k, &cnode, &row, &bytes)) == 1) {
        double *out = sev_store_append(&c->sev, i, cnode);
        int needs_exact;
        if (!out) {
            fail_oom(x);
            rc = -1;
            break;
        }
        if (decode_row(x, &k, row, bytes, out, &needs_exact) != 0) {
            rc = -1;
            break;
        }
        if (!needs_exact)
            continue;
        if (!m->exact) {
            m->exact = calloc(1, sizeof *m->exact);
            if (!m->exact) {
                fail_oom(x);
                rc = -1;
                break;
            }
            /* the bytes of a row, in doubles */
            m->exact->row_len = (k.row_size + sizeof(double) - 1) / sizeof(double);
        }
        unsigned char *dst = (unsigned char *)sev_store_append(m->exact, i, cnode);
        if (!dst) {
            fail_oom(x);
            rc = -1;
            break;
        }
        exact_row(x, &k, bytes, dst);
    }
    /* the exact rows are looked up by (metric, call path) */
    if (rc == 0 && m->exact && sev_store_index(m->exact) != 0) {
        fail_oom(x);
        rc = -1;
    }
    cursor_close(&k);
    return rc;
}

int cubex_reader_read_all(cubex_reader *x)
{
    for (size_t i = 0; i < x->c->metrics.count; i++)
        if (read_metric(x, i) < 0)
            return -1;
    /* rows were appended without their hash-table entries: the first
     * look-up adds them */
    atomic_store_explicit(&x->c->rows_indexed, 0, memory_order_relaxed);
    return 0;
}

int cubex_read_input(cube_t *c, cube_input *in, const char *name)
{
    cubex_reader *x = cubex_reader_open(c, in, name, 0);
    if (!x)
        return -1;
    int rc = cubex_reader_read_all(x);
    cubex_reader_free(x);
    return rc;
}

/* ---- row by row ------------------------------------------------------------------ */

/* The exact bytes of the row handed out, as the only row of its metric's
 * exact store on the definitions' handle: a view of a structured metric
 * takes the components from there while the row is current (one row of
 * one metric at a time: memory does not grow with the rows streamed).
 * 0, or -1 when out of memory. */
static int keep_exact_row(cubex_reader *x, cursor *k, size_t cnode,
                          const unsigned char *bytes)
{
    cube_metric *m = x->c->metrics.items[k->metric];
    unsigned char *dst = NULL;
    if (m->exact && m->exact->num_rows == 1) {
        m->exact->rows[0].cnode = (uint32_t)cnode; /* below 2^32: a store's bound */
        dst = (unsigned char *)sev_row_values(m->exact, 0);
    } else {
        model_drop_exact(m);
        m->exact = calloc(1, sizeof *m->exact);
        if (m->exact) {
            m->exact->row_len = (k->row_size + sizeof(double) - 1) / sizeof(double);
            dst = (unsigned char *)sev_store_append(m->exact, k->metric, cnode);
        }
        if (!m->exact || !dst) {
            fail_oom(x);
            return -1;
        }
    }
    exact_row(x, k, bytes, dst);
    return 0;
}

int cubex_reader_next(cubex_reader *x, size_t *metric, size_t *cnode, const double **values)
{
    if (x->failed)
        return -1;
    for (;;) {
        if (!x->open) {
            size_t nm = x->c->metrics.count;
            while (x->next_metric < nm && x->wanted && !x->wanted[x->next_metric])
                x->next_metric++;
            if (x->next_metric == nm)
                return 0;
            int rc = cursor_open(x, x->next_metric++, &x->cur);
            if (rc < 0)
                return -1;
            x->open = rc == 1;
            continue;
        }
        size_t row;
        const unsigned char *bytes;
        int rc = cursor_next(x, &x->cur, cnode, &row, &bytes);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            /* the metric's last exact row is of no use past its rows */
            model_drop_exact(x->c->metrics.items[x->cur.metric]);
            cursor_close(&x->cur);
            x->open = 0;
            continue;
        }
        int needs_exact;
        if (decode_row(x, &x->cur, row, bytes, x->values, &needs_exact) != 0 ||
            (needs_exact && keep_exact_row(x, &x->cur, *cnode, bytes) != 0))
            return -1;
        *metric = x->cur.metric;
        *values = x->values;
        return 1;
    }
}
