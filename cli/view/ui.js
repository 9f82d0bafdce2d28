/* cube_view user interface: the three coupled panes (metric, call, system), their tree
 * browsers, value modes, selected-value widgets, legends, search, keyboard control, the
 * dimension order and the precision dialog.  Every number shown comes from CubeModel
 * (compute, format, colour, largestPath); this code only draws and reacts to input.
 * The other ui_*.js files add the topology, statistics and source views to CubeUI. */
(function () {
  'use strict';

  let readyResolve, readyReject;
  window.cubeViewReady = new Promise(function (res, rej) { readyResolve = res; readyReject = rej; });

  const KINDS = ['metric', 'call', 'system'];
  const PANE_TITLES = {metric: 'Metric tree', call: 'Call tree', system: 'System tree'};
  /* At most this many search matches get their paths expanded, so that a pattern
   * matching everything in a large call tree does not render all of it. */
  const MAX_EXPANDED_MATCHES = 500;

  const ui = {
    model: null, defs: null,
    order: KINDS.slice(),
    callTab: 'tree', systemTab: 'tree',
    mode: {metric: 'absolute', call: 'absolute', system: 'absolute'},
    expanded: {metric: new Set(), call: new Set(), system: new Set(), flat: new Set()},
    /* Selected keys in selection order; the last one is the keyboard cursor. */
    selected: {metric: [], call: [], system: [], flat: []},
    matches: {metric: null, call: null, system: null, flat: null},
    flatSort: 'definition',
    result: null,
    settings: {tree: {digits: 2, expThreshold: 4, zeroThreshold: 12},
               widget: {digits: 6, expThreshold: 4, zeroThreshold: 12}},
    /* The colour settings dialog: colouring method, the places of blue, cyan,
     * green, yellow and red on the scale (0..1), lighten and white thresholds
     * (percent of the scale), user-defined scale minimum/maximum (null: the legend's). */
    colour: {method: 'linear', positions: [0, 0.25, 0.5, 0.75, 1], lighten: 0, whiteBelow: 0, userMin: null, userMax: null},
    /* Hiding per tree (not in the metric tree): 'none', 'dynamic' (nodes whose
     * colour position is below dynHide percent, recomputed with the values) or
     * 'static' (the nodes in hidden). */
    hideMode: {metric: 'none', call: 'none', system: 'none', flat: 'none'},
    hidden: {metric: new Set(), call: new Set(), system: new Set(), flat: new Set()},
    dynHide: {metric: null, call: null, system: null, flat: null},
    lastThreshold: {metric: null, call: null, system: null, flat: null},
    /* Find items: per tree {text, list (preorder), set, within, pos} or null. */
    found: {metric: null, call: null, system: null, flat: null},
    lastFind: {metric: '', call: '', system: '', flat: ''},
    panes: {},
    hooks: [],          /* views drawn after every computation (topology, statistics, source) */
    computing: false, dirty: false, seq: 0,
  };

  const CubeUI = window.CubeUI = {ui: ui, start: start, update: requestUpdate, el: el,
    selectCallPath: selectCallPath, colourText: colourText, fmt: fmt, setStatus: setStatus,
    select: function (kind, key, add) { select(kind, key, add); }};

  function el(tag, attrs, children) {
    const isSvg = /^(svg|g|rect|line|text|path|defs|linearGradient|stop|title|circle|polygon)$/.test(tag);
    const e = isSvg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
    if (attrs) for (const k in attrs) {
      const v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') e.textContent = v;
      else if (k === 'class') e.setAttribute('class', v);
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    if (children) for (const c of children) if (c) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    return e;
  }

  function fmt(value, scope) { return ui.model.format(value, ui.settings[scope]); }

  /* The settings model.colour takes: the precision of the scope plus the colour
   * settings.  The metric pane keeps its roots' scales: a user-defined minimum
   * and maximum are for the other panes and the topologies (kind: the pane). */
  function colourSettings(scope, kind) {
    const s = Object.assign({}, ui.settings[scope], ui.colour);
    if (kind === 'metric') { s.userMin = null; s.userMax = null; }
    return s;
  }
  CubeUI.colourSettings = colourSettings;

  /* Dark value boxes (the blue end of the scale) get white text. */
  function colourText(rgb) {
    const m = /rgba?\((\d+)\D+(\d+)\D+(\d+)/.exec(rgb || '');
    if (!m) return false;
    return (0.299 * m[1] + 0.587 * m[2] + 0.114 * m[3]) < 110;
  }

  /* The status line shows the selections, modes and file, followed by the latest
   * message (search results, errors) until the next selection. */
  function setStatus(text, isError) {
    ui.note = text; ui.noteError = !!isError;
    if (ui.defs && ui.panes.metric) updateStatus();
    else showStatus(text, isError);
  }

  function showStatus(text, isError) {
    const s = document.getElementById('status');
    s.textContent = text;
    s.title = text;
    s.classList.toggle('error', !!isError);
  }

  /* ---------- tree adapters: one per tree kind (flat profile: regions) ---------- */

  function listOf(kind) {
    return kind === 'metric' ? ui.defs.metrics : kind === 'call' ? ui.defs.cnodes : ui.defs.system;
  }

  /* The tree shown in a pane: 'flat' for the call pane in its flat-profile tab. */
  function treeKind(kind) { return kind === 'call' && ui.callTab === 'flat' ? 'flat' : kind; }

  function flatRegions() {
    const r = ui.defs.regions;
    let ids = [];
    for (let i = 0; i < r.length; i++) if (r[i].cnodes && r[i].cnodes.length) ids.push(i);
    if (!ids.length) ids = r.map(function (_, i) { return i; });
    if (ui.flatSort === 'name') ids.sort(function (a, b) { return r[a].name < r[b].name ? -1 : r[a].name > r[b].name ? 1 : a - b; });
    else if (ui.flatSort === 'value' && ui.result && ui.result.call.incl.length === r.length) {
      /* Sorted by the values shown when the order is chosen or the tab opened
       * (expanded: exclusive), not again after every click. */
      const res = ui.result.call;
      const v = function (i) { const x = ui.expanded.flat.has('r' + i) ? res.excl[i] : res.incl[i]; return x === x ? x : -Infinity; };
      ids.sort(function (a, b) { return v(b) - v(a) || a - b; });
    }
    return ids;
  }

  /* Keys: numbers for metric/call/system nodes; 'rN' (region N) and 'sN' (its
   * subroutines) in the flat profile. */
  const adapters = {
    tree: {
      roots: function (t) { const l = listOf(t), r = []; for (let i = 0; i < l.length; i++) if (l[i].parent < 0) r.push(i); return r; },
      children: function (t, k) { return listOf(t)[k].children || []; },
      parent: function (t, k) { const p = listOf(t)[k].parent; return p < 0 ? null : p; },
      name: function (t, k) {
        const n = t === 'call' ? ui.defs.regions[ui.defs.cnodes[k].region].name : listOf(t)[k].name;
        if (n) return n;
        /* Unnamed entities still need a visible, clickable label. */
        const d = listOf(t)[k];
        if (t === 'system') return d.kind + ' ' + (d.kind === 'thread' || d.kind === 'process' ? (d.rank >= 0 && d.kind === 'process' ? d.rank : d.index) : d.index);
        return t === 'metric' ? (d.uniq || 'metric ' + k) : 'region ' + ui.defs.cnodes[k].region;
      },
      title: function (t, k) {
        const n = listOf(t)[k];
        if (t === 'metric') return [n.name + (n.unit ? ' [' + n.unit + ']' : ''), n.uniq, n.descr, n.kind && n.kind !== 'stored' ? n.kind + ' metric' : ''].filter(Boolean).join('\n');
        if (t === 'call') {
          const r = ui.defs.regions[n.region];
          return r.name + '\nregion: ' + (r.mod || '?') + ':' + r.begin + '-' + r.end + (n.mod || n.line > 0 ? '\ncall site: ' + (n.mod || '?') + ':' + n.line : '');
        }
        return n.kind + ' ' + n.name + (n.rank !== undefined && n.rank >= 0 ? ' (rank ' + n.rank + ')' : '');
      },
      value: function (t, k, expanded) {
        const r = ui.result && ui.result[t];
        if (!r) return NaN;
        return expanded ? r.excl[k] : r.incl[k];
      },
      keyOf: function (t, k) { return k; },
    },
    flat: {
      roots: function () { return flatRegions().map(function (i) { return 'r' + i; }); },
      children: function (t, k) { return k[0] === 'r' ? ['s' + k.slice(1)] : []; },
      parent: function (t, k) { return k[0] === 's' ? 'r' + k.slice(1) : null; },
      name: function (t, k) { const r = ui.defs.regions[+k.slice(1)]; return k[0] === 'r' ? (r.name || 'region ' + k.slice(1)) : 'Subroutines'; },
      title: function (t, k) {
        const r = ui.defs.regions[+k.slice(1)];
        return k[0] === 'r' ? r.name + '\n' + (r.mod || '?') + ':' + r.begin + '-' + r.end : 'Time spent in the callees of ' + r.name;
      },
      value: function (t, k, expanded) {
        const r = ui.result && ui.result.call;
        if (!r) return NaN;
        const i = +k.slice(1);
        if (k[0] === 's') return r.sub ? r.sub[i] : NaN;
        return expanded ? r.excl[i] : r.incl[i];
      },
    },
  };
  function adapter(t) { return t === 'flat' ? adapters.flat : adapters.tree; }

  function flatPart(key) { return key[0] === 's' ? 'sub' : ui.expanded.flat.has(key) ? 'excl' : 'incl'; }

  /* ---------- state handed to the model ---------- */

  function modelState() {
    const sel = {};
    for (const k of KINDS) sel[k] = ui.selected[k].map(function (id) { return {id: id, expanded: ui.expanded[k].has(id)}; });
    sel.flat = ui.selected.flat.map(function (key) { return {region: +key.slice(1), part: flatPart(key)}; });
    addHiddenToSelection(sel);
    const mode = Object.assign({}, ui.mode);
    return {
      order: ui.order.slice(), callTab: ui.callTab, systemTab: ui.systemTab, mode: mode,
      external: KINDS.some(function (k) { return mode[k] === 'external'; }),
      selection: sel,
    };
  }
  CubeUI.modelState = modelState;

  /* A selected node shown with some hidden children shows its own value plus
   * theirs (a collapsed one its inclusive value, the same): the panes to the right
   * see that value too: the hidden children of an expanded selected node join
   * the selection (collapsed), unless they are selected already or contain a
   * selected node. */
  function addHiddenToSelection(sel) {
    if (!ui.result) return;
    for (const kind of ['call', 'system']) {
      const t = kind === 'call' && ui.callTab === 'flat' ? 'flat' : kind;
      if (ui.hideMode[t] === 'none') continue;
      /* the values hiding looks at must be those of the tab shown */
      if (kind === 'call' && !!ui.result.call.flat !== (t === 'flat')) continue;
      const a = adapter(t), keys = ui.selected[t];
      const covered = new Set();
      for (const k of keys) for (let q = k; q !== null; q = a.parent(t, q)) covered.add(q);
      for (const k of keys) {
        const kids = a.children(t, k);
        if (!kids.length) continue;
        const hid = kids.filter(function (c) { return isHidden(kind, t, c); });
        /* collapsed, the node's inclusive value holds them already */
        if (!hid.length || !ui.expanded[t].has(k)) continue;
        for (const c of hid) {
          if (covered.has(c)) continue;
          if (t === 'flat') sel.flat.push({region: +c.slice(1), part: 'sub'});
          else sel[kind].push({id: c, expanded: false});
        }
      }
    }
  }

  /* ---------- building the panes ---------- */

  function buildPane(kind) {
    const p = {kind: kind, nodes: new Map()};
    const tabs = el('div', {class: 'tabs', role: 'tablist'});
    const addTab = function (id, label) {
      tabs.appendChild(el('button', {type: 'button', role: 'tab', 'data-tab': id, text: label,
        'aria-selected': 'false', onclick: function () { switchTab(kind, id); }}));
    };
    addTab('tree', PANE_TITLES[kind]);
    if (kind === 'call') addTab('flat', 'Flat profile');
    if (kind === 'system') (ui.defs.topologies || []).forEach(function (t, i) { addTab('topo-' + i, t.name || 'Topology ' + i); });

    const mode = el('select', {'data-role': 'mode', title: 'Value mode of this pane',
      onchange: function () { ui.mode[kind] = mode.value; updateModeOptions(); requestUpdate(); }});
    for (const m of ui.model.modes) mode.appendChild(el('option', {value: m.name, text: m.label}));
    mode.value = ui.mode[kind];

    const search = el('input', {type: 'search', 'data-role': 'search', placeholder: 'Search (regex)',
      title: 'Regular expression on the names; Enter expands the paths to the matches and moves to the next one, Escape clears'});
    search.addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter') { ev.preventDefault(); runSearch(kind, ev.shiftKey); }
      else if (ev.key === 'Escape') { search.value = ''; runSearch(kind); }
    });
    search.addEventListener('search', function () { if (!search.value) runSearch(kind); });

    const largest = el('button', {type: 'button', 'data-role': 'largest', text: 'Expand to largest',
      title: 'Expand the path to the node with the largest value', onclick: function () { expandLargest(kind); }});
    const collapse = el('button', {type: 'button', 'data-role': 'collapse-all', text: 'Collapse all',
      title: 'Collapse every node of this tree', onclick: function () { collapseAll(kind); }});
    const tools = el('div', {class: 'tools'}, [mode, search, largest, collapse]);
    if (kind === 'call') {
      const sort = el('select', {'data-role': 'sort', title: 'Order of the flat profile', hidden: true,
        onchange: function () { ui.flatSort = sort.value; renderTree(kind); applyValues(kind); }},
        [el('option', {value: 'definition', text: 'Definition order'}),
         el('option', {value: 'value', text: 'Sort by value'}),
         el('option', {value: 'name', text: 'Sort by name'})]);
      tools.appendChild(sort);
      p.sort = sort;
    }

    const box = el('div', {class: 'tree-box', tabindex: '0', role: 'tree', 'aria-label': PANE_TITLES[kind]});
    box.addEventListener('click', function (ev) { treeClick(kind, ev); });
    box.addEventListener('keydown', function (ev) { treeKey(kind, ev); });
    const topo = el('div', {class: 'topo-box', hidden: true});

    const cur = el('span', {class: 'cur'});
    const widget = el('div', {class: 'selected-value', 'data-pane': kind, 'data-value': ''}, [
      el('div', {class: 'line main'}, [el('span', {class: 'min'}), cur, el('span', {class: 'max'})]),
      el('div', {class: 'line abs', hidden: true}, [el('span', {class: 'min'}), el('span', {class: 'cur'}), el('span', {class: 'max'})]),
      buildLegend(kind)]);

    p.section = el('section', {class: 'pane', 'data-pane': kind}, [tabs, tools, box, topo, widget]);
    Object.assign(p, {tabs: tabs, mode: mode, search: search, box: box, topo: topo, widget: widget});
    ui.panes[kind] = p;
    return p;
  }

  let gradientSeq = 0;
  function buildLegend(kind) {
    const gid = 'cv-grad-' + (gradientSeq++);
    const grad = el('linearGradient', {id: gid, x1: '0', x2: '1', y1: '0', y2: '0'});
    const svg = el('svg', {viewBox: '0 0 100 12', preserveAspectRatio: 'none', 'aria-hidden': 'true'}, [
      el('defs', null, [grad]),
      el('rect', {x: '0', y: '1', width: '100', height: '10', fill: 'url(#' + gid + ')', stroke: '#9aa5b5', 'stroke-width': '.3'}),
      el('line', {class: 'marker', x1: '0', x2: '0', y1: '0', y2: '12', stroke: '#000', 'stroke-width': '1.2', visibility: 'hidden'})]);
    const legend = el('div', {class: 'legend', 'data-pane': kind, 'data-min': '', 'data-max': '',
      title: 'Colour scale: blue (minimum) over cyan, green and yellow to red (maximum)'}, [svg,
      el('div', {class: 'note'}, [el('span', {class: 'lmin'}), el('span', {class: 'swatch'}),
        el('span', {text: 'white: zero, below the zero threshold or undefined', style: 'flex:1'}), el('span', {class: 'lmax'})])]);
    legend._grad = grad;
    return legend;
  }

  /* The gradient is sampled from model.colour so that legend and boxes agree. */
  function drawLegend(legendEl, legendIn, selectedValue) {
    const cs = colourSettings('widget', legendEl.dataset.pane);
    /* data-min/data-max: the range the colours scale over (user-defined if set). */
    const legend = legendIn ? ui.model.scale(legendIn, cs) : null;
    legendEl.dataset.min = legend ? String(legend.min) : '';
    legendEl.dataset.max = legend ? String(legend.max) : '';
    legendEl.dataset.user = String(!!(legend && legend.user));
    const grad = legendEl._grad;
    const marker = legendEl.querySelector('.marker');
    while (grad.firstChild) grad.removeChild(grad.firstChild);
    const ok = legend && isFinite(legend.min) && isFinite(legend.max);
    if (ok && !(legend.max > legend.min)) {
      /* An empty range: every value has the one colour of its end. */
      const c = ui.model.colour(legend.max, legend, cs);
      grad.appendChild(el('stop', {offset: '0', 'stop-color': c}));
      grad.appendChild(el('stop', {offset: '1', 'stop-color': c}));
    } else if (ok) {
      const span = legend.max - legend.min;
      for (let i = 0; i <= 20; i++) {
        let v = legend.min + span * i / 20;
        if (v === 0) v = legend.min + span * (i === 0 ? 0.002 : i / 20 + 0.002);
        grad.appendChild(el('stop', {offset: String(i / 20), 'stop-color': ui.model.colour(v, legend, cs)}));
      }
    } else {
      grad.appendChild(el('stop', {offset: '0', 'stop-color': '#ddd'}));
      grad.appendChild(el('stop', {offset: '1', 'stop-color': '#ddd'}));
    }
    /* "(u)" marks user-defined ends, as the Cube display does. */
    const u = legend && legend.user ? ' (u)' : '';
    legendEl.querySelector('.lmin').textContent = ok ? fmt(legend.min, 'widget') + u : '';
    legendEl.querySelector('.lmax').textContent = ok ? fmt(legend.max, 'widget') + u : '';
    if (ok && selectedValue === selectedValue && selectedValue !== undefined && legend.max > legend.min) {
      const x = Math.max(0, Math.min(1, (selectedValue - legend.min) / (legend.max - legend.min))) * 100;
      marker.setAttribute('x1', x); marker.setAttribute('x2', x); marker.setAttribute('visibility', 'visible');
    } else marker.setAttribute('visibility', 'hidden');
  }
  CubeUI.drawLegend = drawLegend;
  CubeUI.buildLegend = buildLegend;

  function layoutPanes() {
    const main = document.getElementById('panes');
    for (const k of ui.order) main.appendChild(ui.panes[k].section);
  }

  function updateModeOptions() {
    const st = modelState();
    for (const k of KINDS) {
      const sel = ui.panes[k].mode;
      for (const o of sel.options) {
        let ok = false;
        try { ok = !!ui.model.modeAvailable(k, o.value, st); } catch (e) { ok = o.value === 'absolute'; }
        o.disabled = !ok;
      }
      if (sel.selectedOptions[0] && sel.selectedOptions[0].disabled) { ui.mode[k] = 'absolute'; sel.value = 'absolute'; }
    }
  }

  function switchTab(kind, tab) {
    const p = ui.panes[kind];
    if (kind === 'call') {
      const t = tab === 'flat' ? 'flat' : 'tree';
      if (t === ui.callTab) return;
      ui.callTab = t;
      p.sort.hidden = t !== 'flat';
      renderTree(kind);
    } else if (kind === 'system') {
      const t = tab === 'tree' ? 'tree' : +tab.slice(5);
      if (t === ui.systemTab) return;
      ui.systemTab = t;
      p.box.hidden = t !== 'tree';
      p.topo.hidden = t === 'tree';
      if (t !== 'tree' && CubeUI.buildTopology) CubeUI.buildTopology(p.topo, t);
    }
    markTabs();
    updateModeOptions();
    const done = requestUpdate();
    if (kind === 'call' && ui.callTab === 'flat' && ui.flatSort === 'value' && done)
      done.then(function () { if (ui.callTab === 'flat') { renderTree('call'); applyValues('call'); } }, function () {});
  }

  function markTabs() {
    for (const k of KINDS) {
      const cur = k === 'call' ? (ui.callTab === 'flat' ? 'flat' : 'tree') : k === 'system' ? (ui.systemTab === 'tree' ? 'tree' : 'topo-' + ui.systemTab) : 'tree';
      for (const b of ui.panes[k].tabs.children) b.setAttribute('aria-selected', String(b.dataset.tab === cur));
    }
  }

  /* ---------- tree rendering (only the expanded part exists in the DOM) ---------- */

  function renderTree(kind) {
    const p = ui.panes[kind], t = treeKind(kind), a = adapter(t);
    p.nodes = new Map();
    if (ui.found[t]) refreshFound(kind, t);
    const ul = el('ul', {class: 'tree', role: 'group'});
    const roots = a.roots(t);
    for (const k of roots) if (!isHidden(kind, t, k)) ul.appendChild(renderNode(p, t, k));
    p.box.textContent = '';
    if (!roots.length) p.box.appendChild(el('div', {class: 'empty-note', text: 'Nothing defined in this dimension.'}));
    p.box.appendChild(ul);
  }

  function renderNode(p, t, key) {
    const a = adapter(t);
    const exp = ui.expanded[t].has(key);
    const kids = a.children(t, key);
    const selected = ui.selected[t].indexOf(key) >= 0;
    const li = el('li', {class: 'node', role: 'treeitem', 'data-id': t === 'flat' ? key.slice(1) : key,
      'data-expanded': String(exp && kids.length > 0), 'data-selected': String(selected)});
    if (t === 'flat') li.dataset.part = flatPart(key);
    if (kids.length) li.setAttribute('aria-expanded', String(exp));
    li._key = key;
    const match = ui.matches[t];
    if (match && match.has(key)) li.classList.add('match');
    markFound(t, key, li, exp);
    const sel = ui.selected[t];
    if (sel.length && sel[sel.length - 1] === key) li.classList.add('cursor');
    /* A node whose children are all hidden is shown as a leaf. */
    const shownKids = kids.length && !(ui.hideMode[t] !== 'none' && kids.every(function (c) { return isHidden(p.kind, t, c); }));
    const row = el('div', {class: 'row'}, [
      el('span', {class: 'toggle' + (shownKids ? '' : ' leaf'), text: shownKids ? (exp ? '\u25be' : '\u25b8') : '', 'aria-hidden': 'true'}),
      el('span', {class: 'value', 'data-value': ''}),
      el('span', {class: 'hidden-share', title: 'Share of the hidden children in the value'}),
      el('span', {class: 'label', text: a.name(t, key), title: a.title(t, key)})]);
    li.appendChild(row);
    if (exp && kids.length) li.appendChild(renderChildren(p, t, key, kids));
    p.nodes.set(key, li);
    if (ui.result) setNodeValue(p, t, key, li);
    return li;
  }

  /* Hiding leaves the roots of the trees alone (their values would be lost),
   * except the regions of the flat profile, a list. */
  function hideable(t, key) {
    return t !== 'metric' && (t === 'flat' || adapter(t).parent(t, key) !== null);
  }

  /* A node's colour position: where its collapsed (inclusive) value lies on
   * its colour scale, in percent; NaN without a value. */
  function colourPosition(kind, t, key) {
    if (!ui.result) return NaN;
    const v = adapter(t).value(t, key, false);
    if (!(v === v)) return NaN;
    const sc = ui.model.scale(nodeLegend(kind, t, key), colourSettings('tree', kind));
    return sc.max > sc.min ? (v - sc.min) / (sc.max - sc.min) * 100 : 100;
  }

  /* Whether a node is hidden: in static hiding if it was hidden, in dynamic
   * hiding if its colour position is below the threshold. */
  function isHidden(kind, t, key) {
    const mode = ui.hideMode[t];
    if (mode === 'none' || !hideable(t, key)) return false;
    if (mode === 'static') return ui.hidden[t].has(key);
    const pos = colourPosition(kind, t, key);
    return pos === pos && pos < ui.dynHide[t];
  }

  function hiddenChildren(kind, t, key) {
    if (ui.hideMode[t] === 'none') return [];
    return adapter(t).children(t, key).filter(function (c) { return isHidden(kind, t, c); });
  }

  /* The children of an expanded node, without the hidden ones. */
  function renderChildren(p, t, key, kids) {
    const ul = el('ul', {class: 'children', role: 'group'});
    for (const c of kids) if (!isHidden(p.kind, t, c)) ul.appendChild(renderNode(p, t, c));
    return ul;
  }

  /* The value a node shows: collapsed its inclusive value, expanded its
   * exclusive one; with hidden children, when expanded or with all of them
   * hidden, its exclusive value plus their inclusive values (n: how many,
   * hidden: their value, percent: their share). */
  function shownValue(kind, t, key, expanded) {
    const a = adapter(t);
    const hid = ui.result ? hiddenChildren(kind, t, key) : [];
    if (!hid.length || (!expanded && hid.length < a.children(t, key).length))
      return {value: a.value(t, key, expanded), n: 0};
    const own = a.value(t, key, true);
    const r = ui.model.withHidden(own, hid.map(function (c) { return a.value(t, c, false); }), ui.result[kind].combine);
    return {value: r.value, n: hid.length, own: own, hidden: r.hidden, percent: r.percent};
  }

  function setNodeValue(p, t, key, li) {
    const expanded = li.dataset.expanded === 'true';
    const sv = shownValue(p.kind, t, key, expanded);
    const v = sv.value;
    const box = li.firstChild.querySelector('.value');
    const defined = v === v && v !== undefined && v !== null;
    box.dataset.value = defined ? String(v) : '';
    box.textContent = defined ? fmt(v, 'tree') : '-';
    const share = li.firstChild.querySelector('.hidden-share');
    if (sv.n) {
      li.dataset.hiddenChildren = String(sv.n);
      box.dataset.own = sv.own === sv.own ? String(sv.own) : '';
      box.dataset.hiddenValue = sv.hidden === sv.hidden ? String(sv.hidden) : '';
      box.dataset.hiddenPercent = sv.percent === sv.percent ? String(sv.percent) : '';
      share.textContent = '(' + (sv.percent === sv.percent ? fmt(sv.percent, 'tree') + '%' : '-') + ')';
    } else if (li.dataset.hiddenChildren !== undefined) {
      delete li.dataset.hiddenChildren;
      delete box.dataset.own; delete box.dataset.hiddenValue; delete box.dataset.hiddenPercent;
      share.textContent = '';
    }
    const cs = colourSettings('tree', p.kind);
    const sc = ui.model.scale(nodeLegend(p.kind, t, key), cs);
    box.dataset.min = String(sc.min);
    box.dataset.max = String(sc.max);
    const c = ui.model.colour(defined ? v : NaN, sc, cs);
    box.style.backgroundColor = c;
    box.classList.toggle('dark', colourText(c));
  }

  /* The range a node's colour refers to: its metric root's in the metric tree, the
   * pane's legend elsewhere. */
  function nodeLegend(kind, t, key) {
    const res = ui.result[kind];
    if (kind === 'metric' && t === 'metric' && res.rootLegend && res.rootLegend[key]) return res.rootLegend[key];
    return res.legend;
  }

  function applyValues(kind) {
    const p = ui.panes[kind], t = treeKind(kind);
    if (!ui.result) return;
    for (const [key, li] of p.nodes) setNodeValue(p, t, key, li);
  }

  function forgetSubtree(p, li) {
    for (const d of li.querySelectorAll('li.node')) p.nodes.delete(d._key);
  }

  function setExpanded(kind, key, exp) {
    const p = ui.panes[kind], t = treeKind(kind), a = adapter(t);
    const kids = a.children(t, key);
    if (!kids.length) return false;
    if (exp === ui.expanded[t].has(key)) return false;
    if (exp) ui.expanded[t].add(key); else ui.expanded[t].delete(key);
    const li = p.nodes.get(key);
    if (li) {
      li.dataset.expanded = String(exp);
      li.setAttribute('aria-expanded', String(exp));
      const tg = li.firstChild.firstChild;
      if (!tg.classList.contains('leaf')) tg.textContent = exp ? '\u25be' : '\u25b8';
      if (t === 'flat') li.dataset.part = flatPart(key);
      const old = li.querySelector(':scope > ul.children');
      if (old) { forgetSubtree(p, old); old.remove(); }
      if (exp) li.appendChild(renderChildren(p, t, key, kids));
      if (ui.result) setNodeValue(p, t, key, li);
    }
    /* A selection hidden by collapsing moves to the collapsed node, so that what the
     * panes to the right refer to stays visible. */
    if (!exp) {
      const sel = ui.selected[t], keep = [];
      let moved = false;
      for (const k of sel) {
        let inside = false;
        for (let q = a.parent(t, k); q !== null; q = a.parent(t, q)) if (q === key) { inside = true; break; }
        if (inside) moved = true; else keep.push(k);
      }
      if (moved) {
        if (keep.indexOf(key) < 0) keep.push(key);
        ui.selected[t] = keep;
        markSelection(kind);
        requestUpdate();
        return true;
      }
    }
    /* The panes to the right see a selected node's value as it is shown. */
    if (ui.selected[t].indexOf(key) >= 0) requestUpdate();
    return true;
  }

  function toggle(kind, key) { setExpanded(kind, key, !ui.expanded[treeKind(kind)].has(key)); }

  /* The manual's "Expand subtree" / "Collapse subtree": at most this many nodes get
   * expanded at once, so that a large call tree stays responsive. */
  const MAX_SUBTREE_EXPAND = 2000;
  /* key null: the whole tree (expand only). */
  function setSubtree(kind, key, exp) {
    const t = treeKind(kind), a = adapter(t);
    const queue = key === null ? a.roots(t).slice() : [key], changed = [];
    while (queue.length && changed.length < MAX_SUBTREE_EXPAND) {
      const k = queue.shift(), kids = a.children(t, k);
      if (!kids.length) continue;
      if (exp !== ui.expanded[t].has(k)) { if (exp) ui.expanded[t].add(k); else ui.expanded[t].delete(k); changed.push(k); }
      for (const c of kids) queue.push(c);
    }
    if (!changed.length) return;
    if (!exp) {
      /* Selections inside the collapsed subtree move to its top, as with one node. */
      const keep = ui.selected[t].filter(function (k) {
        for (let q = a.parent(t, k); q !== null; q = a.parent(t, q)) if (q === key) return false;
        return true;
      });
      if (keep.length !== ui.selected[t].length && keep.indexOf(key) < 0) keep.push(key);
      ui.selected[t] = keep;
    }
    renderTree(kind);
    if (ui.selected[t].some(function (k) { return changed.indexOf(k) >= 0 || k === key; })) requestUpdate();
    else applyValues(kind);
    if (changed.length >= MAX_SUBTREE_EXPAND) setStatus('Expanded the first ' + MAX_SUBTREE_EXPAND + ' nodes of the ' + (key === null ? 'tree' : 'subtree'));
  }

  function collapseAll(kind) {
    const t = treeKind(kind);
    const hadSelected = ui.selected[t].some(function (k) { return ui.expanded[t].has(k); });
    ui.expanded[t].clear();
    renderTree(kind);
    if (hadSelected) requestUpdate(); else updateStatus();
  }

  /* Expands every ancestor of key so that it is rendered. */
  function reveal(kind, key) {
    const t = treeKind(kind), a = adapter(t);
    const path = [];
    for (let k = a.parent(t, key); k !== null; k = a.parent(t, k)) path.unshift(k);
    let changed = false;
    for (const k of path) if (!ui.expanded[t].has(k)) { ui.expanded[t].add(k); changed = true; }
    return changed;
  }

  /* ---------- selection ---------- */

  function metricRoot(id) { const m = ui.defs.metrics; while (m[id].parent >= 0) id = m[id].parent; return id; }

  function select(kind, key, add) {
    const t = treeKind(kind), p = ui.panes[kind];
    let sel = ui.selected[t];
    if (add) {
      const i = sel.indexOf(key);
      if (i >= 0) { if (sel.length > 1) sel.splice(i, 1); }
      /* Multiple metrics are selected within one root's subtree only, so that
       * the metric-root mode has one root. */
      else if (t === 'metric' && sel.length && metricRoot(sel[0]) !== metricRoot(key)) sel = [key];
      else sel.push(key);
    } else sel = [key];
    ui.selected[t] = sel;
    ui.note = null; ui.noteError = false;
    markSelection(kind);
    const li = p.nodes.get(key);
    if (li) li.firstChild.scrollIntoView({block: 'nearest'});
    requestUpdate();
  }

  function markSelection(kind) {
    const p = ui.panes[kind], t = treeKind(kind);
    const sel = ui.selected[t];
    for (const li of p.box.querySelectorAll('li.node[data-selected="true"], li.node.cursor')) {
      li.dataset.selected = 'false'; li.classList.remove('cursor');
    }
    for (const k of sel) { const li = p.nodes.get(k); if (li) li.dataset.selected = 'true'; }
    const cur = p.nodes.get(sel[sel.length - 1]);
    if (cur) cur.classList.add('cursor');
  }

  function treeClick(kind, ev) {
    const li = ev.target.closest('li.node');
    if (!li || !ui.panes[kind].box.contains(li)) return;
    if (ev.target.closest('.toggle')) {
      /* a node whose children are all hidden shows nothing more expanded */
      if (ev.target.closest('.toggle').classList.contains('leaf')) return;
      if (ev.shiftKey) setSubtree(kind, li._key, !ui.expanded[treeKind(kind)].has(li._key));
      else toggle(kind, li._key);
      return;
    }
    select(kind, li._key, ev.ctrlKey || ev.metaKey);
  }

  /* Selects a call path from elsewhere (statistics instances): switches to the call
   * tree, expands the path to it and scrolls it into view. */
  function selectCallPath(cnode) {
    if (!(cnode >= 0 && cnode < ui.defs.cnodes.length)) return;
    if (ui.callTab !== 'tree') switchTab('call', 'tree');
    if (reveal('call', cnode)) renderTree('call');
    select('call', cnode, false);
    const li = ui.panes.call.nodes.get(cnode);
    if (li) li.firstChild.scrollIntoView({block: 'center'});
  }

  /* ---------- keyboard ---------- */

  function treeKey(kind, ev) {
    const p = ui.panes[kind], t = treeKind(kind), a = adapter(t);
    if (ev.target !== p.box) return;
    const visible = Array.prototype.slice.call(p.box.querySelectorAll('li.node'));
    if (!visible.length) return;
    const sel = ui.selected[t];
    const curKey = sel.length ? sel[sel.length - 1] : null;
    let idx = -1;
    if (curKey !== null) { const li = p.nodes.get(curKey); idx = li ? visible.indexOf(li) : -1; }
    const rowH = visible[0].firstChild.offsetHeight || 20;
    const page = Math.max(1, Math.floor(p.box.clientHeight / rowH) - 1);
    let target = null;
    switch (ev.key) {
      case 'ArrowDown': target = idx < 0 ? 0 : Math.min(visible.length - 1, idx + 1); break;
      case 'ArrowUp': target = idx < 0 ? 0 : Math.max(0, idx - 1); break;
      case 'PageDown': target = idx < 0 ? 0 : Math.min(visible.length - 1, idx + page); break;
      case 'PageUp': target = idx < 0 ? 0 : Math.max(0, idx - page); break;
      case 'Home': target = 0; break;
      case 'End': target = visible.length - 1; break;
      case 'ArrowRight':
        if (curKey === null) break;
        if (a.children(t, curKey).length && !ui.expanded[t].has(curKey)) setExpanded(kind, curKey, true);
        else if (a.children(t, curKey).length) { select(kind, a.children(t, curKey)[0], false); }
        break;
      case 'ArrowLeft':
        if (curKey === null) break;
        if (ui.expanded[t].has(curKey)) setExpanded(kind, curKey, false);
        else { const par = a.parent(t, curKey); if (par !== null) select(kind, par, false); }
        break;
      case 'Enter': case ' ':
        if (curKey !== null) toggle(kind, curKey);
        break;
      case '*':
        if (curKey !== null) setSubtree(kind, curKey, true);
        break;
      case 'ContextMenu': {
        const li = curKey !== null ? p.nodes.get(curKey) : null;
        if (li) { const r = li.firstChild.getBoundingClientRect(); openMenu(kind, li, r.left + 30, r.bottom); }
        break;
      }
      default: return;
    }
    ev.preventDefault();
    if (target !== null && visible[target]._key !== curKey) select(kind, visible[target]._key, false);
  }

  /* ---------- search and largest path ---------- */

  function allKeys(t) {
    if (t === 'flat') return flatRegions().map(function (i) { return 'r' + i; });
    const n = listOf(t).length, r = new Array(n);
    for (let i = 0; i < n; i++) r[i] = i;
    return r;
  }

  function runSearch(kind, backwards) {
    const p = ui.panes[kind], t = treeKind(kind), a = adapter(t);
    const text = p.search.value;
    p.search.classList.remove('invalid');
    if (!text) {
      ui.matches[t] = null; p.matchList = null;
      for (const li of p.box.querySelectorAll('li.match')) li.classList.remove('match');
      updateStatus();
      return;
    }
    let re;
    try { re = new RegExp(text); } catch (e) {
      p.search.classList.add('invalid');
      setStatus('Search: invalid regular expression: ' + e.message, true);
      return;
    }
    /* Enter on an unchanged pattern moves to the next match. */
    if (p.matchList && p.matchText === text && p.matchTab === t && p.matchList.length) {
      p.matchPos = (p.matchPos + (backwards ? p.matchList.length - 1 : 1)) % p.matchList.length;
    } else {
      const list = [];
      for (const k of allKeys(t)) if (re.test(a.name(t, k))) list.push(k);
      p.matchList = list; p.matchText = text; p.matchTab = t; p.matchPos = 0;
      ui.matches[t] = new Set(list);
      let changed = false;
      for (let i = 0; i < list.length && i < MAX_EXPANDED_MATCHES; i++) if (reveal(kind, list[i])) changed = true;
      renderTree(kind);
      if (changed) requestUpdate(); else applyValues(kind);
    }
    const list = p.matchList;
    if (!list.length) { setStatus('Search "' + text + '": no match in the ' + PANE_TITLES[kind].toLowerCase()); return; }
    const key = list[p.matchPos];
    if (reveal(kind, key)) { renderTree(kind); requestUpdate(); }
    const li = p.nodes.get(key);
    if (li) { li.firstChild.scrollIntoView({block: 'center'}); }
    setStatus('Search "' + text + '": match ' + (p.matchPos + 1) + ' of ' + list.length +
      (list.length > MAX_EXPANDED_MATCHES ? ' (paths expanded for the first ' + MAX_EXPANDED_MATCHES + ')' : '') +
      ' (Enter: next, Shift+Enter: previous)');
  }

  function expandLargest(kind, from) {
    if (!ui.result) return;
    const t = treeKind(kind), p = ui.panes[kind];
    let path;
    try { path = ui.model.largestPath(t === 'flat' ? 'flat' : kind, ui.result[kind], modelState(), from); } catch (e) { setStatus('Expand to largest: ' + e.message, true); return; }
    if (!path || !path.length) return;
    if (t === 'flat') path = path.map(function (r) { return 'r' + r; });
    let changed = false;
    for (let i = 0; i + 1 < path.length; i++) if (!ui.expanded[t].has(path[i])) { ui.expanded[t].add(path[i]); changed = true; }
    const last = path[path.length - 1];
    if (changed) renderTree(kind);
    for (const li of p.box.querySelectorAll('li.largest')) li.classList.remove('largest');
    const li = p.nodes.get(last);
    if (li) { li.classList.add('largest'); li.firstChild.scrollIntoView({block: 'center'}); }
    if (changed && path.some(function (k) { return ui.selected[t].indexOf(k) >= 0; })) requestUpdate();
    else applyValues(kind);
    setStatus('Largest value in the ' + PANE_TITLES[kind].toLowerCase() + ': ' + adapter(t).name(t, last));
  }

  /* ---------- recomputation ---------- */

  /* Coalesces requests: one computation at a time, the last request wins. */
  function requestUpdate() {
    ui.dirty = true;
    if (ui.computing) return ui.pending;
    ui.pending = runUpdates();
    return ui.pending;
  }

  async function runUpdates() {
    ui.computing = true;
    document.body.dataset.busy = 'true';
    try {
      while (ui.dirty) {
        ui.dirty = false;
        updateModeOptions();
        const state = modelState();
        const res = await ui.model.compute(state);
        if (ui.dirty) continue;
        ui.result = res;
        if (ui.lastError) { ui.lastError = null; ui.note = null; ui.noteError = false; }
        /* Hidden children joined the selection by the previous values; with
         * the new ones (dynamic hiding) they may differ: once more then.  A
         * pane's values do not depend on its own selection, so this settles. */
        if (JSON.stringify(modelState().selection) !== JSON.stringify(state.selection)) ui.dirty = true;
        drawAll();
      }
      ui.lastError = null;
    } catch (e) {
      /* Reported in the status line; the page stays usable for the next click. */
      ui.lastError = e;
      ui.dirty = false;
      setStatus('Error: ' + (e && e.message ? e.message : e), true);
    } finally {
      ui.computing = false;
      document.body.dataset.busy = 'false';
    }
  }

  function drawAll() {
    for (const k of KINDS) {
      const t = treeKind(k);
      /* Dynamic hiding follows the values: the tree is drawn again. */
      if (ui.hideMode[t] === 'dynamic') renderTree(k);
      applyValues(k);
      drawWidget(k);
    }
    for (const h of ui.hooks) {
      try { h(ui.result); } catch (e) { console.error(e); setStatus('Error: ' + e.message, true); }
    }
    updateStatus();
  }

  function drawWidget(kind) {
    const p = ui.panes[kind], r = ui.result[kind], w = p.widget;
    const abs = ui.mode[kind] === 'absolute';
    const sv = r.selected;
    const defined = sv === sv && sv !== undefined && sv !== null;
    w.dataset.value = defined ? String(sv) : '';
    const main = w.querySelector('.line.main');
    const lg = ui.model.scale(r.legend || {min: NaN, max: NaN}, colourSettings('widget', kind));
    const u = lg.user ? ' (u)' : '';
    main.querySelector('.min').textContent = fmt(lg.min, 'widget') + u;
    main.querySelector('.max').textContent = fmt(lg.max, 'widget') + u;
    let cur = defined ? fmt(sv, 'widget') : '-';
    if (defined && abs && lg.max > lg.min) cur += ' (' + fmt((sv - lg.min) / (lg.max - lg.min) * 100, 'widget') + '%)';
    main.querySelector('.cur').textContent = cur;
    main.querySelector('.cur').title = 'Selected value' + (ui.selected[treeKind(kind)].length > 1 ? ' (sum of the selection)' : '');
    const absLine = w.querySelector('.line.abs');
    absLine.hidden = abs;
    if (!abs) {
      const sa = r.selectedAbs;
      absLine.querySelector('.cur').textContent = sa === sa && sa !== undefined && sa !== null ? fmt(sa, 'widget') + ' (absolute)' : '-';
    }
    drawLegend(w.querySelector('.legend'), r.legend, defined ? sv : NaN);
  }

  function describeSel(kind) {
    const t = treeKind(kind), a = adapter(t), sel = ui.selected[t];
    if (!sel.length) return 'nothing';
    const one = function (k) {
      const kids = a.children(t, k).length;
      const state = t === 'flat' ? flatPart(k) : kids ? (ui.expanded[t].has(k) ? 'exclusive' : 'inclusive') : '';
      if (t === 'flat' && k[0] === 's') return ui.defs.regions[+k.slice(1)].name + ' [subroutines]';
      if (t === 'system' && ui.defs.system[k].kind === 'thread' && ui.defs.system[k].parent >= 0)
        return a.name(t, ui.defs.system[k].parent) + " / " + a.name(t, k);
      return a.name(t, k) + (state ? ' [' + state + ']' : '');
    };
    return sel.length > 3 ? sel.length + ' items (sum)' : sel.map(one).join(' + ');
  }

  function modeLabel(name) {
    for (const m of ui.model.modes) if (m.name === name) return m.label;
    return name;
  }

  function updateStatus() {
    const parts = ui.order.map(function (k) {
      const label = k === 'call' && ui.callTab === 'flat' ? 'Flat' : k === 'system' && ui.systemTab !== 'tree' ? 'Topology' : k[0].toUpperCase() + k.slice(1);
      return label + ': ' + describeSel(k) + ' (' + modeLabel(ui.mode[k]) + ')';
    });
    parts.push('file: ' + (ui.defs.file || '?') + (ui.defs.served ? ' (served)' : ''));
    if (ui.note) parts.push(ui.note);
    showStatus(parts.join('  \u2502  '), ui.noteError);
  }

  /* ---------- precision dialog ---------- */

  /* A settings dialog (precision, colours) on ui[key]: OK applies and closes, Apply
   * applies, Cancel or Escape restores the settings it opened with. */
  function setupSettingsDialog(id, key, fill, apply, redraw) {
    const dlg = document.getElementById(id);
    let saved = null;
    document.getElementById(id + '-open').addEventListener('click', function () {
      saved = JSON.parse(JSON.stringify(ui[key]));
      fill(dlg);
      if (dlg.showModal) dlg.showModal(); else dlg.setAttribute('open', '');
    });
    const run = function () { apply(dlg); redraw(); };
    dlg.querySelector('[data-role="apply"]').addEventListener('click', run);
    dlg.addEventListener('close', function () {
      if (dlg.returnValue === 'ok') run();
      else if (saved) { ui[key] = saved; redraw(); }
      saved = null;
    });
    return run;
  }

  function setupPrecision() {
    CubeUI.applyPrecision = setupSettingsDialog('precision', 'settings', function (dlg) {
      for (const i of dlg.querySelectorAll('input[name]')) i.value = ui.settings[i.dataset.scope][i.name];
    }, function (dlg) {
      for (const i of dlg.querySelectorAll('input[name]')) {
        const v = parseInt(i.value, 10);
        if (isFinite(v) && v >= +i.min && v <= +i.max) ui.settings[i.dataset.scope][i.name] = v;
      }
    }, redrawValues);
  }

  /* ---------- colour settings dialog ---------- */

  /* The five colour positions in the dialog: a gradient drawn with the
   * dialog's method and positions, a black line per position that the left
   * mouse button drags (between its neighbours), and a spin per position. */
  const POS_W = 400;
  function positionsEditor(dlg) {
    const f = dlg.querySelector('form');
    const svg = dlg.querySelector('svg.colour-scale');
    const spins = Array.from(dlg.querySelectorAll('input[data-role="position"]'));
    const gid = 'cv-dialog-grad';
    const grad = el('linearGradient', {id: gid, x1: '0', x2: '1', y1: '0', y2: '0'});
    svg.appendChild(el('defs', null, [grad]));
    svg.appendChild(el('rect', {x: '0', y: '7', width: String(POS_W), height: '16', fill: 'url(#' + gid + ')', stroke: '#9aa5b5', 'stroke-width': '.5'}));
    const names = ['start', 'cyan', 'green', 'yellow', 'end'];
    const marks = names.map(function (n, i) {
      const g = el('g', {class: 'position', 'data-index': String(i), 'data-name': n}, [
        el('rect', {x: '-5', y: '0', width: '10', height: '30', fill: 'transparent'}),
        el('line', {x1: '0', x2: '0', y1: '1', y2: '29', stroke: '#000', 'stroke-width': '2'}),
        el('title', {text: n[0].toUpperCase() + n.slice(1) + ' (drag)'})]);
      svg.appendChild(g);
      return g;
    });
    let pos = [0, 0.25, 0.5, 0.75, 1];
    const draw = function () {
      const st = {method: f.elements.method.value, positions: pos, zeroThreshold: 300};
      while (grad.firstChild) grad.removeChild(grad.firstChild);
      for (let i = 0; i <= 80; i++) {
        const x = i / 80;
        grad.appendChild(el('stop', {offset: String(x), 'stop-color': ui.model.colour(Math.max(x, 1e-9), {min: 0, max: 1}, st)}));
      }
      marks.forEach(function (g, i) {
        g.setAttribute('transform', 'translate(' + (pos[i] * POS_W) + ',0)');
        g.dataset.value = String(pos[i]);
      });
    };
    const round = function (x) { return Math.round(x * 1000) / 1000; };
    /* position i moved to x, kept between its neighbours */
    const move = function (i, x, fromSpin) {
      const lo = i > 0 ? pos[i - 1] : 0, hi = i < 4 ? pos[i + 1] : 1;
      pos = pos.slice();
      pos[i] = Math.min(hi, Math.max(lo, x));
      if (!fromSpin || spins[i].value !== '' && +spins[i].value !== pos[i]) spins[i].value = String(round(pos[i]));
      draw();
    };
    let drag = -1;
    svg.addEventListener('pointerdown', function (ev) {
      if (ev.button !== 0) return;
      const g = ev.target.closest('g.position');
      const r = svg.getBoundingClientRect();
      const x = (ev.clientX - r.left) / r.width;
      /* on a line: that one; elsewhere the nearest */
      let best = g ? +g.dataset.index : 0;
      if (!g) for (let i = 1; i < 5; i++) if (Math.abs(pos[i] - x) < Math.abs(pos[best] - x)) best = i;
      drag = best;
      svg.setPointerCapture(ev.pointerId);
      move(drag, x);
      ev.preventDefault();
    });
    svg.addEventListener('pointermove', function (ev) {
      if (drag < 0) return;
      const r = svg.getBoundingClientRect();
      move(drag, (ev.clientX - r.left) / r.width);
    });
    const stop = function (ev) { if (drag >= 0 && svg.hasPointerCapture(ev.pointerId)) svg.releasePointerCapture(ev.pointerId); drag = -1; };
    svg.addEventListener('pointerup', stop);
    svg.addEventListener('pointercancel', stop);
    spins.forEach(function (input, i) {
      input.addEventListener('change', function () {
        const v = parseFloat(input.value);
        if (isFinite(v)) move(i, v, true); else input.value = String(round(pos[i]));
      });
    });
    f.elements.method.addEventListener('change', draw);
    return {
      set: function (p) { pos = p.slice(); spins.forEach(function (s, i) { s.value = String(round(pos[i])); }); draw(); },
      /* the spins as typed (Enter submits before their change event) */
      get: function () {
        spins.forEach(function (input, i) { const v = parseFloat(input.value); if (isFinite(v) && v !== pos[i]) move(i, v, true); });
        return pos.slice();
      },
    };
  }

  function setupColours() {
    const editor = positionsEditor(document.getElementById('colours'));
    CubeUI.applyColours = setupSettingsDialog('colours', 'colour', function (dlg) {
      const f = dlg.querySelector('form');
      f.elements.method.value = ui.colour.method;
      editor.set(ui.colour.positions);
      for (const n of ['lighten', 'whiteBelow']) f.elements[n].value = ui.colour[n];
      for (const n of ['userMin', 'userMax']) f.elements[n].value = ui.colour[n] === null ? '' : ui.colour[n];
    }, function (dlg) {
      const f = dlg.querySelector('form');
      ui.colour.method = f.elements.method.value;
      ui.colour.positions = editor.get();
      for (const n of ['lighten', 'whiteBelow']) {
        const v = parseFloat(f.elements[n].value);
        if (isFinite(v) && v >= 0 && v <= 100) ui.colour[n] = v;
      }
      for (const n of ['userMin', 'userMax']) {
        const v = parseFloat(f.elements[n].value);
        ui.colour[n] = f.elements[n].value.trim() !== '' && isFinite(v) ? v : null;
      }
    }, redrawAll);
  }

  /* Colours change what dynamic hiding hides: the trees are drawn again. */
  function redrawAll() {
    if (!ui.result) return;
    for (const k of KINDS) renderTree(k);
    drawAll();
  }

  /* ---------- questions (thresholds, find, min/max) ---------- */

  /* Asks for some values in the small dialog #ask: fields [{name, label,
   * value, type ('number' or 'text'), min, max}].  Resolves to {name: string}
   * on OK, null on Cancel or Escape. */
  function ask(title, text, fields) {
    const dlg = document.getElementById('ask');
    dlg.querySelector('[data-role="title"]').textContent = title;
    dlg.querySelector('[data-role="text"]').textContent = text || '';
    const box = dlg.querySelector('[data-role="fields"]');
    box.textContent = '';
    const inputs = fields.map(function (f) {
      const input = el('input', {name: f.name, type: f.type || 'number', step: f.type === 'text' ? null : 'any',
        min: f.min, max: f.max, required: f.type === 'text' ? null : true});
      input.value = f.value === null || f.value === undefined ? '' : String(f.value);
      box.appendChild(el('label', null, [el('span', {text: f.label}), input]));
      return input;
    });
    dlg.returnValue = '';
    return new Promise(function (resolve) {
      dlg.addEventListener('close', function () {
        if (dlg.returnValue !== 'ok') { resolve(null); return; }
        const out = {};
        for (const i of inputs) out[i.name] = i.value;
        resolve(out);
      }, {once: true});
      dlg.showModal();
      if (inputs[0]) { inputs[0].focus(); inputs[0].select(); }
    });
  }
  CubeUI.ask = ask;

  /* A percentage threshold: the colour position of the node the menu was
   * opened on, else the last threshold of the tree. */
  async function askThreshold(kind, t, key, title) {
    let def = key !== null ? colourPosition(kind, t, key) : NaN;
    if (!(def === def)) def = ui.lastThreshold[t] !== null ? ui.lastThreshold[t] : 1;
    const r = await ask(title, 'Nodes whose colour position (the place of their inclusive value on the colour scale) is below this percentage get hidden.',
      [{name: 'threshold', label: 'Threshold (0 to 100 %)', value: Number(def.toPrecision(6)), min: 0, max: 100}]);
    if (!r) return null;
    const v = parseFloat(r.threshold);
    if (!(isFinite(v) && v >= 0 && v <= 100)) { setStatus(title + ': the threshold must be a percentage from 0 to 100', true); return null; }
    ui.lastThreshold[t] = v;
    return v;
  }

  /* Every key of a tree in preorder (the order the nodes are shown in). */
  function preorder(t) {
    const a = adapter(t), out = [], stack = a.roots(t).slice().reverse();
    while (stack.length) {
      const k = stack.pop();
      out.push(k);
      const kids = a.children(t, k);
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
    return out;
  }

  /* ---------- find items ---------- */

  /* The found nodes: those whose names match and that are not hidden (nor
   * inside a hidden node), in preorder; `within` holds their ancestors, of
   * which the collapsed ones are marked light yellow. */
  function refreshFound(kind, t) {
    const f = ui.found[t], a = adapter(t);
    const cur = f.list.length ? f.list[f.pos] : null;
    const list = [], within = new Set(), gone = new Set();
    for (const k of preorder(t)) {
      const par = a.parent(t, k);
      if ((par !== null && gone.has(par)) || isHidden(kind, t, k)) { gone.add(k); continue; }
      if (f.re.test(a.name(t, k))) {
        list.push(k);
        for (let q = par; q !== null && !within.has(q); q = a.parent(t, q)) within.add(q);
      }
    }
    f.list = list; f.set = new Set(list); f.within = within;
    const i = cur === null ? -1 : list.indexOf(cur);
    f.pos = i >= 0 ? i : Math.min(f.pos, Math.max(0, list.length - 1));
  }

  function markFound(t, key, li, expanded) {
    const f = ui.found[t];
    li.classList.remove('found', 'found-current', 'found-within');
    if (!f) return;
    if (f.set.has(key)) li.classList.add('found');
    if (f.list.length && f.list[f.pos] === key) li.classList.add('found-current');
    if (!expanded && f.within.has(key)) li.classList.add('found-within');
  }

  function escapeRegExp(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }

  async function findItems(kind, key) {
    const t = treeKind(kind), a = adapter(t);
    const def = key !== null ? escapeRegExp(a.name(t, key)) : ui.lastFind[t];
    const r = await ask('Find items', 'Marks the shown nodes whose names contain a match of this regular expression, and the collapsed nodes that contain such a node.',
      [{name: 'pattern', label: 'Regular expression', value: def, type: 'text'}]);
    if (!r) return;
    let re;
    try { re = new RegExp(r.pattern); } catch (e) { setStatus('Find items: invalid regular expression: ' + e.message, true); return; }
    ui.lastFind[t] = r.pattern;
    ui.found[t] = {text: r.pattern, re: re, list: [], set: new Set(), within: new Set(), pos: 0};
    renderTree(kind);
    applyValues(kind);
    const f = ui.found[t];
    const li = f.list.length ? ui.panes[kind].box.querySelector('li.found, li.found-within') : null;
    if (li) li.firstChild.scrollIntoView({block: 'center'});
    setStatus('Find "' + r.pattern + '": ' + f.list.length + ' node' + (f.list.length === 1 ? '' : 's') + ' found in the ' + PANE_TITLES[kind].toLowerCase());
  }

  /* The next found node becomes the current one; its path is expanded. */
  async function findNext(kind) {
    const t = treeKind(kind);
    if (!ui.found[t]) { await findItems(kind, null); return; }
    const f = ui.found[t];
    if (!f.list.length) { setStatus('Find "' + f.text + '": nothing found'); return; }
    f.pos = (f.pos + 1) % f.list.length;
    const key = f.list[f.pos];
    const changed = reveal(kind, key);
    renderTree(kind);
    if (changed && ui.selected[t].some(function (k) { return ui.expanded[t].has(k); })) requestUpdate(); else applyValues(kind);
    const li = ui.panes[kind].nodes.get(key);
    if (li) li.firstChild.scrollIntoView({block: 'center'});
    setStatus('Find "' + f.text + '": node ' + (f.pos + 1) + ' of ' + f.list.length);
  }

  function clearFound(kind) {
    const t = treeKind(kind);
    ui.found[t] = null;
    for (const li of ui.panes[kind].box.querySelectorAll('li.found, li.found-current, li.found-within'))
      li.classList.remove('found', 'found-current', 'found-within');
  }

  /* ---------- hiding ---------- */

  /* The tree is drawn again with the hiding changed; the selected nodes'
   * shown values may have changed, so the panes to the right follow. */
  function hidingChanged(kind) {
    renderTree(kind);
    applyValues(kind);
    requestUpdate();
  }

  async function hidingAction(action, kind, key) {
    const t = treeKind(kind), a = adapter(t);
    switch (action) {
      case 'dynamic-hiding': case 'redefine-threshold': {
        const v = await askThreshold(kind, t, key, action === 'dynamic-hiding' ? 'Dynamic hiding' : 'Redefine threshold');
        if (v === null) return;
        ui.hidden[t].clear();
        ui.hideMode[t] = 'dynamic';
        ui.dynHide[t] = v;
        hidingChanged(kind);
        setStatus('Dynamic hiding in the ' + PANE_TITLES[kind].toLowerCase() + ': nodes below ' + Number(v.toPrecision(4)) + '% of the colour scale');
        return;
      }
      case 'static-hiding': {
        /* the nodes hidden now stay hidden */
        const keep = new Set();
        if (ui.hideMode[t] === 'dynamic') for (const k of preorder(t)) if (isHidden(kind, t, k)) keep.add(k);
        if (ui.hideMode[t] !== 'static') ui.hidden[t] = keep;
        ui.hideMode[t] = 'static';
        hidingChanged(kind);
        setStatus('Static hiding in the ' + PANE_TITLES[kind].toLowerCase() + ': ' + ui.hidden[t].size + ' nodes hidden');
        return;
      }
      case 'static-minor': {
        const v = await askThreshold(kind, t, key, 'Static hiding of minor values');
        if (v === null) return;
        let n = 0;
        for (const k of preorder(t)) {
          if (!hideable(t, k) || ui.hidden[t].has(k)) continue;
          const pos = colourPosition(kind, t, k);
          if (pos === pos && pos < v) { ui.hidden[t].add(k); n++; }
        }
        hidingChanged(kind);
        setStatus('Static hiding of minor values below ' + Number(v.toPrecision(4)) + '%: ' + n + ' more nodes hidden');
        return;
      }
      case 'hide': ui.hidden[t].add(key); hidingChanged(kind); return;
      case 'show-children':
        for (const c of a.children(t, key)) ui.hidden[t].delete(c);
        hidingChanged(kind);
        return;
      case 'no-hiding':
        ui.hidden[t].clear(); ui.hideMode[t] = 'none';
        hidingChanged(kind);
        return;
    }
  }

  /* ---------- context menu of tree nodes ---------- */

  let menuTarget = null;

  function depthOf(t, key) {
    const a = adapter(t);
    let d = 0;
    for (let q = a.parent(t, key); q !== null; q = a.parent(t, q)) d++;
    return d;
  }

  function userRange() { return ui.colour.userMin !== null || ui.colour.userMax !== null; }

  /* The region a node stands for: a call path's callee, a flat profile row's region. */
  function regionOf(t, key) {
    if (t === 'call') return ui.defs.cnodes[key].region;
    if (t === 'flat') return +String(key).slice(1);
    return -1;
  }

  /* li: the node the menu is opened on (the reference node), or null when
   * opened beside the nodes. */
  function openMenu(kind, li, x, y) {
    const menu = document.getElementById('context-menu');
    const t = treeKind(kind), a = adapter(t), key = li ? li._key : null, ref = key !== null;
    menuTarget = {kind: kind, key: key};
    const kids = ref ? a.children(t, key) : [];
    const mode = ui.hideMode[t];
    const reg = ref ? regionOf(t, key) : -1, r = reg >= 0 ? ui.defs.regions[reg] : null;
    const cn = ref && t === 'call' ? ui.defs.cnodes[key] : null;
    const url = ref && (t === 'metric' ? ui.defs.metrics[key].url || ui.defs.metrics[key].descr : r && (r.url || r.descr));
    const enable = {
      'collapse-all': true, 'collapse-subtree': kids.length > 0, 'collapse-peers': ref,
      'expand-all': true, 'expand-subtree': kids.length > 0, 'expand-peers': ref,
      'expand-largest': ref && t !== 'flat' && kids.length > 0,
      'dynamic-hiding': true, 'redefine-threshold': mode === 'dynamic', 'static-hiding': true,
      'static-minor': mode === 'static', 'hide': mode === 'static' && ref && hideable(t, key) && !ui.hidden[t].has(key),
      'show-children': mode === 'static' && kids.some(function (c) { return ui.hidden[t].has(c); }),
      'no-hiding': true,
      'find': true, 'find-next': true, 'clear-found': !!ui.found[t],
      'call-site-location': !!(cn && (cn.mod || cn.line > 0)), 'call-site-source': !!(cn && (cn.mod || cn.line > 0)),
      'info': ref, 'online': !!url, 'location': !!(r && (r.mod || r.begin > 0)), 'source': !!r,
      'min-max': true, 'statistics': !!ui.defs.stat,
      'sort-value': true, 'sort-name': true};
    for (const e of menu.children) {
      if (e.dataset.trees) e.hidden = e.dataset.trees.split(' ').indexOf(t) < 0;
      if (e.dataset.action) {
        e.disabled = !enable[e.dataset.action];
        /* the region's items are under "Called region" in the call tree */
        if (['info', 'online', 'location', 'source'].indexOf(e.dataset.action) >= 0) e.classList.toggle('sub', t === 'call');
      }
    }
    const check = {'dynamic-hiding': mode === 'dynamic', 'static-hiding': mode === 'static', 'no-hiding': mode === 'none', 'min-max': userRange()};
    for (const k in check) menu.querySelector('[data-action="' + k + '"]').setAttribute('aria-checked', String(check[k]));
    if (ref) menu.querySelector('[data-action="statistics"]').disabled = !ui.defs.stat;
    menu.dataset.pane = kind;
    menu.dataset.ref = ref ? (t === 'flat' ? String(key).slice(1) : String(key)) : '';
    menu.hidden = false;
    const w = menu.offsetWidth, h = menu.offsetHeight;
    menu.style.left = Math.max(0, Math.min(x, window.innerWidth - w - 2)) + 'px';
    menu.style.top = Math.max(0, Math.min(y, window.innerHeight - h - 2)) + 'px';
    const first = menu.querySelector('button:not(:disabled):not([hidden])');
    if (first) first.focus();
  }

  function closeMenu() {
    const menu = document.getElementById('context-menu');
    if (menu.hidden) return;
    menu.hidden = true;
    if (ui.defs && ui.panes.metric) updateStatus();
    const tg = menuTarget;
    if (tg && ui.panes[tg.kind]) ui.panes[tg.kind].box.focus();
  }

  /* Expands every node at the depth of key. */
  function expandPeers(kind, key) {
    const t = treeKind(kind), a = adapter(t), d = depthOf(t, key);
    let n = 0, sel = false;
    for (const k of preorder(t)) {
      if (depthOf(t, k) !== d || !a.children(t, k).length || ui.expanded[t].has(k)) continue;
      ui.expanded[t].add(k); n++;
      if (ui.selected[t].indexOf(k) >= 0) sel = true;
      if (n >= MAX_SUBTREE_EXPAND) break;
    }
    renderTree(kind);
    if (sel) requestUpdate(); else applyValues(kind);
  }

  async function menuAction(action) {
    const tg = menuTarget;
    if (!tg) return;
    const kind = tg.kind, key = tg.key, t = treeKind(kind);
    closeMenu();
    switch (action) {
      case 'collapse-all': collapseAll(kind); break;
      case 'collapse-subtree': setSubtree(kind, key, false); break;
      case 'collapse-peers': {
        const d = depthOf(t, key);
        for (const k of Array.from(ui.expanded[t])) if (k !== key && depthOf(t, k) === d) setExpanded(kind, k, false);
        break;
      }
      case 'expand-all': setSubtree(kind, null, true); break;
      case 'expand-subtree': setSubtree(kind, key, true); break;
      case 'expand-peers': expandPeers(kind, key); break;
      case 'expand-largest': expandLargest(kind, key); break;
      case 'dynamic-hiding': case 'redefine-threshold': case 'static-hiding': case 'static-minor':
      case 'hide': case 'show-children': case 'no-hiding':
        await hidingAction(action, kind, key); break;
      case 'find': await findItems(kind, key); break;
      case 'find-next': await findNext(kind); break;
      case 'clear-found': clearFound(kind); break;
      case 'info': showInfo(kind, key); break;
      case 'online': case 'location': case 'call-site-location': showInfo(kind, key, action); break;
      case 'source': if (CubeUI.showSource) CubeUI.showSource(regionOf(t, key), null); break;
      case 'call-site-source': if (CubeUI.showSource) CubeUI.showSource(regionOf(t, key), key); break;
      case 'min-max': await minMax(kind); break;
      case 'statistics': if (CubeUI.showStatistics) CubeUI.showStatistics(); break;
      case 'sort-value': case 'sort-name': {
        ui.flatSort = action === 'sort-value' ? 'value' : 'name';
        ui.panes.call.sort.value = ui.flatSort;
        renderTree(kind); applyValues(kind);
        break;
      }
    }
  }

  /* "Min/max values": on, asks for the values of the colour scale's ends
   * (values outside them are grey); off, back to the legends' ranges. */
  async function minMax(kind) {
    if (userRange()) {
      ui.colour.userMin = null; ui.colour.userMax = null;
      redrawAll();
      setStatus('Colours over the legends\' ranges again');
      return;
    }
    const lg = ui.result && ui.result[kind] ? ui.result[kind].legend : null;
    const r = await ask('Min/max values', 'The values of the left and the right end of the colour scale; values outside them are grey.',
      [{name: 'min', label: 'Minimum', value: lg ? lg.min : 0}, {name: 'max', label: 'Maximum', value: lg ? lg.max : 1}]);
    if (!r) return;
    const lo = parseFloat(r.min), hi = parseFloat(r.max);
    if (!(isFinite(lo) && isFinite(hi) && hi > lo)) { setStatus('Min/max values: two numbers, the maximum larger than the minimum', true); return; }
    ui.colour.userMin = lo; ui.colour.userMax = hi;
    redrawAll();
  }

  /* The node's details; what: undefined (Info: everything), 'online' (its
   * description and URL), 'location' (the region's file and lines) or
   * 'call-site-location' (the call's file and line). */
  function showInfo(kind, key, what) {
    const t = treeKind(kind);
    const rows = [];
    const add = function (k, v) { if (v !== undefined && v !== null && v !== '' && !(typeof v === 'number' && v < 0)) rows.push([k, String(v)]); };
    if (t === 'metric') {
      const m = ui.defs.metrics[key];
      add('Metric', m.name);
      if (!what) { add('Unique name', m.uniq); add('Unit', m.unit); add('Data type', m.dtype); add('Kind', m.kind); }
      add('Description', m.descr); add('URL', m.url);
    } else if (t === 'call' || t === 'flat') {
      const r = ui.defs.regions[regionOf(t, key)];
      const c = t === 'call' ? ui.defs.cnodes[key] : null;
      if (what === 'call-site-location') {
        add('Call of', r.name);
        const par = c.parent >= 0 ? ui.defs.regions[ui.defs.cnodes[c.parent].region].name : '';
        add('Caller', par);
        add('Call site', (c.mod || '?') + (c.line > 0 ? ':' + c.line : ''));
      } else {
        add('Region', r.name);
        if (what !== 'online') {
          add('Module', r.mod);
          if (r.begin >= 0) add('Lines', r.begin + (r.end >= 0 ? '-' + r.end : ''));
        }
        if (!what) {
          if (c) { if (c.mod || c.line > 0) add('Call site', (c.mod || '?') + ':' + c.line); }
          else add('Call paths', (r.cnodes || []).length);
        }
        if (what !== 'location') { add('Description', r.descr); add('URL', r.url); }
      }
    } else {
      const s = ui.defs.system[key];
      add('Kind', s.kind); add('Name', adapter(t).name(t, key)); add('Rank', s.rank);
      add(s.kind === 'thread' ? 'Thread index' : 'Index', s.index);
    }
    const li = ui.panes[kind].nodes.get(key);
    const r = li ? li.firstChild.getBoundingClientRect() : {left: 20, bottom: 60};
    const box = openInfoBox(rows, kind, t === 'flat' ? String(key).slice(1) : String(key), r.left + 20, r.bottom + 2);
    box.dataset.what = what || 'info';
    box.querySelector('.close').focus();
  }

  /* The info box with `rows` ([label, text, attributes of the text]) about
   * item `id` of `pane`, placed at (x, y) as far as the window allows. */
  function openInfoBox(rows, pane, id, x, y) {
    const box = document.getElementById('node-info'), dl = box.querySelector('dl');
    dl.textContent = '';
    for (const [k, v, attrs] of rows) {
      dl.appendChild(el('dt', {text: k}));
      dl.appendChild(el('dd', Object.assign({text: v}, attrs)));
    }
    for (const k of ['what', 'topology']) delete box.dataset[k];
    box.dataset.pane = pane;
    box.dataset.id = id;
    box.hidden = false;
    box.style.left = Math.max(0, Math.min(x, window.innerWidth - box.offsetWidth - 4)) + 'px';
    box.style.top = Math.max(0, Math.min(y, window.innerHeight - box.offsetHeight - 4)) + 'px';
    return box;
  }
  CubeUI.openInfoBox = openInfoBox;

  function closeInfo() {
    const box = document.getElementById('node-info');
    if (box.hidden) return;
    box.hidden = true;
    const k = box.dataset.pane;
    if (k && ui.panes[k]) ui.panes[k].box.focus();
  }

  function setupMenu() {
    const menu = document.getElementById('context-menu');
    for (const k of KINDS) {
      const box = ui.panes[k].box;
      box.addEventListener('contextmenu', function (ev) {
        const li = ev.target.closest('li.node');
        ev.preventDefault();
        /* beside the nodes: no reference node */
        openMenu(k, li && box.contains(li) ? li : null, ev.clientX, ev.clientY);
      });
    }
    menu.addEventListener('click', function (ev) {
      const b = ev.target.closest('button[data-action]');
      if (b && !b.disabled) menuAction(b.dataset.action).catch(function (e) { setStatus('Error: ' + (e && e.message ? e.message : e), true); });
    });
    /* the status line explains the item under the mouse */
    menu.addEventListener('mouseover', function (ev) {
      const b = ev.target.closest('button[data-action]');
      if (b && b.title) showStatus(b.textContent.replace(/\u2026$/, '') + ': ' + b.title);
    });
    menu.addEventListener('keydown', function (ev) {
      if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
      const items = Array.from(menu.querySelectorAll('button:not(:disabled):not([hidden])'));
      const i = items.indexOf(document.activeElement);
      const n = items[(i + (ev.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length];
      if (n) { ev.preventDefault(); n.focus(); }
    });
    document.getElementById('node-info').querySelector('.close').addEventListener('click', closeInfo);
    document.addEventListener('keydown', function (ev) {
      if (ev.key === 'Escape') { closeMenu(); closeInfo(); }
    });
    document.addEventListener('mousedown', function (ev) {
      if (!menu.hidden && !menu.contains(ev.target)) closeMenu();
    });
    window.addEventListener('blur', closeMenu);
  }
  CubeUI.menuAction = menuAction;

  function redrawValues() { if (ui.result) drawAll(); }
  CubeUI.redraw = redrawValues;

  /* ---------- start ---------- */

  async function start(dataElement) {
    try {
      const data = JSON.parse(dataElement.textContent);
      const token = new URLSearchParams(location.search).get('token') || '';
      ui.model = await CubeModel.open(data, {fetch: window.fetch ? window.fetch.bind(window) : null, token: token});
      ui.defs = ui.model.defs;
      if (ui.model.defaultSettings) ui.settings = JSON.parse(JSON.stringify(ui.model.defaultSettings));
      document.title = 'cube_view: ' + (ui.defs.file || '');
      document.getElementById('title').textContent = 'cube_view \u2014 ' + (ui.defs.file || '');
      const ext = ui.defs.external;
      document.getElementById('external-info').textContent = ext ? 'External percent relative to ' + ext.file : 'No external file: external percent unavailable';

      for (const k of KINDS) buildPane(k);
      layoutPanes();
      const order = document.getElementById('order');
      order.value = ui.order.join(',');
      order.addEventListener('change', function () {
        ui.order = order.value.split(',');
        layoutPanes();
        updateModeOptions();
        requestUpdate();
      });
      setupPrecision();
      setupColours();
      setupMenu();

      /* Collapsed everywhere, the first root of each tree selected. */
      for (const k of KINDS) {
        const roots = adapters.tree.roots(k);
        if (roots.length) ui.selected[k] = [roots[0]];
        renderTree(k);
        markSelection(k);
      }
      const flatRoots = adapters.flat.roots('flat');
      if (flatRoots.length) ui.selected.flat = [flatRoots[0]];
      markTabs();
      if (CubeUI.setupViews) CubeUI.setupViews();
      await requestUpdate();
      if (ui.lastError) throw ui.lastError;
      readyResolve();
    } catch (e) {
      showStatus('Error: ' + (e && e.message ? e.message : e), true);
      document.body.dataset.busy = 'false';
      readyReject(e);
    }
  }
})();
