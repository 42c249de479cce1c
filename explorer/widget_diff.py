"""``Diff``: the placement diff of two programs as a notebook widget (``explorer.Diff(a, b)``).

A review of "what did this partitioner change do to placement": the header counts what moved, the
copies and arenas that changed and what the runtime must now provide; the two graphs sit side by
side with every change ringed by status (unchanged things dimmed); the memory maps pair each arena
of A with its counterpart in B; the runtime needs of both sides are compared row by row. Clicking a
tensor or op on either side (or a memory block) selects it **and its counterpart** — both ringed,
both blocks outlined — and the details panel shows the change field by field.

State is two traits, ``plan`` and ``selected`` (a :class:`~explorer.views.diff_prepare.DiffSelection`);
clicks only set ``selected``. The figures and HTML come from :mod:`explorer.views` (``diff_*``); this
module wires them, as :mod:`explorer.widget` does for one program. Callbacks run inside
``self._out`` so an exception shows in the notebook instead of vanishing.
"""

from __future__ import annotations

import os
from pathlib import Path

import ipywidgets as W
import plotly.graph_objects as go
import traitlets

from .analysis.diff import PlanDiff, ProgramDiff, ValueChange
from .views.details import CSS
from .views.diff_details import diff_selection_details, summary_html
from .views.diff_figures import (
    diff_graph_figure,
    diff_memory_figure,
    memory_lanes,
    memory_selection,
)
from .views.diff_prepare import (
    SIDES,
    DiffPlanView,
    DiffSelection,
    default_diff_plan,
    diff_plan_view,
    open_diff,
)
from .views.diff_style import DIFF_CSS
from .views.escape import html_text, visible
from .views.graph import TRACE, graph_highlight
from .views.requirements_html import REQ_CSS, requirements_diff_html
from .size_probe import SizeProbe
from .views.selection import resolve

__all__ = ["Diff", "DiffSelection"]

_BOXES = ("dx-diff-graph-a", "dx-diff-graph-b", "dx-diff-memory")


class Diff(W.VBox):
    """Where two programs place their tensors, side by side: ``explorer.Diff("before.pte", "after.pte")``.

    ``a``/``b`` are paths, bytes or Programs; ``plan=`` picks the method shown (default ``forward``, else
    the first plan both have). ``diff`` is the :class:`~explorer.analysis.diff.ProgramDiff` behind it,
    ``selected`` the linked selection, :meth:`select` sets it from code, :meth:`save_html` writes the
    same view as an offline page.
    """

    plan = traitlets.Unicode(help="name of the plan (method) shown; one both programs have")
    selected = traitlets.Instance(DiffSelection, args=("",), help="what both sides highlight")

    def __init__(self, a, b, *, plan: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.program_a, self.program_b, self.diff = open_diff(a, b)
        self.diff: ProgramDiff
        first = plan or default_diff_plan(self.diff)
        self.diff.plan(first)  # KeyError naming the missing plan
        self._views: dict[str, DiffPlanView] = {}
        self._out = W.Output(layout=W.Layout(max_height="160px", overflow="auto"))
        self._build()
        self.add_class("dx-diff-widget")
        self.observe(self._on_plan, names=["plan"])
        self.observe(self._on_selected, names=["selected"])
        self.plan = first

    def __repr__(self) -> str:
        return f"Diff({self.view.name_a!r}, {self.view.name_b!r}, plan={self.plan!r}, selected={self.selected!r})"

    # -- public API ---------------------------------------------------------------------------------

    @property
    def view(self) -> DiffPlanView:
        """The current plan of both programs (diff, analyses, layouts)."""
        if self.plan not in self._views:
            self._views[self.plan] = diff_plan_view(self.diff, self.program_a, self.program_b, self.plan)
        return self._views[self.plan]

    @property
    def plan_diff(self) -> PlanDiff:
        """The :class:`~explorer.analysis.diff.PlanDiff` of the current plan."""
        return self.view.diff

    def select(self, *items, side: str = "a", instructions=()) -> DiffSelection:
        """Select values of ``side`` (``"a"`` or ``"b"``: indices, names, ``"%3"``, Tensors) and/or its
        ``instructions``; their counterparts on the other side follow. A
        :class:`~explorer.analysis.diff.ValueChange` selects its tensor on A (on B when it was added).
        ``select()`` clears. Raises KeyError/IndexError for names or indices that side doesn't have."""
        if side not in SIDES:
            raise ValueError(f"side must be 'a' or 'b', not {side!r}")
        changes = [i for i in items if isinstance(i, ValueChange)]
        if changes:
            if len(changes) != len(items):
                raise TypeError("select() takes ValueChanges or values, not both at once")
            side = "a" if all(c.a is not None for c in changes) else "b"
            items = tuple((c.a if side == "a" else c.b).index for c in changes)  # type: ignore[union-attr]
        view = self.view.side(side)
        picked = resolve(view.plan, items, instructions)
        self.selected = self.view.linked(side, picked.values, picked.instructions)
        return self.selected

    def save_html(self, path: str | os.PathLike) -> Path:
        """Write the same panels as one self-contained, offline HTML file; returns its path."""
        from .views.diff_report import write_diff_report

        return write_diff_report(self.program_a, self.program_b, path, result=self.diff,
                                 programs=(self.program_a, self.program_b), plan=self.plan, selected=self.selected,
                                 views=self._views)

    # -- building -----------------------------------------------------------------------------------

    def _build(self) -> None:
        names = [p.plan for p in self.diff.plans]
        self._header = W.HTML()
        self._plan_box = W.Dropdown(options=[(visible(n), n) for n in names], description="plan",
                                    layout=W.Layout(width="220px", display="flex" if len(names) > 1 else "none"),
                                    style={"description_width": "36px"})
        self._plan_box.observe(lambda c: setattr(self, "plan", c["new"]), names=["value"])
        self._titles = {s: W.HTML() for s in SIDES}
        self._boxes = {s: W.Box(layout=W.Layout(width="100%")) for s in SIDES}
        columns = []
        for s, cls in zip(SIDES, _BOXES):
            self._boxes[s].add_class(cls)
            columns.append(W.VBox([self._titles[s], self._boxes[s]],
                                  layout=W.Layout(flex="1 1 0", min_width="0", border="1px solid #D0D7DE",
                                                  padding="4px", margin="0 4px 0 0" if s == "a" else "0")))
        self._details = W.HTML(layout=W.Layout(flex="1 1 0", min_width="0", max_height="460px", overflow="auto",
                                               padding="6px 10px", border="1px solid #D0D7DE", margin="0 4px 0 0"))
        self._details.add_class("dx-details")
        self._requirements = W.HTML(layout=W.Layout(flex="1 1 0", min_width="0", padding="6px 10px",
                                                    border="1px solid #D0D7DE"))
        self._requirements.add_class("dx-requirements")
        self._memory_title = W.HTML(
            "<div class='dx-root' style='margin-top:8px'><b>Memory maps</b> <span class='dx-muted'>— per arena "
            "pair, A's lane above B's; x: instructions of each program, y: bytes (one scale per pair)</span></div>")
        self._memory_box = W.Box(layout=W.Layout(width="100%", border="1px solid #D0D7DE"))
        self._memory_box.add_class(_BOXES[2])
        self._probe = SizeProbe(root="dx-diff-widget", boxes=list(_BOXES), layout=W.Layout(height="0px"))
        self._probe.observe(self._on_widths, names=["widths"])
        row = W.Layout(width="100%", margin="6px 0 0 0")
        self.children = [self._header, self._plan_box, W.HBox(columns, layout=row),
                         W.HBox([self._details, self._requirements], layout=row),
                         self._memory_title, self._memory_box, self._out, self._probe]

    def _figure(self, fig: go.Figure, click, width: int | None) -> go.FigureWidget:
        if width:
            fig.update_layout(width=width)
        widget = go.FigureWidget(fig, _validate=False)  # built and schema-checked by the views (see Explorer)
        for obj in (widget, widget.layout, *widget.data):
            obj._validate = True
        for trace in widget.data:
            if trace.customdata is not None and trace.hoverinfo != "skip":
                trace.on_click(click)
        return widget

    def _width(self, k: int) -> int | None:
        widths = self._probe.widths
        return widths[k] - 2 if len(widths) > k else None

    # -- trait observers ----------------------------------------------------------------------------

    def _on_plan(self, change) -> None:
        with self._out:
            dv = self.view
            self._plan_box.value = dv.diff.plan
            for box in (*self._boxes.values(), self._memory_box):
                for old in box.children:
                    old.close()
            self._graphs = {}
            for k, s in enumerate(SIDES):
                self._graphs[s] = self._figure(diff_graph_figure(dv, s), self._graph_click(s), self._width(k))
                self._boxes[s].children = (self._graphs[s],)
                name = dv.name_a if s == "a" else dv.name_b
                self._titles[s].value = (f"<div class='dx-root dx-diff'><span class='dx-side-{s}'>{s.upper()}</span>"
                                         f"<b>{html_text(name)}</b> <span class='dx-muted'>"
                                         f"({'before' if s == 'a' else 'after'})</span></div>")
            self._memory = self._figure(diff_memory_figure(dv), self._on_memory_click, self._width(2))
            self._memory_box.children = (self._memory,)
            self._header.value = f"<style>{CSS}{DIFF_CSS}{REQ_CSS}</style>{summary_html(dv)}"
            self._requirements.value = (
                f"<div class='dx-root dx-diff'><b>Runtime needs</b> <span class='dx-muted'>— what the runtime must "
                f"provide, A vs B</span>{requirements_diff_html(dv.diff.requirements_a, dv.diff.requirements_b, dv.name_a, dv.name_b)}</div>")
            empty = DiffSelection(dv.diff.plan)
            if self.selected == empty:
                self._on_selected({"new": empty})
            else:
                self.selected = empty

    def _on_selected(self, change) -> None:
        with self._out:
            sel: DiffSelection = change["new"]
            dv = self.view
            if sel.plan != dv.diff.plan:
                return
            for s in SIDES:
                edges, nodes = graph_highlight(dv.side(s).geometry, sel.values(s), sel.instructions(s))
                with self._graphs[s].batch_update():
                    self._graphs[s].data[TRACE["hl_edges"]].update(edges)
                    self._graphs[s].data[TRACE["hl_nodes"]].update(nodes)
            lanes = memory_lanes(dv)
            with self._memory.batch_update():
                for lane, hl in zip(lanes, memory_selection(dv, sel.values_a, sel.values_b)):
                    if hl is not None:
                        self._memory.data[lane["select"]].update(hl)
            self._details.value = diff_selection_details(dv, sel)

    def _on_widths(self, change) -> None:
        with self._out:
            figures = [self._graphs.get("a"), self._graphs.get("b"), getattr(self, "_memory", None)]
            for k, fig in enumerate(figures):
                if fig is not None and self._width(k) and fig.layout.width != self._width(k):
                    fig.layout.width = self._width(k)

    # -- user events --------------------------------------------------------------------------------

    def _graph_click(self, side: str):
        def click(trace, points, state) -> None:
            if not points.point_inds:
                return
            with self._out:
                index = int(trace.customdata[points.point_inds[0]])
                if trace.name == "ops":
                    self.select(side=side, instructions=[index])
                elif trace.name == "tensors":
                    self.select(index, side=side)
        return click

    def _on_memory_click(self, trace, points, state) -> None:
        if not points.point_inds:
            return
        with self._out:
            lanes = memory_lanes(self.view)
            k = next((n for n, t in enumerate(self._memory.data) if t is trace), None)
            lane = next((x for x in lanes if x["blocks"] == k and x["memory_id"] is not None), None)
            if lane is not None:
                self.select(int(trace.customdata[points.point_inds[0]]), side=lane["side"])
