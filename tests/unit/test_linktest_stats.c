/*
 * test_linktest_stats.c - the analysis of LinkTest runs (linktest_stats.c)
 * against brute force (every measurement collected and sorted), on the
 * shipped files and on written runs large enough for the radix selection
 * of the median to take several rounds; and the CUBE export read back
 * value for value.
 */
#include "test_support.h"
#include "cube.h"
#include "linktest_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every measurement of the selected rows (NULL: all), all iterations, sorted. */
static double *sorted_measurements(cube_linktest *lt, const char *host, size_t *count)
{
    size_t n = cube_linktest_num_ranks(lt), m = cube_linktest_num_permutations(lt), k = 0;
    double *v = malloc((n * n * m + 1) * sizeof *v), *row = malloc((n + 1) * sizeof *row);
    assert_true(v && row);
    for (size_t i = 0; i < m; i++) {
        for (size_t r = 0; r < n; r++) {
            if (host && strcmp(cube_linktest_hostname(lt, r), host) != 0)
                continue;
            assert_int_equal(cube_linktest_read_row(lt, i, r, row), 0);
            assert_true(isnan(row[r]));
            for (size_t c = 0; c < n; c++)
                if (c != r && !isnan(row[c]))
                    v[k++] = row[c];
        }
    }
    free(row);
    qsort(v, k, sizeof *v, cmp_double);
    *count = k;
    return v;
}

static double brute_median(const double *v, size_t k)
{
    return k % 2 ? v[k / 2] : v[k / 2 - 1] + (v[k / 2] - v[k / 2 - 1]) / 2;
}

static void check_stats(const cube_linktest_stats *s, const double *v, size_t k)
{
    assert_int_equal(s->count, k);
    if (k == 0) {
        assert_true(isnan(s->median));
        return;
    }
    assert_true(s->min == v[0]);
    assert_true(s->max == v[k - 1]);
    if (s->median != brute_median(v, k))
        fail_msg("median %a, expected %a (of %zu)", s->median, brute_median(v, k), k);
    /* the mean: compensated, so within an ulp or two of the exact one */
    long double sum = 0;
    for (size_t i = 0; i < k; i++)
        sum += v[i];
    double mean = (double)(sum / (long double)k);
    assert_true(fabs(s->mean - mean) <= 4 * 2.3e-16 * fabs(mean));
}

static void check_run(cube_linktest *lt)
{
    size_t k;
    double *v = sorted_measurements(lt, NULL, &k);
    cube_linktest_stats s;
    assert_int_equal(cube_linktest_time_stats(lt, CUBE_LINKTEST_ALL_ITERATIONS, &s), 0);
    assert_int_equal(cube_linktest_error_code(lt), CUBE_OK);
    assert_string_equal(cube_linktest_error(lt), "");
    check_stats(&s, v, k);

    /* the 7 slowest: the top of the sorted list */
    cube_linktest_link top[7];
    size_t got = 0;
    assert_int_equal(cube_linktest_slowest(lt, 7, top, &got), 0);
    assert_int_equal(got, k < 7 ? k : 7);
    double *row = malloc((cube_linktest_num_ranks(lt) + 1) * sizeof *row);
    assert_non_null(row);
    for (size_t i = 0; i < got; i++) {
        assert_true(top[i].time == v[k - 1 - i]);
        assert_int_equal(cube_linktest_read_row(lt, top[i].iteration, top[i].rank, row), 0);
        assert_true(row[top[i].partner] == top[i].time);
    }
    free(row);
    /* the summary: the same in one go */
    cube_linktest_stats s2;
    cube_linktest_link top2[7];
    size_t got2;
    assert_int_equal(cube_linktest_summarize(lt, &s2, 7, top2, &got2), 0);
    assert_int_equal(got2, got);
    assert_memory_equal(&s2, &s, sizeof s);
    for (size_t i = 0; i < got; i++)
        assert_true(top2[i].rank == top[i].rank && top2[i].partner == top[i].partner &&
                    top2[i].iteration == top[i].iteration &&
                    (top2[i].retested == top[i].retested ||
                     (isnan(top2[i].retested) && isnan(top[i].retested))));
    free(v);

    /* per host: its ranks' rows */
    size_t nh;
    cube_linktest_host *hosts = cube_linktest_hosts(lt, &nh);
    assert_non_null(hosts);
    assert_int_equal(nh, cube_linktest_num_hosts(lt));
    size_t ranks = 0;
    for (size_t h = 0; h < nh; h++) {
        double *hv = sorted_measurements(lt, hosts[h].host, &k);
        check_stats(&hosts[h].stats, hv, k);
        free(hv);
        assert_string_equal(cube_linktest_hostname(lt, hosts[h].first_rank), hosts[h].host);
        if (h)
            assert_true(hosts[h].first_rank > hosts[h - 1].first_rank);
        ranks += hosts[h].num_ranks;
    }
    assert_int_equal(ranks, cube_linktest_num_ranks(lt));
    free(hosts);

    /* the histogram holds every measurement once */
    double edges[13];
    uint64_t counts[12], total = 0;
    assert_int_equal(cube_linktest_histogram(lt, 12, edges, counts), 0);
    for (size_t b = 0; b < 12; b++)
        total += counts[b];
    assert_int_equal(total, s.count);
    assert_true(edges[0] == s.min && edges[12] == s.max);
}

static void test_shipped_files(void **state)
{
    (void)state;
    const char *files[] = {"lt4_basic.sion",      "lt4_bigendian.sion", "lt4_coll.sion",
                           "lt4_multiblock.sion", "lt4_2files.sion",    "lt8_fs64k.sion",
                           "lt2_a2a_M3.sion",     "v1/real_linktest1.2p1_n4.sion"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "linktest/%s", files[i]);
        /* with the matrices in memory, and read from the file as needed */
        for (unsigned flags = 0; flags <= CUBE_LINKTEST_NO_MATRICES; flags += CUBE_LINKTEST_NO_MATRICES) {
            cube_status st;
            cube_linktest *lt = cube_linktest_open_with(testdata(rel), flags, &st);
            if (!lt)
                fail_msg("%s", st.message);
            assert_int_equal(st.code, CUBE_OK);
            check_run(lt);
            cube_linktest_free(lt);
        }
    }
}

/* ---- written runs ---------------------------------------------------------- */

typedef struct {
    unsigned shape; /* 0: spread values, 1: few distinct values (ties), 2: one value */
} run_ctx;

static double time_of(void *ctx, size_t it, size_t r, size_t p)
{
    const run_ctx *c = ctx;
    uint64_t x = (it * 1000003u + r) * 2654435761u ^ (p * 40503u + 17);
    x ^= x >> 13;
    x *= 0x9e3779b97f4a7c15u;
    x ^= x >> 29;
    if (c->shape == 1)
        return (double)(1 + x % 5) * 0x1p-20;
    if (c->shape == 2)
        return 0x1p-20;
    return (double)(1 + x % 1000000) * 0x1p-40;
}

static double a2a_of(void *ctx, size_t it, size_t r)
{
    (void)ctx;
    return (double)(100 + it * 7 + r % 13) * 0x1p-30;
}

static cube_linktest *write_and_open(size_t n, size_t m, unsigned shape, int a2a, char **path,
                                     run_ctx *ctx, unsigned flags)
{
    char **names = malloc(n * sizeof *names);
    assert_non_null(names);
    for (size_t r = 0; r < n; r++) {
        names[r] = malloc(32);
        snprintf(names[r], 32, "node%03zu", r / 48);
    }
    ctx->shape = shape;
    ltw_run run;
    ltw_run_init(&run, n);
    run.hostnames = (const char *const *)names;
    run.time = time_of;
    run.a2a = a2a_of;
    run.ctx = ctx;
    run.header.num_randomized_tasks = m;
    run.header.num_serial_retests = 3;
    run.header.all_to_all = (uint8_t)a2a;
    ltw_layout lay;
    ltw_layout_init(&lay);
    *path = temp_file_with("", 0);
    char err[1024];
    if (ltw_write(*path, &run, &lay, err, sizeof err) != 0)
        fail_msg("%s", err);
    for (size_t r = 0; r < n; r++)
        free(names[r]);
    free(names);
    cube_status st;
    cube_linktest *lt = cube_linktest_open_with(*path, flags, &st);
    if (!lt)
        fail_msg("%s", st.message);
    return lt;
}

/* 300 ranks, 2 iterations: 179 400 measurements, more than the selection
 * copies at once, so the median takes the radix rounds; with spread values,
 * with heavy ties and with one value only. */
static void test_written_runs(void **state)
{
    (void)state;
    run_ctx ctx;
    for (unsigned shape = 0; shape < 6; shape++) {
        char *path;
        unsigned flags = shape < 3 ? CUBE_LINKTEST_NO_ACCESS_PATTERN : CUBE_LINKTEST_NO_MATRICES;
        cube_linktest *lt = write_and_open(300, 2, shape % 3, 1, &path, &ctx, flags);
        assert_null(cube_linktest_get_permutation(lt, 0)->access_pattern);
        assert_true((cube_linktest_get_permutation(lt, 0)->times == NULL) == (shape >= 3));
        check_run(lt);
        /* one iteration alone */
        cube_linktest_stats s;
        assert_int_equal(cube_linktest_time_stats(lt, 1, &s), 0);
        assert_int_equal(s.count, 300 * 299);
        cube_linktest_stats a;
        assert_int_equal(cube_linktest_a2a_stats(lt, &a), 0);
        assert_int_equal(a.count, 600);
        assert_true(a.min == a2a_of(NULL, 0, 0));
        assert_true(a.max == a2a_of(NULL, 1, 12));
        cube_linktest_free(lt);
        unlink(path);
        free(path);
    }
}

/* Hosts: one host made slow is flagged, the others not. */
static double slow_host_time(void *ctx, size_t it, size_t r, size_t p)
{
    (void)ctx;
    (void)it;
    double t = (double)(1000 + (r * 7 + p * 3) % 50) * 0x1p-40;
    return r / 4 == 2 ? t * 1.7 : t;
}

static void test_outlier_host(void **state)
{
    (void)state;
    size_t n = 24;
    const char *names[24];
    char buf[24][16];
    for (size_t r = 0; r < n; r++) {
        snprintf(buf[r], sizeof buf[r], "h%zu", r / 4);
        names[r] = buf[r];
    }
    ltw_run run;
    ltw_run_init(&run, n);
    run.hostnames = names;
    run.time = slow_host_time;
    ltw_layout lay;
    ltw_layout_init(&lay);
    char *path = temp_file_with("", 0), err[1024];
    if (ltw_write(path, &run, &lay, err, sizeof err) != 0)
        fail_msg("%s", err);
    cube_status st;
    cube_linktest *lt = cube_linktest_open(path, &st);
    if (!lt)
        fail_msg("%s", st.message);
    size_t nh;
    cube_linktest_host *hosts = cube_linktest_hosts(lt, &nh);
    assert_int_equal(nh, 6);
    for (size_t h = 0; h < nh; h++) {
        assert_int_equal(hosts[h].num_ranks, 4);
        assert_int_equal(hosts[h].outlier, h == 2 ? 1 : 0);
    }
    free(hosts);
    cube_linktest_free(lt);
    unlink(path);
    free(path);
}

/* ---- the CUBE export ------------------------------------------------------- */

static void test_cube_export(void **state)
{
    (void)state;
    run_ctx ctx;
    char *path;
    size_t n = 40, m = 3;
    cube_linktest *lt = write_and_open(n, m, 0, 1, &path, &ctx, 0);
    char *out = temp_file_with("", 0);
    if (cube_linktest_write_cube(lt, out, 0) != 0)
        fail_msg("%s", cube_linktest_error(lt));
    assert_int_equal(cube_linktest_error_code(lt), CUBE_OK);
    cube_t *c = cube_create();
    if (cube_read(c, out) != 0)
        fail_msg("%s", cube_error(c));
    assert_int_equal(cube_num_threads(c), n);
    assert_int_equal(cube_num_cnodes(c), n + 1);
    const cube_metric *time = cube_find_metric(c, "time");
    const cube_metric *tmin = cube_find_metric(c, "time_min");
    const cube_metric *tmax = cube_find_metric(c, "time_max");
    const cube_metric *bw = cube_find_metric(c, "bandwidth");
    const cube_metric *a2a = cube_find_metric(c, "alltoall");
    const cube_metric *visits = cube_find_metric(c, "visits");
    assert_true(time && tmin && tmax && bw && a2a && visits);
    double messages = (double)cube_linktest_get_header(lt)->num_messages;
    double size = (double)cube_linktest_get_header(lt)->message_size;
    for (size_t p = 0; p < n; p++) {
        const cube_cnode *cn = cube_get_cnode(c, p + 1);
        char name[32];
        snprintf(name, sizeof name, "rank %zu", p);
        assert_string_equal(cube_region_name(cube_cnode_callee(cn)), name);
        for (size_t r = 0; r < n; r++) {
            double v[3], sum = 0, lo = INFINITY, hi = 0;
            for (size_t i = 0; i < m; i++) {
                v[i] = cube_linktest_get_permutation(lt, i)->times[r * n + p];
                sum += v[i];
                lo = v[i] < lo ? v[i] : lo;
                hi = v[i] > hi ? v[i] : hi;
            }
            const cube_thread *t = cube_get_thread(c, r);
            if (r == p) {
                assert_true(cube_get_sev(c, time, cn, t) == 0);
                continue;
            }
            /* times are multiples of 2^-40: the sum of three is exact */
            assert_true(cube_get_sev(c, time, cn, t) == sum / 3);
            assert_true(cube_get_sev(c, tmin, cn, t) == lo);
            assert_true(cube_get_sev(c, tmax, cn, t) == hi);
            assert_true(cube_get_sev(c, bw, cn, t) == size / (sum / 3));
            assert_true(cube_get_sev(c, visits, cn, t) == messages * 3);
        }
    }
    const cube_cnode *root = cube_get_cnode(c, 0);
    assert_string_equal(cube_region_name(cube_cnode_callee(root)), "linktest");
    for (size_t r = 0; r < n; r++) {
        double want = (a2a_of(NULL, 0, r) + a2a_of(NULL, 1, r) + a2a_of(NULL, 2, r)) / 3;
        assert_true(cube_get_sev(c, a2a, root, cube_get_thread(c, r)) == want);
        assert_true(cube_get_sev(c, time, root, cube_get_thread(c, r)) == 0);
        /* node = host name */
        const cube_process *proc = cube_thread_process(cube_get_thread(c, r));
        assert_string_equal(cube_node_name(cube_process_node(proc)), cube_linktest_hostname(lt, r));
        assert_int_equal(cube_process_rank(proc), (int64_t)r);
    }
    cube_free(c);
    /* an unwritable place: an error naming it, nothing left behind */
    assert_int_equal(cube_linktest_write_cube(lt, "/nonexistent/dir/x.cube", 0), -1);
    assert_int_equal(cube_linktest_error_code(lt), CUBE_EIO);
    assert_non_null(strstr(cube_linktest_error(lt), "/nonexistent/dir/x.cube"));
    /* the next successful call on the handle clears it */
    assert_int_equal(cube_linktest_write_cube(lt, out, 0), 0);
    assert_int_equal(cube_linktest_error_code(lt), CUBE_OK);
    assert_string_equal(cube_linktest_error(lt), "");
    cube_linktest_free(lt);
    unlink(out);
    free(out);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_files),
        cmocka_unit_test(test_written_runs),
        cmocka_unit_test(test_outlier_host),
        cmocka_unit_test(test_cube_export),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
