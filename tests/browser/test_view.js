'use strict';
// Embedded pages: cube_view FILE -o PAGE.html for shipped experiments, each
// opened from file:// in headless Chromium and checked against cube_dump.
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { View } = require('./lib');
const { FileChecks } = require('./checks');

// label, file, extra cube_view arguments
const FILES = [
    ['kojak', 'testdata/cube/kojak-expert_ctest-pomp.cube', []],
    ['scorep-profile', 'testdata/cube/scorep-1.1_profile.cube', []],
    ['bgpBT-topologies', 'testdata/cube/scalasca-bgpBT_experiment1.cube', []],
    ['tau2cube', 'testdata/cube/tau2cube_template1.cube', []],
    ['minmax', 'testdata/views/minmax.cube', []],
    ['trace-stat', 'testdata/cube/scalasca_trace.cube', ['--stat', 'testdata/statfile/scalasca.stat']],
    ['cubex-bgpBT', 'testdata/cubex/cube3to4_scalasca-bgpBT_experiment1.cubex', []],
    ['cubex-derived', 'testdata/cubex/cubederive_scorep-1.1_profile.cubex', []],
    ['cubex-call-tree-test', 'testdata/cubex/scorep-8.4_call_tree_test.cubex', []],
    ['cubex-minimal', 'testdata/cubex/mkcubex_minimal.cubex', []],
];

async function statChecks(h, view, label, statFile) {
    const patterns = JSON.parse(h.run('cube_statfile', ['-s', 'json', statFile]));
    const shown = await view.page.evaluate(() => [...document.querySelectorAll('svg.boxplot [data-pattern]')].map((e) => e.dataset.pattern));
    const names = [...new Set(shown)];
    const want = patterns.filter((p) => p.count > 0).map((p) => p.pattern);
    h.ok(want.every((n) => names.includes(n)), `${label}: the box plot shows every pattern of the statistics file with instances (${want.length})`,
        [`shown: ${names.join(' ')}`, `expected: ${want.join(' ')}`]);
    const rows = await view.page.evaluate(() => document.querySelectorAll('.instances tr, .instances li').length);
    h.ok(rows > 0, `${label}: a table of the most severe instances`, [`rows: ${rows}`]);
    await view.shot(h, `${label}-stat`);
}

async function run(h, dir) {
    const exe = h.tool('cube_view');
    if (!h.ok(fs.existsSync(exe), `${exe} exists`)) return;
    for (const [label, file, extra] of FILES) {
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
        await new FileChecks(h, view, file, label).run();
        const stat = extra[extra.indexOf('--stat') + 1];
        if (extra.includes('--stat')) {
            try { await statChecks(h, view, label, stat); } catch (e) { h.fail(`${label}: statistics`, e); }
        }
        h.ok(opened.errors.length === 0, `${label}: no console errors, page errors or requests outside the page`, opened.errors.slice(0, 6));
        await opened.page.close();
    }
}

module.exports = { run, FILES };
