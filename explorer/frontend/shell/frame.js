// What the one-program app (app/app.js) and the diff (diff/diff.js) share as a frame around their panels: plotly's
// config, the plan selector, publishing state to the model, and plots that follow their boxes' widths.

/** plotly config of every figure: no logo, wheel zoom, no selection tools (a click selects). Not `responsive`:
 * plotly's own resize autosizes the height too, and a figure whose height the app sets would collapse */
export const CONFIG = {displaylogo: false, responsive: false, scrollZoom: true,
                       modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"]};

/** state the user changed -> the model (and Python, in the widget); only a real change, so a value that came
 * from Python is not echoed back
 * @param {{get: function(string): any, set: function(string, any): void, save_changes: function(): void}} model */
export function publisher(model) {
  return function publish(/** @type {string} */ key, /** @type {any} */ value) {
    if (JSON.stringify(model.get(key)) === JSON.stringify(value)) return;
    model.set(key, value);
    model.save_changes();
  };
}

/** the plan selector: one option per plan (labels are plain text), disabled when there is one
 * @param {HTMLSelectElement} box @param {{name: string, label: string}[]} plans */
export function fillPlans(box, plans) {
  for (const p of plans) {
    const o = document.createElement("option");
    o.textContent = p.label;
    o.value = p.name;
    box.appendChild(o);
  }
  box.disabled = plans.length < 2;
}

/** each figure takes its box's width when the box changes (a notebook cell, a resized window): the width is
 * set, the height the app gave it is kept
 * @param {any[]} gds plotly divs */
export function followWidth(gds) {
  if (typeof ResizeObserver === "undefined") return;
  let pending = 0;
  const resize = new ResizeObserver(() => {  // only a real change of width: not the call observe() makes
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => {
      for (const gd of gds) {
        const w = gd.clientWidth;
        if (gd._fullLayout && w > 0 && Math.abs(gd._fullLayout.width - w) > 1) globalThis.Plotly.relayout(gd, {width: w});
      }
    });
  });
  for (const gd of gds) resize.observe(gd.parentElement);
}
