// The search box's rules, the same as explorer.views.selection.search: "%N" is value N (any value, tensor or
// not), "#N" instruction N, a bare number value N, anything else a case-insensitive substring of tensor names
// and op / delegate names. P is a plan's payload (labels, nValues, nInstructions).
export function search(P, text) {
  text = text.trim();
  if (!text) return {values: [], instructions: []};
  const m = /^([%#]?)(\d+)$/.exec(text);
  if (m) {
    const k = parseInt(m[2], 10);
    if (m[1] === "#") return {values: [], instructions: k < P.nInstructions ? [k] : [], query: text};
    return {values: k < P.nValues ? [k] : [], instructions: [], query: text};
  }
  const needle = text.toLowerCase(), values = [], instructions = [];
  for (const k of Object.keys(P.labels.v)) if (P.labels.v[k].toLowerCase().indexOf(needle) >= 0) values.push(+k);
  P.labels.i.forEach((l, i) => { if (l.toLowerCase().indexOf(needle) >= 0) instructions.push(i); });
  return {values, instructions, query: text};
}
