# shellcheck shell=bash
# bench/perf/lib.sh - shell code shared by the benchmark scripts run.sh and
# run_linktest.sh: messages, PERF_RUNS, the GNU time check, the work
# directory, and timing a command.  Not run by itself: a script sets
# perf_prog (the name its messages start with), then sources this file with
# `. "$here/lib.sh"` under `set -euo pipefail` and LC_ALL=C.  Lint the
# scripts with `shellcheck -x` so that it follows the source.
#
# Sets and uses these globals:
#   runs_of     runs per item (perf_runs)
#   WORK        the work directory (perf_work_dir); keep_work=0 when it is
#               a temporary one, removed on exit
#   measure_rm  files measure removes before each run of a command
#   M_S, M_KB   the result of measure
#   failures    how many measured commands failed (perf_exit)

: "${perf_prog:?set perf_prog before sourcing bench/perf/lib.sh}"

die() { echo "$perf_prog: $*" >&2; exit 1; }
note() { echo "$perf_prog: $*" >&2; }

# PERF_HUGE_ONLY=1 (make perf PERF_HUGE_ONLY=1 or in the environment): only
# run_huge.sh measures; the other benchmark scripts stop here, successfully
if [[ ${PERF_HUGE_ONLY:-0} == 1 && $perf_prog != run_huge.sh ]]; then
    note "PERF_HUGE_ONLY=1: skipped"
    exit 0
fi

# perf_runs WHAT LIMIT ITEMS... : sets runs_of (one run count per item) from
# PERF_RUNS, one number for all items or one per item; without it, 3 runs
# for an item below LIMIT and 1 from LIMIT up.  WHAT names one item in the
# message, e.g. "size in PERF_SIZES".
perf_runs() {
    local what=$1 limit=$2 i n
    shift 2
    local -a items=("$@") list=()
    read -r -a list <<<"${PERF_RUNS:-}"
    if ((${#list[@]} > 1 && ${#list[@]} != ${#items[@]})); then
        die "PERF_RUNS must be one number or one per $what"
    fi
    runs_of=()
    for i in "${!items[@]}"; do
        if ((${#list[@]} == 0)); then
            n=$(awk -v x="${items[$i]}" -v limit="$limit" 'BEGIN { print (x < limit) ? 3 : 1 }')
        elif ((${#list[@]} == 1)); then
            n=${list[0]}
        else
            n=${list[$i]}
        fi
        [[ $n =~ ^[1-9][0-9]*$ ]] || die "bad run count '$n' in PERF_RUNS"
        runs_of+=("$n")
    done
}

# perf_check_time : dies unless /usr/bin/time is GNU time
perf_check_time() {
    if [[ ! -x /usr/bin/time ]]; then
        die "/usr/bin/time not found: install GNU time (Debian: apt-get install time)"
    fi
    if ! /usr/bin/time -f '%e %M' -o /dev/null true 2>/dev/null; then
        die "/usr/bin/time is not GNU time (no -f/-o): install GNU time (Debian: apt-get install time)"
    fi
}

# perf_work_dir NAME : an empty WORK becomes a new temporary directory
# ${TMPDIR:-/tmp}/NAME.XXXXXX, removed on exit (keep_work=0); a WORK given is
# made if need be and kept (keep_work=1)
# shellcheck disable=SC2034 # keep_work is for the script
perf_work_dir() {
    keep_work=1
    if [[ -z $WORK ]]; then
        keep_work=0
        WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
        trap 'rm -rf -- "$WORK"' EXIT
    else
        mkdir -p -- "$WORK"
    fi
}

# perf_generator VAR NAME SOURCE... : the generator the script runs: the
# binary named by the environment variable VAR when set (it must be
# executable), else SOURCE... (plus compiler options) compiled into
# $WORK/NAME with ${CC:-cc} -O2; VAR is set to it
perf_generator() {
    local var=$1 name=$2
    shift 2
    local given=${!var:-}
    if [[ -n $given ]]; then
        [[ -x $given ]] || die "$var=$given is not an executable file"
        return 0
    fi
    note "compiling $name with ${CC:-cc}"
    "${CC:-cc}" -std=c11 -O2 -o "$WORK/$name" "$@" || die "cannot compile $name"
    printf -v "$var" '%s' "$WORK/$name"
}

median() { # numbers... -> median
    printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 }
        END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

failures=0
measure_rm=()
# measure RUNS CMD... : sets M_S (median wall seconds) and M_KB (median peak
# RSS in KiB), or M_S=FAIL when the command failed.  Wall time is taken
# from bash's EPOCHREALTIME around /usr/bin/time when available (ms
# resolution; %e has only 10 ms), else from %e.  The files in measure_rm
# are removed before each run, so what the last run wrote is kept.
# shellcheck disable=SC2034 # M_S and M_KB are for the script
measure() {
    local runs=$1 i rc e m t0 t1
    shift
    local -a ts=() ks=()
    for ((i = 0; i < runs; i++)); do
        ((${#measure_rm[@]} == 0)) || rm -f -- "${measure_rm[@]}"
        t0=${EPOCHREALTIME:-}
        rc=0
        /usr/bin/time -f '%e %M' -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/stderr.txt" || rc=$?
        t1=${EPOCHREALTIME:-}
        if ((rc != 0)); then
            note "FAILED (exit $rc): $*"
            tail -n 20 "$WORK/stderr.txt" | sed 's/^/  | /' >&2
            failures=$((failures + 1))
            M_S=FAIL M_KB=FAIL
            return 0
        fi
        read -r e m < <(tail -n 1 "$WORK/time.txt")
        if [[ -n $t0 && -n $t1 ]]; then
            e=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
        fi
        ts+=("$e")
        ks+=("$m")
    done
    M_S=$(median "${ts[@]}")
    M_KB=$(median "${ks[@]}")
}

# cells SECONDS KB [MB] -> "s RSS" formatted (%8 %8), or with the input's MB
# "s MB/s RSS" (%8 %8 %7); "-" (not run) and FAIL fill every column
cells() {
    awk -v s="$1" -v kb="$2" -v mb="${3:-}" 'BEGIN {
        rate = (mb != "")
        if (s == "-" || s == "FAIL") {
            if (rate) printf "%8s %8s %7s", s, s, s; else printf "%8s %8s", s, s
            exit
        }
        if (rate) printf "%8.3f %8s %7.1f", s, (s > 0 ? sprintf("%.1f", mb / s) : "inf"), kb * 1024 / 1e6
        else printf "%8.3f %8.1f", s, kb * 1024 / 1e6 }'
}

# perf_exit : exits 1 after a note when a measured command failed, else 0
perf_exit() {
    if ((failures > 0)); then
        note "$failures command(s) failed"
        exit 1
    fi
    exit 0
}
