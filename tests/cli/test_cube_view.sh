# cube_view: the page it writes (the data script, its JSON, the values
# against cube_dump's, statistics, external totals, source lines,
# topologies), --max-size, bad input, -o written through a temporary file,
# and --serve (token, status codes, pane answers against cube_dump, exit 0
# on SIGTERM).
. tests/cli/lib.sh
TRACE=testdata/cube/scalasca_trace.cube
BGP=testdata/cube/scalasca-bgpBT_experiment1.cube
MINMAX=testdata/views/minmax.cube
CUBEX=testdata/cubex/scorep-9.0dev_time-p4-n2000-x1-r0_profile.cubex
VALUES=testdata/cubex/cubelib-4.8.2_cube-values_example.cubex

# the data of a page as JSON on stdout
cat >"$TMP/data.py" <<'EOF'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="cube-data">(.*?)</script>', page, re.S)
assert m, "no data script"
assert "<!--CUBE_VIEW_" not in page, "a marker left in the page"
json.dump(json.loads(m.group(1)), sys.stdout)
EOF

# the values of a page equal cube_dump -s json's (metric-inclusive,
# call-exclusive, per thread), every metric, every call path and thread;
# the components of COMPLEX, RATE and TAU_ATOMIC values give those numbers
cat >"$TMP/values.py" <<'EOF'
import base64, json, math, struct, sys, zlib
d = json.load(open(sys.argv[1]))
dump = json.load(open(sys.argv[2]))
index = {m["uniq"]: i for i, m in enumerate(d["metrics"])}
cn_index = {c["id"]: i for i, c in enumerate(d["cnodes"])}
nt = sum(1 for s in d["system"] if s["kind"] == "thread")
table = {}
for mi, v in d["values"].items():
    assert v["encoding"] == "deflate", v.get("encoding")
    cn = zlib.decompress(base64.b64decode(v["cnodes"]))
    data = zlib.decompress(base64.b64decode(v["data"]))
    rows = struct.unpack("<%di" % (len(cn) // 4), cn)
    vals = struct.unpack("<%dd" % (len(data) // 8), data)
    assert len(vals) == len(rows) * nt, (mi, len(vals), len(rows), nt)
    table[int(mi)] = {r: vals[k * nt:(k + 1) * nt] for k, r in enumerate(rows)}
    dtype = d["metrics"][int(mi)]["dtype"]
    assert ("components" in v) == (dtype in ("COMPLEX", "RATE", "TAU_ATOMIC")), (mi, dtype)
    if "components" in v:
        comp = zlib.decompress(base64.b64decode(v["components"]))
        comp = struct.unpack("<%dd" % (len(comp) // 8), comp)
        assert len(comp) == 2 * len(vals), (mi, len(comp), len(vals))
        for k, x in enumerate(vals):
            a, b = comp[2 * k], comp[2 * k + 1]
            n = (math.sqrt(a * a + b * b) if dtype == "COMPLEX" else
                 (a / b if b else 0.0) if dtype == "RATE" else (b / a if a else 0.0))
            assert n == x, (mi, k, a, b, n, x)
checked = 0
for row in dump:
    m = index[row["metric"]]
    if d["metrics"][m]["kind"] != "stored":
        continue
    got_row = table[m].get(cn_index[row["cnode_id"]])
    combine = d["metrics"][m]["combine"]
    if got_row is None:
        got = 0.0 if combine == "sum" else float("nan")
    else:
        got = got_row[row["location"]]
    want = row["value"]
    if want is None:
        assert math.isnan(got), (row, got)
    else:
        assert got == want, (row, got)
    checked += 1
assert checked > 0
print(checked)
EOF

for f in "$TRACE" "$MINMAX" "$VALUES" "$CUBEX"; do
    name=$(basename "$f")
    run cube_view -o "$TMP/page.html" "$f"
    expect_rc 0 "cube_view -o on $name exits 0"
    if python3 "$TMP/data.py" "$TMP/page.html" >"$TMP/data.json" 2>"$TMP/py.err"; then
        ok "cube_view $name: the page holds the data script and its JSON parses"
    else
        not_ok "cube_view $name: the page holds the data script and its JSON parses"
        sed 's/^/#   /' "$TMP/py.err" | head -3
    fi
    "$BIN/cube_dump" -s json "$f" >"$TMP/dump.json" 2>/dev/null
    pycheck "cube_view $name: every stored value equals cube_dump's (per thread)" \
        "$TMP/values.py" "$TMP/data.json" "$TMP/dump.json"
done

# the definitions: counts as cube_info gives them, "served" false, no
# external and no statistics without options
"$BIN/cube_view" "$BGP" >"$TMP/bgp.html" 2>/dev/null
python3 "$TMP/data.py" "$TMP/bgp.html" >"$TMP/bgp.json"
"$BIN/cube_dump" -w topologies "$BGP" >"$TMP/topo.txt"
"$BIN/cube_info" "$BGP" >"$TMP/info.txt"
cat >"$TMP/defs.py" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
info = open(sys.argv[2]).read()
def count(label):
    return int(re.search(r"^%s:\s*(\d+)" % label, info, re.M).group(1))
assert d["format"] == 1 and d["served"] is False and d["external"] is None and d["stat"] is None
assert d["file"] == "scalasca-bgpBT_experiment1.cube", d["file"]
assert len(d["metrics"]) == count("metrics") and len(d["cnodes"]) == count("call paths")
assert len(d["regions"]) == count("regions")
threads = [s for s in d["system"] if s["kind"] == "thread"]
assert sorted(t["index"] for t in threads) == list(range(len(threads)))
for i, s in enumerate(d["system"]):
    assert s["parent"] < i, s
for i, m in enumerate(d["metrics"]):
    assert m["parent"] < i
for i, c in enumerate(d["cnodes"]):
    assert c["parent"] < i
# one cell per coordinate of each topology, each a thread or process of the tree
assert len(d["topologies"]) == 2, len(d["topologies"])
for t in d["topologies"]:
    assert all(len(cell) == 1 + len(t["dims"]) for cell in t["cells"])
    assert all(d["system"][cell[0]]["kind"] in ("thread", "process") for cell in t["cells"])
    for cell in t["cells"]:
        assert all(0 <= x < dim["size"] for x, dim in zip(cell[1:], t["dims"])), cell
    assert len({tuple(c[1:]) for c in t["cells"]}) == len(t["cells"])
print("ok")
EOF
pycheck "cube_view: definitions, system order and topologies of the BG/P experiment" \
    "$TMP/defs.py" "$TMP/bgp.json" "$TMP/info.txt"

# --- statistics: --stat FILE, and BASE.stat beside the experiment
run cube_view --stat testdata/statfile/cli-scalasca.stat -o "$TMP/stat.html" "$TRACE"
expect_rc 0 "cube_view --stat exits 0"
python3 "$TMP/data.py" "$TMP/stat.html" >"$TMP/stat.json" 2>/dev/null
"$BIN/cube_statfile" -s json --cube "$TRACE" testdata/statfile/cli-scalasca.stat >"$TMP/stat_ref.json" 2>/dev/null
cat >"$TMP/stat.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))
st = d["stat"]
assert st and st["file"] == sys.argv[3], st and st["file"]
assert [p["name"] for p in st["patterns"]] == [r["pattern"] for r in ref]
for p, r in zip(st["patterns"], ref):
    assert p["count"] == r["count"], (p, r)
    for k, rk in (("mean", "mean"), ("max", "maximum"), ("min", "minimum"), ("sum", "sum")):
        assert p[k] == r[rk], (k, p[k], r[rk])
    assert p["metric"] == (r["metric"] or None) or p["metric"] in (r["metric"],), (p["metric"], r["metric"])
    assert len(p["instances"]) == r["instances"], (p["name"], len(p["instances"]), r["instances"])
    for i in p["instances"]:
        assert -1 <= i["cnode"] < len(d["cnodes"]) and i["duration"] is not None, i
assert any(i["cnode"] >= 0 for p in st["patterns"] for i in p["instances"])
print("ok")
EOF
pycheck "cube_view --stat: patterns, statistics and instances as cube_statfile reads them" \
    "$TMP/stat.py" "$TMP/stat.json" "$TMP/stat_ref.json" cli-scalasca.stat
mkdir "$TMP/beside"
cp "$TRACE" "$TMP/beside/trace.cube"
cp testdata/statfile/cli-scalasca.stat "$TMP/beside/trace.stat"
run cube_view -o "$TMP/beside.html" "$TMP/beside/trace.cube"
python3 "$TMP/data.py" "$TMP/beside.html" >"$TMP/beside.json" 2>/dev/null
pycheck "cube_view: trace.stat beside trace.cube is read without --stat" \
    "$TMP/stat.py" "$TMP/beside.json" "$TMP/stat_ref.json" trace.stat

# --- --external: the totals per metric unique name, as cube_metric_totals
run cube_view --external "$MINMAX" -o "$TMP/ext.html" "$TRACE"
expect_rc 0 "cube_view --external exits 0"
python3 "$TMP/data.py" "$TMP/ext.html" >"$TMP/ext.json" 2>/dev/null
"$BIN/cube_dump" -s json -t aggr -z incl -c roots "$MINMAX" >"$TMP/ext_ref.json"
cat >"$TMP/ext.py" <<'EOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))
e = d["external"]
assert e["file"] == "minmax.cube", e["file"]
want = {}
for r in ref:  # the roots' inclusive values combined: the metric's total
    m, v = r["metric"], r["value"]
    if v is None:
        continue
    op = {"time": sum}.get(m)
    want.setdefault(m, []).append(v)
assert set(want) <= set(e["totals"]), (sorted(want), sorted(e["totals"]))
for m, vs in want.items():
    got = e["totals"][m]
    cand = [sum(vs), max(vs), min(vs)]
    assert any(abs(got - c) <= 1e-9 * max(1.0, abs(c)) for c in cand), (m, got, cand)
print("ok")
EOF
pycheck "cube_view --external: the other experiment's totals per metric" \
    "$TMP/ext.py" "$TMP/ext.json" "$TMP/ext_ref.json"

# --- source lines: a readable file (absolute, or relative to the
# experiment's folder) gives the lines around the region's begin line
mkdir "$TMP/src"
i=1
while [ $i -le 100 ]; do printf 'line %d </script> <!-- x\342\200\250\n' $i; i=$((i + 1)); done >"$TMP/src/bt.f"
sed "s|mod=\"/work/pr26wi/lu64qad/test/supermig/tutorial/BT-MZ/bt.f\"|mod=\"bt.f\"|" "$TRACE" \
    >"$TMP/src/rel.cube"
sed "s|mod=\"/work/pr26wi/lu64qad/test/supermig/tutorial/BT-MZ/bt.f\"|mod=\"$TMP/src/bt.f\"|" "$TRACE" \
    >"$TMP/src/abs.cube"
cat >"$TMP/source.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
main = [r for r in d["regions"] if r["name"] == "MAIN__"][0]
src = main["source"]
assert src and src["path"].endswith("bt.f") and src["first"] == 38, src and (src["path"], src["first"])
assert src["lines"] == ["line %d </script> <!-- x\u2028" % i for i in range(38, 79)], src["lines"][:2]
assert b"\xe2\x80\xa8" not in open(sys.argv[2], "rb").read(), "a raw U+2028 in the page"
assert all(r["source"] is None for r in d["regions"] if r["name"] != "MAIN__")
print("ok")
EOF
for v in rel abs; do
    run cube_view -o "$TMP/src_$v.html" "$TMP/src/$v.cube"
    python3 "$TMP/data.py" "$TMP/src_$v.html" >"$TMP/src_$v.json" 2>"$TMP/py.err" ||
        sed 's/^/#   /' "$TMP/py.err"
    pycheck "cube_view: source lines 38-78 around begin line 48 ($v path), '</' and U+2028 escaped" \
        "$TMP/source.py" "$TMP/src_$v.json" "$TMP/src_$v.html"
done

# --- standard output; never a terminal
"$BIN/cube_view" "$TRACE" >"$TMP/stdout.html" 2>"$TMP/err"
if python3 "$TMP/data.py" "$TMP/stdout.html" | grep -q '"file": "scalasca_trace.cube"'; then
    ok "cube_view writes the page to standard output without -o"
else
    not_ok "cube_view writes the page to standard output without -o"
fi

# --- --max-size: refused with one line naming --serve, exit 2, nothing written
echo old >"$TMP/keep.html"
run cube_view --max-size=10k -o "$TMP/keep.html" "$TRACE"
expect_rc 2 "cube_view --max-size=10k refuses a larger page (exit 2)"
if [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q -- '--serve' "$TMP/err" && grep -q 'max-size' "$TMP/err"; then
    ok "cube_view --max-size: one line that says to use --serve"
else
    not_ok "cube_view --max-size: one line that says to use --serve"
    sed 's/^/#   /' "$TMP/err" | head -3
fi
expect_text_eq "old" "$TMP/keep.html" "cube_view --max-size: the existing output is left as it was"
size=$(wc -c <"$TMP/page.html")
run cube_view --max-size="$size" -o "$TMP/exact.html" "$CUBEX"
expect_rc 0 "cube_view --max-size equal to a page's size writes it"
run cube_view --max-size=12X "$TRACE"
expect_rc 2 "cube_view --max-size=12X is a usage error"
# a page found too large only once written (its values deflate less than
# the first estimate hopes): the values past the limit are counted, not
# written, and the message gives the page's whole size
full=$(wc -c <"$TMP/stdout.html")
limit=$((full * 3 / 4))
echo old >"$TMP/keep.html"
run cube_view --max-size="$limit" -o "$TMP/keep.html" "$TRACE"
if [ "$rc" = 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
    grep -q "would take $full bytes, more than --max-size=$limit;" "$TMP/err"; then
    ok "cube_view --max-size below the written page: refused with the page's whole size ($full)"
else
    not_ok "cube_view --max-size below the written page: refused with the page's whole size ($full)"
    sed 's/^/#   /' "$TMP/err" | head -3
fi
if [ "$(ls "$TMP" | grep -c '^keep\.html')" = 1 ] && [ "$(cat "$TMP/keep.html")" = old ]; then
    ok "cube_view --max-size below the written page: the output is left as it was, no temporary file"
else
    not_ok "cube_view --max-size below the written page: the output is left as it was, no temporary file"
fi
run cube_view --max-size="$limit" "$TRACE"
if [ "$rc" = 2 ] && [ ! -s "$TMP/out" ] && grep -q "would take $full bytes" "$TMP/err"; then
    ok "cube_view --max-size below the page to standard output: refused, nothing written"
else
    not_ok "cube_view --max-size below the page to standard output: refused, nothing written"
fi
run cube_view --max-size="$full" -o "$TMP/exact.html" "$TRACE"
expect_file_eq "$TMP/stdout.html" "$TMP/exact.html" \
    "cube_view: the page written to a file is the page written to standard output (110 metrics)"

# --- -o: written to a temporary file and renamed; no temporary file left
mkdir "$TMP/outdir"
echo old >"$TMP/outdir/p.html"
run cube_view -o "$TMP/outdir/p.html" "$TRACE"
if [ "$rc" = 0 ] && [ "$(ls "$TMP/outdir")" = p.html ] && grep -q 'cube-data' "$TMP/outdir/p.html"; then
    ok "cube_view -o replaces the output and leaves no temporary file"
else
    not_ok "cube_view -o replaces the output and leaves no temporary file ($(ls "$TMP/outdir"))"
fi

# --- bad input: one line naming the file, exit 2
run cube_view -o "$TMP/bad.html" testdata/statfile/cli-bad.stat
expect_rc 2 "cube_view on a file that is no experiment exits 2"
if [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q 'cli-bad.stat' "$TMP/err" && [ ! -e "$TMP/bad.html" ]; then
    ok "cube_view on bad input: one line naming the file, no page"
else
    not_ok "cube_view on bad input: one line naming the file, no page"
    sed 's/^/#   /' "$TMP/err" | head -3
fi
run cube_view -o "$TMP/bad.html" "$TMP/no-such.cube"
expect_rc 2 "cube_view on a missing file exits 2"
run cube_view --stat testdata/statfile/reject-nan.stat -o "$TMP/bad.html" "$TRACE"
expect_rc 2 "cube_view --stat with a bad statistics file exits 2"
run cube_view --port=80 "$TRACE"
expect_rc 2 "cube_view --port without --serve is a usage error"
run cube_view --serve -o x.html "$TRACE"
expect_rc 2 "cube_view --serve with -o is a usage error"

# --- --serve
cat >"$TMP/serve.py" <<'EOF'
import json, math, os, signal, subprocess, sys, urllib.error, urllib.request
prog, trace = sys.argv[1], sys.argv[2]
cmd = [prog, "--serve", "--port=0", trace]
if os.environ.get("VALGRIND") == "1":
    cmd = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
           "--errors-for-leak-kinds=definite"] + cmd
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
fails = []
def check(cond, what):
    print(("ok - " if cond else "not ok - ") + "cube_view --serve: " + what)
try:
    url = p.stdout.readline().strip()
    check(url.startswith("http://127.0.0.1:") and "/?token=" in url and not url.startswith("http://127.0.0.1:0/"),
          "prints http://127.0.0.1:PORT/?token=TOKEN with the real port")
    base, token = url.split("/?token=")
    check(len(token) == 32 and all(c in "0123456789abcdef" for c in token), "the token is 32 hex digits")
    def get(path, method="GET"):
        try:
            r = urllib.request.urlopen(urllib.request.Request(base + path, method=method), timeout=60)
            return r.status, r.headers.get("Content-Type", ""), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read()
    st, ct, body = get("/?token=" + token)
    page = body.decode()
    import re
    m = re.search(r'<script type="application/json" id="cube-data">(.*?)</script>', page, re.S)
    d = json.loads(m.group(1)) if m else {}
    check(st == 200 and ct.startswith("text/html") and d.get("served") is True and "values" not in d,
          "the page with the token: 200, served true, no values")
    check(get("/")[0] == 403 and get("/?token=" + "0" * 32)[0] == 403
          and get("/api/pane?pane=metric")[0] == 403, "no token or a wrong one: 403")
    st, ct, body = get("/api/pane?token=%s&pane=metric" % token)
    check(st == 200 and ct.startswith("application/json"), "a pane query: 200 JSON")
    for q in ("pane=nope", "pane=call", "pane=call&msel=1,1", "pane=call&msel=99999",
              "pane=call&msel=x", "pane=call&msel=0,", "pane=metric&msel=0", "pane=call&msel=0&ssel=0",
              "pane=call&msel=0&bogus=1", "pane=call&msel=0&order=metric,call",
              "pane=system&msel=0&csel=0&fsel=0:i"):
        st, ct, body = get("/api/pane?token=%s&%s" % (token, q))
        ok = st == 400 and ct.startswith("application/json") and "error" in json.loads(body)
        check(ok, "malformed query %s: 400 with a JSON error" % q)
    check(get("/nothing?token=" + token)[0] == 404 and get("/etc/passwd?token=" + token)[0] == 404,
          "another path: 404")
    check(get("/?token=" + token, "POST")[0] == 405 and get("/?token=" + token, "DELETE")[0] == 405,
          "POST and DELETE: 405")
    st, ct, body = get("/?token=" + token, "HEAD")
    check(st == 200 and body == b"", "HEAD: 200 without a body")
    # answers against cube_dump
    def dump(*args):
        out = subprocess.run([os.path.join(os.path.dirname(prog), "cube_dump"), "-s", "json"] + list(args) + [trace],
                             stdout=subprocess.PIPE, check=True).stdout
        return json.loads(out)
    def pane(q):
        st, ct, body = get("/api/pane?token=%s&%s" % (token, q))
        assert st == 200, (q, st, body)
        return json.loads(body)
    def close(a, b):
        if a is None or b is None:
            return a is None and b is None
        return abs(a - b) <= 1e-9 * max(1.0, abs(b))
    metrics = d["metrics"]
    mi = {m["uniq"]: i for i, m in enumerate(metrics)}
    cid = {c["id"]: i for i, c in enumerate(d["cnodes"])}
    for uniq in ("time", "visits", "mpi"):
        m = mi[uniq]
        ans = pane("pane=call&msel=%d" % m)
        good = True
        for flav, key in (("incl", "incl"), ("excl", "excl")):
            for r in dump("-m", uniq, "-t", "aggr", "-z", flav):
                good = good and close(ans[key][cid[r["cnode_id"]]], r["value"])
        check(good, "call pane, metric %s collapsed: incl and excl equal cube_dump -t aggr" % uniq)
        ans = pane("pane=call&msel=%d:e" % m)
        good = all(close(ans["excl"][cid[r["cnode_id"]]], r["value"])
                   for r in dump("-m", uniq, "-t", "aggr", "-x", "excl"))
        check(good, "call pane, metric %s expanded: equals cube_dump -x excl -t aggr" % uniq)
        ans = pane("pane=flat&msel=%d" % m)
        rid = {}
        good = True
        for r in dump("-m", uniq, "-t", "aggr", "-r"):
            ri = r["region_id"]
            good = good and close(ans["excl"][ri], r["exclusive"]) and close(ans["incl"][ri], r["inclusive"]) \
                and close(ans["sub"][ri], r["subroutines"])
        check(good, "flat pane, metric %s: excl, incl, sub equal cube_dump -r -t aggr" % uniq)
        # system pane: the threads' values of a call path, collapsed and expanded
        c0 = d["cnodes"][1]["id"]
        for flav, sel in (("incl", "1"), ("excl", "1:e")):
            ans = pane("pane=system&msel=%d&csel=%s" % (m, sel))
            thr = {s["index"]: i for i, s in enumerate(d["system"]) if s["kind"] == "thread"}
            good = all(close(ans["incl"][thr[r["location"]]], r["value"])
                       for r in dump("-m", uniq, "-c", str(c0), "-z", flav))
            procs = dump("-m", uniq, "-c", str(c0), "-z", flav, "--by=process")
            pidx = {s["index"]: i for i, s in enumerate(d["system"]) if s["kind"] == "process"}
            good = good and all(close(ans["incl"][pidx[r["process"]]], r["value"]) for r in procs)
            good = good and all(ans["excl"][i] is None for i, s in enumerate(d["system"]) if s["kind"] != "thread")
            check(good, "system pane, metric %s, call path %d %s: threads and processes equal cube_dump" % (uniq, c0, flav))
    # the call pane right of the system pane: per call path, the values of a
    # process, the node, the machine, and a process with a thread of another,
    # read back exactly as cube_dump --by combines them
    sysl = d["system"]
    def sid(kind, index):
        return next(i for i, s in enumerate(sysl) if s["kind"] == kind and s["index"] == index)
    def same(a, b):
        return a == b or (a is None and b is None)
    t0 = sysl[sid("thread", 0)]
    for uniq in ("time", "visits", "mpi"):
        m = mi[uniq]
        for what, ssel, by, key, index in (("process 2", str(sid("process", 2)), "process", "process", 2),
                                           ("the node", str(sid("node", 0)), "node", "node_id", None),
                                           ("the machine", str(sid("machine", 0)), "machine", "machine_id", 0)):
            ans = pane("order=metric,system,call&pane=call&msel=%d&ssel=%s" % (m, ssel))
            good = True
            for flav in ("incl", "excl"):
                rows = dump("-m", uniq, "-z", flav, "--by=" + by)
                if index is not None:
                    rows = [r for r in rows if r[key] == index]
                good = good and len(rows) == len(d["cnodes"])
                good = good and all(same(ans[flav][cid[r["cnode_id"]]], r["value"]) for r in rows)
            check(good, "order metric,system,call: call pane of metric %s over %s equals cube_dump --by=%s exactly"
                  % (uniq, what, by))
        ans = pane("order=metric,system,call&pane=call&msel=%d&ssel=%d,%d" % (m, sid("machine", 0), sid("process", 3)))
        mach = {r["cnode_id"]: r["value"] for r in dump("-m", uniq, "-z", "excl", "--by=machine")}
        proc = {r["cnode_id"]: r["value"] for r in dump("-m", uniq, "-z", "excl", "--by=process") if r["process"] == 3}
        check(all(close(ans["excl"][cid[c]], mach[c] + proc[c]) for c in proc),
              "order metric,system,call: the machine and process 3 selected: their sum, metric %s" % uniq)
        ans = pane("order=metric,system,call&pane=call&msel=%d&ssel=%d,%d" % (m, sid("process", 1), sid("thread", 0)))
        proc = {r["cnode_id"]: r["value"] for r in dump("-m", uniq, "-z", "incl", "--by=process") if r["process"] == 1}
        thr = {r["cnode_id"]: r["value"] for r in dump("-m", uniq, "-z", "incl", "-t", "0")}
        check(all(close(ans["incl"][cid[c]], proc[c] + thr[c]) for c in proc),
              "order metric,system,call: process 1 and thread 0 of process 0 selected: their sum, metric %s" % uniq)
    # six threads of three processes selected one by one: per call path
    # their values added in the order selected, exactly
    picked = (5, 0, 13, 7, 21, 2)
    per = {t: {r["cnode_id"]: r["value"] for r in dump("-m", "time", "-z", "excl", "-t", str(t))} for t in picked}
    ans = pane("order=metric,system,call&pane=call&msel=%d&ssel=%s"
               % (mi["time"], ",".join(str(sid("thread", t)) for t in picked)))
    good = len(per[0]) == len(d["cnodes"])
    for c in per[0]:
        want = 0.0
        for t in picked:
            want += per[t][c]
        good = good and ans["excl"][cid[c]] == want
    check(good, "order metric,system,call: six threads selected: their values added in the order selected, exactly")
    # the metric pane, leftmost: each metric's total (collapsed) and own part (expanded)
    ans = pane("pane=metric")
    good = True
    for flav, key in (("incl", "incl"), ("excl", "excl")):
        tot = {}
        for r in dump("-t", "aggr", "-z", "incl", "-c", "roots", "-x", flav):
            tot[r["metric"]] = tot.get(r["metric"], 0) + (r["value"] or 0)
        for u, v in tot.items():
            good = good and close(ans[key][mi[u]], v)
    check(good, "metric pane: every metric's incl and excl total equal cube_dump's roots")
    # the metric tree right of the call tree: a metric's value on one call path
    ans = pane("order=call,metric,system&pane=metric&csel=1")
    good = all(close(ans["incl"][mi[r["metric"]]], r["value"])
               for r in dump("-t", "aggr", "-z", "incl", "-c", str(d["cnodes"][1]["id"])))
    check(good, "order call,metric,system: the metric pane holds the call path's inclusive values")
    ans = pane("order=call,metric,system&pane=call")
    check(all(v is None for v in ans["incl"]), "a call pane left of the metric pane has no values")
finally:
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "hung"
check(rc == 0, "SIGTERM stops it with exit 0 (got %s)" % rc)
EOF
python3 "$TMP/serve.py" "$BIN/cube_view" "$TRACE" 2>"$TMP/serve.err" ||
    { not_ok "cube_view --serve: the test script ran to its end"; sed 's/^/#   /' "$TMP/serve.err" | tail -5; }

# --- --serve on maxima and minima: each metric's call pane as cube_dump
# gives it (no value: null), and several selected metrics combined as they
# combine (two maxima: the larger; a sum and a maximum: the sum)
cat >"$TMP/serve_minmax.py" <<'EOF'
import os, signal, sys
sys.path.insert(0, "tests/cli")
from view_served import Served
server = Served(sys.argv[1], sys.argv[2])
def check(cond, what):
    print(("ok - " if cond else "not ok - ") + "cube_view --serve minmax.cube: " + what)
try:
    server.start()
    pane, dump, d, mi, cid = server.pane, server.dump, server.d, server.mi, server.cid
    def same(a, b):
        return (a is None and b is None) or (a is not None and b is not None and abs(a - b) <= 1e-9 * max(1, abs(b)))
    for u in ("peak", "max_t", "min_t", "time_in_max"):
        ans = pane("pane=call&msel=%d" % mi[u])
        good = all(same(ans[k][cid[r["cnode_id"]]], r["value"])
                   for k, z in (("incl", "incl"), ("excl", "excl")) for r in dump("-m", u, "-t", "aggr", "-z", z))
        check(good, "call pane of %s equals cube_dump -t aggr (no value: null)" % u)
    ms = next(i for i, s in enumerate(d["system"]) if s["kind"] == "machine")
    for u in ("peak", "min_t", "time"):
        ans = pane("order=metric,system,call&pane=call&msel=%d&ssel=%d" % (mi[u], ms))
        good = all(same(ans[k][cid[r["cnode_id"]]], r["value"])
                   for k, z in (("incl", "incl"), ("excl", "excl")) for r in dump("-m", u, "-z", z, "--by=machine"))
        check(good, "call pane of %s right of the system pane, the machine selected: cube_dump --by=machine" % u)
    a, b = pane("pane=call&msel=%d" % mi["peak"]), pane("pane=call&msel=%d" % mi["max_t"])
    both = pane("pane=call&msel=%d,%d" % (mi["peak"], mi["max_t"]))
    want = [x if y is None else y if x is None else max(x, y) for x, y in zip(a["incl"], b["incl"])]
    check(both["incl"] == want, "two maxima selected: the larger of the two")
    a, b = pane("pane=call&msel=%d" % mi["time"]), pane("pane=call&msel=%d" % mi["time_in_max"])
    both = pane("pane=call&msel=%d,%d" % (mi["time"], mi["time_in_max"]))
    check(all(same(z, x + y) for x, y, z in zip(a["incl"], b["incl"], both["incl"])), "two sums selected: the sum")
finally:
    rc = server.stop(signal.SIGINT)
check(rc == 0, "SIGINT stops it with exit 0 (got %s)" % rc)
EOF
python3 "$TMP/serve_minmax.py" "$BIN/cube_view" "$MINMAX" 2>"$TMP/serve.err" ||
    { not_ok "cube_view --serve minmax.cube: the test script ran to its end"; sed 's/^/#   /' "$TMP/serve.err" | tail -5; }

# --- --serve on one metric of each value type: every pane as cube_dump
# gives it; COMPLEX, RATE and TAU_ATOMIC combine by their components over
# all threads and along the call tree, a process or machine combines its
# threads' numbers, narrow integers wrap over all threads
cat >"$TMP/serve_values.py" <<'EOF'
import os, signal, sys
sys.path.insert(0, "tests/cli")
from view_served import Served
server = Served(sys.argv[1], sys.argv[2])
def check(cond, what, bad=()):
    print(("ok - " if cond else "not ok - ") + "cube_view --serve values example: " + what)
    for b in list(bad)[:4]:
        print("#   " + str(b))
try:
    server.start()
    pane, dump, d, mi, cid = server.pane, server.dump, server.d, server.mi, server.cid
    sysl = d["system"]
    thr = {s["index"]: i for i, s in enumerate(sysl) if s["kind"] == "thread"}
    prc = {s["index"]: i for i, s in enumerate(sysl) if s["kind"] == "process"}
    mach = next(i for i, s in enumerate(sysl) if s["kind"] == "machine")
    def same(a, b):
        return (a is None and b is None) or (a is not None and b is not None and abs(a - b) <= 1e-12 * max(1, abs(b)))
    stored = [m["uniq"] for m in d["metrics"] if m["kind"] == "stored"]
    bad = {k: [] for k in ("call", "flat", "system", "machine", "metric")}
    for u in stored:
        m = mi[u]
        for x, xs in (("incl", ""), ("excl", ":e")):
            ans = pane("pane=call&msel=%d%s" % (m, xs))
            for z in ("incl", "excl"):
                for r in dump("-m", u, "-t", "aggr", "-x", x, "-z", z):
                    if not same(ans[z][cid[r["cnode_id"]]], r["value"]):
                        bad["call"].append((u, x, z, r["cnode_id"], ans[z][cid[r["cnode_id"]]], r["value"]))
            ans = pane("pane=flat&msel=%d%s" % (m, xs))
            for r in dump("-m", u, "-t", "aggr", "-x", x, "-r"):
                for k, c in (("excl", "exclusive"), ("incl", "inclusive"), ("sub", "subroutines")):
                    if not same(ans[k][r["region_id"]], r[c]):
                        bad["flat"].append((u, x, c, r["region"], ans[k][r["region_id"]], r[c]))
            for z, zs in (("incl", ""), ("excl", ":e")):
                ans = pane("pane=system&msel=%d%s&csel=0%s" % (m, xs, zs))
                for r in dump("-m", u, "-x", x, "-z", z, "-c", "0"):
                    if not same(ans["incl"][thr[r["location"]]], r["value"]):
                        bad["system"].append((u, x, z, "thread", r["location"], ans["incl"][thr[r["location"]]], r["value"]))
                for r in dump("-m", u, "-x", x, "-z", z, "-c", "0", "--by=process"):
                    if not same(ans["incl"][prc[r["process"]]], r["value"]):
                        bad["system"].append((u, x, z, "process", r["process"], ans["incl"][prc[r["process"]]], r["value"]))
                ans = pane("order=metric,system,call&pane=call&msel=%d%s&ssel=%d" % (m, xs, mach))
                for r in dump("-m", u, "-x", x, "-z", z, "--by=machine"):
                    if not same(ans[z][cid[r["cnode_id"]]], r["value"]):
                        bad["machine"].append((u, x, z, r["cnode_id"], ans[z][cid[r["cnode_id"]]], r["value"]))
    tree = pane("pane=metric")
    for x in ("incl", "excl"):
        for r in dump("-t", "aggr", "-z", "incl", "-c", "roots", "-x", x):
            if d["metrics"][mi[r["metric"]]]["kind"] == "stored" and not same(tree[x][mi[r["metric"]]], r["value"]):
                bad["metric"].append(("leftmost", x, r["metric"], tree[x][mi[r["metric"]]], r["value"]))
        for c in d["cnodes"]:
            for z, zs in (("incl", ""), ("excl", ":e")):
                ans = pane("order=call,metric,system&pane=metric&csel=%d%s" % (cid[c["id"]], zs))
                for r in dump("-t", "aggr", "-x", x, "-z", z, "-c", str(c["id"])):
                    if d["metrics"][mi[r["metric"]]]["kind"] == "stored" and not same(ans[x][mi[r["metric"]]], r["value"]):
                        bad["metric"].append((c["id"], x, z, r["metric"], ans[x][mi[r["metric"]]], r["value"]))
    rate = mi["RATE"]
    check(pane("pane=call&msel=%d" % rate)["incl"][0] == dump("-m", "RATE", "-t", "aggr", "-z", "incl", "-c", "0")[0]["value"],
          "RATE's call pane at the root, collapsed: cube_dump -t aggr's value (main / duration over all)")
    check(not bad["call"], "call pane of every metric, collapsed and expanded: cube_dump -t aggr", bad["call"])
    check(not bad["flat"], "flat pane of every metric: cube_dump -r -t aggr", bad["flat"])
    check(not bad["system"], "system pane of every metric, call path 0: threads and processes as cube_dump", bad["system"])
    check(not bad["machine"], "call pane right of the machine selected, every metric: cube_dump --by=machine", bad["machine"])
    check(not bad["metric"], "metric pane, leftmost and right of each call path: cube_dump -t aggr", bad["metric"])
finally:
    rc = server.stop(signal.SIGTERM)
check(rc == 0, "SIGTERM stops it with exit 0 (got %s)" % rc)
EOF
python3 "$TMP/serve_values.py" "$BIN/cube_view" "$VALUES" 2>"$TMP/serve.err" ||
    { not_ok "cube_view --serve values example: the test script ran to its end"; sed 's/^/#   /' "$TMP/serve.err" | tail -5; }
