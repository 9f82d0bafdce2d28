/*
 * keymap.c - open addressing over (hash, key in arena, value) slots.
 */
#include "keymap.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)1 << 20)

struct keymap_slot {
    uint64_t hash;
    const unsigned char *key; /* NULL: empty */
    size_t len, value;
};

struct keymap_chunk {
    keymap_chunk *next;
    size_t used, cap;
    unsigned char bytes[];
};

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    /* FNV-1a, then a final mix so that the low bits used for the slot
     * depend on every byte */
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ULL;
    h ^= h >> 32;
    return h;
}

size_t keymap_get(const keymap *m, const void *key, size_t len)
{
    if (!m->cap)
        return KEYMAP_ABSENT;
    uint64_t h = hash_bytes(key, len);
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const struct keymap_slot *s = &m->slots[i];
        if (!s->key)
            return KEYMAP_ABSENT;
        if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0)
            return s->value;
    }
}

static const unsigned char *store_key(keymap *m, const void *key, size_t len)
{
    keymap_chunk *c = m->chunks;
    if (!c || c->cap - c->used < len) {
        size_t cap = len > CHUNK_BYTES ? len : CHUNK_BYTES;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->used = 0;
        c->cap = cap;
        c->next = m->chunks;
        m->chunks = c;
    }
    unsigned char *copy = c->bytes + c->used;
    memcpy(copy, key, len);
    c->used += len;
    return copy;
}

static int grow(keymap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    struct keymap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].key)
            continue;
        size_t j = m->slots[i].hash & (cap - 1);
        while (slots[j].key)
            j = (j + 1) & (cap - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

int keymap_put(keymap *m, const void *key, size_t len, size_t value)
{
    if ((m->count + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    const unsigned char *copy = store_key(m, key, len ? len : 1);
    if (!copy)
        return -1;
    uint64_t h = hash_bytes(key, len);
    size_t i = h & (m->cap - 1);
    while (m->slots[i].key)
        i = (i + 1) & (m->cap - 1);
    m->slots[i] = (struct keymap_slot){h, copy, len, value};
    m->count++;
    return 0;
}

void keymap_free(keymap *m)
{
    keymap_chunk *c = m->chunks;
    while (c) {
        keymap_chunk *next = c->next;
        free(c);
        c = next;
    }
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static void keybuf_append(keybuf *k, const void *p, size_t n)
{
    if (k->failed)
        return;
    if (k->len + n > k->cap) {
        size_t cap = k->cap ? k->cap : 64;
        while (cap < k->len + n)
            cap *= 2;
        unsigned char *data = realloc(k->data, cap);
        if (!data) {
            k->failed = 1;
            return;
        }
        k->data = data;
        k->cap = cap;
    }
    memcpy(k->data + k->len, p, n);
    k->len += n;
}

void keybuf_reset(keybuf *k)
{
    k->len = 0;
}

void keybuf_u64(keybuf *k, uint64_t v)
{
    keybuf_append(k, &v, sizeof v);
}

void keybuf_str(keybuf *k, const char *s)
{
    keybuf_append(k, s, strlen(s) + 1);
}

void keybuf_free(keybuf *k)
{
    free(k->data);
    memset(k, 0, sizeof *k);
}
