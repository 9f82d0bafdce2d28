/*
 * postproc.c - cube_bench --merge and --report (see postproc.h): thin
 * front-ends that parse options and call the merge of runs (merge.h) and
 * the report module, as the other tools do.
 */
#include "postproc.h"

#include "bench.h"       /* CUBE_BENCH_VERSION (no MPI call is made here) */
#include "cube.h"
#include "merge.h"
#include "report.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: cube_bench --merge [-o MERGED.cube] RUN.cube...\n"
    "       cube_bench --report [-o REPORT.html] RUN.cube...\n"
    "\n"
    "  --merge    merge runs of one parameter file and process count: per suite,\n"
    "             argument and rank the weighted median of the runs' times (weights:\n"
    "             their repetitions), arguments one run lacks interpolated between\n"
    "             its neighbours (default output merge.cube)\n"
    "  --report   one self-contained HTML page: per suite a log-log plot of time\n"
    "             against the argument with standard-error bars, the runs overlaid,\n"
    "             and a table (default output report.html)\n"
    "  -o, --output FILE   the output; '-' is standard output; written atomically\n"
    "  -h, --help          this text\n"
    "\n"
    "Neither starts MPI: run them alone or under mpiexec (only the first process\n"
    "works).  Exit status: 0 success, 2 usage errors, bad or unmergeable inputs.\n";

int postproc_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--merge") == 0 || strcmp(argv[i], "--report") == 0)
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

static int do_report(char **inputs, size_t n, const char *output)
{
    cube_t **runs = calloc(n, sizeof *runs);
    if (!runs) {
        bench_say("cube_bench", -1, "out of memory");
        return 2;
    }
    int status = 0;
    for (size_t i = 0; i < n && status == 0; i++) {
        runs[i] = cube_create();
        if (!runs[i]) {
            bench_say("cube_bench", -1, "out of memory");
            status = 2;
        } else if (cube_read(runs[i], inputs[i]) != 0) {
            bench_say("cube_bench", -1, "%s", cube_error(runs[i]));
            status = 2;
        }
    }
    if (status == 0)
        status = write_report(runs, inputs, n, output);
    for (size_t i = 0; i < n; i++)
        cube_free(runs[i]);
    free(runs);
    return status;
}

int postproc_main(int argc, char **argv)
{
    enum { OPT_MERGE = 256, OPT_REPORT, OPT_VERSION };
    static const struct option longopts[] = {{"merge", no_argument, NULL, OPT_MERGE},
                                             {"report", no_argument, NULL, OPT_REPORT},
                                             {"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, OPT_VERSION},
                                             {NULL, 0, NULL, 0}};
    if (!first_process())
        return 0;
    int merge = 0, report = 0, help = 0, version = 0;
    const char *output = NULL;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (ch) {
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
                bench_say("cube_bench", -1, "option -%c does not go with --merge or --report (see --help)", optopt);
            else
                bench_say("cube_bench", -1, "option %s does not go with --merge or --report (see --help)",
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
    if (merge && report) {
        bench_say("cube_bench", -1, "--merge and --report are two runs of cube_bench, not one (see --help)");
        return 2;
    }
    if (optind >= argc) {
        bench_say("cube_bench", -1, "--%s needs at least one run (see --help)", merge ? "merge" : "report");
        return 2;
    }
    char **inputs = argv + optind;
    size_t n = (size_t)(argc - optind);
    if (merge)
        return do_merge(inputs, n, output ? output : "merge.cube");
    return do_report(inputs, n, output ? output : "report.html");
}
