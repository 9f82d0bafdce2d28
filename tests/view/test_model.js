#!/usr/bin/env node
/*
 * test_model.js - cli/view/model.js (CubeModel) against cube_dump on the
 * shipped experiments: the page's data is written by cube_view, and the
 * values CubeModel computes for the panes, for several selections, orders
 * and every value mode, must be cube_dump's (-s json --mode=...):
 *  - per thread: the system pane with one metric (-x) and one call path
 *    (-z) selected; sysroot and syssel in the order metric, system, call
 *    with the thread selected (cube_dump's reading of them);
 *  - -t aggr: the call pane with the metric selected (sysroot, syssel:
 *    the machine selected in the system pane left of the call pane, which
 *    is cube_dump --by=machine: a machine combines its threads' numbers,
 *    also of values that combine by components over all threads);
 *  - -r: the flat profile, aggregated and per thread;
 *  - other dimension orders: the metric pane right of the call and system
 *    panes, and every pane left of the metric pane undefined.
 * Prints "ok - ..." / "not ok - ..." lines and exits 1 on any failure.
 *
 *   node tests/view/test_model.js            (BIN: the tools, default build/bin)
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const cp = require('child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.resolve(ROOT, process.env.BIN || 'build/bin');
const CubeModel = require(path.join(ROOT, 'cli', 'view', 'model.js'));

const MODES = ['absolute', 'ownroot', 'metricroot', 'metricsel', 'callroot', 'callsel',
               'sysroot', 'syssel', 'peer', 'peerdist', 'external'];
const FILES = [
    'testdata/cube/cubelib-test1.1_equal_raw-amp.cube',
    'testdata/cube/kojak-expert_ctest-pomp.cube',
    'testdata/cube/scalasca-bgpBT_experiment1.cube',
    'testdata/cube/scalasca_trace.cube',
    'testdata/cube/scorep-1.1_profile.cube',
    'testdata/cube/tau2cube_template1.cube',
    'testdata/cubex/cubederive_scorep-1.1_profile.cubex',
    'testdata/cubex/scorep-1.4_kripke-p8-d2-g32-r1_profile.cubex',
    'testdata/cubex/scorep-8.4_call_tree_test.cubex',
    'testdata/cubex/mkcubex_minimal.cubex',
    'testdata/cubex/cubelib-4.8.2_cube-values_example.cubex',
];
/* Files whose every metric is compared, in every check: one metric of
 * each value type (integers that wrap, MINDOUBLE, MAXDOUBLE, RATE,
 * TAU_ATOMIC and COMPLEX, which combine by components, NDOUBLES,
 * HISTOGRAM, SCALE_FUNC). */
const EVERY_METRIC = new Set(['testdata/cubex/cubelib-4.8.2_cube-values_example.cubex']);

let failures = 0, checks = 0;
function ok(name) { checks++; console.log('ok - ' + name); }
function notOk(name, details) {
    checks++;
    failures++;
    console.log('not ok - ' + name);
    for (const d of (details || []).slice(0, 8))
        console.log('#   ' + d);
}

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'test_model.'));
process.on('exit', () => fs.rmSync(TMP, {recursive: true, force: true}));

function tool(name, args) {
    const r = cp.spawnSync(path.join(BIN, name), args, {cwd: ROOT, maxBuffer: 1 << 30, encoding: 'utf8'});
    if (r.error)
        throw new Error(`${name}: ${r.error.message}`);
    if (r.status !== 0)
        throw new Error(`${name} ${args.join(' ')}: exit ${r.status}: ${r.stderr.split('\n')[0]}`);
    return r.stdout;
}

function dumpJson(args) {
    return JSON.parse(tool('cube_dump', ['-s', 'json'].concat(args)));
}

/* The page's DATA: cube_view writes the page, the data is the JSON in the
 * script element "cube-data". */
function pageData(file) {
    const out = path.join(TMP, path.basename(file) + '.html');
    /* the external experiment of the external mode: the file itself */
    tool('cube_view', [file, '--external', file, '-o', out]);
    const html = fs.readFileSync(out, 'utf8');
    const m = /<script type="application\/json" id="cube-data">([\s\S]*?)<\/script>/.exec(html);
    if (!m)
        throw new Error(`${out}: no <script id="cube-data">`);
    return JSON.parse(m[1]);
}

/* Within rounding: the model sums in another order than the library. */
function close(a, b, scale) {
    if (a === null || b === null || Number.isNaN(a) || Number.isNaN(b))
        return (a === null || Number.isNaN(a)) && (b === null || Number.isNaN(b));
    if (a === b)
        return true;
    return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)) + 1e-11 * scale;
}

function num(v) { return v === null || v === undefined ? NaN : v; }

class Checker {
    constructor(name) { this.name = name; this.bad = []; this.count = 0; this.maxRel = 0; }
    cmp(what, expected, got, scale) {
        this.count++;
        const e = expected === null ? null : expected;
        if (!close(e, Number.isNaN(got) ? null : got, scale || 0))
            this.bad.push(`${what}: cube_dump ${e}, model ${got}`);
        else if (e !== null && e !== 0 && Number.isFinite(got))
            this.maxRel = Math.max(this.maxRel, Math.abs(got - e) / Math.abs(e));
    }
    report() {
        if (this.count === 0)
            notOk(this.name + ': nothing compared');
        else if (this.bad.length)
            notOk(`${this.name}: ${this.bad.length} of ${this.count} values differ`, this.bad);
        else
            ok(`${this.name}: ${this.count} values agree (largest relative difference ${this.maxRel.toExponential(1)})`);
    }
}

function scaleOf(rows, key) {
    let s = 0;
    for (const r of rows)
        for (const k of key) {
            const v = r[k];
            if (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) > s && Math.abs(v) < 1e300)
                s = Math.abs(v);
        }
    return s;
}

/* Maps from cube_dump's ids to the page's indexes. */
function buildMaps(file, data) {
    const maps = {};
    maps.metric = new Map();
    data.metrics.forEach((m, i) => maps.metric.set(m.uniq, i));
    /* call paths: cube_dump -w calltree lists them in preorder, children in
     * the order of the file, which is the page's children order */
    const listing = dumpJson(['-w', 'calltree', file]).calltree;
    const kids = data.cnodes.map(() => []), roots = [];
    data.cnodes.forEach((c, i) => (c.parent >= 0 ? kids[c.parent] : roots).push(i));
    const pre = [], stack = roots.slice().reverse();
    while (stack.length) {
        const c = stack.pop();
        pre.push(c);
        for (let k = kids[c].length - 1; k >= 0; k--)
            stack.push(kids[c][k]);
    }
    maps.cnode = new Map();
    maps.cnodeId = [];
    if (pre.length !== listing.length)
        throw new Error(`${file}: ${pre.length} call paths in the page, ${listing.length} in cube_dump`);
    listing.forEach((row, k) => {
        const c = pre[k];
        if (data.regions[data.cnodes[c].region].name !== row.region)
            throw new Error(`${file}: call path ${row.cnode_id} is ${row.region} in cube_dump, ` +
                            `${data.regions[data.cnodes[c].region].name} in the page`);
        maps.cnode.set(row.cnode_id, c);
        maps.cnodeId[c] = row.cnode_id;
    });
    maps.thread = new Map();
    data.system.forEach((s, i) => { if (s.kind === 'thread') maps.thread.set(s.index, i); });
    maps.machines = [];
    data.system.forEach((s, i) => { if (s.parent < 0 || s.parent === undefined) maps.machines.push(i); });
    return maps;
}

function modeArg(mode, file) {
    return '--mode=' + (mode === 'external' ? 'external=' + file : mode);
}

/* The metrics compared: up to `max` stored ones, spread over the tree,
 * always the maximum and minimum ones. */
function pickMetrics(data, max) {
    const stored = [];
    data.metrics.forEach((m, i) => { if (m.kind !== 'derived' && m.kind !== 'void' && data.values[String(i)]) stored.push(i); });
    if (stored.length <= max)
        return stored;
    const out = new Set();
    stored.forEach(i => { if (data.metrics[i].combine !== 'sum') out.add(i); });
    const step = stored.length / max;
    for (let k = 0; out.size < max && k < max; k++)
        out.add(stored[Math.floor(k * step)]);
    return Array.from(out).sort((a, b) => a - b);
}

/* A few call paths: the first root, the deepest, one with most children
 * and a few spread over the tree. */
function pickCnodes(data, n) {
    const out = new Set([0]);
    let deepest = 0, depth = new Array(data.cnodes.length).fill(0), wide = 0, nk = new Array(data.cnodes.length).fill(0);
    data.cnodes.forEach((c, i) => {
        if (c.parent >= 0) { depth[i] = depth[c.parent] + 1; nk[c.parent]++; }
        if (depth[i] > depth[deepest]) deepest = i;
    });
    nk.forEach((k, i) => { if (k > nk[wide]) wide = i; });
    out.add(deepest);
    out.add(wide);
    const step = Math.max(1, Math.floor(data.cnodes.length / n));
    for (let i = step; out.size < n && i < data.cnodes.length; i += step)
        out.add(i);
    return Array.from(out);
}

/* The regions compared per thread: those with calls, preferring the ones
 * called recursively. */
function pickRegions(data, n) {
    const calls = new Array(data.regions.length).fill(0);
    data.cnodes.forEach(c => calls[c.region]++);
    const used = [];
    calls.forEach((k, r) => { if (k) used.push(r); });
    used.sort((a, b) => calls[b] - calls[a]);
    return used.slice(0, n);
}

async function testFile(file) {
    const base = path.basename(file);
    let data;
    try {
        data = pageData(file);
    } catch (e) {
        notOk(`${base}: cube_view writes the page data`, [e.message]);
        return;
    }
    const maps = buildMaps(file, data);
    const model = CubeModel.open(data);
    const every = EVERY_METRIC.has(file);
    const metrics = pickMetrics(data, every ? Infinity : 8);
    const mlist = metrics.map(i => data.metrics[i].uniq).join(',');
    const machinesSel = maps.machines.map(id => ({id: id, expanded: false}));
    /* the machine selected left of the call pane: cube_dump --by=machine
     * (several machines: their sum, which -t aggr is for sums of numbers) */
    const bySystem = maps.machines.length === 1 ? ['--by=machine'] : ['-t', 'aggr'];
    const t0 = Date.now();

    /* -t aggr: the call pane */
    for (const mode of MODES) {
        const ch = new Checker(`${base}: call pane = cube_dump -t aggr --mode=${mode}`);
        for (const x of ['incl', 'excl'])
            for (const z of ['incl', 'excl']) {
                const sys = mode === 'sysroot' || mode === 'syssel';
                const rows = dumpJson((sys ? bySystem : ['-t', 'aggr']).concat(
                    ['-x', x, '-z', z, '-m', mlist, modeArg(mode, file), file]));
                const scale = scaleOf(rows, ['value']);
                const byMetric = new Map();
                for (const row of rows) {
                    const m = maps.metric.get(row.metric);
                    if (!byMetric.has(m)) {
                        const res = await model.compute({
                            order: sys ? ['metric', 'system', 'call'] : ['metric', 'call', 'system'],
                            mode: {call: mode},
                            selection: {metric: [{id: m, expanded: x === 'excl'}], system: sys ? machinesSel : []}
                        });
                        byMetric.set(m, res.call[z]);
                    }
                    const c = maps.cnode.get(row.cnode_id);
                    ch.cmp(`${row.metric} -x ${x} -z ${z} cnode ${row.cnode_id}`, row.value, byMetric.get(m)[c], scale);
                }
            }
        ch.report();
    }

    /* per thread: the system pane (sysroot, syssel: the call pane right of
     * the system pane with the thread selected) */
    const cnodes = pickCnodes(data, 5);
    const clist = cnodes.map(c => maps.cnodeId[c]).join(',');
    const pm = every ? metrics : metrics.slice(0, 4), pmlist = pm.map(i => data.metrics[i].uniq).join(',');
    for (const mode of MODES) {
        const ch = new Checker(`${base}: system pane per thread = cube_dump --mode=${mode}`);
        for (const x of ['incl', 'excl'])
            for (const z of ['incl', 'excl']) {
                const rows = dumpJson(['-x', x, '-z', z, '-m', pmlist, '-c', clist, modeArg(mode, file), file]);
                const scale = scaleOf(rows, ['value']);
                const memo = new Map();
                for (const row of rows) {
                    const m = maps.metric.get(row.metric), c = maps.cnode.get(row.cnode_id);
                    const th = maps.thread.get(row.location);
                    let got;
                    if (mode === 'sysroot' || mode === 'syssel') {
                        const key = m + '/' + th;
                        if (!memo.has(key))
                            memo.set(key, (await model.compute({
                                order: ['metric', 'system', 'call'], mode: {call: mode},
                                selection: {metric: [{id: m, expanded: x === 'excl'}], system: [{id: th, expanded: false}]}
                            })).call[z]);
                        got = memo.get(key)[c];
                    } else {
                        const key = m + '/' + c;
                        if (!memo.has(key))
                            memo.set(key, (await model.compute({
                                mode: {system: mode},
                                selection: {metric: [{id: m, expanded: x === 'excl'}], call: [{id: c, expanded: z === 'excl'}]}
                            })).system.incl);
                        got = memo.get(key)[th];
                    }
                    ch.cmp(`${row.metric} -x ${x} -z ${z} cnode ${row.cnode_id} thread ${row.location}`, row.value, got, scale);
                }
            }
        ch.report();
    }

    /* -r: the flat profile, aggregated and per thread */
    const regions = pickRegions(data, 4);
    const parts = [['exclusive', 'excl'], ['inclusive', 'incl'], ['subroutines', 'sub']];
    for (const mode of MODES) {
        const ch = new Checker(`${base}: flat profile = cube_dump -r --mode=${mode}`);
        for (const x of ['incl', 'excl']) {
            const sys = mode === 'sysroot' || mode === 'syssel';
            const rows = dumpJson(['-r'].concat(sys ? bySystem : ['-t', 'aggr'],
                                                ['-x', x, '-m', mlist, modeArg(mode, file), file]));
            const scale = scaleOf(rows, ['exclusive', 'inclusive', 'subroutines']);
            const memo = new Map();
            const counter = {};
            for (const row of rows) {
                const m = maps.metric.get(row.metric);
                counter[m] = (counter[m] || 0);
                const r = counter[m]++; /* regions come in index order */
                if (!memo.has(m)) {
                    memo.set(m, (await model.compute({
                        order: sys ? ['metric', 'system', 'call'] : ['metric', 'call', 'system'],
                        callTab: 'flat', mode: {call: mode},
                        selection: {metric: [{id: m, expanded: x === 'excl'}], system: sys ? machinesSel : []}
                    })).call);
                }
                for (const [col, part] of parts)
                    ch.cmp(`${row.metric} -x ${x} region ${row.region} ${col}`, row[col], memo.get(m)[part][r], scale);
            }
            /* per thread, a few regions */
            const trows = dumpJson(['-r', '-x', x, '-m', pm.map(i => data.metrics[i].uniq).slice(0, every ? pm.length : 2).join(','),
                                    modeArg(mode, file), file]);
            const tscale = scaleOf(trows, ['exclusive', 'inclusive', 'subroutines']);
            const want = new Set(regions.map(r => data.regions[r].name));
            const tmemo = new Map();
            const seen = new Map();
            for (const row of trows) {
                const m = maps.metric.get(row.metric);
                const key0 = m + '/' + row.location;
                const r = seen.get(key0) || 0;
                seen.set(key0, r + 1);
                if (!want.has(row.region) || !regions.includes(r))
                    continue;
                const th = maps.thread.get(row.location);
                for (const [col, part] of parts) {
                    let got;
                    if (mode === 'sysroot' || mode === 'syssel') {
                        const key = m + '/' + th;
                        if (!tmemo.has(key))
                            tmemo.set(key, (await model.compute({
                                order: ['metric', 'system', 'call'], callTab: 'flat', mode: {call: mode},
                                selection: {metric: [{id: m, expanded: x === 'excl'}], system: [{id: th, expanded: false}]}
                            })).call);
                        got = tmemo.get(key)[part][r];
                    } else {
                        const key = m + '/' + r + '/' + part;
                        if (!tmemo.has(key))
                            tmemo.set(key, (await model.compute({
                                callTab: 'flat', mode: {system: mode},
                                selection: {metric: [{id: m, expanded: x === 'excl'}], flat: [{region: r, part: part}]}
                            })).system.incl);
                        got = tmemo.get(key)[th];
                    }
                    ch.cmp(`${row.metric} -x ${x} region ${row.region} ${col} thread ${row.location}`, row[col], got, tscale);
                }
            }
        }
        ch.report();
    }

    /* other orders: the metric pane right of the call pane (aggregated)
     * and right of the call and system panes (per thread); panes left of
     * the metric pane have no values */
    {
        const ch = new Checker(`${base}: metric pane right of the call and system panes = cube_dump values`);
        for (const x of ['incl', 'excl'])
            for (const z of ['incl', 'excl']) {
                const rows = dumpJson(['-t', 'aggr', '-x', x, '-z', z, '-m', mlist, '-c', clist, file]);
                const scale = scaleOf(rows, ['value']);
                for (const row of rows) {
                    const m = maps.metric.get(row.metric), c = maps.cnode.get(row.cnode_id);
                    const res = await model.compute({order: ['call', 'metric', 'system'],
                                                     selection: {call: [{id: c, expanded: z === 'excl'}]}});
                    ch.cmp(`call,metric,system: ${row.metric} -x ${x} -z ${z} cnode ${row.cnode_id}`, row.value,
                           res.metric[x][m], scale);
                }
                const trows = dumpJson(['-x', x, '-z', z, '-m', pmlist, '-c', clist, file]);
                const tscale = scaleOf(trows, ['value']);
                for (const row of trows.filter((r, i) => i % 7 === 0)) {
                    const m = maps.metric.get(row.metric), c = maps.cnode.get(row.cnode_id);
                    const th = maps.thread.get(row.location);
                    for (const order of [['call', 'system', 'metric'], ['system', 'call', 'metric']]) {
                        const res = await model.compute({order: order, selection: {
                            call: [{id: c, expanded: z === 'excl'}], system: [{id: th, expanded: false}]}});
                        ch.cmp(`${order}: ${row.metric} -x ${x} -z ${z} cnode ${row.cnode_id} thread ${row.location}`,
                               row.value, res.metric[x][m], tscale);
                    }
                }
            }
        ch.report();
        const res = await model.compute({order: ['system', 'call', 'metric'],
                                         selection: {system: [{id: maps.machines[0], expanded: false}], call: [{id: 0}]}});
        const defined = [].concat(Array.from(res.call.incl), Array.from(res.system.incl)).filter(v => !Number.isNaN(v));
        if (defined.length === 0 && !model.modeAvailable('call', 'absolute', {order: ['system', 'call', 'metric']}))
            ok(`${base}: panes left of the metric pane are undefined`);
        else
            notOk(`${base}: panes left of the metric pane are undefined`, [`${defined.length} defined values`]);
    }
    console.log(`# ${base}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/* Consistency that needs no cube_dump: multiple selection is the combine
 * of the single ones, selectedAbs and largestPath, formatting, colours. */
async function testApi(file) {
    const data = pageData(file);
    const model = CubeModel.open(data);
    const base = path.basename(file);
    const time = data.metrics.findIndex(m => m.uniq === 'time');
    const kids = data.cnodes.map(() => []);
    data.cnodes.forEach((c, i) => { if (c.parent >= 0) kids[c.parent].push(i); });
    const a = kids[0][0], b = kids[0][kids[0].length - 1];
    const one = async c => (await model.compute({selection: {metric: [{id: time}], call: [{id: c}]}})).system;
    const ra = await one(a), rb = await one(b);
    const both = (await model.compute({selection: {metric: [{id: time}], call: [{id: a}, {id: b}]}}));
    let bad = [];
    for (let i = 0; i < data.system.length; i++)
        if (!close(both.system.absIncl[i], ra.absIncl[i] + rb.absIncl[i], 0))
            bad.push(`system item ${i}: ${both.system.absIncl[i]} != ${ra.absIncl[i]} + ${rb.absIncl[i]}`);
    const callSel = both.call.selectedAbs, want = both.call.absIncl[a] + both.call.absIncl[b];
    if (!close(callSel, want, 0))
        bad.push(`call selectedAbs ${callSel} != ${want}`);
    if (bad.length) notOk(`${base}: a multiple selection is the sum of its parts`, bad);
    else ok(`${base}: a multiple selection is the sum of its parts`);

    const res = await model.compute({selection: {metric: [{id: time}]}});
    const lp = model.largestPath('call', res.call, {});
    let good = lp.length > 0 && data.cnodes[lp[0]].parent < 0;
    for (let k = 1; good && k < lp.length; k++) {
        good = data.cnodes[lp[k]].parent === lp[k - 1];
        for (const s of kids[lp[k - 1]])
            if (res.call.absIncl[s] > res.call.absIncl[lp[k]]) good = false;
    }
    good = good && kids[lp[lp.length - 1]].length === 0;
    if (good) ok(`${base}: largestPath follows the largest inclusive child down to a leaf`);
    else notOk(`${base}: largestPath follows the largest inclusive child down to a leaf`, [JSON.stringify(lp)]);
    const idx = [...res.call.absIncl.keys()];
    const lg = res.call.legend, mx = Math.max(...idx.map(i => res.call.absIncl[i]));
    if (lg.max === mx && lg.min === 0) ok(`${base}: the legend spans 0 to the largest value in absolute mode`);
    else notOk(`${base}: the legend spans 0 to the largest value in absolute mode`, [JSON.stringify(lg), String(mx)]);
}

function testFormatColour() {
    const f = CubeModel.format, c = CubeModel.colour;
    const cases = [
        [[1.2345, {digits: 1, expThreshold: 4, zeroThreshold: 9}], '1.2'],
        [[1.2345, {digits: 3, expThreshold: 4, zeroThreshold: 9}], '1.234'],
        [[1.234, {digits: 4, expThreshold: 4, zeroThreshold: 9}], '1.2340'],
        [[1000, {digits: 0, expThreshold: 4, zeroThreshold: 9}], '1000'],
        [[1000, {digits: 0, expThreshold: 3, zeroThreshold: 9}], '1e3'],
        [[20400, {digits: 2, expThreshold: 4, zeroThreshold: 9}], '2.04e4'],
        [[0.0001, {digits: 4, expThreshold: 4, zeroThreshold: 5}], '0.0001'],
        [[0.0001, {digits: 4, expThreshold: 4, zeroThreshold: 3}], '0.0000'],
        [[-3.5, {digits: 1, expThreshold: 4, zeroThreshold: 9}], '-3.5'],
        [[-1e-12, {digits: 2, expThreshold: 4, zeroThreshold: 9}], '0.00'],
        [[NaN, {digits: 2, expThreshold: 4, zeroThreshold: 9}], '-'],
        [[0.0000123, {digits: 2, expThreshold: 4, zeroThreshold: 9}], '1.23e-5'],
        [[99999, {digits: 2, expThreshold: 4, zeroThreshold: 9}], '1.00e5'],
    ];
    const bad = [];
    for (const [args, want] of cases)
        if (f(...args) !== want) bad.push(`format(${args[0]}, ${JSON.stringify(args[1])}) = ${f(...args)}, want ${want}`);
    if (bad.length) notOk('format follows the precision settings (manual examples)', bad);
    else ok('format follows the precision settings (manual examples)');
    const L = {min: 0, max: 100}, s = {zeroThreshold: 6};
    const ccases = [[0, 'rgb(255,255,255)'], [NaN, 'rgb(255,255,255)'], [1e-7, 'rgb(255,255,255)'],
                    [100, 'rgb(255,0,0)'], [75, 'rgb(255,255,0)'], [50, 'rgb(0,255,0)'], [25, 'rgb(0,255,255)'],
                    [1e-5, 'rgb(0,0,255)'], [250, 'rgb(255,0,0)'], [62.5, 'rgb(128,255,0)']];
    const cbad = [];
    for (const [v, want] of ccases)
        if (c(v, L, s) !== want) cbad.push(`colour(${v}) = ${c(v, L, s)}, want ${want}`);
    if (cbad.length) notOk('colour: blue, cyan, green, yellow, red; white for zero, NaN and below the zero threshold', cbad);
    else ok('colour: blue, cyan, green, yellow, red; white for zero, NaN and below the zero threshold');

    // The five colour positions: blue up to the start, red from the end on,
    // each colour at its position, the method applied between neighbours.
    const P = {zeroThreshold: 6, positions: [0.2, 0.3, 0.4, 0.9, 0.95]};
    const pcases = [[10, P, 'rgb(0,0,255)'], [20, P, 'rgb(0,0,255)'], [30, P, 'rgb(0,255,255)'],
                    [40, P, 'rgb(0,255,0)'], [90, P, 'rgb(255,255,0)'], [95, P, 'rgb(255,0,0)'],
                    [99, P, 'rgb(255,0,0)'], [25, P, 'rgb(0,128,255)'], [65, P, 'rgb(128,255,0)'],
                    [65, Object.assign({method: 'quadratic1'}, P), 'rgb(64,255,0)'],
                    [35, Object.assign({method: 'quadratic2'}, P), 'rgb(0,255,64)'],
                    // equal positions: no room for cyan and green, yellow follows blue
                    [50, {positions: [0, 0.5, 0.5, 0.5, 1]}, 'rgb(255,255,0)'],
                    [49, {positions: [0, 0.5, 0.5, 0.5, 1]}, 'rgb(0,250,255)'],
                    // positions that are not in order fall back to the default
                    [25, {positions: [0, 0.6, 0.5, 0.75, 1]}, 'rgb(0,255,255)'],
                    // outside a user-defined scale: grey
                    [150, {userMin: 0, userMax: 100}, 'rgb(192,192,192)'],
                    [-5, {userMin: 0, userMax: 100}, 'rgb(192,192,192)'],
                    [100, {userMin: 0, userMax: 100}, 'rgb(255,0,0)']];
    const pbad = [];
    for (const [v, st, want] of pcases)
        if (c(v, L, st) !== want) pbad.push(`colour(${v}, ${JSON.stringify(st)}) = ${c(v, L, st)}, want ${want}`);
    if (pbad.length) notOk('colour: the five colour positions and the method between them; grey outside a user-defined scale', pbad);
    else ok('colour: the five colour positions and the method between them; grey outside a user-defined scale');

    // A node with hidden children: own value combined with their values,
    // their share in percent.
    const w = CubeModel.withHidden;
    const hcases = [[[3, [1, 4], 'sum'], {value: 8, hidden: 5, percent: 62.5}],
                    [[NaN, [2, 6], 'sum'], {value: 8, hidden: 8, percent: 100}],
                    [[3, [NaN], 'sum'], {value: 3, hidden: NaN, percent: NaN}],
                    [[5, [7, 2], 'max'], {value: 7, hidden: 7, percent: 100}],
                    [[5, [7, 2], 'min'], {value: 2, hidden: 2, percent: 100}],
                    [[2, [-2], 'sum'], {value: 0, hidden: -2, percent: NaN}]];
    const hbad = [];
    const same = (a, b) => (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) < 1e-12;
    for (const [args, want] of hcases) {
        const got = w(...args);
        if (!['value', 'hidden', 'percent'].every(k => same(got[k], want[k])))
            hbad.push(`withHidden(${JSON.stringify(args)}) = ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
    if (hbad.length) notOk('withHidden: own value plus the hidden children (sum, max, min) and their share', hbad);
    else ok('withHidden: own value plus the hidden children (sum, max, min) and their share');
}

/* The served backend: cube_view --serve answers the pane queries, and the
 * same compute() gives the embedded numbers (within rounding), for the
 * first stored metric or for each metric named in `uniqs`. */
async function testServed(file, uniqs) {
    const base = path.basename(file);
    if (typeof fetch !== 'function') {
        notOk(`${base}: served backend: this node has no fetch`);
        return;
    }
    const data = pageData(file);
    const embedded = CubeModel.open(data);
    const server = cp.spawn(path.join(BIN, 'cube_view'), ['--serve', file], {cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe']});
    try {
        const url = await new Promise((resolve, reject) => {
            let text = '';
            const timer = setTimeout(() => reject(new Error('no URL printed within 20 s')), 20000);
            server.stdout.on('data', d => {
                text += d;
                const nl = text.indexOf('\n');
                if (nl >= 0) { clearTimeout(timer); resolve(text.slice(0, nl).trim()); }
            });
            server.on('exit', code => reject(new Error(`cube_view --serve exited with ${code}`)));
        });
        const u = new URL(url);
        const page = await (await fetch(url)).text();
        const m = /<script type="application\/json" id="cube-data">([\s\S]*?)<\/script>/.exec(page);
        const sdata = JSON.parse(m[1]);
        let queries = 0;
        const served = CubeModel.open(sdata, {token: u.searchParams.get('token'), base: u.origin,
                                              fetch: (q) => { queries++; return fetch(q); }});
        const thread = data.system.findIndex(x => x.kind === 'thread');
        const process = data.system.findIndex(x => x.kind === 'process');
        const machine = data.system.findIndex(x => x.kind === 'machine');
        const ch = new Checker(`${base}: served compute() = embedded compute()` + (uniqs ? ` (${uniqs.join(', ')})` : ''));
        for (const time of uniqs ? uniqs.map(u => data.metrics.findIndex(x => x.uniq === u))
                                 : [data.metrics.findIndex(x => x.kind === 'stored')]) {
        const states = [
            {selection: {metric: [{id: time}], call: [{id: 0}]}},
            {selection: {metric: [{id: time, expanded: true}], call: [{id: 0, expanded: true}, {id: 1}]}, mode: {call: 'metricroot', system: 'peer'}},
            {callTab: 'flat', selection: {metric: [{id: time}], flat: [{region: data.cnodes[0].region, part: 'sub'}]}, mode: {system: 'callsel'}},
            {order: ['metric', 'system', 'call'], selection: {metric: [{id: time}], system: [{id: thread}]}, mode: {call: 'syssel'}},
            {order: ['call', 'metric', 'system'], selection: {metric: [{id: time}], call: [{id: 0}]}},
            {order: ['metric', 'system', 'call'], selection: {metric: [{id: time}], system: [{id: process}, {id: thread}]}},
            {order: ['metric', 'system', 'call'], callTab: 'flat', selection: {metric: [{id: time, expanded: true}], system: [{id: process}]}},
            {order: ['system', 'call', 'metric'], selection: {system: [{id: 0}], call: [{id: 0}]}},
            {order: ['metric', 'system', 'call'], selection: {metric: [{id: time}], system: [{id: machine}]}},
            {order: ['metric', 'system', 'call'], callTab: 'flat', selection: {metric: [{id: time}], system: [{id: machine}]}},
            {order: ['call', 'metric', 'system'], callTab: 'flat', selection: {metric: [{id: time}], flat: [{region: data.cnodes[0].region, part: 'incl'}]}},
            {order: ['system', 'metric', 'call'], selection: {metric: [{id: time}], system: [{id: process}]}},
            {order: ['call', 'system', 'metric'], selection: {call: [{id: 0, expanded: true}, {id: 1}], system: [{id: machine}]}},
            {order: ['call', 'metric', 'system'], selection: {metric: [{id: time}], call: [{id: 0, expanded: true}, {id: 1}]}},
        ];
        for (const st of states) {
            const a = await embedded.compute(st), b = await served.compute(st);
            for (const p of ['metric', 'call', 'system'])
                for (const k of ['incl', 'excl', 'sub'])
                    if (a[p][k]) {
                        const scale = Math.max(0, ...Array.from(a[p].absIncl).filter(Number.isFinite).map(Math.abs));
                        for (let i = 0; i < a[p][k].length; i++)
                            ch.cmp(`${JSON.stringify(st)} ${p}.${k}[${i}]`, Number.isNaN(a[p][k][i]) ? null : a[p][k][i], b[p][k][i], scale);
                    }
        }
        }
        ch.report();
        const before = queries;
        const again = {selection: {metric: [{id: data.metrics.findIndex(x => x.kind === 'stored')}], call: [{id: 0}]}};
        await served.compute(again);
        await served.compute(again);
        queries = before;
        await served.compute(again);
        if (queries === before) ok(`${base}: served answers are cached per query`);
        else notOk(`${base}: served answers are cached per query`, [`${queries - before} new queries`]);
    } catch (e) {
        notOk(`${base}: served backend: ${e.message}`);
    } finally {
        server.kill('SIGTERM');
    }
}

/* A synthetic experiment of the size of make perf's (32 000 call paths,
 * 16 threads, 4 metrics): what a model computes after a series of clicks
 * equals what a fresh model computes for the same state, and the first
 * view's system pane holds the sums of the generated values.  The time of
 * a click is printed, not judged (make perf measures it). */
async function testLargeModel() {
    const nC = 32000, nT = 16, nR = 500;
    const cnodes = [];
    for (let i = 0; i < nC; i++)
        cnodes.push({region: i % nR, parent: i === 0 ? -1 : Math.floor((i - 1) / 3), mod: '', line: -1});
    const system = [{kind: 'machine', name: 'm', parent: -1, index: 0}, {kind: 'node', name: 'n', parent: 0, index: 0}];
    for (let p = 0; p < 4; p++) {
        system.push({kind: 'process', name: 'p' + p, parent: 1, index: p, rank: p});
        const pi = system.length - 1;
        for (let t = 0; t < 4; t++)
            system.push({kind: 'thread', name: 't' + t, parent: pi, index: p * 4 + t, rank: p});
    }
    const metrics = [
        {name: 'time', uniq: 'time', dtype: 'DOUBLE', combine: 'sum', kind: 'stored', parent: -1},
        {name: 'comp', uniq: 'comp', dtype: 'DOUBLE', combine: 'sum', kind: 'stored', parent: 0},
        {name: 'visits', uniq: 'visits', dtype: 'UINT64', combine: 'sum', kind: 'stored', parent: -1},
        {name: 'max', uniq: 'max', dtype: 'MAXDOUBLE', combine: 'max', kind: 'stored', parent: -1},
    ];
    const values = {};
    const idx = Buffer.alloc(nC * 4);
    for (let c = 0; c < nC; c++) idx.writeInt32LE(c, c * 4);
    metrics.forEach((m, k) => {
        const buf = Buffer.alloc(nC * nT * 8);
        for (let i = 0; i < nC * nT; i++) buf.writeDoubleLE(((i * 7919 + k) % 1000) / (k === 1 ? 200 : 100), i * 8);
        values[String(k)] = {cnodes: idx.toString('base64'), data: buf.toString('base64')};
    });
    const data = {format: 1, file: 'synthetic', served: false, attributes: {}, metrics, regions:
                  Array.from({length: nR}, (_, i) => ({name: 'r' + i, mod: '', begin: -1, end: -1})),
                  cnodes, system, topologies: [], values, external: null, stat: null};
    let t0 = performance.now();
    const model = CubeModel.open(data);
    let st = {selection: {metric: [{id: 0}], call: [{id: 0}], system: [{id: 2}]}};
    await model.compute(st);
    const first = performance.now() - t0;
    const clicks = [
        {selection: {metric: [{id: 0}], call: [{id: 5}], system: [{id: 2}]}, mode: {system: 'peer'}},
        {selection: {metric: [{id: 0, expanded: true}], call: [{id: 5}], system: [{id: 2}]}},
        {selection: {metric: [{id: 3}], call: [{id: 1}], system: [{id: 2}]}},
        {callTab: 'flat', selection: {metric: [{id: 0}], flat: [{region: 3, part: 'incl'}], system: [{id: 2}]}},
        {order: ['metric', 'system', 'call'], selection: {metric: [{id: 2}], system: [{id: 2}], call: [{id: 0}]}, mode: {call: 'syssel'}},
    ];
    /* CPU time, not wall-clock time: the tests share the machine */
    const times = [], walls = [];
    for (const c of clicks) {
        const c0 = process.cpuUsage();
        t0 = performance.now();
        await model.compute(c);
        walls.push(performance.now() - t0);
        const used = process.cpuUsage(c0);
        times.push((used.user + used.system) / 1000);
    }
    console.log(`# 32000 call paths x 16 threads: open + first view ${first.toFixed(0)} ms, clicks ` +
                `${times.map(t => t.toFixed(0)).join(', ')} ms CPU (${walls.map(t => t.toFixed(0)).join(', ')} ms wall)`);

    /* the first view: metric time not expanded (CUBE 3 stores a metric's
     * values inclusive of its children, so that is time's own values), the
     * root call path inclusive: per thread the sum over all call paths of
     * time's generated values */
    const firstView = await CubeModel.open(data).compute(st);
    const sums = new Float64Array(nT);
    for (let c = 0; c < nC; c++)
        for (let t = 0; t < nT; t++) {
            const i = c * nT + t;
            sums[t] += ((i * 7919) % 1000) / 100;
        }
    const bad = [];
    system.forEach((s, id) => {
        if (s.kind !== 'thread')
            return;
        const got = firstView.system.incl[id], want = sums[s.index];
        if (!(Math.abs(got - want) <= 1e-9 * want))
            bad.push(`thread ${s.index}: ${got} instead of ${want}`);
    });
    if (bad.length === 0) ok('32000 call paths x 16 threads: the system pane holds each thread\'s sums');
    else notOk('32000 call paths x 16 threads: the system pane holds each thread\'s sums', bad.slice(0, 3));

    /* every click's result as a fresh model computes it */
    const same = (a, b) => a.length === b.length &&
        Array.prototype.every.call(a, (x, i) => Object.is(x, b[i]) || Math.abs(x - b[i]) <= 1e-12 * Math.abs(b[i]));
    const diffs = [];
    for (let k = 0; k < clicks.length; k++) {
        const again = await model.compute(clicks[k]), want = await CubeModel.open(data).compute(clicks[k]);
        for (const pane of ['metric', 'call', 'system'])
            for (const part of ['incl', 'excl'])
                if (want[pane] && want[pane][part] && !same(again[pane][part], want[pane][part]))
                    diffs.push(`click ${k + 1}: ${pane} ${part}`);
    }
    if (diffs.length === 0) ok('32000 call paths x 16 threads: each click computes what a fresh model does');
    else notOk('32000 call paths x 16 threads: each click computes what a fresh model does', diffs.slice(0, 3));
}

async function main() {
    if (!fs.existsSync(path.join(BIN, 'cube_view'))) {
        notOk(`cube_view is built (${path.join(BIN, 'cube_view')})`);
        process.exit(1);
    }
    testFormatColour();
    /* arguments: the files to compare (default: all below), or --extra for
     * the served backend and the performance check alone */
    const args = process.argv.slice(2), extra = args[0] === '--extra';
    const only = extra ? [] : args;
    for (const f of extra ? [] : only.length ? only : FILES) {
        try {
            await testFile(f);
        } catch (e) {
            notOk(`${path.basename(f)}: ${e.message}`);
        }
    }
    if (!extra) try {
        await testApi('testdata/cube/scorep-1.1_profile.cube');
    } catch (e) {
        notOk(`API checks: ${e.message}`);
    }
    if (!only.length || extra) {
        await testServed('testdata/cube/scorep-1.1_profile.cube');
        await testServed('testdata/cube/scalasca-bgpBT_experiment1.cube');
        await testServed('testdata/cubex/cubelib-4.8.2_cube-values_example.cubex',
                         ['RATE', 'TAU_ATOMIC', 'COMPLEX', 'UINT8', 'INT16', 'MAXDOUBLE']);
        await testLargeModel();
    }
    console.log(`# ${checks} checks, ${failures} failed`);
    process.exit(failures ? 1 : 0);
}

main();
