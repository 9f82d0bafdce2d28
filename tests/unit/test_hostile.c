/*
 * test_hostile.c - hostile inputs through the library: external
 * entities never loaded, entity bombs refused at once, a call tree 100 000
 * deep read, written, combined and streamed (no recursion over the input's
 * depth), attributes of megabytes, ids near INT64_MAX, a gzip bomb streamed
 * within a memory bound, huge counts refused before allocating, outputs
 * that cannot be written.  Big inputs are made here, in /tmp.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "test_support.h"

#include <dirent.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define MARK "HOSTILE-MARKER-7f3a9c"

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static char *plain_with(const char *doctype, const char *from, const char *to)
{
    size_t len;
    char *plain = slurp(testdata("reader/plain.cube"), &len);
    char *body = strchr(plain, '\n') + 1;
    size_t n = len + strlen(doctype) + (to ? strlen(to) : 0) + 64;
    char *out = malloc(n);
    char *at = from ? strstr(body, from) : NULL;
    if (at)
        snprintf(out, n, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n%s%.*s%s%s", doctype,
                 (int)(at - body), body, to, at + strlen(from));
    else
        snprintf(out, n, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n%s%s", doctype, body);
    free(plain);
    return out;
}

/* ---- external entities -------------------------------------------------- */

static int external_loads;

static xmlParserInputPtr counting_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
    (void)url, (void)id, (void)ctxt;
    external_loads++;
    return NULL;
}

static void test_external_entities_never_loaded(void **state)
{
    (void)state;
    char abs[4096], url[4200], doc[8400];
    assert_non_null(realpath(testdata("hostile/marker.txt"), abs));
    snprintf(url, sizeof url, "file://%s", abs);
    const char *const forms[] = {
        "<!DOCTYPE cube [\n<!ENTITY secret SYSTEM \"%s\">\n]>\n",
        "<!DOCTYPE cube [\n<!ENTITY %% p SYSTEM \"%s\">\n%%p;\n]>\n",
        "<!DOCTYPE cube SYSTEM \"%s\">\n",
        "<!DOCTYPE cube [\n<!ENTITY secret SYSTEM \"file:///etc/passwd\">\n]>\n%.0s",
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        snprintf(doc, sizeof doc, forms[i], url);
        char *xml = plain_with(doc, "<name>main</name>", "<name>&secret;</name>");
        xmlExternalEntityLoader saved = xmlGetExternalEntityLoader();
        xmlSetExternalEntityLoader(counting_loader);
        external_loads = 0;
        char *err = read_string_error(xml);
        xmlSetExternalEntityLoader(saved);
        assert_int_equal(external_loads, 0);
        assert_non_null(strstr(err, ":2: a DOCTYPE is not allowed in a CUBE file"));
        assert_null(strstr(err, MARK));
        assert_null(strstr(err, "root:"));
        free(err);
        /* the streaming reader refuses it the same way */
        char *p = temp_file_with(xml, strlen(xml));
        cube_reader *r = cube_reader_open(p);
        if (r) {
            const cube_metric *m;
            const cube_cnode *cn;
            const double *v;
            while (cube_reader_next_row(r, &m, &cn, &v) > 0)
                ;
            assert_int_not_equal(cube_reader_error_code(r), CUBE_OK);
            assert_non_null(strstr(cube_reader_error(r), "DOCTYPE is not allowed"));
            const cube_t *defs = cube_reader_definitions(r);
            if (defs)
                for (size_t k = 0; k < cube_num_regions(defs); k++)
                    assert_null(strstr(cube_region_name(cube_get_region(defs, k)), MARK));
            cube_reader_close(r);
        }
        unlink(p);
        free(p);
        free(xml);
    }
}

static void test_quadratic_entity_bomb_refused_quickly(void **state)
{
    (void)state;
    double start = seconds_now();
    char *err = read_error(testdata("hostile/bomb-quadratic.cube"));
    double took = seconds_now() - start;
    assert_non_null(strstr(err, ":2: a DOCTYPE is not allowed"));
    free(err);
    assert_true(took < 0.5);
}

/* ---- a call tree 100 000 deep ------------------------------------------- */

enum { DEPTH = 100000 };

static off_t file_size(const char *p)
{
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    return st.st_size;
}

static void test_deep_tree_write_read_combine(void **state)
{
    (void)state;
    /* a writer gone quadratic fails at 1 GiB instead of filling the disk */
    struct rlimit fsize = {1L << 30, 1L << 30};
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &fsize), 0);
    cube_t *c = deep_call_chain(DEPTH);
    char *p = temp_path(".cube");
    assert_int_equal(cube_write_file(c, p, 0), 0);
    /* not quadratic in the depth (one indentation step per level made
     * this 20 GB) */
    assert_true(file_size(p) < 64L << 20);
    cube_t *back = read_ok(p);
    assert_int_equal(cube_num_cnodes(back), DEPTH);
    assert_same_model(c, back);
    char *q = temp_path(".cube.gz");
    assert_int_equal(cube_write_file(back, q, 0), 0);
    cube_t *back2 = read_ok(q);
    assert_same_model(c, back2);
    cube_free(back2);
    cube_free(back);

    /* streamed */
    cube_reader *r = cube_reader_open(p);
    assert_non_null(r);
    const cube_metric *m;
    const cube_cnode *cn;
    const double *v;
    size_t rows = 0;
    int rc;
    while ((rc = cube_reader_next_row(r, &m, &cn, &v)) > 0)
        rows++;
    assert_int_equal(rc, 0);
    assert_int_equal(rows, DEPTH);
    cube_reader_close(r);

    /* the algebra: diff of the file with itself, merge, mean */
    const char *paths[2] = {p, q};
    cube_status st;
    for (int op = 0; op < 3; op++) {
        cube_operation ops[3] = {CUBE_OP_DIFF, CUBE_OP_MERGE, CUBE_OP_MEAN};
        cube_t *res = cube_combine(ops[op], paths, 2, CUBE_MATCH_FULL, CUBE_SYSTEM_AGREE, &st);
        if (!res)
            fail_msg("cube_combine: %s", st.message);
        assert_int_equal(st.code, CUBE_OK);
        assert_int_equal(cube_num_cnodes(res), DEPTH);
        cube_metric *rm = cube_find_metric(res, "time");
        cube_cnode *leaf = cube_get_cnode(res, DEPTH - 1);
        double want = ops[op] == CUBE_OP_DIFF ? 0 : 1;
        assert_true(cube_get_sev(res, rm, leaf, cube_get_thread(res, 0)) == want);
        char *o = temp_path(".cube");
        assert_int_equal(cube_write_file(res, o, 0), 0);
        assert_true(file_size(o) < 64L << 20);
        unlink(o);
        free(o);
        cube_free(res);
    }
    unlink(p);
    unlink(q);
    free(p);
    free(q);
    cube_free(c);
}

/* ---- attributes of megabytes -------------------------------------------- */

static void test_megabyte_attributes_round_trip(void **state)
{
    (void)state;
    size_t kn = 3u << 20, vn = 3u << 20;
    char *key = malloc(kn + 1), *val = malloc(vn + 1);
    for (size_t i = 0; i < kn; i++)
        key[i] = (char)('a' + i % 26);
    key[kn] = '\0';
    for (size_t i = 0; i < vn; i++)
        val[i] = "<&>\"' x"[i % 7];
    val[vn] = '\0';
    cube_t *c = cube_create();
    cube_def_attr(c, key, val);
    cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", val, NULL);
    cube_def_region(c, key, -1, -1, "", "", "");
    char *p = temp_path(".cube");
    assert_int_equal(cube_write_file(c, p, 0), 0);
    cube_t *back = read_ok(p);
    assert_string_equal(cube_get_attr(back, key), val);
    assert_string_equal(cube_metric_descr(cube_get_metric(back, 0)), val);
    assert_string_equal(cube_region_name(cube_get_region(back, 0)), key);
    assert_same_model(c, back);
    /* written again: the same bytes */
    char *q = temp_path(".cube");
    assert_int_equal(cube_write_file(back, q, 0), 0);
    size_t la, lb;
    char *a = slurp(p, &la), *b = slurp(q, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
    unlink(p);
    unlink(q);
    free(p);
    free(q);
    cube_free(back);
    cube_free(c);
    free(key);
    free(val);
}

static void test_gigabyte_attribute_refused(void **state)
{
    (void)state;
    /* an attribute value of 256 MiB: refused within a second or two, not
     * rescanned for hours by the push parser */
    char *p = temp_path(".cube");
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    fputs("<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n<attr key=\"k\" value=\"", fp);
    static char buf[1 << 16];
    memset(buf, 'a', sizeof buf);
    for (int i = 0; i < 4096; i++)
        fwrite(buf, 1, sizeof buf, fp);
    fputs("\"/></cube>\n", fp);
    fclose(fp);
    double start = seconds_now();
    char *err = read_error(p);
    assert_true(seconds_now() - start < 10.0);
    assert_non_null(strstr(err, ":3: a tag, comment or CDATA section longer than 16 MiB"));
    free(err);
    unlink(p);
    free(p);
}

/* A metric and no threads (as the megabyte test above writes): under UBSan
 * the reader passed NULL to memcpy when sorting zero threads. */
static void test_no_threads(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    char *p = temp_path(".cube");
    assert_int_equal(cube_write_file(c, p, 0), 0);
    cube_t *back = read_ok(p);
    assert_int_equal(cube_num_threads(back), 0);
    assert_same_model(c, back);
    cube_free(back);
    cube_free(c);
    unlink(p);
    free(p);
}

/* ---- ids near INT64_MAX ------------------------------------------------- */

static void test_ids_near_int64_max(void **state)
{
    (void)state;
    char *xml = plain_with("", "<cnode id=\"1\"", "<cnode id=\"9223372036854775807\"");
    /* every row of call path 1 */
    size_t n = strlen(xml) + 4096;
    char *doc = malloc(n), *o = doc;
    const char *from = "cnodeId=\"1\"", *to = "cnodeId=\"9223372036854775807\"";
    for (const char *s = xml, *hit; ; s = hit + strlen(from)) {
        hit = strstr(s, from);
        if (!hit) {
            strcpy(o, s);
            break;
        }
        memcpy(o, s, (size_t)(hit - s));
        o += hit - s;
        strcpy(o, to);
        o += strlen(to);
    }
    cube_t *c = read_string_ok(doc);
    int found = 0;
    for (size_t i = 0; i < cube_num_cnodes(c); i++)
        if (cube_cnode_id(cube_get_cnode(c, i)) == INT64_MAX)
            found = 1;
    assert_true(found);
    cube_free(c);
    free(doc);
    free(xml);

    const char *const over[] = {"9223372036854775808", "18446744073709551615",
                                "18446744073709551616", "99999999999999999999999999999"};
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        char to[64];
        snprintf(to, sizeof to, "<cnode id=\"%s\"", over[i]);
        xml = plain_with("", "<cnode id=\"1\"", to);
        char *err = read_string_error(xml);
        assert_non_null(strstr(err, "must be a non-negative integer"));
        assert_non_null(strstr(err, over[i]));
        free(err);
        free(xml);
    }
}

/* ---- counts that would drive an allocation ------------------------------ */

static void test_huge_counts_refused(void **state)
{
    (void)state;
    static const char *const cases[][3] = {
        {"ndims=\"1\"", "ndims=\"9223372036854775807\"", "must be 1 to 1024"},
        {"ndims=\"1\"", "ndims=\"100000000\"", "must be 1 to 1024"},
        {"size=\"2\"", "size=\"9223372036854775807\"", "must be a positive integer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *xml = plain_with("", cases[i][0], cases[i][1]);
        long before = peak_rss_kb();
        char *err = read_string_error(xml);
        assert_true(peak_rss_kb() - before < 64 * 1024);
        if (!strstr(err, cases[i][2]))
            fail_msg("%s: %s", cases[i][1], err);
        free(err);
        free(xml);
    }
    /* a row of a million values for two threads */
    size_t len;
    char *plain = slurp(testdata("reader/plain.cube"), &len);
    char *at = strstr(plain, "2.5\n3\n");
    assert_non_null(at);
    size_t n = len + 2000010;
    char *xml = malloc(n);
    size_t k = (size_t)(at - plain) + 6;
    memcpy(xml, plain, k);
    for (int i = 0; i < 1000000; i++)
        memcpy(xml + k + 2 * (size_t)i, "1\n", 2);
    strcpy(xml + k + 2000000, plain + (at - plain) + 6);
    char *err = read_string_error(xml);
    assert_non_null(strstr(err, ":"));
    free(err);
    free(xml);
    free(plain);
}

/* ---- gzip bomb ---------------------------------------------------------- */

static void test_gzip_bomb_streamed_in_bounded_memory(void **state)
{
    (void)state;
    /* a CUBE header, then 1 GiB of spaces, gzip -1 */
    char *p = temp_path(".cube.gz");
    gzFile gz = gzopen(p, "wb1");
    assert_non_null(gz);
    gzputs(gz, "<?xml version=\"1.0\"?>\n<cube version=\"3.0\">\n");
    static char buf[1 << 20];
    memset(buf, ' ', sizeof buf);
    for (int i = 0; i < 1024; i++)
        assert_int_equal(gzwrite(gz, buf, sizeof buf), (int)sizeof buf);
    gzputs(gz, "\n");
    assert_int_equal(gzclose(gz), Z_OK);
    assert_true(file_size(p) < 16L << 20);
    long before = peak_rss_kb();
    char *err = read_error(p);
    long grew = peak_rss_kb() - before;
    /* streamed to the end, which is not </cube>: the file is truncated */
    if (!strstr(err, "unexpected end of file"))
        fail_msg("%s", err);
    assert_non_null(strstr(err, p));
    free(err);
    assert_true(grew < 64 * 1024);
    unlink(p);
    free(p);
}

/* ---- outputs ------------------------------------------------------------ */

static int temp_files_in(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strstr(e->d_name, ".tmp"))
            n++;
    closedir(d);
    return n;
}

static void test_outputs_that_cannot_be_written(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("reader/plain.cube"));
    assert_int_equal(cube_write_file(c, "/dev/full", 0), -1);
    assert_int_equal(cube_error_code(c), CUBE_EIO);
    assert_non_null(strstr(cube_error(c), "/dev/full"));
    assert_int_equal(cube_write_file(c, "/nonexistent-dir-libcube/x.cube", 0), -1);
    assert_int_equal(cube_error_code(c), CUBE_EIO);
    assert_non_null(strstr(cube_error(c), "/nonexistent-dir-libcube/x.cube"));
    /* a directory as the output: error, directory untouched */
    char *d = temp_path("");
    assert_int_equal(mkdir(d, 0755), 0);
    assert_int_equal(cube_write_file(c, d, 0), -1);
    assert_int_equal(cube_error_code(c), CUBE_EIO);
    struct stat st;
    assert_int_equal(stat(d, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    const char *slash = strrchr(d, '/');
    assert_int_equal(temp_files_in("/tmp", slash + 1), 0);
    rmdir(d);
    free(d);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_external_entities_never_loaded),
        cmocka_unit_test(test_quadratic_entity_bomb_refused_quickly),
        cmocka_unit_test(test_deep_tree_write_read_combine),
        cmocka_unit_test(test_megabyte_attributes_round_trip),
        cmocka_unit_test(test_gigabyte_attribute_refused),
        cmocka_unit_test(test_no_threads),
        cmocka_unit_test(test_ids_near_int64_max),
        cmocka_unit_test(test_huge_counts_refused),
        cmocka_unit_test(test_gzip_bomb_streamed_in_bounded_memory),
        cmocka_unit_test(test_outputs_that_cannot_be_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
