"""The offline report of a run's numbers (``device-explorer numerics -o``, ``Explorer(..., numerics=...)``): program A's
report (:func:`.overlay.overlay_report_html`) with the built-in overlays ``output_range`` and, compared, ``gap``
(shown first), the NaN/Inf findings among the findings, and ``payload["numerics"]`` (:mod:`..payload.numerics`): the
details' rows and the first divergence the page's control selects.
"""

from __future__ import annotations

from pathlib import Path

from explorer.analysis.numerics.load import NumericsReport
from explorer.analysis.pipeline import check
from explorer.views.html.page import page_html
from explorer.views.payload.app import app_payload
from explorer.views.payload.numerics import numerics_payload
from explorer.views.payload.overlays import OverlaySet
from explorer.views.state.plan import plan_view

__all__ = ["numerics_report_html", "numerics_page_payload"]


def numerics_page_payload(report: NumericsReport, *, plan: str | None = None, views: dict | None = None) -> dict:
    program = report.a.program
    findings = list(check(program)) + list(report.a.numerics.findings)
    views = dict(views or {})
    for p in program.plans:
        if p.name not in views:
            views[p.name] = plan_view(p, program)
    overlays = OverlaySet(program, views, None, report.a.numerics, report.comparison)
    shown_plan = plan or next(iter(report.a.numerics.plans))
    names = overlays.names(shown_plan)
    shown = "gap" if "gap" in names else ("output_range" if "output_range" in names else None)
    payload = app_payload(program, findings=findings, plan=plan or shown_plan, views=views)
    payload["overlays"] = overlays.payload(shown)
    payload["numerics"] = numerics_payload(report)
    return payload


def numerics_report_html(report: NumericsReport, *, plan: str | None = None, title: str | None = None) -> str:
    program = report.a.program
    name = title or (Path(report.a.name).name if report.a.name else
                     (Path(program.source).name if program.source else "program"))
    return page_html(name, numerics_page_payload(report, plan=plan))
