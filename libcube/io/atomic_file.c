/*
 * atomic_file.c - the temporary file and the rename behind every output
 * written to a path (see atomic_file_private.h).
 */
#define _GNU_SOURCE
#include "io/atomic_file_private.h"
#include "io/temp_files_private.h"
#include "cube.h"
#include "core/status_private.h"
#include "io/xml_out_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process's umask, read without changing it: umask(2) can only be
 * read by setting it, which would race with other threads creating files.
 * Linux (4.7 and later) shows it in /proc/self/status; 022, the usual
 * value, when that cannot be read. */
static mode_t current_umask(void)
{
    mode_t mask = 022;
    FILE *fp = fopen("/proc/self/status", "re");
    if (!fp)
        return mask;
    char line[256];
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, "Umask:", 6) == 0) {
            char *end;
            unsigned long v = strtoul(line + 6, &end, 8);
            if (end != line + 6 && v <= 0777)
                mask = (mode_t)v;
            break;
        }
    }
    fclose(fp);
    return mask;
}

/* Create the temporary file for `path` ("PATH.tmp.XXXXXX", registered in
 * temp_files_private.h so that a signal handler can remove it), with the mode the
 * output will have (that of the file it replaces, or 0666 less the
 * umask).  Returns its descriptor and sets *tmp, or -1 with the message
 * ("out of memory" or "PATH: cannot create the output: ...") in `err`. */
static int atomic_file_create(const char *path, temp_file **tmp_out, cube_status *status)
{
    size_t n = strlen(path);
    char *name = malloc(n + 16);
    if (!name) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        return -1;
    }
    snprintf(name, n + 16, "%s.tmp.XXXXXX", path);
    temp_file *tmp;
    int fd = temp_file_create(name, &tmp);
    int saved = errno;
    free(name);
    if (fd < 0) {
        if (saved == ENOMEM)
            status_set(status, CUBE_ENOMEM, "out of memory");
        else
            status_set(status, status_code_of_errno(saved), "%s: cannot create the output: %s",
                       path, strerror(saved));
        return -1;
    }
    /* mkstemp makes the file private (0600); an output gets the mode of the
     * file it replaces, or the mode open(2) would give a new file: 0666
     * less the umask. */
    struct stat st;
    mode_t mode = stat(path, &st) == 0 ? (st.st_mode & 07777) : (0666 & ~current_umask());
    fchmod(fd, mode);
    *tmp_out = tmp;
    return fd;
}

/* Sync the written, closed temporary file and rename it over `path`.  0,
 * or -1 with "PATH: cannot replace the output: ..." in `err` (the
 * temporary file is then removed).  Releases `tmp` in both cases. */
static int atomic_file_commit(temp_file *tmp, const char *path, cube_status *status)
{
    int rc = 0;
    const char *name = temp_file_path(tmp);
    int sync_fd = open(name, O_RDONLY | O_CLOEXEC);
    if (sync_fd >= 0) {
        fsync(sync_fd);
        close(sync_fd);
    }
    /* the name stays registered until the rename: a signal before it
     * removes the file, one after it finds nothing to remove */
    if (rename(name, path) != 0) {
        status_set(status, status_code_of_errno(errno), "%s: cannot replace the output: %s",
                   path, strerror(errno));
        unlink(name);
        rc = -1;
    }
    temp_file_release(tmp);
    return rc;
}

/* Remove the temporary file after a failed write and release it. */
static void atomic_file_abort(temp_file *tmp)
{
    if (!tmp)
        return;
    unlink(temp_file_path(tmp));
    temp_file_release(tmp);
}

/* The descriptor an output at `path` (not "-") is written into: an
 * existing file that is not a regular one (a FIFO, a terminal, /dev/null)
 * in place, since renaming a file over it would replace the device or the
 * pipe, with *tmp NULL; anything else a temporary file (*tmp set).  -1 with
 * the message in `err` when it cannot be opened. */
static int open_target(const char *path, temp_file **tmp, cube_status *status)
{
    *tmp = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0)
            status_set(status, status_code_of_errno(errno), "%s: cannot open the output: %s",
                       path, strerror(errno));
        return fd;
    }
    return atomic_file_create(path, tmp, status);
}

/* Produce into an open descriptor (closed here): 0, -1 producer failed,
 * -2 output failed (message in err). */
static int produce_into_fd(int fd, int gzip, const char *gz_mode, const char *name,
                           output_producer produce, void *ctx, cube_status *status)
{
    xml_out *o = malloc(sizeof *o);
    if (!o) {
        close(fd);
        status_set(status, CUBE_ENOMEM, "%s: out of memory", name);
        return -2;
    }
    int rc = 0;
    if (gzip) {
        gzFile gz = gzdopen(fd, gz_mode);
        if (!gz) {
            close(fd);
            status_set(status, CUBE_ENOMEM, "%s: out of memory", name);
            free(o);
            return -2;
        }
        out_init_gz(o, gz);
        rc = produce(ctx, o) != 0 ? -1 : 0;
        if (out_drain(o) != 0 && rc == 0) {
            status_set(status, CUBE_EIO, "%s: write failed: %s", name, o->error);
            rc = -2;
        }
        int zrc = gzclose(gz);
        if (zrc != Z_OK && rc == 0) {
            status_set(status, status_code_of_errno(errno), "%s: write failed: %s", name,
                     zrc == Z_ERRNO ? strerror(errno) : "gzip error");
            rc = -2;
        }
    } else {
        FILE *fp = fdopen(fd, "wb");
        if (!fp) {
            close(fd);
            status_set(status, status_code_of_errno(errno), "%s: %s", name, strerror(errno));
            free(o);
            return -2;
        }
        out_init_file(o, fp);
        rc = produce(ctx, o) != 0 ? -1 : 0;
        if (out_flush(o) != 0 && rc == 0) {
            status_set(status, CUBE_EIO, "%s: write failed: %s", name, o->error);
            rc = -2;
        }
        if (fclose(fp) != 0 && rc == 0) {
            status_set(status, status_code_of_errno(errno), "%s: write failed: %s", name,
                       strerror(errno));
            rc = -2;
        }
    }
    free(o);
    return rc;
}

int output_to_path(const char *path, int gzip, const char *gz_mode, output_producer produce,
                   void *ctx, cube_status *status)
{
    if (strcmp(path, "-") == 0) {
        int fd = fcntl(1, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) {
            status_set(status, status_code_of_errno(errno), "-: %s", strerror(errno));
            return -2;
        }
        return produce_into_fd(fd, gzip, gz_mode, "-", produce, ctx, status);
    }
    temp_file *tmp;
    int fd = open_target(path, &tmp, status);
    if (fd < 0)
        return -2;
    int rc = produce_into_fd(fd, gzip, gz_mode, path, produce, ctx, status);
    if (!tmp)
        return rc;
    if (rc != 0) {
        atomic_file_abort(tmp);
        return rc;
    }
    return atomic_file_commit(tmp, path, status) == 0 ? 0 : -2;
}

/* ------------------------------------------------------------------------
 * cube_output_open: the same for a stream the program writes itself.
 * ------------------------------------------------------------------------ */

struct cube_output {
    FILE *fp;
    char *path;     /* NULL for standard output */
    temp_file *tmp; /* NULL when written in place */
};

cube_output *cube_output_open(const char *path, cube_status *status)
{
    if (!path) {
        status_set(status, CUBE_EINVAL, "cube_output_open needs a path");
        return NULL;
    }
    cube_output *out = calloc(1, sizeof *out);
    if (!out) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        return NULL;
    }
    if (strcmp(path, "-") == 0) {
        out->fp = stdout;
        status_ok(status);
        return out;
    }
    out->path = strdup(path);
    if (!out->path) {
        status_set(status, CUBE_ENOMEM, "out of memory");
        free(out);
        return NULL;
    }
    int fd = open_target(path, &out->tmp, status);
    if (fd < 0) {
        /* status set by open_target */
    } else if (!(out->fp = fdopen(fd, "w"))) {
        status_set(status, status_code_of_errno(errno), "%s: cannot open the output: %s",
                   path, strerror(errno));
        close(fd);
        atomic_file_abort(out->tmp);
    }
    if (!out->fp) {
        free(out->path);
        free(out);
        return NULL;
    }
    status_ok(status);
    return out;
}

FILE *cube_output_stream(const cube_output *out)
{
    return out->fp;
}

int cube_output_close(cube_output *out, int commit, cube_status *status)
{
    status_ok(status);
    if (!out)
        return 0;
    int rc = 0;
    if (out->fp == stdout) {
        if ((fflush(stdout) != 0 || ferror(stdout)) && commit) {
            status_set(status, status_code_of_errno(errno), "cannot write to standard output: %s",
                       strerror(errno));
            rc = -1;
        }
    } else {
        int bad = ferror(out->fp);
        int saved = errno;
        if (fclose(out->fp) != 0 && !bad) {
            bad = 1;
            saved = errno;
        }
        if (bad && commit) {
            status_set(status, status_code_of_errno(saved), "%s: write failed: %s", out->path,
                       saved ? strerror(saved) : "input/output error");
            rc = -1;
        }
        if (out->tmp) {
            if (commit && rc == 0) {
                if (atomic_file_commit(out->tmp, out->path, status) != 0)
                    rc = -1;
            } else {
                atomic_file_abort(out->tmp);
            }
        }
    }
    free(out->path);
    free(out);
    return rc;
}
