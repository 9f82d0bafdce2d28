# cube_calltree on the shipped real experiments: exclusive and inclusive
# values, percentages and thresholds (with the call paths left out folded
# into the one above) against a computation of our own from the stored
# per-thread values (cube_dump), the tree's ids, parents, levels and call
# paths against cube_dump -w calltree, CubeLib's kinds of call paths (-a),
# the drawing in ASCII and box-drawing characters with aligned numbers,
# CUBE 3 and CUBE 4 alike, gzip, standard input, -f, -o, a call tree
# 100 000 deep, and errors.
. tests/cli/lib.sh
PROF=testdata/cube/scorep-1.1_profile.cube
PROF4=testdata/cubex/cube3to4_scorep-1.1_profile.cubex
BGP=testdata/cube/scalasca-bgpBT_experiment1.cube

# The reference: per-thread stored (call-exclusive) values summed here,
# inclusive values from the tree, the threshold and the folding done here.
cat >"$TMP/ref.py" <<'EOF'
import csv, math, sys
tree_csv, rows_csv, out_csv, how, mode = sys.argv[1:6]
pct = float(sys.argv[6]) if len(sys.argv) > 6 else None
tree = list(csv.DictReader(open(tree_csv, newline="")))
parent = {int(r["cnode_id"]): (int(r["parent_id"]) if r["parent_id"] else None) for r in tree}
level = {int(r["cnode_id"]): int(r["level"]) for r in tree}
path = {int(r["cnode_id"]): r["call_path"] for r in tree}
order = [int(r["cnode_id"]) for r in tree]          # preorder
comb = {"sum": math.fsum, "max": max, "min": min}[how]
vals = {}
for r in csv.DictReader(open(rows_csv, newline="")):
    vals.setdefault(int(r["cnode_id"]), []).append(float(r["value"]))
excl = {c: comb(v) for c, v in vals.items()}
children = {c: [] for c in order}
for c in order:
    if parent[c] is not None:
        children[parent[c]].append(c)
incl = {}
for c in reversed(order):
    parts = ([excl[c]] if c in excl else []) + [incl[k] for k in children[c] if k in incl]
    if parts:
        incl[c] = comb(parts)
root = comb([incl[c] for c in order if parent[c] is None and c in incl])
keep = set(order)
if pct is not None:
    keep = {c for c in order if c in incl and abs(incl[c]) >= pct / 100 * abs(root)}
    for c in list(keep):
        p = parent[c]
        while p is not None:
            keep.add(p)
            p = parent[p]
def shown(c):
    if mode == "incl":
        return incl.get(c)
    parts = ([excl[c]] if c in excl else []) + [incl[k] for k in children[c]
                                                if k not in keep and k in incl]
    return comb(parts) if parts else None
got = list(csv.DictReader(open(out_csv, newline="")))
want = [c for c in order if c in keep]
assert [int(r["cnode_id"]) for r in got] == want, "rows: not the call paths kept, in preorder"
for r in got:
    c = int(r["cnode_id"])
    assert (int(r["parent_id"]) if r["parent_id"] else None) == parent[c], r
    assert int(r["level"]) == level[c], r
    if "call_path" in r:
        assert r["call_path"] == path[c], r
    v, w = shown(c), r["value"]
    if v is None:
        assert w in ("0", "-"), (r, v)
        continue
    assert abs(float(w) - v) <= 1e-12 * max(abs(v), 1e-300), (c, w, v)
    if "percent" in r:
        assert abs(float(r["percent"]) - 100 * v / root) <= 1e-9 * abs(100 * v / root) + 1e-300, r
print(len(got), "rows checked")
EOF
"$BIN/cube_dump" -w calltree -s csv "$PROF" >"$TMP/tree.csv"
"$BIN/cube_dump" -m time -s csv "$PROF" >"$TMP/time.csv"
"$BIN/cube_dump" -m max_time -s csv "$PROF" >"$TMP/max_time.csv"

run cube_calltree -m time -s csv "$PROF"
expect_rc 0 "cube_calltree -m time -s csv exits 0"
head -n 1 "$TMP/out" >"$TMP/head"
expect_text_eq "cnode_id,parent_id,level,region,value" "$TMP/head" "CSV header"
cp "$TMP/out" "$TMP/excl.csv"
pycheck "exclusive values (default): every call path in preorder, summed over threads" \
    "$TMP/ref.py" "$TMP/tree.csv" "$TMP/time.csv" "$TMP/excl.csv" sum excl
run cube_calltree -m time -i -c -p -s csv "$PROF"
cp "$TMP/out" "$TMP/incl.csv"
pycheck "-i -c -p: inclusive values, call paths and percentages of the root value" \
    "$TMP/ref.py" "$TMP/tree.csv" "$TMP/time.csv" "$TMP/incl.csv" sum incl
expect_grep '^0,,0,MAIN__,354.2084427081428,100,MAIN__$' "$TMP/incl.csv" \
    "-i -p: the root is 100 percent"
for t in 0 1 5 20 99.5; do
    run cube_calltree -m time -t $t -p -s csv "$PROF"
    cp "$TMP/out" "$TMP/t.csv"
    pycheck "-t $t: the call paths reaching $t % and their ancestors, the rest folded in" \
        "$TMP/ref.py" "$TMP/tree.csv" "$TMP/time.csv" "$TMP/t.csv" sum excl $t
    run cube_calltree -m time -t $t -i -s csv "$PROF"
    cp "$TMP/out" "$TMP/t.csv"
    pycheck "-t $t -i: inclusive values unchanged" \
        "$TMP/ref.py" "$TMP/tree.csv" "$TMP/time.csv" "$TMP/t.csv" sum incl $t
done
# the values kept still add up to the root value
run cube_calltree -m time -t 5 -s csv "$PROF"
awk -F, 'NR > 1 { s += $5 } END { printf "%.9g\n", s }' "$TMP/out" >"$TMP/sum"
expect_text_eq "354.208443" "$TMP/sum" "-t 5: the values shown add up to the metric's root value"
n=$(awk 'END { print NR - 1 }' "$TMP/out")
if [ "$n" -gt 3 ] && [ "$n" -lt 130 ]; then ok "-t 5 keeps $n of 130 call paths"; else
    not_ok "-t 5 keeps $n of 130 call paths"; fi
# MAXDOUBLE: the largest value, folded by maximum
for t in "" 10; do
    run cube_calltree -m max_time ${t:+-t $t} -s csv "$PROF"
    cp "$TMP/out" "$TMP/m.csv"
    pycheck "max_time ${t:+-t $t}: values combined by maximum" \
        "$TMP/ref.py" "$TMP/tree.csv" "$TMP/max_time.csv" "$TMP/m.csv" max excl $t
done

# the same from cube_dump's aggregated views
"$BIN/cube_dump" -m time -t aggr -z incl "$PROF" | cut -d, -f2,10 | tail -n +2 >"$TMP/a"
cut -d, -f1,5 "$TMP/incl.csv" | tail -n +2 >"$TMP/b"
expect_file_eq "$TMP/a" "$TMP/b" "-i: the values of cube_dump -t aggr -z incl, digit for digit"

# CUBE 4, gzip, standard input, -f, -o
run cube_calltree -m time -i -c -p -s csv "$PROF4"
expect_file_eq "$TMP/incl.csv" "$TMP/out" "the CUBE 4 conversion gives the same output"
gzip -c "$PROF" >"$TMP/p.cube.gz"
run cube_calltree -m time -i -c -p -s csv "$TMP/p.cube.gz"
expect_file_eq "$TMP/incl.csv" "$TMP/out" "gzip input"
"$BIN/cube_calltree" -m time -i -c -p -s csv - <"$TMP/p.cube.gz" >"$TMP/out" 2>"$TMP/err"
expect_file_eq "$TMP/incl.csv" "$TMP/out" "'-': standard input"
run cube_calltree -m time -i -c -p -s csv -o "$TMP/o.csv" -f "$PROF"
expect_rc 0 "-f FILE -o OUT"
expect_file_eq "$TMP/incl.csv" "$TMP/o.csv" "-o writes the file, -f names the input"

# JSON and TSV carry the same rows
run cube_calltree -m time -t 20 -p -s json "$PROF"
cat >"$TMP/chk_json.py" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
assert rows[0]["parent_id"] is None and rows[0]["level"] == 0, rows[0]
ids = {r["cnode_id"]: r for r in rows}
for r in rows[1:]:
    assert ids[r["parent_id"]]["level"] == r["level"] - 1, r
assert set(rows[0]) == {"cnode_id", "parent_id", "level", "region", "value", "percent"}
EOF
pycheck "JSON: parents before children, root parent null" "$TMP/chk_json.py" "$TMP/out"
run cube_calltree -m time -s tsv "$PROF"
tr '\t' ',' <"$TMP/out" >"$TMP/tsv.csv"
expect_file_eq "$TMP/excl.csv" "$TMP/tsv.csv" "TSV: the CSV's fields"

# -a: CubeLib's kinds, from the regions' descriptions
run cube_calltree -m time -a -c -s csv "$BGP"
cp "$TMP/out" "$TMP/kinds.csv"
"$BIN/cube_dump" -w calltree -s csv "$BGP" >"$TMP/bgp-tree.csv"
"$BIN/cube_dump" -w regions -s csv "$BGP" >"$TMP/bgp-regions.csv"
cat >"$TMP/kinds.py" <<'EOF'
import csv, sys
got = {int(r["cnode_id"]): r["type"] for r in csv.DictReader(open(sys.argv[1], newline=""))}
descr = {r["region_id"]: r["descr"] for r in csv.DictReader(open(sys.argv[3], newline=""))}
tree = list(csv.DictReader(open(sys.argv[2], newline="")))
own = {int(r["cnode_id"]): descr[r["region_id"]] for r in tree}
parent = {int(r["cnode_id"]): (int(r["parent_id"]) if r["parent_id"] else None) for r in tree}
calls = set()
for c, d in own.items():
    if d in ("MPI", "OMP"):
        p = parent[c]
        while p is not None:
            calls.add(p)
            p = parent[p]
for c in own:
    want = "COM" if c in calls else own[c] if own[c] in ("MPI", "OMP") else "USR"
    assert got[c] == want, (c, got[c], want)
assert set(got.values()) >= {"COM", "MPI", "USR"}, set(got.values())
EOF
pycheck "-a: MPI, OMP by description, COM above them, USR else" \
    "$TMP/kinds.py" "$TMP/kinds.csv" "$TMP/bgp-tree.csv" "$TMP/bgp-regions.csv"

# --- the tree for people
run cube_calltree -m time -i --ascii "$PROF"
expect_rc 0 "human output"
head -n 3 "$TMP/out" >"$TMP/h"
expect_text_eq "     354.2084427081428  MAIN__
     0.596002038413364    + mpi_setup_
      0.59521837745303    |   + MPI_Init_thread" "$TMP/h" "--ascii: CubeLib's '  | ' and '  + ' (values right-aligned)"
awk '{ match($0, /^ *[^ ]+/); if (NR == 1) w = RLENGTH; else if (RLENGTH != w) bad = 1 }
     END { exit bad }' "$TMP/out" &&
    ok "the numbers end in one column" || not_ok "the numbers end in one column"
run cube_calltree -m time -i -t 20 -a -c --utf8 "$PROF"
cat >"$TMP/h" <<'EOF'
354.2084427081428  MAIN__                                    USR:MAIN__
344.6534111799591  └─ adi_                                  USR:MAIN__/adi_
90.84560632359128      ├─ x_solve_                          USR:MAIN__/adi_/x_solve_
90.71008164175413      │   └─ !$omp parallel @x_solve.f:46  USR:MAIN__/adi_/x_solve_/!$omp parallel @x_solve.f:46
 74.3001447185807      │       └─ !$omp do @x_solve.f:54    USR:MAIN__/adi_/x_solve_/!$omp parallel @x_solve.f:46/!$omp do @x_solve.f:54
94.31890046722354      ├─ y_solve_                          USR:MAIN__/adi_/y_solve_
 94.1955917465555      │   └─ !$omp parallel @y_solve.f:43  USR:MAIN__/adi_/y_solve_/!$omp parallel @y_solve.f:43
 77.0593673732778      │       └─ !$omp do @y_solve.f:52    USR:MAIN__/adi_/y_solve_/!$omp parallel @y_solve.f:43/!$omp do @y_solve.f:52
98.27687279749496      └─ z_solve_                          USR:MAIN__/adi_/z_solve_
98.15462773194173          └─ !$omp parallel @z_solve.f:43  USR:MAIN__/adi_/z_solve_/!$omp parallel @z_solve.f:43
 78.0262912079334              └─ !$omp do @z_solve.f:52    USR:MAIN__/adi_/z_solve_/!$omp parallel @z_solve.f:43/!$omp do @z_solve.f:52
EOF
expect_file_eq "$TMP/h" "$TMP/out" "--utf8: box drawing, the last sibling kept with └─, the call paths aligned"
run cube_calltree "$PROF"
expect_rc 0 "without -m: the tree alone"
head -n 2 "$TMP/out" >"$TMP/h"
expect_text_eq "MAIN__
  + mpi_setup_" "$TMP/h" "without -m: no values (not a terminal: ASCII)"
"$BIN/cube_calltree" -m time -p "$PROF" >"$TMP/out"
expect_grep '^ *0.012134638830900839 *0.003426%  MAIN__$' "$TMP/out" "-p: CubeLib's 4 significant digits below 10 %"

# --- a call tree 100 000 deep: CSV and JSON without recursion, with a 1 MB stack
python3 - "$TMP/deep.cube" <<'EOF'
import sys
n = 100000
with open(sys.argv[1], 'w') as out:
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n<cube version="3.0">\n<metrics><metric id="0">'
      '<disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>FLOAT</dtype><uom>sec</uom>'
      '<url></url><descr>t</descr></metric></metrics>\n<program>\n'
      '<region id="0" mod="a.c" begin="1" end="2"><name>f</name><url></url><descr>USR</descr></region>\n'
      '<region id="1" mod="a.c" begin="3" end="4"><name>g</name><url></url><descr>MPI</descr></region>\n')
    for i in range(n):
        w('<cnode id="%d" calleeId="%d">\n' % (i, 1 if i == n - 1 else i % 2 * 0))
    w('</cnode>\n' * n)
    w('</program>\n<system><machine Id="0"><name>m</name><node Id="0"><name>n</name><process Id="0">'
      '<name>p</name><rank>0</rank><thread Id="0"><name>t</name><rank>0</rank></thread></process>'
      '</node></machine></system>\n<severity><matrix metricId="0">\n')
    for i in range(n):
        w('<row cnodeId="%d">1</row>\n' % i)
    w('</matrix></severity></cube>\n')
EOF
(
    ulimit -s 1024 || exit 3
    "$BIN/cube_calltree" -m time -i -t 50 -p -a -s csv "$TMP/deep.cube" >"$TMP/deep.csv"
) 2>"$TMP/err"
rc=$?
expect_rc 0 "deep: -i -t 50 -p -a -s csv with ulimit -s 1024"
awk -F, 'NR == 2 { r = ($5 == 100000 && $6 == 100 && $7 == "COM") }
         END { exit !(r && NR == 50002 && $3 == 50000 && $5 == 50000 && $6 == 50 && $7 == "COM") }' \
    "$TMP/deep.csv" && ok "deep: 50 001 call paths kept, inclusive values and kinds right" ||
    not_ok "deep: 50 001 call paths kept, inclusive values and kinds right"
(
    ulimit -s 1024 || exit 3
    "$BIN/cube_calltree" -m time -t 50 -s json "$TMP/deep.cube" >"$TMP/deep.json"
) 2>"$TMP/err"
rc=$?
expect_rc 0 "deep: -t 50 -s json"
tail -n 2 "$TMP/deep.json" | head -n 1 >"$TMP/h"
expect_text_eq '{"cnode_id":50000,"parent_id":49999,"level":50000,"region":"f","value":50000}' \
    "$TMP/h" "deep: the last call path kept holds its own 1 and the 49 999 left out below it"
rm -f "$TMP"/deep*

# --- errors: exit 2, the first line says what
err_case() { # DESCRIPTION EXPECTED-FIRST-LINE ARGS...
    desc=$1 first=$2
    shift 2
    run cube_calltree "$@"
    expect_rc 2 "$desc: exit 2"
    head -n 1 "$TMP/err" >"$TMP/h"
    expect_text_eq "$first" "$TMP/h" "$desc: message"
    [ -s "$TMP/out" ] && not_ok "$desc: no output" || ok "$desc: no output"
}
err_case "unknown metric" \
    "cube_calltree: $PROF: no metric 'nosuch' (cube_dump -w metrics lists them)" -m nosuch "$PROF"
err_case "-t without -m" "cube_calltree: -t needs a metric (-m)" -t 5 "$PROF"
err_case "-t 101" "cube_calltree: -t takes a percentage from 0 to 100, not '101'" -m time -t 101 "$PROF"
err_case "-t abc" "cube_calltree: -t takes a percentage from 0 to 100, not 'abc'" -m time -t abc "$PROF"
err_case "-s xml" "cube_calltree: -s takes csv, tsv, json or human, not 'xml'" -s xml "$PROF"
err_case "unknown option" "cube_calltree: unknown option '-x'" -x "$PROF"
err_case "no input" "cube_calltree: no input file" -m time
err_case "two inputs" "cube_calltree: exactly one input file" -m time "$PROF" "$PROF"
err_case "missing file" "cube_calltree: $TMP/none.cube: cannot open: No such file or directory" \
    -m time "$TMP/none.cube"
printf '<cube version="3.0">\n<metrics>\n' >"$TMP/cut.cube"
run cube_calltree -m time "$TMP/cut.cube"
expect_rc 2 "a truncated file: exit 2"
n=$(wc -l <"$TMP/err")
expect_grep "cut.cube" "$TMP/err" "a truncated file: the message names the file"
[ "$n" = 1 ] && ok "a truncated file: one line" || not_ok "a truncated file: one line ($n)"
run cube_calltree --version
expect_grep "^cube_calltree .*$CUBE_VERSION" "$TMP/out" "--version"
run cube_calltree --help
expect_grep "^usage: cube_calltree" "$TMP/out" "--help"
