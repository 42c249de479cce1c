// The overlay on the graph (explorer/frontend/overlay/view.js): lod/graph.js's traces recoloured (tensors, ops, folded
// groups by their numbers, an op drawn larger), one hover line each, the legend and the details row as escaped HTML.
// The overlay objects have the shape explorer/views/payload/overlays.py writes.
import test from "node:test";
import assert from "node:assert/strict";
import {detailRow, drawnIds, legendHtml, overlayColours, paintTraces} from "../../explorer/frontend/overlay/view.js";
import {graphSets, mergeDomains, NO_DATA, pickList, VIRIDIS} from "../../explorer/frontend/overlay/data.js";

const T = {tensors: 0, ops: 1, groups: 2};
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
function traces() {  // as lod/graph.js builds them: tensors 0 and 1 drawn, ops 0 and 1, group 2 folded
  return [{customdata: [0, 1], hovertext: ["t0", "t1"], "marker.color": ["#0969DA", "#0969DA"]},
          {customdata: [0, 1], hovertext: ["o0", "o1"], "marker.size": [10, 12]},
          {customdata: [2], hovertext: ["g2"], "marker.color": ["#0969DA"]}];
}

test("the nodes drawn, as the graph's node ids", () => {
  assert.deepEqual(drawnIds(overlay(), traces(), T), [4, 5, 0, 1, 9]);
});

test("tensors, ops and folded groups take their numbers' colours over the span of what is drawn", () => {
  const t = traces(), dom = paintTraces(overlay(), t, T);
  assert.deepEqual(dom, [1, 10]);  // ops 1 and 3, tensor 1's 10, group 2's 5 (the module's)
  assert.deepEqual(t[0]["marker.color"], [NO_DATA, "#FDE725"]);
  assert.equal(t[1]["marker.color"][0], "#440154");
  assert.deepEqual(t[1]["marker.size"], [14, 16]);  // an op's fill shows: a third larger
  assert.deepEqual(t[0].hovertext, ["t0<br>lat: no data", "t1<br>lat: 10 ms"]);
  assert.deepEqual(t[1].hovertext, ["o0<br>lat: 1 ms", "o1<br>lat: 3 ms"]);
  assert.deepEqual(t[2].hovertext, ["g2<br>lat: 5 ms (layers.1's number)"]);
  const root = [{customdata: []}, {customdata: []}, {customdata: [0], hovertext: ["g0"]}];
  paintTraces(overlay(), root, T);
  assert.deepEqual(root[2].hovertext, ["g0<br>lat: 19 ms (sum of 4 entries)"]);
});

test("thresholds: the band's colour; the legend lists the bands, the no-data grey and the rule", () => {
  const O = overlay({scale: {kind: "thresholds", bounds: [2, 5], colors: ["#00FF00", "#FF0000"], labels: ["ok", "slow"]}});
  const t = traces();
  paintTraces(O, t, T);
  assert.deepEqual(t[1]["marker.color"], [NO_DATA, "#00FF00"]);
  assert.deepEqual(t[2]["marker.color"], ["#FF0000"]);
  const html = legendHtml(O, null);
  for (const part of ["&lt; 2 ms", "ok", "slow", "no data", "groups: sum", "a folded group shows the sum of its entries"]) {
    assert.ok(html.includes(part), part);
  }
});

test("a continuous legend shows the span's ends; one number, one swatch in the nodes' colour", () => {
  const O = overlay();
  assert.match(legendHtml(O, [1, 10]), /1 ms<\/span><span class='dx-ov-bar' style='background:linear-gradient\(to right, #440154 0\.0%.*10 ms/);
  const one = legendHtml(O, [5, 5]);
  assert.ok(one.includes("all 5 ms") && !one.includes("dx-ov-bar"));
  assert.ok(one.includes("background-color:#21918C"));  // the middle of viridis: what colorOf gives a lone number
});

test("names from the user or the file stay text in the legend, the details and the hover", () => {
  const evil = "<img src=x onerror=alert(1)>";
  const O = overlay({label: evil, unit: "</span>", note: "<b>", rule: "'\"><script>"});
  const html = legendHtml(O, [1, 10]);
  assert.ok(!html.includes("<img") && !html.includes("<script") && !html.includes("<b>"));
  assert.ok(html.includes("&lt;img src=x onerror=alert(1)&gt;"));
  const row = detailRow(O, "group", 1);
  assert.ok(!row.join("").includes("<img") && !row.join("").includes("<script") && row[0].includes("&lt;img"));
  const t = traces();
  paintTraces(O, t, T);
  assert.ok(t[0].hovertext.every((h) => !h.includes("<img")));
});

test("the details row: the number, a group's rule; nothing when no overlay is shown", () => {
  assert.deepEqual(detailRow(null, "instr", 0), ["", ""]);
  assert.deepEqual(detailRow(overlay(), "instr", 1), ["lat", "3 ms"]);
  const g = detailRow(overlay(), "group", 0);
  assert.equal(g[1], "19 ms (sum of 4 entries)<br><span class='dx-muted'>a folded group shows the sum of its entries</span>");
});

// ---- the diff: two graphs (its sides "a" and "b"), each coloured by its own overlay of the name picked ----

// a diff's overlays as views/payload/diff.py diff_overlays writes them: each side's {shown, plans}; the gap on A's
// 4 instructions (0.5 the largest) and on B's 3 (its #2 pairs with A's #3, and #1 holds A's #1-#2)
function diffOverlays() {
  const gapA = overlay({name: "gap", label: "gap", unit: "", aggregate: "max", instr: [0, 0.1, 0.1, 0.5], instrFrom: [-1, -1, -1, -1],
                        value: [null, null, null], modules: [], group: [0.5, 0.1, 0.5], groupCount: [4, 2, 2], groupFrom: [-1, -1, -1],
                        range: [0, 0.5], groupRange: [0.1, 0.5], note: "gap vs B"});
  const gapB = overlay({name: "gap", label: "gap", unit: "", aggregate: "max", m: 3, n: 2, instr: [0, 0.1, 0.5], instrFrom: [-1, -1, -1],
                        value: [null, null], modules: [], group: [0.5], groupCount: [3], groupFrom: [-1], range: [0, 0.5],
                        groupRange: [0.5, 0.5], note: "gap vs A"});
  const sizeB = overlay({name: "size", label: "size", m: 3, n: 2, value: [4, 8], instr: [null, null, null], instrFrom: [-1, -1, -1], modules: []});
  return {shown: "gap", sides: {a: {shown: "gap", plans: {forward: [gapA]}}, b: {shown: "gap", plans: {forward: [gapB, sizeB]}}}};
}
const opsTraces = (ids) => [{customdata: []}, {customdata: ids, hovertext: ids.map((i) => "#" + i), "marker.size": ids.map(() => 10)},
                            {customdata: []}];

test("a payload's overlays become each graph's: a program's one graph, a diff's two sides; the picker lists each name once", () => {
  const one = {shown: "lat", plans: {forward: [overlay()]}};
  assert.deepEqual(Object.keys(graphSets(one)), [""]);
  assert.equal(graphSets(one)[""], one);
  assert.deepEqual(graphSets(null), {});
  const sets = graphSets(diffOverlays());
  assert.deepEqual(Object.keys(sets), ["a", "b"]);
  assert.deepEqual(pickList(sets, "forward").map((O) => O.name), ["gap", "size"]);  // gap on both sides, once
  assert.equal(pickList(sets, "forward")[0].note, "gap vs B");  // A's first
  assert.deepEqual(pickList(sets, "decode"), []);
});

test("spans merge: the lowest low and the highest high; none numbered is null", () => {
  assert.deepEqual(mergeDomains([[0, 0.1], null, [0.05, 0.5]]), [0, 0.5]);
  assert.equal(mergeDomains([null, undefined]), null);
  assert.equal(mergeDomains([]), null);
});

test("both sides of a diff are coloured on one scale: the side painted first is drawn again once the other widens it", () => {
  const redrawn = [];
  const C = overlayColours(graphSets(diffOverlays()), "gap", (g) => redrawn.push(g));
  C.plan("forward", {a: T, b: T});
  assert.equal(C.shown(), "gap");
  // A draws only its #0-#2 (its #3 folded away, say): its own span is [0, 0.1]
  const a = opsTraces([0, 1, 2]);
  assert.deepEqual(C.paint("a", a), [0, 0.1]);
  assert.deepEqual(redrawn, []);
  assert.equal(a[1]["marker.color"][1], VIRIDIS[VIRIDIS.length - 1][1]);  // 0.1 the top, for now
  // B draws its #2 = 0.5: one span for both, and A is asked to draw again
  const b = opsTraces([0, 1, 2]);
  assert.deepEqual(C.paint("b", b), [0, 0.5]);
  assert.deepEqual(redrawn, ["a"]);
  assert.equal(b[1]["marker.color"][2], "#FDE725");
  assert.equal(b[1]["marker.color"][0], "#440154");
  // A drawn again: the same span, the same colour for the same number on both sides, no further redraw
  const a2 = opsTraces([0, 1, 2]);
  assert.deepEqual(C.paint("a", a2), [0, 0.5]);
  assert.deepEqual(redrawn, ["a"]);
  assert.equal(a2[1]["marker.color"][1], b[1]["marker.color"][1]);  // 0.1 on A and on B
  assert.notEqual(a2[1]["marker.color"][1], a[1]["marker.color"][1]);
  assert.ok(a2[1].hovertext[1].endsWith("gap: 0.1") && b[1].hovertext[2].endsWith("gap: 0.5"));
  // the legend: A's overlay (its note) over the span both are painted with
  const L = C.legend();
  assert.equal(L && L.O.note, "gap vs B");
  assert.deepEqual(L && L.dom, [0, 0.5]);
});

test("an overlay only one side has colours that side; picking another forgets the old span; none: device colours", () => {
  const redrawn = [];
  const C = overlayColours(graphSets(diffOverlays()), "gap", (g) => redrawn.push(g));
  C.plan("forward", {a: T, b: T});
  C.paint("a", opsTraces([0, 1, 2, 3]));
  C.paint("b", opsTraces([0, 1, 2]));
  C.want("size");
  assert.equal(C.shown(), "size");
  const a = opsTraces([0, 1]);
  assert.equal(C.paint("a", a), null);  // A has no "size": its device colours stay
  assert.equal(a[1]["marker.color"], undefined);
  const b = [{customdata: [0, 1], hovertext: ["t0", "t1"]}, {customdata: []}, {customdata: []}];
  assert.deepEqual(C.paint("b", b), [4, 8]);  // not widened by the gap's old span
  assert.deepEqual(redrawn, []);
  assert.equal(C.legend().O.name, "size");
  C.want("");
  assert.equal(C.shown(), "");
  assert.equal(C.paint("b", opsTraces([0])), null);
  assert.equal(C.legend(), null);
  // one program's overlays (graph "") under a diff's sides (a what-if's diff in the Explorer widget): none to pick
  const W = overlayColours(graphSets({shown: "lat", plans: {forward: [overlay()]}}), "lat", () => {});
  W.plan("forward", {a: T, b: T});
  assert.deepEqual(W.list(), []);
  assert.equal(W.shown(), "");
});

test("coloured: whether a graph is drawn coloured now (the picker redraws the graphs only when it was or will be)", () => {
  const C = overlayColours(graphSets(diffOverlays()), "", () => {});
  C.plan("forward", {a: T, b: T});
  C.paint("a", opsTraces([0, 1]));
  C.paint("b", opsTraces([0, 1]));
  assert.equal(C.coloured(), false, "device colours: nothing to take back");
  C.want("gap");
  C.paint("a", opsTraces([0, 1]));
  assert.equal(C.coloured(), true);
  C.want("size");  // a new overlay wanted: what was painted is forgotten until drawn again
  assert.equal(C.coloured(), false);
  C.paint("a", opsTraces([0, 1]));  // A has no "size"
  assert.equal(C.coloured(), false);
  C.paint("b", [{customdata: [0], hovertext: ["t0"]}, {customdata: []}, {customdata: []}]);
  assert.equal(C.coloured(), true);
  // one program's overlays under a what-if's sides: nothing ever coloured, so their arrival redraws nothing
  const W = overlayColours(graphSets({shown: "lat", plans: {forward: [overlay()]}}), "", () => {});
  W.plan("forward", {a: T, b: T});
  W.paint("a", opsTraces([0]));
  W.sets(graphSets({shown: "lat", plans: {forward: [overlay()]}}));
  assert.equal(W.coloured(), false);
  assert.equal(W.shown(), "");
});
