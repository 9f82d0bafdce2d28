# cube_cut: re-rooting and pruning real CUBE 3 and CUBE 4 experiments,
# checked against an independent computation (cut_ref.py) from the
# input's call tree and inclusive values: the output keeps exactly the
# call paths it must, and each keeps its inclusive value of every metric
# (to the last bit for integer metrics, maxima and minima).
. tests/cli/lib.sh

CUBE3=testdata/cube/scalasca-bgpBT_experiment1.cube
CUBE4=testdata/cubex/scorep-9.0dev_time-p4-n2000-x1-r0_profile.cubex

# dumps IN OUT DIR: what cut_ref.py reads
dumps() {
    mkdir -p "$3"
    "$BIN/cube_dump" -w calltree "$1" >"$3/in.tree" 2>/dev/null &&
        "$BIN/cube_dump" -w metrics "$1" >"$3/in.metrics" 2>/dev/null &&
        "$BIN/cube_dump" -t aggr -z incl "$1" >"$3/in.incl" 2>/dev/null &&
        "$BIN/cube_dump" -w calltree "$2" >"$3/out.tree" &&
        "$BIN/cube_dump" -t aggr -z incl "$2" >"$3/out.incl" &&
        "$BIN/cube_dump" -t aggr -z excl "$2" >"$3/out.excl"
}

# check NAME INPUT MODE OUTPUT PATTERN... (the options given to cube_cut
# after INPUT, -o OUTPUT added)
check() {
    name=$1 in=$2 mode=$3 out=$4
    shift 4
    opt=-r
    [ "$mode" = prune ] && opt=-p
    n=$#
    for p in "$@"; do set -- "$@" "$opt" "$p"; done
    shift "$n"
    run cube_cut "$@" -o "$TMP/$out" "$in"
    expect_rc 0 "cube_cut $name: exit 0"
    dumps "$in" "$TMP/$out" "$TMP/$name"
    pycheck "cube_cut $name: the kept call paths and their inclusive values are the input's" \
        tests/cli/cut_ref.py cut "$TMP/$name" "$mode" "$@"
}

# CUBE 3: two roots of one name, and a regular expression
check "3-reroot" "$CUBE3" reroot r3.cube MPI_Bcast '/^exact_rhs$/'
# nested matches: the outermost is the root, the inner stays inside
check "3-reroot-nested" "$CUBE3" reroot r3n.cube bt '/^!\$omp parallel/'
check "3-prune" "$CUBE3" prune p3.cube initialize '/^exch_qbc$/' '/^!\$omp do @x_solve/'
# nested prune: below a pruned call path another match is folded too
check "3-prune-nested" "$CUBE3" prune p3n.cube '/^!\$omp parallel/' '/^!\$omp do/'
# CUBE 4: time stored call-tree inclusive, UINT64 visits, MINDOUBLE and
# MAXDOUBLE metrics; output CUBE 4
check "4-reroot" "$CUBE4" reroot r4.cubex MPI_Bcast '/^MPI_Send$/'
check "4-prune" "$CUBE4" prune p4.cubex '/^void bg::function::F_/' MPI_Init
# CUBE 4 to CUBE 3: the metric stored inclusive is written exclusive
check "4-prune-to-cube3" "$CUBE4" prune p43.cube 'MODEL_1(unsigned long, unsigned long, int, int)'

# every value type of CUBE 4: integers, RATE, TAU_ATOMIC, NDOUBLES and
# COMPLEX fold exactly by their components; HISTOGRAM and SCALE_FUNC
# cannot, which one warning each says
check "4-every-type" testdata/cubex/cubelib-4.8.2_cube-values_example.cubex prune types.cubex main
grep -c "warning: metric '[A-Z_0-9]*': its .* values cannot be combined exactly" "$TMP/err" \
    >"$TMP/types.warnings"
expect_text_eq "2" "$TMP/types.warnings" "cube_cut: one warning each for HISTOGRAM and SCALE_FUNC"
# UINT64 counters stored call-tree inclusive, some exclusive values negative
check "4-hw-counters" testdata/cubex/scorep-7.0_hw_counter_L3_DCA_negative.cubex prune hw.cubex \
    '/SteadyStateSolver/' MPI_Init

# both at once: re-rooted first, then pruned inside
run cube_cut -r 'MODEL_1(unsigned long, unsigned long, int, int)' -p '/^void bg::function::F_8/' \
    -o "$TMP/rp.cubex" "$CUBE4"
expect_rc 0 "cube_cut -r and -p together: exit 0"
"$BIN/cube_dump" -w calltree "$TMP/rp.cubex" | awk -F, 'NR > 1 { n++ } NR > 1 && $3 == 0 { r++ }
    END { print n, r }' >"$TMP/rp.count"
expect_text_eq "36 1" "$TMP/rp.count" "cube_cut -r MODEL_1 -p F_8: one root, 40 call paths less F_8's 4 callees"

# everything else is kept: metrics, system tree, topologies, attributes
for what in metrics systemtree topologies attributes mirrors; do
    # the CUBE 3 writer numbers metric ids densely: compare without them
    "$BIN/cube_dump" -w "$what" "$CUBE3" 2>/dev/null | cut -d, -f3- >"$TMP/in.$what"
    "$BIN/cube_dump" -w "$what" "$TMP/p3.cube" | cut -d, -f3- >"$TMP/out.$what"
    expect_file_eq "$TMP/in.$what" "$TMP/out.$what" "cube_cut keeps the $what"
done

# the default output is cut.cube / cut.cubex, written atomically
mkdir -p "$TMP/cwd"
(cd "$TMP/cwd" && "$OLDPWD/$BIN/cube_cut" -p MPI_Init "$OLDPWD/$CUBE4" 2>/dev/null &&
    "$OLDPWD/$BIN/cube_cut" -c -C -p initialize "$OLDPWD/$CUBE3")
rc=$?
expect_rc 0 "cube_cut without -o (and CubeLib's -c, -C): exit 0"
if [ -f "$TMP/cwd/cut.cubex" ] && [ -f "$TMP/cwd/cut.cube" ] &&
    [ "$(ls "$TMP/cwd" | wc -l)" = 2 ]; then ok "cube_cut writes cut.cubex or cut.cube, no temporary file left"
else not_ok "cube_cut default outputs: $(ls "$TMP/cwd" | tr '\n' ' ')"; fi

# standard input and output
run cube_cut -r MPI_Bcast -o - - <"$CUBE3"
expect_rc 0 "cube_cut - -o -: exit 0"
"$BIN/cube_dump" -w calltree - <"$TMP/out" | awk -F, 'NR > 1 && $2 == "" { n++ } END { print n }' \
    >"$TMP/stdio.roots"
expect_text_eq "2" "$TMP/stdio.roots" "cube_cut -r MPI_Bcast from stdin to stdout: two roots"

# bad input and options: exit 2, one line naming the problem
bad() {
    desc=$1
    shift
    run cube_cut "$@"
    expect_rc 2 "cube_cut $desc: exit 2"
    if [ -s "$TMP/err" ] && head -1 "$TMP/err" | grep -q "^cube_cut: "; then
        ok "cube_cut $desc: says why"
    else not_ok "cube_cut $desc: no message"; fi
    if [ -e "$TMP/bad.cube" ]; then not_ok "cube_cut $desc: wrote an output"; rm -f "$TMP/bad.cube"
    else ok "cube_cut $desc: writes nothing"; fi
}
bad "a name no region has" -r no_such_region -o "$TMP/bad.cube" "$CUBE3"
bad "a prune name no region has" -p no_such_region -o "$TMP/bad.cube" "$CUBE3"
bad "a regex nothing matches" -r '/^zzz/' -o "$TMP/bad.cube" "$CUBE3"
bad "a bad regex" -r '/[/' -o "$TMP/bad.cube" "$CUBE3"
bad "one name both re-rooted and pruned" -r bt -p bt -o "$TMP/bad.cube" "$CUBE3"
bad "neither -r nor -p" -o "$TMP/bad.cube" "$CUBE3"
bad "two inputs" -r bt -o "$TMP/bad.cube" "$CUBE3" "$CUBE3"
bad "CUBE 3's -f (filter files)" -f filter.txt -r bt -o "$TMP/bad.cube" "$CUBE3"
bad "a missing input" -r bt -o "$TMP/bad.cube" "$TMP/no-such.cube"
printf '<cube version="3.0"><behavior>' >"$TMP/broken.cube"
bad "a truncated input" -r bt -o "$TMP/bad.cube" "$TMP/broken.cube"
head -1 "$TMP/err" >"$TMP/err1"
expect_grep "broken.cube" "$TMP/err1" "cube_cut names the bad input file"
