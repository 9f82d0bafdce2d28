# cube_dump on the shipped real experiments: the totals of the call-tree
# roots against cube_info, the formats (CSV, TSV, JSON, human) with their
# documented columns, the flavours along both trees, call-path and thread
# selections, the flat profile against a hand computation from the XML, the
# value modes, the structure (-w), gzip and standard input, -o, errors.
. tests/cli/lib.sh
TRACE=testdata/cube/scalasca_trace.cube
KOJAK=testdata/cube/kojak-expert_ctest-pomp.cube
TAU=testdata/cube/tau2cube_template1.cube
HEADER='metric,cnode_id,call_path,region,module,line,location,process,thread,value'
FLAT_HEADER='metric,region_id,region,module,line,location,process,thread,exclusive,inclusive,subroutines'


# --- the inclusive value of the call-tree roots, summed over all threads,
# is the metric's total that cube_info reports: every metric, every file
cat >"$TMP/chk_totals.py" <<'EOF'
import csv, io, json, math, subprocess, sys
dump, info, f = sys.argv[1], sys.argv[2], sys.argv[3]
totals = json.loads(subprocess.run([info, "--json", f], capture_output=True, text=True,
                                   check=True).stdout)
bad = 0
n = 0
for m in totals["metrics"]:
    if m["void"]:
        continue
    out = subprocess.run([dump, "-m", m["uniq_name"], "-c", "roots", "-t", "aggr", "-z", "incl",
                          f], capture_output=True, text=True, check=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    if not rows or any(r["metric"] != m["uniq_name"] or r["thread"] != "aggr" for r in rows):
        print("bad rows for", m["uniq_name"]); bad += 1; continue
    s = math.fsum(float(r["value"]) for r in rows)
    if s != m["total"]:
        print(m["uniq_name"], s, "!=", m["total"]); bad += 1
    n += 1
if bad or n == 0:
    sys.exit(1)
EOF
for f in testdata/cube/*.cube; do
    name=$(basename "$f" .cube)
    pycheck "cube_dump $name: the roots' inclusive values sum to cube_info's total, every metric" \
        "$TMP/chk_totals.py" "$BIN/cube_dump" "$BIN/cube_info" "$f"
done

# --- CSV: the documented header, RFC 4180 quoting (tau2cube's region names
# hold commas), one row per call path and thread
run cube_dump -m BGP "$TAU"
expect_rc 0 "cube_dump -m BGP exits 0"
head -n 1 "$TMP/out" >"$TMP/head"
expect_text_eq "$HEADER" "$TMP/head" "cube_dump CSV has the documented header"
cp "$TMP/out" "$TMP/tau.csv"
run cube_dump -w regions -s json "$TAU"
cp "$TMP/out" "$TMP/tau-regions.json"
cat >"$TMP/chk_csv.py" <<'EOF'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
regions = {r["name"] for r in json.load(open(sys.argv[2]))["regions"]}
assert rows[0] == sys.argv[3].split(","), rows[0]
assert len(rows) == 1 + 195, len(rows)        # 195 call paths, 1 thread
assert all(len(r) == 10 for r in rows)
assert any("," in r[3] for r in rows[1:])     # names with commas survive
assert all(r[3] in regions and r[2].endswith(r[3]) for r in rows[1:])
assert all(r[6:9] == ["0", "0", "0"] for r in rows[1:])
EOF
pycheck "cube_dump CSV parses with python's csv module, names with commas quoted" \
    "$TMP/chk_csv.py" "$TMP/tau.csv" "$TMP/tau-regions.json" "$HEADER"
if grep -q '^BGP,0,"BC_FLUX \[{bc_flux.pp.f90} {21,1}-{390,22}\]","BC_FLUX \[{bc_flux.pp.f90} {21,1}-{390,22}\]",,,0,0,0,4123$' "$TMP/tau.csv"; then
    ok "cube_dump CSV quotes a field with a comma and leaves the others bare"
else not_ok "cube_dump CSV quotes a field with a comma and leaves the others bare"; fi

# a name with a comma, quotes, a backslash, a tab and a newline survives
# CSV and JSON, and is one field of TSV and human
sed 's|<name>MPI_Send</name>|<name>a,b "q" \\x\&#9;t\&#10;n/s</name>|' testdata/reader/plain.cube >"$TMP/odd.cube"
cat >"$TMP/chk_odd.py" <<'EOF'
import csv, json, subprocess, sys
dump, f = sys.argv[1], sys.argv[2]
name = 'a,b "q" \\x\tt\nn/s'
out = lambda fmt: subprocess.run([dump, "-m", "time", "-t", "0", "-s", fmt, f],
                                 capture_output=True, text=True, check=True).stdout
assert list(csv.reader(out("csv").splitlines(True)))[-1][3] == name
assert json.loads(out("json"))[-1]["region"] == name
tsv = out("tsv").splitlines()
assert len(tsv) == 3 and tsv[-1].split("\t")[3] == 'a,b "q" \\x t n/s', tsv
assert len(out("human").splitlines()) == 3
EOF
pycheck "cube_dump: a name with , \" \\ tab and newline in CSV, JSON, TSV and human" \
    "$TMP/chk_odd.py" "$BIN/cube_dump" "$TMP/odd.cube"

# per thread: 130 call paths x 36 threads, locations 0..35 with ranks
run cube_dump -m time "$TRACE"
cat >"$TMP/chk_trace.py" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 130 * 36, len(rows)
assert sorted({int(r["location"]) for r in rows}) == list(range(36))
# 4 processes of 9 threads: location = 9 * process + thread
assert all(int(r["location"]) == 9 * int(r["process"]) + int(r["thread"]) for r in rows)
# preorder: the call path of a row starts with the call path of the root
assert rows[0]["call_path"] == "MAIN__" and rows[0]["cnode_id"] == "0"
assert all(r["call_path"].startswith("MAIN__") for r in rows)
EOF
pycheck "cube_dump per thread: one row per call path and thread, process and thread ranks" \
    "$TMP/chk_trace.py" "$TMP/out"

# --- JSON: one array of objects with the fixed keys
run cube_dump -m time -c 0-2 -t 0,35 -s json "$TRACE"
expect_rc 0 "cube_dump -s json exits 0"
cat >"$TMP/chk_json.py" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
keys = sys.argv[2].split(",")
assert isinstance(rows, list) and len(rows) == 6, len(rows)
assert all(list(r) == keys for r in rows)
assert [r["location"] for r in rows] == [0, 35] * 3
assert all(isinstance(r["value"], float) or isinstance(r["value"], int) for r in rows)
assert rows[0]["line"] == 48 and rows[2]["cnode_id"] == 1
EOF
pycheck "cube_dump JSON parses, with the documented keys in order" "$TMP/chk_json.py" "$TMP/out" "$HEADER"
run cube_dump -m time -c 0 -t aggr -s json "$TRACE"
cat >"$TMP/chk_json-aggr.py" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 1
r = rows[0]
assert r["location"] is None and r["process"] is None and r["thread"] is None
assert r["value"] == 0.1093467976105257, r["value"]
EOF
pycheck "cube_dump JSON: -t aggr gives null locations" "$TMP/chk_json-aggr.py" "$TMP/out"
run cube_dump -m time -c 2 -s json "$TRACE"
if grep -q '"line":null' "$TMP/out"; then ok "cube_dump JSON: an unknown line is null"; else
    not_ok "cube_dump JSON: an unknown line is null"; fi

# --- TSV: tabs, no quoting
run cube_dump -m BGP -s tsv "$TAU"
if [ "$(head -n 1 "$TMP/out")" = "$(echo "$HEADER" | tr , '\t')" ] &&
    [ "$(awk -F '\t' 'NF != 10' "$TMP/out" | wc -l)" -eq 0 ] && ! grep -q '"' "$TMP/out"; then
    ok "cube_dump TSV: the header, ten tab-separated fields a line, no quotes"
else not_ok "cube_dump TSV: the header, ten tab-separated fields a line, no quotes"; fi

# --- human: aligned; the value column is right-aligned (all lines end at
# the same column)
run cube_dump -m time -c 0-3 -t 0,1 -s human "$TRACE"
if [ "$(awk '{ print length($0) }' "$TMP/out" | sort -u | wc -l)" -eq 1 ] &&
    head -n 1 "$TMP/out" | grep -q '^metric  cnode_id  call_path  '; then
    ok "cube_dump -s human prints an aligned table"
else not_ok "cube_dump -s human prints an aligned table"; fi

# --- the flavours: -x excl is the stored value minus the children's, -z incl
# the own value plus the children's inclusive values (aggregated, every
# metric and call path of the trace)
run cube_dump -t aggr -s json "$TRACE"
cp "$TMP/out" "$TMP/xi-ze.json"
run cube_dump -t aggr -x excl -s json "$TRACE"
cp "$TMP/out" "$TMP/xe-ze.json"
run cube_dump -t aggr -z incl -s json "$TRACE"
cp "$TMP/out" "$TMP/xi-zi.json"
run cube_dump -w all -s json "$TRACE"
cp "$TMP/out" "$TMP/structure.json"
cat >"$TMP/chk_flavours.py" <<'EOF'
import json, math, sys
def load(p):
    return {(r["metric"], r["cnode_id"]): r["value"] for r in json.load(open(p))}
incl, excl, cincl = load(sys.argv[1]), load(sys.argv[2]), load(sys.argv[3])
s = json.load(open(sys.argv[4]))
mname = {m["metric_id"]: m["uniq_name"] for m in s["metrics"]}
children = {}
for m in s["metrics"]:
    if m["parent_id"] is not None:
        children.setdefault(mname[m["parent_id"]], []).append(m["uniq_name"])
kids = {}
for c in s["calltree"]:
    if c["parent_id"] is not None:
        kids.setdefault(c["parent_id"], []).append(c["cnode_id"])
close = lambda a, b: abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))
checked = 0
for (m, c), v in incl.items():
    want = math.fsum([v] + [-incl[(k, c)] for k in children.get(m, [])])
    assert close(excl[(m, c)], want), (m, c, excl[(m, c)], want)
    want = math.fsum([v] + [cincl[(m, k)] for k in kids.get(c, [])])
    assert close(cincl[(m, c)], want), (m, c, cincl[(m, c)], want)
    checked += 1
assert checked == 110 * 130, checked
EOF
pycheck "cube_dump -x excl = stored minus child metrics; -z incl = own plus callees'" \
    "$TMP/chk_flavours.py" "$TMP/xi-ze.json" "$TMP/xe-ze.json" "$TMP/xi-zi.json" "$TMP/structure.json"
run cube_dump -t aggr -z stored -s json "$TRACE"
expect_file_eq "$TMP/xi-ze.json" "$TMP/out" "cube_dump -z stored is -z excl (CUBE 3 stores exclusive values)"

# --- call-path selections
cat >"$TMP/chk_select.py" <<'EOF'
import csv, json, re, subprocess, sys
dump, f, structure = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
tree = structure["calltree"]
has_kids = {c["parent_id"] for c in tree}
def ids(sel):
    out = subprocess.run([dump, "-m", "time", "-t", "aggr", "-c", sel, f], capture_output=True,
                         text=True, check=True).stdout
    return [int(r["cnode_id"]) for r in csv.DictReader(out.splitlines())]
pre = [c["cnode_id"] for c in tree]
def expect(sel, pred):
    got, want = ids(sel), [c["cnode_id"] for c in tree if pred(c)]
    assert got == want, (sel, got[:10], want[:10])
expect("all", lambda c: True)
expect("roots", lambda c: c["parent_id"] is None)
expect("leaves", lambda c: c["cnode_id"] not in has_kids)
expect("leafs", lambda c: c["cnode_id"] not in has_kids)
expect("level=2", lambda c: c["level"] == 2)
expect("level<2", lambda c: c["level"] < 2)
expect("level>4", lambda c: c["level"] > 4)
expect("0,3,5-7,128-", lambda c: c["cnode_id"] in (0, 3, 5, 6, 7, 128, 129))
expect("roots,17", lambda c: c["parent_id"] is None or c["cnode_id"] == 17)
expect("name=/^MPI_(Send|Recv)$/", lambda c: re.search("^MPI_(Send|Recv)$", c["region"]))
expect("name=/omp (do|for) @/", lambda c: re.search("omp (do|for) @", c["region"]))
EOF
pycheck "cube_dump -c: ids and ranges, all, roots, leaves, level=/</>, name=/regex/" \
    "$TMP/chk_select.py" "$BIN/cube_dump" "$TRACE" "$TMP/structure.json"

run cube_dump -m time -c 0 -t 0,2-3,34- -s tsv "$TRACE"
if [ "$(cut -f 7 "$TMP/out" | tr '\n' ' ')" = "location 0 2 3 34 35 " ]; then
    ok "cube_dump -t selects thread indexes and ranges"
else not_ok "cube_dump -t selects thread indexes and ranges"; fi

# --- the flat profile of compute_rhs_ (two call paths with callees),
# computed by hand from the XML with awk
cat >"$TMP/flat.awk" <<'EOF'
/<metric id="/       { match($0, /id="[0-9]+"/); mid = substr($0, RSTART + 4, RLENGTH - 5) }
/<uniq_name>time</   { if (timeid == "") timeid = mid }
/<region id="/       { match($0, /id="[0-9]+"/); rid = substr($0, RSTART + 4, RLENGTH - 5) }
/<name>compute_rhs_</ { target = rid }
/<cnode id="/ {
    match($0, /id="[0-9]+"/); c = substr($0, RSTART + 4, RLENGTH - 5)
    match($0, /calleeId="[0-9]+"/); callee[c] = substr($0, RSTART + 10, RLENGTH - 11)
    parent[c] = depth ? stack[depth] : -1
    stack[++depth] = c
    n++; order[n] = c
    if ($0 ~ /\/>/) depth--
}
/<\/cnode>/          { depth-- }
/<matrix metricId="/ { match($0, /metricId="[0-9]+"/); mat = substr($0, RSTART + 10, RLENGTH - 11) }
/<row cnodeId="/     { match($0, /cnodeId="[0-9]+"/); row = substr($0, RSTART + 9, RLENGTH - 10); inrow = 1; next }
/<\/row>/            { inrow = 0 }
inrow && mat == timeid { for (i = 1; i <= NF; i++) value[row] += $i }
END {
    for (k = 1; k <= n; k++) {
        c = order[k]
        if (callee[c] == target) excl += value[c]
        # outermost ancestor-or-self calling the target
        out = ""
        for (a = c; a != -1; a = parent[a]) if (callee[a] == target) out = a
        if (out != "") incl += value[c]
    }
    printf "%.17g %.17g %.17g\n", excl, incl, incl - excl
}
EOF
awk -f "$TMP/flat.awk" "$TRACE" >"$TMP/hand.txt"
run cube_dump -r -m time -t aggr -c 'name=/^compute_rhs_$/' "$TRACE"
expect_rc 0 "cube_dump -r exits 0"
head -n 1 "$TMP/out" >"$TMP/head"
expect_text_eq "$FLAT_HEADER" "$TMP/head" "cube_dump -r has the documented header"
cat >"$TMP/chk_flatcheck.py" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 1 and rows[0]["region"] == "compute_rhs_", rows
excl, incl, sub = map(float, open(sys.argv[2]).read().split())
assert excl > 0 and sub > 0, (excl, incl, sub)
for key, want in (("exclusive", excl), ("inclusive", incl), ("subroutines", sub)):
    got = float(rows[0][key])
    assert abs(got - want) <= 1e-9 * abs(want), (key, got, want)
EOF
pycheck "cube_dump -r: compute_rhs_'s exclusive, inclusive and Subroutines as computed by hand" \
    "$TMP/chk_flatcheck.py" "$TMP/out" "$TMP/hand.txt"
run cube_dump -r -m time -t 0,1 "$TRACE"
if [ "$(tail -n +2 "$TMP/out" | wc -l)" -eq $((107 * 2)) ]; then
    ok "cube_dump -r per thread: one row per region and thread"
else not_ok "cube_dump -r per thread: one row per region and thread"; fi
run cube_dump -r -c roots "$TRACE"
expect_rc 2 "cube_dump -r -c roots is a usage error"

# --- value modes
cat >"$TMP/chk_modes.py" <<'EOF'
import csv, io, math, subprocess, sys
dump, f = sys.argv[1], sys.argv[2]
def rows(*args):
    out = subprocess.run([dump, "-m", "mpi", *args, f], capture_output=True, text=True,
                         check=True).stdout
    return list(csv.DictReader(io.StringIO(out)))
val = lambda r: float(r["value"]) if r["value"] != "" else None
near = lambda a, b: a is not None and abs(a - b) <= 1e-9 * max(1, abs(b))
# metric selection percent: exclusive call paths sum to 100
assert near(math.fsum(val(r) for r in rows("-t", "aggr", "--mode=metricsel")), 100)
# own root percent of a root, aggregated and inclusive: 100
assert near(val(rows("-t", "aggr", "-z", "incl", "-c", "roots", "--mode=ownroot")[0]), 100)
# call selection percent: the threads of one call path sum to 100
r = rows("-c", "2", "--mode=callsel")
assert len(r) == 36 and near(math.fsum(val(x) for x in r), 100)
# peer percent: the largest thread is 100; peer distribution: 0 to 100
p = [val(x) for x in rows("-c", "2", "--mode=peer")]
assert near(max(p), 100), max(p)
d = [val(x) for x in rows("-c", "2", "--mode=peerdist")]
assert near(min(d), 0) and near(max(d), 100)
# external percent against the same file is the metric root percent
a = [x["value"] for x in rows("-t", "aggr", "--mode=external=" + f)]
b = [x["value"] for x in rows("-t", "aggr", "--mode=metricroot")]
assert a == b and any(v != "" for v in a)
# metric root percent: of time (the root), not of mpi
t = rows("-t", "aggr", "-c", "roots", "-z", "incl", "--mode=metricroot")
assert near(val(t[0]) * 390.19278532568757 / 100, 2.763623707105869), val(t[0])
# undefined: the call tree has no call root percent of its own
assert all(x["value"] == "" for x in rows("-t", "aggr", "--mode=callroot"))
# long names of the library are accepted
assert rows("-t", "aggr", "--mode=metric-selection-percent") == rows("-t", "aggr", "--mode=metricsel")
EOF
pycheck "cube_dump --mode: metricsel, ownroot, callsel, peer, peerdist, external, metricroot" \
    "$TMP/chk_modes.py" "$BIN/cube_dump" "$TRACE"
# per thread, the call selection (and the flat view's call root) is the
# value over all threads as -t aggr prints it, also where that is not the
# threads' values added up: RATE (main / duration over all threads), UINT8
# (wraps over all threads); the flat view's root is the region's inclusive
# value of -r -t aggr
cat >"$TMP/chk_modes_apart.py" <<'EOF'
import csv, io, subprocess, sys
dump, f = sys.argv[1], sys.argv[2]
def rows(*args):
    out = subprocess.run([dump, *args, f], capture_output=True, text=True, check=True).stdout
    return list(csv.DictReader(io.StringIO(out)))
near = lambda a, b: abs(a - b) <= 1e-12 * max(1, abs(b))
for m in ("RATE", "UINT8", "COMPLEX", "TAU_ATOMIC", "DOUBLE"):
    for z in ("incl", "excl"):
        over = {r["cnode_id"]: float(r["value"]) for r in rows("-m", m, "-t", "aggr", "-z", z)}
        absolute = rows("-m", m, "-z", z)
        sel = rows("-m", m, "-z", z, "--mode=callsel")
        assert len(absolute) == len(sel) == 12
        for a, s in zip(absolute, sel):
            want = 100 * float(a["value"]) / over[a["cnode_id"]]
            assert near(float(s["value"]), want), (m, z, a, s["value"], want)
    flat = {r["region"]: float(r["inclusive"]) for r in rows("-m", m, "-r", "-t", "aggr")}
    absolute = rows("-m", m, "-r")
    root = rows("-m", m, "-r", "--mode=callroot")
    for a, r in zip(absolute, root):
        for k in ("exclusive", "inclusive", "subroutines"):
            want = 100 * float(a[k]) / flat[a["region"]] if flat[a["region"]] else None
            assert (r[k] == "" if want is None else near(float(r[k]), want)), (m, k, a, r[k], want)
EOF
pycheck "cube_dump --mode=callsel and -r --mode=callroot per thread: of the value -t aggr prints (RATE, UINT8, COMPLEX, TAU_ATOMIC, DOUBLE)" \
    "$TMP/chk_modes_apart.py" "$BIN/cube_dump" testdata/cubex/cubelib-4.8.2_cube-values_example.cubex
run cube_dump -m mpi -c 2 -t 0 --mode=syssel -s tsv "$TRACE"
if [ "$(tail -n 1 "$TMP/out" | cut -f 10)" = 12.903790877892533 ]; then
    ok "cube_dump --mode=syssel: percent of the thread's total"
else not_ok "cube_dump --mode=syssel: percent of the thread's total"; fi
run cube_dump -m mpi --mode=external=$TAU "$TRACE"
expect_rc 0 "cube_dump --mode=external with a file lacking the metric exits 0"
expect_grep "no metric 'time': its external percentages are undefined" "$TMP/err" \
    "cube_dump warns when the external file lacks the metric"

# --- the structure (-w) of a small experiment
run cube_dump -w attributes "$TAU"
expect_text_eq "key,value
CUBE_CT_AGGR,MAX" "$TMP/out" "cube_dump -w attributes"
run cube_dump -w all -s json "$KOJAK"
cp "$TMP/out" "$TMP/kojak.json"
"$BIN/cube_info" --json "$KOJAK" >"$TMP/kojak-info.json"
cat >"$TMP/chk_structure.py" <<'EOF'
import json, sys
s, info = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert list(s) == ["attributes", "mirrors", "metrics", "regions", "calltree", "systemtree",
                   "topologies"], list(s)
c = info["counts"]
assert len(s["metrics"]) == c["metrics"] and len(s["regions"]) == c["regions"]
assert len(s["calltree"]) == c["cnodes"] == 21
kinds = [x["kind"] for x in s["systemtree"]]
assert [kinds.count(k) for k in ("machine", "node", "process", "thread")] == \
    [c["machines"], c["nodes"], c["processes"], c["threads"]]
assert len(s["mirrors"]) == len(info["mirrors"])
ids = {m["metric_id"]: m for m in s["metrics"]}
for m in info["metrics"]:
    mm = ids[m["id"]]
    assert mm["uniq_name"] == m["uniq_name"]
    assert (mm["parent_id"] is None) == (m["parent"] is None)
    if m["parent"] is not None:
        assert ids[mm["parent_id"]]["uniq_name"] == m["parent"]
cn = {x["cnode_id"]: x for x in s["calltree"]}
regions = {r["region_id"]: r["name"] for r in s["regions"]}
for x in s["calltree"]:
    assert x["region"] == regions[x["region_id"]]
    if x["parent_id"] is None:
        assert x["level"] == 0 and x["call_path"] == x["region"]
    else:
        p = cn[x["parent_id"]]
        assert x["level"] == p["level"] + 1
        assert x["call_path"] == p["call_path"] + "/" + x["region"]
threads = [x for x in s["systemtree"] if x["kind"] == "thread"]
assert [t["location"] for t in threads] == list(range(len(threads)))
EOF
pycheck "cube_dump -w all -s json: every section, ids and parent ids agree with cube_info" \
    "$TMP/chk_structure.py" "$TMP/kojak.json" "$TMP/kojak-info.json"
run cube_dump -w calltree "$KOJAK"
if [ "$(head -n 1 "$TMP/out")" = "cnode_id,parent_id,level,region_id,region,call_path,call_site_module,call_site_line" ] &&
    [ "$(wc -l <"$TMP/out")" -eq 22 ]; then
    ok "cube_dump -w calltree: the documented header and one row per call path"
else not_ok "cube_dump -w calltree: the documented header and one row per call path"; fi
run cube_dump -w metrics -w systemtree "$KOJAK"
if [ "$(grep -c '^$' "$TMP/out")" -eq 1 ] && head -n 1 "$TMP/out" | grep -q '^metric_id,parent_id,' &&
    grep -q '^kind,id,parent_id,name,rank,location$' "$TMP/out"; then
    ok "cube_dump -w twice: two tables separated by an empty line"
else not_ok "cube_dump -w twice: two tables separated by an empty line"; fi
run cube_dump -w metrics,regions -s human "$TAU"
if grep -q '^metrics:$' "$TMP/out" && grep -q '^regions:$' "$TMP/out"; then
    ok "cube_dump -w with a list, human: a title per section"
else not_ok "cube_dump -w with a list, human: a title per section"; fi
run cube_dump -w topologies testdata/cube/scalasca-bgpBT_experiment1.cube
if [ "$(head -n 1 "$TMP/out")" = "topology,name,dims,periodic,dim_names,kind,id,coords" ] &&
    [ "$(tail -n +2 "$TMP/out" | wc -l)" -eq 256 ]; then
    ok "cube_dump -w topologies: one row per coordinate of the two topologies"
else not_ok "cube_dump -w topologies: one row per coordinate of the two topologies"; fi
# one named dimension: every dimension's name listed ("" for the others);
# none for a topology without names
sed '2373s#<dim #<dim name="x" #; 2375s#periodic="false"#periodic="true"#' \
    testdata/cube/scalasca-bgpBT_experiment1.cube >"$TMP/named_dim.cube"
run cube_dump -w topologies "$TMP/named_dim.cube"
if [ "$(sed -n 2p "$TMP/out")" = '0,,"16,4,2","0,0,1","x,,",thread,0,"0,0,0"' ] &&
    [ "$(sed -n 130p "$TMP/out")" = '1,,"4,1,32","0,0,0",,thread,0,"0,0,0"' ]; then
    ok "cube_dump -w topologies lists dimension names only for a topology that has them"
else not_ok "cube_dump -w topologies lists dimension names only for a topology that has them"; fi
run cube_dump -w "$TAU"
expect_rc 0 "cube_dump -w FILE prints every section"
expect_grep '^region_id,name,module,begin_line,end_line,url,descr$' "$TMP/out" \
    "cube_dump -w FILE prints the regions"

# --- gzip and standard input give the same output; -o
gzip -9nc "$TRACE" >"$TMP/t.cube.gz"
run cube_dump -m mpi -t aggr "$TRACE"
cp "$TMP/out" "$TMP/plain.csv"
run cube_dump -m mpi -t aggr "$TMP/t.cube.gz"
expect_file_eq "$TMP/plain.csv" "$TMP/out" "cube_dump reads gzip input"
"$BIN/cube_dump" -m mpi -t aggr - <"$TMP/t.cube.gz" >"$TMP/out" 2>"$TMP/err"
expect_file_eq "$TMP/plain.csv" "$TMP/out" "cube_dump reads '-' from standard input"
run cube_dump -m mpi -t aggr -o "$TMP/o.csv" "$TRACE"
if [ "$rc" = 0 ] && [ ! -s "$TMP/out" ] && cmp -s "$TMP/plain.csv" "$TMP/o.csv"; then
    ok "cube_dump -o writes the file, nothing to standard output"
else not_ok "cube_dump -o writes the file, nothing to standard output"; fi
run cube_dump -m mpi -t aggr -o - "$TRACE"
expect_file_eq "$TMP/plain.csv" "$TMP/out" "cube_dump -o - writes to standard output"
echo keep >"$TMP/keep.csv"
run cube_dump -m nosuch -o "$TMP/keep.csv" "$TRACE"
if [ "$rc" = 2 ] && [ "$(cat "$TMP/keep.csv")" = keep ] && [ -z "$(ls "$TMP" | grep 'keep.csv.tmp')" ]; then
    ok "cube_dump leaves an existing -o file alone after an error"
else not_ok "cube_dump leaves an existing -o file alone after an error"; fi

# a repeated matrix: the later values win, as when the file is read whole
run cube_dump testdata/reader/tolerate-repeated-matrix.cube
cp "$TMP/out" "$TMP/repeat.csv"
"$BIN/cube_dump" - <testdata/reader/tolerate-repeated-matrix.cube >"$TMP/out" 2>"$TMP/err"
expect_file_eq "$TMP/repeat.csv" "$TMP/out" "cube_dump streams a file with a repeated matrix like cube_read"
expect_grep '^time,0,main,main,app.c,10,0,0,0,7$' "$TMP/repeat.csv" "cube_dump: the repeated row's later value wins"

# streaming gives what reading whole gives, on every oddity the reader
# tolerates (reordered ids, short rows, VOID metrics, repeated matrices, ...)
same=0
total=0
for f in testdata/reader/tolerate-*.cube testdata/reader/tolerate-*.cube.gz; do
    total=$((total + 1))
    "$BIN/cube_dump" -x excl -z incl "$f" >"$TMP/a.csv" 2>/dev/null
    "$BIN/cube_dump" -x excl -z incl - <"$f" >"$TMP/b.csv" 2>/dev/null
    cmp -s "$TMP/a.csv" "$TMP/b.csv" && [ -s "$TMP/a.csv" ] && same=$((same + 1))
done
if [ "$same" -eq "$total" ] && [ "$total" -gt 5 ]; then
    ok "cube_dump streams every tolerated oddity like a whole read ($total files)"
else not_ok "cube_dump streams every tolerated oddity like a whole read ($same of $total)"; fi

# --- usage errors and bad input: exit 2, one message
run cube_dump --help
expect_rc 0 "cube_dump --help exits 0"
expect_grep "usage: cube_dump" "$TMP/out" "cube_dump --help prints the usage"
run cube_dump --version
expect_grep "cube_dump (libcube) " "$TMP/out" "cube_dump --version"
run cube_dump
expect_rc 2 "cube_dump without a file exits 2"
expect_grep "^cube_dump: no input file$" "$TMP/err" "cube_dump says the file is missing"
run cube_dump -m nosuch "$TRACE"
expect_rc 2 "cube_dump -m with an unknown metric exits 2"
expect_text_eq "cube_dump: $TRACE: no metric 'nosuch' (cube_dump -w metrics lists them)" "$TMP/err" \
    "cube_dump names the unknown metric"
run cube_dump -c 1-x "$TRACE"
expect_rc 2 "cube_dump -c with a bad list exits 2"
expect_grep "^cube_dump: -c takes call-path ids and ranges" "$TMP/err" "cube_dump says what -c takes"
run cube_dump -c 'name=/(/' "$TRACE"
expect_rc 2 "cube_dump -c with a bad regular expression exits 2"
expect_grep "^cube_dump: -c name=/(/: bad regular expression" "$TMP/err" "cube_dump names the bad regular expression"
run cube_dump -t 36 "$TRACE"
expect_rc 2 "cube_dump -t beyond the last thread exits 2"
expect_text_eq "cube_dump: $TRACE: no thread 36: the threads are 0 to 35" "$TMP/err" \
    "cube_dump names the thread that is not there"
run cube_dump -t x "$TRACE"
expect_rc 2 "cube_dump -t x exits 2"
run cube_dump -x both "$TRACE"
expect_rc 2 "cube_dump -x both exits 2"
run cube_dump -z all "$TRACE"
expect_rc 2 "cube_dump -z all exits 2"
run cube_dump -s csv2 "$TRACE"
expect_rc 2 "cube_dump -s csv2 exits 2"
expect_grep "^cube_dump: -s takes csv, tsv, json or human, not 'csv2'$" "$TMP/err" "cube_dump names the bad format"
run cube_dump -w files "$TRACE"
expect_rc 2 "cube_dump -w with an unknown section exits 2"
run cube_dump --frobnicate "$TRACE"
expect_rc 2 "cube_dump with an unknown option exits 2"
expect_grep "^cube_dump: unknown option '--frobnicate'$" "$TMP/err" "cube_dump names the unknown option"
run cube_dump "$TRACE" "$TAU"
expect_rc 2 "cube_dump with two files exits 2"
run cube_dump testdata/no-such.cube
expect_rc 2 "cube_dump on a missing file exits 2"
expect_text_eq "cube_dump: testdata/no-such.cube: cannot open: No such file or directory" "$TMP/err" \
    "cube_dump names the missing file"
run cube_dump testdata/reader/reject-truncated-row.cube
expect_rc 2 "cube_dump on a truncated file exits 2"
expect_grep "^cube_dump: testdata/reader/reject-truncated-row.cube:[0-9]*: " "$TMP/err" \
    "cube_dump reports a bad file with file and line"
run cube_dump -m time -o /nonexistent-dir/x.csv "$TRACE"
expect_rc 2 "cube_dump -o into a missing directory exits 2"
