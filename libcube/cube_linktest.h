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
 * a plain lookup.  Errors: NULL and a message in the caller's buffer that
 * names the file, the byte offset and the field.  Reentrant.
 */
#ifndef CUBE_LINKTEST_H
#define CUBE_LINKTEST_H

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

cube_linktest *cube_linktest_open(const char *path, char *err, size_t errlen);
void cube_linktest_free(cube_linktest *lt);

const cube_linktest_header *cube_linktest_get_header(const cube_linktest *lt);
size_t cube_linktest_num_ranks(const cube_linktest *lt);
size_t cube_linktest_num_permutations(const cube_linktest *lt);
const char *cube_linktest_hostname(const cube_linktest *lt, size_t rank);
int32_t cube_linktest_core_id(const cube_linktest *lt, size_t rank);
uint64_t cube_linktest_stream_bytes(const cube_linktest *lt, size_t rank);
const cube_linktest_permutation *cube_linktest_get_permutation(const cube_linktest *lt, size_t m);

/* The container. */
int cube_linktest_num_files(const cube_linktest *lt);
int32_t cube_linktest_fsblksize(const cube_linktest *lt);
int cube_linktest_big_endian(const cube_linktest *lt);

#ifdef __cplusplus
}
#endif

#endif
