/*
 * cube_cmp - are two experiments equal, within a tolerance?  The CI gate:
 * exit 0 equal, 1 not equal (the first differences printed), 2 trouble.
 */
#include "algebra_cli.h"
#include "cli_rank.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "cube_cmp [-q] [-n N] [-c|-C] [--match=full|name] [--rel-tol=X] [--abs-tol=Y]\n"
    "                [--metric=UNIQ]... [--by=LEVEL] [--ignore-below=P] A B";

static void print_help(void)
{
    printf("usage: %s\n"
           "Compare two experiments: equal when both have the same metrics, call paths and\n"
           "threads, and every value agrees within the tolerances.\n\n"
           ALGEBRA_LINEUP_HELP
           "      --rel-tol=X   values agree when |a-b| <= X * max(|a|,|b|)\n"
           "                    (default 4.4e-16, about 2 ulp)\n"
           "      --abs-tol=Y   values agree when |a-b| <= Y (default 2.2e-308)\n"
           "      --metric=UNIQ compare only the metric with this unique name, or this\n"
           "                    display name if only one metric has it (repeatable)\n"
           "      --by=LEVEL    compare the values of each thread (default), or combined\n"
           "                    per process, node, machine, or over all threads\n"
           "      --ignore-below=P  ignore the value differences of a call path whose value\n"
           "                    is below P percent of the metric's total in A and in B\n"
           "  -n, --max-differences=N  print at most N differences (default 10; 0: all)\n"
           "  -q, --quiet       print nothing, only the exit status tells\n"
           "  -h, --help        this help\n"
           "      --version     the version\n\n"
           "Exit status: 0 equal, 1 not equal, 2 on a usage error or bad input.\n"
           "See cube_cmp(1).\n",
           usage);
}

static double parse_tolerance(const char *arg, const char *option)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end || errno || !isfinite(v) || v < 0)
        cli_usage_error(usage, "%s takes a non-negative number, not '%s'", option, arg);
    return v;
}

/* One line of the differences table (see cube_cmp(1) for the columns). */
static void print_warning(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "%s: warning: %s\n", cli_tool(), message);
}

/* The table has one column naming a combined item instead of the ranks
 * (--by other than thread): report_item's lines, and report's lines of
 * what differs in the dimensions. */
static int by_item;

static void report_item(void *user, const char *metric, const char *call_path, const char *item,
                        double a, double b)
{
    FILE *out = user;
    fprintf(out, "value\t%s\t%s\t%s\t", metric, call_path[0] ? call_path : "-",
            item[0] ? item : "all");
    cli_print_double(out, a);
    fputc('\t', out);
    cli_print_double(out, b);
    fputc('\t', out);
    cli_print_double(out, b - a);
    fputc('\n', out);
}

static void report(void *user, const char *what, const char *metric, const char *call_path,
                   long long process_rank, long long thread_rank, double a, double b)
{
    FILE *out = user;
    fprintf(out, "%s\t%s\t%s\t", what, metric[0] ? metric : "-", call_path[0] ? call_path : "-");
    if (by_item) {
        if (process_rank < 0)
            fprintf(out, "-\t-\t-\t-\n");
        else
            fprintf(out, "process %lld thread %lld\t-\t-\t-\n", process_rank, thread_rank);
        return;
    }
    if (process_rank < 0) {
        fprintf(out, "-\t-\t-\t-\n");
    } else if (strcmp(what, "value") != 0) {
        fprintf(out, "%lld\t%lld\t-\t-\n", process_rank, thread_rank);
    } else {
        fprintf(out, "%lld\t%lld\t", process_rank, thread_rank);
        cli_print_double(out, a);
        fputc('\t', out);
        cli_print_double(out, b);
        fputc('\n', out);
    }
}

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    static const struct option options[] = {{"match", required_argument, NULL, 'm'},
                                            {"rel-tol", required_argument, NULL, 'r'},
                                            {"abs-tol", required_argument, NULL, 'a'},
                                            {"metric", required_argument, NULL, 'M'},
                                            {"max-differences", required_argument, NULL, 'n'},
                                            {"by", required_argument, NULL, 'B'},
                                            {"ignore-below", required_argument, NULL, 'I'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {NULL, 0, NULL, 0}};
    cube_match match = CUBE_MATCH_FULL;
    cube_system_rule rule = CUBE_SYSTEM_AGREE;
    cube_compare_options o;
    cube_compare_options_init(&o);
    o.warn = print_warning;
    /* static: a usage error exits from inside the option loop, and the
     * list must not count as leaked then */
    static const char **metrics;
    metrics = calloc((size_t)argc + 1, sizeof *metrics);
    size_t num_metrics = 0;
    int quiet = 0, opt;
    if (!metrics) {
        cli_error("out of memory");
        return EXIT_TROUBLE;
    }
    /* cli_getopt reports bad options itself and never returns them */
    while ((opt = cli_getopt(argc, argv, "cCn:qh", options, usage)) != -1) {
        switch (opt) {
        case 'c':
            if (rule != CUBE_SYSTEM_COLLAPSE)
                rule = CUBE_SYSTEM_FIRST;
            break;
        case 'C': rule = CUBE_SYSTEM_COLLAPSE; break;
        case 'm': match = algebra_parse_match(optarg, usage); break;
        case 'r': o.rel_tol = parse_tolerance(optarg, "--rel-tol"); break;
        case 'a': o.abs_tol = parse_tolerance(optarg, "--abs-tol"); break;
        case 'M': metrics[num_metrics++] = optarg; break;
        case 'n': {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (end == optarg || *end || n < 0)
                cli_usage_error(usage, "--max-differences takes a count, not '%s'", optarg);
            o.max_reported = n ? (size_t)n : (size_t)-1;
            break;
        }
        case 'B': o.by = cli_parse_by(optarg, usage); break;
        case 'I':
            if (cli_parse_percent(optarg, &o.ignore_below) != 0)
                cli_usage_error(usage, "--ignore-below takes a percentage from 0 to 100, not '%s'",
                                optarg);
            break;
        case 'q': quiet = 1; break;
        case 'h': print_help(); free(metrics); return EXIT_OK;
        case 'V': cli_print_version(); free(metrics); return EXIT_OK;
        }
    }
    if (argc - optind != 2)
        cli_usage_error(usage, "2 experiments needed, %d given", argc - optind);
    if (strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0)
        cli_usage_error(usage, "standard input ('-') can be read only once");
    o.metrics = num_metrics ? metrics : NULL;
    if (o.by != CUBE_BY_THREAD) {
        o.report_item = report_item;
        by_item = 1;
    }
    if (quiet)
        o.max_reported = 0;

    /* the table follows the verdict: collect it (at most max_reported
     * lines) and print it after */
    cube_status st;
    char *table = NULL;
    size_t count = 0, table_len = 0;
    FILE *lines = open_memstream(&table, &table_len);
    if (!lines) {
        cli_error("out of memory");
        free(metrics);
        return EXIT_TROUBLE;
    }
    int rc = cube_compare(argv[optind], argv[optind + 1], match, rule, &o, report, lines,
                          &count, &st);
    fclose(lines);
    if (rc < 0)
        cli_error("%s", st.message);
    else if (!quiet && rc == 0)
        printf("Experiments are equal.\n");
    else if (!quiet) {
        printf("Experiments are not equal: %zu difference%s.\n", count, count == 1 ? "" : "s");
        static const char *const item_column[] = {"", "process rank", "node", "machine",
                                                  "threads"};
        if (by_item)
            printf("what\tmetric\tcall path\t%s\tA\tB\tB-A\n", item_column[o.by]);
        else
            printf("what\tmetric\tcall path\tprocess rank\tthread rank\tA\tB\n");
        fwrite(table, 1, table_len, stdout);
        if (count > o.max_reported)
            printf("(%zu more; --max-differences=0 prints all)\n", count - o.max_reported);
    }
    free(table);
    free(metrics);
    /* a verdict that did not reach standard output is no verdict */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("cannot write to standard output");
        return EXIT_TROUBLE;
    }
    return rc < 0 ? EXIT_TROUBLE : rc == 0 ? EXIT_OK : EXIT_NEGATIVE;
}
