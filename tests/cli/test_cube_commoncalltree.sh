# cube_commoncalltree: real CUBE 3 and CUBE 4 experiments reduced to their
# common call tree, checked against an independent computation
# (cut_ref.py common): each output keeps exactly the call paths both
# inputs have, in its input's order, each with its input inclusive value
# of every metric; the outputs' call trees are the same, so that the
# algebra lines them up one to one.
. tests/cli/lib.sh

RAW=testdata/cube/cubelib-test1.1_equal_raw-amp.cube
KOJAK=testdata/cube/kojak-expert_ctest-pomp.cube
RAW4=testdata/cubex/cube3to4_cubelib-test1.1_equal_raw-amp.cubex
PROF4=testdata/cubex/scorep-9.0dev_time-p4-n2000-x1-r0_profile.cubex

# check NAME DIR OUTPUT INPUT OTHER: OUTPUT is INPUT reduced to the paths
# it shares with OTHER (names from the root: --match=name)
check() {
    d="$TMP/$1"
    mkdir -p "$d"
    "$BIN/cube_dump" -w calltree "$4" >"$d/in.tree" 2>/dev/null &&
        "$BIN/cube_dump" -w metrics "$4" >"$d/in.metrics" 2>/dev/null &&
        "$BIN/cube_dump" -t aggr -z incl "$4" >"$d/in.incl" 2>/dev/null &&
        "$BIN/cube_dump" -w calltree "$5" >"$d/other.tree" 2>/dev/null &&
        "$BIN/cube_dump" -w calltree "$2/$3" >"$d/out.tree" &&
        "$BIN/cube_dump" -t aggr -z incl "$2/$3" >"$d/out.incl"
    pycheck "cube_commoncalltree $1: the common call paths, each with its input inclusive values" \
        tests/cli/cut_ref.py common "$d"
    # everything but the call tree is kept; the CUBE 3 writer numbers
    # metric ids densely, so a .cube output is compared without the ids,
    # and the file's format version is the writer's, not the input's
    case $3 in
    *.cubex) keep=1- ;;
    *) keep=3- ;;
    esac
    for what in metrics systemtree topologies attributes mirrors; do
        "$BIN/cube_dump" -w "$what" "$4" 2>/dev/null | grep -v '^version,[^,]*,file,$' |
            cut -d, -f$keep >"$d/in.$what"
        "$BIN/cube_dump" -w "$what" "$2/$3" | grep -v '^version,[^,]*,file,$' |
            cut -d, -f$keep >"$d/out.$what"
        expect_file_eq "$d/in.$what" "$d/out.$what" "cube_commoncalltree $1 keeps the $what"
    done
}

# expect_paths N FILE DESCRIPTION: FILE's call tree has N call paths
expect_paths() {
    n=$(($("$BIN/cube_dump" -w calltree "$2" | wc -l) - 1))
    if [ "$n" = "$1" ]; then ok "$3: $1 call paths"
    else not_ok "$3: $n call paths, expected $1"; fi
}

# two CUBE 3 experiments of one program by different tools (21 call
# paths each, 7 in common), written into -d DIR
mkdir -p "$TMP/o1"
run cube_commoncalltree --match=name -d "$TMP/o1" "$RAW" "$KOJAK"
expect_rc 0 "cube_commoncalltree --match=name raw-amp kojak: exit 0"
ls "$TMP/o1" >"$TMP/o1.ls"
expect_text_eq "cubelib-test1.1_equal_raw-amp_commoncalltree.cube
kojak-expert_ctest-pomp_commoncalltree.cube" "$TMP/o1.ls" \
    "cube_commoncalltree writes NAME_commoncalltree.cube per input into DIR, nothing else"
check raw "$TMP/o1" cubelib-test1.1_equal_raw-amp_commoncalltree.cube "$RAW" "$KOJAK"
check kojak "$TMP/o1" kojak-expert_ctest-pomp_commoncalltree.cube "$KOJAK" "$RAW"
"$BIN/cube_dump" -w calltree "$TMP/o1/cubelib-test1.1_equal_raw-amp_commoncalltree.cube" |
    cut -d, -f2,3,5,6 >"$TMP/t1"
"$BIN/cube_dump" -w calltree "$TMP/o1/kojak-expert_ctest-pomp_commoncalltree.cube" |
    cut -d, -f2,3,5,6 >"$TMP/t2"
expect_file_eq "$TMP/t1" "$TMP/t2" "cube_commoncalltree: both outputs have one call tree"
expect_paths 7 "$TMP/o1/cubelib-test1.1_equal_raw-amp_commoncalltree.cube" \
    "cube_commoncalltree raw-amp kojak: the paths in common"

# the outputs now diff call path by call path: no call path only in one
run cube_diff --match=name -o "$TMP/d.cube" "$TMP/o1/cubelib-test1.1_equal_raw-amp_commoncalltree.cube" \
    "$TMP/o1/kojak-expert_ctest-pomp_commoncalltree.cube"
expect_rc 0 "cube_diff of the two outputs: exit 0"
expect_paths 7 "$TMP/d.cube" "cube_diff of the two outputs has the common call paths"

# CUBE 4 and CUBE 3 mixed, a CUBE 4 output, and --match=full, in the
# current directory (the default DIR)
mkdir -p "$TMP/cwd"
(cd "$TMP/cwd" && "$OLDPWD/$BIN/cube_commoncalltree" "$OLDPWD/$RAW4" "$OLDPWD/$KOJAK" 2>/dev/null)
rc=$?
expect_rc 0 "cube_commoncalltree CUBE 4 + CUBE 3 into the current directory: exit 0"
ls "$TMP/cwd" >"$TMP/cwd.ls"
expect_text_eq "cube3to4_cubelib-test1.1_equal_raw-amp_commoncalltree.cubex
kojak-expert_ctest-pomp_commoncalltree.cube" "$TMP/cwd.ls" \
    "cube_commoncalltree: a CUBE 4 input gives NAME_commoncalltree.cubex"
check raw4 "$TMP/cwd" cube3to4_cubelib-test1.1_equal_raw-amp_commoncalltree.cubex "$RAW4" "$KOJAK"

# a CUBE 4 profile (time stored call-tree inclusive, UINT64, MINDOUBLE,
# MAXDOUBLE) against itself pruned: the common tree is the pruned one
run cube_cut -p '/^void bg::function::F_[0-4]/' -o "$TMP/pruned.cubex" "$PROF4"
mkdir -p "$TMP/o3"
cp "$PROF4" "$TMP/full.cubex"
run cube_commoncalltree -d "$TMP/o3" "$TMP/full.cubex" "$TMP/pruned.cubex"
expect_rc 0 "cube_commoncalltree profile and its pruned copy: exit 0"
check prof4 "$TMP/o3" full_commoncalltree.cubex "$PROF4" "$TMP/pruned.cubex"
"$BIN/cube_dump" -t aggr -z excl "$TMP/pruned.cubex" >"$TMP/e1"
"$BIN/cube_dump" -t aggr -z excl "$TMP/o3/full_commoncalltree.cubex" >"$TMP/e2"
if cmp -s "$TMP/e1" "$TMP/e2"; then
    ok "cube_commoncalltree folds like cube_cut -p: the same exclusive values"
else not_ok "cube_commoncalltree and cube_cut -p differ"; diff "$TMP/e1" "$TMP/e2" | head -5 | sed 's/^/#   /'; fi

# gzip input and standard input: NAME.cube.gz gives NAME_commoncalltree.cube
gzip -c "$KOJAK" >"$TMP/k.cube.gz"
mkdir -p "$TMP/o4"
run cube_commoncalltree -d "$TMP/o4" "$TMP/k.cube.gz" - <"$RAW"
expect_rc 0 "cube_commoncalltree NAME.cube.gz and -: exit 0"
ls "$TMP/o4" >"$TMP/o4.ls"
expect_text_eq "k_commoncalltree.cube
stdin_commoncalltree.cube" "$TMP/o4.ls" "cube_commoncalltree: .cube.gz and '-' (stdin) name their outputs"

# bad input and options: exit 2, one line, nothing written
bad() {
    desc=$1
    shift
    mkdir -p "$TMP/bad"
    run cube_commoncalltree -d "$TMP/bad" "$@"
    expect_rc 2 "cube_commoncalltree $desc: exit 2"
    if head -1 "$TMP/err" | grep -q "^cube_commoncalltree: "; then
        ok "cube_commoncalltree $desc: says why"
    else not_ok "cube_commoncalltree $desc: no message"; fi
    if [ -z "$(ls "$TMP/bad")" ]; then ok "cube_commoncalltree $desc: writes nothing"
    else not_ok "cube_commoncalltree $desc: wrote $(ls "$TMP/bad")"; rm -f "$TMP/bad"/*; fi
}
bad "one input" "$RAW"
bad "no call path in common" "$RAW" "$PROF4"
bad "a bad --match" --match=fuzzy "$RAW" "$KOJAK"
mkdir -p "$TMP/copy"
cp "$RAW" "$TMP/copy/"
bad "two inputs of one name" "$RAW" "$TMP/copy/$(basename "$RAW")"
bad "a missing input" "$RAW" "$TMP/no-such.cube"
bad "stdin twice" - -
run cube_commoncalltree -d "$TMP/no-such-dir" "$RAW" "$KOJAK"
expect_rc 2 "cube_commoncalltree -d a missing directory: exit 2"
