/*
 * test_cloexec.c - every descriptor the library opens is close-on-exec, so
 * that a program that starts another (a shell-out, an MPI launcher) passes
 * none of them on: the input of a reader (by path and by a caller's
 * descriptor), the temporary file of an output, the files of a LinkTest
 * set (kept open when its rows are read on demand).
 */
#include "test_support.h"

#include "cube_linktest.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* bit i set: descriptor i is open (descriptors below 256) */
typedef struct {
    unsigned char open[256];
} fd_set_t;

static void open_fds(fd_set_t *s)
{
    memset(s, 0, sizeof *s);
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        for (int fd = 0; fd < 256; fd++)
            s->open[fd] = fcntl(fd, F_GETFD) != -1;
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd < 256 && fd != dirfd(d))
            s->open[fd] = 1;
    }
    closedir(d);
}

/* every descriptor open now and not in `before` is close-on-exec; returns
 * how many there are */
static int check_new_fds(const fd_set_t *before, const char *what)
{
    fd_set_t now;
    open_fds(&now);
    int n = 0;
    for (int fd = 0; fd < 256; fd++) {
        if (!now.open[fd] || before->open[fd])
            continue;
        n++;
        int flags = fcntl(fd, F_GETFD);
        if (flags == -1 || !(flags & FD_CLOEXEC))
            fail_msg("%s: descriptor %d is not close-on-exec", what, fd);
    }
    return n;
}

static void test_reader(void **state)
{
    (void)state;
    fd_set_t before;
    open_fds(&before);
    cube_reader *r = cube_reader_open(testdata("cube/scalasca_trace.cube"));
    assert_non_null(r);
    assert_non_null(cube_reader_definitions(r));
    assert_true(check_new_fds(&before, "cube_reader_open") >= 1);
    cube_reader_close(r);

    int fd = open(testdata("cube/scalasca_trace.cube"), O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    open_fds(&before);
    r = cube_reader_open_fd(fd, "scalasca_trace.cube");
    assert_non_null(r);
    assert_non_null(cube_reader_definitions(r));
    /* its own copy of the caller's descriptor */
    assert_true(check_new_fds(&before, "cube_reader_open_fd") >= 1);
    cube_reader_close(r);
    close(fd);
}

static void test_output(void **state)
{
    (void)state;
    char *path = temp_path(".cube");
    fd_set_t before;
    open_fds(&before);
    cube_status st;
    cube_output *out = cube_output_open(path, &st);
    if (!out)
        fail_msg("%s", st.message);
    assert_int_equal(st.code, CUBE_OK);
    /* the temporary file beside `path` */
    assert_true(check_new_fds(&before, "cube_output_open") >= 1);
    assert_int_equal(cube_output_close(out, 0, &st), 0);
    assert_int_equal(st.code, CUBE_OK);
    free(path);
}

static void test_linktest(void **state)
{
    (void)state;
    /* without matrices the set stays open: rows are read when asked for */
    static const char *const sets[] = {"linktest/lt4_2files.sion", "linktest/lt4_basic.sion"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        fd_set_t before;
        open_fds(&before);
        cube_status st;
        cube_linktest *lt = cube_linktest_open_with(testdata(sets[i]), CUBE_LINKTEST_NO_MATRICES,
                                                    &st);
        if (!lt)
            fail_msg("%s", st.message);
        assert_true(check_new_fds(&before, sets[i]) >= 1);
        cube_linktest_free(lt);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader),
        cmocka_unit_test(test_output),
        cmocka_unit_test(test_linktest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
