"""Memory map of every plan: the lanes' figure skeleton the app fills in.

The browser app (``explorer/frontend/lod_panels.js``) draws a lane's tensors as blocks when each is at
least 3 px wide and tall at the zoom shown and there are at most ``BLOCK_LIMIT``; otherwise the largest
(on screen) stay blocks and the rest become occupancy cells, until a zoom makes them legible.
Lanes, axes and titles come from :func:`.lanes.lanes_layout`. Per lane the trace order is ``2k`` blocks
drawn, ``2k + 1`` selection outline, then the legend. An aggregated lane's cells are not traces: they are drawn as one layout image per lane (one pixel
per cell; thousands of SVG bars cost ~1 s of a 1k-op program's first view, and the app's plotly.js bundle
has no heatmap), and the app answers the pointer over them by a hit test (``explorer/frontend/cells.js``).

An aggregated lane bins the instruction window shown (``x``) × the arena's bytes (``y``) into at most
``BINS`` cells; a cell's value is the fraction of its area (steps × bytes) that live tensors cover,
computed exactly, and its hover says how many tensors touch it. Tensors that an error finding names are
drawn as blocks in every lane, aggregated or not, so nothing a check reported hides in a bin. Python
sends the figure's skeleton (:meth:`MemoryLod.figure`) and the lanes' rows (``report_lod``); the app
draws them.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..model import Plan
from .lanes import BLOCK_TEXT, empty_memory_figure, lane_axes, lanes_layout, legend_entries, selection_trace

__all__ = ["MemoryLod", "BLOCK_LIMIT", "BINS"]

BLOCK_LIMIT = 4_000  # blocks a lane draws at most; more are binned
BINS = (200, 32)  # instruction bins × byte bins of an aggregated lane (the pixels of its image)


class MemoryLod:
    """The memory map of one big plan: its arenas and their rows (value, offset, bytes, lifetime)."""

    def __init__(self, plan: Plan, analysis):
        self.plan, self.analysis = plan, analysis
        self.arenas = analysis.arenas
        self.rows = [analysis.arena_rows(a.memory_id) for a in self.arenas]
        self.n = len(plan.instructions)

    def traces(self) -> list[dict]:
        """Blocks and selection per lane: styled, without data (module docstring)."""
        out = []
        for k, arena in enumerate(self.arenas):
            x, y = lane_axes(k)
            out.append({"type": "bar", "x": [], "width": [], "base": [], "y": [], "customdata": [], "orientation": "v",
                        "name": f"arena {arena.memory_id}", "hovertext": [], "hoverinfo": "text", "showlegend": False,
                        "xaxis": x, "yaxis": y, "text": [], **BLOCK_TEXT, "textfont": {"size": 10, "color": []},
                        "marker": {"color": [], "opacity": [], "line": {"color": [], "width": []},
                                   "pattern": {"fgcolor": "white", "size": 6, "solidity": 0.25}}})
            out.append(selection_trace({"x": [], "width": [], "base": [], "y": [], "customdata": []}, x, y))
        return out

    def layout(self) -> dict:
        past = [int((rows["offset"] + np.maximum(rows["nbytes"], 0) > arena.size).sum())  # tensors past the end
                for arena, rows in zip(self.arenas, self.rows)]
        layout = lanes_layout(self.arenas, self.n, past=past)
        for k in range(len(self.arenas)):  # ticks that follow a zoom (not one every n/16 instructions)
            axis = layout[lane_axes(k)[0].replace("x", "xaxis")]
            del axis["tick0"], axis["dtick"]
            axis["nticks"] = max(2, min(16, self.n))  # a few instructions: no half-step ticks printed twice as "d"
        return layout

    def figure(self) -> go.Figure:
        """The skeleton: lanes' axes and titles, styled traces without data, the legend."""
        if not self.arenas:
            return empty_memory_figure()
        devices = {self.analysis.facts.device(int(c)) for rows in self.rows for c in np.unique(rows["dcode"]).tolist()}
        return go.Figure(data=self.traces() + legend_entries(devices), layout=self.layout(), _validate=False)
