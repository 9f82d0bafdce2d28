"""An independent reference for how metric values combine, computed from the
rows of a CUBE 3 file: MAXDOUBLE by maximum, MINDOUBLE by minimum, every
other dtype by sum; a call path without a row takes no part: where nothing
is left, a sum reads 0 and a maximum or minimum has no value ("-").
It checks cube_dump's CSV output given on the command line:

  minmax_ref.py CUBE METRIC KIND CSV [MODE]

KIND: incl-threads (-z incl), incl-aggr (-z incl -t aggr), excl-aggr
(-t aggr), flat (-r), flat-aggr (-r -t aggr), mode (per thread, -z excl,
--mode=MODE).  Exits 1 with the first difference."""
import csv, math, sys
import xml.etree.ElementTree as ET

path, metric, kind, out = sys.argv[1:5]
mode = sys.argv[5] if len(sys.argv) > 5 else None
root = ET.parse(path).getroot()

metrics = {}
def walk_metrics(el, parent):
    for m in el.findall("metric"):
        metrics[m.get("id")] = dict(uniq=m.findtext("uniq_name"), dtype=m.findtext("dtype"),
                                     parent=parent)
        walk_metrics(m, m.get("id"))
walk_metrics(root.find("metrics"), None)
by_uniq = {v["uniq"]: k for k, v in metrics.items()}
mid = by_uniq[metric]
rule = {"MAXDOUBLE": max, "MINDOUBLE": min}.get(metrics[mid]["dtype"], None)

def combine(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return rule(vals) if rule else math.fsum(vals)

regions = {r.get("id"): r.findtext("name") for r in root.iter("region")}
cnodes, order = {}, []
def walk_cnodes(el, parent):
    for c in el.findall("cnode"):
        cnodes[c.get("id")] = dict(parent=parent, region=c.get("calleeId"), children=[])
        order.append(c.get("id"))
        if parent is not None:
            cnodes[parent]["children"].append(c.get("id"))
        walk_cnodes(c, c.get("id"))
walk_cnodes(root.find("program"), None)

threads, machine_of = [], {}
for mi, mach in enumerate(root.iter("machine")):
    for th in mach.iter("thread"):
        machine_of[len(threads)] = mi
        threads.append(th.get("Id"))
nt = len(threads)

rows = {}
for mat in root.iter("matrix"):
    if mat.get("metricId") == mid:
        for r in mat.findall("row"):
            rows[r.get("cnodeId")] = [float(x) for x in r.text.split()]

def subtree(c):
    out, stack = [], [c]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(cnodes[n]["children"])
    return out

def excl(c, t):
    return rows[c][t] if c in rows else None

def incl(c, t):
    return combine([excl(n, t) for n in subtree(c)])

def aggr(f, *a):
    return combine([f(*a, t) for t in range(nt)])

def zero(v):
    return 0.0 if v is None else v

def same(got, want, where):
    if want is None and rule:
        if got != "-":
            sys.exit("%s: %s %s: got %r, want no value (-)" % (path, metric, where, got))
        return
    want = zero(want) if not (isinstance(want, float) and math.isnan(want)) else want
    if math.isnan(want) and (got == "" or math.isnan(float(got))):
        return
    g = float(got)
    ok = g == want if rule else abs(g - want) <= 1e-12 * max(1.0, abs(want))
    if not ok:
        sys.exit("%s: %s %s: got %r, want %r" % (path, metric, where, g, want))

def flat(reg, t):
    paths = [c for c in order if cnodes[c]["region"] == reg]
    ex = combine([excl(c, t) for c in paths])
    nodes = set()
    for p in paths:
        nodes.update(subtree(p))
    inc = combine([excl(n, t) for n in nodes])
    if rule:
        sub = combine([incl(ch, t) for p in paths for ch in cnodes[p]["children"]])
    else:
        sub = zero(inc) - zero(ex)
    return ex, inc, sub

def percent(v, ref):
    v, ref = zero(v), zero(ref)
    if ref == 0:
        return float("nan")
    return 100.0 if v == ref else 100.0 * v / ref

def metric_total(m):
    vals = []
    for mat in root.iter("matrix"):
        if mat.get("metricId") == m:
            for r in mat.findall("row"):
                vals += [float(x) for x in r.text.split()]
    r = {"MAXDOUBLE": max, "MINDOUBLE": min}.get(metrics[m]["dtype"])
    return (r(vals) if r else math.fsum(vals)) if vals else None

def root_cnode(c):
    while cnodes[c]["parent"] is not None:
        c = cnodes[c]["parent"]
    return c

def thread_total(t):
    return combine([excl(c, t) for c in order])

n = 0
for rec in csv.DictReader(open(out, newline="")):
    n += 1
    if kind.startswith("flat"):
        reg = [k for k, v in regions.items() if v == rec["region"]][0]
        if kind == "flat-aggr":
            parts = [combine([flat(reg, t)[k] for t in range(nt)]) for k in range(3)]
            if not rule:
                parts[2] = zero(parts[1]) - zero(parts[0])
        else:
            parts = flat(reg, int(rec["location"]))
        for k, col in enumerate(("exclusive", "inclusive", "subroutines")):
            same(rec[col], parts[k], "region %s %s at %s" % (rec["region"], col, rec["location"]))
        continue
    c, t = rec["cnode_id"], rec["location"]
    if kind == "incl-threads":
        want = incl(c, int(t))
    elif kind == "incl-aggr":
        want = aggr(incl, c)
    elif kind == "excl-aggr":
        want = aggr(excl, c)
    else:
        t = int(t)
        v, row = excl(c, t), [excl(c, u) for u in range(nt)]
        mroot = mid
        while metrics[mroot]["parent"] is not None:
            mroot = metrics[mroot]["parent"]
        present = [x for x in row if x is not None] or [0.0]
        if mode == "metricroot":
            want = percent(v, metric_total(mroot))
        elif mode == "metricsel":
            want = percent(v, metric_total(mid))
        elif mode == "callroot":
            want = percent(v, aggr(incl, root_cnode(c)))
        elif mode == "callsel":
            want = percent(v, combine(row))
        elif mode == "ownroot":
            want = percent(v, combine([row[u] for u in range(nt)
                                       if machine_of[u] == machine_of[t]]))
        elif mode == "sysroot":
            want = percent(v, combine([thread_total(u) for u in range(nt)
                                       if machine_of[u] == machine_of[t]]))
        elif mode == "syssel":
            want = percent(v, thread_total(t))
        elif mode == "peer":
            want = percent(v, max(zero(x) for x in row))
        elif mode == "peerdist":
            lo, hi = min(zero(x) for x in row), max(zero(x) for x in row)
            want = float("nan") if hi == lo else percent(zero(v) - lo, hi - lo)
        else:
            want = v
        if v is None and rule:
            want = None  # no value, in every mode
    same(rec["value"], want, "call path %s at %s" % (c, t))
if n == 0:
    sys.exit("%s: no rows" % out)
