/*
 * severity_store.c - sparse rows keyed by (metric, cnode) in a hash table,
 * values in arena chunks.
 */
#include "severity_store.h"

#include <stdlib.h>
#include <string.h>

/* Values are carved from chunks of at least this many doubles, so that a
 * million small rows cost a few hundred allocations, not a million. */
#define CHUNK_MIN_DOUBLES ((size_t)1 << 16)

struct severity_chunk {
    severity_chunk *next;
    size_t used, cap;
    double values[];
};

static uint64_t row_hash(size_t metric, size_t cnode)
{
    uint64_t k = ((uint64_t)metric << 32) ^ (uint64_t)cnode;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

void sev_store_free(severity_store *s)
{
    severity_chunk *ch = s->chunks;
    while (ch) {
        severity_chunk *next = ch->next;
        free(ch);
        ch = next;
    }
    free(s->rows);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

void sev_store_clear(severity_store *s)
{
    size_t row_len = s->row_len;
    sev_store_free(s);
    s->row_len = row_len;
}

static double *arena_alloc(severity_store *s, size_t n)
{
    severity_chunk *ch = s->chunks;
    if (!ch || ch->cap - ch->used < n) {
        size_t cap = n > CHUNK_MIN_DOUBLES ? n : CHUNK_MIN_DOUBLES;
        if (cap > (SIZE_MAX - sizeof *ch) / sizeof(double))
            return NULL;
        ch = malloc(sizeof *ch + cap * sizeof(double));
        if (!ch)
            return NULL;
        ch->used = 0;
        ch->cap = cap;
        ch->next = s->chunks;
        s->chunks = ch;
    }
    double *v = ch->values + ch->used;
    ch->used += n;
    memset(v, 0, n * sizeof(double));
    return v;
}

#define SLOT_ROW(slot) ((uint32_t)(slot))
#define SLOT_FINGERPRINT(slot) ((uint32_t)((slot) >> 32))

static void place(uint64_t *slots, size_t num_slots, uint64_t h, uint32_t row_plus_one)
{
    size_t mask = num_slots - 1;
    size_t i = h & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = (h & 0xffffffff00000000ULL) | row_plus_one;
}

static int rehash(severity_store *s, size_t num_slots)
{
    uint64_t *slots = calloc(num_slots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t r = 0; r < s->num_indexed; r++)
        place(slots, num_slots, row_hash(s->rows[r].metric, s->rows[r].cnode),
              (uint32_t)(r + 1));
    free(s->slots);
    s->slots = slots;
    s->num_slots = num_slots;
    return 0;
}

/* Bring the hash table up to date with the appended rows; -1 when out of
 * memory (the store is still consistent, merely not fully indexed). */
static int index_appended(severity_store *s)
{
    if (s->num_indexed == s->num_rows)
        return 0;
    size_t needed = s->num_slots ? s->num_slots : 64;
    while (s->num_rows * 2 > needed)
        needed *= 2;
    if (needed != s->num_slots && rehash(s, needed) != 0)
        return -1;
    for (; s->num_indexed < s->num_rows; s->num_indexed++) {
        const severity_row *r = &s->rows[s->num_indexed];
        place(s->slots, s->num_slots, row_hash(r->metric, r->cnode),
              (uint32_t)(s->num_indexed + 1));
    }
    return 0;
}

#define SLOT_ROW(slot) ((uint32_t)(slot))
#define SLOT_FINGERPRINT(slot) ((uint32_t)((slot) >> 32))

static double *find_indexed(const severity_store *s, size_t metric, size_t cnode)
{
    if (!s->num_slots)
        return NULL;
    uint64_t h = row_hash(metric, cnode);
    uint32_t fingerprint = (uint32_t)(h >> 32);
    size_t mask = s->num_slots - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        uint64_t slot = s->slots[i];
        if (!slot)
            return NULL;
        if (SLOT_FINGERPRINT(slot) != fingerprint)
            continue;
        const severity_row *r = &s->rows[SLOT_ROW(slot) - 1];
        if (r->metric == metric && r->cnode == cnode)
            return r->values;
    }
}

double *sev_store_find(const severity_store *s, size_t metric, size_t cnode)
{
    if (s->num_indexed != s->num_rows) {
        severity_store *writable = (severity_store *)s; /* see the header */
        if (index_appended(writable) != 0) {
            /* no memory for the index: look through the unindexed rows */
            for (size_t r = s->num_indexed; r < s->num_rows; r++)
                if (s->rows[r].metric == metric && s->rows[r].cnode == cnode)
                    return s->rows[r].values;
        }
    }
    return find_indexed(s, metric, cnode);
}

static double *new_row(severity_store *s, size_t metric, size_t cnode)
{
    if (metric > UINT32_MAX || cnode > UINT32_MAX || s->num_rows >= UINT32_MAX - 1)
        return NULL;
    if (s->num_rows == s->rows_cap) {
        size_t cap = s->rows_cap ? s->rows_cap * 2 : 64;
        severity_row *rows = realloc(s->rows, cap * sizeof *rows);
        if (!rows)
            return NULL;
        s->rows = rows;
        s->rows_cap = cap;
    }
    double *values = arena_alloc(s, s->row_len ? s->row_len : 1);
    if (!values)
        return NULL;
    severity_row *r = &s->rows[s->num_rows++];
    r->metric = (uint32_t)metric;
    r->cnode = (uint32_t)cnode;
    r->values = values;
    return values;
}

double *sev_store_append(severity_store *s, size_t metric, size_t cnode)
{
    return new_row(s, metric, cnode);
}

double *sev_store_get_or_add(severity_store *s, size_t metric, size_t cnode)
{
    double *found = sev_store_find(s, metric, cnode);
    if (found)
        return found;
    if (s->num_indexed != s->num_rows)
        return NULL; /* the index could not be brought up to date */
    if ((s->num_rows + 1) * 2 > s->num_slots &&
        rehash(s, s->num_slots ? s->num_slots * 2 : 64) != 0)
        return NULL;
    double *values = new_row(s, metric, cnode);
    if (!values)
        return NULL;
    place(s->slots, s->num_slots, row_hash(metric, cnode), (uint32_t)s->num_rows);
    s->num_indexed = s->num_rows;
    return values;
}

int sev_store_set_row_len(severity_store *s, size_t row_len)
{
    if (row_len <= s->row_len) {
        s->row_len = s->row_len ? s->row_len : row_len;
        return 0;
    }
    /* Rows are moved to fresh arena space; the old space stays in its chunk
     * until the store is freed (threads are rarely added after values). */
    for (size_t r = 0; r < s->num_rows; r++) {
        double *values = arena_alloc(s, row_len);
        if (!values)
            return -1;
        memcpy(values, s->rows[r].values, (s->row_len ? s->row_len : 1) * sizeof(double));
        s->rows[r].values = values;
    }
    s->row_len = row_len;
    return 0;
}

/* qsort has no context argument in C11: sort (key, row number) pairs instead. */
typedef struct {
    uint64_t key;
    size_t row;
} sort_item;

static int compare_items(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

size_t *sev_store_sorted(const severity_store *s)
{
    if (!s->num_rows)
        return NULL;
    sort_item *items = malloc(s->num_rows * sizeof *items);
    size_t *order = malloc(s->num_rows * sizeof *order);
    if (!items || !order) {
        free(items);
        free(order);
        return NULL;
    }
    for (size_t r = 0; r < s->num_rows; r++) {
        items[r].key = ((uint64_t)s->rows[r].metric << 32) | s->rows[r].cnode;
        items[r].row = r;
    }
    qsort(items, s->num_rows, sizeof *items, compare_items);
    for (size_t r = 0; r < s->num_rows; r++)
        order[r] = items[r].row;
    free(items);
    return order;
}
