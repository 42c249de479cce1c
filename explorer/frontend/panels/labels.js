// Node labels of a graph figure, placed so that none overlaps another label or any node's marker at the zoom
// they are shown at. Plotly draws every point's text wherever it falls (and at 10k nodes a restyle of the text
// redraws every trace), so the figures draw markers only and keep their labels in each marker trace's `text`;
// this layer reads them, places them in pixels after every plotly draw (pan, zoom, resize, expand) and draws
// the ones that fit as SVG text above the plot. A label that does not fit beside its node in full tries its
// other sides, then an abbreviation; otherwise it is hidden until a zoom makes room. Hover still tells all.
const NS = "http://www.w3.org/2000/svg";
const GAP = 3;  // px between a marker and its label
const PAD = 1.5;  // px kept free around every label box
const EDGE = 4;  // px kept free between a label and the plot area's edges (a label flush with the edge reads as cut)
const MAX_DRAWN = 600;  // labels drawn at most (DOM size); the rest wait for a zoom
// a view of at most this many labelled nodes (a plan of <= 100 nodes, or a zoom into a bigger one) shows every label:
// one that finds no room beside its node goes further out with a leader line before it is shortened or hidden. At
// that size the plot has room for all of them and a reader expects to read every name; past it, labels hidden until
// a zoom are the price of seeing the whole graph.
const EVERY_MAX = 100;
/** @type {Record<string, string[]>} */
const SIDES = {right: ["right", "left", "below", "above"], left: ["left", "right", "above", "below"]};

// plotly pseudo-HTML (our own: escaped names, <b>, coloured <span>s) -> [[text, colour or null], ...]
/** @typedef {[string, string | null][]} Parts */
/** @typedef {number[]} Box [x0, y0, x1, y1] px */
/** @typedef {{x: number, y: number, r: number, parts: Parts, prio: number, side: string, size: number, color: string,
 *  id: string, abbrev?: number}} Item */
/** @typedef {{x: number, y: number, r: number, id?: string}} Marker */
/** @param {string} s @returns {Parts} */
export function parseParts(s) {
  /** @type {Parts} */
  const out = [];
  const re = /<span style='color:(#[0-9A-Fa-f]{3,8})'>(.*?)<\/span>/g;
  const plain = (/** @type {string} */ t) => t.replace(/<[^>]*>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  let at = 0, m;
  while ((m = re.exec(s)) !== null) {
    if (m.index > at) out.push([plain(s.slice(at, m.index)), null]);
    out.push([plain(m[2]), m[1]]);
    at = m.index + m[0].length;
  }
  if (at < s.length) out.push([plain(s.slice(at)), null]);
  const trimmed = out.map((p) => /** @type {[string, string | null]} */ ([p[0], p[1]])).filter((p) => p[0].length);
  if (trimmed.length) {  // the old figures padded labels with en spaces; the layer keeps its own gap
    trimmed[0][0] = trimmed[0][0].replace(/^[\s\u2002]+/, "");
    const last = trimmed[trimmed.length - 1];
    last[0] = last[0].replace(/[\s\u2002]+$/, "");
  }
  return trimmed.filter((p) => p[0].length);
}

// the abbreviation tried when the full label does not fit: the first part (the name) cut to `k` characters
/** @param {Parts} parts @param {number} k @returns {Parts | null} */
export function abbreviate(parts, k) {
  if (!parts.length) return parts;
  const name = parts[0][0].replace(/\s{2,}.*$/, "");
  if (name.length <= k && parts.length === 1) return null;  // nothing shorter to try
  return [[name.length <= k ? name : name.slice(0, k - 1) + "\u2026", parts[0][1]]];
}

/** @param {string} side @param {number} x @param {number} y @param {number} r @param {number} w @param {number} h
 *  @returns {Box} */
function boxAt(side, x, y, r, w, h) {
  if (side === "right") return [x + r + GAP, y - h / 2, x + r + GAP + w, y + h / 2];
  if (side === "left") return [x - r - GAP - w, y - h / 2, x - r - GAP, y + h / 2];
  if (side === "above") return [x - w / 2, y - r - GAP - h, x + w / 2, y - r - GAP];
  return [x - w / 2, y + r + GAP, x + w / 2, y + r + GAP + h];
}

/** @param {Box} a @param {Box} b */
function hits(a, b) { return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]; }

// a uniform grid of boxes: which stored box a query box hits
/** @param {number} cell @returns {{add(b: Box, owner: unknown): void, free(b: Box, owner: unknown): boolean}} */
function grid(cell) {
  /** @type {Map<number, number[]>} */
  const cells = new Map();
  /** @type {[Box, unknown][]} */
  const boxes = [];
  /** @param {Box} b @param {(k: number) => void} f */
  function keys(b, f) {
    for (let i = Math.floor(b[0] / cell); i <= Math.floor(b[2] / cell); i++)
      for (let j = Math.floor(b[1] / cell); j <= Math.floor(b[3] / cell); j++) f(i * 100003 + j);
  }
  return {
    add(/** @type {Box} */ b, /** @type {unknown} */ owner) {
      const id = boxes.length;
      boxes.push([b, owner]);
      keys(b, (k) => { let c = cells.get(k); if (!c) cells.set(k, c = []); c.push(id); });
    },
    free(/** @type {Box} */ b, /** @type {unknown} */ owner) {
      let ok = true;
      keys(b, (k) => {
        if (!ok) return;
        for (const id of cells.get(k) || []) {
          const e = boxes[id];
          if (e[1] !== owner && hits(b, e[0])) { ok = false; return; }
        }
      });
      return ok;
    },
  };
}

/** does the segment [x0, y0, x1, y1] cross the box (Liang-Barsky clipping)? @param {number[]} sg @param {Box} b */
export function crosses(sg, b) {
  const dx = sg[2] - sg[0], dy = sg[3] - sg[1];
  let t0 = 0, t1 = 1;
  const p = [-dx, dx, -dy, dy], q = [sg[0] - b[0], b[2] - sg[0], sg[1] - b[1], b[3] - sg[1]];
  for (let k = 0; k < 4; k++) {
    if (p[k] === 0) { if (q[k] < 0) return false; continue; }
    const t = q[k] / p[k];
    if (p[k] < 0) { if (t > t1) return false; if (t > t0) t0 = t; }
    else { if (t < t0) return false; if (t < t1) t1 = t; }
  }
  return t0 < t1;
}

// the edges' segments in a uniform grid: whether a box is clear of every one
/** @param {number[][]} segs [x0, y0, x1, y1] px @returns {(b: Box) => boolean} */
function edgeGrid(segs) {
  const cell = 32, cells = /** @type {Map<number, number[]>} */ (new Map());
  segs.forEach((sg, id) => {
    // a long segment is kept in every cell of its box: cheap for the few long edges of a small plan
    const x0 = Math.floor(Math.min(sg[0], sg[2]) / cell), x1 = Math.floor(Math.max(sg[0], sg[2]) / cell);
    const y0 = Math.floor(Math.min(sg[1], sg[3]) / cell), y1 = Math.floor(Math.max(sg[1], sg[3]) / cell);
    if ((x1 - x0 + 1) * (y1 - y0 + 1) > 4096) return;  // off the plot by far: never near a label
    for (let i = x0; i <= x1; i++) for (let j = y0; j <= y1; j++) {
      const k = i * 100003 + j;
      let c = cells.get(k); if (!c) cells.set(k, c = []); c.push(id);
    }
  });
  return (b) => {
    for (let i = Math.floor(b[0] / cell); i <= Math.floor(b[2] / cell); i++)
      for (let j = Math.floor(b[1] / cell); j <= Math.floor(b[3] / cell); j++)
        for (const id of cells.get(i * 100003 + j) || []) if (crosses(segs[id], b)) return false;
    return true;
  };
}

// Where a label may go, nearest first: beside its node (its preferred side, then the others); in `every` mode (a
// small plan: every label shown) then further out in rings, joined to its node by a leader line. Rings of 7 px up
// to 84 px out, 16 directions: a label of a small plan finds a free place within a few rows of its node.
const RING_STEP = 7, RINGS = 12, ANGLES = 16;
/** the boxes beside an item's node, nearest first @param {Item} it @param {number} w @param {number} h @returns {Box[]} */
function nearBoxes(it, w, h) {
  return (SIDES[it.side] || SIDES.right).map((side) => boxAt(side, it.x, it.y, it.r, w, h));
}
/** boxes in rings around the node, the gap growing RING_STEP px a ring @param {Item} it @param {number} w @param {number} h */
function farBoxes(it, w, h) {
  const out = /** @type {Box[]} */ ([]);
  for (let ring = 1; ring <= RINGS; ring++) {
    const d = it.r + GAP + ring * RING_STEP;
    for (let a = 0; a < ANGLES; a++) {
      const t = (a / ANGLES) * 2 * Math.PI, c = Math.cos(t), s = Math.sin(t);
      // the box's nearest point to the node at distance d along the angle
      const cx = it.x + c * d + (c >= 0 ? w / 2 : -w / 2) * Math.min(1, Math.abs(c) * 2);
      const cy = it.y + s * d + (s >= 0 ? h / 2 : -h / 2) * Math.min(1, Math.abs(s) * 2);
      out.push([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]);
    }
  }
  return out;
}
/** the leader from a node's marker to its label's box: [x0, y0, x1, y1] px @param {Item} it @param {Box} b */
function leaderTo(it, b) {
  const px = Math.max(b[0], Math.min(it.x, b[2])), py = Math.max(b[1], Math.min(it.y, b[3]));
  const dx = px - it.x, dy = py - it.y, len = Math.hypot(dx, dy) || 1;
  return [it.x + dx / len * it.r, it.y + dy / len * it.r, px, py];
}

// items: [{x, y (px), r (marker half-size, px), parts, prio, side: "right"|"left", size (font px), id}]
// markers: [{x, y, r}] every drawn marker (labelled or not); area: [x0, y0, x1, y1] the plot in px;
// measure(text, size) -> width in px. Returns the labels to draw: [{item, parts, box, leader?}], never overlapping
// one another or a marker other than their own, and inside the area. opts.segments: the edges drawn, [x0, y0, x1,
// y1] px: a label is placed clear of them where it can be (else over them, as before: the halo keeps it legible);
// opts.edge: px a label keeps clear of the area's edges (a node nearer the edge still has its label, placed inward);
// opts.every: every label must show (a small plan): before an abbreviation or a label over an edge, a place further
// out joined to its node by a leader line.
/**
 * @param {Item[]} items @param {Marker[]} markers @param {Box} area @param {(text: string, size: number) => number} measure
 * @param {number} [limit] @param {Box[]} [avoid] @param {{segments?: number[][], every?: boolean, edge?: number}} [opts]
 * @returns {{item: Item, parts: Parts, box: Box, leader?: number[]}[]}
 */
export function placeLabels(items, markers, area, measure, limit = MAX_DRAWN, avoid = [], opts = {}) {
  const obstacles = grid(32), placed = grid(32), clear = edgeGrid(opts.segments || []);
  /** @type {{item: Item, parts: Parts, box: Box, leader?: number[]}[]} */
  const out = [];
  avoid.forEach((b) => obstacles.add(b, "avoid"));  // boxes over the plot (the minimap): no label under them
  // a marker's box is its symbol's bounding box (a diamond's corners are empty): half a PAD around it is enough
  const mp = PAD / 2;
  markers.forEach((mk, k) => obstacles.add([mk.x - mk.r - mp, mk.y - mk.r - mp, mk.x + mk.r + mp, mk.y + mk.r + mp], mk.id === undefined ? "m" + k : mk.id));
  const order = items.map((_, k) => k).filter((k) => {
    const it = items[k];
    return it.parts.length && it.x >= area[0] && it.x <= area[2] && it.y >= area[1] && it.y <= area[3];
  });
  order.sort((a, b) => items[b].prio - items[a].prio || items[a].y - items[b].y || items[a].x - items[b].x);
  const e = opts.edge || 0, inside = (/** @type {Box} */ b) => b[0] >= area[0] + e && b[2] <= area[2] - e && b[1] >= area[1] + e && b[3] <= area[3] - e;
  // markers are stored padded already (half a PAD); two PADs between labels
  /** @param {Item} it @param {Box} b */
  const free = (it, b) => inside(b) && obstacles.free(b, it.id) && placed.free([b[0] - PAD, b[1] - PAD, b[2] + PAD, b[3] + PAD], null);
  // a leader crosses no label placed and no marker but its own; a marker counts as the box inside its symbol (a
  // triangle's or a diamond's corners are empty: a leader may pass by them)
  /** @param {Item} it @param {number[]} ld */
  const leaderFree = (it, ld) => markers.every((mk) => {
    const r = mk.r * 0.6;
    return mk.id === it.id || !crosses(ld, [mk.x - r, mk.y - r, mk.x + r, mk.y + r]);
  }) && out.every((o) => !crosses(ld, o.box));
  for (const k of order) {
    if (out.length >= limit) break;
    const it = items[k], h = Math.ceil(it.size * 1.3), variants = [it.parts];
    for (const k of [it.abbrev || 12, 7]) {  // shorter and shorter before hiding
      const short = abbreviate(it.parts, k);
      if (short && !variants.some((v) => v.length === 1 && v[0][0] === short[0][0])) variants.push(short);
    }
    const got = placeOne(it, variants, h, measure, free, clear, opts.every ? leaderFree : null);
    if (!got) continue;
    placed.add(got.box, k);
    out.push(Object.assign({item: it}, got));
  }
  return out;
}

/** an item's place, for each variant of its text (full, then shorter): beside its node clear of edges, else (every
 * label shown: `leaderFree`) further out clear of edges with a leader, else (not in every mode) beside its node over
 * edges; in every mode a place over edges is the last resort, after every variant was tried clear of them
 * @param {Item} it @param {Parts[]} variants @param {number} h @param {(text: string, size: number) => number} measure
 * @param {(it: Item, b: Box) => boolean} free @param {(b: Box) => boolean} clear
 * @param {((it: Item, ld: number[]) => boolean) | null} leaderFree
 * @returns {{parts: Parts, box: Box, leader?: number[]} | null} */
function placeOne(it, variants, h, measure, free, clear, leaderFree) {
  const width = (/** @type {Parts} */ parts) => measure(parts.map((p) => p[0]).join(""), it.size);
  /** @param {Parts} parts @param {boolean} overEdges */
  const beside = (parts, overEdges) => {
    const box = nearBoxes(it, width(parts), h).find((b) => free(it, b) && (overEdges || clear(b)));
    return box ? {parts, box} : null;
  };
  for (const parts of variants) {
    const near = beside(parts, false) || (leaderFree ? null : beside(parts, true));
    if (near) return near;
    if (!leaderFree) continue;
    const w = width(parts);
    for (const b of farBoxes(it, w, h)) {
      if (!free(it, b) || !clear(b)) continue;
      const ld = leaderTo(it, b);
      if (leaderFree(it, ld)) return {parts, box: b, leader: ld};
    }
  }
  if (leaderFree) for (const parts of variants) { const near = beside(parts, true); if (near) return near; }
  return null;
}

// Per trace name: the label's priority (a group's title wins over its members) and default side.
/** @type {Record<string, number>} */
const PRIORITY = {expanded: 5, groups: 4, ops: 2, tensors: 1};

/** @param {any} L @param {string | undefined} id @returns {PlotAxis | undefined} */
function axisOf(L, id) { return L[(id || "x").replace(/^x/, "xaxis").replace(/^y/, "yaxis")]; }
/** @param {unknown} v @returns {v is number} */
function num(v) { return typeof v === "number" && isFinite(v); }
/** @param {any} a @param {number} k @param {any} dflt @returns {any} */
function at(a, k, dflt) {
  if (a && typeof a === "object" && a.length !== undefined) return a[k] === undefined ? dflt : a[k];
  return a === undefined ? dflt : a;
}

// The labelled and the obstacle points of a figure as drawn: every visible marker trace is an obstacle; those
// with a `text` per point (and plotly told not to draw it) are labelled. Pixels from the axes' own maps.
// rings: [{x, y, r}] circles in px drawn around some nodes (a diff's change rings, panels/rings.js): a node with a
// ring counts as big as its ring, so its label sits beside the ring instead of under it
/**
 * @param {PlotDiv & {_fullData?: any[]}} gd @param {(a: any) => any[]} arrOf @param {{x: number, y: number, r: number}[]} [rings]
 * @returns {{items: Item[], markers: Marker[], segments: number[][]}}
 */
export function collect(gd, arrOf, rings) {
  const L = gd._fullLayout;
  /** @type {Item[]} */
  const items = [];
  /** @type {Marker[]} */
  const markers = [];
  /** @type {number[][]} */
  const segments = [];
  const ringAt = new Map((rings || []).map((c) => [Math.round(c.x) + ":" + Math.round(c.y), c.r]));
  (gd._fullData || []).forEach((/** @type {any} */ t, /** @type {number} */ q) => {
    if (t.visible !== true || t.type !== "scatter") return;
    const xa = axisOf(L, t.xaxis), ya = axisOf(L, t.yaxis);
    if (!xa || !ya) return;
    const src = (gd.data || [])[t.index] || {}, xs = arrOf(src.x), ys = arrOf(src.y);
    if (!/markers/.test(t.mode || "")) {  // the edges: polylines, null between
      if (/lines/.test(t.mode || "")) lineSegments(xs, ys, (x) => xa._offset + xa.l2p(x), (y) => ya._offset + ya.l2p(y), segments);
      return;
    }
    const texts = /text/.test(t.mode) ? null : arrOf(src.text);
    const mk = t.marker || {}, name = String(t.name || "");
    const prio = PRIORITY[name] !== undefined ? PRIORITY[name] : name.startsWith("inside") ? 2 : 1;
    const side = /left/.test(at(t.textposition, 0, "")) ? "left" : "right";
    const size = (t.textfont && num(t.textfont.size)) ? t.textfont.size : 10;
    const color = (t.textfont && typeof t.textfont.color === "string") ? t.textfont.color : "#1F2328";
    for (let k = 0; k < xs.length; k++) {
      if (!num(xs[k]) || !num(ys[k])) continue;
      const px = xa._offset + xa.l2p(xs[k]), py = ya._offset + ya.l2p(ys[k]);
      const sym = String(at(mk.symbol, k, "circle"));
      const s = at(mk.size, k, 6), wide = /wide/.test(sym) ? 1.6 : /diamond|triangle|hexagon/.test(sym) ? 1.25 : 1;
      const ring = ringAt.get(Math.round(px) + ":" + Math.round(py));
      const r = Math.max(s / 2 * wide + at((mk.line || {}).width, k, 0) / 2, ring === undefined ? 0 : ring);
      const id = q + ":" + k;
      markers.push({x: px, y: py, r, id});
      if (texts && texts[k]) items.push({x: px, y: py, r, parts: parseParts(String(texts[k])), prio, side, size, color, id,
                                         abbrev: name === "groups" || name === "expanded" ? 16 : 12});
    }
  });
  return {items, markers, segments};
}

/** a polyline trace's segments in px (a null or non-number breaks it) into `out`
 * @param {any[]} xs @param {any[]} ys @param {(x: number) => number} px @param {(y: number) => number} py @param {number[][]} out */
function lineSegments(xs, ys, px, py, out) {
  for (let k = 1; k < xs.length; k++) {
    if (num(xs[k - 1]) && num(ys[k - 1]) && num(xs[k]) && num(ys[k])) out.push([px(xs[k - 1]), py(ys[k - 1]), px(xs[k]), py(ys[k])]);
  }
}

/** @type {HTMLCanvasElement | null} */
let canvas = null;
/** @type {Map<string, number>} */
const widths = new Map();
/** @param {string} family @returns {(text: string, size: number) => number} */
function measureWith(family) {
  return (text, size) => {
    const key = size + "|" + text;
    let w = widths.get(key);
    if (w === undefined) {
      canvas = canvas || document.createElement("canvas");
      const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
      ctx.font = size + "px " + family;
      w = Math.ceil(ctx.measureText(text).width) + 1;
      widths.set(key, w);
    }
    return w;
  };
}

/** a label's leader line, from its node's marker to its box @param {number[]} ld */
function leaderLine(ld) {
  const line = document.createElementNS(NS, "line");
  line.setAttribute("x1", ld[0].toFixed(1)); line.setAttribute("y1", ld[1].toFixed(1));
  line.setAttribute("x2", ld[2].toFixed(1)); line.setAttribute("y2", ld[3].toFixed(1));
  line.setAttribute("class", "dx-leader");
  return line;
}

// The layer over one graph div: redrawn after every plotly draw, moved along while a pan drags the plot.
// avoid(): [x0, y0, x1, y1] boxes in the div's pixels that labels keep clear of (what floats over the plot).
// avoid(): boxes over the plot no label may go under (px); rings(): circles around nodes (collect)
/**
 * @param {PlotDiv & {_fullData?: any[]}} gd @param {(a: any) => any[]} arrOf @param {() => Box[]} [avoid]
 * @param {() => {x: number, y: number, r: number}[]} [rings] @returns {{draw(): void}}
 */
export function labelLayer(gd, arrOf, avoid, rings) {
  /** @type {SVGSVGElement | null} */
  let layer = null;
  /** @type {SVGGElement | null} */
  let group = null;
  /** @type {{x: number[], y: number[], sx: number, sy: number} | null} */
  let drawnAt = null;
  function ensure() {
    const host = gd.querySelector(".svg-container");
    if (!host) return null;
    if (!layer || layer.parentNode !== host) {
      layer = document.createElementNS(NS, "svg");
      layer.setAttribute("class", "dx-labels");
      layer.style.cssText = "position:absolute;left:0;top:0;pointer-events:none;overflow:hidden";
      const svgs = host.querySelectorAll(":scope > .main-svg");
      host.insertBefore(layer, svgs.length > 1 ? svgs[1] : null);  // above the plot, below hover labels
    }
    return layer;
  }
  function draw() {
    const svg = ensure(), L = gd._fullLayout;
    if (!svg || !L || !L._size) return;
    const s = L._size, area = [s.l, s.t, s.l + s.w, s.t + s.h];
    svg.setAttribute("width", String(L.width));
    svg.setAttribute("height", String(L.height));
    svg.textContent = "";
    const clip = document.createElementNS(NS, "clipPath"), rect = document.createElementNS(NS, "rect");
    const cid = "dx-lbl-clip-" + (gd.id || (gd.id = "dx" + Math.random().toString(36).slice(2, 9)));
    clip.setAttribute("id", cid);
    rect.setAttribute("x", String(s.l)); rect.setAttribute("y", String(s.t)); rect.setAttribute("width", String(s.w)); rect.setAttribute("height", String(s.h));
    clip.appendChild(rect);
    svg.appendChild(clip);
    const outer = document.createElementNS(NS, "g");
    outer.setAttribute("clip-path", "url(#" + cid + ")");
    const g = document.createElementNS(NS, "g");
    group = g;
    outer.appendChild(g);
    svg.appendChild(outer);
    const {items, markers, segments} = collect(gd, arrOf, rings ? rings() : []);
    const family = (L.font && L.font.family) || "sans-serif";
    const every = items.length <= EVERY_MAX;
    for (const lb of placeLabels(items, markers, area, measureWith(family), MAX_DRAWN, avoid ? avoid() : [], {segments, every, edge: EDGE})) {
      if (lb.leader) g.appendChild(leaderLine(lb.leader));
      const t = document.createElementNS(NS, "text"), b = lb.box;
      t.setAttribute("x", b[0].toFixed(1));
      t.setAttribute("y", ((b[1] + b[3]) / 2).toFixed(1));
      t.setAttribute("dominant-baseline", "central");
      t.setAttribute("class", "dx-label");
      t.setAttribute("font-size", String(lb.item.size));
      t.setAttribute("font-family", family);
      t.setAttribute("fill", lb.item.color);
      for (const [text, color] of lb.parts) {
        const span = document.createElementNS(NS, "tspan");
        span.textContent = text;  // names are data: text, never markup
        if (color) span.setAttribute("fill", color);
        t.appendChild(span);
      }
      g.appendChild(t);
    }
    const xa = L.xaxis, ya = L.yaxis;
    drawnAt = xa && ya ? {x: xa.range.slice(), y: ya.range.slice(), sx: s.w / (xa.range[1] - xa.range[0]),
                          sy: s.h / (ya.range[1] - ya.range[0])} : null;
    // how many times the labels were placed: the browser tests wait for it to move after what they did
    gd.dataset.labels = String(Number(gd.dataset.labels || 0) + 1);
  }
  function dragging(/** @type {any} */ ev) {  // follow a pan; hide during a zoom (redrawn when it ends)
    const g = group, drawn = drawnAt;
    if (!g || !drawn || !ev) return;
    const r = (/** @type {string} */ ax, /** @type {number} */ k) => ev[ax + ".range[" + k + "]"] !== undefined ? ev[ax + ".range[" + k + "]"]
      : ev[ax + ".range"] ? ev[ax + ".range"][k] : drawn[ax === "xaxis" ? "x" : "y"][k];
    const x0 = r("xaxis", 0), x1 = r("xaxis", 1), y0 = r("yaxis", 0), y1 = r("yaxis", 1);
    const same = (/** @type {number} */ a, /** @type {number} */ b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
    if (!same(x1 - x0, drawn.x[1] - drawn.x[0]) || !same(y1 - y0, drawn.y[1] - drawn.y[0])) {
      g.style.display = "none";
      return;
    }
    const dx = (drawn.x[0] - x0) * drawn.sx, dy = (y0 - drawn.y[0]) * drawn.sy;
    g.setAttribute("transform", "translate(" + dx.toFixed(1) + "," + dy.toFixed(1) + ")");
  }
  // placed after plotly's draw in a task of their own (a draw and its labels in one task could block the page for
  // longer than either); several draws in a row place them once
  let queued = false;
  if (gd.on) {
    gd.on("plotly_afterplot", () => {
      if (queued) return;
      queued = true;
      setTimeout(() => { queued = false; draw(); }, 0);
    });
    gd.on("plotly_relayouting", dragging);
  }
  return {draw};
}
