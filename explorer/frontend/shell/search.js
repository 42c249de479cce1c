// The search box's rules (the one implementation: Python hands a query to the page): "%N" is value N (any value, tensor or
// not), "#N" or "@N" (the links' form) instruction N, a bare number value N, anything else a case-insensitive substring of tensor names
// and op / delegate names — and, when the plan has an ETRecord's context, of the module paths and source
// files ("file:line") the instructions come from (a delegate call: those of every node it holds).
// P is a plan's payload (labels, nValues, nInstructions, context).
/** @typedef {{values: number[], instructions: number[], query?: string}} Found */
// a query shaped as an index that is none of the index forms: "#@99", "%%3", "@-1", "#3a"
const LOOKS_INDEX = /^[%#@]+[-+]?\d/;
/**
 * @param {{labels: {v: Record<string, string>, i: string[]}, nValues: number, nInstructions: number,
 *          context?: import("../types/payload").ContextPayload}} P
 * @param {string} typed
 * @returns {Found}
 */
export function search(P, typed) {
  const text = typed.trim();
  if (!text) return {values: [], instructions: []};
  const m = /^([%#@]?)(\d+)$/.exec(text);
  if (m) {
    const k = parseInt(m[2], 10);
    if (m[1] === "#" || m[1] === "@") return {values: [], instructions: k < P.nInstructions ? [k] : [], query: text};
    return {values: k < P.nValues ? [k] : [], instructions: [], query: text};
  }
  if (LOOKS_INDEX.test(text)) return {values: [], instructions: [], query: text};  // not understood (queryProblem says)
  /** @type {number[]} */
  const values = [];
  /** @type {number[]} */
  const instructions = [];
  const needle = text.toLowerCase();
  for (const k of Object.keys(P.labels.v)) if (P.labels.v[k].toLowerCase().indexOf(needle) >= 0) values.push(+k);
  const inContext = P.context ? contextMatches(P.context, needle) : null;
  P.labels.i.forEach((l, i) => { if (l.toLowerCase().indexOf(needle) >= 0 || (inContext && inContext[i])) instructions.push(i); });
  return {values, instructions, query: text};
}

// per instruction of context X (plans[].context): whether its module path or source file:line, or those of a
// node it holds, contains needle (lower case)
/** @param {import("../types/payload").ContextPayload} X @param {string} needle @returns {Uint8Array} */
export function contextMatches(X, needle) {
  const hit = (/** @type {string} */ s) => s.toLowerCase().indexOf(needle) >= 0;
  const mods = X.modules.path.map(hit);
  const srcs = X.sources.map((s) => { const cut = s.lastIndexOf(" in "); return hit(cut >= 0 ? s.slice(0, cut) : s); });
  const yes = (/** @type {number} */ mod, /** @type {number} */ src) => (mod >= 0 && mods[mod]) || (src >= 0 && srcs[src]);
  const out = new Uint8Array(X.module.length);
  for (let i = 0; i < out.length; i++) {
    let found = yes(X.module[i], X.source[i]);
    for (let k = X.nodeStart[i]; !found && k < X.nodeStart[i + 1]; k++) {
      const q = X.nodeIndex[k];
      found = yes(X.nodes.module[q], X.nodes.source[q]);
    }
    out[i] = found ? 1 : 0;
  }
  return out;
}

// Why a query that found nothing found nothing, when it is not a plain text search: an index past the plan's end
// ("no instruction #99: this plan has #0–#19"), or a query that looks like an index but is none of the forms above
// ("#@99", "%x", "@-1": said not understood, never quietly searched as text); "" otherwise.
/** @param {{nValues: number, nInstructions: number}} P @param {string} typed @returns {string} */
export function queryProblem(P, typed) {
  const text = String(typed || "").trim();
  const m = /^([%#@]?)(\d+)$/.exec(text);
  if (m) {
    const k = parseInt(m[2], 10), instr = m[1] === "#" || m[1] === "@", n = instr ? P.nInstructions : P.nValues;
    if (k < n) return "";
    const [noun, mark] = instr ? ["instruction", "#"] : ["value", "%"];
    return n ? `no ${noun} ${mark}${k}: this plan has ${mark}0–${mark}${n - 1}` : `no ${noun} ${mark}${k}: this plan has none`;
  }
  if (LOOKS_INDEX.test(text)) {
    return `“${text}” is not understood: %N is a value, #N or @N an instruction, any other text searches names`;
  }
  return "";
}
