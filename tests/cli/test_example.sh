# The CUBE3 manual's writer example, translated to C and linked against
# libcube, writes an experiment that reads back as the manual describes.
. tests/cli/lib.sh
EXAMPLE=$(dirname "$BIN")/examples/cube_example

if "$EXAMPLE" "$TMP/example.cube"; then ok "the manual's example program runs"; else
    not_ok "the manual's example program runs"; fi
run cube_info "$TMP/example.cube"
expect_rc 0 "its output reads"
expect_grep "^  Uniq_name1	Time	FLOAT	sec	24$" "$TMP/out" "Time totals 4 x 3 call paths x 2 threads"
expect_grep "^    Uniq_name2	User time	FLOAT	sec	18$" "$TMP/out" "User time totals 18"
expect_grep "^  (unnamed): 5 periodic x 5, 2 thread coordinates$" "$TMP/out" "the 5x5 topology is there"
if xmllint --noout "$TMP/example.cube" 2>/dev/null; then ok "the example's file is well-formed XML"; else
    not_ok "the example's file is well-formed XML"; fi
