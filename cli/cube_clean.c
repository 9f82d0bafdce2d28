/*
 * cube_clean - read an experiment and write it back in the canonical layout
 * (dense ids, the layout the original CUBE 3 reader accepts, no all-zero
 * rows), optionally gzip-compressed and without unreferenced regions.
 */
#include "cli_common.h"

#include <string.h>

static const char usage[] = "cube_clean [-o OUT] [-z] [--prune] FILE";

static void print_help(void)
{
    printf("usage: %s\n"
           "Rewrite a CUBE 3 experiment in the canonical layout.\n\n"
           "  -o, --output OUT  the output (default clean.cube; '-' is standard output);\n"
           "                    a name ending in .gz is written gzip-compressed\n"
           "  -z, --gzip        gzip-compress the output whatever its name\n"
           "  -p, --prune       drop regions no call path refers to, and the mirrors\n"
           "                    when no URL uses @mirror@\n"
           "  -h, --help        this help\n"
           "      --version     the version\n\n"
           "FILE may be gzip-compressed; '-' reads standard input.\n"
           "Exit status: 0 on success, 2 on a usage error or bad input.\n"
           "See cube_clean(1).\n",
           usage);
}

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {"gzip", no_argument, NULL, 'z'},
                                            {"prune", no_argument, NULL, 'p'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {NULL, 0, NULL, 0}};
    const char *output = "clean.cube";
    int gzip = 0, prune = 0, opt;
    /* cli_getopt reports bad options itself and never returns them */
    while ((opt = cli_getopt(argc, argv, "o:zph", options, usage)) != -1) {
        switch (opt) {
        case 'o': output = optarg; break;
        case 'z': gzip = 1; break;
        case 'p': prune = 1; break;
        case 'h': print_help(); return EXIT_OK;
        case 'V': cli_print_version(); return EXIT_OK;
        }
    }
    if (argc - optind != 1)
        cli_usage_error(usage, argc == optind ? "no input file" : "exactly one input file");
    cube_t *c = cli_read(argv[optind]);
    if (!c)
        return EXIT_TROUBLE;
    int rc = EXIT_OK;
    if ((prune && cube_prune(c, NULL) != 0) ||
        cube_write_file(c, output, gzip ? CUBE_WRITE_GZIP : 0) != 0) {
        cli_error("%s", cube_error(c));
        rc = EXIT_TROUBLE;
    }
    cube_free(c);
    return rc;
}
