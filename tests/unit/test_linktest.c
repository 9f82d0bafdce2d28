/*
 * test_linktest.c - the LinkTest SION reader: every file in
 * testdata/linktest/ gives exactly its NAME.expected.json content (all
 * header fields, every matrix entry, bit for bit; the expectations are
 * generated into linktest_expected.h by gen_linktest_expected.py), and
 * broken files (truncated, corrupt tags, sizes that do not add up or
 * overflow) fail with a message naming the byte offset and the field.
 */
#include "test_support.h"
#include "cube_linktest.h"
#include "linktest_expected.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check_file(const lt_exp_file *e)
{
    char rel[256];
    snprintf(rel, sizeof rel, "linktest/%s", e->file);
    cube_linktest *lt = linktest_open_ok(testdata(rel));
    const cube_linktest_header *h = cube_linktest_get_header(lt);
    const char *f = e->file;
    assert_string_equal(h->tag, "LinkTest");
    assert_string_equal(h->git_hash, e->git_hash);
    assert_string_equal(h->mode, e->mode);
    assert_int_equal(cube_linktest_num_files(lt), e->nfiles);
    assert_int_equal(cube_linktest_fsblksize(lt), e->fsblksize);
    assert_int_equal(cube_linktest_big_endian(lt), e->big_endian);
    unsigned long long got[LINKTEST_HEADER_FIELDS];
    linktest_header_fields(h, got);
    for (size_t i = 0; i < 25; i++)
        if (got[i] != e->hdr[i])
            fail_msg("%s: header %s: %llu, expected %llu", f, lt_exp_hdr_names[i], got[i],
                     e->hdr[i]);
    size_t n = cube_linktest_num_ranks(lt), m = cube_linktest_num_permutations(lt);
    assert_int_equal(n, e->N);
    assert_int_equal(m, e->M);
    for (size_t r = 0; r < n; r++) {
        assert_string_equal(cube_linktest_hostname(lt, r), e->ranks[r].hostname);
        assert_int_equal(cube_linktest_core_id(lt, r), e->ranks[r].core_id);
        assert_int_equal(cube_linktest_stream_bytes(lt, r), e->ranks[r].stream_bytes);
    }
    for (size_t i = 0; i < m; i++) {
        const cube_linktest_permutation *p = cube_linktest_get_permutation(lt, i);
        const lt_exp_perm *x = &e->perms[i];
        assert_non_null(p);
        assert_string_equal(p->start_time, x->start_time);
        assert_string_equal(p->end_time, x->end_time);
        if (!same_double(p->min, x->min) || !same_double(p->avg, x->avg) ||
            !same_double(p->max, x->max))
            fail_msg("%s: permutation %zu: min/avg/max differ", f, i);
        if (x->has_a2a) {
            assert_non_null(p->all_to_all_times);
            if (!same_double(p->a2a_min, x->a2a_min) || !same_double(p->a2a_avg, x->a2a_avg) ||
                !same_double(p->a2a_max, x->a2a_max))
                fail_msg("%s: permutation %zu: all-to-all min/avg/max differ", f, i);
            for (size_t r = 0; r < n; r++)
                if (!same_double(p->all_to_all_times[r], x->a2a[r]))
                    fail_msg("%s: permutation %zu: all-to-all time of rank %zu", f, i, r);
        } else {
            assert_null(p->all_to_all_times);
            assert_true(isnan(p->a2a_min));
        }
        assert_int_equal(p->num_slow, e->d);
        for (size_t k = 0; k < e->d; k++) {
            if (!same_double(p->retested_slow_timings[k], x->retested[k]) ||
                !same_double(p->slowest_timings[k], x->slowest[k]) ||
                p->slow_sending_partners[k] != x->senders[k] ||
                p->slow_receiving_partners[k] != x->receivers[k])
                fail_msg("%s: permutation %zu: slow list entry %zu differs", f, i, k);
        }
        for (size_t r = 0; r < n; r++)
            for (size_t c = 0; c < n; c++) {
                double t = p->times[r * n + c];
                unsigned long long a = p->access_pattern[r * n + c];
                if (r == c) {
                    if (!isnan(t) || a != 0)
                        fail_msg("%s: permutation %zu: diagonal %zu not empty", f, i, r);
                } else if (!same_double(t, x->times[r * n + c]) || a != x->access[r * n + c]) {
                    fail_msg("%s: permutation %zu: [%zu][%zu] = %a / %llu, expected %a / %llu", f,
                             i, r, c, t, a, x->times[r * n + c], x->access[r * n + c]);
                }
            }
    }
    assert_null(cube_linktest_get_permutation(lt, m));
    cube_linktest_free(lt);
}

static void test_expected_files(void **state)
{
    (void)state;
    assert_true(LT_EXP_NFILES >= 7);
    for (size_t i = 0; i < LT_EXP_NFILES; i++)
        check_file(&lt_exp_files[i]);
}

/* Same values whatever the byte order. */
static void test_bigendian_is_basic(void **state)
{
    (void)state;
    cube_linktest *a = linktest_open_ok(testdata("linktest/lt4_basic.sion"));
    cube_linktest *b = linktest_open_ok(testdata("linktest/lt4_bigendian.sion"));
    assert_int_equal(cube_linktest_big_endian(a), 0);
    assert_int_equal(cube_linktest_big_endian(b), 1);
    const cube_linktest_permutation *p = cube_linktest_get_permutation(a, 0);
    const cube_linktest_permutation *q = cube_linktest_get_permutation(b, 0);
    assert_memory_equal(p->access_pattern, q->access_pattern, 16 * sizeof(uint64_t));
    for (size_t k = 0; k < 16; k++)
        assert_true(k % 5 == 0 || same_double(p->times[k], q->times[k]));
    cube_linktest_free(a);
    cube_linktest_free(b);
}

/* Open a file holding `data`; it must fail with `code` and a message
 * containing every one of the NULL-terminated needles. */
static void expect_error(const char *data, size_t len, const char *what, cube_code code, ...)
{
    char *path = temp_file_with(data, len);
    cube_status st;
    cube_linktest *lt = cube_linktest_open(path, &st);
    if (lt)
        fail_msg("%s: read without error", what);
    if (st.code != code)
        fail_msg("%s: code %d (%s), expected %d (%s): %s", what, (int)st.code,
                 cube_code_text(st.code), (int)code, cube_code_text(code), st.message);
    va_list ap;
    va_start(ap, code);
    const char *needle;
    while ((needle = va_arg(ap, const char *)) != NULL)
        if (!strstr(st.message, needle))
            fail_msg("%s: message \"%s\" lacks \"%s\"", what, st.message, needle);
    va_end(ap);
    unlink(path);
    free(path);
}

/* A file whose writer never closed it (start_of_varheader 0, no META2):
 * read from block 0 of each chunk with a warning, same values; rejected
 * when the payload does not fit in block 0 (a multi-block file). */
static void test_unclosed(void **state)
{
    (void)state;
    size_t len;
    char *d = slurp(testdata("linktest/lt4_basic.sion"), &len);
    cube_linktest *ref = linktest_open_ok(testdata("linktest/lt4_basic.sion"));
    assert_int_equal(cube_linktest_unclosed(ref), 0);
    assert_int_equal(cube_linktest_num_warnings(ref), 0);
    memset(d + 0x474, 0, 12); /* maxchunks and start_of_varheader as at open */
    const size_t lens[] = {len, 0x5000};
    for (size_t k = 0; k < 2; k++) {
        char *path = temp_file_with(d, lens[k]);
        cube_status st;
        cube_linktest *lt = cube_linktest_open(path, &st);
        if (!lt)
            fail_msg("unclosed (%zu bytes): %s", lens[k], st.message);
        /* read with a warning: no error */
        assert_int_equal(st.code, CUBE_OK);
        assert_string_equal(st.message, "");
        assert_int_equal(cube_linktest_unclosed(lt), 1);
        assert_int_equal(cube_linktest_num_warnings(lt), 1);
        assert_non_null(strstr(cube_linktest_warning(lt, 0), "never closed"));
        assert_non_null(strstr(cube_linktest_warning(lt, 0), path));
        assert_null(cube_linktest_warning(lt, 1));
        size_t n = cube_linktest_num_ranks(lt);
        assert_int_equal(n, 4);
        for (size_t r = 0; r < n; r++) {
            assert_string_equal(cube_linktest_hostname(lt, r), cube_linktest_hostname(ref, r));
            /* the bytes the payload took, as SIONlib recorded them */
            assert_int_equal(cube_linktest_stream_bytes(lt, r), cube_linktest_stream_bytes(ref, r));
        }
        const cube_linktest_permutation *p = cube_linktest_get_permutation(lt, 0);
        const cube_linktest_permutation *q = cube_linktest_get_permutation(ref, 0);
        for (size_t i = 0; i < n * n; i++)
            assert_true(i % (n + 1) == 0 || same_double(p->times[i], q->times[i]));
        assert_memory_equal(p->access_pattern, q->access_pattern, n * n * sizeof(uint64_t));
        assert_true(same_double(p->max, q->max));
        cube_linktest_free(lt);
        unlink(path);
        free(path);
    }
    /* cut inside rank 2's chunk */
    expect_error(d, 0x3000 + 40, "unclosed and truncated", CUBE_EFORMAT, "rank 2", "never closed",
                 NULL);
    free(d);
    cube_linktest_free(ref);
    /* a multi-block file: the payload goes on in later blocks */
    d = slurp(testdata("linktest/lt4_multiblock.sion"), &len);
    uint32_t ntasks = (uint32_t)(unsigned char)d[24];
    memset(d + 1076 + 16 * ntasks, 0, 12);
    expect_error(d, len, "unclosed multi-block", CUBE_EFORMAT, "never closed", NULL);
    free(d);
}

static void test_truncated(void **state)
{
    (void)state;
    size_t len;
    char *data = slurp(testdata("linktest/lt4_basic.sion"), &len);
    assert_int_equal(len, 20544);
    const size_t cuts[] = {0, 3, 7, 30, 1000, 1100, 1150, 1160, 4096, 4200, 8256, 20480, 20500, 20543};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "truncated at %zu", cuts[i]);
        expect_error(data, cuts[i], what, CUBE_EFORMAT, "offset", NULL);
    }
    /* multi-block file cut inside its data area */
    free(data);
    data = slurp(testdata("linktest/lt4_multiblock.sion"), &len);
    expect_error(data, len / 2, "multiblock truncated", CUBE_EFORMAT, "offset", NULL);
    expect_error(data, len - 1, "multiblock truncated by one", CUBE_EFORMAT, "offset", NULL);
    free(data);
}

static void put32le(char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (char)(v >> (8 * i));
}

static void put64le(char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (char)(v >> (8 * i));
}

static void test_corrupt(void **state)
{
    (void)state;
    size_t len;
    char *orig = slurp(testdata("linktest/lt4_basic.sion"), &len);
    char *d = malloc(len);
    assert_non_null(d);

#define FRESH() memcpy(d, orig, len)
    FRESH();
    d[0] = 'S';
    expect_error(d, len, "magic", CUBE_EFORMAT, "offset 0", "magic", NULL);
    FRESH();
    d[4096] = 'l';
    expect_error(d, len, "LinkTest tag", CUBE_EFORMAT, "offset 4096", "LinkTest ID string", NULL);
    FRESH();
    put32le(d + 4096 + 8, 3);
    expect_error(d, len, "version", CUBE_EUNSUPPORTED, "offset 4104", "version", NULL);
    FRESH();
    /* END_HEADER at 4096 + 146 */
    d[4096 + 146] = 'X';
    expect_error(d, len, "END_HEADER", CUBE_EFORMAT, "offset 4242", "END_HEADER", NULL);
    FRESH();
    /* rank 1's END_BLOCK: its stream is 73 bytes at 8192 */
    d[8192 + 64] = 'e';
    expect_error(d, len, "END_BLOCK", CUBE_EFORMAT, "offset 8256", "END_BLOCK", NULL);
    FRESH();
    /* rank 1's recorded byte count one too large: bytes after END_BLOCK */
    put64le(d + 0x5020 + 8, 74);
    expect_error(d, len, "stream longer", CUBE_EFORMAT, "rank 1", "END_BLOCK", NULL);
    FRESH();
    /* ... and one too small: END_BLOCK cut */
    put64le(d + 0x5020 + 8, 72);
    expect_error(d, len, "stream shorter", CUBE_EFORMAT, "rank 1", "END_BLOCK", NULL);
    FRESH();
    /* sizes that overflow or do not fit */
    put32le(d + 24, 0x7fffffff);
    expect_error(d, len, "ntasks", CUBE_EFORMAT, "offset 24", "ntasks", NULL);
    FRESH();
    put32le(d + 24, 0);
    expect_error(d, len, "ntasks 0", CUBE_EFORMAT, "offset 24", "ntasks", NULL);
    FRESH();
    put32le(d + 0x474, 0x7fffffff);
    expect_error(d, len, "maxchunks", CUBE_EFORMAT, "offset 1140", "maxchunks", NULL);
    FRESH();
    put64le(d + 0x478, UINT64_MAX - 7);
    expect_error(d, len, "start_of_varheader", CUBE_EFORMAT, "offset 1140", NULL);
    FRESH();
    put64le(d + 0x454 + 8, UINT64_MAX);
    expect_error(d, len, "chunksize", CUBE_EFORMAT, "chunksize[1]", NULL);
    FRESH();
    put64le(d + 0x5000, UINT64_MAX);
    expect_error(d, len, "blockcount", CUBE_EFORMAT, "offset 20480", "blockcount", NULL);
    FRESH();
    put64le(d + 0x5020, 5000);
    expect_error(d, len, "bytes written", CUBE_EFORMAT, "offset 20512", "bytes written", NULL);
    FRESH();
    /* message count, retests and permutations far beyond the data */
    put64le(d + 4096 + 82 + 24, UINT64_MAX);
    expect_error(d, len, "retests", CUBE_EFORMAT, "number of serial retests", NULL);
    FRESH();
    put64le(d + 4096 + 82 + 48, (uint64_t)1 << 62);
    expect_error(d, len, "permutations", CUBE_EFORMAT, "number of randomized tasks", NULL);
    FRESH();
    put64le(d + 4096 + 82 + 48, 0);
    expect_error(d, len, "zero permutations", CUBE_EFORMAT, "number of randomized tasks", NULL);
    FRESH();
    put32le(d + 4096 + 61, 1000000);
    expect_error(d, len, "mode length", CUBE_EFORMAT, "LinkTest mode", NULL);
    FRESH();
    put32le(d + 8192, 0xfffffff0u);
    expect_error(d, len, "hostname length", CUBE_EFORMAT, "offset 8196", "hostname", NULL);
#undef FRESH
    free(d);
    free(orig);
}

/* The two genuine LinkTest 1.2p1 files give the numbers LinkTest printed
 * (v1/NAME.stdout.txt) when it wrote them. */
static void check_slow(const cube_linktest_permutation *p, size_t k, long long from, long long to,
                       double first_us, double second_us)
{
    assert_int_equal(p->slow_sending_partners[k], from);
    assert_int_equal(p->slow_receiving_partners[k], to);
    assert_true(fabs(p->slowest_timings[k] * 1e6 - first_us) < 5e-5);
    assert_true(fabs(p->retested_slow_timings[k] * 1e6 - second_us) < 5e-5);
}

static void test_v1_files(void **state)
{
    (void)state;
    cube_linktest *lt = linktest_open_ok(testdata("linktest/v1/real_linktest1.2p1_n4.sion"));
    const cube_linktest_header *h = cube_linktest_get_header(lt);
    assert_string_equal(h->tag, "LKTST");
    assert_int_equal(h->major, 1);
    assert_int_equal(h->minor, 2);
    assert_int_equal(h->patch, 1);
    assert_int_equal(h->num_messages, 3);
    assert_int_equal(h->message_size, 16384);
    assert_int_equal(h->all_to_all, 0);
    assert_int_equal(cube_linktest_num_ranks(lt), 4);
    assert_int_equal(cube_linktest_num_permutations(lt), 1);
    for (size_t r = 0; r < 4; r++)
        assert_string_equal(cube_linktest_hostname(lt, r), "vm");
    const cube_linktest_permutation *p = cube_linktest_get_permutation(lt, 0);
    assert_true(same_double(p->min, 1.607216654520016e-05));
    assert_true(same_double(p->max, 0.005338019225746393));
    assert_true(same_double(p->avg, 0.0029412648233725727));
    assert_int_equal(p->num_slow, 4);
    check_slow(p, 0, 3, 0, 5338.0192, 5340.5031);
    check_slow(p, 1, 0, 1, 5335.6173, 4684.4198);
    check_slow(p, 2, 0, 3, 5318.0479, 5343.7245);
    check_slow(p, 3, 2, 1, 4657.3710, 5334.2436);
    /* the slowest link is in the matrix: row 3, column 0 */
    assert_true(same_double(p->times[3 * 4 + 0], p->max));
    assert_true(isnan(p->times[0]));
    cube_linktest_free(lt);

    lt = linktest_open_ok(testdata("linktest/v1/real_linktest1.2p1_n4_a2a_mix.sion"));
    h = cube_linktest_get_header(lt);
    assert_int_equal(h->all_to_all, 1);
    assert_int_equal(h->step_randomization, 1);
    p = cube_linktest_get_permutation(lt, 0);
    assert_true(fabs(p->min * 1e6 - 15.40300036) < 1e-7);
    assert_true(fabs(p->max * 1e6 - 6664.09498081) < 1e-7);
    assert_true(fabs(p->avg * 1e6 - 4343.52301575) < 1e-7);
    assert_true(fabs(p->a2a_min * 1e6 - 12.038) < 1e-3);
    assert_true(fabs(p->a2a_max * 1e6 - 23994.828) < 1e-3);
    check_slow(p, 0, 3, 1, 6664.0950, 6536.1364);
    check_slow(p, 1, 3, 0, 6658.7804, 5991.1502);
    check_slow(p, 2, 1, 2, 6334.2568, 5995.4012);
    check_slow(p, 3, 2, 1, 6280.9391, 5364.6923);
    cube_linktest_free(lt);

    /* a truncated 1.x file names the offset */
    size_t len;
    char *data = slurp(testdata("linktest/v1/real_linktest1.2p1_n4.sion"), &len);
    expect_error(data, len - 10, "v1 truncated", CUBE_EFORMAT, "offset", NULL);
    /* a 1.x stream with a wrong version */
    data[4096 + 5] = 9;
    expect_error(data, len, "v1 version", CUBE_EUNSUPPORTED, "offset 4101", "LinkTest 1.x version",
                 NULL);
    free(data);
}

static void test_missing_sibling(void **state)
{
    (void)state;
    size_t len;
    char *data = slurp(testdata("linktest/lt4_2files.sion"), &len);
    expect_error(data, len, "missing file 1", CUBE_EIO, ".000001", "cannot open", NULL);
    /* the set with a truncated or swapped second file */
    size_t len1;
    char *data1 = slurp(testdata("linktest/lt4_2files.sion.000001"), &len1);
    char *path = temp_path(".sion");
    char sib[4096];
    snprintf(sib, sizeof sib, "%s.000001", path);
    cube_status st;
    for (int variant = 0; variant < 3; variant++) {
        FILE *f0 = fopen(path, "wb"), *f1 = fopen(sib, "wb");
        assert_non_null(f0);
        assert_non_null(f1);
        assert_int_equal(fwrite(data, 1, len, f0), len);
        if (variant == 0)
            assert_int_equal(fwrite(data1, 1, len1 - 3, f1), len1 - 3);
        else if (variant == 1)
            assert_int_equal(fwrite(data, 1, len, f1), len); /* file 0 again */
        else
            assert_int_equal(fwrite(data1, 1, len1, f1), len1);
        fclose(f0);
        fclose(f1);
        cube_linktest *lt = cube_linktest_open(path, &st);
        if (variant == 2) {
            if (!lt)
                fail_msg("intact copy: %s", st.message);
            assert_int_equal(st.code, CUBE_OK);
            assert_int_equal(cube_linktest_num_ranks(lt), 4);
            assert_int_equal(cube_linktest_num_files(lt), 2);
            cube_linktest_free(lt);
        } else {
            assert_null(lt);
            assert_int_equal(st.code, CUBE_EFORMAT);
            assert_non_null(strstr(st.message, ".000001"));
            assert_non_null(strstr(st.message, "offset"));
        }
    }
    unlink(sib);
    unlink(path);
    free(path);
    free(data1);
    free(data);
    assert_null(cube_linktest_open(testdata("linktest/no_such_file.sion"), &st));
    assert_int_equal(st.code, CUBE_EIO);
    assert_non_null(strstr(st.message, "cannot open"));
    assert_non_null(strstr(st.message, "no_such_file.sion"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expected_files), cmocka_unit_test(test_bigendian_is_basic),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_unclosed),      cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_v1_files),  cmocka_unit_test(test_missing_sibling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
