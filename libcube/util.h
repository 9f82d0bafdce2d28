/*
 * util.h - small helpers shared by the library's modules: checked string
 * copies and a growable byte buffer.  None of them exits or prints; every
 * allocation failure is returned to the caller.
 */
#ifndef LIBCUBE_UTIL_H
#define LIBCUBE_UTIL_H

#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define CUBE_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CUBE_PRINTF(fmt, args)
#endif

/* Format a message into `err` (of `errlen` bytes; nothing when err is NULL
 * or errlen 0): the modules that report into a caller's buffer (SION and
 * LinkTest readers, the merge of benchmark runs) all use this one. */
void err_printf(char *err, size_t errlen, const char *fmt, ...) CUBE_PRINTF(3, 4);

/* strdup that accepts NULL (as "") and returns NULL only when out of memory. */
char *cube_strdup(const char *s);

/* A growable, always NUL-terminated byte buffer. */
typedef struct {
    char *data;
    size_t len, cap;
} strbuf;

int strbuf_append(strbuf *b, const char *s, size_t n);
int strbuf_append_char(strbuf *b, char ch);
void strbuf_clear(strbuf *b);
void strbuf_free(strbuf *b);
/* The content, "" for a buffer that never held anything. */
const char *strbuf_str(const strbuf *b);

#endif
