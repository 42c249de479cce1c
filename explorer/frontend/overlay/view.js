// Overlays on the app's graph (docs/overlays.md): the picker in the controls row, node colours by the overlay
// shown instead of by device, one hover line and one details row per node, and a legend. The numbers and their
// text come from overlay/data.js; this module only puts them on the page.
//
// How it is wired (app/app.js): lod/graph.js calls host.paint(traces) each time it builds the graph's traces (every
// draw: the first, every expand and collapse, a redraw after the picker changes), so colours follow the graph as
// folded now; lod/details.js puts host.detailRows(kind, index) first in a tensor's, an op's and a group's details.
// The overlay shown is the model's `shown_overlay` (the widget's trait; a report starts with `overlays.shown`);
// the overlays are the payload's `overlays` (a report) or the widget's `_overlay_data` trait (packed as the
// payload is, sent again when Python adds or removes one).
import {esc, ptext} from "../util/common.js";
import {colorOf, findOverlay, hoverLine, legendModel, nodeColors, overlayDomain, planOverlays, valueText} from "./data.js";
import {decodePayload} from "../host/model.js";

/** @typedef {import("./data.js").Overlay} Overlay
 * @typedef {import("./data.js").OverlayData} OverlayData
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
 * Returns the domain (for the legend). @param {Overlay} O @param {any[]} traces @param {TraceIndex} T
 * @returns {?number[]}
 */
export function paintTraces(O, traces, T) {
  const dom = overlayDomain(O, drawnIds(O, traces, T));
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

/**
 * The picker, legend and hooks over one app. ``opts``: the controls row to put the picker in, the app's ``model``
 * and payload ``data``, ``publish`` (shell/frame.js) and ``redraw()`` (draws the graph again, which calls paint).
 * Returns {plan(P), paint(traces), detailRows(kind, index), shown(), pick(name)}.
 * @param {{controls: Element, model: any, data: any, publish: function(string, any): void, redraw: function(): void}} opts
 */
export function overlayView(opts) {
  const {model, data, publish} = opts;
  /** @type {?OverlayData} */
  let sets = data.overlays || null;
  let planName = "";
  /** @type {TraceIndex} the graph's trace indices (the plan's lod.trace) */
  let trace = {tensors: -1, ops: -1, groups: -1};
  /** @type {string} the overlay wanted: the model's (the widget's trait), else the report's first */
  let wanted = initialWanted();
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

  function initialWanted() {
    const m = model.get("shown_overlay");
    return typeof m === "string" ? m : (sets && sets.shown) || "";
  }
  /** the overlay drawn on the current plan: the one wanted, if this plan has it */
  function current() { return findOverlay(sets, planName, wanted); }
  function fill() {
    const list = planOverlays(sets, planName);
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
    picker.value = current() ? wanted : "";
    box.hidden = !list.length;
  }
  function legendFor(/** @type {?Overlay} */ O, /** @type {?number[]} */ dom) {
    legend.hidden = !O;
    legend.innerHTML = O ? legendHtml(O, dom) : "";
  }
  // the details rows already shown follow the overlay picked (style.css hides a row whose cell is empty)
  function refreshRows() {
    const O = current(), root = opts.controls.parentElement || opts.controls;
    for (const cell of Array.from(root.querySelectorAll(".dx-ov-cell"))) {
      const el = /** @type {HTMLElement} */ (cell), row = el.closest("tr");
      const got = detailRow(O, /** @type {NodeKind} */ (el.dataset.kind), Number(el.dataset.index));
      if (row && row.cells.length) row.cells[0].innerHTML = got[0];
      el.innerHTML = got[1];
    }
  }
  function show(/** @type {string} */ name) {
    wanted = name || "";
    picker.value = current() ? wanted : "";
    opts.redraw();
    if (!current()) legendFor(null, null);
    refreshRows();
  }

  picker.addEventListener("change", () => {
    show(picker.value);
    publish("shown_overlay", picker.value);
  });
  model.on("change:shown_overlay", () => {
    const name = model.get("shown_overlay") || "";
    if (name !== wanted) show(name);
  });
  model.on("change:_overlay_data", async () => {  // the widget: Python added, replaced or removed an overlay
    sets = await decodePayload(model.get("_overlay_data"));
    fill();
    show(model.get("shown_overlay") || "");
  });
  const packed = model.get("_overlay_data");  // the widget's overlays as they were when the page opened
  if (!sets && packed && (packed.byteLength || packed.length)) {
    decodePayload(packed).then((got) => {
      sets = got;
      fill();
      show(initialWanted());
    });
  }

  return {
    /** a plan is shown: its overlays in the picker (called before its graph is drawn) */
    plan(/** @type {{name: string, lod: {trace: TraceIndex}}} */ P) {
      planName = P.name; trace = P.lod.trace; fill(); legendFor(null, null);
    },
    /** lod/graph.js's traces, before they are drawn: coloured by the overlay shown, if any */
    paint(/** @type {any[]} */ traces) {
      const O = current();
      if (!O) { legendFor(null, null); return; }
      legendFor(O, paintTraces(O, traces, trace));
    },
    /** the details row of a node: [label, cell] for lod/details.js (an empty, hidden row when no overlay is shown,
     * filled in place when one is picked); none on a plan without overlays */
    detailRows(/** @type {NodeKind} */ kind, /** @type {number} */ index) {
      if (!planOverlays(sets, planName).length) return [];
      const got = detailRow(current(), kind, index);
      return [[got[0], "<span class='dx-ov-cell' data-kind='" + kind + "' data-index='" + Number(index) + "'>" + got[1] + "</span>"]];
    },
    shown: () => (current() ? wanted : ""),
    pick: (/** @type {string} */ name) => { show(name); publish("shown_overlay", name); },
  };
}
