// The search box: the rules of explorer.views.state.selection.search (Python), so page and notebook agree.
import test from "node:test";
import assert from "node:assert/strict";
import {queryProblem, search} from "../../explorer/frontend/shell/search.js";

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

test("@N (the links' form) is instruction N too", () => {
  assert.deepEqual(search(P, "@2"), {values: [], instructions: [2], query: "@2"});
});

test("a query shaped as an index that is none of the forms is not understood, never searched as other text", () => {
  for (const q of ["#@99", "%%3", "@-1", "#3a"]) {
    assert.deepEqual(search(P, q), {values: [], instructions: [], query: q}, q);
    assert.match(queryProblem(P, q), /is not understood: %N is a value, #N or @N an instruction/, q);
  }
  assert.ok(queryProblem(P, "#@99").startsWith("“#@99” is not understood"));
});

test("an index past the plan's end says so with the plan's range", () => {
  assert.equal(queryProblem(P, "#99"), "no instruction #99: this plan has #0–#3");
  assert.equal(queryProblem(P, "@4"), "no instruction #4: this plan has #0–#3");
  assert.equal(queryProblem(P, "%10"), "no value %10: this plan has %0–%9");
  assert.equal(queryProblem(P, "12"), "no value %12: this plan has %0–%9");
  assert.equal(queryProblem({nValues: 0, nInstructions: 0}, "#0"), "no instruction #0: this plan has none");
  for (const q of ["#2", "%3", "x", "h2d", "", "aten::add"]) assert.equal(queryProblem(P, q), "", q);
});

test("the details box says what a query that found nothing was: not understood, out of range, or nothing found", async () => {
  const {detailsHtml} = await import("../../explorer/frontend/app/details.js");
  const box = (/** @type {string} */ query) => detailsHtml(/** @type {any} */ (P), /** @type {any} */ ({}),
    {values: [], instructions: [], finding: null, query});
  assert.ok(box("#@99").includes("“#@99” is not understood") && !box("#@99").includes("nothing found"));
  assert.ok(box("#99").includes("no instruction #99: this plan has #0–#3"));
  assert.ok(box("zzz").includes("search “zzz”: nothing found"));
  assert.ok(box("<b>").includes("&lt;b&gt;"));
});
