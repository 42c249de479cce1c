"""Static, offline HTML report: the notebook widget's app in one self-contained file.

The page holds plotly.js (the vendored partial bundle, inlined once), the app's modules
(:mod:`explorer.frontend`, the same code the widget runs) with a stand-in for the widget model, and the
data: per plan, the compact column tables the app folds, lays out, draws and describes it with
(:mod:`.report_lod`), at every size. The data is packed by :mod:`.embed` (gzip, base64), so no
string from the file can end the element that carries it. No CDN, no require.js, no widget manager.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import frontend
from ..analysis.types import Finding
from ..model import Program
from .companions_view import add_to_plan_payload
from .embed import data_element
from .escape import html_text, visible
from .overview import TRACE
from .palette import BLOCK_OPACITY, TENSOR_OPACITY
from .prepare import PlanView, default_plan, plan_view, program_summary, totals_view
from .requirements_html import runtime_needs_html
from .tables import device_table, finding_details, finding_label
from .selection import Selection

__all__ = ["report_html", "write_report", "app_payload", "page_html"]
# no width cap: a big graph needs every pixel the window has (the side column caps itself in style.css)
_PAGE_CSS = "body{margin:0;background:#F6F8FA}.dx-page{margin:0 auto;padding:14px 18px 28px}"



def _plan_payload(view: PlanView, findings: list[Finding], all_findings: list[Finding]) -> dict:
    """One plan at any size: the column tables the app builds its figures from (``frontend/figures.js``) and
    folds, lays out, draws and describes it with (:mod:`.report_lod`); no figure, no HTML per tensor or instruction."""
    from .report_lod import lod_devices, lod_payload

    plan = view.plan
    return {
        "name": plan.name,
        "label": visible(plan.name),
        "summary": visible(program_summary(view, findings)),
        "totals": device_table(plan, totals_view(view)) + runtime_needs_html(view),
        "devices": lod_devices(view),
        "nInstructions": len(plan.instructions),
        "nValues": len(plan.values),
        "findingDetails": {str(all_findings.index(f)): finding_details(plan, f) for f in findings},
        "lod": lod_payload(view),
    }


def app_payload(program: Program, *, findings: list[Finding], plan: str | None = None,
                selected: Selection | None = None, title: str | None = None,
                views: dict[str, PlanView] | None = None, profile=None) -> dict:
    """Everything the app draws for ``program``: every plan, the findings, the first selection.
    The widget sends the same payload as the page embeds. ``profile``: a joined run profile
    (:func:`explorer.views.profile_payload.open_profile`), drawn on the plans it has runs of."""
    views = views or {}
    plans = [views.get(p.name) or plan_view(p, program) for p in program.plans]
    from .context_payload import context_columns
    out = {
        "title": visible(title or (Path(program.source).name if program.source else "program")),
        "trace": TRACE,
        "opacity": {"tensor": TENSOR_OPACITY, "block": BLOCK_OPACITY},
        "plan": plan or (default_plan(program) if program.plans else None),  # no plans: nothing to open
        "plans": [_with_context(add_to_plan_payload(_plan_payload(v, [f for f in findings if f.plan == v.plan.name],
                                                                  findings), program, v.plan),
                                context_columns(program, v.plan)) for v in plans],  # + data files, delegate insides
        "findings": [{"label": finding_label(f), "plan": f.plan, "severity": f.severity,
                      "values": list(f.values), "instructions": list(f.instructions)} for f in findings],
        "selected": None if not selected else selection_json(selected, findings),
        # the file a what-if's CLI line names ("Move to ▸" in the details: explorer/frontend/moves.js)
        "whatif": _source_block(program),
    }
    if profile is not None:
        from .profile_payload import attach_profile
        attach_profile(out, profile)
    return out


def _source_block(program: Program) -> dict:
    from .whatif_report import source_block  # (that module builds on this one)
    return source_block(program)


def _with_context(plan_payload: dict, context: dict | None) -> dict:
    """``plans[].context``: an ETRecord's module, source and nodes per instruction, when one is joined."""
    if context is not None:
        plan_payload["context"] = context
    return plan_payload


def selection_json(selected: Selection, findings: list[Finding]) -> dict:
    """A :class:`Selection` as the app keeps it (the finding by its index in ``findings``)."""
    return {"plan": selected.plan, "values": list(selected.values), "instructions": list(selected.instructions),
            "finding": str(findings.index(selected.finding)) if selected.finding in findings else None,
            "query": selected.query}


def page_html(title: str, payload: dict, entry: str = "page", extra_css: str = "") -> str:
    """A self-contained page running the app's ``entry`` over ``payload``."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html_text(title)} · ExecuTorch device explorer</title>
<style>{frontend.css()}{_PAGE_CSS}{extra_css}</style>
<script>{frontend.plotly_js()}</script>
</head><body><div class="dx-page">
<div id="dx-app" class="dx-root"><noscript>This report draws with JavaScript; please enable it.</noscript></div>
<p class="dx-root dx-muted">Made by executorch-device-explorer from {html_text(title)}; works offline.</p>
</div>
{data_element(payload)}
<script type="module">{frontend.bundle(entry)}</script>
</body></html>
"""


def report_html(program: Program, *, findings: list[Finding] | None = None, plan: str | None = None,
                selected: Selection | None = None, title: str | None = None,
                views: dict[str, PlanView] | None = None, profile=None) -> str:
    """The whole report page as a string (see :func:`write_report`).

    ``findings`` default to ``explorer.check(program)``; ``views`` (plan name -> PlanView) reuse
    analyses already made (the widget's, the CLI's); missing ones are computed.
    """
    if findings is None:
        from ..analysis import check
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
<style>{frontend.css()}{_PAGE_CSS}</style></head><body><div class="dx-page dx-root">
<div class="dx-head"><h1>{html_text(name)}</h1><span class="dx-muted">no execution plans</span></div>
<div class="dx-card"><p>This program has no execution plans (methods), so no tensor or arena is placed on any
device: there is nothing to draw. {len(program.segments)} segment(s), {program.size:,} bytes.</p>
<h3>Findings</h3><ul>{items}</ul></div>
<p class="dx-muted">Made by executorch-device-explorer from {html_text(name)}; works offline.</p>
</div></body></html>
"""


def write_report(program: Program, path: str | os.PathLike, **kwargs) -> Path:
    """Write :func:`report_html` to ``path`` (UTF-8) and return the path."""
    out = Path(path)
    out.write_text(report_html(program, **kwargs), encoding="utf-8")
    return out
