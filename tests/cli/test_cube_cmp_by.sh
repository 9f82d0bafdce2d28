# cube_cmp --by=LEVEL and --ignore-below=P on the shipped Score-P profile
# and Scalasca trace analysis of one run (the same call tree): the values
# and changes it reports against cube_dump's aggregated values of each
# experiment, the call paths it reports against those computed here from
# them, the table's columns, and the usage errors.
. tests/cli/lib.sh
PROFILE=testdata/cube/scorep-1.1_profile.cube
TRACE=testdata/cube/scalasca_trace.cube
KRIPKE=testdata/cubex/scorep-1.4_kripke-p8-d2-g32-r1_profile.cubex

for by in thread process node machine all; do
    run cube_cmp --by=$by "$PROFILE" "$PROFILE"
    expect_rc 0 "cube_cmp --by=$by of an experiment with itself exits 0"
    expect_text_eq "Experiments are equal." "$TMP/out" "cube_cmp --by=$by says equal"
done
run cube_cmp --by=machine "$KRIPKE" "$KRIPKE"
expect_rc 0 "cube_cmp --by=machine of a nested system tree with itself exits 0"

# --- every value line against cube_dump --by=LEVEL of both experiments;
# the call paths reported are those whose values differ and, with
# --ignore-below=P, whose value over all threads is at least P percent of
# time's total in A or in B
cat >"$TMP/chk_cmp.py" <<'EOF'
import csv, io, math, subprocess, sys
cmp_, dump, a, b, by, pct = sys.argv[1:7]
def dumped(f, level):
    out = subprocess.run([dump, "-m", "time", "--by=" + level, f], capture_output=True,
                         text=True, check=True).stdout
    key = {"process": "process", "node": "node", "machine": "machine", "all": None}[level]
    return {(r["call_path"], r[key] if key else "all"): float(r["value"])
            for r in csv.DictReader(io.StringIO(out))}
va, vb = dumped(a, by), dumped(b, by)
agg_a, agg_b = dumped(a, "all"), dumped(b, "all")
tot_a, tot_b = math.fsum(agg_a.values()), math.fsum(agg_b.values())
args = [cmp_, "-n", "0", "--metric=time", "--by=" + by]
if pct:
    args.append("--ignore-below=" + pct)
p = subprocess.run(args + [a, b], capture_output=True, text=True)
assert p.returncode == 1, p.returncode
lines = p.stdout.splitlines()
head = {"process": "process rank", "node": "node", "machine": "machine", "all": "threads"}[by]
assert lines[1] == "what\tmetric\tcall path\t%s\tA\tB\tB-A" % head, lines[1]
got = {}
for line in lines[2:]:
    f = line.split("\t")
    assert len(f) == 7 and f[0] == "value" and f[1] == "time", f
    got[(f[2], f[3])] = (float(f[4]), float(f[5]), float(f[6]))
def close(x, y):
    return abs(x - y) <= 1e-12 * max(abs(x), abs(y), 1e-300)
def agree(x, y):   # cube_cmp's default tolerances
    return x == y or abs(x - y) <= max(2 * sys.float_info.epsilon * max(abs(x), abs(y)),
                                       sys.float_info.min)
want = set()
for k in va:
    x, y = va[k], vb.get(k, 0.0)
    if pct:
        path = k[0]
        if (abs(agg_a[path, "all"]) < float(pct) / 100 * abs(tot_a) and
                abs(agg_b.get((path, "all"), 0.0)) < float(pct) / 100 * abs(tot_b)):
            continue
    if not agree(x, y):
        want.add(k)
assert set(got) == want, (sorted(set(got) ^ want)[:5], len(got), len(want))
for k, (x, y, d) in got.items():
    assert close(x, va[k]) and close(y, vb[k]), (k, x, va[k], y, vb[k])
    assert d == y - x, (k, d, y - x)
assert lines[0] == "Experiments are not equal: %d difference%s." % (
    len(got), "" if len(got) == 1 else "s"), lines[0]
print(len(got), "differences")
EOF
for spec in "process:" "node:" "machine:" "all:" "all:1" "process:5" "all:0.01"; do
    by=${spec%%:*}
    pct=${spec#*:}
    pycheck "cube_cmp --by=$by${pct:+ --ignore-below=$pct}: the values of cube_dump --by=$by, the call paths computed here" \
        "$TMP/chk_cmp.py" "$BIN/cube_cmp" "$BIN/cube_dump" "$PROFILE" "$TRACE" "$by" "$pct"
done

# --- per thread, --ignore-below keeps today's table and leaves out the
# small call paths' lines
run cube_cmp -n 0 --metric=time "$PROFILE" "$TRACE"
all=$(grep -c '^value' "$TMP/out")
run cube_cmp -n 0 --metric=time --by=all --ignore-below=5 "$PROFILE" "$TRACE"
cut -f 3 "$TMP/out" | sed 1,2d | sort -u >"$TMP/paths.all"
run cube_cmp -n 0 --metric=time --ignore-below=5 "$PROFILE" "$TRACE"
expect_rc 1 "cube_cmp --ignore-below=5 still finds differences"
expect_grep "^what	metric	call path	process rank	thread rank	A	B$" "$TMP/out" \
    "cube_cmp --ignore-below per thread keeps the table's columns"
few=$(grep -c '^value' "$TMP/out")
cut -f 3 "$TMP/out" | sed 1,2d | sort -u >"$TMP/paths"
if [ "$few" -gt 0 ] && [ "$few" -lt "$all" ] && [ -s "$TMP/paths" ] &&
    cmp -s "$TMP/paths" "$TMP/paths.all"; then
    ok "cube_cmp --ignore-below=5: $few of $all differences, on the call paths of --by=all"
else not_ok "cube_cmp --ignore-below=5: $few of $all differences, $(wc -l <"$TMP/paths") call paths"; fi
run cube_cmp -q --metric=time --ignore-below=100 "$PROFILE" "$TRACE"
expect_rc 0 "cube_cmp --ignore-below=100 ignores every value difference"

# --- usage errors: exit 2, one line naming the option
for bad in "--by=rack:--by takes thread, process, node, machine or all, not 'rack'" \
    "--ignore-below=-1:--ignore-below takes a percentage from 0 to 100, not '-1'" \
    "--ignore-below=x:--ignore-below takes a percentage from 0 to 100, not 'x'"; do
    opt=${bad%%:*}
    run cube_cmp "$opt" "$PROFILE" "$PROFILE"
    expect_rc 2 "cube_cmp $opt exits 2"
    head -n 1 "$TMP/err" >"$TMP/err.first"
    expect_text_eq "cube_cmp: ${bad#*:}" "$TMP/err.first" "cube_cmp $opt: one line saying what it takes"
done
