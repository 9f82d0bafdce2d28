/*
 * cube_linktest.h - read LinkTest 2.1.17 result files (SION containers)
 * without SIONlib.
 *
 * LinkTest 1.x files (tag "LKTST") are read too, into the same model:
 * tag "LKTST", version 1.x, empty mode and git hash, core ids -1, one
 * permutation, num_serial_retests = N (the retest arrays), no per-rank
 * all-to-all times (1.x stores them per step).
 *
 * cube_linktest_open reads the whole file set; every accessor afterwards is
 * a plain lookup.  Errors: NULL with the caller's cube_status set; the
 * message names the file, the byte offset and the field.  Reentrant.
 */
#ifndef CUBE_LINKTEST_H
#define CUBE_LINKTEST_H

#include "cube.h" /* CUBE_API */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cube_linktest cube_linktest;

typedef struct {
    char tag[9];           /* "LinkTest" */
    uint32_t major, minor, patch;
    char git_hash[42];     /* 41 bytes as stored, NUL-terminated */
    uint32_t mode_length;  /* counts the NUL */
    const char *mode;
    uint8_t all_to_all, bidirectional, unidirectional, bisection, step_randomization, serial,
        no_sion_file, parallel_sion, gpu_memory, multi_buffer, randomized_buffer, check_buffer,
        memory_allocator_type;
    uint64_t num_messages, message_size, num_warmup_messages, num_serial_retests,
        num_multi_buffers, buffer_randomization_seed, num_randomized_tasks,
        task_randomization_seed;
} cube_linktest_header;

/* One randomized iteration (permutation).  Matrices are N x N, row-major,
 * row = measuring (sending) rank, column = partner. */
typedef struct {
    char start_time[33], end_time[33];
    double min, avg, max;
    double a2a_min, a2a_avg, a2a_max;    /* NaN without all-to-all */
    size_t num_slow;                     /* = num_serial_retests */
    const double *retested_slow_timings; /* num_slow entries each */
    const double *slowest_timings;
    const int64_t *slow_sending_partners;
    const int64_t *slow_receiving_partners;
    const double *times;                 /* seconds; NaN on the diagonal */
    const uint64_t *access_pattern;      /* 1-based step; 0 on the diagonal */
    const double *all_to_all_times;      /* N entries, NULL without all-to-all */
} cube_linktest_permutation;

/* Open a LinkTest file ("-" is not accepted: the reader seeks); NULL with
 * `status` set (CUBE_EIO, CUBE_EFORMAT naming the byte offset,
 * CUBE_EUNSUPPORTED, CUBE_ENOMEM) when it cannot be read. */
CUBE_API cube_linktest *cube_linktest_open(const char *path, cube_status *status);

/* Flags of cube_linktest_open_with. */
/* Do not keep the access patterns (access_pattern is NULL): 8 bytes less
 * per link and iteration, for readers that look at the times only. */
#define CUBE_LINKTEST_NO_ACCESS_PATTERN 1u
/* Keep neither the time matrices nor the access patterns (times and
 * access_pattern are NULL): the file stays open and the rows are read
 * from it when asked for (cube_linktest_read_row, and the analysis
 * below, which then reads the file once per pass instead of holding
 * 8 N^2 bytes per iteration).  The structure of every rank's data is
 * still checked at open.  Ignored for LinkTest 1.x files. */
#define CUBE_LINKTEST_NO_MATRICES 2u
CUBE_API cube_linktest *cube_linktest_open_with(const char *path, unsigned flags,
                                                cube_status *status);
CUBE_API void cube_linktest_free(cube_linktest *lt);

/* Warnings about what was read on a best-effort basis (a file whose
 * writer never closed it), in order; each names the file. */
CUBE_API size_t cube_linktest_num_warnings(const cube_linktest *lt);
CUBE_API const char *cube_linktest_warning(const cube_linktest *lt, size_t i);

CUBE_API const cube_linktest_header *cube_linktest_get_header(const cube_linktest *lt);
CUBE_API size_t cube_linktest_num_ranks(const cube_linktest *lt);
CUBE_API size_t cube_linktest_num_permutations(const cube_linktest *lt);
CUBE_API const char *cube_linktest_hostname(const cube_linktest *lt, size_t rank);
CUBE_API int32_t cube_linktest_core_id(const cube_linktest *lt, size_t rank);
CUBE_API uint64_t cube_linktest_stream_bytes(const cube_linktest *lt, size_t rank);
CUBE_API const cube_linktest_permutation *cube_linktest_get_permutation(const cube_linktest *lt,
                                                                         size_t m);

/* A rank's times of one iteration (N values, NaN on the diagonal) into
 * row[N], from the matrix or, without one, from the file.  0, or -1 with
 * the reason in cube_linktest_error(). */
CUBE_API int cube_linktest_read_row(cube_linktest *lt, size_t iteration, size_t rank, double *row);
/* Why the last call that changed the handle failed (CUBE_ENOMEM, or
 * CUBE_EIO / CUBE_EFORMAT for a read error naming the file and the
 * offset); CUBE_OK and "" after a successful one.  The functions that
 * take a non-const handle need it to themselves. */
CUBE_API cube_code cube_linktest_error_code(const cube_linktest *lt);
CUBE_API const char *cube_linktest_error(const cube_linktest *lt);

/* The container. */
CUBE_API int cube_linktest_num_files(const cube_linktest *lt);
CUBE_API int32_t cube_linktest_fsblksize(const cube_linktest *lt);
CUBE_API int cube_linktest_big_endian(const cube_linktest *lt);
/* 1 when the writer never closed the file (no trailing metadata block):
 * every stream was taken from the first block of its chunk. */
CUBE_API int cube_linktest_unclosed(const cube_linktest *lt);

/* ------------------------------------------------------------------------
 * Analysis (linktest_stats.c).  A measurement is one entry of one
 * iteration's matrix: the time rank `rank` measured for the ping-pong with
 * `partner` (row, column), in seconds.  Bandwidth, where shown, is
 * message_size / time (LinkTest's own convention).  Without the matrices
 * (CUBE_LINKTEST_NO_MATRICES) every pass reads the rows from the file.
 * Each function returning -1 or NULL leaves the reason on the handle
 * (cube_linktest_error_code, cube_linktest_error): CUBE_ENOMEM, or a read
 * error.
 * ------------------------------------------------------------------------ */

#define CUBE_LINKTEST_ALL_ITERATIONS ((size_t)-1)

typedef struct {
    size_t count;                   /* measurements; 0: the others are NaN */
    double min, mean, median, max;  /* median of an even count: the mean
                                       of the two middle values */
} cube_linktest_stats;

/* Statistics of the measurements of one iteration, or of all with
 * CUBE_LINKTEST_ALL_ITERATIONS.  Exact: the mean is a compensated sum,
 * the median is selected, not estimated (a histogram of the leading bits
 * of the values narrows it down to a bucket, which alone is copied: two
 * passes, memory about that of one bucket).  0, or -1. */
CUBE_API int cube_linktest_time_stats(cube_linktest *lt, size_t iteration,
                                      cube_linktest_stats *out);
/* The same over the all-to-all times (every rank, every iteration);
 * count 0 when the run has none. */
CUBE_API int cube_linktest_a2a_stats(cube_linktest *lt, cube_linktest_stats *out);

typedef struct {
    size_t rank, partner, iteration;
    double time;
    double retested; /* the serial retest of this (rank, partner) in this
                        iteration from rank 0's slow list; NaN if none */
} cube_linktest_link;

/* The k slowest measurements, slowest first (ties: lower iteration, rank,
 * partner first) into out[k], how many into *count (fewer than k when the
 * run has fewer).  0, or -1. */
CUBE_API int cube_linktest_slowest(cube_linktest *lt, size_t k, cube_linktest_link *out,
                                   size_t *count);

/* cube_linktest_time_stats over all iterations and cube_linktest_slowest
 * together, sharing their passes (what a run summary shows).  0, or -1. */
CUBE_API int cube_linktest_summarize(cube_linktest *lt, cube_linktest_stats *stats, size_t k,
                                     cube_linktest_link *slowest, size_t *num_slowest);

typedef struct {
    const char *host;          /* valid while lt is */
    size_t num_ranks;          /* ranks on the host */
    size_t first_rank;
    cube_linktest_stats stats; /* over the measurements of its ranks
                                  (their rows), every iteration */
    int outlier;               /* +1: the median is more than 3 median
                                  absolute deviations above the median of
                                  the hosts' medians; -1: below; 0 */
} cube_linktest_host;

/* The number of distinct host names (counted when the file is opened). */
CUBE_API size_t cube_linktest_num_hosts(const cube_linktest *lt);

/* The hosts in the order of their first rank; free() the array.  NULL on
 * an error (a run without ranks gives an empty array, not NULL). */
CUBE_API cube_linktest_host *cube_linktest_hosts(cube_linktest *lt, size_t *count);

/* A histogram of every measurement on a log scale: num_bins bins of equal
 * width in log10(time) from the smallest to the largest time (edges has
 * num_bins + 1 entries, edges[0] = min, edges[num_bins] = max; a value
 * on an inner edge counts in the upper bin).  Non-positive times count in
 * the first bin.  0, or -1 (also when there are no measurements or
 * num_bins is 0). */
CUBE_API int cube_linktest_histogram(cube_linktest *lt, size_t num_bins, double *edges,
                                     uint64_t *counts);

/* ------------------------------------------------------------------------
 * The run as a CUBE experiment (linktest_cube.c): see cube_linktest(1),
 * "CUBE EXPORT", for how the matrix maps onto the dimensions.  Written
 * atomically to `path` ("-": standard output; gzip with CUBE_WRITE_GZIP =
 * 1 or a name ending in ".gz"), row by row without building the severity
 * matrix in memory.  0, or -1 with the reason on the handle.
 * ------------------------------------------------------------------------ */
CUBE_API int cube_linktest_write_cube(cube_linktest *lt, const char *path, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif
