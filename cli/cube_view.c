/*
 * cube_view - an experiment as one self-contained web page showing the
 * Cube display: the metric, call and system trees, value modes, the flat
 * profile, topologies, statistics and source lines.  The page's HTML,
 * style sheet and scripts are compiled in; the data goes into the page
 * (definitions and the stored values, base64 float64), or with --serve
 * the page asks a server on the loopback address for the values of its
 * panes, for experiments too large to embed.
 */
#include "cli_common.h"
#include "cube_statfile.h"
#include "cube_views.h"
#include "view_page.h"
#include "view_serve.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "cube_view [-o PAGE.html] [--max-size=SIZE] [--stat STATFILE] [--external FILE] FILE\n"
    "       cube_view --serve [--port=N] [--stat STATFILE] [--external FILE] FILE";

/* The largest page written unless --max-size says otherwise. */
#define DEFAULT_MAX_SIZE (50ull * 1000 * 1000)

static void print_help(void)
{
    printf("usage: %s\n"
           "The Cube display of an experiment as a web page: the metric, call and\n"
           "system trees, value modes, flat profile, topologies, statistics and\n"
           "source lines, in one self-contained HTML file (no network access).\n\n"
           "  -o, --output=PAGE  the page (default '-', standard output, which must\n"
           "                     not be a terminal)\n"
           "      --max-size=SIZE  refuse to write a page larger than SIZE bytes\n"
           "                     (suffix k, M or G: 10^3, 10^6, 10^9; default 50M)\n"
           "      --stat=STATFILE  the statistics file of the experiment (default:\n"
           "                     BASE.stat beside FILE, when there is one)\n"
           "      --external=FILE  the experiment the external percentage refers to\n"
           "      --serve        serve the page on 127.0.0.1 instead of writing it;\n"
           "                     the URL (with its access token) is printed; stop\n"
           "                     with SIGINT or SIGTERM\n"
           "      --port=N       the port of --serve (default 0: any free port)\n"
           "  -h, --help         this help\n"
           "      --version      the version\n\n"
           "FILE may be gzip-compressed; '-' reads standard input.\n"
           "Exit status: 0 on success, 2 on a usage error or bad input.\n"
           "See cube_view(1).\n",
           usage);
}

typedef struct {
    const char *output;
    unsigned long long max_size;
    const char *stat;
    const char *external;
    int serve;
    unsigned port;
    const char *input;
} options;

/* SIZE of --max-size: decimal digits with an optional k, M or G. */
static int parse_size(const char *arg, unsigned long long *out)
{
    const char *p = arg;
    unsigned long long v = 0;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (ULLONG_MAX - 9) / 10)
            return -1;
        v = v * 10 + (unsigned long long)(*p - '0');
    }
    unsigned long long unit = 1;
    if (*p == 'k' || *p == 'K')
        unit = 1000;
    else if (*p == 'M')
        unit = 1000 * 1000;
    else if (*p == 'G')
        unit = 1000 * 1000 * 1000;
    else if (*p)
        return -1;
    if (*p && p[1])
        return -1;
    if (v > ULLONG_MAX / unit)
        return -1;
    *out = v * unit;
    return 0;
}

/* The last component of a path, for the page's title. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* The folder of `path` (malloc'ed), or NULL for standard input. */
static char *dir_name(const char *path)
{
    if (strcmp(path, "-") == 0)
        return NULL;
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(len + 1);
    if (d) {
        memcpy(d, path, len);
        d[len] = '\0';
    }
    return d;
}

/* The statistics file beside an experiment: FILE without .gz and .cube or
 * .cubex, then .stat (Scalasca writes trace.stat beside trace.cube).  NULL
 * when there is none (or out of memory). */
static char *stat_beside(const char *path)
{
    if (strcmp(path, "-") == 0)
        return NULL;
    size_t len = strlen(path);
    char *s = malloc(len + 6);
    if (!s)
        return NULL;
    memcpy(s, path, len + 1);
    if (len > 3 && strcmp(s + len - 3, ".gz") == 0)
        s[len -= 3] = '\0';
    if (len > 6 && strcmp(s + len - 6, ".cubex") == 0)
        s[len -= 6] = '\0';
    else if (len > 5 && strcmp(s + len - 5, ".cube") == 0)
        s[len -= 5] = '\0';
    memcpy(s + len, ".stat", 6);
    struct stat st;
    if (stat(s, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(s);
        return NULL;
    }
    return s;
}

static cube_statfile *read_stat(const char *path, int given)
{
    cube_statfile *s = cube_statfile_create();
    if (!s) {
        cli_error("out of memory");
        return NULL;
    }
    if (cube_statfile_read(s, path) != 0) {
        if (given)
            cli_error("%s", cube_statfile_error(s));
        else
            fprintf(stderr, "%s: warning: %s (statistics left out)\n", cli_tool(),
                    cube_statfile_error(s));
        cube_statfile_free(s);
        return NULL;
    }
    for (size_t i = 0; i < cube_statfile_num_warnings(s); i++)
        fprintf(stderr, "%s: warning: %s\n", cli_tool(), cube_statfile_warning(s, i));
    return s;
}

/* The values are deflated in the page, and how well they compress shows
 * only when the page is built: a file is refused before that only when
 * its values would have to shrink more than this. */
#define DEFLATE_HOPE 16ull

/* The bytes the values would take in the page without deflating (base64
 * of the stored rows), to refuse a file far too large before building its
 * page. */
static unsigned long long values_estimate(const cube_t *c)
{
    unsigned long long rows = cube_num_rows(c);
    return rows * (cube_num_threads(c) * 8ull + 4) / 3 * 4;
}

static void refuse_size(const options *o, unsigned long long size, int at_least)
{
    cli_error("%s: the page would take %s%llu bytes, more than --max-size=%llu; "
              "use 'cube_view --serve %s' for an experiment this large",
              o->input, at_least ? "at least " : "", size, o->max_size, o->input);
}

/* Write the page (embedded values).  Into a regular file it goes as it is
 * produced (a temporary file, renamed when complete); standard output and
 * an existing pipe or device get it only when it is complete and within
 * the size, from memory.  Exit status. */
static int write_page(const options *o, view_source *src)
{
    unsigned long long overhead = view_page_overhead();
    if (overhead + values_estimate(src->c) / DEFLATE_HOPE > o->max_size) {
        refuse_size(o, overhead + values_estimate(src->c) / DEFLATE_HOPE, 1);
        return EXIT_TROUBLE;
    }
    cli_output out;
    if (cli_output_open(&out, o->output) != 0)
        return EXIT_TROUBLE;
    struct stat st;
    char *mem = NULL;
    size_t mem_len = 0;
    FILE *fp = out.fp;
    /* a regular file other than standard output is a temporary file */
    if ((strcmp(o->output, "-") == 0 || fstat(fileno(out.fp), &st) != 0 ||
         !S_ISREG(st.st_mode)) &&
        !(fp = open_memstream(&mem, &mem_len))) {
        cli_error("out of memory");
        cli_output_close(&out, 0);
        return EXIT_TROUBLE;
    }
    unsigned long long unwritten = 0;
    src->max_size = o->max_size;
    src->unwritten = &unwritten;
    int rc = view_write_page_of(fp, src);
    off_t size = ftello(fp);
    if (fp != out.fp) {
        if (fclose(fp) != 0 && rc == 0) {
            cli_error("out of memory");
            rc = -1;
        }
        size = (off_t)mem_len;
    }
    /* a failed ftello leaves the size to the write error it comes with */
    if (rc == 0 && size >= 0 && (unsigned long long)size + unwritten > o->max_size) {
        refuse_size(o, (unsigned long long)size + unwritten, 0);
        rc = -1;
    }
    if (rc == 0 && fp != out.fp)
        fwrite(mem, 1, mem_len, out.fp);
    free(mem);
    return cli_output_close(&out, rc == 0) == 0 ? EXIT_OK : EXIT_TROUBLE;
}

/* The page of --serve, without values.  Exit status. */
static int serve(const options *o, view_source *src)
{
    src->served = 1;
    char *page = NULL;
    size_t page_len = 0;
    FILE *mem = open_memstream(&page, &page_len);
    if (!mem) {
        cli_error("out of memory");
        return EXIT_TROUBLE;
    }
    int rc = view_write_page_of(mem, src);
    if (fclose(mem) != 0 && rc == 0) {
        cli_error("out of memory");
        rc = -1;
    }
    if (rc == 0)
        rc = view_serve(src->c, page, page_len, o->port);
    free(page);
    return rc == 0 ? EXIT_OK : EXIT_TROUBLE;
}

static int run(const options *o)
{
    if (!o->serve && strcmp(o->output, "-") == 0 && isatty(STDOUT_FILENO)) {
        cli_error("the page is not written to a terminal: give -o PAGE.html or redirect the "
                  "output");
        return EXIT_TROUBLE;
    }
    view_source src;
    memset(&src, 0, sizeof src);
    src.file = base_name(o->input);
    int status = EXIT_TROUBLE;
    cube_t *c = NULL, *ext = NULL;
    double *totals = NULL;
    cube_statfile *stat = NULL;
    char *beside = NULL, *dir = NULL;

    if (!(c = cli_read(o->input)))
        goto out;
    src.c = c;
    dir = dir_name(o->input);
    src.dir = dir;
    if (o->external) {
        if (!(ext = cli_read(o->external)))
            goto out;
        cube_status st;
        totals = malloc((cube_num_metrics(ext) + 1) * sizeof *totals);
        if (!totals) {
            cli_error("out of memory");
            goto out;
        }
        if (cube_metric_totals(ext, totals, &st) != 0) {
            cli_error("%s: %s", o->external, st.message);
            goto out;
        }
        src.external = totals;
        src.external_c = ext;
        src.external_file = base_name(o->external);
    }
    if (o->stat) {
        if (!(stat = read_stat(o->stat, 1)))
            goto out;
        src.stat_file = base_name(o->stat);
    } else if ((beside = stat_beside(o->input))) {
        stat = read_stat(beside, 0);
        src.stat_file = base_name(beside);
    }
    src.stat = stat;
    status = o->serve ? serve(o, &src) : write_page(o, &src);
out:
    cube_statfile_free(stat);
    free(beside);
    free(dir);
    free(totals);
    cube_free(ext);
    cube_free(c);
    return status;
}

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    enum { OPT_MAX_SIZE = 256, OPT_STAT, OPT_EXTERNAL, OPT_SERVE, OPT_PORT };
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"max-size", required_argument, NULL, OPT_MAX_SIZE},
                                             {"stat", required_argument, NULL, OPT_STAT},
                                             {"external", required_argument, NULL, OPT_EXTERNAL},
                                             {"serve", no_argument, NULL, OPT_SERVE},
                                             {"port", required_argument, NULL, OPT_PORT},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, 'V'},
                                             {NULL, 0, NULL, 0}};
    options o;
    memset(&o, 0, sizeof o);
    o.output = "-";
    o.max_size = DEFAULT_MAX_SIZE;
    int opt, have_output = 0, have_port = 0, have_max = 0;
    size_t port;
    while ((opt = cli_getopt(argc, argv, "o:h", longopts, usage)) != -1) {
        switch (opt) {
        case 'o': o.output = optarg; have_output = 1; break;
        case OPT_MAX_SIZE:
            if (parse_size(optarg, &o.max_size) != 0)
                cli_usage_error(usage, "--max-size takes a number of bytes with an optional "
                                       "k, M or G, not '%s'", optarg);
            have_max = 1;
            break;
        case OPT_STAT: o.stat = optarg; break;
        case OPT_EXTERNAL: o.external = optarg; break;
        case OPT_SERVE: o.serve = 1; break;
        case OPT_PORT:
            if (cli_parse_count(optarg, &port) != 0 || port > 65535)
                cli_usage_error(usage, "--port takes a port number from 0 to 65535, not '%s'",
                                optarg);
            o.port = (unsigned)port;
            have_port = 1;
            break;
        case 'h': print_help(); return EXIT_OK;
        case 'V': cli_print_version(); return EXIT_OK;
        }
    }
    if (o.serve && (have_output || have_max))
        cli_usage_error(usage, "--serve writes no page: -o and --max-size do not apply");
    if (!o.serve && have_port)
        cli_usage_error(usage, "--port needs --serve");
    if (argc - optind != 1)
        cli_usage_error(usage, argc == optind ? "no input file" : "exactly one input file");
    o.input = argv[optind];
    return run(&o);
}
