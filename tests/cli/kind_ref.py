"""An independent check of cube_inclusify and cube_exclusify, from the
CSV output of cube_dump (-s csv) of the original experiment and of the
converted one:

  kind_ref.py convert incl|excl ORIG_METRICS ORIG_STORED CALLTREE OUT_METRICS OUT_STORED
  kind_ref.py same METRICS A B [SCALE]

convert: ORIG_STORED and OUT_STORED are `cube_dump -z stored`, the
METRICS files `cube_dump -w metrics`, CALLTREE `cube_dump -w calltree`.
From the original's stored rows and its call tree, each call path's own
value is computed here (a metric stored inclusive: its value less its
children's), then what the converted experiment must store: the own value
(excl), or the sum over the call path's subtree (incl).  Metrics of a type
that cannot be stored inclusive (MAXDOUBLE, MINDOUBLE, TAU_ATOMIC,
HISTOGRAM) must come out EXCLUSIVE with their rows unchanged; a metric left
in another kind must keep its rows; derived metrics their kind.

same: two `cube_dump` outputs of the same selection (views) hold the same
values; SCALE, a third of the same rows (the call-inclusive values), gives
the magnitude of each row's value.

Integers are compared exactly (narrow types modulo 2^bits, as their
arithmetic wraps); doubles within 1e-12 of the sum of the magnitudes that
make up the call path's inclusive value (convert), or of SCALE's value
and the values compared (same).  Exits 1 with the first difference."""
import csv, math, sys

TOL = 1e-12
NO_INCLUSIVE = ("MAXDOUBLE", "MINDOUBLE", "TAU_ATOMIC")
STRUCTURED = ("COMPLEX", "RATE", "TAU_ATOMIC", "SCALE_FUNC")
INT_BITS = {"INT8": 8, "UINT8": 8, "CHAR": 8, "INT16": 16, "UINT16": 16,
            "SIGNED SHORT INT": 16, "SHORT INT": 16, "UNSIGNED SHORT INT": 16,
            "INT32": 32, "UINT32": 32, "SIGNED INT": 32, "INT": 32, "UNSIGNED INT": 32,
            "INT64": 64, "UINT64": 64, "SIGNED INTEGER": 64, "INTEGER": 64,
            "UNSIGNED INTEGER": 64}
DERIVED = ("PREDERIVED_EXCLUSIVE", "PREDERIVED_INCLUSIVE", "POSTDERIVED")


def fail(msg):
    print(msg)
    sys.exit(1)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def metrics(path):
    return {r["uniq_name"]: r for r in rows(path)}


def structured(dtype):
    return dtype in STRUCTURED or dtype.startswith(("NDOUBLES(", "HISTOGRAM("))


def may_be_inclusive(dtype):
    return dtype not in NO_INCLUSIVE and not dtype.startswith("HISTOGRAM(")


def number(text, bits):
    if text in ("", "-"):
        return None
    return int(float(text)) if bits else float(text)


def wrap(v, bits):
    if bits == 0 or bits == 64:
        return v
    v %= 1 << bits
    return v


def agree(a, b, bits, scale):
    if a is None or b is None:
        return a is None and b is None
    if bits:
        return wrap(a - b, bits) == 0
    return a == b or abs(a - b) <= TOL * max(scale, abs(a), abs(b))


def stored_values(path):
    """(metric, cnode, location) -> text, and the locations."""
    out, locs = {}, set()
    for r in rows(path):
        out[(r["metric"], r["cnode_id"], r["location"])] = r["value"]
        locs.add(r["location"])
    return out, sorted(locs)


def convert(mode, orig_metrics, orig_stored, calltree, out_metrics, out_stored):
    om, nm = metrics(orig_metrics), metrics(out_metrics)
    if not om:
        fail("no metrics to compare")
    ov, locs = stored_values(orig_stored)
    nv, _ = stored_values(out_stored)
    tree = rows(calltree)
    children = {r["cnode_id"]: [] for r in tree}
    for r in tree:
        if r["parent_id"]:
            children[r["parent_id"]].append(r["cnode_id"])
    # children after parents: the file's order of cnodes is pre-order
    order = [r["cnode_id"] for r in tree]
    for name, m in om.items():
        n = nm.get(name)
        if n is None:
            fail(f"metric {name} missing in the output")
        # a CUBE 3 file has no kinds: every metric is stored exclusive
        kind0, kind1, dtype = m.get("kind", "EXCLUSIVE"), n["kind"], m["dtype"]
        if kind0 in DERIVED:
            if kind1 != kind0:
                fail(f"derived metric {name}: kind {kind1}, was {kind0}")
            continue
        want = "INCLUSIVE" if mode == "incl" and may_be_inclusive(dtype) else "EXCLUSIVE"
        keys = [(name, c, l) for c in order for l in locs]
        if kind1 != want or structured(dtype):
            # left as stored (or a value whose number is not the sum of its
            # parts' numbers): the rows must be the original's
            if kind1 != want and kind1 != kind0:
                fail(f"metric {name}: kind {kind1}, expected {want} or {kind0} as it was")
            # only an integer or structured value may be more than a double
            # holds and so keep its kind; a plain floating one converts
            if kind1 != want and not (INT_BITS.get(dtype, 0) or structured(dtype)):
                fail(f"metric {name} ({dtype}): kind {kind1} kept, expected {want}")
            for k in keys:
                if ov.get(k) != nv.get(k):
                    fail(f"metric {name} ({kind1}) changed at {k}: {nv.get(k)}, was {ov.get(k)}")
            continue
        bits = INT_BITS.get(dtype, 0)
        stored_incl = kind0 in ("INCLUSIVE", "SIMPLE") and may_be_inclusive(dtype)
        for l in locs:
            val = {c: number(ov.get((name, c, l), "0"), bits) for c in order}
            own = {}
            for c in order:
                v = val[c]
                if stored_incl:
                    parts = [v] + [-val[k] for k in children[c]]
                    v = sum(parts) if bits else math.fsum(parts)
                own[c] = v
            expect, scale = dict(own), {c: abs(own[c] or 0) for c in order}
            if want == "INCLUSIVE":
                for c in reversed(order):
                    parts = [own[c]] + [expect[k] for k in children[c]]
                    expect[c] = sum(parts) if bits else math.fsum(parts)
                    scale[c] += math.fsum(scale[k] for k in children[c])
            else:
                for c in reversed(order):
                    scale[c] += math.fsum(scale[k] for k in children[c])
            for c in order:
                got = number(nv.get((name, c, l), "0"), bits)
                if not agree(got, expect[c], bits, scale[c]):
                    fail(f"metric {name} stored {want}, cnode {c} location {l}: {got!r}, "
                         f"expected {expect[c]!r}")


def same(metrics_path, a_path, b_path, scale_path=None):
    ms = metrics(metrics_path)
    a, b = rows(a_path), rows(b_path)
    scales = rows(scale_path) if scale_path else [{"value": "0"}] * len(a)
    if len(a) != len(b) or len(a) != len(scales):
        fail(f"{len(a)} rows against {len(b)} and {len(scales)}")
    if not a:
        fail("no values to compare")
    for ra, rb, rs in zip(a, b, scales):
        key = {k: v for k, v in ra.items() if k != "value"}
        if key != {k: v for k, v in rb.items() if k != "value"}:
            fail(f"rows differ: {ra} / {rb}")
        bits = INT_BITS.get(ms[ra["metric"]]["dtype"], 0)
        x, y = number(ra["value"], bits), number(rb["value"], bits)
        scale = number(rs["value"], 0)
        if not agree(x, y, bits, abs(scale) if scale is not None else 0.0):
            fail(f"{ra['metric']} at cnode {ra['cnode_id']} location {ra['location']}: "
                 f"{ra['value']} / {rb['value']}")


if sys.argv[1] == "convert":
    convert(*sys.argv[2:8])
elif sys.argv[1] == "same":
    same(*sys.argv[2:6])
else:
    fail("usage: kind_ref.py convert|same ...")
