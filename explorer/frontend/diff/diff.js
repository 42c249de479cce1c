// The app in two-program mode: the placement diff of A (before) and B (after). Both graphs side by side with
// changes ringed, memory lanes paired, the runtime needs compared; a click on either side (or a memory block)
// selects it and its counterpart. Model state: `plan`, `selected` ({plan, side, values: {a, b},
// instructions: {a, b}}), as explorer.views.state.diff.DiffSelection.to_json writes it. Each side is drawn by
// the one-program modules, one per side, with the diff's marks on top (diff/sides.js), at every size; its memory
// maps are each side's own lanes.
import {STAGED_MIN, arr, esc, stages} from "../util/common.js";
import {markCircles, overlay, revealOutline} from "../panels/rings.js";
import {profileDiffView} from "../profile/diff.js";
import {divergenceControl, numericsRows, planNumerics} from "../profile/numerics.js";
import {overlayView} from "../overlay/view.js";
import {changeSummary, diffLod, SIDES, other} from "./sides.js";
import {labelLayer} from "../panels/labels.js";
import {CONFIG} from "../shell/frame.js";
import {createShell} from "../shell/shell.js";
import {diffLinkOf, sideNode} from "../host/links.js";

/** @typedef {import("../types/app").OverlayLayer} OverlayLayer */
/** @typedef {import("./sides.js").Side} Side */
/** @typedef {import("./sides.js").DiffState} DiffState */
/** @typedef {{side?: Side | "", values?: number[], instructions?: number[]}} SideSel a selection on one side */


// the two-program page around the shell's controls row (shell/shell.js): the header above; both graphs side by side, each
// side's memory map under its graph (style.css .dx-pairs: in one column, A's graph and map then B's, when narrow),
// then the details and the runtime needs
const LAYOUT = {
  rootClass: "dx-app dx-root dx-diff",
  head: `
<div class="dx-header"></div>`,
  planClass: "dx-muted",
  before: "",
  placeholder: "search both sides: name, op, %value, #op",
  after: `<span class="dx-muted dx-only"></span>`,
  body: `
<div class="dx-pairs">
 <div class="dx-card dx-pair-ga"><h3><span class="dx-side-a">A</span><span class="dx-name-a"></span> <span class="dx-muted">(before)</span></h3><div class="dx-graph-a"></div></div>
 <div class="dx-card dx-pair-gb"><h3><span class="dx-side-b">B</span><span class="dx-name-b"></span> <span class="dx-muted">(after)</span></h3><div class="dx-graph-b"></div></div>
 <div class="dx-card dx-pair-ma"><h3><span class="dx-side-a">A</span>memory map <span class="dx-muted dx-sum-a"></span></h3><div class="dx-memory-a"></div></div>
 <div class="dx-card dx-pair-mb"><h3><span class="dx-side-b">B</span>memory map <span class="dx-muted dx-sum-b"></span></h3><div class="dx-memory-b"></div></div>
</div>
<div class="dx-row">
 <div class="dx-card" style="flex:3 1 520px"><h3>Details <span class="dx-muted">— the selection and its counterpart</span></h3><div class="dx-details"></div></div>
 <div class="dx-card" style="flex:2 1 380px"><h3>Runtime needs <span class="dx-muted">— what the runtime must provide, A vs B</span></h3><div class="dx-req"></div></div>
</div>`,
};

// px under a graph the first view keeps for its memory map: the graph's two caption lines, the gap and the card's
// heading (85 px), the lanes' legend (40; their first title and lane follow: a click on a node scrolls its block into
// view). A small plan keeps its whole height anyway (lod/graph.js SMALL_NODES). 107 left 39.7 px of the legend in
// the what-if of a 128-layer program at 1600 x 1000, once its header was one line shorter.
const MEMORY_SHOWN = 125;
// the least px a graph is tall (lod/graph.js)
const GRAPH_MIN = 380;

/** The most px side s's graph may be tall so that its memory map's top is in the first view (the app's top at the
 * window's: a report opened, a notebook output scrolled to): the window's height less what is above the graph and
 * MEMORY_SHOWN. A graph too far down for that (B's, under A's map, in one column; a short window) is not made smaller.
 * @param {PlotDiv} gd the side's graph @param {HTMLElement} root the app's root */
function graphRoom(gd, root) {
  const room = globalThis.innerHeight - (gd.getBoundingClientRect().top - root.getBoundingClientRect().top) - MEMORY_SHOWN;
  return room >= GRAPH_MIN ? room : Infinity;
}

/** The diff: the shell (shell/shell.js) in this mode; the what-if bar only over a what-if (original vs predicted).
 * @param {HTMLElement} el @param {import("../types/payload").WidgetModel} model @param {import("../types/payload").DiffPayload} data */
export function createDiffApp(el, model, data) {
  return createShell(el, model, data, {layout: LAYOUT, moves: false, start: (ctx) => diffView(ctx, data)});
}

// long-function: not split yet: the paired panels' drawing, selection with counterparts and the profile card share
// the diff's state (both sides' plans and layers) in closures, as app/app.js did before its split.
/** The mode's panels and verbs (shell/shell.js View).
 * @param {import("../shell/shell").ShellContext} ctx @param {import("../types/payload").DiffPayload} data
 * @returns {import("../shell/shell").View} */
function diffView(ctx, data) {
  const {$, publish} = ctx;
  $("dx-name-a").textContent = data.nameA;
  $("dx-name-b").textContent = data.nameB;
  $("dx-only").textContent = data.only;
  /** @type {import("../types/payload").Sides<PlotDiv>} */
  const G = {a: $("dx-graph-a"), b: $("dx-graph-b")};
  /** @type {import("../types/payload").Sides<PlotDiv>} */
  const M = {a: $("dx-memory-a"), b: $("dx-memory-b")};
  /** @type {DiffState & {plan: string | null, query: string}} */
  const state = {plan: null, side: "", values: {a: [], b: []}, instructions: {a: [], b: []}, query: ""};
  // The current plan, both its sides (diff/sides.js) and the overlays over their figures: set by the shell's first
  // show(), which runs before any handler that reads them (createShell starts the view, then shows a plan).
  /** @type {import("../types/payload").DiffPlanPayload} */
  let P;
  /** @type {ReturnType<typeof diffLod>} */
  let D;
  /** @type {{a: OverlayLayer, b: OverlayLayer, ma: OverlayLayer, mb: OverlayLayer}} */
  let over;
  /** @type {ReturnType<typeof profileDiffView> | null} */
  let PROF = null;  // two run profiles compared on this plan (profile/diff.js)
  /** @type {Partial<Record<Side, {draw(): void}>>} */
  const labelLayers = {};  // each side's node labels (panels/labels.js)
  // a big pair's first view in stages, each a task of its own (util/common.js stages, as app/app.js draws one plan): both
  // graphs with the diff's marks, then each memory map (under them); api.drawn() resolves when all are
  const Q = stages(ctx.el);
  let shownOnce = false;

  // a what-if (data.whatif: original vs predicted): the shell's bar, and "Move to ▸" under the details
  const MV = ctx.moves;
  /** @param {Side} s @param {"value" | "instr" | "group"} kind @param {number} x */
  function moveBlock(s, kind, x) { return MV ? MV.diffBlock(P, s, kind, x) : ""; }

  // a widget's what-if leaves the changed pairs' texts out of its payload (views/payload/diff.py lazy): one is asked
  // for when it is selected, and the details are written again when the kernel answers (widget/whatif.py)
  const asked = new Set();
  /** @param {import("../types/payload").DiffPlanPayload} plan @param {number} k @returns {null} */
  function askText(plan, k) {
    const key = plan.name + "\u0000" + k;
    if (!asked.has(key)) { asked.add(key); ctx.model.send({type: "pair_text", plan: plan.name, k}); }
    return null;
  }
  ctx.model.on("msg:custom", (/** @type {{type?: string, plan?: string, k?: number, html?: string} | null} */ msg) => {
    if (!msg || msg.type !== "pair_text" || typeof msg.k !== "number") return;
    const plan = data.plans.find((p) => p.name === msg.plan);
    if (!plan || plan.texts[msg.k] !== null) return;
    plan.texts[msg.k] = String(msg.html);
    if (plan === P) details();
  });

  // two runs compared (diff --debug-buffer): the button that selects where they part, on both sides
  // (profile/numerics.js), then the "colour" picker over both sides (overlay/view.js: each side's ops by its own
  // overlay of the name picked, one scale for both)
  const NUM = divergenceControl($("dx-controls"), data.numerics, (where) => {
    select({side: "a", instructions: [where.a]}, SIDES);
    if (where.b !== null && state.instructions.b.indexOf(where.b) < 0) {  // B's paired instruction, when the diff's pairing differs
      state.instructions.b = [where.b];
      highlight(SIDES); details();
      publish("selected", selection());
    }
  });
  const OV = overlayView({controls: $("dx-controls"), model: ctx.model, overlays: data.overlays, publish,
                          redraw: (g) => { if (D && (g === "a" || g === "b")) D.side(g).redraw(); }});

  /** @param {import("../types/payload").DiffPlanPayload} plan */
  function show(plan) {  // the shell switched to `plan` (shell/shell.js)
    if (PROF) { PROF.remove(); PROF = null; }  // puts back what it changed on the previous plan's figures
    Q.drop();  // what the plan before still had queued
    P = plan;
    // the first plan of a big pair is drawn in stages; a plan switched to later at once, as before (what reads the
    // panels right after a switch, tests included, finds them drawn)
    const staged = !shownOnce && SIDES.some((s) => P.sides[s].lod.m + P.sides[s].lod.n >= STAGED_MIN);
    shownOnce = true;
    OV.plan(P.name, {a: P.sides.a.lod.trace, b: P.sides.b.lod.trace});  // before its sides are drawn
    NUM.plan(P.name);
    $("dx-header").innerHTML = P.header;  // escaped when built (explorer.views.fragments.review)
    $("dx-req").innerHTML = P.requirements;
    if (!over) over = {a: overlay(G.a), b: overlay(G.b), ma: overlay(M.a), mb: overlay(M.b)};
    for (const s of SIDES) {
      const sum = $("dx-sum-" + s), heading = /** @type {HTMLElement} */ (sum.parentElement);
      sum.textContent = "\u00b7 " + P.sides[s].summary;
      heading.title = heading.textContent || "";  // the whole line where the card cuts it (style.css .dx-pair-m*)
    }
    /** @type {import("./sides.js").DiffCtx} */
    const host = {graphs: G, memories: M, overlays: {a: over.a, b: over.b}, memoryOverlays: {a: over.ma, b: over.mb},
                  config: CONFIG, details: $("dx-details"), names: {a: data.nameA, b: data.nameB},
                  select: (sel) => select(sel), drawn: (s) => { if (PROF) PROF.sizeOps(s); },
                  room: (s) => graphRoom(G[s], /** @type {HTMLElement} */ (G[s].closest(".dx-app"))),
                  // a memory map drawn in a later stage: its clicks and zooms wired once plotly has drawn in it
                  later: staged ? (fn, name) => Q.later(() => { fn(); wire(); }, name) : undefined,
                  paint: (s, traces) => OV.paint(traces, s),
                  askText: (k) => askText(P, k),
                  // a node's details: the overlay's number (overlay/view.js), then this side's run's (profile/numerics.js)
                  detailRows: (s, kind, index) => OV.detailRows(kind, index, s)
                    .concat(numericsRows(planNumerics(data.numerics, P.name), kind, index, s))};
    D = diffLod(P, host);
    // two run profiles: the runs compared, what got faster or slower (a click selects it on both sides, opening the
    // groups that hold it on a big pair), and time per run in the details
    if (P.profiles) {
      PROF = profileDiffView(P, {graphs: G, T: data.trace, select: (/** @type {SideSel} */ sel) => select(sel, SIDES), mountTop: ctx.mountTop});
      for (const s of SIDES) PROF.sizeOps(s);
    }
    for (const s of SIDES) {  // node labels that fit, as in the one-program app (panels/labels.js); redrawn after every draw
      if (!labelLayers[s] && G[s].on) {
        labelLayers[s] = labelLayer(G[s], arr, undefined, () => markCircles(G[s], over[s].items().marks));
      }
      const layer = labelLayers[s];
      if (layer) layer.draw();
    }
    wire();
  }

  // the model's selection when a plan opens is applied if it names something on either side
  /** @param {{side?: string, values?: Partial<Record<Side, number[]>>}} pre */
  function holds(pre) { return !!(pre.side || SIDES.some((x) => ((pre.values || {})[x] || []).length)); }

  // plotly's event methods exist once a figure is drawn in the div: the divs a plan drew are wired after it
  /** @type {Map<PlotDiv, Set<string>>} */
  const wired = new Map();
  /** @param {PlotDiv} gd @param {string} event @param {(ev: any) => void} fn */
  function on(gd, event, fn) {
    if (!gd.on) return;
    let events = wired.get(gd);
    if (!events) wired.set(gd, events = new Set());
    if (events.has(event)) return;
    events.add(event);
    gd.on(event, fn);
  }
  function wire() {
    for (const s of SIDES) {
      on(G[s], "plotly_click", (/** @type {PlotClick} */ ev) => {
        D.clickGraph(s, ev.points[0]);
        revealOutline(M[s]);  // this side's memory map, under its graph: the block selected scrolled into view
        const T = P.sides[s].lod.trace, pt = ev.points[0];  // a group's details: what moving it would name
        if (MV && (pt.curveNumber === T.groups || pt.curveNumber === T.headers) && typeof pt.customdata === "number") {
          $("dx-details").insertAdjacentHTML("beforeend", moveBlock(s, "group", pt.customdata));
        }
      });
      // each side's memory lanes (lod/details.js)
      on(M[s], "plotly_click", (/** @type {PlotClick} */ ev) => D.clickMemory(s, ev.points[0]));
      on(M[s], "plotly_relayout", (/** @type {PlotRelayout} */ ev) => D.onRelayout(s, ev));
    }
  }

  /** @param {Side[]} [reveal] */
  function highlight(reveal) { D.highlight(state, reveal || []); }  // drawn over the figures (panels/rings.js)

  function details() {
    /** @type {HTMLElement} */
    const box = $("dx-details");
    const s = state.side || "a";
    const vs = state.values[s], is = state.instructions[s];
    const one = D.details(state);
    if (one) {
      box.innerHTML = one + moveBlock(s, vs.length ? "value" : "instr", vs.length ? vs[0] : is[0]);
      return;
    }
    if (!vs.length && !is.length) { box.innerHTML = changeSummary(P, data.empty); return; }  // what the diff says, how to select
    box.innerHTML = "<div class='dx-root dx-diff'><h4>" + (state.query ? "search \u201c" + esc(state.query) + "\u201d" : "selection") + "</h4>" + SIDES.map((x) =>
      "<div><span class='dx-side-" + x + "'>" + x.toUpperCase() + "</span>" +
      esc(state.values[x].slice(0, 60).map((v) => label(x, "v", v)).concat(state.instructions[x].slice(0, 60).map((i) => label(x, "i", i))).join(", ") || "—") +
      (state.values[x].length + state.instructions[x].length > 120 ? " \u2026" : "") +
      "</div>").join("") + "</div>";
  }

  /** @param {Side} s @param {"v" | "i"} kind @param {number} x */
  function label(s, kind, x) {  // a value's name (else %N), an instruction's #N and op, for lists
    const L = D.labels(s);
    const name = L && (kind === "v" ? L.v[x] : L.i[x]);
    return kind === "v" ? (name && name !== "%" + x ? name + " (%" + x + ")" : "%" + x) : "#" + x + (name ? " " + name : "");
  }

  function selection() {
    return {plan: state.plan, side: state.side, values: {a: state.values.a.slice(), b: state.values.b.slice()},
            instructions: {a: state.instructions.a.slice(), b: state.instructions.b.slice()}};
  }

  /** @param {{side?: Side | "", query?: string, values?: Partial<Record<Side, number[]>>,
   *            instructions?: Partial<Record<Side, number[]>>}} sel */
  function apply(sel) {  // a whole selection (both sides), as Python sends it: both sides open what it names
    state.side = sel.side || "";
    state.query = sel.query || "";
    state.values = {a: ((sel.values || {}).a || []).slice(), b: ((sel.values || {}).b || []).slice()};
    state.instructions = {a: ((sel.instructions || {}).a || []).slice(), b: ((sel.instructions || {}).b || []).slice()};
    highlight(SIDES); details(); profileDetails();
  }

  /** @param {Side} s @param {"v" | "i"} kind @param {number} x */
  function counterpart(s, kind, x) { return D.counterpart(s, kind, x); }

  /** @param {string} text */
  function find(text) {  // the search box: each side's own matches (explorer/frontend/shell/search.js rules)
    text = text.trim();
    if (!text) { select({side: "", values: [], instructions: []}); return; }
    apply(D.find(text));
    publish("selected", selection());
  }

  function profileDetails() {
    if (PROF) $("dx-details").insertAdjacentHTML("beforeend", PROF.details(state.instructions));
  }

  // sel: {side: "a"|"b", values, instructions} on that side; the other side follows the pairing. reveal: the sides
  // whose folded groups open to show it (default: the other side; a click on a side shows what it hit already)
  /** @param {SideSel} sel @param {Side[]} [reveal] */
  function select(sel, reveal) {
    const s = sel.side || "", o = s ? other(s) : "";
    state.side = s;
    state.query = "";
    state.values = {a: [], b: []}; state.instructions = {a: [], b: []};
    if (s) {
      state.values[s] = (sel.values || []).slice();
      state.instructions[s] = (sel.instructions || []).slice();
      const found = (/** @type {number | undefined} */ x) => x !== undefined;
      state.values[other(s)] = /** @type {number[]} */ (state.values[s].map((v) => counterpart(s, "v", v)).filter(found));
      state.instructions[other(s)] = /** @type {number[]} */ (state.instructions[s].map((i) => counterpart(s, "i", i)).filter(found));
    }
    highlight(reveal || (o ? [o] : [])); details(); profileDetails();
    publish("selected", selection());
  }

  // api.openLink / hashOf: the report's address (page.js, host/links.js): "a:%12" / "b:@5" a node of one side (and its
  // counterpart), else a search of both; a selection -> its hash
  return {state, plots: [G.a, G.b, M.a, M.b], show, holds, apply, selection, find, started: wire,
          clear: () => select({side: "", values: [], instructions: []}),
          api: {select, find, profile: () => PROF, lod: () => D, overlays: () => OV, firstDivergence: () => NUM.click(),
                drawn: () => Q.idle(),
                openLink(/** @type {string} */ text) {
                  const node = sideNode(text);
                  if (node) select(/** @type {SideSel} */ (node), SIDES);  // its side is "a" or "b" (host/links.js)
                  else find(text);
                },
                hashOf: (/** @type {Parameters<typeof diffLinkOf>[0]} */ sel, /** @type {string} */ first) =>
                  diffLinkOf(sel, state.query, first)}};
}
