// Selection overlays: which nodes get rings, which edges go bold, which blocks are outlined, and the SVG they
// become (explorer/frontend/highlight.js, overlay.js).
import test from "node:test";
import assert from "node:assert/strict";
import {blockRects, ringItems, rings} from "../../explorer/frontend/highlight.js";
import {ringPath, segmentsPath} from "../../explorer/frontend/overlay.js";

const nodes = new Map([["v1", [0, 0]], ["v2", [0, -2]], ["i0", [0, -1]]]);
const edges = [["v", 1, "i", 0], ["i", 0, "v", 2]];

test("a selected tensor gets a ring and its edges go bold", () => {
  const r = rings(nodes, edges, {0: "square"}, [1], []);
  assert.deepEqual(r.nodes, {x: [0], y: [0], symbol: ["circle-open"]});
  assert.deepEqual(r.edges, {x: [0, 0, null], y: [0, -1, null]});
});

test("a selected op rings with its own symbol and bolds both edges", () => {
  const items = ringItems(nodes, edges, {0: "square"}, [], [0]);
  assert.deepEqual(items.rings, [{x: 0, y: -1, symbol: "square-open"}]);
  assert.equal(items.edges[0].xs.length, 6);
  assert.deepEqual(ringItems(nodes, edges, {}, [99], []).rings, []);  // not drawn: nothing to ring
});

test("a bold edge follows its bends through the layers it passes", () => {
  const bent = [["v", 1, "v", 2, [0.5, -1]]];  // from v1 down to v2, bending at x 0.5 on the layer between
  assert.deepEqual(rings(nodes, bent, {}, [2], []).edges, {x: [0, 0.5, 0, null], y: [0, -1, -2, null]});
});

test("blocks of the chosen values become outline rectangles on their lane's axes", () => {
  const lane = {x: [1, 5], width: [2, 4], base: [0, 16], y: [16, 8], customdata: [3, 4], xaxis: "x2", yaxis: "y2"};
  assert.deepEqual(blockRects([lane], new Set([4])), [{x0: 3, x1: 7, y0: 16, y1: 24, xaxis: "x2", yaxis: "y2"}]);
  assert.deepEqual(blockRects([lane], new Set()), []);
});

test("overlay geometry: segment paths skip the separators, ring shapes follow the marker symbol", () => {
  const d = segmentsPath([0, 1, null, 2, 3, null], [0, 1, null, 0, 0, null], (v) => 10 * v, (v) => -10 * v);
  assert.equal(d, "M0.0,0.0L10.0,-10.0M20.0,0.0L30.0,0.0");
  // a bent edge (rings() emits its polyline: ends and bends, then null) is one unbroken line through every
  // point (issue 21 defect 1: read three at a time, its second half was dropped or joined the next edge)
  const r = rings(new Map([["v1", [0, 0]], ["i2", [4, -3]], ["v3", [6, -5]]]),
                  [["v", 1, "i", 2, [1, -1, 3, -2]], ["i", 2, "v", 3]], {}, [], [2]);
  const bent = segmentsPath(r.edges.x, r.edges.y, (v) => v, (v) => v);
  assert.equal(bent, "M0.0,0.0L1.0,-1.0L3.0,-2.0L4.0,-3.0M4.0,-3.0L6.0,-5.0");
  assert.match(ringPath("circle-open", 12), /^M12,0A12,12/);
  assert.match(ringPath("square-open", 12), /^M-12,-12H12V12H-12Z$/);
  assert.match(ringPath("diamond-open", 10), /^M0,-13L13,0/);
  assert.match(ringPath("triangle-down-open", 10), /Z$/);
});
