"""The Explorer's level of detail for big plans: an overview graph of groups that expand in place,
and a memory map that bins crowded lanes and refines them on zoom.

:class:`OverviewMixin` is half of :class:`explorer.Explorer`; it is used when the current plan's view
is a level-of-detail one (``PlanView.lod``, chosen by :func:`explorer.views.prepare.wants_lod`). The
figures are made by :mod:`explorer.views.overview` and :mod:`explorer.views.memory_lod` and never
replaced while the plan stays: expanding, collapsing, zooming and selecting update their traces in
place (a new ``FigureWidget`` would send plotly.js to the browser again).
"""

from __future__ import annotations

import plotly.graph_objects as go

from .views.overview import OVERVIEW_TRACE, Overview, group_details

__all__ = ["OverviewMixin"]


class OverviewMixin:
    """Expand/collapse groups, reveal values, refine the memory map (see the module docstring)."""

    # -- public API ---------------------------------------------------------------------------------

    @property
    def overview(self) -> Overview | None:
        """The current plan's :class:`~explorer.views.overview.Overview` (None when drawn in full)."""
        return self.view.overview

    def expand(self, group) -> int:
        """Expand a group of the overview in place (by id, or by its label); returns its id."""
        ov = self._require_overview()
        with self._out:
            gid = self._group_id(group)
            ov.expand(gid)
            self._redraw_overview(focus=gid)
            self._details.value = group_details(ov, gid)
        return gid

    def collapse(self, group=None) -> None:
        """Collapse a group (id or label) and everything inside it; no argument collapses all."""
        ov = self._require_overview()
        with self._out:
            if group is None:
                ov.collapse_all()
                self._redraw_overview(focus=None, reset=True)
            else:
                gid = self._group_id(group)
                ov.collapse(gid)
                self._redraw_overview(focus=gid)
                self._details.value = group_details(ov, gid)

    def reveal(self, *items, instructions=()) -> None:
        """Expand the groups holding these values / instructions (or the selection) so they are drawn."""
        ov = self._require_overview()
        sel = self.select(*items, instructions=instructions) if items or instructions else self.selected
        with self._out:
            opened = ov.reveal(sel.values, sel.instructions)
            self._redraw_overview(focus=opened[-1] if opened else None)

    def _require_overview(self) -> Overview:
        ov = self.view.overview
        if ov is None:
            raise RuntimeError(f"plan {self.plan!r} is drawn in full, without groups (Explorer(..., lod=True) "
                               "draws an overview whatever the size)")
        return ov

    def _group_id(self, group) -> int:
        groups = self.view.overview.groups.groups
        if isinstance(group, str):
            found = [g.id for g in groups if g.label == group]
            if not found:
                raise KeyError(f"no group labelled {group!r} has been made yet (hover a group to see its label)")
            return found[0]
        return int(group)

    # -- building -----------------------------------------------------------------------------------

    def _lod_figures(self, view) -> tuple[go.FigureWidget, go.FigureWidget]:
        graph = self._figure(view.overview.figure(), self._lod_graph_click, self._width(0))
        memory = self._figure(view.memory.figure(), self._lod_memory_click, self._width(1))
        axes = [k for k in memory.layout if k.startswith("xaxis")] if view.memory.arenas else []
        self._memory_range = (-0.6, max(view.memory.n, 1) - 0.4)
        if axes:
            memory.layout.on_change(self._lod_memory_zoom, *[f"{a}.range" for a in axes], "xaxis.autorange")
        return graph, memory

    def _hidden(self) -> set[str]:
        return {t.description for t in self._device_box.children[1:]} - set(self.devices)

    def _redraw_overview(self, focus: int | None = None, reset: bool = False) -> None:
        ov, sel = self.view.overview, self.selected
        traces = ov.traces(self._hidden(), sel.values, sel.instructions)
        layout = ov.layout()
        with self._graph.batch_update():
            for k, props in enumerate(traces):
                self._graph.data[k].update({key: v for key, v in props.items() if key != "type"})
            self._graph.layout.shapes = layout["shapes"]
            self._graph.layout.annotations = layout["annotations"]
            self._graph.layout.height = layout["height"]
            if reset:
                self._graph.layout.xaxis.range = layout["xaxis"]["range"]
                self._graph.layout.yaxis.range = layout["yaxis"]["range"]
            elif focus is not None:
                ranges = ov.focus(focus)
                self._graph.layout.xaxis.range = ranges["xaxis.range"]
                self._graph.layout.yaxis.range = ranges["yaxis.range"]

    def _redraw_memory(self) -> None:
        mem, sel = self.view.memory, self.selected
        rows = len(mem.arenas)
        if not rows:
            return
        traces = mem.traces(self._hidden(), sel.values)
        with self._memory.batch_update():
            for k in range(rows):
                for index in (2 * k, 2 * rows + k):
                    self._memory.data[index].update({key: v for key, v in traces[index].items() if key != "type"})
            self._memory.layout.annotations = mem.layout()["annotations"]

    # -- events -------------------------------------------------------------------------------------

    def _lod_graph_click(self, trace, points, state) -> None:
        if not points.point_inds:
            return
        with self._out:
            index = int(trace.customdata[points.point_inds[0]])
            if trace.name == "groups":
                self.expand(index)
            elif trace.name == "expanded":
                self.collapse(index)
            elif trace.name == "ops":
                self.select(instructions=[index])
            else:
                self.select(index)

    def _lod_memory_click(self, trace, points, state) -> None:
        if not points.point_inds:
            return
        with self._out:
            if trace.type == "heatmap":  # zoom onto the clicked bin and its neighbours
                x = list(trace.x)
                step = (x[1] - x[0]) if len(x) > 1 else 1.0
                centre = float(points.xs[0])
                self._memory.layout.xaxis.range = [centre - 1.5 * step, centre + 1.5 * step]
                return
            self.select(int(trace.customdata[points.point_inds[0]]))

    def _lod_memory_zoom(self, layout, *ranges) -> None:
        with self._out:
            mem = self.view.memory
            if mem is None:
                return
            full = (-0.6, max(mem.n, 1) - 0.4)
            if layout.xaxis.autorange:  # a double click: back to the whole plan, with an explicit range again
                window = full
                with self._memory.batch_update():
                    layout.xaxis.autorange = False
                    layout.xaxis.range = list(full)
            else:  # the lanes' x axes match; whichever moved (callback arguments come in no set order)
                seen = [tuple(r) for r in ranges if isinstance(r, (tuple, list)) and len(r) == 2]
                moved = [r for r in seen if r != self._memory_range]
                if not moved:
                    return
                window = moved[0]
            self._memory_range = window
            if mem.set_window(*window):
                self._redraw_memory()

    def _lod_devices(self, hidden: set[str]) -> None:
        opacity = self.view.overview.opacity(hidden)
        with self._graph.batch_update():
            for index in (OVERVIEW_TRACE["tensors"], OVERVIEW_TRACE["groups"]):
                self._graph.data[index].marker.opacity = opacity[index]
        self._redraw_memory()

    def _lod_selected(self, sel) -> None:
        view = self.view
        edges, nodes = view.overview.highlight(sel.values, sel.instructions)
        with self._graph.batch_update():
            self._graph.data[OVERVIEW_TRACE["hl_edges"]].update(edges)
            self._graph.data[OVERVIEW_TRACE["hl_nodes"]].update(nodes)
        lanes, shapes = view.memory.highlight(sel.values, sel.instructions)
        with self._memory.batch_update():
            for k, lane in enumerate(lanes):
                self._memory.data[2 * k + 1].update(lane)
            if view.memory.arenas:
                self._memory.layout.shapes = self._memory_shapes + tuple(shapes)
