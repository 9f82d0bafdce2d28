/*
 * cube_linktest - reports on LinkTest result files (SION containers,
 * LinkTest 2.1.x and 1.x; see linktest-sion(5)):
 *   - a run summary with the slowest measurements (default);
 *   - --hosts: per host, outliers flagged; --slowest N; --matrix;
 *     --histogram (log scale); --iterations: the aggregates LinkTest
 *     stored per iteration;
 *   - -o: where the report goes, as in every other tool;
 *   - --svg: heat map and histogram; --cube: the run as a CUBE experiment.
 */
#include "cli_common.h"
#include "linktest_svg.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "cube_linktest [--hosts | --slowest N | --matrix | --histogram | --iterations]\n"
    "                     [-s FORMAT] [--bins N] [-o OUT] [--svg OUT.svg]\n"
    "                     [--cube OUT.cube [-z]] FILE";

static void print_help(void)
{
    printf("usage: %s\n"
           "Reports on a LinkTest result file (a SION file of LinkTest 2.1.x or 1.x).\n"
           "Without a report option: the run summary and the 10 slowest measurements.\n\n"
           "      --hosts          per host: min/mean/median/max of its ranks' times,\n"
           "                       outlier hosts (median beyond 3 MAD) flagged\n"
           "      --slowest=N      the N slowest measurements\n"
           "      --matrix         the time matrix, one block per iteration (CSV)\n"
           "      --histogram      a histogram of the times on a log scale\n"
           "      --iterations     per iteration: its start and end time and the min/avg/max\n"
           "                       (and all-to-all min/avg/max) LinkTest stored\n"
           "      --bins=N         histogram bins (default 20)\n"
           "  -s, --format=FORMAT  human (default), csv, tsv or json\n"
           "  -o, --output=OUT     where the report goes (default '-', standard output)\n"
           "      --svg=OUT.svg    write the heat map of the matrix and the histogram\n"
           "      --cube=OUT.cube  write the run as a CUBE experiment ('-': standard output)\n"
           "  -z, --gzip           gzip the experiment (also when OUT.cube ends in .gz)\n"
           "  -h, --help           this help\n"
           "      --version        the version\n\n"
           "With --svg or --cube and neither a report option nor -o, nothing is printed.\n"
           "FILE is file 0 of a multi-file set ('-': standard input, when it is a\n"
           "file).  Times are seconds (microseconds in human tables); bandwidth is\n"
           "message size / time.\n"
           "Exit status: 0 on success, 2 on a usage error or a bad file.\n"
           "See cube_linktest(1) and linktest-sion(5).\n",
           usage);
}

typedef enum { REPORT_NONE, REPORT_SUMMARY, REPORT_HOSTS, REPORT_SLOWEST, REPORT_MATRIX,
               REPORT_HISTOGRAM, REPORT_ITERATIONS } report;

typedef struct {
    report report;
    cli_format format;
    size_t slowest; /* --slowest */
    size_t bins;    /* --bins */
    const char *output; /* the report's; NULL: standard output */
    const char *svg;
    const char *cube;
    int gzip;
    const char *input; /* as given */
    const char *path;  /* what is opened */
} options;

#define SUMMARY_SLOWEST 10
#define GIB 1073741824.0

/* ------------------------------------------------------------------------
 * Helpers for the human tables: microseconds and GiB/s, 3 decimals.
 * ------------------------------------------------------------------------ */

static void human_number(cli_table *t, double v, double scale)
{
    if (isnan(v)) {
        cli_table_double(t, NAN);
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", v * scale);
    cli_table_text(t, buf);
}

static double bandwidth(const cube_linktest *lt, double time)
{
    double size = (double)cube_linktest_get_header(lt)->message_size;
    return time > 0 ? size / time : NAN;
}

/* A time (seconds), or in human tables microseconds. */
static void put_time(cli_table *t, cli_format f, double v)
{
    if (f == CLI_FORMAT_HUMAN)
        human_number(t, v, 1e6);
    else
        cli_table_double(t, v);
}

/* A bandwidth (bytes/s), or in human tables GiB/s. */
static void put_bandwidth(cli_table *t, cli_format f, double v)
{
    if (f == CLI_FORMAT_HUMAN)
        human_number(t, v, 1 / GIB);
    else
        cli_table_double(t, v);
}

/* ------------------------------------------------------------------------
 * --slowest N (and the summary's list)
 * ------------------------------------------------------------------------ */

static const cli_column slowest_columns[] = {
    {"rank", CLI_COL_NUMBER},     {"host", 0},           {"core", CLI_COL_NUMBER},
    {"partner", CLI_COL_NUMBER},  {"partner_host", 0},   {"partner_core", CLI_COL_NUMBER},
    {"iteration", CLI_COL_NUMBER}, {"time", CLI_COL_NUMBER}, {"bandwidth", CLI_COL_NUMBER},
    {"retested", CLI_COL_NUMBER},
};
static const cli_column slowest_columns_human[] = {
    {"rank", CLI_COL_NUMBER},     {"host", 0},           {"core", CLI_COL_NUMBER},
    {"partner", CLI_COL_NUMBER},  {"partner_host", 0},   {"partner_core", CLI_COL_NUMBER},
    {"iteration", CLI_COL_NUMBER}, {"time/us", CLI_COL_NUMBER}, {"GiB/s", CLI_COL_NUMBER},
    {"retested/us", CLI_COL_NUMBER},
};
#define NUM_SLOWEST_COLUMNS (sizeof slowest_columns / sizeof slowest_columns[0])

static void slowest_rows(cli_table *t, cli_format f, const cube_linktest *lt,
                         const cube_linktest_link *links, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        const cube_linktest_link *l = &links[i];
        cli_table_int(t, (long long)l->rank);
        cli_table_text(t, cube_linktest_hostname(lt, l->rank));
        cli_table_int(t, cube_linktest_core_id(lt, l->rank));
        cli_table_int(t, (long long)l->partner);
        cli_table_text(t, cube_linktest_hostname(lt, l->partner));
        cli_table_int(t, cube_linktest_core_id(lt, l->partner));
        cli_table_int(t, (long long)l->iteration);
        put_time(t, f, l->time);
        put_bandwidth(t, f, bandwidth(lt, l->time));
        put_time(t, f, l->retested);
        cli_table_end_row(t);
    }
}

/* The k slowest, or NULL after printing the error; *got: how many. */
static cube_linktest_link *find_slowest(cube_linktest *lt, size_t k, size_t *got)
{
    cube_linktest_link *links = malloc((k ? k : 1) * sizeof *links);
    if (!links) {
        cli_error("out of memory");
        return NULL;
    }
    if (cube_linktest_slowest(lt, k, links, got) != 0) {
        cli_error("%s", cube_linktest_error(lt));
        free(links);
        return NULL;
    }
    return links;
}

static int print_slowest(const options *o, cube_linktest *lt, FILE *fp)
{
    size_t got;
    cube_linktest_link *links = find_slowest(lt, o->slowest, &got);
    if (!links)
        return -1;
    cli_table *t = cli_table_begin(
        fp, o->format, o->format == CLI_FORMAT_HUMAN ? slowest_columns_human : slowest_columns,
        NUM_SLOWEST_COLUMNS, 0);
    if (t) {
        slowest_rows(t, o->format, lt, links, got);
        free(links);
        return cli_table_end(t);
    }
    free(links);
    return -1;
}

/* ------------------------------------------------------------------------
 * The summary
 * ------------------------------------------------------------------------ */

static const char *const flag_names[] = {
    "all-to-all", "bidirectional",  "unidirectional", "bisection",
    "step-randomization", "serial", "no-sion-file",   "parallel-sion",
    "gpu-memory", "multi-buffer",   "randomized-buffer", "check-buffer",
};

/* The set flags' names joined by `sep` into buf ("" when none). */
static void flag_list(const cube_linktest_header *h, const char *sep, char *buf, size_t len)
{
    const uint8_t flags[] = {h->all_to_all, h->bidirectional, h->unidirectional,
                             h->bisection,  h->step_randomization, h->serial,
                             h->no_sion_file, h->parallel_sion, h->gpu_memory,
                             h->multi_buffer, h->randomized_buffer, h->check_buffer};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof flags; i++) {
        if (!flags[i])
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? sep : "", flag_names[i]);
        if (w < 0 || (size_t)w >= len - used)
            return;
        used += (size_t)w;
    }
}

typedef struct {
    cube_linktest_stats time, a2a;
    size_t hosts;
    cube_linktest_link slowest[SUMMARY_SLOWEST];
    size_t num_slowest;
} summary;

static int compute_summary(cube_linktest *lt, summary *s)
{
    s->hosts = cube_linktest_num_hosts(lt);
    if (s->hosts == (size_t)-1) {
        cli_error("out of memory");
        return -1;
    }
    if (cube_linktest_summarize(lt, &s->time, SUMMARY_SLOWEST, s->slowest, &s->num_slowest) !=
            0 ||
        cube_linktest_a2a_stats(lt, &s->a2a) != 0) {
        cli_error("%s", cube_linktest_error(lt));
        return -1;
    }
    return 0;
}

static void version_string(const cube_linktest_header *h, char *buf, size_t len)
{
    snprintf(buf, len, "%u.%u.%u", (unsigned)h->major, (unsigned)h->minor, (unsigned)h->patch);
}

/* A row of the summary's human table: a label and four figures, scaled. */
static void stats_row(cli_table *t, const char *label, double min, double mean, double median,
                      double max, double scale)
{
    cli_table_text(t, label);
    human_number(t, min, scale);
    human_number(t, mean, scale);
    human_number(t, median, scale);
    human_number(t, max, scale);
    cli_table_end_row(t);
}

static int print_summary_human(const options *o, cube_linktest *lt, const summary *s,
                               FILE *fp)
{
    const cube_linktest_header *h = cube_linktest_get_header(lt);
    size_t m = cube_linktest_num_permutations(lt);
    char ver[48], flags[512];
    version_string(h, ver, sizeof ver);
    flag_list(h, ", ", flags, sizeof flags);
    fprintf(fp, "%s: LinkTest %s", o->input, ver);
    if (h->git_hash[0])
        fprintf(fp, "  git %s", h->git_hash);
    if (h->mode[0])
        fprintf(fp, "  mode \"%s\"", h->mode);
    fprintf(fp, "\nflags: %s\n", flags[0] ? flags : "none");
    fprintf(fp, "ranks: %zu on %zu host%s   message size: %llu bytes   messages: %llu",
            cube_linktest_num_ranks(lt), s->hosts, s->hosts == 1 ? "" : "s",
            (unsigned long long)h->message_size, (unsigned long long)h->num_messages);
    if (strcmp(h->tag, "LinkTest") == 0) /* LinkTest 1.x files do not store it */
        fprintf(fp, " (+%llu warm-up)", (unsigned long long)h->num_warmup_messages);
    fprintf(fp, "\niterations: %zu   serial retests: %llu\n", m,
            (unsigned long long)h->num_serial_retests);
    if (m && cube_linktest_get_permutation(lt, 0)->start_time[0])
        fprintf(fp, "start: %s   end: %s\n", cube_linktest_get_permutation(lt, 0)->start_time,
                cube_linktest_get_permutation(lt, m - 1)->end_time);
    fprintf(fp, "measurements: %zu\n\n", s->time.count);

    static const cli_column stat_columns[] = {{"", 0},
                                              {"min", CLI_COL_NUMBER},
                                              {"mean", CLI_COL_NUMBER},
                                              {"median", CLI_COL_NUMBER},
                                              {"max", CLI_COL_NUMBER}};
    cli_table *t = cli_table_begin(fp, CLI_FORMAT_HUMAN, stat_columns, 5, 0);
    if (!t)
        return -1;
    stats_row(t, "time/us", s->time.min, s->time.mean, s->time.median, s->time.max, 1e6);
    /* the largest bandwidth goes with the smallest time */
    stats_row(t, "bandwidth GiB/s", bandwidth(lt, s->time.max), bandwidth(lt, s->time.mean),
              bandwidth(lt, s->time.median), bandwidth(lt, s->time.min), 1 / GIB);
    if (s->a2a.count)
        stats_row(t, "all-to-all/us", s->a2a.min, s->a2a.mean, s->a2a.median, s->a2a.max, 1e6);
    if (cli_table_end(t) != 0)
        return -1;
    if (!s->num_slowest)
        return 0;
    fprintf(fp, "\n%zu slowest measurements:\n", s->num_slowest);
    t = cli_table_begin(fp, CLI_FORMAT_HUMAN, slowest_columns_human, NUM_SLOWEST_COLUMNS, 0);
    if (!t)
        return -1;
    slowest_rows(t, CLI_FORMAT_HUMAN, lt, s->slowest, s->num_slowest);
    return cli_table_end(t);
}

/* The summary as keys and values: csv/tsv rows "key,value", or one JSON
 * object with the slowest measurements as "slowest". */
typedef struct {
    FILE *fp;
    cli_format format;
    cli_table *table; /* csv, tsv */
    int first;        /* json: no comma before the first key */
} keyval;

static void kv_key(keyval *kv, const char *key)
{
    if (kv->table) {
        cli_table_text(kv->table, key);
        return;
    }
    fprintf(kv->fp, "%s", kv->first ? "" : ",");
    kv->first = 0;
    cli_print_json_string(kv->fp, key);
    fputc(':', kv->fp);
}

static void kv_text(keyval *kv, const char *key, const char *v)
{
    kv_key(kv, key);
    if (kv->table) {
        cli_table_text(kv->table, v);
        cli_table_end_row(kv->table);
    } else {
        cli_print_json_string(kv->fp, v);
    }
}

static void kv_number(keyval *kv, const char *key, double v)
{
    kv_key(kv, key);
    if (kv->table) {
        cli_table_double(kv->table, v);
        cli_table_end_row(kv->table);
    } else if (isfinite(v)) {
        cli_print_double(kv->fp, v);
    } else {
        fputs("null", kv->fp);
    }
}

static void kv_count(keyval *kv, const char *key, unsigned long long v)
{
    kv_key(kv, key);
    if (kv->table) {
        cli_table_int(kv->table, (long long)v);
        cli_table_end_row(kv->table);
    } else {
        fprintf(kv->fp, "%llu", v);
    }
}

static int print_summary_keys(const options *o, cube_linktest *lt, const summary *s,
                              FILE *fp)
{
    static const cli_column kv_columns[] = {{"key", 0}, {"value", 0}};
    keyval kv = {fp, o->format, NULL, 1};
    if (o->format == CLI_FORMAT_JSON) {
        fputc('{', fp);
    } else if (!(kv.table = cli_table_begin(fp, o->format, kv_columns, 2, 0))) {
        return -1;
    }
    const cube_linktest_header *h = cube_linktest_get_header(lt);
    size_t m = cube_linktest_num_permutations(lt);
    char buf[512];
    kv_text(&kv, "file", o->input);
    kv_text(&kv, "tag", h->tag);
    version_string(h, buf, sizeof buf);
    kv_text(&kv, "version", buf);
    kv_text(&kv, "git_hash", h->git_hash);
    kv_text(&kv, "mode", h->mode);
    flag_list(h, ",", buf, sizeof buf);
    kv_text(&kv, "flags", buf);
    kv_count(&kv, "ranks", cube_linktest_num_ranks(lt));
    kv_count(&kv, "hosts", s->hosts);
    kv_count(&kv, "message_size", h->message_size);
    kv_count(&kv, "messages", h->num_messages);
    kv_count(&kv, "warmup_messages", h->num_warmup_messages);
    kv_count(&kv, "serial_retests", h->num_serial_retests);
    kv_count(&kv, "iterations", m);
    kv_text(&kv, "start_time", m ? cube_linktest_get_permutation(lt, 0)->start_time : "");
    kv_text(&kv, "end_time", m ? cube_linktest_get_permutation(lt, m - 1)->end_time : "");
    kv_count(&kv, "measurements", s->time.count);
    kv_number(&kv, "time_min", s->time.min);
    kv_number(&kv, "time_mean", s->time.mean);
    kv_number(&kv, "time_median", s->time.median);
    kv_number(&kv, "time_max", s->time.max);
    kv_number(&kv, "bandwidth_min", bandwidth(lt, s->time.max));
    kv_number(&kv, "bandwidth_mean", bandwidth(lt, s->time.mean));
    kv_number(&kv, "bandwidth_median", bandwidth(lt, s->time.median));
    kv_number(&kv, "bandwidth_max", bandwidth(lt, s->time.min));
    kv_number(&kv, "a2a_min", s->a2a.count ? s->a2a.min : NAN);
    kv_number(&kv, "a2a_mean", s->a2a.count ? s->a2a.mean : NAN);
    kv_number(&kv, "a2a_max", s->a2a.count ? s->a2a.max : NAN);
    if (kv.table)
        return cli_table_end(kv.table);
    fputs(",\"slowest\":", fp);
    cli_table *t =
        cli_table_begin(fp, CLI_FORMAT_JSON, slowest_columns, NUM_SLOWEST_COLUMNS,
                        CLI_TABLE_NO_NEWLINE);
    if (!t)
        return -1;
    slowest_rows(t, CLI_FORMAT_JSON, lt, s->slowest, s->num_slowest);
    int rc = cli_table_end(t);
    fputs("}\n", fp);
    return rc;
}

static int print_summary(const options *o, cube_linktest *lt, FILE *fp)
{
    summary s;
    if (compute_summary(lt, &s) != 0)
        return -1;
    if (o->format == CLI_FORMAT_HUMAN)
        return print_summary_human(o, lt, &s, fp);
    return print_summary_keys(o, lt, &s, fp);
}

/* ------------------------------------------------------------------------
 * --hosts
 * ------------------------------------------------------------------------ */

static int print_hosts(const options *o, cube_linktest *lt, FILE *fp)
{
    static const cli_column columns[] = {
        {"host", 0},           {"ranks", CLI_COL_NUMBER}, {"first_rank", CLI_COL_NUMBER},
        {"measurements", CLI_COL_NUMBER}, {"min", CLI_COL_NUMBER}, {"mean", CLI_COL_NUMBER},
        {"median", CLI_COL_NUMBER}, {"max", CLI_COL_NUMBER}, {"outlier", 0}};
    static const cli_column columns_human[] = {
        {"host", 0},           {"ranks", CLI_COL_NUMBER}, {"first_rank", CLI_COL_NUMBER},
        {"measurements", CLI_COL_NUMBER}, {"min/us", CLI_COL_NUMBER}, {"mean/us", CLI_COL_NUMBER},
        {"median/us", CLI_COL_NUMBER}, {"max/us", CLI_COL_NUMBER}, {"outlier", 0}};
    size_t nh;
    cube_linktest_host *hosts = cube_linktest_hosts(lt, &nh);
    if (!hosts) {
        cli_error("%s", cube_linktest_error(lt));
        return -1;
    }
    int human = o->format == CLI_FORMAT_HUMAN;
    cli_table *t = cli_table_begin(fp, o->format, human ? columns_human : columns, 9, 0);
    if (!t) {
        free(hosts);
        return -1;
    }
    for (size_t i = 0; i < nh; i++) {
        const cube_linktest_host *h = &hosts[i];
        cli_table_text(t, h->host);
        cli_table_int(t, (long long)h->num_ranks);
        cli_table_int(t, (long long)h->first_rank);
        cli_table_int(t, (long long)h->stats.count);
        put_time(t, o->format, h->stats.min);
        put_time(t, o->format, h->stats.mean);
        put_time(t, o->format, h->stats.median);
        put_time(t, o->format, h->stats.max);
        cli_table_text(t, h->outlier > 0   ? (human ? "SLOW" : "slow")
                          : h->outlier < 0 ? "fast"
                                           : "");
        cli_table_end_row(t);
    }
    free(hosts);
    return cli_table_end(t);
}

/* ------------------------------------------------------------------------
 * --matrix: written directly (N x N values do not go through a table)
 * ------------------------------------------------------------------------ */

static int print_matrix(const options *o, cube_linktest *lt, FILE *fp)
{
    size_t n = cube_linktest_num_ranks(lt), m = cube_linktest_num_permutations(lt);
    char sep = o->format == CLI_FORMAT_TSV ? '\t' : ',';
    int json = o->format == CLI_FORMAT_JSON;
    char num[CUBE_DOUBLE_BUFSIZE + 1];
    double *row = malloc((n ? n : 1) * sizeof *row);
    if (!row) {
        cli_error("out of memory");
        return -1;
    }
    if (!json) {
        fprintf(fp, "iteration%crank", sep);
        for (size_t c = 0; c < n; c++)
            fprintf(fp, "%c%zu", sep, c);
        fputc('\n', fp);
    }
    for (size_t i = 0; i < m; i++) {
        if (json)
            fprintf(fp, "{\"iteration\":%zu,\"times\":[", i);
        else if (i > 0)
            fputc('\n', fp);
        for (size_t r = 0; r < n; r++) {
            if (cube_linktest_read_row(lt, i, r, row) != 0) {
                cli_error("%s", cube_linktest_error(lt));
                free(row);
                return -1;
            }
            if (json)
                fputs(r ? ",[" : "[", fp);
            else
                fprintf(fp, "%zu%c%zu", i, sep, r);
            for (size_t c = 0; c < n; c++) {
                double v = row[c];
                if (json && c)
                    fputc(',', fp);
                else if (!json)
                    fputc(sep, fp);
                if (isfinite(v)) {
                    int len = cube_format_double(v, num);
                    fwrite(num, 1, (size_t)len, fp);
                } else if (json) {
                    fputs("null", fp);
                }
            }
            fputs(json ? "]" : "\n", fp);
        }
        if (json)
            fputs("]}\n", fp);
    }
    free(row);
    return 0;
}

/* ------------------------------------------------------------------------
 * --histogram
 * ------------------------------------------------------------------------ */

#define BAR_WIDTH 50

static int print_histogram(const options *o, cube_linktest *lt, FILE *fp)
{
    static const cli_column columns[] = {
        {"lower", CLI_COL_NUMBER}, {"upper", CLI_COL_NUMBER}, {"count", CLI_COL_NUMBER}};
    double *edges = malloc((o->bins + 1) * sizeof *edges);
    uint64_t *counts = malloc(o->bins * sizeof *counts);
    if (!edges || !counts) {
        free(edges);
        free(counts);
        cli_error("out of memory");
        return -1;
    }
    /* a single rank measures nothing: an empty histogram, not an error */
    int rc = 0, empty = cube_linktest_num_ranks(lt) < 2;
    if (!empty && cube_linktest_histogram(lt, o->bins, edges, counts) != 0) {
        cli_error("%s", cube_linktest_error(lt));
        rc = -1;
    } else if (empty) {
        if (o->format == CLI_FORMAT_HUMAN) {
            fprintf(fp, "no measurements\n");
        } else {
            cli_table *t = cli_table_begin(fp, o->format, columns, 3, 0);
            rc = t ? cli_table_end(t) : -1;
        }
    } else if (o->format == CLI_FORMAT_HUMAN) {
        uint64_t total = 0, most = 0;
        for (size_t b = 0; b < o->bins; b++) {
            total += counts[b];
            most = counts[b] > most ? counts[b] : most;
        }
        fprintf(fp, "%llu measurements, %zu bins on a log scale\n", (unsigned long long)total,
                o->bins);
        for (size_t b = 0; b < o->bins; b++) {
            int bar = most ? (int)((counts[b] * BAR_WIDTH + most - 1) / most) : 0;
            fprintf(fp, "%12.3f - %12.3f us |", edges[b] * 1e6, edges[b + 1] * 1e6);
            for (int k = 0; k < bar; k++)
                fputc('#', fp);
            fprintf(fp, "%*s %llu\n", BAR_WIDTH - bar, "", (unsigned long long)counts[b]);
        }
    } else {
        cli_table *t = cli_table_begin(fp, o->format, columns, 3, 0);
        if (!t) {
            rc = -1;
        } else {
            for (size_t b = 0; b < o->bins; b++) {
                cli_table_double(t, edges[b]);
                cli_table_double(t, edges[b + 1]);
                cli_table_int(t, (long long)counts[b]);
                cli_table_end_row(t);
            }
            rc = cli_table_end(t);
        }
    }
    free(edges);
    free(counts);
    return rc;
}

/* ------------------------------------------------------------------------
 * --iterations: what rank 0 stored for each iteration, as LinkTest wrote
 * it (not recomputed from the matrix), so that it can be set beside
 * LinkTest's own report
 * ------------------------------------------------------------------------ */

static int print_iterations(const options *o, cube_linktest *lt, FILE *fp)
{
    static const cli_column columns[] = {
        {"iteration", CLI_COL_NUMBER}, {"start_time", 0},          {"end_time", 0},
        {"min", CLI_COL_NUMBER},       {"avg", CLI_COL_NUMBER},    {"max", CLI_COL_NUMBER},
        {"a2a_min", CLI_COL_NUMBER},   {"a2a_avg", CLI_COL_NUMBER}, {"a2a_max", CLI_COL_NUMBER}};
    static const cli_column columns_human[] = {
        {"iteration", CLI_COL_NUMBER},    {"start_time", 0},
        {"end_time", 0},                  {"min/us", CLI_COL_NUMBER},
        {"avg/us", CLI_COL_NUMBER},       {"max/us", CLI_COL_NUMBER},
        {"a2a_min/us", CLI_COL_NUMBER},   {"a2a_avg/us", CLI_COL_NUMBER},
        {"a2a_max/us", CLI_COL_NUMBER}};
    const cube_linktest_header *h = cube_linktest_get_header(lt);
    int human = o->format == CLI_FORMAT_HUMAN;
    /* people are not shown three columns that are empty in every row */
    size_t ncol = human && !h->all_to_all ? 6 : 9;
    size_t m = cube_linktest_num_permutations(lt);
    if (strcmp(h->tag, "LinkTest") != 0)
        fprintf(stderr,
                "%s: note: %s: LinkTest %u.x stores its aggregates once for the whole run "
                "(iteration 0) and no start and end times\n",
                cli_tool(), o->input, (unsigned)h->major);
    cli_table *t = cli_table_begin(fp, o->format, human ? columns_human : columns, ncol, 0);
    if (!t)
        return -1;
    for (size_t i = 0; i < m; i++) {
        const cube_linktest_permutation *p = cube_linktest_get_permutation(lt, i);
        cli_table_int(t, (long long)i);
        const char *times[2] = {p->start_time, p->end_time};
        for (int k = 0; k < 2; k++) {
            if (times[k][0])
                cli_table_text(t, times[k]);
            else
                cli_table_absent(t, human ? "-" : "");
        }
        put_time(t, o->format, p->min);
        put_time(t, o->format, p->avg);
        put_time(t, o->format, p->max);
        if (ncol == 9) {
            put_time(t, o->format, p->a2a_min);
            put_time(t, o->format, p->a2a_avg);
            put_time(t, o->format, p->a2a_max);
        }
        cli_table_end_row(t);
    }
    return cli_table_end(t);
}

/* ------------------------------------------------------------------------
 * --svg and --cube
 * ------------------------------------------------------------------------ */

static int write_svg(const options *o, cube_linktest *lt)
{
    size_t got;
    cube_linktest_link *links = find_slowest(lt, SUMMARY_SLOWEST, &got);
    if (!links)
        return -1;
    cli_output out;
    if (cli_output_open(&out, o->svg) != 0) {
        free(links);
        return -1;
    }
    int rc = linktest_svg_write(out.fp, lt, o->input, links, got, o->bins);
    free(links);
    if (cli_output_close(&out, rc == 0) != 0)
        rc = -1;
    return rc;
}

static int write_cube(const options *o, cube_linktest *lt)
{
    if (cube_linktest_write_cube(lt, o->cube, o->gzip ? CUBE_WRITE_GZIP : 0) != 0) {
        cli_error("%s", cube_linktest_error(lt));
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The run
 * ------------------------------------------------------------------------ */

/* The report, to -o's output: written whole or not at all. */
static int print_report(const options *o, cube_linktest *lt)
{
    cli_output out;
    if (cli_output_open(&out, o->output ? o->output : "-") != 0)
        return -1;
    FILE *fp = out.fp;
    int rc;
    switch (o->report) {
    case REPORT_HOSTS:
        rc = print_hosts(o, lt, fp);
        break;
    case REPORT_SLOWEST:
        rc = print_slowest(o, lt, fp);
        break;
    case REPORT_MATRIX:
        rc = print_matrix(o, lt, fp);
        break;
    case REPORT_HISTOGRAM:
        rc = print_histogram(o, lt, fp);
        break;
    case REPORT_ITERATIONS:
        rc = print_iterations(o, lt, fp);
        break;
    default:
        rc = print_summary(o, lt, fp);
        break;
    }
    if (cli_output_close(&out, rc == 0) != 0)
        rc = -1;
    return rc;
}

static int run(const options *o)
{
    cube_status st;
    /* the reports read the rows from the file as they go (their memory does
     * not grow with N^2); the picture and the export want the matrices */
    unsigned flags = o->svg || o->cube ? CUBE_LINKTEST_NO_ACCESS_PATTERN
                                       : CUBE_LINKTEST_NO_MATRICES;
    cube_linktest *lt = cube_linktest_open_with(o->path, flags, &st);
    if (!lt) {
        cli_error("%s", st.message);
        return EXIT_TROUBLE;
    }
    for (size_t i = 0; i < cube_linktest_num_warnings(lt); i++)
        fprintf(stderr, "%s: warning: %s\n", cli_tool(), cube_linktest_warning(lt, i));
    int rc = 0;
    if (o->report != REPORT_NONE)
        rc = print_report(o, lt);
    if (rc == 0 && o->svg)
        rc = write_svg(o, lt);
    if (rc == 0 && o->cube)
        rc = write_cube(o, lt);
    cube_linktest_free(lt);
    return rc == 0 ? EXIT_OK : EXIT_TROUBLE;
}

/* A name a CUBE experiment goes by: *.cube, *.cube.gz or *.cubex. */
static int names_cube(const char *path)
{
    size_t n = strlen(path);
    return (n > 5 && strcmp(path + n - 5, ".cube") == 0) ||
           (n > 8 && strcmp(path + n - 8, ".cube.gz") == 0) ||
           (n > 6 && strcmp(path + n - 6, ".cubex") == 0);
}

/* A positive count, or -1. */
static int parse_positive(const char *arg, size_t max, size_t *n)
{
    return cli_parse_count(arg, n) == 0 && *n > 0 && *n <= max ? 0 : -1;
}

enum { OPT_HOSTS = 256, OPT_SLOWEST, OPT_MATRIX, OPT_HISTOGRAM, OPT_ITERATIONS, OPT_BINS, OPT_SVG,
       OPT_CUBE, OPT_VERSION };

static void set_report(options *o, report r, const char *name)
{
    if (o->report != REPORT_NONE && o->report != r)
        cli_usage_error(usage, "%s cannot be combined with another report option", name);
    o->report = r;
}

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    static const struct option longopts[] = {{"hosts", no_argument, NULL, OPT_HOSTS},
                                             {"slowest", required_argument, NULL, OPT_SLOWEST},
                                             {"matrix", no_argument, NULL, OPT_MATRIX},
                                             {"histogram", no_argument, NULL, OPT_HISTOGRAM},
                                             {"iterations", no_argument, NULL, OPT_ITERATIONS},
                                             {"bins", required_argument, NULL, OPT_BINS},
                                             {"format", required_argument, NULL, 's'},
                                             {"svg", required_argument, NULL, OPT_SVG},
                                             {"cube", required_argument, NULL, OPT_CUBE},
                                             {"output", required_argument, NULL, 'o'},
                                             {"gzip", no_argument, NULL, 'z'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, OPT_VERSION},
                                             {NULL, 0, NULL, 0}};
    options o;
    memset(&o, 0, sizeof o);
    o.format = CLI_FORMAT_HUMAN;
    o.bins = 20;
    int c;
    while ((c = cli_getopt(argc, argv, "s:o:zh", longopts, usage)) != -1) {
        switch (c) {
        case OPT_HOSTS:
            set_report(&o, REPORT_HOSTS, "--hosts");
            break;
        case OPT_SLOWEST:
            set_report(&o, REPORT_SLOWEST, "--slowest");
            if (parse_positive(optarg, SIZE_MAX / sizeof(cube_linktest_link), &o.slowest) != 0)
                cli_usage_error(usage, "--slowest takes a positive count, not '%s'", optarg);
            break;
        case OPT_MATRIX:
            set_report(&o, REPORT_MATRIX, "--matrix");
            break;
        case OPT_HISTOGRAM:
            set_report(&o, REPORT_HISTOGRAM, "--histogram");
            break;
        case OPT_ITERATIONS:
            set_report(&o, REPORT_ITERATIONS, "--iterations");
            break;
        case OPT_BINS:
            if (parse_positive(optarg, 1000, &o.bins) != 0)
                cli_usage_error(usage, "--bins takes a count from 1 to 1000, not '%s'", optarg);
            break;
        case 's':
            if (cli_format_parse(optarg, &o.format) != 0)
                cli_usage_error(usage, "unknown format '%s' (csv, tsv, json or human)", optarg);
            break;
        case OPT_SVG:
            o.svg = optarg;
            break;
        case OPT_CUBE:
            o.cube = optarg;
            break;
        case 'o':
            o.output = optarg;
            break;
        case 'z':
            o.gzip = 1;
            break;
        case 'h':
            print_help();
            return EXIT_OK;
        case OPT_VERSION:
            cli_print_version();
            return EXIT_OK;
        }
    }
    if (optind + 1 != argc)
        cli_usage_error(usage, optind == argc ? "no LinkTest file given"
                                              : "one LinkTest file only");
    o.input = o.path = argv[optind];
    /* -o names where the report goes, so it asks for one */
    if (o.report == REPORT_NONE && (o.output || (!o.svg && !o.cube)))
        o.report = REPORT_SUMMARY;
    if (o.output && names_cube(o.output))
        /* -o wrote the CUBE export once: a text report under a CUBE name
         * would only fail later, in whatever reads it */
        cli_usage_error(usage,
                        "-o %s: -o is where the report goes; write the run as a CUBE "
                        "experiment with --cube %s",
                        o.output, o.output);
    if (o.gzip && !o.cube)
        cli_usage_error(usage, "-z applies to the experiment written with --cube");
    int report_to_stdout =
        o.report != REPORT_NONE && (!o.output || strcmp(o.output, "-") == 0);
    if (o.cube && strcmp(o.cube, "-") == 0 && report_to_stdout)
        cli_usage_error(usage, "--cube - and a report would both go to standard output");
    if (o.svg && strcmp(o.svg, "-") == 0 &&
        (report_to_stdout || (o.cube && strcmp(o.cube, "-") == 0)))
        cli_usage_error(usage, "--svg - and another output would both go to standard output");
    /* each output replaces its file whole: one would silently win */
    const char *const outputs[] = {o.report != REPORT_NONE ? o.output : NULL, o.svg, o.cube};
    static const char *const names[] = {"-o", "--svg", "--cube"};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = i + 1; k < 3; k++)
            if (outputs[i] && outputs[k] && strcmp(outputs[i], "-") != 0 &&
                strcmp(outputs[i], outputs[k]) == 0)
                cli_usage_error(usage, "%s and %s name the same file '%s'", names[i], names[k],
                                outputs[i]);
    if (strcmp(o.input, "-") == 0) {
        /* SION files are read at offsets: standard input must be a file */
        struct stat st;
        if (fstat(0, &st) != 0 || !S_ISREG(st.st_mode)) {
            cli_error("-: SION files need random access: give a file name, or redirect "
                      "standard input from a file");
            return EXIT_TROUBLE;
        }
        o.path = "/dev/stdin";
    }
    return run(&o);
}
