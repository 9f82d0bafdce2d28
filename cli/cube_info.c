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
        size_t n = cube_process_num_threads(cube_get_process(c, i));
        if (i == 0 || n < s.min_threads)
            s.min_threads = n;
        if (n > s.max_threads)
            s.max_threads = n;
    }
    return s;
}

/* The threads of a node's processes. */
static size_t node_threads(const cube_node *n)
{
    size_t threads = 0;
    for (size_t p = 0; p < cube_node_num_processes(n); p++)
        threads += cube_process_num_threads(cube_node_process(n, p));
    return threads;
}

static size_t metric_depth(const cube_metric *m)
{
    size_t d = 0;
    for (m = cube_metric_parent(m); m; m = cube_metric_parent(m))
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
        for (size_t k = cube_metric_num_children(m); k-- > 0;)
            stack[top++] = cube_metric_child(m, k);
    }
    free(stack);
    return order;
}

static size_t count_void(const cube_t *c)
{
    size_t n = 0;
    for (size_t i = 0; i < cube_num_metrics(c); i++)
        n += cube_metric_is_void(cube_get_metric(c, i)) != 0;
    return n;
}

static const char *coord_kind_name(const cube_cartesian *t)
{
    static const char *const names[] = {"thread", "process", "node", "machine"};
    return cube_cart_num_coords(t) ? names[cube_cart_coord(t, 0)->kind] : "thread";
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
        printf("  machine %s: nodes %zu\n", cube_machine_name(m), cube_machine_num_nodes(m));
        for (size_t k = 0; k < cube_machine_num_nodes(m); k++) {
            const cube_node *n = cube_machine_node(m, k);
            printf("    node %s: processes %zu, threads %zu\n", cube_node_name(n),
                   cube_node_num_processes(n), node_threads(n));
        }
    }
    printf("topologies: %zu\n", cube_num_carts(c));
    for (size_t i = 0; i < cube_num_carts(c); i++) {
        const cube_cartesian *t = cube_get_cart(c, i);
        const char *name = cube_cart_name(t);
        printf("  %s:", name[0] ? name : "(unnamed)");
        for (long d = 0; d < cube_cart_ndims(t); d++) {
            printf("%s%ld", d ? " x " : " ", cube_cart_dim(t, d));
            /* "" also stands for an unnamed dimension among named ones */
            const char *dim = cube_cart_dim_name(t, d);
            if (dim && *dim)
                printf(" (%s)", dim);
            if (cube_cart_period(t, d))
                printf(" periodic");
        }
        printf(", %zu %s coordinates\n", cube_cart_num_coords(t), coord_kind_name(t));
    }
    printf("rows: %zu\n", cube_num_rows(c));
    printf("metric tree (unique name, display name, dtype, unit, total):\n");
    for (size_t i = 0; i < nm; i++) {
        const cube_metric *m = order[i];
        size_t depth = metric_depth(m);
        printf("  %*s%s\t%s\t%s\t%s\t", (int)(2 * depth), "", cube_metric_uniq_name(m),
               cube_metric_disp_name(m), cube_metric_dtype(m), cube_metric_uom(m));
        if (cube_metric_is_void(m))
            printf("VOID");
        else if (cube_metric_is_derived(m))
            printf("not computed"); /* derived: a CubePL expression */
        else if (cli_no_value(cube_metric_combine(m), totals[cube_metric_index(m)]))
            printf("-"); /* a maximum or minimum without rows */
        else
            cli_print_double(stdout, totals[cube_metric_index(m)]);
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
        printf("%s{\"id\":%lld,\"uniq_name\":", i ? "," : "", (long long)cube_metric_id(m));
        cli_print_json_string(stdout, cube_metric_uniq_name(m));
        printf(",\"disp_name\":");
        cli_print_json_string(stdout, cube_metric_disp_name(m));
        printf(",\"dtype\":");
        cli_print_json_string(stdout, cube_metric_dtype(m));
        printf(",\"uom\":");
        cli_print_json_string(stdout, cube_metric_uom(m));
        printf(",\"parent\":");
        if (cube_metric_parent(m))
            cli_print_json_string(stdout, cube_metric_uniq_name(cube_metric_parent(m)));
        else
            printf("null");
        printf(",\"depth\":%zu,\"void\":%s,\"total\":", metric_depth(m),
               cube_metric_is_void(m) ? "true" : "false");
        if (cube_metric_is_void(m) ||
            cli_no_value(cube_metric_combine(m), totals[cube_metric_index(m)]))
            printf("null");
        else
            json_number(totals[cube_metric_index(m)]);
        printf("}");
    }
    printf("]");
    json_key("system", &first);
    printf("[");
    for (size_t i = 0; i < cube_num_machines(c); i++) {
        const cube_machine *m = cube_get_machine(c, i);
        printf("%s{\"machine\":", i ? "," : "");
        cli_print_json_string(stdout, cube_machine_name(m));
        printf(",\"nodes\":[");
        for (size_t k = 0; k < cube_machine_num_nodes(m); k++) {
            const cube_node *n = cube_machine_node(m, k);
            printf("%s{\"node\":", k ? "," : "");
            cli_print_json_string(stdout, cube_node_name(n));
            printf(",\"processes\":%zu,\"threads\":%zu}", cube_node_num_processes(n),
                   node_threads(n));
        }
        printf("]}");
    }
    printf("]");
    json_key("topologies", &first);
    printf("[");
    for (size_t i = 0; i < cube_num_carts(c); i++) {
        const cube_cartesian *t = cube_get_cart(c, i);
        printf("%s{\"name\":", i ? "," : "");
        cli_print_json_string(stdout, cube_cart_name(t));
        printf(",\"dims\":[");
        for (long d = 0; d < cube_cart_ndims(t); d++)
            printf("%s%ld", d ? "," : "", cube_cart_dim(t, d));
        printf("],\"periodic\":[");
        for (long d = 0; d < cube_cart_ndims(t); d++)
            printf("%s%s", d ? "," : "", cube_cart_period(t, d) ? "true" : "false");
        printf("],\"dim_names\":");
        if (cli_cart_has_dim_names(t)) {
            printf("[");
            for (long d = 0; d < cube_cart_ndims(t); d++) {
                const char *dim = cube_cart_dim_name(t, d);
                if (d)
                    putchar(',');
                cli_print_json_string(stdout, dim ? dim : "");
            }
            printf("]");
        } else {
            printf("null");
        }
        printf(",\"coords\":%zu,\"coord_kind\":\"%s\"}", cube_cart_num_coords(t),
               coord_kind_name(t));
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
    if (!totals || !order || cube_metric_totals(c, totals, NULL) != 0) {
        /* cube_metric_totals fails only for lack of memory */
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
