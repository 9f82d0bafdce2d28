/*
 * test_support.c - shared helpers of the unit tests.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

const char *const real_cube_files[] = {
    "cube/cubelib-test1.1_equal_raw-amp.cube", "cube/kojak-expert_ctest-pomp.cube",
    "cube/scalasca-bgpBT_experiment1.cube",    "cube/scalasca_trace.cube",
    "cube/scorep-1.1_profile.cube",            "cube/tau2cube_template1.cube",
    NULL};

const char *testdata(const char *rel)
{
    static char buf[4][1024];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "testdata/%s", rel);
    return b;
}

cube_t *read_ok(const char *path)
{
    cube_t *c = cube_create();
    assert_non_null(c);
    if (cube_read(c, path) != 0)
        fail_msg("reading %s failed: %s", path, cube_error(c));
    return c;
}

char *read_error(const char *path)
{
    cube_t *c = cube_create();
    assert_non_null(c);
    if (cube_read(c, path) == 0)
        fail_msg("reading %s succeeded, but it must fail", path);
    char *msg = strdup(cube_error(c));
    cube_free(c);
    return msg;
}

int set_comma_locale(void)
{
    static const char *const comma[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", NULL};
    for (int i = 0; comma[i]; i++)
        if (setlocale(LC_NUMERIC, comma[i]))
            return 1;
    return 0;
}

char *temp_path(const char *suffix)
{
    char tmpl[] = "/tmp/libcube-test-XXXXXX";
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    close(fd);
    unlink(tmpl);
    size_t n = strlen(tmpl) + strlen(suffix) + 1;
    char *p = malloc(n);
    snprintf(p, n, "%s%s", tmpl, suffix);
    return p;
}

char *write_with(cube_t *c, void (*how)(cube_t *, FILE *))
{
    char *path = temp_path(".cube");
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    how(c, fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(cube_error_code(c), CUBE_OK);
    assert_string_equal(cube_error(c), "");
    return path;
}

char *temp_file_with(const char *data, size_t len)
{
    char *p = temp_path(".cube");
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    fclose(fp);
    return p;
}

cube_t *read_string_ok(const char *xml)
{
    char *p = temp_file_with(xml, strlen(xml));
    cube_t *c = read_ok(p);
    unlink(p);
    free(p);
    return c;
}

char *read_string_error(const char *xml)
{
    char *p = temp_file_with(xml, strlen(xml));
    char *msg = read_error(p);
    unlink(p);
    free(p);
    return msg;
}

char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, fp)) > 0) {
        n += got;
        if (cap - n - 1 == 0)
            buf = realloc(buf, cap *= 2);
    }
    fclose(fp);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *gzip_copy(const char *path, const char *suffix)
{
    size_t len;
    char *bytes = slurp(path, &len);
    char *gz = temp_path(suffix);
    gzFile out = gzopen(gz, "wb");
    assert_non_null(out);
    assert_int_equal(gzwrite(out, bytes, (unsigned)len), (int)len);
    assert_int_equal(gzclose(out), Z_OK);
    free(bytes);
    return gz;
}

static void assert_same_string(const char *what, const char *a, const char *b)
{
    if (strcmp(a, b) != 0)
        fail_msg("%s differs: \"%s\" vs \"%s\"", what, a, b);
}

void assert_same_model(const cube_t *a, const cube_t *b)
{
    assert_int_equal(cube_num_attrs(a), cube_num_attrs(b));
    for (size_t i = 0; i < cube_num_attrs(a); i++) {
        assert_same_string("attribute key", cube_attr_key(a, i), cube_attr_key(b, i));
        assert_same_string("attribute value", cube_attr_value(a, i), cube_attr_value(b, i));
    }
    assert_int_equal(cube_num_mirrors(a), cube_num_mirrors(b));
    for (size_t i = 0; i < cube_num_mirrors(a); i++)
        assert_same_string("mirror", cube_mirror(a, i), cube_mirror(b, i));

    assert_int_equal(cube_num_metrics(a), cube_num_metrics(b));
    for (size_t i = 0; i < cube_num_metrics(a); i++) {
        const cube_metric *x = cube_get_metric(a, i), *y = cube_get_metric(b, i);
        assert_same_string("metric disp_name", cube_metric_disp_name(x), cube_metric_disp_name(y));
        assert_same_string("metric uniq_name", cube_metric_uniq_name(x), cube_metric_uniq_name(y));
        assert_same_string("metric dtype", cube_metric_dtype(x), cube_metric_dtype(y));
        assert_same_string("metric uom", cube_metric_uom(x), cube_metric_uom(y));
        assert_same_string("metric val", cube_metric_val(x), cube_metric_val(y));
        assert_same_string("metric url", cube_metric_url(x), cube_metric_url(y));
        assert_same_string("metric descr", cube_metric_descr(x), cube_metric_descr(y));
        const cube_metric *xp = cube_metric_parent(x), *yp = cube_metric_parent(y);
        assert_int_equal(xp ? (long)cube_metric_index(xp) : -1,
                         yp ? (long)cube_metric_index(yp) : -1);
        assert_int_equal(cube_metric_num_children(x), cube_metric_num_children(y));
        assert_int_equal(cube_metric_is_void(x), cube_metric_is_void(y));
    }
    assert_int_equal(cube_num_regions(a), cube_num_regions(b));
    for (size_t i = 0; i < cube_num_regions(a); i++) {
        const cube_region *x = cube_get_region(a, i), *y = cube_get_region(b, i);
        assert_same_string("region name", cube_region_name(x), cube_region_name(y));
        assert_same_string("region mod", cube_region_mod(x), cube_region_mod(y));
        assert_same_string("region url", cube_region_url(x), cube_region_url(y));
        assert_same_string("region descr", cube_region_descr(x), cube_region_descr(y));
        assert_int_equal(cube_region_begin_line(x), cube_region_begin_line(y));
        assert_int_equal(cube_region_end_line(x), cube_region_end_line(y));
    }
    assert_int_equal(cube_num_cnodes(a), cube_num_cnodes(b));
    assert_int_equal(cube_num_root_cnodes(a), cube_num_root_cnodes(b));
    for (size_t i = 0; i < cube_num_cnodes(a); i++) {
        const cube_cnode *x = cube_get_cnode(a, i), *y = cube_get_cnode(b, i);
        assert_int_equal(cube_region_index(cube_cnode_callee(x)),
                         cube_region_index(cube_cnode_callee(y)));
        assert_same_string("cnode mod", cube_cnode_mod(x), cube_cnode_mod(y));
        assert_int_equal(cube_cnode_line(x), cube_cnode_line(y));
        const cube_cnode *xp = cube_cnode_parent(x), *yp = cube_cnode_parent(y);
        assert_int_equal(xp ? (long)cube_cnode_index(xp) : -1,
                         yp ? (long)cube_cnode_index(yp) : -1);
        assert_int_equal(cube_cnode_num_children(x), cube_cnode_num_children(y));
    }
    assert_int_equal(cube_num_machines(a), cube_num_machines(b));
    for (size_t i = 0; i < cube_num_machines(a); i++) {
        const cube_machine *x = cube_get_machine(a, i), *y = cube_get_machine(b, i);
        assert_same_string("machine name", cube_machine_name(x), cube_machine_name(y));
        assert_same_string("machine descr", cube_machine_descr(x), cube_machine_descr(y));
        assert_int_equal(cube_machine_num_nodes(x), cube_machine_num_nodes(y));
    }
    assert_int_equal(cube_num_nodes(a), cube_num_nodes(b));
    for (size_t i = 0; i < cube_num_nodes(a); i++) {
        const cube_node *x = cube_get_node(a, i), *y = cube_get_node(b, i);
        assert_same_string("node name", cube_node_name(x), cube_node_name(y));
        assert_int_equal(cube_machine_index(cube_node_machine(x)),
                         cube_machine_index(cube_node_machine(y)));
        assert_int_equal(cube_node_num_processes(x), cube_node_num_processes(y));
    }
    assert_int_equal(cube_num_processes(a), cube_num_processes(b));
    for (size_t i = 0; i < cube_num_processes(a); i++) {
        const cube_process *x = cube_get_process(a, i), *y = cube_get_process(b, i);
        assert_same_string("process name", cube_process_name(x), cube_process_name(y));
        assert_int_equal(cube_process_rank(x), cube_process_rank(y));
        assert_int_equal(cube_node_index(cube_process_node(x)),
                         cube_node_index(cube_process_node(y)));
        assert_int_equal(cube_process_num_threads(x), cube_process_num_threads(y));
    }
    assert_int_equal(cube_num_threads(a), cube_num_threads(b));
    for (size_t i = 0; i < cube_num_threads(a); i++) {
        const cube_thread *x = cube_get_thread(a, i), *y = cube_get_thread(b, i);
        assert_same_string("thread name", cube_thread_name(x), cube_thread_name(y));
        assert_int_equal(cube_thread_rank(x), cube_thread_rank(y));
        assert_int_equal(cube_process_index(cube_thread_process(x)),
                         cube_process_index(cube_thread_process(y)));
    }
    assert_int_equal(cube_num_carts(a), cube_num_carts(b));
    for (size_t i = 0; i < cube_num_carts(a); i++) {
        const cube_cartesian *x = cube_get_cart(a, i), *y = cube_get_cart(b, i);
        assert_same_string("cart name", cube_cart_name(x), cube_cart_name(y));
        long ndims = cube_cart_ndims(x);
        assert_int_equal(ndims, cube_cart_ndims(y));
        for (long d = 0; d < ndims; d++) {
            assert_int_equal(cube_cart_dim(x, d), cube_cart_dim(y, d));
            assert_int_equal(cube_cart_period(x, d), cube_cart_period(y, d));
            const char *xn = cube_cart_dim_name(x, d), *yn = cube_cart_dim_name(y, d);
            assert_int_equal(xn != NULL, yn != NULL);
            if (xn)
                assert_same_string("dim name", xn, yn);
        }
        assert_int_equal(cube_cart_num_coords(x), cube_cart_num_coords(y));
        for (size_t k = 0; k < cube_cart_num_coords(x); k++) {
            const cube_coord *xc = cube_cart_coord(x, k), *yc = cube_cart_coord(y, k);
            assert_int_equal(xc->kind, yc->kind);
            assert_memory_equal(xc->coords, yc->coords, (size_t)ndims * sizeof(long));
        }
    }
    /* values: every row of either side equals the other's (absent = 0) */
    size_t nthreads = cube_num_threads(a);
    for (int side = 0; side < 2; side++) {
        const cube_t *p = side ? b : a, *q = side ? a : b;
        for (size_t r = 0; r < cube_num_rows(p); r++) {
            cube_metric *m;
            cube_cnode *n;
            const double *v = cube_row_at(p, r, &m, &n);
            const double *w = cube_get_row(q, cube_get_metric(q, cube_metric_index(m)),
                                           cube_get_cnode(q, cube_cnode_index(n)));
            for (size_t t = 0; t < nthreads; t++) {
                double other = w ? w[t] : 0.0;
                if (memcmp(&v[t], &other, sizeof other) != 0 && !(v[t] == 0 && other == 0))
                    fail_msg("value of metric %s, cnode %zu, thread %zu differs: %.17g vs %.17g",
                             cube_metric_uniq_name(m), cube_cnode_index(n), t, v[t], other);
            }
        }
    }
}

int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

cube_linktest *linktest_open_ok(const char *path)
{
    cube_status st;
    cube_linktest *lt = cube_linktest_open(path, &st);
    if (!lt)
        fail_msg("%s: %s", path, st.message);
    assert_int_equal(st.code, CUBE_OK);
    assert_string_equal(st.message, "");
    return lt;
}

void linktest_header_fields(const cube_linktest_header *h,
                            unsigned long long out[LINKTEST_HEADER_FIELDS])
{
    const unsigned long long v[LINKTEST_HEADER_FIELDS] = {
        h->major, h->minor, h->patch, h->mode_length, h->all_to_all, h->bidirectional,
        h->unidirectional, h->bisection, h->step_randomization, h->serial, h->no_sion_file,
        h->parallel_sion, h->gpu_memory, h->multi_buffer, h->randomized_buffer, h->check_buffer,
        h->memory_allocator_type, h->num_messages, h->message_size, h->num_warmup_messages,
        h->num_serial_retests, h->num_multi_buffers, h->buffer_randomization_seed,
        h->num_randomized_tasks, h->task_randomization_seed};
    memcpy(out, v, sizeof v);
}

cube_t *deep_call_chain(int depth)
{
    cube_t *c = cube_create();
    assert_non_null(c);
    cube_metric *m = cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_region *f = cube_def_region(c, "f", -1, -1, "", "", "");
    cube_region *g = cube_def_region(c, "g", -1, -1, "", "", "");
    cube_thread *t = cube_def_thrd(
        c, "t", 0, cube_def_proc(c, "P", 0, cube_def_node(c, "n", cube_def_mach(c, "m", ""))));
    cube_cnode *n = NULL;
    for (int i = 0; i < depth; i++) {
        n = cube_def_cnode(c, i % 2 ? g : f, n);
        assert_non_null(n);
        cube_set_sev(c, m, n, t, 1);
    }
    return c;
}

/* The attributes of one entity, pair by pair. */
#define ASSERT_SAME_ATTRS(PREFIX, X, Y)                                                 \
    do {                                                                               \
        assert_int_equal(PREFIX##_num_attrs(X), PREFIX##_num_attrs(Y));                \
        for (size_t k_ = 0; k_ < PREFIX##_num_attrs(X); k_++) {                        \
            assert_same_string(#PREFIX " attr key", PREFIX##_attr_key(X, k_),          \
                               PREFIX##_attr_key(Y, k_));                              \
            assert_same_string(#PREFIX " attr value", PREFIX##_attr_value(X, k_),      \
                               PREFIX##_attr_value(Y, k_));                            \
        }                                                                              \
    } while (0)

void assert_same_cube4_model(const cube_t *a, const cube_t *b)
{
    assert_same_model(a, b);
    for (size_t i = 0; i < cube_num_metrics(a); i++) {
        const cube_metric *x = cube_get_metric(a, i), *y = cube_get_metric(b, i);
        assert_int_equal(cube_metric_id(x), cube_metric_id(y));
        assert_int_equal(cube_metric_type(x), cube_metric_type(y));
        assert_int_equal(cube_metric_is_ghost(x), cube_metric_is_ghost(y));
        assert_same_string("expression", cube_metric_expression(x), cube_metric_expression(y));
        assert_same_string("init expression", cube_metric_init_expression(x),
                           cube_metric_init_expression(y));
        assert_int_equal(cube_metric_num_aggr_expressions(x),
                         cube_metric_num_aggr_expressions(y));
        for (size_t k = 0; k < cube_metric_num_aggr_expressions(x); k++) {
            assert_same_string("aggr", cube_metric_aggr_expression(x, k),
                               cube_metric_aggr_expression(y, k));
            assert_same_string("aggr op", cube_metric_aggr_operator(x, k),
                               cube_metric_aggr_operator(y, k));
        }
        ASSERT_SAME_ATTRS(cube_metric, x, y);
    }
    for (size_t i = 0; i < cube_num_regions(a); i++) {
        const cube_region *x = cube_get_region(a, i), *y = cube_get_region(b, i);
        assert_int_equal(cube_region_id(x), cube_region_id(y));
        assert_same_string("mangled", cube_region_mangled_name(x), cube_region_mangled_name(y));
        assert_same_string("paradigm", cube_region_paradigm(x), cube_region_paradigm(y));
        assert_same_string("role", cube_region_role(x), cube_region_role(y));
        ASSERT_SAME_ATTRS(cube_region, x, y);
    }
    for (size_t i = 0; i < cube_num_cnodes(a); i++) {
        const cube_cnode *x = cube_get_cnode(a, i), *y = cube_get_cnode(b, i);
        assert_int_equal(cube_cnode_id(x), cube_cnode_id(y));
        assert_int_equal(cube_cnode_num_params(x), cube_cnode_num_params(y));
        for (size_t k = 0; k < cube_cnode_num_params(x); k++) {
            assert_same_string("param key", cube_cnode_param_key(x, k),
                               cube_cnode_param_key(y, k));
            assert_same_string("param value", cube_cnode_param_value(x, k),
                               cube_cnode_param_value(y, k));
            assert_int_equal(cube_cnode_param_is_numeric(x, k),
                             cube_cnode_param_is_numeric(y, k));
        }
        ASSERT_SAME_ATTRS(cube_cnode, x, y);
    }
    for (size_t i = 0; i < cube_num_machines(a); i++) {
        const cube_machine *x = cube_get_machine(a, i), *y = cube_get_machine(b, i);
        assert_same_string("machine class", cube_machine_class(x), cube_machine_class(y));
        ASSERT_SAME_ATTRS(cube_machine, x, y);
    }
    for (size_t i = 0; i < cube_num_nodes(a); i++) {
        const cube_node *x = cube_get_node(a, i), *y = cube_get_node(b, i);
        assert_same_string("node class", cube_node_class(x), cube_node_class(y));
        assert_same_string("node descr", cube_node_descr(x), cube_node_descr(y));
        const cube_node *xp = cube_node_parent(x), *yp = cube_node_parent(y);
        assert_int_equal(xp ? (long)cube_node_index(xp) : -1, yp ? (long)cube_node_index(yp) : -1);
        assert_int_equal(cube_node_num_children(x), cube_node_num_children(y));
        ASSERT_SAME_ATTRS(cube_node, x, y);
    }
    for (size_t i = 0; i < cube_num_processes(a); i++) {
        const cube_process *x = cube_get_process(a, i), *y = cube_get_process(b, i);
        assert_int_equal(cube_process_type(x), cube_process_type(y));
        ASSERT_SAME_ATTRS(cube_process, x, y);
    }
    for (size_t i = 0; i < cube_num_threads(a); i++) {
        const cube_thread *x = cube_get_thread(a, i), *y = cube_get_thread(b, i);
        assert_int_equal(cube_thread_id(x), cube_thread_id(y));
        assert_int_equal(cube_thread_type(x), cube_thread_type(y));
        ASSERT_SAME_ATTRS(cube_thread, x, y);
    }
    assert_int_equal(cube_num_extra_members(a), cube_num_extra_members(b));
    for (size_t i = 0; i < cube_num_extra_members(a); i++) {
        size_t na, nb;
        const void *da = cube_extra_member_data(a, i, &na), *db = cube_extra_member_data(b, i, &nb);
        assert_same_string("member", cube_extra_member_name(a, i), cube_extra_member_name(b, i));
        assert_int_equal(na, nb);
        assert_memory_equal(da, db, na);
    }
}
