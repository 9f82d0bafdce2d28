#!/bin/sh
# make demo: the tools on the real experiments shipped in testdata/.
set -e
BIN=${1:-build/bin}
OUT=${DEMO_OUT:-build/demo}
mkdir -p "$OUT"
if [ -t 1 ]; then
    say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
else
    say() { printf '\n$ %s\n' "$*"; }
fi

# cube_bench's log lines whole, folded at blanks to the terminal's width
# (scripts/fold.awk); not folded when not on a terminal.
wrap() {
    if [ -t 1 ]; then
        awk -v w="${COLUMNS:-$(tput cols 2>/dev/null || echo 80)}" -f "$(dirname "$0")/fold.awk"
    else
        cat
    fi
}

say "cube_info testdata/cube/scalasca-bgpBT_experiment1.cube | head -30"
"$BIN/cube_info" testdata/cube/scalasca-bgpBT_experiment1.cube | head -30

say "cube_info --json testdata/cube/scorep-1.1_profile.cube   (one JSON object per file)"
"$BIN/cube_info" --json testdata/cube/scorep-1.1_profile.cube | cut -c1-400
echo "..."

say "cube_info testdata/cube/cubelib-test1.1_equal_raw-amp.cube >/dev/null   (not well-formed, read anyway)"
"$BIN/cube_info" testdata/cube/cubelib-test1.1_equal_raw-amp.cube >/dev/null

say "cube_clean -o $OUT/trace.cube.gz testdata/cube/scalasca_trace.cube   (canonical, gzip)"
"$BIN/cube_clean" -o "$OUT/trace.cube.gz" testdata/cube/scalasca_trace.cube
ls -l testdata/cube/scalasca_trace.cube "$OUT/trace.cube.gz"

say "cube_info $OUT/trace.cube.gz | head -12   (gzip is read transparently)"
"$BIN/cube_info" "$OUT/trace.cube.gz" | head -12

say "cube_info on every shipped experiment: the counts per file"
for f in testdata/cube/*.cube; do
    "$BIN/cube_info" "$f" 2>/dev/null | awk -v f="$(basename "$f")" '
        /^metrics:/    { m = $2 }
        /^call paths:/ { c = $3 }
        /^system:/     { t = $9 }
        /^rows:/       { r = $2 }
        END { printf "%-40s metrics %4d  call paths %4d  threads %4d  rows %5d\n", f, m, c, t, r }'
done

# the algebra: the Score-P profile and the Scalasca trace analysis of one run
PROFILE=testdata/cube/scorep-1.1_profile.cube
TRACE=testdata/cube/scalasca_trace.cube

say "cube_merge -o $OUT/merged.cube $PROFILE $TRACE   (both metric sets, one run)"
"$BIN/cube_merge" -o "$OUT/merged.cube" "$PROFILE" "$TRACE"
"$BIN/cube_info" "$OUT/merged.cube" | grep -E '^(metrics|call paths|system):'

say "cube_cmp $TRACE $OUT/trace.cube.gz   (the cleaned gzip copy is the same experiment)"
"$BIN/cube_cmp" "$TRACE" "$OUT/trace.cube.gz"

say "cube_cmp --metric=visits $PROFILE $TRACE   (profile and trace counted the same visits)"
"$BIN/cube_cmp" --metric=visits "$PROFILE" "$TRACE"

say "cube_cmp --rel-tol=0.05 --metric=time -n 3 $PROFILE $TRACE   (but not the same time: exit 1)"
"$BIN/cube_cmp" --rel-tol=0.05 --metric=time -n 3 "$PROFILE" "$TRACE" || echo "(exit status $?)"

say "cube_diff -o - $PROFILE $TRACE | cube_info - | sed -n '/^metric tree/,\$p' | head -5   (profile minus trace)"
"$BIN/cube_diff" -o - "$PROFILE" "$TRACE" | "$BIN/cube_info" - | sed -n '/^metric tree/,$p' | head -5

# views for scripts and people
say "cube_stat -p -t 10 $TRACE   (the top-10 flat profile by exclusive time)"
"$BIN/cube_stat" -p -t 10 "$TRACE"

say "cube_dump -m time -c roots -t aggr -z incl -s tsv $TRACE   (one number for a Makefile)"
"$BIN/cube_dump" -m time -c roots -t aggr -z incl -s tsv "$TRACE"

say "cube_stat -% -m time -r MAIN__ $TRACE | head -4   (exact statistics across threads)"
"$BIN/cube_stat" -% -m time -r MAIN__ "$TRACE" | head -4

# statistics files
say "cube_statfile -s human testdata/statfile/scalasca.stat   (a Scalasca statistics file)"
"$BIN/cube_statfile" -s human testdata/statfile/scalasca.stat

say "cube_statfile --from-cube $TRACE -m time,visits -o $OUT/trace.stat; cube_statfile --svg $OUT/trace.svg $OUT/trace.stat"
"$BIN/cube_statfile" --from-cube "$TRACE" -m time,visits -o "$OUT/trace.stat"
"$BIN/cube_statfile" --svg "$OUT/trace.svg" "$OUT/trace.stat"
ls -l "$OUT/trace.svg"

# LinkTest results (SION files, read without SIONlib)
LT=testdata/linktest/lt8_fs64k.sion
say "cube_linktest $LT   (the run summary and the slowest links)"
"$BIN/cube_linktest" "$LT"

say "cube_linktest --hosts $LT   (per host; outlier hosts flagged)"
"$BIN/cube_linktest" --hosts "$LT"

say "cube_linktest --svg $OUT/linktest.svg $LT   (heat map and histogram)"
"$BIN/cube_linktest" --svg "$OUT/linktest.svg" "$LT"
ls -l "$OUT/linktest.svg"

say "cube_linktest testdata/linktest/v1/real_linktest1.2p1_n4.sion | head -8   (a real LinkTest 1.2 file)"
"$BIN/cube_linktest" testdata/linktest/v1/real_linktest1.2p1_n4.sion | head -8

say "cube_linktest --iterations testdata/linktest/lt2_a2a_M3.sion   (what LinkTest stored per iteration)"
"$BIN/cube_linktest" --iterations testdata/linktest/lt2_a2a_M3.sion

say "cube_linktest --cube $OUT/linktest.cube $LT; cube_stat -p -t 3 $OUT/linktest.cube   (the run as an experiment: the partners with the largest total time)"
"$BIN/cube_linktest" --cube "$OUT/linktest.cube" "$LT"
"$BIN/cube_stat" -p -t 3 "$OUT/linktest.cube"

# the MPI benchmark: a few seconds on 2 ranks, then the same tools on its output
if command -v mpiexec >/dev/null 2>&1 && [ -x "$BIN/cube_bench" ]; then
    cat >"$OUT/bench.par" <<'PAR'
@COMMENT make demo: ping-pong and allreduce, 1 B to 1 MiB
@MIN_REP_DEFAULT 32
@STANDARD_ERROR_DEFAULT 0.01
@MEASUREMENTS
Pingpong { Type = Pingpong_Send_Recv; Variation = Length; Scale = Fixed_log;
           Start_Argument = 1; End_Argument = 1048576; Stepwidth = 4; Node_Times = yes; }
Allreduce { Type = Allreduce; Variation = Length; Scale = Dynamic_log;
            Start_Argument = 4; End_Argument = 1048576; Stepwidth = 4; Max_Steps = 16; }
PAR
    say "mpiexec -n 2 cube_bench -p $OUT/bench.par -o $OUT/bench.cube -l $OUT/bench.log   (the MPI benchmark)"
    mpiexec -n 2 "$BIN/cube_bench" -p "$OUT/bench.par" -o "$OUT/bench.cube" -l "$OUT/bench.log"
    grep -E '^suite|len=(1|1024|1048576) ' "$OUT/bench.log" | wrap

    say "cube_stat -p -r Pingpong $OUT/bench.cube   (half round trip per message length, both ranks)"
    "$BIN/cube_stat" -p -r Pingpong "$OUT/bench.cube"

    say "cube_dump -s csv -m time,stderr,reps -t 0 -c name=/len=/ $OUT/bench.cube | head -6"
    "$BIN/cube_dump" -s csv -m time,stderr,reps -t 0 -c name=/len=/ "$OUT/bench.cube" | head -6

    say "cube_statfile -s human $OUT/bench.stat | head -4   (the single measurements' statistics)"
    "$BIN/cube_statfile" -s human "$OUT/bench.stat" | head -4
fi
