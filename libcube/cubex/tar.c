/*
 * tar.c - the member table of a .cubex tar archive, bounded reads of a
 * member, and the archive writer (see tar_private.h for the rules).
 */
#include "cubex/tar_private.h"
#include "core/status_private.h"
#include "io/temp_files_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>

#define BLOCK 512
#define COPY_CHUNK (256 * 1024)
/* Bounds on the bodies of the extended headers the reader interprets (a
 * PAX record set, a GNU long name): far more than any name needs, and
 * small enough to hold in memory whatever the header says. */
#define PAX_MAX (64 * 1024)
#define LONGNAME_MAX 4096

/* Header fields used (offset, length). */
#define F_SIZE 124, 12
#define F_CHKSUM 148, 8
#define OFF_TYPE 156
#define OFF_MAGIC 257

/* ---- reading bytes ------------------------------------------------------ */

/* pread all n bytes: 0, 1 when the file ends before, -1 on an error (errno). */
static int pread_all(int fd, uint64_t off, void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n) {
        ssize_t got = pread(fd, p, n, (off_t)off);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (got == 0)
            return 1;
        p += got;
        n -= (size_t)got;
        off += (uint64_t)got;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n) {
        ssize_t put = write(fd, p, n);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += put;
        n -= (size_t)put;
    }
    return 0;
}

/* A copy of s fit for a one-line message: control bytes as '?', cut
 * short to the buffer. */
static const char *printable(const char *s, char *out, size_t len)
{
    size_t i = 0;
    for (; s[i] && i + 1 < len; i++)
        out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    out[i] = '\0';
    return out;
}

int cubex_tar_fail(const cubex_tar *t, cube_status *st, const char *member, uint64_t off,
                    const char *fmt, ...)
{
    char what[512], name[128], where[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (member)
        snprintf(where, sizeof where, "member %s: ", printable(member, name, sizeof name));
    else
        where[0] = '\0';
    status_set(st, CUBE_EFORMAT, "%s: %sbyte %llu%s: %s", t->file, where,
               (unsigned long long)off, t->inflated ? " of the inflated archive" : "", what);
    return -1;
}

/* ---- spooling: gzip and pipes into a temporary file --------------------- */

/* Registered while it has a name, so that a signal handler removes it. */
int cubex_tar_temp(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + sizeof "/libcube-cubex.XXXXXX";
    char *tmpl = malloc(n);
    if (!tmpl) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(tmpl, n, "%s/libcube-cubex.XXXXXX", dir);
    temp_file *tf;
    int fd = temp_file_create(tmpl, &tf);
    int saved = errno;
    free(tmpl);
    if (fd < 0) {
        errno = saved;
        return -1;
    }
    unlink(temp_file_path(tf));
    temp_file_release(tf);
    return fd;
}

typedef struct {
    int src, dst;
    int seekable;     /* src is read with pread from `pos` */
    uint64_t pos;     /* bytes of src consumed */
    uint64_t written; /* bytes of dst */
    uint64_t limit;
    const char *file;
} spool;

/* The next bytes of the source: their number, 0 at its end, -1 (errno). */
static ssize_t spool_read(spool *s, unsigned char *buf, size_t n)
{
    for (;;) {
        ssize_t got = s->seekable ? pread(s->src, buf, n, (off_t)s->pos) : read(s->src, buf, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got > 0)
            s->pos += (uint64_t)got;
        return got;
    }
}

static int spool_put(spool *s, const unsigned char *buf, size_t n, cube_status *st)
{
    if (n > s->limit - s->written) {
        status_set(st, CUBE_EFORMAT, "%s: byte %llu of the inflated archive: expected at most %llu bytes",
                   s->file, (unsigned long long)s->limit, (unsigned long long)s->limit);
        return -1;
    }
    if (write_all(s->dst, buf, n) != 0) {
        status_set(st, status_code_of_errno(errno), "%s: cannot write a temporary copy: %s",
                   s->file, strerror(errno));
        return -1;
    }
    s->written += n;
    return 0;
}

/* Inflate gzip from s->src into s->dst; concatenated gzip members are
 * one stream, as gzip itself reads them. */
static int spool_inflate(spool *s, unsigned char *in, unsigned char *out, cube_status *st)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", s->file);
        return -1;
    }
    int rc = 0, zr = Z_OK;
    for (;;) {
        if (z.avail_in == 0) {
            ssize_t got = spool_read(s, in, COPY_CHUNK);
            if (got < 0) {
                status_set(st, CUBE_EIO, "%s: cannot read: %s", s->file, strerror(errno));
                rc = -1;
                break;
            }
            if (got == 0)
                break;
            z.next_in = in;
            z.avail_in = (uInt)got;
        }
        if (zr == Z_STREAM_END) /* another member follows */
            inflateReset(&z);
        z.next_out = out;
        z.avail_out = COPY_CHUNK;
        zr = inflate(&z, Z_NO_FLUSH);
        if (zr != Z_OK && zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && z.avail_out)) {
            status_set(st, CUBE_EFORMAT, "%s: byte %llu: expected gzip-compressed data (%s)", s->file,
                       (unsigned long long)(s->pos - z.avail_in), z.msg ? z.msg : "corrupt");
            rc = -1;
            break;
        }
        if (spool_put(s, out, COPY_CHUNK - z.avail_out, st) != 0) {
            rc = -1;
            break;
        }
    }
    if (rc == 0 && zr != Z_STREAM_END) {
        status_set(st, CUBE_EFORMAT, "%s: byte %llu: the gzip-compressed data ends early", s->file,
                   (unsigned long long)s->pos);
        rc = -1;
    }
    inflateEnd(&z);
    return rc;
}

/* Copy (inflating when `gz`) the source into a new unlinked temporary
 * file: its descriptor, or -1 with status set. */
static int spool_to_temp(int src, int seekable, int gz, const char *file, uint64_t limit,
                         cube_status *st)
{
    spool s = {src, -1, seekable, 0, 0, limit, file};
    unsigned char *in = malloc(COPY_CHUNK), *out = malloc(COPY_CHUNK);
    if (!in || !out) {
        free(in);
        free(out);
        status_set(st, CUBE_ENOMEM, "%s: out of memory", file);
        return -1;
    }
    s.dst = cubex_tar_temp();
    int rc = 0;
    if (s.dst < 0) {
        status_set(st, status_code_of_errno(errno), "%s: cannot create a temporary copy: %s", file,
                   strerror(errno));
        rc = -1;
    } else if (gz) {
        rc = spool_inflate(&s, in, out, st);
    } else {
        ssize_t got;
        while (rc == 0 && (got = spool_read(&s, in, COPY_CHUNK)) != 0) {
            if (got < 0) {
                status_set(st, CUBE_EIO, "%s: cannot read: %s", file, strerror(errno));
                rc = -1;
            } else {
                rc = spool_put(&s, in, (size_t)got, st);
            }
        }
    }
    free(in);
    free(out);
    if (rc != 0 && s.dst >= 0) {
        close(s.dst);
        s.dst = -1;
    }
    return s.dst;
}

/* ---- header fields -------------------------------------------------------- */

/* An octal number field (leading blanks, digits, then NUL or blanks), or
 * the base-256 form GNU tar uses for large sizes (first byte 0x80): 0, or
 * -1 when it is neither or does not fit 63 bits. */
static int number_field(const unsigned char *h, size_t off, size_t len, uint64_t *out)
{
    const unsigned char *f = h + off;
    uint64_t v = 0;
    size_t i = 0;
    if (f[0] == 0x80) {
        for (i = 1; i < len; i++) {
            if (v >> 55)
                return -1;
            v = v << 8 | f[i];
        }
        *out = v;
        return 0;
    }
    while (i < len && f[i] == ' ')
        i++;
    size_t digits = 0;
    for (; i < len && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
        if (v >> 60)
            return -1;
        v = v << 3 | (uint64_t)(f[i] - '0');
    }
    for (; i < len; i++)
        if (f[i] != ' ' && f[i] != '\0')
            return -1;
    if (!digits)
        return -1;
    *out = v;
    return 0;
}

/* The header checksum as tar defines it: every byte summed, those of the
 * checksum field counted as blanks. */
static uint64_t header_sum(const unsigned char *h)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < BLOCK; i++)
        sum += i >= 148 && i < 156 ? (unsigned char)' ' : h[i];
    return sum;
}

static int all_zero(const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* The NUL-terminated copy of a field of at most len bytes. */
static char *field_string(const unsigned char *f, size_t len)
{
    size_t n = strnlen((const char *)f, len);
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, f, n);
        s[n] = '\0';
    }
    return s;
}

/* ---- the member table ------------------------------------------------------ */

/* What an extended header (PAX 'x', GNU 'L') says about the next one. */
typedef struct {
    int have_size;
    uint64_t size;
    char *name;
    uint64_t at; /* offset of the extended header */
} pending;

static int add_member(cubex_tar *t, size_t *cap, char *name, uint64_t hdr, uint64_t off,
                      uint64_t size, cube_status *st)
{
    cubex_member *m = grow_array(t->members, t->num_members, cap, sizeof *m, 16);
    if (!m) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", t->file);
        return -1;
    }
    t->members = m;
    m[t->num_members++] = (cubex_member){name, hdr, off, size};
    return 0;
}

/* Read the body of an extended header (at most `max` bytes, its size
 * already checked against the archive) as a NUL-terminated string. */
static char *read_body(cubex_tar *t, uint64_t off, uint64_t size, size_t max, uint64_t hdr,
                       cube_status *st)
{
    if (size > max) {
        cubex_tar_fail(t, st, NULL, hdr + 124, "expected an extended header of at most %zu bytes, found %llu",
                 max, (unsigned long long)size);
        return NULL;
    }
    char *b = malloc((size_t)size + 1);
    if (!b) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", t->file);
        return NULL;
    }
    int r = pread_all(t->fd, off, b, (size_t)size);
    if (r != 0) {
        free(b);
        if (r < 0)
            status_set(st, CUBE_EIO, "%s: cannot read: %s", t->file, strerror(errno));
        else
            cubex_tar_fail(t, st, NULL, off, "expected %llu bytes, the file ends early",
                     (unsigned long long)size);
        return NULL;
    }
    b[size] = '\0';
    return b;
}

/* The records "LEN key=value\n" of a PAX header: size= and path= apply
 * to the next header, the others do not matter here. */
static int parse_pax(cubex_tar *t, const char *b, size_t n, uint64_t hdr, pending *p,
                     cube_status *st)
{
    size_t i = 0;
    while (i < n) {
        char *end;
        errno = 0;
        unsigned long long len = strtoull(b + i, &end, 10);
        size_t rest = n - i;
        if (end == b + i || *end != ' ' || errno || len > rest || len < (size_t)(end - (b + i)) + 3
            || b[i + len - 1] != '\n')
            return cubex_tar_fail(t, st, NULL, hdr + BLOCK + i, "expected a PAX record \"LENGTH key=value\\n\"");
        const char *key = end + 1, *stop = b + i + len - 1;
        const char *eq = memchr(key, '=', (size_t)(stop - key));
        if (!eq)
            return cubex_tar_fail(t, st, NULL, hdr + BLOCK + i, "expected '=' in a PAX record");
        if ((size_t)(eq - key) == 4 && memcmp(key, "size", 4) == 0) {
            uint64_t v = 0;
            const char *d = eq + 1;
            if (d == stop)
                return cubex_tar_fail(t, st, NULL, hdr + BLOCK + i, "expected a decimal size");
            for (; d < stop; d++) {
                if (*d < '0' || *d > '9' || v > (UINT64_MAX >> 4) / 10)
                    return cubex_tar_fail(t, st, NULL, hdr + BLOCK + i, "expected a decimal size");
                v = v * 10 + (uint64_t)(*d - '0');
            }
            p->have_size = 1;
            p->size = v;
        } else if ((size_t)(eq - key) == 4 && memcmp(key, "path", 4) == 0) {
            free(p->name);
            p->name = malloc((size_t)(stop - eq));
            if (!p->name) {
                status_set(st, CUBE_ENOMEM, "%s: out of memory", t->file);
                return -1;
            }
            memcpy(p->name, eq + 1, (size_t)(stop - eq - 1));
            p->name[stop - eq - 1] = '\0';
        }
        i += (size_t)len;
    }
    return 0;
}

/* The name of a member: an extended header's, else prefix "/" name for
 * a POSIX header with a prefix, else the name field. */
static char *member_name(const unsigned char *h, int posix, pending *p)
{
    if (p->name) {
        char *n = p->name;
        p->name = NULL;
        return n;
    }
    char *name = field_string(h + 0, 100);
    if (!name || !posix || !h[345])
        return name;
    char *prefix = field_string(h + 345, 155);
    char *full = prefix ? malloc(strlen(prefix) + strlen(name) + 2) : NULL;
    if (full)
        sprintf(full, "%s/%s", prefix, name);
    free(prefix);
    free(name);
    return full;
}

/* The header at `pos` (not a zero block): checked, then either recorded
 * as a member, taken as an extended header for the next one, or skipped.
 * Sets *next to the offset after its content. */
static int one_header(cubex_tar *t, const unsigned char *h, uint64_t pos, size_t *cap,
                      pending *p, uint64_t *next, cube_status *st)
{
    if (memcmp(h + OFF_MAGIC, "ustar", 5) != 0 || (h[OFF_MAGIC + 5] != '\0' && h[OFF_MAGIC + 5] != ' '))
        return cubex_tar_fail(t, st, NULL, pos + OFF_MAGIC,
                        "expected a tar header (\"ustar\" at byte 257 of the block)");
    int posix = h[OFF_MAGIC + 5] == '\0';
    char type = (char)h[OFF_TYPE];
    char hname[101];
    memcpy(hname, h, 100);
    hname[100] = '\0';
    uint64_t size, sum;
    if (number_field(h, F_SIZE, &size) != 0)
        return cubex_tar_fail(t, st, hname, pos + 124, "expected the size as an octal number");
    if (p->have_size && type != 'x' && type != 'g') {
        size = p->size;
        p->have_size = 0;
    }
    t->num_headers++;
    if (number_field(h, F_CHKSUM, &sum) != 0 || sum != header_sum(h)) {
        if (!t->bad_checksums++)
            t->first_bad_checksum = pos;
    }
    uint64_t off = pos + BLOCK;
    if (size > t->size - off)
        return cubex_tar_fail(t, st, hname[0] ? hname : NULL, pos + 124,
                        "expected a size of at most %llu bytes (the rest of the archive), found %llu",
                        (unsigned long long)(t->size - off), (unsigned long long)size);
    *next = off + (size + BLOCK - 1) / BLOCK * BLOCK;
    if (type == 'x' || type == 'L') {
        char *body = read_body(t, off, size, type == 'x' ? PAX_MAX : LONGNAME_MAX, pos, st);
        if (!body)
            return -1;
        int rc = 0;
        if (type == 'x') {
            rc = parse_pax(t, body, (size_t)size, pos, p, st);
            free(body);
        } else {
            free(p->name);
            p->name = body;
        }
        p->at = pos;
        return rc;
    }
    if (type != '0' && type != '\0' && type != '7') { /* directories, links, globals */
        free(p->name);
        p->name = NULL;
        return 0;
    }
    char *name = member_name(h, posix, p);
    if (!name) {
        status_set(st, CUBE_ENOMEM, "%s: out of memory", t->file);
        return -1;
    }
    if (!name[0]) {
        free(name);
        return cubex_tar_fail(t, st, NULL, pos, "expected a member name");
    }
    if (add_member(t, cap, name, pos, off, size, st) != 0) {
        free(name);
        return -1;
    }
    return 0;
}

/* Walk the whole archive: headers and the zero blocks between them, to
 * its end (a zero block does not end it, see the top of tar_private.h). */
static int read_table(cubex_tar *t, cube_status *st)
{
    unsigned char h[BLOCK];
    size_t cap = 0;
    pending p = {0, 0, NULL, 0};
    uint64_t pos = 0;
    int rc = 0;
    while (rc == 0 && pos < t->size) {
        size_t n = t->size - pos < BLOCK ? (size_t)(t->size - pos) : BLOCK;
        int r = pread_all(t->fd, pos, h, n);
        if (r != 0) {
            rc = r < 0 ? (status_set(st, CUBE_EIO, "%s: cannot read: %s", t->file, strerror(errno)), -1)
                       : cubex_tar_fail(t, st, NULL, pos, "expected %zu bytes, the file ends early", n);
        } else if (all_zero(h, n)) {
            pos += n;
        } else if (n < BLOCK) {
            rc = cubex_tar_fail(t, st, NULL, pos, "expected a 512-byte tar header, the archive ends after %zu bytes", n);
        } else {
            uint64_t next = t->size;
            rc = one_header(t, h, pos, &cap, &p, &next, st);
            pos = next;
        }
    }
    if (rc == 0 && (p.have_size || p.name))
        rc = cubex_tar_fail(t, st, NULL, p.at, "expected a header after this extended header");
    free(p.name);
    return rc;
}

static cubex_tar *tar_new(const char *name, cube_status *st)
{
    cubex_tar *t = calloc(1, sizeof *t);
    if (t)
        t->file = cube_strdup(name);
    if (!t || !t->file) {
        free(t);
        status_set(st, CUBE_ENOMEM, "%s: out of memory", name);
        return NULL;
    }
    t->fd = -1;
    return t;
}

/* Is an archive that starts with `head` (n bytes read) gzip-compressed?
 * The gzip magic alone does not say: a tar member name may start with the
 * same two bytes, so a block that carries the ustar magic where a tar
 * header has it is a tar header, whatever its first bytes. */
static int starts_gzip(const unsigned char *head, size_t n)
{
    if (n < 2 || head[0] != 0x1f || head[1] != 0x8b)
        return 0;
    return !(n >= 262 && memcmp(head + 257, "ustar", 5) == 0);
}

/* The first bytes of an archive, up to a tar header's magic: 0 with *n
 * set (fewer at a short file), or -1 with errno. */
static int read_head(int fd, unsigned char *head, size_t cap, size_t *n)
{
    *n = 0;
    while (*n < cap) {
        ssize_t got = pread(fd, head + *n, cap - *n, (off_t)*n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        *n += (size_t)got;
    }
    return 0;
}

cubex_tar *cubex_tar_open_fd(int fd, const char *name, uint64_t max_spool, cube_status *status)
{
    cubex_tar *t = tar_new(name, status);
    if (!t)
        return NULL;
    if (max_spool == 0)
        max_spool = CUBEX_SPOOL_UNLIMITED;
    unsigned char head[262];
    size_t head_len;
    struct stat sb;
    int r = read_head(fd, head, sizeof head, &head_len);
    int seekable = !(r < 0 && errno == ESPIPE);
    if (r < 0 && seekable) {
        status_set(status, CUBE_EIO, "%s: cannot read: %s", name, strerror(errno));
        cubex_tar_close(t);
        return NULL;
    }
    int gz = r == 0 && starts_gzip(head, head_len);
    if (seekable && !gz && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        t->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        t->size = (uint64_t)sb.st_size;
        if (t->fd < 0) {
            status_set(status, status_code_of_errno(errno), "%s: %s", name, strerror(errno));
            cubex_tar_close(t);
            return NULL;
        }
    } else {
        /* a pipe can be peeked at only by reading: the spool decides on
         * gzip from its own first bytes then */
        t->fd = spool_to_temp(fd, seekable, gz, name, max_spool, status);
        t->inflated = gz;
        if (t->fd < 0 || fstat(t->fd, &sb) != 0) {
            if (t->fd >= 0)
                status_set(status, CUBE_EIO, "%s: %s", name, strerror(errno));
            cubex_tar_close(t);
            return NULL;
        }
        t->size = (uint64_t)sb.st_size;
        if (!seekable && read_head(t->fd, head, sizeof head, &head_len) == 0
            && starts_gzip(head, head_len)) {
            int raw = t->fd;
            t->fd = spool_to_temp(raw, 1, 1, name, max_spool, status);
            close(raw);
            t->inflated = 1;
            if (t->fd < 0 || fstat(t->fd, &sb) != 0) {
                cubex_tar_close(t);
                return NULL;
            }
            t->size = (uint64_t)sb.st_size;
        }
    }
    if (read_table(t, status) != 0) {
        cubex_tar_close(t);
        return NULL;
    }
    status_ok(status);
    return t;
}

cubex_tar *cubex_tar_open_path(const char *path, uint64_t max_spool, cube_status *status)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        status_set(status, status_code_of_errno(errno), "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    cubex_tar *t = cubex_tar_open_fd(fd, path, max_spool, status);
    close(fd);
    return t;
}

void cubex_tar_close(cubex_tar *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->num_members; i++)
        free(t->members[i].name);
    free(t->members);
    if (t->fd >= 0)
        close(t->fd);
    free(t->file);
    free(t);
}

const cubex_member *cubex_tar_find(const cubex_tar *t, const char *name)
{
    for (size_t i = t->num_members; i-- > 0;)
        if (strcmp(t->members[i].name, name) == 0)
            return &t->members[i];
    return NULL;
}

int cubex_tar_pread(const cubex_tar *t, const cubex_member *m, uint64_t offset, void *buf,
                    size_t n, cube_status *status)
{
    if (offset > m->size || n > m->size - offset)
        return cubex_tar_fail(t, status, m->name, m->offset + (offset < m->size ? offset : m->size),
                        "expected %zu more bytes, the member ends at byte %llu", n,
                        (unsigned long long)(m->offset + m->size));
    int r = pread_all(t->fd, m->offset + offset, buf, n);
    if (r < 0) {
        status_set(status, CUBE_EIO, "%s: member %s: cannot read: %s", t->file, m->name, strerror(errno));
        return -1;
    }
    if (r > 0) /* the file shrank since its table was read */
        return cubex_tar_fail(t, status, m->name, m->offset + offset, "expected %zu bytes, the file ends early", n);
    return 0;
}

int cubex_tar_warning(const cubex_tar *t, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (!t->bad_checksums)
        return 0;
    snprintf(buf, len, "%s: %zu of %zu tar headers have a wrong checksum (the first at byte %llu%s); read anyway",
             t->file, t->bad_checksums, t->num_headers, (unsigned long long)t->first_bad_checksum,
             t->inflated ? " of the inflated archive" : "");
    return 1;
}

/* ---- the writer -------------------------------------------------------------- */

struct cubex_tar_writer {
    FILE *fp;
    int fd;
    char *file;
    uint64_t written;     /* bytes written so far */
    int in_member;
    uint64_t announced;   /* the size given to begin, or CUBEX_SIZE_UNKNOWN */
    uint64_t got;         /* bytes of the member written */
    int64_t header_pos;   /* output position of its header (unknown size only) */
    int64_t mtime;
    char member[101];
};

static cubex_tar_writer *writer_new(FILE *fp, int fd, const char *name, cube_status *st)
{
    cubex_tar_writer *w = calloc(1, sizeof *w);
    if (w)
        w->file = cube_strdup(name);
    if (!w || !w->file) {
        free(w);
        status_set(st, CUBE_ENOMEM, "%s: out of memory", name);
        return NULL;
    }
    w->fp = fp;
    w->fd = fd;
    status_ok(st);
    return w;
}

cubex_tar_writer *cubex_tar_writer_open_fp(FILE *fp, const char *name, cube_status *status)
{
    return writer_new(fp, -1, name, status);
}

cubex_tar_writer *cubex_tar_writer_open_fd(int fd, const char *name, cube_status *status)
{
    return writer_new(NULL, fd, name, status);
}

void cubex_tar_writer_free(cubex_tar_writer *w)
{
    if (w) {
        free(w->file);
        free(w);
    }
}

uint64_t cubex_tar_writer_offset(const cubex_tar_writer *w)
{
    return w->written;
}

static int put(cubex_tar_writer *w, const void *data, size_t n, cube_status *st)
{
    if (n == 0) /* an empty member's data may be NULL: nothing to write */
        return 0;
    int ok = w->fp ? fwrite(data, 1, n, w->fp) == n : write_all(w->fd, data, n) == 0;
    if (!ok) {
        status_set(st, status_code_of_errno(errno), "%s: cannot write: %s", w->file, strerror(errno));
        return -1;
    }
    w->written += n;
    return 0;
}

static int put_zeros(cubex_tar_writer *w, size_t n, cube_status *st)
{
    static const unsigned char zeros[BLOCK];
    while (n) {
        size_t k = n < BLOCK ? n : BLOCK;
        if (put(w, zeros, k, st) != 0)
            return -1;
        n -= k;
    }
    return 0;
}

/* A POSIX ustar header; the size must fit 11 octal digits. */
static void make_header(unsigned char h[BLOCK], const char *name, uint64_t size, int64_t mtime,
                        char type)
{
    memset(h, 0, BLOCK);
    memcpy(h, name, strnlen(name, 100));
    memcpy(h + 100, "0000600", 8);
    memcpy(h + 108, "0000000", 8);
    memcpy(h + 116, "0000000", 8);
    char num[16];
    snprintf(num, sizeof num, "%011llo", (unsigned long long)size);
    memcpy(h + 124, num, 12);
    uint64_t t = mtime < 0 ? 0 : (uint64_t)mtime > 077777777777ULL ? 077777777777ULL : (uint64_t)mtime;
    snprintf(num, sizeof num, "%011llo", (unsigned long long)t);
    memcpy(h + 136, num, 12);
    h[OFF_TYPE] = (unsigned char)type;
    memcpy(h + OFF_MAGIC, "ustar\0" "00", 8);
    memcpy(h + 265, "nobody", 6);
    memcpy(h + 297, "users", 5);
    snprintf(num, sizeof num, "%06llo", (unsigned long long)header_sum(h));
    memcpy(h + 148, num, 7); /* six digits and the NUL */
    h[155] = ' ';
}

/* The padding after a member of `size` bytes (see tar_private.h). */
static size_t padding(uint64_t size)
{
    return (size_t)((size / BLOCK + 1) * BLOCK - size);
}

/* A PAX header carrying the size of a member too large for the octal
 * field, its body padded as any member. */
static int put_pax_size(cubex_tar_writer *w, const char *member, uint64_t size, int64_t mtime,
                        cube_status *st)
{
    char rec[64], pname[101];
    int len = 0;
    /* the record's length counts its own digits: find the fixed point */
    for (int guess = 1; guess < 64; guess++) {
        len = snprintf(rec, sizeof rec, "%d size=%llu\n", guess, (unsigned long long)size);
        if (len == guess)
            break;
    }
    snprintf(pname, sizeof pname, "PaxHeader/%s", member);
    unsigned char h[BLOCK];
    make_header(h, pname, (uint64_t)len, mtime, 'x');
    if (put(w, h, BLOCK, st) != 0 || put(w, rec, (size_t)len, st) != 0)
        return -1;
    return put_zeros(w, padding((uint64_t)len), st);
}

static int64_t output_position(cubex_tar_writer *w)
{
    if (w->fp)
        return (int64_t)ftello(w->fp);
    return (int64_t)lseek(w->fd, 0, SEEK_CUR);
}

int cubex_tar_begin(cubex_tar_writer *w, const char *member, uint64_t size, int64_t mtime,
                    cube_status *status)
{
    size_t n = strlen(member);
    if (w->in_member || n == 0 || n > 100) {
        status_set(status, CUBE_EINVAL, "%s: member %s: %s", w->file, member,
                   w->in_member ? "the previous member is not ended" : "expected a name of 1 to 100 bytes");
        return -1;
    }
    unsigned char h[BLOCK];
    w->header_pos = -1;
    if (size == CUBEX_SIZE_UNKNOWN) {
        w->header_pos = output_position(w);
        if (w->header_pos < 0) {
            status_set(status, CUBE_EINVAL, "%s: member %s: a member of unknown size needs a seekable output",
                       w->file, member);
            return -1;
        }
        make_header(h, member, 0, mtime, '0');
    } else {
        if (size > 077777777777ULL && put_pax_size(w, member, size, mtime, status) != 0)
            return -1;
        make_header(h, member, size > 077777777777ULL ? 0 : size, mtime, '0');
    }
    if (put(w, h, BLOCK, status) != 0)
        return -1;
    memcpy(w->member, member, n + 1);
    w->in_member = 1;
    w->announced = size;
    w->got = 0;
    w->mtime = mtime;
    status_ok(status);
    return 0;
}

int cubex_tar_write(cubex_tar_writer *w, const void *data, size_t n, cube_status *status)
{
    if (!w->in_member || (w->announced != CUBEX_SIZE_UNKNOWN && n > w->announced - w->got)) {
        status_set(status, CUBE_EINVAL, "%s: member %s: %s", w->file, w->member,
                   w->in_member ? "more bytes than announced" : "no member begun");
        return -1;
    }
    if (put(w, data, n, status) != 0)
        return -1;
    w->got += n;
    return 0;
}

/* Write the header of a member of unknown size again, now with its size,
 * and come back to the end of the output. */
static int patch_header(cubex_tar_writer *w, cube_status *st)
{
    unsigned char h[BLOCK];
    if (w->got > 077777777777ULL) {
        status_set(st, CUBE_EINVAL, "%s: member %s: expected at most 8 GiB in a member of unknown size",
                   w->file, w->member);
        return -1;
    }
    make_header(h, w->member, w->got, w->mtime, '0');
    int ok;
    if (w->fp) {
        int64_t end = (int64_t)ftello(w->fp);
        ok = fseeko(w->fp, (off_t)w->header_pos, SEEK_SET) == 0 && fwrite(h, 1, BLOCK, w->fp) == BLOCK
             && fseeko(w->fp, (off_t)end, SEEK_SET) == 0;
    } else {
        ok = pwrite(w->fd, h, BLOCK, (off_t)w->header_pos) == BLOCK;
    }
    if (!ok) {
        status_set(st, status_code_of_errno(errno), "%s: cannot write: %s", w->file, strerror(errno));
        return -1;
    }
    return 0;
}

int cubex_tar_end(cubex_tar_writer *w, cube_status *status)
{
    if (!w->in_member || (w->announced != CUBEX_SIZE_UNKNOWN && w->got != w->announced)) {
        status_set(status, CUBE_EINVAL, "%s: member %s: %s", w->file, w->member,
                   w->in_member ? "fewer bytes than announced" : "no member begun");
        return -1;
    }
    w->in_member = 0;
    if (w->announced == CUBEX_SIZE_UNKNOWN && patch_header(w, status) != 0)
        return -1;
    if (put_zeros(w, padding(w->got), status) != 0)
        return -1;
    status_ok(status);
    return 0;
}

int cubex_tar_add(cubex_tar_writer *w, const char *member, const void *data, size_t n,
                  int64_t mtime, cube_status *status)
{
    if (cubex_tar_begin(w, member, n, mtime, status) != 0 || cubex_tar_write(w, data, n, status) != 0)
        return -1;
    return cubex_tar_end(w, status);
}

int cubex_tar_finish(cubex_tar_writer *w, cube_status *status)
{
    if (w->in_member) {
        status_set(status, CUBE_EINVAL, "%s: member %s: not ended", w->file, w->member);
        return -1;
    }
    if (put_zeros(w, 2 * BLOCK, status) != 0)
        return -1;
    if (w->fp && fflush(w->fp) != 0) {
        status_set(status, status_code_of_errno(errno), "%s: cannot write: %s", w->file, strerror(errno));
        return -1;
    }
    status_ok(status);
    return 0;
}
