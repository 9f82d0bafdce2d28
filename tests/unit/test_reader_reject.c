/*
 * test_reader_reject.c - every input the reader must refuse, one small file
 * under testdata/reader/ each, and the exact message it must refuse it with
 * ("PATH:LINE: what was expected, what was found") and its error code
 * (CUBE_EFORMAT for a file that is not a well-formed CUBE 3 file,
 * CUBE_EUNSUPPORTED for a CUBE file of a version libcube does not read).
 */
#include "test_support.h"

#include <fcntl.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* cube_read of `path` must fail with `code` and exactly the message
 * `want`. */
static void expect_read_fails(const char *path, cube_code code, const char *want)
{
    cube_t *c = cube_create();
    assert_non_null(c);
    assert_int_equal(cube_read(c, path), -1);
    if (cube_error_code(c) != code)
        fail_msg("%s: code %d (%s), expected %d (%s): %s", path, (int)cube_error_code(c),
                 cube_code_text(cube_error_code(c)), (int)code, cube_code_text(code),
                 cube_error(c));
    assert_string_equal(cube_error(c), want);
    cube_free(c);
}

/* Read testdata/reader/<file>, which must fail with `code` and exactly
 * "testdata/reader/<file>:<line>: <msg>". */
static void expect_error(const char *file, long line, cube_code code, const char *msg)
{
    char rel[256], path[512], want[2048];
    snprintf(rel, sizeof rel, "reader/%s", file);
    snprintf(path, sizeof path, "%s", testdata(rel));
    snprintf(want, sizeof want, "%s:%ld: %s", path, line, msg);
    expect_read_fails(path, code, want);
}

/* ---- not a CUBE document ------------------------------------------------ */

static void test_root_is_not_cube(void **state)
{
    (void)state;
    expect_error("reject-root-foo.cube", 3, CUBE_EFORMAT,
                 "not a CUBE file: expected the root element <cube>, found <foo>");
}

static void test_plain_text_file(void **state)
{
    (void)state;
    expect_error("reject-plain-text.cube", 1, CUBE_EFORMAT,
                 "not a CUBE file: expected an XML document with root <cube>, "
                 "found text \"This is not a CUBE file,\"");
}

static void test_empty_file(void **state)
{
    (void)state;
    expect_error("reject-empty.cube", 1, CUBE_EFORMAT,
                 "not a CUBE file: expected an XML document with root <cube>, "
                 "found an empty file");
}

/* libxml2 would read them, but the raw-'&' repair works on bytes and
 * corrupted texts with an '&' (each of these files has one): refused at
 * once, with or without a byte order mark, as not a CUBE file (CUBE files
 * are UTF-8). */
static void test_utf16_and_utf32(void **state)
{
    (void)state;
    static const char *const files[] = {"reject-utf16-bom.cube", "reject-utf16be.cube",
                                        "reject-utf32le.cube", "reject-utf32be.cube"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        expect_error(files[i], 1, CUBE_EFORMAT,
                     "not a CUBE file: UTF-16/UTF-32 input is not supported "
                     "(CUBE files are UTF-8)");
}

static void test_version_4(void **state)
{
    (void)state;
    expect_error("reject-version-4.cube", 3, CUBE_EUNSUPPORTED,
                 "unsupported CUBE version \"4.0\": expected 3.0 in an XML file "
                 "(CUBE 4 is a .cubex archive; CUBE 2 files are not read)");
}

static void test_version_2(void **state)
{
    (void)state;
    expect_error("reject-version-2.cube", 3, CUBE_EUNSUPPORTED,
                 "unsupported CUBE version \"2.0\": expected 3.0 in an XML file "
                 "(CUBE 4 is a .cubex archive; CUBE 2 files are not read)");
}

static void test_mismatched_tags(void **state)
{
    (void)state;
    /* libxml2's description of the mismatch, behind our prefix */
    expect_error("reject-mismatched-tags.cube", 16, CUBE_EFORMAT,
                 "not well-formed XML: Opening and ending tag mismatch: name line 16 and nam");
}

static void test_invalid_utf8_one_line(void **state)
{
    (void)state;
    /* libxml2 puts the bytes on a second line of its message: one line */
    expect_error("reject-invalid-utf8.cube", 43, CUBE_EFORMAT,
                 "not well-formed XML: Input is not proper UTF-8, indicate encoding ! "
                 "Bytes: 0xFF 0x53 0x65 0x6E");
}

/* ---- references to what is not defined ---------------------------------- */

static void test_undefined_callee(void **state)
{
    (void)state;
    expect_error("reject-undefined-callee.cube", 20, CUBE_EFORMAT,
                 "cnode 0 calls region 1, which is not defined "
                 "(regions must come before call-tree nodes)");
}

static void test_row_for_unknown_cnode(void **state)
{
    (void)state;
    expect_error("reject-row-unknown-cnode.cube", 49, CUBE_EFORMAT,
                 "<row cnodeId=\"3\"> refers to a call-tree node that is not defined");
}

static void test_matrix_for_unknown_metric(void **state)
{
    (void)state;
    expect_error("reject-matrix-unknown-metric.cube", 48, CUBE_EFORMAT,
                 "<matrix metricId=\"5\"> refers to a metric that is not defined");
}

/* ---- severity values ----------------------------------------------------- */

static void test_row_too_long(void **state)
{
    (void)state;
    /* the line of the first value too many, not of <row> */
    expect_error("reject-row-too-long.cube", 52, CUBE_EFORMAT,
                 "row for cnode 0 has more values than the 2 threads, expected </row>");
}

static void test_nan(void **state)
{
    (void)state;
    expect_error("reject-nan.cube", 50, CUBE_EFORMAT,
                 "severity values must be finite (no NaN or infinity) in row for cnode 0: "
                 "found \"nan\"");
}

static void test_inf(void **state)
{
    (void)state;
    expect_error("reject-inf.cube", 50, CUBE_EFORMAT,
                 "severity values must be finite (no NaN or infinity) in row for cnode 0: "
                 "found \"inf\"");
}

static void test_minus_inf(void **state)
{
    (void)state;
    expect_error("reject-minus-inf.cube", 51, CUBE_EFORMAT,
                 "severity values must be finite (no NaN or infinity) in row for cnode 0: "
                 "found \"-inf\"");
}

static void test_decimal_comma(void **state)
{
    (void)state;
    expect_error("reject-decimal-comma.cube", 50, CUBE_EFORMAT,
                 "expected a number ('.' as decimal point) in row for cnode 0: found \"1,5\"");
}

/* ---- ids ----------------------------------------------------------------- */

/* A duplicate is reported at the line of the element that repeats the id,
 * even for entities only registered when they close. */
static void test_duplicate_metric_id(void **state)
{
    (void)state;
    expect_error("reject-duplicate-metric-id.cube", 13, CUBE_EFORMAT,
                 "duplicate metric id 0: ids of one kind must be unique");
}

static void test_duplicate_region_id(void **state)
{
    (void)state;
    expect_error("reject-duplicate-region-id.cube", 20, CUBE_EFORMAT,
                 "duplicate region id 0: ids of one kind must be unique");
}

static void test_duplicate_cnode_id(void **state)
{
    (void)state;
    expect_error("reject-duplicate-cnode-id.cube", 21, CUBE_EFORMAT,
                 "duplicate cnode id 0: ids of one kind must be unique");
}

static void test_duplicate_thread_id(void **state)
{
    (void)state;
    expect_error("reject-duplicate-thread-id.cube", 39, CUBE_EFORMAT,
                 "duplicate thread id 0: ids of one kind must be unique");
}

static void test_id_with_junk(void **state)
{
    (void)state;
    expect_error("reject-id-junk.cube", 5, CUBE_EFORMAT,
                 "<metric id=...> must be a non-negative integer, found \"1a\"");
}

static void test_negative_id(void **state)
{
    (void)state;
    expect_error("reject-id-negative.cube", 20, CUBE_EFORMAT,
                 "<cnode id=...> must be a non-negative integer, found \"-1\"");
}

/* ---- topologies ---------------------------------------------------------- */

static void test_coord_outside_dimension(void **state)
{
    (void)state;
    expect_error("reject-coord-outside.cube", 50, CUBE_EFORMAT,
                 "coordinate 2 of dimension 0 is outside 0..1");
}

static void test_cart_with_missing_dim(void **state)
{
    (void)state;
    expect_error("reject-cart-missing-dim.cube", 49, CUBE_EFORMAT,
                 "<cart> declares ndims=2 but has 1 <dim> elements before <coord>");
}

/* ---- element order -------------------------------------------------------- */

static void test_definitions_after_severity(void **state)
{
    (void)state;
    expect_error("reject-system-after-severity.cube", 54, CUBE_EFORMAT,
                 "expected </cube> after </severity>, found <system> (the definitions must "
                 "come before the severity data, and there is only one <severity>)");
}

static void test_second_severity(void **state)
{
    (void)state;
    expect_error("reject-severity-twice.cube", 54, CUBE_EFORMAT,
                 "expected </cube> after </severity>, found <severity> (the definitions must "
                 "come before the severity data, and there is only one <severity>)");
}

static void test_metric_text_after_child_metric(void **state)
{
    (void)state;
    /* a <val>VOID</val> after the child metric was dropped silently */
    expect_error("reject-metric-text-after-child.cube", 26, CUBE_EFORMAT,
                 "expected <metric> or </metric>, found <val> (the text children of <metric> "
                 "must come before its <metric> children)");
}

/* ---- truncated and corrupt input ----------------------------------------- */

static void test_truncated_in_row(void **state)
{
    (void)state;
    expect_error("reject-truncated-row.cube", 50, CUBE_EFORMAT,
                 "unexpected end of file: expected </row> (the file is truncated)");
}

static void test_truncated_in_definitions(void **state)
{
    (void)state;
    /* cut inside the start tag of the second <process> */
    expect_error("reject-truncated-definitions.cube", 36, CUBE_EFORMAT,
                 "unexpected end of file: expected </node> (the file is truncated)");
}

static void test_truncated_in_unknown_element(void **state)
{
    (void)state;
    /* cut inside <detail> inside <extension>, both skipped: named as in the
     * file, not as "</unknown>" */
    expect_error("reject-truncated-unknown.cube", 38, CUBE_EFORMAT,
                 "unexpected end of file: expected the end of the unknown element <detail> "
                 "(the file is truncated)");
}

static void test_truncated_in_text_element(void **state)
{
    (void)state;
    /* cut inside a metric's <disp_name>: named as in the file, not "</text>" */
    expect_error("reject-truncated-text.cube", 19, CUBE_EFORMAT,
                 "unexpected end of file: expected </disp_name> (the file is truncated)");
}

static void test_corrupt_gzip(void **state)
{
    (void)state;
    /* bytes flipped in the middle: the CRC check at the end catches it, and
     * nothing of the garbled text reaches the parser */
    expect_error("reject-gzip-corrupt.cube.gz", 1, CUBE_EFORMAT,
                 "corrupt gzip stream: incorrect data check");
}

static void test_truncated_gzip(void **state)
{
    (void)state;
    /* the first half of a valid .gz: the line is where the text ran out */
    expect_error("reject-gzip-truncated.cube.gz", 33, CUBE_EFORMAT,
                 "truncated gzip stream: unexpected end of file");
}

/* ---- DOCTYPE: no DTD and no entity is ever loaded ------------------------ */

static int external_loads;

static xmlParserInputPtr counting_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
    (void)url, (void)id, (void)ctxt;
    external_loads++;
    return NULL;
}

static void test_doctype_external_entity(void **state)
{
    (void)state;
    /* Any attempt to resolve the entity would go through libxml2's entity
     * loader: replace it for the duration of the read and count. */
    xmlExternalEntityLoader saved = xmlGetExternalEntityLoader();
    xmlSetExternalEntityLoader(counting_loader);
    external_loads = 0;
    expect_error("reject-doctype-external-entity.cube", 2, CUBE_EFORMAT,
                 "a DOCTYPE is not allowed in a CUBE file (no DTD or entity is ever loaded)");
    xmlSetExternalEntityLoader(saved);
    assert_int_equal(external_loads, 0);
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void test_billion_laughs(void **state)
{
    (void)state;
    double start = seconds_now();
    expect_error("reject-billion-laughs.cube", 2, CUBE_EFORMAT,
                 "a DOCTYPE is not allowed in a CUBE file (no DTD or entity is ever loaded)");
    /* refused before a single entity is declared: nothing is expanded (the
     * bound is generous for a sanitizer build on a busy machine) */
    assert_true(seconds_now() - start < 1.0);
}

/* ---- the name given for a stream is the name in messages ---------------- */

static void test_error_from_fd_uses_given_name(void **state)
{
    (void)state;
    int fd = open(testdata("reader/reject-row-too-long.cube"), O_RDONLY);
    assert_true(fd >= 0);
    cube_t *c = cube_create();
    assert_int_equal(cube_read_fd(c, fd, "<pipe>"), -1);
    assert_int_equal(cube_error_code(c), CUBE_EFORMAT);
    assert_string_equal(cube_error(c),
                        "<pipe>:52: row for cnode 0 has more values than the 2 threads, "
                        "expected </row>");
    cube_free(c);
    close(fd);
}

/* The streaming reader refuses the same row with the same message (when
 * the file is read in one piece, already while opening: then the
 * definitions are not handed out either). */
static void test_streaming_reader_rejects_too(void **state)
{
    (void)state;
    const char *path = testdata("reader/reject-nan.cube");
    cube_reader *r = cube_reader_open(path);
    assert_non_null(r);
    const cube_metric *m;
    const cube_cnode *n;
    const double *v;
    assert_int_equal(cube_reader_next_row(r, &m, &n, &v), -1);
    char want[512];
    snprintf(want, sizeof want,
             "%s:50: severity values must be finite (no NaN or infinity) in row for cnode 0: "
             "found \"nan\"",
             path);
    assert_string_equal(cube_reader_error(r), want);
    assert_int_equal(cube_reader_error_code(r), CUBE_EFORMAT);
    /* an error of a reader is final: the next call fails with it again */
    assert_int_equal(cube_reader_next_row(r, &m, &n, &v), -1);
    assert_int_equal(cube_reader_error_code(r), CUBE_EFORMAT);
    assert_string_equal(cube_reader_error(r), want);
    cube_reader_close(r);
}

/* ---- CUBE 4 ------------------------------------------------------------ */

/* Both ways of reading take `path` as the CUBE 4 archive it is (told by
 * its content, not its name): the minimal archive's 3 metrics, 6 call
 * paths, 2 threads and its one row of "bytes". */
static void expect_cubex_read(const char *path)
{
    cube_t *c = read_ok(path);
    assert_int_equal(cube_source_format(c), CUBE_FORMAT_CUBE4);
    assert_int_equal(cube_num_metrics(c), 3);
    assert_int_equal(cube_num_cnodes(c), 6);
    assert_int_equal(cube_num_threads(c), 2);
    assert_int_equal(cube_num_rows(c), 13);
    cube_free(c);
    cube_reader *r = cube_reader_open(path);
    assert_non_null(r);
    const cube_t *defs = cube_reader_definitions(r);
    if (!defs)
        fail_msg("%s: %s", path, cube_reader_error(r));
    assert_int_equal(cube_num_metrics(defs), 3);
    const cube_metric *m;
    const cube_cnode *n;
    const double *v;
    size_t rows = 0;
    while (cube_reader_next_row(r, &m, &n, &v) == 1)
        rows++;
    assert_int_equal(cube_reader_error_code(r), CUBE_OK);
    assert_int_equal(rows, 13);
    cube_reader_close(r);
}

/* A real CUBE 4 file is read, not taken for broken XML; so is the same
 * archive gzip-compressed (the reader inflates first), and one whose
 * header carries GNU tar's magic "ustar  ". */
static void test_cubex_archive(void **state)
{
    (void)state;
    const char *path = testdata("cubex/mkcubex_minimal.cubex");
    expect_cubex_read(path);

    char *gz = gzip_copy(path, ".cubex.gz");
    expect_cubex_read(gz);
    unlink(gz);
    free(gz);

    size_t len;
    char *bytes = slurp(path, &len);
    assert_memory_equal(bytes + 257, "ustar\0" "00", 8);
    memcpy(bytes + 257, "ustar  \0", 8);
    char *gnu = temp_file_with(bytes, len);
    expect_cubex_read(gnu);
    unlink(gnu);
    free(gnu);
    free(bytes);
}

/* "ustar" at byte 257 of an XML file (here inside a comment) is text, not a
 * tar header (an XML text holds no NUL byte): the file is read. */
static void test_ustar_in_xml_is_not_tar(void **state)
{
    (void)state;
    size_t len;
    char *xml = slurp(testdata("reader/plain.cube"), &len);
    /* plain.cube's declaration, a comment that puts "ustar  " at byte 257
     * (as in a GNU tar header), then the rest of plain.cube */
    const char *rest = memchr(xml, '\n', len);
    assert_non_null(rest);
    rest++;
    size_t decl = (size_t)(rest - xml), rl = len - decl;
    static const char open_comment[] = "<!-- ", close_comment[] = "ustar   -->\n";
    size_t at = decl + strlen(open_comment);
    assert_true(at < 257);
    char *doc = malloc(len + 512);
    assert_non_null(doc);
    memcpy(doc, xml, decl);
    memcpy(doc + decl, open_comment, strlen(open_comment));
    memset(doc + at, 'x', 257 - at);
    memcpy(doc + 257, close_comment, strlen(close_comment));
    size_t used = 257 + strlen(close_comment);
    memcpy(doc + used, rest, rl);
    char *path = temp_file_with(doc, used + rl);
    cube_t *c = read_ok(path);
    assert_int_equal(cube_error_code(c), CUBE_OK);
    assert_true(cube_num_metrics(c) > 0);
    cube_free(c);
    unlink(path);
    free(path);
    free(doc);
    free(xml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root_is_not_cube),
        cmocka_unit_test(test_cubex_archive),
        cmocka_unit_test(test_ustar_in_xml_is_not_tar),
        cmocka_unit_test(test_plain_text_file),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_utf16_and_utf32),
        cmocka_unit_test(test_version_4),
        cmocka_unit_test(test_version_2),
        cmocka_unit_test(test_mismatched_tags),
        cmocka_unit_test(test_invalid_utf8_one_line),
        cmocka_unit_test(test_undefined_callee),
        cmocka_unit_test(test_row_for_unknown_cnode),
        cmocka_unit_test(test_matrix_for_unknown_metric),
        cmocka_unit_test(test_row_too_long),
        cmocka_unit_test(test_nan),
        cmocka_unit_test(test_inf),
        cmocka_unit_test(test_minus_inf),
        cmocka_unit_test(test_decimal_comma),
        cmocka_unit_test(test_duplicate_metric_id),
        cmocka_unit_test(test_duplicate_region_id),
        cmocka_unit_test(test_duplicate_cnode_id),
        cmocka_unit_test(test_duplicate_thread_id),
        cmocka_unit_test(test_id_with_junk),
        cmocka_unit_test(test_negative_id),
        cmocka_unit_test(test_coord_outside_dimension),
        cmocka_unit_test(test_cart_with_missing_dim),
        cmocka_unit_test(test_definitions_after_severity),
        cmocka_unit_test(test_second_severity),
        cmocka_unit_test(test_metric_text_after_child_metric),
        cmocka_unit_test(test_truncated_in_row),
        cmocka_unit_test(test_truncated_in_definitions),
        cmocka_unit_test(test_truncated_in_unknown_element),
        cmocka_unit_test(test_truncated_in_text_element),
        cmocka_unit_test(test_corrupt_gzip),
        cmocka_unit_test(test_truncated_gzip),
        cmocka_unit_test(test_doctype_external_entity),
        cmocka_unit_test(test_billion_laughs),
        cmocka_unit_test(test_error_from_fd_uses_given_name),
        cmocka_unit_test(test_streaming_reader_rejects_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
