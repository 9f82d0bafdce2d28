/*
 * tar_private.h - the tar container of a CUBE 4 (.cubex) file: the table
 * of its members read from a file (plain, or gzip-compressed as a whole,
 * which is inflated into a temporary file first), bounded reads of one
 * member's bytes, and a writer that produces archives the reference CUBE
 * library reads.
 *
 * Reading is tolerant where real files differ from the tar standard:
 * members in any order, the POSIX ("ustar\0" "00") and the GNU
 * ("ustar  \0") magic, typeflag '0' or NUL for a regular file, any version
 * field, wrong header checksums (counted for one warning: one widespread
 * writer stored the sum less 32), zero blocks anywhere (skipped: one
 * writer pads a member whose size is a multiple of 512 with one block
 * more than tar does, so a zero block need not mean the end).  Every size
 * is checked against the archive before it is used.
 *
 * Errors are CUBE_EFORMAT with "FILE: member NAME: byte OFFSET: what was
 * expected" (OFFSET counted in the archive; in the inflated archive when
 * the file was gzip-compressed, which the message then says), CUBE_EIO
 * for failed system calls, CUBE_ENOMEM.
 */
#ifndef LIBCUBE_CUBEX_TAR_H
#define LIBCUBE_CUBEX_TAR_H

#include "cube.h"
#include "core/util_private.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    char *name;             /* the member's name, NUL-terminated */
    uint64_t header_offset; /* of its (first) header block */
    uint64_t offset;        /* of its first byte */
    uint64_t size;          /* bytes; offset + size <= the archive's size */
} cubex_member;

typedef struct {
    char *file;       /* the name used in messages */
    int fd;           /* read with pread only: the file offset is never used */
    int inflated;     /* fd is a temporary holding the inflated archive */
    uint64_t size;    /* of the (inflated) archive */
    cubex_member *members; /* in archive order */
    size_t num_members;
    size_t num_headers;       /* member headers seen (with those of skipped entries) */
    size_t bad_checksums;     /* headers whose checksum field is wrong */
    uint64_t first_bad_checksum; /* header offset of the first of them */
} cubex_tar;

/* The most inflated bytes cubex_tar_open_* accept from a gzip-compressed
 * archive, or from a pipe, when the caller gives no limit (0). */
#define CUBEX_SPOOL_UNLIMITED UINT64_MAX

/* Read the member table of the archive at `path`, or on `fd` (a duplicate
 * is kept, the caller keeps fd; its file offset is not changed when it is
 * seekable).  A gzip-compressed archive, and an fd that cannot be read
 * with pread (a pipe), are first copied into an unlinked temporary file
 * in $TMPDIR (else /tmp), inflating at most `max_spool` bytes
 * (CUBEX_SPOOL_UNLIMITED: as many as the disk holds).  NULL with status
 * set on error. */
cubex_tar *cubex_tar_open_path(const char *path, uint64_t max_spool, cube_status *status);
cubex_tar *cubex_tar_open_fd(int fd, const char *name, uint64_t max_spool, cube_status *status);
void cubex_tar_close(cubex_tar *t);
/* A new temporary file in $TMPDIR (else /tmp), already unlinked, for a
 * copy of an archive: its descriptor, or -1 (errno). */
int cubex_tar_temp(void);

/* The member called `name`, NULL if there is none.  Of several members of
 * one name the last counts, as when tar extracts them. */
const cubex_member *cubex_tar_find(const cubex_tar *t, const char *name);

/* Read `n` bytes at `offset` within member `m` into buf: 0, or -1 with
 * status set (CUBE_EFORMAT when the range is not inside the member). */
int cubex_tar_pread(const cubex_tar *t, const cubex_member *m, uint64_t offset, void *buf,
                    size_t n, cube_status *status);

/* Set status to CUBE_EFORMAT "FILE: member NAME: byte OFFSET: <what>"
 * (without "member NAME: " when member is NULL; OFFSET counted in the
 * archive, "of the inflated archive" added when it was inflated); -1. */
int cubex_tar_fail(const cubex_tar *t, cube_status *status, const char *member, uint64_t offset,
                   const char *fmt, ...) CUBE_PRINTF(5, 6);

/* The one warning about the archive ("FILE: N of M tar headers have a
 * wrong checksum (the first at byte X); read anyway") written into buf,
 * or "" (returns 0) when there is nothing to warn about; returns 1 when a
 * warning was written. */
int cubex_tar_warning(const cubex_tar *t, char *buf, size_t len);

/* ---- writing --------------------------------------------------------------
 * Members are written one after the other to a FILE* or a descriptor,
 * each as a header with the POSIX magic and a correct checksum, the
 * member's bytes and padding to the next 512-byte block.  The padding is
 * ((size / 512) + 1) * 512 - size zero bytes: a member whose size is a
 * multiple of 512 (0 included) gets one whole zero block more than
 * standard tar writes, because the reference reader skips that block
 * unconditionally and would otherwise miss the next header.  Members of
 * 8 GiB or more get a PAX header with their size first.  Deterministic:
 * owner 0 ("nobody", "users"), mode 0600, the mtime the caller gives. */
typedef struct cubex_tar_writer cubex_tar_writer;

/* `name` is used in messages.  The writer never closes fp or fd. */
cubex_tar_writer *cubex_tar_writer_open_fp(FILE *fp, const char *name, cube_status *status);
cubex_tar_writer *cubex_tar_writer_open_fd(int fd, const char *name, cube_status *status);

/* A member of `size` bytes: begin, write exactly `size` bytes in any
 * number of pieces, end.  With size CUBEX_SIZE_UNKNOWN the header is
 * written again by end with the size written, which needs a seekable
 * output.  All return 0, or -1 with status set (CUBE_EINVAL: a name of
 * more than 100 bytes, more or fewer bytes than announced, a call out of
 * order; CUBE_EIO: the output failed). */
#define CUBEX_SIZE_UNKNOWN UINT64_MAX
int cubex_tar_begin(cubex_tar_writer *w, const char *member, uint64_t size, int64_t mtime,
                    cube_status *status);
int cubex_tar_write(cubex_tar_writer *w, const void *data, size_t n, cube_status *status);
int cubex_tar_end(cubex_tar_writer *w, cube_status *status);
/* begin, write and end in one. */
int cubex_tar_add(cubex_tar_writer *w, const char *member, const void *data, size_t n,
                  int64_t mtime, cube_status *status);
/* The two zero blocks that end an archive, and a flush of fp. */
int cubex_tar_finish(cubex_tar_writer *w, cube_status *status);
/* Bytes written so far. */
uint64_t cubex_tar_writer_offset(const cubex_tar_writer *w);
void cubex_tar_writer_free(cubex_tar_writer *w);

#endif
