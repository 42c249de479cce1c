import {READABLE, clearEdges, readableView} from "../panels/nav.js";

// Where a plan's graph is looked at (lod/graph.js draws it): the expanded groups' boxes, the view a plan opens at,
// the view a group is focused at, and the region a draw covers around a view. Pure functions of the fold as drawn
// (lod/base.js Folded), the expanded groups and the plot area's size.
/** @typedef {import("./base.js").LodBase} LodBase */
/** @typedef {import("./base.js").Folded} Folded */
/** A view: the graph's axis ranges, as plotly's relayout names them. @typedef {{"xaxis.range": number[], "yaxis.range": number[]}} View */
/** A group's box as drawn: [group, x0, x1, y0, y1] (plot units, y up). @typedef {[number, number, number, number, number]} Box */
/** What a draw draws: [x0, x1, y0, y1] in plot units, y up. @typedef {[number, number, number, number]} Region */
/** The plot area in px. @typedef {{w: number, h: number}} Size */

// the region drawn around a view: this share of the view's size on every side, so a pan of up to half a view
// shows drawn nodes while it drags
export const MARGIN = 0.25;

/** each expanded group's box as drawn (around its members, its inner groups' boxes and its header), outer first
 * @param {LodBase} B @param {Folded} f @param {number[]} expanded @returns {Box[]} */
export function boxes(B, f, expanded) {
  const {G, home, depthOf} = B, out = /** @type {Box[]} */ ([]);
  const anchor = f.nodes.map((nd) => nd[0] === "i" ? nd[1] : nd[0] === "v" ? home[nd[1]] : G.start[nd[1]]);
  /** @type {Map<number, number[]>} */
  const done = new Map();
  expanded.slice().sort((a, b) => depthOf(b) - depthOf(a) || a - b).forEach((g) => {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    anchor.forEach((a, p) => {
      if (a >= G.start[g] && a < G.stop[g]) {
        x0 = Math.min(x0, f.x[p]); x1 = Math.max(x1, f.x[p]); y0 = Math.min(y0, -f.y[p]); y1 = Math.max(y1, -f.y[p]);
      }
    });
    if (x0 > x1) return;
    x0 -= 0.45; x1 += 0.45; y0 -= 0.45; y1 += 1.45;
    done.forEach((b, e) => {  // an expanded group inside: around its box and header
      if (e !== g && G.start[g] <= G.start[e] && G.stop[e] <= G.stop[g]) {
        x0 = Math.min(x0, b[0] - 0.15); x1 = Math.max(x1, b[1] + 0.15); y0 = Math.min(y0, b[2] - 0.15); y1 = Math.max(y1, b[3] + 2);
      }
    });
    done.set(g, [x0, x1, y0, y1]);
  });
  Array.from(done.keys()).sort((a, b) => depthOf(a) - depthOf(b) || a - b).forEach((g) => {
    const b = /** @type {number[]} */ (done.get(g));
    out.push([g, b[0], b[1], b[2], b[3]]);
  });
  return out;
}

/** a fold's x extent and its layers (layout units; lo > hi: no nodes) @param {Folded} f */
export function spread(f) {
  let lo = Infinity, hi = -Infinity, depth = 0;
  f.x.forEach((x) => { lo = Math.min(lo, x); hi = Math.max(hi, x); });
  f.y.forEach((y) => { depth = Math.max(depth, y + 1); });
  return {lo, hi, depth};
}

/** a folded group's marker size: bigger with its instructions @param {LodBase["G"]} G @param {number} g */
export function groupSize(G, g) { return 14 + 3 * Math.log10(Math.max(G.stop[g] - G.start[g], 1)); }

/** px a layer needs: the biggest group marker drawn, and a gap, so neighbours never touch @param {LodBase["G"]} G @param {Folded} f */
export function rowPx(G, f) {
  let most = 0;
  f.nodes.forEach((nd) => { if (nd[0] === "g") most = Math.max(most, groupSize(G, nd[1])); });
  return Math.max(READABLE.y, Math.ceil(most * 1.25) + 4);
}

/** the plot area in px; `height`: the figure's height a draw under way gives it (0: as it is). A div plotly has not
 * drawn in yet: from its width and `layout`'s margins (the figure about to be drawn) when it has a width, else a
 * default (under node, where nothing is drawn)
 * @param {PlotDiv} gd @param {number} height @param {{height?: number, margin?: {l?: number, r?: number, t?: number, b?: number}}} [layout]
 * @returns {Size} */
export function plotSize(gd, height, layout) {
  const fl = gd._fullLayout, sz = fl && fl._size;
  if (!sz) {
    const m = (layout && layout.margin) || {}, tall = height || (layout && layout.height) || 0;
    if (!gd.clientWidth || !tall) return {w: 900, h: 560};
    return {w: Math.max(1, gd.clientWidth - (m.l || 0) - (m.r || 0)), h: Math.max(1, tall - (m.t || 0) - (m.b || 0))};
  }
  return {w: sz.w, h: height && fl.height ? sz.h + height - fl.height : sz.h};
}

// an overview of folded groups of at most this many nodes opens whole (every group and edge inside the axes),
// whatever the scale: a reviewer's first view must show every part of the plan (a big plan's overview is a few dozen
// groups, readable at ~25 px a layer); a bigger fold opens at a readable scale at its top
export const FIT_MAX = 150;

/** every node and every edge's bends of a fold: [x0, x1, y0, y1] (y up) @param {Folded} f @returns {number[]} */
export function extentOf(f) {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  const add = (/** @type {number} */ x, /** @type {number} */ y) => { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); };
  f.x.forEach((x, p) => add(x, -f.y[p]));
  f.paths.forEach((pts) => { for (let k = 0; k < pts.length; k += 2) add(pts[k], -pts[k + 1]); });
  return x0 > x1 ? [0, 0, 0, 0] : [x0, x1, y0, y1];
}

/** whether a fold opens whole (homeView): an overview of folded groups of at most FIT_MAX nodes @param {Folded} f */
export function fitsWhole(f) { return f.nodes.length <= FIT_MAX && f.nodes.some((nd) => nd[0] === "g"); }

/** the graph figure's height for a fold (px): 22 px a layer up to the plan's focus depth, within 380-720 px; a fold
 * that opens whole gets its layers' room (rowPx: group markers never touch, the device bar under each fits), up to
 * 1,200 px @param {LodBase["G"]} G @param {Folded} f @param {number} focus the plan's focus layers (limits.focus) */
export function figureHeight(G, f, focus) {
  const depth = spread(f).depth, base = Math.min(720, Math.max(380, 22 * Math.min(depth, focus) + 110));
  return Math.round(fitsWhole(f) ? Math.max(base, Math.min(1200, rowPx(G, f) * depth + 110)) : base);
}

/** the view a plan opens at: an overview of groups whole (FIT_MAX), else its top at a readable scale; room for
 * group labels, and for the labels of its top and bottom rows (panels/nav.js clearEdges: they sit beside their nodes,
 * clear of the plot's edges) @param {LodBase["G"]} G @param {Folded} f @param {Size} size @returns {View} */
export function homeView(G, f, size) {
  if (fitsWhole(f)) {
    // whole: the extent, half a slot around it and room on the right for the last column's labels
    const e = extentOf(f), x = [e[0] - 0.5, e[1] + 3.5], y = [e[2] - 0.75, e[3] + 0.5];  // below: the last bar
    return {"xaxis.range": x, "yaxis.range": clearEdges(y, e[2], e[3], size.h)};
  }
  let {lo, hi, depth} = spread(f);
  if (lo > hi) { lo = 0; hi = 0; }
  const v = readableView({x0: lo, x1: hi, y0: -(Math.max(depth, 1) - 1), y1: 0}, size,
                         // room on the right for a folded group's label (long: name, device split, bytes); a graph of
                         // single nodes needs only its own labels' room, so it opens at a larger, more legible scale
                         {pad: 0.5, padRight: f.nodes.some((nd) => nd[0] === "g") ? 3.5 : 1,
                          minY: rowPx(G, f), nodes: f.x.map((x, p) => [x, -f.y[p]])});
  return {"xaxis.range": v.x, "yaxis.range": clearEdges(v.y, -(Math.max(depth, 1) - 1), 0, size.h)};
}

/** an expanded group's box (its top first) at a readable scale (panels/nav.js); folded: around its node
 * @param {LodBase} B @param {Folded} f @param {number[]} expanded @param {number} g @param {Size} size @returns {View} */
export function focusView(B, f, expanded, g, size) {
  const bx = boxes(B, f, expanded).find((b) => b[0] === g);
  if (!bx) {
    const p = f.index.get("g" + g);
    if (p === undefined) return homeView(B.G, f, size);
    const v0 = readableView({x0: f.x[p] - 2, x1: f.x[p] + 2, y0: -f.y[p] - 2, y1: -f.y[p] + 2}, size, {padRight: 3});
    return {"xaxis.range": v0.x, "yaxis.range": v0.y};
  }
  const nodes = /** @type {number[][]} */ ([]);  // the nodes inside the box, [x, y] (y up)
  f.x.forEach((x, p) => { const y = -f.y[p]; if (x >= bx[1] && x <= bx[2] && y >= bx[3] && y <= bx[4]) nodes.push([x, y]); });
  const v = readableView({x0: bx[1], x1: bx[2], y0: bx[3], y1: bx[4]}, size, {pad: 0.3, padRight: 3, minY: rowPx(B.G, f), nodes});
  return {"xaxis.range": v.x, "yaxis.range": v.y};
}

/** The region drawn around a view: the view and MARGIN of its size on every side; null (draw every node) for a
 * fold of at most `windowMin` nodes, or where no plot is laid out (a stand-in plotly under node)
 * @param {Folded} f @param {number} windowMin @param {boolean} laidOut @param {number[] | undefined} xr @param {number[] | undefined} yr
 * @returns {Region | null} */
export function regionOf(f, windowMin, laidOut, xr, yr) {
  if (f.nodes.length <= windowMin || !xr || !yr || !laidOut) return null;
  const w = Math.abs(xr[1] - xr[0]) * MARGIN, h = Math.abs(yr[1] - yr[0]) * MARGIN;
  return [Math.min(xr[0], xr[1]) - w, Math.max(xr[0], xr[1]) + w, Math.min(yr[0], yr[1]) - h, Math.max(yr[0], yr[1]) + h];
}

/** how many tensors and ops lie inside a region @param {Folded} f @param {Region} region */
export function nodesIn(f, region) {
  let k = 0;
  for (let p = 0; p < f.nodes.length; p++) {
    const x = f.x[p], y = -f.y[p];
    if (f.nodes[p][0] !== "g" && x >= region[0] && x <= region[1] && y >= region[2] && y <= region[3]) k++;
  }
  return k;
}

/** below half the readable scale (panels/nav.js READABLE): markers too small to read anyway
 * @param {Size} size @param {number[]} xr @param {number[]} yr */
export function zoomedOut(size, xr, yr) {
  return size.w / Math.abs(xr[1] - xr[0]) < READABLE.x / 2 || size.h / Math.abs(yr[1] - yr[0]) < READABLE.y / 2;
}
