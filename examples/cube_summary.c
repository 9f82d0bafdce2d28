/*
 * cube_summary.c - a small program using the reading API: it reads one
 * CUBE experiment and prints how many metrics, regions and call paths it
 * has (as cube_info(1) prints them).  Built against the installed library:
 *
 *   cc -o cube_summary cube_summary.c $(pkg-config --cflags --libs libcube)
 *
 * usage: cube_summary FILE
 */
#include <stdio.h>

#include "cube.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cube_summary FILE\n");
        return 2;
    }
    cube_t *cube = cube_create();
    if (!cube) {
        fprintf(stderr, "cube_summary: out of memory\n");
        return 1;
    }
    if (cube_read(cube, argv[1]) != 0) {
        fprintf(stderr, "cube_summary: %s\n", cube_error(cube));
        cube_free(cube);
        return 2;
    }
    printf("metrics: %zu\nregions: %zu\ncall paths: %zu\n", cube_num_metrics(cube),
           cube_num_regions(cube), cube_num_cnodes(cube));
    cube_free(cube);
    return 0;
}
