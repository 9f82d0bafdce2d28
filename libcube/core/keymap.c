/*
 * keymap.c - open addressing over (hash, key in arena, value) slots.
 */
#include "core/keymap_private.h"

#include <stdlib.h>
#include <string.h>

struct keymap_slot {
    uint64_t hash;
    const unsigned char *key; /* NULL: empty */
    size_t len, value;
};

static uint64_t hash_bytes(const void *key, size_t n)
{
    const unsigned char *p = key;
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

/* The slot holding `key`, or the empty slot where it would go (m->cap > 0). */
static struct keymap_slot *find_slot(const keymap *m, const void *key, size_t len, uint64_t h)
{
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        struct keymap_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0))
            return s;
    }
}

size_t keymap_get(const keymap *m, const void *key, size_t len)
{
    if (!m->cap)
        return KEYMAP_ABSENT;
    const struct keymap_slot *s = find_slot(m, key, len, hash_bytes(key, len));
    return s->key ? s->value : KEYMAP_ABSENT;
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

/* Add key -> value, known to be absent; its stored copy, or NULL when out
 * of memory (the map unchanged). */
static const unsigned char *insert(keymap *m, const void *key, size_t len, size_t value)
{
    if ((m->count + 1) * 2 > m->cap && grow(m) != 0)
        return NULL;
    /* a zero-length key still gets a distinct non-NULL pointer (NULL marks
     * an empty slot) */
    unsigned char *copy = arena_alloc(&m->keys, len ? len : 1, 1);
    if (!copy)
        return NULL;
    memcpy(copy, key, len);
    uint64_t h = hash_bytes(key, len);
    *find_slot(m, key, len, h) = (struct keymap_slot){h, copy, len, value};
    m->count++;
    return copy;
}

int keymap_put(keymap *m, const void *key, size_t len, size_t value)
{
    return insert(m, key, len, value) ? 0 : -1;
}

const char *keymap_intern(keymap *m, const char *s)
{
    size_t len = strlen(s) + 1;
    if (m->cap) {
        const struct keymap_slot *slot = find_slot(m, s, len, hash_bytes(s, len));
        if (slot->key)
            return (const char *)slot->key;
    }
    return (const char *)insert(m, s, len, 0);
}

void keymap_free(keymap *m)
{
    arena_free(&m->keys);
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
