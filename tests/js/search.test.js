// The search box: the rules of explorer.views.state.selection.search (Python), so page and notebook agree.
import test from "node:test";
import assert from "node:assert/strict";
import {search} from "../../explorer/frontend/shell/search.js";

const P = {nValues: 10, nInstructions: 4,
           labels: {v: {1: "x", 3: "Linear.weight", 5: "x_cuda"}, i: ["aten::add.out", "et_copy::_h2d_copy.out", "aten::relu.out", "Backend"]}};

test("%N selects any value, even one that is not a tensor", () => {
  assert.deepEqual(search(P, "%7"), {values: [7], instructions: [], query: "%7"});
  assert.deepEqual(search(P, "%3").values, [3]);
  assert.deepEqual(search(P, "%10").values, []);
  assert.deepEqual(search(P, "  4 ").values, [4]);
});

test("#N selects an instruction", () => {
  assert.deepEqual(search(P, "#2"), {values: [], instructions: [2], query: "#2"});
  assert.deepEqual(search(P, "#4").instructions, []);
});

test("text matches tensor and op names, case-insensitively", () => {
  assert.deepEqual(search(P, "X"), {values: [1, 5], instructions: [], query: "X"});
  assert.deepEqual(search(P, "h2d").instructions, [1]);
  assert.deepEqual(search(P, "out").instructions, [0, 1, 2]);
  assert.deepEqual(search(P, "   "), {values: [], instructions: []});
});
