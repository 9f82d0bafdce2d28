/* cube_view topology display: the Cartesian topologies of the system pane drawn as
 * planes of cells stacked on top of each other in a parallel projection, the
 * topology tool bar (move, plane distance, zoom, reset, fit, rotation, the order of
 * the dimensions), the mouse (drag rotates, Ctrl+drag changes the plane distance,
 * Shift+drag moves, the wheel zooms, a click selects, a right click shows the
 * cell's information) and the Topology menu (item and line colouring, the tool
 * bar's labels, unused hardware, antialiasing).
 *
 * Geometry.  The order of the dimensions puts one dimension on the x axis of a
 * plane (columns), one on its y axis (rows) and folds the others into the planes:
 * their coordinates are counted together, the first of them fastest, and each
 * combination is one plane.  Cell (u, v) of the plane shown at position s (0 the
 * top one, of n shown planes), a plane sx columns wide and sy rows deep, is the
 * unit square from the model point
 *     X = u - sx/2,   Y = (s - (n-1)/2) * d,   Z = sy/2 - v
 * (d: the plane distance in cell widths), rotated about the x axis by the angle a
 * and then about the (vertical) y axis by the angle b:
 *     y1 = Y cos a - Z sin a,   z1 = Y sin a + Z cos a,
 *     x2 = X cos b + z1 sin b,  z2 = z1 cos b - X sin b,
 * and drawn at (W/2 + panX + zoom * x2, H/2 + panY + zoom * y1) of a W x H
 * picture; farther planes (larger z2) are drawn first.  The mapping is affine for
 * every plane, so each plane is one SVG group whose transform is that mapping and
 * whose cells are unit rectangles at (u, v). */
(function () {
  'use strict';
  const CubeUI = window.CubeUI, ui = CubeUI.ui, el = CubeUI.el;

  const DEFAULT_X_ROTATION = 40, DEFAULT_Y_ROTATION = 25;   /* degrees */
  const DRAG_DEGREES = 0.5;     /* rotation per pixel of left drag */
  const MOVE_STEP = 20;         /* pixels per Move button or arrow key */
  const ZOOM_STEP = 1.25;       /* per Zoom button or +/- key */
  const WHEEL_STEP = 1.1;       /* per wheel notch */
  const DISTANCE_STEP = 0.5;    /* cell widths per plane distance button */
  const CLICK_SLOP = 3;         /* pixels a press may move and still be a click */
  const MARGIN = 16;            /* pixels around the fitted topology */
  const LABEL_ROOM = 70;        /* pixels right of the planes for their labels */
  const MARK_OFFSET = 0.35;     /* cell widths between a plane's edge and the selection's marks */
  const MAX_EMPTY_CELLS = 65536;
  const RAD = Math.PI / 180;

  /* The Topology menu.  itemColour: 'white' (zero values white) or 'min' (white
   * only when every system leaf value is zero, else the minimum's colour). */
  const options = ui.topoOptions = {itemColour: 'white', lines: 'gray', toolbar: 'icons', unused: false, antialias: true};
  /* Per topology index: rotation, plane distance, zoom, offset and dimension order,
   * kept while other tabs are shown. */
  const views = ui.topoViews = {};

  function dimsOf(topo) { return topo.dims.length ? topo.dims : [{name: 'x', size: 1}]; }
  function dimName(dims, d) { return dims[d].name || 'dimension ' + d; }

  function viewOf(index) {
    if (!views[index]) {
      const n = dimsOf(ui.defs.topologies[index]).length;
      views[index] = {order: Array.from({length: n}, function (_, i) { return i; }), zoom: null};
      resetRotation(views[index], index);
    }
    return views[index];
  }

  function defaultDistance(v, index) {
    const g = gridOf(index, v.order);
    const a = v.alpha * RAD;
    /* A gap of about one cell between the planes, as seen at the default tilt. */
    return Math.max(1, Math.round((g.sy * Math.abs(Math.tan(a)) + 1) * 100) / 100);
  }

  function resetRotation(v, index) {
    v.alpha = DEFAULT_X_ROTATION; v.beta = DEFAULT_Y_ROTATION;
    v.dist = defaultDistance(v, index);
    v.panX = 0; v.panY = 0;
  }

  /* The grid of a topology in a dimension order: columns, rows, planes, and the
   * plane and position of a coordinate. */
  function gridOf(index, order) {
    const dims = dimsOf(ui.defs.topologies[index]);
    const size = function (d) { return d === undefined ? 1 : Math.max(1, dims[d].size | 0); };
    const folded = order.slice(2);
    let planes = 1;
    for (const d of folded) planes *= size(d);
    return {
      dims: dims, sx: size(order[0]), sy: size(order[1]), planes: planes, folded: folded,
      place: function (c) {
        let p = 0, m = 1;
        for (const d of folded) { p += (c[d] || 0) * m; m *= size(d); }
        return {u: c[order[0]] || 0, v: order.length > 1 ? c[order[1]] || 0 : 0, plane: p};
      },
      label: function (p) {
        const parts = [];
        for (const d of folded) { parts.push((dims[d].name || 'd' + d) + '=' + (p % size(d))); p = Math.floor(p / size(d)); }
        return parts.join(', ');
      },
    };
  }

  /* The projection of the model point (X, Y, Z) before zoom and offset. */
  function project(v, X, Y, Z) {
    const a = v.alpha * RAD, b = v.beta * RAD;
    const y1 = Y * Math.cos(a) - Z * Math.sin(a), z1 = Y * Math.sin(a) + Z * Math.cos(a);
    return [X * Math.cos(b) + z1 * Math.sin(b), y1, z1 * Math.cos(b) - X * Math.sin(b)];
  }

  function planeY(t, v, s) { return (s - (t.shown.length - 1) / 2) * v.dist; }

  /* ---------- building ---------- */

  function buildTopology(box, index) {
    const topo = ui.defs.topologies[index];
    const v = viewOf(index);
    const g = gridOf(index, v.order);
    const cellsByPlane = new Map();
    const cells = [];
    for (const entry of topo.cells) {
      const id = entry[0], c = entry.slice(1), at = g.place(c);
      const sys = ui.defs.system[id];
      const r = el('rect', {class: 'cell', x: at.u, y: at.v, width: 1, height: 1, 'data-coord': c.join(','), 'data-id': id, 'data-value': ''});
      r.appendChild(el('title'));
      r._id = id; r._coord = c; r._at = at;
      r._label = (sys ? sys.kind + ' ' + sys.name + (sys.rank >= 0 ? ', rank ' + sys.rank : '') : 'system ' + id) +
        '\ncoordinate (' + c.join(', ') + ')';
      if (!cellsByPlane.has(at.plane)) cellsByPlane.set(at.plane, []);
      cellsByPlane.get(at.plane).push(r);
      cells.push(r);
    }
    /* Planes without any system item are unused hardware: left out unless the
     * Topology menu shows them. */
    const shown = [];
    for (let p = 0; p < g.planes; p++) if (options.unused || cellsByPlane.has(p)) shown.push(p);

    const head = el('div', {class: 'topo-head', text: (topo.name || 'Topology ' + index) + ': ' +
      g.dims.map(function (d) { return (d.name || '') + ' ' + d.size + (d.periodic ? ' (periodic)' : ''); }).join(' \u00d7 ') +
      (g.planes > 1 ? '; planes: ' + g.folded.map(function (d) { return dimName(g.dims, d); }).join(' \u00d7 ') +
        ' (' + shown.length + (shown.length < g.planes ? ' of ' + g.planes + ' shown' : '') + ')' : '')});
    const legend = CubeUI.buildLegend('topology');
    legend.setAttribute('class', 'topo-legend');
    box.textContent = '';
    box.appendChild(head);
    const holder = el('div', {class: 'topo-canvas'});
    box.appendChild(holder);
    box.appendChild(legend);
    const W = Math.max(200, Math.floor(holder.clientWidth || box.clientWidth || 400));
    const H = Math.max(160, Math.floor(holder.clientHeight || (box.clientHeight - head.offsetHeight - legend.offsetHeight - 12) || 300));

    const svg = el('svg', {class: 'topology', 'data-topology': index, width: W, height: H, viewBox: '0 0 ' + W + ' ' + H,
      role: 'img', 'data-lines': options.lines, 'shape-rendering': options.antialias ? 'geometricPrecision' : 'crispEdges',
      'aria-label': (topo.name || 'Topology') + ': ' + g.dims.map(function (d) { return d.size; }).join(' x ')});
    const planesG = el('g', {class: 'planes'}), labelsG = el('g', {class: 'labels'});
    svg.appendChild(planesG); svg.appendChild(labelsG);
    const groups = [];
    const emptyOk = shown.length * g.sx * g.sy <= MAX_EMPTY_CELLS;
    shown.forEach(function (p, s) {
      const grp = el('g', {class: 'plane', 'data-plane': p, 'data-position': s});
      const mine = cellsByPlane.get(p) || [];
      /* Grid positions without a system item are grey. */
      if (emptyOk) {
        const used = new Set(mine.map(function (r) { return r._at.u + ':' + r._at.v; }));
        for (let y = 0; y < g.sy; y++) for (let x = 0; x < g.sx; x++)
          if (!used.has(x + ':' + y)) grp.appendChild(el('rect', {class: 'empty', x: x, y: y, width: 1, height: 1}));
      }
      for (const r of mine) grp.appendChild(r);
      grp._position = s;
      groups.push(grp);
      planesG.appendChild(grp);
      if (g.planes > 1) labelsG.appendChild(el('text', {class: 'plane-label', 'data-plane': p, text: g.label(p)}));
    });
    holder.appendChild(svg);
    box._topo = {index: index, cells: cells, legend: legend, svg: svg, groups: groups, grid: g, shown: shown,
      labels: labelsG, W: W, H: H};
    attachMouse(box, svg);
    if (v.zoom === null) fit(box._topo, v);
    place(box._topo);
    updateToolbar();
    if (ui.result) drawTopology(ui.result);
  }
  CubeUI.buildTopology = buildTopology;

  /* The zoom and offset that fit every shown plane into the picture. */
  function fit(t, v) {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    t.shown.forEach(function (_, s) {
      const Y = planeY(t, v, s);
      /* The planes and the selection's marks beside them. */
      const lo = -MARK_OFFSET, hx = t.grid.sx + MARK_OFFSET, hy = t.grid.sy + MARK_OFFSET;
      for (const [u, w] of [[lo, lo], [hx, lo], [lo, hy], [hx, hy]]) {
        const q = project(v, u - t.grid.sx / 2, Y, t.grid.sy / 2 - w);
        x0 = Math.min(x0, q[0]); x1 = Math.max(x1, q[0]); y0 = Math.min(y0, q[1]); y1 = Math.max(y1, q[1]);
      }
    });
    const bw = x1 - x0, bh = y1 - y0;
    /* Room for the plane labels on the right. */
    const right = t.grid.planes > 1 ? LABEL_ROOM : 0;
    const zx = bw > 1e-9 ? (t.W - 2 * MARGIN - right) / bw : Infinity, zy = bh > 1e-9 ? (t.H - 2 * MARGIN) / bh : Infinity;
    let z = Math.min(zx, zy);
    if (!isFinite(z) || z <= 0) z = 20;
    v.zoom = Math.min(1000, Math.max(0.01, z));
    v.panX = -(x0 + x1) / 2 * v.zoom - right / 2;
    v.panY = -(y0 + y1) / 2 * v.zoom;
  }

  /* Sets each plane's transform, the drawing order and the plane labels from the view. */
  function place(t) {
    const v = viewOf(t.index), g = t.grid;
    const a = v.alpha * RAD, b = v.beta * RAD, z = v.zoom;
    const cx = t.W / 2 + v.panX, cy = t.H / 2 + v.panY;
    /* d/du and d/dv of the screen position (the same for every plane). */
    const eu = [z * Math.cos(b), 0], ev = [-z * Math.cos(a) * Math.sin(b), z * Math.sin(a)];
    const depth = [];
    t.groups.forEach(function (grp, s) {
      const Y = planeY(t, v, s);
      const o = project(v, -g.sx / 2, Y, g.sy / 2);
      const m = [eu[0], eu[1], ev[0], ev[1], cx + z * o[0], cy + z * o[1]];
      grp.setAttribute('transform', 'matrix(' + m.map(function (x) { return +x.toFixed(4); }).join(' ') + ')');
      depth.push([project(v, 0, Y, 0)[2], grp]);
      const lab = t.labels.children[s];
      if (lab) {
        const q = project(v, g.sx / 2 + MARK_OFFSET, Y, 0);
        lab.setAttribute('x', (cx + z * q[0] + 6).toFixed(1));
        lab.setAttribute('y', (cy + z * q[1] + 3).toFixed(1));
      }
    });
    depth.sort(function (p, q) { return q[0] - p[0]; });
    const parent = t.groups.length ? t.groups[0].parentNode : null;
    for (const [, grp] of depth) parent.appendChild(grp);
    const s = t.svg.dataset;
    s.xRotation = String(v.alpha); s.yRotation = String(v.beta); s.planeDistance = String(v.dist);
    s.zoom = String(v.zoom); s.panX = String(v.panX); s.panY = String(v.panY); s.order = v.order.join(',');
    syncSpins(v);
  }

  function current() {
    const p = ui.panes.system;
    if (!p || ui.systemTab === 'tree' || !p.topo._topo || p.topo._topo.index !== ui.systemTab) return null;
    return p.topo._topo;
  }

  /* ---------- values ---------- */

  function isZero(x, cs) { return x === 0 || Math.abs(x) < Math.pow(10, -cs.zeroThreshold); }

  function drawTopology(result) {
    const p = ui.panes.system;
    if (ui.systemTab === 'tree') return;
    if (!p.topo._topo || p.topo._topo.index !== ui.systemTab) { buildTopology(p.topo, ui.systemTab); return; }
    const t = p.topo._topo, r = result.system;
    const cs = CubeUI.colourSettings('widget');
    /* Absolute values scale over the cells' own minimum and maximum; the percent
     * modes over 0..100. */
    let legend;
    if (ui.mode.system === 'absolute') {
      let lo = Infinity, hi = -Infinity;
      for (const c of t.cells) { const x = r.incl[c._id]; if (x === x) { if (x < lo) lo = x; if (x > hi) hi = x; } }
      legend = lo <= hi ? {min: lo, max: hi} : r.legend;
    } else legend = {min: 0, max: 100};
    t.range = legend;
    /* "White only if all system leaf values are zero": otherwise a zero cell gets
     * the colour of the scale's minimum. */
    let zeroColour = null;
    if (options.itemColour === 'min') {
      let allZero = true;
      for (let i = 0; i < ui.defs.system.length && allZero; i++) {
        const s = ui.defs.system[i];
        if (s.children && s.children.length) continue;
        const x = r.incl[i];
        if (x === x && !isZero(x, cs)) allZero = false;
      }
      if (!allZero) zeroColour = ui.model.colour(1, {min: 1, max: 2}, Object.assign({}, cs, {userMin: null, userMax: null}));
    }
    const selected = new Set(ui.selected.system);
    for (const c of t.cells) {
      const x = r.incl[c._id];
      const defined = x === x && x !== undefined && x !== null;
      c.setAttribute('data-value', defined ? String(x) : '');
      c.setAttribute('fill', defined && zeroColour && isZero(x, cs) ? zeroColour : ui.model.colour(defined ? x : NaN, legend, cs));
      c.classList.toggle('selected', selected.has(c._id));
      c.firstChild.textContent = c._label + '\nvalue ' + (defined ? CubeUI.fmt(x, 'widget') : '-');
    }
    markSelected(t);
    CubeUI.drawLegend(t.legend, legend, NaN);
    const note = t.legend.querySelector('.note > span:not(.lmin):not(.lmax):not(.swatch)');
    if (note) {
      if (note._text === undefined) note._text = note.textContent;
      note.textContent = zeroColour ? 'zero: the minimum\'s colour (not every leaf value is zero); white: undefined' : note._text;
    }
  }

  /* The selected cells drawn last in their plane; the first selected item (the
   * first of a multiple selection) also gets a frame and marks beside its plane's
   * edges at its row and column. */
  function markSelected(t) {
    for (const e of t.svg.querySelectorAll('.frame, .mark')) e.remove();
    const selected = new Set(ui.selected.system);
    for (const c of t.cells) if (selected.has(c._id)) c.parentNode.appendChild(c);
    const first = ui.selected.system[0];
    const c = t.cells.find(function (x) { return x._id === first; });
    if (!c) return;
    const grp = c.parentNode, u = c._at.u, w = c._at.v, g = t.grid, d = MARK_OFFSET;
    grp.appendChild(el('rect', {class: 'frame', x: u - 0.08, y: w - 0.08, width: 1.16, height: 1.16, 'data-id': first}));
    for (const [x1, y1, x2, y2] of [[u, -d, u + 1, -d], [u, g.sy + d, u + 1, g.sy + d], [-d, w, -d, w + 1], [g.sx + d, w, g.sx + d, w + 1]])
      grp.appendChild(el('line', {class: 'mark', x1: x1, y1: y1, x2: x2, y2: y2}));
  }

  /* ---------- the cell information (right click) ---------- */

  function ancestorOf(id, kind) {
    const s = ui.defs.system;
    for (let i = id; i >= 0 && s[i]; i = s[i].parent) if (s[i].kind === kind) return i;
    return -1;
  }

  function showCellInfo(t, c, x, y) {
    const s = ui.defs.system[c._id];
    const node = ancestorOf(c._id, 'node'), proc = ancestorOf(c._id, 'process');
    const value = ui.result ? ui.result.system.incl[c._id] : NaN;
    const range = t.range || {min: NaN, max: NaN};
    const pct = value === value && range.max > range.min ? (value - range.min) / (range.max - range.min) * 100
      : value === value && range.max === range.min ? 100 : NaN;
    const rows = [
      ['coord', 'Coordinate', '(' + c._coord.join(', ') + ')', c._coord.join(',')],
      ['node', 'Node', node >= 0 ? ui.defs.system[node].name : '-', node >= 0 ? ui.defs.system[node].name : ''],
      ['name', 'Name', s.name || s.kind + ' ' + s.index, s.name],
      ['rank', 'MPI rank', proc >= 0 && ui.defs.system[proc].rank >= 0 ? String(ui.defs.system[proc].rank) : '-', proc >= 0 ? String(ui.defs.system[proc].rank) : ''],
      ['id', 'Identifier', s.kind + ' ' + s.index, s.kind + ' ' + s.index],
      ['value', 'Value', value === value ? CubeUI.fmt(value, 'widget') + (pct === pct ? ' (' + pct.toFixed(2) + ' %)' : '') : '-',
        value === value ? String(value) : ''],
      ['percent', 'Scale position', pct === pct ? pct.toFixed(2) + ' % between ' + CubeUI.fmt(range.min, 'widget') + ' and ' +
        CubeUI.fmt(range.max, 'widget') : '-', pct === pct ? String(pct) : ''],
    ];
    const box = CubeUI.openInfoBox(rows.map(function ([f, k, text, raw]) { return [k, text, {'data-field': f, 'data-value': raw}]; }),
      'system', String(c._id), x + 12, y + 12);
    box.dataset.topology = String(t.index);
  }

  /* ---------- mouse and keys ---------- */

  function attachMouse(box, svg) {
    let drag = null, dragged = false;
    svg.addEventListener('pointerdown', function (ev) {
      if (ev.button !== 0) return;
      drag = {x: ev.clientX, y: ev.clientY, x0: ev.clientX, y0: ev.clientY, id: ev.pointerId,
        how: ev.shiftKey ? 'move' : ev.ctrlKey || ev.metaKey ? 'distance' : 'rotate', moving: false};
      dragged = false;
    });
    svg.addEventListener('pointermove', function (ev) {
      if (!drag || ev.pointerId !== drag.id) return;
      if (!drag.moving && Math.abs(ev.clientX - drag.x0) + Math.abs(ev.clientY - drag.y0) <= CLICK_SLOP) return;
      if (!drag.moving) { drag.moving = true; try { svg.setPointerCapture(ev.pointerId); } catch (e) { /* released already */ } }
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      drag.x = ev.clientX; drag.y = ev.clientY;
      const t = box._topo, v = viewOf(t.index);
      if (drag.how === 'move') { v.panX += dx; v.panY += dy; }
      else if (drag.how === 'distance') v.dist = Math.max(0, v.dist + dy / v.zoom);
      else { v.alpha = angle(v.alpha + dy * DRAG_DEGREES); v.beta = angle(v.beta + dx * DRAG_DEGREES); }
      place(t);
    });
    const end = function (ev) {
      if (!drag || ev.pointerId !== drag.id) return;
      dragged = drag.moving;
      drag = null;
    };
    svg.addEventListener('pointerup', end);
    svg.addEventListener('pointercancel', end);
    svg.addEventListener('click', function (ev) {
      if (dragged) { dragged = false; return; }
      const r = ev.target.closest('rect.cell');
      if (r) CubeUI.select('system', r._id, ev.ctrlKey || ev.metaKey);
    });
    svg.addEventListener('contextmenu', function (ev) {
      ev.preventDefault();
      const r = ev.target.closest('rect.cell');
      if (r) showCellInfo(box._topo, r, ev.clientX, ev.clientY);
    });
    svg.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      if (!ev.deltaY) return;
      const rect = svg.getBoundingClientRect();
      zoomBy(ev.deltaY < 0 ? WHEEL_STEP : 1 / WHEEL_STEP, ev.clientX - rect.left, ev.clientY - rect.top);
    }, {passive: false});
  }

  function angle(a) { a = ((a + 180) % 360 + 360) % 360 - 180; return Math.round(a * 1e6) / 1e6; }

  /* Zoom about a point of the picture (default: its centre), which stays in place. */
  function zoomBy(f, px, py) {
    const t = current();
    if (!t) return;
    const v = viewOf(t.index);
    const z = Math.min(1000, Math.max(0.01, v.zoom * f));
    f = z / v.zoom;
    const ox = (px === undefined ? t.W / 2 : px) - t.W / 2, oy = (py === undefined ? t.H / 2 : py) - t.H / 2;
    v.panX = ox - (ox - v.panX) * f;
    v.panY = oy - (oy - v.panY) * f;
    v.zoom = z;
    place(t);
  }

  /* The tool bar's functions and the keys of the topology view. */
  function act(action) {
    const t = current();
    if (!t) return;
    const v = viewOf(t.index);
    switch (action) {
      case 'left': v.panX -= MOVE_STEP; break;
      case 'right': v.panX += MOVE_STEP; break;
      case 'up': v.panY -= MOVE_STEP; break;
      case 'down': v.panY += MOVE_STEP; break;
      case 'distance-up': v.dist = v.dist + DISTANCE_STEP; break;
      case 'distance-down': v.dist = Math.max(0, v.dist - DISTANCE_STEP); break;
      case 'zoom-in': zoomBy(ZOOM_STEP); return;
      case 'zoom-out': zoomBy(1 / ZOOM_STEP); return;
      case 'reset': resetRotation(v, t.index); fit(t, v); break;
      case 'fit': fit(t, v); break;
      default: return;
    }
    place(t);
  }
  CubeUI.topologyAction = act;

  function setupKeys(box) {
    box.tabIndex = 0;
    box.addEventListener('keydown', function (ev) {
      const keys = {ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down', '+': 'zoom-in', '=': 'zoom-in',
        '-': 'zoom-out', Home: 'reset', PageUp: 'distance-up', PageDown: 'distance-down'};
      const a = keys[ev.key];
      if (!a || ev.ctrlKey || ev.altKey || ev.metaKey) return;
      ev.preventDefault();
      act(a);
    });
  }

  /* ---------- the tool bar and the Topology menu ---------- */

  const BUTTONS = [
    ['left', '\u2190', 'Move left', 'Move the whole topology to the left'],
    ['right', '\u2192', 'Move right', 'Move the whole topology to the right'],
    ['up', '\u2191', 'Move up', 'Move the whole topology upwards'],
    ['down', '\u2193', 'Move down', 'Move the whole topology downwards'],
    ['distance-up', '\u21d5+', 'Increase plane distance', 'Increase the distance between the planes'],
    ['distance-down', '\u21d5\u2212', 'Decrease plane distance', 'Decrease the distance between the planes'],
    ['zoom-in', '\u2295', 'Zoom in', 'Enlarge the topology'],
    ['zoom-out', '\u2296', 'Zoom out', 'Scale the topology down'],
    ['reset', '\u27f2', 'Reset', 'Default rotation and plane distance, scaled to fit the picture'],
    ['fit', '\u2922', 'Scale into window', 'Scale the topology to fit the picture, keeping its rotation'],
  ];
  let bar = null;

  function buildToolbar() {
    bar = el('div', {id: 'topo-toolbar', role: 'toolbar', 'aria-label': 'Topology tool bar', 'data-labels': options.toolbar});
    for (const [action, icon, text, tip] of BUTTONS) {
      const b = el('button', {type: 'button', 'data-action': action, title: text + ': ' + tip, 'aria-label': text, disabled: true});
      b._icon = icon; b._text = text;
      b.addEventListener('click', function () { act(action); });
      bar.appendChild(b);
    }
    const spin = function (role, text, tip) {
      const i = el('input', {type: 'number', 'data-role': role, step: '5', min: '-180', max: '180', title: tip, 'aria-label': text, disabled: true});
      i.addEventListener('change', function () {
        const t = current();
        if (!t || !isFinite(parseFloat(i.value))) return;
        const v = viewOf(t.index);
        v[role === 'x-rotation' ? 'alpha' : 'beta'] = angle(parseFloat(i.value));
        place(t);
      });
      return el('label', {class: 'spin'}, [el('span', {text: text}), i]);
    };
    bar.appendChild(spin('x-rotation', 'x rot', 'Rotation about the x axis, in degrees'));
    bar.appendChild(spin('y-rotation', 'y rot', 'Rotation about the y axis, in degrees'));
    const order = function (role, text, tip) {
      const s = el('select', {'data-role': role, title: tip, 'aria-label': text, disabled: true});
      s.addEventListener('change', function () { setAxis(role === 'order-x' ? 0 : 1, +s.value); });
      return el('label', {class: 'spin'}, [el('span', {text: text}), s]);
    };
    bar.appendChild(order('order-x', 'x:', 'The dimension along the x axis of the planes'));
    bar.appendChild(order('order-y', 'y:', 'The dimension along the y axis of the planes'));
    bar.appendChild(el('span', {class: 'planes-dims', 'data-role': 'order-planes', title: 'The dimensions folded into the planes'}));
    labelToolbar();
    return bar;
  }

  function labelToolbar() {
    bar.dataset.labels = options.toolbar;
    bar.hidden = options.toolbar === 'hidden';
    for (const b of bar.querySelectorAll('button[data-action]')) b.textContent = options.toolbar === 'text' ? b._text : b._icon;
  }

  /* The dimension d on axis k (0: x, 1: y); the dimension it displaces takes its
   * place, the planes keep their dimensions in increasing order. */
  function setAxis(k, d) {
    const t = current();
    if (!t) return;
    const v = viewOf(t.index), o = v.order.slice();
    const i = o.indexOf(d);
    if (i < 0 || i === k) return;
    o[i] = o[k]; o[k] = d;
    v.order = o.slice(0, 2).concat(o.slice(2).sort(function (a, b) { return a - b; }));
    v.zoom = null;
    v.dist = defaultDistance(v, t.index);
    buildTopology(ui.panes.system.topo, t.index);
  }

  function syncSpins(v) {
    if (!bar) return;
    const x = bar.querySelector('[data-role="x-rotation"]'), y = bar.querySelector('[data-role="y-rotation"]');
    if (document.activeElement !== x) x.value = String(Math.round(v.alpha * 10) / 10);
    if (document.activeElement !== y) y.value = String(Math.round(v.beta * 10) / 10);
  }

  /* Enabled only while the system pane shows a topology. */
  function updateToolbar() {
    if (!bar) return;
    const t = current();
    bar.dataset.enabled = String(!!t);
    for (const e of bar.querySelectorAll('button, input, select')) e.disabled = !t;
    const sx = bar.querySelector('[data-role="order-x"]'), sy = bar.querySelector('[data-role="order-y"]');
    const planes = bar.querySelector('[data-role="order-planes"]');
    sx.textContent = ''; sy.textContent = ''; planes.textContent = '';
    if (!t) return;
    const v = viewOf(t.index), dims = t.grid.dims;
    dims.forEach(function (_, d) {
      sx.appendChild(el('option', {value: d, text: dimName(dims, d) + ' (' + dims[d].size + ')'}));
      sy.appendChild(el('option', {value: d, text: dimName(dims, d) + ' (' + dims[d].size + ')'}));
    });
    sx.value = String(v.order[0]);
    if (dims.length > 1) sy.value = String(v.order[1]);
    sy.disabled = dims.length < 2;
    planes.textContent = v.order.length > 2 ? 'planes: ' + v.order.slice(2).map(function (d) { return dimName(dims, d); }).join(', ') : '';
    syncSpins(v);
  }

  function buildMenu() {
    const radio = function (name, legend, choices) {
      const f = el('fieldset', null, [el('legend', {text: legend})]);
      for (const [value, text] of choices) {
        const i = el('input', {type: 'radio', name: 'topo-' + name, value: value, 'data-option': name});
        i.checked = options[name] === value;
        f.appendChild(el('label', null, [i, ' ' + text]));
      }
      return f;
    };
    const check = function (name, text) {
      const i = el('input', {type: 'checkbox', 'data-option': name});
      i.checked = !!options[name];
      return el('label', null, [i, ' ' + text]);
    };
    const menu = el('div', {id: 'topo-menu', role: 'menu', hidden: true}, [
      radio('itemColour', 'Item colouring', [['white', 'White for zero'], ['min', 'White only if all system leaf values are zero, else the minimum colour']]),
      radio('lines', 'Line colouring', [['black', 'Black'], ['gray', 'Gray'], ['white', 'White'], ['none', 'No lines']]),
      radio('toolbar', 'Tool bar', [['icons', 'Icons'], ['text', 'Text'], ['hidden', 'Hidden']]),
      check('unused', 'Show also unused hardware'),
      check('antialias', 'Antialiasing of lines')]);
    menu.addEventListener('change', function (ev) {
      const i = ev.target, name = i.dataset.option;
      if (!name) return;
      options[name] = i.type === 'checkbox' ? i.checked : i.value;
      if (name === 'toolbar') { labelToolbar(); return; }
      const t = current();
      if (!t) return;
      if (name === 'unused') { viewOf(t.index).zoom = null; buildTopology(ui.panes.system.topo, t.index); }
      else if (name === 'lines') t.svg.dataset.lines = options.lines;
      else if (name === 'antialias') t.svg.setAttribute('shape-rendering', options.antialias ? 'geometricPrecision' : 'crispEdges');
      else if (ui.result) drawTopology(ui.result);
    });
    const open = el('button', {type: 'button', id: 'topo-menu-open', 'aria-haspopup': 'menu', text: 'Topology \u25be',
      title: 'Item and line colouring, tool bar labels, unused hardware and antialiasing of the topology display'});
    open.addEventListener('click', function () {
      menu.hidden = !menu.hidden;
      if (!menu.hidden) {
        const r = open.getBoundingClientRect();
        menu.style.left = Math.max(0, Math.min(r.left, window.innerWidth - menu.offsetWidth - 4)) + 'px';
        menu.style.top = r.bottom + 2 + 'px';
      }
    });
    document.addEventListener('mousedown', function (ev) {
      if (!menu.hidden && !menu.contains(ev.target) && ev.target !== open) menu.hidden = true;
    });
    document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') menu.hidden = true; });
    document.body.appendChild(menu);
    return open;
  }

  CubeUI.setupTopology = function () {
    /* Experiments without topologies get neither menu nor tool bar. */
    if (!(ui.defs.topologies || []).length) return;
    const header = document.getElementById('toolbar');
    header.appendChild(buildMenu());
    header.appendChild(buildToolbar());
    setupKeys(ui.panes.system.topo);
    let timer = null;
    window.addEventListener('resize', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        if (ui.systemTab === 'tree' || !ui.result) return;
        const v = viewOf(ui.systemTab);
        v.zoom = null;
        buildTopology(ui.panes.system.topo, ui.systemTab);
      }, 150);
    });
    /* The tool bar follows the system pane's tab. */
    ui.panes.system.tabs.addEventListener('click', function () { setTimeout(updateToolbar, 0); });
    ui.hooks.push(drawTopology, updateToolbar);
  };
})();
