import {esc} from "../util/common.js";
import {queryProblem} from "../shell/search.js";

// The one-program app's details box (app/app.js) for a selection: a finding's details, one value's or
// instruction's (lod/details.js, with a data file's or delegate payload's companion rows), a list of what a search
// or a multiple selection holds, or the hint. Names from the file are escaped here; the rest was escaped where built.
/** @typedef {{values: number[], instructions: number[], finding: string | null, query: string}} Selected */

/** @param {string} title @param {string[]} items */
function listHtml(title, items) {
  return "<tr><td>" + title + "</td><td><ul class='dx-list'>" + items.join("") + "</ul></td></tr>";
}

/** the details box's HTML @param {import("../types/app").LabelledPlan} P
 * @param {Pick<import("../lod/plan.js").LodPlan, "valueDetails" | "instrDetails">} LOD @param {Selected} state */
export function detailsHtml(P, LOD, state) {
  if (state.finding !== null) return P.findingDetails[state.finding] || "";
  if (state.values.length + state.instructions.length === 1) {
    const extra = P.companions && P.companions.rows;  // data files, delegate payloads (escaped in Python)
    return state.values.length ? LOD.valueDetails(state.values[0]) + (((extra && extra.v) || {})[state.values[0]] || "")
      : LOD.instrDetails(state.instructions[0]) + (((extra && extra.i) || {})[state.instructions[0]] || "");
  }
  if (!state.values.length && !state.instructions.length) {
    const problem = state.query ? queryProblem(P, state.query) : "";
    return (problem ? "<h4 class='dx-query-problem'>" + esc(problem) + "</h4>"
      : state.query ? "<h4>search “" + esc(state.query) + "”: nothing found</h4>" : "") +
      "<span class='dx-muted'>Click a tensor, an op, a memory block or a finding to see its details.</span>";
  }
  /** @type {string[]} */
  const rows = [];
  if (state.values.length) rows.push(listHtml(state.values.length + " values", state.values.slice(0, 40).map((v) =>
    "<li><b>" + esc(P.labels.v[v] || ("%" + v)) + "</b></li>")));
  if (state.instructions.length) rows.push(listHtml(state.instructions.length + " ops", state.instructions.slice(0, 40).map((i) =>
    "<li><span class='dx-muted'>#" + i + "</span> <span class='dx-code'>" + esc(P.labels.i[i]) + "</span></li>")));
  return "<h4>" + (state.query ? "search “" + esc(state.query) + "”" : "selection") + "</h4>" +
    "<table class='dx-kv'>" + rows.join("") + "</table>";
}
