/*
 * test_reader_tolerance.c - every oddity of real CUBE 3 files the reader
 * must accept, one small file under testdata/reader/ each, and the model it
 * must read from it: names, counts and values.
 *
 * plain.cube is the example file of the format note (section 1.8);
 * several variants must read to exactly its model.
 */
#include "test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------------- */

static void expect_double(double got, double want, const char *what)
{
    if (!(got == want)) /* exact: every value in these files is exact */
        fail_msg("%s: expected %.17g, found %.17g", what, want, got);
}

static cube_metric *metric(const cube_t *c, const char *uniq_name)
{
    cube_metric *m = cube_find_metric(c, uniq_name);
    if (!m)
        fail_msg("no metric \"%s\"", uniq_name);
    return m;
}

/* The stored row of (metric, cnode index) must be exactly `want`
 * (cube_num_threads values, in thread index order). */
static void expect_row(const cube_t *c, const char *uniq_name, size_t cnode,
                       const double *want)
{
    const cube_metric *m = metric(c, uniq_name);
    assert_true(cnode < cube_num_cnodes(c));
    const cube_cnode *n = cube_get_cnode(c, cnode);
    const double *row = cube_get_row(c, m, n);
    if (!row)
        fail_msg("no row for metric %s, cnode %zu", uniq_name, cnode);
    for (size_t t = 0; t < cube_num_threads(c); t++) {
        char what[128];
        snprintf(what, sizeof what, "metric %s, cnode %zu, thread %zu", uniq_name, cnode, t);
        expect_double(row[t], want[t], what);
        expect_double(cube_get_sev(c, m, n, cube_get_thread(c, t)), want[t], what);
    }
}

static void expect_no_row(const cube_t *c, const char *uniq_name, size_t cnode)
{
    const cube_metric *m = metric(c, uniq_name);
    const cube_cnode *n = cube_get_cnode(c, cnode);
    assert_null(cube_get_row(c, m, n));
    for (size_t t = 0; t < cube_num_threads(c); t++)
        expect_double(cube_get_sev(c, m, n, cube_get_thread(c, t)), 0.0, uniq_name);
}

static void expect_metric(const cube_metric *m, int64_t id, const char *disp_name,
                          const char *uniq_name, const char *dtype, const char *uom,
                          const char *val, const char *url, const char *descr)
{
    assert_int_equal(cube_metric_id(m), id);
    assert_string_equal(cube_metric_disp_name(m), disp_name);
    assert_string_equal(cube_metric_uniq_name(m), uniq_name);
    assert_string_equal(cube_metric_dtype(m), dtype);
    assert_string_equal(cube_metric_uom(m), uom);
    assert_string_equal(cube_metric_val(m), val);
    assert_string_equal(cube_metric_url(m), url);
    assert_string_equal(cube_metric_descr(m), descr);
}

/* Everything in plain.cube (the example of the format note, 1.8). */
static void check_plain_model(const cube_t *c)
{
    assert_int_equal(cube_num_warnings(c), 0);
    assert_int_equal(cube_num_attrs(c), 1);
    assert_string_equal(cube_attr_key(c, 0), "CUBE_CT_AGGR");
    assert_string_equal(cube_attr_value(c, 0), "SUM");
    assert_int_equal(cube_num_mirrors(c), 1);
    assert_string_equal(cube_mirror(c, 0), "http://example.org/help/");

    assert_int_equal(cube_num_metrics(c), 3);
    assert_int_equal(cube_num_root_metrics(c), 2);
    cube_metric *time = cube_get_metric(c, 0), *mpi = cube_get_metric(c, 1),
                *visits = cube_get_metric(c, 2);
    expect_metric(time, 0, "Time", "time", "FLOAT", "sec", "", "@mirror@patterns.html#time",
                  "Total time");
    expect_metric(mpi, 1, "MPI", "mpi", "FLOAT", "sec", "", "@mirror@patterns.html#mpi",
                  "Time in MPI & friends");
    expect_metric(visits, 2, "Visits", "visits", "INTEGER", "occ", "", "", "Number of visits");
    assert_ptr_equal(cube_metric_parent(mpi), time);
    assert_int_equal(cube_metric_num_children(time), 1);
    assert_null(cube_metric_parent(visits));
    assert_false(cube_metric_is_void(time) || cube_metric_is_void(mpi) ||
                 cube_metric_is_void(visits));

    assert_int_equal(cube_num_regions(c), 2);
    cube_region *main_r = cube_get_region(c, 0), *send = cube_get_region(c, 1);
    assert_string_equal(cube_region_name(main_r), "main");
    assert_string_equal(cube_region_mod(main_r), "app.c");
    assert_int_equal(cube_region_begin_line(main_r), 10);
    assert_int_equal(cube_region_end_line(main_r), 50);
    assert_string_equal(cube_region_descr(main_r), "USR");
    assert_string_equal(cube_region_name(send), "MPI_Send");
    assert_string_equal(cube_region_mod(send), "");
    assert_int_equal(cube_region_begin_line(send), -1);
    assert_int_equal(cube_region_end_line(send), -1);
    assert_string_equal(cube_region_descr(send), "MPI");

    assert_int_equal(cube_num_cnodes(c), 2);
    assert_int_equal(cube_num_root_cnodes(c), 1);
    cube_cnode *c0 = cube_get_cnode(c, 0), *c1 = cube_get_cnode(c, 1);
    assert_ptr_equal(cube_cnode_callee(c0), main_r);
    assert_int_equal(cube_cnode_line(c0), -1);
    assert_string_equal(cube_cnode_mod(c0), "");
    assert_ptr_equal(cube_cnode_callee(c1), send);
    assert_ptr_equal(cube_cnode_parent(c1), c0);
    assert_int_equal(cube_cnode_line(c1), 42);
    assert_string_equal(cube_cnode_mod(c1), "app.c");

    assert_int_equal(cube_num_machines(c), 1);
    assert_string_equal(cube_machine_name(cube_get_machine(c, 0)), "cluster");
    assert_int_equal(cube_num_nodes(c), 1);
    assert_string_equal(cube_node_name(cube_get_node(c, 0)), "node0");
    assert_int_equal(cube_num_processes(c), 2);
    assert_int_equal(cube_num_threads(c), 2);
    for (size_t i = 0; i < 2; i++) {
        char name[32];
        snprintf(name, sizeof name, "Process %zu", i);
        assert_string_equal(cube_process_name(cube_get_process(c, i)), name);
        assert_int_equal(cube_process_rank(cube_get_process(c, i)), (int64_t)i);
        assert_string_equal(cube_thread_name(cube_get_thread(c, i)), "Thread 0");
        assert_int_equal(cube_thread_rank(cube_get_thread(c, i)), 0);
        assert_ptr_equal(cube_thread_process(cube_get_thread(c, i)), cube_get_process(c, i));
    }

    assert_int_equal(cube_num_carts(c), 1);
    const cube_cartesian *ring = cube_get_cart(c, 0);
    assert_string_equal(cube_cart_name(ring), "ring");
    assert_int_equal(cube_cart_ndims(ring), 1);
    assert_int_equal(cube_cart_dim(ring, 0), 2);
    assert_int_equal(cube_cart_period(ring, 0), 1);
    assert_int_equal(cube_cart_num_coords(ring), 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(cube_cart_coord(ring, i)->kind, CUBE_COORD_THREAD);
        assert_ptr_equal(cube_cart_coord(ring, i)->entity, cube_get_thread(c, i));
        assert_int_equal(cube_cart_coord(ring, i)->coords[0], (long)i);
    }

    assert_int_equal(cube_num_rows(c), 5);
    expect_row(c, "time", 0, (const double[]){2.5, 3});
    expect_row(c, "time", 1, (const double[]){0.75, 1.25});
    expect_no_row(c, "mpi", 0);
    expect_row(c, "mpi", 1, (const double[]){0.75, 1.25});
    expect_row(c, "visits", 0, (const double[]){1, 1});
    expect_row(c, "visits", 1, (const double[]){20, 20});
}

/* `file` must read to exactly the model of plain.cube. */
static void expect_plain_model(const char *file)
{
    char rel[256];
    snprintf(rel, sizeof rel, "reader/%s", file);
    cube_t *c = read_ok(testdata(rel));
    check_plain_model(c);
    cube_t *plain = read_ok(testdata("reader/plain.cube"));
    assert_same_model(c, plain);
    cube_free(plain);
    cube_free(c);
}

/* Sanity check of the reference file itself. */
static void test_plain(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/plain.cube"));
    check_plain_model(c);
    cube_free(c);
}

/* ---- lexical tolerance ----------------------------------------------------- */

static void test_crlf_line_ends(void **state)
{
    (void)state;
    /* also: no '\r' is left at the end of any name (checked exactly) */
    expect_plain_model("tolerate-crlf.cube");
}

static void test_cdata_sections(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-cdata.cube"));
    /* the raw '&' inside CDATA is no raw '&' of the file */
    assert_int_equal(cube_num_warnings(c), 0);
    const cube_metric *m = cube_get_metric(c, 0);
    expect_metric(m, 0, "Time", "time", "FLOAT", "sec", "", "",
                  "Time in <MPI> & friends, \"quoted\" & 'single'");
    assert_string_equal(cube_region_name(cube_get_region(c, 0)), "main");
    assert_string_equal(cube_region_url(cube_get_region(c, 0)), "http://example.org/?a=1&b=2");
    assert_string_equal(cube_machine_name(cube_get_machine(c, 0)), "cluster");
    assert_int_equal(cube_process_rank(cube_get_process(c, 0)), 0);
    assert_int_equal(cube_num_rows(c), 1);
    expect_row(c, "time", 0, (const double[]){1.5, 2.5});
    cube_free(c);
}

static void test_comments_anywhere(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-comments.cube"));
    /* the raw '&' inside a comment is no raw '&' of the file */
    assert_int_equal(cube_num_warnings(c), 0);
    /* the <metric id="9"> inside a comment is no metric */
    assert_int_equal(cube_num_metrics(c), 1);
    /* a comment inside a text element splits nothing */
    expect_metric(cube_get_metric(c, 0), 0, "Time", "time", "FLOAT", "sec", "", "",
                  "Total time");
    assert_int_equal(cube_num_regions(c), 1);
    assert_string_equal(cube_region_name(cube_get_region(c, 0)), "main");
    assert_int_equal(cube_num_cnodes(c), 1);
    assert_int_equal(cube_cnode_num_children(cube_get_cnode(c, 0)), 0);
    assert_int_equal(cube_num_threads(c), 2);
    assert_int_equal(cube_num_rows(c), 1);
    expect_row(c, "time", 0, (const double[]){1.5, 2.5});
    cube_free(c);
}

static void test_any_whitespace_between_values(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-whitespace.cube"));
    assert_int_equal(cube_num_regions(c), 2);
    assert_string_equal(cube_region_name(cube_get_region(c, 0)), "main");
    assert_string_equal(cube_region_name(cube_get_region(c, 1)), "foo");
    assert_int_equal(cube_num_cnodes(c), 4);
    assert_int_equal(cube_num_processes(c), 1);
    assert_int_equal(cube_num_threads(c), 3);
    assert_string_equal(cube_thread_name(cube_get_thread(c, 2)), "Thread 2");
    assert_int_equal(cube_num_rows(c), 4);
    expect_row(c, "time", 0, (const double[]){1, 2, 3});    /* tab separated */
    expect_row(c, "time", 1, (const double[]){4, 5, 6});    /* several spaces */
    expect_row(c, "time", 2, (const double[]){7, 8, 9});    /* all on the <row> line */
    expect_row(c, "time", 3, (const double[]){10, 11, 12}); /* leading tabs, blank line */
    cube_free(c);
}

static void test_number_forms(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-number-forms.cube"));
    assert_int_equal(cube_num_rows(c), 3);
    expect_row(c, "time", 0, (const double[]){1.5, 2.5, -1.5});  /* 1.5e+00 2.5E0 -1.5 */
    expect_row(c, "time", 1, (const double[]){1.5, 0.5, 5.0});   /* 0x1.8p0 .5 5. */
    expect_row(c, "time", 2, (const double[]){3.0, 1e-3, 12345678901234567890.0});
    cube_free(c);
}

static void test_rank_with_white_space(void **state)
{
    (void)state;
    /* "<rank> 0 </rank>", a rank on a line of its own, tabs, CR LF */
    expect_plain_model("tolerate-rank-whitespace.cube");
}

static void test_raw_ampersand(void **state)
{
    (void)state;
    const char *path = testdata("reader/tolerate-raw-ampersand.cube");
    cube_t *c = read_ok(path);
    /* one warning for the whole file, at the first raw '&' (line 11), with
     * the count of all four; "&amp;", "&lt;", "&#38;" are no raw '&' */
    assert_int_equal(cube_num_warnings(c), 1);
    char want[512];
    snprintf(want, sizeof want,
             "%s:11: raw '&' is not well-formed XML; read as a literal '&' (4 in the file)",
             path);
    assert_string_equal(cube_warning(c, 0), want);
    const cube_metric *m = cube_get_metric(c, 0);
    assert_string_equal(cube_metric_disp_name(m), "Time & <more> & &");
    assert_string_equal(cube_metric_descr(m), "x && y");
    assert_string_equal(cube_region_mod(cube_get_region(c, 0)), "a&b.c");
    assert_string_equal(cube_region_name(cube_get_region(c, 0)), "a & b");
    expect_row(c, "time", 0, (const double[]){1, 2});
    cube_free(c);
}

/* ---- structural tolerance ---------------------------------------------- */

static void test_id_or_Id(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-id-case.cube"));
    assert_int_equal(cube_num_metrics(c), 2);
    assert_int_equal(cube_metric_id(cube_get_metric(c, 0)), 0);
    assert_string_equal(cube_metric_uniq_name(cube_get_metric(c, 0)), "time");
    assert_int_equal(cube_metric_id(cube_get_metric(c, 1)), 1);
    assert_string_equal(cube_metric_uniq_name(cube_get_metric(c, 1)), "visits");
    assert_int_equal(cube_num_regions(c), 2);
    assert_int_equal(cube_region_id(cube_get_region(c, 0)), 0);
    assert_int_equal(cube_region_id(cube_get_region(c, 1)), 1);
    assert_string_equal(cube_region_name(cube_get_region(c, 1)), "MPI_Send");
    assert_int_equal(cube_num_cnodes(c), 2);
    assert_int_equal(cube_cnode_id(cube_get_cnode(c, 0)), 0);
    assert_int_equal(cube_cnode_id(cube_get_cnode(c, 1)), 1);
    assert_ptr_equal(cube_cnode_parent(cube_get_cnode(c, 1)), cube_get_cnode(c, 0));
    assert_int_equal(cube_num_machines(c), 1);
    assert_int_equal(cube_num_nodes(c), 1);
    assert_int_equal(cube_num_processes(c), 2);
    assert_int_equal(cube_num_threads(c), 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(cube_process_id(cube_get_process(c, i)), (int64_t)i);
        assert_int_equal(cube_thread_id(cube_get_thread(c, i)), (int64_t)i);
    }
    assert_int_equal(cube_num_rows(c), 4);
    expect_row(c, "time", 0, (const double[]){2.5, 3});
    expect_row(c, "time", 1, (const double[]){0.75, 1.25});
    expect_row(c, "visits", 0, (const double[]){1, 1});
    expect_row(c, "visits", 1, (const double[]){20, 20});
    cube_free(c);
}

static void test_metric_fields_any_order_or_missing(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-metric-fields.cube"));
    assert_int_equal(cube_num_metrics(c), 3);
    const cube_metric *time = cube_get_metric(c, 0), *mpi = cube_get_metric(c, 1),
                      *bare = cube_get_metric(c, 2);
    /* all seven, in reverse order */
    expect_metric(time, 0, "Time", "time", "FLOAT", "sec", "MEASURED",
                  "@mirror@patterns.html#time", "Total time");
    /* two of them, the rest empty */
    expect_metric(mpi, 1, "", "mpi", "FLOAT", "", "", "", "");
    assert_ptr_equal(cube_metric_parent(mpi), time);
    /* none at all */
    expect_metric(bare, 2, "", "", "", "", "", "", "");
    assert_null(cube_metric_parent(bare));
    assert_false(cube_metric_is_void(time) || cube_metric_is_void(mpi) ||
                 cube_metric_is_void(bare));
    /* regions and processes too: missing url, rank before name */
    const cube_region *r = cube_get_region(c, 0);
    assert_string_equal(cube_region_name(r), "main");
    assert_string_equal(cube_region_url(r), "");
    assert_string_equal(cube_region_descr(r), "USR");
    assert_string_equal(cube_process_name(cube_get_process(c, 0)), "Process 0");
    assert_string_equal(cube_thread_name(cube_get_thread(c, 0)), "Thread 0");
    /* values, also for the metric without any name */
    assert_int_equal(cube_num_rows(c), 3);
    const cube_cnode *n = cube_get_cnode(c, 0);
    const double *row = cube_get_row(c, time, n);
    assert_non_null(row);
    expect_double(row[0], 1, "time thread 0");
    expect_double(row[1], 2, "time thread 1");
    row = cube_get_row(c, mpi, n);
    assert_non_null(row);
    expect_double(row[0], 0.5, "mpi thread 0");
    expect_double(row[1], 0.25, "mpi thread 1");
    row = cube_get_row(c, bare, n);
    assert_non_null(row);
    expect_double(row[0], 3, "bare thread 0");
    expect_double(row[1], 4, "bare thread 1");
    cube_free(c);
}

static void test_void_metric(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-void-metric.cube"));
    assert_int_equal(cube_num_metrics(c), 3);
    const cube_metric *time = metric(c, "time"), *imb = metric(c, "imbalance"),
                      *above = metric(c, "imbalance_above");
    assert_string_equal(cube_metric_val(imb), "VOID");
    assert_string_equal(cube_metric_val(above), "MEASURED");
    assert_ptr_equal(cube_metric_parent(above), imb);
    assert_false(cube_metric_is_void(time));
    assert_true(cube_metric_is_void(imb));
    assert_true(cube_metric_is_void(above)); /* VOID by its parent */
    /* the matrices of both come before and after the real one: ignored */
    assert_int_equal(cube_num_rows(c), 1);
    expect_row(c, "time", 0, (const double[]){1, 2});
    expect_no_row(c, "imbalance", 0);
    expect_no_row(c, "imbalance_above", 0);
    cube_free(c);
}

static void test_short_row(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-short-row.cube"));
    assert_int_equal(cube_num_threads(c), 3);
    expect_row(c, "time", 0, (const double[]){5, 0, 0});
    expect_row(c, "time", 1, (const double[]){1, 2, 0});
    expect_no_row(c, "time", 2); /* an empty row adds nothing */
    assert_int_equal(cube_num_rows(c), 2);
    cube_free(c);
}

static void test_rows_and_matrices_in_any_order(void **state)
{
    (void)state;
    expect_plain_model("tolerate-any-order.cube");
}

static void test_repeated_matrix(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-repeated-matrix.cube"));
    assert_int_equal(cube_num_threads(c), 3);
    expect_row(c, "time", 0, (const double[]){7, 2, 3});  /* "1 2 3", later "7" */
    expect_row(c, "time", 1, (const double[]){0, 0, 9});  /* "4 5 6", later "0 0 9" */
    expect_row(c, "time", 2, (const double[]){0, 9, 8});  /* "8 8 8", then "0 9" */
    expect_row(c, "visits", 0, (const double[]){1, 1, 1});
    assert_int_equal(cube_num_rows(c), 4);
    cube_free(c);
}

static void test_thread_ids_out_of_tree_order(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-thread-order.cube"));
    /* tree order: T2 (id 2), T0 (id 0), T1 (id 1) */
    assert_int_equal(cube_num_threads(c), 3);
    const cube_thread *t2 = cube_get_thread(c, 0), *t0 = cube_get_thread(c, 1),
                      *t1 = cube_get_thread(c, 2);
    assert_int_equal(cube_thread_id(t2), 2);
    assert_string_equal(cube_thread_name(t2), "T2");
    assert_int_equal(cube_thread_id(t0), 0);
    assert_string_equal(cube_thread_name(t0), "T0");
    assert_int_equal(cube_thread_id(t1), 1);
    assert_string_equal(cube_thread_name(t1), "T1");
    const cube_metric *m = metric(c, "time");
    const cube_cnode *n0 = cube_get_cnode(c, 0), *n1 = cube_get_cnode(c, 1);
    /* row "10 20 30": the i-th value goes to the i-th smallest thread id */
    expect_double(cube_get_sev(c, m, n0, t0), 10, "cnode 0, thread id 0");
    expect_double(cube_get_sev(c, m, n0, t1), 20, "cnode 0, thread id 1");
    expect_double(cube_get_sev(c, m, n0, t2), 30, "cnode 0, thread id 2");
    /* short row "5": thread id 0 only */
    expect_double(cube_get_sev(c, m, n1, t0), 5, "cnode 1, thread id 0");
    expect_double(cube_get_sev(c, m, n1, t1), 0, "cnode 1, thread id 1");
    expect_double(cube_get_sev(c, m, n1, t2), 0, "cnode 1, thread id 2");
    cube_free(c);
}

/* The streaming reader maps values to threads the same way. */
static void test_thread_order_streaming(void **state)
{
    (void)state;
    cube_reader *r = cube_reader_open(testdata("reader/tolerate-thread-order.cube"));
    assert_non_null(r);
    const cube_t *defs = cube_reader_definitions(r);
    assert_non_null(defs);
    const cube_metric *m;
    const cube_cnode *n;
    const double *v;
    assert_int_equal(cube_reader_next_row(r, &m, &n, &v), 1);
    assert_int_equal(cube_cnode_id(n), 0);
    /* thread index order: T2, T0, T1 */
    expect_double(v[0], 30, "thread index 0");
    expect_double(v[1], 10, "thread index 1");
    expect_double(v[2], 20, "thread index 2");
    assert_int_equal(cube_reader_next_row(r, &m, &n, &v), 1);
    assert_int_equal(cube_cnode_id(n), 1);
    expect_double(v[0], 0, "thread index 0");
    expect_double(v[1], 5, "thread index 1");
    expect_double(v[2], 0, "thread index 2");
    assert_int_equal(cube_reader_next_row(r, &m, &n, &v), 0);
    assert_int_equal(cube_reader_error_code(r), CUBE_OK);
    assert_string_equal(cube_reader_error(r), "");
    cube_reader_close(r);
}

static void test_id_gaps(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-id-gaps.cube"));
    assert_int_equal(cube_num_machines(c), 1);
    assert_int_equal(cube_machine_id(cube_get_machine(c, 0)), 3);
    assert_int_equal(cube_num_nodes(c), 1);
    assert_int_equal(cube_node_id(cube_get_node(c, 0)), 1); /* the only node is Id="1" */
    assert_int_equal(cube_num_processes(c), 2);
    assert_int_equal(cube_process_id(cube_get_process(c, 0)), 4);
    assert_int_equal(cube_process_id(cube_get_process(c, 1)), 9);
    assert_int_equal(cube_num_threads(c), 2);
    assert_int_equal(cube_thread_id(cube_get_thread(c, 0)), 2);
    assert_int_equal(cube_thread_id(cube_get_thread(c, 1)), 5);
    assert_int_equal(cube_num_regions(c), 2);
    assert_int_equal(cube_region_id(cube_get_region(c, 0)), 3);
    assert_int_equal(cube_region_id(cube_get_region(c, 1)), 7);
    assert_int_equal(cube_num_cnodes(c), 3);
    const cube_cnode *n0 = cube_get_cnode(c, 0), *n5 = cube_get_cnode(c, 1),
                     *n9 = cube_get_cnode(c, 2);
    assert_int_equal(cube_cnode_id(n0), 0);
    assert_int_equal(cube_cnode_id(n5), 5);
    assert_int_equal(cube_cnode_id(n9), 9);
    assert_ptr_equal(cube_cnode_callee(n0), cube_get_region(c, 0));
    assert_ptr_equal(cube_cnode_callee(n5), cube_get_region(c, 1));
    assert_ptr_equal(cube_cnode_callee(n9), cube_get_region(c, 1));
    assert_ptr_equal(cube_cnode_parent(n5), n0);
    assert_ptr_equal(cube_cnode_parent(n9), n0);
    assert_int_equal(cube_cnode_line(n9), 43);
    /* cnode ids 9 and 5 are labels, not indexes; threads 2 and 5 get the
     * first and second value */
    assert_int_equal(cube_num_rows(c), 2);
    expect_row(c, "time", 2, (const double[]){1, 2});
    expect_row(c, "time", 1, (const double[]){3, 4});
    expect_no_row(c, "time", 0);
    cube_free(c);
}

/* ---- compressed input and other sources ---------------------------------- */

static void test_gzip(void **state)
{
    (void)state;
    expect_plain_model("tolerate-gzip.cube.gz");
}

static void test_read_from_fd(void **state)
{
    (void)state;
    const char *files[] = {"reader/plain.cube", "reader/tolerate-gzip.cube.gz"};
    for (size_t i = 0; i < 2; i++) {
        int fd = open(testdata(files[i]), O_RDONLY);
        assert_true(fd >= 0);
        cube_t *c = cube_create();
        if (cube_read_fd(c, fd, "<input>") != 0)
            fail_msg("reading %s from a descriptor failed: %s", files[i], cube_error(c));
        assert_int_equal(cube_error_code(c), CUBE_OK);
        assert_string_equal(cube_error(c), "");
        check_plain_model(c);
        /* the caller's descriptor is the caller's: still open */
        assert_true(fcntl(fd, F_GETFD) != -1);
        close(fd);
        cube_free(c);
    }
}

static void test_read_from_stdin_path(void **state)
{
    (void)state;
    int saved = dup(0);
    assert_true(saved >= 0);
    int fd = open(testdata("reader/tolerate-gzip.cube.gz"), O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(dup2(fd, 0), 0);
    close(fd);
    cube_t *c = cube_create();
    int rc = cube_read(c, "-");
    dup2(saved, 0);
    close(saved);
    if (rc != 0)
        fail_msg("reading \"-\" failed: %s", cube_error(c));
    assert_int_equal(cube_error_code(c), CUBE_OK);
    check_plain_model(c);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_crlf_line_ends),
        cmocka_unit_test(test_cdata_sections),
        cmocka_unit_test(test_comments_anywhere),
        cmocka_unit_test(test_any_whitespace_between_values),
        cmocka_unit_test(test_number_forms),
        cmocka_unit_test(test_rank_with_white_space),
        cmocka_unit_test(test_raw_ampersand),
        cmocka_unit_test(test_id_or_Id),
        cmocka_unit_test(test_metric_fields_any_order_or_missing),
        cmocka_unit_test(test_void_metric),
        cmocka_unit_test(test_short_row),
        cmocka_unit_test(test_rows_and_matrices_in_any_order),
        cmocka_unit_test(test_repeated_matrix),
        cmocka_unit_test(test_thread_ids_out_of_tree_order),
        cmocka_unit_test(test_thread_order_streaming),
        cmocka_unit_test(test_id_gaps),
        cmocka_unit_test(test_gzip),
        cmocka_unit_test(test_read_from_fd),
        cmocka_unit_test(test_read_from_stdin_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
