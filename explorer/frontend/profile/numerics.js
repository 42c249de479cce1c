// A run's numbers (payload `numerics`, views/payload/numerics.py; docs/numerics.md) on the panels: what each
// instruction produced (and, compared with another run, B's and the gap) as rows of a node's details, and the
// "first divergence" button in the controls row, which selects where the two runs part. The one-program app and each
// side of the diff use the same functions; the texts are plain text from Python, escaped here.
import {esc, h} from "../util/common.js";

/** @typedef {import("../types/payload").NumericsPayload} NumericsPayload
 * @typedef {import("../types/payload").PlanNumericsPayload} PlanNumericsPayload
 * @typedef {import("../types/payload").NumericsRow} NumericsRow */

/** a plan's numbers, or null @param {NumericsPayload | undefined} N @param {string | null} plan @returns {PlanNumericsPayload | null} */
export function planNumerics(N, plan) {
  return N && plan !== null && Object.prototype.hasOwnProperty.call(N.plans, plan) ? N.plans[plan] : null;
}

/**
 * The rows [label, cell HTML] of a node's details: an instruction's outputs (a tensor: what its writer left in it),
 * compared, B's and the gap; NaN/Inf and a gap over the tolerance marked, the first divergence flagged. Side "b": B's
 * own rows (the diff's right side). A group has none. @param {PlanNumericsPayload | null} PN
 * @param {"value" | "instr" | "group"} kind @param {number} index @param {"a" | "b"} [side] @returns {[string, string][]}
 */
export function numericsRows(PN, kind, index, side) {
  if (!PN || kind === "group") return [];
  const table = side === "b" ? (kind === "instr" ? PN.rowsB : PN.valuesB) : (kind === "instr" ? PN.rows : PN.values);
  const got = table && Object.prototype.hasOwnProperty.call(table, String(index)) ? table[String(index)] : [];
  return got.map((/** @type {NumericsRow} */ r) => {
    const head = !/^(min|NaN|first values|values)\b/.test(r[0]);
    return /** @type {[string, string]} */ ([
      "<span class='" + (head ? "dx-num-head" : "dx-num-sub") + "'>" + esc(r[0]) + "</span>",
      "<span class='dx-num" + (r[2] ? " dx-num-" + esc(r[2]) : "") + "'>" + esc(r[1]) + "</span>"]);
  });
}

/** The selection the "first divergence" button makes: A's instruction and B's, or null when the runs do not part
 * (or were not compared). @param {PlanNumericsPayload | null} PN @returns {{a: number, b: number | null} | null} */
export function firstDivergence(PN) {
  return PN && PN.first !== null ? {a: PN.first, b: PN.firstB} : null;
}

/**
 * The "first divergence" button, at the end of the controls row: shown on a plan whose runs part (its text says
 * where), a muted note when compared runs do not, absent without a comparison. A click calls `go(where)`.
 * @param {HTMLElement} controls @param {NumericsPayload | undefined} N @param {(where: {a: number, b: number | null}) => void} go
 * @returns {{plan(name: string | null): void, click(): boolean}}
 */
export function divergenceControl(controls, N, go) {
  const box = h("span", "dx-num-control");
  const button = /** @type {HTMLButtonElement} */ (h("button", "dx-num-first", "first divergence"));
  button.type = "button";
  const note = h("span", "dx-muted");
  box.append(button, note);
  box.hidden = true;
  if (N) controls.appendChild(box);
  /** @type {{a: number, b: number | null} | null} */
  let where = null;
  button.addEventListener("click", () => { if (where) go(where); });
  return {
    plan(name) {
      const PN = planNumerics(N, name);
      where = firstDivergence(PN);
      box.hidden = !PN || !PN.firstText;
      button.hidden = !where;
      button.title = PN && PN.firstText ? PN.firstText + " (tolerance " + (N ? N.tol : "") + ")" : "";
      note.textContent = where ? "#" + where.a + (where.b !== null ? " / B #" + where.b : "") : "runs agree: " + ((PN && PN.firstText) || "");
    },
    click() { if (where) go(where); return !!where; },
  };
}
