# The shell examples of README.md and of the man pages' EXAMPLES sections,
# read from the documents at every run (tests/cli/doc_examples.py says how),
# run as a user would type them on the shipped data: a command fails on an
# exit status other than 0 and on output other than the output shown.
. tests/cli/lib.sh
REPO=$(pwd)
ABS_BIN=$(cd "$BIN" && pwd)
export PATH="$ABS_BIN:$PATH"
# a user's shell, not make check's: no make of ours around the examples' make
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
# MPICH keeps some memory until exit; that is not ours to report
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# the library as `make install` would leave it, for `pkg-config libcube`
mkdir -p "$TMP/pkgconfig"
sed -e "s|^libdir=.*|libdir=$ABS_BIN/../lib|" -e "s|^includedir=.*|includedir=$REPO/libcube/include|" \
    "$ABS_BIN/../lib/libcube.pc" >"$TMP/pkgconfig/libcube.pc"
export PKG_CONFIG_PATH="$TMP/pkgconfig"
export LD_LIBRARY_PATH="$ABS_BIN/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# --- README.md: from a directory laid out like the repository's root
mkdir -p "$TMP/readme/build"
ln -s "$REPO/testdata" "$REPO/examples" "$TMP/readme/"
ln -s "$ABS_BIN" "$TMP/readme/build/bin"
(cd "$TMP/readme" && python3 "$REPO/tests/cli/doc_examples.py" readme "$REPO/README.md")

# --- the man pages: the shipped experiments under the names they use, a
# fresh copy for each page (its examples build on each other)
M="$TMP/fixtures"
mkdir -p "$M/results" "$M/counters" "$M/old" "$M/new" "$M/run-1" "$M/run-2" "$M/scorep_run"
C=$REPO/testdata/cube
L=$REPO/testdata/linktest
S=$REPO/testdata/statfile
# one run of NPB BT-MZ: the Scalasca trace analysis (the later, slower
# run where two are compared), its statistics file, and the Score-P profile
for f in run.cube trace.cube exp.cube scalasca_trace.cube after.cube v2.cube papi-flops.cube \
    results/trace.cube counters/trace.cube scorep_run/trace.cubex.cube new/rep2.cube; do
    cp "$C/scalasca_trace.cube" "$M/$f"
done
for f in profile.cube scorep-1.1_profile.cube before.cube old.cube a.cube v1.cube baseline.cube \
    new.cube hostA.cube hostB.cube rep1.cube rep2.cube rep3.cube papi-cache.cube \
    results/profile.cube counters/profile.cube old/rep1.cube old/rep2.cube new/rep1.cube \
    run-1/profile.cube run-2/profile.cube; do
    cp "$C/scorep-1.1_profile.cube" "$M/$f"
done
# the same experiment in another layout
gzip -c "$C/scorep-1.1_profile.cube" >"$M/b.cube"
for f in run.cube.gz profile.cube.gz summary.cube.gz; do
    gzip -c "$C/scorep-1.1_profile.cube" >"$M/$f"
done
gzip -c "$C/scalasca_trace.cube" >"$M/juwels.cube"
gzip -c "$C/scalasca_trace.cube" >"$M/jureca.cube.gz"
for f in trace.stat scorep_run/trace.stat; do cp "$S/scalasca.stat" "$M/$f"; done
cp "$L/lt8_fs64k.sion" "$M/lt8_fs64k.sion"
cp "$L/v1/real_linktest1.2p1_n4.sion" "$M/pingpong_results_bin.sion"
cp "$L/v1/real_linktest1.2p1_n4.sion" "$M/results_2026-10.sion"
cp "$L/v1/real_linktest1.2p1_n4_a2a_mix.sion" "$M/results_2026-11.sion"
# a parameter file whose runs line up (cube_bench(1): a Fixed_ scale)
cat >"$M/fixed.par" <<'EOF'
@MIN_REP_DEFAULT 32
@MEASUREMENTS
Pingpong { Type = Pingpong_Send_Recv; Variation = Length; Scale = Fixed_log;
           Start_Argument = 1024; End_Argument = 65536; Stepwidth = 4; }
EOF
for page in man/man1/*.1; do
    rm -rf "$TMP/page"
    cp -R "$M" "$TMP/page"
    # cube_clean(1) compares a.cube and b.cube expecting the same content,
    # cube_cmp(1) lists their differences
    case $page in */cube_cmp.1) cp "$C/scalasca_trace.cube" "$TMP/page/b.cube" ;; esac
    (cd "$TMP/page" && python3 "$REPO/tests/cli/doc_examples.py" man "$REPO/$page")
done
