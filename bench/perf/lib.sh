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

# ---- CUBE 4 (.cubex) cases, shared by run.sh and run_huge.sh ------------------
#
# cubex_setup BIN : have_cubex=1 when $RW (cube_rw: the reader and the writer
# alone, built by make perf as build/perf/cube_rw) and BIN's cube_clean,
# cube_dump and cube_diff are there; else 0 with a note.  CUBELIB_DUMP may
# name CubeLib's cube_dump for the reference column.
# cubex_measure LABEL FILE RUNS ROWS THREADS : converts the CUBE 3 FILE into
# $WORK/LABEL.cubex (plain data, CUBEX.DATA) and $WORK/LABEL.z.cubex
# (compressed, ZCUBEX.DATA) with cube_clean, measures both and appends one
# line per variant to cubex_rows_a (conversion, reading, memory) and
# cubex_rows_b (writing, one metric, the algebra); cubex_print prints them.
# The bounds, printed 'ok' or 'NOTMET' (they do not change the exit status):
#   conversion  cube_clean -o X.cubex FILE  <= 1.2 x cube_rw read FILE
#   reading     cube_rw read X.cubex        <= 1.5 x cat X.cubex (plain data)
#   memory      its peak RSS  <= 1.2 x valMB + the RSS of the definitions alone
#   writing     cube_write_file X.cubex     <= 2 x cp of the result
#   one metric  cube_dump -m mpi X  <= defs + 1.5 x share x (dump -m all - defs)
#               (share: that metric's part of the data bytes; defs: the
#               definitions alone, cube_rw defs)
#   the algebra cube_diff -o D.cubex X X  <= 3 x reading both = 6 x cube_rw read X
# PERF_CUBEX_DUMPALL_MAX_MB (default 600): for a larger X, cube_dump -m all
# (every value as text) is not run.
cubex_rows_a=()
cubex_rows_b=()
# shellcheck disable=SC2034 # have_cubex is for the script
cubex_setup() {
    have_cubex=1
    have_cubelib=0
    local tool
    if [[ -z ${RW:-} || ! -x ${RW:-} ]]; then
        have_cubex=0
        note "RW (the cube_rw binary, build/perf/cube_rw) not set or not executable: skipping the CUBE 4 cases"
        return 0
    fi
    for tool in cube_clean cube_dump cube_diff; do
        if [[ ! -x $1/$tool ]]; then
            have_cubex=0
            note "$1/$tool not found or not executable: skipping the CUBE 4 cases"
            return 0
        fi
    done
    if [[ -n ${CUBELIB_DUMP:-} && -x ${CUBELIB_DUMP:-} ]]; then
        have_cubelib=1
    fi
}

# cubex_bound VALUE LIMIT BASE -> "VALUE/BASE ok" or "VALUE/BASE NOTMET"
# (ok when VALUE <= LIMIT); "- -" when a figure is missing or failed
cubex_bound() {
    awk -v a="$1" -v lim="$2" -v base="$3" 'BEGIN {
        if (a !~ /^[0-9.]+$/ || lim !~ /^[0-9.e+-]+$/ || base !~ /^[0-9.]+$/ || base <= 0) {
            printf "%6s %-6s", "-", "-"; exit }
        printf "%6.2f %-6s", a / base, (a <= lim + 0 ? "ok" : "NOTMET") }'
}

# calc EXPR with a, b, c -> the number (awk)
cubex_calc() {
    awk -v a="$2" -v b="${3:-0}" -v c="${4:-0}" "BEGIN { if (a !~ /^[0-9.]+\$/) print \"-\"; else print $1 }"
}

cubex_measure() {
    local label=$1 file=$2 runs=$3 rows=$4 threads=$5 bin=$BIN
    local -a saved_rm=("${measure_rm[@]}") flag
    local r3 data x xmb cs cat sl rs rk ds dk ws cps d1 da diffs share valmb cl
    measure_rm=()
    measure "$runs" "$RW" read "$file"
    r3=$M_S
    valmb=$(awk -v r="$rows" -v t="$threads" 'BEGIN { printf "%.1f", r * t * 8 / 1e6 }')
    for data in plain zlib; do
        flag=()
        [[ $data == zlib ]] && flag=(-z)
        x=$WORK/$label.cubex
        [[ $data == zlib ]] && x=$WORK/$label.z.cubex
        note "$label: CUBE 4 with $data data: $x"
        measure_rm=("$x")
        measure "$runs" "$bin/cube_clean" "${flag[@]}" -o "$x" "$file"
        cs=$M_S
        measure_rm=()
        if [[ $cs == FAIL ]]; then
            cubex_rows_a+=("$(printf '%-9s %-5s   conversion failed' "$label" "$data")")
            continue
        fi
        xmb=$(awk -v b="$(wc -c <"$x")" 'BEGIN { printf "%.1f", b / 1e6 }')
        cat "$x" >/dev/null # into the page cache, as the CUBE 3 file is
        measure "$runs" cat "$x"
        cat=$M_S
        # the bytes into fresh memory: the floor of a reader that keeps them
        measure "$runs" "$RW" slurp "$x"
        sl=$M_S
        measure "$runs" "$RW" defs "$x"
        ds=$M_S dk=$M_KB
        measure "$runs" "$RW" read "$x"
        rs=$M_S rk=$M_KB
        # conversion, reading (the bound for plain data only), memory
        cubex_rows_a+=("$(
            printf '%-9s %-5s %8s | %8s %8s ' "$label" "$data" "$xmb" "$r3" "$cs"
            cubex_bound "$cs" "$(cubex_calc '1.2 * a' "$r3")" "$r3"
            printf ' | %8s %8s %8s %8s ' "$cat" "$sl" "$ds" "$rs"
            if [[ $data == plain ]]; then
                cubex_bound "$rs" "$(cubex_calc '1.5 * a' "$cat")" "$cat"
            else
                printf '%6s %-6s' "$(cubex_calc '(b > 0 && a ~ /^[0-9.]+$/) ? sprintf("%.2f", a / b) : "-"' "$rs" "$cat")" -
            fi
            printf ' %6s' "$(cubex_calc '(b > 0 && b ~ /^[0-9.]+$/ && a ~ /^[0-9.]+$/) ? sprintf("%.2f", a / b) : "-"' "$rs" "$sl")"
            awk -v rk="$rk" -v dk="$dk" -v val="$valmb" 'BEGIN {
                if (rk !~ /^[0-9]+$/ || dk !~ /^[0-9]+$/) { printf " | %7s %7s %7s %7s %-6s", "-", val, "-", "-", "-"; exit }
                rss = rk * 1024 / 1e6; def = dk * 1024 / 1e6; lim = 1.2 * val + def
                printf " | %7.1f %7s %7.1f %7.1f %-6s", rss, val, def, lim, (rss <= lim ? "ok" : "NOTMET") }'
        )")

        # writing the archive again (the writer alone) against cp of what it wrote
        if ws=$("$RW" write "${flag[@]}" -r "$runs" "$x" "$WORK/w.cubex" 2>"$WORK/stderr.txt"); then
            measure_rm=("$WORK/cp.cubex")
            measure "$runs" cp "$WORK/w.cubex" "$WORK/cp.cubex"
            cps=$M_S
            measure_rm=()
        else
            note "FAILED: $RW write ${flag[*]} $x"
            sed 's/^/  | /' "$WORK/stderr.txt" >&2
            failures=$((failures + 1))
            ws=FAIL cps=-
        fi
        rm -f -- "$WORK/w.cubex" "$WORK/cp.cubex"

        # one metric against all; share: mpi's part of the data bytes (the
        # metrics are dense and of one size: 1 / the data members)
        share=$(tar -tvf "$x" 2>/dev/null | awk '$NF ~ /[.]data$/ { n++ } END { printf "%.3f", n ? 1 / n : 0 }')
        measure "$runs" "$bin/cube_dump" -m mpi -o /dev/null "$x"
        d1=$M_S
        da=-
        if awk -v m="$xmb" -v max="${PERF_CUBEX_DUMPALL_MAX_MB:-600}" 'BEGIN { exit !(m <= max) }'; then
            measure "$runs" "$bin/cube_dump" -m all -o /dev/null "$x"
            da=$M_S
        fi
        measure_rm=("$WORK/diff.cubex")
        measure "$runs" "$bin/cube_diff" -o "$WORK/diff.cubex" "$x" "$x"
        diffs=$M_S
        measure_rm=()
        rm -f -- "$WORK/diff.cubex"
        cl=-
        if ((have_cubelib)); then
            measure "$runs" "$CUBELIB_DUMP" -m all "$x"
            cl=$M_S
        fi
        cubex_rows_b+=("$(
            printf '%-9s %-5s %8s | %8s %8s ' "$label" "$data" "$xmb" "$ws" "$cps"
            cubex_bound "$ws" "$(cubex_calc '2 * a' "$cps")" "$cps"
            printf ' | %8s %8s %6s ' "$d1" "$da" "$share"
            if [[ $da == - || $ds == FAIL ]]; then
                printf '%6s %-6s' - -
            else
                cubex_bound "$d1" "$(cubex_calc 'b + 1.5 * c * (a - b)' "$da" "$ds" "$share")" "$da"
            fi
            printf ' | %8s ' "$diffs"
            cubex_bound "$diffs" "$(cubex_calc '6 * a' "$rs")" "$rs"
            printf ' | %8s' "$cl"
        )")
        if ((!keep_work)); then
            rm -f -- "$x"
        fi
    done
    measure_rm=("${saved_rm[@]}")
}

# cubex_print : the two CUBE 4 tables (nothing when no case was measured)
cubex_print() {
    ((${#cubex_rows_a[@]} > 0)) || return 0
    local cubelib_note="CubeLib is not installed here: not measured (set CUBELIB_DUMP to measure it)"
    ((have_cubelib)) && cubelib_note="$CUBELIB_DUMP -m all X >/dev/null"
    echo
    printf '%-9s %-5s %8s | %-31s | %-58s | %-38s\n' "" "" "" "CUBE 3 -> CUBE 4" \
        "cat X, cube_rw slurp X, cube_rw defs X, cube_rw read X" "peak memory of cube_rw read X"
    printf '%-9s %-5s %8s | %8s %8s %6s %-6s | %8s %8s %8s %8s %6s %-6s %6s | %7s %7s %7s %7s %-6s\n' \
        case data xMB read3 conv x ok? cat slurp defs read /cat ok? /slurp RSS valMB defRSS RSSmax ok?
    printf '%s\n' "${cubex_rows_a[@]}"
    printf '%s\n' \
        "# CUBE 4: each CUBE 3 file converted by cube_clean into X.cubex with plain (CUBEX.DATA)" \
        "# or zlib-compressed (ZCUBEX.DATA) data; xMB: its size.  Seconds are medians." \
        "# read3: cube_rw read FILE.cube (cube_read, then every value touched); conv:" \
        "# cube_clean -o X.cubex FILE.cube, x = conv / read3 (bound 1.2).  cat: cat X >/dev/null" \
        "# (X in the page cache); slurp: cube_rw slurp X, X's bytes read into fresh memory (the" \
        "# floor of a reader that keeps the values); defs: cube_rw defs X, the definitions alone" \
        "# (no row); read: cube_rw read X, /cat = read / cat (bound 1.5, plain data), /slurp =" \
        "# read / slurp (no bound).  RSS: its peak in MB; valMB: rows x threads x 8 bytes;" \
        "# defRSS: the peak of defs; RSSmax = 1.2 x valMB + defRSS."
    echo
    printf '%-9s %-5s %8s | %-31s | %-38s | %-22s | %-8s\n' "" "" "" \
        "cube_write_file X vs cp" "cube_dump -m mpi vs -m all" "cube_diff X X" "CubeLib"
    printf '%-9s %-5s %8s | %8s %8s %6s %-6s | %8s %8s %6s %6s %-6s | %8s %6s %-6s | %8s\n' \
        case data xMB write cp x ok? dump1 dumpall share x ok? diff x ok? dump-all
    printf '%s\n' "${cubex_rows_b[@]}"
    printf '%s\n' \
        "# write: cube_write_file of X read before (the write alone: cube_rw write), cp: cp of" \
        "# what it wrote; x = write / cp (bound 2).  dump1: cube_dump -m mpi -o /dev/null X (one" \
        "# metric, every thread, CSV); dumpall: the same with -m all; share: mpi's part of the" \
        "# data; x = dump1 / dumpall, ok when dump1 <= defs + 1.5 x share x (dumpall - defs)." \
        "# diff: cube_diff -o D.cubex X X, x = diff / read (reading both is 2: bound 6)." \
        "# CubeLib: $cubelib_note."
}
