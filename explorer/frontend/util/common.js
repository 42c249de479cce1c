// Small helpers every panel shares: escaping, payload arrays, batched plotly updates, DOM and pointer helpers, staged
// draws. Numbers and bytes are written by format.js.
// Text from a .pte file reaches plotly only through ptext (plotly renders a subset of HTML) and the page only
// through esc or textContent.

/** @param {unknown} s @returns {string} */
export function ptext(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
/** @param {unknown} s @returns {string} */
export function esc(s) { return ptext(s).replace(/"/g, "&quot;").replace(/'/g, "&#x27;"); }
/** @param {unknown} text @param {number} k @returns {string} */
export function short(text, k) { const s = String(text); return s.length <= k ? s : s.slice(0, k - 1) + "\u2026"; }
// plotly's Python side ships numpy arrays as {dtype, bdata} (base64); figures keep them so in .data
/** @type {Record<string, Float64ArrayConstructor | Float32ArrayConstructor | Int8ArrayConstructor | Uint8ArrayConstructor | Int16ArrayConstructor | Uint16ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor>} */
const TYPED = {f8: Float64Array, f4: Float32Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array,
               u2: Uint16Array, i4: Int32Array, u4: Uint32Array};
/** @param {any} a @returns {any[]} */
export function arr(a) {
  if (!a) return [];
  if (!a.bdata) return a;
  const bin = atob(a.bdata), bytes = new Uint8Array(bin.length);
  for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
  return Array.from(new TYPED[a.dtype](bytes.buffer));
}

/** obj["a.b.c"] = value as obj.a.b.c (plotly's dotted attribute names, into a figure's own objects)
 * @param {Record<string, any>} obj @param {string} dotted @param {unknown} value */
export function setPath(obj, dotted, value) {
  const keys = dotted.split(".");
  let o = obj;
  for (let q = 0; q < keys.length - 1; q++) { if (!o[keys[q]] || typeof o[keys[q]] !== "object") o[keys[q]] = {}; o = o[keys[q]]; }
  o[keys[keys.length - 1]] = value;
}

// trace updates collected per trace index, sent as one Plotly.update; or, for a figure's first draw, put into a copy
// of its skeleton (`into`): one Plotly.react draws it whole, not the skeleton and then the update
/** @typedef {{data: Record<string, any>[], layout: Record<string, any>}} Figure */
/** @returns {{set: (index: number, props: Record<string, unknown>) => void, send: (gd: HTMLElement, layout?: Record<string, unknown>) => void,
 *            into: (base: Figure, layout?: Record<string, unknown>) => Figure}} */
export function batch() {
  /** @type {Map<number, Record<string, unknown>>} */
  const per = new Map();
  return {
    set(index, props) { per.set(index, Object.assign(per.get(index) || {}, props)); },
    into(base, layout) {
      /** @type {Figure} */
      const fig = JSON.parse(JSON.stringify(base));  // plotly keeps and changes what it draws: the skeleton stays as it is
      per.forEach((props, q) => { Object.keys(props).forEach((k) => { setPath(fig.data[q], k, props[k]); }); });
      Object.assign(fig.layout, layout || {});
      return fig;
    },
    send(gd, layout) {
      /** @type {Set<string>} */
      const keys = new Set();
      /** @type {Record<string, unknown[]>} */
      const upd = {};
      const idx = Array.from(per.keys());
      if (!idx.length) { globalThis.Plotly.relayout(gd, layout || {}); return; }
      per.forEach((props) => Object.keys(props).forEach((k) => keys.add(k)));
      keys.forEach((k) => { upd[k] = idx.map((q) => (per.get(q) || {})[k]); });
      globalThis.Plotly.update(gd, upd, layout || {}, idx);
    },
  };
}

// an element with a class (and optional text); never parses markup
/** @template {keyof HTMLElementTagNameMap} K @param {K} tag @param {string} [cls] @param {string} [text]
 *  @returns {HTMLElementTagNameMap[K]} */
export function h(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// A view's drawing split into tasks: `later(fn, name)` runs fn in a task of its own, after the ones queued before it
// (one setTimeout each: the page paints and answers input in between, so no single task blocks it for the whole
// first view of a big plan); `drop()` forgets what is still queued (another plan is drawn instead); `idle()`
// resolves once the queue is empty (the page says "drawn" only then: tests and benches wait for it). A stage
// that throws stops only itself (reported as an uncaught error is); the queue goes on. Each stage
// ends with a performance mark "dx:NAME" (bench/bench_firstview.py prints them). While stages are queued, `flag`
// (the app's element) carries data-stages="drawing": tests' `settled` (tests/browser_helpers.py) waits for it to go.
/** @typedef {{later: (fn: () => void, name?: string) => void, drop: () => void, idle: () => Promise<void>, pending: () => number}} Stages */
const FRAME_WAIT_MS = 100;
// a first view of at least this many instructions and values (the app's plan; a diff's side) is drawn in stages, a
// task each; a smaller one, a few tens of ms of drawing, in one go: it is on screen sooner (bench/bench_view.py, time
// to first view against Netron) and nothing in it blocks for long
export const STAGED_MIN = 2000;
/** @param {HTMLElement} [flag] @returns {Stages} */
export function stages(flag) {
  /** @type {[() => void, string][]} */
  let queue = [];
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  /** @type {(() => void)[]} */
  let waiting = [];
  function settle() {
    if (flag && flag.dataset) delete flag.dataset.stages;
    const done = waiting;
    waiting = [];
    done.forEach((resolve) => resolve());
  }
  // the next stage after the page has painted what the last one drew (its style and layout done in the frame,
  // not inside the next stage's first measurement); a page that paints no frames (a background tab) still goes on
  let ticket = 0;
  function soon() {
    const mine = ++ticket, go = () => { if (mine === ticket && timer !== null) { ticket++; pump(); } };
    timer = setTimeout(go, FRAME_WAIT_MS);
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => { setTimeout(go, 0); });
    else setTimeout(go, 0);
  }
  function pump() {
    timer = null;
    const next = queue.shift();
    try {
      if (next) {
        next[0]();
        if (next[1] && typeof performance !== "undefined" && performance.mark) performance.mark("dx:" + next[1]);
      }
    } catch (e) {  // reported as an uncaught error is (the page's error event, the console); the next stage still runs
      if (typeof reportError === "function") reportError(e);
      else console.error(e);
    }
    if (queue.length) soon();
    else settle();
  }
  return {
    later(fn, name) {
      queue.push([fn, name || ""]);
      if (flag && flag.dataset) flag.dataset.stages = "drawing";
      if (timer === null) soon();
    },
    // the turn already asked for still comes (and finds nothing, or what was queued since): idle() waiters wait for it
    drop() { queue = []; },
    idle() { return queue.length || timer !== null ? new Promise((resolve) => { waiting.push(resolve); }) : Promise.resolve(); },
    pending: () => queue.length,
  };
}

// a tensor table's labels of its named rows only, in row order (explorer.views.payload.embed.NAMED_LABELS)
const NAMED_LABELS = "namedLabels";

// Every tensor table gets its `label` column, in place: the payload carries only the named rows' labels, every other
// row is "%" and its value index (embed.py fill_labels does the same in Python). A plan of millions of unnamed
// tensors would otherwise carry millions of "%N" strings. Run by the decoder (host/model.js) and again, at no cost
// when done, by lod/base.js for a plan payload handed over without it (the node tests).
/** @param {any} obj */
export function fillLabels(obj) {
  if (!obj || typeof obj !== "object") return;
  if (Array.isArray(obj)) {
    if (obj.length && obj[0] && typeof obj[0] === "object") for (const item of obj) fillLabels(item);
    return;
  }
  if (Array.isArray(obj[NAMED_LABELS]) && !("label" in obj)) {
    const names = obj[NAMED_LABELS], index = obj.index, named = obj.named, label = new Array(index.length);
    for (let r = 0, k = 0; r < index.length; r++) label[r] = named[r] ? names[k++] : "%" + index[r];
    obj.label = label;
    delete obj[NAMED_LABELS];
    return;
  }
  for (const key of Object.keys(obj)) fillLabels(obj[key]);
}
