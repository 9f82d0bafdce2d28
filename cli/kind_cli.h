/*
 * kind_cli.h - the common body of cube_exclusify and cube_inclusify: they
 * differ only in the kind they store every metric as.
 */
#ifndef KIND_CLI_H
#define KIND_CLI_H

#include "cli_common.h"

/* Parse the options, convert each input to `kind` (CUBE_KIND_EXCLUSIVE or
 * CUBE_KIND_INCLUSIVE) and write it.  Returns the exit status. */
int kind_tool_main(int argc, char **argv, cube_metric_kind kind);

#endif
