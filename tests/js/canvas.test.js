// The canvas helpers the minimap (panels/nav.js) and the memory strip (panels/memstrip.js) share
// (explorer/frontend/util/canvas.js): one relayout at a time with the latest spot winning, the high-DPI set-up,
// press-and-drag.
import test from "node:test";
import assert from "node:assert/strict";
import {cssContext, latestRelayout, pixelRatio, pointerDrag, sizeCanvas} from "../../explorer/frontend/util/canvas.js";

/** A stand-in Plotly whose relayouts finish when the test says: `sent` holds each update, `finish(ok)` ends the oldest. */
function slowPlotly() {
  const sent = [], pending = [];
  globalThis.Plotly = {relayout: (gd, upd) => { sent.push(upd); return new Promise((res, rej) => pending.push([res, rej])); }};
  const finish = async (ok = true) => { const [res, rej] = pending.shift(); ok ? res() : rej(new Error("no")); await new Promise((r) => setTimeout(r, 0)); };
  return {sent, finish, pending};
}

test("one relayout at a time: the moves made while one runs are replaced by the latest, sent when it ends", async () => {
  const P = slowPlotly(), send = latestRelayout(/** @type {any} */ ({}));
  let reads = 0;
  send(() => ({at: 1}));
  send(() => { reads++; return {at: 2}; });
  send(() => { reads++; return {at: 3}; });
  assert.deepEqual(P.sent, [{at: 1}], "the first goes at once, the others wait");
  await P.finish();
  assert.deepEqual(P.sent, [{at: 1}, {at: 3}], "only the latest of those that waited");
  assert.equal(reads, 1, "an update is read when it is sent, a replaced one never");
  await P.finish();
  assert.deepEqual(P.sent, [{at: 1}, {at: 3}], "nothing more to send");
  send(() => ({at: 4}));
  assert.deepEqual(P.sent.at(-1), {at: 4}, "idle again: the next goes at once");
  delete globalThis.Plotly;
});

test("a relayout that fails frees the loop without sending what waited; the next move sends", async () => {
  const P = slowPlotly(), send = latestRelayout(/** @type {any} */ ({}));
  send(() => ({at: 1}));
  send(() => ({at: 2}));
  await P.finish(false);
  assert.deepEqual(P.sent, [{at: 1}]);
  send(() => ({at: 3}));
  assert.deepEqual(P.sent, [{at: 1}, {at: 3}]);
  delete globalThis.Plotly;
});

test("a canvas sized for the device's pixels, drawn in CSS pixels", () => {
  assert.equal(pixelRatio(), 1, "no window under node");
  const calls = [];
  const ctx = {setTransform: (...a) => calls.push(["setTransform", ...a]), clearRect: (...a) => calls.push(["clearRect", ...a])};
  const canvas = /** @type {any} */ ({style: {}, getContext: (kind) => (kind === "2d" ? ctx : null)});
  sizeCanvas(canvas, 181, 120, 1.5);
  assert.deepEqual([canvas.width, canvas.height, canvas.style.width, canvas.style.height], [272, 180, "181px", "120px"]);
  assert.equal(cssContext(canvas, 181, 120, 1.5), ctx);
  assert.deepEqual(calls, [["setTransform", 1.5, 0, 0, 1.5, 0, 0], ["clearRect", 0, 0, 181, 120]]);
});

test("press-and-drag: the press and the moves while pressed, captured; none after the release", () => {
  const on = {}, moves = [], captured = [];
  const el = /** @type {any} */ ({addEventListener: (name, f) => { on[name] = f; }, setPointerCapture: (id) => captured.push(id)});
  pointerDrag(el, (ev) => moves.push(ev.clientX));
  on.pointermove({clientX: 0, buttons: 1});  // not pressed on it: not ours
  on.pointerdown({clientX: 1, pointerId: 7, preventDefault() {}});
  on.pointermove({clientX: 2, buttons: 1});
  on.pointermove({clientX: 3, buttons: 0});  // released elsewhere without a pointerup: no drag
  on.pointerup({});
  on.pointermove({clientX: 4, buttons: 1});
  assert.deepEqual(moves, [1, 2]);
  assert.deepEqual(captured, [7]);
});
