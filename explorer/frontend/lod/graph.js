import {ptext, setPath} from "../util/common.js";
import {countText} from "../util/format.js";
import {centredOn} from "../panels/nav.js";
import {layOut, layoutRunner} from "../layout/worker.js";
import {currentFold} from "./base.js";
import {fresh, planFigures} from "./figures.js";
import {collapseGroup, openGroup, revealGroups} from "./expand.js";
import {boxes, figureHeight, focusView, homeView, nodesIn, plotSize, regionOf, zoomedOut} from "./views.js";
import {mixShapes, statusLines, tint, windowLine} from "./captions.js";
import {foldTraces} from "./traces.js";
import {followPans} from "./pans.js";
import {ringSelection, stubHover} from "./selection.js";

// folds of this many units or more are laid out in the worker; smaller ones here (in a task of their own), where
// they take a few ms, less than the worker's round trip (transformer3k: 357 units, ~30 ms of layout)
export const WORKER_MIN = 200;
// folds of more nodes than this draw only the nodes in and near the view (plotly's SVG costs ~0.1-0.3 ms a marker
// with its hover, symbol and colour, and a redraw of thousands blocks the page for hundreds of ms); pan and zoom
// draw the rest. A plan that opens whole (every group open: small enough to draw in one go) is drawn whole up to
// WINDOW_MIN nodes, one that opens as an overview of its groups past OVERVIEW_WINDOW_MIN
export const WINDOW_MIN = 1000, OVERVIEW_WINDOW_MIN = 300;
// a region with more tensors and ops than this, zoomed out below half the readable scale, paints them as dots
export const DRAW_MAX = 500;

// A plan drawn at its level of detail (lod/plan.js), part 2: the graph. Expanding and collapsing groups in place
// (lod/expand.js; the fold: lod/base.js; its layout in the worker: layout/worker.js), drawn near the view
// (lod/views.js, lod/traces.js, lod/captions.js), following pans and zooms (lod/pans.js), the selection's rings
// (lod/selection.js). It reads and changes the view state S (lod/base.js LodState) and calls what it needs of the
// other parts through `uses`: a group's details when it is opened, the memory map's outlines with the graph's
// selection.
/** @typedef {import("./base.js").LodBase} LodBase */
/** @typedef {import("./base.js").LodState} LodState */
/** @typedef {ReturnType<typeof lodGraph>} LodGraph */
/** @typedef {import("./views.js").View} View */
/** A view computed once the plot area's size is known (lod/views.js plotSize). @typedef {(size: import("./views.js").Size) => View | null} ViewOf */

// the least px a host's room makes the graph (a compact app in a short box: app/fit.js; the diff asks for 380 or more)
const ROOM_MIN = 240;
// a fold of at most this many nodes keeps its whole height where the host says so (LodHost keepSmall: the diff): cut
// to the room, a small plan opened on its top rows and dropped the labels of the rest (what-if of a 34-node plan at
// 1280 x 800: 20 labels), issue 32 item 3
const SMALL_NODES = 100;

/**
 * One Plotly.react with the view's ranges in it (one redraw, not a react and then a relayout): every trace rebuilt
 * for the nodes in and near that view (lod/views.js regionOf) from `baseData` (the skeleton lod/figures.js builds).
 * view: the ranges, a function giving them once the figure's new height is known, or null (the view stays);
 * reset: the home view.
 * @param {LodBase} B @param {LodState} S @param {import("./base.js").LodHost} host @param {Record<string, any>[]} baseData
 * @param {number} windowMin @param {View | ViewOf | null} view @param {boolean} [reset]
 */
function drawGraph(B, S, host, baseData, windowMin, view, reset) {
  const gd = host.graph, data = /** @type {Record<string, any>[]} */ (fresh(baseData)), f = currentFold(B, S);
  // graph._layout: its layers' height (views.js figureHeight: an overview that fits whole may grow to 1,200 px), within
  // the room the host leaves it (the diff: its memory maps' top in the first view)
  const layers = figureHeight(B.G, f, B.L.limits.focus);
  const whole = host.keepSmall && f.nodes.length <= SMALL_NODES;
  const height = host.room && !whole ? Math.round(Math.max(ROOM_MIN, Math.min(layers, host.room()))) : layers;
  // a div plotly has not drawn in yet (the diff draws each figure in one Plotly.react, no skeleton first): the
  // skeleton's layout (lod/figures.js), the plot area's size from the div's width and the layout's margins
  const lay = Object.assign({}, gd.layout || fresh(planFigures(B.L).graph.layout)), laidOut = !!gd._fullLayout;
  const sized = laidOut || !!gd.clientWidth, now = () => plotSize(gd, laidOut ? 0 : height, lay);
  const ranges = reset ? homeView(B.G, f, plotSize(gd, height, lay)) : typeof view === "function" ? view(plotSize(gd, height, lay)) : view;
  if (ranges) {
    lay.xaxis = Object.assign({}, lay.xaxis, {range: ranges["xaxis.range"].slice(), autorange: false});
    lay.yaxis = Object.assign({}, lay.yaxis, {range: ranges["yaxis.range"].slice(), autorange: false});
  }
  const region = regionOf(f, windowMin, sized, lay.xaxis && lay.xaxis.range, lay.yaxis && lay.yaxis.range);
  const coarse = !!region && zoomedOut(now(), lay.xaxis.range, lay.yaxis.range) && nodesIn(f, region) > DRAW_MAX;
  const bx = boxes(B, f, S.expanded);
  const seen = {shown: host.shown(), paint: host.paint, size: now};
  foldTraces(B, S, f, bx, region, coarse, seen).forEach((t, q) => { Object.keys(t).forEach((key) => { setPath(data[q], key, t[key]); }); });
  S.region = region;
  S.viewArea = region ? Math.abs((lay.xaxis.range[1] - lay.xaxis.range[0]) * (lay.yaxis.range[1] - lay.yaxis.range[0])) : 0;
  // the layout's parts that change with the fold: the groups' boxes, the status line
  lay.shapes = bx.map((b) => ({type: "rect", xref: "x", yref: "y", x0: b[1], x1: b[2], y0: b[3], y1: b[4], layer: "below",
                               line: {color: tint(B, b[0], 0.55), width: 1, dash: "dot"}, fillcolor: tint(B, b[0], 0.06), name: "group " + b[0]}));
  const fl = gd._fullLayout, xr = lay.xaxis && lay.xaxis.range || fl && fl.xaxis.range, yr = lay.yaxis && lay.yaxis.range || fl && fl.yaxis.range;
  if (xr && yr && S.drawn) lay.shapes = lay.shapes.concat(mixShapes(B, f, S.drawn.gk, xr, yr, plotSize(gd, height, lay)));
  const note = statusLines(B, S, f).concat(windowLine(S, f)).map(ptext).join("<br>");
  lay.images = ((gd.layout || {}).images || []).filter((/** @type {{name?: string}} */ im) => im.name !== "dots").concat(S.image ? [S.image] : []);
  lay.height = height;
  lay.annotations = (lay.annotations || []).map((/** @type {object} */ a, /** @type {number} */ q) => q ? a : Object.assign({}, a, {text: note}));
  Plotly.react(gd, data, lay, host.config);
  S.draws++;
}

/**
 * Every change of the expanded set ends in the function this returns, refresh(view, reset): fold it, lay it out,
 * then `land` draws it at view(size) (or keeps the view: null; reset: the home view). A fold of WORKER_MIN units or
 * more is laid out in the worker (layout/worker.js) and drawn when its answer comes, in a task of its own; meanwhile
 * the figure drawn before stays (clicks on it still work, the fold is still it) and its status line says the layout
 * is running. A change made meanwhile supersedes the running layout: only the latest state is ever drawn.
 * @param {LodBase} B @param {LodState} S @param {PlotDiv} gd @param {ReturnType<typeof layoutRunner>} runner
 * @param {(view: View | null, reset: boolean) => void} land @param {() => void} before called first (a pan's redraw of the fold before is not needed now)
 */
function layoutInTurn(B, S, gd, runner, land, before) {
  let seq = 0;  // the latest refresh: an older one still waiting is never drawn
  /** @param {ViewOf | null} view @param {boolean} reset */
  return function refresh(view, reset) {
    const pl = B.foldPlan(S.expanded), mine = ++seq;
    before();
    /** @param {import("../layout/worker.js").LayoutResult} lay */
    const landed = (lay) => {
      if (mine !== seq) return;
      if (gd.isConnected === false) { runner.close(); return; }  // the output was re-rendered: this view is gone
      S.cur = B.foldFinish(pl, lay); S.laying = 0;
      if (gd.dataset) { delete gd.dataset.layout; gd.style.cursor = ""; }
      land(view ? view(plotSize(gd, 0)) : null, reset);
    };
    runner.cancel();
    if (pl.job.count < WORKER_MIN) {
      // no worker (node's tests): here and now; in a browser also here, but in a task of its own after this
      // one, so that the click's task and the draw's are each short
      if (!runner.usable()) { runner.stats.main++; landed(layOut(pl.job)); return; }
      S.laying = pl.job.count;
      setTimeout(() => { if (mine === seq) { runner.stats.main++; landed(layOut(pl.job)); } }, 0);
      return;
    }
    runner.run(pl.job, landed);
    if (!runner.busy()) return;
    S.laying = pl.job.count;
    if (gd.dataset) { gd.dataset.layout = "running"; gd.style.cursor = "progress"; }  // tests wait for it to go
    // the status line says so until the draw replaces it: its text set in place (a plotly relayout of the
    // annotation would redraw the figure, ~40 ms)
    const note = gd.querySelector ? gd.querySelector(".annotation[data-index='0'] .annotation-text") : null;
    if (note) note.textContent = "laying out " + countText(pl.job.count) + " nodes\u2026 (what is drawn is the view before)";
  };
}

/** This plan's hold on its graph div: its pan / zoom handler, and the whole graph's points for the minimap
 * (panels/nav.js: the figure holds only the nodes near the view). A plan shown before in the same div is let go
 * (its layout in flight would otherwise draw it over this one). Returns `listen()`: the handlers on the div once
 * plotly has drawn in it (it gives a div its events then), called after every draw, once in effect.
 * @param {PlotDiv & {_dxLod?: {close(): void}, dxPoints?: () => [number, number, string | null][], removeListener?(event: string, cb: (ev: any) => void): void}} gd
 * @param {LodBase} B @param {LodState} S @param {() => void} close @param {(ev: Record<string, any>) => void} onRelayout
 * @param {ReturnType<typeof stubHover>} stubs a fan-out value's stubs lit under the pointer */
function holdDiv(gd, B, S, close, onRelayout, stubs) {
  const {DEV, TT, rowOf, G} = B;
  if (gd._dxLod) gd._dxLod.close();
  let listening = false, closed = false;
  const listen = () => {
    if (listening || closed || !gd.on) return;
    listening = true;
    gd.on("plotly_relayout", onRelayout); gd.on("plotly_hover", stubs.onHover); gd.on("plotly_unhover", stubs.onUnhover);
  };
  listen();
  gd._dxLod = {close: () => {
    close();
    closed = true;
    if (!gd.removeListener || !listening) return;
    gd.removeListener("plotly_relayout", onRelayout); gd.removeListener("plotly_hover", stubs.onHover); gd.removeListener("plotly_unhover", stubs.onUnhover);
  }};
  gd.dxPoints = () => {
    const f = currentFold(B, S);
    return f.x.map((x, p) => {
      const nd = f.nodes[p];
      return /** @type {[number, number, string | null]} */ ([x, -f.y[p], nd[0] === "v" ? DEV[TT.dev[rowOf[nd[1]]]].color : nd[0] === "g" && G.dev[nd[1]] >= 0 ? DEV[G.dev[nd[1]]].color : null]);
    });
  };
  return listen;
}

/**
 * @param {LodBase} B @param {LodState} S @param {import("./base.js").LodHost} host
 * @param {{groupDetails: (g: number) => string, memory: Pick<import("./memory.js").LodMemory, "memoryHighlight" | "drawMemory">}} uses
 */
export function lodGraph(B, S, host, uses) {
  const {L, T, n, DEV, ST, G, nG, TT, OPS, rowOf} = B;
  const folded = () => currentFold(B, S);
  const baseData = fresh(planFigures(L).graph.data);  // the skeleton lod/figures.js builds from the tables
  /** @type {boolean | null} */
  let opensWhole = null;  // the plan's first fold has no folded group (views/state/overview.py Overview.initial)
  const windowMin = () => {
    if (opensWhole === null) opensWhole = !folded().nodes.some((nd) => nd[0] === "g");
    return opensWhole ? WINDOW_MIN : OVERVIEW_WINDOW_MIN;
  };
  /** @param {View | ViewOf | null} view @param {boolean} [reset] */
  function draw(view, reset) {
    drawGraph(B, S, host, baseData, windowMin(), view, reset);
    listen();  // the first draw in a div gives it plotly's events
    if (host.drawn) host.drawn();  // what the app draws over a fresh figure: open delegates, a profile's op sizes
    highlight(host.state.values, host.state.instructions);
  }
  const runner = layoutRunner(), pans = followPans(B, S, host.graph, draw, windowMin), stubs = stubHover(B, S, host);
  const listen = holdDiv(host.graph, B, S, () => { runner.close(); pans.cancel(); }, (ev) => { pans.onRelayout(ev); }, stubs);
  const refresh = layoutInTurn(B, S, host.graph, runner, draw, pans.cancel);
  /** @param {number} g @returns {ViewOf} */
  const focus = (g) => (size) => focusView(B, folded(), S.expanded, g, size);
  // the group's details at once, not when its layout lands: what the caller adds under them (the diff's changes
  // in the group) stays; until then they read the fold as drawn (a group being opened still shows what crosses it)
  /** open group g, draw it at a readable scale, show its details @param {number} g */
  function expand(g) {
    openGroup(B, S, g);
    refresh(focus(g), false);
    host.html(uses.groupDetails(g)); host.expanded(S.expanded);
  }
  /** the expanded groups set from outside (the widget's `expanded` trait) @param {number[]} list */
  function setExpanded(list) {
    const want = list.filter((g) => g > 0 && g < nG);
    if (JSON.stringify(want) === JSON.stringify(S.expanded)) return;
    collapseGroup(B, S, null);
    want.forEach((g) => { openGroup(B, S, g); });
    refresh((size) => want.length ? focus(want[want.length - 1])(size) : null, !want.length);
  }
  /** close group g (and the groups inside it); none given: every group, back to the home view @param {number | null} [g] */
  function collapse(g) {
    collapseGroup(B, S, g === undefined ? null : g);
    if (g === undefined || g === null) { refresh(null, true); host.expanded(S.expanded); return; }
    refresh(focus(g), false);
    host.html(uses.groupDetails(g)); host.expanded(S.expanded);
  }
  /** open the groups holding these (the first four), the view centred on the first @param {number[]} values @param {number[]} instructions */
  function reveal(values, instructions) {
    const {anchors, opened} = revealGroups(B, S, values, instructions);
    if (!opened.length) return;
    host.expanded(S.expanded);
    // the opened group at a readable scale, centred on the first item asked for: in a group of hundreds of
    // nodes the item may sit far below the group's top
    refresh((size) => {
      const f = folded(), v = values[0];
      const view = focusView(B, f, S.expanded, opened[opened.length - 1], size);
      const q = values.length && v >= 0 && v < n && f.valueUnit[v] >= 0 ? f.valueUnit[v] : f.instUnit[anchors[0]];
      return q !== undefined && q >= 0 && f.nodes[q][0] !== "g" ? centredOn({x: view["xaxis.range"], y: view["yaxis.range"]}, [f.x[q], -f.y[q]]) : view;
    }, false);
  }
  /** the selection's rings and bold edges over the graph, and its outlines in the lanes @param {number[]} values @param {number[]} instructions */
  function highlight(values, instructions) {
    ringSelection(B, S, host, values, instructions);
    uses.memory.memoryHighlight(values, instructions);
  }
  /** a click on the graph: a group expands, a header collapses, a tensor or op is selected
   * @param {{curveNumber: number, customdata?: any, x: number, y: number}} pt */
  function clickGraph(pt) {
    // a group clicked opens (its body) or closes (its header), and is then what is selected (host.group)
    const chosen = (/** @type {number} */ g) => { if (host.group) host.group(g); };
    if (pt.curveNumber === T.groups) { expand(pt.customdata); chosen(pt.customdata); }
    else if (pt.curveNumber === T.crossings && typeof pt.customdata === "number" && pt.customdata >= 0) host.select({values: [pt.customdata]});  // a stub's dot: its value
    else if (pt.curveNumber === T.crossings) {  // over a group's body after all: that group
      const f = folded(), g = f.nodes.findIndex((nd, p) => nd[0] === "g" && Math.abs(f.x[p] - pt.x) < 0.3 && Math.abs(-f.y[p] - pt.y) < 0.3);
      if (g >= 0) { expand(f.nodes[g][1]); chosen(f.nodes[g][1]); }
    }
    else if (pt.curveNumber === T.headers) { collapse(pt.customdata); chosen(pt.customdata); }
    else if (pt.curveNumber === T.tensors) host.select({values: [pt.customdata]});
    else if (pt.curveNumber === T.ops) host.select({instructions: [pt.customdata]});
  }
  /** the device filter changed (host.shown()): markers (those drawn: near the view) and lanes dimmed to match */
  function devices() {
    const shown = host.shown(), O = ST.opacity.tensor, f = folded(), drawn = S.drawn || {tk: [], gk: []};
    const tv = drawn.tk.map((p) => f.nodes[p][1]), gv = drawn.gk.map((p) => f.nodes[p][1]);
    Plotly.restyle(host.graph, {"marker.opacity": [tv.map((v) => O[shown[DEV[TT.dev[rowOf[v]]].name] === false ? 1 : 0]),
                                                   gv.map((g) => O[G.dev[g] >= 0 && shown[DEV[G.dev[g]].name] === false ? 1 : 0])]},
                   [T.tensors, T.groups]);
    uses.memory.drawMemory();
  }
  /** every tensor's and op's label, for search and the diff @returns {{v: Record<number, string>, i: string[]}} */
  function labels() {
    const v = /** @type {Record<number, string>} */ ({});
    TT.index.forEach((idx, r) => { v[idx] = TT.label[r]; });
    return {v: v, i: OPS.op.map((k2) => OPS.opTable[k2][0])};
  }
  /** where layouts ran, whether one is running, how many draws: for tests and the bench */
  const layoutState = () => ({worker: runner.stats.worker, main: runner.stats.main, superseded: runner.stats.superseded,
    failed: runner.stats.failed, running: S.laying, draws: S.draws, drawnNodes: S.drawn ? S.drawn.count : 0, windowed: !!S.region,
    dots: S.coarse || 0});
  const status = () => statusLines(B, S, folded()).join(" \u2014 ");  // the status line, as one line
  return {layoutState, setExpanded, expand, collapse, reveal, highlight, clickGraph, devices, labels, draw, status};
}
