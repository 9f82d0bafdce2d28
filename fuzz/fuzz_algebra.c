/*
 * fuzz_algebra.c - the algebra on two small inputs.  The first byte
 * chooses the operation (diff, merge, mean), the matching (full, by name)
 * and the system rule (agree, first, collapse); the rest is split at the
 * first "@@SPLIT@@" (else in half) into two CUBE files, which are read
 * (cube_read) and lined up with the union API, combined with
 * cube_combine (the result written to /dev/null) and compared with
 * cube_compare.  A failure must come with a code and a message, a success
 * with neither (the library's error model).
 */
#include "fuzz_common.h"
#include "cube.h"

#define FUZZ_ALGEBRA_SEP "@@SPLIT@@"

/* A status agrees with the result it came with: a failure has a code and
 * a message, a success has CUBE_OK and "". */
static void fuzz_algebra_check_status(int failed, const cube_status *st)
{
    if (failed ? st->code == CUBE_OK || st->message[0] == '\0'
               : st->code != CUBE_OK || st->message[0] != '\0')
        abort();
}

static void fuzz_algebra_noop(void *user, const char *what, const char *metric,
                              const char *call_path, long long process_rank,
                              long long thread_rank, double a, double b)
{
    (void)user, (void)what, (void)metric, (void)call_path;
    (void)process_rank, (void)thread_rank, (void)a, (void)b;
}

static int fuzz_one_algebra(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned ctl = data[0];
    cube_operation op = (cube_operation)(ctl % 3);
    cube_match match = (cube_match)((ctl / 3) % 2);
    cube_system_rule rule = (cube_system_rule)((ctl / 6) % 3);
    data++, size--;

    size_t seplen = sizeof FUZZ_ALGEBRA_SEP - 1, cut = size / 2, rest = cut;
    for (size_t i = 0; i + seplen <= size; i++)
        if (memcmp(data + i, FUZZ_ALGEBRA_SEP, seplen) == 0) {
            cut = i;
            rest = i + seplen;
            break;
        }
    char a[128], b[128];
    fuzz_write_file("a.cube", data, cut, a, sizeof a);
    fuzz_write_file("b.cube", data + rest, size - rest, b, sizeof b);

    cube_t *ca = cube_create(), *cb = cube_create();
    if (ca && cb && cube_read(ca, a) == 0 && cube_read(cb, b) == 0) {
        cube_union *u = cube_union_create(match, rule);
        int ok = u && cube_union_add(u, ca, "a") == 0 && cube_union_add(u, cb, "b") == 0 &&
                 cube_union_finish(u) == 0;
        if (u && !ok && (cube_union_error_code(u) == CUBE_OK || !cube_union_error(u)[0]))
            abort();
        if (ok) {
            cube_t *res = cube_union_result(u);
            for (size_t k = 0; k < 2; k++) {
                (void)cube_union_metric_map(u, k);
                (void)cube_union_cnode_map(u, k);
                (void)cube_union_thread_map(u, k);
                for (size_t m = 0; m < cube_num_metrics(res); m++) {
                    (void)cube_union_input_has_metric(u, k, m);
                    (void)cube_union_input_has_metric_data(u, k, m);
                }
                for (size_t n = 0; n < cube_num_cnodes(res) && n < 64; n++)
                    (void)cube_union_input_has_cnode(u, k, n);
                for (size_t t = 0; t < cube_num_threads(res) && t < 64; t++)
                    (void)cube_union_input_has_thread(u, k, t);
            }
        }
        if (u)
            cube_union_free(u);
    }
    cube_free(ca);
    cube_free(cb);

    const char *paths[2] = {a, b};
    cube_status st;
    cube_t *res = cube_combine(op, paths, 2, match, rule, &st);
    fuzz_algebra_check_status(res == NULL, &st);
    if (res) {
        (void)cube_write_file(res, "/dev/null", 0);
        cube_free(res);
    }

    size_t ndiff = 0;
    int rc = cube_compare(a, b, match, rule, NULL, fuzz_algebra_noop, NULL, &ndiff, &st);
    if (rc < -1 || rc > 1)
        abort();
    fuzz_algebra_check_status(rc == -1, &st);
    return 0;
}

#ifndef FUZZ_REGRESSION
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_algebra(data, size);
}
#endif
