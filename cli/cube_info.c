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
           "Summarise CUBE 3 and CUBE 4 experiments (plain or gzip; '-' reads standard\n"
           "input).\n\n"
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

/* ------------------------------------------------------------------------
 * What CUBE 4 adds: metric kinds, system tree classes and depth, location
 * group and location types.  Names are counted in order of first
 * appearance (a handful per experiment).
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    size_t count;
} name_count;

typedef struct {
    name_count *items;
    size_t n, cap;
    int failed;
} name_counts;

static void count_name(name_counts *nc, const char *name)
{
    for (size_t i = 0; i < nc->n; i++)
        if (strcmp(nc->items[i].name, name) == 0) {
            nc->items[i].count++;
            return;
        }
    if (nc->n == nc->cap) {
        size_t cap = nc->cap ? 2 * nc->cap : 8;
        name_count *x = realloc(nc->items, cap * sizeof *x);
        if (!x) {
            nc->failed = 1;
            return;
        }
        nc->items = x;
        nc->cap = cap;
    }
    nc->items[nc->n++] = (name_count){name, 1};
}

typedef struct {
    name_counts kinds, classes, group_types, location_types;
    size_t derived, ghost;
    size_t depth; /* levels of system tree nodes (CUBE 3: 2) */
} cube4_facts;

static void facts_free(cube4_facts *f)
{
    free(f->kinds.items);
    free(f->classes.items);
    free(f->group_types.items);
    free(f->location_types.items);
}

/* The level of a system tree node (its machine: 0). */
static size_t node_level(const cube_node *n)
{
    size_t level = 1;
    for (n = cube_node_parent(n); n; n = cube_node_parent(n))
        level++;
    return level;
}

/* 0, or -1 when out of memory. */
static int facts_of(const cube_t *c, cube4_facts *f)
{
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < cube_num_metrics(c); i++) {
        const cube_metric *m = cube_get_metric(c, i);
        count_name(&f->kinds, cube_metric_kind_name(cube_metric_type(m)));
        f->derived += cube_metric_is_derived(m) != 0;
        f->ghost += cube_metric_is_ghost(m) != 0;
    }
    for (size_t i = 0; i < cube_num_machines(c); i++) {
        count_name(&f->classes, cube_machine_class(cube_get_machine(c, i)));
        if (f->depth < 1)
            f->depth = 1;
    }
    for (size_t i = 0; i < cube_num_nodes(c); i++) {
        const cube_node *n = cube_get_node(c, i);
        count_name(&f->classes, cube_node_class(n));
        /* only leaves can be the deepest */
        if (cube_node_num_children(n) == 0) {
            size_t depth = node_level(n) + 1;
            if (depth > f->depth)
                f->depth = depth;
        }
    }
    for (size_t i = 0; i < cube_num_processes(c); i++)
        count_name(&f->group_types,
                   cube_group_type_name(cube_process_type(cube_get_process(c, i))));
    for (size_t i = 0; i < cube_num_threads(c); i++)
        count_name(&f->location_types,
                   cube_location_type_name(cube_thread_type(cube_get_thread(c, i))));
    return f->kinds.failed || f->classes.failed || f->group_types.failed ||
                   f->location_types.failed
               ? -1
               : 0;
}

/* "A 1, B 2" */
static void print_counts_human(const name_counts *nc)
{
    for (size_t i = 0; i < nc->n; i++)
        printf("%s%s %zu", i ? ", " : "", nc->items[i].name, nc->items[i].count);
}

/* {"A":1,"B":2} */
static void print_counts_json(const name_counts *nc)
{
    putchar('{');
    for (size_t i = 0; i < nc->n; i++) {
        if (i)
            putchar(',');
        cli_print_json_string(stdout, nc->items[i].name);
        printf(":%zu", nc->items[i].count);
    }
    putchar('}');
}

static const char *format_name(const cube_t *c)
{
    switch (cube_source_format(c)) {
    case CUBE_FORMAT_CUBE3: return "CUBE 3";
    case CUBE_FORMAT_CUBE4: return "CUBE 4";
    default: return "";
    }
}

static const char *coord_kind_name(const cube_cartesian *t)
{
    static const char *const names[] = {"thread", "process", "node", "machine"};
    return cube_cart_num_coords(t) ? names[cube_cart_coord(t, 0)->kind] : "thread";
}

/* A system tree node of a CUBE 4 input and the nodes below it, each line
 * indented by its level: "CLASS NAME: nodes N" where it has child nodes,
 * "processes P, threads T" where it has processes or is a leaf.  Walked
 * with a stack of its own (a file may nest nodes deeply). */
static void print_nodes_human(const cube_t *c, const cube_machine *m)
{
    typedef struct {
        const cube_node *node;
        size_t level;
    } entry;
    size_t cap = cube_num_nodes(c) + 1, top = 0;
    entry *stack = malloc(cap * sizeof *stack);
    if (!stack) {
        cli_error("out of memory");
        return;
    }
    for (size_t k = cube_machine_num_nodes(m); k-- > 0 && top < cap;)
        stack[top++] = (entry){cube_machine_node(m, k), 1};
    while (top) {
        entry e = stack[--top];
        const cube_node *n = e.node;
        size_t nc = cube_node_num_children(n), np = cube_node_num_processes(n);
        printf("%*s%s %s:", (int)(2 * e.level + 2), "", cube_node_class(n), cube_node_name(n));
        if (nc)
            printf(" nodes %zu%s", nc, np ? "," : "");
        if (np || !nc)
            printf(" processes %zu, threads %zu", np, node_threads(n));
        putchar('\n');
        for (size_t k = nc; k-- > 0 && top < cap;)
            stack[top++] = (entry){cube_node_child(n, k), e.level + 1};
    }
    free(stack);
}

static void print_human(const char *path, const cube_t *c, const double *totals,
                        cube_metric **order, const cube4_facts *f)
{
    size_t nm = cube_num_metrics(c);
    int cube4 = cube_source_format(c) == CUBE_FORMAT_CUBE4;
    printf("file: %s\n", path);
    printf("format: %s (version %s)\n", format_name(c), cube_source_version(c));
    printf("attributes: %zu\n", cube_num_attrs(c));
    for (size_t i = 0; i < cube_num_attrs(c); i++)
        printf("  %s = %s\n", cube_attr_key(c, i), cube_attr_value(c, i));
    printf("mirrors: %zu\n", cube_num_mirrors(c));
    for (size_t i = 0; i < cube_num_mirrors(c); i++)
        printf("  %s\n", cube_mirror(c, i));
    printf("metrics: %zu (roots %zu, VOID %zu)\n", nm, cube_num_root_metrics(c),
           count_void(c));
    if (cube4) {
        printf("  kinds: ");
        print_counts_human(&f->kinds);
        printf(" (derived %zu, ghost %zu)\n", f->derived, f->ghost);
    }
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
    if (cube4) {
        printf("  system tree: depth %zu, classes ", f->depth);
        print_counts_human(&f->classes);
        printf("\n  location groups: ");
        print_counts_human(&f->group_types);
        printf("\n  locations: ");
        print_counts_human(&f->location_types);
        putchar('\n');
    }
    for (size_t i = 0; i < cube_num_machines(c); i++) {
        const cube_machine *m = cube_get_machine(c, i);
        if (cube4) {
            printf("  %s %s: nodes %zu\n", cube_machine_class(m), cube_machine_name(m),
                   cube_machine_num_nodes(m));
            print_nodes_human(c, m);
            continue;
        }
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
        else if (cube_metric_is_derived(m)) /* its values are not computed */
            printf("derived");
        else if (cli_no_value(cube_metric_combine(m), totals[cube_metric_index(m)]))
            printf("-"); /* a maximum or minimum without rows */
        else
            cli_print_double(stdout, totals[cube_metric_index(m)]);
        putchar('\n');
    }
    if (cube4) {
        printf("extra members: %zu\n", cube_num_extra_members(c));
        for (size_t i = 0; i < cube_num_extra_members(c); i++) {
            size_t size = 0;
            cube_extra_member_data(c, i, &size);
            printf("  %s (%zu bytes)\n", cube_extra_member_name(c, i), size);
        }
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

/* A system tree node's object opened: name, processes, threads, class,
 * and the start of the list of the nodes below it. */
static void open_node_json(const cube_node *n)
{
    printf("{\"node\":");
    cli_print_json_string(stdout, cube_node_name(n));
    printf(",\"processes\":%zu,\"threads\":%zu,\"class\":", cube_node_num_processes(n),
           node_threads(n));
    cli_print_json_string(stdout, cube_node_class(n));
    printf(",\"nodes\":[");
}

/* A machine's nodes as a JSON list, each with the nodes below it, walked
 * with a stack of its own (a file may nest nodes deeply).  0, or -1 when
 * out of memory. */
static int print_nodes_json(const cube_t *c, const cube_machine *m)
{
    typedef struct {
        const cube_node *node;
        size_t next; /* the next child to print */
    } frame;
    size_t cap = cube_num_nodes(c) + 1, top = 0;
    frame *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return -1;
    printf("[");
    for (size_t k = 0; k < cube_machine_num_nodes(m); k++) {
        const cube_node *n = cube_machine_node(m, k);
        printf("%s", k ? "," : "");
        open_node_json(n);
        stack[top++] = (frame){n, 0};
        while (top) {
            frame *f = &stack[top - 1];
            if (f->next < cube_node_num_children(f->node) && top < cap) {
                const cube_node *child = cube_node_child(f->node, f->next);
                printf("%s", f->next ? "," : "");
                f->next++;
                open_node_json(child);
                stack[top++] = (frame){child, 0};
            } else {
                printf("]}");
                top--;
            }
        }
    }
    printf("]");
    free(stack);
    return 0;
}

/* 0, or -1 when out of memory (the object is then unfinished). */
static int print_json(const char *path, const cube_t *c, const double *totals,
                      cube_metric **order, const cube4_facts *f)
{
    int first = 1;
    printf("{");
    json_key("file", &first);
    cli_print_json_string(stdout, path);
    json_key("format", &first);
    cli_print_json_string(stdout, format_name(c));
    json_key("format_version", &first);
    cli_print_json_string(stdout, cube_source_version(c));
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
           "\"nodes\":%zu,\"processes\":%zu,\"threads\":%zu,\"topologies\":%zu,"
           "\"derived_metrics\":%zu,\"ghost_metrics\":%zu,\"system_tree_depth\":%zu,"
           "\"extra_members\":%zu,\"rows\":%zu}",
           cube_num_metrics(c), cube_num_root_metrics(c), count_void(c), cube_num_regions(c),
           cube_num_cnodes(c), cube_num_root_cnodes(c), cube_cnode_depth_max(c),
           cube_num_machines(c), cube_num_nodes(c), cube_num_processes(c),
           cube_num_threads(c), cube_num_carts(c), f->derived, f->ghost, f->depth,
           cube_num_extra_members(c), cube_num_rows(c));
    json_key("metric_kinds", &first);
    print_counts_json(&f->kinds);
    json_key("system_tree_classes", &first);
    print_counts_json(&f->classes);
    json_key("location_group_types", &first);
    print_counts_json(&f->group_types);
    json_key("location_types", &first);
    print_counts_json(&f->location_types);
    json_key("extra_members", &first);
    printf("[");
    for (size_t i = 0; i < cube_num_extra_members(c); i++) {
        size_t size = 0;
        cube_extra_member_data(c, i, &size);
        printf("%s{\"name\":", i ? "," : "");
        cli_print_json_string(stdout, cube_extra_member_name(c, i));
        printf(",\"size\":%zu}", size);
    }
    printf("]");
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
        printf(",\"depth\":%zu,\"void\":%s,\"kind\":\"%s\",\"derived\":%s,\"ghost\":%s,"
               "\"expression\":",
               metric_depth(m), cube_metric_is_void(m) ? "true" : "false",
               cube_metric_kind_name(cube_metric_type(m)),
               cube_metric_is_derived(m) ? "true" : "false",
               cube_metric_is_ghost(m) ? "true" : "false");
        cli_print_json_string(stdout, cube_metric_expression(m));
        printf(",\"total\":");
        /* a derived metric's values are not computed, a maximum or minimum
         * without rows has none: no total */
        if (cube_metric_is_void(m) || cube_metric_is_derived(m) ||
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
        printf(",\"nodes\":");
        if (print_nodes_json(c, m) != 0)
            return -1;
        printf(",\"class\":");
        cli_print_json_string(stdout, cube_machine_class(m));
        printf("}");
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
    return 0;
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
    cube4_facts f;
    memset(&f, 0, sizeof f);
    int rc = EXIT_OK;
    /* cube_metric_totals fails only for lack of memory */
    if (!totals || !order || cube_metric_totals(c, totals, NULL) != 0 || facts_of(c, &f) != 0) {
        cli_error("%s: out of memory", path);
        rc = EXIT_TROUBLE;
    } else if (json) {
        if (print_json(path, c, totals, order, &f) != 0) {
            cli_error("%s: out of memory", path);
            rc = EXIT_TROUBLE;
        }
    } else {
        if (*printed)
            putchar('\n');
        print_human(path, c, totals, order, &f);
        *printed = 1;
    }
    facts_free(&f);
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
