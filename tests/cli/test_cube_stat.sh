# cube_stat on the shipped real experiments: CubeLib's column names, the
# top-N flat profile against cube_dump -r, the call-tree profile, exact
# quartiles against python's statistics module, the warning for missing
# time/visits, gzip and standard input, -o, errors.
. tests/cli/lib.sh
TRACE=testdata/cube/scalasca_trace.cube
TAU=testdata/cube/tau2cube_template1.cube


# --- top 10 of the Scalasca trace
run cube_stat -t 10 "$TRACE"
expect_rc 0 "cube_stat -t 10 exits 0"
head -n 1 "$TMP/out" >"$TMP/head"
expect_text_eq "cube::Region,Number of Calls,Exclusive Time,Inclusive Time" "$TMP/head" \
    "cube_stat -t has CubeLib's column header"
expect_grep '^"!\$omp do @z_solve.f:52",115776,78.0579500376876,78.0579500376876$' "$TMP/out" \
    "cube_stat -t: the top region, its name in double quotes"
cp "$TMP/out" "$TMP/top.csv"
"$BIN/cube_dump" -r -m time -t aggr "$TRACE" >"$TMP/flat-time.csv"
"$BIN/cube_dump" -r -m visits -t aggr "$TRACE" >"$TMP/flat-visits.csv"
cat >"$TMP/chk_top.py" <<'EOF'
import csv, sys
top = list(csv.reader(open(sys.argv[1], newline="")))[1:]
time = {r["region"]: r for r in csv.DictReader(open(sys.argv[2], newline=""))}
visits = {r["region"]: r for r in csv.DictReader(open(sys.argv[3], newline=""))}
assert len(top) == 10, len(top)
excl = [float(r[2]) for r in top]
assert excl == sorted(excl, reverse=True), excl
for name, calls, ex, inc in top:
    assert float(calls) == float(visits[name]["exclusive"]) > 0
    assert float(ex) == float(time[name]["exclusive"])
    assert float(inc) == float(time[name]["inclusive"])
# nothing left out: every visited region not listed has less exclusive time
rest = [float(r["exclusive"]) for n, r in time.items()
        if n not in {t[0] for t in top} and float(visits[n]["exclusive"]) > 0]
assert max(rest) <= excl[-1]
EOF
pycheck "cube_stat -t 10: sorted by exclusive time, values as cube_dump -r computes them" \
    "$TMP/chk_top.py" "$TMP/top.csv" "$TMP/flat-time.csv" "$TMP/flat-visits.csv"
run cube_stat -t all "$TRACE"
visited=$(awk -F, 'NR > 1 && $9 > 0' "$TMP/flat-visits.csv" | wc -l)
if [ "$(tail -n +2 "$TMP/out" | wc -l)" -eq "$visited" ] && [ "$visited" -gt 10 ]; then
    ok "cube_stat -t all lists every visited region"
else not_ok "cube_stat -t all lists every visited region"; fi
run cube_stat -t unlimited "$TRACE"
expect_rc 0 "cube_stat -t unlimited (CubeLib's spelling) exits 0"
run cube_stat -t 3 -m mpi,visits "$TRACE"
head -n 1 "$TMP/out" >"$TMP/head"
expect_text_eq "cube::Region,Number of Calls,Exclusive Time,Inclusive Time,mpi,visits" "$TMP/head" \
    "cube_stat -t -m adds the metrics as columns"
if [ "$(tail -n +2 "$TMP/out" | awk -F, '$2 != $6' | wc -l)" -eq 0 ]; then
    ok "cube_stat -t -m visits repeats Number of Calls"
else not_ok "cube_stat -t -m visits repeats Number of Calls"; fi

# pretty: an aligned table with CubeLib's captions
run cube_stat -p -t 10 "$TRACE"
if head -n 1 "$TMP/out" | grep -q '^cube::Region  *NumberOfCalls  *ExclusiveTime  *InclusiveTime$' &&
    [ "$(awk '{ print length($0) }' "$TMP/out" | sort -u | wc -l)" -eq 1 ] &&
    [ "$(wc -l <"$TMP/out")" -eq 11 ]; then
    ok "cube_stat -p -t 10 prints an aligned table"
else not_ok "cube_stat -p -t 10 prints an aligned table"; fi

# --- the call-tree profile (default: time, the call-tree roots)
run cube_stat "$TRACE"
expect_rc 0 "cube_stat exits 0"
cat >"$TMP/chk_profile.py" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["Routine", "time"], rows[0]
assert rows[1] == ["INCL(MAIN__)", "390.19278532568757"], rows[1]
assert rows[2] == ["EXCL(MAIN__)", "0.1093467976105257"], rows[2]
children = rows[3:]
assert len(children) == int(sys.argv[2]) and all(len(r) == 2 for r in children), children
# INCL = EXCL + the callees (inclusive)
total = sum(float(r[1]) for r in rows[2:])
assert abs(total - float(rows[1][1])) < 1e-9, total
EOF
callees=$("$BIN/cube_dump" -w calltree "$TRACE" | awk -F, '$2 == "0"' | wc -l)
pycheck "cube_stat: Routine header, INCL, EXCL and the callees of MAIN__" "$TMP/chk_profile.py" "$TMP/out" "$callees"
run cube_stat -m time,visits -r compute_rhs_ "$TRACE"
if [ "$(head -n 1 "$TMP/out")" = "Routine,time,visits" ] && [ "$(grep -c '^INCL(compute_rhs_),' "$TMP/out")" -eq 2 ] &&
    [ "$(grep -c '^$' "$TMP/out")" -eq 1 ]; then
    ok "cube_stat -r: one block per call path of the routine, separated by an empty line"
else not_ok "cube_stat -r: one block per call path of the routine, separated by an empty line"; fi
run cube_stat -p -r adi_ "$TRACE"
if grep -q '^INCL(adi_) ' "$TMP/out" && grep -q '^  EXCL(adi_) ' "$TMP/out" && grep -q '^  compute_rhs_ ' "$TMP/out"; then
    ok "cube_stat -p: EXCL and the callees indented"
else not_ok "cube_stat -p: EXCL and the callees indented"; fi

# --- statistics across threads, exact quartiles (type 7)
run cube_stat -% -m time -r adi_ "$TRACE"
expect_rc 0 "cube_stat -% exits 0"
head -n 1 "$TMP/out" >"$TMP/head"
expect_text_eq "cube::Metric,Routine,Count,Sum,Mean,Variance,Minimum,Quartile 25,Median,Quartile 75,Maximum" \
    "$TMP/head" "cube_stat -% has CubeLib's column header"
cp "$TMP/out" "$TMP/stats.csv"
adi=$("$BIN/cube_dump" -w calltree "$TRACE" | awk -F, '$5 == "adi_" { print $1 }')
"$BIN/cube_dump" -m time -c "$adi" -z incl "$TRACE" >"$TMP/adi-incl.csv"
"$BIN/cube_dump" -m time -c "$adi" -z excl "$TRACE" >"$TMP/adi-excl.csv"
cat >"$TMP/chk_quartiles.py" <<'EOF'
import csv, statistics, sys
rows = {r["Routine"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
def check(label, path):
    x = [float(r["value"]) for r in csv.DictReader(open(path, newline=""))]
    assert len(x) == 36
    r = rows[label]
    q = statistics.quantiles(x, n=4, method="inclusive")
    want = {"Count": 36, "Sum": sum(x), "Mean": statistics.fmean(x),
            "Variance": statistics.variance(x), "Minimum": min(x), "Quartile 25": q[0],
            "Median": statistics.median(x), "Quartile 75": q[2], "Maximum": max(x)}
    for k, v in want.items():
        got = float(r[k])
        assert abs(got - v) <= 1e-12 * max(1e-300, abs(v)), (label, k, got, v)
check("INCL(adi_)", sys.argv[2])
check("EXCL(adi_)", sys.argv[3])
EOF
pycheck "cube_stat -%: quartiles, median, variance as python's statistics (inclusive = type 7)" \
    "$TMP/chk_quartiles.py" "$TMP/stats.csv" "$TMP/adi-incl.csv" "$TMP/adi-excl.csv"
if grep -q '^time,LEAF(MPI_Barrier),36,' "$TMP/out" || grep -q '^time,INCL(compute_rhs_),36,' "$TMP/out"; then
    ok "cube_stat -%: callees as INCL(...) or LEAF(...)"
else not_ok "cube_stat -%: callees as INCL(...) or LEAF(...)"; fi
run cube_stat -% -m BGP "$TAU"
expect_grep '^BGP,"LEAF(BC_FLUX \[{bc_flux.pp.f90} {21,1}-{390,22}\])",1,4123,4123,,4123,4123,4123,4123,4123$' \
    "$TMP/out" "cube_stat -% with one thread: no variance, quartiles all the value"

# --- time and visits missing (tau2cube: BGP and CALLS): a warning, then the
# metrics that exist
run cube_stat -t 10 -m CALLS "$TAU"
expect_rc 0 "cube_stat -t without time and visits exits 0"
expect_grep "^cube_stat: warning: $TAU: no metric 'visits'" "$TMP/err" "cube_stat warns that visits is missing"
expect_grep "^cube_stat: warning: $TAU: no metric 'time'" "$TMP/err" "cube_stat warns that time is missing"
head -n 1 "$TMP/out" >"$TMP/head"
expect_text_eq "cube::Region,Number of Calls,Exclusive Time,Inclusive Time,CALLS" "$TMP/head" \
    "cube_stat keeps CubeLib's columns when time and visits are missing"
cat >"$TMP/chk_missing.py" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))[1:]
assert len(rows) == 10, len(rows)
assert all(r[1:4] == ["", "", ""] for r in rows), rows[0]
calls = [float(r[4]) for r in rows]
assert calls == sorted(calls, reverse=True) and calls[0] > 0, calls
EOF
pycheck "cube_stat: ten rows, the missing metrics' columns empty, sorted by the -m metric" \
    "$TMP/chk_missing.py" "$TMP/out"

# --- a difference of two runs of one program (the Score-P profile minus the
# Scalasca trace analysis of the same run): every region's visits cancel, its
# times do not.  The top-N list ranks by the magnitude of the exclusive time
# and keeps a region when any value of its row is not 0.
PROFILE=testdata/cube/scorep-1.1_profile.cube
"$BIN/cube_diff" -o "$TMP/delta.cube" "$PROFILE" "$TRACE" 2>"$TMP/err"
"$BIN/cube_dump" -r -m time -t aggr "$TMP/delta.cube" >"$TMP/delta-time.csv"
"$BIN/cube_dump" -r -m visits -t aggr "$TMP/delta.cube" >"$TMP/delta-visits.csv"
run cube_stat -t 5 "$TMP/delta.cube"
expect_rc 0 "cube_stat -t 5 of a difference exits 0"
expect_grep '^"MPI_Waitall",0,-14\.85097861189236,-14\.85097861189236$' "$TMP/out" \
    "cube_stat -t of a difference: the largest change first, its sign shown"
cp "$TMP/out" "$TMP/delta-top5.csv"
run cube_stat -t all "$TMP/delta.cube"
cat >"$TMP/chk_delta.py" <<'EOF'
import csv, sys
top5 = list(csv.reader(open(sys.argv[1], newline="")))[1:]
top = list(csv.reader(open(sys.argv[2], newline="")))[1:]
time = {r["region"]: r for r in csv.DictReader(open(sys.argv[3], newline=""))}
visits = {r["region"]: r for r in csv.DictReader(open(sys.argv[4], newline=""))}
assert len(top5) == 5 and top5 == top[:5], (top5, top[:5])
# the visits cancel everywhere, so listing the visited regions lists none
assert all(float(r["exclusive"]) == 0 for r in visits.values())
changed = {n for n, r in time.items()
           if float(r["exclusive"]) != 0 or float(r["inclusive"]) != 0}
assert {r[0] for r in top} == changed and len(top) == len(changed), len(changed)
excl = [abs(float(r[2])) for r in top]
assert excl == sorted(excl, reverse=True), excl
assert min(float(r[2]) for r in top) < 0 < max(float(r[2]) for r in top)
for name, calls, ex, inc in top:
    assert float(calls) == 0
    assert float(ex) == float(time[name]["exclusive"])
    assert float(inc) == float(time[name]["inclusive"])
EOF
pycheck "cube_stat -t of a difference: every changed region, by |exclusive time|" \
    "$TMP/chk_delta.py" "$TMP/delta-top5.csv" "$TMP/out" "$TMP/delta-time.csv" "$TMP/delta-visits.csv"

# --- gzip, standard input, -o
gzip -9nc "$TRACE" >"$TMP/t.cube.gz"
run cube_stat -t 10 "$TMP/t.cube.gz"
expect_file_eq "$TMP/top.csv" "$TMP/out" "cube_stat reads gzip input"
"$BIN/cube_stat" -t 10 - <"$TMP/t.cube.gz" >"$TMP/out" 2>"$TMP/err"
expect_file_eq "$TMP/top.csv" "$TMP/out" "cube_stat reads '-' from standard input"
run cube_stat -t 10 -o "$TMP/o.csv" "$TRACE"
if [ "$rc" = 0 ] && [ ! -s "$TMP/out" ] && cmp -s "$TMP/top.csv" "$TMP/o.csv"; then
    ok "cube_stat -o writes the file"
else not_ok "cube_stat -o writes the file"; fi

# --- usage errors and bad input: exit 2
run cube_stat --help
expect_rc 0 "cube_stat --help exits 0"
expect_grep "usage: cube_stat" "$TMP/out" "cube_stat --help prints the usage"
run cube_stat --version
expect_grep "cube_stat (libcube) " "$TMP/out" "cube_stat --version"
run cube_stat -t 10 -r MAIN__ "$TRACE"
expect_rc 2 "cube_stat -t with -r exits 2"
expect_grep "^cube_stat: options -r and -t cannot be used together$" "$TMP/err" "cube_stat: -r and -t conflict"
run cube_stat -% -t 10 "$TRACE"
expect_rc 2 "cube_stat -t with -% exits 2"
expect_grep "^cube_stat: options -% and -t cannot be used together$" "$TMP/err" "cube_stat: -% and -t conflict"
run cube_stat -t 0 "$TRACE"
expect_rc 2 "cube_stat -t 0 exits 2"
run cube_stat -m nosuch "$TRACE"
expect_rc 2 "cube_stat -m with an unknown metric exits 2"
expect_text_eq "cube_stat: $TRACE: no metric 'nosuch' (cube_dump -w metrics lists them)" "$TMP/err" \
    "cube_stat names the unknown metric"
run cube_stat -r nosuch_ "$TRACE"
expect_rc 2 "cube_stat -r with an unknown routine exits 2"
expect_grep "^cube_stat: $TRACE: no call path calls a region named 'nosuch_'" "$TMP/err" \
    "cube_stat names the unknown routine"
run cube_stat
expect_rc 2 "cube_stat without a file exits 2"
run cube_stat -q "$TRACE"
expect_rc 2 "cube_stat with an unknown option exits 2"
run cube_stat testdata/no-such.cube
expect_rc 2 "cube_stat on a missing file exits 2"
expect_text_eq "cube_stat: testdata/no-such.cube: cannot open: No such file or directory" "$TMP/err" \
    "cube_stat names the missing file"
