// A diff of two programs, at every size: each side is drawn by the one-program modules (lod.js — the same
// folding, layout, details and binned memory lanes; a small plan opens with every group expanded), and the diff
// adds its marks on top: changed tensors and ops ringed in their status colour, and every folded group holding
// changes ringed with a "Δn" count, so a reviewer finds them in the overview. A selection on one side reveals
// (expands) the group holding its counterpart on the other. The payload is explorer.views.diff_report.lod_plan_payload:
// per side the one-program big-plan payload, the diff as columns (marks, pairs), and the before -> after table
// of every changed tensor pair (escaped in Python).
import {esc, num} from "./util.js";
import {lodPlan} from "./lod.js";
import {search} from "./search.js";
import {fresh, planFigures} from "./figures.js";

const SIDES = ["a", "b"];
const other = (side) => (side === "a" ? "b" : "a");

// -- pure: the payload's columns as lookups ------------------------------------------------------------
export function diffIndex(P) {
  const out = {status: {}, opStatus: {}, ipair: {}, text: {}, pair: {a: new Map(), b: new Map()}};
  for (const s of SIDES) {
    const M = P.marks[s], IP = P.ipairs[s], VD = P.vd[s];
    out.status[s] = new Map(M.v.map((v, k) => [v, M.vs[k]]));
    out.opStatus[s] = new Map(M.i.map((i, k) => [i, M.is[k]]));
    out.ipair[s] = new Map(IP.i.map((i, k) => [i, IP.o[k]]));
    out.text[s] = new Map(VD.v.map((v, k) => [v, VD.t[k]]));
  }
  P.pairs.a.forEach((a, k) => { out.pair.a.set(a, P.pairs.b[k]); out.pair.b.set(P.pairs.b[k], a); });
  return out;
}

// -- pure: the changes each group holds ------------------------------------------------------------------
// A changed tensor counts in the groups holding its home instruction (where the overview draws it), a changed op
// in the groups holding it. Codes: tensor statuses 0..nT-1, then op statuses nT..nT+nO-1. Returns per group the
// total, the counts per code and `top`: the first code (the legend's order, weightiest first) it holds, or -1.
export function groupChanges(G, m, tensors, marks, nT, nO) {
  const K = nT + nO, pre = new Int32Array((m + 1) * K), home = new Map();
  tensors.index.forEach((v, r) => home.set(v, tensors.home[r]));
  marks.v.forEach((v, k) => {
    const i = home.get(v);
    if (i !== undefined && i >= 0 && i < m) pre[(i + 1) * K + marks.vs[k]]++;
  });
  marks.i.forEach((i, k) => { if (i >= 0 && i < m) pre[(i + 1) * K + nT + marks.is[k]]++; });
  for (let i = 1; i <= m; i++) for (let c = 0; c < K; c++) pre[i * K + c] += pre[(i - 1) * K + c];
  const nG = G.start.length, total = new Int32Array(nG), top = new Int32Array(nG).fill(-1), by = [];
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
// f: the folded overview (lod.js folded(): nodes ["v"|"i"|"g", id], x, y); status / opStatus: id -> code;
// gc: groupChanges; styles: payload statuses ({tensor: [{color, width}], op: [...]}); symbolOf(node): its marker.
export function markItems(f, status, opStatus, gc, styles, symbolOf) {
  const marks = [], texts = [];
  f.nodes.forEach((nd, p) => {
    const x = f.x[p], y = -f.y[p];
    let st = null, r = 10;
    if (nd[0] === "v") { const c = status.get(nd[1]); if (c !== undefined) st = styles.tensor[c]; r = 9.5; }
    else if (nd[0] === "i") { const c = opStatus.get(nd[1]); if (c !== undefined) st = styles.op[c]; r = 12; }
    else if (gc.total[nd[1]]) {
      const c = gc.top[nd[1]];
      st = c < gc.nT ? styles.tensor[c] : styles.op[c - gc.nT];
      r = 12.5;
      texts.push({x, y, text: "\u0394" + num(gc.total[nd[1]]), color: st.color, r});
    }
    if (st && st.color) marks.push({x, y, symbol: symbolOf(nd), r, color: st.color, width: Math.max(st.width, 2.5)});
  });
  return {marks, texts};
}

// -- pure: the group of the other side to open with one -------------------------------------------------
// G / O: the group tables of this side and the other (parent, start, stop, childStart, children); ipair: this
// side's instruction -> the other's. The other side's group at the same depth holding the counterpart of the
// first paired instruction of g (shallower when its tree is shallower there), or -1 (nothing of g is paired).
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
export function sideContext(P, s) {
  const X = P.contexts ? P.contexts[s] : null;
  return X ? Object.assign({}, P.sides[s], {context: X}) : P.sides[s];
}
// ctx: {graphs: {a, b}, memories: {a, b}, overlays: {a, b}, memoryOverlays: {a, b}, config, details (element),
//       select(sel) (a selection made on a side), names: {a, b}}
/** @param {import("./payload").DiffPlanPayload} P @param {any} ctx */
export function diffLod(P, ctx) {
  const Plotly = globalThis.Plotly, I = diffIndex(P), S = {};
  const nT = P.statuses.tensor.length, nO = P.statuses.op.length;
  function paint(s) {  // the diff's marks and the selection, over side s's overview as drawn now
    const side = S[s];
    if (!side) return;
    const L = side.L, f = side.lod.folded();
    const symbolOf = (nd) => nd[0] === "v" ? "circle" : nd[0] === "i" ? L.style.op[L.names.opKinds[L.ops.kind[nd[1]]]].symbol
      : L.style.group[L.groups.kind[nd[1]]];
    const mk = markItems(f, I.status[s], I.opStatus[s], side.gc, P.statuses, symbolOf);
    ctx.overlays[s].set({edges: side.sel.edges || [], rings: side.sel.rings || [], marks: mk.marks, texts: mk.texts});
  }
  for (const s of SIDES) {
    const SP = sideContext(P, s), L = SP.lod, st = {values: [], instructions: []}, box = {edges: [], rings: []};
    const host = {graph: ctx.graphs[s], memory: ctx.memories[s], state: st, config: ctx.config, shown: () => ({}),
                  select: (sel) => ctx.select({side: s, values: sel.values || [], instructions: sel.instructions || []}),
                  html: (markup) => { ctx.details.innerHTML = markup; }, findings: () => [], expanded: () => {},
                  moved: () => {}, rings: (items) => { box.edges = items.edges; box.rings = items.rings; paint(s); },
                  drawn: () => { if (ctx.drawn) ctx.drawn(s); },  // after each draw of this side's graph
                  outlines: (items) => ctx.memoryOverlays[s].set(items),
                  // changed tensors outlined in their status colour in the lanes (binned cells count them)
                  marks: {of: (v) => { const c = I.status[s].get(v), st = c === undefined ? null : P.statuses.tensor[c];
                                        return st && st.color ? st : null; },
                          noun: "changed"}};
    // the first state as the one-program app draws a plan (app.js)
    // the skeletons built from the side's tables (figures.js); copies: plotly changes the objects it draws
    const FIG = planFigures(L);
    Plotly.react(ctx.graphs[s], fresh(FIG.graph.data), fresh(FIG.graph.layout), ctx.config);
    Plotly.react(ctx.memories[s], fresh(FIG.memory.data), fresh(FIG.memory.layout), ctx.config);
    const lod = lodPlan(SP, host);
    S[s] = {SP, L, lod, st, sel: box, labels: lod.labels(),
            gc: groupChanges(L.groups, L.m, L.tensors, P.marks[s], nT, nO)};
    lod.highlight([], []);
    paint(s);
  }

  function counterpart(s, kind, x) {  // the other side's value / instruction, or undefined
    return kind === "v" ? I.pair[s].get(x) : I.ipair[s].get(x);
  }

  // state: {side, values: {a, b}, instructions: {a, b}}; reveal: the sides whose groups holding the selection open
  function highlight(state, reveal) {
    for (const s of SIDES) {
      const side = S[s];
      side.st.values = state.values[s].slice(); side.st.instructions = state.instructions[s].slice();
      if (reveal.indexOf(s) >= 0) side.lod.reveal(side.st.values, side.st.instructions);
      side.lod.highlight(side.st.values, side.st.instructions);
    }
  }

  function nameOf(s) { return "<span class='dx-side-" + s + "'>" + s.toUpperCase() + "</span>" + esc(ctx.names[s]); }
  function columns(a, b, what) {
    const cell = (html, s) => "<td style='width:50%'>" + (html === null
      ? "<span class='dx-none'>no counterpart in " + s.toUpperCase() + " (" + (s === "a" ? "added in B" : "removed") + ")</span>"
      : html) + "</td>";
    return "<table class='dx-cmp dx-cols'><tr><th>" + nameOf("a") + "</th><th>" + nameOf("b") + "</th></tr><tr>" +
      cell(a, "a") + cell(b, "b") + "</tr></table>" + (what || "");
  }
  function valuePair(s, v) {
    const a = s === "a" ? v : I.pair.b.get(v), b = s === "a" ? I.pair.a.get(v) : v;
    const cols = columns(a === undefined ? null : S.a.lod.valueDetails(a), b === undefined ? null : S.b.lod.valueDetails(b));
    const t = I.text[s].get(v);
    if (t !== undefined) return P.texts[t] + "<details class='dx-root'><summary>each side's details</summary>" + cols + "</details>";
    const label = S[s].labels.v[v] !== undefined ? S[s].labels.v[v] : "%" + v;
    const named = label !== "%" + v;  // an unnamed tensor is its %N: not "%14 %14 → %16"
    return "<div class='dx-root dx-diff'><h4>" + P.badges.same + (named ? esc(label) + " " : "") + "<span class='dx-muted'>" +
      (a === undefined ? "\u2014" : "%" + a) + " \u2192 " + (b === undefined ? "\u2014" : "%" + b) + "</span></h4>" + cols + "</div>";
  }
  function instrPair(s, i) {
    const o = I.ipair[s].get(i), a = s === "a" ? i : o, b = s === "a" ? o : i, c = I.opStatus[s].get(i);
    const label = S[s].labels.i[i] !== undefined ? S[s].labels.i[i] : "#" + i;
    return "<div class='dx-root dx-diff'><h4>" + (c === undefined ? P.badges.same : P.badges.op[c]) +
      "<span class='dx-code'>" + esc(label) + "</span> <span class='dx-muted'>" + (a === undefined ? "\u2014" : "#" + a) +
      " \u2192 " + (b === undefined ? "\u2014" : "#" + b) + "</span></h4>" +
      columns(a === undefined ? null : S.a.lod.instrDetails(a), b === undefined ? null : S.b.lod.instrDetails(b)) + "</div>";
  }
  // the details of a one-item selection, or null (the caller lists a bigger one)
  function details(state) {
    const s = state.side || "a", vs = state.values[s], is = state.instructions[s];
    if (vs.length === 1 && !is.length) return valuePair(s, vs[0]);
    if (is.length === 1 && !vs.length) return instrPair(s, is[0]);
    return null;
  }
  function groupNote(s, g) {  // what changed inside group g of side s, under its details
    const side = S[s], G = side.L.groups, row = side.gc.by[g], parts = [];
    if (!side.gc.total[g]) return "<div class='dx-root dx-diff dx-muted'>no changes in this group</div>";
    row.forEach((k, c) => {
      if (!k) return;
      const st = c < nT ? P.statuses.tensor[c] : P.statuses.op[c - nT];
      parts.push("<li><span style='color:" + st.color + "'>\u25cf</span> " + num(k) + " " + (c < nT ? "tensors " : "ops: ") + esc(st.label) + "</li>");
    });
    const lo = G.start[g], hi = G.stop[g], home = new Map();
    side.L.tensors.index.forEach((v, r) => home.set(v, side.L.tensors.home[r]));
    const items = [];
    P.marks[s].v.forEach((v, k) => {
      const h0 = home.get(v);
      if (h0 >= lo && h0 < hi && items.length < 12) items.push("<li>" + P.badges.tensor[P.marks[s].vs[k]] + esc(side.labels.v[v] || "%" + v) + "</li>");
    });
    return "<div class='dx-root dx-diff'><h4>\u0394 " + num(side.gc.total[g]) + " changes in " + nameOf(s) + "'s group</h4>" +
      "<ul class='dx-list'>" + parts.join("") + "</ul>" + (items.length ? "<ul class='dx-list'>" + items.join("") + "</ul>" : "") + "</div>";
  }
  // a group opened (or closed) on one side opens (closes) its counterpart on the other, so both show the same part
  function follow(s, g, open) {
    const o = other(s), q = counterpartGroup(S[s].L.groups, S[o].L.groups, g, I.ipair[s]);
    if (q < 0) return;
    const isOpen = S[o].lod.state().expanded.indexOf(q) >= 0;
    if (open && !isOpen) S[o].lod.expand(q);
    else if (!open && isOpen) S[o].lod.collapse(q);
  }
  function clickGraph(s, pt) {
    const T = S[s].L.trace, g = pt.customdata;
    const group = pt.curveNumber === T.groups, header = pt.curveNumber === T.headers;
    if (group || header) follow(s, g, group);  // first: the details end with this side's group
    S[s].lod.clickGraph(pt);
    if (group || header) ctx.details.insertAdjacentHTML("beforeend", groupNote(s, g));
  }
  function find(text) {  // the search box on both sides at once: each side's own matches
    const out = {side: "", values: {a: [], b: []}, instructions: {a: [], b: []}, query: text};
    for (const s of SIDES) {
      const SP = S[s].SP, r = search({labels: S[s].labels, nValues: SP.nValues, nInstructions: SP.nInstructions, context: SP.context}, text);
      out.values[s] = r.values; out.instructions[s] = r.instructions;
    }
    return out;
  }
  return {highlight, details, counterpart, clickGraph, find, groupNote, follow,
          clickMemory: (s, pt) => S[s].lod.clickMemory(pt), onRelayout: (s, ev) => S[s].lod.onRelayout(ev),
          side: (s) => S[s].lod, groups: (s) => S[s].gc, labels: (s) => S[s].labels};
}
