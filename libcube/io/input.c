/*
 * input.c - reading a CUBE file through zlib (which passes plain files
 * through untouched and inflates gzip ones) and repairing raw ampersands.
 *
 * The filter keeps a small state machine across reads: it must not touch
 * an '&' inside a CDATA section, a comment or a processing instruction, and
 * it must see far enough past an '&' to tell "&amp;" or "&#38;" from a raw
 * one.  Bytes it cannot decide yet are carried over to the next read.
 * Chunks without any '&', '!' or '?' (all of the severity data in practice)
 * need no inspection and pass through with three memchr calls.
 */
#include "io/input_private.h"
#include "core/status_private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define READ_CHUNK (256 * 1024)
/* Longest look-ahead a decision needs: "<![CDATA[" or an entity name. */
#define LOOKAHEAD 64
/* Filtered output is produced in pieces of at most this size (each raw
 * byte may become the five of "&amp;"). */
#define OUT_CAP (64 * 1024)

typedef enum { IN_MARKUP_OR_TEXT, IN_CDATA, IN_COMMENT, IN_PI } filter_state;

struct cube_input {
    gzFile gz;
    char *raw;       /* bytes read, not yet filtered: carry + new data */
    size_t raw_len;
    size_t handed_out; /* raw bytes given to the caller as they are */
    char *out;       /* filtered bytes handed to the caller, allocated when needed */
    int eof;
    filter_state state;
    long line;       /* line number at raw[0] */
    size_t raw_amps;
    long first_amp_line;
    int started;   /* the first bytes were looked at */
    unsigned kind; /* input_kind */
    int fd;        /* the descriptor zlib reads (closed by gzclose) */
    int whole_file; /* fd is a regular file read from its first byte */
    int failed;    /* input_start failed: input_read repeats `error` */
    cube_status error;
};

static cube_input *input_from_gz(gzFile gz, int fd, cube_status *status)
{
    cube_input *in = calloc(1, sizeof *in);
    if (in)
        in->raw = malloc(READ_CHUNK + LOOKAHEAD);
    if (!in || !in->raw) {
        if (in) {
            free(in->raw);
            free(in->out);
            free(in);
        }
        gzclose(gz);
        status_set(status, CUBE_ENOMEM, "out of memory");
        return NULL;
    }
    gzbuffer(gz, READ_CHUNK);
    in->gz = gz;
    in->line = 1;
    struct stat sb;
    in->fd = fd;
    in->whole_file = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && lseek(fd, 0, SEEK_CUR) == 0;
    return in;
}

cube_input *input_open_path(const char *path, cube_status *status)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        status_set(status, status_code_of_errno(errno), "%s: cannot open: %s", path,
                   strerror(errno));
        return NULL;
    }
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        status_set(status, CUBE_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    return input_from_gz(gz, fd, status);
}

cube_input *input_open_fd(int fd, const char *name, cube_status *status)
{
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (copy < 0) {
        status_set(status, status_code_of_errno(errno), "%s: cannot read: %s", name,
                   strerror(errno));
        return NULL;
    }
    gzFile gz = gzdopen(copy, "rb");
    if (!gz) {
        close(copy);
        status_set(status, CUBE_ENOMEM, "%s: out of memory", name);
        return NULL;
    }
    return input_from_gz(gz, copy, status);
}

void input_close(cube_input *in)
{
    if (!in)
        return;
    gzclose(in->gz);
    free(in->raw);
    free(in->out);
    free(in);
}

unsigned input_kind(const cube_input *in)
{
    return in->kind;
}

/* A tar header: "ustar" at byte 257 (POSIX "ustar\0", GNU "ustar "), and
 * a NUL among the bytes before it (the name field is NUL-terminated). */
#define TAR_MAGIC_OFFSET 257

static int looks_like_tar(const char *p, size_t n)
{
    return n >= TAR_MAGIC_OFFSET + 6 && memcmp(p + TAR_MAGIC_OFFSET, "ustar", 5) == 0 &&
           (p[TAR_MAGIC_OFFSET + 5] == '\0' || p[TAR_MAGIC_OFFSET + 5] == ' ') &&
           memchr(p, '\0', TAR_MAGIC_OFFSET) != NULL;
}

size_t input_raw_ampersands(const cube_input *in, long *first_line)
{
    if (first_line)
        *first_line = in->first_amp_line;
    return in->raw_amps;
}

static int is_name_start(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_' || ch == ':' ||
           (unsigned char)ch >= 0x80;
}

static int is_name_char(char ch)
{
    return is_name_start(ch) || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.';
}

/* Is the '&' at s[0] the start of a reference ("&name;", "&#123;",
 * "&#x1F;")?  1 yes, 0 no, -1 cannot tell from the `n` bytes available. */
static int starts_reference(const char *s, size_t n)
{
    size_t i = 1;
    if (i >= n)
        return -1;
    if (s[i] == '#') {
        i++;
        int hex = 0;
        if (i < n && s[i] == 'x') {
            hex = 1;
            i++;
        }
        size_t first = i;
        while (i < n && ((s[i] >= '0' && s[i] <= '9') ||
                         (hex && ((s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))))
            i++;
        if (i >= n)
            return n >= LOOKAHEAD ? 0 : -1;
        return s[i] == ';' && i > first;
    }
    if (!is_name_start(s[i]))
        return 0;
    while (i < n && is_name_char(s[i]))
        i++;
    if (i >= n)
        return n >= LOOKAHEAD ? 0 : -1;
    return s[i] == ';';
}

static int has_prefix(const char *s, size_t n, const char *prefix, int *undecided)
{
    size_t k = strlen(prefix);
    size_t m = n < k ? n : k;
    if (memcmp(s, prefix, m) != 0)
        return 0;
    if (m < k) {
        *undecided = 1;
        return 0;
    }
    return 1;
}

/* Filter raw[0..n) into out (OUT_CAP bytes); returns how many raw bytes
 * were consumed (the rest waits for more data, or for room in `out`). */
static size_t filter_bytes(cube_input *in, const char *raw, size_t n, int final, char *out,
                           size_t *out_len)
{
    size_t i = 0, o = 0;
    while (i < n && o + 16 <= OUT_CAP) {
        char ch = raw[i];
        size_t avail = n - i;
        int undecided = 0;
        switch (in->state) {
        case IN_MARKUP_OR_TEXT:
            if (ch == '<') {
                if (has_prefix(raw + i, avail, "<![CDATA[", &undecided))
                    in->state = IN_CDATA;
                else if (has_prefix(raw + i, avail, "<!--", &undecided))
                    in->state = IN_COMMENT;
                else if (has_prefix(raw + i, avail, "<?", &undecided))
                    in->state = IN_PI;
                if (undecided && !final)
                    goto wait;
                if (in->state != IN_MARKUP_OR_TEXT) {
                    /* copy the opener whole so its bytes are not rescanned */
                    size_t k = in->state == IN_CDATA ? 9 : in->state == IN_COMMENT ? 4 : 2;
                    memcpy(out + o, raw + i, k);
                    o += k;
                    i += k;
                    continue;
                }
            } else if (ch == '&') {
                int ref = starts_reference(raw + i, avail);
                if (ref < 0 && !final)
                    goto wait;
                if (ref <= 0) {
                    if (!in->raw_amps++)
                        in->first_amp_line = in->line;
                    memcpy(out + o, "&amp;", 5);
                    o += 5;
                    i++;
                    continue;
                }
            }
            break;
        case IN_CDATA:
        case IN_COMMENT:
        case IN_PI: {
            const char *closer = in->state == IN_CDATA ? "]]>" : in->state == IN_COMMENT ? "-->" : "?>";
            if (ch == closer[0]) {
                if (has_prefix(raw + i, avail, closer, &undecided)) {
                    size_t k = strlen(closer);
                    memcpy(out + o, raw + i, k);
                    o += k;
                    i += k;
                    in->state = IN_MARKUP_OR_TEXT;
                    continue;
                }
                if (undecided && !final)
                    goto wait;
            }
            break;
        }
        }
        if (ch == '\n')
            in->line++;
        out[o++] = ch;
        i++;
    }
wait:
    *out_len = o;
    return i;
}

static size_t count_newlines(const char *s, size_t n)
{
    size_t lines = 0;
    const char *end = s + n;
    while ((s = memchr(s, '\n', (size_t)(end - s))) != NULL) {
        lines++;
        s++;
    }
    return lines;
}

/* zlib prefixes its messages with the name the file was opened under,
 * "<fd:3>" after gzdopen: noise in a message that already starts with the
 * real file name. */
static const char *gz_message(const char *msg)
{
    const char *p;
    if (strncmp(msg, "<fd:", 4) == 0 && (p = strstr(msg, ">: ")) != NULL)
        return p + 3;
    return msg;
}

/* Read the next chunk of (inflated) bytes after the raw[0..raw_len)
 * kept: 0, or -1 with status set. */
static int fill(cube_input *in, cube_status *status)
{
    int got = gzread(in->gz, in->raw + in->raw_len, READ_CHUNK);
    if (got < 0) {
        int code;
        const char *msg = gz_message(gzerror(in->gz, &code));
        if (code == Z_ERRNO)
            status_set(status, status_code_of_errno(errno), "read error: %s", strerror(errno));
        else if (code == Z_MEM_ERROR)
            status_set(status, CUBE_ENOMEM, "out of memory");
        else /* said only "incorrect data check" or the like */
            status_set(status, CUBE_EFORMAT, "corrupt gzip stream: %s", msg);
        return -1;
    }
    if (got == 0) {
        int code;
        const char *msg = gz_message(gzerror(in->gz, &code));
        if (code != Z_OK && code != Z_STREAM_END) {
            /* zlib reports a cut stream as Z_BUF_ERROR at its end */
            status_set(status, CUBE_EFORMAT, "%s gzip stream: %s",
                       code == Z_BUF_ERROR ? "truncated" : "corrupt", msg);
            return -1;
        }
        in->eof = 1;
    }
    in->raw_len += (size_t)got;
    if (!in->started) {
        /* gzread fills the whole request unless the input ends first: a
         * header's 512 bytes are all here */
        in->started = 1;
        in->kind = (looks_like_tar(in->raw, in->raw_len) ? INPUT_TAR : INPUT_TEXT) |
                   (gzdirect(in->gz) ? 0u : INPUT_GZIP);
    }
    return 0;
}

int input_start(cube_input *in, cube_status *status)
{
    if (in->started || in->failed)
        return in->failed ? -1 : 0;
    if (fill(in, &in->error) != 0) {
        in->failed = 1;
        status_copy(status, &in->error);
        return -1;
    }
    return 0;
}

int input_file_fd(const cube_input *in)
{
    return in->whole_file ? in->fd : -1;
}

/* write(2) all of buf: 0, or -1 (errno). */
static int write_all(int fd, const char *buf, size_t n)
{
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

int input_copy_rest(cube_input *in, int fd, cube_status *status)
{
    if (input_start(in, status) != 0)
        return -1;
    for (;;) {
        if (write_all(fd, in->raw, in->raw_len) != 0) {
            status_set(status, status_code_of_errno(errno), "cannot write a temporary copy: %s",
                       strerror(errno));
            return -1;
        }
        in->raw_len = 0;
        if (in->eof)
            return 0;
        if (fill(in, status) != 0)
            return -1;
    }
}

long input_read(cube_input *in, const char **data, cube_status *status)
{
    if (in->failed) {
        status_copy(status, &in->error);
        return -1;
    }
    for (;;) {
        /* what the caller got last time is done with: drop it, keep the carry */
        if (in->handed_out) {
            memmove(in->raw, in->raw + in->handed_out, in->raw_len - in->handed_out);
            in->raw_len -= in->handed_out;
            in->handed_out = 0;
        }
        if (!in->eof && in->raw_len < LOOKAHEAD && fill(in, status) != 0)
            return -1;
        if (in->raw_len == 0)
            return 0;
        size_t n = in->raw_len;
        if (in->state == IN_MARKUP_OR_TEXT && !memchr(in->raw, '&', n) &&
            !memchr(in->raw, '!', n) && !memchr(in->raw, '?', n)) {
            /* nothing to repair: hand out the bytes where they are, holding
             * back a trailing '<' that might open "<!" or "<?" */
            size_t k = (!in->eof && in->raw[n - 1] == '<') ? n - 1 : n;
            if (k) {
                in->line += (long)count_newlines(in->raw, k);
                in->handed_out = k;
                *data = in->raw;
                return (long)k;
            }
        } else {
            if (!in->out && !(in->out = malloc(OUT_CAP))) {
                status_set(status, CUBE_ENOMEM, "out of memory");
                return -1;
            }
            size_t out_len;
            size_t consumed = filter_bytes(in, in->raw, n, in->eof, in->out, &out_len);
            memmove(in->raw, in->raw + consumed, n - consumed);
            in->raw_len = n - consumed;
            if (out_len) {
                *data = in->out;
                return (long)out_len;
            }
        }
        if (in->eof && in->raw_len == 0)
            return 0;
        if (in->eof) {
            /* at the end nothing is undecided any more: filter the rest */
            continue;
        }
        if (in->raw_len >= LOOKAHEAD) {
            /* cannot happen: only a short undecided tail is ever carried */
            status_set(status, CUBE_EIO, "internal error: input filter stalled");
            return -1;
        }
    }
}
