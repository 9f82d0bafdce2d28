# cube_diff, cube_merge, cube_mean and cube_cmp on the shipped real
# experiments: self-differences are zero (under every --match and system
# rule), the mean of a file with itself is the file (its thread ranks
# too), merge joins the profile and the trace of one run (one metric per
# unique name) and takes each row from the last input that has it, cmp
# finds one changed value and names it; system-tree conflicts, inputs and
# outputs, usage errors.  Expected values are computed here from the input
# files.
. tests/cli/lib.sh
D=testdata/cube
PROFILE=$D/scorep-1.1_profile.cube
TRACE=$D/scalasca_trace.cube
BGP=$D/scalasca-bgpBT_experiment1.cube
ROOT=$(pwd)

# --- helpers (not in lib.sh: only this file needs them) -------------------

# json FILE PYTHON-EXPRESSION: evaluate the expression over j, the
# cube_info --json object of FILE, and print it
json() {
    "$BIN/cube_info" --json "$1" 2>/dev/null |
        python3 -c 'import json, sys
j = json.loads(sys.stdin.readline())
print(eval(sys.argv[1]))' "$2"
}

# totals FILE: "uniq_name total" per non-VOID metric (repr: every bit)
totals() {
    json "$1" '"\n".join(m["uniq_name"] + " " + repr(float(m["total"])) for m in j["metrics"] if not m["void"])'
}

# expect_eq EXPECTED ACTUAL DESCRIPTION
expect_eq() {
    if [ -n "$1" ] && [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3 (got '$2', expected '$1')"; fi
}

# value_at FILE METRIC CALL-PATH PROCESS-RANK K: the stored value of the
# metric at the call path (region names joined by '/') for the K-th thread
# (0-based, in file order) of the process with that rank, read straight from
# the XML (the layout of the shipped files and of libcube's writer)
value_at() {
    awk -v METRIC="$2" -v CPATH="$3" -v PROC="$4" -v K="$5" '
    BEGIN { i = -2; depth = 0 }
    /<metric id="/ { mid = $0; sub(/.*id="/, "", mid); sub(/".*/, "", mid) }
    /<uniq_name>/ && mid != "" {
        u = $0; sub(/.*<uniq_name>/, "", u); sub(/<\/uniq_name>.*/, "", u)
        if (u == METRIC) want_m = mid
        mid = "" }
    /<region id="/ { rid = $0; sub(/.*id="/, "", rid); sub(/".*/, "", rid) }
    /<name>/ && rid != "" {
        n = $0; sub(/.*<name>/, "", n); sub(/<\/name>.*/, "", n); rname[rid] = n; rid = "" }
    /<cnode id="/ {
        cid = $0; sub(/.*id="/, "", cid); sub(/".*/, "", cid)
        callee = $0; sub(/.*calleeId="/, "", callee); sub(/".*/, "", callee)
        path[depth + 1] = (depth ? path[depth] "/" : "") rname[callee]
        if (path[depth + 1] == CPATH) want_c = cid
        if ($0 !~ /\/>/) depth++ }
    /<\/cnode>/ { depth-- }
    /<process Id="/ { inproc = 1; k = 0 }
    /<rank>/ && inproc == 1 { r = $0; gsub(/[^0-9-]/, "", r); prank = r; inproc = 2 }
    /<thread Id="/ {
        t = $0; sub(/.*Id="/, "", t); sub(/".*/, "", t)
        if (prank == PROC && k == K) want_t = t
        k++ }
    /<matrix metricId=/ { m = $0; sub(/.*metricId="/, "", m); sub(/".*/, "", m) }
    /<row cnodeId=/ { c = $0; sub(/.*cnodeId="/, "", c); sub(/".*/, "", c); i = -1; next }
    /<\/row>/ { i = -2 }
    i >= -1 && !/</ { i++; if (m == want_m && c == want_c && i == want_t) v = $0 }
    END {
        if (want_m == "" || want_c == "" || want_t == "") exit 1
        print (v == "" ? 0 : v) }' "$1"
}

# set_value FILE METRIC-ID CNODE-ID POSITION VALUE: FILE with one value of
# one row replaced (POSITION: 0-based, the thread id in the shipped files)
set_value() {
    awk -v M="$2" -v C="$3" -v P="$4" -v V="$5" '
    BEGIN { i = -2 }
    /<matrix metricId=/ { m = $0; sub(/.*metricId="/, "", m); sub(/".*/, "", m) }
    /<row cnodeId=/ { c = $0; sub(/.*cnodeId="/, "", c); sub(/".*/, "", c); i = -1; print; next }
    /<\/row>/ { i = -2 }
    i >= -1 && !/</ { i++; if (m == M && c == C && i == P) $0 = V }
    { print }' "$1"
}

# --- every shipped file with itself ---------------------------------------
for f in $D/*.cube; do
    name=$(basename "$f" .cube)

    run cube_diff -o "$TMP/self-diff.cube" "$f" "$f"
    expect_rc 0 "cube_diff $name $name exits 0"
    z=$(json "$TMP/self-diff.cube" 'j["counts"]["rows"] == 0 and all(m["total"] == 0 for m in j["metrics"] if not m["void"])')
    expect_eq True "$z" "cube_diff $name $name: no row, every non-VOID total 0"
    dims='[j["counts"][k] for k in ("metrics", "void_metrics", "cnodes", "processes", "threads")]'
    expect_eq "$(json "$f" "$dims")" "$(json "$TMP/self-diff.cube" "$dims")" \
        "cube_diff $name $name keeps the metrics, call paths and threads"

    run cube_mean -o "$TMP/self-mean.cube" "$f" "$f"
    expect_rc 0 "cube_mean $name $name exits 0"
    run cube_cmp "$TMP/self-mean.cube" "$f"
    expect_rc 0 "cube_cmp says the mean of $name with itself is $name"
    expect_text_eq "Experiments are equal." "$TMP/out" "cube_cmp prints 'Experiments are equal.' ($name)"
    totals "$f" >"$TMP/totals.orig"
    totals "$TMP/self-mean.cube" >"$TMP/totals.mean"
    if [ -s "$TMP/totals.orig" ]; then
        expect_file_eq "$TMP/totals.orig" "$TMP/totals.mean" "cube_mean $name $name has the totals of $name"
    else not_ok "cube_info --json $name gave no totals"; fi

    gzip -9nc "$f" >"$TMP/$name.cube.gz"
    run cube_cmp "$f" "$TMP/$name.cube.gz"
    expect_rc 0 "cube_cmp $name and its gzip copy exits 0"
    expect_text_eq "Experiments are equal." "$TMP/out" "cube_cmp $name and its gzip copy are equal"

    run cube_diff --match=name -o "$TMP/self-diff.cube" "$f" "$f"
    expect_eq True "$(json "$TMP/self-diff.cube" 'j["counts"]["rows"] == 0')" \
        "cube_diff --match=name $name $name: every value exactly 0 (no row)"
    run cube_cmp --match=name "$f" "$f"
    expect_text_eq "Experiments are equal." "$TMP/out" "cube_cmp --match=name $name $name: equal"
done

# Hand-made: sibling call paths that --match=name makes one (solve from two
# call sites, 1e17 and 0.1277; step from three, 0.1 + 0.2 + 0.3), and an
# input that gives one unique name to two metrics.  The difference with
# itself is exactly 0, and cmp finds it equal to itself, under every option.
for f in testdata/algebra/*.cube; do
    name=$(basename "$f" .cube)
    for opts in "" "--match=name" "-c" "-C" "--match=name -c" "--match=name -C"; do
        # shellcheck disable=SC2086 # the options are words
        run cube_diff $opts -o "$TMP/self-diff.cube" "$f" "$f"
        expect_rc 0 "cube_diff $opts $name $name exits 0"
        expect_eq True "$(json "$TMP/self-diff.cube" 'j["counts"]["rows"] == 0')" \
            "cube_diff $opts $name $name: every value exactly 0 (no row)"
        # shellcheck disable=SC2086
        run cube_cmp $opts "$f" "$f"
        expect_text_eq "Experiments are equal." "$TMP/out" "cube_cmp $opts $name $name: equal"
    done
done
run cube_mean --match=name -o "$TMP/alike-mean.cube" testdata/algebra/alike-siblings.cube testdata/algebra/alike-siblings.cube
"$BIN/cube_dump" -m time -s tsv "$TMP/alike-mean.cube" | awk -F'\t' 'NR > 1 && $10 != 0 { print $3, $9, $10 }' >"$TMP/alike-mean.txt"
expect_text_eq "main 0 1
main 1 2
main/solve 0 1e+17
main/solve 1 7
main/step 0 0.6
main/step 1 1" "$TMP/alike-mean.txt" "cube_mean --match=name: siblings alike summed compensated (0.1 + 0.2 + 0.3 = 0.6)"

# the mean of the Score-P 1.1 profile with itself keeps its thread ranks
# (Score-P 1.x numbers them across the experiment: process 3 has 27..35)
ranks() { "$BIN/cube_dump" -w systemtree -s tsv "$1" | awk -F'\t' '$1 == "thread" { printf "%s ", $5 }'; }
run cube_mean -o "$TMP/profile-mean.cube" "$PROFILE" "$PROFILE"
expect_eq "$(ranks "$PROFILE")" "$(ranks "$TMP/profile-mean.cube")" \
    "cube_mean profile profile keeps the thread ranks 0..35"
for opt in -c -C; do
    run cube_diff $opt -o "$TMP/profile-diff.cube" "$PROFILE" "$PROFILE"
    expect_eq "$(ranks "$PROFILE")" "$(ranks "$TMP/profile-diff.cube")" \
        "cube_diff $opt profile profile keeps the thread ranks 0..35"
done

# the result records the operation; dtypes follow it
run cube_diff -o "$TMP/pd.cube" "$PROFILE" "$PROFILE"
expect_eq "$PROFILE - $PROFILE" "$(json "$TMP/pd.cube" 'j["attributes"]["cube_diff"]')" \
    "cube_diff records 'MINUEND - SUBTRAHEND' in attribute cube_diff"
expect_eq "Score-P 1.1 SUM" "$(json "$TMP/pd.cube" 'j["attributes"]["Creator"] + " " + j["attributes"]["CUBE_CT_AGGR"]')" \
    "cube_diff keeps the inputs' attributes"
expect_eq "INT64 DOUBLE" "$(json "$TMP/pd.cube" '" ".join(m["dtype"] for m in j["metrics"][:2])')" \
    "cube_diff turns UINT64 into INT64 and keeps DOUBLE"
run cube_mean -o "$TMP/tm.cube" "$TRACE" "$TRACE" "$TRACE"
expect_eq "mean($TRACE, $TRACE, $TRACE)" "$(json "$TMP/tm.cube" 'j["attributes"]["cube_mean"]')" \
    "cube_mean records 'mean(A, B, C)' in attribute cube_mean"
expect_eq "FLOAT FLOAT" "$(json "$TMP/tm.cube" '" ".join(m["dtype"] for m in j["metrics"] if m["uniq_name"] in ("visits", "bytes_sent"))')" \
    "cube_mean turns INTEGER into FLOAT"
run cube_cmp "$TMP/tm.cube" "$TRACE"
expect_rc 0 "the mean of three copies of the trace equals the trace"

# topologies are kept while the locations are the first input's, not with -C
run cube_diff -o "$TMP/bgp.cube" "$BGP" "$BGP"
expect_eq 2 "$(json "$TMP/bgp.cube" 'j["counts"]["topologies"]')" \
    "cube_diff keeps the 2 topologies of the BG/P experiment (no copy per input)"
run cube_diff -C -o "$TMP/bgpC.cube" "$BGP" "$BGP"
expect_eq "0 Virtual machine Virtual node 32 128" \
    "$(json "$TMP/bgpC.cube" '"%d %s %s %d %d" % (j["counts"]["topologies"], j["system"][0]["machine"], j["system"][0]["nodes"][0]["node"], j["counts"]["processes"], j["counts"]["threads"])')" \
    "cube_diff -C: one virtual machine and node, all 32 processes and 128 threads, no topology"

# --- merge: the profile and the trace of the same run ---------------------
run cube_merge -o "$TMP/merge.cube" "$PROFILE" "$TRACE"
expect_rc 0 "cube_merge profile trace exits 0"
expect_eq "True True" "$(json "$TMP/merge.cube" '" ".join(str(n in [m["uniq_name"] for m in j["metrics"]]) for n in ("min_time", "mpi_latesender"))')" \
    "cube_merge has the profile's min_time and the trace's mpi_latesender"
expect_eq "113 130 4 36" "$(json "$TMP/merge.cube" '"%d %d %d %d" % tuple(j["counts"][k] for k in ("metrics", "cnodes", "processes", "threads"))')" \
    "cube_merge: 6+110-3 metrics, 130 call paths, 4 processes, 36 threads (Score-P global thread ranks line up)"
# bytes_sent is a root in the profile, under bytes_p2p in the trace: one
# metric, where the profile has it, and one warning
expect_eq "1 None" "$(json "$TMP/merge.cube" '"%d %s" % (sum(m["uniq_name"] == "bytes_sent" for m in j["metrics"]), [m.get("parent") for m in j["metrics"] if m["uniq_name"] == "bytes_sent"][0])')" \
    "cube_merge profile trace: one metric bytes_sent, a root as in the profile"
expect_text_eq "cube_merge: warning: metric 'bytes_sent' is a root metric in $PROFILE but under 'bytes_p2p' in $TRACE; it is one metric, placed as in $PROFILE" \
    "$TMP/err" "cube_merge profile trace warns once that bytes_sent sits elsewhere"
run cube_cmp -q "$PROFILE" "$TRACE"
expect_text_eq "cube_cmp: warning: metric 'bytes_sent' is a root metric in $PROFILE but under 'bytes_p2p' in $TRACE; it is one metric, placed as in $PROFILE" \
    "$TMP/err" "cube_cmp profile trace gives the same warning"
run cube_merge -o "$TMP/dup.cube" testdata/algebra/duplicate-unique-name.cube
expect_text_eq "cube_merge: warning: testdata/algebra/duplicate-unique-name.cube: two metrics have the unique name 'bytes_sent' (a root metric, and under 'bytes_p2p'): the first is used, the values of the other are ignored" \
    "$TMP/err" "cube_merge warns about an input's repeated unique name"
"$BIN/cube_dump" -m bytes_sent -s tsv testdata/algebra/duplicate-unique-name.cube >"$TMP/dup-in.tsv"
"$BIN/cube_dump" -m bytes_sent -s tsv "$TMP/dup.cube" >"$TMP/dup-out.tsv"
expect_file_eq "$TMP/dup-in.tsv" "$TMP/dup-out.tsv" \
    "cube_merge of that input has the values cube_dump -m bytes_sent shows for it"
# a metric both have, at call paths both have: its rows come from the last input
time_of() { json "$1" '[repr(m["total"]) for m in j["metrics"] if m["uniq_name"] == "time"][0]'; }
maxt_of() { json "$1" '[repr(m["total"]) for m in j["metrics"] if m["uniq_name"] == "max_time"][0]'; }
late_of() { json "$1" '[repr(m["total"]) for m in j["metrics"] if m["uniq_name"] == "mpi_latesender"][0]'; }
expect_eq "$(time_of "$TRACE")" "$(time_of "$TMP/merge.cube")" "cube_merge profile trace: time comes from the trace (last)"
expect_eq "$(maxt_of "$PROFILE")" "$(maxt_of "$TMP/merge.cube")" "cube_merge profile trace: max_time from the profile"
expect_eq "$(late_of "$TRACE")" "$(late_of "$TMP/merge.cube")" "cube_merge profile trace: mpi_latesender from the trace"
run cube_merge -o "$TMP/merge2.cube" "$TRACE" "$PROFILE"
expect_eq "$(time_of "$PROFILE")" "$(time_of "$TMP/merge2.cube")" "cube_merge trace profile: time comes from the profile (last)"
expect_eq "merge($PROFILE, $TRACE)" "$(json "$TMP/merge.cube" 'j["attributes"]["cube_merge"]')" \
    "cube_merge records 'merge(A, B)' in attribute cube_merge"

# --- merge row by row -----------------------------------------------------
# The KOJAK file and CubeLib's copy of it with a raw '&' in a region name:
# the call paths below that region are the copy's only.  Each (metric, call
# path) row of the merge must come whole from the last input that has both
# the metric and the call path (cube_dump prints every value of every
# non-VOID metric, zeros too, so its lines say which input has which row).
K=$D/kojak-expert_ctest-pomp.cube
AMP=$D/cubelib-test1.1_equal_raw-amp.cube
cat >"$TMP/rows.py" <<'PY'
import sys
def dump(path):
    rows = {}
    with open(path, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            d = dict(zip(head, line.rstrip("\n").split("\t")))
            rows.setdefault((d["metric"], d["call_path"]), {})[(d["process"], d["thread"])] = float(d["value"])
    return rows
result, inputs = dump(sys.argv[1]), [dump(p) for p in sys.argv[2:]]
bad, from_earlier = 0, 0
for key, cells in result.items():
    owners = [k for k, rows in enumerate(inputs) if key in rows]
    want = inputs[owners[-1]][key] if owners else {}
    if owners and owners[-1] < len(inputs) - 1 and any(want.values()):
        from_earlier += 1
    for where, value in cells.items():
        if value != want.get(where, 0.0):
            bad += 1
            if bad <= 3:
                print("row", key, where, "is", value, "expected", want.get(where, 0.0))
print(bad, "values differ;", from_earlier, "non-zero rows from an earlier input")
sys.exit(bad != 0 or from_earlier == 0)
PY
for opts in "" "--match=name"; do
    # shellcheck disable=SC2086
    run cube_merge $opts -o "$TMP/km.cube" "$K" "$AMP"
    expect_rc 0 "cube_merge $opts kojak raw-amp exits 0"
    for f in "$K" "$AMP" "$TMP/km.cube"; do
        "$BIN/cube_dump" -s tsv "$f" >"$TMP/$(basename "$f").tsv" 2>/dev/null
    done
    pycheck "cube_merge $opts kojak raw-amp: every row whole from the last input that has it, none lost" \
        "$TMP/rows.py" "$TMP/km.cube.tsv" "$TMP/$(basename "$K").tsv" "$TMP/$(basename "$AMP").tsv"
done

# --- diff of two different runs: one value checked against the inputs ---
CP='MAIN__/initialize_/!$omp parallel @initialize.f:28/!$omp do @initialize.f:50'
run cube_diff -o "$TMP/pt.cube" "$PROFILE" "$TRACE"
expect_rc 0 "cube_diff profile trace exits 0"
a=$(value_at "$PROFILE" time "$CP" 2 5)
b=$(value_at "$TRACE" time "$CP" 2 5)
r=$(value_at "$TMP/pt.cube" time "$CP" 2 5)
if [ -n "$a" ] && [ -n "$b" ] && [ -n "$r" ] &&
    awk -v a="$a" -v b="$b" -v r="$r" 'BEGIN { exit !(a != b && r != 0 && a - b == r) }'; then
    ok "cube_diff profile trace: time at $CP, process 2 thread 5 is $a - $b = $r exactly"
else not_ok "cube_diff profile trace: time at $CP, process 2 thread 5 (a=$a b=$b result=$r)"; fi
expect_eq 36 "$(json "$TMP/pt.cube" 'j["counts"]["threads"]')" "cube_diff profile trace lines up all 36 threads"

# --- cmp: one changed value -----------------------------------------------
# metric 1 is time, cnode 16 is the call path below, position 11 is process
# 1's third thread (Score-P 1.x numbers it 11 across processes; matched as
# 2, reported with its rank 11 since both inputs agree on it)
CP16='MAIN__/initialize_/!$omp parallel @initialize.f:28/!$omp do @initialize.f:31'
old=$(value_at "$PROFILE" time "$CP16" 1 2)
expect_eq 0.0019535795407098 "$old" "the value to change is where the test expects it"
set_value "$PROFILE" 1 16 11 0.0029535795407098 >"$TMP/changed.cube"
if [ "$(cmp -l "$PROFILE" "$TMP/changed.cube" | wc -l)" = 1 ]; then ok "the changed copy differs in one byte"
else not_ok "the changed copy differs in one byte"; fi
run cube_cmp "$PROFILE" "$TMP/changed.cube"
expect_rc 1 "cube_cmp after a one-value change exits 1"
TAB=$(printf '\t')
expect_text_eq "Experiments are not equal: 1 difference.
what${TAB}metric${TAB}call path${TAB}process rank${TAB}thread rank${TAB}A${TAB}B
value${TAB}time${TAB}$CP16${TAB}1${TAB}11${TAB}0.0019535795407098${TAB}0.0029535795407098" \
    "$TMP/out" "cube_cmp names the metric, call path, ranks and both values"
run cube_cmp "$TMP/changed.cube" "$PROFILE"
expect_rc 1 "cube_cmp the other way round exits 1"
expect_grep "^value${TAB}time${TAB}.*${TAB}1${TAB}11${TAB}0.0029535795407098${TAB}0.0019535795407098\$" \
    "$TMP/out" "cube_cmp is symmetric (A and B swap)"
run cube_cmp -q "$PROFILE" "$TMP/changed.cube"
expect_rc 1 "cube_cmp -q exits 1 on a difference"
if [ ! -s "$TMP/out" ]; then ok "cube_cmp -q prints nothing"; else not_ok "cube_cmp -q prints nothing"; fi
if [ -w /dev/full ]; then
    "$BIN/cube_cmp" "$PROFILE" "$PROFILE" >/dev/full 2>"$TMP/err"
    rc=$?
    expect_rc 2 "cube_cmp exits 2 when its verdict cannot be written"
    expect_text_eq "cube_cmp: cannot write to standard output" "$TMP/err" "cube_cmp says standard output failed"
fi

# tolerances: a 0.33% change
set_value "$PROFILE" 1 16 11 0.00196 >"$TMP/small.cube"
run cube_cmp "$PROFILE" "$TMP/small.cube"
expect_rc 1 "cube_cmp without a tolerance sees a 0.33% change"
run cube_cmp --rel-tol=0.05 "$PROFILE" "$TMP/small.cube"
expect_rc 0 "cube_cmp --rel-tol=0.05 accepts a 0.33% change"
expect_text_eq "Experiments are equal." "$TMP/out" "cube_cmp --rel-tol=0.05 says equal"
run cube_cmp --rel-tol=0.001 "$PROFILE" "$TMP/small.cube"
expect_rc 1 "cube_cmp --rel-tol=0.001 rejects a 0.33% change"
run cube_cmp --abs-tol=1e-4 "$PROFILE" "$TMP/small.cube"
expect_rc 0 "cube_cmp --abs-tol=1e-4 accepts a change of 6.4e-6"
run cube_cmp --abs-tol=1e-6 "$PROFILE" "$TMP/small.cube"
expect_rc 1 "cube_cmp --abs-tol=1e-6 rejects a change of 6.4e-6"

# --metric restricts the comparison
run cube_cmp --metric=visits --metric=max_time "$PROFILE" "$TMP/changed.cube"
expect_rc 0 "cube_cmp --metric=visits --metric=max_time ignores the change in time"
run cube_cmp --metric=time "$PROFILE" "$TMP/changed.cube"
expect_rc 1 "cube_cmp --metric=time sees the change in time"
run cube_cmp --metric=nosuch "$PROFILE" "$TMP/changed.cube"
expect_rc 2 "cube_cmp --metric with an unknown metric exits 2"
expect_text_eq "cube_cmp: no metric with the unique name 'nosuch' in $PROFILE or $TMP/changed.cube" \
    "$TMP/err" "cube_cmp names the unknown metric"

# many differences: the dimensions first, then at most N lines and a count
run cube_cmp -n 3 "$PROFILE" "$TRACE"
expect_rc 1 "cube_cmp profile trace exits 1"
n=$(sed -n 's/^Experiments are not equal: \([0-9]*\) differences\.$/\1/p' "$TMP/out")
expect_text_eq "Experiments are not equal: $n differences.
what${TAB}metric${TAB}call path${TAB}process rank${TAB}thread rank${TAB}A${TAB}B
metric only in A${TAB}min_time${TAB}-${TAB}-${TAB}-${TAB}-${TAB}-
metric only in A${TAB}max_time${TAB}-${TAB}-${TAB}-${TAB}-${TAB}-
metric only in A${TAB}bytes_received${TAB}-${TAB}-${TAB}-${TAB}-${TAB}-
($((n - 3)) more; --max-differences=0 prints all)" "$TMP/out" "cube_cmp -n 3 prints 3 differences and how many more"
run cube_cmp -n 0 "$PROFILE" "$TRACE"
expect_eq "$((n + 2))" "$(wc -l <"$TMP/out" | tr -d ' ')" "cube_cmp -n 0 prints all $n differences"

# call paths that moved to another module: --match=name lines them up
sed 's|<region id="42" mod="\([^"]*\)"|<region id="42" mod="\1.v2"|' "$PROFILE" >"$TMP/moved.cube"
run cube_cmp -n 2 "$PROFILE" "$TMP/moved.cube"
expect_rc 1 "cube_cmp: a region in another module makes other call paths"
sed -n 3,4p "$TMP/out" >"$TMP/lines"
expect_text_eq "call path only in A${TAB}-${TAB}$CP16${TAB}-${TAB}-${TAB}-${TAB}-
call path only in B${TAB}-${TAB}$CP16${TAB}-${TAB}-${TAB}-${TAB}-" \
    "$TMP/lines" "cube_cmp reports call paths only in A and only in B"
run cube_cmp --match=name "$PROFILE" "$TMP/moved.cube"
expect_rc 0 "cube_cmp --match=name ignores the module"

# --- system trees that do not agree ---------------------------------------
run cube_diff -o "$TMP/conflict.cube" "$PROFILE" "$BGP"
expect_rc 2 "cube_diff profile bgp (different system trees) exits 2"
expect_text_eq "cube_diff: the system trees do not agree: process rank 0 is on node 'i01r04c02s11' of machine 'generic cluster' in $PROFILE but on node 'R00-M0-N0' of machine 'IBM BG/P' in $BGP; use -c to keep the first experiment's machines and nodes, or -C to collapse all processes into one virtual node" \
    "$TMP/err" "cube_diff names the conflicting process and suggests -c or -C"
if [ ! -e "$TMP/conflict.cube" ] && ! ls "$TMP" | grep -q '^conflict\.cube'; then
    ok "cube_diff writes no output on a conflict"; else not_ok "cube_diff writes no output on a conflict"; fi
run cube_cmp "$PROFILE" "$BGP"
expect_rc 2 "cube_cmp on different system trees exits 2"
run cube_diff -C -o "$TMP/conflict.cube" "$PROFILE" "$BGP"
expect_rc 0 "cube_diff -C profile bgp exits 0"
# ranks 0-3: threads 0-8 (profile) and 0-3 (bgp) -> 9 each; ranks 4-31: 4 each
expect_eq "32 148 Virtual node" "$(json "$TMP/conflict.cube" '"%d %d %s" % (j["counts"]["processes"], j["counts"]["threads"], j["system"][0]["nodes"][0]["node"])')" \
    "cube_diff -C: every process rank and thread rank of either input"
run cube_diff -c -o "$TMP/first.cube" "$PROFILE" "$BGP"
expect_rc 0 "cube_diff -c profile bgp exits 0"
expect_eq "generic cluster i01r04c02s11:4:36 Processes not in the first experiment:28:112" \
    "$(json "$TMP/first.cube" '" ".join([j["system"][0]["machine"]] + ["%s:%d:%d" % (n["node"], n["processes"], n["threads"]) for n in j["system"][0]["nodes"]])')" \
    "cube_diff -c: the first input's node, the other ranks on one extra node"

# --- inputs and outputs ---------------------------------------------------
gzip -9nc "$TRACE" >"$TMP/trace.cube.gz"
"$BIN/cube_diff" -o - - "$TMP/trace.cube.gz" <"$TRACE" 2>"$TMP/err" | "$BIN/cube_info" --json - >"$TMP/pipe.json"
expect_grep '"rows":0}' "$TMP/pipe.json" "cube_diff -o - - X.gz | cube_info - : standard input, gzip and standard output"
expect_grep '"cube_diff":"- - '"$TMP"'/trace.cube.gz"' "$TMP/pipe.json" "cube_diff names standard input '-' in the attribute"
run cube_mean -o - "$TRACE"
if head -n 1 "$TMP/out" | grep -q '^<?xml version="1.0" encoding="UTF-8"?>$'; then
    ok "cube_mean -o - writes XML to standard output"; else not_ok "cube_mean -o - writes XML to standard output"; fi
run cube_merge -o "$TMP/m.cube.gz" "$TRACE"
if [ "$(head -c2 "$TMP/m.cube.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
    ok "cube_merge -o X.gz writes gzip"; else not_ok "cube_merge -o X.gz writes gzip"; fi
run cube_mean -z -o "$TMP/z.cube" "$TRACE"
if gzip -t <"$TMP/z.cube" 2>/dev/null; then ok "cube_mean -z writes gzip"; else not_ok "cube_mean -z writes gzip"; fi
run cube_cmp "$TMP/z.cube" "$TRACE"
expect_rc 0 "cube_cmp reads the gzip output back equal"

# default output names, in the current directory
ABS_BIN=$(cd "$BIN" && pwd)
mkdir "$TMP/wd"
cd "$TMP/wd" || exit 1
BIN=$ABS_BIN
run cube_diff "$ROOT/$TRACE" "$ROOT/$TRACE"
run cube_merge "$ROOT/$TRACE"
run cube_mean "$ROOT/$TRACE"
cd "$ROOT" || exit 1
expect_eq "diff.cube mean.cube merge.cube" "$(ls "$TMP/wd" | tr '\n' ' ' | sed 's/ $//')" \
    "default outputs diff.cube, merge.cube, mean.cube in the current directory"

# --format: the format whatever the name of the output; without -o the
# default name follows it (.cubex for CUBE 4)
mkdir "$TMP/wd4"
cd "$TMP/wd4" || exit 1
run cube_diff --format=cube4 "$ROOT/$TRACE" "$ROOT/$TRACE"
expect_rc 0 "cube_diff --format=cube4 exits 0"
run cube_mean --format=cube3 "$ROOT/$TRACE"
run cube_merge -z "$ROOT/$TRACE"
cd "$ROOT" || exit 1
expect_eq "diff.cubex mean.cube merge.cube" "$(ls "$TMP/wd4" | tr '\n' ' ' | sed 's/ $//')" \
    "--format=cube4 names the default output diff.cubex, --format=cube3 and -z mean.cube, merge.cube"
# a CUBE 4 archive: a tar archive whose members include anchor.xml
is_cubex() { tar tf "$1" 2>/dev/null | grep -qx anchor.xml; }
if is_cubex "$TMP/wd4/diff.cubex"; then ok "--format=cube4 writes a CUBE 4 archive"; else
    not_ok "--format=cube4 writes a CUBE 4 archive"; fi
if head -n 1 "$TMP/wd4/mean.cube" | grep -q '^<?xml '; then ok "--format=cube3 writes CUBE 3 XML"; else
    not_ok "--format=cube3 writes CUBE 3 XML"; fi
run cube_merge --format=cube4 -o - "$TRACE"
if is_cubex "$TMP/out"; then ok "--format=cube4 -o - writes a CUBE 4 archive to standard output"; else
    not_ok "--format=cube4 -o - writes a CUBE 4 archive to standard output"; fi
run cube_merge --format=cube3 -o "$TMP/named.cubex" "$TRACE"
if head -n 1 "$TMP/named.cubex" | grep -q '^<?xml '; then ok "--format=cube3 wins over the name .cubex"; else
    not_ok "--format=cube3 wins over the name .cubex"; fi
run cube_merge --format=cube4 -o "$TMP/named4.cube" "$TRACE"
if is_cubex "$TMP/named4.cube"; then ok "--format=cube4 wins over the name .cube"; else
    not_ok "--format=cube4 wins over the name .cube"; fi
# -z with CUBE 4: compressed data members, as cube_clean -z writes them
run cube_diff --format=cube4 -z -o "$TMP/z.cubex" "$TRACE" "$TRACE"
expect_rc 0 "cube_diff --format=cube4 -z exits 0"
if grep -aq 'ZCUBEX.DATA' "$TMP/z.cubex" && ! grep -aq '[^Z]CUBEX[.]DATA' "$TMP/z.cubex"; then
    ok "cube_diff --format=cube4 -z writes compressed data members"
else
    not_ok "cube_diff --format=cube4 -z writes compressed data members"
fi
run cube_mean --format=cube5 -o "$TMP/never.cube" "$TRACE"
expect_rc 2 "cube_mean --format=cube5 exits 2"
expect_grep "^cube_mean: --format takes 'cube3' or 'cube4', not 'cube5'\$" "$TMP/err" "cube_mean names the bad --format"

# --- CUBE 4 inputs --------------------------------------------------------
X=testdata/cubex
# "time" stored INCLUSIVE, two processes on one node
MINIMAL=$X/mkcubex_minimal.cubex
# Score-P on Blue Gene/Q: five levels of system tree, six INCLUSIVE metrics
KRIPKE=$X/scorep-1.4_kripke-p8-d2-g32-r1_profile.cubex
DERIVED=$X/cubederive_scorep-1.1_profile.cubex
VALUES=$X/cubelib-4.8.2_cube-values_example.cubex

# the default output name follows the first input: .cubex when it is CUBE 4
mkdir "$TMP/wd5"
cd "$TMP/wd5" || exit 1
run cube_diff "$ROOT/$MINIMAL" "$ROOT/$MINIMAL"
expect_rc 0 "cube_diff of two .cubex exits 0"
run cube_mean "$ROOT/$MINIMAL"
run cube_merge -C "$ROOT/$TRACE" "$ROOT/$MINIMAL"
cd "$ROOT" || exit 1
expect_eq "diff.cubex mean.cubex merge.cube" "$(ls "$TMP/wd5" | tr '\n' ' ' | sed 's/ $//')" \
    "default outputs diff.cubex and mean.cubex after a CUBE 4 first input, merge.cube after a CUBE 3 one"
if is_cubex "$TMP/wd5/diff.cubex"; then ok "diff.cubex is a CUBE 4 archive"; else
    not_ok "diff.cubex is a CUBE 4 archive"; fi
expect_eq "visits 0.0 time 0.0 bytes 0.0" "$(totals "$TMP/wd5/diff.cubex" | tr '\n' ' ' | sed 's/ $//')" \
    "a .cubex minus itself, written as .cubex, is 0"
run cube_cmp "$TMP/wd5/mean.cubex" "$MINIMAL"
expect_rc 0 "the mean of one .cubex, written as .cubex, equals it"

# a metric stored inclusive in one input and exclusive in the other: the
# CUBE 3 copy holds "time" as exclusive values
run cube_merge --format=cube3 -o "$TMP/min3.cube" "$MINIMAL"
run cube_cmp "$MINIMAL" "$TMP/min3.cube"
expect_rc 0 "cube_cmp: inclusive and exclusive storage of the same values are equal"
expect_grep "^cube_cmp: warning: metric 'time' is stored EXCLUSIVE in $TMP/min3.cube but INCLUSIVE in $MINIMAL: the values of $TMP/min3.cube are converted to call-tree inclusive ones before they are combined\$" \
    "$TMP/err" "cube_cmp says which input's values are converted to which kind"
run cube_cmp "$TMP/min3.cube" "$MINIMAL"
expect_rc 0 "cube_cmp: equal the other way round (converted to exclusive)"
run cube_diff -o "$TMP/d3.cube" "$TMP/min3.cube" "$MINIMAL"
expect_eq "visits 0.0 time 0.0 bytes 0.0" "$(totals "$TMP/d3.cube" | tr '\n' ' ' | sed 's/ $//')" \
    "cube_diff of the exclusive and the inclusive storage is 0"

# system trees of different depths: the CUBE 3 copy has the node cards
# directly below the machine
run cube_merge --format=cube3 -o "$TMP/k3.cube" "$KRIPKE"
run cube_diff -o "$TMP/never.cube" "$KRIPKE" "$TMP/k3.cube"
expect_rc 2 "cube_diff of a deep and a flat tree exits 2"
expect_grep "process rank 0 is on node 'rack 3/midplane 1/nodeboard 12/nodecard 30' of machine 'machine Blue Gene/Q' in $KRIPKE but on node 'nodecard 30' of machine 'machine Blue Gene/Q' in $TMP/k3.cube; use -c" \
    "$TMP/err" "cube_diff names both nodes by their path from the machine"
run cube_cmp -c --rel-tol=1e-9 "$KRIPKE" "$TMP/k3.cube"
expect_rc 0 "cube_cmp -c: the deep tree and its flat copy hold the same values"
run cube_cmp -C --rel-tol=1e-9 "$TMP/k3.cube" "$KRIPKE"
expect_rc 0 "cube_cmp -C: the same, collapsed"
run cube_mean -c -o "$TMP/k.cubex" "$KRIPKE" "$TMP/k3.cube"
expect_eq "1 4 8" "$(json "$TMP/k.cubex" '"%d %d %d" % (j["counts"]["machines"], j["counts"]["nodes"], j["counts"]["processes"])')" \
    "cube_mean -c keeps the first input's five levels (a machine and four nodes)"

# derived metrics: listed without values, not compared
run cube_cmp "$DERIVED" "$DERIVED"
expect_rc 0 "cube_cmp of a file with derived metrics with itself exits 0"
expect_grep "^cube_cmp: warning: metric 'time_per_visit' is derived (a CubePL expression, no stored values) in $DERIVED: not compared\$" \
    "$TMP/err" "cube_cmp says a derived metric is not compared"
run cube_mean -o "$TMP/derived.cubex" "$DERIVED"
expect_rc 0 "cube_mean of a file with derived metrics exits 0"
run cube_info "$TMP/derived.cubex"
expect_grep "^cube_info: warning: $TMP/derived.cubex: 3 derived metrics (time_per_visit, visits_x2_incl, bytes_total) are not computed" \
    "$TMP/err" "the result keeps the derived metrics as derived ones"

# structured value types: one number per value, written as DOUBLE
run cube_mean -o "$TMP/values.cube" "$VALUES"
expect_rc 0 "cube_mean of every value type exits 0"
expect_grep "^cube_mean: warning: structured value type TAU_ATOMIC of metric 'TAU_ATOMIC': combined as one number per value (the one displayed), written as DOUBLE\$" \
    "$TMP/err" "cube_mean names a structured value type and the metric"
expect_eq "DOUBLE" "$(json "$TMP/values.cube" '[m["dtype"] for m in j["metrics"] if m["uniq_name"] == "TAU_ATOMIC"][0]')" \
    "a TAU_ATOMIC metric becomes DOUBLE"

# bad input: exit 2, the file and line, no output
printf '<html><body/></html>\n' >"$TMP/bad.cube"
run cube_mean -o "$TMP/never.cube" "$TRACE" "$TMP/bad.cube"
expect_rc 2 "cube_mean with a non-CUBE input exits 2"
expect_text_eq "cube_mean: $TMP/bad.cube:1: not a CUBE file: expected the root element <cube>, found <html>" \
    "$TMP/err" "cube_mean names the bad file and line"
run cube_diff -o "$TMP/never.cube" "$TRACE" "$TMP/no-such.cube"
expect_rc 2 "cube_diff with a missing input exits 2"
expect_text_eq "cube_diff: $TMP/no-such.cube: cannot open: No such file or directory" \
    "$TMP/err" "cube_diff names the missing file"
# cut inside the rows (read as a stream, after the definitions lined up)
head -c 100000 "$TRACE" >"$TMP/cut.cube"
run cube_diff -o "$TMP/never.cube" "$TRACE" "$TMP/cut.cube"
expect_rc 2 "cube_diff with an input truncated in its rows exits 2"
expect_text_eq "cube_diff: $TMP/cut.cube:$(($(wc -l <"$TMP/cut.cube") + 1)): unexpected end of file: expected </row> (the file is truncated)" \
    "$TMP/err" "cube_diff names the truncated input and the line where it ends"
run cube_cmp "$TMP/bad.cube" "$TRACE"
expect_rc 2 "cube_cmp with a non-CUBE input exits 2 (not 1)"
if ! ls "$TMP" | grep -q '^never\.cube'; then ok "no output after bad input"; else
    not_ok "no output after bad input"; fi

# --- usage ----------------------------------------------------------------
for t in cube_diff cube_merge cube_mean cube_cmp; do
    run "$t" --help
    expect_rc 0 "$t --help exits 0"
    expect_grep "^usage: $t " "$TMP/out" "$t --help prints the usage"
    run "$t" --version
    expect_text_eq "$t (libcube) $CUBE_VERSION" "$TMP/out" "$t --version"
    run "$t" --match=fuzzy "$TRACE" "$TRACE"
    expect_rc 2 "$t --match=fuzzy exits 2"
    expect_grep "^$t: --match takes 'full' or 'name', not 'fuzzy'\$" "$TMP/err" "$t names the bad --match"
    run "$t" --frobnicate "$TRACE" "$TRACE"
    expect_rc 2 "$t with an unknown option exits 2"
    expect_grep "^$t: unknown option '--frobnicate'\$" "$TMP/err" "$t names the unknown option"
done
run cube_diff -o "$TMP/never.cube" "$TRACE"
expect_rc 2 "cube_diff with one input exits 2"
expect_grep "^cube_diff: 2 experiments needed, 1 given\$" "$TMP/err" "cube_diff says 2 experiments are needed"
run cube_diff -o "$TMP/never.cube" "$TRACE" "$TRACE" "$TRACE"
expect_rc 2 "cube_diff with three inputs exits 2"
run cube_merge -o "$TMP/never.cube"
expect_rc 2 "cube_merge without input exits 2"
run cube_mean -o "$TMP/never.cube"
expect_rc 2 "cube_mean without input exits 2"
expect_grep "^cube_mean: at least 1 experiment needed, 0 given\$" "$TMP/err" "cube_mean says an experiment is needed"
run cube_cmp "$TRACE"
expect_rc 2 "cube_cmp with one input exits 2"
run cube_cmp "$TRACE" "$TRACE" "$TRACE"
expect_rc 2 "cube_cmp with three inputs exits 2"
run cube_mean -o "$TMP/never.cube" - - </dev/null
expect_rc 2 "cube_mean with '-' twice exits 2"
expect_grep "^cube_mean: standard input ('-') can be read only once\$" "$TMP/err" "cube_mean: '-' only once"
run cube_cmp - - </dev/null
expect_rc 2 "cube_cmp with '-' twice exits 2"
run cube_cmp --rel-tol=-1 "$TRACE" "$TRACE"
expect_rc 2 "cube_cmp --rel-tol=-1 exits 2"
run cube_cmp --abs-tol=x "$TRACE" "$TRACE"
expect_rc 2 "cube_cmp --abs-tol=x exits 2"
run cube_cmp -n -1 "$TRACE" "$TRACE"
expect_rc 2 "cube_cmp -n -1 exits 2"
if ! ls "$TMP" | grep -q '^never\.cube'; then ok "no output after usage errors"; else
    not_ok "no output after usage errors"; fi

# the readers' warnings about an input reach the user, once per input
run cube_mean -o "$TMP/warned.cube" testdata/cube/cubelib-test1.1_equal_raw-amp.cube testdata/cube/kojak-expert_ctest-pomp.cube
expect_rc 0 "cube_mean of the raw '&' file exits 0"
expect_text_eq "cube_mean: warning: testdata/cube/cubelib-test1.1_equal_raw-amp.cube:1268: raw '&' is not well-formed XML; read as a literal '&' (1 in the file)" \
    "$TMP/err" "cube_mean passes on the reader's warning about its input"
run cube_cmp -q testdata/cube/kojak-expert_ctest-pomp.cube testdata/cube/cubelib-test1.1_equal_raw-amp.cube
expect_grep "^cube_cmp: warning: testdata/cube/cubelib-test1.1_equal_raw-amp.cube:1268: raw '&'" "$TMP/err" "cube_cmp passes on the reader's warning too"
