# cube_bench under mpiexec: every pattern and operation runs (2 ranks; the
# collective and master-worker patterns also on 3 ranks with tiny
# repetition caps: the machine has 2 cores and MPICH polls busily, so never
# more ranks); the CUBE output reads back (cube_info, cube_dump -s csv)
# with the call tree, system tree and attributes of cube_bench(1); values
# are positive and meet the requested standard error unless the log says
# the measurement stopped at Max_Repetition or the time limit; the
# statistics file passes cube_statfile --check and its counts equal the
# reps metric; the shipped default.par runs without -p; bad parameter
# files and usage errors exit 2 with FILE:LINE and write nothing.
. tests/cli/lib.sh

if [ "${VALGRIND:-0}" = 1 ]; then
    # valgrind under mpiexec measures valgrind; the pure modules have unit tests
    ok "cube_bench # SKIP not under valgrind"
    exit 0
fi
# mpiexec and cube_bench are part of the build (make deps installs MPICH):
# without them nothing here can pass
if ! command -v mpiexec >/dev/null 2>&1 || [ ! -x "$BIN/cube_bench" ]; then
    not_ok "cube_bench: mpiexec or $BIN/cube_bench is missing"
    exit 0
fi
# MPICH and UCX keep some memory until exit; that is not ours to report
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# mpirun N ARGS... : cube_bench on N ranks; stdout/stderr/status as run()
mpirun() {
    n=$1
    shift
    timeout 120 mpiexec -n "$n" "$BIN/cube_bench" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}

# The checks of one run: the experiment (cube_dump -s csv), the statistics
# file and the log against the parameters.
cat >"$TMP/check.py" <<'EOF'
import csv, os, re, sys

cube_csv, stat, log, nprocs, rel, max_rep = sys.argv[1:7]
expect_suites = sys.argv[7].split(",")
nprocs, rel, max_rep = int(nprocs), float(rel), int(max_rep)

def fail(msg):
    sys.exit(msg)

rows = list(csv.DictReader(open(cube_csv, newline="")))
val = {}      # (metric, call path, process) -> value
paths = {}    # call path -> cnode id
for r in rows:
    val[(r["metric"], r["call_path"], int(r["process"]))] = float(r["value"])
    paths[r["call_path"]] = int(r["cnode_id"])
procs = {int(r["process"]) for r in rows}
if procs != set(range(nprocs)):
    fail("processes %s, expected 0..%d" % (sorted(procs), nprocs - 1))

# the log: "suite NAME (line N): ..." then "  ARG  ... stop: REASON after ..."
stops, cur = {}, None
for line in open(log):
    m = re.match(r"suite (\S+) \(line \d+\)", line)
    if m:
        cur = m.group(1)
        continue
    m = re.match(r"  (\S+)\s.* single measurements? .* stop: (\w+) after", line)
    if m and cur:
        stops[cur + "/" + m.group(1)] = m.group(2)

def argval(name):
    m = re.match(r"\w+=(\d+)$", name)
    return int(m.group(1)) if m else 0

points = 0
for suite in expect_suites:
    kids = sorted((p for p in paths if p.startswith("cube_bench/" + suite + "/")),
                  key=lambda p: paths[p])
    if not kids:
        fail("suite %s: no arguments in the call tree" % suite)
    args = [argval(p.rsplit("/", 1)[1]) for p in kids]
    if args != sorted(args) or len(set(args)) != len(args):
        fail("suite %s: arguments not ascending in call-tree order: %s" % (suite, args))
    for p in kids:
        key = p[len("cube_bench/"):]
        t = val.get(("time", p, 0), 0.0)
        se = val.get(("stderr", p, 0), 0.0)
        reps = val.get(("reps", p, 0), 0.0)
        dummy = val.get(("dummy_time", p, 0), 0.0)
        # the time is the mean minus the empty loop's (dummy) time: an
        # operation as cheap as the loop itself (MPI_Comm_rank) may come out
        # at zero or a rounding error below, but only within its noise or
        # below a nanosecond, finer than any MPI_Wtime resolution (every
        # sample then shows the loop's own time, and the noise can be 0)
        if not (t > 0 or -t <= 3 * se + 1e-9):
            fail("%s: time %r is not positive (stderr %r)" % (key, t, se))
        if not (se >= 0 and reps >= 1 and dummy >= 0):
            fail("%s: stderr %r reps %r dummy %r" % (key, se, reps, dummy))
        stop = stops.get(key)
        if stop is None:
            fail("%s: not in the log" % key)
        # the bound is on the mean before the dummy time is subtracted
        if se > rel * (t + dummy) * (1 + 1e-9):
            if not (stop in ("max_rep", "time") and (stop != "max_rep" or reps == max_rep)):
                fail("%s: stderr %g above %g x %g, stop %s, reps %g" % (key, se, rel, t + dummy, stop, reps))
        if reps > max_rep:
            fail("%s: %g reps, more than Max_Repetition %d" % (key, reps, max_rep))
        # every executed operation: at least the timed ones and the
        # warm-up's minimum of 4
        ops = val.get(("ops", p, 0), 0.0)
        if not ops >= reps + 4:
            fail("%s: ops %r below reps %r + 4 warm-up operations" % (key, ops, reps))
        # collectives (COLL_SUITES): the mean over ranks at rank 0, near
        # rank 0's own time for 2 ranks; nothing for the other patterns
        tmr = val.get(("time_mean_ranks", p, 0))
        if suite in os.environ.get("COLL_SUITES", "").split():
            if tmr is None or not (tmr > 0 or -tmr <= 3 * se + 1e-9):
                fail("%s: time_mean_ranks %r" % (key, tmr))
        elif os.environ.get("COLL_SUITES") and tmr:
            fail("%s: time_mean_ranks %r for a suite that is no collective" % (key, tmr))
        points += 1

# the statistics file: one pattern per argument, its count the reps metric
pats = {}
for line in open(stat).read().splitlines()[1:]:
    f = line.split()
    if f and not line.startswith("-"):
        pats[f[0]] = (int(f[2]), [float(x) for x in f[3:]])
for p in paths:
    if p.count("/") != 2 or p.split("/")[1] not in expect_suites:
        continue
    key = p[len("cube_bench/"):]
    if key not in pats:
        fail("%s: no pattern in the statistics file" % key)
    count, st = pats[key]
    if count != val.get(("reps", p, 0)):
        fail("%s: statistics count %d, reps %r" % (key, count, val.get(("reps", p, 0))))
    mean, median, lo, hi, total, var, q25, q75 = st
    if not (lo <= q25 <= median <= q75 <= hi and var >= 0):
        fail("%s: statistics out of order: %s" % (key, st))
print("%d arguments checked" % points)
EOF

# --- every operation on 2 ranks ----------------------------------------------
P2P="Pingpong_Send_Recv Pingpong_Ssend_Recv Pingpong_Isend_Recv Pingpong_Bsend_Recv Pingpong_Sendrecv Pingpong_Irecv_Send Ping_Send"
COLL="Bcast Reduce Allreduce Gather Scatter Allgather Alltoall Reduce_scatter Scan"
MW="MW_Waitsome MW_Waitany MW_Recv_any"
SIMPLE="Wtime Comm_rank Iprobe"
{
    printf '@USER cube_bench test\n@MACHINE testmachine\n@COMMENT every operation, 2 ranks\n'
    printf '@MIN_REP_DEFAULT 8\n@MAX_REP_DEFAULT 60\n@STANDARD_ERROR_DEFAULT 0.05\n'
    printf '@TIME_MEAS_DEFAULT 0.002\n@TIME_SUITE_DEFAULT 0.02\n@MAX_STEPS_DEFAULT 8\n'
    printf '@MEASUREMENTS\n'
    for t in $P2P $COLL; do
        printf '%s {\n  Type = %s;\n  Variation = Length;\n  Scale = Dynamic_log;\n' "$t" "$t"
        printf '  Start_Argument = 4;\n  End_Argument = 65536;\n  Stepwidth = 16;\n  Node_Times = yes;\n}\n'
    done
    printf 'Barrier {\n  Type = Barrier;\n  Variation = Nodes;\n  Node_Times = yes;\n}\n'
    for t in $MW; do
        printf '%s {\n  Type = %s;\n  Variation = Chunks;\n  Scale = Fixed_log;\n' "$t" "$t"
        printf '  End_Argument = 8;\n  Stepwidth = 2;\n  Default_Message_length = 64;\n}\n'
    done
    for t in $SIMPLE; do
        printf '%s {\n  Type = %s;\n  Node_Times = yes;\n}\n' "$t" "$t"
    done
} >"$TMP/all.par"
ALL_SUITES=$(echo $P2P $COLL Barrier $MW $SIMPLE | tr ' ' ',')

mpirun 2 -p "$TMP/all.par" -o "$TMP/all.cube" -l "$TMP/all.log"
expect_rc 0 "cube_bench: every operation on 2 ranks"
if [ -s "$TMP/all.cube" ] && [ -s "$TMP/all.stat" ] && [ -s "$TMP/all.log" ]; then
    ok "cube_bench: experiment, statistics file and log written"
else
    not_ok "cube_bench: experiment, statistics file and log written"
fi

run cube_info "$TMP/all.cube"
expect_rc 0 "cube_bench: cube_info reads the experiment"
cp "$TMP/out" "$TMP/all.info"
expect_grep "metrics: 6 " "$TMP/all.info" "cube_bench: six metrics"
expect_grep "system: machines 1, nodes 1, processes 2, threads 2" "$TMP/all.info" \
    "cube_bench: one process per rank on one node"
expect_grep "machine testmachine" "$TMP/all.info" "cube_bench: the machine from @MACHINE"
for a in "@USER = cube_bench test" "@COMMENT = every operation, 2 ranks" "MPI library = " \
    "start time = " "end time = " "command line = .*cube_bench -p" "processes = 2"; do
    expect_grep "$a" "$TMP/all.info" "cube_bench: attribute '$a'"
done
for m in time stderr reps dummy_time ops time_mean_ranks; do
    expect_grep "^  $m	" "$TMP/all.info" "cube_bench: metric $m"
done
for a in "clock granularity = [0-9]" "clock resolution = [0-9]" "MPI_Wtime cost = [0-9]"; do
    expect_grep "$a" "$TMP/all.info" "cube_bench: attribute '$a'"
done

run cube_dump -s csv "$TMP/all.cube"
expect_rc 0 "cube_bench: cube_dump -s csv reads the experiment"
cp "$TMP/out" "$TMP/all.csv"
COLL_SUITES="$COLL Barrier"
export COLL_SUITES
pycheck "cube_bench: 2 ranks: every suite's values positive, within the standard error bound or stopped at max_rep/time; statistics counts = reps; ops; time_mean_ranks of collectives" \
    "$TMP/check.py" "$TMP/all.csv" "$TMP/all.stat" "$TMP/all.log" 2 0.05 60 "$ALL_SUITES"
unset COLL_SUITES

run cube_statfile --check --cube "$TMP/all.cube" "$TMP/all.stat"
expect_rc 0 "cube_bench: cube_statfile --check on the statistics file (joined with the experiment)"

# Node_Times: the partner's value is there for ping-pongs, only rank 0's for
# master-worker (Node_Times not given)
cat >"$TMP/nodetimes.py" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
v = {(r["metric"], r["call_path"], r["process"]): float(r["value"]) for r in rows}
def get(p, q):
    return v.get(("time", p, q), 0.0)
pp = "cube_bench/Pingpong_Send_Recv/len=4"
mw = "cube_bench/MW_Waitsome/chunks=1"
if not (get(pp, "0") > 0 and get(pp, "1") > 0):
    sys.exit("ping-pong: times %r %r" % (get(pp, "0"), get(pp, "1")))
if not (get(mw, "0") > 0 and get(mw, "1") == 0):
    sys.exit("master-worker without Node_Times: %r %r" % (get(mw, "0"), get(mw, "1")))
EOF
pycheck "cube_bench: Node_Times = yes gives every rank's value, else rank 0's" \
    "$TMP/nodetimes.py" "$TMP/all.csv"

# the log names each measurement's stop reason
expect_grep "stop: \(std_error\|max_rep\|time\) after" "$TMP/all.log" "cube_bench: the log gives stop reasons"
expect_grep "partner rank 1" "$TMP/all.log" "cube_bench: the log names the ping-pong partner"

# --- collectives and master-worker on 3 ranks, tiny caps --------------------
{
    printf '@MIN_REP_DEFAULT 2\n@MAX_REP_DEFAULT 3\n@STANDARD_ERROR_DEFAULT 0.05\n'
    printf '@TIME_MEAS_DEFAULT 0.001\n@TIME_SUITE_DEFAULT 0.01\n@MAX_STEPS_DEFAULT 3\n'
    printf '@MEASUREMENTS\n'
    printf 'Bcast { Type = Bcast; Variation = Nodes; Node_Times = yes; }\n'
    printf 'Allreduce { Type = Allreduce; Variation = Length; Scale = Fixed_log; Start_Argument = 8; End_Argument = 128; Stepwidth = 16; Node_Times = yes; }\n'
    printf 'Alltoall { Type = Alltoall; Variation = No_Variation; Default_Message_length = 64; Node_Times = yes; }\n'
    printf 'Barrier { Type = Barrier; Variation = Nodes; Node_Times = yes; }\n'
    printf 'MW_Waitsome { Type = MW_Waitsome; Variation = Nodes; }\n'
    printf 'MW_Waitany { Type = MW_Waitany; Variation = Chunks; Scale = Fixed_log; End_Argument = 4; Stepwidth = 4; }\n'
    printf 'MW_Recv_any { Type = MW_Recv_any; Variation = No_Variation; Default_Chunks = 4; }\n'
} >"$TMP/three.par"
mpirun 3 -p "$TMP/three.par" -o "$TMP/three.cube" -l "$TMP/three.log"
expect_rc 0 "cube_bench: collectives and master-worker on 3 ranks"
run cube_dump -s csv "$TMP/three.cube"
expect_rc 0 "cube_bench: cube_dump reads the 3-rank experiment"
cp "$TMP/out" "$TMP/three.csv"
pycheck "cube_bench: 3 ranks: values positive, bound met or stopped at max_rep/time; statistics counts = reps" \
    "$TMP/check.py" "$TMP/three.csv" "$TMP/three.stat" "$TMP/three.log" 3 0.05 3 \
    "Bcast,Allreduce,Alltoall,Barrier,MW_Waitsome,MW_Waitany,MW_Recv_any"
cat >"$TMP/nodes.py" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
v = {(r["metric"], r["call_path"], r["process"]): float(r["value"]) for r in rows}
# sub-communicators of 2 and 3 ranks: rank 2 takes part in the second only
for suite in ("Bcast", "Barrier"):
    two, three = "cube_bench/%s/nodes=2" % suite, "cube_bench/%s/nodes=3" % suite
    got2 = [v.get(("time", two, q), 0.0) > 0 for q in "012"]
    got3 = [v.get(("time", three, q), 0.0) > 0 for q in "012"]
    if got2 != [True, True, False] or got3 != [True, True, True]:
        sys.exit("%s: ranks with values %s (nodes=2), %s (nodes=3)" % (suite, got2, got3))
EOF
pycheck "cube_bench: Variation = Nodes measures on sub-communicators of 2 and 3 ranks" \
    "$TMP/nodes.py" "$TMP/three.csv"
run cube_statfile --check "$TMP/three.stat"
expect_rc 0 "cube_bench: the 3-rank statistics file passes --check"

# --- Partner: the ping-pong partner of the smallest or the largest latency on 3
# ranks (the log and the attributes name both; the suite must use the one asked)
for which in Min_Latency Max_Latency; do
    {
        printf '@MIN_REP_DEFAULT 2\n@MAX_REP_DEFAULT 3\n@TIME_MEAS_DEFAULT 0.001\n@TIME_SUITE_DEFAULT 0.01\n'
        printf '@MEASUREMENTS\n'
        printf 'PP { Type = Pingpong_Send_Recv; Variation = No_Variation; Default_Message_length = 8; Partner = %s; }\n' "$which"
    } >"$TMP/partner.par"
    mpirun 3 -p "$TMP/partner.par" -o "$TMP/partner.cube" -l "$TMP/partner.log"
    expect_rc 0 "cube_bench: Partner = $which on 3 ranks"
    run cube_info "$TMP/partner.cube"
    case $which in
        Min_Latency) attr="partner with the smallest latency" ;;
        *) attr="partner with the largest latency" ;;
    esac
    want=$(sed -n "s/.*$attr = \([0-9]*\) .*/\1/p" "$TMP/out" | head -n 1)
    if [ -n "$want" ] && grep -q "partner rank $want" "$TMP/partner.log"; then
        ok "cube_bench: Partner = $which measures with that partner (rank $want)"
    else
        not_ok "cube_bench: Partner = $which measures with that partner (attribute: '$want')"
        grep -i partner "$TMP/partner.log" "$TMP/out" | head -5 | sed 's/^/#   /'
    fi
done

# --- the shipped default.par (no -p), output name from -o ---------------------
mpirun 2 -o "$TMP/default.cube" -l "$TMP/default.log"
expect_rc 0 "cube_bench: without -p the shipped default.par runs"
# every suite of default.par ends within its Time_Suite: at most one single
# measurement past it (a 4 MiB collective: milliseconds) and the suite's
# bookkeeping, whatever the machine's speed
cat >"$TMP/default_limits.py" <<'EOF'
import re, sys
units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
n = 0
for line in open(sys.argv[1]):
    m = re.search(r"arguments? in ([0-9.]+) (ns|us|ms|s) \(limit ([0-9.]+) (ns|us|ms|s)\)", line)
    if not m:
        continue
    n += 1
    took, limit = float(m.group(1)) * units[m.group(2)], float(m.group(3)) * units[m.group(4)]
    if took > limit + 0.5:
        sys.exit("a suite took %g s against its limit of %g s: %s" % (took, limit, line.strip()))
if n < 15:
    sys.exit("only %d suites with a time limit in the log" % n)
EOF
pycheck "cube_bench: every suite of default.par ends within its Time_Suite" \
    "$TMP/default_limits.py" "$TMP/default.log"
run cube_dump -s csv -m reps "$TMP/default.cube"
# up to 4 MiB, unless the machine is so busy that the suite's time limit
# (which may cut a suite short) ended it first: the log says so
if grep -q "cube_bench/Pingpong_Send_Recv/len=4194304," "$TMP/out"; then
    ok "cube_bench: default.par measures ping-pongs up to 4 MiB"
elif sed -n '/^suite Pingpong_Send_Recv /,/^suite done/p' "$TMP/default.log" |
    grep -q "Time_Suite reached"; then
    ok "cube_bench: default.par's ping-pong suite was cut short by its time limit (a busy machine; the log says so)"
else
    not_ok "cube_bench: default.par measures ping-pongs up to 4 MiB"
fi
expect_grep "cube_bench/Alltoall/len=1," "$TMP/out" "cube_bench: default.par measures collectives from 1 B"
run cube_statfile --check "$TMP/default.stat"
expect_rc 0 "cube_bench: default.par's statistics file passes --check"

# Time_Suite bounds a suite's measurements too: a measurement that cannot
# reach its standard error (0.01 %) would run its 0.6 s Time_Measurement,
# but the suite's 60 ms end it first (without the bound the first argument
# alone takes 0.6 s)
printf '@MEASUREMENTS\nP {\n  Type = Pingpong_Send_Recv;\n  Variation = Length;\n  Scale = Dynamic_log;\n  Start_Argument = 1;\n  End_Argument = 1048576;\n  Standard_error = 0.0001;\n  Max_Repetition = 1000000;\n  Time_Measurement = 0.01;\n  Time_Suite = 0.001;\n}\n' >"$TMP/suite_limit.par"
mpirun 2 -p "$TMP/suite_limit.par" -o "$TMP/suite_limit.cube" -l "$TMP/suite_limit.log"
expect_rc 0 "cube_bench: a suite with a 60 ms Time_Suite and a 0.6 s Time_Measurement runs"
cat >"$TMP/suite_limit.py" <<'EOF'
import re, sys
units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
text = open(sys.argv[1]).read()
m = re.search(r"(\d+) arguments? in ([0-9.]+) (ns|us|ms|s) \(limit ([0-9.]+) (ns|us|ms|s)\)", text)
if not m:
    sys.exit("no suite summary in the log")
took = float(m.group(2)) * units[m.group(3)]
limit = float(m.group(4)) * units[m.group(5)]
if abs(limit - 0.06) > 1e-9:
    sys.exit("limit %g s, expected 0.06 s" % limit)
if not re.search(r"stop: time after", text):
    sys.exit("no measurement stopped by the time")
# one single measurement of a 1 MiB ping-pong and the bookkeeping after the limit
if took > limit + 0.2:
    sys.exit("the suite took %g s against its limit of %g s" % (took, limit))
EOF
pycheck "cube_bench: a measurement ends with its suite's Time_Suite, not only its own Time_Measurement" \
    "$TMP/suite_limit.py" "$TMP/suite_limit.log"

# @OUTFILE names the output when there is no -o; -o - writes to stdout
printf '@OUTFILE %s\n@MAX_REP_DEFAULT 4\n@MIN_REP_DEFAULT 2\n@MEASUREMENTS\nW { Type = Wtime; }\n' \
    "$TMP/named.cube" >"$TMP/named.par"
mpirun 2 -p "$TMP/named.par"
expect_rc 0 "cube_bench: @OUTFILE"
if [ -s "$TMP/named.cube" ] && [ -s "$TMP/named.stat" ]; then ok "cube_bench: @OUTFILE names the output"; else
    not_ok "cube_bench: @OUTFILE names the output"; fi
mpirun 2 -p "$TMP/named.par" -o -
expect_rc 0 "cube_bench: -o -"
cp "$TMP/out" "$TMP/stdout.cube"
run cube_info "$TMP/stdout.cube"
expect_rc 0 "cube_bench: -o - writes the experiment to standard output"

# --- errors --------------------------------------------------------------------
# bad parameter files: exit 2 on every rank, FILE:LINE in one message, no output
printf '@MEASUREMENTS\nX {\n  Type = Nonsense;\n}\n' >"$TMP/bad_type.par"
printf '@MEASUREMENTS\nX {\n  Type = Bcast;\n  Variation = Chunks;\n}\n' >"$TMP/bad_var.par"
printf '@MEASUREMENTS\nX {\n  Type = Bcast\n  Variation = Length;\n}\n' >"$TMP/bad_semi.par"
printf '@MIN_REP_DEFAULT many\n@MEASUREMENTS\n' >"$TMP/bad_value.par"
printf '@MEASUREMENTS\nX {\n  Type = Bcast;\n  Start_Argument = 8;\n  End_Argument = 4;\n}\n' >"$TMP/bad_range.par"
# (the missing ';' may be blamed on its line or on the next token's)
for b in bad_type:3 bad_var:4 'bad_semi:[34]' bad_value:1 bad_range:5; do
    f=${b%%:*}
    line=${b#*:}
    mpirun 2 -p "$TMP/$f.par" -o "$TMP/$f.cube"
    expect_rc 2 "cube_bench: $f.par exits 2"
    expect_grep "^cube_bench: .*$f.par:$line: expected" "$TMP/err" "cube_bench: $f.par: FILE:LINE: expected ..."
    if [ "$(grep -c . "$TMP/err")" = 1 ]; then ok "cube_bench: $f.par: one message for all ranks"; else
        not_ok "cube_bench: $f.par: one message for all ranks ($(grep -c . "$TMP/err") lines)"; fi
    if [ ! -e "$TMP/$f.cube" ]; then ok "cube_bench: $f.par: nothing written"; else
        not_ok "cube_bench: $f.par: nothing written"; fi
done
mpirun 2 -p "$TMP/does-not-exist.par"
expect_rc 2 "cube_bench: a missing parameter file exits 2"
expect_grep "does-not-exist.par" "$TMP/err" "cube_bench: the missing file is named"
mpirun 2 -p "$TMP/named.par" -o "$TMP/no/such/dir/x.cube"
expect_rc 2 "cube_bench: an output directory that does not exist exits 2 before measuring"
mpirun 2 --bogus
expect_rc 2 "cube_bench: an unknown option exits 2"
mpirun 2 -p "$TMP/named.par" extra
expect_rc 2 "cube_bench: an extra argument exits 2"
mpirun 2 --help
expect_rc 0 "cube_bench --help"
expect_grep "^usage: mpiexec -n P cube_bench" "$TMP/out" "cube_bench --help prints the usage"
mpirun 1 --version
expect_rc 0 "cube_bench --version"
expect_text_eq "cube_bench $CUBE_VERSION (libcube $CUBE_VERSION)" "$TMP/out" "cube_bench --version prints the version of cube.h"

# a point-to-point suite on one rank is skipped with a warning, the rest runs
printf '@MAX_REP_DEFAULT 4\n@MIN_REP_DEFAULT 2\n@MEASUREMENTS\nPP { Type = Pingpong_Send_Recv; Variation = No_Variation; }\nW { Type = Wtime; }\n' \
    >"$TMP/one.par"
mpirun 1 -p "$TMP/one.par" -o "$TMP/one.cube"
expect_rc 0 "cube_bench: one rank"
expect_grep "warning: suite PP skipped: .*needs at least 2 processes" "$TMP/err" \
    "cube_bench: one rank: the ping-pong suite is skipped with a warning"
run cube_dump -s csv -m time "$TMP/one.cube"
expect_grep "cube_bench/W/MPI_Wtime," "$TMP/out" "cube_bench: one rank: the other suites are measured"

# --- resume: stopped after its second suite by the test hook, then
# started again; the result has every suite, the kept suites' values are
# exactly those of the stopped run's saved experiment and statistics file,
# and the structure equals an uninterrupted run's (Fixed scales: the same
# arguments every time)
{
    printf '@MIN_REP_DEFAULT 2\n@MAX_REP_DEFAULT 4\n@STANDARD_ERROR_DEFAULT 0.05\n'
    printf '@TIME_MEAS_DEFAULT 0.001\n@TIME_SUITE_DEFAULT 1\n@MEASUREMENTS\n'
    printf 'PP { Type = Pingpong_Send_Recv; Variation = Length; Scale = Fixed_log; Start_Argument = 4; End_Argument = 1024; Stepwidth = 4; Node_Times = yes; }\n'
    printf 'Allreduce { Type = Allreduce; Variation = Length; Scale = Fixed_log; Start_Argument = 8; End_Argument = 512; Stepwidth = 4; Node_Times = yes; }\n'
    printf 'Barrier { Type = Barrier; Variation = Nodes; }\n'
    printf 'MW { Type = MW_Waitsome; Variation = Chunks; Scale = Fixed_log; End_Argument = 4; Stepwidth = 2; }\n'
    printf 'W { Type = Wtime; Node_Times = yes; }\n'
} >"$TMP/res.par"
RES_SUITES=PP,Allreduce,Barrier,MW,W

mpirun 2 -p "$TMP/res.par" -o "$TMP/full.cube"
expect_rc 0 "cube_bench: resume: an uninterrupted run"
if [ -s "$TMP/full.log" ]; then ok "cube_bench: the log defaults to RUN.log beside the output"; else
    not_ok "cube_bench: the log defaults to RUN.log beside the output"; fi
expect_grep "^run complete: 5 of 5 suites" "$TMP/full.log" "cube_bench: the log says when a run completed"

export CUBE_BENCH_STOP_AFTER=2
mpirun 2 -p "$TMP/res.par" -o "$TMP/res.cube"
unset CUBE_BENCH_STOP_AFTER
expect_rc 3 "cube_bench: CUBE_BENCH_STOP_AFTER=2 stops with status 3"
expect_grep "stopped after suite 2 of 5" "$TMP/err" "cube_bench: the test hook says where it stopped"
if [ "$(grep -c '^suite done: ' "$TMP/res.log")" = 2 ] && ! grep -q '^run complete' "$TMP/res.log"; then
    ok "cube_bench: the stopped run's log names 2 finished suites and no completion"
else
    not_ok "cube_bench: the stopped run's log names 2 finished suites and no completion"
    grep -v '^  ' "$TMP/res.log" | head -20 | sed 's/^/#   /'
fi
cp "$TMP/res.cube" "$TMP/partial.cube"
cp "$TMP/res.stat" "$TMP/partial.stat"
run cube_info "$TMP/partial.cube"
expect_grep "suites done = 2 of 5" "$TMP/out" "cube_bench: the saved experiment of the stopped run holds 2 of 5 suites"
run cube_statfile --check --cube "$TMP/partial.cube" "$TMP/partial.stat"
expect_rc 0 "cube_bench: the stopped run's statistics file is complete and matches its experiment"

mpirun 2 -p "$TMP/res.par" -o "$TMP/res.cube"
expect_rc 0 "cube_bench: started again, the run continues"
expect_grep "^resumed: 2 of 5 suites kept from .*res.cube" "$TMP/res.log" "cube_bench: the log says the run resumed"
expect_grep "^run complete: 5 of 5 suites" "$TMP/res.log" "cube_bench: the continued run completes"
if [ "$(grep -c '^suite PP ' "$TMP/res.log")" = 1 ]; then ok "cube_bench: the kept suites are not measured again"; else
    not_ok "cube_bench: the kept suites are not measured again"; fi
for f in full res partial; do
    "$BIN/cube_dump" -s csv "$TMP/$f.cube" >"$TMP/$f.csv" 2>"$TMP/err" || not_ok "cube_bench: cube_dump $f.cube"
done
cat >"$TMP/resume.py" <<'PYEOF'
import csv, sys
full, res, partial, par, info = sys.argv[1:6]

def load(path):
    rows = list(csv.DictReader(open(path, newline="")))
    paths = sorted({(int(r["cnode_id"]), r["call_path"]) for r in rows})
    vals = {(r["metric"], r["call_path"], r["process"]): r["value"] for r in rows}
    return [p for _, p in paths], vals

kept_prefix = ("cube_bench/PP/", "cube_bench/Allreduce/")
fp, fv = load(full)
rp, rv = load(res)
pp, pv = load(partial)
if rp != fp:
    sys.exit("call paths differ from the uninterrupted run:\n%s\n%s" % (rp, fp))
suites = [p.split("/")[1] for p in rp if p.count("/") == 1]
if suites != ["PP", "Allreduce", "Barrier", "MW", "W"]:
    sys.exit("suites %s" % suites)
if [p.split("/")[1] for p in pp if p.count("/") == 1] != ["PP", "Allreduce"]:
    sys.exit("the stopped run has %s" % pp)
kept = {k: v for k, v in pv.items() if k[1].startswith(kept_prefix)}
if not kept:
    sys.exit("no values of the kept suites")
for k, v in kept.items():
    if rv.get(k) != v:  # the text of the shortest round-trip form: exact
        sys.exit("%s: %r after resuming, %r when stopped" % (k, rv.get(k), v))
for k, v in rv.items():
    if k[1].startswith(kept_prefix) and k not in kept and float(v) != 0:
        sys.exit("%s: %r is new" % (k, v))
# the parameter checksum: FNV-1a 64 of the file's bytes
h = 0xcbf29ce484222325
for b in open(par, "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
want = "parameter checksum = fnv1a64:%016x" % h
if want not in open(info).read():
    sys.exit("no '%s' in cube_info" % want)
PYEOF
run cube_info "$TMP/res.cube"
cp "$TMP/out" "$TMP/res.info"
pycheck "cube_bench: resumed: the suites and arguments of an uninterrupted run, the kept values exactly the stopped run's, the parameter checksum" \
    "$TMP/resume.py" "$TMP/full.csv" "$TMP/res.csv" "$TMP/partial.csv" "$TMP/res.par" "$TMP/res.info"
expect_grep "resumed = after 2 of 5 suites" "$TMP/res.info" "cube_bench: the experiment records that the run was resumed"
if head -n "$(wc -l <"$TMP/partial.stat")" "$TMP/res.stat" | cmp -s - "$TMP/partial.stat"; then
    ok "cube_bench: the kept suites' statistics are written again unchanged"
else
    not_ok "cube_bench: the kept suites' statistics are written again unchanged"
fi
pycheck "cube_bench: resumed: values positive, bound met or stopped at max_rep/time; statistics counts = reps" \
    "$TMP/check.py" "$TMP/res.csv" "$TMP/res.stat" "$TMP/res.log" 2 0.05 4 "$RES_SUITES"

# a changed parameter file (or process count) is refused while the run is
# unfinished; --restart starts over
export CUBE_BENCH_STOP_AFTER=1
mpirun 2 -p "$TMP/res.par" -o "$TMP/res.cube"
unset CUBE_BENCH_STOP_AFTER
expect_rc 3 "cube_bench: stopped after its first suite"
sed 's/@MAX_REP_DEFAULT 4/@MAX_REP_DEFAULT 3/' "$TMP/res.par" >"$TMP/changed.par"
cp "$TMP/res.cube" "$TMP/before_refusal.cube"
mpirun 2 -p "$TMP/changed.par" -o "$TMP/res.cube"
expect_rc 2 "cube_bench: a changed parameter file is refused for an unfinished run"
expect_grep "res.log: the unfinished run .* another parameter file .*--restart" "$TMP/err" \
    "cube_bench: the refusal says why and what to do"
if cmp -s "$TMP/res.cube" "$TMP/before_refusal.cube"; then ok "cube_bench: the refusal leaves the saved run alone"; else
    not_ok "cube_bench: the refusal leaves the saved run alone"; fi
mpirun 1 -p "$TMP/res.par" -o "$TMP/res.cube"
expect_rc 2 "cube_bench: another process count is refused for an unfinished run"
expect_grep "has 2 processes, this one 1" "$TMP/err" "cube_bench: the refusal names the process counts"
mpirun 2 -p "$TMP/changed.par" -o "$TMP/res.cube" --restart
expect_rc 0 "cube_bench: --restart starts a changed parameter file over"
if ! grep -q '^resumed' "$TMP/res.log" && [ "$(grep -c '^suite done: ' "$TMP/res.log")" = 5 ]; then
    ok "cube_bench: --restart measures every suite afresh"
else
    not_ok "cube_bench: --restart measures every suite afresh"
fi

# --- merge and report: no MPI (run without mpiexec, and under it) -------------
mpirun 2 -p "$TMP/res.par" -o "$TMP/third.cube"
expect_rc 0 "cube_bench: a third run"
run cube_bench --merge "$TMP/full.cube" "$TMP/res.cube" "$TMP/third.cube" -o "$TMP/merged.cube"
expect_rc 2 "cube_bench --merge refuses runs of different parameter files"
if [ ! -e "$TMP/merged.cube" ]; then ok "cube_bench --merge: nothing written after a refusal"; else
    not_ok "cube_bench --merge: nothing written after a refusal"; fi
run cube_bench --merge "$TMP/full.cube" "$TMP/third.cube" "$TMP/partial.cube" -o "$TMP/merged.cube"
expect_rc 0 "cube_bench --merge of three runs, without mpiexec"
run cube_info "$TMP/merged.cube"
expect_grep "merged runs = 3" "$TMP/out" "cube_bench --merge: the result says it merged 3 runs"
"$BIN/cube_dump" -s csv "$TMP/merged.cube" >"$TMP/merged.csv" 2>"$TMP/err"
cat >"$TMP/samepaths.py" <<'PYEOF'
import csv, sys
def paths(p):
    return sorted({(int(r["cnode_id"]), r["call_path"]) for r in csv.DictReader(open(p, newline=""))})
a, b = [[c for _, c in paths(p)] for p in sys.argv[1:3]]
if a != b:
    sys.exit("call paths differ:\n%s\n%s" % (a, b))
PYEOF
pycheck "cube_bench --merge: the merged file has the structure of a run" \
    "$TMP/samepaths.py" "$TMP/merged.csv" "$TMP/full.csv"
# under mpiexec only the first process writes, the same result
timeout 60 mpiexec -n 2 "$BIN/cube_bench" --merge "$TMP/full.cube" "$TMP/third.cube" \
    "$TMP/partial.cube" -o "$TMP/merged2.cube" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc 0 "cube_bench --merge under mpiexec"
expect_file_eq "$TMP/merged.cube" "$TMP/merged2.cube" "cube_bench --merge: the same result under mpiexec"

cat >"$TMP/report.py" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET
page, nruns = sys.argv[1], int(sys.argv[2])
suites = sys.argv[3].split(",")
root = ET.parse(page).getroot()
got = [s.get("data-suite") for s in root.iter("{http://www.w3.org/1999/xhtml}section")
       if s.get("class") == "suite"]
if got != suites:
    sys.exit("sections %s, expected %s" % (got, suites))
runs = {c.get("data-run") for c in root.iter("{http://www.w3.org/2000/svg}circle")
        if c.get("class") == "pt" and c.get("data-run") is not None}
if runs != {str(i) for i in range(nruns)}:
    sys.exit("points of runs %s, expected %d runs" % (sorted(runs), nruns))
PYEOF
run cube_bench --report "$TMP/full.cube" -o "$TMP/one.html"
expect_rc 0 "cube_bench --report of one run"
run cube_bench --report "$TMP/full.cube" "$TMP/third.cube" "$TMP/merged.cube" -o "$TMP/three.html"
expect_rc 0 "cube_bench --report of three runs"
if command -v xmllint >/dev/null 2>&1; then
    if xmllint --noout "$TMP/one.html" "$TMP/three.html" 2>"$TMP/err"; then
        ok "cube_bench --report: well-formed XHTML (xmllint --noout)"
    else
        not_ok "cube_bench --report: well-formed XHTML (xmllint --noout)"
        head -5 "$TMP/err" | sed 's/^/#   /'
    fi
else
    # xmllint is part of the check dependencies (make deps installs it)
    not_ok "cube_bench --report: xmllint is missing, well-formedness not checked"
fi
pycheck "cube_bench --report: one run, a section per suite" "$TMP/report.py" "$TMP/one.html" 1 "$RES_SUITES"
pycheck "cube_bench --report: three runs overlaid, a section per suite" \
    "$TMP/report.py" "$TMP/three.html" 3 "$RES_SUITES"
run cube_bench --report "$TMP/full.cube" -o -
expect_rc 0 "cube_bench --report -o -"
expect_grep "<html" "$TMP/out" "cube_bench --report -o -: the page on standard output"
run cube_bench --report "$TMP/res.par" -o "$TMP/bad.html"
expect_rc 2 "cube_bench --report of a file that is no experiment exits 2"
if [ ! -e "$TMP/bad.html" ]; then ok "cube_bench --report: nothing written after an error"; else
    not_ok "cube_bench --report: nothing written after an error"; fi
run cube_bench --merge -p "$TMP/res.par" "$TMP/full.cube"
expect_rc 2 "cube_bench --merge with an option of a measuring run is a usage error"

# A CUBE 4 name writes CUBE 4, with the statistics file and the log named
# beside it as for CUBE 3 (the suffix replaced)
printf '@TIME_MEAS_DEFAULT 0.001\n@TIME_SUITE_DEFAULT 0.01\n@MAX_STEPS_DEFAULT 3\n@MEASUREMENTS\nBarrier { Type = Barrier; Variation = Nodes; Node_Times = yes; }\n' \
    >"$TMP/x.par"
mkdir -p "$TMP/cubex"
mpirun 2 -p "$TMP/x.par" -o "$TMP/cubex/run.cubex"
expect_rc 0 "cube_bench -o run.cubex"
if [ -s "$TMP/cubex/run.stat" ] && [ -s "$TMP/cubex/run.log" ] && [ ! -e "$TMP/cubex/run.cubex.stat" ]; then
    ok "cube_bench -o run.cubex: run.stat and run.log beside it"
else
    not_ok "cube_bench -o run.cubex: run.stat and run.log beside it"
    ls "$TMP/cubex" | sed 's/^/#   /'
fi
run cube_info "$TMP/cubex/run.cubex"
expect_rc 0 "cube_info reads cube_bench's CUBE 4 experiment"
expect_grep "^format: CUBE 4" "$TMP/out" "cube_bench -o run.cubex writes CUBE 4"

# --- compare: the regression gate (no MPI) ------------------------------------
# full.cube and third.cube are two real runs of one parameter file; slow.cube
# is full.cube with every time of suite PP made 1.5 times as long (its
# standard errors kept): a known change
cat >"$TMP/slow.py" <<'PYEOF'
import re, sys
src, dst, suite = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(src).read()
mid = {m.group(2): m.group(1) for m in re.finditer(r'<metric id="(\d+)">\s*<disp_name>[^<]*</disp_name>\s*<uniq_name>([^<]*)</uniq_name>', text)}
reg = {m.group(1): m.group(2) for m in re.finditer(r'<region id="(\d+)"[^>]*>\s*<name>([^<]*)</name>', text)}
# the call paths under the suite: cnodes whose parent calls the suite's region
suite_ids = [i for i, n in reg.items() if n == suite]
cn = re.findall(r'<cnode id="(\d+)"[^>]*calleeId="(\d+)"', text)
sys.exit("no cnodes") if not cn else None
# nesting decides the parent: walk the call tree text
parent, stack, under = {}, [], set()
for m in re.finditer(r'<cnode id="(\d+)"[^>]*calleeId="(\d+)"[^>]*?(/?)>|</cnode>', text):
    if m.group(0) == '</cnode>':
        stack.pop(); continue
    if stack and reg.get(stack[-1][1]) == suite:
        under.add(m.group(1))
    if m.group(3) != '/':
        stack.append((m.group(1), m.group(2)))
assert under, "no arguments under " + suite
t = mid["time"]
def scale(mat):
    body = mat.group(2)
    def row(r):
        if r.group(1) not in under:
            return r.group(0)
        vals = " ".join(repr(float(v) * 1.5) for v in r.group(2).split())
        return '<row cnodeId="%s">\n%s\n</row>' % (r.group(1), vals)
    return mat.group(1) + re.sub(r'<row cnodeId="(\d+)">(.*?)</row>', row, body, flags=re.S) + mat.group(3)
text = re.sub(r'(<matrix metricId="%s">)(.*?)(</matrix>)' % t, scale, text, flags=re.S)
open(dst, "w").write(text)
PYEOF
if python3 "$TMP/slow.py" "$TMP/full.cube" "$TMP/slow.cube" PP 2>"$TMP/err"; then
    ok "cube_bench --compare: a run with a known change made"
else
    not_ok "cube_bench --compare: a run with a known change made"
    head -3 "$TMP/err" | sed 's/^/#   /'
fi

cat >"$TMP/cmp.py" <<'PYEOF'
# cmp.py CSV BEFORE.csv,AFTER.csv THRESHOLD [SUITE FACTOR]...: the rows of a
# --compare -s csv output are the union of the arguments of both runs (from
# cube_dump -s csv); measured values are the runs' own; the ratio is
# after/before with the standard error r sqrt((se_a/a)^2 + (se_b/b)^2), and
# the verdict follows from them (2 standard errors of noise, THRESHOLD);
# where both runs measured, SUITE's ratios are FACTOR ("*": other suites)
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
runs = sys.argv[2].split(",")
thr = float(sys.argv[3])
def points(path):
    pts = {}
    for r in csv.DictReader(open(path)):
        parts = r["call_path"].split("/")
        if len(parts) == 3 and r["metric"] == "time" and r["location"] == "0":
            pts[(parts[1], parts[2])] = float(r["value"])
    return pts
pb, pa = points(runs[0]), points(runs[1])
got = {(r["suite"], r["argument"]) for r in rows}
assert got == set(pb) | set(pa), (sorted(got ^ (set(pb) | set(pa))))[:5]
factor = dict(zip(sys.argv[4::2], sys.argv[5::2]))
verdicts = set()
for r in rows:
    k = (r["suite"], r["argument"])
    if r["before_source"] == "measured":
        assert k in pb and float(r["before"]) == pb[k], k
    if r["after_source"] == "measured":
        assert k in pa and float(r["after"]) == pa[k], k
    if not (r["before"] and r["after"]):
        assert r["ratio"] == "" and r["verdict"] in ("only-before", "only-after"), k
        continue
    b, bs, a, as_ = (float(r[f]) for f in ("before", "before_stderr", "after", "after_stderr"))
    ratio, se = float(r["ratio"]), float(r["ratio_stderr"])
    assert math.isclose(ratio, a / b, rel_tol=1e-12), k
    assert math.isclose(se, ratio * math.hypot(bs / b, as_ / a), rel_tol=1e-9, abs_tol=1e-15), k
    d, noise = ratio - 1, 2 * se
    want = ("same" if abs(d) <= noise else "faster" if d < 0
            else "regression" if d - noise > thr else "slower")
    assert r["verdict"] == want, (k, r["verdict"], want)
    f = factor.get(r["suite"], factor.get("*"))
    if f is not None and r["before_source"] == "measured" and r["after_source"] == "measured":
        assert math.isclose(ratio, float(f), rel_tol=1e-12), (k, ratio, f)
    verdicts.add(r["verdict"])
print(" ".join(sorted(verdicts)))
PYEOF
"$BIN/cube_dump" -s csv "$TMP/full.cube" >"$TMP/full.csv" 2>/dev/null
"$BIN/cube_dump" -s csv "$TMP/third.cube" >"$TMP/third.csv" 2>/dev/null
"$BIN/cube_dump" -s csv "$TMP/slow.cube" >"$TMP/slow.csv" 2>/dev/null

run cube_bench --compare -s csv "$TMP/full.cube" "$TMP/full.cube"
expect_rc 0 "cube_bench --compare of a run with itself exits 0"
cp "$TMP/out" "$TMP/self.csv"
pycheck "cube_bench --compare of a run with itself: ratios 1, every argument the same" \
    "$TMP/cmp.py" "$TMP/self.csv" "$TMP/full.csv,$TMP/full.csv" 0.1 "*" 1
if [ "$(python3 "$TMP/cmp.py" "$TMP/self.csv" "$TMP/full.csv,$TMP/full.csv" 0.1)" = same ]; then
    ok "cube_bench --compare of a run with itself: all the same"
else
    not_ok "cube_bench --compare of a run with itself: all the same"
fi

run cube_bench --compare -s csv "$TMP/full.cube" "$TMP/slow.cube"
expect_rc 1 "cube_bench --compare: a suite 50 % slower exits 1"
cp "$TMP/out" "$TMP/slow_cmp.csv"
pycheck "cube_bench --compare: the slower suite's ratios 1.5, the others 1, verdicts from ratio and noise" \
    "$TMP/cmp.py" "$TMP/slow_cmp.csv" "$TMP/full.csv,$TMP/slow.csv" 0.1 PP 1.5 "*" 1
run cube_bench --compare --threshold=60 "$TMP/full.cube" "$TMP/slow.cube"
expect_rc 0 "cube_bench --compare --threshold=60: 50 % slower is no regression"
expect_grep "slower" "$TMP/out" "cube_bench --compare --threshold=60: still marked slower"
run cube_bench --compare "$TMP/slow.cube" "$TMP/full.cube"
expect_rc 0 "cube_bench --compare: faster is no regression"
expect_grep "faster" "$TMP/out" "cube_bench --compare: the faster suite marked"

# two real runs: the union of their arguments (their refinements chose
# different ones), values interpolated where a run lacks one
run cube_bench --compare -s csv "$TMP/full.cube" "$TMP/third.cube"
if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then ok "cube_bench --compare of two real runs exits 0 or 1 ($rc)"; else
    not_ok "cube_bench --compare of two real runs exits 0 or 1 ($rc)"; fi
cp "$TMP/out" "$TMP/real.csv"
pycheck "cube_bench --compare of two real runs: the union of the arguments, ratio after/before, verdicts" \
    "$TMP/cmp.py" "$TMP/real.csv" "$TMP/full.csv,$TMP/third.csv" 0.1
run cube_bench --compare -s json "$TMP/full.cube" "$TMP/third.cube"
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d and all("verdict" in r for r in d)' "$TMP/out"; then
    ok "cube_bench --compare -s json: valid JSON, one object per row"
else
    not_ok "cube_bench --compare -s json: valid JSON, one object per row"
fi

run cube_bench --compare "$TMP/full.cube"
expect_rc 2 "cube_bench --compare with one run exits 2"
run cube_bench --compare "$TMP/full.cube" "$TMP/nonexistent.cube"
expect_rc 2 "cube_bench --compare with a missing run exits 2"
expect_grep "nonexistent.cube" "$TMP/err" "cube_bench --compare: the message names the file"
run cube_bench --compare "$TMP/full.cube" "$TMP/res.par"
expect_rc 2 "cube_bench --compare of a file that is no experiment exits 2"
run cube_bench --compare -s xml "$TMP/full.cube" "$TMP/third.cube"
expect_rc 2 "cube_bench --compare -s xml is a usage error"
run cube_bench --compare --threshold=ten "$TMP/full.cube" "$TMP/third.cube"
expect_rc 2 "cube_bench --compare --threshold=ten is a usage error"
run cube_bench --merge -s csv "$TMP/full.cube"
expect_rc 2 "cube_bench --merge -s is a usage error (-s goes with --compare)"
