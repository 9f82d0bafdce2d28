/*
 * test_severity_store.c - the sparse row store: rows spread over many value
 * chunks, look-ups after appends and additions (Robin Hood order at a load
 * of up to 3/4), widening, clearing, sorting, against a plain reference.
 *
 * A test of internals: it includes core/severity_store_private.h, the
 * store under cube_t's rows, and looks into its slots.
 */
#include "test_support.h"
#include "core/severity_store_private.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A value that tells rows and threads apart. */
static double value_of(size_t metric, size_t cnode, size_t t)
{
    return (double)metric * 1e6 + (double)cnode + (double)t / 8.0;
}

/* A store as the model starts it: all zero. */
static severity_store empty_store(void)
{
    severity_store s;
    memset(&s, 0, sizeof s);
    return s;
}

/* The table never holds more than 3/4 as many rows as slots, and every row
 * has its values where the accessor says. */
static void check_invariants(const severity_store *s)
{
    if (s->num_slots) {
        assert_int_equal(s->num_slots & (s->num_slots - 1), 0);
        assert_true(s->num_indexed * 4 <= s->num_slots * 3);
        size_t used = 0;
        for (size_t i = 0; i < s->num_slots; i++)
            used += s->slots[i] != 0;
        assert_int_equal(used, s->num_indexed);
    }
    assert_true(s->num_indexed <= s->num_rows);
}

static void fill_row(double *row, size_t metric, size_t cnode, size_t n)
{
    for (size_t t = 0; t < n; t++)
        row[t] = value_of(metric, cnode, t);
}

static void expect_row(const double *row, size_t metric, size_t cnode, size_t n, size_t zeros_from)
{
    assert_non_null(row);
    for (size_t t = 0; t < n; t++) {
        double want = t < zeros_from ? value_of(metric, cnode, t) : 0.0;
        if (row[t] != want)
            fail_msg("row (%zu, %zu) thread %zu: %g, want %g", metric, cnode, t, row[t], want);
    }
}

/* 100 000 rows of 2 values: several chunks.  Appended rows keep their
 * addresses while more are added, and are found once indexed. */
static void test_append_then_find(void **state)
{
    (void)state;
    enum { N = 100000, M = 5 };
    severity_store s = empty_store();
    s.row_len = 2; /* set directly while empty, as cube_compare does */
    double **given = malloc(N * sizeof *given);
    assert_non_null(given);
    for (size_t i = 0; i < N; i++) {
        size_t metric = i % M, cnode = i / M;
        given[i] = sev_store_append(&s, metric, cnode);
        assert_non_null(given[i]);
        assert_true(given[i][0] == 0.0 && given[i][1] == 0.0);
        fill_row(given[i], metric, cnode, 2);
    }
    assert_int_equal(s.num_rows, N);
    assert_true(s.num_chunks > 2);
    assert_int_equal(s.num_indexed, 0);
    assert_int_equal(s.num_slots, 0);
    for (size_t i = 0; i < N; i++) {
        assert_ptr_equal(sev_row_values(&s, i), given[i]);
        assert_int_equal(s.rows[i].metric, i % M);
        assert_int_equal(s.rows[i].cnode, i / M);
    }
    /* found before they are indexed, by a look-up that changes nothing
     * (threads may share a store that no one changes) */
    assert_ptr_equal(sev_store_find(&s, 3, 17), given[17 * M + 3]);
    assert_ptr_equal(sev_store_find(&s, M - 1, N / M - 1), given[N - 1]);
    assert_null(sev_store_find(&s, M, 0));
    assert_int_equal(s.num_indexed, 0);
    assert_int_equal(s.num_slots, 0);
    /* indexing puts every row in the hash table */
    assert_int_equal(sev_store_index(&s), 0);
    assert_int_equal(s.num_indexed, N);
    check_invariants(&s);
    for (size_t i = 0; i < N; i++) {
        const double *row = sev_store_find(&s, i % M, i / M);
        assert_ptr_equal(row, given[i]);
        expect_row(row, i % M, i / M, 2, 2);
    }
    /* absent: other metrics, cnodes past the end, huge indexes */
    for (size_t i = 0; i < 1000; i++) {
        assert_null(sev_store_find(&s, M + i % 7, i));
        assert_null(sev_store_find(&s, i % M, N / M + i));
    }
    assert_null(sev_store_find(&s, UINT32_MAX, UINT32_MAX));
    /* more appends after indexing: found before the next sev_store_index
     * and after it */
    for (size_t i = 0; i < 1000; i++) {
        double *row = sev_store_append(&s, M, i);
        assert_non_null(row);
        fill_row(row, M, i, 2);
    }
    assert_int_equal(s.num_indexed, N);
    for (size_t i = 0; i < 1000; i++)
        expect_row(sev_store_find(&s, M, i), M, i, 2, 2);
    assert_int_equal(s.num_indexed, N);
    assert_int_equal(sev_store_index(&s), 0);
    assert_int_equal(s.num_indexed, N + 1000);
    for (size_t i = 0; i < 1000; i++)
        expect_row(sev_store_find(&s, M, i), M, i, 2, 2);
    check_invariants(&s);
    for (size_t i = 0; i < N; i++)
        assert_ptr_equal(sev_store_find(&s, i % M, i / M), given[i]);
    free(given);
    sev_store_free(&s);
    assert_int_equal(s.num_rows, 0);
    assert_null(s.rows);
    assert_null(s.chunks);
}

/* A reference: the row of (metric, cnode) in a dense table, or NULL. */
enum { REF_M = 7, REF_C = 30011 };

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Random get_or_add, find and append against the reference: the table
 * grows through several sizes, with many entries moved by Robin Hood. */
static void test_random_against_reference(void **state)
{
    (void)state;
    double **ref = calloc((size_t)REF_M * REF_C, sizeof *ref);
    assert_non_null(ref);
    severity_store s = empty_store();
    assert_int_equal(sev_store_set_row_len(&s, 3), 0);
    uint64_t x = 88172645463325252ULL;
    size_t present = 0;
    for (size_t step = 0; step < 300000; step++) {
        size_t metric = next_random(&x) % REF_M, cnode = next_random(&x) % REF_C;
        double **want = &ref[metric * REF_C + cnode];
        switch (next_random(&x) % 4) {
        case 0:
        case 1: {
            double *row = sev_store_get_or_add(&s, metric, cnode);
            assert_non_null(row);
            if (*want) {
                assert_ptr_equal(row, *want);
            } else {
                assert_true(row[0] == 0.0 && row[1] == 0.0 && row[2] == 0.0);
                fill_row(row, metric, cnode, 3);
                *want = row;
                present++;
            }
            break;
        }
        case 2:
            assert_ptr_equal(sev_store_find(&s, metric, cnode), *want);
            break;
        default:
            if (!*want) { /* append only what is absent, as the reader does */
                double *row = sev_store_append(&s, metric, cnode);
                assert_non_null(row);
                fill_row(row, metric, cnode, 3);
                *want = row;
                present++;
            }
            break;
        }
        if (step % 50000 == 0)
            check_invariants(&s);
    }
    assert_int_equal(s.num_rows, present);
    assert_true(s.num_chunks > 4);
    for (size_t m = 0; m < REF_M; m++)
        for (size_t c = 0; c < REF_C; c++) {
            const double *row = sev_store_find(&s, m, c);
            assert_ptr_equal(row, ref[m * REF_C + c]);
            if (row)
                expect_row(row, m, c, 3, 3);
        }
    check_invariants(&s);
    assert_int_equal(s.num_indexed, s.num_rows);

    /* the sorted order is by (metric, cnode) and covers every row once */
    size_t *order = sev_store_sorted(&s);
    assert_non_null(order);
    for (size_t k = 1; k < s.num_rows; k++) {
        const severity_row *a = &s.rows[order[k - 1]], *b = &s.rows[order[k]];
        assert_true(a->metric < b->metric || (a->metric == b->metric && a->cnode < b->cnode));
    }
    free(order);
    free(ref);
    sev_store_free(&s);
}

/* Widening moves every row into the new layout (fewer rows per chunk): the
 * values stay, the new ones are 0, look-ups and additions still work. */
static void test_widen(void **state)
{
    (void)state;
    enum { N = 70000 };
    severity_store s = empty_store();
    assert_int_equal(sev_store_set_row_len(&s, 2), 0);
    for (size_t i = 0; i < N; i++) {
        double *row = i % 2 ? sev_store_get_or_add(&s, i % 3, i) : sev_store_append(&s, i % 3, i);
        assert_non_null(row);
        fill_row(row, i % 3, i, 2);
    }
    size_t chunks_before = s.num_chunks;
    assert_int_equal(sev_store_set_row_len(&s, 2), 0); /* no change */
    assert_int_equal(sev_store_set_row_len(&s, 1), 0); /* rows never narrow */
    assert_int_equal(s.row_len, 2);
    assert_int_equal(sev_store_set_row_len(&s, 5), 0);
    assert_int_equal(s.row_len, 5);
    assert_true(s.num_chunks > chunks_before);
    for (size_t i = 0; i < N; i++) {
        expect_row(sev_store_find(&s, i % 3, i), i % 3, i, 5, 2);
        expect_row(sev_row_values(&s, i), i % 3, i, 5, 2);
    }
    /* rows added after widening have the new length */
    double *row = sev_store_get_or_add(&s, 9, 9);
    assert_non_null(row);
    for (size_t t = 0; t < 5; t++)
        assert_true(row[t] == 0.0);
    fill_row(row, 9, 9, 5);
    row = sev_store_append(&s, 9, 10);
    assert_non_null(row);
    fill_row(row, 9, 10, 5);
    expect_row(sev_store_find(&s, 9, 9), 9, 9, 5, 5);
    expect_row(sev_store_find(&s, 9, 10), 9, 10, 5, 5);
    expect_row(sev_store_find(&s, 1, 1), 1, 1, 5, 2);
    check_invariants(&s);
    sev_store_free(&s);
}

/* Rows added before any thread have room for one value, which widening
 * keeps; rows wider than a chunk get a chunk each. */
static void test_no_threads_then_wide(void **state)
{
    (void)state;
    severity_store s = empty_store();
    for (size_t i = 0; i < 10; i++) {
        double *row = sev_store_get_or_add(&s, 0, i);
        assert_non_null(row);
        row[0] = (double)i + 0.5;
    }
    assert_int_equal(s.row_len, 0);
    assert_int_equal(sev_store_set_row_len(&s, 1), 0); /* the room is there */
    for (size_t i = 0; i < 10; i++)
        assert_true(sev_store_find(&s, 0, i)[0] == (double)i + 0.5);
    size_t wide = 70000; /* more doubles than a chunk holds */
    assert_int_equal(sev_store_set_row_len(&s, wide), 0);
    assert_int_equal(s.num_chunks, 10);
    for (size_t i = 0; i < 10; i++) {
        const double *row = sev_store_find(&s, 0, i);
        assert_non_null(row);
        assert_true(row[0] == (double)i + 0.5);
        assert_true(row[1] == 0.0 && row[wide - 1] == 0.0);
    }
    double *row = sev_store_append(&s, 1, 0);
    assert_non_null(row);
    row[wide - 1] = 42.0;
    assert_int_equal(s.num_chunks, 11);
    assert_true(sev_store_find(&s, 1, 0)[wide - 1] == 42.0);
    assert_true(sev_store_find(&s, 0, 9)[0] == 9.5);
    sev_store_free(&s);
}

/* Clearing drops the rows and the index, keeps the row length, and the
 * store fills again as new (the algebra gathers twice into one store). */
static void test_clear(void **state)
{
    (void)state;
    severity_store s = empty_store();
    s.row_len = 4;
    for (size_t i = 0; i < 50000; i++)
        fill_row(sev_store_get_or_add(&s, 1, i), 1, i, 4);
    sev_store_clear(&s);
    assert_int_equal(s.row_len, 4);
    assert_int_equal(s.num_rows, 0);
    assert_int_equal(s.num_indexed, 0);
    assert_int_equal(s.num_chunks, 0);
    assert_null(sev_store_find(&s, 1, 0));
    assert_null(sev_store_sorted(&s));
    for (size_t i = 0; i < 50000; i++) {
        double *row = sev_store_append(&s, 2, i);
        assert_non_null(row);
        for (size_t t = 0; t < 4; t++)
            assert_true(row[t] == 0.0);
        fill_row(row, 2, i, 4);
    }
    assert_null(sev_store_find(&s, 1, 7));
    expect_row(sev_store_find(&s, 2, 49999), 2, 49999, 4, 4);
    assert_int_equal(sev_store_index(&s), 0);
    for (size_t i = 0; i < 50000; i++)
        expect_row(sev_store_find(&s, 2, i), 2, i, 4, 4);
    check_invariants(&s);
    sev_store_free(&s);
}

/* Indexes the store cannot key are refused, not truncated. */
/* The order for writing: metrics in index order whatever order they came
 * in, each metric's rows by cnode, whether they were created in order
 * (only checked) or not (sorted), every row once. */
static void test_sorted_order(void **state)
{
    (void)state;
    severity_store s = empty_store();
    s.row_len = 1;
    for (size_t i = 0; i < 1000; i++) /* metric 3 in order, then metric 0 reversed */
        *sev_store_append(&s, 3, i) = 1.0;
    for (size_t i = 1000; i-- > 0;)
        *sev_store_append(&s, 0, 2 * i) = 1.0;
    for (size_t i = 0; i < 500; i++) /* metric 1 interleaved: odd cnodes, then even */
        *sev_store_append(&s, 1, i < 250 ? 2 * i + 1 : 2 * (i - 250)) = 1.0;
    size_t *order = sev_store_sorted(&s);
    assert_non_null(order);
    unsigned char *seen = calloc(s.num_rows, 1);
    for (size_t k = 0; k < s.num_rows; k++) {
        assert_false(seen[order[k]]);
        seen[order[k]] = 1;
        const severity_row *b = &s.rows[order[k]];
        size_t want_metric = k < 1000 ? 0 : k < 1500 ? 1 : 3;
        size_t want_cnode = k < 1000 ? 2 * k : k < 1500 ? k - 1000 : k - 1500;
        assert_int_equal(b->metric, want_metric);
        assert_int_equal(b->cnode, want_cnode);
    }
    free(seen);
    free(order);
    sev_store_free(&s);
}

/* Rows asked for in key order are appended without the hash table, and a
 * second pass in the same order (the algebra's second input) finds each at
 * the cursor: no table is built.  They are found by bisection meanwhile;
 * a key out of order indexes them and the store keeps working as before. */
static void test_in_order(void **state)
{
    (void)state;
    enum { M = 3, C = 40000 };
    severity_store s = empty_store();
    s.row_len = 2;
    double **given = malloc((size_t)M * C * sizeof *given);
    assert_non_null(given);
    for (int pass = 0; pass < 2; pass++)
        for (size_t m = 0; m < M; m++)
            for (size_t c = 0; c < C; c++) {
                double *row = sev_store_get_or_add(&s, m, 2 * c);
                assert_non_null(row);
                if (pass == 0) {
                    assert_true(row[0] == 0.0 && row[1] == 0.0);
                    fill_row(row, m, 2 * c, 2);
                    given[m * C + c] = row;
                } else {
                    assert_ptr_equal(row, given[m * C + c]);
                }
            }
    assert_int_equal(s.num_rows, (size_t)M * C);
    assert_int_equal(s.num_slots, 0);
    assert_int_equal(s.num_indexed, 0);
    assert_false(s.unordered);
    for (size_t m = 0; m < M; m++) {
        expect_row(sev_store_find(&s, m, 0), m, 0, 2, 2);
        expect_row(sev_store_find(&s, m, 2 * C - 2), m, 2 * C - 2, 2, 2);
        assert_null(sev_store_find(&s, m, 1));
        assert_null(sev_store_find(&s, m, 2 * C - 1));
        assert_null(sev_store_find(&s, m, 2 * C));
    }
    assert_null(sev_store_find(&s, M, 0));
    /* the rows of one metric again, from the middle: each found */
    for (size_t c = C / 2; c < C; c++)
        assert_ptr_equal(sev_store_get_or_add(&s, 1, 2 * c), given[C + c]);
    /* new rows between the others: the table takes over */
    for (size_t c = 0; c < C; c++) {
        double *row = sev_store_get_or_add(&s, 1, 2 * c + 1);
        assert_non_null(row);
        assert_true(row[0] == 0.0 && row[1] == 0.0);
        fill_row(row, 1, 2 * c + 1, 2);
    }
    assert_true(s.unordered);
    assert_int_equal(s.num_rows, (size_t)M * C + C);
    check_invariants(&s);
    for (size_t m = 0; m < M; m++)
        for (size_t c = 0; c < 2 * C; c++) {
            const double *row = sev_store_find(&s, m, c);
            if (c % 2 == 0)
                assert_ptr_equal(row, given[m * C + c / 2]);
            else if (m == 1)
                expect_row(row, m, c, 2, 2);
            else
                assert_null(row);
        }
    /* sev_store_sorted sees the new rows in their place */
    size_t *order = sev_store_sorted(&s);
    assert_non_null(order);
    for (size_t k = 0; k < s.num_rows; k++) {
        const severity_row *r = &s.rows[order[k]];
        size_t want_metric = k < C ? 0 : k < 3 * C ? 1 : 2;
        size_t want_cnode = k < C ? 2 * k : k < 3 * C ? k - C : 2 * (k - 3 * C);
        assert_int_equal(r->metric, want_metric);
        assert_int_equal(r->cnode, want_cnode);
    }
    free(order);
    free(given);
    sev_store_free(&s);
}

/* Runs of rows appended at once: as many as the chunk holds, their values
 * one after the other (not zeroed: the caller writes them), then found
 * like any row; a run out of key order makes the store unordered. */
static void test_append_run(void **state)
{
    (void)state;
    enum { N = 20000, W = 3 };
    severity_store s = empty_store();
    s.row_len = W;
    size_t *cnodes = malloc(N * sizeof *cnodes);
    assert_non_null(cnodes);
    for (size_t i = 0; i < N; i++)
        cnodes[i] = 2 * i;
    size_t done = 0, runs = 0;
    while (done < N) {
        size_t added;
        double *v = sev_store_append_run(&s, 1, cnodes + done, N - done, &added);
        assert_non_null(v);
        assert_true(added >= 1 && added <= N - done);
        for (size_t r = 0; r < added; r++) {
            assert_ptr_equal(v + r * W, sev_row_values(&s, done + r));
            fill_row(v + r * W, 1, 2 * (done + r), W);
        }
        done += added;
        runs++;
    }
    assert_int_equal(s.num_rows, N);
    assert_true(runs > 1 && runs == s.num_chunks); /* a run ends with its chunk */
    assert_false(s.unordered);
    for (size_t i = 0; i < N; i++)
        expect_row(sev_store_find(&s, 1, 2 * i), 1, 2 * i, W, W);
    assert_null(sev_store_find(&s, 1, 1));
    size_t added;
    assert_null(sev_store_append_run(&s, 1, cnodes, 0, &added));
    assert_int_equal(added, 0);
    /* metric 0 after metric 1: out of order */
    double *v = sev_store_append_run(&s, 0, cnodes, 2, &added);
    assert_non_null(v);
    assert_int_equal(added, 2);
    fill_row(v, 0, 0, W);
    fill_row(v + W, 0, 2, W);
    assert_true(s.unordered);
    assert_int_equal(sev_store_index(&s), 0);
    check_invariants(&s);
    expect_row(sev_store_find(&s, 0, 2), 0, 2, W, W);
    expect_row(sev_store_find(&s, 1, 2 * N - 2), 1, 2 * N - 2, W, W);
    free(cnodes);
    sev_store_free(&s);
}

static void test_limits(void **state)
{
    (void)state;
    severity_store s = empty_store();
    s.row_len = 1;
    double *row = sev_store_get_or_add(&s, UINT32_MAX, UINT32_MAX);
    assert_non_null(row);
    row[0] = 3.0;
    assert_ptr_equal(sev_store_find(&s, UINT32_MAX, UINT32_MAX), row);
    assert_null(sev_store_find(&s, 0, 0));
#if SIZE_MAX > UINT32_MAX
    assert_null(sev_store_get_or_add(&s, (size_t)UINT32_MAX + 1, 0));
    assert_null(sev_store_append(&s, 0, (size_t)UINT32_MAX + 1));
    assert_int_equal(s.num_rows, 1);
#endif
    sev_store_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_then_find),
        cmocka_unit_test(test_random_against_reference),
        cmocka_unit_test(test_widen),
        cmocka_unit_test(test_no_threads_then_wide),
        cmocka_unit_test(test_clear),
        cmocka_unit_test(test_sorted_order),
        cmocka_unit_test(test_in_order),
        cmocka_unit_test(test_append_run),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
