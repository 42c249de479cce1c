// The search box's rules (the one implementation: Python hands a query to the page): "%N" is value N (any value, tensor or
// not), "#N" instruction N, a bare number value N, anything else a case-insensitive substring of tensor names
// and op / delegate names — and, when the plan has an ETRecord's context, of the module paths and source
// files ("file:line") the instructions come from (a delegate call: those of every node it holds).
// P is a plan's payload (labels, nValues, nInstructions, context).
/** @typedef {{values: number[], instructions: number[], query?: string}} Found */
/**
 * @param {{labels: {v: Record<string, string>, i: string[]}, nValues: number, nInstructions: number,
 *          context?: import("../types/payload").ContextPayload}} P
 * @param {string} typed
 * @returns {Found}
 */
export function search(P, typed) {
  const text = typed.trim();
  if (!text) return {values: [], instructions: []};
  const m = /^([%#]?)(\d+)$/.exec(text);
  if (m) {
    const k = parseInt(m[2], 10);
    if (m[1] === "#") return {values: [], instructions: k < P.nInstructions ? [k] : [], query: text};
    return {values: k < P.nValues ? [k] : [], instructions: [], query: text};
  }
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
