/*
 * cube_info - what a user reads first about an experiment: attributes,
 * counts per dimension, the metric tree with each metric's total, the call
 * tree's depth, the shape of the system tree and the topologies.
 * Human-readable by default, one JSON object per file with --json.
 */
#include "cli_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "cube_info [--json] FILE...";

static void print_help(void)
{
    printf("usage: %s\n"
           "Summarise CUBE 3 experiments (plain or gzip; '-' reads standard input).\n\n"
           "  -j, --json     one JSON object per file, one per line\n"
           "  -h, --help     this help\n"
           "      --version  the version\n\n"
           "Exit status: 0 when every file was read, 2 otherwise.\n"
           "See cube_info(1).\n",
           usage);
}

/* Facts about the system tree that both outputs print. */
typedef struct {
    size_t min_threads, max_threads; /* per process */
} system_shape;

static system_shape shape_of(const cube_t *c)
{
    system_shape s = {0, 0};
    for (size_t i = 0; i < cube_num_processes(c); i++) {
        size_t n = cube_get_process(c, i)->num_threads;
        if (i == 0 || n < s.min_threads)
            s.min_threads = n;
        if (n > s.max_threads)
            s.max_threads = n;
    }
    return s;
}

static size_t metric_depth(const cube_metric *m)
{
    size_t d = 0;
    for (; m->parent; m = m->parent)
        d++;
    return d;
}

/* Metrics in tree preorder without recursion: the order both outputs use. */
static cube_metric **metrics_preorder(const cube_t *c)
{
    size_t n = cube_num_metrics(c), out = 0, top = 0;
    cube_metric **order = malloc((n ? n : 1) * sizeof *order);
    cube_metric **stack = malloc((n ? n : 1) * sizeof *stack);
    if (!order || !stack) {
        free(order);
        free(stack);
        return NULL;
    }
    for (size_t r = cube_num_root_metrics(c); r-- > 0;)
        stack[top++] = cube_get_root_metric(c, r);
    while (top) {
        cube_metric *m = stack[--top];
        order[out++] = m;
        for (size_t k = m->num_children; k-- > 0;)
            stack[top++] = m->children[k];
    }
    free(stack);
    return order;
}

static size_t count_void(const cube_t *c)
{
    size_t n = 0;
    for (size_t i = 0; i < cube_num_metrics(c); i++)
        n += cube_get_metric(c, i)->is_void != 0;
    return n;
}

static const char *coord_kind_name(const cube_cartesian *t)
{
    static const char *const names[] = {"thread", "process", "node", "machine"};
    return t->num_coords ? names[t->coords[0].kind] : "thread";
}

static void print_human(const char *path, const cube_t *c, const double *totals,
                        cube_metric **order)
{
    size_t nm = cube_num_metrics(c);
    printf("file: %s\n", path);
    printf("attributes: %zu\n", cube_num_attrs(c));
    for (size_t i = 0; i < cube_num_attrs(c); i++)
        printf("  %s = %s\n", cube_attr_key(c, i), cube_attr_value(c, i));
    printf("mirrors: %zu\n", cube_num_mirrors(c));
    for (size_t i = 0; i < cube_num_mirrors(c); i++)
        printf("  %s\n", cube_mirror(c, i));
    printf("metrics: %zu (roots %zu, VOID %zu)\n", nm, cube_num_root_metrics(c),
           count_void(c));
    printf("regions: %zu\n", cube_num_regions(c));
    printf("call paths: %zu (roots %zu, depth %zu)\n", cube_num_cnodes(c),
           cube_num_root_cnodes(c), cube_cnode_depth_max(c));
    system_shape s = shape_of(c);
    printf("system: machines %zu, nodes %zu, processes %zu, threads %zu", cube_num_machines(c),
           cube_num_nodes(c), cube_num_processes(c), cube_num_threads(c));
    if (s.min_threads == s.max_threads)
        printf(" (%zu per process)\n", s.max_threads);
    else
        printf(" (%zu to %zu per process)\n", s.min_threads, s.max_threads);
    for (size_t i = 0; i < cube_num_machines(c); i++) {
        const cube_machine *m = cube_get_machine(c, i);
        printf("  machine %s: nodes %zu\n", m->name, m->num_nodes);
        for (size_t k = 0; k < m->num_nodes; k++) {
            const cube_node *n = m->nodes[k];
            size_t threads = 0;
            for (size_t p = 0; p < n->num_processes; p++)
                threads += n->processes[p]->num_threads;
            printf("    node %s: processes %zu, threads %zu\n", n->name, n->num_processes,
                   threads);
        }
    }
    printf("topologies: %zu\n", cube_num_carts(c));
    for (size_t i = 0; i < cube_num_carts(c); i++) {
        const cube_cartesian *t = cube_get_cart(c, i);
        printf("  %s:", t->name[0] ? t->name : "(unnamed)");
        for (long d = 0; d < t->ndims; d++) {
            printf("%s%ld", d ? " x " : " ", t->dims[d]);
            if (t->dim_names && t->dim_names[d])
                printf(" (%s)", t->dim_names[d]);
            if (t->periods[d])
                printf(" periodic");
        }
        printf(", %zu %s coordinates\n", t->num_coords, coord_kind_name(t));
    }
    printf("rows: %zu\n", cube_num_rows(c));
    printf("metric tree (unique name, display name, dtype, unit, total):\n");
    for (size_t i = 0; i < nm; i++) {
        const cube_metric *m = order[i];
        size_t depth = metric_depth(m);
        printf("  %*s%s\t%s\t%s\t%s\t", (int)(2 * depth), "", m->uniq_name, m->disp_name,
               m->dtype, m->uom);
        if (m->is_void)
            printf("VOID");
        else
            cli_print_double(stdout, totals[m->index]);
        putchar('\n');
    }
}

static void json_key(const char *key, int *first)
{
    printf("%s\"%s\":", *first ? "" : ",", key);
    *first = 0;
}

static void json_number(double v)
{
    if (isfinite(v))
        cli_print_double(stdout, v);
    else
        printf("null");
}

static void print_json(const char *path, const cube_t *c, const double *totals,
                       cube_metric **order)
{
    int first = 1;
    printf("{");
    json_key("file", &first);
    cli_print_json_string(stdout, path);
    json_key("attributes", &first);
    printf("{");
    for (size_t i = 0; i < cube_num_attrs(c); i++) {
        if (i)
            putchar(',');
        cli_print_json_string(stdout, cube_attr_key(c, i));
        putchar(':');
        cli_print_json_string(stdout, cube_attr_value(c, i));
    }
    printf("}");
    json_key("mirrors", &first);
    printf("[");
    for (size_t i = 0; i < cube_num_mirrors(c); i++) {
        if (i)
            putchar(',');
        cli_print_json_string(stdout, cube_mirror(c, i));
    }
    printf("]");
    json_key("counts", &first);
    printf("{\"metrics\":%zu,\"root_metrics\":%zu,\"void_metrics\":%zu,\"regions\":%zu,"
           "\"cnodes\":%zu,\"root_cnodes\":%zu,\"call_tree_depth\":%zu,\"machines\":%zu,"
           "\"nodes\":%zu,\"processes\":%zu,\"threads\":%zu,\"topologies\":%zu,\"rows\":%zu}",
           cube_num_metrics(c), cube_num_root_metrics(c), count_void(c), cube_num_regions(c),
           cube_num_cnodes(c), cube_num_root_cnodes(c), cube_cnode_depth_max(c),
           cube_num_machines(c), cube_num_nodes(c), cube_num_processes(c),
           cube_num_threads(c), cube_num_carts(c), cube_num_rows(c));
    json_key("metrics", &first);
    printf("[");
    for (size_t i = 0; i < cube_num_metrics(c); i++) {
        const cube_metric *m = order[i];
        printf("%s{\"id\":%lld,\"uniq_name\":", i ? "," : "", (long long)m->id);
        cli_print_json_string(stdout, m->uniq_name);
        printf(",\"disp_name\":");
        cli_print_json_string(stdout, m->disp_name);
        printf(",\"dtype\":");
        cli_print_json_string(stdout, m->dtype);
        printf(",\"uom\":");
        cli_print_json_string(stdout, m->uom);
        printf(",\"parent\":");
        if (m->parent)
            cli_print_json_string(stdout, m->parent->uniq_name);
        else
            printf("null");
        printf(",\"depth\":%zu,\"void\":%s,\"total\":", metric_depth(m),
               m->is_void ? "true" : "false");
        if (m->is_void)
            printf("null");
        else
            json_number(totals[m->index]);
        printf("}");
    }
    printf("]");
    json_key("system", &first);
    printf("[");
    for (size_t i = 0; i < cube_num_machines(c); i++) {
        const cube_machine *m = cube_get_machine(c, i);
        printf("%s{\"machine\":", i ? "," : "");
        cli_print_json_string(stdout, m->name);
        printf(",\"nodes\":[");
        for (size_t k = 0; k < m->num_nodes; k++) {
            const cube_node *n = m->nodes[k];
            size_t threads = 0;
            for (size_t p = 0; p < n->num_processes; p++)
                threads += n->processes[p]->num_threads;
            printf("%s{\"node\":", k ? "," : "");
            cli_print_json_string(stdout, n->name);
            printf(",\"processes\":%zu,\"threads\":%zu}", n->num_processes, threads);
        }
        printf("]}");
    }
    printf("]");
    json_key("topologies", &first);
    printf("[");
    for (size_t i = 0; i < cube_num_carts(c); i++) {
        const cube_cartesian *t = cube_get_cart(c, i);
        printf("%s{\"name\":", i ? "," : "");
        cli_print_json_string(stdout, t->name);
        printf(",\"dims\":[");
        for (long d = 0; d < t->ndims; d++)
            printf("%s%ld", d ? "," : "", t->dims[d]);
        printf("],\"periodic\":[");
        for (long d = 0; d < t->ndims; d++)
            printf("%s%s", d ? "," : "", t->periods[d] ? "true" : "false");
        printf("],\"dim_names\":");
        if (t->dim_names) {
            printf("[");
            for (long d = 0; d < t->ndims; d++) {
                if (d)
                    putchar(',');
                cli_print_json_string(stdout, t->dim_names[d] ? t->dim_names[d] : "");
            }
            printf("]");
        } else {
            printf("null");
        }
        printf(",\"coords\":%zu,\"coord_kind\":\"%s\"}", t->num_coords, coord_kind_name(t));
    }
    printf("]");
    json_key("warnings", &first);
    printf("[");
    for (size_t i = 0; i < cube_num_warnings(c); i++) {
        if (i)
            putchar(',');
        cli_print_json_string(stdout, cube_warning(c, i));
    }
    printf("]}\n");
}

/* `*printed`: a human summary was printed before; set when this one is
 * (the empty line goes between summaries, not before the first one that
 * was printed when earlier files could not be read). */
static int info(const char *path, int json, int *printed)
{
    cube_t *c = cli_read(path);
    if (!c)
        return EXIT_TROUBLE;
    size_t nm = cube_num_metrics(c);
    double *totals = malloc((nm ? nm : 1) * sizeof *totals);
    cube_metric **order = metrics_preorder(c);
    int rc = EXIT_OK;
    if (!totals || !order || cube_metric_totals(c, totals) != 0) {
        cli_error("%s: out of memory", path);
        rc = EXIT_TROUBLE;
    } else if (json) {
        print_json(path, c, totals, order);
    } else {
        if (*printed)
            putchar('\n');
        print_human(path, c, totals, order);
        *printed = 1;
    }
    free(totals);
    free(order);
    cube_free(c);
    return rc;
}

int main(int argc, char **argv)
{
    cli_init(argv[0]);
    static const struct option options[] = {{"json", no_argument, NULL, 'j'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL, 'V'},
                                            {NULL, 0, NULL, 0}};
    int json = 0, opt;
    /* cli_getopt reports bad options itself and never returns them */
    while ((opt = cli_getopt(argc, argv, "jh", options, usage)) != -1) {
        switch (opt) {
        case 'j': json = 1; break;
        case 'h': print_help(); return EXIT_OK;
        case 'V': cli_print_version(); return EXIT_OK;
        }
    }
    if (optind == argc)
        cli_usage_error(usage, "no input file");
    int stdin_uses = 0;
    for (int i = optind; i < argc; i++)
        stdin_uses += strcmp(argv[i], "-") == 0;
    if (stdin_uses > 1)
        cli_usage_error(usage, "standard input ('-') can be read only once");
    int rc = EXIT_OK, printed = 0;
    for (int i = optind; i < argc; i++) {
        if (info(argv[i], json, &printed) != EXIT_OK)
            rc = EXIT_TROUBLE;
        fflush(stdout);
    }
    if (ferror(stdout)) {
        cli_error("cannot write to standard output");
        rc = EXIT_TROUBLE;
    }
    return rc;
}
