#!/usr/bin/env bash
# bench/perf/run_view.sh - cube_view on synthetic CUBE 3 experiments:
#   - the page of the 50 MB experiment: its size against the values as
#     float64 plus the definitions (reference: at most 1.2x), and the time
#     cube_view takes to write it against cube_info's time to read the file
#     (reference: at most 2x);
#   - cube_view --serve on the 500 MB experiment: the time to load (until
#     the URL is printed) and the server's memory after loading and at the
#     end, then the time of pane queries (/api/pane) as a client sees it,
#     the first of each (nothing cached for it) and the median of five
#     repeats (answered from the cache of recent answers), and the slowest
#     first answer (reference: any query within 50 ms after loading).
# Figures are printed beside the references; nothing passes or fails.
#
# Usage: bench/perf/run_view.sh [BIN_DIR [WORK_DIR]]
#   BIN_DIR   where cube_view and cube_info are (default build/bin)
#   WORK_DIR  where the generated files go (default: a temporary directory,
#             removed at the end; a directory given here is kept)
#
# Environment:
#   GEN              gen_cube binary (default: compile bench/perf/gen_cube.c)
#   PERF_VIEW_PAGE_MB   size of the experiment written as a page (default 50)
#   PERF_VIEW_SERVE_MB  size of the experiment served (default 500)
#   PERF_RUNS        runs of the page measurement (median; default 3)
#
# The experiments are those of run.sh: 16 threads, 5 metrics, a row for
# every (metric, call path), depth 10, seed 1.  valMB = rows x threads x 8
# bytes; defMB = the bytes of the XML before <severity> (the definitions).
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
perf_prog=run_view.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
BIN=${1:-build/bin}
WORK=${2:-}
PAGE_MB=${PERF_VIEW_PAGE_MB:-50}
SERVE_MB=${PERF_VIEW_SERVE_MB:-500}
for v in "$PAGE_MB" "$SERVE_MB"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "bad size '$v' in PERF_VIEW_PAGE_MB/PERF_VIEW_SERVE_MB"
done
PERF_RUNS=${PERF_RUNS:-3}
perf_runs "size" 0 "$PAGE_MB"
perf_check_time
for tool in cube_view cube_info; do
    [[ -x $BIN/$tool ]] || die "$BIN/$tool not found or not executable"
done
command -v python3 >/dev/null 2>&1 || die "python3 not found (the served measurement needs it)"
perf_work_dir cube-view
perf_generator GEN gen_cube "$here/gen_cube.c"

# generate SIZE FILE : the experiment; sets rows and threads
generate() {
    note "generating about $1 MB into $2"
    "$GEN" --metrics 5 --threads 16 --threads-per-process 1 --depth 10 \
        --density 1 --seed 1 --target-mb "$1" -v -o "$2" \
        2>"$WORK/gen.txt" || { cat "$WORK/gen.txt" >&2; die "gen_cube failed"; }
    local summary
    summary=$(tail -n 1 "$WORK/gen.txt")
    rows=$(sed -n 's/.*rows=\([0-9]*\).*/\1/p' <<<"$summary")
    threads=$(sed -n 's/.*threads=\([0-9]*\).*/\1/p' <<<"$summary")
}

echo "# cube_view perf: bin=$BIN, $(nproc 2>/dev/null || echo '?') CPUs"

# --- the page --------------------------------------------------------------
file=$WORK/view_${PAGE_MB}MB.cube
generate "$PAGE_MB" "$file"
page=$WORK/view_${PAGE_MB}MB.html
measure_rm=("$page")
measure "${runs_of[0]}" "$BIN/cube_info" "$file"
is=$M_S
measure "${runs_of[0]}" "$BIN/cube_view" --max-size=1G -o "$page" "$file"
vs=$M_S vk=$M_KB
def=$(grep -b -m 1 '<severity' "$file" | cut -d: -f1)
awk -v mb="$(wc -c <"$file")" -v page="$(wc -c <"$page")" -v rows="$rows" -v thr="$threads" \
    -v def="$def" -v is="$is" -v vs="$vs" -v vk="$vk" 'BEGIN {
    val = rows * thr * 8
    printf "page of a %.1f MB experiment (%d rows x %d threads):\n", mb / 1e6, rows, thr
    printf "  page %.2f MB, values as float64 %.2f MB + definitions %.2f MB = %.2f MB: %.3fx   (reference: <= 1.2x)\n",
        page / 1e6, val / 1e6, def / 1e6, (val + def) / 1e6, page / (val + def)
    if (is == "FAIL" || vs == "FAIL")
        printf "  cube_view %s s, cube_info %s s\n", vs, is
    else
        printf "  cube_view %.3f s (RSS %.1f MB), cube_info %.3f s: %.2fx   (reference: <= 2x)\n",
            vs, vk * 1024 / 1e6, is, (is > 0 ? vs / is : 0)
}'

# --- served ------------------------------------------------------------------
file=$WORK/view_${SERVE_MB}MB.cube
rm -f "$WORK/view_${PAGE_MB}MB.cube" "$page"
generate "$SERVE_MB" "$file"
echo "served, a $(awk -v b="$(wc -c <"$file")" 'BEGIN { printf "%.1f", b / 1e6 }') MB experiment" \
    "($rows rows x $threads threads), pane queries as a client sees them (reference: <= 50 ms):"
python3 - "$BIN/cube_view" "$file" <<'EOF' || { note "FAILED: the served measurement"; failures=$((failures + 1)); }
import signal, subprocess, sys, time, urllib.request
prog, exp = sys.argv[1], sys.argv[2]
p = subprocess.Popen([prog, "--serve", exp], stdout=subprocess.PIPE, text=True)
try:
    t0 = time.time()
    url = p.stdout.readline().strip()
    print("  load (read, ready to answer) %.2f s" % (time.time() - t0))
    def memory():
        status = dict(line.split(":", 1) for line in open("/proc/%d/status" % p.pid))
        mb = lambda k: int(status[k].split()[0]) / 1024
        return "VmRSS %.0f MB (peak %.0f MB)" % (mb("VmRSS"), mb("VmHWM"))
    print("  server memory after loading: " + memory())
    base, token = url.split("/?token=")
    def query(q):
        t = time.perf_counter()
        n = len(urllib.request.urlopen("%s/api/pane?token=%s&%s" % (base, token, q)).read())
        return (time.perf_counter() - t) * 1000, n
    queries = ["pane=metric", "pane=call&msel=0", "pane=call&msel=0:e", "pane=call&msel=1",
               "pane=call&msel=0,1", "pane=flat&msel=0", "pane=system&msel=0&csel=0",
               "pane=system&msel=0&csel=5:e", "pane=system&msel=0&fsel=3:s",
               "order=call,metric,system&pane=metric&csel=0",
               "order=metric,system,call&pane=call&msel=0&ssel=1,3",
               "order=metric,system,call&pane=call&msel=0&ssel=0",
               "order=metric,system,call&pane=call&msel=0,1,2,3,4&ssel=0",
               "order=metric,system,call&pane=call&msel=0:e,1:e&ssel=3,5,7,9,11,13",
               "order=system,metric,call&pane=call&ssel=0,1,2,3&msel=0,4",
               "order=metric,system,call&pane=flat&msel=0,1,2&ssel=1",
               "order=system,metric,call&pane=metric&ssel=0",
               "pane=call&msel=0,1:e,2,3:e,4",
               "order=call,metric,system&pane=metric&csel=" + ",".join(str(i) for i in range(0, 2000, 3)),
               "pane=system&msel=0,1,2,3,4&csel=" + ",".join("%d:e" % i for i in range(0, 5000, 7))]
    print("  %-52s %10s %10s %10s" % ("query", "first ms", "then ms", "bytes"))
    slowest = (0, "")
    for q in queries:
        first, n = query(q)
        then = sorted(query(q)[0] for _ in range(5))[2]
        slowest = max(slowest, (first, q))
        print("  %-52s %10.1f %10.1f %10d" % (q if len(q) <= 52 else q[:49] + "...", first, then, n))
    print("  slowest first answer %.1f ms (reference: <= 50 ms): %s" % (slowest[0], slowest[1][:60]))
    print("  server memory at the end: " + memory())
finally:
    p.send_signal(signal.SIGTERM)
    rc = p.wait()
print("  stopped by SIGTERM: exit %d" % rc)
sys.exit(1 if rc else 0)
EOF
perf_exit
