// The explorer app: one program's panels (graph, details, findings, per-device table, memory map) and every
// interaction (hover, select, search, device filter, expand/collapse, memory zoom). The notebook widget
// (index.js) and the exported report (page.js) both run it; they differ only in the `model` they pass: the
// widget's anywidget model, or a stand-in over the page's embedded data (host/model.js). State that Python can read
// and set lives in the model: `plan`, `selected`, `devices`, `expanded`. Every plan, whatever its size, is drawn
// by the same modules from the payload's tables (lod/plan.js): a small plan opens with every group expanded.
import {STAGED_MIN, arr, h, stages} from "../util/common.js";
import {boxFit} from "./fit.js";
import {overlay, revealOutline} from "../panels/rings.js";
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
import {divergenceControl, numericsRows, planNumerics} from "../profile/numerics.js";
import {fresh, planFigures} from "../lod/figures.js";
import {deviceButtons, markDevices, shownList} from "./devices.js";
import {appSelection} from "./selection.js";


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

// the one-program page around the shell's controls row (shell/shell.js): title and summary above; the graph with its
// minimap, the memory map and the details with the findings in one grid (style.css .dx-main: the memory map beside the
// graph in a wide app, under it in a narrower one, so a click on a node shows its block); the per-device table below
const LAYOUT = {
  rootClass: "dx-app dx-root",
  head: `
<div class="dx-head"><h1 class="dx-title"></h1><span class="dx-muted dx-summary"></span><span class="dx-context-note" hidden></span></div>`,
  planClass: "",
  before: `<span><span class="dx-muted">devices </span><span class="dx-devices"></span></span>`,
  placeholder: "search: name, op, %value, #op",
  after: "",
  body: `
<div class="dx-main">
 <div class="dx-card dx-graph-card"><div class="dx-graph"></div><canvas class="dx-minimap" hidden></canvas></div>
 <div class="dx-card dx-memory-card"><h3>Memory map <span class="dx-muted">— one lane per arena; each tensor spans its lifetime (x) and bytes (y)</span></h3>
  <canvas class="dx-memstrip" hidden></canvas><div class="dx-memory"></div><p class="dx-muted dx-empty-arenas" hidden></p></div>
 <div class="dx-side">
  <div class="dx-card"><div class="dx-details"></div></div>
  <div class="dx-card"><h3>Findings <span class="dx-muted dx-findings-count"></span></h3><ul class="dx-findings"></ul></div>
 </div>
</div>
<div class="dx-section dx-card"><h3>Per device</h3><div class="dx-totals"></div></div>`,
};

/** The one-program app: the shell (shell/shell.js) in this mode.
 * @param {HTMLElement} el @param {import("../types/payload").WidgetModel} model @param {import("../types/payload").AppPayload} data */
export function createApp(el, model, data) {
  return createShell(el, model, data, {layout: LAYOUT, moves: true, start: (ctx) => appView(ctx, data)});
}

/** The layers over a plan's figures, made once per app: the selection over the graph and the lanes (panels/rings.js),
 * the minimap (panels/nav.js), the label layer (panels/labels.js: clear of the minimap), the memory strip
 * (panels/memstrip.js: the current plan's lanes, on a profile's time axis when it is).
 * @param {(cls: string) => any} $ the app's element of a class @param {PlotDiv} graphDiv @param {PlotDiv} memoryDiv
 * @param {() => import("../lod/plan.js").LodPlan} lod the current plan's drawing @param {() => number} count its instructions */
function planLayers($, graphDiv, memoryDiv, lod, count) {
  const graph = overlay(graphDiv), memory = overlay(memoryDiv);
  const mini = minimap(graphDiv, $("dx-minimap"));  // before the labels: they keep clear of it
  const labels = labelLayer(graphDiv, arr, () => {
    const mm = $("dx-minimap");
    if (mm.hidden) return [];
    const a = mm.getBoundingClientRect(), b = graphDiv.getBoundingClientRect();
    return [[a.left - b.left, a.top - b.top, a.right - b.left, a.bottom - b.top]];
  });
  const strip = memoryStrip(memoryDiv, $("dx-memstrip"), () => lod().laneProfiles(), count, () => lod().axis());
  return {graph, memory, minimap: mini, labels, strip};
}

/** A plan's first view in stages, each a task of its own when `later` queues it (util/common.js stages): fold and lay
 * out the first state, draw it, its labels and minimap, the memory map's skeleton (then `wireMemory`: plotly gives a
 * div its events when it first draws in it), the lanes and the strip; then `fitted` (a short box's compact layout
 * measured again for this plan: app/fit.js).
 * @param {(fn: () => void, name?: string) => void} later @param {import("../lod/plan.js").LodPlan} L
 * @param {ReturnType<typeof planLayers>} over @param {PlotDiv} memoryDiv @param {ReturnType<typeof planFigures>} FIG
 * @param {() => void} wireMemory @param {() => void} fitted */
function drawInStages(later, L, over, memoryDiv, FIG, wireMemory, fitted) {
  later(() => { L.folded(); }, "fold");  // fold and lay out the first state (lod/base.js: kept for the draw)
  later(() => { L.drawFirst(); }, "graph");  // draw it (unless a change drew it already)
  later(() => { over.minimap.draw(); over.labels.draw(); }, "labels");
  later(() => {
    globalThis.Plotly.react(memoryDiv, fresh(FIG.memory.data), fresh(FIG.memory.layout), CONFIG);
    memoryDiv.style.minHeight = "";
    wireMemory();
  }, "lanes");
  later(() => {
    L.drawMemory();
    over.strip.reset();  // this plan's lanes
    over.strip.draw();
    fitted();
  }, "memory");
}

/** The findings list: a button per finding (`pick(k)` on a click), or "no findings"
 * @param {HTMLElement} list @param {import("../types/payload").Finding[]} findings @param {(k: number) => void} pick */
function findingsList(list, findings, pick) {
  findings.forEach((f, k) => {
    const li = h("li"), b = h("button", "dx-sev-" + f.severity, f.label);
    b.type = "button";
    b.addEventListener("click", () => pick(k));
    li.appendChild(b);
    list.appendChild(li);
  });
  if (!findings.length) list.appendChild(h("li", "dx-muted", "no findings"));
}

/** What the one-program app hands its plan's drawing (lod/plan.js, panels/delegate.js: types/app.d.ts LodHost): its
 * plots and selection, and the hooks that reach the app's other parts — given as functions, since the plan's parts
 * (its delegates, profile, layers) change with the plan shown.
 * @param {PlotDiv} graphDiv @param {PlotDiv} memoryDiv @param {import("../types/app").LodHost["state"] & {shown: Record<string, boolean>}} state
 * @param {HTMLElement} detailsBox @param {import("../types/payload").AppPayload} data @param {(key: string, value: unknown) => void} publish
 * @param {{select: (sel: import("../types/app").PanelSelection) => void, group: (g: number) => void, highlight: () => void,
 *          delegates: () => ReturnType<typeof delegateExpander> | null, profile: () => ReturnType<typeof profileView> | null,
 *          layers: () => ReturnType<typeof planLayers>, overlays: () => ReturnType<typeof overlayView>,
 *          moves: ReturnType<typeof import("../shell/moves").movesView>, plan: () => import("../types/payload").PlanPayload,
 *          room: () => number}} app
 * @returns {import("../types/app").LodHost} */
function appHost(graphDiv, memoryDiv, state, detailsBox, data, publish, app) {
  const {delegates: DG, profile: PROF} = app;
  return {graph: graphDiv, memory: memoryDiv, state, config: CONFIG,
          shown: () => state.shown, select: app.select, group: app.group, room: app.room,
          html: (markup) => { detailsBox.innerHTML = markup; }, findings: () => data.findings,
          expanded: (list) => publish("expanded", list.slice()),
          moved: app.highlight,
          // after every draw of the graph: the open delegates over it, a profile's op sizes on it
          drawn: () => { const dg = DG(), prof = PROF(); if (dg) dg.rebase(); if (prof) prof.sizeOps(); },
          // (panels/delegate.js moves numbers to numbers and keeps the nulls between polylines)
          place: (x, y) => { const dg = DG(); return dg ? /** @type {[number, number]} */ (dg.place(x, y)) : [x, y]; },
          placeLines: (xs, ys) => { const dg = DG(); return dg ? /** @type {[(number | null)[], (number | null)[]]} */ (dg.placeLines(xs, ys)) : [xs, ys]; },
          rings: (items) => app.layers().graph.set(items), outlines: (items) => app.layers().memory.set(items),
          // an overlay picked (overlay/view.js): node colours, hover lines and a details row
          paint: (traces) => app.overlays().paint(traces),
          // first in a node's details: an overlay's number, "Move to ▸" (shell/moves.js)
          // (both are [label, cell] pairs; shell/moves.js returns them as string[][])
          // then a run's numbers (profile/numerics.js): the outputs' statistics, compared: B's and the gap
          detailRows: (kind, index) => app.overlays().detailRows(kind, index).concat(/** @type {[string, string][]} */ (app.moves.detailRows(app.plan(), kind, index)))
            .concat(numericsRows(planNumerics(data.numerics, app.plan().name), kind, index))};
}

/** The plots' click and zoom handlers, once plotly has drawn into each div (it gives a div its events when it first
 * draws in it; the first view draws the memory map after the graph): `graph()` at the app's start, `memory()` after
 * the lanes' first draw, once each. @param {PlotDiv} graphDiv @param {PlotDiv} memoryDiv @param {import("../types/payload").TraceIndex} T
 * @param {() => import("../lod/plan.js").LodPlan} lod @param {() => ReturnType<typeof delegateExpander> | null} delegates
 * @param {() => {draw(): void}} labels the label layer */
function plotHandlers(graphDiv, memoryDiv, T, lod, delegates, labels) {
  let memoryWired = false;
  function memory() {
    if (memoryWired || !memoryDiv.on) return;
    memoryWired = true;
    onPlot(memoryDiv, "plotly_relayout", (/** @type {PlotRelayout} */ ev) => lod().onRelayout(ev));
    onPlot(memoryDiv, "plotly_click", (/** @type {PlotClick} */ ev) => lod().clickMemory(ev.points[0]));
  }
  function graph() {
    onPlot(graphDiv, "plotly_click", (/** @type {PlotClick} */ ev) => {
      const pt = ev.points[0], DG = delegates();
      if (DG && DG.click(pt)) return;  // a node inside an open delegate
      lod().clickGraph(pt);
      revealOutline(memoryDiv);  // the memory map under the graph (a narrow app): the block selected scrolled into view
      // a delegate with a decoded inside opens / closes in place (an op's customdata: its instruction)
      if (pt.curveNumber === T.ops && DG && typeof pt.customdata === "number" && DG.toggle(pt.customdata)) labels().draw();
    });
    memory();
  }
  return {graph, memory};
}

/** The mode's panels and verbs (shell/shell.js View): what the shell does not do for it.
 * @param {import("../shell/shell").ShellContext} ctx @param {import("../types/payload").AppPayload} data
 * @returns {import("../shell/shell").View} */
function appView(ctx, data) {
  const T = data.trace, {$, model, publish} = ctx;
  const MV = /** @type {ReturnType<typeof import("../shell/moves").movesView>} */ (ctx.moves);
  const graphDiv = /** @type {PlotDiv} */ ($("dx-graph")), memoryDiv = /** @type {PlotDiv} */ ($("dx-memory"));
  const detailsBox = ctx.details;
  // the memory map card's heading (LAYOUT): a profile's axis toggle joins it
  const memoryHead = /** @type {HTMLElement} */ (/** @type {HTMLElement} */ (memoryDiv.parentElement).querySelector("h3"));
  $("dx-title").textContent = data.title;
  $("dx-findings-count").textContent = `(${data.findings.length}, from explorer.check — click one to select it)`;
  /** @type {{plan: string | null, values: number[], instructions: number[], finding: string | null, query: string,
   *          group: number | null, shown: Record<string, boolean>}} */
  const state = {plan: null, values: [], instructions: [], finding: null, query: "", group: null, shown: {}};
  // The current plan, its graph and memory lanes (lod/plan.js), and the layers over its figures: set by the shell's first
  // show(), which runs before any handler that reads them (createShell starts the view, then shows a plan).
  /** @type {import("../types/app").LabelledPlan} */
  let P;
  /** @type {import("../lod/plan.js").LodPlan} */
  let LOD;
  /** @type {ReturnType<typeof planLayers>} */
  let over;
  /** @type {ReturnType<typeof profileView> | null} */
  let PROF = null;  // a run profile drawn on this plan's panels (profile/profile.js)
  /** @type {ReturnType<typeof delegateExpander> | null} */
  let DG = null;  // the delegate calls opened in place (panels/delegate.js)
  const host = appHost(graphDiv, memoryDiv, state, detailsBox, data, publish, {select: (sel) => select(sel, true),
    group: (g) => selectGroup(g), highlight: () => highlight(), delegates: () => DG, profile: () => PROF, layers: () => over, overlays: () => OV, moves: MV,
    plan: () => P, room: () => FIT.room()});
  // a short box (index.js fitHost): the compact layout, the graph and the memory map as tall as the box leaves them
  const FIT = boxFit(ctx.el, graphDiv, memoryDiv, () => P.lod.arenas.length, () => { if (LOD) LOD.home(); });
  // a plan is drawn in stages, each a task of its own (util/common.js stages): the graph, then its labels and minimap,
  // then the memory map; api.drawn() resolves when all are (page.js says "ready" then)
  const Q = stages(ctx.el);
  let shown = false;  // the first plan was drawn

  const OV = overlayView({controls: $("dx-controls"), model, overlays: data.overlays, publish, redraw: () => { if (LOD) LOD.redraw(); }});
  // two runs compared: "first divergence" selects it and opens the groups holding it (profile/numerics.js)
  const NUM = divergenceControl($("dx-controls"), data.numerics, (at) => { select({values: [], instructions: [at.a]}); LOD.reveal([], [at.a]); });
  // what-if: "Move to ▸" and the moves (the kernel predicts; a report lists the command that will) are the shell's
  // bar (ctx.moves); this mode offers them in a node's details

  // the shell switched to `plan` (shell/shell.js). keep: the model's `expanded` is this plan's (the first draw, a plan set
  // from Python); else the plan opens as it first did and says so to the model
  /** @param {import("../types/payload").PlanPayload} plan @param {boolean} keep */
  function show(plan, keep) {
    if (PROF) { PROF.remove(); PROF = null; }
    P = /** @type {import("../types/app").LabelledPlan} */ (plan);  // its labels are filled in below, before any use
    $("dx-summary").textContent = "· " + P.summary;
    Object.assign($("dx-empty-arenas"), {textContent: P.emptyArenas || "", hidden: !P.emptyArenas});  // arenas not drawn, counted
    contextNote($("dx-context-note"), P.context);
    $("dx-totals").innerHTML = P.totals;  // escaped when it was built (explorer.views.fragments.tables)
    // the skeletons built from the plan's tables (lod/figures.js); copies: plotly keeps the objects it is given as the
    // figure's own and changes them as it draws, and the skeletons must stay as they are for the next time
    Q.drop();  // what the plan before still had queued
    const FIG = planFigures(P.lod);
    globalThis.Plotly.react(graphDiv, fresh(FIG.graph.data), fresh(FIG.graph.layout), CONFIG);
    // the memory map is drawn in later tasks (below); its box keeps its height meanwhile
    memoryDiv.style.minHeight = FIG.memory.layout.height + "px";
    if (!over) over = planLayers($, graphDiv, memoryDiv, () => LOD, () => P.nInstructions);
    DG = delegateExpander(P, graphDiv, T, host);
    OV.plan(P.name, {"": P.lod.trace});  // its overlays in the picker, before its graph is drawn
    NUM.plan(P.name);
    LOD = lodPlan(P, host, {draw: false});
    if (!P.labels) P.labels = LOD.labels();
    // the page's first view in stages (a task each); a plan switched to later is drawn at once, as before (what
    // reads the panels right after a switch, tests included, finds them drawn)
    const staged = !shown && P.lod.m + P.lod.n >= STAGED_MIN;
    const L = LOD, later = staged ? Q.later : (/** @type {() => void} */ fn) => fn();
    shown = true;
    drawInStages(later, L, over, memoryDiv, FIG, handlers.memory, FIT.again);
    if (P.profile) {
      PROF = profileView(P, {graph: graphDiv, memory: memoryDiv, T, lanes: LOD.lanes(), rehighlight: () => highlight(),
        setAxis: (/** @type {Parameters<import("../lod/plan.js").LodPlan["setAxis"]>[0]} */ map) => LOD.setAxis(map),
        mountTop: ctx.mountTop, mountMemoryHead: (/** @type {HTMLElement} */ el) => memoryHead.appendChild(el)});
      PROF.sizeOps();
    }
    deviceButtons(devicesBox, P.devices, model.get("devices"), state.shown, () => { applyDevices(); publish("devices", shownList(P.devices, state.shown)); });
    if (Object.values(state.shown).some((v) => !v)) applyDevices();
    else publish("devices", shownList(P.devices, state.shown));
    const want = model.get("expanded");
    if (keep && Array.isArray(want) && model.get("plan") === P.name) LOD.setExpanded(want);
    else later(() => { publish("expanded", L.state().expanded); }, "");  // state() folds: after the graph's stage
  }

  /** @type {HTMLElement} */
  const devicesBox = $("dx-devices");
  function applyDevices() { markDevices(devicesBox, state.shown); LOD.devices(); }

  /** @type {HTMLElement} */
  const findings = $("dx-findings");
  const {select, selection, apply, highlight, selectGroup} = appSelection(state, detailsBox, findings, publish, () => P, () => LOD, () => PROF);
  const handlers = plotHandlers(graphDiv, memoryDiv, T, () => LOD, () => DG, () => over.labels);

  findingsList(findings, data.findings, (k) => {
    const f = data.findings[k];
    if (f.plan !== state.plan) ctx.showPlan(f.plan, false);
    select({values: f.values, instructions: f.instructions, finding: String(k)});
    LOD.reveal(f.values, f.instructions);  // open the groups holding what it names
  });

  // the device filter and the open groups, set from Python (the widget) -> the panels
  model.on("change:devices", () => {
    const want = model.get("devices") || [];
    if (JSON.stringify(want) === JSON.stringify(shownList(P.devices, state.shown))) return;
    for (const d of Object.keys(state.shown)) state.shown[d] = want.indexOf(d) >= 0;
    applyDevices();
  });
  model.on("change:expanded", () => LOD.setExpanded(model.get("expanded") || []));

  // api.openLink / hashOf: the report's address (page.js, host/links.js): a link's text selects what the search box
  // finds; a selection -> the hash that selects it again
  return {state, plots: [graphDiv, memoryDiv], show, holds: () => true, apply,
          clear: () => select({values: [], instructions: []}, true), selection,
          find: (text) => select(search(P, text)), started: handlers.graph,
          api: {drawn: () => Q.idle(), select, search: (/** @type {string} */ text) => search(P, text), lod: () => LOD,
                delegates: () => DG, fit: FIT.fit,
                profile: () => PROF, overlays: () => OV, firstDivergence: () => NUM.click(),
                openLink: (/** @type {string} */ text) => model.set("selected", Object.assign({plan: state.plan, finding: null}, search(P, text))),
                hashOf: (/** @type {Parameters<typeof linkOf>[0]} */ sel, /** @type {string} */ first) => linkOf(sel, first)}};
}

/** plotly's event methods, on a div plotly has drawn into (wireClicks runs after the first plan is drawn)
 * @param {PlotDiv} gd @param {string} event @param {(ev: any) => void} fn */
function onPlot(gd, event, fn) {
  /** @type {Required<Pick<PlotDiv, "on">>} */ (gd).on(event, fn);
}
