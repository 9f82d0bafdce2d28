/*
 * keymap.h - a hash map from byte-string keys to indexes, for lining up the
 * dimensions of several experiments (a metric by parent and unique name, a
 * call path by parent, callee and call site, ...).  Keys are copied into
 * one arena, so a million keys cost a few allocations, not a million.
 */
#ifndef LIBCUBE_KEYMAP_H
#define LIBCUBE_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct keymap_chunk keymap_chunk;

typedef struct {
    struct keymap_slot *slots;
    size_t count, cap;
    keymap_chunk *chunks;
} keymap;

#define KEYMAP_ABSENT ((size_t)-1)

/* The value of `key`, or KEYMAP_ABSENT. */
size_t keymap_get(const keymap *m, const void *key, size_t len);
/* Add key -> value (the key must be absent); 0, or -1 when out of memory. */
int keymap_put(keymap *m, const void *key, size_t len, size_t value);
void keymap_free(keymap *m);

/* Building keys: a growable byte buffer with typed appends. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
    int failed;
} keybuf;

void keybuf_reset(keybuf *k);
void keybuf_u64(keybuf *k, uint64_t v);
void keybuf_str(keybuf *k, const char *s); /* with its terminating NUL */
void keybuf_free(keybuf *k);

#endif
