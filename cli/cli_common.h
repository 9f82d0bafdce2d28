/*
 * cli_common.h - the conventions every tool follows (design.md): messages
 * as "tool: file:line: what", exit status 0 / 1 / 2, --help and --version,
 * "-" for standard input and output.
 */
#ifndef CLI_COMMON_H
#define CLI_COMMON_H

#include "cube.h"

#include <getopt.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_NEGATIVE = 1, EXIT_TROUBLE = 2 };

/* The tool's name for messages; call first in main. */
void cli_init(const char *tool_name);
const char *cli_tool(void);

/* "tool: message" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print `usage` to stderr with a pointer to --help, and exit 2. */
_Noreturn void cli_usage_error(const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cli_print_version(void);

/* getopt_long for every tool: returns the next option (as getopt_long
 * does) or -1 after the last.  A bad option is never returned: it gets one
 * message of our own ("tool: unknown option '-x'", "tool: option '-o'
 * needs an argument", "tool: option '--json' doesn't allow an argument"),
 * then `usage` and the pointer to --help, and exit status 2
 * (getopt's own messages, with the full program path, are off). */
int cli_getopt(int argc, char *const argv[], const char *optstring,
               const struct option *longopts, const char *usage);

/* Read a whole experiment ("-" is stdin); warnings are printed.  NULL after
 * printing the error. */
cube_t *cli_read(const char *path);
void cli_print_warnings(const cube_t *c);

/* Print a double in the shortest form that reads back exactly. */
void cli_print_double(FILE *fp, double v);
/* A JSON string literal with the needed escapes. */
void cli_print_json_string(FILE *fp, const char *s);

#endif
