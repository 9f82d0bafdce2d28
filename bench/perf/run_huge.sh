#!/usr/bin/env bash
# bench/perf/run_huge.sh - bounds on huge inputs: time and peak RSS of
# cube_info, cube_diff (the file with itself) and cube_dump -m (one metric)
# on three synthetic CUBE 3 experiments:
#   cnodes   1 000 000 call paths (2 threads, 5 metrics)
#   threads  100 000 threads (100 000 processes x 1 thread, 20 call paths, 5 metrics)
#   2GB      a 2 000 MB file (16 threads, 5 metrics, depth 10, as run.sh)
#   cubex    CUBE 4: 1 000 000 call paths x 16 threads x 8 metrics, made as
#            CUBE 3 (6 significant digits) and converted into .cubex archives
#            with plain and compressed data, measured as run.sh measures its
#            CUBE 4 cases (cubex_measure in lib.sh: its own two tables)
#
# Usage: bench/perf/run_huge.sh [BIN_DIR [WORK_DIR]]
#   BIN_DIR   where cube_info, cube_diff and cube_dump are (default build/bin)
#   WORK_DIR  where the generated files go (default: a temporary directory,
#             removed at the end; a directory given here is kept)
#
# Environment:
#   GEN                gen_cube binary (default: compile bench/perf/gen_cube.c)
#   PERF_HUGE          0 skips this script (exit 0 at once); default 1
#   PERF_HUGE_CNODES   call paths of the first experiment (default 1000000)
#   PERF_HUGE_THREADS  threads of the second (default 100000)
#   PERF_HUGE_MB       size in MB of the third (default 2000)
#   PERF_HUGE_CASES    which experiments, default "cnodes threads 2GB cubex"
#   PERF_HUGE_CUBEX_CNODES  call paths of cubex (default 1000000)
#   RW                 the cube_rw binary for cubex (make perf builds it)
#   PERF_RUNS          runs per command (median); default 1
#
# Each command runs once by default: the whole script takes a few minutes
# on 2 cores (the 2 GB file dominates) and needs about 2 x PERF_HUGE_MB of
# free disk in the work dir (input + cube_diff's output).
#
# Bounds checked (MB = 10^6 bytes; valMB = rows x threads x 8 bytes, the
# severity values as doubles; defMB = bytes of the XML before <severity>,
# the definitions; metMB = valMB of the one metric dumped; 8 MB for the
# program itself):
#   cube_info  RSS <= 1.5 x valMB + defMB + 8     s <= 2 x xmllint --stream
#   cube_diff  RSS <= 2 x (1.5 x valMB + defMB) + 8   s <= 6 x cube_info
#   cube_dump  RSS <= 1.5 x metMB + defMB + 8     s <= 1.5 x cube_info
# 'ok' or 'NOT MET' is printed for each; the script's exit status only
# reflects failed commands (like run.sh), not bounds.
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
perf_prog=run_huge.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
if [[ ${PERF_HUGE:-1} == 0 ]]; then
    note "PERF_HUGE=0: skipping the huge inputs"
    exit 0
fi
BIN=${1:-build/bin}
WORK=${2:-}
CNODES=${PERF_HUGE_CNODES:-1000000}
THREADS=${PERF_HUGE_THREADS:-100000}
HUGE_MB=${PERF_HUGE_MB:-2000}
CUBEX_CNODES=${PERF_HUGE_CUBEX_CNODES:-1000000}
read -r -a cases <<<"${PERF_HUGE_CASES:-cnodes threads 2GB cubex}"
for v in "$CNODES" "$THREADS" "$HUGE_MB" "$CUBEX_CNODES"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "bad count '$v' in PERF_HUGE_CNODES/THREADS/MB/CUBEX_CNODES"
done
for c in "${cases[@]}"; do
    [[ $c == cnodes || $c == threads || $c == 2GB || $c == cubex ]] ||
        die "bad case '$c' in PERF_HUGE_CASES (cnodes, threads, 2GB, cubex)"
done
PERF_RUNS=${PERF_RUNS:-1}
perf_runs "case" 0 "${cases[@]}"

perf_check_time
for tool in cube_info cube_diff cube_dump; do
    [[ -x $BIN/$tool ]] || die "$BIN/$tool not found or not executable"
done
perf_work_dir cube-huge
cubex_setup "$BIN"
measure_rm=("$WORK/diff.cube")
perf_generator GEN gen_cube "$here/gen_cube.c"
have_xmllint=1
command -v xmllint >/dev/null 2>&1 || {
    have_xmllint=0
    note "xmllint not found: no time bound for cube_info"
}
mem_mb=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 / 1e6 }' /proc/meminfo)

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# cube huge inputs: bin=$BIN, $(nproc 2>/dev/null || echo '?') CPUs, ${mem_mb} MB RAM," \
    "load average at start: $(load) (1, 5, 15 min)"
printf '%-7s %8s %8s %7s %8s %7s | %-10s %8s %7s %8s %8s %-7s %8s %-7s\n' \
    case MB cnodes threads valMB defMB command s MB/s RSS RSSmax RSS? smax s?
rows=()
extrap=()

for i in "${!cases[@]}"; do
    c=${cases[$i]}
    runs=${runs_of[$i]}
    file=$WORK/huge_$c.cube
    case $c in
        cnodes) args=(--metrics 5 --cnodes "$CNODES" --threads 2 --depth 10) ;;
        threads) args=(--metrics 5 --cnodes 20 --threads "$THREADS" --depth 10) ;;
        2GB) args=(--metrics 5 --threads 16 --depth 10 --target-mb "$HUGE_MB") ;;
        cubex)
            if ((!have_cubex)); then
                continue
            fi
            args=(--metrics 8 --cnodes "$CUBEX_CNODES" --threads 16 --depth 10 --digits 6) ;;
    esac
    note "generating $c: ${args[*]}"
    t0=$EPOCHREALTIME
    "$GEN" "${args[@]}" --threads-per-process 1 --density 1 --seed 1 -v -o "$file" \
        2>"$WORK/gen.txt" || { cat "$WORK/gen.txt" >&2; die "gen_cube failed"; }
    gen_s=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    summary=$(tail -n 1 "$WORK/gen.txt")
    get() { sed -n "s/.* $1=\\([0-9]*\\).*/\\1/p" <<<" $summary"; }
    cnodes=$(get cnodes) rowsn=$(get rows) threads=$(get threads) metrics=$(get metrics)
    bytes=$(wc -c <"$file")
    defb=$(grep -b -m1 -o '<severity>' "$file" | cut -d: -f1)
    read -r mb valmb defmb metmb < <(awk -v b="$bytes" -v r="$rowsn" -v t="$threads" \
        -v d="$defb" -v m="$metrics" -v c="$cnodes" 'BEGIN {
        printf "%.1f %.1f %.1f %.1f\n", b / 1e6, r * t * 8 / 1e6, d / 1e6, c * t * 8 / 1e6 }')
    note "$c: $mb MB generated in $gen_s s, $cnodes cnodes, $threads threads; measuring"
    if [[ $c == cubex ]]; then
        cubex_measure "${cnodes}cp" "$file" "$runs" "$rowsn" "$threads"
        if ((!keep_work)); then
            rm -f -- "$file"
        fi
        continue
    fi

    xs=-
    if ((have_xmllint)); then
        measure "$runs" xmllint --stream --noout "$file"
        xs=$M_S
    fi
    measure "$runs" "$BIN/cube_info" "$file"
    is=$M_S ik=$M_KB
    measure "$runs" "$BIN/cube_diff" -o "$WORK/diff.cube" "$file" "$file"
    ds=$M_S dk=$M_KB
    rm -f -- "$WORK/diff.cube"
    measure "$runs" "$BIN/cube_dump" -m mpi "$file"
    ps=$M_S pk=$M_KB
    if ((!keep_work)); then
        rm -f -- "$file"
    fi

    # one line per command; bounds as in the header comment
    for cmd in info diff dump; do
        case $cmd in
            info) s=$is kb=$ik rmax="1.5*$valmb+$defmb+8" tmax=$([[ $xs == - || $xs == FAIL ]] && echo - || echo "2*$xs")
                  label=cube_info ;;
            diff) s=$ds kb=$dk rmax="2*(1.5*$valmb+$defmb)+8" tmax="6*$is" label=cube_diff ;;
            dump) s=$ps kb=$pk rmax="1.5*$metmb+$defmb+8" tmax="1.5*$is" label="cube_dump" ;;
        esac
        rows+=("$(awk -v c="$c" -v mb="$mb" -v cn="$cnodes" -v th="$threads" -v val="$valmb" \
            -v def="$defmb" -v cmd="$label" -v s="$s" -v kb="$kb" -v rmax="$rmax" -v tmax="$tmax" '
            function ev(e,   n, a, p, k, x) { # evaluates "a*b+c+d" and "2*(a*b+c)+d"
                if (e == "-" || e ~ /FAIL/) return -1
                gsub(/[()]/, "", e)
                if (e ~ /^2\*/) { sub(/^2\*/, "", e); n = split(e, a, "+")
                    x = 0; for (k = 1; k < n; k++) { split(a[k], p, "*"); x += (p[2] == "" ? p[1] : p[1] * p[2]) }
                    return 2 * x + a[n] }
                n = split(e, a, "+"); x = 0
                for (k = 1; k <= n; k++) { split(a[k], p, "*"); x += (p[2] == "" ? p[1] : p[1] * p[2]) }
                return x }
            BEGIN {
                if (s == "FAIL") { printf "%-7s %8s %8s %7s %8s %7s | %-10s %8s\n", c, mb, cn, th, val, def, cmd, "FAIL"; exit }
                rss = kb * 1024 / 1e6; R = ev(rmax); T = ev(tmax)
                printf "%-7s %8s %8s %7s %8s %7s | %-10s %8.2f %7.1f %8.1f %8.1f %-7s %8s %-7s\n",
                    c, mb, cn, th, val, def, cmd, s, (s > 0 ? mb / s : 0), rss, R,
                    (rss <= R ? "ok" : "NOTMET"), (T < 0 ? "-" : sprintf("%.2f", T)),
                    (T < 0 ? "-" : (s <= T ? "ok" : "NOTMET")) }')")
        printf '%s\n' "${rows[-1]}"
    done
    # extrapolation to the machine's RAM: the heaviest of the three (diff),
    # scaled linearly from its RSS over the program's 8 MB
    extrap+=("$(awk -v c="$c" -v dk="$dk" -v ik="$ik" -v mem="$mem_mb" -v cn="$cnodes" \
        -v th="$threads" -v mb="$mb" -v xs="$xs" 'BEGIN {
        if (dk == "FAIL" || ik == "FAIL") { print "# " c ": failed, no extrapolation"; exit }
        d = dk * 1024 / 1e6 - 8; i = ik * 1024 / 1e6 - 8
        if (c == "cnodes") { u = cn; name = "call paths (x2 threads, 5 metrics)" }
        else if (c == "threads") { u = th; name = "threads (x20 call paths, 5 metrics)" }
        else { u = mb; name = "MB of file (16 threads, 5 metrics)" }
        printf "# %s: %.0f bytes of cube_info RSS and %.0f of cube_diff RSS per unit; in %d MB: cube_info up to about %.3g %s, cube_diff (two inputs) %.3g\n",
            c, i * 1e6 / u, d * 1e6 / u, mem, mem / i * u, name, mem / d * u }')")
done

echo "# load average at end: $(load) (1, 5, 15 min); other engineers may be using the machine"
cat <<'EOF'
# MB: file size (10^6 bytes); valMB: severity values as doubles (rows x threads x 8);
# defMB: bytes before <severity> (the definitions); s: wall seconds (one run unless
# PERF_RUNS); RSS: peak resident set in MB (GNU time %M); RSSmax: the bound
#   cube_info  1.5 x valMB + defMB + 8         (8 MB: the program itself)
#   cube_diff  2 x (1.5 x valMB + defMB) + 8   (the file with itself: two inputs)
#   cube_dump  1.5 x metMB + defMB + 8         (metMB = cnodes x threads x 8: one metric)
# smax: the time bound: cube_info 2 x xmllint --stream --noout, cube_diff 6 x cube_info
# (3x reading both inputs), cube_dump -m mpi (per thread, CSV to /dev/null) 1.5 x cube_info.
# Extrapolated linearly from the measured RSS per unit (not measured at that size):
EOF
printf '%s\n' "${extrap[@]}"
cubex_print
perf_exit
