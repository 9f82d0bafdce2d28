/*
 * temp_files.c - the registry of open temporary files (see temp_files_private.h).
 *
 * A slot is FREE, BUSY (claimed by a thread that is filling in its name
 * and creating the file) or ACTIVE (the file exists under that name).
 * Slots are claimed by compare-and-swap and never freed, so a walker can
 * follow the list at any moment, also from a signal handler that
 * interrupted a thread in the middle of a claim.
 *
 * Two rules keep a walker from reading a name while it changes:
 *  - a slot's name is written only while the slot is BUSY, and a walker
 *    reads it only after seeing the slot ACTIVE;
 *  - a released slot whose name a walker may still be reading is not
 *    reused: a walker counts itself in the slot's `readers` before it
 *    looks at the slot's state, and a thread that has claimed a FREE slot
 *    gives it up again (and tries the next, or a new one) when the slot
 *    has readers.
 *
 * Removing for good (cube_remove_temp_files) sets `removing` first; a file
 * that a thread starts to create after that is refused (ECANCELED), and
 * one whose creation was under way is waited for (a BUSY slot lasts one
 * mkstemp; the creating thread blocks signals meanwhile, so that a handler
 * never runs on it and waits for itself), then removed.  All atomics are
 * sequentially consistent: each side stores its mark before it loads the
 * other's, so at least one of them sees the other.
 */
/* mkostemp: glibc and musl declare it for _GNU_SOURCE only */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif
#include "io/temp_files_private.h"
#include "cube.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Async-signal-safety needs atomics that are lock-free (a lock held by the
 * interrupted thread would deadlock the handler). */
#if ATOMIC_INT_LOCK_FREE != 2 || ATOMIC_POINTER_LOCK_FREE != 2
#error "the registry of temporary files needs lock-free atomic int and pointers"
#endif

enum { SLOT_FREE, SLOT_BUSY, SLOT_ACTIVE };

struct temp_file {
    atomic_int state;
    atomic_int readers; /* walkers looking at this slot */
    temp_file *next; /* set before the slot is published, never changed */
    char *path;      /* written only while BUSY */
    size_t cap;      /* bytes at path */
};

static _Atomic(temp_file *) slots;
static atomic_int removing; /* cube_remove_temp_files was called */

/* A slot with room for `need` bytes of name, BUSY for the caller; NULL when
 * out of memory. */
static temp_file *claim(size_t need)
{
    for (temp_file *t = atomic_load(&slots); t; t = t->next) {
        int expected = SLOT_FREE;
        if (atomic_load(&t->state) != SLOT_FREE ||
            !atomic_compare_exchange_strong(&t->state, &expected, SLOT_BUSY))
            continue;
        if (atomic_load(&t->readers) != 0) {
            /* a walker may be reading the name this slot had */
            atomic_store(&t->state, SLOT_FREE);
            continue;
        }
        if (t->cap < need) {
            char *p = malloc(need);
            if (!p) {
                atomic_store(&t->state, SLOT_FREE);
                return NULL;
            }
            free(t->path);
            t->path = p;
            t->cap = need;
        }
        return t;
    }
    temp_file *t = malloc(sizeof *t);
    char *p = malloc(need);
    if (!t || !p) {
        free(t);
        free(p);
        return NULL;
    }
    atomic_init(&t->state, SLOT_BUSY);
    atomic_init(&t->readers, 0);
    t->path = p;
    t->cap = need;
    t->next = atomic_load(&slots);
    while (!atomic_compare_exchange_weak(&slots, &t->next, t))
        ;
    return t;
}

/* mkstemp with the descriptor close-on-exec from the start where the C
 * library is known to offer it (mkostemp, declared for _GNU_SOURCE above);
 * elsewhere set right after creation, so that a program that forks in
 * another thread at that moment may pass it on. */
static int mkstemp_cloexec(char *tmpl)
{
#if defined(__linux__)
    return mkostemp(tmpl, O_CLOEXEC);
#else
    int fd = mkstemp(tmpl);
    if (fd >= 0)
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
#endif
}

int temp_file_create(const char *tmpl, temp_file **out)
{
    /* Block the asynchronous signals while the slot is BUSY: a handler
     * that ran on this thread now would wait for this very slot.  The
     * signals of faults stay open (blocking them is undefined). */
    sigset_t block, old;
    sigfillset(&block);
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&block, faults[i]);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int fd = -1, err = 0;
    size_t n = strlen(tmpl) + 1;
    temp_file *t = claim(n);
    if (!t) {
        err = ENOMEM;
    } else if (atomic_load(&removing)) {
        atomic_store(&t->state, SLOT_FREE);
        err = ECANCELED;
    } else {
        memcpy(t->path, tmpl, n);
        fd = mkstemp_cloexec(t->path);
        err = errno;
        atomic_store(&t->state, fd >= 0 ? SLOT_ACTIVE : SLOT_FREE);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        errno = err;
        return -1;
    }
    *out = t;
    return fd;
}

const char *temp_file_path(const temp_file *t)
{
    return t->path;
}

void temp_file_release(temp_file *t)
{
    if (t)
        atomic_store(&t->state, SLOT_FREE);
}

/* Call fn (or unlink, when fn is NULL) on the name of every ACTIVE slot,
 * after waiting up to a second for each BUSY one.  Returns how many names
 * were passed (or unlinked).  Only atomics, poll(2) and unlink(2): safe in
 * a signal handler. */
static size_t walk(void (*fn)(const char *path, void *user), void *user)
{
    size_t count = 0;
    for (temp_file *t = atomic_load(&slots); t; t = t->next) {
        atomic_fetch_add(&t->readers, 1);
        int state = atomic_load(&t->state);
        for (int waited = 0; state == SLOT_BUSY && waited < 1000; waited++) {
            poll(NULL, 0, 1);
            state = atomic_load(&t->state);
        }
        if (state == SLOT_ACTIVE) {
            if (fn) {
                fn(t->path, user);
                count++;
            } else if (unlink(t->path) == 0) {
                count++;
            }
        }
        atomic_fetch_sub(&t->readers, 1);
    }
    return count;
}

int cube_remove_temp_files(void)
{
    int saved = errno;
    atomic_store(&removing, 1);
    size_t n = walk(NULL, NULL);
    errno = saved;
    return n > (size_t)INT_MAX ? INT_MAX : (int)n;
}

size_t cube_list_temp_files(void (*fn)(const char *path, void *user), void *user)
{
    if (!fn)
        return 0;
    return walk(fn, user);
}
