/*
 * cube_example.c - the example program of the CUBE3 manual ("Typical
 * Usage"), translated from its C++ to the CUBE3 C writer API.  It uses only
 * the functions of the original libcubew3, so it is also the check that
 * such code compiles and links against libcube unchanged.
 *
 * usage: cube_example [OUTPUT]     (default: standard output)
 */
#include <stdio.h>

#include "cube.h"

int main(int argc, char **argv)
{
    cube_t *cube = cube_create();
    if (!cube)
        return 1;

    /* Specify mirrors (optional) */
    cube_def_mirror(cube, "http://icl.cs.utk.edu/software/kojak/");
    cube_def_mirror(cube, "http://www.fz-juelich.de/jsc/kojak/");

    /* Specify information related to the file (optional) */
    cube_def_attr(cube, "experiment time", "September 27th, 2006");
    cube_def_attr(cube, "description", "a simple example");

    /* Build metric tree */
    cube_metric *met0 = cube_def_met(cube, "Time", "Uniq_name1", "FLOAT", "sec", "",
                                     "@mirror@patterns-2.1.html#execution", "root node", NULL);
    cube_metric *met1 = cube_def_met(cube, "User time", "Uniq_name2", "FLOAT", "sec", "",
                                     "http://www.cs.utk.edu/usr.html", "2nd level", met0);
    cube_metric *met2 = cube_def_met(cube, "System time", "Uniq_name3", "FLOAT", "sec", "",
                                     "http://www.cs.utk.edu/sys.html", "2nd level", met0);

    /* Build call tree */
    const char *mod = "/ICL/CUBE/example.c";
    cube_region *regn0 = cube_def_region(cube, "main", 21, 100, "", "1st level", mod);
    cube_region *regn1 = cube_def_region(cube, "foo", 1, 10, "", "2nd level", mod);
    cube_region *regn2 = cube_def_region(cube, "bar", 11, 20, "", "2nd level", mod);
    cube_cnode *cnode0 = cube_def_cnode_cs(cube, regn0, mod, 21, NULL);
    cube_cnode *cnode1 = cube_def_cnode_cs(cube, regn1, mod, 60, cnode0);
    cube_cnode *cnode2 = cube_def_cnode_cs(cube, regn2, mod, 80, cnode0);

    /* Build system resource tree */
    cube_machine *mach = cube_def_mach(cube, "MSC", "");
    cube_node *node = cube_def_node(cube, "Athena", mach);
    cube_process *proc0 = cube_def_proc(cube, "Process 0", 0, node);
    cube_process *proc1 = cube_def_proc(cube, "Process 1", 1, node);
    cube_thread *thrd0 = cube_def_thrd(cube, "Thread 0", 0, proc0);
    cube_thread *thrd1 = cube_def_thrd(cube, "Thread 1", 1, proc1);

    /* Build 2D Cartesian topology: a 5x5 grid, the first dimension periodic */
    long dimv[2] = {5, 5};
    int periodv[2] = {1, 0};
    cube_cartesian *cart = cube_def_cart(cube, 2, dimv, periodv);
    long coord0[2] = {0, 0};
    long coord1[2] = {3, 3};
    cube_def_coords(cube, cart, thrd0, coord0);
    cube_def_coords(cube, cart, thrd1, coord1);

    /* Severity mapping: Time includes User and System time (inclusive
     * along the metric tree, exclusive along the call tree) */
    cube_cnode *cnodes[3] = {cnode0, cnode1, cnode2};
    cube_thread *thrds[2] = {thrd0, thrd1};
    for (int n = 0; n < 3; n++)
        for (int t = 0; t < 2; t++) {
            cube_set_sev(cube, met1, cnodes[n], thrds[t], 3);
            cube_set_sev(cube, met2, cnodes[n], thrds[t], 1);
            cube_set_sev(cube, met0, cnodes[n], thrds[t], 4);
        }

    /* Output to a cube file */
    FILE *out = argc > 1 ? fopen(argv[1], "w") : stdout;
    if (!out) {
        perror(argv[1]);
        cube_free(cube);
        return 1;
    }
    /* the writer's functions return nothing: a failure shows as an error
     * code on the handle */
    cube_write_all(cube, out);
    int failed = cube_error_code(cube) != CUBE_OK;
    if (failed)
        fprintf(stderr, "cube_example: %s\n", cube_error(cube));
    if (out != stdout && fclose(out) != 0)
        failed = 1;
    cube_free(cube);
    return failed;
}
