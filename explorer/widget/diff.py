"""``Diff``: the placement diff of two programs as a notebook widget (``explorer.Diff(a, b)``).

A review of "what did this partitioner change do to placement": the header counts what moved, the
copies and arenas that changed and what the runtime must now provide; the two graphs sit side by
side with every change ringed by status; each side's memory map outlines its changed blocks; the
runtime needs of both sides are compared row by row. Clicking a tensor or op on either side (or a memory
block) selects it **and its counterpart**. Each side is drawn as one program is: a small one with every group
expanded, a big one as an overview of groups, each group holding changes marked with their count;
selecting something opens the group holding its counterpart on the other side.

It is the Explorer's browser app in its two-program mode (``explorer/frontend/diff/diff.js``), on anywidget,
with the same payload the diff report embeds. State is traits synced both ways: ``plan``, ``selected`` (a
:class:`~explorer.views.state.diff.DiffSelection`) and, with two runs' numbers compared (``debug_buffers=``),
``shown_overlay``: the built-in overlay colouring both sides' ops (``gap`` first; docs/overlays.md), ``""`` for the
device colours, as :class:`explorer.Explorer`'s.
"""

from __future__ import annotations

import os
from pathlib import Path

import traitlets

from explorer.analysis.diff.compare import PlanDiff, ProgramDiff, ValueChange
from explorer.views.state.diff import SIDES, DiffPlanView, DiffSelection, default_diff_plan, open_diff
from explorer.views.payload.diff import diff_payload, diff_views
from explorer.views.payload.embed import pack
from explorer.widget.base import AppWidget
from explorer.views.fragments.fallback import diff_fallback_html
from explorer.views.state.selection import resolve
from explorer.analysis.context import attach_etrecord
from explorer.views.html.diff import write_diff_report
from explorer.views.payload.profile import open_profile
from explorer.analysis.numerics.compare import DEFAULT_TOL
from explorer.analysis.overlays import OverlayError
from explorer.analysis.numerics.load import load_numerics
from explorer.analysis.profile.join import Profile
from explorer.views.state.plan import open_program

__all__ = ["Diff", "DiffSelection"]


def _selection_from_json(data, widget: Diff) -> DiffSelection:
    if not data:
        return DiffSelection(widget.plan)
    values, instrs = data.get("values") or {}, data.get("instructions") or {}
    return DiffSelection(str(data.get("plan") or widget.plan), *(tuple(int(v) for v in values.get(s) or ()) for s in SIDES),
                         *(tuple(int(i) for i in instrs.get(s) or ()) for s in SIDES), str(data.get("side") or ""))


class Diff(AppWidget):
    """Where two programs place their tensors, side by side: ``explorer.Diff("before.pte", "after.pte")``.

    ``a``/``b`` are paths, bytes, binary file objects, ``ExecutorchProgramManager`` objects or Programs;
    ``etrecords=(A's, B's)`` joins each side's ETRecord (docs/etrecord.md); ``plan=`` picks the method shown (default ``forward``, else
    the first plan both have). ``diff`` is the :class:`~explorer.analysis.diff.compare.ProgramDiff` behind it,
    ``selected`` the linked selection, :meth:`select` sets it from code, :meth:`save_html` writes the
    same view as an offline page.
    """

    plan = traitlets.Unicode(help="name of the plan (method) shown; one both programs have").tag(sync=True)
    selected = traitlets.Instance(DiffSelection, args=("",), help="what both sides highlight").tag(
        sync=True, to_json=lambda sel, _widget: sel.to_json(), from_json=_selection_from_json)
    shown_overlay = traitlets.Unicode("", help="the overlay colouring both sides' ops ('' for none)").tag(sync=True)

    def __init__(self, a, b, *, plan: str | None = None, profiles=None, etrecords=None, debug_buffers=None,
                 tol: float = DEFAULT_TOL, **kwargs):
        if etrecords is not None:  # (ETRecord of A, of B); either may be None

            a, b = (open_program(x) if e is None else attach_etrecord(open_program(x), e)
                    for x, e in zip((a, b), etrecords))
        self.program_a, self.program_b, self.diff = open_diff(a, b)
        # (ETDump of A, ETDump of B): what got faster or slower, drawn on both graphs (docs/profiles.md)
        self.profiles = None if profiles is None else (open_profile(self.program_a, profiles[0]),
                                                       open_profile(self.program_b, profiles[1]))
        self.diff: ProgramDiff
        # (debug buffer of A's run, of B's) with those runs' ETDumps: both runs' numbers compared (docs/numerics.md),
        # as `device-explorer diff --profile A B --debug-buffer A B` and explorer.load_numerics(..., against=...)
        self.numerics = None
        if debug_buffers is not None:
            if profiles is None or any(isinstance(p, Profile) for p in profiles):
                raise ValueError("debug_buffers= needs profiles= as the runs' ETDumps (paths, bytes or loaded ETDumps)")
            self.numerics = load_numerics(self.program_a, profiles[0], debug_buffers[0],
                                          against=(self.program_b, profiles[1], debug_buffers[1]), tol=tol)
        first = plan or default_diff_plan(self.diff)
        self.diff.plan(first)  # KeyError naming the missing plan
        self._views: dict[str, DiffPlanView] = diff_views(self.diff, self.program_a, self.program_b)
        payload = diff_payload(self.diff, self._views, plan=first, profiles=self.profiles,
                               programs=(self.program_a, self.program_b), numerics=self.numerics)
        # each side's overlays (with numbers compared), by plan: what shown_overlay may name
        sides = (payload.get("overlays") or {}).get("sides") or {}
        self._overlay_names = {p.plan: list(dict.fromkeys(o["name"] for s in SIDES if s in sides
                                                          for o in sides[s]["plans"].get(p.plan, [])))
                               for p in self.diff.plans}
        shown = (payload.get("overlays") or {}).get("shown") or ""
        super().__init__(_payload=pack(payload), plan=first, selected=DiffSelection(first), shown_overlay=shown,
                         **kwargs)
        self.observe(self._on_plan, names=["plan"])

    def __repr__(self) -> str:
        return f"Diff({self.view.name_a!r}, {self.view.name_b!r}, plan={self.plan!r}, selected={self.selected!r})"

    def _fallback_html(self) -> str:
        return diff_fallback_html(self.view.name_a, self.view.name_b, {p: v.a for p, v in self._views.items()},
                                  {p: v.b for p, v in self._views.items()})

    # -- public API ---------------------------------------------------------------------------------

    @property
    def view(self) -> DiffPlanView:
        """The current plan of both programs (diff, analyses, layouts)."""
        return self._views[self.plan]

    @property
    def plan_diff(self) -> PlanDiff:
        """The :class:`~explorer.analysis.diff.compare.PlanDiff` of the current plan."""
        return self.view.diff

    def select(self, *items, side: str = "a", instructions=()) -> DiffSelection:
        """Select values of ``side`` (``"a"`` or ``"b"``: indices, names, ``"%3"``, Tensors) and/or its
        ``instructions``; their counterparts on the other side follow. A
        :class:`~explorer.analysis.diff.compare.ValueChange` selects its tensor on A (on B when it was added).
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

    @property
    def overlays(self) -> list[str]:
        """The overlays that can colour the plan shown (either side's built-ins; with numbers compared)."""
        return list(self._overlay_names.get(self.plan, []))

    def show_overlay(self, name: str | None) -> None:
        """Colour both sides' ops by overlay ``name`` (None: the device colours)."""
        self.shown_overlay = name or ""

    def save_html(self, path: str | os.PathLike) -> Path:
        """Write the same view as one self-contained, offline HTML file; returns its path."""
        return write_diff_report(self.program_a, self.program_b, path, result=self.diff,
                                 programs=(self.program_a, self.program_b), plan=self.plan, selected=self.selected,
                                 views=self._views, profiles=self.profiles, numerics=self.numerics,
                                 shown_overlay=self.shown_overlay)

    # -- trait observers and messages ---------------------------------------------------------------

    @traitlets.validate("shown_overlay")
    def _valid_overlay(self, proposal) -> str:
        name, names = proposal["value"], list(dict.fromkeys(n for ns in self._overlay_names.values() for n in ns))
        if name and name not in names:
            raise traitlets.TraitError(str(OverlayError(
                f"Invalid value of 'shown_overlay': {name!r}. Expected one of {names} (or '' for none)")))
        return name

    @traitlets.validate("plan")
    def _valid_plan(self, proposal) -> str:
        self.diff.plan(proposal["value"])  # KeyError naming the plans both programs have
        return proposal["value"]

    def _on_plan(self, change) -> None:
        if self.selected.plan != change["new"]:
            self.selected = DiffSelection(change["new"])
