// Links that select (issue 21): report.html#%12 selects value 12, #@5 instruction 5 of the first plan,
// #decode/@5 instruction 5 of plan "decode", and # followed by anything the search box accepts (shell/search.js);
// selecting writes the hash back, so the address bar always holds a link to what is selected.

// "#decode/@5" -> {plan: "decode" | null, text: "#5"}: the plan when the part before "/" names one, and the
// search text ("@N" is the search box's "#N": a "#" cannot start a fragment's text)
/** @param {string} hash @param {string[]} planNames @returns {{plan: string | null, text: string}} */
export function parseLink(hash, planNames) {
  let raw = String(hash || "").replace(/^#/, "");
  /** @type {string | null} */
  let plan = null;
  const cut = raw.indexOf("/");
  if (cut > 0 && planNames.indexOf(decode(raw.slice(0, cut))) >= 0) { plan = decode(raw.slice(0, cut)); raw = raw.slice(cut + 1); }
  raw = raw.trim();
  // "%12" is value 12 as typed, not an escape; everything else is read as the address bar escaped it
  const text = /^([ab]:)?%\d+$/.test(raw) ? raw : /^@\d+$/.test(raw) ? "#" + raw.slice(1) : decode(raw);
  return {plan, text};
}

/** @param {string} s @returns {string} */
function decode(s) {
  try { return decodeURIComponent(s); } catch (e) { return s; }  // a malformed escape: taken literally
}

// the hash naming a selection: one value "%N", one instruction "@N", else the search text that made it, else
// nothing; prefixed with "plan/" unless it is the first plan
/** @param {{plan?: string, values?: number[], instructions?: number[], query?: string | null}} sel
 *  @param {string} firstPlan @returns {string} */
export function linkOf(sel, firstPlan) {
  const values = sel.values || [], instructions = sel.instructions || [];
  let text = "";
  if (values.length === 1 && !instructions.length) text = "%" + values[0];
  else if (instructions.length === 1 && !values.length) text = "@" + instructions[0];
  else if (sel.query) text = sel.query;
  if (!text) return "";
  const written = /^[%@]\d+$/.test(text) ? text : encodeURIComponent(text);
  return (sel.plan && sel.plan !== firstPlan ? encodeURIComponent(sel.plan) + "/" : "") + written;
}

// The diff report's links: "a:%12" / "b:@5" name a node on one side (its counterpart is selected with it),
// anything else is the search text run on both sides. sel: the diff's selection (side, values/instructions
// per side); query: the search text that made it.
/** @param {{plan?: string, side?: string, values?: Record<string, number[]>, instructions?: Record<string, number[]>}} sel
 *  @param {string | null | undefined} query @param {string} firstPlan @returns {string} */
export function diffLinkOf(sel, query, firstPlan) {
  const s = sel.side, v = s ? (sel.values || {})[s] || [] : [], i = s ? (sel.instructions || {})[s] || [] : [];
  let text = "";
  if (s && v.length === 1 && !i.length) text = s + ":%" + v[0];
  else if (s && i.length === 1 && !v.length) text = s + ":@" + i[0];
  else if (query) text = /^[%@]\d+$/.test(query) ? query : encodeURIComponent(query);
  if (!text) return "";
  return (sel.plan && sel.plan !== firstPlan ? encodeURIComponent(sel.plan) + "/" : "") + text;
}

// parseLink's text -> {side, values, instructions} for "a:%12" / "b:#5", else null (a search)
/** @param {string} text @returns {{side: string, values: number[], instructions: number[]} | null} */
export function sideNode(text) {
  const m = /^([ab]):([%#])(\d+)$/.exec(text.replace(/^([ab]):@/, "$1:#"));
  if (!m) return null;
  const k = parseInt(m[3], 10);
  return {side: m[1], values: m[2] === "%" ? [k] : [], instructions: m[2] === "#" ? [k] : []};
}
