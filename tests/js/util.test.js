// Helpers every panel uses: escaping (text from a .pte file), shortening, payload arrays, batched updates
// (numbers and bytes: format.test.js).
import test from "node:test";
import assert from "node:assert/strict";
import {arr, batch, esc, ptext, short, stages} from "../../explorer/frontend/util/common.js";

test("escaping leaves no markup", () => {
  const hostile = "<img src=x onerror=alert(1)>&\"'";
  assert.equal(ptext(hostile), "&lt;img src=x onerror=alert(1)&gt;&amp;\"'");
  assert.equal(esc(hostile), "&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#x27;");
  assert.equal(esc(42), "42");
});

test("shortened names end in an ellipsis", () => {
  assert.equal(short("abcdef", 4), "abc\u2026");
  assert.equal(short("abc", 4), "abc");
});

test("numpy arrays shipped as {dtype, bdata} decode to numbers", () => {
  const f64 = Buffer.from(new Float64Array([1.5, -2, 0]).buffer).toString("base64");
  assert.deepEqual(arr({dtype: "f8", bdata: f64}), [1.5, -2, 0]);
  const i32 = Buffer.from(new Int32Array([7, 8]).buffer).toString("base64");
  assert.deepEqual(arr({dtype: "i4", bdata: i32}), [7, 8]);
  assert.deepEqual(arr([1, 2]), [1, 2]);
  assert.deepEqual(arr(undefined), []);
});

test("batch sends one Plotly.update per figure, keys aligned per trace", () => {
  const calls = [];
  globalThis.Plotly = {update: (...a) => calls.push(["update", ...a]), relayout: (...a) => calls.push(["relayout", ...a])};
  const b = batch();
  b.set(3, {x: [1]});
  b.set(5, {y: [2]});
  b.set(3, {y: [3]});
  b.send("gd", {shapes: []});
  assert.equal(calls.length, 1);
  const [kind, gd, upd, layout, idx] = calls[0];
  assert.equal(kind, "update");
  assert.equal(gd, "gd");
  assert.deepEqual(idx, [3, 5]);
  assert.deepEqual(upd.x, [[1], undefined]);
  assert.deepEqual(upd.y, [[3], [2]]);
  assert.deepEqual(layout, {shapes: []});
  batch().send("gd", {a: 1});
  assert.equal(calls[1][0], "relayout");
  delete globalThis.Plotly;
});

test("stages run in order, each in a task of its own, and idle() waits for the last", async () => {
  const Q = stages(), seen = [];
  Q.later(() => { seen.push("a"); setTimeout(() => seen.push("between"), 0); }, "");
  Q.later(() => seen.push("b"));
  assert.deepEqual(seen, [], "nothing runs in the caller's task");
  assert.equal(Q.pending(), 2);
  await Q.idle();
  // what the page queued while a stage ran (an input event, a paint) comes before the next stage
  assert.deepEqual(seen, ["a", "between", "b"]);
  assert.equal(Q.pending(), 0);
  await Q.idle();  // nothing queued: resolves at once
});

test("stages flag their element while queued, and drop() forgets what was queued", async () => {
  const el = {dataset: {}}, Q = stages(/** @type {any} */ (el)), seen = [];
  Q.later(() => { seen.push(1); Q.drop(); Q.later(() => seen.push(3)); });
  Q.later(() => seen.push(2));  // dropped by the first stage: another plan was drawn instead
  assert.equal(el.dataset.stages, "drawing");
  const done = Q.idle();
  await done;
  assert.deepEqual(seen, [1, 3]);
  assert.equal(el.dataset.stages, undefined);
});

test("a stage that throws is reported and the next one still runs", async () => {
  const Q = stages(), seen = [], errors = [], was = console.error;
  const report = globalThis.reportError;
  globalThis.reportError = (e) => errors.push(String(e));
  try {
    Q.later(() => { throw new Error("boom"); });
    Q.later(() => seen.push("after"));
    await Q.idle();
  } finally {
    globalThis.reportError = report;
    console.error = was;
  }
  assert.deepEqual(errors, ["Error: boom"]);
  assert.deepEqual(seen, ["after"]);
});
