/*
 * version.c - the version of the library a program runs with (cube.h).
 */
#include "cube.h"

const char *cube_version(void)
{
    return CUBE_VERSION_STRING;
}
