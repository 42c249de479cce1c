// Two profiles on the diff view (explorer/frontend/profile/diff.js): bars on one time scale, signed changes,
// and the card's markup (names from the files escaped).
import test from "node:test";
import assert from "node:assert/strict";
import {deltaText, diffCardHtml, runBars} from "../../explorer/frontend/profile/diff.js";

const prof = (run, devices) => ({runs: 5, tickNs: 1, run: {median: run}, median: [], n: [], devices});
const A = prof(100, [{name: "cpu", color: "#0072B2", median: 40}, {name: "copies", color: "#57606A", median: 50}]);
const B = prof(300, [{name: "cpu", color: "#0072B2", median: 40}, {name: "copies", color: "#57606A", median: 250}]);

test("both runs are drawn to one time scale: the slower run is the full width", () => {
  const bars = runBars(A, B);
  assert.ok(Math.abs(bars.b.width - 100) < 1e-9 && Math.abs(bars.a.width - 100 / 3) < 1e-9);
  assert.deepEqual(bars.a.segs.map((s) => s.name), ["cpu", "copies", "executor"]);
  assert.ok(Math.abs(bars.a.segs.reduce((x, s) => x + s.width, 0) - bars.a.width) < 1e-9);
  assert.ok(Math.abs(bars.b.segs[1].width - 250 / 3) < 1e-9);
});

test("changes read signed, with the ratio; one-sided ones say so", () => {
  assert.equal(deltaText(100, 300), "+200 ns (×3.00)");
  assert.equal(deltaText(3000, 1500), "−1.5 µs (×0.50)");
  assert.equal(deltaText(null, 5), "only in B");
  assert.equal(deltaText(5, null), "only in A");
});

test("the card lists devices and the largest changes, escaped", () => {
  const P = {profiles: {a: A, b: B}, profileDiff: {
    devices: [{device: "cpu", a: 40, b: 40, delta: 0}, {device: "copies", a: 50, b: 250, delta: 200}],
    instructions: [{a: 3, b: 4, label: "<script>x</script>", a_median: 10, b_median: 210, delta: 200},
                   {a: 1, b: 1, label: "same", a_median: 5, b_median: 5, delta: 0}]}};
  const html = diffCardHtml(P);
  assert.ok(html.includes("&lt;script&gt;") && !html.includes("<script>"));
  assert.ok(html.includes("A#3 → B#4") && html.includes("dx-slower"));
  assert.equal((html.match(/dx-prof-change"/g) || []).length, 1);  // unchanged instructions are not listed
  assert.ok(html.includes("copies: 50 ns → 250 ns"));
});
