/*
 * test_temp_files.c - the registry of open temporary files: a path is
 * listed exactly while its write is open (cube_output_open,
 * cube_write_file_rows, cube_statfile_write), gone after commit and
 * abort; cube_remove_temp_files unlinks exactly the open ones (not a
 * finished output, not a look-alike name) from a signal handler, and makes
 * later writes fail; threads opening and closing outputs while another
 * lists them never show a torn or stale name.  The tests that call
 * cube_remove_temp_files run in a child process: it is final for the
 * process.
 */
#include "test_support.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LISTED 64

typedef struct {
    size_t n;
    char paths[MAX_LISTED][512];
} listed;

static void collect(const char *path, void *user)
{
    listed *l = user;
    if (l->n < MAX_LISTED)
        snprintf(l->paths[l->n], sizeof l->paths[0], "%s", path);
    l->n++;
}

static listed list_now(void)
{
    listed l = {0};
    size_t n = cube_list_temp_files(collect, &l);
    assert_int_equal(n, l.n);
    return l;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The name of a temporary file of `out`: "OUT.tmp." and six characters. */
static int is_temp_of(const char *tmp, const char *out)
{
    size_t n = strlen(out);
    return strncmp(tmp, out, n) == 0 && strncmp(tmp + n, ".tmp.", 5) == 0 &&
           strlen(tmp + n + 5) == 6;
}

static void output_listed_while_open(void **state)
{
    (void)state;
    assert_int_equal(list_now().n, 0);
    char *a = temp_path(".txt"), *b = temp_path(".txt");
    cube_status st;
    cube_output *oa = cube_output_open(a, &st);
    assert_non_null(oa);
    assert_int_equal(st.code, CUBE_OK);
    assert_string_equal(st.message, "");
    cube_output *ob = cube_output_open(b, NULL);
    assert_non_null(ob);
    fputs("a\n", cube_output_stream(oa));
    listed l = list_now();
    assert_int_equal(l.n, 2);
    /* newest first or not: one is a's, the other b's, and both exist */
    int ia = is_temp_of(l.paths[0], a) ? 0 : 1;
    assert_true(is_temp_of(l.paths[ia], a));
    assert_true(is_temp_of(l.paths[1 - ia], b));
    assert_true(exists(l.paths[0]) && exists(l.paths[1]));
    assert_false(exists(a));

    /* committed: in place, no longer listed, its temporary file renamed */
    assert_int_equal(cube_output_close(oa, 1, &st), 0);
    assert_int_equal(st.code, CUBE_OK);
    assert_string_equal(st.message, "");
    listed after = list_now();
    assert_int_equal(after.n, 1);
    assert_true(is_temp_of(after.paths[0], b));
    assert_false(exists(l.paths[ia]));
    size_t len;
    char *text = slurp(a, &len);
    assert_string_equal(text, "a\n");
    free(text);

    /* discarded: the temporary file removed, nothing at b */
    assert_int_equal(cube_output_close(ob, 0, NULL), 0);
    assert_int_equal(list_now().n, 0);
    assert_false(exists(l.paths[1 - ia]));
    assert_false(exists(b));
    unlink(a);
    free(a);
    free(b);
}

/* Standard output and a file that is not a regular one are written in
 * place: nothing to register. */
static void direct_outputs_not_listed(void **state)
{
    (void)state;
    cube_status st;
    cube_output *o = cube_output_open("/dev/null", &st);
    assert_non_null(o);
    cube_output *s = cube_output_open("-", &st);
    assert_non_null(s);
    assert_ptr_equal(cube_output_stream(s), stdout);
    assert_int_equal(list_now().n, 0);
    assert_int_equal(cube_output_close(o, 1, &st), 0);
    assert_int_equal(cube_output_close(s, 1, &st), 0);
    assert_int_equal(st.code, CUBE_OK);
}

/* A row source that looks at the registry in the middle of the write. */
typedef struct {
    const cube_t *c;
    int calls;
    listed seen;
} row_job;

static int next_row(void *ctx, const cube_metric **met, const cube_cnode **cnode,
                    const double **values)
{
    row_job *j = ctx;
    static const double one = 1.0;
    if (j->calls++ > 0)
        return 0;
    j->seen = list_now();
    *met = cube_get_metric(j->c, 0);
    *cnode = cube_get_cnode(j->c, 0);
    *values = &one;
    return 1;
}

static void experiment_listed_while_written(void **state)
{
    (void)state;
    cube_t *c = deep_call_chain(3);
    char *out = temp_path(".cube");
    row_job j = {c, 0, {0}};
    assert_int_equal(cube_write_file_rows(c, out, 0, next_row, &j), 0);
    assert_int_equal(j.seen.n, 1);
    assert_true(is_temp_of(j.seen.paths[0], out));
    assert_int_equal(list_now().n, 0);
    assert_false(exists(j.seen.paths[0]));
    assert_true(exists(out));

    /* a failed write (a non-finite value) is not left registered either */
    j.calls = 0;
    static const double nan_row = 0.0 / 0.0;
    cube_set_sev(c, cube_get_metric(c, 0), cube_get_cnode(c, 1), cube_get_thread(c, 0), nan_row);
    assert_int_equal(cube_write_file(c, out, 0), -1);
    assert_int_not_equal(cube_error_code(c), CUBE_OK);
    assert_true(cube_error(c)[0] != '\0');
    assert_int_equal(list_now().n, 0);
    unlink(out);
    free(out);
    cube_free(c);
}

/* --- many threads ------------------------------------------------------- */

#define WRITERS 4
#define ROUNDS 300

static char *thread_out[WRITERS];
static atomic_int writers_done;

static void *writer(void *arg)
{
    size_t k = (size_t)arg;
    cube_status st;
    void *rc = NULL;
    for (int r = 0; r < ROUNDS && !rc; r++) {
        cube_output *o = cube_output_open(thread_out[k], &st);
        if (!o) {
            rc = (void *)1;
            break;
        }
        fprintf(cube_output_stream(o), "%zu %d\n", k, r);
        if (cube_output_close(o, r % 2, &st) != 0)
            rc = (void *)1;
    }
    atomic_fetch_add(&writers_done, 1);
    return rc;
}

/* Every name the lister sees is whole: a temporary name of one of the
 * outputs. */
static void check_name(const char *path, void *user)
{
    int *bad = user;
    for (size_t k = 0; k < WRITERS; k++)
        if (is_temp_of(path, thread_out[k]))
            return;
    (*bad)++;
}

static void threads_open_close_while_listed(void **state)
{
    (void)state;
    pthread_t t[WRITERS];
    for (size_t k = 0; k < WRITERS; k++)
        thread_out[k] = temp_path(".out");
    atomic_store(&writers_done, 0);
    for (size_t k = 0; k < WRITERS; k++)
        assert_int_equal(pthread_create(&t[k], NULL, writer, (void *)k), 0);
    /* (a walk is no snapshot: a thread that closes an output and opens the
     * next while the lister passes may be seen twice) */
    int bad = 0;
    size_t walks = 0;
    while (atomic_load(&writers_done) < WRITERS) {
        cube_list_temp_files(check_name, &bad);
        walks++;
    }
    for (size_t k = 0; k < WRITERS; k++) {
        void *rc;
        assert_int_equal(pthread_join(t[k], &rc), 0);
        assert_null(rc);
    }
    assert_int_equal(bad, 0);
    assert_true(walks > 0);
    assert_int_equal(list_now().n, 0);
    for (size_t k = 0; k < WRITERS; k++) {
        /* the last round (an odd one) committed */
        size_t len;
        char *text = slurp(thread_out[k], &len);
        char want[32];
        snprintf(want, sizeof want, "%zu %d\n", k, ROUNDS - 1);
        assert_string_equal(text, want);
        free(text);
        unlink(thread_out[k]);
        free(thread_out[k]);
    }
}

/* --- removal (in a child: it is final for the process) ------------------ */

/* Run `body` in a child process; its exit status must be 0 (a failed check
 * in the child exits with the line number). */
static void in_child(int (*body)(void), int want_signal)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(body());
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (want_signal) {
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), want_signal);
    } else {
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
}

#define CHILD_CHECK(cond)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return __LINE__ % 250 + 1;                                                             \
    } while (0)

static char *done_path, *open_paths[3], *lookalike;
static listed open_tmps;

/* Three outputs open, one finished, a file named like a temporary one
 * that libcube did not make: removal unlinks the three temporary files
 * only. */
static int remove_exactly_open(void)
{
    cube_status st;
    cube_output *done = cube_output_open(done_path, &st);
    CHILD_CHECK(done);
    fputs("done\n", cube_output_stream(done));
    CHILD_CHECK(cube_output_close(done, 1, &st) == 0);
    cube_output *o[3];
    for (int i = 0; i < 3; i++) {
        o[i] = cube_output_open(open_paths[i], &st);
        CHILD_CHECK(o[i]);
        fputs("partial\n", cube_output_stream(o[i]));
        fflush(cube_output_stream(o[i]));
    }
    listed l = {0};
    CHILD_CHECK(cube_list_temp_files(collect, &l) == 3);
    CHILD_CHECK(cube_remove_temp_files() == 3);
    for (size_t i = 0; i < l.n; i++)
        CHILD_CHECK(!exists(l.paths[i]));
    CHILD_CHECK(exists(done_path) && exists(lookalike));
    for (int i = 0; i < 3; i++)
        CHILD_CHECK(!exists(open_paths[i]));
    /* nothing left to remove; a write after the removal is refused, and
     * one that was open cannot be committed any more */
    CHILD_CHECK(cube_remove_temp_files() == 0);
    CHILD_CHECK(!cube_output_open(open_paths[0], &st));
    CHILD_CHECK(st.code == CUBE_ECANCELED);
    CHILD_CHECK(strstr(st.message, "cannot create the output"));
    CHILD_CHECK(cube_output_close(o[0], 1, &st) == -1);
    CHILD_CHECK(st.code != CUBE_OK && st.message[0]);
    CHILD_CHECK(!exists(open_paths[0]));
    for (int i = 1; i < 3; i++)
        CHILD_CHECK(cube_output_close(o[i], 0, NULL) == 0);
    return 0;
}

static void removal_unlinks_exactly_the_open_ones(void **state)
{
    (void)state;
    done_path = temp_path(".done");
    lookalike = temp_path(".tmp.abcdef");
    FILE *fp = fopen(lookalike, "w");
    assert_non_null(fp);
    fclose(fp);
    for (int i = 0; i < 3; i++)
        open_paths[i] = temp_path(".open");
    in_child(remove_exactly_open, 0);
    size_t len;
    char *text = slurp(done_path, &len);
    assert_string_equal(text, "done\n");
    free(text);
    assert_true(exists(lookalike));
    unlink(done_path);
    unlink(lookalike);
    free(done_path);
    free(lookalike);
    for (int i = 0; i < 3; i++)
        free(open_paths[i]);
}

/* The handler of libcube(3)'s example: remove, then die of the signal. */
static void on_signal(int sig)
{
    cube_remove_temp_files();
    signal(sig, SIG_DFL);
    raise(sig);
}

static char *interrupted_path;

static int interrupted_write(void)
{
    signal(SIGTERM, on_signal);
    cube_output *o = cube_output_open(interrupted_path, NULL);
    CHILD_CHECK(o);
    fputs("partial\n", cube_output_stream(o));
    fflush(cube_output_stream(o));
    CHILD_CHECK(cube_list_temp_files(collect, &open_tmps) == 1);
    raise(SIGTERM);
    return 99; /* not reached */
}

static void handler_removes_on_signal(void **state)
{
    (void)state;
    interrupted_path = temp_path(".cube");
    FILE *fp = fopen(interrupted_path, "w");
    assert_non_null(fp);
    fputs("earlier\n", fp);
    fclose(fp);
    in_child(interrupted_write, SIGTERM);
    size_t len;
    char *text = slurp(interrupted_path, &len);
    assert_string_equal(text, "earlier\n");
    free(text);
    /* the child's temporary file: its name is "PATH.tmp.XXXXXX"; none is
     * left in the directory */
    char *dir = strdup(interrupted_path);
    char *slash = strrchr(dir, '/');
    *slash = '\0';
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '^%s\\.tmp\\.'", dir, slash + 1);
    assert_int_not_equal(system(cmd), 0);
    unlink(interrupted_path);
    free(interrupted_path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_listed_while_open),
        cmocka_unit_test(direct_outputs_not_listed),
        cmocka_unit_test(experiment_listed_while_written),
        cmocka_unit_test(threads_open_close_while_listed),
        cmocka_unit_test(removal_unlinks_exactly_the_open_ones),
        cmocka_unit_test(handler_removes_on_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
