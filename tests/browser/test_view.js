'use strict';
// Embedded pages: cube_view FILE -o PAGE.html for shipped experiments, each
// opened from file:// in headless Chromium and checked against cube_dump.
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { View } = require('./lib');
const { FileChecks } = require('./checks');
const { topologyChecks } = require('./checks_topo');

// label, file, extra cube_view arguments, options of the checks (the metric
// to browse, the external file)
const FILES = [
    ['kojak', 'testdata/cube/kojak-expert_ctest-pomp.cube', []],
    ['scorep-profile', 'testdata/cube/scorep-1.1_profile.cube', []],
    ['scorep-external', 'testdata/cube/scorep-1.1_profile.cube', ['--external', 'testdata/cube/scalasca_trace.cube'],
        { metric: 'time', external: 'testdata/cube/scalasca_trace.cube' }],
    ['bgpBT-topologies', 'testdata/cube/scalasca-bgpBT_experiment1.cube', []],
    ['tau2cube', 'testdata/cube/tau2cube_template1.cube', []],
    ['minmax', 'testdata/views/minmax.cube', []],
    ['topology', 'testdata/views/topology.cube', []],
    ['trace-stat', 'testdata/cube/scalasca_trace.cube', ['--stat', 'testdata/statfile/scalasca.stat']],
    ['cubex-bgpBT', 'testdata/cubex/cube3to4_scalasca-bgpBT_experiment1.cubex', []],
    ['cubex-derived', 'testdata/cubex/cubederive_scorep-1.1_profile.cubex', []],
    ['cubex-call-tree-test', 'testdata/cubex/scorep-8.4_call_tree_test.cubex', []],
    ['cubex-minimal', 'testdata/cubex/mkcubex_minimal.cubex', []],
    // values that combine by their components (main / duration, the mean of
    // all samples, |re, im|) over all threads and along the call tree
    ['values-rate', 'testdata/cubex/cubelib-4.8.2_cube-values_example.cubex', [], { metric: 'RATE' }],
    ['values-tau-atomic', 'testdata/cubex/cubelib-4.8.2_cube-values_example.cubex', [], { metric: 'TAU_ATOMIC' }],
    ['values-complex', 'testdata/cubex/cubelib-4.8.2_cube-values_example.cubex', [], { metric: 'COMPLEX' }],
];

// the pages whose topology display (tool bar, mouse, menu) is checked
const TOPOLOGY_PAGES = ['bgpBT-topologies', 'topology'];

// the statistics: the pattern of a selected metric, and each pattern chosen
// in the pattern list, drawn as a box plot with its instances listed
async function statChecks(h, view, label, statFile) {
    const patterns = JSON.parse(h.run('cube_statfile', ['-s', 'json', statFile], { stdio: ['ignore', 'pipe', 'pipe'] }));
    const defs = await view.defs();
    const shown = () => view.page.evaluate(() => ({
        plots: [...document.querySelectorAll('svg.boxplot [data-pattern]')].map((e) => e.dataset.pattern),
        rows: [...document.querySelectorAll('.instances tr[data-pattern]')].map((e) => e.dataset.pattern),
    }));
    const m = defs.metrics.findIndex((x) => patterns.some((p) => p.count > 0 && (p.metric === x.uniq || p.pattern === x.uniq)));
    if (m >= 0) {
        await view.select('metric', m);
        const s = await shown();
        const want = patterns.filter((p) => p.metric === defs.metrics[m].uniq || p.pattern === defs.metrics[m].uniq);
        h.ok(want.every((p) => s.plots.includes(p.pattern)) && s.rows.length === want.reduce((a, p) => a + p.instances, 0),
            `${label}: selecting metric ${defs.metrics[m].uniq} shows the box plot of its pattern and its ${want.reduce((a, p) => a + p.instances, 0)} most severe instances`,
            [`box plot of: ${s.plots.join(' ')}; instance rows: ${s.rows.length}`]);
        await view.shot(h, `${label}-stat`);
    } else {
        h.ok(false, `${label}: a metric of the experiment has a pattern of the statistics file`);
    }
    const sel = 'select[data-role="pattern"]';
    const options = await view.page.evaluate((q) => { const e = document.querySelector(q); return e ? [...e.options].map((o) => [o.value, o.textContent]) : null; }, sel);
    if (!h.ok(options && options.length > 0, `${label}: a pattern list (select[data-role=pattern])`)) return;
    const bad = [];
    for (const p of patterns) {
        const o = options.find(([, t]) => t === p.pattern);
        if (!o) { bad.push(`${p.pattern}: not in the list`); continue; }
        await view.page.selectOption(sel, o[0]);
        await view.idle();
        const s = await shown();
        if (!s.plots.includes(p.pattern)) bad.push(`${p.pattern}: no box plot`);
        const n = s.rows.filter((x) => x === p.pattern).length;
        if (n !== p.instances) bad.push(`${p.pattern}: ${n} instance rows, cube_statfile lists ${p.instances}`);
    }
    h.ok(bad.length === 0, `${label}: each of the ${patterns.length} patterns chosen in the list shows its box plot and its instances`, bad);
    await view.page.selectOption(sel, '');
    await view.idle();
}

// the source view: minmax.cube's region main is in m.c, lines 1-9, a name
// relative to the experiment's folder; with m.c beside a copy of it the page
// carries the lines and marks the begin line
async function sourceCheck(h, dir) {
    const label = 'source';
    const sub = path.join(dir, 'source');
    fs.mkdirSync(sub, { recursive: true });
    fs.copyFileSync('testdata/views/minmax.cube', path.join(sub, 'minmax.cube'));
    fs.writeFileSync(path.join(sub, 'm.c'), Array.from({ length: 40 }, (_, i) => `source line ${i + 1}`).join('\n') + '\n');
    const out = path.join(dir, 'source.html');
    h.run('cube_view', [path.join(sub, 'minmax.cube'), '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    const opened = await h.open(pathToFileURL(out).href);
    const view = new View(opened.page);
    const defs = await view.defs();
    const root = defs.cnodes.findIndex((c) => defs.regions[c.region].name === 'main');
    await view.select('call', root);
    const src = await opened.page.evaluate(() => {
        const e = document.querySelector('#source');
        const cur = e && e.querySelector('.current');
        return { text: e ? e.textContent : null, current: cur ? cur.textContent : null, pre: !!(e && e.querySelector('pre')) };
    });
    h.ok(src.pre && src.current !== null && src.current.includes('source line 1') && !src.current.includes('source line 10') &&
        src.text.includes('source line 9'),
    `${label}: with the region's file beside the experiment, the source view shows its lines and marks the begin line`,
    [`#source: pre ${src.pre}, current '${src.current}', text '${(src.text || '').slice(0, 120)}'`]);
    await view.shot(h, `${label}-view`);
    h.ok(opened.errors.length === 0, `${label}: no console errors, page errors or requests outside the page`, opened.errors.slice(0, 6));
    await opened.page.close();
}

async function run(h, dir) {
    const exe = h.tool('cube_view');
    if (!h.ok(fs.existsSync(exe), `${exe} exists`)) return;
    for (const [label, file, extra, opts] of FILES) {
        if (process.env.BROWSER_ONLY && !new RegExp(process.env.BROWSER_ONLY).test(label)) continue;
        const out = path.join(dir, label + '.html');
        try {
            h.run('cube_view', [...extra, file, '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
        } catch (e) {
            h.fail(`${label}: cube_view ${[...extra, file].join(' ')} -o PAGE writes the page`, (e.stderr || e.message));
            continue;
        }
        let opened;
        try {
            opened = await h.open(pathToFileURL(out).href);
        } catch (e) {
            h.fail(`${label}: the page opens and window.cubeViewReady resolves`, e);
            continue;
        }
        h.ok(true, `${label}: the page opens and window.cubeViewReady resolves (${opened.openMs} ms)`);
        const view = new View(opened.page);
        await new FileChecks(h, view, file, label, opts || {}).run();
        const stat = extra[extra.indexOf('--stat') + 1];
        if (extra.includes('--stat')) {
            try { await statChecks(h, view, label, stat); } catch (e) { h.fail(`${label}: statistics`, e); }
        }
        h.ok(opened.errors.length === 0, `${label}: no console errors, page errors or requests outside the page`, opened.errors.slice(0, 6));
        await opened.page.close();
        // the topology display, on a page of its own
        if (TOPOLOGY_PAGES.includes(label)) await topologyChecks(h, pathToFileURL(out).href, file, label);
    }
    if (!process.env.BROWSER_ONLY || new RegExp(process.env.BROWSER_ONLY).test('source')) {
        try { await sourceCheck(h, dir); } catch (e) { h.fail('source: the source view', e); }
    }
}

module.exports = { run, FILES };
