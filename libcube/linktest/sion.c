/*
 * sion.c - SIONlib container reader (see sion_private.h; the container's
 * layout is in linktest-sion(5)).
 */
#include "linktest/sion_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define META1_FIXED 1076u /* up to the globalrank array */

typedef struct {
    char *name;
    int fd;
    uint64_t size;
    int be;
    int32_t fileformat, fsblksize, nfiles, filenumber;
    uint64_t n;
    int64_t *globalrank;
    uint64_t *chunksize, *startptr;
    uint64_t globalskip;
    uint64_t maxchunks;
    uint64_t sov; /* start of META2 */
    uint64_t *blockcount;
    uint64_t *bytes; /* [b*n + t] */
    int unclosed;    /* no META2: block 0 of each chunk, best effort */
    uint64_t mapping_off; /* file 0 of a set: where mapping_size is */
} sion_file;

struct sion_set {
    sion_file *files;
    int nfiles;
    size_t ntasks;
    size_t *map_file, *map_task; /* per global rank */
};


static uint32_t get32(const unsigned char *p, int be)
{
    return be ? ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3])
              : ((uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]);
}

static uint64_t get64(const unsigned char *p, int be)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[be ? i : 7 - i];
    return v;
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t r = pread(fd, p, len, (off_t)off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            return -1;
        p += r;
        len -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

/* Read `len` bytes at `off`, checked against the file size. */
static int rd(const sion_file *f, void *buf, size_t len, uint64_t off, const char *field,
              cube_status *st)
{
    if (off > f->size || len > f->size - off) {
        status_set(st, CUBE_EFORMAT,
                   "%s: offset %llu: %s: %zu bytes needed, file has %llu (truncated)", f->name,
                   (unsigned long long)off, field, len, (unsigned long long)f->size);
        return -1;
    }
    if (pread_all(f->fd, buf, len, off) != 0) {
        status_set(st, CUBE_EIO, "%s: offset %llu: %s: read error", f->name,
                   (unsigned long long)off, field);
        return -1;
    }
    return 0;
}

static void file_free(sion_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    free(f->name);
    free(f->globalrank);
    free(f->chunksize);
    free(f->startptr);
    free(f->blockcount);
    free(f->bytes);
}

/* Read an array of n 8-byte fields at off. */
static int rd64s(const sion_file *f, uint64_t *out, uint64_t n, uint64_t off, const char *field,
                 cube_status *st)
{
    if (n == 0)
        return 0;
    unsigned char *buf = malloc((size_t)n * 8);
    if (!buf) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", f->name);
        return -1;
    }
    if (rd(f, buf, (size_t)n * 8, off, field, st) != 0) {
        free(buf);
        return -1;
    }
    for (uint64_t i = 0; i < n; i++)
        out[i] = get64(buf + 8 * i, f->be);
    free(buf);
    return 0;
}

/* Open the file, keep its name for the messages, and take its size. */
static int file_open_fd(sion_file *f, const char *name, cube_status *st)
{
    f->name = malloc(strlen(name) + 1);
    if (!f->name) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", name);
        return -1;
    }
    strcpy(f->name, name);
    f->fd = open(name, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) {
        int errnum = errno;
        status_set(st, status_code_of_errno(errnum), "%s: cannot open: %s", name, strerror(errnum));
        return -1;
    }
    struct stat sb;
    if (fstat(f->fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        status_set(st, CUBE_EIO, "%s: not a regular file", name);
        return -1;
    }
    f->size = (uint64_t)sb.st_size;
    return 0;
}

/* The fixed part of metadata block 1: magic, byte order, format, block
 * size, the number of tasks and files, this file's number (`filenumber`
 * expected), and the key-value flag, each checked. */
static int read_header(sion_file *f, int filenumber, cube_status *st)
{
    const char *name = f->name;
    unsigned char h[META1_FIXED];
    if (rd(f, h, 8, 0, "magic \"sion\"", st) != 0)
        return -1;
    if (memcmp(h, "sion", 4) != 0) {
        status_set(st, CUBE_EFORMAT, "%s: offset 0: magic: not a SIONlib file (expected \"sion\")",
                   name);
        return -1;
    }
    f->be = h[4] & 1;
    if (rd(f, h, META1_FIXED, 0, "SIONlib metadata block 1", st) != 0)
        return -1;
    f->fileformat = (int32_t)get32(h + 16, f->be);
    f->fsblksize = (int32_t)get32(h + 20, f->be);
    int32_t n = (int32_t)get32(h + 24, f->be);
    f->nfiles = (int32_t)get32(h + 28, f->be);
    f->filenumber = (int32_t)get32(h + 32, f->be);
    uint64_t flag1 = get64(h + 36, f->be);
    if (f->fileformat < 3 || f->fileformat > 5) {
        status_set(st, CUBE_EUNSUPPORTED, "%s: offset 16: fileformat: %d is not supported (3 to 5)",
                   name, (int)f->fileformat);
        return -1;
    }
    if (f->fsblksize <= 0) {
        status_set(st, CUBE_EFORMAT, "%s: offset 20: fsblksize: %d is not positive", name,
                   (int)f->fsblksize);
        return -1;
    }
    if (n <= 0 || (uint64_t)n > (f->size - META1_FIXED) / 16) {
        status_set(st, CUBE_EFORMAT,
                   "%s: offset 24: ntasks: %d does not fit in a file of %llu bytes", name, (int)n,
                   (unsigned long long)f->size);
        return -1;
    }
    f->n = (uint64_t)n;
    if (f->nfiles <= 0 || f->nfiles > 1000000) {
        status_set(st, CUBE_EFORMAT, "%s: offset 28: nfiles: %d is out of range", name,
                   (int)f->nfiles);
        return -1;
    }
    /* (a single file written through the serial API says 1 here) */
    if (f->nfiles > 1 && f->filenumber != filenumber) {
        status_set(st, CUBE_EFORMAT, "%s: offset 32: filenumber: %d, expected %d", name,
                   (int)f->filenumber, filenumber);
        return -1;
    }
    if (f->fileformat == 5) {
        uint32_t keyval = (uint32_t)(flag1 >> 32);
        if (keyval != 50 && keyval != 0) {
            status_set(st, CUBE_EUNSUPPORTED,
                       "%s: offset 36: flag1: key-value mode %u is not supported", name,
                       (unsigned)keyval);
            return -1;
        }
    }
    return 0;
}

/* The per-task tables of metadata block 1 (global ranks, chunk sizes),
 * then maxchunks and where metadata block 2 starts; `start_of_data`: the
 * first block boundary after block 1. */
static int read_chunk_tables(sion_file *f, uint64_t *start_of_data, cube_status *st)
{
    const char *name = f->name;
    f->globalrank = malloc((size_t)f->n * sizeof *f->globalrank);
    f->chunksize = malloc((size_t)f->n * sizeof *f->chunksize);
    f->startptr = malloc((size_t)f->n * sizeof *f->startptr);
    f->blockcount = malloc((size_t)f->n * sizeof *f->blockcount);
    if (!f->globalrank || !f->chunksize || !f->startptr || !f->blockcount) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", name);
        return -1;
    }
    if (rd64s(f, (uint64_t *)f->globalrank, f->n, META1_FIXED, "globalrank", st) != 0 ||
        rd64s(f, f->chunksize, f->n, META1_FIXED + 8 * f->n, "chunksize", st) != 0)
        return -1;
    unsigned char h[12];
    uint64_t tail_off = META1_FIXED + 16 * f->n;
    if (rd(f, h, 12, tail_off, "maxchunks/start_of_varheader", st) != 0)
        return -1;
    int32_t maxchunks = (int32_t)get32(h, f->be);
    f->sov = get64(h + 4, f->be);
    uint64_t fsb = (uint64_t)f->fsblksize;
    uint64_t meta1 = META1_FIXED + 16 * f->n + 12;
    *start_of_data = (meta1 + fsb - 1) / fsb * fsb;
    if (f->sov == 0) {
        /* The writer never closed the file: no block counts, no byte
         * counts.  Take each task's chunk in block 0 as far as the file
         * goes; the payload parser finds where the stream ends. */
        f->unclosed = 1;
        f->sov = f->size;
        maxchunks = 1;
    } else if (maxchunks < 0 || f->sov < *start_of_data || f->sov > f->size ||
               (uint64_t)maxchunks + 1 > (f->size - f->sov) / 8 / f->n) {
        status_set(
            st, CUBE_EFORMAT,
            "%s: offset %llu: maxchunks/start_of_varheader: maxchunks %d and metadata at %llu "
            "do not fit in a file of %llu bytes",
            name, (unsigned long long)tail_off, (int)maxchunks, (unsigned long long)f->sov,
            (unsigned long long)f->size);
        return -1;
    }
    f->maxchunks = (uint64_t)maxchunks;
    return 0;
}

/* Where each task's chunk of block 0 starts: the chunks lie back to back
 * from start_of_data (format 3 rounds each up to the block size); a block
 * spans them all (globalskip). */
static int lay_out_chunks(sion_file *f, uint64_t start_of_data, cube_status *st)
{
    uint64_t fsb = (uint64_t)f->fsblksize;
    uint64_t pos = start_of_data;
    for (uint64_t t = 0; t < f->n; t++) {
        uint64_t L = f->chunksize[t];
        if (f->fileformat <= 3 && L <= f->size)
            L = (L + fsb - 1) / fsb * fsb;
        if (f->unclosed && (L > f->size || pos > f->size - L))
            L = pos < f->size ? f->size - pos : 0; /* the file ends inside */
        if (L > f->sov || pos > f->sov - L) {
            status_set(st, CUBE_EFORMAT,
                       "%s: offset %llu: chunksize[%llu]: %llu runs past the data area", f->name,
                       (unsigned long long)(META1_FIXED + 8 * f->n + 8 * t), (unsigned long long)t,
                       (unsigned long long)f->chunksize[t]);
            return -1;
        }
        f->startptr[t] = pos;
        f->chunksize[t] = L;
        pos += L;
    }
    f->globalskip = pos - start_of_data;
    return 0;
}

/* An unclosed file: one block per task, its whole chunk. */
static int assume_one_block(sion_file *f, cube_status *st)
{
    f->bytes = malloc((size_t)f->n * 8);
    if (!f->bytes) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", f->name);
        return -1;
    }
    for (uint64_t t = 0; t < f->n; t++) {
        f->blockcount[t] = 1;
        f->bytes[t] = f->chunksize[t];
    }
    return 0;
}

/* Metadata block 2: the blocks per task and the bytes written in each
 * block, checked against the chunks; `end`: the offset after it. */
static int read_meta2(sion_file *f, uint64_t *end, cube_status *st)
{
    if (rd64s(f, f->blockcount, f->n, f->sov, "blockcount", st) != 0)
        return -1;
    uint64_t nb = f->maxchunks * f->n;
    f->bytes = malloc(nb ? (size_t)nb * 8 : 1);
    if (!f->bytes) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", f->name);
        return -1;
    }
    uint64_t bytes_off = f->sov + 8 * f->n;
    if (rd64s(f, f->bytes, nb, bytes_off, "bytes written", st) != 0)
        return -1;
    for (uint64_t t = 0; t < f->n; t++) {
        if (f->blockcount[t] > f->maxchunks) {
            status_set(st, CUBE_EFORMAT,
                       "%s: offset %llu: blockcount[%llu]: %llu exceeds maxchunks %llu", f->name,
                       (unsigned long long)(f->sov + 8 * t), (unsigned long long)t,
                       (unsigned long long)f->blockcount[t], (unsigned long long)f->maxchunks);
            return -1;
        }
        for (uint64_t b = 0; b < f->blockcount[t]; b++) {
            uint64_t v = f->bytes[b * f->n + t];
            uint64_t start = f->startptr[t] + b * f->globalskip;
            if (v > f->chunksize[t] || start > f->sov || v > f->sov - start) {
                status_set(
                    st, CUBE_EFORMAT,
                    "%s: offset %llu: bytes written[block %llu][task %llu]: %llu does not fit "
                    "in its chunk of %llu bytes at %llu",
                    f->name, (unsigned long long)(bytes_off + 8 * (b * f->n + t)),
                    (unsigned long long)b, (unsigned long long)t, (unsigned long long)v,
                    (unsigned long long)f->chunksize[t], (unsigned long long)start);
                return -1;
            }
        }
    }
    *end = bytes_off + 8 * nb;
    return 0;
}

/* File 0 of a multi-file set: the mapping of global ranks to (file,
 * task) after metadata block 2 at *end, which moves past it. */
static int read_mapping(sion_file *f, uint64_t *end, int32_t **mapping, int32_t *mapping_size,
                        cube_status *st)
{
    unsigned char h[4];
    f->mapping_off = *end;
    if (rd(f, h, 4, *end, "mapping_size", st) != 0)
        return -1;
    int32_t ms = (int32_t)get32(h, f->be);
    if (ms <= 0 || (uint64_t)ms > (f->size - *end - 4) / 8) {
        status_set(st, CUBE_EFORMAT, "%s: offset %llu: mapping_size: %d does not fit in the file",
                   f->name, (unsigned long long)*end, (int)ms);
        return -1;
    }
    int32_t *m = malloc((size_t)ms * 2 * sizeof *m);
    unsigned char *buf = malloc((size_t)ms * 8);
    if (!m || !buf) {
        free(m);
        free(buf);
        status_set(st, CUBE_ENOMEM, "%s: out of memory", f->name);
        return -1;
    }
    if (rd(f, buf, (size_t)ms * 8, *end + 4, "mapping", st) != 0) {
        free(m);
        free(buf);
        return -1;
    }
    for (int32_t i = 0; i < 2 * ms; i++)
        m[i] = (int32_t)get32(buf + 4 * i, f->be);
    free(buf);
    *mapping = m;
    *mapping_size = ms;
    *end += 4 + 8 * (uint64_t)ms;
    return 0;
}

/* Open one physical file and read both metadata blocks.  `mapping` is set
 * (allocated) for file 0 of a multi-file set. */
static int file_open(sion_file *f, const char *name, int filenumber, int32_t **mapping,
                     int32_t *mapping_size, cube_status *st)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    uint64_t start_of_data;
    if (file_open_fd(f, name, st) != 0 || read_header(f, filenumber, st) != 0 ||
        read_chunk_tables(f, &start_of_data, st) != 0 || lay_out_chunks(f, start_of_data, st) != 0)
        return -1;
    if (f->unclosed) {
        if (assume_one_block(f, st) != 0)
            return -1;
        *mapping_size = 0;
        return 0;
    }
    uint64_t end;
    if (read_meta2(f, &end, st) != 0)
        return -1;
    *mapping_size = 0;
    if (f->nfiles > 1 && f->filenumber == 0) {
        if (read_mapping(f, &end, mapping, mapping_size, st) != 0)
            return -1;
    } else if (f->size == end + 4) {
        /* serial API: an i32 mapping_size = 0 follows META2 */
        unsigned char h[4];
        if (rd(f, h, 4, end, "mapping_size", st) != 0)
            return -1;
        if (get32(h, f->be) != 0) {
            status_set(st, CUBE_EFORMAT, "%s: offset %llu: mapping_size: non-zero in a single file",
                       name, (unsigned long long)end);
            return -1;
        }
        end += 4;
    }
    if (end != f->size) {
        status_set(
            st, CUBE_EFORMAT,
            "%s: offset %llu: end of metadata block 2: the file has %llu bytes, the metadata "
            "says %llu",
            name, (unsigned long long)end, (unsigned long long)f->size, (unsigned long long)end);
        return -1;
    }
    return 0;
}

void sion_set_close(sion_set *s)
{
    if (!s)
        return;
    if (s->files)
        for (int i = 0; i < s->nfiles; i++)
            file_free(&s->files[i]);
    free(s->files);
    free(s->map_file);
    free(s->map_task);
    free(s);
}

sion_set *sion_set_open(const char *path, cube_status *st)
{
    sion_set *s = calloc(1, sizeof *s);
    int32_t *mapping = NULL, msize = 0;
    if (!s) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    s->files = calloc(1, sizeof *s->files);
    if (!s->files)
        goto oom;
    s->files[0].fd = -1;
    s->nfiles = 1;
    if (file_open(&s->files[0], path, 0, &mapping, &msize, st) != 0)
        goto fail;
    int nf = s->files[0].nfiles;
    if (nf > 1) {
        sion_file *nfs = realloc(s->files, (size_t)nf * sizeof *nfs);
        if (!nfs)
            goto oom;
        s->files = nfs;
        size_t plen = strlen(path) + 16;
        char *name = malloc(plen);
        if (!name)
            goto oom;
        for (int k = 1; k < nf; k++) {
            int32_t *m2 = NULL, ms2 = 0;
            snprintf(name, plen, "%s.%06d", path, k);
            int rc = file_open(&s->files[k], name, k, &m2, &ms2, st);
            s->nfiles = k + 1;
            free(m2);
            if (rc != 0) {
                free(name);
                goto fail;
            }
            if (s->files[k].nfiles != nf || s->files[k].filenumber != k) {
                status_set(st, CUBE_EFORMAT,
                           "%s: offset 28: nfiles/filenumber: %d/%d, expected %d/%d", name,
                           (int)s->files[k].nfiles, (int)s->files[k].filenumber, nf, k);
                free(name);
                goto fail;
            }
        }
        free(name);
    }
    size_t total = 0;
    for (int k = 0; k < s->nfiles; k++)
        total += (size_t)s->files[k].n;
    s->ntasks = total;
    s->map_file = malloc(total * sizeof *s->map_file);
    s->map_task = malloc(total * sizeof *s->map_task);
    unsigned char *seen = calloc(total, 1);
    if (!s->map_file || !s->map_task || !seen) {
        free(seen);
        goto oom;
    }
    if (s->nfiles > 1 && s->files[0].unclosed) {
        /* no mapping (it is in META2): the global ranks of each file */
        for (int k = 0; k < s->nfiles; k++)
            for (uint64_t t = 0; t < s->files[k].n; t++) {
                int64_t g = s->files[k].globalrank[t];
                if (g < 0 || (uint64_t)g >= total || seen[g]) {
                    status_set(st, CUBE_EFORMAT,
                               "%s: offset %llu: globalrank[%llu]: %lld is not a rank of the set "
                               "(the file was never closed: no mapping)",
                               s->files[k].name, (unsigned long long)(META1_FIXED + 8 * t),
                               (unsigned long long)t, (long long)g);
                    free(seen);
                    goto fail;
                }
                seen[g] = 1;
                s->map_file[g] = (size_t)k;
                s->map_task[g] = (size_t)t;
            }
    } else if (s->nfiles > 1) {
        if ((size_t)msize != total) {
            status_set(st, CUBE_EFORMAT,
                       "%s: offset %llu: mapping_size: %d, but the files hold %zu tasks", path,
                       (unsigned long long)s->files[0].mapping_off, (int)msize, total);
            free(seen);
            goto fail;
        }
        for (size_t g = 0; g < total; g++) {
            int32_t fn = mapping[2 * g], lt = mapping[2 * g + 1];
            if (fn < 0 || fn >= s->nfiles || lt < 0 || (uint64_t)lt >= s->files[fn].n) {
                status_set(st, CUBE_EFORMAT,
                           "%s: offset %llu: mapping[%zu]: (%d, %d) is not a task of the set", path,
                           (unsigned long long)(s->files[0].mapping_off + 4 + 8 * (uint64_t)g), g,
                           (int)fn, (int)lt);
                free(seen);
                goto fail;
            }
            s->map_file[g] = (size_t)fn;
            s->map_task[g] = (size_t)lt;
        }
    } else {
        /* order by globalrank when it is a permutation, else local order */
        int perm = 1;
        sion_file *f = &s->files[0];
        for (size_t t = 0; t < total; t++) {
            int64_t g = f->globalrank[t];
            if (g < 0 || (uint64_t)g >= total || seen[g]) {
                perm = 0;
                break;
            }
            seen[g] = 1;
        }
        for (size_t t = 0; t < total; t++) {
            size_t g = perm ? (size_t)f->globalrank[t] : t;
            s->map_file[g] = 0;
            s->map_task[g] = t;
        }
    }
    free(seen);
    free(mapping);
    return s;
oom:
    status_set(st, CUBE_ENOMEM, "%s: out of memory", path);
fail:
    free(mapping);
    sion_set_close(s);
    return NULL;
}

size_t sion_set_ntasks(const sion_set *s) { return s->ntasks; }
int sion_set_nfiles(const sion_set *s) { return s->nfiles; }
int32_t sion_set_fsblksize(const sion_set *s) { return s->files[0].fsblksize; }
int sion_set_big_endian(const sion_set *s) { return s->files[0].be; }

int sion_set_unclosed(const sion_set *s)
{
    for (int k = 0; k < s->nfiles; k++)
        if (s->files[k].unclosed)
            return 1;
    return 0;
}

uint64_t sion_set_task_bytes(const sion_set *s, size_t rank)
{
    const sion_file *f = &s->files[s->map_file[rank]];
    size_t t = s->map_task[rank];
    uint64_t sum = 0;
    for (uint64_t b = 0; b < f->blockcount[t]; b++)
        sum += f->bytes[b * f->n + t];
    return sum;
}

const char *sion_set_task_file(const sion_set *s, size_t rank)
{
    return s->files[s->map_file[rank]].name;
}

uint64_t sion_set_task_file_offset(const sion_set *s, size_t rank, uint64_t off)
{
    const sion_file *f = &s->files[s->map_file[rank]];
    size_t t = s->map_task[rank];
    uint64_t start = f->startptr[t];
    for (uint64_t b = 0; b < f->blockcount[t]; b++) {
        uint64_t v = f->bytes[b * f->n + t];
        start = f->startptr[t] + b * f->globalskip;
        if (off < v || (off == v && b + 1 == f->blockcount[t]))
            return start + off;
        off -= v;
    }
    return start + off;
}

int sion_set_read_range(const sion_set *s, size_t rank, uint64_t off, void *buf, size_t len,
                        cube_status *st)
{
    const sion_file *f = &s->files[s->map_file[rank]];
    size_t t = s->map_task[rank];
    unsigned char *out = buf;
    uint64_t block_start = 0; /* stream offset of block b */
    for (uint64_t b = 0; b < f->blockcount[t] && len > 0; b++) {
        uint64_t v = f->bytes[b * f->n + t];
        if (off < block_start + v) {
            uint64_t in = off - block_start;
            size_t k = v - in < len ? (size_t)(v - in) : len;
            char field[64];
            snprintf(field, sizeof field, "rank %zu block %llu", rank, (unsigned long long)b);
            if (rd(f, out, k, f->startptr[t] + b * f->globalskip + in, field, st) != 0)
                return -1;
            out += k;
            off += k;
            len -= k;
        }
        block_start += v;
    }
    if (len > 0) {
        status_set(st, CUBE_EFORMAT, "%s: rank %zu: stream byte %llu: past the end of the stream",
                   f->name, rank, (unsigned long long)off);
        return -1;
    }
    return 0;
}
