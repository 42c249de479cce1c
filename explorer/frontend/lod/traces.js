import {ptext, short} from "../util/common.js";
import {bytesText, countText} from "../util/format.js";
import {dotImage} from "../panels/nav.js";
import {EDGE_KINDS} from "./figures.js";
import {groupHover, mix} from "./captions.js";
import {groupSize, MARGIN} from "./views.js";

// The graph's traces for the fold as drawn (lod/graph.js fills lod/figures.js's skeleton with them): the edges by
// kind, tensors, ops, the selection's (empty: panels/rings.js draws it), folded groups, expanded groups' headers and
// the crossings' hover dots — only the nodes in a region around the view, and the edges through it; a region
// holding too many tensors and ops zoomed out paints them into one image instead (S.image).
/** @typedef {import("./base.js").LodBase} LodBase */
/** @typedef {import("./base.js").LodState} LodState */
/** @typedef {import("./base.js").Folded} Folded */
/** @typedef {import("./views.js").Region} Region */
/** @typedef {import("./views.js").Box} Box */

/** the edges `sel` as polylines (bends through the layers they pass), null between @param {Folded} f @param {number[]} sel */
export function segments(f, sel) {
  const xs = /** @type {(number | null)[]} */ ([]), ys = /** @type {(number | null)[]} */ ([]);
  sel.forEach((q) => {
    const p = f.paths[q];
    for (let k = 0; k < p.length; k += 2) { xs.push(p[k]); ys.push(-p[k + 1]); }
    xs.push(null); ys.push(null);
  });
  return [xs, ys];
}

/** the point a fraction t along a polyline's segments: [x, y] in layout units @param {number[]} p @param {number} t */
export function along(p, t) {
  const segs = p.length / 2 - 1, at = t * segs, k = Math.min(Math.floor(at), segs - 1), u = at - k;
  return [p[2 * k] + u * (p[2 * k + 2] - p[2 * k]), p[2 * k + 1] + u * (p[2 * k + 3] - p[2 * k + 1])];
}

/** which nodes lie in the region and which edges pass through it (the polyline's box meets it); no region: all
 * @param {Folded} f @param {Region | null} region */
function inRegion(f, region) {
  if (!region) return {nodes: f.nodes.map(() => true), edges: f.edges.map(() => true)};
  const nodes = f.nodes.map((_, p) => { const x = f.x[p], y = -f.y[p]; return x >= region[0] && x <= region[1] && y >= region[2] && y <= region[3]; });
  const edges = f.edges.map((_, q) => {
    const pts = f.paths[q];
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (let k = 0; k < pts.length; k += 2) {
      x0 = Math.min(x0, pts[k]); x1 = Math.max(x1, pts[k]); y0 = Math.min(y0, -pts[k + 1]); y1 = Math.max(y1, -pts[k + 1]);
    }
    return x1 >= region[0] && x0 <= region[1] && y1 >= region[2] && y0 <= region[3];
  });
  return {nodes, edges};
}

/** the hover dots of the edges into and out of folded groups: what crosses, placed on the edge where no node is
 * (it would take the click meant for a group) @param {LodBase} B @param {Folded} f @param {boolean[]} drawnEdge */
function crossings(B, f, drawnEdge) {
  const {DEV, ST} = B;
  const isGroup = f.nodes.map((nd) => nd[0] === "g"), cx = /** @type {number[]} */ ([]), cy = /** @type {number[]} */ ([]);
  const ch = /** @type {string[]} */ ([]);
  const taken = new Set();
  f.nodes.forEach((_, p) => { taken.add(Math.round(f.x[p] * 2) + ":" + Math.round(f.y[p] * 2)); });
  f.edges.forEach((e, q) => {
    if ((!isGroup[e[0]] && !isGroup[e[1]]) || !drawnEdge[q]) return;
    const spot = [0.5, 0.3, 0.7].map((t) => along(f.paths[q], t))
      .find((s) => !taken.has(Math.round(s[0] * 2) + ":" + Math.round(s[1] * 2)));
    if (!spot) return;  // what crosses is in both ends' hover and details
    taken.add(Math.round(spot[0] * 2) + ":" + Math.round(spot[1] * 2));
    cx.push(spot[0]); cy.push(-spot[1]);
    const t = f.tensors[q], d = f.devs[q];
    ch.push(countText(t) + " tensor" + (t !== 1 ? "s" : "") + " \u00b7 " + ptext(bytesText(f.bytes[q])) +
      (d >= 0 ? " on " + ptext(DEV[d].name) : " on several devices") +
      (f.kinds[q] !== "same" ? " \u00b7 " + ST.edge[f.kinds[q]].label : ""));
  });
  // a crossing's dot has no label and no value; a stub's is named (panels/labels.js places it) and holds its value
  const text = cx.map(() => ""), customdata = cx.map(() => -1);
  stubEnds(B, f, drawnEdge, cx, cy, ch, text, customdata);
  return {x: cx, y: cy, hovertext: ch, text: text, customdata: customdata};
}

/** a dot at the free end of each stub drawn (lod/fold.js FANOUT_STUB), its hover naming the value it brings
 * @param {LodBase} B @param {Folded} f @param {boolean[]} drawnEdge @param {number[]} cx @param {number[]} cy @param {string[]} ch
 * @param {string[]} text the dots' labels: the value's name @param {number[]} customdata the dots' value */
function stubEnds(B, f, drawnEdge, cx, cy, ch, text, customdata) {
  const readers = new Map();
  f.edges.forEach((e) => { readers.set(e[0], (readers.get(e[0]) || 0) + 1); });
  f.stubs.forEach((q) => {
    if (!drawnEdge[q]) return;
    const nd = f.nodes[f.edges[q][0]];
    cx.push(f.paths[q][0]); cy.push(-f.paths[q][1]); text.push(ptext(short(B.TT.label[B.rowOf[nd[1]]], 16))); customdata.push(nd[1]);
    ch.push("<b>" + ptext(B.TT.label[B.rowOf[nd[1]]]) + "</b> \u00b7 read by " + countText(readers.get(f.edges[q][0])) +
            " \u00b7 drawn as a stub at each reader: hover or click to see them all");
  });
}

/** the region's tensors and ops as dots, in the colours their markers have in `out`, and its edges as lines: one
 * image (panels/nav.js dotImage) @param {LodBase} B @param {Folded} f @param {Record<string, any>[]} out
 * @param {{tk: number[], ok: number[], nodes: boolean[], edges: boolean[]}} drawn @param {Region} region
 * @param {{w: number, h: number}} size the plot area in px */
function dotsImage(B, f, out, drawn, region, size) {
  const {T, ST} = B;
  const vw = (region[1] - region[0]) / (1 + 2 * MARGIN), vh = (region[3] - region[2]) / (1 + 2 * MARGIN);
  const w = Math.min(2400, size.w * (1 + 2 * MARGIN)), h = Math.min(2400, size.h * (1 + 2 * MARGIN));
  const r = Math.max(1, Math.min(4, 0.2 * Math.min(size.w / vw, size.h / vh)));
  const tc = out[T.tensors]["marker.color"], oc = out[T.ops]["marker.color"], ol = out[T.ops]["marker.line.color"];
  const dots = /** @type {[number, number, string, number][]} */ ([]);
  drawn.tk.forEach((p, k) => { if (drawn.nodes[p]) dots.push([f.x[p], -f.y[p], tc[k], r]); });
  drawn.ok.forEach((p, k) => { if (drawn.nodes[p]) dots.push([f.x[p], -f.y[p], Array.isArray(oc) ? oc[k] : ol[k], r]); });
  const lines = /** @type {[number[], string][]} */ ([]);
  f.edges.forEach((_, q) => {
    if (drawn.edges[q]) lines.push([f.paths[q].map((c, k) => k % 2 ? -c : c), ST.edge[f.kinds[q]].color]);
  });
  return dotImage(region, w, h, dots, lines);
}

/** the columns of trace t for the nodes `pos` (fold positions) that pass `yes`; returns those positions
 * @param {Record<string, any>} t @param {number[]} pos @param {(p: number) => boolean} yes */
function keep(t, pos, yes) {
  const idx = /** @type {number[]} */ ([]), n0 = pos.length;
  pos.forEach((p, k) => { if (yes(p)) idx.push(k); });
  Object.keys(t).forEach((key) => { if (Array.isArray(t[key]) && t[key].length === n0) t[key] = idx.map((k) => t[key][k]); });
  return idx.map((k) => pos[k]);
}

/** the node traces (tensors, ops, the two selection traces, folded groups), every node's marker built (cheap
 * columns), its hover text and label only when `label(p)` @param {LodBase} B @param {Folded} f
 * @param {{tk: number[], ok: number[], gk: number[]}} kinds the fold positions by kind @param {(p: number) => boolean} label
 * @param {(p: number) => boolean} groupLabel @param {Record<string, boolean>} shown the device filter */
function nodeTraces(B, f, kinds, label, groupLabel, shown) {
  const {DEV, TT, OPS, G, ST, rowOf, errors, OPSYM, tensorHover, opHover, groupSymbol, holdsError} = B, O = ST.opacity.tensor;
  const {tk, ok, gk} = kinds, tv = tk.map((p) => f.nodes[p][1]), ops = ok.map((p) => f.nodes[p][1]), gids = gk.map((p) => f.nodes[p][1]);
  return [{x: tk.map((p) => f.x[p]), y: tk.map((p) => -f.y[p]), customdata: tv,
    hovertext: tv.map((v, k) => label(tk[k]) ? tensorHover(v) : ""), mode: "markers",  // labels: panels/labels.js places those that fit
    text: tv.map((v, k) => label(tk[k]) ? ptext(short(TT.label[rowOf[v]], 22)) : ""),
    "marker.color": tv.map((v) => DEV[TT.dev[rowOf[v]]].color),
    "marker.symbol": tv.map((v) => DEV[TT.dev[rowOf[v]]].symbol),
    "marker.opacity": tv.map((v) => O[shown[DEV[TT.dev[rowOf[v]]].name] === false ? 1 : 0]),
    "marker.line.color": tv.map((v) => errors.has(v) ? ST.error : "white"),
    "marker.line.width": tv.map((v) => errors.has(v) ? 3 : 1)},
  {x: ok.map((p) => f.x[p]), y: ok.map((p) => -f.y[p]), customdata: ops,
    hovertext: ops.map((i, k) => label(ok[k]) ? opHover(i) : ""), mode: "markers",
    text: ops.map((i, k) => label(ok[k]) ? ptext(short(OPS.opTable[OPS.op[i]][1], 24)) : ""),
    "marker.symbol": ops.map((i) => OPSYM[OPS.kind[i]]),
    "marker.size": ops.map((i) => B.opStyle(OPS.kind[i]).size),
    "marker.line.color": ops.map((i) => OPS.dev[i] >= 0 ? DEV[OPS.dev[i]].color : "#1F2328")},
  {x: [], y: []}, {x: [], y: [], "marker.symbol": []},  // selection: drawn over the figure (lod/graph.js highlight)
  {x: gk.map((p) => f.x[p]), y: gk.map((p) => -f.y[p]), customdata: gids,
    hovertext: gids.map((g, k) => groupLabel(gk[k]) ? groupHover(B, g) : ""), mode: "markers",
    text: gids.map((g, k) => groupLabel(gk[k]) ? ptext(short(G.label[g], 40)) + mix(B, g) : ""),
    "marker.symbol": gids.map(groupSymbol),
    "marker.size": gids.map((g) => groupSize(G, g)),
    "marker.color": gids.map((g) => G.dev[g] >= 0 ? DEV[G.dev[g]].color : "#D0D7DE"),
    "marker.opacity": gids.map((g) => O[G.dev[g] >= 0 && shown[DEV[G.dev[g]].name] === false ? 1 : 0]),
    "marker.line.color": gids.map((g) => holdsError(g) ? ST.error : "#1F2328"),
    "marker.line.width": gids.map((g) => holdsError(g) ? 3 : 1.2)}];
}

/**
 * The traces' new columns, by trace, for the fold `f` drawn in `region` ([x0, x1, y0, y1], plot units, y up; null:
 * every node). coarse: the region holds too many tensors and ops to draw as markers: they and the edges are painted
 * into S.image instead, without hover, labels or clicks; groups stay markers. Sets S.coarse, S.image and S.drawn
 * (the nodes drawn as markers). `paint` (the app's overlay) sees every node's marker, so its colour scale spans the
 * fold, not the view; then the traces keep the drawn ones.
 * @param {LodBase} B @param {LodState} S @param {Folded} f @param {Box[]} bx the expanded groups' boxes
 * @param {Region | null} region @param {boolean} coarse
 * @param {{shown: Record<string, boolean>, paint?: (traces: Record<string, any>[]) => void, size: () => {w: number, h: number}}} host
 * @returns {Record<string, any>[]}
 */
export function foldTraces(B, S, f, bx, region, coarse, host) {
  const {T, G} = B, out = /** @type {Record<string, any>[]} */ ([]);
  const drawn = inRegion(f, region);
  let tk = /** @type {number[]} */ ([]), ok = /** @type {number[]} */ ([]), gk = /** @type {number[]} */ ([]);
  f.nodes.forEach((nd, p) => { (nd[0] === "v" ? tk : nd[0] === "i" ? ok : gk).push(p); });
  S.coarse = coarse && region ? tk.filter((p) => drawn.nodes[p]).length + ok.filter((p) => drawn.nodes[p]).length : 0;
  EDGE_KINDS.forEach((kd) => {
    const sel = /** @type {number[]} */ ([]);
    f.kinds.forEach((k2, q) => { if (k2 === kd && drawn.edges[q] && !S.coarse) sel.push(q); });
    const s = segments(f, sel);
    out.push({x: s[0], y: s[1]});
  });
  out.push(...nodeTraces(B, f, {tk, ok, gk}, (p) => drawn.nodes[p] && !S.coarse, (p) => drawn.nodes[p], host.shown));
  out.push({x: bx.map((b) => b[1]), y: bx.map((b) => b[4] - 0.45),
    customdata: bx.map((b) => b[0]),
    hovertext: bx.map((b) => "<b>" + ptext(G.label[b[0]]) + "</b><br>click to collapse"),
    mode: "markers", text: bx.map((b) => ptext(short(G.label[b[0]], 40)))});
  out.push(crossings(B, f, drawn.edges));
  if (host.paint) host.paint(out);  // the app recolours the nodes (overlay/view.js: an overlay picked)
  S.image = S.coarse && region ? dotsImage(B, f, out, {tk, ok, ...drawn}, region, host.size()) : null;
  if (region) {  // the traces keep the markers drawn
    const asMarker = (/** @type {number} */ p) => drawn.nodes[p] && !S.coarse;
    tk = keep(out[T.tensors], tk, asMarker); ok = keep(out[T.ops], ok, asMarker);
    gk = keep(out[T.groups], gk, (p) => drawn.nodes[p]);
  }
  S.drawn = {tk: tk, ok: ok, gk: gk, count: tk.length + ok.length + gk.length};
  return out;
}
