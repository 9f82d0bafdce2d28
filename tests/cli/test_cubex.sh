# CUBE 4 (.cubex) files given to the tools: every test archive read by
# cube_dump, cube_info and cube_stat (a metric and the root call path in
# the output), the same output from standard input and from the archive
# gzip-compressed; the algebra on archives; a damaged archive refused with
# exit status 2 and one line naming the file, the member and the byte.
. tests/cli/lib.sh
D=testdata/cubex

# file, a metric with stored values, the name of the first root call path
# (a prefix of it for the long TAU names)
cat >"$TMP/files" <<'EOF'
mkcubex_minimal visits main
cubelib-4.8.2_cube-values_example INT8 main
scorep-9.0dev_time-p4-n2000-x1-r0_profile visits bg_time
scorep-1.4_kripke-p8-d2-g32-r1_profile visits PARALLEL
scorep-9.4_cubew-4.8-checksum-bug_bt-mz_sum-p2-r1 visits bt-mz_B.x
scorep-7.0_hw_counter_L3_DCA_negative visits kripke.exe
scorep-8.4_call_tree_test visits test.x
cube3to4_scorep-1.1_profile visits MAIN__
cube3to4_tau2cube_template1 BGP BC_FLUX
cube3to4_cubelib-test1.1_equal_raw-amp 0Time main
cube3to4_scalasca-bgpBT_experiment1 time bt
cubederive_scorep-1.1_profile visits MAIN__
EOF

n=$(ls "$D"/*.cubex | wc -l)
if [ "$(wc -l <"$TMP/files")" -eq "$n" ]; then ok "every archive of $D is listed"; else not_ok "every archive of $D is listed ($n archives)"; fi

while read -r name metric root; do
    x="$D/$name.cubex"
    gzip -c "$x" >"$TMP/x.cubex.gz"
    # cube_dump: rows of the metric, the root's call path
    run cube_dump -m "$metric" "$x"
    expect_rc 0 "cube_dump $name exits 0"
    cp "$TMP/out" "$TMP/dump"
    expect_grep "^$metric,[0-9]*,\"\\?$root" "$TMP/dump" "cube_dump $name: rows of $metric at $root"
    # cube_info: the metric in the metric tree, the source format
    run cube_info "$x"
    expect_rc 0 "cube_info $name exits 0"
    cp "$TMP/out" "$TMP/info"
    expect_grep "^  $metric	" "$TMP/info" "cube_info $name: metric $metric"
    # cube_stat: the metric's profile below the root
    run cube_stat -m "$metric" "$x"
    expect_rc 0 "cube_stat $name exits 0"
    cp "$TMP/out" "$TMP/stat"
    head -1 "$TMP/stat" >"$TMP/stat.head"
    expect_text_eq "Routine,$metric" "$TMP/stat.head" "cube_stat $name: the $metric column"
    expect_grep "INCL($root" "$TMP/stat" "cube_stat $name: the root $root"
    # the same from a pipe on standard input, and gzip-compressed
    for tool in cube_dump cube_info cube_stat; do
        case $tool in
        cube_dump) args="-m $metric" want=$TMP/dump ;;
        cube_info) args="" want=$TMP/info ;;
        cube_stat) args="-m $metric" want=$TMP/stat ;;
        esac
        # shellcheck disable=SC2086
        cat "$x" | "$BIN/$tool" $args - >"$TMP/pipe" 2>"$TMP/err"
        rc=$?
        expect_rc 0 "$tool $name from a pipe exits 0"
        # cube_info names its input
        sed "s|^file: -\$|file: $x|" "$TMP/pipe" >"$TMP/pipe.named"
        expect_file_eq "$want" "$TMP/pipe.named" "$tool $name from a pipe: the same output"
        # shellcheck disable=SC2086
        run $tool $args "$TMP/x.cubex.gz"
        expect_rc 0 "$tool $name gzip-compressed exits 0"
        sed "s|^file: $TMP/x.cubex.gz\$|file: $x|" "$TMP/out" >"$TMP/gz.named"
        expect_file_eq "$want" "$TMP/gz.named" "$tool $name gzip-compressed: the same output"
    done
done <"$TMP/files"

# standard input redirected from the file (read in place)
"$BIN/cube_dump" - <"$D/cubelib-4.8.2_cube-values_example.cubex" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc 0 "cube_dump - < an archive exits 0"
"$BIN/cube_dump" "$D/cubelib-4.8.2_cube-values_example.cubex" >"$TMP/want"
expect_file_eq "$TMP/want" "$TMP/out" "cube_dump - < an archive: the same output"

# the algebra reads archives row by row
x=$D/scorep-9.0dev_time-p4-n2000-x1-r0_profile.cubex
run cube_cmp "$x" "$x"
expect_rc 0 "cube_cmp of an archive with itself exits 0"
expect_grep "equal" "$TMP/out" "cube_cmp of an archive with itself: equal"
run cube_mean -o "$TMP/mean.cube" "$x" "$x"
expect_rc 0 "cube_mean of an archive twice exits 0"
run cube_cmp "$x" "$TMP/mean.cube"
expect_rc 0 "the mean of an archive with itself equals the archive"

# damaged archives: one line "TOOL: FILE: member NAME: byte N: ...", exit 2
m=$D/mkcubex_minimal.cubex
head -c 9000 "$m" >"$TMP/cut.cubex"
cp "$m" "$TMP/index.cubex"
# the first index member (0.index) starts at byte 1536: break its marker
printf 'XXXX' | dd of="$TMP/index.cubex" bs=1 seek=1536 conv=notrunc 2>/dev/null
for tool in cube_dump cube_info cube_stat; do
    run $tool "$TMP/cut.cubex"
    expect_rc 2 "$tool of a truncated archive exits 2"
    printf '%s: %s: member anchor.xml: byte 6268: expected a size of at most 2344 bytes (the rest of the archive), found 3370\n' \
        "$tool" "$TMP/cut.cubex" >"$TMP/want"
    expect_file_eq "$TMP/want" "$TMP/err" "$tool of a truncated archive: one line with file, member and byte"
    case $tool in cube_info) opt="" ;; *) opt="-m visits" ;; esac
    # shellcheck disable=SC2086
    run $tool $opt "$TMP/index.cubex"
    expect_rc 2 "$tool of an archive with a corrupt index exits 2"
    printf '%s: %s: member 0.index: byte 1536: expected "CUBEX.INDEX"\n' "$tool" "$TMP/index.cubex" >"$TMP/want"
    expect_file_eq "$TMP/want" "$TMP/err" "$tool of a corrupt index: one line with file, member and byte"
    if [ -s "$TMP/out" ]; then not_ok "$tool of a corrupt index: nothing on standard output"; else ok "$tool of a corrupt index: nothing on standard output"; fi
done
# a metric not asked for is not read: its broken index goes unnoticed
run cube_stat -m time "$TMP/index.cubex"
expect_rc 0 "cube_stat -m time does not read the broken index of visits"
expect_grep "INCL(main),21" "$TMP/out" "cube_stat -m time of the archive with a broken index of visits"
head -c 9000 "$m" | "$BIN/cube_info" - >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc 2 "cube_info - of a truncated archive on a pipe exits 2"
printf 'cube_info: -: member anchor.xml: byte 6268: expected a size of at most 2344 bytes (the rest of the archive), found 3370\n' >"$TMP/want"
expect_file_eq "$TMP/want" "$TMP/err" "cube_info - of a truncated archive: one line with member and byte"
