"""Figures of a placement diff: each side's graph with change rings, and the paired memory maps.

Graphs: :func:`diff_graph_figure` takes the single-program figure (:func:`.graph.build_graph_figure`,
so devices, op kinds and copy edges read exactly as in the Explorer) and dims what did not change;
:func:`ring_marks` lists the rings around what did, coloured by status (:mod:`.diff_style`), which the
app draws over the graph with the selection.

Memory: :func:`diff_memory_figure` draws one figure with two lanes per arena pair
(``ArenaChange``): A's lane, then B's right under it. Paired lanes share a byte scale (the larger of
the two arenas) so a resize is visible as a shorter lane; each side keeps its own instruction axis
spanning the full width (the two programs run different instruction counts, so "the same place"
means the same point of the run). An arena with no counterpart is an empty lane saying so. Every
lane is a ``go.Bar`` trace (as in :mod:`.memory`) followed by its selection-outline trace;
:func:`memory_lanes` says which trace is which lane.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..analysis.diff import ArenaChange
from ..analysis.types import ArenaMap
from ..model import Tensor
from .diff_prepare import DiffPlanView
from .diff_style import DIM_BLOCK, DIM_OP, DIM_TENSOR, OP_STATUS_STYLES, STATUS_STYLES
from .escape import plotly_text
from .graph import TRACE, build_graph_figure
from .palette import FONT, INK, MUTED, OP_STYLES, SELECT, device_style
from .text import fmt_bytes, tensor_hover

__all__ = ["diff_graph_figure", "ring_marks", "diff_memory_figure", "memory_lanes", "memory_selection",
           "graph_height"]

SELECT_SIZE = 31  # the selection ring, outside a status ring (size 21)
_LANE_PX, _TICKS_PX, _HEAD_PX, _TOP_PX, _EMPTY_PX = 84, 26, 30, 8, 34  # pixels (an empty lane is a short note)


def graph_height(dv: DiffPlanView) -> int:
    """One height for both graphs (the taller plan's), so the two panels line up."""
    layers = max(dv.a.geometry.layers, dv.b.geometry.layers)
    return int(min(820, max(420, 22 * layers + 120)))


def ring_marks(dv: DiffPlanView, side: str) -> dict:
    """The change rings of side ``"a"`` or ``"b"``, as columns (``x``, ``y``, ``symbol``, ``r`` in px, ``color``,
    ``width``): one per changed tensor and op, in its status colour. The app draws them over the graph
    (``explorer/frontend/overlay.js`` marks), not as a plotly trace, so node labels (``labels.js``) still find
    room beside a ringed node and a big pair's overview rings its nodes the same way."""
    view = dv.side(side)
    geom = view.geometry
    status, op_status = dv.status(side), dv.op_status(side)
    out: dict[str, list] = {"x": [], "y": [], "symbol": [], "r": [], "color": [], "width": []}

    def add(x, y, symbol, r, style) -> None:
        for key, val in zip(out, (float(x), float(y), symbol, r, style.color, style.width)):
            out[key].append(val)

    for k, v in enumerate(geom.tensors.tolist()):
        style = STATUS_STYLES.get(status.get(v, "same"))
        if style:
            add(geom.tx[k], geom.ty[k], "circle", 9.5, style)
    for k, (i, kind) in enumerate(zip(geom.ops.tolist(), geom.op_kinds)):
        style = OP_STATUS_STYLES.get(op_status.get(i, ""))
        if style:
            add(geom.ox[k], geom.oy[k], OP_STYLES[kind]["symbol"], OP_STYLES[kind]["size"] / 2 + 4.5, style)
    return out


def diff_graph_figure(dv: DiffPlanView, side: str, *, height: int | None = None) -> go.Figure:
    """Side ``"a"`` or ``"b"`` of the diff: the plan's graph, changes ringed, the rest dimmed."""
    view = dv.side(side)
    geom = view.geometry
    status, op_status = dv.status(side), dv.op_status(side)
    fig = build_graph_figure(view.plan, view.analysis, geometry=geom, height=height or graph_height(dv))
    tensors, ops = geom.tensors.tolist(), geom.ops.tolist()
    with fig.batch_update():
        fig.data[TRACE["tensors"]].marker.opacity = [1.0 if status.get(v, "same") != "same" else DIM_TENSOR
                                                     for v in tensors]
        fig.data[TRACE["ops"]].marker.opacity = [1.0 if i in op_status else DIM_OP for i in ops]
        fig.data[TRACE["hl_nodes"]].marker.size = SELECT_SIZE
        fig.data[TRACE["hl_nodes"]].marker.line.width = 3
        hover = list(fig.data[TRACE["tensors"]].hovertext or ())
        for k, v in enumerate(tensors):
            if k < len(hover):
                hover[k] += "<br>" + _status_hover(dv, side, v)
        fig.data[TRACE["tensors"]].hovertext = hover
        # the legend is HTML above both graphs (diff_style.graph_legend_html): same top for both panels
        fig.layout.showlegend = False
        fig.layout.margin.t = 14
    return fig


def _status_hover(dv: DiffPlanView, side: str, v: int) -> str:
    status = dv.status(side).get(v, "same")
    other = dv.pair(side, v)
    there = "B" if side == "a" else "A"
    if status == "same":
        return f"<span style='color:{MUTED}'>unchanged · %{other} in {there}</span>"
    style = STATUS_STYLES[status]
    text = f"<b style='color:{style.color}'>{plotly_text(style.label)}</b>"
    change = dv.changes.get((side, v))
    if change and change.a and change.b and status == "device":
        text += f" · {plotly_text(change.a.device)} → {plotly_text(change.b.device)}"
    if other is not None:
        text += f" · %{other} in {there}"
    return text


# -- memory ----------------------------------------------------------------------------------------

def memory_lanes(dv: DiffPlanView) -> list[dict]:
    """Per lane, top to bottom: side, memory id (None: an empty lane, no counterpart) and its trace
    indices (blocks ``2k``, selection outline ``2k + 1``; an empty lane's traces are empty)."""
    lanes = []
    for change in dv.diff.arenas:
        for side, arena in (("a", change.a), ("b", change.b)):
            k = len(lanes)
            lanes.append({"side": side, "memory_id": arena.memory_id if arena else None,
                          "blocks": 2 * k, "select": 2 * k + 1})
    return lanes


def _arena(dv: DiffPlanView, side: str, memory_id: int) -> ArenaMap:
    return next(a for a in dv.side(side).analysis.memory.arenas if a.memory_id == memory_id)


def _geometry(arena: ArenaMap, n: int, keep=None) -> dict:
    blocks = [b for b in arena.blocks if keep is None or b.value in keep]
    span = max(n, 1)
    first = np.array([b.first if b.first is not None else 0 for b in blocks], dtype=float)
    last = np.array([b.last if b.last is not None else span - 1 for b in blocks], dtype=float)
    return {"x": (first + last) / 2, "width": last - first + 1, "base": np.array([b.offset for b in blocks], dtype=float),
            "y": np.array([b.nbytes for b in blocks], dtype=float),
            "customdata": np.array([b.value for b in blocks], dtype=np.int64)}


def memory_selection(dv: DiffPlanView, values_a=(), values_b=()) -> list[dict | None]:
    """Per lane (as :func:`memory_lanes`): the selection-outline bar arrays (None for an empty lane)."""
    chosen = {"a": set(values_a), "b": set(values_b)}
    out = []
    for lane in memory_lanes(dv):
        if lane["memory_id"] is None:
            out.append(None)
            continue
        view = dv.side(lane["side"])
        out.append(_geometry(_arena(dv, lane["side"], lane["memory_id"]), len(view.plan.instructions),
                             chosen[lane["side"]]))
    return out


def _pair_title(change: ArenaChange) -> str:
    a, b = change.a, change.b
    s = a or b
    ids = f"#{s.memory_id}" if not (a and b) or a.memory_id == b.memory_id else f"#{a.memory_id} → #{b.memory_id}"
    dev = str(s.device) if not (a and b) or a.device == b.device else f"{a.device} → {b.device}"
    style = device_style((b or a).device)
    head = f"<span style='color:{style.color}'>■</span> <b>arena {plotly_text(ids.lstrip('#'))} · {plotly_text(dev)}</b>"
    if a and b:
        size = fmt_bytes(b.size) if a.size == b.size else f"{fmt_bytes(a.size)} → {fmt_bytes(b.size)}"
        peak = (f"peak live {fmt_bytes(b.peak_live_bytes)}" if a.peak_live_bytes == b.peak_live_bytes
                else f"peak live {fmt_bytes(a.peak_live_bytes)} → {fmt_bytes(b.peak_live_bytes)}")
        what = {"same": "unchanged", "moved": "moved to another device"}.get(change.status, change.status)
        return f"{head} · {plotly_text(what)} · {plotly_text(size)} · {plotly_text(peak)}"
    where = "only in B (added)" if change.status == "added" else "only in A (removed)"
    return f"{head} · {where} · {plotly_text(fmt_bytes(s.size))} · peak live {plotly_text(fmt_bytes(s.peak_live_bytes))}"


def _blocks(dv: DiffPlanView, side: str, arena: ArenaMap) -> dict:
    view = dv.side(side)
    status = dv.status(side)
    styles = [STATUS_STYLES.get(status.get(b.value, "same")) for b in arena.blocks]
    hover = []
    for b in arena.blocks:
        tensor = view.plan.value(b.value)
        lifetime = (b.first, b.last) if b.first is not None else None
        text = tensor_hover(tensor, lifetime) if isinstance(tensor, Tensor) else f"%{b.value}"
        hover.append(text + "<br>" + _status_hover(dv, side, b.value))
    marker = {"color": [device_style(b.device).color for b in arena.blocks],
              "opacity": [0.95 if s else DIM_BLOCK for s in styles],
              "line": {"color": [s.color if s else "white" for s in styles],
                       "width": [2.5 if s else 0.6 for s in styles]}}
    return {"type": "bar", **_geometry(arena, len(view.plan.instructions)), "orientation": "v",
            "name": f"{side.upper()} arena {arena.memory_id}", "hovertext": hover, "hoverinfo": "text",
            "showlegend": False, "marker": marker}


def diff_memory_figure(dv: DiffPlanView, values_a=(), values_b=()) -> go.Figure:
    """The paired memory maps (see the module docstring); ``values_*`` draw the selection outline."""
    changes = dv.diff.arenas
    base = {"plot_bgcolor": "white", "paper_bgcolor": "white", "font": {"family": FONT, "size": 12, "color": INK}}
    if not changes:
        return go.Figure(layout={**base, "height": 110, "xaxis": {"visible": False}, "yaxis": {"visible": False},
                                 "margin": {"l": 8, "r": 8, "t": 8, "b": 8},
                                 "annotations": [{"text": "neither program has memory-planned arenas", "x": 0.5,
                                                  "y": 0.5, "xref": "paper", "yref": "paper", "showarrow": False,
                                                  "font": {"size": 14, "color": MUTED}}]})
    lanes_px = sum(_EMPTY_PX if side is None else _LANE_PX + _TICKS_PX for c in changes for side in (c.a, c.b))
    height = _TOP_PX + len(changes) * _HEAD_PX + lanes_px + 6
    layout = {**base, "height": height, "barmode": "overlay", "bargap": 0, "annotations": [], "shapes": [],
              "margin": {"l": 78, "r": 14, "t": 0, "b": 0}, "hovermode": "closest", "clickmode": "event",
              "dragmode": "pan", "showlegend": False, "uirevision": "diff-memory",
              "modebar": {"remove": ["select2d", "lasso2d", "autoScale2d"]},
              "hoverlabel": {"bgcolor": "white", "bordercolor": "#D0D7DE", "font": {"size": 12, "color": INK},
                             "align": "left"}}
    selected = memory_selection(dv, values_a, values_b)
    traces: list[dict] = []
    y_px, axis, first_x = _TOP_PX, 0, {}
    lane_no = 0  # lanes drawn so far (the index into `selected`)
    for change in changes:
        layout["annotations"].append({"text": _pair_title(change), "xref": "paper", "yref": "paper", "x": 0,
                                      "y": 1 - (y_px + _HEAD_PX - 4) / height, "xanchor": "left", "yanchor": "bottom",
                                      "showarrow": False, "align": "left", "font": {"size": 12.5, "color": INK}})
        y_px += _HEAD_PX
        span = max(x for x in (change.a.size if change.a else 0, change.b.size if change.b else 0, 1))
        for side, arena_side in (("a", change.a), ("b", change.b)):
            lane_px = _EMPTY_PX - 6 if arena_side is None else _LANE_PX
            top, bottom = 1 - y_px / height, 1 - (y_px + lane_px) / height
            axis += 1
            x, y = ("x", "y") if axis == 1 else (f"x{axis}", f"y{axis}")
            n = len(dv.side(side).plan.instructions)
            xaxis = {"anchor": y, "range": [-0.6, max(n, 1) - 0.4], "showgrid": False, "zeroline": False,
                     "tickformat": "d", "dtick": max(1, -(-n // 20)), "tickfont": {"size": 9.5, "color": MUTED},
                     "ticks": "outside", "ticklen": 3}
            if side in first_x:
                xaxis["matches"] = first_x[side]
            else:
                first_x[side] = x
            layout[x.replace("x", "xaxis")] = xaxis
            label = ("A" if side == "a" else "B")
            yaxis = {"anchor": x, "domain": [max(bottom, 0.0), min(top, 1.0)], "fixedrange": True, "zeroline": False,
                     "showgrid": True, "gridcolor": "#EEF1F4", "tickfont": {"size": 9.5, "color": MUTED},
                     "title": {"text": f"<b>{label}</b>", "standoff": 6, "font": {"size": 13, "color": INK}},
                     "range": [0, span * 1.04]}
            if arena_side is None:
                yaxis.update(showticklabels=False, showgrid=False, showline=True, linecolor="#D0D7DE",
                             title={**yaxis["title"], "font": {"size": 11, "color": MUTED}})
                layout[y.replace("y", "yaxis")] = yaxis
                layout[x.replace("x", "xaxis")].update(showticklabels=False, ticks="")
                missing = "no counterpart in A: this arena is new in B" if side == "a" else \
                    "no counterpart in B: this arena is gone"
                layout["annotations"].append({"text": missing, "xref": f"{x} domain", "yref": f"{y} domain", "x": 0.5,
                                              "y": 0.5, "showarrow": False, "font": {"size": 12, "color": MUTED}})
                for name in ("empty", "selected"):
                    traces.append({"type": "bar", "x": [], "y": [], "xaxis": x, "yaxis": y, "showlegend": False,
                                   "hoverinfo": "skip", "name": name})
                lane_no += 1
                y_px += _EMPTY_PX
                continue
            arena = _arena(dv, side, arena_side.memory_id)
            style = device_style(arena.device)
            yaxis.update(tickvals=[0, arena.size], ticktext=["0", fmt_bytes(arena.size)], showline=True,
                         linecolor=style.color, linewidth=4)
            layout[y.replace("y", "yaxis")] = yaxis
            if arena.size < span:  # the smaller arena of the pair: mark where it ends
                layout["shapes"].append({"type": "line", "xref": f"{x} domain", "yref": y, "x0": 0, "x1": 1,
                                         "y0": arena.size, "y1": arena.size, "name": "arena end",
                                         "line": {"color": MUTED, "width": 1, "dash": "dash"}})
            traces.append(_blocks(dv, side, arena) | {"xaxis": x, "yaxis": y})
            traces.append({"type": "bar", **(selected[lane_no] or {}), "orientation": "v", "name": "selected",
                           "hoverinfo": "skip", "showlegend": False, "xaxis": x, "yaxis": y,
                           "marker": {"color": "rgba(0,0,0,0)", "line": {"color": SELECT, "width": 3}}})
            lane_no += 1
            y_px += _LANE_PX + _TICKS_PX
    return go.Figure(data=traces, layout=layout, _validate=False)
