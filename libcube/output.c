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
#include "writer.h"
#include "atomic_file.h"

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

/* Write to an already open descriptor; closes it.  0 or -1. */
static int write_fd(cube_t *c, int fd, int gzip, const char *name)
{
    xml_out *o = malloc(sizeof *o);
    if (!o) {
        close(fd);
        cube_set_error(c, "out of memory");
        return -1;
    }
    int rc = -1;
    if (gzip) {
        /* level 1: on these files (mostly digits) level 6 saves about 8% of the
         * size for 4 to 5 times the time */
        gzFile gz = gzdopen(fd, "wb1");
        if (!gz) {
            close(fd);
            cube_set_error(c, "%s: out of memory", name);
        } else {
            out_init_gz(o, gz);
            rc = cube_write_to(c, o);
            int zrc = gzclose(gz);
            if (rc == 0 && zrc != Z_OK) {
                cube_set_error(c, "%s: write failed: %s", name,
                               zrc == Z_ERRNO ? strerror(errno) : "gzip error");
                rc = -1;
            }
        }
    } else {
        FILE *fp = fdopen(fd, "wb");
        if (!fp) {
            close(fd);
            cube_set_error(c, "%s: %s", name, strerror(errno));
        } else {
            out_init_file(o, fp);
            rc = cube_write_to(c, o);
            if (fclose(fp) != 0 && rc == 0) {
                cube_set_error(c, "%s: write failed: %s", name, strerror(errno));
                rc = -1;
            }
        }
    }
    free(o);
    if (rc != 0 && strncmp(cube_error(c), name, strlen(name)) != 0) {
        char msg[sizeof c->error];
        snprintf(msg, sizeof msg, "%s", cube_error(c));
        cube_set_error(c, "%s: %s", name, msg);
    }
    return rc;
}

int cube_write_file(cube_t *c, const char *path, unsigned flags)
{
    if (!c)
        return -1;
    int gzip = (flags & CUBE_WRITE_GZIP) || ends_with(path, ".gz");
    if (strcmp(path, "-") == 0) {
        int fd = dup(1);
        if (fd < 0) {
            cube_set_error(c, "-: %s", strerror(errno));
            return -1;
        }
        return write_fd(c, fd, gzip, "-");
    }

    char *tmp, err[sizeof c->error];
    int fd = atomic_file_create(path, &tmp, err, sizeof err);
    if (fd < 0) {
        cube_set_error(c, "%s", err);
        return -1;
    }
    int rc = write_fd(c, fd, gzip, path);
    if (rc != 0) {
        atomic_file_abort(tmp);
    } else if (atomic_file_commit(tmp, path, err, sizeof err) != 0) {
        cube_set_error(c, "%s", err);
        rc = -1;
    }
    return rc;
}
