#!/usr/bin/env python3
"""An independent check of cube_cut and cube_commoncalltree.

    cut_ref.py cut DIR MODE -r|-p PATTERN [-r|-p PATTERN]...
    cut_ref.py common DIR

DIR holds what the test dumped with cube_dump (CSV):
  in.tree, out.tree      -w calltree of the input and the output
  in.incl, out.incl      -t aggr -z incl (every metric, every call path)
  out.excl               -t aggr -z excl of the output
  in.metrics             -w metrics of the input (for the dtypes)
For `common`: in.tree/in.incl are one input, other.tree the other input
(--match=name: call paths keyed by their region names from the root).

From the input's call tree alone this computes which call paths must
stay (MODE reroot: the call paths whose region a PATTERN names and that
have no such ancestor, with their subtrees; MODE prune: every call path
not below such a call path; common: the paths both inputs have), checks
that the output's call tree is exactly those, in the input's order, and
that every kept call path's inclusive value of every metric is the
input's: to the last bit for integer metrics (and maxima, minima), within
a relative 1e-12 for the others.  For prune, also that a pruned call
path's exclusive value is its input inclusive value (its subtree folded
into it).  PATTERN is a region name or /REGEX/ (Python's re.search, the
same as POSIX extended for the patterns the tests use).
"""
import csv
import re
import sys


def read_csv(path):
    with open(path, newline='', encoding='utf-8') as f:
        return list(csv.DictReader(f))


def tree(path):
    """[(cnode_id, parent_id or None, region)] in the order cube_dump lists
    them: preorder, which is the definition order of a file read"""
    rows = read_csv(path)
    return [(int(r['cnode_id']), int(r['parent_id']) if r['parent_id'] else None,
             r['region']) for r in rows]


def values(path):
    """{(metric, cnode_id): value text}"""
    return {(r['metric'], int(r['cnode_id'])): r['value'] for r in read_csv(path)}


def exact_metrics(path):
    out = set()
    for r in read_csv(path):
        d = r['dtype']
        if d.startswith(('INT', 'UINT')) or d in ('MAXDOUBLE', 'MINDOUBLE', 'CHAR'):
            out.add(r['uniq_name'])
    return out


def matcher(patterns):
    def match(name):
        for p in patterns:
            if len(p) >= 2 and p[0] == '/' and p[-1] == '/':
                if re.search(p[1:-1], name):
                    return True
            elif p == name:
                return True
        return False
    return match


def same(a, b, exact):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if exact:
        return x == y
    return abs(x - y) <= 1e-12 * max(abs(x), abs(y))


def paths(nodes):
    """cnode_id -> the region names from the root"""
    out = {}
    for i, p, r in nodes:  # preorder: parents first
        out[i] = (out[p] if p is not None else ()) + (r,)
    return out


def fail(msg):
    print(msg)
    sys.exit(1)


def main():
    kind, d = sys.argv[1], sys.argv[2]
    nodes = tree(d + '/in.tree')
    out_nodes = tree(d + '/out.tree')
    by_id = {i: (p, r) for i, p, r in nodes}
    keep = []  # input ids kept, in order
    folded_into = {}
    if kind == 'cut':
        mode, match = sys.argv[3], matcher(sys.argv[5::2])
        inside = set()
        for i, p, r in nodes:
            if mode == 'reroot':
                if (p is not None and p in inside) or match(r):
                    inside.add(i)
                    keep.append(i)
            else:
                top = folded_into.get(p) if p is not None else None
                if top is not None:
                    folded_into[i] = top
                elif p is not None and p in keep and match(by_id[p][1]):
                    folded_into[i] = p
                else:
                    keep.append(i)
    else:
        mine, other = paths(nodes), set(paths(tree(d + '/other.tree')).values())
        keep = [i for i, p, r in nodes if mine[i] in other]
    if len(keep) != len(out_nodes):
        fail('%d call paths kept, expected %d' % (len(out_nodes), len(keep)))
    # the k-th output call path stands for the k-th kept one
    new_of = {old: out_nodes[k][0] for k, old in enumerate(keep)}
    for k, old in enumerate(keep):
        oid, opar, oreg = out_nodes[k]
        par = by_id[old][0]
        want_par = new_of.get(par) if par is not None else None
        if oreg != by_id[old][1] or opar != want_par:
            fail('output call path %d (%s, parent %s) is not input %d (%s, parent %s)' %
                 (oid, oreg, opar, old, by_id[old][1], want_par))
    vin, vout = values(d + '/in.incl'), values(d + '/out.incl')
    exact = exact_metrics(d + '/in.metrics')
    metrics = sorted({m for m, _ in vin})
    checked = 0
    for m in metrics:
        for k, old in enumerate(keep):
            a, b = vin.get((m, old)), vout.get((m, new_of[old]))
            if a is None or b is None:
                fail('metric %s: no value for call path %d' % (m, k))
            if not same(a, b, m in exact):
                fail('metric %s, call path %d (input %d): inclusive %s, input %s' %
                     (m, k, old, b, a))
            checked += 1
    if kind == 'cut' and sys.argv[3] == 'prune':
        excl = values(d + '/out.excl')
        targets = set(folded_into.values())
        for m in metrics:
            for old in targets:
                a, b = vin[(m, old)], excl[(m, new_of[old])]
                if not same(a, b, m in exact):
                    fail('metric %s: pruned call path %d: exclusive %s, input inclusive %s' %
                         (m, new_of[old], b, a))
        if not targets:
            fail('nothing was pruned')
    if not checked:
        fail('no call path or no value to compare')
    print('%d inclusive values checked' % checked)


main()
