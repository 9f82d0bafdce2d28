/* cube_view detail views: the statistics of the selected patterns (box plot and most
 * severe instances) and the source view of the selected call path (the topology tabs
 * are ui_topo.js).  Drawn after every computation through CubeUI.ui.hooks. */
(function () {
  'use strict';
  const CubeUI = window.CubeUI, ui = CubeUI.ui, el = CubeUI.el;

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
    if (CubeUI.setupTopology) CubeUI.setupTopology();
    ui.hooks.push(function () { drawStat(false); }, drawSource);
  };
})();
