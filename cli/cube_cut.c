/*
 * cube_cut - re-root the call tree of an experiment at the call paths of
 * named regions, or prune the subtrees below them, folding their values
 * into the pruned call path (cube_cut_reroot, cube_cut_prune).  The
 * options are those of CubeLib's and CUBE 3's cube_cut.
 */
#include "cli_common.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "cube_cut [-r NAME]... [-p NAME]... [-o OUT] [--format=cube3|cube4] FILE";

static void print_help(void)
{
    printf("usage: %s\n"
           "Re-root or prune the call tree of a CUBE 3 or CUBE 4 experiment.\n\n"
           "  -r NAME           re-root the call tree at the call paths of region NAME:\n"
           "                    each becomes a root with its whole subtree (a match\n"
           "                    inside another one's subtree stays there); the rest goes\n"
           "  -p NAME           prune the call tree below the call paths of region\n"
           "                    NAME: their subtrees are folded into them as exclusive\n"
           "                    values (\"inline\"); after -r when both are given\n"
           "                    NAME is a region name, or /REGEX/ (POSIX extended, matching\n"
           "                    anywhere in the name); -r and -p may be repeated\n"
           "  -o, --output OUT  the output (default cut.cubex when FILE is CUBE 4, else\n"
           "                    cut.cube; '-' is standard output); a name ending in .cubex\n"
           "                    is written as CUBE 4, any other as CUBE 3 (gzip-compressed\n"
           "                    when it ends in .gz)\n"
           "      --format=cube3|cube4  write this format whatever the name of OUT\n"
           "  -c, -C            accepted for CubeLib's cube_cut; no effect (one input)\n"
           "  -h, --help        this help\n"
           "      --version     the version\n\n"
           "FILE may be gzip-compressed; '-' reads standard input.\n"
           "Exit status: 0 on success, 2 on a usage error, bad input or a NAME that\n"
           "no call path's region has.  See cube_cut(1).\n",
           usage);
}

/* One NAME of -r or -p: a region name, or a regular expression. */
typedef struct {
    const char *arg;
    int is_regex;
    regex_t regex;
} name_pattern;

typedef struct {
    name_pattern *items;
    size_t count;
} pattern_list;

static void patterns_free(pattern_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].is_regex)
            regfree(&l->items[i].regex);
    free(l->items);
}

static void pattern_add(pattern_list *l, const char *opt, const char *arg)
{
    name_pattern *grown = realloc(l->items, (l->count + 1) * sizeof *grown);
    if (!grown) {
        cli_error("out of memory");
        exit(EXIT_TROUBLE);
    }
    l->items = grown;
    name_pattern *p = &l->items[l->count];
    memset(p, 0, sizeof *p);
    p->arg = arg;
    if (!*arg)
        cli_usage_error(usage, "%s takes a region name or /REGEX/, not ''", opt);
    char msg[256];
    int rc = cli_slashed_regex(arg, &p->regex, msg, sizeof msg);
    if (rc < 0)
        cli_usage_error(usage, "%s %s: bad regular expression: %s", opt, arg, msg);
    p->is_regex = rc == 1;
    l->count++;
}

static int pattern_match(void *user, const char *region_name)
{
    const name_pattern *p = user;
    return p->is_regex ? regexec(&p->regex, region_name, 0, NULL, 0) == 0
                       : strcmp(p->arg, region_name) == 0;
}

/* The call paths of c whose region any pattern of l names, into `selected`
 * (cube_num_cnodes bytes).  0; -1 after printing the error when a pattern
 * names no call path's region (when `each_must_match`) or out of memory. */
static int select_cnodes(const cube_t *c, const pattern_list *l, const char *file, const char *opt,
                         int each_must_match, unsigned char *selected)
{
    size_t n = cube_num_cnodes(c);
    unsigned char *one = malloc(n ? n : 1);
    if (!one) {
        cli_error("out of memory");
        return -1;
    }
    memset(selected, 0, n);
    for (size_t k = 0; k < l->count; k++) {
        cube_status st;
        size_t hits = cube_select_cnodes_by_region(c, pattern_match, &l->items[k], one, &st);
        if (hits == (size_t)-1) {
            cli_error("%s", st.message);
            free(one);
            return -1;
        }
        if (hits == 0 && each_must_match) {
            cli_error("%s: %s %s: no call path's region %s", file, opt, l->items[k].arg,
                      l->items[k].is_regex ? "matches it" : "has this name");
            free(one);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            selected[i] |= one[i];
    }
    free(one);
    return 0;
}

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {"format", required_argument, NULL, 'F'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {NULL, 0, NULL, 0}};
    cli_write_opts w = {0}; /* -o and --format; cube_cut has no -z */
    pattern_list roots = {0}, prunes = {0};
    int opt;
    while ((opt = cli_getopt(argc, argv, "r:p:o:cCh", options, usage)) != -1) {
        switch (opt) {
        case 'r': pattern_add(&roots, "-r", optarg); break;
        case 'p': pattern_add(&prunes, "-p", optarg); break;
        case 'c':
        case 'C': break; /* CubeLib's system-tree options: one input needs none */
        case 'h': print_help(); return EXIT_OK;
        case 'V': cli_print_version(); return EXIT_OK;
        default: cli_write_option(&w, opt, optarg, usage); break;
        }
    }
    if (argc - optind != 1)
        cli_usage_error(usage, argc == optind ? "no input file" : "exactly one input file");
    if (roots.count == 0 && prunes.count == 0)
        cli_usage_error(usage, "give the call paths to re-root at (-r) or to prune (-p)");
    for (size_t i = 0; i < roots.count; i++)
        for (size_t k = 0; k < prunes.count; k++)
            if (strcmp(roots.items[i].arg, prunes.items[k].arg) == 0)
                cli_usage_error(usage, "cannot both re-root at and prune '%s'",
                                roots.items[i].arg);
    const char *file = argv[optind];
    cube_t *c = cli_read(file);
    if (!c) {
        patterns_free(&roots);
        patterns_free(&prunes);
        return EXIT_TROUBLE;
    }
    char default_name[32];
    const char *output =
        w.output ? w.output
                 : cli_default_output("cut", w.format, c, default_name, sizeof default_name);
    int rc = EXIT_OK;
    size_t before = cube_num_warnings(c);
    unsigned char *selected = malloc(cube_num_cnodes(c) ? cube_num_cnodes(c) : 1);
    if (!selected) {
        cli_error("out of memory");
        rc = EXIT_TROUBLE;
    }
    /* every NAME must name a call path's region of the input, as in
     * CubeLib; the prune names are checked before re-rooting drops some */
    if (rc == EXIT_OK && prunes.count &&
        select_cnodes(c, &prunes, file, "-p", 1, selected) != 0)
        rc = EXIT_TROUBLE;
    if (rc == EXIT_OK && roots.count &&
        (select_cnodes(c, &roots, file, "-r", 1, selected) != 0 ||
         cube_cut_reroot(c, selected, NULL) != 0)) {
        if (cube_error_code(c) != CUBE_OK)
            cli_error("%s: %s", file, cube_error(c));
        rc = EXIT_TROUBLE;
    }
    if (rc == EXIT_OK && prunes.count) {
        free(selected);
        selected = malloc(cube_num_cnodes(c) ? cube_num_cnodes(c) : 1);
        if (!selected || select_cnodes(c, &prunes, file, "-p", 0, selected) != 0 ||
            cube_cut_prune(c, selected, NULL) != 0) {
            if (!selected)
                cli_error("out of memory");
            else if (cube_error_code(c) != CUBE_OK)
                cli_error("%s: %s", file, cube_error(c));
            rc = EXIT_TROUBLE;
        }
    }
    if (rc == EXIT_OK) {
        for (size_t i = before; i < cube_num_warnings(c); i++)
            fprintf(stderr, "%s: warning: %s\n", cli_tool(), cube_warning(c, i));
        if (cli_write(c, output, cli_write_flags(&w)) != 0)
            rc = EXIT_TROUBLE;
    }
    free(selected);
    cube_free(c);
    patterns_free(&roots);
    patterns_free(&prunes);
    return rc;
}
