/*
 * test_roundtrip.c - every real experiment made by the original tools reads,
 * writes (plain and gzip) and reads back to the same model, every value
 * bit-identical; writing the same model twice gives the same bytes; and the
 * streaming reader hands out exactly the rows the whole-file reader stores.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *write_file(cube_t *c, const char *suffix, unsigned flags)
{
    char *path = temp_path(suffix);
    if (cube_write_file(c, path, flags) != 0)
        fail_msg("writing %s failed: %s", path, cube_error(c));
    return path;
}

static void round_trip(const char *rel)
{
    cube_t *original = read_ok(testdata(rel));
    char *first = write_file(original, ".cube", 0);
    cube_t *back = read_ok(first);
    assert_same_model(original, back);

    /* a file we wrote comes back byte for byte */
    char *second = write_file(back, ".cube", 0);
    size_t n1, n2;
    char *a = slurp(first, &n1), *b = slurp(second, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);

    /* gzip output: compressed on disk, the same model when read */
    char *zipped = write_file(original, ".cube.gz", 0);
    size_t nz;
    char *z = slurp(zipped, &nz);
    assert_true(nz > 2 && (unsigned char)z[0] == 0x1f && (unsigned char)z[1] == 0x8b);
    cube_t *unzipped = read_ok(zipped);
    assert_same_model(original, unzipped);

    free(a), free(b), free(z);
    unlink(first), unlink(second), unlink(zipped);
    free(first), free(second), free(zipped);
    cube_free(original), cube_free(back), cube_free(unzipped);
}

static void test_round_trip_real_files(void **state)
{
    (void)state;
    for (const char *const *f = real_cube_files; *f; f++)
        round_trip(*f);
}

static void test_gzip_flag_without_suffix(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cube/tau2cube_template1.cube"));
    char *path = write_file(c, ".cube", CUBE_WRITE_GZIP);
    size_t n;
    char *data = slurp(path, &n);
    assert_true((unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b);
    cube_t *back = read_ok(path);
    assert_same_model(c, back);
    free(data);
    unlink(path);
    free(path);
    cube_free(c), cube_free(back);
}

/* The streaming reader's rows, collected into the definitions, must give
 * exactly the model the whole-file reader builds. */
static void stream_equals_read(const char *rel)
{
    cube_t *whole = read_ok(testdata(rel));
    cube_reader *r = cube_reader_open(testdata(rel));
    assert_non_null(r);
    if (!cube_reader_definitions(r))
        fail_msg("%s: %s", rel, cube_reader_error(r));
    cube_t *defs = cube_reader_take_definitions(r);
    assert_non_null(defs);
    const cube_metric *m;
    const cube_cnode *n;
    const double *values;
    int rc;
    size_t rows = 0;
    while ((rc = cube_reader_next_row(r, &m, &n, &values)) == 1) {
        rows++;
        if (cube_set_row(defs, m, n, values) != 0)
            fail_msg("cube_set_row: %s", cube_error(defs));
    }
    if (rc != 0)
        fail_msg("%s: %s", rel, cube_reader_error(r));
    assert_true(rows >= cube_num_rows(whole));
    cube_reader_close(r);
    assert_same_model(whole, defs);
    cube_free(defs);
    cube_free(whole);
}

static void test_streaming_reader_real_files(void **state)
{
    (void)state;
    for (const char *const *f = real_cube_files; *f; f++)
        stream_equals_read(*f);
}

/* A reader without the call tree (CUBE_READ_NO_CALL_TREE) must hand out
 * exactly the rows of the full reader, in the same order, with each cnode
 * as the index the full reader gives it; it builds no cnode at all. */
static void stream_without_tree_equals_full(const char *path)
{
    cube_reader *full = cube_reader_open(path);
    cube_reader *bare = cube_reader_open_with(path, CUBE_READ_NO_CALL_TREE);
    assert_non_null(full);
    assert_non_null(bare);
    const cube_t *full_defs = cube_reader_definitions(full);
    const cube_t *bare_defs = cube_reader_definitions(bare);
    if (!full_defs || !bare_defs)
        fail_msg("%s: %s / %s", path, cube_reader_error(full), cube_reader_error(bare));
    assert_true(cube_num_cnodes(full_defs) > 0);
    assert_int_equal(cube_num_cnodes(bare_defs), 0);
    assert_int_equal(cube_num_metrics(bare_defs), cube_num_metrics(full_defs));
    size_t nthreads = cube_num_threads(full_defs);
    assert_int_equal(cube_num_threads(bare_defs), nthreads);
    const cube_metric *m;
    const cube_cnode *n;
    const double *values, *bare_values;
    size_t metric, cnode, rows = 0;
    int rc;
    while ((rc = cube_reader_next_row(full, &m, &n, &values)) == 1) {
        assert_int_equal(cube_reader_next_row_index(bare, &metric, &cnode, &bare_values), 1);
        assert_int_equal(metric, cube_metric_index(m));
        assert_int_equal(cnode, cube_cnode_index(n));
        assert_int_equal(cube_reader_row_may_repeat(bare), cube_reader_row_may_repeat(full));
        assert_memory_equal(bare_values, values, nthreads * sizeof *values);
        rows++;
    }
    assert_int_equal(rc, 0);
    assert_true(rows > 0);
    assert_int_equal(cube_reader_next_row_index(bare, &metric, &cnode, &bare_values), 0);
    cube_reader_close(full);
    cube_reader_close(bare);
}

static void test_stream_without_call_tree(void **state)
{
    (void)state;
    for (const char *const *f = real_cube_files; *f; f++)
        stream_without_tree_equals_full(testdata(*f));
    /* ids that are not 0, 1, 2, ...: looked up through the id map */
    stream_without_tree_equals_full(testdata("reader/tolerate-id-gaps.cube"));
    stream_without_tree_equals_full(testdata("reader/tolerate-id-case.cube"));
    /* a cnode repeated in a matrix and a metric's second matrix */
    stream_without_tree_equals_full(testdata("reader/tolerate-repeated-matrix.cube"));
    stream_without_tree_equals_full(testdata("reader/tolerate-thread-order.cube"));
}

static void test_stream_without_call_tree_refuses_cnode_rows(void **state)
{
    (void)state;
    cube_reader *r = cube_reader_open_with(testdata("reader/plain.cube"), CUBE_READ_NO_CALL_TREE);
    assert_non_null(cube_reader_definitions(r));
    const cube_metric *m;
    const cube_cnode *n;
    const double *v;
    assert_int_equal(cube_reader_next_row(r, &m, &n, &v), -1);
    assert_int_not_equal(cube_reader_error_code(r), CUBE_OK);
    assert_non_null(strstr(cube_reader_error(r), "cube_reader_next_row_index"));
    cube_reader_close(r);
}

/* The checks on the call tree stay: the same code and message either way. */
static void test_stream_without_call_tree_rejects_alike(void **state)
{
    (void)state;
    const char *files[] = {"reader/reject-duplicate-cnode-id.cube",
                           "reader/reject-row-unknown-cnode.cube",
                           "reader/reject-undefined-callee.cube", NULL};
    for (const char *const *f = files; *f; f++) {
        char *expected = read_error(testdata(*f));
        cube_t *c = cube_create();
        assert_non_null(c);
        assert_int_equal(cube_read(c, testdata(*f)), -1);
        assert_int_equal(cube_error_code(c), CUBE_EFORMAT);
        cube_reader *r = cube_reader_open_with(testdata(*f), CUBE_READ_NO_CALL_TREE);
        assert_non_null(r);
        size_t metric, cnode;
        const double *v;
        int rc = -1; /* definitions that fail count as the failure */
        if (cube_reader_definitions(r))
            while ((rc = cube_reader_next_row_index(r, &metric, &cnode, &v)) == 1)
                ;
        assert_int_equal(rc, -1);
        assert_int_equal(cube_reader_error_code(r), cube_error_code(c));
        assert_string_equal(cube_reader_error(r), expected);
        cube_reader_close(r);
        cube_free(c);
        free(expected);
    }
}

static void test_reader_select_metrics(void **state)
{
    (void)state;
    /* a reader told to want one metric hands out all of that metric's rows,
     * exactly as stored, and skips (does not even parse) most others */
    const char *path = testdata("cube/scalasca-bgpBT_experiment1.cube");
    cube_t *whole = read_ok(path);
    cube_reader *r = cube_reader_open(path);
    assert_non_null(r);
    const cube_t *defs = cube_reader_definitions(r);
    assert_non_null(defs);
    const cube_metric *wanted_metric = cube_find_metric(defs, "mpi_latesender");
    assert_non_null(wanted_metric);
    unsigned char *wanted = calloc(cube_num_metrics(defs), 1);
    wanted[cube_metric_index(wanted_metric)] = 1;
    assert_int_equal(cube_reader_select_metrics(r, wanted), 0);
    free(wanted);
    size_t wanted_rows = 0, other_rows = 0, stored_other_rows = 0;
    const cube_metric *m;
    const cube_cnode *n;
    const double *values;
    while (cube_reader_next_row(r, &m, &n, &values) == 1) {
        if (m != wanted_metric) {
            other_rows++;
            continue;
        }
        wanted_rows++;
        const double *stored = cube_get_row(whole, cube_get_metric(whole, cube_metric_index(m)),
                                            cube_get_cnode(whole, cube_cnode_index(n)));
        assert_non_null(stored);
        assert_memory_equal(stored, values, cube_num_threads(defs) * sizeof(double));
    }
    size_t stored_wanted_rows = 0;
    for (size_t i = 0; i < cube_num_rows(whole); i++) {
        cube_metric *sm;
        cube_row_at(whole, i, &sm, NULL);
        if (strcmp(cube_metric_uniq_name(sm), "mpi_latesender") == 0)
            stored_wanted_rows++;
        else
            stored_other_rows++;
    }
    assert_true(wanted_rows > 0);
    assert_int_equal(wanted_rows, stored_wanted_rows);
    assert_true(other_rows < stored_other_rows / 2); /* most were skipped */
    cube_reader_close(r);
    cube_free(whole);
}

static void test_stream_from_fd(void **state)
{
    (void)state;
    int fd = open(testdata("cube/scorep-1.1_profile.cube"), O_RDONLY);
    assert_true(fd >= 0);
    cube_t *c = cube_create();
    assert_int_equal(cube_read_fd(c, fd, "profile"), 0);
    close(fd);
    cube_t *whole = read_ok(testdata("cube/scorep-1.1_profile.cube"));
    assert_same_model(whole, c);
    cube_free(c), cube_free(whole);
}

static void test_reader_open_error(void **state)
{
    (void)state;
    cube_reader *r = cube_reader_open("testdata/no-such-file.cube");
    assert_non_null(r);
    assert_null(cube_reader_definitions(r));
    assert_int_equal(cube_reader_error_code(r), CUBE_EIO);
    assert_string_equal(cube_reader_error(r),
                        "testdata/no-such-file.cube: cannot open: No such file or directory");
    const cube_metric *m;
    const cube_cnode *n;
    const double *v;
    assert_int_equal(cube_reader_next_row(r, &m, &n, &v), -1);
    cube_reader_close(r);
}

static void test_failed_write_keeps_existing_file(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cube/tau2cube_template1.cube"));
    /* a directory that does not exist: nothing may be created */
    assert_int_equal(cube_write_file(c, "/nonexistent-dir/out.cube", 0), -1);
    assert_int_equal(cube_error_code(c), CUBE_EIO);
    assert_non_null(strstr(cube_error(c), "/nonexistent-dir/out.cube: cannot create the output"));
    /* an existing output is replaced only by a complete new one; the
     * success clears the error of the failed write */
    char *path = temp_file_with("old content\n", 12);
    assert_int_equal(cube_write_file(c, path, 0), 0);
    assert_int_equal(cube_error_code(c), CUBE_OK);
    assert_string_equal(cube_error(c), "");
    cube_t *back = read_ok(path);
    assert_same_model(c, back);
    unlink(path);
    free(path);
    cube_free(back), cube_free(c);
}

/* A new output gets 0666 less the umask, as open(2) would give it, and
 * the process's umask is left as it was; a replaced file keeps its mode. */
static void test_output_mode_follows_umask(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cube/tau2cube_template1.cube"));
    static const mode_t masks[] = {027, 0, 077, 022};
    for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
        mode_t saved = umask(masks[i]);
        char *path = temp_path(i % 2 ? ".cube.gz" : ".cube");
        int rc = cube_write_file(c, path, 0);
        mode_t after = umask(saved);
        assert_int_equal(rc, 0);
        assert_int_equal(after, masks[i]);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0666 & ~masks[i]);
        unlink(path);
        free(path);
    }
    /* replacing: the existing file's mode, whatever the umask */
    char *path = temp_file_with("old content\n", 12);
    assert_int_equal(chmod(path, 0604), 0);
    mode_t saved = umask(077);
    int rc = cube_write_file(c, path, 0);
    umask(saved);
    assert_int_equal(rc, 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0604);
    unlink(path);
    free(path);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_real_files),
        cmocka_unit_test(test_gzip_flag_without_suffix),
        cmocka_unit_test(test_streaming_reader_real_files),
        cmocka_unit_test(test_stream_without_call_tree),
        cmocka_unit_test(test_stream_without_call_tree_refuses_cnode_rows),
        cmocka_unit_test(test_stream_without_call_tree_rejects_alike),
        cmocka_unit_test(test_reader_select_metrics),
        cmocka_unit_test(test_stream_from_fd),
        cmocka_unit_test(test_reader_open_error),
        cmocka_unit_test(test_failed_write_keeps_existing_file),
        cmocka_unit_test(test_output_mode_follows_umask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
