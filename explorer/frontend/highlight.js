// Selection overlays of a graph drawn in full and of its memory lanes, shared by the one-program app and the
// diff: rings on the chosen nodes, their edges drawn bold, their memory blocks outlined.
import {arr} from "./util.js";

// "v3" / "i7" -> [x, y] for a graph figure's tensor and op traces
export function nodePositions(figure, T) {
  const nodes = new Map();
  for (const [kind, t] of [["v", T.tensors], ["i", T.ops]]) {
    const tr = figure.data[t], ids = arr(tr.customdata), xs = arr(tr.x), ys = arr(tr.y);
    for (let k = 0; k < ids.length; k++) nodes.set(kind + ids[k], [xs[k], ys[k]]);
  }
  return nodes;
}

// the rings and bold edges for values / instructions: {edges: {x, y}, nodes: {x, y, symbol}}; an edge is
// [kind, index, kind, index, bends?] (bends: its polyline's inner points, flat)
export function rings(nodes, edges, opSymbols, values, instructions) {
  const vs = new Set(values), is = new Set(instructions);
  const hx = [], hy = [], sym = [], ex = [], ey = [];
  for (const v of values) { const p = nodes.get("v" + v); if (p) { hx.push(p[0]); hy.push(p[1]); sym.push("circle-open"); } }
  for (const i of instructions) {
    const p = nodes.get("i" + i);
    if (p) { hx.push(p[0]); hy.push(p[1]); sym.push((opSymbols[i] || "square") + "-open"); }
  }
  for (const e of edges) {
    const hit = (e[0] === "v" ? vs.has(e[1]) : is.has(e[1])) || (e[2] === "v" ? vs.has(e[3]) : is.has(e[3]));
    if (!hit) continue;
    const a = nodes.get(e[0] + e[1]), b = nodes.get(e[2] + e[3]);
    if (!a || !b) continue;
    ex.push(a[0]); ey.push(a[1]);
    const bends = e[4] || [];  // [x, y, x, y, ...] where the edge passes a layer
    for (let k = 0; k < bends.length; k += 2) { ex.push(bends[k]); ey.push(bends[k + 1]); }
    ex.push(b[0], null); ey.push(b[1], null);
  }
  return {edges: {x: ex, y: ey}, nodes: {x: hx, y: hy, symbol: sym}};
}

// rings() as overlay items (overlay.js)
export function ringItems(nodes, edges, opSymbols, values, instructions) {
  const r = rings(nodes, edges, opSymbols, values, instructions);
  return {edges: [{xs: r.edges.x, ys: r.edges.y}],
          rings: r.nodes.x.map((x, k) => ({x, y: r.nodes.y[k], symbol: r.nodes.symbol[k]}))};
}

// outline rectangles (data units, per lane axes) of the blocks whose value is in `chosen`
export function blockRects(lanes, chosen) {
  const out = [];
  for (const lane of lanes) {
    for (let j = 0; j < lane.customdata.length; j++) {
      if (!chosen.has(lane.customdata[j])) continue;
      const half = lane.width[j] / 2;
      out.push({x0: lane.x[j] - half, x1: lane.x[j] + half, y0: lane.base[j], y1: lane.base[j] + lane.y[j],
                xaxis: lane.xaxis, yaxis: lane.yaxis});
    }
  }
  return out;
}

// a memory lane's bar arrays, decoded once
export function laneBlocks(trace) {
  return {x: arr(trace.x), width: arr(trace.width), base: arr(trace.base), y: arr(trace.y), customdata: arr(trace.customdata)};
}
