# MAXDOUBLE and MINDOUBLE metrics combine by maximum and minimum in every
# view of cube_dump and cube_stat (call tree, threads, system tree, flat
# profile, metric tree, value modes), checked against an independent
# computation from the files' rows (minmax_ref.py), on the Score-P profile
# and on a hand-made file with negative values and missing rows.  Also:
# metric names given by display name (-m Time) in every tool that takes them.
. tests/cli/lib.sh
SCOREP=testdata/cube/scorep-1.1_profile.cube
MM=testdata/views/minmax.cube
REF=tests/cli/minmax_ref.py

# --- the Score-P profile: max_time at MAIN__ over its threads is their
# largest value (10.823358118998, thread 18), not the sum of the four
# process maxima (43.36)
run cube_dump -m max_time -t aggr -c 0 "$SCOREP"
expect_grep '^max_time,0,MAIN__,.*,aggr,aggr,aggr,10.823358118998$' "$TMP/out" \
    "cube_dump: max_time at MAIN__ over all threads is the largest thread value"
run cube_dump -m max_time -c 0 "$SCOREP"
largest=$(awk -F, 'NR > 1 { if (max == "" || $10 > max) max = $10 } END { print max }' "$TMP/out")
if [ "$largest" = 10.823358118998 ]; then ok "the largest of MAIN__'s stored max_time values is 10.823358118998"
else not_ok "the largest of MAIN__'s stored max_time values is 10.823358118998 (got $largest)"; fi
for m in max_time min_time time; do
    "$BIN/cube_dump" -m $m -t aggr -z incl "$SCOREP" >"$TMP/a.csv"
    pycheck "Score-P $m: call-inclusive values over all threads" $REF "$SCOREP" $m incl-aggr "$TMP/a.csv"
    "$BIN/cube_dump" -m $m -t aggr "$SCOREP" >"$TMP/a.csv"
    pycheck "Score-P $m: call-exclusive values over all threads" $REF "$SCOREP" $m excl-aggr "$TMP/a.csv"
    "$BIN/cube_dump" -m $m -z incl -t 0,9,35 "$SCOREP" >"$TMP/a.csv"
    pycheck "Score-P $m: call-inclusive values per thread" $REF "$SCOREP" $m incl-threads "$TMP/a.csv"
    "$BIN/cube_dump" -m $m -r -t aggr "$SCOREP" >"$TMP/a.csv"
    pycheck "Score-P $m: flat profile over all threads" $REF "$SCOREP" $m flat-aggr "$TMP/a.csv"
done
for mode in callroot callsel peer; do
    "$BIN/cube_dump" -m max_time --mode=$mode -c 0-20 "$SCOREP" >"$TMP/a.csv"
    pycheck "Score-P max_time: --mode=$mode" $REF "$SCOREP" max_time mode "$TMP/a.csv" $mode
done

# --- the hand-made file: negative values, missing rows, recursion, two
# nodes, metric tree
for m in max_t min_t time; do
    "$BIN/cube_dump" -m $m -z incl "$MM" >"$TMP/a.csv"
    pycheck "hand-made $m: call-inclusive per thread" $REF "$MM" $m incl-threads "$TMP/a.csv"
    "$BIN/cube_dump" -m $m -z incl -t aggr "$MM" >"$TMP/a.csv"
    pycheck "hand-made $m: call-inclusive over all threads" $REF "$MM" $m incl-aggr "$TMP/a.csv"
    "$BIN/cube_dump" -m $m -t aggr "$MM" >"$TMP/a.csv"
    pycheck "hand-made $m: call-exclusive over all threads" $REF "$MM" $m excl-aggr "$TMP/a.csv"
    "$BIN/cube_dump" -m $m -r "$MM" >"$TMP/a.csv"
    pycheck "hand-made $m: flat profile per thread" $REF "$MM" $m flat "$TMP/a.csv"
    "$BIN/cube_dump" -m $m -r -t aggr "$MM" >"$TMP/a.csv"
    pycheck "hand-made $m: flat profile over all threads" $REF "$MM" $m flat-aggr "$TMP/a.csv"
    for mode in absolute metricroot metricsel callroot callsel ownroot sysroot syssel peer peerdist; do
        "$BIN/cube_dump" -m $m --mode=$mode "$MM" >"$TMP/a.csv"
        pycheck "hand-made $m: --mode=$mode" $REF "$MM" $m mode "$TMP/a.csv" $mode
    done
done
# by hand: min_t at main, inclusive over all threads, is -1 (g below f
# below f at thread 0); call path 1 has no min_t row and does not make it 0;
# its own value is no value ("-"), the reference library's +DBL_MAX
run cube_dump -m min_t -t aggr -c 1 "$MM"
expect_grep '^min_t,1,main/f,f,m.c,10,aggr,aggr,aggr,-$' "$TMP/out" \
    "hand-made min_t: a call path without a row has no value of its own"
run cube_dump -m min_t -t aggr -c 1 -s json "$MM"
expect_grep '"value":null' "$TMP/out" "hand-made min_t: no value is null in json"
run cube_dump -m min_t -z incl -t aggr -c 0,1 "$MM"
expect_text_eq "metric,cnode_id,call_path,region,module,line,location,process,thread,value
min_t,0,main,main,m.c,1,aggr,aggr,aggr,-1
min_t,1,main/f,f,m.c,10,aggr,aggr,aggr,-1" "$TMP/out" "hand-made min_t: a missing row takes no part"
# the metric tree: a maximum is not a part of the sum above it, and loses
# nothing to the sum below it
run cube_dump -x excl -m time,max_t -t aggr -z incl -c 0 -s tsv "$MM"
expect_text_eq "metric	cnode_id	call_path	region	module	line	location	process	thread	value
time	0	main	main	m.c	1	aggr	aggr	aggr	12
max_t	0	main	main	m.c	1	aggr	aggr	aggr	4" "$TMP/out" \
    "hand-made metric tree: exclusive values of a sum over a maximum and of a maximum over a sum"
# the call-tree profile of cube_stat: inclusive and exclusive over threads;
# main/g has no max_t row: no value, not 0
run cube_stat -m max_t,min_t "$MM"
expect_text_eq "Routine,max_t,min_t
INCL(main),4,-1
EXCL(main),-1,3
f,4,-1
g,-,0" "$TMP/out" "cube_stat: inclusive and exclusive max_t and min_t of main"
# cube_stat -t: the flat profile's columns follow the metric
run cube_stat -t 3 -m max_t "$MM"
expect_grep '^"f",,6,9,2$' "$TMP/out" "cube_stat -t -m max_t: region f's maximum over its call paths"

# --- metric names: a display name where it is unique, never an ambiguous one
run cube_dump -m "Maximum Time" -t aggr -c 0 "$MM"
expect_grep '^max_t,0,' "$TMP/out" "cube_dump -m takes a unique display name"
run cube_dump -m Time "$MM"
expect_rc 2 "cube_dump -m with an ambiguous display name exits 2"
expect_text_eq "cube_dump: $MM: -m Time matches 2 metrics: time, time_in_max; use a unique name" \
    "$TMP/err" "cube_dump lists the metrics an ambiguous display name matches"
run cube_dump -m Time -t aggr -c 0 "$SCOREP"
expect_grep '^time,0,MAIN__,' "$TMP/out" "cube_dump -m Time on the Score-P profile means time"
run cube_stat -m "Minimum Time" "$MM"
expect_text_eq "Routine,min_t
INCL(main),-1
EXCL(main),3
f,-1
g,0" "$TMP/out" "cube_stat -m takes a unique display name"
run cube_stat -m Time "$MM"
expect_rc 2 "cube_stat -m with an ambiguous display name exits 2"
expect_grep "matches 2 metrics: time, time_in_max; use a unique name" "$TMP/err" \
    "cube_stat lists the candidates"
run cube_statfile --from-cube "$MM" -m "Maximum Time" -o "$TMP/s.stat"
expect_rc 0 "cube_statfile --from-cube -m takes a unique display name"
run cube_statfile --from-cube "$MM" -m Time -o "$TMP/s.stat"
expect_rc 2 "cube_statfile --from-cube -m with an ambiguous display name exits 2"
expect_grep "matches 2 metrics: time, time_in_max; use a unique name" "$TMP/err" \
    "cube_statfile lists the candidates"
run cube_cmp --metric="Maximum Time" "$MM" "$MM"
expect_rc 0 "cube_cmp --metric takes a unique display name"
run cube_cmp --metric=Time "$MM" "$MM"
expect_rc 2 "cube_cmp --metric with an ambiguous display name exits 2"
expect_text_eq "cube_cmp: --metric Time matches 2 metrics: time, time_in_max; use a unique name" \
    "$TMP/err" "cube_cmp lists the candidates"

# --- a minimum without any row (the CUBE 4 conversion of the Score-P
# profile stores no min_time row): no value anywhere, printed "-" (null in
# json) by every tool, never 0 nor 1.7976931348623157e+308
X=testdata/cubex/cube3to4_scorep-1.1_profile.cubex
run cube_dump -m min_time -t aggr -c 0 "$X"
expect_grep '^min_time,0,MAIN__,.*,aggr,aggr,aggr,-$' "$TMP/out" "cube_dump: min_time without rows has no value"
run cube_dump -m min_time -r -t aggr "$X"
expect_eq 0 "$(awk -F, 'NR > 1 && ($(NF-2) != "-" || $(NF-1) != "-" || $NF != "-")' "$TMP/out" | wc -l)" \
    "cube_dump -r: no region has a min_time value"
run cube_stat -m min_time "$X"
head -4 "$TMP/out" >"$TMP/head"
expect_text_eq "Routine,min_time
INCL(MAIN__),-
EXCL(MAIN__),-
mpi_setup_,-" "$TMP/head" "cube_stat: min_time without rows has no value"
run cube_info "$X"
expect_grep "^  min_time	Minimum Inclusive Time	MINDOUBLE	sec	-\$" "$TMP/out" "cube_info: min_time's total is no value"
run cube_info --json "$X"
expect_grep '"uniq_name":"min_time",[^}]*"total":null}' "$TMP/out" "cube_info --json: min_time's total is null"
# the CUBE 3 original stores zeros: a value, 0
run cube_stat -m min_time "$SCOREP"
expect_grep '^INCL(MAIN__),0$' "$TMP/out" "cube_stat: the CUBE 3 profile's stored zeros of min_time are 0"
