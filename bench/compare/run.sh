#!/bin/sh
# run.sh - run the comparison of cube_bench's measurement with a fixed-iteration
# loop (bench/compare/README.md), then launch the real cube_bench 3 x MERGES
# times over the same 23 ping-pong sizes: each launch timed end to end (MPI
# start-up and output included), and the launches merged three at a time.
#
#   sh bench/compare/run.sh BENCH_COMPARE [CUBE_BENCH] [bench_compare options]
#
# `make bench-compare` runs it (COMPARE_ARGS="--iters 2000" passes options;
# MERGES=3 in the environment: 9 launches instead of 15; LAUNCHES=10: the
# comparison ten times, with how often each target held, the run-to-run
# variation of both sides and, per size, the median ratio over the
# launches).
# Always 2 ranks: the machine has 2 cores and MPICH busy-polls, so every rank
# beyond that turns the figures into scheduling artefacts.  The figures are
# printed, never judged by the exit status: a MISS is a finding, not a
# failure (0 unless something could not run).
set -eu

if [ $# -lt 1 ]; then
    echo "usage: sh bench/compare/run.sh BENCH_COMPARE [CUBE_BENCH] [options]" >&2
    exit 2
fi
compare=$1
shift
cube_bench=
if [ $# -gt 0 ]; then
    case $1 in
    -*) ;;
    *) cube_bench=$1; shift ;;
    esac
fi
here=$(dirname "$0")
par=$here/../default.par

# Busy share of all cores over one second, from /proc/stat: the load the
# other users of the machine put on it just before (or after) the figures.
busy() {
    a=$(head -n 1 /proc/stat)
    sleep 1
    b=$(head -n 1 /proc/stat)
    echo "$a
$b" | awk '{ idle = $5 + $6; tot = 0; for (i = 2; i <= NF; i++) tot += $i
             if (NR == 1) { i0 = idle; t0 = tot } else { i1 = idle; t1 = tot } }
           END { if (t1 > t0) printf "%.0f", 100 * (1 - (i1 - i0) / (t1 - t0)); else print "?" }'
}

now() { date +%s.%N; }

# LAUNCHES=N in the environment: the comparison N times (default 1), then
# how often each target held, and the run-to-run coefficient of variation
# of both sides per size within one latency level.
launches=${LAUNCHES:-1}
ctmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_compare_runs.XXXXXX")
k=1
while [ "$k" -le "$launches" ]; do
    echo "# launch $k of $launches: $(nproc) cores; load average" \
         "$(cut -d ' ' -f 1-3 /proc/loadavg); busy $(busy) % of all cores in the second before"
    mpiexec -n 2 "$compare" -p "$par" "$@" | tee "$ctmp/c$k"
    echo "# busy $(busy) % of all cores in the second after;" \
         "load average $(cut -d ' ' -f 1-3 /proc/loadavg)"
    k=$((k + 1))
done
if [ "$launches" -gt 1 ]; then
    echo "#"
    echo "# over $launches launches: how often each target held"
    cat "$ctmp"/c* | sed -n 's/^# \(PASS\|MISS\) \([a-z]*\) *\([a-z]*\) *\(vs [a-z ]*[a-z]\|[0-9]* KiB\|1 MiB\)\{0,1\}.*/\1|\2 \3 \4/p' |
        awk -F '|' '{ n[$2]++; if ($1 == "PASS") p[$2]++ }
            END { for (t in n) printf "#   %-40s %2d of %2d launches\n", t, p[t], n[t] }' | sort
    # per op, size and level: the launches' values (ping-pong: rank 0's
    # time against the loop's mean; collectives: the means over ranks)
    cat "$ctmp"/c* | awk '
        $1 ~ /^(pingpong|bcast|allreduce)$/ && $2 ~ /^[0-9]+$/ {
            key = $1 " " $2 " " $3
            cb = ($1 == "pingpong") ? $5 : $10; lp = ($1 == "pingpong") ? $7 : $11
            n[key]++; s1[key] += cb; q1[key] += cb * cb; s2[key] += lp; q2[key] += lp * lp
            ops[key] = $1; lev[key] = $3; size[key] = $2; r[key, n[key]] = cb / lp
        }
        # the 95 % quantile of F(d, d); between the tabled d that of the next
        # larger one, which is smaller (a CV counts as worse a little early)
        function fcrit(d) {
            if (d <= 2) return 19.0; if (d == 3) return 9.28; if (d == 4) return 6.39
            if (d == 5) return 5.05; if (d == 6) return 4.28; if (d == 7) return 3.79
            if (d == 8) return 3.44; if (d == 9) return 3.18; if (d <= 12) return 2.69
            if (d <= 20) return 2.12; return 1.84
        }
        function cv(s, q, m,    mean, var) {
            mean = s / m; var = (q - s * s / m) / (m - 1); if (var < 0) var = 0
            return sqrt(var) / mean
        }
        END {
            for (key in n) {
                m = n[key]
                if (m < 3) continue
                g = ops[key] " " lev[key]; tot[g]++
                c1 = cv(s1[key], q1[key], m); c2 = cv(s2[key], q2[key], m)
                if (c1 <= c2) ok[g]++
                # a CV from a handful of launches is itself uncertain: also
                # count where cube_bench is worse beyond that (one-sided F
                # test of the two variances at 5 %, m - 1 degrees of freedom
                # each; the means are within a few per cent, so the squared
                # CV ratio stands for the variance ratio)
                if (c2 > 0 && (c1 / c2) ^ 2 > fcrit(m - 1)) worse[g]++
                # the launches ratios, sorted: their range, and their median
                # against the band (a bias shows there, the noise of single
                # launches does not)
                for (i = 1; i <= m; i++) x[i] = r[key, i]
                for (i = 2; i <= m; i++)
                    for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
                printf "#   cv %-22s %2d launches: cube_bench %.3f, loop %.3f; ratio %.3f..%.3f\n",
                       key, m, c1, c2, x[1], x[m] | "sort -k3,3 -k4,4n"
                med = m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
                tol = ops[key] == "pingpong" ? 0.05 : 0.10
                if (med >= 1 - tol && med <= 1 + tol) mok[g]++
                else mout[g] = mout[g] sprintf(" %s B %.3f", size[key], med)
            }
            close("sort -k3,3 -k4,4n")
            for (g in tot)
                printf "# cv target %-16s cube_bench no worse than the loop at %d of %d sizes;" \
                       " worse beyond the uncertainty of the CVs (F test, 5 %%) at %d\n",
                       g, ok[g], tot[g], worse[g] + 0
            for (g in tot)
                printf "# median target %-12s the median over the launches in the band at %d of %d sizes%s\n",
                       g, mok[g] + 0, tot[g], mout[g] == "" ? "" : "; outside:" mout[g]
        }'
fi
rm -rf "$ctmp"

# The real cube_bench, one suite over the 23 sizes (Fixed_log: exactly the
# powers of two, no refinement) with default.par's settings, launched
# 3 x MERGES times (default 5): the wall time of each whole launch (the
# sweep target), and the merge target across launches, which is what that
# target is about: separate launches spread more than measurements in one
# process.  The merges are made by `cube_bench --merge` (the weighted median
# by repetitions, bench/merge.c) and read with cube_dump; the same
# weighted median is computed here from the runs' `time` and `reps` as a
# cross-check, and used alone when --merge is not available.
if [ -z "$cube_bench" ] || [ ! -x "$cube_bench" ]; then
    echo "# (no cube_bench binary given: the launches are skipped)"
    exit 0
fi
dump=$(dirname "$cube_bench")/cube_dump
merges=${MERGES:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sed -n '1,/^@MEASUREMENTS/p' "$par" > "$tmp/sweep.par"
cat >> "$tmp/sweep.par" <<'EOF'
Pingpong_Send_Recv {
    Type = Pingpong_Send_Recv;
    Variation = Length;
    Scale = Fixed_log;
    Start_Argument = 1;
    End_Argument = 4194304;
    Stepwidth = 2;
    Node_Times = yes;
}
EOF

# time and reps of rank 0 at LEN... of experiment FILE, on one line
values() {
    file=$1
    shift
    "$dump" -m time,reps -c "name=/^len=($(echo "$@" | tr ' ' '|'))\$/" -t 0 -s tsv "$file" |
        awk -F '\t' -v want="$*" 'NR > 1 { v[$1 "," $4] = $10 }
            END { k = split(want, w, " ")
                  for (i = 1; i <= k; i++)
                      printf "%s %s%s", v["time,len=" w[i]], v["reps,len=" w[i]],
                             i < k ? " " : "\n" }'
}

n=$((3 * merges))
i=1
: > "$tmp/launches"
while [ "$i" -le "$n" ]; do
    t0=$(now)
    if ! mpiexec -n 2 "$cube_bench" -p "$tmp/sweep.par" -o "$tmp/run$i.cube" \
            -l "$tmp/run$i.log" > "$tmp/out$i" 2>&1; then
        echo "# cube_bench failed:" >&2
        cat "$tmp/out$i" >&2
        exit 1
    fi
    t1=$(now)
    # the suite's own time, from the log ("  23 arguments in 70.99 ms (limit ...")
    suite=$(sed -n 's/^  [0-9]* arguments in \([0-9.]* [a-z]*\) (limit.*/\1/p' \
            "$tmp/run$i.log" | head -n 1 | tr ' ' '_')
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    echo "L $i $wall ${suite:-?} $(values "$tmp/run$i.cube" 1 65536 1048576)" >> "$tmp/launches"
    i=$((i + 1))
done

# g = 1: three consecutive launches per merge, as a Makefile running three
# repetitions and merging them does (the target); g = 2: launches j, j + K,
# j + 2K, for contrast: states of the machine that outlast a launch (a
# tenth of a second) hit consecutive launches together
tool=yes
for g in 1 2; do
    j=1
    while [ "$j" -le "$merges" ]; do
        if [ "$g" = 1 ]; then
            a=$((3 * j - 2)); b=$((a + 1)); c=$((a + 2))
        else
            a=$j; b=$((j + merges)); c=$((j + 2 * merges))
        fi
        if [ "$tool" = yes ] && "$cube_bench" --merge -o "$tmp/merged.cube" "$tmp/run$a.cube" \
                "$tmp/run$b.cube" "$tmp/run$c.cube" > "$tmp/merge.out" 2>&1; then
            echo "M $g $j $(values "$tmp/merged.cube" 65536 1048576)" >> "$tmp/launches"
        elif [ "$tool" = yes ]; then
            tool=no
            echo "# cube_bench --merge failed ($(head -n 1 "$tmp/merge.out")):" \
                 "the weighted median is computed here"
        fi
        j=$((j + 1))
    done
done

awk -v merges="$merges" -v tool="$tool" '
# the weighted median of three values as cube_bench --merge defines it:
# sorted ascending (equal values in run order), the first at which twice
# the cumulative weight reaches the total
function wmed3(v1, w1, v2, w2, v3, w3,    v, w, i, j, t, tot, cum) {
    v[1] = v1; v[2] = v2; v[3] = v3; w[1] = w1; w[2] = w2; w[3] = w3
    for (i = 1; i <= 3; i++)
        for (j = i + 1; j <= 3; j++)
            if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t; t = w[i]; w[i] = w[j]; w[j] = t }
    tot = w[1] + w[2] + w[3]
    for (i = 1; i <= 3; i++) { cum += w[i]; if (2 * cum >= tot) return v[i] }
    return v[3]
}
# the median of a[1..n]; dev: the largest relative distance from it
function median(a, n,    s, i, j, t, med, d) {
    for (i = 1; i <= n; i++) s[i] = a[i]
    for (i = 1; i <= n; i++)
        for (j = i + 1; j <= n; j++)
            if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
    med = n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
    dev = 0; lo = s[1]; hi = s[n]
    for (i = 1; i <= n; i++) {
        d = (a[i] > med ? a[i] - med : med - a[i]) / med
        if (d > dev) dev = d
    }
    return med
}
$1 == "L" {
    k = $2; n = k
    v64[k] = $7 * 1e6; r64[k] = $8; v1m[k] = $9 * 1e6; r1m[k] = $10
    sub(/_/, " ", $4)
    printf "# cube_bench launch %2d: %s s wall (start-up, measuring, writing); suite %s;" \
           " 1 B %.3f us, 64 KiB %.4g us (%d reps), 1 MiB %.4g us (%d reps)\n",
           k, $3, $4, $5 * 1e6, v64[k], r64[k], v1m[k], r1m[k]
    if ($3 + 0 > worst) worst = $3 + 0
}
$1 == "M" { tm[$2, $3, 1] = $4 * 1e6; tm[$2, $3, 2] = $6 * 1e6 }
END {
    printf "# %s sweep end to end: %d launches of cube_bench over the 23 sizes, the slowest" \
           " %.3f s (target 0.5 s; MPI start-up and output included)\n",
           (worst <= 0.5 ? "PASS" : "MISS"), n, worst
    differ = 0
    for (m = 1; m <= 2; m++) {
        for (j = 1; j <= n; j++) one[j] = (m == 1 ? v64[j] : v1m[j])
        median(one, n); single = dev
        for (g = 1; g <= 2; g++) {
            for (j = 1; j <= merges; j++) {
                for (q = 1; q <= 3; q++)
                    x[q] = g == 1 ? 3 * (j - 1) + q : j + (q - 1) * merges
                if (m == 1) own = wmed3(v64[x[1]], r64[x[1]], v64[x[2]], r64[x[2]], v64[x[3]], r64[x[3]])
                else        own = wmed3(v1m[x[1]], r1m[x[1]], v1m[x[2]], r1m[x[2]], v1m[x[3]], r1m[x[3]])
                mg[j] = own
                if (tool == "yes") {
                    mg[j] = tm[g, j, m]
                    if (mg[j] != own) differ++
                }
            }
            med = median(mg, merges)
            if (g == 1)
                printf "# %s merge     pingpong  %s: %d merges of 3 consecutive launches (%s):" \
                       " %.4g..%.4g us, within +-%.1f %% of their median %.4g us (target 10 %%);" \
                       " single launches +-%.1f %%\n",
                       (dev <= 0.10 ? "PASS" : "MISS"), (m == 1 ? "64 KiB" : "1 MiB"), merges,
                       (tool == "yes" ? "cube_bench --merge" : "weighted median by reps"),
                       lo, hi, 100 * dev, med, 100 * single
            else if (merges > 1)
                printf "#      (the same launches merged %d apart: %.4g..%.4g us, +-%.1f %%)\n",
                       merges, lo, hi, 100 * dev
        }
    }
    if (tool == "yes")
        printf "# cube_bench --merge %s the weighted median by reps computed here (%d of %d" \
               " merged values differ)\n", (differ ? "DIFFERS from" : "agrees with"), differ,
               4 * merges
}' "$tmp/launches"
