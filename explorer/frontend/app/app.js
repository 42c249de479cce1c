// The explorer app: one program's panels (graph, details, findings, per-device table, memory map) and every
// interaction (hover, select, search, device filter, expand/collapse, memory zoom). The notebook widget
// (index.js) and the exported report (page.js) both run it; they differ only in the `model` they pass: the
// widget's anywidget model, or a stand-in over the page's embedded data (host/model.js). State that Python can read
// and set lives in the model: `plan`, `selected`, `devices`, `expanded`. Every plan, whatever its size, is drawn
// by the same modules from the payload's tables (lod/plan.js): a small plan opens with every group expanded.
import {arr, esc, h, stages} from "../util/common.js";
import {overlay} from "../panels/rings.js";
import {labelLayer} from "../panels/labels.js";
import {minimap} from "../panels/nav.js";
import {memoryStrip} from "../panels/memstrip.js";
import {lodPlan} from "../lod/plan.js";
import {search} from "../shell/search.js";
import {profileView} from "../profile/profile.js";
import {delegateExpander} from "../panels/delegate.js";
import {CONFIG} from "../shell/frame.js";
import {createShell} from "../shell/shell.js";
import {linkOf} from "../host/links.js";
import {overlayView} from "../overlay/view.js";
import {fresh, planFigures} from "../lod/figures.js";

/** @typedef {import("../types/app").OverlayLayer} OverlayLayer */


// the ETRecord joined to the plan: its file, and what in it did not line up with the program (a warning,
// in plain text: names from the file are never markup)
/** @param {HTMLElement} el @param {import("../types/payload").ContextPayload | undefined} context */
function contextNote(el, context) {
  const warnings = context ? context.warnings || [] : [];
  el.hidden = !context;
  if (!context) return;
  el.textContent = "· ETRecord " + (context.file || "") + (warnings.length ? " — " + warnings.join("; ") : "");
  el.className = "dx-context-note " + (warnings.length ? "dx-sev-warning" : "dx-muted");
  el.title = warnings.length ? "what in the ETRecord does not line up with this program" : "module paths and source lines from the ETRecord";
}

// a first view of at least this many instructions and values is drawn in stages, a task each (util/common.js stages: a
// frame waited between them); a smaller one, a few tens of ms of drawing, in one go: it is on screen sooner
// (bench/bench_view.py, time to first view against Netron) and nothing in it blocks for long
const STAGED_MIN = 2000;

// the one-program page around the shell's controls row (shell/shell.js): title and summary above; the graph with its
// minimap, the details and findings beside it; the per-device table and the memory map below
const LAYOUT = {
  rootClass: "dx-app dx-root",
  head: `
<div class="dx-head"><h1 class="dx-title"></h1><span class="dx-muted dx-summary"></span><span class="dx-context-note" hidden></span></div>`,
  planClass: "",
  before: `<span><span class="dx-muted">devices </span><span class="dx-devices"></span></span>`,
  placeholder: "search: name, op, %value, #op",
  after: "",
  body: `
<div class="dx-row">
 <div class="dx-card dx-graph-card"><div class="dx-graph"></div><canvas class="dx-minimap" hidden></canvas></div>
 <div class="dx-side">
  <div class="dx-card"><div class="dx-details"></div></div>
  <div class="dx-card"><h3>Findings <span class="dx-muted dx-findings-count"></span></h3><ul class="dx-findings"></ul></div>
 </div>
</div>
<div class="dx-section dx-card"><h3>Per device</h3><div class="dx-totals"></div></div>
<div class="dx-section dx-card"><h3>Memory map <span class="dx-muted">— one lane per arena; each tensor spans its lifetime (x) and bytes (y)</span></h3>
 <canvas class="dx-memstrip" hidden></canvas><div class="dx-memory"></div></div>`,
};

/** The one-program app: the shell (shell/shell.js) in this mode.
 * @param {HTMLElement} el @param {import("../types/payload").WidgetModel} model @param {import("../types/payload").AppPayload} data */
export function createApp(el, model, data) {
  return createShell(el, model, data, {layout: LAYOUT, moves: true, start: (ctx) => appView(ctx, data)});
}

/** The mode's panels and verbs (shell/shell.js View): what the shell does not do for it.
 * @param {import("../shell/shell").ShellContext} ctx @param {import("../types/payload").AppPayload} data
 * @returns {import("../shell/shell").View} */
function appView(ctx, data) {
  const T = data.trace, {$, model, publish} = ctx;
  const MV = /** @type {ReturnType<typeof import("../shell/moves").movesView>} */ (ctx.moves);
  /** @type {PlotDiv} */
  const graphDiv = $("dx-graph");
  /** @type {PlotDiv} */
  const memoryDiv = $("dx-memory");
  const detailsBox = ctx.details;
  // the memory map card's heading (LAYOUT): a profile's axis toggle joins it
  const memoryHead = /** @type {HTMLElement} */ (/** @type {HTMLElement} */ (memoryDiv.parentElement).querySelector("h3"));
  $("dx-title").textContent = data.title;
  $("dx-findings-count").textContent = `(${data.findings.length}, from explorer.check — click one to select it)`;
  /** @type {{plan: string | null, values: number[], instructions: number[], finding: string | null, query: string,
   *          shown: Record<string, boolean>}} */
  const state = {plan: null, values: [], instructions: [], finding: null, query: "", shown: {}};
  // The current plan, its graph and memory lanes (lod/plan.js), and the layers over its figures: set by the shell's first
  // show(), which runs before any handler that reads them (createShell starts the view, then shows a plan).
  /** @type {import("../types/app").LabelledPlan} */
  let P;
  /** @type {import("../lod/plan.js").LodPlan} */
  let LOD;
  /** @type {{graph: OverlayLayer, memory: OverlayLayer, minimap: {draw(): void}, labels: {draw(): void},
   *          strip: {draw(): void, reset(): void}}} */
  let over;
  /** @type {ReturnType<typeof profileView> | null} */
  let PROF = null;  // a run profile drawn on this plan's panels (profile/profile.js)
  /** @type {ReturnType<typeof delegateExpander> | null} */
  let DG = null;  // the delegate calls opened in place (panels/delegate.js)
  /** @type {import("../types/app").LodHost} */
  const host = {graph: graphDiv, memory: memoryDiv, state, config: CONFIG,
                shown: () => state.shown, select: (sel) => select(sel, true),
                html: (markup) => { detailsBox.innerHTML = markup; }, findings: () => data.findings,
                expanded: (list) => publish("expanded", list.slice()),
                moved: () => highlight(),
                // after every draw of the graph: the open delegates over it, a profile's op sizes on it
                drawn: () => { if (DG) DG.rebase(); if (PROF) PROF.sizeOps(); },
                // (panels/delegate.js moves numbers to numbers and keeps the nulls between polylines)
                place: (x, y) => (DG ? /** @type {[number, number]} */ (DG.place(x, y)) : [x, y]),
                placeLines: (xs, ys) => (DG ? /** @type {[(number | null)[], (number | null)[]]} */ (DG.placeLines(xs, ys)) : [xs, ys]),
                rings: (items) => over.graph.set(items), outlines: (items) => over.memory.set(items),
                // an overlay picked (overlay/view.js): node colours, hover lines and a details row
                paint: (traces) => OV.paint(traces),
                // first in a node's details: an overlay's number, "Move to ▸" (shell/moves.js)
                // (both are [label, cell] pairs; shell/moves.js and overlay/view.js return them as string[][])
                detailRows: (kind, index) => /** @type {[string, string][]} */ (OV.detailRows(kind, index).concat(MV.detailRows(P, kind, index)))};
  const Plotly = globalThis.Plotly;
  // a plan is drawn in stages, each a task of its own (util/common.js stages): the graph, then its labels and minimap,
  // then the memory map; api.drawn() resolves when all are (page.js says "ready" then)
  const Q = stages(ctx.el);
  let shown = false;  // the first plan was drawn

  const OV = overlayView({controls: $("dx-controls"), model, data, publish, redraw: () => { if (LOD) LOD.redraw(); }});
  // what-if: "Move to ▸" and the moves (the kernel predicts; a report lists the command that will) are the shell's
  // bar (ctx.moves); this mode offers them in a node's details

  // the shell switched to `plan` (shell/shell.js). keep: the model's `expanded` is this plan's (the first draw, a plan set
  // from Python); else the plan opens as it first did and says so to the model
  /** @param {import("../types/payload").PlanPayload} plan @param {boolean} keep */
  function show(plan, keep) {
    if (PROF) { PROF.remove(); PROF = null; }
    P = /** @type {import("../types/app").LabelledPlan} */ (plan);  // its labels are filled in below, before any use
    $("dx-summary").textContent = "· " + P.summary;
    contextNote($("dx-context-note"), P.context);
    $("dx-totals").innerHTML = P.totals;  // escaped when it was built (explorer.views.tables)
    // the skeletons built from the plan's tables (lod/figures.js); copies: plotly keeps the objects it is given as the
    // figure's own and changes them as it draws, and the skeletons must stay as they are for the next time
    Q.drop();  // what the plan before still had queued
    const FIG = planFigures(P.lod);
    Plotly.react(graphDiv, fresh(FIG.graph.data), fresh(FIG.graph.layout), CONFIG);
    // the memory map is drawn in later tasks (below); its box keeps its height meanwhile
    memoryDiv.style.minHeight = FIG.memory.layout.height + "px";
    if (!over) {
      const graph = overlay(graphDiv), memory = overlay(memoryDiv);
      const mini = minimap(graphDiv, $("dx-minimap"));  // before the labels: they keep clear of it
      const labels = labelLayer(graphDiv, arr, () => {
        const mm = $("dx-minimap");
        if (mm.hidden) return [];
        const a = mm.getBoundingClientRect(), b = graphDiv.getBoundingClientRect();
        return [[a.left - b.left, a.top - b.top, a.right - b.left, a.bottom - b.top]];
      });
      const strip = memoryStrip(memoryDiv, $("dx-memstrip"), () => LOD.laneProfiles(), () => P.nInstructions,
                                () => LOD.axis());  // on a profile's time axis the strip is too
      over = {graph, memory, minimap: mini, labels, strip};
    }
    DG = delegateExpander(P, graphDiv, T, host);
    OV.plan(P);  // its overlays in the picker, before its graph is drawn
    LOD = lodPlan(P, host, {draw: false});
    if (!P.labels) P.labels = LOD.labels();
    // the page's first view in stages (a task each); a plan switched to later is drawn at once, as before (what
    // reads the panels right after a switch, tests included, finds them drawn)
    const staged = !shown && P.lod.m + P.lod.n >= STAGED_MIN;
    const L = LOD, later = staged ? Q.later : (/** @type {() => void} */ fn) => fn();
    shown = true;
    later(() => { L.folded(); }, "fold");  // fold and lay out the first state (lod/base.js: kept for the draw)
    later(() => { L.drawFirst(); }, "graph");  // draw it (unless a change drew it already)
    later(() => { over.minimap.draw(); over.labels.draw(); }, "labels");
    later(() => {
      Plotly.react(memoryDiv, fresh(FIG.memory.data), fresh(FIG.memory.layout), CONFIG);
      memoryDiv.style.minHeight = "";
      wireMemory();  // the first time: plotly gives a div its events when it first draws in it
    }, "lanes");
    later(() => {
      L.drawMemory();
      over.strip.reset();  // this plan's lanes
      over.strip.draw();
    }, "memory");
    if (P.profile) {
      PROF = profileView(P, {graph: graphDiv, memory: memoryDiv, T, lanes: LOD.lanes(), rehighlight: () => highlight(),
        setAxis: (/** @type {Parameters<import("../lod/plan.js").LodPlan["setAxis"]>[0]} */ map) => LOD.setAxis(map),
        mountTop: ctx.mountTop, mountMemoryHead: (/** @type {HTMLElement} */ el) => memoryHead.appendChild(el)});
      PROF.sizeOps();
    }
    deviceButtons();
    const want = model.get("expanded");
    if (keep && Array.isArray(want) && model.get("plan") === P.name) LOD.setExpanded(want);
    else later(() => { publish("expanded", L.state().expanded); }, "");  // state() folds: after the graph's stage
  }

  // a selection from the model (Python, a link, a finding of another plan opened with its plan): the groups
  // holding it open
  /** @param {Sel} sel */
  function apply(sel) {
    select(sel, false);
    if (state.values.length || state.instructions.length) LOD.reveal(state.values, state.instructions);
  }

  function deviceButtons() {
    const wanted = model.get("devices");
    state.shown = {};
    /** @type {HTMLElement} */
    const box = $("dx-devices");
    box.textContent = "";
    for (const [d, color] of P.devices) {
      state.shown[d] = !wanted || !wanted.length || wanted.indexOf(d) >= 0;
      const b = h("button", "dx-dev"), dot = h("span", "dx-sw");
      dot.style.backgroundColor = color;
      b.type = "button";
      b.appendChild(dot);
      b.appendChild(document.createTextNode(d));
      b.setAttribute("aria-pressed", String(state.shown[d]));
      b.title = "show tensors on " + d;
      b.dataset.device = d;
      b.addEventListener("click", () => {
        state.shown[d] = !state.shown[d];
        applyDevices();
        publish("devices", shownList());
      });
      box.appendChild(b);
    }
    if (Object.values(state.shown).some((v) => !v)) applyDevices();
    else publish("devices", shownList());
  }
  function shownList() { return P.devices.map((p) => p[0]).filter((d) => state.shown[d]); }

  function applyDevices() {
    for (const b of /** @type {HTMLElement} */ ($("dx-devices")).querySelectorAll("button")) {
      b.setAttribute("aria-pressed", String(state.shown[b.dataset.device || ""]));
    }
    LOD.devices();
  }

  // the selection is drawn over the figures (panels/rings.js): restyling them would redraw every trace
  function highlight() { LOD.highlight(state.values, state.instructions); }

  /** @param {string} title @param {string[]} items */
  function listHtml(title, items) {
    return "<tr><td>" + title + "</td><td><ul class='dx-list'>" + items.join("") + "</ul></td></tr>";
  }

  function details() {
    const box = detailsBox;
    if (state.finding !== null) { box.innerHTML = P.findingDetails[state.finding] || ""; return; }
    if (state.values.length + state.instructions.length === 1) {
      const extra = P.companions && P.companions.rows;  // data files, delegate payloads (escaped in Python)
      box.innerHTML = state.values.length ? LOD.valueDetails(state.values[0]) + (((extra && extra.v) || {})[state.values[0]] || "")
        : LOD.instrDetails(state.instructions[0]) + (((extra && extra.i) || {})[state.instructions[0]] || "");
      return;
    }
    if (!state.values.length && !state.instructions.length) {
      box.innerHTML = (state.query ? "<h4>search “" + esc(state.query) + "”: nothing found</h4>" : "") +
        "<span class='dx-muted'>Click a tensor, an op, a memory block or a finding to see its details.</span>";
      return;
    }
    /** @type {string[]} */
    const rows = [];
    if (state.values.length) rows.push(listHtml(state.values.length + " values", state.values.slice(0, 40).map((v) =>
      "<li><b>" + esc(P.labels.v[v] || ("%" + v)) + "</b></li>")));
    if (state.instructions.length) rows.push(listHtml(state.instructions.length + " ops", state.instructions.slice(0, 40).map((i) =>
      "<li><span class='dx-muted'>#" + i + "</span> <span class='dx-code'>" + esc(P.labels.i[i]) + "</span></li>")));
    box.innerHTML = "<h4>" + (state.query ? "search “" + esc(state.query) + "”" : "selection") + "</h4>" +
      "<table class='dx-kv'>" + rows.join("") + "</table>";
  }

  function markFinding() {
    /** @type {HTMLElement} */ ($("dx-findings")).querySelectorAll("button").forEach((b, k) => b.setAttribute("aria-current", String(String(k) === String(state.finding))));
  }

  /** @returns {{plan: string | null, values: number[], instructions: number[], finding: string | null, query: string}} */
  function selection() {
    return {plan: state.plan, values: state.values.slice(), instructions: state.instructions.slice(),
            finding: state.finding, query: state.query};
  }

  // sel: {values, instructions, finding (its index, as a string), query}; fromUser: tell the model
  /** @typedef {{values?: number[], instructions?: number[], finding?: string | number | null, query?: string}} Sel */
  /** @param {Sel} sel @param {boolean} [fromUser] */
  function select(sel, fromUser) {
    state.values = (sel.values || []).slice(); state.instructions = (sel.instructions || []).slice();
    state.finding = sel.finding === undefined || sel.finding === null ? null : String(sel.finding);
    state.query = sel.query || "";
    highlight(); details(); markFinding();
    if (PROF) detailsBox.insertAdjacentHTML("beforeend", PROF.details(state.instructions));
    if (fromUser !== false) publish("selected", selection());
  }

  function wireClicks() {
    onPlot(graphDiv, "plotly_click", (/** @type {PlotClick} */ ev) => {
      const pt = ev.points[0];
      if (DG && DG.click(pt)) return;  // a node inside an open delegate
      LOD.clickGraph(pt);
      // a delegate with a decoded inside opens / closes in place (an op's customdata: its instruction)
      if (pt.curveNumber === T.ops && DG && typeof pt.customdata === "number" && DG.toggle(pt.customdata)) over.labels.draw();
    });
    wireMemory();
  }
  let memoryWired = false;
  // the memory map's handlers, once plotly has drawn into its div (the first view draws it after the graph)
  function wireMemory() {
    if (memoryWired || !memoryDiv.on) return;
    memoryWired = true;
    onPlot(memoryDiv, "plotly_relayout", (/** @type {PlotRelayout} */ ev) => LOD.onRelayout(ev));
    onPlot(memoryDiv, "plotly_click", (/** @type {PlotClick} */ ev) => LOD.clickMemory(ev.points[0]));
  }

  /** @type {HTMLElement} */
  const list = $("dx-findings");
  data.findings.forEach((f, k) => {
    const li = h("li"), b = h("button", "dx-sev-" + f.severity, f.label);
    b.type = "button";
    b.addEventListener("click", () => {
      if (f.plan !== state.plan) ctx.showPlan(f.plan, false);
      select({values: f.values, instructions: f.instructions, finding: String(k)});
      LOD.reveal(f.values, f.instructions);  // open the groups holding what it names
    });
    li.appendChild(b);
    list.appendChild(li);
  });
  if (!data.findings.length) list.appendChild(h("li", "dx-muted", "no findings"));

  // the device filter and the open groups, set from Python (the widget) -> the panels
  model.on("change:devices", () => {
    const want = model.get("devices") || [];
    if (JSON.stringify(want) === JSON.stringify(shownList())) return;
    for (const d of Object.keys(state.shown)) state.shown[d] = want.indexOf(d) >= 0;
    applyDevices();
  });
  model.on("change:expanded", () => LOD.setExpanded(model.get("expanded") || []));

  // api.openLink / hashOf: the report's address (page.js, host/links.js): a link's text selects what the search box
  // finds; a selection -> the hash that selects it again
  return {state, plots: [graphDiv, memoryDiv], show, holds: () => true, apply,
          clear: () => select({values: [], instructions: []}, true), selection,
          find: (text) => select(search(P, text)), started: wireClicks,
          api: {drawn: () => Q.idle(), select, search: (/** @type {string} */ text) => search(P, text), lod: () => LOD,
                delegates: () => DG,
                profile: () => PROF, overlays: () => OV,
                openLink: (/** @type {string} */ text) => model.set("selected", Object.assign({plan: state.plan, finding: null}, search(P, text))),
                hashOf: (/** @type {Parameters<typeof linkOf>[0]} */ sel, /** @type {string} */ first) => linkOf(sel, first)}};
}

/** plotly's event methods, on a div plotly has drawn into (wireClicks runs after the first plan is drawn)
 * @param {PlotDiv} gd @param {string} event @param {(ev: any) => void} fn */
function onPlot(gd, event, fn) {
  /** @type {Required<Pick<PlotDiv, "on">>} */ (gd).on(event, fn);
}
