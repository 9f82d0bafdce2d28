/*
 * cube_rw.c - the reader and the writer of libcube alone, for the
 * benchmarks: no text output to dominate the time.
 *
 *   cube_rw read FILE
 *       cube_read, then every value of every row is added up (so that
 *       each one is touched); prints rows, values and the sum.
 *   cube_rw defs FILE
 *       the definitions alone (cube_reader_open, no row read): the part of
 *       a read that does not depend on the values, and its memory.
 *   cube_rw slurp FILE
 *       the file's bytes read into one block of fresh memory (read(2) in
 *       pieces of a MiB), then every 8-byte word added up: the floor of
 *       any reader that keeps the values in memory (the kernel copies
 *       every byte and gives the process a zeroed page for every 4 KiB),
 *       where `cat FILE >/dev/null` reuses one small buffer.
 *   cube_rw write [-z] [-r RUNS] IN OUT
 *       cube_read IN once, then cube_write_file OUT (CUBE_WRITE_GZIP with
 *       -z) RUNS times (default 1); prints the median wall seconds of one
 *       write alone, which is what the bound on writing is about (the
 *       reading before it is measured on its own).
 *
 * Exit status 0, or 2 with one line on stderr.  Built by the Makefile as
 * build/perf/cube_rw against the static library.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "cube.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static cube_t *read_or_die(const char *path)
{
    cube_t *c = cube_create();
    if (!c) {
        fprintf(stderr, "cube_rw: out of memory\n");
        exit(2);
    }
    if (cube_read(c, path) != 0) {
        fprintf(stderr, "cube_rw: %s\n", cube_error(c));
        cube_free(c);
        exit(2);
    }
    return c;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int usage(void)
{
    fprintf(stderr, "usage: cube_rw read FILE | cube_rw defs FILE | cube_rw slurp FILE | "
                    "cube_rw write [-z] [-r RUNS] IN OUT\n");
    return 2;
}

static int slurp(const char *path)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "cube_rw: %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return 2;
    }
    size_t size = (size_t)st.st_size, got = 0;
    unsigned char *data = malloc(size + 8);
    if (!data) {
        fprintf(stderr, "cube_rw: out of memory\n");
        close(fd);
        return 2;
    }
    while (got < size) {
        size_t want = size - got < ((size_t)1 << 20) ? size - got : (size_t)1 << 20;
        ssize_t n = read(fd, data + got, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fprintf(stderr, "cube_rw: %s: %s\n", path, n < 0 ? strerror(errno) : "shorter than its size");
            free(data);
            close(fd);
            return 2;
        }
        got += (size_t)n;
    }
    close(fd);
    memset(data + size, 0, 8);
    uint64_t sum = 0;
    for (size_t i = 0; i < size; i += 8) {
        uint64_t w;
        memcpy(&w, data + i, 8);
        sum += w;
    }
    printf("bytes %zu sum %llu\n", size, (unsigned long long)sum);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "read") == 0) {
        cube_t *c = read_or_die(argv[2]);
        size_t nrows = cube_num_rows(c), nthreads = cube_num_threads(c);
        double sum = 0;
        for (size_t i = 0; i < nrows; i++) {
            const double *v = cube_row_at(c, i, NULL, NULL);
            for (size_t k = 0; k < nthreads; k++)
                sum += v[k];
        }
        printf("rows %zu values %zu sum %.17g\n", nrows, nrows * nthreads, sum);
        cube_free(c);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "defs") == 0) {
        cube_reader *r = cube_reader_open(argv[2]);
        const cube_t *c = r ? cube_reader_definitions(r) : NULL;
        if (!c) {
            fprintf(stderr, "cube_rw: %s\n", r ? cube_reader_error(r) : "out of memory");
            cube_reader_close(r);
            return 2;
        }
        printf("metrics %zu cnodes %zu threads %zu\n", cube_num_metrics(c), cube_num_cnodes(c),
               cube_num_threads(c));
        cube_reader_close(r);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "slurp") == 0)
        return slurp(argv[2]);
    if (argc < 4 || strcmp(argv[1], "write") != 0)
        return usage();
    unsigned flags = 0;
    long runs = 1;
    int a = 2;
    for (; a < argc - 2; a++) {
        if (strcmp(argv[a], "-z") == 0)
            flags |= CUBE_WRITE_GZIP;
        else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc - 2)
            runs = strtol(argv[++a], NULL, 10);
        else
            return usage();
    }
    if (a != argc - 2 || runs < 1 || runs > 100)
        return usage();
    cube_t *c = read_or_die(argv[a]);
    double *s = malloc((size_t)runs * sizeof *s);
    if (!s) {
        fprintf(stderr, "cube_rw: out of memory\n");
        cube_free(c);
        return 2;
    }
    for (long r = 0; r < runs; r++) {
        double t0 = now();
        if (cube_write_file(c, argv[a + 1], flags) != 0) {
            fprintf(stderr, "cube_rw: %s: %s\n", argv[a + 1], cube_error(c));
            free(s);
            cube_free(c);
            return 2;
        }
        s[r] = now() - t0;
    }
    qsort(s, (size_t)runs, sizeof *s, cmp_double);
    double median = runs % 2 ? s[runs / 2] : (s[runs / 2 - 1] + s[runs / 2]) / 2;
    printf("%.4f\n", median);
    free(s);
    cube_free(c);
    return 0;
}
