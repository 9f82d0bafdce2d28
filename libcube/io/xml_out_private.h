/*
 * xml_out_private.h - a buffered byte sink for the XML writer: a stdio stream (the
 * CUBE3 C writer API writes to a caller's FILE*) or a gzip stream.
 */
#ifndef LIBCUBE_XML_OUT_H
#define LIBCUBE_XML_OUT_H

#include <stddef.h>
#include <stdio.h>
#include <zlib.h>

typedef struct xml_out {
    FILE *fp;        /* exactly one of fp and gz is set */
    gzFile gz;
    char buf[1 << 16];
    size_t len;
    int failed;      /* a write failed: everything after is dropped */
    char error[256];
} xml_out;

void out_init_file(xml_out *o, FILE *fp);
void out_init_gz(xml_out *o, gzFile gz);
void out_write(xml_out *o, const char *s, size_t n);
void out_str(xml_out *o, const char *s);
/* Text or attribute value with & < > " ' escaped.  Whatever the caller
 * gives, the output is well-formed UTF-8 XML 1.0: each byte or ill-formed
 * UTF-8 sequence that is not an XML character (control characters other
 * than tab, LF and CR, invalid UTF-8, U+FFFE, U+FFFF) becomes U+FFFD. */
void out_escaped(xml_out *o, const char *s);
void out_long(xml_out *o, long long v);
/* Hand the buffer to the stream (fwrite or gzwrite, no fflush); -1 when
 * any write failed. */
int out_drain(xml_out *o);
/* out_drain, then fflush a stdio stream (not a sync); -1 when any write
 * failed. */
int out_flush(xml_out *o);

#endif
