// A canvas that steers a plot (the graph's minimap, panels/nav.js; the memory map's overview strip,
// panels/memstrip.js): drawn sharp on high-DPI screens, dragged on with the pointer, and moving the plot with one
// relayout at a time, the latest spot winning.

/** The device's pixels per CSS pixel (1 where there is no window: node). @returns {number} */
export function pixelRatio() {
  return (typeof window !== "undefined" && window.devicePixelRatio) || 1;
}

/** Sizes `canvas` to `w` x `h` CSS pixels with a backing store of the device's pixels, so that it is sharp on a
 * high-DPI screen. @param {HTMLCanvasElement} canvas @param {number} w @param {number} h @param {number} ratio */
export function sizeCanvas(canvas, w, h, ratio) {
  canvas.width = Math.round(w * ratio); canvas.height = Math.round(h * ratio);
  canvas.style.width = w + "px"; canvas.style.height = h + "px";
}

/** `canvas`'s 2d context, cleared over `w` x `h` and scaled so that one unit is one CSS pixel.
 * @param {HTMLCanvasElement} canvas @param {number} w @param {number} h @param {number} ratio
 * @returns {CanvasRenderingContext2D} */
export function cssContext(canvas, w, h, ratio) {
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  return ctx;
}

// A press on `el` and every move while the button stays down call `onMove` (the pointer is captured, so a drag
// that leaves the element still counts).
/** @param {HTMLElement} el @param {(ev: PointerEvent) => void} onMove */
export function pointerDrag(el, onMove) {
  let dragging = false;
  el.addEventListener("pointerdown", (ev) => {
    dragging = true;
    if (el.setPointerCapture && ev.pointerId !== undefined) el.setPointerCapture(ev.pointerId);
    onMove(ev);
    ev.preventDefault();
  });
  el.addEventListener("pointermove", (ev) => { if (dragging && ev.buttons !== 0) onMove(ev); });
  const stop = () => { dragging = false; };
  el.addEventListener("pointerup", stop);
  el.addEventListener("pointercancel", stop);
}

// One relayout of `gd` at a time, the latest wins: a drag over a big plot sends a relayout, and every spot it
// passes while that one runs is replaced by the next, so only the last is sent when it ends. `send(update)` takes
// the update as a function, called when it is sent (it reads the plot's ranges as they are then). A relayout that
// fails frees the loop without sending what waits (the next move sends again).
/** @param {HTMLElement} gd @returns {(update: () => Record<string, unknown>) => void} */
export function latestRelayout(gd) {
  let busy = false;
  /** @type {(() => Record<string, unknown>) | null} */
  let next = null;
  function flush() {
    if (!next || busy) return;
    const upd = next();
    next = null; busy = true;
    Promise.resolve(globalThis.Plotly.relayout(gd, upd)).then(() => { busy = false; flush(); }, () => { busy = false; });
  }
  return (update) => { next = update; flush(); };
}
