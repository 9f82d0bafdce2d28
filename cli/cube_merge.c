/*
 * cube_merge - join experiments that measured different metrics.
 */
#include "algebra_cli.h"

int main(int argc, char **argv)
{
    return algebra_tool_main(argc, argv, CUBE_OP_MERGE,
                             "cube_merge [-o OUT] [-z] [-c|-C] [--match=full|name] CUBE...",
                             "Join experiments: each row (a metric at a call path) comes whole from "
                             "the last\ninput that has the metric and the call path.",
                             "merge.cube", 1, (size_t)-1);
}
