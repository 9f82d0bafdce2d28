/*
 * cube_clean - read an experiment and write it back in the canonical layout
 * (dense ids, the layout the original CUBE 3 reader accepts, no all-zero
 * rows), optionally gzip-compressed and without unreferenced regions.  The
 * output is CUBE 3 or CUBE 4 as its name or --format says.
 */
#include "cli_common.h"

#include <string.h>

static const char usage[] =
    "cube_clean [-o OUT] [--format=cube3|cube4] [-z] [--prune] FILE";

static void print_help(void)
{
    printf("usage: %s\n"
           "Rewrite a CUBE 3 or CUBE 4 experiment in the canonical layout.\n\n"
           "  -o, --output OUT  the output (default clean.cubex when FILE is CUBE 4,\n"
           "                    else clean.cube; '-' is standard output); a name\n"
           "                    ending in .cubex is written as CUBE 4, any other as\n"
           "                    CUBE 3 (gzip-compressed when it ends in .gz)\n"
           "      --format=cube3|cube4  write this format whatever the name of OUT\n"
           "  -z, --gzip        compress: CUBE 3 gzip-compressed whatever its name,\n"
           "                    CUBE 4 with compressed data and anchor.xml\n"
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
    static const struct option options[] = {CLI_WRITE_LONG_OPTIONS,
                                            {"prune", no_argument, NULL, 'p'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {NULL, 0, NULL, 0}};
    cli_write_opts w = {0};
    int prune = 0, opt;
    /* cli_getopt reports bad options itself and never returns them */
    while ((opt = cli_getopt(argc, argv, "o:zph", options, usage)) != -1) {
        switch (opt) {
        case 'p': prune = 1; break;
        case 'h': print_help(); return EXIT_OK;
        case 'V': cli_print_version(); return EXIT_OK;
        default: cli_write_option(&w, opt, optarg, usage); break;
        }
    }
    if (argc - optind != 1)
        cli_usage_error(usage, argc == optind ? "no input file" : "exactly one input file");
    cube_t *c = cli_read(argv[optind]);
    if (!c)
        return EXIT_TROUBLE;
    /* the default name says the format: that of --format, else the input's */
    char default_name[32];
    const char *output = w.output ? w.output
                                  : cli_default_output("clean", w.format, c, default_name,
                                                       sizeof default_name);
    int rc = EXIT_OK;
    if (prune && cube_prune(c, NULL) != 0) {
        cli_error("%s", cube_error(c));
        rc = EXIT_TROUBLE;
    } else if (cli_write(c, output, cli_write_flags(&w)) != 0) {
        rc = EXIT_TROUBLE;
    }
    cube_free(c);
    return rc;
}
