# What the tools show and write of CUBE 4 beyond CUBE 3: cube_dump -w
# (system tree at every depth with classes and types, metric kinds, value
# types and CubePL programs, region details, call-path parameters, entity
# attributes, the archive's extra members) checked against the expected
# definitions of testdata/cubex in every output format; derived metrics
# never shown as values; cube_info's format and CUBE 4 counts against the
# expected counts; cube_clean writing CUBE 4 by name or --format, with the
# same values read back, and the warnings of a conversion to CUBE 3.
. tests/cli/lib.sh
D=testdata/cubex
KRIPKE=$D/scorep-1.4_kripke-p8-d2-g32-r1_profile.cubex
TIME=$D/scorep-9.0dev_time-p4-n2000-x1-r0_profile.cubex
VALUES=$D/cubelib-4.8.2_cube-values_example.cubex
DERIVE=$D/cubederive_scorep-1.1_profile.cubex
top=$(pwd)
case $BIN in /*) bin=$BIN ;; *) bin=$top/$BIN ;; esac

# expected FILE: the expected definitions of an archive (plain or gzip JSON)
expected() {
    b=${1%.cubex}
    if [ -f "$b.expected.json" ]; then cat "$b.expected.json"; else gzip -dc "$b.expected.json.gz"; fi
}

# --help of every tool that reads experiments names both formats
for tool in cube_dump cube_info cube_clean cube_stat; do
    run $tool --help
    expect_grep "CUBE 3 \(or\|and\) CUBE 4" "$TMP/out" "$tool --help names CUBE 3 and CUBE 4"
done

# ---- cube_dump -w: the system tree of the Blue Gene/Q file, five levels
run cube_dump -w systemtree -s json "$KRIPKE"
expect_rc 0 "cube_dump -w systemtree of the Blue Gene/Q file exits 0"
expected "$KRIPKE" >"$TMP/kripke.expected.json"
pycheck "cube_dump -w systemtree: the five system tree levels with their classes, the location groups and locations with types, as expected" - "$TMP/out" "$TMP/kripke.expected.json" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))["systemtree"]
exp = json.load(open(sys.argv[2]))
stn = [(r["id"], r["name"], r["class"], r["parent_id"], r["level"]) for r in rows if r["kind"] in ("machine", "node")]
want = [tuple(s) for s in exp["system_tree_nodes"]]
assert stn == want, (stn, want)
assert [r["kind"] for r in rows[:5]] == ["machine", "node", "node", "node", "node"]
groups = [(r["id"], r["name"], r["rank"], r["type"], r["parent_id"], r["level"]) for r in rows if r["kind"] == "process"]
assert groups == [(g[0], g[1], g[2], g[3], g[4], 5) for g in exp["location_groups"]], groups
locs = [(r["id"], r["name"], r["rank"], r["type"], r["parent_id"], r["level"]) for r in rows if r["kind"] == "thread"]
assert locs == [(l[0], l[1], l[2], l[3], l[4], 6) for l in exp["locations"]], locs
# each row after its parent (nested as the tree is)
seen = set()
for r in rows:
    key = {"machine": None, "node": "stn", "process": "stn", "thread": "process"}[r["kind"]]
    if key:
        assert (key, r["parent_id"]) in seen or (key == "stn" and ("stn", r["parent_id"]) in seen), r
    seen.add(("process" if r["kind"] == "process" else "thread" if r["kind"] == "thread" else "stn", r["id"]))
EOF
for fmt in csv tsv human; do
    run cube_dump -w systemtree -s $fmt "$KRIPKE"
    case $fmt in
    csv) want='^node,4,3,nodecard 30,,,4,nodecard,,$' head='^kind,id,parent_id,name,rank,location,level,class,type,descr$' ;;
    tsv) want="^node	4	3	nodecard 30			4	nodecard		\$" head='^kind	id	parent_id	name	rank	location	level	class	type	descr$' ;;
    human) want='^node      4          3  nodecard 30                              4  nodecard$' head='^kind  *id  parent_id  name  *rank  location  level  class  *type  *descr$' ;;
    esac
    expect_grep "$head" "$TMP/out" "cube_dump -w systemtree -s $fmt of a CUBE 4 file: the columns level, class, type, descr"
    expect_grep "$want" "$TMP/out" "cube_dump -w systemtree -s $fmt: the nodecard at level 4 below the nodeboard"
done

# ---- the remapping.spec member of the Score-P 9 file, in every format
expected "$TIME" >"$TMP/time.expected.json"
size=$(python3 -c 'import json,sys; print([m[1] for m in json.load(open(sys.argv[1]))["container"]["members"] if m[0] == "remapping.spec"][0])' "$TMP/time.expected.json")
run cube_dump -w members "$TIME"
expect_text_eq "name,size
remapping.spec,$size" "$TMP/out" "cube_dump -w members: remapping.spec with its size"
run cube_dump -w members -s tsv "$TIME"
expect_text_eq "name	size
remapping.spec	$size" "$TMP/out" "cube_dump -w members -s tsv"
run cube_dump -w members -s human "$TIME"
expect_text_eq "members:
name              size
remapping.spec  $size" "$TMP/out" "cube_dump -w members -s human"
run cube_dump -w -s json "$TIME"
pycheck "cube_dump -w -s json: every section, members last, the format and version in attributes" - "$TMP/out" "$size" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["attributes", "mirrors", "metrics", "regions", "calltree", "systemtree", "topologies", "members"], list(d)
assert d["members"] == [{"name": "remapping.spec", "size": int(sys.argv[2])}], d["members"]
a = d["attributes"]
assert a[0] == {"key": "format", "value": "CUBE 4", "entity": "file", "id": None}, a[0]
assert a[1] == {"key": "version", "value": "4.4", "entity": "file", "id": None}, a[1]
# the experiment's 7 attributes, then those of entities (a region's, the machine's)
assert [r["entity"] for r in a[2:]] == ["experiment"] * 7 + ["region", "machine", "machine"], a
assert a[-1] == {"key": "switch", "value": "i02", "entity": "machine", "id": 0}, a[-1]
EOF
# a CUBE 3 file: -w all as before (no members section), -w members empty
run cube_dump -w testdata/cube/scorep-1.1_profile.cube
if grep -q '^name,size$' "$TMP/out"; then not_ok "cube_dump -w of a CUBE 3 file has no members section"; else
    ok "cube_dump -w of a CUBE 3 file has no members section"; fi
run cube_dump -w members testdata/cube/scorep-1.1_profile.cube
expect_text_eq "name,size" "$TMP/out" "cube_dump -w members of a CUBE 3 file: the header only"

# ---- every value type of the CubeLib example, metric kinds
expected "$VALUES" >"$TMP/values.expected.json"
for fmt in json csv; do
    run cube_dump -w metrics -s $fmt "$VALUES"
    expect_rc 0 "cube_dump -w metrics -s $fmt of the value-type example exits 0"
    pycheck "cube_dump -w metrics -s $fmt: every value type and metric kind as expected" - "$TMP/out" "$TMP/values.expected.json" $fmt <<'EOF'
import csv, json, sys
if sys.argv[3] == "json":
    rows = json.load(open(sys.argv[1]))["metrics"]
else:
    rows = list(csv.DictReader(open(sys.argv[1])))
exp = json.load(open(sys.argv[2]))["metrics"]
got = [(r["uniq_name"], r["dtype"], r["kind"], str(r["ghost"])) for r in rows]
want = [(m["uniq_name"], m["dtype"], m["type"], "1" if m["viztype"] == "GHOST" else "0") for m in exp]
assert got == want, (got, want)
assert {r[1] for r in got} >= {"INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64", "DOUBLE", "MINDOUBLE", "MAXDOUBLE", "RATE", "TAU_ATOMIC", "HISTOGRAM(5)", "NDOUBLES(10)", "SCALE_FUNC", "COMPLEX"}
EOF
done
run cube_dump -w regions -s human "$VALUES"
expect_grep "^region_id  name  *module  *begin_line  end_line  url  descr  *mangled_name  paradigm  role$" "$TMP/out" "cube_dump -w regions of a CUBE 4 file: mangled name, paradigm, role"
expect_grep "^        0  main  .*  mpi  *barrier$" "$TMP/out" "cube_dump -w regions: main's paradigm and role"

# ---- derived metrics: listed with their expressions, never shown as values
expected "$DERIVE" >"$TMP/derive.expected.json"
run cube_dump -w metrics -s json "$DERIVE"
pycheck "cube_dump -w metrics: the derived metrics with their kinds and CubePL expressions" - "$TMP/out" "$TMP/derive.expected.json" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))["metrics"]
exp = json.load(open(sys.argv[2]))["metrics"]
got = [(r["uniq_name"], r["kind"], r["expression"]) for r in rows]
want = [(m["uniq_name"], m["type"], m.get("cubepl", "")) for m in exp]
assert got == want, (got, want)
assert sum(1 for m in exp if "DERIVED" in m["type"]) == 3
EOF
run cube_dump -m all -t aggr "$DERIVE"
expect_rc 0 "cube_dump -m all of a file with derived metrics exits 0"
pycheck "cube_dump -m all: no values of derived metrics, every stored metric's rows" - "$TMP/out" "$TMP/derive.expected.json" <<'EOF'
import csv, json, sys
shown = {r["metric"] for r in csv.DictReader(open(sys.argv[1]))}
exp = json.load(open(sys.argv[2]))["metrics"]
derived = {m["uniq_name"] for m in exp if "DERIVED" in m["type"]}
assert not shown & derived, shown & derived
assert shown == {m["uniq_name"] for m in exp} - derived, shown
EOF
if [ "$(grep -c 'derived' "$TMP/err")" = 1 ] && grep -q "time_per_visit, visits_x2_incl, bytes_total" "$TMP/err"; then
    ok "cube_dump -m all: one warning naming the derived metrics"
else not_ok "cube_dump -m all: one warning naming the derived metrics"; sed 's/^/#   /' "$TMP/err"; fi
for tool in cube_dump cube_stat; do
    run $tool -m time_per_visit "$DERIVE"
    expect_rc 2 "$tool -m DERIVED exits 2"
    expect_grep "^$tool: $DERIVE: metric 'time_per_visit' is derived: its values are not computed$" "$TMP/err" "$tool -m DERIVED says why"
    if [ -s "$TMP/out" ]; then not_ok "$tool -m DERIVED prints nothing"; else ok "$tool -m DERIVED prints nothing"; fi
done
# a derived metric below a stored one: the parent's metric-exclusive
# values would need the derived metric's (the archive re-packed with the
# derived metric bytes_total moved below time)
mkdir "$TMP/dv"
(cd "$TMP/dv" && tar xf "$top/$DERIVE" && gzip -dc anchor.xml >anchor.plain && python3 -c '
import re
s = open("anchor.plain").read()
m = re.search(r"\n    <metric id=\"8\" .*?</metric>", s, re.S)
s = s[:m.start()] + s[m.end():]
t = s.index("</metric>", s.index("<uniq_name>time</uniq_name>"))
s = s[:t] + m.group(0)[1:].replace("\n", "\n  ") + "\n    " + s[t:]
open("anchor.xml", "w").write(s)' && rm anchor.plain &&
    tar cf ../dchild.cubex --format=ustar $(tar tf "$top/$DERIVE"))
run cube_dump -w metrics "$TMP/dchild.cubex"
expect_grep '^8,1,bytes_total,' "$TMP/out" "the re-packed archive has the derived metric below time"
run cube_dump -x excl -t aggr -c roots "$TMP/dchild.cubex"
expect_rc 0 "cube_dump -x excl of a metric with a derived child exits 0"
expect_grep "^cube_dump: warning: $TMP/dchild.cubex: 1 metric (time) has a derived child metric: its metric-exclusive values are not computed$" "$TMP/err" "cube_dump -x excl: one warning naming the metric with a derived child"
if grep -q '^time,\|^bytes_total,' "$TMP/out"; then not_ok "cube_dump -x excl: no metric-exclusive values of time"
else ok "cube_dump -x excl: no metric-exclusive values of time"; fi
expect_grep '^visits,0,' "$TMP/out" "cube_dump -x excl: the other metrics' values"
run cube_dump -x excl -m time "$TMP/dchild.cubex"
expect_rc 2 "cube_dump -x excl -m METRIC with a derived child exits 2"
expect_grep "^cube_dump: $TMP/dchild.cubex: metric 'time' has the derived child metric 'bytes_total': its metric-exclusive values are not computed$" "$TMP/err" "cube_dump -x excl -m METRIC with a derived child says why"
run cube_dump -m time -t aggr -c roots "$TMP/dchild.cubex"
expect_grep '^time,0,MAIN__,.*,0.012134638830900839$' "$TMP/out" "cube_dump -x incl of that metric: its values as stored"
# cube_stat passes over a derived metric it would pick by name: the
# archive re-packed with the derived time_per_visit named time, and time
# named cpu_time (display name Time)
mkdir "$TMP/dt"
(cd "$TMP/dt" && tar xf "$top/$DERIVE" && gzip -dc anchor.xml |
    sed 's|<uniq_name>time</uniq_name>|<uniq_name>cpu_time</uniq_name>|; s|<uniq_name>time_per_visit</uniq_name>|<uniq_name>time</uniq_name>|' >anchor.plain &&
    mv anchor.plain anchor.xml && tar cf ../dtime.cubex --format=ustar $(tar tf "$top/$DERIVE"))
run cube_stat "$TMP/dtime.cubex"
expect_rc 0 "cube_stat of a file whose 'time' is derived exits 0"
head -1 "$TMP/out" >"$TMP/head"
expect_text_eq "Routine,visits" "$TMP/head" "cube_stat's default metric passes over a derived 'time' (the metric with id 0)"
run cube_stat -t 3 "$TMP/dtime.cubex"
expect_rc 0 "cube_stat -t of a file whose 'time' is derived exits 0"
"$BIN/cube_stat" -t 3 "$DERIVE" >"$TMP/want" 2>/dev/null
expect_file_eq "$TMP/want" "$TMP/out" "cube_stat -t takes the time by its display name Time when 'time' is derived"
run cube_statfile --from-cube="$DERIVE" -m time_per_visit
expect_rc 2 "cube_statfile --from-cube -m DERIVED exits 2"
expect_grep "^cube_statfile: $DERIVE: metric 'time_per_visit' is derived: its values are not computed$" "$TMP/err" "cube_statfile --from-cube -m DERIVED says why"
run cube_statfile --from-cube="$DERIVE" -m all
expect_rc 0 "cube_statfile --from-cube -m all of a file with derived metrics exits 0"
if grep -q "time_per_visit\|visits_x2_incl\|bytes_total" "$TMP/out"; then not_ok "cube_statfile --from-cube -m all: no pattern of a derived metric"
else ok "cube_statfile --from-cube -m all: no pattern of a derived metric"; fi
expect_grep "time_ms" "$TMP/out" "cube_statfile --from-cube -m all: the stored metrics' patterns"
run cube_info "$DERIVE"
expect_grep "^  time_per_visit	time_per_visit	DOUBLE		derived$" "$TMP/out" "cube_info: a derived metric's total is 'derived', not 0"
expect_grep "^  kinds: EXCLUSIVE 7, POSTDERIVED 1, PREDERIVED_INCLUSIVE 1, PREDERIVED_EXCLUSIVE 1 (derived 3, ghost 0)$" "$TMP/out" "cube_info: the metric kinds"
run cube_info --json "$DERIVE"
expect_grep '"uniq_name":"time_per_visit",[^}]*"kind":"POSTDERIVED","derived":true,"ghost":false,"expression":"metric::time()/metric::visits()","total":null}' "$TMP/out" "cube_info --json: a derived metric with its kind and expression, no total"

# ---- cube_info --json: the format and the CUBE 4 counts of every archive
for x in "$D"/*.cubex; do
    name=$(basename "$x" .cubex)
    run cube_info --json "$x"
    expected "$x" >"$TMP/exp.json"
    pycheck "cube_info --json $name: format, version and counts as expected" - "$TMP/out" "$TMP/exp.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
c, ec = j["counts"], e["counts"]
assert j["format"] == "CUBE 4" and j["format_version"] == e["anchor"]["cube_version"], (j["format"], j["format_version"])
for mine, theirs in (("metrics", "metrics"), ("regions", "regions"), ("cnodes", "cnodes"), ("root_cnodes", "root_cnodes"),
                     ("processes", "location_groups"), ("threads", "locations"), ("topologies", "topologies")):
    assert c[mine] == ec[theirs], (mine, c[mine], ec[theirs])
assert c["machines"] + c["nodes"] == ec["system_tree_nodes"]
kinds = {}
for m in e["metrics"]:
    kinds[m["type"]] = kinds.get(m["type"], 0) + 1
assert j["metric_kinds"] == kinds, (j["metric_kinds"], kinds)
assert c["derived_metrics"] == sum(v for k, v in kinds.items() if "DERIVED" in k)
classes = {}
for s in e["system_tree_nodes"]:
    classes[s[2]] = classes.get(s[2], 0) + 1
assert j["system_tree_classes"] == classes, (j["system_tree_classes"], classes)
parent = {s[0]: s[3] for s in e["system_tree_nodes"]}
def level(i):
    return 0 if parent[i] is None else 1 + level(parent[i])
assert c["system_tree_depth"] == max(level(s[0]) for s in e["system_tree_nodes"]) + 1
types = {}
for g in e["location_groups"]:
    types[g[3]] = types.get(g[3], 0) + 1
assert j["location_group_types"] == types
types = {}
for l in e["locations"]:
    types[l[3]] = types.get(l[3], 0) + 1
assert j["location_types"] == types
# members that are not part of the experiment, kept to be written back:
# those of no metric, and data of metric ids the anchor does not define
misc = sorted(e["container"]["misc_members"] + e["container"]["orphan_data_members"])
assert sorted(m["name"] for m in j["extra_members"]) == misc and c["extra_members"] == len(misc)
EOF
done
run cube_info "$KRIPKE"
expect_grep "^format: CUBE 4 (version 4.4)$" "$TMP/out" "cube_info: the format and version"
expect_grep "^  system tree: depth 5, classes machine 1, rack 1, midplane 1, nodeboard 1, nodecard 1$" "$TMP/out" "cube_info: the system tree's depth and classes"
expect_grep "^          nodecard nodecard 30: processes 8, threads 8$" "$TMP/out" "cube_info: the deepest system tree node, indented by its level"
run cube_info "$TIME"
expect_grep "^  remapping.spec ($size bytes)$" "$TMP/out" "cube_info: the extra member"
run cube_info testdata/cube/scorep-1.1_profile.cube
expect_grep "^format: CUBE 3 (version 3.0)$" "$TMP/out" "cube_info: the format of a CUBE 3 file"

# ---- cube_clean writes CUBE 4: the same values read back, every archive
for x in "$D"/*.cubex; do
    name=$(basename "$x" .cubex)
    run cube_clean -o "$TMP/c.cubex" "$x"
    expect_rc 0 "cube_clean -o X.cubex $name exits 0"
    if [ "$(head -c 5 "$TMP/c.cubex")" = "<?xml" ]; then not_ok "cube_clean -o X.cubex $name writes an archive"; else
        ok "cube_clean -o X.cubex $name writes an archive"; fi
    "$BIN/cube_dump" -m all "$x" >"$TMP/a.csv" 2>/dev/null
    run cube_dump -m all "$TMP/c.cubex"
    expect_file_eq "$TMP/a.csv" "$TMP/out" "cube_clean -o X.cubex $name: cube_dump gives the same values"
done
# CUBE 4 to CUBE 3: a warning per kind of information CUBE 3 cannot hold
run cube_clean -o "$TMP/k.cube" "$KRIPKE"
expect_rc 0 "cube_clean of the Blue Gene/Q file to CUBE 3 exits 0"
expect_grep "^cube_clean: warning: CUBE 3 has two system tree levels: 3 system tree nodes below other nodes written as nodes of their machine$" "$TMP/err" "cube_clean to CUBE 3 warns about the deeper system tree"
expect_grep "^cube_clean: warning: CUBE 3 stores call-tree exclusive values: " "$TMP/err" "cube_clean to CUBE 3 warns about metrics stored inclusive"
# --format where the name cannot say; '-' spooled back through cube_dump
"$BIN/cube_clean" --format=cube4 -o - "$KRIPKE" 2>"$TMP/err" | "$BIN/cube_dump" -m all - >"$TMP/pipe.csv" 2>>"$TMP/err"
"$BIN/cube_dump" -m all "$KRIPKE" >"$TMP/a.csv" 2>/dev/null
expect_file_eq "$TMP/a.csv" "$TMP/pipe.csv" "cube_clean --format=cube4 -o - | cube_dump -: the same values"
run cube_clean --format=cube3 -o "$TMP/three.cubex" "$D/mkcubex_minimal.cubex"
expect_rc 0 "cube_clean --format=cube3 -o X.cubex exits 0"
expect_grep "^<?xml" "$TMP/three.cubex" "cube_clean --format=cube3 writes CUBE 3 whatever the name"
run cube_clean --format=cube4 -o "$TMP/four.cube" testdata/cube/tau2cube_template1.cube
run cube_info "$TMP/four.cube"
expect_grep "^format: CUBE 4 " "$TMP/out" "cube_clean --format=cube4 writes CUBE 4 whatever the name"
run cube_clean --format=cube5 -o "$TMP/x" "$D/mkcubex_minimal.cubex"
expect_rc 2 "cube_clean --format=cube5 exits 2"
expect_grep "^cube_clean: --format takes 'cube3' or 'cube4', not 'cube5'$" "$TMP/err" "cube_clean names the bad --format"
# the default name follows the format
(cd "$TMP" && mkdir d3 d4 d5 && cd d4 && "$bin/cube_clean" "$top/$D/mkcubex_minimal.cubex" 2>/dev/null &&
    cd ../d3 && "$bin/cube_clean" --format=cube3 "$top/$D/mkcubex_minimal.cubex" 2>/dev/null &&
    cd ../d5 && "$bin/cube_clean" --format=cube4 "$top/testdata/cube/tau2cube_template1.cube" 2>/dev/null)
if [ -f "$TMP/d4/clean.cubex" ] && [ -f "$TMP/d3/clean.cube" ] && [ -f "$TMP/d5/clean.cubex" ]; then
    ok "cube_clean's default output: clean.cubex for a CUBE 4 input or --format=cube4, clean.cube for --format=cube3"
else not_ok "cube_clean's default output: clean.cubex for a CUBE 4 input or --format=cube4, clean.cube for --format=cube3"; fi
# -z with CUBE 4: compressed data members
run cube_clean -z -o "$TMP/z.cubex" "$KRIPKE"
if tar tf "$TMP/z.cubex" >/dev/null 2>&1 && [ "$(tar xOf "$TMP/z.cubex" 0.data | head -c 11)" = "ZCUBEX.DATA" ]; then
    ok "cube_clean -z -o X.cubex compresses the data members"; else not_ok "cube_clean -z -o X.cubex compresses the data members"; fi
run cube_dump -m all "$TMP/z.cubex"
expect_file_eq "$TMP/a.csv" "$TMP/out" "cube_clean -z -o X.cubex: the same values"

# ---- parameters and attributes of entities: the minimal archive with a
# call path split by two parameters, attributes on it and on the machine,
# and a GPU location
mkdir "$TMP/m"
(cd "$TMP/m" && tar xf "$top/$D/mkcubex_minimal.cubex")
sed -e 's|^\(        <cnode id="3" calleeId="3">\)$|\1<parameter partype="numeric" parkey="n" parvalue="123"/><parameter partype="string" parkey="s" parvalue="abc"/><attr key="k" value="v"/>|' \
    -e 's|^\(      <class>machine</class>\)$|\1<attr key="platform" value="Linux"/>|' \
    -e '/<location Id="1">/,/<\/location>/s|<type>thread</type>|<type>gpu</type>|' "$TMP/m/anchor.xml" >"$TMP/m/anchor.new"
mv "$TMP/m/anchor.new" "$TMP/m/anchor.xml"
(cd "$TMP/m" && tar cf ../params.cubex --format=ustar 0.data 0.index 1.data 1.index 2.data 2.index anchor.xml)
run cube_dump -w calltree -s json "$TMP/params.cubex"
expect_rc 0 "cube_dump -w of an archive with parameters exits 0"
expect_grep '{"cnode_id":3,"parent_id":1,.*"parameters":"n=123; s=\\"abc\\""}' "$TMP/out" "cube_dump -w calltree: the call path's parameters"
run cube_dump -w attributes "$TMP/params.cubex"
expect_text_eq 'key,value,entity,id
format,CUBE 4,file,
version,4.4,file,
Creator,mkcubex.py (libcube test data),experiment,
k,v,cnode,3
platform,Linux,machine,0' "$TMP/out" "cube_dump -w attributes: the file's format, the experiment's and the entities' attributes"
run cube_dump -w systemtree "$TMP/params.cubex"
expect_grep '^thread,1,1,thread 0,0,1,3,,gpu,$' "$TMP/out" "cube_dump -w systemtree: a GPU location"
run cube_info --json "$TMP/params.cubex"
expect_grep '"location_types":{"thread":1,"gpu":1}' "$TMP/out" "cube_info --json: the location types"
run cube_clean -o "$TMP/params.cube" "$TMP/params.cubex"
expect_grep "^cube_clean: warning: CUBE 3 has no call-path parameters: " "$TMP/err" "cube_clean to CUBE 3 warns about the parameters"
expect_grep "^cube_clean: warning: CUBE 3 has processes and threads only: " "$TMP/err" "cube_clean to CUBE 3 warns about the location types"
