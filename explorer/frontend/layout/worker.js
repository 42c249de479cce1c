// The graph layout (layout/layout.js, network simplex) off the page's main thread, as Netron lays out in a Web Worker:
// laying out an expanded 20k-node view takes tens of ms, and the page must never freeze that long.
//
// The worker runs the very same layout/layout.js, not a copy: the bundler (explorer/frontend/__init__.py, `_ship`)
// bundles layout/layout.js as a named function and puts in LAYOUT below an expression reading that function's own
// text when the page runs (`Function.prototype.toString`), so the bundle holds the code once; the worker is made
// from a Blob URL of that text plus `serve` (this file's function, as text). A Blob URL needs no server and no
// second file, so it works from a report opened as file:// and inside JupyterLab (anywidget loads the bundle
// as one ES module). Unbundled (node's tests, a devtools session over the files) LAYOUT stays null, and where
// a worker cannot be made (no Worker, a page policy refusing blob: workers) layout runs on the main thread.
import {layered} from "./layout.js";

/** @type {{source: string, scope: string} | null} layout/layout.js as the bundle holds it, and its scope's name */
const LAYOUT = /* bundler: ./layout.js */ null;

/**
 * What one layout needs: `count` nodes, edges src[q] -> dst[q], and two of layered()'s options (weight per edge,
 * key per node); lod/base.js foldPlan builds it.
 * @typedef {{count: number, src: number[], dst: number[], weight: number[], key: number[]}} LayoutJob
 */
/**
 * What the drawing needs of a layout: per node its rank and x, per edge its polyline or null (a loop). Both ends
 * answer typed arrays: layered()'s own on this thread, the transferred ones from the worker.
 * @typedef {{rank: Int32Array, x: Float64Array, paths: (number[] | null)[]}} LayoutResult
 */
/** A job as posted to the worker: the job and the runner's id for it. @typedef {LayoutJob & {id: number}} LayoutRequest */
/**
 * The worker's answer: the job's id, rank and x, and the polylines flattened: edge q's is
 * flat[starts[q] .. starts[q + 1]], null where empty[q]. rank, x, flat and starts are transferred, not copied.
 * @typedef {{id: number, rank: Int32Array, x: Float64Array, flat: Float64Array, starts: Int32Array, empty: boolean[]}} FlatLayout
 */
/**
 * What serve() uses of the worker's global (a DedicatedWorkerGlobalScope; node's test passes a stand-in).
 * @typedef {{onmessage: ((ev: {data: LayoutRequest}) => void) | null,
 *            postMessage: (answer: FlatLayout, transfer: Transferable[]) => void}} WorkerScope
 */
/**
 * One plan's runner, as layoutRunner() makes it: run a job (superseding the one in flight), cancel it, whether
 * one is in flight, whether a worker can be used, the counts of where jobs ran, and close (worker and URL let go).
 * @typedef {{run: (job: LayoutJob, done: (r: LayoutResult) => void) => void, cancel: () => void, busy: () => boolean,
 *            usable: () => boolean, stats: {worker: number, main: number, superseded: number, failed: string},
 *            close: () => void}} LayoutRunner
 */

/** The job laid out here, on this thread. @param {LayoutJob} job @returns {LayoutResult} */
export function layOut(job) {
  return layered(job.count, job.src, job.dst, {weight: job.weight, key: job.key});
}

// The worker's side: each message is a job with an id; the answer is its ranks, x and the edges' polylines
// flattened into one array (one transfer instead of thousands of small arrays to clone). Self-contained: it
// runs as text in the worker, where only `lay` (layout/layout.js's layered) is in scope.
/** @param {WorkerScope} scope the worker's global @param {typeof import("./layout.js").layered} lay layered */
export function serve(scope, lay) {
  scope.onmessage = function (ev) {
    const job = ev.data, out = lay(job.count, job.src, job.dst, {weight: job.weight, key: job.key});
    const starts = new Int32Array(out.paths.length + 1);
    let size = 0;
    for (let q = 0; q < out.paths.length; q++) { const p = out.paths[q]; starts[q] = size; size += p ? p.length : 0; }
    starts[out.paths.length] = size;
    const flat = new Float64Array(size);
    for (let q = 0; q < out.paths.length; q++) { const p = out.paths[q]; if (p) flat.set(p, starts[q]); }
    const rank = Int32Array.from(out.rank), x = Float64Array.from(out.x);
    scope.postMessage({id: job.id, rank: rank, x: x, flat: flat, starts: starts, empty: out.paths.map((p) => !p)},
                      [rank.buffer, x.buffer, flat.buffer, starts.buffer]);
  };
}

/** A worker's answer back as layered() returns it. @param {FlatLayout} d @returns {LayoutResult} */
export function unflatten(d) {
  const paths = [];
  for (let q = 0; q + 1 < d.starts.length; q++) paths.push(d.empty[q] ? null : Array.from(d.flat.subarray(d.starts[q], d.starts[q + 1])));
  return {rank: d.rank, x: d.x, paths: paths};
}

// One plan's layouts: run(job, done) lays out in the worker when there is one (done(result) later, in its own
// task) and otherwise here (done called before run returns). A new job supersedes the one in flight: the worker
// computing it is ended (its work is wasted, not waited for) and its `done` is never called, so only the latest
// layout is ever drawn. stats: how many ran where, how many were superseded.
/** @returns {LayoutRunner} */
export function layoutRunner() {
  /** @type {Worker | null} */
  let worker = null;
  /** @type {{id: number, job: LayoutJob, done: (r: LayoutResult) => void} | null} */
  let pending = null;
  let seq = 0, url = "";
  const stats = {worker: 0, main: 0, superseded: 0, failed: ""};

  function usable() { return !!LAYOUT && !stats.failed && typeof Worker !== "undefined" && typeof Blob !== "undefined"; }
  function here(/** @type {LayoutJob} */ job, /** @type {(r: LayoutResult) => void} */ done) { stats.main++; done(layOut(job)); }
  function fail(/** @type {string} */ why) {  // no worker after all: what was waiting is laid out here
    stats.failed = why || "worker failed";
    if (worker) worker.terminate();
    worker = null;
    const p = pending;
    pending = null;
    if (p) here(p.job, p.done);
  }
  function make() {
    if (!LAYOUT) throw new Error("no layout source");
    if (!url) url = URL.createObjectURL(new Blob([LAYOUT.source + "\n(" + serve.toString() + ")(self, " + LAYOUT.scope + ".layered);\n"],
                                                 {type: "text/javascript"}));
    const w = new Worker(url);
    w.onmessage = (/** @type {MessageEvent<FlatLayout>} */ ev) => {
      if (!pending || ev.data.id !== pending.id) return;  // an answer to a job since superseded
      const p = pending;
      pending = null;
      stats.worker++;
      p.done(unflatten(ev.data));
    };
    w.onerror = (ev) => { ev.preventDefault(); fail("layout worker: " + (ev.message || "error")); };
    return w;
  }
  /** @param {LayoutJob} job @param {(r: LayoutResult) => void} done */
  function run(job, done) {
    cancel();
    if (!usable()) { here(job, done); return; }
    try { if (!worker) worker = make(); } catch (e) { stats.failed = String(e); here(job, done); return; }
    pending = {id: ++seq, job: job, done: done};
    worker.postMessage({id: seq, count: job.count, src: job.src, dst: job.dst, weight: job.weight, key: job.key});
  }
  function cancel() {  // the job in flight, if any, is dropped and its worker ended (a fresh one takes the next)
    if (!pending) return;
    pending = null;
    stats.superseded++;
    if (worker) worker.terminate();
    worker = null;
  }
  function close() {  // this plan is no longer shown: its worker ended, its script's Blob URL let go
    cancel();
    if (worker) worker.terminate();
    worker = null;
    if (url) URL.revokeObjectURL(url);
    url = "";
  }
  return {run, cancel, busy: () => !!pending, usable, stats, close};
}
