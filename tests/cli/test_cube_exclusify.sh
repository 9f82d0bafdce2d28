# cube_exclusify and cube_inclusify: every real experiment stored inclusive
# and back, checked against an independent computation (kind_ref.py) from
# cube_dump's stored values; the views unchanged; CubeLib's names and
# options; what CUBE 3 cannot hold refused; bad input.
. tests/cli/lib.sh

dump() { # OUT ARGS...: cube_dump -s csv ARGS > OUT
    out=$1
    shift
    "$BIN/cube_dump" -s csv "$@" >"$out" 2>/dev/null
}
# The values of the first three threads: the conversion works on each
# thread's column alike (test_metric_kind checks every thread), and all of
# them would make hundreds of MB of text for the larger files.
THREADS=0-2

for f in testdata/cube/*.cube testdata/cubex/*.cubex; do
    name=$(basename "$f")
    run cube_inclusify -o "$TMP/incl.cubex" "$f"
    expect_rc 0 "cube_inclusify $name exits 0"
    run cube_exclusify -o "$TMP/excl.cubex" "$TMP/incl.cubex"
    expect_rc 0 "cube_exclusify of the inclusified $name exits 0"
    dump "$TMP/orig.metrics" -w metrics "$f"
    dump "$TMP/orig.calltree" -w calltree "$f"
    dump "$TMP/orig.stored" -z stored -t $THREADS "$f"
    for step in incl excl; do
        dump "$TMP/$step.metrics" -w metrics "$TMP/$step.cubex"
        dump "$TMP/$step.stored" -z stored -t $THREADS "$TMP/$step.cubex"
        pycheck "$name: cube_${step}usify stores what an independent computation gives" \
            tests/cli/kind_ref.py convert $step "$TMP/orig.metrics" "$TMP/orig.stored" \
            "$TMP/orig.calltree" "$TMP/$step.metrics" "$TMP/$step.stored"
    done
    # what readers see does not change: the views convert by the kind
    for z in incl excl; do
        dump "$TMP/orig.$z" -z $z -t $THREADS "$f"
        dump "$TMP/new.$z" -z $z -t $THREADS "$TMP/incl.cubex"
        pycheck "$name: cube_inclusify keeps the call-$z values" \
            tests/cli/kind_ref.py same "$TMP/orig.metrics" "$TMP/orig.$z" "$TMP/new.$z" \
            "$TMP/orig.incl"
    done
    # also along the metric tree: a metric's own part of its call paths'
    # subtrees
    dump "$TMP/orig.xexcl" -x excl -z incl -t $THREADS "$f"
    dump "$TMP/new.xexcl" -x excl -z incl -t $THREADS "$TMP/incl.cubex"
    pycheck "$name: cube_inclusify keeps the metric-exclusive call-incl values" \
        tests/cli/kind_ref.py same "$TMP/orig.metrics" "$TMP/orig.xexcl" "$TMP/new.xexcl" \
        "$TMP/orig.incl"
done

# an experiment with a metric stored inclusive comes back exclusive (the
# Score-P profile stores time inclusive); the kinds CubeLib would write
f=testdata/cubex/scorep-9.0dev_time-p4-n2000-x1-r0_profile.cubex
run cube_exclusify -o "$TMP/e.cubex" "$f"
"$BIN/cube_dump" -w metrics -s csv "$TMP/e.cubex" | cut -d, -f3,10 >"$TMP/kinds"
expect_grep '^time,EXCLUSIVE$' "$TMP/kinds" "cube_exclusify stores time exclusive"
run cube_inclusify -o "$TMP/i.cubex" "$f"
"$BIN/cube_dump" -w metrics -s csv "$TMP/i.cubex" | cut -d, -f3,10 >"$TMP/kinds"
expect_grep '^visits,INCLUSIVE$' "$TMP/kinds" "cube_inclusify stores visits inclusive"
expect_grep '^max_time,EXCLUSIVE$' "$TMP/kinds" "cube_inclusify leaves max_time exclusive"
expect_text_eq "cube_inclusify: warning: $f: 2 metrics of a type that cannot be stored inclusive (min_time, max_time) stored exclusive" \
    "$TMP/err" "cube_inclusify says which metrics cannot be stored inclusive"

# CUBE 3 output: exclusive values are what it holds (same values as the
# CUBE 3 input); inclusive ones are refused before anything is read
f=testdata/cube/scorep-1.1_profile.cube
run cube_exclusify --format=cube3 -o "$TMP/e.cube" "$f"
expect_rc 0 "cube_exclusify --format=cube3 exits 0"
dump "$TMP/a" -z stored "$f"
dump "$TMP/b" -z stored "$TMP/e.cube"
expect_file_eq "$TMP/a" "$TMP/b" "cube_exclusify of a CUBE 3 file to CUBE 3 keeps every value"
for args in "-o $TMP/never.cube" "--format=cube3 -o $TMP/never.cubex" "-o -"; do
    # shellcheck disable=SC2086
    run cube_inclusify $args "$f"
    expect_rc 2 "cube_inclusify $args (CUBE 3) exits 2"
    out=$(echo "$args" | sed 's/.*-o //')
    expect_text_eq "cube_inclusify: $out: CUBE 3 holds call-tree exclusive values only: write CUBE 4 (a .cubex name or --format=cube4)" \
        "$TMP/err" "cube_inclusify $args says CUBE 3 cannot hold it, in one line"
done
if [ ! -e "$TMP/never.cube" ] && [ ! -e "$TMP/never.cubex" ]; then
    ok "a refused output is not written"; else not_ok "a refused output is not written"; fi

# CubeLib's default names, in the current directory, for several inputs
cp testdata/cube/tau2cube_template1.cube "$TMP/run.cube"
gzip -c testdata/cube/tau2cube_template1.cube >"$TMP/gz.cube.gz"
(cd "$TMP" && "$OLDPWD/$BIN/cube_exclusify" run.cube gz.cube.gz "$OLDPWD/testdata/cubex/mkcubex_minimal.cubex" 2>/dev/null &&
    "$OLDPWD/$BIN/cube_inclusify" run.cube 2>/dev/null &&
    "$OLDPWD/$BIN/cube_exclusify" --format=cube3 - <run.cube 2>/dev/null)
for out in run_excl.cubex gz_excl.cubex mkcubex_minimal_excl.cubex run_incl.cubex stdin_excl.cube; do
    if [ -f "$TMP/$out" ]; then ok "default output $out"; else not_ok "default output $out"; fi
done
dump "$TMP/a" -z stored "$TMP/run_excl.cubex"
dump "$TMP/b" -z stored "$TMP/gz_excl.cubex"
expect_file_eq "$TMP/a" "$TMP/b" "cube_exclusify reads gzip input"
dump "$TMP/b" -z stored "$TMP/stdin_excl.cube"
expect_file_eq "$TMP/a" "$TMP/b" "cube_exclusify reads '-' from standard input"

# -c is accepted (one experiment has nothing to reduce), -C collapses the
# system tree, -z compresses, -o - writes to standard output
f=testdata/cubex/scorep-8.4_call_tree_test.cubex
run cube_exclusify -c -o "$TMP/c.cubex" "$f"
expect_rc 0 "cube_exclusify -c exits 0"
run cube_exclusify -C -o "$TMP/cc.cubex" "$f"
expect_rc 0 "cube_exclusify -C exits 0"
"$BIN/cube_dump" -w systemtree -s csv "$TMP/cc.cubex" >"$TMP/sys"
expect_grep '^machine,0,,Virtual machine,' "$TMP/sys" "cube_exclusify -C collapses the system tree"
dump "$TMP/a" -z stored -t aggr "$TMP/c.cubex"
dump "$TMP/b" -z stored -t aggr "$TMP/cc.cubex"
expect_file_eq "$TMP/a" "$TMP/b" "cube_exclusify -C keeps the values"
run cube_inclusify --format=cube4 -z -o - "$f"
expect_rc 0 "cube_inclusify -z -o - exits 0"
dump "$TMP/a" -z incl "$f"
dump "$TMP/b" -z incl "$TMP/out"
pycheck "cube_inclusify -z -o - writes the experiment to standard output" \
    tests/cli/kind_ref.py same "$TMP/orig.metrics" "$TMP/a" "$TMP/b"

# bad input and options: exit 2, one line, no output
printf '<?xml version="1.0"?>\n<cube version="3.0">\n<metrics>\n' >"$TMP/truncated.cube"
run cube_exclusify -o "$TMP/never.cubex" "$TMP/truncated.cube"
expect_rc 2 "cube_exclusify on a truncated file exits 2"
expect_text_eq "cube_exclusify: $TMP/truncated.cube:3: unexpected end of file: expected </metrics> (the file is truncated)" \
    "$TMP/err" "cube_exclusify names the file and line of the truncation"
if [ ! -e "$TMP/never.cubex" ]; then ok "no output after bad input"; else not_ok "no output after bad input"; fi
run cube_inclusify -o "$TMP/never.cubex" "$TMP/missing.cubex"
expect_rc 2 "cube_inclusify on a missing file exits 2"
if [ "$(wc -l <"$TMP/err")" = 1 ]; then ok "a missing file is one line"; else not_ok "a missing file is one line"; fi
for args in "" "-o $TMP/x.cubex a b" "--format=cube5 x" "-q x" "- -"; do
    # shellcheck disable=SC2086
    run cube_exclusify $args
    expect_rc 2 "cube_exclusify $args: usage error, exit 2"
done
expect_grep "standard input ('-') can be read only once" "$TMP/err" "'-' twice is refused"
mkdir -p "$TMP/d1" "$TMP/d2"
cp testdata/cube/tau2cube_template1.cube "$TMP/d1/p.cube"
cp testdata/cube/tau2cube_template1.cube "$TMP/d2/p.cube"
(cd "$TMP" && "$OLDPWD/$BIN/cube_exclusify" d1/p.cube d2/p.cube 2>err >/dev/null; echo $? >rc)
if [ "$(cat "$TMP/rc")" = 2 ] && [ ! -e "$TMP/p_excl.cubex" ]; then
    ok "two inputs with the same default output are refused"
else not_ok "two inputs with the same default output are refused"; fi
expect_text_eq "cube_exclusify: d1/p.cube and d2/p.cube would both be written to p_excl.cubex: convert them one by one with -o" \
    "$TMP/err" "the refusal names both inputs and the output"
run cube_inclusify --help
expect_rc 0 "cube_inclusify --help exits 0"
expect_grep "NAME_incl.cubex" "$TMP/out" "cube_inclusify --help names the default output"
run cube_exclusify --version
expect_text_eq "cube_exclusify (libcube) $CUBE_VERSION" "$TMP/out" "cube_exclusify --version"
