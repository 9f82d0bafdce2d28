# cube_info on the shipped real experiments: the human and JSON outputs are
# compared with expected files (whose metric totals were checked against an
# independent exact sum of the files' values), plus options and errors.
. tests/cli/lib.sh
EXP=tests/cli/expected

for f in testdata/cube/*.cube; do
    name=$(basename "$f" .cube)
    run cube_info "$f"
    expect_rc 0 "cube_info $name exits 0"
    expect_file_eq "$EXP/cube_info.$name.txt" "$TMP/out" "cube_info $name output"
    run cube_info --json "$f"
    expect_file_eq "$EXP/cube_info.$name.json" "$TMP/out" "cube_info --json $name output"
done

# the raw '&' file reads with exactly one warning naming the line
run cube_info testdata/cube/cubelib-test1.1_equal_raw-amp.cube
expect_text_eq "cube_info: warning: testdata/cube/cubelib-test1.1_equal_raw-amp.cube:1268: raw '&' is not well-formed XML; read as a literal '&' (1 in the file)" \
    "$TMP/err" "cube_info warns once about the raw '&', with its line"

# gzip and standard input give the same output as the plain file
gzip -9nc testdata/cube/tau2cube_template1.cube >"$TMP/t.cube.gz"
run cube_info --json "$TMP/t.cube.gz"
sed 's|"file":"[^"]*"|"file":"X"|' "$TMP/out" >"$TMP/gz.json"
sed 's|"file":"[^"]*"|"file":"X"|' "$EXP/cube_info.tau2cube_template1.json" >"$TMP/plain.json"
expect_file_eq "$TMP/plain.json" "$TMP/gz.json" "cube_info reads gzip input transparently"
"$BIN/cube_info" --json - <"$TMP/t.cube.gz" >"$TMP/out" 2>"$TMP/err"
sed 's|"file":"[^"]*"|"file":"X"|' "$TMP/out" >"$TMP/stdin.json"
expect_file_eq "$TMP/plain.json" "$TMP/stdin.json" "cube_info reads '-' from standard input"

# several files: one JSON object per line, valid JSON each
run cube_info --json testdata/cube/tau2cube_template1.cube testdata/cube/scorep-1.1_profile.cube
if [ "$(wc -l <"$TMP/out")" -eq 2 ] && python3 -c '
import json, sys
for line in open(sys.argv[1]): json.loads(line)' "$TMP/out" 2>/dev/null; then
    ok "cube_info --json on two files prints two JSON lines"
else
    not_ok "cube_info --json on two files prints two JSON lines"
fi

# usage and errors
run cube_info --help
expect_rc 0 "cube_info --help exits 0"
expect_grep "usage: cube_info" "$TMP/out" "cube_info --help prints the usage"
run cube_info --version
expect_grep "cube_info (libcube) " "$TMP/out" "cube_info --version"
run cube_info
expect_rc 2 "cube_info without a file exits 2"
run cube_info --frobnicate x
expect_rc 2 "cube_info with an unknown option exits 2"
expect_text_eq "cube_info: unknown option '--frobnicate'
usage: cube_info [--json] FILE...
Try 'cube_info --help' for more information." "$TMP/err" "cube_info names the unknown option once, without getopt's message"
run cube_info -jq x
expect_text_eq "cube_info: unknown option '-q'
usage: cube_info [--json] FILE...
Try 'cube_info --help' for more information." "$TMP/err" "cube_info names an unknown short option in a group"
run cube_info testdata/no-such.cube
expect_rc 2 "cube_info on a missing file exits 2"
expect_text_eq "cube_info: testdata/no-such.cube: cannot open: No such file or directory" \
    "$TMP/err" "cube_info names the missing file"
run cube_info testdata/no-such.cube testdata/cube/tau2cube_template1.cube
expect_rc 2 "cube_info goes on after a bad file, and still exits 2"
expect_grep "^file: testdata/cube/tau2cube_template1.cube" "$TMP/out" "cube_info prints the good file after a bad one"
# the empty line separates summaries: none before the first one printed
if [ "$(head -n 1 "$TMP/out")" = "file: testdata/cube/tau2cube_template1.cube" ]; then
    ok "cube_info prints no empty line before the first summary after a bad file"
else not_ok "cube_info prints no empty line before the first summary after a bad file"; fi
run cube_info testdata/cube/tau2cube_template1.cube testdata/no-such.cube testdata/cube/tau2cube_template1.cube
if [ "$(grep -c '^$' "$TMP/out")" = 1 ] && [ "$(grep -c '^file: ' "$TMP/out")" = 2 ]; then
    ok "cube_info separates two summaries by one empty line, a bad file between them"
else not_ok "cube_info separates two summaries by one empty line, a bad file between them"; fi

# a total whose sum overflows is infinite (not -nan; null in JSON)
sed 's/^2\.5$/1e308/; s/^3$/1e308/' testdata/reader/plain.cube >"$TMP/overflow.cube"
run cube_info "$TMP/overflow.cube"
expect_grep "^  time	Time	FLOAT	sec	inf$" "$TMP/out" "cube_info prints an overflowing total as inf"
run cube_info --json "$TMP/overflow.cube"
expect_grep '"uniq_name":"time",[^}]*"total":null}' "$TMP/out" "cube_info --json prints an overflowing total as null"
printf '<html><body/></html>\n' >"$TMP/bad.cube"
run cube_info "$TMP/bad.cube"
expect_text_eq "cube_info: $TMP/bad.cube:1: not a CUBE file: expected the root element <cube>, found <html>" \
    "$TMP/err" "cube_info rejects a non-CUBE XML file with file and line"

# a topology with one named dimension: only that one shows a name, in
# --json the others are ""
sed '2373s#<dim #<dim name="x" #; 2375s#periodic="false"#periodic="true"#' \
    testdata/cube/scalasca-bgpBT_experiment1.cube >"$TMP/named_dim.cube"
run cube_info "$TMP/named_dim.cube"
expect_grep "^  (unnamed): 16 (x) x 4 x 2 periodic, 128 thread coordinates$" "$TMP/out" \
    "cube_info names only the named dimension of a topology"
run cube_info --json "$TMP/named_dim.cube"
expect_grep '"dims":\[16,4,2\],"periodic":\[false,false,true\],"dim_names":\["x","",""\]' \
    "$TMP/out" "cube_info --json lists every dimension name when one is named"
