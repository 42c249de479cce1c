"""The offline report of a run's numbers (``device-explorer numerics -o``): program A's report
(:func:`.overlay.overlay_report_html` with ``numerics=``) with the built-in overlays ``output_range`` and, compared,
``gap`` (shown first), the NaN/Inf findings among the findings, and ``payload["numerics"]``
(:mod:`..payload.numerics`): the details' rows and the first divergence the page's control selects. ``show
--debug-buffer`` and ``Explorer(..., debug_buffer=...)`` write the same page through the same function.
"""

from __future__ import annotations

from pathlib import Path

from explorer.analysis.numerics.load import NumericsReport
from explorer.views.payload.numerics import numerics_shown
from explorer.views.html.overlay import overlay_report_html

__all__ = ["numerics_report_html"]


def numerics_report_html(report: NumericsReport, *, plan: str | None = None, title: str | None = None,
                         profile=None) -> str:
    """The page; ``profile``: the run's joined profile (its times drawn as ``show --profile`` draws them)."""
    program = report.a.program
    name = title or (Path(report.a.name).name if report.a.name else
                     (Path(program.source).name if program.source else "program"))
    shown_plan = plan or next(iter(report.a.numerics.plans), None)
    return overlay_report_html(program, numerics=report, plan=shown_plan, title=name, profile=profile,
                               shown=numerics_shown(report, shown_plan))
