import {bytesText, countText} from "../util/format.js";

// The binned cells of an aggregated memory lane (lod/details.js): instruction window × arena bytes cut into
// nx × ny cells, each holding the exact share of its area that live tensors cover.
//
// Why a raster: drawn as SVG bars, a 1k-op device program's two lanes of ~1,400 one-step tensors made
// ~6,000 bars and cost ~1 s of the report's first view. The cells are one image per lane (a canvas made into
// a plotly layout image, one pixel per cell, scaled without smoothing). They answer the pointer by a hit test
// (cellPointer): the cell under the cursor, unless a drawn block is there. Plotly's own "closest" hover could
// not do it: an invisible point per cell won over the named block the cursor was inside (a bar hovers at a
// distance of ~20 px, a point at its real distance), and left parts of a wide cell without hover.

// Exact coverage: for each cell the area (steps × bytes) of the tensors over it, as a share of the cell's
// area, how many tensors touch it, and the largest of those (bytes × lifetime, for the hover).
// `rect(v)` gives a tensor's [x0, x1, y0, y1] (instructions, bytes); `w` the window [lo, hi]; `flag(v)`
// (optional; a diff's changed tensors): `flagged` counts, per cell, the touching tensors it is truthy for.
/** @typedef {{nx: number, ny: number, w: number[], height: number, step: number, rise: number, share: Float64Array,
 *  count: Int32Array, top: Int32Array, flagged: Int32Array | null}} Grid */
/**
 * @param {number[]} vals @param {(v: number) => number[]} rect @param {number[]} w @param {number} height
 * @param {number} nx @param {number} ny @param {(v: number) => unknown} [flag] @returns {Grid}
 */
export function occupancy(vals, rect, w, height, nx, ny, flag) {
  let share = new Float64Array(ny * nx), count = new Int32Array(ny * nx), top = new Int32Array(ny * nx).fill(-1);
  let flagged = flag ? new Int32Array(ny * nx) : null;
  let topSize = new Float64Array(ny * nx), sx = nx / (w[1] - w[0]), sy = ny / height;
  vals.forEach(function (v) {
    let b = rect(v), size = (b[3] - b[2]) * (b[1] - b[0]);
    let ua = Math.min(Math.max((b[0] - w[0]) * sx, 0), nx), ub = Math.min(Math.max((b[1] - w[0]) * sx, 0), nx);
    let va = Math.min(Math.max(b[2] * sy, 0), ny), vb = Math.min(Math.max(b[3] * sy, 0), ny);
    if (!(ub > ua && vb > va)) return;
    let hit = flagged && flag && flag(v) ? 1 : 0;
    let i0 = Math.min(Math.floor(ua), nx - 1), i1 = Math.max(Math.ceil(ub) - 1, i0);
    let j0 = Math.min(Math.floor(va), ny - 1), j1 = Math.max(Math.ceil(vb) - 1, j0);
    for (let j = j0; j <= j1; j++) {
      let fy = Math.min(vb, j + 1) - Math.max(va, j);
      for (let i = i0; i <= i1; i++) {
        let c = j * nx + i;
        share[c] += (Math.min(ub, i + 1) - Math.max(ua, i)) * fy; count[c] += 1;
        if (hit && flagged) flagged[c] += 1;
        if (top[c] < 0 || size > topSize[c]) { top[c] = v; topSize[c] = size; }
      }
    }
  });
  for (let c = 0; c < share.length; c++) share[c] = Math.min(share[c], 1);  // overlapping tensors: at most full
  return {nx: nx, ny: ny, w: w, height: height, step: (w[1] - w[0]) / nx, rise: height / ny, share: share, count: count, top: top,
          flagged: flagged};
}

// The non-empty cell at (x instructions, y bytes), or -1.
/** @param {Grid} grid @param {number} x @param {number} y @returns {number} */
export function cellAt(grid, x, y) {
  let i = Math.floor((x - grid.w[0]) / grid.step), j = Math.floor(y / grid.rise);
  if (!(i >= 0 && i < grid.nx && j >= 0 && j < grid.ny)) return -1;
  let c = j * grid.nx + i;
  return grid.count[c] ? c : -1;
}

// What cell c holds, as plain text lines (shown with textContent): the instructions it spans, the share in use,
// how many tensors touch it (and how many of them are flagged: `noun`, e.g. "changed"), the largest of them.
// `m`: the plan's instructions; `label(v)` and `bytes(v)`: a tensor's name and size.
// toIndex: the lane's x axis -> instruction units, when the axis is another (measured time); else identity
/**
 * @param {Grid} grid @param {number} c @param {number} m @param {(v: number) => string} label @param {(v: number) => number} bytes
 * @param {string} [noun] @param {(x: number) => number} [toIndex]
 * @returns {{head: string, largest: [string, string] | null, centre: number}}
 */
export function cellLines(grid, c, m, label, bytes, noun, toIndex) {
  let i = c % grid.nx, n = grid.count[c], top = grid.top[c], w = grid.w, back = toIndex || function (/** @type {number} */ x) { return x; };
  let x0 = Math.max(0, Math.ceil(back(w[0] + i * grid.step))), x1 = Math.min(m - 1, Math.floor(back(w[0] + (i + 1) * grid.step)));
  let head = "#" + countText(x0) + " \u2013 #" + countText(Math.max(x0, x1)) + " \u00b7 " + Math.round(100 * grid.share[c]) + "% in use \u00b7 " +
    countText(n) + " tensor" + (n === 1 ? "" : "s") + (grid.flagged && grid.flagged[c] ? " (" + countText(grid.flagged[c]) + " " + (noun || "flagged") + ")" : "");
  return {head: head, largest: top >= 0 ? [label(top), bytesText(bytes(top))] : null, centre: w[0] + (i + 0.5) * grid.step};
}

// The cells as RGBA pixels, one per cell, top row first (the highest bytes): the lane's colour `rgb`
// ([r, g, b]) at an opacity from 0.12 (a cell barely touched) to 1 (full); empty cells transparent.
/** @param {Grid} grid @param {number[]} rgb @returns {Uint8ClampedArray<ArrayBuffer>} */
export function cellPixels(grid, rgb) {
  let px = new Uint8ClampedArray(grid.nx * grid.ny * 4);
  for (let j = 0; j < grid.ny; j++) {
    let row = (grid.ny - 1 - j) * grid.nx;
    for (let i = 0; i < grid.nx; i++) {
      let c = j * grid.nx + i;
      if (!grid.count[c]) continue;
      let p = 4 * (row + i);
      px[p] = rgb[0]; px[p + 1] = rgb[1]; px[p + 2] = rgb[2]; px[p + 3] = Math.round(255 * (0.12 + 0.88 * grid.share[c]));
    }
  }
  return px;
}

// The plotly layout image of a lane's cells, placed over the window and the arena's bytes on axes
// (xref, yref); null where there is no canvas (node's test runner checks the pixels themselves).
/** @param {Grid} grid @param {number[]} rgb @param {string} xref @param {string} yref @param {number} opacity
 *  @returns {Record<string, unknown> | null} */
export function cellImage(grid, rgb, xref, yref, opacity) {
  if (typeof document === "undefined") return null;
  let canvas = document.createElement("canvas");
  canvas.width = grid.nx; canvas.height = grid.ny;
  /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d")).putImageData(new ImageData(cellPixels(grid, rgb), grid.nx, grid.ny), 0, 0);
  return {source: canvas.toDataURL("image/png"), xref: xref, yref: yref, x: grid.w[0], y: grid.height,
          sizex: grid.w[1] - grid.w[0], sizey: grid.height, sizing: "stretch", xanchor: "left", yanchor: "top",
          layer: "below", opacity: opacity, name: "cells"};
}

// -- the pointer over a memory figure's cells (browser only) -----------------------------------------------

// One per figure div, kept on it: the owner (the lodPlan drawing the figure now) gives `hit(px, py)` -> null or
// {lines (cellLines), zoom(): zoom in around the cell}, px/py relative to the figure. Only while the figure
// shows cell images: a lane drawn as blocks into the same div afterwards has none, so nothing answers.
/** @typedef {{lines: {head: string, largest: [string, string] | null}, zoom(): void}} CellHit */
/**
 * @param {PlotDiv} gd
 * @returns {{use(fn: (px: number, py: number) => CellHit | null): void, hide(): void, tip(): HTMLDivElement | null}}
 */
export function cellPointer(gd) {
  if (gd.dxCells) return gd.dxCells;
  /** @type {((px: number, py: number) => CellHit | null) | null} */
  let hit = null;
  /** @type {HTMLDivElement | null} */
  let tip = null;
  /** @type {number[] | null} */
  let down = null;
  function showsCells() { return ((gd.layout || {}).images || []).some(function (/** @type {{name?: string}} */ im) { return im.name === "cells"; }); }
  function at(/** @type {MouseEvent} */ ev) {
    if (!hit || !showsCells()) return null;
    let r = gd.getBoundingClientRect();
    return hit(ev.clientX - r.left, ev.clientY - r.top);
  }
  function hide() { if (tip) tip.hidden = true; }
  function show(/** @type {MouseEvent} */ ev, /** @type {CellHit} */ h) {
    let host = gd.querySelector(".svg-container");
    if (!host) return;
    if (!tip || tip.parentNode !== host) {
      tip = document.createElement("div");
      tip.className = "dx-celltip";
      host.appendChild(tip);
    }
    const box = tip;
    box.textContent = "";
    /** @param {string} text @param {string} [cls] */
    let line = function (text, cls) { let d = document.createElement("div"); if (cls) d.className = cls; d.textContent = text; box.appendChild(d); return d; };
    line(h.lines.head);
    if (h.lines.largest) {
      let d = line("largest: ");
      let b = document.createElement("b");
      b.textContent = h.lines.largest[0];
      d.appendChild(b);
      d.appendChild(document.createTextNode(" " + h.lines.largest[1]));
    }
    line("click to zoom in", "dx-muted");
    box.hidden = false;
    let r = gd.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
    let left = x + 14, w = box.offsetWidth;
    if (left + w > r.width - 4) left = Math.max(4, x - 14 - w);
    box.style.left = left + "px";
    box.style.top = Math.max(4, y - box.offsetHeight - 10) + "px";
  }
  gd.addEventListener("mousemove", function (ev) {
    if (ev.buttons) { hide(); return; }  // a pan in progress
    let h = at(ev);
    if (h) show(ev, h); else hide();
  });
  gd.addEventListener("mouseleave", hide);
  gd.addEventListener("mousedown", function (ev) { down = [ev.clientX, ev.clientY]; });
  gd.addEventListener("click", function (ev) {
    let moved = down && Math.abs(ev.clientX - down[0]) + Math.abs(ev.clientY - down[1]) > 3;
    down = null;
    if (moved) return;  // the end of a pan, not a click
    let h = at(ev);
    if (h) { hide(); h.zoom(); }
  });
  // hide(): the owner redraws the lanes (a zoom, a pan, a device filter): what the label said may be gone
  gd.dxCells = {use: function (/** @type {(px: number, py: number) => CellHit | null} */ fn) { hit = fn; hide(); }, hide: hide, tip: function () { return tip; }};
  return gd.dxCells;
}
