/*
 * postproc.c - cube_bench --merge and --report (see postproc.h): thin
 * front-ends that parse options and call the merge of runs (merge.h) and
 * the report module, as the other tools do.
 */
#include "postproc.h"

#include "bench.h"       /* CUBE_BENCH_VERSION (no MPI call is made here) */
#include "cli_common.h"
#include "cube.h"
#include "merge.h"
#include "report.h"
#include "util.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: cube_bench --merge [-o MERGED.cube] RUN.cube...\n"
    "       cube_bench --report [-o REPORT.html] RUN.cube...\n"
    "       cube_bench --compare [--threshold=PCT] [-s csv|tsv|json|human] [-o FILE]\n"
    "                  BEFORE.cube AFTER.cube\n"
    "\n"
    "  --merge    merge runs of one parameter file and process count: per suite,\n"
    "             argument and rank the weighted median of the runs' times (weights:\n"
    "             their repetitions), arguments one run lacks interpolated between\n"
    "             its neighbours (default output merge.cube)\n"
    "  --report   one self-contained HTML page: per suite a log-log plot of time\n"
    "             against the argument with standard-error bars, the runs overlaid,\n"
    "             and a table (default output report.html)\n"
    "  --compare  a regression gate: per suite and argument (the union of both\n"
    "             runs' arguments, interpolated as --merge does, never extrapolated)\n"
    "             rank 0's time AFTER/BEFORE with its standard error; a change beyond\n"
    "             2 standard errors is marked faster or slower, and a regression when\n"
    "             it is slower than the threshold beyond them (default output '-')\n"
    "      --threshold=PCT  the regression threshold in per cent (default 10)\n"
    "  -s, --style FORMAT  --compare's format: csv, tsv, json or human (default)\n"
    "  -o, --output FILE   the output; '-' is standard output; written atomically\n"
    "  -h, --help          this text\n"
    "\n"
    "Neither starts MPI: run them alone or under mpiexec (only the first process\n"
    "works).  Exit status: 0 success, 2 usage errors, bad or unmergeable inputs;\n"
    "--compare: 0 no regression, 1 a regression, 2 errors.\n";

int postproc_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--merge") == 0 || strcmp(argv[i], "--report") == 0 ||
            strcmp(argv[i], "--compare") == 0)
            return 1;
    }
    return 0;
}

/* Under mpiexec every process runs this; the launchers tell a process its
 * rank in the environment (MPICH's Hydra PMI_RANK, Open MPI, PMIx), so
 * that without MPI_Init the others can step aside and one writes. */
static int first_process(void)
{
    static const char *const vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strcmp(v, "0") == 0;
    }
    return 1;
}

static int do_merge(char **inputs, size_t n, const char *output)
{
    char err[2048] = "";
    size_t len = strlen(output);
    unsigned flags = len >= 3 && strcmp(output + len - 3, ".gz") == 0 ? CUBE_WRITE_GZIP : 0;
    if (cube_bench_merge_files((const char *const *)inputs, n, output, flags, err, sizeof err) !=
        0) {
        bench_say("cube_bench", -1, "%s", *err ? err : "merging failed");
        return 2;
    }
    return 0;
}

/* The report into `output`, atomically (cube_output_open): "-" is
 * standard output, a FIFO is written directly. */
static int write_report(cube_t *const *runs, char **names, size_t n, const char *output)
{
    cube_status st;
    cube_output *out = cube_output_open(output, &st);
    if (!out) {
        bench_say("cube_bench", -1, "%s", st.message);
        return 2;
    }
    char err[2048] = "";
    if (bench_report_write(cube_output_stream(out), runs, (const char *const *)names, n, err,
                           sizeof err) != 0) {
        if (!*err)
            snprintf(err, sizeof err, "%s: the report could not be made", output);
        cube_output_close(out, 0, NULL);
        bench_say("cube_bench", -1, "%s", err);
        return 2;
    }
    if (cube_output_close(out, 1, &st) != 0) {
        bench_say("cube_bench", -1, "%s", st.message);
        return 2;
    }
    return 0;
}

/* Read the runs named by inputs[0..n-1] into runs[] (each freed by the
 * caller with cube_free, NULL ones too): 0, or 2 after a message. */
static int read_runs(char **inputs, size_t n, cube_t **runs)
{
    for (size_t i = 0; i < n; i++) {
        runs[i] = cube_create();
        if (!runs[i]) {
            bench_say("cube_bench", -1, "out of memory");
            return 2;
        }
        if (cube_read(runs[i], inputs[i]) != 0) {
            bench_say("cube_bench", -1, "%s", cube_error(runs[i]));
            return 2;
        }
    }
    return 0;
}

static int do_report(char **inputs, size_t n, const char *output)
{
    cube_t **runs = calloc(n, sizeof *runs);
    if (!runs) {
        bench_say("cube_bench", -1, "out of memory");
        return 2;
    }
    int status = read_runs(inputs, n, runs);
    if (status == 0)
        status = write_report(runs, inputs, n, output);
    for (size_t i = 0; i < n; i++)
        cube_free(runs[i]);
    free(runs);
    return status;
}

static const char *source_name(int src)
{
    return src == 1 ? "measured" : src == 2 ? "interpolated" : NULL;
}

/* The comparison as a table: machine formats carry the numbers in
 * seconds, the human one in readable units with "~" before interpolated
 * values. */
static int print_compare(FILE *fp, cli_format format, const cube_bench_cmp_row *rows, size_t n)
{
    static const cli_column machine[] = {
        {"suite", 0},          {"argument", 0},        {"before", CLI_COL_NUMBER},
        {"before_stderr", CLI_COL_NUMBER}, {"before_source", 0}, {"after", CLI_COL_NUMBER},
        {"after_stderr", CLI_COL_NUMBER}, {"after_source", 0},  {"ratio", CLI_COL_NUMBER},
        {"ratio_stderr", CLI_COL_NUMBER}, {"verdict", 0}};
    static const cli_column human[] = {
        {"suite", 0},  {"argument", 0},           {"before", CLI_COL_NUMBER},
        {"after", CLI_COL_NUMBER}, {"ratio", CLI_COL_NUMBER}, {"+-", CLI_COL_NUMBER},
        {"verdict", 0}};
    int people = format == CLI_FORMAT_HUMAN;
    cli_table *t = people ? cli_table_begin(fp, format, human, sizeof human / sizeof human[0], 0)
                          : cli_table_begin(fp, format, machine,
                                            sizeof machine / sizeof machine[0], 0);
    if (!t)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const cube_bench_cmp_row *r = &rows[i];
        if (people && i > 0 && (strcmp(r->suite, rows[i - 1].suite) != 0 ||
                                r->occurrence != rows[i - 1].occurrence))
            cli_table_gap(t);
        cli_table_text(t, r->suite);
        cli_table_text(t, r->argument);
        if (people) {
            char b[40], a[40], v[48];
            snprintf(v, sizeof v, "%s%s", r->before_source == 2 ? "~" : "",
                     bench_short_time(r->before, b, sizeof b));
            cli_table_text(t, v);
            snprintf(v, sizeof v, "%s%s", r->after_source == 2 ? "~" : "",
                     bench_short_time(r->after, a, sizeof a));
            cli_table_text(t, v);
            if (isnan(r->ratio)) {
                cli_table_text(t, "-");
                cli_table_text(t, "-");
            } else {
                snprintf(v, sizeof v, "%.3f", r->ratio);
                cli_table_text(t, v);
                snprintf(v, sizeof v, "%.3f", r->ratio_se);
                cli_table_text(t, v);
            }
        } else {
            cli_table_double(t, r->before);
            cli_table_double(t, r->before_se);
            cli_table_text(t, source_name(r->before_source));
            cli_table_double(t, r->after);
            cli_table_double(t, r->after_se);
            cli_table_text(t, source_name(r->after_source));
            cli_table_double(t, r->ratio);
            cli_table_double(t, r->ratio_se);
        }
        cli_table_text(t, cube_bench_verdict_name(r->verdict));
        cli_table_end_row(t);
    }
    return cli_table_end(t);
}

static int do_compare(char **inputs, size_t n, const char *output, cli_format format,
                      double threshold)
{
    if (n != 2) {
        bench_say("cube_bench", -1, "--compare needs two runs, BEFORE and AFTER; found %zu (see --help)", n);
        return 2;
    }
    cli_init("cube_bench");
    cube_t *runs[2] = {NULL, NULL};
    int status = read_runs(inputs, 2, runs);
    cube_bench_cmp_row *rows = NULL;
    size_t nrows = 0;
    char err[2048] = "";
    if (status == 0 && cube_bench_compare(runs[0], runs[1], (const char *const *)inputs,
                                          threshold / 100.0, &rows, &nrows, err, sizeof err) != 0) {
        bench_say("cube_bench", -1, "%s", err);
        status = 2;
    }
    if (status == 0) {
        cli_output out;
        if (cli_output_open(&out, output) != 0)
            status = 2;
        else {
            int ok = print_compare(out.fp, format, rows, nrows) == 0;
            if (cli_output_close(&out, ok) != 0 || !ok)
                status = 2;
        }
        for (size_t i = 0; i < nrows && status == 0; i++)
            if (rows[i].verdict == CUBE_BENCH_REGRESSION)
                status = 1;
    }
    free(rows);
    cube_free(runs[0]);
    cube_free(runs[1]);
    return status;
}

int postproc_main(int argc, char **argv)
{
    enum { OPT_MERGE = 256, OPT_REPORT, OPT_VERSION, OPT_COMPARE, OPT_THRESHOLD };
    static const struct option longopts[] = {{"merge", no_argument, NULL, OPT_MERGE},
                                             {"report", no_argument, NULL, OPT_REPORT},
                                             {"compare", no_argument, NULL, OPT_COMPARE},
                                             {"threshold", required_argument, NULL, OPT_THRESHOLD},
                                             {"style", required_argument, NULL, 's'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, OPT_VERSION},
                                             {NULL, 0, NULL, 0}};
    if (!first_process())
        return 0;
    int merge = 0, report = 0, compare = 0, help = 0, version = 0;
    const char *output = NULL, *style = NULL, *threshold_text = NULL;
    double threshold = 10.0;
    cli_format format = CLI_FORMAT_HUMAN;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":o:s:h", longopts, NULL)) != -1) {
        switch (ch) {
        case OPT_COMPARE:
            compare = 1;
            break;
        case OPT_THRESHOLD:
            threshold_text = optarg;
            break;
        case 's':
            style = optarg;
            break;
        case OPT_MERGE:
            merge = 1;
            break;
        case OPT_REPORT:
            report = 1;
            break;
        case 'o':
            output = optarg;
            break;
        case 'h':
            help = 1;
            break;
        case OPT_VERSION:
            version = 1;
            break;
        case ':':
            bench_say("cube_bench", -1, "option %s needs an argument (see --help)", argv[optind - 1]);
            return 2;
        default:
            if (optopt)
                bench_say("cube_bench", -1, "option -%c does not go with --merge, --report or --compare (see --help)", optopt);
            else
                bench_say("cube_bench", -1, "option %s does not go with --merge, --report or --compare (see --help)",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (help) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (version) {
        printf("cube_bench %s (libcube %s)\n", CUBE_BENCH_VERSION, cube_version());
        return 0;
    }
    if (merge + report + compare > 1) {
        bench_say("cube_bench", -1, "--merge, --report and --compare are separate runs of cube_bench, not one (see --help)");
        return 2;
    }
    if ((style || threshold_text) && !compare) {
        bench_say("cube_bench", -1, "%s goes with --compare only (see --help)",
                  style ? "-s" : "--threshold");
        return 2;
    }
    if (style && cli_format_parse(style, &format) != 0) {
        bench_say("cube_bench", -1, "option -s: expected csv, tsv, json or human, found '%s'", style);
        return 2;
    }
    if (threshold_text) {
        char *end = NULL;
        threshold = strtod(threshold_text, &end);
        if (end == threshold_text || *end != '\0' || !isfinite(threshold) || threshold < 0.0) {
            bench_say("cube_bench", -1, "option --threshold: expected a percentage >= 0, found '%s'",
                      threshold_text);
            return 2;
        }
    }
    if (optind >= argc) {
        bench_say("cube_bench", -1, "--%s needs at least one run (see --help)",
                  merge ? "merge" : compare ? "compare" : "report");
        return 2;
    }
    char **inputs = argv + optind;
    size_t n = (size_t)(argc - optind);
    if (compare)
        return do_compare(inputs, n, output ? output : "-", format, threshold);
    if (merge)
        return do_merge(inputs, n, output ? output : "merge.cube");
    return do_report(inputs, n, output ? output : "report.html");
}
