// Overlays (explorer/frontend/overlay/data.js): colours under a continuous scale and under thresholds, the domain
// of what is drawn, node ids of the level-of-detail graph, the hover/details text of instructions, tensors and
// folded groups, and the legend model. The overlay objects have the shape explorer/views/payload/overlays.py writes.
import test from "node:test";
import assert from "node:assert/strict";
import {colorOf, detailsRows, findOverlay, formatValue, hoverLine, isMissing, legendModel, nodeColors, nodeRef,
        nodeValue, NO_DATA, overlayDomain, planOverlays, scaleColor, scalePosition, valueText, VIRIDIS} from "../../explorer/frontend/overlay/data.js";
import {fmtTime} from "../../explorer/frontend/profile/profile.js";

// 4 instructions, 3 values, 3 groups (0 = root, 1 = @0-@1, 2 = @2-@3 = module "layers.1")
function overlay(extra) {
  return Object.assign({
    name: "lat", label: "lat", unit: "ms", format: "number", aggregate: "sum", rule: "a folded group shows the sum of its entries",
    noun: "entry", builtin: false, note: "", none: NO_DATA, m: 4, n: 3, missing: null,
    scale: {kind: "continuous", name: "viridis", stops: VIRIDIS, min: null, max: null, log: false},
    instr: [1, 3, 5, 5], instrFrom: [-1, -1, 0, 0], value: [null, 10, null],
    modules: [["layers.1", 2, 4, 5, 2]], group: [19, 14, 5], groupCount: [4, 3, 1], groupFrom: [-1, -1, 0],
    range: [1, 10], groupRange: [5, 19], count: 4,
  }, extra || {});
}

test("the default scale runs from viridis's dark purple to its yellow, interpolated between stops", () => {
  assert.equal(scaleColor(VIRIDIS, 0), "#440154");
  assert.equal(scaleColor(VIRIDIS, 1), "#FDE725");
  assert.equal(scaleColor(VIRIDIS, 0.5), "#21918C");  // the middle stop
  assert.equal(scaleColor(VIRIDIS, -3), "#440154");  // clamped
  assert.equal(scaleColor(VIRIDIS, 7), "#FDE725");
  const between = scaleColor([[0, "#000000"], [1, "#FF0000"]], 0.5);
  assert.equal(between, "#800000");
  assert.equal(scaleColor([], 1), "#FDE725");  // no stops: viridis
});

test("a number's colour sits on the scale over the domain; a missing one is the no-data grey", () => {
  const O = overlay();
  assert.equal(colorOf(O, 1, [1, 10]), "#440154");
  assert.equal(colorOf(O, 10, [1, 10]), "#FDE725");
  assert.equal(colorOf(O, null, [1, 10]), NO_DATA);
  assert.equal(colorOf(O, NaN, [1, 10]), NO_DATA);
  assert.equal(colorOf(O, 4, [4, 4]), scaleColor(VIRIDIS, 0.5));  // one number: the middle
  const L = overlay({scale: {kind: "continuous", name: "viridis", stops: VIRIDIS, min: null, max: null, log: true}});
  assert.equal(scalePosition(L.scale, 10, [1, 100]), 0.5);
  assert.equal(scalePosition(L.scale, 0, [1, 100]), 0);
});

test("thresholds: the band a number falls in, the no-data grey below the first bound", () => {
  const O = overlay({scale: {kind: "thresholds", bounds: [2, 5], colors: ["#00FF00", "#FF0000"], labels: ["ok", "slow"]}});
  assert.equal(colorOf(O, 1, null), NO_DATA);
  assert.equal(colorOf(O, 2, null), "#00FF00");
  assert.equal(colorOf(O, 4.9, null), "#00FF00");
  assert.equal(colorOf(O, 5, null), "#FF0000");
  assert.equal(colorOf(O, 1e9, null), "#FF0000");
  const open = overlay({scale: {kind: "thresholds", bounds: [null, 5], colors: ["#00FF00", "#FF0000"], labels: ["ok", "slow"]}});
  assert.equal(colorOf(open, -100, null), "#00FF00");
  const legend = legendModel(O);
  assert.equal(legend.kind, "thresholds");
  assert.deepEqual(legend.entries.map((e) => e.label), ["< 2 ms", "ok", "slow"]);
  assert.deepEqual(legendModel(open).entries.map((e) => e.label), ["ok", "slow"]);
  assert.equal(legend.gradient, null);
});

test("node ids decode as the LOD graph numbers them: instructions, then values, then groups", () => {
  const O = overlay();
  assert.deepEqual(nodeRef(O, 0), {kind: "instr", index: 0});
  assert.deepEqual(nodeRef(O, 3), {kind: "instr", index: 3});
  assert.deepEqual(nodeRef(O, 4), {kind: "value", index: 0});
  assert.deepEqual(nodeRef(O, 6), {kind: "value", index: 2});
  assert.deepEqual(nodeRef(O, 7), {kind: "group", index: 0});
  assert.deepEqual(nodeRef(O, 9), {kind: "group", index: 2});
});

test("node values: own numbers, a module's number on its instructions and its group, folded counts", () => {
  const O = overlay();
  assert.deepEqual(nodeValue(O, "instr", 0), {value: 1, count: 1, from: null, folded: false});
  assert.deepEqual(nodeValue(O, "instr", 2), {value: 5, count: 1, from: "layers.1", folded: false});
  assert.deepEqual(nodeValue(O, "value", 0), {value: null, count: 0, from: null, folded: false});
  assert.deepEqual(nodeValue(O, "value", 1), {value: 10, count: 1, from: null, folded: false});
  assert.deepEqual(nodeValue(O, "group", 1), {value: 14, count: 3, from: null, folded: true});
  assert.deepEqual(nodeValue(O, "group", 2), {value: 5, count: 1, from: "layers.1", folded: true});
  assert.deepEqual(nodeValue(O, "instr", 99).value, null);
});

test("integer columns mark no number with -1 (missing), float ones with null", () => {
  const O = overlay({missing: -1, format: "bytes", unit: "", instr: [-1, 64, -1, 2048], instrFrom: [-1, -1, -1, -1], modules: []});
  assert.equal(isMissing(O, -1), true);
  assert.equal(isMissing(O, 0), false);
  assert.equal(nodeValue(O, "instr", 0).value, null);
  assert.equal(hoverLine(O, "instr", 3), "lat: 2.0 KiB");
  assert.equal(isMissing(overlay(), -1), false);  // a float overlay may hold -1
});

test("the domain spans the nodes drawn, unless the scale fixes its ends", () => {
  const O = overlay();
  assert.deepEqual(overlayDomain(O), [1, 10]);  // every instruction and value
  assert.deepEqual(overlayDomain(O, [0, 1]), [1, 3]);
  assert.deepEqual(overlayDomain(O, [7, 8, 9]), [5, 19]);  // folded groups: their sums
  assert.equal(overlayDomain(O, [4, 6]), null);  // nothing drawn has a number
  const fixed = overlay({scale: {kind: "continuous", name: "viridis", stops: VIRIDIS, min: 0, max: 100, log: false}});
  assert.deepEqual(overlayDomain(fixed, [0, 1]), [0, 100]);
});

test("node colours follow the nodes' order, over their own domain by default", () => {
  const O = overlay();
  const colors = nodeColors(O, [0, 1, 4, 8]);  // @0 = 1, @1 = 3, %0 none, group 1 = 14
  assert.equal(colors.length, 4);
  assert.equal(colors[0], VIRIDIS[0][1]);
  assert.equal(colors[3], "#FDE725");
  assert.equal(colors[2], NO_DATA);
  assert.equal(colors[1], scaleColor(VIRIDIS, 2 / 13));
  assert.deepEqual(nodeColors(O, [0, 1], [0, 3]), [scaleColor(VIRIDIS, 1 / 3), "#FDE725"]);
});

test("hover and details say the number, the rule over a folded group, and whose number it is", () => {
  const O = overlay();
  assert.equal(hoverLine(O, "instr", 1), "lat: 3 ms");
  assert.equal(hoverLine(O, "group", 1), "lat: 14 ms (sum of 3 entries)");
  assert.equal(hoverLine(O, "group", 2), "lat: 5 ms (layers.1's number)");
  assert.equal(hoverLine(O, "instr", 3), "lat: 5 ms (layers.1's number)");
  assert.equal(hoverLine(O, "value", 0), "lat: no data");
  const T = overlay({label: "time", unit: "", format: "time", aggregate: "max", noun: "op", group: [3.4e6, 1200, 5],
                     groupCount: [12, 1, 1], groupFrom: [-1, -1, -1], note: "median of 5 runs (ETDump)"});
  assert.equal(hoverLine(T, "group", 0), "time: 3.4 ms (max of 12 ops)");
  assert.equal(hoverLine(T, "group", 1), "time: 1.2 µs (max of 1 op)");
  assert.deepEqual(detailsRows(T, "group", 0), [["time", "3.4 ms (max of 12 ops)"], ["rule", O.rule],
                                                ["from", "median of 5 runs (ETDump)"]]);
  assert.deepEqual(detailsRows(O, "instr", 0), [["lat", "1 ms"]]);
  assert.equal(valueText(O, "group", 0), "19 ms (sum of 4 entries)");
});

test("numbers are written as the overlay's format says (time as the profile panel writes it)", () => {
  for (const ns of [850, 12240, 3.4e6, 1.2e9, 250e6]) assert.equal(formatValue(overlay({format: "time"}), ns), fmtTime(ns));
  assert.equal(formatValue(overlay({format: "bytes"}), 1536), "1.5 KiB");
  assert.equal(formatValue(overlay({format: "count", unit: "instructions"}), 12345), "12,345 instructions");
  assert.equal(formatValue(overlay({unit: ""}), 0.123456), "0.123");
  assert.equal(formatValue(overlay({unit: "%"}), 2.5), "2.5 %");
  assert.equal(formatValue(overlay(), null), "no data");
});

test("the legend: gradient of the scale's stops, ticks over the domain, the rule and the no-data swatch", () => {
  const O = overlay();
  const L = legendModel(O, [0, 100], 5);
  assert.equal(L.title, "lat (ms)");
  assert.equal(L.kind, "continuous");
  assert.ok(L.gradient.startsWith("linear-gradient(to right, #440154 0.0%"));
  assert.ok(L.gradient.endsWith("#FDE725 100.0%)"));
  assert.deepEqual(L.ticks.map((t) => t.label), ["0 ms", "25 ms", "50 ms", "75 ms", "100 ms"]);
  assert.equal(L.ticks[0].color, "#440154");
  assert.equal(L.rule, O.rule);
  assert.deepEqual(L.none, {color: NO_DATA, label: "no data"});
  assert.deepEqual(legendModel(O).ticks.map((t) => t.value), [1, 3.25, 5.5, 7.75, 10]);  // the overlay's own numbers
  const log = overlay({scale: {kind: "continuous", name: "viridis", stops: VIRIDIS, min: null, max: null, log: true}});
  assert.deepEqual(legendModel(log, [1, 100], 3).ticks.map((t) => Math.round(t.value)), [1, 10, 100]);
  assert.equal(legendModel(overlay(), [4, 4]).ticks.length, 1);  // one number: one tick
  assert.equal(legendModel(overlay({instr: [null, null, null, null], value: [null, null, null]})).ticks.length, 0);
});

test("a plan's overlays and one by name, from the payload's {shown, plans}", () => {
  const data = {shown: "lat", plans: {forward: [overlay()], decode: []}};
  assert.equal(planOverlays(data, "forward").length, 1);
  assert.deepEqual(planOverlays(data, "nope"), []);
  assert.deepEqual(planOverlays(null, "forward"), []);
  assert.equal(findOverlay(data, "forward", "lat").name, "lat");
  assert.equal(findOverlay(data, "forward", "x"), null);
  assert.equal(findOverlay(data, "forward", null), null);
});

test("names and units stay text: the module returns them as given, for textContent or ptext", () => {
  const O = overlay({label: "<img src=x onerror=alert(1)>", unit: "<b>"});
  assert.equal(hoverLine(O, "instr", 0), "<img src=x onerror=alert(1)>: 1 <b>");  // the caller escapes
});
