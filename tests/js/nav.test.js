// Navigation of a big graph (explorer/frontend/panels/nav.js): the view it opens at, the minimap's maps.
import test from "node:test";
import assert from "node:assert/strict";
import {centredOn, clearEdges, EDGE_PX, extent, mapFor, readableView, READABLE} from "../../explorer/frontend/panels/nav.js";

test("a graph that fits at a readable scale is shown whole", () => {
  const v = readableView({x0: 0, x1: 4, y0: -10, y1: 0}, {w: 800, h: 600});
  assert.equal(v.all, true);
  assert.ok(v.x[0] <= 0 && v.x[1] >= 4 && v.y[0] <= -10 && v.y[1] >= 0);
});

test("a wide graph opens at a readable scale, at its top, around its top rows' nodes", () => {
  const nodes = [];
  for (let i = 0; i < 400; i++) nodes.push([i, 0]);  // 400 sources in the top row
  for (let j = 1; j < 300; j++) nodes.push([200, -j]);  // a long chain under the middle
  const v = readableView(extent(nodes), {w: 880, h: 600}, {nodes});
  assert.equal(v.all, false);
  assert.ok(Math.abs(880 / (v.x[1] - v.x[0]) - READABLE.x) < 1e-9, "exactly the readable scale across");
  assert.ok(Math.abs(600 / (v.y[1] - v.y[0]) - READABLE.y) < 1e-9, "and down");
  assert.ok(v.y[1] > 0 && v.y[0] > -40, "the top layers");
  assert.ok(v.x[0] < 200 && v.x[1] > 200, "around the middle of what is in view");
});

test("a narrow part is not blown up past the largest scale", () => {
  const v = readableView({x0: 0, x1: 0, y0: -2, y1: 0}, {w: 900, h: 600}, {pad: 0.3});
  assert.ok(900 / (v.x[1] - v.x[0]) <= 120 + 1e-9 && 600 / (v.y[1] - v.y[0]) <= 44 + 1e-9);
  assert.ok(v.x[0] <= 0 && v.y[1] >= 0, "its top left kept in view");
});

test("the minimap's maps invert and keep the plot's aspect", () => {
  const m = mapFor({x0: 0, x1: 100, y0: -50, y1: 0}, 180, 120, 4, 2);
  const [px, py] = m.toPx(30, -20), back = m.toData(px, py);
  assert.ok(Math.abs(back[0] - 30) < 1e-9 && Math.abs(back[1] + 20) < 1e-9);
  const a = m.toPx(0, 0), b = m.toPx(100, -50);
  assert.ok(a[0] >= 4 - 1e-9 && b[0] <= 176 + 1e-9 && a[1] >= 4 - 1e-9 && b[1] <= 116 + 1e-9, "fits inside");
  assert.ok(Math.abs((b[1] - a[1]) / (b[0] - a[0]) - 1) < 1e-9, "50 y units at aspect 2 draw as tall as 100 x units");
  assert.deepEqual(centredOn({x: [0, 10], y: [-4, 0]}, [50, -20]), {"xaxis.range": [45, 55], "yaxis.range": [-22, -18]});
});

test("a view keeps its top and bottom rows a label's room from the plot's edges", () => {
  // 33 layers squeezed into 594 px with half a layer of pad: the top row 9 px from the edge (a profile's graph)
  const px = 594, y = clearEdges([-32.5, 0.5], -32, 0, px);
  const per = px / (y[1] - y[0]);
  assert.ok((y[1] - 0) * per >= EDGE_PX - 0.01 && (-32 - y[0]) * per >= EDGE_PX - 0.01, JSON.stringify(y));
  assert.ok(y[1] - y[0] < 35, "a few px more, not a smaller graph");
  // room enough already: unchanged; an end outside the range (a window at the top of a long graph) is left alone
  assert.deepEqual(clearEdges([-10, 2], -9, 0, 600), [-10, 2]);
  const top = clearEdges([-20, 0.2], -300, 0, 400);
  assert.equal(top[0], -20);
  assert.ok((top[1] - 0) * 400 / (top[1] - top[0]) >= EDGE_PX - 0.01);
});
