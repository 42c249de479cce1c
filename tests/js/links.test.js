// Links that select (explorer/frontend/links.js): the hash read into a plan and a search text, and written back.
import test from "node:test";
import assert from "node:assert/strict";
import {linkOf, parseLink} from "../../explorer/frontend/links.js";

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
