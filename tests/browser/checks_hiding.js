'use strict';
// The colour dialog's five colour positions, hiding as the CUBE 3 manual
// describes it (dynamic, static, the shown value of a node with hidden
// children), Find items and the context menu's items, on one opened page
// (a FileChecks of checks.js: its page, cube_dump rows and helpers).
const { near, pageNumber, floorOf, combine } = require('./lib');

const STOPS = [[0, 0, 255], [0, 255, 255], [0, 255, 0], [255, 255, 0], [255, 0, 0]];
const METHOD = { linear: (f) => f, quadratic1: (f) => f * f };
// the colour of value on [min, max] with the five positions (cube_view(1),
// Colours): blue up to the start, red from the end, the method between
// neighbouring positions; grey outside a user-defined scale
function colourAt(v, min, max, positions = [0, 0.25, 0.5, 0.75, 1], method = 'linear', user = false) {
    if (Number.isNaN(v) || Math.abs(v) < 1e-9) return [255, 255, 255];
    if (user && (v < min || v > max)) return [192, 192, 192];
    let p = max > min ? (v - min) / (max - min) : 1;
    p = Math.min(1, Math.max(0, p));
    if (p <= positions[0]) return STOPS[0];
    if (p >= positions[4]) return STOPS[4];
    let i = 0;
    while (i < 3 && !(p < positions[i + 1])) i++;
    const g = METHOD[method]((p - positions[i]) / (positions[i + 1] - positions[i]));
    return STOPS[i].map((a, j) => Math.round(a + (STOPS[i + 1][j] - a) * g));
}
function rgb(s) { return (String(s).match(/\d+(\.\d+)?/g) || []).slice(0, 3).map(Number); }
function same(a, b) { const x = rgb(a), y = Array.isArray(b) ? b : rgb(b); return x.length === 3 && x.every((c, i) => Math.abs(c - y[i]) <= 3); }

async function answer(v, values) {
    for (const [k, x] of Object.entries(values)) await v.page.fill(`#ask input[name="${k}"]`, String(x));
    await v.page.click('#ask button[value="ok"]');
    await v.idle();
}

// the call pane's nodes with their value boxes' data
async function callNodes(v) {
    return v.page.evaluate((sel) => [...document.querySelectorAll(sel + ' li.node')].map((li) => {
        const e = li.querySelector('.value');
        return {
            id: Number(li.dataset.id), expanded: li.dataset.expanded === 'true', value: e.dataset.value,
            min: Number(e.dataset.min), max: Number(e.dataset.max), colour: getComputedStyle(e).backgroundColor,
            hiddenChildren: li.dataset.hiddenChildren === undefined ? 0 : Number(li.dataset.hiddenChildren),
            own: e.dataset.own, hiddenValue: e.dataset.hiddenValue, hiddenPercent: e.dataset.hiddenPercent,
            share: li.querySelector(':scope > .row .hidden-share').textContent,
            cls: li.className,
        };
    }), v.pane('call'));
}

async function colourPositionChecks(fc) {
    const h = fc.h, v = fc.v;
    await fc.step('colour positions', async () => {
        const colouredOK = async (positions) => {
            const rows = (await callNodes(v)).filter((r) => r.value !== '');
            const want = (r) => colourAt(pageNumber(r.value), r.min, r.max, positions, 'linear', true);
            const bad = rows.filter((r) => !same(r.colour, want(r))).map((r) => `id ${r.id} value ${r.value}: ${r.colour}, expected rgb(${want(r)})`);
            return { rows, bad };
        };
        // a user-defined scale that puts a call path at 65%, between the
        // green (50%) and the yellow (75%) line
        const first = (await callNodes(v)).find((r) => r.value !== '' && pageNumber(r.value) > 0);
        if (!first) { h.skip(fc.name('colour positions'), 'no call path with a positive value'); return; }
        const umax = pageNumber(first.value) / 0.65;
        await v.page.click('#colours-open');
        await v.page.fill('#colours input[name="userMin"]', '0');
        await v.page.fill('#colours input[name="userMax"]', String(umax));
        await v.page.click('#colours button[value="ok"]');
        await v.idle();
        const before = await callNodes(v);
        await v.page.click('#colours-open');
        const marker = (i) => v.page.$eval(`#colours g.position[data-index="${i}"]`, (g) => {
            const r = g.querySelector('line').getBoundingClientRect();
            return { x: r.x + r.width / 2, y: r.y + r.height / 2, value: Number(g.dataset.value) };
        });
        const scale = await v.page.$eval('#colours svg.colour-scale', (e) => { const r = e.getBoundingClientRect(); return { x: r.x, w: r.width }; });
        // drag the yellow line (0.75) to 0.6 with the left mouse button
        const y0 = await marker(3);
        await v.page.mouse.move(y0.x, y0.y);
        await v.page.mouse.down();
        await v.page.mouse.move(scale.x + 0.7 * scale.w, y0.y, { steps: 3 });
        await v.page.mouse.move(scale.x + 0.6 * scale.w, y0.y, { steps: 3 });
        await v.page.mouse.up();
        const y1 = await marker(3);
        const spin = Number(await v.page.inputValue('#colours input[name="yellow"]'));
        h.ok(Math.abs(y1.value - 0.6) < 0.01 && Math.abs(spin - y1.value) < 0.001,
            fc.name('dragging the yellow line of the colour dialog to 0.6 moves it there and sets the "Yellow at" spin'),
            [`line at ${y1.value}, spin ${spin}`]);
        // a line stops at its neighbour: cyan dragged past green (0.5)
        const c0 = await marker(1);
        await v.page.mouse.move(c0.x, c0.y);
        await v.page.mouse.down();
        await v.page.mouse.move(scale.x + 0.9 * scale.w, c0.y, { steps: 4 });
        await v.page.mouse.up();
        const c1 = await marker(1);
        h.ok(Math.abs(c1.value - 0.5) < 1e-9, fc.name('the cyan line dragged past the green one stops at it'), [`cyan at ${c1.value}`]);
        // typed in a spin: the line follows
        await v.page.fill('#colours input[name="cyan"]', '0.3');
        await v.page.press('#colours input[name="cyan"]', 'Tab');
        const c2 = await marker(1);
        h.ok(Math.abs(c2.value - 0.3) < 1e-9, fc.name('typing 0.3 in "Cyan at" moves the cyan line'), [`cyan at ${c2.value}`]);
        await v.shot(h, `${fc.label}-colour-positions-dialog`);
        await v.page.click('#colours button[value="ok"]');
        await v.idle();
        const pos = [0, 0.3, 0.5, 0.6, 1];
        const a = await colouredOK(pos);
        const changed = a.rows.filter((r) => { const b = before.find((x) => x.id === r.id); return b && !same(b.colour, r.colour); });
        const mine = a.rows.find((r) => r.id === first.id), was = before.find((r) => r.id === first.id);
        h.ok(a.rows.length > 0 && a.bad.length === 0 && mine && !same(was.colour, mine.colour),
            fc.name(`with the positions ${pos.join(', ')} (OK) every call path's colour is the one they give; call path ${first.id} at 65% of the scale changes from ${was.colour} to ${mine && mine.colour} (${changed.length} changed)`), a.bad.slice(0, 4));
        // Apply, then Cancel: back to the state the dialog opened with
        await v.page.click('#colours-open');
        await v.page.fill('#colours input[name="start"]', '0.2');
        await v.page.press('#colours input[name="start"]', 'Tab');
        await v.page.click('#colours [data-role="apply"]');
        await v.idle();
        const applied = await colouredOK([0.2, 0.3, 0.5, 0.6, 1]);
        await v.page.click('#colours [data-role="cancel"]');
        await v.idle();
        const back = await colouredOK(pos);
        await v.page.click('#colours-open');
        const spins = await v.page.$$eval('#colours input[data-role="position"]', (l) => l.map((e) => Number(e.value)));
        h.ok(applied.bad.length === 0 && back.bad.length === 0 && spins.join() === pos.join(),
            fc.name('Apply colours with the dialog\'s positions; Cancel restores the positions it opened with'),
            [...applied.bad.slice(0, 2), ...back.bad.slice(0, 2), `spins after Cancel: ${spins.join(' ')}`]);
        // the method applies between neighbouring positions
        await v.page.selectOption('#colours select[name="method"]', 'quadratic1');
        await v.page.click('#colours button[value="ok"]');
        await v.idle();
        const rows = (await callNodes(v)).filter((r) => r.value !== '');
        const bad = rows.filter((r) => !same(r.colour, colourAt(pageNumber(r.value), r.min, r.max, pos, 'quadratic1', true))).map((r) => `id ${r.id}: ${r.colour}`);
        h.ok(rows.length > 0 && bad.length === 0, fc.name('quadratic 1 with these positions: f^2 between neighbouring positions'), bad.slice(0, 4));
        // the pane's legend follows: its gradient's middle stop
        const stop = await v.page.evaluate((sel) => {
            const s = document.querySelector(sel + ' .selected-value .legend stop[offset="0.5"]');
            return s ? s.getAttribute('stop-color') : null;
        }, v.pane('call'));
        h.ok(stop && same(stop, colourAt(0.5, 0, 1, pos, 'quadratic1')), fc.name('the pane\'s legend is drawn with the positions and the method'), [`stop at 0.5: ${stop}`]);
        await v.page.click('#colours-open');
        await v.page.selectOption('#colours select[name="method"]', 'linear');
        for (const [n, x] of [['start', 0], ['cyan', 0.25], ['green', 0.5], ['yellow', 0.75], ['end', 1], ['userMin', ''], ['userMax', '']]) await v.page.fill(`#colours input[name="${n}"]`, String(x));
        await v.page.click('#colours button[value="ok"]');
        await v.idle();
        const reset = await colouredOK([0, 0.25, 0.5, 0.75, 1]);
        const lg = await v.legend('call');
        if (lg && lg.max === umax) reset.bad.push(`the user-defined scale is still on: ${JSON.stringify(lg)}`);
        h.ok(reset.bad.length === 0, fc.name('the default positions and no user-defined scale again give the default colours'), reset.bad.slice(0, 3));
    });
}

async function hidingChecks(fc, m, root) {
    const h = fc.h, v = fc.v, defs = fc.defs;
    const kids = (i) => defs.cnodes.map((c, j) => j).filter((j) => defs.cnodes[j].parent === i);
    const all = []; for (const st = [root]; st.length;) { const i = st.pop(); all.push(i); st.push(...kids(i)); }
    const collapseAll = async () => { await v.page.click(`${v.pane('call')} [data-role="collapse-all"]`); await v.idle(); };
    const inc = fc.aggr(m, 'incl', 'incl', 'absolute'), exc = fc.aggr(m, 'incl', 'excl', 'absolute');
    const child = kids(root).find((c) => inc.get(c) !== null && inc.get(c) !== undefined && inc.get(c) !== 0);
    if (child === undefined || all.length > 2000) { h.skip(fc.name('hiding'), `no call path below the root with a value, or ${all.length} call paths`); return; }
    let how = defs.metrics[m].combine || 'sum';
    await v.setOrder('metric,call,system');
    await v.select('metric', m);

    await fc.step('static hiding: hide this, the parent\'s value', async () => {
        await collapseAll();
        await v.setExpanded('call', root, true);
        await v.select('call', root);
        await fc.menu('call', root, 'static-hiding');
        await fc.menu('call', child, 'hide');
        const st = await v.nodeState('call', child);
        const r = (await callNodes(v)).find((x) => x.id === root);
        const want = combine(how, [exc.get(root), inc.get(child)]);
        const pc = 100 * inc.get(child) / want;
        const f = floorOf([exc.get(root), inc.get(child)]);
        h.ok(st === null && r.hiddenChildren === 1 && near(pageNumber(r.value), want, f) && near(pageNumber(r.own), exc.get(root), f) &&
            near(pageNumber(r.hiddenValue), inc.get(child), f) && Math.abs(pageNumber(r.hiddenPercent) - pc) < 1e-6 * Math.max(1, Math.abs(pc)) && /%\)$/.test(r.share),
        fc.name(`"Hide this" on call path ${child}: the expanded root shows its exclusive value + the hidden child's inclusive value = ${want} and in brackets its share ${pc.toFixed(3)}% (cube_dump -t aggr)`),
        [`child shown ${JSON.stringify(st)}, root ${JSON.stringify(r)}`]);
        // the selected-value widget and the panes to the right see the shown value
        const sv = await v.selectedValue('call');
        h.ok(near(pageNumber(sv), want, f), fc.name('the selected-value widget shows the expanded root with its hidden child'), [`widget ${sv}, expected ${want}`]);
        const colour = (await callNodes(v)).find((x) => x.id === root);
        h.ok(same(colour.colour, colourAt(want, colour.min, colour.max)), fc.name('the root\'s colour is the one of the value shown'), [`${colour.colour} for ${want} on ${colour.min}..${colour.max}`]);
        await fc.revealThreads();
        const rows = fc.threadRows(await v.read('system'), defs);
        const a = fc.perThread(m, root, 'incl', 'excl', 'absolute'), b = fc.perThread(m, child, 'incl', 'incl', 'absolute');
        fc.compare(`system pane right of the expanded root with call path ${child} hidden = cube_dump per thread, root -z excl + child -z incl`,
            rows, (x) => { const t = defs.system[x.id].index; return combine(how, [a.get(t), b.get(t)]); });
        await v.shot(h, `${fc.label}-static-hiding`);
        await fc.menu('call', root, 'show-children');
        const back = await v.nodeState('call', child);
        const r2 = (await callNodes(v)).find((x) => x.id === root);
        h.ok(back !== null && r2.hiddenChildren === 0 && near(pageNumber(r2.value), exc.get(root), f) && r2.share === '',
            fc.name('"Show children of this" shows it again; the root shows its exclusive value alone'), [`child ${JSON.stringify(back)}, root ${JSON.stringify(r2)}`]);
        await fc.menu('call', root, 'no-hiding');
    });

    await fc.step('hiding in the system tree and the flat profile', async () => {
        await v.select('metric', m);
        await v.setExpanded('call', root, false);
        await v.select('call', root);
        // a process with two threads or more: one thread hidden, the expanded
        // process (no value of its own) shows the hidden thread's value, 100 %
        const proc = defs.system.findIndex((x, i) => x.kind === 'process' && defs.system.filter((t) => t.parent === i).length >= 2);
        if (proc >= 0) {
            const th = defs.system.findIndex((t) => t.parent === proc);
            await v.setExpanded('system', proc, true);
            await fc.menu('system', proc, 'static-hiding');
            await fc.menu('system', th, 'hide');
            const per = fc.perThread(m, root, 'incl', 'incl', 'absolute');
            const want = per.get(defs.system[th].index);
            const r = await v.page.evaluate((sel) => {
                const li = document.querySelector(sel);
                const e = li.querySelector('.value');
                return { n: li.dataset.hiddenChildren, value: e.dataset.value, pc: e.dataset.hiddenPercent };
            }, v.nodeSel('system', proc));
            const gone = await v.nodeState('system', th);
            h.ok(gone === null && r.n === '1' && near(pageNumber(r.value), want === null || want === undefined ? NaN : want) && (want ? Math.abs(Number(r.pc) - 100) < 1e-9 : true),
                fc.name(`system tree: thread ${th} hidden, the expanded process ${proc} shows its value ${want} (cube_dump per thread), 100 % hidden`), [JSON.stringify(r), `thread shown: ${JSON.stringify(gone)}`]);
            await fc.menu('system', proc, 'no-hiding');
            await v.setExpanded('system', proc, false);
        }
        // the flat profile: a region's Subroutines hidden, the expanded region
        // shows exclusive + subroutines = its inclusive value
        const agg = new Map(h.dump(fc.file, ['-m', defs.metrics[m].uniq, '-r', '-t', 'aggr']).map((r) => [fc.d.regionIndex.get(r.region_id), r]));
        const reg = [...agg.entries()].find(([, r]) => r.subroutines && r.inclusive);
        if (reg) {
            const [rid, w] = reg;
            await v.tab('call', 'flat');
            const row = v.page.locator(`${v.pane('call')} li.node[data-id="${rid}"][data-part]`).first();
            await row.locator(':scope > .row > .toggle').click();
            await v.idle();
            await row.locator(':scope > .row > .label').click({ button: 'right' });
            await v.page.click('#context-menu button[data-action="static-hiding"]');
            await v.idle();
            await v.page.locator(`${v.pane('call')} li.node[data-id="${rid}"][data-part="sub"] .label`).click({ button: 'right' });
            await v.page.click('#context-menu button[data-action="hide"]');
            await v.idle();
            const r = await row.evaluate((li) => ({ n: li.dataset.hiddenChildren, value: li.querySelector('.value').dataset.value, pc: li.querySelector('.value').dataset.hiddenPercent, sub: !!li.querySelector('li[data-part="sub"]') }));
            const pc = 100 * w.subroutines / w.inclusive;
            h.ok(!r.sub && r.n === '1' && near(pageNumber(r.value), w.inclusive, 1e-12 * Math.abs(w.inclusive)) && Math.abs(Number(r.pc) - pc) < 1e-6 * Math.max(1, pc),
                fc.name(`flat profile: region ${rid}'s Subroutines hidden, the expanded region shows exclusive + subroutines = ${w.inclusive} and ${pc.toFixed(3)}% hidden (cube_dump -r)`), [JSON.stringify(r)]);
            await row.locator(':scope > .row > .label').click({ button: 'right' });
            await v.page.click('#context-menu button[data-action="no-hiding"]');
            await v.idle();
            await row.locator(':scope > .row > .toggle').click();
            await v.idle();
            await v.tab('call', 'tree');
        }
    });

    // the metrics with values at the call paths, for a selection change
    const other = defs.metrics.findIndex((x, i) => i !== m && x.kind === 'stored' && x.parent < 0 &&
        fc.aggr(i, 'incl', 'incl', 'absolute').get(root));
    await fc.step('dynamic and static hiding after a selection change', async () => {
        await collapseAll();
        await v.select('call', root);
        await fc.menu('call', root, 'expand-subtree');
        const lg = async () => { const r = (await callNodes(v)).find((x) => x.id === root); return { min: r.min, max: r.max }; };
        const hiddenBy = (values, l, th) => (i) => {
            const x = values.get(i);
            if (i === root || x === null || x === undefined) return false;
            const p = l.max > l.min ? (x - l.min) / (l.max - l.min) * 100 : 100;
            return p < th;
        };
        const visibleWant = (hid) => all.filter((i) => { for (let q = i; q >= 0; q = defs.cnodes[q].parent) if (hid(q)) return false; return true; });
        const shown = async () => new Set((await callNodes(v)).map((r) => r.id));
        const l0 = await lg();
        const ps = [...new Set(all.filter((i) => i !== root && inc.get(i) !== null && inc.get(i) !== undefined).map((i) => (inc.get(i) - l0.min) / (l0.max - l0.min) * 100))].sort((a, b) => a - b);
        if (ps.length < 2) { h.skip(fc.name('dynamic hiding'), 'fewer than two distinct values'); return; }
        const k = Math.floor(ps.length / 2), th = (ps[k - 1] + ps[k]) / 2;
        // the threshold suggested: the reference node's colour position
        await v.page.locator(v.nodeSel('call', root)).locator('.label').first().click({ button: 'right' });
        await v.page.click('#context-menu button[data-action="dynamic-hiding"]');
        const suggested = Number(await v.page.inputValue('#ask input[name="threshold"]'));
        const rootPos = (inc.get(root) - l0.min) / (l0.max - l0.min) * 100;
        h.ok(Math.abs(suggested - rootPos) < 1e-3 * Math.max(1, rootPos), fc.name(`"Dynamic hiding" suggests the reference node's colour position (${rootPos.toFixed(3)}%)`), [`suggested ${suggested}`]);
        await answer(v, { threshold: th });
        const check = async (text, values, excl, l, hid) => {
            const s = await shown();
            const want = visibleWant(hid);
            const wrongShown = [...s].filter((i) => !want.includes(i));
            const wrongGone = want.filter((i) => !s.has(i));
            // every shown node with hidden children: exclusive + hidden inclusive
            const bad = [];
            for (const r of await callNodes(v)) {
                const hk = kids(r.id).filter(hid);
                const all = hk.length && hk.length === kids(r.id).length;
                if (!hk.length) { if (r.hiddenChildren) bad.push(`${r.id}: marked with ${r.hiddenChildren} hidden children`); continue; }
                if (!r.expanded && !all) continue;
                const w = combine(how, [excl.get(r.id), ...hk.map((i) => values.get(i))]);
                if (r.hiddenChildren !== hk.length || !near(pageNumber(r.value), w, floorOf([w, ...hk.map((i) => values.get(i))])))
                    bad.push(`${r.id}: ${r.hiddenChildren} hidden, value ${r.value}, expected ${hk.length} and ${w}`);
            }
            h.ok(wrongShown.length === 0 && wrongGone.length === 0 && bad.length === 0, fc.name(text),
                [`shown but hidden: ${wrongShown.slice(0, 6).join(' ')}`, `hidden but shown: ${wrongGone.slice(0, 6).join(' ')}`, ...bad.slice(0, 4)]);
        };
        const hid0 = hiddenBy(inc, l0, th);
        await check(`dynamic hiding below ${th.toFixed(3)}%: the call paths below it are hidden (${all.length - visibleWant(hid0).length} of ${all.length}), each parent shows its exclusive value + its hidden children's inclusive values`, inc, exc, l0, hid0);
        await v.shot(h, `${fc.label}-dynamic-hiding`);
        if (other < 0) {
            h.skip(fc.name('hiding after a selection change'), 'no second metric with values');
            // the later steps expect every call path shown
            await fc.menu('call', root, 'no-hiding');
            return;
        }
        // a selection change: dynamic hiding recomputes with the new values
        await v.select('metric', other);
        how = defs.metrics[other].combine || 'sum';
        const inc2 = fc.aggr(other, 'incl', 'incl', 'absolute'), exc2 = fc.aggr(other, 'incl', 'excl', 'absolute');
        const l2 = await lg();
        const hid2 = hiddenBy(inc2, l2, th);
        await check(`metric ${defs.metrics[other].uniq} selected: dynamic hiding hides what is below ${th.toFixed(3)}% of the new values`, inc2, exc2, l2, hid2);
        // static hiding keeps what is hidden now, also when the values change back
        await fc.menu('call', root, 'static-hiding');
        await v.select('metric', m);
        how = defs.metrics[m].combine || 'sum';
        await check(`static hiding keeps the nodes hidden under metric ${defs.metrics[other].uniq} hidden after metric ${defs.metrics[m].uniq} is selected again`, inc, exc, l0, hid2);
        // "Static hiding of minor values" adds the nodes below a threshold, once
        await fc.menu('call', root, 'static-minor');
        await answer(v, { threshold: th });
        const both = (i) => hid2(i) || hid0(i);
        await check('"Static hiding of minor values" hides the nodes below the threshold as well', inc, exc, l0, both);
        await fc.menu('call', root, 'no-hiding');
        const s = await shown();
        h.ok(all.every((i) => s.has(i)), fc.name('"No hiding" shows every call path again'));
    });
}

async function findChecks(fc, m, root) {
    const h = fc.h, v = fc.v, defs = fc.defs;
    const kids = (i) => defs.cnodes.map((c, j) => j).filter((j) => defs.cnodes[j].parent === i);
    const pre = []; for (const st = [root]; st.length;) { const i = st.pop(); pre.push(i); st.push(...kids(i).reverse()); }
    const name = (i) => defs.regions[defs.cnodes[i].region].name;
    // a name below the root, found at the most call paths
    const count = new Map();
    for (const i of pre) if (i !== root) count.set(name(i), (count.get(name(i)) || 0) + 1);
    const best = [...count.entries()].sort((a, b) => b[1] - a[1])[0];
    if (!best || pre.length > 2000) { h.skip(fc.name('find items'), 'no call path below the root'); return; }
    await fc.step('find items', async () => {
        const re = '^' + best[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
        const hits = pre.filter((i) => name(i) === best[0]);
        await v.page.click(`${v.pane('call')} [data-role="collapse-all"]`);
        await v.idle();
        await v.page.locator(`${v.pane('call')} .tree-box`).click({ button: 'right', position: { x: 200, y: 150 } });
        const noRef = await v.page.evaluate(() => ({
            ref: document.querySelector('#context-menu').dataset.ref,
            sub: document.querySelector('#context-menu [data-action="collapse-subtree"]').disabled,
            all: document.querySelector('#context-menu [data-action="collapse-all"]').disabled,
        }));
        h.ok(noRef.ref === '' && noRef.sub && !noRef.all, fc.name('the menu opened beside the nodes has no reference node: "Collapse subtree" disabled, "Collapse all" enabled'), [JSON.stringify(noRef)]);
        await v.page.keyboard.press('Escape');
        await v.setExpanded('call', root, true);
        await fc.menu('call', root, 'find');
        await answer(v, { pattern: re });
        const marks = async () => v.page.evaluate((sel) => [...document.querySelectorAll(sel + ' li.node')].map((li) => ({
            id: Number(li.dataset.id), expanded: li.dataset.expanded === 'true',
            found: li.classList.contains('found'), current: li.classList.contains('found-current'), within: li.classList.contains('found-within'),
            bg: getComputedStyle(li.querySelector('.label')).backgroundColor,
        })), v.pane('call'));
        const check = async (text, cur) => {
            const bad = [];
            const anc = (i) => { const a = []; for (let q = defs.cnodes[i].parent; q >= 0; q = defs.cnodes[q].parent) a.push(q); return a; };
            for (const r of await marks()) {
                const f = hits.includes(r.id), w = !r.expanded && hits.some((x) => anc(x).includes(r.id));
                if (r.found !== f || r.within !== w) bad.push(`${r.id}: found ${r.found} within ${r.within}, expected ${f} ${w}`);
                if (r.current !== (r.id === cur)) bad.push(`${r.id}: current ${r.current}`);
                const want = r.current ? [255, 179, 0] : f ? [255, 233, 77] : w ? [255, 248, 200] : null;
                if (want && !same(r.bg, want)) bad.push(`${r.id}: background ${r.bg}, expected rgb(${want})`);
            }
            h.ok(bad.length === 0, fc.name(text), bad.slice(0, 5));
        };
        await check(`"Find items" /${re}/ marks the ${hits.length} matching call paths shown yellow, the collapsed ones containing one light yellow, the first current`, hits[0]);
        await v.shot(h, `${fc.label}-find`);
        if (hits.length > 1) {
            await fc.menu('call', root, 'find-next');
            const st = await v.nodeState('call', hits[1]);
            h.ok(st !== null, fc.name(`"Find next" shows the second match, call path ${hits[1]}`));
            await check('"Find next" makes the second match the current one', hits[1]);
            await v.shot(h, `${fc.label}-find-next`);
        }
        await fc.menu('call', root, 'clear-found');
        const left = (await marks()).filter((r) => r.found || r.within || r.current);
        h.ok(left.length === 0, fc.name('"Clear found items" removes the marks'), [`still marked: ${left.map((r) => r.id).join(' ')}`]);
    });
}

// the items the manual lists, per tree (the trace browser's is left out)
const MENU = {
    metric: ['collapse-all', 'collapse-subtree', 'expand-all', 'expand-subtree', 'expand-largest', 'find', 'find-next', 'clear-found', 'info', 'online', 'statistics'],
    call: ['collapse-all', 'collapse-subtree', 'expand-all', 'expand-subtree', 'expand-largest', 'dynamic-hiding', 'redefine-threshold',
        'static-hiding', 'static-minor', 'hide', 'show-children', 'no-hiding', 'find', 'find-next', 'clear-found',
        'call-site-location', 'call-site-source', 'info', 'online', 'location', 'source', 'min-max'],
    system: ['collapse-all', 'collapse-subtree', 'collapse-peers', 'expand-all', 'expand-subtree', 'expand-peers', 'expand-largest',
        'dynamic-hiding', 'redefine-threshold', 'static-hiding', 'static-minor', 'hide', 'show-children', 'no-hiding',
        'find', 'find-next', 'clear-found', 'info', 'min-max'],
    flat: ['collapse-all', 'collapse-subtree', 'expand-all', 'expand-subtree', 'dynamic-hiding', 'static-hiding', 'no-hiding',
        'find', 'find-next', 'clear-found', 'info', 'online', 'location', 'source', 'min-max', 'sort-value', 'sort-name'],
};
const NOT = { metric: ['dynamic-hiding', 'static-hiding', 'no-hiding', 'min-max'] };

async function menuAudit(fc, m, root) {
    const h = fc.h, v = fc.v, defs = fc.defs;
    await fc.step('context menu items', async () => {
        const items = async (kind, id) => {
            await v.reveal(kind, id);
            await v.page.locator(v.nodeSel(kind, id)).locator('.label').first().click({ button: 'right' });
            const l = await v.page.$$eval('#context-menu [data-action]', (e) => e.filter((b) => !b.hidden).map((b) => b.dataset.action));
            await v.page.keyboard.press('Escape');
            return l;
        };
        const bad = [];
        const mk = defs.metrics.findIndex((x) => x.parent < 0);
        const got = { metric: await items('metric', mk), call: await items('call', root), system: await items('system', 0) };
        await v.tab('call', 'flat');
        const region = defs.cnodes[root].region;
        await v.page.locator(`${v.pane('call')} li.node[data-id="${region}"][data-part]`).first().locator('.label').click({ button: 'right' });
        got.flat = await v.page.$$eval('#context-menu [data-action]', (e) => e.filter((b) => !b.hidden).map((b) => b.dataset.action));
        await v.page.keyboard.press('Escape');
        await v.tab('call', 'tree');
        for (const t of Object.keys(MENU)) {
            const missing = MENU[t].filter((a) => !got[t].includes(a));
            const extra = (NOT[t] || []).filter((a) => got[t].includes(a));
            if (missing.length) bad.push(`${t}: missing ${missing.join(' ')}`);
            if (extra.length) bad.push(`${t}: offers ${extra.join(' ')}`);
        }
        h.ok(bad.length === 0, fc.name('each tree\'s context menu has the items the manual lists for it (no hiding in the metric tree)'), bad);
    });
    await fc.step('expand all, expand peers', async () => {
        const inner = defs.cnodes.map((c, i) => i).filter((i) => defs.cnodes.some((c) => c.parent === i));
        if (inner.length < 2000) {
            await v.page.click(`${v.pane('call')} [data-role="collapse-all"]`);
            await v.idle();
            await fc.menu('call', root, 'expand-all');
            const s = await v.page.evaluate((sel) => Object.fromEntries([...document.querySelectorAll(sel + ' li.node')].map((li) => [li.dataset.id, li.dataset.expanded === 'true'])), v.pane('call'));
            const bad = defs.cnodes.map((c, i) => i).filter((i) => !(String(i) in s) || (inner.includes(i) && !s[i]));
            h.ok(bad.length === 0, fc.name(`"Expand all" shows all ${defs.cnodes.length} call paths expanded`), [`not shown or collapsed: ${bad.slice(0, 8).join(' ')}`]);
            await v.page.click(`${v.pane('call')} [data-role="collapse-all"]`);
            await v.idle();
        }
        const procs = defs.system.map((s, i) => i).filter((i) => defs.system[i].kind === 'process' && defs.system.some((c) => c.parent === i));
        if (procs.length >= 2) {
            await v.page.click(`${v.pane('system')} [data-role="collapse-all"]`);
            await v.idle();
            await fc.menu('system', procs[0], 'expand-peers');
            const s = await v.page.evaluate((sel) => Object.fromEntries([...document.querySelectorAll(sel + ' li.node')].map((li) => [li.dataset.id, li.dataset.expanded === 'true'])), v.pane('system'));
            await v.reveal('system', procs[procs.length - 1]);
            const last = await v.nodeState('system', procs[procs.length - 1]);
            h.ok(s[procs[0]] === true && last && last.expanded, fc.name(`"Expand peers" on process ${procs[0]} expands the ${procs.length} processes`), [JSON.stringify(s)]);
            await v.page.click(`${v.pane('system')} [data-role="collapse-all"]`);
            await v.idle();
        }
    });
    await fc.step('min/max values', async () => {
        await v.select('metric', m);
        const rows = (await callNodes(v)).filter((r) => r.value !== '' && pageNumber(r.value) > 0);
        if (!rows.length) { h.skip(fc.name('min/max values'), 'no positive value shown'); return; }
        const x = pageNumber(rows[0].value), hi = x / 2;
        await fc.menu('call', rows[0].id, 'min-max');
        await answer(v, { min: 0, max: hi });
        const now = (await callNodes(v)).filter((r) => r.value !== '');
        const bad = now.filter((r) => !same(r.colour, colourAt(pageNumber(r.value), 0, hi, undefined, 'linear', true))).map((r) => `${r.id} ${r.value}: ${r.colour}`);
        const lg = await v.legend('call');
        h.ok(bad.length === 0 && lg && lg.min === 0 && lg.max === hi,
            fc.name(`"Min/max values" 0 and ${hi}: the scale is theirs, call path ${rows[0].id} (${x}, above it) is grey`), [...bad.slice(0, 4), JSON.stringify(lg)]);
        await fc.menu('call', rows[0].id, 'min-max');
        const lg2 = await v.legend('call');
        h.ok(lg2 && lg2.max !== hi, fc.name('"Min/max values" again returns to the legend\'s range'), [JSON.stringify(lg2)]);
    });
}

async function run(fc, m, root) {
    await colourPositionChecks(fc);
    await hidingChecks(fc, m, root);
    await findChecks(fc, m, root);
    await menuAudit(fc, m, root);
}

module.exports = { run, colourAt };
