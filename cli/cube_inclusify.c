/*
 * cube_inclusify - store every metric call-tree inclusive.
 */
#include "kind_cli.h"

int main(int argc, char **argv)
{
    return kind_tool_main(argc, argv, CUBE_KIND_INCLUSIVE);
}
