/*
 * cli_common.c - what every tool does the same way.
 */
#include "cli_common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *tool = "cube";

void cli_init(const char *tool_name)
{
    const char *slash = strrchr(tool_name, '/');
    tool = slash ? slash + 1 : tool_name;
}

const char *cli_tool(void)
{
    return tool;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", tool);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_usage_error(const char *usage, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", tool);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\nTry '%s --help' for more information.\n", usage, tool);
    exit(EXIT_TROUBLE);
}

/* Does option `ch` (a short option, or the value of a long one) require an
 * argument?  0 when it takes none, -1 when there is no such option. */
static int needs_argument(int ch, const char *optstring, const struct option *longopts)
{
    const char *p = ch > 0 && ch != ':' ? strchr(optstring, ch) : NULL;
    if (p)
        return p[1] == ':' && p[2] != ':';
    for (const struct option *o = longopts; o && o->name; o++)
        if (!o->flag && o->val == ch)
            return o->has_arg == required_argument;
    return -1;
}

/* How many long options `arg` ("--name" or "--name=value") is a prefix
 * of, an exact match counting as the only one. */
static int long_matches(const char *arg, const struct option *longopts)
{
    size_t n = strcspn(arg + 2, "=");
    int count = 0;
    for (const struct option *o = longopts; o && o->name; o++) {
        if (strncmp(o->name, arg + 2, n) != 0)
            continue;
        if (o->name[n] == '\0')
            return 1;
        count++;
    }
    return count;
}

int cli_getopt(int argc, char *const argv[], const char *optstring,
               const struct option *longopts, const char *usage)
{
    opterr = 0; /* getopt's messages name the full program path; ours do not */
    int opt = getopt_long(argc, argv, optstring, longopts, NULL);
    if (opt != '?')
        return opt;
    /* getopt_long says only '?': tell the cases apart.  After a long option
     * argv[optind - 1] is that option; after a short one in a group such as
     * "-zx" it may not be, so short options are named by optopt. */
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    int is_long = strncmp(arg, "--", 2) == 0 && arg[2];
    if (optopt == 0) { /* a long option that is unknown or ambiguous */
        if (is_long && long_matches(arg, longopts) > 1)
            cli_usage_error(usage, "option '%.*s' is ambiguous", (int)strcspn(arg, "="), arg);
        cli_usage_error(usage, "unknown option '%s'", arg);
    }
    switch (needs_argument(optopt, optstring, longopts)) {
    case 1: /* only the last argument can lack its argument: arg is it */
        if (is_long)
            cli_usage_error(usage, "option '%s' needs an argument", arg);
        cli_usage_error(usage, "option '-%c' needs an argument", optopt);
    case 0: /* "--json=1" */
        if (is_long && strchr(arg, '='))
            cli_usage_error(usage, "option '%.*s' doesn't allow an argument",
                            (int)strcspn(arg, "="), arg);
        break;
    default: break;
    }
    cli_usage_error(usage, "unknown option '-%c'", optopt);
}

void cli_print_version(void)
{
    printf("%s (libcube) %s\n", tool, LIBCUBE_VERSION);
}

void cli_print_warnings(const cube_t *c)
{
    for (size_t i = 0; i < cube_num_warnings(c); i++)
        fprintf(stderr, "%s: warning: %s\n", tool, cube_warning(c, i));
}

cube_t *cli_read(const char *path)
{
    cube_t *c = cube_create();
    if (!c) {
        cli_error("out of memory");
        return NULL;
    }
    if (cube_read(c, path) != 0) {
        cli_error("%s", cube_error(c));
        cube_free(c);
        return NULL;
    }
    cli_print_warnings(c);
    return c;
}

void cli_print_double(FILE *fp, double v)
{
    char buf[CUBE_DOUBLE_BUFSIZE];
    cube_format_double(v, buf);
    fputs(buf, fp);
}

void cli_print_json_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", fp); break;
        case '\\': fputs("\\\\", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\t': fputs("\\t", fp); break;
        default:
            if (*p < 0x20)
                fprintf(fp, "\\u%04x", *p);
            else
                fputc(*p, fp);
        }
    }
    fputc('"', fp);
}
