/*
 * cube_exclusify - store every metric call-tree exclusive.
 */
#include "kind_cli.h"

int main(int argc, char **argv)
{
    return kind_tool_main(argc, argv, CUBE_KIND_EXCLUSIVE);
}
