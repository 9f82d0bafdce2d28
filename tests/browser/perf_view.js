'use strict';
// cube_view's figures for make perf (no pass or fail):
//   node tests/browser/perf_view.js BIN_DIR GEN_CUBE [MB] [RUNS]
// makes the synthetic experiment of bench/perf/run.sh (MB, default 50: 16
// threads, 5 metrics, every row present, depth <= 10, seed 1) with GEN_CUBE,
// writes its page with BIN_DIR/cube_view and prints
//   - the page's size against the values as float64 plus the definitions
//     (the bytes before <severity> in the file), and cube_view's time
//     against cube_info's;
//   - in Debian's headless Chromium: the time from opening the page to the
//     first view drawn (window.cubeViewReady), and the time from a click on a
//     metric or a call path to the coupled panes recomputed and drawn
//     (body[data-busy] back to 'false', then one frame), median of RUNS;
//   - served (cube_view --serve): the time of a pane query, median of RUNS.
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { execFileSync, spawnSync } = require('child_process');
const { pathToFileURL } = require('url');
const { Harness, View } = require('./lib');
const { startServer } = require('./test_serve');

function median(xs) { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN; }
function secondsOf(cmd, args) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
    return s;
}
function get(port, q) {
    return new Promise((resolve, reject) => {
        const t0 = process.hrtime.bigint();
        http.get({ host: '127.0.0.1', port, path: q, agent: false }, (res) => {
            let n = 0;
            res.on('data', (c) => { n += c.length; });
            res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: res.statusCode, bytes: n }));
        }).on('error', reject);
    });
}

async function main() {
    const [bin, gen, mbArg, runsArg] = process.argv.slice(2);
    if (!bin || !gen) { console.error('usage: perf_view.js BIN_DIR GEN_CUBE [MB] [RUNS]'); process.exit(2); }
    const mb = Number(mbArg || 50), runs = Number(runsArg || 5);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cube-view-perf-'));
    const h = new Harness(fs.mkdtempSync(path.join(work, 'log-')));
    h.bin = bin;
    try {
        const file = path.join(work, `bench_${mb}MB.cube`);
        const g = spawnSync(gen, ['--metrics', '5', '--threads', '16', '--threads-per-process', '1', '--depth', '10',
            '--density', '1', '--seed', '1', '--target-mb', String(mb), '-v', '-o', file], { encoding: 'utf8' });
        if (g.status !== 0) throw new Error(`${gen}: exit ${g.status}: ${g.stderr}`);
        // gen_cube -v ends with "... cnodes=N rows=N threads=N ..."
        const summary = g.stderr.trim().split('\n').pop();
        const num = (k) => Number((summary.match(new RegExp(k + '=(\\d+)')) || [])[1]);
        const cnodes = num('cnodes'), rows = num('rows'), threads = num('threads');
        const head = fs.readFileSync(file).indexOf('<severity>');
        const valBytes = rows * Number(threads) * 8;
        const page = path.join(work, 'page.html');
        const tInfo = median(Array.from({ length: 3 }, () => secondsOf(path.join(bin, 'cube_info'), [file])));
        const tView = median(Array.from({ length: 3 }, () => secondsOf(path.join(bin, 'cube_view'), [file, '-o', page])));
        const size = fs.statSync(page).size;
        console.log(`cube_view perf: ${mb} MB experiment, ${cnodes} call paths, ${threads} threads, ${rows} rows`);
        console.log(`  page ${(size / 1e6).toFixed(1)} MB; values as float64 ${(valBytes / 1e6).toFixed(1)} MB + definitions ${(head / 1e6).toFixed(1)} MB` +
            ` = ${((valBytes + head) / 1e6).toFixed(1)} MB; ratio ${(size / (valBytes + head)).toFixed(2)} (bound 1.2)`);
        console.log(`  cube_view -o ${tView.toFixed(3)} s, cube_info ${tInfo.toFixed(3)} s; ratio ${(tView / tInfo).toFixed(2)} (bound 2)`);

        await h.launch();
        const first = [], click = [];
        for (let r = 0; r < runs; r++) {
            const p = await h.context.newPage();
            await p.goto(pathToFileURL(page).href, { timeout: 120000 });
            await p.waitForFunction(() => window.cubeViewReady !== undefined, null, { timeout: 120000 });
            // since the navigation started, by the page's own clock
            first.push(await p.evaluate(() => window.cubeViewReady.then(() => new Promise((res) =>
                requestAnimationFrame(() => res(performance.now()))))));
            // clicks on metrics, then on call paths (the roots expanded
            // first, so that there is more than one to click)
            const v = new View(p);
            for (const kind of ['metric', 'call']) {
                await v.setExpanded(kind, 0, true).catch(() => {});
                await v.idle();
                const n = await p.evaluate((s) => document.querySelectorAll(s).length, `${v.pane(kind)} li.node .label`);
                for (let k = 1; k < Math.min(n, 5); k++) {
                    click.push(await p.evaluate(([s, i]) => new Promise((res) => {
                        const label = document.querySelectorAll(s)[i];
                        const t0 = performance.now();
                        let timer = null;
                        const done = () => { clearTimeout(timer); requestAnimationFrame(() => res(performance.now() - t0)); };
                        const obs = new MutationObserver(() => {
                            if (document.body.dataset.busy === 'false') { obs.disconnect(); done(); }
                        });
                        obs.observe(document.body, { attributes: true, attributeFilter: ['data-busy'] });
                        label.click();
                        // a click that changes nothing sets no busy flag
                        timer = setTimeout(() => { obs.disconnect(); done(); }, 30000);
                    }), [`${v.pane(kind)} li.node .label`, k]));
                }
            }
            await p.close();
        }
        console.log(`  browser: first view ${median(first).toFixed(0)} ms after opening (median of ${first.length}; bound 1500),` +
            ` recompute after a click ${median(click).toFixed(0)} ms (median of ${click.length}, max ${Math.max(...click).toFixed(0)}; bound 100)`);

        const srv = await startServer(h, file);
        const q = [];
        for (let r = 0; r < runs; r++) {
            for (const p of ['pane=metric', 'pane=call&msel=0', 'pane=flat&msel=0', 'pane=system&msel=0&csel=0', 'pane=system&msel=0&csel=0:e'])
                q.push(await get(srv.port, `/api/pane?token=${srv.token}&${p}`));
        }
        srv.child.kill('SIGTERM');
        console.log(`  served: pane query ${median(q.map((x) => x.ms)).toFixed(1)} ms (median of ${q.length}, max ${Math.max(...q.map((x) => x.ms)).toFixed(1)};` +
            ` statuses ${[...new Set(q.map((x) => x.status))].join(',')}; bound 50 on the 500 MB file)`);
    } finally {
        await h.close();
        fs.rmSync(work, { recursive: true, force: true });
    }
}

main().catch((e) => { console.error('perf_view: ' + (e.stack || e)); process.exit(1); });
