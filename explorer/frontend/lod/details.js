import {esc} from "../util/common.js";
import {bytesText, countText} from "../util/format.js";
import {currentFold} from "./base.js";
import {sourceLocation} from "./text.js";

// A plan drawn at its level of detail (lod/plan.js), part 3: the details of a tensor, an op or a group, written from
// the tables (lod/base.js) and the view state (the fold as drawn: a group's edges in and out).
/** @typedef {import("./base.js").LodBase} LodBase */
/** @typedef {import("./base.js").LodState} LodState */
/** @typedef {ReturnType<typeof lodPanels>} LodPanels */
/** @typedef {[string, string]} Row  a details row: [name, HTML] */

/** @param {string[]} items HTML */
function ul(items) {
  const more = items.length > 40 ? "<li class='dx-muted'>\u2026 and " + (items.length - 40) + " more</li>" : "";
  return "<ul class='dx-list'>" + items.slice(0, 40).map((t) => "<li>" + t + "</li>").join("") + more + "</ul>";
}
/** @param {Row[]} pairs */
function rows(pairs) {
  return "<table class='dx-kv'>" + pairs.map((p) => "<tr><td>" + p[0] + "</td><td>" + p[1] + "</td></tr>").join("") + "</table>";
}
/** @param {LodBase} B @param {number} i */
function instrRef(B, i) { const {OPS} = B; return "<span class='dx-muted'>#" + i + "</span> <span class='dx-code'>" + esc(OPS.opTable[OPS.op[i]][0]) + "</span>"; }
/** @param {LodBase} B @param {number} v */
function valueRef(B, v) {
  const {L, n, TT, rowOf, swatch} = B;
  const r = v >= 0 && v < n ? rowOf[v] : -1;
  if (v < 0 || v >= n) return "<span class='dx-muted'>%" + v + " (points nowhere)</span>";
  if (r < 0) return "<span class='dx-muted'>%" + v + " " + esc(L.valueKinds[L.valueKind[v]] || "?") + "</span>";
  return swatch(TT.dev[r]) + " <b>" + esc(TT.label[r]) + "</b>" + (TT.named[r] ? " <span class='dx-muted'>%" + v + "</span>" : "");
}
// tensors of the same arena whose bytes overlap v's (row r): [value, shares its lifetime too]
/** @param {LodBase} B @param {number} v @param {number} r @returns {[number, boolean][]} */
function sharers(B, v, r) {
  const {L, TT, rowOf} = B;
  const lo = TT.off[r], hi = lo + Math.max(TT.nbytes[r], 0), out = /** @type {[number, boolean][]} */ ([]);
  if (TT.mem[r] < 0 || hi <= lo) return out;
  const arena = L.arenas.find((a) => a.id === TT.mem[r]);
  for (const u of arena ? arena.rows : []) {
    const q = rowOf[u];
    if (u === v || q < 0 || TT.mem[q] !== TT.mem[r]) continue;
    const a = TT.off[q], b = a + Math.max(TT.nbytes[q], 0);
    if (a < hi && b > lo) out.push([u, TT.first[q] >= 0 && TT.first[r] >= 0 && TT.first[q] <= TT.last[r] && TT.first[r] <= TT.last[q]]);
  }
  return out;
}
/** @param {LodBase} B @param {[number, boolean]} e */
function sharerRef(B, e) {
  const {TT, rowOf} = B;
  const q = rowOf[e[0]];
  return valueRef(B, e[0]) + " <span class='dx-muted'>[" + TT.off[q] + ", " + (TT.off[q] + Math.max(TT.nbytes[q], 0)) + ")" +
    (TT.first[q] >= 0 ? " alive #" + TT.first[q] + " \u2013 #" + TT.last[q] : "") + "</span>" +
    (e[1] ? " <span class='dx-badge dx-error'>alive at the same time</span>" : "");
}

/** @param {LodBase} B @param {LodState} S @param {import("./base.js").LodHost} host */
export function lodPanels(B, S, host) {
  const {P, L, m, G, TT, F, OPS, rowOf, fstart, inputs, outputs, swatch, kindOf} = B;
  // host.detailRows (overlay/view.js): rows the app adds to a node's details, e.g. an overlay's number
  /** @param {"value" | "instr" | "group"} kind @param {number} index @returns {Row[]} */
  function extra(kind, index) { return host.detailRows ? host.detailRows(kind, index) : []; }
  /** @param {number} i */
  function stackOf(i) {
    const k = OPS.stack ? OPS.stack[i] : -1;
    return k >= 0 ? "<div class='dx-trace'>" + L.ops.stacks[k].map(esc).join("\n") + "</div>" : "";
  }
  /** the labels of the findings naming these values or instructions in this plan @param {number[]} values @param {number[]} instructions */
  function findingsAbout(values, instructions) {
    return host.findings().filter((/** @type {import("../types/payload").Finding} */ fd) =>
      fd.plan === P.name && (fd.values.some((v) => values.indexOf(v) >= 0) || fd.instructions.some((i) => instructions.indexOf(i) >= 0)))
      .map((/** @type {import("../types/payload").Finding} */ fd) => esc(fd.label));
  }
  /** a tensor's details, HTML @param {number} v */
  function valueDetails(v) {
    const r = rowOf[v];
    if (r < 0) return "<div class='dx-root'><h4>%" + v + "</h4></div>";
    const storage = TT.storages[TT.storage[r]];
    /** @type {Row[]} */
    const out = [["dtype", esc(L.dtypes[TT.dtype[r]])], ["shape", esc(TT.shapes[TT.shape[r]])], ["bytes", esc(bytesText(TT.nbytes[r]))],
                 ["device", swatch(TT.dev[r])], ["storage", esc(storage)]];
    if (TT.mem[r] >= 0) {
      const arena = L.arenas.find((a) => a.id === TT.mem[r]);
      let text = "arena " + TT.mem[r];
      if (arena) {
        text += " on " + swatch(arena.dev) + " (" + esc(bytesText(arena.size)) + ")";
        if (arena.dev !== TT.dev[r]) text += " <span class='dx-badge dx-error'>device differs from the tensor's</span>";
      } else text += " <span class='dx-badge dx-error'>no such arena</span>";
      out.push(["arena", text], ["bytes at", "[" + TT.off[r] + ", " + (TT.nbytes[r] >= 0 ? TT.off[r] + TT.nbytes[r] : "?") + ")"]);
    } else {
      /** @type {Record<string, string>} */
      const LIVES = {constant: "constant (in the file)", runtime: "supplied at run time", external: "external (.ptd)"};
      out.push(["lives", esc(LIVES[storage] || storage)]);
    }
    const shared = sharers(B, v, r);
    if (shared.length) out.push(["shares bytes with", ul(shared.map((x) => sharerRef(B, x)))]);
    if (TT.first[r] >= 0) out.push(["alive", "#" + TT.first[r] + " \u2013 #" + TT.last[r]]);
    if (TT.dyns[TT.dyn[r]] !== "static") out.push(["dynamism", esc(TT.dyns[TT.dyn[r]])]);
    out.push(["dim order", esc(TT.dimOrders[TT.dimOrder[r]])]);
    const role = [inputs.has(v) ? "plan input" : "", outputs.has(v) ? "plan output" : ""].filter(Boolean);
    if (role.length) out.push(["role", role.join(" \u00b7 ")]);
    const prod = /** @type {number[]} */ ([]), cons = /** @type {number[]} */ ([]);
    for (let k2 = 0; k2 < F.v.length; k2++) if (F.v[k2] === v) (F.w[k2] ? prod : cons).push(F.i[k2]);
    if (prod.length) out.push(["written by", ul(prod.map((x) => instrRef(B, x)))]);
    if (cons.length) out.push(["read by", ul(cons.map((x) => instrRef(B, x)))]);
    out.push(...producerRows(P.context, prod, cons));
    const fs = findingsAbout([v], []);
    if (fs.length) out.push(["findings", ul(fs)]);
    out.unshift(...extra("value", v));  // first: what the user picked to look at
    return "<div class='dx-root'><h4>" + swatch(TT.dev[r]) + " " + esc(TT.label[r]) +
      (TT.named[r] ? " <span class='dx-muted'>%" + v + "</span>" : "") + "</h4>" + rows(out) + "</div>";
  }
  /** an instruction's details, HTML @param {number} i */
  function instrDetails(i) {
    if (i < 0 || i >= m) return "<div class='dx-root'><h4>#" + i + "</h4><span class='dx-muted'>no such instruction</span></div>";
    /** @type {Row[]} */
    const out = [["kind", esc(OPS.opTable[OPS.op[i]][2]) + " \u00b7 " + L.names.opKinds[OPS.kind[i]]], ["chain", String(OPS.chain[i])]];
    const d = L.delegateOf[i];
    if (d >= 0 && d < L.delegates.length) {
      const D = L.delegates[d];
      out.push(["delegate", "<span class='dx-code'>" + esc(D.id) + "</span> \u00b7 blob " + esc(D.location) + " #" + D.dataIndex +
                (D.size === null || D.size === undefined ? "" : " " + esc(bytesText(D.size)))]);
      if (D.specs.length) out.push(["compile specs", ul(D.specs.map((s) => "<span class='dx-code'>" + esc(s[0]) + " = " + esc(s[1]) + "</span>"))]);
    }
    for (let k2 = 0; k2 < L.moving.i.length; k2++) if (L.moving.i[k2] === i) {
      const a = TT.dev[rowOf[L.moving.s[k2]]], b = TT.dev[rowOf[L.moving.d[k2]]], kind = kindOf(a, b);
      if (kind !== "same") out.push(["moves", swatch(a) + " \u2192 " + swatch(b) + " \u00b7 " + esc(bytesText(L.moving.nbytes[k2])) + " (" + kind + ")"]);
    }
    const reads = /** @type {number[]} */ ([]), writes = /** @type {number[]} */ ([]);
    for (let k2 = fstart[i]; k2 < fstart[i + 1]; k2++) (F.w[k2] ? writes : reads).push(F.v[k2]);
    if (reads.length) out.push(["reads", ul(reads.map((x) => valueRef(B, x)))]);
    if (writes.length) out.push(["writes", ul(writes.map((x) => valueRef(B, x)))]);
    const args = [], wrote = new Set(writes);  // every argument, with its role (a non-tensor is read)
    for (let k2 = OPS.argStart[i]; k2 < OPS.argStart[i + 1]; k2++) {
      const a = OPS.args[k2];
      args.push("%" + a + " <span class='dx-muted'>" + (wrote.has(a) ? "written" : "read") + "</span>");
    }
    out.push(["args", "<span class='dx-code'>" + args.join(", ") + "</span>"]);
    const stack = stackOf(i);
    if (stack) out.push(["stack", stack]);
    out.push(...contextRows(P.context, i));
    const fs = findingsAbout([], [i]);
    if (fs.length) out.push(["findings", ul(fs)]);
    out.unshift(...extra("instr", i));  // first: what the user picked to look at
    return "<div class='dx-root'><h4><span class='dx-muted'>#" + i + "</span> <span class='dx-code'>" + esc(OPS.opTable[OPS.op[i]][0]) +
      "</span></h4>" + rows(out) + "</div>";
  }
  /** a group's details, HTML: what it holds, and (folded) what crosses its edge in the fold as drawn @param {number} g */
  function groupDetails(g) {
    const f = currentFold(B, S), ops = G.stop[g] - G.start[g], kinds = /** @type {string[]} */ ([]), Sm = B.groupSummary(g);
    G.kinds[g].forEach((c, k2) => { if (c) kinds.push(countText(c) + " " + L.names.opKinds[k2]); });
    const devs = Sm.ops.map((o) => swatch(o[0]) + " " + countText(o[1]) + " (" + Math.round(100 * o[2]) + "%)");
    const bytes = Sm.bytes.map((e) => swatch(e[0]) + " " + esc(bytesText(e[1])));
    /** @type {Row[]} */
    const out = [["instructions", "#" + G.start[g] + " \u2013 #" + (G.stop[g] - 1) + " (" + countText(ops) + ")"], ["ops", kinds.join(", ")],
                 ["runs on", devs.join(" \u00b7 ") || "\u2013"], ["tensors", countText(G.nodes[g] - ops) + " made or first used here" +
                  (Sm.total ? " \u00b7 " + esc(bytesText(Sm.total)) + (bytes.length > 1 ? " (" + bytes.join(" \u00b7 ") + ")" : "") : "")],
                 ["copies", B.copyText(Sm.copies, true) || "none"]];
    const p = f.index.get("g" + g);
    if (p !== undefined) {
      let ti = 0, bi = 0, to = 0, bo = 0;
      f.edges.forEach((e, q) => {
        if (e[1] === p) { ti += f.tensors[q]; bi += f.bytes[q]; }
        if (e[0] === p) { to += f.tensors[q]; bo += f.bytes[q]; }
      });
      out.push(["in", countText(ti) + " tensors \u00b7 " + esc(bytesText(bi))], ["out", countText(to) + " tensors \u00b7 " + esc(bytesText(bo))]);
    }
    if (B.holdsError(g)) out.push(["findings", "<span class='dx-badge dx-error'>holds a value an error finding names</span>"]);
    out.unshift(...extra("group", g));  // first: what the user picked to look at
    const state = S.expanded.indexOf(g) >= 0 ? "expanded \u2014 click \u25be to collapse" : "click it in the graph to expand";
    return "<div class='dx-root'><h4>" + esc(G.label[g]) + " <span class='dx-muted'>" + esc(G.kind[g]) + " group</span></h4>" +
      rows(out) + "<span class='dx-muted'>" + state + "</span></div>";
  }
  return {valueDetails, instrDetails, groupDetails};
}

// -- an ETRecord's context (plans[].context, views/payload/context.py; docs/etrecord.md) --------------
// Pure functions of the context's columns, so node tests run them on a payload. Every string is the ETRecord's
// (made visible in Python) and reaches the page through esc.
/** @typedef {import("../types/payload").ContextPayload} Ctx */
const CAP = 12;  // nodes listed before "and N more"
/** @param {string} type */
function className(type) { return type.slice(type.lastIndexOf(".") + 1); }
/** @param {Ctx} X @param {number} row */
function moduleName(X, row) {  // "layers.0.lin (Linear)"; the model itself by its class: "Net"
  const path = X.modules.path[row], type = X.modules.type[row];
  return "<span title='" + esc(type) + "'>" + (path ? "<span class='dx-code'>" + esc(path) + "</span> <span class='dx-muted'>(" +
    esc(className(type)) + ")</span>" : esc(className(type))) + "</span>";
}
// a module row's stack, outermost first, following modules.parent: "Net › layers.0 (Block) › layers.0.lin (Linear)"
/** @param {Ctx} X @param {number} row */
export function moduleCrumbs(X, row) {
  const chain = /** @type {number[]} */ ([]);
  for (let r = row; r >= 0 && chain.length <= X.modules.parent.length; r = X.modules.parent[r]) chain.unshift(r);
  return "<span class='dx-crumbs'>" + chain.map((r) => moduleName(X, r)).join(" <span class='dx-muted'>\u203a</span> ") + "</span>";
}
/** @param {Ctx} X @param {number} k */
function sourceText(X, k) { return "<span class='dx-code'>" + esc(X.sources[k]) + "</span>"; }
/** @param {Ctx} X @param {number} k */
function sourceShort(X, k) {  // a listed node's line: "model.py:62", the whole "dir/model.py:62 in forward" on hover
  return "<span class='dx-code' title='" + esc(X.sources[k]) + "'>" + esc(sourceLocation(X.sources[k])) + "</span>";
}
// an original graph node (a row of nodes): its op before lowering and name, and — when asked, or when they
// differ from the instruction's — its module and source line
/** @param {Ctx} X @param {number} q @param {number} i @param {boolean} full */
function nodeLine(X, q, i, full) {
  const N = X.nodes, mod = N.module[q], src = N.source[q], out = ["<span class='dx-code'>" + esc(X.ops[N.op[q]]) + "</span> <span class='dx-muted'>" +
    esc(N.name[q]) + "</span>"];
  if (mod >= 0 && (full || mod !== X.module[i])) out.push(moduleName(X, mod));
  if (src >= 0 && (full || src !== X.source[i])) out.push(sourceShort(X, src));
  return out.join(" \u00b7 ");
}
/** @param {string[]} items */
function capped(items) {
  const more = items.length > CAP ? "<li class='dx-muted'>\u2026 and " + (items.length - CAP) + " more</li>" : "";
  return "<ul class='dx-list'>" + items.slice(0, CAP).map((t) => "<li>" + t + "</li>").join("") + more + "</ul>";
}
// the details' rows for instruction i: module breadcrumb, source line, the whole stack (folded), the original
// nodes (a delegate call: every node it holds, with module and source); [] without a context
/** @param {Ctx | undefined | null} X @param {number} i @returns {[string, string][]} */
export function contextRows(X, i) {
  if (!X || i < 0 || i >= X.module.length) return [];
  const out = /** @type {[string, string][]} */ ([]), nodes = /** @type {string[]} */ ([]), delegate = X.backend[i] >= 0;
  if (X.module[i] >= 0) out.push(["module", moduleCrumbs(X, X.module[i])]);
  if (X.source[i] >= 0) out.push(["source", sourceText(X, X.source[i])]);
  for (let k = X.nodeStart[i]; k < X.nodeStart[i + 1]; k++) nodes.push(nodeLine(X, X.nodeIndex[k], i, delegate));
  if (delegate) out.push(["holds", esc(X.backends[X.backend[i]]) + " holds " + nodes.length + " node" + (nodes.length === 1 ? "" : "s") +
    " of the model" + capped(nodes)]);
  else if (nodes.length) out.push(["before lowering", nodes.length === 1 ? nodes[0] : capped(nodes)]);
  if (X.stack[i] >= 0) {
    const lines = X.stacks[X.stack[i]], frames = lines.filter((l) => !/^ {4}/.test(l)).length;
    out.push(["model stack", "<details class='dx-ctx-stack'><summary>" + frames + " frame" + (frames === 1 ? "" : "s") +
      "</summary><div class='dx-trace'>" + lines.map(esc).join("\n") + "</div></details>"]);
  }
  return out;
}
// a tensor's row: the module and source line of the first instruction writing it that has a context ("made
// in"); for one nothing writes (a weight, an input), of the first reading it ("used in": layers.0.lin's weight)
/** @param {Ctx | undefined | null} X @param {number[]} writers @param {number[]} [readers] @returns {[string, string][]} */
export function producerRows(X, writers, readers) {
  if (!X) return [];
  const has = (/** @type {number} */ w) => w >= 0 && w < X.module.length && (X.module[w] >= 0 || X.source[w] >= 0);
  const i = writers.length ? writers.find(has) : (readers || []).find(has);
  if (i === undefined) return [];
  const parts = [X.module[i] >= 0 ? moduleName(X, X.module[i]) : "", X.source[i] >= 0 ? sourceText(X, X.source[i]) : ""];
  return [[writers.length ? "made in" : "used in", parts.filter(Boolean).join(" \u00b7 ") + " <span class='dx-muted'>(#" + i + ")</span>"]];
}
