/*
 * cli_common.c - what every tool does the same way.
 */
#include "cli_common.h"
#include "cli_signals.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *tool = "cube";

void cli_init(const char *tool_name)
{
    const char *slash = strrchr(tool_name, '/');
    tool = slash ? slash + 1 : tool_name;
    cli_catch_signals();
}

const char *cli_tool(void)
{
    return tool;
}

/* where cli_error keeps the calling thread's message, or NULL: print it */
static _Thread_local char **captured;

void cli_error_capture(char **msg)
{
    captured = msg;
    if (msg)
        *msg = NULL;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    if (captured) {
        free(*captured);
        va_start(ap, fmt);
        int len = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        *captured = len < 0 ? NULL : malloc((size_t)len + 1);
        if (*captured) {
            va_start(ap, fmt);
            vsnprintf(*captured, (size_t)len + 1, fmt, ap);
            va_end(ap);
        }
        return;
    }
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
    printf("%s (libcube) %s\n", tool, CUBE_VERSION_STRING);
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

int cli_write(cube_t *c, const char *path, unsigned flags)
{
    size_t before = cube_num_warnings(c);
    if (cube_write_file(c, path, flags) != 0) {
        cli_error("%s", cube_error(c));
        return -1;
    }
    for (size_t i = before; i < cube_num_warnings(c); i++)
        fprintf(stderr, "%s: warning: %s\n", tool, cube_warning(c, i));
    return 0;
}

int cli_write_format_parse(const char *name, unsigned *flags)
{
    if (strcmp(name, "cube3") == 0)
        *flags = CUBE_WRITE_CUBE3;
    else if (strcmp(name, "cube4") == 0)
        *flags = CUBE_WRITE_CUBE4;
    else
        return -1;
    return 0;
}

int cli_write_option(cli_write_opts *w, int opt, const char *arg, const char *usage)
{
    switch (opt) {
    case 'o': w->output = arg; return 1;
    case 'F':
        if (cli_write_format_parse(arg, &w->format) != 0)
            cli_usage_error(usage, "--format takes 'cube3' or 'cube4', not '%s'", arg);
        return 1;
    case 'z': w->gzip = 1; return 1;
    default: return 0;
    }
}

unsigned cli_write_flags(const cli_write_opts *w)
{
    return w->format | (w->gzip ? CUBE_WRITE_GZIP : 0);
}

const char *cli_default_output(const char *base, unsigned format, const cube_t *c, char *buf,
                               size_t len)
{
    int cube4 = format ? format == CUBE_WRITE_CUBE4 : cube_source_format(c) == CUBE_FORMAT_CUBE4;
    snprintf(buf, len, "%s.%s", base, cube4 ? "cubex" : "cube");
    return buf;
}

const cube_metric *cli_find_metric(const cube_t *c, const char *file, const char *opt,
                                   const char *name)
{
    size_t n = 0;
    const cube_metric *m = *name ? cube_find_metric_named(c, name, &n) : NULL;
    if (m && cube_metric_is_void(m)) {
        cli_error("%s: metric '%s' is VOID: it has no values", file, name);
        return NULL;
    }
    if (m && cube_metric_is_derived(m)) {
        cli_error("%s: metric '%s' is derived: its values are not computed", file, name);
        return NULL;
    }
    if (m)
        return m;
    if (n == 0) {
        cli_error("%s: no metric '%s' (cube_dump -w metrics lists them)", file, name);
        return NULL;
    }
    char list[512];
    cube_metric_name_candidates(c, name, list, sizeof list);
    cli_error("%s: %s %s matches %zu metrics: %s; use a unique name", file, opt, name, n, list);
    return NULL;
}

int cli_each_listed_metric(const cube_t *c, const char *file, const char *opt, const char *list,
                           int (*each)(void *user, const cube_metric *m), void *user)
{
    for (const char *s = list;;) {
        size_t k = strcspn(s, ",");
        char *name = strndup(s, k);
        if (!name) {
            cli_error("out of memory");
            return -1;
        }
        const cube_metric *m = cli_find_metric(c, file, opt, name);
        free(name);
        if (!m || each(user, m) != 0)
            return -1;
        if (!s[k])
            return 0;
        s += k + 1;
    }
}

int cli_cart_has_dim_names(const cube_cartesian *cart)
{
    for (long d = 0; d < cube_cart_ndims(cart); d++)
        if (cube_cart_dim_name(cart, d))
            return 1;
    return 0;
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

/* ------------------------------------------------------------------------
 * Outputs named by -o.
 * ------------------------------------------------------------------------ */

int cli_output_open(cli_output *o, const char *path)
{
    cube_status st;
    o->out = cube_output_open(path, &st);
    o->fp = o->out ? cube_output_stream(o->out) : NULL;
    if (!o->out) {
        cli_error("%s", st.message);
        return -1;
    }
    return 0;
}

int cli_output_close(cli_output *o, int commit)
{
    if (!o->out)
        return 0;
    cube_status st;
    int rc = cube_output_close(o->out, commit, &st);
    o->out = NULL;
    o->fp = NULL;
    if (rc != 0)
        cli_error("%s", st.message);
    return commit ? rc : -1;
}

/* ------------------------------------------------------------------------
 * Tables.
 * ------------------------------------------------------------------------ */

int cli_format_parse(const char *name, cli_format *format)
{
    static const char *const names[] = {"csv", "tsv", "json", "human"};
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0) {
            *format = (cli_format)i;
            return 0;
        }
    return -1;
}

struct cli_table {
    FILE *fp;
    cli_format format;
    const cli_column *columns;
    size_t ncols;
    unsigned flags;
    size_t field;    /* fields written in the current row */
    size_t rows;     /* rows ended so far */
    int failed;      /* out of memory: rows are dropped, cli_table_end fails */
    /* human: every cell as a NUL-terminated string in `text`, row after
     * row, ncols cells a row; gap rows are flagged */
    char *text;
    size_t text_len, text_cap;
    size_t *cells;   /* offsets into text */
    size_t num_cells, cells_cap;
    unsigned char *gap; /* per row */
    size_t gap_cap;
    /* csv, tsv, json: the line being built, written with one fwrite (a
     * stdio call per field would lock the stream for each) */
    char *line;
    size_t line_len, line_cap;
    size_t row_body;       /* json: where the current row's fields begin in line */
    char *prefix;          /* cli_table_keep_prefix: the fields kept, as written */
    size_t prefix_len, prefix_cap, prefix_fields;
};

/* Make room for n more bytes in the line; 0, or -1 when out of memory. */
static int line_room(cli_table *t, size_t n)
{
    if (t->line_len + n <= t->line_cap)
        return 0;
    size_t cap = t->line_cap ? 2 * t->line_cap : 1024;
    while (cap < t->line_len + n)
        cap *= 2;
    char *l = realloc(t->line, cap);
    if (!l)
        return -1;
    t->line = l;
    t->line_cap = cap;
    return 0;
}

static void table_oom(cli_table *t);

static void line_put(cli_table *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (line_room(t, n) != 0) {
        table_oom(t);
        return;
    }
    memcpy(t->line + t->line_len, s, n);
    t->line_len += n;
}

static void line_puts(cli_table *t, const char *s)
{
    line_put(t, s, strlen(s));
}

static void line_putc(cli_table *t, char c)
{
    line_put(t, &c, 1);
}

static void line_flush(cli_table *t)
{
    if (t->line_len)
        fwrite(t->line, 1, t->line_len, t->fp);
    t->line_len = 0;
}

/* A JSON string literal, as cli_print_json_string writes it. */
static void line_json_string(cli_table *t, const char *s)
{
    line_putc(t, '"');
    const unsigned char *p = (const unsigned char *)s;
    for (;;) {
        const unsigned char *q = p;
        while (*q >= 0x20 && *q != '"' && *q != '\\')
            q++;
        line_put(t, (const char *)p, (size_t)(q - p));
        if (!*q)
            break;
        char esc[8];
        switch (*q) {
        case '"': line_puts(t, "\\\""); break;
        case '\\': line_puts(t, "\\\\"); break;
        case '\n': line_puts(t, "\\n"); break;
        case '\r': line_puts(t, "\\r"); break;
        case '\t': line_puts(t, "\\t"); break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", *q);
            line_puts(t, esc);
        }
        p = q + 1;
    }
    line_putc(t, '"');
}

static void human_mark_row(cli_table *t, size_t row, int gap);

static void table_oom(cli_table *t)
{
    if (!t->failed)
        cli_error("out of memory");
    t->failed = 1;
}

/* human: append one cell, with tabs, CR and LF as spaces */
static void human_cell(cli_table *t, const char *s)
{
    if (t->failed)
        return;
    size_t n = strlen(s);
    if (t->num_cells == t->cells_cap) {
        size_t cap = t->cells_cap ? 2 * t->cells_cap : 256;
        size_t *c = realloc(t->cells, cap * sizeof *c);
        if (!c) {
            table_oom(t);
            return;
        }
        t->cells = c;
        t->cells_cap = cap;
    }
    if (t->text_len + n + 1 > t->text_cap) {
        size_t cap = t->text_cap ? 2 * t->text_cap : 4096;
        while (cap < t->text_len + n + 1)
            cap *= 2;
        char *x = realloc(t->text, cap);
        if (!x) {
            table_oom(t);
            return;
        }
        t->text = x;
        t->text_cap = cap;
    }
    t->cells[t->num_cells++] = t->text_len;
    for (size_t i = 0; i < n; i++)
        t->text[t->text_len++] = (s[i] == '\t' || s[i] == '\n' || s[i] == '\r') ? ' ' : s[i];
    t->text[t->text_len++] = '\0';
}

static void csv_field(cli_table *t, const char *s, int always_quote)
{
    size_t n = strcspn(s, ",\"\r\n");
    if (!always_quote && !s[n]) {
        line_put(t, s, n);
        return;
    }
    line_putc(t, '"');
    for (;;) {
        n = strcspn(s, "\"");
        line_put(t, s, n);
        if (!s[n])
            break;
        line_puts(t, "\"\"");
        s += n + 1;
    }
    line_putc(t, '"');
}

static void tsv_field(cli_table *t, const char *s)
{
    for (;;) {
        size_t n = strcspn(s, "\t\r\n");
        line_put(t, s, n);
        if (!s[n])
            break;
        line_putc(t, ' ');
        s += n + 1;
    }
}

/* Start the next field: separators, and for json the key.  Returns the
 * column, or NULL when the row is already full. */
static const cli_column *next_field(cli_table *t)
{
    if (t->field >= t->ncols)
        return NULL;
    const cli_column *col = &t->columns[t->field];
    switch (t->format) {
    case CLI_FORMAT_CSV:
        if (t->field)
            line_putc(t, ',');
        break;
    case CLI_FORMAT_TSV:
        if (t->field)
            line_putc(t, '\t');
        break;
    case CLI_FORMAT_JSON:
        line_puts(t, t->field ? "," : (t->rows ? ",\n{" : "\n{"));
        if (!t->field)
            t->row_body = t->line_len;
        line_json_string(t, col->name);
        line_putc(t, ':');
        break;
    case CLI_FORMAT_HUMAN: break;
    }
    t->field++;
    return col;
}

/* A field whose text is `s` in csv, tsv and human; `json` (raw) in json. */
static void put_field(cli_table *t, const char *s, const char *json, int is_text)
{
    const cli_column *col = next_field(t);
    if (!col)
        return;
    switch (t->format) {
    case CLI_FORMAT_CSV:
        csv_field(t, s, is_text && (col->flags & CLI_COL_QUOTE));
        break;
    case CLI_FORMAT_TSV: tsv_field(t, s); break;
    case CLI_FORMAT_JSON:
        if (json)
            line_puts(t, json);
        else
            line_json_string(t, s);
        break;
    case CLI_FORMAT_HUMAN: human_cell(t, s); break;
    }
}

cli_table *cli_table_begin(FILE *fp, cli_format format, const cli_column *columns,
                           size_t num_columns, unsigned flags)
{
    cli_table *t = calloc(1, sizeof *t);
    if (!t) {
        cli_error("out of memory");
        return NULL;
    }
    t->fp = fp;
    t->format = format;
    t->columns = columns;
    t->ncols = num_columns;
    t->flags = flags;
    switch (format) {
    case CLI_FORMAT_CSV:
    case CLI_FORMAT_TSV:
        for (size_t i = 0; i < num_columns; i++) {
            if (i)
                line_putc(t, format == CLI_FORMAT_CSV ? ',' : '\t');
            if (format == CLI_FORMAT_CSV)
                csv_field(t, columns[i].name, 0);
            else
                tsv_field(t, columns[i].name);
        }
        line_putc(t, '\n');
        line_flush(t);
        break;
    case CLI_FORMAT_JSON: fputc('[', fp); break;
    case CLI_FORMAT_HUMAN:
        for (size_t i = 0; i < num_columns; i++)
            human_cell(t, columns[i].name);
        human_mark_row(t, 0, 0); /* the header; not counted in t->rows */
        break;
    }
    return t;
}

void cli_table_text(cli_table *t, const char *s)
{
    if (s)
        put_field(t, s, NULL, 1);
    else
        put_field(t, "", "null", 1);
}

void cli_table_int(cli_table *t, long long v)
{
    char buf[32], *p = buf + sizeof buf - 1;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    *p = '\0';
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    put_field(t, p, p, 0);
}

void cli_table_double(cli_table *t, double v)
{
    char buf[CUBE_DOUBLE_BUFSIZE];
    if (isnan(v)) {
        put_field(t, t->format == CLI_FORMAT_HUMAN ? "-" : "", "null", 0);
        return;
    }
    cube_format_double(v, buf);
    put_field(t, buf, isfinite(v) ? buf : "null", 0);
}

int cli_no_value(cube_combine_rule how, double v)
{
    return how != CUBE_COMBINE_SUM && v == cube_combine_neutral(how);
}

void cli_table_view_value(cli_table *t, cube_combine_rule how, double value, double shown)
{
    if (cli_no_value(how, value))
        cli_table_absent(t, "-");
    else
        cli_table_double(t, shown);
}

void cli_table_absent(cli_table *t, const char *text)
{
    put_field(t, text, "null", 0);
}

void cli_table_keep_prefix(cli_table *t)
{
    t->prefix_fields = 0;
    if (t->format == CLI_FORMAT_HUMAN || t->failed || !t->field)
        return;
    size_t start = t->format == CLI_FORMAT_JSON ? t->row_body : 0;
    size_t n = t->line_len - start;
    if (n > t->prefix_cap) {
        char *p = realloc(t->prefix, n);
        if (!p)
            return; /* not kept: the caller writes the fields again */
        t->prefix = p;
        t->prefix_cap = n;
    }
    memcpy(t->prefix, t->line + start, n);
    t->prefix_len = n;
    t->prefix_fields = t->field;
}

int cli_table_reuse_prefix(cli_table *t)
{
    if (!t->prefix_fields || t->field)
        return 0;
    if (t->format == CLI_FORMAT_JSON)
        line_puts(t, t->rows ? ",\n{" : "\n{");
    line_put(t, t->prefix, t->prefix_len);
    t->field = t->prefix_fields;
    return 1;
}

/* human: the row just completed is a gap (1) or not (0) */
static void human_mark_row(cli_table *t, size_t row, int gap)
{
    if (t->failed)
        return;
    if (row >= t->gap_cap) {
        size_t cap = t->gap_cap ? 2 * t->gap_cap : 256;
        while (cap <= row)
            cap *= 2;
        unsigned char *g = realloc(t->gap, cap);
        if (!g) {
            table_oom(t);
            return;
        }
        t->gap = g;
        t->gap_cap = cap;
    }
    t->gap[row] = (unsigned char)gap;
}

void cli_table_end_row(cli_table *t)
{
    while (t->field < t->ncols) { /* missing fields */
        if (t->format == CLI_FORMAT_JSON)
            put_field(t, "", "null", 0);
        else
            put_field(t, "", NULL, 0);
    }
    switch (t->format) {
    case CLI_FORMAT_CSV:
    case CLI_FORMAT_TSV:
        line_putc(t, '\n');
        line_flush(t);
        break;
    case CLI_FORMAT_JSON:
        line_putc(t, '}');
        line_flush(t);
        break;
    case CLI_FORMAT_HUMAN:
        human_mark_row(t, t->failed ? 0 : t->num_cells / (t->ncols ? t->ncols : 1) - 1, 0);
        break;
    }
    t->field = 0;
    t->rows++;
}

void cli_table_gap(cli_table *t)
{
    if (t->field)
        cli_table_end_row(t);
    switch (t->format) {
    case CLI_FORMAT_CSV:
    case CLI_FORMAT_TSV: fputc('\n', t->fp); break;
    case CLI_FORMAT_JSON: break;
    case CLI_FORMAT_HUMAN:
        for (size_t i = 0; i < t->ncols; i++)
            human_cell(t, "");
        human_mark_row(t, t->failed ? 0 : t->num_cells / (t->ncols ? t->ncols : 1) - 1, 1);
        break;
    }
}

/* Display width of UTF-8 text: code points (bytes that are not
 * continuation bytes). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void pad(FILE *fp, size_t n)
{
    while (n--)
        fputc(' ', fp);
}

static void human_print(cli_table *t)
{
    size_t nc = t->ncols ? t->ncols : 1, nrows = t->num_cells / nc;
    size_t *width = calloc(nc, sizeof *width);
    if (!width) {
        table_oom(t);
        return;
    }
    for (size_t r = 0; r < nrows; r++)
        for (size_t k = 0; k < t->ncols; k++) {
            size_t w = text_width(t->text + t->cells[r * nc + k]);
            if (w > width[k])
                width[k] = w;
        }
    for (size_t r = 0; r < nrows; r++) {
        if (t->gap[r]) {
            fputc('\n', t->fp);
            continue;
        }
        /* spaces are written only before something visible: no trailing
         * spaces after a last field that is left-aligned or empty */
        size_t pending = 0;
        for (size_t k = 0; k < t->ncols; k++) {
            const char *s = t->text + t->cells[r * nc + k];
            size_t fill = width[k] - text_width(s);
            if (k)
                pending += 2;
            if (t->columns[k].flags & CLI_COL_NUMBER)
                pending += fill;
            if (*s) {
                pad(t->fp, pending);
                pending = 0;
                fputs(s, t->fp);
            }
            if (!(t->columns[k].flags & CLI_COL_NUMBER))
                pending += fill;
        }
        fputc('\n', t->fp);
    }
    free(width);
}

int cli_table_end(cli_table *t)
{
    if (!t)
        return -1;
    if (t->field)
        cli_table_end_row(t);
    switch (t->format) {
    case CLI_FORMAT_CSV:
    case CLI_FORMAT_TSV: break;
    case CLI_FORMAT_JSON:
        fputs(t->rows ? "\n]" : "]", t->fp);
        if (!(t->flags & CLI_TABLE_NO_NEWLINE))
            fputc('\n', t->fp);
        break;
    case CLI_FORMAT_HUMAN:
        if (!t->failed)
            human_print(t);
        break;
    }
    int rc = t->failed ? -1 : 0;
    free(t->text);
    free(t->cells);
    free(t->gap);
    free(t->line);
    free(t->prefix);
    free(t);
    return rc;
}

/* ------------------------------------------------------------------------
 * Reading row by row.
 * ------------------------------------------------------------------------ */

struct cli_input {
    cube_reader *reader; /* streaming, or */
    cube_t *whole;       /* read whole */
    size_t warned;       /* warnings printed so far */
};

static void input_warnings(cli_input *in)
{
    if (in->reader) {
        for (; in->warned < cube_reader_num_warnings(in->reader); in->warned++)
            fprintf(stderr, "%s: warning: %s\n", tool,
                    cube_reader_warning(in->reader, in->warned));
    } else {
        for (; in->warned < cube_num_warnings(in->whole); in->warned++)
            fprintf(stderr, "%s: warning: %s\n", tool, cube_warning(in->whole, in->warned));
    }
}

/* Read the whole experiment into in->whole (a reader is closed first). */
static int input_whole(cli_input *in, const char *path)
{
    cube_reader_close(in->reader);
    in->reader = NULL;
    in->whole = cube_create();
    if (!in->whole) {
        cli_error("out of memory");
        return -1;
    }
    if (cube_read(in->whole, path) != 0) {
        cli_error("%s", cube_error(in->whole));
        return -1;
    }
    input_warnings(in);
    return 0;
}

static int input_stored_rows(cli_input *in, const cli_row_sink *sink, void *user)
{
    if (sink->setup(user, in->whole) != 0)
        return -1;
    for (size_t k = 0; k < cube_num_rows(in->whole); k++) {
        cube_metric *met;
        cube_cnode *cnode;
        const double *v = cube_row_at(in->whole, k, &met, &cnode);
        if (v && sink->wants(user, met) && sink->add(user, met, cnode, v) != 0)
            return -1;
    }
    return 0;
}

cli_input *cli_input_read(const char *path, const cli_row_sink *sink, void *user)
{
    cli_input *in = calloc(1, sizeof *in);
    if (!in) {
        cli_error("out of memory");
        return NULL;
    }
    if (strcmp(path, "-") == 0) {
        if (input_whole(in, path) != 0 || (sink && input_stored_rows(in, sink, user) != 0)) {
            cli_input_close(in);
            return NULL;
        }
        return in;
    }
    in->reader = cube_reader_open(path);
    if (!in->reader || !cube_reader_definitions(in->reader)) {
        cli_error("%s", in->reader ? cube_reader_error(in->reader) : "out of memory");
        cli_input_close(in);
        return NULL;
    }
    input_warnings(in);
    if (!sink)
        return in;
    if (sink->setup(user, cube_reader_definitions(in->reader)) != 0) {
        cli_input_close(in);
        return NULL;
    }
    /* the reader need not even parse the rows no view wants */
    const cube_t *defs = cube_reader_definitions(in->reader);
    unsigned char *wanted = malloc(cube_num_metrics(defs) + 1);
    if (wanted) {
        for (size_t m = 0; m < cube_num_metrics(defs); m++)
            wanted[m] = sink->wants(user, cube_get_metric(defs, m)) != 0;
        cube_reader_select_metrics(in->reader, wanted); /* only a saving: may fail */
        free(wanted);
    }
    const cube_metric *met;
    const cube_cnode *cnode;
    const double *v;
    int got;
    while ((got = cube_reader_next_row(in->reader, &met, &cnode, &v)) == 1) {
        if (!sink->wants(user, met))
            continue;
        if (cube_reader_row_may_repeat(in->reader)) {
            /* the later row must replace the earlier one: read it whole */
            sink->reset(user);
            if (input_whole(in, path) != 0 || input_stored_rows(in, sink, user) != 0) {
                cli_input_close(in);
                return NULL;
            }
            return in;
        }
        if (sink->add(user, met, cnode, v) != 0) {
            cli_input_close(in);
            return NULL;
        }
    }
    if (got < 0) {
        cli_error("%s", cube_reader_error(in->reader));
        cli_input_close(in);
        return NULL;
    }
    input_warnings(in);
    return in;
}

const cube_t *cli_input_defs(const cli_input *in)
{
    return in->reader ? cube_reader_definitions(in->reader) : in->whole;
}

void cli_input_close(cli_input *in)
{
    if (!in)
        return;
    cube_reader_close(in->reader);
    cube_free(in->whole);
    free(in);
}

int cli_slashed_regex(const char *arg, regex_t *re, char *err, size_t len)
{
    size_t n = strlen(arg);
    if (n < 2 || arg[0] != '/' || arg[n - 1] != '/')
        return 0;
    char *pattern = malloc(n - 1);
    if (!pattern) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    memcpy(pattern, arg + 1, n - 2);
    pattern[n - 2] = '\0';
    int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
    free(pattern);
    if (rc != 0) {
        regerror(rc, re, err, len);
        regfree(re);
        return -1;
    }
    return 1;
}

int cli_parse_count(const char *arg, size_t *n)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (arg[0] < '0' || arg[0] > '9' || *end || errno)
        return -1;
    *n = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
    return 0;
}

/* by cube_system_level */
static const char *const by_names[] = {"thread", "process", "node", "machine", "all"};

cube_system_level cli_parse_by(const char *arg, const char *usage)
{
    for (size_t i = 0; i < sizeof by_names / sizeof by_names[0]; i++)
        if (strcmp(arg, by_names[i]) == 0)
            return (cube_system_level)i;
    cli_usage_error(usage, "--by takes thread, process, node, machine or all, not '%s'", arg);
}

const char *cli_by_name(cube_system_level by)
{
    return by_names[by];
}

int cli_parse_percent(const char *arg, double *p)
{
    double v;
    /* the "C" locale's number whatever the locale (a tool may set one) */
    if (cube_parse_double(arg, strlen(arg), &v, NULL) != 0 || !(v >= 0 && v <= 100))
        return -1;
    *p = v;
    return 0;
}

int cli_call_path_enter(cli_call_path *b, const cube_cnode *cnode, size_t level)
{
    /* the level array grows as the walk goes down, so the tree's depth
     * need not be known (and the tree walked for it) first */
    if (level >= b->levels_cap) {
        size_t cap = b->levels_cap ? 2 * b->levels_cap : 64;
        while (cap <= level)
            cap *= 2;
        size_t *grown = realloc(b->at_level, cap * sizeof *grown);
        if (!grown)
            return -1;
        b->at_level = grown;
        b->levels_cap = cap;
    }
    size_t base = level ? b->at_level[level - 1] : 0;
    const char *name = cube_region_name(cube_cnode_callee(cnode));
    size_t n = strlen(name), need = base + 1 + n + 1;
    if (need > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < need)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return -1;
        b->s = s;
        b->cap = cap;
    }
    b->len = base;
    if (level)
        b->s[b->len++] = '/';
    memcpy(b->s + b->len, name, n);
    b->len += n;
    b->s[b->len] = '\0';
    b->at_level[level] = b->len;
    return 0;
}

void cli_call_path_free(cli_call_path *b)
{
    free(b->s);
    free(b->at_level);
    memset(b, 0, sizeof *b);
}
