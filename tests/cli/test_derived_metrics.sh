# Derived metrics (CUBE 4 kinds PREDERIVED_EXCLUSIVE, PREDERIVED_INCLUSIVE,
# POSTDERIVED) have a CubePL expression and no stored values; libcube does
# not evaluate them.  The tools list them but never show values for them,
# and never zeros: cube_dump leaves them out of 'all' and refuses one named
# with -m, cube_info prints "derived" (JSON: null), cube_statfile
# leaves them out of 'all'.
. tests/cli/lib.sh
F=testdata/cubex/cubederive_scorep-1.1_profile.cubex
DERIVED="time_per_visit visits_x2_incl bytes_total"

run cube_info "$F"
expect_rc 0 "cube_info on a file with derived metrics exits 0"
for m in $DERIVED; do
    expect_grep "^ *$m	.*	derived\$" "$TMP/out" "cube_info: derived $m: marked derived, no total"
done
expect_grep "^ *time	Time	.*	[0-9]" "$TMP/out" "cube_info: time has its total"
run cube_info --json "$F"
pycheck "cube_info --json: derived metrics have a null total, the others a number" - "$TMP/out" <<'EOF'
import json, sys
derived = {"time_per_visit", "visits_x2_incl", "bytes_total"}
doc = json.load(open(sys.argv[1]))
for m in doc["metrics"]:
    name = m.get("uniq_name") or m.get("name")
    if name in derived:
        assert m["total"] is None, m
    else:
        assert isinstance(m["total"], (int, float)), m
EOF

run cube_dump -t aggr -s csv "$F"
expect_rc 0 "cube_dump -m all on a file with derived metrics exits 0"
expect_grep "^time,0," "$TMP/out" "cube_dump -m all shows the stored metric time"
cp "$TMP/out" "$TMP/all.csv"
for m in $DERIVED; do
    if [ ! -s "$TMP/all.csv" ] || grep -q "^$m," "$TMP/all.csv"; then
        not_ok "cube_dump -m all shows no values of the derived metric $m"
    else
        ok "cube_dump -m all shows no values of the derived metric $m"
    fi
    run cube_dump -m "$m" "$F"
    expect_rc 2 "cube_dump -m $m (derived) exits 2"
    expect_grep "^cube_dump: $F: metric '$m' is derived: its values are not computed\$" \
        "$TMP/err" "cube_dump -m $m says that its values are not computed"
done

run cube_statfile --from-cube "$F" -m all -o "$TMP/all.stat"
expect_rc 0 "cube_statfile --from-cube -m all on a file with derived metrics exits 0"
for m in $DERIVED; do
    if [ ! -s "$TMP/all.stat" ] || grep -q "$m" "$TMP/all.stat"; then
        not_ok "cube_statfile -m all has no pattern for the derived metric $m"
    else
        ok "cube_statfile -m all has no pattern for the derived metric $m"
    fi
done
expect_grep "time" "$TMP/all.stat" "cube_statfile -m all has a pattern for time"
