/*
 * keymap_private.h - a hash map from byte-string keys to indexes, for lining up the
 * dimensions of several experiments (a metric by parent and unique name, a
 * call path by parent, callee and call site, ...).  Keys are copied into
 * one arena, so a million keys cost a few allocations, not a million.
 * It also serves as a string set (keymap_intern): one shared copy of each
 * distinct string, such as the call-site modules of a model's call paths.
 */
#ifndef LIBCUBE_KEYMAP_H
#define LIBCUBE_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/util_private.h"

typedef struct {
    struct keymap_slot *slots;
    size_t count, cap;
    arena keys; /* the copies of the keys */
} keymap;

#define KEYMAP_ABSENT ((size_t)-1)

/* The value of `key`, or KEYMAP_ABSENT. */
size_t keymap_get(const keymap *m, const void *key, size_t len);
/* Add key -> value (the key must be absent); 0, or -1 when out of memory. */
int keymap_put(keymap *m, const void *key, size_t len, size_t value);
/* The map's copy of the string s (its bytes with the terminating NUL are
 * the key), added when absent: equal strings give the same pointer, valid
 * until keymap_free.  NULL when out of memory.  Keep a map used this way
 * for strings only (keymap_get with strlen + 1 finds them). */
const char *keymap_intern(keymap *m, const char *s);
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
