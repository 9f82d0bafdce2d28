/*
 * cube_merge - join experiments that measured different metrics.
 */
#include "algebra_cli.h"

int main(int argc, char **argv)
{
    return algebra_tool_main(argc, argv, CUBE_OP_MERGE,
                             "cube_merge [-o OUT] [-z] [-c|-C] [--match=full|name] CUBE...",
                             "Join experiments: every metric takes all of its values from the "
                             "last input\nthat has it.",
                             "merge.cube", 1, (size_t)-1);
}
