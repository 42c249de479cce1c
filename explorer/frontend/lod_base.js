import {ptext, esc, short, fmtBytes, num, batch} from "./util.js";
import {layOut} from "./layout_worker.js";

// A big plan (level of detail), part 1: tables, text, the group tree, folding and layout.
// Each part adds its functions to a shared context C (see lod.js).
/** @param {import("./payload").DrawnPlan} P @param {any} host @returns {import("./payload").LodContext} */
export function lodBase(P, host) {
  /** @type {any} filled below, then handed on as a LodContext */
  let C = {};
  let L = P.lod, T = L.trace, m = L.m, n = L.n, DEV = L.devices, ST = L.style;
  let G = L.groups, nG = G.start.length, gbase = m + n, span = gbase + nG;
  let TT = L.tensors, F = L.flow, OPS = L.ops;
  let rowOf = new Int32Array(n).fill(-1), written = new Uint8Array(n), home = new Int32Array(n).fill(-1);
  TT.index.forEach(function (v, r) { rowOf[v] = r; home[v] = TT.home[r]; });
  for (let k = 0; k < F.v.length; k++) if (F.w[k]) written[F.v[k]] = 1;
  let fstart = new Int32Array(m + 1);  // flow rows of instruction i: fstart[i] .. fstart[i + 1]
  for (let k = 0; k < F.i.length; k++) fstart[F.i[k] + 1]++;
  for (let k = 0; k < m; k++) fstart[k + 1] += fstart[k];
  let inputs = new Set(L.inputs), outputs = new Set(L.outputs), errors = new Set(L.errors);
  let errorInstrs = L.errors.map(function (v) { return home[v]; }).filter(function (h) { return h >= 0; })
    .sort(function (a, b) { return a - b; });
  // cur: the fold as drawn; laying: units of a layout running in the worker (0: none); region: what draw() drew
  // (lod_graph.js regionOf); drawn: its node positions by kind; draws: how many draws so far; image, coarse: the
  // dots image of a zoomed-out region and how many nodes it paints; viewArea: the view's area at the last draw
  C.s = {expanded: L.expanded.slice(), note: "", cur: null, win: L.window, laying: 0, region: null, drawn: null, draws: 0,
         image: null, coarse: 0, viewArea: 0};
  let OPSYM = L.names.opKinds.map(function (k) { return ST.op[k].symbol; });

  // -- text -------------------------------------------------------------------------------------
  function devName(d) { return d >= 0 ? DEV[d].name : "?"; }
  function swatch(d) {
    if (d < 0) return "?";
    return "<span class='dx-sw" + (DEV[d].known ? "" : " dx-unknown") + "' style='background-color:" + DEV[d].color +
      "'></span>" + esc(DEV[d].name);
  }
  function kindOf(a, b) {  // transfer_kind over device table indices
    if (a === b || (DEV[a].host && DEV[b].host)) return "same";
    if (DEV[a].host) return "h2d";
    if (DEV[b].host) return "d2h";
    return "d2d";
  }
  function tensorHover(v) {
    let r = rowOf[v], lines = ["<b>" + ptext(TT.label[r]) + "</b>" + (TT.named[r] ? "  <span style='color:#6E7781'>%" + v + "</span>" : ""),
      ptext(L.dtypes[TT.dtype[r]]) + " " + TT.shapes[TT.shape[r]] + "  \u00b7  " + ptext(fmtBytes(TT.nbytes[r])),
      "device <b>" + ptext(devName(TT.dev[r])) + "</b>  \u00b7  " + ptext(TT.storages[TT.storage[r]])];
    if (TT.mem[r] >= 0) lines.push("arena " + TT.mem[r] + "  offset " + TT.off[r] + "  bytes " + (TT.nbytes[r] >= 0 ? TT.nbytes[r] : "?"));
    if (TT.first[r] >= 0) lines.push("alive #" + TT.first[r] + " \u2013 #" + TT.last[r]);
    return lines.join("<br>");
  }
  function opHover(i) {
    let kind = L.names.opKinds[OPS.kind[i]], d = OPS.dev[i];
    let reads = [], k;
    for (k = fstart[i]; k < fstart[i + 1]; k++) reads.push("%" + F.v[k]);
    return "<b>" + ptext(OPS.opTable[OPS.op[i]][0]) + "</b><br>#" + i + "  \u00b7  " + kind + (d >= 0 ? "  \u00b7  on " + ptext(devName(d)) : "") +
      "<br>tensors " + ptext(reads.join(", ")) + contextHover(P.context, i);
  }

  // -- the group tree ---------------------------------------------------------------------------
  function children(g) { return G.children.slice(G.childStart[g], G.childStart[g + 1]); }
  function path(i) {
    let out = [], g = 0;
    for (;;) {
      let kids = children(g);
      if (!kids.length) return out;
      let pick = kids[0];
      for (let c = 0; c < kids.length; c++) if (G.start[kids[c]] <= i) pick = kids[c];
      g = pick; out.push(g);
    }
  }
  function visibleNodes(exp) {
    let total = 0, stack = [0];
    while (stack.length) {
      let g = stack.pop(), kids = children(g);
      if (!kids.length) { total += G.nodes[g]; continue; }
      kids.forEach(function (c) { if (exp.has(c)) stack.push(c); else total += 1; });
    }
    return total;
  }

  // -- folding: the visible units and the edges between them ------------------------------------
  // fold in two halves around the layout, so that the layout can run in a worker (layout_worker.js):
  // foldPlan() the units, the merged edges and the layout's job; foldFinish(plan, layout) the drawn positions
  function foldPlan() {
    let exp = new Set(C.s.expanded.concat([0])), instUnit = new Int32Array(m), stack = [0], i, k, v;
    while (stack.length) {
      let g = stack.pop(), kids = children(g);
      if (!kids.length) { for (i = G.start[g]; i < G.stop[g]; i++) instUnit[i] = i; continue; }
      kids.forEach(function (c) {
        if (exp.has(c)) stack.push(c); else for (let j = G.start[c]; j < G.stop[c]; j++) instUnit[j] = gbase + c;
      });
    }
    let valueCode = new Int32Array(n).fill(-1);
    for (let r = 0; r < TT.index.length; r++) {
      v = TT.index[r];
      if (TT.home[r] >= 0) { let hu = instUnit[TT.home[r]]; valueCode[v] = hu < m ? m + v : hu; }
    }
    let pairs = new Map();
    for (k = 0; k < F.v.length; k++) {
      v = F.v[k];
      let vu = valueCode[v];
      if (vu < 0) continue;
      let iu = instUnit[F.i[k]], src = F.w[k] ? iu : vu, dst = F.w[k] ? vu : iu;
      if (src === dst) continue;
      let key = src * span + dst, e = pairs.get(key);
      if (!e) { e = {key: key, src: src, dst: dst, seen: new Set(), count: 0, bytes: 0, lo: Infinity, hi: -1, v: v, i: F.i[k], w: F.w[k]}; pairs.set(key, e); }
      if (!e.seen.has(v)) {
        e.seen.add(v); e.count++;
        let rr = rowOf[v], d = TT.dev[rr];
        e.bytes += Math.max(TT.nbytes[rr], 0); e.lo = Math.min(e.lo, d); e.hi = Math.max(e.hi, d);
        if (v < e.v) { e.v = v; e.i = F.i[k]; e.w = F.w[k]; }
      }
    }
    let list = Array.from(pairs.values()).sort(function (a, b) { return a.key - b.key; });
    let unitSet = new Set();
    for (i = 0; i < m; i++) unitSet.add(instUnit[i]);
    for (let r = 0; r < TT.index.length; r++) if (TT.home[r] >= 0) unitSet.add(valueCode[TT.index[r]]);
    let units = Array.from(unitSet).sort(function (a, b) { return a - b; });
    let keyOf = function (u) {
      if (u < m) return 3 * u + 1;
      if (u < gbase) { let vv = u - m; return 3 * home[vv] + (written[vv] ? 2 : 0); }
      return 3 * G.start[u - gbase] + 1;
    };
    let keyed = units.map(function (u, j) { return [keyOf(u), j, u]; });
    keyed.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    units = keyed.map(function (t) { return t[2]; });
    let pos = new Map();
    units.forEach(function (u, j) { pos.set(u, j); });
    let A = list.map(function (e) { return pos.get(e.src); }), B = list.map(function (e) { return pos.get(e.dst); });
    // network simplex layering (layout.js, as graphviz dot): a source (input, weight, state read before it is
    // written) sits just above its first reader; the main dataflow weighs more, so it runs short and straight;
    // units keyed by device keep each device's run together where the order allows
    let weight = list.map(function (e) { return isSource(e.src) ? SOURCE_WEIGHT : MAIN_WEIGHT; });
    return {expanded: C.s.expanded.slice(), units: units, list: list, A: A, B: B, pos: pos, instUnit: instUnit, valueCode: valueCode,
            job: {count: units.length, src: A, dst: B, weight: weight, key: units.map(unitDevice)}};
  }
  /** @param {any} pl foldPlan()'s @param {{rank: ArrayLike<number>, x: ArrayLike<number>, paths: any[]}} lay layout.js's */
  function foldFinish(pl, lay) {
    let units = pl.units, list = pl.list, A = pl.A, B = pl.B, pos = pl.pos, instUnit = pl.instUnit, valueCode = pl.valueCode, i;
    let layer = Array.from(lay.rank), x = Array.from(lay.x);
    let tops = headerRows(units, layer, pl.expanded);
    let fin = units.map(function (_, j) { return j; });
    fin.sort(function (a, b) { return layer[a] - layer[b] || x[a] - x[b] || a - b; });
    let renum = new Int32Array(units.length);
    fin.forEach(function (j, p) { renum[j] = p; });
    let styled = rawKinds();
    let out = {nodes: [], x: [], y: [], edges: [], tensors: [], bytes: [], kinds: [], devs: [],
               instUnit: new Int32Array(m), valueUnit: new Int32Array(n).fill(-1)};
    fin.forEach(function (j) {
      let u = units[j];
      out.nodes.push(u < m ? ["i", u] : u < gbase ? ["v", u - m] : ["g", u - gbase]);
      out.x.push(x[j]); out.y.push(layer[j]);
    });
    out.paths = [];
    list.forEach(function (e, q) {
      out.edges.push([renum[A[q]], renum[B[q]]]);
      out.paths.push(edgePath(lay.paths[q], tops, x[A[q]], layer[A[q]], x[B[q]], layer[B[q]]));
      out.tensors.push(e.count); out.bytes.push(e.bytes); out.devs.push(e.lo === e.hi ? e.lo : -1);
      let atOp = e.src < m || e.dst < m;
      out.kinds.push(atOp ? (styled.get(e.i + ":" + e.v + ":" + e.w) || "same") : "same");
    });
    for (i = 0; i < m; i++) out.instUnit[i] = renum[pos.get(instUnit[i])];
    for (let r = 0; r < TT.index.length; r++) if (TT.home[r] >= 0) out.valueUnit[TT.index[r]] = renum[pos.get(valueCode[TT.index[r]])];
    out.index = new Map();
    out.nodes.forEach(function (nd, p) { out.index.set(nd[0] + nd[1], p); });
    return out;
  }
  // each expanded group gets two empty layers above its members for its header; returns the layers where rows
  // were opened, in order (an edge's bends below one move down with it)
  function headerRows(units, layer, expanded) {
    let anchor = units.map(function (u) { return u < m ? u : u < gbase ? home[u - m] : G.start[u - gbase]; }), tops = [];
    expanded.filter(function (g) { return g; }).sort(function (a, b) { return depthOf(a) - depthOf(b) || a - b; })
      .forEach(function (g) {
        let top = Infinity, ins = anchor.map(function (a) { return a >= G.start[g] && a < G.stop[g]; });
        ins.forEach(function (yes, k2) { if (yes) top = Math.min(top, layer[k2]); });
        if (top === Infinity) return;
        for (let k2 = 0; k2 < layer.length; k2++) if (layer[k2] > top || (layer[k2] === top && ins[k2])) layer[k2] += 2;
        tops.push(top);
      });
    return tops;
  }
  // an edge's polyline (layout.js: [x0, y0, x1, y1, ...], one point per layer) with its ends on the nodes and
  // its bends moved down past the header rows opened above them
  function edgePath(pts, tops, xa, ya, xb, yb) {
    let out = pts.slice();
    for (let k = 3; k + 2 < out.length; k += 2) {
      let y = out[k];
      for (let t = 0; t < tops.length; t++) if (y > tops[t]) y += 2;
      out[k] = y;
    }
    out[0] = xa; out[1] = ya; out[out.length - 2] = xb; out[out.length - 1] = yb;
    return out;
  }
  let SOURCE_WEIGHT = 1, MAIN_WEIGHT = 4;  // as explorer/analysis/layout.py
  function isSource(u) { return u >= m && u < gbase && !written[u - m]; }  // a value unit nothing writes
  function unitDevice(u) {  // the device table index a unit runs or lives on (-1: none or several)
    if (u < m) return OPS.dev[u];
    if (u < gbase) return TT.dev[rowOf[u - m]];
    return G.dev[u - gbase];
  }
  let styledCache = null;
  function rawKinds() {
    if (styledCache) return styledCache;
    styledCache = new Map();
    for (let k = 0; k < L.moving.i.length; k++) {
      let s = L.moving.s[k], d = L.moving.d[k], kind = kindOf(TT.dev[rowOf[s]], TT.dev[rowOf[d]]);
      if (kind !== "same") { styledCache.set(L.moving.i[k] + ":" + s + ":0", kind); styledCache.set(L.moving.i[k] + ":" + d + ":1", kind); }
    }
    return styledCache;
  }
  function fold() { let pl = foldPlan(); return foldFinish(pl, layOut(pl.job)); }  // both halves, here
  function folded() { if (!C.s.cur) C.s.cur = fold(); return C.s.cur; }

  function depthOf(g) { let d = 0; while (g > 0) { g = G.parent[g]; d++; } return d; }
  Object.assign(C, {P: P, host: host, L: L, T: T, m: m, n: n, DEV: DEV, ST: ST, G: G, nG: nG, gbase: gbase,
    span: span, TT: TT, F: F, OPS: OPS, rowOf: rowOf, written: written, home: home, fstart: fstart, inputs: inputs,
    outputs: outputs, errors: errors, errorInstrs: errorInstrs, OPSYM: OPSYM, devName: devName, swatch: swatch, kindOf: kindOf, tensorHover: tensorHover,
    opHover: opHover, children: children, path: path, visibleNodes: visibleNodes, folded: folded, depthOf: depthOf,
    foldPlan: foldPlan, foldFinish: foldFinish});
  return C;
}

// The hover's line for an ETRecord's context (plans[].context, views/context_payload.py): where in the model
// instruction i comes from, short: the module path's last two components (an index stays with its list:
// "…layers.3.attn", not "…3.attn"), its class, and the source's file:line. "" without a context.
export function contextHover(X, i) {
  if (!X) return "";
  const row = X.module[i], src = X.source[i], parts = [];
  if (row >= 0) {
    const path = X.modules.path[row], type = X.modules.type[row], cls = type.slice(type.lastIndexOf(".") + 1);
    const comps = path ? path.split(".").reduce((out, c) => {
      if (/^\d+$/.test(c) && out.length) out[out.length - 1] += "." + c; else out.push(c);
      return out;
    }, []) : [];
    parts.push((comps.length > 2 ? "\u2026" : "") + comps.slice(-2).join(".") + (path ? " (" + cls + ")" : cls));
  }
  if (src >= 0) parts.push(sourceLocation(X.sources[src]));
  return parts.length ? "<br>" + ptext(parts.join("  \u00b7  ")) : "";
}
// "dir/model.py:62 in forward" -> "model.py:62": a context's source line, short
export function sourceLocation(text) {
  const cut = text.lastIndexOf(" in "), loc = cut >= 0 ? text.slice(0, cut) : text;
  return loc.slice(Math.max(loc.lastIndexOf("/"), loc.lastIndexOf("\\")) + 1);
}
