import {layOut} from "../layout/worker.js";

// Folding a plan (lod/base.js lodBase gathers it): the units drawn for a set of expanded groups and the edges between
// them, in two halves around the layout, so that the layout can run in a worker (layout/worker.js):
// foldPlan(expanded) the units, the merged edges and the layout's job; foldFinish(plan, layout) the drawn positions.
// Unit codes: instruction i is i, value v is m + v, group g is gbase + g.
/** @typedef {import("./base.js").Tables} Tables */
/** @typedef {import("./base.js").EdgeKind} EdgeKind */
/** @typedef {import("./base.js").FoldEdge} FoldEdge */
/** @typedef {import("./base.js").FoldPlan} FoldPlan */
/** @typedef {import("./base.js").Folded} Folded */

// each expanded group gets two empty layers above its members for its header; returns the layers where rows
// were opened, in order (an edge's bends below one move down with it)
/** @param {Tables} t @param {(g: number) => number} depthOf @param {number[]} units @param {number[]} layer changed in place
 * @param {number[]} expanded */
function headerRows(t, depthOf, units, layer, expanded) {
  const {m, gbase, home, G} = t;
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

// A value read by more units than this (a weight, an input or a constant read by 30 operators) is drawn as Netron
// draws an initializer: its edge to its first reader as usual, and to every other reader a short stub ending at that
// reader, not a long edge across the plan. Its stubs are left out of the layout (they would pull every reader
// towards it), and selecting the value draws all of them bold at once (lod/selection.js). Eight: up to that many
// readers sit within a few columns of the value and their edges read as a fan; past it the edges cross the plan and
// each other (a what-if's copies read by every op became a thick bar).
export const FANOUT_STUB = 8;
// a stub: from above and left of its reader, this far in layout units
const STUB = [-0.3, -0.55];

/** the edges of `list` to draw as stubs: every edge but the first out of a value unit read by over FANOUT_STUB units
 * @param {Tables} t @param {FoldEdge[]} list @returns {boolean[]} */
function stubEdges(t, list) {
  const out = list.map(() => false), reads = /** @type {Map<number, number[]>} */ (new Map());
  list.forEach((e, q) => {
    if (e.src < t.m || e.src >= t.gbase) return;
    let r = reads.get(e.src); if (!r) reads.set(e.src, r = []); r.push(q);
  });
  reads.forEach((qs) => { if (qs.length > FANOUT_STUB) qs.slice(1).forEach((q) => { out[q] = true; }); });
  return out;
}

const SOURCE_WEIGHT = 1, MAIN_WEIGHT = 4;  // a value nothing writes pulls its reader a quarter as hard as the main flow
/** a value unit nothing writes @param {Tables} t @param {number} u */
function isSource(t, u) { return u >= t.m && u < t.gbase && !t.written[u - t.m]; }
/** the device table index a unit runs or lives on (-1: none or several) @param {Tables} t @param {number} u */
function unitDevice(t, u) {
  if (u < t.m) return t.OPS.dev[u];
  if (u < t.gbase) return t.TT.dev[t.rowOf[u - t.m]];
  return t.G.dev[u - t.gbase];
}

// the kind of each flow row moving a tensor between devices: "instruction:value:written" -> kind
/** @param {Tables} t @param {(a: number, b: number) => EdgeKind} kindOf @returns {Map<string, EdgeKind>} */
function moveKinds(t, kindOf) {
  const {L, TT, rowOf} = t, out = new Map();
  for (let k = 0; k < L.moving.i.length; k++) {
    const s = L.moving.s[k], d = L.moving.d[k], kind = kindOf(TT.dev[rowOf[s]], TT.dev[rowOf[d]]);
    if (kind !== "same") { out.set(L.moving.i[k] + ":" + s + ":0", kind); out.set(L.moving.i[k] + ":" + d + ":1", kind); }
  }
  return out;
}

/** @param {Tables} t @param {ReturnType<typeof import("./tree.js").groupTree>} tree
 * @param {(a: number, b: number) => EdgeKind} kindOf the kind of a move between two devices */
export function folder(t, tree, kindOf) {
  const {m, n, G, gbase, span, TT, F, rowOf, home, written} = t, {children, depthOf} = tree;
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
    const weight = list.map((e) => isSource(t, e.src) ? SOURCE_WEIGHT : MAIN_WEIGHT);
    const stub = stubEdges(t, list), laid = (/** @type {unknown} */ _, /** @type {number} */ q) => !stub[q];
    return {expanded: expanded.slice(), units: units, list: list, A: A, B: B, pos: pos, instUnit: instUnit, valueCode: valueCode, stub: stub,
            job: {count: units.length, src: A.filter(laid), dst: B.filter(laid), weight: weight.filter(laid), key: units.map((u) => unitDevice(t, u))}};
  }
  /** @param {FoldPlan} pl foldPlan()'s @param {import("../layout/worker.js").LayoutResult} lay layout/layout.js's @returns {Folded} */
  function foldFinish(pl, lay) {
    const units = pl.units, A = pl.A, B = pl.B, pos = pl.pos;
    const layer = Array.from(lay.rank), x = Array.from(lay.x);
    const tops = headerRows(t, depthOf, units, layer, pl.expanded);
    const fin = units.map((_, j) => j);
    fin.sort((a, b) => layer[a] - layer[b] || x[a] - x[b] || a - b);
    const renum = new Int32Array(units.length);
    fin.forEach((j, p) => { renum[j] = p; });
    const styled = rawKinds();
    /** @type {Folded} */
    const out = {nodes: [], x: [], y: [], edges: [], paths: [], tensors: [], bytes: [], kinds: [], devs: [],
                 instUnit: new Int32Array(m), valueUnit: new Int32Array(n).fill(-1), index: new Map(), stubs: []};
    fin.forEach((j) => {
      const u = units[j];
      out.nodes.push(u < m ? ["i", u] : u < gbase ? ["v", u - m] : ["g", u - gbase]);
      out.x.push(x[j]); out.y.push(layer[j]);
    });
    let jq = 0;  // the edge's index in the layout's job (stubs were left out of it)
    pl.list.forEach((e, q) => {
      out.edges.push([renum[A[q]], renum[B[q]]]);
      if (pl.stub[q]) {
        out.stubs.push(q);
        out.paths.push([x[B[q]] + STUB[0], layer[B[q]] + STUB[1], x[B[q]], layer[B[q]]]);
      } else out.paths.push(edgePath(lay.paths[jq++] || [0, 0, 0, 0], tops, x[A[q]], layer[A[q]], x[B[q]], layer[B[q]]));
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
  /** @type {Map<string, EdgeKind> | null} */
  let styledCache = null;
  const rawKinds = () => styledCache || (styledCache = moveKinds(t, kindOf));

  return {foldPlan, foldFinish, fold};
}
