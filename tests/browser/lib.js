'use strict';
// The harness of make check-browser: TAP-like result lines, the tools of
// BUILD/bin, Debian's Chromium driven by playwright-core, and a driver for
// cube_view's page that works only through the page's DOM hooks (the
// elements and data attributes cube_view(1) documents for scripts).
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { chromium } = require('playwright-core');

// Debian's browser, never one downloaded by a test tool; without the
// background-networking flags Chromium keeps trying to reach the network
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'];

class Harness {
    constructor(build) {
        this.build = build;
        this.bin = path.join(build, 'bin');
        this.shots = path.join(build, 'screenshots');
        fs.rmSync(this.shots, { recursive: true, force: true });
        fs.mkdirSync(this.shots, { recursive: true });
        this.logPath = path.join(build, 'check-browser.log');
        this.logFd = fs.openSync(this.logPath, 'w');
        this.passed = 0;
        this.failed = 0;
        this.skipped = 0;
        this.failedNames = [];
        this.dumpCache = new Map();
    }
    log(line) { fs.writeSync(this.logFd, line + '\n'); }
    out(line) { this.log(line); process.stdout.write(line + '\n'); }
    note(text) { for (const l of String(text).split('\n')) this.log('# ' + l); }
    // one result line; `detail` (lines) goes to the log under a failure
    ok(cond, name, detail) {
        if (cond) {
            this.passed++;
            this.out('ok - ' + name);
        } else {
            this.failed++;
            this.failedNames.push(name);
            this.out('not ok - ' + name);
            if (detail) for (const l of [].concat(detail)) this.out('#   ' + l);
        }
        return !!cond;
    }
    skip(name, reason) {
        this.skipped++;
        this.out('ok - ' + name + ' # SKIP ' + reason);
    }
    // a check that threw: one failure with the message, never a silent pass
    fail(name, err) {
        return this.ok(false, name, String(err && err.stack || err).split('\n').slice(0, 6));
    }
    summary() {
        if (this.failedNames.length) {
            process.stdout.write('failed:\n' + this.failedNames.map((n) => '  ' + n).join('\n') + '\n');
            process.stdout.write('details: ' + this.logPath + '\n');
        }
        const line = `${this.passed} passed, ${this.failed} failed, ${this.skipped} skipped`;
        this.out(line);
        fs.closeSync(this.logFd);
        return this.failed === 0 && this.passed > 0;
    }

    tool(name) { return path.join(this.bin, name); }
    run(name, args, opts) {
        return execFileSync(this.tool(name), args, Object.assign({ encoding: 'utf8', maxBuffer: 1 << 30 }, opts));
    }
    // cube_dump -s json ARGS FILE, parsed (cached: the same call recurs)
    dump(file, args) {
        const key = file + '\0' + args.join('\0');
        if (!this.dumpCache.has(key)) {
            this.dumpCache.set(key, JSON.parse(this.run('cube_dump', ['-s', 'json', ...args, file], { stdio: ['ignore', 'pipe', 'pipe'] })));
        }
        return this.dumpCache.get(key);
    }

    async launch() {
        this.userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cube-view-chromium-'));
        this.context = await chromium.launchPersistentContext(this.userDataDir, {
            executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS,
            viewport: { width: 1600, height: 1000 },
        });
    }
    async close() {
        if (this.context) await this.context.close().catch(() => {});
        if (this.userDataDir) fs.rmSync(this.userDataDir, { recursive: true, force: true });
    }
    // a new tab on URL, with the console errors, page errors and requests to
    // anywhere but the page's own origin recorded; resolves when
    // window.cubeViewReady has resolved
    async open(url, timeout = 60000) {
        const page = await this.context.newPage();
        const errors = [];
        const origin = url.startsWith('file:') ? 'file:' : new URL(url).origin;
        page.on('console', (m) => { if (m.type() === 'error') errors.push('console error: ' + m.text()); });
        page.on('pageerror', (e) => errors.push('page error: ' + e.message));
        page.on('request', (r) => {
            const u = r.url();
            if (!(u.startsWith(origin) || u.startsWith('data:') || u.startsWith('blob:') || u === 'about:blank'))
                errors.push('request outside the page: ' + u);
        });
        page.setDefaultTimeout(timeout);
        const t0 = Date.now();
        await page.goto(url);
        await page.waitForFunction(() => window.cubeViewReady !== undefined, null, { timeout });
        await page.evaluate(() => window.cubeViewReady);
        return { page, errors, openMs: Date.now() - t0 };
    }
}

// ---------------------------------------------------------------------------
// numbers

// a page value (data-value: '' for undefined) against cube_dump's JSON value
// (null for undefined): equal within a relative 1e-9, plus `floor` for sums
// that cancel to about 0 (compensated in cube_dump, plain in the page)
function near(page, want, floor = 0) {
    const pu = page === null || page === undefined || Number.isNaN(page);
    const wu = want === null || want === undefined;
    if (pu || wu) return pu && wu;
    if (page === want) return true;
    return Math.abs(page - want) <= 1e-9 * Math.max(Math.abs(page), Math.abs(want)) + floor;
}
function pageNumber(s) { return s === '' || s === null || s === undefined ? NaN : Number(s); }
function combine(kind, values) {
    const vs = values.filter((v) => v !== null && v !== undefined && !Number.isNaN(v));
    if (kind === 'max') return vs.length ? Math.max(...vs) : null;
    if (kind === 'min') return vs.length ? Math.min(...vs) : null;
    return vs.reduce((a, b) => a + b, 0);
}
// the floor for a set of expected values: 1e-12 of the largest magnitude
function floorOf(values) {
    let m = 0;
    for (const v of values) if (v !== null && Number.isFinite(v)) m = Math.max(m, Math.abs(v));
    return 1e-12 * m;
}

// ---------------------------------------------------------------------------
// the page, through its DOM hooks

class View {
    constructor(page) { this.page = page; }
    pane(kind) { return `section.pane[data-pane="${kind}"]`; }

    async defs() {
        if (!this._defs) {
            this._defs = await this.page.evaluate(() => {
                const d = JSON.parse(document.getElementById('cube-data').textContent);
                delete d.values;
                return d;
            });
        }
        return this._defs;
    }
    // settle after a click: two frames, then not busy
    async idle() {
        await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        await this.page.waitForFunction(() => document.body.dataset.busy !== 'true', null, { timeout: 30000 });
    }
    nodeSel(kind, id) { return `${this.pane(kind)} li.node[data-id="${id}"]:not([data-part])`; }
    async nodeState(kind, id) {
        return this.page.evaluate((sel) => {
            const li = document.querySelector(sel);
            if (!li) return null;
            const v = li.querySelector('.value');
            return {
                expanded: li.dataset.expanded === 'true', selected: li.dataset.selected === 'true',
                value: v ? v.dataset.value : undefined, colour: v ? getComputedStyle(v).backgroundColor : undefined,
                visible: li.checkVisibility ? li.checkVisibility() : li.offsetParent !== null,
            };
        }, this.nodeSel(kind, id));
    }
    parents(kind, defs) {
        return kind === 'metric' ? defs.metrics : kind === 'call' ? defs.cnodes : defs.system;
    }
    // expand every ancestor of the node, root first
    async reveal(kind, id) {
        const defs = await this.defs();
        const list = this.parents(kind, defs);
        const chain = [];
        for (let p = list[id].parent; p !== -1 && p !== undefined && p !== null; p = list[p].parent) chain.unshift(p);
        for (const a of chain) await this.setExpanded(kind, a, true, false);
    }
    async setExpanded(kind, id, want, reveal = true) {
        if (reveal) await this.reveal(kind, id);
        const st = await this.nodeState(kind, id);
        if (!st) throw new Error(`${kind} node ${id}: no li.node[data-id="${id}"] in the pane`);
        // a leaf has nothing to expand
        const list = this.parents(kind, await this.defs());
        if (want && !list.some((n) => n.parent === id)) return;
        if (st.expanded !== want) {
            await this.page.locator(this.nodeSel(kind, id)).locator('.toggle').first().click();
            await this.idle();
            const now = await this.nodeState(kind, id);
            if (now.expanded !== want) throw new Error(`${kind} node ${id}: clicking .toggle left data-expanded=${now.expanded}`);
        }
    }
    async select(kind, id, add = false) {
        await this.reveal(kind, id);
        const label = this.page.locator(this.nodeSel(kind, id)).locator('.label').first();
        const box = await label.boundingBox();
        // an empty name makes an empty label: click the node's row beside it
        const target = box && box.width > 0 ? label : this.page.locator(this.nodeSel(kind, id)).locator(':scope > *').first();
        if (target !== label) this.emptyLabels = (this.emptyLabels || 0) + 1;
        await target.click({ modifiers: add ? ['ControlOrMeta'] : [] });
        await this.idle();
        const st = await this.nodeState(kind, id);
        if (!st.selected) throw new Error(`${kind} node ${id}: clicking .label left data-selected=false`);
    }
    // the visible nodes (or flat rows) of a pane
    async read(kind) {
        return this.page.evaluate((sel) => {
            const rows = [];
            for (const li of document.querySelectorAll(sel + ' li.node')) {
                const vis = li.checkVisibility ? li.checkVisibility() : li.offsetParent !== null;
                if (!vis) continue;
                const v = li.querySelector('.value');
                rows.push({
                    id: Number(li.dataset.id), part: li.dataset.part || null,
                    expanded: li.dataset.expanded === 'true', selected: li.dataset.selected === 'true',
                    value: v ? v.dataset.value : undefined,
                    colour: v ? getComputedStyle(v).backgroundColor : undefined,
                });
            }
            return rows;
        }, this.pane(kind));
    }
    async modeOptions(kind) {
        return this.page.evaluate((sel) => {
            const s = document.querySelector(sel + ' select[data-role="mode"]');
            return s ? [...s.options].map((o) => ({ value: o.value, disabled: o.disabled })) : null;
        }, this.pane(kind));
    }
    async setMode(kind, mode) {
        const sel = `${this.pane(kind)} select[data-role="mode"]`;
        const cur = await this.page.$eval(sel, (s) => s.value);
        if (cur === mode) return;
        await this.page.selectOption(sel, mode);
        await this.idle();
    }
    async setOrder(order) {
        const cur = await this.page.$eval('select#order', (s) => s.value);
        if (cur === order) return;
        await this.page.selectOption('select#order', order);
        await this.idle();
    }
    async tab(kind, name) {
        await this.page.locator(`${this.pane(kind)} [data-tab="${name}"]`).first().click();
        await this.idle();
    }
    async selectedValue(kind) {
        return this.page.evaluate((k) => {
            const e = document.querySelector(`.selected-value[data-pane="${k}"]`);
            return e ? e.dataset.value : undefined;
        }, kind);
    }
    async legend(kind) {
        return this.page.evaluate((k) => {
            const e = document.querySelector(`.legend[data-pane="${k}"]`) ||
                document.querySelector(`section.pane[data-pane="${k}"] .legend`);
            return e && e.dataset.min !== '' ? { min: Number(e.dataset.min), max: Number(e.dataset.max) } : null;
        }, kind);
    }
    async shot(h, name) {
        const file = path.join(h.shots, name.replace(/[^A-Za-z0-9_.-]+/g, '_') + '.png');
        await this.page.screenshot({ path: file, fullPage: false });
        h.note('screenshot ' + file);
        return file;
    }
}

module.exports = { Harness, View, near, pageNumber, combine, floorOf, CHROMIUM, CHROMIUM_ARGS };
