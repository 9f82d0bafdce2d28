/*
 * sion_private.h - internal: a reader for SIONlib containers (file format 3 to 5)
 * without SIONlib.  Handles any task count, packed (collective) chunks,
 * several blocks per task, multi-file sets and both byte orders.
 * Reentrant: all state lives in the handle; errors go to a caller's
 * cube_status and name the file, the byte offset and the field.
 */
#ifndef CUBE_SION_H
#define CUBE_SION_H

#include <stddef.h>
#include <stdint.h>

#include "core/status_private.h"

typedef struct sion_set sion_set;

/* Open `path` (file 0 of a set; siblings are "<path>.%06d").  Returns NULL
 * with `st` set on error (CUBE_EIO, CUBE_EFORMAT, CUBE_EUNSUPPORTED,
 * CUBE_ENOMEM). */
sion_set *sion_set_open(const char *path, cube_status *st);
void sion_set_close(sion_set *s);

size_t sion_set_ntasks(const sion_set *s);   /* global, over the whole set */
int sion_set_nfiles(const sion_set *s);
int32_t sion_set_fsblksize(const sion_set *s);
int sion_set_big_endian(const sion_set *s);  /* byte order of the metadata */
/* 1 when a file of the set was never closed by its writer (no trailing
 * metadata): each task's stream is then its chunk in block 0, as far as the
 * file goes, and may run on past the payload. */
int sion_set_unclosed(const sion_set *s);

/* Bytes recorded for a global rank's logical stream. */
uint64_t sion_set_task_bytes(const sion_set *s, size_t rank);
/* Physical file name holding a rank (for messages). */
const char *sion_set_task_file(const sion_set *s, size_t rank);
/* File offset of byte `off` of a rank's stream (off == length: the end of
 * its last block). */
uint64_t sion_set_task_file_offset(const sion_set *s, size_t rank, uint64_t off);

/* Read bytes [off, off + len) of a rank's stream into buf (they may span
 * blocks).  0, or -1 with `st` set. */
int sion_set_read_range(const sion_set *s, size_t rank, uint64_t off, void *buf, size_t len,
                        cube_status *st);

#endif
