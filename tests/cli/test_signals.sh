# Interrupted writes: every tool that writes a file gets SIGINT, SIGTERM,
# SIGHUP and SIGPIPE in the middle of a large write and must leave no
# temporary file (*.tmp.*), leave the earlier output byte for byte as it
# was, and die of the signal (exit status 128 + n; under mpiexec the rank
# that writes dies of it).
#
# How a write is caught in the middle: the tool runs in the background
# while this script polls for its temporary file; once that file is
# non-empty the tool is stopped (SIGSTOP), the file is checked to be still
# there (so the tool is stopped before its rename), the signal is sent and
# the tool continued (SIGCONT).  A tool that finished before it could be
# stopped is run again (at most 4 times) and then counts as a failure: the
# inputs are sized so that this does not happen.
#
# The tools run as built, also under VALGRIND=1: valgrind would make each
# run 20-50 times slower (reading the large inputs alone), and what is
# tested here is the handler's effect on files, which valgrind does not
# check; the handler is one small function run by every other CLI test's
# tools too, and SANITIZE=1 runs this test on the sanitized build.
. tests/cli/lib.sh

GEN=$(dirname "$BIN")/perf/gen_cube
GEN_LT=$(dirname "$BIN")/perf/gen_linktest
for g in "$GEN" "$GEN_LT"; do
    if [ ! -x "$g" ]; then
        not_ok "signals: the generator $g is missing (make check builds it)"
        exit 0
    fi
done
# a background job of a non-interactive shell starts with SIGINT ignored,
# which the tools (rightly) keep ignored: start them with the defaults
if ! env --default-signal=INT,TERM,HUP,PIPE true 2>/dev/null; then
    not_ok "signals: env --default-signal (coreutils 8.31 or later) is needed"
    exit 0
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

SIGS="INT TERM HUP PIPE"
signum() {
    case $1 in INT) echo 2 ;; TERM) echo 15 ;; HUP) echo 1 ;; PIPE) echo 13 ;; esac
}

D=$TMP/d # the outputs; nothing else lives here, so any *.tmp.* is a leftover
mkdir -p "$D"

# now: seconds since the epoch (a fork: called once in many polls)
now() { date +%s; }

# descendants PID: the pids below PID (its children, theirs, ...), read from
# /proc with builtins only
descendants() {
    _todo=$1
    _found=
    while [ -n "$_todo" ]; do
        _next=
        for _st in /proc/[0-9]*/stat; do
            { read -r _line <"$_st"; } 2>/dev/null || continue
            _rest=${_line##*) }
            set -- $_rest
            for _p in $_todo; do
                if [ "$2" = "$_p" ]; then
                    _pid=${_st#/proc/}
                    _next="$_next ${_pid%/stat}"
                fi
            done
        done
        _found="$_found$_next"
        _todo=$_next
    done
    echo $_found
}

# opened_by FILE PIDS: the first of PIDS that has FILE open
opened_by() {
    _f=$1
    shift
    for _p in "$@"; do
        for _fd in /proc/"$_p"/fd/*; do
            if [ "$_fd" -ef "$_f" ]; then
                echo "$_p"
                return
            fi
        done
    done
}

# wait_stopped PIDS: until each of PIDS is stopped (state T in
# /proc/PID/stat) or gone.  kill -STOP only sends the signal; a process that
# is running takes it at its next return from the kernel, so the checks that
# follow see it standing still rather than about to rename.
wait_stopped() {
    for _p in "$@"; do
        _i=0
        while [ $_i -lt 10000 ]; do
            { read -r _line <"/proc/$_p/stat"; } 2>/dev/null || break
            _state=${_line##*) }
            case $_state in [TtZX]*) break ;; esac
            _i=$((_i + 1))
        done
    done
}

# catch_write SIG OUTPUTS -- CMD... : run CMD in the background until one of
# its temporary files is non-empty, stop the process that writes it there,
# send SIG, continue it, and wait.  Sets $rc (the status of CMD), $caught
# (the temporary file that was caught, empty when the write could not be
# caught) and saves each existing OUTPUT as it was at the stop in
# OUTPUT.before (a missing one: no .before).  CMD under mpiexec: the
# signal goes to the rank that writes.
catch_write() {
    _sig=$1
    shift
    _outs=
    while [ "$1" != -- ]; do
        _outs="$_outs $1"
        shift
    done
    shift
    caught=
    env --default-signal=INT,TERM,HUP,PIPE "$@" >"$TMP/sig.out" 2>"$TMP/sig.err" &
    _pid=$!
    _deadline=$(($(now) + 60))
    # what to stop: the tool, or under mpiexec its ranks (found before the
    # write, stopped at once when it is seen)
    _stopped=$_pid
    if [ -n "${RANKS:-}" ]; then
        _stopped=
        while kill -0 "$_pid" 2>/dev/null && [ "$(now)" -le "$_deadline" ]; do
            _stopped=
            _count=0
            for _p in $(descendants "$_pid"); do
                if [ /proc/"$_p"/exe -ef "$BIN/cube_bench" ]; then
                    _stopped="$_stopped $_p"
                    _count=$((_count + 1))
                fi
            done
            [ "$_count" = "$RANKS" ] && break
        done
    fi
    _polls=0
    while [ -z "$caught" ] && kill -0 "$_pid" 2>/dev/null; do
        for _f in "$D"/*.tmp.*; do
            if [ -s "$_f" ]; then
                caught=$_f
                break
            fi
        done
        [ -n "$caught" ] && break
        _polls=$((_polls + 1))
        if [ $((_polls % 2000)) = 0 ] && [ "$(now)" -gt "$_deadline" ]; then
            echo "# signals: no temporary file after 60 s: $*"
            break
        fi
    done
    _writer=
    if [ -n "$caught" ]; then
        kill -STOP $_stopped 2>/dev/null
        wait_stopped $_stopped
        [ -e "$caught" ] && _writer=$(opened_by "$caught" $_stopped)
        [ -n "$_writer" ] || caught= # finished meanwhile: a miss
    fi
    for _o in $_outs; do
        rm -f "$_o.before"
        [ -e "$_o" ] && cp -p "$_o" "$_o.before"
    done
    if [ -n "$caught" ]; then
        kill -s "$_sig" "$_writer"
        kill -CONT $_stopped 2>/dev/null
    else
        kill -CONT $_stopped 2>/dev/null
    fi
    wait "$_pid"
    rc=$?
}

# check_interrupted DESC SIG OUTPUTS... : after catch_write
check_interrupted() {
    _desc=$1
    _n=$(signum "$2")
    shift 2
    _left=$(ls "$D" | grep '\.tmp\.')
    if [ -z "$_left" ]; then ok "$_desc: no temporary file left"; else
        not_ok "$_desc: temporary files left: $_left"
        rm -f "$D"/*.tmp.*
    fi
    for _o in "$@"; do
        if [ -e "$_o.before" ]; then
            expect_file_eq "$_o.before" "$_o" "$_desc: the earlier $(basename "$_o") is intact"
        elif [ -e "$_o" ]; then
            not_ok "$_desc: $(basename "$_o") appeared although the write was interrupted"
        else
            ok "$_desc: no $(basename "$_o") appeared"
        fi
    done
    if [ "$(wc -l <"$TMP/sig.err")" -le 1 ]; then ok "$_desc: at most one line on stderr"; else
        not_ok "$_desc: $(wc -l <"$TMP/sig.err") lines on stderr"
        head -3 "$TMP/sig.err" | sed 's/^/#   /'
    fi
}

# interrupt DESC SEED OUT -- CMD... : for every signal, OUT (named in
# CMD) first holds the bytes of SEED, then CMD is interrupted
# while it writes OUT; exit status 128 + n
interrupt() {
    _name=$1
    _seed=$2
    _out=$3
    shift 4
    for s in $SIGS; do
        cp "$_seed" "$_out"
        tries=0
        caught=
        while [ -z "$caught" ] && [ $tries -lt 4 ]; do
            tries=$((tries + 1))
            catch_write "$s" "$_out" -- "$@"
            [ -n "$caught" ] || cp "$_seed" "$_out"
        done
        if [ -z "$caught" ]; then
            not_ok "$_name, SIG$s: the write ended before it could be interrupted ($tries runs)"
            continue
        fi
        [ $tries = 1 ] || echo "# $_name, SIG$s: caught in run $tries"
        expect_rc $((128 + $(signum "$s"))) "$_name, SIG$s: exit status 128 + $(signum "$s")"
        check_interrupted "$_name, SIG$s" "$s" "$_out"
        rm -f "$_out"*
    done
}

# --- inputs -------------------------------------------------------------------
T0=$(now)
"$GEN" --target-mb 6 --seed 1 -o "$TMP/big.cube" || not_ok "signals: gen_cube failed"
"$GEN" --target-mb 2 --seed 2 -o "$TMP/mid.cube" || not_ok "signals: gen_cube failed"
# many regions: cube_stat -t all prints a line per region
"$GEN" --cnodes 20000 --regions 20000 --metrics 2 --threads 2 --seed 3 -o "$TMP/regions.cube" ||
    not_ok "signals: gen_cube failed"
"$GEN_LT" --ranks 256 --iterations 2 -o "$TMP/big.sion" || not_ok "signals: gen_linktest failed"
# the heat map grows with the square of the ranks
"$GEN_LT" --ranks 768 -o "$TMP/wide.sion" || not_ok "signals: gen_linktest failed"
# the box plot has a box per pattern: many metrics
"$GEN" --metrics 2000 --cnodes 20 --threads 2 -o "$TMP/metrics.cube" || not_ok "signals: gen_cube failed"
SEED=testdata/cube/kojak-expert_ctest-pomp.cube

# --- the tools ----------------------------------------------------------------
interrupt "cube_clean" "$SEED" "$D/out.cube" -- "$BIN/cube_clean" -o "$D/out.cube" "$TMP/big.cube"
interrupt "cube_clean -z" "$SEED" "$D/out.cube.gz" -- "$BIN/cube_clean" -o "$D/out.cube.gz" "$TMP/big.cube"
for t in cube_diff cube_merge cube_mean; do
    interrupt "$t" "$SEED" "$D/out.cube" -- "$BIN/$t" -o "$D/out.cube" "$TMP/big.cube" "$TMP/mid.cube"
done
interrupt "cube_dump -o" "$SEED" "$D/out.txt" -- "$BIN/cube_dump" -o "$D/out.txt" "$TMP/mid.cube"
interrupt "cube_stat -o" "$SEED" "$D/out.csv" -- "$BIN/cube_stat" -t all -o "$D/out.csv" "$TMP/regions.cube"

# statistics files: written from an experiment, printed, drawn
"$BIN/cube_statfile" --from-cube "$TMP/big.cube" -m all --instances=100000 -o "$TMP/big.stat" &&
    "$BIN/cube_statfile" --from-cube "$TMP/metrics.cube" -m all -o "$TMP/patterns.stat" ||
    not_ok "signals: cube_statfile --from-cube failed"
interrupt "cube_statfile --from-cube" "$SEED" "$D/out.stat" -- \
    "$BIN/cube_statfile" --from-cube "$TMP/big.cube" -m all --instances=100000 -o "$D/out.stat"
interrupt "cube_statfile -o" "$SEED" "$D/out.csv" -- \
    "$BIN/cube_statfile" --instances -o "$D/out.csv" "$TMP/big.stat"
interrupt "cube_statfile --svg" "$SEED" "$D/out.svg" -- \
    "$BIN/cube_statfile" --svg "$D/out.svg" "$TMP/patterns.stat"

# LinkTest: the run as an experiment, the heat map
interrupt "cube_linktest --cube" "$SEED" "$D/out.cube" -- \
    "$BIN/cube_linktest" --cube "$D/out.cube" "$TMP/big.sion"
interrupt "cube_linktest -o" "$SEED" "$D/out.csv" -- \
    "$BIN/cube_linktest" --matrix -s csv -o "$D/out.csv" "$TMP/big.sion"
interrupt "cube_linktest --svg" "$SEED" "$D/out.svg" -- \
    "$BIN/cube_linktest" --svg "$D/out.svg" "$TMP/wide.sion"

echo "# signals: the single tools took $(($(now) - T0)) s"

# --- cube_bench ---------------------------------------------------------------
if ! command -v mpiexec >/dev/null 2>&1 || [ ! -x "$BIN/cube_bench" ]; then
    not_ok "signals: mpiexec or $BIN/cube_bench is missing"
    exit 0
fi
T0=$(now)
# a suite with 500 arguments (a save of about 200 kB), then 20 small suites:
# 21 saves of the experiment and the statistics file
{
    printf '@MIN_REP_DEFAULT 2\n@MAX_REP_DEFAULT 2\n@TIME_MEAS_DEFAULT 0.001\n@MEASUREMENTS\n'
    printf 'PP { Type = Pingpong_Send_Recv; Variation = Length; Scale = Fixed_linear; '
    printf 'Start_Argument = 1; End_Argument = 500; Stepwidth = 1; }\n'
    i=1
    while [ $i -le 20 ]; do
        printf 'W%d { Type = Wtime; }\n' $i
        i=$((i + 1))
    done
} >"$TMP/sig.par"

# the per-suite saves, under mpiexec: the rank that writes gets the signal
# (mpiexec forwards only SIGINT and SIGTERM itself); it dies of it, which
# mpiexec reports as "(signal N)"
for s in $SIGS; do
    n=$(signum "$s")
    tries=0
    caught=
    while [ -z "$caught" ] && [ $tries -lt 4 ]; do
        tries=$((tries + 1))
        rm -f "$D"/run.*
        RANKS=2 catch_write "$s" "$D/run.cube" "$D/run.stat" -- \
            timeout 120 mpiexec -n 2 "$BIN/cube_bench" -p "$TMP/sig.par" -o "$D/run.cube"
    done
    desc="cube_bench per-suite save, SIG$s"
    if [ -z "$caught" ]; then
        not_ok "$desc: no save could be interrupted ($tries runs)"
        continue
    fi
    [ $tries = 1 ] || echo "# $desc: caught in run $tries"
    cat "$TMP/sig.out" "$TMP/sig.err" >"$TMP/sig.all"
    expect_grep "(signal $n)" "$TMP/sig.all" "$desc: the writing rank died of the signal"
    check_interrupted "$desc" "$s" "$D/run.cube" "$D/run.stat" 2>/dev/null
    if [ "$s" = INT ]; then
        # what the interrupted run left is a run to continue
        timeout 120 mpiexec -n 2 "$BIN/cube_bench" -p "$TMP/sig.par" -o "$D/run.cube" \
            >"$TMP/out" 2>"$TMP/err"
        rc=$?
        expect_rc 0 "$desc: started again, the run completes"
        expect_grep "^run complete: 21 of 21 suites" "$D/run.log" "$desc: the log says it completed"
    fi
done
rm -f "$D"/run.*

# --merge and --report (no MPI): eight copies of one complete run
timeout 120 mpiexec -n 2 "$BIN/cube_bench" -p "$TMP/sig.par" -o "$TMP/run.cube" >"$TMP/out" 2>&1 ||
    not_ok "signals: a complete cube_bench run failed"
RUNS=
for i in 1 2 3 4 5 6 7 8; do
    cp "$TMP/run.cube" "$TMP/run$i.cube"
    RUNS="$RUNS $TMP/run$i.cube"
done
interrupt "cube_bench --merge" "$SEED" "$D/merged.cube" -- \
    "$BIN/cube_bench" --merge -o "$D/merged.cube" $RUNS
interrupt "cube_bench --report" "$SEED" "$D/report.html" -- \
    "$BIN/cube_bench" --report -o "$D/report.html" $RUNS
echo "# signals: cube_bench took $(($(now) - T0)) s"
