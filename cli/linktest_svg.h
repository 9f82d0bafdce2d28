/*
 * linktest_svg.h - the picture of a LinkTest run for cube_linktest --svg:
 * the N x N time matrix as a heat map (log colour scale with a legend,
 * host boundaries marked, the slowest measurements circled) beside a
 * histogram of the times on a log scale.  One self-contained SVG file,
 * readable for 4 to 4096 ranks and beyond (ranks are binned when there are
 * more than fit).
 */
#ifndef LINKTEST_SVG_H
#define LINKTEST_SVG_H

#include "cube_linktest.h"

#include <stdio.h>

/* Write the SVG of `lt` to `fp`.  `title`: the file name shown in the
 * picture; `slowest` (num_slowest entries, slowest first) are circled;
 * the histogram has `num_bins` bins.  The matrix of more than one
 * iteration shows, per link, the mean over the iterations.  The rows are
 * read with cube_linktest_read_row, so a handle opened with
 * CUBE_LINKTEST_NO_MATRICES works too (memory: the cells drawn, not N^2);
 * `lt` is not const because the analysis functions are not.  0, or -1
 * after printing the error (cli_error: out of memory, or a read error
 * from cube_linktest_error).  Write errors are left to the caller
 * (ferror). */
int linktest_svg_write(FILE *fp, cube_linktest *lt, const char *title,
                       const cube_linktest_link *slowest, size_t num_slowest, size_t num_bins);

#endif
