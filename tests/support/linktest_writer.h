/*
 * linktest_writer.h - write LinkTest 2.1.17 result files in a SIONlib
 * (file format 5) container, for the tests and benchmarks only; this is
 * not part of the installed library.  Plain C11 and POSIX, no libcube.
 *
 * The file is what SIONlib 1.7.6 writes (linktest-sion(5)) around the
 * LinkTest 2.1.17 payload (linktest-sion(5) and testdata/linktest/README.md):
 * META1, zero pad to fsblksize, the blocks of chunks, META2.  One physical
 * file.  The writer streams: each rank's bytes are produced by the
 * callbacks into a buffer of 1 MiB (or one field, 8(N-1) bytes, if
 * larger) and written at their offset (pwrite); beyond that it keeps a few
 * words per rank (sizes, offsets) and the slow lists, never a matrix.
 * The callbacks must be pure: they are called in any order, some values
 * more than once (rank 0's row, the all-to-all times).
 *
 * Usage:
 *     ltw_run run;
 *     ltw_run_init(&run, nranks);          defaults: version 2.1.17, mode "mpi", M = 1
 *     run.hostnames = ...; run.time = my_time; run.ctx = ...;
 *     ltw_layout lay;
 *     ltw_layout_init(&lay);               little-endian, fsblksize 4096, aligned chunks
 *     if (ltw_write("x.sion", &run, &lay, err, sizeof err) != 0) ... err says why
 */
#ifndef LINKTEST_WRITER_H
#define LINKTEST_WRITER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The LinkTest header, field for field as LinkTest 2.1.17 writes it (and as
 * cube_linktest_header names them).  The mode length is strlen(mode) + 1;
 * num_serial_retests is d, the length of each slow list; num_randomized_tasks
 * is M, the number of iterations stored (at least 1). */
typedef struct {
    uint32_t major, minor, patch;
    const char *git_hash; /* at most 40 characters; stored NUL-padded to 41 bytes */
    const char *mode;     /* e.g. "mpi" */
    uint8_t all_to_all, bidirectional, unidirectional, bisection, step_randomization, serial,
        no_sion_file, parallel_sion, gpu_memory, multi_buffer, randomized_buffer, check_buffer,
        memory_allocator_type;
    uint64_t num_messages, message_size, num_warmup_messages, num_serial_retests,
        num_multi_buffers, buffer_randomization_seed, num_randomized_tasks,
        task_randomization_seed;
} ltw_header;

/* Rank 0's aggregates of one iteration, when the caller gives them instead
 * of letting the writer compute them.  The four lists have d entries. */
typedef struct {
    double min, avg, max;
    double a2a_min, a2a_avg, a2a_max; /* written only with the all-to-all flag */
    const double *retested, *slowest;
    const int64_t *senders, *receivers;
} ltw_aggregate;

/* The time rank `rank` measured with `partner` in `iteration` (0-based), in
 * seconds; never called with rank == partner. */
typedef double (*ltw_time_fn)(void *ctx, size_t iteration, size_t rank, size_t partner);
/* The 1-based step at which the pair ran. */
typedef uint64_t (*ltw_access_fn)(void *ctx, size_t iteration, size_t rank, size_t partner);
/* A rank's all-to-all time. */
typedef double (*ltw_a2a_fn)(void *ctx, size_t iteration, size_t rank);

typedef struct {
    ltw_header header;
    size_t nranks;                 /* N >= 1 */
    const char *const *hostnames;  /* N entries; required */
    const int32_t *core_ids;       /* N entries; NULL: every core id is 0 */
    const char *const *start_times; /* M entries, at most 31 characters each; */
    const char *const *end_times;   /* NULL: "2024-06-10 06:13:20" and "... 06:13:23" */

    void *ctx;            /* passed to every callback */
    ltw_time_fn time;     /* required */
    ltw_access_fn access; /* NULL: ltw_round_robin_step for every iteration */
    ltw_a2a_fn a2a;       /* required with the all-to-all flag, else unused */

    /* NULL: the writer computes them as LinkTest does, over each iteration:
     * min and max of the N(N-1) times, their mean (a compensated sum divided
     * by N(N-1), so the order of summation does not matter), the same over
     * the N all-to-all times, and the d slowest links, slowest first, ties
     * broken by lower sender then lower receiver.  Otherwise M entries. */
    const ltw_aggregate *aggregates;
    /* With computed aggregates: the serial retest time of a slow link.
     * NULL: the retest equals the original time. */
    ltw_time_fn retest;
} ltw_run;

typedef struct {
    int big_endian;      /* every metadata and multi-byte payload field big-endian,
                            endianness word 01 01 01 01, as on a big-endian host */
    int32_t fsblksize;   /* alignment unit, > 0 */
    int packed;          /* SIONlib's collective mode: chunks back to back, only the
                            last one padded so that a block is a multiple of fsblksize */
    uint64_t chunk_limit; /* 0: each task asks for a chunk as large as its stream (one
                            block).  Else a task asks for min(stream, chunk_limit); the
                            chunk is that, aligned up to fsblksize unless packed, and,
                            like SIONlib, the task starts a new block when the next field
                            does not fit in the rest of its chunk.  A field is never
                            split, so a field larger than the chunk is an error */
    const char *prefix;  /* the file name stored in META1 (SIONlib stores the name as
                            given to open); NULL: the path */
    int serial_api;      /* the quirks of SIONlib's serial API: file number 1 and an
                            i32 mapping_size = 0 after META2 */
} ltw_layout;

/* Defaults: LinkTest 2.1.17, a fixed git hash, mode "mpi", parallel-SION
 * flag 1, 100 messages of 1 KiB, 10 warm-up, 1 buffer, M = 1, d = 0,
 * hostnames/time NULL (to be set). */
void ltw_run_init(ltw_run *run, size_t nranks);
/* Defaults: little-endian, fsblksize 4096, aligned chunks, one block. */
void ltw_layout_init(ltw_layout *layout);

/* Write the file (created or truncated).  0, or -1 with a one-line message
 * in err (which names the path); a partial file is removed. */
int ltw_write(const char *path, const ltw_run *run, const ltw_layout *layout, char *err,
              size_t errlen);

/* The bytes of rank `rank`'s stream (LinkTest tag or chunk header through
 * END_BLOCK), computed from the sizes alone. */
uint64_t ltw_stream_bytes(const ltw_run *run, size_t rank);

/* A round-robin schedule (the circle method, LinkTest 1.x's convention as
 * testdata/linktest/README.md describes it): the 1-based step at which
 * ranks i != j of n meet.  Steps 1 .. n-1 for even n, 1 .. n for odd n
 * (each rank idles in one step).  Symmetric; every rank meets each partner
 * exactly once and at most one partner per step. */
uint64_t ltw_round_robin_step(size_t n, size_t i, size_t j);

#ifdef __cplusplus
}
#endif

#endif
