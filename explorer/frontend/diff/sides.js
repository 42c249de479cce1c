// A diff of two programs, at every size: each side is drawn by the one-program modules (lod/plan.js — the same
// folding, layout, details and binned memory lanes; a small plan opens with every group expanded), and the diff
// adds its marks on top: changed tensors and ops ringed in their status colour, and every folded group holding
// changes ringed with a "Δn" count, so a reviewer finds them in the overview. A selection on one side reveals
// (expands) the group holding its counterpart on the other. The payload is explorer.views.payload.diff.lod_plan_payload:
// per side the one-program big-plan payload, the diff as columns (marks, pairs), and the before -> after table
// of every changed tensor pair (escaped in Python).
import {esc} from "../util/common.js";
import {countText} from "../util/format.js";
import {lodPlan} from "../lod/plan.js";
import {search} from "../shell/search.js";
import {planFigures} from "../lod/figures.js";

/** @typedef {"a" | "b"} Side */
/** @typedef {import("../types/payload").DiffPlanPayload} DiffPlanPayload */
/** @typedef {import("../types/payload").LodGroups} LodGroups */
/** @typedef {import("../lod/base.js").Folded} Folded */
/** @typedef {import("../lod/base.js").FoldNode} FoldNode */
/** the two sides, A (before) then B (after) @type {Side[]} */
export const SIDES = ["a", "b"];
/** @param {Side} side @returns {Side} */
export const other = (side) => (side === "a" ? "b" : "a");
/** a value per side, built by `make(side)` @template T @param {(s: Side) => T} make @returns {import("../types/payload").Sides<T>} */
const bySide = (make) => ({a: make("a"), b: make("b")});

// -- pure: the payload's columns as lookups ------------------------------------------------------------
/** @typedef {ReturnType<typeof diffIndex>} DiffIndex */
/** per side: value -> tensor status, instruction -> op status, instruction -> the other side's, value -> its
 * before -> after text (P.texts); pair[s]: value -> its counterpart on the other side
 * @param {Pick<DiffPlanPayload, "marks" | "ipairs" | "vd" | "pairs">} P */
export function diffIndex(P) {
  /** @param {number[]} keys @param {number[]} values */
  const lookup = (keys, values) => new Map(keys.map((k, q) => [k, values[q]]));
  const out = {status: bySide((s) => lookup(P.marks[s].v, P.marks[s].vs)),
               opStatus: bySide((s) => lookup(P.marks[s].i, P.marks[s].is)),
               ipair: bySide((s) => lookup(P.ipairs[s].i, P.ipairs[s].o)),
               text: bySide((s) => lookup(P.vd[s].v, P.vd[s].t)),
               pair: {a: lookup(P.pairs.a, P.pairs.b), b: lookup(P.pairs.b, P.pairs.a)}};
  return out;
}

// -- pure: the changes each group holds ------------------------------------------------------------------
// A changed tensor counts in the groups holding its home instruction (where the overview draws it), a changed op
// in the groups holding it. Codes: tensor statuses 0..nT-1, then op statuses nT..nT+nO-1. Returns per group the
// total, the counts per code and `top`: the first code (the legend's order, weightiest first) it holds, or -1.
/** @typedef {ReturnType<typeof groupChanges>} GroupChanges */
/**
 * @param {Pick<LodGroups, "start" | "stop">} G @param {number} m @param {{index: number[], home: number[]}} tensors
 * @param {{v: number[], vs: number[], i: number[], is: number[]}} marks @param {number} nT @param {number} nO
 */
export function groupChanges(G, m, tensors, marks, nT, nO) {
  const K = nT + nO, pre = new Int32Array((m + 1) * K), home = /** @type {Map<number, number>} */ (new Map());
  tensors.index.forEach((v, r) => home.set(v, tensors.home[r]));
  marks.v.forEach((v, k) => {
    const i = home.get(v);
    if (i !== undefined && i >= 0 && i < m) pre[(i + 1) * K + marks.vs[k]]++;
  });
  marks.i.forEach((i, k) => { if (i >= 0 && i < m) pre[(i + 1) * K + nT + marks.is[k]]++; });
  for (let i = 1; i <= m; i++) for (let c = 0; c < K; c++) pre[i * K + c] += pre[(i - 1) * K + c];
  const nG = G.start.length, total = new Int32Array(nG), top = new Int32Array(nG).fill(-1), by = /** @type {Int32Array[]} */ ([]);
  for (let g = 0; g < nG; g++) {
    const row = new Int32Array(K), lo = Math.max(0, Math.min(G.start[g], m)), hi = Math.max(lo, Math.min(G.stop[g], m));
    for (let c = 0; c < K; c++) {
      row[c] = pre[hi * K + c] - pre[lo * K + c];
      total[g] += row[c];
      if (row[c] && top[g] < 0) top[g] = c;
    }
    by.push(row);
  }
  return {total, top, by, nT};
}

// -- pure: the marks over the nodes drawn now ------------------------------------------------------------
// f: the folded overview (lod/plan.js folded(): nodes ["v"|"i"|"g", id], x, y); status / opStatus: id -> code;
// gc: groupChanges; styles: payload statuses ({tensor: [{color, width}], op: [...]}); symbolOf(node): its marker.
/**
 * @param {Pick<Folded, "nodes" | "x" | "y">} f @param {Map<number, number>} status @param {Map<number, number>} opStatus
 * @param {{total: ArrayLike<number>, top: ArrayLike<number>, nT: number}} gc
 * @param {{tensor: {color: string | null, width: number}[], op: {color: string | null, width: number}[]}} styles
 * @param {(nd: FoldNode) => string} symbolOf
 */
export function markItems(f, status, opStatus, gc, styles, symbolOf) {
  const marks = /** @type {{x: number, y: number, symbol: string, r: number, color: string, width: number}[]} */ ([]);
  const texts = /** @type {{x: number, y: number, text: string, color: string | null, r: number}[]} */ ([]);
  f.nodes.forEach((nd, p) => {
    const x = f.x[p], y = -f.y[p];
    let st = null, r = 10;
    if (nd[0] === "v") { const c = status.get(nd[1]); if (c !== undefined) st = styles.tensor[c]; r = 9.5; }
    else if (nd[0] === "i") { const c = opStatus.get(nd[1]); if (c !== undefined) st = styles.op[c]; r = 12; }
    else if (gc.total[nd[1]]) {
      const c = gc.top[nd[1]];
      st = c < gc.nT ? styles.tensor[c] : styles.op[c - gc.nT];
      r = 12.5;
      texts.push({x, y, text: "\u0394" + countText(gc.total[nd[1]]), color: st.color, r});
    }
    if (st && st.color) marks.push({x, y, symbol: symbolOf(nd), r, color: st.color, width: Math.max(st.width, 2.5)});
  });
  return {marks, texts};
}

// -- pure: what the plan's diff says, before anything is selected ------------------------------------------
// Per status (tensors, then ops) how many changed: a pair marked on both sides (moved, replaced) counts once (the
// larger side's count), what is on one side only counts there. The details panel shows it until a selection, with
// `hint` (how to select) under it, so the card reads as the header's counts in words, never as an empty box.
/** @param {Pick<DiffPlanPayload, "label" | "marks" | "statuses">} P @param {string} hint escaped HTML @returns {string} */
export function changeSummary(P, hint) {
  /** @param {number[]} a @param {number[]} b @param {number} n */
  const most = (a, b, n) => Array.from({length: n}, (_, c) => Math.max(a.filter((x) => x === c).length, b.filter((x) => x === c).length));
  const rows = /** @type {string[]} */ ([]);
  /** @param {number[]} counts @param {{color: string | null, label: string}[]} styles @param {string} noun */
  const add = (counts, styles, noun) => counts.forEach((k, c) => {
    if (k) rows.push("<li><span style='color:" + (styles[c].color || "inherit") + "'>\u25cf</span> " + countText(k) + " " + noun +
                     (k === 1 ? "" : "s") + ": " + esc(styles[c].label) + "</li>");
  });
  add(most(P.marks.a.vs, P.marks.b.vs, P.statuses.tensor.length), P.statuses.tensor, "tensor");
  add(most(P.marks.a.is, P.marks.b.is, P.statuses.op.length), P.statuses.op, "op");
  return "<div class='dx-root dx-diff dx-diff-summary'><h4>What changed in " + esc(P.label) + "</h4>" +
    (rows.length ? "<ul class='dx-list'>" + rows.join("") + "</ul>"
      : "<div class='dx-muted'>nothing: A and B place every tensor and op alike</div>") + "</div>" + hint;
}

// -- pure: the group of the other side to open with one -------------------------------------------------
// G / O: the group tables of this side and the other (parent, start, stop, childStart, children); ipair: this
// side's instruction -> the other's. The other side's group at the same depth holding the counterpart of the
// first paired instruction of g (shallower when its tree is shallower there), or -1 (nothing of g is paired).
/** @param {LodGroups} G @param {LodGroups} O @param {number} g @param {Map<number, number>} ipair */
export function counterpartGroup(G, O, g, ipair) {
  let depth = 0;
  for (let q = g; q > 0; q = G.parent[q]) depth++;
  let target;
  for (let i = G.start[g]; i < G.stop[g] && target === undefined; i++) target = ipair.get(i);
  if (target === undefined || depth === 0) return -1;
  let at = 0;
  for (let d = 0; d < depth; d++) {
    const kids = O.children.slice(O.childStart[at], O.childStart[at + 1]);
    if (!kids.length) break;
    let pick = -1;
    for (const c of kids) if (O.start[c] <= target && target < O.stop[c]) pick = c;
    if (pick < 0) break;
    at = pick;
  }
  return at > 0 ? at : -1;
}

// -- the two sides ---------------------------------------------------------------------------------------
// side s's one-program payload with its ETRecord's context (plans[].contexts.s), so its details, hover and
// search show it as the one-program app does
/** @param {Pick<DiffPlanPayload, "sides" | "contexts">} P @param {Side} s @returns {import("../types/payload").DrawnPlan} */
export function sideContext(P, s) {
  const X = P.contexts ? P.contexts[s] : null;
  return X ? Object.assign({}, P.sides[s], {context: X}) : P.sides[s];
}
/**
 * What the diff page (diff/diff.js) hands diffLod: per side its graph and memory plots, their overlays (panels/rings.js), the
 * plotly config, the details element, where a selection made on a side goes, the sides' names, and (optional) a
 * hook after each draw of a side's graph, the rows a side's node details start with (an overlay's number, a run's
 * numbers), a side's graph traces before they are drawn (an overlay's colours: overlay/view.js), the text of
 * changed pair k when the payload left it out (null until it arrives: diff/diff.js asks the kernel), the most px
 * a side's graph may be tall (LodHost room) and where the memory maps' first draw goes (`later`: a stage of the host's
 * queue, util/common.js stages; none: now).
 * @typedef {{graphs: Sides<PlotDiv>, memories: Sides<PlotDiv>, overlays: Sides<{set(items: object): void}>,
 *            memoryOverlays: Sides<{set(items: object): void}>, config: object, details: HTMLElement,
 *            select(sel: {side: Side, values: number[], instructions: number[]}): void, names: Sides<string>,
 *            drawn?: (s: Side) => void, detailRows?: (s: Side, kind: "value" | "instr" | "group", index: number) => [string, string][],
 *            paint?: (s: Side, traces: Record<string, any>[]) => void, askText?: (k: number) => string | null,
 *            room?: (s: Side) => number, later?: (fn: () => void, name?: string) => void}} DiffCtx
 */
/** @template T @typedef {import("../types/payload").Sides<T>} Sides */
/** @typedef {{side: Side | "", values: Sides<number[]>, instructions: Sides<number[]>}} DiffState */
/**
 * One side as drawn: its payload, tables, lodPlan, selection, rings, labels and the changes its groups hold.
 * @typedef {{SP: import("../types/payload").DrawnPlan, L: import("../types/payload").LodPayload, lod: import("../lod/plan.js").LodPlan,
 *            st: {values: number[], instructions: number[]}, sel: {edges: object[], rings: object[]},
 *            labels: {v: Record<number, string>, i: string[]}, gc: GroupChanges}} DrawnSide
 */
// long-function: not split yet: its two sides' plans, marks and counterpart reveals share the sides' drawn state
// (DrawnSide) in closures; splitting by job needs that state passed explicitly first.
/** @param {DiffPlanPayload} P @param {DiffCtx} ctx */
export function diffLod(P, ctx) {
  const I = diffIndex(P);
  /** @type {Partial<Sides<DrawnSide>>} filled below, both sides */
  const drawnSides = {};
  /** @param {Side} s */
  const sideOf = (s) => /** @type {DrawnSide} */ (drawnSides[s]);
  const nT = P.statuses.tensor.length, nO = P.statuses.op.length;
  /** @type {(() => void)[]} each side's memory map, drawn after both graphs */
  const memories = [];
  /** the diff's marks and the selection, over side s's overview as drawn now @param {Side} s */
  function paint(s) {
    const side = drawnSides[s];
    if (!side) return;
    const L = side.L, f = side.lod.folded();
    /** @param {FoldNode} nd */
    const symbolOf = (nd) => nd[0] === "v" ? "circle" : nd[0] === "i"
      ? L.style.op[/** @type {keyof typeof L.style.op} */ (L.names.opKinds[L.ops.kind[nd[1]]])].symbol
      : L.style.group[/** @type {keyof typeof L.style.group} */ (L.groups.kind[nd[1]])];
    const mk = markItems(f, I.status[s], I.opStatus[s], side.gc, P.statuses, symbolOf);
    ctx.overlays[s].set({edges: side.sel.edges || [], rings: side.sel.rings || [], marks: mk.marks, texts: mk.texts});
  }
  for (const s of SIDES) {
    const SP = sideContext(P, s), L = SP.lod;
    const st = {values: /** @type {number[]} */ ([]), instructions: /** @type {number[]} */ ([])};
    const box = {edges: /** @type {object[]} */ ([]), rings: /** @type {object[]} */ ([])};
    const host = {graph: ctx.graphs[s], memory: ctx.memories[s], state: st, config: ctx.config, shown: () => ({}),
                  select: (/** @type {{values?: number[], instructions?: number[]}} */ sel) =>
                    ctx.select({side: s, values: sel.values || [], instructions: sel.instructions || []}),
                  html: (/** @type {string} */ markup) => { ctx.details.innerHTML = markup; }, findings: () => [], expanded: () => {},
                  moved: () => {},
                  rings: (/** @type {{edges: object[], rings: object[]}} */ items) => { box.edges = items.edges; box.rings = items.rings; paint(s); },
                  drawn: () => { if (ctx.drawn) ctx.drawn(s); },  // after each draw of this side's graph
                  // this side's traces before each draw: coloured by the overlay picked (overlay/view.js)
                  paint: (/** @type {Record<string, any>[]} */ traces) => { if (ctx.paint) ctx.paint(s, traces); },
                  room: () => ctx.room ? ctx.room(s) : 720, keepSmall: true,
                  // first in a node's details: this side's numbers (profile/numerics.js), when the diff carries runs
                  detailRows: (/** @type {"value" | "instr" | "group"} */ kind, /** @type {number} */ index) =>
                    ctx.detailRows ? ctx.detailRows(s, kind, index) : [],
                  outlines: (/** @type {object} */ items) => ctx.memoryOverlays[s].set(items),
                  // changed tensors outlined in their status colour in the lanes (binned cells count them)
                  marks: {of: (/** @type {number} */ v) => { const c = I.status[s].get(v), st = c === undefined ? null : P.statuses.tensor[c];
                                        return st && st.color ? {color: st.color, width: st.width} : null; },
                          noun: "changed"}};
    // the first state as the one-program app draws a plan (app/app.js), each figure in one Plotly.react from its
    // skeleton (lod/figures.js; not the skeleton and then the plan: that laid out both sides' figures twice): the
    // graph with the diff's marks now, the memory map (under the graphs: only its title is in the first view) after,
    // in a stage of its own when the host queues it (diff/diff.js: a big pair's first view); its box keeps its height
    // meanwhile, so nothing under it moves
    ctx.memories[s].style.minHeight = planFigures(L).memory.layout.height + "px";
    const lod = lodPlan(SP, host, {draw: false});
    lod.drawFirst();
    drawnSides[s] = {SP, L, lod, st, sel: box, labels: lod.labels(),
                     gc: groupChanges(L.groups, L.m, L.tensors, P.marks[s], nT, nO)};
    lod.highlight([], []);
    paint(s);
    memories.push(() => {
      lod.drawLanes();
      ctx.memories[s].style.minHeight = "";
    });
  }
  // both graphs first (what the first view shows), then both memory maps
  const later = ctx.later || ((/** @type {() => void} */ fn) => fn());
  later(() => { memories.forEach((draw) => draw()); }, "memory");

  /** the other side's value / instruction, or undefined @param {Side} s @param {"v" | "i"} kind @param {number} x */
  function counterpart(s, kind, x) {
    return kind === "v" ? I.pair[s].get(x) : I.ipair[s].get(x);
  }

  // reveal: the sides whose groups holding the selection open
  /** @param {DiffState} state @param {Side[]} reveal */
  function highlight(state, reveal) {
    for (const s of SIDES) {
      const side = sideOf(s);
      side.st.values = state.values[s].slice(); side.st.instructions = state.instructions[s].slice();
      if (reveal.indexOf(s) >= 0) side.lod.reveal(side.st.values, side.st.instructions);
      side.lod.highlight(side.st.values, side.st.instructions);
    }
  }

  /** @param {Side} s */
  function nameOf(s) { return "<span class='dx-side-" + s + "'>" + s.toUpperCase() + "</span>" + esc(ctx.names[s]); }
  /** @param {string | null} a @param {string | null} b @param {string} [what] @param {string} [none] a missing side's words */
  function columns(a, b, what, none) {
    const cell = (/** @type {string | null} */ html, /** @type {Side} */ s) => "<td style='width:50%'>" + (html === null
      ? "<span class='dx-none'>" + (none || "no counterpart in " + s.toUpperCase() + " (" + (s === "a" ? "added in B" : "removed") + ")") + "</span>"
      : html) + "</td>";
    return "<table class='dx-cmp dx-cols'><tr><th>" + nameOf("a") + "</th><th>" + nameOf("b") + "</th></tr><tr>" +
      cell(a, "a") + cell(b, "b") + "</tr></table>" + (what || "");
  }
  /** @param {Side} s @param {number} v */
  function valuePair(s, v) {
    const a = s === "a" ? v : I.pair.b.get(v), b = s === "a" ? I.pair.a.get(v) : v;
    const t = I.text[s].get(v);
    // a value the pairing does not hold and no status marks: a non-tensor (an Int, a list), which the diff does not
    // match: said so once, never "unchanged" beside "no counterpart" (the pairing is of tensors)
    const unpaired = t === undefined && (a === undefined || b === undefined) ? unpairedKind(s, v) : null;
    const cols = columns(a === undefined ? null : sideOf("a").lod.valueDetails(a), b === undefined ? null : sideOf("b").lod.valueDetails(b),
                         "", unpaired === null ? "" : "not matched: the diff pairs tensors only");
    if (t !== undefined) {
      // a widget's what-if sends these on request (views/payload/diff.py lazy): asked for now, redrawn on arrival
      const text = P.texts[t] !== null ? P.texts[t] : ctx.askText ? ctx.askText(t) : null;
      return (text !== null ? text : "<div class='dx-root dx-diff dx-pair-wait'><h4><span class='dx-muted'>" + (a === undefined ? "\u2014" : "%" + a) + " \u2192 " + (b === undefined ? "\u2014" : "%" + b) +
        "</span> <span class='dx-muted'>what changed: asking Python\u2026</span></h4></div>") +
        "<details class='dx-root'" + (text !== null ? "" : " open") + "><summary>each side's details</summary>" + cols + "</details>";
    }
    const label = sideOf(s).labels.v[v] !== undefined ? sideOf(s).labels.v[v] : "%" + v;
    const named = label !== "%" + v;  // an unnamed tensor is its %N: not "%14 %14 → %16"
    const badge = unpaired === null ? P.badges.same
      : "<span class='dx-status dx-status-none'>not compared</span>";
    return "<div class='dx-root dx-diff'><h4>" + badge + (named ? esc(label) + " " : "") + "<span class='dx-muted'>" +
      (a === undefined ? "\u2014" : "%" + a) + " \u2192 " + (b === undefined ? "\u2014" : "%" + b) + "</span></h4>" +
      (unpaired === null ? "" : "<div class='dx-muted dx-unpaired'>" + esc(unpaired) + " of " + s.toUpperCase() +
        ": the diff matches tensors between A and B, so it has no counterpart to compare</div>") + cols + "</div>";
  }
  /** "an Int", "a tensor", ... for value v of side s: what its kind is, from its side's tables @param {Side} s @param {number} v */
  function unpairedKind(s, v) {
    const L = sideOf(s).L, kind = L.valueKinds[L.valueKind[v]] || "value";
    return (/^[aeiou]/i.test(kind) ? "an " : "a ") + kind;
  }
  /** @param {Side} s @param {number} i */
  function instrPair(s, i) {
    const o = I.ipair[s].get(i), a = s === "a" ? i : o, b = s === "a" ? o : i, c = I.opStatus[s].get(i);
    const label = sideOf(s).labels.i[i] !== undefined ? sideOf(s).labels.i[i] : "#" + i;
    return "<div class='dx-root dx-diff'><h4>" + (c === undefined ? P.badges.same : P.badges.op[c]) +
      "<span class='dx-code'>" + esc(label) + "</span> <span class='dx-muted'>" + (a === undefined ? "\u2014" : "#" + a) +
      " \u2192 " + (b === undefined ? "\u2014" : "#" + b) + "</span></h4>" +
      columns(a === undefined ? null : sideOf("a").lod.instrDetails(a), b === undefined ? null : sideOf("b").lod.instrDetails(b)) + "</div>";
  }
  // the details of a one-item selection, or null (the caller lists a bigger one)
  /** @param {DiffState} state */
  function details(state) {
    const s = state.side || "a", vs = state.values[s], is = state.instructions[s];
    if (vs.length === 1 && !is.length) return valuePair(s, vs[0]);
    if (is.length === 1 && !vs.length) return instrPair(s, is[0]);
    return null;
  }
  /** what changed inside group g of side s, under its details @param {Side} s @param {number} g */
  function groupNote(s, g) {
    const side = sideOf(s), G = side.L.groups, row = side.gc.by[g], parts = /** @type {string[]} */ ([]);
    if (!side.gc.total[g]) return "<div class='dx-root dx-diff dx-muted'>no changes in this group</div>";
    row.forEach((k, c) => {
      if (!k) return;
      const st = c < nT ? P.statuses.tensor[c] : P.statuses.op[c - nT];
      parts.push("<li><span style='color:" + st.color + "'>\u25cf</span> " + countText(k) + " " + (c < nT ? "tensors " : "ops: ") + esc(st.label) + "</li>");
    });
    const lo = G.start[g], hi = G.stop[g], home = /** @type {Map<number, number>} */ (new Map());
    side.L.tensors.index.forEach((v, r) => home.set(v, side.L.tensors.home[r]));
    const items = /** @type {string[]} */ ([]);
    P.marks[s].v.forEach((v, k) => {
      const h0 = home.get(v);
      if (h0 !== undefined && h0 >= lo && h0 < hi && items.length < 12) items.push("<li>" + P.badges.tensor[P.marks[s].vs[k]] + esc(side.labels.v[v] || "%" + v) + "</li>");
    });
    return "<div class='dx-root dx-diff'><h4>\u0394 " + countText(side.gc.total[g]) + " changes in " + nameOf(s) + "'s group</h4>" +
      "<ul class='dx-list'>" + parts.join("") + "</ul>" + (items.length ? "<ul class='dx-list'>" + items.join("") + "</ul>" : "") + "</div>";
  }
  // a group opened (or closed) on one side opens (closes) its counterpart on the other, so both show the same part
  /** @param {Side} s @param {number} g @param {boolean} open */
  function follow(s, g, open) {
    const o = other(s), q = counterpartGroup(sideOf(s).L.groups, sideOf(o).L.groups, g, I.ipair[s]);
    if (q < 0) return;
    const isOpen = sideOf(o).lod.state().expanded.indexOf(q) >= 0;
    if (open && !isOpen) sideOf(o).lod.expand(q);
    else if (!open && isOpen) sideOf(o).lod.collapse(q);
  }
  /** @param {Side} s @param {{curveNumber: number, customdata?: any, x: number, y: number}} pt */
  function clickGraph(s, pt) {
    const T = sideOf(s).L.trace, g = pt.customdata;
    const group = pt.curveNumber === T.groups, header = pt.curveNumber === T.headers;
    if (group || header) follow(s, g, group);  // first: the details end with this side's group
    sideOf(s).lod.clickGraph(pt);
    if (group || header) ctx.details.insertAdjacentHTML("beforeend", groupNote(s, g));
  }
  /** the search box on both sides at once: each side's own matches @param {string} text */
  function find(text) {
    /** @type {DiffState & {query: string}} */
    const out = {side: "", values: {a: [], b: []}, instructions: {a: [], b: []}, query: text};
    for (const s of SIDES) {
      const SP = sideOf(s).SP, r = search({labels: sideOf(s).labels, nValues: SP.nValues, nInstructions: SP.nInstructions, context: SP.context}, text);
      out.values[s] = r.values; out.instructions[s] = r.instructions;
    }
    return out;
  }
  return {highlight, details, counterpart, clickGraph, find, groupNote, follow,
          clickMemory: (/** @type {Side} */ s, /** @type {{curveNumber: number, customdata?: any}} */ pt) => sideOf(s).lod.clickMemory(pt),
          onRelayout: (/** @type {Side} */ s, /** @type {Record<string, any>} */ ev) => sideOf(s).lod.onRelayout(ev),
          side: (/** @type {Side} */ s) => sideOf(s).lod, groups: (/** @type {Side} */ s) => sideOf(s).gc,
          labels: (/** @type {Side} */ s) => sideOf(s).labels};
}
