/*
 * json_reader.c - the JSON reader of the tests (see json_reader.h): a
 * recursive-descent parser over the whole text; the expected-values files
 * nest a few levels only.
 */
#include "json_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <zlib.h>

typedef struct {
    const char *p, *end;
    int failed;
} parser;

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static json *node(json_type type)
{
    json *j = calloc(1, sizeof *j);
    if (!j)
        abort();
    j->type = type;
    return j;
}

static void put_utf8(char **o, unsigned long c)
{
    unsigned char *u = (unsigned char *)*o;
    if (c < 0x80) {
        *u++ = (unsigned char)c;
    } else if (c < 0x800) {
        *u++ = (unsigned char)(0xc0 | c >> 6);
        *u++ = (unsigned char)(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        *u++ = (unsigned char)(0xe0 | c >> 12);
        *u++ = (unsigned char)(0x80 | (c >> 6 & 0x3f));
        *u++ = (unsigned char)(0x80 | (c & 0x3f));
    } else {
        *u++ = (unsigned char)(0xf0 | c >> 18);
        *u++ = (unsigned char)(0x80 | (c >> 12 & 0x3f));
        *u++ = (unsigned char)(0x80 | (c >> 6 & 0x3f));
        *u++ = (unsigned char)(0x80 | (c & 0x3f));
    }
    *o = (char *)u;
}

static unsigned long hex4(parser *ps)
{
    unsigned long c = 0;
    for (int i = 0; i < 4; i++, ps->p++) {
        char h = ps->p < ps->end ? *ps->p : 0;
        c <<= 4;
        if (h >= '0' && h <= '9')
            c |= (unsigned long)(h - '0');
        else if (h >= 'a' && h <= 'f')
            c |= (unsigned long)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F')
            c |= (unsigned long)(h - 'A' + 10);
        else
            ps->failed = 1;
    }
    return c;
}

/* A string at ps->p (on its opening quote): the decoded text. */
static char *string(parser *ps)
{
    ps->p++;
    /* the decoded text is never longer than the literal */
    const char *q = ps->p;
    while (q < ps->end && *q != '"')
        q += *q == '\\' ? 2 : 1;
    char *out = malloc((size_t)(q - ps->p) + 1), *o = out;
    if (!out)
        abort();
    while (ps->p < ps->end && *ps->p != '"') {
        char c = *ps->p++;
        if (c != '\\') {
            *o++ = c;
            continue;
        }
        c = ps->p < ps->end ? *ps->p++ : 0;
        switch (c) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned long u = hex4(ps);
            if (u >= 0xd800 && u < 0xdc00 && ps->p + 1 < ps->end && ps->p[0] == '\\' && ps->p[1] == 'u') {
                ps->p += 2;
                unsigned long lo = hex4(ps);
                u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
            }
            put_utf8(&o, u);
            break;
        }
        default: *o++ = c; break;
        }
    }
    if (ps->p >= ps->end)
        ps->failed = 1;
    ps->p++;
    *o = '\0';
    return out;
}

static json *value(parser *ps);

static void append(json *j, json *v, char *key)
{
    j->item = realloc(j->item, (j->n + 1) * sizeof *j->item);
    if (j->type == JSON_OBJECT)
        j->key = realloc(j->key, (j->n + 1) * sizeof *j->key);
    if (!j->item || (j->type == JSON_OBJECT && !j->key))
        abort();
    if (j->type == JSON_OBJECT)
        j->key[j->n] = key;
    j->item[j->n++] = v;
}

/* An array or object at ps->p (on its opening bracket). */
static json *container(parser *ps, json_type type, char close)
{
    json *j = node(type);
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return j;
    }
    while (!ps->failed) {
        char *key = NULL;
        skip_ws(ps);
        if (type == JSON_OBJECT) {
            if (ps->p >= ps->end || *ps->p != '"') {
                ps->failed = 1;
                break;
            }
            key = string(ps);
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p++ != ':')
                ps->failed = 1;
        }
        append(j, value(ps), key);
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
        } else if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            break;
        } else {
            ps->failed = 1;
        }
    }
    return j;
}

static json *value(parser *ps)
{
    skip_ws(ps);
    if (ps->p >= ps->end) {
        ps->failed = 1;
        return node(JSON_NULL);
    }
    char c = *ps->p;
    if (c == '{')
        return container(ps, JSON_OBJECT, '}');
    if (c == '[')
        return container(ps, JSON_ARRAY, ']');
    if (c == '"') {
        json *j = node(JSON_STRING);
        j->text = string(ps);
        return j;
    }
    static const struct { const char *word; json_type type; } words[] = {
        {"null", JSON_NULL}, {"true", JSON_TRUE}, {"false", JSON_FALSE}};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i].word);
        if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, words[i].word, n) == 0) {
            ps->p += n;
            return node(words[i].type);
        }
    }
    const char *start = ps->p;
    while (ps->p < ps->end && strchr("+-0123456789.eE", *ps->p))
        ps->p++;
    if (ps->p == start)
        ps->failed = 1;
    json *j = node(JSON_NUMBER);
    j->text = malloc((size_t)(ps->p - start) + 1);
    if (!j->text)
        abort();
    memcpy(j->text, start, (size_t)(ps->p - start));
    j->text[ps->p - start] = '\0';
    return j;
}

json *json_load(const char *path)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        fprintf(stderr, "%s: cannot open\n", path);
        return NULL;
    }
    size_t len = 0, cap = 1 << 20;
    char *text = malloc(cap);
    int got;
    while (text && (got = gzread(gz, text + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)got;
        if (len == cap)
            text = realloc(text, cap *= 2);
    }
    gzclose(gz);
    if (!text)
        abort();
    parser ps = {text, text + len, 0};
    json *j = value(&ps);
    skip_ws(&ps);
    if (ps.failed || ps.p != ps.end) {
        fprintf(stderr, "%s: not JSON near byte %ld\n", path, (long)(ps.p - text));
        json_free(j);
        j = NULL;
    }
    free(text);
    return j;
}

json *json_load_expected(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.expected.json", dir, name);
    FILE *fp = fopen(path, "rb");
    if (fp)
        fclose(fp);
    else
        snprintf(path, sizeof path, "%s/%s.expected.json.gz", dir, name);
    return json_load(path);
}

void json_free(json *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n; i++) {
        json_free(j->item[i]);
        if (j->key)
            free(j->key[i]);
    }
    free(j->item);
    free(j->key);
    free(j->text);
    free(j);
}

const json *json_get(const json *j, const char *key)
{
    if (!j || j->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < j->n; i++)
        if (strcmp(j->key[i], key) == 0)
            return j->item[i];
    return NULL;
}

const json *json_at(const json *j, size_t i)
{
    return j && (j->type == JSON_ARRAY || j->type == JSON_OBJECT) && i < j->n ? j->item[i] : NULL;
}

size_t json_len(const json *j)
{
    return j && (j->type == JSON_ARRAY || j->type == JSON_OBJECT) ? j->n : 0;
}

const char *json_str(const json *j)
{
    return j && j->type == JSON_STRING ? j->text : NULL;
}

double json_num(const json *j)
{
    return j && j->type == JSON_NUMBER ? strtod(j->text, NULL) : NAN;
}

uint64_t json_u64(const json *j)
{
    return j && j->type == JSON_NUMBER ? (uint64_t)strtoull(j->text, NULL, 10) : 0;
}

int64_t json_i64(const json *j)
{
    return j && j->type == JSON_NUMBER ? (int64_t)strtoll(j->text, NULL, 10) : 0;
}
