/*
 * cube_diff - the difference of two experiments, value by value.
 */
#include "algebra_cli.h"

int main(int argc, char **argv)
{
    return algebra_tool_main(argc, argv, CUBE_OP_DIFF,
                             "cube_diff [-o OUT] [-z] [-c|-C] [--match=full|name] MINUEND SUBTRAHEND",
                             "Subtract SUBTRAHEND from MINUEND: every metric, call path and "
                             "thread of either,\nlined up, a value missing in one counting as 0.",
                             "diff.cube", 2, 2);
}
