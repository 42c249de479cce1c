// Run profiles on the panels (explorer/frontend/profile/profile.js): time text, size scale and legend ticks, the
// instruction -> time axis mapping of the memory map, the device time bar, per-run times of a selection,
// and that names from a file are escaped in every piece of markup.
import test from "node:test";
import assert from "node:assert/strict";
import {barHtml, barSegments, cumulative, detailsHtml, fmtTime, legendHtml, mapBars, niceTicks, selectionTimes,
        sizeScale, SIZE_MAX, SIZE_MIN, timeTicks, toTime} from "../../explorer/frontend/profile/profile.js";

const PROF = {
  file: "<b>run</b>.etdp", runs: 3, tickNs: 1, run: {median: 1000, min: 900, max: 1500, n: 3},
  median: [100, 600, null, 200], min: [90, 500, null, 150], max: [120, 700, null, 260], n: [3, 3, 0, 3],
  perRun: [[90, 500, null, 150], [100, 600, null, 200], [120, 700, null, 260]],
  devices: [{name: "cpu", color: "#0072B2", median: 300, share: 0.3}, {name: "cuda:0", color: "#E69F00", median: 600, share: 0.6}],
  copies: [{direction: "h2d", count: 2, bytes: 32, median: 200, bytesPerS: 1.6e8}],
};

test("times read in the largest unit that fits", () => {
  assert.equal(fmtTime(850), "850 ns");
  assert.equal(fmtTime(12240), "12.2 µs");
  assert.equal(fmtTime(3.4e6), "3.4 ms");
  assert.equal(fmtTime(250e6), "250 ms");
  assert.equal(fmtTime(1.2e9), "1.2 s");
  assert.equal(fmtTime(5, 1000), "5 µs");
  assert.equal(fmtTime(null), "–");
  assert.equal(fmtTime(NaN), "–");
});

test("legend ticks are round and below the maximum", () => {
  assert.deepEqual(niceTicks(700, 3), [5, 50, 500]);
  for (const max of [1, 3, 47, 999, 12345, 8.6e6]) {
    const t = niceTicks(max, 3);
    assert.ok(t.length >= 1 && t.length <= 3, String(max));
    assert.ok(t.every((v) => v <= max && /^[125]0*$/.test(String(Math.round(v / Math.pow(10, Math.floor(Math.log10(v))))))), t.join());
    assert.deepEqual(t, t.slice().sort((a, b) => a - b));
  }
  assert.deepEqual(niceTicks(0), []);
});

test("op size: area grows with time, from SIZE_MIN to SIZE_MAX; no time -> null", () => {
  const s = sizeScale(400);
  assert.equal(s(0), SIZE_MIN);
  assert.equal(s(400), SIZE_MAX);
  const a1 = (s(100) - SIZE_MIN) ** 2, a4 = (s(400) - SIZE_MIN) ** 2;
  assert.ok(Math.abs(a4 / a1 - 4) < 1e-9);
  assert.equal(s(null), null);
  assert.equal(sizeScale(0)(5), null);
});

test("time axis: each instruction as wide as its median; missing ones get a sliver", () => {
  const C = cumulative([100, 600, null, 200]);
  assert.equal(C.length, 5);
  assert.deepEqual([C[0], C[1], C[2]], [0, 100, 700]);
  assert.ok(Math.abs(C[3] - C[2] - 1.8) < 1e-9);  // 0.2% of the 900 recorded
  assert.equal(toTime(C, -0.5), 0);
  assert.equal(toTime(C, 0.5), 100);
  assert.equal(toTime(C, 1), 400);  // the middle of instruction 1
  assert.equal(toTime(C, 3.5), C[4]);
  assert.equal(toTime(C, 99), C[4]);  // clamped
  // a block living over instructions 1..3 (x centre 2, width 3) spans instructions 1, 2 and 3 in time
  const g = mapBars([2], [3], C);
  assert.ok(Math.abs(g.width[0] - (C[4] - C[1])) < 1e-9 && Math.abs(g.x[0] - (C[1] + C[4]) / 2) < 1e-9);
});

test("the device bar: one segment per bucket, the executor's rest hatched", () => {
  const segs = barSegments(PROF);
  assert.deepEqual(segs.map((s) => s.name), ["cpu", "cuda:0", "executor"]);
  assert.ok(Math.abs(segs.reduce((a, s) => a + s.share, 0) - 1) < 1e-9);
  const html = barHtml(PROF);
  assert.ok(html.includes("width:30.000%") && html.includes("width:60.000%"));
  assert.ok(html.includes("h2d: 2 copies per run, 32 B, 200 ns, 152.6 MiB/s"));
  assert.ok(!html.includes("<b>run</b>") && html.includes("&lt;b&gt;run&lt;/b&gt;.etdp"));
});

test("per-run times of a selection; summed over several instructions", () => {
  const one = selectionTimes(PROF, [1]);
  assert.deepEqual(one.perRun, [500, 600, 700]);
  assert.deepEqual([one.median, one.min, one.max, one.n], [600, 500, 700, 3]);
  const two = selectionTimes(PROF, [0, 1, 2]);
  assert.deepEqual(two.instructions, [0, 1]);
  assert.deepEqual(two.perRun, [590, 700, 820]);
  assert.equal(two.median, 700);
  assert.equal(selectionTimes(PROF, [2]), null);
  const noRuns = selectionTimes({...PROF, perRun: null}, [3]);
  assert.deepEqual([noRuns.median, noRuns.min, noRuns.max, noRuns.n], [200, 150, 260, 3]);
  assert.ok(detailsHtml(PROF, [1]).includes("<rect") && detailsHtml(PROF, [1]).includes("median <b>600 ns</b>"));
  assert.ok(detailsHtml(PROF, [2]).includes("no time recorded"));
  assert.equal(detailsHtml(PROF, []), "");
});

test("the legend names the scale and the number of runs", () => {
  const html = legendHtml(PROF, 600);
  assert.ok(html.includes("median time per run") && html.includes("3 runs"));
  assert.equal((html.match(/<circle/g) || []).length, niceTicks(600, 3).length);
});

test("time-axis ticks are round times up to the end", () => {
  const t = timeTicks(120000);
  assert.deepEqual(t.vals, [0, 20000, 40000, 60000, 80000, 100000, 120000]);
  assert.deepEqual(t.text.slice(0, 3), ["0", "20 µs", "40 µs"]);
  assert.deepEqual(timeTicks(0), {vals: [0], text: ["0"]});
  assert.ok(timeTicks(7.3e6).vals.every((v) => v <= 7.3e6));
});

test("a delegate call's details list its nodes as the backend named them (escaped)", () => {
  const prof = {...PROF, nodes: [{instruction: 1, id: "<img src=x>", median: 40}, {instruction: 3, id: "other", median: 1}]};
  const html = detailsHtml(prof, [1]);
  assert.ok(html.includes("&lt;img src=x&gt;") && !html.includes("<img") && html.includes("40 ns"));
  assert.ok(!html.includes("other"));
});

test("a backend that timed only the whole call (its nodes at 0) says so once, never '0 ns' per node", () => {
  const prof = {...PROF, nodes: [{instruction: 1, id: "GEMM #1", median: 0}, {instruction: 1, id: "GEMM #2", median: 0}]};
  const html = detailsHtml(prof, [1]);
  assert.ok(html.includes("inside the delegate: only the delegate's total is reported"), html);
  assert.ok(html.includes("GEMM #1") && html.includes("GEMM #2") && !/[^0-9]0 ns/.test(html), html);
  const timed = detailsHtml({...PROF, nodes: [{instruction: 1, id: "GEMM #1", median: 0}, {instruction: 1, id: "GEMM #2", median: 40}]}, [1]);
  assert.ok(timed.includes("as its backend reported") && timed.includes("40 ns") && timed.includes("</span> 0 ns"));
});
