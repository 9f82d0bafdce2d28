'use strict';
// The checks of one opened cube_view page (embedded or served), each against
// cube_dump on the same file.  A row of cube_dump is one value of the
// display (cube_dump(1), VALUE MODES):
//   per thread  = the system pane, with the row's metric and call path
//                 selected (collapsed: -x/-z incl, expanded: excl);
//   -t aggr     = the call pane (the flat profile with -r), with the metric
//                 selected;
//   sysroot and syssel per thread = the call pane in the order metric,
//                 system, call with the thread selected; --by=machine with
//                 the machine selected (a machine combines its threads'
//                 numbers, also of values that -t aggr combines by
//                 components); with several machines -t aggr with every
//                 machine selected.
const { View, near, pageNumber, combine, floorOf } = require('./lib');
const hiding = require('./checks_hiding');

const MODES = ['absolute', 'ownroot', 'metricroot', 'metricsel', 'callroot', 'callsel',
    'sysroot', 'syssel', 'peer', 'peerdist', 'external'];

// the definitions as cube_dump lists them, and the maps from its ids to the
// page's indexes (checked against the page's own definitions)
function dumpDefs(h, file) {
    const d = {
        metrics: h.dump(file, ['-w', 'metrics']).metrics,
        calltree: h.dump(file, ['-w', 'calltree']).calltree,
        regions: h.dump(file, ['-w', 'regions']).regions,
        system: h.dump(file, ['-w', 'systemtree']).systemtree,
        topologies: h.dump(file, ['-w', 'topologies']).topologies,
    };
    d.cnodeIndex = new Map(d.calltree.map((c, i) => [c.cnode_id, i]));
    d.regionIndex = new Map(d.regions.map((r, i) => [r.region_id, i]));
    return d;
}

function structureMatches(defs, d) {
    const bad = [];
    if (defs.metrics.length !== d.metrics.length) bad.push(`metrics: page ${defs.metrics.length}, cube_dump ${d.metrics.length}`);
    else d.metrics.forEach((m, i) => { if (defs.metrics[i].uniq !== m.uniq_name) bad.push(`metric ${i}: page ${defs.metrics[i].uniq}, cube_dump ${m.uniq_name}`); });
    if (defs.cnodes.length !== d.calltree.length) bad.push(`cnodes: page ${defs.cnodes.length}, cube_dump ${d.calltree.length}`);
    else d.calltree.forEach((c, i) => {
        const r = defs.regions[defs.cnodes[i].region];
        if (!r || r.name !== c.region) bad.push(`cnode ${i}: page region ${r && r.name}, cube_dump ${c.region}`);
        const p = c.parent_id === null ? -1 : d.cnodeIndex.get(c.parent_id);
        if (defs.cnodes[i].parent !== p) bad.push(`cnode ${i}: page parent ${defs.cnodes[i].parent}, cube_dump ${p}`);
    });
    if (defs.regions.length !== d.regions.length) bad.push(`regions: page ${defs.regions.length}, cube_dump ${d.regions.length}`);
    const threads = defs.system.filter((s) => s.kind === 'thread').length;
    const want = d.system.filter((s) => s.kind === 'thread').length;
    if (threads !== want) bad.push(`threads: page ${threads}, cube_dump ${want}`);
    return bad.slice(0, 8);
}

// the metric to browse: one with values whose children (if any) have values,
// preferring one with children (metric-exclusive differs from inclusive)
function pickMetric(d) {
    const usable = (m) => m.val !== 'VOID' && !/DERIVED/.test(m.kind || '');
    const cands = d.metrics.map((m, i) => ({ m, i })).filter(({ m }) => usable(m));
    const kids = (i) => d.metrics.filter((c) => c.parent_id === d.metrics[i].metric_id);
    const ok = cands.filter(({ i }) => kids(i).every(usable));
    const withKids = ok.find(({ i }) => kids(i).length > 0);
    return (withKids || ok[0] || cands[0]).i;
}

function level(d, i) { return d.calltree[i].level; }
// a call path to reveal: the first at the deepest level up to 4
function pickDeep(d) {
    let best = 0;
    for (let i = 0; i < d.calltree.length; i++) if (level(d, i) <= 4 && level(d, i) > level(d, best)) best = i;
    return best;
}
function hasChildren(defs, i) { return defs.cnodes.some((c) => c.parent === i); }

class FileChecks {
    constructor(h, view, file, label, opts = {}) {
        this.h = h;
        this.v = view;
        this.file = file;
        this.label = label;
        this.opts = opts;
    }
    name(text) { return `${this.label}: ${text}`; }
    async step(text, fn) {
        try {
            return await fn();
        } catch (e) {
            this.h.fail(this.name(text), e);
            return undefined;
        }
    }
    // compare page rows with expected values; expect(row) -> number|null, or
    // undefined to leave the row out
    // (`scale`: the magnitude of the terms of the expected values, for
    // values that are differences, such as metric-exclusive ones)
    compare(text, rows, expect, scale = 0) {
        const pairs = [];
        for (const r of rows) {
            const w = expect(r);
            if (w !== undefined) pairs.push({ r, w });
        }
        const floor = floorOf([scale, ...pairs.map((p) => p.w)]);
        const bad = pairs.filter(({ r, w }) => !near(pageNumber(r.value), w, floor));
        return this.h.ok(pairs.length > 0 && bad.length === 0, this.name(`${text} (${pairs.length} values)`),
            pairs.length === 0 ? ['no value compared'] :
                bad.slice(0, 6).map(({ r, w }) => `id ${r.id}${r.part ? ' ' + r.part : ''}${r.expanded ? ' expanded' : ''}: page '${r.value}', cube_dump ${w}`));
    }
    // cube_dump's --mode for a mode of the page
    dumpMode(mode) { return mode === 'external' ? `external=${this.opts.external}` : mode; }
    aggr(m, flavourX, flavourZ, mode, extra = []) {
        const rows = this.h.dump(this.file, ['-m', this.d.metrics[m].uniq_name, '-t', 'aggr', '-x', flavourX, '-z', flavourZ,
            `--mode=${this.dumpMode(mode)}`, ...extra]);
        return new Map(rows.map((r) => [this.d.cnodeIndex.get(r.cnode_id), r.value]));
    }
    perThread(m, c, flavourX, flavourZ, mode, threads = null) {
        const args = ['-m', this.d.metrics[m].uniq_name, '-c', String(this.d.calltree[c].cnode_id), '-x', flavourX, '-z', flavourZ,
            `--mode=${this.dumpMode(mode)}`];
        if (threads) args.push('-t', threads);
        return new Map(this.h.dump(this.file, args).map((r) => [r.location, r.value]));
    }
    threadRows(rows, defs) { return rows.filter((r) => defs.system[r.id] && defs.system[r.id].kind === 'thread'); }

    async run() {
        const h = this.h, v = this.v;
        this.d = dumpDefs(h, this.file);
        const defs = await v.defs();
        this.defs = defs;
        const d = this.d;
        const bad = structureMatches(defs, d);
        if (!h.ok(bad.length === 0, this.name('the page defines the metrics, call paths, regions and threads cube_dump lists'), bad)) return;
        const m = this.opts.metric ? d.metrics.findIndex((x) => x.uniq_name === this.opts.metric) : pickMetric(d);
        const mname = d.metrics[m].uniq_name;
        const combineKind = defs.metrics[m].combine || 'sum';
        h.note(`${this.label}: metric ${mname} (${combineKind})`);
        const deep = pickDeep(d);
        const root = d.calltree.findIndex((c) => c.parent_id === null);
        const modes = await this.step('a mode select in each pane', async () => {
            const o = {};
            for (const k of ['metric', 'call', 'system']) {
                o[k] = await v.modeOptions(k);
                if (!o[k]) throw new Error(`no select[data-role=mode] in the ${k} pane`);
            }
            const names = o.call.map((x) => x.value);
            const missing = MODES.filter((x) => x !== 'external' && !names.includes(x));
            h.ok(missing.length === 0, this.name('the call pane offers the value modes of cube_dump'), missing.length ? ['missing: ' + missing.join(' ')] : null);
            return o;
        });
        if (!modes) return;
        const enabled = (k, mode) => { const x = modes[k].find((o) => o.value === mode); return x && !x.disabled; };

        // --- call pane = cube_dump -t aggr ------------------------------------
        await this.step('select the metric', () => v.select('metric', m));
        await this.step('reveal a deep call path', () => v.reveal('call', deep));
        const modesOfCall = MODES.filter((x) => x !== 'external' || this.opts.external);
        if (!this.opts.external) {
            h.ok(!enabled('call', 'external') && !enabled('system', 'external'),
                this.name('without --external the external mode is not offered'), ['the option is enabled']);
        }
        for (const mode of modesOfCall) {
            await this.step(`call pane, mode ${mode}`, async () => {
                if (!enabled('call', mode)) {
                    // offered as unavailable: cube_dump must have no value there either, or the order must forbid it
                    const ref = this.aggr(m, 'incl', 'incl', mode);
                    const undef = [...ref.values()].every((x) => x === null);
                    h.ok(undef || mode === 'sysroot' || mode === 'syssel',
                        this.name(`call pane: mode ${mode} is disabled, and cube_dump -t aggr has no value in it`),
                        undef ? null : ['cube_dump has values']);
                    return;
                }
                await v.setMode('call', mode);
                const rows = (await v.read('call')).filter((r) => !r.part);
                const inc = this.aggr(m, 'incl', 'incl', mode), exc = this.aggr(m, 'incl', 'excl', mode);
                const sysMode = mode === 'sysroot' || mode === 'syssel';
                this.compare(`call pane, metric ${mname} collapsed, mode ${mode}${sysMode ? ' (order metric,call,system: undefined)' : ''} = cube_dump -t aggr -z incl|excl --mode=${mode}`,
                    rows, (r) => (sysMode ? null : (r.expanded && hasChildren(defs, r.id) ? exc : inc).get(r.id)));
            });
        }
        await this.step('call pane back to absolute', () => v.setMode('call', 'absolute'));
        await this.step('screenshot', () => v.shot(h, `${this.label}-main`));

        // --- metric pane: collapsed = inclusive, expanded = exclusive --------------
        const kidsOfM = defs.metrics.some((x) => x.parent === m);
        await this.step('metric pane values', async () => {
            const total = (x) => {
                const rows = h.dump(this.file, ['-m', mname, '-t', 'aggr', '-x', x, '-z', 'incl', '-c', 'roots']);
                return combine(combineKind, rows.map((r) => r.value));
            };
            let st = await v.nodeState('metric', m);
            h.ok(near(pageNumber(st.value), total('incl'), 1e-12 * Math.abs(total('incl'))),
                this.name(`metric pane: ${mname} collapsed shows its inclusive total`), [`page '${st.value}', cube_dump ${total('incl')}`]);
            if (!kidsOfM) return;
            await v.setExpanded('metric', m, true);
            st = await v.nodeState('metric', m);
            h.ok(near(pageNumber(st.value), total('excl'), 1e-12 * Math.abs(total('incl'))),
                this.name(`metric pane: ${mname} expanded shows its exclusive total`), [`page '${st.value}', cube_dump ${total('excl')}`]);
            const rows = (await v.read('call')).filter((r) => !r.part);
            const inc = this.aggr(m, 'excl', 'incl', 'absolute'), exc = this.aggr(m, 'excl', 'excl', 'absolute');
            this.compare(`call pane, metric ${mname} expanded = cube_dump -t aggr -x excl`, rows,
                (r) => (r.expanded && hasChildren(defs, r.id) ? exc : inc).get(r.id), total('incl'));
            await v.setExpanded('metric', m, false);
            st = await v.nodeState('metric', m);
            h.ok(near(pageNumber(st.value), total('incl'), 1e-12 * Math.abs(total('incl'))),
                this.name(`metric pane: ${mname} collapsed again shows its inclusive total`), [`page '${st.value}'`]);
        });

        // --- metric pane: every visible metric, absolute and own root percent -------
        await this.step('metric pane modes', async () => {
            await v.setExpanded('metric', m, true);
            const totalOf = (i, x) => {
                const dm = d.metrics[i];
                if (dm.val === 'VOID' || /DERIVED/.test(dm.kind || '')) return null;
                const rows = h.dump(this.file, ['-m', dm.uniq_name, '-t', 'aggr', '-x', x, '-z', 'incl', '-c', 'roots']);
                return combine(defs.metrics[i].combine || 'sum', rows.map((r) => r.value));
            };
            const rootOf = (i) => { while (defs.metrics[i].parent >= 0) i = defs.metrics[i].parent; return i; };
            const usable = (i) => totalOf(i, 'incl') !== null &&
                defs.metrics.every((c, k) => c.parent !== i || totalOf(k, 'incl') !== null);
            for (const mode of ['absolute', 'ownroot']) {
                if (!enabled('metric', mode)) { h.ok(false, this.name(`metric pane: mode ${mode} offered`)); continue; }
                await v.setMode('metric', mode);
                const rows = (await v.read('metric')).filter((r) => usable(r.id) && usable(rootOf(r.id)));
                const scale = Math.max(...rows.map((r) => Math.abs(totalOf(r.id, 'incl') || 0)));
                this.compare(`metric pane, ${mname} expanded, mode ${mode}: each visible metric's total over call paths and threads (cube_dump -t aggr -c roots)`,
                    rows, (r) => {
                        const x = r.expanded ? 'excl' : 'incl';
                        const t = totalOf(r.id, x);
                        if (mode === 'absolute') return t;
                        const root = totalOf(rootOf(r.id), 'incl');
                        return root ? 100 * t / root : null;
                    }, mode === 'absolute' ? scale : 0);
            }
            await v.setMode('metric', 'absolute');
            await v.setExpanded('metric', m, false);
            await v.select('metric', m);
        });

        // --- a call path collapsed/expanded switches inclusive/exclusive ------------
        if (hasChildren(defs, root)) {
            await this.step('expand/collapse a call path', async () => {
                const inc = this.aggr(m, 'incl', 'incl', 'absolute').get(root), exc = this.aggr(m, 'incl', 'excl', 'absolute').get(root);
                await v.setExpanded('call', root, false);
                const a = await v.nodeState('call', root);
                await v.setExpanded('call', root, true);
                const b = await v.nodeState('call', root);
                await v.setExpanded('call', root, false);
                const c = await v.nodeState('call', root);
                h.ok(near(pageNumber(a.value), inc) && near(pageNumber(b.value), exc) && near(pageNumber(c.value), inc),
                    this.name(`call path ${root}: collapsed ${inc}, expanded ${exc}, collapsed again`),
                    [`page: collapsed '${a.value}', expanded '${b.value}', collapsed again '${c.value}'`]);
                await v.reveal('call', deep);
            });
        }

        // --- system pane = cube_dump per thread -------------------------------------
        const c1 = hasChildren(defs, deep) ? deep : (defs.cnodes[deep].parent >= 0 ? defs.cnodes[deep].parent : root);
        await this.step('select a call path and show the threads', async () => {
            await v.setExpanded('call', c1, false);
            await v.select('call', c1);
            await this.revealThreads();
        });
        // an expanded machine has no value of its own, in the tree and in the
        // selected-value widget ("the severity values for expanded system
        // nodes are shown as undefined")
        await this.step('an expanded machine selected', async () => {
            const mach = defs.system.findIndex((x) => x.kind === 'machine');
            await v.setExpanded('system', mach, true);
            await v.select('system', mach);
            const st = await v.nodeState('system', mach);
            const sv = await v.selectedValue('system');
            h.ok(st.value === '' && sv === '', this.name(`system pane: machine ${mach} expanded and selected shows no value, nor does the selected-value widget`),
                [`node data-value '${st.value}', widget data-value '${sv}'`]);
        });
        for (const mode of ['absolute', 'ownroot', 'metricroot', 'metricsel', 'callroot', 'callsel', 'peer', 'peerdist', ...(this.opts.external ? ['external'] : [])]) {
            await this.step(`system pane, mode ${mode}`, async () => {
                if (!enabled('system', mode)) { h.ok(false, this.name(`system pane: mode ${mode} offered`), ['the option is missing or disabled']); return; }
                await v.setMode('system', mode);
                const rows = this.threadRows(await v.read('system'), defs);
                const want = this.perThread(m, c1, 'incl', 'incl', mode);
                this.compare(`system pane, metric ${mname}, call path ${c1} collapsed, mode ${mode} = cube_dump per thread -z incl --mode=${mode}`,
                    rows, (r) => want.get(defs.system[r.id].index));
            });
        }
        await this.step('system pane absolute', () => v.setMode('system', 'absolute'));
        if (hasChildren(defs, c1)) {
            await this.step('system pane, call path expanded', async () => {
                await v.setExpanded('call', c1, true);
                await v.select('call', c1);
                for (const mode of ['absolute', 'callsel']) {
                    await v.setMode('system', mode);
                    const rows = this.threadRows(await v.read('system'), defs);
                    const want = this.perThread(m, c1, 'incl', 'excl', mode);
                    this.compare(`system pane, call path ${c1} expanded, mode ${mode} = cube_dump per thread -z excl --mode=${mode}`,
                        rows, (r) => want.get(defs.system[r.id].index));
                }
                await v.setMode('system', 'absolute');
            });
        }
        if (kidsOfM) {
            await this.step('system pane, metric expanded', async () => {
                await v.setExpanded('metric', m, true);
                await v.select('metric', m);
                const rows = this.threadRows(await v.read('system'), defs);
                const st = await v.nodeState('call', c1);
                const want = this.perThread(m, c1, 'excl', st.expanded ? 'excl' : 'incl', 'absolute');
                const scale = [...this.perThread(m, c1, 'incl', st.expanded ? 'excl' : 'incl', 'absolute').values()].reduce((a, x) => Math.max(a, Math.abs(x || 0)), 0);
                this.compare(`system pane, metric ${mname} expanded = cube_dump per thread -x excl`, rows, (r) => want.get(defs.system[r.id].index), scale);
                await v.setExpanded('metric', m, false);
                await v.select('metric', m);
            });
        }

        // --- multiple selection: the sum (combine) of the selected call paths --------
        // a second call path outside c1's subtree and path (no value counted twice)
        const ancestors = (i) => { const a = []; for (let p = defs.cnodes[i].parent; p >= 0; p = defs.cnodes[p].parent) a.push(p); return a; };
        const apart = (i) => i !== c1 && !ancestors(i).includes(c1) && !ancestors(c1).includes(i);
        let c2 = defs.cnodes.findIndex((c, i) => c.parent === defs.cnodes[c1].parent && apart(i));
        if (c2 < 0) c2 = defs.cnodes.findIndex((c, i) => apart(i));
        if (c2 >= 0) {
            await this.step('multiple selection', async () => {
                await v.setExpanded('call', c1, false);
                await v.setExpanded('call', c2, false);
                await v.select('call', c1);
                await v.select('call', c2, true);
                const s1 = await v.nodeState('call', c1);
                h.ok(s1.selected, this.name('ctrl-click adds to the selection'), ['the first call path is no longer selected']);
                const w1 = this.perThread(m, c1, 'incl', 'incl', 'absolute'), w2 = this.perThread(m, c2, 'incl', 'incl', 'absolute');
                const rows = this.threadRows(await v.read('system'), defs);
                this.compare(`system pane, call paths ${c1} and ${c2} selected = the ${combineKind} of their cube_dump rows`, rows,
                    (r) => combine(combineKind, [w1.get(defs.system[r.id].index), w2.get(defs.system[r.id].index)]));
                const agg = this.aggr(m, 'incl', 'incl', 'absolute');
                const sv = await v.selectedValue('call');
                const want = combine(combineKind, [agg.get(c1), agg.get(c2)]);
                h.ok(sv !== undefined && near(pageNumber(sv), want, floorOf([agg.get(c1), agg.get(c2)])),
                    this.name(`call pane's selected-value widget = the ${combineKind} of the two selected values`), [`page '${sv}', expected ${want}`]);
                await v.select('call', c1);
            });
        }

        // --- colours against the legend ---------------------------------------------
        await this.step('colours', async () => {
            const rows = (await v.read('call')).filter((r) => !r.part && r.value !== '');
            const lg = await v.legend('call');
            if (!lg) { h.ok(false, this.name('a .legend with data-min, data-max'), ['none']); return; }
            const bad = [];
            for (const r of rows.slice(0, 12)) {
                const want = expectedColour(pageNumber(r.value), lg.min, lg.max);
                if (!sameColour(r.colour, want)) bad.push(`id ${r.id} value ${r.value}: colour ${r.colour}, legend ${lg.min}..${lg.max} gives ${want}`);
            }
            h.ok(rows.length > 0 && bad.length === 0, this.name(`colours of ${Math.min(rows.length, 12)} call paths match the legend`), bad.slice(0, 5));
        });

        // --- order metric, system, call: sysroot and syssel -------------------------
        await this.step('order metric,system,call', async () => {
            await v.setOrder('metric,system,call');
            const t = defs.system.findIndex((s) => s.kind === 'thread' && s.index === 0);
            await v.select('metric', m);
            await v.select('system', t);
            for (const mode of ['sysroot', 'syssel']) {
                await v.setMode('call', mode);
                const rows = (await v.read('call')).filter((r) => !r.part);
                const inc = this.perThreadAll(m, 'incl', mode, '0'), exc = this.perThreadAll(m, 'excl', mode, '0');
                this.compare(`order metric,system,call, thread 0 selected: call pane mode ${mode} = cube_dump -t 0 --mode=${mode}`,
                    rows, (r) => (r.expanded && hasChildren(defs, r.id) ? exc : inc).get(r.id));
            }
            // every machine selected (collapsed) = cube_dump --by=machine
            // (one machine) or -t aggr
            const machines = defs.system.map((s, i) => ({ s, i })).filter(({ s }) => s.kind === 'machine').map(({ i }) => i);
            for (const [k, i] of machines.entries()) { await v.setExpanded('system', i, false); await v.select('system', i, k > 0); }
            const by = machines.length === 1 ? '--by=machine' : '-t aggr';
            const over = (z, mode) => (machines.length === 1 ? new Map(h.dump(this.file, ['-m', mname, '--by=machine', '-x', 'incl',
                '-z', z, `--mode=${this.dumpMode(mode)}`]).map((r) => [this.d.cnodeIndex.get(r.cnode_id), r.value]))
                : this.aggr(m, 'incl', z, mode));
            for (const mode of ['sysroot', 'absolute']) {
                await v.setMode('call', mode);
                const rows = (await v.read('call')).filter((r) => !r.part);
                const inc = over('incl', mode), exc = over('excl', mode);
                this.compare(`order metric,system,call, every machine selected: call pane mode ${mode} = cube_dump ${by} --mode=${mode}`,
                    rows, (r) => (r.expanded && hasChildren(defs, r.id) ? exc : inc).get(r.id));
            }
            await v.setMode('call', 'absolute');
            await v.setOrder('metric,call,system');
        });

        // --- flat profile = cube_dump -r ---------------------------------------------
        await this.step('flat profile', async () => {
            await v.setOrder('metric,call,system');
            await v.tab('call', 'flat');
            await v.select('metric', m);
            for (const mode of ['absolute', 'ownroot', 'metricroot', 'metricsel']) {
                await v.setMode('call', mode);
                const rows = (await v.read('call')).filter((r) => r.part);
                const want = new Map(h.dump(this.file, ['-m', mname, '-r', '-t', 'aggr', `--mode=${mode}`])
                    .map((r) => [d.regionIndex.get(r.region_id), r]));
                this.compare(`flat profile, mode ${mode} = cube_dump -r -t aggr --mode=${mode}`, rows,
                    (r) => { const w = want.get(r.id); return w ? w[partColumn(r.part)] : undefined; });
            }
            await v.setMode('call', 'absolute');
            await v.shot(h, `${this.label}-flat`);
            // one flat row selected: the system pane = cube_dump -r per thread
            const rows = (await v.read('call')).filter((r) => r.part);
            const perThread = h.dump(this.file, ['-m', mname, '-r']);
            const row = rows.find((r) => r.value !== '' && Number(r.value) !== 0) || rows[0];
            await v.page.locator(`${v.pane('call')} li.node[data-id="${row.id}"][data-part="${row.part}"]`).locator('.label').first().click();
            await v.idle();
            await this.revealThreads();
            const sys = this.threadRows(await v.read('system'), defs);
            const want = new Map(perThread.filter((r) => d.regionIndex.get(r.region_id) === row.id).map((r) => [r.location, r[partColumn(row.part)]]));
            this.compare(`flat profile, region ${row.id} ${row.part} selected: system pane = cube_dump -r per thread`, sys,
                (r) => want.get(defs.system[r.id].index));
            for (const mode of ['callsel', 'peer']) {
                await v.setMode('system', mode);
                const rs = this.threadRows(await v.read('system'), defs);
                const w = new Map(h.dump(this.file, ['-m', mname, '-r', `--mode=${mode}`]).filter((r) => d.regionIndex.get(r.region_id) === row.id)
                    .map((r) => [r.location, r[partColumn(row.part)]]));
                this.compare(`flat profile, region ${row.id} ${row.part} selected: system pane mode ${mode} = cube_dump -r --mode=${mode} per thread`, rs,
                    (r) => w.get(defs.system[r.id].index));
            }
            await v.setMode('system', 'absolute');
            // expanding a region: its own (exclusive) value, and a Subroutines row
            const flatRow = (id) => `${v.pane('call')} li.node[data-id="${id}"][data-part]`;
            const agg = new Map(h.dump(this.file, ['-m', mname, '-r', '-t', 'aggr']).map((r) => [d.regionIndex.get(r.region_id), r]));
            const withSub = (await v.read('call')).find((r) => r.part && agg.get(r.id) && agg.get(r.id).subroutines);
            if (withSub) {
                const li = v.page.locator(flatRow(withSub.id)).first();
                const before = await li.evaluate((e) => ({ part: e.dataset.part, value: e.querySelector('.value').dataset.value }));
                await li.locator('.toggle').first().click();
                await v.idle();
                const after = await v.page.evaluate((sel) => [...document.querySelectorAll(sel)]
                    .map((e) => ({ part: e.dataset.part, value: e.querySelector('.value').dataset.value })), flatRow(withSub.id));
                const w = agg.get(withSub.id);
                const ex = after.find((x) => x.part === 'excl'), sub = after.find((x) => x.part === 'sub');
                h.ok(before.part === 'incl' && near(pageNumber(before.value), w.inclusive) && ex && near(pageNumber(ex.value), w.exclusive) &&
                    sub && near(pageNumber(sub.value), w.subroutines, 1e-12 * Math.abs(w.inclusive)),
                    this.name(`flat profile: region ${withSub.id} collapsed shows inclusive ${w.inclusive}, expanded exclusive ${w.exclusive} and Subroutines ${w.subroutines}`),
                    [`before: ${JSON.stringify(before)}, after: ${JSON.stringify(after)}`]);
                await li.locator('.toggle').first().click();
                await v.idle();
            }
            await v.tab('call', 'tree');
        });

        // --- keyboard and search -------------------------------------------------------
        await this.step('keyboard navigation', async () => {
            await v.select('call', root);
            const before = (await v.read('call')).filter((r) => !r.part);
            const at = before.findIndex((r) => r.id === root);
            await v.page.keyboard.press('ArrowDown');
            await v.idle();
            let sel = (await v.read('call')).filter((r) => r.selected).map((r) => r.id);
            const next = before[at + 1];
            h.ok(next && sel.length === 1 && sel[0] === next.id, this.name('ArrowDown selects the next call path'),
                [`selected ${JSON.stringify(sel)}, expected ${next && next.id}`]);
            await v.page.keyboard.press('ArrowUp');
            await v.idle();
            sel = (await v.read('call')).filter((r) => r.selected).map((r) => r.id);
            h.ok(sel.length === 1 && sel[0] === root, this.name('ArrowUp selects the call path above'), [`selected ${JSON.stringify(sel)}`]);
            if (before.length > 2) {
                await v.page.keyboard.press('PageDown');
                await v.idle();
                sel = (await v.read('call')).filter((r) => r.selected).map((r) => r.id);
                const pos = before.findIndex((r) => r.id === sel[0]);
                h.ok(sel.length === 1 && pos > at + 1, this.name('PageDown moves the selection down by more than one call path'),
                    [`selected ${JSON.stringify(sel)} at row ${pos}, from row ${at}`]);
                await v.page.keyboard.press('Home');
                await v.idle();
                sel = (await v.read('call')).filter((r) => r.selected).map((r) => r.id);
                h.ok(sel.length === 1 && sel[0] === before[0].id, this.name('Home selects the first call path'), [`selected ${JSON.stringify(sel)}`]);
            }
        });
        await this.step('search', async () => {
            const target = deep;
            const name = defs.regions[defs.cnodes[target].region].name;
            const re = '^' + name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
            await v.setExpanded('call', root, false);
            const input = v.page.locator(`${v.pane('call')} input[data-role="search"]`);
            await input.fill(re);
            await input.press('Enter');
            await v.idle();
            const rows = await v.read('call');
            const hits = rows.filter((r) => !r.part && defs.regions[defs.cnodes[r.id].region].name === name);
            const marked = await v.page.evaluate((sel) => [...document.querySelectorAll(sel + ' li.node')]
                .filter((li) => li.dataset.selected === 'true' || /match|found|hit/.test(li.className)).map((li) => Number(li.dataset.id)), v.pane('call'));
            h.ok(hits.length > 0 && hits.some((r) => marked.includes(r.id)), this.name(`search /${re}/ shows and marks a call path of ${name}`),
                [`visible: ${hits.map((r) => r.id)}, marked: ${marked}`]);
            await input.fill('');
            await input.press('Enter');
            await v.idle();
        });

        // --- status line and precision settings ------------------------------------------
        await this.step('status line', async () => {
            await v.select('metric', m);
            await v.select('call', root);
            const text = await v.page.$eval('#status', (e) => e.textContent);
            const region = defs.regions[defs.cnodes[root].region].name;
            h.ok(text.includes(defs.metrics[m].name) && text.includes(region),
                this.name(`the status line names the selected metric (${defs.metrics[m].name}) and call path (${region})`), [`status: '${text}'`]);
        });
        await this.step('precision', async () => {
            const field = (name, scope) => `#precision input[name="${name}"][data-scope="${scope}"]`;
            const setDigits = async (n) => {
                await v.page.click('#precision-open');
                await v.page.fill(field('digits', 'tree'), String(n));
                await v.page.click('#precision button[value="ok"]');
                await v.idle();
            };
            await v.page.click('#precision-open');
            const old = await v.page.inputValue(field('digits', 'tree'));
            const exp = Number(await v.page.inputValue(field('expThreshold', 'tree')));
            await v.page.click('#precision [data-role="cancel"]');
            const shown = async () => v.page.evaluate((sel) => {
                const e = document.querySelector(sel + ' .value');
                return { text: e.textContent.trim(), value: e.dataset.value };
            }, v.nodeSel('call', root));
            const bad = [];
            for (const n of [5, 1]) {
                await setDigits(n);
                const x = await shown();
                const val = Number(x.value);
                const want = Math.abs(val) < Math.pow(10, exp) ? val.toFixed(n) : null;
                if (want !== null && x.text !== want) bad.push(`digits ${n}: shows '${x.text}' for ${x.value}, expected '${want}'`);
                if (want === null && !new RegExp(`^-?\\d\\.\\d{${n}}e-?\\d+$`).test(x.text)) bad.push(`digits ${n}: shows '${x.text}' for ${x.value}, expected a mantissa with ${n} digits and an exponent`);
            }
            await setDigits(old);
            h.ok(bad.length === 0, this.name('the precision dialog sets the digits of the tree values'), bad);
        });

        await this.colourChecks(m, root);
        await this.menuChecks(m, root);
        await hiding.run(this, m, root);

        // --- topologies ----------------------------------------------------------------
        const ntopo = defs.topologies ? defs.topologies.length : 0;
        for (let k = 0; k < Math.min(ntopo, 3); k++) {
            const topo = d.topologies.filter((t) => t.topology === k);
            await this.step(`topology ${k}`, async () => {
                await v.select('call', c1);
                await v.tab('system', `topo-${k}`);
                const cells = await v.page.evaluate((sel) => [...document.querySelectorAll(sel + ' .topology .cell')]
                    .filter((c) => (c.checkVisibility ? c.checkVisibility() : true))
                    .map((c) => ({ coord: c.dataset.coord, id: Number(c.dataset.id), value: c.dataset.value, fill: c.getAttribute('fill') || getComputedStyle(c).fill })),
                v.pane('system'));
                const coords = new Set(cells.map((c) => c.coord));
                const want = new Map(topo.map((t) => [t.coords, t]));
                const wrong = cells.filter((c) => {
                    const t = want.get(c.coord);
                    if (!t) return true;
                    const s = defs.system[c.id];
                    return !s || s.kind !== t.kind || s.index !== t.id;
                });
                h.ok(cells.length === topo.length && coords.size === cells.length && wrong.length === 0,
                    this.name(`topology ${k}: one cell per coordinate (${topo.length}), each the ${topo.length ? topo[0].kind : 'item'} cube_dump -w topologies places there`),
                    [`cells ${cells.length}, distinct coordinates ${coords.size}, expected ${topo.length}`,
                        ...wrong.slice(0, 3).map((c) => `cell ${c.coord}: system ${c.id}`)]);
                if (topo.length && topo[0].kind === 'thread') {
                    const per = this.perThread(m, c1, 'incl', (await v.nodeState('call', c1)).expanded ? 'excl' : 'incl', 'absolute');
                    this.compare(`topology ${k}: cell values = cube_dump per thread`, cells.map((c) => ({ id: c.id, value: c.value })),
                        (r) => (defs.system[r.id] && defs.system[r.id].kind === 'thread' ? per.get(defs.system[r.id].index) : undefined));
                    const lg = await v.page.evaluate((sel) => {
                        const e = document.querySelector(sel + ' .topo-box:not([hidden]) .topo-legend, ' + sel + ' .topo-legend');
                        return e && e.dataset.min !== '' ? { min: Number(e.dataset.min), max: Number(e.dataset.max) } : null;
                    }, v.pane('system'));
                    if (lg) {
                        const bad = cells.filter((c) => !sameColour(c.fill, expectedColour(pageNumber(c.value), lg.min, lg.max)));
                        h.ok(bad.length === 0, this.name(`topology ${k}: the cells' colours match the topology's legend`),
                            bad.slice(0, 4).map((c) => `cell ${c.coord} value ${c.value}: ${c.fill}, legend ${lg.min}..${lg.max} gives ${expectedColour(pageNumber(c.value), lg.min, lg.max)}`));
                    }
                }
                await v.shot(h, `${this.label}-topology-${k}`);
                await v.tab('system', 'tree');
            });
        }
    }
    // --- colours per metric root and the colour settings dialog ------------------
    async colourChecks(m, root) {
        const h = this.h, v = this.v, defs = this.defs, d = this.d;
        await this.step('metric colours per root', async () => {
            await v.setOrder('metric,call,system');
            await v.select('metric', m);
            // the metric pane (leftmost): each metric's total over every call path
            // and thread, collapsed (inclusive) and expanded (exclusive)
            const totals = (x) => {
                const by = new Map();
                for (const r of h.dump(this.file, ['-t', 'aggr', '-x', x, '-z', 'incl', '-c', 'roots'])) {
                    if (!by.has(r.metric)) by.set(r.metric, []);
                    by.get(r.metric).push(r.value);
                }
                return (i) => { const l = by.get(defs.metrics[i].uniq); return l ? combine(defs.metrics[i].combine || 'sum', l) : null; };
            };
            const incl = totals('incl'), excl = totals('excl');
            const rootOf = (i) => { while (defs.metrics[i].parent >= 0) i = defs.metrics[i].parent; return i; };
            const usable = (i) => defs.metrics[i].kind === 'stored' && incl(i) !== null && excl(i) !== null;
            // the documented scale of a root in absolute mode: from min(0, smallest) to
            // max(0, largest) of the inclusive and exclusive totals of its metrics
            const ranges = new Map();
            defs.metrics.forEach((x, i) => {
                const r = rootOf(i);
                if (!ranges.has(r)) ranges.set(r, { lo: 0, hi: 0, ok: true });
                const g = ranges.get(r);
                if (!usable(i)) { g.ok = false; return; }
                g.lo = Math.min(g.lo, incl(i), excl(i)); g.hi = Math.max(g.hi, incl(i), excl(i));
            });
            const rows = await v.page.evaluate((sel) => [...document.querySelectorAll(sel + ' li.node')].map((li) => {
                const e = li.querySelector('.value');
                return { id: Number(li.dataset.id), value: e.dataset.value, min: e.dataset.min, max: e.dataset.max, colour: getComputedStyle(e).backgroundColor };
            }), v.pane('metric'));
            const bad = [];
            let n = 0;
            for (const r of rows) {
                const g = ranges.get(rootOf(r.id));
                if (r.min === undefined || r.max === undefined) { bad.push(`metric ${r.id}: .value without data-min/data-max`); continue; }
                const lo = Number(r.min), hi = Number(r.max);
                if (g && g.ok) {
                    n++;
                    const f = floorOf([g.lo, g.hi]);
                    if (!near(lo, g.lo, f) || !near(hi, g.hi, f)) bad.push(`metric ${r.id}: scale ${lo}..${hi}, its root's totals give ${g.lo}..${g.hi}`);
                }
                const want = expectedColour(pageNumber(r.value), lo, hi);
                if (!sameColour(r.colour, want)) bad.push(`metric ${r.id} value ${r.value}: colour ${r.colour}, its scale ${lo}..${hi} gives ${want}`);
            }
            h.ok(n > 0 && bad.length === 0, this.name(`metric tree: ${rows.length} nodes coloured over their own root's range (${n} checked against cube_dump's totals)`), bad.slice(0, 5));
            const lg = await v.legend('metric');
            const mine = rows.find((r) => r.id === m);
            h.ok(lg && mine && lg.min === Number(mine.min) && lg.max === Number(mine.max),
                this.name(`the metric pane's legend is the range of the selected metric's root`),
                [`legend ${lg && lg.min}..${lg && lg.max}, metric ${m}: ${mine && mine.min}..${mine && mine.max}`]);
        });

        await this.step('colour settings', async () => {
            const setColours = async (vals) => {
                await v.page.click('#colours-open');
                for (const [k, x] of Object.entries(vals)) {
                    if (k === 'method') await v.page.selectOption('#colours select[name="method"]', x);
                    else await v.page.fill(`#colours input[name="${k}"]`, String(x));
                }
                await v.page.click('#colours button[value="ok"]');
                await v.idle();
            };
            const nodes = async () => (await v.read('call')).filter((r) => r.value !== '' && Math.abs(pageNumber(r.value)) > 1e-9);
            const before = await nodes();
            if (!h.ok(before.length > 0, this.name('call nodes with values for the colour settings'))) return;
            const val = Math.abs(pageNumber(before[0].value));
            // user-defined scale: 0 .. 2x the first node's value; the node sits in the middle
            const umax = 2 * val;
            await setColours({ userMin: 0, userMax: umax });
            let rows = await nodes();
            const userColour = (x) => (x < 0 || x > umax ? 'rgb(192, 192, 192)' : expectedColour(x, 0, umax));
            let bad = rows.filter((r) => !sameColour(r.colour, userColour(pageNumber(r.value)))).map((r) => `id ${r.id} value ${r.value}: ${r.colour}, expected ${userColour(pageNumber(r.value))}`);
            const lg = await v.legend('call');
            const text = await v.page.$eval(`${v.pane('call')} .selected-value`, (e) => e.textContent);
            h.ok(bad.length === 0 && lg && lg.min === 0 && lg.max === umax && /\(u\)/.test(text),
                this.name(`user-defined minimum 0 and maximum ${umax}: node colours follow that scale (grey outside it), the legend says (u)`),
                [...bad.slice(0, 4), `legend ${lg && lg.min}..${lg && lg.max}, widget '${text}'`]);
            // methods: between two neighbouring colours (a quarter of the scale
            // each by default) the share of the second is f^2 (quadratic 1)
            await setColours({ method: 'quadratic1' });
            rows = (await nodes()).filter((r) => pageNumber(r.value) <= umax);
            bad = rows.filter((r) => !sameColour(r.colour, `rgb(${hiding.colourAt(pageNumber(r.value), 0, umax, undefined, 'quadratic1').join(', ')})`))
                .map((r) => `id ${r.id} value ${r.value}: ${r.colour}`);
            h.ok(rows.length > 0 && bad.length === 0, this.name('colouring method quadratic 1: f^2 of the way between two neighbouring colours'), bad.slice(0, 4));
            // white below a percentage of the scale: the first node is at 50%
            await setColours({ method: 'linear', whiteBelow: 60 });
            const st = await v.nodeState('call', before[0].id);
            await setColours({ whiteBelow: 40 });
            const st2 = await v.nodeState('call', before[0].id);
            h.ok(sameColour(st.colour, 'rgb(255, 255, 255)') && sameColour(st2.colour, expectedColour(val, 0, umax)),
                this.name('white below 60% of the scale whitens a node at 50%, below 40% does not'), [`${st.colour}, ${st2.colour}`]);
            // lighten below 100%: a node at 50% is mixed with 0.8 (1 - 50/100) = 40% white
            await setColours({ whiteBelow: 0, lighten: 100 });
            const st3 = await v.nodeState('call', before[0].id);
            const mix = (c) => `rgb(${(c.match(/\d+/g) || []).slice(0, 3).map((x) => Math.round(Number(x) + (255 - Number(x)) * 0.4)).join(', ')})`;
            const wantL = mix(expectedColour(val, 0, umax));
            h.ok(sameColour(st3.colour, wantL), this.name('lighten below 100% mixes a node at 50% of the scale with 40% white'), [`${st3.colour}, expected ${wantL}`]);
            await setColours({ lighten: 0 });
            await v.shot(h, `${this.label}-colours`);
            await v.page.click('#colours-open');
            await v.shot(h, `${this.label}-colours-dialog`);
            await v.page.click('#colours [data-role="cancel"]');
            await setColours({ whiteBelow: 0, userMin: '', userMax: '' });
            const back = await v.legend('call');
            const rows2 = await nodes();
            h.ok(back && !(back.min === 0 && back.max === umax) && rows2.every((r) => sameColour(r.colour, expectedColour(pageNumber(r.value), back.min, back.max))),
                this.name('clearing the user-defined scale returns to the legend\'s range'), [`legend ${back && back.min}..${back && back.max}`]);
        });
    }

    // --- the context menu of tree nodes -------------------------------------------
    async menu(kind, id, action) {
        const v = this.v;
        await v.reveal(kind, id);
        await v.page.locator(v.nodeSel(kind, id)).locator('.label').first().click({ button: 'right' });
        const vis = await v.page.$eval('#context-menu', (e) => !e.hidden);
        if (!vis) throw new Error(`right click on ${kind} node ${id}: no #context-menu`);
        await v.page.click(`#context-menu button[data-action="${action}"]`);
        await v.idle();
    }
    async menuChecks(m, root) {
        const h = this.h, v = this.v, defs = this.defs;
        const kids = (i) => defs.cnodes.map((c, j) => j).filter((j) => defs.cnodes[j].parent === i);
        const subtree = (i) => { const out = [i]; for (let k = 0; k < out.length; k++) out.push(...kids(out[k])); return out; };
        const depth = (i) => { let n = 0; for (let p = defs.cnodes[i].parent; p >= 0; p = defs.cnodes[p].parent) n++; return n; };
        const shown = async () => v.page.evaluate((sel) => Object.fromEntries([...document.querySelectorAll(sel + ' li.node')].map((li) => [li.dataset.id, li.dataset.expanded === 'true'])), v.pane('call'));
        const collapseAll = async () => { await v.page.click(`${v.pane('call')} [data-role="collapse-all"]`); await v.idle(); };
        await v.setOrder('metric,call,system');
        await v.select('metric', m);
        const all = subtree(root);
        const inner = all.filter((i) => kids(i).length > 0);
        if (inner.length === 0 || inner.length >= 2000) { h.skip(this.name('context menu on the call tree'), `${inner.length} inner call paths under the root`); return; }

        await this.step('context menu: expand subtree, collapse subtree', async () => {
            await collapseAll();
            await this.menu('call', root, 'expand-subtree');
            let s = await shown();
            const missing = all.filter((i) => !(String(i) in s) || (kids(i).length > 0 && !s[i]));
            h.ok(missing.length === 0, this.name(`"Expand subtree" on the root shows its ${all.length} call paths, every inner one expanded`), [`not shown or collapsed: ${missing.slice(0, 8).join(' ')}`]);
            await v.shot(h, `${this.label}-expanded`);
            await this.menu('call', root, 'collapse-subtree');
            s = await shown();
            const left = all.filter((i) => i !== root && String(i) in s);
            h.ok(s[root] === false && left.length === 0, this.name('"Collapse subtree" collapses the root and hides its descendants'), [`root expanded ${s[root]}, still shown ${left.slice(0, 8).join(' ')}`]);
            await v.setExpanded('call', root, true);
            s = await shown();
            const still = kids(root).filter((i) => s[i]);
            h.ok(still.length === 0, this.name('after "Collapse subtree" the children are collapsed too'), [`expanded: ${still.join(' ')}`]);
        });

        // peers: the inner call paths at one depth with at least two of them
        const byDepth = new Map();
        for (const i of inner) { const k = depth(i); if (!byDepth.has(k)) byDepth.set(k, []); byDepth.get(k).push(i); }
        const level = [...byDepth.entries()].find(([, l]) => l.length >= 2);
        if (level) {
            await this.step('context menu: collapse peers', async () => {
                await collapseAll();
                await this.menu('call', root, 'expand-subtree');
                const [dep, peers] = level;
                const me = peers[0];
                await this.menu('call', me, 'collapse-peers');
                const s = await shown();
                const bad = peers.filter((i) => i !== me && s[i] !== false);
                const deeper = inner.filter((i) => depth(i) < dep && s[i] !== true);
                h.ok(s[me] === true && bad.length === 0 && deeper.length === 0,
                    this.name(`"Collapse peers" on call path ${me} collapses its ${peers.length - 1} peers at depth ${dep}, keeps it and the levels above expanded`),
                    [`self ${s[me]}, peers not collapsed: ${bad.join(' ')}, upper levels collapsed: ${deeper.join(' ')}`]);
            });
        }

        await this.step('context menu: expand largest', async () => {
            await collapseAll();
            const agg = this.aggr(m, 'incl', 'incl', 'absolute');
            const from = kids(root).find((i) => kids(i).length > 0) ?? root;
            await this.menu('call', from, 'expand-largest');
            const s = await shown();
            const mark = await v.page.evaluate((sel) => { const e = document.querySelector(sel + ' li.node.largest'); return e ? Number(e.dataset.id) : null; }, v.pane('call'));
            // down from `from`, each time to the child with the largest inclusive
            // value (ties within rounding: the one the page expanded or marked)
            const bad = [];
            let cur = from;
            for (;;) {
                const k = kids(cur).filter((i) => agg.get(i) !== null && agg.get(i) !== undefined);
                if (!k.length) { if (cur !== mark) bad.push(`path ends at ${cur}, marked ${mark}`); break; }
                if (s[cur] !== true) { bad.push(`${cur} on the path is not expanded`); break; }
                const best = Math.max(...k.map((i) => agg.get(i)));
                const cands = k.filter((i) => agg.get(i) >= best - 1e-9 * Math.abs(best));
                const next = cands.find((i) => s[i] === true || i === mark);
                if (next === undefined) { bad.push(`none of the largest children ${cands.join(' ')} of ${cur} expanded or marked`); break; }
                cur = next;
            }
            h.ok(bad.length === 0, this.name(`"Expand largest" on call path ${from} expands the path to its largest descendant (cube_dump -x incl) and marks it`), bad.slice(0, 4));
        });

        await this.step('context menu: info, ContextMenu key, Escape', async () => {
            await collapseAll();
            const c = kids(root).find((i) => defs.cnodes[i].line > 0) ?? root;
            await v.select('call', c);
            await this.menu('call', c, 'info');
            const info = await v.page.$eval('#node-info', (e) => ({ open: !e.hidden, text: e.textContent, id: e.dataset.id }));
            const r = defs.regions[defs.cnodes[c].region];
            const wantSite = defs.cnodes[c].line > 0;
            h.ok(info.open && info.id === String(c) && info.text.includes(r.name) && (!wantSite || info.text.includes('Call site') && info.text.includes(':' + defs.cnodes[c].line)),
                this.name(`"Info" on call path ${c} shows its region${wantSite ? ' and call site' : ''}`), [`'${info.text}'`]);
            await v.shot(h, `${this.label}-info`);
            await v.page.keyboard.press('Escape');
            const closed = await v.page.$eval('#node-info', (e) => e.hidden);
            await v.page.focus(`${v.pane('call')} .tree-box`);
            await v.page.keyboard.press('ContextMenu');
            const menuOpen = await v.page.$eval('#context-menu', (e) => !e.hidden);
            await v.shot(h, `${this.label}-context-menu`);
            await v.page.keyboard.press('Escape');
            const menuClosed = await v.page.$eval('#context-menu', (e) => e.hidden);
            h.ok(closed && menuOpen && menuClosed, this.name('Escape closes the info panel; the ContextMenu key opens the menu of the cursor node, Escape closes it'),
                [`info closed ${closed}, menu opened ${menuOpen}, closed ${menuClosed}`]);
            await v.select('call', root);
        });
    }

    perThreadAll(m, flavourZ, mode, threads) {
        const rows = this.h.dump(this.file, ['-m', this.d.metrics[m].uniq_name, '-z', flavourZ, `--mode=${mode}`, '-t', threads]);
        return new Map(rows.map((r) => [this.d.cnodeIndex.get(r.cnode_id), r.value]));
    }
    // expand the system tree down to the threads (at most 40 processes)
    async revealThreads() {
        const defs = this.defs;
        const threads = defs.system.map((s, i) => ({ s, i })).filter(({ s }) => s.kind === 'thread').slice(0, 40);
        for (const { i } of threads) await this.v.reveal('system', i);
    }
}

function partColumn(part) { return part === 'excl' ? 'exclusive' : part === 'sub' ? 'subroutines' : 'inclusive'; }

// the legend's gradient (cube_view(1)): blue, cyan, green, yellow, red at
// equal distances over [min, max]; white for undefined, 0 and magnitudes
// below the zero threshold (10^-9 by default)
const STOPS = [[0, 0, 255], [0, 255, 255], [0, 255, 0], [255, 255, 0], [255, 0, 0]];
function expectedColour(v, min, max, zeroThreshold = 9) {
    if (Number.isNaN(v) || Math.abs(v) < Math.pow(10, -zeroThreshold)) return 'rgb(255, 255, 255)';
    let t = max > min ? (v - min) / (max - min) : 1;
    t = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
    const k = Math.min(STOPS.length - 2, Math.floor(t)), f = t - k;
    const c = STOPS[k].map((a, j) => Math.round(a + (STOPS[k + 1][j] - a) * f));
    return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}
function sameColour(a, b) {
    const p = (s) => (String(s).match(/\d+(\.\d+)?/g) || []).slice(0, 3).map(Number);
    const x = p(a), y = p(b);
    return x.length === 3 && y.length === 3 && x.every((c, i) => Math.abs(c - y[i]) <= 3);
}

module.exports = { FileChecks, MODES, expectedColour, dumpDefs, structureMatches, pickMetric, pickDeep, hasChildren };
