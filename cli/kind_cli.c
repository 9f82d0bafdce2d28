/*
 * kind_cli.c - cube_exclusify and cube_inclusify: read each experiment,
 * store its metrics call-tree exclusive or inclusive
 * (cube_convert_metric_kind) and write it, by default to
 * NAME_excl.cubex or NAME_incl.cubex in the current directory, the names
 * CubeLib's tools of the same name write.
 */
#include "kind_cli.h"

#include <stdlib.h>
#include <string.h>

static void print_help(const char *usage, cube_metric_kind kind)
{
    int incl = kind == CUBE_KIND_INCLUSIVE;
    printf("usage: %s\n"
           "Store every metric of each FILE call-tree %s:\n"
           "each call path %s.  Along the metric tree values\n"
           "stay inclusive, as every CUBE format stores them.\n\n"
           "  -o, --output OUT  the output, for one FILE only (default NAME_%s.cubex in\n"
           "                    the current directory for FILE NAME.cubex, NAME.cube or\n"
           "                    NAME.cube.gz; stdin_%s.cubex for '-'); '-' is standard\n"
           "                    output; a name ending in .cubex is written as CUBE 4,\n"
           "                    any other as CUBE 3%s\n"
           "      --format=cube3|cube4  write this format whatever the name of OUT\n"
           "  -z, --gzip        compress: CUBE 3 gzip-compressed whatever its name,\n"
           "                    CUBE 4 with compressed data and anchor.xml\n"
           "  -c                accepted for CubeLib's scripts: one experiment has\n"
           "                    nothing to reduce\n"
           "  -C                collapse all processes into one virtual machine and node\n"
           "  -h, --help        this help\n"
           "      --version     the version\n\n"
           "FILE may be gzip-compressed; '-' reads standard input.\n"
           "Exit status: 0 on success, 2 on a usage error or bad input.\n"
           "See %s(1).\n",
           usage, incl ? "inclusive" : "exclusive",
           incl ? "with everything it calls" : "its own value",
           incl ? "incl" : "excl", incl ? "incl" : "excl",
           incl ? ",\n                    which cannot hold inclusive values (refused)" : "",
           cli_tool());
}

/* CubeLib's name for the output of `path`: its file name without the
 * directory and without .cubex, .cube.gz or .cube, then "_excl" or
 * "_incl" and the extension of the format.  The caller frees it; NULL
 * when out of memory. */
static char *default_output(const char *path, cube_metric_kind kind, int cube4)
{
    const char *base = strcmp(path, "-") == 0 ? "stdin" : path;
    const char *slash = strrchr(base, '/');
    if (slash && slash[1])
        base = slash + 1;
    size_t len = strlen(base);
    static const char *const suffixes[] = {".cubex", ".cube.gz", ".cube"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t n = strlen(suffixes[i]);
        if (len > n && strcmp(base + len - n, suffixes[i]) == 0) {
            len -= n;
            break;
        }
    }
    const char *tail = kind == CUBE_KIND_INCLUSIVE ? "_incl" : "_excl";
    const char *ext = cube4 ? ".cubex" : ".cube";
    char *name = malloc(len + strlen(tail) + strlen(ext) + 1);
    if (name) {
        memcpy(name, base, len);
        strcpy(name + len, tail);
        strcat(name, ext);
    }
    return name;
}

/* Read, convert and write one experiment.  Returns the exit status. */
static int convert_file(const char *path, const char *output, unsigned flags,
                        cube_metric_kind kind, int collapse)
{
    cube_t *c;
    if (collapse) {
        /* the algebra's lining up with one input puts every process on one
         * virtual machine and node, as cube_merge -C does */
        cube_status st;
        c = cube_combine(CUBE_OP_MERGE, &path, 1, CUBE_MATCH_FULL, CUBE_SYSTEM_COLLAPSE, &st);
        if (!c) {
            cli_error("%s", st.message);
            return EXIT_TROUBLE;
        }
        cli_print_warnings(c);
    } else if (!(c = cli_read(path))) {
        return EXIT_TROUBLE;
    }
    size_t before = cube_num_warnings(c);
    int rc = EXIT_OK;
    if (cube_convert_metric_kind(c, NULL, kind) != 0) {
        cli_error("%s: %s", path, cube_error(c));
        rc = EXIT_TROUBLE;
    } else {
        for (size_t i = before; i < cube_num_warnings(c); i++)
            fprintf(stderr, "%s: warning: %s: %s\n", cli_tool(), path, cube_warning(c, i));
        if (cli_write(c, output, flags) != 0)
            rc = EXIT_TROUBLE;
    }
    cube_free(c);
    return rc;
}

int kind_tool_main(int argc, char **argv, cube_metric_kind kind)
{
    cli_init(argv[0]);
    static const struct option options[] = {CLI_WRITE_LONG_OPTIONS,
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {NULL, 0, NULL, 0}};
    char usage[128];
    snprintf(usage, sizeof usage, "%s [-o OUT] [--format=cube3|cube4] [-z] [-c|-C] FILE...",
             cli_tool());
    cli_write_opts w = {0};
    int collapse = 0, opt;
    /* cli_getopt reports bad options itself and never returns them */
    while ((opt = cli_getopt(argc, argv, "o:zcCh", options, usage)) != -1) {
        switch (opt) {
        case 'c': break; /* reducing the system tree needs a second experiment */
        case 'C': collapse = 1; break;
        case 'h': print_help(usage, kind); return EXIT_OK;
        case 'V': cli_print_version(); return EXIT_OK;
        default: cli_write_option(&w, opt, optarg, usage); break;
        }
    }
    size_t n = (size_t)(argc - optind);
    if (n == 0)
        cli_usage_error(usage, "no input file");
    const char *output = w.output;
    if (output && n > 1)
        cli_usage_error(usage, "-o names the output of one input file, %zu given", n);
    size_t stdin_uses = 0;
    for (int i = optind; i < argc; i++)
        stdin_uses += strcmp(argv[i], "-") == 0;
    if (stdin_uses > 1)
        cli_usage_error(usage, "standard input ('-') can be read only once");

    /* every output named first: two inputs of the same name in different
     * directories would overwrite each other's output */
    char **names = calloc(n, sizeof *names);
    if (!names) {
        cli_error("out of memory");
        return EXIT_TROUBLE;
    }
    int rc = EXIT_OK;
    for (size_t i = 0; i < n && !output && rc == EXIT_OK; i++) {
        const char *in = argv[optind + (int)i];
        if (!(names[i] = default_output(in, kind, w.format != CUBE_WRITE_CUBE3))) {
            cli_error("out of memory");
            rc = EXIT_TROUBLE;
        }
        for (size_t k = 0; k < i && rc == EXIT_OK; k++)
            if (strcmp(names[k], names[i]) == 0) {
                cli_error("%s and %s would both be written to %s: convert them one by one "
                          "with -o",
                          argv[optind + (int)k], in, names[i]);
                rc = EXIT_TROUBLE;
            }
    }
    unsigned flags = cli_write_flags(&w);
    const char *first = output ? output : names[0];
    if (rc == EXIT_OK && kind == CUBE_KIND_INCLUSIVE &&
        cube_write_format(first, flags) == CUBE_FORMAT_CUBE3) {
        /* checked before reading: a large input is not read for nothing
         * (every output has the format of the first) */
        cli_error("%s: CUBE 3 holds call-tree exclusive values only: write CUBE 4 (a .cubex "
                  "name or --format=cube4)",
                  first);
        rc = EXIT_TROUBLE;
    }
    for (size_t i = 0; i < n && rc == EXIT_OK; i++)
        rc = convert_file(argv[optind + (int)i], output ? output : names[i], flags, kind,
                          collapse);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}
