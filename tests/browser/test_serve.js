'use strict';
// Served mode: cube_view --serve --port 0 FILE on 127.0.0.1, the page checked
// as the embedded one, and the API's answers to clients without the token,
// to bad requests and to 32 concurrent clients, the server's memory over
// repeated rounds of them, and its exit on SIGTERM.  Every request goes to
// the loopback address the server printed, in loops bounded in count.
const fs = require('fs');
const http = require('http');
const { spawn } = require('child_process');
const { View, near, floorOf } = require('./lib');
const { FileChecks, dumpDefs } = require('./checks');

const FILES = [
    ['served-kojak', 'testdata/cube/kojak-expert_ctest-pomp.cube'],
    ['served-minmax', 'testdata/views/minmax.cube'],
    // RATE: main / duration over all threads from the server's aggregated views
    ['served-values-rate', 'testdata/cubex/cubelib-4.8.2_cube-values_example.cubex', { metric: 'RATE' }],
];
const CLIENTS = 32;
const REQUESTS_PER_CLIENT = 8;
const ROUNDS = 10;
const RSS_SLACK_KB = 2048;

function startServer(h, file) {
    return new Promise((resolve, reject) => {
        const child = spawn(h.tool('cube_view'), ['--serve', '--port', '0', file], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '', err = '';
        const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error('no URL on stdout within 30 s; stderr: ' + err)); }, 30000);
        child.stdout.on('data', (b) => {
            out += b;
            const m = out.match(/^(http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{32}))\s*$/m);
            if (m) { clearTimeout(timer); resolve({ child, url: m[1], port: Number(m[2]), token: m[3], stderr: () => err }); }
        });
        child.stderr.on('data', (b) => { err += b; });
        child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`exited with ${code} before printing a URL ('${out.trim()}'); stderr: ${err}`)); });
    });
}

function request(port, pathQuery, method = 'GET') {
    return new Promise((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: pathQuery, method, agent: false, timeout: 20000 }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c) => { body += c; });
            res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'] || '', body }));
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', reject);
        req.end();
    });
}

function rssKb(pid) {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return m ? Number(m[1]) : NaN;
}

// the API's answer for one pane against cube_dump
function apiMatches(answer, want, floor) {
    const bad = [];
    for (const [i, w] of want) {
        const a = answer[i] === null ? NaN : answer[i];
        if (!near(a, w, floor)) bad.push(`${i}: served ${answer[i]}, cube_dump ${w}`);
    }
    return bad;
}

async function apiChecks(h, label, file, srv) {
    const T = srv.token, port = srv.port;
    const wrong = T.replace(/./, (c) => (c === '0' ? '1' : '0'));
    for (const [what, q] of [['the page without a token', '/'], ['the page with a wrong token', `/?token=${wrong}`],
        ['a pane without a token', '/api/pane?pane=call&msel=0'], ['a pane with a wrong token', `/api/pane?token=${wrong}&pane=call&msel=0`]]) {
        const r = await request(port, q);
        h.ok(r.status === 403 && r.body.trim().split('\n').length === 1, `${label}: ${what} -> 403 with a one-line message`,
            [`status ${r.status}, body '${r.body.slice(0, 200)}'`]);
    }
    const nf = await request(port, `/etc/passwd?token=${T}`);
    h.ok(nf.status === 404 && !/root:/.test(nf.body), `${label}: another path -> 404, no file served`, [`status ${nf.status}`]);
    const nf2 = await request(port, `/../../../etc/passwd?token=${T}`);
    h.ok(nf2.status >= 400 && !/root:/.test(nf2.body), `${label}: a path with .. -> an error, no file served`, [`status ${nf2.status}`]);
    const post = await request(port, `/?token=${T}`, 'POST');
    h.ok(post.status === 405, `${label}: POST -> 405`, [`status ${post.status}`]);
    const d = dumpDefs(h, file);
    const nc = d.calltree.length;
    for (const [what, q] of [
        ['an unknown pane', 'pane=nosuch'],
        ['no pane', 'msel=0'],
        ['a malformed metric list', 'pane=call&msel=0,,x'],
        ['a metric id out of range', `pane=call&msel=${d.metrics.length + 5}`],
        ['a call path id out of range', `pane=system&msel=0&csel=${nc}`],
        ['a negative id', 'pane=call&msel=-1'],
        ['a duplicate id', 'pane=system&msel=0&csel=0,0'],
        ['a selection of a pane right of the asked one', 'pane=metric&csel=0'],
        ['an unknown order', 'pane=call&order=metric,call,call&msel=0'],
        ['a bad flat part', 'pane=system&msel=0&fsel=0:q'],
    ]) {
        const r = await request(port, `/api/pane?token=${T}&${q}`);
        let msg = null;
        try { msg = JSON.parse(r.body).error; } catch (e) { /* checked below */ }
        h.ok(r.status === 400 && /json/.test(r.type) && typeof msg === 'string' && msg.length > 0,
            `${label}: ${what} -> 400 with a JSON error message`, [`status ${r.status}, type '${r.type}', body '${r.body.slice(0, 200)}'`]);
    }
}

// the queries of the concurrent clients, each with cube_dump's answer
function queries(h, file) {
    const d = dumpDefs(h, file);
    const m = d.metrics.findIndex((x) => x.val !== 'VOID' && !/DERIVED/.test(x.kind || ''));
    const mname = d.metrics[m].uniq_name;
    const aggr = (z) => new Map(h.dump(file, ['-m', mname, '-t', 'aggr', '-z', z]).map((r) => [d.cnodeIndex.get(r.cnode_id), r.value]));
    const q = [];
    const inc = aggr('incl'), exc = aggr('excl');
    q.push({ path: `pane=call&msel=${m}`, check: (a) => [...apiMatches(a.incl, inc, floorOf(inc.values())), ...apiMatches(a.excl, exc, floorOf(inc.values()))] });
    // the system pane with call path c selected, collapsed and expanded
    const cs = [0, Math.min(1, d.calltree.length - 1), d.calltree.length - 1];
    for (const [k, c] of cs.entries()) {
        const z = k === 1 ? 'excl' : 'incl';
        const per = new Map(h.dump(file, ['-m', mname, '-c', String(d.calltree[c].cnode_id), '-z', z]).map((r) => [r.location, r.value]));
        q.push({
            path: `pane=system&msel=${m}&csel=${c}${z === 'excl' ? ':e' : ''}`, threadValues: per,
            check: null,
        });
    }
    return { q, d };
}

async function concurrency(h, label, file, srv) {
    const T = srv.token, port = srv.port;
    const { q } = queries(h, file);
    // the system answers are per system item: map threads through the page's definitions
    const page = await request(port, `/?token=${T}`);
    const json = page.body.match(/<script type="application\/json" id="cube-data">([\s\S]*?)<\/script>/);
    const defs = JSON.parse(json[1].replace(/<\\\//g, '</'));
    for (const x of q) {
        if (!x.threadValues) continue;
        const want = new Map();
        defs.system.forEach((s, i) => { if (s.kind === 'thread') want.set(i, x.threadValues.get(s.index)); });
        x.check = (a) => apiMatches(a.incl, want, floorOf(want.values()));
    }
    const one = async (k, n) => {
        const bad = [];
        for (let i = 0; i < n; i++) {
            const x = q[(k + i) % q.length];
            const r = await request(port, `/api/pane?token=${T}&${x.path}`);
            if (r.status !== 200) { bad.push(`${x.path}: status ${r.status}`); continue; }
            let a;
            try { a = JSON.parse(r.body); } catch (e) { bad.push(`${x.path}: not JSON`); continue; }
            const b = x.check(a);
            if (b.length) bad.push(`${x.path}: ${b.slice(0, 2).join('; ')}`);
        }
        return bad;
    };
    const first = await one(0, q.length);
    h.ok(first.length === 0, `${label}: the API's answers equal cube_dump (call pane aggregated, system pane per thread)`, first.slice(0, 6));
    const rss = [];
    let bad = [];
    for (let round = 1; round <= ROUNDS; round++) {
        const res = await Promise.all(Array.from({ length: CLIENTS }, (_, k) => one(k, REQUESTS_PER_CLIENT)));
        for (const b of res) bad = bad.concat(b);
        rss.push(rssKb(srv.child.pid));
    }
    h.ok(bad.length === 0, `${label}: ${CLIENTS} concurrent clients x ${REQUESTS_PER_CLIENT} requests x ${ROUNDS} rounds, every answer correct`, bad.slice(0, 6));
    h.note(`${label}: VmRSS after each round (kB): ${rss.join(' ')}`);
    h.ok(rss[ROUNDS - 1] <= rss[1] + RSS_SLACK_KB, `${label}: the server's VmRSS after round ${ROUNDS} (${rss[ROUNDS - 1]} kB) is within ${RSS_SLACK_KB} kB of round 2 (${rss[1]} kB)`);
}

async function run(h) {
    if (!fs.existsSync(h.tool('cube_view'))) return;
    for (const [label, file, opts] of FILES) {
        if (process.env.BROWSER_ONLY && !new RegExp(process.env.BROWSER_ONLY).test(label)) continue;
        let srv;
        try {
            srv = await startServer(h, file);
        } catch (e) {
            h.fail(`${label}: cube_view --serve --port 0 prints http://127.0.0.1:PORT/?token=TOKEN`, e);
            continue;
        }
        h.ok(true, `${label}: cube_view --serve --port 0 prints http://127.0.0.1:PORT/?token=TOKEN`);
        try {
            const opened = await h.open(srv.url);
            h.ok(true, `${label}: the served page opens and window.cubeViewReady resolves (${opened.openMs} ms)`);
            await new FileChecks(h, new View(opened.page), file, label, opts || {}).run();
            h.ok(opened.errors.length === 0, `${label}: no console errors, page errors or requests outside the page`, opened.errors.slice(0, 6));
            await opened.page.close();
        } catch (e) {
            h.fail(`${label}: the served page`, e);
        }
        try { await apiChecks(h, label, file, srv); } catch (e) { h.fail(`${label}: API errors`, e); }
        try { await concurrency(h, label, file, srv); } catch (e) { h.fail(`${label}: concurrent clients`, e); }
        const code = await new Promise((resolve) => {
            if (srv.child.exitCode !== null) { resolve(`already exited with ${srv.child.exitCode}`); return; }
            const t = setTimeout(() => { srv.child.kill('SIGKILL'); resolve('still running 10 s after SIGTERM'); }, 10000);
            srv.child.on('exit', (c, sig) => { clearTimeout(t); resolve(sig ? `signal ${sig}` : c); });
            srv.child.kill('SIGTERM');
        });
        h.ok(code === 0, `${label}: SIGTERM stops the server with exit status 0`, [`got ${code}; stderr: ${srv.stderr().slice(-300)}`]);
    }
}

module.exports = { run, startServer, request };
