/*
 * cube_mean - the arithmetic mean of several experiments.
 */
#include "algebra_cli.h"

int main(int argc, char **argv)
{
    return algebra_tool_main(argc, argv, CUBE_OP_MEAN,
                             "cube_mean [-o OUT] [--format=cube3|cube4] [-z] [-c|-C]\n"
                             "                 [--match=full|name] CUBE...",
                             "Average experiments value by value (a value missing in one counts "
                             "as 0);\ninteger metrics become FLOAT.",
                             "mean", 1, (size_t)-1);
}
