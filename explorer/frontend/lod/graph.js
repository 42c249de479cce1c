import {ptext, short} from "../util/common.js";
import {bytesText, countText} from "../util/format.js";
import {READABLE, readableView, centredOn, dotImage} from "../panels/nav.js";
import {layOut, layoutRunner} from "../layout/worker.js";
import {currentFold} from "./base.js";
import {fresh, planFigures, EDGE_KINDS} from "./figures.js";

// folds of this many units or more are laid out in the worker; smaller ones here (in a task of their own), where
// they take a few ms, less than the worker's round trip (transformer3k: 357 units, ~30 ms of layout)
export const WORKER_MIN = 200;
// folds of more nodes than this draw only the nodes in and near the view (plotly's SVG costs ~0.1-0.3 ms a marker
// with its hover, symbol and colour, and a redraw of thousands blocks the page for hundreds of ms); pan and zoom
// draw the rest. A plan that opens whole (every group open: small enough to draw in one go) is drawn whole up to
// WINDOW_MIN nodes, one that opens as an overview of its groups past OVERVIEW_WINDOW_MIN
export const WINDOW_MIN = 1000, OVERVIEW_WINDOW_MIN = 300;
const MARGIN = 0.25;  // the region drawn around the view: this share of the view's size on every side
// a region with more tensors and ops than this, zoomed out below half the readable scale, paints them as dots
export const DRAW_MAX = 500;
const SETTLE_MS = 80;  // a zoom or pan redraws once the relayouts pause this long

// A plan drawn at its level of detail (lod/plan.js), part 2: the graph. Expanding and collapsing groups in place (the
// fold: lod/base.js; its layout in the worker: layout/worker.js), the traces of the nodes in and near the view,
// boxes, headers, focus ranges and selection rings. It reads and changes the view state S (lod/base.js LodState)
// and calls what it needs of the other parts through `uses`: a group's details when it is opened, the memory map's
// outlines with the graph's selection.
/** @typedef {import("./base.js").LodBase} LodBase */
/** @typedef {import("./base.js").LodState} LodState */
/** @typedef {import("./base.js").FoldNode} FoldNode */
/** @typedef {import("./base.js").Folded} Folded */
/** @typedef {ReturnType<typeof lodGraph>} LodGraph */
/** A view: the graph's axis ranges, as plotly's relayout names them. @typedef {{"xaxis.range": number[], "yaxis.range": number[]}} View */
/** A group's box as drawn: [group, x0, x1, y0, y1] (plot units, y up). @typedef {[number, number, number, number, number]} Box */
/** What a draw draws: [x0, x1, y0, y1] in plot units, y up. @typedef {[number, number, number, number]} Region */

/**
 * @param {LodBase} B @param {LodState} S @param {import("./base.js").LodHost} host
 * @param {{groupDetails: (g: number) => string, memory: Pick<import("./memory.js").LodMemory, "memoryHighlight" | "drawMemory">}} uses
 */
export function lodGraph(B, S, host, uses) {
  const {L, T, m, n, DEV, ST, G, nG, TT, OPS, rowOf, home, errors, OPSYM, tensorHover, opHover, path, visibleNodes,
    depthOf, groupSymbol, holdsError} = B;
  const folded = () => currentFold(B, S);
  const groupDetails = uses.groupDetails;
  // -- expand / collapse (explorer.views.overview.Overview) ------------------------------------
  /** group g lies inside group outer (or is it) @param {number} outer @param {number} g */
  function inside(outer, g) { return G.start[outer] <= G.start[g] && G.stop[g] <= G.stop[outer] && depthOf(g) >= depthOf(outer); }
  /** @param {number} g */
  function drop(g) { S.expanded = S.expanded.filter((e) => !inside(g, e)); }
  /** Overview.expand: the state only; groups opened before are closed to stay within limits.visible @param {number} g */
  function open(g) {
    const d = depthOf(g), p = path(G.start[g]).filter((q) => depthOf(q) <= d), closed = /** @type {string[]} */ ([]);
    S.note = "";
    p.forEach((q) => { if (S.expanded.indexOf(q) < 0) S.expanded.push(q); });
    while (visibleNodes(new Set(S.expanded)) > L.limits.visible) {
      const victim = S.expanded.find((e) => p.indexOf(e) < 0);
      if (victim === undefined) break;
      drop(victim); closed.push(G.label[victim]);
    }
    if (closed.length) S.note = "collapsed " + closed.join(", ") + " to draw at most " + countText(L.limits.visible) + " nodes";
  }
  // Every change of the expanded set ends here: fold it, lay it out, draw it at view() (ranges, or null to keep
  // the view; reset: the home view). A fold of WORKER_MIN units or more is laid out in the worker
  // (layout/worker.js) and drawn when its answer comes, in a task of its own; meanwhile the figure drawn before
  // stays (clicks on it still work, folded() is still it) and its status line says the layout is running. A
  // change made meanwhile supersedes the running layout: only the latest state is ever drawn.
  let seq = 0;  // the latest refresh: an older one still waiting is never drawn
  /** @param {(() => View | null) | null} view @param {boolean} reset */
  function refresh(view, reset) {
    const pl = B.foldPlan(S.expanded), gd = host.graph, mine = ++seq;
    if (timer !== null) { clearTimeout(timer); timer = null; }  // a pan's redraw of the fold before: not needed now
    /** @param {import("../layout/worker.js").LayoutResult} lay */
    const land = (lay) => {
      if (mine !== seq) return;
      if (gd.isConnected === false) { runner.close(); return; }  // the output was re-rendered: this view is gone
      S.cur = B.foldFinish(pl, lay); S.laying = 0;
      if (gd.dataset) { delete gd.dataset.layout; gd.style.cursor = ""; }
      draw(view ? view() : null, reset);
    };
    runner.cancel();
    if (pl.job.count < WORKER_MIN) {
      // no worker (node's tests): here and now; in a browser also here, but in a task of its own after this
      // one, so that the click's task and the draw's are each short
      if (!runner.usable()) { runner.stats.main++; land(layOut(pl.job)); return; }
      S.laying = pl.job.count;
      setTimeout(() => { if (mine === seq) { runner.stats.main++; land(layOut(pl.job)); } }, 0);
      return;
    }
    runner.run(pl.job, land);
    if (!runner.busy()) return;
    S.laying = pl.job.count;
    if (gd.dataset) { gd.dataset.layout = "running"; gd.style.cursor = "progress"; }  // tests wait for it to go
    // the status line says so until the draw replaces it: its text set in place (a plotly relayout of the
    // annotation would redraw the figure, ~40 ms)
    const note = gd.querySelector ? gd.querySelector(".annotation[data-index='0'] .annotation-text") : null;
    if (note) note.textContent = "laying out " + countText(pl.job.count) + " nodes\u2026 (what is drawn is the view before)";
  }
  // the group's details at once, not when its layout lands: what the caller adds under them (the diff's changes
  // in the group) stays; until then they read the fold as drawn (a group being opened still shows what crosses it)
  /** open group g, draw it at a readable scale, show its details @param {number} g */
  function expand(g) {
    open(g);
    refresh(() => focus(g), false);
    host.html(groupDetails(g)); host.expanded(S.expanded);
  }
  /** the expanded groups set from outside (the widget's `expanded` trait) @param {number[]} list */
  function setExpanded(list) {
    const want = list.filter((g) => g > 0 && g < nG);
    if (JSON.stringify(want) === JSON.stringify(S.expanded)) return;
    S.expanded = []; S.note = "";
    want.forEach((g) => { open(g); });
    refresh(() => want.length ? focus(want[want.length - 1]) : null, !want.length);
  }
  /** close group g (and the groups inside it); none given: every group, back to the home view @param {number | null} [g] */
  function collapse(g) {
    if (g === undefined || g === null) { S.expanded = []; S.note = ""; refresh(null, true); host.expanded(S.expanded); return; }
    const shut = g;
    drop(shut); S.note = "";
    refresh(() => focus(shut), false);
    host.html(groupDetails(shut)); host.expanded(S.expanded);
  }
  /** open the groups holding these (the first four), the view centred on the first @param {number[]} values @param {number[]} instructions */
  function reveal(values, instructions) {
    const anchors = values.filter((v) => v >= 0 && v < n && home[v] >= 0).map((v) => home[v])
      .concat(instructions.filter((i) => i >= 0 && i < m));
    const opened = /** @type {number[]} */ ([]);
    anchors.slice(0, 4).forEach((i) => {  // i is folded when a group on its path is not expanded
      const p = path(i);
      if (p.some((q) => S.expanded.indexOf(q) < 0)) { open(p[p.length - 1]); opened.push(p[p.length - 1]); }
    });
    if (!opened.length) return;
    host.expanded(S.expanded);
    // the opened group at a readable scale, centred on the first item asked for: in a group of hundreds of
    // nodes the item may sit far below the group's top
    refresh(() => {
      const f = folded(), i0 = anchors[0];
      let view = focus(opened[opened.length - 1]);
      const q = values.length && values[0] >= 0 && values[0] < n && f.valueUnit[values[0]] >= 0 ? f.valueUnit[values[0]] : f.instUnit[i0];
      if (q !== undefined && q >= 0 && f.nodes[q][0] !== "g") view = centredOn({x: view["xaxis.range"], y: view["yaxis.range"]}, [f.x[q], -f.y[q]]);
      return view;
    }, false);
  }

  // -- drawing ----------------------------------------------------------------------------------
  /** the edges `sel` as polylines (bends through the layers they pass), null between @param {Folded} f @param {number[]} sel */
  function segments(f, sel) {
    const xs = /** @type {(number | null)[]} */ ([]), ys = /** @type {(number | null)[]} */ ([]);
    sel.forEach((q) => {
      const p = f.paths[q];
      for (let k = 0; k < p.length; k += 2) { xs.push(p[k]); ys.push(-p[k + 1]); }
      xs.push(null); ys.push(null);
    });
    return [xs, ys];
  }
  /** the point a fraction t along a polyline's segments: [x, y] in layout units @param {number[]} p @param {number} t */
  function along(p, t) {
    const segs = p.length / 2 - 1, at = t * segs, k = Math.min(Math.floor(at), segs - 1), u = at - k;
    return [p[2 * k] + u * (p[2 * k + 2] - p[2 * k]), p[2 * k + 1] + u * (p[2 * k + 3] - p[2 * k + 1])];
  }
  /** a node's marker symbol @param {FoldNode} nd */
  function symbolOf(nd) {
    if (nd[0] === "v") return "circle";
    if (nd[0] === "i") return OPSYM[OPS.kind[nd[1]]];
    return groupSymbol(nd[1]);
  }
  /** a group label's tail: device split (when several), tensors' bytes, copies @param {number} g */
  function mix(g) {
    const Sm = B.groupSummary(g), parts = [];
    if (Sm.ops.length > 1) parts.push(Sm.ops.map((o) => "<span style='color:" + DEV[o[0]].color + "'>\u25a0</span>" + Math.round(100 * o[2]) + "%").join(" "));
    if (Sm.total) parts.push(ptext(bytesText(Sm.total)));
    let nc = 0;
    Object.values(Sm.copies).forEach((c) => { nc += c[0]; });
    if (nc) parts.push(countText(nc) + " cop" + (nc === 1 ? "y" : "ies"));
    return parts.length ? "  " + parts.join(" \u00b7 ") : "";
  }
  /** @param {number} g */
  function groupHover(g) {
    const kinds = /** @type {string[]} */ ([]), Sm = B.groupSummary(g), ops = G.stop[g] - G.start[g];
    G.kinds[g].forEach((c, k2) => { if (c) kinds.push(countText(c) + " " + L.names.opKinds[k2]); });
    const runs = Sm.ops.map((o) => ptext(DEV[o[0]].name) + " " + countText(o[1]) + " (" + Math.round(100 * o[2]) + "%)");
    const bytes = Sm.bytes.map((e) => ptext(DEV[e[0]].name) + " " + ptext(bytesText(e[1])));
    const cps = B.copyText(Sm.copies, false);
    return "<b>" + ptext(G.label[g]) + "</b><br>#" + G.start[g] + " \u2013 #" + (G.stop[g] - 1) + " \u00b7 " + countText(ops) +
      " ops (" + kinds.join(", ") + ")" + (runs.length ? "<br>runs on " + runs.join(" \u00b7 ") : "") +
      "<br>" + countText(G.nodes[g] - ops) + " tensors" + (Sm.total ? ", " + ptext(bytesText(Sm.total)) + (bytes.length > 1 ? " (" + bytes.join(" \u00b7 ") + ")" : "") : "") +
      (cps ? "<br>copies " + cps : "") + "<br>click to expand";
  }
  /** each expanded group's box as drawn (around its members, its inner groups' boxes and its header), outer first
   * @returns {Box[]} */
  function boxes() {
    const f = folded(), out = /** @type {Box[]} */ ([]);
    const anchor = f.nodes.map((nd) => nd[0] === "i" ? nd[1] : nd[0] === "v" ? home[nd[1]] : G.start[nd[1]]);
    /** @type {Map<number, number[]>} */
    const done = new Map();
    S.expanded.slice().sort((a, b) => depthOf(b) - depthOf(a) || a - b).forEach((g) => {
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      anchor.forEach((a, p) => {
        if (a >= G.start[g] && a < G.stop[g]) {
          x0 = Math.min(x0, f.x[p]); x1 = Math.max(x1, f.x[p]); y0 = Math.min(y0, -f.y[p]); y1 = Math.max(y1, -f.y[p]);
        }
      });
      if (x0 > x1) return;
      x0 -= 0.45; x1 += 0.45; y0 -= 0.45; y1 += 1.45;
      done.forEach((b, e) => {  // an S.expanded group inside: around its box and header
        if (e !== g && G.start[g] <= G.start[e] && G.stop[e] <= G.stop[g]) {
          x0 = Math.min(x0, b[0] - 0.15); x1 = Math.max(x1, b[1] + 0.15); y0 = Math.min(y0, b[2] - 0.15); y1 = Math.max(y1, b[3] + 2);
        }
      });
      done.set(g, [x0, x1, y0, y1]);
    });
    Array.from(done.keys()).sort((a, b) => depthOf(a) - depthOf(b) || a - b).forEach((g) => {
      const b = /** @type {number[]} */ (done.get(g));
      out.push([g, b[0], b[1], b[2], b[3]]);
    });
    return out;
  }
  /** @param {number} g @param {number} alpha */
  function tint(g, alpha) {
    const c = G.dev[g] >= 0 ? DEV[G.dev[g]].color : "#8C959F";
    return "rgba(" + parseInt(c.slice(1, 3), 16) + "," + parseInt(c.slice(3, 5), 16) + "," + parseInt(c.slice(5, 7), 16) + "," + alpha + ")";
  }
  /** Overview.status_lines @returns {string[]} */
  function statusLines() {
    const f = folded(), groups = f.nodes.filter((nd) => nd[0] === "g").length, raw = f.nodes.length - groups;
    let tensors = 0;
    for (let r = 0; r < TT.home.length; r++) if (TT.home[r] >= 0) tensors++;
    const unused = TT.home.length - tensors;
    const unusedNote = countText(unused) + (unused === 1 ? " tensor that no instruction names is" : " tensors that no instruction names are") +
      " not drawn";
    if (!groups) {  // everything drawn as itself: say only what can be folded, and what is not drawn
      return [nG > 1 ? "every group open (" + countText(S.expanded.length) + ") \u00b7 \u25be collapses one" : "",
              unused ? unusedNote : ""].filter(Boolean)
        .concat(S.note ? [S.note] : []);
    }
    return ["overview of " + countText(m) + " instructions and " + countText(tensors) + " tensors: " + countText(groups) + " groups" +
              (raw ? " and " + countText(raw) + " single nodes" : "") + " drawn" +
              (unused ? " (" + unusedNote + ")" : ""),
            "click a group to expand it, \u25be to collapse" + (S.note ? " \u00b7 " + S.note : "")];
  }
  /** the status line, as one line */
  function status() { return statusLines().join(" \u2014 "); }
  /** what a windowed draw leaves out, said in the status line @returns {string[]} */
  function windowLine() {
    if (!S.region || !S.drawn) return [];
    if (S.coarse) return ["zoomed out: " + countText(S.coarse) + " tensors and ops near the view painted as dots, without hover, labels or clicks \u2014 zoom in to read them"];
    return ["showing the " + countText(S.drawn.count) + " of " + countText(folded().nodes.length) + " nodes in and near the view: pan or zoom draws the others"];
  }
  // region: [x0, x1, y0, y1] (plot units, y up) — only the nodes inside it are drawn, and the edges passing
  // through it; null: everything
  // coarse: the region holds too many tensors and ops to draw as markers: they and the edges are painted into one
  // image instead (panels/nav.js dotImage, S.image), without hover, labels or clicks; groups stay markers
  /** @param {Region | null} region @param {boolean} coarse @returns {Record<string, any>[]} the traces' new columns, by trace */
  function traces(region, coarse) {
    const f = folded(), out = /** @type {Record<string, any>[]} */ ([]), kinds = EDGE_KINDS;
    const inside = region ? (/** @type {number} */ p) => { const x = f.x[p], y = -f.y[p]; return x >= region[0] && x <= region[1] && y >= region[2] && y <= region[3]; }
      : () => true;
    const through = region ? (/** @type {number} */ q) => {  // the edge's polyline's box meets the region
      const pts = f.paths[q];
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (let k = 0; k < pts.length; k += 2) {
        x0 = Math.min(x0, pts[k]); x1 = Math.max(x1, pts[k]); y0 = Math.min(y0, -pts[k + 1]); y1 = Math.max(y1, -pts[k + 1]);
      }
      return x1 >= region[0] && x0 <= region[1] && y1 >= region[2] && y0 <= region[3];
    } : () => true;
    const drawnEdge = f.edges.map((_, q) => through(q));
    // every node's marker is built (cheap columns), its hover text and label only when it is drawn; the app's
    // paint (an overlay) sees them all, so its colour scale spans the fold, not the view; then the traces keep
    // the drawn ones (a zoomed-out region: none of the tensors and ops, painted as dots instead)
    let tk = /** @type {number[]} */ ([]), ok = /** @type {number[]} */ ([]), gk = /** @type {number[]} */ ([]);
    const drawnNode = f.nodes.map((_, p) => inside(p));
    f.nodes.forEach((nd, p) => { (nd[0] === "v" ? tk : nd[0] === "i" ? ok : gk).push(p); });
    S.coarse = coarse && region ? tk.filter((p) => drawnNode[p]).length + ok.filter((p) => drawnNode[p]).length : 0;
    const label = (/** @type {number} */ p) => drawnNode[p] && !S.coarse;
    kinds.forEach((kd) => {
      const sel = /** @type {number[]} */ ([]);
      f.kinds.forEach((k2, q) => { if (k2 === kd && drawnEdge[q] && !S.coarse) sel.push(q); });
      const s = segments(f, sel);
      out.push({x: s[0], y: s[1]});
    });
    const shown = host.shown(), O = ST.opacity.tensor;
    const tv = tk.map((p) => f.nodes[p][1]);
    out.push({x: tk.map((p) => f.x[p]), y: tk.map((p) => -f.y[p]), customdata: tv,
      hovertext: tv.map((v, k) => label(tk[k]) ? tensorHover(v) : ""), mode: "markers",  // labels: panels/labels.js places those that fit
      text: tv.map((v, k) => label(tk[k]) ? ptext(short(TT.label[rowOf[v]], 22)) : ""),
      "marker.color": tv.map((v) => DEV[TT.dev[rowOf[v]]].color),
      "marker.symbol": tv.map((v) => DEV[TT.dev[rowOf[v]]].symbol),
      "marker.opacity": tv.map((v) => O[shown[DEV[TT.dev[rowOf[v]]].name] === false ? 1 : 0]),
      "marker.line.color": tv.map((v) => errors.has(v) ? ST.error : "white"),
      "marker.line.width": tv.map((v) => errors.has(v) ? 3 : 1)});
    const ops = ok.map((p) => f.nodes[p][1]);
    out.push({x: ok.map((p) => f.x[p]), y: ok.map((p) => -f.y[p]), customdata: ops,
      hovertext: ops.map((i, k) => label(ok[k]) ? opHover(i) : ""), mode: "markers",
      text: ops.map((i, k) => label(ok[k]) ? ptext(short(OPS.opTable[OPS.op[i]][1], 24)) : ""),
      "marker.symbol": ops.map((i) => OPSYM[OPS.kind[i]]),
      "marker.size": ops.map((i) => B.opStyle(OPS.kind[i]).size),
      "marker.line.color": ops.map((i) => OPS.dev[i] >= 0 ? DEV[OPS.dev[i]].color : "#1F2328")});
    out.push({x: [], y: []}, {x: [], y: [], "marker.symbol": []});  // selection: drawn by highlight()
    const gids = gk.map((p) => f.nodes[p][1]);
    out.push({x: gk.map((p) => f.x[p]), y: gk.map((p) => -f.y[p]), customdata: gids,
      hovertext: gids.map((g, k) => drawnNode[gk[k]] ? groupHover(g) : ""), mode: "markers",
      text: gids.map((g, k) => drawnNode[gk[k]] ? ptext(short(G.label[g], 40)) + mix(g) : ""),
      "marker.symbol": gids.map(groupSymbol),
      "marker.size": gids.map(groupSize),
      "marker.color": gids.map((g) => G.dev[g] >= 0 ? DEV[G.dev[g]].color : "#D0D7DE"),
      "marker.opacity": gids.map((g) => O[G.dev[g] >= 0 && shown[DEV[G.dev[g]].name] === false ? 1 : 0]),
      "marker.line.color": gids.map((g) => holdsError(g) ? ST.error : "#1F2328"),
      "marker.line.width": gids.map((g) => holdsError(g) ? 3 : 1.2)});
    const bx = boxes();
    out.push({x: bx.map((b) => b[1]), y: bx.map((b) => b[4] - 0.45),
      customdata: bx.map((b) => b[0]),
      hovertext: bx.map((b) => "<b>" + ptext(G.label[b[0]]) + "</b><br>click to collapse"),
      mode: "markers", text: bx.map((b) => ptext(short(G.label[b[0]], 40)))});
    const isGroup = f.nodes.map((nd) => nd[0] === "g"), cx = /** @type {number[]} */ ([]), cy = /** @type {number[]} */ ([]);
    const ch = /** @type {string[]} */ ([]);
    const taken = new Set();  // a crossing's dot never sits on a node: it would take the click meant for a group
    f.nodes.forEach((_, p) => { taken.add(Math.round(f.x[p] * 2) + ":" + Math.round(f.y[p] * 2)); });
    f.edges.forEach((e, q) => {
      if ((!isGroup[e[0]] && !isGroup[e[1]]) || !drawnEdge[q]) return;
      const spot = [0.5, 0.3, 0.7].map((t) => along(f.paths[q], t))
        .find((s) => !taken.has(Math.round(s[0] * 2) + ":" + Math.round(s[1] * 2)));
      if (!spot) return;  // what crosses is in both ends' hover and details
      taken.add(Math.round(spot[0] * 2) + ":" + Math.round(spot[1] * 2));
      cx.push(spot[0]); cy.push(-spot[1]);
      const t = f.tensors[q], d = f.devs[q];
      ch.push(countText(t) + " tensor" + (t !== 1 ? "s" : "") + " \u00b7 " + ptext(bytesText(f.bytes[q])) +
        (d >= 0 ? " on " + ptext(DEV[d].name) : " on several devices") +
        (f.kinds[q] !== "same" ? " \u00b7 " + ST.edge[f.kinds[q]].label : ""));
    });
    out.push({x: cx, y: cy, hovertext: ch});
    if (host.paint) host.paint(out);  // the app recolours the nodes (overlay/view.js: an overlay picked)
    S.image = null;
    if (S.coarse && region) {  // the region's tensors and ops as dots, in the colours their markers would have
      const sz = plotSize(), vw = (region[1] - region[0]) / (1 + 2 * MARGIN), vh = (region[3] - region[2]) / (1 + 2 * MARGIN);
      const w = Math.min(2400, sz.w * (1 + 2 * MARGIN)), h = Math.min(2400, sz.h * (1 + 2 * MARGIN));
      const r = Math.max(1, Math.min(4, 0.2 * Math.min(sz.w / vw, sz.h / vh)));
      const tc = out[T.tensors]["marker.color"], oc = out[T.ops]["marker.color"], ol = out[T.ops]["marker.line.color"];
      const dots = /** @type {[number, number, string, number][]} */ ([]);
      tk.forEach((p, k) => { if (drawnNode[p]) dots.push([f.x[p], -f.y[p], tc[k], r]); });
      ok.forEach((p, k) => { if (drawnNode[p]) dots.push([f.x[p], -f.y[p], Array.isArray(oc) ? oc[k] : ol[k], r]); });
      const lines = /** @type {[number[], string][]} */ ([]);
      f.edges.forEach((_, q) => {
        if (drawnEdge[q]) lines.push([f.paths[q].map((c, k) => k % 2 ? -c : c), ST.edge[f.kinds[q]].color]);
      });
      S.image = dotImage(region, w, h, dots, lines);
    }
    if (region) {  // the traces keep the markers drawn
      /** the columns of trace t for the nodes `pos` (fold positions) that pass `yes`; returns those positions
       * @param {Record<string, any>} t @param {number[]} pos @param {(p: number) => boolean} yes */
      const keep = (t, pos, yes) => {
        const idx = /** @type {number[]} */ ([]), n0 = pos.length;
        pos.forEach((p, k) => { if (yes(p)) idx.push(k); });
        Object.keys(t).forEach((key) => { if (Array.isArray(t[key]) && t[key].length === n0) t[key] = idx.map((k) => t[key][k]); });
        return idx.map((k) => pos[k]);
      };
      const asMarker = (/** @type {number} */ p) => drawnNode[p] && !S.coarse;
      tk = keep(out[T.tensors], tk, asMarker); ok = keep(out[T.ops], ok, asMarker);
      gk = keep(out[T.groups], gk, (p) => drawnNode[p]);
    }
    S.drawn = {tk: tk, ok: ok, gk: gk, count: tk.length + ok.length + gk.length};
    return out;
  }
  /** the layout's parts that change with the fold: the groups' boxes, the status line */
  function layoutNow() {
    return {shapes: boxes().map((b) => {
      return {type: "rect", xref: "x", yref: "y", x0: b[1], x1: b[2], y0: b[3], y1: b[4], layer: "below",
              line: {color: tint(b[0], 0.55), width: 1, dash: "dot"}, fillcolor: tint(b[0], 0.06), name: "group " + b[0]};
    }), "annotations[0].text": statusLines().concat(windowLine()).map(ptext).join("<br>")};
  }
  let nextHeight = 0;  // the figure's height the draw under way gives it (0: none under way)
  /** the plot area in px (a default under node, where nothing is drawn), at the height drawn next @returns {{w: number, h: number}} */
  function plotSize() {
    const fl = host.graph._fullLayout, sz = fl && fl._size;
    if (!sz) return {w: 900, h: 560};
    return {w: sz.w, h: nextHeight && fl.height ? sz.h + nextHeight - fl.height : sz.h};
  }
  /** the nodes inside a box, [x, y] (y up) @param {number} x0 @param {number} x1 @param {number} y0 @param {number} y1 */
  function nodePoints(x0, x1, y0, y1) {
    const f = folded(), out = /** @type {number[][]} */ ([]);
    f.x.forEach((x, p) => { const y = -f.y[p]; if (x >= x0 && x <= x1 && y >= y0 && y <= y1) out.push([x, y]); });
    return out;
  }
  /** an expanded group's box (its top first) at a readable scale (panels/nav.js); folded: around its node @param {number} g @returns {View} */
  function focus(g) {
    const bx = boxes().find((b) => b[0] === g);
    if (!bx) {
      const f = folded(), p = f.index.get("g" + g);
      if (p === undefined) return homeView();
      const v0 = readableView({x0: f.x[p] - 2, x1: f.x[p] + 2, y0: -f.y[p] - 2, y1: -f.y[p] + 2}, plotSize(), {padRight: 3});
      return {"xaxis.range": v0.x, "yaxis.range": v0.y};
    }
    const v = readableView({x0: bx[1], x1: bx[2], y0: bx[3], y1: bx[4]}, plotSize(),
                         {pad: 0.3, padRight: 3, minY: rowPx(), nodes: nodePoints(bx[1], bx[2], bx[3], bx[4])});
    return {"xaxis.range": v.x, "yaxis.range": v.y};
  }
  /** a folded group's marker size: bigger with its instructions @param {number} g */
  function groupSize(g) { return 14 + 3 * Math.log10(Math.max(G.stop[g] - G.start[g], 1)); }
  /** px a layer needs: the biggest group marker drawn, and a gap, so neighbours never touch */
  function rowPx() {
    let most = 0;
    folded().nodes.forEach((nd) => { if (nd[0] === "g") most = Math.max(most, groupSize(nd[1])); });
    return Math.max(READABLE.y, Math.ceil(most * 1.25) + 4);
  }
  /** a fold's x extent and its layers (layout units; lo > hi: no nodes) @param {Folded} f */
  function spread(f) {
    let lo = Infinity, hi = -Infinity, depth = 0;
    f.x.forEach((x) => { lo = Math.min(lo, x); hi = Math.max(hi, x); });
    f.y.forEach((y) => { depth = Math.max(depth, y + 1); });
    return {lo, hi, depth};
  }
  /** the view a big plan opens at: its top, at a readable scale, room for group labels @returns {View} */
  function homeView() {
    const f = folded();
    let {lo, hi, depth} = spread(f);
    if (lo > hi) { lo = 0; hi = 0; }
    const v = readableView({x0: lo, x1: hi, y0: -(Math.max(depth, 1) - 1), y1: 0}, plotSize(),
                         // room on the right for a folded group's label (long: name, device split, bytes); a graph of
                         // single nodes needs only its own labels' room, so it opens at a larger, more legible scale
                         {pad: 0.5, padRight: f.nodes.some((nd) => nd[0] === "g") ? 3.5 : 1,
                          minY: rowPx(), nodes: f.x.map((x, p) => [x, -f.y[p]])});
    return {"xaxis.range": v.x, "yaxis.range": v.y};
  }
  const baseData = fresh(planFigures(L).graph.data);  // the skeleton lod/figures.js builds from the tables
  // this plan's layouts, and its pan / zoom handler; a plan shown before in the same div is let go (its layout in
  // flight would otherwise draw it over this one)
  const runner = layoutRunner();
  (function wire(/** @type {PlotDiv & {_dxLod?: {close(): void}, dxPoints?: () => [number, number, string | null][], removeListener?(event: string, cb: (ev: any) => void): void}} */ gd) {
    if (gd._dxLod) gd._dxLod.close();
    const onRelayout = (/** @type {Record<string, any>} */ ev) => { onGraphRelayout(ev); };
    if (gd.on) gd.on("plotly_relayout", onRelayout);
    gd._dxLod = {close: () => {
      runner.close();
      if (timer !== null) clearTimeout(timer);
      if (gd.removeListener) gd.removeListener("plotly_relayout", onRelayout);
    }};
    // the whole graph's points for the minimap (panels/nav.js): the figure holds only the nodes near the view
    gd.dxPoints = () => {
      const f = folded();
      return f.x.map((x, p) => {
        const nd = f.nodes[p];
        return /** @type {[number, number, string | null]} */ ([x, -f.y[p], nd[0] === "v" ? DEV[TT.dev[rowOf[nd[1]]]].color : nd[0] === "g" && G.dev[nd[1]] >= 0 ? DEV[G.dev[nd[1]]].color : null]);
      });
    };
  })(host.graph);
  /** obj["a.b.c"] = value as obj.a.b.c @param {Record<string, any>} obj @param {string} dotted @param {unknown} value */
  function setPath(obj, dotted, value) {
    const keys = dotted.split(".");
    let o = obj;
    for (let q = 0; q < keys.length - 1; q++) { if (!o[keys[q]] || typeof o[keys[q]] !== "object") o[keys[q]] = {}; o = o[keys[q]]; }
    o[keys[keys.length - 1]] = value;
  }
  // The region drawn around a view: the view and half its size on every side, so a pan of up to half a view
  // shows drawn nodes while it drags; a fold of at most windowMin() nodes is drawn whole (null)
  /** how many tensors and ops lie inside a region @param {Region} region */
  function small(region) {
    const f = folded();
    let k = 0;
    for (let p = 0; p < f.nodes.length; p++) {
      const x = f.x[p], y = -f.y[p];
      if (f.nodes[p][0] !== "g" && x >= region[0] && x <= region[1] && y >= region[2] && y <= region[3]) k++;
    }
    return k;
  }
  /** below half the readable scale (panels/nav.js READABLE): markers too small to read anyway @param {number[]} xr @param {number[]} yr */
  function zoomedOut(xr, yr) {
    const sz = plotSize();
    return sz.w / Math.abs(xr[1] - xr[0]) < READABLE.x / 2 || sz.h / Math.abs(yr[1] - yr[0]) < READABLE.y / 2;
  }
  /** @type {boolean | null} */
  let opensWhole = null;  // the plan's first fold has no folded group (views/overview.py Overview.initial)
  function windowMin() {
    if (opensWhole === null) opensWhole = !folded().nodes.some((nd) => nd[0] === "g");
    return opensWhole ? WINDOW_MIN : OVERVIEW_WINDOW_MIN;
  }
  /** @param {number[] | undefined} xr @param {number[] | undefined} yr @returns {Region | null} */
  function regionOf(xr, yr) {
    // a stand-in plotly (node's tests) lays out no plot: there every node is drawn, unless the test gives a size
    if (folded().nodes.length <= windowMin() || !xr || !yr || !host.graph._fullLayout) return null;
    const w = Math.abs(xr[1] - xr[0]) * MARGIN, h = Math.abs(yr[1] - yr[0]) * MARGIN;
    return [Math.min(xr[0], xr[1]) - w, Math.max(xr[0], xr[1]) + w, Math.min(yr[0], yr[1]) - h, Math.max(yr[0], yr[1]) + h];
  }
  // One Plotly.react with the view's ranges in it (one redraw, not a react and then a relayout): every trace
  // rebuilt for the nodes in and near that view (regionOf). view: {"xaxis.range", "yaxis.range"}, a function
  // giving them once the figure's new height is known, or null (the view stays); reset: the home view.
  /** @param {View | (() => View | null) | null} view @param {boolean} [reset] */
  function draw(view, reset) {
    const gd = host.graph, data = /** @type {Record<string, any>[]} */ (fresh(baseData)), f = folded();
    const depth = spread(f).depth;
    const height = Math.round(Math.min(720, Math.max(380, 22 * Math.min(depth, L.limits.focus) + 110)));  // graph._layout
    nextHeight = height;
    const ranges = reset ? homeView() : typeof view === "function" ? view() : view;
    nextHeight = 0;
    const lay = Object.assign({}, gd.layout);
    if (ranges) {
      lay.xaxis = Object.assign({}, lay.xaxis, {range: ranges["xaxis.range"].slice(), autorange: false});
      lay.yaxis = Object.assign({}, lay.yaxis, {range: ranges["yaxis.range"].slice(), autorange: false});
    }
    const region = regionOf(lay.xaxis && lay.xaxis.range, lay.yaxis && lay.yaxis.range);
    traces(region, !!region && zoomedOut(lay.xaxis.range, lay.yaxis.range) && small(region) > DRAW_MAX).forEach((t, q) => { Object.keys(t).forEach((key) => { setPath(data[q], key, t[key]); }); });
    S.region = region;
    S.viewArea = region ? Math.abs((lay.xaxis.range[1] - lay.xaxis.range[0]) * (lay.yaxis.range[1] - lay.yaxis.range[0])) : 0;
    const now = layoutNow();
    lay.shapes = now.shapes;
    lay.images = ((gd.layout || {}).images || []).filter((/** @type {{name?: string}} */ im) => im.name !== "dots").concat(S.image ? [S.image] : []);
    lay.height = height;
    lay.annotations = (gd.layout.annotations || []).map((/** @type {object} */ a, /** @type {number} */ q) => q ? a : Object.assign({}, a, {text: now["annotations[0].text"]}));
    Plotly.react(gd, data, lay, host.config);
    S.draws++;
    if (host.drawn) host.drawn();  // what the app draws over a fresh figure: open delegates, a profile's op sizes
    highlight(host.state.values, host.state.instructions);
  }
  // a pan or zoom of the graph (plotly_relayout): past the region drawn, or zoomed well into a big one, the traces
  // are rebuilt for the new view; a double click (autorange) shows the whole graph — plotly's own autorange would
  // only fit what is drawn. In a task of its own: plotly is still in its relayout when it tells us.
  /** @param {Record<string, any> | null | undefined} ev */
  function onGraphRelayout(ev) {
    if (!S.region || S.laying || !ev) return;
    // an open delegate's own relayout (panels/delegate.js: boxes, captions, the view grown below) is not a pan: the
    // traces are already those of the view it grew from
    if (ev.shapes || ev.annotations || ev.height) return;
    const gd = host.graph, xr = gd.layout.xaxis && gd.layout.xaxis.range, yr = gd.layout.yaxis && gd.layout.yaxis.range;
    if (ev["xaxis.autorange"] || ev["yaxis.autorange"]) {
      const {lo, hi, depth} = spread(folded());
      return later({"xaxis.range": [lo - 0.6, hi + 0.6], "yaxis.range": [-(depth - 1) - 0.6, 0.6]}, 0);
    }
    if (!xr || !yr) return;
    const R = S.region, x0 = Math.min(xr[0], xr[1]), x1 = Math.max(xr[0], xr[1]), y0 = Math.min(yr[0], yr[1]), y1 = Math.max(yr[0], yr[1]);
    const outside = x0 < R[0] || x1 > R[1] || y0 < R[2] || y1 > R[3];
    // zoomed in to half the area or less: fewer nodes to draw, or few enough to draw as markers again
    const zoomedIn = (x1 - x0) * (y1 - y0) * 2 <= S.viewArea && (S.coarse > 0 || (S.drawn ? S.drawn.count : 0) > windowMin());
    if (outside || zoomedIn) later(null, SETTLE_MS);
  }
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  /** @param {View | null} view @param {number} ms */
  function later(view, ms) {  // a wheel zoom sends many relayouts: the traces are rebuilt once it pauses
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => { timer = null; draw(view); }, ms);
  }
  /** the fold positions drawing these values and instructions @param {number[]} values @param {number[]} instructions */
  function unitPositions(values, instructions) {
    const f = folded(), out = /** @type {number[]} */ ([]);
    values.forEach((v) => { if (v >= 0 && v < n && f.valueUnit[v] >= 0) out.push(f.valueUnit[v]); });
    instructions.forEach((i) => { if (i >= 0 && i < m) out.push(f.instUnit[i]); });
    return Array.from(new Set(out));
  }
  /** the selection's rings and bold edges over the graph, and its outlines in the lanes @param {number[]} values @param {number[]} instructions */
  function highlight(values, instructions) {
    const f = folded(), chosen = unitPositions(values, instructions), set = new Set(chosen), sel = /** @type {number[]} */ ([]);
    f.edges.forEach((e, q) => { if (set.has(e[0]) || set.has(e[1])) sel.push(q); });
    const s = segments(f, sel);  // drawn over the figure (panels/rings.js), not by restyling it
    // host.place: where the app moved a point after drawing (an open delegate pushes the graph below it down)
    const place = host.place || ((/** @type {number} */ x, /** @type {number} */ y) => [x, y]);
    const lines = host.placeLines ? host.placeLines(s[0], s[1]) : s;
    host.rings({edges: [{xs: lines[0], ys: lines[1]}],
                rings: chosen.map((p) => { const at = place(f.x[p], -f.y[p]); return {x: at[0], y: at[1], symbol: symbolOf(f.nodes[p])}; })});
    uses.memory.memoryHighlight(values, instructions);
  }

  /** a click on the graph: a group expands, a header collapses, a tensor or op is selected
   * @param {{curveNumber: number, customdata?: any, x: number, y: number}} pt */
  function clickGraph(pt) {
    if (pt.curveNumber === T.groups) expand(pt.customdata);
    else if (pt.curveNumber === T.crossings) {  // over a group's body after all: that group
      const f = folded(), g = f.nodes.findIndex((nd, p) => nd[0] === "g" && Math.abs(f.x[p] - pt.x) < 0.3 && Math.abs(-f.y[p] - pt.y) < 0.3);
      if (g >= 0) expand(f.nodes[g][1]);
    }
    else if (pt.curveNumber === T.headers) collapse(pt.customdata);
    else if (pt.curveNumber === T.tensors) host.select({values: [pt.customdata]});
    else if (pt.curveNumber === T.ops) host.select({instructions: [pt.customdata]});
  }
  /** the device filter changed (host.shown()): markers and lanes dimmed to match */
  function devices() {
    const shown = host.shown(), O = ST.opacity.tensor, f = folded();
    // the nodes as drawn (traces: those near the view)
    const drawn = S.drawn || {tk: [], gk: []};
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
  function layoutState() {
    return {worker: runner.stats.worker, main: runner.stats.main, superseded: runner.stats.superseded, failed: runner.stats.failed,
            running: S.laying, draws: S.draws, drawnNodes: S.drawn ? S.drawn.count : 0, windowed: !!S.region,
            dots: S.coarse || 0};
  }
  return {layoutState, setExpanded, expand, collapse, reveal, highlight, clickGraph, devices, labels, draw, status};
}
