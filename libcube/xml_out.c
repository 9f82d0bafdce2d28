/*
 * xml_out.c - buffered writing with escaping; the first failing write is
 * remembered and reported by out_flush.
 */
#include "xml_out.h"

#include <errno.h>
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

void out_escaped(xml_out *o, const char *s)
{
    const char *run = s;
    for (; *s; s++) {
        const char *entity;
        switch (*s) {
        case '&': entity = "&amp;"; break;
        case '<': entity = "&lt;"; break;
        case '>': entity = "&gt;"; break;
        case '"': entity = "&quot;"; break;
        case '\'': entity = "&apos;"; break;
        default: continue;
        }
        out_write(o, run, (size_t)(s - run));
        out_str(o, entity);
        run = s + 1;
    }
    out_write(o, run, (size_t)(s - run));
}

void out_long(xml_out *o, long long v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%lld", v);
    out_write(o, buf, (size_t)n);
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
