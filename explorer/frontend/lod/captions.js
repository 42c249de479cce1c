import {ptext} from "../util/common.js";
import {bytesText, countText} from "../util/format.js";
import {groupSize} from "./views.js";

// What a plan's graph says in words and marks besides its tables' own hover texts (lod/base.js): a folded group's
// label tail and hover, a node's symbol, a group box's tint, and the status line under the graph
// (Python's overview once wrote these; the app is now the only place).
/** @typedef {import("./base.js").LodBase} LodBase */
/** @typedef {import("./base.js").LodState} LodState */
/** @typedef {import("./base.js").FoldNode} FoldNode */
/** @typedef {import("./base.js").Folded} Folded */

/** a node's marker symbol @param {LodBase} B @param {FoldNode} nd */
export function symbolOf(B, nd) {
  if (nd[0] === "v") return "circle";
  if (nd[0] === "i") return B.OPSYM[B.OPS.kind[nd[1]]];
  return B.groupSymbol(nd[1]);
}

/** a group label's tail: device split (when several), tensors' bytes, copies @param {LodBase} B @param {number} g */
export function mix(B, g) {
  const Sm = B.groupSummary(g), parts = [], DEV = B.DEV;
  if (Sm.ops.length > 1) parts.push(Sm.ops.map((o) => "<span style='color:" + DEV[o[0]].color + "'>\u25a0</span>" + Math.round(100 * o[2]) + "%").join(" "));
  if (Sm.total) parts.push(ptext(bytesText(Sm.total)));
  let nc = 0;
  Object.values(Sm.copies).forEach((c) => { nc += c[0]; });
  if (nc) parts.push(countText(nc) + " cop" + (nc === 1 ? "y" : "ies"));
  return parts.length ? "  " + parts.join(" \u00b7 ") : "";
}

/** a folded group's hover: its instructions by kind, where they run, its tensors' bytes, its copies
 * @param {LodBase} B @param {number} g */
export function groupHover(B, g) {
  const {G, L, DEV} = B, kinds = /** @type {string[]} */ ([]), Sm = B.groupSummary(g), ops = G.stop[g] - G.start[g];
  G.kinds[g].forEach((c, k2) => { if (c) kinds.push(countText(c) + " " + L.names.opKinds[k2]); });
  const runs = Sm.ops.map((o) => ptext(DEV[o[0]].name) + " " + countText(o[1]) + " (" + Math.round(100 * o[2]) + "%)");
  const bytes = Sm.bytes.map((e) => ptext(DEV[e[0]].name) + " " + ptext(bytesText(e[1])));
  const cps = B.copyText(Sm.copies, false);
  return "<b>" + ptext(G.label[g]) + "</b><br>#" + G.start[g] + " \u2013 #" + (G.stop[g] - 1) + " \u00b7 " + countText(ops) +
    " ops (" + kinds.join(", ") + ")" + (runs.length ? "<br>runs on " + runs.join(" \u00b7 ") : "") +
    "<br>" + countText(G.nodes[g] - ops) + " tensors" + (Sm.total ? ", " + ptext(bytesText(Sm.total)) + (bytes.length > 1 ? " (" + bytes.join(" \u00b7 ") + ")" : "") : "") +
    (cps ? "<br>copies " + cps : "") + "<br>click to expand";
}

/** an expanded group's box colour: its device's, at `alpha` @param {LodBase} B @param {number} g @param {number} alpha */
export function tint(B, g, alpha) {
  const c = B.G.dev[g] >= 0 ? B.DEV[B.G.dev[g]].color : "#8C959F";
  return "rgba(" + parseInt(c.slice(1, 3), 16) + "," + parseInt(c.slice(3, 5), 16) + "," + parseInt(c.slice(5, 7), 16) + "," + alpha + ")";
}

/** the status line under the graph @param {LodBase} B @param {LodState} S @param {Folded} f @returns {string[]} */
export function statusLines(B, S, f) {
  const {TT, nG, m} = B, groups = f.nodes.filter((nd) => nd[0] === "g").length, raw = f.nodes.length - groups;
  let tensors = 0;
  for (let r = 0; r < TT.home.length; r++) if (TT.home[r] >= 0) tensors++;
  const unused = TT.home.length - tensors;
  const unusedNote = countText(unused) + (unused === 1 ? " tensor that no instruction names is" : " tensors that no instruction names are") +
    " not drawn";
  if (!groups) {  // everything drawn as itself: say only what can be folded, and what is not drawn
    return [nG > 1 ? "every group open (" + countText(S.expanded.length) + ") \u00b7 \u25be collapses one" : "",
            unused ? unusedNote : ""].filter(Boolean)
      .concat(S.note ? [S.note] : []);
  }
  return ["overview of " + countText(m) + " instructions and " + countText(tensors) + " tensors: " + countText(groups) + " groups" +
            (raw ? " and " + countText(raw) + " single nodes" : "") + " drawn" +
            (unused ? " (" + unusedNote + ")" : ""),
          "click a group to expand it, \u25be to collapse" + (S.note ? " \u00b7 " + S.note : "")];
}

/** what a windowed draw leaves out, said in the status line @param {LodState} S @param {Folded} f @returns {string[]} */
export function windowLine(S, f) {
  if (!S.region || !S.drawn) return [];
  if (S.coarse) return ["zoomed out: " + countText(S.coarse) + " tensors and ops near the view painted as dots, without hover, labels or clicks \u2014 zoom in to read them"];
  return ["showing the " + countText(S.drawn.count) + " of " + countText(f.nodes.length) + " nodes in and near the view: pan or zoom draws the others"];
}

/** A folded group's device mix drawn on it: under its marker a bar split by device in proportion to the group's
 * instructions on each (lod/summary.js groupSummary), so a group 28% on cuda does not read as all-CPU from its
 * majority colour. Layout shapes (cheap, no trace), `px` px wide, sized in px at the view's scale.
 * @param {LodBase} B @param {Folded} f @param {number[]} gk fold positions of the groups drawn
 * @param {number[]} xr @param {number[]} yr the view's ranges @param {{w: number, h: number}} size the plot area in px
 * @returns {object[]} */
export function mixShapes(B, f, gk, xr, yr, size) {
  const ux = Math.abs(xr[1] - xr[0]) / Math.max(size.w, 1), uy = Math.abs(yr[1] - yr[0]) / Math.max(size.h, 1), out = [];
  const W = 24, H = 5;
  for (const p of gk) {
    const g = f.nodes[p][1], ops = B.groupSummary(g).ops;
    if (ops.length < 2) continue;
    const top = -f.y[p] - (groupSize(B.G, g) / 2 + 2) * uy;
    let x = f.x[p] - W / 2 * ux;
    for (const o of ops) {
      const w = W * o[2] * ux;
      out.push({type: "rect", xref: "x", yref: "y", x0: x, x1: x + w, y0: top - H * uy, y1: top, layer: "above",
                line: {width: 0.5, color: "#FFFFFF"}, fillcolor: B.DEV[o[0]].color, name: "mix " + g});
      x += w;
    }
  }
  return out;
}
