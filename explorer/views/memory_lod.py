"""Memory map of a big plan: lanes with more than ``BLOCK_LIMIT`` tensors are drawn as occupancy cells,
and show their tensors again once a zoom leaves few enough in view.

Same lanes, axes and titles as :func:`.memory.build_memory_figure` (:func:`.memory.lanes_layout`), built
from :class:`~explorer.analysis.lazy.LazyAnalysis` arrays instead of ``Block`` records. Per lane the
trace order is the small map's — ``2k`` blocks drawn, ``2k + 1`` selection outline — then one trace of
cells per lane (``2 * lanes + k``, hidden when the lane draws its blocks), then the legend. The cells
are bars (one per non-empty bin, shaded by how much of it is in use): the app's plotly.js bundle has no
heatmap, and a bar per cell hovers and clicks like a block.

An aggregated lane bins the instruction window shown (``x``) × the arena's bytes (``y``) into at most
``BINS`` cells; a cell's value is the fraction of its area (steps × bytes) that live tensors cover,
computed exactly (:func:`occupancy`), and its hover says how many tensors touch it. The lane says
what it aggregates ("aggregated: 31,204 tensors in 200×64 bins — zoom in to see tensors"). Tensors
that an error finding names are drawn as blocks in every lane, aggregated or not, so nothing a check
reported hides in a bin. :meth:`MemoryLod.set_window` (the x range of a zoom) re-bins the window,
or draws its blocks when at most ``BLOCK_LIMIT`` are in it.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..model import Plan, Tensor
from .escape import plotly_text
from .memory import MIN_HEIGHT, MIN_WIDTH, empty_memory_figure, lane_axes, lanes_layout, legend_entries, selection_trace
from .palette import BLOCK_OPACITY, ERROR, INK, SELECT, device_style
from .text import tensor_hover

__all__ = ["MemoryLod", "occupancy", "BLOCK_LIMIT", "BINS"]

BLOCK_LIMIT = 4_000  # blocks a lane draws at most; more are binned
BINS = (200, 64)  # instruction bins × byte bins of an aggregated lane
_SELECTED_LIMIT = 2_000  # selected blocks outlined per lane at most
_LINE_LIMIT = 50  # selected-instruction lines at most


def occupancy(x0: np.ndarray, x1: np.ndarray, y0: np.ndarray, y1: np.ndarray, window: tuple[float, float],
              height: float, bins: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Rectangles ``[x0, x1) × [y0, y1)`` binned over ``window × [0, height)`` into ``bins`` (nx, ny):
    ``(covered fraction of each cell, rectangles touching it)``, both shaped ``(ny, nx)``.

    Exact: a rectangle's coverage of a cell is the product of its x and y coverage, and each axis
    splits into at most three pieces (partial first bin, full middle bins, partial last bin), so the
    nine products are rectangles of constant value summed with a 2-D difference array.
    """
    nx, ny = bins
    occ = np.zeros((ny + 1, nx + 1))
    cnt = np.zeros((ny + 1, nx + 1))
    ux = _bin_units(x0, x1, window[0], window[1], nx)
    uy = _bin_units(y0, y1, 0.0, height, ny)
    keep = (ux[1] > ux[0]) & (uy[1] > uy[0])
    px, py = _pieces(*(u[keep] for u in ux), nx), _pieces(*(u[keep] for u in uy), ny)
    for xl, xh, xv, xm in px:
        for yl, yh, yv, ym in py:
            sel = xm & ym
            _rect_add(occ, xl[sel], xh[sel], yl[sel], yh[sel], (xv * yv)[sel])
    first_x, last_x = _touched(*(u[keep] for u in ux), nx)
    first_y, last_y = _touched(*(u[keep] for u in uy), ny)
    _rect_add(cnt, first_x, last_x, first_y, last_y, np.ones(first_x.size))
    occ = occ.cumsum(0).cumsum(1)[:ny, :nx]
    cnt = cnt.cumsum(0).cumsum(1)[:ny, :nx]
    return np.maximum(occ, 0), np.rint(cnt).astype(np.int64)


SHADES = 8  # levels of "share in use" a binned lane is drawn with


def cells(occ: np.ndarray, cnt: np.ndarray, window: tuple[float, float], height: float) -> dict:
    """The non-empty bins of :func:`occupancy` as bar arrays, a row's neighbouring bins of the same shade
    (the share in use, in ``SHADES`` levels) merged into one bar — thousands of SVG bars draw slowly, a
    lane is mostly a few runs: x centre, width, base, height, ``marker.color`` (the shade) and
    ``customdata`` rows ``[most tensors touching one of its bins, shade]``."""
    ny, nx = occ.shape
    step, rise = (window[1] - window[0]) / nx, height / ny
    level = np.where(cnt > 0, np.rint(np.minimum(occ, 1.0) * SHADES), -1).astype(np.int64)
    xs, ws, bs, most, shade = [], [], [], [], []
    for j in range(ny):
        row = level[j]
        cut = np.flatnonzero(np.diff(row)) + 1
        for a, b in zip(np.concatenate([[0], cut]).tolist(), np.concatenate([cut, [nx]]).tolist()):
            if row[a] < 0:
                continue
            xs.append(window[0] + (a + b) / 2 * step)
            ws.append((b - a) * step)
            bs.append(j * rise)
            most.append(int(cnt[j, a:b].max()))
            shade.append(row[a] / SHADES)
    shade_a = np.asarray(shade, dtype=float)
    return {"x": np.asarray(xs, dtype=float), "width": np.asarray(ws, dtype=float), "base": np.asarray(bs, dtype=float),
            "y": np.full(len(xs), rise), "marker.color": shade_a,
            "customdata": np.stack([np.asarray(most, dtype=float), shade_a], axis=1) if xs else np.zeros((0, 2))}


class MemoryLod:
    """The memory map of one big plan and its zoom window."""

    def __init__(self, plan: Plan, analysis, *, limit: int = BLOCK_LIMIT, bins: tuple[int, int] = BINS):
        self.plan, self.analysis, self.limit, self.bins = plan, analysis, limit, bins
        self.arenas = analysis.arenas
        self.rows = [analysis.arena_rows(a.memory_id) for a in self.arenas]
        self.n = len(plan.instructions)
        self.window: tuple[float, float] | None = None  # instruction range shown (None: all)
        self.errors = np.asarray(sorted({v for f in analysis.findings if f.severity == "error" for v in f.values}),
                                 dtype=np.int64)

    def aggregated(self, k: int) -> bool:
        """Lane ``k`` has more tensors than it draws at once."""
        return len(self.rows[k]["value"]) > self.limit

    def set_window(self, x0: float | None, x1: float | None) -> bool:
        """Show instructions [x0, x1] (None: all); True when a lane's picture changes."""
        window = None if x0 is None or x1 is None or (x0 <= -0.5 and x1 >= self.n - 0.5) else \
            (max(float(x0), -0.5), min(float(x1), self.n - 0.5))
        if window == self.window:
            return False
        self.window = window
        return any(self.aggregated(k) for k in range(len(self.rows)))

    def _span(self) -> tuple[float, float]:
        return self.window or (-0.5, max(self.n, 1) - 0.5)

    def lane(self, k: int) -> dict:
        """What lane ``k`` draws now: ``blocks`` (row indices), ``heat`` (occupancy, counts, edges) or None,
        and ``note`` (what is aggregated)."""
        rows = self.rows[k]
        b0, b1 = self._bounds(rows)
        x0, x1 = self._span()
        total = len(rows["value"])
        if not self.aggregated(k):
            return {"blocks": np.arange(total), "heat": None, "note": ""}
        inside = np.flatnonzero((b1 > x0) & (b0 < x1))
        if inside.size <= self.limit:
            return {"blocks": inside, "heat": None,
                    "note": f"showing {inside.size:,} of {total:,} tensors (#{max(x0, 0):,.0f} – #{x1:,.0f})"}
        arena = self.arenas[k]
        height = float(max(arena.size, arena.high_water, 1))
        nx = int(max(1, min(self.bins[0], np.ceil(x1 - x0))))
        occ, cnt = occupancy(b0[inside], b1[inside], rows["offset"][inside].astype(float),
                             (rows["offset"] + rows["nbytes"])[inside].astype(float), (x0, x1), height, (nx, self.bins[1]))
        errors = np.flatnonzero(np.isin(rows["value"], self.errors))
        where = "" if self.window is None else " in view"
        return {"blocks": errors, "heat": (occ, cnt, (x0, x1), height),
                "note": f"aggregated: {inside.size:,} tensors{where} in {nx}×{self.bins[1]} bins — zoom in to see tensors"}

    def _bounds(self, rows: dict) -> tuple[np.ndarray, np.ndarray]:
        span = max(self.n, 1)
        none = rows["first"] < 0
        return (np.where(none, 0, rows["first"]) - 0.5).astype(float), \
            (np.where(none, span - 1, rows["last"]) + 0.5).astype(float)

    # -- traces -------------------------------------------------------------------------------------

    def traces(self, hidden=frozenset(), values=()) -> list[dict]:
        """Blocks and selection per lane, heatmaps, legend (module docstring)."""
        hidden = {str(d) for d in hidden}
        lanes = [self.lane(k) for k in range(len(self.rows))]
        selected = self.highlight(values)[0]
        out = []
        for k, lane in enumerate(lanes):
            x, y = lane_axes(k)
            out.append(self.blocks_trace(k, lane["blocks"], hidden) | {"xaxis": x, "yaxis": y})
            out.append(selection_trace(selected[k], x, y))
        out.extend(self.heat_trace(k, lane["heat"], hidden) for k, lane in enumerate(lanes))
        return out

    def blocks_trace(self, k: int, idx: np.ndarray, hidden: set[str]) -> dict:
        rows, f = self.rows[k], self.analysis.facts
        b0, b1 = self._bounds(rows)
        values = rows["value"][idx].tolist()
        devices = [f.device(int(c)) for c in rows["dcode"][idx].tolist()]
        styles = [device_style(d) for d in devices]
        no_life = (rows["first"][idx] < 0).tolist()
        errors = set(self.errors.tolist())
        hatches = ["/" if n else s.pattern for n, s in zip(no_life, styles)]
        shown, faded = BLOCK_OPACITY
        marker = {"color": [s.color for s in styles], "opacity": [faded if str(d) in hidden else shown for d in devices],
                  "line": {"color": [ERROR if v in errors else "white" for v in values],
                           "width": [2.5 if v in errors else 0.6 for v in values]}}
        if any(hatches):
            marker["pattern"] = {"shape": hatches, "fgcolor": "white", "size": 6, "solidity": 0.25}
        hover = []
        for v, lo, hi, none in zip(values, rows["first"][idx].tolist(), rows["last"][idx].tolist(), no_life):
            t = self.plan.values[v]
            hover.append(tensor_hover(t, None if none else (lo, hi)) if isinstance(t, Tensor) else f"%{v}")
        x0, x1 = self._span()
        height = max(self.arenas[k].size, self.arenas[k].high_water, 1)
        return {"type": "bar", "x": (b0[idx] + b1[idx]) / 2, "width": np.maximum(b1[idx] - b0[idx], (x1 - x0) * MIN_WIDTH),
                "base": rows["offset"][idx].astype(float),
                "y": np.maximum(rows["nbytes"][idx].astype(float), height * MIN_HEIGHT),
                "customdata": rows["value"][idx], "orientation": "v", "name": f"arena {self.arenas[k].memory_id}",
                "hovertext": hover, "hoverinfo": "text", "showlegend": False, "marker": marker}

    def heat_trace(self, k: int, heat, hidden: set[str]) -> dict:
        arena = self.arenas[k]
        x, y = lane_axes(k)
        color = device_style(arena.device).color
        r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
        base = {"type": "bar", "orientation": "v", "name": f"arena {arena.memory_id} (aggregated)",
                "xaxis": x, "yaxis": y, "showlegend": False,
                "marker": {"line": {"width": 0}},
                "opacity": BLOCK_OPACITY[1] if str(arena.device) in hidden else 1.0,
                "hovertemplate": "≈ instruction %{x:.0f}<br>%{customdata[1]:.0%} in use · %{customdata[0]:,} tensors"
                                 "<extra>aggregated</extra>"}
        if heat is None:
            return base | {"visible": False, "x": [], "y": [], "width": [], "base": [], "customdata": []}
        c = cells(*heat)
        shade = c.pop("marker.color")  # the device's colour, more opaque the more of the cell is in use
        colors = [f"rgba({r},{g},{b},{0.12 + 0.88 * s:.2f})" for s in shade.tolist()]
        return base | {"visible": True, **c, "marker": {**base["marker"], "color": colors}}

    def highlight(self, values=(), instructions=()) -> tuple[list[dict], list[dict]]:
        """Selection overlay: per lane the selected blocks (outlined), and instruction lines."""
        chosen = np.asarray(sorted(set(values)), dtype=np.int64)
        lanes = []
        for rows in self.rows:
            idx = np.flatnonzero(np.isin(rows["value"], chosen))[:_SELECTED_LIMIT] if chosen.size else np.zeros(0, int)
            b0, b1 = self._bounds(rows)
            lanes.append({"x": (b0[idx] + b1[idx]) / 2, "width": b1[idx] - b0[idx],
                          "base": rows["offset"][idx].astype(float), "y": rows["nbytes"][idx].astype(float),
                          "customdata": rows["value"][idx]})
        shapes = [{"type": "line", "xref": "x", "yref": "paper", "x0": i, "x1": i, "y0": 0, "y1": 1,
                   "line": {"color": SELECT, "width": 2}, "name": "selected instruction"}
                  for i in list(instructions)[:_LINE_LIMIT] if 0 <= i < self.n]
        return lanes, shapes

    def notes(self) -> list[dict]:
        """One annotation per lane saying what it aggregates (empty text when nothing is)."""
        layout = lanes_layout(self.arenas, self.n)
        out = []
        for k, title in enumerate(layout["annotations"]):
            out.append({"text": plotly_text(self.lane(k)["note"]), "xref": "paper", "yref": "paper", "x": 1,
                        "y": title["y"], "xanchor": "right", "yanchor": "top", "yshift": -4, "showarrow": False,
                        "font": {"size": 11, "color": INK}, "bgcolor": "rgba(255,255,255,0.85)", "name": "aggregated"})
        return out

    def layout(self) -> dict:
        layout = lanes_layout(self.arenas, self.n)
        layout["annotations"] += self.notes()
        for k in range(len(self.arenas)):  # ticks that follow a zoom (not one every n/16 instructions)
            axis = layout[lane_axes(k)[0].replace("x", "xaxis")]
            del axis["tick0"], axis["dtick"]
            axis["nticks"] = 16
        if self.window is not None:
            layout["xaxis"]["range"] = list(self.window)
        return layout

    def figure(self, hidden=frozenset(), values=(), instructions=()) -> go.Figure:
        if not self.arenas:
            return empty_memory_figure()
        layout = self.layout()
        layout["shapes"].extend(self.highlight(values, instructions)[1])
        devices = {self.analysis.facts.device(int(c)) for rows in self.rows for c in np.unique(rows["dcode"]).tolist()}
        return go.Figure(data=self.traces(hidden, values) + legend_entries(devices), layout=layout, _validate=False)


# PRIVATE

def _bin_units(lo: np.ndarray, hi: np.ndarray, w0: float, w1: float, nb: int) -> tuple[np.ndarray, np.ndarray]:
    """Interval ends in bin units over the window, clipped to [0, nb]."""
    scale = nb / (w1 - w0) if w1 > w0 else 0.0
    return np.clip((np.asarray(lo, float) - w0) * scale, 0, nb), np.clip((np.asarray(hi, float) - w0) * scale, 0, nb)


def _pieces(ua: np.ndarray, ub: np.ndarray, nb: int):
    """(lo, hi, value, valid) for the first-bin, middle-bins and last-bin pieces of each interval."""
    ia = np.minimum(np.floor(ua).astype(np.int64), nb - 1)
    ib = np.maximum(np.ceil(ub).astype(np.int64) - 1, ia)
    single = ia == ib
    left = np.where(single, ub - ua, ia + 1 - ua)
    right = ub - ib
    always = np.ones(ia.size, dtype=bool)
    return ((ia, ia, left, always),
            (ia + 1, ib - 1, np.ones(ia.size), ~single & (ib - 1 >= ia + 1)),
            (ib, ib, right, ~single))


def _touched(ua: np.ndarray, ub: np.ndarray, nb: int) -> tuple[np.ndarray, np.ndarray]:
    ia = np.minimum(np.floor(ua).astype(np.int64), nb - 1)
    return ia, np.maximum(np.ceil(ub).astype(np.int64) - 1, ia)


def _rect_add(diff: np.ndarray, x0, x1, y0, y1, value) -> None:
    """Add ``value`` over cells [y0..y1] × [x0..x1] (inclusive) of a difference array."""
    if not len(value):
        return
    w = diff.shape[1]
    for ys, xs, sign in ((y0, x0, 1), (y0, x1 + 1, -1), (y1 + 1, x0, -1), (y1 + 1, x1 + 1, 1)):
        diff.ravel()[:] += np.bincount(ys * w + xs, weights=sign * value, minlength=diff.size)
