/*
 * algebra_cli.c - the common body of the algebra tools: they differ only in
 * the operation, the number of inputs and the default output name.
 */
#include "algebra_cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

cube_match algebra_parse_match(const char *arg, const char *usage)
{
    if (strcmp(arg, "full") == 0)
        return CUBE_MATCH_FULL;
    if (strcmp(arg, "name") == 0)
        return CUBE_MATCH_NAME;
    cli_usage_error(usage, "--match takes 'full' or 'name', not '%s'", arg);
}

static void print_help(const char *usage, const char *summary, const char *default_output)
{
    printf("usage: %s\n%s\n\n"
           "  -o, --output OUT  the result (default %s.cubex when the first input is\n"
           "                    CUBE 4, else %s.cube; '-' is standard output); a name\n"
           "                    ending in .cubex is written as CUBE 4, one ending in .gz\n"
           "                    as gzip-compressed CUBE 3, any other as CUBE 3\n"
           "      --format=cube3|cube4  write this format whatever the name of OUT\n"
           "  -z, --gzip        compress: CUBE 3 gzip-compressed whatever the name of\n"
           "                    OUT, CUBE 4 with compressed data and anchor.xml\n"
           ALGEBRA_LINEUP_HELP
           "  -h, --help        this help\n"
           "      --version     the version\n\n"
           "Inputs may be gzip-compressed; one of them may be '-' (standard input).\n"
           "Exit status: 0 on success, 2 on a usage error or bad input.\n"
           "See %s(1).\n",
           usage, summary, default_output, default_output, cli_tool());
}

int algebra_tool_main(int argc, char **argv, cube_operation op, const char *usage,
                      const char *summary, const char *default_output, size_t min_inputs,
                      size_t max_inputs)
{
    cli_init(argv[0]);
    static const struct option options[] = {CLI_WRITE_LONG_OPTIONS,
                                            {"match", required_argument, NULL, 'm'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {NULL, 0, NULL, 0}};
    cli_write_opts w = {0};
    int opt;
    cube_match match = CUBE_MATCH_FULL;
    cube_system_rule rule = CUBE_SYSTEM_AGREE;
    /* cli_getopt reports bad options itself and never returns them */
    while ((opt = cli_getopt(argc, argv, "o:zcCh", options, usage)) != -1) {
        switch (opt) {
        case 'c':
            if (rule != CUBE_SYSTEM_COLLAPSE)
                rule = CUBE_SYSTEM_FIRST;
            break;
        case 'C': rule = CUBE_SYSTEM_COLLAPSE; break; /* -C wins over -c */
        case 'm': match = algebra_parse_match(optarg, usage); break;
        case 'h': print_help(usage, summary, default_output); return EXIT_OK;
        case 'V': cli_print_version(); return EXIT_OK;
        default: cli_write_option(&w, opt, optarg, usage); break;
        }
    }
    size_t n = (size_t)(argc - optind);
    if (n < min_inputs || n > max_inputs) {
        if (min_inputs == max_inputs)
            cli_usage_error(usage, "%zu experiments needed, %zu given", min_inputs, n);
        cli_usage_error(usage, "at least %zu experiment%s needed, %zu given", min_inputs,
                        min_inputs == 1 ? "" : "s", n);
    }
    size_t stdin_uses = 0;
    for (int i = optind; i < argc; i++)
        stdin_uses += strcmp(argv[i], "-") == 0;
    if (stdin_uses > 1)
        cli_usage_error(usage, "standard input ('-') can be read only once");

    cube_status st;
    cube_t *result =
        cube_combine(op, (const char *const *)argv + optind, n, match, rule, &st);
    if (!result) {
        cli_error("%s", st.message);
        return EXIT_TROUBLE;
    }
    cli_print_warnings(result); /* the readers' warnings about the inputs */
    /* The default name says the format: that of the first input (the
     * result carries it), unless --format chose one. */
    char default_name[64];
    const char *output = w.output ? w.output
                                  : cli_default_output(default_output, w.format, result,
                                                       default_name, sizeof default_name);
    int rc = EXIT_OK;
    /* the warnings of the write: what the format written cannot hold */
    if (cli_write(result, output, cli_write_flags(&w)) != 0)
        rc = EXIT_TROUBLE;
    cube_free(result);
    return rc;
}
