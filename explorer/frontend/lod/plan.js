// A plan drawn at its level of detail — every plan, at every size: instruction groups expanded in place (a small
// plan opens with all of them open), and memory lanes binned into exact occupancy cells until a zoom leaves few
// enough tensors to draw. Four parts, wired here with what each needs: the tables (lod/base.js lodBase, never
// changed), the one view state (lodState), the details (lod/details.js), the memory map (lod/memory.js) and the
// graph (lod/graph.js). lodPlan returns what the app (app/app.js) and the diff (diff/sides.js) call.
import {lodBase, lodState, currentFold} from "./base.js";
import {lodGraph} from "./graph.js";
import {lodPanels} from "./details.js";
import {lodMemory} from "./memory.js";

/** @typedef {ReturnType<typeof lodPlan>} LodPlan */

/** @param {import("../types/payload").DrawnPlan} P @param {import("./base.js").LodHost} host
 * @param {{draw?: boolean}} [opts] draw: false: the first state is drawn when the caller says (drawFirst, drawMemory), each
 * in a task of its own */
export function lodPlan(P, host, opts) {
  const B = lodBase(P), S = lodState(P.lod);
  const panels = lodPanels(B, S, host), memory = lodMemory(B, S, host);
  const graph = lodGraph(B, S, host, {groupDetails: panels.groupDetails, memory});
  // the first state: lod/figures.js built the styled, empty traces; the app folds, lays out and draws (not again if a
  // change of the expanded set or a reveal drew it before the caller's drawFirst)
  const drawFirst = () => { if (!S.draws && !graph.layoutState().running) graph.draw(null, true); };
  // drawn now (the diff): each figure in one Plotly.react, into divs plotly may not have drawn in yet
  if (!opts || opts.draw !== false) { drawFirst(); memory.drawLanes(); }
  // before the first draw there is nothing to ring (and finding it would fold the first state now): the draw
  // applies the selection when it comes
  /** @param {number[]} values @param {number[]} instructions */
  const highlight = (values, instructions) => { if (S.draws) graph.highlight(values, instructions); };
  // nor to draw again (an overlay picked, or the widget's overlays decoded, before the staged first draw): drawn now
  // it would keep the skeleton's ranges, and the first draw, seeing a draw done, would never open the home view (a
  // re-run cell showed one group of a big plan); the first draw paints the overlay wanted then
  const redraw = () => { if (S.draws) graph.draw(null); };
  // the home view drawn again (the host's room changed: a compact app's box, app/fit.js)
  const home = () => { if (S.draws) graph.draw(null, true); };
  return {expand: graph.expand, collapse: graph.collapse, reveal: graph.reveal, highlight,
          devices: graph.devices, labels: graph.labels, clickGraph: graph.clickGraph, setExpanded: graph.setExpanded,
          redraw, home, layout: graph.layoutState, drawFirst, drawMemory: memory.drawMemory, drawLanes: memory.drawLanes,
          valueDetails: panels.valueDetails, instrDetails: panels.instrDetails, groupDetails: panels.groupDetails,
          clickMemory: memory.clickMemory, onRelayout: memory.onRelayout, lane: memory.lane, laneProfiles: memory.laneProfiles,
          setAxis: memory.setAxis, axis: memory.axisMap, lanes: () => P.lod.arenas.length,
          /** the fold as drawn */
          folded: () => currentFold(B, S),
          /** the devices a group's instructions run on (lod/summary.js), as its device bar splits them @param {number} g */
          groupDevices: (g) => B.groupSummary(g).ops.map((o) => o[0]),
          state: () => ({expanded: S.expanded.slice(), window: S.win, note: S.note, status: graph.status()})};
}
