/*
 * row_feed.c - reading the rows of several experiments ahead, in parallel.
 *
 * Combining experiments spends nearly all its time parsing the inputs'
 * rows; adding them up is cheap.  Two worker threads each parse every
 * second input and hand the rows over in blocks; the caller still takes
 * the inputs strictly in order (input 0's rows, then input 1's, ...), so
 * the result is exactly that of reading them one after the other.  While
 * the caller takes one input, the other worker reads the next one ahead
 * into a bounded buffer: memory grows by at most FEED_AHEAD_BYTES a worker.
 */
#include "algebra/row_feed_private.h"
#include "core/status_private.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FEED_BLOCK_BYTES ((size_t)1 << 20)
#define FEED_AHEAD_BYTES ((size_t)32 << 20)

typedef struct feed_block {
    struct feed_block *next;
    size_t input;     /* which input these rows belong to */
    size_t count;     /* rows in the block; 0 with `end` set: the input is done */
    int end;          /* last block of the input; `status` says how it ended */
    int status;       /* FEED_ROW_END, FEED_MAY_REPEAT or FEED_ERROR */
    size_t nthreads;
    size_t *metric, *cnode;
    double *values;   /* count x nthreads */
    char **warnings;  /* an end block: the reader's warnings about the input */
    size_t num_warnings;
} feed_block;

typedef struct {
    struct row_feed *feed;
    size_t first;           /* inputs first, first + FEED_WORKERS, ... */
    pthread_t thread;
    int started, finished; /* finished: the thread will publish nothing more */
    feed_block *head, *tail;
    size_t buffered;        /* bytes in the queue */
    cube_status error;      /* why a FEED_ERROR end */
} feed_worker;

struct row_feed {
    const char *const *paths;
    cube_reader **readers;  /* per input, one taken over from the caller, or NULL */
    const unsigned char *skip;
    size_t n;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int stop;
    feed_worker workers[FEED_WORKERS];
    feed_block *current;    /* the block the caller is taking rows from */
    char **warnings;        /* of the input that ended last */
    size_t num_warnings;
    size_t position;        /* next row in `current` */
    cube_status error;
};

static void free_warnings(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

static void free_block(feed_block *b)
{
    if (!b)
        return;
    free_warnings(b->warnings, b->num_warnings);
    free(b->metric);
    free(b->cnode);
    free(b->values);
    free(b);
}

static size_t block_bytes(const feed_block *b)
{
    return b->count * (2 * sizeof(size_t) + b->nthreads * sizeof(double));
}

static feed_block *new_block(size_t input, size_t nthreads)
{
    feed_block *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    size_t row_bytes = 2 * sizeof(size_t) + (nthreads ? nthreads : 1) * sizeof(double);
    size_t cap = FEED_BLOCK_BYTES / row_bytes;
    if (cap < 1)
        cap = 1;
    b->input = input;
    b->nthreads = nthreads;
    b->metric = malloc(cap * sizeof *b->metric);
    b->cnode = malloc(cap * sizeof *b->cnode);
    b->values = malloc(cap * (nthreads ? nthreads : 1) * sizeof *b->values);
    if (!b->metric || !b->cnode || !b->values) {
        free_block(b);
        return NULL;
    }
    return b;
}

/* Hand a block to the caller; waits while the worker is far enough ahead.
 * 0, or -1 when the feed is being stopped. */
static int publish(feed_worker *w, feed_block *b)
{
    struct row_feed *f = w->feed;
    pthread_mutex_lock(&f->lock);
    while (!f->stop && w->buffered > FEED_AHEAD_BYTES)
        pthread_cond_wait(&f->changed, &f->lock);
    if (f->stop) {
        pthread_mutex_unlock(&f->lock);
        free_block(b);
        return -1;
    }
    if (w->tail)
        w->tail->next = b;
    else
        w->head = b;
    w->tail = b;
    w->buffered += block_bytes(b);
    pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->lock);
    return 0;
}

/* Read one input's rows into blocks; ends with an `end` block. */
static int read_input(feed_worker *w, size_t k)
{
    struct row_feed *f = w->feed;
    int status = FEED_ROW_END;
    feed_block *b = NULL;
    /* the caller has the call trees (cube_union): a reader opened here
     * needs only each row's cnode index, not a second copy of the tree */
    cube_reader *r = f->readers[k];
    f->readers[k] = NULL; /* this worker's input: no other thread looks */
    if (!r)
        r = cube_reader_open_with(f->paths[k], CUBE_READ_NO_CALL_TREE);
    size_t nthreads = 0;
    if (!r || !cube_reader_definitions(r)) {
        if (r)
            status_set(&w->error, cube_reader_error_code(r), "%s", cube_reader_error(r));
        else
            status_set(&w->error, CUBE_ENOMEM, "out of memory");
        status = FEED_ERROR;
    } else {
        nthreads = cube_num_threads(cube_reader_definitions(r));
        size_t m, c;
        const double *values;
        int rc;
        while ((rc = cube_reader_next_row_index(r, &m, &c, &values)) == 1) {
            if (cube_reader_row_may_repeat(r)) {
                status = FEED_MAY_REPEAT;
                break;
            }
            if (b && block_bytes(b) + 2 * sizeof(size_t) + nthreads * sizeof(double) >
                         FEED_BLOCK_BYTES) {
                if (publish(w, b) != 0) {
                    cube_reader_close(r);
                    return -1;
                }
                b = NULL;
            }
            if (!b && !(b = new_block(k, nthreads))) {
                status_set(&w->error, CUBE_ENOMEM, "out of memory");
                status = FEED_ERROR;
                break;
            }
            b->metric[b->count] = m;
            b->cnode[b->count] = c;
            memcpy(b->values + b->count * nthreads, values, nthreads * sizeof *values);
            b->count++;
        }
        if (rc < 0) {
            status_set(&w->error, cube_reader_error_code(r), "%s", cube_reader_error(r));
            status = FEED_ERROR;
        }
    }
    feed_block *end = calloc(1, sizeof *end);
    size_t nw = r ? cube_reader_num_warnings(r) : 0;
    if (end && nw && (end->warnings = calloc(nw, sizeof *end->warnings)))
        for (size_t i = 0; i < nw; i++)
            if ((end->warnings[end->num_warnings] = strdup(cube_reader_warning(r, i))))
                end->num_warnings++;
    cube_reader_close(r);
    if (b && publish(w, b) != 0) {
        free_block(end);
        return -1;
    }
    if (!end)
        return -1; /* the caller sees the worker gone without an end: an error */
    end->input = k;
    end->end = 1;
    end->status = status;
    end->nthreads = nthreads;
    if (publish(w, end) != 0)
        return -1;
    return status == FEED_ERROR ? -1 : 0;
}

static void *work(void *arg)
{
    feed_worker *w = arg;
    for (size_t k = w->first; k < w->feed->n; k += FEED_WORKERS)
        if (!w->feed->skip[k] && read_input(w, k) != 0)
            break;
    pthread_mutex_lock(&w->feed->lock);
    w->finished = 1;
    pthread_cond_broadcast(&w->feed->changed);
    pthread_mutex_unlock(&w->feed->lock);
    return NULL;
}

row_feed *row_feed_start(const char *const *paths, cube_reader **readers, size_t n,
                         const unsigned char *skip)
{
    struct row_feed *f = calloc(1, sizeof *f);
    if (f && !(f->readers = calloc(n ? n : 1, sizeof *f->readers))) {
        free(f);
        f = NULL;
    }
    if (!f)
        return NULL;
    for (size_t k = 0; readers && k < n; k++) {
        f->readers[k] = readers[k];
        readers[k] = NULL;
    }
    f->paths = paths;
    f->skip = skip;
    f->n = n;
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->changed, NULL);
    for (size_t i = 0; i < FEED_WORKERS; i++) {
        f->workers[i].feed = f;
        f->workers[i].first = i;
        if (pthread_create(&f->workers[i].thread, NULL, work, &f->workers[i]) == 0)
            f->workers[i].started = 1;
        else
            status_set(&f->workers[i].error, CUBE_ENOMEM, "cannot start a reading thread");
    }
    return f;
}

int row_feed_next(row_feed *f, size_t k, size_t *metric, size_t *cnode, const double **values,
                  size_t *nthreads)
{
    feed_worker *w = &f->workers[k % FEED_WORKERS];
    for (;;) {
        feed_block *b = f->current;
        if (b && b->input == k && f->position < b->count) {
            size_t i = f->position++;
            *metric = b->metric[i];
            *cnode = b->cnode[i];
            *values = b->values + i * b->nthreads;
            *nthreads = b->nthreads;
            return FEED_ROW;
        }
        if (b && b->end) {
            int status = b->status;
            if (status == FEED_ERROR)
                status_copy(&f->error, &w->error);
            free_warnings(f->warnings, f->num_warnings);
            f->warnings = b->warnings;
            f->num_warnings = b->num_warnings;
            b->warnings = NULL;
            b->num_warnings = 0;
            free_block(b);
            f->current = NULL;
            return status;
        }
        free_block(b);
        f->current = NULL;
        f->position = 0;
        pthread_mutex_lock(&f->lock);
        /* a worker that finished without this input's end block failed */
        while (!w->head && w->started && !w->finished)
            pthread_cond_wait(&f->changed, &f->lock);
        b = w->head;
        if (b) {
            w->head = b->next;
            if (!w->head)
                w->tail = NULL;
            w->buffered -= block_bytes(b);
            pthread_cond_broadcast(&f->changed);
        }
        pthread_mutex_unlock(&f->lock);
        if (!b) {
            /* a worker ends without an end block only when it could
             * not allocate one */
            if (w->error.code != CUBE_OK)
                status_copy(&f->error, &w->error);
            else
                status_set(&f->error, CUBE_ENOMEM, "a reading thread failed");
            return FEED_ERROR;
        }
        if (b->input != k) {
            /* cannot happen: each worker reads its inputs in order */
            free_block(b);
            status_set(&f->error, CUBE_ESTATE, "internal error: rows out of order");
            return FEED_ERROR;
        }
        f->current = b;
    }
}

const cube_status *row_feed_error(const row_feed *f)
{
    return &f->error;
}

size_t row_feed_warnings(const row_feed *f, const char *const **list)
{
    *list = (const char *const *)f->warnings;
    return f->num_warnings;
}

void row_feed_stop(row_feed *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->lock);
    f->stop = 1;
    pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->lock);
    for (size_t i = 0; i < FEED_WORKERS; i++) {
        feed_worker *w = &f->workers[i];
        if (w->started)
            pthread_join(w->thread, NULL);
        feed_block *b = w->head;
        while (b) {
            feed_block *next = b->next;
            free_block(b);
            b = next;
        }
    }
    free_block(f->current);
    free_warnings(f->warnings, f->num_warnings);
    /* the readers of inputs no worker reached */
    for (size_t k = 0; k < f->n; k++)
        cube_reader_close(f->readers[k]);
    free(f->readers);
    pthread_cond_destroy(&f->changed);
    pthread_mutex_destroy(&f->lock);
    free(f);
}
