// Overlays on the graphs (docs/overlays.md): the picker in the controls row, node colours by the overlay
// shown instead of by device, one hover line and one details row per node, and a legend. The numbers and their
// text come from overlay/data.js; this module only puts them on the page. One implementation for both modes: the
// one-program app colours its graph (graph ""), the diff its two sides (graphs "a" and "b"), each side by its own
// overlay of that name, on one colour scale (overlayColours).
//
// How it is wired (app/app.js, diff/diff.js): lod/graph.js calls host.paint(traces) each time it builds a graph's
// traces (every draw: the first, every expand and collapse, a redraw after the picker changes), so colours follow
// the graph as folded now; lod/details.js puts host.detailRows(kind, index) first in a tensor's, an op's and a
// group's details. The overlay shown is the model's `shown_overlay` (the widgets' trait; a report starts with
// `overlays.shown`); the overlays are the payload's `overlays` (a program's, or a diff's per side) or the
// Explorer widget's `_overlay_data` trait (packed as the payload is, sent again when Python adds or removes one).
import {esc, ptext} from "../util/common.js";
import {colorOf, findOverlay, graphSets, hoverLine, legendModel, mergeDomains, nodeColors, overlayDomain, pickList,
        planOverlays, valueText} from "./data.js";
import {decodePayload} from "../host/model.js";

/** @typedef {import("./data.js").Overlay} Overlay
 * @typedef {import("./data.js").GraphSets} GraphSets
 * @typedef {import("./data.js").NodeKind} NodeKind
 * @typedef {{tensors: number, ops: number, groups: number}} TraceIndex */

const KINDS = /** @type {Array<[keyof TraceIndex, NodeKind]>} */ ([["tensors", "value"], ["ops", "instr"], ["groups", "group"]]);

/** The graph's node ids (lod/base.js numbering: instructions, then values, then groups) of the markers in the
 * tensor, op and group traces, from their customdata (value, instruction and group indices).
 * @param {Overlay} O @param {any[]} traces the traces as lod/graph.js builds them @param {TraceIndex} T @returns {number[]} */
export function drawnIds(O, traces, T) {
  const out = [];
  for (const [key, kind] of KINDS) {
    const base = kind === "instr" ? 0 : kind === "value" ? O.m : O.m + O.n;
    for (const x of (traces[T[key]] && traces[T[key]].customdata) || []) out.push(base + x);
  }
  return out;
}

/**
 * Colours the tensor, op and group markers of ``traces`` (lod/graph.js's, dotted keys) by overlay ``O`` and adds
 * its line to each hover text. The scale spans the numbers of the nodes drawn (overlayDomain). Tensors and groups
 * are filled with their colour; an op keeps its device-coloured outline, is filled with its number's colour and
 * drawn a third larger.
 * ``dom``: the span to colour over (a diff's, over both sides: overlayColours); by default the nodes drawn here.
 * Returns the domain (for the legend). @param {Overlay} O @param {any[]} traces @param {TraceIndex} T
 * @param {?number[]} [dom] @returns {?number[]}
 */
export function paintTraces(O, traces, T, dom) {
  if (dom === undefined) dom = overlayDomain(O, drawnIds(O, traces, T));
  for (const [key, kind] of KINDS) {
    const t = traces[T[key]];
    if (!t || !t.customdata) continue;
    const ids = t.customdata, base = kind === "instr" ? 0 : kind === "value" ? O.m : O.m + O.n;
    t["marker.color"] = nodeColors(O, ids.map((/** @type {number} */ x) => base + x), dom);
    // an op's fill is its colour, inside its device outline: drawn a third larger, so the fill can be seen
    if (kind === "instr" && Array.isArray(t["marker.size"])) t["marker.size"] = t["marker.size"].map((/** @type {number} */ s) => Math.round(s * 1.35));
    const hover = t.hovertext || [];
    t.hovertext = ids.map((/** @type {number} */ x, /** @type {number} */ k) =>
      (hover[k] || "") + "<br>" + ptext(hoverLine(O, kind, x)));
  }
  return dom;
}

/** The legend as HTML (every string from the user or the file escaped): the overlay's title, a gradient with its
 * ends and middle over ``dom`` or one swatch per threshold band, the no-data swatch, and the groups' rule.
 * @param {Overlay} O @param {?number[]} dom @returns {string} */
export function legendHtml(O, dom) {
  const L = legendModel(O, dom, 3);
  const sw = (/** @type {string} */ c) => "<span class='dx-sw dx-ov-sw' style='background-color:" + esc(c) + "'></span>";
  let scale;
  if (L.kind === "thresholds") {
    scale = L.entries.map((e) => "<span class='dx-ov-entry'>" + sw(e.color) + esc(e.label) + "</span>").join("");
  } else if (L.ticks.length === 1 && dom) {  // every node drawn has the same number: one swatch, in the nodes' colour
    scale = "<span class='dx-ov-entry'>" + sw(colorOf(O, L.ticks[0].value, dom)) + "all " + esc(L.ticks[0].label) + "</span>";
  } else if (L.ticks.length) {
    const lo = L.ticks[0], hi = L.ticks[L.ticks.length - 1];
    scale = "<span class='dx-ov-tick'>" + esc(lo.label) + "</span><span class='dx-ov-bar' style='background:" +
      esc(L.gradient || "") + "'></span><span class='dx-ov-tick'>" + esc(hi.label) + "</span>";
  } else scale = "<span class='dx-muted'>no node drawn has a number</span>";
  const rule = "groups: " + O.aggregate;
  return "<b class='dx-ov-title'>" + esc(L.title) + "</b>" + scale +
    "<span class='dx-ov-entry'>" + sw(L.none.color) + esc(L.none.label) + "</span>" +
    "<span class='dx-ov-rule dx-muted' title='" + esc(L.rule) + "'>" + esc(rule) + "</span>" +
    (L.note ? "<span class='dx-ov-note dx-muted'>" + esc(L.note) + "</span>" : "");
}

/** The details panel's row for a node: [label, value] as HTML (escaped); the value says how a group's number was
 * made and, for a group, the rule. Empty text when no overlay is shown.
 * @param {?Overlay} O @param {NodeKind} kind @param {number} index @returns {[string, string]} */
export function detailRow(O, kind, index) {
  if (!O) return ["", ""];
  const text = esc(valueText(O, kind, index)) + (kind === "group" ? "<br><span class='dx-muted'>" + esc(O.rule) + "</span>" : "") +
    (O.note ? "<br><span class='dx-muted'>" + esc(O.note) + "</span>" : "");
  return [esc(O.label), text];
}

/** Whether two spans are the same (null: none). @param {?number[] | undefined} x @param {?number[] | undefined} y */
function sameSpan(x, y) { return !x || !y ? !x && !y : x[0] === y[0] && x[1] === y[1]; }

/**
 * What the overlay shown colours, without the page, over one or more graphs (``traces``' keys: a program's one graph
 * "", a diff's sides "a" and "b"): the overlay wanted, each graph's own overlay of that name on the plan shown (its
 * numbers, its group tree), and **one** colour scale for every graph: the span of the numbers drawn on all of them,
 * so one colour is one number on both sides of a diff. ``paint(g, traces)`` colours graph g's traces over it; when
 * the span grew past what another graph was painted with, that graph is asked to draw again (``redraw(h)``), and
 * paints with the same span then: one more draw, never a cycle. One graph is coloured as before: over what it draws.
 * @param {GraphSets} sets @param {string} wanted the overlay's name ("": the device colours)
 * @param {(graph: string) => void} redraw draw graph h again (its paint runs then)
 */
export function overlayColours(sets, wanted, redraw) {
  let planName = "";
  /** @type {Record<string, TraceIndex>} each graph's trace indices (its plan's lod.trace) */
  let traceOf = {};
  /** @type {Record<string, ?number[]>} per graph painted: the span of its own nodes drawn */
  let own = {};
  /** @type {Record<string, ?number[]>} per graph painted: the span it was painted with */
  let used = {};
  const forget = () => { own = {}; used = {}; };
  const graphs = () => Object.keys(traceOf);
  /** graph g's overlay shown, or null @param {string} g */
  const current = (g) => findOverlay(sets[g] || null, planName, wanted);
  return {
    /** a plan is shown: each graph's trace indices @param {string} name @param {Record<string, TraceIndex>} traces */
    plan(name, traces) { planName = name; traceOf = Object.assign({}, traces); forget(); },
    /** new overlays (the widget's trait) @param {GraphSets} next */
    sets(next) { sets = next; forget(); },
    /** the overlay wanted from now on ("": none) @param {string} name */
    want(name) { wanted = name || ""; forget(); },
    graphs, current,
    /** the overlay wanted ("": none) */
    wanted: () => wanted,
    /** the overlays the picker lists, each name once: those of the graphs drawn (a what-if's diff in the Explorer
     * widget is drawn over the widget's one-program overlays, which colour no side of it) */
    list: () => pickList(Object.fromEntries(graphs().map((g) => [g, sets[g] || null])), planName),
    /** graph g has overlays on this plan @param {string} g */
    has: (g) => planOverlays(sets[g] || null, planName).length > 0,
    /** the name drawn on some graph of this plan, else "" */
    shown: () => (graphs().some((g) => current(g)) ? wanted : ""),
    /** some graph is drawn coloured by an overlay now (painted with one since the last plan, sets or want) */
    coloured: () => Object.keys(used).length > 0,
    /** what the legend shows: the first graph's overlay drawn and the span every graph is painted over, or null */
    legend() {
      for (const g of graphs()) {
        const O = current(g);
        if (O) return {O, dom: mergeDomains(Object.keys(own).map((h) => own[h]))};
      }
      return null;
    },
    /** colours graph g's traces (lod/graph.js's, before they are drawn); returns the span, null when not coloured
     * @param {string} g @param {any[]} traces @returns {?number[]} */
    paint(g, traces) {
      const O = current(g), T = traceOf[g];
      if (!O || !T) { delete own[g]; delete used[g]; return null; }
      own[g] = overlayDomain(O, drawnIds(O, traces, T));
      const dom = mergeDomains(Object.keys(own).map((h) => own[h]));
      paintTraces(O, traces, T, dom);
      used[g] = dom;
      for (const h of Object.keys(used)) if (h !== g && !sameSpan(used[h], dom)) redraw(h);
      return dom;
    },
  };
}

/**
 * The picker, legend and hooks over one app's graphs (a program's one, a diff's two: overlayColours). ``opts``: the
 * controls row to put the picker in, the ``model``, the payload's ``overlays`` (a program's, or a diff's per side),
 * ``publish`` (shell/frame.js) and ``redraw(graph)`` (draws that graph again, which calls paint).
 * Returns {plan(name, traces), paint(traces, graph), detailRows(kind, index, graph), shown(), pick(name)}.
 * @param {{controls: Element, model: any, overlays: any, publish: function(string, any): void,
 *          redraw: function(string): void}} opts
 */
export function overlayView(opts) {
  const {model, publish} = opts;
  /** @type {?string} the overlay the payload (or the widget's overlays) opens with */
  let opening = (opts.overlays && opts.overlays.shown) || null;
  // a graph whose colours must follow the other's span is drawn again once the drawing in progress is done (the
  // diff is still building its sides when the second paints)
  const pending = new Set();
  function later(/** @type {string} */ g) {
    if (!pending.size) queueMicrotask(() => { const gs = Array.from(pending); pending.clear(); gs.forEach((x) => opts.redraw(x)); });
    pending.add(g);
  }
  const state = overlayColours(graphSets(opts.overlays), initialWanted(), later);
  const box = document.createElement("span"), label = document.createElement("label");
  const picker = document.createElement("select"), legend = document.createElement("span");
  box.className = "dx-ov";
  label.textContent = "colour ";
  picker.className = "dx-ov-pick";
  picker.setAttribute("aria-label", "colour the graph by");
  legend.className = "dx-ov-legend";
  legend.hidden = true;
  label.appendChild(picker);
  box.appendChild(label);
  box.appendChild(legend);
  box.hidden = true;
  opts.controls.appendChild(box);

  /** the overlay wanted: the model's (the widgets' trait), else the one the overlays open with */
  function initialWanted() {
    const m = model.get("shown_overlay");
    return typeof m === "string" ? m : opening || "";
  }
  function fill() {
    const list = state.list();
    picker.textContent = "";
    const none = document.createElement("option");
    none.value = "";
    none.textContent = "device";
    picker.appendChild(none);
    for (const O of list) {
      const o = document.createElement("option");
      o.value = O.name;
      o.textContent = O.label + (O.builtin ? " (built-in)" : "");
      picker.appendChild(o);
    }
    picker.value = state.shown();
    box.hidden = !list.length;
  }
  function legendNow() {
    const L = state.legend();
    legend.hidden = !L;
    legend.innerHTML = L ? legendHtml(L.O, L.dom) : "";
  }
  // the details rows already shown follow the overlay picked (style.css hides a row whose cell is empty)
  function refreshRows() {
    const root = opts.controls.parentElement || opts.controls;
    for (const cell of Array.from(root.querySelectorAll(".dx-ov-cell"))) {
      const el = /** @type {HTMLElement} */ (cell), row = el.closest("tr");
      const got = detailRow(state.current(el.dataset.graph || ""), /** @type {NodeKind} */ (el.dataset.kind), Number(el.dataset.index));
      if (row && row.cells.length) row.cells[0].innerHTML = got[0];
      el.innerHTML = got[1];
    }
  }
  // the graphs are drawn again when what colours them changes, not when none was coloured and none is now (the
  // widget's overlays, decoded after the first draw with none shown, drew a what-if diff's two graphs once more)
  function show(/** @type {string} */ name, was = state.coloured()) {
    state.want(name);
    picker.value = state.shown();
    if (was || state.shown()) for (const g of state.graphs()) opts.redraw(g);
    legendNow();
    refreshRows();
  }

  picker.addEventListener("change", () => {
    show(picker.value);
    publish("shown_overlay", picker.value);
  });
  model.on("change:shown_overlay", () => {
    const name = model.get("shown_overlay") || "";
    if (name !== state.wanted()) show(name);
  });
  /** the widget's overlays (decoded) replace those before; then overlay `name` is shown (null: the one they open with)
   * @param {any} got @param {?string} name */
  function replaced(got, name) {
    const was = state.coloured();
    opening = (got && got.shown) || null;
    state.sets(graphSets(got));
    fill();
    show(name === null ? initialWanted() : name, was);
  }
  model.on("change:_overlay_data", async () => {  // the Explorer widget: Python added, replaced or removed an overlay
    replaced(await decodePayload(model.get("_overlay_data")), model.get("shown_overlay") || "");
  });
  const packed = model.get("_overlay_data");  // the widget's overlays as they were when the page opened
  if (!opts.overlays && packed && (packed.byteLength || packed.length)) decodePayload(packed).then((got) => { replaced(got, null); });

  return {
    /** a plan is shown: its overlays in the picker (called before its graphs are drawn)
     * @param {string} name @param {Record<string, TraceIndex>} traces each graph's trace indices (its lod.trace) */
    plan(name, traces) { state.plan(name, traces); fill(); legendNow(); },
    /** a graph's traces (lod/graph.js's), before they are drawn: coloured by the overlay shown, if any
     * @param {any[]} traces @param {string} [graph] */
    paint(traces, graph) { state.paint(graph || "", traces); legendNow(); },
    /** the details row of a node: [label, cell] for lod/details.js (an empty, hidden row when no overlay is shown,
     * filled in place when one is picked); none on a graph without overlays on this plan
     * @param {NodeKind} kind @param {number} index @param {string} [graph] @returns {Array<[string, string]>} */
    detailRows(kind, index, graph) {
      const g = graph || "";
      if (!state.has(g)) return [];
      const got = detailRow(state.current(g), kind, index);
      return [[got[0], "<span class='dx-ov-cell' data-graph='" + esc(g) + "' data-kind='" + kind + "' data-index='" +
        Number(index) + "'>" + got[1] + "</span>"]];
    },
    shown: () => state.shown(),
    pick: (/** @type {string} */ name) => { show(name); publish("shown_overlay", name); },
  };
}
