/*
 * linktest_svg.c - the picture of a LinkTest run (cube_linktest --svg), as
 * JSC's LinkTest report shows it: the N x N time matrix as a heat map
 * beside a histogram of the times.
 *
 * The page (px; see the layout macros below):
 *   - title: the file name; the run (version, mode, ranks, hosts, message
 *     size, iterations); min / mean / median / max of every measurement.
 *   - left, 800 x 800: the matrix, row = measuring rank (top to bottom),
 *     column = partner (left to right).  Colour: the time of the link, the
 *     mean over the iterations when there are several, on a log scale of
 *     LEVELS colours from the fastest (dark blue-violet) to the slowest
 *     (yellow) measurement.  Grey: no measurement (the diagonal).  Lines:
 *     where the host name changes between consecutive ranks (every k-th
 *     boundary only when there are more than MAX_HOST_LINES).  Circles:
 *     the given slowest measurements, numbered slowest first.
 *   - binning: up to MAX_CELLS ranks a cell is one link.  Beyond, ranks are
 *     grouped in blocks of b = ceil(N / MAX_CELLS) consecutive ranks (the
 *     last block may be smaller) and a cell shows the MAXIMUM over its b x b
 *     links: a slow link stays visible however large the run (the mean
 *     would dilute it).
 *   - beside it, the colour bar labelled in microseconds, then the
 *     histogram: bars of counts per log-time bin (cube_linktest_histogram),
 *     x = time in us on the colour bar's log scale, y = counts on a log
 *     scale (the slow tail is a few links among millions: on a linear axis
 *     it would not show), each bar in the colour of its bin's centre; a
 *     dashed line marks the median.  Below it the list of the slowest.
 *
 * The file stays small for any N: the matrix is at most MAX_CELLS^2 cells,
 * drawn as one <path> per colour whose horizontal runs of equal colour are
 * one stroked segment each, in a coordinate system of cells (integers).
 *
 * Numbers are formatted without the locale: coordinates and integers by
 * hand, %g values with snprintf and the locale's decimal point (if a
 * program called setlocale) replaced by '.'.  Text from the file (host
 * names, the title) is escaped, and whatever is not a well-formed XML
 * character in UTF-8 becomes U+FFFD, so the file is always well-formed.
 */
#include "linktest_svg.h"
#include "cli_common.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout (px) -------------------------------------------------------- */

#define MATRIX_PX 800.0
#define MX 70.0  /* the matrix's left edge */
#define MY 84.0  /* its top edge */
#define MAX_CELLS 512       /* more ranks than this are binned */
#define LEVELS 64           /* colours of the scale */
#define MAX_HOST_LINES 100  /* more boundaries: only every k-th is drawn */
#define LABELS_MAX 20       /* circles numbered */
#define BAR_X (MX + MATRIX_PX + 24)
#define BAR_W 18.0
#define HX (BAR_X + BAR_W + 120) /* the histogram's plot area */
#define HY (MY + 24)
#define HW 420.0
#define HH 300.0
#define LIST_Y (HY + HH + 80) /* the list of the slowest */
#define LIST_LINE 16.0
#define LIST_MAX 22
#define PAGE_W (HX + HW + 30)
#define PAGE_H (MY + MATRIX_PX + 90)

/* ---- buffered output with locale-independent numbers -------------------- */

typedef struct {
    FILE *fp;
    char point[8]; /* the locale's decimal point, when it is not "." */
    size_t len;
    int oom; /* a text could not be escaped */
    char buf[1 << 16];
} svg_out;

static void out_flush(svg_out *o)
{
    if (o->len)
        fwrite(o->buf, 1, o->len, o->fp);
    o->len = 0;
}

static void out_mem(svg_out *o, const char *s, size_t n)
{
    if (o->len + n > sizeof o->buf) {
        out_flush(o);
        if (n > sizeof o->buf) {
            fwrite(s, 1, n, o->fp);
            return;
        }
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void out_str(svg_out *o, const char *s)
{
    out_mem(o, s, strlen(s));
}

static void out_uint(svg_out *o, unsigned long long v)
{
    char b[24];
    size_t i = sizeof b;
    do
        b[--i] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    out_mem(o, b + i, sizeof b - i);
}

static void out_int(svg_out *o, long long v)
{
    if (v < 0) {
        out_mem(o, "-", 1);
        out_uint(o, 0 - (unsigned long long)v);
    } else
        out_uint(o, (unsigned long long)v);
}

/* A coordinate: at most two decimals, no trailing zeros. */
static void out_fixed(svg_out *o, double v)
{
    if (!isfinite(v) || fabs(v) > 1e12)
        v = 0;
    long long k = llround(v * 100);
    if (k < 0) {
        out_mem(o, "-", 1);
        k = -k;
    }
    out_uint(o, (unsigned long long)(k / 100));
    int f = (int)(k % 100);
    if (f) {
        char d[3] = {'.', (char)('0' + f / 10), (char)('0' + f % 10)};
        out_mem(o, d, f % 10 ? 3 : 2);
    }
}

/* v with "%.*g" and `prec` significant digits, C's decimal point. */
static void format_number(const svg_out *o, char *buf, size_t size, int prec, double v)
{
    snprintf(buf, size, "%.*g", prec, v);
    if (o->point[0]) { /* a program called setlocale */
        char *p = strstr(buf, o->point);
        if (p) {
            size_t n = strlen(o->point);
            *p = '.';
            memmove(p + 1, p + n, strlen(p + n) + 1);
        }
    }
}

/* A value for people (microseconds): three significant digits, or the
 * integer from 1000 on (1234, not 1.23e+03). */
static void format_value(const svg_out *o, char *buf, size_t size, double v)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else if (fabs(v) >= 1000 && fabs(v) < 1e9)
        format_number(o, buf, size, 10, round(v));
    else
        format_number(o, buf, size, 3, v);
}

static void out_value(svg_out *o, double v)
{
    char b[64];
    format_value(o, b, sizeof b, v);
    out_str(o, b);
}

/* Text or an attribute value, escaped as libcube escapes every XML text
 * (cube_xml_escape).  At most `max_chars` characters (0: no limit; a
 * character is a UTF-8 lead byte and its continuation bytes); a longer
 * text ends in an ellipsis. */
static void out_text(svg_out *o, const char *s, size_t max_chars)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t keep = strlen((const char *)p), chars = 0;
    int cut = 0;
    for (size_t i = 0; max_chars && p[i]; i++) {
        if ((p[i] & 0xC0) == 0x80)
            continue;
        if (++chars == max_chars) {
            /* room for one more: the last character, or the ellipsis */
            size_t j = i + 1;
            while ((p[j] & 0xC0) == 0x80)
                j++;
            if (p[j]) {
                keep = i;
                cut = 1;
            }
            break;
        }
    }
    char *head = malloc(keep + 1);
    char *text = head ? (memcpy(head, p, keep), head[keep] = '\0', cube_xml_escape(head)) : NULL;
    if (text)
        out_str(o, text);
    else
        o->oom = 1;
    if (cut)
        out_str(o, "\xE2\x80\xA6");
    free(text);
    free(head);
}

/* A small printf: %s raw text, %t escaped text, %d int, %z size_t,
 * %u unsigned long long, %f a coordinate (double, two decimals at most),
 * %g a value for people (double), %% '%'.  Every number is written
 * without the locale. */
static void emit(svg_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    while (*fmt) {
        const char *pct = strchr(fmt, '%');
        if (!pct) {
            out_str(o, fmt);
            break;
        }
        out_mem(o, fmt, (size_t)(pct - fmt));
        switch (pct[1]) {
        case 's': out_str(o, va_arg(ap, const char *)); break;
        case 't': out_text(o, va_arg(ap, const char *), 0); break;
        case 'd': out_int(o, va_arg(ap, int)); break;
        case 'z': out_uint(o, va_arg(ap, size_t)); break;
        case 'u': out_uint(o, va_arg(ap, unsigned long long)); break;
        case 'f': out_fixed(o, va_arg(ap, double)); break;
        case 'g': out_value(o, va_arg(ap, double)); break;
        case '%': out_mem(o, "%", 1); break;
        default: out_mem(o, pct, 2); break; /* not reached: our own formats */
        }
        fmt = pct + 2;
    }
    va_end(ap);
}

/* ---- the colour scale --------------------------------------------------- */

/* Colour t in [0, 1] of the scale: a path through Oklab (a perceptually
 * uniform space) whose lightness rises linearly from 0.30 to 0.93 while the
 * hue turns from blue-violet (290 deg) through blue, teal and green to
 * yellow (105 deg), chroma lowest in the middle: ordered and even like
 * viridis, computed here.  Chroma is reduced where sRGB cannot show it. */
static void scale_colour(double t, char hex[8])
{
    double L = 0.30 + 0.63 * t;
    double h = (290.0 - 185.0 * t) * 3.14159265358979323846 / 180.0;
    double C = 0.14 - 0.22 * t + 0.26 * t * t;
    double rgb[3] = {0, 0, 0};
    for (int tries = 0; tries < 40; tries++, C *= 0.95) {
        double a = C * cos(h), b = C * sin(h);
        double l_ = L + 0.3963377774 * a + 0.2158037573 * b;
        double m_ = L - 0.1055613458 * a - 0.0638541728 * b;
        double s_ = L - 0.0894841775 * a - 1.2914855480 * b;
        double l = l_ * l_ * l_, m = m_ * m_ * m_, s = s_ * s_ * s_;
        rgb[0] = 4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s;
        rgb[1] = -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s;
        rgb[2] = -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s;
        if (rgb[0] >= -1e-4 && rgb[0] <= 1.0001 && rgb[1] >= -1e-4 && rgb[1] <= 1.0001 &&
            rgb[2] >= -1e-4 && rgb[2] <= 1.0001)
            break;
    }
    int c8[3];
    for (int i = 0; i < 3; i++) {
        double x = rgb[i] < 0 ? 0 : rgb[i] > 1 ? 1 : rgb[i];
        x = x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055;
        c8[i] = (int)lround(x * 255);
    }
    static const char digits[] = "0123456789abcdef";
    hex[0] = '#';
    for (int i = 0; i < 3; i++) {
        hex[1 + 2 * i] = digits[c8[i] >> 4];
        hex[2 + 2 * i] = digits[c8[i] & 15];
    }
    hex[7] = '\0';
}

#define GREY "#c8c8c8" /* no measurement */

/* The log scale of times (seconds): lg0 .. lg1 = log10 of the fastest
 * (positive) and the slowest measurement. */
typedef struct {
    double lg0, lg1;
    char colour[LEVELS][8];
} time_scale;

static double scale_pos(const time_scale *ts, double v)
{
    if (!(v > 0))
        return 0;
    double f = (log10(v) - ts->lg0) / (ts->lg1 - ts->lg0);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

static int scale_level(const time_scale *ts, double v)
{
    int l = (int)(scale_pos(ts, v) * LEVELS);
    return l >= LEVELS ? LEVELS - 1 : l;
}

/* ---- ticks -------------------------------------------------------------- */

/* Ticks of a log axis over [lo, hi] (lo > 0): 1-2-5 steps, or decades when
 * those are too many, or 1..9 (or linear steps) on a short range.  At most
 * 12 into t; returns the count. */
static size_t log_ticks(double lo, double hi, double *t)
{
    static const double m125[] = {1, 2, 5}, m19[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    int e0 = (int)floor(log10(lo)) - 1, e1 = (int)ceil(log10(hi)) + 1;
    const double *sets[] = {m125, m19};
    const size_t sizes[] = {3, 9};
    for (int s = 0; s < 2; s++) {
        size_t n = 0;
        for (int e = e0; e <= e1; e++)
            for (size_t i = 0; i < sizes[s]; i++) {
                double v = sets[s][i] * pow(10, e);
                if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
                    n++;
            }
        if (n > 10 && s == 0) { /* decades, every k-th */
            int d0 = (int)ceil(log10(lo) - 1e-9), d1 = (int)floor(log10(hi) + 1e-9);
            int k = (d1 - d0) / 10 + 1;
            size_t c = 0;
            for (int e = d0; e <= d1 && c < 12; e += k)
                t[c++] = pow(10, e);
            return c;
        }
        if (n >= 3 || (s == 1 && n >= 2)) {
            size_t c = 0;
            for (int e = e0; e <= e1; e++)
                for (size_t i = 0; i < sizes[s] && c < 12; i++) {
                    double v = sets[s][i] * pow(10, e);
                    if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
                        t[c++] = v;
                }
            return c;
        }
    }
    /* a short range: linear 1-2-5 steps */
    double range = hi - lo, mag = pow(10, floor(log10(range / 4))), step = mag;
    if (range / step > 6)
        step = 2 * mag;
    if (range / step > 6)
        step = 5 * mag;
    size_t c = 0;
    for (double v = ceil(lo / step) * step; v <= hi * (1 + 1e-12) && c < 12; v += step)
        t[c++] = v;
    return c;
}

/* A tick step for ranks: 1, 2 or 5 times a power of ten, at most 8 ticks. */
static size_t rank_step(size_t n)
{
    size_t mag = 1;
    for (;;) {
        if (n <= 8 * mag)
            return mag;
        if (n <= 16 * mag)
            return 2 * mag;
        if (n <= 40 * mag)
            return 5 * mag;
        mag *= 10;
    }
}

/* A tick label: the value with up to 6 significant digits. */
static void out_tick_label(svg_out *o, double v)
{
    char b[64];
    format_number(o, b, sizeof b, 6, v);
    out_str(o, b);
}

/* A count tick label (1, 2 or 5 times a power of ten): 500, 2k, 10M. */
static void out_count_label(svg_out *o, double v)
{
    static const char *const suffix[] = {"", "k", "M", "G", "T", "P"};
    int u = 0;
    while (u < 5 && v >= 1000) {
        v /= 1000;
        u++;
    }
    out_uint(o, (unsigned long long)llround(v));
    out_str(o, suffix[u]);
}

/* ---- the matrix --------------------------------------------------------- */

/* The cells: g x g floats (NaN: no measurement), each the maximum over its
 * b x b block of the per-link values (the mean over the iterations).  Also
 * the smallest positive and the largest measurement, and how many there
 * are.  The rows are read one at a time (cube_linktest_read_row), so the
 * memory is that of the cells and two rows, with or without the matrices
 * in memory.  0, or -1 after printing the error. */
static int build_grid(cube_linktest *lt, size_t n, size_t b, size_t g, float *grid,
                      double *lo_pos, double *hi, size_t *count)
{
    size_t m = cube_linktest_num_permutations(lt);
    double *row = malloc((n ? n : 1) * sizeof *row);
    double *sum = m > 1 ? malloc((n ? n : 1) * sizeof *sum) : NULL;
    size_t *num = m > 1 ? malloc((n ? n : 1) * sizeof *num) : NULL;
    int rc = -1;
    if (!row || (m > 1 && (!sum || !num))) {
        cli_error("out of memory");
        goto done;
    }
    double lo = INFINITY, top = -INFINITY;
    size_t cnt = 0;
    for (size_t i = 0; i < g * g; i++)
        grid[i] = NAN;
    for (size_t r = 0; r < n && m > 0; r++) {
        if (m > 1)
            for (size_t c = 0; c < n; c++) {
                sum[c] = 0;
                num[c] = 0;
            }
        for (size_t k = 0; k < m; k++) {
            if (cube_linktest_read_row(lt, k, r, row) != 0) {
                cli_error("%s", cube_linktest_error(lt));
                goto done;
            }
            for (size_t c = 0; c < n; c++) {
                double v = row[c];
                if (c == r || isnan(v))
                    continue;
                cnt++;
                top = v > top ? v : top;
                if (v > 0 && v < lo)
                    lo = v;
                if (m > 1) {
                    sum[c] += v;
                    num[c]++;
                }
            }
        }
        if (m > 1)
            for (size_t c = 0; c < n; c++)
                row[c] = num[c] ? sum[c] / (double)num[c] : NAN;
        float *cells = grid + (r / b) * g;
        for (size_t gc = 0; gc < g; gc++) {
            size_t c0 = gc * b, c1 = c0 + b < n ? c0 + b : n;
            double best = cells[gc];
            for (size_t c = c0; c < c1; c++) {
                double v = row[c];
                if (c != r && !isnan(v) && (isnan(best) || v > best))
                    best = v;
            }
            cells[gc] = (float)best;
        }
    }
    *lo_pos = lo;
    *hi = top;
    *count = cnt;
    rc = 0;
done:
    free(row);
    free(sum);
    free(num);
    return rc;
}

/* One <path> per colour; each horizontal run of equal cells is one
 * stroked segment of width 1 (in cell units, shifted down half a cell). */
static void draw_cells(svg_out *o, const unsigned char *lev, size_t g, const time_scale *ts,
                       double ppr, size_t b)
{
    size_t used[LEVELS + 1] = {0};
    for (size_t i = 0; i < g * g; i++)
        used[lev[i]]++;
    /* the scale factor with more digits than %f gives, so that the last
     * cell ends on the matrix's edge */
    char sc[64];
    format_number(o, sc, sizeof sc, 9, ppr * (double)b);
    emit(o,
         "<clipPath id=\"matrix-clip\"><rect x=\"%f\" y=\"%f\" width=\"%f\" height=\"%f\"/>"
         "</clipPath>\n"
         "<g clip-path=\"url(#matrix-clip)\">\n"
         "<g transform=\"translate(%f %f) scale(%s) translate(0 0.5)\" fill=\"none\" "
         "stroke-width=\"1\" shape-rendering=\"crispEdges\">\n",
         MX, MY, MATRIX_PX, MATRIX_PX, MX, MY, sc);
    for (int l = 0; l <= LEVELS; l++) {
        if (!used[l])
            continue;
        emit(o, "<path stroke=\"%s\" d=\"", l == LEVELS ? GREY : ts->colour[l]);
        for (size_t y = 0; y < g; y++) {
            const unsigned char *row = lev + y * g;
            size_t end = (size_t)-1;
            for (size_t x = 0; x < g;) {
                if (row[x] != l) {
                    x++;
                    continue;
                }
                size_t x2 = x + 1;
                while (x2 < g && row[x2] == l)
                    x2++;
                if (end == (size_t)-1)
                    emit(o, "M%z %zh%z", x, y, x2 - x);
                else
                    emit(o, "m%z 0h%z", x - end, x2 - x);
                end = x2;
                x = x2;
            }
        }
        out_str(o, "\"/>\n");
    }
    out_str(o, "</g>\n</g>\n");
}

/* ---- helpers for the text ----------------------------------------------- */

static void out_bytes(svg_out *o, uint64_t v)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    out_uint(o, v);
    out_str(o, " ");
    out_str(o, units[u]);
}

static const char *host_of(const cube_linktest *lt, size_t r)
{
    const char *h = cube_linktest_hostname(lt, r);
    return h ? h : "";
}

/* ---- the picture -------------------------------------------------------- */

/* What the parts of the page share: the run, its layout and its numbers. */
typedef struct {
    svg_out *o;
    cube_linktest *lt;
    const cube_linktest_header *hdr;
    const char *title;
    size_t n;      /* ranks */
    size_t m;      /* iterations (permutations) */
    size_t b;      /* ranks per cell (1: not binned) */
    size_t g;      /* cells per side */
    double ppr;    /* px per rank */
    size_t count;  /* measurements */
    size_t nhosts; /* distinct host names */
    size_t *seg;   /* first rank of each host segment */
    size_t nseg;
    size_t every; /* draw every k-th host boundary */
    const cube_linktest_link *slowest;
    size_t num_slowest;
    const double *edges; /* the histogram, when have_hist */
    const uint64_t *counts;
    size_t num_bins;
    int have_hist;
    cube_linktest_stats st;
    time_scale ts;
    double tk[12]; /* the time ticks (us), shared by the colour bar and the histogram */
    size_t ntk;
} svg_page;

/* The log scale from the fastest positive to the slowest measurement, and
 * each cell's level on it (LEVELS: no measurement). */
static void make_scale(svg_page *pg, double lo_pos, double hi, const float *grid,
                       unsigned char *lev)
{
    time_scale *ts = &pg->ts;
    if (!(lo_pos <= hi)) /* no positive time */
        lo_pos = hi = 1e-6;
    ts->lg0 = log10(lo_pos);
    ts->lg1 = log10(hi);
    if (ts->lg1 - ts->lg0 < 1e-6) { /* one value: a decade around it */
        ts->lg0 -= 0.5;
        ts->lg1 += 0.5;
    }
    for (int l = 0; l < LEVELS; l++)
        scale_colour(((double)l + 0.5) / LEVELS, ts->colour[l]);
    for (size_t i = 0; i < pg->g * pg->g; i++)
        lev[i] = isnan(grid[i]) ? LEVELS : (unsigned char)scale_level(ts, grid[i]);
}

/* Hosts: runs of consecutive ranks with one name, and how many of their
 * boundaries are drawn (every k-th beyond MAX_HOST_LINES). */
static void find_host_segments(svg_page *pg)
{
    pg->nseg = 0;
    for (size_t r = 0; r < pg->n; r++)
        if (r == 0 || strcmp(host_of(pg->lt, r), host_of(pg->lt, r - 1)) != 0)
            pg->seg[pg->nseg++] = r;
    size_t nseg = pg->nseg;
    pg->every = nseg - (nseg > 0) > MAX_HOST_LINES
                    ? (nseg - 1 + MAX_HOST_LINES - 1) / MAX_HOST_LINES
                    : 1;
}

static void write_head(svg_page *pg)
{
    svg_out *o = pg->o;
    emit(o,
         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%f\" "
         "height=\"%f\" viewBox=\"0 0 %f %f\">\n<title>",
         PAGE_W, PAGE_H, PAGE_W, PAGE_H);
    out_text(o, pg->title ? pg->title : "LinkTest", 0);
    out_str(o, "</title>\n<style>\n"
               "text { font-family: sans-serif; font-size: 12px; fill: black; }\n"
               "text.title { font-size: 16px; font-weight: bold; }\n"
               "text.axis { font-size: 13px; }\n"
               "text.note { font-size: 11px; fill: #444444; }\n"
               "text.host { font-size: 11px; fill: #333333; }\n"
               "text.label { font-size: 11px; fill: black; stroke: white; stroke-width: 3px; "
               "paint-order: stroke; }\n"
               "text.num { font-size: 11px; font-weight: bold; fill: black; stroke: white; "
               "stroke-width: 3px; paint-order: stroke; }\n"
               "line { stroke: black; stroke-width: 1; }\n"
               "line.host { stroke: white; stroke-opacity: 0.75; }\n"
               "line.dense { stroke-width: 0.6; stroke-opacity: 0.45; }\n"
               "line.median { stroke-dasharray: 5 3; }\n"
               "rect.frame { fill: none; stroke: black; stroke-width: 1; }\n"
               "circle.halo { fill: none; stroke: white; stroke-width: 4; }\n"
               "circle.ring { fill: none; stroke: #e4002b; stroke-width: 2; }\n"
               "</style>\n");
    emit(o, "<rect x=\"0\" y=\"0\" width=\"%f\" height=\"%f\" fill=\"white\"/>\n", PAGE_W,
         PAGE_H);
}

/* The file name, the run, and the time statistics. */
static void write_title(svg_page *pg)
{
    svg_out *o = pg->o;
    const cube_linktest_header *hdr = pg->hdr;
    size_t n = pg->n, m = pg->m, nhosts = pg->nhosts, count = pg->count;
    emit(o, "<text class=\"title\" x=\"%f\" y=\"24\">", MX);
    out_text(o, pg->title ? pg->title : "LinkTest", 150);
    emit(o, "</text>\n<text x=\"%f\" y=\"44\">LinkTest %u.%u.%u", MX,
         (unsigned long long)hdr->major, (unsigned long long)hdr->minor,
         (unsigned long long)hdr->patch);
    if (hdr->mode && hdr->mode[0]) {
        out_str(o, ", mode ");
        out_text(o, hdr->mode, 40);
    }
    emit(o, " \xC2\xB7 %z rank%s on %z host%s \xC2\xB7 message size ", n, n == 1 ? "" : "s",
         nhosts, nhosts == 1 ? "" : "s");
    out_bytes(o, hdr->message_size);
    emit(o, " \xC2\xB7 %z iteration%s \xC2\xB7 %z measurement%s</text>\n", m,
         m == 1 ? "" : "s", count, count == 1 ? "" : "s");
    if (pg->st.count)
        emit(o,
             "<text x=\"%f\" y=\"62\">time min %g \xC2\xB7 median %g \xC2\xB7 max %g \xC2\xB5s "
             "(mean %g \xC2\xB5s)</text>\n",
             MX, pg->st.min * 1e6, pg->st.median * 1e6, pg->st.max * 1e6, pg->st.mean * 1e6);
    else
        emit(o, "<text x=\"%f\" y=\"62\">no measurements</text>\n", MX);
}

/* The host boundaries across the matrix, then its frame, then the host
 * names above the columns where they fit. */
static void write_hosts(svg_page *pg)
{
    svg_out *o = pg->o;
    size_t nseg = pg->nseg, every = pg->every, *seg = pg->seg;
    double ppr = pg->ppr;
    if (nseg > 1) {
        /* fainter when they are close: the cells matter more */
        size_t drawn = (nseg - 2) / every + 1;
        const char *cls = MATRIX_PX / (double)(drawn + 1) < 24 ? "host dense" : "host";
        out_str(o, "<g class=\"hosts\">\n");
        for (size_t s = 1; s < nseg; s += every) {
            double p = (double)seg[s] * ppr;
            emit(o,
                 "<line class=\"%s\" x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>"
                 "<line class=\"%s\" x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>\n",
                 cls, MX + p, MY, MX + p, MY + MATRIX_PX, cls, MX, MY + p, MX + MATRIX_PX,
                 MY + p);
        }
        out_str(o, "</g>\n");
    }
    emit(o, "<rect class=\"frame\" x=\"%f\" y=\"%f\" width=\"%f\" height=\"%f\"/>\n", MX, MY,
         MATRIX_PX, MATRIX_PX);
    if (nseg <= 64)
        for (size_t s = 0; s < nseg; s++) {
            size_t end = s + 1 < nseg ? seg[s + 1] : pg->n;
            double w = (double)(end - seg[s]) * ppr;
            size_t chars = (size_t)((w - 10) / 7);
            if (chars < 3)
                continue;
            emit(o, "<text class=\"host\" x=\"%f\" y=\"%f\" text-anchor=\"middle\">",
                 MX + (double)seg[s] * ppr + w / 2, MY - 6);
            out_text(o, cube_linktest_hostname(pg->lt, seg[s]), chars);
            out_str(o, "</text>\n");
        }
}

/* The rank ticks on both sides of the matrix and the axis titles. */
static void write_rank_axes(svg_page *pg)
{
    svg_out *o = pg->o;
    size_t step = rank_step(pg->n);
    for (size_t r = 0; r < pg->n; r += step) {
        double p = ((double)r + 0.5) * pg->ppr;
        emit(o,
             "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>"
             "<text x=\"%f\" y=\"%f\" text-anchor=\"end\">%z</text>\n"
             "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>"
             "<text x=\"%f\" y=\"%f\" text-anchor=\"middle\">%z</text>\n",
             MX - 5, MY + p, MX, MY + p, MX - 8, MY + p + 4, r, MX + p, MY + MATRIX_PX,
             MX + p, MY + MATRIX_PX + 5, MX + p, MY + MATRIX_PX + 18, r);
    }
    emit(o,
         "<text class=\"axis\" x=\"%f\" y=\"%f\" text-anchor=\"middle\" "
         "transform=\"rotate(-90 %f %f)\">rank (measuring)</text>\n"
         "<text class=\"axis\" x=\"%f\" y=\"%f\" text-anchor=\"middle\">partner</text>\n",
         MX - 46, MY + MATRIX_PX / 2, MX - 46, MY + MATRIX_PX / 2, MX + MATRIX_PX / 2,
         MY + MATRIX_PX + 36);
}

/* Two lines below the matrix saying what the colours, the white lines and
 * the red circles mean. */
static void write_matrix_notes(svg_page *pg)
{
    svg_out *o = pg->o;
    size_t m = pg->m, b = pg->b, g = pg->g, nseg = pg->nseg, every = pg->every;
    size_t num_slowest = pg->num_slowest;
    const cube_linktest_link *slowest = pg->slowest;
    emit(o, "<text class=\"note\" x=\"%f\" y=\"%f\">", MX, MY + MATRIX_PX + 58);
    if (m > 1)
        emit(o, "Colour: time of the link, the mean over the %z iterations", m);
    else
        out_str(o, "Colour: time of the link");
    if (b > 1)
        emit(o, "; binned: ranks in blocks of %z, a cell shows the slowest (maximum) of its "
                "%z \xC3\x97 %z links (%z \xC3\x97 %z cells)",
             b, b, b, g, g);
    out_str(o, "; grey: no measurement.</text>\n");
    emit(o, "<text class=\"note\" x=\"%f\" y=\"%f\">", MX, MY + MATRIX_PX + 74);
    if (nseg > 1) {
        if (every > 1)
            emit(o, "White lines: one in %z of the %z host boundaries. ", every, nseg - 1);
        else
            out_str(o, "White lines: host boundaries. ");
    }
    if (num_slowest) {
        size_t links = num_slowest; /* distinct (rank, partner); a short list */
        if (num_slowest <= 1000)
            links = 0;
        for (size_t i = 0; i < num_slowest && num_slowest <= 1000; i++) {
            size_t j = 0;
            while (j < i && (slowest[j].rank != slowest[i].rank ||
                             slowest[j].partner != slowest[i].partner))
                j++;
            links += j == i;
        }
        emit(o, "Red circles: the %z slowest measurement%s", num_slowest,
             num_slowest == 1 ? "" : "s");
        if (links != num_slowest)
            emit(o, " (%z link%s)", links, links == 1 ? "" : "s");
        out_str(o, ", numbered slowest first.");
    }
    out_str(o, "</text>\n");
}

/* The numbers of the circled cells, the first time a cell is listed, for
 * the first LABELS_MAX: beside the circle (radius rad), at the first corner
 * (NE, NW, SE, SW) where the number stays inside the matrix and off the
 * numbers placed before (those of slower measurements). */
static void write_slowest_numbers(svg_page *pg, double rad)
{
    const cube_linktest_link *slowest = pg->slowest;
    double box[LABELS_MAX][4]; /* x0 y0 x1 y1 */
    size_t placed = 0;
    for (size_t i = 0; i < pg->num_slowest && i < LABELS_MAX; i++) {
        const cube_linktest_link *s = &slowest[i];
        if (s->rank >= pg->n || s->partner >= pg->n)
            continue;
        size_t j = 0;
        while (j < i && (slowest[j].rank != s->rank || slowest[j].partner != s->partner))
            j++;
        if (j < i)
            continue;
        double cx = MX + ((double)s->partner + 0.5) * pg->ppr;
        double cy = MY + ((double)s->rank + 0.5) * pg->ppr;
        double d = rad * 0.72 + 2, w = i + 1 < 10 ? 8 : 15;
        double cand[4][2] = {{cx + d, cy - d}, {cx - d - w, cy - d},
                             {cx + d, cy + d + 10}, {cx - d - w, cy + d + 10}};
        int pick = -1, inside = -1;
        for (int c = 0; c < 4 && pick < 0; c++) {
            double x0 = cand[c][0], y0 = cand[c][1] - 10, x1 = x0 + w, y1 = cand[c][1] + 1;
            if (x0 < MX + 1 || x1 > MX + MATRIX_PX - 1 || y0 < MY + 1 ||
                y1 > MY + MATRIX_PX - 1)
                continue;
            if (inside < 0)
                inside = c;
            size_t k = 0;
            while (k < placed && (x1 <= box[k][0] || x0 >= box[k][2] || y1 <= box[k][1] ||
                                  y0 >= box[k][3]))
                k++;
            if (k == placed)
                pick = c;
        }
        if (pick < 0)
            pick = inside < 0 ? 0 : inside;
        box[placed][0] = cand[pick][0];
        box[placed][1] = cand[pick][1] - 10;
        box[placed][2] = cand[pick][0] + w;
        box[placed][3] = cand[pick][1] + 1;
        placed++;
        emit(pg->o, "<text class=\"num\" x=\"%f\" y=\"%f\">%z</text>\n", cand[pick][0],
             cand[pick][1], i + 1);
    }
}

/* The slowest, circled, with a tooltip each; the slowest last, so that it
 * is on top; then their numbers. */
static void write_slowest_circles(svg_page *pg)
{
    svg_out *o = pg->o;
    double cell = pg->ppr * (double)pg->b;
    double rad = 0.45 * cell < 6 ? 6 : 0.45 * cell > 24 ? 24 : 0.45 * cell;
    out_str(o, "<g class=\"slowest\">\n");
    for (size_t i = pg->num_slowest; i-- > 0;) {
        const cube_linktest_link *s = &pg->slowest[i];
        if (s->rank >= pg->n || s->partner >= pg->n)
            continue;
        double cx = MX + ((double)s->partner + 0.5) * pg->ppr;
        double cy = MY + ((double)s->rank + 0.5) * pg->ppr;
        emit(o, "<g><title>#%z: rank %z (%t) with partner %z (%t)", i + 1, s->rank,
             host_of(pg->lt, s->rank), s->partner, host_of(pg->lt, s->partner));
        if (pg->m > 1)
            emit(o, ", iteration %z", s->iteration);
        emit(o, ": %g \xC2\xB5s", s->time * 1e6);
        if (!isnan(s->retested))
            emit(o, ", retested %g \xC2\xB5s", s->retested * 1e6);
        emit(o,
             "</title><circle class=\"halo\" cx=\"%f\" cy=\"%f\" r=\"%f\"/>"
             "<circle class=\"ring\" cx=\"%f\" cy=\"%f\" r=\"%f\"/></g>\n",
             cx, cy, rad, cx, cy, rad);
    }
    write_slowest_numbers(pg, rad);
    out_str(o, "</g>\n");
}

static void write_matrix(svg_page *pg, const unsigned char *lev)
{
    out_str(pg->o, "<g id=\"matrix\">\n");
    if (pg->g)
        draw_cells(pg->o, lev, pg->g, &pg->ts, pg->ppr, pg->b);
    write_hosts(pg);
    write_rank_axes(pg);
    write_matrix_notes(pg);
    if (pg->num_slowest && pg->n)
        write_slowest_circles(pg);
    out_str(pg->o, "</g>\n");
}

static void write_colour_bar(svg_page *pg)
{
    svg_out *o = pg->o;
    const time_scale *ts = &pg->ts;
    emit(o, "<g id=\"colour-bar\">\n<g shape-rendering=\"crispEdges\">\n");
    for (int l = 0; l < LEVELS; l++) {
        double y0 = MY + MATRIX_PX * (1 - (double)(l + 1) / LEVELS);
        emit(o, "<rect x=\"%f\" y=\"%f\" width=\"%f\" height=\"%f\" fill=\"%s\"/>\n", BAR_X,
             y0, BAR_W, MATRIX_PX / LEVELS + (l + 1 < LEVELS ? 0.5 : 0), ts->colour[l]);
    }
    emit(o, "</g>\n<rect class=\"frame\" x=\"%f\" y=\"%f\" width=\"%f\" height=\"%f\"/>\n",
         BAR_X, MY, BAR_W, MATRIX_PX);
    for (size_t i = 0; i < pg->ntk; i++) {
        double y = MY + MATRIX_PX * (1 - scale_pos(ts, pg->tk[i] * 1e-6));
        emit(o,
             "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/><text x=\"%f\" y=\"%f\">", BAR_X +
             BAR_W, y, BAR_X + BAR_W + 5, y, BAR_X + BAR_W + 8, y + 4);
        out_tick_label(o, pg->tk[i]);
        out_str(o, "</text>\n");
    }
    emit(o,
         "<text class=\"axis\" x=\"%f\" y=\"%f\" text-anchor=\"middle\">\xC2\xB5s</text>\n"
         "<text class=\"note\" x=\"%f\" y=\"%f\" text-anchor=\"middle\">(log)</text>\n</g>\n",
         BAR_X + BAR_W / 2, MY - 20, BAR_X + BAR_W / 2, MY - 6);
}

/* The histogram's axes: x the log10 of the time (seconds) from ax0 to ax1,
 * y the log10 of the count from ly0 to ly1. */
typedef struct {
    double ax0, ax1, ly0, ly1;
} hist_axes;

static double hist_x(const hist_axes *a, double lg)
{
    return HX + HW * (lg - a->ax0) / (a->ax1 - a->ax0);
}

static double hist_y(const hist_axes *a, double c)
{
    return HY + HH * (1 - (log10(c) - a->ly0) / (a->ly1 - a->ly0));
}

/* A bar per non-empty bin in the colour of its centre, and the median. */
static void write_histogram_bars(svg_page *pg, const hist_axes *a)
{
    svg_out *o = pg->o;
    const time_scale *ts = &pg->ts;
    const double *edges = pg->edges;
    out_str(o, "<g shape-rendering=\"crispEdges\">\n");
    for (size_t k = 0; k < pg->num_bins; k++) {
        if (!pg->counts[k])
            continue;
        double e0 = edges[k] > 0 ? log10(edges[k]) : ts->lg0;
        double e1 = edges[k + 1] > 0 ? log10(edges[k + 1]) : ts->lg0;
        /* whole pixels, so that neighbours share their edge (no seam
         * between crisp edges) */
        double x0 = floor(hist_x(a, e0) + 0.5), x1 = floor(hist_x(a, e1) + 0.5);
        if (x1 - x0 < 1) { /* one value, or a bin narrower than a pixel */
            double c = floor((hist_x(a, e0) + hist_x(a, e1)) / 2);
            x0 = e1 - e0 < 1e-12 ? c - 4 : c;
            x1 = e1 - e0 < 1e-12 ? c + 5 : c + 1;
        }
        double y = hist_y(a, (double)pg->counts[k]);
        const char *col = ts->colour[scale_level(ts, pow(10, (e0 + e1) / 2))];
        emit(o,
             "<rect x=\"%f\" y=\"%f\" width=\"%f\" height=\"%f\" fill=\"%s\"><title>%g "
             "to %g \xC2\xB5s: %u</title></rect>\n",
             x0, y, x1 - x0, HY + HH - y, col, edges[k] * 1e6, edges[k + 1] * 1e6,
             (unsigned long long)pg->counts[k]);
    }
    out_str(o, "</g>\n");
    double median = pg->st.median;
    double xm = hist_x(a, log10(median > 0 ? median : pow(10, ts->lg0)));
    emit(o,
         "<line class=\"median\" x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>"
         "<text class=\"label\" x=\"%f\" y=\"%f\" text-anchor=\"%s\">median %g "
         "\xC2\xB5s</text>\n",
         xm, HY + HH, xm, HY, xm + (xm > HX + HW - 110 ? -4 : 4), HY + 10,
         xm > HX + HW - 110 ? "end" : "start", median * 1e6);
}

/* The axes with the time ticks (those of the colour bar) and the count
 * ticks (whole numbers only), and their titles. */
static void write_histogram_axes(svg_page *pg, const hist_axes *a)
{
    svg_out *o = pg->o;
    emit(o,
         "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>"
         "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>\n",
         HX, HY, HX, HY + HH, HX, HY + HH, HX + HW, HY + HH);
    for (size_t i = 0; i < pg->ntk; i++) {
        double x = hist_x(a, log10(pg->tk[i] * 1e-6));
        emit(o,
             "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>"
             "<text x=\"%f\" y=\"%f\" text-anchor=\"middle\">",
             x, HY + HH, x, HY + HH + 5, x, HY + HH + 18);
        out_tick_label(o, pg->tk[i]);
        out_str(o, "</text>\n");
    }
    double ctk[12];
    size_t nctk = log_ticks(1, pow(10, a->ly1), ctk);
    for (size_t i = 0; i < nctk; i++) {
        if (ctk[i] < 1 || ctk[i] != floor(ctk[i]))
            continue;
        double y = hist_y(a, ctk[i]);
        emit(o,
             "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\"/>"
             "<text x=\"%f\" y=\"%f\" text-anchor=\"end\">",
             HX - 5, y, HX, y, HX - 8, y + 4);
        out_count_label(o, ctk[i]);
        out_str(o, "</text>\n");
    }
    emit(o,
         "<text class=\"axis\" x=\"%f\" y=\"%f\" text-anchor=\"middle\">time per "
         "measurement [\xC2\xB5s] (log)</text>\n"
         "<text class=\"axis\" x=\"%f\" y=\"%f\" text-anchor=\"middle\" "
         "transform=\"rotate(-90 %f %f)\">measurements (log)</text>\n</g>\n",
         HX + HW / 2, HY + HH + 36, HX - 58, HY + HH / 2, HX - 58, HY + HH / 2);
}

static void write_histogram(svg_page *pg)
{
    svg_out *o = pg->o;
    out_str(o, "<g id=\"histogram\">\n");
    emit(o, "<text class=\"axis\" x=\"%f\" y=\"%f\">Histogram of the %z measurement%s</text>\n",
         HX - 50, HY - 10, pg->count, pg->count == 1 ? "" : "s");
    /* x: the colour bar's scale with a little room at both ends; y: from
     * half a count (a single count stays visible) to a little above the
     * largest, at least one decade */
    hist_axes a;
    double pad = 0.03 * (pg->ts.lg1 - pg->ts.lg0);
    a.ax0 = pg->ts.lg0 - pad;
    a.ax1 = pg->ts.lg1 + pad;
    uint64_t cmax = 0;
    for (size_t k = 0; pg->have_hist && k < pg->num_bins; k++)
        cmax = pg->counts[k] > cmax ? pg->counts[k] : cmax;
    a.ly0 = log10(0.5);
    a.ly1 = cmax ? log10((double)cmax) : 1;
    a.ly1 += 0.08 * (a.ly1 - a.ly0);
    if (a.ly1 < 1)
        a.ly1 = 1;
    if (pg->have_hist)
        write_histogram_bars(pg, &a);
    else
        emit(o, "<text class=\"note\" x=\"%f\" y=\"%f\">no measurements</text>\n", HX + 10,
             HY + 20);
    write_histogram_axes(pg, &a);
}

/* The slowest as a table below the histogram: the first LIST_MAX, or
 * LIST_MAX - 1 and a line saying how many more there are. */
static void write_slowest_list(svg_page *pg)
{
    svg_out *o = pg->o;
    size_t n = pg->n, num_slowest = pg->num_slowest;
    double x0 = HX - 50, y = LIST_Y;
    emit(o, "<g id=\"slowest-list\">\n<text class=\"axis\" x=\"%f\" y=\"%f\">The %z slowest "
            "measurement%s</text>\n",
         x0, y, num_slowest, num_slowest == 1 ? "" : "s");
    y += LIST_LINE + 4;
    emit(o,
         "<text class=\"note\" x=\"%f\" y=\"%f\" text-anchor=\"end\">#</text>"
         "<text class=\"note\" x=\"%f\" y=\"%f\" text-anchor=\"end\">\xC2\xB5s</text>"
         "<text class=\"note\" x=\"%f\" y=\"%f\">rank \xE2\x86\x92 partner</text>"
         "<text class=\"note\" x=\"%f\" y=\"%f\">hosts</text>",
         x0 + 18, y, x0 + 82, y, x0 + 94, y, x0 + 196, y);
    if (pg->m > 1)
        emit(o, "<text class=\"note\" x=\"%f\" y=\"%f\" text-anchor=\"end\">iter.</text>",
             x0 + 420, y);
    emit(o, "<text class=\"note\" x=\"%f\" y=\"%f\" text-anchor=\"end\">retest</text>\n",
         x0 + 476, y);
    size_t shown = num_slowest <= LIST_MAX ? num_slowest : LIST_MAX - 1;
    for (size_t i = 0; i < shown; i++) {
        const cube_linktest_link *s = &pg->slowest[i];
        y += LIST_LINE;
        emit(o,
             "<text x=\"%f\" y=\"%f\" text-anchor=\"end\">%z</text>"
             "<text x=\"%f\" y=\"%f\" text-anchor=\"end\">%g</text>"
             "<text x=\"%f\" y=\"%f\">%z \xE2\x86\x92 %z</text><text x=\"%f\" y=\"%f\">",
             x0 + 18, y, i + 1, x0 + 82, y, s->time * 1e6, x0 + 94, y, s->rank, s->partner,
             x0 + 196, y);
        out_text(o, s->rank < n ? host_of(pg->lt, s->rank) : "?", 14);
        out_str(o, " \xE2\x86\x92 ");
        out_text(o, s->partner < n ? host_of(pg->lt, s->partner) : "?", 14);
        out_str(o, "</text>");
        if (pg->m > 1)
            emit(o, "<text x=\"%f\" y=\"%f\" text-anchor=\"end\">%z</text>", x0 + 420, y,
                 s->iteration);
        if (!isnan(s->retested))
            emit(o, "<text x=\"%f\" y=\"%f\" text-anchor=\"end\">%g</text>", x0 + 476, y,
                 s->retested * 1e6);
        out_str(o, "\n");
    }
    if (shown < num_slowest)
        emit(o, "<text class=\"note\" x=\"%f\" y=\"%f\">\xE2\x80\xA6 and %z more (circled)"
                "</text>\n",
             x0 + 94, y + LIST_LINE, num_slowest - shown);
    out_str(o, "</g>\n");
}

int linktest_svg_write(FILE *fp, cube_linktest *lt, const char *title,
                       const cube_linktest_link *slowest, size_t num_slowest, size_t num_bins)
{
    svg_page pg;
    memset(&pg, 0, sizeof pg);
    pg.lt = lt;
    pg.hdr = cube_linktest_get_header(lt);
    pg.title = title;
    pg.slowest = slowest;
    pg.num_slowest = num_slowest;
    pg.num_bins = num_bins;
    size_t n = pg.n = cube_linktest_num_ranks(lt);
    pg.m = cube_linktest_num_permutations(lt);
    size_t b = pg.b = n <= MAX_CELLS ? 1 : (n + MAX_CELLS - 1) / MAX_CELLS;
    size_t g = pg.g = n ? (n + b - 1) / b : 0;
    pg.ppr = n ? MATRIX_PX / (double)n : MATRIX_PX;

    svg_out *o = pg.o = malloc(sizeof *o);
    float *grid = malloc((g ? g * g : 1) * sizeof *grid);
    unsigned char *lev = malloc(g ? g * g : 1);
    pg.seg = malloc((n ? n : 1) * sizeof *pg.seg);
    int bins_ok = num_bins < SIZE_MAX / sizeof(double) - 1;
    double *edges = bins_ok ? malloc((num_bins + 1) * sizeof *edges) : NULL;
    uint64_t *counts = bins_ok ? malloc((num_bins ? num_bins : 1) * sizeof *counts) : NULL;
    pg.edges = edges;
    pg.counts = counts;
    int rc = -1;
    if (!o || !grid || !lev || !pg.seg || !edges || !counts)
        goto oom;
    o->fp = fp;
    o->len = 0;
    o->oom = 0;
    o->point[0] = '\0';
    {
        const char *dp = localeconv()->decimal_point;
        if (dp && strcmp(dp, ".") != 0 && strlen(dp) < sizeof o->point)
            strcpy(o->point, dp);
    }

    /* the numbers */
    double lo_pos, hi;
    if (build_grid(lt, n, b, g, grid, &lo_pos, &hi, &pg.count) != 0)
        goto done;
    pg.have_hist = pg.count > 0 && num_bins > 0;
    if (cube_linktest_time_stats(lt, CUBE_LINKTEST_ALL_ITERATIONS, &pg.st) != 0 ||
        (pg.have_hist && cube_linktest_histogram(lt, num_bins, edges, counts) != 0)) {
        cli_error("%s", cube_linktest_error(lt));
        goto done;
    }
    make_scale(&pg, lo_pos, hi, grid, lev);
    pg.nhosts = cube_linktest_num_hosts(lt);
    if (pg.nhosts == (size_t)-1)
        goto oom;
    find_host_segments(&pg);
    pg.ntk = log_ticks(pow(10, pg.ts.lg0) * 1e6, pow(10, pg.ts.lg1) * 1e6, pg.tk);

    write_head(&pg);
    write_title(&pg);
    write_matrix(&pg, lev);
    write_colour_bar(&pg);
    write_histogram(&pg);
    if (num_slowest)
        write_slowest_list(&pg);
    out_str(o, "</svg>\n");
    out_flush(o);
    if (o->oom)
        goto oom;
    rc = 0;
    goto done;
oom:
    cli_error("out of memory");
done:
    free(o);
    free(grid);
    free(lev);
    free(pg.seg);
    free(edges);
    free(counts);
    return rc;
}
