// The layout worker's two ends (explorer/frontend/layout/worker.js): what serve() posts back, unflattened, is
// layout/layout.js's own answer; unbundled (no shipped layout/layout.js text, no Worker) the runner lays out here, at once.
import test from "node:test";
import assert from "node:assert/strict";
import {layered} from "../../explorer/frontend/layout/layout.js";
import {serve, unflatten, layoutRunner, layOut} from "../../explorer/frontend/layout/worker.js";

// a small graph with a backward edge (reversed), a long edge (bends), a loop (no path) and two components
const JOB = {count: 7, src: [0, 0, 1, 2, 3, 4, 5, 3], dst: [1, 2, 3, 3, 1, 4, 6, 0],
             weight: [4, 1, 4, 4, 1, 1, 4, 1], key: [0, 0, 1, 1, -1, 0, 1]};

function fakeScope() {
  const scope = {posted: [], transferred: [], onmessage: null};
  scope.postMessage = (data, transfer) => { scope.posted.push(data); scope.transferred.push(transfer); };
  return scope;
}

test("serve answers a job with layout/layout.js's ranks, x and polylines, flattened into transferable arrays", () => {
  const scope = fakeScope();
  serve(scope, layered);
  scope.onmessage({data: Object.assign({id: 7}, JOB)});
  assert.equal(scope.posted.length, 1);
  const d = scope.posted[0], want = layered(JOB.count, JOB.src, JOB.dst, {weight: JOB.weight, key: JOB.key});
  assert.equal(d.id, 7);
  assert.ok(d.flat instanceof Float64Array && d.starts instanceof Int32Array);
  assert.deepEqual(scope.transferred[0], [d.rank.buffer, d.x.buffer, d.flat.buffer, d.starts.buffer]);
  const got = unflatten(d);
  // LayoutResult (layout/worker.js) promises typed arrays from either end: the worker's answer and layOut's
  assert.ok(got.rank instanceof Int32Array && got.x instanceof Float64Array);
  const here = layOut(JOB);
  assert.ok(here.rank instanceof Int32Array && here.x instanceof Float64Array);
  assert.deepEqual(Array.from(got.rank), Array.from(want.rank));
  assert.deepEqual(Array.from(got.x), Array.from(want.x));
  assert.deepEqual(got.paths, want.paths.map((p) => (p ? Array.from(p) : null)));
  assert.ok(got.paths.some((p) => p === null), "the loop has no path");
  assert.ok(got.paths.some((p) => p && p.length > 4), "a long edge bends");
});

test("unbundled, the runner lays out on this thread and calls back before run returns", () => {
  const runner = layoutRunner();
  assert.equal(runner.usable(), false);  // no shipped layout/layout.js text, no Worker under node
  let got = null;
  runner.run(JOB, (r) => { got = r; });
  assert.ok(got, "answered at once");
  assert.deepEqual(Array.from(got.x), Array.from(layOut(JOB).x));
  assert.deepEqual(runner.stats, {worker: 0, main: 1, superseded: 0, failed: ""});
  assert.equal(runner.busy(), false);
});
