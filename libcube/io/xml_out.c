/*
 * xml_out.c - buffered writing with escaping; the first failing write is
 * remembered and reported by out_flush.
 */
#include "io/xml_out_private.h"
#include "cube.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void out_init_file(xml_out *o, FILE *fp)
{
    o->fp = fp;
    o->gz = NULL;
    o->len = 0;
    o->failed = 0;
    o->error[0] = '\0';
}

void out_init_gz(xml_out *o, gzFile gz)
{
    out_init_file(o, NULL);
    o->gz = gz;
}

static void drain(xml_out *o)
{
    if (o->failed || !o->len) {
        o->len = 0;
        return;
    }
    if (o->fp) {
        if (fwrite(o->buf, 1, o->len, o->fp) != o->len) {
            o->failed = 1;
            snprintf(o->error, sizeof o->error, "%s", strerror(errno ? errno : EIO));
        }
    } else if (gzwrite(o->gz, o->buf, (unsigned)o->len) != (int)o->len) {
        int code;
        const char *msg = gzerror(o->gz, &code);
        o->failed = 1;
        snprintf(o->error, sizeof o->error, "%s", code == Z_ERRNO ? strerror(errno) : msg);
    }
    o->len = 0;
}

void out_write(xml_out *o, const char *s, size_t n)
{
    while (n) {
        if (o->len == sizeof o->buf)
            drain(o);
        size_t k = sizeof o->buf - o->len;
        if (k > n)
            k = n;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

void out_str(xml_out *o, const char *s)
{
    out_write(o, s, strlen(s));
}

/* The length of the well-formed UTF-8 sequence that starts at s[0] (a
 * byte >= 0x80), or 0 when there is none; then *bad is the length of the
 * maximal subpart of an ill-formed sequence there (at least 1), which is
 * replaced as a whole (Unicode 3.9, "U+FFFD Substitution of Maximal
 * Subparts").  A NUL byte never passes as a continuation byte, so nothing
 * is read past the end of the string. */
static size_t utf8_sequence(const unsigned char *s, size_t *bad)
{
    unsigned char lead = s[0], lo = 0x80, hi = 0xBF;
    size_t need;
    *bad = 1;
    if (lead >= 0xC2 && lead <= 0xDF) {
        need = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        need = 3;
        if (lead == 0xE0)
            lo = 0xA0; /* no overlong forms */
        else if (lead == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        need = 4;
        if (lead == 0xF0)
            lo = 0x90; /* no overlong forms */
        else if (lead == 0xF4)
            hi = 0x8F; /* nothing above U+10FFFF */
    } else {
        return 0; /* a continuation byte, C0, C1 or F5..FF */
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < need; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) {
            *bad = i;
            return 0;
        }
    return need;
}

/* Strings reach the writer from callers of the API, not only from files
 * libxml2 has checked: a control character or a byte that is not UTF-8
 * written as it is would make a file that no XML parser (ours included)
 * reads.  Such bytes become U+FFFD, the replacement character.  One
 * escaper for every XML and SVG text libcube and the tools write; `emit`
 * takes the pieces. */
typedef void (*escape_emit)(void *ctx, const char *s, size_t n);

static void escape_with(const char *text, escape_emit emit, void *ctx)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    const unsigned char *s = (const unsigned char *)text, *run = s;
    while (*s) {
        const char *subst;
        size_t len = 1;
        if (*s >= 0x80) {
            size_t bad;
            len = utf8_sequence(s, &bad);
            /* U+FFFE and U+FFFF are well-formed UTF-8 but not XML characters */
            if (len && !(len == 3 && s[0] == 0xEF && s[1] == 0xBF && s[2] >= 0xBE)) {
                s += len;
                continue;
            }
            if (!len)
                len = bad;
            subst = replacement;
        } else {
            switch (*s) {
            case '&': subst = "&amp;"; break;
            case '<': subst = "&lt;"; break;
            case '>': subst = "&gt;"; break;
            case '"': subst = "&quot;"; break;
            case '\'': subst = "&apos;"; break;
            case '\t':
            case '\n':
            case '\r': s++; continue;
            default:
                if (*s >= 0x20) {
                    s++;
                    continue;
                }
                subst = replacement; /* not an XML 1.0 character */
            }
        }
        emit(ctx, (const char *)run, (size_t)(s - run));
        emit(ctx, subst, strlen(subst));
        s += len;
        run = s;
    }
    emit(ctx, (const char *)run, (size_t)(s - run));
}

static void emit_out(void *ctx, const char *s, size_t n)
{
    out_write(ctx, s, n);
}

void out_escaped(xml_out *o, const char *text)
{
    escape_with(text, emit_out, o);
}

typedef struct {
    FILE *fp;
    int failed;
} file_sink;

static void emit_file(void *ctx, const char *s, size_t n)
{
    file_sink *f = ctx;
    if (n && fwrite(s, 1, n, f->fp) != n)
        f->failed = 1;
}

int cube_fputs_xml(const char *text, FILE *fp)
{
    file_sink f = {fp, 0};
    escape_with(text ? text : "", emit_file, &f);
    return f.failed ? EOF : 0;
}

typedef struct {
    char *buf;
    size_t len, cap;
    int failed;
} string_sink;

static void emit_string(void *ctx, const char *s, size_t n)
{
    string_sink *b = ctx;
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->buf, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->buf = p;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

char *cube_xml_escape(const char *text)
{
    string_sink b = {NULL, 0, 0, 0};
    emit_string(&b, "", 0);
    escape_with(text ? text : "", emit_string, &b);
    if (b.failed) {
        free(b.buf);
        return NULL;
    }
    return b.buf;
}

void out_long(xml_out *o, long long v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", v);
    out_write(o, buf, (size_t)n);
}

int out_drain(xml_out *o)
{
    drain(o);
    return o->failed ? -1 : 0;
}

int out_flush(xml_out *o)
{
    drain(o);
    if (!o->failed && o->fp && fflush(o->fp) != 0) {
        o->failed = 1;
        snprintf(o->error, sizeof o->error, "%s", strerror(errno));
    }
    return o->failed ? -1 : 0;
}
