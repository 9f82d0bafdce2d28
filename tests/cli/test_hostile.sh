#!/bin/sh
# Hostile inputs and outputs: external entities, entity bombs,
# a call tree 100 000 deep through every tool, huge attributes, ids near
# INT64_MAX, a gzip bomb, broken gzip streams, huge counts in <cart>, and
# outputs that cannot be written or that are an input.  Big inputs are made
# here, in $TMP.  Runs under dash.
. tests/cli/lib.sh

# a writer gone quadratic must fail, not fill the disk (blocks of 512 or 1024 bytes)
ulimit -f 4194304 2>/dev/null

H=testdata/hostile
MARK=HOSTILE-MARKER-7f3a9c
PLAIN=testdata/reader/plain.cube

# no_marker DESCRIPTION: the marker file's content is in no output
no_marker() {
    if grep -q "$MARK" "$TMP/out" "$TMP/err" 2>/dev/null; then not_ok "$1"; else ok "$1"; fi
}

# ---- XML: no entity or DTD is ever loaded --------------------------------
# the marker referenced by absolute file:// URL and by relative path
sed "s|marker.txt|file://$PWD/$H/marker.txt|" "$H/xxe-marker.cube" >"$TMP/xxe-abs.cube"
for f in "$H/xxe-passwd.cube" "$H/xxe-marker.cube" "$H/xxe-parameter.cube" \
    "$H/xxe-external-dtd.cube" "$H/xxe-attribute.cube" "$TMP/xxe-abs.cube"; do
    n=$(basename "$f")
    for tool in cube_info cube_dump cube_clean; do
        case $tool in
        cube_clean) run $tool -o "$TMP/xxe-out.cube" "$f" ;;
        *) run $tool "$f" ;;
        esac
        expect_rc 2 "$tool $n refused"
        expect_grep "$n:2: a DOCTYPE is not allowed" "$TMP/err" "$tool $n: the error names the file"
        no_marker "$tool $n: the referenced file is never read"
        if grep -q '^root:' "$TMP/out" "$TMP/err"; then not_ok "$tool $n: no /etc/passwd"; else
            ok "$tool $n: no /etc/passwd"
        fi
    done
    [ -e "$TMP/xxe-out.cube" ] && not_ok "cube_clean $n: no output" || ok "cube_clean $n: no output"
done
run cube_info "$H/xxe-undeclared.cube"
expect_rc 2 "an undeclared entity is refused"
expect_grep "Entity 'secret' not defined" "$TMP/err" "an undeclared entity: message"

# entity expansion (billion laughs is in test_reader_reject; this one is a
# 100 kB entity referenced 10 000 times: 1 GB): refused at once
t0=$(date +%s%N)
run cube_info "$H/bomb-quadratic.cube"
t1=$(date +%s%N)
expect_rc 2 "quadratic entity blowup refused"
# (under valgrind everything is some 50 times slower: the bound is for the
# expansion that never happens, not for valgrind)
limit=500
[ "${VALGRIND:-0}" = 1 ] && limit=20000
if [ $(((t1 - t0) / 1000000)) -lt $limit ]; then ok "quadratic blowup refused in < $limit ms"; else
    not_ok "quadratic blowup refused in < $limit ms ($(((t1 - t0) / 1000000)) ms)"
fi

# ---- a call tree 100 000 levels deep, through every tool ------------------
python3 - "$TMP/deep.cube" <<'EOF'
import sys
n = 100000
with open(sys.argv[1], 'w') as out:
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n<cube version="3.0">\n<metrics><metric id="0">'
      '<disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>FLOAT</dtype><uom>sec</uom>'
      '<url></url><descr>t</descr></metric></metrics>\n<program>\n'
      '<region id="0" mod="a.c" begin="1" end="2"><name>f</name><url></url><descr>USR</descr></region>\n'
      '<region id="1" mod="a.c" begin="3" end="4"><name>g</name><url></url><descr>USR</descr></region>\n')
    for i in range(n):
        w('<cnode id="%d" calleeId="%d">\n' % (i, i % 2))
    w('</cnode>\n' * n)
    w('</program>\n<system><machine Id="0"><name>m</name><node Id="0"><name>n</name><process Id="0">'
      '<name>p</name><rank>0</rank><thread Id="0"><name>t</name><rank>0</rank></thread></process>'
      '</node></machine></system>\n<severity><matrix metricId="0">\n')
    for i in range(n):
        w('<row cnodeId="%d">1</row>\n' % i)
    w('</matrix></severity></cube>\n')
EOF
D=$TMP/deep.cube
insize=$(wc -c <"$D")
# bounded: the output of the writer is not quadratic in the depth (it was
# 20 GB for this 7 MB input, with one indentation level per call level)
bounded() { # FILE DESCRIPTION
    s=$(wc -c <"$1")
    if [ "$s" -lt $((insize * 10)) ]; then ok "$2 (size $s)"; else not_ok "$2 (size $s)"; fi
}
run cube_info "$D"
expect_rc 0 "deep: cube_info"
expect_grep "call paths: *100000" "$TMP/out" "deep: cube_info counts 100000 call paths"
run cube_clean -o "$TMP/deep-clean.cube" "$D"
expect_rc 0 "deep: cube_clean"
bounded "$TMP/deep-clean.cube" "deep: cube_clean output is not quadratic in the depth"
run cube_clean -o "$TMP/deep-clean2.cube" "$TMP/deep-clean.cube"
expect_rc 0 "deep: cube_clean of its own output"
expect_file_eq "$TMP/deep-clean.cube" "$TMP/deep-clean2.cube" "deep: round trip is stable"
for tool in cube_diff cube_merge cube_mean; do
    run $tool -o "$TMP/deep-$tool.cube" "$D" "$TMP/deep-clean.cube"
    expect_rc 0 "deep: $tool"
    bounded "$TMP/deep-$tool.cube" "deep: $tool output bounded"
done
run cube_dump -m time -c leaves -z incl "$TMP/deep-cube_merge.cube"
expect_rc 0 "deep: cube_dump of the merge"
expect_grep ',1$' "$TMP/out" "deep: the leaf's inclusive value is 1"
run cube_dump -m time -t aggr -c 0 -z incl "$TMP/deep-cube_diff.cube"
expect_rc 0 "deep: cube_dump -z incl of the diff"
expect_grep ',0$' "$TMP/out" "deep: the diff of a file with itself is 0"
run cube_dump -m time -c 0 -z incl "$D"
expect_grep ',100000$' "$TMP/out" "deep: the root's inclusive value is 100000"
run cube_dump -r "$D"
expect_rc 0 "deep: cube_dump -r (flat profile)"
run cube_cmp "$D" "$TMP/deep-clean.cube"
expect_rc 0 "deep: cube_cmp says the round trip is equal"
run cube_stat "$D"
expect_rc 0 "deep: cube_stat"
# the same with a 1 MB stack
(
    ulimit -s 1024 || exit 3
    "$BIN/cube_diff" -o "$TMP/deep-small.cube" "$D" "$D" &&
        "$BIN/cube_clean" -o "$TMP/deep-small2.cube" "$D" &&
        "$BIN/cube_dump" -m time -c 0 -z incl "$D" >"$TMP/deep-small.txt"
) 2>"$TMP/err"
rc=$?
expect_rc 0 "deep: cube_diff, cube_clean, cube_dump with ulimit -s 1024"
expect_file_eq "$TMP/deep-clean.cube" "$TMP/deep-small2.cube" "deep: the same output with a 1 MB stack"
rm -f "$TMP"/deep*

# ---- attributes of megabytes ---------------------------------------------
python3 - "$TMP/bigattr.cube" "$PLAIN" <<'EOF'
import sys
s = open(sys.argv[2]).read()
key = 'K' * (3 << 20)
val = ''.join('v&amp;%d' % (i % 10) for i in range(1 << 20))
s = s.replace('<attr key="CUBE_CT_AGGR" value="SUM"/>',
              '<attr key="CUBE_CT_AGGR" value="SUM"/>\n  <attr key="%s" value="%s"/>' % (key, val))
s = s.replace('<name>main</name>', '<name>' + 'm' * (5 << 20) + '</name>')
open(sys.argv[1], 'w').write(s)
EOF
run cube_clean -o "$TMP/bigattr-out.cube" "$TMP/bigattr.cube"
expect_rc 0 "attributes of megabytes: read and written"
run cube_clean -o "$TMP/bigattr-out2.cube" "$TMP/bigattr-out.cube"
expect_file_eq "$TMP/bigattr-out.cube" "$TMP/bigattr-out2.cube" "attributes of megabytes: round trip"
run cube_cmp "$TMP/bigattr.cube" "$TMP/bigattr-out.cube"
expect_rc 0 "attributes of megabytes: the written file equals the input"
pycheck "attributes of megabytes: the key, value and name survive" - "$TMP/bigattr-out.cube" <<'EOF'
import sys
s = open(sys.argv[1]).read()
assert ('K' * (3 << 20) + '"') in s
assert ''.join('v&amp;%d' % (i % 10) for i in range(1 << 20)) in s
assert '<name>' + 'm' * (5 << 20) + '</name>' in s
EOF
rm -f "$TMP"/bigattr*

# ---- ids near INT64_MAX --------------------------------------------------
sed 's/cnode id="1"/cnode id="9223372036854775807"/; s/cnodeId="1"/cnodeId="9223372036854775807"/;
     s/thread Id="1"/thread Id="9223372036854775806"/; s/thrdId="1"/thrdId="9223372036854775806"/; s/metric id="2"/metric id="9223372036854775807"/;
     s/metricId="2"/metricId="9223372036854775807"/' "$PLAIN" >"$TMP/maxid.cube"
run cube_dump -w calltree "$TMP/maxid.cube"
expect_rc 0 "ids of INT64_MAX are read"
expect_grep '^9223372036854775807,' "$TMP/out" "the id INT64_MAX is kept"
run cube_cmp "$PLAIN" "$TMP/maxid.cube"
expect_rc 0 "ids of INT64_MAX: same model as with small ids"
for what in 'cnode id="1"/cnode id="9223372036854775808"' \
    'thread Id="1"/thread Id="18446744073709551616"' \
    'metric id="2"/metric id="99999999999999999999999999"' \
    'cnodeId="1"/cnodeId="9223372036854775808"'; do
    sed "s/$what/" "$PLAIN" >"$TMP/overid.cube"
    run cube_info "$TMP/overid.cube"
    expect_rc 2 "id beyond INT64_MAX refused (${what#*/})"
    expect_grep "overid.cube:[0-9]*: " "$TMP/err" "id beyond INT64_MAX: the error names the file and line"
done

# ---- huge counts in <cart> and rows ---------------------------------------
for what in 'ndims="1"/ndims="9223372036854775807"' 'ndims="1"/ndims="100000000"' \
    'size="2"/size="9223372036854775807"' 'size="2"/size="4000000000"'; do
    sed "s/$what/" "$PLAIN" >"$TMP/cart.cube"
    run cube_info "$TMP/cart.cube"
    expect_rc 2 "huge <cart> count refused (${what#*/})"
    expect_grep "cart.cube:7[67]: " "$TMP/err" "huge <cart> count: file and line"
done
python3 -c "
import sys
s=open('$PLAIN').read()
s=s.replace('2.5\n3\n', '2.5\n3\n' + '1\n' * 1000000, 1)
open('$TMP/longrow.cube','w').write(s)"
run cube_info "$TMP/longrow.cube"
expect_rc 2 "a row of a million values for 2 threads refused"
expect_grep "longrow.cube:[0-9]*: " "$TMP/err" "a long row: file and line"

# ---- gzip: bomb, corrupt, truncated --------------------------------------
if [ -x /usr/bin/time ]; then
    head -c 1G /dev/zero | gzip -1 >"$TMP/zeros.cube.gz"
    { printf '<?xml version="1.0"?>\n<cube version="3.0">\n<!-- '
      head -c 1G /dev/zero | tr '\0' ' '
      printf -- '-->\n'; } | gzip -1 >"$TMP/comment.cube.gz"
    { printf '<?xml version="1.0"?>\n<cube version="3.0">\n<attr key="k" value="'
      head -c 1G /dev/zero | tr '\0' 'a'
      printf '"/>\n</cube>\n'; } | gzip -1 >"$TMP/attr.cube.gz"
    for f in zeros comment attr; do
        for tool in cube_info cube_clean; do
            rm -f "$TMP/bomb-out.cube"
            t0=$(date +%s)
            if [ $tool = cube_clean ]; then
                /usr/bin/time -o "$TMP/rss" -f %M "$BIN/$tool" -o "$TMP/bomb-out.cube" \
                    "$TMP/$f.cube.gz" >"$TMP/out" 2>"$TMP/err"
            else
                /usr/bin/time -o "$TMP/rss" -f %M "$BIN/$tool" "$TMP/$f.cube.gz" >"$TMP/out" 2>"$TMP/err"
            fi
            rc=$?
            t1=$(date +%s)
            expect_rc 2 "gzip bomb ($f): $tool refuses it"
            expect_grep "$f.cube.gz:" "$TMP/err" "gzip bomb ($f): $tool names the file"
            kb=$(tail -n 1 "$TMP/rss")
            if [ "$kb" -lt 65536 ]; then ok "gzip bomb ($f): $tool peak RSS $kb KB < 64 MB"; else
                not_ok "gzip bomb ($f): $tool peak RSS $kb KB < 64 MB"
            fi
            if [ $((t1 - t0)) -lt 30 ]; then ok "gzip bomb ($f): $tool in $((t1 - t0)) s"; else
                not_ok "gzip bomb ($f): $tool took $((t1 - t0)) s"
            fi
            [ -e "$TMP/bomb-out.cube" ] && not_ok "gzip bomb ($f): no output" || ok "gzip bomb ($f): no output"
        done
    done
    rm -f "$TMP"/*.cube.gz
else
    ok "# SKIP gzip bomb: no /usr/bin/time"
fi
gzip -c "$PLAIN" >"$TMP/good.cube.gz"
head -c $(($(wc -c <"$TMP/good.cube.gz") / 2)) "$TMP/good.cube.gz" >"$TMP/trunc.cube.gz"
python3 -c "
d=bytearray(open('$TMP/good.cube.gz','rb').read()); d[len(d)//2]^=0xff
open('$TMP/corrupt.cube.gz','wb').write(bytes(d))"
for f in trunc corrupt; do
    for tool in cube_clean cube_diff cube_statfile; do
        rm -f "$TMP/gz-out.cube"
        case $tool in
        cube_clean) run $tool -o "$TMP/gz-out.cube" "$TMP/$f.cube.gz" ;;
        cube_diff) run $tool -o "$TMP/gz-out.cube" "$PLAIN" "$TMP/$f.cube.gz" ;;
        cube_statfile) run $tool --from-cube "$TMP/$f.cube.gz" -m time -o "$TMP/gz-out.cube" ;;
        esac
        expect_rc 2 "$f gzip: $tool refuses it"
        expect_grep "$f.cube.gz:[0-9]*: .*gzip stream" "$TMP/err" "$f gzip: $tool names the file"
        [ -e "$TMP/gz-out.cube" ] && not_ok "$f gzip: $tool writes no output" ||
            ok "$f gzip: $tool writes no output"
    done
done

# ---- outputs ------------------------------------------------------------
no_temp() { # DIR DESCRIPTION
    if ls -a "$1" | grep -q '\.tmp'; then not_ok "$2: a temporary file is left"; else
        ok "$2: no temporary file left"
    fi
}
O=$TMP/outdir
mkdir -p "$O"
cp "$PLAIN" "$O/x.cube"
cp "$PLAIN" "$O/b.cube"
sed 's/^2.5$/7.5/' "$PLAIN" >"$O/b.cube"
cp "$O/x.cube" "$TMP/x.orig"
cp "$O/b.cube" "$TMP/b.orig"
# a directory that does not exist
run cube_clean -o "$O/nodir/y.cube" "$O/x.cube"
expect_rc 2 "output in a missing directory: error"
expect_grep "nodir/y.cube" "$TMP/err" "output in a missing directory: names the output"
# a read-only directory (root ignores the mode: then only when not root)
mkdir "$O/ro" && chmod 555 "$O/ro"
if [ "$(id -u)" != 0 ]; then
    run cube_clean -o "$O/ro/y.cube" "$O/x.cube"
    expect_rc 2 "output in a read-only directory: error"
    no_temp "$O/ro" "read-only directory"
elif mkdir "$TMP/rofs" && mount -t tmpfs -o ro,size=64k tmpfs "$TMP/rofs" 2>/dev/null; then
    # root ignores the directory's mode: a read-only file system instead
    run cube_clean -o "$TMP/rofs/y.cube" "$O/x.cube"
    expect_rc 2 "output on a read-only file system: error"
    expect_grep "rofs/y.cube.*Read-only file system" "$TMP/err" "output on a read-only file system: says why"
    no_temp "$TMP/rofs" "read-only file system"
    umount "$TMP/rofs"
else
    ok "# SKIP read-only directory: root, and no read-only tmpfs"
fi
chmod 755 "$O/ro"
# /dev/full
for tool in cube_clean cube_dump cube_diff cube_statfile; do
    case $tool in
    cube_clean) run $tool -o /dev/full "$O/x.cube" ;;
    cube_dump) run $tool -o /dev/full "$O/x.cube" ;;
    cube_diff) run $tool -o /dev/full "$O/x.cube" "$O/b.cube" ;;
    cube_statfile) run $tool --from-cube "$O/x.cube" -m time -o /dev/full ;;
    esac
    expect_rc 2 "$tool -o /dev/full: error"
    expect_grep "/dev/full.*No space left on device" "$TMP/err" "$tool -o /dev/full: says why"
done
# a full file system: a small tmpfs (as root only)
if [ "$(id -u)" = 0 ] && mkdir "$TMP/small" && mount -t tmpfs -o size=64k tmpfs "$TMP/small" 2>/dev/null; then
    cp "$O/x.cube" "$TMP/small/x.cube"
    cp "$O/x.cube" "$TMP/small/y.cube"
    python3 -c "open('$TMP/small/fill','wb').write(b'0'*(64*1024 - 12*1024))" 2>/dev/null
    python3 - "$TMP/big.cube" "$PLAIN" <<'EOF'
import sys
s = open(sys.argv[2]).read()
s = s.replace('<name>main</name>', '<name>' + 'm' * 100000 + '</name>')
open(sys.argv[1], 'w').write(s)
EOF
    run cube_clean -o "$TMP/small/y.cube" "$TMP/big.cube"
    expect_rc 2 "full tmpfs: error"
    expect_grep "small/y.cube" "$TMP/err" "full tmpfs: names the output"
    expect_file_eq "$O/x.cube" "$TMP/small/y.cube" "full tmpfs: the old output stays as it was"
    no_temp "$TMP/small" "full tmpfs"
    umount "$TMP/small"
else
    ok "# SKIP full tmpfs: cannot mount one"
fi
# an output equal to an input
run cube_clean -o "$O/x.cube" "$O/x.cube"
if [ "$rc" = 0 ]; then
    run cube_cmp "$TMP/x.orig" "$O/x.cube"
    expect_rc 0 "cube_clean -o x.cube x.cube: replaced by a correct result"
    cp "$TMP/x.orig" "$O/x.cube"
else
    expect_file_eq "$TMP/x.orig" "$O/x.cube" "cube_clean -o x.cube x.cube: refused, input untouched"
fi
no_temp "$O" "cube_clean onto its input"
"$BIN/cube_diff" -o "$TMP/diff-ref.cube" "$O/x.cube" "$O/b.cube" 2>/dev/null
run cube_diff -o "$O/x.cube" "$O/x.cube" "$O/b.cube"
if [ "$rc" = 0 ]; then
    expect_file_eq "$TMP/diff-ref.cube" "$O/x.cube" "cube_diff -o a.cube a.cube b.cube: the correct result"
    cp "$TMP/x.orig" "$O/x.cube"
else
    expect_file_eq "$TMP/x.orig" "$O/x.cube" "cube_diff -o a.cube a.cube b.cube: refused, input untouched"
fi
expect_file_eq "$TMP/b.orig" "$O/b.cube" "cube_diff onto its input: the other input untouched"
"$BIN/cube_merge" -o "$TMP/merge-ref.cube" "$O/x.cube" "$O/b.cube" 2>/dev/null
run cube_merge -o "$O/b.cube" "$O/x.cube" "$O/b.cube"
if [ "$rc" = 0 ]; then
    expect_file_eq "$TMP/merge-ref.cube" "$O/b.cube" "cube_merge -o b.cube a.cube b.cube: the correct result"
    cp "$TMP/b.orig" "$O/b.cube"
else
    expect_file_eq "$TMP/b.orig" "$O/b.cube" "cube_merge -o b.cube a.cube b.cube: refused, input untouched"
fi
no_temp "$O" "cube_diff/cube_merge onto an input"
"$BIN/cube_dump" "$O/x.cube" >"$TMP/dump-ref.txt" 2>/dev/null
run cube_dump -o "$O/x.cube" "$O/x.cube"
if [ "$rc" = 0 ]; then
    expect_file_eq "$TMP/dump-ref.txt" "$O/x.cube" "cube_dump -o onto its input: the correct result"
else
    expect_file_eq "$TMP/x.orig" "$O/x.cube" "cube_dump -o onto its input: refused, input untouched"
fi
no_temp "$O" "cube_dump onto its input"
cp "$TMP/x.orig" "$O/x.cube"
# statistics file onto itself
SF=testdata/statfile/scalasca.stat
cp "$SF" "$O/s.stat"
cp "$SF" "$TMP/s.orig"
run cube_statfile -o "$O/s.stat" "$O/s.stat"
if [ "$rc" = 0 ]; then
    "$BIN/cube_statfile" "$TMP/s.orig" >"$TMP/s.ref" 2>/dev/null
    expect_file_eq "$TMP/s.ref" "$O/s.stat" "cube_statfile -o onto its input: the correct result"
else
    expect_file_eq "$TMP/s.orig" "$O/s.stat" "cube_statfile -o onto its input: refused, input untouched"
fi
no_temp "$O" "cube_statfile onto its input"
# LinkTest: the report (-o), the experiment (--cube) and the picture onto the input
LT=$(ls testdata/linktest/*.sion 2>/dev/null | head -n 1)
if [ -n "$LT" ]; then
    for opt in -o --cube --svg; do
        cp "$LT" "$O/lt.sion"
        "$BIN/cube_linktest" $opt "$TMP/lt-ref" "$O/lt.sion" 2>/dev/null
        run cube_linktest $opt "$O/lt.sion" "$O/lt.sion"
        if [ "$rc" = 0 ]; then
            expect_file_eq "$TMP/lt-ref" "$O/lt.sion" "cube_linktest $opt onto its input: the correct result"
        else
            expect_file_eq "$LT" "$O/lt.sion" "cube_linktest $opt onto its input: refused, input untouched"
        fi
    done
    no_temp "$O" "cube_linktest onto its input"
else
    not_ok "no LinkTest file in testdata/linktest"
fi

# ---- statistics file: a huge Count allocates nothing ---------------------
for c in 9223372036854775807 18446744073709551616 99999999999999999999999999; do
    printf 'PatternName MetricID Count Mean Median Minimum Maximum Sum Variance Quartil25 Quartil75\nFoo 1 %s 0.25 0.2 0.1 0.5 1.0\n' \
        $c >"$TMP/huge.stat"
    /usr/bin/time -o "$TMP/rss" -f %M "$BIN/cube_statfile" --instances "$TMP/huge.stat" \
        >"$TMP/out" 2>"$TMP/err"
    rc=$?
    kb=$(tail -n 1 "$TMP/rss")
    if [ "$kb" -lt 65536 ]; then ok "statfile Count $c: peak RSS $kb KB"; else
        not_ok "statfile Count $c: peak RSS $kb KB"
    fi
    if [ "$c" = 9223372036854775807 ]; then
        expect_rc 0 "statfile Count INT64_MAX is read"
    else
        expect_rc 2 "statfile Count beyond INT64_MAX refused"
        expect_grep "huge.stat:2: expected Count" "$TMP/err" "statfile Count $c: file and line"
    fi
done
