// A run's numbers in the details (explorer/frontend/profile/numerics.js): the rows of an instruction and of a tensor,
// A's and B's, escaped, with the head of each output and its statistics told apart and the marks carried as classes;
// the first divergence the button selects. The objects have the shape explorer/views/payload/numerics.py writes.
import test from "node:test";
import assert from "node:assert/strict";
import {firstDivergence, numericsRows, planNumerics} from "../../explorer/frontend/profile/numerics.js";

const PN = {
  rows: {"5": [["output 0 \u00b7 %20", "float32[1, 4] on cpu", ""], ["min / max / mean", "-0.37 / 0.27 / -0.07", ""],
               ["NaN / +Inf / \u2212Inf", "4 / 0 / 0 of 12", "bad"], ["gap vs B #1", "max|a-b| 0.0006 \u2014 first divergence", "first"]]},
  values: {"20": [["written by #5 \u00b7 %20", "<b>x</b> on cpu", ""]]},
  rowsB: {"1": [["gap vs A #5", "max|a-b| 0.0006", "first"]]}, valuesB: {},
  first: 5, firstB: 1, firstText: "first divergence: #5 (B #1)",
};
const N = {tol: 1e-4, against: "b.pte", plans: {forward: PN}};

test("an instruction's rows: heads and statistics told apart, marks as classes", () => {
  const rows = numericsRows(PN, "instr", 5);
  assert.equal(rows.length, 4);
  assert.match(rows[0][0], /dx-num-head/);
  assert.match(rows[1][0], /dx-num-sub/);
  assert.match(rows[2][1], /class='dx-num dx-num-bad'/);
  assert.match(rows[3][1], /dx-num-first/);
  assert.match(rows[3][0], /dx-num-head/);
});

test("a tensor's rows, B's side, and nothing for a group or an unknown node", () => {
  assert.match(numericsRows(PN, "value", 20)[0][1], /&lt;b&gt;x&lt;\/b&gt; on cpu/);  // text from the file stays text
  assert.match(numericsRows(PN, "instr", 1, "b")[0][0], /gap vs A #5/);
  assert.deepEqual(numericsRows(PN, "instr", 1), []);
  assert.deepEqual(numericsRows(PN, "group", 5), []);
  assert.deepEqual(numericsRows(null, "instr", 5), []);
  assert.deepEqual(numericsRows(Object.assign({}, PN, {rowsB: null}), "instr", 1, "b"), []);
});

test("the first divergence: both sides, or none", () => {
  assert.deepEqual(firstDivergence(planNumerics(N, "forward")), {a: 5, b: 1});
  assert.equal(firstDivergence(Object.assign({}, PN, {first: null, firstB: null})), null);
  assert.equal(planNumerics(N, "other"), null);
  assert.equal(planNumerics(N, "constructor"), null);
  assert.equal(planNumerics(undefined, "forward"), null);
});
