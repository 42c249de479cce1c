// Overlays: a user's numbers (or built-in measures: time, bytes copied, tensor size, lifetime) as node colours,
// a legend, and a line for the hover and the details. Pure functions over one overlay of the payload
// (explorer/views/payload/overlays.py; docs/overlays.md): per plan, per overlay, columns aligned with the plan's
// instruction and value indices, and each folded group's number already made in Python with the overlay's rule.
// Names, units and labels come from the user or the file: every string returned here is plain text, to be
// written with textContent or through ptext/esc (util/common.js), never as markup.
import {bytesText, countText} from "../util/format.js";

/**
 * @typedef {{kind: "continuous", name: string, stops: Array<[number, string]>, min: ?number, max: ?number, log: boolean}
 *   | {kind: "thresholds", bounds: Array<?number>, colors: string[], labels: string[]}} OverlayScale
 * @typedef {{name: string, label: string, unit: string, format: string, aggregate: string, rule: string, noun: string,
 *   builtin: boolean, note: string, scale: OverlayScale, none: string, m: number, n: number, missing: ?number,
 *   instr: Array<?number>, instrFrom: number[], value: Array<?number>, modules: Array<Array<any>>,
 *   group: Array<?number>, groupCount: number[], groupFrom: number[], range: ?number[], groupRange: ?number[],
 *   count: number}} Overlay
 * @typedef {{shown: ?string, plans: Object<string, Overlay[]>}} OverlayData
 * @typedef {{shown: ?string, sides: {a: OverlayData, b: OverlayData}}} SidesOverlayData a diff's: each side's overlays
 * @typedef {Object<string, ?OverlayData>} GraphSets the overlays of each graph a view draws, by graph: "" the one
 *   program's graph, "a" and "b" a diff's two sides
 * @typedef {"instr" | "value" | "group"} NodeKind
 * @typedef {{value: ?number, count: number, from: ?string, folded: boolean}} NodeNumber
 * @typedef {{value: number, label: string, color: string, t: number}} LegendTick
 * @typedef {{title: string, kind: string, gradient: ?string, ticks: LegendTick[], entries: Array<{color: string, label: string}>,
 *   rule: string, none: {color: string, label: string}, note: string}} LegendModel
 */

// the default scale (matplotlib's viridis): perceptually uniform, readable with the common colour-vision
// deficiencies, and the same stops Python sends (explorer.analysis.overlays.SCALES["viridis"])
/** @type {Array<[number, string]>} */
export const VIRIDIS = ["#440154", "#472D7B", "#3B528B", "#2C728E", "#21918C", "#28AE80", "#5EC962", "#ADDC30", "#FDE725"]
  .map(function (c, k, all) { return /** @type {[number, string]} */ ([k / (all.length - 1), c]); });
export const NO_DATA = "#D0D7DE";
/** @type {Record<string, [string, string]>} */
const NOUNS = {op: ["op", "ops"], tensor: ["tensor", "tensors"], entry: ["entry", "entries"]};
/** @type {Record<string, string>} */
const RULES = {sum: "sum", max: "max", mean: "mean"};

/** The overlays of one plan (an empty list when it has none). @param {?OverlayData} data @param {string} plan @returns {Overlay[]} */
export function planOverlays(data, plan) {
  return (data && data.plans && data.plans[plan]) || [];
}

/** The overlays of each graph drawn (GraphSets), from a payload's ``overlays`` (or the widget's ``_overlay_data``):
 * a program's (OverlayData) for its one graph "", a diff's (SidesOverlayData) for its sides "a" and "b".
 * @param {?OverlayData | SidesOverlayData | undefined} data @returns {GraphSets} */
export function graphSets(data) {
  if (!data) return {};
  if ("sides" in data && data.sides) return {a: data.sides.a || null, b: data.sides.b || null};
  return {"": /** @type {OverlayData} */ (data)};
}

/** The picker's overlays of a plan over every graph: each name once, in the first graph's order, then those only
 * another graph has (a diff's sides share their built-ins). @param {GraphSets} sets @param {string} plan @returns {Overlay[]} */
export function pickList(sets, plan) {
  /** @type {Overlay[]} */
  const out = [];
  const seen = new Set();
  for (const g of Object.keys(sets)) {
    for (const O of planOverlays(sets[g], plan)) if (!seen.has(O.name)) { seen.add(O.name); out.push(O); }
  }
  return out;
}

/** One span over several graphs' spans (overlayDomain of each; null: nothing numbered there): the smallest low and
 * the largest high, so one colour is one number on every graph. Null when none has a number.
 * @param {Array<?number[] | undefined>} doms @returns {?[number, number]} */
export function mergeDomains(doms) {
  let lo = Infinity, hi = -Infinity;
  for (const d of doms) if (d) { lo = Math.min(lo, d[0]); hi = Math.max(hi, d[1]); }
  return lo <= hi ? [lo, hi] : null;
}

/** One overlay of a plan by name, or null. @param {?OverlayData} data @param {string} plan @param {?string} name @returns {?Overlay} */
export function findOverlay(data, plan, name) {
  if (!name) return null;
  return planOverlays(data, plan).find(function (o) { return o.name === name; }) || null;
}

/** Whether a column entry means "no number". @param {Overlay} O @param {any} v @returns {boolean} */
export function isMissing(O, v) {
  return v === null || v === undefined || Number.isNaN(v) || (O.missing !== null && O.missing !== undefined && v === O.missing);
}

/**
 * A node id of the level-of-detail graph (lod/base.js: instructions 0..m-1, values m..m+n-1, then groups) as
 * its kind and index. @param {Overlay} O @param {number} node @returns {{kind: NodeKind, index: number}}
 */
export function nodeRef(O, node) {
  if (node < O.m) return {kind: "instr", index: node};
  if (node < O.m + O.n) return {kind: "value", index: node - O.m};
  return {kind: "group", index: node - O.m - O.n};
}

/**
 * A node's number: ``value`` (null: none), how many items a folded group's number was made of (``count``), and
 * whose number it is when it is a module's (``from``: the module's label).
 * @param {Overlay} O @param {NodeKind} kind @param {number} index @returns {NodeNumber}
 */
export function nodeValue(O, kind, index) {
  const col = kind === "instr" ? O.instr : kind === "value" ? O.value : O.group;
  const v = col && index >= 0 && index < col.length ? col[index] : null;
  if (isMissing(O, v)) return {value: null, count: 0, from: null, folded: kind === "group"};
  const fromCol = kind === "instr" ? O.instrFrom : kind === "group" ? O.groupFrom : null;
  const k = fromCol ? fromCol[index] : -1;
  return {value: Number(v), count: kind === "group" ? O.groupCount[index] : 1,
          from: k >= 0 && O.modules[k] ? String(O.modules[k][0]) : null, folded: kind === "group"};
}

/**
 * The numbers a colour scale spans for the nodes drawn: the scale's own min/max where the user fixed them, else
 * the smallest and largest number among ``nodes`` (LOD node ids; all instructions and values when omitted).
 * Null when no node has a number. @param {Overlay} O @param {number[]} [nodes] @returns {?[number, number]}
 */
export function overlayDomain(O, nodes) {
  let lo = Infinity, hi = -Infinity, k, v;
  function see(/** @type {number} */ x) { if (x < lo) lo = x; if (x > hi) hi = x; }
  if (nodes) {
    for (k = 0; k < nodes.length; k++) {
      const r = nodeRef(O, nodes[k]);
      v = nodeValue(O, r.kind, r.index).value;
      if (v !== null) see(v);
    }
  } else {
    for (k = 0; k < O.instr.length; k++) if (!isMissing(O, O.instr[k])) see(Number(O.instr[k]));
    for (k = 0; k < O.value.length; k++) if (!isMissing(O, O.value[k])) see(Number(O.value[k]));
  }
  const s = O.scale;
  if (s.kind === "continuous") {
    if (s.min !== null && s.min !== undefined) lo = s.min;
    if (s.max !== null && s.max !== undefined) hi = s.max;
  }
  if (!(lo <= hi) || !Number.isFinite(lo) || !Number.isFinite(hi)) return null;
  return [lo, hi];
}

/** @param {number} x */
function hex2(x) { return Math.round(Math.max(0, Math.min(255, x))).toString(16).padStart(2, "0").toUpperCase(); }
/** @param {string} c @returns {[number, number, number]} */
function rgb(c) { return [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)]; }

/** The colour at ``t`` (0..1, clamped) between a scale's stops, as "#RRGGBB". @param {Array<[number, string]>} stops @param {number} t @returns {string} */
export function scaleColor(stops, t) {
  stops = stops && stops.length ? stops : VIRIDIS;
  t = Math.max(0, Math.min(1, Number.isFinite(t) ? t : 0));
  for (let k = 1; k < stops.length; k++) {
    if (t <= stops[k][0]) {
      const a = stops[k - 1], b = stops[k], u = b[0] > a[0] ? (t - a[0]) / (b[0] - a[0]) : 0;
      const ca = rgb(a[1]), cb = rgb(b[1]);
      return "#" + hex2(ca[0] + u * (cb[0] - ca[0])) + hex2(ca[1] + u * (cb[1] - ca[1])) + hex2(ca[2] + u * (cb[2] - ca[2]));
    }
  }
  return stops[stops.length - 1][1].toUpperCase();
}

/** Where a number sits on a continuous scale over ``dom``, 0..1 (log: by its logarithm). @param {OverlayScale} s @param {number} v @param {?number[]} dom @returns {number} */
export function scalePosition(s, v, dom) {
  if (!dom) return 0;
  let lo = dom[0], hi = dom[1];
  if (s.kind === "continuous" && s.log) {
    if (!(lo > 0)) lo = hi > 0 ? hi / 1e6 : 1;
    if (!(v > 0)) return 0;
    return hi > lo ? (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) : 0.5;
  }
  return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}

/**
 * The colour of a number: the threshold band it falls in (the no-data grey below the first bound), or its place on
 * the continuous scale over ``dom`` (overlayDomain). A missing number gets ``O.none``.
 * @param {Overlay} O @param {?number} v @param {?number[]} dom @returns {string}
 */
export function colorOf(O, v, dom) {
  if (isMissing(O, v)) return O.none || NO_DATA;
  const s = O.scale;
  if (s.kind === "thresholds") {
    let pick = -1;
    for (let k = 0; k < s.bounds.length; k++) { const b = s.bounds[k]; if (b === null || b === undefined || Number(v) >= b) pick = k; }
    return pick >= 0 ? s.colors[pick] : (O.none || NO_DATA);
  }
  return scaleColor(s.stops, scalePosition(s, Number(v), dom));
}

/**
 * Colours for the nodes drawn (LOD node ids: instructions, tensors, folded groups), in their order; ``dom``
 * defaults to overlayDomain over the same nodes, so the scale spans what is on screen.
 * @param {Overlay} O @param {number[]} nodes @param {?number[]} [dom] @returns {string[]}
 */
export function nodeColors(O, nodes, dom) {
  const d = dom === undefined ? overlayDomain(O, nodes) : dom;
  return nodes.map(function (id) {
    const r = nodeRef(O, id);
    return colorOf(O, nodeValue(O, r.kind, r.index).value, d);
  });
}

/** @param {number} ns */
function timeText(ns) {
  const a = Math.abs(ns);
  /** @type {[string, number][]} */
  const units = [["s", 1e9], ["ms", 1e6], ["µs", 1e3]];
  for (let k = 0; k < units.length; k++) {
    if (a >= units[k][1]) { const v = ns / units[k][1]; return (Math.abs(v) < 100 ? Number(v.toPrecision(3)) : Math.round(v)) + " " + units[k][0]; }
  }
  return Math.round(ns) + " ns";
}

/** A number as the overlay writes it: bytes as KiB/MiB, time (ns) as ns/µs/ms/s, else 3 significant digits and the unit. @param {Overlay} O @param {?number} v @returns {string} */
export function formatValue(O, v) {
  if (isMissing(O, v)) return "no data";
  let x = Number(v), text;
  if (O.format === "bytes") return bytesText(Math.round(x));
  if (O.format === "time") return timeText(x);
  if (O.format === "count" && Number.isInteger(x)) text = countText(x);
  else text = Math.abs(x) >= 1e4 && Math.abs(x) < 1e15 && Number.isInteger(x) ? countText(x) : String(Number(x.toPrecision(3)));
  return O.unit ? text + " " + O.unit : text;
}

/**
 * A node's number as text, with how it was made: "3.4 ms", "41.5 ms (sum of 12 ops)", "2 (layers.3's number)",
 * "no data". Plain text. @param {Overlay} O @param {NodeKind} kind @param {number} index @returns {string}
 */
export function valueText(O, kind, index) {
  const got = nodeValue(O, kind, index), text = formatValue(O, got.value);
  if (got.value === null) return text;
  if (got.from !== null) return text + " (" + got.from + "'s number)";
  if (got.folded) {
    const noun = NOUNS[O.noun] || NOUNS.entry, rule = RULES[O.aggregate] || O.aggregate;
    return text + " (" + rule + " of " + countText(got.count) + " " + noun[got.count === 1 ? 0 : 1] + ")";
  }
  return text;
}

/**
 * The hover line of a node: "time: 3.4 ms", "time: 41.5 ms (sum of 12 ops)", "size: no data". Plain text.
 * @param {Overlay} O @param {NodeKind} kind @param {number} index @returns {string}
 */
export function hoverLine(O, kind, index) {
  return O.label + ": " + valueText(O, kind, index);
}

/**
 * Rows for the details panel: [label, text] pairs — the node's number (valueText), for a folded group the rule
 * it follows, and where the numbers come from. Plain text. @param {Overlay} O @param {NodeKind} kind
 * @param {number} index @returns {Array<[string, string]>}
 */
export function detailsRows(O, kind, index) {
  /** @type {Array<[string, string]>} */
  const rows = [[O.label, valueText(O, kind, index)]];
  if (kind === "group") rows.push(["rule", O.rule]);
  if (O.note) rows.push(["from", O.note]);
  return rows;
}

/**
 * What the legend draws: a title (name and unit), for a continuous scale a CSS gradient and ~5 ticks over
 * ``dom`` (null: the overlay's own range), for thresholds one entry per band; the aggregation rule as a sentence;
 * the no-data swatch. @param {Overlay} O @param {?number[]} [dom] @param {number} [count] @returns {LegendModel}
 */
export function legendModel(O, dom, count) {
  let s = O.scale, ticks = [], entries = [], gradient = null;
  const title = O.label + (O.unit && O.format === "number" ? " (" + O.unit + ")" : "");
  if (s.kind === "thresholds") {
    const below = s.bounds.length && s.bounds[0] !== null && s.bounds[0] !== undefined;
    if (below) entries.push({color: O.none || NO_DATA, label: "< " + formatValue(O, s.bounds[0])});
    for (let k = 0; k < s.bounds.length; k++) entries.push({color: s.colors[k], label: s.labels[k]});
  } else {
    const d = dom === undefined || dom === null ? overlayDomain(O) : dom;
    gradient = "linear-gradient(to right, " + s.stops.map(function (p) { return p[1] + " " + (100 * p[0]).toFixed(1) + "%"; }).join(", ") + ")";
    if (d) {
      const n = Math.max(2, count || 5);
      for (let j = 0; j < n; j++) {
        let t = j / (n - 1), v;
        if (s.log && d[0] > 0) v = Math.exp(Math.log(d[0]) + t * (Math.log(d[1]) - Math.log(d[0])));
        else v = d[0] + t * (d[1] - d[0]);
        ticks.push({value: v, label: formatValue(O, v), color: scaleColor(s.stops, t), t: t});
        if (d[1] === d[0]) break;
      }
    }
  }
  return {title: title, kind: s.kind, gradient: gradient, ticks: ticks, entries: entries, rule: O.rule,
          none: {color: O.none || NO_DATA, label: "no data"}, note: O.note || ""};
}
