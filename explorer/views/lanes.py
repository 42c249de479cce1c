"""The memory map's frame: one lane (subplot row) per arena with its own byte axis (arenas differ by orders of
magnitude), sharing the instruction axis; titles, the arena's end, the band past it, the peak line; the legend.

The app draws the blocks into it (``explorer/frontend/lod_panels.js``): lane ``k`` is trace ``2k`` (blocks) and
``2k + 1`` (selection outline), then legend-only entries. A block carries its tensor's name inside when it fits
at 9 px or more (plotly's ``uniformtext`` hides the rest; the hover has everything). Bytes past an arena's end
sit in a red band with a note saying how many tensors reach into it.
"""

from __future__ import annotations

import plotly.graph_objects as go

from ..analysis.types import ArenaMap
from .escape import plotly_text
from .palette import ERROR, FONT, INK, MUTED, SELECT, device_style, ordered_devices
from .text import fmt_bytes

__all__ = ["lane_title", "LANE_HEIGHT", "lanes_layout", "block_text_color",
           "lane_axes", "selection_trace", "legend_entries", "empty_memory_figure", "BLOCK_TEXT"]

LANE_HEIGHT = 150  # pixels per arena lane
# a block's name inside it, turned upright in a tall narrow block (plotly's default textangle "auto"):
# plotly hides what would need a font under `minsize` (the hover says all)
BLOCK_TEXT = {"textposition": "inside", "insidetextanchor": "middle", "constraintext": "inside",
              "cliponaxis": True}
UNIFORM_TEXT = {"mode": "hide", "minsize": 9}


def block_text_color(color: str) -> str:
    """Ink or white, whichever reads on a block of ``color`` (``#RRGGBB``)."""
    r, g, b = (int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return INK if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 else "#FFFFFF"


def lane_title(arena: ArenaMap) -> tuple[str, str]:
    """Plain text (head, stats): ``arena 2 · cuda:0``, ``1.5 KiB · peak 1.2 KiB (80%) at #7 · ...``."""
    peak = f"peak live {fmt_bytes(arena.peak_live_bytes)} ({arena.utilisation:.0%})"
    if arena.peak_at is not None:
        peak += f" at #{arena.peak_at}"
    return (f"arena {arena.memory_id} · {arena.device}",
            f"{fmt_bytes(arena.size)} · {peak} · high water {fmt_bytes(arena.high_water)}")


def empty_memory_figure() -> go.Figure:
    base = {"plot_bgcolor": "white", "paper_bgcolor": "white", "font": {"family": FONT, "size": 12, "color": INK}}
    return go.Figure(layout={
        **base, "height": 120, "xaxis": {"visible": False}, "yaxis": {"visible": False},
        "margin": {"l": 8, "r": 8, "t": 8, "b": 8},
        "annotations": [{"text": "this plan has no memory-planned arenas", "showarrow": False, "x": 0.5, "y": 0.5,
                         "xref": "paper", "yref": "paper", "font": {"size": 14, "color": MUTED}}]})


def lane_axes(k: int) -> tuple[str, str]:
    """The (x, y) axis ids of lane ``k``."""
    return ("x", "y") if k == 0 else (f"x{k + 1}", f"y{k + 1}")


def selection_trace(hl: dict, x: str, y: str) -> dict:
    return {"type": "bar", **hl, "orientation": "v", "name": "selected", "hoverinfo": "skip",
            "showlegend": False, "xaxis": x, "yaxis": y,
            "marker": {"color": "rgba(0,0,0,0)", "line": {"color": SELECT, "width": 3}}}


def legend_entries(devices) -> list[dict]:
    out = []
    for device in ordered_devices(devices):
        style = device_style(device)
        out.append({"type": "bar", "x": [None], "y": [None], "name": plotly_text(style.label), "showlegend": True,
                    "marker": {"color": style.color, **({"pattern": {"shape": style.pattern}} if style.pattern else {})}})
    return out


def lanes_layout(arenas, n: int, past: list[int]) -> dict:
    """Figure layout with one lane (subplot row) per arena: axes, titles, peak line, arena end and the band
    past it. Reads only the arenas' summary fields (not their blocks); ``past``: per arena, how many tensors
    reach beyond its end (for the band's note)."""
    rows = len(arenas)
    gap = min(0.12, 70 / (LANE_HEIGHT * rows + 60))
    lane = (1 - gap * (rows - 1)) / rows
    layout = {"plot_bgcolor": "white", "paper_bgcolor": "white", "font": {"family": FONT, "size": 12, "color": INK},
              "annotations": [], "shapes": [], "uniformtext": UNIFORM_TEXT}
    marks = []  # after the lanes' titles, which come first (one per lane, in lane order)
    for k, arena in enumerate(arenas):
        x, y = lane_axes(k)
        top = 1 - k * (lane + gap)
        style = device_style(arena.device)
        over = arena.high_water > arena.size
        layout[x.replace("x", "xaxis")] = {
            "anchor": y, "range": [-0.6, max(n, 1) - 0.4], "showgrid": False, "zeroline": False, "tickformat": "d",
            "tick0": 0, "dtick": max(1, -(-n // 16)), "tickfont": {"size": 10, "color": MUTED},
            "showticklabels": k == rows - 1, **({"matches": "x"} if k else {}),
            **({"title": {"text": "instruction (run order) →", "font": {"size": 11, "color": MUTED}}}
               if k == rows - 1 else {})}
        # the high-water mark gets a tick when it stands clear of the arena's end (within ~8% of the lane
        # their labels overlap; the band's note says how far past the end it reaches)
        ticks = [0, arena.size // 2, arena.size] + ([arena.high_water] if over and arena.high_water - arena.size > 0.08 * arena.high_water else [])
        layout[y.replace("y", "yaxis")] = {
            "anchor": x, "domain": [max(0.0, top - lane), top], "range": [0, max(arena.size, arena.high_water, 1) * 1.06],
            "tickvals": ticks, "showgrid": True,
            "ticktext": [f"end {fmt_bytes(t)}" if t == arena.size and k2 == 2 else fmt_bytes(t) for k2, t in enumerate(ticks)],
            "gridcolor": "#EEF1F4", "zeroline": False, "fixedrange": True, "linecolor": style.color, "linewidth": 4,
            "showline": True, "tickfont": {"size": 10, "color": MUTED}}
        # where the arena ends: always a line; bytes past it (out of bounds) a red band with a note
        layout["shapes"].append({"type": "line", "xref": f"{x} domain", "yref": y, "x0": 0, "x1": 1,
                                 "y0": arena.size, "y1": arena.size, "name": "arena end", "layer": "above",
                                 "line": {"color": ERROR if over else INK, "width": 2 if over else 1,
                                          "dash": "solid" if over else "dash"}})
        if over:
            layout["shapes"].append({"type": "rect", "xref": f"{x} domain", "yref": y, "x0": 0, "x1": 1,
                                     "y0": arena.size, "y1": arena.high_water, "name": "past the end", "layer": "below",
                                     "line": {"width": 0}, "fillcolor": "rgba(179,27,27,0.10)"})
            count = f"{past[k]:,} tensor{'s' * (past[k] != 1)} "
            marks.append({
                "text": f"⚠ {count}past the arena's end: up to {plotly_text(fmt_bytes(arena.high_water - arena.size))}"
                        f" beyond {plotly_text(fmt_bytes(arena.size))}",
                "xref": f"{x} domain", "yref": y, "x": 0.5, "y": arena.high_water, "xanchor": "center",
                "yanchor": "top", "showarrow": False, "font": {"size": 11, "color": ERROR},
                "bgcolor": "rgba(255,255,255,0.85)", "name": "overflow"})
        head, stats = lane_title(arena)
        layout["annotations"].append({
            "text": f"<span style='color:{style.color}'>■</span> <b>{plotly_text(head)}</b> · {plotly_text(stats)}",
            "xref": "paper", "yref": "paper", "x": 0, "y": top, "xanchor": "left", "yanchor": "bottom",
            "showarrow": False, "font": {"size": 12, "color": INK}, "align": "left"})
        if arena.peak_at is not None:
            layout["shapes"].append({"type": "line", "xref": x, "yref": f"{y} domain", "x0": arena.peak_at,
                                     "x1": arena.peak_at, "y0": 0, "y1": 1, "name": "peak",
                                     "line": {"color": MUTED, "width": 1, "dash": "dot"}})
    layout["annotations"] += marks
    layout.update(
        height=LANE_HEIGHT * rows + 110, barmode="overlay", bargap=0,
        margin={"l": 64, "r": 12, "t": 58, "b": 44}, hovermode="closest", clickmode="event", dragmode="pan",
        modebar={"remove": ["select2d", "lasso2d", "autoScale2d"]}, uirevision="memory",
        hoverlabel={"bgcolor": "white", "bordercolor": "#D0D7DE", "font": {"size": 12, "color": INK}, "align": "left"},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "top", "yref": "container",
                "itemclick": False, "itemdoubleclick": False, "font": {"size": 11},
                "title": {"text": "tensor device", "font": {"size": 11, "color": MUTED}, "side": "left"}})
    return layout
