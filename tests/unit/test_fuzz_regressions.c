/*
 * test_fuzz_regressions.c - every file in testdata/fuzz/<harness>/ (inputs
 * the fuzzers found, fuzz/README.md) fed to the entry point of that
 * harness (fuzz/fuzz_<harness>.c, compiled in here without libFuzzer):
 * it must not crash, leak (under SANITIZE=1) or hang (60 s alarm per
 * file).
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

typedef int (*fuzz_entry)(const uint8_t *data, size_t size);

static void run_dir(const char *harness, fuzz_entry entry)
{
    char dir[256];
    snprintf(dir, sizeof dir, "testdata/fuzz/%s", harness);
    DIR *d = opendir(dir);
    if (!d)
        return; /* no regressions for this harness yet */
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
    }
    closedir(d);
}

static void test_cube_xml(void **state) { (void)state; run_dir("cube_xml", fuzz_one_cube_xml); }
static void test_cube_gzip(void **state) { (void)state; run_dir("cube_gzip", fuzz_one_cube_gzip); }
static void test_statfile(void **state) { (void)state; run_dir("statfile", fuzz_one_statfile); }
static void test_linktest(void **state) { (void)state; run_dir("linktest", fuzz_one_linktest); }
static void test_params(void **state) { (void)state; run_dir("params", fuzz_one_params); }
static void test_algebra(void **state) { (void)state; run_dir("algebra", fuzz_one_algebra); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_xml),  cmocka_unit_test(test_cube_gzip),
        cmocka_unit_test(test_statfile),  cmocka_unit_test(test_linktest),
        cmocka_unit_test(test_params),    cmocka_unit_test(test_algebra),
    };
    return cmocka_run_group_tests(tests, NULL, NULL); /* temporaries: removed at exit */
}
