"""``Explorer``: the notebook widget, a thin ipywidgets composition over :mod:`explorer.views`.

State lives in three traits: ``plan`` (the method shown), ``devices`` (devices whose tensors are
shown at full strength) and ``selected`` (a :class:`~explorer.views.selection.Selection`). Every
panel follows the traits; clicks, the findings list and the search box only set traits. Figures are
built by :mod:`explorer.views`; this module wires them up. Callbacks run inside ``self._out`` (an
``ipywidgets.Output``) so an exception shows in the notebook instead of vanishing.
"""

from __future__ import annotations

import os
from pathlib import Path

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go
import traitlets

from .analysis.types import Finding
from .views.details import (
    CSS,
    device_button_css,
    device_table,
    finding_label,
    selection_details,
)
from .views.escape import html_text, visible
from .views.graph import TRACE, build_graph_figure, graph_highlight, tensor_opacity
from .views.memory import block_opacity, build_memory_figure, memory_highlight
from .views.palette import ordered_devices
from .views.prepare import (
    PlanView,
    default_plan,
    open_program,
    plan_view,
    program_summary,
    totals_view,
    wants_lod,
)
from .views.requirements_html import REQ_CSS, runtime_needs_html
from .views.selection import Selection, resolve, search
from .size_probe import SizeProbe
from .widget_lod import OverviewMixin

__all__ = ["Explorer", "Selection"]


_MAX_FINDINGS = 200  # buttons in the findings list; the rest are counted
_FINDING_CSS = """
.dx-explorer .dx-finding{white-space:normal;height:auto;min-height:fit-content;flex:0 0 auto;overflow:visible;
  text-align:left;line-height:1.35;padding:4px 8px;
  background:#fff;border:1px solid transparent;border-radius:6px;font-size:12.5px;box-shadow:none}
.dx-explorer .dx-finding:hover{background:#F3F4F6}
.dx-explorer .dx-finding.dx-current{background:#DDF4FF;border-color:#B6E3FF}
.dx-explorer .dx-error-finding{color:#B31B1B}
"""


class Explorer(OverviewMixin, W.VBox):
    """Where every tensor and arena of an ExecuTorch program lives: graph, memory map, details, findings.

    ``Explorer()`` opens the bundled sample; ``Explorer("model.pte")``, ``Explorer(data_bytes)`` or
    ``Explorer(program)`` open yours. ``plan=`` picks the method (default ``forward``).

    A plan with more than 2,000 graph nodes is drawn at a level of detail (``lod=None``, the default;
    ``lod=True``/``False`` forces it on or off): the graph is an overview of instruction groups that
    expand in place on click (:meth:`expand`, :meth:`collapse`, :meth:`reveal`), and memory lanes with
    more than 4,000 tensors are binned until a zoom leaves few enough to draw (see :mod:`.widget_lod`).
    """

    plan = traitlets.Unicode(help="name of the plan (method) shown")
    devices = traitlets.Tuple(help="devices (as strings) whose tensors are drawn; the others fade")
    selected = traitlets.Instance(Selection, args=("",), help="what every panel highlights")

    def __init__(self, source=None, *, plan: str | None = None, lod: bool | None = None, **kwargs):
        super().__init__(**kwargs)
        self._lod = lod
        self.program = open_program(source)
        self._lazy: dict = {}  # plan name -> LazyAnalysis made by the checks, reused by a big plan's view
        self.findings: list[Finding] = self._check()
        self._views: dict[str, PlanView] = {}
        self._pending: Selection | None = None  # a selection waiting for its plan to be drawn
        self._out = W.Output(layout=W.Layout(max_height="160px", overflow="auto"))
        self._build_controls()
        self.add_class("dx-explorer")
        self.observe(self._on_plan, names=["plan"])
        self.observe(self._on_devices, names=["devices"])
        self.observe(self._on_selected, names=["selected"])
        self.plan = plan or default_plan(self.program)

    def __repr__(self) -> str:
        name = Path(self.program.source).name if self.program.source else "program"
        return f"Explorer({name!r}, plan={self.plan!r}, selected={self.selected!r})"

    # -- public API ---------------------------------------------------------------------------------

    @property
    def view(self) -> PlanView:
        """The current plan with its analysis, layout and graph geometry."""
        return self._view(self.plan)

    @property
    def analysis(self):
        return self.view.analysis

    def select(self, *items, instructions=(), plan: str | None = None) -> Selection:
        """Select values (indices, names, ``"%3"``, Tensor objects) and/or ``instructions``, or a Finding.

        A Finding selects its values and instructions and switches to its plan. ``select()`` clears.
        Raises KeyError/IndexError for names or indices the plan doesn't have.
        """
        plans = self.program.plan_names
        owners = [i.plan for i in items if isinstance(i, Finding) and i.plan in plans]  # "" = program-wide
        target = plan or (owners[0] if owners else self.plan)
        selection = resolve(self.program.plan(target), items, instructions)
        if target != self.plan:
            self._pending = selection
            self.plan = target
        self.selected = selection
        return selection

    def save_html(self, path: str | os.PathLike) -> Path:
        """Write the same panels as one self-contained, offline HTML file; returns its path."""
        from .views.report import write_report

        return write_report(self.program, path, findings=self.findings, plan=self.plan, selected=self.selected,
                            views=self._views)

    # -- building -----------------------------------------------------------------------------------

    def _view(self, name: str) -> PlanView:
        if name not in self._views:
            plan = self.program.plan(name)
            lod = wants_lod(plan, self._lod)
            reuse = self._lazy.pop(name, None) if lod else None
            self._views[name] = plan_view(plan, self.program, lod=lod, analysis=reuse)
        return self._views[name]

    def _check(self) -> list[Finding]:
        """``explorer.check(program)``, keeping each big plan's analysis for its view (no second pass)."""
        from .analysis.checks import program_findings
        from .analysis.lazy import LazyAnalysis

        found = program_findings(self.program)
        for plan in self.program.plans:
            lazy = LazyAnalysis(plan, self.program)
            found.extend(lazy.findings)
            if wants_lod(plan, self._lod):
                self._lazy[plan.name] = lazy
        return found

    def _build_controls(self) -> None:
        names = self.program.plan_names
        self._header = W.HTML()
        self._plan_box = W.Dropdown(options=[(visible(n), n) for n in names], description="plan", layout=W.Layout(width="200px"),
                                    style={"description_width": "36px"}, disabled=len(names) < 2)
        self._plan_box.observe(lambda c: setattr(self, "plan", c["new"]), names=["value"])
        self._device_box = W.HBox(layout=W.Layout(align_items="center"))
        self._search = W.Text(placeholder="search: name, op, %value, #op", continuous_update=True,
                              layout=W.Layout(width="260px"))
        self._search.observe(self._on_search, names=["value"])
        controls = W.HBox([self._plan_box, self._device_box, self._search],
                          layout=W.Layout(align_items="center", justify_content="space-between",
                                          flex_flow="row wrap", margin="2px 0 6px 0"))
        # graph and side panel share a row while the graph keeps >= 460 px; below that the side panel wraps under it
        self._graph_box = W.Box(layout=W.Layout(flex="3 1 460px", min_width="0", border="1px solid #D0D7DE"))
        self._graph_box.add_class("dx-graph-box")
        self._details = W.HTML(layout=W.Layout(overflow="auto", max_height="360px", padding="6px 10px"))
        self._details.add_class("dx-details")
        self._finding_buttons = [self._finding_button(k, f) for k, f in enumerate(self.findings[:_MAX_FINDINGS])]
        extra = len(self.findings) - len(self._finding_buttons)
        self._findings = W.VBox(
            self._finding_buttons + ([W.HTML(f"<span class='dx-root dx-muted'>… and {extra} more</span>")] if extra > 0 else [])
            or [W.HTML("<span class='dx-root dx-muted'>no findings</span>")],
            layout=W.Layout(max_height="240px", overflow="hidden auto"))
        findings_title = W.HTML(f"<div class='dx-root'><b>Findings</b> <span class='dx-muted'>"
                                f"({len(self.findings)}, from explorer.check — click one to select it)</span></div>")
        side = W.VBox([self._details, findings_title, self._findings],
                      layout=W.Layout(flex="2 1 260px", min_width="260px", padding="0 0 0 8px"))
        self._totals = W.HTML()
        self._memory_box = W.Box(layout=W.Layout(width="100%", border="1px solid #D0D7DE"))
        self._memory_box.add_class("dx-memory-box")
        self._probe = SizeProbe(root="dx-explorer", boxes=["dx-graph-box", "dx-memory-box"],
                                layout=W.Layout(height="0px"))
        self._probe.observe(self._on_widths, names=["widths"])
        self.children = [self._header, controls, W.HBox([self._graph_box, side], layout=W.Layout(width="100%", flex_flow="row wrap")),
                         self._totals, self._memory_box, self._out, self._probe]

    def _figure(self, fig: go.Figure, click, width: int | None) -> go.FigureWidget:
        if width:
            fig.update_layout(width=width)
        # Built by the views and checked against plotly's schema in the tests; skipping the per-point
        # validation here is ~10x faster on big plans. Later edits must validate again: plotly sends an
        # edit to the browser only from its validating setter.
        widget = go.FigureWidget(fig, _validate=False)
        for obj in (widget, widget.layout, *widget.data):
            obj._validate = True
        for trace in widget.data:
            if trace.customdata is not None:
                trace.on_click(click)
        return widget

    # -- trait observers ----------------------------------------------------------------------------

    def _on_plan(self, change) -> None:
        with self._out:
            view = self._view(change["new"])
            self._plan_box.value = view.plan.name
            device_objs = ordered_devices(_tensor_devices(view) + [b.device for b in view.plan.buffers])
            devices = [str(d) for d in device_objs]
            for old in (*self._graph_box.children, *self._memory_box.children):
                old.close()
            if view.lod:
                self._graph, self._memory = self._lod_figures(view)
            else:
                self._graph = self._figure(build_graph_figure(view.plan, view.analysis, geometry=view.geometry),
                                           self._on_graph_click, self._width(0))
                self._memory = self._figure(build_memory_figure(view.plan, view.analysis), self._on_memory_click,
                                            self._width(1))
            self._memory_shapes = tuple(self._memory.layout.shapes)
            self._graph_box.children = (self._graph,)
            self._memory_box.children = (self._memory,)
            toggles = []
            for k, name in enumerate(devices):
                toggle = W.ToggleButton(value=True, description=name, tooltip=f"show tensors on {name}",
                                        layout=W.Layout(width="auto", margin="0 2px"))
                toggle.add_class("dx-dev")
                toggle.add_class(f"dx-dev-{k}")
                toggle.observe(self._on_toggle, names=["value"])
                toggles.append(toggle)
            self._device_box.children = [W.HTML("<span class='dx-root dx-muted'>devices</span>"), *toggles]
            plan_findings = [f for f in self.findings if f.plan == view.plan.name]
            self._header.value = (f"<style>{CSS}{_FINDING_CSS}{REQ_CSS}{device_button_css(device_objs)}</style>"
                                  f"<div class='dx-root'><b style='font-size:15px'>"
                                  f"{html_text(Path(self.program.source).name if self.program.source else 'program')}"
                                  f"</b> <span class='dx-muted'>· {html_text(program_summary(view, plan_findings))}"
                                  f"</span></div>")
            self._totals.value = (f"<div class='dx-root' style='margin-top:8px'><b>Per device</b></div>"
                                  f"{device_table(view.plan, totals_view(view))}{runtime_needs_html(view)}"
                                  f"<div class='dx-root' style='margin-top:8px'>"
                                  f"<b>Memory map</b> <span class='dx-muted'>— one lane per arena; each tensor spans "
                                  f"its lifetime (x) and bytes (y)</span></div>")
            self.devices = tuple(devices)
            pending, self._pending = self._pending, None
            selection = pending if pending is not None and pending.plan == view.plan.name else Selection(view.plan.name)
            if selection == self.selected:
                self._on_selected({"new": selection})  # same value, new figures: draw it again
            else:
                self.selected = selection

    def _on_devices(self, change) -> None:
        with self._out:
            view, shown = self.view, set(change["new"])
            hidden = {t.description for t in self._device_box.children[1:]} - shown
            if view.lod:
                self._lod_devices(hidden)
            else:
                with self._graph.batch_update():
                    self._graph.data[TRACE["tensors"]].marker.opacity = tensor_opacity(view.geometry, hidden)
                with self._memory.batch_update():
                    for k, arena in enumerate(view.analysis.memory.arenas):
                        self._memory.data[2 * k].marker.opacity = block_opacity(arena, hidden)
            for toggle in self._device_box.children[1:]:
                if toggle.value != (toggle.description in shown):
                    toggle.value = toggle.description in shown

    def _on_selected(self, change) -> None:
        with self._out:
            sel: Selection = change["new"]
            view = self.view
            if sel.plan != view.plan.name:
                return  # select() switches the plan first; the plan observer re-applies it
            if view.lod:
                self._lod_selected(sel)
            else:
                edges, nodes = graph_highlight(view.geometry, sel.values, sel.instructions)
                with self._graph.batch_update():
                    self._graph.data[TRACE["hl_edges"]].update(edges)
                    self._graph.data[TRACE["hl_nodes"]].update(nodes)
                lanes, shapes = memory_highlight(view.analysis, len(view.plan.instructions), sel.values,
                                                 sel.instructions)
                with self._memory.batch_update():
                    for k, lane in enumerate(lanes):
                        self._memory.data[2 * k + 1].update(lane)
                    if view.analysis.memory.arenas:
                        self._memory.layout.shapes = self._memory_shapes + tuple(shapes)
            title = f"search “{sel.query}”: {len(sel.values)} values, {len(sel.instructions)} ops" if sel.query else None
            self._details.value = selection_details(view.plan, view.analysis, sel.values, sel.instructions,
                                                    sel.finding, title=title)
            for button in self._finding_buttons:
                current = self.findings[button.finding_index] == sel.finding
                if current != ("dx-current" in button._dom_classes):
                    (button.add_class if current else button.remove_class)("dx-current")

    def _width(self, k: int) -> int | None:
        widths = self._probe.widths
        return widths[k] if len(widths) > k else None

    def _on_widths(self, change) -> None:
        with self._out:
            for fig, k in ((self._graph, 0), (self._memory, 1)):
                if self._width(k) and fig.layout.width != self._width(k):
                    fig.layout.width = self._width(k)

    # -- user events --------------------------------------------------------------------------------

    def _on_graph_click(self, trace, points, state) -> None:
        if points.point_inds:
            with self._out:
                index = int(trace.customdata[points.point_inds[0]])
                if trace.name == "ops":
                    self.select(instructions=[index])
                else:
                    self.select(index)

    def _on_memory_click(self, trace, points, state) -> None:
        if points.point_inds:
            with self._out:
                self.select(int(trace.customdata[points.point_inds[0]]))

    def _finding_button(self, k: int, finding: Finding) -> W.Button:
        button = W.Button(description=finding_label(finding), tooltip=visible(finding.message),
                          layout=W.Layout(width="100%", height="auto", margin="1px 0", flex="0 0 auto"))
        button.finding_index = k
        button.add_class("dx-finding")
        button.add_class(f"dx-{finding.severity}-finding")
        button.on_click(self._on_finding)
        return button

    def _on_finding(self, button: W.Button) -> None:
        with self._out:
            self.select(self.findings[button.finding_index])
            if self.view.lod:  # open the groups holding what it names
                self.reveal()

    def _on_search(self, change) -> None:
        with self._out:
            self.selected = search(self.view.plan, change["new"])

    def _on_toggle(self, change) -> None:
        with self._out:
            self.devices = tuple(t.description for t in self._device_box.children[1:] if t.value)


def _tensor_devices(view: PlanView) -> list:
    """The devices tensors of the view's plan live on (from the columns for a big plan)."""
    if view.lod:
        f = view.analysis.facts
        return [f.device(int(c)) for c in np.unique(f.dcode[f.is_tensor])]
    return list(view.geometry.tensor_devices)
