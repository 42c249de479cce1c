// The memory map's overview strip (explorer/frontend/panels/memstrip.js): live bytes per instruction, per-pixel peaks.
import test from "node:test";
import assert from "node:assert/strict";
import {columns, liveProfile, memoryStrip} from "../../explorer/frontend/panels/memstrip.js";

test("live bytes add over each lifetime, inclusive; no lifetime means the whole run", () => {
  const live = liveProfile([[0, 1, 10], [1, 3, 5], [-1, -1, 2], [2, 2, 0]], 5);
  assert.deepEqual(Array.from(live), [12, 17, 7, 7, 2]);
});

test("lifetimes past the run are clipped to it", () => {
  assert.deepEqual(Array.from(liveProfile([[3, 99, 4]], 5)), [0, 0, 0, 4, 4]);
});

test("a pixel column keeps the peak of the instructions it covers", () => {
  const live = new Float64Array([0, 9, 0, 0, 0, 0, 1, 0]);
  const cols = columns(live, -0.5, 7.5, 4);  // two instructions per column
  assert.deepEqual(Array.from(cols), [9, 0, 0, 1]);
});

test("columnsOn: on another axis each instruction covers the pixels of its own span (a slow one is wide)", async () => {
  const {columnsOn} = await import("../../explorer/frontend/panels/memstrip.js");
  // 3 instructions taking 1, 8 and 1 time units: cumulative edges 0, 1, 9, 10
  const C = [0, 1, 9, 10], to = (x) => { const s = Math.min(Math.max(x + 0.5, 0), 3), i = Math.min(Math.floor(s), 2); return C[i] + (s - i) * (C[i + 1] - C[i]); };
  const cols = columnsOn(Float64Array.from([5, 7, 2]), to, 0, 10, 10);
  assert.deepEqual(Array.from(cols), [5, 7, 7, 7, 7, 7, 7, 7, 7, 2]);
});

test("a strip made before its lanes are drawn follows them from its first draw after plotly gave the div its events", () => {
  // the app draws the memory lanes in a later task of the first view than it makes the strip (util/common.js stages)
  const canvas = {hidden: false, title: "", addEventListener() {}, style: {}};
  const gd = /** @type {any} */ ({});
  const strip = memoryStrip(gd, /** @type {any} */ (canvas), () => [], () => 0, () => null);
  const heard = [];
  gd.on = (/** @type {string} */ event) => heard.push(event);  // plotly's first draw in the div adds .on
  strip.draw();
  strip.draw();  // once only
  assert.deepEqual(heard, ["plotly_afterplot"]);
  assert.equal(canvas.hidden, true, "no lanes laid out yet: nothing to draw");
});
