"""Checks cube_dump's text output of a CUBE 4 test archive against the
archive's expected-values file (testdata/cubex/NAME.expected.json or
.json.gz, see testdata/cubex/README.md):

  cubex_expected.py defs     EXPECTED DEFS_JSON
  cubex_expected.py stored   EXPECTED DEFS_JSON VALUES_CSV STDERR
  cubex_expected.py totals   EXPECTED DEFS_JSON XEXCL_ZINCL XEXCL_ZEXCL XINCL_ZINCL XINCL_ZEXCL
  cubex_expected.py derived  EXPECTED

defs: the output of `cube_dump -w -s json` (every section) holds the
definitions the expected file lists.  stored: `cube_dump -z stored` (CSV,
every metric, call path and location) prints every stored value, and
nothing but zeros (or no value) elsewhere.  totals: the four
`cube_dump -t aggr -x incl|excl -z incl|excl` tables (CSV) give the
totals listed.  derived: prints the derived metrics' names, one a line
(their values are not computed: the calling script checks that cube_dump
refuses them).

Numbers are compared as cube_dump promises to print them: a text that
reads back to the same double (bit for bit), an integer type's value as
the exact integer.  Exits 1 with the first difference (and up to 20 in
all), 0 when everything is as expected.

The expected file's fields used here: `anchor` (cube_version, attrs as
[key, value], mirrors); `counts`; `metrics` in document preorder (key,
uniq_name, disp_name, file_id, type, viztype, dtype, uom, parent and
children as keys, has_data_members, cubepl and val when present);
`regions` [id, name, mangled_name, mod, begin, end, paradigm, role] (-1:
no line); `cnodes` [id, parent id, region id, region name, line, mod,
parameters [[type, key, value], ...] when any]; `enumerations.preorder`
(the cnode ids in preorder); `system_tree_nodes` [index, name, class,
parent index, id]; `location_groups` [index, name, rank, type, system tree
node index, id]; `locations` [id, name, rank, type, group index];
`topologies` {name, ndims, dims [[name, size, periodic]], coords [[locId,
id, [c...]]]}; `container` (members [name, size, offset] in archive
order, misc_members, orphan_data_members); `indexes` (per metric key the
cnode_ids that have rows); `stored_values` [key, cnode id, location id,
value] for every stored value whose bytes are not all zero (integers
exact, doubles in a form that reads back exactly, structured values as
their components); `totals` {metric, cnode, incl, excl, and for metrics
with child metrics metric_incl_incl, metric_incl_excl}: call-inclusive and
exclusive values over all locations, metric-exclusive and -inclusive."""
import csv
import gzip
import json
import math
import re
import struct
import sys

DBL_MAX = sys.float_info.max
# how cube_dump prints that a maximum or minimum has no value (in CSV)
NO_VALUE = "-"
MISMATCHES = []
SUMMARY = []


def fail(msg):
    MISMATCHES.append(msg)
    if len(MISMATCHES) >= 20:
        finish()


def finish():
    for m in MISMATCHES + SUMMARY:
        print(m)
    sys.exit(1 if MISMATCHES else 0)


def load_expected(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def is_derived(m):
    return "DERIVED" in m["type"]


def is_integer_dtype(dtype):
    return "INT" in dtype or dtype == "CHAR"


def is_signed(dtype):
    return dtype in ("INT8", "INT16", "INT32", "INT64", "SIGNED SHORT INT", "SHORT INT",
                     "SIGNED INT", "INT", "SIGNED INTEGER", "INTEGER")


def minmax(dtype):
    """The neutral value (no value) of a minimum or maximum metric, else None."""
    return {"MINDOUBLE": DBL_MAX, "MAXDOUBLE": -DBL_MAX}.get(dtype)


def same_double(a, b):
    return struct.pack("<d", a) == struct.pack("<d", b)


def number(dtype, want):
    """The number libcube makes of a stored value in the expected
    file's form (cubex(5), "Value types"): an integer as its value (a
    UINT64 of 2^63 or more as the negative difference to 2^64), a double
    as it is, a structured value as its documented scalar."""
    if is_integer_dtype(dtype):
        if dtype in ("UINT64", "UNSIGNED INTEGER") and want >= 1 << 63:
            return want - (1 << 64)
        return want
    if dtype in ("DOUBLE", "FLOAT", "MINDOUBLE", "MAXDOUBLE"):
        return float(want)
    if dtype == "COMPLEX":
        re_, im = want
        return math.sqrt(re_ * re_ + im * im)
    if dtype == "RATE":
        main, duration = want
        if duration != 0:
            return main / duration
        return DBL_MAX if main > 0 else -DBL_MAX if main < 0 else 0.0
    if dtype == "TAU_ATOMIC":
        return want[3] / want[0] if want[0] != 0 else 0.0
    if dtype.startswith("NDOUBLES("):
        s = 0.0
        for v in want:
            s += v
        return s
    if dtype.startswith("HISTOGRAM("):
        s = 0.0
        for v in want[2:]:
            s += v
        return s
    if dtype == "SCALE_FUNC":
        s = 0.0
        for a, _b, _c, d in want["terms"]:
            if d == 0:
                s += a
        return s
    raise ValueError("unknown dtype %s" % dtype)


def read_number(text):
    """cube_dump's number: an integral value below 10^15 is printed as an
    integer, any other as a decimal that reads back to the same double."""
    if re.fullmatch(r"-?[0-9]+", text) and text != "-0":
        return int(text)
    return float(text)


def shown_equal(dtype, text, want):
    """The text cube_dump printed is exactly the value `want` (an int for
    an integer type, else a double; the neutral value of a minimum or
    maximum is no value, printed as "-")."""
    neutral = minmax(dtype)
    if neutral is not None and want == neutral:
        return text == NO_VALUE
    if not re.fullmatch(r"-?[0-9][0-9.e+-]*", text):
        return False
    got = read_number(text)
    if is_integer_dtype(dtype):
        if isinstance(got, int):
            return got == want
        # a double form is exact only up to 2^53
        return abs(want) <= 1 << 53 and got == float(want)
    return same_double(float(got), float(want))


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# ---- definitions ------------------------------------------------------------

def text(v):
    return "" if v is None else v


def line(v):
    return None if v == -1 else v


def check_defs(exp, defs):
    expect_list(list(defs), ["attributes", "mirrors", "metrics", "regions", "calltree",
                             "systemtree", "topologies", "members"], "sections")
    # attributes: the format and version, then the experiment's
    attrs = defs["attributes"]
    expect_list(attrs[:2], [{"key": "format", "value": "CUBE 4", "entity": "file", "id": None},
                            {"key": "version", "value": exp["anchor"]["cube_version"],
                             "entity": "file", "id": None}], "file attributes")
    got = [(a["key"], a["value"]) for a in attrs if a["entity"] == "experiment"]
    expect_list(got, [tuple(a) for a in exp["anchor"]["attrs"]], "experiment attributes")
    expect_list([m["mirror"] for m in defs["mirrors"]], exp["anchor"]["mirrors"], "mirrors")

    # metrics in document preorder, with kinds, dtypes, expressions
    ms = defs["metrics"]
    em = exp["metrics"]
    expect_eq(len(ms), exp["counts"]["metrics"], "number of metrics")
    file_id = {m["key"]: m["file_id"] for m in em}
    got = [(m["metric_id"], m["parent_id"], m["uniq_name"], m["disp_name"], m["dtype"], m["uom"],
            m["kind"], m["ghost"], m["expression"], m["init_expression"], m["val"]) for m in ms]
    want = [(m["file_id"], None if m["parent"] is None else file_id[m["parent"]], m["uniq_name"],
             m["disp_name"], m["dtype"], text(m["uom"]), m["type"],
             1 if m["viztype"] == "GHOST" else 0, text(m.get("cubepl")), text(m.get("cubeplinit")),
             text(m.get("val"))) for m in em]
    expect_list(got, want, "metrics (id, parent, names, dtype, uom, kind, ghost, expressions, val)")
    got = [[c["uniq_name"] for c in ms if c["parent_id"] == m["metric_id"]] for m in ms]
    want = [[c for c in m["children"]] for m in em]
    expect_list(got, want, "child metrics")

    # regions by id
    got = [(r["region_id"], r["name"], r["mangled_name"], r["module"], r["begin_line"],
            r["end_line"], r["paradigm"], r["role"]) for r in defs["regions"]]
    want = [(r[0], r[1], "" if r[2] == r[1] else r[2], text(r[3]), line(r[4]), line(r[5]),
             text(r[6]), text(r[7])) for r in exp["regions"]]
    expect_list(got, want, "regions (id, name, mangled name, module, lines, paradigm, role)")

    # the call tree in preorder (the expected preorder enumeration)
    ct = defs["calltree"]
    expect_list([c["cnode_id"] for c in ct], exp["enumerations"]["preorder"], "call tree preorder")
    ec = {c[0]: c for c in exp["cnodes"]}
    expect_eq(len(ct), exp["counts"]["cnodes"], "number of call paths")
    for c in ct:
        e = ec.get(c["cnode_id"])
        if e is None:
            fail("call path %s is not expected" % c["cnode_id"])
            continue
        path = []
        p = e
        while p is not None:
            path.insert(0, p[3])
            p = ec.get(p[1]) if p[1] is not None else None
        params = "; ".join("%s=%s" % (k, v if t == "numeric" else '"%s"' % v)
                           for t, k, v in (e[6] if len(e) > 6 else []))
        expect_eq((c["parent_id"], c["level"], c["region_id"], c["region"], c["call_path"],
                   c["call_site_line"], c["call_site_module"], c["parameters"]),
                  (e[1], len(path) - 1, e[2], e[3], "/".join(path), line(e[4]), text(e[5]),
                   params), "call path %s" % c["cnode_id"])
    expect_eq(sum(1 for c in ct if c["parent_id"] is None), exp["counts"]["root_cnodes"],
              "number of root call paths")

    # the system tree: nodes of every depth with classes, groups, locations
    st = defs["systemtree"]
    stn = exp["system_tree_nodes"]
    groups = exp["location_groups"]
    depth = {}
    for s in stn:
        depth[s[0]] = 0 if s[3] is None else depth[s[3]] + 1
    got = [(r["id"], r["name"], r["class"], r["parent_id"], r["level"]) for r in st
           if r["kind"] in ("machine", "node")]
    want = [(s[4], s[1], s[2], None if s[3] is None else stn[s[3]][4], depth[s[0]]) for s in stn]
    expect_list(got, want, "system tree nodes (id, name, class, parent, level)")
    expect_list([r["kind"] == "machine" for r in st if r["kind"] in ("machine", "node")],
                [s[3] is None for s in stn], "machines are the roots of the system tree")
    got = [(r["id"], r["name"], r["rank"], r["type"], r["parent_id"], r["level"]) for r in st
           if r["kind"] == "process"]
    want = [(g[5], g[1], g[2], g[3], stn[g[4]][4], depth[stn[g[4]][0]] + 1) for g in groups]
    expect_list(got, want, "location groups (id, name, rank, type, parent, level)")
    threads = [r for r in st if r["kind"] == "thread"]
    expect_list([r["location"] for r in threads], list(range(len(threads))),
                "location indexes in document order")
    got = sorted((r["id"], r["name"], r["rank"], r["type"], r["parent_id"], r["level"])
                 for r in threads)
    want = [(l[0], l[1], l[2], l[3], groups[l[4]][5], depth[stn[groups[l[4]][4]][0]] + 2)
            for l in exp["locations"]]
    expect_list(got, want, "locations by id (name, rank, type, group, level)")
    # each row below the row of its parent
    open_ = {}
    for r in st:
        kind = r["kind"]
        if kind == "node":
            ok_ = ("stn", r["parent_id"]) in open_
        elif kind == "process":
            ok_ = ("stn", r["parent_id"]) in open_
        elif kind == "thread":
            ok_ = open_.get("process") == r["parent_id"]
        else:
            ok_ = True
        if not ok_:
            fail("system tree: %s %s is not below its parent %s" % (kind, r["id"], r["parent_id"]))
        if kind in ("machine", "node"):
            open_[("stn", r["id"])] = True
        elif kind == "process":
            open_["process"] = r["id"]

    # topologies: one row per coordinate
    rows = defs["topologies"]
    want = []
    for i, t in enumerate(exp["topologies"]):
        names = [d[0] for d in t["dims"]]
        for attr, ident, coords in t["coords"]:
            want.append((i, text(t["name"]), ",".join(str(d[1]) for d in t["dims"]),
                         ",".join("1" if d[2] == "true" else "0" for d in t["dims"]),
                         "" if all(n is None for n in names) else ",".join(text(n) for n in names),
                         {"locId": "thread"}.get(attr, attr), ident,
                         ",".join(str(c) for c in coords)))
    got = [(r["topology"], r["name"], r["dims"], r["periodic"], r["dim_names"], r["kind"],
            r["id"], r["coords"]) for r in rows]
    expect_list(got, want, "topologies (name, dimensions, coordinates)")
    expect_eq(len({r["topology"] for r in rows}), exp["counts"]["topologies"],
              "number of topologies")

    # the members that are not part of the experiment, in archive order
    c = exp["container"]
    extra = set(c["misc_members"]) | set(c["orphan_data_members"])
    want = [{"name": m[0], "size": m[1]} for m in c["members"] if m[0] in extra]
    expect_list(defs["members"], want, "extra members of the archive")


def expect_eq(got, want, what):
    if got != want:
        fail("%s: %r, expected %r" % (what, got, want))


def expect_list(got, want, what):
    if got == want:
        return
    if len(got) != len(want):
        fail("%s: %d entries, expected %d" % (what, len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            fail("%s, entry %d: %r, expected %r" % (what, i, g, w))
            return


# ---- stored values ------------------------------------------------------------

def location_ids(defs):
    """location index (cube_dump's column `location`) -> location id"""
    return {r["location"]: r["id"] for r in defs["systemtree"] if r["kind"] == "thread"}


def shown_metrics(exp):
    """What cube_dump -m all prints: every metric in document preorder but
    the VOID and the derived ones."""
    return [m for m in exp["metrics"] if not is_derived(m) and m.get("val") != "VOID"]


def check_derived_warning(exp, err_path):
    derived = [m["uniq_name"] for m in exp["metrics"] if is_derived(m)]
    with open(err_path, encoding="utf-8") as f:
        err = f.read()
    if not derived:
        if "derived" in err:
            fail("a warning about derived metrics where there are none: %s" % err.strip())
        return
    n = len(derived)
    want = "%d derived metric%s (%s) %s not computed" % (n, "s" if n > 1 else "", ", ".join(derived),
                                                       "are" if n > 1 else "is")
    if err.count(want) != 1:
        fail("stderr does not say once '%s': %s" % (want, err.strip()))


def check_stored(exp, defs, values_csv, err_path):
    check_derived_warning(exp, err_path)
    loc_id = location_ids(defs)
    nloc = len(loc_id)
    preorder = exp["enumerations"]["preorder"]
    listed = {}
    for key, cnode, loc, value in exp["stored_values"]:
        listed[(key, cnode, loc)] = value
    rows_of = {key: set(ix["cnode_ids"]) for key, ix in exp["indexes"].items()}
    metrics = shown_metrics(exp)
    # the rows, in the documented order: metric by metric, call paths in
    # preorder, locations by index
    expected_keys = ((m, c, t) for m in metrics for c in preorder for t in range(nloc))
    matched = 0
    n = 0
    with open(values_csv, newline="", encoding="utf-8") as f:
        r = csv.reader(f)
        header = next(r)
        expect_list(header, ["metric", "cnode_id", "call_path", "region", "module", "line",
                             "location", "process", "thread", "value"], "header")
        for row in r:
            n += 1
            k = next(expected_keys, None)
            if k is None:
                fail("row %d: %s, expected no more rows" % (n, row[:2] + row[6:]))
                break
            m, c, t = k
            if (row[0], row[1], row[6]) != (m["uniq_name"], str(c), str(t)):
                fail("row %d: metric %s, call path %s, location %s; expected %s, %d, %d"
                     % (n, row[0], row[1], row[6], m["uniq_name"], c, t))
                break
            key = (m["key"], c, loc_id[t])
            dtype = m["dtype"]
            if key in listed:
                want = number(dtype, listed[key])
                matched += 1
            elif m["has_data_members"] and c not in rows_of.get(m["key"], ()):
                # no row: the dtype's neutral value (0, no value for a
                # minimum or maximum)
                want = minmax(dtype) or 0
            else:
                # a row holding zero bytes, or a metric without members
                want = number(dtype, 0) if is_integer_dtype(dtype) else 0.0
            if not shown_equal(dtype, row[9], want):
                fail("%s (%s) at call path %d, location id %d (index %d): %r, expected %r"
                     % (m["uniq_name"], dtype, c, loc_id[t], t, row[9], want))
    if next(expected_keys, None) is not None:
        fail("%d rows, expected %d" % (n, len(metrics) * len(preorder) * nloc))
    shown = {m["key"] for m in metrics}
    want_matched = sum(1 for k in listed if k[0] in shown)
    expect_eq(want_matched, len(exp["stored_values"]), "stored values of metrics shown")
    expect_eq(matched, want_matched, "stored values printed")
    SUMMARY.append("# %d values, %d of them stored non-zero" % (n, matched))


# ---- totals -------------------------------------------------------------------

# Where cube_dump's number differs from the reference library's by design
# (cubex(5), "Value types"), the difference must be exactly the documented
# one, and only where counted here (file: (output conversions, SCALE_FUNC
# totals)):
#  - the reference prints a UINT8 (CHAR) result as a signed char: libcube's
#    198 is its -58;
#  - the reference turns a UINT64 result above 0xFFFFFFFFFFFFFBFF into 0 (a
#    round trip through a double): libcube keeps the negative -k it acts as;
#  - SCALE_FUNC: libcube's number is the function at x = 1 (the sum of the
#    coefficients of the terms without logarithm), computed here from the
#    stored values; the reference's number encodes the dominant term.
# Derived metrics are not computed: the calling script checks that
# cube_dump refuses them, here only that no value is printed for them.
EXCEPTIONS = {"cubelib-4.8.2_cube-values_example": (2, 6)}


def close_enough(dtype, got, want, scale):
    """The reference library adds the same doubles in another order: equal
    to 1e-9 relative, or, for an exclusive value that is a small difference
    of large inclusive ones, to 1e-13 of the inclusive value `scale`.
    Integers exactly."""
    if got == want:
        return True
    if is_integer_dtype(dtype):
        return False
    d = abs(got - want)
    return d <= 1e-9 * max(abs(got), abs(want)) or d <= 1e-13 * abs(scale)


def cubelib_conversion(dtype, got, want):
    if dtype in ("UINT8", "CHAR"):
        return 128 <= got < 256 and want == got - 256
    if dtype in ("UINT64", "UNSIGNED INTEGER"):
        return -1024 <= got < 0 and want == 0
    return False


def scale_func_at_1(exp, key, cnode, inclusive):
    parent = {c[0]: c[1] for c in exp["cnodes"]}

    def below(at):
        while at is not None:
            if at == cnode:
                return True
            at = parent[at]
        return False

    s = 0.0
    for k, at, _loc, value in exp["stored_values"]:
        if k == key and (below(at) if inclusive else at == cnode):
            s += number("SCALE_FUNC", value)
    return s


def aggr_table(path):
    table = {}
    for r in read_csv(path):
        if (r["location"], r["process"], r["thread"]) != ("aggr", "aggr", "aggr"):
            fail("%s: not an aggregated row: %r" % (path, r))
        k = (r["metric"], int(r["cnode_id"]))
        if k in table:
            fail("%s: %s at call path %s twice" % (path, k[0], k[1]))
        table[k] = r["value"]
    return table


def check_totals(exp, name, paths):
    xe_zi, xe_ze, xi_zi, xi_ze = (aggr_table(p) for p in paths)
    metrics = {m["key"]: m for m in exp["metrics"]}
    shown = shown_metrics(exp)
    want_keys = {(m["uniq_name"], c) for m in shown for c in exp["enumerations"]["preorder"]}
    for t, p in zip((xe_zi, xe_ze, xi_zi, xi_ze), paths):
        if set(t) != want_keys:
            fail("%s: rows of %d (metric, call path) pairs that are not expected, %d missing"
                 % (p, len(set(t) - want_keys), len(want_keys - set(t))))
    kinds = (("incl", xe_zi), ("excl", xe_ze), ("metric_incl_incl", xi_zi),
             ("metric_incl_excl", xi_ze))
    checked = converted = scale_funcs = derived = no_value = 0
    for t in exp["totals"]:
        m = metrics[t["metric"]]
        dtype = m["dtype"]
        uniq = m["uniq_name"]
        if is_derived(m):
            derived += 1
            continue
        cn = t["cnode"]

        def value(table, field, counted=True):
            text_ = table.get((uniq, cn))
            if text_ is None:
                fail("%s at call path %d: no row for %s" % (uniq, cn, field))
                return None
            if text_ == NO_VALUE and minmax(dtype) is not None:
                # nothing contributed: the neutral value, which the
                # expected file gives as the reference library computes it
                nonlocal no_value
                no_value += counted
                return minmax(dtype)
            if not re.fullmatch(r"-?[0-9][0-9.e+-]*", text_):
                fail("%s at call path %d, %s: %r, not a number" % (uniq, cn, field, text_))
                return None
            return float(read_number(text_))

        scale = value(xi_zi, "metric_incl_incl", False)
        for field, table in kinds:
            if field not in t:
                continue
            got = value(table, field)
            if got is None or scale is None:
                continue
            want = t[field]
            if dtype == "SCALE_FUNC":
                # no SCALE_FUNC metric has child metrics: metric-inclusive
                # and exclusive coincide
                own = scale_func_at_1(exp, t["metric"], cn, field.endswith("incl"))
                if close_enough(dtype, got, own, scale):
                    if close_enough(dtype, got, want, scale):
                        checked += 1
                    else:
                        scale_funcs += 1
                    continue
            elif close_enough(dtype, got, want, scale):
                checked += 1
                continue
            elif cubelib_conversion(dtype, got, want):
                converted += 1
                continue
            fail("%s (%s) at call path %d, %s: %.17g, expected %.17g"
                 % (uniq, dtype, cn, field, got, want))
    expect_eq((converted, scale_funcs), EXCEPTIONS.get(name, (0, 0)),
              "(reference output conversions, SCALE_FUNC totals)")
    if not checked:
        fail("no total compared")
    SUMMARY.append("# %d totals equal (%d printed as no value), %d reference output "
                   "conversions, %d SCALE_FUNC at x = 1, %d of derived metrics (not computed)"
                   % (checked, no_value, converted, scale_funcs, derived))


def main():
    cmd = sys.argv[1]
    exp = load_expected(sys.argv[2])
    if cmd == "derived":
        for m in exp["metrics"]:
            if is_derived(m):
                print(m["uniq_name"])
        return
    with open(sys.argv[3], encoding="utf-8") as f:
        defs = json.load(f)
    if cmd == "defs":
        check_defs(exp, defs)
    elif cmd == "stored":
        check_stored(exp, defs, sys.argv[4], sys.argv[5])
    elif cmd == "totals":
        name = re.sub(r"\.expected\.json(\.gz)?$", "", sys.argv[2].rsplit("/", 1)[-1])
        check_totals(exp, name, sys.argv[4:8])
    else:
        sys.exit("unknown command %s" % cmd)
    finish()


main()
