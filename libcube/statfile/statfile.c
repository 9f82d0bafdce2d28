/*
 * statfile.c - statistics files (cube-stat(5)): reading both dialects with
 * the rules of the Cube GUI appendix and the checks of what the numbers
 * imply, writing either dialect atomically, the join with an experiment,
 * and statistics computed from an experiment.
 *
 * The text is read through zlib directly (plain files pass through, gzip is
 * inflated) and split into lines here: the CUBE reader's input filter
 * (input.c) would turn a raw '&' in a pattern name into "&amp;".
 *
 * Errors stop the reading; each names the file and line as
 * "FILE:LINE: expected ..., found ...".  Checks of what the text implies
 * (orders of the statistics, the sum, enter <= exit, ...) are warnings in
 * the same form.  Nothing here prints, exits or keeps global state.
 */
#include "core/cube_private.h"
#include "io/atomic_file_private.h"
#include "core/number_private.h"
#include "core/util_private.h"
#include "io/xml_out_private.h"
#include "views/view_private.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Warnings kept per handle; the rest are counted in one last warning. */
#define MAX_WARNINGS 1000

struct cube_statfile {
    cube_statfile_dialect dialect;
    cube_statfile_pattern *patterns;
    size_t num_patterns, cap_patterns;
    message_list warnings;
    size_t dropped_warnings;
    cube_status status; /* of the last call that changed the handle */
};

/* ------------------------------------------------------------------------
 * The handle.
 * ------------------------------------------------------------------------ */

cube_statfile *cube_statfile_create(void)
{
    cube_statfile *s = calloc(1, sizeof *s);
    if (s)
        s->dialect = CUBE_STATFILE_DOCUMENTED;
    return s;
}

static void free_patterns(cube_statfile *s)
{
    for (size_t i = 0; i < s->num_patterns; i++) {
        free(s->patterns[i].name);
        free(s->patterns[i].instances);
    }
    free(s->patterns);
    s->patterns = NULL;
    s->num_patterns = s->cap_patterns = 0;
}

void cube_statfile_free(cube_statfile *s)
{
    if (!s)
        return;
    free_patterns(s);
    message_list_clear(&s->warnings);
    free(s);
}

/* A NULL handle is what a failed cube_statfile_create returns. */
cube_code cube_statfile_error_code(const cube_statfile *s)
{
    return s ? s->status.code : CUBE_ENOMEM;
}

const char *cube_statfile_error(const cube_statfile *s)
{
    return s ? s->status.message : "out of memory";
}

size_t cube_statfile_num_warnings(const cube_statfile *s)
{
    return s ? s->warnings.count : 0;
}

const char *cube_statfile_warning(const cube_statfile *s, size_t i)
{
    return s ? message_list_get(&s->warnings, i) : NULL;
}

cube_statfile_dialect cube_statfile_get_dialect(const cube_statfile *s)
{
    return s ? s->dialect : CUBE_STATFILE_DOCUMENTED;
}

size_t cube_statfile_num_patterns(const cube_statfile *s)
{
    return s ? s->num_patterns : 0;
}

const cube_statfile_pattern *cube_statfile_get_pattern(const cube_statfile *s, size_t i)
{
    return s && i < s->num_patterns ? &s->patterns[i] : NULL;
}

static void set_error(cube_statfile *s, cube_code code, const char *fmt, ...) CUBE_PRINTF(3, 4);
static void set_error(cube_statfile *s, cube_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    status_setv(&s->status, code, fmt, ap);
    va_end(ap);
}

/* Append a formatted warning; -1 when out of memory. */
static int add_warningv(cube_statfile *s, const char *fmt, va_list ap)
{
    if (s->warnings.count >= MAX_WARNINGS) {
        s->dropped_warnings++;
        return 0;
    }
    return message_list_addv(&s->warnings, fmt, ap);
}

static int add_warning(cube_statfile *s, const char *fmt, ...) CUBE_PRINTF(2, 3);
static int add_warning(cube_statfile *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = add_warningv(s, fmt, ap);
    va_end(ap);
    return rc;
}

/* Room for one more pattern; NULL when out of memory. */
static cube_statfile_pattern *new_pattern(cube_statfile *s)
{
    if (s->num_patterns == s->cap_patterns) {
        size_t cap = s->cap_patterns ? 2 * s->cap_patterns : 16;
        cube_statfile_pattern *p = realloc(s->patterns, cap * sizeof *p);
        if (!p)
            return NULL;
        s->patterns = p;
        s->cap_patterns = cap;
    }
    cube_statfile_pattern *p = &s->patterns[s->num_patterns];
    memset(p, 0, sizeof *p);
    p->metric_id = -1;
    return p;
}

/* Append an instance to a pattern whose array has `*cap` slots. */
static int push_instance(cube_statfile_pattern *p, size_t *cap, const cube_statfile_instance *in)
{
    if (p->num_instances == *cap) {
        size_t n = *cap ? 2 * *cap : 4;
        cube_statfile_instance *a = realloc(p->instances, n * sizeof *a);
        if (!a)
            return -1;
        p->instances = a;
        *cap = n;
    }
    p->instances[p->num_instances++] = *in;
    return 0;
}

int cube_statfile_add_pattern(cube_statfile *s, const cube_statfile_pattern *p)
{
    if (!s)
        return -1;
    status_ok(&s->status);
    if (!p) {
        set_error(s, CUBE_EINVAL, "cube_statfile_add_pattern needs a pattern");
        return -1;
    }
    if (!p->name) {
        set_error(s, CUBE_EINVAL, "cube_statfile_add_pattern: the pattern has no name");
        return -1;
    }
    if (((p->has & CUBE_STATFILE_VARIANCE) && !(p->has & CUBE_STATFILE_SUMMARY)) ||
        ((p->has & CUBE_STATFILE_QUARTILES) && !(p->has & CUBE_STATFILE_VARIANCE))) {
        set_error(s, CUBE_EINVAL,
                  "cube_statfile_add_pattern: pattern \"%s\": the variance needs the "
                     "summary statistics, the quartiles need the variance", p->name);
        return -1;
    }
    if (p->num_instances && !p->instances) {
        set_error(s, CUBE_EINVAL, "cube_statfile_add_pattern: pattern \"%s\": instances missing",
                  p->name);
        return -1;
    }
    cube_statfile_pattern *q = new_pattern(s);
    char *name = q ? cube_strdup(p->name) : NULL;
    cube_statfile_instance *inst = NULL;
    if (name && p->num_instances) {
        inst = malloc(p->num_instances * sizeof *inst);
        if (inst)
            memcpy(inst, p->instances, p->num_instances * sizeof *inst);
    }
    if (!name || (p->num_instances && !inst)) {
        free(name);
        set_error(s, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    *q = *p;
    q->name = name;
    q->instances = inst;
    q->has = p->has & (CUBE_STATFILE_SUMMARY | CUBE_STATFILE_VARIANCE | CUBE_STATFILE_QUARTILES);
    s->num_patterns++;
    return 0;
}

/* ------------------------------------------------------------------------
 * Reading lines through zlib.
 * ------------------------------------------------------------------------ */

typedef struct {
    gzFile gz;
    char *buf;
    size_t len, cap, pos; /* bytes buf[pos..len) not yet handed out */
    int eof;
} line_reader;

/* 1: a line in [*line, *line + *n) (without the newline); 0: end of the
 * stream; -1: error (code and message, without the file name, in err). */
static int next_line(line_reader *lr, const char **line, size_t *n, cube_status *err)
{
    size_t scanned = lr->pos;
    for (;;) {
        char *nl = NULL;
        if (lr->len > scanned)
            nl = memchr(lr->buf + scanned, '\n', lr->len - scanned);
        if (nl) {
            *line = lr->buf + lr->pos;
            *n = (size_t)(nl - (lr->buf + lr->pos));
            lr->pos = (size_t)(nl - lr->buf) + 1;
            return 1;
        }
        if (lr->eof) {
            if (lr->pos == lr->len)
                return 0;
            *line = lr->buf + lr->pos;
            *n = lr->len - lr->pos;
            lr->pos = lr->len;
            return 1;
        }
        /* keep the unfinished line, make room, read more */
        if (lr->pos)
            memmove(lr->buf, lr->buf + lr->pos, lr->len - lr->pos);
        lr->len -= lr->pos;
        lr->pos = 0;
        scanned = lr->len;
        if (lr->cap - lr->len < 16384) {
            size_t cap = lr->cap ? 2 * lr->cap : 65536;
            char *b = realloc(lr->buf, cap);
            if (!b) {
                status_set(err, CUBE_ENOMEM, "out of memory");
                return -1;
            }
            lr->buf = b;
            lr->cap = cap;
        }
        size_t want = lr->cap - lr->len;
        if (want > (1u << 30))
            want = 1u << 30;
        int got = gzread(lr->gz, lr->buf + lr->len, (unsigned)want);
        int saved_errno = errno;
        int code = Z_OK;
        const char *msg = got <= 0 ? gzerror(lr->gz, &code) : "";
        if (got < 0 || (got == 0 && code != Z_OK && code != Z_STREAM_END)) {
            if (code == Z_ERRNO)
                status_set(err, status_code_of_errno(saved_errno), "read error: %s",
                           strerror(saved_errno));
            else if (code == Z_MEM_ERROR)
                status_set(err, CUBE_ENOMEM, "out of memory");
            else if (code == Z_BUF_ERROR)
                status_set(err, CUBE_EFORMAT, "truncated gzip stream");
            else {
                /* zlib prefixes its messages with "<fd:N>: " after gzdopen */
                const char *p = strncmp(msg, "<fd:", 4) == 0 ? strstr(msg, ">: ") : NULL;
                status_set(err, CUBE_EFORMAT, "corrupt gzip stream: %s", p ? p + 3 : msg);
            }
            return -1;
        }
        if (got == 0)
            lr->eof = 1;
        lr->len += (size_t)got;
    }
}

/* ------------------------------------------------------------------------
 * Parsing.
 * ------------------------------------------------------------------------ */

#define MAX_TOKENS 16

typedef struct {
    const char *p;
    size_t n;
} token;

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Split a line at white space; stores at most MAX_TOKENS, returns how many
 * there are. */
static size_t split(const char *s, size_t n, token *t)
{
    size_t count = 0, i = 0;
    while (i < n) {
        while (i < n && is_space(s[i]))
            i++;
        if (i == n)
            break;
        size_t start = i;
        while (i < n && !is_space(s[i]))
            i++;
        if (count < MAX_TOKENS) {
            t[count].p = s + start;
            t[count].n = i - start;
        }
        count++;
    }
    return count;
}

static int token_is(token t, const char *word)
{
    size_t k = strlen(word);
    return t.n == k && memcmp(t.p, word, k) == 0;
}

static int token_is_nocase(token t, const char *word)
{
    size_t k = strlen(word);
    if (t.n != k)
        return 0;
    for (size_t i = 0; i < k; i++) {
        char a = t.p[i], b = word[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z')
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}

/* A token for a message: at most 60 bytes of it, quoted, with "..." when
 * cut. */
typedef struct {
    char text[80];
} shown;

static shown show(token t)
{
    shown r;
    if (t.n > 60)
        snprintf(r.text, sizeof r.text, "\"%.57s...\"", t.p);
    else
        snprintf(r.text, sizeof r.text, "\"%.*s\"", (int)t.n, t.p);
    return r;
}

/* Half a unit in the last printed digit of a decimal number: how far the
 * printed value may be from the value it was rounded from.  0 for
 * hexadecimal forms (exact). */
static double half_unit(token t)
{
    size_t i = 0;
    if (i < t.n && (t.p[i] == '+' || t.p[i] == '-'))
        i++;
    if (i + 1 < t.n && t.p[i] == '0' && (t.p[i + 1] == 'x' || t.p[i + 1] == 'X'))
        return 0;
    long frac = 0;
    int seen_point = 0;
    for (; i < t.n; i++) {
        char ch = t.p[i];
        if (ch == '.')
            seen_point = 1;
        else if (ch >= '0' && ch <= '9')
            frac += seen_point;
        else
            break;
    }
    long exp10 = 0;
    if (i < t.n && (t.p[i] == 'e' || t.p[i] == 'E')) {
        i++;
        int neg = 0;
        if (i < t.n && (t.p[i] == '+' || t.p[i] == '-'))
            neg = t.p[i++] == '-';
        for (; i < t.n && t.p[i] >= '0' && t.p[i] <= '9'; i++)
            if (exp10 < 100000)
                exp10 = exp10 * 10 + (t.p[i] - '0');
        if (neg)
            exp10 = -exp10;
    }
    return 0.5 * pow(10.0, (double)(exp10 - frac));
}

/* The statistics fields after Count, in file order. */
enum { F_MEAN, F_MEDIAN, F_MIN, F_MAX, F_SUM, F_VAR, F_Q25, F_Q75, NUM_FIELDS };
static const char *const field_names[NUM_FIELDS] = {
    "Mean", "Median", "Minimum", "Maximum", "Sum", "Variance", "Quartil25", "Quartil75"};

typedef struct {
    cube_statfile *s;
    const char *name; /* the file's name in messages */
    locale_t loc;
    long line;
    int in_pattern;       /* instance lines may follow */
    int after_blank;      /* the previous line was blank (or the header) */
    size_t inst_cap;      /* slots of the current pattern's instance array */
    int warned_count;     /* the current pattern's excess of instances was reported */
    double tol[NUM_FIELDS]; /* half units of the current pattern's fields */
} parser;

static int fail(parser *ps, const char *fmt, ...) CUBE_PRINTF(2, 3);
static int fail(parser *ps, const char *fmt, ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    set_error(ps->s, CUBE_EFORMAT, "%s:%ld: %s", ps->name, ps->line, msg);
    return -1;
}

static int warn(parser *ps, const char *fmt, ...) CUBE_PRINTF(2, 3);
static int warn(parser *ps, const char *fmt, ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (add_warning(ps->s, "%s:%ld: %s", ps->name, ps->line, msg) != 0) {
        set_error(ps->s, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

static int parse_float(parser *ps, token t, const char *what, double *out, double *tol)
{
    number_status st = parse_double_token(t.p, t.n, ps->loc, out);
    if (st == NUMBER_MALFORMED)
        return fail(ps, "expected %s (a floating-point number), found %s", what, show(t).text);
    if (st == NUMBER_NOT_FINITE)
        return fail(ps, "expected %s (a finite floating-point number), found %s", what,
                    show(t).text);
    if (tol)
        *tol = half_unit(t);
    return 0;
}

static int parse_count(parser *ps, token t, const char *what, int64_t *out)
{
    char buf[32];
    if (t.n < sizeof buf) {
        memcpy(buf, t.p, t.n);
        buf[t.n] = '\0';
        if (parse_id(buf, out) == 0)
            return 0;
    }
    return fail(ps, "expected %s (a non-negative integer), found %s", what, show(t).text);
}

/* Does a token read as a non-negative integer? */
static int looks_integer(token t)
{
    if (t.n == 0 || t.n > 19)
        return 0;
    for (size_t i = 0; i < t.n; i++)
        if (t.p[i] < '0' || t.p[i] > '9')
            return 0;
    return 1;
}

/* A short decimal form of v for messages (the "C" locale is in effect). */
typedef struct {
    char text[40];
} number_text;

static number_text num(double v)
{
    number_text r;
    format_double_shortest(v, r.text);
    return r;
}

/* a <= b, allowing for the rounding of both printed values and of the
 * arithmetic. */
static int le_within(double a, double ta, double b, double tb)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return a <= b + ta + tb + 4 * DBL_EPSILON * scale;
}

static int check_pattern(parser *ps, const cube_statfile_pattern *p, const token *t, size_t first)
{
    /* t[first + F_*] are the tokens of the fields, for the messages */
    if (!(p->has & CUBE_STATFILE_SUMMARY))
        return 0;
    const double *tol = ps->tol;
    /* the order Minimum <= [Quartil25 <=] Median <= [Quartil75 <=] Maximum */
    int fields[5];
    size_t k = 0;
    fields[k++] = F_MIN;
    if (p->has & CUBE_STATFILE_QUARTILES)
        fields[k++] = F_Q25;
    fields[k++] = F_MEDIAN;
    if (p->has & CUBE_STATFILE_QUARTILES)
        fields[k++] = F_Q75;
    fields[k++] = F_MAX;
    double v[NUM_FIELDS] = {p->mean, p->median, p->minimum, p->maximum, p->sum,
                            p->variance, p->quartile25, p->quartile75};
    for (size_t i = 0; i + 1 < k; i++) {
        int a = fields[i], b = fields[i + 1];
        if (!le_within(v[a], tol[a], v[b], tol[b])) {
            const char *chain = (p->has & CUBE_STATFILE_QUARTILES)
                                    ? "Minimum <= Quartil25 <= Median <= Quartil75 <= Maximum"
                                    : "Minimum <= Median <= Maximum";
            token ta = t[first + (size_t)a], tb = t[first + (size_t)b];
            if (warn(ps, "expected %s, found %s %.*s > %s %.*s", chain, field_names[a],
                     (int)ta.n, ta.p, field_names[b], (int)tb.n, tb.p) != 0)
                return -1;
            break;
        }
    }
    token tm = t[first + F_MEAN];
    if (!le_within(p->minimum, tol[F_MIN], p->mean, tol[F_MEAN])) {
        token tn = t[first + F_MIN];
        if (warn(ps, "expected Minimum <= Mean <= Maximum, found Mean %.*s < Minimum %.*s",
                 (int)tm.n, tm.p, (int)tn.n, tn.p) != 0)
            return -1;
    } else if (!le_within(p->mean, tol[F_MEAN], p->maximum, tol[F_MAX])) {
        token tx = t[first + F_MAX];
        if (warn(ps, "expected Minimum <= Mean <= Maximum, found Mean %.*s > Maximum %.*s",
                 (int)tm.n, tm.p, (int)tx.n, tx.p) != 0)
            return -1;
    }
    if ((p->has & CUBE_STATFILE_VARIANCE) && p->variance < 0) {
        token tv = t[first + F_VAR];
        if (warn(ps, "expected Variance >= 0, found %.*s", (int)tv.n, tv.p) != 0)
            return -1;
    }
    /* Sum = Count x Mean, within the rounding of the printed digits */
    double cnt = (double)p->count;
    double product = cnt * p->mean;
    double slack = tol[F_SUM] + cnt * tol[F_MEAN] +
                   8 * DBL_EPSILON * (fabs(product) > fabs(p->sum) ? fabs(product) : fabs(p->sum));
    if (!(fabs(p->sum - product) <= slack)) {
        token ts = t[first + F_SUM];
        if (warn(ps,
                 "expected Sum = Count x Mean within the rounding of the printed digits, "
                 "found Sum %.*s but Count x Mean = %" PRIu64 " x %.*s = %s",
                 (int)ts.n, ts.p, p->count, (int)tm.n, tm.p, num(product).text) != 0)
            return -1;
    }
    return 0;
}

static int parse_header(parser *ps, const token *t, size_t n)
{
    ps->s->dialect = CUBE_STATFILE_SCALASCA;
    for (size_t i = 0; i < n && i < MAX_TOKENS; i++)
        if (token_is_nocase(t[i], "MetricID"))
            ps->s->dialect = CUBE_STATFILE_DOCUMENTED;
    if (n == 0)
        return warn(ps, "expected a header line starting with \"PatternName\", found an empty "
                        "line (the first line is ignored)");
    if (!token_is_nocase(t[0], "PatternName"))
        return warn(ps, "expected a header line starting with \"PatternName\", found %s (the "
                        "first line is ignored)", show(t[0]).text);
    return 0;
}

static int parse_pattern(parser *ps, const token *t, size_t n)
{
    cube_statfile *s = ps->s;
    int documented = s->dialect == CUBE_STATFILE_DOCUMENTED;
    size_t first = documented ? 3 : 2; /* index of Mean */
    if (n < first) {
        if (documented)
            return fail(ps, "expected %s, found the end of the line",
                        n == 1 ? "MetricID and Count after the pattern name"
                               : "Count after MetricID");
        return fail(ps, "expected Count after the pattern name, found the end of the line");
    }
    size_t rest = n - first;
    if (rest != 0 && rest != 5 && rest != 6 && rest != 8) {
        /* a hint when the line would fit the other dialect */
        size_t other = documented ? rest + 1 : rest - 1;
        const char *hint = "";
        if (other == 0 || other == 5 || other == 6 || other == 8) {
            if (!documented && looks_integer(t[1]) && looks_integer(t[2]))
                hint = " (the header has no MetricID column, so the file is read as the "
                       "Scalasca dialect)";
            else if (documented && !looks_integer(t[2]))
                hint = " (the header has a MetricID column; is it missing on this line?)";
        }
        if (rest < 5)
            return fail(ps, "expected all of Mean Median Minimum Maximum Sum after Count or "
                            "none (a Variance only after them), found %zu value%s%s",
                        rest, rest == 1 ? "" : "s", hint);
        if (rest == 7)
            return fail(ps, "expected Quartil25 and Quartil75 both or neither, and only after "
                            "Variance, found 7 values after Count%s", hint);
        return fail(ps, "expected at most 8 values after Count (Mean Median Minimum Maximum "
                        "Sum Variance Quartil25 Quartil75), found %zu%s", rest, hint);
    }
    cube_statfile_pattern pat;
    memset(&pat, 0, sizeof pat);
    pat.metric_id = -1;
    pat.line = ps->line;
    int64_t count;
    if (documented && parse_count(ps, t[1], "MetricID", &pat.metric_id) != 0)
        return -1;
    if (parse_count(ps, t[first - 1], "Count", &count) != 0)
        return -1;
    pat.count = (uint64_t)count;
    double v[NUM_FIELDS] = {0};
    for (size_t i = 0; i < rest; i++)
        if (parse_float(ps, t[first + i], field_names[i], &v[i], &ps->tol[i]) != 0)
            return -1;
    if (rest >= 5) {
        pat.has |= CUBE_STATFILE_SUMMARY;
        pat.mean = v[F_MEAN];
        pat.median = v[F_MEDIAN];
        pat.minimum = v[F_MIN];
        pat.maximum = v[F_MAX];
        pat.sum = v[F_SUM];
    }
    if (rest >= 6) {
        pat.has |= CUBE_STATFILE_VARIANCE;
        pat.variance = v[F_VAR];
    }
    if (rest == 8) {
        pat.has |= CUBE_STATFILE_QUARTILES;
        pat.quartile25 = v[F_Q25];
        pat.quartile75 = v[F_Q75];
    }
    if (!ps->after_blank &&
        warn(ps, "expected a blank line before the pattern line, found none after the "
                 "instance line before it") != 0)
        return -1;
    for (size_t i = 0; i < s->num_patterns; i++)
        if (strlen(s->patterns[i].name) == t[0].n &&
            memcmp(s->patterns[i].name, t[0].p, t[0].n) == 0) {
            if (warn(ps, "expected each pattern once, found %s again (first on line %ld)",
                     show(t[0]).text, s->patterns[i].line) != 0)
                return -1;
            break;
        }
    if (check_pattern(ps, &pat, t, first) != 0)
        return -1;
    cube_statfile_pattern *p = new_pattern(s);
    char *name = malloc(t[0].n + 1);
    if (!p || !name) {
        free(name);
        set_error(s, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    memcpy(name, t[0].p, t[0].n);
    name[t[0].n] = '\0';
    pat.name = name;
    *p = pat;
    s->num_patterns++;
    ps->in_pattern = 1;
    ps->inst_cap = 0;
    ps->warned_count = 0;
    return 0;
}

/* Expect label `word` (with its colon, or also without it when
 * `colon_optional`) at t[i]. */
static int expect_label(parser *ps, const token *t, size_t n, size_t i, const char *word,
                        int colon_optional, const char *after)
{
    if (i >= n)
        return fail(ps, "expected \"%s\" after %s, found the end of the line", word, after);
    size_t k = strlen(word); /* word ends in ':' */
    if (token_is(t[i], word) || (colon_optional && t[i].n == k - 1 && memcmp(t[i].p, word, k - 1) == 0))
        return 0;
    return fail(ps, "expected \"%s\" after %s, found %s", word, after, show(t[i]).text);
}

static int parse_instance(parser *ps, token *t, size_t n)
{
    cube_statfile *s = ps->s;
    if (!ps->in_pattern) {
        if (s->num_patterns == 0)
            return fail(ps, "expected a pattern line before the first instance line, found "
                            "an instance line");
        return fail(ps, "expected a pattern line after the blank line, found an instance line "
                        "(instance lines follow their pattern line without a blank line)");
    }
    if (n > MAX_TOKENS)
        n = MAX_TOKENS; /* the fields take 12 tokens at most: enough to report the 13th */
    /* "-cnode: ..." with the minus glued to the label */
    size_t i = 1;
    if (t[0].n > 1) {
        t[0].p++;
        t[0].n--;
        i = 0;
    }
    cube_statfile_instance in;
    memset(&in, 0, sizeof in);
    in.rank = -1;
    in.line = ps->line;
    double tol_enter, tol_exit, tol_dur;
    if (expect_label(ps, t, n, i, "cnode:", 1, "\"-\"") != 0)
        return -1;
    if (++i >= n)
        return fail(ps, "expected the cnode id after \"cnode:\", found the end of the line");
    if (parse_count(ps, t[i], "the cnode id", &in.cnode_id) != 0)
        return -1;
    if (expect_label(ps, t, n, ++i, "enter:", 0, "the cnode id") != 0)
        return -1;
    if (++i >= n)
        return fail(ps, "expected the enter time after \"enter:\", found the end of the line");
    size_t i_enter = i;
    if (parse_float(ps, t[i], "the enter time", &in.enter, &tol_enter) != 0)
        return -1;
    if (expect_label(ps, t, n, ++i, "exit:", 0, "the enter time") != 0)
        return -1;
    if (++i >= n)
        return fail(ps, "expected the exit time after \"exit:\", found the end of the line");
    size_t i_exit = i;
    if (parse_float(ps, t[i], "the exit time", &in.exit, &tol_exit) != 0)
        return -1;
    if (expect_label(ps, t, n, ++i, "duration:", 0, "the exit time") != 0)
        return -1;
    if (++i >= n)
        return fail(ps, "expected the duration after \"duration:\", found the end of the line");
    size_t i_dur = i;
    if (parse_float(ps, t[i], "the duration", &in.duration, &tol_dur) != 0)
        return -1;
    if (++i < n) {
        if (!token_is(t[i], "rank:"))
            return fail(ps, "expected \"rank: N\" or the end of the line after the duration, "
                            "found %s", show(t[i]).text);
        if (++i >= n)
            return fail(ps, "expected the rank after \"rank:\", found the end of the line");
        if (parse_count(ps, t[i], "the rank", &in.rank) != 0)
            return -1;
        if (++i < n)
            return fail(ps, "expected the end of the line after the rank, found %s",
                        show(t[i]).text);
    }

    cube_statfile_pattern *p = &s->patterns[s->num_patterns - 1];
    if (!le_within(in.enter, tol_enter, in.exit, tol_exit) &&
        warn(ps, "expected enter <= exit, found enter %.*s > exit %.*s", (int)t[i_enter].n,
             t[i_enter].p, (int)t[i_exit].n, t[i_exit].p) != 0)
        return -1;
    if (p->has & CUBE_STATFILE_SUMMARY) {
        token td = t[i_dur];
        if (!le_within(p->minimum, ps->tol[F_MIN], in.duration, tol_dur)) {
            if (warn(ps, "expected Minimum <= duration <= Maximum of pattern \"%s\" (line %ld), "
                         "found duration %.*s < Minimum %s",
                     p->name, p->line, (int)td.n, td.p, num(p->minimum).text) != 0)
                return -1;
        } else if (!le_within(in.duration, tol_dur, p->maximum, ps->tol[F_MAX])) {
            if (warn(ps, "expected Minimum <= duration <= Maximum of pattern \"%s\" (line %ld), "
                         "found duration %.*s > Maximum %s",
                     p->name, p->line, (int)td.n, td.p, num(p->maximum).text) != 0)
                return -1;
        }
    }
    if (p->num_instances >= p->count && !ps->warned_count) {
        ps->warned_count = 1;
        if (warn(ps, "expected at most Count (%" PRIu64 ") instance lines for pattern \"%s\" "
                     "(line %ld), found more", p->count, p->name, p->line) != 0)
            return -1;
    }
    if (push_instance(p, &ps->inst_cap, &in) != 0) {
        set_error(s, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

static int parse_stream(parser *ps, line_reader *lr)
{
    token t[MAX_TOKENS];
    cube_status err;
    const char *line;
    size_t len;
    for (;;) {
        int got = next_line(lr, &line, &len, &err);
        if (got < 0) {
            set_error(ps->s, err.code, "%s: %s", ps->name, err.message);
            return -1;
        }
        if (got == 0)
            break;
        ps->line++;
        if (memchr(line, '\0', len))
            return fail(ps, "expected text, found a NUL byte");
        size_t n = split(line, len, t);
        if (ps->line == 1) {
            if (parse_header(ps, t, n) != 0)
                return -1;
            ps->after_blank = 1;
            continue;
        }
        if (n == 0) {
            ps->after_blank = 1;
            ps->in_pattern = 0;
            continue;
        }
        int rc = t[0].p[0] == '-' ? parse_instance(ps, t, n) : parse_pattern(ps, t, n);
        if (rc != 0)
            return -1;
        ps->after_blank = 0;
    }
    if (ps->line == 0) {
        ps->line = 1;
        return fail(ps, "expected the header line (PatternName ...), found an empty file");
    }
    return 0;
}

int cube_statfile_read(cube_statfile *s, const char *path)
{
    if (!s)
        return -1;
    status_ok(&s->status);
    if (!path) {
        set_error(s, CUBE_EINVAL, "cube_statfile_read: no path");
        return -1;
    }
    if (s->num_patterns) {
        set_error(s, CUBE_ESTATE, "%s: cannot read into a handle that already holds patterns",
                  path);
        return -1;
    }
    int fd = strcmp(path, "-") == 0 ? fcntl(0, F_DUPFD_CLOEXEC, 0) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int saved = errno;
        set_error(s, status_code_of_errno(saved), "%s: cannot open: %s", path, strerror(saved));
        return -1;
    }
    line_reader lr;
    memset(&lr, 0, sizeof lr);
    lr.gz = gzdopen(fd, "rb");
    if (!lr.gz) {
        close(fd);
        set_error(s, CUBE_ENOMEM, "%s: out of memory", path);
        return -1;
    }
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.s = s;
    ps.name = path;
    ps.loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    int rc = -1;
    if (!ps.loc) {
        set_error(s, CUBE_ENOMEM, "out of memory");
    } else {
        /* messages format numbers with format_double_shortest */
        locale_t saved = uselocale(ps.loc);
        rc = parse_stream(&ps, &lr);
        uselocale(saved);
        freelocale(ps.loc);
    }
    gzclose(lr.gz);
    free(lr.buf);
    if (s->dropped_warnings &&
        add_warning(s, "%s: %zu more warnings not listed", path, s->dropped_warnings) != 0 &&
        rc == 0) {
        set_error(s, CUBE_ENOMEM, "out of memory");
        rc = -1;
    }
    s->dropped_warnings = 0;
    if (rc != 0)
        free_patterns(s);
    return rc;
}

/* ------------------------------------------------------------------------
 * Writing.
 * ------------------------------------------------------------------------ */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int name_writable(const char *name)
{
    if (!name[0] || name[0] == '-')
        return 0;
    for (const char *p = name; *p; p++)
        if (is_space(*p) || *p == '\n')
            return 0;
    return 1;
}

/* Can every pattern be written in `dialect`?  0, or -1 with the error. */
static int check_writable(cube_statfile *s, const char *path, cube_statfile_dialect dialect)
{
    for (size_t i = 0; i < s->num_patterns; i++) {
        const cube_statfile_pattern *p = &s->patterns[i];
        if (!name_writable(p->name)) {
            set_error(s, CUBE_EINVAL, "%s: cannot write pattern %zu: its name \"%s\" is empty, holds white "
                         "space or starts with '-'", path, i + 1, p->name);
            return -1;
        }
        if (dialect == CUBE_STATFILE_DOCUMENTED && p->metric_id < 0) {
            set_error(s, CUBE_EINVAL, "%s: cannot write pattern \"%s\" in the documented dialect: it has no "
                         "metric id", path, p->name);
            return -1;
        }
        double v[NUM_FIELDS] = {p->mean, p->median, p->minimum, p->maximum, p->sum,
                                p->variance, p->quartile25, p->quartile75};
        int present = (p->has & CUBE_STATFILE_QUARTILES) ? 8
                      : (p->has & CUBE_STATFILE_VARIANCE) ? 6
                      : (p->has & CUBE_STATFILE_SUMMARY) ? 5 : 0;
        for (int f = 0; f < present; f++)
            if (!isfinite(v[f])) {
                set_error(s, CUBE_EINVAL, "%s: cannot write pattern \"%s\": its %s is not finite",
                          path, p->name, field_names[f]);
                return -1;
            }
        for (size_t k = 0; k < p->num_instances; k++) {
            const cube_statfile_instance *in = &p->instances[k];
            if (in->cnode_id < 0 || !isfinite(in->enter) || !isfinite(in->exit) ||
                !isfinite(in->duration)) {
                set_error(s, CUBE_EINVAL, "%s: cannot write instance %zu of pattern \"%s\": a negative "
                             "cnode id or a time that is not finite", path, k + 1, p->name);
                return -1;
            }
        }
    }
    return 0;
}

static void out_double(xml_out *o, double v)
{
    char buf[40];
    int n = format_double_shortest(v, buf);
    out_write(o, " ", 1);
    out_write(o, buf, (size_t)n);
}

static void write_patterns(const cube_statfile *s, xml_out *o, cube_statfile_dialect dialect)
{
    int documented = dialect == CUBE_STATFILE_DOCUMENTED;
    out_str(o, documented ? "PatternName MetricID Count Mean Median Minimum Maximum Sum "
                            "Variance Quartil25 Quartil75\n"
                          : "PatternName Count Mean Median Minimum Maximum Sum Variance "
                            "Quartil25 Quartil75\n");
    char buf[64];
    for (size_t i = 0; i < s->num_patterns; i++) {
        const cube_statfile_pattern *p = &s->patterns[i];
        if (i > 0)
            out_str(o, "\n");
        out_str(o, p->name);
        if (documented) {
            snprintf(buf, sizeof buf, " %" PRId64, p->metric_id);
            out_str(o, buf);
        }
        snprintf(buf, sizeof buf, " %" PRIu64, p->count);
        out_str(o, buf);
        if (p->has & CUBE_STATFILE_SUMMARY) {
            out_double(o, p->mean);
            out_double(o, p->median);
            out_double(o, p->minimum);
            out_double(o, p->maximum);
            out_double(o, p->sum);
            if (p->has & CUBE_STATFILE_VARIANCE) {
                out_double(o, p->variance);
                if (p->has & CUBE_STATFILE_QUARTILES) {
                    out_double(o, p->quartile25);
                    out_double(o, p->quartile75);
                }
            }
        }
        out_str(o, "\n");
        for (size_t k = 0; k < p->num_instances; k++) {
            const cube_statfile_instance *in = &p->instances[k];
            snprintf(buf, sizeof buf, documented ? "- cnode: %" PRId64 : "- cnode %" PRId64,
                     in->cnode_id);
            out_str(o, buf);
            out_str(o, " enter:");
            out_double(o, in->enter);
            out_str(o, " exit:");
            out_double(o, in->exit);
            out_str(o, " duration:");
            out_double(o, in->duration);
            if (in->rank >= 0) {
                snprintf(buf, sizeof buf, " rank: %" PRId64, in->rank);
                out_str(o, buf);
            }
            out_str(o, "\n");
        }
    }
}

typedef struct {
    cube_statfile *s;
    cube_statfile_dialect dialect;
} statfile_output;

/* The producer for output_to_path: numbers in the "C" locale whatever the
 * caller's. */
static int produce_statfile(void *ctx, xml_out *o)
{
    statfile_output *out = ctx;
    locale_t loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!loc) {
        set_error(out->s, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    locale_t saved = uselocale(loc);
    write_patterns(out->s, o, out->dialect);
    uselocale(saved);
    freelocale(loc);
    return 0;
}

int cube_statfile_write(cube_statfile *s, const char *path, cube_statfile_dialect dialect)
{
    if (!s)
        return -1;
    status_ok(&s->status);
    if (!path) {
        set_error(s, CUBE_EINVAL, "cube_statfile_write: no path");
        return -1;
    }
    if (dialect != CUBE_STATFILE_DOCUMENTED && dialect != CUBE_STATFILE_SCALASCA) {
        set_error(s, CUBE_EINVAL, "%s: unknown statistics file dialect %d", path, (int)dialect);
        return -1;
    }
    if (check_writable(s, path, dialect) != 0)
        return -1;
    statfile_output out = {s, dialect};
    /* the producer's own failure and the output's both land in s->status */
    int rc = output_to_path(path, ends_with(path, ".gz"), "wb6", produce_statfile, &out,
                            &s->status);
    return rc == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------------
 * The join with an experiment.
 * ------------------------------------------------------------------------ */

const cube_metric *cube_statfile_metric(const cube_statfile_pattern *p, const cube_t *c)
{
    if (!p || !c)
        return NULL;
    if (p->metric_id < 0)
        return p->name ? cube_find_metric(c, p->name) : NULL;
    size_t n = cube_num_metrics(c);
    /* ids are usually the indices: try that first */
    if ((uint64_t)p->metric_id < n && cube_get_metric(c, (size_t)p->metric_id)->id == p->metric_id)
        return cube_get_metric(c, (size_t)p->metric_id);
    for (size_t i = 0; i < n; i++)
        if (cube_get_metric(c, i)->id == p->metric_id)
            return cube_get_metric(c, i);
    return NULL;
}

const cube_cnode *cube_statfile_cnode(const cube_statfile_instance *in, const cube_t *c)
{
    if (!in || !c || in->cnode_id < 0)
        return NULL;
    size_t n = cube_num_cnodes(c);
    if ((uint64_t)in->cnode_id < n && cube_get_cnode(c, (size_t)in->cnode_id)->id == in->cnode_id)
        return cube_get_cnode(c, (size_t)in->cnode_id);
    for (size_t i = 0; i < n; i++)
        if (cube_get_cnode(c, i)->id == in->cnode_id)
            return cube_get_cnode(c, i);
    return NULL;
}

/* ------------------------------------------------------------------------
 * Statistics from an experiment.
 * ------------------------------------------------------------------------ */

typedef struct {
    double value;
    size_t cnode, thread; /* indices */
} located_value;

/* Largest value first; ties in call-path, then thread order. */
static int by_value_desc(const void *a, const void *b)
{
    const located_value *x = a, *y = b;
    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    if (x->cnode != y->cnode)
        return x->cnode < y->cnode ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

int cube_statfile_add_from_cube(cube_statfile *s, const cube_t *c, const cube_metric *met,
                                size_t max_instances)
{
    if (!s)
        return -1;
    status_ok(&s->status);
    if (!c || !met) {
        set_error(s, CUBE_EINVAL, "cube_statfile_add_from_cube: no experiment or metric");
        return -1;
    }
    /* The population is of call-tree exclusive values: a metric stored
     * call-tree inclusive is converted by a view, which has a row for
     * every call path that has a stored one.  A derived metric has no
     * values to take. */
    cube_view *excl = NULL;
    if (cube_metric_is_derived(met) || model_stored_inclusive(met)) {
        cube_status st;
        excl = cube_view_compute(c, met, CUBE_METRIC_INCLUSIVE, CUBE_CALL_EXCLUSIVE, 0, &st);
        if (!excl) {
            set_error(s, st.code, "cube_statfile_add_from_cube: %s", st.message);
            return -1;
        }
    }
    size_t threads = cube_num_threads(c), rows = cube_num_rows(c), n = 0;
    for (size_t r = 0; r < rows; r++) {
        cube_metric *m;
        cube_cnode *cn;
        cube_row_at(c, r, &m, &cn);
        if (m == met)
            n += threads;
    }
    located_value *lv = n ? malloc(n * sizeof *lv) : NULL;
    double *values = n ? malloc(n * sizeof *values) : NULL;
    cube_statfile_instance *inst =
        max_instances ? malloc((max_instances < n ? max_instances : n ? n : 1) * sizeof *inst)
                      : NULL;
    if ((n && (!lv || !values)) || (max_instances && !inst)) {
        free(lv);
        free(values);
        free(inst);
        cube_view_free(excl);
        set_error(s, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    size_t k = 0;
    for (size_t r = 0; r < rows; r++) {
        cube_metric *m;
        cube_cnode *cn;
        const double *row = cube_row_at(c, r, &m, &cn);
        if (m != met)
            continue;
        if (excl && !(row = cube_view_row(excl, cn)))
            continue; /* not reached: a stored row has a row in the view */
        for (size_t t = 0; t < threads; t++) {
            if (isnan(row[t]))
                continue; /* not a value: left out of the population */
            lv[k].value = row[t];
            lv[k].cnode = cn->index;
            lv[k].thread = t;
            values[k] = row[t];
            k++;
        }
    }
    cube_statfile_pattern p;
    memset(&p, 0, sizeof p);
    p.name = met->uniq_name ? met->uniq_name : "";
    p.metric_id = met->id;
    p.count = k;
    cube_stats st;
    /* NaN values are left out above, so only memory can fail it */
    if (k > 0 && cube_stats_compute(values, k, &st, NULL) == 0) {
        p.mean = st.mean;
        p.median = st.median;
        p.minimum = st.minimum;
        p.maximum = st.maximum;
        p.sum = st.sum;
        if (isfinite(p.mean) && isfinite(p.sum))
            p.has = CUBE_STATFILE_SUMMARY;
        if (p.has && k >= 2 && isfinite(st.variance)) {
            p.has |= CUBE_STATFILE_VARIANCE | CUBE_STATFILE_QUARTILES;
            p.variance = st.variance;
            p.quartile25 = st.quartile25;
            p.quartile75 = st.quartile75;
        }
    } else if (k > 0) {
        free(lv);
        free(values);
        free(inst);
        cube_view_free(excl);
        set_error(s, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    if (max_instances && k) {
        qsort(lv, k, sizeof *lv, by_value_desc);
        size_t m = max_instances < k ? max_instances : k;
        for (size_t i = 0; i < m; i++) {
            const cube_thread *th = cube_get_thread(c, lv[i].thread);
            inst[i].cnode_id = cube_get_cnode(c, lv[i].cnode)->id;
            inst[i].enter = inst[i].exit = 0;
            inst[i].duration = lv[i].value;
            inst[i].rank = th->process ? th->process->rank : th->rank;
            inst[i].line = 0;
        }
        p.instances = inst;
        p.num_instances = m;
    }
    int rc = cube_statfile_add_pattern(s, &p);
    free(lv);
    free(values);
    free(inst);
    cube_view_free(excl);
    return rc;
}
