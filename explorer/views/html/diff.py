"""Static, offline HTML of a placement diff: ``device-explorer diff A B --html out.html`` and ``Diff.save_html``.

The same page as the one-program report (:func:`.page.page_html`): plotly.js and the app's modules
inlined once, the app in its two-program mode (``explorer/frontend/diff/diff.js``) — a click on a tensor
or op of either graph (or a memory block) selects it and its counterpart, rings both, outlines both
memory blocks and shows the pair's before → after table.

Per plan the page carries each side as the one-program payload of that plan plus the diff as columns
(:mod:`explorer.views.payload.diff`), drawn by the same modules as one program, at every size.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.outputs import refuse_inputs, write_text
from explorer.analysis.diff.compare import ProgramDiff
from explorer.model.program import Program
from explorer.views.html.page import page_html
from explorer.views.payload.diff import diff_payload, diff_views
from explorer.views.state.diff import DiffPlanView, DiffSelection, open_diff

__all__ = ["diff_report_html", "write_diff_report"]


def diff_report_html(a, b, *, plan: str | None = None, result: ProgramDiff | None = None,
                     programs: tuple[Program, Program] | None = None, selected: DiffSelection | None = None,
                     views: dict[str, DiffPlanView] | None = None, title: str | None = None, profiles=None,
                     numerics=None, shown_overlay: str | None = None) -> str:
    """The diff page as a string. ``a``/``b``: paths, bytes or Programs; ``result``/``programs``/``views``
    reuse work already done (the CLI's diff, the widget's views); ``plan`` is the plan shown first; ``numerics``
    a NumericsReport of a run of A compared with one of B, with ``shown_overlay`` the overlay its sides open
    coloured by (:func:`~explorer.views.payload.diff.diff_payload`)."""
    if result is None or programs is None:
        pa, pb, result = open_diff(a, b)
    else:
        pa, pb = programs
    if not result.plans:
        raise ValueError("the two programs have no plan (method) in common: nothing to compare")
    views = diff_views(result, pa, pb, views)
    payload = diff_payload(result, views, plan=plan, selected=selected, title=title, profiles=profiles,
                           programs=(pa, pb), numerics=numerics, shown_overlay=shown_overlay)
    shown = views[result.plans[0].plan]
    name = title or f"{shown.name_a} → {shown.name_b}"
    return page_html(f"{name} · placement diff", payload)


def write_diff_report(a, b, path: str | os.PathLike, **kwargs) -> Path:
    """Write :func:`diff_report_html` to ``path`` (UTF-8) and return the path: atomically, and never
    over an input (:mod:`explorer.outputs`)."""
    inputs = (a, b, *(kwargs.get("programs") or ()))
    refuse_inputs(path, inputs)  # before the work, not after it
    return write_text(path, diff_report_html(a, b, **kwargs), inputs=inputs)
