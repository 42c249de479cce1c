// The selection drawn over a plotly figure without redrawing it: an SVG layer on top of the plot, placed with
// the axes' own data -> pixel maps and redrawn after every plotly draw (pan, zoom, resize). Restyling the
// figure's own overlay traces makes plotly recompute and redraw every trace (over a second at 10k nodes);
// this costs a few DOM nodes per selected item.
const NS = "http://www.w3.org/2000/svg";

// ring outline per marker symbol (plotly names), as an SVG path around (0, 0) of radius r
/** @param {string | null | undefined} symbol @param {number} r @returns {string} */
export function ringPath(symbol, r) {
  const s = String(symbol || "circle").replace(/-open$/, "");
  if (s.startsWith("square")) return `M${-r},${-r}H${r}V${r}H${-r}Z`;
  if (s.startsWith("diamond")) return `M0,${-r * 1.3}L${r * 1.3},0L0,${r * 1.3}L${-r * 1.3},0Z`;
  if (s.startsWith("triangle-down")) return `M${-r * 1.2},${-r * 0.8}H${r * 1.2}L0,${r * 1.2}Z`;
  if (s.startsWith("triangle")) return `M${-r * 1.2},${r * 0.8}H${r * 1.2}L0,${-r * 1.2}Z`;
  return `M${r},0A${r},${r} 0 1,1 ${-r},0A${r},${r} 0 1,1 ${r},0Z`;
}

// polylines "x0 x1 ... null x0 x1 ... null" -> an SVG path in pixels: each run of points between nulls is one
// line through all of them (a bent edge keeps its bends; points off the axes' range are still drawn, clipped)
/** @param {(number | null)[]} xs @param {(number | null)[]} ys @param {(v: number) => number} X @param {(v: number) => number} Y
 *  @returns {string} */
export function segmentsPath(xs, ys, X, Y) {
  let d = "", open = false;
  for (let k = 0; k < xs.length; k++) {
    if (xs[k] === null || ys[k] === null || xs[k] === undefined) { open = false; continue; }
    d += `${open ? "L" : "M"}${X(/** @type {number} */ (xs[k])).toFixed(1)},${Y(/** @type {number} */ (ys[k])).toFixed(1)}`;
    open = true;
  }
  return d;
}

/** @param {PlotDiv} gd @param {string} id @returns {PlotAxis} */
function axis(gd, id) { return gd._fullLayout[id.replace(/^x/, "xaxis").replace(/^y/, "yaxis")]; }

/** the plot area of a pair of axes, in px of the figure @param {PlotAxis} xa @param {PlotAxis} ya */
function plotArea(xa, ya) { return {x: xa._offset, y: ya._offset, w: xa._length, h: ya._length}; }

/** a point (px of the figure) inside the plot area of its axes: what is drawn for a node or a mark at all (half a
 * pixel of slack for rounding) @param {PlotAxis} xa @param {PlotAxis} ya @param {number} px @param {number} py */
function inPlot(xa, ya, px, py) {
  const a = plotArea(xa, ya);
  return px >= a.x - 0.5 && px <= a.x + a.w + 0.5 && py >= a.y - 0.5 && py <= a.y + a.h + 0.5;
}

let OVERLAYS = 0;

/** The groups a layer draws into: one per pair of axes (a memory map has a pair per lane), each clipped to its plot
 * area, so a ring, an outline or an edge of a node near the edge stops there instead of running over the legend, a
 * lane's title or the status line under the plot. (A group, not the element itself: a clip path is in the user space
 * of what it clips, which a ring's own translate would move.) Returns the group for a pair.
 * @param {SVGSVGElement} svg @param {string} id @returns {(xa: PlotAxis, ya: PlotAxis) => SVGGElement} */
function plotClips(svg, id) {
  /** @type {Map<string, SVGGElement>} */
  const made = new Map();
  return (xa, ya) => {
    const key = (xa._id || "x") + (ya._id || "y");
    let group = made.get(key);
    if (!group) {
      const cid = id + "-" + key, clip = document.createElementNS(NS, "clipPath"), rect = document.createElementNS(NS, "rect");
      const a = plotArea(xa, ya);
      clip.setAttribute("id", cid);
      rect.setAttribute("x", String(a.x)); rect.setAttribute("y", String(a.y));
      rect.setAttribute("width", String(a.w)); rect.setAttribute("height", String(a.h));
      clip.appendChild(rect);
      svg.appendChild(clip);
      group = /** @type {SVGGElement} */ (document.createElementNS(NS, "g"));
      group.setAttribute("clip-path", "url(#" + cid + ")");
      svg.appendChild(group);
      made.set(key, group);
    }
    return group;
  };
}

// the change rings (marks) of an overlay as circles in px over gd: their centre and outer radius (panels/labels.js keeps
// node labels outside them)
/** @typedef {{x: number, y: number, xaxis?: string, yaxis?: string}} At */
/** @typedef {At & {symbol?: string, r?: number, color?: string, width?: number}} Mark */
/** @typedef {{edges: (({xs: (number | null)[], ys: (number | null)[]}) & {xaxis?: string, yaxis?: string})[], rings: (At & {symbol?: string})[],
 *  rects: {x0: number, x1: number, y0: number, y1: number, xaxis: string, yaxis: string}[], lines: {x: number, xaxis?: string}[],
 *  marks: Mark[], texts: (At & {text: string, color?: string, r?: number})[]}} Items */
/** @param {PlotDiv} gd @param {Mark[]} marks @returns {{x: number, y: number, r: number}[]} */
export function markCircles(gd, marks) {
  if (!gd._fullLayout) return [];
  return marks.map((r) => {
    const xa = axis(gd, r.xaxis || "x"), ya = axis(gd, r.yaxis || "y");
    return {x: xa._offset + xa.l2p(r.x), y: ya._offset + ya.l2p(r.y), r: (r.r || 10) + (r.width || 2.5) / 2 + 1};
  });
}

/** @param {PlotDiv} gd @returns {{set(next: Partial<Items>): void, items(): Items}} */
export function overlay(gd) {
  /** @type {Items} */
  const EMPTY = {edges: [], rings: [], rects: [], lines: [], marks: [], texts: []};
  /** @type {SVGSVGElement | null} */
  let layer = null;
  let items = EMPTY;
  const id = "dx-ov" + (++OVERLAYS);  // its clip paths' ids: unique in the page (a notebook shows many plots)
  function ensure() {
    const host = gd.querySelector(".svg-container");
    if (!host) return null;
    if (!layer || layer.parentNode !== host) {
      layer = document.createElementNS(NS, "svg");
      layer.setAttribute("class", "dx-overlay");
      layer.style.cssText = "position:absolute;left:0;top:0;pointer-events:none;overflow:hidden";
      // above the plot, below plotly's second svg (legend, annotations, hover labels)
      const svgs = host.querySelectorAll(":scope > .main-svg");
      host.insertBefore(layer, svgs.length > 1 ? svgs[1] : null);
    }
    return layer;
  }
  function draw() {
    const svg = ensure(), L = gd._fullLayout;
    if (!svg || !L) return;
    svg.setAttribute("width", String(L.width));
    svg.setAttribute("height", String(L.height));
    svg.textContent = "";
    const clip = plotClips(svg, id);
    /** @param {string} tag @param {Record<string, string | number>} attrs @param {PlotAxis} xa @param {PlotAxis} ya */
    const add = (tag, attrs, xa, ya) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
      clip(xa, ya).appendChild(e);
      return e;
    };
    for (const e of items.edges) {  // {xs, ys, xaxis, yaxis}
      const xa = axis(gd, e.xaxis || "x"), ya = axis(gd, e.yaxis || "y");
      const d = segmentsPath(e.xs, e.ys, (v) => xa._offset + xa.l2p(v), (v) => ya._offset + ya.l2p(v));
      if (d) add("path", {d, class: "dx-edge", fill: "none", stroke: "#000", "stroke-width": 3}, xa, ya);
    }
    for (const r of items.marks) {  // {x, y, symbol, r, color, width}: coloured rings under the selection (a diff's changes)
      const xa = axis(gd, r.xaxis || "x"), ya = axis(gd, r.yaxis || "y");
      const px = xa._offset + xa.l2p(r.x), py = ya._offset + ya.l2p(r.y);
      if (!inPlot(xa, ya, px, py)) continue;
      add("path", {d: ringPath(r.symbol, r.r || 10), transform: `translate(${px.toFixed(1)},${py.toFixed(1)})`, class: "dx-mark",
                   fill: "none", stroke: r.color || "#000", "stroke-width": r.width || 2.5}, xa, ya);
    }
    for (const t of items.texts) {  // {x, y, text, color, r}: a short badge left of a node of radius r (plain text, never markup)
      const xa = axis(gd, t.xaxis || "x"), ya = axis(gd, t.yaxis || "y");
      const px = xa._offset + xa.l2p(t.x), py = ya._offset + ya.l2p(t.y);
      if (!inPlot(xa, ya, px, py)) continue;
      add("text", {x: (px - (t.r || 10) - 4).toFixed(1), y: (py + 4).toFixed(1), class: "dx-mark-text", "text-anchor": "end",
                   "font-size": 11, "font-weight": 700, fill: t.color || "#000", stroke: "#fff", "stroke-width": 3,
                   "paint-order": "stroke"}, xa, ya).textContent = t.text;
    }
    for (const r of items.rings) {  // {x, y, symbol, xaxis, yaxis}
      const xa = axis(gd, r.xaxis || "x"), ya = axis(gd, r.yaxis || "y");
      const px = xa._offset + xa.l2p(r.x), py = ya._offset + ya.l2p(r.y);
      if (!inPlot(xa, ya, px, py)) continue;
      add("path", {d: ringPath(r.symbol, 12), transform: `translate(${px.toFixed(1)},${py.toFixed(1)})`, class: "dx-ring",
                   fill: "none", stroke: "#000", "stroke-width": 2.5}, xa, ya);
    }
    for (const b of items.rects) {  // {x0, x1, y0, y1, xaxis, yaxis} in data units
      const xa = axis(gd, b.xaxis), ya = axis(gd, b.yaxis);
      if (!xa || !ya) continue;
      const X0 = xa._offset + xa.l2p(b.x0), X1 = xa._offset + xa.l2p(b.x1);
      const Y0 = ya._offset + ya.l2p(b.y1), Y1 = ya._offset + ya.l2p(b.y0);
      add("rect", {x: Math.min(X0, X1).toFixed(1), y: Math.min(Y0, Y1).toFixed(1), class: "dx-outline",
                   width: Math.max(Math.abs(X1 - X0), 3).toFixed(1), height: Math.max(Math.abs(Y1 - Y0), 3).toFixed(1),
                   fill: "none", stroke: "#000", "stroke-width": 3}, xa, ya);
    }
    // the whole plot's height (every lane of a memory map), as a y axis for the clip
    const tall = /** @type {PlotAxis} */ ({_id: "y-all", _offset: L._size.t, _length: L._size.h});
    for (const l of items.lines) {  // {x, xaxis}: a vertical line over the whole plot
      const xa = axis(gd, l.xaxis || "x"), px = xa._offset + xa.l2p(l.x), s = L._size;
      if (px < xa._offset - 0.5 || px > xa._offset + xa._length + 0.5) continue;
      add("line", {x1: px, x2: px, y1: s.t, y2: s.t + s.h, class: "dx-line", stroke: "#000", "stroke-width": 2}, xa, tall);
    }
  }
  let listening = false;
  function listen() {  // plotly adds .on to a div when it first draws in it: an overlay may be made before that
    if (listening || !gd.on) return;
    gd.on("plotly_afterplot", draw);
    listening = true;
  }
  listen();
  const api = {
    set(/** @type {Partial<Items>} */ next) { items = Object.assign({}, EMPTY, next); listen(); draw(); },
    items: () => items,
  };
  gd.dxOverlay = api;
  return api;
}

/** Scrolls the page, smoothly and as little as it takes, until the first selection outline drawn over gd (a memory
 * block) is in view, when it is not: where the memory map sits under the graph, a click on a node shows its block.
 * (style.css gives the outline a scroll margin: it does not stop at the window's very edge.) @param {PlotDiv} gd */
export function revealOutline(gd) {
  const box = gd.querySelector(".dx-overlay .dx-outline");
  if (!box) return;
  const r = box.getBoundingClientRect();
  if (r.top >= 0 && r.bottom <= globalThis.innerHeight) return;
  box.scrollIntoView({block: "nearest", behavior: "smooth"});
}
