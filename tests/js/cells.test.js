// A binned memory lane's cells (explorer/frontend/panels/cells.js): exact coverage, hover points, pixels.
import test from "node:test";
import assert from "node:assert/strict";
import {occupancy, cellAt, cellLines, cellPixels, cellImage} from "../../explorer/frontend/panels/cells.js";

// tensors as [x0, x1, y0, y1] (instructions, bytes), looked up by index
const R = [[-0.5, 1.5, 0, 4], [0.5, 3.5, 2, 8], [2.5, 3.5, 6, 6]];
const rect = (v) => R[v];

test("each cell holds the exact share of its area that tensors cover, and who touches it", () => {
  // window [-0.5, 3.5] in 2 columns of 2 steps; 8 bytes in 2 rows of 4
  const g = occupancy([0, 1, 2], rect, [-0.5, 3.5], 8, 2, 2);
  assert.equal(g.step, 2); assert.equal(g.rise, 4);
  // cell (0, 0): tensor 0 covers all 2 x 4; tensor 1 covers 1 x 2 more -> capped at full
  assert.equal(g.share[0], 1);
  assert.equal(g.count[0], 2);
  // cell (1, 0): tensor 1 covers 2 steps x 2 bytes of 8 -> 0.5
  assert.equal(g.share[1], 0.5);
  // cell (0, 1): tensor 1 covers 1 step x 4 bytes -> 0.5; cell (1, 1): 2 x 4 -> 1
  assert.equal(g.share[2], 0.5); assert.equal(g.share[3], 1);
  // a tensor of no bytes covers nothing and touches nothing
  assert.deepEqual(Array.from(g.count), [2, 1, 1, 1]);
  // the largest (bytes x lifetime) touching each cell: tensor 1 (3 x 6 = 18) over tensor 0 (2 x 4 = 8)
  assert.deepEqual(Array.from(g.top), [1, 1, 1, 1]);
});

test("a window cuts tensors at its edges", () => {
  const g = occupancy([0], rect, [0.5, 2.5], 8, 1, 1);  // tensor 0 covers [0.5, 1.5] of [0.5, 2.5]: half the steps
  assert.equal(g.share[0], 0.5 * 4 / 8);
});

test("the pointer finds the non-empty cell under it, and nothing outside the cells", () => {
  const g = occupancy([0], rect, [-0.5, 3.5], 8, 2, 2);  // only cell (0, 0) holds a tensor
  assert.equal(cellAt(g, 0, 1), 0);
  assert.equal(cellAt(g, 1.49, 3.99), 0);
  assert.equal(cellAt(g, 1.5, 1), -1);  // cell (1, 0): empty
  assert.equal(cellAt(g, 0, 4), -1);    // cell (0, 1): empty
  assert.equal(cellAt(g, -0.6, 1), -1); // left of the window
  assert.equal(cellAt(g, 0, 8.5), -1);  // above the arena
});

test("a cell says what it holds: instructions, share in use, tensors, the largest (names stay text)", () => {
  const g = occupancy([0], rect, [-0.5, 3.5], 8, 2, 2);
  const names = ["act<0>", "b", "c"], bytes = [16, 24, 0];
  const t = cellLines(g, 0, 4, (v) => names[v], (v) => bytes[v]);
  assert.equal(t.head, "#0 – #1 · 100% in use · 1 tensor");
  assert.deepEqual(t.largest, ["act<0>", "16 B"]);  // shown with textContent: no escaping here
  assert.equal(t.centre, 0.5);
});

test("pixels: one per cell, top row the highest bytes, opacity from the share, empty cells clear", () => {
  const g = occupancy([1], rect, [-0.5, 3.5], 8, 2, 2);  // tensor 1: shares [[0.25, 0.5], [0.5, 1]] bottom row first
  const px = cellPixels(g, [10, 20, 30]);
  const alpha = (i, row) => px[4 * (row * 2 + i) + 3];
  assert.equal(alpha(1, 0), 255);  // top row (bytes 4-8), right column: full
  assert.equal(alpha(0, 0), Math.round(255 * (0.12 + 0.88 * 0.5)));
  assert.equal(alpha(0, 1), Math.round(255 * (0.12 + 0.88 * 0.25)));  // bottom row, left column: 1 step x 2 bytes of 8
  assert.deepEqual(Array.from(px.slice(0, 3)), [10, 20, 30]);
  const empty = cellPixels(occupancy([], rect, [-0.5, 3.5], 8, 2, 2), [10, 20, 30]);
  assert.ok(empty.every((b) => b === 0));
});

test("without a document (node) there is no image to make; the browser test checks the drawn one", () => {
  assert.equal(cellImage(occupancy([0], rect, [-0.5, 3.5], 8, 2, 2), [0, 0, 0], "x", "y", 1), null);
});

test("flagged tensors (a diff's changes) are counted per cell and named in what it says", () => {
  const g = occupancy([0, 1], rect, [-0.5, 3.5], 8, 2, 2, (v) => v === 1);
  assert.deepEqual(Array.from(g.flagged), [1, 1, 1, 1]);
  assert.equal(cellLines(g, 0, 4, (v) => "t" + v, () => 8, "changed").head, "#0 – #1 · 100% in use · 2 tensors (1 changed)");
  assert.equal(occupancy([0], rect, [-0.5, 3.5], 8, 2, 2).flagged, null);  // no flag: nothing counted
});
