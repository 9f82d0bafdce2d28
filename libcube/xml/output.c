/*
 * output.c - writing an experiment to a path atomically.
 *
 * The data goes to a temporary file in the target's directory (so that the
 * final rename stays within one file system and is atomic), is flushed to
 * disk, and only then replaces the target.  On any error the temporary file
 * is removed: no partial output, and an existing file stays as it was
 * (atomic_file.c, shared with the statistics-file writer).
 */
#define _GNU_SOURCE
#include "xml/writer_private.h"
#include "io/atomic_file_private.h"
#include "cubex/write_private.h"
#include "core/cube_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

typedef struct {
    cube_t *c;
    cube_row_source next;
    void *ctx;
    const char *path;
    unsigned flags;
} experiment_job;

static int produce_experiment(void *ctx, xml_out *o)
{
    experiment_job *job = ctx;
    return cube_write_rows_to(job->c, o, job->next, job->ctx);
}

/* A CUBE 4 archive is binary and never compressed as a whole: it goes to
 * the sink's stream directly. */
static int produce_archive(void *ctx, xml_out *o)
{
    experiment_job *job = ctx;
    if (out_flush(o) != 0 || !o->fp) {
        cube_set_error(job->c, CUBE_EIO, "write failed: %s", o->error);
        return -1;
    }
    return cubex_write_experiment(job->c, o->fp, job->path, job->flags, job->next, job->ctx,
                                  &job->c->status);
}

cube_format cube_write_format(const char *path, unsigned flags)
{
    if (flags & CUBE_WRITE_CUBE4)
        return CUBE_FORMAT_CUBE4;
    if (flags & CUBE_WRITE_CUBE3)
        return CUBE_FORMAT_CUBE3;
    return path && ends_with(path, ".cubex") ? CUBE_FORMAT_CUBE4 : CUBE_FORMAT_CUBE3;
}

int cube_write_file(cube_t *c, const char *path, unsigned flags)
{
    return cube_write_file_rows(c, path, flags, NULL, NULL);
}

int cube_write_file_rows(cube_t *c, const char *path, unsigned flags, cube_row_source next,
                         void *ctx)
{
    if (!c)
        return -1;
    cube_clear_error(c);
    if (!path) {
        cube_set_error(c, CUBE_EINVAL, "cube_write_file needs a path");
        return -1;
    }
    experiment_job job = {c, next, ctx, path, flags};
    int rc;
    if (cube_write_format(path, flags) == CUBE_FORMAT_CUBE4) {
        rc = output_to_path(path, 0, "wb", produce_archive, &job, &c->status);
    } else {
        int gzip = (flags & CUBE_WRITE_GZIP) || ends_with(path, ".gz");
        /* level 1: on these files (mostly digits) level 6 saves about 8% of
         * the size for 4 to 5 times the time */
        rc = output_to_path(path, gzip, "wb1", produce_experiment, &job, &c->status);
    }
    if (rc == -1 && strncmp(cube_error(c), path, strlen(path)) != 0) {
        /* the writer's own message ("cannot write a non-finite value ..."):
         * say which output it was */
        cube_status own = c->status;
        cube_set_error(c, own.code, "%s: %s", path, own.message);
    }
    return rc == 0 ? 0 : -1;
}
