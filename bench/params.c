/*
 * params.c - the cube_bench parameter file (SKaMPI's syntax); the format
 * is in cube_bench(5), the structs in params.h.
 *
 * Like SKaMPI's reader, the file is split into sections at lines that start
 * with '@'; text sections take their lines as they are, the value sections
 * one value, and @MEASUREMENTS goes through a small recursive-descent parser
 * (name '{' { key '=' value ';' } '}').  Unlike SKaMPI (which aborts on the
 * first problem and ignores some), every deviation is an error, reported as
 * "FILE:LINE: expected ..., found ...", and the parser never exits.
 *
 * Default_Value is resolved after the whole file is read, because the
 * @..._DEFAULT sections may come after @MEASUREMENTS.
 */
#include "params.h"
#include "util.h"

#include "cube.h" /* cube_parse_double: numbers whatever the locale */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- tables ------------------------------------------------------------- */

static const bench_type_info type_table[BENCH_TYPE_COUNT] = {
    { BENCH_TYPE_PINGPONG_SEND_RECV, "Pingpong_Send_Recv", BENCH_PATTERN_P2P, 0,
      "MPI_Send/MPI_Recv", "ping-pong with MPI_Send and MPI_Recv, half round trip" },
    { BENCH_TYPE_PINGPONG_SSEND_RECV, "Pingpong_Ssend_Recv", BENCH_PATTERN_P2P, 0,
      "MPI_Ssend/MPI_Recv", "ping-pong with MPI_Ssend and MPI_Recv, half round trip" },
    { BENCH_TYPE_PINGPONG_ISEND_RECV, "Pingpong_Isend_Recv", BENCH_PATTERN_P2P, 0,
      "MPI_Isend/MPI_Recv", "ping-pong with MPI_Isend (and MPI_Wait) and MPI_Recv, half round trip" },
    { BENCH_TYPE_PINGPONG_BSEND_RECV, "Pingpong_Bsend_Recv", BENCH_PATTERN_P2P, 0,
      "MPI_Bsend/MPI_Recv", "ping-pong with MPI_Bsend and MPI_Recv, half round trip" },
    { BENCH_TYPE_PINGPONG_SENDRECV, "Pingpong_Sendrecv", BENCH_PATTERN_P2P, 0,
      "MPI_Sendrecv", "ping-pong with MPI_Sendrecv on both ranks, half round trip" },
    { BENCH_TYPE_PINGPONG_IRECV_SEND, "Pingpong_Irecv_Send", BENCH_PATTERN_P2P, 0,
      "MPI_Irecv/MPI_Send", "ping-pong with MPI_Irecv posted before MPI_Send, half round trip" },
    { BENCH_TYPE_PING_SEND, "Ping_Send", BENCH_PATTERN_P2P, 50,
      "MPI_Send", "MPI_Send timed on rank 0, the partner receives, no reply" },
    { BENCH_TYPE_BCAST, "Bcast", BENCH_PATTERN_COLLECTIVE, 0, "MPI_Bcast", "MPI_Bcast from rank 0" },
    { BENCH_TYPE_REDUCE, "Reduce", BENCH_PATTERN_COLLECTIVE, 0, "MPI_Reduce", "MPI_Reduce to rank 0" },
    { BENCH_TYPE_ALLREDUCE, "Allreduce", BENCH_PATTERN_COLLECTIVE, 0, "MPI_Allreduce", "MPI_Allreduce" },
    { BENCH_TYPE_GATHER, "Gather", BENCH_PATTERN_COLLECTIVE, 0, "MPI_Gather", "MPI_Gather to rank 0" },
    { BENCH_TYPE_SCATTER, "Scatter", BENCH_PATTERN_COLLECTIVE, 0, "MPI_Scatter", "MPI_Scatter from rank 0" },
    { BENCH_TYPE_ALLGATHER, "Allgather", BENCH_PATTERN_COLLECTIVE, 0, "MPI_Allgather", "MPI_Allgather" },
    { BENCH_TYPE_ALLTOALL, "Alltoall", BENCH_PATTERN_COLLECTIVE, 0, "MPI_Alltoall", "MPI_Alltoall" },
    { BENCH_TYPE_REDUCE_SCATTER, "Reduce_scatter", BENCH_PATTERN_COLLECTIVE, 0,
      "MPI_Reduce_scatter", "MPI_Reduce_scatter" },
    { BENCH_TYPE_SCAN, "Scan", BENCH_PATTERN_COLLECTIVE, 0, "MPI_Scan", "MPI_Scan" },
    { BENCH_TYPE_BARRIER, "Barrier", BENCH_PATTERN_COLLECTIVE, 0, "MPI_Barrier", "MPI_Barrier" },
    { BENCH_TYPE_MW_WAITSOME, "MW_Waitsome", BENCH_PATTERN_MW, 0, "MPI_Waitsome",
      "master-worker, the master collects results with MPI_Waitsome" },
    { BENCH_TYPE_MW_WAITANY, "MW_Waitany", BENCH_PATTERN_MW, 0, "MPI_Waitany",
      "master-worker, the master collects results with MPI_Waitany" },
    { BENCH_TYPE_MW_RECV_ANY, "MW_Recv_any", BENCH_PATTERN_MW, 0, "MPI_Recv(MPI_ANY_SOURCE)",
      "master-worker, the master collects results with MPI_Recv from MPI_ANY_SOURCE" },
    { BENCH_TYPE_WTIME, "Wtime", BENCH_PATTERN_SIMPLE, 0, "MPI_Wtime", "one call of MPI_Wtime" },
    { BENCH_TYPE_COMM_RANK, "Comm_rank", BENCH_PATTERN_SIMPLE, 0, "MPI_Comm_rank",
      "one call of MPI_Comm_rank" },
    { BENCH_TYPE_IPROBE, "Iprobe", BENCH_PATTERN_SIMPLE, 0, "MPI_Iprobe",
      "one call of MPI_Iprobe with no message pending" },
};

/* other spellings people bring from SKaMPI 5 */
static const struct { const char *name; bench_type type; } type_aliases[] = {
    { "Pingpong_Send_Irecv", BENCH_TYPE_PINGPONG_IRECV_SEND },
};

static const char *const key_names[BENCH_KEY_COUNT] = {
    "Type", "Variation", "Scale", "Max_Repetition", "Min_Repetition", "Multiple_of",
    "Time_Measurement", "Time_Suite", "Node_Times", "Cut_Quantile", "Default_Chunks",
    "Default_Message_length", "Start_Argument", "End_Argument", "Stepwidth", "Max_Steps",
    "Min_Distance", "Max_Distance", "Standard_error", "Partner",
};

static const char *const section_names[BENCH_SEC_COUNT] = {
    "@USER", "@MACHINE", "@NETWORK", "@NODE", "@COMMENT", "@OUTFILE", "@LOGFILE", "@MEMORY",
    "@MAX_REP_DEFAULT", "@MIN_REP_DEFAULT", "@MAX_STEPS_DEFAULT", "@MULTIPLE_OF_DEFAULT",
    "@STANDARD_ERROR_DEFAULT", "@TIME_MEAS_DEFAULT", "@TIME_SUITE_DEFAULT",
    "@CUT_QUANTILE_DEFAULT", "@ABSOLUTE", "@POST", "@MEASUREMENTS",
};

/* the same sections under the names of the block keys they feed */
static const struct { const char *name; bench_section sec; } section_aliases[] = {
    { "@MAX_REPETITIONS_DEFAULT", BENCH_SEC_MAX_REP_DEFAULT },
    { "@MIN_REPETITIONS_DEFAULT", BENCH_SEC_MIN_REP_DEFAULT },
    { "@TIME_MEASUREMENT_DEFAULT", BENCH_SEC_TIME_MEAS_DEFAULT },
};

static const char *const variation_names[] = { "Length", "Nodes", "Chunks", "No_Variation" };

const bench_type_info *bench_type_list(size_t *n)
{
    if (n)
        *n = BENCH_TYPE_COUNT;
    return type_table;
}

const char *bench_type_name(bench_type t)
{
    return (unsigned)t < BENCH_TYPE_COUNT ? type_table[t].name : NULL;
}

const char *bench_pattern_name(bench_pattern p)
{
    switch (p) {
    case BENCH_PATTERN_P2P: return "p2p";
    case BENCH_PATTERN_COLLECTIVE: return "collective";
    case BENCH_PATTERN_MW: return "master-worker";
    case BENCH_PATTERN_SIMPLE: return "simple";
    }
    return NULL;
}

const char *bench_variation_name(bench_variation v)
{
    return (unsigned)v <= BENCH_VAR_NONE ? variation_names[v] : NULL;
}

const char *bench_key_name(bench_key k)
{
    return (unsigned)k < BENCH_KEY_COUNT ? key_names[k] : NULL;
}

const char *bench_section_name(bench_section s)
{
    return (unsigned)s < BENCH_SEC_COUNT ? section_names[s] : NULL;
}

/* case-insensitive comparison of s[0..n) with the NUL-terminated w */
static int word_eq(const char *s, size_t n, const char *w)
{
    size_t i = 0;
    for (; i < n && w[i]; i++)
        if (tolower((unsigned char)s[i]) != tolower((unsigned char)w[i]))
            return 0;
    return i == n && w[i] == '\0';
}

static const bench_type_info *type_lookup_n(const char *s, size_t n)
{
    if (n > 0 && isdigit((unsigned char)s[0])) {
        long v = 0;
        for (size_t i = 0; i < n; i++) {
            if (!isdigit((unsigned char)s[i]) || v > 100000)
                return NULL;
            v = v * 10 + (s[i] - '0');
        }
        for (size_t i = 0; i < BENCH_TYPE_COUNT; i++)
            if (type_table[i].number != 0 && type_table[i].number == v)
                return &type_table[i];
        return NULL;
    }
    for (size_t i = 0; i < BENCH_TYPE_COUNT; i++)
        if (word_eq(s, n, type_table[i].name))
            return &type_table[i];
    for (size_t i = 0; i < sizeof type_aliases / sizeof type_aliases[0]; i++)
        if (word_eq(s, n, type_aliases[i].name))
            return &type_table[type_aliases[i].type];
    return NULL;
}

const bench_type_info *bench_type_lookup(const char *name)
{
    return name ? type_lookup_n(name, strlen(name)) : NULL;
}

/* --- defaults ------------------------------------------------------------ */

void params_init(bench_params *p)
{
    memset(p, 0, sizeof *p);
    p->memory_kib = BENCH_MEMORY_KIB_DEFAULT;
    p->max_rep_default = BENCH_MAX_REP_DEFAULT;
    p->min_rep_default = BENCH_MIN_REP_DEFAULT;
    p->max_steps_default = BENCH_MAX_STEPS_DEFAULT;
    p->multiple_of_default = BENCH_MULTIPLE_OF_DEFAULT;
    p->standard_error_default = BENCH_STANDARD_ERROR_DEFAULT;
    p->time_meas_default = 60.0 * BENCH_TIME_MEAS_DEFAULT_MIN;
    p->time_suite_default = 60.0 * BENCH_TIME_SUITE_DEFAULT_MIN;
    p->cut_quantile_default = BENCH_CUT_QUANTILE_DEFAULT;
    p->absolute = 0;
    p->post_proc = 1;
}

void params_free(bench_params *p)
{
    if (!p)
        return;
    free(p->user);
    free(p->machine);
    free(p->network);
    free(p->node);
    free(p->comment);
    free(p->outfile);
    free(p->logfile);
    for (size_t i = 0; i < p->n_suites; i++)
        free(p->suites[i].name);
    free(p->suites);
    memset(p, 0, sizeof *p);
}

/* --- the scanner ------------------------------------------------------- */

enum { T_IDENT, T_NUMBER, T_LBRACE, T_RBRACE, T_EQ, T_SEMI, T_END, T_EOF, T_OTHER };

typedef struct {
    int kind;
    const char *s;
    size_t n;
    int line;
} token;

typedef struct {
    const char *text;
    size_t len, pos;
    int line;
    const char *file;
    char *err;
    size_t errlen;
    int oom;
    bench_params *out;
    size_t cap_suites;
} parser;

static int perr(parser *P, int line, const char *fmt, ...)
{
    if (P->err && P->errlen) {
        int k = snprintf(P->err, P->errlen, "%s:%d: ", P->file, line);
        if (k >= 0 && (size_t)k < P->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(P->err + k, P->errlen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static int oom(parser *P)
{
    P->oom = 1;
    if (P->err && P->errlen)
        snprintf(P->err, P->errlen, "%s: out of memory", P->file);
    return -1;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '+' || c == '-';
}

/* does the line starting at q begin (after blanks) with '@'? */
static int line_is_section(const parser *P, size_t q)
{
    while (q < P->len && is_blank(P->text[q]))
        q++;
    return q < P->len && P->text[q] == '@';
}

/* The next token.  A newline followed by a section line ends the section
 * (T_END, with pos left at the start of that line); '#' comments run to the
 * end of the line. */
static void next_token(parser *P, token *t)
{
    for (;;) {
        if (P->pos >= P->len) {
            t->kind = T_EOF;
            t->s = P->text + P->len;
            t->n = 0;
            t->line = P->line;
            return;
        }
        char c = P->text[P->pos];
        if (c == '\n') {
            P->pos++;
            P->line++;
            if (line_is_section(P, P->pos)) {
                t->kind = T_END;
                t->s = P->text + P->pos;
                t->n = 0;
                t->line = P->line;
                return;
            }
        } else if (is_blank(c)) {
            P->pos++;
        } else if (c == '#') {
            while (P->pos < P->len && P->text[P->pos] != '\n')
                P->pos++;
        } else {
            break;
        }
    }
    const char *s = P->text + P->pos;
    t->s = s;
    t->line = P->line;
    t->n = 1;
    switch (*s) {
    case '{': t->kind = T_LBRACE; break;
    case '}': t->kind = T_RBRACE; break;
    case '=': t->kind = T_EQ; break;
    case ';': t->kind = T_SEMI; break;
    default:
        if (isalpha((unsigned char)*s) || *s == '_') {
            t->kind = T_IDENT;
        } else if (isdigit((unsigned char)*s) || *s == '+' || *s == '-' || *s == '.') {
            t->kind = T_NUMBER;
        } else {
            t->kind = T_OTHER;
            break;
        }
        /* identifiers and numbers both run to the end of the word, so that
         * "12x" or "1.2.3" is one bad number rather than two tokens */
        while (t->n < (size_t)(P->text + P->len - s) && is_word_char(s[t->n]))
            t->n++;
        break;
    }
    P->pos += t->n;
}

/* what was found, for messages: 'text', end of file, or the next section */
static const char *found(const parser *P, const token *t, char *buf, size_t size)
{
    if (t->kind == T_EOF) {
        snprintf(buf, size, "end of file");
    } else if (t->kind == T_END) {
        size_t q = (size_t)(t->s - P->text), n = 0;
        while (q < P->len && is_blank(P->text[q]))
            q++;
        while (q + n < P->len && !isspace((unsigned char)P->text[q + n]) && n < 40)
            n++;
        snprintf(buf, size, "the next section '%.*s'", (int)n, P->text + q);
    } else {
        int n = t->n > 40 ? 40 : (int)t->n;
        snprintf(buf, size, "'%.*s%s'", n, t->s, t->n > 40 ? "..." : "");
    }
    return buf;
}

/* --- numbers --------------------------------------------------------------- */

/* decimal integer, the whole token */
static int tok_long(const token *t, long *v)
{
    if (t->kind != T_NUMBER || t->n > 30)
        return -1;
    char buf[32];
    memcpy(buf, t->s, t->n);
    buf[t->n] = '\0';
    size_t i = (buf[0] == '+' || buf[0] == '-') ? 1 : 0;
    if (buf[i] == '\0')
        return -1;
    for (; buf[i]; i++)
        if (!isdigit((unsigned char)buf[i]))
            return -1;
    errno = 0;
    *v = strtol(buf, NULL, 10);
    return errno ? -1 : 0;
}

/* decimal number (integer or floating point), the whole token, finite */
static int tok_double(const token *t, double *v)
{
    if (t->kind != T_NUMBER || t->n > 60)
        return -1;
    char buf[64];
    memcpy(buf, t->s, t->n);
    buf[t->n] = '\0';
    /* the parser also takes hex, "inf" and "nan"; a parameter file has
     * none.  The decimal point is '.' whatever the locale. */
    for (size_t i = 0; buf[i]; i++)
        if (!(isdigit((unsigned char)buf[i]) || strchr("+-.eE", buf[i])))
            return -1;
    return cube_parse_double(buf, t->n, v, NULL) == 0 ? 0 : -1;
}

/* --- sections ---------------------------------------------------------- */

static char **text_field(bench_params *p, bench_section s)
{
    switch (s) {
    case BENCH_SEC_USER: return &p->user;
    case BENCH_SEC_MACHINE: return &p->machine;
    case BENCH_SEC_NETWORK: return &p->network;
    case BENCH_SEC_NODE: return &p->node;
    case BENCH_SEC_COMMENT: return &p->comment;
    case BENCH_SEC_OUTFILE: return &p->outfile;
    case BENCH_SEC_LOGFILE: return &p->logfile;
    default: return NULL;
    }
}

/* A text section: the rest of the header line and the lines up to the next
 * section; lines starting with '#' are comments. */
static int parse_text_section(parser *P, bench_section sec, int header_line)
{
    size_t cap = 64, n = 0, keep = 0;   /* keep: length without trailing blank lines */
    char *buf = malloc(cap);
    if (!buf)
        return oom(P);
    int first = 1;
    while (P->pos < P->len) {
        size_t q = P->pos;
        if (!first && line_is_section(P, q))
            break;
        size_t e = q;
        while (e < P->len && P->text[e] != '\n')
            e++;
        size_t a = q, b = e;
        while (a < b && is_blank(P->text[a]))
            a++;
        while (b > a && is_blank(P->text[b - 1]))
            b--;
        int comment = !first && a < b && P->text[a] == '#';
        if (!comment && (n > 0 || b > a)) {     /* drop leading blank lines */
            if (n + (b - a) + 2 > cap) {
                while (n + (b - a) + 2 > cap)
                    cap *= 2;
                char *t = realloc(buf, cap);
                if (!t) {
                    free(buf);
                    return oom(P);
                }
                buf = t;
            }
            if (n > 0)
                buf[n++] = '\n';
            memcpy(buf + n, P->text + a, b - a);
            n += b - a;
            if (b > a)
                keep = n;
        }
        P->pos = e;
        if (P->pos < P->len) {
            P->pos++;
            P->line++;
        }
        first = 0;
    }
    buf[keep] = '\0';
    if (sec == BENCH_SEC_OUTFILE || sec == BENCH_SEC_LOGFILE) {
        size_t w = strcspn(buf, " \t\n");
        if (keep == 0 || w != keep) {
            char shown[64];
            snprintf(shown, sizeof shown, "%s", keep ? buf : "");
            free(buf);
            if (keep == 0)
                return perr(P, header_line, "expected one file name after %s, found nothing",
                            section_names[sec]);
            return perr(P, header_line, "expected one file name after %s, found '%s'",
                        section_names[sec], shown);
        }
    }
    if (keep == 0) {            /* an empty text section says nothing */
        free(buf);
        return 0;
    }
    *text_field(P->out, sec) = buf;
    return 0;
}

/* One value for a value section: exactly one token up to the next section. */
static int parse_value_section(parser *P, bench_section sec, int header_line)
{
    token t, extra;
    char fb[96];
    const char *name = section_names[sec];
    next_token(P, &t);
    if (t.kind == T_END || t.kind == T_EOF)
        return perr(P, header_line, "expected a value after %s, found %s", name, found(P, &t, fb, sizeof fb));
    next_token(P, &extra);
    if (extra.kind != T_END && extra.kind != T_EOF)
        return perr(P, extra.line, "expected one value after %s, found a second one, %s", name,
                    found(P, &extra, fb, sizeof fb));
    bench_params *o = P->out;
    long lv;
    double dv;
    switch (sec) {
    case BENCH_SEC_MEMORY:
    case BENCH_SEC_MAX_REP_DEFAULT:
    case BENCH_SEC_MIN_REP_DEFAULT:
    case BENCH_SEC_MAX_STEPS_DEFAULT:
    case BENCH_SEC_MULTIPLE_OF_DEFAULT: {
        long min = (sec == BENCH_SEC_MIN_REP_DEFAULT || sec == BENCH_SEC_MULTIPLE_OF_DEFAULT) ? 0 : 1;
        long max = sec == BENCH_SEC_MEMORY ? LONG_MAX / 1024 : sec == BENCH_SEC_MULTIPLE_OF_DEFAULT
                                                                   ? LONG_MAX : INT_MAX;
        if (tok_long(&t, &lv) != 0 || lv < min || lv > max)
            return perr(P, t.line, "expected an integer >= %ld after %s, found %s", min, name,
                        found(P, &t, fb, sizeof fb));
        if (sec == BENCH_SEC_MEMORY)
            o->memory_kib = lv;
        else if (sec == BENCH_SEC_MAX_REP_DEFAULT)
            o->max_rep_default = (int)lv;
        else if (sec == BENCH_SEC_MIN_REP_DEFAULT)
            o->min_rep_default = (int)lv;
        else if (sec == BENCH_SEC_MAX_STEPS_DEFAULT)
            o->max_steps_default = (int)lv;
        else
            o->multiple_of_default = lv;
        return 0;
    }
    case BENCH_SEC_STANDARD_ERROR_DEFAULT:
        if (tok_double(&t, &dv) != 0 || dv < 0)
            return perr(P, t.line, "expected a number >= 0 after %s, found %s", name, found(P, &t, fb, sizeof fb));
        o->standard_error_default = dv;
        return 0;
    case BENCH_SEC_TIME_MEAS_DEFAULT:
    case BENCH_SEC_TIME_SUITE_DEFAULT:
        if (tok_double(&t, &dv) != 0 || dv < 0)
            return perr(P, t.line, "expected a number of minutes >= 0 after %s, found %s", name,
                        found(P, &t, fb, sizeof fb));
        if (sec == BENCH_SEC_TIME_MEAS_DEFAULT)
            o->time_meas_default = 60.0 * dv;
        else
            o->time_suite_default = 60.0 * dv;
        return 0;
    case BENCH_SEC_CUT_QUANTILE_DEFAULT:
        if (tok_double(&t, &dv) != 0 || dv < 0 || dv >= 0.5)
            return perr(P, t.line, "expected a number in [0, 0.5) after %s, found %s", name,
                        found(P, &t, fb, sizeof fb));
        o->cut_quantile_default = dv;
        return 0;
    case BENCH_SEC_ABSOLUTE:
    case BENCH_SEC_POST: {
        int yes = t.kind == T_IDENT && word_eq(t.s, t.n, "yes");
        int no = t.kind == T_IDENT && word_eq(t.s, t.n, "no");
        if (!yes && !no)
            return perr(P, t.line, "expected yes or no after %s, found %s", name, found(P, &t, fb, sizeof fb));
        if (sec == BENCH_SEC_ABSOLUTE)
            o->absolute = yes;
        else
            o->post_proc = yes;
        return 0;
    }
    default:
        return perr(P, header_line, "expected a value section, found %s", name);
    }
}

/* --- @MEASUREMENTS ------------------------------------------------------- */

static const char *variation_list_for(bench_type t, bench_pattern p)
{
    if (t == BENCH_TYPE_BARRIER)
        return "Nodes or No_Variation";
    switch (p) {
    case BENCH_PATTERN_P2P: return "Length or No_Variation";
    case BENCH_PATTERN_COLLECTIVE: return "Length, Nodes or No_Variation";
    case BENCH_PATTERN_MW: return "Length, Nodes, Chunks or No_Variation";
    case BENCH_PATTERN_SIMPLE: return "No_Variation";
    }
    return "";
}

static int variation_allowed(bench_type t, bench_pattern p, bench_variation v)
{
    if (v == BENCH_VAR_NONE)
        return 1;
    if (t == BENCH_TYPE_BARRIER)     /* a barrier has no message */
        return v == BENCH_VAR_NODES;
    switch (p) {
    case BENCH_PATTERN_P2P: return v == BENCH_VAR_LENGTH;
    case BENCH_PATTERN_COLLECTIVE: return v == BENCH_VAR_LENGTH || v == BENCH_VAR_NODES;
    case BENCH_PATTERN_MW: return 1;
    case BENCH_PATTERN_SIMPLE: return 0;
    }
    return 0;
}

static int is_default_word(const token *t)
{
    return t->kind == T_IDENT && word_eq(t->s, t->n, "Default_Value");
}

#define GIVEN(s, k) (((s)->given >> (k)) & 1u)
#define FROM_DEFAULT(s, k) (((s)->from_default >> (k)) & 1u)

/* an integer key: integer or Default_Value, in [min, max] */
static int int_value(parser *P, bench_suite *s, bench_key k, const token *t, long min, long max, long *dst)
{
    char fb[96];
    if (is_default_word(t)) {
        s->from_default |= 1u << k;
        return 0;
    }
    long v;
    if (tok_long(t, &v) != 0) {
        double d;
        if (tok_double(t, &d) == 0)
            return perr(P, t->line, "expected an integer or Default_Value for %s, found %s (not an integer)",
                        key_names[k], found(P, t, fb, sizeof fb));
        return perr(P, t->line, "expected an integer or Default_Value for %s, found %s", key_names[k],
                    found(P, t, fb, sizeof fb));
    }
    if (v < min || v > max)
        return perr(P, t->line, "expected an integer >= %ld%s for %s, found %s", min,
                    max == INT_MAX ? "" : " (and not that large)", key_names[k], found(P, t, fb, sizeof fb));
    *dst = v;
    return 0;
}

/* a number key: number or Default_Value, min <= v < max_excl */
static int num_value(parser *P, bench_suite *s, bench_key k, const token *t, double min, double max_excl,
                     int min_excl, double *dst)
{
    char fb[96];
    if (is_default_word(t)) {
        s->from_default |= 1u << k;
        return 0;
    }
    double v;
    if (tok_double(t, &v) != 0)
        return perr(P, t->line, "expected a number or Default_Value for %s, found %s", key_names[k],
                    found(P, t, fb, sizeof fb));
    if (v < min || (min_excl && v == min) || !(v < max_excl)) {
        if (max_excl < HUGE_VAL)
            return perr(P, t->line, "expected a number in [%g, %g) for %s, found %s", min, max_excl,
                        key_names[k], found(P, t, fb, sizeof fb));
        return perr(P, t->line, "expected a number %s %g for %s, found %s", min_excl ? ">" : ">=", min,
                    key_names[k], found(P, t, fb, sizeof fb));
    }
    *dst = v;
    return 0;
}

static int key_value(parser *P, bench_suite *s, bench_key k, const token *t)
{
    char fb[96];
    long lv;
    double dv;
    switch (k) {
    case BENCH_KEY_TYPE: {
        const bench_type_info *ti = (t->kind == T_IDENT || t->kind == T_NUMBER) ? type_lookup_n(t->s, t->n) : NULL;
        if (!ti)
            return perr(P, t->line, "expected a measurement type (see cube_bench(5), e.g. Pingpong_Send_Recv), "
                        "found %s", found(P, t, fb, sizeof fb));
        s->type = ti->type;
        s->pattern = ti->pattern;
        return 0;
    }
    case BENCH_KEY_VARIATION:
        for (int v = 0; v <= BENCH_VAR_NONE; v++)
            if (t->kind == T_IDENT && word_eq(t->s, t->n, variation_names[v])) {
                s->variation = (bench_variation)v;
                return 0;
            }
        return perr(P, t->line, "expected a variation (Length, Nodes, Chunks, No_Variation), found %s",
                    found(P, t, fb, sizeof fb));
    case BENCH_KEY_SCALE:
        for (int v = SCALE_FIXED_LINEAR; v <= SCALE_DYNAMIC_LOG; v++)
            if (t->kind == T_IDENT && word_eq(t->s, t->n, refine_scale_name((refine_scale)v))) {
                s->scale = (refine_scale)v;
                return 0;
            }
        return perr(P, t->line, "expected a scale (Fixed_linear, Fixed_log, Dynamic_linear, Dynamic_log), "
                    "found %s", found(P, t, fb, sizeof fb));
    case BENCH_KEY_NODE_TIMES:
        if (t->kind == T_IDENT && (word_eq(t->s, t->n, "yes") || word_eq(t->s, t->n, "no"))) {
            s->node_times = word_eq(t->s, t->n, "yes");
            return 0;
        }
        return perr(P, t->line, "expected yes or no for Node_Times, found %s", found(P, t, fb, sizeof fb));
    case BENCH_KEY_PARTNER:
        if (t->kind == T_IDENT &&
            (word_eq(t->s, t->n, "Max_Latency") || word_eq(t->s, t->n, "Min_Latency"))) {
            s->partner_min_latency = word_eq(t->s, t->n, "Min_Latency");
            return 0;
        }
        return perr(P, t->line, "expected Max_Latency or Min_Latency for Partner, found %s",
                    found(P, t, fb, sizeof fb));
    case BENCH_KEY_END_ARGUMENT:
        if (t->kind == T_IDENT && (word_eq(t->s, t->n, "Max_Value") || word_eq(t->s, t->n, "Default_Value"))) {
            s->end_is_max = 1;
            if (word_eq(t->s, t->n, "Default_Value"))
                s->from_default |= 1u << k;
            return 0;
        }
        if (tok_long(t, &lv) != 0 || lv < 0)
            return perr(P, t->line, "expected an integer >= 0 or Max_Value for End_Argument, found %s",
                        found(P, t, fb, sizeof fb));
        s->end_arg = lv;
        s->end_is_max = 0;
        return 0;
    case BENCH_KEY_MAX_REPETITION:
        lv = 0;
        if (int_value(P, s, k, t, 1, INT_MAX, &lv))
            return -1;
        s->max_rep = (int)lv;
        return 0;
    case BENCH_KEY_MIN_REPETITION:
        lv = 0;
        if (int_value(P, s, k, t, 0, INT_MAX, &lv))
            return -1;
        s->min_rep = (int)lv;
        return 0;
    case BENCH_KEY_MAX_STEPS:
        lv = 0;
        if (int_value(P, s, k, t, 1, INT_MAX, &lv))
            return -1;
        s->max_steps = (int)lv;
        return 0;
    case BENCH_KEY_MULTIPLE_OF:
        return int_value(P, s, k, t, 0, LONG_MAX, &s->multiple_of);
    case BENCH_KEY_DEFAULT_CHUNKS:
        return int_value(P, s, k, t, 0, LONG_MAX, &s->default_chunks);
    case BENCH_KEY_DEFAULT_MESSAGE_LENGTH:
        return int_value(P, s, k, t, 0, LONG_MAX, &s->default_msglen);
    case BENCH_KEY_START_ARGUMENT:
        return int_value(P, s, k, t, 0, LONG_MAX, &s->start_arg);
    case BENCH_KEY_MIN_DISTANCE:
        return int_value(P, s, k, t, 0, LONG_MAX, &s->min_dist);
    case BENCH_KEY_MAX_DISTANCE:
        return int_value(P, s, k, t, 0, LONG_MAX, &s->max_dist);
    case BENCH_KEY_TIME_MEASUREMENT:
    case BENCH_KEY_TIME_SUITE:
        dv = 0;
        if (num_value(P, s, k, t, 0.0, HUGE_VAL, 0, &dv))
            return -1;
        if (k == BENCH_KEY_TIME_MEASUREMENT)
            s->time_meas = 60.0 * dv;      /* minutes in the file */
        else
            s->time_suite = 60.0 * dv;
        return 0;
    case BENCH_KEY_CUT_QUANTILE:
        return num_value(P, s, k, t, 0.0, 0.5, 0, &s->cut_quantile);
    case BENCH_KEY_STANDARD_ERROR:
        return num_value(P, s, k, t, 0.0, HUGE_VAL, 0, &s->standard_error);
    case BENCH_KEY_STEPWIDTH:
        return num_value(P, s, k, t, 0.0, HUGE_VAL, 1, &s->stepwidth);
    case BENCH_KEY_COUNT:
        break;
    }
    return perr(P, t->line, "expected a key, found %s", found(P, t, fb, sizeof fb));
}

static int add_suite(parser *P, const bench_suite *s)
{
    bench_params *o = P->out;
    bench_suite *grown = bench_grow(o->suites, o->n_suites, &P->cap_suites, sizeof *grown, 8);
    if (!grown)
        return -1;
    o->suites = grown;
    o->suites[o->n_suites++] = *s;
    return 0;
}

static int parse_block(parser *P, const token *name)
{
    char fb[96];
    bench_params *o = P->out;
    for (size_t i = 0; i < o->n_suites; i++)
        if (strlen(o->suites[i].name) == name->n && memcmp(o->suites[i].name, name->s, name->n) == 0)
            return perr(P, name->line, "expected a new measurement name, found '%.*s' again (first on line %d)",
                        (int)name->n, name->s, o->suites[i].line);
    bench_suite s;
    memset(&s, 0, sizeof s);
    s.line = name->line;
    token t;
    next_token(P, &t);
    if (t.kind != T_LBRACE)
        return perr(P, t.line, "expected '{' after the measurement name '%.*s', found %s", (int)name->n,
                    name->s, found(P, &t, fb, sizeof fb));
    for (;;) {
        next_token(P, &t);
        if (t.kind == T_RBRACE)
            break;
        if (t.kind == T_END || t.kind == T_EOF)
            return perr(P, t.line, "expected '}' to close the block '%.*s' of line %d, found %s", (int)name->n,
                        name->s, s.line, found(P, &t, fb, sizeof fb));
        int k = -1;
        if (t.kind == T_IDENT)
            for (int i = 0; i < BENCH_KEY_COUNT; i++)
                if (word_eq(t.s, t.n, key_names[i]))
                    k = i;
        if (k < 0)
            return perr(P, t.line, "expected a key (Type, Variation, Scale, Max_Repetition, ...; see "
                        "cube_bench(5)) or '}', found %s", found(P, &t, fb, sizeof fb));
        if (GIVEN(&s, k))
            return perr(P, t.line, "expected each key once in a block, found a second %s (first on line %d)",
                        key_names[k], s.key_line[k]);
        s.given |= 1u << k;
        s.key_line[k] = t.line;
        next_token(P, &t);
        if (t.kind != T_EQ)
            return perr(P, t.line, "expected '=' after %s, found %s", key_names[k], found(P, &t, fb, sizeof fb));
        next_token(P, &t);
        if (t.kind == T_SEMI || t.kind == T_RBRACE || t.kind == T_END || t.kind == T_EOF)
            return perr(P, t.line, "expected a value for %s, found %s", key_names[k], found(P, &t, fb, sizeof fb));
        if (key_value(P, &s, (bench_key)k, &t) != 0)
            return -1;
        next_token(P, &t);
        /* like every message, on the line of what was found */
        if (t.kind != T_SEMI)
            return perr(P, t.line, "expected ';' after the value of %s, found %s", key_names[k],
                        found(P, &t, fb, sizeof fb));
    }
    if (!GIVEN(&s, BENCH_KEY_TYPE))
        return perr(P, t.line, "expected a Type in the block '%.*s' of line %d, found '}'", (int)name->n, name->s,
                    s.line);
    s.name = malloc(name->n + 1);
    if (!s.name)
        return oom(P);
    memcpy(s.name, name->s, name->n);
    s.name[name->n] = '\0';
    if (add_suite(P, &s) != 0) {
        free(s.name);
        return oom(P);
    }
    return 0;
}

static int parse_measurements(parser *P)
{
    char fb[96];
    token t;
    for (;;) {
        next_token(P, &t);
        if (t.kind == T_END || t.kind == T_EOF)
            return 0;
        if (t.kind != T_IDENT)
            return perr(P, t.line, "expected a measurement name or the end of @MEASUREMENTS, found %s",
                        found(P, &t, fb, sizeof fb));
        if (parse_block(P, &t) != 0)
            return -1;
    }
}

/* --- resolution -------------------------------------------------------------- */

/* Default_Value and absent keys -> values; then the checks that need them */
static int resolve_suite(parser *P, bench_suite *s)
{
    const bench_params *o = P->out;
#define ABSENT(k) (!GIVEN(s, k) || FROM_DEFAULT(s, k))
    if (!GIVEN(s, BENCH_KEY_VARIATION))
        s->variation = s->pattern == BENCH_PATTERN_SIMPLE ? BENCH_VAR_NONE
                       : s->type == BENCH_TYPE_BARRIER    ? BENCH_VAR_NODES
                                                          : BENCH_VAR_LENGTH;
    if (!variation_allowed(s->type, s->pattern, s->variation))
        return perr(P, s->key_line[BENCH_KEY_VARIATION],
                    "expected a variation of %s (%s), found %s", type_table[s->type].name,
                    variation_list_for(s->type, s->pattern), variation_names[s->variation]);
    if (!GIVEN(s, BENCH_KEY_SCALE))
        s->scale = s->variation == BENCH_VAR_LENGTH ? SCALE_DYNAMIC_LOG : SCALE_FIXED_LINEAR;
    if (ABSENT(BENCH_KEY_MAX_REPETITION))
        s->max_rep = o->max_rep_default;
    if (ABSENT(BENCH_KEY_MIN_REPETITION))
        s->min_rep = o->min_rep_default;
    if (ABSENT(BENCH_KEY_MULTIPLE_OF))
        s->multiple_of = o->multiple_of_default;
    if (ABSENT(BENCH_KEY_TIME_MEASUREMENT))
        s->time_meas = o->time_meas_default;
    if (ABSENT(BENCH_KEY_TIME_SUITE))
        s->time_suite = o->time_suite_default;
    if (ABSENT(BENCH_KEY_CUT_QUANTILE))
        s->cut_quantile = o->cut_quantile_default;
    if (ABSENT(BENCH_KEY_STANDARD_ERROR))
        s->standard_error = o->standard_error_default;
    if (ABSENT(BENCH_KEY_MAX_STEPS))
        s->max_steps = o->max_steps_default;
    if (ABSENT(BENCH_KEY_DEFAULT_CHUNKS))
        s->default_chunks = 0;
    if (ABSENT(BENCH_KEY_DEFAULT_MESSAGE_LENGTH))
        s->default_msglen = BENCH_DEFAULT_MSGLEN;
    if (ABSENT(BENCH_KEY_START_ARGUMENT))
        s->start_arg = s->variation == BENCH_VAR_NODES ? 2 : s->variation == BENCH_VAR_CHUNKS ? 1 : 0;
    if (!GIVEN(s, BENCH_KEY_END_ARGUMENT))
        s->end_is_max = 1;
    int log_scale = s->scale == SCALE_FIXED_LOG || s->scale == SCALE_DYNAMIC_LOG;
    if (ABSENT(BENCH_KEY_STEPWIDTH))
        s->stepwidth = log_scale ? 2.0 : 1.0;
    if (ABSENT(BENCH_KEY_MIN_DISTANCE))
        s->min_dist = 1;
    if (ABSENT(BENCH_KEY_MAX_DISTANCE))
        s->max_dist = 0;
    if (s->variation == BENCH_VAR_NONE) {
        /* nothing is varied: one argument, whatever the range keys say */
        s->start_arg = 0;
        s->end_arg = 0;
        s->end_is_max = 0;
        s->scale = SCALE_FIXED_LINEAR;
        s->stepwidth = 1.0;
    }
#undef ABSENT
    int line = s->key_line[BENCH_KEY_MIN_REPETITION] ? s->key_line[BENCH_KEY_MIN_REPETITION] : s->line;
    if (s->min_rep > s->max_rep)
        return perr(P, line, "expected Min_Repetition <= Max_Repetition (%d) in '%s', found %d", s->max_rep,
                    s->name, s->min_rep);
    line = s->key_line[BENCH_KEY_STEPWIDTH] ? s->key_line[BENCH_KEY_STEPWIDTH] : s->line;
    if (log_scale && !(s->stepwidth > 1.0))
        return perr(P, line, "expected a Stepwidth > 1 for the scale %s in '%s', found %g",
                    refine_scale_name(s->scale), s->name, s->stepwidth);
    line = s->key_line[BENCH_KEY_END_ARGUMENT] ? s->key_line[BENCH_KEY_END_ARGUMENT] : s->line;
    if (!s->end_is_max && s->end_arg < s->start_arg)
        return perr(P, line, "expected an End_Argument >= Start_Argument (%ld) in '%s', found %ld", s->start_arg,
                    s->name, s->end_arg);
    if (s->variation == BENCH_VAR_NODES && s->start_arg < 2 && GIVEN(s, BENCH_KEY_START_ARGUMENT))
        return perr(P, s->key_line[BENCH_KEY_START_ARGUMENT],
                    "expected a Start_Argument >= 2 processes for Variation = Nodes in '%s', found %ld", s->name,
                    s->start_arg);
    return 0;
}

/* --- the driver -------------------------------------------------------------- */

static int section_lookup(const char *s, size_t n)
{
    for (int i = 0; i < BENCH_SEC_COUNT; i++)
        if (word_eq(s, n, section_names[i]))
            return i;
    for (size_t i = 0; i < sizeof section_aliases / sizeof section_aliases[0]; i++)
        if (word_eq(s, n, section_aliases[i].name))
            return (int)section_aliases[i].sec;
    return -1;
}

static int parse_file(parser *P)
{
    bench_params *o = P->out;
    while (P->pos < P->len) {
        size_t q = P->pos;
        while (q < P->len && is_blank(P->text[q]))
            q++;
        if (q >= P->len)
            break;
        char c = P->text[q];
        if (c == '\n' || c == '#') {
            while (q < P->len && P->text[q] != '\n')
                q++;
            P->pos = q < P->len ? q + 1 : q;
            if (q < P->len)
                P->line++;
            continue;
        }
        if (c != '@') {
            size_t n = 0;
            while (q + n < P->len && !isspace((unsigned char)P->text[q + n]) && n < 40)
                n++;
            return perr(P, P->line, "expected a section (a line starting with '@', e.g. @MEASUREMENTS), "
                        "found '%.*s'", (int)n, P->text + q);
        }
        size_t n = 1;
        while (q + n < P->len && (isalnum((unsigned char)P->text[q + n]) || P->text[q + n] == '_'))
            n++;
        int sec = -1;
        if (q + n >= P->len || isspace((unsigned char)P->text[q + n]) || P->text[q + n] == '#')
            sec = section_lookup(P->text + q, n);
        if (sec < 0) {
            size_t m = n;
            while (q + m < P->len && !isspace((unsigned char)P->text[q + m]) && m < 40)
                m++;
            return perr(P, P->line, "expected a section name (@USER, @MACHINE, @NETWORK, @NODE, @COMMENT, "
                        "@OUTFILE, @LOGFILE, @MEMORY, @..._DEFAULT, @ABSOLUTE, @POST, @MEASUREMENTS), "
                        "found '%.*s'", (int)m, P->text + q);
        }
        if (o->section_line[sec])
            return perr(P, P->line, "expected each section once, found a second %s (first on line %d)",
                        section_names[sec], o->section_line[sec]);
        int header_line = P->line;
        o->section_line[sec] = header_line;
        P->pos = q + n;
        int rc;
        if (text_field(o, (bench_section)sec))
            rc = parse_text_section(P, (bench_section)sec, header_line);
        else if (sec == BENCH_SEC_MEASUREMENTS)
            rc = parse_measurements(P);
        else
            rc = parse_value_section(P, (bench_section)sec, header_line);
        if (rc != 0)
            return -1;
    }
    /* the defaults may come after @MEASUREMENTS: resolve at the end */
    if (o->min_rep_default > o->max_rep_default) {
        int line = o->section_line[BENCH_SEC_MIN_REP_DEFAULT] ? o->section_line[BENCH_SEC_MIN_REP_DEFAULT]
                                                              : o->section_line[BENCH_SEC_MAX_REP_DEFAULT];
        return perr(P, line, "expected @MIN_REP_DEFAULT <= @MAX_REP_DEFAULT (%d), found %d", o->max_rep_default,
                    o->min_rep_default);
    }
    for (size_t i = 0; i < o->n_suites; i++)
        if (resolve_suite(P, &o->suites[i]) != 0)
            return -1;
    return 0;
}

int params_parse(const char *text, size_t len, const char *filename, bench_params *out, char *err,
                 size_t errlen)
{
    params_init(out);
    if (err && errlen)
        err[0] = '\0';
    parser P;
    memset(&P, 0, sizeof P);
    P.text = text ? text : "";
    P.len = text ? len : 0;
    P.line = 1;
    P.file = filename ? filename : "-";
    P.err = err;
    P.errlen = errlen;
    P.out = out;
    /* a NUL byte would end strings built from the text early: refuse it */
    const char *nul = memchr(P.text, '\0', P.len);
    if (nul) {
        int line = 1;
        for (const char *c = P.text; c < nul; c++)
            line += *c == '\n';
        perr(&P, line, "expected text, found a NUL byte");
        return -1;
    }
    if (parse_file(&P) != 0) {
        params_free(out);
        params_init(out);
        return -1;
    }
    return 0;
}

/* --- what the mechanisms take ---------------------------------------------- */

void params_suite_asec(const bench_suite *s, asec_params *a)
{
    a->min_rep = s->min_rep;
    a->max_rep = s->max_rep;
    a->rel_std_error = s->standard_error;
    a->time_limit = s->time_meas;
    a->cut_quantile = s->cut_quantile;
    /* samples of one measurement spread over at least 0.07 ms: longer than
     * the runs of equal values single measurements of sub-microsecond
     * operations fall into (they outlast 32 samples, about 0.03 ms), and
     * about 65 single measurements of a 0.2 us collective with its barrier
     * and the decision after it, so that with the warm-up such a
     * collective runs a tenth of OSU's 1100 operations (0.2 and 0.1 ms
     * gave no better results on 10 launches of bench/compare with up to
     * twice the operations) */
    a->min_span = 7e-5;
}

void params_suite_refine(const bench_suite *s, long end_max, refine_params *r)
{
    memset(r, 0, sizeof *r);
    r->scale = s->scale;
    r->x_start = (double)s->start_arg;
    r->x_end = (double)(s->end_is_max ? end_max : s->end_arg);
    if (r->x_end < r->x_start)
        r->x_end = r->x_start;     /* Max_Value below the start: measure the start only */
    r->stepwidth = s->stepwidth;
    r->x_min_dist = (double)s->min_dist;
    r->multiple_of = s->multiple_of;
    r->x_max_steps = s->max_steps;
    r->time_suite = s->time_suite;
    r->max_rel_error = 2.0 * s->standard_error;
}
