/*
 * util_private.h - small helpers shared by the library's modules: checked string
 * copies and a growable byte buffer.  None of them exits or prints; every
 * allocation failure is returned to the caller.
 */
#ifndef LIBCUBE_UTIL_H
#define LIBCUBE_UTIL_H

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define CUBE_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CUBE_PRINTF(fmt, args)
#endif

/* Make room for one more element in `items` (count == *cap means full),
 * doubling from first_cap, the size checked against overflow: returns the
 * (possibly moved) array with *cap updated, or NULL when out of memory (the
 * old array is then still valid and unchanged).  Returns `items` untouched
 * when there is room.  Used by the model's entity lists (child_array_push)
 * and other modules; some older ones still grow their arrays by hand. */
void *grow_array(void *items, size_t count, size_t *cap, size_t elem_size, size_t first_cap);

/* A bump allocator: many small objects carved from a few large chunks and
 * released all at once by arena_free (no per-object malloc header, no
 * per-object free).  Chunks double from a few KiB up to ~1 MiB, so a small
 * model stays small and a million objects cost a few hundred mallocs.
 * Zero-initialise it ({0}) before first use. */
typedef struct arena_chunk arena_chunk;
typedef struct {
    arena_chunk *chunks; /* newest first; allocation happens in the newest */
} arena;

/* `size` uninitialised bytes aligned to `align` (a power of two, at most
 * that of max_align_t), or NULL when out of memory (the arena unchanged). */
void *arena_alloc(arena *a, size_t size, size_t align);
void arena_free(arena *a);
/* A copy of s (NULL as "") in the arena; NULL when out of memory. */
char *arena_strdup(arena *a, const char *s);

/* A list of formatted messages, each an owned copy: the warnings every
 * handle (experiment, statistics file, LinkTest run, combination) keeps.
 * Zero-initialise it ({0}). */
typedef struct {
    char **items;
    size_t count, cap;
} message_list;

/* Append a message formatted as vsnprintf would (cut at 1023 bytes); 0,
 * or -1 when out of memory (the list unchanged). */
int message_list_addv(message_list *l, const char *fmt, va_list ap);
int message_list_add(message_list *l, const char *fmt, ...) CUBE_PRINTF(2, 3);
/* Message i, NULL out of range. */
const char *message_list_get(const message_list *l, size_t i);
/* Free every message; the list is empty and usable again. */
void message_list_clear(message_list *l);

/* strdup that accepts NULL (as "") and returns NULL only when out of memory. */
char *cube_strdup(const char *s);

/* A growable, always NUL-terminated byte buffer. */
typedef struct {
    char *data;
    size_t len, cap;
} strbuf;

int strbuf_append(strbuf *b, const char *s, size_t n);
int strbuf_append_char(strbuf *b, char ch);
/* Append `item` to a list separated by ", " that a message names, unless
 * the list holds `max_len` bytes already (the message stays short; its
 * count says how many there are).  0, or -1 when out of memory. */
int strbuf_append_item(strbuf *b, const char *item, size_t max_len);
void strbuf_clear(strbuf *b);
void strbuf_free(strbuf *b);
/* The content, "" for a buffer that never held anything. */
const char *strbuf_str(const strbuf *b);

/* 1 when this machine stores the most significant byte first. */
int host_is_big_endian(void);

#endif
