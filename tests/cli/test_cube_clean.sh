# cube_clean: canonical output that reads back to the same experiment, gzip,
# stdout, --prune, and never a partial output.
. tests/cli/lib.sh

same_json() { # A B: cube_info --json of both agree apart from the file name
    "$BIN/cube_info" --json "$1" 2>/dev/null | sed 's|"file":"[^"]*"||; s|"warnings":\[[^]]*\]||; s|"id":[0-9]*,||g' >"$TMP/a.json"
    "$BIN/cube_info" --json "$2" 2>/dev/null | sed 's|"file":"[^"]*"||; s|"warnings":\[[^]]*\]||; s|"id":[0-9]*,||g' >"$TMP/b.json"
    cmp -s "$TMP/a.json" "$TMP/b.json"
}

for f in testdata/cube/*.cube; do
    name=$(basename "$f" .cube)
    run cube_clean -o "$TMP/$name.cube" "$f"
    expect_rc 0 "cube_clean $name exits 0"
    if same_json "$f" "$TMP/$name.cube"; then ok "cube_clean $name keeps the experiment"; else
        not_ok "cube_clean $name keeps the experiment"; fi
    if xmllint --noout "$TMP/$name.cube" 2>/dev/null; then ok "cube_clean $name writes well-formed XML"
    else not_ok "cube_clean $name writes well-formed XML"; fi
    run cube_clean -o "$TMP/$name.2.cube" "$TMP/$name.cube"
    expect_file_eq "$TMP/$name.cube" "$TMP/$name.2.cube" "cube_clean $name is idempotent (same bytes)"
done

# the raw '&' comes back escaped
if grep -q 'parallel &quot; &lt; --&amp;--&apos; &amp; ggg&gt;' "$TMP/cubelib-test1.1_equal_raw-amp.cube"; then
    ok "cube_clean writes the raw '&' back well-formed"
else not_ok "cube_clean writes the raw '&' back well-formed"; fi

# default output name, in the current directory
(cd "$TMP" && "$OLDPWD/$BIN/cube_clean" "$OLDPWD/testdata/cube/tau2cube_template1.cube" 2>/dev/null)
if [ -f "$TMP/clean.cube" ]; then ok "cube_clean writes clean.cube by default"; else
    not_ok "cube_clean writes clean.cube by default"; fi

# gzip by suffix and by -z; stdout
run cube_clean -o "$TMP/z.cube.gz" testdata/cube/tau2cube_template1.cube
if [ "$(head -c2 "$TMP/z.cube.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
    ok "cube_clean -o X.gz writes gzip"; else not_ok "cube_clean -o X.gz writes gzip"; fi
run cube_clean -z -o "$TMP/z.cube" testdata/cube/tau2cube_template1.cube
if gzip -t <"$TMP/z.cube" 2>/dev/null; then ok "cube_clean -z writes gzip"; else
    not_ok "cube_clean -z writes gzip"; fi
if same_json testdata/cube/tau2cube_template1.cube "$TMP/z.cube"; then ok "gzip output reads back the same"
else not_ok "gzip output reads back the same"; fi
run cube_clean -o - testdata/cube/tau2cube_template1.cube
expect_file_eq "$TMP/tau2cube_template1.cube" "$TMP/out" "cube_clean -o - writes to standard output"
"$BIN/cube_clean" -o "$TMP/stdin.cube" - <testdata/cube/tau2cube_template1.cube
expect_file_eq "$TMP/tau2cube_template1.cube" "$TMP/stdin.cube" "cube_clean reads '-' from standard input"

# --prune drops unreferenced regions: the Score-P profile defines 326 regions,
# of which its 130 call paths call 107 (grep -o 'calleeId="[0-9]*"' | sort -u)
run cube_clean --prune -o "$TMP/pruned.cube" testdata/cube/scorep-1.1_profile.cube
"$BIN/cube_info" --json "$TMP/pruned.cube" >"$TMP/pruned.json"
expect_grep '"regions":107,' "$TMP/pruned.json" "cube_clean --prune keeps only the regions call paths use"
# (400 rows with values and the 130 all-zero rows of min_time, zeros that
# are values of a minimum)
expect_grep '"rows":530}' "$TMP/pruned.json" "cube_clean --prune keeps every row"

# bad input: exit 2, a message naming the place, and no output file
printf '<?xml version="1.0"?>\n<cube version="3.0">\n<metrics>\n' >"$TMP/truncated.cube"
run cube_clean -o "$TMP/never.cube" "$TMP/truncated.cube"
expect_rc 2 "cube_clean on a truncated file exits 2"
expect_text_eq "cube_clean: $TMP/truncated.cube:3: unexpected end of file: expected </metrics> (the file is truncated)" "$TMP/err" "cube_clean names the file and line of the truncation"
if [ ! -e "$TMP/never.cube" ] && [ -z "$(ls "$TMP" | grep 'never.cube.tmp')" ]; then
    ok "cube_clean leaves no output after bad input"; else not_ok "cube_clean leaves no output after bad input"; fi

# an existing output survives a failed run untouched
echo precious >"$TMP/keep.cube"
run cube_clean -o "$TMP/keep.cube" "$TMP/truncated.cube"
expect_text_eq "precious" "$TMP/keep.cube" "cube_clean never destroys an existing output on error"

# an output that cannot be written
run cube_clean -o /nonexistent-dir/x.cube testdata/cube/tau2cube_template1.cube
expect_rc 2 "cube_clean to an unwritable place exits 2"
expect_grep "/nonexistent-dir/x.cube: cannot create the output" "$TMP/err" "cube_clean names the output it cannot create"

run cube_clean a.cube b.cube
expect_rc 2 "cube_clean with two inputs is a usage error"

# bad options: one message of our own (not getopt's, with the program path),
# the usage line and the pointer to --help, exit 2
usage_lines="usage: cube_clean [-o OUT] [--format=cube3|cube4] [-z] [--prune] FILE
Try 'cube_clean --help' for more information."
run cube_clean -x a.cube
expect_rc 2 "cube_clean -x exits 2"
expect_text_eq "cube_clean: unknown option '-x'
$usage_lines" "$TMP/err" "cube_clean -x says: unknown option '-x'"
run cube_clean a.cube -o
expect_rc 2 "cube_clean -o without its argument exits 2"
expect_text_eq "cube_clean: option '-o' needs an argument
$usage_lines" "$TMP/err" "cube_clean -o without its argument says so"
run cube_clean a.cube --output
expect_text_eq "cube_clean: option '--output' needs an argument
$usage_lines" "$TMP/err" "cube_clean --output without its argument says so"
run cube_clean --frobnicate=1 a.cube
expect_text_eq "cube_clean: unknown option '--frobnicate=1'
$usage_lines" "$TMP/err" "cube_clean names an unknown long option as given"
run cube_clean --prune=yes a.cube
expect_text_eq "cube_clean: option '--prune' doesn't allow an argument
$usage_lines" "$TMP/err" "cube_clean --prune=yes says the option takes no argument"
run cube_clean --help
expect_rc 0 "cube_clean --help exits 0"
