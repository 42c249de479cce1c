"""``Explorer``: the notebook widget — the browser app (:mod:`explorer.frontend`) on anywidget.

Python reads and analyses the program once, then sends the app its data (the same payload the HTML
report embeds, gzip-compressed, as a binary trait). Everything interactive runs in the browser; what
Python can read and set is in these traits, synced both ways:

* ``plan`` — the method shown;
* ``selected`` — a :class:`~explorer.views.state.selection.Selection` (a click in the page sets it; setting
  it from code, e.g. with :meth:`Explorer.select`, highlights it in every panel);
* ``devices`` — the devices whose tensors are drawn at full strength (the device filter);
* ``expanded`` — the open groups of the plan's graph (:meth:`expand`, :meth:`collapse`; a small plan starts with all).
* ``shown_overlay`` — the overlay colouring the graph (:meth:`overlay`, :meth:`show_overlay`;
  :mod:`explorer.widget.overlays`, docs/overlays.md).
* ``moves`` — what-if moves (``"SELECTOR=DEVICE"``; :meth:`move`, :meth:`undo`); with any, the view is the diff of
  the original vs the program executorch would export for them (:mod:`explorer.widget.whatif`, docs/whatif.md).

plotly.js reaches the page once per page, not per widget: the first widget's front end asks for it
with a custom message and gets the vendored file as a binary buffer.
"""

from __future__ import annotations

import os
from pathlib import Path

import traitlets

from explorer.analysis.types import Finding
from explorer.format.reader import load
from explorer.model.program import DataFile
from explorer.views.html.data_file import data_file_payload
from explorer.views.fragments.fallback import program_fallback_html
from explorer.views.payload.embed import pack
from explorer.views.html.empty_program import empty_program_payload
from explorer.widget.base import AppWidget
from explorer.widget.overlays import OverlayWidget
from explorer.widget.whatif import WhatIfWidget
from explorer.views.state.plan import PlanView, default_plan, open_program, plan_view
from explorer.views.payload.app import app_payload, selection_json
from explorer.views.state.selection import Selection, resolve
from explorer.analysis.context import attach_etrecord
from explorer.analysis.pipeline import check
from explorer.views.html.overlay import write_overlay_report
from explorer.views.html.whatif import write_whatif_report
from explorer.views.payload.profile import open_profile
from explorer.views.payload.numerics import numerics_payload
from explorer.views.payload.numerics import numerics_shown
from explorer.analysis.numerics.compare import DEFAULT_TOL
from explorer.analysis.numerics.load import load_numerics
from explorer.analysis.profile.join import Profile

__all__ = ["Explorer", "Selection"]


def _selection_from_json(data, widget: Explorer) -> Selection:
    if not data:
        return Selection(widget.plan)
    finding, group = data.get("finding"), data.get("group")
    return Selection(str(data.get("plan") or widget.plan), tuple(int(v) for v in data.get("values") or ()),
                     tuple(int(i) for i in data.get("instructions") or ()),
                     widget.findings[int(finding)] if finding not in (None, "") else None, str(data.get("query") or ""),
                     int(group) if group is not None else None)


class Explorer(WhatIfWidget, OverlayWidget, AppWidget):
    """Where every tensor and arena of an ExecuTorch program lives: graph, memory map, details, findings.

    ``Explorer()`` opens the bundled sample; ``Explorer("model.pte")``, ``Explorer(data_bytes)`` or
    ``Explorer(program)`` open yours. ``plan=`` picks the method (default ``forward``); ``data=["m.ptd"]``
    links external tensors to the data files holding them. A ``.ptd`` on its own shows its entries.

    Every plan is drawn the same way, at any size: its instructions in groups that expand and collapse in
    place (:meth:`expand`, :meth:`collapse`, :meth:`reveal`). A plan of up to 2,000 graph nodes opens with
    every group expanded; a bigger one opens as an overview of its groups. Memory lanes with more than
    4,000 tensors are binned until a zoom leaves few enough to draw.

    ``Explorer(manager)`` takes what ``to_executorch()`` returns (its buffer and in-memory data files), so a
    notebook needs no file; bytes and binary file objects work too. ``etrecord=`` (the export's ETRecord: a
    path, bytes, or executorch's ETRecord object / the manager made with ``generate_etrecord=True``) names each
    instruction's module and source line, and groups a big plan by the model's modules (docs/etrecord.md).

    ``profile=`` (an ETDump path or bytes; docs/profiles.md) draws run times on it: ops sized by their time,
    a per-device time bar, time per run of the selection, the memory map's x axis switchable to measured
    time. ``self.profile`` is the joined profile. With ``debug_buffer=`` (the ``.bin`` written with that run;
    docs/numerics.md) each op's details show what it produced (range, NaN/±Inf counts, first values, device), a
    NaN/Inf an op produced is a finding at it, and the built-in overlay ``output_range`` colours the ops;
    ``against=(program_b, etdump_b, debug_buffer_b[, etrecord_b])`` compares with another run: B's outputs and the
    gap in the details, the ``gap`` overlay (shown first), the "first divergence" button (tolerance ``tol``).
    ``self.numerics`` is the :class:`~explorer.analysis.numerics.load.NumericsReport`, as
    ``explorer.load_numerics`` returns it.

    ``moves=["delegate:*=cuda:0", ...]`` (or :meth:`move`, or "Move to ▸" in the details of a selected op,
    delegate, tensor or group) shows what executorch would export for that placement: the diff of the
    original vs the program :func:`explorer.what_if` predicts, in the same output (:mod:`explorer.widget.whatif`,
    docs/whatif.md). :meth:`undo` and :meth:`clear_moves` take moves back; :attr:`predicted` is the prediction.
    ``constants="arguments"``: predict as a partitioner that leaves the weights of moved kernels as delegate
    arguments (default ``"owned"``, as executorch's CUDA partitioner does; ``what_if(constants=...)``).
    """

    plan = traitlets.Unicode(help="name of the plan (method) shown").tag(sync=True)
    selected = traitlets.Instance(Selection, args=("",), help="what every panel highlights").tag(
        sync=True, to_json=lambda sel, widget: selection_json(sel, widget.findings), from_json=_selection_from_json)
    devices = traitlets.Tuple(help="devices (as strings) whose tensors are drawn; the others fade").tag(sync=True)
    expanded = traitlets.Tuple(help="ids of the open groups of the plan's graph").tag(sync=True)

    def __init__(self, source=None, *, plan: str | None = None, data=None, profile=None,
                 etrecord=None, moves=None, constants: str = "owned", debug_buffer=None, against=None, tol: float = DEFAULT_TOL, **kwargs):

        if "lod" in kwargs:
            raise TypeError("Explorer(lod=...) is gone: every plan is drawn the same way, a small one with every "
                            "group expanded (ex.expand / ex.collapse open and close groups)")
        self.program = open_program(source) if data is None else load(source, data=data)  # data: .ptd files
        if etrecord is not None and not isinstance(self.program, DataFile):
            self.program = attach_etrecord(self.program, etrecord)
        self.profile = None
        self._views: dict[str, PlanView] = {}
        if moves and (isinstance(self.program, DataFile) or not self.program.plans):
            raise ValueError("moves= needs a program with plans: there is nothing to move in this one")
        if isinstance(self.program, DataFile):  # a .ptd: the page of its entries, no plans
            self.findings = []
            super().__init__(_payload=pack(data_file_payload(self.program)), selected=Selection(""), **kwargs)
            return
        self.profile = open_profile(self.program, profile)  # run times drawn on the panels (docs/profiles.md)
        self.numerics = None  # a run's numbers (docs/numerics.md): the debug buffer with the profile's run
        if debug_buffer is not None:
            if profile is None or isinstance(profile, Profile):
                raise ValueError("debug_buffer= needs profile= as the run's ETDump (a path, bytes or a loaded ETDump)")
            self.numerics = load_numerics(self.program, profile, debug_buffer, against=against, tol=tol)
        elif against is not None:
            raise ValueError("against= compares two runs' numbers: it needs debug_buffer= (and profile=)")
        self.findings: list[Finding] = self._check()
        if self.numerics is not None:
            self.findings += list(self.numerics.a.numerics.findings)
        if not self.program.plans:  # valid, if useless: the page `device-explorer show` writes for it
            if plan is not None:
                raise KeyError(f"no plan {plan!r}: the program has no execution plans")
            super().__init__(_payload=pack(empty_program_payload(self.program, self.findings)), selected=Selection(""),
                             **kwargs)
            return
        first = plan or default_plan(self.program)
        if first not in self.program.plan_names:
            raise KeyError(f"no plan {first!r}: the program has {', '.join(self.program.plan_names)}")
        payload = app_payload(self.program, findings=self.findings, plan=first, views=self._view_all(),
                              profile=self.profile, limit=None)  # every plan: Python may switch to any
        if self.numerics is not None:
            payload["numerics"] = numerics_payload(self.numerics)
        self._plan_devices = {p["name"]: [d for d, _color in p["devices"]] for p in payload["plans"]}
        super().__init__(_payload=pack(payload), plan=first, selected=Selection(first),
                         devices=tuple(self._devices(first)), expanded=tuple(self._views[first].overview.expanded),
                         **kwargs)
        self.observe(self._on_plan, names=["plan"])
        self._init_overlays(self.program, self._views, self.profile, self.numerics)  # ex.overlay(...): widget/overlays.py
        if self.numerics is not None and not self.shown_overlay:
            shown = numerics_shown(self.numerics, first)
            if shown is not None and shown in self._overlay_set.names(first):
                self.shown_overlay = shown
        self._init_whatif(moves, constants)  # ex.move(...), ex.moves: widget/whatif.py

    def __repr__(self) -> str:
        name = Path(self.program.source).name if self.program.source else "program"
        return f"Explorer({name!r}, plan={self.plan!r}, selected={self.selected!r})"

    def _fallback_html(self) -> str:
        name = Path(self.program.source).name if self.program.source else "program"
        return program_fallback_html(name, self._views, getattr(self, "findings", None) or [])

    # -- public API ---------------------------------------------------------------------------------

    @property
    def view(self) -> PlanView:
        """The current plan with its analysis, its groups' :class:`~explorer.views.state.overview.Overview` and memory lanes."""
        return self._views[self.plan]

    @property
    def analysis(self):
        return self.view.analysis

    @property
    def overview(self):
        """The current plan's :class:`~explorer.views.state.overview.Overview`, its ``expanded`` kept equal to the trait."""
        ov = self.view.overview
        if list(ov.expanded) != list(self.expanded):
            ov.collapse_all()
            for gid in self.expanded:
                ov.expand(gid)
        return ov

    def select(self, *items, instructions=(), plan: str | None = None) -> Selection:
        """Select values (indices, names, ``"%3"``, Tensor objects) and/or ``instructions``, or a Finding.

        A Finding selects its values and instructions and switches to its plan. ``select()`` clears.
        Raises KeyError/IndexError for names or indices the plan doesn't have.
        """
        plans = self.program.plan_names
        owners = [i.plan for i in items if isinstance(i, Finding) and i.plan in plans]  # "" = program-wide
        target = plan or (owners[0] if owners else self.plan)
        selection = resolve(self.program.plan(target), items, instructions)
        with self.hold_sync():
            if target != self.plan:
                self.plan = target
            self.selected = selection
        return selection

    def expand(self, group) -> int:
        """Expand a group of the overview in place (by id, or by its label); returns its id."""
        ov = self.overview
        gid = self._group_id(group)
        ov.expand(gid)
        self.expanded = tuple(ov.expanded)
        return gid

    def collapse(self, group=None) -> None:
        """Collapse a group (id or label) and everything inside it; no argument collapses all."""
        ov = self.overview
        if group is None:
            ov.collapse_all()
        else:
            ov.collapse(self._group_id(group))
        self.expanded = tuple(ov.expanded)

    def reveal(self, *items, instructions=()) -> None:
        """Expand the groups holding these values / instructions (or the selection) so they are drawn."""
        ov = self.overview
        sel = self.select(*items, instructions=instructions) if items or instructions else self.selected
        ov.reveal(sel.values, sel.instructions)
        self.expanded = tuple(ov.expanded)

    def save_html(self, path: str | os.PathLike) -> Path:
        """Write the same app as one self-contained, offline HTML file; returns its path. With ``moves``, the
        what-if view (original vs predicted, the moves listed), as ``device-explorer show FILE --move ...`` writes."""

        if self.moves and self.predicted is not None:
            return write_whatif_report(self.program, self.predicted, path, plan=self.plan)

        return write_overlay_report(self.program, path, findings=self.findings, plan=self.plan, selected=self.selected,
                                    profile=self.profile, views=self._views, overlays=self._overlay_set,
                                    shown=self.shown_overlay or None, numerics=self.numerics)

    # -- building -----------------------------------------------------------------------------------

    def _check(self) -> list[Finding]:
        """``explorer.check(program)``, keeping each plan's analysis for its view (no second pass)."""
        analyses: dict = {}
        found = check(self.program, analyses=analyses)
        for p in self.program.plans:
            self._views[p.name] = plan_view(p, self.program, analysis=analyses[p.name])
        return found

    def _view_all(self) -> dict[str, PlanView]:
        for p in self.program.plans:
            if p.name not in self._views:
                self._views[p.name] = plan_view(p, self.program)
        return self._views

    def _devices(self, name: str) -> list[str]:
        """The devices of a plan's tensors and arenas, in the order the device buttons show them."""
        return self._plan_devices[name]

    def _group_id(self, group) -> int:
        groups = self.view.overview.groups.groups
        if isinstance(group, str):
            found = [g.id for g in groups if g.label == group]
            if not found:
                raise KeyError(f"no group labelled {group!r} (hover a group to see its label)")
            return found[0]
        return int(group)

    # -- trait observers and messages ---------------------------------------------------------------

    @traitlets.validate("plan")
    def _valid_plan(self, proposal) -> str:
        if proposal["value"] not in getattr(self.program, "plan_names", ()):  # (a data file has no plans)
            raise traitlets.TraitError(f"no plan {proposal['value']!r}: the program has "
                                       f"{', '.join(self.program.plan_names)}")
        return proposal["value"]

    def _on_plan(self, change) -> None:
        """A new plan starts unselected, with every device shown and its groups as it first opens (the page does
        the same)."""
        if self.selected.plan != change["new"]:
            self.selected = Selection(change["new"])
        self.devices = tuple(self._devices(change["new"]))
        ov = self._views[change["new"]].overview
        ov.reset()
        self.expanded = tuple(ov.expanded)
