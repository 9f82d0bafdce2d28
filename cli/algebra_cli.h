/*
 * algebra_cli.h - what cube_diff, cube_merge, cube_mean and cube_cmp share:
 * the options that line experiments up (-c, -C, --match; cube_commoncalltree
 * takes --match too) and, for the first three, the output options and the
 * whole run.
 */
#ifndef ALGEBRA_CLI_H
#define ALGEBRA_CLI_H

#include "cli_common.h"

/* Parse --match=full|name; exits with a usage error otherwise. */
cube_match algebra_parse_match(const char *arg, const char *usage);

/* The text every algebra man page and --help shares. */
#define ALGEBRA_LINEUP_HELP                                                                  \
    "  -c                take the first experiment's machines and nodes; processes it\n"    \
    "                    lacks go to one extra node\n"                                       \
    "  -C                collapse all processes into one virtual machine and node\n"         \
    "      --match=full  call paths match by callee, call-site module and line (default)\n" \
    "      --match=name  call paths match by callee name only (line numbers moved)\n"

/* cube_diff, cube_merge, cube_mean: parse the options, combine the inputs
 * and write the result to OUT, by default to `default_output` with the
 * extension of the format (".cubex" when the first input is CUBE 4, else
 * ".cube").  Returns the exit status. */
int algebra_tool_main(int argc, char **argv, cube_operation op, const char *usage,
                      const char *summary, const char *default_output, size_t min_inputs,
                      size_t max_inputs);

#endif
