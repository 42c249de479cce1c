// A short box (index.js fitHost: a host that caps an output's height, as marimo's editor does at ~610 px, or the widget's
// `height` trait): the one-program app's compact layout. The graph and the memory map side by side under the controls
// row (style.css .dx-compact), each as tall as the box leaves it, so the box's first view holds the controls row, the
// graph and the memory map with no scroll; the details, the findings and the per-device table follow under the memory
// map, in the box's own scroll. The graph gets the room left (lod/graph.js, LodHost room); the memory map is made
// shorter when it does not fit (its lanes squeezed, no shorter than LANE_MIN each).
import {LANES_CHROME} from "../lod/figures.js";

const SLACK = 2;  // px kept between a card's bottom edge and the box's
const LANE_MIN = 60;  // px a lane keeps at the least

/**
 * @param {HTMLElement} el the app's element (the box index.js fits) @param {PlotDiv} graphDiv @param {PlotDiv} memoryDiv
 * @param {() => number} lanes the current plan's memory lanes @param {() => void} home draws the graph again at its home
 * view (at the room now left it)
 */
export function boxFit(el, graphDiv, memoryDiv, lanes, home) {
  const root = /** @type {HTMLElement} */ (graphDiv.closest(".dx-app"));
  let room = Infinity;  // the graph's height in the compact layout (Infinity: as tall as its layers)
  let natural = 0;  // the memory figure's own height (lod/figures.js), as the plan drew it
  /** @type {number | null} */
  let limit = null;
  /** the px from the box's top to an element's bottom edge, at the box's scroll top @param {Element} node */
  const bottom = (node) => node.getBoundingClientRect().bottom - el.getBoundingClientRect().top + el.scrollTop;
  /** the figure's height as drawn @param {PlotDiv} gd */
  const drawnHeight = (gd) => (gd._fullLayout && gd._fullLayout.height) || gd.getBoundingClientRect().height;

  /** lay the app out for a box `to` px tall (null: no box, the app as tall as it is) @param {number | null} to */
  function fit(to) {
    const was = limit;
    limit = to;
    root.classList.toggle("dx-compact", to !== null);
    if (to !== null) { again(); return; }
    room = Infinity;
    if (was === null) return;
    home();
    if (natural) globalThis.Plotly.relayout(memoryDiv, {height: natural});
  }

  /** the compact layout measured (the box given; a plan switched to, drawn at its own heights) */
  function again() {
    if (limit === null || !graphDiv._fullLayout) return;
    room = Math.round(drawnHeight(graphDiv) + (limit - SLACK - bottom(/** @type {HTMLElement} */ (graphDiv.parentElement))));
    home();
    if (!memoryDiv._fullLayout) return;
    natural = drawnHeight(memoryDiv);
    const card = /** @type {HTMLElement} */ (memoryDiv.closest(".dx-memory-card") || memoryDiv);
    const left = natural + (limit - SLACK - bottom(card)), least = LANE_MIN * Math.max(lanes(), 1) + LANES_CHROME;
    const height = Math.round(Math.min(natural, Math.max(least, left)));
    if (height < natural) globalThis.Plotly.relayout(memoryDiv, {height});
  }

  return {fit, again, room: () => room};
}
