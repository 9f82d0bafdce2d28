/*
 * fuzz_common.h - what the libFuzzer harnesses share: the fuzz input as a
 * file (the readers take paths).  Each harness defines
 * fuzz_one_<name>(data, size), the entry point that the regression test
 * (tests/unit/test_fuzz_regressions.c) calls too; LLVMFuzzerTestOneInput
 * is defined unless FUZZ_REGRESSION is.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

static char fuzz_tmpdir_name[64];

/* At exit: the temporary directory and what the harness left in it. */
static void fuzz_tmpdir_remove(void)
{
    DIR *d = opendir(fuzz_tmpdir_name);
    if (d) {
        struct dirent *e;
        char path[384];
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') {
                snprintf(path, sizeof path, "%s/%s", fuzz_tmpdir_name, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(fuzz_tmpdir_name);
}

/* A private temporary directory for this process (made once). */
static inline const char *fuzz_tmpdir(void)
{
    char *dir = fuzz_tmpdir_name;
    if (!dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(dir, sizeof fuzz_tmpdir_name, "%s/cubefuzz.XXXXXX",
                 base && *base && strlen(base) < 40 ? base : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            abort();
        }
        atexit(fuzz_tmpdir_remove);
    }
    return dir;
}

/* Write data to <tmpdir>/<name> (replacing it); the path is in path[]. */
static inline void fuzz_write_file(const char *name, const uint8_t *data, size_t size, char *path,
                            size_t pathlen)
{
    snprintf(path, pathlen, "%s/%s", fuzz_tmpdir(), name);
    FILE *fp = fopen(path, "wb");
    if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp) != 0) {
        perror(path);
        abort();
    }
}

#endif
