/*
 * cube_merge - join experiments that measured different metrics.
 */
#include "algebra_cli.h"

int main(int argc, char **argv)
{
    return algebra_tool_main(argc, argv, CUBE_OP_MERGE,
                             "cube_merge [-o OUT] [--format=cube3|cube4] [-z] [-c|-C]\n"
                             "                  [--match=full|name] CUBE...",
                             "Join experiments: each row (a metric at a call path) comes whole from "
                             "the last\ninput that has the metric and the call path.",
                             "merge", 1, (size_t)-1);
}
