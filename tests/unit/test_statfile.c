/*
 * test_statfile.c - statistics files (cube-stat(5)): both dialects, every
 * rule of the Cube GUI appendix with a valid and an invalid file, the
 * checks of what the text implies (warnings), the join with an experiment,
 * statistics from an experiment, and parse -> write -> parse round trips.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include "cube_statfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static cube_statfile *stat_ok(const char *path)
{
    cube_statfile *s = cube_statfile_create();
    assert_non_null(s);
    if (cube_statfile_read(s, path) != 0)
        fail_msg("reading %s failed: %s", path, cube_statfile_error(s));
    assert_int_equal(cube_statfile_error_code(s), CUBE_OK);
    assert_string_equal(cube_statfile_error(s), "");
    return s;
}

static void assert_no_warnings(const cube_statfile *s, const char *path)
{
    if (cube_statfile_num_warnings(s) != 0)
        fail_msg("%s: unexpected warning: %s", path, cube_statfile_warning(s, 0));
}

static char *write_text(const char *text)
{
    char *p = temp_path(".stat");
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    return p;
}

typedef struct {
    const char *name;
    int64_t id;
    uint64_t count;
    unsigned has;
    double mean, median, minimum, maximum, sum, variance, q25, q75;
} expected_pattern;

static void check_pattern(const cube_statfile_pattern *p, const expected_pattern *e)
{
    assert_string_equal(p->name, e->name);
    assert_int_equal(p->metric_id, e->id);
    assert_int_equal(p->count, e->count);
    assert_int_equal(p->has, e->has);
    /* the numbers as the text shows them: parsed exactly, compared exactly */
    assert_true(p->mean == e->mean);
    assert_true(p->median == e->median);
    assert_true(p->minimum == e->minimum);
    assert_true(p->maximum == e->maximum);
    assert_true(p->sum == e->sum);
    if (e->has & CUBE_STATFILE_VARIANCE)
        assert_true(p->variance == e->variance);
    if (e->has & CUBE_STATFILE_QUARTILES) {
        assert_true(p->quartile25 == e->q25);
        assert_true(p->quartile75 == e->q75);
    }
}

static void check_instance(const cube_statfile_instance *i, int64_t cnode, double enter,
                           double exit, double duration, int64_t rank, long line)
{
    assert_int_equal(i->cnode_id, cnode);
    assert_true(i->enter == enter);
    assert_true(i->exit == exit);
    assert_true(i->duration == duration);
    assert_int_equal(i->rank, rank);
    assert_int_equal(i->line, line);
}

#define ALL (CUBE_STATFILE_SUMMARY | CUBE_STATFILE_VARIANCE | CUBE_STATFILE_QUARTILES)

static void test_seed_example(void **state)
{
    (void)state;
    const char *path = testdata("statfile/seed-example.stat");
    cube_statfile *s = stat_ok(path);
    assert_no_warnings(s, path);
    assert_int_equal(cube_statfile_get_dialect(s), CUBE_STATFILE_DOCUMENTED);
    assert_int_equal(cube_statfile_num_patterns(s), 4);
    const expected_pattern e[4] = {
        {"LateBroadcast", 6, 4, CUBE_STATFILE_SUMMARY | CUBE_STATFILE_VARIANCE, 0.010,
         0.000031, 0.000004, 0.042856, 0.042, 0.000459, 0, 0},
        {"WaitAtBarrier", 18, 20, ALL, 0.018, 0.006477, 0.000002, 0.065293, 0.369, 0.000698,
         0.000040, 0.047409},
        {"BarrierCompletion", 17, 20, ALL, 0.000, 0.000005, 0.000002, 0.000018, 0.000,
         0.000000, 0.000003, 0.000009},
        {"WaitAtIBarrier", 27, 144, ALL, 0.001, 0.000027, 0.000001, 0.028451, 0.212, 0.000028,
         0.000002, 0.000437},
    };
    const long lines[4] = {2, 5, 9, 13};
    for (size_t i = 0; i < 4; i++) {
        const cube_statfile_pattern *p = cube_statfile_get_pattern(s, i);
        check_pattern(p, &e[i]);
        assert_int_equal(p->line, lines[i]);
    }
    const cube_statfile_pattern *p = cube_statfile_get_pattern(s, 0);
    assert_int_equal(p->num_instances, 1);
    check_instance(&p->instances[0], 5, 0.245877, 0.256608, 0.042856, -1, 3);
    p = cube_statfile_get_pattern(s, 1);
    assert_int_equal(p->num_instances, 2);
    check_instance(&p->instances[0], 14, 0.192332, 0.192378, 0.000100, -1, 6);
    check_instance(&p->instances[1], 12, 0.326120, 0.335651, 0.065293, -1, 7);
    p = cube_statfile_get_pattern(s, 2);
    assert_int_equal(p->num_instances, 2);
    check_instance(&p->instances[0], 14, 0.192332, 0.192378, 0.000009, -1, 10);
    check_instance(&p->instances[1], 12, 0.159321, 0.165005, 0.000018, -1, 11);
    p = cube_statfile_get_pattern(s, 3);
    assert_int_equal(p->num_instances, 2);
    check_instance(&p->instances[0], 11, 0.297292, 0.297316, 0.000057, -1, 14);
    check_instance(&p->instances[1], 10, 0.322577, 0.332093, 0.028451, -1, 15);
    assert_null(cube_statfile_get_pattern(s, 4));
    cube_statfile_free(s);
}

static void test_scalasca_dialect(void **state)
{
    (void)state;
    const char *path = testdata("statfile/scalasca.stat");
    cube_statfile *s = stat_ok(path);
    assert_no_warnings(s, path);
    assert_int_equal(cube_statfile_get_dialect(s), CUBE_STATFILE_SCALASCA);
    assert_int_equal(cube_statfile_num_patterns(s), 4);
    const expected_pattern e = {"mpi_latesender", -1, 24, ALL, 0.0544308, 0.0031250,
                                0.0000001623, 0.7780763908, 1.3063398406, 0.0257880010,
                                0.0000312500, 0.0181250000};
    const cube_statfile_pattern *p = cube_statfile_get_pattern(s, 0);
    check_pattern(p, &e);
    assert_int_equal(p->num_instances, 3);
    /* "cnode" without and with the colon, "rank:" present */
    check_instance(&p->instances[0], 54, 5.6760874812, 6.4541638720, 0.7780763908, 0, 3);
    check_instance(&p->instances[1], 54, 5.6760874812, 5.9338762822, 0.2577888010, 2, 4);
    check_instance(&p->instances[2], 9999, 4.1, 4.2941101465, 0.1941101465, 3, 5);
    p = cube_statfile_get_pattern(s, 1);
    assert_int_equal(p->num_instances, 2);
    assert_int_equal(p->instances[1].rank, -1); /* no "rank:" */
    p = cube_statfile_get_pattern(s, 2);
    assert_string_equal(p->name, "mpi_barrier_completion");
    assert_int_equal(p->has, CUBE_STATFILE_SUMMARY);
    p = cube_statfile_get_pattern(s, 3);
    assert_string_equal(p->name, "mpi_no_such_pattern");
    assert_int_equal(p->count, 0);
    assert_int_equal(p->has, 0);
    assert_int_equal(p->num_instances, 0);
    cube_statfile_free(s);
}

/* One valid file per rule: each reads without a warning. */
static void test_valid_files(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        size_t patterns;
        unsigned has;
    } cases[] = {
        {"valid-count-only.stat", 1, 0},
        {"valid-summary.stat", 1, CUBE_STATFILE_SUMMARY},
        {"valid-variance.stat", 1, CUBE_STATFILE_SUMMARY | CUBE_STATFILE_VARIANCE},
        {"valid-quartiles.stat", 1, ALL},
        {"valid-number-forms.stat", 1, ALL},
        {"valid-whitespace.stat", 2, CUBE_STATFILE_SUMMARY},
        {"valid-header-only.stat", 0, 0},
        {"valid-rounding.stat", 2, CUBE_STATFILE_SUMMARY},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "statfile/%s", cases[i].file);
        const char *path = testdata(rel);
        cube_statfile *s = stat_ok(path);
        assert_no_warnings(s, path);
        assert_int_equal(cube_statfile_num_patterns(s), cases[i].patterns);
        if (cases[i].patterns)
            assert_int_equal(cube_statfile_get_pattern(s, 0)->has, cases[i].has);
        cube_statfile_free(s);
    }
}

static void test_number_forms(void **state)
{
    (void)state;
    cube_statfile *s = stat_ok(testdata("statfile/valid-number-forms.stat"));
    const cube_statfile_pattern *p = cube_statfile_get_pattern(s, 0);
    assert_true(p->mean == 0.25);
    assert_true(p->median == 0.2);
    assert_true(p->minimum == 0.1);
    assert_true(p->maximum == 0.5);
    assert_true(p->sum == 1.0);
    assert_true(p->variance == 0x1.eb851eb851eb8p-6);
    assert_true(p->quartile75 == 0.3);
    assert_true(p->instances[0].enter == 1.0);
    assert_true(p->instances[0].exit == 2.0);
    assert_true(p->instances[0].duration == 0.5);
    cube_statfile_free(s);

    /* tabs, several spaces, CRLF, a blank line of white space */
    s = stat_ok(testdata("statfile/valid-whitespace.stat"));
    p = cube_statfile_get_pattern(s, 0);
    assert_int_equal(p->num_instances, 1);
    assert_int_equal(p->instances[0].cnode_id, 5);
    assert_string_equal(cube_statfile_get_pattern(s, 1)->name, "Bar");
    cube_statfile_free(s);
}

/* One invalid file per rule: the exact message. */
static void test_reject_files(void **state)
{
    (void)state;
    static const struct {
        const char *file, *message;
    } cases[] = {
        {"reject-empty.stat",
         ":1: expected the header line (PatternName ...), found an empty file"},
        {"reject-summary-partial.stat",
         ":2: expected all of Mean Median Minimum Maximum Sum after Count or none (a Variance "
         "only after them), found 3 values"},
        {"reject-variance-alone.stat",
         ":2: expected all of Mean Median Minimum Maximum Sum after Count or none (a Variance "
         "only after them), found 1 value"},
        {"reject-quartile-one.stat",
         ":2: expected Quartil25 and Quartil75 both or neither, and only after Variance, found "
         "7 values after Count"},
        {"reject-quartiles-without-variance.stat",
         ":2: expected Quartil25 and Quartil75 both or neither, and only after Variance, found "
         "7 values after Count"},
        {"reject-too-many.stat",
         ":2: expected at most 8 values after Count (Mean Median Minimum Maximum Sum Variance "
         "Quartil25 Quartil75), found 9"},
        {"reject-missing-count.stat", ":2: expected Count after MetricID, found the end of the line"},
        {"reject-count-negative.stat",
         ":2: expected Count (a non-negative integer), found \"-4\""},
        {"reject-count-float.stat", ":2: expected Count (a non-negative integer), found \"4.0\""},
        {"reject-metric-id.stat", ":2: expected MetricID (a non-negative integer), found \"x1\""},
        {"reject-float.stat", ":2: expected Mean (a floating-point number), found \"0,25\""},
        {"reject-nan.stat", ":2: expected Median (a finite floating-point number), found \"nan\""},
        {"reject-cnode-id.stat",
         ":3: expected the cnode id (a non-negative integer), found \"-5\""},
        {"reject-rank.stat", ":3: expected the rank (a non-negative integer), found \"1.5\""},
        {"reject-enter.stat",
         ":3: expected the enter time (a floating-point number), found \"soon\""},
        {"reject-instance-label.stat", ":3: expected \"cnode:\" after \"-\", found \"node:\""},
        {"reject-instance-short.stat",
         ":3: expected \"duration:\" after the exit time, found the end of the line"},
        {"reject-instance-extra.stat",
         ":3: expected \"rank: N\" or the end of the line after the duration, found \"severe\""},
        {"reject-instance-before-pattern.stat",
         ":2: expected a pattern line before the first instance line, found an instance line"},
        {"reject-instance-after-blank.stat",
         ":4: expected a pattern line after the blank line, found an instance line (instance "
         "lines follow their pattern line without a blank line)"},
        {"reject-nul.stat", ":2: expected text, found a NUL byte"},
        {"reject-dialect-mismatch.stat",
         ":2: expected Quartil25 and Quartil75 both or neither, and only after Variance, found "
         "7 values after Count (the header has no MetricID column, so the file is read as the "
         "Scalasca dialect)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char rel[128], want[1024];
        snprintf(rel, sizeof rel, "statfile/%s", cases[i].file);
        const char *path = testdata(rel);
        cube_statfile *s = cube_statfile_create();
        assert_non_null(s);
        if (cube_statfile_read(s, path) == 0)
            fail_msg("%s read, but it must fail", path);
        snprintf(want, sizeof want, "%s%s", path, cases[i].message);
        assert_string_equal(cube_statfile_error(s), want);
        assert_int_equal(cube_statfile_error_code(s), CUBE_EFORMAT);
        assert_int_equal(cube_statfile_num_patterns(s), 0);
        cube_statfile_free(s);
    }
}

/* What the text implies: a warning naming the line, and the file reads. */
static void test_warning_files(void **state)
{
    (void)state;
    static const struct {
        const char *file, *message;
    } cases[] = {
        {"warn-order.stat",
         ":2: expected Minimum <= Quartil25 <= Median <= Quartil75 <= Maximum, found Quartil25 "
         "0.25 > Median 0.20"},
        {"warn-mean-range.stat",
         ":2: expected Minimum <= Mean <= Maximum, found Mean 0.60 > Maximum 0.50"},
        {"warn-variance.stat", ":2: expected Variance >= 0, found -0.03"},
        {"warn-sum.stat",
         ":2: expected Sum = Count x Mean within the rounding of the printed digits, found Sum "
         "1.5 but Count x Mean = 4 x 0.25 = 1"},
        {"warn-enter-exit.stat", ":3: expected enter <= exit, found enter 2.0 > exit 1.0"},
        {"warn-duration-range.stat",
         ":3: expected Minimum <= duration <= Maximum of pattern \"Foo\" (line 2), found "
         "duration 0.75 > Maximum 0.5"},
        {"warn-instance-count.stat",
         ":4: expected at most Count (1) instance lines for pattern \"Foo\" (line 2), found "
         "more"},
        {"warn-no-blank.stat",
         ":4: expected a blank line before the pattern line, found none after the instance "
         "line before it"},
        {"warn-duplicate.stat",
         ":4: expected each pattern once, found \"Foo\" again (first on line 2)"},
        {"warn-header.stat",
         ":1: expected a header line starting with \"PatternName\", found \"LateBroadcast\" "
         "(the first line is ignored)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char rel[128], want[1024];
        snprintf(rel, sizeof rel, "statfile/%s", cases[i].file);
        const char *path = testdata(rel);
        cube_statfile *s = stat_ok(path);
        snprintf(want, sizeof want, "%s%s", path, cases[i].message);
        if (cube_statfile_num_warnings(s) != 1)
            fail_msg("%s: %zu warnings, expected 1", path, cube_statfile_num_warnings(s));
        assert_string_equal(cube_statfile_warning(s, 0), want);
        assert_null(cube_statfile_warning(s, 1));
        cube_statfile_free(s);
    }
    /* the header decides the dialect even when it is not a proper header */
    cube_statfile *s = stat_ok(testdata("statfile/warn-header.stat"));
    assert_int_equal(cube_statfile_get_dialect(s), CUBE_STATFILE_DOCUMENTED);
    cube_statfile_free(s);
}

static void test_join_with_experiment(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cube/scalasca_trace.cube"));
    cube_statfile *s = stat_ok(testdata("statfile/scalasca.stat"));
    const char *known[3] = {"mpi_latesender", "mpi_barrier_wait", "mpi_barrier_completion"};
    for (size_t i = 0; i < 3; i++) {
        const cube_metric *m = cube_statfile_metric(cube_statfile_get_pattern(s, i), c);
        assert_non_null(m);
        assert_string_equal(cube_metric_uniq_name(m), known[i]);
    }
    assert_null(cube_statfile_metric(cube_statfile_get_pattern(s, 3), c));
    const cube_statfile_pattern *p = cube_statfile_get_pattern(s, 0);
    const cube_cnode *cn = cube_statfile_cnode(&p->instances[0], c);
    assert_non_null(cn);
    assert_int_equal(cube_cnode_id(cn), 54);
    assert_null(cube_statfile_cnode(&p->instances[2], c)); /* 9999 */
    cn = cube_statfile_cnode(&cube_statfile_get_pattern(s, 1)->instances[0], c);
    assert_non_null(cn);
    assert_int_equal(cube_cnode_id(cn), 93);
    cube_statfile_free(s);

    /* the documented dialect joins by metric id label */
    s = stat_ok(testdata("statfile/seed-example.stat"));
    for (size_t i = 0; i < cube_statfile_num_patterns(s); i++) {
        p = cube_statfile_get_pattern(s, i);
        const cube_metric *m = cube_statfile_metric(p, c);
        assert_non_null(m);
        assert_int_equal(cube_metric_id(m), p->metric_id);
        for (size_t k = 0; k < p->num_instances; k++)
            assert_int_equal(cube_cnode_id(cube_statfile_cnode(&p->instances[k], c)),
                             p->instances[k].cnode_id);
    }
    cube_statfile_pattern unknown = *cube_statfile_get_pattern(s, 0);
    unknown.metric_id = 100000;
    assert_null(cube_statfile_metric(&unknown, c));
    cube_statfile_free(s);
    cube_free(c);
}

static void assert_same_patterns(const cube_statfile *a, const cube_statfile *b, int same_ids)
{
    assert_int_equal(cube_statfile_num_patterns(a), cube_statfile_num_patterns(b));
    for (size_t i = 0; i < cube_statfile_num_patterns(a); i++) {
        const cube_statfile_pattern *p = cube_statfile_get_pattern(a, i);
        const cube_statfile_pattern *q = cube_statfile_get_pattern(b, i);
        assert_string_equal(p->name, q->name);
        if (same_ids)
            assert_int_equal(p->metric_id, q->metric_id);
        assert_int_equal(p->count, q->count);
        assert_int_equal(p->has, q->has);
        if (p->has & CUBE_STATFILE_SUMMARY) {
            assert_true(p->mean == q->mean && p->median == q->median);
            assert_true(p->minimum == q->minimum && p->maximum == q->maximum);
            assert_true(p->sum == q->sum);
        }
        if (p->has & CUBE_STATFILE_VARIANCE)
            assert_true(p->variance == q->variance);
        if (p->has & CUBE_STATFILE_QUARTILES)
            assert_true(p->quartile25 == q->quartile25 && p->quartile75 == q->quartile75);
        assert_int_equal(p->num_instances, q->num_instances);
        for (size_t k = 0; k < p->num_instances; k++) {
            const cube_statfile_instance *x = &p->instances[k], *y = &q->instances[k];
            assert_int_equal(x->cnode_id, y->cnode_id);
            assert_true(x->enter == y->enter && x->exit == y->exit);
            assert_true(x->duration == y->duration);
            assert_int_equal(x->rank, y->rank);
        }
    }
}

static void round_trip(const char *input, cube_statfile_dialect dialect, const char *suffix)
{
    cube_statfile *a = stat_ok(input);
    char *out = temp_path(suffix);
    if (cube_statfile_write(a, out, dialect) != 0)
        fail_msg("writing %s failed: %s", out, cube_statfile_error(a));
    assert_int_equal(cube_statfile_error_code(a), CUBE_OK);
    cube_statfile *b = stat_ok(out);
    assert_no_warnings(b, out);
    assert_int_equal(cube_statfile_get_dialect(b), dialect);
    assert_same_patterns(a, b, dialect == CUBE_STATFILE_DOCUMENTED);
    /* writing what was read gives the same bytes again */
    char *out2 = temp_path(suffix);
    assert_int_equal(cube_statfile_write(b, out2, dialect), 0);
    if (strstr(suffix, ".gz") == NULL) {
        size_t n1, n2;
        char *t1 = slurp(out, &n1), *t2 = slurp(out2, &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(t1, t2, n1);
        free(t1);
        free(t2);
    }
    unlink(out);
    unlink(out2);
    free(out);
    free(out2);
    cube_statfile_free(a);
    cube_statfile_free(b);
}

static void test_round_trip(void **state)
{
    (void)state;
    round_trip(testdata("statfile/seed-example.stat"), CUBE_STATFILE_DOCUMENTED, ".stat");
    round_trip(testdata("statfile/seed-example.stat"), CUBE_STATFILE_SCALASCA, ".stat");
    round_trip(testdata("statfile/seed-example.stat"), CUBE_STATFILE_DOCUMENTED, ".stat.gz");
    round_trip(testdata("statfile/scalasca.stat"), CUBE_STATFILE_SCALASCA, ".stat");
    round_trip(testdata("statfile/valid-number-forms.stat"), CUBE_STATFILE_DOCUMENTED, ".stat");

    /* the written text of the Cube GUI guide's example, documented dialect */
    cube_statfile *s = stat_ok(testdata("statfile/seed-example.stat"));
    char *out = temp_path(".stat");
    assert_int_equal(cube_statfile_write(s, out, CUBE_STATFILE_DOCUMENTED), 0);
    char *text = slurp(out, NULL);
    assert_non_null(strstr(text, "PatternName MetricID Count Mean Median Minimum Maximum Sum "
                                 "Variance Quartil25 Quartil75\nLateBroadcast 6 4 0.01 3.1e-05 "
                                 "4e-06 0.042856 0.042 0.000459\n- cnode: 5 enter: 0.245877 "
                                 "exit: 0.256608 duration: 0.042856\n\nWaitAtBarrier 18 20 "));
    free(text);
    /* a Scalasca-dialect pattern has no metric id: not writable as documented */
    cube_statfile *sc = stat_ok(testdata("statfile/scalasca.stat"));
    assert_int_equal(cube_statfile_write(sc, out, CUBE_STATFILE_DOCUMENTED), -1);
    char want[1024];
    snprintf(want, sizeof want,
             "%s: cannot write pattern \"mpi_latesender\" in the documented dialect: it has no "
             "metric id", out);
    assert_string_equal(cube_statfile_error(sc), want);
    assert_int_equal(cube_statfile_error_code(sc), CUBE_EINVAL);
    /* ... and the existing output is left as it was */
    cube_statfile *again = stat_ok(out);
    assert_same_patterns(s, again, 1);
    cube_statfile_free(again);
    cube_statfile_free(sc);
    unlink(out);
    free(out);
    cube_statfile_free(s);
}

/* A raw '&' in a name is kept as it is (the CUBE reader's input filter
 * would make it "&amp;"), and gzip input is recognised. */
static void test_names_kept(void **state)
{
    (void)state;
    char *p = write_text("PatternName Count\nload&store 3\n");
    cube_statfile *s = stat_ok(p);
    assert_string_equal(cube_statfile_get_pattern(s, 0)->name, "load&store");
    char *gz = temp_path(".stat.gz");
    assert_int_equal(cube_statfile_write(s, gz, CUBE_STATFILE_SCALASCA), 0);
    size_t n;
    char *raw = slurp(gz, &n);
    assert_true(n > 2 && (unsigned char)raw[0] == 0x1f && (unsigned char)raw[1] == 0x8b);
    free(raw);
    cube_statfile *t = stat_ok(gz);
    assert_string_equal(cube_statfile_get_pattern(t, 0)->name, "load&store");
    cube_statfile_free(t);
    unlink(gz);
    free(gz);
    unlink(p);
    free(p);
    cube_statfile_free(s);
}

static void test_read_errors(void **state)
{
    (void)state;
    cube_statfile *s = cube_statfile_create();
    assert_int_equal(cube_statfile_read(s, "/nonexistent/x.stat"), -1);
    assert_string_equal(cube_statfile_error(s),
                        "/nonexistent/x.stat: cannot open: No such file or directory");
    assert_int_equal(cube_statfile_error_code(s), CUBE_EIO);
    cube_statfile_free(s);

    s = stat_ok(testdata("statfile/seed-example.stat"));
    assert_int_equal(cube_statfile_read(s, testdata("statfile/seed-example.stat")), -1);
    /* a handle is read into once: a second read is out of order */
    char want[1024];
    snprintf(want, sizeof want, "%s: cannot read into a handle that already holds patterns",
             testdata("statfile/seed-example.stat"));
    assert_string_equal(cube_statfile_error(s), want);
    assert_int_equal(cube_statfile_error_code(s), CUBE_ESTATE);
    assert_int_equal(cube_statfile_num_patterns(s), 4);
    cube_statfile_free(s);

    /* a truncated gzip stream */
    cube_statfile *w = stat_ok(testdata("statfile/seed-example.stat"));
    char *gz = temp_path(".stat.gz");
    assert_int_equal(cube_statfile_write(w, gz, CUBE_STATFILE_DOCUMENTED), 0);
    size_t n;
    char *raw = slurp(gz, &n);
    FILE *fp = fopen(gz, "wb");
    assert_non_null(fp);
    fwrite(raw, 1, n - 12, fp);
    fclose(fp);
    free(raw);
    s = cube_statfile_create();
    assert_int_equal(cube_statfile_read(s, gz), -1);
    snprintf(want, sizeof want, "%s: truncated gzip stream", gz);
    assert_string_equal(cube_statfile_error(s), want);
    assert_int_equal(cube_statfile_error_code(s), CUBE_EFORMAT);
    cube_statfile_free(s);
    cube_statfile_free(w);
    unlink(gz);
    free(gz);
}

static void test_add_pattern(void **state)
{
    (void)state;
    cube_statfile *s = cube_statfile_create();
    cube_statfile_instance inst[2] = {{7, 1.0, 2.0, 0.5, 3, 0}, {8, 1.5, 2.5, 0.25, -1, 0}};
    cube_statfile_pattern p;
    memset(&p, 0, sizeof p);
    p.name = "mine";
    p.metric_id = 4;
    p.count = 2;
    p.has = CUBE_STATFILE_SUMMARY | CUBE_STATFILE_VARIANCE;
    p.mean = 0.375;
    p.median = 0.375;
    p.minimum = 0.25;
    p.maximum = 0.5;
    p.sum = 0.75;
    p.variance = 0.03125;
    p.instances = inst;
    p.num_instances = 2;
    assert_int_equal(cube_statfile_add_pattern(s, &p), 0);
    inst[0].cnode_id = 99; /* copied: the handle keeps its own */
    const cube_statfile_pattern *q = cube_statfile_get_pattern(s, 0);
    assert_int_equal(q->instances[0].cnode_id, 7);
    assert_ptr_not_equal(q->name, p.name);

    /* quartiles without the variance break the appendix's rule */
    p.has = CUBE_STATFILE_SUMMARY | CUBE_STATFILE_QUARTILES;
    assert_int_equal(cube_statfile_add_pattern(s, &p), -1);
    assert_int_equal(cube_statfile_error_code(s), CUBE_EINVAL);
    assert_non_null(strstr(cube_statfile_error(s), "pattern \"mine\""));
    p.has = CUBE_STATFILE_VARIANCE;
    assert_int_equal(cube_statfile_add_pattern(s, &p), -1);
    assert_int_equal(cube_statfile_error_code(s), CUBE_EINVAL);
    assert_int_equal(cube_statfile_num_patterns(s), 1);

    /* a name that cannot be written */
    p.has = 0;
    p.name = "two words";
    assert_int_equal(cube_statfile_add_pattern(s, &p), 0);
    /* the success clears the error of the call before */
    assert_int_equal(cube_statfile_error_code(s), CUBE_OK);
    assert_string_equal(cube_statfile_error(s), "");
    char *out = temp_path(".stat");
    assert_int_equal(cube_statfile_write(s, out, CUBE_STATFILE_SCALASCA), -1);
    assert_int_equal(cube_statfile_error_code(s), CUBE_EINVAL);
    assert_non_null(strstr(cube_statfile_error(s), "cannot write pattern 2: its name \"two "
                                                   "words\" is empty, holds white space or "
                                                   "starts with '-'"));
    struct stat st;
    assert_int_equal(stat(out, &st), -1); /* nothing written */
    free(out);
    cube_statfile_free(s);
}

static void test_from_cube(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cube/scalasca_trace.cube"));
    cube_metric *time = cube_find_metric(c, "time");
    assert_non_null(time);
    cube_statfile *s = cube_statfile_create();
    assert_int_equal(cube_statfile_add_from_cube(s, c, time, 5), 0);

    /* the population: every stored value of the metric */
    size_t threads = cube_num_threads(c), n = 0;
    double *values = malloc(cube_num_rows(c) * threads * sizeof *values);
    double largest = -INFINITY;
    for (size_t r = 0; r < cube_num_rows(c); r++) {
        cube_metric *m;
        cube_cnode *cn;
        const double *row = cube_row_at(c, r, &m, &cn);
        if (m != time)
            continue;
        for (size_t t = 0; t < threads; t++) {
            values[n++] = row[t];
            if (row[t] > largest)
                largest = row[t];
        }
    }
    cube_stats st;
    cube_status status;
    assert_int_equal(cube_stats_compute(values, n, &st, &status), 0);
    assert_int_equal(status.code, CUBE_OK);
    free(values);
    const cube_statfile_pattern *p = cube_statfile_get_pattern(s, 0);
    assert_string_equal(p->name, "time");
    assert_int_equal(p->metric_id, cube_metric_id(time));
    assert_int_equal(p->count, n);
    assert_int_equal(p->has, ALL);
    assert_true(p->mean == st.mean && p->sum == st.sum && p->variance == st.variance);
    assert_true(p->median == st.median && p->minimum == st.minimum && p->maximum == st.maximum);
    assert_true(p->quartile25 == st.quartile25 && p->quartile75 == st.quartile75);
    assert_int_equal(p->num_instances, 5);
    assert_true(p->instances[0].duration == largest);
    for (size_t i = 0; i + 1 < 5; i++)
        assert_true(p->instances[i].duration >= p->instances[i + 1].duration);
    for (size_t i = 0; i < 5; i++) {
        assert_non_null(cube_statfile_cnode(&p->instances[i], c));
        assert_true(p->instances[i].rank >= 0);
        assert_true(p->instances[i].enter == 0 && p->instances[i].exit == 0);
    }
    assert_ptr_equal(cube_statfile_metric(p, c), time);

    /* a metric without rows: count 0, no statistics */
    cube_metric *late = cube_find_metric(c, "mpi_latereceiver");
    assert_non_null(late);
    assert_int_equal(cube_statfile_add_from_cube(s, c, late, 5), 0);
    p = cube_statfile_get_pattern(s, 1);
    assert_int_equal(p->count, 0);
    assert_int_equal(p->has, 0);
    assert_int_equal(p->num_instances, 0);

    /* both dialects round-trip exactly, without warnings */
    for (int d = 0; d < 2; d++) {
        char *out = temp_path(".stat");
        assert_int_equal(cube_statfile_write(s, out, d ? CUBE_STATFILE_SCALASCA
                                                       : CUBE_STATFILE_DOCUMENTED), 0);
        cube_statfile *b = stat_ok(out);
        assert_no_warnings(b, out);
        assert_same_patterns(s, b, d == 0);
        cube_statfile_free(b);
        unlink(out);
        free(out);
    }
    cube_statfile_free(s);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_example),
        cmocka_unit_test(test_scalasca_dialect),
        cmocka_unit_test(test_valid_files),
        cmocka_unit_test(test_number_forms),
        cmocka_unit_test(test_reject_files),
        cmocka_unit_test(test_warning_files),
        cmocka_unit_test(test_join_with_experiment),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_names_kept),
        cmocka_unit_test(test_read_errors),
        cmocka_unit_test(test_add_pattern),
        cmocka_unit_test(test_from_cube),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
