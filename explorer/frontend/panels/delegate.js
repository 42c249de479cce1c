// What runs inside a delegate call: a click on a delegate's diamond opens its subgraph (XNNPACK, decoded by
// explorer.format.backends.xnnpack) in place. The graph below the diamond moves down and the diamond's layer-mates move
// aside to make room; the inside is drawn in the box that opens, its nodes coloured by the device the delegate
// runs on; dashed lines join the outer tensors the call passes to the inner nodes that read them, and the inner
// nodes that write the call's outputs to the outer tensors. A second click on the diamond closes it.
// Data: the plan payload's `companions.delegates` (explorer.views.payload.companions).
import {arr, esc, ptext} from "../util/common.js";

const STEP = 1;  // spacing of inner nodes: the outer graph's own (its layers are 1 apart), so the inside reads alike
const PAD = 1;  // room between the box and its neighbours: a layer, so the first inner node sits clear of the diamond
const EPS = 1e-6;
const CAPTION = 0.35;  // room for the box's caption under its last layer

// the box an expansion opens under the diamond at (x0, y0) and where each inner node goes
/** @typedef {import("../types/payload").DelegateInside} Inside */
/** @typedef {{x0: number, y0: number, W: number, H: number, x: number[], y: number[], bottom: number}} Lay */
/** @typedef {number | null | undefined} Coord */
/** @param {Inside} D @param {number} x0 @param {number} y0 @returns {Lay} */
export function insideLayout(D, x0, y0) {
  const g = D.graph, layers = Math.max(0, ...g.depth) + 1;
  /** @type {Map<number, number>} */
  const perLayer = new Map();
  g.depth.forEach((d) => perLayer.set(d, (perLayer.get(d) || 0) + 1));
  const W = Math.max(1, g.width) * STEP + PAD, H = layers * STEP + PAD + CAPTION;
  const xs = g.depth.map((d, k) => x0 + (g.col[k] - ((perLayer.get(d) || 1) - 1) / 2) * STEP);
  const ys = g.depth.map((d) => y0 - PAD - d * STEP);
  return {x0, y0, W, H, x: xs, y: ys, bottom: y0 - H};
}

// a point of the outer graph after opening expansion `ex`: below the diamond's layer, down by H; the diamond's
// layer-mates, aside by W/2; the diamond itself stays (it heads the box)
/** @param {Coord} x @param {Coord} y @param {Lay} ex @returns {[Coord, Coord]} */
export function movePoint(x, y, ex) {
  if (x === null || y === null || x === undefined || y === undefined) return [x, y];
  if (y < ex.y0 - EPS) return [x, y - ex.H];
  if (Math.abs(y - ex.y0) <= EPS) {
    if (x > ex.x0 + EPS) return [x + ex.W / 2, y];
    if (x < ex.x0 - EPS) return [x - ex.W / 2, y];
  }
  return [x, y];
}

// edge polylines [a, ..., b, null, ...] (a = source, b = target) after `ex`: every point moves as movePoint says,
// and an edge leaving the diamond now leaves from the bottom of its box, so its outputs' edges don't cross the inside
/** @param {Coord[]} xs @param {Coord[]} ys @param {Lay} ex @returns {[Coord[], Coord[]]} */
export function moveSegments(xs, ys, ex) {
  const ox = xs.slice(), oy = ys.slice();
  let start = true;
  for (let k = 0; k < xs.length; k++) {
    const x = xs[k], y = ys[k];
    if (x === null || x === undefined) { start = true; continue; }
    [ox[k], oy[k]] = movePoint(x, y, ex);
    if (start && Math.abs(x - ex.x0) <= EPS && Math.abs(Number(y) - ex.y0) <= EPS) oy[k] = ex.bottom;
    start = false;
  }
  return [ox, oy];
}

/** @param {import("../types/payload").DelegateGraph} g @param {number} id @returns {string} */
function valueLabel(g, id) {
  const k = g.values.id.indexOf(id);
  return k < 0 ? "value " + id : g.values.label[k] + " (" + g.values.kind[k] + ")";
}

// the traces of one open delegate, its inner node positions given; outer positions: "v3" -> [x, y]
/** @param {Inside} D @param {Lay} lay @param {Map<string, Coord[]>} outer @returns {Record<string, unknown>[]} */
export function insideTraces(D, lay, outer) {
  const g = D.graph;
  /** @type {(number | null)[]} */
  const ex = [];
  /** @type {(number | null)[]} */
  const ey = [];
  /** @type {Coord[]} */
  const jx = [];
  /** @type {Coord[]} */
  const jy = [];
  /** @type {Map<number, number>} */
  const producer = new Map();
  g.out.forEach((outs, k) => outs.forEach((v) => producer.set(v, k)));
  g.in.forEach((ins, k) => ins.forEach((v) => {
    const p = producer.get(v);
    if (p !== undefined) { ex.push(lay.x[p], lay.x[k], null); ey.push(lay.y[p], lay.y[k], null); }
  }));
  for (const [vid, value] of g.bindIn) {  // outer tensor -> every inner node reading it
    const at = outer.get("v" + value);
    if (!at) continue;
    g.in.forEach((ins, k) => { if (ins.indexOf(vid) >= 0) { jx.push(at[0], lay.x[k], null); jy.push(at[1], lay.y[k], null); } });
  }
  for (const [vid, value] of g.bindOut) {  // the inner node writing it -> outer tensor
    const at = outer.get("v" + value), k = producer.get(vid);
    if (at && k !== undefined) { jx.push(lay.x[k], at[0], null); jy.push(lay.y[k], at[1], null); }
  }
  const hover = g.op.map((op, k) => "<b>" + ptext(op) + "</b> · " + ptext(D.backend) + " on " + ptext(D.device) +
    "<br>reads " + (g.in[k].map((v) => ptext(valueLabel(g, v))).join(", ") || "-") +
    "<br>writes " + (g.out[k].map((v) => ptext(valueLabel(g, v))).join(", ") || "-"));
  const base = {type: "scatter", cliponaxis: false, showlegend: false};
  return [
    Object.assign({}, base, {name: "inside edges", x: ex, y: ey, mode: "lines", hoverinfo: "skip",
                             line: {color: "#8C959F", width: 1.2}}),
    Object.assign({}, base, {name: "inside joins", x: jx, y: jy, mode: "lines", hoverinfo: "skip",
                             line: {color: D.color, width: 1.2, dash: "dot"}}),
    Object.assign({}, base, {name: "inside " + D.instruction, x: lay.x, y: lay.y, hoverinfo: "text",
                             mode: "markers",  // panels/labels.js places the labels that fit
                             text: g.op.map((op) => ptext(op.replace(/^XNN/, ""))), textposition: "middle right",
                             textfont: {size: 10, color: "#57606A"},
                             hovertext: hover, customdata: g.op.map((_, k) => "d" + D.instruction + ":" + k),
                             marker: {symbol: "square", size: 11, color: D.color, line: {color: "white", width: 1}}}),
  ];
}

// the frame of an open delegate, as a layout shape
/** @param {Inside} D @param {Lay} lay */
export function boxShape(D, lay) {
  return {type: "rect", layer: "below", xref: "x", yref: "y", x0: lay.x0 - lay.W / 2 + 0.1, x1: lay.x0 + lay.W / 2 - 0.1,
          // its top clear of the diamond's label (text centred on the diamond: ~0.3 of a layer below it at a readable scale)
          y0: lay.bottom + 0.1, y1: lay.y0 - 0.4, line: {color: D.color, width: 1.5, dash: "dash"},
          fillcolor: "rgba(246,248,250,0.9)", name: "inside of #" + D.instruction};
}

// the caption of an open delegate's box, on the box's fill: the edge down the box's middle runs under it, not through
// its words
/** @param {Inside} D @param {Lay} lay */
export function boxCaption(D, lay) {
  return {xref: "x", yref: "y", x: lay.x0 - lay.W / 2 + 0.15, y: lay.bottom + 0.15, xanchor: "left", yanchor: "bottom",
          showarrow: false, align: "left", font: {size: 10, color: D.color}, bgcolor: "rgb(246,248,250)", borderpad: 1,
          text: ptext(D.backend) + " · " + ptext(D.device) + " · " + D.graph.op.length + " nodes",
          name: "caption of #" + D.instruction};
}

// inner node k of delegate D, for the details panel
/** @param {Inside} D @param {number} k @returns {string} */
export function innerDetails(D, k) {
  const g = D.graph;
  const list = (/** @type {number[]} */ ids) => "<ul class='dx-list'>" + ids.map((v) => "<li><span class='dx-code'>" + esc(valueLabel(g, v)) +
    "</span> <span class='dx-muted'>value " + v + "</span></li>").join("") + "</ul>";
  return "<div class='dx-root'><h4><span class='dx-code'>" + esc(g.op[k]) + "</span> <span class='dx-muted'>node " + k +
    " inside #" + D.instruction + " " + esc(D.backend) + "</span></h4><table class='dx-kv'>" +
    "<tr><td>runs on</td><td>" + esc(D.device) + "</td></tr><tr><td>reads</td><td>" + list(g.in[k]) + "</td></tr>" +
    "<tr><td>writes</td><td>" + list(g.out[k]) + "</td></tr></table></div>";
}

// The open delegates of one plan, drawn over the graph the app just drew: `P` its payload, `gd` the graph div, `T`
// the trace slots, `host` the app (host.moved() after positions change, host.html(markup) for details). The app
// calls rebase() after every draw of the graph (the groups fold and unfold under it); only a delegate drawn as
// itself (not folded into a group) opens.
// long-function: not split yet: opening, drawing and placing share the open delegates' state (the figure as drawn
// before them: origin, shapes, notes, ranges; the open calls' boxes) in a dozen closure variables.
/** @param {import("../types/payload").DrawnPlan} P @param {any} gd @param {import("../types/payload").TraceIndex} T @param {import("../types/app").LodHost} host */
export function delegateExpander(P, gd, T, host) {
  /** @type {Map<number, Inside>} */
  const D = new Map((P.companions ? P.companions.delegates : []).filter((d) => d.graph).map((d) => [d.instruction, d]));
  /** @type {number[]} */
  const moved = [];  // trace indices whose x/y this module rewrites: the edges, tensors and ops
  for (let t = T.edges; t <= T.ops; t++) moved.push(t);
  let base = 0, perUnit = 0;
  /** @type {Coord[][][]} */
  let origin = [];
  /** @type {any[]} */
  let shapes0 = [];
  /** @type {any[]} */
  let notes0 = [];
  /** @type {number | undefined} */
  let height0;
  /** @type {number[] | undefined} */
  let xr0;
  /** @type {number[] | undefined} */
  let yr0;
  /** @type {number[]} */
  let open = [];
  /** @type {Lay[]} */
  let lays = [];  // the open calls, and their boxes as last drawn (in opening order)

  function rebase() {  // the figure as the app just drew it, before any of ours
    base = gd.data.length;
    origin = moved.map((t) => [arr(gd.data[t].x).slice(), arr(gd.data[t].y).slice()]);
    shapes0 = ((gd.layout || {}).shapes || []).slice();
    notes0 = ((gd.layout || {}).annotations || []).slice();
    height0 = (gd.layout || {}).height;
    const size = gd._fullLayout && gd._fullLayout._size;
    xr0 = ((gd.layout || {}).xaxis || {}).range; yr0 = ((gd.layout || {}).yaxis || {}).range;
    perUnit = size && yr0 ? Math.min(40, size.h / Math.max(1, yr0[1] - yr0[0])) : 0;  // px per layer as drawn
    lays = [];
    open = open.filter((i) => outerPositions(origin).has("i" + i));  // folded away: closed
    if (open.length) draw();
  }

  /** @param {Coord[][][]} xy @returns {Map<string, Coord[]>} */
  function outerPositions(xy) {
    /** @type {Map<string, Coord[]>} */
    const pos = new Map();
    /** @type {[string, number][]} */
    const kinds = [["v", T.tensors], ["i", T.ops]];
    for (const [kind, t] of kinds) {
      const k = moved.indexOf(t), ids = arr(gd.data[t].customdata);
      ids.forEach((/** @type {number} */ id, /** @type {number} */ j) => pos.set(kind + id, [xy[k][0][j], xy[k][1][j]]));
    }
    return pos;
  }

  function draw() {
    let xy = origin.map(([x, y]) => [x.slice(), y.slice()]);
    /** @type {[import("../types/payload").DelegateInside, ReturnType<typeof insideLayout>][]} */
    const boxes = [];  // [delegate, layout], each moved on by the expansions opened after it
    /** @type {Lay[]} */
    const seq = [];  // each layout as it was when it opened: place() replays them in order
    for (const i of open) {
      const at = outerPositions(xy).get("i" + i);
      if (!at) continue;
      const d = D.get(i);
      if (!d) continue;
      const lay = insideLayout(d, Number(at[0]), Number(at[1]));
      seq.push(Object.assign({}, lay));
      xy = xy.map(([x, y], k) => (moved[k] < T.tensors ? moveSegments(x, y, lay)
        : [0, 1].map((c) => x.map((_, j) => movePoint(x[j], y[j], lay)[c]))));  // points: one [x, y] per node
      for (const [, l] of boxes) {
        for (let j = 0; j < l.x.length; j++) [l.x[j], l.y[j]] = /** @type {number[]} */ (movePoint(l.x[j], l.y[j], lay));
        [l.x0, l.y0] = /** @type {number[]} */ (movePoint(l.x0, l.y0, lay));
        l.bottom = Number(movePoint(l.x0, l.bottom, lay)[1]);
      }
      boxes.push([d, lay]);
    }
    lays = seq;
    const Plotly = globalThis.Plotly;
    if (gd.data.length > base) Plotly.deleteTraces(gd, Array.from({length: gd.data.length - base}, (_, k) => base + k));
    Plotly.restyle(gd, {x: xy.map((p) => p[0]), y: xy.map((p) => p[1])}, moved);
    const outer = outerPositions(xy), shapes = shapes0.slice(), annotations = notes0.slice();
    /** @type {Record<string, unknown>[]} */
    const traces = [];
    let grow = 0, left = Infinity, right = -Infinity;
    for (const [d, lay] of boxes) {
      traces.push(...insideTraces(d, lay, outer));
      shapes.push(boxShape(d, lay));
      annotations.push(boxCaption(d, lay));
      grow += lay.H;
      left = Math.min(left, lay.x0 - lay.W / 2); right = Math.max(right, lay.x0 + lay.W / 2);
    }
    if (traces.length) Plotly.addTraces(gd, traces);
    // the figure grows by the room the boxes take, at the scale it was drawn at (so the inside reads like the
    // rest), its top where it was; sideways it widens to show the boxes whole
    /** @type {Record<string, unknown>} */
    const update = {shapes, annotations};
    if (yr0) update["yaxis.range"] = [yr0[0] - grow, yr0[1]];
    if (xr0 && boxes.length) update["xaxis.range"] = [Math.min(xr0[0], left - 0.3), Math.max(xr0[1], right + 0.3)];
    if (height0 && perUnit) update.height = Math.min(4000, Math.round(height0 + grow * perUnit));
    Plotly.relayout(gd, update);
    host.moved();
  }

  return {
    expandable: (/** @type {number} */ i) => D.has(i),
    expanded: () => open.slice(),
    rebase,
    // a point of the graph as the app drew it -> where it is with the open delegates (selection rings, edges)
    place(/** @type {number} */ x, /** @type {number} */ y) {
      /** @type {Coord[]} */
      let p = [x, y];
      for (const lay of lays) p = movePoint(p[0], p[1], lay);
      return p;
    },
    // edge polylines of the graph as the app drew it -> as they run with the open delegates (an edge leaving an
    // open diamond leaves from the bottom of its box, as the drawn edges do)
    placeLines(/** @type {Coord[]} */ xs, /** @type {Coord[]} */ ys) {
      /** @type {Coord[][]} */
      let p = [xs, ys];
      for (const lay of lays) p = moveSegments(p[0], p[1], lay);
      return p;
    },
    // open or close the inside of delegate call i; true when something changed
    toggle(/** @type {number} */ i) {
      if (!D.has(i)) return false;
      open = open.indexOf(i) >= 0 ? open.filter((j) => j !== i) : open.concat([i]);
      draw();
      return true;
    },
    setOpen(/** @type {number[]} */ list) { open = list.filter((i) => D.has(i)); draw(); },
    // a click on one of our traces: details of the inner node; true when it was ours
    click(/** @type {any} */ pt) {
      const id = pt && typeof pt.customdata === "string" ? /^d(\d+):(\d+)$/.exec(pt.customdata) : null;
      if (!id || !D.has(Number(id[1]))) return false;
      host.html(innerDetails(/** @type {Inside} */ (D.get(Number(id[1]))), Number(id[2])));
      return true;
    },
  };
}
