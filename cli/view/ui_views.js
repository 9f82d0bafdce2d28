/* cube_view detail views: the topology tabs of the system pane, the statistics of the
 * selected patterns (box plot and most severe instances) and the source view of the
 * selected call path.  Drawn after every computation through CubeUI.ui.hooks. */
(function () {
  'use strict';
  const CubeUI = window.CubeUI, ui = CubeUI.ui, el = CubeUI.el;

  /* ---------- topologies ----------
   * Dimension 0 runs left to right, dimension 1 top to bottom inside a plane; every
   * further dimension selects the plane.  A 3-dimensional topology has one plane per
   * coordinate of dimension 2.  Higher dimensions are folded: dimensions 2..n-1 are
   * enumerated together, dimension 2 fastest, and each of their coordinate combinations
   * is one plane, labelled with those coordinates (a 2x3x4x5 topology shows 20 planes of
   * 2x3 cells).  Planes are laid out side by side and wrap at the pane's width. */
  const MAX_EMPTY_CELLS = 65536;

  function buildTopology(box, index) {
    const topo = ui.defs.topologies[index];
    const dims = topo.dims.length ? topo.dims : [{name: 'x', size: 1}];
    const size = function (d) { return d < dims.length ? Math.max(1, dims[d].size | 0) : 1; };
    const sx = size(0), sy = size(1);
    let planes = 1;
    for (let d = 2; d < dims.length; d++) planes *= size(d);
    const width = Math.max(200, (box.clientWidth || 400) - 28);
    const height = Math.max(120, (box.clientHeight || 300) - 70);
    const gap = 14, labelH = dims.length > 2 ? 14 : 0;
    /* The number of planes per row that gives the largest cells fitting the pane
     * (at least 6 pixels; the view scrolls beyond that). */
    let cell = 6, perRowBest = 1;
    for (let n = 1; n <= planes; n++) {
      const rows = Math.ceil(planes / n);
      const c = Math.floor(Math.min(32, (width - (n - 1) * gap) / (n * sx), (height - rows * (labelH + gap)) / (rows * sy)));
      if (c >= cell) { cell = c; perRowBest = n; }
      if (n * sx * 6 > width) break;
    }
    if (cell === 6) perRowBest = Math.max(1, Math.floor((width + gap) / (sx * cell + gap)));
    const pw = sx * cell, ph = sy * cell;
    const perRow = Math.max(1, Math.min(planes, perRowBest));
    const rows = Math.ceil(planes / perRow);
    const W = perRow * (pw + gap) - gap + 2, H = rows * (ph + labelH + gap) - gap + 2;
    const svg = el('svg', {class: 'topology', 'data-topology': index, width: W, height: H, viewBox: '0 0 ' + W + ' ' + H,
      role: 'img', 'aria-label': (topo.name || 'Topology') + ': ' + dims.map(function (d) { return d.size; }).join(' x ')});
    const origin = function (plane) {
      return [(plane % perRow) * (pw + gap), Math.floor(plane / perRow) * (ph + labelH + gap) + labelH];
    };
    const planeOf = function (c) {
      let p = 0, m = 1;
      for (let d = 2; d < dims.length; d++) { p += (c[d] || 0) * m; m *= size(d); }
      return p;
    };
    const used = new Set();
    const cells = [];
    for (const entry of topo.cells) {
      const id = entry[0], c = entry.slice(1);
      const plane = planeOf(c), o = origin(plane);
      const x = o[0] + (c[0] || 0) * cell, y = o[1] + (c[1] || 0) * cell;
      used.add(plane + ':' + (c[0] || 0) + ':' + (c[1] || 0));
      const sys = ui.defs.system[id];
      const r = el('rect', {class: 'cell', x: x, y: y, width: cell, height: cell, 'data-coord': c.join(','), 'data-id': id, 'data-value': ''});
      r.appendChild(el('title'));
      r._id = id; r._label = (sys ? sys.kind + ' ' + sys.name + (sys.rank >= 0 ? ', rank ' + sys.rank : '') : 'system ' + id) +
        '\ncoordinate (' + c.join(', ') + ')';
      cells.push(r);
    }
    /* Grid positions without a system item are grey (not cells). */
    if (planes * sx * sy <= MAX_EMPTY_CELLS) {
      for (let p = 0; p < planes; p++) {
        const o = origin(p);
        for (let y = 0; y < sy; y++) for (let x = 0; x < sx; x++)
          if (!used.has(p + ':' + x + ':' + y)) svg.appendChild(el('rect', {class: 'empty', x: o[0] + x * cell, y: o[1] + y * cell, width: cell, height: cell}));
      }
    }
    if (dims.length > 2) {
      for (let p = 0; p < planes; p++) {
        const o = origin(p), parts = [];
        let rest = p;
        for (let d = 2; d < dims.length; d++) { parts.push((dims[d].name || 'd' + d) + '=' + (rest % size(d))); rest = Math.floor(rest / size(d)); }
        svg.appendChild(el('text', {x: o[0], y: o[1] - 3, text: parts.join(', ')}));
      }
    }
    for (const r of cells) svg.appendChild(r);
    svg.addEventListener('click', function (ev) {
      const r = ev.target.closest('rect.cell');
      if (r) CubeUI.select('system', r._id, ev.ctrlKey || ev.metaKey);
    });
    const legend = CubeUI.buildLegend('topology');
    legend.setAttribute('class', 'topo-legend');
    const head = el('div', {class: 'topo-head', text: (topo.name || 'Topology ' + index) + ': ' +
      dims.map(function (d) { return (d.name || '') + ' ' + d.size + (d.periodic ? ' (periodic)' : ''); }).join(' \u00d7 ') +
      (dims.length > 3 ? '; dimensions 3 and up folded into the planes' : '')});
    box.textContent = '';
    box.appendChild(head);
    box.appendChild(svg);
    box.appendChild(legend);
    box._topo = {index: index, cells: cells, legend: legend};
  }
  CubeUI.buildTopology = buildTopology;

  function drawTopology(result) {
    const p = ui.panes.system;
    if (ui.systemTab === 'tree') return;
    if (!p.topo._topo || p.topo._topo.index !== ui.systemTab) buildTopology(p.topo, ui.systemTab);
    const t = p.topo._topo, r = result.system;
    /* Absolute values scale over the cells' own minimum and maximum; the percent
     * modes over 0..100. */
    let legend;
    if (ui.mode.system === 'absolute') {
      let lo = Infinity, hi = -Infinity;
      for (const c of t.cells) { const v = r.incl[c._id]; if (v === v) { if (v < lo) lo = v; if (v > hi) hi = v; } }
      legend = lo <= hi ? {min: lo, max: hi} : r.legend;
    } else legend = {min: 0, max: 100};
    const selected = new Set(ui.selected.system);
    for (const c of t.cells) {
      const v = r.incl[c._id];
      const defined = v === v && v !== undefined && v !== null;
      c.setAttribute('data-value', defined ? String(v) : '');
      c.setAttribute('fill', ui.model.colour(defined ? v : NaN, legend, CubeUI.colourSettings('widget')));
      c.classList.toggle('selected', selected.has(c._id));
      c.firstChild.textContent = c._label + '\nvalue ' + (defined ? CubeUI.fmt(v, 'widget') : '-');
    }
    /* Selected cells are drawn last so that their frame is on top. */
    for (const c of t.cells) if (selected.has(c._id)) c.parentNode.appendChild(c);
    CubeUI.drawLegend(t.legend, legend, NaN);
  }

  /* ---------- statistics ---------- */

  function statData() { return ui.defs.stat || null; }

  function patternsOfSelection() {
    const st = statData();
    if (!st) return [];
    const chosen = document.getElementById('stat-pattern');
    if (chosen && chosen.value !== '') return [st.patterns[+chosen.value]];
    const out = [];
    for (const m of ui.selected.metric) {
      const def = ui.defs.metrics[m];
      for (const pat of st.patterns)
        if ((pat.metric !== null && pat.metric !== undefined && (pat.metric === def.uniq || pat.metric === def.name)) ||
            ((pat.metric === null || pat.metric === undefined) && (pat.name === def.uniq || pat.name === def.name)))
          if (out.indexOf(pat) < 0) out.push(pat);
    }
    /* No pattern of the selected metrics: an overview of every pattern with instances. */
    if (!out.length) return st.patterns.filter(function (p) { return p.count > 0; });
    return out;
  }

  function num(v) { return typeof v === 'number' && isFinite(v); }

  function boxPlot(patterns) {
    const W = 70 + 90 * patterns.length, H = 168, top = 8, bottom = 30, left = 60;
    let lo = Infinity, hi = -Infinity;
    for (const p of patterns) for (const k of ['min', 'q1', 'median', 'q3', 'max', 'mean']) if (num(p[k])) { lo = Math.min(lo, p[k]); hi = Math.max(hi, p[k]); }
    if (!(lo <= hi)) { lo = 0; hi = 1; }
    if (hi === lo) { hi = lo + (Math.abs(lo) || 1); }
    const y = function (v) { return top + (H - top - bottom) * (1 - (v - lo) / (hi - lo)); };
    const svg = el('svg', {class: 'boxplot', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'Box plot'});
    svg.appendChild(el('line', {class: 'axis', x1: left - 6, x2: left - 6, y1: top, y2: H - bottom}));
    for (let i = 0; i <= 4; i++) {
      const v = lo + (hi - lo) * i / 4;
      svg.appendChild(el('line', {class: 'axis', x1: left - 9, x2: left - 6, y1: y(v), y2: y(v)}));
      svg.appendChild(el('text', {x: left - 11, y: y(v) + 3, 'text-anchor': 'end', text: CubeUI.fmt(v, 'widget').slice(0, 10)}));
    }
    patterns.forEach(function (p, i) {
      const cx = left + 20 + i * 90, bw = 40;
      const g = el('g', {'data-pattern': p.name});
      const tip = ['min', 'q1', 'median', 'q3', 'max', 'mean'].filter(function (k) { return num(p[k]); })
        .map(function (k) { return k + ' ' + CubeUI.fmt(p[k], 'widget'); }).join('\n');
      g.appendChild(el('title', {text: p.name + ' (' + p.count + ' instances)\n' + tip}));
      if (num(p.min) && num(p.max)) {
        g.appendChild(el('line', {class: 'whisker', x1: cx + bw / 2, x2: cx + bw / 2, y1: y(p.max), y2: y(p.min)}));
        g.appendChild(el('line', {class: 'whisker', 'data-stat': 'max', x1: cx + 8, x2: cx + bw - 8, y1: y(p.max), y2: y(p.max)}));
        g.appendChild(el('line', {class: 'whisker', 'data-stat': 'min', x1: cx + 8, x2: cx + bw - 8, y1: y(p.min), y2: y(p.min)}));
      }
      if (num(p.q1) && num(p.q3))
        g.appendChild(el('rect', {class: 'box', 'data-stat': 'q1-q3', x: cx, width: bw, y: y(p.q3), height: Math.max(1, y(p.q1) - y(p.q3))}));
      if (num(p.median)) g.appendChild(el('line', {class: 'median', 'data-stat': 'median', x1: cx, x2: cx + bw, y1: y(p.median), y2: y(p.median)}));
      if (num(p.mean)) g.appendChild(el('line', {class: 'mean', 'data-stat': 'mean', x1: cx - 4, x2: cx + bw + 4, y1: y(p.mean), y2: y(p.mean)}));
      const name = p.name.length > 14 ? p.name.slice(0, 13) + '\u2026' : p.name;
      g.appendChild(el('text', {x: cx + bw / 2, y: H - bottom + 13, 'text-anchor': 'middle', text: name}));
      g.appendChild(el('text', {x: cx + bw / 2, y: H - bottom + 25, 'text-anchor': 'middle', text: 'n=' + p.count}));
      svg.appendChild(g);
    });
    return svg;
  }

  function callPathName(c) {
    const names = [];
    for (let i = c; i >= 0; i = ui.defs.cnodes[i].parent) names.unshift(ui.defs.regions[ui.defs.cnodes[i].region].name);
    return names.join(' / ');
  }

  function instancesTable(patterns) {
    const body = el('tbody');
    for (const p of patterns) for (const inst of p.instances || []) {
      const valid = inst.cnode >= 0 && inst.cnode < ui.defs.cnodes.length;
      const path = valid ? callPathName(inst.cnode) : '(unknown call path)';
      const tr = el('tr', {'data-cnode': inst.cnode, 'data-pattern': p.name, title: valid ? 'Select this call path' : ''}, [
        el('td', {text: p.name}),
        el('td', {class: 'path', text: path.length > 60 ? '\u2026' + path.slice(-59) : path, title: path}),
        el('td', {class: 'num', text: CubeUI.fmt(inst.enter, 'widget')}),
        el('td', {class: 'num', text: CubeUI.fmt(inst.exit, 'widget')}),
        el('td', {class: 'num', text: CubeUI.fmt(inst.duration, 'widget')})]);
      if (valid) tr.addEventListener('click', function () { CubeUI.selectCallPath(inst.cnode); });
      body.appendChild(tr);
    }
    if (!body.firstChild) body.appendChild(el('tr', null, [el('td', {colspan: '5', text: 'No instances recorded.'})]));
    return el('table', {class: 'instances'}, [
      el('thead', null, [el('tr', null, ['Pattern', 'Call path', 'Enter', 'Exit', 'Duration'].map(function (h) { return el('th', {text: h}); }))]),
      body]);
  }

  let statKey = null;
  function drawStat(force) {
    const st = statData();
    if (!st) return;
    const pats = patternsOfSelection();
    const key = pats.map(function (p) { return p.name; }).join('\n') + '|' + JSON.stringify(ui.settings.widget);
    if (key === statKey && !force) return;
    statKey = key;
    const box = document.getElementById('stat');
    const plots = box.querySelector('.plots');
    const slot = plots.querySelector('.plot-slot');
    slot.textContent = '';
    const table = box.querySelector('table.instances');
    if (table) table.remove();
    if (!pats.length) {
      slot.appendChild(el('div', {class: 'empty-note', text: 'No statistics for the selected metric; choose a pattern above.'}));
      return;
    }
    slot.appendChild(boxPlot(pats));
    box.appendChild(instancesTable(pats));
  }

  function setupStat() {
    const st = statData();
    if (!st) return;
    document.getElementById('stat-box').hidden = false;
    const sel = el('select', {id: 'stat-pattern', 'data-role': 'pattern', title: 'Pattern shown in the box plot'},
      [el('option', {value: '', text: 'Selected metrics (else all)'})]);
    st.patterns.forEach(function (p, i) { sel.appendChild(el('option', {value: String(i), text: p.name})); });
    sel.addEventListener('change', function () { drawStat(true); });
    const h = document.querySelector('#stat-box h2');
    if (h) h.textContent = 'Statistics \u2014 ' + (st.file || '');
    document.getElementById('stat').appendChild(el('div', {class: 'plots'}, [sel, el('div', {class: 'plot-slot'})]));
  }

  /* ---------- source ---------- */

  let sourceKey = null;
  function drawSource() {
    let region = null, cnode = null;
    if (ui.callTab === 'flat') {
      const s = ui.selected.flat;
      if (s.length) region = +s[s.length - 1].slice(1);
    } else {
      const s = ui.selected.call;
      if (s.length) { cnode = s[s.length - 1]; region = ui.defs.cnodes[cnode].region; }
    }
    const key = region + ':' + cnode;
    if (key === sourceKey) return;
    sourceKey = key;
    renderSource(region, cnode, null);
  }

  /* The lines of a file that some region carries around line n: the region
   * first (the caller's region for a call site), else any region of that file. */
  function linesAround(mod, n, first) {
    const regs = ui.defs.regions;
    const has = function (r) {
      const src = r && r.source;
      return src && src.lines && (!mod || r.mod === mod || src.path === mod) && n >= src.first && n < src.first + src.lines.length;
    };
    if (first >= 0 && has(regs[first])) return regs[first];
    for (const r of regs) if (has(r)) return r;
    return null;
  }

  /* The source of region (the callee of cnode), its begin line marked; with
   * site (a call path), the caller's file around the call's line instead. */
  function renderSource(region, cnode, site) {
    const box = document.getElementById('source');
    box.textContent = '';
    if (region === null) { box.appendChild(el('div', {class: 'empty-note', text: 'Select a call path to see its source.'})); return; }
    const r = ui.defs.regions[region];
    box.dataset.region = String(region);
    box.dataset.callSite = site !== null ? String(site) : '';
    const lines = (r.begin > 0 ? 'lines ' + r.begin + (r.end > r.begin ? '\u2013' + r.end : '') : 'no line information');
    box.appendChild(el('div', {class: 'where'}, [el('b', {text: r.name}), ' in ' + (r.mod || 'unknown file') + ', ' + lines]));
    if (cnode !== null) {
      const c = ui.defs.cnodes[cnode];
      if (c.mod || c.line > 0) box.appendChild(el('div', {class: 'where', text: 'called from ' + (c.mod || '?') + (c.line > 0 ? ':' + c.line : '')}));
    }
    let from = r, mark = r.begin, lo = r.begin, hi = r.end;
    if (site !== null) {
      const c = ui.defs.cnodes[site];
      const caller = c.parent >= 0 ? ui.defs.cnodes[c.parent].region : -1;
      from = c.line > 0 ? linesAround(c.mod, c.line, caller) : null;
      mark = c.line; lo = hi = c.line;
    }
    const src = from && from.source;
    if (src && src.lines && src.lines.length) {
      box.appendChild(el('div', {class: 'where', text: src.path}));
      const pre = el('pre');
      let current = null;
      src.lines.forEach(function (text, i) {
        const n = src.first + i;
        const span = el('span', {'data-line': n, text: String(n).padStart(6) + '  ' + text});
        if (n === mark) { span.className = 'current'; current = span; }
        else if (n > lo && n <= hi) span.className = 'region';
        pre.appendChild(span);
      });
      box.appendChild(pre);
      if (current) pre.scrollTop = Math.max(0, current.offsetTop - pre.offsetTop - pre.clientHeight / 3);
    } else if (site !== null) {
      const c = ui.defs.cnodes[site];
      box.appendChild(el('div', {class: 'empty-note', text: 'Source of the call not readable where cube_view ran; the call is in ' +
        (c.mod || 'an unknown file') + (c.line > 0 ? ', line ' + c.line : '') + '.'}));
    } else {
      box.appendChild(el('div', {class: 'empty-note', text: 'Source file not readable where cube_view ran; the region is ' +
        (r.mod || 'in an unknown file') + (r.begin > 0 ? ', ' + lines : '') + '.'}));
    }
  }

  /* The context menu's "Source code" (site null) and the call site's
   * "Source code" (site: the call path); the next selection shows the
   * selected region's source again. */
  CubeUI.showSource = function (region, site) {
    sourceKey = null;
    renderSource(region, site, site === undefined ? null : site);
    document.getElementById('source-box').scrollIntoView({block: 'nearest'});
  };

  /* The context menu's "Statistics": the box plots of the selected metrics. */
  CubeUI.showStatistics = function () {
    const sel = document.getElementById('stat-pattern');
    if (!sel) return;
    if (sel.value !== '') { sel.value = ''; drawStat(true); }
    document.getElementById('stat-box').scrollIntoView({block: 'nearest'});
    sel.focus();
  };

  CubeUI.setupViews = function () {
    setupStat();
    let timer = null;
    window.addEventListener('resize', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        if (ui.systemTab === 'tree' || !ui.result) return;
        buildTopology(ui.panes.system.topo, ui.systemTab);
        drawTopology(ui.result);
      }, 150);
    });
    ui.hooks.push(drawTopology, function () { drawStat(false); }, drawSource);
  };
})();
