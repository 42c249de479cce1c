import {detailsHtml} from "./details.js";

// The one-program app's selection (app/app.js): what is selected (the app's `state`, passed in and changed here), drawn
// over the figures (panels/rings.js through lod/plan.js highlight: restyling them would redraw every trace), its
// details, the finding marked in the list, and the model told (`selected`) when the user made it.
/** @typedef {{values?: number[], instructions?: number[], finding?: string | number | null, query?: string, group?: number | null}} Sel */
/** @typedef {{plan: string | null, values: number[], instructions: number[], finding: string | null, query: string,
 *             group: number | null}} Selected */

/**
 * @param {Selected} state the app's state @param {HTMLElement} detailsBox @param {HTMLElement} findings the findings list
 * @param {(key: string, value: unknown) => void} publish @param {() => import("../types/app").LabelledPlan} plan the plan shown
 * @param {() => import("../lod/plan.js").LodPlan} lod its drawing @param {() => ReturnType<typeof import("../profile/profile.js").profileView> | null} profile its run profile
 */
export function appSelection(state, detailsBox, findings, publish, plan, lod, profile) {
  function highlight() { lod().highlight(state.values, state.instructions); }

  /** @returns {Selected} */
  function selection() {
    return {plan: state.plan, values: state.values.slice(), instructions: state.instructions.slice(),
            finding: state.finding, query: state.query, group: state.group};
  }

  // sel: {values, instructions, finding (its index, as a string), query}; fromUser: tell the model
  /** @param {Sel} sel @param {boolean} [fromUser] */
  function select(sel, fromUser) {
    state.values = (sel.values || []).slice(); state.instructions = (sel.instructions || []).slice();
    state.finding = sel.finding === undefined || sel.finding === null ? null : String(sel.finding);
    state.query = sel.query || "";
    state.group = typeof sel.group === "number" && !state.values.length && !state.instructions.length ? sel.group : null;
    highlight();
    detailsBox.innerHTML = state.group !== null ? lod().groupDetails(state.group) : detailsHtml(plan(), lod(), state);
    findings.querySelectorAll("button").forEach((b, k) => b.setAttribute("aria-current", String(String(k) === String(state.finding))));
    const PROF = profile();
    if (PROF) detailsBox.insertAdjacentHTML("beforeend", PROF.details(state.instructions));
    if (fromUser !== false) publish("selected", selection());
  }

  // a selection from the model (Python, a link, a finding of another plan opened with its plan): the groups
  // holding it open
  /** @param {Sel} sel */
  function apply(sel) {
    select(sel, false);
    if (state.values.length || state.instructions.length) lod().reveal(state.values, state.instructions);
  }
  // a click chose group g of the graph (lod/graph.js host.group; it opened or closed it and showed its details): the
  // selection is that group, told to the model as `selected.group` (the widget's Python `selected`)
  /** @param {number} g */
  function selectGroup(g) {
    state.values = []; state.instructions = []; state.finding = null; state.query = ""; state.group = g;
    highlight();
    findings.querySelectorAll("button").forEach((b) => b.setAttribute("aria-current", "false"));
    publish("selected", selection());
  }
  return {select, selection, apply, highlight, selectGroup};
}
