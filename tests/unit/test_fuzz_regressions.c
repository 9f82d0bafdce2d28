/*
 * test_fuzz_regressions.c - every file in testdata/fuzz/<harness>/ (inputs
 * the fuzzers found, fuzz/README.md) fed to the entry point of that
 * harness (fuzz/fuzz_<harness>.c, compiled in here without libFuzzer):
 * it must not crash, leak (under SANITIZE=1) or hang (60 s alarm per
 * file), and every failure must come with a code and a message (the
 * harnesses abort otherwise).
 */
#define FUZZ_REGRESSION 1
#include "test_support.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>

#include "../../fuzz/fuzz_cube_xml.c"
#include "../../fuzz/fuzz_cube_gzip.c"
#include "../../fuzz/fuzz_statfile.c"
#include "../../fuzz/fuzz_linktest.c"
#include "../../fuzz/fuzz_params.c"
#include "../../fuzz/fuzz_algebra.c"
#include "../../fuzz/fuzz_cubex_tar.c"
#include "../../fuzz/fuzz_cubex_anchor.c"
#include "../../fuzz/fuzz_cubex_read.c"

typedef int (*fuzz_entry)(const uint8_t *data, size_t size);

/* Feed every regular file of `dir` to `entry`; returns how many.  A
 * missing directory is none (testdata/fuzz/<harness>/ exists only once a
 * fuzzer found something there). */
static size_t run_dir(const char *dir, fuzz_entry entry)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        size_t len = 0;
        char *data = slurp(path, &len);
        assert_non_null(data);
        alarm(60);
        entry((const uint8_t *)data, len);
        alarm(0);
        free(data);
        count++;
    }
    closedir(d);
    return count;
}

/* A harness on its regressions and on the test data its corpus is seeded
 * from (valid, tolerated and rejected files): under SANITIZE=1 each must
 * run without a crash, a leak or undefined behaviour. */
static void run_harness(const char *harness, fuzz_entry entry, const char *const *seed_dirs)
{
    char dir[256];
    snprintf(dir, sizeof dir, "testdata/fuzz/%s", harness);
    run_dir(dir, entry);
    for (size_t i = 0; seed_dirs[i]; i++)
        if (run_dir(seed_dirs[i], entry) == 0)
            fail_msg("%s: no seed files in %s", harness, seed_dirs[i]);
}

static const char *const cube_dirs[] = {"testdata/reader", "testdata/hostile", NULL};

static void test_cube_xml(void **state)
{
    (void)state;
    run_harness("cube_xml", fuzz_one_cube_xml, cube_dirs);
}

static void test_cube_gzip(void **state)
{
    (void)state;
    run_harness("cube_gzip", fuzz_one_cube_gzip, cube_dirs);
}

static void test_statfile(void **state)
{
    (void)state;
    static const char *const dirs[] = {"testdata/statfile", NULL};
    run_harness("statfile", fuzz_one_statfile, dirs);
}

static void test_linktest(void **state)
{
    (void)state;
    static const char *const dirs[] = {"testdata/linktest", "testdata/linktest/v1", NULL};
    run_harness("linktest", fuzz_one_linktest, dirs);
}

static void test_params(void **state)
{
    (void)state;
    static const char *const dirs[] = {"bench", NULL}; /* default.par (and the sources) */
    run_harness("params", fuzz_one_params, dirs);
}

static void test_algebra(void **state)
{
    (void)state;
    run_harness("algebra", fuzz_one_algebra, cube_dirs);
}

static void test_cubex_tar(void **state)
{
    (void)state;
    static const char *const dirs[] = {"testdata/cubex", "testdata/hostile", NULL};
    run_harness("cubex_tar", fuzz_one_cubex_tar, dirs);
}

static void test_cubex_anchor(void **state)
{
    (void)state;
    /* CUBE 3 documents (version 3.0, another grammar) and whole archives
     * (not XML): both must be refused or read cleanly */
    static const char *const dirs[] = {"testdata/reader", "testdata/cubex", NULL};
    run_harness("cubex_anchor", fuzz_one_cubex_anchor, dirs);
}

static void test_cubex_read(void **state)
{
    (void)state;
    static const char *const dirs[] = {"testdata/cubex", "testdata/hostile", NULL};
    run_harness("cubex_read", fuzz_one_cubex_read, dirs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_xml),  cmocka_unit_test(test_cube_gzip),
        cmocka_unit_test(test_statfile),  cmocka_unit_test(test_linktest),
        cmocka_unit_test(test_params),    cmocka_unit_test(test_algebra),
        cmocka_unit_test(test_cubex_tar),
        cmocka_unit_test(test_cubex_anchor),
        cmocka_unit_test(test_cubex_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL); /* temporaries: removed at exit */
}
