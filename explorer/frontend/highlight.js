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

// the rings and bold edges for values / instructions: {edges: {x, y}, nodes: {x, y, symbol}}
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
    if (a && b) { ex.push(a[0], b[0], null); ey.push(a[1], b[1], null); }
  }
  return {edges: {x: ex, y: ey}, nodes: {x: hx, y: hy, symbol: sym}};
}

// a memory lane's bar arrays, decoded once
export function laneBlocks(trace) {
  return {x: arr(trace.x), width: arr(trace.width), base: arr(trace.base), y: arr(trace.y), customdata: arr(trace.customdata)};
}

// the blocks of a lane whose value is in `chosen` (a Set), as bar arrays for its selection trace
export function pickBlocks(lane, chosen) {
  const keep = [];
  for (let j = 0; j < lane.customdata.length; j++) if (chosen.has(lane.customdata[j])) keep.push(j);
  const out = {};
  for (const key of ["x", "width", "base", "y", "customdata"]) out[key] = keep.map((j) => lane[key][j]);
  return out;
}
