# A CUBE 4 (.cubex) file, plain and gzip-compressed, given to every tool
# that reads experiments: exit status 2, one line that names the file and
# says what it is (not "not a CUBE file ... found text"), no output left.
. tests/cli/lib.sh
X=testdata/cubex/mkcubex_minimal.cubex
C=testdata/cube/scorep-1.1_profile.cube
gzip -c "$X" >"$TMP/x.cubex.gz"

# expect_cubex TOOL-AND-ARGS... : run, then check status and message for the
# file named in $cubex
expect_cubex() {
    run "$@"
    what="$* ($(basename "$cubex"))"
    expect_rc 2 "$what exits 2"
    printf '%s: %s: this is a %sCUBE 4 (.cubex) archive; CUBE 4 is not supported yet\n' \
        "$1" "$cubex" "$kind" >"$TMP/want"
    expect_file_eq "$TMP/want" "$TMP/err" "$what: one line naming the file and CUBE 4"
    if [ -s "$TMP/out" ]; then not_ok "$what: nothing on standard output"; else ok "$what: nothing on standard output"; fi
}

for cubex in "$X" "$TMP/x.cubex.gz"; do
    case $cubex in *.gz) kind="gzip-compressed " ;; *) kind="" ;; esac
    expect_cubex cube_info "$cubex"
    expect_cubex cube_dump "$cubex"
    expect_cubex cube_stat "$cubex"
    expect_cubex cube_clean -o "$TMP/clean.cube" "$cubex"
    expect_cubex cube_cmp "$C" "$cubex"
    expect_cubex cube_diff -o "$TMP/diff.cube" "$C" "$cubex"
    expect_cubex cube_mean -o "$TMP/mean.cube" "$cubex" "$C"
    expect_cubex cube_merge -o "$TMP/merge.cube" "$C" "$cubex"
    expect_cubex cube_statfile --from-cube "$cubex" -m time -o "$TMP/x.stat"
    for f in clean.cube diff.cube mean.cube merge.cube x.stat; do
        if [ -e "$TMP/$f" ]; then not_ok "no $f written from a CUBE 4 input"; else ok "no $f written from a CUBE 4 input"; fi
    done
done

# standard input is told apart the same way
cubex=-
kind=""
"$BIN/cube_info" - <"$X" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc 2 "cube_info - < a .cubex exits 2"
printf 'cube_info: -: this is a CUBE 4 (.cubex) archive; CUBE 4 is not supported yet\n' >"$TMP/want"
expect_file_eq "$TMP/want" "$TMP/err" "cube_info - < a .cubex: says CUBE 4"
