import {currentFold} from "./base.js";
import {segments} from "./traces.js";
import {symbolOf} from "./captions.js";

// The selection over a plan's graph: rings on the nodes drawing the selected values and instructions and their
// edges bold, drawn over the figure (panels/rings.js through host.rings), not by restyling it.
/** @typedef {import("./base.js").LodBase} LodBase */
/** @typedef {import("./base.js").LodState} LodState */

/** the fold positions drawing these values and instructions (a folded one: its group's)
 * @param {LodBase} B @param {import("./base.js").Folded} f @param {number[]} values @param {number[]} instructions */
export function unitPositions(B, f, values, instructions) {
  const out = /** @type {number[]} */ ([]);
  values.forEach((v) => { if (v >= 0 && v < B.n && f.valueUnit[v] >= 0) out.push(f.valueUnit[v]); });
  instructions.forEach((i) => { if (i >= 0 && i < B.m) out.push(f.instUnit[i]); });
  return Array.from(new Set(out));
}

/** the selection's rings and bold edges over the graph
 * @param {LodBase} B @param {LodState} S @param {import("./base.js").LodHost} host @param {number[]} values @param {number[]} instructions */
export function ringSelection(B, S, host, values, instructions) {
  const f = currentFold(B, S), chosen = unitPositions(B, f, values, instructions), set = new Set(chosen), sel = /** @type {number[]} */ ([]);
  f.edges.forEach((e, q) => { if (set.has(e[0]) || set.has(e[1])) sel.push(q); });
  const s = segments(f, sel);
  // host.place: where the app moved a point after drawing (an open delegate pushes the graph below it down)
  const place = host.place || ((/** @type {number} */ x, /** @type {number} */ y) => [x, y]);
  const lines = host.placeLines ? host.placeLines(s[0], s[1]) : s;
  host.rings({edges: [{xs: lines[0], ys: lines[1]}],
              rings: chosen.map((p) => { const at = place(f.x[p], -f.y[p]); return {x: at[0], y: at[1], symbol: symbolOf(B, f.nodes[p])}; })});
}

/** A value drawn as stubs (lod/fold.js FANOUT_STUB) lights up whole under the pointer: hovering it or one of its
 * stubs' dots draws the selection and that value's edge and stubs bold; leaving draws the selection alone.
 * @param {LodBase} B @param {LodState} S @param {import("./base.js").LodHost} host
 * @returns {{onHover: (ev: {points?: {curveNumber: number, customdata?: any}[]}) => void, onUnhover: () => void}} */
export function stubHover(B, S, host) {
  const T = B.L.trace;
  let lit = -1;
  /** @param {number} v */
  const hasStubs = (v) => {
    const f = currentFold(B, S), u = v >= 0 && v < B.n ? f.valueUnit[v] : -1;
    return u >= 0 && f.stubs.some((q) => f.edges[q][0] === u);
  };
  const plain = () => ringSelection(B, S, host, host.state.values, host.state.instructions);
  return {
    onHover(ev) {
      const pt = ev && ev.points && ev.points[0];
      const v = pt && (pt.curveNumber === T.crossings || pt.curveNumber === T.tensors) && typeof pt.customdata === "number" ? pt.customdata : -1;
      if (v === lit) return;
      lit = v >= 0 && hasStubs(v) ? v : -1;
      if (lit < 0) { plain(); return; }
      ringSelection(B, S, host, host.state.values.concat([lit]), host.state.instructions);
    },
    onUnhover() { if (lit >= 0) { lit = -1; plain(); } },
  };
}
