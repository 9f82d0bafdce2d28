# Every CUBE 4 archive of testdata/cubex through cube_dump's text output
# against its expected-values file (NAME.expected.json or .json.gz): the
# definitions (cube_dump -w -s json: attributes, mirrors, metrics with
# kinds, dtypes and expressions, regions, the call tree in preorder, the
# system tree at every depth, topologies, the archive's extra members),
# every stored value per metric, call path and location (cube_dump
# -z stored, CSV: each number reads back to the exact stored value, zeros
# and "no value" exactly where nothing is stored), the inclusive and
# exclusive totals listed (cube_dump -t aggr -x incl|excl -z incl|excl),
# and derived metrics refused as not computed, never shown as 0.  The
# comparisons are in cubex_expected.py; one tool call per file and mode.
. tests/cli/lib.sh
PY=tests/cli/cubex_expected.py
files=0
for x in testdata/cubex/*.cubex; do
    name=$(basename "$x" .cubex)
    exp=testdata/cubex/$name.expected.json
    [ -f "$exp" ] || exp=$exp.gz
    if [ ! -f "$exp" ]; then
        not_ok "$name: an expected-values file"
        continue
    fi
    files=$((files + 1))

    run cube_dump -w -s json "$x"
    expect_rc 0 "$name: cube_dump -w -s json exits 0"
    mv "$TMP/out" "$TMP/defs.json"
    pycheck "$name: cube_dump -w gives the expected definitions" $PY defs "$exp" "$TMP/defs.json"

    run cube_dump -z stored "$x"
    expect_rc 0 "$name: cube_dump -z stored exits 0"
    pycheck "$name: cube_dump -z stored prints every stored value exactly, zeros elsewhere" \
        $PY stored "$exp" "$TMP/defs.json" "$TMP/out" "$TMP/err"
    grep '^#' "$TMP/py.out"

    for xm in excl incl; do
        for z in incl excl; do
            run cube_dump -t aggr -x $xm -z $z "$x"
            expect_rc 0 "$name: cube_dump -t aggr -x $xm -z $z exits 0"
            mv "$TMP/out" "$TMP/x$xm-z$z.csv"
        done
    done
    pycheck "$name: cube_dump -t aggr gives the totals listed" $PY totals "$exp" "$TMP/defs.json" \
        "$TMP/xexcl-zincl.csv" "$TMP/xexcl-zexcl.csv" "$TMP/xincl-zincl.csv" "$TMP/xincl-zexcl.csv"
    grep '^#' "$TMP/py.out"

    # a derived metric's values are not computed: refused, never shown as 0
    python3 $PY derived "$exp" >"$TMP/derived"
    while read -r d; do
        run cube_dump -m "$d" -t aggr "$x" </dev/null
        expect_rc 2 "$name: cube_dump -m $d (derived) exits 2"
        # (after the reader's warning naming every derived metric)
        if grep -Fqx "cube_dump: $x: metric '$d' is derived: its values are not computed" "$TMP/err"; then
            ok "$name: cube_dump -m $d says its values are not computed"
        else
            not_ok "$name: cube_dump -m $d says its values are not computed"
            sed 's/^/#   /' "$TMP/err"
        fi
        if [ -s "$TMP/out" ]; then not_ok "$name: cube_dump -m $d prints no value"; else
            ok "$name: cube_dump -m $d prints no value"; fi
    done <"$TMP/derived"
done
# every expected-values file belongs to an archive checked above (twelve
# archives, as tests/unit/cubex_expected.c lists them)
n=$(ls testdata/cubex/*.expected.json* | wc -l)
if [ "$files" = "$n" ] && [ "$files" -ge 12 ]; then ok "$files archives with expected values checked"; else
    not_ok "$files archives checked, $n expected-values files"; fi
