import {currentFold} from "./base.js";
import {spread} from "./views.js";

// Following the user's pans and zooms of a big graph (plotly_relayout; lod/graph.js draws only the nodes near the
// view): past the region drawn, or zoomed well into a big one, the traces are rebuilt for the new view; a double
// click (autorange) shows the whole graph — plotly's own autorange would only fit what is drawn. In a task of its
// own: plotly is still in its relayout when it tells us; a wheel zoom sends many relayouts, the traces are rebuilt
// once they pause SETTLE_MS.
/** @typedef {import("./views.js").View} View */

const SETTLE_MS = 80;

/**
 * @param {import("./base.js").LodBase} B @param {import("./base.js").LodState} S @param {PlotDiv} gd the graph
 * @param {(view: View | null) => void} redraw draws the fold at that view (null: as the plot is now)
 * @param {() => number} windowMin folds of at most this many nodes are drawn whole
 * @returns {{onRelayout(ev: Record<string, any> | null | undefined): void, cancel(): void}} cancel: a redraw waiting is not needed
 */
export function followPans(B, S, gd, redraw, windowMin) {
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  /** @param {View | null} view @param {number} ms */
  function later(view, ms) {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => { timer = null; redraw(view); }, ms);
  }
  /** @param {Record<string, any> | null | undefined} ev */
  function onRelayout(ev) {
    if (!S.region || S.laying || !ev) return;
    // an open delegate's own relayout (panels/delegate.js: boxes, captions, the view grown below) is not a pan: the
    // traces are already those of the view it grew from
    if (ev.shapes || ev.annotations || ev.height) return;
    const xr = gd.layout.xaxis && gd.layout.xaxis.range, yr = gd.layout.yaxis && gd.layout.yaxis.range;
    if (ev["xaxis.autorange"] || ev["yaxis.autorange"]) {
      const {lo, hi, depth} = spread(currentFold(B, S));
      return later({"xaxis.range": [lo - 0.6, hi + 0.6], "yaxis.range": [-(depth - 1) - 0.6, 0.6]}, 0);
    }
    if (!xr || !yr) return;
    const R = S.region, x0 = Math.min(xr[0], xr[1]), x1 = Math.max(xr[0], xr[1]), y0 = Math.min(yr[0], yr[1]), y1 = Math.max(yr[0], yr[1]);
    const outside = x0 < R[0] || x1 > R[1] || y0 < R[2] || y1 > R[3];
    // zoomed in to half the area or less: fewer nodes to draw, or few enough to draw as markers again
    const zoomedIn = (x1 - x0) * (y1 - y0) * 2 <= S.viewArea && (S.coarse > 0 || (S.drawn ? S.drawn.count : 0) > windowMin());
    if (outside || zoomedIn) later(null, SETTLE_MS);
  }
  return {onRelayout, cancel() { if (timer !== null) { clearTimeout(timer); timer = null; } }};
}
