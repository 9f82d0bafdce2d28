# cube_dump's aggregation, selection and order on the shipped real
# experiments (CUBE 3 and CUBE 4, nested system tree nodes, MAXDOUBLE and
# MINDOUBLE metrics): --by=process|node|machine against sums (maxima,
# minima) computed here from the per-thread rows and the system tree;
# --by=all against -t aggr; --threshold, --sort and --top against the
# aggregated rows ranked here; --wide against the one-metric rows; the
# usage errors.
. tests/cli/lib.sh
PROFILE=testdata/cube/scorep-1.1_profile.cube
TRACE=testdata/cube/scalasca_trace.cube
KRIPKE=testdata/cubex/scorep-1.4_kripke-p8-d2-g32-r1_profile.cubex
VALUES=testdata/cubex/cubelib-4.8.2_cube-values_example.cubex
NODES4=testdata/cubex/scorep-9.0dev_time-p4-n2000-x1-r0_profile.cubex

# --- --by=LEVEL: every row equals the threads' values combined here as
# the metric's dtype says (math.fsum, max, min), the items as the system
# tree of -w systemtree puts them (a node has everything below it; the
# nodes printed are those that hold processes)
cat >"$TMP/chk_by.py" <<'EOF'
import csv, io, json, math, subprocess, sys
dump, f, by, metrics = sys.argv[1:5]
def run(*a):
    return subprocess.run([dump, *a, f], capture_output=True, text=True, check=True).stdout
defs = json.loads(run("-w", "metrics,systemtree", "-s", "json"))
rule = {m["uniq_name"]: {"MAXDOUBLE": "max", "MINDOUBLE": "min"}.get(m["dtype"], "sum")
        for m in defs["metrics"]}
nodes, procs, thread_proc, node_parent = {}, {}, {}, {}
for r in defs["systemtree"]:
    if r["kind"] == "node":
        nodes[r["id"]] = r
        # below a machine at level 1 (CUBE 3 has no level: always there)
        node_parent[r["id"]] = None if r.get("level", 1) == 1 else r["parent_id"]
    elif r["kind"] == "process":
        procs[r["id"]] = r
    elif r["kind"] == "thread":
        thread_proc[r["location"]] = r["parent_id"]
holding = {p["parent_id"] for p in procs.values()}
def machine_of(node):
    while node_parent[node] is not None:
        node = node_parent[node]
    return nodes[node]["parent_id"]
def items(loc):
    p = procs[thread_proc[loc]]
    if by == "process":
        return [str(p["rank"])]
    if by == "machine":
        return [str(machine_of(p["parent_id"]))]
    out, n = [], p["parent_id"]
    while n is not None:
        if n in holding:
            out.append(str(n))
        n = node_parent[n]
    return out
expected = {}
for r in csv.DictReader(io.StringIO(run("-m", metrics))):
    for it in items(int(r["location"])):
        expected.setdefault((r["metric"], r["cnode_id"], it), []).append(r["value"])
key = {"process": "process", "node": "node_id", "machine": "machine_id"}[by]
got = {(r["metric"], r["cnode_id"], r[key]): r["value"]
       for r in csv.DictReader(io.StringIO(run("-m", metrics, "--by=" + by)))}
assert set(got) == set(expected), (len(got), len(expected))
bad = 0
for k, vals in expected.items():
    have = [float(v) for v in vals if v not in ("", "-")]
    how = rule[k[0]]
    if how == "sum":
        want = math.fsum(have)
    elif have:
        want = max(have) if how == "max" else min(have)
    else:
        want = None
    g = got[k]
    if want is None:
        ok = g == "-"
    elif how == "sum":
        ok = g not in ("", "-") and abs(float(g) - want) <= 1e-12 * max(abs(want), 1e-300)
    else:
        ok = float(g) == want
    if not ok:
        bad += 1
        if bad < 5:
            print(k, g, want)
assert not bad, bad
assert len(got) > 0
print(len(got), "rows")
EOF
for spec in "$PROFILE:all:process" "$PROFILE:all:node" "$PROFILE:all:machine" \
    "$KRIPKE:all:node" "$KRIPKE:all:machine" "$KRIPKE:time,min_time,max_time:process" \
    "$NODES4:all:node" "$VALUES:INT64,UINT64,DOUBLE,MINDOUBLE,MAXDOUBLE:process" \
    "$VALUES:DOUBLE,MINDOUBLE,MAXDOUBLE:machine"; do
    f=${spec%%:*}
    rest=${spec#*:}
    metrics=${rest%%:*}
    by=${rest#*:}
    pycheck "cube_dump --by=$by -m $metrics $(basename "$f"): the threads' values combined by dtype" \
        "$TMP/chk_by.py" "$BIN/cube_dump" "$f" "$by" "$metrics"
done

# --- the nested system tree: the machine's value is that of its 8
# processes, four nodes below it (it used to be no value at all)
run cube_dump -m time -c roots --by=machine -s tsv "$KRIPKE"
awk -F '\t' 'NR == 2 { print $NF }' "$TMP/out" >"$TMP/machine"
"$BIN/cube_dump" -m time -c roots -t aggr -s tsv "$KRIPKE" | awk -F '\t' 'NR == 2 { print $NF }' \
    >"$TMP/all"
if [ -s "$TMP/all" ] && [ "$(cat "$TMP/all")" != 0 ]; then
    expect_file_eq "$TMP/all" "$TMP/machine" "cube_dump --by=machine of a nested system tree: all threads' value"
else not_ok "cube_dump -t aggr gives the root's time of $KRIPKE"; fi
run cube_dump -m time -c roots --mode=sysroot --by=node -s tsv "$KRIPKE"
awk -F '\t' 'NR == 2 { print $8 }' "$TMP/out" >"$TMP/node"
expect_text_eq "nodecard 30" "$TMP/node" "cube_dump --by=node prints the node that holds the processes"

# --- --by=all is -t aggr, byte for byte, in every format
for fmt in csv tsv json human; do
    "$BIN/cube_dump" -m time,visits -t aggr -s $fmt "$PROFILE" >"$TMP/aggr.$fmt"
    run cube_dump -m time,visits --by=all -s $fmt "$PROFILE"
    expect_file_eq "$TMP/aggr.$fmt" "$TMP/out" "cube_dump --by=all -s $fmt equals -t aggr"
done
"$BIN/cube_dump" -r -m time -t aggr "$PROFILE" >"$TMP/aggr.flat"
run cube_dump -r -m time --by=all "$PROFILE"
expect_file_eq "$TMP/aggr.flat" "$TMP/out" "cube_dump -r --by=all equals -r -t aggr"

# --- --threshold=P keeps the call paths whose value over all threads is
# at least P percent of the metric's total (the sum of the exclusive
# values), for every --by and value mode; --sort and --top rank the rows
# after that
cat >"$TMP/chk_rank.py" <<'EOF'
import csv, io, math, subprocess, sys
dump, f, metric, flavour, pct, sort, top = sys.argv[1:8]
def rows(*a):
    out = subprocess.run([dump, "-m", metric, *a, f], capture_output=True, text=True,
                         check=True).stdout
    return list(csv.DictReader(io.StringIO(out)))
total = math.fsum(float(r["value"]) for r in rows("-t", "aggr", "-z", "excl"))
agg = rows("-t", "aggr", "-z", flavour)
pct = float(pct)
kept = [r for r in agg if abs(float(r["value"])) >= pct / 100 * abs(total)]
if sort:
    key = sort.lstrip("-")
    k = {"value": lambda r: float(r["value"]), "abs": lambda r: abs(float(r["value"])),
         "name": lambda r: r["call_path"].encode(), "id": lambda r: int(r["cnode_id"])}[key]
    kept.sort(key=k, reverse=sort.startswith("-"))   # stable: ties keep the tree order
if top:
    kept = kept[:int(top)]
want = [r["cnode_id"] for r in kept]
args = ["-z", flavour, "--threshold=" + str(pct)]
if sort:
    args.append("--sort=" + sort)
if top:
    args.append("--top=" + top)
got = [r["cnode_id"] for r in rows("--by=all", *args)]
assert got == want, (got[:10], want[:10])
assert 0 < len(got) < len(agg), len(got)
# per process: the same call paths, each with every process (unsorted)
if not sort and not top:
    per = rows("--by=process", *args)
    assert [r["cnode_id"] for r in per][::4] == want, "per process"
    # and in a value mode the call paths are chosen by their absolute value
    for m in ("ownroot", "metricroot", "callroot", "sysroot", "peer", "peerdist"):
        mode = rows("--by=process", "--mode=" + m, *args)
        assert [r["cnode_id"] for r in mode] == [r["cnode_id"] for r in per], "mode " + m
print(len(got), "call paths of", len(agg))
EOF
for spec in "time:excl:1::" "time:incl:5::" "time:excl:0.5:-value:5" "visits:excl:0.1:value:7" \
    "time:incl:2:name:" "time:incl:2:-id:4" "time:excl:1:-abs:3" "time:excl:1:abs:" \
    "time:incl:2:-name:" "visits:incl:0:id:6"; do
    IFS=: read -r metric flavour pct sort top <<EOF
$spec
EOF
    pycheck "cube_dump -m $metric -z $flavour --threshold=$pct ${sort:+--sort=$sort }${top:+--top=$top}: the call paths computed here" \
        "$TMP/chk_rank.py" "$BIN/cube_dump" "$PROFILE" "$metric" "$flavour" "$pct" "$sort" "$top"
done

# --- with a difference experiment, --sort=-abs puts the largest changes
# first, whatever their sign
"$BIN/cube_diff" -o "$TMP/delta.cube" "$PROFILE" "$TRACE" 2>/dev/null
run cube_dump -m time --by=all --sort=-abs --top=4 -s tsv "$TMP/delta.cube"
expect_rc 0 "cube_dump --sort=-abs --top=4 on a difference exits 0"
awk -F '\t' 'NR > 1 { print $NF }' "$TMP/out" >"$TMP/top4"
"$BIN/cube_dump" -m time --by=all -s tsv "$TMP/delta.cube" |
    awk -F '\t' 'NR > 1 { v = $NF; print (v < 0 ? -v : v) "\t" v }' | sort -g -r -k1,1 |
    head -n 4 | cut -f 2 >"$TMP/top4.awk"
expect_file_eq "$TMP/top4.awk" "$TMP/top4" "cube_dump --sort=-abs: the 4 largest changes, as sort(1) ranks them"
grep -q '^-' "$TMP/top4" && ok "cube_dump --sort=-abs ranks negative changes too" ||
    not_ok "cube_dump --sort=-abs ranks negative changes too (none among the first 4)"

# --- the flat profile: --sort ranks by the exclusive value, per process
run cube_dump -r -m time --by=process --sort=-value --top=3 -s tsv "$PROFILE"
awk -F '\t' 'NR > 1 { print $3 "\t" $6 "\t" $8 }' "$TMP/out" >"$TMP/flat3"
"$BIN/cube_dump" -r -m time --by=process -s tsv "$PROFILE" |
    awk -F '\t' 'NR > 1 { print $3 "\t" $6 "\t" $8 }' | sort -t "$(printf '\t')" -k3,3gr |
    head -n 3 >"$TMP/flat3.sort"
expect_file_eq "$TMP/flat3.sort" "$TMP/flat3" "cube_dump -r --by=process --sort=-value --top=3: the 3 largest exclusive values"
run cube_dump -m time --top=0 "$PROFILE"
expect_text_eq "metric,cnode_id,call_path,region,module,line,location,process,thread,value" \
    "$TMP/out" "cube_dump --top=0 prints the header only"

# --- --wide: one column per metric, each the value of the one-metric rows
cat >"$TMP/chk_wide.py" <<'EOF'
import csv, io, subprocess, sys
dump, f, metrics, by = sys.argv[1:5]
def rows(*a):
    out = subprocess.run([dump, "-m", metrics, "--by=" + by, *a, f], capture_output=True,
                         text=True, check=True).stdout
    return list(csv.reader(io.StringIO(out)))
wide, long = rows("--wide"), rows()
names = metrics.split(",")
assert wide[0][-len(names):] == names, wide[0]
assert wide[0][:-len(names)] == long[0][1:-1], (wide[0], long[0])
n = len(wide) - 1
assert n * len(names) == len(long) - 1, (n, len(long))
for i, name in enumerate(names):
    for k in range(n):
        lr = long[1 + i * n + k]
        assert lr[0] == name and lr[1:-1] == wide[1 + k][:-len(names)], (lr, wide[1 + k])
        assert lr[-1] == wide[1 + k][len(wide[0]) - len(names) + i], (lr, wide[1 + k])
print(n, "rows")
EOF
pycheck "cube_dump --wide --by=process: one column per metric, the values of the one-metric rows" \
    "$TMP/chk_wide.py" "$BIN/cube_dump" "$PROFILE" "time,visits,min_time,max_time" process
pycheck "cube_dump --wide --by=thread (CUBE 4, MINDOUBLE/MAXDOUBLE)" \
    "$TMP/chk_wide.py" "$BIN/cube_dump" "$VALUES" "DOUBLE,MINDOUBLE,MAXDOUBLE" thread
pycheck "cube_dump --wide --by=all" \
    "$TMP/chk_wide.py" "$BIN/cube_dump" "$TRACE" "time,visits,mpi" all

# --- usage errors: exit 2, a message naming the option
for bad in "--by=rack:--by takes thread, process, node, machine or all, not 'rack'" \
    "--sort=size:--sort takes value, -value, abs, -abs, name, -name, id or -id, not 'size'" \
    "--top=-1:--top takes a count of rows, not '-1'" \
    "--top=x:--top takes a count of rows, not 'x'" \
    "--threshold=-5:--threshold takes a percentage from 0 to 100, not '-5'" \
    "--threshold=5%:--threshold takes a percentage from 0 to 100, not '5%'" \
    "--threshold=nan:--threshold takes a percentage from 0 to 100, not 'nan'"; do
    opt=${bad%%:*}
    run cube_dump "$opt" "$PROFILE"
    expect_rc 2 "cube_dump $opt exits 2"
    head -n 1 "$TMP/err" >"$TMP/err.first"
    expect_text_eq "cube_dump: ${bad#*:}" "$TMP/err.first" "cube_dump $opt: one line saying what it takes"
    [ -s "$TMP/out" ] && not_ok "cube_dump $opt prints nothing on standard output" ||
        ok "cube_dump $opt prints nothing on standard output"
done
run cube_dump -t 0 --by=process "$PROFILE"
expect_rc 2 "cube_dump -t 0 --by=process exits 2"
expect_grep "^cube_dump: -t 0 selects threads: it needs --by=thread, not --by=process$" "$TMP/err" \
    "cube_dump -t THREADS with --by=process says why"
run cube_dump -r --wide "$PROFILE"
expect_rc 2 "cube_dump -r --wide exits 2"
run cube_dump -t aggr -t 0,1 -m time -c 0 "$PROFILE"
expect_rc 0 "cube_dump -t aggr -t 0,1: the later -t wins, as before"
[ "$(wc -l <"$TMP/out")" -eq 3 ] && ok "cube_dump -t aggr -t 0,1 prints threads 0 and 1" ||
    not_ok "cube_dump -t aggr -t 0,1 prints threads 0 and 1"
run cube_dump --by=process -t aggr -m time -c 0 "$PROFILE"
expect_rc 0 "cube_dump --by=process -t aggr: the later wins"
expect_grep ",aggr,aggr,aggr," "$TMP/out" "cube_dump --by=process -t aggr aggregates over all"
