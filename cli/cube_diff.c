/*
 * cube_diff - the difference of two experiments, value by value.
 */
#include "algebra_cli.h"

int main(int argc, char **argv)
{
    return algebra_tool_main(argc, argv, CUBE_OP_DIFF,
                             "cube_diff [-o OUT] [--format=cube3|cube4] [-z] [-c|-C]\n"
                             "                 [--match=full|name] MINUEND SUBTRAHEND",
                             "Subtract SUBTRAHEND from MINUEND: every metric, call path and "
                             "thread of either,\nlined up, a value missing in one counting as 0.",
                             "diff", 2, 2);
}
