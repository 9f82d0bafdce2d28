/*
 * fuzz_linktest.c - the SION container and LinkTest payload reader
 * (cube_linktest_open_with on a file), opened twice: holding the matrices,
 * and with CUBE_LINKTEST_NO_MATRICES (rows read from the file per pass);
 * on what opens, the analysis: summary, hosts, histogram, a row, and the
 * CUBE export to /dev/null.  A failure must come with a code and a
 * message (the status, or the handle), a success with neither.
 */
#include "fuzz_common.h"
#include "cube.h"
#include "cube_linktest.h"

#include <math.h>

static void fuzz_linktest_analyse(cube_linktest *lt)
{
    for (size_t i = 0; i < cube_linktest_num_warnings(lt); i++)
        (void)cube_linktest_warning(lt, i);
    (void)cube_linktest_get_header(lt);
    size_t n = cube_linktest_num_ranks(lt);
    size_t m = cube_linktest_num_permutations(lt);
    for (size_t r = 0; r < n && r < 8; r++) {
        (void)cube_linktest_hostname(lt, r);
        (void)cube_linktest_core_id(lt, r);
        (void)cube_linktest_stream_bytes(lt, r);
    }
    for (size_t k = 0; k < m && k < 4; k++)
        (void)cube_linktest_get_permutation(lt, k);
    if (n > 0 && m > 0 && n <= 4096) {
        double *row = malloc(n * sizeof *row);
        if (row) {
            (void)cube_linktest_read_row(lt, m - 1, n - 1, row);
            free(row);
        }
    }

    cube_linktest_stats st;
    cube_linktest_link slow[5];
    size_t nslow = 0;
    (void)cube_linktest_summarize(lt, &st, 5, slow, &nslow);
    (void)cube_linktest_a2a_stats(lt, &st);
    if (m > 0)
        (void)cube_linktest_time_stats(lt, 0, &st);

    size_t nh = 0;
    cube_linktest_host *hosts = cube_linktest_hosts(lt, &nh);
    free(hosts);
    (void)cube_linktest_num_hosts(lt);

    double edges[9];
    uint64_t counts[8];
    (void)cube_linktest_histogram(lt, 8, edges, counts);

    if (cube_linktest_write_cube(lt, "/dev/null", 0) == 0
            ? cube_linktest_error_code(lt) != CUBE_OK || cube_linktest_error(lt)[0]
            : cube_linktest_error_code(lt) == CUBE_OK || !cube_linktest_error(lt)[0])
        abort(); /* the handle must say what the return value says */
}

static int fuzz_one_linktest(const uint8_t *data, size_t size)
{
    char path[128];
    fuzz_write_file("in.sion", data, size, path, sizeof path);
    static const unsigned flags[2] = {0, CUBE_LINKTEST_NO_MATRICES};
    for (int i = 0; i < 2; i++) {
        cube_status st;
        cube_linktest *lt = cube_linktest_open_with(path, flags[i], &st);
        if (!lt != (st.code != CUBE_OK) || !lt != (st.message[0] != '\0'))
            abort(); /* a failure needs a reason, a success has none */
        if (lt) {
            fuzz_linktest_analyse(lt);
            cube_linktest_free(lt);
        }
    }
    return 0;
}

#ifndef FUZZ_REGRESSION
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_linktest(data, size);
}
#endif
