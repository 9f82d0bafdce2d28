/*
 * util.c - checked string copies, the growable byte buffer and the message
 * list.
 */
#include "core/util_private.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cube_strdup(const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

static int strbuf_reserve(strbuf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) {
        if (cap > ((size_t)-1) / 2)
            return -1;
        cap *= 2;
    }
    char *data = realloc(b->data, cap);
    if (!data)
        return -1;
    b->data = data;
    b->cap = cap;
    return 0;
}

int strbuf_append(strbuf *b, const char *s, size_t n)
{
    if (strbuf_reserve(b, n) != 0)
        return -1;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int strbuf_append_char(strbuf *b, char ch)
{
    return strbuf_append(b, &ch, 1);
}

int strbuf_append_item(strbuf *b, const char *item, size_t max_len)
{
    if (b->len >= max_len)
        return 0;
    if (b->len && strbuf_append(b, ", ", 2) != 0)
        return -1;
    return strbuf_append(b, item, strlen(item));
}

void strbuf_clear(strbuf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void strbuf_free(strbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

const char *strbuf_str(const strbuf *b)
{
    return b->data ? b->data : "";
}

void *grow_array(void *items, size_t count, size_t *cap, size_t elem_size, size_t first_cap)
{
    if (count < *cap)
        return items;
    size_t n = *cap ? *cap : (first_cap + 1) / 2;
    if (n > SIZE_MAX / 2 / elem_size)
        return NULL;
    n *= 2;
    void *p = realloc(items, n * elem_size);
    if (p)
        *cap = n;
    return p;
}

/* The first chunk is small (a model with a dozen call paths must not cost a
 * megabyte); each next one is twice the last, up to ARENA_MAX_CHUNK.  The
 * sizes leave room for the chunk's and malloc's headers, so that a full-size
 * chunk is one mapping of exactly 1 MiB, not 1 MiB and one more page. */
#define ARENA_FIRST_CHUNK ((size_t)4096 - 64)
#define ARENA_MAX_CHUNK (((size_t)1 << 20) - 64)

struct arena_chunk {
    arena_chunk *next;
    size_t used, cap;
    max_align_t bytes[]; /* max_align_t: the first object is suitably aligned */
};

char *arena_strdup(arena *a, const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s) + 1;
    char *copy = arena_alloc(a, n, 1);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

void *arena_alloc(arena *a, size_t size, size_t align)
{
    arena_chunk *c = a->chunks;
    if (c) {
        /* `used` is an offset from the max-aligned start: rounding it up
         * aligns the address too */
        size_t at = (c->used + align - 1) & ~(align - 1);
        if (at >= c->used && at <= c->cap && c->cap - at >= size) {
            c->used = at + size;
            return (unsigned char *)c->bytes + at;
        }
    }
    size_t cap = c ? (c->cap < ARENA_MAX_CHUNK / 2 ? c->cap * 2 : ARENA_MAX_CHUNK)
                   : ARENA_FIRST_CHUNK;
    if (cap < size)
        cap = size;
    if (cap > SIZE_MAX - sizeof(arena_chunk))
        return NULL;
    arena_chunk *fresh = malloc(sizeof *fresh + cap);
    if (!fresh)
        return NULL;
    fresh->next = c;
    fresh->used = size;
    fresh->cap = cap;
    a->chunks = fresh;
    return fresh->bytes;
}

void arena_free(arena *a)
{
    arena_chunk *c = a->chunks;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->chunks = NULL;
}

int message_list_addv(message_list *l, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    char **grown = grow_array(l->items, l->count, &l->cap, sizeof *l->items, 8);
    char *copy = grown ? cube_strdup(buf) : NULL;
    if (grown)
        l->items = grown;
    if (!copy)
        return -1;
    l->items[l->count++] = copy;
    return 0;
}

int message_list_add(message_list *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = message_list_addv(l, fmt, ap);
    va_end(ap);
    return rc;
}

const char *message_list_get(const message_list *l, size_t i)
{
    return l && i < l->count ? l->items[i] : NULL;
}

void message_list_clear(message_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = l->cap = 0;
}

int host_is_big_endian(void)
{
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 0;
}
