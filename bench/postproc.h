/*
 * postproc.h - SKaMPI's post-processing layer as modes of
 * cube_bench that need no MPI: `--merge` (SKaMPI's automatic merging of
 * the results of several runs; the work is libcube's
 * cube_bench_merge_files) and `--report` (the report generator: one HTML
 * page, bench/report.c).
 *
 * cube_bench looks for these options before MPI_Init and never starts MPI
 * for them, so they run alone as well as under mpiexec (where only the
 * first process works).
 */
#ifndef CUBE_BENCH_POSTPROC_H
#define CUBE_BENCH_POSTPROC_H

/* Does the command line ask for --merge, --report or --compare? */
int postproc_requested(int argc, char **argv);

/* Run it: the exit status (0, or 2 after a message on stderr). */
int postproc_main(int argc, char **argv);

#endif
