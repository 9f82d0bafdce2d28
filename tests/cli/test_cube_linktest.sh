# cube_linktest on the LinkTest files of testdata/linktest: every report
# (summary, --slowest, --hosts, --matrix, --histogram) in the csv and json
# forms checked against figures computed in Python from the files'
# expected content (NAME.expected.json, written independently of libcube);
# the two real LinkTest 1.2 files against what LinkTest printed; the CUBE
# export read back and compared with the matrix, and cube_diff of two runs;
# the SVG well-formed; broken files and usage errors exit 2 with a message.
. tests/cli/lib.sh
LT=testdata/linktest


# The oracle: the measurements of NAME.expected.json, and checks of the
# tool's csv/json output against them.
cat >"$TMP/oracle.py" <<'EOF'
import csv, json, math, sys

def load(path):
    d = json.load(open(path))
    n, perms = d["N"], d["permutations"]
    meas = []  # (time, iteration, rank, partner)
    for it, p in enumerate(perms):
        for r in range(n):
            for c in range(n):
                if r != c:
                    meas.append((p["timings"][r][c], it, r, c))
    return d, meas

def median(v):
    v = sorted(v)
    k = len(v)
    if k == 0:
        return None
    return v[k // 2] if k % 2 else v[k // 2 - 1] + (v[k // 2] - v[k // 2 - 1]) / 2

def same(a, b):
    if a is None or b is None or a == "":
        return (a is None or a == "") and (b is None or b == "")
    return float(a) == float(b)

def expect(cond, what):
    if not cond:
        sys.exit("mismatch: " + what)

def slowest(d, meas, k):
    order = sorted(meas, key=lambda m: (-m[0], m[1], m[2], m[3]))[:k]
    out = []
    for t, it, r, c in order:
        p = d["permutations"][it]
        ret = None
        for j, (s, q) in enumerate(zip(p["slow_sending_partners"], p["slow_receiving_partners"])):
            if s == r and q == c:
                ret = p["retested_slow_timings"][j]
                break
        out.append((r, c, it, t, ret))
    return out

def check_slowest_rows(d, meas, rows, k):
    want = slowest(d, meas, k)
    expect(len(rows) == len(want), "number of slowest rows %d, expected %d" % (len(rows), len(want)))
    size = d["header"]["message_size"]
    for row, (r, c, it, t, ret) in zip(rows, want):
        host = d["ranks"][r]["hostname"]
        expect(int(row["rank"]) == r and int(row["partner"]) == c and int(row["iteration"]) == it,
               "slowest order at %s" % row)
        expect(row["host"] == host and row["partner_host"] == d["ranks"][c]["hostname"], "hosts")
        expect(int(row["core"]) == d["ranks"][r]["core_id"], "core")
        expect(float(row["time"]) == t, "time of %s" % row)
        expect(same(row["retested"], ret), "retested of %s: expected %s" % (row, ret))
        expect(float(row["bandwidth"]) == size / t, "bandwidth")

mode, path = sys.argv[1], sys.argv[2]
d, meas = load(path)
times = [m[0] for m in meas]
if mode == "summary-csv":
    kv = {row["key"]: row["value"] for row in csv.DictReader(open(sys.argv[3], newline=""))}
    h = d["header"]
    expect(kv["ranks"] == str(d["N"]) and kv["iterations"] == str(d["M"]), "ranks/iterations")
    expect(kv["hosts"] == str(len({r["hostname"] for r in d["ranks"]})), "hosts")
    expect(kv["version"] == "%d.%d.%d" % (h["major"], h["minor"], h["patch"]), "version")
    expect(kv["git_hash"] == h["git_hash"] and kv["mode"] == h["mode"], "git hash / mode")
    expect(kv["message_size"] == str(h["message_size"]), "message size")
    expect(kv["measurements"] == str(len(times)), "measurements")
    expect(float(kv["time_min"]) == min(times) and float(kv["time_max"]) == max(times), "min/max")
    expect(float(kv["time_mean"]) == math.fsum(times) / len(times), "mean")
    expect(float(kv["time_median"]) == median(times), "median %s vs %s" % (kv["time_median"], median(times)))
    expect(float(kv["bandwidth_max"]) == h["message_size"] / min(times), "bandwidth_max")
    expect(kv["start_time"] == d["permutations"][0]["start_time"], "start time")
    expect(kv["end_time"] == d["permutations"][-1]["end_time"], "end time")
    flags = [f for f in ["all_to_all", "bidirectional", "unidirectional", "bisection",
                         "step_randomization", "serial", "no_sion_file", "parallel_sion",
                         "gpu_memory", "multi_buffer", "randomized_buffer", "check_buffer"] if h[f]]
    expect(kv["flags"] == ",".join(f.replace("_", "-") for f in flags), "flags " + kv["flags"])
    a2a = [p["all_to_all_times"][r] for p in d["permutations"] if "all_to_all_times" in p
           for r in range(d["N"])] if h["all_to_all"] else []
    if a2a:
        expect(float(kv["a2a_mean"]) == math.fsum(a2a) / len(a2a), "a2a mean")
        expect(float(kv["a2a_max"]) == max(a2a), "a2a max")
    else:
        expect(kv["a2a_mean"] == "", "no a2a")
elif mode == "summary-json":
    o = json.load(open(sys.argv[3]))
    expect(o["ranks"] == d["N"] and o["time_max"] == max(times), "json keys")
    check_slowest_rows(d, meas, [{k: ("" if v is None else str(v)) for k, v in s.items()}
                                 for s in o["slowest"]], 10)
elif mode == "slowest-csv":
    rows = list(csv.DictReader(open(sys.argv[3], newline="")))
    check_slowest_rows(d, meas, rows, int(sys.argv[4]))
elif mode == "hosts-csv":
    rows = list(csv.DictReader(open(sys.argv[3], newline="")))
    hosts = []
    for r in d["ranks"]:
        if r["hostname"] not in [h for h, _ in hosts]:
            hosts.append((r["hostname"], r["rank"]))
    expect([r["host"] for r in rows] == [h for h, _ in hosts], "host order")
    meds = {}
    for row, (host, first) in zip(rows, hosts):
        ranks = [r["rank"] for r in d["ranks"] if r["hostname"] == host]
        v = [m[0] for m in meas if m[2] in ranks]
        expect(int(row["ranks"]) == len(ranks) and int(row["first_rank"]) == first, "ranks of " + host)
        expect(int(row["measurements"]) == len(v), "count of " + host)
        expect(float(row["min"]) == min(v) and float(row["max"]) == max(v), "min/max of " + host)
        expect(float(row["mean"]) == math.fsum(v) / len(v), "mean of " + host)
        expect(float(row["median"]) == median(v), "median of " + host)
        meds[host] = median(v)
    center = median(list(meds.values()))
    mad = median([abs(m - center) for m in meds.values()])
    for row in rows:
        dev = meds[row["host"]] - center
        want = ("slow" if dev > 0 else "fast") if abs(dev) > 3 * mad else ""
        expect(row["outlier"] == want, "outlier flag of %s: %r, expected %r" % (row["host"], row["outlier"], want))
elif mode == "matrix-csv":
    lines = open(sys.argv[3]).read().split("\n")
    n = d["N"]
    expect(lines[0] == "iteration,rank," + ",".join(str(c) for c in range(n)), "header")
    body = [l for l in lines[1:] if l]
    expect(len(body) == n * d["M"], "rows")
    for l in body:
        f = l.split(",")
        it, r = int(f[0]), int(f[1])
        for c in range(n):
            want = "" if c == r else d["permutations"][it]["timings"][r][c]
            expect(same(f[2 + c], want) if want != "" else f[2 + c] == "", "entry %d,%d,%d" % (it, r, c))
    blanks = sum(1 for l in lines[1:-1] if not l)
    expect(blanks == d["M"] - 1, "one blank line between iterations")
elif mode == "histogram-csv":
    rows = list(csv.DictReader(open(sys.argv[3], newline="")))
    expect(len(rows) == int(sys.argv[4]), "bins")
    expect(float(rows[0]["lower"]) == min(times) and float(rows[-1]["upper"]) == max(times), "range")
    expect(sum(int(r["count"]) for r in rows) == len(times), "counts add up")
    for i, r in enumerate(rows):
        lo, hi = float(r["lower"]), float(r["upper"])
        last = i == len(rows) - 1
        inside = [t for t in times if lo <= t and (t < hi or (last and t <= hi))]
        expect(int(r["count"]) == len(inside), "bin %d: %s, expected %d" % (i, r["count"], len(inside)))
        if i:
            expect(float(rows[i - 1]["upper"]) == lo, "bins adjoin")
    w = [math.log10(float(r["upper"])) - math.log10(float(r["lower"])) for r in rows]
    expect(max(w) - min(w) < 1e-9, "equal widths in log10")
elif mode == "cube":
    # the CUBE export, dumped by cube_dump -s csv: mean/min/max over iterations
    rows = list(csv.DictReader(open(sys.argv[3], newline="")))
    n, M = d["N"], d["M"]
    got = {}
    for row in rows:
        got[(row["metric"], row["region"], int(row["location"]))] = float(row["value"])
    count = 0
    for r in range(n):
        for c in range(n):
            if r == c:
                continue
            v = [d["permutations"][i]["timings"][r][c] for i in range(M)]
            want = {"time": math.fsum(v) / M, "time_min": min(v), "time_max": max(v),
                    "bandwidth": d["header"]["message_size"] / (math.fsum(v) / M),
                    "visits": d["header"]["num_messages"] * M}
            for met, w in want.items():
                g = got.get((met, "rank %d" % c, r))
                expect(g is not None and abs(g - w) <= 1e-15 * abs(w), "%s rank %d -> %d: %s, expected %r" % (met, r, c, g, w))
                count += 1
    expect(count == 5 * n * (n - 1), "values")
elif mode == "iterations":
    # --iterations in one of the four formats against the permutations'
    # stored aggregates: bit for bit (human: microseconds, 3 decimals)
    fmt, out = sys.argv[3], open(sys.argv[4]).read()
    a2a = bool(d["header"]["all_to_all"])
    names = ["iteration", "start_time", "end_time", "min", "avg", "max", "a2a_min", "a2a_avg", "a2a_max"]
    if fmt == "csv":
        rows = list(csv.DictReader(out.splitlines()))
        expect(out.splitlines()[0] == ",".join(names), "csv header")
    elif fmt == "tsv":
        lines = out.splitlines()
        expect(lines[0] == "\t".join(names), "tsv header")
        rows = [dict(zip(names, l.split("\t"))) for l in lines[1:]]
    elif fmt == "json":
        rows = json.loads(out)
        expect(all(list(r.keys()) == names for r in rows), "json keys")
    else:
        lines = out.splitlines()
        hn = names[:3] + [n + "/us" for n in names[3:]]
        if not a2a:
            hn = hn[:6]
        expect(lines[0].split() == hn, "human header %s" % lines[0])
        rows = []
        for l in lines[1:]:
            f = l.split()
            # the times of day hold a blank: date and time are two words
            rows.append(dict(zip(hn, [f[0], f[1] + " " + f[2], f[3] + " " + f[4]] + f[5:])))
    expect(len(rows) == d["M"], "%d rows for %d iterations" % (len(rows), d["M"]))
    for i, (row, p) in enumerate(zip(rows, d["permutations"])):
        expect(int(row["iteration"]) == i, "iteration %s" % row["iteration"])
        expect(row["start_time"] == p["start_time"] and row["end_time"] == p["end_time"],
               "start/end of iteration %d: %s %s" % (i, row["start_time"], row["end_time"]))
        for key in ("min", "avg", "max", "a2a_min", "a2a_avg", "a2a_max"):
            want = p.get(key) if a2a or not key.startswith("a2a") else None
            if fmt == "human":
                if not a2a and key.startswith("a2a"):
                    expect(key + "/us" not in row, "no a2a columns without all-to-all")
                    continue
                expect(row[key + "/us"] == "%.3f" % (want * 1e6), "%s of iteration %d: %s, expected %.3f"
                       % (key, i, row[key + "/us"], want * 1e6))
            elif want is None:
                expect(row[key] in ("", None), "%s of iteration %d empty" % (key, i))
            else:
                expect(float(row[key]) == want, "%s of iteration %d: %s, expected %r" % (key, i, row[key], want))
        # the stored aggregates are those of the iteration's matrix (and
        # all-to-all times): a second, independent source of the figures
        t = [p["timings"][r][c] for r in range(d["N"]) for c in range(d["N"]) if r != c]
        expect((p["min"], p["max"]) == (min(t), max(t)) and p["avg"] == math.fsum(t) / len(t), "oracle")
        if a2a:
            expect(p["a2a_min"] == min(p["all_to_all_times"]), "oracle a2a")
else:
    sys.exit("unknown mode " + mode)
EOF

# --- every shipped LinkTest 2.1.17 file
for f in "$LT"/*.sion; do
    name=$(basename "$f" .sion)
    exp="$LT/$name.expected.json"
    run cube_linktest "$f"
    expect_rc 0 "cube_linktest $name: summary exits 0"
    expect_grep "slowest measurements" "$TMP/out" "cube_linktest $name: the summary lists the slowest"
    run cube_linktest -s csv "$f"
    cp "$TMP/out" "$TMP/sum.csv"
    pycheck "cube_linktest $name: summary figures (csv)" "$TMP/oracle.py" summary-csv "$exp" "$TMP/sum.csv"
    run cube_linktest -s json "$f"
    cp "$TMP/out" "$TMP/sum.json"
    pycheck "cube_linktest $name: summary and slowest (json)" "$TMP/oracle.py" summary-json "$exp" "$TMP/sum.json"
    run cube_linktest --slowest 5 -s csv "$f"
    cp "$TMP/out" "$TMP/slow.csv"
    pycheck "cube_linktest $name: --slowest 5" "$TMP/oracle.py" slowest-csv "$exp" "$TMP/slow.csv" 5
    run cube_linktest --hosts -s csv "$f"
    cp "$TMP/out" "$TMP/hosts.csv"
    pycheck "cube_linktest $name: --hosts" "$TMP/oracle.py" hosts-csv "$exp" "$TMP/hosts.csv"
    run cube_linktest --matrix "$f"
    cp "$TMP/out" "$TMP/matrix.csv"
    pycheck "cube_linktest $name: --matrix" "$TMP/oracle.py" matrix-csv "$exp" "$TMP/matrix.csv"
    run cube_linktest --histogram --bins 7 -s csv "$f"
    cp "$TMP/out" "$TMP/hist.csv"
    pycheck "cube_linktest $name: --histogram" "$TMP/oracle.py" histogram-csv "$exp" "$TMP/hist.csv" 7
    for fmt in csv tsv json human; do
        run cube_linktest --iterations -s $fmt "$f"
        expect_rc 0 "cube_linktest $name: --iterations -s $fmt exits 0"
        cp "$TMP/out" "$TMP/iter.$fmt"
        pycheck "cube_linktest $name: --iterations -s $fmt: the aggregates LinkTest stored" "$TMP/oracle.py" iterations "$exp" $fmt "$TMP/iter.$fmt"
        if [ -s "$TMP/err" ]; then not_ok "cube_linktest $name: --iterations -s $fmt: no message"; else ok "cube_linktest $name: --iterations -s $fmt: no message"; fi
    done
    run cube_linktest --cube "$TMP/$name.cube" "$f"
    expect_rc 0 "cube_linktest $name: --cube exits 0"
    if [ -s "$TMP/out" ]; then not_ok "cube_linktest $name: --cube prints nothing"; else ok "cube_linktest $name: --cube prints nothing"; fi
    run cube_dump -s csv "$TMP/$name.cube"
    cp "$TMP/out" "$TMP/dump.csv"
    pycheck "cube_linktest $name: the CUBE export holds the matrix" "$TMP/oracle.py" cube "$exp" "$TMP/dump.csv"
done

# --- more slowest than measurements: all of them
run cube_linktest --slowest 1000 -s csv "$LT/lt4_basic.sion"
expect_rc 0 "cube_linktest --slowest beyond the count exits 0"
wc -l <"$TMP/out" | tr -d ' ' >"$TMP/lines"
expect_text_eq 13 "$TMP/lines" "cube_linktest --slowest 1000 of 12 measurements: 12 rows"

# --- the real LinkTest 1.2 files: the figures LinkTest printed
for f in "$LT"/v1/*.sion; do
    name=$(basename "$f" .sion)
    run cube_linktest -s csv "$f"
    expect_rc 0 "cube_linktest $name (LinkTest 1.2) exits 0"
    cp "$TMP/out" "$TMP/v1.csv"
    # "RESULT: Min Time: 16.07216655us" etc., printed with 8 decimals
    cat >"$TMP/v1.py" <<'EOF'
import csv, re, sys
kv = {r["key"]: r["value"] for r in csv.DictReader(open(sys.argv[1], newline=""))}
text = open(sys.argv[2]).read()
for what, key in (("Min", "time_min"), ("Max", "time_max"), ("Avg", "time_mean")):
    m = re.search(r"RESULT: %s Time:\s+([0-9.]+)us" % what, text)
    printed = float(m.group(1))
    got = float(kv[key]) * 1e6
    if abs(got - printed) > 0.5e-8 * 1.0001:
        sys.exit("%s: %.8f us, LinkTest printed %.8f" % (key, got, printed))
if kv["tag"] != "LKTST" or kv["version"] != "1.2.1":
    sys.exit("tag/version " + kv["tag"] + " " + kv["version"])
EOF
    pycheck "cube_linktest $name: min/max/avg as LinkTest printed them" "$TMP/v1.py" "$TMP/v1.csv" "$LT/v1/$name.stdout.txt"
    run cube_linktest --slowest 4 -s csv "$f"
    cp "$TMP/out" "$TMP/v1slow.csv"
    cat >"$TMP/v1slow.py" <<'EOF'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
text = open(sys.argv[2]).read()
# "0: PINGPONG 3 <-> 0: 1st: 5338.0192us (...) 2nd: 5340.5031us"
printed = re.findall(r"PINGPONG\s+(\d+)\s+<->\s+(\d+):\s+1st:\s+([0-9.]+)us.*?2nd:\s+([0-9.]+)us", text)
if len(printed) < 4:
    sys.exit("the stdout lists %d retests" % len(printed))
for row, (a, b, first, second) in zip(rows, printed):
    if (row["rank"], row["partner"]) != (a, b):
        sys.exit("slowest %s->%s, LinkTest listed %s<->%s" % (row["rank"], row["partner"], a, b))
    if abs(float(row["time"]) * 1e6 - float(first)) > 1e-4 or abs(float(row["retested"]) * 1e6 - float(second)) > 1e-4:
        sys.exit("times of %s->%s" % (a, b))
EOF
    pycheck "cube_linktest $name: the slowest and their retests as LinkTest listed them" "$TMP/v1slow.py" "$TMP/v1slow.csv" "$LT/v1/$name.stdout.txt"
done

# --- --iterations of the real LinkTest 1.2 files: the one set of aggregates
# 1.x stores for the run (its statdp array, decoded here from the raw bytes
# of rank 0's data) as iteration 0, and as LinkTest printed them; no start
# and end times, said in a note on standard error; exit status 0
cat >"$TMP/v1iter.py" <<'EOF'
import csv, json, re, struct, sys
sion, stdout, fmt, out = sys.argv[1:5]
b = open(sion, "rb").read()
fsblksize, ntasks = struct.unpack_from("<ii", b, 20)
start = (1088 + 16 * ntasks + fsblksize - 1) // fsblksize * fsblksize  # rank 0's data
assert b[start:start + 5] == b"LKTST"
# tag, version i32[3], location char[256], mapping i32[4], stat i32[10], statdp f64[10]
stat = struct.unpack_from("<10i", b, start + 5 + 12 + 256 + 16)
statdp = struct.unpack_from("<10d", b, start + 5 + 12 + 256 + 16 + 40)
want = {"min": statdp[0], "max": statdp[1], "avg": statdp[2]}
a2a = stat[2] != 0
want.update({"a2a_min": statdp[3], "a2a_max": statdp[4], "a2a_avg": statdp[5]} if a2a else
            {"a2a_min": None, "a2a_max": None, "a2a_avg": None})
text = open(stdout).read()
printed = {k: float(re.search(r"RESULT: %s Time:\s+([0-9.]+)us" % w, text).group(1))
           for k, w in (("min", "Min"), ("max", "Max"), ("avg", "Avg"))}
steps = re.findall(r"alltoall min=\s*([0-9.]+)us max=\s*([0-9.]+)us", text)
if fmt == "json":
    rows = json.loads(open(out).read())
    none = None
elif fmt == "human":
    lines = open(out).read().splitlines()
    head = lines[0].split()
    rows = [dict(zip(head, l.split())) for l in lines[1:]]
    none = "-"
else:
    rows = list(csv.DictReader(open(out, newline=""), delimiter="," if fmt == "csv" else "\t"))
    none = ""
if len(rows) != 1:
    sys.exit("%d rows, expected 1" % len(rows))
row = rows[0]
if str(row["iteration"]) != "0" or row["start_time"] != none or row["end_time"] != none:
    sys.exit("iteration/start/end: %s" % row)
for k, w in want.items():
    col = k + "/us" if fmt == "human" else k
    if fmt == "human" and w is None:
        if col in row:
            sys.exit("a2a columns without all-to-all")
        continue
    g = row[col]
    if w is None:
        if g not in ("", None):
            sys.exit("%s: %r, expected empty" % (k, g))
    elif fmt == "human":
        if g != "%.3f" % (w * 1e6):
            sys.exit("%s: %s, expected %.3f" % (k, g, w * 1e6))
    elif float(g) != w:
        sys.exit("%s: %s, statdp holds %r" % (k, g, w))
    if fmt == "csv" and k in printed and abs(float(g) * 1e6 - printed[k]) > 0.6e-8:
        sys.exit("%s: %.8f us, LinkTest printed %.8f" % (k, float(g) * 1e6, printed[k]))
if fmt == "csv" and a2a:
    # LinkTest printed the all-to-all min and max of each step: the run's
    # are the smallest and the largest of them
    lo, hi = min(float(m) for m, _ in steps), max(float(x) for _, x in steps)
    if abs(float(row["a2a_min"]) * 1e6 - lo) > 0.6e-3 or abs(float(row["a2a_max"]) * 1e6 - hi) > 0.6e-3:
        sys.exit("all-to-all min/max %s %s, LinkTest printed %s %s" % (row["a2a_min"], row["a2a_max"], lo, hi))
elif fmt == "csv" and steps:
    sys.exit("LinkTest printed all-to-all times for a run without")
EOF
for f in "$LT"/v1/*.sion; do
    name=$(basename "$f" .sion)
    for fmt in csv tsv json human; do
        run cube_linktest --iterations -s $fmt "$f"
        expect_rc 0 "cube_linktest $name: --iterations -s $fmt exits 0"
        cp "$TMP/out" "$TMP/v1iter.$fmt"
        pycheck "cube_linktest $name: --iterations -s $fmt: the run's aggregates as stored and printed" "$TMP/v1iter.py" "$f" "$LT/v1/$name.stdout.txt" $fmt "$TMP/v1iter.$fmt"
        expect_grep "note: .*$name.sion: LinkTest 1.x stores its aggregates once for the whole run (iteration 0) and no start and end times" "$TMP/err" "cube_linktest $name: --iterations -s $fmt: a note says what 1.x lacks"
    done
done

# --- cube_diff of two runs: which links got slower
run cube_linktest --cube "$TMP/basic.cube" "$LT/lt4_basic.sion"
run cube_linktest --cube "$TMP/big.cube.gz" "$LT/lt4_bigendian.sion"
expect_rc 0 "cube_linktest --cube NAME.gz exits 0"
if [ "$(head -c 2 "$TMP/big.cube.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then ok "cube_linktest --cube NAME.gz writes gzip"; else not_ok "cube_linktest --cube NAME.gz writes gzip"; fi
run cube_diff -o "$TMP/same.cube" "$TMP/basic.cube" "$TMP/big.cube.gz"
expect_rc 0 "cube_diff of the exports of the same run in both byte orders exits 0"
run cube_cmp -q "$TMP/basic.cube" "$TMP/big.cube.gz"
expect_rc 0 "cube_cmp: the same run in both byte orders gives the same experiment"
run cube_stat -m time "$TMP/basic.cube"
expect_rc 0 "cube_stat works on an export"

# --- --cube - writes the experiment to standard output; -z
run cube_linktest --cube - "$LT/lt4_basic.sion"
expect_grep "<cube version=" "$TMP/out" "cube_linktest --cube - writes the experiment to standard output"
run cube_linktest -z --cube "$TMP/z.cube" "$LT/lt4_basic.sion"
if [ "$(head -c 2 "$TMP/z.cube" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then ok "cube_linktest -z gzips"; else not_ok "cube_linktest -z gzips"; fi
run cube_linktest -z "$LT/lt4_basic.sion"
expect_rc 2 "cube_linktest: -z without --cube exits 2"
expect_grep "applies to the experiment written with --cube" "$TMP/err" "cube_linktest: -z without --cube says so"

# --- -o is where the report goes, for every report, as in cube_dump and
# cube_stat: the file holds exactly what standard output would have, and
# nothing is printed
F=$LT/lt8_fs64k.sion
for rep in "" "--hosts" "--slowest 4" "--matrix" "--histogram" "--iterations"; do
    for fmt in human csv tsv json; do
        # shellcheck disable=SC2086 # $rep is an option and its argument
        "$BIN/cube_linktest" $rep -s $fmt "$F" >"$TMP/report.stdout" 2>/dev/null
        rm -f "$TMP/report.out"
        # shellcheck disable=SC2086
        run cube_linktest $rep -s $fmt -o "$TMP/report.out" "$F"
        expect_rc 0 "cube_linktest ${rep:-(summary)} -s $fmt -o FILE exits 0"
        if [ -s "$TMP/out" ]; then not_ok "cube_linktest ${rep:-(summary)} -s $fmt -o FILE prints nothing"; else ok "cube_linktest ${rep:-(summary)} -s $fmt -o FILE prints nothing"; fi
        expect_file_eq "$TMP/report.stdout" "$TMP/report.out" "cube_linktest ${rep:-(summary)} -s $fmt -o FILE: the report is in FILE"
    done
done
# the case that wrote CUBE XML into hosts.csv and the table to standard output
run cube_linktest --hosts -s csv -o "$TMP/hosts.csv" "$F"
expect_grep "^host,ranks,first_rank" "$TMP/hosts.csv" "cube_linktest --hosts -s csv -o hosts.csv: the CSV is in hosts.csv"
if grep -q "<cube" "$TMP/hosts.csv"; then not_ok "cube_linktest -o: no CUBE XML in the report"; else ok "cube_linktest -o: no CUBE XML in the report"; fi
# -o - is standard output
run cube_linktest --hosts -s csv -o - "$F"
expect_file_eq "$TMP/hosts.csv" "$TMP/out" "cube_linktest -o -: the report on standard output"
# with --svg or --cube the summary is printed only when asked for with -o
run cube_linktest --cube "$TMP/both.cube" -o "$TMP/both.txt" "$F"
expect_rc 0 "cube_linktest -o FILE --cube OUT exits 0"
expect_grep "slowest measurements" "$TMP/both.txt" "cube_linktest -o FILE --cube OUT: the summary in FILE"
expect_grep "<cube version=" "$TMP/both.cube" "cube_linktest -o FILE --cube OUT: the experiment in OUT"
"$BIN/cube_linktest" --cube "$TMP/alone.cube" "$F" >/dev/null 2>&1
expect_file_eq "$TMP/alone.cube" "$TMP/both.cube" "cube_linktest: the experiment is the same with and without -o"
# an old script's -o X.cube: refused with a pointer to --cube, nothing written
for old in run.cube run.cube.gz run.cubex; do
    run cube_linktest -o "$TMP/$old" "$F"
    expect_rc 2 "cube_linktest -o $old (an old script's export) exits 2"
    expect_grep "with --cube .*$old" "$TMP/err" "cube_linktest -o $old: points to --cube"
    if [ -e "$TMP/$old" ]; then not_ok "cube_linktest -o $old: nothing written"; else ok "cube_linktest -o $old: nothing written"; fi
done
# the report is written whole or not at all: a bad file leaves no output
run cube_linktest -o "$TMP/never.txt" /nonexistent/x.sion
if [ -e "$TMP/never.txt" ]; then not_ok "cube_linktest -o: no report after a bad file"; else ok "cube_linktest -o: no report after a bad file"; fi
run cube_linktest -o /nonexistent/dir/r.txt "$F"
expect_rc 2 "cube_linktest -o into a missing directory exits 2"
expect_grep "r.txt" "$TMP/err" "cube_linktest -o into a missing directory names the output"

# --- the SVG
run cube_linktest --svg "$TMP/lt.svg" "$LT/lt8_fs64k.sion"
expect_rc 0 "cube_linktest --svg exits 0"
if [ -s "$TMP/out" ]; then not_ok "cube_linktest --svg prints nothing"; else ok "cube_linktest --svg prints nothing"; fi
if xmllint --noout "$TMP/lt.svg" 2>"$TMP/xmlerr"; then ok "cube_linktest --svg: well-formed XML"; else not_ok "cube_linktest --svg: well-formed XML"; fi
expect_grep "<svg" "$TMP/lt.svg" "cube_linktest --svg: an SVG document"
expect_grep "jwc0001" "$TMP/lt.svg" "cube_linktest --svg: host names shown"
# a report and the SVG together
run cube_linktest --hosts --svg "$TMP/lt2.svg" "$LT/lt8_fs64k.sion"
expect_grep "jwc0000" "$TMP/out" "cube_linktest --hosts --svg: the report is printed too"

# --- standard input: a file redirected works, a pipe is refused
"$BIN/cube_linktest" -s csv - <"$LT/lt4_basic.sion" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc 0 "cube_linktest - reads a file on standard input"
cat "$LT/lt4_basic.sion" | "$BIN/cube_linktest" - >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc 2 "cube_linktest - refuses a pipe"
expect_grep "random access" "$TMP/err" "cube_linktest -: says why a pipe cannot be read"

# --- broken files: exit 2, one line naming the file, the offset and the field
cp "$LT/lt4_basic.sion" "$TMP/broken.sion"
printf 'X' | dd of="$TMP/broken.sion" bs=1 seek=8256 conv=notrunc 2>/dev/null
run cube_linktest "$TMP/broken.sion"
expect_rc 2 "cube_linktest: a corrupt END_BLOCK exits 2"
expect_grep "broken.sion: offset 8256.*END_BLOCK" "$TMP/err" "cube_linktest: the message names the file, the offset and END_BLOCK"
if [ "$(wc -l <"$TMP/err")" = 1 ]; then ok "cube_linktest: one line of error"; else not_ok "cube_linktest: one line of error"; fi
for cut in 5 1100 4200 9000 20500; do
    head -c $cut "$LT/lt4_basic.sion" >"$TMP/cut.sion"
    run cube_linktest "$TMP/cut.sion"
    expect_rc 2 "cube_linktest: truncated at $cut exits 2"
    expect_grep "cut.sion: offset" "$TMP/err" "cube_linktest: truncated at $cut names the offset"
done
cp "$LT/lt4_basic.sion" "$TMP/tag.sion"
printf 'linktest' | dd of="$TMP/tag.sion" bs=1 seek=4096 conv=notrunc 2>/dev/null
run cube_linktest "$TMP/tag.sion"
expect_rc 2 "cube_linktest: a wrong tag exits 2"
expect_grep "offset 4096.*LinkTest ID string" "$TMP/err" "cube_linktest: a wrong tag is named"
cp "$LT/lt4_basic.sion" "$TMP/size.sion"
printf '\377\377\377\177' | dd of="$TMP/size.sion" bs=1 seek=24 conv=notrunc 2>/dev/null
run cube_linktest "$TMP/size.sion"
expect_rc 2 "cube_linktest: a task count that overflows exits 2"
expect_grep "offset 24.*ntasks" "$TMP/err" "cube_linktest: the task count is named"
# no output file is left behind after an error
run cube_linktest --cube "$TMP/never.cube" --svg "$TMP/never.svg" "$TMP/size.sion"
if [ -e "$TMP/never.cube" ] || [ -e "$TMP/never.svg" ]; then not_ok "cube_linktest: no output after a bad file"; else ok "cube_linktest: no output after a bad file"; fi
run cube_linktest /nonexistent/x.sion
expect_rc 2 "cube_linktest: a missing file exits 2"
expect_grep "x.sion" "$TMP/err" "cube_linktest: a missing file is named"

# --- an unclosed file: read with a warning
cp "$LT/lt4_basic.sion" "$TMP/open.sion"
dd if=/dev/zero of="$TMP/open.sion" bs=1 seek=1140 count=12 conv=notrunc 2>/dev/null
run cube_linktest -s csv "$TMP/open.sion"
expect_rc 0 "cube_linktest: a file never closed is read"
expect_grep "warning: .*never closed" "$TMP/err" "cube_linktest: ... with a warning"

# --- usage errors
run cube_linktest
expect_rc 2 "cube_linktest without a file exits 2"
run cube_linktest --hosts --matrix "$LT/lt4_basic.sion"
expect_rc 2 "cube_linktest: two reports exit 2"
run cube_linktest --slowest 0 "$LT/lt4_basic.sion"
expect_rc 2 "cube_linktest --slowest 0 exits 2"
run cube_linktest --bins x "$LT/lt4_basic.sion"
expect_rc 2 "cube_linktest --bins x exits 2"
run cube_linktest -s xml "$LT/lt4_basic.sion"
expect_rc 2 "cube_linktest -s xml exits 2"
run cube_linktest --hosts --cube - "$LT/lt4_basic.sion"
expect_rc 2 "cube_linktest: a report and --cube - exit 2"
run cube_linktest --cube - "$LT/lt4_basic.sion"
expect_rc 0 "cube_linktest: --cube - alone exits 0"
run cube_linktest -o - --cube - "$LT/lt4_basic.sion"
expect_rc 2 "cube_linktest: -o - and --cube - exit 2"
for pair in "-o --svg" "-o --cube" "--svg --cube"; do
    # shellcheck disable=SC2086 # two options, each given the same file
    set -- $pair
    run cube_linktest "$1" "$TMP/same" "$2" "$TMP/same" "$LT/lt4_basic.sion"
    expect_rc 2 "cube_linktest: $1 and $2 naming one file exit 2"
    expect_grep "$1 and $2 name the same file" "$TMP/err" "cube_linktest: $1 and $2 naming one file: said"
    if [ -e "$TMP/same" ]; then not_ok "cube_linktest: $1 and $2 naming one file: nothing written"; else ok "cube_linktest: $1 and $2 naming one file: nothing written"; fi
done
run cube_linktest -o "$TMP/r.txt" --cube - "$LT/lt4_basic.sion"
expect_rc 0 "cube_linktest: the report to a file and --cube - exit 0"
expect_grep "<cube version=" "$TMP/out" "cube_linktest -o FILE --cube -: the experiment on standard output"
run cube_linktest --help
expect_rc 0 "cube_linktest --help exits 0"
expect_grep "usage: cube_linktest" "$TMP/out" "cube_linktest --help prints the usage"
run cube_linktest --version
expect_rc 0 "cube_linktest --version exits 0"

# --- --cube and -o to a FIFO: written in place, the FIFO stays a FIFO
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/from_fifo" &
reader=$!
run cube_linktest --cube "$TMP/fifo" "$LT/lt4_basic.sion"
# a tool that failed before opening the FIFO would leave the reader waiting
[ "$rc" = 0 ] || : >"$TMP/fifo"
wait $reader
expect_rc 0 "cube_linktest --cube FIFO exits 0"
if [ -p "$TMP/fifo" ]; then ok "cube_linktest --cube FIFO: still a FIFO"; else not_ok "cube_linktest --cube FIFO: still a FIFO"; fi
expect_grep "<cube version=" "$TMP/from_fifo" "cube_linktest --cube FIFO: the experiment went through it"
cat "$TMP/fifo" >"$TMP/from_fifo" &
reader=$!
run cube_linktest --hosts -s csv -o "$TMP/fifo" "$LT/lt4_basic.sion"
# a tool that failed before opening the FIFO would leave the reader waiting
[ "$rc" = 0 ] || : >"$TMP/fifo"
wait $reader
expect_rc 0 "cube_linktest -o FIFO exits 0"
expect_grep "^host,ranks" "$TMP/from_fifo" "cube_linktest -o FIFO: the report went through it"
