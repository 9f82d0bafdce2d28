# make demo's folding of long lines (scripts/fold.awk) on the lines of a
# real cube_bench log: every word whole and in order, the lines within the
# width, continuation lines indented under their line.
. tests/cli/lib.sh
cat >"$TMP/log" <<'LOG'
suite Pingpong (line 5): Pingpong_Send_Recv, MPI_Send/MPI_Recv, Length 1..1048576 Fixed_log step 4; repetitions 32..1000, standard error 0.01, time per measurement 3 s; partner rank 1 (the largest latency, 177.5 ns)
  len=1          123.7 ns +- 0.9762 ns (0.71 %), 32 single measurements of 1 operation (16 kept), stop: std_error after 22.68 us, dummy 13.76 ns, warm-up 256 operations
  len=1048576    73.4 us +- 711.9 ns (0.97 %), 48 single measurements of 1 operation (24 kept), stop: std_error after 17.5 ms, dummy 13.76 ns, warm-up 4 operations
suite done: 1 of 2 (Pingpong); saved build/demo/bench.cube and build/demo/bench.stat in 0.021 s
short line
LOG
for w in 60 80 100 250; do
    awk -v w=$w -f scripts/fold.awk "$TMP/log" >"$TMP/folded.$w"
    cat >"$TMP/chk.py" <<'PY'
import sys
log, folded, w = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read().splitlines(), int(sys.argv[3])
# the same words in the same order: nothing cut, nothing lost
assert " ".join(log).split() == " ".join(folded).split()
assert all(len(l) < w for l in folded), max(map(len, folded))
# each input line starts an output line; the rest are indented deeper
k = 0
for line in log:
    assert folded[k] == line[:len(folded[k])], (folded[k], line)
    ind = len(line) - len(line.lstrip())
    k += 1
    while k < len(folded) and folded[k] not in [l[:len(folded[k])] for l in log] \
            and len(folded[k]) - len(folded[k].lstrip()) == ind + 6:
        k += 1
assert k == len(folded), (k, len(folded))
# lines that fit are left alone
if w > max(map(len, log)):
    assert folded == log
PY
    pycheck "fold.awk at width $w: words whole and in order, lines within the width" \
        "$TMP/chk.py" "$TMP/log" "$TMP/folded.$w" $w
done
