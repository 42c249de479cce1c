"""Static, offline HTML report: the notebook widget's app in one self-contained file.

The page (:mod:`.page`) holds plotly.js (the vendored partial bundle, inlined once), the app's modules
(:mod:`explorer.frontend`, the same code the widget runs) with a stand-in for the widget model, and the
payload the widget is sent (:func:`explorer.views.payload.app.app_payload`): per plan, the compact column
tables the app folds, lays out, draws and describes at every size.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.outputs import refuse_inputs, write_text
from explorer import frontend
from explorer.analysis.pipeline import check
from explorer.analysis.types import Finding
from explorer.model.program import Program
from explorer.views.escape import html_text
from explorer.views.html.page import PAGE_CSS, page_html
from explorer.views.fragments.tables import finding_label
from explorer.views.payload.app import app_payload
from explorer.views.state.plan import PlanView
from explorer.views.state.selection import Selection

__all__ = ["report_html", "write_report"]


def report_html(program: Program, *, findings: list[Finding] | None = None, plan: str | None = None,
                selected: Selection | None = None, title: str | None = None,
                views: dict[str, PlanView] | None = None, profile=None) -> str:
    """The whole report page as a string (see :func:`write_report`).

    ``findings`` default to ``explorer.check(program)``; ``views`` (plan name -> PlanView) reuse
    analyses already made (the widget's, the CLI's); missing ones are computed.
    """
    if findings is None:
        findings = list(check(program))
    if not program.plans:
        return _empty_report(program, findings, title)
    payload = app_payload(program, findings=findings, plan=plan, selected=selected, title=title, views=views,
                          profile=profile)
    return page_html(title or (Path(program.source).name if program.source else "program"), payload)


def _empty_report(program: Program, findings: list[Finding], title: str | None) -> str:
    """A program with no execution plans (valid, if useless): say so, with its findings; no graph to draw."""
    name = title or (Path(program.source).name if program.source else "program")
    items = "".join(f"<li>{html_text(finding_label(f))}</li>" for f in findings) or "<li>no findings</li>"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html_text(name)} · ExecuTorch device explorer</title>
<style>{frontend.css()}{PAGE_CSS}</style></head><body><div class="dx-page dx-root">
<div class="dx-head"><h1>{html_text(name)}</h1><span class="dx-muted">no execution plans</span></div>
<div class="dx-card"><p>This program has no execution plans (methods), so no tensor or arena is placed on any
device: there is nothing to draw. {len(program.segments)} segment(s), {program.size:,} bytes.</p>
<h3>Findings</h3><ul>{items}</ul></div>
<p class="dx-muted">Made by executorch-device-explorer from {html_text(name)}; works offline.</p>
</div></body></html>
"""


def write_report(program: Program, path: str | os.PathLike, **kwargs) -> Path:
    """Write :func:`report_html` to ``path`` (UTF-8) and return the path: atomically, and never
    over an input (:mod:`explorer.outputs`)."""
    refuse_inputs(path, (program,))  # before the work, not after it
    return write_text(path, report_html(program, **kwargs), inputs=(program,))
