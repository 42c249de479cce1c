"""The offline report with overlays: :func:`.report.report_html`'s page, its payload given ``"overlays"``.

Kept beside :mod:`.report` (the lead's module) so the one renderer's payload stays one function; the payload is
:func:`.report.app_payload`'s plus :meth:`.overlay_set.OverlaySet.payload` under ``payload["overlays"]``
(docs/overlays.md), built over the same plan views so the group ids agree.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.outputs import refuse_inputs, write_text
from explorer.model.program import Program
from explorer.views.payload.numerics import numerics_payload
from explorer.views.payload.overlays import OverlaySet
from explorer.views.state.plan import plan_view
from explorer.views.payload.app import app_payload
from explorer.views.html.page import page_html
from explorer.views.html.report import report_html
from explorer.analysis.pipeline import check

__all__ = ["overlay_report_html", "write_overlay_report"]


def overlay_report_html(program: Program, *, overlays: OverlaySet | None = None, shown: str | None = None,
                        findings=None, plan: str | None = None, selected=None, title: str | None = None,
                        views: dict | None = None, profile=None, numerics=None) -> str:
    """The report page of ``program`` carrying ``overlays`` (built-ins only when None), ``shown`` drawn first.
    ``numerics``: a :class:`~explorer.analysis.numerics.load.NumericsReport` of a run of ``program`` (its A): the
    built-ins ``output_range`` and ``gap`` when ``overlays`` is None, its NaN/Inf findings after ``check``'s, and
    ``payload["numerics"]`` (:mod:`explorer.views.payload.numerics`)."""
    if not program.plans:
        return report_html(program, findings=findings, title=title)
    if findings is None:
        findings = list(check(program)) + (list(numerics.a.numerics.findings) if numerics is not None else [])
    views = dict(views or {})
    for p in program.plans:
        if p.name not in views:
            views[p.name] = plan_view(p, program)
    if overlays is None:
        overlays = OverlaySet(program, views, profile, *((numerics.a.numerics, numerics.comparison)
                                                         if numerics is not None else ()))
    payload = app_payload(program, findings=findings, plan=plan, selected=selected, title=title, views=views,
                          profile=profile, also=tuple(overlays.planned_on()))
    payload["overlays"] = overlays.payload(shown, plans=[p["name"] for p in payload["plans"]])
    if numerics is not None:
        payload["numerics"] = numerics_payload(numerics)
    return page_html(title or (Path(program.source).name if program.source else "program"), payload)


def write_overlay_report(program: Program, path: str | os.PathLike, **kwargs) -> Path:
    """Write :func:`overlay_report_html` to ``path`` (UTF-8) and return the path: atomically, and never
    over an input (:mod:`explorer.outputs`)."""
    refuse_inputs(path, (program,))  # before the work, not after it
    return write_text(path, overlay_report_html(program, **kwargs), inputs=(program,))
