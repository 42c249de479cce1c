"""A zero-height widget that reports the pixel widths of named boxes of its own widget tree.

Plotly's ``FigureWidget`` view sizes itself once, before it is laid out (falling back to 700 px), and
under anywidget it never hears about later resizes; so the Explorer and the Diff measure their boxes in
the page and set ``layout.width`` from Python whenever they change (notebook resized, sidebar toggled).
"""

from __future__ import annotations

import anywidget
import traitlets

__all__ = ["SizeProbe"]


class SizeProbe(anywidget.AnyWidget):
    """``widths[k]`` is the width of the element with CSS class ``boxes[k]`` inside the nearest
    ancestor with class ``root``; updated (debounced) on every resize once all are laid out."""

    _esm = """
    function render({ model, el }) {
      let root = null, observer = null, timer = null, tries = 0;
      const measure = () => {
        const names = model.get("boxes") || [];
        const widths = names.map((c) => { const b = root.querySelector("." + c); return b ? Math.floor(b.clientWidth) : 0; });
        const old = model.get("widths") || [];
        if (widths.every((w) => w > 50) && widths.some((w, k) => w !== old[k])) {
          model.set("widths", widths);
          model.save_changes();
        }
      };
      const attach = () => {
        root = el.closest("." + model.get("root"));
        if (!root) { if (tries++ < 600) requestAnimationFrame(attach); return; }
        observer = new ResizeObserver(() => { clearTimeout(timer); timer = setTimeout(measure, 50); });
        observer.observe(root);
        measure();
      };
      attach();
      return () => { if (observer) observer.disconnect(); clearTimeout(timer); };
    }
    export default { render };
    """
    root = traitlets.Unicode().tag(sync=True)  # CSS class of the widget tree to search
    boxes = traitlets.List(traitlets.Unicode(), default_value=[]).tag(sync=True)  # CSS classes measured
    widths = traitlets.List(traitlets.Int(), default_value=[]).tag(sync=True)  # set by the page
