/*
 * temp_files_private.h - the registry of the temporary files libcube has open in
 * the process: every temporary file the library creates is made through
 * it, so that a program's signal handler can remove them all
 * (cube_remove_temp_files, cube_list_temp_files in cube.h).
 *
 * This is libcube's one piece of process-wide mutable state, on purpose: a
 * signal is delivered to the process, and its handler has no handle to
 * reach the outputs through.  The registry is a list of slots that is
 * only ever prepended to and never freed, each slot owned by one output
 * at a time; it uses lock-free C11 atomics only, so that walking it is
 * async-signal-safe and safe against every thread.
 */
#ifndef LIBCUBE_TEMP_FILES_H
#define LIBCUBE_TEMP_FILES_H

typedef struct temp_file temp_file;

/* Create a new file from `tmpl` (a name ending in "XXXXXX", as for
 * mkstemp) and register it.  Returns its descriptor and sets *out, or -1
 * with errno set (ECANCELED once cube_remove_temp_files has been called:
 * the process is on its way out). */
int temp_file_create(const char *tmpl, temp_file **out);

/* The name of the file (valid until temp_file_release). */
const char *temp_file_path(const temp_file *t);

/* Forget the file once it has been renamed or removed. */
void temp_file_release(temp_file *t);

#endif
