// The frame's keyboard (explorer/frontend/host/keys.js): which press is ours, and the plan a step lands on.
import test from "node:test";
import assert from "node:assert/strict";
import {keyAction, keysHint, stepPlan} from "../../explorer/frontend/host/keys.js";

test("a key is ours only without modifiers, and typed text stays the field's", () => {
  assert.equal(keyAction({key: "/"}, false), "search");
  assert.equal(keyAction({key: "/"}, true), null);  // a "/" typed into the search box is text
  assert.equal(keyAction({key: "Escape"}, true), "clear-search");
  assert.equal(keyAction({key: "Escape"}, false), "clear");
  assert.equal(keyAction({key: "]"}, false), "next");
  assert.equal(keyAction({key: "["}, false), "previous");
  assert.equal(keyAction({key: "f", ctrlKey: true}, false), null);  // the browser's find
  assert.equal(keyAction({key: "/", metaKey: true}, false), null);
  assert.equal(keyAction({key: "a"}, false), null);
});

test("a plan step stays within the plans and says when there is nowhere to go", () => {
  const names = ["forward", "prefill", "decode"];
  assert.equal(stepPlan(names, "forward", 1), "prefill");
  assert.equal(stepPlan(names, "decode", 1), null);
  assert.equal(stepPlan(names, "forward", -1), null);
  assert.equal(stepPlan(names, "decode", -1), "prefill");
  assert.equal(stepPlan(names, "missing", 1), null);
});

test("the hint names the plan keys only when there are plans to step through", () => {
  assert.ok(!keysHint(1).includes("plan"));
  assert.ok(keysHint(2).includes("[ ] previous / next plan"));
  assert.ok(keysHint(1).startsWith("keys: / search"));
});
