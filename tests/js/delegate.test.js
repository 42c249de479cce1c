// Opening a delegate in place (explorer/frontend/panels/delegate.js): where the inside goes, how the outer graph moves,
// the traces drawn, and that every string from the file is escaped.
import test from "node:test";
import assert from "node:assert/strict";
import {boxCaption, boxShape, innerDetails, insideLayout, insideTraces, movePoint, moveSegments} from "../../explorer/frontend/panels/delegate.js";

// XNNPACK's conv delegate of tests/fixtures/companions/xnnpack_multi.pte, as explorer.views.payload.companions sends it
const D = {instruction: 0, delegate: 0, backend: "XnnpackBackend", device: "cuda:0", color: "#E69F00",
  graph: {op: ["XNNStaticTranspose", "XNNConv2d", "XNNStaticTranspose"], in: [[0], [1, 2, 4], [3]], out: [[1], [3], [5]],
          depth: [0, 1, 2], col: [0, 0, 0], width: 1,
          values: {id: [0, 1, 2, 3, 4, 5], label: ["fp32[1,3,4,4]", "fp32[1,4,4,3]", "fp32[4,3,3,3]", "fp32[1,4,4,4]", "fp32[4]",
                   "fp32[1,4,4,4]"], kind: ["input", "internal", "constant", "internal", "constant", "output"]},
          bindIn: [[0, 7]], bindOut: [[5, 9]]}};

test("the inside opens under the diamond, one layer per depth, centred on it", () => {
  const lay = insideLayout(D, 2, -3);
  assert.deepEqual(lay.x, [2, 2, 2]);
  assert.ok(lay.y[0] < -3 && lay.y[1] < lay.y[0] && lay.y[2] < lay.y[1], "depth grows downwards");
  assert.ok(lay.bottom < lay.y[2], "the box holds every inner node");
  assert.equal(lay.bottom, -3 - lay.H);
  const wide = insideLayout({graph: {depth: [0, 0, 1], col: [0, 1, 0], width: 2}}, 0, 0);
  assert.equal(wide.x[0], -wide.x[1], "a layer's nodes are centred under the diamond");
});

test("the box's top stays clear of the diamond's label and holds the first inner node", () => {
  // the diamond's name is centred on it (plotly text "middle right"): ~0.3 of a layer below its centre at a readable
  // scale, where a box top 0.15 below it ran through the letters
  const lay = insideLayout(D, 2, -3), box = boxShape(D, lay);
  assert.ok(lay.y0 - box.y1 >= 0.35, "room for the diamond's label above the box");
  assert.ok(box.y1 - lay.y[0] >= 0.35, "room for the first inner node's label inside the box");
  assert.ok(box.y0 < lay.y[lay.y.length - 1], "the box holds the last inner node");
});

test("the outer graph makes room: below moves down, layer-mates move aside, the rest stays", () => {
  const ex = {x0: 2, y0: -3, W: 2, H: 4, bottom: -7};
  assert.deepEqual(movePoint(5, -4, ex), [5, -8]);
  assert.deepEqual(movePoint(5, -3, ex), [6, -3]);
  assert.deepEqual(movePoint(0, -3, ex), [-1, -3]);
  assert.deepEqual(movePoint(2, -3, ex), [2, -3], "the diamond heads its box");
  assert.deepEqual(movePoint(9, -1, ex), [9, -1]);
  assert.deepEqual(movePoint(null, null, ex), [null, null], "segment separators stay");
  // an edge into the diamond ends at it; an edge out of it starts at the bottom of the box
  const [x, y] = moveSegments([1, 2, null, 2, 2, null], [-2, -3, null, -3, -4, null], ex);
  assert.deepEqual(x, [1, 2, null, 2, 2, null]);
  assert.deepEqual(y, [-2, -3, null, -7, -8, null]);
});

test("inner edges, joins to the outer tensors and nodes coloured by the delegate's device", () => {
  const lay = insideLayout(D, 0, 0);
  const outer = new Map([["v7", [-1, 1]], ["v9", [0, -9]]]);
  const [edges, joins, nodes] = insideTraces(D, lay, outer);
  assert.equal(edges.x.filter((v) => v === null).length, 2, "two producer -> consumer edges");
  assert.deepEqual(joins.x, [-1, 0, null, 0, 0, null], "outer %7 -> the node reading input 0; the node writing 5 -> %9");
  assert.deepEqual(joins.y.slice(0, 2), [1, lay.y[0]]);
  assert.equal(nodes.marker.color, "#E69F00");
  assert.deepEqual(nodes.customdata, ["d0:0", "d0:1", "d0:2"]);
  assert.match(nodes.hovertext[1], /XNNConv2d/);
  assert.match(nodes.hovertext[1], /fp32\[4,3,3,3\] \(constant\)/);
});

test("names from the file are escaped in hover text, captions and details", () => {
  const evil = Object.assign({}, D, {backend: "<img src=x onerror=alert(1)>", device: "cuda:0<b>"});
  const lay = insideLayout(evil, 0, 0);
  const [, , nodes] = insideTraces(evil, lay, new Map());
  for (const text of [nodes.hovertext[0], boxCaption(evil, lay).text, innerDetails(evil, 1)]) {
    assert.ok(!text.includes("<img") && !text.includes("cuda:0<b>"), text);
  }
  assert.match(innerDetails(evil, 1), /&lt;img src=x/);
});
