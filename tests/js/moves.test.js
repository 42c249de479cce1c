// What-if moves in the app (explorer/frontend/shell/moves.js): the moves list, the commands written from it, the devices
// offered, and the selector a selection maps to (the Python side checks these selectors against
// explorer.whatif.predict.select on real exports: tests/test_whatif_ui.py).
import test from "node:test";
import assert from "node:assert/strict";
import {addMove, cliLine, deviceChoices, fileWord, originsOf, parseMove, predictedSelectorOf, pythonCall, selectorOf, shellQuote,
  undoMove, writerOf} from "../../explorer/frontend/shell/moves.js";

test("parseMove splits at the last '=' as parse_moves does", () => {
  assert.deepEqual(parseMove("delegate:*=cuda:0"), ["delegate:*", "cuda:0"]);
  assert.deepEqual(parseMove("group:a=b=cpu"), ["group:a=b", "cpu"]);
  assert.equal(parseMove("=cuda:0"), null);
  assert.equal(parseMove("nothing"), null);
});

test("addMove appends, a later move of the same selector replaces the earlier; undoMove takes one back", () => {
  let moves = addMove([], "@3=cuda:0");
  moves = addMove(moves, "delegate:1=cuda:0");
  moves = addMove(moves, "@3=cuda:1");
  assert.deepEqual(moves, ["delegate:1=cuda:0", "@3=cuda:1"]);
  assert.deepEqual(undoMove(moves), ["delegate:1=cuda:0"]);
  assert.deepEqual(undoMove(moves, 0), ["@3=cuda:1"]);
  assert.deepEqual(undoMove([], undefined), []);
});

test("shellQuote leaves safe words bare and quotes the rest, a quote included", () => {
  assert.equal(shellQuote("@3=cuda:0"), "@3=cuda:0");
  assert.equal(shellQuote("delegate:*=cuda:0"), "'delegate:*=cuda:0'");
  assert.equal(shellQuote("my model.pte"), "'my model.pte'");
  assert.equal(shellQuote("it's$(rm -rf x).pte"), "'it'\\''s$(rm -rf x).pte'");
});

test("cliLine and pythonCall: the whatif command and the what_if call, every name quoted", () => {
  const file = "dir/it's \"x\".pte", moves = ["delegate:*=cuda:0", "group:layers.1=cuda:1"];
  assert.equal(cliLine(file, moves, ["--method", "forward"]),
    "device-explorer whatif 'dir/it'\\''s \"x\".pte' --move 'delegate:*=cuda:0' --move group:layers.1=cuda:1 --method forward -o whatif.html");
  assert.equal(pythonCall(file, moves, ["method='forward'"]),
    "explorer.what_if(explorer.load(\"dir/it's \\\"x\\\".pte\"), [\"delegate:*=cuda:0\", \"group:layers.1=cuda:1\"], method='forward')");
  assert.equal(pythonCall("m.pte", []), "explorer.what_if(explorer.load(\"m.pte\"), [])");
});

test("a file or a move starting with '-' cannot pass for an option: ./ before the file, --move= joined", () => {
  assert.equal(fileWord("-x.pte"), "./-x.pte");
  assert.equal(fileWord("--help"), "./--help");
  assert.equal(fileWord("-it's.pte"), "'./-it'\\''s.pte'");
  assert.equal(fileWord("/abs/-x.pte"), "/abs/-x.pte");
  assert.equal(cliLine("-o.pte", ["-w=cpu", "@1=cuda:0"]),
    "device-explorer whatif ./-o.pte --move=-w=cpu --move @1=cuda:0 -o whatif.html");
});

test("deviceChoices: cpu, the known devices, and a new cuda:N after the highest", () => {
  assert.deepEqual(deviceChoices(["cpu"]).map((d) => [d.name, d.fresh]), [["cpu", false], ["cuda:0", true]]);
  assert.deepEqual(deviceChoices(["cuda:1", "cpu", "cuda:0", "cuda:1"]).map((d) => d.name), ["cpu", "cuda:1", "cuda:0", "cuda:2"]);
  assert.deepEqual(deviceChoices(["<b>", "cpu"]).map((d) => d.name), ["cpu", "cuda:0"], "not a device name: not offered");
});

// a plan's tables, the columns selectorOf reads (views/payload/plan.py): 6 instructions
// #0 aten::add.out (kernel, cpu) #1 delegate 0 (cuda:0) #2 et_copy::_d2h_copy (copy) #3 aten::copy_ (in-place kernel)
// #4 a delegate call of delegate 1 (cpu) #5 a jump (other); values: %7 written by #0, %8 by #2, %9 an input
const L = {
  m: 6,
  names: {opKinds: ["kernel", "delegate", "copy", "other"]},
  ops: {kind: [0, 1, 2, 0, 1, 3], dev: [0, 1, 0, 0, 0, -1], op: [0, 1, 2, 3, 1, 4],
        opTable: [["aten::add.out", "add", "KernelCall"], ["BackendX", "BackendX", "DelegateCall"],
                  ["et_copy::_d2h_copy.out", "_d2h_copy", "KernelCall"], ["aten::copy_", "copy_", "KernelCall"],
                  ["JumpFalseCall", "JumpFalseCall", "JumpFalseCall"]]},
  delegateOf: [-1, 0, -1, -1, 1, -1],
  devices: [{name: "cpu"}, {name: "cuda:0"}],
  flow: {i: [0, 0, 1, 2, 2], v: [9, 7, 7, 7, 8], w: [0, 1, 0, 0, 1]},
  groups: {label: ["forward", "layers.0", "layers.1", "3 kernels on cpu", "3 kernels on cpu"], dev: [-1, 1, 0, 0, 0]},
};

test("selectorOf: a delegate call is delegate:N, a kernel @N; copies, write-backs and jumps cannot move, and say why", () => {
  assert.deepEqual(selectorOf(L, "instr", 1), {selectors: ["delegate:0"], what: "delegate 0", current: "cuda:0"});
  assert.deepEqual(selectorOf(L, "instr", 4).selectors, ["delegate:1"]);
  assert.deepEqual(selectorOf(L, "instr", 0), {selectors: ["@0"], what: "instruction #0", current: "cpu"});
  for (const [i, why] of [[2, /device copy/], [3, /in-place/], [5, /runs on no device/], [9, /no such/]]) {
    const got = selectorOf(L, "instr", i);
    assert.deepEqual(got.selectors, [], String(i));
    assert.match(got.why, why);
  }
});

test("selectorOf: a tensor moves with the op writing it; one nothing writes cannot", () => {
  assert.equal(writerOf(L, 7), 0);
  assert.deepEqual(selectorOf(L, "value", 7).selectors, ["@0"]);
  assert.match(selectorOf(L, "value", 7).what, /the op writing it/);
  assert.deepEqual(selectorOf(L, "value", 8).selectors, [], "written by a copy");
  assert.deepEqual(selectorOf(L, "value", 9).selectors, []);
  assert.match(selectorOf(L, "value", 9).why, /nothing in the plan writes it/);
});

test("selectorOf: a group is group:LABEL when its label is its own; the root and shared labels are not", () => {
  assert.deepEqual(selectorOf(L, "group", 2), {selectors: ["group:layers.1"], what: "group layers.1", current: "cpu"});
  assert.deepEqual(selectorOf(L, "group", 3).selectors, []);
  assert.match(selectorOf(L, "group", 4).why, /same label/);
  assert.deepEqual(selectorOf(L, "group", 0).selectors, []);
  // with an ETRecord, group:PATH reads module paths: only a group labelled by one is offered
  assert.deepEqual(selectorOf(L, "group", 2, {modules: {path: ["", "layers.1"]}}).selectors, ["group:layers.1"]);
  assert.match(selectorOf(L, "group", 1, {modules: {path: ["", "layers.1"]}}).why, /not one module/);
});

test("predictedSelectorOf maps the prediction's instructions to the original's selectors through the origins", () => {
  // B: #0 an h2d copy (no origin), #1 delegate 0 (from A's #1), #2 a region standing for A's #0 and #3, #3 from A's #4
  const LB = Object.assign({}, L, {ops: Object.assign({}, L.ops, {dev: [1, 1, 1, 0]}), m: 4,
                                   flow: {i: [1, 2], v: [20, 21], w: [1, 1]}});
  const O = {start: [0, 0, 1, 3, 4], orig: [1, 0, 3, 4]};
  assert.deepEqual(originsOf(O, 2), [0, 3]);
  assert.deepEqual(originsOf(undefined, 2), [2], "a plan no move changed: the same instruction");
  assert.match(predictedSelectorOf(L, LB, O, "instr", 0).why, /copy the prediction inserted/);
  assert.deepEqual(predictedSelectorOf(L, LB, O, "instr", 1), {selectors: ["delegate:0"], what: "delegate 0", current: "cuda:0"});
  const region = predictedSelectorOf(L, LB, O, "instr", 2);
  assert.deepEqual(region.selectors, ["@0"], "the write-back it stands for cannot move; the add can");
  assert.equal(region.current, "cuda:0");
  assert.deepEqual(predictedSelectorOf(L, LB, O, "value", 21).selectors, ["@0"], "a tensor: its writer's origins");
  // a group of B (instructions [start, stop)): every original instruction its instructions stand for that can move
  const LG = Object.assign({}, LB, {groups: {label: ["forward", "region", "copies"], dev: [-1, 1, 1], start: [0, 1, 0], stop: [4, 3, 1]}});
  const group = predictedSelectorOf(L, LG, O, "group", 1);
  assert.deepEqual(group.selectors, ["delegate:0", "@0"], "delegate 0 and the region's add (not its write-back)");
  assert.equal(group.current, "cuda:0");
  assert.match(predictedSelectorOf(L, LG, O, "group", 2).why, /nothing it stands for can move/);
  assert.match(predictedSelectorOf(L, LG, O, "group", 0).why, /the whole plan/);
});
