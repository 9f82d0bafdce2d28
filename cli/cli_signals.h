/*
 * cli_signals.h - what every tool (cube_bench too, in each of its MPI
 * processes) does when it is interrupted.
 */
#ifndef CLI_SIGNALS_H
#define CLI_SIGNALS_H

/* On SIGINT, SIGTERM, SIGHUP and SIGPIPE remove the temporary files of the
 * outputs being written (cube_remove_temp_files: a half-written output
 * never appears, an existing one stays as it was) and die of the signal,
 * so that the exit status is 128 + its number; nothing is printed.  A
 * signal that was ignored when the program started (nohup, a background
 * job of a shell) stays ignored. */
void cli_catch_signals(void);

#endif
