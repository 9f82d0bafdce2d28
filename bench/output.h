/*
 * output.h - the run as a CUBE experiment (libcube's writer API) and its
 * statistics file (cube-stat(5)); rank 0 only.  The mapping is described in
 * cube_bench(1), "OUTPUT".
 */
#ifndef CUBE_BENCH_OUTPUT_H
#define CUBE_BENCH_OUTPUT_H

#include "suite.h"

typedef struct {
    const char *param_file;  /* as named on the command line, or the default's path */
    const char *command_line;
    const char *start_time, *end_time; /* ISO 8601 */
    const char *mpi_library; /* MPI_Get_library_version, on one line */
    const char *mpi_version; /* MPI_Get_version, "4.0" */
    char **proc_names;       /* MPI_Get_processor_name of each world rank */
    const char *param_checksum; /* "fnv1a64:..." of the parameter file's bytes */
    size_t suites_total;     /* of the parameter file (the output may hold fewer: a
                                save after each suite) */
    const char *resumed;     /* NULL, or when and after how many suites the run was
                                continued ("after 2 of 5 suites at ...; ...") */
} output_info;

/* The statistics file's name beside `cube_path`: a trailing ".cube",
 * ".cubex" or ".cube.gz" replaced by ".stat" (".stat.gz"), else ".stat"
 * appended; NULL for "-" (standard output has no "beside") or when out of
 * memory. */
char *output_stat_path(const char *cube_path);

/* Write the experiment of the first `n` suites to `path` and, when
 * stat_path is not NULL, the statistics file; each atomically (the
 * experiment first: a crash between the two leaves an experiment with one
 * suite more than the statistics file, never fewer).  0, or -1 with a
 * message in err. */
int output_write(const bench_ctx *ctx, const bench_params *bp, const output_info *info,
                 const suite_result *suites, size_t n, const char *path, const char *stat_path,
                 char *err, size_t errlen);

#endif
