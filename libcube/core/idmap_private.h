/*
 * idmap_private.h - a hash map from the id labels of a file to entities.  Ids are
 * labels with gaps and arbitrary order; they are never used as indexes.
 */
#ifndef LIBCUBE_IDMAP_H
#define LIBCUBE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t *keys;
    void **values;   /* NULL marks an empty slot */
    size_t count, cap;
} idmap;

/* 0 added, 1 the id is already present (nothing changed), -1 out of memory. */
int idmap_add(idmap *m, int64_t id, void *value);
void *idmap_get(const idmap *m, int64_t id);
void idmap_free(idmap *m);

/* A map whose values are indexes, not entities, stores index + 1 in the
 * pointer (NULL marks an empty slot). */
static inline void *idmap_index_value(size_t index)
{
    return (void *)(uintptr_t)(index + 1);
}

static inline size_t idmap_value_index(const void *value)
{
    return (size_t)((uintptr_t)value - 1);
}

#endif
