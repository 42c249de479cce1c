import {cssContext, latestRelayout, pixelRatio, pointerDrag, sizeCanvas} from "../util/canvas.js";

// Navigating a graph bigger than its panel: it opens at a scale where nodes and their labels can be read (not
// every node squeezed in), and a small overview in the panel's corner shows the whole graph with the part in
// view; a click or a drag on it moves the view there. Plotly's own pan and zoom do the rest.

// Smallest scale a graph opens at: pixels per unit of the layout (a column step across, a layer down).
export const READABLE = {x: 44, y: 20};
// Largest: a narrow part (an expanded group of one column) is not blown up to fill the panel.
export const LARGEST = {x: 120, y: 44};

// The x/y ranges a graph of extent `ext` ({x0, x1, y0, y1} in data units, y up) opens at in a plot of `plot`
// ({w, h} px): everything when it fits at READABLE scale or better, else a READABLE window at its top, across
// the columns around `anchorX` (default: the middle of the nodes in that top window, `xsAtTop`).
/** @typedef {{x0: number, x1: number, y0: number, y1: number}} Extent */
/** @typedef {{x: number[], y: number[]}} Ranges */
/**
 * @param {Extent} ext @param {{w: number, h: number}} plot
 * @param {{pad?: number, padRight?: number, minX?: number, minY?: number, anchorX?: number, nodes?: number[][]}} [opts]
 * @returns {{x: number[], y: number[], all: boolean}}
 */
export function readableView(ext, plot, opts = {}) {
  const pad = opts.pad || 0.6, minX = opts.minX || READABLE.x, minY = opts.minY || READABLE.y;
  const padRight = opts.padRight === undefined ? pad : opts.padRight;
  let x = [ext.x0 - pad, ext.x1 + padRight], y = [ext.y0 - pad, ext.y1 + pad];
  const slack = 0.85;  // nearly readable is better than cut: a 5% squeeze shows the whole graph
  const fitsX = (x[1] - x[0]) * minX * slack <= plot.w, fitsY = (y[1] - y[0]) * minY * slack <= plot.h;
  if (!fitsY) y = [y[1] - plot.h / minY, y[1]];
  else if ((y[1] - y[0]) * LARGEST.y < plot.h) y = [y[1] - plot.h / LARGEST.y, y[1]];  // top kept, room below
  if (fitsX && (x[1] - x[0]) * LARGEST.x < plot.w) x = [x[0], x[0] + plot.w / LARGEST.x];  // left kept
  if (!fitsX) {
    const span = plot.w / minX;
    let c = opts.anchorX;
    if (c === undefined) {
      const xs = (opts.nodes || []).filter((p) => p[1] >= y[0] && p[1] <= y[1]).map((p) => p[0]).sort((a, b) => a - b);
      c = xs.length ? xs[Math.floor(xs.length / 2)] : (ext.x0 + ext.x1) / 2;
    }
    const lo = Math.max(x[0], Math.min(c - span / 2, x[1] - span));
    x = [lo, lo + span];
  }
  return {x, y, all: fitsX && fitsY};
}

// px a view keeps between its outermost rows of nodes and the plot's edges: half a label's height (13 px at 10 px
// type) and the label layer's edge gap (panels/labels.js EDGE), so a top or bottom row's labels sit beside their nodes
export const EDGE_PX = 12;

/** `range` ([lo, hi] data units over `px` px) widened so that the nodes at `lo`..`hi` (data units; an end outside
 * the range is not in view and is left alone) are at least `edge` px inside its ends
 * @param {number[]} range @param {number} lo @param {number} hi @param {number} px @param {number} [edge]
 * @returns {number[]} */
export function clearEdges(range, lo, hi, px, edge = EDGE_PX) {
  let [r0, r1] = range;
  const k = edge / px;  // the share of the range `edge` px are
  if (!(px > 3 * edge) || !(r1 > r0)) return range;
  // widening one end shrinks the scale a little: both ends are checked again (the shortfall shrinks by ~k a pass)
  for (let pass = 0; pass < 8; pass++) {
    if (hi <= r1 && r1 - hi < k * (r1 - r0)) r1 = (hi - k * r0) / (1 - k);
    if (lo >= r0 && lo - r0 < k * (r1 - r0)) r0 = (lo - k * r1) / (1 - k);
  }
  return [r0, r1];
}

// data extent of [x, y] points
/** @param {Iterable<any[]>} points [x, y, ...] @returns {Extent} */
export function extent(points) {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const [x, y] of points) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
  if (x0 > x1) return {x0: 0, x1: 0, y0: 0, y1: 0};
  return {x0, x1, y0, y1};
}

// the minimap's data <-> pixel map: the whole extent fitted in w x h px with a margin, with the plot's own
// aspect (`aspect`: its px per y unit / px per x unit), so the view's rectangle has the plot's shape
/**
 * @param {Extent} ext @param {number} w @param {number} h @param {number} [margin] @param {number} [aspect]
 * @returns {{toPx: (x: number, y: number) => number[], toData: (px: number, py: number) => number[], s: number}}
 */
export function mapFor(ext, w, h, margin = 4, aspect = 1) {
  const dx = Math.max(ext.x1 - ext.x0, 1e-9), dy = Math.max((ext.y1 - ext.y0) * aspect, 1e-9);
  const s = Math.min((w - 2 * margin) / dx, (h - 2 * margin) / dy);
  const ox = (w - dx * s) / 2, oy = (h - dy * s) / 2;
  return {toPx: (/** @type {number} */ x, /** @type {number} */ y) => [ox + (x - ext.x0) * s, oy + (ext.y1 - y) * aspect * s],
          toData: (/** @type {number} */ px, /** @type {number} */ py) => [ext.x0 + (px - ox) / s, ext.y1 - (py - oy) / (aspect * s)], s};
}

// ranges of the same size as `ranges`, centred on data point c
/** @param {Ranges} ranges @param {number[]} c @returns {{"xaxis.range": number[], "yaxis.range": number[]}} */
export function centredOn(ranges, c) {
  const hx = (ranges.x[1] - ranges.x[0]) / 2, hy = (ranges.y[1] - ranges.y[0]) / 2;
  return {"xaxis.range": [c[0] - hx, c[0] + hx], "yaxis.range": [c[1] - hy, c[1] + hy]};
}

/** @param {unknown} v @returns {v is number} */
function num(v) { return typeof v === "number" && isFinite(v); }

// the marker points of a figure as drawn (every visible marker trace), in data units
/** @param {PlotDiv & {_fullData?: any[]}} gd @returns {[number, number, string | null][]} */
export function figurePoints(gd) {
  /** @type {[number, number, string | null][]} */
  const out = [];
  for (const t of gd._fullData || []) {
    if (t.visible !== true || t.type !== "scatter" || !/markers/.test(t.mode || "") || t.name === "crossings") continue;
    const xs = t.x || [], ys = t.y || [], color = t.marker && typeof t.marker.color === "string" ? t.marker.color : null;
    const colors = t.marker && t.marker.color && typeof t.marker.color === "object" ? t.marker.color : null;
    for (let k = 0; k < xs.length; k++) if (num(xs[k]) && num(ys[k])) out.push([xs[k], ys[k], colors ? colors[k] : color]);
  }
  return out;
}

// The overview canvas in the graph card's corner: shown while part of the graph is out of view.
/** @param {PlotDiv & {dxPoints?: () => [number, number, string | null][]}} gd @param {HTMLCanvasElement} canvas @returns {{draw(): void}} */
export function minimap(gd, canvas) {
  const W = 180, H = 120;
  /** @type {ReturnType<typeof mapFor> | null} */
  let map = null;
  /** @type {Ranges | null} */
  let ranges = null;
  const ratio = pixelRatio(), relayout = latestRelayout(gd);
  sizeCanvas(canvas, W, H, ratio);
  canvas.title = "overview: click or drag to move the view";
  function draw() {
    const L = gd._fullLayout;
    if (!L || !L.xaxis || !L.yaxis) return;
    // a big graph's figure holds only the nodes near the view (lod/graph.js): the graph gives all of them
    const pts = typeof gd.dxPoints === "function" ? gd.dxPoints() : figurePoints(gd);
    const ext = extent(pts);
    const rs = {x: L.xaxis.range.slice(), y: L.yaxis.range.slice()};
    ranges = rs;
    const inView = ranges.x[0] <= ext.x0 && ranges.x[1] >= ext.x1 && ranges.y[0] <= ext.y0 && ranges.y[1] >= ext.y1;
    canvas.hidden = pts.length < 2 || inView;
    if (canvas.hidden) return;
    const pad = 0.6, sz = L._size;
    const aspect = (sz.h / (rs.y[1] - rs.y[0])) / (sz.w / (rs.x[1] - rs.x[0]));
    const mp = mapFor({x0: ext.x0 - pad, x1: ext.x1 + pad, y0: ext.y0 - pad, y1: ext.y1 + pad}, W, H, 4, aspect);
    map = mp;
    const ctx = cssContext(canvas, W, H, ratio);
    ctx.fillStyle = "rgba(255,255,255,0.92)";
    ctx.fillRect(0, 0, W, H);
    for (const sh of L.shapes || []) {  // expanded groups' boxes
      if (sh.type !== "rect" || sh.xref !== "x" || sh.yref !== "y") continue;
      const a = mp.toPx(sh.x0, sh.y1), b = mp.toPx(sh.x1, sh.y0);
      ctx.fillStyle = "rgba(140,149,159,0.15)";
      ctx.fillRect(a[0], a[1], b[0] - a[0], b[1] - a[1]);
    }
    const r = Math.max(1, Math.min(2.5, mp.s * 0.3));
    for (const [x, y, c] of pts) {
      const p = mp.toPx(x, y);
      ctx.fillStyle = typeof c === "string" && c[0] === "#" ? c : "#57606A";
      ctx.fillRect(p[0] - r / 2, p[1] - r / 2, r, r);
    }
    const a = mp.toPx(rs.x[0], rs.y[1]), b = mp.toPx(rs.x[1], rs.y[0]);
    const x0 = Math.max(a[0], 0), y0 = Math.max(a[1], 0), x1 = Math.min(b[0], W), y1 = Math.min(b[1], H);
    ctx.strokeStyle = "#0969DA"; ctx.lineWidth = 1.5;
    ctx.fillStyle = "rgba(9,105,218,0.08)";
    ctx.fillRect(x0, y0, Math.max(x1 - x0, 2), Math.max(y1 - y0, 2));
    ctx.strokeRect(x0 + 0.5, y0 + 0.5, Math.max(x1 - x0 - 1, 2), Math.max(y1 - y0 - 1, 2));
  }
  function moveTo(/** @type {PointerEvent} */ ev) {
    if (!map || !ranges) return;
    const box = canvas.getBoundingClientRect();
    const at = map.toData(ev.clientX - box.left, ev.clientY - box.top);
    relayout(() => centredOn(/** @type {Ranges} */ (ranges), at));  // one relayout at a time, the latest spot wins
  }
  pointerDrag(canvas, moveTo);
  // after plotly's draw, in a task of its own: the page gets a chance to paint between the two
  let queued = false;
  if (gd.on) gd.on("plotly_afterplot", () => {
    if (queued) return;
    queued = true;
    setTimeout(() => { queued = false; draw(); }, 0);
  });
  return {draw};
}

// A zoomed-out graph's many small nodes and their edges as one plotly layout image over `region` ([x0, x1, y0,
// y1] in data units, y up), `w` x `h` px: a few thousand SVG markers cost plotly hundreds of ms a redraw, one
// image a few ms, and plotly pans and zooms it with the axes. dots: [[x, y, colour, radius px]]; lines:
// [[polyline [x0, y0, x1, y1, ...] (y up), colour]]. null where there is no canvas (node).
/**
 * @param {number[]} region @param {number} w @param {number} h @param {[number, number, string, number][]} dots
 * @param {[number[], string][]} lines @returns {Record<string, unknown> | null}
 */
export function dotImage(region, w, h, dots, lines) {
  if (typeof document === "undefined") return null;
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(w)); canvas.height = Math.max(1, Math.round(h));
  const ctx = canvas.getContext("2d");
  if (!ctx) return null;
  const sx = canvas.width / (region[1] - region[0]), sy = canvas.height / (region[3] - region[2]);
  const X = (/** @type {number} */ x) => (x - region[0]) * sx, Y = (/** @type {number} */ y) => (region[3] - y) * sy;
  ctx.lineWidth = 1;
  for (const [pts, color] of lines) {
    ctx.strokeStyle = color;
    ctx.beginPath();
    ctx.moveTo(X(pts[0]), Y(pts[1]));
    for (let k = 2; k < pts.length; k += 2) ctx.lineTo(X(pts[k]), Y(pts[k + 1]));
    ctx.stroke();
  }
  for (const [x, y, color, r] of dots) {
    ctx.fillStyle = color;
    ctx.fillRect(X(x) - r, Y(y) - r, 2 * r, 2 * r);
  }
  return {source: canvas.toDataURL("image/png"), xref: "x", yref: "y", x: region[0], y: region[3],
          sizex: region[1] - region[0], sizey: region[3] - region[2], sizing: "stretch", xanchor: "left", yanchor: "top",
          layer: "below", name: "dots"};
}
