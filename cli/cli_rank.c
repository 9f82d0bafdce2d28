/*
 * cli_rank.c - thresholds, orders and the first N rows (cli_rank.h).
 */
#include "cli_rank.h"
#include "cli_common.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int cli_sort_parse(const char *arg, cli_sort *sort)
{
    static const struct {
        const char *name;
        cli_sort_key key;
    } keys[] = {{"value", CLI_SORT_VALUE}, {"abs", CLI_SORT_ABS}, {"name", CLI_SORT_NAME},
                {"id", CLI_SORT_ID}};
    int descending = arg[0] == '-';
    const char *name = arg + descending;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(name, keys[i].name) == 0) {
            sort->key = keys[i].key;
            sort->descending = descending;
            return 0;
        }
    return -1;
}

struct cli_ranking {
    cli_sort sort;
    size_t top;
    size_t payload, head, stride; /* bytes of a payload, where it begins in a row, and of a
                                     row with it */
    unsigned char *rows;
    size_t count, cap;
};

/* The largest alignment a payload of doubles, pointers and sizes needs. */
#define RANK_ALIGN 8u

cli_ranking *cli_ranking_begin(cli_sort sort, size_t top, size_t payload_size)
{
    cli_ranking *r = calloc(1, sizeof *r);
    if (!r) {
        cli_error("out of memory");
        return NULL;
    }
    r->sort = sort;
    r->top = top;
    r->payload = payload_size;
    r->head = (sizeof(cli_ranked) + RANK_ALIGN - 1) / RANK_ALIGN * RANK_ALIGN;
    r->stride = r->head + (payload_size + RANK_ALIGN - 1) / RANK_ALIGN * RANK_ALIGN;
    return r;
}

/* The sort of the ranking being sorted: qsort passes no context. */
static cli_sort current_sort;

/* -1, 0 or 1 as a before, like or after b in the order, without seq. */
static int compare_keys(const cli_ranked *a, const cli_ranked *b, const cli_sort *s)
{
    int c = 0;
    switch (s->key) {
    case CLI_SORT_NONE: return 0;
    case CLI_SORT_VALUE:
    case CLI_SORT_ABS: {
        double x = s->key == CLI_SORT_ABS ? fabs(a->value) : a->value;
        double y = s->key == CLI_SORT_ABS ? fabs(b->value) : b->value;
        /* no value goes last in either direction */
        if (isnan(x) || isnan(y))
            return isnan(x) - isnan(y);
        c = x < y ? -1 : x > y;
        break;
    }
    case CLI_SORT_NAME: {
        int k = strcmp(a->name ? a->name : "", b->name ? b->name : "");
        c = k < 0 ? -1 : k > 0;
        break;
    }
    case CLI_SORT_ID: c = a->id < b->id ? -1 : a->id > b->id; break;
    }
    return s->descending ? -c : c;
}

static int compare_rows(const void *pa, const void *pb)
{
    const cli_ranked *a = pa, *b = pb;
    int c = compare_keys(a, b, &current_sort);
    if (c)
        return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sort the rows and keep the first `top`. */
static void sort_and_cut(cli_ranking *r)
{
    current_sort = r->sort;
    if (r->count > 1)
        qsort(r->rows, r->count, r->stride, compare_rows);
    if (r->count > r->top)
        r->count = r->top;
}

int cli_ranking_add(cli_ranking *r, const cli_ranked *row, const void *payload)
{
    if (r->top == 0)
        return 0;
    if (r->count == r->cap) {
        /* with a small top, sorting a full buffer of 2 * top rows and
         * keeping top of them bounds memory (and costs O(n log top)) */
        if (r->top != SIZE_MAX && r->count >= 2 * r->top && r->count >= 64) {
            sort_and_cut(r);
        } else {
            size_t cap = r->cap ? 2 * r->cap : 64;
            if (cap > SIZE_MAX / r->stride) {
                cli_error("out of memory");
                return -1;
            }
            unsigned char *rows = realloc(r->rows, cap * r->stride);
            if (!rows) {
                cli_error("out of memory");
                return -1;
            }
            r->rows = rows;
            r->cap = cap;
        }
    }
    unsigned char *slot = r->rows + r->count * r->stride;
    memcpy(slot, row, sizeof *row);
    if (r->payload)
        memcpy(slot + r->head, payload, r->payload);
    r->count++;
    return 0;
}

size_t cli_ranking_finish(cli_ranking *r)
{
    sort_and_cut(r);
    return r->count;
}

const cli_ranked *cli_ranking_row(const cli_ranking *r, size_t i)
{
    return (const cli_ranked *)(const void *)(r->rows + i * r->stride);
}

const void *cli_ranking_payload(const cli_ranking *r, size_t i)
{
    return r->rows + i * r->stride + r->head;
}

void cli_ranking_free(cli_ranking *r)
{
    if (!r)
        return;
    free(r->rows);
    free(r);
}
