// A big pair's diff marks (explorer/frontend/diff/sides.js): the payload's columns as lookups, the changes each
// group of the overview holds, and the rings / "Δn" badges over the nodes drawn.
import test from "node:test";
import assert from "node:assert/strict";
import {changeSummary, counterpartGroup, diffIndex, groupChanges, markItems} from "../../explorer/frontend/diff/sides.js";

// 6 instructions; groups: 0 = root [0, 6), 1 = [0, 3), 2 = [3, 6), 3 = [3, 4) (inside 2)
const G = {start: [0, 0, 3, 3], stop: [6, 3, 6, 4]};
// tensors 10..14 with their home instruction (14 is used by no instruction: home -1)
const TT = {index: [10, 11, 12, 13, 14], home: [0, 2, 3, 5, -1]};
// tensor status codes 0 = device, 1 = offset; op status codes (after them) 0 = changed
const marks = {v: [11, 12, 13, 14], vs: [1, 0, 0, 0], i: [3, 4], is: [0, 0]};

test("groupChanges counts a tensor at its home instruction and an op at itself, per status", () => {
  const gc = groupChanges(G, 6, TT, marks, 2, 1);
  assert.deepEqual(Array.from(gc.total), [5, 1, 4, 2]);  // %14 (no home) is in no group
  assert.deepEqual(Array.from(gc.by[2]), [2, 0, 2]);
  assert.deepEqual(Array.from(gc.by[1]), [0, 1, 0]);
  assert.deepEqual(Array.from(gc.top), [0, 1, 0, 0], "the first status in the legend's order that a group holds");
  assert.equal(gc.nT, 2);
});

test("groupChanges: no changes, no counts", () => {
  const gc = groupChanges(G, 6, TT, {v: [], vs: [], i: [], is: []}, 2, 1);
  assert.deepEqual(Array.from(gc.total), [0, 0, 0, 0]);
  assert.deepEqual(Array.from(gc.top), [-1, -1, -1, -1]);
});

test("markItems rings changed tensors and ops in their status colour and badges groups holding changes", () => {
  const gc = groupChanges(G, 6, TT, marks, 2, 1);
  const styles = {tensor: [{color: "#E3008C", width: 3.5}, {color: "#8C959F", width: 2}], op: [{color: "#AA0000", width: 3}]};
  // drawn now: group 1 folded, tensor 12 and op 3 single nodes, group 3 folded, tensor 10 unchanged
  const f = {nodes: [["g", 1], ["v", 12], ["i", 3], ["g", 3], ["v", 10], ["g", 0]], x: [0, 1, 2, 3, 4, 5], y: [0, 1, 2, 3, 4, 5]};
  const sym = (nd) => nd[0] + nd[1];
  const out = markItems(f, new Map([[11, 1], [12, 0], [13, 0]]), new Map([[3, 0], [4, 0]]), gc, styles, sym);
  assert.deepEqual(out.marks.map((m) => [m.symbol, m.color, m.x, m.y]),
                   [["g1", "#8C959F", 0, -0], ["v12", "#E3008C", 1, -1], ["i3", "#AA0000", 2, -2], ["g3", "#E3008C", 3, -3],
                    ["g0", "#E3008C", 5, -5]]);
  assert.ok(out.marks.every((m) => m.width >= 2.5));
  assert.deepEqual(out.texts.map((t) => [t.text, t.x]), [["\u03941", 0], ["\u03942", 3], ["\u03945", 5]]);
});

test("diffIndex: pairs both ways, statuses, instruction pairs and changed pairs' texts", () => {
  const P = {marks: {a: {v: [1], vs: [0], i: [2], is: [0]}, b: {v: [], vs: [], i: [], is: []}},
             ipairs: {a: {i: [0, 2], o: [0, 3]}, b: {i: [0, 3], o: [0, 2]}},
             vd: {a: {v: [1], t: [0]}, b: {v: [5], t: [0]}}, pairs: {a: [0, 1], b: [4, 5]}};
  const I = diffIndex(P);
  assert.equal(I.pair.a.get(1), 5);
  assert.equal(I.pair.b.get(4), 0);
  assert.equal(I.pair.a.get(9), undefined);
  assert.equal(I.status.a.get(1), 0);
  assert.equal(I.opStatus.a.get(2), 0);
  assert.equal(I.ipair.b.get(3), 2);
  assert.equal(I.text.b.get(5), 0);
});

test("counterpartGroup: the other side's group at the same depth holding the first paired instruction", () => {
  // this side: root [0, 6) -> 1 [0, 3), 2 [3, 6) -> 3 [3, 4), 4 [4, 6)
  const A = {parent: [-1, 0, 0, 2, 2], start: [0, 0, 3, 3, 4], stop: [6, 3, 6, 4, 6], childStart: [0, 2, 2, 4, 4, 4], children: [1, 2, 3, 4]};
  // the other: one instruction more at the front; root [0, 7) -> 1 [0, 4), 2 [4, 7) (no deeper groups)
  const B = {parent: [-1, 0, 0], start: [0, 0, 4], stop: [7, 4, 7], childStart: [0, 2, 2, 2], children: [1, 2]};
  const ipair = new Map([[0, 1], [1, 2], [2, 3], [4, 5], [5, 6]]);  // #3 of A has no counterpart
  assert.equal(counterpartGroup(A, B, 1, ipair), 1);
  assert.equal(counterpartGroup(A, B, 2, ipair), 2, "#3 unpaired: the first paired one, #4 -> #5");
  assert.equal(counterpartGroup(A, B, 4, ipair), 2, "B is shallower there: its deepest group holding #6");
  assert.equal(counterpartGroup(A, B, 3, ipair), -1, "nothing of group 3 is paired");
  assert.equal(counterpartGroup(A, B, 0, ipair), -1, "the root has no counterpart to open");
});

test("changeSummary says what the plan's diff changed, a pair counted once, before anything is selected", () => {
  const statuses = {tensor: [{color: "#E3008C", label: "moved to another device"}, {color: "#1A7F37", label: "only in B (added)"},
                             {color: "#CF222E", label: "only in A (removed)"}],
                    op: [{color: "#E3008C", label: "op replaced, or its output moved"}, {color: "#1A7F37", label: "op only in B"}]};
  // 2 tensors moved (ringed on both sides), 3 copies' outputs added and 1 copy added in B, one op replaced
  const marks = {a: {v: [5, 7], vs: [0, 0], i: [2], is: [0]}, b: {v: [9, 11, 12, 13, 14], vs: [0, 0, 1, 1, 1], i: [3, 4], is: [0, 1]}};
  const html = changeSummary({label: "forward <b>", marks, statuses}, "<p class='hint'>click</p>");
  const text = html.replace(/<[^>]*>/g, "|").replace(/\|+/g, "|");
  assert.ok(text.includes("What changed in forward &lt;b&gt;"), text);
  assert.ok(text.includes("2 tensors: moved to another device") && text.includes("3 tensors: only in B (added)"), text);
  assert.ok(text.includes("1 op: op replaced, or its output moved") && text.includes("1 op: op only in B"), text);
  assert.ok(!text.includes("removed"), "a status nothing has is not listed");
  assert.ok(html.endsWith("<p class='hint'>click</p>"), "how to select, under it");
  const none = changeSummary({label: "f", marks: {a: {v: [], vs: [], i: [], is: []}, b: {v: [], vs: [], i: [], is: []}}, statuses}, "");
  assert.ok(none.includes("nothing: A and B place every tensor and op alike"), none);
});
