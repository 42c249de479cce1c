"""Memory map of every plan: its arenas and their rows, which the app draws as one lane per arena.

The browser app (``explorer/frontend/lod/figures.js`` builds the lanes' axes, titles, arena ends and the band past
them; ``explorer/frontend/lod/details.js`` fills them) draws a lane's tensors as blocks when each is at least 3 px
wide and tall at the zoom shown and there are at most ``BLOCK_LIMIT``; otherwise the largest (on screen) stay
blocks and the rest become occupancy cells, until a zoom makes them legible. An aggregated lane's cells are not
traces: they are drawn as one layout image per lane (one pixel per cell; thousands of SVG bars cost ~1 s of a
1k-op program's first view, and the app's plotly.js bundle has no heatmap), and the app answers the pointer over
them by a hit test (``explorer/frontend/panels/cells.js``).

An aggregated lane bins the instruction window shown (``x``) × the arena's bytes (``y``) into at most
``BINS`` cells; a cell's value is the fraction of its area (steps × bytes) that live tensors cover,
computed exactly, and its hover says how many tensors touch it. Tensors that an error finding names are
drawn as blocks in every lane, aggregated or not, so nothing a check reported hides in a bin. Python
sends the lanes' rows and each arena's summary (``report_lod``); the app draws them.
"""

from __future__ import annotations

import numpy as np

from explorer.model.program import Plan

__all__ = ["MemoryLod", "BLOCK_LIMIT", "BINS"]

BLOCK_LIMIT = 4_000  # blocks a lane draws at most; more are binned
BINS = (200, 32)  # instruction bins × byte bins of an aggregated lane (the pixels of its image)


class MemoryLod:
    """The memory map of one plan: its arenas and their rows (value, offset, bytes, lifetime)."""

    def __init__(self, plan: Plan, analysis):
        self.plan, self.analysis = plan, analysis
        self.arenas = analysis.arenas
        self.rows = [analysis.arena_rows(a.memory_id) for a in self.arenas]

    def past_end(self) -> list[int]:
        """Per arena, how many of its tensors reach past its end (the note on the lane's red band)."""
        return [int((rows["offset"] + np.maximum(rows["nbytes"], 0) > arena.size).sum())
                for arena, rows in zip(self.arenas, self.rows)]
