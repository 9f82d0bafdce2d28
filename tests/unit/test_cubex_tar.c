/*
 * test_cubex_tar.c - the tar container of CUBE 4 files: the member tables
 * of real files (POSIX and GNU magics, the wrong checksums of one writer,
 * any member order) against their expected files, gzip-compressed
 * archives and pipes, bounded member reads, hostile archives (truncated,
 * sizes beyond the archive), and the writer: its padding rule, correct
 * checksums, members streamed with unknown size.
 */
#include "test_support.h"
#include "json_reader.h"
#include "cubex/tar_private.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define DIR "testdata/cubex"

/* name, expected: all checksums valid */
static const struct {
    const char *name;
    int checksums_valid;
} files[] = {
    {"mkcubex_minimal", 1},
    {"cubelib-4.8.2_cube-values_example", 1},
    {"scorep-9.0dev_time-p4-n2000-x1-r0_profile", 1},
    {"scorep-1.4_kripke-p8-d2-g32-r1_profile", 1},
    {"scorep-8.4_call_tree_test", 1},
    {"scorep-9.4_cubew-4.8-checksum-bug_bt-mz_sum-p2-r1", 0},
    {"scorep-7.0_hw_counter_L3_DCA_negative", 1},
    {"cube3to4_scorep-1.1_profile", 1},
    {"cube3to4_tau2cube_template1", 1},
};

static char *path_of(const char *name)
{
    size_t n = strlen(DIR) + strlen(name) + 16;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s.cubex", DIR, name);
    return p;
}

/* The table equals the expected file's [name, size, header offset] list,
 * in archive order, and every member's bytes are those of the file. */
static void expect_table(const cubex_tar *t, const json *doc, const char *path)
{
    const json *members = json_get(json_get(doc, "container"), "members");
    assert_int_equal(t->num_members, json_len(members));
    size_t flen;
    char *file = slurp(path, &flen);
    assert_int_equal(t->size, flen);
    for (size_t i = 0; i < t->num_members; i++) {
        const json *m = json_at(members, i);
        const cubex_member *got = &t->members[i];
        assert_string_equal(got->name, json_str(json_at(m, 0)));
        assert_int_equal(got->size, json_u64(json_at(m, 1)));
        assert_int_equal(got->header_offset, json_u64(json_at(m, 2)));
        assert_int_equal(got->offset, got->header_offset + 512);
        assert_ptr_equal(cubex_tar_find(t, got->name), got);
        char *buf = malloc(got->size + 1);
        cube_status st;
        assert_int_equal(cubex_tar_pread(t, got, 0, buf, (size_t)got->size, &st), 0);
        assert_memory_equal(buf, file + got->offset, (size_t)got->size);
        free(buf);
    }
    free(file);
}

/* Every file's table; a warning exactly where the expected file says the
 * checksums are wrong (there: in every header). */
static void test_member_tables(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char *path = path_of(files[f].name);
        json *doc = json_load_expected(DIR, files[f].name);
        assert_non_null(doc);
        const json *valid = json_get(json_get(doc, "container"), "tar_checksums_all_valid");
        assert_int_equal(valid->type == JSON_TRUE, files[f].checksums_valid);
        cube_status st;
        cubex_tar *t = cubex_tar_open_path(path, 0, &st);
        if (!t)
            fail_msg("%s: %s", path, st.message);
        assert_int_equal(st.code, CUBE_OK);
        expect_table(t, doc, path);
        char warning[CUBE_MESSAGE_SIZE];
        assert_int_equal(cubex_tar_warning(t, warning, sizeof warning), !files[f].checksums_valid);
        if (!files[f].checksums_valid) {
            assert_int_equal(t->bad_checksums, t->num_members);
            assert_int_equal(t->first_bad_checksum, 0);
            char want[512];
            snprintf(want, sizeof want, "%s: %zu of %zu tar headers have a wrong checksum (the first at byte 0); read anyway",
                     path, t->num_members, t->num_members);
            assert_string_equal(warning, want);
        } else {
            assert_string_equal(warning, "");
            assert_int_equal(t->bad_checksums, 0);
        }
        cubex_tar_close(t);
        json_free(doc);
        free(path);
    }
}

/* The whole archive gzip-compressed: the same table, offsets counted in
 * the inflated archive; a limit on the inflated size is kept. */
static void test_gzip_archive(void **state)
{
    (void)state;
    char *path = path_of("mkcubex_minimal"), *gz = temp_path(".cubex.gz");
    size_t len;
    char *raw = slurp(path, &len);
    gzFile g = gzopen(gz, "wb");
    assert_non_null(g);
    /* two gzip members, as `cat a.gz b.gz` makes */
    assert_int_equal(gzwrite(g, raw, 5000), 5000);
    assert_int_equal(gzclose(g), Z_OK);
    g = gzopen(gz, "ab");
    assert_int_equal(gzwrite(g, raw + 5000, (unsigned)(len - 5000)), (int)(len - 5000));
    assert_int_equal(gzclose(g), Z_OK);
    cube_status st;
    cubex_tar *t = cubex_tar_open_path(gz, 0, &st);
    if (!t)
        fail_msg("%s", st.message);
    assert_true(t->inflated);
    json *doc = json_load_expected(DIR, "mkcubex_minimal");
    expect_table(t, doc, path);
    cubex_tar_close(t);
    /* a limit below the inflated size */
    assert_null(cubex_tar_open_path(gz, 4096, &st));
    assert_int_equal(st.code, CUBE_EFORMAT);
    char want[512];
    snprintf(want, sizeof want, "%s: byte 4096 of the inflated archive: expected at most 4096 bytes", gz);
    assert_string_equal(st.message, want);
    /* cut short: the compressed data ends early */
    size_t glen;
    char *gbytes = slurp(gz, &glen);
    char *cut = temp_file_with(gbytes, glen / 2);
    assert_null(cubex_tar_open_path(cut, 0, &st));
    assert_int_equal(st.code, CUBE_EFORMAT);
    assert_non_null(strstr(st.message, "the gzip-compressed data ends early"));
    unlink(cut);
    unlink(gz);
    free(cut);
    free(gbytes);
    free(gz);
    free(raw);
    free(path);
    json_free(doc);
}

/* From a pipe (plain, then gzip): spooled to a temporary file first. */
static void test_pipe(void **state)
{
    (void)state;
    char *path = path_of("mkcubex_minimal");
    size_t len;
    char *raw = slurp(path, &len);
    json *doc = json_load_expected(DIR, "mkcubex_minimal");
    for (int gz = 0; gz < 2; gz++) {
        unsigned char *bytes = (unsigned char *)raw;
        uLongf blen = compressBound(len) + 32;
        unsigned char *z = malloc(blen);
        if (gz) { /* a gzip stream: header, raw deflate, trailer */
            z_stream s;
            memset(&s, 0, sizeof s);
            assert_int_equal(deflateInit2(&s, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
            s.next_in = (unsigned char *)raw;
            s.avail_in = (uInt)len;
            s.next_out = z;
            s.avail_out = (uInt)blen;
            assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
            blen = s.total_out;
            deflateEnd(&s);
            bytes = z;
        } else {
            blen = len;
        }
        assert_true(blen < 60000); /* fits the pipe's buffer */
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        assert_int_equal(write(fds[1], bytes, blen), (ssize_t)blen);
        close(fds[1]);
        cube_status st;
        cubex_tar *t = cubex_tar_open_fd(fds[0], "(stdin)", 0, &st);
        close(fds[0]);
        if (!t)
            fail_msg("%s", st.message);
        assert_int_equal(t->inflated, gz);
        expect_table(t, doc, path);
        cubex_tar_close(t);
        free(z);
    }
    json_free(doc);
    free(raw);
    free(path);
}

/* Reads are bounded by the member. */
static void test_member_reads_are_bounded(void **state)
{
    (void)state;
    char *path = path_of("mkcubex_minimal");
    cube_status st;
    cubex_tar *t = cubex_tar_open_path(path, 0, &st);
    assert_non_null(t);
    const cubex_member *m = cubex_tar_find(t, "2.index");
    assert_non_null(m);
    assert_null(cubex_tar_find(t, "3.index"));
    char buf[64];
    assert_int_equal(cubex_tar_pread(t, m, m->size - 4, buf, 4, &st), 0);
    assert_int_equal(cubex_tar_pread(t, m, m->size - 4, buf, 5, &st), -1);
    char want[512];
    snprintf(want, sizeof want, "%s: member 2.index: byte %llu: expected 5 more bytes, the member ends at byte %llu",
             path, (unsigned long long)(m->offset + m->size - 4), (unsigned long long)(m->offset + m->size));
    assert_string_equal(st.message, want);
    assert_int_equal(st.code, CUBE_EFORMAT);
    assert_int_equal(cubex_tar_pread(t, m, UINT64_MAX - 2, buf, 4, &st), -1);
    assert_int_equal(st.code, CUBE_EFORMAT);
    cubex_tar_close(t);
    free(path);
}

/* A descriptor's file offset is left where the caller had it (reads use
 * pread); entries that are not regular files (a directory) are skipped. */
static void test_fd_offset_and_skipped_entries(void **state)
{
    (void)state;
    char *path = temp_path(".cubex");
    FILE *fp = fopen(path, "wb");
    cube_status st;
    cubex_tar_writer *w = cubex_tar_writer_open_fp(fp, path, &st);
    assert_int_equal(cubex_tar_add(w, "dir", "", 0, 0, &st), 0);
    assert_int_equal(cubex_tar_add(w, "file", "abc", 3, 0, &st), 0);
    assert_int_equal(cubex_tar_finish(w, &st), 0);
    cubex_tar_writer_free(w);
    assert_int_equal(fclose(fp), 0);
    /* make the first entry a directory (typeflag '5', checksum left as it was) */
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, "5", 1, 156), 1);
    assert_int_equal(lseek(fd, 100, SEEK_SET), 100);
    cubex_tar *t = cubex_tar_open_fd(fd, path, 0, &st);
    assert_non_null(t);
    assert_int_equal(lseek(fd, 0, SEEK_CUR), 100);
    assert_int_equal(t->num_members, 1);
    assert_string_equal(t->members[0].name, "file");
    assert_int_equal(t->members[0].header_offset, 1024); /* after the dir's header and zero block */
    assert_int_equal(t->bad_checksums, 1);
    cubex_tar_close(t);
    close(fd);
    unlink(path);
    free(path);
}

/* ---- hostile archives ---------------------------------------------------------- */

static void write_octal(char *field, size_t width, unsigned long long v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%0*llo", (int)(width - 1), v);
    memcpy(field, tmp, width);
}

/* Every prefix of a real archive: either read (a cut between members,
 * with the members before it) or refused with an error naming the place;
 * never a member that reaches past the end. */
static void test_truncated_archives(void **state)
{
    (void)state;
    char *path = path_of("mkcubex_minimal");
    size_t len;
    char *raw = slurp(path, &len);
    size_t refused = 0, read = 0;
    for (size_t cut = 1; cut < len; cut += cut < 2048 ? 7 : 61) {
        char *p = temp_file_with(raw, cut);
        cube_status st;
        cubex_tar *t = cubex_tar_open_path(p, 0, &st);
        if (t) {
            for (size_t i = 0; i < t->num_members; i++)
                assert_true(t->members[i].offset + t->members[i].size <= cut);
            cubex_tar_close(t);
            read++;
        } else {
            assert_int_equal(st.code, CUBE_EFORMAT);
            assert_true(strncmp(st.message, p, strlen(p)) == 0);
            assert_non_null(strstr(st.message, ": byte "));
            refused++;
        }
        unlink(p);
        free(p);
    }
    assert_true(refused > 0 && read > 0);
    /* a cut inside 0.index's header block, and inside its content */
    char *p = temp_file_with(raw, 1024 + 300);
    cube_status st;
    assert_null(cubex_tar_open_path(p, 0, &st));
    char want[512];
    snprintf(want, sizeof want, "%s: byte 1024: expected a 512-byte tar header, the archive ends after 300 bytes", p);
    assert_string_equal(st.message, want);
    unlink(p);
    free(p);
    p = temp_file_with(raw, 1536 + 10);
    assert_null(cubex_tar_open_path(p, 0, &st));
    snprintf(want, sizeof want, "%s: member 0.index: byte %d: expected a size of at most 10 bytes (the rest of the archive), found 46",
             p, 1024 + 124);
    assert_string_equal(st.message, want);
    unlink(p);
    free(p);
    free(raw);
    free(path);
}

/* A header whose size reaches past the archive, one that is no tar
 * header, a size field that is no number: each refused by name and byte. */
static void test_hostile_headers(void **state)
{
    (void)state;
    char *path = path_of("mkcubex_minimal");
    size_t len;
    char *raw = slurp(path, &len);
    struct {
        size_t at;
        const char *bytes;
        size_t n;
        const char *want; /* after "PATH: " */
    } cases[] = {
        {1024 + 124, "77777777777", 11, "member 0.index: byte 1148: expected a size of at most 9728 bytes (the rest of the archive), found 8589934591"},
        {1024 + 124, "\200\0\0\0\0\0\0\0\0\1\0\0", 12, "member 0.index: byte 1148: expected a size of at most 9728 bytes (the rest of the archive), found 65536"},
        {1024 + 124, "0000000009x", 11, "member 0.index: byte 1148: expected the size as an octal number"},
        {1024 + 257, "ustor", 5, "byte 1281: expected a tar header (\"ustar\" at byte 257 of the block)"},
        {0, "\0", 1, "byte 0: expected a member name"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *copy = malloc(len);
        memcpy(copy, raw, len);
        memcpy(copy + cases[i].at, cases[i].bytes, cases[i].n);
        char *p = temp_file_with(copy, len);
        cube_status st;
        assert_null(cubex_tar_open_path(p, 0, &st));
        assert_int_equal(st.code, CUBE_EFORMAT);
        char want[512];
        snprintf(want, sizeof want, "%s: %s", p, cases[i].want);
        assert_string_equal(st.message, want);
        unlink(p);
        free(p);
        free(copy);
    }
    /* not an archive at all */
    char *p = temp_file_with("<?xml version=\"1.0\"?>\n", 22);
    cube_status st;
    assert_null(cubex_tar_open_path(p, 0, &st));
    assert_int_equal(st.code, CUBE_EFORMAT);
    unlink(p);
    free(p);
    free(raw);
    free(path);
}

/* ---- the writer ---------------------------------------------------------------- */

/* Members of sizes around the block size: each header where the padding
 * rule puts it (one extra zero block after a multiple of 512), correct
 * checksums, two zero blocks at the end; read back the same. */
static void test_writer_padding_and_checksums(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 511, 512, 513, 1024, 1500};
    enum { N = sizeof sizes / sizeof sizes[0] };
    char *path = temp_path(".cubex");
    FILE *fp = fopen(path, "wb");
    cube_status st;
    cubex_tar_writer *w = cubex_tar_writer_open_fp(fp, path, &st);
    assert_non_null(w);
    unsigned char content[1500];
    for (size_t i = 0; i < sizeof content; i++)
        content[i] = (unsigned char)(i % 251 + 1);
    uint64_t expect_off[N], off = 0;
    for (size_t i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof name, "m%zu", sizes[i]);
        expect_off[i] = off;
        assert_int_equal(cubex_tar_writer_offset(w), off);
        assert_int_equal(cubex_tar_add(w, name, content, sizes[i], 1700000000, &st), 0);
        off += 512 + (sizes[i] / 512 + 1) * 512;
    }
    assert_int_equal(cubex_tar_finish(w, &st), 0);
    cubex_tar_writer_free(w);
    assert_int_equal(fclose(fp), 0);
    size_t len;
    unsigned char *raw = (unsigned char *)slurp(path, &len);
    assert_int_equal(len, off + 1024);
    for (size_t i = 0; i < 1024; i++)
        assert_int_equal(raw[off + i], 0);
    cubex_tar *t = cubex_tar_open_path(path, 0, &st);
    assert_non_null(t);
    assert_int_equal(t->num_members, N);
    assert_int_equal(t->bad_checksums, 0);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(t->members[i].header_offset, expect_off[i]);
        assert_int_equal(t->members[i].size, sizes[i]);
        assert_memory_equal(raw + t->members[i].offset, content, sizes[i]);
        const unsigned char *h = raw + expect_off[i];
        assert_memory_equal(h + 257, "ustar\0" "00", 8);
        assert_int_equal(h[156], '0');
        /* the checksum, summed independently: the field as blanks */
        unsigned long sum = 0;
        for (size_t b = 0; b < 512; b++)
            sum += b >= 148 && b < 156 ? 32 : h[b];
        assert_int_equal(strtoul((const char *)h + 148, NULL, 8), sum);
        assert_int_equal(h[154], 0);
        assert_int_equal(h[155], ' ');
    }
    cubex_tar_close(t);
    unlink(path);
    free(path);
    free(raw);
}

/* A tar archive whose first member name starts with the gzip magic
 * (0x1f 0x8b) is a tar archive, not gzip: the ustar magic of the header
 * decides, through a path and through a pipe. */
static void test_gzip_magic_in_a_member_name(void **state)
{
    (void)state;
    char *path = temp_path(".cubex");
    FILE *fp = fopen(path, "wb");
    cube_status st;
    cubex_tar_writer *w = cubex_tar_writer_open_fp(fp, path, &st);
    assert_non_null(w);
    static const char name[] = "\x1f\x8b\x08/0.data";
    assert_int_equal(cubex_tar_add(w, name, "CUBEX.DATA", 10, 0, &st), 0);
    assert_int_equal(cubex_tar_finish(w, &st), 0);
    cubex_tar_writer_free(w);
    assert_int_equal(fclose(fp), 0);
    for (int via_pipe = 0; via_pipe < 2; via_pipe++) {
        cubex_tar *t;
        if (via_pipe) {
            size_t len;
            char *raw = slurp(path, &len);
            int fds[2];
            assert_int_equal(pipe(fds), 0);
            assert_int_equal(write(fds[1], raw, len), (ssize_t)len); /* fits the pipe */
            close(fds[1]);
            t = cubex_tar_open_fd(fds[0], "(pipe)", 0, &st);
            close(fds[0]);
            free(raw);
        } else {
            t = cubex_tar_open_path(path, 0, &st);
        }
        assert_non_null(t);
        assert_int_equal(st.code, CUBE_OK);
        assert_int_equal(t->inflated, 0);
        assert_int_equal(t->num_members, 1);
        assert_string_equal(t->members[0].name, name);
        assert_int_equal(t->members[0].size, 10);
        cubex_tar_close(t);
    }
    unlink(path);
    free(path);
}

/* The real files' member layout is reproduced: the worked example's
 * members rewritten give the same header offsets and bytes. */
static void test_writer_reproduces_layout(void **state)
{
    (void)state;
    char *src = path_of("cubelib-4.8.2_cube-values_example"), *out = temp_path(".cubex");
    cube_status st;
    cubex_tar *t = cubex_tar_open_path(src, 0, &st);
    assert_non_null(t);
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    cubex_tar_writer *w = cubex_tar_writer_open_fd(fd, out, &st);
    for (size_t i = 0; i < t->num_members; i++) {
        const cubex_member *m = &t->members[i];
        char *buf = malloc(m->size + 1);
        assert_int_equal(cubex_tar_pread(t, m, 0, buf, (size_t)m->size, &st), 0);
        /* in two pieces, the size announced */
        assert_int_equal(cubex_tar_begin(w, m->name, m->size, 0, &st), 0);
        assert_int_equal(cubex_tar_write(w, buf, (size_t)m->size / 2, &st), 0);
        assert_int_equal(cubex_tar_end(w, &st), -1); /* too few bytes */
        assert_int_equal(st.code, CUBE_EINVAL);
        assert_int_equal(cubex_tar_write(w, buf + m->size / 2, (size_t)(m->size - m->size / 2), &st), 0);
        assert_int_equal(cubex_tar_write(w, buf, 1, &st), -1); /* too many */
        assert_int_equal(cubex_tar_end(w, &st), 0);
        free(buf);
    }
    assert_int_equal(cubex_tar_finish(w, &st), 0);
    cubex_tar_writer_free(w);
    close(fd);
    cubex_tar *u = cubex_tar_open_path(out, 0, &st);
    assert_non_null(u);
    assert_int_equal(u->size, t->size);
    assert_int_equal(u->num_members, t->num_members);
    size_t a_len, b_len;
    char *a = slurp(src, &a_len), *b = slurp(out, &b_len);
    for (size_t i = 0; i < t->num_members; i++) {
        assert_int_equal(u->members[i].header_offset, t->members[i].header_offset);
        assert_memory_equal(b + u->members[i].offset, a + t->members[i].offset, t->members[i].size);
    }
    free(a);
    free(b);
    cubex_tar_close(u);
    cubex_tar_close(t);
    unlink(out);
    free(out);
    free(src);
}

/* A member streamed without knowing its size (the header is written
 * again at its end), through a FILE* and a descriptor; a PAX size record
 * read from an archive. */
static void test_writer_unknown_size_and_pax(void **state)
{
    (void)state;
    for (int use_fd = 0; use_fd < 2; use_fd++) {
        char *path = temp_path(".cubex");
        FILE *fp = fopen(path, "wb+");
        cube_status st;
        cubex_tar_writer *w = use_fd ? cubex_tar_writer_open_fd(fileno(fp), path, &st)
                                     : cubex_tar_writer_open_fp(fp, path, &st);
        assert_int_equal(cubex_tar_add(w, "first", "abc", 3, 0, &st), 0);
        assert_int_equal(cubex_tar_begin(w, "streamed", CUBEX_SIZE_UNKNOWN, 0, &st), 0);
        for (int i = 0; i < 300; i++)
            assert_int_equal(cubex_tar_write(w, "0123456789", 10, &st), 0);
        assert_int_equal(cubex_tar_end(w, &st), 0);
        assert_int_equal(cubex_tar_add(w, "last", "z", 1, 0, &st), 0);
        assert_int_equal(cubex_tar_finish(w, &st), 0);
        cubex_tar_writer_free(w);
        assert_int_equal(fclose(fp), 0);
        cubex_tar *t = cubex_tar_open_path(path, 0, &st);
        assert_non_null(t);
        assert_int_equal(t->num_members, 3);
        assert_int_equal(t->bad_checksums, 0);
        assert_int_equal(cubex_tar_find(t, "streamed")->size, 3000);
        assert_int_equal(cubex_tar_find(t, "last")->header_offset, 1024 + 512 + 3072);
        cubex_tar_close(t);
        unlink(path);
        free(path);
    }
    /* a name too long for the header; unknown size on a pipe */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    cube_status st;
    cubex_tar_writer *w = cubex_tar_writer_open_fd(fds[1], "pipe", &st);
    char longname[128];
    memset(longname, 'a', 101);
    longname[101] = '\0';
    assert_int_equal(cubex_tar_begin(w, longname, 1, 0, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    assert_int_equal(cubex_tar_begin(w, "x", CUBEX_SIZE_UNKNOWN, 0, &st), -1);
    assert_int_equal(st.code, CUBE_EINVAL);
    cubex_tar_writer_free(w);
    close(fds[0]);
    close(fds[1]);
    /* a PAX header whose size record overrides the next header's field,
     * and a GNU long name */
    char arch[512 * 8];
    memset(arch, 0, sizeof arch);
    const char *rec = "12 size=700\n";
    char *h = arch;
    strcpy(h, "PaxHeader/big");
    h[156] = 'x';
    memcpy(h + 257, "ustar\0" "00", 8);
    write_octal(h + 124, 12, strlen(rec));
    memcpy(arch + 512, rec, strlen(rec));
    h = arch + 1024;
    strcpy(h, "big");
    h[156] = '0';
    memcpy(h + 257, "ustar  ", 8);
    write_octal(h + 124, 12, 0);
    memset(arch + 1536, 'B', 700); /* two blocks of content */
    char *p = temp_file_with(arch, sizeof arch);
    cubex_tar *t = cubex_tar_open_path(p, 0, &st);
    if (!t)
        fail_msg("%s", st.message);
    assert_int_equal(t->num_members, 1);
    assert_string_equal(t->members[0].name, "big");
    assert_int_equal(t->members[0].size, 700);
    assert_int_equal(t->members[0].offset, 1536);
    assert_int_equal(t->bad_checksums, 2); /* the checksums were left empty */
    cubex_tar_close(t);
    unlink(p);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_member_tables),
        cmocka_unit_test(test_gzip_archive),
        cmocka_unit_test(test_pipe),
        cmocka_unit_test(test_member_reads_are_bounded),
        cmocka_unit_test(test_fd_offset_and_skipped_entries),
        cmocka_unit_test(test_truncated_archives),
        cmocka_unit_test(test_hostile_headers),
        cmocka_unit_test(test_writer_padding_and_checksums),
        cmocka_unit_test(test_gzip_magic_in_a_member_name),
        cmocka_unit_test(test_writer_reproduces_layout),
        cmocka_unit_test(test_writer_unknown_size_and_pax),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
