import {ptext, esc} from "../util/common.js";
import {bytesText, countText} from "../util/format.js";
import {layOut} from "../layout/worker.js";

// A plan drawn at its level of detail (lod/plan.js), part 1: the plan's tables and what is computed once from them
// (indices, hover texts, the group tree, what each group holds), and folding. Nothing here changes after lodBase
// returns: what changes as the user expands, pans or zooms is one LodState object (lodState), which lod/plan.js hands
// to the parts that read or change it (lod/graph.js, lod/details.js, lod/memory.js) as a parameter.

/** @typedef {import("../types/payload").LodPayload} LodPayload */
/** What the app hands the drawing (app/app.js, diff/sides.js): its plots, selection, hooks (types/app.d.ts). @typedef {import("../types/app").LodHost} LodHost */
/** @typedef {keyof LodPayload["style"]["edge"]} EdgeKind  "same", "h2d", "d2h", "d2d" */
/** @typedef {Exclude<EdgeKind, "same">} CopyKind */
/** @typedef {["v" | "i" | "g", number]} FoldNode  a drawn unit: a tensor (value id), an instruction, a folded group */
/**
 * An edge of a fold, between two units, merging every tensor flowing that way (foldPlan).
 * @typedef {{key: number, src: number, dst: number, seen: Set<number>, count: number, bytes: number, lo: number,
 *            hi: number, v: number, i: number, w: number}} FoldEdge
 */
/**
 * A fold's first half (foldPlan): its units (instructions, tensors, folded groups, as unit codes), merged edges,
 * and the layout's job; foldFinish turns it and the job's answer into a Folded.
 * @typedef {{expanded: number[], units: number[], list: FoldEdge[], A: number[], B: number[], pos: Map<number, number>,
 *            instUnit: Int32Array, valueCode: Int32Array, job: import("../layout/worker.js").LayoutJob}} FoldPlan
 */
/**
 * A fold as drawn: per node (in drawing order) what it is and where (layout units: x, layer y going down), per
 * edge its ends, polyline ([x0, y0, x1, y1, ...]), tensors, bytes, kind and device (-1: several); per instruction
 * and value the node drawing it (-1: none), and node positions by "v12" / "i5" / "g3".
 * @typedef {{nodes: FoldNode[], x: number[], y: number[], edges: [number, number][], paths: number[][],
 *            tensors: number[], bytes: number[], kinds: EdgeKind[], devs: number[], instUnit: Int32Array,
 *            valueUnit: Int32Array, index: Map<string, number>}} Folded
 */
/**
 * What a group holds: its ops per device [device, count, share], its tensors' bytes per device and in all, and its
 * copies per kind [count, bytes].
 * @typedef {{ops: [number, number, number][], bytes: [number, number][], total: number,
 *            copies: Partial<Record<CopyKind, [number, number]>>}} GroupSummary
 */
/**
 * The view's changing state: ONE object, made by lodState, read and changed by the parts lod/plan.js wires together.
 * @typedef {object} LodState
 * @property {number[]} expanded  the expanded groups, in the order they were opened
 * @property {string} note  what the last expand collapsed to stay within limits.visible ("": nothing)
 * @property {Folded | null} cur  the fold as drawn (null: not folded yet; currentFold() makes it)
 * @property {[number, number] | null} win  the memory lanes' x window, axis units (null: everything)
 * @property {number} laying  units of a layout running (0: none)
 * @property {[number, number, number, number] | null} region  what the last graph draw drew, [x0, x1, y0, y1] in
 *   plot units, y up (lod/graph.js regionOf; null: every node)
 * @property {{tk: number[], ok: number[], gk: number[], count: number} | null} drawn  the nodes drawn as markers
 *   by kind (positions in the fold: tensors, ops, groups) and how many
 * @property {number} draws  how many graph draws so far
 * @property {object | null} image  the dots image of a zoomed-out region (panels/nav.js dotImage), or null
 * @property {number} coarse  how many tensors and ops that image paints (0: markers drawn)
 * @property {number} viewArea  the view's area at the last windowed draw (plot units)
 */

/** The view state a plan opens with: the groups the payload opens, its memory window. @param {LodPayload} L @returns {LodState} */
export function lodState(L) {
  return {expanded: L.expanded.slice(), note: "", cur: null, win: L.window, laying: 0, region: null, drawn: null, draws: 0,
          image: null, coarse: 0, viewArea: 0};
}

/** The fold of the state's expanded groups as drawn, folded and laid out here the first time it is asked for.
 * @param {LodBase} B @param {LodState} S @returns {Folded} */
export function currentFold(B, S) {
  if (!S.cur) S.cur = B.fold(S.expanded);
  return S.cur;
}

/** @typedef {ReturnType<typeof lodBase>} LodBase */

/** The plan's tables and everything computed once from them. @param {import("../types/payload").DrawnPlan} P */
export function lodBase(P) {
  const L = P.lod, T = L.trace, m = L.m, n = L.n, DEV = L.devices, ST = L.style;
  const G = L.groups, nG = G.start.length, gbase = m + n, span = gbase + nG;
  const TT = L.tensors, F = L.flow, OPS = L.ops;
  const rowOf = new Int32Array(n).fill(-1), written = new Uint8Array(n), home = new Int32Array(n).fill(-1);
  TT.index.forEach((v, r) => { rowOf[v] = r; home[v] = TT.home[r]; });
  for (let k = 0; k < F.v.length; k++) if (F.w[k]) written[F.v[k]] = 1;
  const fstart = new Int32Array(m + 1);  // flow rows of instruction i: fstart[i] .. fstart[i + 1]
  for (let k = 0; k < F.i.length; k++) fstart[F.i[k] + 1]++;
  for (let k = 0; k < m; k++) fstart[k + 1] += fstart[k];
  const inputs = new Set(L.inputs), outputs = new Set(L.outputs), errors = new Set(L.errors);
  const errorInstrs = L.errors.map((v) => home[v]).filter((h) => h >= 0).sort((a, b) => a - b);
  /** @param {number} k an op kind's index (names.opKinds) */
  const opStyle = (k) => ST.op[/** @type {keyof LodPayload["style"]["op"]} */ (L.names.opKinds[k])];
  /** @param {number} g */
  const groupSymbol = (g) => ST.group[/** @type {keyof LodPayload["style"]["group"]} */ (G.kind[g])];
  const OPSYM = L.names.opKinds.map((_, k) => opStyle(k).symbol);

  // -- text -------------------------------------------------------------------------------------
  /** @param {number} d a device table index (-1: none) */
  function devName(d) { return d >= 0 ? DEV[d].name : "?"; }
  /** a device's colour swatch and name, HTML @param {number} d */
  function swatch(d) {
    if (d < 0) return "?";
    return "<span class='dx-sw" + (DEV[d].known ? "" : " dx-unknown") + "' style='background-color:" + DEV[d].color +
      "'></span>" + esc(DEV[d].name);
  }
  /** transfer_kind over device table indices @param {number} a @param {number} b @returns {EdgeKind} */
  function kindOf(a, b) {
    if (a === b || (DEV[a].host && DEV[b].host)) return "same";
    if (DEV[a].host) return "h2d";
    if (DEV[b].host) return "d2h";
    return "d2d";
  }
  /** @param {number} v */
  function tensorHover(v) {
    const r = rowOf[v], lines = ["<b>" + ptext(TT.label[r]) + "</b>" + (TT.named[r] ? "  <span style='color:#6E7781'>%" + v + "</span>" : ""),
      ptext(L.dtypes[TT.dtype[r]]) + " " + TT.shapes[TT.shape[r]] + "  \u00b7  " + ptext(bytesText(TT.nbytes[r])),
      "device <b>" + ptext(devName(TT.dev[r])) + "</b>  \u00b7  " + ptext(TT.storages[TT.storage[r]])];
    if (TT.mem[r] >= 0) lines.push("arena " + TT.mem[r] + "  offset " + TT.off[r] + "  bytes " + (TT.nbytes[r] >= 0 ? TT.nbytes[r] : "?"));
    if (TT.first[r] >= 0) lines.push("alive #" + TT.first[r] + " \u2013 #" + TT.last[r]);
    return lines.join("<br>");
  }
  /** @param {number} i */
  function opHover(i) {
    const kind = L.names.opKinds[OPS.kind[i]], d = OPS.dev[i], reads = [];
    for (let k = fstart[i]; k < fstart[i + 1]; k++) reads.push("%" + F.v[k]);
    return "<b>" + ptext(OPS.opTable[OPS.op[i]][0]) + "</b><br>#" + i + "  \u00b7  " + kind + (d >= 0 ? "  \u00b7  on " + ptext(devName(d)) : "") +
      "<br>tensors " + ptext(reads.join(", ")) + contextHover(P.context, i);
  }

  // -- the group tree ---------------------------------------------------------------------------
  /** @param {number} g */
  function children(g) { return G.children.slice(G.childStart[g], G.childStart[g + 1]); }
  /** the groups holding instruction i, outermost first (the root not included) @param {number} i */
  function path(i) {
    const out = [];
    let g = 0;
    for (;;) {
      const kids = children(g);
      if (!kids.length) return out;
      let pick = kids[0];
      for (let c = 0; c < kids.length; c++) if (G.start[kids[c]] <= i) pick = kids[c];
      g = pick; out.push(g);
    }
  }
  /** how many nodes a fold with these groups expanded draws @param {Set<number>} exp */
  function visibleNodes(exp) {
    let total = 0;
    const stack = [0];
    while (stack.length) {
      const g = /** @type {number} */ (stack.pop()), kids = children(g);
      if (!kids.length) { total += G.nodes[g]; continue; }
      kids.forEach((c) => { if (exp.has(c)) stack.push(c); else total += 1; });
    }
    return total;
  }
  /** @param {number} g */
  function depthOf(g) { let d = 0; while (g > 0) { g = G.parent[g]; d++; } return d; }

  // -- folding: the visible units and the edges between them ------------------------------------
  // in two halves around the layout, so that the layout can run in a worker (layout/worker.js): foldPlan(expanded)
  // the units, the merged edges and the layout's job; foldFinish(plan, layout) the drawn positions. Unit codes:
  // instruction i is i, value v is m + v, group g is gbase + g.
  /** @param {number[]} expanded @returns {FoldPlan} */
  function foldPlan(expanded) {
    const exp = new Set(expanded.concat([0])), instUnit = new Int32Array(m), stack = [0];
    while (stack.length) {
      const g = /** @type {number} */ (stack.pop()), kids = children(g);
      if (!kids.length) { for (let i = G.start[g]; i < G.stop[g]; i++) instUnit[i] = i; continue; }
      kids.forEach((c) => {
        if (exp.has(c)) stack.push(c); else for (let j = G.start[c]; j < G.stop[c]; j++) instUnit[j] = gbase + c;
      });
    }
    const valueCode = new Int32Array(n).fill(-1);
    for (let r = 0; r < TT.index.length; r++) {
      const v = TT.index[r];
      if (TT.home[r] >= 0) { const hu = instUnit[TT.home[r]]; valueCode[v] = hu < m ? m + v : hu; }
    }
    /** @type {Map<number, FoldEdge>} */
    const pairs = new Map();
    for (let k = 0; k < F.v.length; k++) {
      const v = F.v[k], vu = valueCode[v];
      if (vu < 0) continue;
      const iu = instUnit[F.i[k]], src = F.w[k] ? iu : vu, dst = F.w[k] ? vu : iu;
      if (src === dst) continue;
      const key = src * span + dst;
      let e = pairs.get(key);
      if (!e) { e = {key: key, src: src, dst: dst, seen: new Set(), count: 0, bytes: 0, lo: Infinity, hi: -1, v: v, i: F.i[k], w: F.w[k]}; pairs.set(key, e); }
      if (!e.seen.has(v)) {
        e.seen.add(v); e.count++;
        const rr = rowOf[v], d = TT.dev[rr];
        e.bytes += Math.max(TT.nbytes[rr], 0); e.lo = Math.min(e.lo, d); e.hi = Math.max(e.hi, d);
        if (v < e.v) { e.v = v; e.i = F.i[k]; e.w = F.w[k]; }
      }
    }
    const list = Array.from(pairs.values()).sort((a, b) => a.key - b.key);
    const unitSet = new Set();
    for (let i = 0; i < m; i++) unitSet.add(instUnit[i]);
    for (let r = 0; r < TT.index.length; r++) if (TT.home[r] >= 0) unitSet.add(valueCode[TT.index[r]]);
    /** @param {number} u */
    const keyOf = (u) => {
      if (u < m) return 3 * u + 1;
      if (u < gbase) { const vv = u - m; return 3 * home[vv] + (written[vv] ? 2 : 0); }
      return 3 * G.start[u - gbase] + 1;
    };
    const keyed = Array.from(unitSet).sort((a, b) => a - b).map((u, j) => [keyOf(u), j, u]);
    keyed.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const units = keyed.map((t) => t[2]);
    /** @type {Map<number, number>} */
    const pos = new Map();
    units.forEach((u, j) => { pos.set(u, j); });
    const A = list.map((e) => /** @type {number} */ (pos.get(e.src))), B = list.map((e) => /** @type {number} */ (pos.get(e.dst)));
    // network simplex layering (layout/layout.js, as graphviz dot): a source (input, weight, state read before it is
    // written) sits just above its first reader; the main dataflow weighs more, so it runs short and straight;
    // units keyed by device keep each device's run together where the order allows
    const weight = list.map((e) => isSource(e.src) ? SOURCE_WEIGHT : MAIN_WEIGHT);
    return {expanded: expanded.slice(), units: units, list: list, A: A, B: B, pos: pos, instUnit: instUnit, valueCode: valueCode,
            job: {count: units.length, src: A, dst: B, weight: weight, key: units.map(unitDevice)}};
  }
  /** @param {FoldPlan} pl foldPlan()'s @param {import("../layout/worker.js").LayoutResult} lay layout/layout.js's @returns {Folded} */
  function foldFinish(pl, lay) {
    const units = pl.units, A = pl.A, B = pl.B, pos = pl.pos;
    const layer = Array.from(lay.rank), x = Array.from(lay.x);
    const tops = headerRows(units, layer, pl.expanded);
    const fin = units.map((_, j) => j);
    fin.sort((a, b) => layer[a] - layer[b] || x[a] - x[b] || a - b);
    const renum = new Int32Array(units.length);
    fin.forEach((j, p) => { renum[j] = p; });
    const styled = rawKinds();
    /** @type {Folded} */
    const out = {nodes: [], x: [], y: [], edges: [], paths: [], tensors: [], bytes: [], kinds: [], devs: [],
                 instUnit: new Int32Array(m), valueUnit: new Int32Array(n).fill(-1), index: new Map()};
    fin.forEach((j) => {
      const u = units[j];
      out.nodes.push(u < m ? ["i", u] : u < gbase ? ["v", u - m] : ["g", u - gbase]);
      out.x.push(x[j]); out.y.push(layer[j]);
    });
    pl.list.forEach((e, q) => {
      out.edges.push([renum[A[q]], renum[B[q]]]);
      out.paths.push(edgePath(lay.paths[q] || [0, 0, 0, 0], tops, x[A[q]], layer[A[q]], x[B[q]], layer[B[q]]));
      out.tensors.push(e.count); out.bytes.push(e.bytes); out.devs.push(e.lo === e.hi ? e.lo : -1);
      const atOp = e.src < m || e.dst < m;
      out.kinds.push(atOp ? (styled.get(e.i + ":" + e.v + ":" + e.w) || "same") : "same");
    });
    const at = (/** @type {number} */ u) => renum[/** @type {number} */ (pos.get(u))];
    for (let i = 0; i < m; i++) out.instUnit[i] = at(pl.instUnit[i]);
    for (let r = 0; r < TT.index.length; r++) if (TT.home[r] >= 0) out.valueUnit[TT.index[r]] = at(pl.valueCode[TT.index[r]]);
    out.nodes.forEach((nd, p) => { out.index.set(nd[0] + nd[1], p); });
    return out;
  }
  /** both halves, here @param {number[]} expanded */
  function fold(expanded) { const pl = foldPlan(expanded); return foldFinish(pl, layOut(pl.job)); }
  // each expanded group gets two empty layers above its members for its header; returns the layers where rows
  // were opened, in order (an edge's bends below one move down with it)
  /** @param {number[]} units @param {number[]} layer changed in place @param {number[]} expanded */
  function headerRows(units, layer, expanded) {
    const anchor = units.map((u) => u < m ? u : u < gbase ? home[u - m] : G.start[u - gbase]), tops = /** @type {number[]} */ ([]);
    expanded.filter((g) => g).sort((a, b) => depthOf(a) - depthOf(b) || a - b).forEach((g) => {
      let top = Infinity;
      const ins = anchor.map((a) => a >= G.start[g] && a < G.stop[g]);
      ins.forEach((yes, k2) => { if (yes) top = Math.min(top, layer[k2]); });
      if (top === Infinity) return;
      for (let k2 = 0; k2 < layer.length; k2++) if (layer[k2] > top || (layer[k2] === top && ins[k2])) layer[k2] += 2;
      tops.push(top);
    });
    return tops;
  }
  // an edge's polyline (layout/layout.js: [x0, y0, x1, y1, ...], one point per layer) with its ends on the nodes and
  // its bends moved down past the header rows opened above them
  /** @param {number[]} pts @param {number[]} tops @param {number} xa @param {number} ya @param {number} xb @param {number} yb */
  function edgePath(pts, tops, xa, ya, xb, yb) {
    const out = pts.slice();
    for (let k = 3; k + 2 < out.length; k += 2) {
      let y = out[k];
      for (let t = 0; t < tops.length; t++) if (y > tops[t]) y += 2;
      out[k] = y;
    }
    out[0] = xa; out[1] = ya; out[out.length - 2] = xb; out[out.length - 1] = yb;
    return out;
  }
  const SOURCE_WEIGHT = 1, MAIN_WEIGHT = 4;  // as explorer/analysis/layout.py
  /** a value unit nothing writes @param {number} u */
  function isSource(u) { return u >= m && u < gbase && !written[u - m]; }
  /** the device table index a unit runs or lives on (-1: none or several) @param {number} u */
  function unitDevice(u) {
    if (u < m) return OPS.dev[u];
    if (u < gbase) return TT.dev[rowOf[u - m]];
    return G.dev[u - gbase];
  }
  /** @type {Map<string, EdgeKind> | null} */
  let styledCache = null;
  // the kind of each flow row moving a tensor between devices: "instruction:value:written" -> kind
  function rawKinds() {
    if (styledCache) return styledCache;
    const out = styledCache = new Map();
    for (let k = 0; k < L.moving.i.length; k++) {
      const s = L.moving.s[k], d = L.moving.d[k], kind = kindOf(TT.dev[rowOf[s]], TT.dev[rowOf[d]]);
      if (kind !== "same") { out.set(L.moving.i[k] + ":" + s + ":0", kind); out.set(L.moving.i[k] + ":" + d + ":1", kind); }
    }
    return out;
  }

  // -- what a group holds: device split, tensors' bytes, copies (prefix sums over instructions, built once) --
  /** @type {{bytes: Float64Array, cp: Record<CopyKind, Float64Array>, nd: number} | null} */
  let sums = null;
  /** @type {CopyKind[]} */
  const COPIES = ["h2d", "d2h", "d2d"];
  function prefix() {
    if (sums) return sums;
    const nd = DEV.length, bytes = new Float64Array((m + 1) * nd);
    /** @type {Record<CopyKind, Float64Array>} */
    const cp = {h2d: new Float64Array(2 * (m + 1)), d2h: new Float64Array(2 * (m + 1)), d2d: new Float64Array(2 * (m + 1))};
    for (let r = 0; r < TT.home.length; r++) {
      const at = TT.home[r], d = TT.dev[r];
      if (at >= 0 && at < m && d >= 0 && TT.nbytes[r] > 0) bytes[(at + 1) * nd + d] += TT.nbytes[r];
    }
    for (let k = 0; k < L.moving.i.length; k++) {
      const i = L.moving.i[k], kind = kindOf(TT.dev[rowOf[L.moving.s[k]]], TT.dev[rowOf[L.moving.d[k]]]);
      if (kind === "same" || i < 0 || i >= m) continue;
      cp[kind][2 * (i + 1)] += 1; cp[kind][2 * (i + 1) + 1] += Math.max(L.moving.nbytes[k], 0);
    }
    for (let i = 1; i <= m; i++) {
      for (let d = 0; d < nd; d++) bytes[i * nd + d] += bytes[(i - 1) * nd + d];
      COPIES.forEach((kd) => { cp[kd][2 * i] += cp[kd][2 * i - 2]; cp[kd][2 * i + 1] += cp[kd][2 * i - 1]; });
    }
    sums = {bytes: bytes, cp: cp, nd: nd};
    return sums;
  }
  /** @param {number} g @returns {GroupSummary} */
  function groupSummary(g) {
    const S = prefix(), a = G.start[g], b = G.stop[g];
    /** @type {GroupSummary} */
    const out = {ops: [], bytes: [], total: 0, copies: {}};
    let opsum = 0;
    G.devs[g].forEach((c) => { opsum += c; });
    G.devs[g].forEach((c, d) => { if (c) out.ops.push([d, c, c / opsum]); });
    for (let d = 0; d < S.nd; d++) {
      const by = S.bytes[b * S.nd + d] - S.bytes[a * S.nd + d];
      if (by > 0) { out.bytes.push([d, by]); out.total += by; }
    }
    COPIES.forEach((kd) => {
      const c = S.cp[kd][2 * b] - S.cp[kd][2 * a];
      if (c) out.copies[kd] = [c, S.cp[kd][2 * b + 1] - S.cp[kd][2 * a + 1]];
    });
    return out;
  }
  /** "3 h2d (1.5 KB) · 1 d2h (512 B)": plotly text (html false) or HTML @param {GroupSummary["copies"]} cps @param {boolean} html */
  function copyText(cps, html) {
    return COPIES.flatMap((kd) => {
      const c = cps[kd];
      if (!c) return [];
      const t = countText(c[0]) + " " + kd + " (" + bytesText(c[1]) + ")";
      return [html ? esc(t) : ptext(t)];
    }).join(" \u00b7 ");
  }
  /** the group holds an instruction an error finding names (by the tensors it makes) @param {number} g */
  function holdsError(g) {
    for (let q = 0; q < errorInstrs.length; q++) if (errorInstrs[q] >= G.start[g] && errorInstrs[q] < G.stop[g]) return true;
    return false;
  }

  return {P, L, T, m, n, DEV, ST, G, nG, gbase, TT, F, OPS, rowOf, home, fstart, inputs, outputs, errors, OPSYM,
          opStyle, groupSymbol, devName, swatch, kindOf, tensorHover, opHover, children, path, visibleNodes, depthOf,
          foldPlan, foldFinish, fold, groupSummary, copyText, holdsError};
}

// The hover's line for an ETRecord's context (plans[].context, views/context_payload.py): where in the model
// instruction i comes from, short: the module path's last two components (an index stays with its list:
// "…layers.3.attn", not "…3.attn"), its class, and the source's file:line. "" without a context.
/** @param {import("../types/payload").ContextPayload | undefined | null} X @param {number} i */
export function contextHover(X, i) {
  if (!X) return "";
  const row = X.module[i], src = X.source[i], parts = [];
  if (row >= 0) {
    const path = X.modules.path[row], type = X.modules.type[row], cls = type.slice(type.lastIndexOf(".") + 1);
    const comps = path ? path.split(".").reduce((/** @type {string[]} */ out, c) => {
      if (/^\d+$/.test(c) && out.length) out[out.length - 1] += "." + c; else out.push(c);
      return out;
    }, []) : [];
    parts.push((comps.length > 2 ? "\u2026" : "") + comps.slice(-2).join(".") + (path ? " (" + cls + ")" : cls));
  }
  if (src >= 0) parts.push(sourceLocation(X.sources[src]));
  return parts.length ? "<br>" + ptext(parts.join("  \u00b7  ")) : "";
}
/** "dir/model.py:62 in forward" -> "model.py:62": a context's source line, short @param {string} text */
export function sourceLocation(text) {
  const cut = text.lastIndexOf(" in "), loc = cut >= 0 ? text.slice(0, cut) : text;
  return loc.slice(Math.max(loc.lastIndexOf("/"), loc.lastIndexOf("\\")) + 1);
}
