"""Graph panel of a big plan: an overview of instruction groups, expanded in place on click.

Above ``LOD_NODES`` graph nodes the widget and the report draw :class:`Overview` instead of
:func:`.graph.build_graph_figure`: the groups of :mod:`explorer.analysis.groups` folded as
:mod:`explorer.analysis.folding` says, each collapsed group one marker (coloured by the device most of
its ops run on, sized by its op count, outlined red when it holds a value an error finding names),
expanded groups as their members inside a tinted box with a "▾" header that collapses them. Trace
order extends the full graph's (``TRACE``): 0–3 edges by kind, 4 tensors, 5 ops, 6–7 selection,
then 8 groups, 9 headers, 10 crossings (a dot on each edge that touches a group, whose hover says how
many tensors and bytes cross), then legend entries. Every call makes the same traces in the same
order, so a widget updates them in place. At most ``VISIBLE_LIMIT`` nodes are drawn: expanding more
collapses the oldest other expansions first, and :attr:`Overview.note` says so.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go

from ..analysis.folding import Folded, fold, visible_nodes
from ..analysis.groups import OP_KINDS, Groups
from ..columns import value_columns
from ..model import Plan
from .escape import plotly_text, shorten
from .graph import EDGE_KINDS, TRACE, _layout, _legend
from .group_text import device_mix, group_details, group_hover
from .palette import EDGE_STYLES, ERROR, INK, MUTED, OP_STYLES, SELECT, TENSOR_OPACITY, device_style
from .text import fmt_bytes, instruction_hover, op_short, tensor_hover

__all__ = ["Overview", "OVERVIEW_TRACE", "LOD_NODES", "VISIBLE_LIMIT", "needs_overview", "group_details"]

LOD_NODES = 2_000  # graph nodes (tensors + instructions) above which the graph is an overview
VISIBLE_LIMIT = 2_500  # nodes drawn at most at once
FOCUS_LAYERS = 60  # after an expansion the view shows at most this many layers of it
OVERVIEW_TRACE = {**TRACE, "groups": 8, "headers": 9, "crossings": 10}
GROUP_SYMBOLS = {"delegate": "diamond-wide", "run": "square", "prefix": "hexagon", "prefixes": "hexagon",
                 "chunk": "hexagon", "root": "circle"}
_LABELS = 80  # raw nodes drawn with text labels at most
_GROUP_LABELS = 150


def needs_overview(plan: Plan) -> bool:
    """Whether ``plan`` has more graph nodes than the full graph draws readably."""
    return int(value_columns(plan).is_tensor.sum()) + len(plan.instructions) > LOD_NODES


class Overview:
    """Expansion state of one plan's overview, and the figure for it."""

    def __init__(self, plan: Plan, analysis, groups: Groups | None = None):
        self.plan, self.analysis = plan, analysis
        self.groups = groups or Groups(plan, analysis.facts, analysis.edges)
        self.expanded: list[int] = []  # in the order they were expanded
        self.note = ""
        self._folded: Folded | None = None
        errors = {v for f in analysis.findings if f.severity == "error" for v in f.values}
        homes = self.groups.home[[v for v in errors if 0 <= v < len(self.groups.home)]] if errors else []
        self._error_values = errors
        self._error_instrs = np.unique(np.asarray([i for i in homes if i >= 0], dtype=np.int64))

    # -- state --------------------------------------------------------------------------------------

    @property
    def folded(self) -> Folded:
        if self._folded is None:
            self._folded = fold(self.groups, self.expanded, self.analysis.moving)
        return self._folded

    def expand(self, gid: int) -> None:
        """Open group ``gid`` (and the groups around it) in place."""
        g = self._group(gid)
        path = [p for p in self.groups.path(g.start) if self.groups.groups[p].depth <= g.depth]
        self.note = ""
        for p in path:
            if p not in self.expanded:
                self.expanded.append(p)
        closed = []
        while visible_nodes(self.groups, set(self.expanded)) > VISIBLE_LIMIT:
            victim = next((e for e in self.expanded if e not in path), None)
            if victim is None:
                break
            self._drop(victim)
            closed.append(self.groups.groups[victim].label)
        if closed:
            self.note = f"collapsed {', '.join(closed)} to draw at most {VISIBLE_LIMIT:,} nodes"
        self._folded = None

    def collapse(self, gid: int) -> None:
        """Close group ``gid`` and every group inside it."""
        self._group(gid)
        self._drop(gid)
        self.note = ""
        self._folded = None

    def collapse_all(self) -> None:
        self.expanded, self.note, self._folded = [], "", None

    def reveal(self, values=(), instructions=()) -> list[int]:
        """Expand what it takes to draw these values and instructions as themselves (a few at most);
        returns the groups it expanded."""
        anchors = [int(self.groups.home[v]) for v in values if 0 <= v < len(self.groups.home) and self.groups.home[v] >= 0]
        anchors += [i for i in instructions if 0 <= i < self.groups.m]
        opened = []
        for i in anchors[:4]:
            path = self.groups.path(i)
            if path and self.folded.nodes[self.folded.instruction_unit[i]][0] == "g":
                self.expand(path[-1])
                opened.append(path[-1])
        return opened

    def _group(self, gid: int):
        if not isinstance(gid, (int, np.integer)) or not 0 < gid < len(self.groups.groups):
            raise IndexError(f"no group {gid!r} (groups are numbered 1..{len(self.groups.groups) - 1} as they are made)")
        return self.groups.groups[int(gid)]

    def _drop(self, gid: int) -> None:
        g = self.groups.groups[gid]
        self.expanded = [e for e in self.expanded
                         if not (g.start <= self.groups.groups[e].start and self.groups.groups[e].stop <= g.stop
                                 and self.groups.groups[e].depth >= g.depth)]

    # -- what to draw -------------------------------------------------------------------------------

    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        F = self.folded
        return F.x.astype(float), -F.y.astype(float)

    def unit_positions(self, values=(), instructions=()) -> list[int]:
        """Node positions showing these values and instructions (a collapsed group for hidden ones)."""
        F = self.folded
        out = [int(F.value_unit[v]) for v in values if 0 <= v < len(F.value_unit) and F.value_unit[v] >= 0]
        out += [int(F.instruction_unit[i]) for i in instructions if 0 <= i < len(F.instruction_unit)]
        return list(dict.fromkeys(out))

    def highlight(self, values=(), instructions=()) -> tuple[dict, dict]:
        """Selection overlay props (edges, nodes): like ``graph_highlight``, groups standing in for
        what they hold."""
        F = self.folded
        x, y = self.positions()
        chosen = self.unit_positions(values, instructions)
        mask = np.isin(F.edges[:, 0], chosen) | np.isin(F.edges[:, 1], chosen) if len(chosen) else \
            np.zeros(len(F.edges), bool)
        ex, ey = _segments(x, y, F.edges[mask])
        return ({"x": ex, "y": ey},
                {"x": x[chosen] if chosen else np.zeros(0), "y": y[chosen] if chosen else np.zeros(0),
                 "marker": {"symbol": [self._symbol(F.nodes[k]) + "-open" for k in chosen]}})

    def _symbol(self, node) -> str:
        kind, index = node
        if kind == "v":
            return "circle"
        if kind == "i":
            return OP_STYLES[OP_KINDS[self.groups.op_kind[index]]]["symbol"]
        return GROUP_SYMBOLS[self.groups.groups[index].kind]

    def opacity(self, hidden) -> dict[int, list[float]]:
        """Per trace (tensors, groups): marker opacity for the device filter."""
        shown, faded = TENSOR_OPACITY
        F, f = self.folded, self.analysis.facts
        tensors = [faded if str(f.value_device(i)) in hidden else shown for kind, i in F.nodes if kind == "v"]
        groups = [faded if str(self.groups.groups[i].device) in hidden else shown for kind, i in F.nodes if kind == "g"]
        return {OVERVIEW_TRACE["tensors"]: tensors, OVERVIEW_TRACE["groups"]: groups}

    def traces(self, hidden=frozenset(), values=(), instructions=()) -> list[dict]:
        """The figure's traces, always the same ones in the same order (module docstring)."""
        F, plan, f = self.folded, self.plan, self.analysis.facts
        x, y = self.positions()
        hidden = {str(d) for d in hidden}
        kinds = np.asarray(F.kinds, dtype=object)
        traces = []
        for kind in EDGE_KINDS:
            style = EDGE_STYLES[kind]
            ex, ey = _segments(x, y, F.edges[kinds == kind] if len(kinds) else F.edges)
            traces.append(_scatter(x=ex, y=ey, mode="lines", hoverinfo="skip", name=style["label"],
                                   showlegend=kind != "same", legendgroup="edges",
                                   legendgrouptitle={"text": "copies"} if kind == "h2d" else None,
                                   line={"color": style["color"], "width": style["width"], "dash": style["dash"]}))
        tk = [k for k, n in enumerate(F.nodes) if n[0] == "v"]
        ok = [k for k, n in enumerate(F.nodes) if n[0] == "i"]
        gk = [k for k, n in enumerate(F.nodes) if n[0] == "g"]
        labels = len(tk) + len(ok) <= _LABELS
        tvals = [F.nodes[k][1] for k in tk]
        tdevs = [f.value_device(v) for v in tvals]
        lifetimes = self.analysis.first, self.analysis.last
        opac = self.opacity(hidden)
        traces.append(_scatter(
            x=x[tk], y=y[tk], mode="markers", name="tensors", customdata=tvals,
            hovertext=[tensor_hover(plan.values[v], _life(lifetimes, v)) for v in tvals], hoverinfo="text",
            showlegend=False, textposition="middle right", textfont={"size": 10, "color": "#57606A"},
            text=[plotly_text(shorten(plan.values[v].label, 22)) for v in tvals] if labels else [],
            marker={"color": [device_style(d).color for d in tdevs], "symbol": [device_style(d).symbol for d in tdevs],
                    "size": 13, "opacity": opac[OVERVIEW_TRACE["tensors"]],
                    "line": {"color": [ERROR if v in self._error_values else "white" for v in tvals],
                             "width": [3 if v in self._error_values else 1 for v in tvals]}}))
        ops = [F.nodes[k][1] for k in ok]
        odevs = [int(self.groups.op_device[i]) for i in ops]
        okinds = [OP_KINDS[self.groups.op_kind[i]] for i in ops]
        traces.append(_scatter(
            x=x[ok], y=y[ok], mode="markers", name="ops", customdata=ops,
            hovertext=[instruction_hover(plan.instructions[i], kd, str(f.device(d)) if d >= 0 else None)
                       for i, kd, d in zip(ops, okinds, odevs)], hoverinfo="text", showlegend=False,
            text=[plotly_text(shorten(op_short(plan.instructions[i]), 24)) for i in ops] if labels else [],
            textposition="middle left", textfont={"size": 10, "color": INK},
            marker={"symbol": [OP_STYLES[k]["symbol"] for k in okinds], "size": [OP_STYLES[k]["size"] for k in okinds],
                    "color": "#F6F8FA",
                    "line": {"width": 2, "color": [device_style(f.device(d)).color if d >= 0 else INK for d in odevs]}}))
        hl_edges, hl_nodes = self.highlight(values, instructions)
        traces.append(_scatter(mode="lines", hoverinfo="skip", showlegend=False, name="selected edges",
                               line={"color": SELECT, "width": 3}, **hl_edges))
        traces.append(_scatter(mode="markers", hoverinfo="skip", showlegend=False, name="selected",
                               x=hl_nodes["x"], y=hl_nodes["y"],
                               marker={"size": 26, "color": SELECT, "line": {"width": 2.5, "color": SELECT},
                                       **hl_nodes["marker"]}))
        traces.append(self._group_trace(gk, x, y, opac[OVERVIEW_TRACE["groups"]]))
        traces.append(self._header_trace(x, y))
        traces.append(self._crossing_trace(x, y))
        return traces

    def _group_trace(self, gk: list[int], x, y, opacity) -> dict:
        G, F = self.groups, self.folded
        gids = [F.nodes[k][1] for k in gk]
        groups = [G.groups[g] for g in gids]
        errors = [self._holds_error(g) for g in groups]
        return _scatter(
            x=x[gk], y=y[gk], mode="markers", name="groups",
            customdata=gids, hovertext=[group_hover(G, g) for g in gids], hoverinfo="text", showlegend=False,
            text=[plotly_text(shorten(g.label, 40)) + device_mix(G, gid) for g, gid in zip(groups, gids)],
            textposition="middle right",
            textfont={"size": 11, "color": INK},
            marker={"symbol": [GROUP_SYMBOLS[g.kind] for g in groups],
                    "size": [14 + 3 * math.log10(max(g.size, 1)) for g in groups],
                    "color": [device_style(g.device).color if g.device else "#D0D7DE" for g in groups],
                    "opacity": opacity,
                    "line": {"color": [ERROR if e else INK for e in errors], "width": [3 if e else 1.2 for e in errors]}})

    def _holds_error(self, g) -> bool:
        k = np.searchsorted(self._error_instrs, g.start)
        return bool(k < len(self._error_instrs) and self._error_instrs[k] < g.stop)

    def boxes(self) -> list[tuple[int, float, float, float, float]]:
        """(group, x0, x1, y0, y1) around the drawn members of each expanded group (plot coordinates)."""
        F, G = self.folded, self.groups
        x, y = self.positions()
        anchor = np.asarray([n[1] if n[0] == "i" else int(G.home[n[1]]) if n[0] == "v" else G.groups[n[1]].start
                             for n in F.nodes], dtype=np.int64)
        done: dict[int, tuple] = {}
        for gid in sorted(self.expanded, key=lambda e: (-G.groups[e].depth, e)):  # inner boxes first
            g = G.groups[gid]
            inside = (anchor >= g.start) & (anchor < g.stop)
            if not inside.any():
                continue
            x0, x1 = float(x[inside].min()) - 0.45, float(x[inside].max()) + 0.45
            y0, y1 = float(y[inside].min()) - 0.45, float(y[inside].max()) + 1.45  # its header's layer included
            for e, (ex0, ex1, ey0, ey1) in done.items():  # an expanded group inside: around its box and header
                inner = G.groups[e]
                if e != gid and g.start <= inner.start and inner.stop <= g.stop:
                    x0, x1, y0, y1 = min(x0, ex0 - 0.15), max(x1, ex1 + 0.15), min(y0, ey0 - 0.15), max(y1, ey1 + 2)
            done[gid] = (x0, x1, y0, y1)
        return [(gid, *done[gid]) for gid in sorted(done, key=lambda e: (G.groups[e].depth, e))]

    def _header_trace(self, x, y) -> dict:
        boxes = self.boxes()
        groups = [self.groups.groups[b[0]] for b in boxes]
        return _scatter(x=[b[1] for b in boxes], y=[b[4] - 0.45 for b in boxes], mode="markers", name="expanded",
                        customdata=[b[0] for b in boxes], showlegend=False, hoverinfo="text",
                        hovertext=[f"<b>{plotly_text(g.label)}</b><br>click to collapse" for g in groups],
                        text=[plotly_text(shorten(g.label, 40)) for g in groups],
                        textposition="middle right", textfont={"size": 11, "color": MUTED},
                        marker={"symbol": "triangle-down", "size": 11, "color": MUTED})

    def _crossing_trace(self, x, y) -> dict:
        F = self.folded
        is_group = np.asarray([n[0] == "g" for n in F.nodes], dtype=bool)
        sel = np.flatnonzero(is_group[F.edges[:, 0]] | is_group[F.edges[:, 1]]) if len(F.edges) else np.zeros(0, int)
        a, b = F.edges[sel, 0], F.edges[sel, 1]
        f = self.analysis.facts
        hover = [f"{t:,} tensor{'s' * (t != 1)} · {plotly_text(fmt_bytes(int(nb)))}"
                 + (f" on {plotly_text(f.device(d))}" if d >= 0 else " on several devices")
                 + (f" · {EDGE_STYLES[k]['label']}" if k != "same" else "")
                 for t, nb, d, k in zip(F.tensors[sel].tolist(), F.nbytes[sel].tolist(), F.devices[sel].tolist(),
                                        (F.kinds[s] for s in sel.tolist()))]
        taken = {(round(2 * px), round(2 * py)) for px, py in zip(x.tolist(), y.tolist())}
        cx, cy, keep = [], [], []  # a dot never sits on a node (it would take the click meant for a group)
        for k, (xa, ya, xb, yb) in enumerate(zip(x[a].tolist(), y[a].tolist(), x[b].tolist(), y[b].tolist())):
            for t in (0.5, 0.3, 0.7):
                spot = (xa + t * (xb - xa), ya + t * (yb - ya))
                if (round(2 * spot[0]), round(2 * spot[1])) not in taken:
                    taken.add((round(2 * spot[0]), round(2 * spot[1])))
                    cx.append(spot[0]), cy.append(spot[1]), keep.append(k)
                    break
        hover = [hover[k] for k in keep]
        return _scatter(x=np.asarray(cx), y=np.asarray(cy), mode="markers", name="crossings", hoverinfo="text",
                        hovertext=hover, showlegend=False, marker={"size": 7, "color": "#8C959F", "symbol": "circle"})

    def layout(self, height: int | None = None) -> dict:
        """Figure layout: the full graph's, with the expanded boxes as shapes and a status note."""
        F = self.folded
        layers = int(F.y.max()) + 1 if len(F.y) else 1
        x, y = self.positions()
        extent = SimpleNamespace(tx=x, ty=y, ox=np.zeros(0), oy=np.zeros(0), layers=min(layers, FOCUS_LAYERS))
        out = _layout(extent, False, height)  # what the full graph's layout reads
        out["margin"] = {"l": 12, "r": 12, "t": 56, "b": 40}
        x0, x1 = out["xaxis"]["range"]
        out["xaxis"]["range"] = [x0, x1 + 3]  # room for the group labels on the right
        if layers > FOCUS_LAYERS:
            out["yaxis"]["range"] = [-FOCUS_LAYERS + 0.4, 0.6]
        out["shapes"] = [{"type": "rect", "xref": "x", "yref": "y", "x0": bx0, "x1": bx1, "y0": by0, "y1": by1,
                          "layer": "below", "line": {"color": _tint(gid, self, 0.55), "width": 1, "dash": "dot"},
                          "fillcolor": _tint(gid, self, 0.06), "name": f"group {gid}"}
                         for gid, bx0, bx1, by0, by1 in self.boxes()]
        out["annotations"] = [{"text": "<br>".join(map(plotly_text, self.status_lines())), "xref": "paper", "yref": "paper", "x": 0, "y": 0,
                               "xanchor": "left", "yanchor": "top", "yshift": -4, "showarrow": False,
                               "font": {"size": 11, "color": MUTED}, "align": "left", "name": "status"}]
        out["uirevision"] = "overview"
        return out

    def focus(self, gid: int) -> dict:
        """Axis ranges that show group ``gid`` (expanded: its box, at most FOCUS_LAYERS tall)."""
        x, y = self.positions()
        box = next((b for b in self.boxes() if b[0] == gid), None)
        if box is None:
            k = self.folded.position(("g", gid))
            cy = float(y[k]) if k is not None else 0.0
            box = (gid, float(x.min()), float(x.max()), cy - FOCUS_LAYERS / 2, cy + FOCUS_LAYERS / 2)
        _, x0, x1, y0, y1 = box
        y0 = max(y0, y1 - FOCUS_LAYERS)
        rows = (y >= y0) & (y <= y1)
        xs = x[rows] if rows.any() else x
        return {"xaxis.range": [float(xs.min()) - 0.6, float(xs.max()) + 3], "yaxis.range": [y0 - 0.5, y1 + 1.3]}

    def status_lines(self) -> tuple[str, str]:
        """What the overview aggregates, and how to open it (the figure's note, two lines)."""
        F, G = self.folded, self.groups
        n_groups = sum(1 for n in F.nodes if n[0] == "g")
        raw = len(F.nodes) - n_groups
        homed = int(G._nodes[-1] - G.m)
        unused = int(self.analysis.facts.is_tensor.sum()) - homed
        return (f"overview of {G.m:,} instructions and {homed:,} tensors: {n_groups:,} groups"
                + (f" and {raw:,} single nodes" if raw else "") + " drawn"
                + (f" ({unused:,} tensors no instruction names are not drawn)" if unused else ""),
                "click a group to expand it, ▾ to collapse" + (f" · {self.note}" if self.note else ""))

    def status(self) -> str:
        return " — ".join(self.status_lines())

    def figure(self, hidden=frozenset(), values=(), instructions=(), height: int | None = None) -> go.Figure:
        legend = _legend(_LegendSource(self))
        return go.Figure(data=self.traces(hidden, values, instructions) + legend, layout=self.layout(height),
                         _validate=False)


class _LegendSource:
    """What graph._legend reads: devices present, op kinds present."""

    def __init__(self, ov: Overview):
        from .palette import ordered_devices
        f = ov.analysis.facts
        self.devices = ordered_devices(f.device(int(c)) for c in np.unique(f.dcode[f.is_tensor]))
        self.op_kinds = tuple(OP_KINDS[k] for k in np.unique(ov.groups.op_kind).tolist())


# PRIVATE

def _scatter(**props) -> dict:  # clipped: after a zoom the rest of the graph must not spill into the margins
    return {"type": "scatter", "cliponaxis": True, **{k: v for k, v in props.items() if v is not None}}


def _segments(x: np.ndarray, y: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ex = np.full(3 * len(edges), np.nan)
    ey = np.full(3 * len(edges), np.nan)
    if len(edges):
        ex[0::3], ex[1::3] = x[edges[:, 0]], x[edges[:, 1]]
        ey[0::3], ey[1::3] = y[edges[:, 0]], y[edges[:, 1]]
    return ex, ey


def _life(arrays, v: int):
    first, last = arrays
    return (int(first[v]), int(last[v])) if first[v] >= 0 else None


def _tint(gid: int, ov: Overview, alpha: float) -> str:
    dev = ov.groups.groups[gid].device
    color = device_style(dev).color if dev else "#8C959F"
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"
