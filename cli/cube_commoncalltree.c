/*
 * cube_commoncalltree - reduce experiments to the call tree they have in
 * common (cube_common_call_tree), so that two runs of different builds
 * can be compared call path by call path.  Each input NAME.cube,
 * NAME.cube.gz or NAME.cubex is written as NAME_commoncalltree.cube (or
 * .cubex for a CUBE 4 input), as CubeLib's tool names them.
 */
#include "algebra_cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "cube_commoncalltree [--match=full|name] [-d DIR] A B ...";

static void print_help(void)
{
    printf("usage: %s\n"
           "Reduce CUBE 3 or CUBE 4 experiments to the call tree all of them have.\n\n"
           "  -m, --match=full|name  how call paths are matched: by callee region\n"
           "                    (name and module) and call site (full, the default), or\n"
           "                    by the callee's name only (name), as in cube_diff(1)\n"
           "  -d, --directory DIR  write the results into DIR (default: .)\n"
           "  -h, --help        this help\n"
           "      --version     the version\n\n"
           "Each input NAME.cube or NAME.cube.gz is written as\n"
           "DIR/NAME_commoncalltree.cube, NAME.cubex (or any CUBE 4 input) as\n"
           "DIR/NAME_commoncalltree.cubex.  Call paths not all inputs have are\n"
           "folded into their nearest common ancestor as exclusive values.\n"
           "Inputs may be gzip-compressed; '-' reads standard input (as 'stdin').\n"
           "Exit status: 0 on success, 2 on a usage error or bad input.\n"
           "See cube_commoncalltree(1).\n",
           usage);
}

/* The output path for input `path`: DIR/NAME_commoncalltree.cube or
 * .cubex (NAME: the file name without its directory and without .cubex,
 * .cube.gz, .cube or .gz).  The caller frees it; NULL when out of memory. */
static char *output_path(const char *dir, const char *path, const cube_t *c)
{
    const char *base = strcmp(path, "-") == 0 ? "stdin" : path;
    const char *slash = strrchr(base, '/');
    if (slash)
        base = slash + 1;
    size_t n = strlen(base);
    static const char *const suffixes[] = {".cubex", ".cube.gz", ".cube", ".gz"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(base + n - k, suffixes[i]) == 0) {
            n -= k;
            break;
        }
    }
    const char *ext = cube_source_format(c) == CUBE_FORMAT_CUBE4 ? "cubex" : "cube";
    size_t len = strlen(dir) + 1 + n + sizeof "_commoncalltree." + strlen(ext);
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s/%.*s_commoncalltree.%s", dir, (int)n, base, ext);
    return out;
}

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    static const struct option options[] = {{"match", required_argument, NULL, 'm'},
                                            {"directory", required_argument, NULL, 'd'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {NULL, 0, NULL, 0}};
    cube_match match = CUBE_MATCH_FULL;
    const char *dir = ".";
    int opt;
    while ((opt = cli_getopt(argc, argv, "m:d:h", options, usage)) != -1) {
        switch (opt) {
        case 'm': match = algebra_parse_match(optarg, usage); break;
        case 'd':
            if (!*optarg)
                cli_usage_error(usage, "-d takes a directory, not ''");
            dir = optarg;
            break;
        case 'h': print_help(); return EXIT_OK;
        case 'V': cli_print_version(); return EXIT_OK;
        }
    }
    size_t n = (size_t)(argc - optind);
    if (n < 2)
        cli_usage_error(usage, n == 0 ? "no input files" : "at least two input files");
    size_t stdin_inputs = 0;
    for (size_t k = 0; k < n; k++)
        stdin_inputs += strcmp(argv[optind + (int)k], "-") == 0;
    if (stdin_inputs > 1)
        cli_usage_error(usage, "standard input ('-') can be read only once");
    cube_t **models = calloc(n, sizeof *models);
    char **outputs = calloc(n, sizeof *outputs);
    int rc = models && outputs ? EXIT_OK : EXIT_TROUBLE;
    if (rc != EXIT_OK)
        cli_error("out of memory");
    for (size_t k = 0; k < n && rc == EXIT_OK; k++) {
        const char *path = argv[optind + (int)k];
        if (!(models[k] = cli_read(path))) {
            rc = EXIT_TROUBLE;
        } else if (!(outputs[k] = output_path(dir, path, models[k]))) {
            cli_error("out of memory");
            rc = EXIT_TROUBLE;
        }
        /* two inputs of the same name in different directories would
         * overwrite each other's result */
        for (size_t j = 0; j < k && rc == EXIT_OK; j++)
            if (strcmp(outputs[j], outputs[k]) == 0) {
                cli_error("%s and %s would both be written to %s", argv[optind + (int)j], path,
                          outputs[k]);
                rc = EXIT_TROUBLE;
            }
    }
    if (rc == EXIT_OK) {
        size_t *before = calloc(n, sizeof *before);
        cube_status st;
        for (size_t k = 0; before && k < n; k++)
            before[k] = cube_num_warnings(models[k]);
        if (!before) {
            cli_error("out of memory");
            rc = EXIT_TROUBLE;
        } else if (cube_common_call_tree(models, n, match, NULL, &st) != 0) {
            cli_error("%s", st.message);
            rc = EXIT_TROUBLE;
        }
        for (size_t k = 0; rc == EXIT_OK && k < n; k++) {
            for (size_t i = before[k]; i < cube_num_warnings(models[k]); i++)
                fprintf(stderr, "%s: warning: %s: %s\n", cli_tool(), argv[optind + (int)k],
                        cube_warning(models[k], i));
            if (cli_write(models[k], outputs[k], 0) != 0)
                rc = EXIT_TROUBLE;
        }
        free(before);
    }
    for (size_t k = 0; k < n; k++) {
        if (models)
            cube_free(models[k]);
        if (outputs)
            free(outputs[k]);
    }
    free(models);
    free(outputs);
    return rc;
}
