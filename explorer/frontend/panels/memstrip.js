import {cssContext, latestRelayout, pixelRatio, pointerDrag, sizeCanvas} from "../util/canvas.js";

// The memory map's overview strip: per arena, the bytes live at each instruction over the whole run (a filled
// profile in the arena's colour, scaled to the arena's size), with the instruction window the lanes show.
// A click or drag on it moves the lanes there (from the whole run it zooms to a sixteenth of it); a double click
// shows the whole run again. It lines up with the lanes' own instruction axis.

// bytes live at each of `m` instructions: intervals [first, last, bytes] (inclusive; first < 0: the whole run)
/** @param {Iterable<number[]>} intervals @param {number} m @returns {Float64Array} */
export function liveProfile(intervals, m) {
  const diff = new Float64Array(m + 1);
  for (const [first, last, bytes] of intervals) {
    if (!(bytes > 0)) continue;
    const a = first < 0 ? 0 : Math.max(0, Math.min(m - 1, first)), b = first < 0 ? m - 1 : Math.max(a, Math.min(m - 1, last));
    diff[a] += bytes; diff[b + 1] -= bytes;
  }
  const out = new Float64Array(m);
  let run = 0;
  for (let i = 0; i < m; i++) { run += diff[i]; out[i] = run; }
  return out;
}

// per pixel column: the largest value of the instructions it covers (peaks never vanish between pixels)
/** @param {ArrayLike<number>} live @param {number} x0 @param {number} x1 @param {number} width @returns {Float64Array} */
export function columns(live, x0, x1, width) {
  const out = new Float64Array(width), step = (x1 - x0) / width;
  for (let c = 0; c < width; c++) {
    // instruction i spans [i - 0.5, i + 0.5): the ones overlapping this column's [lo, hi)
    const lo = x0 + c * step, hi = lo + step;
    const a = Math.max(0, Math.floor(lo - 0.5) + 1), b = Math.min(live.length - 1, Math.ceil(hi + 0.5) - 1);
    let most = 0;
    for (let i = a; i <= Math.max(a, b) && i < live.length; i++) most = Math.max(most, live[i]);
    out[c] = most;
  }
  return out;
}

// the same on another x axis (a run profile's measured time): instruction i spans [to(i - 0.5), to(i + 0.5)) there
/** @param {ArrayLike<number>} live @param {(x: number) => number} to @param {number} x0 @param {number} x1 @param {number} width
 *  @returns {Float64Array} */
export function columnsOn(live, to, x0, x1, width) {
  const out = new Float64Array(width), scale = width / (x1 - x0);
  for (let i = 0; i < live.length; i++) {
    if (!(live[i] > 0)) continue;
    const a = Math.max(0, Math.floor((to(i - 0.5) - x0) * scale)), b = Math.min(width - 1, Math.ceil((to(i + 0.5) - x0) * scale) - 1);
    for (let c = a; c <= Math.max(a, b) && c < width; c++) out[c] = Math.max(out[c], live[i]);
  }
  return out;
}

const ROW = 26, GAP = 3;

// lanes(): [{color, size, live: Float64Array(m)}] of the plan shown; count(): its instructions (m); axis(): the
// lanes' x axis when it is not instructions ({to(x)}: instruction units -> its units; a profile's time), else null
/** @typedef {{color: string, size: number, live: ArrayLike<number>}} Lane */
/**
 * @param {PlotDiv} gd @param {HTMLCanvasElement} canvas @param {() => Lane[]} lanes @param {() => number} count
 * @param {(() => {to: (x: number) => number} | null) | null} [axis]
 * @returns {{draw(): void, reset(): void}}
 */
export function memoryStrip(gd, canvas, lanes, count, axis) {
  let m = 0;
  const ratio = pixelRatio(), relayout = latestRelayout(gd);
  /** @type {Lane[] | null} */
  let rows = null;
  /** @type {{l: number, w: number, span: number[]} | null} */
  let geom = null;
  canvas.title = "the whole run: click or drag to move the memory map there, double-click to show everything";
  function full() {
    const map = axis ? axis() : null;
    return map ? [map.to(-0.5), map.to(Math.max(m, 1) - 0.5)] : [-0.6, Math.max(m, 1) - 0.4];
  }
  function draw() {
    const L = gd._fullLayout;
    m = count();
    if (!L || !L.xaxis || !L._size || m < 2) { canvas.hidden = true; return; }
    rows = rows || lanes().slice(0, 6);
    if (!rows.length) { canvas.hidden = true; return; }
    canvas.hidden = false;
    const W = gd.clientWidth || L.width, H = rows.length * (ROW + GAP) + GAP;
    sizeCanvas(canvas, W, H, ratio);
    const s = L._size, span = full();
    geom = {l: s.l, w: s.w, span};
    const ctx = cssContext(canvas, W, H, ratio);
    const cols = Math.max(1, Math.round(s.w));
    rows.forEach((lane, k) => {
      const map = axis ? axis() : null;
      const peaks = map ? columnsOn(lane.live, map.to, span[0], span[1], cols) : columns(lane.live, span[0], span[1], cols);
      const top = GAP + k * (ROW + GAP), size = Math.max(lane.size, 1);
      ctx.fillStyle = "#F6F8FA";
      ctx.fillRect(s.l, top, s.w, ROW);
      ctx.fillStyle = lane.color;
      for (let c = 0; c < cols; c++) {
        const h = Math.min(peaks[c] / size, 1) * ROW;
        if (h > 0) ctx.fillRect(s.l + c * s.w / cols, top + ROW - h, Math.max(s.w / cols, 1), h);
      }
    });
    const r = L.xaxis.range, X = (/** @type {number} */ v) => s.l + (v - span[0]) / (span[1] - span[0]) * s.w;
    const a = Math.max(s.l, X(r[0])), b = Math.min(s.l + s.w, X(r[1]));
    const whole = r[0] <= span[0] + 1e-9 && r[1] >= span[1] - 1e-9;
    ctx.fillStyle = "rgba(255,255,255,0.6)";  // outside the window: faded
    if (!whole) { ctx.fillRect(s.l, 0, a - s.l, H); ctx.fillRect(b, 0, s.l + s.w - b, H); }
    ctx.strokeStyle = "#0969DA"; ctx.lineWidth = 1.5;
    ctx.strokeRect(a + 0.75, 0.75, Math.max(b - a - 1.5, 2), H - 1.5);
  }
  function moveTo(/** @type {PointerEvent} */ ev) {
    const L = gd._fullLayout;
    if (!geom || !L) return;
    const box = canvas.getBoundingClientRect(), span = geom.span;
    const at = span[0] + (ev.clientX - box.left - geom.l) / geom.w * (span[1] - span[0]);
    const r = L.xaxis.range, whole = r[0] <= span[0] + 1e-9 && r[1] >= span[1] - 1e-9;
    const half = whole ? (span[1] - span[0]) / 32 : (r[1] - r[0]) / 2;  // from the whole run: a sixteenth of it
    const c = Math.max(span[0] + half, Math.min(span[1] - half, at));
    const range = [c - half, c + half];
    relayout(() => ({"xaxis.range": range}));
  }
  pointerDrag(canvas, moveTo);
  canvas.addEventListener("dblclick", () => { const range = full(); relayout(() => ({"xaxis.range": range})); });
  let queued = false;  // plotly draws several times in a row: the strip follows once per frame, not per draw
  function soon() {
    if (queued) return;
    queued = true;
    (globalThis.requestAnimationFrame || ((/** @type {() => void} */ f) => setTimeout(f, 16)))(() => { queued = false; draw(); });
  }
  // plotly adds .on to a div when it first draws in it, and the app may draw the lanes after making the strip (in
  // a later task of the first view): the strip starts following them at its first draw after that
  let listening = false;
  function listen() {
    if (listening || !gd.on) return;
    gd.on("plotly_afterplot", soon);
    listening = true;
  }
  listen();
  return {draw() { listen(); draw(); }, reset() { rows = null; }};
}
