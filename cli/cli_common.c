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
