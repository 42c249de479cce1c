// What runs inside a delegate call: a click on a delegate's diamond opens its subgraph (XNNPACK, decoded by
// explorer.format.xnnpack) in place. The graph below the diamond moves down and the diamond's layer-mates move
// aside to make room; the inside is drawn in the box that opens, its nodes coloured by the device the delegate
// runs on; dashed lines join the outer tensors the call passes to the inner nodes that read them, and the inner
// nodes that write the call's outputs to the outer tensors. A second click on the diamond closes it.
// Data: the plan payload's `companions.delegates` (explorer.views.companions_view). A full-detail plan only.
import {arr, esc, ptext} from "./util.js";

const STEP = 0.8;  // spacing of inner nodes, in the outer graph's units (its layers are 1 apart)
const PAD = 0.6;  // room between the box and its neighbours
const EPS = 1e-6;
const CAPTION = 0.35;  // room for the box's caption under its last layer

// the box an expansion opens under the diamond at (x0, y0) and where each inner node goes
export function insideLayout(D, x0, y0) {
  const g = D.graph, layers = Math.max(0, ...g.depth) + 1;
  const perLayer = new Map();
  g.depth.forEach((d) => perLayer.set(d, (perLayer.get(d) || 0) + 1));
  const W = Math.max(1, g.width) * STEP + PAD, H = layers * STEP + PAD + CAPTION;
  const xs = g.depth.map((d, k) => x0 + (g.col[k] - ((perLayer.get(d) || 1) - 1) / 2) * STEP);
  const ys = g.depth.map((d) => y0 - PAD - d * STEP);
  return {x0, y0, W, H, x: xs, y: ys, bottom: y0 - H};
}

// a point of the outer graph after opening expansion `ex`: below the diamond's layer, down by H; the diamond's
// layer-mates, aside by W/2; the diamond itself stays (it heads the box)
export function movePoint(x, y, ex) {
  if (x === null || y === null || x === undefined || y === undefined) return [x, y];
  if (y < ex.y0 - EPS) return [x, y - ex.H];
  if (Math.abs(y - ex.y0) <= EPS) {
    if (x > ex.x0 + EPS) return [x + ex.W / 2, y];
    if (x < ex.x0 - EPS) return [x - ex.W / 2, y];
  }
  return [x, y];
}

// edge segments [a, b, null, ...] (a = source, b = target) after `ex`: an edge leaving the diamond now leaves
// from the bottom of its box, so its outputs' edges don't cross the inside
export function moveSegments(xs, ys, ex) {
  const ox = xs.slice(), oy = ys.slice();
  for (let k = 0; k + 1 < xs.length; k += 3) {
    for (const j of [k, k + 1]) [ox[j], oy[j]] = movePoint(xs[j], ys[j], ex);
    const fromDiamond = Math.abs(xs[k] - ex.x0) <= EPS && Math.abs(ys[k] - ex.y0) <= EPS;
    if (fromDiamond) oy[k] = ex.bottom;
  }
  return [ox, oy];
}

function valueLabel(g, id) {
  const k = g.values.id.indexOf(id);
  return k < 0 ? "value " + id : g.values.label[k] + " (" + g.values.kind[k] + ")";
}

// the traces of one open delegate, its inner node positions given; outer positions: "v3" -> [x, y]
export function insideTraces(D, lay, outer) {
  const g = D.graph, ex = [], ey = [], jx = [], jy = [];
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
                             mode: "markers",  // labels.js places the labels that fit
                             text: g.op.map((op) => ptext(op.replace(/^XNN/, ""))), textposition: "middle right",
                             textfont: {size: 10, color: "#57606A"},
                             hovertext: hover, customdata: g.op.map((_, k) => "d" + D.instruction + ":" + k),
                             marker: {symbol: "square", size: 11, color: D.color, line: {color: "white", width: 1}}}),
  ];
}

// the frame of an open delegate, as a layout shape
export function boxShape(D, lay) {
  return {type: "rect", layer: "below", xref: "x", yref: "y", x0: lay.x0 - lay.W / 2 + 0.1, x1: lay.x0 + lay.W / 2 - 0.1,
          y0: lay.bottom + 0.1, y1: lay.y0 - 0.15, line: {color: D.color, width: 1.5, dash: "dash"},
          fillcolor: "rgba(246,248,250,0.9)", name: "inside of #" + D.instruction};
}

// the caption of an open delegate's box
export function boxCaption(D, lay) {
  return {xref: "x", yref: "y", x: lay.x0 - lay.W / 2 + 0.15, y: lay.bottom + 0.15, xanchor: "left", yanchor: "bottom",
          showarrow: false, align: "left", font: {size: 10, color: D.color},
          text: ptext(D.backend) + " · " + ptext(D.device) + " · " + D.graph.op.length + " nodes",
          name: "caption of #" + D.instruction};
}

// inner node k of delegate D, for the details panel
export function innerDetails(D, k) {
  const g = D.graph;
  const list = (ids) => "<ul class='dx-list'>" + ids.map((v) => "<li><span class='dx-code'>" + esc(valueLabel(g, v)) +
    "</span> <span class='dx-muted'>value " + v + "</span></li>").join("") + "</ul>";
  return "<div class='dx-root'><h4><span class='dx-code'>" + esc(g.op[k]) + "</span> <span class='dx-muted'>node " + k +
    " inside #" + D.instruction + " " + esc(D.backend) + "</span></h4><table class='dx-kv'>" +
    "<tr><td>runs on</td><td>" + esc(D.device) + "</td></tr><tr><td>reads</td><td>" + list(g.in[k]) + "</td></tr>" +
    "<tr><td>writes</td><td>" + list(g.out[k]) + "</td></tr></table></div>";
}

// The expansions of one plan drawn in full: `P` its payload, `gd` the graph div, `T` the trace slots, `host`
// the app (host.moved() after positions change, host.html(markup) for details).
export function delegateExpander(P, gd, T, host) {
  const D = new Map(((P.companions || {}).delegates || []).filter((d) => d.graph).map((d) => [d.instruction, d]));
  const moved = [];  // trace indices whose x/y this module rewrites: the edges, tensors and ops
  for (let t = T.edges; t <= T.ops; t++) moved.push(t);
  const base = gd.data.length;  // traces added past here are ours
  const origin = moved.map((t) => [arr(gd.data[t].x).slice(), arr(gd.data[t].y).slice()]);
  const shapes0 = ((gd.layout || {}).shapes || []).slice();
  const notes0 = ((gd.layout || {}).annotations || []).slice();
  const height0 = (gd.layout || {}).height;
  const size0 = gd._fullLayout && gd._fullLayout._size, yr0 = ((gd.layout || {}).yaxis || {}).range;
  const perUnit = size0 && yr0 ? Math.min(40, size0.h / Math.max(1, yr0[1] - yr0[0])) : 0;  // px per layer as drawn
  let open = [];

  function outerPositions(xy) {
    const pos = new Map();
    for (const [kind, t] of [["v", T.tensors], ["i", T.ops]]) {
      const k = moved.indexOf(t), ids = arr(gd.data[t].customdata);
      ids.forEach((id, j) => pos.set(kind + id, [xy[k][0][j], xy[k][1][j]]));
    }
    return pos;
  }

  function draw() {
    let xy = origin.map(([x, y]) => [x.slice(), y.slice()]);
    const boxes = [];  // [delegate, layout], each moved on by the expansions opened after it
    for (const i of open) {
      const at = outerPositions(xy).get("i" + i);
      if (!at) continue;
      const lay = insideLayout(D.get(i), at[0], at[1]);
      xy = xy.map(([x, y], k) => (moved[k] < T.tensors ? moveSegments(x, y, lay)
        : [0, 1].map((c) => x.map((_, j) => movePoint(x[j], y[j], lay)[c]))));
      for (const [, l] of boxes) {
        for (let j = 0; j < l.x.length; j++) [l.x[j], l.y[j]] = movePoint(l.x[j], l.y[j], lay);
        [l.x0, l.y0] = movePoint(l.x0, l.y0, lay);
        l.bottom = movePoint(l.x0, l.bottom, lay)[1];
      }
      boxes.push([D.get(i), lay]);
    }
    const Plotly = globalThis.Plotly;
    if (gd.data.length > base) Plotly.deleteTraces(gd, Array.from({length: gd.data.length - base}, (_, k) => base + k));
    Plotly.restyle(gd, {x: xy.map((p) => p[0]), y: xy.map((p) => p[1])}, moved);
    const outer = outerPositions(xy), traces = [], shapes = shapes0.slice(), annotations = notes0.slice();
    let grow = 0;
    for (const [d, lay] of boxes) {
      traces.push(...insideTraces(d, lay, outer));
      shapes.push(boxShape(d, lay));
      annotations.push(boxCaption(d, lay));
      grow += lay.H;
    }
    if (traces.length) Plotly.addTraces(gd, traces);
    const all = [].concat(...xy.slice(T.tensors - T.edges).map((p) => p[0])), ally = [].concat(...xy.slice(T.tensors - T.edges).map((p) => p[1]));
    for (const [, lay] of boxes) { all.push(lay.x0 - lay.W / 2, lay.x0 + lay.W / 2); ally.push(lay.bottom); }
    const fx = all.filter(Number.isFinite), fy = ally.filter(Number.isFinite);
    const range = fx.length ? {"xaxis.range": [Math.min(...fx) - 0.5, Math.max(...fx) + 0.5],
                               "yaxis.range": [Math.min(...fy) - 0.6, Math.max(...fy) + 0.6]} : {};
    // the figure grows by the room the boxes take, at the scale it was drawn at (so the inside reads like the rest)
    const height = height0 && perUnit ? Math.min(4000, Math.round(height0 + grow * perUnit)) : undefined;
    Plotly.relayout(gd, Object.assign({shapes, annotations}, range, height ? {height} : {}));
    host.moved();
  }

  return {
    expandable: (i) => D.has(i),
    expanded: () => open.slice(),
    // open or close the inside of delegate call i; true when something changed
    toggle(i) {
      if (!D.has(i)) return false;
      open = open.indexOf(i) >= 0 ? open.filter((j) => j !== i) : open.concat([i]);
      draw();
      return true;
    },
    setOpen(list) { open = list.filter((i) => D.has(i)); draw(); },
    // a click on one of our traces: details of the inner node; true when it was ours
    click(pt) {
      const id = pt && typeof pt.customdata === "string" ? /^d(\d+):(\d+)$/.exec(pt.customdata) : null;
      if (!id || !D.has(Number(id[1]))) return false;
      host.html(innerDetails(D.get(Number(id[1])), Number(id[2])));
      return true;
    },
    // the figure as it was before any expansion (leaving the plan)
    reset() { if (open.length) { open = []; draw(); } },
  };
}
