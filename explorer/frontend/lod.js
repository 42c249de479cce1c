// A plan drawn at its level of detail — every plan, at every size: instruction groups expanded in place (a small
// plan opens with all of them open), and memory lanes binned into exact occupancy cells until a zoom leaves few
// enough tensors to draw. The three parts share one context object; lodPlan returns what the app (app.js) calls.
import {lodBase} from "./lod_base.js";
import {lodGraph} from "./lod_graph.js";
import {lodPanels} from "./lod_panels.js";

/** @param {import("./payload").DrawnPlan} P @param {any} host */
export function lodPlan(P, host) {
  const C = lodBase(P, host);
  lodGraph(C);
  lodPanels(C);
  C.draw(null, true);  // the first state: figures.js built the styled, empty traces; the app folds, lays out and draws
  if (P.lod.arenas.length) C.drawMemory(true);
  return {expand: C.expand, collapse: C.collapse, reveal: C.reveal, highlight: C.highlight, devices: C.devices,
          labels: C.labels, valueDetails: C.valueDetails, instrDetails: C.instrDetails, groupDetails: C.groupDetails,
          clickGraph: C.clickGraph, clickMemory: C.clickMemory, onRelayout: C.onRelayout, folded: C.folded, lane: C.lane,
          setExpanded: C.setExpanded, redraw: () => C.draw(null), laneProfiles: C.laneProfiles, setAxis: C.setAxis, axis: C.axisMap, lanes: () => P.lod.arenas.length,
          state: () => ({expanded: C.s.expanded.slice(), window: C.s.win, note: C.s.note, status: C.status()})};
}
