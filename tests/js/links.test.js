// Links that select (explorer/frontend/host/links.js): the hash read into a plan and a search text, and written back.
import test from "node:test";
import assert from "node:assert/strict";
import {diffLinkOf, linkOf, parseLink, sideNode} from "../../explorer/frontend/host/links.js";

test("a hash names a value, an instruction, a plan's instruction or a search", () => {
  const plans = ["forward", "decode"];
  assert.deepEqual(parseLink("#%12", plans), {plan: null, text: "%12"});
  assert.deepEqual(parseLink("#@5", plans), {plan: null, text: "#5"});
  assert.deepEqual(parseLink("#decode/@5", plans), {plan: "decode", text: "#5"});
  assert.deepEqual(parseLink("#layers.0%2Fwq", plans), {plan: null, text: "layers.0/wq"});  // not a plan: all text
  assert.deepEqual(parseLink("#aten%3A%3Arelu", plans), {plan: null, text: "aten::relu"});
  assert.deepEqual(parseLink("#%E0%A4%A", plans), {plan: null, text: "%E0%A4%A"});  // malformed escape: literal
  assert.deepEqual(parseLink("", plans), {plan: null, text: ""});
});

test("a selection writes the link that selects it again", () => {
  const plans = ["forward", "decode"];
  const cases = [[{plan: "forward", values: [12], instructions: []}, null, "%12"],
                 [{plan: "decode", values: [], instructions: [5]}, "decode", "#5"],
                 [{plan: "forward", values: [1, 2], instructions: [3], query: "aten::relu"}, null, "aten::relu"],
                 [{plan: "decode", values: [4], instructions: [], query: "%4"}, "decode", "%4"]];
  for (const [sel, plan, text] of cases) assert.deepEqual(parseLink("#" + linkOf(sel, "forward"), plans), {plan, text});
  assert.equal(linkOf({plan: "forward", values: [12], instructions: []}, "forward"), "%12");
  assert.equal(linkOf({plan: "decode", values: [], instructions: [5]}, "forward"), "decode/@5");
  assert.equal(linkOf({plan: "forward", values: [], instructions: []}, "forward"), "");
});

test("the diff's links name a node of one side, or a search of both", () => {
  const plans = ["forward"];
  const a12 = {plan: "forward", side: "a", values: {a: [12], b: [14]}, instructions: {a: [], b: []}};
  assert.equal(diffLinkOf(a12, "", "forward"), "a:%12");
  assert.deepEqual(sideNode(parseLink("#" + diffLinkOf(a12, "", "forward"), plans).text), {side: "a", values: [12], instructions: []});
  const b5 = {plan: "forward", side: "b", values: {a: [], b: []}, instructions: {a: [4], b: [5]}};
  assert.deepEqual(sideNode(parseLink("#" + diffLinkOf(b5, "", "forward"), plans).text), {side: "b", values: [], instructions: [5]});
  const found = {plan: "forward", side: "", values: {a: [1, 2], b: [3]}, instructions: {a: [], b: []}};
  assert.equal(diffLinkOf(found, "aten::add", "forward"), "aten%3A%3Aadd");
  assert.equal(sideNode(parseLink("#aten%3A%3Aadd", plans).text), null);
  assert.equal(diffLinkOf({side: "", values: {a: [], b: []}, instructions: {a: [], b: []}}, "", "forward"), "");
});
