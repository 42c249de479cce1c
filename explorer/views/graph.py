"""Graph panel: tensors and ops as a layered DAG, tensors coloured by device.

Stages: :func:`graph_geometry` (model + analysis + layout → point and edge arrays, computed once per
plan) → :func:`build_graph_figure` (geometry → a ``go.Figure``). The figure has a fixed trace order
(``TRACE``) so the widget and the HTML report can restyle single traces: one trace per edge style
(numpy arrays with NaN separators), one for every tensor (array colours), one for every op (array
symbols), two small overlay traces for the selection, then legend-only entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

from ..analysis.types import Layout, PlanAnalysis
from ..model import Device, Plan, Tensor
from .escape import plotly_text, shorten
from .palette import (
    EDGE_STYLES,
    ERROR,
    FONT,
    INK,
    MUTED,
    OP_STYLES,
    SELECT,
    TENSOR_OPACITY,
    device_style,
    ordered_devices,
)
from .text import instruction_hover, op_kind, op_short, tensor_hover

__all__ = ["GraphGeometry", "graph_geometry", "build_graph_figure", "TRACE"]

EDGE_KINDS = ("same", "h2d", "d2h", "d2d")
# trace positions in every graph figure
TRACE = {"edges": 0, "tensors": 4, "ops": 5, "hl_edges": 6, "hl_nodes": 7}


@dataclass(frozen=True)
class GraphGeometry:
    """Everything the graph panel draws, as arrays; built once per plan."""

    tensors: np.ndarray  # value index of each tensor point, in trace order
    tx: np.ndarray
    ty: np.ndarray
    tensor_devices: tuple[Device, ...]
    ops: np.ndarray  # instruction index of each op point
    ox: np.ndarray
    oy: np.ndarray
    op_kinds: tuple[str, ...]
    op_devices: tuple[Device | None, ...]  # where each op runs, when its outputs agree (optional)
    edges: tuple[tuple[tuple[str, int], tuple[str, int], str], ...]  # (source node, target node, edge kind)
    pos: dict = field(repr=False)  # ("v"|"i", index) -> (x, y)
    layers: int = 1
    # per edge, the polyline drawn from source to target (through one bend per layer passed)
    paths: tuple[tuple[tuple[float, float], ...], ...] = field(default=(), repr=False)

    @property
    def devices(self) -> list[Device]:
        return ordered_devices(self.tensor_devices)


def graph_geometry(plan: Plan, analysis: PlanAnalysis, layout: Layout) -> GraphGeometry:
    """Place tensors and ops; classify edges by the transfers the analysis found."""
    pos: dict = {}
    for node, x, y in zip(layout.nodes, layout.x, layout.y):
        kind, index = node
        if kind == "v" and not isinstance(plan.value(index), Tensor):
            continue  # scalars and lists are arguments, not data that lives somewhere
        if kind == "i" and not 0 <= index < len(plan.instructions):
            continue
        pos[(kind, index)] = (float(x), -float(y))
    tensors = [i for k, i in pos if k == "v"]
    ops = [i for k, i in pos if k == "i"]
    transfer_kind = {}
    for t in analysis.transfers:
        if t.kind != "same":
            transfer_kind[(("v", t.source), ("i", t.instruction))] = t.kind
            transfer_kind[(("i", t.instruction), ("v", t.destination))] = t.kind
    edges, paths = [], []
    for q, (a, b) in enumerate(layout.edges):
        src, dst = layout.nodes[a], layout.nodes[b]
        if src in pos and dst in pos:
            kind = transfer_kind.get((src, dst), "same")
            edges.append((src, dst, kind if kind in EDGE_KINDS else "same"))
            path = layout.paths[q] if q < len(layout.paths) and layout.paths[q] else ()
            paths.append(tuple((float(x), -float(y)) for x, y in path) or (pos[src], pos[dst]))
    writes = analysis.dataflow.writes
    op_devices = []
    for i in ops:
        ins = plan.instructions[i]
        delegate = plan.delegates[ins.delegate_index] if ins.kind == "DelegateCall" and ins.delegate_index is not None \
            and 0 <= ins.delegate_index < len(plan.delegates) else None
        out = {plan.values[v].device for v in (writes[i] if i < len(writes) else ())
               if isinstance(plan.value(v), Tensor)}
        op_devices.append(delegate.target_device if delegate and delegate.target_device
                          else (out.pop() if len(out) == 1 else None))
    ys = [y for _, y in pos.values()]
    return GraphGeometry(
        tensors=np.array(tensors, dtype=np.int64),
        tx=np.array([pos[("v", i)][0] for i in tensors]), ty=np.array([pos[("v", i)][1] for i in tensors]),
        tensor_devices=tuple(plan.values[i].device for i in tensors),
        ops=np.array(ops, dtype=np.int64),
        ox=np.array([pos[("i", i)][0] for i in ops]), oy=np.array([pos[("i", i)][1] for i in ops]),
        op_kinds=tuple(op_kind(plan.instructions[i]) for i in ops), op_devices=tuple(op_devices),
        edges=tuple(edges), pos=pos, layers=round(max(ys) - min(ys)) + 1 if ys else 1, paths=tuple(paths))


def _segments(geom: GraphGeometry, which: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """x, y arrays of the edges ``which`` (indices into ``geom.edges``) as polylines separated by NaN (one
    trace draws them all); an edge without a path is a straight segment."""
    lines = [geom.paths[k] if k < len(geom.paths) else (geom.pos[geom.edges[k][0]], geom.pos[geom.edges[k][1]])
             for k in which]
    size = sum(len(line) + 1 for line in lines)
    x = np.full(size, np.nan)
    y = np.full(size, np.nan)
    at = 0
    for line in lines:
        for px, py in line:
            x[at], y[at] = px, py
            at += 1
        at += 1
    return x, y


def build_graph_figure(plan: Plan, analysis: PlanAnalysis, layout: Layout | None = None, *,
                       geometry: GraphGeometry | None = None, labels: bool | None = None,
                       height: int | None = None) -> go.Figure:
    """The graph panel as a figure.

    Every node's label travels in its trace's ``text`` but plotly is told to draw markers only: the app
    places the labels that fit at the current zoom (``frontend/labels.js``), so none overlaps another or a
    node. ``labels=False`` leaves them out (and the margins narrow). The selection overlay traces start
    empty and the device filter at full strength: the browser app draws both (``frontend/highlight.js``).
    """
    geom = geometry or graph_geometry(plan, analysis, layout)

    def scatter(**props) -> dict:  # plain dicts, validated once by the tests, not per point at run time
        # SVG only: the vendored plotly.js has no WebGL traces; a big plan is drawn as an overview instead
        return {"type": "scatter", "cliponaxis": False, **{k: v for k, v in props.items() if v is not None}}

    show_labels = labels is not False
    error_values = {v for f in analysis.findings if f.severity == "error" for v in f.values}
    traces = []
    for kind in EDGE_KINDS:
        style = EDGE_STYLES[kind]
        ex, ey = _segments(geom, [k for k, e in enumerate(geom.edges) if e[2] == kind])
        traces.append(scatter(x=ex, y=ey, mode="lines", hoverinfo="skip", name=style["label"],
                              showlegend=kind != "same" and len(ex) > 0, legendgroup="edges",
                              legendgrouptitle={"text": "copies"} if kind == "h2d" else None,
                              line={"color": style["color"], "width": style["width"], "dash": style["dash"]}))

    tstyles = [device_style(d) for d in geom.tensor_devices]
    lifetimes = analysis.lifetimes
    hover = []
    for v in geom.tensors.tolist():
        lt = lifetimes.get(v)
        hover.append(tensor_hover(plan.values[v], (lt.first, lt.last) if lt else None))
    traces.append(scatter(
        x=geom.tx, y=geom.ty, mode="markers", name="tensors",
        customdata=geom.tensors, hovertext=hover, hoverinfo="text", showlegend=False,
        text=[plotly_text(shorten(plan.values[v].label, 22)) for v in geom.tensors.tolist()] if show_labels else None,
        textposition="middle right", textfont={"size": 10, "color": "#57606A"},
        marker={"color": [s.color for s in tstyles], "symbol": [s.symbol for s in tstyles], "size": 13,
                "opacity": TENSOR_OPACITY[0],
                "line": {"color": [ERROR if v in error_values else "white" for v in geom.tensors.tolist()],
                         "width": [3 if v in error_values else 1 for v in geom.tensors.tolist()]}}))

    op_hover, op_text = [], []
    for i, kind, device in zip(geom.ops.tolist(), geom.op_kinds, geom.op_devices):
        ins = plan.instructions[i]
        op_hover.append(instruction_hover(ins, kind, str(device) if device else None))
        op_text.append(plotly_text(shorten(op_short(ins), 24)))
    traces.append(scatter(
        x=geom.ox, y=geom.oy, mode="markers", name="ops",
        customdata=geom.ops, hovertext=op_hover, hoverinfo="text", showlegend=False,
        text=op_text if show_labels else None, textposition="middle left",
        textfont={"size": 10, "color": INK},
        marker={"symbol": [OP_STYLES[k]["symbol"] for k in geom.op_kinds],
                "size": [OP_STYLES[k]["size"] for k in geom.op_kinds], "color": "#F6F8FA",
                "line": {"width": 2, "color": [device_style(d).color if d else INK for d in geom.op_devices]}}))

    traces.append(scatter(mode="lines", hoverinfo="skip", showlegend=False, name="selected edges",
                          line={"color": SELECT, "width": 3}, x=[], y=[]))
    traces.append(scatter(mode="markers", hoverinfo="skip", showlegend=False, name="selected",
                          marker={"size": 24, "color": SELECT, "line": {"width": 2.5, "color": SELECT},
                                  "symbol": []}, x=[], y=[]))
    traces.extend(_legend(geom))
    return go.Figure(data=traces, layout=_layout(geom, show_labels, height), _validate=False)


def _legend(geom: GraphGeometry) -> list:
    """Legend-only entries: one per device (colour + marker), one per op kind present."""
    entries = []

    def entry(group: str, title: str, name: str, marker: dict) -> None:
        first = not any(e["legendgroup"] == group for e in entries)
        entries.append({"type": "scatter", "x": [None], "y": [None], "mode": "markers", "name": name,
                        "legendgroup": group, "marker": marker, **({"legendgrouptitle": {"text": title}} if first else {})})

    for device in geom.devices:
        style = device_style(device)
        entry("devices", "tensors", plotly_text(style.label), {"color": style.color, "symbol": style.symbol, "size": 12})
    for kind in ("kernel", "delegate", "copy", "other"):
        if kind in geom.op_kinds:
            style = OP_STYLES[kind]
            entry("ops", "ops", style["label"],
                  {"symbol": style["symbol"], "size": 11, "color": "#F6F8FA", "line": {"width": 2, "color": INK}})
    return entries


def _layout(geom: GraphGeometry, labels: bool, height: int | None) -> dict:
    xs = np.concatenate([geom.tx, geom.ox]) if len(geom.tx) + len(geom.ox) else np.array([0.0])
    ys = np.concatenate([geom.ty, geom.oy]) if len(geom.ty) + len(geom.oy) else np.array([0.0])
    axis = {"visible": False, "showgrid": False, "zeroline": False}
    side = 16  # labels stay inside the plot: the app places them beside their node, inside or flipped
    return dict(
        height=height or int(min(720, max(380, 22 * geom.layers + 110))),
        margin={"l": side, "r": side, "t": 56, "b": 10}, plot_bgcolor="white", paper_bgcolor="white",
        hovermode="closest", dragmode="pan", clickmode="event", uirevision="graph",
        modebar={"orientation": "v", "remove": ["select2d", "lasso2d", "autoScale2d"]},
        hoverlabel={"bgcolor": "white", "bordercolor": "#D0D7DE", "font": {"size": 12, "color": INK}, "align": "left"},
        font={"family": FONT, "size": 12, "color": INK},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1, "yanchor": "top", "yref": "container",
                "itemclick": False, "itemdoubleclick": False, "font": {"size": 11}, "tracegroupgap": 14,
                "grouptitlefont": {"size": 11, "color": MUTED}},
        xaxis={**axis, "range": [float(xs.min()) - 0.5, float(xs.max()) + 0.5]},
        yaxis={**axis, "range": [float(ys.min()) - 0.6, float(ys.max()) + 0.6]},
    )
