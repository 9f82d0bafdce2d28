#!/usr/bin/env bash
# bench/perf/run.sh - time cube_info and cube_clean on synthetic CUBE 3 files.
#
# Usage: bench/perf/run.sh [BIN_DIR [WORK_DIR]]
#   BIN_DIR   where cube_info and cube_clean are (default build/bin)
#   WORK_DIR  where the generated files go (default: a temporary directory,
#             removed at the end; a directory given here is kept)
#
# Environment:
#   GEN          gen_cube binary to use; if unset, bench/perf/gen_cube.c is
#                compiled into WORK_DIR with ${CC:-cc} -O2
#   PERF_SIZES   file sizes in MB (10^6 bytes), default "5 50 500"
#   PERF_RUNS    runs per measurement, the median is reported: one number for
#                all sizes, or one per size; default 3 below 200 MB, else 1
#   PERF_GEN_ARGS  extra gen_cube options (e.g. "--digits 12")
#   PERF_HUGE_ONLY 1: skip this script (lib.sh), for make perf PERF_HUGE_ONLY=1
#   RW           the cube_rw binary (bench/perf/cube_rw.c; make perf builds it):
#                without it the CUBE 4 cases are skipped
#   PERF_CUBEX_MIN_MB  the CUBE 4 cases run for the sizes from this one up
#                (default 50: the 50 and 500 MB files)
#   CUBELIB_DUMP CubeLib's cube_dump, for its reference column (not installed
#                here: the column then says so)
#
# CUBE 4: each file of PERF_CUBEX_MIN_MB MB or more is also converted into
# .cubex archives (plain and compressed data) that are read, written again,
# dumped one metric and all, and diffed; see cubex_measure in lib.sh.
#
# Each file: 16 threads (16 processes x 1 thread), 5 metrics, every
# (metric, cnode) row present, call-tree depth <= 10, seed 1.  The files are
# read from the page cache (they were just written), so this measures
# parsing and writing, not the disk.  Exit status 0 when every command ran
# and succeeded (a tool missing from BIN_DIR is skipped, not a failure).
set -euo pipefail
export LC_ALL=C # '.' as decimal separator in EPOCHREALTIME, awk and sort

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
perf_prog=run.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh" # die, note, perf_runs, perf_work_dir, measure, cells, ...
BIN=${1:-build/bin}
WORK=${2:-}
SIZES=${PERF_SIZES:-5 50 500}
GEN_ARGS=${PERF_GEN_ARGS:-}

# --- parameters ------------------------------------------------------------

read -r -a sizes <<<"$SIZES"
((${#sizes[@]} > 0)) || die "PERF_SIZES is empty"
for size in "${sizes[@]}"; do
    [[ $size =~ ^[0-9]+([.][0-9]+)?$ && ! $size =~ ^0+([.]0*)?$ ]] ||
        die "bad size '$size' in PERF_SIZES (MB, a positive number)"
done
perf_runs "size in PERF_SIZES" 200 "${sizes[@]}" # runs_of: runs per size

# --- prerequisites ---------------------------------------------------------

perf_check_time
perf_work_dir cube-perf
measure_rm=("$WORK/out.cube" "$WORK/out.cube.gz")

perf_generator GEN gen_cube "$here/gen_cube.c"

have_xmllint=1
if ! command -v xmllint >/dev/null 2>&1; then
    have_xmllint=0
    note "xmllint not found (Debian package libxml2-utils): skipping its columns"
fi
have_info=1 have_clean=1
if [[ ! -x $BIN/cube_info ]]; then
    have_info=0
    note "$BIN/cube_info not found or not executable: skipping its columns"
fi
have_algebra=1
for tool in cube_diff cube_mean cube_merge; do
    if [[ ! -x $BIN/$tool ]]; then
        have_algebra=0
        note "$BIN/$tool not found or not executable: skipping the algebra table"
    fi
done
MEAN10_MAX=${PERF_MEAN10_MAX_MB:-60}
algebra_rows=()
have_views=1
for tool in cube_dump cube_stat; do
    if [[ ! -x $BIN/$tool ]]; then
        have_views=0
        note "$BIN/$tool not found or not executable: skipping the views table"
    fi
done
view_rows=()
# the scripting tools: each column runs when its tool is there
script_cols=(dump_by dump_top calltree cut common inclusify cmp_by)
script_rows=()

cubex_setup "$BIN"
CUBEX_MIN_MB=${PERF_CUBEX_MIN_MB:-50}

if [[ ! -x $BIN/cube_clean ]]; then
    have_clean=0
    note "$BIN/cube_clean not found or not executable: skipping its columns"
fi

# relative_cell REF -> " s RSS x |" of the last measure (M_S, M_KB), x its
# seconds as a multiple of REF seconds ("-" when REF is not a number)
relative_cell() {
    awk -v s="$M_S" -v kb="$M_KB" -v ref="$1" 'BEGIN {
        if (s == "FAIL") { printf " %8s %7s %6s |", s, s, s; exit }
        x = (ref ~ /^[0-9.]+$/ && ref > 0) ? sprintf("%.2f", s / ref) : "-"
        printf " %8.3f %7.1f %6s |", s, kb * 1024 / 1e6, x }'
}

# --- table -----------------------------------------------------------------

header() {
    printf '%8s %8s | ' "" ""
    printf '%-25s | ' "xmllint --stream --noout"
    printf '%-52s | ' "cube_info FILE >/dev/null"
    printf '%-25s | ' "cube_clean -o out.cube"
    printf '%-25s\n' "cube_clean -o out.cube.gz"
    printf '%8s %8s | ' "MB" "cnodes"
    printf '%8s %8s %7s | ' s MB/s RSS
    printf '%8s %8s %7s %8s %8s %8s | ' s MB/s RSS valMB RSS/val /xmllint
    printf '%8s %8s %7s | ' s MB/s RSS
    printf '%8s %8s %7s\n' s MB/s RSS
}

echo "# cube perf: bin=$BIN, $(nproc 2>/dev/null || echo '?') CPUs, sizes: $SIZES MB," \
    "16 threads, 5 metrics, dense, depth 10${GEN_ARGS:+, gen args: $GEN_ARGS}"
header

for i in "${!sizes[@]}"; do
    size=${sizes[$i]}
    runs=${runs_of[$i]}
    file=$WORK/bench_${size}MB.cube
    note "generating about $size MB into $file"
    # shellcheck disable=SC2086 # GEN_ARGS is a list of options
    "$GEN" --metrics 5 --threads 16 --threads-per-process 1 --depth 10 \
        --density 1 --seed 1 $GEN_ARGS --target-mb "$size" -v -o "$file" \
        2>"$WORK/gen.txt" || { cat "$WORK/gen.txt" >&2; die "gen_cube failed"; }
    summary=$(tail -n 1 "$WORK/gen.txt")
    cnodes=$(sed -n 's/.*cnodes=\([0-9]*\).*/\1/p' <<<"$summary")
    rows=$(sed -n 's/.*rows=\([0-9]*\).*/\1/p' <<<"$summary")
    threads=$(sed -n 's/.*threads=\([0-9]*\).*/\1/p' <<<"$summary")
    bytes=$(wc -c <"$file")
    mb=$(awk -v b="$bytes" 'BEGIN { printf "%.2f", b / 1e6 }')
    note "measuring $mb MB, $cnodes cnodes, $runs run(s) per command"

    xs=- xk=- is=- ik=- cs=- ck=- zs=- zk=-
    if ((have_xmllint)); then
        measure "$runs" xmllint --stream --noout "$file"
        xs=$M_S xk=$M_KB
    fi
    if ((have_info)); then
        measure "$runs" "$BIN/cube_info" "$file"
        is=$M_S ik=$M_KB
    fi
    if ((have_clean)); then
        measure "$runs" "$BIN/cube_clean" -o "$WORK/out.cube" "$file"
        cs=$M_S ck=$M_KB
        measure "$runs" "$BIN/cube_clean" -o "$WORK/out.cube.gz" "$file"
        zs=$M_S zk=$M_KB
    fi
    rm -f -- "$WORK/out.cube" "$WORK/out.cube.gz"

    # the algebra on the same file: diff and mean of the file with itself,
    # merge of it with itself, and (up to PERF_MEAN10_MAX_MB) the mean of ten
    # copies; each also as a multiple of cube_info's time on one input
    if ((have_algebra)); then
        arow=$(printf '%8s | %8s |' "$mb" "$is")
        for op in diff mean merge mean10; do
            case $op in
                mean10)
                    if awk -v m="$mb" -v max="$MEAN10_MAX" 'BEGIN { exit !(m > max) }'; then
                        arow+=$(printf ' %8s %7s %6s |' - - -)
                        continue
                    fi
                    measure "$runs" "$BIN/cube_mean" -o "$WORK/out.cube" \
                        "$file" "$file" "$file" "$file" "$file" "$file" "$file" "$file" "$file" "$file" ;;
                *)  measure "$runs" "$BIN/cube_$op" -o "$WORK/out.cube" "$file" "$file" ;;
            esac
            arow+=$(relative_cell "$is")
            rm -f -- "$WORK/out.cube"
        done
        algebra_rows+=("$arow")
    fi

    # the views: one metric of the file (per thread, and aggregated), and
    # the top-20 flat profile; each as a multiple of reading the file
    if ((have_views)); then
        vrow=$(printf '%8s | %8s |' "$mb" "$is")
        for view in dump dump_aggr stat; do
            case $view in
                dump) measure "$runs" "$BIN/cube_dump" -m mpi -o /dev/null "$file" ;;
                dump_aggr) measure "$runs" "$BIN/cube_dump" -m mpi -t aggr -o /dev/null "$file" ;;
                stat) measure "$runs" "$BIN/cube_stat" -t 20 "$file" ;;
            esac
            vrow+=$(relative_cell "$is")
        done
        view_rows+=("$vrow")
    fi

    # the scripting tools on each file, each as a multiple of reading it:
    # aggregation per process, the top 5 call paths, the call tree as text,
    # pruning at a region (CUBE 4 output: see the note below the table),
    # the common call tree of F and a copy, F stored inclusive, cube_cmp
    # per process
    srow=$(printf '%8s | %8s |' "$mb" "$is")
    for col in "${script_cols[@]}"; do
        case $col in
            dump_by) cmd=("$BIN/cube_dump" -m time --by=process -o /dev/null "$file") ;;
            dump_top) cmd=("$BIN/cube_dump" -m time --by=all --sort=-value --top=5 -o /dev/null "$file") ;;
            calltree) cmd=("$BIN/cube_calltree" -m time -i -o /dev/null "$file") ;;
            cut) cmd=("$BIN/cube_cut" -p compute_kernel_62 -o "$WORK/cut.cubex" "$file") ;;
            common)
                rm -rf -- "$WORK/common" && mkdir -p "$WORK/common/a" "$WORK/common/b"
                ln -sf "$file" "$WORK/common/a/F.cube" && ln -sf "$file" "$WORK/common/b/G.cube"
                cmd=("$BIN/cube_commoncalltree" -d "$WORK/common" "$WORK/common/a/F.cube" "$WORK/common/b/G.cube") ;;
            inclusify) cmd=("$BIN/cube_inclusify" -o "$WORK/incl.cubex" "$file") ;;
            cmp_by) cmd=("$BIN/cube_cmp" --by=process "$file" "$file") ;;
        esac
        if [[ -x ${cmd[0]} ]]; then
            measure "$runs" "${cmd[@]}"
            srow+=$(relative_cell "$is")
        else
            srow+=$(printf ' %8s %7s %6s |' - - -)
        fi
    done
    rm -rf -- "$WORK/common" "$WORK/cut.cubex" "$WORK/incl.cubex"
    script_rows+=("$srow")

    # values' bytes as doubles (rows x threads x 8), cube_info RSS relative
    # to it, and cube_info time relative to xmllint's
    extra=$(awk -v rows="$rows" -v th="$threads" -v is="$is" -v ik="$ik" -v xs="$xs" 'BEGIN {
        val = rows * th * 8 / 1e6
        ratio = (is ~ /^[0-9.]+$/ && val > 0) ? sprintf("%.2f", ik * 1024 / 1e6 / val) : "-"
        rel = (is ~ /^[0-9.]+$/ && xs ~ /^[0-9.]+$/ && xs > 0) ? sprintf("%.2f", is / xs) : "-"
        printf "%8.1f %8s %8s", val, ratio, rel }')
    printf '%8s %8s | ' "$mb" "$cnodes"
    printf '%s | ' "$(cells "$xs" "$xk" "$mb")"
    printf '%s %s | ' "$(cells "$is" "$ik" "$mb")" "$extra"
    printf '%s | ' "$(cells "$cs" "$ck" "$mb")"
    printf '%s\n' "$(cells "$zs" "$zk" "$mb")"
    if ((have_cubex)) && awk -v s="$size" -v min="$CUBEX_MIN_MB" 'BEGIN { exit !(s >= min) }'; then
        cubex_measure "${size}MB" "$file" "$runs" "$rows" "$threads"
    fi
    if ((!keep_work)); then
        rm -f -- "$file" # temporary work dir: free the disk as we go
    fi
done

cat <<'EOF'
# MB: input file size (10^6 bytes); cnodes: call-tree nodes in it.
# s: median wall seconds; MB/s: input MB / s; RSS: peak resident set in MB (GNU time %M).
# valMB: size of the severity values as doubles (rows x threads x 8 bytes, MB);
# RSS/val: cube_info RSS / valMB; /xmllint: cube_info seconds / xmllint seconds
# (xmllint --stream --noout is the floor: parsing the XML at all, no model built).
# '-': tool not found or not run; FAIL: the command exited non-zero (stderr shown above).
EOF

if ((have_algebra)); then
    echo
    printf '%8s | %8s | %-24s | %-24s | %-24s | %-24s |\n' "" "cube_info" \
        "cube_diff F F" "cube_mean F F" "cube_merge F F" "cube_mean F x10"
    printf '%8s | %8s |' MB s
    for _ in 1 2 3 4; do printf ' %8s %7s %6s |' s RSS x; done
    echo
    printf '%s\n' "${algebra_rows[@]}"
    cat <<'EOF'
# The algebra on each file F with itself: s wall seconds, RSS peak MB, x the
# time as a multiple of cube_info's time reading F once (reading both inputs
# of a two-input operation is x = 2, so "3x the time of reading the inputs"
# is x <= 6).  cube_mean x10 is the mean of ten copies of F (files up to
# PERF_MEAN10_MAX_MB, default 60 MB).
EOF
fi

if ((have_views)); then
    echo
    printf '%8s | %8s | %-24s | %-24s | %-24s |\n' "" "cube_info" \
        "cube_dump -m mpi F" "cube_dump -m mpi -t aggr" "cube_stat -t 20 F"
    printf '%8s | %8s |' MB s
    for _ in 1 2 3; do printf ' %8s %7s %6s |' s RSS x; done
    echo
    printf '%s\n' "${view_rows[@]}"
    cat <<'EOF'
# The views on each file F: one metric (mpi) per thread as CSV to /dev/null,
# the same aggregated over the threads, and the top-20 flat profile; x is the
# time as a multiple of cube_info's time reading F (target: 1.2).
EOF
fi

echo
printf '%8s | %8s | %-24s | %-24s | %-24s | %-24s | %-24s | %-24s | %-24s |\n' "" "cube_info" \
    "cube_dump --by=process" "cube_dump --top=5" "cube_calltree -i" "cube_cut -p R" \
    "cube_commoncalltree F G" "cube_inclusify" "cube_cmp --by=process"
printf '%8s | %8s |' MB s
for _ in "${script_cols[@]}"; do printf ' %8s %7s %6s |' s RSS x; done
echo
printf '%s\n' "${script_rows[@]}"
cat <<'EOF'
# The scripting tools on each file F, x the time as a multiple of cube_info's
# time reading F (target: 1.5; cube_commoncalltree and cube_cmp read two
# inputs, their target 3): one metric (time) summed per process as CSV; the
# five call paths with the largest exclusive time over all threads; the call
# tree with inclusive values; F pruned below the call paths of region
# compute_kernel_62, F stored call-tree inclusive (both written as CUBE 4:
# writing CUBE 3 text costs two to three reads, see cube_clean above); the
# common call tree of F and a copy of it (two CUBE 3 files written); F
# compared with itself per process.  '-': the tool is not there.
EOF

cubex_print
perf_exit
