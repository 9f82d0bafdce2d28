#!/usr/bin/env bash
# bench/perf/run_view.sh - cube_view on synthetic CUBE 3 experiments:
#   - the page of the 50 MB experiment: its size against the values as
#     float64 plus the definitions (reference: at most 1.2x), and the time
#     cube_view takes to write it against cube_info's time to read the file
#     (reference: at most 2x);
#   - cube_view --serve on the 500 MB experiment: the time to load (until
#     the URL is printed) and the server's memory after loading and at the
#     end, then the pane queries (/api/pane) the page makes, as a client
#     sees them: in every order of the panes, each pane the page asks the
#     server for (the metric pane, the call tree and the flat profile, the
#     system pane, whose values the topology tabs show too), with one and
#     all metrics, collapsed and expanded, and system selections of the
#     whole machine, a few threads, every thread one by one, processes;
#     call selections of thousands of call paths.  Each query's first
#     answer (computed, not from the server's cache of recent answers) is
#     timed in several rounds (min and median), a repeat (from that cache)
#     once; then the slowest first answer (reference: any query within
#     50 ms after loading) and the load average, as other processes on the
#     machine slow the answers down.
# Figures are printed beside the references; nothing passes or fails.
#
# Usage: bench/perf/run_view.sh [BIN_DIR [WORK_DIR]]
#   BIN_DIR   where cube_view and cube_info are (default build/bin)
#   WORK_DIR  where the generated files go (default: a temporary directory,
#             removed at the end; a directory given here is kept)
#
# Environment:
#   GEN              gen_cube binary (default: compile bench/perf/gen_cube.c)
#   PERF_VIEW_PAGE_MB   size of the experiment written as a page (default 50;
#                       0: no page, only the served measurement)
#   PERF_VIEW_SERVE_MB  size of the experiment served (default 500)
#   PERF_VIEW_SERVE_TPP threads per process of the served experiment
#                       (default 1, as run.sh; 4 makes processes of several
#                       threads, whose values the server sums per query)
#   PERF_VIEW_ROUNDS    rounds of the served queries (default 5)
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
SERVE_TPP=${PERF_VIEW_SERVE_TPP:-1}
ROUNDS=${PERF_VIEW_ROUNDS:-5}
[[ $PAGE_MB =~ ^(0|[1-9][0-9]*)$ ]] || die "bad size '$PAGE_MB' in PERF_VIEW_PAGE_MB"
[[ $SERVE_MB =~ ^[1-9][0-9]*$ ]] || die "bad size '$SERVE_MB' in PERF_VIEW_SERVE_MB"
[[ $SERVE_TPP =~ ^[1-9][0-9]*$ ]] || die "bad count '$SERVE_TPP' in PERF_VIEW_SERVE_TPP"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "bad count '$ROUNDS' in PERF_VIEW_ROUNDS"
PERF_RUNS=${PERF_RUNS:-3}
perf_runs "size" 0 "$PAGE_MB"
perf_check_time
for tool in cube_view cube_info; do
    [[ -x $BIN/$tool ]] || die "$BIN/$tool not found or not executable"
done
command -v python3 >/dev/null 2>&1 || die "python3 not found (the served measurement needs it)"
perf_work_dir cube-view
perf_generator GEN gen_cube "$here/gen_cube.c"

# generate SIZE FILE [THREADS_PER_PROCESS] : the experiment; sets rows and threads
generate() {
    note "generating about $1 MB into $2"
    "$GEN" --metrics 5 --threads 16 --threads-per-process "${3:-1}" --depth 10 \
        --density 1 --seed 1 --target-mb "$1" -v -o "$2" \
        2>"$WORK/gen.txt" || { cat "$WORK/gen.txt" >&2; die "gen_cube failed"; }
    local summary
    summary=$(tail -n 1 "$WORK/gen.txt")
    rows=$(sed -n 's/.*rows=\([0-9]*\).*/\1/p' <<<"$summary")
    threads=$(sed -n 's/.*threads=\([0-9]*\).*/\1/p' <<<"$summary")
}

echo "# cube_view perf: bin=$BIN, $(nproc 2>/dev/null || echo '?') CPUs"

# --- the page --------------------------------------------------------------
if ((PAGE_MB > 0)); then
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
fi

# --- served ------------------------------------------------------------------
file=$WORK/view_${SERVE_MB}MB.cube
rm -f "$WORK/view_${PAGE_MB}MB.cube" "$WORK/view_${PAGE_MB}MB.html"
generate "$SERVE_MB" "$file" "$SERVE_TPP"
echo "served, a $(awk -v b="$(wc -c <"$file")" 'BEGIN { printf "%.1f", b / 1e6 }') MB experiment" \
    "($rows rows x $threads threads, $SERVE_TPP per process), pane queries as a client sees them" \
    "(reference: <= 50 ms):"
python3 - "$BIN/cube_view" "$file" "$ROUNDS" <<'EOF' || { note "FAILED: the served measurement"; failures=$((failures + 1)); }
import json, re, signal, statistics, subprocess, sys, time, urllib.request
prog, exp, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])
p = subprocess.Popen([prog, "--serve", exp], stdout=subprocess.PIPE, text=True)
try:
    t0 = time.time()
    url = p.stdout.readline().strip()
    print("  load (read, ready to answer) %.2f s; load average %s" % (time.time() - t0, loadavg()))
    def memory():
        status = dict(line.split(":", 1) for line in open("/proc/%d/status" % p.pid))
        mb = lambda k: int(status[k].split()[0]) / 1024
        return "VmRSS %.0f MB (peak %.0f MB)" % (mb("VmRSS"), mb("VmHWM"))
    print("  server memory after loading: " + memory())
    base, token = url.split("/?token=")
    page = urllib.request.urlopen("%s/?token=%s" % (base, token)).read().decode()
    d = json.loads(re.search(r'id="cube-data">(.*?)</script>', page, re.S).group(1))
    def query(q):
        t = time.perf_counter()
        n = len(urllib.request.urlopen("%s/api/pane?token=%s&%s" % (base, token, q)).read())
        return (time.perf_counter() - t) * 1000, n
    # the selections: items of the system tree by kind, call paths spread
    # over the tree (as many as a request line holds), regions of the flat
    # profile in each part
    ids = lambda ks: ",".join(str(k) for k in ks)
    kind = lambda k: [i for i, s in enumerate(d["system"]) if s["kind"] == k]
    thr, proc, node, mach = kind("thread"), kind("process"), kind("node"), kind("machine")
    nm, nc = len(d["metrics"]), len(d["cnodes"])
    m1, mall, mexp = "0", ids(range(nm)), ",".join("%d%s" % (m, ":e" * (m % 2)) for m in range(nm))
    calls = ",".join("%d:e" % c for c in range(0, nc, max(1, nc // 2500)))
    regions = "0:i,1:e,2:s,3:i,4:e"
    queries = [  # (order, pane, selections, what)
        ("metric,call,system", "metric", "", "the metric tree"),
        ("metric,call,system", "call", "msel=" + m1, "1 metric"),
        ("metric,call,system", "call", "msel=" + mexp, "%d metrics, some expanded" % nm),
        ("metric,call,system", "flat", "msel=" + mall, "%d metrics" % nm),
        ("metric,call,system", "system", "msel=%s&csel=0" % mall, "%d metrics, a call path" % nm),
        ("metric,call,system", "system", "msel=%s&csel=%s" % (mall, calls), "%d metrics, 2500 call paths" % nm),
        ("metric,call,system", "system", "msel=%s&fsel=%s" % (mall, regions), "%d metrics, 5 regions" % nm),
        ("metric,system,call", "system", "msel=" + mall, "%d metrics" % nm),
        ("metric,system,call", "call", "msel=%s&ssel=%s" % (mall, mach[0]), "%d metrics, the machine" % nm),
        ("metric,system,call", "call", "msel=%s&ssel=%s" % (m1, ids(thr[:2])), "1 metric, 2 threads"),
        ("metric,system,call", "call", "msel=%s&ssel=%s" % (mall, ids(thr[:2])), "%d metrics, 2 threads" % nm),
        ("metric,system,call", "call", "msel=%s&ssel=%s" % (mexp, ids(thr[::2])), "%d metrics, every 2nd thread" % nm),
        ("metric,system,call", "call", "msel=%s&ssel=%s" % (mall, ids(thr)), "%d metrics, every thread" % nm),
        ("metric,system,call", "call", "msel=%s&ssel=%s" % (mall, ids(proc[:2])), "%d metrics, 2 processes" % nm),
        ("metric,system,call", "call", "msel=%s&ssel=%s" % (mexp, ids(proc)), "%d metrics, every process" % nm),
        ("metric,system,call", "call", "msel=%s&ssel=%s,%s" % (mall, node[0], thr[-1]), "%d metrics, node + thread" % nm),
        ("metric,system,call", "flat", "msel=%s&ssel=%s" % (mall, ids(thr)), "%d metrics, every thread" % nm),
        ("call,metric,system", "metric", "csel=" + calls, "2500 call paths"),
        ("call,metric,system", "metric", "fsel=" + regions, "5 regions"),
        ("call,metric,system", "system", "csel=%s&msel=%s" % (calls, mall), "2500 call paths, %d metrics" % nm),
        ("system,metric,call", "metric", "ssel=" + ids(thr), "every thread"),
        ("system,metric,call", "call", "ssel=%s&msel=%s" % (ids(thr[:2]), mall), "2 threads, %d metrics" % nm),
        ("system,metric,call", "call", "ssel=%s&msel=%s" % (ids(thr), mexp), "every thread, %d metrics" % nm),
        ("system,metric,call", "call", "ssel=%s&msel=%s" % (ids(proc[:2]), mall), "2 processes, %d metrics" % nm),
        ("system,metric,call", "flat", "ssel=%s&msel=%s" % (ids(proc), mall), "every process, %d metrics" % nm),
        ("call,system,metric", "metric", "csel=%s&ssel=%s" % (calls, ids(thr)), "2500 call paths, every thread"),
        ("system,call,metric", "metric", "ssel=%s&csel=%s" % (ids(proc[:2]), calls), "2 processes, 2500 call paths"),
        ("system,call,metric", "metric", "ssel=%s&fsel=%s" % (ids(thr), regions), "every thread, 5 regions"),
    ]
    # more queries than the server keeps answers (8): each round's first
    # answer of a query is computed again
    first = {q: [] for q in queries}
    then, size = {}, {}
    for r in range(rounds):
        for q in queries:
            text = "order=%s&pane=%s%s" % (q[0], q[1], "&" + q[2] if q[2] else "")
            ms, size[q] = query(text)
            first[q].append(ms)
            if r == 0:
                then[q] = statistics.median(query(text)[0] for _ in range(3))
    print("  %-20s %-7s %-30s %9s %9s %8s %10s" % ("order", "pane", "selections", "first min", "median",
                                                   "then", "bytes"))
    for q in queries:
        print("  %-20s %-7s %-30s %9.1f %9.1f %8.1f %10d" % (q[0], q[1], q[3], min(first[q]),
                                                          statistics.median(first[q]), then[q], size[q]))
    worst = max(queries, key=lambda q: statistics.median(first[q]))
    print("  slowest first answer, median of %d rounds: %.1f ms (min %.1f, max %.1f)   (reference: <= 50 ms): %s pane, %s, %s"
          % (rounds, statistics.median(first[worst]), min(first[worst]), max(first[worst]), worst[1], worst[0], worst[3]))
    print("  load average at the end %s" % loadavg())
    print("  server memory at the end: " + memory())
finally:
    p.send_signal(signal.SIGTERM)
    rc = p.wait()
print("  stopped by SIGTERM: exit %d" % rc)
sys.exit(1 if rc else 0)
EOF
perf_exit
