/*
 * test_writer_api.c - the CUBE3 C writer API: definitions, severities,
 * cube_write_all versus the streaming sequence, and what reads back.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The manual's example: 3 metrics, 3 regions, 3 call paths, 2 threads. */
typedef struct {
    cube_t *cube;
    cube_metric *met[3];
    cube_cnode *cnode[3];
    cube_thread *thrd[2];
    cube_region *regn[3];
} example;

static example build_example(void)
{
    example e;
    e.cube = cube_create();
    assert_non_null(e.cube);
    cube_def_mirror(e.cube, "http://icl.cs.utk.edu/software/kojak/");
    cube_def_attr(e.cube, "description", "a simple example");
    e.met[0] = cube_def_met(e.cube, "Time", "time", "FLOAT", "sec", "", "@mirror@a.html#t",
                            "root node", NULL);
    e.met[1] = cube_def_met(e.cube, "User time", "user", "FLOAT", "sec", "", "", "2nd level",
                            e.met[0]);
    e.met[2] = cube_def_met(e.cube, "System time", "sys", "FLOAT", "sec", "", "", "2nd level",
                            e.met[0]);
    const char *mod = "/ICL/CUBE/example.c";
    e.regn[0] = cube_def_region(e.cube, "main", 21, 100, "", "1st level", mod);
    e.regn[1] = cube_def_region(e.cube, "foo", 1, 10, "", "2nd level", mod);
    e.regn[2] = cube_def_region(e.cube, "bar", 11, 20, "", "2nd level", mod);
    e.cnode[0] = cube_def_cnode_cs(e.cube, e.regn[0], mod, 21, NULL);
    e.cnode[1] = cube_def_cnode_cs(e.cube, e.regn[1], mod, 60, e.cnode[0]);
    e.cnode[2] = cube_def_cnode(e.cube, e.regn[2], e.cnode[0]);
    cube_machine *mach = cube_def_mach(e.cube, "MSC", "");
    cube_node *node = cube_def_node(e.cube, "Athena", mach);
    cube_process *p0 = cube_def_proc(e.cube, "Process 0", 0, node);
    cube_process *p1 = cube_def_proc(e.cube, "Process 1", 1, node);
    e.thrd[0] = cube_def_thrd(e.cube, "Thread 0", 0, p0);
    e.thrd[1] = cube_def_thrd(e.cube, "Thread 1", 1, p1);
    long dimv[2] = {5, 5}, c0[2] = {0, 0}, c1[2] = {3, 3};
    int periodv[2] = {1, 0};
    cube_cartesian *cart = cube_def_cart(e.cube, 2, dimv, periodv);
    cube_def_coords(e.cube, cart, e.thrd[0], c0);
    cube_def_coords(e.cube, cart, e.thrd[1], c1);
    for (int n = 0; n < 3; n++)
        for (int t = 0; t < 2; t++) {
            cube_set_sev(e.cube, e.met[1], e.cnode[n], e.thrd[t], 3 + n + 0.25 * t);
            cube_set_sev(e.cube, e.met[2], e.cnode[n], e.thrd[t], 1);
            cube_set_sev(e.cube, e.met[0], e.cnode[n], e.thrd[t], 4 + n + 0.25 * t);
        }
    assert_int_equal(cube_error_code(e.cube), CUBE_OK);
    assert_string_equal(cube_error(e.cube), "");
    return e;
}

static void test_example_reads_back(void **state)
{
    (void)state;
    example e = build_example();
    char *path = write_with(e.cube, cube_write_all);
    cube_t *back = read_ok(path);
    assert_same_model(e.cube, back);
    /* spot checks on what the file says, not only that the models agree */
    assert_int_equal(cube_num_metrics(back), 3);
    assert_int_equal(cube_num_root_metrics(back), 1);
    assert_string_equal(cube_metric_uniq_name(cube_metric_parent(cube_get_metric(back, 1))),
                        "time");
    assert_int_equal(cube_cnode_line(cube_get_cnode(back, 1)), 60);
    assert_int_equal(cube_cnode_line(cube_get_cnode(back, 2)), -1);
    assert_string_equal(cube_region_name(cube_cnode_callee(cube_get_cnode(back, 2))), "bar");
    assert_true(cube_get_sev(back, cube_get_metric(back, 1), cube_get_cnode(back, 2),
                             cube_get_thread(back, 1)) == 5.25);
    const cube_cartesian *cart = cube_get_cart(back, 0);
    assert_int_equal(cube_cart_ndims(cart), 2);
    assert_int_equal(cube_cart_period(cart, 0), 1);
    assert_int_equal(cube_cart_period(cart, 1), 0);
    assert_int_equal(cube_cart_coord(cart, 1)->coords[0], 3);
    assert_string_equal(cube_get_attr(back, "description"), "a simple example");
    cube_free(back);
    cube_free(e.cube);
    unlink(path);
    free(path);
}

static void write_streamed(cube_t *c, FILE *fp)
{
    /* rows handed over one at a time, as a tool that never holds all values
     * would: the result must be the same bytes as cube_write_all */
    cube_write_def(c, fp);
    size_t nthreads = cube_num_threads(c);
    double *row = calloc(nthreads, sizeof *row);
    for (size_t m = 0; m < cube_num_metrics(c); m++)
        for (size_t n = 0; n < cube_num_cnodes(c); n++) {
            const double *v = cube_get_row(c, cube_get_metric(c, m), cube_get_cnode(c, n));
            if (!v)
                continue;
            memcpy(row, v, nthreads * sizeof *row);
            cube_write_sev_row(c, fp, cube_get_metric(c, m), cube_get_cnode(c, n), row);
        }
    free(row);
    cube_write_finish(c, fp);
}

static void write_def_matrix_finish(cube_t *c, FILE *fp)
{
    cube_write_def(c, fp);
    cube_write_sev_matrix(c, fp);
    cube_write_finish(c, fp);
}

static void test_streaming_sequence_same_bytes(void **state)
{
    (void)state;
    example e = build_example();
    char *all = write_with(e.cube, cube_write_all);
    char *streamed = write_with(e.cube, write_streamed);
    char *trio = write_with(e.cube, write_def_matrix_finish);
    size_t n1, n2, n3;
    char *a = slurp(all, &n1), *b = slurp(streamed, &n2), *c = slurp(trio, &n3);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    assert_int_equal(n1, n3);
    assert_memory_equal(a, c, n1);
    free(a), free(b), free(c);
    unlink(all), unlink(streamed), unlink(trio);
    free(all), free(streamed), free(trio);
    cube_free(e.cube);
}

static void test_add_sev_accumulates(void **state)
{
    (void)state;
    example e = build_example();
    cube_add_sev(e.cube, e.met[2], e.cnode[1], e.thrd[0], 0.5);
    cube_add_sev(e.cube, e.met[2], e.cnode[1], e.thrd[0], 0.25);
    assert_true(cube_get_sev(e.cube, e.met[2], e.cnode[1], e.thrd[0]) == 1.75);
    cube_set_sev(e.cube, e.met[2], e.cnode[1], e.thrd[0], 2);
    assert_true(cube_get_sev(e.cube, e.met[2], e.cnode[1], e.thrd[0]) == 2);
    cube_free(e.cube);
}

static void test_flat_profile_by_region(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    cube_metric *m = cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_region *r0 = cube_def_region(c, "main", 1, 9, "", "", "a.c");
    cube_region *r1 = cube_def_region(c, "work", 10, 19, "", "", "a.c");
    cube_thread *t = cube_def_thrd(c, "Thread 0", 0,
                                   cube_def_proc(c, "Process 0", 0,
                                                 cube_def_node(c, "n", cube_def_mach(c, "m", ""))));
    cube_set_sev_reg(c, m, r1, t, 2.5);
    cube_add_sev_reg(c, m, r1, t, 0.5);
    cube_set_sev_reg(c, m, r0, t, 1);
    /* one call-tree root per region, in the order the regions got values */
    assert_int_equal(cube_num_root_cnodes(c), 2);
    assert_ptr_equal(cube_cnode_callee(cube_get_root_cnode(c, 0)), r1);
    assert_ptr_equal(cube_cnode_callee(cube_get_root_cnode(c, 1)), r0);
    assert_true(cube_get_sev(c, m, cube_get_root_cnode(c, 0), t) == 3.0);
    char *path = write_with(c, cube_write_all);
    cube_t *back = read_ok(path);
    assert_same_model(c, back);
    cube_free(back);
    cube_free(c);
    unlink(path);
    free(path);
}

static void test_threads_defined_after_values(void **state)
{
    (void)state;
    /* a thread added after values were set widens every row with zeros */
    cube_t *c = cube_create();
    cube_metric *m = cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_cnode *n = cube_def_cnode(c, cube_def_region(c, "main", -1, -1, "", "", ""), NULL);
    cube_process *p = cube_def_proc(c, "P", 0, cube_def_node(c, "n", cube_def_mach(c, "m", "")));
    cube_thread *t0 = cube_def_thrd(c, "T0", 0, p);
    cube_set_sev(c, m, n, t0, 7);
    cube_thread *t1 = cube_def_thrd(c, "T1", 1, p);
    cube_set_sev(c, m, n, t1, 8);
    const double *row = cube_get_row(c, m, n);
    assert_true(row[0] == 7 && row[1] == 8);
    cube_free(c);
}

static void test_void_metric_gets_no_values(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    cube_metric *v = cube_def_met(c, "Void", "void", "FLOAT", "sec", "VOID", "", "", NULL);
    cube_metric *child = cube_def_met(c, "Child", "child", "FLOAT", "sec", "", "", "", v);
    cube_cnode *n = cube_def_cnode(c, cube_def_region(c, "main", -1, -1, "", "", ""), NULL);
    cube_thread *t = cube_def_thrd(
        c, "T0", 0, cube_def_proc(c, "P", 0, cube_def_node(c, "n", cube_def_mach(c, "m", ""))));
    assert_true(cube_metric_is_void(child));
    cube_set_sev(c, v, n, t, 1);
    cube_set_sev(c, child, n, t, 1);
    assert_int_equal(cube_num_rows(c), 0);
    cube_free(c);
}

static void test_escaping_round_trips(void **state)
{
    (void)state;
    /* every text and attribute value is escaped, including region URLs and
     * topology names, which the original writer got wrong */
    cube_t *c = cube_create();
    const char *nasty = "a&b <c> \"d\" 'e' &amp;";
    cube_def_attr(c, nasty, nasty);
    cube_def_mirror(c, nasty);
    cube_metric *m = cube_def_met(c, nasty, nasty, "FLOAT", nasty, "", nasty, nasty, NULL);
    cube_region *r = cube_def_region(c, nasty, 1, 2, nasty, nasty, nasty);
    cube_cnode *n = cube_def_cnode_cs(c, r, nasty, 5, NULL);
    cube_machine *mach = cube_def_mach(c, nasty, nasty);
    cube_thread *t = cube_def_thrd(
        c, nasty, 0, cube_def_proc(c, nasty, 0, cube_def_node(c, nasty, mach)));
    long dims[1] = {1}, coord[1] = {0};
    cube_cartesian *cart = cube_def_cart(c, 1, dims, NULL);
    assert_int_equal(cube_cart_set_name(c, cart, nasty), 0);
    assert_int_equal(cube_cart_set_dim_name(c, cart, 0, nasty), 0);
    cube_def_coords(c, cart, t, coord);
    cube_set_sev(c, m, n, t, 1.5);
    char *path = write_with(c, cube_write_all);
    cube_t *back = read_ok(path);
    assert_same_model(c, back);
    assert_string_equal(cube_region_url(cube_get_region(back, 0)), nasty);
    assert_string_equal(cube_cart_name(cube_get_cart(back, 0)), nasty);
    cube_free(back);
    cube_free(c);
    unlink(path);
    free(path);
}

/* A NaN or an infinity is refused, naming where it is, instead of being
 * written as "nan" or "inf", which no CUBE reader accepts. */
static void test_non_finite_value_fails(void **state)
{
    (void)state;
    static const struct {
        double value;
        const char *text;
    } cases[] = {{NAN, "nan"}, {INFINITY, "inf"}, {-INFINITY, "-inf"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        example e = build_example();
        cube_set_sev(e.cube, e.met[1], e.cnode[2], e.thrd[1], cases[i].value);
        char want[256], want_path[1024];
        snprintf(want, sizeof want,
                 "cannot write a non-finite value (%s) for metric user, cnode 2, thread 1",
                 cases[i].text);

        /* to a stream */
        char *path = temp_path(".cube");
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        cube_write_all(e.cube, fp);
        assert_int_equal(fclose(fp), 0);
        assert_int_equal(cube_error_code(e.cube), CUBE_EINVAL);
        assert_string_equal(cube_error(e.cube), want);
        unlink(path);
        free(path);

        /* to a path, plain and gzip: -1 and no output, not even a temporary
         * file (rmdir fails on a directory that is not empty) */
        char dir[] = "/tmp/libcube-test-XXXXXX";
        assert_non_null(mkdtemp(dir));
        const char *names[] = {"out.cube", "out.cube.gz"};
        for (size_t k = 0; k < 2; k++) {
            char out[256];
            snprintf(out, sizeof out, "%s/%s", dir, names[k]);
            assert_int_equal(cube_write_file(e.cube, out, 0), -1);
            assert_int_equal(cube_error_code(e.cube), CUBE_EINVAL);
            snprintf(want_path, sizeof want_path, "%s: %s", out, want);
            assert_string_equal(cube_error(e.cube), want_path);
        }
        assert_int_equal(rmdir(dir), 0);
        cube_free(e.cube);
    }
}

/* cube_write_sev_row refuses such a row as a whole; the stream stays a
 * readable experiment without it. */
static void test_non_finite_streamed_row_fails(void **state)
{
    (void)state;
    example e = build_example();
    char *path = temp_path(".cube");
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    cube_write_def(e.cube, fp);
    double good[2] = {1, 2}, bad[2] = {3, NAN};
    cube_write_sev_row(e.cube, fp, e.met[0], e.cnode[0], good);
    cube_write_sev_row(e.cube, fp, e.met[0], e.cnode[1], bad);
    assert_int_equal(cube_error_code(e.cube), CUBE_EINVAL);
    assert_string_equal(cube_error(e.cube),
                        "cannot write a non-finite value (nan) for metric time, cnode 1, "
                        "thread 1");
    cube_write_finish(e.cube, fp);
    assert_int_equal(fclose(fp), 0);
    cube_t *back = read_ok(path);
    assert_int_equal(cube_num_rows(back), 1);
    assert_true(cube_get_sev(back, cube_get_metric(back, 0), cube_get_cnode(back, 0),
                             cube_get_thread(back, 1)) == 2);
    assert_null(cube_get_row(back, cube_get_metric(back, 0), cube_get_cnode(back, 1)));
    cube_free(back);
    cube_free(e.cube);
    unlink(path);
    free(path);
}

/* Strings given to the writer API are not checked by anyone: control
 * characters and bytes that are not UTF-8 become U+FFFD, so that the file
 * is always well-formed and reads back; valid UTF-8, tab and LF are kept. */
#define U "\xEF\xBF\xBD" /* U+FFFD */
static void test_strings_written_well_formed(void **state)
{
    (void)state;
    static const struct {
        const char *given, *read;
    } cases[] = {
        {"bell\a", "bell" U},
        {"\x01x\x1f", U "x" U},
        {"\x7f del", "\x7f del"},                  /* DEL is an XML character */
        {"tab\tand\nline", "tab\tand\nline"},
        {"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E"},
        {"latin1 caf\xE9!", "latin1 caf" U "!"},   /* E9 then '!': no sequence */
        {"cut\xC3", "cut" U},                       /* truncated at the end */
        {"\xE2\x82 x", U " x"},                    /* one U+FFFD per maximal subpart */
        {"\xff\xfe", U U},
        {"\xC0\xAF", U U},                         /* overlong '/' */
        {"\xED\xA0\x80", U U U},                   /* a surrogate */
        {"\xF4\x90\x80\x80", U U U U},             /* above U+10FFFF */
        {"\xEF\xBF\xBE\xEF\xBF\xBF", U U},        /* U+FFFE, U+FFFF: no XML characters */
        {"a&b\x02<c>", "a&b" U "<c>"},
    };
    size_t n = sizeof cases / sizeof cases[0];
    cube_t *c = cube_create();
    cube_cnode *cnode = NULL;
    for (size_t i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "m%zu", i);
        cube_def_met(c, cases[i].given, name, "FLOAT", "sec", "", "", cases[i].given, NULL);
        cube_region *r = cube_def_region(c, cases[i].given, 1, 2, "", "", cases[i].given);
        cnode = cube_def_cnode_cs(c, r, cases[i].given, 3, NULL);
        snprintf(name, sizeof name, "k%zu", i);
        cube_def_attr(c, name, cases[i].given);
    }
    cube_thread *t = cube_def_thrd(
        c, cases[0].given, 0,
        cube_def_proc(c, cases[1].given, 0, cube_def_node(c, cases[2].given, cube_def_mach(c, "m", ""))));
    cube_set_sev(c, cube_get_metric(c, 0), cnode, t, 1);
    char *path = write_with(c, cube_write_all);
    cube_t *back = read_ok(path);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(cube_metric_disp_name(cube_get_metric(back, i)), cases[i].read);
        assert_string_equal(cube_metric_descr(cube_get_metric(back, i)), cases[i].read);
        assert_string_equal(cube_region_name(cube_get_region(back, i)), cases[i].read);
        /* attribute values: XML turns a tab or LF into a space on reading */
        if (!strpbrk(cases[i].given, "\t\n")) {
            assert_string_equal(cube_region_mod(cube_get_region(back, i)), cases[i].read);
            assert_string_equal(cube_cnode_mod(cube_get_cnode(back, i)), cases[i].read);
            assert_string_equal(cube_attr_value(back, i), cases[i].read);
        }
    }
    assert_string_equal(cube_thread_name(cube_get_thread(back, 0)), cases[0].read);
    cube_free(back);
    cube_free(c);
    unlink(path);
    free(path);
}
#undef U

/* Ids the writer API hands out after cube_read are above every id of the
 * file (whose ids are labels with gaps), so no label repeats. */
static void test_ids_after_read_are_fresh(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/tolerate-id-gaps.cube"));
    /* the largest ids of the file, per kind */
    assert_int_equal(cube_region_id(cube_get_region(c, 1)), 7);
    assert_int_equal(cube_cnode_id(cube_get_cnode(c, 2)), 9);
    assert_int_equal(cube_machine_id(cube_get_machine(c, 0)), 3);
    assert_int_equal(cube_node_id(cube_get_node(c, 0)), 1);
    assert_int_equal(cube_process_id(cube_get_process(c, 1)), 9);
    assert_int_equal(cube_thread_id(cube_get_thread(c, 1)), 5);
    assert_int_equal(cube_num_metrics(c), 1);
    assert_int_equal(cube_metric_id(cube_get_metric(c, 0)), 0);

    cube_metric *m = cube_def_met(c, "New", "new", "FLOAT", "sec", "", "", "", NULL);
    cube_region *r = cube_def_region(c, "new", -1, -1, "", "", "");
    cube_cnode *n = cube_def_cnode(c, r, NULL);
    cube_machine *mach = cube_def_mach(c, "new", "");
    cube_node *node = cube_def_node(c, "new", mach);
    cube_process *p = cube_def_proc(c, "new", 7, node);
    cube_thread *t = cube_def_thrd(c, "new", 0, p);
    assert_int_equal(cube_error_code(c), CUBE_OK);
    assert_string_equal(cube_error(c), "");
    assert_int_equal(cube_metric_id(m), 1);
    assert_int_equal(cube_region_id(r), 8);
    assert_int_equal(cube_cnode_id(n), 10);
    assert_int_equal(cube_machine_id(mach), 4);
    assert_int_equal(cube_node_id(node), 2);
    assert_int_equal(cube_process_id(p), 10);
    assert_int_equal(cube_thread_id(t), 6);
    /* and the next ones count on from there */
    assert_int_equal(cube_cnode_id(cube_def_cnode(c, r, n)), 11);
    assert_int_equal(cube_thread_id(cube_def_thrd(c, "new", 1, p)), 7);
    cube_free(c);
}

/* cube_write_sev_row is called once per row: it must not flush the stream
 * (a system call per row).  Everything stays in the stream's buffer until
 * cube_write_finish flushes, and the bytes are still those of
 * cube_write_all. */
static void test_streaming_flushes_only_at_finish(void **state)
{
    (void)state;
    static char stdio_buffer[1 << 20];
    example e = build_example();
    char *all = write_with(e.cube, cube_write_all);
    char *path = temp_path(".cube");
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    assert_int_equal(setvbuf(fp, stdio_buffer, _IOFBF, sizeof stdio_buffer), 0);
    struct stat st;
    cube_write_def(e.cube, fp);
    cube_write_sev_matrix(e.cube, fp);
    assert_int_equal(fstat(fileno(fp), &st), 0);
    assert_int_equal(st.st_size, 0);
    cube_write_finish(e.cube, fp);
    assert_int_equal(fstat(fileno(fp), &st), 0);
    long written = ftell(fp);
    assert_true(written > 0);
    assert_int_equal(st.st_size, written);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(cube_error_code(e.cube), CUBE_OK);
    assert_string_equal(cube_error(e.cube), "");
    size_t n1, n2;
    char *a = slurp(all, &n1), *b = slurp(path, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    free(a), free(b);

    /* the same with rows given one at a time, several hundred times */
    fp = fopen(path, "w");
    assert_non_null(fp);
    assert_int_equal(setvbuf(fp, stdio_buffer, _IOFBF, sizeof stdio_buffer), 0);
    cube_write_def(e.cube, fp);
    double row[2];
    for (int i = 0; i < 500; i++) {
        row[0] = i;
        row[1] = 0.5 * i;
        cube_write_sev_row(e.cube, fp, e.met[i % 3], e.cnode[i % 3], row);
    }
    assert_int_equal(fstat(fileno(fp), &st), 0);
    assert_int_equal(st.st_size, 0);
    cube_write_finish(e.cube, fp);
    assert_int_equal(fstat(fileno(fp), &st), 0);
    assert_int_equal(st.st_size, ftell(fp));
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(cube_error_code(e.cube), CUBE_OK);
    assert_string_equal(cube_error(e.cube), "");
    cube_t *back = read_ok(path);
    cube_free(back);

    unlink(all), unlink(path);
    free(all), free(path);
    cube_free(e.cube);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_reads_back),
        cmocka_unit_test(test_streaming_sequence_same_bytes),
        cmocka_unit_test(test_add_sev_accumulates),
        cmocka_unit_test(test_flat_profile_by_region),
        cmocka_unit_test(test_threads_defined_after_values),
        cmocka_unit_test(test_void_metric_gets_no_values),
        cmocka_unit_test(test_escaping_round_trips),
        cmocka_unit_test(test_non_finite_value_fails),
        cmocka_unit_test(test_non_finite_streamed_row_fails),
        cmocka_unit_test(test_strings_written_well_formed),
        cmocka_unit_test(test_ids_after_read_are_fresh),
        cmocka_unit_test(test_streaming_flushes_only_at_finish),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
