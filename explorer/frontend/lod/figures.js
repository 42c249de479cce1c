// The figures' skeletons, built in the browser from a plan's tables (views/payload/plan.py): the styled traces
// without data, in the order the app fills them, the legend entries and the layout (axes, lanes, titles, the
// arena's end, the band past it and its note). Python sends no figure; the app (app/app.js), the diff (diff/sides.js),
// the level-of-detail drawing (lod/graph.js, lod/details.js) and the profile (profile/profile.js) all start from these.
//
// Graph trace order (L.trace): 0-3 edges by kind (same, h2d, d2h, d2d), 4 tensors, 5 ops, 6-7 selection, 8 groups,
// 9 headers ("▾" of an expanded group), 10 crossings, then legend-only entries. Memory: lane k is trace 2k (blocks)
// and 2k + 1 (selection outline), then legend-only entries; its layout has one subplot row per arena.
//
// Every string from the file (device names, arena devices) is ptext-escaped (&<>) as it enters a figure, as
// views/escape.py plotly_text did: plotly renders a small HTML subset from these strings.
import {ptext} from "../util/common.js";
import {bytesText, countText, fixed} from "../util/format.js";

/** @typedef {import("../types/payload").LodPayload} Lod */
/** @typedef {{data: Record<string, any>[], layout: Record<string, any>}} Figure */

/** @type {("same" | "h2d" | "d2h" | "d2d")[]} */
export const EDGE_KINDS = ["same", "h2d", "d2h", "d2d"];

// The defaults the figures were drawn on when Python built them: plotly.py's "plotly" template, here only the
// parts these figures can show (axes' automargin and title standoff, outlines and patterns of bars, the colours a
// trace without its own takes, annotation and shape defaults), so the page looks as it did. Without it plotly.js
// draws the x axis title closer, hatched blocks in another pattern mode and legend swatches without a rim.
const PAPER_INK = "#2a3f5f", PLOT_BG = "#E5ECF6";
const AXIS = {automargin: true, gridcolor: "white", linecolor: "white", ticks: "", title: {standoff: 15},
              zerolinecolor: "white", zerolinewidth: 2};
const PATTERN = {fillmode: "overlay", size: 10, solidity: 0.2};
export const TEMPLATE = {
  data: {bar: [{type: "bar", error_x: {color: PAPER_INK}, error_y: {color: PAPER_INK},
                marker: {line: {color: PLOT_BG, width: 0.5}, pattern: PATTERN}}],
         scatter: [{type: "scatter", fillpattern: PATTERN}]},
  layout: {annotationdefaults: {arrowcolor: PAPER_INK, arrowhead: 0, arrowwidth: 1}, autotypenumbers: "strict",
           colorway: ["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3", "#FF6692", "#B6E880", "#FF97FF",
                      "#FECB52"],
           font: {color: PAPER_INK}, hoverlabel: {align: "left"}, hovermode: "closest", paper_bgcolor: "white",
           plot_bgcolor: PLOT_BG, shapedefaults: {line: {color: PAPER_INK}}, title: {x: 0.05}, xaxis: AXIS, yaxis: AXIS}};
export const LANE_HEIGHT = 150;  // pixels per arena lane
const FEW_TICKS = 16;  // the instruction axis's most ticks: up to this many instructions, one on each
export const LANES_CHROME = 110;  // the memory figure's pixels besides its lanes: margins, legend, axis title
const HOVERLABEL = (/** @type {Lod["style"]} */ ST) => ({bgcolor: "white", bordercolor: "#D0D7DE",
  font: {size: 12, color: ST.ink}, align: "left"});

/** the distinct devices among `devs` (indices into L.devices, -1 none), in the order the legend lists them
 * (L.devices is sent in that order: cpu, then known devices by type and index, unknown types last)
 * @param {ArrayLike<number>} devs @returns {number[]} */
export function presentDevices(devs) {
  const seen = new Set();
  for (let k = 0; k < devs.length; k++) if (devs[k] >= 0) seen.add(devs[k]);
  return Array.from(seen).sort((a, b) => a - b);
}

// ---- the graph ------------------------------------------------------------------------------------------

function scatter(/** @type {Record<string, any>} */ props) {  // clipped: after a zoom nothing spills into the margins
  return Object.assign({type: "scatter", cliponaxis: true}, props);
}

/** the graph's traces, styled and empty, always the same ones in the same order (see the head of this file)
 * @param {Lod} L @returns {Record<string, any>[]} */
export function graphTraces(L) {
  const ST = L.style, /** @type {Record<string, any>[]} */ out = [];
  for (const kind of EDGE_KINDS) {
    const st = ST.edge[kind];
    out.push(scatter(Object.assign({x: [], y: [], mode: "lines", hoverinfo: "skip", name: st.label,
      showlegend: kind !== "same", legendgroup: "edges"}, kind === "h2d" ? {legendgrouptitle: {text: "copies"}} : {},
      {line: {color: st.color, width: st.width, dash: st.dash}})));
  }
  out.push(scatter({x: [], y: [], mode: "markers", name: "tensors", customdata: [], hovertext: [], hoverinfo: "text",
    showlegend: false, textposition: "middle right", textfont: {size: 10, color: "#57606A"},
    marker: {size: 13, color: [], symbol: [], opacity: [], line: {color: [], width: []}}}));
  out.push(scatter({x: [], y: [], mode: "markers", name: "ops", customdata: [], hovertext: [], hoverinfo: "text",
    showlegend: false, textposition: "middle left", textfont: {size: 10, color: ST.ink},
    marker: {symbol: [], size: [], color: "#F6F8FA", line: {width: 2, color: []}}}));
  out.push(scatter({x: [], y: [], mode: "lines", hoverinfo: "skip", showlegend: false, name: "selected edges",
    line: {color: ST.select, width: 3}}));
  out.push(scatter({x: [], y: [], mode: "markers", hoverinfo: "skip", showlegend: false, name: "selected",
    marker: {size: 26, color: ST.select, line: {width: 2.5, color: ST.select}, symbol: []}}));
  out.push(scatter({x: [], y: [], mode: "markers", name: "groups", customdata: [], hovertext: [], hoverinfo: "text",
    showlegend: false, textposition: "middle right", textfont: {size: 11, color: ST.ink},
    marker: {symbol: [], size: [], color: [], opacity: [], line: {color: [], width: []}}}));
  out.push(scatter({x: [], y: [], mode: "markers+text", name: "expanded", customdata: [], showlegend: false,
    hoverinfo: "text", hovertext: [], text: [], textposition: "middle right", textfont: {size: 11, color: ST.muted},
    marker: {symbol: "triangle-down", size: 11, color: ST.muted}}));
  out.push(scatter({x: [], y: [], mode: "markers", name: "crossings", hoverinfo: "text", hovertext: [], text: [], customdata: [],
    showlegend: false, textfont: {size: 9, color: "#57606A"}, textposition: "middle left",
    marker: {size: 7, color: "#8C959F", symbol: "circle"}}));
  return out;
}

/** legend-only entries: one per device of the plan's tensors (colour + marker), one per op kind present
 * @param {Lod} L @returns {Record<string, any>[]} */
export function graphLegend(L) {
  const ST = L.style, /** @type {Record<string, any>[]} */ out = [], groups = new Set();
  const entry = (/** @type {string} */ group, /** @type {string} */ title, /** @type {string} */ name, /** @type {any} */ marker) => {
    out.push(Object.assign({type: "scatter", x: [null], y: [null], mode: "markers", name, legendgroup: group, marker},
                           groups.has(group) ? {} : {legendgrouptitle: {text: title}}));
    groups.add(group);
  };
  for (const d of presentDevices(L.tensors.dev)) {
    const D = L.devices[d];
    entry("devices", "tensors", ptext(D.name), {color: D.color, symbol: D.symbol, size: 12});
  }
  const present = new Set(), K = L.ops.kind;
  for (let i = 0; i < K.length; i++) present.add(K[i]);
  const kinds = new Set(Array.from(present, (k) => L.names.opKinds[k]));
  for (const kind of /** @type {("kernel" | "delegate" | "copy" | "other")[]} */ (["kernel", "delegate", "copy", "other"])) {
    if (!kinds.has(kind)) continue;
    const st = ST.op[kind];
    entry("ops", "ops", st.label, {symbol: st.symbol, size: 11, color: "#F6F8FA", line: {width: 2, color: ST.ink}});
  }
  // a plan that opens with folded groups: what a group's marker is (its majority device's colour; the bar under it
  // splits its instructions by device: lod/captions.js mixShapes)
  const open = new Set(L.expanded || []), G = L.groups || {kind: [], parent: []};
  // a group drawn folded at first: not the root, not open, its parent open (or the root)
  const folded = G.kind.filter((k, g) => k !== "root" && !open.has(g) && (G.kind[G.parent[g]] === "root" || open.has(G.parent[g])));
  if (folded.length) {
    const sym = ST.group[/** @type {keyof typeof ST.group} */ (folded[0])];
    entry("groups", "groups", "a group: bar = its ops by device", {symbol: sym, size: 13, color: "#D0D7DE", line: {width: 1.2, color: ST.ink}});
  }
  return out;
}

/** the rows the graph's legend takes: its groups side by side, each group's entries stacked (the tensors' devices,
 * the op kinds, the copies' kinds: two where the plan has copies, "a group" where one is folded) @param {Lod} L */
export function legendRows(L) {
  const kinds = new Set(Array.from(L.ops.kind, (k) => L.names.opKinds[k])), entries = graphLegend(L);
  const groups = entries.filter((t) => t.legendgroup === "groups").length;
  return Math.max(1, presentDevices(L.tensors.dev).length, ["kernel", "delegate", "copy", "other"].filter((k) => kinds.has(k)).length,
                  kinds.has("copy") ? 2 : 0, groups);
}
// px the legend takes at the figure's top: a title line and a row per entry (11 px type); the margin is made that
// tall, so plotly does not grow it after the first draw (a grown margin is a second whole draw of the figure)
const LEGEND_TOP = 29, LEGEND_ROW = 19;

/** the graph's layout, with room for the legend and a status note the app writes (the app sets the height and
 * the ranges once it has laid the graph out) @param {Lod} L @returns {Record<string, any>} */
export function graphLayout(L) {
  const ST = L.style, axis = {visible: false, showgrid: false, zeroline: false};
  return {
    height: 380, plot_bgcolor: "white", paper_bgcolor: "white", hovermode: "closest", dragmode: "pan", clickmode: "event",
    modebar: {orientation: "v", remove: ["select2d", "lasso2d", "autoScale2d"]}, hoverlabel: HOVERLABEL(ST),
    font: {family: ST.font, size: 12, color: ST.ink},
    legend: {orientation: "h", x: 0, xanchor: "left", y: 1, yanchor: "top", yref: "container", itemclick: false,
             itemdoubleclick: false, font: {size: 11}, tracegroupgap: 14, grouptitlefont: {size: 11, color: ST.muted}},
    xaxis: Object.assign({}, axis, {range: [-0.5, 0.5]}), yaxis: Object.assign({}, axis, {range: [-0.6, 0.6]}),
    margin: {l: 12, r: 12, t: Math.max(56, LEGEND_TOP + LEGEND_ROW * legendRows(L)), b: 40}, shapes: [],
    annotations: [{text: "", xref: "paper", yref: "paper", x: 0, y: 0, xanchor: "left", yanchor: "top", yshift: -4,
                   showarrow: false, font: {size: 11, color: ST.muted}, align: "left", name: "status"}],
    uirevision: "overview", template: TEMPLATE};
}

/** the graph's skeleton: styled traces without data, the legend, the layout @param {Lod} L @returns {Figure} */
export function graphFigure(L) {
  return {data: graphTraces(L).concat(graphLegend(L)), layout: graphLayout(L)};
}

// ---- the memory map -------------------------------------------------------------------------------------

/** the (x, y) axis ids of lane k @param {number} k @returns {[string, string]} */
export function laneAxes(k) { return k === 0 ? ["x", "y"] : ["x" + (k + 1), "y" + (k + 1)]; }

/** a lane's title as plain text, [head, stats]: `arena 2 · cuda:0`, `1.5 KiB · peak live 1.2 KiB (80%) at #7 · ...`
 * @param {Lod} L @param {import("../types/payload").LodArena} a @returns {[string, string]} */
export function laneTitle(L, a) {
  const util = a.size ? a.peak / a.size : 0;
  let peak = "peak live " + bytesText(a.peak) + " (" + fixed(util * 100, 0) + "%)";
  if (a.peakAt !== null && a.peakAt !== undefined) peak += " at #" + a.peakAt;
  return ["arena " + a.id + " \u00b7 " + (a.dev >= 0 ? L.devices[a.dev].name : "?"),
          bytesText(a.size) + " \u00b7 " + peak + " \u00b7 high water " + bytesText(a.high)];
}

/** the memory map of a plan without arenas: a note, no lanes @param {Lod} L @returns {Figure} */
export function emptyMemoryFigure(L) {
  const ST = L.style;
  return {data: [], layout: {
    template: TEMPLATE, plot_bgcolor: "white", paper_bgcolor: "white", font: {family: ST.font, size: 12, color: ST.ink},
    height: 120, xaxis: {visible: false}, yaxis: {visible: false}, margin: {l: 8, r: 8, t: 8, b: 8},
    annotations: [{text: "this plan has no memory-planned arenas", showarrow: false, x: 0.5, y: 0.5, xref: "paper",
                   yref: "paper", font: {size: 14, color: ST.muted}}]}};
}

/** per lane its blocks and its selection outline, styled and empty @param {Lod} L @returns {Record<string, any>[]} */
export function memoryTraces(L) {
  /** @type {Record<string, any>[]} */
  const out = [];
  L.arenas.forEach((a, k) => {
    const [x, y] = laneAxes(k);
    // a block's name inside it, turned upright in a tall narrow block (plotly's default textangle "auto");
    // plotly hides what would need a font under layout.uniformtext.minsize (the hover says all)
    out.push({type: "bar", x: [], width: [], base: [], y: [], customdata: [], orientation: "v", name: "arena " + a.id,
              hovertext: [], hoverinfo: "text", showlegend: false, xaxis: x, yaxis: y, text: [], textposition: "inside",
              insidetextanchor: "middle", constraintext: "inside", cliponaxis: true, textfont: {size: 10, color: []},
              marker: {color: [], opacity: [], line: {color: [], width: []},
                       pattern: {fgcolor: "white", size: 6, solidity: 0.25}}});
    out.push({type: "bar", x: [], width: [], base: [], y: [], customdata: [], orientation: "v", name: "selected",
              hoverinfo: "skip", showlegend: false, xaxis: x, yaxis: y,
              marker: {color: "rgba(0,0,0,0)", line: {color: L.style.select, width: 3}}});
  });
  return out;
}

/** legend-only entries: one per device of the tensors in the lanes @param {Lod} L @returns {Record<string, any>[]} */
export function memoryLegend(L) {
  const TT = L.tensors, devOf = new Int32Array(L.n).fill(-1), devs = [];  // a value's device (table index)
  for (let r = 0; r < TT.index.length; r++) devOf[TT.index[r]] = TT.dev[r];
  for (const a of L.arenas) for (let k = 0; k < a.rows.length; k++) devs.push(devOf[a.rows[k]]);
  return presentDevices(devs).map((d) => {
    const D = L.devices[d];
    return {type: "bar", x: [null], y: [null], name: ptext(D.name), showlegend: true,
            marker: Object.assign({color: D.color}, D.pattern ? {pattern: {shape: D.pattern}} : {})};
  });
}

/** one lane (subplot row) per arena with its own byte axis (arenas differ by orders of magnitude), sharing the
 * instruction axis: titles, the arena's end (always a line), the bytes past it (a red band with a note saying how
 * many tensors reach into it), the peak line @param {Lod} L @returns {Record<string, any>} */
export function memoryLayout(L) {
  const ST = L.style, rows = L.arenas.length, n = L.m, MUTED = ST.muted, INK = ST.ink;
  const gap = Math.min(0.12, 70 / (LANE_HEIGHT * rows + 60)), lane = (1 - gap * (rows - 1)) / rows;
  /** @type {Record<string, any>} */
  const layout = {template: TEMPLATE, plot_bgcolor: "white", paper_bgcolor: "white", font: {family: ST.font, size: 12, color: INK},
                  annotations: [], shapes: [], uniformtext: {mode: "hide", minsize: 9}};
  /** @type {Record<string, any>[]} */
  const marks = [];  // after the lanes' titles, which come first (one per lane, in lane order)
  let widest = 0;  // the longest byte tick label, in characters
  L.arenas.forEach((a, k) => {
    const [x, y] = laneAxes(k), top = 1 - k * (lane + gap), last = k === rows - 1;
    const color = a.dev >= 0 ? L.devices[a.dev].color : "#8C8C8C", over = a.high > a.size;
    // ticks follow a zoom, printed as integers with separators ("65,000"); up to 16 instructions a tick on each (plotly's
    // own choice for a few rounds the step up: a 2-instruction plan got one tick, "0"; half steps printed twice as "d")
    layout[x.replace("x", "xaxis")] = Object.assign({anchor: y, range: [-0.6, Math.max(n, 1) - 0.4], showgrid: false,
      zeroline: false, tickformat: ",d", tickfont: {size: 10, color: MUTED}, showticklabels: last},
      k ? {matches: "x"} : {},
      last ? {title: {text: "instruction (run order) \u2192", font: {size: 11, color: MUTED}}} : {},
      // one instruction: its tick says which it is (a lone "0" under the lanes read as a byte count or a stray tick)
      n === 1 ? {tickmode: "array", tickvals: [0], ticktext: ["#0 \u2014 the plan's one instruction"]}
        : n <= FEW_TICKS ? {tickmode: "linear", tick0: 0, dtick: 1}
        // longer numbers, fewer ticks: "65,000" every 5,000 crowded a memory map beside the graph
        : {nticks: n < 1000 ? FEW_TICKS : n < 10000 ? 10 : 8});
    // the high-water mark gets a tick when it stands clear of the arena's end (within ~8% of the lane their labels
    // overlap; the band's note says how far past the end it reaches)
    const ticks = [0, Math.floor(a.size / 2), a.size].concat(over && a.high - a.size > 0.08 * a.high ? [a.high] : []);
    layout[y.replace("y", "yaxis")] = {anchor: x, domain: [Math.max(0, top - lane), top],
      range: [0, Math.max(a.size, a.high, 1) * 1.06], tickvals: ticks, showgrid: true,
      ticktext: ticks.map((t, q) => { const tt = (t === a.size && q === 2 ? "end " : "") + bytesText(t); widest = Math.max(widest, tt.length); return tt; }),
      gridcolor: "#EEF1F4", zeroline: false, fixedrange: true, linecolor: color, linewidth: 4, showline: true,
      tickfont: {size: 10, color: MUTED}};
    layout.shapes.push({type: "line", xref: x + " domain", yref: y, x0: 0, x1: 1, y0: a.size, y1: a.size, name: "arena end",
                        layer: "above", line: {color: over ? ST.error : INK, width: over ? 2 : 1, dash: over ? "solid" : "dash"}});
    if (over) {
      layout.shapes.push({type: "rect", xref: x + " domain", yref: y, x0: 0, x1: 1, y0: a.size, y1: a.high,
                          name: "past the end", layer: "below", line: {width: 0}, fillcolor: "rgba(179,27,27,0.10)"});
      const count = countText(a.past) + " tensor" + (a.past !== 1 ? "s" : "") + " ";
      marks.push({text: "\u26a0 " + count + "past the arena's end: up to " + ptext(bytesText(a.high - a.size)) + " beyond " +
                        ptext(bytesText(a.size)),
                  xref: x + " domain", yref: y, x: 0.5, y: a.high, xanchor: "center", yanchor: "top", showarrow: false,
                  font: {size: 11, color: ST.error}, bgcolor: "rgba(255,255,255,0.85)", name: "overflow"});
    }
    const [head, stats] = laneTitle(L, a);
    layout.annotations.push({text: "<span style='color:" + color + "'>\u25a0</span> <b>" + ptext(head) + "</b> \u00b7 " + ptext(stats),
                             xref: "paper", yref: "paper", x: 0, y: top, xanchor: "left", yanchor: "bottom", showarrow: false,
                             font: {size: 12, color: INK}, align: "left"});
    if (a.peakAt !== null && a.peakAt !== undefined)
      layout.shapes.push({type: "line", xref: x, yref: y + " domain", x0: a.peakAt, x1: a.peakAt, y0: 0, y1: 1, name: "peak",
                          line: {color: MUTED, width: 1, dash: "dot"}});
  });
  layout.annotations.push(...marks);
  return Object.assign(layout, {
    // margins that already hold the byte ticks (~6 px a character at 10 px type), the last instruction tick's half (~4 px a character)
    // and the axis title: plotly grows a margin too small after the first draw, which is a second whole draw
    height: LANE_HEIGHT * rows + LANES_CHROME, barmode: "overlay", bargap: 0,
    margin: {l: Math.max(64, Math.ceil(6 * widest + 11)), r: Math.max(12, 4 * countText(Math.max(n - 1, 0)).length + 6), t: 58, b: 48},
    hovermode: "closest", clickmode: "event", dragmode: "pan", modebar: {remove: ["select2d", "lasso2d", "autoScale2d"]},
    uirevision: "memory", hoverlabel: HOVERLABEL(ST),
    legend: {orientation: "h", x: 0, xanchor: "left", y: 1.0, yanchor: "top", yref: "container", itemclick: false,
             itemdoubleclick: false, font: {size: 11}, title: {text: "tensor device", font: {size: 11, color: MUTED}, side: "left"}}});
}

/** the memory map's skeleton: lanes' axes and titles, styled traces without data, the legend @param {Lod} L
 * @returns {Figure} */
export function memoryFigure(L) {
  if (!L.arenas.length) return emptyMemoryFigure(L);
  return {data: memoryTraces(L).concat(memoryLegend(L)), layout: memoryLayout(L)};
}

/** @type {WeakMap<Lod, {graph: Figure, memory: Figure}>} */
const MADE = new WeakMap();

/** both skeletons of a plan, made once per plan's tables. Never hand them to plotly as they are (it keeps and
 * changes the objects it draws): draw a copy (`fresh`) @param {Lod} L @returns {{graph: Figure, memory: Figure}} */
export function planFigures(L) {
  let out = MADE.get(L);
  if (!out) { out = {graph: graphFigure(L), memory: memoryFigure(L)}; MADE.set(L, out); }
  return out;
}

/** a deep copy of a skeleton (or of part of one), for plotly to keep @template T @param {T} o @returns {T} */
export function fresh(o) { return JSON.parse(JSON.stringify(o)); }
