/*
 * model.js - the numbers of the cube_view page, without any drawing: the
 * page's data decoded, the values of the three panes (metric tree, call
 * tree or flat profile, system tree) computed from the selections of the
 * panes to their left, the eleven value modes, colours and number
 * formatting.  It defines one global, CubeModel; the user interface reads
 * everything through it.
 *
 * The values follow libcube's views (cube_views.h) so that the page shows
 * what cube_dump prints:
 *  - stored values are metric-inclusive and call-exclusive, per thread;
 *  - a metric's exclusive value is its value minus the values of its child
 *    metrics that are parts of it (both combine by sum, the child is not
 *    VOID; a COMPLEX, RATE or TAU_ATOMIC parent has only children of its
 *    own type as parts, a HISTOGRAM parent none);
 *  - a call path's inclusive value combines its whole subtree;
 *  - MAXDOUBLE values combine by maximum, MINDOUBLE by minimum, all others
 *    by sum (compensated, as the library sums); a call path without a row
 *    has no value of a maximum or minimum (NaN here) and 0 of a sum;
 *  - integer types narrower than 64 bits wrap modulo 2^bits (over all
 *    threads too, but not where a process, node or machine adds its
 *    threads' values);
 *  - COMPLEX, RATE and TAU_ATOMIC values combine by their components
 *    (re, im; main value, duration; count, sum) where the page carries
 *    them: along the call tree, over all threads, over all call paths and
 *    into a parent metric's exclusive value; the value shown is the
 *    number of the combined components (|re, im|, main / duration,
 *    sum / count).  Everything else combines their numbers: the flat
 *    profile, processes, nodes and machines (and so a call pane right of
 *    a system selection), several selected nodes;
 *  - processes, nodes and machines combine their threads; an expanded one
 *    has no value of its own (NaN, shown as "-");
 *  - a pane left of the metric pane has no values (NaN): it would add up
 *    metrics of different meanings.
 *
 * Embedded data ("served": false) is computed here; served data is fetched
 * from the page's server one pane at a time (/api/pane), and the value
 * modes are applied here in both cases.  Answers are cached per query.
 *
 * The interface:
 *   CubeModel.open(data, {fetch, token, base}) -> model
 *   model.defs          the definitions, with children lists (metrics,
 *                       cnodes, system) and regions[i].cnodes
 *   model.modes         the eleven modes [{name, label}], cube_dump's names
 *   model.defaultSettings  {tree, widget}: {digits, expThreshold,
 *                       zeroThreshold} of the precision dialog
 *   model.modeAvailable(paneKind, mode, state)
 *   model.compute(state) -> Promise of {metric, call, system, references},
 *       each pane {incl, excl, absIncl, absExcl, selected, selectedAbs,
 *       legend: {min, max}}; the flat profile (callTab 'flat') per region
 *       with sub and absSub too; the metric pane also rootLegend[i], the
 *       range of metric i's root (legend: the selected metric's root's).
 *       A pane left of the metric pane, or right
 *       of a pane with nothing selected, has only NaN (undefined).
 *   model.topology(index, systemResult, mode) -> {name, dims, cells:
 *       [{id, coord, value}], legend}
 *   model.colour(value, legend, settings), model.format(value, settings)
 *       colour settings: method (linear quadratic1 quadratic2 exponential1
 *       exponential2), positions (the five places of blue, cyan, green,
 *       yellow and red on the scale, 0..1), lighten, whiteBelow (percent),
 *       userMin, userMax
 *   model.scale(legend, settings) -> {min, max, user}: the range coloured
 *   model.withHidden(own, hidden, combine) -> {value, hidden, percent}: a
 *       node's value with its hidden children's values added
 *   model.largestPath(paneKind, result, state[, from]) -> [ids]
 *   model.paneQuery(pane, state) -> the served query of a pane
 */
var CubeModel = (function () {
    'use strict';

    var MODES = [
        {name: 'absolute', label: 'Absolute'},
        {name: 'ownroot', label: 'Own root percent'},
        {name: 'metricroot', label: 'Metric root percent'},
        {name: 'metricsel', label: 'Metric selection percent'},
        {name: 'callroot', label: 'Call root percent'},
        {name: 'callsel', label: 'Call selection percent'},
        {name: 'sysroot', label: 'System root percent'},
        {name: 'syssel', label: 'System selection percent'},
        {name: 'peer', label: 'Peer percent'},
        {name: 'peerdist', label: 'Peer distribution'},
        {name: 'external', label: 'External percent'}
    ];
    var PANES = ['metric', 'call', 'system'];
    var SUM = 0, MAX = 1, MIN = 2;
    var CACHE_SIZE = 24;

    /* Precision settings of the manual's dialog: digits after the point,
     * exponent notation from 10^expThreshold on, zero below
     * 10^-zeroThreshold. */
    var DEFAULT_SETTINGS = {
        tree: {digits: 2, expThreshold: 4, zeroThreshold: 9},
        widget: {digits: 6, expThreshold: 7, zeroThreshold: 12}
    };

    /* ------------------------------------------------------------------
     * Decoding
     * ------------------------------------------------------------------ */

    function base64Bytes(text) {
        if (typeof atob === 'function') {
            var bin = atob(text), n = bin.length, out = new Uint8Array(n);
            for (var i = 0; i < n; i++)
                out[i] = bin.charCodeAt(i);
            return out;
        }
        /* node without atob (older versions) */
        var buf = Buffer.from(text, 'base64');
        return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
    }

    var LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

    /* Values written with "encoding": "deflate" are zlib streams; the
     * browser (and node) inflate them with DecompressionStream (format
     * 'deflate', or 'gzip' for a file opened in the page). */
    function inflateBytes(bytes, format) {
        var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(format || 'deflate'));
        return new Response(stream).arrayBuffer().then(function (buf) { return new Uint8Array(buf); });
    }

    function decodeFloat64(bytes) {
        var n = bytes.length >> 3;
        if (LITTLE_ENDIAN) {
            /* the bytes are the array already: copied only when the
             * buffer does not start at a multiple of 8 */
            if (bytes.byteOffset % 8 === 0 && bytes.length % 8 === 0)
                return new Float64Array(bytes.buffer, bytes.byteOffset, n);
            return new Float64Array(bytes.slice(0, n * 8).buffer);
        }
        var out = new Float64Array(n), dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
        for (var i = 0; i < n; i++)
            out[i] = dv.getFloat64(i * 8, true);
        return out;
    }

    function decodeInt32(bytes) {
        var n = bytes.length >> 2;
        if (LITTLE_ENDIAN)
            return new Int32Array(bytes.slice(0, n * 4).buffer);
        var out = new Int32Array(n), dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
        for (var i = 0; i < n; i++)
            out[i] = dv.getInt32(i * 4, true);
        return out;
    }

    /* ------------------------------------------------------------------
     * Arithmetic as libcube does it
     * ------------------------------------------------------------------ */

    function combineOf(metric) {
        if (metric.combine === 'max' || metric.dtype === 'MAXDOUBLE')
            return MAX;
        if (metric.combine === 'min' || metric.dtype === 'MINDOUBLE')
            return MIN;
        return SUM;
    }

    var INT_TYPES = {
        'INT8': [8, true], 'UINT8': [8, false], 'CHAR': [8, false],
        'INT16': [16, true], 'SIGNED SHORT INT': [16, true], 'SHORT INT': [16, true],
        'UINT16': [16, false], 'UNSIGNED SHORT INT': [16, false],
        'INT32': [32, true], 'SIGNED INT': [32, true], 'INT': [32, true],
        'UINT32': [32, false], 'UNSIGNED INT': [32, false]
    };

    /* v brought into the range of an integer type of `bits` bits. */
    function wrap(v, bits, signed) {
        if (!bits || !isFinite(v))
            return v;
        var m = Math.pow(2, bits), x = v % m;
        if (!signed)
            return x < 0 ? x + m : x;
        var half = m / 2;
        return x >= half ? x - m : x < -half ? x + m : x;
    }

    function wrapArray(a, bits, signed) {
        if (bits)
            for (var i = 0; i < a.length; i++)
                a[i] = wrap(a[i], bits, signed);
    }

    /* The number of a value from its two components (cubex_value_number):
     * kind 1 COMPLEX (re, im), 2 RATE (main value, duration), 3
     * TAU_ATOMIC (count, sum). */
    var COMPONENT_KINDS = {'COMPLEX': 1, 'RATE': 2, 'TAU_ATOMIC': 3};
    var DBL_MAX = 1.7976931348623157e308;
    function componentNumber(kind, a, b) {
        if (kind === 1)
            return Math.sqrt(a * a + b * b);
        if (kind === 2)
            return b !== 0 ? a / b : a > 0 ? DBL_MAX : a < 0 ? -DBL_MAX : 0;
        return a !== 0 ? b / a : 0;
    }

    /* A combiner: a compensated (Neumaier) sum, or a maximum or minimum of
     * the values that are not NaN; NaN when a maximum or minimum saw none. */
    function Combiner(how) {
        this.how = how;
        this.s = 0;
        this.c = 0;
        this.v = NaN;
    }
    Combiner.prototype.add = function (x) {
        if (this.how === SUM) {
            if (x !== x)
                return;
            var s = this.s + x;
            this.c += Math.abs(this.s) >= Math.abs(x) ? (this.s - s) + x : (x - s) + this.s;
            this.s = s;
        } else if (x === x) {
            var v = this.v;
            if (v !== v || (this.how === MAX ? x > v : x < v))
                this.v = x;
        }
    };
    Combiner.prototype.result = function () {
        if (this.how === SUM)
            return isFinite(this.s) ? this.s + this.c : this.s;
        return this.v;
    };

    function pick(how, a, b) {
        if (a !== a)
            return b;
        if (b !== b)
            return a;
        return how === MAX ? (b > a ? b : a) : (b < a ? b : a);
    }

    /* 100 * value / reference (cube_value_in_mode's percent) */
    function percent(value, reference) {
        if (reference === 0 || reference !== reference || value !== value)
            return NaN;
        if (value === reference)
            return 100;
        var scaled = 100 * value;
        return isFinite(scaled) || !isFinite(value) ? scaled / reference : value / reference * 100;
    }

    /* ------------------------------------------------------------------
     * The model
     * ------------------------------------------------------------------ */

    function Model(data, options) {
        options = options || {};
        this.data = data;
        this.served = !!data.served;
        this.fetchFn = options.fetch || (typeof fetch === 'function' ? fetch : null);
        this.token = options.token || '';
        this.base = options.base || '';
        this.modes = MODES.map(function (m) { return {name: m.name, label: m.label}; });
        this.defaultSettings = JSON.parse(JSON.stringify(DEFAULT_SETTINGS));
        this.cache = new Map();
        this.buildDefinitions();
        /* compute() waits for the values; they are ready at once unless
         * they must be inflated first */
        this.ready = this.served ? Promise.resolve() : this.decodeValues();
    }

    Model.prototype.buildDefinitions = function () {
        var d = this.data;
        var metrics = d.metrics || [], cnodes = d.cnodes || [], system = d.system || [],
            regions = d.regions || [];
        var i;
        this.defs = {
            format: d.format, file: d.file, served: !!d.served, attributes: d.attributes || {},
            metrics: metrics, regions: regions, cnodes: cnodes, system: system,
            topologies: d.topologies || [], external: d.external || null, stat: d.stat || null
        };
        var nM = this.nM = metrics.length, nC = this.nC = cnodes.length,
            nS = this.nS = system.length, nR = this.nR = regions.length;
        for (i = 0; i < nM; i++)
            metrics[i].children = [];
        for (i = 0; i < nC; i++)
            cnodes[i].children = [];
        for (i = 0; i < nS; i++)
            system[i].children = [];
        for (i = 0; i < nR; i++)
            regions[i].cnodes = [];
        this.metricRoots = [];
        this.cnodeRoots = [];
        this.systemRoots = [];
        for (i = 0; i < nM; i++) {
            var p = metrics[i].parent;
            if (p >= 0) metrics[p].children.push(i); else this.metricRoots.push(i);
        }
        var cparent = this.cparent = new Int32Array(nC), cregion = this.cregion = new Int32Array(nC);
        for (i = 0; i < nC; i++) {
            var cp = cnodes[i].parent == null ? -1 : cnodes[i].parent;
            cparent[i] = cp;
            cregion[i] = cnodes[i].region;
            if (cp >= 0) cnodes[cp].children.push(i); else this.cnodeRoots.push(i);
            if (cnodes[i].region >= 0 && cnodes[i].region < nR)
                regions[cnodes[i].region].cnodes.push(i);
        }
        for (i = 0; i < nS; i++) {
            var sp = system[i].parent == null ? -1 : system[i].parent;
            if (sp >= 0) system[sp].children.push(i); else this.systemRoots.push(i);
        }

        /* metrics: combine rules, integer wrapping, parts */
        this.mcombine = new Uint8Array(nM);
        this.mbits = new Uint8Array(nM);
        this.msigned = new Uint8Array(nM);
        this.mparts = [];
        this.mroot = new Int32Array(nM);
        this.mkind = new Uint8Array(nM); /* COMPONENT_KINDS, 0 for others */
        for (i = 0; i < nM; i++) {
            var m = metrics[i];
            this.mcombine[i] = combineOf(m);
            this.mkind[i] = COMPONENT_KINDS[m.dtype] || 0;
            var it = INT_TYPES[m.dtype];
            if (it) {
                this.mbits[i] = it[0];
                this.msigned[i] = it[1] ? 1 : 0;
            }
            var r = i;
            while (metrics[r].parent >= 0)
                r = metrics[r].parent;
            this.mroot[i] = r;
        }
        for (i = 0; i < nM; i++) {
            var parts = [], pm = metrics[i], rule = this.partRule(pm);
            for (var k = 0; k < pm.children.length; k++) {
                var ch = metrics[pm.children[k]];
                if (rule === 0 || ch.kind === 'void' || combineOf(ch) !== SUM)
                    continue;
                if (rule === 2 && ch.dtype !== pm.dtype)
                    continue;
                parts.push(pm.children[k]);
            }
            this.mparts.push(parts);
        }

        /* call tree: preorder, subtree ranges, roots, outermost calls */
        var pre = this.cpre = new Int32Array(nC);       /* preorder position -> cnode */
        var pos = this.cpos = new Int32Array(nC);       /* cnode -> preorder position */
        var end = this.cend = new Int32Array(nC);       /* cnode -> end of its subtree in preorder */
        var croot = this.croot = new Int32Array(nC);
        var outer = this.couter = new Uint8Array(nC);   /* first call of its region on its path */
        var active = new Int32Array(Math.max(nR, 1));
        var n = 0, stack = [], next = [];
        for (var ri = 0; ri < this.cnodeRoots.length; ri++) {
            var root = this.cnodeRoots[ri];
            stack.push(root); next.push(0);
            pos[root] = n; pre[n++] = root; croot[root] = root;
            outer[root] = active[cregion[root]]++ === 0 ? 1 : 0;
            while (stack.length) {
                var top = stack[stack.length - 1], kids = cnodes[top].children, j = next[next.length - 1];
                if (j < kids.length) {
                    next[next.length - 1] = j + 1;
                    var c = kids[j];
                    pos[c] = n; pre[n++] = c; croot[c] = root;
                    outer[c] = active[cregion[c]]++ === 0 ? 1 : 0;
                    stack.push(c); next.push(0);
                } else {
                    end[top] = n;
                    active[cregion[top]]--;
                    stack.pop(); next.pop();
                }
            }
        }

        /* system tree: thread columns, ranges of threads below each item */
        var nT = 0;
        this.scol = new Int32Array(nS);
        this.skind = new Uint8Array(nS); /* 0 machine, 1 node, 2 process, 3 thread */
        var kinds = {machine: 0, node: 1, process: 2, thread: 3};
        for (i = 0; i < nS; i++) {
            var s = system[i];
            this.skind[i] = kinds[s.kind] === undefined ? 1 : kinds[s.kind];
            if (s.kind === 'thread') {
                this.scol[i] = s.index;
                if (s.index + 1 > nT) nT = s.index + 1;
            } else {
                this.scol[i] = -1;
            }
        }
        this.nT = nT;
        /* the threads below each item, and each item's machine */
        this.sthreads = [];
        this.smachine = new Int32Array(nS);
        this.sdepth = new Int32Array(nS);
        for (i = 0; i < nS; i++)
            this.sthreads.push(null);
        var order = [];
        stack = this.systemRoots.slice().reverse();
        while (stack.length) {
            var x = stack.pop();
            order.push(x);
            var px = system[x].parent;
            this.smachine[x] = px >= 0 ? this.smachine[px] : x;
            this.sdepth[x] = px >= 0 ? this.sdepth[px] + 1 : 0;
            for (var q = system[x].children.length - 1; q >= 0; q--)
                stack.push(system[x].children[q]);
        }
        for (var oi = order.length - 1; oi >= 0; oi--) {
            var y = order[oi], list = [];
            if (this.scol[y] >= 0)
                list.push(this.scol[y]);
            /* a process's own threads first, then nested items, as
             * cube_system_combine walks them */
            var ch2 = system[y].children;
            for (var t2 = 0; t2 < ch2.length; t2++)
                if (this.skind[ch2[t2]] === 3)
                    list.push(this.scol[ch2[t2]]);
            for (t2 = 0; t2 < ch2.length; t2++)
                if (this.skind[ch2[t2]] !== 3)
                    Array.prototype.push.apply(list, this.sthreads[ch2[t2]]);
            this.sthreads[y] = list;
        }
        this.sthreadItem = new Int32Array(nT).fill(-1);
        for (i = 0; i < nS; i++)
            if (this.scol[i] >= 0)
                this.sthreadItem[this.scol[i]] = i;
    };

    /* 0: no parts, 1: children combining by sum, 2: children of the same
     * type (view_part_rule). */
    Model.prototype.partRule = function (m) {
        if (combineOf(m) !== SUM)
            return 0;
        var t = m.dtype || '';
        if (/^HISTOGRAM/.test(t))
            return 0;
        if (t === 'COMPLEX' || t === 'RATE' || t === 'TAU_ATOMIC')
            return 2;
        return 1;
    };

    /* The bytes of every stored array, inflated where the page deflated
     * them: a Promise of {metric index: {cnodes, data}} as Uint8Arrays. */
    Model.prototype.valueBytes = function () {
        var values = this.data.values || {}, out = {}, pending = [];
        Object.keys(values).forEach(function (k) {
            var v = values[k], b = {cnodes: base64Bytes(v.cnodes), data: base64Bytes(v.data)};
            var fields = ['cnodes', 'data'];
            if (v.components) {
                b.components = base64Bytes(v.components);
                fields.push('components');
            }
            out[k] = b;
            if (v.encoding === 'deflate')
                fields.forEach(function (f) {
                    pending.push(inflateBytes(b[f]).then(function (x) { b[f] = x; }));
                });
            else if (v.encoding)
                throw new Error('values of metric ' + k + ': unknown encoding ' + v.encoding);
        });
        return Promise.all(pending).then(function () { return out; });
    };

    Model.prototype.decodeValues = function () {
        var self = this;
        this.rowOf = [];
        this.rows = [];
        return Promise.resolve().then(function () { return self.valueBytes(); })
            .then(function (bytes) { self.storeValues(bytes); });
    };

    Model.prototype.storeValues = function (values) {
        var nC = this.nC;
        for (var m = 0; m < this.nM; m++) {
            var v = values[String(m)];
            if (!v) {
                this.rowOf.push(null);
                this.rows.push(null);
                continue;
            }
            var cn = decodeInt32(v.cnodes), data = decodeFloat64(v.data);
            var rowOf = new Int32Array(nC).fill(-1);
            for (var r = 0; r < cn.length; r++)
                rowOf[cn[r]] = r;
            this.rowOf.push(rowOf);
            /* the two components of each value, beside data */
            var comp = v.components && this.mkind[m] ? decodeFloat64(v.components) : null;
            if (comp && comp.length !== 2 * data.length)
                throw new Error('values of metric ' + m + ': ' + comp.length + ' components for ' +
                                data.length + ' values');
            this.rows.push({cnodes: cn, data: data, comp: comp});
        }
        this.aggCache = [];
        this.totalCache = [];
    };

    /* Does metric m have values?  Derived metrics and VOID ones have none. */
    Model.prototype.isDerived = function (m) {
        return this.defs.metrics[m].kind === 'derived';
    };
    Model.prototype.isVoid = function (m) {
        return this.defs.metrics[m].kind === 'void';
    };

    /* Per call path, metric m's value combined over all threads
     * (cube_dump -t aggr, call-exclusive, metric-inclusive). */
    Model.prototype.agg = function (m) {
        if (this.aggCache[m])
            return this.aggCache[m];
        var how = this.mcombine[m], nC = this.nC, nT = this.nT;
        var out = new Float64Array(nC);
        if (how !== SUM)
            out.fill(NaN);
        var rows = this.rows[m];
        if (rows) {
            var data = rows.data, cn = rows.cnodes;
            for (var r = 0; r < cn.length; r++) {
                var base = r * nT;
                if (how === SUM) {
                    var s = 0, c = 0;
                    for (var t = 0; t < nT; t++) {
                        var x = data[base + t];
                        if (x !== x) continue;
                        var u = s + x;
                        c += (s >= 0 ? s : -s) >= (x >= 0 ? x : -x) ? (s - u) + x : (x - u) + s;
                        s = u;
                    }
                    out[cn[r]] = isFinite(s) ? s + c : s;
                } else {
                    var v = NaN;
                    for (t = 0; t < nT; t++)
                        v = pick(how, v, data[base + t]);
                    out[cn[r]] = v;
                }
            }
        }
        this.aggCache[m] = out;
        return out;
    };

    /* ------------------------------------------------------------------
     * Filters: what the selections of the panes to the left choose
     * ------------------------------------------------------------------ */

    /* The call paths a call-tree or flat selection covers: weights (a
     * call path selected twice counts twice in a sum) and, for maxima and
     * minima, membership.  null: nothing left of the pane, every call
     * path once. */
    Model.prototype.callFilter = function (state) {
        var nC = this.nC, w = new Float64Array(nC), mask = new Uint8Array(nC), i, j;
        var pre = this.cpre, pos = this.cpos, end = this.cend;
        if (state.callTab === 'flat') {
            var sel = state.selection.flat || [];
            var regs = this.defs.regions;
            for (i = 0; i < sel.length; i++) {
                var list = regs[sel[i].region] ? regs[sel[i].region].cnodes : [], part = sel[i].part;
                var k, c;
                if (part === 'excl') {
                    for (k = 0; k < list.length; k++) { w[list[k]] += 1; mask[list[k]] = 1; }
                } else if (part === 'incl') {
                    for (k = 0; k < list.length; k++) {
                        c = list[k];
                        if (!this.couter[c]) continue;
                        for (j = pos[c]; j < end[c]; j++) { w[pre[j]] += 1; mask[pre[j]] = 1; }
                    }
                } else {
                    /* Subroutines: sums take the inclusive value minus the
                     * exclusive one; maxima the subtrees of the children */
                    for (k = 0; k < list.length; k++) {
                        c = list[k];
                        if (this.couter[c])
                            for (j = pos[c]; j < end[c]; j++) w[pre[j]] += 1;
                        w[c] -= 1;
                        var kids = this.defs.cnodes[c].children;
                        for (var q = 0; q < kids.length; q++)
                            for (j = pos[kids[q]]; j < end[kids[q]]; j++) mask[pre[j]] = 1;
                    }
                }
            }
        } else {
            var csel = state.selection.call || [];
            for (i = 0; i < csel.length; i++) {
                var id = csel[i].id;
                if (csel[i].expanded) {
                    w[id] += 1; mask[id] = 1;
                } else {
                    for (j = pos[id]; j < end[id]; j++) { w[pre[j]] += 1; mask[pre[j]] = 1; }
                }
            }
        }
        return {w: w, mask: mask};
    };

    /* The threads a system selection covers (collapsed items all their
     * threads, expanded non-threads nothing); weights and membership. */
    Model.prototype.systemFilter = function (state) {
        var nT = this.nT, w = new Float64Array(nT), mask = new Uint8Array(nT);
        var sel = state.selection.system || [];
        for (var i = 0; i < sel.length; i++) {
            var id = sel[i].id;
            if (this.scol[id] >= 0) {
                w[this.scol[id]] += 1; mask[this.scol[id]] = 1;
            } else if (!sel[i].expanded) {
                var th = this.sthreads[id];
                for (var k = 0; k < th.length; k++) { w[th[k]] += 1; mask[th[k]] = 1; }
            }
        }
        return {w: w, mask: mask};
    };

    /* The metrics selected: [{m, excl}] */
    Model.prototype.metricFilter = function (state) {
        var sel = state.selection.metric || [];
        return sel.map(function (s) { return {m: s.id, excl: !!s.expanded}; });
    };

    /* How the selected metrics combine: their common rule, else a sum. */
    Model.prototype.selectionCombine = function (msel) {
        if (!msel.length)
            return SUM;
        var how = this.mcombine[msel[0].m];
        for (var i = 1; i < msel.length; i++)
            if (this.mcombine[msel[i].m] !== how)
                return SUM;
        return how;
    };

    /* The metrics whose rows a selected metric takes (+1) or takes away
     * (-1); null when its values are not computed. */
    Model.prototype.metricTerms = function (s) {
        var m = s.m;
        if (this.isDerived(m))
            return null;
        if (this.isVoid(m))
            return [];
        var terms = [{m: m, sign: 1}];
        if (s.excl && this.mcombine[m] === SUM) {
            var parts = this.mparts[m];
            for (var i = 0; i < parts.length; i++) {
                if (this.isDerived(parts[i]))
                    return null;
                terms.push({m: parts[i], sign: -1});
            }
        }
        return terms;
    };

    /* ------------------------------------------------------------------
     * Pane values (absolute), embedded
     * ------------------------------------------------------------------ */

    /* The metric pane: every metric's value over the call paths and
     * threads chosen on its left. */
    Model.prototype.metricPane = function (cf, sf, state, leftCall) {
        var nM = this.nM, incl = new Float64Array(nM), excl = new Float64Array(nM), m, i;
        if (!cf && !sf) {
            /* nothing selected on the left: the totals as cube_dump's
             * views make them */
            for (m = 0; m < nM; m++) {
                if (this.isVoid(m) || this.isDerived(m)) {
                    incl[m] = excl[m] = this.isVoid(m) ? 0 : NaN;
                    continue;
                }
                incl[m] = this.viewTotal(this.makeView({m: m, excl: false}, false))[0];
                var ve = this.makeView({m: m, excl: true}, false);
                excl[m] = ve ? this.viewTotal(ve)[0] : NaN;
            }
            return {incl: incl, excl: excl};
        }
        var tot = new Float64Array(nM);
        for (m = 0; m < nM; m++)
            tot[m] = this.metricTotal(m, cf, sf);
        for (m = 0; m < nM; m++) {
            if (this.isDerived(m)) {
                incl[m] = excl[m] = NaN;
                continue;
            }
            if (this.isVoid(m)) {
                incl[m] = excl[m] = 0;
                continue;
            }
            incl[m] = wrap(tot[m], this.mbits[m], this.msigned[m]);
            var parts = this.mparts[m];
            if (!parts.length) {
                excl[m] = incl[m];
                continue;
            }
            var k = new Combiner(SUM), bad = false;
            k.add(tot[m]);
            for (i = 0; i < parts.length; i++) {
                if (this.isDerived(parts[i])) bad = true;
                k.add(-tot[parts[i]]);
            }
            excl[m] = bad ? NaN : wrap(k.result(), this.mbits[m], this.msigned[m]);
        }
        /* values that combine by components or wrap: from their views,
         * as the system pane combines them */
        for (m = 0; m < nM; m++)
            if (!this.isDerived(m) && !this.isVoid(m) && !this.combinesNumbers(m)) {
                incl[m] = this.selectionValue({m: m, excl: false}, state, leftCall, sf);
                excl[m] = this.mparts[m].length ? this.selectionValue({m: m, excl: true}, state, leftCall, sf)
                                                 : incl[m];
            }
        return {incl: incl, excl: excl};
    };

    /* Selected metric s's value over the call selection (leftCall) and
     * the threads of sf (null: all), as the system pane combines them:
     * over all threads from the aggregated view, else each thread's
     * number combined with the weights of sf. */
    Model.prototype.selectionValue = function (s, state, leftCall, sf) {
        var v = this.view(s, !!sf);
        if (!v)
            return NaN;
        var tv = this.threadValues(v, state, leftCall);
        if (!sf)
            return tv[0];
        var k = new Combiner(v.how);
        for (var t = 0; t < tv.length; t++) {
            var g = v.how === SUM ? sf.w[t] : sf.mask[t];
            if (g)
                k.add(v.how === SUM && g !== 1 ? g * tv[t] : tv[t]);
        }
        return k.result();
    };

    /* Metric m's stored value combined over the call paths of cf and the
     * threads of sf (null: all), before wrapping. */
    Model.prototype.metricTotal = function (m, cf, sf) {
        var rows = this.rows[m];
        var how = this.mcombine[m];
        if (!rows)
            return how === SUM ? 0 : NaN;
        var k = new Combiner(how), cn = rows.cnodes, r, c;
        if (!sf) {
            if (!cf && this.totalCache[m] !== undefined)
                return this.totalCache[m];
            var agg = this.agg(m);
            for (r = 0; r < cn.length; r++) {
                c = cn[r];
                if (cf) {
                    if (how === SUM) {
                        var wc = cf.w[c];
                        if (wc === 1) k.add(agg[c]);
                        else if (wc !== 0) k.add(wc * agg[c]);
                    } else if (cf.mask[c]) {
                        k.add(agg[c]);
                    }
                } else {
                    k.add(agg[c]);
                }
            }
            var res = k.result();
            if (!cf)
                this.totalCache[m] = res;
            return res;
        }
        var nT = this.nT, data = rows.data, t;
        for (r = 0; r < cn.length; r++) {
            c = cn[r];
            var f = 1;
            if (cf) {
                f = how === SUM ? cf.w[c] : cf.mask[c];
                if (!f) continue;
            }
            for (t = 0; t < nT; t++) {
                var g = how === SUM ? sf.w[t] : sf.mask[t];
                if (!g) continue;
                var x = data[r * nT + t];
                k.add(how === SUM ? f * g * x : x);
            }
        }
        return k.result();
    };

    /* ------------------------------------------------------------------
     * Views: one selected metric's values per call path, summed as
     * libcube's cube_view sums them (the same order of operations, so that
     * values that cancel out to rounding noise come out as cube_dump's):
     * per call path one compensated accumulator that takes the stored
     * rows of the metric and, metric-exclusive, minus those of its parts;
     * call-inclusive values add the unfolded accumulators of the children
     * to their parents in reverse index order.  Width 1: all threads in
     * one accumulator (cube_dump -t aggr); width nT: per thread.
     * ------------------------------------------------------------------ */

    var VIEW_CACHE = 4;

    /* neu-add x into sum[i], comp[i] */
    function neu(sum, comp, i, x) {
        var s = sum[i], u = s + x;
        comp[i] += (s >= 0 ? s : -s) >= (x >= 0 ? x : -x) ? (s - u) + x : (x - u) + s;
        sum[i] = u;
    }

    function fold(sum, comp) {
        for (var i = 0; i < sum.length; i++)
            if (isFinite(sum[i]))
                sum[i] += comp[i];
        return sum;
    }

    /* The view of selection s ({m, excl}), aggregated (perThread false) or
     * per thread: {excl, incl: Float64Array(nC * w), has: Uint8Array(nC),
     * w}; null for a metric whose values are not computed. */
    Model.prototype.view = function (s, perThread) {
        var key = s.m + (s.excl ? 'e' : 'i') + (perThread === true ? 't' : perThread === false ? 'a' : 'c' + perThread);
        this.viewCache = this.viewCache || new Map();
        if (this.viewCache.has(key))
            return this.viewCache.get(key);
        var v = this.makeView(s, perThread);
        this.viewCache.set(key, v);
        if (this.viewCache.size > VIEW_CACHE)
            this.viewCache.delete(this.viewCache.keys().next().value);
        return v;
    };

    Model.prototype.makeView = function (s, perThread) {
        var terms = this.metricTerms(s);
        if (!terms)
            return null;
        if (this.viewKind(s.m, terms))
            return this.makeComponentView(s, terms, perThread);
        /* perThread: true, false, or one thread's column (a number) */
        var column = typeof perThread === 'number' ? perThread : -1;
        if (column >= 0)
            perThread = false;
        var m = s.m, how = this.mcombine[m], nC = this.nC, nT = this.nT, w = perThread ? nT : 1;
        var t0 = column >= 0 ? column : 0, t1 = column >= 0 ? column + 1 : nT;
        var n = nC * w, has = new Uint8Array(nC), i, r, t, c;
        var sum = new Float64Array(n), comp = new Float64Array(n);
        if (how !== SUM)
            sum.fill(NaN);
        for (var k = 0; k < terms.length; k++) {
            var rw = this.rows[terms[k].m], sign = terms[k].sign;
            if (!rw)
                continue;
            var cn = rw.cnodes, data = rw.data;
            for (r = 0; r < cn.length; r++) {
                c = cn[r];
                has[c] = 1;
                var base = r * nT, at = c * w;
                if (how !== SUM) {
                    if (perThread)
                        for (t = 0; t < nT; t++) sum[at + t] = pick(how, sum[at + t], data[base + t]);
                    else
                        for (t = t0; t < t1; t++) sum[at] = pick(how, sum[at], data[base + t]);
                } else if (perThread && terms.length === 1) {
                    /* one contribution: 0 + x is exact, no compensation */
                    for (t = 0; t < nT; t++) sum[at + t] = data[base + t];
                } else if (perThread) {
                    for (t = 0; t < nT; t++) neu(sum, comp, at + t, sign * data[base + t]);
                } else {
                    for (t = t0; t < t1; t++) neu(sum, comp, at, sign * data[base + t]);
                }
            }
        }
        var v = {sum: sum, comp: comp, has: has, w: w, how: how, m: m, excl: null, incl: null};
        /* per thread, only what a selection needs is folded (rows,
         * subtrees); aggregated, everything at once */
        if (!perThread || how !== SUM)
            this.materialise(v);
        return v;
    };

    /* The kind of components a view of metric m over `terms` combines
     * (COMPONENT_KINDS), or 0 when it combines numbers: every term must
     * carry its components (libcube drops them for a view otherwise). */
    Model.prototype.viewKind = function (m, terms) {
        var kind = this.mkind[m];
        if (!kind || !this.rows)
            return 0;
        for (var k = 0; k < terms.length; k++) {
            var rw = this.rows[terms[k].m];
            if (rw && !rw.comp)
                return 0;
        }
        return kind;
    };

    /* cube_metric_combines_numbers: are metric m's values over several
     * threads their numbers combined?  Not where they combine by
     * components or wrap in a narrow integer type. */
    Model.prototype.combinesNumbers = function (m) {
        return !this.mbits[m] && !this.viewKind(m, [{m: m}]);
    };

    /* The view of a COMPLEX, RATE or TAU_ATOMIC selection (view_parts.c):
     * per call path and column the two components added (the metric's,
     * minus those of its parts), plainly as the library adds them; the
     * inclusive components add each call path's into its parent in
     * reverse index order; the numbers are those of the combined
     * components.  Always materialised. */
    Model.prototype.makeComponentView = function (s, terms, perThread) {
        var column = typeof perThread === 'number' ? perThread : -1;
        if (column >= 0)
            perThread = false;
        var m = s.m, kind = this.mkind[m], nC = this.nC, nT = this.nT, w = perThread ? nT : 1;
        var t0 = column >= 0 ? column : 0, t1 = column >= 0 ? column + 1 : nT;
        var n = nC * w, has = new Uint8Array(nC), a = new Float64Array(n), b = new Float64Array(n);
        var r, t, c, i;
        for (var k = 0; k < terms.length; k++) {
            var rw = this.rows[terms[k].m], sign = terms[k].sign;
            if (!rw)
                continue;
            var cn = rw.cnodes, comp = rw.comp;
            for (r = 0; r < cn.length; r++) {
                c = cn[r];
                has[c] = 1;
                var base = 2 * r * nT, at = c * w;
                for (t = t0; t < t1; t++) {
                    var j = perThread ? at + t : at;
                    a[j] += sign * comp[base + 2 * t];
                    b[j] += sign * comp[base + 2 * t + 1];
                }
            }
        }
        var ia = new Float64Array(a), ib = new Float64Array(b), par = this.cparent;
        for (i = nC - 1; i >= 0; i--) {
            var p = par[i];
            if (p < 0)
                continue;
            for (t = 0; t < w; t++) {
                ia[p * w + t] += ia[i * w + t];
                ib[p * w + t] += ib[i * w + t];
            }
        }
        var excl = new Float64Array(n), incl = new Float64Array(n);
        for (i = 0; i < n; i++) {
            excl[i] = componentNumber(kind, a[i], b[i]);
            incl[i] = componentNumber(kind, ia[i], ib[i]);
        }
        return {sum: excl, comp: null, has: has, w: w, how: SUM, m: m,
                excl: excl, incl: incl, kind: kind, a: a, b: b};
    };

    /* Every call path's folded exclusive and inclusive values. */
    Model.prototype.materialise = function (v) {
        if (v.excl)
            return v;
        var nC = this.nC, w = v.w, how = v.how, m = v.m, par = this.cparent, i, t;
        if (how === SUM) {
            var isum = new Float64Array(v.sum), icomp = new Float64Array(v.comp);
            for (i = nC - 1; i >= 0; i--) {
                var p = par[i];
                if (p < 0)
                    continue;
                for (t = 0; t < w; t++) {
                    neu(isum, icomp, p * w + t, isum[i * w + t]);
                    icomp[p * w + t] += icomp[i * w + t];
                }
            }
            v.excl = fold(new Float64Array(v.sum), v.comp);
            v.incl = fold(isum, icomp);
            wrapArray(v.excl, this.mbits[m], this.msigned[m]);
            wrapArray(v.incl, this.mbits[m], this.msigned[m]);
        } else {
            v.excl = v.sum;
            v.incl = new Float64Array(v.sum);
            for (i = nC - 1; i >= 0; i--)
                if (par[i] >= 0)
                    for (t = 0; t < w; t++)
                        v.incl[par[i] * w + t] = pick(how, v.incl[par[i] * w + t], v.incl[i * w + t]);
        }
        return v;
    };

    /* The folded exclusive values of call path c (w values). */
    Model.prototype.viewExclRow = function (v, c) {
        var w = v.w, out = new Float64Array(w);
        if (v.excl) {
            out.set(v.excl.subarray(c * w, c * w + w));
            return out;
        }
        for (var t = 0; t < w; t++) {
            var x = v.sum[c * w + t];
            out[t] = isFinite(x) ? x + v.comp[c * w + t] : x;
        }
        wrapArray(out, this.mbits[v.m], this.msigned[v.m]);
        return out;
    };

    /* The inclusive values of call path c (w values): its subtree's
     * accumulators added up in reverse index order, as the whole view
     * would add them. */
    Model.prototype.viewInclRow = function (v, c) {
        var w = v.w;
        if (v.incl) {
            var o = new Float64Array(w);
            o.set(v.incl.subarray(c * w, c * w + w));
            return o;
        }
        var lo = this.cpos[c], hi = this.cend[c], size = hi - lo, j, t;
        var nodes = new Int32Array(size);
        for (j = 0; j < size; j++)
            nodes[j] = this.cpre[lo + j];
        nodes.sort();
        /* local accumulators, by position in `nodes` */
        var at = new Map(), S = new Float64Array(size * w), C = new Float64Array(size * w);
        for (j = 0; j < size; j++) {
            at.set(nodes[j], j);
            for (t = 0; t < w; t++) {
                S[j * w + t] = v.sum[nodes[j] * w + t];
                C[j * w + t] = v.comp[nodes[j] * w + t];
            }
        }
        for (j = size - 1; j > 0; j--) {
            var q = at.get(this.cparent[nodes[j]]);
            for (t = 0; t < w; t++) {
                neu(S, C, q * w + t, S[j * w + t]);
                C[q * w + t] += C[j * w + t];
            }
        }
        var out = new Float64Array(w);
        for (t = 0; t < w; t++)
            out[t] = isFinite(S[t]) ? S[t] + C[t] : S[t];
        wrapArray(out, this.mbits[v.m], this.msigned[v.m]);
        return out;
    };

    /* A view's values over all call paths (cube_view_total of the
     * call-exclusive view): the call paths' exclusive values summed in
     * index order, or their maximum or minimum. */
    Model.prototype.viewTotal = function (v) {
        var w = v.w, nC = this.nC, sum = new Float64Array(w), comp = new Float64Array(w), c, t;
        if (v.kind) {
            /* the components of every call path, then their number */
            for (t = 0; t < w; t++) {
                var ta = 0, tb = 0;
                for (c = 0; c < nC; c++) {
                    ta += v.a[c * w + t];
                    tb += v.b[c * w + t];
                }
                sum[t] = componentNumber(v.kind, ta, tb);
            }
            return sum;
        }
        if (v.how !== SUM) {
            sum.fill(NaN);
            for (c = 0; c < nC; c++)
                if (v.has[c])
                    for (t = 0; t < w; t++) sum[t] = pick(v.how, sum[t], v.excl[c * w + t]);
            return sum;
        }
        var bits = this.mbits[v.m], sg = this.msigned[v.m];
        for (c = 0; c < nC; c++) {
            if (!v.has[c]) continue;
            for (t = 0; t < w; t++) {
                var x;
                if (v.excl) {
                    x = v.excl[c * w + t];
                } else {
                    x = v.sum[c * w + t];
                    if (isFinite(x)) x += v.comp[c * w + t];
                    if (bits) x = wrap(x, bits, sg);
                }
                neu(sum, comp, t, x);
            }
        }
        fold(sum, comp);
        wrapArray(sum, this.mbits[v.m], this.msigned[v.m]);
        return sum;
    };

    /* The flat profile of a view (view_flat.c): per region and column,
     * exclusive, inclusive and Subroutines, walking the call tree depth
     * first as the library does. */
    Model.prototype.viewFlat = function (v) {
        if (v.flat)
            return v.flat;
        this.materialise(v);
        var w = v.w, nR = this.nR, nC = this.nC, how = v.how, cnodes = this.defs.cnodes;
        var fe = new Float64Array(nR * w), fi = new Float64Array(nR * w), fs = new Float64Array(nR * w);
        var t, c, r, j;
        if (how !== SUM) {
            fe.fill(NaN); fi.fill(NaN); fs.fill(NaN);
            for (c = 0; c < nC; c++) {
                if (!v.has[c]) continue;
                r = this.cregion[c];
                for (t = 0; t < w; t++) {
                    fe[r * w + t] = pick(how, fe[r * w + t], v.excl[c * w + t]);
                    if (this.couter[c])
                        fi[r * w + t] = pick(how, fi[r * w + t], v.incl[c * w + t]);
                    var p = this.cparent[c];
                    if (p >= 0)
                        fs[this.cregion[p] * w + t] = pick(how, fs[this.cregion[p] * w + t], v.incl[c * w + t]);
                }
            }
            v.flat = {excl: fe, incl: fi, sub: fs};
            return v.flat;
        }
        var ce = new Float64Array(nR * w), ci = new Float64Array(nR * w), cs = new Float64Array(nR * w);
        /* one subtree accumulator per depth of the current path */
        var accS = [], accC = [], stack = [], next = [], depth;
        var ex = v.excl;
        var enter = function (node, d) {
            if (!accS[d]) {
                accS[d] = new Float64Array(w);
                accC[d] = new Float64Array(w);
            }
            var rr = this.cregion[node], S = accS[d], C = accC[d];
            for (t = 0; t < w; t++) {
                var x = ex[node * w + t];
                S[t] = x;
                C[t] = 0;
                neu(fe, ce, rr * w + t, x);
                neu(fs, cs, rr * w + t, -x);
            }
        }.bind(this);
        var leave = function (node, d) {
            var rr = this.cregion[node], S = accS[d], C = accC[d];
            if (this.couter[node])
                for (t = 0; t < w; t++) {
                    neu(fi, ci, rr * w + t, S[t]);
                    ci[rr * w + t] += C[t];
                    neu(fs, cs, rr * w + t, S[t]);
                    cs[rr * w + t] += C[t];
                }
            if (d > 0) {
                var PS = accS[d - 1], PC = accC[d - 1];
                for (t = 0; t < w; t++) {
                    neu(PS, PC, t, S[t]);
                    PC[t] += C[t];
                }
            }
        }.bind(this);
        for (var k = 0; k < this.cnodeRoots.length; k++) {
            var root = this.cnodeRoots[k];
            stack.length = 0;
            next.length = 0;
            stack.push(root); next.push(0);
            enter(root, 0);
            while (stack.length) {
                depth = stack.length - 1;
                var top = stack[depth], kids = cnodes[top].children;
                j = next[depth];
                if (j < kids.length) {
                    next[depth] = j + 1;
                    stack.push(kids[j]); next.push(0);
                    enter(kids[j], depth + 1);
                } else {
                    leave(top, depth);
                    stack.pop(); next.pop();
                }
            }
        }
        fold(fe, ce); fold(fi, ci); fold(fs, cs);
        var bits = this.mbits[v.m], sg = this.msigned[v.m];
        wrapArray(fe, bits, sg); wrapArray(fi, bits, sg); wrapArray(fs, bits, sg);
        v.flat = {excl: fe, incl: fi, sub: fs};
        return v.flat;
    };

    /* Does the system filter take every thread exactly once? */
    function allThreadsOnce(sf) {
        for (var t = 0; t < sf.w.length; t++)
            if (sf.w[t] !== 1)
                return false;
        return true;
    }

    /* The call pane: per call path (tree) or per region (flat) of the
     * metrics selected, over the threads of sf (null: all). */
    Model.prototype.callPane = function (msel, sf, flat) {
        var how = this.selectionCombine(msel), n = flat ? this.nR : this.nC;
        var names = flat ? ['incl', 'excl', 'sub'] : ['incl', 'excl'];
        var out = {how: how}, bad = !msel.length, k, q, i, t;
        /* some threads: each thread's column on its own (the per-thread
         * view's numbers), combined thread by thread */
        var columns = null, allOnce = sf && allThreadsOnce(sf);
        if (sf) {
            columns = [];
            for (t = 0; t < sf.w.length; t++)
                for (var rep = 0; rep < sf.w[t]; rep++)
                    columns.push(t);
        }
        for (k = 0; k < msel.length && !bad; k++) {
            var vals = {};
            /* every thread once is the aggregated view, but not for values
             * that combine by components or wrap: a system item combines
             * the threads' numbers */
            if (!columns || (allOnce && this.combinesNumbers(msel[k].m))) {
                var v = this.view(msel[k], false);
                if (!v) { bad = true; break; }
                var src = flat ? this.viewFlat(v) : v;
                for (q = 0; q < names.length; q++)
                    vals[names[q]] = src[names[q]];
            } else {
                var acc = {}, mhow = this.mcombine[msel[k].m];
                for (q = 0; q < names.length; q++)
                    acc[names[q]] = [];
                for (var j = 0; j < columns.length && !bad; j++) {
                    var cv = columns.length === 1 ? this.view(msel[k], columns[j]) : this.makeView(msel[k], columns[j]);
                    if (!cv) { bad = true; break; }
                    var csrc = flat ? this.viewFlat(cv) : cv;
                    for (q = 0; q < names.length; q++)
                        acc[names[q]].push(csrc[names[q]]);
                }
                if (bad) break;
                for (q = 0; q < names.length; q++) {
                    var cols = acc[names[q]], res = new Float64Array(n);
                    if (cols.length === 1) {
                        vals[names[q]] = cols[0];
                        continue;
                    }
                    for (i = 0; i < n; i++) {
                        var cs = 0, cc = 0, cm = NaN;
                        for (j = 0; j < cols.length; j++) {
                            var y = cols[j][i];
                            if (mhow !== SUM) {
                                cm = pick(mhow, cm, y);
                            } else if (y === y) {
                                var u = cs + y;
                                cc += Math.abs(cs) >= Math.abs(y) ? (cs - u) + y : (y - u) + cs;
                                cs = u;
                            }
                        }
                        res[i] = !cols.length ? NaN : mhow !== SUM ? cm : isFinite(cs) ? cs + cc : cs;
                    }
                    vals[names[q]] = res;
                }
            }
            for (q = 0; q < names.length; q++) {
                if (k === 0) {
                    out[names[q]] = new Float64Array(vals[names[q]]);
                } else {
                    var o = out[names[q]], x = vals[names[q]];
                    for (i = 0; i < n; i++)
                        o[i] = how === SUM ? o[i] + x[i] : pick(how, o[i], x[i]);
                }
            }
        }
        if (bad)
            for (q = 0; q < names.length; q++)
                out[names[q]] = new Float64Array(n).fill(NaN);
        return out;
    };

    /* The system pane: each thread's value of the metrics selected over
     * the call selection (null: every call path). */
    Model.prototype.systemPane = function (msel, state, callLeft) {
        var nT = this.nT, how = this.selectionCombine(msel), t, i;
        var tv = null, bad = !msel.length;
        for (var k = 0; k < msel.length && !bad; k++) {
            var v = this.view(msel[k], true);
            if (!v) { bad = true; break; }
            var one = this.threadValues(v, state, callLeft);
            if (!tv) {
                tv = one;
            } else {
                for (t = 0; t < nT; t++)
                    tv[t] = how === SUM ? tv[t] + one[t] : pick(how, tv[t], one[t]);
            }
        }
        if (bad)
            tv = new Float64Array(nT).fill(NaN);
        return this.systemFromThreads(tv, how);
    };

    /* One per-thread view's value per thread over the call selection:
     * each selected call path's (or flat part's) row, combined. */
    Model.prototype.threadValues = function (v, state, callLeft) {
        var nT = this.nT, out = new Float64Array(nT), i, t, self = this;
        if (!callLeft)
            return this.viewTotal(v);
        var rows = [];
        if (state.callTab === 'flat') {
            (state.selection.flat || []).forEach(function (s) {
                rows.push(self.flatRegionRow(v, s.region, s.part));
            });
        } else {
            (state.selection.call || []).forEach(function (s) {
                rows.push(s.expanded ? self.viewExclRow(v, s.id) : self.viewInclRow(v, s.id));
            });
        }
        if (rows.length === 1)
            return rows[0];
        for (t = 0; t < nT; t++) {
            var k = new Combiner(v.how);
            for (i = 0; i < rows.length; i++)
                k.add(rows[i][t]);
            out[t] = rows.length ? k.result() : NaN;
        }
        return out;
    };

    /* One part of one region's flat profile (w values), computed from the
     * region's calls alone in the order of the library's depth-first walk:
     * the exclusive value adds the region's calls in preorder; each
     * outermost call's subtree is summed children into parents after the
     * children's own subtrees; Subroutines takes each call's value away
     * as the walk enters it and adds an outermost call's subtree as it
     * leaves it. */
    Model.prototype.flatRegionRow = function (v, region, part) {
        var w = v.w, how = v.how, t;
        if (v.flat || how !== SUM || v.excl) {
            var fl = this.viewFlat(v), arr = part === 'incl' ? fl.incl : part === 'excl' ? fl.excl : fl.sub;
            return new Float64Array(arr.subarray(region * w, region * w + w));
        }
        var self = this, calls = (this.defs.regions[region] || {cnodes: []}).cnodes.slice();
        calls.sort(function (a, b) { return self.cpos[a] - self.cpos[b]; });
        var eS = new Float64Array(w), eC = new Float64Array(w), iS = new Float64Array(w), iC = new Float64Array(w),
            sS = new Float64Array(w), sC = new Float64Array(w);
        var k = 0;
        while (k < calls.length) {
            var c = calls[k];
            /* c is outermost: every later call inside its subtree is nested */
            var endPos = this.cend[c];
            for (; k < calls.length && this.cpos[calls[k]] < endPos; k++) {
                var row = this.viewExclRow(v, calls[k]);
                for (t = 0; t < w; t++) {
                    neu(eS, eC, t, row[t]);
                    neu(sS, sC, t, -row[t]);
                }
            }
            var acc = this.subtreeWalkSum(v, c);
            for (t = 0; t < w; t++) {
                neu(iS, iC, t, acc.S[t]);
                iC[t] += acc.C[t];
                neu(sS, sC, t, acc.S[t]);
                sC[t] += acc.C[t];
            }
        }
        var pick3 = part === 'incl' ? [iS, iC] : part === 'excl' ? [eS, eC] : [sS, sC];
        var out = fold(pick3[0], pick3[1]);
        wrapArray(out, this.mbits[v.m], this.msigned[v.m]);
        return out;
    };

    /* The subtree accumulator of call path c as the flat walk builds it:
     * the node's folded row, then each child's subtree accumulator added in
     * child order once that child's subtree is complete. */
    Model.prototype.subtreeWalkSum = function (v, c) {
        var w = v.w, cnodes = this.defs.cnodes, t;
        var stack = [c], next = [0], accS = [], accC = [];
        var start = function (node, d) {
            var row = this.viewExclRow(v, node);
            accS[d] = row;
            accC[d] = new Float64Array(w);
        }.bind(this);
        start(c, 0);
        while (stack.length) {
            var d = stack.length - 1, top = stack[d], kids = cnodes[top].children, j = next[d];
            if (j < kids.length) {
                next[d] = j + 1;
                stack.push(kids[j]); next.push(0);
                start(kids[j], d + 1);
            } else {
                if (d > 0)
                    for (t = 0; t < w; t++) {
                        neu(accS[d - 1], accC[d - 1], t, accS[d][t]);
                        accC[d - 1][t] += accC[d][t];
                    }
                stack.pop(); next.pop();
            }
        }
        return {S: accS[0], C: accC[0]};
    };

    Model.prototype.systemFromThreads = function (tv, how) {
        var nS = this.nS, incl = new Float64Array(nS), excl = new Float64Array(nS);
        for (var i = 0; i < nS; i++) {
            if (this.scol[i] >= 0) {
                incl[i] = excl[i] = tv[this.scol[i]];
                continue;
            }
            var k = new Combiner(how), th = this.sthreads[i];
            for (var j = 0; j < th.length; j++)
                k.add(tv[th[j]]);
            incl[i] = k.result();
            excl[i] = NaN;
        }
        return {incl: incl, excl: excl, how: how};
    };

    /* ------------------------------------------------------------------
     * Queries: one pane given the selections on its left
     * ------------------------------------------------------------------ */

    function selList(sel, idKey) {
        return sel.map(function (s) { return String(s[idKey]) + (s.expanded ? ':e' : ''); }).join(',');
    }

    /* The query of a pane: the served API's parameters (without the
     * token), which also keys the cache. */
    Model.prototype.paneQuery = function (pane, state) {
        var order = state.order || PANES;
        var at = order.indexOf(pane);
        var name = pane === 'call' && state.callTab === 'flat' ? 'flat' : pane;
        var q = 'pane=' + name + '&order=' + order.join(',');
        for (var i = 0; i < at; i++) {
            var left = order[i];
            if (!this.leftSelection(left, state).length)
                continue;
            if (left === 'metric')
                q += '&msel=' + selList(state.selection.metric || [], 'id');
            else if (left === 'system')
                q += '&ssel=' + selList(state.selection.system || [], 'id');
            else if (state.callTab === 'flat')
                q += '&fsel=' + (state.selection.flat || []).map(function (s) {
                    return s.region + ':' + (s.part === 'incl' ? 'i' : s.part === 'excl' ? 'e' : 's');
                }).join(',');
            else
                q += '&csel=' + selList(state.selection.call || [], 'id');
        }
        return q;
    };

    /* The selection of a pane as it restricts the panes to its right. */
    Model.prototype.leftSelection = function (pane, state) {
        if (pane === 'call')
            return (state.callTab === 'flat' ? state.selection.flat : state.selection.call) || [];
        return state.selection[pane] || [];
    };

    /* A pane has no values when the metric pane is right of it or a pane
     * on its left has nothing selected. */
    Model.prototype.paneUndefined = function (pane, state) {
        var order = state.order || PANES, at = order.indexOf(pane);
        if (pane !== 'metric' && order.indexOf('metric') > at)
            return true;
        for (var i = 0; i < at; i++)
            if (!this.leftSelection(order[i], state).length)
                return true;
        return false;
    };

    Model.prototype.paneSize = function (pane, state) {
        var flat = pane === 'call' && state.callTab === 'flat';
        return pane === 'metric' ? this.nM : pane === 'system' ? this.nS : flat ? this.nR : this.nC;
    };

    /* The absolute values of one pane, computed here. */
    Model.prototype.computePane = function (pane, state) {
        var order = state.order || PANES;
        var at = order.indexOf(pane);
        var leftCall = order.indexOf('call') < at, leftSystem = order.indexOf('system') < at;
        var flat = pane === 'call' && state.callTab === 'flat';
        var n = this.paneSize(pane, state);
        if (this.paneUndefined(pane, state)) {
            /* left of the metric pane, or nothing selected on the left */
            var u = function () { return new Float64Array(n).fill(NaN); };
            var r = {incl: u(), excl: u(), how: SUM};
            if (flat) r.sub = u();
            return r;
        }
        var cf = leftCall ? this.callFilter(state) : null;
        var sf = leftSystem ? this.systemFilter(state) : null;
        if (pane === 'metric')
            return this.metricPane(cf, sf, state, leftCall);
        var msel = this.metricFilter(state);
        if (pane === 'call')
            return this.callPane(msel, sf, flat);
        return this.systemPane(msel, state, leftCall);
    };

    function toArray(list, n) {
        var out = new Float64Array(n);
        for (var i = 0; i < n; i++) {
            var v = list && i < list.length ? list[i] : null;
            out[i] = v === null || v === undefined ? NaN : v;
        }
        return out;
    }

    /* The absolute values of one pane, from the cache, computed or
     * fetched. */
    Model.prototype.paneAbs = function (pane, state) {
        var q = this.paneQuery(pane, state), self = this;
        if (this.cache.has(q)) {
            var hit = this.cache.get(q);
            this.cache.delete(q);
            this.cache.set(q, hit);
            return Promise.resolve(hit);
        }
        var remember = function (v) {
            self.cache.set(q, v);
            if (self.cache.size > CACHE_SIZE)
                self.cache.delete(self.cache.keys().next().value);
            return v;
        };
        if (!this.served || this.paneUndefined(pane, state))
            return Promise.resolve(remember(this.computePane(pane, state)));
        if (!this.fetchFn)
            return Promise.reject(new Error('no fetch function for the served data'));
        var url = this.base + '/api/pane?token=' + encodeURIComponent(this.token) + '&' + q;
        var flat = pane === 'call' && state.callTab === 'flat';
        var n = this.paneSize(pane, state);
        /* called as a plain function: window.fetch refuses another `this` */
        var get = this.fetchFn;
        return Promise.resolve(get(url)).then(function (resp) {
            return resp.json().then(function (body) {
                if (!resp.ok || body.error)
                    throw new Error('pane query failed (' + resp.status + '): ' + (body.error || ''));
                var r = {incl: toArray(body.incl, n), excl: toArray(body.excl, n),
                         how: self.paneCombine(pane, state)};
                if (flat) r.sub = toArray(body.sub, n);
                return remember(r);
            });
        });
    };

    /* How a pane's values combine: by the selected metrics' rule right of
     * the metric pane, by sum in the metric pane. */
    Model.prototype.paneCombine = function (pane, state) {
        if (pane === 'metric')
            return SUM;
        return this.selectionCombine(this.metricFilter(state));
    };

    /* ------------------------------------------------------------------
     * Value modes
     * ------------------------------------------------------------------ */

    /* cube_value_mode_available: is `mode` defined in the pane `paneKind`
     * ('metric', 'call', 'flat' or 'system') in the state's order?  The
     * external mode needs the external totals too. */
    Model.prototype.modeAvailable = function (paneKind, mode, state) {
        var order = (state && state.order) || PANES;
        var kind = paneKind === 'flat' ? 'call' : paneKind;
        var tree = order.indexOf(kind), metric = order.indexOf('metric'),
            call = order.indexOf('call'), system = order.indexOf('system');
        if (tree < 0 || metric < 0 || call < 0 || system < 0)
            return false;
        if (tree < metric)
            return false;
        switch (mode) {
        case 'absolute':
        case 'ownroot':
            return true;
        case 'metricroot':
        case 'metricsel':
            return tree > metric;
        case 'callroot':
        case 'callsel':
            return tree > call && call > metric;
        case 'sysroot':
        case 'syssel':
            return tree > system && system > metric;
        case 'peer':
        case 'peerdist':
            return kind === 'system';
        case 'external':
            return metric === 0 && !!(this.defs.external && this.defs.external.totals);
        }
        return false;
    };

    /* The selected value of a pane (absolute): its selected nodes, each
     * collapsed (inclusive) or expanded (exclusive), combined. */
    Model.prototype.selectedAbs = function (pane, abs, state, how) {
        /* A selection of nodes that all lack a value (an expanded machine,
         * a derived metric) has no value either, not a sum of 0. */
        var k = new Combiner(how), sel, i, x, defined = 0;
        if (pane === 'call' && state.callTab === 'flat') {
            sel = state.selection.flat || [];
            for (i = 0; i < sel.length; i++) {
                var arr = sel[i].part === 'incl' ? abs.incl : sel[i].part === 'excl' ? abs.excl : abs.sub;
                x = arr[sel[i].region];
                defined += x === x;
                k.add(x);
            }
        } else {
            sel = state.selection[pane] || [];
            for (i = 0; i < sel.length; i++) {
                x = sel[i].expanded ? abs.excl[sel[i].id] : abs.incl[sel[i].id];
                defined += x === x;
                k.add(x);
            }
        }
        return defined ? k.result() : NaN;
    };

    /* Sum (combine) of the inclusive values of distinct nodes. */
    function distinctSum(ids, values, how) {
        var seen = new Set(), k = new Combiner(how);
        for (var i = 0; i < ids.length; i++)
            if (!seen.has(ids[i])) {
                seen.add(ids[i]);
                k.add(values[ids[i]]);
            }
        return ids.length ? k.result() : NaN;
    }

    Model.prototype.references = function (abs, state) {
        var refs = {};
        var msel = state.selection.metric || [], csel = state.selection.call || [],
            fsel = state.selection.flat || [], ssel = state.selection.system || [];
        var self = this;
        refs.metricRoot = distinctSum(msel.map(function (s) { return self.mroot[s.id]; }),
                                      abs.metric.incl, this.selectionCombine(this.metricFilter(state)));
        refs.metricSel = abs.metric.selectedAbs;
        if (state.callTab === 'flat')
            refs.callRoot = distinctSum(fsel.map(function (s) { return s.region; }), abs.call.incl, abs.call.how);
        else
            refs.callRoot = distinctSum(csel.map(function (s) { return self.croot[s.id]; }), abs.call.incl, abs.call.how);
        refs.callSel = abs.call.selectedAbs;
        refs.systemRoot = distinctSum(ssel.map(function (s) { return self.smachine[s.id]; }),
                                      abs.system.incl, abs.system.how);
        refs.systemSel = abs.system.selectedAbs;
        var ext = this.defs.external && this.defs.external.totals;
        if (ext) {
            var metrics = this.defs.metrics;
            refs.externalOf = function (m) {
                var v = ext[metrics[self.mroot[m]].uniq];
                return v === null || v === undefined ? NaN : v;
            };
            var roots = [], seen = new Set();
            msel.forEach(function (s) {
                var r = self.mroot[s.id];
                if (!seen.has(r)) { seen.add(r); roots.push(r); }
            });
            var k = new Combiner(SUM);
            roots.forEach(function (r) { k.add(refs.externalOf(r)); });
            refs.external = roots.length ? k.result() : NaN;
        } else {
            refs.externalOf = function () { return NaN; };
            refs.external = NaN;
        }
        return refs;
    };

    /* The peers of the system pane: per kind (machines, nodes, processes,
     * threads), the smallest and largest inclusive value; NaN when a peer
     * has no value. */
    Model.prototype.peerRanges = function (incl) {
        var lo = [Infinity, Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity, -Infinity];
        var bad = [false, false, false, false];
        for (var i = 0; i < this.nS; i++) {
            var k = this.skind[i], v = incl[i];
            if (v !== v) { bad[k] = true; continue; }
            if (v < lo[k]) lo[k] = v;
            if (v > hi[k]) hi[k] = v;
        }
        for (k = 0; k < 4; k++)
            if (bad[k] || lo[k] === Infinity) lo[k] = hi[k] = NaN;
        return {lo: lo, hi: hi};
    };

    /* Values of one pane in a mode. */
    Model.prototype.applyMode = function (pane, abs, mode, refs, state) {
        var flat = pane === 'call' && state.callTab === 'flat';
        var n = abs.incl.length, self = this;
        var out = {incl: new Float64Array(n), excl: new Float64Array(n)};
        if (flat) out.sub = new Float64Array(n);
        var names = flat ? ['incl', 'excl', 'sub'] : ['incl', 'excl'];
        var kind = flat ? 'flat' : pane;
        if (!this.modeAvailable(kind, mode, state)) {
            names.forEach(function (k) { out[k].fill(NaN); });
            return out;
        }
        var ref = null, perNode = null, i;
        switch (mode) {
        case 'absolute':
            names.forEach(function (k) { out[k].set(abs[k]); });
            return out;
        case 'metricroot': ref = refs.metricRoot; break;
        case 'metricsel': ref = refs.metricSel; break;
        case 'callroot': ref = refs.callRoot; break;
        case 'callsel': ref = refs.callSel; break;
        case 'sysroot': ref = refs.systemRoot; break;
        case 'syssel': ref = refs.systemSel; break;
        case 'ownroot':
            if (pane === 'metric')
                perNode = function (i) { return abs.incl[self.mroot[i]]; };
            else if (flat)
                perNode = function (i) { return abs.incl[i]; };
            else if (pane === 'call')
                perNode = function (i) { return abs.incl[self.croot[i]]; };
            else
                perNode = function (i) { return abs.incl[self.smachine[i]]; };
            break;
        case 'external':
            if (pane === 'metric')
                perNode = function (i) { return refs.externalOf(i); };
            else
                ref = refs.external;
            break;
        case 'peer':
        case 'peerdist':
            var pr = this.peerRanges(abs.incl);
            for (i = 0; i < n; i++) {
                var k = this.skind[i], lo = pr.lo[k], hi = pr.hi[k];
                for (var j = 0; j < names.length; j++) {
                    var v = abs[names[j]][i];
                    if (mode === 'peer')
                        out[names[j]][i] = percent(v, hi);
                    else
                        out[names[j]][i] = hi > lo ? percent(v - lo, hi - lo) : NaN;
                }
            }
            return out;
        }
        for (i = 0; i < n; i++) {
            var r = perNode ? perNode(i) : ref;
            for (var q = 0; q < names.length; q++)
                out[names[q]][i] = percent(abs[names[q]][i], r);
        }
        return out;
    };

    function legendOf(res, mode) {
        if (mode !== 'absolute')
            return {min: 0, max: 100};
        var lo = Infinity, hi = -Infinity;
        var arrays = [res.incl, res.excl];
        if (res.sub) arrays.push(res.sub);
        arrays.forEach(function (a) {
            for (var i = 0; i < a.length; i++) {
                var v = a[i];
                if (v !== v || !isFinite(v)) continue;
                if (v < lo) lo = v;
                if (v > hi) hi = v;
            }
        });
        if (lo === Infinity)
            return {min: 0, max: 0};
        return {min: Math.min(0, lo), max: Math.max(0, hi)};
    }

    /* The legend of every metric root over the values of its own subtree,
     * as an array indexed by metric (each node refers to its root's range). */
    Model.prototype.metricRootLegends = function (shown, mode) {
        var n = this.defs.metrics.length, byRoot = {}, out = new Array(n), i;
        for (i = 0; i < n; i++) {
            var r = this.mroot[i];
            if (!byRoot[r]) byRoot[r] = {incl: [], excl: []};
            byRoot[r].incl.push(shown.incl[i]);
            byRoot[r].excl.push(shown.excl[i]);
        }
        var legends = {};
        Object.keys(byRoot).forEach(function (k) { legends[k] = legendOf(byRoot[k], mode); });
        for (i = 0; i < n; i++) out[i] = legends[this.mroot[i]];
        return out;
    };

    /* ------------------------------------------------------------------
     * compute(state): every pane's values in its mode
     * ------------------------------------------------------------------ */

    function normalise(state) {
        var s = state || {};
        var sel = s.selection || {};
        return {
            order: s.order && s.order.length === 3 ? s.order.slice() : PANES.slice(),
            callTab: s.callTab === 'flat' ? 'flat' : 'tree',
            systemTab: s.systemTab === undefined ? 'tree' : s.systemTab,
            mode: Object.assign({metric: 'absolute', call: 'absolute', system: 'absolute'}, s.mode || {}),
            external: !!s.external,
            selection: {metric: sel.metric || [], call: sel.call || [], flat: sel.flat || [],
                        system: sel.system || []}
        };
    }

    Model.prototype.compute = function (state) {
        var st = normalise(state), self = this;
        return this.ready.then(function () {
            return Promise.all(PANES.map(function (p) { return self.paneAbs(p, st); }));
        }).then(function (list) {
            var abs = {};
            PANES.forEach(function (p, i) {
                var a = list[i];
                abs[p] = {incl: a.incl, excl: a.excl, sub: a.sub, how: a.how === undefined ? SUM : a.how};
                abs[p].selectedAbs = self.selectedAbs(p, abs[p], st, abs[p].how);
            });
            var refs = self.references(abs, st);
            var result = {};
            PANES.forEach(function (p) {
                var mode = st.mode[p] || 'absolute';
                var shown = self.applyMode(p, abs[p], mode, refs, st);
                var r = {incl: shown.incl, excl: shown.excl,
                         absIncl: abs[p].incl, absExcl: abs[p].excl,
                         selectedAbs: abs[p].selectedAbs,
                         legend: legendOf(shown, mode)};
                if (p === 'metric') {
                    /* Each metric root has its own scale (seconds and bytes are
                     * not compared): rootLegend[i] is the range of node i's root,
                     * legend the one of the selected metric's root. */
                    var per = self.metricRootLegends(shown, mode);
                    r.rootLegend = per;
                    var ms = st.selection.metric;
                    if (ms.length && per[ms[0].id]) r.legend = per[ms[0].id];
                }
                if (shown.sub) { r.sub = shown.sub; r.absSub = abs[p].sub; }
                r.selected = self.selectedAbs(p, shown, st, abs[p].how);
                r.combine = abs[p].how === MAX ? 'max' : abs[p].how === MIN ? 'min' : 'sum';
                if (p === 'call') r.flat = st.callTab === 'flat';
                result[p] = r;
            });
            result.references = refs;
            return result;
        });
    };

    /* A topology's cells with the system pane's values (collapsed:
     * inclusive) and the legend the manual gives topologies: the smallest
     * and largest leaf value in absolute mode, 0 to 100 otherwise. */
    Model.prototype.topology = function (index, systemResult, mode) {
        var topo = this.defs.topologies[index];
        if (!topo)
            return null;
        var cells = [], lo = Infinity, hi = -Infinity, i;
        for (i = 0; i < topo.cells.length; i++) {
            var cell = topo.cells[i], id = cell[0];
            var v = systemResult ? systemResult.incl[id] : NaN;
            cells.push({id: id, coord: cell.slice(1), value: v});
        }
        if (systemResult)
            for (i = 0; i < this.nS; i++)
                if (this.skind[i] === 3 || !this.defs.system[i].children.length) {
                    var x = systemResult.incl[i];
                    if (x === x && isFinite(x)) {
                        if (x < lo) lo = x;
                        if (x > hi) hi = x;
                    }
                }
        var legend = mode && mode !== 'absolute' ? {min: 0, max: 100}
                   : lo === Infinity ? {min: 0, max: 0} : {min: lo, max: hi};
        return {name: topo.name, dims: topo.dims, cells: cells, legend: legend};
    };

    /* ------------------------------------------------------------------
     * Colours, numbers, largest path
     * ------------------------------------------------------------------ */

    var STOPS = [[0, 0, 255], [0, 255, 255], [0, 255, 0], [255, 255, 0], [255, 0, 0]];
    /* Where on the scale (0..1) blue, cyan, green, yellow and red sit by
     * default: at equal distances. */
    var DEFAULT_POSITIONS = [0, 0.25, 0.5, 0.75, 1];
    /* Values outside a user-defined scale are grey, as in the Cube display. */
    var OUTSIDE = 'rgb(192,192,192)';

    /* The colouring methods of the colour settings: each maps the place f
     * in [0, 1] of a position between two neighbouring colours of the
     * gradient to the share of the second colour.  Quadratic 1 and
     * exponential 1 keep the first colour longer, quadratic 2 and
     * exponential 2 reach the second one sooner. */
    var EXP_K = 5;
    var METHODS = {
        linear: function (p) { return p; },
        quadratic1: function (p) { return p * p; },
        quadratic2: function (p) { return 1 - (1 - p) * (1 - p); },
        exponential1: function (p) { return (Math.exp(EXP_K * p) - 1) / (Math.exp(EXP_K) - 1); },
        exponential2: function (p) { return 1 - (Math.exp(EXP_K * (1 - p)) - 1) / (Math.exp(EXP_K) - 1); }
    };

    /* The five colour positions of settings: five numbers in [0, 1], each
     * at least the one before it; anything else gives the defaults. */
    function positionsOf(settings) {
        var p = settings && settings.positions;
        if (!p || p.length !== 5)
            return DEFAULT_POSITIONS;
        for (var i = 0; i < 5; i++)
            if (typeof p[i] !== 'number' || !(p[i] >= 0 && p[i] <= 1) || (i && p[i] < p[i - 1]))
                return DEFAULT_POSITIONS;
        return p;
    }

    /* The range the colours scale over: the legend's, or the user-defined
     * minimum and maximum of the colour settings (user: true). */
    function scaleOf(legend, settings) {
        var st = settings || {};
        var lo = legend ? legend.min : 0, hi = legend ? legend.max : 1;
        var umin = st.userMin, umax = st.userMax;
        var hasMin = typeof umin === 'number' && isFinite(umin);
        var hasMax = typeof umax === 'number' && isFinite(umax);
        return {min: hasMin ? umin : lo, max: hasMax ? umax : hi, user: hasMin || hasMax};
    }

    /* The colour of the place p in [0, 1] of a value on the scale: blue up
     * to the start position, red from the end position on, and between two
     * neighbouring positions the mix of their colours the method gives. */
    function gradientAt(p, st) {
        var pos = positionsOf(st);
        if (p <= pos[0])
            return STOPS[0].slice();
        if (p >= pos[4])
            return STOPS[4].slice();
        var i = 0;
        while (i < 3 && !(p < pos[i + 1]))
            i++;
        var f = (p - pos[i]) / (pos[i + 1] - pos[i]);
        var g = (METHODS[st.method] || METHODS.linear)(f);
        var a = STOPS[i], b = STOPS[i + 1];
        return [0, 1, 2].map(function (j) { return a[j] + (b[j] - a[j]) * g; });
    }

    /* The legend's colour of value: its place p = (value - min) / (max -
     * min) on the scale (scaleOf), clipped to [0, 1], coloured by
     * gradientAt.  White for NaN, exact zero, values whose magnitude is
     * below the zero threshold (10^-zeroThreshold) and places below
     * settings.whiteBelow percent; grey outside a user-defined scale.
     * Places below settings.lighten percent are mixed with white, the
     * more the nearer to the left end: the share of white is
     * 0.8 * (1 - p / (lighten / 100)). */
    function colour(value, legend, settings) {
        var st = settings || DEFAULT_SETTINGS.tree;
        if (value !== value || value === 0)
            return 'rgb(255,255,255)';
        var zt = st.zeroThreshold === undefined ? DEFAULT_SETTINGS.tree.zeroThreshold : st.zeroThreshold;
        if (Math.abs(value) < Math.pow(10, -zt))
            return 'rgb(255,255,255)';
        var sc = scaleOf(legend, st);
        var lo = sc.min, hi = sc.max;
        if (sc.user && (value < lo || value > hi))
            return OUTSIDE;
        var p = hi > lo ? (value - lo) / (hi - lo) : 1;
        if (!(p >= 0)) p = 0;
        if (p > 1) p = 1;
        if (st.whiteBelow && p * 100 < st.whiteBelow)
            return 'rgb(255,255,255)';
        var c = gradientAt(p, st);
        if (st.lighten > 0 && p * 100 < st.lighten) {
            var w = 0.8 * (1 - p * 100 / st.lighten);
            c = c.map(function (v) { return v + (255 - v) * w; });
        }
        return 'rgb(' + Math.round(c[0]) + ',' + Math.round(c[1]) + ',' + Math.round(c[2]) + ')';
    }

    /* A node's shown value when some of its children are hidden: its own
     * value combined (sum, max or min, as the pane's values combine) with
     * the hidden children's inclusive values, the hidden children's
     * combined value, and their share of the result in percent (NaN when
     * the result is 0 or undefined).  Undefined own values (an expanded
     * process) count as nothing. */
    function withHidden(own, hidden, combine) {
        var how = combine === 'max' ? MAX : combine === 'min' ? MIN : SUM;
        var kh = new Combiner(how), defined = 0, i;
        for (i = 0; i < hidden.length; i++)
            if (hidden[i] === hidden[i]) { kh.add(hidden[i]); defined++; }
        var h = defined ? kh.result() : NaN;
        var kv = new Combiner(how);
        kv.add(own);
        kv.add(h);
        var v = own === own || h === h ? kv.result() : NaN;
        var pc = h === h && v === v && v !== 0 ? 100 * h / v : NaN;
        return {value: v, hidden: h, percent: pc};
    }

    /* A number as the precision settings say: `digits` after the point,
     * mantissa and exponent ("2.04e4") from 10^expThreshold on and below
     * 10^-expThreshold, 0 below 10^-zeroThreshold; "-" for undefined
     * (NaN). */
    function format(value, settings) {
        var st = settings || DEFAULT_SETTINGS.tree;
        var digits = st.digits === undefined ? 2 : st.digits;
        var et = st.expThreshold === undefined ? 4 : st.expThreshold;
        var zt = st.zeroThreshold === undefined ? 9 : st.zeroThreshold;
        if (value === null || value === undefined || value !== value)
            return '-';
        if (!isFinite(value))
            return value > 0 ? 'inf' : '-inf';
        if (Math.abs(value) < Math.pow(10, -zt))
            value = 0;
        var mag = Math.abs(value);
        if (mag >= Math.pow(10, et) || (mag !== 0 && mag < Math.pow(10, -et))) {
            var e = Math.floor(Math.log10(Math.abs(value)));
            var mant = value / Math.pow(10, e);
            var ms = mant.toFixed(digits);
            if (Math.abs(parseFloat(ms)) >= 10) {
                e += 1;
                ms = (value / Math.pow(10, e)).toFixed(digits);
            }
            return ms + 'e' + e;
        }
        var s = value.toFixed(digits);
        if (/^-0\.?0*$/.test(s))
            s = s.slice(1);
        return s;
    }

    /* The path from a root to the node with the largest inclusive value,
     * going down to the child with the largest inclusive value each time
     * (the manual's "Expand largest"); `from`: start there instead of the
     * largest root.  The flat profile: the region with the largest
     * inclusive value. */
    Model.prototype.largestPath = function (paneKind, result, state, from) {
        var values = result.absIncl || result.incl;
        var better = function (a, b) { return b < 0 || (values[a] === values[a] && !(values[a] <= values[b])); };
        if (paneKind === 'flat' || (paneKind === 'call' && state && state.callTab === 'flat')) {
            var best = -1;
            for (var r = 0; r < values.length; r++)
                if (values[r] === values[r] && (best < 0 || values[r] > values[best])) best = r;
            return best < 0 ? [] : [best];
        }
        var nodes = paneKind === 'metric' ? this.defs.metrics : paneKind === 'call' ? this.defs.cnodes : this.defs.system;
        var roots = paneKind === 'metric' ? this.metricRoots : paneKind === 'call' ? this.cnodeRoots : this.systemRoots;
        var path = [], cur = -1, i;
        if (from !== undefined && from !== null && from >= 0) {
            for (var a = from; a >= 0; a = nodes[a].parent)
                path.unshift(a);
            cur = from;
        } else {
            for (i = 0; i < roots.length; i++)
                if (cur < 0 || better(roots[i], cur)) cur = roots[i];
            if (cur < 0)
                return [];
            path.push(cur);
        }
        for (;;) {
            var kids = nodes[cur].children, next = -1;
            for (i = 0; i < kids.length; i++)
                if (better(kids[i], next)) next = kids[i];
            if (next < 0)
                break;
            path.push(next);
            cur = next;
        }
        return path;
    };

    Model.prototype.colour = colour;
    Model.prototype.scale = scaleOf;
    Model.prototype.withHidden = withHidden;
    Model.prototype.format = format;

    return {
        open: function (data, options) { return new Model(data, options); },
        inflate: inflateBytes,
        modes: MODES,
        colour: colour,
        scale: scaleOf,
        withHidden: withHidden,
        methods: Object.keys(METHODS),
        defaultPositions: DEFAULT_POSITIONS,
        format: format,
        defaultSettings: DEFAULT_SETTINGS
    };
})();
if (typeof module !== 'undefined')
    module.exports = CubeModel;
