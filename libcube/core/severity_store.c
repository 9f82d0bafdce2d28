/*
 * severity_store.c - sparse rows keyed by (metric, cnode) in a hash table,
 * values in fixed-layout chunks (see severity_store_private.h).
 */
#include "core/severity_store_private.h"
#include "core/util_private.h"

#include <stdlib.h>
#include <string.h>

/* A chunk holds the values of a power-of-two number of rows, about this
 * many doubles (512 KB): a million small rows cost a few dozen allocations,
 * not a million, and a row is found by shifting its number.  Rows wider than
 * this get a chunk each. */
#define CHUNK_DOUBLES ((size_t)1 << 16)

/* The hash table holds at most 3/4 as many rows as slots: 1.33-2.67 slots
 * a row, not the 2-4 of a load of 1/2.  Linear probing in Robin Hood order
 * keeps probes short at that load: about 2.5 for a hit and, because a
 * search stops at the first entry nearer its home than the key would be,
 * not many more for a miss (plain linear probing takes 8.5 at 3/4).  Most
 * probes compare a fingerprint in the same cache line, not a row. */
static size_t slots_for(size_t rows)
{
    size_t n = 64;
    while (rows > n - n / 4)
        n *= 2;
    return n;
}

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

static void free_chunks(double **chunks, size_t n)
{
    for (size_t c = 0; c < n; c++)
        free(chunks[c]);
    free(chunks);
}

void sev_store_free(severity_store *s)
{
    free_chunks(s->chunks, s->num_chunks);
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

/* The chunk layout for rows of `stride` doubles: log2 of the rows a chunk
 * holds, the most that fit in CHUNK_DOUBLES (at least one). */
static unsigned shift_for(size_t stride)
{
    size_t fit = CHUNK_DOUBLES / stride; /* not stride << shift: it may overflow */
    unsigned shift = 0;
    while (((size_t)2 << shift) <= fit)
        shift++;
    return shift;
}

/* Room for chunk number `num_chunks` in `*chunks`, then the chunk itself
 * (not zeroed: rows are zeroed as they are created, so the untouched rest of
 * a fresh chunk costs no resident memory).  -1 when out of memory. */
static int add_chunk(double ***chunks, size_t *num_chunks, size_t *chunks_cap, size_t stride,
                     unsigned shift)
{
    double **grown = grow_array(*chunks, *num_chunks, chunks_cap, sizeof *grown, 16);
    if (!grown)
        return -1;
    *chunks = grown;
    if (stride > (SIZE_MAX / sizeof(double)) >> shift)
        return -1;
    double *chunk = malloc((stride << shift) * sizeof(double));
    if (!chunk)
        return -1;
    (*chunks)[(*num_chunks)++] = chunk;
    return 0;
}

/* A slot holds the top 32 bits of the key's hash (its fingerprint) and its
 * row number + 1; 0 is empty.  The home slot of a key is the top slot_bits
 * bits of its hash, so a slot's home, and how far the entry sits from it,
 * come from the fingerprint alone, without reading its row. */
#define SLOT_ROW(slot) ((uint32_t)(slot))
#define SLOT_FINGERPRINT(slot) ((uint32_t)((slot) >> 32))
#define MAX_SLOT_BITS 32

static size_t home_of(uint32_t fingerprint, unsigned bits)
{
    return (size_t)(fingerprint >> (32 - bits));
}

/* Robin Hood insertion of `entry`, which is `dist` slots past its home at
 * slot i: an entry farther from its home takes the slot of one nearer to its
 * own, which moves on.  Every run of slots then holds its entries in the
 * order of their homes, which lets a search stop early (see probe). */
static void place_from(uint64_t *slots, unsigned bits, size_t i, size_t dist, uint64_t entry)
{
    size_t mask = ((size_t)1 << bits) - 1;
    for (;; i = (i + 1) & mask, dist++) {
        uint64_t slot = slots[i];
        if (!slot) {
            slots[i] = entry;
            return;
        }
        size_t slot_dist = (i - home_of(SLOT_FINGERPRINT(slot), bits)) & mask;
        if (slot_dist < dist) {
            slots[i] = entry;
            entry = slot;
            dist = slot_dist;
        }
    }
}

static uint64_t make_entry(uint64_t h, size_t row)
{
    return (h & 0xffffffff00000000ULL) | (uint32_t)(row + 1);
}

static void place(uint64_t *slots, unsigned bits, uint64_t h, size_t row)
{
    place_from(slots, bits, home_of((uint32_t)(h >> 32), bits), 0, make_entry(h, row));
}

/* The row number of (metric, cnode), whose hash is h, in the indexed rows;
 * SIZE_MAX when absent, with *at and *dist saying where place_from would
 * put it (so that get_or_add walks the slots once). */
static size_t probe(const severity_store *s, uint64_t h, size_t metric, size_t cnode, size_t *at,
                    size_t *dist)
{
    uint32_t fingerprint = (uint32_t)(h >> 32);
    unsigned bits = s->slot_bits;
    size_t mask = s->num_slots - 1;
    size_t i = home_of(fingerprint, bits), d = 0;
    for (;; i = (i + 1) & mask, d++) {
        uint64_t slot = s->slots[i];
        if (!slot)
            break;
        if (SLOT_FINGERPRINT(slot) != fingerprint) {
            /* an entry nearer its home than the key would be: the key would
             * have taken its slot (see place_from), so it is absent */
            if (((i - home_of(SLOT_FINGERPRINT(slot), bits)) & mask) < d)
                break;
            continue;
        }
        const severity_row *r = &s->rows[SLOT_ROW(slot) - 1];
        if (r->metric == metric && r->cnode == cnode)
            return SLOT_ROW(slot) - 1;
    }
    *at = i;
    *dist = d;
    return SIZE_MAX;
}

static int rehash(severity_store *s, size_t num_slots)
{
    unsigned bits = 0;
    while (((size_t)1 << bits) < num_slots)
        bits++;
    if (bits > MAX_SLOT_BITS)
        return -1; /* over 3 billion rows: homes no longer fit a fingerprint */
    uint64_t *slots = calloc(num_slots, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t r = 0; r < s->num_indexed; r++)
        place(slots, bits, row_hash(s->rows[r].metric, s->rows[r].cnode), r);
    free(s->slots);
    s->slots = slots;
    s->num_slots = num_slots;
    s->slot_bits = bits;
    return 0;
}

int sev_store_index(severity_store *s)
{
    if (s->num_indexed == s->num_rows)
        return 0;
    size_t needed = slots_for(s->num_rows);
    if (needed > s->num_slots && rehash(s, needed) != 0)
        return -1;
    for (; s->num_indexed < s->num_rows; s->num_indexed++) {
        const severity_row *r = &s->rows[s->num_indexed];
        place(s->slots, s->slot_bits, row_hash(r->metric, r->cnode), s->num_indexed);
    }
    return 0;
}

static double *find_indexed(const severity_store *s, size_t metric, size_t cnode)
{
    if (!s->num_slots)
        return NULL;
    size_t at, dist;
    size_t row = probe(s, row_hash(metric, cnode), metric, cnode, &at, &dist);
    return row == SIZE_MAX ? NULL : sev_row_values(s, row);
}

/* Rows sort by this key: metric, then cnode. */
static uint64_t key_of(size_t metric, size_t cnode)
{
    return (uint64_t)metric << 32 | (uint64_t)cnode;
}

static uint64_t row_key(const severity_row *r)
{
    return key_of(r->metric, r->cnode);
}

/* The row number of (metric, cnode) among the rows not indexed yet, or
 * SIZE_MAX. */
static size_t find_appended(const severity_store *s, size_t metric, size_t cnode)
{
    if (metric > UINT32_MAX || cnode > UINT32_MAX)
        return SIZE_MAX;
    uint64_t key = key_of(metric, cnode);
    if (!s->unordered) {
        size_t lo = s->num_indexed, hi = s->num_rows;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (row_key(&s->rows[mid]) < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < s->num_rows && row_key(&s->rows[lo]) == key ? lo : SIZE_MAX;
    }
    for (size_t r = s->num_indexed; r < s->num_rows; r++)
        if (row_key(&s->rows[r]) == key)
            return r;
    return SIZE_MAX;
}

double *sev_store_find(const severity_store *s, size_t metric, size_t cnode)
{
    double *found = find_indexed(s, metric, cnode);
    if (found || s->num_indexed == s->num_rows)
        return found;
    /* rows appended since the last sev_store_index (see the header) */
    size_t r = find_appended(s, metric, cnode);
    return r == SIZE_MAX ? NULL : sev_row_values(s, r);
}

/* Room for row number num_rows: its entry and its chunk.  0, or -1 when
 * out of memory or the store is full. */
static int make_room(severity_store *s)
{
    if (s->num_rows >= UINT32_MAX - 1)
        return -1;
    if (s->num_rows == s->rows_cap) {
        size_t cap = s->rows_cap ? s->rows_cap * 2 : 64;
        severity_row *rows = realloc(s->rows, cap * sizeof *rows);
        if (!rows)
            return -1;
        s->rows = rows;
        s->rows_cap = cap;
    }
    if (!s->num_chunks) {
        /* the first row fixes the layout (row_len may have been set directly) */
        s->stride = s->row_len ? s->row_len : 1;
        s->chunk_shift = shift_for(s->stride);
    }
    if (s->num_rows == s->num_chunks << s->chunk_shift &&
        add_chunk(&s->chunks, &s->num_chunks, &s->chunks_cap, s->stride, s->chunk_shift) != 0)
        return -1;
    return 0;
}

/* The entry of row number num_rows (room made), which does not count yet. */
static void set_row(severity_store *s, size_t metric, size_t cnode)
{
    severity_row *r = &s->rows[s->num_rows];
    if (s->num_rows && row_key(r - 1) >= key_of(metric, cnode))
        s->unordered = 1;
    r->metric = (uint32_t)metric;
    r->cnode = (uint32_t)cnode;
}

static double *new_row(severity_store *s, size_t metric, size_t cnode)
{
    if (metric > UINT32_MAX || cnode > UINT32_MAX || make_room(s) != 0)
        return NULL;
    set_row(s, metric, cnode);
    double *values = sev_row_values(s, s->num_rows++);
    memset(values, 0, s->stride * sizeof(double));
    return values;
}

double *sev_store_append_run(severity_store *s, size_t metric, const size_t *cnodes, size_t n,
                             size_t *added)
{
    *added = 0;
    if (!n || metric > UINT32_MAX || make_room(s) != 0)
        return NULL;
    /* the rest of the chunk, with entries for all of it */
    size_t room = (s->num_chunks << s->chunk_shift) - s->num_rows;
    if (room > UINT32_MAX - 1 - s->num_rows)
        room = UINT32_MAX - 1 - s->num_rows;
    if (n > room)
        n = room;
    if (n > s->rows_cap - s->num_rows) {
        size_t cap = s->rows_cap * 2 > s->num_rows + n ? s->rows_cap * 2 : s->num_rows + n;
        severity_row *rows = realloc(s->rows, cap * sizeof *rows);
        if (rows) {
            s->rows = rows;
            s->rows_cap = cap;
        } else {
            n = s->rows_cap - s->num_rows; /* at least one: make_room saw to it */
        }
    }
    double *values = sev_row_values(s, s->num_rows);
    for (size_t i = 0; i < n; i++) {
        if (cnodes[i] > UINT32_MAX) {
            if (!i)
                return NULL;
            break;
        }
        set_row(s, metric, cnodes[i]);
        s->num_rows++;
        ++*added;
    }
    return values;
}

double *sev_store_append(severity_store *s, size_t metric, size_t cnode)
{
    return new_row(s, metric, cnode);
}

/* The rows in order (see the header): the row at the cursor (after the
 * last row, the first: the next input starts over), or a new last row of
 * a sorted store.  The hash table is left alone: combining two inputs
 * with the same rows in the same order then looks nothing up, where each
 * row cost two look-ups, nearly all cache misses. */
static double *get_in_order(severity_store *s, size_t metric, size_t cnode)
{
    size_t next = s->cursor < s->num_rows ? s->cursor : 0;
    if (next < s->num_rows && s->rows[next].metric == metric && s->rows[next].cnode == cnode) {
        s->cursor = next + 1;
        return sev_row_values(s, next);
    }
    if (s->unordered || metric > UINT32_MAX || cnode > UINT32_MAX ||
        (s->num_rows && row_key(&s->rows[s->num_rows - 1]) >= key_of(metric, cnode)))
        return NULL;
    double *values = new_row(s, metric, cnode);
    if (values)
        s->cursor = s->num_rows;
    return values;
}

static double *get_or_add_hashed(severity_store *s, size_t metric, size_t cnode)
{
    if (sev_store_index(s) != 0)
        return sev_store_find(s, metric, cnode); /* NULL unless present: no memory */
    if (s->num_rows + 1 > s->num_slots - s->num_slots / 4) {
        /* the new row would load the table over 3/4, if it is new: find
         * out first, so that looking rows up never grows the table */
        double *found = find_indexed(s, metric, cnode);
        if (found)
            return found;
        if (rehash(s, slots_for(s->num_rows + 1)) != 0)
            return NULL;
    }
    uint64_t h = row_hash(metric, cnode);
    size_t at, dist;
    size_t row = probe(s, h, metric, cnode, &at, &dist);
    if (row != SIZE_MAX) {
        s->cursor = row + 1;
        return sev_row_values(s, row);
    }
    double *values = new_row(s, metric, cnode);
    if (!values)
        return NULL;
    place_from(s->slots, s->slot_bits, at, dist, make_entry(h, s->num_rows - 1));
    s->num_indexed = s->num_rows;
    s->cursor = s->num_rows;
    return values;
}

double *sev_store_get_or_add(severity_store *s, size_t metric, size_t cnode)
{
    double *values = get_in_order(s, metric, cnode);
    return values ? values : get_or_add_hashed(s, metric, cnode);
}

int sev_store_set_row_len(severity_store *s, size_t row_len)
{
    if (row_len <= s->row_len) {
        s->row_len = s->row_len ? s->row_len : row_len;
        return 0;
    }
    if (!s->num_rows || row_len <= s->stride) {
        /* no rows, or rows already that wide (1 value before any thread) */
        s->row_len = row_len;
        return 0;
    }
    /* Every row moves into chunks of the new layout, built whole before the
     * old ones are freed so that a failure leaves the store as it was
     * (threads are rarely added after values, so the peak is rare too). */
    size_t stride = row_len;
    unsigned shift = shift_for(stride);
    double **chunks = NULL;
    size_t num_chunks = 0, chunks_cap = 0;
    for (size_t r = 0; r < s->num_rows; r++) {
        size_t k = r & (((size_t)1 << shift) - 1);
        if (!k && add_chunk(&chunks, &num_chunks, &chunks_cap, stride, shift) != 0) {
            free_chunks(chunks, num_chunks);
            return -1;
        }
        double *to = chunks[r >> shift] + k * stride;
        memcpy(to, sev_row_values(s, r), s->stride * sizeof(double));
        memset(to + s->stride, 0, (stride - s->stride) * sizeof(double));
    }
    free_chunks(s->chunks, s->num_chunks);
    s->chunks = chunks;
    s->num_chunks = num_chunks;
    s->chunks_cap = chunks_cap;
    s->stride = stride;
    s->chunk_shift = shift;
    s->row_len = row_len;
    return 0;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Order one metric's run of row numbers by cnode.  Rows are nearly always
 * created in cnode order (files list them so, the algebra follows its
 * first input), so an ordered run is only checked.  Otherwise (cnode, row)
 * pairs packed in 64 bits are sorted: qsort has no context argument in
 * C11.  Row numbers fit in 32 bits (sev_store_sorted checks).  0, or -1
 * when out of memory. */
static int sort_run_by_cnode(const severity_store *s, size_t *run, size_t n)
{
    size_t i = 1;
    while (i < n && s->rows[run[i - 1]].cnode < s->rows[run[i]].cnode)
        i++;
    if (i >= n)
        return 0;
    uint64_t *keys = malloc(n * sizeof *keys);
    if (!keys)
        return -1;
    for (i = 0; i < n; i++)
        keys[i] = (uint64_t)s->rows[run[i]].cnode << 32 | (uint64_t)run[i];
    qsort(keys, n, sizeof *keys, compare_u64);
    for (i = 0; i < n; i++)
        run[i] = (size_t)(keys[i] & 0xffffffffu);
    free(keys);
    return 0;
}

/* A counting pass puts the row numbers in metric order (within a metric in
 * creation order), then each metric's run is put in cnode order: beside
 * the result, memory for one run at most, where sorting (metric, cnode,
 * row) triples cost four times the result (5 million rows: 200 MB at the
 * peak of writing a file). */
size_t *sev_store_sorted(const severity_store *s)
{
    size_t n = s->num_rows, num_metrics = 0;
    if (!n || n > UINT32_MAX)
        return NULL;
    for (size_t r = 0; r < n; r++)
        if (s->rows[r].metric >= num_metrics)
            num_metrics = (size_t)s->rows[r].metric + 1;
    size_t *end = calloc(num_metrics + 1, sizeof *end);
    size_t *order = malloc(n * sizeof *order);
    if (!end || !order) {
        free(end);
        free(order);
        return NULL;
    }
    /* end[m + 1] counts metric m's rows; the prefix sums make end[m] where
     * metric m's run starts, and filling moves it to where the run ends */
    for (size_t r = 0; r < n; r++)
        end[s->rows[r].metric + 1]++;
    for (size_t m = 0; m < num_metrics; m++)
        end[m + 1] += end[m];
    for (size_t r = 0; r < n; r++)
        order[end[s->rows[r].metric]++] = r;
    int rc = 0;
    for (size_t m = 0, begin = 0; m < num_metrics && rc == 0; begin = end[m], m++)
        rc = sort_run_by_cnode(s, order + begin, end[m] - begin);
    free(end);
    if (rc != 0) {
        free(order);
        return NULL;
    }
    return order;
}
