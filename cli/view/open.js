/* cube_view File menu: opening another experiment in the page, and the external file of
 * the external percentage mode, from files the user chooses (or drops on the page).
 *
 * Accepted: a CUBE 3 experiment (XML, plain or gzip; gunzipped with the browser's
 * DecompressionStream, parsed with its DOMParser) and a page written by cube_view (its
 * data block).  Either becomes the data document cube_view writes (cube_view(1), DATA),
 * so the opened experiment is shown by the same code as an embedded page: the page is
 * written anew, its own markup and scripts around the new data (document.open), which
 * starts every view from scratch.  A CUBE 4 archive (.cubex) is refused with a message
 * saying to run cube_view on it.
 *
 * The external file only changes the model's external totals in place, keeping the
 * selections.
 *
 * For scripts: window.cubeViewLoad = {state: 'loading'|'done'|'error', file, message,
 * external} describes the last file chosen; it outlives the page written anew. */
(function () {
  'use strict';

  /* Only the part of a row's severity values, an id or a coordinate that strtod takes in
   * the C locale (no hexadecimal, no NaN or infinity: libcube refuses those too). */
  const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
  const ID = /^\s*\d+\s*$/;
  const INTEGER = /^\s*[+-]?\d+\s*$/;
  const DATA_OPEN = '<script type="application/json" id="cube-data">';
  /* the end of the data block (written in two pieces: the page's own script must not hold it) */
  const DATA_CLOSE = '<' + '/script>';

  /* The page as it was before the user interface started: its markup, style and scripts
   * with an empty data block, captured once at DOMContentLoaded (listeners run in the
   * order they were added, and this one comes before the page's start). */
  let template = null;
  const MARK = '\u0001cube-view-data\u0001';

  function captureTemplate() {
    const data = document.getElementById('cube-data');
    if (!data) return;
    const root = document.documentElement.cloneNode(true);
    const copy = root.querySelector('#cube-data');
    copy.textContent = MARK;
    template = '<!DOCTYPE html>\n' + root.outerHTML;
  }

  class OpenError extends Error {}

  function fail(text) { throw new OpenError(text); }

  /* ---------------------------------------------------------------- reading the file */

  function isTar(b) {
    /* "ustar" at byte 257: a tar archive, as a CUBE 4 .cubex is */
    return b.length >= 262 && b[257] === 0x75 && b[258] === 0x73 && b[259] === 0x74 &&
      b[260] === 0x61 && b[261] === 0x72;
  }

  function decodeText(bytes) {
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 200));
    const m = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head);
    const label = m ? m[1] : 'utf-8';
    let decoder;
    try { decoder = new TextDecoder(label, {fatal: true}); } catch (e) { fail('unknown character encoding "' + label + '" in the XML declaration'); }
    try { return decoder.decode(bytes); } catch (e) {
      if (e instanceof RangeError) fail('the file is too large to be read as text in the browser: run cube_view on it');
      fail('the bytes are not valid ' + label + ' text: expected a CUBE 3 XML file or a cube_view page');
    }
  }

  /* The data document of a file: {data, kind}. */
  async function readFile(file) {
    let bytes = new Uint8Array(await file.arrayBuffer());
    let gzip = false;
    if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
      try { bytes = await CubeModel.inflate(bytes, 'gzip'); } catch (e) { fail('a damaged gzip file (it does not decompress): expected a gzip-compressed CUBE 3 file'); }
      gzip = true;
    }
    if (isTar(bytes))
      fail('a CUBE 4 archive (.cubex): the page opens CUBE 3 files (.cube, .cube.gz) and cube_view pages; run cube_view on it and open the page it writes');
    const text = decodeText(bytes);
    const start = text.replace(/^\uFEFF/, '').trimStart();
    if (/^<!doctype html|^<html/i.test(start))
      return {data: pageData(text), kind: 'page'};
    if (start[0] !== '<')
      fail('not a CUBE file: expected a CUBE 3 experiment (XML with the root element <cube>, plain or gzip) or a page written by cube_view');
    return {data: parseCube3(text), kind: gzip ? 'CUBE 3, gzip' : 'CUBE 3'};
  }

  /* The data block of a page cube_view wrote. */
  function pageData(text) {
    const at = text.indexOf(DATA_OPEN);
    const end = at < 0 ? -1 : text.indexOf(DATA_CLOSE, at);
    if (at < 0 || end < 0) fail('an HTML page without cube_view\'s data block: expected a page written by cube_view');
    let data;
    try { data = JSON.parse(text.slice(at + DATA_OPEN.length, end)); } catch (e) {
      fail('the data block of the page is not valid JSON (' + e.message + '): expected a page written by cube_view');
    }
    if (!data || data.format !== 1 || !Array.isArray(data.metrics) || !Array.isArray(data.cnodes) || !Array.isArray(data.system))
      fail('the data block of the page is not cube_view\'s (format 1 with metrics, call paths and system): expected a page written by cube_view');
    if (data.served || !data.values)
      fail('a page of cube_view --serve, which carries no values: open the experiment itself, or a page written by cube_view -o');
    return data;
  }

  /* ---------------------------------------------------------------- CUBE 3 XML */

  /* The text of the child elements of `e` named in `fields` (the last one of a name
   * wins, as libcube reads them). */
  function fieldsOf(e, fields) {
    const out = {};
    for (const c of e.children) if (fields.indexOf(c.localName) >= 0) out[c.localName] = c.textContent;
    return out;
  }

  function idOf(e, name, anyCase) {
    let v = e.getAttribute(name);
    if (v === null && anyCase) for (const a of e.attributes) if (a.localName.toLowerCase() === name.toLowerCase()) { v = a.value; break; }
    if (v === null) fail('<' + e.localName + '> needs an attribute ' + name + ', found none');
    if (!ID.test(v)) fail('<' + e.localName + ' ' + name + '="' + v + '"> must be a non-negative integer');
    return Number(v);
  }

  function lineOf(e, name) {
    const v = e.getAttribute(name);
    if (v === null) return -1;
    if (!INTEGER.test(v)) fail('<' + e.localName + ' ' + name + '="' + v + '"> must be an integer');
    return Number(v);
  }

  function rankOf(e, text) {
    if (text === undefined) return 0;
    if (!INTEGER.test(text)) fail('<' + e.localName + '><rank> must be an integer, found "' + text + '"');
    return Number(text);
  }

  /* A DOCTYPE could declare entities: refused before parsing, as libcube refuses it, so
   * that no entity is ever expanded. */
  function checkProlog(text) {
    const re = /<(!--[\s\S]*?-->|\?[\s\S]*?\?>|!doctype|[^!?])/gi;
    let m;
    while ((m = re.exec(text)) !== null) {
      if (/^!doctype/i.test(m[1])) fail('a DOCTYPE is not allowed in a CUBE file (no DTD or entity is ever loaded)');
      if (m[1][0] !== '!' && m[1][0] !== '?') return;
    }
  }

  function parseCube3(text) {
    checkProlog(text);
    const doc = new DOMParser().parseFromString(text, 'application/xml');
    const perr = doc.getElementsByTagName('parsererror')[0];
    if (perr) {
      /* the browser's report: a heading, the error (in a div), a heading */
      const what = (perr.querySelector('div') || perr).textContent.trim().split('\n')[0];
      fail('not well-formed XML (' + what + '): expected a CUBE 3 XML file');
    }
    const root = doc.documentElement;
    if (!root || root.localName !== 'cube')
      fail('not a CUBE file: expected the root element <cube>, found <' + (root ? root.localName : '') + '>');
    const version = root.getAttribute('version');
    if (version === null) fail('<cube> needs a version attribute, found none');
    if (!/^3(\.|$)/.test(version))
      fail('unsupported CUBE version "' + version + '": the page opens CUBE 3 XML files (CUBE 4 .cubex archives: run cube_view on them)');

    const data = {format: 1, file: '', served: false, attributes: {}, metrics: [], regions: [], cnodes: [],
      system: [], topologies: [], values: {}, external: null, stat: null};
    const ids = {metric: new Map(), region: new Map(), cnode: new Map(), machine: new Map(), node: new Map(), process: new Map(), thread: new Map()};
    const register = function (kind, id, index) {
      if (ids[kind].has(id)) fail('duplicate ' + kind + ' id ' + id + ': ids of one kind must be unique');
      ids[kind].set(id, index);
    };
    const threads = [];   /* per thread index: its id */
    const systemAt = {machine: [], node: [], process: [], thread: []};  /* index in its kind -> system index */
    let severity = null;

    const metric = function (e, parent) {
      const f = fieldsOf(e, ['disp_name', 'uniq_name', 'dtype', 'uom', 'val', 'url', 'descr']);
      const index = data.metrics.length;
      register('metric', idOf(e, 'id', true), index);
      const dtype = f.dtype || '';
      const isVoid = f.val === 'VOID' || (parent >= 0 && data.metrics[parent].kind === 'void');
      data.metrics.push({name: f.disp_name || '', uniq: f.uniq_name || '', unit: f.uom || '', dtype: dtype,
        combine: dtype === 'MAXDOUBLE' ? 'max' : dtype === 'MINDOUBLE' ? 'min' : 'sum',
        kind: isVoid ? 'void' : 'stored', descr: f.descr || '', url: f.url || '', parent: parent});
      for (const c of e.children) if (c.localName === 'metric') metric(c, index);
    };
    const cnode = function (e, parent) {
      const id = idOf(e, 'id', true), callee = idOf(e, 'calleeId', false);
      const region = ids.region.get(callee);
      if (region === undefined) fail('cnode ' + id + ' calls region ' + callee + ', which is not defined (regions must come before call-tree nodes)');
      const index = data.cnodes.length;
      register('cnode', id, index);
      data.cnodes.push({id: id, region: region, parent: parent, mod: e.getAttribute('mod') || '', line: lineOf(e, 'line')});
      for (const c of e.children) if (c.localName === 'cnode') cnode(c, index);
    };
    /* A machine, node, process or thread and the items below it: each is numbered within
     * its kind in document order; threads carry their process's rank. */
    const BELOW = {machine: 'node', node: 'process', process: 'thread'};
    const place = function (e, kind, parent, prank) {
      let name, rank = -1;
      if (kind === 'process' || kind === 'thread') {
        const f = fieldsOf(e, ['name', 'rank']), own = rankOf(e, f.rank);
        if (kind === 'process') prank = own;
        name = f.name !== undefined ? f.name : (kind === 'process' ? 'Process ' : 'Thread ') + own;
        rank = prank;
      } else {
        name = fieldsOf(e, ['name']).name || '';
      }
      const at = data.system.length, index = systemAt[kind].length, id = idOf(e, 'id', true);
      register(kind, id, index);
      data.system.push({kind: kind, name: name, parent: parent, index: index, rank: rank});
      systemAt[kind].push(at);
      if (kind === 'thread') threads.push(id);
      const next = BELOW[kind];
      if (next) for (const c of e.children) if (c.localName === next) place(c, next, at, prank);
    };
    const system = function (s) {
      for (const c of s.children) {
        if (c.localName === 'topologies') topologies(c);
        else if (c.localName === 'machine') place(c, 'machine', -1, -1);
      }
    };
    const COORD = [['thrdId', 'thread'], ['procId', 'process'], ['nodeId', 'node'], ['machId', 'machine']];
    const topologies = function (tops) {
      for (const c of tops.children) {
        if (c.localName !== 'cart') continue;
        const nd = idOf(c, 'ndims', false);
        if (nd < 1 || nd > 1024) fail('<cart ndims=...> must be 1 to 1024, found ' + nd);
        const t = {name: c.getAttribute('name') || '', dims: [], cells: []};
        for (const d of c.children) {
          if (d.localName === 'dim') {
            if (t.cells.length) fail('<dim> after <coord>: all dimensions must come first');
            if (t.dims.length >= nd) fail('<cart> declares ndims=' + nd + ' but has more <dim> elements');
            const size = idOf(d, 'size', false);
            if (size < 1 || size > 0x7fffffff) fail('<dim size=...> must be a positive integer, found ' + size);
            const per = (d.getAttribute('periodic') || '').toLowerCase();
            if (per !== 'true' && per !== 'false') fail('<dim periodic=...> must be true or false, found "' + (d.getAttribute('periodic') || '(none)') + '"');
            t.dims.push({name: d.getAttribute('name') || '', size: size, periodic: per === 'true'});
          } else if (d.localName === 'coord') {
            if (t.dims.length !== nd) fail('<cart> declares ndims=' + nd + ' but has ' + t.dims.length + ' <dim> elements before <coord>');
            const target = COORD.find(function (x) { return d.hasAttribute(x[0]); });
            if (!target) fail('<coord> needs one of thrdId, procId, nodeId, machId, found none');
            const id = idOf(d, target[0], false), index = ids[target[1]].get(id);
            if (index === undefined) fail('<coord ' + target[0] + '="' + id + '"> refers to an undefined entity');
            const words = d.textContent.trim().split(/[ \t\n\r]+/).filter(Boolean);
            if (words.length !== nd) fail('<coord> needs ' + nd + ' coordinates, found ' + words.length);
            const cell = [systemAt[target[1]][index]];
            words.forEach(function (w, k) {
              if (!INTEGER.test(w)) fail('<coord> must hold integers, found "' + w.slice(0, 20) + '"');
              const v = Number(w);
              if (v < 0 || v >= t.dims[k].size) fail('coordinate ' + v + ' of dimension ' + k + ' is outside 0..' + (t.dims[k].size - 1));
              cell.push(v);
            });
            t.cells.push(cell);
          }
        }
        if (t.dims.length !== nd) fail('<cart> declares ndims=' + nd + ' but has ' + t.dims.length + ' <dim> elements');
        data.topologies.push(t);
      }
    };

    for (const c of root.children) {
      switch (c.localName) {
        case 'attr': {
          const k = c.getAttribute('key'), v = c.getAttribute('value');
          if (k === null || v === null) fail('<attr> needs the attributes key and value');
          data.attributes[k] = v;
          break;
        }
        case 'metrics':
          for (const m of c.children) if (m.localName === 'metric') metric(m, -1);
          break;
        case 'program':
          for (const p of c.children) {
            if (p.localName === 'region') {
              const f = fieldsOf(p, ['name', 'url', 'descr']);
              const index = data.regions.length;
              register('region', idOf(p, 'id', true), index);
              data.regions.push({name: f.name || '', mod: p.getAttribute('mod') || '', begin: lineOf(p, 'begin'), end: lineOf(p, 'end'),
                descr: f.descr || '', url: f.url || '', source: null});
            } else if (p.localName === 'cnode') cnode(p, -1);
          }
          break;
        case 'system':
          system(c);
          break;
        case 'severity':
          if (severity) fail('expected </cube> after </severity>, found <severity> (there is only one <severity>)');
          severity = c;
          break;
      }
    }
    readSeverity(data, severity, ids, threads);
    return data;
  }

  /* The rows: per metric with values, the call paths that have a row and their values
   * per thread (a row's i-th value belongs to the thread with the i-th smallest id).  A
   * repeated row overwrites the values it gives; values missing at a row's end are 0. */
  function readSeverity(data, severity, ids, threads) {
    const nT = threads.length;
    const byId = threads.map(function (id, i) { return [id, i]; }).sort(function (a, b) { return a[0] - b[0]; });
    const column = byId.map(function (x) { return x[1]; });
    const rows = data.metrics.map(function () { return null; });
    if (severity) for (const mx of severity.children) {
      if (mx.localName !== 'matrix') continue;
      const mid = idOf(mx, 'metricId', false), m = ids.metric.get(mid);
      if (m === undefined) fail('<matrix metricId="' + mid + '"> refers to a metric that is not defined');
      const keep = data.metrics[m].kind !== 'void';
      if (keep && !rows[m]) rows[m] = new Map();
      for (const r of mx.children) {
        if (r.localName !== 'row') continue;
        const cid = idOf(r, 'cnodeId', false), c = ids.cnode.get(cid);
        if (c === undefined) fail('<row cnodeId="' + cid + '"> refers to a call-tree node that is not defined');
        const words = r.textContent.split(/[ \t\n\r]+/);
        let row = keep ? rows[m].get(c) : null;
        if (keep && !row) { row = new Float64Array(nT); rows[m].set(c, row); }
        let k = 0;
        for (const w of words) {
          if (!w) continue;
          if (k === nT) fail('row for cnode ' + cid + ' has more values than the ' + nT + ' threads, expected </row>');
          const v = NUMBER.test(w) ? Number(w) : NaN;
          if (!isFinite(v)) fail((NUMBER.test(w) || /^[+-]?(nan|inf)/i.test(w) ? 'severity values must be finite (no NaN or infinity)' : 'expected a number (\'.\' as decimal point)') +
            ' in row for cnode ' + cid + ': found "' + w.slice(0, 40) + '"');
          if (row) row[column[k]] = v;
          k++;
        }
      }
    }
    rows.forEach(function (map, m) {
      if (!map || !map.size) return;
      const cn = Array.from(map.keys()).sort(function (a, b) { return a - b; });
      const values = new Float64Array(cn.length * nT);
      cn.forEach(function (c, r) { values.set(map.get(c), r * nT); });
      data.values[String(m)] = {cnodes: base64(new Uint8Array(new Int32Array(cn).buffer)), data: base64(new Uint8Array(values.buffer))};
    });
  }

  function base64(bytes) {
    const parts = [];
    for (let i = 0; i < bytes.length; i += 0x8000)
      parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000)));
    return btoa(parts.join(''));
  }

  /* ---------------------------------------------------------------- the menu's actions */

  function message(text, state) {
    const box = document.getElementById('open-message');
    if (!box) return;
    box.querySelector('.text').textContent = text;
    box.dataset.state = state;
    box.hidden = !text;
  }

  function current() {
    const ui = window.CubeUI && window.CubeUI.ui;
    return ui && ui.defs ? ui : null;
  }

  function describeError(e) {
    if (e instanceof OpenError) return e.message;
    if (e instanceof RangeError) return 'the file is too large for the browser: run cube_view on it';
    return 'cannot be read (' + (e && e.message ? e.message : e) + ')';
  }

  async function openMain(file) {
    window.cubeViewLoad = {state: 'loading', file: file.name, message: '', external: false};
    message('Opening ' + file.name + '\u2026', 'loading');
    let json;
    try {
      const read = await readFile(file);
      if (!template) fail('the page cannot be written anew (its template is missing)');
      const data = read.data;
      /* a page keeps the name of its experiment */
      if (read.kind !== 'page' || !data.file) data.file = file.name;
      data.opened = {file: file.name, kind: read.kind};
      /* the external file stays open for the new experiment */
      const ui = current();
      if (ui && ui.defs.external) data.external = ui.defs.external;
      json = JSON.stringify(data).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
      /* decoded once here (the model adds to the data: after it was written out), so
       * that data that cannot be shown is refused before the page shown is replaced */
      try { await CubeModel.open(data, {}).ready; } catch (e) {
        fail('its data cannot be shown (' + (e && e.message ? e.message : e) + ')');
      }
    } catch (e) {
      const text = 'Cannot open ' + file.name + ': ' + describeError(e);
      window.cubeViewLoad = {state: 'error', file: file.name, message: text, external: false};
      message(text, 'error');
      return;
    }
    const at = template.indexOf(MARK);
    const html = template.slice(0, at) + json + template.slice(at + MARK.length);
    document.open();
    document.write(html);
    document.close();
  }

  /* The totals of every metric over all call paths and threads, by unique name: what the
   * external percentage divides by (the metric pane's values with nothing on its left). */
  async function totalsOf(data) {
    const model = CubeModel.open(data, {});
    const res = await model.compute({order: ['metric', 'call', 'system'], callTab: 'tree', systemTab: 'tree',
      mode: {metric: 'absolute', call: 'absolute', system: 'absolute'}, external: false,
      selection: {metric: [], call: [], flat: [], system: []}});
    const totals = {};
    data.metrics.forEach(function (m, i) { if (!(m.uniq in totals)) totals[m.uniq] = res.metric.absIncl[i]; });
    return totals;
  }

  function setExternal(ext) {
    const ui = current();
    ui.model.defs.external = ext;
    ui.model.data.external = ext;
    document.getElementById('external-info').textContent = ext ? 'External percent relative to ' + ext.file : 'No external file: external percent unavailable';
    updateMenu();
    return window.CubeUI.update();
  }

  async function openExternal(file) {
    window.cubeViewLoad = {state: 'loading', file: file.name, message: '', external: true};
    message('Opening ' + file.name + ' as the external file\u2026', 'loading');
    try {
      const ui = current();
      if (!ui) fail('no experiment is shown');
      const read = await readFile(file);
      const totals = await totalsOf(read.data);
      await setExternal({file: file.name, totals: totals});
    } catch (e) {
      const text = 'Cannot open ' + file.name + ' as the external file: ' + describeError(e);
      window.cubeViewLoad = {state: 'error', file: file.name, message: text, external: true};
      message(text, 'error');
      return;
    }
    message('', 'done');
    window.cubeViewLoad = {state: 'done', file: file.name, message: '', external: true};
  }

  async function closeExternal() {
    if (!current()) return;
    await setExternal(null);
  }

  /* The page as it is shown, drawn into a PNG image: its markup and style sheet in an
   * SVG foreignObject, which the browser draws onto a canvas.  What the markup does not
   * hold is carried over: the chosen options, typed text and scroll positions. */
  async function screenshot() {
    const w = document.documentElement.clientWidth, h = document.documentElement.clientHeight;
    const body = document.body.cloneNode(true);
    const from = document.body.querySelectorAll('select, input, .tree-box, .topo-box, #source, #stat');
    const to = body.querySelectorAll('select, input, .tree-box, .topo-box, #source, #stat');
    from.forEach(function (e, i) {
      const c = to[i];
      if (e.localName === 'select') { const o = c.options[e.selectedIndex]; if (o) o.setAttribute('selected', ''); }
      else if (e.localName === 'input') { if (e.type !== 'file') c.setAttribute('value', e.value); }
      else if (e.scrollTop || e.scrollLeft) {
        c.style.overflow = 'hidden';
        if (c.firstElementChild) c.firstElementChild.style.transform = 'translate(' + -e.scrollLeft + 'px,' + -e.scrollTop + 'px)';
      }
    });
    for (const x of body.querySelectorAll('script, #file-menu-items, #open-message')) x.remove();
    const css = Array.from(document.querySelectorAll('style')).map(function (x) { return x.textContent; }).join('\n');
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="' + w + '" height="' + h + '"><foreignObject width="100%" height="100%">' +
      '<html xmlns="http://www.w3.org/1999/xhtml"><head><style>' + css.replace(/&/g, '&amp;').replace(/</g, '&lt;') + '<' + '/style></head>' +
      new XMLSerializer().serializeToString(body) + '</html></foreignObject></svg>';
    const img = new Image();
    await new Promise(function (resolve, reject) {
      img.onload = resolve;
      img.onerror = function () { reject(new Error('the browser could not draw the page')); };
      img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg);
    });
    const canvas = document.createElement('canvas');
    canvas.width = w;
    canvas.height = h;
    canvas.getContext('2d').drawImage(img, 0, 0);
    const blob = await new Promise(function (resolve) { canvas.toBlob(resolve, 'image/png'); });
    if (!blob) throw new Error('the browser made no PNG image');
    const ui = current();
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'cube_view-' + ((ui && ui.defs.file) || 'page').replace(/[^A-Za-z0-9_.-]+/g, '_') + '.png';
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 60000);
  }

  function updateMenu() {
    const items = document.getElementById('file-menu-items');
    const ui = current();
    if (!items) return;
    const opened = !!(ui && ui.model && ui.model.data && ui.model.data.opened);
    items.querySelector('[data-action="close"]').disabled = !opened;
    items.querySelector('[data-action="close-external"]').disabled = !(ui && ui.defs.external);
    items.querySelector('[data-action="open-external"]').disabled = !ui;
  }

  function closeMenu() {
    const items = document.getElementById('file-menu-items');
    if (!items || items.hidden) return;
    items.hidden = true;
    document.getElementById('file-button').setAttribute('aria-expanded', 'false');
  }

  function openMenu() {
    updateMenu();
    const items = document.getElementById('file-menu-items');
    items.hidden = false;
    document.getElementById('file-button').setAttribute('aria-expanded', 'true');
    const first = items.querySelector('button:not(:disabled)');
    if (first) first.focus();
  }

  function action(name) {
    closeMenu();
    if (name === 'open') document.getElementById('open-file').click();
    else if (name === 'open-external') document.getElementById('open-external').click();
    else if (name === 'close-external') closeExternal();
    else if (name === 'screenshot') screenshot().catch(function (e) { message('Screenshot: ' + e.message, 'error'); });
    /* the page's own experiment: the page is loaded again from where it came */
    else if (name === 'close') location.reload();
  }

  function setup() {
    const button = document.getElementById('file-button'), items = document.getElementById('file-menu-items');
    if (!button || !items) return;
    const main = document.getElementById('open-file'), ext = document.getElementById('open-external');
    button.addEventListener('click', function () { if (items.hidden) openMenu(); else closeMenu(); });
    items.addEventListener('click', function (ev) {
      const b = ev.target.closest('button[data-action]');
      if (b && !b.disabled) action(b.dataset.action);
    });
    items.addEventListener('keydown', function (ev) {
      if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
      const list = Array.from(items.querySelectorAll('button:not(:disabled)'));
      const n = list[(list.indexOf(document.activeElement) + (ev.key === 'ArrowDown' ? 1 : list.length - 1)) % list.length];
      if (n) { ev.preventDefault(); n.focus(); }
    });
    main.addEventListener('change', function () { const f = main.files[0]; main.value = ''; if (f) openMain(f); });
    ext.addEventListener('change', function () { const f = ext.files[0]; ext.value = ''; if (f) openExternal(f); });
    document.getElementById('open-message').querySelector('.close').addEventListener('click', function () { message('', 'done'); });
    document.addEventListener('keydown', function (ev) {
      if (ev.key === 'Escape') { closeMenu(); return; }
      if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && !ev.shiftKey && (ev.key === 'o' || ev.key === 'O')) {
        ev.preventDefault();
        closeMenu();
        main.click();
      }
    });
    document.addEventListener('mousedown', function (ev) {
      if (!items.hidden && !items.contains(ev.target) && ev.target !== button) closeMenu();
    });
    /* a file dropped on the page is opened as with File > Open */
    document.addEventListener('dragover', function (ev) {
      if (ev.dataTransfer && Array.from(ev.dataTransfer.types).indexOf('Files') >= 0) ev.preventDefault();
    });
    document.addEventListener('drop', function (ev) {
      const f = ev.dataTransfer && ev.dataTransfer.files[0];
      if (!f) return;
      ev.preventDefault();
      openMain(f);
    });
    updateMenu();
  }

  document.addEventListener('DOMContentLoaded', function () {
    captureTemplate();
    setup();
    const load = window.cubeViewLoad;
    /* the page written anew for an opened file: done when its first view is drawn */
    if (load && load.state === 'loading' && !load.external && window.cubeViewReady) {
      window.cubeViewReady.then(function () {
        updateMenu();
        window.cubeViewLoad = {state: 'done', file: load.file, message: '', external: false};
      }, function (e) {
        window.cubeViewLoad = {state: 'error', file: load.file, message: String(e && e.message || e), external: false};
      });
    } else if (window.cubeViewReady) {
      window.cubeViewReady.then(updateMenu, function () {});
    }
  });

  window.CubeOpen = {readFile: readFile, parseCube3: parseCube3, openMain: openMain, openExternal: openExternal};
})();
