/*
 * idmap.c - open addressing with linear probing, kept at most half full.
 */
#include "core/idmap_private.h"

#include <stdlib.h>

static size_t slot_of(int64_t id, size_t cap)
{
    uint64_t k = (uint64_t)id * 0x9e3779b97f4a7c15ULL;
    return (size_t)(k ^ (k >> 29)) & (cap - 1);
}

static int grow(idmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    int64_t *keys = malloc(cap * sizeof *keys);
    void **values = calloc(cap, sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->values[i])
            continue;
        size_t s = slot_of(m->keys[i], cap);
        while (values[s])
            s = (s + 1) & (cap - 1);
        keys[s] = m->keys[i];
        values[s] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->cap = cap;
    return 0;
}

int idmap_add(idmap *m, int64_t id, void *value)
{
    if ((m->count + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    size_t s = slot_of(id, m->cap);
    while (m->values[s]) {
        if (m->keys[s] == id)
            return 1;
        s = (s + 1) & (m->cap - 1);
    }
    m->keys[s] = id;
    m->values[s] = value;
    m->count++;
    return 0;
}

void *idmap_get(const idmap *m, int64_t id)
{
    if (!m->cap)
        return NULL;
    for (size_t s = slot_of(id, m->cap); m->values[s]; s = (s + 1) & (m->cap - 1))
        if (m->keys[s] == id)
            return m->values[s];
    return NULL;
}

void idmap_free(idmap *m)
{
    free(m->keys);
    free(m->values);
    m->keys = NULL;
    m->values = NULL;
    m->count = m->cap = 0;
}
