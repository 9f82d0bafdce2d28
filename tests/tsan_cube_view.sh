#!/bin/sh
# cube_view built with -fsanitize=thread, run by tests/tsan.sh (make
# check-tsan) with its TSAN_OPTIONS and address-space randomization off:
#   - cube_view -o on a shipped experiment with several metrics and
#     topologies, on one with every kind of value, and on a generated one with enough call paths (20000) that
#     the work is shared by threads;
#   - cube_view --serve on the generated experiment and on the values
#     example (views computed at load
#     on threads, large answers split over threads) with 8 clients at once,
#     each asking every pane in every order of the panes, twice, over the
#     loopback address, then SIGTERM.
# Prints one "ok - " or "not ok - " line per check; the programs' messages,
# ThreadSanitizer's reports among them, go to stderr.  A check fails when
# the program does not exit with status 0: with TSAN_OPTIONS exitcode=66 a
# report makes it exit 66, even when everything else went right.
#
#   tests/tsan_cube_view.sh BUILD_DIR
BUILD=$1
BIN=$BUILD/bin
GEN=$BUILD/perf/gen_cube
SHIPPED=testdata/cube/scalasca-bgpBT_experiment1.cube
# COMPLEX, RATE, TAU_ATOMIC and narrow integers: their components written
# by the page's workers, their aggregated views computed at load
VALUES=testdata/cubex/cubelib-4.8.2_cube-values_example.cubex

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/tsan-view.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT

if ! "$GEN" --cnodes 20000 --metrics 3 --threads 8 --threads-per-process 4 --seed 5 \
    -o "$TMP/big.cube"; then
    not_ok "cube_view: gen_cube wrote the experiment"
    exit 1
fi

for f in "$SHIPPED" "$VALUES" "$TMP/big.cube"; do
    rm -f "$TMP/page.html"
    "$BIN/cube_view" --max-size=1G -o "$TMP/page.html" "$f" 2>"$TMP/err"
    rc=$?
    cat "$TMP/err" >&2
    if [ $rc -eq 0 ] && [ -s "$TMP/page.html" ]; then
        ok "cube_view -o $(basename "$f"): exit 0, a page"
    else
        not_ok "cube_view -o $(basename "$f"): exit status $rc"
    fi
done

for f in "$TMP/big.cube" "$VALUES"; do
python3 - "$BIN/cube_view" "$f" <<'EOF'
import json, os, signal, sys, threading, urllib.error
sys.path.insert(0, "tests/cli")
from view_served import Served
prog, exp = sys.argv[1], sys.argv[2]
def check(cond, what):
    print(("ok - " if cond else "not ok - ") + "cube_view --serve " + os.path.basename(exp) + ": " + what)
server = Served(prog, exp)
try:
    server.start(timeout=300)
    check(server.base.startswith("http://127.0.0.1:"), "listens on 127.0.0.1")
    d = server.d
    kind = lambda k: [i for i, s in enumerate(d["system"]) if s["kind"] == k]
    thr, proc, mach = kind("thread"), kind("process"), kind("machine")
    nm, nc, nr = len(d["metrics"]), len(d["cnodes"]), len(d["regions"])
    def queries(c):
        """Client c's queries: every pane in every order of the panes
        that gives it values, some shared with other clients (answered
        from the server's cache), some its own."""
        m, t = c % nm, thr[c % len(thr)]
        j = nc - 1 - c % nc  # a second call path, 0 when there is none
        return ["pane=metric",
                "order=metric,call,system&pane=call&msel=%d" % m,
                "order=metric,call,system&pane=flat&msel=0,%d:e" % (nm - 1),
                "order=metric,call,system&pane=system&msel=%d&csel=%d" % (m, (c + 1) % nc),
                "order=metric,system,call&pane=system&msel=%d:e" % m,
                "order=metric,system,call&pane=call&msel=0,1&ssel=%d,%d" % (t, thr[(c + 1) % len(thr)]),
                "order=metric,system,call&pane=call&msel=%d&ssel=%d" % (m, proc[c % len(proc)]),
                "order=metric,system,call&pane=call&msel=0:e&ssel=%d" % mach[0],
                "order=system,metric,call&pane=flat&ssel=%d&msel=%d" % (t, m),
                "order=system,metric,call&pane=metric&ssel=%d" % t,
                "order=call,metric,system&pane=metric&csel=%s" % ("0,%d:e" % j if j else "0:e"),
                "order=call,metric,system&pane=system&csel=%d&msel=%d" % (c % nc, m),
                "order=call,system,metric&pane=metric&csel=%d&ssel=%d" % (c % nc, t),
                "order=system,call,metric&pane=metric&ssel=%d&fsel=%d:s" % (t, c % nr)]
    answers, bad, lock = {}, [], threading.Lock()
    def client(c):
        for _ in range(2):
            for q in queries(c):
                try:
                    body = server.pane_bytes(q, timeout=300)
                    json.loads(body)
                except (urllib.error.URLError, ValueError) as e:
                    with lock:
                        bad.append("%s: %s" % (q, e))
                    continue
                with lock:
                    if answers.setdefault(q, body) != body:
                        bad.append("%s: another answer than before" % q)
    clients = [threading.Thread(target=client, args=(c,)) for c in range(8)]
    for t in clients:
        t.start()
    for t in clients:
        t.join()
    check(not bad, "8 clients at once, every pane in every order twice: answers that are JSON, "
          "the same for the same query (%d queries; %s)" % (len(answers), bad[:3]))
finally:
    rc = server.stop(signal.SIGTERM, timeout=300)
check(rc == 0, "SIGTERM: exit 0 (got %s; 66: the sanitizer reported something)" % rc)
EOF
done
