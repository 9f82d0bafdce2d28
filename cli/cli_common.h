/*
 * cli_common.h - the conventions every tool follows: messages
 * as "tool: file:line: what", exit status 0 / 1 / 2, --help and --version,
 * "-" for standard input and output.
 */
#ifndef CLI_COMMON_H
#define CLI_COMMON_H

#include "cube.h"

#include <getopt.h>
#include <regex.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_NEGATIVE = 1, EXIT_TROUBLE = 2 };

/* The tool's name for messages, and the handling of signals
 * (cli_catch_signals in cli_signals.h); call first in main. */
void cli_init(const char *tool_name);
const char *cli_tool(void);

/* "tool: message" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* From now until cli_error_capture(NULL), cli_error on the calling thread
 * prints nothing and keeps its message (without the tool's name) in *msg,
 * malloc'ed, replacing and freeing an earlier one: work done on several
 * threads leaves its errors to the one thread that reports them, in order
 * and one at a time.  Out of memory the message is NULL; *msg is set to
 * NULL here. */
void cli_error_capture(char **msg);
/* Print `usage` to stderr with a pointer to --help, and exit 2. */
_Noreturn void cli_usage_error(const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cli_print_version(void);

/* getopt_long for every tool: returns the next option (as getopt_long
 * does) or -1 after the last.  A bad option is never returned: it gets one
 * message of our own ("tool: unknown option '-x'", "tool: option '-o'
 * needs an argument", "tool: option '--json' doesn't allow an argument"),
 * then `usage` and the pointer to --help, and exit status 2
 * (getopt's own messages, with the full program path, are off). */
int cli_getopt(int argc, char *const argv[], const char *optstring,
               const struct option *longopts, const char *usage);

/* A count given on the command line: decimal digits only (no sign, no
 * blanks), at most ULLONG_MAX; *n saturates at SIZE_MAX.  0, or -1 for
 * anything else (the caller names the option in its message). */
int cli_parse_count(const char *arg, size_t *n);
/* --by=thread|process|node|machine|all (cube_dump, cube_cmp): the level of
 * the system tree the values are given per; a usage error (exit 2) for
 * another word.  cli_by_name is the word of a level. */
cube_system_level cli_parse_by(const char *arg, const char *usage);
const char *cli_by_name(cube_system_level by);
/* A percentage given on the command line (a threshold: cube_calltree -t,
 * cube_dump --threshold): a number from 0 to 100 as the "C" locale writes
 * it.  0, or -1 for anything else (the caller names the option in its
 * message).  Whether a value reaches it: cube_value_reaches. */
int cli_parse_percent(const char *arg, double *p);

/* Is `arg` a regular expression written /REGEX/ (at least the two
 * slashes)?  Then compile REGEX (POSIX extended, no submatches) into *re:
 * 1; 0 when arg is not of that form (*re untouched); -1 when REGEX does not
 * compile, the reason in `err` (len bytes).  Free *re with regfree after 1. */
int cli_slashed_regex(const char *arg, regex_t *re, char *err, size_t len);

/* Read a whole experiment ("-" is stdin); warnings are printed.  NULL after
 * printing the error. */
cube_t *cli_read(const char *path);
void cli_print_warnings(const cube_t *c);

/* Write `c` to `path` as cube_write_file does (`flags`: CUBE_WRITE_*),
 * then print the warnings the write added to the handle (what the format
 * written cannot hold), each as "tool: warning: ...".  0, or -1 after
 * printing the error. */
int cli_write(cube_t *c, const char *path, unsigned flags);
/* --format=cube3|cube4 of the tools that write an experiment: the flag
 * (CUBE_WRITE_CUBE3 or CUBE_WRITE_CUBE4); 0, or -1 for another name. */
int cli_write_format_parse(const char *name, unsigned *flags);
/* The output options of the tools that write an experiment: -o OUT,
 * --format=cube3|cube4 and -z.  Zero-initialise. */
typedef struct {
    const char *output; /* NULL: the tool's default name */
    unsigned format;    /* CUBE_WRITE_CUBE3, CUBE_WRITE_CUBE4, or 0: by the name */
    int gzip;           /* -z */
} cli_write_opts;
/* Their entries of a tool's option table (getopt values 'o', 'F', 'z'). */
#define CLI_WRITE_LONG_OPTIONS                                                     \
    {"output", required_argument, NULL, 'o'}, {"format", required_argument, NULL, 'F'}, \
        {"gzip", no_argument, NULL, 'z'}
/* Take option `opt` with its argument when it is one of them (1), else 0;
 * a --format other than cube3 or cube4 is a usage error (exit 2). */
int cli_write_option(cli_write_opts *w, int opt, const char *arg, const char *usage);
/* The flags of cli_write for them. */
unsigned cli_write_flags(const cli_write_opts *w);
/* The default output name BASE.cubex or BASE.cube, into buf: the format
 * --format chose (`format`, 0 when none), else that `c` was read from. */
const char *cli_default_output(const char *base, unsigned format, const cube_t *c, char *buf,
                               size_t len);

/* The metric a user named with option `opt` ("-m") in the experiment read
 * from `file`: by unique name, or by display name where only one metric
 * has it (cube_find_metric_named); a VOID metric, which has no values, and
 * a derived one (CUBE 4), whose values are not computed, are refused.
 * NULL after printing why: no such metric, a display name several metrics
 * share (their unique names listed), VOID, or derived. */
const cube_metric *cli_find_metric(const cube_t *c, const char *file, const char *opt,
                                   const char *name);
/* Each metric of the comma-separated `list` given with option `opt`, found
 * by cli_find_metric, passed to `each` in the order of the list.  0, or -1
 * after printing why (a name not found, out of memory) or when `each`
 * returned -1 (it prints its own error). */
int cli_each_listed_metric(const cube_t *c, const char *file, const char *opt, const char *list,
                           int (*each)(void *user, const cube_metric *m), void *user);

/* Is any dimension of the topology named?  (Then the tools list every
 * dimension's name, "" for an unnamed one; else none.) */
int cli_cart_has_dim_names(const cube_cartesian *cart);

/* The call path ("root/child/.../node", region names) of the node a
 * preorder walk (cube_tree_walk) is at, kept up to date one node at a
 * time: time linear in the length of the path's last name, memory that
 * grows with the depth, so that a tree 100 000 deep is no quadratic work.
 * Start with {0}; after cli_call_path_enter (0, or -1 when out of memory)
 * `s` is the path of `cnode` at `level` (0: a root).  cli_call_path_free
 * frees it. */
typedef struct {
    char *s;
    size_t len, cap;
    size_t *at_level; /* length of the path up to each level */
    size_t levels_cap;
} cli_call_path;
int cli_call_path_enter(cli_call_path *b, const cube_cnode *cnode, size_t level);
void cli_call_path_free(cli_call_path *b);

/* Print a double in the shortest form that reads back exactly. */
void cli_print_double(FILE *fp, double v);
/* A JSON string literal with the needed escapes. */
void cli_print_json_string(FILE *fp, const char *s);

/* ------------------------------------------------------------------------
 * Outputs named by -o, through libcube's cube_output_open: "-" is standard
 * output; a regular file (or a new one) is written to a temporary file
 * beside it and renamed into place only when everything was written, so
 * an error or a signal never leaves a partial file; anything else (a FIFO,
 * /dev/stderr) is written directly.
 * ------------------------------------------------------------------------ */
typedef struct {
    FILE *fp; /* where to write */
    cube_output *out;
} cli_output;

/* 0, or -1 after printing the error. */
int cli_output_open(cli_output *o, const char *path);
/* Flush and close; with `commit` the output is put in place, without it
 * (after an error) a temporary file is removed.  0, or -1 after printing
 * the error ("FILE: write failed: reason"); always -1 without `commit`. */
int cli_output_close(cli_output *o, int commit);

/* ------------------------------------------------------------------------
 * Tables, written as CSV, TSV, JSON or an aligned table for people.  One
 * writer for every tool, so that the formats agree everywhere:
 *
 *  csv    a header row, then one line per row; a field holding ',', '"',
 *         CR or LF (or every field of a CLI_COL_QUOTE column) is quoted
 *         "...", with '"' doubled (RFC 4180); lines end in LF.
 *  tsv    a header row, fields separated by tabs, never quoted: a tab, CR
 *         or LF inside a field is written as a space.
 *  json   one array of objects, one object per line, keys = column names
 *         in column order; numbers as numbers, absent values as null.
 *  human  the header and the rows aligned in columns two spaces apart,
 *         numbers right-aligned, text left-aligned (tabs and newlines as
 *         spaces); buffered until cli_table_end.
 *
 * Numbers are printed in the shortest form that reads back to the same
 * double (cube_format_double).  A NaN (an undefined value) is an empty
 * field in csv and tsv, null in json and "-" in human; an infinity is
 * "inf" / "-inf" (null in json).
 * ------------------------------------------------------------------------ */
typedef enum { CLI_FORMAT_CSV, CLI_FORMAT_TSV, CLI_FORMAT_JSON, CLI_FORMAT_HUMAN } cli_format;

/* "csv", "tsv", "json" or "human"; 0, or -1 for another name. */
int cli_format_parse(const char *name, cli_format *format);

#define CLI_COL_NUMBER 1u /* right-aligned in human */
#define CLI_COL_QUOTE 2u  /* csv: every field quoted (a header never is) */

typedef struct {
    const char *name;
    unsigned flags;
} cli_column;

typedef struct cli_table cli_table;

/* Flags of cli_table_begin. */
#define CLI_TABLE_NO_NEWLINE 1u /* json: no newline after the closing ']' */

/* Start a table on `fp` (the header row is written at once, except in
 * human).  The columns must outlive the table.  NULL when out of memory
 * (after printing the error). */
cli_table *cli_table_begin(FILE *fp, cli_format format, const cli_column *columns,
                           size_t num_columns, unsigned flags);
/* The next field of the current row: text (NULL: empty, null in json), an
 * integer, a double, or `text` that is null in json (e.g. "aggr"). */
void cli_table_text(cli_table *t, const char *s);
void cli_table_int(cli_table *t, long long v);
void cli_table_double(cli_table *t, double v);
/* Is `v`, a view's value of a metric that combines as `how`, no value: a
 * maximum or minimum that nothing contributed to (cube_combine_neutral)? */
int cli_no_value(cube_combine_rule how, double v);
/* A view's value: "-" (null in json) where it is no value, else `shown`
 * (the value itself, or its form in a value mode) as cli_table_double. */
void cli_table_view_value(cli_table *t, cube_combine_rule how, double value, double shown);
void cli_table_absent(cli_table *t, const char *text);
/* Rows that begin with the same fields: after writing them in one row,
 * cli_table_keep_prefix keeps them as written; at the start of a later
 * row, cli_table_reuse_prefix writes them again and returns 1, or returns
 * 0 when nothing is kept (always in human format, or when out of memory):
 * then the caller writes them.  A speed-up for long tables only. */
void cli_table_keep_prefix(cli_table *t);
int cli_table_reuse_prefix(cli_table *t);
/* End the current row (missing fields are empty). */
void cli_table_end_row(cli_table *t);
/* An empty line between blocks of rows (csv, tsv, human; nothing in json). */
void cli_table_gap(cli_table *t);
/* Finish the table (human: print it) and free it.  0, or -1 when out of
 * memory (after printing the error). */
int cli_table_end(cli_table *t);

/* ------------------------------------------------------------------------
 * Reading row by row for views: the definitions, then every row of the
 * metrics a tool wants, without keeping the others.  A file that repeats
 * a wanted (metric, call path) row, and standard input, are read whole
 * instead (cube_read lets a repeated row replace the earlier one): then
 * `reset` drops what `setup` made and `setup` is called again on the
 * whole experiment, whose stored rows are passed the same way.
 * ------------------------------------------------------------------------ */
typedef struct {
    /* Called with the definitions before any row; 0, or -1 after printing
     * the error. */
    int (*setup)(void *user, const cube_t *defs);
    /* Does the tool want the rows of this metric? */
    int (*wants)(void *user, const cube_metric *met);
    /* One row (cube_num_threads(defs) values); 0, or -1 after printing the
     * error. */
    int (*add)(void *user, const cube_metric *met, const cube_cnode *cnode,
               const double *values);
    /* Forget everything setup made. */
    void (*reset)(void *user);
} cli_row_sink;

typedef struct cli_input cli_input;

/* Read `path` ("-": standard input), printing its warnings; with `sink`
 * NULL only the definitions are read (of a file; standard input is read
 * whole).  NULL after printing the error. */
cli_input *cli_input_read(const char *path, const cli_row_sink *sink, void *user);
/* The definitions (valid until cli_input_close). */
const cube_t *cli_input_defs(const cli_input *in);
void cli_input_close(cli_input *in);

#endif
