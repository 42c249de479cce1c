// The figures' skeletons built in the browser from a plan's tables (explorer/frontend/lod/figures.js): trace order,
// legends, lanes (axes, titles, arena ends, the band past the end and its note), escaping, Python's rounding.
// tests/test_views.py checks the same skeletons, filled, on real exports; tests/test_injection.py their escaping.
import test from "node:test";
import assert from "node:assert/strict";
import {graphFigure, laneAxes, laneTitle, memoryFigure, planFigures, presentDevices, TEMPLATE}
  from "../../explorer/frontend/lod/figures.js";

const STYLE = {
  op: {kernel: {label: "kernel", symbol: "square", size: 11}, delegate: {label: "delegate", symbol: "diamond", size: 15},
       copy: {label: "copy", symbol: "triangle-down", size: 13}, other: {label: "move / jump / free", symbol: "cross-thin", size: 9}},
  group: {delegate: "diamond-wide", run: "square", prefix: "hexagon", prefixes: "hexagon", chunk: "hexagon", root: "circle"},
  edge: {same: {label: "same device", color: "#A0A7B0", width: 1.2, dash: "solid"},
         h2d: {label: "host \u2192 device", color: "#1F2328", width: 2.4, dash: "dash"},
         d2h: {label: "device \u2192 host", color: "#1F2328", width: 2.4, dash: "dot"},
         d2d: {label: "device \u2192 device", color: "#1F2328", width: 2.4, dash: "dashdot"}},
  error: "#B31B1B", ink: "#1F2328", muted: "#6E7781", select: "#000000", font: "sans-serif",
  opacity: {tensor: [1, 0.12], block: [0.92, 0.15]}};

const DEVICES = [
  {name: "cpu", color: "#0072B2", ink: "#FFFFFF", symbol: "circle", pattern: "", host: true, known: true},
  {name: "cuda:0", color: "#E69F00", ink: "#1F2328", symbol: "circle", pattern: "", host: false, known: true},
  {name: "<img src=x onerror=alert(1)>&", color: "#8C8C8C", ink: "#1F2328", symbol: "circle-x", pattern: "x", host: false, known: false}];

// 3 instructions (kernel, copy, kernel); tensors %0..%3: %0, %1 on cpu, %2 on the unknown device, %3 on cpu;
// arena 1 (cpu, 64 B) overflows to 80 B, arena 2 (the unknown device) fits
function plan(over = {}) {
  return Object.assign({
    devices: DEVICES, style: STYLE, names: {plan: "forward", opKinds: ["kernel", "delegate", "copy", "other"]},
    ops: {kind: [0, 2, 0]}, m: 3, n: 4,
    tensors: {index: [0, 1, 2, 3], dev: [0, 0, 2, 0], off: [0, 48, 0, 0], nbytes: [32, 32, 16, 8]},
    arenas: [{id: 1, size: 64, high: 80, dev: 0, peak: 48, peakAt: 1, past: 1, rows: [0, 1]},
             {id: 2, size: 1280, high: 16, dev: 2, peak: 16, peakAt: null, past: 0, rows: [2]}]}, over);
}

test("the graph's traces come in the order every module reads them by (payload trace indices)", () => {
  const fig = graphFigure(/** @type {any} */ (plan()));
  const T = {edges: 0, tensors: 4, ops: 5, hl_edges: 6, hl_nodes: 7, groups: 8, headers: 9, crossings: 10};
  assert.deepEqual(fig.data.slice(0, 4).map((t) => t.name), ["same device", "host \u2192 device", "device \u2192 host", "device \u2192 device"]);
  for (const [name, k] of Object.entries({tensors: T.tensors, ops: T.ops, "selected edges": T.hl_edges, selected: T.hl_nodes,
                                          groups: T.groups, expanded: T.headers, crossings: T.crossings}))
    assert.equal(fig.data[k].name, name);
  assert.ok(fig.data.slice(0, 11).every((t) => t.type === "scatter" && t.cliponaxis === true), "clipped: nothing spills after a zoom");
  assert.deepEqual(fig.data[T.tensors].x, [], "styled, without data: the app fills it");
  assert.equal(fig.data[0].showlegend, false, "same-device edges are not in the legend; copies are");
  assert.equal(fig.data[1].legendgrouptitle.text, "copies");
  assert.equal(fig.layout.annotations[0].name, "status");
  assert.equal(fig.layout.template, TEMPLATE);
});

test("the graph's legend: the devices of the plan's tensors in table order, then the op kinds present", () => {
  const legend = graphFigure(/** @type {any} */ (plan())).data.slice(11);
  assert.deepEqual(legend.map((e) => e.name), ["cpu", "&lt;img src=x onerror=alert(1)&gt;&amp;", "kernel", "copy"]);
  assert.deepEqual(legend.map((e) => e.legendgrouptitle && e.legendgrouptitle.text), ["tensors", undefined, "ops", undefined]);
  assert.deepEqual(legend[1].marker, {color: "#8C8C8C", symbol: "circle-x", size: 12});
  assert.ok(legend.every((e) => e.x.length === 1 && e.x[0] === null), "legend-only entries");
});

test("presentDevices: distinct, in the devices table's order, none (-1) left out", () => {
  assert.deepEqual(presentDevices([2, 0, -1, 2, 0]), [0, 2]);
  assert.deepEqual(presentDevices([]), []);
});

test("a lane per arena: axes, a shared instruction axis, the title with peak and high water", () => {
  const L = /** @type {any} */ (plan()), fig = memoryFigure(L);
  assert.deepEqual(laneAxes(0), ["x", "y"]);
  assert.deepEqual(laneAxes(2), ["x3", "y3"]);
  assert.deepEqual(fig.data.slice(0, 4).map((t) => [t.type, t.name, t.xaxis, t.yaxis]),
                   [["bar", "arena 1", "x", "y"], ["bar", "selected", "x", "y"], ["bar", "arena 2", "x2", "y2"], ["bar", "selected", "x2", "y2"]]);
  assert.equal(fig.layout.xaxis2.matches, "x");
  assert.equal(fig.layout.xaxis.showticklabels, false);
  assert.equal(fig.layout.xaxis2.title.text, "instruction (run order) \u2192", "the axis title under the last lane");
  assert.deepEqual([fig.layout.xaxis.tickmode, fig.layout.xaxis.tick0, fig.layout.xaxis.dtick], ["linear", 0, 1],
                   "a few instructions: a tick on each, no half steps");
  // two instructions: both ticked (plotly's own choice, nticks 2, stepped by 2: one tick, "0")
  assert.equal(memoryFigure(/** @type {any} */ (plan({m: 2, ops: {kind: [0, 0]}}))).layout.xaxis.dtick, 1);
  // many: plotly's ticks, integers with separators ("65,000"), fewer as the numbers grow longer
  const ticks = (/** @type {number} */ m) => memoryFigure(/** @type {any} */ (plan({m, ops: {kind: [0]}}))).layout.xaxis;
  assert.deepEqual([ticks(70000).nticks, ticks(70000).tickformat, ticks(70000).dtick], [8, ",d", undefined]);
  assert.deepEqual([ticks(500).nticks, ticks(3000).nticks], [16, 10]);
  // one instruction: one tick, saying which instruction it is (a lone "0" read as nothing in particular)
  const one = memoryFigure(/** @type {any} */ (plan({m: 1, ops: {kind: [0]}}))).layout.xaxis2;
  assert.deepEqual([one.tickmode, one.tickvals, one.ticktext], ["array", [0], ["#0 \u2014 the plan's one instruction"]]);
  assert.deepEqual(one.range, [-0.6, 0.6], "the lifetime bar across the lane");
  assert.deepEqual(laneTitle(L, L.arenas[0]), ["arena 1 \u00b7 cpu", "64 B \u00b7 peak live 48 B (75%) at #1 \u00b7 high water 80 B"]);
  assert.equal(laneTitle(L, L.arenas[1])[1], "1.2 KiB \u00b7 peak live 16 B (1%) \u00b7 high water 16 B", "no peak instruction: none said");
  assert.equal(fig.layout.height, 2 * 150 + 110);
  assert.equal(fig.layout.uniformtext.mode, "hide", "names that do not fit are hidden, not shrunk to dust");
  const titles = fig.layout.annotations.filter((a) => !a.name).map((a) => a.text);
  assert.equal(titles.length, 2);
  assert.ok(titles[1].includes("<b>arena 2 \u00b7 &lt;img src=x onerror=alert(1)&gt;&amp;</b>"), "a device name from the file is escaped");
  assert.ok(!titles.join("").includes("<img"));
});

test("an arena overflowing: its end in red, a band up to the high water, a note counting the tensors past it", () => {
  const fig = memoryFigure(/** @type {any} */ (plan()));
  const shapes = fig.layout.shapes.filter((s) => s.yref === "y");
  const end = shapes.find((s) => s.name === "arena end"), band = shapes.find((s) => s.name === "past the end");
  assert.deepEqual([end.y0, end.line.color, end.line.dash], [64, STYLE.error, "solid"]);
  assert.deepEqual([band.y0, band.y1], [64, 80]);
  const notes = fig.layout.annotations.filter((a) => a.name === "overflow");
  assert.deepEqual(notes.map((a) => a.text), ["\u26a0 1 tensor past the arena's end: up to 16 B beyond 64 B"]);
  assert.deepEqual(fig.layout.yaxis.tickvals, [0, 32, 64, 80], "the high water has a tick when it stands clear of the end");
  assert.deepEqual(fig.layout.yaxis.ticktext, ["0 B", "32 B", "end 64 B", "80 B"]);
  const fits = fig.layout.shapes.find((s) => s.yref === "y2" && s.name === "arena end");
  assert.deepEqual([fits.line.color, fits.line.dash], [STYLE.ink, "dash"], "a lane within its arena still shows its end");
  assert.ok(!fig.layout.shapes.some((s) => s.yref === "y2" && s.name === "past the end"));
  const peak = fig.layout.shapes.filter((s) => s.name === "peak");
  assert.deepEqual(peak.map((s) => [s.xref, s.x0]), [["x", 1]], "a peak line where the arena peaks (none without one)");
  const many = memoryFigure(/** @type {any} */ (plan({arenas: [Object.assign({}, plan().arenas[0], {past: 1234})]})));
  assert.ok(many.layout.annotations.find((a) => a.name === "overflow").text.startsWith("\u26a0 1,234 tensors past"));
});

test("the memory legend lists the devices of the tensors in the lanes, hatched where the device is unknown", () => {
  const legend = memoryFigure(/** @type {any} */ (plan())).data.slice(4);
  assert.deepEqual(legend.map((e) => [e.name, e.marker.color, e.marker.pattern && e.marker.pattern.shape]),
                   [["cpu", "#0072B2", undefined], ["&lt;img src=x onerror=alert(1)&gt;&amp;", "#8C8C8C", "x"]]);
});

test("a plan without arenas: a note instead of lanes", () => {
  const fig = memoryFigure(/** @type {any} */ (plan({arenas: []})));
  assert.deepEqual(fig.data, []);
  assert.equal(fig.layout.annotations[0].text, "this plan has no memory-planned arenas");
});

test("planFigures builds a plan's skeletons once", () => {
  const L = /** @type {any} */ (plan());
  assert.equal(planFigures(L), planFigures(L));
  assert.notEqual(planFigures(L), planFigures(/** @type {any} */ (plan())));
});
