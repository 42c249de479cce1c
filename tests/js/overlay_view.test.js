// The overlay on the graph (explorer/frontend/overlay/view.js): lod/graph.js's traces recoloured (tensors, ops, folded
// groups by their numbers, an op drawn larger), one hover line each, the legend and the details row as escaped HTML.
// The overlay objects have the shape explorer/views/payload/overlays.py writes.
import test from "node:test";
import assert from "node:assert/strict";
import {detailRow, drawnIds, legendHtml, paintTraces} from "../../explorer/frontend/overlay/view.js";
import {NO_DATA, VIRIDIS} from "../../explorer/frontend/overlay/data.js";

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
