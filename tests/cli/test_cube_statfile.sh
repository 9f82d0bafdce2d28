# cube_statfile on statistics files: the table of the Cube GUI guide's
# example (seed-example.stat), both dialects, --instances ordering, --check
# with errors and warnings, the join with the Scalasca trace (metric names,
# call paths), the SVG box plot against the documented layout (linear and
# log), --from-cube read back, formats, -o, usage errors.
. tests/cli/lib.sh
SEED=testdata/statfile/seed-example.stat
SCA=testdata/statfile/cli-scalasca.stat
BAD=testdata/statfile/cli-bad.stat
WARN=testdata/statfile/cli-warn.stat
TRACE=testdata/cube/scalasca_trace.cube


# --- the table of the Cube GUI guide's example (documented dialect)
run cube_statfile "$SEED"
expect_rc 0 "cube_statfile on seed-example.stat exits 0"
head -n 1 "$TMP/out" >"$TMP/head"
expect_text_eq "pattern,metric_id,metric,count,mean,median,minimum,maximum,sum,variance,quartile25,quartile75,instances" \
    "$TMP/head" "cube_statfile: the column header"
cp "$TMP/out" "$TMP/seed.csv"
cat >"$TMP/chk_seed.py" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
want = [
    ("LateBroadcast", 6, 4, [0.010, 0.000031, 0.000004, 0.042856, 0.042, 0.000459, None, None], 1),
    ("WaitAtBarrier", 18, 20, [0.018, 0.006477, 0.000002, 0.065293, 0.369, 0.000698, 0.000040, 0.047409], 2),
    ("BarrierCompletion", 17, 20, [0.000, 0.000005, 0.000002, 0.000018, 0.000, 0.000000, 0.000003, 0.000009], 2),
    ("WaitAtIBarrier", 27, 144, [0.001, 0.000027, 0.000001, 0.028451, 0.212, 0.000028, 0.000002, 0.000437], 2),
]
keys = ["mean", "median", "minimum", "maximum", "sum", "variance", "quartile25", "quartile75"]
assert len(rows) == len(want), len(rows)
for r, (name, mid, count, vals, ninst) in zip(rows, want):
    assert r["pattern"] == name, r
    assert int(r["metric_id"]) == mid and int(r["count"]) == count, r
    assert r["metric"] == "", r
    assert int(r["instances"]) == ninst, r
    for k, v in zip(keys, vals):
        if v is None:
            assert r[k] == "", (name, k, r[k])
        else:
            assert float(r[k]) == v, (name, k, r[k], v)
EOF
pycheck "cube_statfile: seed-example.stat's values, absent quartiles empty" "$TMP/chk_seed.py" "$TMP/seed.csv"
expect_grep '^WaitAtBarrier,18,,20,0.018,0.006477,2e-06,0.065293,0.369,0.000698,4e-05,0.047409,2$' \
    "$TMP/seed.csv" "cube_statfile: numbers in the shortest form"

run cube_statfile -s json "$SEED"
cat >"$TMP/chk_json.py" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 4
assert list(rows[0].keys())[0] == "pattern" and rows[0]["quartile25"] is None, rows[0]
assert rows[0]["metric"] is None and rows[1]["count"] == 20, rows[1]
EOF
pycheck "cube_statfile -s json: absent values as null" "$TMP/chk_json.py" "$TMP/out"
run cube_statfile -s human "$SEED"
if [ "$(awk '{ print length($0) }' "$TMP/out" | sort -u | wc -l)" -eq 1 ] && [ "$(wc -l <"$TMP/out")" -eq 5 ]; then
    ok "cube_statfile -s human prints an aligned table"
else not_ok "cube_statfile -s human prints an aligned table"; fi
run cube_statfile -s tsv "$SEED"
expect_grep "^LateBroadcast	6		4	" "$TMP/out" "cube_statfile -s tsv: tab-separated"

# --- Scalasca dialect: the pattern name is the metric
run cube_statfile "$SCA"
expect_rc 0 "cube_statfile on the Scalasca dialect exits 0"
expect_grep '^mpi_latesender,,mpi_latesender,2087,0.0231947,' "$TMP/out" \
    "cube_statfile: Scalasca dialect, no metric id, the name as metric"
expect_grep '^no_such_metric,,no_such_metric,1,1,1,1,1,1,,,,0$' "$TMP/out" \
    "cube_statfile: a pattern without variance and quartiles"

# --- --cube: names and call paths
run cube_statfile --cube "$TRACE" "$SEED"
expect_rc 0 "cube_statfile --cube exits 0"
expect_grep '^WaitAtBarrier,18,mpi_latesender_wo,20,' "$TMP/out" "cube_statfile --cube: metric by id"
expect_grep '^LateBroadcast,6,mpi_barrier_completion,4,' "$TMP/out" "cube_statfile --cube: metric by id (2)"
run cube_statfile --cube "$TRACE" "$SCA"
expect_rc 0 "cube_statfile --cube with unknown metrics exits 0"
expect_grep '^mpi_latesender,17,mpi_latesender,2087,' "$TMP/out" "cube_statfile --cube: Scalasca dialect, the id of the unique name"
expect_grep '^no_such_metric,,,1,' "$TMP/out" "cube_statfile --cube: unknown metric empty"
expect_grep "^cube_statfile: warning: $SCA:10: pattern 'no_such_metric': $TRACE has no metric 'no_such_metric'$" \
    "$TMP/err" "cube_statfile --cube: warning for an unknown metric"

# --- --instances: by duration, the largest first
run cube_statfile --instances "$SEED"
expect_rc 0 "cube_statfile --instances exits 0"
cat >"$TMP/want" <<'EOF'
pattern,metric,cnode_id,enter,exit,duration,rank
LateBroadcast,,5,0.245877,0.256608,0.042856,
WaitAtBarrier,,12,0.32612,0.335651,0.065293,
WaitAtBarrier,,14,0.192332,0.192378,0.0001,
BarrierCompletion,,12,0.159321,0.165005,1.8e-05,
BarrierCompletion,,14,0.192332,0.192378,9e-06,
WaitAtIBarrier,,10,0.322577,0.332093,0.028451,
WaitAtIBarrier,,11,0.297292,0.297316,5.7e-05,
EOF
expect_file_eq "$TMP/want" "$TMP/out" "cube_statfile --instances: every instance, the most severe first"
run cube_statfile --instances=1 "$SEED"
if [ "$(wc -l <"$TMP/out")" -eq 5 ] && grep -q '^WaitAtBarrier,,12,' "$TMP/out" && ! grep -q '^WaitAtBarrier,,14,' "$TMP/out"; then
    ok "cube_statfile --instances=1: the most severe instance of each pattern"
else not_ok "cube_statfile --instances=1: the most severe instance of each pattern"; fi
run cube_statfile --instances 1 "$SEED"
expect_rc 0 "cube_statfile --instances N (separate argument) exits 0"
[ "$(wc -l <"$TMP/out")" -eq 5 ] && ok "cube_statfile --instances 1 as --instances=1" ||
    not_ok "cube_statfile --instances 1 as --instances=1"
run cube_statfile --instances --cube "$TRACE" "$SCA"
expect_rc 0 "cube_statfile --instances --cube exits 0"
head -n 1 "$TMP/out" >"$TMP/head"
expect_text_eq "pattern,metric,cnode_id,call_path,enter,exit,duration,rank" "$TMP/head" \
    "cube_statfile --instances --cube: a call_path column"
expect_grep '^mpi_latesender,mpi_latesender,126,MAIN__/verify_/MPI_Reduce,5.6760874812,5.8911956069,0.2150408312,1$' \
    "$TMP/out" "cube_statfile --instances --cube: the call path and the rank"
expect_grep '^mpi_latesender,mpi_latesender,12,MAIN__/zone_starts_,1.5,1.6,0.1,3$' "$TMP/out" \
    "cube_statfile --instances --cube: 'cnode:' with the colon"
expect_grep '^mpi_latesender,mpi_latesender,99999,,1,1.05,0.05,$' "$TMP/out" \
    "cube_statfile --instances --cube: unknown call path empty, no rank empty"
expect_grep "^cube_statfile: warning: $SCA:5: $TRACE has no call path with id 99999$" "$TMP/err" \
    "cube_statfile --instances --cube: warning for an unknown call path"
run cube_statfile --instances=all -s json "$SCA"
cat >"$TMP/chk_inst.py" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
d = [r["duration"] for r in rows if r["pattern"] == "mpi_latesender"]
assert d == sorted(d, reverse=True) and len(d) == 3, d
assert rows[2]["rank"] is None and rows[0]["rank"] == 1, rows
EOF
pycheck "cube_statfile --instances -s json: sorted, rank null when absent" "$TMP/chk_inst.py" "$TMP/out"

# --- --check
run cube_statfile --check "$SEED"
expect_rc 0 "cube_statfile --check on seed-example.stat exits 0"
expect_text_eq "$SEED: ok: documented dialect, 4 patterns, 7 instances, $(grep -c 'warning' "$TMP/err") warnings" \
    "$TMP/out" "cube_statfile --check: the summary line"
run cube_statfile --check "$BAD"
expect_rc 2 "cube_statfile --check on a malformed file exits 2"
expect_grep "^cube_statfile: $BAD:2: " "$TMP/err" "cube_statfile --check: the error names the file and line"
[ ! -s "$TMP/out" ] && ok "cube_statfile --check: no summary for a malformed file" ||
    not_ok "cube_statfile --check: no summary for a malformed file"
run cube_statfile "$BAD"
expect_rc 2 "cube_statfile on a malformed file exits 2"
run cube_statfile --check "$WARN"
expect_rc 0 "cube_statfile --check with warnings exits 0"
expect_grep "^cube_statfile: warning: $WARN:2: " "$TMP/err" "cube_statfile --check: a warning names the line"
expect_grep "1 instance, [1-9][0-9]* warning" "$TMP/out" "cube_statfile --check: warnings counted"
run cube_statfile --check --cube "$TRACE" "$SCA"
expect_rc 0 "cube_statfile --check --cube with unknown metric and call path exits 0"
expect_grep "^$SCA: ok: scalasca dialect, 3 patterns, 4 instances, 2 warnings$" "$TMP/out" \
    "cube_statfile --check --cube: the unknown metric and call path are warnings"
run cube_statfile --check testdata/statfile/no-such.stat
expect_rc 2 "cube_statfile --check on a missing file exits 2"

# --- --svg: the box plot, checked against the layout of the man page
run cube_statfile --svg "$TMP/seed.svg" "$SEED"
expect_rc 0 "cube_statfile --svg exits 0"
if xmllint --noout "$TMP/seed.svg" 2>"$TMP/xml.err"; then ok "cube_statfile --svg: well-formed XML"; else
    not_ok "cube_statfile --svg: well-formed XML"
    head -3 "$TMP/xml.err" | sed 's/^/#   /'
fi
if grep -qi -e '<script' -e 'href=' -e '@import' -e 'url(' "$TMP/seed.svg"; then
    not_ok "cube_statfile --svg: self-contained (no scripts, no references)"
else ok "cube_statfile --svg: self-contained (no scripts, no references)"; fi
cat >"$TMP/chk_svg.py" <<'EOF'
import math, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[1]).getroot()
mode, index = sys.argv[2], int(sys.argv[3])
# all values drawn, per pattern: min, q25, median, q75, max, mean
pats = [[float(x) if x != "-" else None for x in p.split(",")] for p in sys.argv[4:]]
vals = [v for p in pats for v in p if v is not None]
if mode == "log":
    lo, hi = min(vals), max(vals)
    y = lambda v: 440 - 400 * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
else:
    lo, hi = min(0, min(vals)), max(0, max(vals))
    y = lambda v: 440 - 400 * (v - lo) / (hi - lo)
mn, q25, med, q75, mx, mean = pats[index - 1]
g = [e for e in svg.iter(NS + "g") if e.get("id") == "pattern-%d" % index][0]
def one(tag, cls):
    found = [e for e in g.iter(NS + tag) if e.get("class") == cls]
    assert len(found) == 1, (tag, cls, len(found))
    return {k: float(v) for k, v in found[0].attrib.items() if k not in ("class",)}
def near(a, b, what):
    assert abs(a - b) <= 0.006, (what, a, b)
cx = 25 + 110 * index
w = one("line", "whisker")
near(w["x1"], cx, "whisker x"); near(w["x2"], cx, "whisker x2")
near(w["y1"], y(mx), "whisker top = maximum"); near(w["y2"], y(mn), "whisker bottom = minimum")
for cls, v in (("maximum", mx), ("minimum", mn)):
    c = one("line", cls)
    near(c["y1"], y(v), cls); near(c["y2"], y(v), cls)
    near(c["x1"], cx - 10, cls + " cap left"); near(c["x2"], cx + 10, cls + " cap right")
r = one("rect", "box")
near(r["x"], cx - 20, "box x"); near(r["width"], 40, "box width")
near(r["y"], y(q75), "box top = quartile 75")
near(r["y"] + r["height"], y(q25), "box bottom = quartile 25")
for cls, v in (("median", med), ("mean", mean)):
    m = one("line", cls)
    near(m["y1"], y(v), cls); near(m["x1"], cx - 20, cls); near(m["x2"], cx + 20, cls)
labels = [e for e in g.iter(NS + "text") if e.get("class") == "label"]
assert len(labels) == 1, labels
EOF
pycheck "cube_statfile --svg: WaitAtBarrier's whiskers, quartiles, median and mean where the layout puts them" \
    "$TMP/chk_svg.py" "$TMP/seed.svg" linear 2 \
    "0.000004,-,0.000031,-,0.042856,0.010" \
    "0.000002,0.000040,0.006477,0.047409,0.065293,0.018" \
    "0.000002,0.000003,0.000005,0.000009,0.000018,0.000" \
    "0.000001,0.000002,0.000027,0.000437,0.028451,0.001"
if grep -q '>WaitAtBarrier</text>' "$TMP/seed.svg" && grep -q 'no quartiles' "$TMP/seed.svg" &&
    [ "$(grep -c '<rect class="box"' "$TMP/seed.svg")" -eq 3 ]; then
    ok "cube_statfile --svg: labels, and no box for the pattern without quartiles"
else not_ok "cube_statfile --svg: labels, and no box for the pattern without quartiles"; fi
run cube_statfile --svg "$TMP/sca.svg" --title "Scalasca <test>" "$SCA"
expect_rc 0 "cube_statfile --svg (log scale) exits 0"
xmllint --noout "$TMP/sca.svg" 2>/dev/null && ok "cube_statfile --svg: escaped title, well-formed" ||
    not_ok "cube_statfile --svg: escaped title, well-formed"
expect_grep '(log scale)' "$TMP/sca.svg" "cube_statfile --svg: log scale beyond three decades"
pycheck "cube_statfile --svg: log scale positions of mpi_latesender" \
    "$TMP/chk_svg.py" "$TMP/sca.svg" log 1 \
    "0.0000001623,0.0007851545,0.0024630,0.0067652356,0.2150408312,0.0231947" \
    "0.01,0.1,0.4,0.9,2,0.5" \
    "1,-,1,-,1,1"
echo "stale" >"$TMP/keep.svg"
run cube_statfile --svg "$TMP/keep.svg" "$BAD"
if [ "$rc" = 2 ] && [ "$(cat "$TMP/keep.svg")" = stale ]; then
    ok "cube_statfile --svg: a bad input leaves the old file alone"
else not_ok "cube_statfile --svg: a bad input leaves the old file alone"; fi
if [ -z "$(find "$TMP" -name '*.svg.*' -o -name '.*svg*' | head -1)" ]; then
    ok "cube_statfile --svg: no temporary file left"
else not_ok "cube_statfile --svg: no temporary file left"; fi

# --- --from-cube, read back
run cube_statfile --from-cube "$TRACE" -m time -o "$TMP/time.stat"
expect_rc 0 "cube_statfile --from-cube -m time exits 0"
run cube_statfile --check "$TMP/time.stat"
expect_rc 0 "cube_statfile --from-cube: the result passes --check"
expect_grep "documented dialect, 1 pattern, 10 instances" "$TMP/out" "cube_statfile --from-cube: one pattern, 10 instances by default"
run cube_statfile --cube "$TRACE" "$TMP/time.stat"
cp "$TMP/out" "$TMP/time.csv"
"$BIN/cube_dump" -m time -z stored -c all "$TRACE" >"$TMP/time-values.csv"
cat >"$TMP/chk_from.py" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 1, rows
r = rows[0]
assert r["pattern"] == "time" and r["metric"] == "time" and r["metric_id"] == "0", r
x = [float(v["value"]) for v in csv.DictReader(open(sys.argv[2], newline=""))]
n = int(r["count"])
assert 0 < n <= len(x) and n % 36 == 0, (n, len(x))
assert float(r["maximum"]) == max(x), (r["maximum"], max(x))
assert abs(float(r["sum"]) - sum(x)) <= 1e-9 * sum(x), (r["sum"], sum(x))
assert abs(float(r["mean"]) - float(r["sum"]) / n) <= 1e-9 * float(r["mean"])
for k in ("variance", "quartile25", "median", "quartile75", "minimum"):
    assert r[k] != "", k
assert float(r["minimum"]) <= float(r["quartile25"]) <= float(r["median"]) <= float(r["quartile75"]) <= float(r["maximum"])
assert r["instances"] == "10"
EOF
pycheck "cube_statfile --from-cube: read back, the statistics of time's stored values" \
    "$TMP/chk_from.py" "$TMP/time.csv" "$TMP/time-values.csv"
run cube_statfile --instances=3 --cube "$TRACE" "$TMP/time.stat"
cat >"$TMP/chk_from_inst.py" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
x = sorted((float(v["value"]) for v in csv.DictReader(open(sys.argv[2], newline=""))), reverse=True)
assert [float(r["duration"]) for r in rows] == x[:3], rows
assert all(r["call_path"] for r in rows)
EOF
pycheck "cube_statfile --from-cube: the instances are the largest values, with call paths" \
    "$TMP/chk_from_inst.py" "$TMP/out" "$TMP/time-values.csv"
"$BIN/cube_statfile" --from-cube "$TRACE" -m time,mpi --instances=2 --dialect=scalasca 2>"$TMP/err" |
    "$BIN/cube_statfile" --instances - >"$TMP/out" 2>>"$TMP/err"
if head -n 1 "$TMP/out" | grep -q '^pattern,' && [ "$(grep -c '^time,time,' "$TMP/out")" -eq 2 ] &&
    [ "$(grep -c '^mpi,mpi,' "$TMP/out")" -eq 2 ] && ! grep -q ',$' "$TMP/out" && [ ! -s "$TMP/err" ]; then
    ok "cube_statfile --from-cube --dialect=scalasca in a pipe: two patterns, ranks"
else not_ok "cube_statfile --from-cube --dialect=scalasca in a pipe: two patterns, ranks"; fi
run cube_statfile --from-cube "$TRACE" -m all -o "$TMP/all.stat"
expect_rc 0 "cube_statfile --from-cube -m all exits 0"
nonvoid=$("$BIN/cube_dump" -w metrics "$TRACE" | tail -n +2 | grep -vc ',VOID,')
run cube_statfile "$TMP/all.stat"
[ "$(tail -n +2 "$TMP/out" | wc -l)" -eq "$nonvoid" ] && ok "cube_statfile --from-cube -m all: one pattern per metric" ||
    not_ok "cube_statfile --from-cube -m all: one pattern per metric"
run cube_statfile --from-cube "$TRACE" -m tiem
expect_rc 2 "cube_statfile --from-cube with an unknown metric exits 2"
expect_text_eq "cube_statfile: $TRACE: no metric 'tiem' (cube_dump -w metrics lists them)" "$TMP/err" \
    "cube_statfile --from-cube names the unknown metric"

# --- -o, standard input, gzip
run cube_statfile -o "$TMP/o.csv" "$SEED"
if [ "$rc" = 0 ] && [ ! -s "$TMP/out" ] && cmp -s "$TMP/seed.csv" "$TMP/o.csv"; then
    ok "cube_statfile -o writes the file"
else not_ok "cube_statfile -o writes the file"; fi
gzip -9nc "$SEED" >"$TMP/seed.stat.gz"
"$BIN/cube_statfile" - <"$TMP/seed.stat.gz" >"$TMP/out" 2>"$TMP/err"
expect_file_eq "$TMP/seed.csv" "$TMP/out" "cube_statfile reads gzip from standard input"

# --- usage
run cube_statfile --help
expect_rc 0 "cube_statfile --help exits 0"
expect_grep "usage: cube_statfile" "$TMP/out" "cube_statfile --help prints the usage"
run cube_statfile --version
expect_grep "^cube_statfile (libcube) " "$TMP/out" "cube_statfile --version"
run cube_statfile
expect_rc 2 "cube_statfile without a file exits 2"
run cube_statfile --check --svg x.svg "$SEED"
expect_rc 2 "cube_statfile --check with --svg exits 2"
expect_grep "^cube_statfile: options --check, --svg and --from-cube cannot be used together$" "$TMP/err" \
    "cube_statfile: the conflict is named"
run cube_statfile -m time "$SEED"
expect_rc 2 "cube_statfile -m without --from-cube exits 2"
run cube_statfile -s xml "$SEED"
expect_rc 2 "cube_statfile -s with an unknown format exits 2"
run cube_statfile --instances=x "$SEED"
expect_rc 2 "cube_statfile --instances=x exits 2"
run cube_statfile --from-cube "$TRACE" -m time --dialect=cube
expect_rc 2 "cube_statfile --dialect with an unknown dialect exits 2"
