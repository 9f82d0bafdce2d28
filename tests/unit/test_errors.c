/*
 * test_errors.c - the one error model of libcube(3), ERRORS, on real files
 * from testdata/, for every kind of handle and for the functions that
 * report through a cube_status:
 *
 *  - a failing call says so by its return value (-1 or NULL) and leaves a
 *    code and a one-line message on the handle it changes: a cube_t, a
 *    reader (whose error is final), a union, a view, a statistics file, a
 *    LinkTest handle;
 *  - the next successful call on that handle clears them (CUBE_OK, "");
 *  - a function without such a handle sets its status on success too
 *    (CUBE_OK and "", whatever the status held before) and takes NULL for
 *    a caller who does not want it;
 *  - every code has a text of its own.
 *
 * The codes: CUBE_EIO for a file that cannot be opened or written,
 * CUBE_EFORMAT for a malformed input, CUBE_EINVAL for an invalid argument,
 * CUBE_ESTATE for a call out of order, CUBE_EMISMATCH for experiments that
 * cannot be lined up, CUBE_ECANCELED for a write after
 * cube_remove_temp_files.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------- */
/* helpers                                                                 */

#define MISSING_DIR "/nonexistent-libcube-test-dir"

/* A status that holds an old error: a success must clear it. */
static void set_old_error(cube_status *st)
{
    st->code = CUBE_EMISMATCH;
    snprintf(st->message, sizeof st->message, "an old error that must be cleared");
}

static void fail_code(const char *what, cube_code got, cube_code want, const char *message)
{
    fail_msg("%s: code %d (%s), expected %d (%s); message \"%s\"", what, (int)got,
             cube_code_text(got), (int)want, cube_code_text(want), message ? message : "(null)");
}

/* A failure: `code` and a message of one line that is not empty. */
static void expect_failure(const char *what, cube_code got, const char *message, cube_code want)
{
    if (got != want)
        fail_code(what, got, want, message);
    assert_non_null(message);
    if (message[0] == '\0')
        fail_msg("%s: failed with %s, but without a message", what, cube_code_text(got));
    if (strchr(message, '\n'))
        fail_msg("%s: the message \"%s\" is not one line", what, message);
}

/* A success, or an error cleared: CUBE_OK and "". */
static void expect_clear(const char *what, cube_code got, const char *message)
{
    if (got != CUBE_OK)
        fail_code(what, got, CUBE_OK, message);
    assert_non_null(message);
    if (message[0] != '\0')
        fail_msg("%s: CUBE_OK, but the message \"%s\" was left", what, message);
}

static void expect_contains(const char *message, const char *needle)
{
    if (!strstr(message, needle))
        fail_msg("the message \"%s\" lacks \"%s\"", message, needle);
}

/* testdata/<rel> in a buffer of the caller's (testdata() reuses four) */
static void data_path(char *buf, size_t len, const char *rel)
{
    snprintf(buf, len, "%s", testdata(rel));
}

/* ---------------------------------------------------------------------- */
/* the codes                                                               */

static void test_code_texts(void **state)
{
    (void)state;
    static const cube_code codes[] = {CUBE_OK,     CUBE_ENOMEM,  CUBE_EIO,
                                      CUBE_EFORMAT, CUBE_EUNSUPPORTED, CUBE_EINVAL,
                                      CUBE_ESTATE, CUBE_EMISMATCH, CUBE_ECANCELED};
    size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        const char *t = cube_code_text(codes[i]);
        assert_non_null(t);
        if (t[0] == '\0')
            fail_msg("code %d has an empty text", (int)codes[i]);
        for (size_t j = 0; j < i; j++)
            if (strcmp(t, cube_code_text(codes[j])) == 0)
                fail_msg("codes %d and %d share the text \"%s\"", (int)codes[j], (int)codes[i],
                         t);
    }
    /* the codes are stable numbers, part of the interface */
    assert_int_equal(CUBE_OK, 0);
    assert_int_equal(CUBE_ENOMEM, 1);
    assert_int_equal(CUBE_EIO, 2);
    assert_int_equal(CUBE_EFORMAT, 3);
    assert_int_equal(CUBE_EUNSUPPORTED, 4);
    assert_int_equal(CUBE_EINVAL, 5);
    assert_int_equal(CUBE_ESTATE, 6);
    assert_int_equal(CUBE_EMISMATCH, 7);
    assert_int_equal(CUBE_ECANCELED, 8);
    /* never NULL, not even for a number that is no code */
    assert_non_null(cube_code_text((cube_code)99));
}

/* ---------------------------------------------------------------------- */
/* cube_t                                                                  */

static void test_cube_read_missing_file(void **state)
{
    (void)state;
    char path[512];
    data_path(path, sizeof path, "reader/no-such-file.cube");
    assert_int_equal(access(path, F_OK), -1);
    cube_t *c = cube_create();
    assert_non_null(c);
    expect_clear("a new handle", cube_error_code(c), cube_error(c));
    assert_int_equal(cube_read(c, path), -1);
    expect_failure("cube_read of a missing file", cube_error_code(c), cube_error(c), CUBE_EIO);
    expect_contains(cube_error(c), path);
    cube_free(c);
}

static void test_cube_read_malformed_file(void **state)
{
    (void)state;
    char path[512], where[600];
    data_path(path, sizeof path, "reader/reject-row-too-long.cube");
    snprintf(where, sizeof where, "%s:52: ", path);
    cube_t *c = cube_create();
    assert_int_equal(cube_read(c, path), -1);
    expect_failure("cube_read of a malformed file", cube_error_code(c), cube_error(c),
                   CUBE_EFORMAT);
    /* "FILE:LINE: what was expected, what was found" */
    assert_true(strncmp(cube_error(c), where, strlen(where)) == 0);
    cube_free(c);

    /* a CUBE 4 archive cut short inside its definitions: "FILE: member
     * NAME: byte OFFSET: what was expected" */
    data_path(path, sizeof path, "cubex/mkcubex_minimal.cubex");
    size_t len;
    char *bytes = slurp(path, &len);
    assert_true(len > 9000);
    char *cut = temp_file_with(bytes, 9000);
    c = cube_create();
    assert_int_equal(cube_read(c, cut), -1);
    expect_failure("cube_read of a truncated CUBE 4 archive", cube_error_code(c), cube_error(c),
                   CUBE_EFORMAT);
    snprintf(where, sizeof where, "%s: member anchor.xml: byte ", cut);
    assert_true(strncmp(cube_error(c), where, strlen(where)) == 0);
    cube_free(c);
    unlink(cut);
    free(cut);
    free(bytes);
}

/* The writer API: a bad argument leaves an error, the next successful call
 * that changes the handle clears it. */
static void test_cube_writer_errors_are_cleared(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    long dims[2] = {2, 3};
    int periods[2] = {1, 0};

    assert_null(cube_def_cart(c, 0, dims, periods));
    expect_failure("cube_def_cart with 0 dimensions", cube_error_code(c), cube_error(c),
                   CUBE_EINVAL);
    assert_string_equal(cube_error(c), "a Cartesian topology needs 1 to 1024 dimensions, not 0");
    cube_machine *m = cube_def_mach(c, "M", "");
    assert_non_null(m);
    expect_clear("cube_def_mach after a failure", cube_error_code(c), cube_error(c));

    assert_null(cube_def_node(c, "n", NULL));
    expect_failure("cube_def_node without a machine", cube_error_code(c), cube_error(c),
                   CUBE_EINVAL);
    assert_string_equal(cube_error(c), "a node needs a machine");
    cube_node *node = cube_def_node(c, "n", m);
    assert_non_null(node);
    expect_clear("cube_def_node after a failure", cube_error_code(c), cube_error(c));

    cube_process *p = cube_def_proc(c, "P", 0, node);
    cube_thread *t = cube_def_thrd(c, "T", 0, p);
    cube_metric *met = cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_cnode *cn = cube_def_cnode(c, cube_def_region(c, "main", -1, -1, "", "", ""), NULL);
    assert_true(t && met && cn);
    expect_clear("definitions", cube_error_code(c), cube_error(c));

    cube_cartesian *cart = cube_def_cart(c, 2, dims, periods);
    assert_non_null(cart);
    assert_int_equal(cube_cart_set_dim_name(c, cart, 5, "z"), -1);
    expect_failure("cube_cart_set_dim_name of dimension 5", cube_error_code(c), cube_error(c),
                   CUBE_EINVAL);
    assert_string_equal(cube_error(c), "topology has no dimension 5");
    assert_int_equal(cube_cart_set_name(c, cart, "grid"), 0);
    expect_clear("cube_cart_set_name after a failure", cube_error_code(c), cube_error(c));

    /* the void functions of the CUBE3 API fail only through the handle */
    long outside[2] = {2, 0}, inside[2] = {1, 2};
    cube_def_coords(c, cart, t, outside);
    expect_failure("cube_def_coords outside the topology", cube_error_code(c), cube_error(c),
                   CUBE_EINVAL);
    assert_string_equal(cube_error(c), "coordinate 2 of dimension 0 is outside 0..1");
    cube_def_coords(c, cart, t, inside);
    expect_clear("cube_def_coords after a failure", cube_error_code(c), cube_error(c));
    assert_int_equal(cube_cart_num_coords(cart), 1);

    cube_set_sev(c, met, NULL, t, 1.0);
    expect_failure("cube_set_sev without a call path", cube_error_code(c), cube_error(c),
                   CUBE_EINVAL);
    cube_set_sev(c, met, cn, t, 1.0);
    expect_clear("cube_set_sev after a failure", cube_error_code(c), cube_error(c));

    /* writing to a path: a folder that does not exist */
    const char *bad = MISSING_DIR "/x.cube";
    assert_int_equal(cube_write_file(c, bad, 0), -1);
    expect_failure("cube_write_file into a missing folder", cube_error_code(c), cube_error(c),
                   CUBE_EIO);
    expect_contains(cube_error(c), bad);
    char *good = temp_path(".cube");
    assert_int_equal(cube_write_file(c, good, 0), 0);
    expect_clear("cube_write_file after a failure", cube_error_code(c), cube_error(c));
    cube_t *back = read_ok(good);
    expect_clear("cube_read", cube_error_code(back), cube_error(back));
    assert_true(cube_get_sev(back, cube_get_metric(back, 0), cube_get_cnode(back, 0),
                             cube_get_thread(back, 0)) == 1.0);
    cube_free(back);
    unlink(good);
    free(good);

    /* cube_prune reports through the handle as well */
    assert_null(cube_def_cart(c, -1, dims, periods));
    expect_failure("cube_def_cart with -1 dimensions", cube_error_code(c), cube_error(c),
                   CUBE_EINVAL);
    size_t dropped = 99;
    assert_int_equal(cube_prune(c, &dropped), 0);
    assert_int_equal(dropped, 0);
    expect_clear("cube_prune after a failure", cube_error_code(c), cube_error(c));
    assert_int_equal(cube_prune(c, NULL), 0);
    cube_free(c);
}

/* A value that cannot be written (NaN) is an invalid argument; the next
 * successful write clears it. */
static void test_cube_write_non_finite_then_finite(void **state)
{
    (void)state;
    char path[512];
    data_path(path, sizeof path, "reader/plain.cube");
    cube_t *c = read_ok(path);
    cube_metric *time = cube_find_metric(c, "time");
    assert_non_null(time);
    cube_set_sev(c, time, cube_get_cnode(c, 0), cube_get_thread(c, 1), NAN);
    char *out = temp_path(".cube");
    assert_int_equal(cube_write_file(c, out, 0), -1);
    expect_failure("writing NaN", cube_error_code(c), cube_error(c), CUBE_EINVAL);
    expect_contains(cube_error(c), "non-finite");
    assert_int_equal(access(out, F_OK), -1); /* nothing written */
    cube_set_sev(c, time, cube_get_cnode(c, 0), cube_get_thread(c, 1), 3.0);
    assert_int_equal(cube_write_file(c, out, 0), 0);
    expect_clear("a write after the value was fixed", cube_error_code(c), cube_error(c));
    unlink(out);
    free(out);
    cube_free(c);
}

/* ---------------------------------------------------------------------- */
/* cube_reader: an error is final                                          */

static void expect_reader_stays_failed(cube_reader *r, cube_code code, const char *what)
{
    char first[CUBE_MESSAGE_SIZE];
    expect_failure(what, cube_reader_error_code(r), cube_reader_error(r), code);
    snprintf(first, sizeof first, "%s", cube_reader_error(r));
    const cube_metric *m;
    const cube_cnode *n;
    const double *v;
    size_t mi, ni;
    for (int k = 0; k < 3; k++) {
        assert_int_equal(cube_reader_next_row(r, &m, &n, &v), -1);
        assert_int_equal(cube_reader_error_code(r), code);
        assert_string_equal(cube_reader_error(r), first);
        assert_int_equal(cube_reader_next_row_index(r, &mi, &ni, &v), -1);
        assert_int_equal(cube_reader_error_code(r), code);
        assert_string_equal(cube_reader_error(r), first);
    }
}

static void test_reader_error_is_final(void **state)
{
    (void)state;
    char path[512];
    /* a file that cannot be opened: a reader whose error is set */
    data_path(path, sizeof path, "reader/no-such-file.cube");
    cube_reader *r = cube_reader_open(path);
    assert_non_null(r);
    assert_null(cube_reader_definitions(r));
    expect_failure("opening a missing file", cube_reader_error_code(r), cube_reader_error(r),
                   CUBE_EIO);
    expect_contains(cube_reader_error(r), path);
    expect_reader_stays_failed(r, CUBE_EIO, "a reader of a missing file");
    cube_reader_close(r);

    /* a NaN in a row: the error comes with the rows and stays */
    data_path(path, sizeof path, "reader/reject-nan.cube");
    r = cube_reader_open(path);
    assert_non_null(r);
    const cube_metric *m;
    const cube_cnode *n;
    const double *v;
    assert_int_equal(cube_reader_next_row(r, &m, &n, &v), -1);
    expect_reader_stays_failed(r, CUBE_EFORMAT, "a reader of a malformed file");
    expect_contains(cube_reader_error(r), path);
    cube_reader_close(r);

    /* a good file: no error before, during and after the rows */
    data_path(path, sizeof path, "reader/plain.cube");
    r = cube_reader_open(path);
    assert_non_null(r);
    assert_non_null(cube_reader_definitions(r));
    expect_clear("opening a good file", cube_reader_error_code(r), cube_reader_error(r));
    int rc, rows = 0;
    while ((rc = cube_reader_next_row(r, &m, &n, &v)) == 1)
        rows++;
    assert_int_equal(rc, 0);
    assert_int_equal(rows, 5);
    expect_clear("the end of a good file", cube_reader_error_code(r), cube_reader_error(r));
    cube_reader_close(r);
}

/* ---------------------------------------------------------------------- */
/* cube_union                                                              */

static void test_union_errors(void **state)
{
    (void)state;
    char pa[512], pb[512];
    data_path(pa, sizeof pa, "cube/scalasca_trace.cube");
    data_path(pb, sizeof pb, "cube/tau2cube_template1.cube");
    cube_t *a = read_ok(pa), *b = read_ok(pb);

    /* rank 0 on node i01r04c02s11 in one, on node Node in the other: the
     * system trees cannot be lined up (the conflict may be found when the
     * input is added or when the union is finished) */
    cube_union *u = cube_union_create(CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE);
    assert_non_null(u);
    expect_clear("a new union", cube_union_error_code(u), cube_union_error(u));
    assert_int_equal(cube_union_add(u, a, "first.cube"), 0);
    expect_clear("cube_union_add", cube_union_error_code(u), cube_union_error(u));
    int rc = cube_union_add(u, b, "second.cube");
    if (rc == 0)
        rc = cube_union_finish(u);
    assert_int_equal(rc, -1);
    expect_failure("a union of disagreeing system trees", cube_union_error_code(u),
                   cube_union_error(u), CUBE_EMISMATCH);
    expect_contains(cube_union_error(u), "the system trees do not agree");
    expect_contains(cube_union_error(u), "first.cube");
    expect_contains(cube_union_error(u), "second.cube");
    cube_union_free(u);

    /* the first input's tree (-c): they line up */
    u = cube_union_create(CUBE_MATCH_FULL, CUBE_SYSTEM_FIRST);
    assert_int_equal(cube_union_add(u, a, "first.cube"), 0);
    assert_int_equal(cube_union_add(u, b, "second.cube"), 0);
    assert_int_equal(cube_union_finish(u), 0);
    expect_clear("cube_union_finish", cube_union_error_code(u), cube_union_error(u));

    /* out of order, then a call that succeeds */
    assert_int_equal(cube_union_add(u, a, "third.cube"), -1);
    expect_failure("cube_union_add after cube_union_finish", cube_union_error_code(u),
                   cube_union_error(u), CUBE_ESTATE);
    assert_string_equal(cube_union_error(u), "cube_union_add after cube_union_finish");
    assert_int_equal(cube_union_finish(u), 0);
    expect_clear("cube_union_finish again", cube_union_error_code(u), cube_union_error(u));

    /* the const queries take a status */
    cube_status st;
    size_t metrics = 0, cnodes = 0, threads = 0;
    set_old_error(&st);
    assert_int_equal(cube_union_input_size(u, 1, &metrics, &cnodes, &threads, &st), 0);
    expect_clear("cube_union_input_size", st.code, st.message);
    assert_int_equal(metrics, cube_num_metrics(b));
    assert_int_equal(cnodes, cube_num_cnodes(b));
    assert_int_equal(threads, cube_num_threads(b));
    assert_int_equal(cube_union_input_size(u, 2, &metrics, &cnodes, &threads, &st), -1);
    expect_failure("cube_union_input_size of input 2 of 2", st.code, st.message, CUBE_EINVAL);
    assert_int_equal(cube_union_input_size(u, 2, &metrics, &cnodes, &threads, NULL), -1);
    /* the union's own error is not touched by a const query */
    expect_clear("the union after a const query", cube_union_error_code(u), cube_union_error(u));
    cube_union_free(u);

    u = cube_union_create(CUBE_MATCH_NAME, CUBE_SYSTEM_COLLAPSE);
    assert_int_equal(cube_union_finish(u), -1);
    expect_failure("cube_union_finish without inputs", cube_union_error_code(u),
                   cube_union_error(u), CUBE_ESTATE);
    assert_string_equal(cube_union_error(u), "no experiment to line up");
    assert_int_equal(cube_union_add(u, a, "first.cube"), 0);
    expect_clear("cube_union_add after a failure", cube_union_error_code(u), cube_union_error(u));
    cube_union_free(u);

    /* cube_combine and cube_compare report the conflict through a status */
    const char *paths[2] = {pa, pb};
    set_old_error(&st);
    st.code = CUBE_OK;
    assert_null(cube_combine(CUBE_OP_DIFF, paths, 2, CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE, &st));
    expect_failure("cube_combine of disagreeing system trees", st.code, st.message,
                   CUBE_EMISMATCH);
    expect_contains(st.message, pa);
    expect_contains(st.message, pb);
    size_t count = 0;
    assert_int_equal(cube_compare(pa, pb, CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE, NULL, NULL, NULL,
                                  &count, &st),
                     -1);
    expect_failure("cube_compare of disagreeing system trees", st.code, st.message,
                   CUBE_EMISMATCH);
    cube_free(a);
    cube_free(b);
}

/* ---------------------------------------------------------------------- */
/* cube_view                                                               */

static void test_view_errors(void **state)
{
    (void)state;
    char path[512];
    data_path(path, sizeof path, "cube/scalasca_trace.cube");
    cube_t *c = read_ok(path);
    const cube_metric *time = cube_find_metric(c, "time");
    assert_non_null(time);
    cube_status st;

    /* made through a status */
    set_old_error(&st);
    assert_null(cube_view_create(NULL, time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, 0, &st));
    expect_failure("cube_view_create without definitions", st.code, st.message, CUBE_EINVAL);
    assert_null(cube_view_create(c, time, (cube_metric_flavour)7, CUBE_CALL_EXCLUSIVE, 0, &st));
    expect_failure("cube_view_create with an unknown flavour", st.code, st.message, CUBE_EINVAL);
    assert_null(cube_view_create(c, time, CUBE_METRIC_INCLUSIVE, (cube_call_flavour)7, 0, NULL));
    cube_view *v =
        cube_view_create(c, time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, 0, &st);
    assert_non_null(v);
    expect_clear("cube_view_create", st.code, st.message);
    expect_clear("a new view", cube_view_error_code(v), cube_view_error(v));

    /* what a view needs finished */
    double *total = calloc(cube_num_threads(c), sizeof *total);
    assert_non_null(total);
    assert_int_equal(cube_view_total(v, total, &st), -1);
    expect_failure("cube_view_total before cube_view_finish", st.code, st.message, CUBE_ESTATE);
    assert_null(cube_flat_create(v, &st));
    expect_failure("cube_flat_create of an unfinished view", st.code, st.message, CUBE_ESTATE);

    /* a failing call on the view, then a successful one */
    const cube_cnode *root = cube_get_cnode(c, 0);
    assert_int_equal(cube_view_add_row(v, time, root, NULL), -1);
    expect_failure("cube_view_add_row without values", cube_view_error_code(v),
                   cube_view_error(v), CUBE_EINVAL);
    double *zeros = calloc(cube_num_threads(c), sizeof *zeros);
    assert_non_null(zeros);
    assert_int_equal(cube_view_add_row(v, time, root, zeros), 0);
    expect_clear("cube_view_add_row after a failure", cube_view_error_code(v),
                 cube_view_error(v));
    assert_int_equal(cube_view_add_stored(v), 0);
    assert_int_equal(cube_view_finish(v), 0);
    expect_clear("cube_view_finish", cube_view_error_code(v), cube_view_error(v));

    /* rows after the finish: out of order, every time */
    assert_int_equal(cube_view_add_row(v, time, root, zeros), -1);
    expect_failure("cube_view_add_row after cube_view_finish", cube_view_error_code(v),
                   cube_view_error(v), CUBE_ESTATE);
    assert_int_equal(cube_view_add_stored(v), -1);
    expect_failure("cube_view_add_stored after cube_view_finish", cube_view_error_code(v),
                   cube_view_error(v), CUBE_ESTATE);
    assert_int_equal(cube_view_finish(v), -1);
    expect_failure("cube_view_finish twice", cube_view_error_code(v), cube_view_error(v),
                   CUBE_ESTATE);

    /* a finished view answers; the status is set on success too */
    set_old_error(&st);
    assert_int_equal(cube_view_total(v, total, &st), 0);
    expect_clear("cube_view_total", st.code, st.message);
    assert_true(total[0] > 0.0);
    cube_flat *f = cube_flat_create(v, &st);
    assert_non_null(f);
    expect_clear("cube_flat_create", st.code, st.message);
    cube_flat_free(f);
    cube_view_free(v);

    /* a flat profile needs call-exclusive values */
    v = cube_view_compute(c, time, CUBE_METRIC_INCLUSIVE, CUBE_CALL_INCLUSIVE, 0, &st);
    assert_non_null(v);
    assert_null(cube_flat_create(v, &st));
    expect_failure("cube_flat_create of a call-inclusive view", st.code, st.message,
                   CUBE_EINVAL);
    cube_view_free(v);

    /* the other functions on a const experiment */
    size_t nm = cube_num_metrics(c);
    double *values = calloc(nm, sizeof *values);
    assert_non_null(values);
    assert_int_equal(cube_metric_tree_values(c, (cube_metric_flavour)7, values, &st), -1);
    expect_failure("cube_metric_tree_values with an unknown flavour", st.code, st.message,
                   CUBE_EINVAL);
    assert_int_equal(cube_metric_tree_values(c, CUBE_METRIC_EXCLUSIVE, values, &st), 0);
    expect_clear("cube_metric_tree_values", st.code, st.message);
    set_old_error(&st);
    assert_int_equal(cube_metric_totals(c, values, &st), 0);
    expect_clear("cube_metric_totals", st.code, st.message);
    assert_int_equal(cube_metric_totals(c, values, NULL), 0);
    double sum = 0.0;
    assert_int_equal(cube_system_sums(c, NULL, NULL, NULL, NULL, &sum, &st), -1);
    expect_failure("cube_system_sums without thread values", st.code, st.message, CUBE_EINVAL);
    assert_int_equal(cube_system_sums(c, total, NULL, NULL, NULL, &sum, &st), 0);
    expect_clear("cube_system_sums", st.code, st.message);
    assert_int_equal(cube_system_combine(c, (cube_combine_rule)9, total, NULL, NULL, NULL, &sum,
                                         &st),
                     -1);
    expect_failure("cube_system_combine with an unknown rule", st.code, st.message,
                   CUBE_EINVAL);
    free(values);
    free(zeros);
    free(total);
    cube_free(c);
}

/* ---------------------------------------------------------------------- */
/* cube_statfile                                                           */

static void test_statfile_errors(void **state)
{
    (void)state;
    char bad[512], good[512], missing[512];
    data_path(bad, sizeof bad, "statfile/reject-summary-partial.stat");
    data_path(good, sizeof good, "statfile/scalasca.stat");
    data_path(missing, sizeof missing, "statfile/no-such-file.stat");

    cube_statfile *s = cube_statfile_create();
    assert_non_null(s);
    expect_clear("a new statistics file", cube_statfile_error_code(s), cube_statfile_error(s));
    assert_int_equal(cube_statfile_read(s, bad), -1);
    expect_failure("reading a malformed statistics file", cube_statfile_error_code(s),
                   cube_statfile_error(s), CUBE_EFORMAT);
    char where[600];
    snprintf(where, sizeof where, "%s:2: ", bad);
    assert_true(strncmp(cube_statfile_error(s), where, strlen(where)) == 0);
    assert_int_equal(cube_statfile_num_patterns(s), 0);

    /* the next successful call on the handle clears it */
    cube_statfile_pattern p;
    memset(&p, 0, sizeof p);
    p.name = "mine";
    p.metric_id = -1;
    p.count = 3;
    assert_int_equal(cube_statfile_add_pattern(s, &p), 0);
    expect_clear("cube_statfile_add_pattern after a failure", cube_statfile_error_code(s),
                 cube_statfile_error(s));
    cube_statfile_free(s);

    /* a fresh handle reads the good file without an error */
    s = cube_statfile_create();
    assert_int_equal(cube_statfile_read(s, good), 0);
    expect_clear("reading a good statistics file", cube_statfile_error_code(s),
                 cube_statfile_error(s));

    /* a write the dialect cannot hold, then one it can */
    char *out = temp_path(".stat");
    assert_int_equal(cube_statfile_write(s, out, CUBE_STATFILE_DOCUMENTED), -1);
    expect_failure("writing patterns without metric ids as documented",
                   cube_statfile_error_code(s), cube_statfile_error(s), CUBE_EINVAL);
    expect_contains(cube_statfile_error(s), out);
    assert_int_equal(cube_statfile_write(s, out, CUBE_STATFILE_SCALASCA), 0);
    expect_clear("cube_statfile_write after a failure", cube_statfile_error_code(s),
                 cube_statfile_error(s));
    unlink(out);
    free(out);
    cube_statfile_free(s);

    s = cube_statfile_create();
    assert_int_equal(cube_statfile_read(s, missing), -1);
    expect_failure("reading a missing statistics file", cube_statfile_error_code(s),
                   cube_statfile_error(s), CUBE_EIO);
    expect_contains(cube_statfile_error(s), missing);
    cube_statfile_free(s);
}

/* ---------------------------------------------------------------------- */
/* cube_linktest                                                           */

static void test_linktest_errors(void **state)
{
    (void)state;
    char path[512], missing[512];
    data_path(path, sizeof path, "linktest/lt4_basic.sion");
    data_path(missing, sizeof missing, "linktest/no-such-file.sion");
    cube_status st;

    /* opened with a status */
    set_old_error(&st);
    cube_linktest *lt = cube_linktest_open(path, &st);
    assert_non_null(lt);
    expect_clear("cube_linktest_open", st.code, st.message);
    expect_clear("a new LinkTest handle", cube_linktest_error_code(lt), cube_linktest_error(lt));

    assert_null(cube_linktest_open(missing, &st));
    expect_failure("opening a missing LinkTest file", st.code, st.message, CUBE_EIO);
    expect_contains(st.message, missing);
    assert_null(cube_linktest_open(missing, NULL));

    /* a truncated file: the format is broken at a byte offset */
    size_t len;
    char *data = slurp(path, &len);
    char *cut = temp_file_with(data, len / 2);
    set_old_error(&st);
    st.code = CUBE_OK;
    assert_null(cube_linktest_open_with(cut, CUBE_LINKTEST_NO_MATRICES, &st));
    expect_failure("opening a truncated LinkTest file", st.code, st.message, CUBE_EFORMAT);
    expect_contains(st.message, cut);
    expect_contains(st.message, "offset");
    unlink(cut);
    free(cut);
    free(data);

    /* on the handle: a failure, then a success */
    size_t n = cube_linktest_num_ranks(lt);
    double *row = malloc(n * sizeof *row);
    assert_non_null(row);
    assert_int_equal(cube_linktest_read_row(lt, 99, 0, row), -1);
    expect_failure("cube_linktest_read_row of iteration 99", cube_linktest_error_code(lt),
                   cube_linktest_error(lt), CUBE_EINVAL);
    assert_int_equal(cube_linktest_read_row(lt, 0, 1, row), 0);
    expect_clear("cube_linktest_read_row after a failure", cube_linktest_error_code(lt),
                 cube_linktest_error(lt));
    assert_true(isnan(row[1]) && row[0] > 0.0);

    double edges[5];
    uint64_t counts[4];
    assert_int_equal(cube_linktest_histogram(lt, 0, edges, counts), -1);
    expect_failure("a histogram of 0 bins", cube_linktest_error_code(lt),
                   cube_linktest_error(lt), CUBE_EINVAL);
    assert_int_equal(cube_linktest_histogram(lt, 4, edges, counts), 0);
    expect_clear("cube_linktest_histogram after a failure", cube_linktest_error_code(lt),
                 cube_linktest_error(lt));

    const char *nowhere = MISSING_DIR "/lt.cube";
    assert_int_equal(cube_linktest_write_cube(lt, nowhere, 0), -1);
    expect_failure("cube_linktest_write_cube into a missing folder",
                   cube_linktest_error_code(lt), cube_linktest_error(lt), CUBE_EIO);
    expect_contains(cube_linktest_error(lt), nowhere);
    size_t count = 0;
    cube_linktest_link slow[3];
    assert_int_equal(cube_linktest_slowest(lt, 3, slow, &count), 0);
    assert_int_equal(count, 3);
    expect_clear("cube_linktest_slowest after a failure", cube_linktest_error_code(lt),
                 cube_linktest_error(lt));
    free(row);
    cube_linktest_free(lt);
}

/* ---------------------------------------------------------------------- */
/* functions on plain values                                               */

static void test_parse_double_status(void **state)
{
    (void)state;
    cube_status st;
    double d = 7.0;
    /* no status wanted */
    assert_int_equal(cube_parse_double("1.5", 3, &d, NULL), 0);
    assert_true(d == 1.5);
    assert_int_equal(cube_parse_double("abc", 3, &d, NULL), -1);
    assert_true(d == 1.5);
    /* with a status: set on success as on failure */
    set_old_error(&st);
    assert_int_equal(cube_parse_double("16.25", 5, &d, &st), 0);
    assert_true(d == 16.25);
    expect_clear("cube_parse_double", st.code, st.message);
    assert_int_equal(cube_parse_double("16,5", 4, &d, &st), -1);
    expect_failure("cube_parse_double of \"16,5\"", st.code, st.message, CUBE_EINVAL);
    assert_true(d == 16.25);
    assert_int_equal(cube_parse_double("1e999", 5, &d, &st), -1);
    expect_failure("cube_parse_double of \"1e999\"", st.code, st.message, CUBE_EINVAL);
    assert_int_equal(cube_parse_double("", 0, &d, &st), -1);
    expect_failure("cube_parse_double of \"\"", st.code, st.message, CUBE_EINVAL);
    assert_int_equal(cube_parse_double("0x1p-2", 6, &d, &st), 0);
    assert_true(d == 0.25);
    expect_clear("cube_parse_double after a failure", st.code, st.message);
}

static void test_value_mode_parse_status(void **state)
{
    (void)state;
    cube_status st;
    cube_value_mode mode = CUBE_MODE_ABSOLUTE;
    set_old_error(&st);
    assert_int_equal(cube_value_mode_parse("peer-distribution", &mode, &st), 0);
    assert_int_equal(mode, CUBE_MODE_PEER_DISTRIBUTION);
    expect_clear("cube_value_mode_parse", st.code, st.message);
    assert_int_equal(cube_value_mode_parse("peer-distributions", &mode, &st), -1);
    expect_failure("cube_value_mode_parse of an unknown name", st.code, st.message, CUBE_EINVAL);
    assert_int_equal(mode, CUBE_MODE_PEER_DISTRIBUTION);
    assert_int_equal(cube_value_mode_parse("nope", &mode, NULL), -1);
    /* every name reads back to its mode */
    for (int m = 0; m < CUBE_NUM_VALUE_MODES; m++) {
        set_old_error(&st);
        assert_int_equal(cube_value_mode_parse(cube_value_mode_name((cube_value_mode)m), &mode,
                                               &st),
                         0);
        assert_int_equal(mode, m);
        expect_clear(cube_value_mode_name((cube_value_mode)m), st.code, st.message);
    }
}

static void test_stats_status(void **state)
{
    (void)state;
    cube_status st;
    cube_stats s;
    const double with_nan[4] = {1.0, NAN, 3.0, 4.0};
    const double good[4] = {4.0, 1.0, 3.0, 2.0};
    const double sorted_nan[3] = {1.0, 2.0, NAN};

    set_old_error(&st);
    st.code = CUBE_OK;
    assert_int_equal(cube_stats_compute(with_nan, 4, &s, &st), -1);
    expect_failure("cube_stats_compute with a NaN", st.code, st.message, CUBE_EINVAL);
    assert_int_equal(cube_stats_compute(with_nan, 4, &s, NULL), -1);
    /* success sets the status, whatever it held */
    assert_int_equal(cube_stats_compute(good, 4, &s, &st), 0);
    expect_clear("cube_stats_compute after a failure", st.code, st.message);
    assert_int_equal(s.count, 4);
    assert_true(s.median == 2.5 && s.quartile25 == 1.75 && s.quartile75 == 3.25);
    assert_int_equal(cube_stats_compute(good, 4, &s, NULL), 0);

    assert_int_equal(cube_stats_of_sorted(sorted_nan, 3, &s, &st), -1);
    expect_failure("cube_stats_of_sorted with a NaN", st.code, st.message, CUBE_EINVAL);
    const double sorted[4] = {1.0, 2.0, 3.0, 4.0};
    assert_int_equal(cube_stats_of_sorted(sorted, 4, &s, &st), 0);
    expect_clear("cube_stats_of_sorted", st.code, st.message);

    /* n = 0 is no error */
    set_old_error(&st);
    assert_int_equal(cube_stats_compute(good, 0, &s, &st), 0);
    expect_clear("cube_stats_compute of nothing", st.code, st.message);
    assert_int_equal(s.count, 0);
    assert_true(isnan(s.mean));

    double lo, hi;
    assert_int_equal(cube_peer_range(good, 0, &lo, &hi, &st), -1);
    expect_failure("cube_peer_range of no values", st.code, st.message, CUBE_EINVAL);
    assert_int_equal(cube_peer_range(with_nan, 4, &lo, &hi, &st), -1);
    expect_failure("cube_peer_range with a NaN", st.code, st.message, CUBE_EINVAL);
    assert_int_equal(cube_peer_range(good, 4, &lo, &hi, &st), 0);
    expect_clear("cube_peer_range", st.code, st.message);
    assert_true(lo == 1.0 && hi == 4.0);
}

static void test_output_status(void **state)
{
    (void)state;
    cube_status st;
    const char *bad = MISSING_DIR "/out.txt";
    set_old_error(&st);
    st.code = CUBE_OK;
    assert_null(cube_output_open(bad, &st));
    expect_failure("cube_output_open in a missing folder", st.code, st.message, CUBE_EIO);
    expect_contains(st.message, bad);
    assert_null(cube_output_open(bad, NULL));

    char *path = temp_path(".txt");
    set_old_error(&st);
    cube_output *out = cube_output_open(path, &st);
    assert_non_null(out);
    expect_clear("cube_output_open", st.code, st.message);
    assert_true(fputs("text\n", cube_output_stream(out)) >= 0);
    set_old_error(&st);
    assert_int_equal(cube_output_close(out, 1, &st), 0);
    expect_clear("cube_output_close", st.code, st.message);
    char *text = slurp(path, NULL);
    assert_string_equal(text, "text\n");
    free(text);
    unlink(path);
    free(path);
}

/* ---------------------------------------------------------------------- */
/* the size-tagged options of cube_compare                                 */

static void test_compare_options_size(void **state)
{
    (void)state;
    char path[512];
    data_path(path, sizeof path, "reader/plain.cube");
    cube_compare_options o;
    memset(&o, 0xff, sizeof o);
    cube_compare_options_init(&o);
    /* the defaults */
    assert_int_equal(o.size, sizeof o);
    assert_true(o.rel_tol == 2 * DBL_EPSILON);
    assert_true(o.abs_tol == DBL_MIN);
    assert_null(o.metrics);
    assert_int_equal(o.max_reported, 10);
    assert_null(o.warn);
    assert_null(o.warn_user);

    cube_status st;
    size_t count = 99;
    set_old_error(&st);
    assert_int_equal(cube_compare(path, path, CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE, &o, NULL, NULL,
                                  &count, &st),
                     0);
    expect_clear("cube_compare with the default options", st.code, st.message);
    assert_int_equal(count, 0);

    /* a size that is no version's: not read at all */
    static const size_t too_small[] = {0, 1, sizeof(size_t), sizeof o - 1};
    for (size_t i = 0; i < sizeof too_small / sizeof too_small[0]; i++) {
        o.size = too_small[i];
        count = 99;
        assert_int_equal(cube_compare(path, path, CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE, &o, NULL,
                                      NULL, &count, &st),
                         -1);
        char what[64];
        snprintf(what, sizeof what, "cube_compare with options of size %zu", too_small[i]);
        expect_failure(what, st.code, st.message, CUBE_EINVAL);
    }
    o.size = sizeof o;
    assert_int_equal(cube_compare(path, path, CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE, &o, NULL, NULL,
                                  &count, &st),
                     0);
    expect_clear("cube_compare after a failure", st.code, st.message);
    /* NULL options: the defaults */
    assert_int_equal(cube_compare(path, path, CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE, NULL, NULL,
                                  NULL, &count, NULL),
                     0);
}

/* ---------------------------------------------------------------------- */
/* after cube_remove_temp_files (process-wide: this test runs last)        */

static void test_writes_canceled(void **state)
{
    (void)state;
    char path[512];
    data_path(path, sizeof path, "reader/plain.cube");
    cube_t *c = read_ok(path);
    char *out = temp_path(".cube");
    assert_true(cube_remove_temp_files() >= 0);
    assert_int_equal(cube_write_file(c, out, 0), -1);
    expect_failure("cube_write_file after cube_remove_temp_files", cube_error_code(c),
                   cube_error(c), CUBE_ECANCELED);
    cube_status st;
    set_old_error(&st);
    st.code = CUBE_OK;
    assert_null(cube_output_open(out, &st));
    expect_failure("cube_output_open after cube_remove_temp_files", st.code, st.message,
                   CUBE_ECANCELED);
    assert_int_equal(access(out, F_OK), -1);
    free(out);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_code_texts),
        cmocka_unit_test(test_cube_read_missing_file),
        cmocka_unit_test(test_cube_read_malformed_file),
        cmocka_unit_test(test_cube_writer_errors_are_cleared),
        cmocka_unit_test(test_cube_write_non_finite_then_finite),
        cmocka_unit_test(test_reader_error_is_final),
        cmocka_unit_test(test_union_errors),
        cmocka_unit_test(test_view_errors),
        cmocka_unit_test(test_statfile_errors),
        cmocka_unit_test(test_linktest_errors),
        cmocka_unit_test(test_parse_double_status),
        cmocka_unit_test(test_value_mode_parse_status),
        cmocka_unit_test(test_stats_status),
        cmocka_unit_test(test_output_status),
        cmocka_unit_test(test_compare_options_size),
        /* last: no write to a path works after it */
        cmocka_unit_test(test_writes_canceled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
