/*
 * report.h - the report of cube_bench runs (cube_bench --report): one
 * self-contained HTML page, as SKaMPI's report generator made one, with a
 * section per suite holding its chart and its numbers.  Pure C, no MPI.
 *
 * The page is XHTML (well-formed XML that browsers also read as HTML): no
 * scripts, no files from elsewhere; CSS and SVG inline.  It shows
 *   - the runs (names[i], in their colours) and their attributes, one
 *     table with a column per run;
 *   - one section per suite, in the order of the first run, then suites
 *     only later runs have, in their order: the suite's description, a
 *     chart of the time against the varied argument on log-log axes with
 *     standard-error bars (time +- stderr), the runs overlaid in distinct
 *     colours with a legend, and a table of the argument and, per run, the
 *     time, standard error and number of single measurements (reps).
 * Every value is rank 0's (the thread of the process with rank 0): with
 * Node_Times the other ranks' values stay in the experiments.
 *
 * Suites and arguments are found by name, as cube_bench writes them: the
 * call tree root "cube_bench" > one call path per suite (region = suite
 * name) > one per argument (region "KEY=NUMBER", KEY one of len, nodes,
 * chunks, arg).  A suite whose arguments are not all KEY=NUMBER with one
 * KEY (the local calls: "MPI_Wtime") gets a chart with one category per
 * argument instead of a logarithmic x axis.
 *
 * A run's line joins its consecutive plotted arguments.  It is broken where
 * the run has the argument's call path but nothing to plot there (no time
 * row, or a time that is not positive, or an argument <= 0).  An argument
 * that only other runs measured does not break it: the adaptive refinement
 * chooses the arguments anew in every run, and the merge of runs
 * interpolates linearly between a run's neighbouring arguments, as the
 * line does.
 *
 * The charts can be checked by a program.  The plot area of each chart is
 * a <g class="plot"> with the mapping from values to pixels:
 *   data-xscale="log":  px = x0 + (log10(x) - lxmin) / (lxmax - lxmin) * (x1 - x0)
 *   data-xscale="category" (data-ncat="N", data-nruns="R", data-dodge="D"):
 *                       px = x0 + (cat + 0.5) * (x1 - x0) / N + (run - (R - 1) / 2) * D
 *                       (the runs side by side, D px apart)
 *   always:             py = y0 + (log10(t) - lymin) / (lymax - lymin) * (y1 - y0)
 * with data-x0, data-x1, data-y0 (the bottom), data-y1 (the top),
 * data-lxmin, data-lxmax, data-lymin, data-lymax on the group; numbers in
 * data- attributes read back to the same double, coordinates have two
 * decimals.  Inside it, per run i and argument:
 *   <circle class="pt" data-run="i" data-arg="len=1024" data-x="1024"
 *           (or data-cat="k") data-y="TIME" data-se="STDERR" data-reps="N"
 *           cx=".." cy=".."/>
 *   <line class="err" data-run="i" data-arg=".." data-x or data-cat data-lo="TIME-STDERR"
 *         data-hi="TIME+STDERR" x1=cx y1=py(hi) x2=cx y2=py(lo)/>
 *         (only where STDERR > 0; with data-clipped="lo" the lower end is
 *         below the axis and y2 is y0)
 *   <polyline class="line" data-run="i" points=".."/> per unbroken piece
 * and beside it <g class="legend"> with one <g class="legend-entry"
 * data-run="i"> per run whose text begins with names[i].  The table of a
 * suite is <table class="values">; each value cell has data-v, the exact
 * value, and shows it with four significant digits (times in ns, µs, ms
 * or s).
 *
 * Numbers are written in the C locale whatever the program's locale.
 */
#ifndef CUBE_BENCH_REPORT_H
#define CUBE_BENCH_REPORT_H

#include "cube.h"

#include <stddef.h>
#include <stdio.h>

/* Write the report of the n runs (n >= 1; runs[i] read or made whole, with
 * the metrics time, stderr and reps) to fp, which stays open.  names[i]
 * names run i in the legend and the tables (names NULL or names[i] NULL:
 * "run i+1").  Nothing is written when a run is not a cube_bench
 * experiment.  0, or -1 with a message in err (naming the run). */
int bench_report_write(FILE *fp, cube_t *const *runs, const char *const *names, size_t n,
                       char *err, size_t errlen);

#endif
