/*
 * resume.h - continuing an unfinished run (SKaMPI's old log file:
 * read_old_log_file, create_log_file, output_file_complete).
 *
 * While it runs, cube_bench appends to its log a line per finished suite,
 * after rank 0 has saved the experiment so far (and its statistics file),
 * each atomically.  The log therefore says how far the saved files are
 * good: they may hold one suite more (killed between the save and the log
 * line), never one less.  A run started again with the same parameter file
 * and output reads the log, keeps the suites it names from the saved files
 * and measures the rest.
 *
 * The lines of the log this module reads (everything else is for people):
 *
 *   run: parameter checksum fnv1a64:HEX, processes P, suites N, output PATH
 *   suite done: K of N (NAME); saved FILES in S s
 *   resumed: K of N suites kept ...
 *   run complete: N of N suites ...
 *
 * Rank 0 only; no MPI here.
 */
#ifndef CUBE_BENCH_RESUME_H
#define CUBE_BENCH_RESUME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "suite.h"

/* "fnv1a64:" and 16 lowercase hex digits of the 64-bit FNV-1a hash of
 * data[0..n) (the attribute "parameter checksum"); `buf` holds at least
 * RESUME_CHECKSUM_SIZE bytes.  Returns buf. */
#define RESUME_CHECKSUM_SIZE 25
uint64_t resume_fnv1a64(const void *data, size_t n);
char *resume_checksum(const void *data, size_t n, char *buf);

/* The log's default name beside the experiment: a trailing ".cube",
 * ".cubex" or ".cube.gz" replaced by ".log", else ".log" appended; NULL
 * for "-" or when out of memory. */
char *resume_log_path(const char *cube_path);

/* What the log of an earlier run says (of its last start). */
typedef struct {
    int found;          /* the log has a "run:" line */
    char checksum[64];
    int processes;
    size_t suites;      /* of the parameter file */
    size_t done;        /* suites finished and saved */
    int complete;       /* the run ended ("run complete:") */
    char *output;       /* as named then (malloc'd) */
} resume_log;

/* Read `path`: 0 (found = 0 when the file does not exist or has no "run:"
 * line), or -1 with "PATH: reason" in err. */
int resume_read_log(const char *path, resume_log *log, char *err, size_t errlen);

/* fopen with mode "r", "w" or "a", the descriptor close-on-exec (MPI
 * launchers and the processes they start must not inherit cube_bench's
 * files); NULL with errno set. */
FILE *bench_fopen(const char *path, const char *mode);
void resume_log_free(resume_log *log);

/* Do two output names refer to the same file?  (By device and inode when
 * both exist, else by name.) */
int resume_same_file(const char *a, const char *b);

/* The log lines above. */
void resume_log_start(FILE *log, const char *checksum, int processes, size_t suites,
                      const char *output);
void resume_log_done(FILE *log, size_t k, size_t n, const char *suite, const char *output,
                     const char *stat_path, double seconds);

/* The saved files of the unfinished run, read back (rank 0). */
typedef struct resume_saved resume_saved;

/* Read the experiment and (when stat_path is not NULL) the statistics
 * file, and check that they belong to this run: the same parameter
 * checksum and process count, at least `k` suites.  NULL with a message
 * in err. */
resume_saved *resume_load(const char *cube_path, const char *stat_path, const char *checksum,
                          int processes, size_t k, char *err, size_t errlen);
void resume_saved_free(resume_saved *s);

/* What the saved experiment says about the run as a whole: its start
 * time, the history of earlier resumptions (NULL: none), and the
 * ping-pong partners that were found (-1 when none were). */
const char *resume_start_time(const resume_saved *s);
const char *resume_history(const resume_saved *s);
void resume_partners(const resume_saved *s, int *partner_max, double *latency_max,
                     int *partner_min, double *latency_min);

/* Fill the points of kept suite `i` (`r` planned by suite_plan_result for
 * the same suite) with the saved values, exactly as they were written.
 * 0, or -1 with "FILE: ..." in err when the saved suite does not match
 * the parameter file. */
int resume_fill(const resume_saved *s, size_t i, suite_result *r, int processes, char *err,
                size_t errlen);

#endif
