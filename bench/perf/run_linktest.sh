#!/usr/bin/env bash
# bench/perf/run_linktest.sh - time cube_linktest on synthetic LinkTest files.
#
# Usage: bench/perf/run_linktest.sh [BIN_DIR [WORK_DIR]]
#   BIN_DIR   where cube_linktest is (default build/bin)
#   WORK_DIR  where the generated files go (default: a temporary directory,
#             removed at the end; a directory given here is kept)
#
# Environment:
#   GEN_LT         gen_linktest binary to use; if unset, bench/perf/gen_linktest.c
#                  and tests/support/linktest_writer.c are compiled into WORK_DIR
#                  with ${CC:-cc} -O2
#   PERF_LT_RANKS  rank counts, default "64 1024 4096"
#   PERF_RUNS      runs per measurement, the median is reported: one number for
#                  all rank counts, or one per rank count; default 3 below 4096
#                  ranks, else 1
#   PERF_LT_GEN_ARGS  extra gen_linktest options (e.g. "--iterations 3")
#
# Each file: 48 ranks per host, 4 KiB messages, one iteration, 10 retests,
# seed 1, little-endian, aligned chunks (about 16 N^2 bytes: 270 MB for 4096
# ranks).  Every file is read once with cat before measuring, so the
# figures are for a file in the page cache: parsing and converting, not the
# disk.  Exit status 0 when every command ran and succeeded (cube_linktest
# missing from BIN_DIR is skipped with a note, not a failure).
set -euo pipefail
export LC_ALL=C # '.' as decimal separator in EPOCHREALTIME, awk and sort

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
perf_prog=run_linktest.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh" # die, note, perf_runs, perf_work_dir, measure, cells, ...
BIN=${1:-build/bin}
WORK=${2:-}
RANKS=${PERF_LT_RANKS:-64 1024 4096}
GEN_ARGS=${PERF_LT_GEN_ARGS:-}

# --- parameters ------------------------------------------------------------

read -r -a ranks_list <<<"$RANKS"
((${#ranks_list[@]} > 0)) || die "PERF_LT_RANKS is empty"
for n in "${ranks_list[@]}"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "bad rank count '$n' in PERF_LT_RANKS (a positive integer)"
done
perf_runs "rank count in PERF_LT_RANKS" 4096 "${ranks_list[@]}" # runs_of: runs per rank count

# --- prerequisites ---------------------------------------------------------

perf_check_time
perf_work_dir cube-perf-lt
measure_rm=("$WORK/out.cube") # measure keeps the last run's out.cube (for its size)

perf_generator GEN_LT gen_linktest -I"$top/tests/support" "$here/gen_linktest.c" \
    "$top/tests/support/linktest_writer.c" -lm

have_lt=1
if [[ ! -x $BIN/cube_linktest ]]; then
    have_lt=0
    note "$BIN/cube_linktest not found or not executable: skipping its columns"
fi

# --- measuring -------------------------------------------------------------

# ratio A B -> A / B with 2 decimals, or "-" when either is not a number
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "-" }'
}

# --- table -----------------------------------------------------------------

echo "# cube_linktest perf: bin=$BIN, $(nproc 2>/dev/null || echo '?') CPUs, ranks: $RANKS," \
    "48 ranks/host, 4 KiB messages, 1 iteration, d=10, seed 1${GEN_ARGS:+, gen args: $GEN_ARGS}"
printf '%6s %8s %8s %7s | %8s | %-26s | %-35s | %-22s\n' "" "" "" "" "cat" \
    "cube_linktest F" "cube_linktest --cube X.cube F" "targets"
printf '%6s %8s %8s %7s | %8s | %8s %8s %8s | %8s %8s %8s %8s | %10s %10s\n' \
    ranks MB matrixMB gen_s s s RSS /cat s RSS /cat cubeMB RSS/matrix cRSS/matrix

for i in "${!ranks_list[@]}"; do
    n=${ranks_list[$i]}
    runs=${runs_of[$i]}
    file=$WORK/lt_${n}.sion
    note "generating $n ranks into $file"
    t0=${EPOCHREALTIME:-}
    # shellcheck disable=SC2086 # GEN_ARGS is a list of options
    "$GEN_LT" --ranks "$n" --ranks-per-host 48 --message-size 4096 --retests 10 --seed 1 \
        $GEN_ARGS -o "$file" || die "gen_linktest failed for $n ranks"
    t1=${EPOCHREALTIME:-}
    gen_s=-
    [[ -n $t0 && -n $t1 ]] && gen_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    bytes=$(wc -c <"$file")
    mb=$(awk -v b="$bytes" 'BEGIN { printf "%.2f", b / 1e6 }')
    matrix_mb=$(awk -v n="$n" 'BEGIN { printf "%.2f", n * n * 8 / 1e6 }')
    note "measuring $mb MB, $runs run(s) per command"

    cat -- "$file" >/dev/null # into the page cache
    measure "$runs" cat -- "$file"
    cat_s=$M_S

    ss=- sk=- cs=- ck=- cube_mb=-
    if ((have_lt)); then
        measure "$runs" "$BIN/cube_linktest" "$file"
        ss=$M_S sk=$M_KB
        measure "$runs" "$BIN/cube_linktest" --cube "$WORK/out.cube" "$file"
        cs=$M_S ck=$M_KB
        if [[ $cs != FAIL && -f $WORK/out.cube ]]; then
            cube_mb=$(awk -v b="$(wc -c <"$WORK/out.cube")" 'BEGIN { printf "%.2f", b / 1e6 }')
        fi
        rm -f -- "$WORK/out.cube"
    fi
    s_mb=- c_mb=-
    [[ $sk =~ ^[0-9]+$ ]] && s_mb=$(awk -v kb="$sk" 'BEGIN { printf "%.3f", kb * 1024 / 1e6 }')
    [[ $ck =~ ^[0-9]+$ ]] && c_mb=$(awk -v kb="$ck" 'BEGIN { printf "%.3f", kb * 1024 / 1e6 }')

    printf '%6s %8s %8s %7s | %8s | %s %8s | %s %8s %8s | %10s %10s\n' \
        "$n" "$mb" "$matrix_mb" "$gen_s" "$(awk -v s="$cat_s" 'BEGIN {
            if (s == "FAIL") print s; else printf "%8.3f", s }')" \
        "$(cells "$ss" "$sk")" "$(ratio "$ss" "$cat_s")" \
        "$(cells "$cs" "$ck")" "$(ratio "$cs" "$cat_s")" "$cube_mb" \
        "$(ratio "$s_mb" "$matrix_mb")" "$(ratio "$c_mb" "$matrix_mb")"
    if ((!keep_work)); then
        rm -f -- "$file" # temporary work dir: free the disk as we go
    fi
done

cat <<'EOF'
# ranks: N; MB: the SION file (10^6 bytes); matrixMB: the N x N timing matrix
# as doubles (N^2 x 8 bytes); gen_s: seconds gen_linktest took to write it.
# s: median wall seconds, the file in the page cache; RSS: peak resident set in
# MB (GNU time %M); /cat: seconds as a multiple of `cat F >/dev/null`.
# cubeMB: size of the CUBE file written by --cube.  RSS/matrix and cRSS/matrix:
# peak RSS of the summary and of the conversion / matrixMB.
# Targets (4096 ranks): summary /cat <= 1.5; summary RSS/matrix <= 1.2.
# '-': tool not found or not run; FAIL: the command exited non-zero (stderr shown above).
EOF

perf_exit
