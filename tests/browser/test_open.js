'use strict';
// Files opened in a page through its File menu (cube_view(1), FILE MENU):
// every shipped CUBE 3 file the embedded pages use, opened through the file
// input in a page written for another experiment, a gzip copy, a page written
// by cube_view and the external file of the external mode, each checked
// against cube_dump; malformed files give one message naming the file and no
// console error; Ctrl+O, Close, and Open in a served page.
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { pathToFileURL } = require('url');
const { View, near, pageNumber, combine } = require('./lib');
const { FileChecks, dumpDefs, structureMatches, pickMetric, pickDeep, hasChildren } = require('./checks');
const { FILES } = require('./test_view');
const { startServer } = require('./test_serve');

// the CUBE 3 experiments of the embedded pages, each once
const CUBE3 = [...new Set(FILES.map(([, f]) => f).filter((f) => /\.cube(\.gz)?$/.test(f)))];

function wanted(label) { return !process.env.BROWSER_ONLY || new RegExp(process.env.BROWSER_ONLY).test(label); }

// choose FILE in the page's file input (data-role open or open-external) and
// wait until the page has shown it or said why not: window.cubeViewLoad
async function choose(view, file, role = 'open') {
    await view.page.setInputFiles(`input[type="file"][data-role="${role}"]`, file);
    return settle(view);
}
async function settle(view) {
    await view.page.waitForFunction(() => window.cubeViewLoad && window.cubeViewLoad.state !== 'loading', null, { timeout: 60000 });
    const load = await view.page.evaluate(() => window.cubeViewLoad);
    if (load.state === 'done') {
        await view.page.evaluate(() => window.cubeViewReady);
        await view.idle();
    }
    view._defs = null;
    return load;
}

// the page's file and definitions against cube_dump's, then the call pane in
// `modes`, the metric pane (every metric, absolute: dtypes and VOID metrics as
// cube_dump combines them) and the system pane per thread in absolute and
// peer percent (of `metric`, by default one checks.js picks)
async function openedChecks(h, view, file, label, modes = ['absolute', 'ownroot', 'metricroot'], metric = null) {
    const fc = new FileChecks(h, view, file, label);
    const d = fc.d = dumpDefs(h, file);
    const defs = fc.defs = await view.defs();
    const bad = structureMatches(defs, d);
    if (!h.ok(bad.length === 0, `${label}: the opened file defines the metrics, call paths, regions and threads cube_dump lists`, bad)) return;
    const badTypes = d.metrics.filter((m, i) => defs.metrics[i].dtype !== m.dtype ||
        (defs.metrics[i].kind === 'void') !== (m.val === 'VOID') || defs.metrics[i].name !== m.disp_name)
        .map((m) => `${m.uniq_name}: page ${JSON.stringify(defs.metrics[d.metrics.indexOf(m)])}, cube_dump ${m.dtype} val '${m.val}'`);
    h.ok(badTypes.length === 0, `${label}: every metric's name, data type and VOID mark as cube_dump lists them`, badTypes.slice(0, 4));
    const tops = d.topologies || [];
    const topoBad = [];
    const nTop = new Set(tops.map((t) => t.topology)).size;
    if (nTop !== defs.topologies.length) topoBad.push(`topologies: page ${defs.topologies.length}, cube_dump ${nTop}`);
    else defs.topologies.forEach((t, k) => {
        const rows = tops.filter((r) => r.topology === k);
        if (rows.length && rows[0].dims !== t.dims.map((x) => x.size).join(',')) topoBad.push(`topology ${k}: dims ${t.dims.map((x) => x.size)} vs ${rows[0].dims}`);
        const a = t.cells.map((c) => c.slice(1).join(',')), b = rows.map((r) => r.coords);
        if (a.join(' ') !== b.join(' ')) topoBad.push(`topology ${k}: ${a.length} cells, cube_dump ${b.length} coordinates (or other ones)`);
    });
    h.ok(topoBad.length === 0, `${label}: the topologies and their coordinates as cube_dump lists them (${defs.topologies.length})`, topoBad.slice(0, 4));

    const m = metric ? d.metrics.findIndex((x) => x.uniq_name === metric) : pickMetric(d), mname = d.metrics[m].uniq_name;
    const deep = pickDeep(d);
    await fc.step('select the metric', () => view.select('metric', m));
    await fc.step('reveal a deep call path', () => view.reveal('call', deep));
    for (const mode of modes) {
        await fc.step(`call pane, mode ${mode}`, async () => {
            await view.setMode('call', mode);
            const rows = (await view.read('call')).filter((r) => !r.part);
            const inc = fc.aggr(m, 'incl', 'incl', mode), exc = fc.aggr(m, 'incl', 'excl', mode);
            fc.compare(`call pane, metric ${mname}, mode ${mode} = cube_dump -t aggr -z incl|excl --mode=${mode}`,
                rows, (r) => (r.expanded && hasChildren(defs, r.id) ? exc : inc).get(r.id));
        });
    }
    await fc.step('call pane absolute', () => view.setMode('call', 'absolute'));

    await fc.step('metric pane totals', async () => {
        await view.setMode('metric', 'absolute');
        for (let i = 0; i < defs.metrics.length; i++) await view.reveal('metric', i);
        const totalOf = (i, x) => {
            const dm = d.metrics[i];
            if (dm.val === 'VOID' || /DERIVED/.test(dm.kind || '')) return undefined;
            const rows = h.dump(file, ['-m', dm.uniq_name, '-t', 'aggr', '-x', x, '-z', 'incl', '-c', 'roots']);
            return combine(defs.metrics[i].combine || 'sum', rows.map((r) => r.value));
        };
        const rows = await view.read('metric');
        const scale = Math.max(0, ...rows.map((r) => Math.abs(totalOf(r.id, 'incl') || 0)));
        fc.compare(`metric pane: every metric's total (collapsed inclusive, expanded exclusive; sums, maxima, minima by dtype) = cube_dump -t aggr -c roots`,
            rows, (r) => totalOf(r.id, r.expanded ? 'excl' : 'incl'), scale);
        await view.setExpanded('metric', m, false);
        await view.select('metric', m);
    });

    const root = d.calltree.findIndex((c) => c.parent_id === null);
    const c1 = hasChildren(defs, deep) ? deep : (defs.cnodes[deep].parent >= 0 ? defs.cnodes[deep].parent : root);
    await fc.step('system pane', async () => {
        await view.setExpanded('call', c1, false);
        await view.select('call', c1);
        await fc.revealThreads();
        for (const mode of ['absolute', 'peer']) {
            await view.setMode('system', mode);
            const rows = fc.threadRows(await view.read('system'), defs);
            const want = fc.perThread(m, c1, 'incl', 'incl', mode);
            fc.compare(`system pane, metric ${mname}, call path ${c1}, mode ${mode} = cube_dump per thread --mode=${mode}`,
                rows, (r) => want.get(defs.system[r.id].index));
        }
        await view.setMode('system', 'absolute');
    });
    return fc;
}

async function title(view) { return view.page.evaluate(() => document.getElementById('title').textContent); }

// a file that is not a CUBE 3 experiment: one message naming it, the shown
// experiment untouched
async function refused(h, view, file, label, words) {
    const before = await title(view);
    const load = await choose(view, file);
    const msg = await view.page.evaluate(() => {
        const e = document.getElementById('open-message');
        return { shown: e && !e.hidden, state: e && e.dataset.state, text: e ? e.textContent : '' };
    });
    const name = path.basename(file);
    h.ok(load.state === 'error' && msg.shown && msg.state === 'error' && msg.text.includes(name) && words.every((w) => msg.text.includes(w)),
        `${label}: opening ${name} shows one message naming the file and saying ${words.map((w) => `"${w}"`).join(', ')}`,
        [`state ${load.state}, message shown ${msg.shown} (${msg.state}): '${msg.text}'`]);
    const after = await title(view);
    const nodes = await view.page.evaluate(() => document.querySelectorAll('li.node').length);
    h.ok(after === before && nodes > 0, `${label}: the experiment shown before stays (${before})`, [`title now '${after}', ${nodes} tree nodes`]);
}

async function run(h, dir) {
    const pages = {};
    const page = (name, file, extra = []) => {
        if (!pages[name]) {
            pages[name] = path.join(dir, `open-base-${name}.html`);
            h.run('cube_view', [...extra, file, '-o', pages[name]], { stdio: ['ignore', 'pipe', 'pipe'] });
        }
        return pages[name];
    };
    const minmax = 'testdata/views/minmax.cube', kojak = 'testdata/cube/kojak-expert_ctest-pomp.cube';

    // --- every CUBE 3 file of the embedded pages, opened in a page of another one
    for (const file of CUBE3) {
        const label = 'open-cube3 ' + path.basename(file);
        if (wanted(label)) {
            const baseFile = file === minmax ? kojak : minmax;
            let opened;
            try {
                opened = await h.open(pathToFileURL(page(path.basename(baseFile), baseFile)).href);
                const view = new View(opened.page);
                const load = await choose(view, file);
                if (!h.ok(load.state === 'done', `${label}: opened through File > Open in the page of ${path.basename(baseFile)}`, [JSON.stringify(load)])) continue;
                const t = await title(view);
                h.ok(t.includes(path.basename(file)), `${label}: the title names the opened file`, [`'${t}'`]);
                await openedChecks(h, view, file, label);
                if (/bgpBT/.test(file)) {
                    await view.tab('system', 'topo-0');
                    const cells = await view.page.$$eval('svg.topology rect.cell, rect.cell', (e) => e.length);
                    const defs = await view.defs();
                    h.ok(cells >= defs.topologies[0].cells.length && cells > 0, `${label}: the first topology tab draws its ${defs.topologies[0].cells.length} cells`, [`${cells} rect.cell`]);
                    await view.shot(h, 'open-bgpBT-topology');
                    await view.tab('system', 'tree');
                }
                if (/kojak/.test(file)) await view.shot(h, 'open-kojak');
                h.ok(opened.errors.length === 0, `${label}: no console errors, page errors or requests outside the page`, opened.errors.slice(0, 6));
            } catch (e) {
                h.fail(`${label}: opened and checked`, e);
            } finally {
                if (opened) await opened.page.close();
            }
        }
    }

    // --- a gzip file, a cube_view page, the external file, Ctrl+O, Close, bad files
    if (wanted('open-more')) {
        let opened;
        try {
            const base = page('minmax.cube', minmax);
            opened = await h.open(pathToFileURL(base).href);
            const view = new View(opened.page);

            const gz = path.join(dir, 'scorep-1.1_profile.cube.gz');
            fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync('testdata/cube/scorep-1.1_profile.cube')));
            let load = await choose(view, gz);
            if (h.ok(load.state === 'done', 'open-gzip: a gzip-compressed CUBE 3 file opens', [JSON.stringify(load)]))
                await openedChecks(h, view, gz, 'open-gzip', ['absolute', 'metricroot']);

            // the external file: the external percentage of cube_dump --mode=external=FILE
            const ext = 'testdata/cube/scalasca_trace.cube';
            load = await choose(view, 'testdata/cube/scorep-1.1_profile.cube');
            h.ok(load.state === 'done', 'open-external: scorep-1.1_profile.cube opened over the gzip one', [JSON.stringify(load)]);
            load = await choose(view, ext, 'open-external');
            if (h.ok(load.state === 'done' && load.external, 'open-external: File > Open external takes scalasca_trace.cube', [JSON.stringify(load)])) {
                const fc = new FileChecks(h, view, 'testdata/cube/scorep-1.1_profile.cube', 'open-external', { external: ext });
                fc.d = dumpDefs(h, fc.file);
                const defs = fc.defs = await view.defs();
                const m = fc.d.metrics.findIndex((x) => x.uniq_name === 'time');
                await view.select('metric', m);
                await view.reveal('call', pickDeep(fc.d));
                const info = await view.page.$eval('#external-info', (e) => e.textContent);
                h.ok(info.includes('scalasca_trace.cube'), 'open-external: the tool bar names the external file', [`'${info}'`]);
                for (const pane of ['call', 'system']) {
                    await view.setMode(pane, 'external');
                    if (pane === 'call') {
                        const rows = (await view.read('call')).filter((r) => !r.part);
                        const inc = fc.aggr(m, 'incl', 'incl', 'external'), exc = fc.aggr(m, 'incl', 'excl', 'external');
                        fc.compare('call pane, metric time, mode external = cube_dump -t aggr --mode=external=scalasca_trace.cube',
                            rows, (r) => (r.expanded && hasChildren(defs, r.id) ? exc : inc).get(r.id));
                    } else {
                        const sel = (await view.read('call')).find((r) => r.selected), c = sel.id;
                        await fc.revealThreads();
                        const rows = fc.threadRows(await view.read('system'), defs);
                        const want = fc.perThread(m, c, 'incl', sel.expanded && hasChildren(defs, c) ? 'excl' : 'incl', 'external');
                        fc.compare(`system pane, metric time, call path ${c}, mode external = cube_dump per thread --mode=external=scalasca_trace.cube`,
                            rows, (r) => want.get(defs.system[r.id].index));
                    }
                }
                await view.shot(h, 'open-external');
                await view.page.click('#file-button');
                await view.shot(h, 'open-file-menu');
                await view.page.click('#file-menu-items [data-action="close-external"]');
                await view.idle();
                const after = await view.modeOptions('call');
                const mode = await view.page.$eval('section.pane[data-pane="call"] select[data-role="mode"]', (s) => s.value);
                h.ok(after.find((o) => o.value === 'external').disabled && mode === 'absolute',
                    'open-external: File > Close external disables the external mode and the pane returns to absolute', [`mode ${mode}`]);
            }

            // File > Screenshot: the page as shown, a PNG image of the window's size
            await view.page.click('#file-button');
            const [download] = await Promise.all([view.page.waitForEvent('download'), view.page.click('#file-menu-items [data-action="screenshot"]')]);
            const png = path.join(h.shots, 'open-screenshot-item.png');
            await download.saveAs(png);
            const img = fs.readFileSync(png);
            const size = await view.page.evaluate(() => [document.documentElement.clientWidth, document.documentElement.clientHeight]);
            h.ok(img.subarray(1, 4).toString() === 'PNG' && img.readUInt32BE(16) === size[0] && img.readUInt32BE(20) === size[1] &&
                img.length > 20000 && /^cube_view-scorep-1\.1_profile\.cube\.png$/.test(download.suggestedFilename()),
            'open-screenshot: File > Screenshot saves the page as a PNG image of the window\'s size, named after the experiment',
            [`${download.suggestedFilename()}: ${img.length} bytes, ${img.subarray(1, 4)} ${img.length > 24 ? img.readUInt32BE(16) + 'x' + img.readUInt32BE(20) : ''}, window ${size.join('x')}`]);
            h.note('screenshot ' + png);

            // a page written by cube_view (with the statistics it carries), opened by Ctrl+O
            const trace = 'testdata/cube/scalasca_trace.cube';
            const tracePage = page('trace-stat', trace, ['--stat', 'testdata/statfile/scalasca.stat']);
            await view.page.focus('body');
            const [chooser] = await Promise.all([view.page.waitForEvent('filechooser'), view.page.keyboard.press('Control+o')]);
            await chooser.setFiles(tracePage);
            load = await settle(view);
            if (h.ok(load.state === 'done', 'open-page: Ctrl+O opens the file chooser, and a page written by cube_view opens', [JSON.stringify(load)])) {
                await openedChecks(h, view, trace, 'open-page', ['absolute', 'metricsel']);
                const d = await view.defs();
                h.ok(d.stat && d.stat.patterns.length > 0 && /scalasca_trace/.test(await title(view)),
                    'open-page: the opened page keeps its experiment\'s name and its statistics', [`title '${await title(view)}'`]);
            }

            // thread ids out of definition order: a row's i-th value belongs to
            // the thread with the i-th smallest id (minmax.cube's ids 0 1 2 as 7 3 5)
            const permuted = path.join(dir, 'minmax-thread-ids.cube');
            const ids = { 0: 7, 1: 3, 2: 5 };
            fs.writeFileSync(permuted, fs.readFileSync(minmax, 'utf8').replace(/<thread Id="(\d)">/g, (all, i) => `<thread Id="${ids[i]}">`));
            load = await choose(view, permuted);
            if (h.ok(load.state === 'done', 'open-thread-ids: minmax.cube with its thread ids permuted opens', [JSON.stringify(load)]))
                await openedChecks(h, view, permuted, 'open-thread-ids', ['absolute'], 'max_t');

            // malformed and unsupported files
            const truncated = path.join(dir, 'truncated.cube');
            const whole = fs.readFileSync(kojak);
            fs.writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));
            await refused(h, view, truncated, 'open-truncated', ['not well-formed XML', 'CUBE 3']);
            await view.shot(h, 'open-error');
            await refused(h, view, 'testdata/hostile/xxe-passwd.cube', 'open-hostile', ['DOCTYPE']);
            await refused(h, view, 'testdata/hostile/bomb-quadratic.cube', 'open-bomb', ['DOCTYPE']);
            await refused(h, view, 'testdata/reader/reject-plain-text.cube', 'open-plain-text', ['not a CUBE file']);
            await refused(h, view, 'testdata/reader/reject-nan.cube', 'open-nan', ['finite']);
            await refused(h, view, 'testdata/reader/reject-root-foo.cube', 'open-root-foo', ['<cube>']);
            await refused(h, view, 'testdata/cubex/mkcubex_minimal.cubex', 'open-cubex', ['CUBE 4', 'run cube_view']);
            const badPage = path.join(dir, 'bad-values.html');
            fs.writeFileSync(badPage, fs.readFileSync(tracePage, 'utf8').replace(/"encoding":"deflate","cnodes":"[^"]*"/, '"encoding":"deflate","cnodes":"AAAA"'));
            await refused(h, view, badPage, 'open-bad-page', ['its data cannot be shown']);
            const badGz = path.join(dir, 'bad.cube.gz');
            fs.writeFileSync(badGz, zlib.gzipSync(whole).subarray(0, 2000));
            await refused(h, view, badGz, 'open-bad-gzip', ['gzip']);
            await view.page.click('#open-message .close');
            const closedMsg = await view.page.$eval('#open-message', (e) => e.hidden);
            h.ok(closedMsg, 'open-message: its close button hides the message');

            // Close: back to the page's own experiment
            await view.page.click('#file-button');
            const enabled = await view.page.$eval('#file-menu-items [data-action="close"]', (b) => !b.disabled);
            await Promise.all([view.page.waitForEvent('load'), view.page.click('#file-menu-items [data-action="close"]')]);
            await view.page.waitForFunction(() => window.cubeViewReady !== undefined);
            await view.page.evaluate(() => window.cubeViewReady);
            view._defs = null;
            const t = await title(view);
            const closeNow = await view.page.$eval('#file-menu-items [data-action="close"]', (b) => b.disabled);
            h.ok(enabled && t.includes('minmax.cube') && closeNow, 'open-close: File > Close returns to the experiment the page was written with (and is disabled there)', [`enabled ${enabled}, title '${t}', disabled after ${closeNow}`]);
            h.ok(opened.errors.length === 0, 'open-more: no console errors, page errors or requests outside the page', opened.errors.slice(0, 6));
        } catch (e) {
            h.fail('open-more: gzip, page, external, bad files, Close', e);
        } finally {
            if (opened) await opened.page.close();
        }
    }

    // --- served: the file is opened in the browser; the server is not asked
    if (wanted('open-served')) {
        let srv, opened;
        try {
            srv = await startServer(h, minmax);
            opened = await h.open(srv.url);
            const view = new View(opened.page);
            const asked = [];
            opened.page.on('request', (r) => { if (r.url().includes('/api/')) asked.push(r.url()); });
            const load = await choose(view, kojak);
            if (h.ok(load.state === 'done', 'open-served: File > Open in a served page opens kojak-expert_ctest-pomp.cube', [JSON.stringify(load)])) {
                const d = await view.defs();
                h.ok(!d.served, 'open-served: the opened experiment is embedded in the page (served: false)');
                await openedChecks(h, view, kojak, 'open-served', ['absolute']);
                h.ok(asked.length === 0, 'open-served: the opened experiment\'s values are computed in the page, the server is not asked', asked.slice(0, 4));
            }
            h.ok(opened.errors.length === 0, 'open-served: no console errors, page errors or requests outside the page', opened.errors.slice(0, 6));
        } catch (e) {
            h.fail('open-served: File > Open in a served page', e);
        } finally {
            if (opened) await opened.page.close();
            if (srv) srv.child.kill('SIGTERM');
        }
    }
}

module.exports = { run };
