'use strict';
// The topology display of a cube_view page (cube_view(1), Topologies), on a
// page of its own: the tool bar, the mouse, the dimension order and the
// Topology menu change the drawn geometry exactly as the projection that
// cube_view(1) documents says, checked on the screen corners of known cells;
// the cells keep one per coordinate; item colouring, unused hardware, line
// colouring and the tool bar labels; a right click shows the cell's
// information, equal to cube_dump's; a click selects the system tree item.
const { View, near } = require('./lib');

const RAD = Math.PI / 180;
const TOL = 0.02; // pixels

// the grid of a topology in a dimension order, from the page's definitions
function grid(topo, order, unused) {
    const dims = topo.dims.length ? topo.dims : [{ name: 'x', size: 1 }];
    const size = (d) => (d === undefined ? 1 : Math.max(1, dims[d].size));
    const folded = order.slice(2);
    let planes = 1;
    for (const d of folded) planes *= size(d);
    const planeOf = (c) => { let p = 0, m = 1; for (const d of folded) { p += c[d] * m; m *= size(d); } return p; };
    const used = new Set(topo.cells.map((e) => planeOf(e.slice(1))));
    const shown = [];
    for (let p = 0; p < planes; p++) if (unused || used.has(p)) shown.push(p);
    return { sx: size(order[0]), sy: size(order[1]), planes, planeOf, shown, used,
        at: (c) => ({ u: c[order[0]], v: order.length > 1 ? c[order[1]] : 0, plane: planeOf(c) }) };
}

// the documented projection: the screen point of (u, v) in the plane shown
// at position s
function screen(st, g, s, u, v) {
    const a = st.alpha * RAD, b = st.beta * RAD;
    const X = u - g.sx / 2, Y = (s - (g.shown.length - 1) / 2) * st.dist, Z = g.sy / 2 - v;
    const y1 = Y * Math.cos(a) - Z * Math.sin(a), z1 = Y * Math.sin(a) + Z * Math.cos(a);
    const x2 = X * Math.cos(b) + z1 * Math.sin(b);
    return [st.W / 2 + st.panX + st.zoom * x2, st.H / 2 + st.panY + st.zoom * y1];
}
function expectedCorners(st, g, coord) {
    const at = g.at(coord), s = g.shown.indexOf(at.plane);
    return [[0, 0], [1, 0], [0, 1], [1, 1]].map(([du, dv]) => screen(st, g, s, at.u + du, at.v + dv));
}

class TopoChecks {
    constructor(h, page, file, label) {
        this.h = h;
        this.v = new View(page);
        this.page = page;
        this.file = file;
        this.label = label;
        this.unused = false; // the Topology menu's "show also unused hardware"
    }
    name(t) { return `${this.label}: ${t}`; }
    svgSel() { return 'section.pane[data-pane="system"] svg.topology'; }

    async state() {
        return this.page.evaluate((sel) => {
            const s = document.querySelector(sel);
            if (!s) return null;
            const d = s.dataset;
            return {
                alpha: Number(d.xRotation), beta: Number(d.yRotation), dist: Number(d.planeDistance), zoom: Number(d.zoom),
                panX: Number(d.panX), panY: Number(d.panY), order: d.order.split(',').map(Number),
                W: Number(s.getAttribute('width')), H: Number(s.getAttribute('height')), index: Number(d.topology),
                planes: [...s.querySelectorAll('g.plane')].map((g) => Number(g.dataset.plane)),
            };
        }, this.svgSel());
    }
    // the screen corners of the cell at coord (SVG user units of the picture)
    async corners(coord) {
        return this.page.evaluate(([sel, c]) => {
            const r = document.querySelector(`${sel} rect.cell[data-coord="${c}"]`);
            if (!r) return null;
            const m = r.getCTM(), x = Number(r.getAttribute('x')), y = Number(r.getAttribute('y'));
            return [[0, 0], [1, 0], [0, 1], [1, 1]].map(([dx, dy]) => {
                const p = new DOMPoint(x + dx, y + dy).matrixTransform(m);
                return [p.x, p.y];
            });
        }, [this.svgSel(), coord.join(',')]);
    }
    // the page's corners of `coord` against the projection of its state;
    // `want` (optional): the state values the operation must have produced
    async geometry(what, topo, coord, want) {
        const st = await this.state();
        const bad = [];
        if (want) {
            for (const k of Object.keys(want)) {
                if (k === 'order') { if (st.order.join(',') !== want.order.join(',')) bad.push(`order ${st.order}, expected ${want.order}`); } else if (Math.abs(st[k] - want[k]) > 1e-6 * Math.max(1, Math.abs(want[k]))) bad.push(`${k} ${st[k]}, expected ${want[k]}`);
            }
        }
        const g = grid(topo, st.order, this.unused);
        const exp = expectedCorners(st, g, coord);
        const got = await this.corners(coord);
        if (!got) bad.push(`no rect.cell[data-coord="${coord}"]`);
        else got.forEach((p, i) => {
            if (Math.abs(p[0] - exp[i][0]) > TOL || Math.abs(p[1] - exp[i][1]) > TOL)
                bad.push(`corner ${i}: drawn at (${p[0].toFixed(3)}, ${p[1].toFixed(3)}), the projection gives (${exp[i][0].toFixed(3)}, ${exp[i][1].toFixed(3)})`);
        });
        this.h.ok(bad.length === 0, this.name(`${what}: the cell (${coord}) is drawn where the projection of the view puts it`),
            [`state ${JSON.stringify(st)}`, ...bad.slice(0, 5)]);
        return st;
    }
    // every cell (and empty grid position) inside the picture
    async inside(what) {
        const out = await this.page.evaluate((sel) => {
            const s = document.querySelector(sel), W = Number(s.getAttribute('width')), H = Number(s.getAttribute('height'));
            const bad = [];
            for (const r of s.querySelectorAll('rect.cell, rect.empty')) {
                const m = r.getCTM(), x = Number(r.getAttribute('x')), y = Number(r.getAttribute('y'));
                for (const [dx, dy] of [[0, 0], [1, 1], [1, 0], [0, 1]]) {
                    const p = new DOMPoint(x + dx, y + dy).matrixTransform(m);
                    if (p.x < -0.5 || p.y < -0.5 || p.x > W + 0.5 || p.y > H + 0.5) bad.push(`${r.dataset.coord || 'empty'} (${p.x.toFixed(1)}, ${p.y.toFixed(1)})`);
                }
            }
            return bad;
        }, this.svgSel());
        this.h.ok(out.length === 0, this.name(what), out.slice(0, 4));
    }
    async button(action) {
        await this.page.click(`#topo-toolbar button[data-action="${action}"]`);
    }
    async option(name, value) {
        const menu = await this.page.$eval('#topo-menu', (m) => m.hidden);
        if (menu) await this.page.click('#topo-menu-open');
        const sel = typeof value === 'boolean' ? `#topo-menu input[data-option="${name}"]` : `#topo-menu input[data-option="${name}"][value="${value}"]`;
        if (typeof value === 'boolean') await this.page.setChecked(sel, value);
        else await this.page.check(sel);
        await this.page.keyboard.press('Escape');
        await this.v.idle();
    }
    // the centre of the cell on the screen (page coordinates)
    async centre(coord) {
        const c = await this.corners(coord);
        const box = await this.page.locator(this.svgSel()).boundingBox();
        return [box.x + (c[0][0] + c[3][0]) / 2, box.y + (c[0][1] + c[3][1]) / 2];
    }

    async run() {
        const h = this.h, v = this.v, page = this.page;
        const defs = await v.defs();
        const dump = h.dump(this.file, ['-w', 'topologies']).topologies;
        const sys = h.dump(this.file, ['-w', 'systemtree']).systemtree;

        // the tool bar is enabled only while a topology is shown
        const enabled = () => page.evaluate(() => [...document.querySelectorAll('#topo-toolbar button, #topo-toolbar input')].map((b) => !b.disabled));
        const off = await enabled();
        await v.tab('system', 'topo-0');
        const on = await enabled();
        h.ok(off.length >= 12 && off.every((x) => !x) && on.every((x) => x),
            this.name('the topology tool bar (10 buttons, 2 rotation spins) is disabled on the system tree tab, enabled on a topology tab'),
            [`on the tree tab enabled: ${off}`, `on the topology tab: ${on}`]);

        for (let k = 0; k < defs.topologies.length; k++) {
            const topo = defs.topologies[k];
            if (k > 0) await v.tab('system', `topo-${k}`);
            const mine = dump.filter((t) => t.topology === k);
            const cells = await page.evaluate((sel) => [...document.querySelectorAll(sel + ' rect.cell')].map((c) => c.dataset.coord), this.svgSel());
            h.ok(cells.length === mine.length && new Set(cells).size === cells.length && mine.every((t) => cells.includes(t.coords)),
                this.name(`topology ${k}: one cell per coordinate cube_dump lists (${mine.length})`), [`cells ${cells.length}`]);
            const coord = topo.cells[topo.cells.length - 1].slice(1);
            // opened at the default rotation, plane distance sy tan 40 + 1
            const sy = topo.dims.length > 1 ? topo.dims[1].size : 1;
            let st = await this.geometry(`topology ${k}, as opened`, topo, coord,
                { alpha: 40, beta: 25, dist: Math.max(1, Math.round((sy * Math.tan(40 * RAD) + 1) * 100) / 100) });
            const st0 = st;
            await this.inside(`topology ${k}: opened scaled into the picture (every cell inside it)`);
            if (k > 0 && !(this.label === 'topology')) continue;

            // the tool bar
            await this.button('right');
            st = await this.geometry(`topology ${k}, Move right`, topo, coord, { panX: st.panX + 20, panY: st.panY });
            await this.button('up');
            st = await this.geometry(`topology ${k}, Move up`, topo, coord, { panX: st.panX, panY: st.panY - 20 });
            await this.button('distance-up');
            st = await this.geometry(`topology ${k}, Increase plane distance`, topo, coord, { dist: st.dist + 0.5 });
            await this.button('zoom-in');
            st = await this.geometry(`topology ${k}, Zoom in`, topo, coord, { zoom: st.zoom * 1.25, panX: st.panX * 1.25, panY: st.panY * 1.25 });
            await this.button('zoom-out');
            st = await this.geometry(`topology ${k}, Zoom out`, topo, coord, { zoom: st.zoom / 1.25, panX: st.panX / 1.25, panY: st.panY / 1.25 });
            await this.button('left');
            st = await this.geometry(`topology ${k}, Move left`, topo, coord, { panX: st.panX - 20, panY: st.panY });
            await this.button('down');
            st = await this.geometry(`topology ${k}, Move down`, topo, coord, { panX: st.panX, panY: st.panY + 20 });
            await this.button('distance-down');
            st = await this.geometry(`topology ${k}, Decrease plane distance`, topo, coord, { dist: st.dist - 0.5 });
            await page.fill('#topo-toolbar input[data-role="y-rotation"]', '-35');
            await page.press('#topo-toolbar input[data-role="y-rotation"]', 'Enter');
            st = await this.geometry(`topology ${k}, y rotation spin set to -35`, topo, coord, { alpha: st.alpha, beta: -35 });
            await page.fill('#topo-toolbar input[data-role="x-rotation"]', '70');
            await page.press('#topo-toolbar input[data-role="x-rotation"]', 'Enter');
            st = await this.geometry(`topology ${k}, x rotation spin set to 70`, topo, coord, { alpha: 70, beta: st.beta });

            // the mouse: left drag rotates (0.5 degree per pixel), Ctrl+drag
            // changes the plane distance (pixels / zoom), Shift+drag moves,
            // the wheel zooms about the pointer
            const box = await page.locator(this.svgSel()).boundingBox();
            const x0 = box.x + 30, y0 = box.y + 30;
            const drag = async (dx, dy, mod) => {
                if (mod) await page.keyboard.down(mod);
                await page.mouse.move(x0, y0);
                await page.mouse.down();
                await page.mouse.move(x0 + dx / 2, y0 + dy / 2, { steps: 3 });
                await page.mouse.move(x0 + dx, y0 + dy, { steps: 3 });
                await page.mouse.up();
                if (mod) await page.keyboard.up(mod);
            };
            await drag(40, -20);
            st = await this.geometry(`topology ${k}, left drag by (40, -20)`, topo, coord, { alpha: st.alpha - 10, beta: st.beta + 20 });
            await drag(0, 30, 'Control');
            st = await this.geometry(`topology ${k}, Ctrl+left drag down by 30`, topo, coord, { dist: st.dist + 30 / st.zoom, alpha: st.alpha });
            await drag(25, -15, 'Shift');
            st = await this.geometry(`topology ${k}, Shift+left drag by (25, -15)`, topo, coord, { panX: st.panX + 25, panY: st.panY - 15, alpha: st.alpha });
            // at whole pixels: the events' positions are
            const mx = Math.round(box.x + 60), my = Math.round(box.y + 50), px = mx - box.x, py = my - box.y;
            await page.mouse.move(mx, my);
            await page.mouse.wheel(0, -100);
            await page.waitForFunction(([sel, z]) => Number(document.querySelector(sel).dataset.zoom) !== z, [this.svgSel(), st.zoom]);
            const ox = px - st.W / 2, oy = py - st.H / 2;
            st = await this.geometry(`topology ${k}, mouse wheel up at (${px.toFixed(1)}, ${py.toFixed(1)})`, topo, coord,
                { zoom: st.zoom * 1.1, panX: ox - (ox - st.panX) * 1.1, panY: oy - (oy - st.panY) * 1.1 });
            await v.shot(h, `${this.label}-topology-${k}-rotated`);
            await this.button('fit');
            st = await this.geometry(`topology ${k}, Scale into window`, topo, coord, { alpha: st.alpha, beta: st.beta, dist: st.dist });
            await this.inside(`topology ${k}: Scale into window puts every cell inside the picture, the rotation kept`);
            await this.button('reset');
            st = await this.geometry(`topology ${k}, Reset`, topo, coord, { alpha: 40, beta: 25, dist: st0.dist });
            await this.inside(`topology ${k}: Reset puts every cell inside the picture`);

            // the dimension order: x and y chosen, the others folded into the planes
            if (topo.dims.length >= 3) {
                await page.selectOption('#topo-toolbar select[data-role="order-x"]', '2');
                await v.idle();
                const order = [2, 1, 0].concat(topo.dims.map((_, i) => i).slice(3));
                st = await this.geometry(`topology ${k}, dimension 2 on the x axis`, topo, coord, { order });
                const g = grid(topo, order, false);
                const placed = await page.evaluate((sel) => [...document.querySelectorAll(sel + ' rect.cell')].map((r) =>
                    ({ coord: r.dataset.coord, u: Number(r.getAttribute('x')), v: Number(r.getAttribute('y')), plane: Number(r.parentNode.dataset.plane) })), this.svgSel());
                const wrong = placed.filter((p) => {
                    const at = g.at(p.coord.split(',').map(Number));
                    return at.u !== p.u || at.v !== p.v || at.plane !== p.plane;
                });
                h.ok(placed.length === topo.cells.length && wrong.length === 0,
                    this.name(`topology ${k}: with the order x = dimension 2, y = dimension 1, every cell lies in column c2, row c1 of plane c0 (folded)`),
                    wrong.slice(0, 4).map((p) => `${p.coord}: column ${p.u}, row ${p.v}, plane ${p.plane}`));
                await v.shot(h, `${this.label}-topology-${k}-order`);
                await page.selectOption('#topo-toolbar select[data-role="order-x"]', '0');
                await page.selectOption('#topo-toolbar select[data-role="order-y"]', '1');
                await v.idle();
                await this.geometry(`topology ${k}, dimension order back to 0, 1`, topo, coord, { order: topo.dims.map((_, i) => i) });
            }
        }

        await this.cellChecks(defs, dump, sys);
        if (this.label === 'topology') await this.optionChecks(defs);
    }

    // a right click shows the information of the cell's system item; a left
    // click selects it (in the system tree too), Ctrl+click adds
    async cellChecks(defs, dump, sys) {
        const h = this.h, v = this.v, page = this.page;
        await v.tab('system', 'topo-0');
        const topo = defs.topologies[0];
        const selectedId = (k) => page.evaluate((q) => Number(document.querySelector(`section.pane[data-pane="${q}"] li.node[data-selected="true"]`).dataset.id), k);
        const metric = defs.metrics[await selectedId('metric')].uniq;
        const cnode = await selectedId('call');
        const rows = h.dump(this.file, ['-m', metric, '-c', String(cnode), '-z', 'incl']);
        const value = new Map(rows.map((r) => [r.location, r.value]));
        const mine = dump.filter((t) => t.topology === 0);
        const vals = mine.map((t) => value.get(t.id)).filter((x) => x !== null && x !== undefined);
        const lo = Math.min(...vals), hi = Math.max(...vals);
        const entry = mine[Math.min(3, mine.length - 1)];
        const coord = entry.coords.split(',').map(Number);
        const thread = sys.find((s) => s.kind === 'thread' && s.id === entry.id);
        const proc = sys.find((s) => s.kind === 'process' && s.id === thread.parent_id);
        const node = sys.find((s) => s.kind === 'node' && s.id === proc.parent_id);
        const [cx, cy] = await this.centre(coord);
        await page.mouse.click(cx, cy, { button: 'right' });
        const info = await page.evaluate(() => {
            const b = document.getElementById('node-info');
            const f = {};
            for (const dd of b.querySelectorAll('dd[data-field]')) f[dd.dataset.field] = { text: dd.textContent, value: dd.dataset.value };
            return { hidden: b.hidden, fields: f };
        });
        const want = value.get(entry.id);
        const pct = hi > lo ? (want - lo) / (hi - lo) * 100 : 100;
        const F = info.fields;
        const bad = [];
        if (info.hidden) bad.push('#node-info hidden');
        if (!F.coord || F.coord.value !== entry.coords) bad.push(`coordinate ${F.coord && F.coord.value}, cube_dump ${entry.coords}`);
        if (!F.node || F.node.value !== node.name) bad.push(`node ${F.node && F.node.value}, cube_dump ${node.name}`);
        if (!F.name || F.name.value !== thread.name) bad.push(`name ${F.name && F.name.value}, cube_dump ${thread.name}`);
        if (!F.rank || Number(F.rank.value) !== proc.rank) bad.push(`MPI rank ${F.rank && F.rank.value}, cube_dump ${proc.rank}`);
        if (!F.id || F.id.value !== `thread ${thread.id}`) bad.push(`identifier ${F.id && F.id.value}, cube_dump thread ${thread.id}`);
        if (!F.value || !near(Number(F.value.value), want)) bad.push(`value ${F.value && F.value.value}, cube_dump ${want}`);
        if (!F.percent || !near(Number(F.percent.value), pct, 1e-9)) bad.push(`percent ${F.percent && F.percent.value}, from cube_dump ${pct} (${want} between ${lo} and ${hi})`);
        if (F.percent && !F.value.text.includes(`(${pct.toFixed(2)} %)`)) bad.push(`value text '${F.value.text}' without (${pct.toFixed(2)} %)`);
        h.ok(bad.length === 0, this.name(`right click on the cell (${entry.coords}): coordinate, node, name, MPI rank, identifier, value and its percent between the topology's minimum and maximum equal cube_dump's`), bad);
        await v.shot(h, `${this.label}-topology-info`);
        await page.keyboard.press('Escape');

        // a click selects the thread: cell framed and marked, system tree item selected
        await page.mouse.click(cx, cy);
        await v.idle();
        const sel = await page.evaluate((s) => {
            const svg = document.querySelector(s);
            return {
                selected: [...svg.querySelectorAll('rect.cell.selected')].map((r) => Number(r.dataset.id)),
                frame: [...svg.querySelectorAll('.frame')].map((r) => Number(r.dataset.id)),
                marks: svg.querySelectorAll('line.mark').length,
            };
        }, this.svgSel());
        const sid = defs.system.findIndex((s) => s.kind === 'thread' && s.index === entry.id);
        h.ok(sel.selected.join() === String(sid) && sel.frame.join() === String(sid) && sel.marks === 4,
            this.name(`a click on the cell (${entry.coords}) selects thread ${entry.id}: the cell framed, four marks beside its plane`), [JSON.stringify(sel)]);
        const other = mine.find((t) => t.id !== entry.id);
        const [ox, oy] = await this.centre(other.coords.split(',').map(Number));
        await page.keyboard.down('Control');
        await page.mouse.click(ox, oy);
        await page.keyboard.up('Control');
        await v.idle();
        const two = await page.evaluate((s) => ({
            selected: [...document.querySelectorAll(s + ' rect.cell.selected')].length,
            frame: [...document.querySelectorAll(s + ' .frame')].map((r) => Number(r.dataset.id)),
        }), this.svgSel());
        h.ok(two.selected === 2 && two.frame.join() === String(sid),
            this.name('Ctrl+click adds a second cell; the frame stays on the first selected item'), [JSON.stringify(two)]);
        await v.shot(h, `${this.label}-topology-selected`);
        await v.tab('system', 'tree');
        await v.reveal('system', sid);
        const st = await v.nodeState('system', sid);
        h.ok(st && st.selected, this.name(`the system tree has thread ${entry.id} selected after the click on its cell`), [JSON.stringify(st)]);
        await v.select('system', sid);
        await v.tab('system', 'topo-0');
    }

    // the Topology menu on topology.cube (thread 0 has the value 0; its
    // topology 0 leaves plane 1 unused)
    async optionChecks(defs) {
        const h = this.h, v = this.v, page = this.page;
        await v.tab('system', 'topo-0');
        const fillOf = (coord) => page.evaluate(([s, c]) => document.querySelector(`${s} rect.cell[data-coord="${c}"]`).getAttribute('fill'), [this.svgSel(), coord]);
        const zero = defs.topologies[0].cells.find((e) => defs.system[e[0]].index === 0).slice(1).join(',');
        const white = await fillOf(zero);
        await this.option('itemColour', 'min');
        const min = await fillOf(zero);
        h.ok(white === 'rgb(255,255,255)' && min === 'rgb(0,0,255)',
            this.name('item colouring: the zero cell is white with "white for zero", the minimum colour (blue) with "white only if all leaf values are zero" while other threads are not zero'),
            [`white for zero: ${white}; else minimum: ${min}`]);
        await v.select('call', defs.cnodes.findIndex((c) => defs.regions[c.region].name === 'f'));
        const fills = await page.evaluate((s) => [...document.querySelectorAll(s + ' rect.cell')].map((r) => r.getAttribute('fill')), this.svgSel());
        h.ok(fills.length > 0 && fills.every((f) => f === 'rgb(255,255,255)'),
            this.name('item colouring "white only if all leaf values are zero": call path f (zero on every thread) leaves every cell white'), [fills.join(' ')]);
        await v.select('call', 0);
        await this.option('itemColour', 'white');

        const planes = () => page.evaluate((s) => [...document.querySelectorAll(s + ' g.plane')].map((g) => ({
            plane: Number(g.dataset.plane), empty: g.querySelectorAll('rect.empty').length,
            grey: [...g.querySelectorAll('rect.empty')].every((r) => getComputedStyle(r).fill === 'rgb(201, 206, 214)'),
        })).sort((a, b) => a.plane - b.plane), this.svgSel());
        const g = grid(defs.topologies[0], [0, 1, 2], false);
        const emptyOf = (p) => g.sx * g.sy - defs.topologies[0].cells.filter((e) => g.planeOf(e.slice(1)) === p).length;
        const hid = await planes();
        const wantHid = g.shown.map((p) => ({ plane: p, empty: emptyOf(p), grey: true }));
        await this.option('unused', true);
        this.unused = true;
        const all = await planes();
        const wantAll = Array.from({ length: g.planes }, (_, p) => ({ plane: p, empty: emptyOf(p), grey: true }));
        h.ok(JSON.stringify(hid) === JSON.stringify(wantHid) && JSON.stringify(all) === JSON.stringify(wantAll) && g.shown.length < g.planes,
            this.name('"show also unused hardware": off, the planes without items are left out; on, every plane is drawn; unused cells grey'),
            [`off: ${JSON.stringify(hid)}`, `expected ${JSON.stringify(wantHid)}`, `on: ${JSON.stringify(all)}`, `expected ${JSON.stringify(wantAll)}`]);
        await this.geometry('unused hardware shown (every plane placed)', defs.topologies[0], defs.topologies[0].cells[5].slice(1));
        await v.shot(h, `${this.label}-topology-unused`);
        await this.option('unused', false);
        this.unused = false;

        const stroke = (c) => page.evaluate(([s, x]) => getComputedStyle(document.querySelector(`${s} rect.cell[data-coord="${x}"]`)).stroke, [this.svgSel(), c]);
        const strokes = {};
        for (const l of ['black', 'white', 'none', 'gray']) { await this.option('lines', l); strokes[l] = await stroke(zero); }
        h.ok(strokes.black === 'rgb(0, 0, 0)' && strokes.white === 'rgb(255, 255, 255)' && strokes.none === 'none' && /^rgb/.test(strokes.gray) && strokes.gray !== strokes.black,
            this.name('line colouring black, white, no lines and gray set the cells\' lines'), [JSON.stringify(strokes)]);
        await this.option('antialias', false);
        const crisp = await page.$eval(this.svgSel(), (s) => s.getAttribute('shape-rendering'));
        await this.option('antialias', true);
        h.ok(crisp === 'crispEdges', this.name('antialiasing off draws crisp edges'), [crisp]);

        await this.option('toolbar', 'text');
        const text = await page.$eval('#topo-toolbar button[data-action="left"]', (b) => b.textContent);
        await page.click('#topo-menu-open');
        await v.shot(h, `${this.label}-topology-menu`);
        await this.option('toolbar', 'hidden');
        const hidden = await page.$eval('#topo-toolbar', (b) => !b.checkVisibility());
        await this.option('toolbar', 'icons');
        const icon = await page.$eval('#topo-toolbar button[data-action="left"]', (b) => b.textContent);
        h.ok(text === 'Move left' && hidden && icon === '\u2190',
            this.name('the tool bar labelled by text, hidden, and by icons'), [`text '${text}', hidden ${hidden}, icon '${icon}'`]);
    }
}

// opens PAGE (a file:// URL) in a tab of its own and runs the checks
async function topologyChecks(h, url, file, label) {
    const opened = await h.open(url);
    try {
        await new TopoChecks(h, opened.page, file, label).run();
    } catch (e) {
        h.fail(`${label}: topology display checks`, e);
    }
    h.ok(opened.errors.length === 0, `${label}: topology display: no console errors, page errors or requests outside the page`, opened.errors.slice(0, 6));
    await opened.page.close();
}

module.exports = { topologyChecks };
